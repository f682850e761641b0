"""TACW Second Newbury: the scenario file against the book's order of battle and setup, the
validator, each special rule (Donnington Castle, last-occupied victory hexes, Shaw House, the
bridges, the secret boat bridge), the optional rules (Northampton and Douglas options 1 and 2 with
the return roll and entry, 8 turns, attack axes A-C) and a scripted opening of two full turns.

The order of battle below is hard-coded from the digest §7.4 (rules/digests/tacw.md), checked
against the Italian setup ("SECONDA NEWBURY", rules/tacw.it.txt); it is not read from the file.
"""
from __future__ import annotations

from collections import Counter, deque
from pathlib import Path

import pytest

from engine.core.commands import parse
from engine.core.errors import CannotParse, Illegal
from engine.core.facing import double_facings, vertex_index
from engine.tacw import rules, tables
from engine.tacw.sequence import deployment as deployment
from engine.tacw.battles import second_newbury as newbury_rules
from engine.tacw.ruleset import TACW
from engine.tacw.scenario.schema import SCENARIO_DIR, ScenarioError, list_scenarios, load_scenario, parse_scenario
from engine.tacw.setup import new_state
from engine.tacw.victory import victory_points

R, P = "royalist", "parliament"
SC = load_scenario("second-newbury")
TEXT = (SCENARIO_DIR / "second-newbury.toml").read_text(encoding="utf-8")
CASTLE, SHAW_HOUSE, SHAW_VILLAGE = "2021", "2933", "3135"
BOOK_VP_HEXES = {"2524", "3632", "3425", "2823"}
BOOK_BRIDGES = {"2011", "2624", "3235"}
BOAT = "3338"

# (side, wing, kind, strength, morale) -- digest §7.4, every counter (guns: strength 0, class).
BOOK_OOB = [
    # Royalist left wing, WC Maurice
    (R, "r-left", "heavy", 10, 7), (R, "r-left", "cavalry", 3, 8), (R, "r-left", "cavalry", 3, 7),
    (R, "r-left", "cavalry", 3, 7), (R, "r-left", "artillery", 0, "saker"),
    (R, "r-left", "artillery", 0, "3lb"), *[(R, "r-left", "light", 1, 4)] * 3,
    # Royalist centre, WC Goring
    (R, "r-centre", "heavy", 12, 8),
    *[(R, "r-centre", "cavalry", s, m) for s, m in ((3, 8), (3, 7), (3, 7), (3, 8), (3, 8), (4, 8),
                                                     (4, 7), (3, 8), (3, 7), (3, 7), (2, 8))],
    (R, "r-centre", "artillery", 0, "saker"), *[(R, "r-centre", "artillery", 0, "3lb")] * 2,
    *[(R, "r-centre", "light", 2, 6)] * 2, *[(R, "r-centre", "light", 1, 4)] * 3,
    # Royalist right wing, WC Astley
    (R, "r-right", "heavy", 10, 8), (R, "r-right", "heavy", 10, 7), (R, "r-right", "heavy", 8, 8),
    (R, "r-right", "artillery", 0, "culverin"), (R, "r-right", "artillery", 0, "saker"),
    (R, "r-right", "artillery", 0, "3lb"), *[(R, "r-right", "light", 1, 4)] * 5,
    # Boys' independent command, Donnington Castle
    (R, "r-boys", "light", 3, 6), (R, "r-boys", "artillery", 0, "saker"),
    # Northampton's brigade, Colonel Douglas (optional rules)
    (R, "r-northampton", "cavalry", 3, 8), (R, "r-northampton", "cavalry", 3, 8),
    (R, "r-douglas", "cavalry", 3, 7), (R, "r-douglas", "light", 2, 5),
    # Parliament outer right wing, WC Manchester
    *[(P, "p-manchester", "heavy", 11, m) for m in (8, 7, 7)],
    *[(P, "p-manchester", "cavalry", s, m) for s, m in ((4, 8), (4, 8), (4, 7), (3, 6))],
    (P, "p-manchester", "artillery", 0, "culverin"), (P, "p-manchester", "artillery", 0, "saker"),
    (P, "p-manchester", "artillery", 0, "3lb"),
    # main attack: Cromwell (cavalry), Skippon, Balfour (cavalry)
    *[(P, "p-cromwell", "cavalry", s, m) for s, m in ((4, 8), (3, 8), (3, 8), (4, 7), (4, 7), (4, 7),
                                                      (3, 7), (3, 7))],
    *[(P, "p-skippon", "heavy", s, m) for s, m in ((12, 8), (12, 7), (12, 7), (12, 7), (8, 7))],
    (P, "p-skippon", "artillery", 0, "saker"), (P, "p-skippon", "artillery", 0, "3lb"),
    *[(P, "p-balfour", "cavalry", s, m) for s, m in ((4, 7), (4, 7), (4, 7), (3, 7), (4, 7), (3, 7),
                                                     (2, 7))],
]


