"""Seats for This Accursed Civil War: which wing a command concerns, for a side shared by players.

Club play lets several players share a side, a wing each (issue 5: "a wing each in TACW"); the bot
(bot/club.py) looks this module up as ``engine.<ruleset>.seats`` and asks it three questions. It
decides no rule: the rules still check every command (e.g. only the active wing's units act,
TACW §4.2.3); this only says whose command it is, from the words and the state.

HERALD decisions (the rulebook is written for one player a side; a multi-player side mirrors
the army's own chain of command, §5: the Army Commander over his Wing Commanders):
- A command concerns the wings of every unit, leader or wing it names (by id, or a unit by the
  hex it stands in when that is the command's first word), and, while one of the side's wings is
  activated, that wing (§3.2: what the side does then, it does with the active wing).
- A command that concerns no wing (``pass``, ``halt``, ``bypass none``, ``react all``, ``deploy
  done``, a side-wide ``policy``, ``resign``) is the Army Commander's: the side's first player.
"""
from __future__ import annotations

from typing import Any

from engine.core.commands import Command

from engine.tacw.state import TacwState

# verbs that act for the whole side even while one of its wings is active
SIDE_VERBS = frozenset({"pass", "resign", "halt"})


def wings(scenario: Any, state: TacwState, side: str) -> list[tuple[str, str]]:
    """The side's wings: (id, name), in the scenario's order (§5.5)."""
    return [(w.id, w.name) for w in state.wings.values() if w.side == side]


def _wing_of_word(state: TacwState, side: str, word: str, first: bool) -> str | None:
    if word in state.wings:
        return word if state.wings[word].side == side else None
    unit = state.units.get(word)
    if unit is not None:
        return unit.wing if unit.side == side else None
    leader = state.leaders.get(word)
    if leader is not None:
        return leader.wing if leader.side == side and leader.wing else None
    if first:                                   # a unit given by its hex (actions.find_unit)
        here = [u for u in state.units_at(word) if u.side == side]
        if len({u.wing for u in here}) == 1:
            return here[0].wing
    return None


def command_wings(scenario: Any, state: TacwState, side: str, cmd: Command) -> set[str]:
    """The side's wings this command concerns; empty: a side-wide command (module docstring)."""
    found = {w for i, word in enumerate(cmd.args)
             if (w := _wing_of_word(state, side, word, i == 0)) is not None}
    act = state.activation
    if act is not None and act.side == side and cmd.verb not in SIDE_VERBS:
        found.add(act.wing)
    p = state.pending
    if p and p.get("side") == side and p.get("unit") in state.units:      # an owner's choice
        unit = state.units[p["unit"]]
        if unit.side == side:
            found.add(unit.wing)
    return found


def waiting_wing(state: TacwState, side: str) -> str | None:
    """The wing whose player the game waits on, when it waits on one wing of `side`: the unit
    in an owner's choice, else the side's active wing; None when the whole side must answer."""
    act = state.activation
    active = act.wing if act is not None and act.side == side else None
    p = state.pending
    if p:
        if p.get("side") != side:
            return None
        unit = state.units.get(p.get("unit") or "")
        return unit.wing if unit is not None and unit.side == side else active
    return active
