"""Jours de Gloire's command surface (issue 14): declared as data within Discord's limits, every
verb citing its paragraph, every action verb in a part of the turn [1]."""
from __future__ import annotations

import re

from engine.jdg.verbs import COMMANDS, PHASES, POLICIES, VERBS


def test_the_surface_fits_discord():
    names = [v.name for v in VERBS]
    assert len(names) == len(set(names))
    for phase in PHASES:
        assert len([v for v in VERBS if v.phase == phase.name and v.surface]) <= 25, phase.name
    for v in VERBS:
        assert len(v.description) <= 100 or v.surface is False, v.name   # Discord: 100 characters
        assert len(v.options) <= 25
        assert v.phase in {p.name for p in PHASES}, v.name
        for o in v.options:
            assert len(o.description) <= 100, (v.name, o.name)


def test_every_verb_cites_the_rulebook():
    for v in VERBS:
        assert re.search(r"JdG \[\d+(\.\d+)?\]|Marengo D", v.section), v.name


def test_secret_orders_are_answered_only_to_the_giver():
    """[2.3]: the orders are placed face down; Herald keeps them in private replies."""
    orders = COMMANDS.verb("orders")
    assert orders.reply == "secret" and orders.secret_reply
    assert COMMANDS.verb("combined").reply == "secret"


def test_policies_cover_each_reaction_the_text_gives():
    kinds = {p.kind for p in POLICIES}
    assert {"reaction", "counterbattery", "square", "refuse", "countercharge", "retreat"} <= kinds