# == helpers ====================================================================================

def opened(seed: int = 1, options=None):
    """A game after both sides accept Herald's suggested setup (`deploy done`)."""
    st, _ = rules.start(SC, new_state(SC, seed, options=options))
    for side in (R, P):
        st, _ = rules.apply(SC, st, side, parse("deploy done"))
    return st


def go(st, side, line):
    return rules.apply(SC, st, side, parse(line))


def refused(st, side, line, words):
    before = st.state_hash()
    with pytest.raises(Illegal) as exc:
        go(st, side, line)
    assert words in str(exc.value), str(exc.value)
    assert st.state_hash() == before
    return str(exc.value)


def put(st, uid, hexes, facing):
    st.units[uid].hexes = list(hexes)
    st.units[uid].facing = vertex_index(SC.grid, facing)


def royalist_to_act(st, wing):
    """Let `wing` activate now: every other wing is done and the Royalists are phasing."""
    for w in st.wings.values():
        w.done = w.id != wing
    st.phasing = R


# == the file ===================================================================================

def test_listed_and_loads_with_the_books_frame():
    assert "second-newbury" in list_scenarios()
    assert SC.title == "Second Newbury" and SC.date == "27 October 1644" and SC.turns == 6
    assert SC.sides[R].army_commander == "charles" and SC.sides[R].senior_wc == "goring"
    assert SC.sides[P].army_commander == "waller" and SC.sides[P].senior_wc == "manchester"
    # every hex the book names is on the map
    for h in BOOK_VP_HEXES | BOOK_BRIDGES:
        assert h in SC.grid
    assert SC.historical_orders == {
        "r-left": "receive_charge", "r-centre": "make_ready", "r-right": "receive_charge",
        "r-boys": "receive_charge", "r-northampton": "make_ready", "r-douglas": "make_ready",
        "p-manchester": "charge", "p-cromwell": "charge", "p-skippon": "charge", "p-balfour": "charge"}
    assert [(b.level, b.min, b.max) for b in SC.victory_bands] == [
        ("parliament_decisive", 70, None), ("parliament_marginal", 40, 69), ("draw", 10, 39),
        ("royalist_marginal", -20, 9), ("royalist_decisive", None, -21)]
    assert SC.historical_result == "royalist_marginal"
    assert {o.id for o in SC.optional_rules} == {
        "northampton_return", "northampton_centre", "douglas_return", "douglas_left", "eight_turns",
        "axis_a", "axis_b", "axis_c"}
    assert all(ld.value_source == "herald" for ld in SC.leaders)
    assert {w.id for w in SC.wings if w.cavalry} == {"p-cromwell", "p-balfour", "r-northampton",
                                                    "r-douglas"}


def test_cromwell_is_the_books_maj_gen():
    """The book: "Ala sinistra (cavalleria) / CA: Maj. Gen. Cromwell"."""
    cromwell = next(ld for ld in SC.leaders if ld.id == "cromwell")
    assert cromwell.name == "Maj. Gen. Oliver Cromwell" and cromwell.special == "cromwell"


def test_order_of_battle_is_the_books():
    mine = Counter((u.side, u.wing, u.kind, u.strength, u.gun_class or u.morale) for u in SC.units)
    assert mine == Counter(BOOK_OOB)
    # every foot brigade is a double counter (HERALD); light kinds
    assert all(len(u.hexes) == 2 for u in SC.units if u.kind == "heavy")
    assert SC.unit("r-centre-dragoons-1").light_kind == "dragoons"
    assert SC.unit("r-douglas-shot").light_kind == "commanded_shot"


