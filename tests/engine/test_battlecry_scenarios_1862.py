"""Battle Cry scenarios 2, 3, 5, 6 and 9 (Pea Ridge, Kernstown, Gaines' Mill, Brawner's Farm,
Murfreesboro): book values, legal and playable set-ups, the validator refusing broken copies, and
a scripted opening of each battle played through the command language with fixed dice.

The book values are hard-coded from the digest's §7 table (rules/digests/battle-cry.md), which
follows the Italian NOTES boxes (battle-cry.it.txt pp. 13-17) and the identities of
supplements.md §2.5; they are deliberately not read from the files under test.
"""
from __future__ import annotations

import re
from collections import Counter, deque

import pytest

from bot.cli import main as cli_main
from engine.battlecry import tables
from engine.battlecry.ruleset import BATTLECRY
from engine.battlecry.scenario import (
    SCENARIO_DIR, ScenarioError, board_grid, list_scenarios, load_scenario, parse_scenario,
)
from engine.core.errors import Illegal
from engine.core.game import Game
from tests.engine.bc_helpers import run

# id -> (number, date, union commander surname, union cards, confederate commander surname,
#        confederate cards, first player, NOTES page)          -- digest §7 table
BOOK = {
    "pea-ridge": (2, "1862-03-07", "Curtis", 5, "Van Dorn", 5, "confederate", 13),
    "kernstown": (3, "1862-03-23", "Shields", 5, "Jackson", 5, "confederate", 14),
    "gaines-mill": (5, "1862-06-27", "McClellan", 4, "Lee", 5, "confederate", 15),
    "brawners-farm": (6, "1862-08-28", "Pope", 5, "Jackson", 5, "confederate", 15),
    "murfreesboro": (9, "1862-12-31", "Rosecrans", 4, "Bragg", 4, "confederate", 17),
}
IDS = list(BOOK)

# BC §2.1: per army.
ARMY_LIMITS = {"infantry": 10, "cavalry": 3, "artillery": 3, "general": 3}

# The side that brought more men to the field (history; the files keep the proportion).
LARGER = {"pea-ridge": "confederate", "kernstown": "union", "gaines-mill": "confederate",
          "brawners-farm": "confederate", "murfreesboro": "union"}

# Pieces deliberately placed more than two rows from their own edge, where history demands
# (never past the middle row, at most three per side).
FORWARD_EXCEPTIONS = {
    "pea-ridge": set(),
    "kernstown": set(),
    "gaines-mill": {"0406", "0606", "0806"},        # Porter's line on the plateau
    "brawners-farm": set(),
    "murfreesboro": {"1004"},                       # Hazen in the Round Forest
}

# The historical features each layout is built around (named in its description or note).
FEATURES = {
    "pea-ridge": ("Elkhorn Tavern", "Pea Ridge", "Big Mountain", "Cross Timber Hollow", "Leetown"),
    "kernstown": ("Sandy Ridge", "stone wall", "Pritchard's Hill", "Kernstown"),
    "gaines-mill": ("Boatswain's Swamp", "plateau", "Watt house", "Chickahominy"),
    "brawners-farm": ("unfinished railroad", "woods", "farm", "orchard", "Stony Ridge"),
    "murfreesboro": ("cedars", "Round Forest", "Stones River", "Nashville Pike"),
}


def _pieces(sc, side, kind=None):
    return [u for u in sc.units if u.side == side and (kind is None or u.kind == kind)]


def _units(sc, side):
    return [u for u in sc.units if u.side == side and u.kind != "general"]


def _row(hex_id):
    return board_grid().col_row(hex_id)[1]


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


def _connected(hexes):
    grid = board_grid()
    hexes = set(hexes)
    start = next(iter(hexes))
    seen, todo = {start}, [start]
    while todo:
        for n in grid.neighbors(todo.pop()):
            if n in hexes and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == hexes


def _steps(sc, start, goals, enemy):
    """Fewest one-hex moves from `start` to any hex of `goals`, never through Rough (BC §2.3)
    nor through the `enemy` hexes; infantry moves one hex a turn (BC §4.2)."""
    grid = board_grid()
    blocked = {h for h, t in sc.terrain.items() if t == "rough"} | set(enemy)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here in goals:
            return dist[here]
        for n in grid.neighbors(here):
            if n not in dist and n not in blocked:
                dist[n] = dist[here] + 1
                queue.append(n)
    return None


