"""/odds for Jours de Gloire (engine/jdg/odds.py, engine/core/odds.py): the exact what-if of fire
[7] and assault [8], with nothing committed, against the tables' own odds."""
from __future__ import annotations

from fractions import Fraction

import pytest

from bot.cli import DEMO_DIR, read_script, split_side
from engine.core.errors import HeraldError, Illegal
from engine.core.game import Game
from engine.core.odds import what_if
from engine.core.odds_answer import _percent
from engine.jdg import tables
from engine.jdg.fire.artillery import fire_odds_for
from engine.jdg.ruleset import JDG
from engine.jdg.state import Activation
from tests.engine.test_jdg_fire import E, W, hadik_battery, marengo, place


def test_fire_odds_are_the_tables_and_the_cohesion_check():
    """[7.5]: Art. Hadik (firepower 4) at 44e Ligne three hexes off in clear ground: 9-12 on the
    table is one cohesion check [7.5]; the what-if multiplies the table's odds by the check's."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    before = st.to_dict()
    odds = what_if(JDG, sc, st, "austrian", "fire a-art-hadik 1516")
    assert st.to_dict() == before                                # nothing committed
    table = fire_odds_for(sc, st, "a-art-hadik", "1516")
    assert sum(table.values()) == 1
    check_fails = 1 - tables.p_check(sc.unit("f-44e").cohesion)
    disordered = odds.probability("disordered")
    expected = table.get("check", Fraction(0)) * check_fails + table.get("disorder", Fraction(0))
    assert disordered == expected
    text = odds.text()
    assert "firepower" in text and "JdG [7.5]" in text


def test_assault_odds_resolve_the_declared_assault_and_refuse_secret_orders():
    """[8.5]: `assault` declares and the what-if resolves it; every outcome adds up to 1. In
    phase A the orders are secret [2.3]: no what-if."""
    sc, st = marengo()
    place(st, "a-ir52", "1216", E)
    place(st, "f-44e", "1316", W)
    st.phase = "activation"
    st.activation = Activation("hadik-kaim-1", "austrian", ["hadik-kaim"], step="movement", with_orders=True)
    st.formations["hadik-kaim"].orders, st.formations["hadik-kaim"].revealed = "with", True
    odds = what_if(JDG, sc, st, "austrian", "assault a-ir52 on 1316")
    assert sum(o.probability for o in odds.outcomes) == 1 and odds.horizon is None
    assert odds.probability("44e Ligne") > 0
    assert st.activation.step == "movement" and not st.combat      # nothing committed
    with pytest.raises(Illegal):
        what_if(JDG, sc, st, "austrian", "assault a-art-hadik on 1316")   # no such unit placed
    fresh = JDG.new_state(sc, 1)
    with pytest.raises(HeraldError, match=r"secret"):
        what_if(JDG, sc, fresh, "french", "fire f-art-watrin 2011")


def test_campaign_score_weighs_an_automatic_victory_above_one_on_points():
    """[13]: the automatic victory (or a resignation) scores 4-0, a win on points 3-1, a draw 2-2;
    the VP difference is the tie-break (JdgRuleset.campaign_terms, HERALD)."""
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, 1)
    st.phase, st.winner = "over", "austrian"
    st.result = "Austrian wins an automatic victory at the end of turn 4: Tortona road"
    score = JDG.campaign_score(sc, st)
    assert score["austrian"][:2] == ("win", 4) and score["french"][:2] == ("loss", 0)
    st.result = "End of the last turn (10): French 9 VP, Austrian 12 VP: Austrian wins"
    score = JDG.campaign_score(sc, st)
    assert score["austrian"][:2] == ("win", 3) and score["french"][:2] == ("loss", 1)
    assert score["austrian"][2]["tiebreak"] == -score["french"][2]["tiebreak"]
    st.winner, st.result = None, "End of the last turn (10): French 9 VP, Austrian 9 VP: a draw"
    assert {s: v[:2] for s, v in JDG.campaign_score(sc, st).items()} == {"french": ("draw", 2), "austrian": ("draw", 2)}


def _activation(side: str = "austrian", formation: str = "hadik-kaim"):
    sc, st = marengo()
    st.phase = "activation"
    st.activation = Activation(f"{formation}-1", side, [formation], step="movement", with_orders=True)
    st.formations[formation].orders, st.formations[formation].revealed = "with", True
    return sc, st


def _fractions(odds) -> dict[str, Fraction]:
    return {o.label: o.probability for o in odds.outcomes}


@pytest.mark.parametrize("extra", [
    [],                                                              # one attacker, one defender
    [("a-ir28", "1215", E), ("f-22e", "1416", W),                    # a friend behind the defender,
     ("f-art-chambarlhac", "1315", W)],                              # reaction fire, a second attacker
])
def test_merged_odds_equal_the_plain_enumeration(extra):
    """Issue 13: the what-if merges equal positions (engine/jdg/odds.py `state_key`: the combat's
    record without what only the narrative reads), tries the d10 by halves, resumes each command
    and each step of the combat resolution (`resolve_all` in stages) at the position kept for the
    same dice, and reads the retreat paths with the fixed map's facts kept: only work is saved,
    the answer is the plain enumeration's, exactly."""
    sc, st = _activation()
    place(st, "a-ir52", "1216", E)
    place(st, "f-44e", "1316", W)
    for uid, hex_id, facing in extra:
        place(st, uid, hex_id, facing)
    merged = what_if(JDG, sc, st, "austrian", "assault a-ir52 on 1316", budget=None)
    plain = what_if(JDG, sc, st, "austrian", "assault a-ir52 on 1316", budget=None, merge=False)
    assert merged.horizon is None and plain.horizon is None
    assert _fractions(merged) == _fractions(plain)
    assert merged.leaves * 5 < plain.leaves                      # the merging does save work
    assert [o.label for o in merged.outcomes] == [o.label for o in plain.outcomes]


