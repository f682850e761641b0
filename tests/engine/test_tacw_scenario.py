"""TACW scenarios: the Edgehill file against the book's order of battle, the opening state, and
the validator that checks a club's upload.

The order of battle below is hard-coded from the digest §7.1 (rules/digests/tacw.md), checked
against the Italian setup ("BATTAGLIE: EDGEHILL", rules/tacw.it.txt); it is deliberately not read
from the file under test.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine.core.facing import double_facings, vertex_index
from engine.tacw.scenario.schema import (
    GUN_CLASSES, ScenarioError, list_scenarios, load_scenario, parse_scenario,
)
from engine.tacw.setup import new_state, option_modifiers
from engine.tacw.state import TacwState

R, P = "royalist", "parliament"

# (side, wing, kind, strength, morale, hexes) -- digest §7.1, every counter.
BOOK_OOB = [
    # Royalist right wing (cavalry), WC Rupert
    (R, "r-right", "light", 3, 6, ("3103",)),         # Musketeers
    (R, "r-right", "light", 2, 6, ("3104",)),         # Dragoons (Usher's, Duncombe's; Aston)
    (R, "r-right", "cavalry", 2, 8, ("3105",)),       # King's LG
    (R, "r-right", "cavalry", 3, 7, ("3106",)),       # Prince of Wales
    (R, "r-right", "cavalry", 3, 8, ("3107",)),       # Rupert
    (R, "r-right", "cavalry", 3, 7, ("3108",)),       # I/Maurice
    (R, "r-right", "cavalry", 3, 7, ("3306",)),       # II/Maurice
    (R, "r-right", "cavalry", 4, 7, ("3308",)),       # Byron
    # Royalist centre, WC Astley
    (R, "r-centre", "artillery", 0, None, ("3011",)),  # 12 lb Culverins
    (R, "r-centre", "artillery", 0, None, ("3012",)),  # 4-8 lb Sakers
    (R, "r-centre", "heavy", 18, 7, ("3109", "3110")),  # Gerard
    (R, "r-centre", "heavy", 18, 6, ("3112", "3113")),  # Fielding
    (R, "r-centre", "heavy", 18, 6, ("3115", "3116")),  # Wentworth
    (R, "r-centre", "heavy", 18, 7, ("3310", "3311")),  # Belasyse
    (R, "r-centre", "heavy", 18, 8, ("3314", "3315")),  # Byron
    # Royalist left wing (cavalry), WC Wilmot
    (R, "r-left", "cavalry", 3, 7, ("3117",)),        # Caernarvon
    (R, "r-left", "cavalry", 3, 7, ("3118",)),        # Grandison
    (R, "r-left", "cavalry", 3, 7, ("3119",)),        # Wilmot
    (R, "r-left", "light", 2, 6, ("3120",)),          # Dragoons
    (R, "r-left", "light", 2, 6, ("3121",)),          # Dragoons
    (R, "r-left", "cavalry", 2, 7, ("3317",)),        # Digby
    (R, "r-left", "cavalry", 2, 7, ("3319",)),        # Ashton
    # Parliament left wing (cavalry), WC Ramsey
    (P, "p-left", "cavalry", 4, 6, ("1804",)),        # Ramsey
    (P, "p-left", "cavalry", 4, 6, ("1805",)),        # Waller
    (P, "p-left", "cavalry", 4, 6, ("1806",)),        # Goodwin
    (P, "p-left", "cavalry", 3, 6, ("1605",)),        # Ind. Troops
    *[(P, "p-left", "light", 1, 4, (h,)) for h in ("1804", "1805", "1806", "2004", "2103",
                                                   "2203")],  # 6x Commanded Shot
    # Parliament centre, WC Balfour
    (P, "p-centre", "heavy", 18, 7, ("1816", "1817")),  # Meldrum I
    (P, "p-centre", "heavy", 18, 7, ("1813", "1814")),  # Meldrum II
    (P, "p-centre", "heavy", 20, 6, ("1810", "1811")),  # C. Essex I
    (P, "p-centre", "heavy", 20, 6, ("1807", "1808")),  # C. Essex II
    (P, "p-centre", "heavy", 14, 7, ("1608", "1609")),  # Ballard
    (P, "p-centre", "heavy", 20, 7, ("1611", "1612")),  # Lord General
    (P, "p-centre", "cavalry", 4, 7, ("1512",)),      # Essex
    (P, "p-centre", "cavalry", 2, 8, ("1513",)),      # Essex LG
    (P, "p-centre", "cavalry", 2, 8, ("1514",)),      # Bedford
    (P, "p-centre", "cavalry", 4, 7, ("1515",)),      # Balfour
    (P, "p-centre", "artillery", 0, None, ("1812",)),  # 4-8 lb Sakers
    (P, "p-centre", "artillery", 0, None, ("1815",)),  # 3 lb Falcons
    # Parliament right wing (cavalry), WC Fielding
    (P, "p-right", "cavalry", 4, 6, ("1920",)),       # Fielding
    (P, "p-right", "light", 2, 6, ("2020",)),         # 3x Dragoons
    (P, "p-right", "light", 2, 6, ("2021",)),
    (P, "p-right", "light", 2, 6, ("2022",)),
]

WING_COUNTS = {"r-right": 8, "r-centre": 7, "r-left": 7, "p-left": 10, "p-centre": 12,
               "p-right": 4}

# id -> (name, kind, strength, morale, hexes): a dozen named counters, digest §7.1.
NAMED = {
    "r-gerard": ("Gerard", "heavy", 18, 7, ("3109", "3110")),
    "r-fielding": ("Fielding", "heavy", 18, 6, ("3112", "3113")),
    "r-wentworth": ("Wentworth", "heavy", 18, 6, ("3115", "3116")),
    "r-belasyse": ("Belasyse", "heavy", 18, 7, ("3310", "3311")),
    "r-byron-foot": ("Byron", "heavy", 18, 8, ("3314", "3315")),
    "r-byron-horse": ("Byron", "cavalry", 4, 7, ("3308",)),
    "r-rupert": ("Rupert", "cavalry", 3, 8, ("3107",)),
    "r-kings-lg": ("King's LG", "cavalry", 2, 8, ("3105",)),
    "r-ashton": ("Ashton", "cavalry", 2, 7, ("3319",)),
    "p-meldrum-i": ("Meldrum I", "heavy", 18, 7, ("1816", "1817")),
    "p-meldrum-ii": ("Meldrum II", "heavy", 18, 7, ("1813", "1814")),
    "p-c-essex-ii": ("C. Essex II", "heavy", 20, 6, ("1807", "1808")),
    "p-ballard": ("Ballard", "heavy", 14, 7, ("1608", "1609")),
    "p-lord-general": ("Lord General", "heavy", 20, 7, ("1611", "1612")),
    "p-ind-troops": ("Ind. Troops", "cavalry", 3, 6, ("1605",)),
    "p-essex-lg": ("Essex LG", "cavalry", 2, 8, ("1513",)),
    "p-fielding": ("Fielding", "cavalry", 4, 6, ("1920",)),
}

GUNS = {"r-culverins": ("culverin", "3011"), "r-sakers": ("saker", "3012"),
        "p-sakers": ("saker", "1812"), "p-falcons": ("3lb", "1815")}


@pytest.fixture(scope="module")
def sc():
    return load_scenario("edgehill")


# -- the Edgehill file against the book -----------------------------------------------------

def test_edgehill_is_listed_and_loads(sc):
    assert "edgehill" in list_scenarios()
    assert sc.turns == 9 and "3 p.m." in sc.start_time and sc.date == "23 October 1642"
    assert sc.sides[R].army_commander == "charles" and sc.sides[R].senior_wc == "rupert"
    assert sc.sides[P].army_commander == "essex" and sc.sides[P].senior_wc == "balfour"
    assert sc.edges == {R: "east", P: "west"}
    assert sc.sides[R].edge == "east" and sc.sides[P].generic_leader_value == 0
    assert sc.grid.orientation == "flat" and sc.grid.shove == "odd"


def test_order_of_battle_is_the_books(sc):
    got = Counter((u.side, u.wing, u.kind, u.strength,
                   None if u.kind == "artillery" else u.morale, u.hexes) for u in sc.units)
    assert got == Counter(BOOK_OOB)


def test_unit_counts_per_side_and_wing(sc):
    assert Counter(u.wing for u in sc.units) == WING_COUNTS
    assert sum(u.side == R for u in sc.units) == 22
    assert sum(u.side == P for u in sc.units) == 26
    kinds = Counter((u.side, u.kind) for u in sc.units)
    assert kinds[(R, "heavy")] == 5 and kinds[(P, "heavy")] == 6
    assert kinds[(R, "cavalry")] == 6 + 5 and kinds[(P, "cavalry")] == 4 + 4 + 1
    assert kinds[(R, "light")] == 2 + 2 and kinds[(P, "light")] == 6 + 3
    assert kinds[(R, "artillery")] == 2 and kinds[(P, "artillery")] == 2
    assert sum(u.light_kind == "dragoons" for u in sc.units) == 6


@pytest.mark.parametrize("uid", sorted(NAMED))
def test_named_units(sc, uid):
    name, kind, strength, morale, hexes = NAMED[uid]
    u = sc.unit(uid)
    assert (u.name, u.kind, u.strength, u.morale, u.hexes) == (name, kind, strength, morale, hexes)


def test_commanded_shot_stacked_with_parliament_horse(sc):
    shot = [u for u in sc.units if u.side == P and u.kind == "light" and u.wing == "p-left"]
    assert sorted(u.hexes[0] for u in shot) == ["1804", "1805", "1806", "2004", "2103", "2203"]
    assert all(u.light_kind == "commanded_shot" and (u.strength, u.morale) == (1, 4)
               for u in shot)
    for h in ("1804", "1805", "1806"):
        here = [u for u in sc.units if h in u.hexes]
        assert sorted(u.kind for u in here) == ["cavalry", "light"]
        assert len({u.facing for u in here}) == 1          # §8.2: same facing


def test_artillery_classes_and_ranges(sc):
    for uid, (cls, h) in GUNS.items():
        u = sc.unit(uid)
        assert (u.kind, u.gun_class, u.hexes, u.strength) == ("artillery", cls, (h,), 0)
        assert 1 <= u.ricochet_range <= u.max_range <= GUN_CLASSES[cls]
        assert u.morale == 5
    # the book's example counter: morale 5, ricochet 4, max 14 (a Saker on the range table)
    assert (sc.unit("r-sakers").ricochet_range, sc.unit("r-sakers").max_range) == (4, 14)
    assert any("Artillery" in s for s in sc.provenance["herald_completion"])


def test_every_unit_on_the_map_doubles_adjacent_and_facing_across(sc):
    grid = sc.grid
    west, east = vertex_index(grid, "W"), vertex_index(grid, "E")
    for u in sc.units:
        assert all(h in grid for h in u.hexes), u.id
        assert u.facing == (west if u.side == R else east), u.id
        if len(u.hexes) == 2:
            assert u.kind == "heavy"
            assert grid.adjacent(*u.hexes), u.id
            assert u.facing in double_facings(grid, *u.hexes), u.id
        for h in u.hexes:
            assert sc.terrain_at(h) != "river"


def test_setup_stacking_is_legal(sc):
    by_hex: dict[str, list] = {}
    for u in sc.units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    for h, us in by_hex.items():
        if len(us) == 1:
            continue
        kinds = sorted(u.kind for u in us)
        assert len(us) == 2 and len({u.side for u in us}) == 1, h
        assert kinds == ["cavalry", "light"] or kinds.count("artillery") == 1, h


def test_leaders_and_wings(sc):
    leaders = {ld.id: ld for ld in sc.leaders}
    assert len(leaders) == 8
    for side in (R, P):
        assert [ld.id for ld in sc.leaders if ld.side == side and ld.role == "ac"] == \
            [sc.sides[side].army_commander]
    wing_ids = {w.id for w in sc.wings}
    for ld in sc.leaders:
        if ld.role == "wc":
            assert ld.wing in wing_ids
            assert sc.wing(ld.wing).commander == ld.id
        if ld.with_unit:
            unit = sc.unit(ld.with_unit)
            assert unit.side == ld.side
            assert ld.role == "ac" or unit.wing == ld.wing
    assert {w.commander for w in sc.wings} == {"rupert", "astley", "wilmot", "ramsey", "balfour",
                                              "fielding"}
    assert (leaders["rupert"].value, leaders["rupert"].value_source) == (-2, "book")
    assert all(ld.value_source == "herald" for ld in sc.leaders if ld.id != "rupert")
    assert leaders["charles"].special == "king"
    assert leaders["essex"].with_unit == "p-lord-general"      # the book places him there
    assert {ld.id: ld.replacement for ld in sc.leaders if ld.replacement} == {
        "rupert": "Maurice", "astley": "Lisle", "wilmot": "Caernarvon", "balfour": "Stapleton"}
    assert {w.id for w in sc.wings if w.cavalry} == {"r-right", "r-left", "p-left", "p-right"}


def test_historical_orders_victory_and_options(sc):
    assert sc.historical_orders == {"r-right": "charge", "r-centre": "charge",
                                    "r-left": "charge", "p-left": "receive_charge",
                                    "p-centre": "receive_charge", "p-right": "receive_charge"}
    levels = {11: "parliament_decisive", 50: "parliament_decisive",
              10: "parliament_marginal", -9: "parliament_marginal",
              -10: "draw", -29: "draw", -30: "royalist_marginal", -49: "royalist_marginal",
              -50: "royalist_decisive", -200: "royalist_decisive"}
    for diff, level in levels.items():
        assert sc.victory_level(diff) == level, diff
    assert sc.historical_result == "royalist_marginal"
    assert any("50 VP" in n for n in sc.victory_notes)
    assert {r.id for r in sc.optional_rules} == {"royalist_foot_fire",
                                                "royalist_cavalry_one_pistol"}


def test_map_features(sc):
    assert sc.terrain_at("3413") == "village" and sc.terrain_at("1019") == "village"
    assert sc.terrain_at("2512") == "clear"
    # the escarpment behind the Royalists: climbing east is "slope up"
    assert sc.crossing("3414", "3514") == "slope_up"
    assert sc.crossing("3514", "3414") == "slope_down"
    assert sc.crossing("3514", "3614") == "slope_up"
    assert sc.crossing("2020", "2120") == "hedge"
    # the stream is drawn but has no effect (book: Edgehill, Mappa)
    side = sc.hexside("2405", "2505")
    assert side is not None and side.type == "stream" and side.no_effect
    assert sc.crossing("2405", "2505") is None
    assert any("stream" in s.lower() for s in sc.provenance["from_book"])
    assert sc.hex_blocks_los("3505") and sc.hex_blocks_los("3413")       # wood, village
    assert not sc.hex_blocks_los("2614")                                 # ploughed field
    assert sc.hexside_blocks_los("2020", "2120") and sc.hexside_blocks_los("3414", "3514")
    assert not sc.hexside_blocks_los("2405", "2505")
    assert not any(sc.hex_impassable(h) for h in sc.grid)


# -- the opening state ------------------------------------------------------------------------

def test_new_state_on_historical_orders(sc):
    st = new_state(sc, seed=42)
    assert (st.turn, st.phase, st.scenario_id, st.seed) == (1, "initiative", "edgehill", 42)
    assert len(st.units) == 48 and len(st.leaders) == 8 and len(st.wings) == 6
    assert {w.id: w.order for w in st.wings.values()} == sc.historical_orders
    assert all(w.historical_order == w.order for w in st.wings.values())
    assert st.leaders["rupert"].value == -2
    assert st.leaders["essex"].hex in st.units["p-lord-general"].hexes
    assert st.leaders["rupert"].hex == "3107" and st.leaders["rupert"].wing == "r-right"
    assert st.leaders["charles"].special == "king"
    assert st.units["r-gerard"].hexes == ["3109", "3110"]
    assert all(u.pistols == 2 for u in st.units.values())
    assert st.options == {}
    assert TacwState.from_dict(st.to_dict()).state_hash() == st.state_hash()


def test_new_state_by_id_is_deterministic():
    assert new_state("edgehill", 1).state_hash() == new_state("edgehill", 1).state_hash()


def test_optional_rules_in_state(sc):
    st = new_state(sc, 1, options=["royalist_cavalry_one_pistol", "royalist_foot_fire"])
    assert all(u.pistols == 1 for u in st.units.values() if u.side == R and u.kind == "cavalry")
    assert all(u.pistols == 2 for u in st.units.values() if u.side == P and u.kind == "cavalry")
    assert st.options["royalist_cavalry_one_pistol"]["pistols"] == 1
    assert option_modifiers(st, st.units["r-gerard"], "fire_modifier") == \
        [(-1, "optional rule: Royalist foot poorly equipped")]
    assert option_modifiers(st, st.units["p-ballard"], "fire_modifier") == []
    assert option_modifiers(st, st.units["r-rupert"], "fire_modifier") == []
    st2 = new_state(sc, 1, options={"royalist_cavalry_one_pistol": False})
    assert st2.units["r-rupert"].pistols == 2 and st2.options == {}
    with pytest.raises(ScenarioError, match="no optional rule 'nope'"):
        new_state(sc, 1, options=["nope"])


def test_free_orders_override(sc):
    st = new_state(sc, 1, orders={"p-left": "charge"})
    assert st.wings["p-left"].order == "charge"
    assert st.wings["p-left"].historical_order == "receive_charge"
    assert st.wings["p-centre"].order == "receive_charge"
    with pytest.raises(ScenarioError, match="no wing 'x'"):
        new_state(sc, 1, orders={"x": "charge"})
    with pytest.raises(ScenarioError, match="'attack'"):
        new_state(sc, 1, orders={"p-left": "attack"})


# -- the validator (club uploads) ---------------------------------------------------------------

MINI = """
id = "mini"
title = "Mini"
turns = 3

