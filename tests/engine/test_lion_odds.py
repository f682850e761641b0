"""Lion of the North's /odds of a melee (engine/lion/odds.py, issue 13): the melee dice are read
only as how the totals compare (DiceStream.roll_sums), a gun's d6 and a general's d8 are banded
(checks.roll's `reads`), so a melee takes a few adjudications, and the answer equals the plain
enumeration exactly."""
from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import DEMO_DIR, read_script, split_side
from engine.core.game import Game
from engine.core.odds import what_if

LUTZEN = Path(DEMO_DIR) / "lion--lutzen.txt"


def _before(line_no: int):
    seed, lines = read_script(LUTZEN)
    g = Game.new("lion", "lutzen", seed)
    for raw in lines[:line_no - 1]:
        side, command = split_side(raw, g.ruleset.sides)
        g.apply(side, command)
    side, command = split_side(lines[line_no - 1], g.ruleset.sides)
    return g, side, command.split(" dice=")[0]


@pytest.mark.parametrize("line_no", [43])
def test_melee_banded_and_exact(line_no):
    g, side, text = _before(line_no)
    assert text.startswith("fight ")
    odds = what_if(g.ruleset, g.scenario, g.state, side, text)
    plain = what_if(g.ruleset, g.scenario, g.state, side, text, budget=None, merge=False, time_limit=60)
    assert odds.horizon is None
    assert {o.label: o.probability for o in odds.outcomes} == {o.label: o.probability for o in plain.outcomes}
    assert sum(o.probability for o in odds.outcomes) == 1
    # 100 die sequences plainly (two melee dice, each side's d10); read as lower, tie or higher
    assert plain.leaves >= 100 and odds.leaves <= 40