# ---- the files: listed, book values, provenance -------------------------------------------

def test_listed_for_the_bot_and_the_cli(capsys):
    assert set(IDS) <= set(list_scenarios())
    menu = dict(BATTLECRY.scenarios())   # what /game new autocompletes and the CLI lists
    for sid in IDS:
        assert menu[sid] == f"{BOOK[sid][0]:02d} {load_scenario(sid).title}"
    assert cli_main(["scenarios"]) == 0
    out = capsys.readouterr().out
    for sid in IDS:
        assert re.search(rf"^battlecry\s+{sid}\s+{BOOK[sid][0]:02d} ", out, re.M), sid


@pytest.mark.parametrize("sid", IDS)
def test_loads_with_the_book_values(sid):
    number, date, u_name, u_cards, c_name, c_cards, first, _ = BOOK[sid]
    sc = load_scenario(sid)
    assert sc.id == sid and (SCENARIO_DIR / f"{sid}.toml").exists()
    assert (sc.number, sc.date) == (number, date)
    assert sc.title and sc.description.strip()
    assert u_name.lower() in sc.sides["union"].commander.lower()
    assert c_name.lower() in sc.sides["confederate"].commander.lower()
    assert (sc.sides["union"].cards, sc.sides["confederate"].cards) == (u_cards, c_cards)
    assert sc.first_player == first
    assert sc.flags_to_win == tables.FLAGS_TO_WIN == 6          # BC §6: no other condition
    # No special rules in these five NOTES boxes: no [special] table, no special units.
    assert sc.special == {}
    assert not any(u.special for u in sc.units)
    # and a new game deals the book's hands and gives the book's first player the turn
    g = Game.new("battlecry", sid, 3)
    assert len(g.state.hands["union"]) == u_cards
    assert len(g.state.hands["confederate"]) == c_cards
    assert g.state.active == first and g.to_act == first


@pytest.mark.parametrize("sid", IDS)
def test_provenance_separates_book_from_herald(sid):
    number, _, u_name, u_cards, c_name, c_cards, first, page = BOOK[sid]
    prov = load_scenario(sid).provenance
    book = " | ".join(prov["from_book"])
    for word in (u_name, c_name, f"Union {u_cards}", f"Confederate {c_cards}",
                 f"first player ({first.title()})", "no special rules", "flags to win (6"):
        assert word in book, word
    completion = " | ".join(prov["herald_completion"])
    for word in ("terrain layout", "unit placement", "unit counts", "home edges", "names"):
        assert word in completion, word
    note = prov["note"]
    assert "printed map" in note and f"battle-cry.it.txt, p. {page})" in note
    assert "supplements.md §2.6" in note                      # the BC150 counts, looked for
    text = load_scenario(sid).description + note
    for feature in FEATURES[sid]:
        assert feature in text, feature


# ---- the armies -------------------------------------------------------------------------------

@pytest.mark.parametrize("sid", IDS)
def test_army_sizes_within_the_limits_and_in_proportion(sid):
    sc = load_scenario(sid)
    sizes = {}
    for side in tables.SIDES:
        counts = Counter(u.kind for u in _pieces(sc, side))
        for kind, limit in ARMY_LIMITS.items():
            assert counts[kind] <= limit, f"{side} has {counts[kind]} {kind} (BC §2.1)"
        sizes[side] = sum(counts[k] for k in tables.UNIT_KINDS)
        assert 10 <= sizes[side] <= 14, f"{side} fields {sizes[side]} units ('about 12')"
        assert 1 <= counts["general"] <= 3
        assert counts["infantry"] >= sizes[side] // 2, "infantry armies"
        for g in _pieces(sc, side, "general"):
            assert g.name, "Generals carry historical names"
            # every General starts attached to one of its own units (BC §4.3), never alone
            with_it = [u for u in sc.units if u.hex == g.hex and u is not g]
            assert len(with_it) == 1 and with_it[0].side == side and with_it[0].kind != "general"
    larger = LARGER[sid]
    smaller = "union" if larger == "confederate" else "confederate"
    assert sizes[larger] > sizes[smaller]
    assert sizes[larger] <= sizes[smaller] + 3, "outnumbered, not swamped"


