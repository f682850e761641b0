"""Issue 12, one naming style: optional rules in either spelling, the policies the README and
`help` list are the declared ones, `help` lists only the battle's own verbs, a free setup lists
its areas and what is left to deploy."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import help_text
from engine.core.game import Game, game_options, get_ruleset, option_name
from engine.core.verbs import available, complete_line
from engine.tacw.verbs import POLICIES

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("spelling", ["eight-turns", "eight_turns", "Eight-Turns"])
def test_an_optional_rule_in_either_spelling(spelling):
    g = Game.new("tacw", "second-newbury", 1, options=[spelling])
    assert g.options == ["eight_turns"]


def test_optional_rules_are_shown_in_one_style():
    rs = get_ruleset("tacw")
    names = [option_name(oid) for sid, _ in rs.scenarios() for oid, _ in game_options(rs, rs.load_scenario(sid))]
    assert "eight-turns" in names and "york-1" in names
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n) for n in names), names


def test_the_readme_and_help_list_the_declared_policies():
    text = " ".join(README.read_text(encoding="utf-8").split())
    rs = get_ruleset("tacw")
    helped = help_text(rs, rs.load_scenario("edgehill"))
    for p in POLICIES:
        words = f"policy {p.kind} {'|'.join(v for v, _ in p.values)}"
        assert f"`{words}`" in text, words
        assert words in helped, words


def test_a_policy_kind_in_either_spelling():
    from engine.tacw import rules
    from engine.core.commands import parse
    g = Game.new("tacw", "edgehill", 1)
    st, _ = rules.apply(g.scenario, g.state, "royalist", parse("policy reaction-move auto"))
    assert st.policies["royalist"]["reaction_move"] == "auto"


def test_help_and_act_offer_only_the_battles_own_verbs():
    rs = get_ruleset("tacw")
    setup = {"deploy", "assign"}        # a setup by areas has a deployment phase before turn 1
    own = {"edgehill": set(), "first-newbury": {"halt"} | setup, "marston-moor": {"enter"} | setup,
           "second-newbury": {"boatbridge"} | setup, "naseby": set()}
    for sid, verbs in own.items():
        sc = rs.load_scenario(sid)
        helped = help_text(rs, sc)
        offered = {v.name for v in rs.commands.verbs if available(v, rs, sc)}
        for special in ("halt", "enter", "boatbridge", "deploy", "assign"):
            assert (f"\n  {special}" in helped or helped.startswith(f"  {special}")) == (special in verbs), (sid, special)
            assert (special in offered) == (special in verbs)
        first = [v.strip() for _, v in complete_line(rs.commands, "", lambda *a: [], limit=100,
                                             offered=lambda v: available(v, rs, sc))]
        assert ("boatbridge" in first) == ("boatbridge" in verbs)
    assert "boatbridge" in {v.name for v in rs.commands.surface_verbs}     # the slash commands keep it


def test_a_free_setup_lists_its_areas_and_what_is_left():
    g = Game.new("tacw", "first-newbury", 1)
    text = g.ruleset.status(g.scenario, g.state)
    assert "Royalist deployment areas: `r-centre-wash-hill` (12 units" in text
    assert "Royalist left to deploy: nothing" in text
    unit = next(u for u in g.state.units.values() if u.side == "royalist" and u.kind == "cavalry"
                and not u.is_double)
    far = next(h for h in g.scenario.grid if g.scenario.grid.distance(h, unit.hexes[0]) > 12
               and not g.state.units_at(h) and not g.scenario.hex_impassable(h))
    g.state.units[unit.id].hexes = (far,) if isinstance(unit.hexes, tuple) else [far]
    text = g.ruleset.status(g.scenario, g.state)
    assert f"{unit.name} at {far} is outside its deployment area" in text


def test_an_unknown_optional_rule_is_refused_with_the_known_ones_in_one_style():
    import pytest
    from engine.core.game import Game
    from engine.tacw.scenario.schema import ScenarioError
    with pytest.raises(ScenarioError) as err:
        Game.new("tacw", "edgehill", 1, options=["banana_split"])
    assert "no optional rule 'banana-split'" in str(err.value)
    assert "royalist-foot-fire" in str(err.value) and "royalist_foot_fire" not in str(err.value)
