"""TACW trials on a scratch copy roll no dice (D128): the "auto" facing reaction tries a double
unit's wheels (§7.4.2) with a stream that refuses every die, so a trial can neither read the
game's next die nor add a die to a what-if (engine/core/odds.py).

Map (flat-top): from 0904 the NW neighbour is 0803; the double p-dbl on 0905-0906 facing W has
0904 in its flank (test_tacw_movement); r-hi enters 0904 from 0803."""
from __future__ import annotations

import pytest

from engine.core import facing as F
from engine.core.dice import WHAT_IF
from engine.core.odds import what_if
from engine.tacw.movement import reactions as reactions
from engine.tacw.ruleset import TACW

from .tacw_helpers import Position

R, P = "royalist", "parliament"


def double_in_flank() -> Position:
    p = Position([("r-hi", R, "r-a", "heavy", ["0803"], "SE"),
                  ("p-dbl", P, "p-a", "heavy", ["0905", "0906"], "W")])
    p.go(R, "activate r-a")
    p.go(P, "policy reaction never")          # no Reaction Fire: only the facing reaction
    p.go(P, "policy reaction_move auto")
    return p


def test_tacw_7_4_2_no_dice_refuses_every_die_even_in_a_what_if():
    stream = reactions.NoDice("a test trial")
    with pytest.raises(RuntimeError, match="internal error: a test trial asked for a d10"):
        stream.roll(10, "morale check")
    with pytest.raises(RuntimeError, match="hidden draw"):
        stream.randbelow(6)

    class Enumerating:                         # a what-if would answer any die it is asked
        def roll(self, sides, purpose, stream):
            return 1

        def hidden(self, bound):
            return None

    token = WHAT_IF.set(Enumerating())
    try:
        with pytest.raises(RuntimeError, match="a trial must roll no dice"):
            stream.roll(10, "fire")
    finally:
        WHAT_IF.reset(token)


def test_tacw_7_4_2_auto_wheel_of_a_double_rolls_nothing():
    p = double_in_flank()
    draws = p.st.draws
    p.go(R, "move r-hi 0904")
    d = p.unit("p-dbl")
    assert d.hexes != ["0905", "0906"]                             # it wheeled ...
    assert "0904" in F.arcs(p.sc.grid, d.hexes, d.facing)["front"]  # ... to face r-hi
    assert any(e.kind == "move" and e.actor == P and e.section == "TACW §7.4.2" for e in p.events)
    assert p.st.draws == draws                                     # no die, trial or real


def test_tacw_7_4_2_a_trial_that_asked_for_a_die_fails_loudly(monkeypatch):
    """Were a trial wheel ever to roll, it must not silently read the game's next die (as a copy
    of the game's stream did): it is an internal error, not an illegal plan skipped in silence."""
    walk = reactions.reaction_walk

    def rolling_walk(sc, st, r, steps, stream, **kw):
        stream.roll(10, "a die the trial should never ask for")
        return walk(sc, st, r, steps, stream, **kw)

    monkeypatch.setattr(reactions, "reaction_walk", rolling_walk)
    p = double_in_flank()
    with pytest.raises(RuntimeError, match="trial wheel of the 'auto' facing reaction"):
        p.go(R, "move r-hi 0904")


def test_tacw_7_4_2_what_if_of_a_move_met_by_an_auto_wheel_has_one_certain_outcome():
    p = double_in_flank()
    odds = what_if(TACW, p.sc, p.st, R, "move r-hi 0904", budget=None)
    assert len(odds.outcomes) == 1 and odds.outcomes[0].probability == 1