@pytest.mark.parametrize("sid", IDS)
def test_every_unit_on_a_legal_hex(sid):
    sc = load_scenario(sid)
    grid = board_grid()
    for u in sc.units:
        assert u.hex in grid, f"{u.id} off the 13x9 board"
        assert not sc.terrain_at(u.hex).impassable, f"{u.id} on Rough {u.hex} (BC §2.3)"
        assert u.figures == tables.FULL_FIGURES[u.kind], "no special rule starts a unit short"
    per_hex = Counter((u.hex, u.kind == "general") for u in sc.units)
    assert max(per_hex.values()) == 1, "one unit and one General per hex (BC §2.1)"
    for h in {u.hex for u in sc.units}:
        assert len({u.side for u in sc.units if u.hex == h}) == 1


@pytest.mark.parametrize("sid", IDS)
def test_no_unit_starts_next_to_an_enemy_and_both_can_close(sid):
    sc = load_scenario(sid)
    grid = board_grid()
    gap = min(grid.distance(a.hex, b.hex) for a in sc.units for b in sc.units
              if a.side == "union" and b.side == "confederate")
    assert 3 <= gap <= 4, f"nearest enemies {gap} hexes apart"
    # Every non-Rough hex is reachable from every other: no unit is walled in.
    assert _connected([h for h in grid if not sc.terrain_at(h).impassable])
    # Each side's infantry can come next to an enemy's start hex within three moves.
    for side in tables.SIDES:
        enemy = {u.hex for u in _units(sc, "confederate" if side == "union" else "union")}
        goals = {n for h in enemy for n in grid.neighbors(h)} - enemy
        best = min(_steps(sc, u.hex, goals, enemy) for u in _pieces(sc, side, "infantry"))
        assert best <= 3, f"{side} needs {best} moves to close"


@pytest.mark.parametrize("sid", IDS)
def test_sides_deployed_at_their_own_edges(sid):
    sc = load_scenario(sid)
    assert {sc.sides[s].home_edge for s in tables.SIDES} == {"north", "south"}
    used = Counter()
    for u in sc.units:
        depth = abs(_row(u.hex) - sc.home_row(u.side))
        assert depth <= 4, f"{u.id} at {u.hex} is past the middle row"
        if depth > 2:
            assert u.hex in FORWARD_EXCEPTIONS[sid], f"{u.id} ({u.side}) at {u.hex}"
            if u.kind != "general":
                used[u.side] += 1
    assert max(used.values(), default=0) <= 3
    assert FORWARD_EXCEPTIONS[sid] <= {u.hex for u in sc.units}, "the exception list stays honest"
    # every section holds units of both sides, so every section card can be used from the start
    # (Murfreesboro's Confederate right is Breckinridge alone, as it was), and no side piles
    # more than half its units into one section
    for side in tables.SIDES:
        seen = Counter(s for u in _units(sc, side) for s in BATTLECRY.sections_of(sc, side, u.hex))
        assert all(seen[s] >= 1 for s in ("left", "centre", "right")), (side, seen)
        assert max(seen.values()) <= len(_units(sc, side)) // 2 + 1, (side, seen)


# ---- the terrain --------------------------------------------------------------------------

@pytest.mark.parametrize("sid", IDS)
def test_terrain(sid):
    sc = load_scenario(sid)
    assert 10 <= len(sc.terrain) <= 25
    assert set(sc.terrain.values()) <= set(tables.TERRAIN) - {"clear", "devils_den"}
    water = {h for h, t in sc.terrain.items() if t in ("river", "bridge")}
    if water:
        assert _connected(water), "a river is one connected line"
        assert len(set().union(*(_edges(h) for h in water))) >= 2, "reaching two board edges"
    for h, front in sc.fences.items():
        assert front and h not in sc.terrain, "Fence tiles stand on clear hexes"


def _fences_face_the_union(sc):
    """The Fence fronts point at the Union edge (where the attackers came from)."""
    toward = {"NW", "NE"} if sc.sides["union"].home_edge == "north" else {"SW", "SE"}
    return all(set(front) == toward for front in sc.fences.values())


