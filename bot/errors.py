"""The bot's refusals: a request refused before (or instead of) the rules, with a text saying why.

A leaf of bot/ (DESIGN "Layers, one way"): the service, the club features and the cogs all raise
or catch these, so they live below all of them and import nothing from bot/.
"""
from __future__ import annotations

from engine.core.errors import HeraldError


class Refused(HeraldError):
    """The bot refuses a request before the rules are consulted (no game, wrong seat...)."""


class NoGame(Refused):
    """The channel has no game in setup or play."""


class NotAllowed(Refused):
    """The user may not do this (not seated, not the creator, not an admin...)."""


class StaleChoice(Refused):
    """A button was built for an earlier moment of the game."""
