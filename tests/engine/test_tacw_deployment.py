"""TACW free setups (engine/tacw/sequence/deployment.py, the schema in scenario.py / scenario_free.py):
the scenario keys and their validation, the deployment phase and its three commands (`deploy`,
`assign`, `deploy done`), every refusal with its rule, the cavalry pools, the leaders' places,
the bot's completions, and replay.

The test battle (20x15 map): Royalists east, facing West, in three wings: r-a (foot, WC r-wc),
r-b and r-c (horse; a pool brigade "rb" of two regiments and a lone pool regiment r-h3).
Parliament west, facing East, one wing p-a whose Wing Commander has an area of his own."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import CannotParse, Illegal
from engine.core.game import Game
from engine.tacw import rules
from engine.tacw.sequence import deployment as deployment
from engine.tacw.ruleset import TACW
from engine.tacw.scenario.schema import ScenarioError, load_scenario, parse_scenario
from engine.tacw.setup import new_state
from tests.engine.tacw_helpers import refused, scenario_text

R, P = "royalist", "parliament"
SEC = "TACW Test setup"


def _hexes(cols, rows):
    return [f"{c:02d}{r:02d}" for c in cols for r in rows]


R_ZONE = _hexes(range(11, 15), range(4, 12))
R_NORTH = _hexes(range(12, 16), range(1, 5))      # row 04 shared with r-zone
R_SOUTH = _hexes(range(12, 16), range(12, 16))
P_HEXES = _hexes(range(2, 6), range(2, 13))

UNITS = [
    ("r-foot", R, "r-a", "heavy", ["1205", "1206"], "W", {"area": "r-zone", "strength": 10}),
    ("r-foot2", R, "r-a", "heavy", ["1208"], "W", {"area": "r-zone"}),
    ("r-shot", R, "r-a", "light", ["1207"], "W", {"area": "r-zone",
                                                   "deploy_rule": "stacked_or_adjacent_any"}),
    ("r-gun", R, "r-a", "artillery", ["1209"], "W", {"area": "r-zone",
                                                      "deploy_rule": "stacked_or_adjacent_infantry"}),
    ("r-fixed", R, "r-a", "cavalry", ["1915"], "W", {}),
    ("r-h1", R, "r-b", "cavalry", ["1302"], "W", {"area": "r-north", "brigade": "rb",
                                                   "wing_choices": ["r-b", "r-c"]}),
    ("r-h2", R, "r-b", "cavalry", ["1303"], "W", {"area": "r-north", "brigade": "rb",
                                                   "wing_choices": ["r-b", "r-c"]}),
    ("r-h3", R, "r-c", "cavalry", ["1312"], "W", {"area": "r-south",
                                                   "wing_choices": ["r-b", "r-c"]}),
    ("p-foot", P, "p-a", "heavy", ["0405", "0406"], "E", {"area": "p-zone", "strength": 10}),
    ("p-li", P, "p-a", "light", ["0407"], "E", {"area": "p-zone",
                                                 "deploy_rule": "in_command_of:p-foot"}),
    ("p-horse", P, "p-a", "cavalry", ["0409"], "E", {"area": "p-zone", "deploy_rule": "in_command"}),
]
WINGS = [("r-a", R, "r-wc", False), ("r-b", R, "r-wc2", True), ("r-c", R, "r-wc3", True),
         ("p-a", P, "p-wc", False)]
LEADERS = [("r-ac", R, "ac", 0, None, "r-foot"), ("r-wc", R, "wc", -1, "r-a", "r-foot"),
           ("r-wc2", R, "wc", 0, "r-b", "r-h1"), ("r-wc3", R, "wc", 0, "r-c", "r-h3"),
           ("p-ac", P, "ac", 0, None, "p-foot"), ("p-wc", P, "wc", -1, "p-a", "p-foot")]


def _list(hexes):
    return "[" + ", ".join(f'"{h}"' for h in hexes) + "]"


AREAS = f"""
[[deployment_areas]]
id = "r-zone"
side = "royalist"
text = "between columns 11 and 14, rows 04 to 11"
hexes = {_list(R_ZONE)}