[map]
cols = 10
rows = 10
orientation = "flat"
shove = "odd"
hexsides = [{ hex = "0605", side = "NW", type = "slope" }]

[map.terrain]
wood = ["0101"]

[map.edges]
royalist = "east"
parliament = "west"

[sides.royalist]
name = "R"
army_commander = "rac"
senior_wc = "rwc"

[sides.parliament]
name = "P"
army_commander = "pac"
senior_wc = "pwc"

[[leaders]]
id = "rac"
side = "royalist"
name = "R AC"
role = "ac"
value = 0
with_unit = "r-foot"

[[leaders]]
id = "rwc"
side = "royalist"
name = "R WC"
role = "wc"
wing = "rw"
value = -1
with_unit = "r-horse"

[[leaders]]
id = "pac"
side = "parliament"
name = "P AC"
role = "ac"
value = 0
hex = "0205"

[[leaders]]
id = "pwc"
side = "parliament"
name = "P WC"
role = "wc"
wing = "pw"
value = 0
with_unit = "p-foot"

[[wings]]
id = "rw"
side = "royalist"
name = "R wing"
commander = "rwc"

[[wings]]
id = "pw"
side = "parliament"
name = "P wing"
commander = "pwc"

[[units]]
id = "r-foot"
side = "royalist"
wing = "rw"
kind = "heavy"
name = "R Foot"
strength = 18
morale = 7
hexes = ["0805", "0806"]
facing = "W"