def test_every_unit_on_a_legal_hex_inside_its_area():
    g = SC.grid
    for u in SC.units:
        for h in u.hexes:
            assert h in g and not SC.hex_impassable(h), (u.id, h)
        if len(u.hexes) == 2:
            assert g.adjacent(*u.hexes) and u.facing in double_facings(g, *u.hexes), u.id
        if u.area:
            assert set(u.hexes) <= SC.deployment_areas[u.area].hexes, u.id
        else:                                   # the fixed setups: Boys in Donnington Castle
            assert u.wing == "r-boys" and u.hexes == (CASTLE,)
    # the book's constraints on the suggested setup, as `deploy done` judges them
    st = new_state(SC, 1)
    assert st.phase == "deployment"
    assert deployment.side_problems(SC, st, R) == [] and deployment.side_problems(SC, st, P) == []
    # I/Lisle: one hex in Shaw House, and its area allows no double without it
    assert SHAW_HOUSE in st.units["r-i-lisle"].hexes
    area = SC.deployment_areas["r-shaw-house"].hexes
    assert all(SHAW_HOUSE in (a, b) for a in area for b in area if a < b and g.adjacent(a, b))
    assert SC.unit("r-ii-lisle").deploy_rule == "in_command_of:r-i-lisle"
    assert SC.unit("r-astley").deploy_rule == "in_command"
    assert {SC.unit(f"r-right-shot-{i}").deploy_rule for i in range(1, 6)} == {"stacked_or_adjacent_infantry"}
    # the areas' words: the book's, and the banks of the Lambourn
    assert "entro 3 esagoni dal paese di Speen" in SC.deployment_areas["r-left-speen"].text
    assert all(g.col_row(h)[1] <= 9 for h in SC.deployment_areas["p-main-attack"].hexes)
    assert all(g.col_row(h)[1] >= SC.rows - 3 for h in SC.deployment_areas["p-clay-hill"].hexes)


def _bank(start, blocked):
    seen, todo = {start}, deque([start])
    while todo:
        h = todo.popleft()
        for n in SC.grid.neighbors(h):
            if n not in seen and n not in blocked:
                seen.add(n)
                todo.append(n)
    return seen


def test_map_features():
    assert {h for h, t in SC.terrain.items() if t == "bridge"} == BOOK_BRIDGES
    assert SC.terrain_at(CASTLE) == "castle"
    assert SC.terrain_at(SHAW_HOUSE) == "village" and SC.terrain_at(SHAW_VILLAGE) == "village"
    assert SC.terrain_at("2524") == "village"                   # Donnington village
    assert {(v.hex, v.vp, v.side) for v in SC.victory_hexes} == {
        (h, 5, P) for h in BOOK_VP_HEXES | {SHAW_HOUSE, SHAW_VILLAGE}}
    # the Lambourn parts the field: no way from Donnington village (north) to 3425 (south)
    # but over a bridge
    rivers = {h for h, t in SC.terrain.items() if t == "river"}
    north = _bank("2524", rivers | BOOK_BRIDGES)
    assert "3425" not in north and SHAW_HOUSE in north and "2823" not in north
    assert "3425" in _bank("2524", rivers)
    # the boat bridge's possible hexes are the Lambourn's, between Shaw and the east edge
    boat = newbury_rules.params(SC, "boat_bridge")["hexes"]
    assert BOAT in boat and all(SC.terrain_at(h) == "river" and SC.grid.col_row(h)[1] > 35 for h in boat)
    # friendly edges in the engine's sheet names: Royalists to geographic north, Parliament west
    assert SC.edges == {R: "west", P: "north"}


BROKEN = [
    ("castle not a castle", 'castle = ["2021"]', 'castle = []', "2021 is clear, not castle"),
    ("boat bridge on land", 'hexes = ["3337", "3338", "3438"', 'hexes = ["3437", "3338", "3438"',
     "3437 is clear, not river"),
    ("bridge rule off a bridge", 'hexes = ["2011", "2624", "3235"]', 'hexes = ["2011", "2624", "3236"]',
     "3236 is river, not bridge"),
    ("I/Lisle out of its area", 'hexes = ["2933", "2833"], facing = "SE"',
     'hexes = ["2933", "2832"], facing = "SW"',
     "lies outside its area 'r-shaw-house'"),
    ("return entry off the edge", '"4224", "4225"', '"4124", "4225"', "4124 is not a land hex of the map's east edge"),
    ("unknown optional rule", '{ option = "eight_turns", turns = 8 }', '{ option = "nine_turns", turns = 9 }',
     "no optional rule 'nine_turns'"),
    ("unknown key of a kind", 'kind = "impregnable_castle"', 'kind = "impregnable_castle"\nwalls = 3',
     "unknown key(s) walls"),
    ("II/Lisle out of command range", 'deploy_rule = "in_command_of:r-i-lisle"',
     'deploy_rule = "in_command_of:r-blagge"', "II/Lisle must be within command range of Blagge"),
]


@pytest.mark.parametrize("what, old, new, message", BROKEN, ids=[b[0] for b in BROKEN])
def test_validator_refuses_a_broken_copy(what, old, new, message):
    assert TEXT.count(old) >= 1, what
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(TEXT.replace(old, new, 1), "broken.toml")
    assert message in str(exc.value)