def test_kernstown_stone_wall():
    sc = load_scenario("kernstown")
    wall = sorted(sc.fences)
    assert len(wall) == 2 and _connected(wall)
    assert _fences_face_the_union(sc) and sc.sides["union"].home_edge == "north"
    assert {_row(h) for h in wall} == {4}, "on the middle row, between the armies"
    assert not any(u.hex in wall for u in sc.units), "it starts empty: a race"
    # on Sandy Ridge, the west of the board, beside its hills
    grid = board_grid()
    assert all(grid.col_row(h)[0] <= 4 for h in wall)
    ridge = [h for h, t in sc.terrain.items() if t == "hill" and grid.col_row(h)[0] <= 2]
    assert ridge and min(grid.distance(h, w) for h in ridge for w in wall) == 1


def test_brawners_farm_railroad():
    sc = load_scenario("brawners-farm")
    line = sorted(sc.fences)
    assert len(line) == 3 and _connected(line) and {_row(h) for h in line} == {2}
    assert _fences_face_the_union(sc) and sc.sides["confederate"].home_edge == "north"
    held = [u for u in _units(sc, "confederate") if u.hex in line]
    assert len(held) == 3, "Jackson's centre lies along the railroad"
    # the farmhouse and its orchard stand between the armies, on the middle row
    farm = [h for h, t in sc.terrain.items() if t in ("building", "orchard") and _row(h) == 4]
    assert sorted(sc.terrain[h] for h in farm) == ["building", "orchard"]


def test_gaines_mill_swamp_in_front_of_the_plateau():
    sc = load_scenario("gaines-mill")
    grid = board_grid()
    swamp = {h for h, t in sc.terrain.items() if t == "river"}
    assert not any(t == "bridge" for t in sc.terrain.values())
    # each plateau hex of Porter's front line overlooks the swamp and is held
    for h in FORWARD_EXCEPTIONS["gaines-mill"]:
        assert sc.terrain[h] == "hill"
        assert any(n in swamp for n in grid.neighbors(h))
        assert any(u.hex == h and u.side == "union" for u in sc.units)
    # every Confederate must cross it to reach the plateau: no Confederate starts south of it
    for u in _pieces(sc, "confederate"):
        assert _row(u.hex) < min(_row(h) for h in swamp)


def test_murfreesboro_river_and_round_forest():
    sc = load_scenario("murfreesboro")
    grid = board_grid()
    river = [h for h, t in sc.terrain.items() if t == "river"]
    assert len(river) == tables.BOARD_ROWS
    assert all("east" in _edges(h) for h in river), "Stones River runs down the east edge"
    hazen = next(u for u in sc.units if u.name == "Hazen's brigade")
    assert sc.terrain[hazen.hex] == "woods" and hazen.hex in FORWARD_EXCEPTIONS["murfreesboro"]
    assert any(sc.terrain.get(n) == "river" for n in grid.within(hazen.hex, 2))
    # the Confederate left overlaps the Union right (Hardee's dawn attack)
    west = {s: min(grid.col_row(u.hex)[0] * 2 + _row(u.hex) % 2 for u in _units(sc, s))
            for s in tables.SIDES}
    assert west["confederate"] < west["union"]


def test_pea_ridge_tavern_and_mountain():
    sc = load_scenario("pea-ridge")
    grid = board_grid()
    assert sc.sides["confederate"].home_edge == "north", "Van Dorn came from behind"
    # Elkhorn Tavern stands empty between the armies, Carr's division just south of it
    carr = next(u for u in sc.units if u.name == "Carr")
    tavern = [n for n in grid.neighbors(carr.hex) if sc.terrain.get(n) == "building"]
    assert len(tavern) == 1 and _row(tavern[0]) == 5
    assert not any(u.hex == tavern[0] for u in sc.units)
    # Big Mountain (hills and a crag) splits the Confederate army in two
    mountain = [h for h, t in sc.terrain.items() if t in ("hill", "rough") and _row(h) <= 2]
    assert any(sc.terrain[h] == "rough" for h in mountain)
    cols = sorted(grid.col_row(h)[0] for h in mountain)
    left = [u for u in _units(sc, "confederate") if grid.col_row(u.hex)[0] < cols[0]]
    right = [u for u in _units(sc, "confederate") if grid.col_row(u.hex)[0] > cols[-1]]
    assert len(left) >= 4 and len(right) >= 5


