"""Pending decisions (DESIGN): when the rules hand a choice to a player in the middle of another's
action, the engine stops and says who must answer and with which commands. Buttons and the CLI
are two faces of the same answer: each `Answer` is a line of the command language."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    label: str       # what a button says, e.g. "Retreat to 0404", "Bypass with Rupert's wing"
    line: str        # the command that gives this answer, e.g. "retreat 0404"


@dataclass(frozen=True)
class PendingDecision:
    kind: str                      # "retreat", "bypass", "reaction_fire", ...
    side: str                      # who must answer
    prompt: str                    # one line for people
    answers: tuple[Answer, ...]    # every legal answer
    section: str = ""              # the rule that asks