# == special rule 1: Donnington Castle ===========================================================

def test_castle_cannot_be_entered_by_the_enemy():
    st = opened()
    for uid in ("r-boys-musketeers", "r-boys-sakers"):       # the garrison steps out
        put(st, uid, ["2223"], "E")
    st.leaders["boys"].hex = "2223"
    put(st, "p-waller", ["2122"], "NW")                      # the castle is Waller's front hex
    st, _ = go(st, P, "activate p-manchester")
    refused(st, P, f"move p-waller {CASTLE}", "Donnington Castle is impregnable")
    # its own side may go back in
    st = opened()
    for uid in ("r-boys-musketeers", "r-boys-sakers"):
        put(st, uid, ["2122"], "NW")
    royalist_to_act(st, "r-boys")
    st, _ = go(st, R, "activate r-boys")
    st, _ = go(st, R, f"move r-boys-musketeers {CASTLE}")
    assert st.units["r-boys-musketeers"].hexes == [CASTLE]


def test_castle_garrison_cannot_be_fired_at_or_assaulted_but_fires_normally():
    st = opened()
    put(st, "p-i-manchester-foot", ["2122", "2123"], "W")   # the castle in its front
    st.leaders["manchester"].hex = "2122"
    st, _ = go(st, P, "activate p-manchester")
    refused(st, P, f"fire p-i-manchester-foot {CASTLE}", "fire at it is not allowed")
    st = opened()
    put(st, "p-waller", ["2122"], "NW")                      # the castle in its front
    st.leaders["manchester"].hex = "2122"
    st, _ = go(st, P, "activate p-manchester")
    st, _ = go(st, P, "close")
    refused(st, P, f"attack p-waller {CASTLE}", "cannot be assaulted")
    # Boys' Sakers fire out of the castle as any gun does
    st = opened()
    put(st, "p-waller", ["2321"], "W")
    royalist_to_act(st, "r-boys")
    st, _ = go(st, R, "activate r-boys")
    st, events = go(st, R, "fire r-boys-sakers 2321")
    fire = next(e for e in events if e.kind == "fire")
    assert "(2021) fires at Waller (2321, range 3)" in fire.narrative and fire.dice
    assert st.units["r-boys-sakers"].fired


# == special rule 2: victory hexes scored for their last occupant ================================

def test_victory_hexes_score_for_the_last_occupant():
    st = opened()
    assert newbury_rules.data(st)["last"] == {h: R for h in BOOK_VP_HEXES | {SHAW_HOUSE, SHAW_VILLAGE}}
    assert not any(k.startswith("victory hex") for k in victory_points(SC, st)[P])
    put(st, "p-waller", ["2823"], "NW")                       # Parliament occupies 2823...
    st, _ = go(st, P, "policy show")                          # (any command: occupation is judged after it)
    assert newbury_rules.data(st)["last"]["2823"] == P
    put(st, "p-waller", ["2922"], "NW")                       # ...and leaves it: it still scores
    st, _ = go(st, P, "policy show")
    assert victory_points(SC, st)[P]["victory hex 2823"] == 5
    assert st.vp[P] >= 5
    put(st, "r-i-goring", ["2823"], "NW")                     # a Royalist is the last to occupy it
    st, _ = go(st, R, "policy show")
    assert "victory hex 2823" not in victory_points(SC, st)[P]
    assert newbury_rules.data(st)["last"]["2823"] == R


# == special rule 3: Shaw House ==================================================================

def test_shaw_house_gives_minus_two_to_fire_and_close_combat():
    kind = SC.terrain_at(SHAW_HOUSE)
    assert tables.terrain_fire_modifier(kind) == -2 and tables.terrain_close_combat_modifier(kind) == -2
    st = opened()
    put(st, "p-i-manchester-foot", ["2832", "2932"], "SE")   # Shaw House in its front
    st.leaders["manchester"].hex = "2832"
    st, _ = go(st, P, "activate p-manchester")
    st, events = go(st, P, f"fire p-i-manchester-foot {SHAW_HOUSE}")
    shots = [e for e in events if e.kind == "fire" and "fires at I/Lisle (2933)" in e.narrative]
    assert len(shots) == 2                                    # both halves of the double
    for e in shots:
        assert [(m.value, m.reason) for m in e.modifiers if "village" in m.reason] == [(-2, "target's hex: village")]


# == special rule 4: bridges =====================================================================