# ---- the validator refuses broken copies -------------------------------------------------

def _text(sid):
    return (SCENARIO_DIR / f"{sid}.toml").read_text(encoding="utf-8")


def _relocate(text, name, new_hex):
    """The file text with the piece called `name` moved to `new_hex`."""
    pattern = rf'hex = "\d{{4}}"\nname = "{re.escape(name)}"'
    out, n = re.subn(pattern, f'hex = "{new_hex}"\nname = "{name}"', text)
    assert n == 1, f"{name} not found once"
    return out


# sid -> (a Union unit, another Union unit's hex, a Union General, a Confederate unit's hex)
BREAKERS = {
    "pea-ridge": ("Asboth's division", "0507", "Curtis", "0903"),
    "kernstown": ("14th Indiana (Kimball)", "0903", "Tyler", "0607"),
    "gaines-mill": ("Slocum's division (VI Corps)", "0707", "Porter", "0703"),
    "brawners-farm": ("Hatch's brigade", "0908", "Gibbon", "0903"),
    "murfreesboro": ("Wood's division", "1102", "Thomas", "0308"),
}


@pytest.mark.parametrize("sid", IDS)
def test_validator_refuses_broken_copies(sid):
    text = _text(sid)
    assert parse_scenario(text, f"{sid}.toml").id == sid          # the file itself is fine
    unit, friend_hex, general, enemy_hex = BREAKERS[sid]
    with pytest.raises(ScenarioError, match=rf"hex {friend_hex} already holds .*BC §2\.1"):
        parse_scenario(_relocate(text, unit, friend_hex), "bad.toml")
    with pytest.raises(ScenarioError, match=r"units\[\d+\]\.hex: '1402' is not a hex"):
        parse_scenario(_relocate(text, unit, "1402"), "bad.toml")
    with pytest.raises(ScenarioError, match="'1304' is not a hex"):     # a short row
        parse_scenario(_relocate(text, unit, "1304"), "bad.toml")
    with pytest.raises(ScenarioError, match=f"{enemy_hex} holds pieces of both sides"):
        parse_scenario(_relocate(text, general, enemy_hex), "bad.toml")
    rough = sorted(h for h, t in load_scenario(sid).terrain.items() if t == "rough")
    bad = _relocate(text, unit, rough[0]) if rough else text.replace(
        "[terrain]\n", f'[terrain]\nrough = ["{load_scenario(sid).units[0].hex}"]\n', 1)
    with pytest.raises(ScenarioError, match="is Rough, which no unit may enter"):
        parse_scenario(bad, "bad.toml")


def test_validator_refuses_a_bad_fence_side():
    bad = _text("kernstown").replace('front = ["NW", "NE"]', 'front = ["N", "NE"]', 1)
    with pytest.raises(ScenarioError, match=r"fences\[0\]\.front: 'N' is not a hexside"):
        parse_scenario(bad, "bad.toml")


# ---- scripted openings ------------------------------------------------------------------------
# Hands are set to the cards the script plays (the deck's order is the seed's business); every
# battle brings its own dice (1-2 infantry, 3 cavalry, 4 artillery, 5 flag, 6 sabres: tables.py).

def start(sid, confederate, union, seed=1):
    g = Game.new("battlecry", sid, seed)
    g.state.hands["confederate"] = list(confederate)
    g.state.hands["union"] = list(union)
    return g


def at(g, pid):
    p = g.state.pieces[pid]
    return p.hex, p.figures


def narrative(events):
    return " / ".join(e.narrative for e in events)