[[units]]
id = "r-horse"
side = "royalist"
wing = "rw"
kind = "cavalry"
name = "R Horse"
strength = 3
morale = 7
hexes = ["0803"]
facing = "W"

[[units]]
id = "r-gun"
side = "royalist"
wing = "rw"
kind = "artillery"
name = "R Gun"
gun_class = "saker"
morale = 5
ricochet_range = 4
max_range = 14
hexes = ["0805"]
facing = "W"

[[units]]
id = "p-foot"
side = "parliament"
wing = "pw"
kind = "heavy"
name = "P Foot"
strength = 20
morale = 6
hexes = ["0305", "0306"]
facing = "E"

[[units]]
id = "p-horse"
side = "parliament"
wing = "pw"
kind = "cavalry"
name = "P Horse"
strength = 4
morale = 6
hexes = ["0303"]
facing = "E"

[[units]]
id = "p-shot"
side = "parliament"
wing = "pw"
kind = "light"
name = "P Shot"
strength = 1
morale = 4
hexes = ["0303"]
facing = "E"

[orders]
historical = { rw = "charge", pw = "receive_charge" }

[victory]
bands = [{ level = "parliament_decisive", min = 1 }, { level = "royalist_decisive", max = 0 }]

[provenance]
from_book = []
herald_completion = ["all of it"]
"""


def test_mini_is_valid():
    sc = parse_scenario(MINI, "mini.toml")
    assert [u.id for u in sc.units] == ["r-foot", "r-horse", "r-gun", "p-foot", "p-horse",
                                        "p-shot"]
    assert sc.crossing("0505", "0605") == "slope_up"   # 0605's NW neighbour is 0505
    assert sc.crossing("0605", "0505") == "slope_down"
    st = new_state(sc, 3)
    assert st.leaders["pac"].hex == "0205" and st.leaders["rac"].hex == "0805"


def test_generated_ids():
    text = MINI.replace('id = "p-horse"\n', "").replace('id = "p-shot"\n', "")
    sc = parse_scenario(text, "mini.toml")
    assert {"p-p-horse", "p-p-shot"} <= {u.id for u in sc.units}
    text = text.replace('name = "P Shot"', 'name = "P Horse"')
    assert {"p-p-horse-1", "p-p-horse-2"} <= {u.id for u in parse_scenario(text).units}


BAD = [
    # (what, old, new, expected message fragment)
    ("unit off the map", 'hexes = ["0803"]', 'hexes = ["1103"]',
     r"units\[1\] \(R Horse\)\.hexes: '1103' is not a hex of the 10x10 map"),
    ("hex written as a number", 'hexes = ["0803"]', 'hexes = [803]',
     r"\(R Horse\)\.hexes: write hex ids as quoted strings, \"0803\""),
    ("double on non-adjacent hexes", 'hexes = ["0805", "0806"]', 'hexes = ["0805", "0807"]',
     r"units\[0\] \(R Foot\)\.hexes: a double unit needs two ADJACENT hexes, 0805 and 0807"),
    ("three units in one hex", 'hexes = ["0305", "0306"]', 'hexes = ["0303", "0304"]',
     r"hex 0303 holds .*stacking allows one combat unit per hex"),
    ("two HI in one hex", [('kind = "cavalry"\nname = "R Horse"',
                            'kind = "heavy"\nname = "R Horse"'),
                           ('hexes = ["0803"]', 'hexes = ["0806"]')],
     None, r"hex 0806 holds R Foot \(r-foot\) and R Horse \(r-horse\): stacking allows one "),
    ("cavalry stacked with heavy infantry", 'hexes = ["0803"]\nfacing = "W"',
     'hexes = ["0806"]\nfacing = "W"', r"hex 0806 holds R Foot \(r-foot\) and R Horse"),
    ("unknown wing", 'wing = "pw"\nkind = "cavalry"', 'wing = "pz"\nkind = "cavalry"',
     r"units\[4\] \(P Horse\)\.wing: no wing 'pz'"),
    ("bad facing for a double", 'hexes = ["0305", "0306"]\nfacing = "E"',
     'hexes = ["0305", "0306"]\nfacing = "NE"',
     r"units\[3\] \(P Foot\)\.facing: a double unit on 0305 & 0306 faces across its line "
     r"\(E or W\), not NE"),
    ("facing that is not a vertex", 'hexes = ["0303"]\nfacing = "E"\n\n[[units]]\nid = "p-shot"',
     'hexes = ["0303"]\nfacing = "N"\n\n[[units]]\nid = "p-shot"',
     r"\.facing: 'N' is not a vertex"),
    ("TOML syntax error", 'title = "Mini"', 'title = "Mini', r"mini\.toml: TOML syntax"),
    ("strength above 20", "strength = 18", "strength = 21", r"\.strength: 21 is not 1\.\.20"),
    ("morale below 4", "morale = 4", "morale = 3", r"\(P Shot\)\.morale: 3 is not 4\.\.8"),
    ("single-hex cavalry as a double", 'hexes = ["0803"]', 'hexes = ["0803", "0804"]',
     r"only heavy infantry may be a double"),
    ("artillery without a class", 'gun_class = "saker"\n', "",
     r"\(R Gun\)\.gun_class: must be one of"),
    ("artillery out of its class's range", "max_range = 14", "max_range = 15",
     r"\(R Gun\)\.max_range: 15 is not 1\.\.14"),
    ("cavalry and light infantry facing apart", 'name = "P Shot"\nstrength = 1\nmorale = 4\n'
     'hexes = ["0303"]\nfacing = "E"', 'name = "P Shot"\nstrength = 1\nmorale = 4\n'
     'hexes = ["0303"]\nfacing = "SE"', r"same facing \(§8\.2\)"),
    ("wing commanded by an army commander", 'role = "wc"\nwing = "pw"', 'role = "ac"',
     r"wings \(pw\)\.commander: 'pwc' must be a parliament wing commander"),
    ("two army commanders", '[[wings]]\nid = "rw"',
     '[[leaders]]\nid = "rac2"\nside = "royalist"\nname = "R AC 2"\nrole = "ac"\nvalue = 0\n'
     'hex = "0909"\n\n[[wings]]\nid = "rw"',
     r"royalist needs exactly one army commander \(role \"ac\"\), has 2"),
    ("leader on an enemy unit", 'hex = "0205"', 'hex = "0803"', r"0803 holds the enemy unit"),
    ("wing commander without a wing", 'wing = "pw"\nvalue = 0', 'value = 0',
     r"leaders\[3\] \(pwc\)\.wing: a wing commander needs an existing wing"),
    ("bad leader value", "value = -1", "value = -3",
     r"leaders\[1\] \(rwc\)\.value: command value must be 0, -1 or -2"),
    ("leader with an enemy unit", 'with_unit = "p-foot"', 'with_unit = "r-foot"',
     r"with_unit: 'r-foot' is an enemy unit"),
    ("bad order", 'pw = "receive_charge"', 'pw = "hold"',
     r"orders\.historical\.pw: 'hold' is not one of"),
    ("order for an unknown wing", 'pw = "receive_charge"', 'px = "receive_charge"',
     r"orders\.historical\.px: no wing 'px'"),
    ("typo in a unit key", 'morale = 6\nhexes = ["0305"', 'moral = 6\nhexes = ["0305"',
     r"unknown key\(s\) moral"),
    ("unknown terrain", 'wood = ["0101"]', 'forest = ["0101"]', r"unknown terrain 'forest'"),
    ("hexside on the map edge", 'hex = "0605", side = "NW"', 'hex = "0101", side = "N"',
     r"hexsides\[0\]\.side: the N side of 0101 is the map edge"),
    ("bad hexside type", 'type = "slope"', 'type = "cliff"', r"hexsides\[0\]\.type"),
    ("pointy map", 'orientation = "flat"', 'orientation = "pointy"', r"orientation = \"flat\""),
    ("same friendly edge", 'parliament = "west"', 'parliament = "east"',
     r"different friendly map edges"),
    ("unit in a river", 'wood = ["0101"]', 'river = ["0803"]', r"0803 is river"),
    ("duplicate unit id", 'id = "p-horse"', 'id = "p-foot"', r"'p-foot' is used twice"),
    ("missing provenance", '[provenance]\nfrom_book = []\nherald_completion = ["all of it"]\n',
     "", r"missing 'provenance'"),
    ("bad generic leader value", 'senior_wc = "pwc"', 'senior_wc = "pwc"\ngeneric_leader_value = 1',
     r"sides\.parliament\.generic_leader_value: must be 0, -1 or -2"),
    ("bad victory level", 'level = "parliament_decisive"', 'level = "win"',
     r"victory\.bands\[0\]\.level"),
]


@pytest.mark.parametrize("what,old,new,message", BAD, ids=[b[0] for b in BAD])
def test_malformed_scenarios_are_rejected(what, old, new, message):
    edits = old if isinstance(old, list) else [(old, new)]
    text = MINI
    for a, b in edits:
        assert a in text, what
        text = text.replace(a, b, 1)
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "mini.toml")


def test_size_limit():
    with pytest.raises(ScenarioError, match="larger than"):
        parse_scenario(MINI + "#" * 200_000, "big.toml")


def test_unknown_scenario():
    with pytest.raises(ScenarioError, match="no TACW scenario 'nowhere'"):
        load_scenario("nowhere")


def test_r19_a_wing_the_scenario_does_not_mark_is_cavalry_when_its_cavalry_outnumbers_its_foot():
    """§4.3.3, §4.4.4, §5.7.3 "cavalry wing" (digest R19): the scenario's word, else the count."""
    from engine.tacw.scenario.schema import parse_scenario as parse
    from .tacw_helpers import scenario_text

    def wing_flags(r_cavalry, units):
        text = scenario_text(units, wings=[("r-a", "royalist", "r-wc", r_cavalry),
                                           ("p-a", "parliament", "p-wc", None)])
        return {w.id: w.cavalry for w in parse(text, "t").wings}
    horse = [("r1", "royalist", "r-a", "cavalry", ["0505"], "W"), ("r2", "royalist", "r-a", "heavy", ["0507"], "W"),
             ("p1", "parliament", "p-a", "cavalry", ["0205"], "E"), ("p2", "parliament", "p-a", "cavalry", ["0207"], "E"),
             ("p3", "parliament", "p-a", "heavy", ["0209"], "E"), ("p4", "parliament", "p-a", "light", ["0211"], "E")]
    assert wing_flags(None, horse) == {"r-a": False, "p-a": True}     # 1 v 1 is not a majority; 2 v 1 is
    assert wing_flags(True, horse)["r-a"] is True                     # the scenario's word stands