def test_a_double_unit_may_not_occupy_a_bridge():
    st = opened()
    put(st, "p-i-manchester-foot", ["2424", "2524"], "SE")   # Donnington bridge 2624 in front
    st.leaders["manchester"].hex = "2424"
    st, _ = go(st, P, "activate p-manchester")
    text = refused(st, P, "move p-i-manchester-foot 2624", "double unit: it may not occupy the bridge hex 2624")
    assert "special rule 4" in text


def test_a_unit_must_cross_a_bridge_completely():
    st = opened()
    put(st, "p-waller", ["2524"], "SE")
    st.leaders["manchester"].hex = "2524"
    st, _ = go(st, P, "activate p-manchester")
    st.wings["p-manchester"].order = "make_ready"               # (no Charge obligation to judge)
    refused(st, P, "move p-waller 2624", "must have the MP to cross the bridge completely")
    st, events = go(st, P, "move p-waller 2624 2725")
    assert st.units["p-waller"].hexes == ["2725"]
    assert "2624 (2 MP; 2624 bridge 2*)" in events[-1].narrative


# == special rule 5: the boat bridge =============================================================

def test_boat_bridge_is_secret_until_a_unit_crosses_on_it():
    from renders.tacw import render_board
    st = opened()
    refused(st, R, f"boatbridge {BOAT}", "only Parliament (Manchester) has the boat bridge")
    refused(st, P, "boatbridge 2624", "not a hex of the Lambourn between Shaw and the east edge")
    board_before = render_board(SC, st)
    st, events = go(st, P, f"boatbridge {BOAT}")
    assert newbury_rules.data(st)["boat"] == {"hex": BOAT, "revealed": False}
    # nothing public names it: the event, the status, the board, the log
    assert all(BOAT not in e.narrative and BOAT not in str(e.outcome) for e in events)
    assert BOAT not in TACW.status(SC, st)
    assert render_board(SC, st) == board_before
    # it is recorded once; its owner alone is told where (a private refusal)
    refused(st, P, "boatbridge 3438", "already recorded")
    with pytest.raises(CannotParse) as exc:
        go(st, P, "boatbridge")
    assert f"recorded at {BOAT}" in str(exc.value)
    # for everyone else it is still the river
    assert newbury_rules.scenario_view(SC, st, R, "move").terrain_at(BOAT) == "river"
    assert newbury_rules.scenario_view(SC, st, P, "move").terrain_at(BOAT) == "bridge"
    # Thorpe crosses on it: it is placed on the map, for both sides
    st, _ = go(st, P, "activate p-manchester")
    st, events = go(st, P, f"move p-thorpe 3340 3339 {BOAT} face ne 3437")
    reveal = next(e for e in events if e.kind == "boat_bridge")
    assert f"placed on the map at {BOAT}: Thorpe crosses the Lambourn on it" in reveal.narrative
    assert st.units["p-thorpe"].hexes == ["3437"]
    assert newbury_rules.data(st)["boat"]["revealed"]
    assert newbury_rules.scenario_view(SC, st, R, "move").terrain_at(BOAT) == "bridge"
    assert newbury_rules.scenario_view(SC, st, public=True).terrain_at(BOAT) == "bridge"


def test_royalists_cannot_use_the_secret_boat_bridge():
    st = opened()
    st, _ = go(st, P, f"boatbridge {BOAT}")
    put(st, "r-i-wentworth", ["3437"], "W")                  # 3338 is its front hex (SW)
    royalist_to_act(st, "r-centre")
    st, _ = go(st, R, "activate r-centre")
    refused(st, R, f"move r-i-wentworth {BOAT}", f"{BOAT} is river: no unit may enter it")


# == optional rules: Northampton and Douglas =====================================================

def test_detached_forces_are_away_without_their_options():
    st = opened()
    assert not {"r-i-northampton", "r-ii-northampton", "r-douglas-horse", "r-douglas-shot"} & set(st.units)
    assert not {"northampton", "douglas"} & set(st.leaders)
    assert not {"r-northampton", "r-douglas"} & set(st.wings)


def test_option_2_joins_the_centre_and_the_left_without_their_commanders():
    st = new_state(SC, 1, options=["northampton_centre", "douglas_left"])
    assert st.units["r-i-northampton"].wing == "r-centre" and st.units["r-ii-northampton"].wing == "r-centre"
    assert st.units["r-douglas-horse"].wing == "r-left" and st.units["r-douglas-shot"].wing == "r-left"
    assert "northampton" not in st.leaders and "douglas" not in st.leaders
    assert "r-northampton" not in st.wings and "r-douglas" not in st.wings
    st, _ = rules.start(SC, st)
    st, events = go(st, R, "deploy r-i-northampton 2925")     # anywhere in the centre's area
    assert st.units["r-i-northampton"].hexes == ["2925"]
    refused(st, R, "deploy r-i-northampton 1515", "outside")
    for side in (R, P):
        st, _ = go(st, side, "deploy done")
    assert st.phase == "activation"