def test_pea_ridge_opening():
    g = start("pea-ridge", ["attack-left", "attack-left"], ["probe-right", "probe-right"])
    assert g.state.pieces["ci5"].name == "Little's 1st Missouri Brigade"
    # Turn 1: Price's Missourians come out of Cross Timber Hollow. The tavern hides Carr.
    run(g, "confederate: play attack-left", "confederate: order ci5 ci4 ci6",
        "confederate: move ci5 1004", "confederate: move ci4 0904", "confederate: move ci6 1003")
    assert at(g, "cg3") == ("1004", 1)                                      # Price went along
    before = g.state.state_hash()
    with pytest.raises(Illegal, match="line of sight crosses 1006"):
        g.apply("confederate", "battle ci5 1007 dice=1,1,1")
    assert g.state.state_hash() == before
    run(g, "confederate: battle ci4 0907 dice=4,5")                        # a gun hit, a flag
    assert g.state.pending["side"] == "union"
    assert sorted(g.state.pending["options"]) == ["0808", "0908"]
    run(g, "union: retreat 0908", "confederate: end")
    assert at(g, "ua3") == ("0908", 1)
    # Turn 2: Dodge occupies the tavern (and may not battle); Vandever and Carr hit Slack.
    ev = run(g, "union: play probe-right", "union: order ui6 ui5", "union: move ui6 1006",
             "union: move ui5 0906")
    assert "may not battle this turn" in narrative(ev)
    with pytest.raises(Illegal, match="may not battle this turn"):
        g.apply("union", "battle ui6 1004 dice=1,1")
    run(g, "union: battle ui5 0904 dice=1,2,6,3", "union: end")
    assert at(g, "ci4") == ("0904", 1) and at(g, "ug3") == ("0906", 1)
    # Turn 3: Little's brigade fires into the tavern: -2 for the building, +1 for Price.
    ev = run(g, "confederate: play attack-left", "confederate: order ci5 ci4 ci6",
             "confederate: battle ci5 1006 dice=5,5")
    battle = next(e for e in ev if e.kind == "battle")
    assert (battle.base, [m.value for m in battle.modifiers]) == (3, [-2, 1])
    assert sorted(g.state.pending["options"]) == ["1007", "1107"]
    run(g, "union: retreat 1107")
    assert sorted(g.state.pending["options"]) == ["1008", "1108"]
    run(g, "union: retreat 1108", "confederate: end")
    assert at(g, "ui6") == ("1108", 4) and g.state.piece_at("1006") is None
    # Turn 4: Vandever finishes Slack's brigade: the first flag.
    ev = run(g, "union: play probe-right", "union: order ua3 ui5",
             "union: battle ui5 0904 dice=2,3,4,4", "union: end")
    assert g.state.pieces["ci4"].hex is None and "Union takes its flag" in narrative(ev)
    assert g.state.flags == {"union": 1, "confederate": 0}
    assert g.state.turn == 5 and g.state.active == "confederate"


def test_kernstown_opening():
    g = start("kernstown", ["probe-left", "probe-left"], ["probe-right", "probe-right"])
    # Turn 1: Jackson's left goes for Sandy Ridge.
    run(g, "confederate: play probe-left", "confederate: order ci1 ci2",
        "confederate: move ci1 0306", "confederate: move ci2 0406", "confederate: end")
    assert at(g, "cg1") == ("0406", 1)                                      # Garnett with them
    # Turn 2: Tyler comes down; his second wing must stop in the woods and not battle.
    ev = run(g, "union: play probe-right", "union: order ui1 ui2", "union: move ui1 0303",
             "union: move ui2 0403")
    assert "ui2" in g.state.current.no_battle
    with pytest.raises(Illegal, match="may not battle this turn"):
        g.apply("union", "battle ui2 0306 dice=1,1")
    run(g, "union: battle ui1 0306 dice=1,2,4", "union: end")
    assert at(g, "ci1") == ("0306", 2)
    # Turn 3: both brigades reach the stone wall; Tyler's wing is driven out of the woods.
    run(g, "confederate: play probe-left", "confederate: order ci1 ci2",
        "confederate: move ci1 0305", "confederate: move ci2 0405",
        "confederate: battle ci2 0403 dice=5,5,1")
    assert g.to_act == "union" and sorted(g.state.pending["options"]) == ["0302", "0402"]
    run(g, "union: retreat 0402")
    assert sorted(g.state.pending["options"]) == ["0401", "0501"]
    run(g, "union: retreat 0401", "confederate: battle ci1 0303 dice=2,3,4", "confederate: end")
    assert at(g, "ui2") == ("0401", 3) and at(g, "ui1") == ("0303", 3)
    # Turn 4: the wall costs the attacker a die (BC §2.3); Fulkerson's brigade is destroyed.
    ev = run(g, "union: play probe-right", "union: order ui1 ui3", "union: move ui3 0404",
             "union: battle ui1 0305 dice=1,6,3", "union: battle ui3 0405 dice=5,4,4")
    battles = [e for e in ev if e.kind == "battle"]
    assert all(any(m.reason.startswith("target behind a Fence") for m in b.modifiers) for b in battles)
    assert [len(b.dice) for b in battles] == [3, 3]                         # 3-1+1 and 4-1
    assert g.state.pieces["ci1"].hex is None
    assert sorted(g.state.pending["options"]) == ["0306", "0406"]
    run(g, "confederate: retreat 0406", "union: end")
    assert at(g, "ci2") == ("0406", 4) and at(g, "cg1") == ("0406", 1)
    assert g.state.flags == {"union": 1, "confederate": 0}


