"""The Battle Cry scenario files: book values, army limits and sane layouts.

The book values below are hard-coded from the digest's §7 table (rules/digests/battle-cry.md),
which follows the Italian NOTES boxes; they are deliberately not read from the files under test.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine.battlecry import tables
from engine.battlecry.scenario import (
    SCENARIO_DIR, ScenarioError, board_grid, list_scenarios, load_scenario, parse_scenario,
)

# id -> (number, union commander surname, union cards, confederate surname, confederate cards,
#        first player)   -- digest §7 table
BOOK = {
    "first-bull-run": (1, "McDowell", 4, "Beauregard", 5, "union"),
    "shiloh": (4, "Grant", 4, "Johnston", 4, "union"),
    "antietam": (7, "McClellan", 3, "Lee", 5, "union"),
    "new-market": (14, "Sigel", 4, "Breckinridge", 6, "confederate"),
}
IDS = list(BOOK)

# BC §2.1: per army.
ARMY_LIMITS = {"infantry": 10, "cavalry": 3, "artillery": 3, "general": 3}

# supplements.md §2.6 (BC150 set-ups): (infantry, cavalry, artillery, generals).
BC150_COUNTS = {
    "first-bull-run": {"union": (9, 1, 1, 1), "confederate": (7, 2, 1, 2)},
    "shiloh": {"union": (8, 0, 3, 2), "confederate": (9, 0, 3, 2)},
}

# Pieces deliberately placed more than two rows from their own edge, where history demands
# (never past the middle row, at most three per side).
FORWARD_EXCEPTIONS = {
    "first-bull-run": set(),
    "shiloh": {"0304", "0604"},                     # Sherman at Shiloh Church, Prentiss
    "antietam": {"0704", "1104",                    # Richardson; Sturgis at Burnside's bridge
                 "0706", "0806", "1106"},           # the sunken road; Toombs over the bridge
    "new-market": set(),
}


def _pieces(sc, side, kind=None):
    return [u for u in sc.units if u.side == side and (kind is None or u.kind == kind)]


def _edges(hex_id):
    grid = board_grid()
    col, row = grid.col_row(hex_id)
    out = set()
    if row == 0:
        out.add("north")
    if row == tables.BOARD_ROWS - 1:
        out.add("south")
    if col == 0:
        out.add("west")
    if col == grid.row_length(row) - 1:
        out.add("east")
    return out


def test_all_four_scenarios_are_listed():
    assert set(IDS) <= set(list_scenarios())


@pytest.mark.parametrize("sid", IDS)
def test_loads_with_matching_id(sid):
    sc = load_scenario(sid)
    assert sc.id == sid
    assert (SCENARIO_DIR / f"{sid}.toml").exists()
    assert sc.number == BOOK[sid][0]
    assert sc.title and sc.date and sc.description.strip()
    assert sc.flags_to_win == 6


@pytest.mark.parametrize("sid", IDS)
def test_book_values(sid):
    _, u_name, u_cards, c_name, c_cards, first = BOOK[sid]
    sc = load_scenario(sid)
    assert u_name.lower() in sc.sides["union"].commander.lower()
    assert c_name.lower() in sc.sides["confederate"].commander.lower()
    assert sc.sides["union"].cards == u_cards
    assert sc.sides["confederate"].cards == c_cards
    assert sc.first_player == first


@pytest.mark.parametrize("sid", IDS)
def test_provenance(sid):
    prov = load_scenario(sid).provenance
    assert prov.get("from_book") and prov.get("herald_completion")
    assert "printed map" in prov.get("note", "")


@pytest.mark.parametrize("sid", IDS)
def test_army_limits(sid):
    sc = load_scenario(sid)
    for side in tables.SIDES:
        counts = Counter(u.kind for u in _pieces(sc, side))
        for kind, limit in ARMY_LIMITS.items():
            assert counts[kind] <= limit, f"{side} has {counts[kind]} {kind}"
        units = sum(counts[k] for k in tables.UNIT_KINDS)
        assert 10 <= units <= 14, f"{side} fields {units} units"
        assert counts["general"] >= 1
        for u in _pieces(sc, side, "general"):
            assert u.name, "Generals carry historical names"


@pytest.mark.parametrize("sid", sorted(BC150_COUNTS))
def test_bc150_counts_where_known(sid):
    sc = load_scenario(sid)
    for side, expected in BC150_COUNTS[sid].items():
        got = tuple(len(_pieces(sc, side, k)) for k in ("infantry", "cavalry", "artillery", "general"))
        assert got == expected


@pytest.mark.parametrize("sid", IDS)
def test_home_edges_opposite(sid):
    sc = load_scenario(sid)
    assert {sc.sides[s].home_edge for s in tables.SIDES} == {"north", "south"}


@pytest.mark.parametrize("sid", IDS)
def test_units_on_legal_hexes(sid):
    sc = load_scenario(sid)
    grid = board_grid()
    for u in sc.units:
        assert u.hex in grid
        assert sc.terrain.get(u.hex) != "rough", f"{u.id} on Rough {u.hex}"
        assert 1 <= u.figures <= tables.FULL_FIGURES[u.kind]
    per_hex = Counter((u.hex, u.kind == "general") for u in sc.units)
    assert max(per_hex.values()) == 1, "one unit and one General per hex"


@pytest.mark.parametrize("sid", IDS)
def test_generals_only_with_own_units(sid):
    sc = load_scenario(sid)
    for g in (u for u in sc.units if u.kind == "general"):
        others = [u for u in sc.units if u.hex == g.hex and u is not g]
        assert len(others) <= 1
        for o in others:
            assert o.side == g.side and o.kind != "general"


@pytest.mark.parametrize("sid", IDS)
def test_sides_deployed_near_own_edge(sid):
    sc = load_scenario(sid)
    grid = board_grid()
    exceptions = FORWARD_EXCEPTIONS[sid]
    used = Counter()
    for u in sc.units:
        row = grid.col_row(u.hex)[1]
        depth = abs(row - sc.home_row(u.side))
        assert depth <= 4, f"{u.id} at {u.hex} is past the middle row"
        if depth > 2:
            assert u.hex in exceptions, f"{u.id} ({u.side}) at {u.hex} is not near its own edge"
            if u.kind != "general":
                used[u.side] += 1
    for side in tables.SIDES:
        assert used[side] <= 3
    # every listed exception is really used, so the list stays honest
    assert exceptions <= {u.hex for u in sc.units}


@pytest.mark.parametrize("sid", IDS)
def test_terrain(sid):
    sc = load_scenario(sid)
    assert 10 <= len(sc.terrain) <= 25
    assert set(sc.terrain.values()) <= set(tables.TERRAIN) - {"clear", "devils_den"}
    water = {h for h, t in sc.terrain.items() if t in ("river", "bridge")}
    if water:
        # a river is one connected line reaching two board edges
        grid = board_grid()
        start = next(iter(water))
        seen, todo = {start}, [start]
        while todo:
            for n in grid.neighbors(todo.pop()):
                if n in water and n not in seen:
                    seen.add(n)
                    todo.append(n)
        assert seen == water, "river hexes are not connected"
        edges = set().union(*(_edges(h) for h in water))
        assert len(edges) >= 2
    for h, front in sc.fences.items():
        assert front and sc.terrain.get(h) not in ("river", "rough")


def test_shiloh_objectives():
    sc = load_scenario("shiloh")
    objectives = sc.special["objective_hexes"]
    assert sc.special["objective_side"] == "confederate"
    assert objectives and len(set(objectives)) == len(objectives)
    for h in objectives:
        assert h in board_grid()
        assert sc.terrain.get(h) not in ("rough", "river")
    # near the Union edge (Pittsburg Landing), out of the Confederate deployment
    for h in objectives:
        assert abs(board_grid().col_row(h)[1] - sc.home_row("union")) <= 2
    assert not any(u.hex in objectives and u.side == "confederate" for u in sc.units)


def test_antietam_road_creek_and_bridge():
    sc = load_scenario("antietam")
    grid = board_grid()
    road = sc.special["road_hexes"]
    assert len(road) == 3 and len(set(road)) == 3
    for h in road:
        assert h in sc.fences, f"road hex {h} carries no fence"
        assert sc.terrain.get(h) is None
    assert sc.special["road_fence_dice"] == -2
    assert sc.special["river_impassable"] is True
    assert sc.special["retreat_across_river_eliminates"] is True
    bridges = [h for h, t in sc.terrain.items() if t == "bridge"]
    assert len(bridges) == 1, "Antietam Creek is crossed only at the bridge"
    river_next = [n for n in grid.neighbors(bridges[0]) if sc.terrain.get(n) == "river"]
    assert len(river_next) >= 2
    # the road's fences face the Union (north) edge
    assert sc.sides["union"].home_edge == "north"
    for h in road:
        assert set(sc.fences[h]) == {"NW", "NE"}


def test_new_market_horse_artillery_and_vmi():
    sc = load_scenario("new-market")
    c_art = _pieces(sc, "confederate", "artillery")
    assert c_art and all(u.special == "horse_artillery" for u in c_art)
    assert not any(u.special for u in _pieces(sc, "union"))
    vmi = [u for u in sc.units if u.special == "vmi"]
    assert len(vmi) == 1
    assert vmi[0].side == "confederate" and vmi[0].kind == "infantry"
    assert vmi[0].figures == 3 and vmi[0].name == "VMI Cadets"


@pytest.mark.parametrize("sid", ["first-bull-run", "shiloh", "antietam"])
def test_no_scenario_specials_elsewhere(sid):
    assert not any(u.special for u in load_scenario(sid).units)


# ---- the validator on malformed uploads ---------------------------------------------------

def _text(sid="shiloh"):
    return (SCENARIO_DIR / f"{sid}.toml").read_text(encoding="utf-8")


def test_malformed_hex_is_named():
    bad = _text().replace('hex = "1002"', 'hex = "1402"', 1)
    assert bad != _text()
    with pytest.raises(ScenarioError, match=r"units\[\d+\]\.hex: '1402' is not a hex"):
        parse_scenario(bad, "bad.toml")


def test_short_row_hex_is_rejected():
    # column 13 exists on odd rows only
    bad = _text().replace('hex = "1002"', 'hex = "1302"', 1)
    with pytest.raises(ScenarioError, match="'1302' is not a hex"):
        parse_scenario(bad, "bad.toml")


def test_unknown_terrain_is_named():
    bad = _text().replace("orchard = [", "peach_orchard = [", 1)
    with pytest.raises(ScenarioError, match="unknown terrain 'peach_orchard'"):
        parse_scenario(bad, "bad.toml")


def test_toml_syntax_error_is_named():
    bad = _text().replace('first_player = "union"', 'first_player = "union', 1)
    with pytest.raises(ScenarioError, match="bad.toml: TOML syntax"):
        parse_scenario(bad, "bad.toml")


def test_unit_on_rough_is_rejected():
    bad = _text().replace('hex = "1003"', 'hex = "1103"', 1)   # Dill Branch ravine
    with pytest.raises(ScenarioError, match="1103 is Rough"):
        parse_scenario(bad, "bad.toml")


def test_general_with_enemy_unit_is_rejected():
    # move Grant onto a Confederate brigade
    bad = _text().replace('hex = "0703"\nname = "Grant"', 'hex = "0707"\nname = "Grant"', 1)
    assert bad != _text()
    with pytest.raises(ScenarioError, match="0707 holds pieces of both sides"):
        parse_scenario(bad, "bad.toml")