def test_options_of_one_commander_and_the_attack_axes_exclude_each_other():
    with pytest.raises(ScenarioError, match="exclude each other"):
        new_state(SC, 1, options=["northampton_return", "northampton_centre"])
    with pytest.raises(ScenarioError, match="exclude each other"):
        new_state(SC, 1, options=["axis_a", "axis_c"])


@pytest.mark.parametrize("die, back", [(0, {"r-northampton", "r-douglas"}), (2, {"r-douglas"}),
                                       (3, {"r-douglas"}), (4, set())])
def test_return_roll_at_a_royalist_activation_and_entry(die, back):
    st = opened(options=["northampton_return", "douglas_return"])
    assert "r-i-northampton" not in st.units and "r-northampton" not in st.wings
    assert set(newbury_rules.data(st)["away"]) == {"r-northampton", "r-douglas"}
    # a Parliament activation rolls nothing
    st, events = go(st, P, "activate p-skippon")
    assert not [e for e in events if e.kind == "return_roll"]
    st, _ = go(st, P, "stop")
    royalist_to_act(st, "r-centre")
    st, events = go(st, R, f"activate r-centre dice={die + 1}")
    roll = next(e for e in events if e.kind == "return_roll")
    assert roll.dice[0].result == die == roll.base and set(roll.outcome["returns"]) == back
    assert "Northampton's cavalry brigade 0-1" in roll.row and "Colonel Douglas's command 0-3" in roll.row
    assert {w for w in ("r-northampton", "r-douglas") if w in st.wings} == back
    if "r-douglas" in back:                                   # from the book's west edge (row 01)
        assert st.units["r-douglas-horse"].hexes == ["3601"] and st.units["r-douglas-shot"].hexes == ["3701"]
        assert st.leaders["douglas"].hex == "3601"
        assert st.wings["r-douglas"].order == "make_ready" and not st.wings["r-douglas"].done
    if "r-northampton" in back:                               # from the book's south edge (column 42)
        assert st.units["r-i-northampton"].hexes == ["4224"] and st.units["r-ii-northampton"].hexes == ["4225"]
        assert st.leaders["northampton"].hex == "4224"
    away = set(newbury_rules.data(st).get("away", {}))
    assert away == {"r-northampton", "r-douglas"} - back
    if away:                                                   # the next Royalist activation rolls again
        st, _ = go(st, R, "stop")
        royalist_to_act(st, "r-left")
        st, events = go(st, R, "activate r-left dice=1")
        assert set(next(e for e in events if e.kind == "return_roll").outcome["returns"]) == away
        assert not newbury_rules.data(st).get("away")


def test_douglas_option_1_alone_returns_on_0_to_3():
    st = opened(options=["douglas_return"])
    royalist_to_act(st, "r-centre")
    st, events = go(st, R, "activate r-centre dice=4")           # a 3
    roll = next(e for e in events if e.kind == "return_roll")
    assert roll.row == "Colonel Douglas's command 0-3" and roll.outcome["returns"] == ["r-douglas"]
    assert st.wings["r-douglas"].commander == "douglas" and "r-northampton" not in st.wings


# == optional rules: battle length and attack axes ===============================================

@pytest.mark.parametrize("options, turns", [([], 6), (["eight_turns"], 8), (["axis_a"], 99),
                                            (["axis_b"], 99), (["axis_c"], 12),
                                            (["eight_turns", "axis_c"], 12)])
def test_battle_length(options, turns):
    st = new_state(SC, 1, options=options)
    assert newbury_rules.battle_turns(SC, st) == turns
    assert newbury_rules.scenario_view(SC, st).turns == turns
    assert f"turn 1/{turns}" in TACW.status(SC, st)


@pytest.mark.parametrize("options, over", [([], True), (["eight_turns"], False)])
def test_the_battle_ends_after_its_last_turn(options, over):
    st = opened(options=options)
    st.turn = 6
    for w in st.wings.values():
        w.done = True
    st, events = go(st, P, "policy show")
    assert (st.phase == "over") == over
    if not over:
        assert st.turn == 7


@pytest.mark.parametrize("axis, area", [("axis_a", "p-clay-hill"), ("axis_b", "p-axis-b"),
                                        ("axis_c", "p-axis-c")])