def test_gaines_mill_opening():
    g = start("gaines-mill", ["attack-centre", "probe-left"], ["probe-left", "probe-centre"])
    # Turn 1: A.P. Hill and Hood come down to the swamp and fire up at the plateau.
    run(g, "confederate: play attack-centre", "confederate: order ci4 ci5 ci6",
        "confederate: move ci4 0504", "confederate: move ci5 0604", "confederate: move ci6 0704")
    assert "ci4" in g.state.current.no_battle                               # stopped in the woods
    ev = run(g, "confederate: battle ci5 0606 dice=1,1,5", "confederate: battle ci6 0806 dice=6,3",
             "confederate: end")
    hill = [m for e in ev if e.kind == "battle" for m in e.modifiers if m.reason == "target in hill"]
    assert len(hill) == 2
    assert at(g, "ui3") == ("0607", 2) and at(g, "ug1") == ("0607", 1)      # Griffin and Morell
    assert at(g, "ui7") == ("0806", 3)
    # Turn 2: Martindale fires into the woods; Gregg chooses where to fall back.
    run(g, "union: play probe-left", "union: order ui2 ua1", "union: battle ui2 0504 dice=2,5")
    assert g.state.pending["side"] == "confederate"
    run(g, "confederate: retreat 0503", "union: end")
    assert at(g, "ci4") == ("0503", 3)
    # Turn 3: Jackson arrives past the swamp's head; a Probe orders two units, not three.
    run(g, "confederate: play probe-left", "confederate: order ci8")
    before = g.state.state_hash()
    with pytest.raises(Illegal, match="Probe Left gives 2 orders; that would be 3"):
        g.apply("confederate", "order ci9 ci10")
    assert g.state.state_hash() == before                                   # refused, untouched
    ev = run(g, "confederate: order ci9", "confederate: move ci9 1004", "confederate: move ci8 0904",
             "confederate: battle ci9 1007 dice=1,1", "confederate: battle ci8 0806 dice=1,1",
             "confederate: end")
    first = next(e for e in ev if e.kind == "battle")
    assert (first.base, sorted(m.value for m in first.modifiers)) == (2, [-1, 1])  # hill, Jackson
    assert at(g, "ui8") == ("1007", 2) and at(g, "ui7") == ("0806", 1)
    assert at(g, "cg3") == ("1004", 1)
    # Turn 4: Reynolds retakes the plateau edge and shoots Branch to pieces.
    run(g, "union: play probe-centre", "union: order ui4 ui5", "union: move ui4 0606",
        "union: battle ui4 0604 dice=1,2,6,3", "union: end")
    assert at(g, "ui4") == ("0606", 4) and at(g, "ug2") == ("0606", 1)
    assert at(g, "ci5") == ("0604", 1) and at(g, "cg2") == ("0604", 1)      # Lee still with them
    assert g.state.flags == {"union": 0, "confederate": 0}


