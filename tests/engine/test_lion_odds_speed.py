"""Issue 13: Lion's melee /odds fast and exact. The core's dice read only through their totals
(engine.core.dice.DiceStream.roll_sums, engine.core.odds_walk `_sums` and `_Walk.roll_sums`), Lion's
melee rolled with them (melee/fight.py roll_sides, checks.roll_totals): each a test, and a Lutzen
melee's answer equal to the plain enumeration."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace

import pytest

from engine.core.dice import DiceStream
from engine.core.errors import DiceNeeded
from engine.core.game import run_command
from engine.core.odds import what_if
from engine.core.odds_walk import _sums
from engine.lion import checks
from tests.engine.test_lion_odds import _before

D3 = (1, 1, 2, 2, 3, 3)


def as_dict(odds) -> dict:
    return {o.label: o.probability for o in odds.outcomes}


# -- the core: DiceStream.roll_sums ------------------------------------------------------------------

def test_roll_sums_outside_a_what_if_rolls_each_die_in_turn():
    """The real game: the same draws as rolling the dice one by one, each recorded; `read` unused."""
    sums = [[(10, "melee die of a"), (6, "flank 1d3 of a (d3: a d6 halved, rounded up)", D3)], [(8, "melee die of d")]]
    for seed in range(5):
        a, b = DiceStream(seed, 3), DiceStream(seed, 3)
        got = a.roll_sums(sums, read=lambda totals: pytest.fail("read outside a what-if"))
        want = [[b.roll(10, "x"), b.roll(6, "y")], [b.roll(8, "z")]]
        assert got == want and a.draws == b.draws == 6


def test_roll_sums_takes_supplied_dice_in_order_and_asks_each_roller_for_the_missing_one():
    s = DiceStream(1, 0, supplied=[7, 2, 5])
    assert s.roll_sums([[(10, "a"), (6, "b")], [(8, "c")]], read=len) == [[7, 2], [5]]
    assert s.used_supplied == [7, 2, 5]
    strict = DiceStream(1, 0, supplied=[4], strict=True)
    with pytest.raises(DiceNeeded) as info:
        strict.roll_sums([[(10, "attack")], [(8, "defence")]], read=len, rollers=[None, "imperial"])
    assert (info.value.purpose, info.value.sides, info.value.roller) == ("defence", 8, "imperial")


def test_sums_counts_every_sequence_and_names_one_giving_each_total():
    table = _sums(((10, None), (6, D3)))
    assert list(table) == sorted(table) == list(range(2, 14))
    assert sum(n for n, _ in table.values()) == 60
    for total, (n, faces) in table.items():
        assert faces[0] + D3[faces[1] - 1] == total
        assert n == sum(1 for f, g in itertools.product(range(1, 11), range(1, 7)) if f + D3[g - 1] == total)
    assert _sums(((10, None), (6, D3))) is table          # remembered


@dataclass
class _Table:
    seed: int = 0
    draws: int = 0
    label: str = ""

    def copy(self):
        return _Table(self.seed, self.draws, self.label)


def _compare(totals):
    a, d = totals
    return (a > d) - (a < d)


class OpposedRuleset:
    """A stand-in ruleset: an attack of 1d6 + 1d3 (a d6 halved) against a defence of 1d8, read
    only as lower, tie or higher (the label says which, and the dice for people's eyes only)."""
    id, name = "opposed", "Opposed"
    odds = SimpleNamespace(summary=lambda sc, before, after, events, side: after.label)

    def apply(self, sc, state, side, cmd):
        def body(st, stream):
            (a, h), (d,) = stream.roll_sums([[(6, "attack"), (6, "halved", D3)], [(8, "defence")]], _compare,
                                            rollers=[None, "b"])
            st.label = {1: "attacker wins", 0: "tie", -1: "defender wins"}[_compare((a + D3[h - 1], d))]
            return []
        return run_command(state, cmd, body)


def test_a_what_if_tries_each_reading_once_with_its_weight():
    merged = what_if(OpposedRuleset(), None, _Table(), "a", "go", budget=None)
    plain = what_if(OpposedRuleset(), None, _Table(), "a", "go", budget=None, merge=False)
    assert merged.leaves == 3 and plain.leaves == 6 * 6 * 8
    assert as_dict(merged) == as_dict(plain)
    want: dict[str, Fraction] = {}
    for a, h, d in itertools.product(range(1, 7), range(1, 7), range(1, 9)):
        label = {1: "attacker wins", 0: "tie", -1: "defender wins"}[_compare((a + D3[h - 1], d))]
        want[label] = want.get(label, Fraction(0)) + Fraction(1, 288)
    assert as_dict(merged) == want
    # the answer lists each die, not the roll made of them
    assert [d.split()[0] for d in merged.dice] == ["d6", "d6", "d8"]


def test_one_roll_read_against_a_threshold_costs_two_adjudications():
    class Threshold(OpposedRuleset):
        def apply(self, sc, state, side, cmd):
            def body(st, stream):
                faces, = stream.roll_sums([[(6, "first d6"), (6, "second d6")]], lambda t: t[0] >= 8)
                st.label = "passes" if sum(faces) >= 8 else "fails"
                return []
            return run_command(state, cmd, body)
    merged = what_if(Threshold(), None, _Table(), "a", "go", budget=None)
    assert merged.leaves == 2
    assert as_dict(merged) == {"passes": Fraction(15, 36), "fails": Fraction(21, 36)}
    assert as_dict(merged) == as_dict(what_if(Threshold(), None, _Table(), "a", "go", budget=None, merge=False))


# -- Lion: checks.roll_totals and the melee ---------------------------------------------------------

def test_roll_totals_gives_the_values_and_records_of_rolling_each_die():
    plans = [[(10, "melee die of A"), (3, "flank attack 1d3 of A")], [(12, "melee die of D"), (8, "second die of D")]]
    for seed in range(6):
        got = checks.roll_totals(DiceStream(seed, 0), plans, read=len, rollers=[None, "imperial"])
        s = DiceStream(seed, 0)
        want = []
        for plan in plans:
            rolled = [checks.roll(s, sides, purpose) for sides, purpose in plan]
            want.append(([v for v, _ in rolled], [r for _, r in rolled]))
        assert got == want


def test_a_lutzen_melee_of_two_attackers_equals_the_plain_enumeration():
    """Line 154: sw-yellow (a d6 and a second d6, attacked by two) against a d4 and a d8: 1,152
    die sequences plainly, at most 9 comparisons (each attacker lower, tie or higher)."""
    g, side, text = _before(154)
    assert text == "fight sw-yellow"
    odds = what_if(g.ruleset, g.scenario, g.state, side, text)
    plain = what_if(g.ruleset, g.scenario, g.state, side, text, budget=None, merge=False, time_limit=120)
    assert odds.horizon is None and plain.leaves == 1152 and odds.leaves <= 9
    assert as_dict(odds) == as_dict(plain)


def test_the_melee_cut_at_a_horizon_before_is_now_exact_in_a_few_adjudications():
    """Line 111 (issue 13: 3.3 s, cut at a horizon): a d10 with a flank d3 and a d10 against a
    d10, 3,000 sequences plainly (checked equal apart: too long for a test), now 9 adjudications."""
    g, side, text = _before(111)
    odds = what_if(g.ruleset, g.scenario, g.state, side, text)
    assert odds.horizon is None and odds.leaves <= 9
    assert sum(o.probability for o in odds.outcomes) == 1
    assert any("flank attack 1d3" in d for d in odds.dice)