def test_attack_axes_deploy_the_main_attack_elsewhere(axis, area):
    st, _ = rules.start(SC, new_state(SC, 1, options=[axis]))
    hexes = SC.deployment_areas[area].hexes
    main = [u for u in st.units.values() if u.wing in ("p-cromwell", "p-skippon", "p-balfour")]
    assert len(main) == 22 and all(set(u.hexes) <= hexes for u in main)
    assert st.leaders["cromwell"].hex in st.units["p-i-ironsides"].hexes
    assert deployment.side_problems(newbury_rules.scenario_view(SC, st), st, P) == []
    # the owner may redeploy inside the axis's area, not in the book's historical one
    free = sorted(h for h in hexes if not st.units_at(h))
    st2, _ = go(st, P, f"deploy p-norwich {free[0]}")
    assert st2.units["p-norwich"].hexes == [free[0]]
    refused(st, P, "deploy p-norwich 2506", "outside")
    if axis == "axis_a":           # all Parliament wings north of the Lambourn, by the east edge
        assert all(SC.grid.col_row(h)[1] >= SC.rows - 3 for u in st.units.values() if u.side == P
                   for h in u.hexes)


# == a scripted opening: deploy, then two full turns ==============================================

OPENING = [
    (P, f"boatbridge {BOAT}"),
    (R, "deploy done"), (P, "deploy done"),
    # turn 1: Parliament, with four wings on Charge, has the initiative and activates them all
    (P, "activate p-manchester"), (P, f"move p-thorpe 3340 3339 {BOAT} face ne 3437"), (P, "stop"),
    (P, "activate p-skippon"), (P, "move p-i-skippon 2810"), (P, "stop"),
    (P, "activate p-cromwell"), (P, "move p-i-ironsides 2109 2110"), (P, "stop"),
    (P, "activate p-balfour"), (P, "move p-essex 3409 3410"), (P, "stop"),
    (R, "activate r-centre"), (R, "stop"), (R, "activate r-douglas"), (R, "stop"),
    (R, "activate r-left"), (R, "stop"), (R, "activate r-right"), (R, "stop"),
    (R, "activate r-boys"), (R, "stop"),
    # turn 2
    (P, "activate p-manchester"), (P, "move p-i-manchester-foot 2739"), (P, "stop"),
    (P, "activate p-skippon"), (P, "stop"), (P, "activate p-cromwell"), (P, "stop"),
    (P, "activate p-balfour"), (P, "stop"),
    (R, "activate r-centre"), (R, "stop"), (R, "activate r-douglas"), (R, "stop"),
    (R, "activate r-left"), (R, "fire r-left-sakers 3410"), (R, "stop"),
    (R, "activate r-right"), (R, "stop"), (R, "activate r-boys"), (R, "stop"),
]
OPTIONS = ["northampton_return", "douglas_return"]


def play(seed=7):
    st, _ = rules.start(SC, new_state(SC, seed, options=OPTIONS))
    log = []
    for side, line in OPENING:
        st, events = go(st, side, line)
        log.append((line, events))
    return st, log


def test_scripted_opening_two_full_turns():
    st, log = play()
    events = [e for _, evs in log for e in evs]
    assert st.turn == 3 and st.phase == "activation" and st.initiative == P
    assert [e.outcome["initiative"] for e in events if e.kind == "initiative"] == [P, P, P]
    # the boat bridge: secret for two commands, then placed when Thorpe crosses on it
    first = next(i for i, e in enumerate(events) if e.kind == "boat_bridge" and BOAT in e.narrative)
    assert "Thorpe crosses the Lambourn" in events[first].narrative
    assert all(BOAT not in e.narrative for e in events[:first])
    assert st.units["p-thorpe"].hexes == ["3437"] and st.units["p-thorpe"].formation == "disordered"
    # the moves of turn 1 and 2
    assert st.units["p-i-skippon"].hexes == ["2810", "2910"]
    assert st.units["p-i-ironsides"].hexes == ["2110"]
    assert st.units["p-essex"].hexes == ["3410"]
    assert st.units["p-i-manchester-foot"].hexes == ["2639", "2739"]
    # Maurice's battery on Speen Hill fired at Essex in reaction in turn 1 and at will in turn 2
    sakers = [e for e in events if e.kind == "fire" and e.narrative.startswith("4-8 lb Sakers (r-left-sakers) (3513)")]
    assert len(sakers) == 2 and "in reaction" in sakers[0].narrative
    assert st.units["p-essex"].formation == "disordered"
    # the return rolls: one at each Royalist activation while a force is away (5 a turn)
    rolls = [e for e in events if e.kind == "return_roll"]
    assert len(rolls) == 10 and all(len(e.dice) == 1 for e in rolls)
    assert rolls[0].base == 2 and rolls[0].outcome["returns"] == ["r-douglas"]
    assert all(e.outcome["returns"] == [] for e in rolls[1:]) and all(e.base > 1 for e in rolls[1:])
    entry = next(e for e in events if e.kind == "return")
    assert "Colonel Douglas's command enters from the west edge" in entry.narrative
    assert st.units["r-douglas-horse"].hexes == ["3601"]
    assert sum(e.kind == "activate" and e.inputs["wing"] == "r-douglas" for e in events) == 2
    assert "r-northampton" not in st.wings and "r-i-northampton" not in st.units
    # the victory hexes still belong to their first holders; the score runs
    assert set(newbury_rules.data(st)["last"].values()) == {R}
    assert st.vp == {s: sum(v.values()) for s, v in victory_points(SC, st).items()}
    # same seed, same commands: the same game
    again, _ = play()
    assert again.state_hash() == st.state_hash()