def test_a_check_costs_two_adjudications_and_a_table_one_per_band():
    """Issue 13: the fire table's d10 is read only by its band and the cohesion check's by pass
    or fail ([7.5], [0.3]; engine.core.dice.DiceStream.roll `bands`): the what-if tries one result
    of each -- no effect, a check passed, a check failed, disordered: 4 adjudications where every
    result makes 46 -- and its fractions are the plain enumeration's."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    merged = what_if(JDG, sc, st, "austrian", "fire a-art-hadik 1516", budget=None)
    plain = what_if(JDG, sc, st, "austrian", "fire a-art-hadik 1516", budget=None, merge=False)
    assert merged.leaves == 4 and plain.leaves == 46
    assert _fractions(merged) == _fractions(plain) == {"no effect": Fraction(41, 50),
                                                       "44e Ligne (f-44e): disordered": Fraction(9, 50)}


def test_the_state_copy_written_out_is_the_tree_copy():
    """Issue 13: JdgState.copy (units, commanders and markers copied as records of atoms) gives
    the generic tree copy (engine.core.state.tree_copy), shares no record with the original and
    drops the engine's caches; the merge key (marshal) tells a changed unit apart."""
    from engine.core.state import plain, tree_copy
    from engine.jdg.odds import state_key
    sc, st = _activation()
    place(st, "a-ir52", "1216", E)
    st.units_at("1216")                                          # fills the `_memo_` index
    a = st.copy()
    assert plain(a) == plain(tree_copy(st)) and a == st
    assert "_memo_hex_index" not in a.__dict__
    assert all(a.units[k] is not st.units[k] for k in st.units)
    assert all(a.markers[k] is not st.markers[k] for k in st.markers)
    assert state_key(a) == state_key(st)
    a.units["a-ir52"].condition = "disordered"
    assert st.units["a-ir52"].condition == "good" and state_key(a) != state_key(st)


