"""What a public reading of a TACW game's log must not show (engine/core/explain.py looks these
functions up for /explain): the Second Newbury boat bridge (special rule 5, DECISIONS.md D108).

Parliament records the boat bridge's hex in secret with `boatbridge <hex>`; until one of its
units stands on it, nobody else may learn the hex. The engine already keeps it out of the
events (D108), but the command line itself (`boatbridge 3438`, or a move whose unwalked path ran
over it) holds the hex: while the secret stands, that hex is shown as '(secret)' and the words of
`boatbridge` are hidden. Once revealed, the log shows everything.
"""
from __future__ import annotations

from typing import Any


def _secret_boat(state: Any) -> str:
    from .newbury_rules import boat_bridge_hex
    recorded = boat_bridge_hex(state, secret=True)
    return recorded if recorded and not boat_bridge_hex(state) else ""


def hidden_strings(scenario: Any, state: Any) -> set[str]:
    boat = _secret_boat(state)
    return {boat} if boat else set()


def private_verbs(scenario: Any, state: Any) -> set[str]:
    return {"boatbridge"} if _secret_boat(state) else set()