def test_render_start_board():
    from renders.tacw import render_board
    st = opened()
    png = render_board(SC, st)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
    # only the areas in play are shaded while deploying (not the attack axes')
    view = newbury_rules.scenario_view(SC, new_state(SC, 1), public=True)
    assert "p-axis-b" not in view.deployment_areas and "p-main-attack" in view.deployment_areas


def test_retreats_routs_and_advances_respect_the_castle_and_the_bridges():
    """Rules 1 and 4 say "enter" and "occupy" whatever moves the unit (HERALD, newbury_rules.
    closed_hexes): a retreat, rout or advance after combat never enters the enemy's castle, and a
    double never ends on a bridge."""
    from engine.tacw.close_combat import retreat as retreat
    st = opened()
    for uid in ("r-boys-musketeers", "r-boys-sakers"):       # the garrison steps out: the castle is empty
        put(st, uid, ["2223"], "E")
    view = newbury_rules.scenario_view(SC, st, public=True)
    waller, boys = st.units["p-waller"], st.units["r-boys-musketeers"]
    assert not retreat._enterable(view, st, waller, [], CASTLE, True)
    assert retreat._enterable(view, st, boys, [], CASTLE, True)   # its own side may go back in
    foot = st.units["p-i-manchester-foot"]
    assert foot.is_double and not retreat._enterable(view, st, foot, [], "2624", True)
    put(st, "p-waller", ["2524"], "SE")
    assert retreat._enterable(view, st, st.units["p-waller"], [], "2624", True)   # a single unit may
    # an advance after combat into a vacated castle hex is refused to the enemy
    put(st, "p-waller", ["2122"], "NW")                      # the castle is Waller's front hex
    assert retreat._advance_hexes(view, st, st.units["p-waller"], [CASTLE], "TACW §10.4.6") is None


def test_manchesters_wing_routs_toward_clay_hill_not_the_sides_edge():
    """§12.4 with [map.wing_edges] (Herald completion): Manchester's wing came from Clay Hill (the
    sheet's bottom edge) and routs back there; the rest of Parliament routs to the top edge."""
    from engine.core.dice import DiceStream
    from engine.tacw.close_combat import retreat as retreat
    st = opened()
    view = newbury_rules.scenario_view(SC, st, public=True)
    put(st, "p-waller", ["2330"], "NW")
    waller = st.units["p-waller"]
    waller.morale_state = "broken"
    assert retreat.friendly_edge(view, waller) == "south"
    events = retreat.rout_move(view, st, waller, DiceStream(st.seed, st.draws))
    rout = next(e for e in events if e.kind == "rout")
    assert "toward the south edge" in rout.narrative
    rows = [int(p[0][2:]) for p in rout.outcome["path"]]
    assert rows[-1] > rows[0], rout.narrative            # down the sheet, toward Clay Hill
    other = next(u for u in st.units.values() if u.side == P and u.wing != "p-manchester")
    assert retreat.friendly_edge(view, other) == "north"


def test_wing_edges_name_a_wing_of_the_scenario():
    broken = TEXT.replace('p-manchester = "south"', 'p-nobody = "south"')
    with pytest.raises(ScenarioError, match="wing_edges: no wing 'p-nobody'"):
        parse_scenario(broken)
    with pytest.raises(ScenarioError, match="wing_edges.p-manchester: must be one of"):
        parse_scenario(TEXT.replace('p-manchester = "south"', 'p-manchester = "up"'))
