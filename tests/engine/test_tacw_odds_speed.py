"""Issue 13: TACW's exact `/odds` on Edgehill's multi-combat close combat steps, fast enough.

What makes it fast, each checked here against what it replaces:
- the d10's bands (engine/tacw/readings.py): a die the rules read only against a threshold or a
  table is tried once per result, and the answer still equals the plain enumeration;
- the state's copy (engine/tacw/state.py `TacwState.copy`): the same as `tree_copy`, nothing shared;
- the merge key (engine/tacw/odds.py `state_key`): what differs from the what-if's origin.
"""
from __future__ import annotations

import pickle
from dataclasses import replace

import pytest

from engine.core.dice import WHAT_IF
from engine.core.odds import what_if
from engine.core.state import tree_copy
from engine.tacw import odds as tacw_odds, readings
from engine.tacw import tables_combat as tc
from engine.tacw.ruleset import TACW
from tests.engine.test_odds import as_dict, edgehill_before


def test_tacw_odds_bands_cut_where_the_reading_changes():
    """§11.2: a morale check of morale 6 with +1 passes on rolls 0-5 (faces 1-6): two bands,
    the first ending at face 6. §10.4: the Close Combat table read with -2: ≤0 on rolls 0-2
    (faces 1-3), 1-2 on faces 4-5, then one row a face, 7-8 on face 10."""
    assert readings.bands(lambda r: tc.morale_check_passes(r + 1, 6)) == (6,)
    assert readings.bands(lambda r: True) == ()
    assert readings.bands(lambda r: tc.close_combat(r - 2)) == (3, 5, 6, 7, 8, 9)


def test_tacw_odds_outside_a_what_if_the_die_is_drawn_as_before():
    """The real adjudication draws the same die, with or without a reading."""
    from engine.core.dice import DiceStream
    a, b = DiceStream("s", 7), DiceStream("s", 7)
    assert [readings.d10(a, "morale check, X", None, lambda r: r > 4) for _ in range(20)] == \
        [b.roll(10, "morale check, X") - 1 for _ in range(20)]


@pytest.mark.parametrize("index", [30, 129])
def test_tacw_odds_banded_close_combat_equals_the_plain_enumeration(index):
    """Edgehill close combats with morale checks, retreats, pursuits and Reaction Fire: the
    merged answer, each banded d10 tried once per result, equals the enumeration of every face
    (which ignores the bands)."""
    sc, st, side, line = edgehill_before(index)
    merged = what_if(TACW, sc, st, side, line, budget=None)
    plain = what_if(TACW, sc, st, side, line, budget=None, merge=False)
    assert merged.horizon is None and merged.leaves * 20 < plain.leaves
    assert as_dict(merged) == as_dict(plain)


@pytest.mark.parametrize("index, most", [(170, 160), (280, 400)])
def test_tacw_odds_two_combat_steps_exact_in_few_adjudications(index, most):
    """Issue 13: Edgehill's two-combat close combat steps are answered whole (no horizon) in
    at most `most` adjudications (before the bands: 464 and 611; the plain enumeration of 170
    takes 5,060, tests/engine/test_odds.py compares them)."""
    sc, st, side, line = edgehill_before(index)
    assert line == "resolve" and len(st.pending["attacks"]) == 2
    odds = what_if(TACW, sc, st, side, line)
    assert odds.horizon is None and odds.leaves <= most


def _shared(a, b, path="state") -> list[str]:
    """The mutable objects `a` and `b` share (a copy must share none)."""
    out = []
    if isinstance(a, (dict, list, set)) or hasattr(a, "__dict__"):
        if a is b:
            return [path]
        if isinstance(a, dict):
            for k in a:
                out += _shared(a[k], b[k], f"{path}[{k!r}]")
        elif isinstance(a, list):
            for i, (x, y) in enumerate(zip(a, b)):
                out += _shared(x, y, f"{path}[{i}]")
        elif hasattr(a, "__dict__"):
            for k, v in vars(a).items():
                if not k.startswith("_memo_"):
                    out += _shared(v, vars(b)[k], f"{path}.{k}")
    return out


@pytest.mark.parametrize("index", [170, 194])
def test_tacw_state_copy_is_tree_copy(index):
    """`TacwState.copy` gives what `tree_copy` gives (the same pickle: same values, same
    structure), shares nothing mutable with the original, and drops the engine's scratch."""
    sc, st, side, line = edgehill_before(index)
    st.units_at("2019")                               # builds the `_memo_at` index
    st.leaders[next(iter(st.leaders))].later.append(["Someone", -1])
    try:
        mine, theirs = st.copy(), tree_copy(st)
        assert pickle.dumps(mine) == pickle.dumps(theirs)
        assert mine.to_dict() == st.to_dict()
        assert _shared(st, mine) == []
        assert not any(k.startswith("_memo_") for k in vars(mine))
    finally:
        st.leaders[next(iter(st.leaders))].later.pop()


def test_tacw_state_key_tells_apart_what_differs_from_the_origin():
    """Copies made in a what-if share the origin of the state it was asked in: their keys leave
    out what equals it, and still differ wherever the states differ; a state made outside a
    what-if is keyed whole, so two equal ones have equal keys."""
    sc, st, side, line = edgehill_before(170)
    token = WHAT_IF.set(object())                     # any what-if: copies take an origin
    try:
        a, b = st.copy(), st.copy()
    finally:
        WHAT_IF.reset(token)
    assert a._memo_origin is b._memo_origin
    key = tacw_odds.state_key
    assert key(a) == key(b) and len(key(a)) < len(key(st.copy())) // 3
    uid = next(iter(a.units))
    a.units[uid].casualties += 1
    assert key(a) != key(b)
    b.units[uid].casualties += 1
    assert key(a) == key(b)
    a.units[uid].hexes = list(a.units[uid].hexes) + ["9999"]
    assert key(a) != key(b)
    b.units[uid].hexes = b.units[uid].hexes + ["9999"]
    assert key(a) == key(b)
    lid = next(iter(a.leaders))
    a.leaders[lid] = replace(a.leaders[lid], status="removed")
    assert key(a) != key(b)
    # whole states, no origin: equal when equal
    c, d = st.copy(), st.copy()
    assert key(c) == key(d) != key(a)
    c.vp = {"royalist": 99, "parliament": 0}
    assert key(c) != key(d)