def test_brawners_farm_opening():
    g = start("brawners-farm", ["attack-centre", "probe-left"], ["attack-centre", "attack-centre"])
    # Turn 1: Jackson's centre comes off the railroad.
    ev = run(g, "confederate: play attack-centre", "confederate: order ci3 ci4 ci5",
             "confederate: move ci3 0604", "confederate: move ci4 0704",
             "confederate: move ci5 0804", "confederate: battle ci5 0907 dice=1,5,5",
             "confederate: battle ci3 0607 dice=4,4", "confederate: end")
    # the 6th Wisconsin has both rear hexes filled: one figure per flag it cannot take (BC §4.6)
    assert at(g, "ui5") == ("0907", 1)
    assert any(e.section == "BC §4.6 rule 7" for e in ev)
    assert at(g, "ui3") == ("0607", 4)                                      # two artillery faces
    # Turn 2: the Black Hats stand up to them.
    run(g, "union: play attack-centre", "union: order ui3 ua2 ui4", "union: move ui3 0606",
        "union: battle ui3 0604 dice=1,2,3,5")
    assert sorted(g.state.pending["options"]) == ["0603", "0703"]
    run(g, "confederate: retreat 0603", "union: battle ua2 0704 dice=2,6,4", "union: end")
    assert at(g, "ci3") == ("0603", 2) and at(g, "ci4") == ("0704", 2)
    # Turn 3: Early's brigade fires on Hatch at Groveton.
    run(g, "confederate: play probe-left", "confederate: order ci8 ci7",
        "confederate: move ci8 1004", "confederate: battle ci8 1107 dice=6,6", "confederate: end")
    assert at(g, "ui8") == ("1107", 2)
    # Turn 4: Gibbon's men shoot into the railroad line (its Fence costs them a die).
    ev = run(g, "union: play attack-centre", "union: order ui3 ui4 ui6", "union: move ui4 0706",
             "union: battle ui3 0603 dice=1,1")
    assert any(m.value == tables.FENCE_DICE for e in ev if e.kind == "battle" for m in e.modifiers)
    assert g.state.pieces["ci3"].hex is None
    run(g, "union: battle ui4 0704 dice=5,2,4", "confederate: retreat 0703", "union: end")
    assert at(g, "ci4") == ("0703", 1) and at(g, "cg2") == ("0703", 1)      # Jackson goes back too
    assert g.state.flags == {"union": 1, "confederate": 0}


def test_murfreesboro_opening():
    g = start("murfreesboro", ["hit-and-run", "attack-centre"], ["attack-right", "probe-right"])
    # Turn 1: Wharton's troopers ride round the Union right, strike Johnson and ride back.
    ev = run(g, "confederate: play hit-and-run", "confederate: move cc1 0106 0105 0104",
             "confederate: battle cc1 0203 dice=1,1,5", "confederate: move cc1 0107",
             "confederate: end")
    assert at(g, "ui1") == ("0202", 2) and at(g, "cc1") == ("0107", 3)
    assert "Hit and Run orders cc1" in narrative(ev)
    # Turn 2: Sheridan's guns and division answer.
    run(g, "union: play attack-right", "union: order ua1 ui3 ui2", "union: move ui3 0404",
        "union: battle ua1 0507 dice=1,6", "union: battle ui3 0407 dice=5,3,4", "union: end")
    assert at(g, "ci4") == ("0507", 2) and at(g, "ci3") == ("0408", 4)
    # Turn 3: Polk's brigades close in; Sheridan's division is cut to one figure.
    run(g, "confederate: play attack-centre", "confederate: order ci4 ci5 ci6",
        "confederate: move ci4 0506", "confederate: move ci5 0606",
        "confederate: battle ci4 0404 dice=1,1,1", "confederate: battle ci5 0603 dice=3,4",
        "confederate: end")
    assert at(g, "ui3") == ("0404", 1) and at(g, "ug1") == ("0404", 1)      # Sheridan unhurt
    assert at(g, "ui4") == ("0603", 4)
    # Turn 4: its last volley sends Manigault back three hexes to the Confederate edge.
    run(g, "union: play probe-right", "union: order ui3 ui2", "union: battle ui3 0506 dice=5,5,5,1",
        "confederate: retreat 0507")
    assert sorted(g.state.pending["options"]) == ["0509", "0609"]          # 0408 is taken
    run(g, "confederate: retreat 0509", "union: end")
    assert at(g, "ci4") == ("0509", 1)
    assert g.state.flags == {"union": 0, "confederate": 0}
    assert g.state.turn == 5