[[deployment_areas]]
id = "r-north"
side = "royalist"
wing = "r-b"
text = "the right wing's horse: rows 01 to 04"
hexes = {_list(R_NORTH)}

[[deployment_areas]]
id = "r-south"
side = "royalist"
wing = "r-c"
text = "the left wing's horse: south of row 11"
hexes = {_list(R_SOUTH)}

[[deployment_areas]]
id = "p-zone"
side = "parliament"
text = "within 4 hexes of 0405, west of column 06"
hexes = {_list(P_HEXES)}
near = {{ hex = "0405", distance = 4 }}
"""


def build_text(units=UNITS, areas=AREAS, extra="") -> str:
    text = scenario_text(units, wings=WINGS, leaders=LEADERS,
                         orders={"r-a": "charge", "r-b": "charge", "r-c": "charge",
                                 "p-a": "receive_charge"},
                         terrain={"river": ["0303"]})
    # the Parliament Wing Commander has an area of his own (he is then placed anywhere in it)
    text = text.replace('id = "p-wc"\n', 'id = "p-wc"\narea = "p-zone"\n', 1)
    return text + areas + extra


class DPos:
    """A game of the test battle driven through rules.apply (the Position of tacw_helpers)."""

    def __init__(self, text: str | None = None, seed: int = 1):
        self.sc = parse_scenario(text or build_text(), "test")
        self.st, self.events = rules.start(self.sc, new_state(self.sc, seed))

    def go(self, side, line):
        self.st, self.events = rules.apply(self.sc, self.st, side, parse(line))
        return self.events

    def unit(self, uid):
        return self.st.units[uid]


@pytest.fixture
def p():
    return DPos()


# -- the scenario keys ------------------------------------------------------------------------

def test_the_schema_reads_areas_pools_and_rules():
    sc = parse_scenario(build_text(), "test")
    assert sc.free_setup and not load_scenario("edgehill").free_setup
    a = sc.deployment_areas
    assert list(a) == ["r-zone", "r-north", "r-south", "p-zone"]
    assert a["r-zone"].hexes == frozenset(R_ZONE) and a["r-zone"].text.startswith("between")
    assert a["r-north"].wing == "r-b" and a["r-zone"].wing == ""
    # p-zone: the listed hexes within 4 of 0405, the river hex 0303 left out
    assert a["p-zone"].near == ("0405", 4)
    assert a["p-zone"].hexes == frozenset(h for h in P_HEXES if h != "0303"
                                          and sc.grid.distance(h, "0405") <= 4)
    assert "0303" in P_HEXES and "0212" not in a["p-zone"].hexes       # too far from 0405
    u = sc.unit("r-h1")
    assert (u.area, u.brigade, u.wing_choices) == ("r-north", "rb", ("r-b", "r-c"))
    assert sc.unit("r-shot").deploy_rule == "stacked_or_adjacent_any"
    assert sc.unit("p-li").deploy_rule == "in_command_of:p-foot"
    assert sc.unit("r-fixed").area == "" and sc.leader("p-wc").area == "p-zone"
    assert deployment.brigades(sc) == {"rb": ["r-h1", "r-h2"], "r-h3": ["r-h3"]}


FOOT_AREA = 'area = "r-zone"\n[[units]]\nid = "r-foot2"'
H1_CHOICES = 'wing_choices = ["r-b", "r-c"]\n[[units]]\nid = "r-h2"'
H2_CHOICES = 'wing_choices = ["r-b", "r-c"]\n[[units]]\nid = "r-h3"'
BAD = [
    # (text of the helper's TOML to replace, replacement, what the refusal must say)
    (FOOT_AREA, FOOT_AREA.replace("r-zone", "nowhere"), "(r-foot).area: no deployment area 'nowhere'"),
    (FOOT_AREA, FOOT_AREA.replace("r-zone", "p-zone"),
     "(r-foot).area: 'p-zone' is a parliament deployment area"),
    ('hexes = ["1208"]', 'hexes = ["1608"]', "(r-foot2).hexes: 1608 lies outside its area 'r-zone'"),
    ('deploy_rule = "stacked_or_adjacent_any"', 'deploy_rule = "next_to_a_friend"',
     "'next_to_a_friend' is not a deploy rule"),
    ('deploy_rule = "in_command_of:p-foot"', 'deploy_rule = "in_command_of:r-foot"',
     "(p-li).deploy_rule: 'r-foot' is not another parliament unit"),
    ('deploy_rule = "in_command"', 'deploy_rule = "in_command:p-wc"', "is not a deploy rule"),
    (H1_CHOICES, H1_CHOICES.replace('"r-c"', '"p-a"'), "(r-h1).wing_choices: 'p-a' is not a royalist wing"),
    ('id = "r-h3"\nside = "royalist"\nwing = "r-c"', 'id = "r-h3"\nside = "royalist"\nwing = "r-a"',
     "(r-h3).wing: the suggested wing 'r-a' is not among its wing_choices"),
    (H2_CHOICES, H2_CHOICES.replace('["r-b", "r-c"]', '["r-c", "r-b", "r-a"]'),
     "(r-h2): every unit of brigade 'rb' needs the same side, suggested wing and wing_choices"),
    (H1_CHOICES, H1_CHOICES.replace('["r-b", "r-c"]', '["r-b"]'),
     "(r-h1).wing_choices: give at least two different wings"),
    ('id = "r-zone"\nside = "royalist"', 'id = "r-zone"\nside = "royalist"\ncolour = "red"',
     "deployment_areas[0]: unknown key(s) colour"),
    ('id = "r-north"', 'id = "r-zone"', "deployment_areas[1] (r-zone).id: 'r-zone' is used twice"),
    ('wing = "r-b"\ntext', 'wing = "r-z"\ntext', "deployment_areas (r-north).wing: no royalist wing 'r-z'"),
    ('near = { hex = "0405", distance = 4 }', 'near = { hex = "0405", distance = 40 }',
     "p-zone).near.distance: 40 is not 0..30"),
    ('near = { hex = "0405", distance = 4 }', 'near = { hex = "0303", distance = 0 }',
     "(p-zone): the area has no hex a unit may stand in"),
    ('hexes = ["1207"]', 'hexes = ["1007"]', "1007 lies outside its area"),
    ('hexes = ["1209"]', 'hexes = ["1211"]',
     "the suggested setup breaks a deployment rule: r-gun must be stacked with or adjacent to an "
     "infantry brigade"),
]


def _mutated(old: str, new: str) -> str:
    text = build_text()
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize("old,new,words", BAD)
def test_bad_free_setup_entries_are_refused_naming_the_entry(old, new, words):
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(_mutated(old, new), "test")
    assert words in str(exc.value)


@pytest.mark.parametrize("extra,words", [
    ('\n[[deployment_areas]]\nid = "void"\nside = "royalist"\n', "give 'hexes', 'near' or both"),
    ('\n[[special_rules]]\nid = "x"\nname = "X"\nkind = "storm"\n', "kind: must be one of halt"),
    ('\n[[special_rules]]\nid = "h"\nname = "Halt"\nkind = "halt"\n', "a halt lasts 1..20 turns, got 0"),
    ('\n[[special_rules]]\nid = "r"\nname = "Round Hill"\nturns = 4\n', "only a 'halt' rule has a length"),
])
def test_bad_areas_and_special_rules(extra, words):
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(build_text(extra=extra), "test")
    assert words in str(exc.value)


def test_unused_areas_and_misplaced_keys_are_refused():
    plain = [u[:6] + ({k: v for k, v in u[6].items() if k == "strength"},) for u in UNITS]
    text = build_text(units=plain).replace('area = "p-zone"\n', "", 1)
    with pytest.raises(ScenarioError, match="the areas would never be used"):
        parse_scenario(text, "test")
    with pytest.raises(ScenarioError, match="a brigade is a cavalry pool; give its wing_choices"):
        parse_scenario(build_text().replace('wing_choices = ["r-b", "r-c"]\n[[units]]\nid = "r-h2"',
                                            '[[units]]\nid = "r-h2"', 1), "test")
    with pytest.raises(ScenarioError, match="'r-zone' is a royalist deployment area"):
        parse_scenario(build_text().replace('area = "p-zone"\n', 'area = "r-zone"\n', 1), "test")
    far = '\n[[deployment_areas]]\nid = "p-far"\nside = "parliament"\nhexes = ["0212"]\n'
    with pytest.raises(ScenarioError, match=r"\(p-wc\): his suggested place 0405 lies outside his area 'p-far'"):
        parse_scenario(build_text(extra=far).replace('area = "p-zone"\n', 'area = "p-far"\n', 1), "test")
    with pytest.raises(ScenarioError, match=r"\(r-fixed\).hexes: 1915 lies outside its own area "
                                            r"\(within 1 of 1913\)"):
        parse_scenario(build_text().replace('morale = 7\n[[units]]\nid = "r-h1"',
                                            'morale = 7\nnear = { hex = "1913", distance = 1 }\n'
                                            '[[units]]\nid = "r-h1"', 1), "test")


def test_a_units_own_near_is_its_area_or_narrows_it():
    text = build_text().replace('morale = 7\n[[units]]\nid = "r-h1"',
                                'morale = 7\nnear = { hex = "1915", distance = 1 }\n[[units]]\nid = "r-h1"', 1)
    text = text.replace('area = "r-zone"\n[[units]]\nid = "r-shot"',
                        'area = "r-zone"\nnear = { hex = "1208", distance = 1 }\n[[units]]\nid = "r-shot"', 1)
    p = DPos(text)
    assert deployment.legal_hexes(p.sc, p.st, "r-fixed") == {h for h in p.sc.grid
                                                             if p.sc.grid.distance(h, "1915") <= 1}
    assert deployment.legal_hexes(p.sc, p.st, "r-foot2") == {h for h in R_ZONE
                                                             if p.sc.grid.distance(h, "1208") <= 1}
    p.go(R, "deploy r-fixed 1914")
    refused(p, R, "deploy r-fixed 1912", "1912 lies outside r-fixed's deployment area (within 1 hex of 1915)")
    refused(p, R, "deploy r-foot2 1110", "1110 lies outside r-foot2's deployment area 'r-zone'")
    p.go(R, "deploy r-foot2 1109")


# -- the deployment phase ------------------------------------------------------------------------

def test_the_game_starts_in_the_deployment_phase(p):
    st = p.st
    assert st.phase == "deployment" and st.turn == 1 and st.initiative == "" and p.events == []
    assert deployment.deploying(st) == [R, P] and TACW.to_act(st) == R
    assert st.deployment["with"] == {"r-ac": "r-foot", "r-wc": "r-foot", "r-wc2": "r-h1",
                                     "r-wc3": "r-h3", "p-ac": "p-foot"}     # p-wc has an area
    assert "still deploying" in TACW.status(p.sc, st)
    # a battle with a fixed setup starts at turn 1's initiative as before
    edge = TACW.new_state(load_scenario("edgehill"), 5)
    assert edge.phase == "activation" and edge.deployment == {}


def test_other_commands_wait_for_the_deployment(p):
    for line in ("activate r-a", "pass", "move r-foot2 1108", "halt"):
        refused(p, R, line, "the armies are still deploying")
    p.go(P, "policy bypass ask")                     # standing policies may be set any time
    assert p.st.policies[P]["bypass"] == "ask" and p.st.phase == "deployment"


def test_deploy_moves_a_unit_and_the_leaders_with_it(p):
    events = p.go(R, "deploy r-foot 1105,1106")
    assert p.unit("r-foot").hexes == ["1105", "1106"] and p.unit("r-foot").facing == 3    # W kept
    assert p.st.leaders["r-ac"].hex == p.st.leaders["r-wc"].hex == "1105"
    [ev] = events
    assert ev.kind == "deploy" and ev.section == SEC
    assert ev.narrative == "r-foot deploys at 1105&1106 facing W (with r-ac, r-wc)"
    # a double moved onto a slanting pair keeps the nearest facing across its new line
    p.go(R, "deploy r-foot 1104 1204")                # two words read as two hexes
    assert p.unit("r-foot").hexes == ["1104", "1204"] and p.unit("r-foot").facing in (2, 5)
    p.go(R, "deploy r-foot 1105 1106 facing e")
    assert p.unit("r-foot").facing == 0
    p.go(R, "deploy r-foot2 1108 face nw")
    assert p.unit("r-foot2").facing == 4


REFUSALS = [
    (R, "deploy r-foot2 0908", "0908 lies outside r-foot2's deployment area 'r-zone' (between columns "
                               f"11 and 14, rows 04 to 11) ({SEC})"),
    (R, "deploy r-foot 1005,1006", "1005 and 1006 lie outside r-foot's deployment area 'r-zone'"),
    (R, "deploy r-shot 1104", f"r-shot must be stacked with or adjacent to another friendly unit ({SEC})"),
    (R, "deploy r-gun 1111", "r-gun must be stacked with or adjacent to an infantry brigade"),
    (P, "deploy p-li 0208", f"p-li must be within command range of p-foot (2 hexes, §5.4.2) ({SEC})"),
    (R, "deploy r-foot2 1206", "stacking allows one combat unit per hex, except 1 light + 1 cavalry, "
                               "or 1 artillery + 1 infantry or cavalry (§8) (TACW §8)"),
    (R, "deploy r-shot 1304 facing sw", "cavalry stacked with light infantry must have the same facing (§8.2)"),
    (R, "deploy p-foot 1105,1106", f"p-foot is not yours ({SEC})"),
    (P, "deploy r-foot2 1108", "r-foot2 is not yours"),
    (R, "deploy r-fixed 1301", "r-fixed has a fixed setup hex (1915): it has no deployment area"),
    (R, "deploy r-foot 1105", "r-foot stands in 2 hexes (a double unit: two adjacent hexes"),
    (R, "deploy r-foot2 1107,1108", "r-foot2 stands in 1 hex (TACW §2.1.2)"),
    (R, "deploy r-foot 1105,1108", "1105 and 1108 are not two adjacent hexes (TACW §2.1.2)"),
    (R, "deploy r-foot 1105,1106 facing se", "a double unit on 1105 & 1106 faces across its line "
                                             "(E or W), not SE (TACW §6.1)"),
    (R, "deploy r-foot2 1108 facing up", "'up' is not a vertex (E SE SW W NW NE) (TACW §6.1)"),
    (P, "deploy p-li 0303", "0303 is river, where no unit may stand (TACW §5.7)"),
    (R, "deploy r-foot2 9999", "9999 is not a hex of the 20x15 map (TACW §2.1)"),
    (R, "deploy nobody 1108", "'nobody' is not one of your units or leaders: "),
    (R, "deploy r-wc 1110", "r-wc is placed with a unit of his wing (r-a); 1110 holds none "
                            "(TACW Piazzamento dei comandanti)"),
    (R, "deploy r-wc 1303", "1303 holds none"),                        # a unit of another wing
    (P, "deploy p-wc 0911", f"0911 is outside p-wc's deployment area 'p-zone'"),
    (R, "deploy p-wc 0405", "p-wc is not yours"),
    (R, "assign r-h1 r-c", "r-h1 belongs to brigade 'rb' (r-h1, r-h2): a brigade goes to one wing as "
                           "a whole; assign rb <wing>"),
    (R, "assign rb r-a", "brigade 'rb' may go to r-b, r-c, not 'r-a'"),
    (R, "assign r-foot r-b", "'r-foot' is not a cavalry-pool brigade (yours: rb, r-h3)"),
    (P, "assign rb r-c", "brigade 'rb' is not yours"),
]


@pytest.mark.parametrize("side,line,words", REFUSALS)
def test_every_refusal_names_its_rule_and_leaves_the_game_alone(p, side, line, words):
    p.go(R, "deploy r-h1 1304")              # a horse regiment in row 04, inside r-zone as well
    refused(p, side, line, words)


def test_a_command_that_cannot_be_read_is_refused():
    p = DPos()
    for line in ("deploy r-foot", "deploy r-foot 1105,1106 sideways", "assign rb",
                 "deploy r-wc 1105 facing w"):
        with pytest.raises(CannotParse):
            p.go(R, line)


def test_deploy_done_then_nothing_more_and_turn_1_when_both_are_done(p):
    p.go(R, "deploy r-foot2 1109")                  # still next to the gun (stacked_or_adjacent_infantry)
    [ev] = p.go(R, "deploy done")
    assert ev.kind == "deploy_done" and ev.narrative == "Royalist has deployed"
    assert deployment.deploying(p.st) == [P] and TACW.to_act(p.st) == P and p.st.phase == "deployment"
    for line, words in (("deploy r-foot2 1108", "Royalist has declared its deployment done"),
                        ("deploy done", "Royalist has declared its deployment done"),
                        ("assign rb r-c", "Royalist has declared its deployment done")):
        refused(p, R, line, words)
    assert TACW.completions(p.sc, p.st, R, "deploy_unit", "") == []
    p.go(P, "deploy p-wc 0508")                      # a leader with an area: anywhere in it
    assert p.st.leaders["p-wc"].hex == "0508"
    p.go(P, "deploy p-foot 0404,0405")
    assert p.st.leaders["p-ac"].hex == "0404"        # the AC follows his unit, the WC stays
    assert p.st.leaders["p-wc"].hex == "0508"
    events = p.go(P, "deploy done")
    assert [e.kind for e in events] == ["deploy_done", "deploy_done", "initiative"]
    assert events[1].narrative == "Both armies are deployed: turn 1 begins (TACW §3.1)"
    st = p.st
    assert st.phase == "activation" and st.turn == 1 and st.initiative == R and st.deployment == {}
    assert TACW.to_act(st) == R
    refused(p, R, "deploy r-foot2 1109", f"there is no deployment phase now: the armies are deployed ({SEC})")
    refused(p, P, "assign rb r-c", "there is no deployment phase now")


def test_in_command_is_judged_at_the_end_of_deployment(p):
    p.go(P, "deploy p-horse 0202")                   # legal in its area; far from its WC's chain
    with pytest.raises(Illegal) as exc:
        p.go(P, "deploy done")
    assert ("the deployment is not complete: p-horse must be within command range of its Wing "
            f"Commander at the end of deployment (§5.4) ({SEC})") == str(exc.value)
    p.go(P, "deploy p-wc 0304")                      # the Wing Commander comes within 3 hexes
    p.go(P, "deploy done")
    assert deployment.deploying(p.st) == [R]


def test_a_move_that_breaks_another_units_rule_is_caught_at_done(p):
    p.go(R, "deploy r-h1 1304")
    p.go(R, "deploy r-shot 1304")                    # stacked with r-h1 (§8.2, the same facing)
    p.go(R, "deploy r-h1 1501")                      # r-h1 leaves; r-h2 is still next to it
    p.go(R, "deploy r-h2 1503")                      # ... and leaves too: r-shot stands alone
    refused(p, R, "deploy done", "r-shot must be stacked with or adjacent to another friendly unit")
    p.go(R, "deploy r-shot 1207")
    p.go(R, "deploy done")


def test_assign_sends_the_whole_brigade_and_its_area_follows_its_wing(p):
    [ev] = p.go(R, "assign rb r-c")
    assert ev.kind == "assign" and ev.section == SEC
    assert ev.narrative == ("Brigade rb (r-h1, r-h2) goes to r-c; redeploy r-h1, r-h2 inside 'r-south' "
                            "(the left wing's horse: south of row 11) before `deploy done`")
    assert p.unit("r-h1").wing == p.unit("r-h2").wing == "r-c"
    assert deployment.unit_area(p.sc, p.st, "r-h1").id == "r-south"
    # the wing left empty, the units outside their new area, the leaders with the wrong wing
    with pytest.raises(Illegal) as exc:
        p.go(R, "deploy done")
    assert "r-h1 at 1302 is outside its deployment area 'r-south'" in str(exc.value)
    assert "(and 3 more)" in str(exc.value)
    problems = deployment.side_problems(p.sc, p.st, R)
    assert problems == [
        "r-h1 at 1302 is outside its deployment area 'r-south' (the left wing's horse: south of row 11)",
        "r-h2 at 1303 is outside its deployment area 'r-south' (the left wing's horse: south of row 11)",
        "r-b has no unit: its commander is placed with a unit of his wing",
        "r-wc2 must stand with a unit of his wing (r-b)"]
    refused(p, R, "deploy r-h1 1302", "1302 lies outside r-h1's deployment area 'r-south'")
    p.go(R, "deploy r-h1 1313")
    assert p.st.leaders["r-wc2"].hex == "1313"       # he went with r-h1, now of r-c
    p.go(R, "deploy r-h2 1314")
    p.go(R, "assign r-h3 r-b")                       # a lone pool regiment is its own brigade
    p.go(R, "deploy r-h3 1402")
    assert p.st.leaders["r-wc3"].hex == "1402"       # with r-h3, now of r-b
    refused(p, R, "deploy done", "r-wc2 must stand with a unit of his wing (r-b)")
    refused(p, R, "deploy r-wc2 1313", "r-wc2 is placed with a unit of his wing (r-b); 1313 holds none")
    p.go(R, "deploy r-wc2 1402")
    p.go(R, "deploy r-wc3 1313")
    assert p.st.deployment["with"]["r-wc2"] == "r-h3" and p.st.deployment["with"]["r-wc3"] == "r-h1"
    p.go(R, "deploy done")
    assert deployment.deploying(p.st) == [P]


def test_the_completions_offer_what_the_rules_allow(p):
    units = TACW.completions(p.sc, p.st, R, "deploy_unit", "")
    values = [v for _, v in units]
    assert values[0] == "done" and units[0][0] == "done: my deployment is complete"
    assert {"r-foot", "r-foot2", "r-shot", "r-gun", "r-h1", "r-h2", "r-h3", "r-ac", "r-wc"} <= set(values)
    assert "r-fixed" not in values and "p-foot" not in values
    hexes = [v for _, v in TACW.completions(p.sc, p.st, R, "deploy_hex", "", {"unit": "r-foot2"})]
    assert "1208" in hexes and "1107" in hexes and "1206" not in hexes     # r-foot stands there
    assert set(hexes) <= set(R_ZONE)
    pairs = [v for _, v in TACW.completions(p.sc, p.st, R, "deploy_hex", "1105", {"unit": "r-foot"})]
    assert pairs and all("," in v and "1105" in v for v in pairs) and "1105,1106" in pairs
    p.go(R, "deploy r-h1 1304")
    with_cav = [v for _, v in TACW.completions(p.sc, p.st, R, "deploy_hex", "13", {"unit": "r-shot"})]
    assert "1304" in with_cav                               # light infantry may join the horse
    faces = [v for _, v in TACW.completions(p.sc, p.st, R, "deploy_facing", "",
                                            {"unit": "r-foot", "hex": "1105,1106"})]
    assert faces == ["E", "W"]
    leader_hexes = [v for _, v in TACW.completions(p.sc, p.st, R, "deploy_hex", "", {"unit": "r-wc"})]
    assert set(leader_hexes) == {"1205", "1206", "1207", "1208", "1209", "1915"}   # his wing's units
    assert [v for _, v in TACW.completions(p.sc, p.st, R, "brigade", "")] == ["rb", "r-h3"]
    assert [v for _, v in TACW.completions(p.sc, p.st, R, "pool_wing", "", {"brigade": "rb"})] == ["r-b", "r-c"]
    assert TACW.completions(p.sc, p.st, P, "brigade", "") == []
    p.go(R, "assign rb r-c")
    [done] = [n for n, v in TACW.completions(p.sc, p.st, R, "deploy_unit", "") if v == "done"]
    assert done.startswith("done (not yet: r-h1 at 1304 is outside")


def test_a_deployed_game_replays_bit_for_bit():
    sc = parse_scenario(build_text(), "test")
    lines = [(R, "assign r-h3 r-b"), (R, "deploy r-h3 1403"), (R, "assign r-h3 r-c"),
             (R, "deploy r-h3 1413"), (P, "deploy p-foot 0404,0405"), (P, "deploy done"),
             (R, "deploy r-foot 1104,1105 facing w"), (R, "deploy done"), (R, "activate r-a")]
    g = Game.new("tacw", "t", 3, scenario=sc)
    for side, line in lines:
        g.apply(side, line)
    again = Game.new("tacw", "t", 3, scenario=sc)
    for rec in g.history:
        again.apply(rec.side, rec.text)
    assert again.state.state_hash() == g.state.state_hash()
    assert g.state.activation.wing == "r-a" and g.state.units["r-h3"].hexes == ["1413"]
    assert g.state.to_dict()["deployment"] == {}