@pytest.fixture(scope="module")
def dragoons_charge():
    """Marengo's demo before its line 373: the French 6e Dragons charge 0310, a tree about 12
    dice deep (the charge, the square attempts, the reaction fire, the pursuit)."""
    seed, lines = read_script(DEMO_DIR / "jdg--marengo.txt")
    g = Game.new("jdg", "marengo", seed)
    for raw in lines[:372]:
        g.apply(*split_side(raw, g.ruleset.sides))
    side, command = split_side(lines[372], g.ruleset.sides)
    assert (side, command.split(" dice=")[0]) == ("french", "charge f-6e-dr 0310")
    return g, side, "charge f-6e-dr 0310"


def test_deepening_ends_with_the_whole_tree_exactly(dragoons_charge, monkeypatch):
    """Issue 13: /odds's long answer (`deepen`) tries the whole tree, then follows each sequence
    of dice down to lower and lower chances, merging the positions already worked out whole;
    when a try cuts nothing it is the whole tree's answer, fraction for fraction, even when the
    first try gave up at once."""
    import engine.core.odds_budget as budget
    g, side, line = dragoons_charge
    whole = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None)
    deep = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None, time_limit=60, deepen=True)
    assert whole.exact and deep.exact and _fractions(deep) == _fractions(whole)
    monkeypatch.setattr(budget, "DEEPEN_AFTER", 0.0)                # the whole tree gives up at once
    deep = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None, time_limit=60, deepen=True)
    assert deep.exact and _fractions(deep) == _fractions(whole)
    assert deep.unresolved == 0 and "Too many dice" not in deep.text()


def test_deepening_out_of_time_gives_the_deepest_answer_and_what_it_leaves(dragoons_charge, monkeypatch):
    """When the time runs out before the whole tree, the answer is the last floor finished:
    the same fractions as that floor alone (the positions carried from the earlier tries change
    none), each outcome finished no likelier than in the whole tree, and the chance that more
    dice follow (`unresolved`, said in the text) is exactly what they lack."""
    import engine.core.odds as core
    import engine.core.odds_budget as budget
    from engine.core.commands import parse
    g, side, line = dragoons_charge
    whole = _fractions(what_if(g.ruleset, g.scenario, g.state, side, line, budget=None))
    floor = budget.DEEPEN_FLOOR / budget.DEEPEN_DIVIDE ** 2
    alone = core._Runner(g.ruleset, g.scenario, g.state, side, parse(line), core.rules_for(g.ruleset)
                         ).enumerate(None, core.MAX_LEAVES, 60, floor=floor)
    assert alone.floor == floor and alone.horizon is None and not alone.exact
    real = core._Runner.enumerate

    def out_of_time_below(self, horizon, *args, **kw):
        if kw.get("exact") is not None and (kw.get("floor") is None or kw["floor"] < floor):
            raise core.TooManyOutcomes("out of time")
        return real(self, horizon, *args, **kw)

    monkeypatch.setattr(core._Runner, "enumerate", out_of_time_below)
    shown = []
    deep = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None, time_limit=60, deepen=True,
                   progress=shown.append)
    assert deep.floor == floor and _fractions(deep) == _fractions(alone)
    assert deep.unresolved == alone.unresolved > 0
    assert deep.unresolved == sum(p for label, p in _fractions(deep).items() if "then: " in label)
    finished = {label: p for label, p in _fractions(deep).items() if "then: " not in label}
    assert all(p <= whole[label] for label, p in finished.items())
    assert sum(whole.values()) - sum(finished.values()) == deep.unresolved
    assert (f"each sequence of dice is followed until it is rarer than 1 in 1,600; in "
            f"{_percent(deep.unresolved)} of the chances more follow") in deep.text()
    assert len(shown) == 3 and shown == sorted(shown) and shown[-1] == float(1 - deep.unresolved)
