"""Battle Cry scenarios 8, 10, 11, 12, 13 and 15 (Fredericksburg to New Hope Church), their
special rules played through the command language, a scripted opening of each, and the
balancing option with the Campaign Flag formula (BC §6, §7).

The book values are hard-coded from the digest's §7 table (rules/digests/battle-cry.md), which
follows the Italian NOTES boxes; they are deliberately not read from the files under test.
Board reminder: hex "CCRR", rows 01-09 from the north, even rows 12 hexes shoved half a hex east.
In the six files the Union's home edge is north, so the Union left is the board's east and the
Confederate left is the board's west.
"""
from __future__ import annotations

from collections import Counter

import pytest

import engine.battlecry.ruleset  # noqa: F401  (registers the ruleset even if TACW's loaded first)
from engine.battlecry import board, campaign, combat, tables
from engine.battlecry.rules import effective_flags
from engine.battlecry.scenario import (
    SCENARIO_DIR, ScenarioError, board_grid, load_scenario, parse_scenario,
)
from engine.battlecry.setup import build_deck, new_state
from engine.battlecry.state import BattleCryState
from engine.core.errors import Illegal
from engine.core.game import Game, get_ruleset

from .bc_helpers import make_game, run, scenario_text

# id -> (number, union commander, union cards, confederate commander, confederate cards, first)
BOOK = {
    "fredericksburg": (8, "Burnside", 3, "Lee", 5, "union"),
    "chancellorsville": (10, "Hooker", 3, "Lee", 5, "confederate"),
    "devils-den": (11, "Meade", 4, "Lee", 4, "union"),
    "picketts-charge": (12, "Meade", 4, "Lee", 4, "confederate"),
    "chickamauga": (13, "Rosecrans", 4, "Bragg", 4, "confederate"),
    "new-hope-church": (15, "Sherman", 4, "Johnston", 4, "union"),
}
IDS = list(BOOK)
ARMY_LIMITS = {"infantry": 10, "cavalry": 3, "artillery": 3, "general": 3}   # BC §2.1
# Pieces more than two rows from their own edge, where history puts them (at most 3 a side).
FORWARD = {"chancellorsville": {"0504", "0604", "0704"}, "devils-den": {"0404", "0804", "1004"}}
FIELD_WORKS = "construct-field-works"
INF, CAV, ART, FLAG, SABRES = 1, 3, 4, 5, 6          # battle die faces (tables.DIE_FACES)


def pieces(sc, side, kind=None):
    return [u for u in sc.units if u.side == side and (kind is None or u.kind == kind)]


def named(g, text):
    """The piece named `text`, or the one whose name contains it, in the game's current state
    (each command replaces the state, so look pieces up again after acting)."""
    found = [p for p in g.state.pieces.values() if p.name == text] or \
        [p for p in g.state.pieces.values() if text in p.name]
    assert len(found) == 1, f"{text!r} names {len(found)} pieces"
    return found[0]


def opening(sid, union_hand, conf_hand, seed=3):
    g = Game.new("battlecry", sid, seed)
    g.state.hands["union"] = list(union_hand)
    g.state.hands["confederate"] = list(conf_hand)
    return g


# ---- the six files: book values, armies, layout ---------------------------------------------

@pytest.mark.parametrize("sid", IDS)
def test_book_values(sid):
    number, u_name, u_cards, c_name, c_cards, first = BOOK[sid]
    sc = load_scenario(sid)
    assert sc.id == sid and (SCENARIO_DIR / f"{sid}.toml").exists()
    assert sc.number == number and sc.title and sc.date and sc.description.strip()
    assert u_name in sc.sides["union"].commander and c_name in sc.sides["confederate"].commander
    assert (sc.sides["union"].cards, sc.sides["confederate"].cards) == (u_cards, c_cards)
    assert sc.first_player == first
    assert sc.flags_to_win == 6
    st = new_state(sc, 1)
    assert st.active == first
    assert len(st.hands["union"]) == u_cards and len(st.hands["confederate"]) == c_cards


@pytest.mark.parametrize("sid", IDS)
def test_provenance_labels_the_herald_completion(sid):
    prov = load_scenario(sid).provenance
    assert prov["from_book"] and prov["herald_completion"]
    assert any(s.startswith("terrain layout") for s in prov["herald_completion"])
    assert "unit placement" in prov["herald_completion"]
    assert "printed map" in prov["note"] and "battle-cry.it.txt" in prov["note"]
    assert any("commanders" in s for s in prov["from_book"])


def test_chancellorsville_identity_is_marked_inferred():
    prov = load_scenario("chancellorsville").provenance
    assert any("identity" in s and "inferred" in s for s in prov["herald_completion"])
    assert "inferred" in prov["note"]


@pytest.mark.parametrize("sid", IDS)
def test_armies_within_the_box_limits(sid):
    sc = load_scenario(sid)
    for side in tables.SIDES:
        counts = Counter(u.kind for u in pieces(sc, side))
        for kind, limit in ARMY_LIMITS.items():
            assert counts[kind] <= limit, f"{side}: {counts[kind]} {kind}"
        assert 1 <= counts["general"] <= 3
        assert all(u.name for u in pieces(sc, side, "general"))
        units = sum(counts[k] for k in tables.UNIT_KINDS)
        low = 8 if sid == "chancellorsville" else 11      # "about 12 units a side"
        assert low <= units <= 13, f"{side} fields {units} units"


def test_chancellorsville_armies_follow_the_published_scenario_account():
    # Union 12 units without cavalry, all but one in the centre; Confederates 8 units without
    # cavalry, none in the centre (the player's account cited in the file's provenance).
    sc = load_scenario("chancellorsville")
    u = [x for x in pieces(sc, "union") if x.kind != "general"]
    c = [x for x in pieces(sc, "confederate") if x.kind != "general"]
    assert len(u) == 12 and len(c) == 8
    assert not any(x.kind == "cavalry" for x in u + c)
    outside = [x for x in u if board.sections_of(sc, "union", x.hex) != ("centre",)]
    assert [x.name for x in outside] == ["Devens' division (XI Corps)"]
    assert not any("centre" in board.sections_of(sc, "confederate", x.hex) for x in c)


@pytest.mark.parametrize("sid", IDS)
def test_every_piece_on_a_legal_hex(sid):
    sc = load_scenario(sid)
    grid = board_grid()
    for u in sc.units:
        assert u.hex in grid
        assert not sc.terrain_at(u.hex).impassable
        assert 1 <= u.figures <= tables.FULL_FIGURES[u.kind]
    per_hex = Counter((u.hex, u.kind == "general") for u in sc.units)
    assert max(per_hex.values()) == 1, "one unit and one General per hex (BC §2.1)"
    for g in pieces(sc, "union", "general") + pieces(sc, "confederate", "general"):
        assert all(o.side == g.side for o in sc.units if o.hex == g.hex)


@pytest.mark.parametrize("sid", IDS)
def test_no_piece_starts_next_to_an_enemy_and_each_side_at_its_edge(sid):
    sc = load_scenario(sid)
    grid = board_grid()
    assert {sc.sides[s].home_edge for s in tables.SIDES} == {"north", "south"}
    for a in pieces(sc, "union"):
        for b in pieces(sc, "confederate"):
            assert grid.distance(a.hex, b.hex) >= 2, f"{a.id} {a.hex} touches {b.id} {b.hex}"
    forward = FORWARD.get(sid, set())
    used = Counter()
    for u in sc.units:
        depth = abs(grid.col_row(u.hex)[1] - sc.home_row(u.side))
        assert depth <= 4
        if depth > 2:
            assert u.hex in forward, f"{u.id} at {u.hex} is far from its edge"
            used[u.side] += u.kind != "general"
    assert max(used.values(), default=0) <= 3
    assert forward <= {u.hex for u in sc.units}


@pytest.mark.parametrize("sid", IDS)
def test_terrain_is_sane(sid):
    sc = load_scenario(sid)
    assert 10 <= len(sc.terrain) <= 25
    assert set(sc.terrain.values()) <= set(tables.TERRAIN) - {"clear"}
    assert ("devils_den" in sc.terrain.values()) == (sid == "devils-den")
    for h in sc.fences:
        assert sc.terrain.get(h) not in ("river", "rough")
    grid = board_grid()
    road = sc.special.get("road_hexes", [])
    assert all(grid.adjacent(a, b) for a, b in zip(road, road[1:])), "a road is one line"


BROKEN = [
    ("fredericksburg", 'hex = "1207"\nname = "Pelham', 'hex = "1407"\nname = "Pelham',
     r"units\[\d+\]\.hex: '1407' is not a hex"),
    ("fredericksburg", 'kind = "artillery"\nhex = "1207"', 'kind = "infantry"\nhex = "1207"',
     "horse_artillery must be an artillery unit"),
    ("chancellorsville", 'hex = "0703"\nname = "Hooker"', 'hex = "1007"\nname = "Hooker"',
     "1007 holds pieces of both sides"),
    ("devils-den", "fields_block_los = false\n#", 'fields_block_los = "no"\n#',
     "fields_block_los: expected true or false"),
    ("devils-den", 'devils_den = ["1105"]', 'devils_den = ["1105", "1004"]',
     "hex 1004 already has devils_den"),
    ("picketts-charge", 'name = "Davis\' brigade (Pettigrew)"\nfigures = 3',
     'name = "Davis\' brigade (Pettigrew)"\nfigures = 5', r"figures: 5 is not 1\.\.4"),
    ("picketts-charge", 'remove_cards = ["construct-field-works"]', 'remove_cards = ["field-works"]',
     "unknown card 'field-works'"),
    ("chickamauga", 'hex = "1003"\nowner = "union"', 'hex = "1003"\nowner = "yankees"',
     "owner: must be 'union' or 'confederate'"),
    ("new-hope-church", 'road_hexes = ["1001"', 'road_hexes = ["1002", "0013"',
     "road_hexes: '0013' is not a hex"),
]


@pytest.mark.parametrize("sid,old,new,error", BROKEN, ids=[f"{b[0]}-{i}" for i, b in enumerate(BROKEN)])
def test_validator_refuses_a_broken_copy(sid, old, new, error):
    text = (SCENARIO_DIR / f"{sid}.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1
    parse_scenario(text, f"{sid}.toml")                 # the file itself is valid
    with pytest.raises(ScenarioError, match=error):
        parse_scenario(text.replace(old, new), "broken.toml")


# ---- #8 Fredericksburg: Jackson's horse artillery ------------------------------------------

def test_fredericksburg_jacksons_artillery_on_the_confederate_right_is_horse_artillery():
    sc = load_scenario("fredericksburg")
    arts = pieces(sc, "confederate", "artillery")
    right = [u for u in arts if "right" in board.sections_of(sc, "confederate", u.hex)]
    assert len(right) == 2 and all(u.special == "horse_artillery" for u in right)
    assert [u.name for u in arts if not u.special] == ["Washington Artillery"]
    assert board.sections_of(sc, "confederate", "0308") == ("left",)
    assert not any(u.special for u in sc.units if u.side == "union" or u.kind != "artillery")


HORSE = [("h", "union", "artillery", "0509", {"special": "horse_artillery"}),
         ("a", "union", "artillery", "0709"),
         ("t", "confederate", "infantry", "0505"), ("t2", "confederate", "infantry", "0704"),
         ("far", "confederate", "infantry", "1201")]


def horse_game(card):
    g = make_game(HORSE, hands={"union": [card] * 4, "confederate": ["skirmish-centre"] * 4})
    return g


def test_horse_artillery_moves_one_and_fires_with_faq_dice():
    g = horse_game("probe-centre")
    run(g, "union: play probe-centre", "union: order h a", "union: move h 0508")
    ev = g.apply("union", "battle h 0505 dice=1,2")               # range 3: 2 dice
    assert ev[0].base == 2 and ev[0].row == "horse artillery, range 3" and len(ev[0].dice) == 2
    assert g.state.pieces["t"].figures == 2


def test_horse_artillery_that_moves_two_may_not_fire_and_reaches_four():
    g = horse_game("probe-centre")
    run(g, "union: play probe-centre", "union: order h a")
    with pytest.raises(Illegal, match="reaches 4 hexes; 1201 is 11 away"):
        g.apply("union", "battle h far")
    ev = g.apply("union", "move h 0508 0507")
    assert "horse artillery that moves 2 may not fire" in ev[0].narrative
    with pytest.raises(Illegal, match="may not battle this turn"):
        g.apply("union", "battle h 0505")
    # ordinary artillery: one hex, and then no battle (BC §4.2)
    with pytest.raises(Illegal, match="moves at most 1 hex"):
        g.apply("union", "move a 0708 0707")
    run(g, "union: move a 0708")
    with pytest.raises(Illegal, match="may not battle this turn"):
        g.apply("union", "battle a 0704")


def test_horse_artillery_range_four_rolls_one_die_ordinary_artillery_reaches_five():
    g = horse_game("probe-centre")
    run(g, "union: play probe-centre", "union: order h a")
    ev = g.apply("union", "battle h 0505 dice=4")                 # 0509 -> 0505: range 4
    assert ev[0].base == 1 and ev[0].row == "horse artillery, range 4"
    ev = g.apply("union", "battle a 0704 dice=3")                 # 0709 -> 0704: range 5
    assert ev[0].base == 1 and ev[0].row == "artillery, range 5"


def test_horse_artillery_bombard_moves_twice_four_hexes_or_fires_twice():
    g = horse_game("bombard")
    run(g, "union: play bombard", "union: move h 0508 0507", "union: move h 0506 0406")
    assert g.state.pieces["h"].hex == "0406" and g.state.current.hexes_moved["h"] == 4
    with pytest.raises(Illegal, match="has made both Bombard moves"):
        g.apply("union", "move h 0405")
    with pytest.raises(Illegal, match="battles twice or moves twice, not both"):
        g.apply("union", "battle h 0505")
    g = horse_game("bombard")
    run(g, "union: play bombard", "union: battle h 0505 dice=1", "union: battle h 0505 dice=6")
    assert g.state.pieces["t"].figures == 2
    with pytest.raises(Illegal, match="already battled"):
        g.apply("union", "battle h 0505 dice=1")


def test_fredericksburg_opening_pelham_fires_twice_under_bombard():
    g = opening("fredericksburg", ["attack-left", "probe-left", "skirmish-centre"],
                ["probe-right", "bombard", "skirmish-left", "rally", "attack-left"])
    # Union 1: Franklin's divisions step forward; Doubleday hits Archer in the railroad woods.
    run(g, "union: play attack-left", "union: order 1003 0903 1103", "union: move 1003 1004",
        "union: move 0903 0904", "union: move 1103 1104")
    ev = g.apply("union", "battle 1104 1107 dice=1")
    assert ev[0].base == 2 and [m.value for m in ev[0].modifiers] == [-1]      # range 3, woods
    run(g, "union: end")
    # Confederate 2: Pelham gallops one hex and fires at range 2 (FAQ: 3 dice).
    run(g, "confederate: play probe-right", "confederate: order 1207 1008", "confederate: move 1207 1206")
    ev = g.apply("confederate", "battle 1206 1104 dice=1,1,5")
    assert ev[0].row == "horse artillery, range 2" and ev[0].base == 3
    doubleday = named(g, "Doubleday")
    assert doubleday.figures == 2 and doubleday.hex == "1103"       # 2 hits, 1 retreat north
    with pytest.raises(Illegal, match="cannot see"):                 # Walker's woods block him
        g.apply("confederate", "battle 1008 1004")
    run(g, "confederate: end")
    # Union 3: Meade's Pennsylvanians close on Pelham.
    run(g, "union: play probe-left", "union: order 1004 0904", "union: move 1004 1105")
    run(g, "union: battle 1105 1206 dice=4,1,2", "union: battle 0904 0907 dice=1")
    assert named(g, "Pelham").figures == 1 and named(g, "Lane").figures == 3
    run(g, "union: end")
    # Confederate 4: Bombard: the one-gun Pelham fires twice and destroys Meade's division.
    run(g, "confederate: play bombard", "confederate: battle 1206 1105 dice=1,1,1")
    with pytest.raises(Illegal, match="not both"):
        g.apply("confederate", "move 1206 1106")
    run(g, "confederate: battle 1206 1105 dice=1,2,3", "confederate: end")
    st = g.state
    assert named(g, "Meade").hex is None and st.flags == {"union": 0, "confederate": 1}
    assert named(g, "Archer").figures == 3 and st.turn == 5 and st.active == "union"


# ---- #10 Chancellorsville -------------------------------------------------------------------

def test_chancellorsville_opening_jackson_strikes_the_xi_corps():
    g = opening("chancellorsville", ["probe-right", "attack-centre", "skirmish-centre"],
                ["attack-left", "probe-right", "skirmish-left", "rally", "bombard"])
    run(g, "confederate: play attack-left", "confederate: order 0207 0307 0208",
        "confederate: move 0207 0206", "confederate: move 0307 0306", "confederate: move 0208 0207")
    with pytest.raises(Illegal, match="may not battle this turn"):      # Colston in the Wilderness
        g.apply("confederate", "battle 0306 0303")
    ev = g.apply("confederate", "battle 0206 0303 dice=1")           # Dowdall's Tavern: -2, Jackson +1
    assert [m.value for m in ev[0].modifiers] == [-2, 1] and len(ev[0].dice) == 1
    run(g, "confederate: end",
        "union: play probe-right", "union: order 0303")
    run(g, "union: battle 0303 0206 dice=1,5,6", "union: end")       # Howard +1: 3 dice
    rodes = named(g, "Rodes")
    assert rodes.figures == 2 and rodes.hex == "0307"                # retreats onto the only free hex
    assert named(g, "Jackson").hex == "0307"
    run(g, "confederate: play probe-right", "confederate: order 1007 1107",
        "confederate: move 1007 0906", "confederate: move 1107 1006",
        "confederate: battle 0906 0803 dice=1,1", "confederate: end")
    assert named(g, "Hancock").figures == 2
    # Union 4: the Fairview guns, Whipple on Hazel Grove, Birney against Anderson.
    run(g, "union: play attack-centre", "union: order 0604 0504 0704", "union: move 0504 0505",
        "union: move 0704 0804")
    run(g, "union: battle 0604 0407 dice=4,4")                       # hill artillery, range 4
    run(g, "union: battle 0505 0306 dice=1,5")                       # back into the guns' hex
    run(g, "union: battle 0804 0906 dice=1,1,1,2", "union: end")
    st = g.state
    assert named(g, "Crutchfield").hex is None
    assert (named(g, "Colston").figures, named(g, "Colston").hex) == (3, "0407")
    assert named(g, "Mahone").hex is None
    assert st.flags == {"union": 2, "confederate": 0} and st.active == "confederate"


# ---- #11 Devil's Den and the Wheat Field ----------------------------------------------------

DEN = [("u", "union", "infantry", "0507"), ("c", "confederate", "infantry", "0504"),
       ("far", "confederate", "infantry", "1201"), ("ufar", "union", "infantry", "1209")]


def den_game(**kw):
    return make_game(DEN, hands={"union": ["force-march", "skirmish-centre", "skirmish-centre"],
                                 "confederate": ["skirmish-centre"] * 3},
                     terrain={"devils_den": ["0506"]}, **kw)


def test_devils_den_entering_unit_must_stop_and_cannot_battle_that_turn():
    g = den_game()
    run(g, "union: play force-march centre")
    with pytest.raises(Illegal, match="must stop on entering 0506 \\(Devil's Den\\)") as exc:
        g.apply("union", "move u 0506 0505")
    assert exc.value.section == "BC §7 (Gettysburg, Devil's Den)"
    ev = g.apply("union", "move u 0506")
    assert "entered Devil's Den and may not battle this turn" in ev[0].narrative
    before = g.state.state_hash()
    with pytest.raises(Illegal, match="may not battle this turn"):
        g.apply("union", "battle u 0504")
    assert g.state.state_hash() == before
    # next turn the unit in the Den battles normally (range 2, nothing for its own hex)
    run(g, "union: end", "confederate: play skirmish-centre", "confederate: end",
        "union: play skirmish-centre", "union: order u")
    ev = g.apply("union", "battle u 0504 dice=1,2,3")
    assert ev[0].base == 3 and ev[0].modifiers == [] and g.state.pieces["c"].figures == 2


def test_devils_den_attacker_rolls_two_dice_fewer():
    g = den_game()
    run(g, "union: play force-march centre", "union: move u 0506", "union: end",
        "confederate: play skirmish-centre", "confederate: order c")
    ev = g.apply("confederate", "battle c 0506 dice=1")             # range 2: 3 dice - 2
    assert ev[0].base == 3 and len(ev[0].dice) == 1
    assert [(m.value, m.reason, m.section) for m in ev[0].modifiers] == \
        [(-2, "target in Devil's Den", "BC §7 (Gettysburg, Devil's Den)")]
    assert g.state.pieces["u"].figures == 3


LOS_UNITS = [("a", "union", "infantry", "0305"), ("t", "confederate", "infantry", "0505"),
             ("far", "confederate", "infantry", "1201")]


def los_game(terrain, special=None):
    return make_game(LOS_UNITS, hands={"union": ["skirmish-left"] * 4}, terrain=terrain,
                     special=special)


def test_devils_den_blocks_line_of_sight():
    g = los_game({"devils_den": ["0405"]})
    run(g, "union: play skirmish-left", "union: order a")
    with pytest.raises(Illegal, match="line of sight crosses 0405"):
        g.apply("union", "battle a 0505")
    g = los_game({"orchard": ["0405"]})                                # a clear-sighted control
    run(g, "union: play skirmish-left", "union: order a", "union: battle a 0505 dice=1,2,3")
    assert g.state.pieces["t"].figures == 2


def test_wheat_fields_do_not_block_line_of_sight_but_keep_their_minus_one():
    g = los_game({"field": ["0405"]})                                  # BC §4.4.2: a Field blocks
    run(g, "union: play skirmish-left", "union: order a")
    with pytest.raises(Illegal, match="line of sight crosses 0405"):
        g.apply("union", "battle a 0505")
    g = los_game({"field": ["0405", "0505"]}, special={"fields_block_los": False})
    run(g, "union: play skirmish-left", "union: order a")
    ev = g.apply("union", "battle a 0505 dice=1,1")                   # range 2: 3 - 1 (wheat)
    assert [(m.value, m.reason) for m in ev[0].modifiers] == [(-1, "target in field")]
    assert g.state.pieces["t"].figures == 2


def test_devils_den_file_applies_its_rules():
    sc = load_scenario("devils-den")
    assert [h for h, t in sc.terrain.items() if t == "devils_den"] == ["1105"]
    assert sc.special["fields_block_los"] is False
    assert not board.terrain_blocks_los(sc, "0705") and board.terrain_blocks_los(sc, "1105")
    assert board.terrain_blocks_los(sc, "0706")                        # Stony Hill still does


def test_devils_den_opening():
    g = opening("devils-den", ["probe-left", "probe-centre", "skirmish-right", "attack-right"],
                ["attack-right", "probe-left", "skirmish-centre", "rally"])
    # Union 1: Ward goes down into the Den and may not fire; Vincent fires from Little Round Top.
    run(g, "union: play probe-left", "union: order 1004 1103", "union: move 1004 1105")
    with pytest.raises(Illegal, match="may not battle this turn"):
        g.apply("union", "battle 1105 1207")
    run(g, "union: battle 1103 1207 dice=1", "union: end")
    assert named(g, "Law's Alabamians").figures == 3
    # Confederate 2: Hood's Texans at the Den: 3 dice, -2 Den, +1 Hood.
    run(g, "confederate: play attack-right", "confederate: order 1207 1107 1007")
    ev = g.apply("confederate", "battle 1007 1105 dice=1,5")
    assert ev[0].base == 3 and [m.value for m in ev[0].modifiers] == [-2, 1]
    assert g.state.pending["options"] == ["1004", "1104"]            # the Union chooses
    run(g, "union: retreat 1104", "confederate: end")
    ward = named(g, "Ward")
    assert (ward.hex, ward.figures) == ("1104", 3)
    # Union 3: de Trobriand fires across the Wheat Field, which does not block the line.
    run(g, "union: play probe-centre", "union: order 0804 0703", "union: move 0804 0704")
    ev = g.apply("union", "battle 0704 0907 dice=1,6")
    assert ev[0].base == 2 and ev[0].modifiers == []
    run(g, "union: end")
    assert named(g, "G.T. Anderson").figures == 2
    # Confederate 4: Barksdale and McLaws against the Peach Orchard.
    run(g, "confederate: play probe-left", "confederate: order 0307 0507", "confederate: move 0307 0306")
    ev = g.apply("confederate", "battle 0306 0404 dice=1,1,3")
    assert [m.value for m in ev[0].modifiers] == [-1, 1]               # orchard, McLaws
    run(g, "confederate: end")
    assert named(g, "Graham").figures == 2 and g.state.turn == 5
    assert g.state.flags == {"union": 0, "confederate": 0}


# ---- #12 Pickett's Charge ----------------------------------------------------------------------

def test_picketts_charge_pettigrew_units_start_one_figure_short_on_the_left():
    sc = load_scenario("picketts-charge")
    pettigrew = [u for u in sc.units if "(Pettigrew)" in u.name]
    assert len(pettigrew) == 3
    for u in pettigrew:
        assert u.side == "confederate" and u.kind == "infantry" and u.figures == 3
        assert board.sections_of(sc, "confederate", u.hex) == ("left",)
    others = [u for u in sc.units if u not in pettigrew]
    assert all(u.figures == tables.FULL_FIGURES[u.kind] for u in others)
    st = new_state(sc, 1)
    assert sorted(p.start_figures for p in st.pieces.values() if "(Pettigrew)" in p.name) == [3, 3, 3]


def test_pettigrew_units_rally_no_higher_than_three():
    g = opening("picketts-charge", ["skirmish-right", "probe-centre", "skirmish-left", "rally"],
                ["rally", "skirmish-left", "probe-centre", "attack-right"])
    # BC §2.4 card 14: no more figures than at the start, so a 3-figure unit has no losses yet.
    with pytest.raises(Illegal, match="Rally cannot be used"):
        g.apply("confederate", "play rally")
    run(g, "confederate: play skirmish-left", "confederate: end",
        "union: play skirmish-right", "union: order 0202")
    ev = g.apply("union", "battle 0202 0207 dice=1")                  # Cemetery Hill guns, range 5
    assert ev[0].row == "artillery on a Hill, range 5"
    run(g, "union: end")
    assert named(g, "Davis").figures == 2
    run(g, "confederate: play rally")
    ev = g.apply("confederate", "rally 0207 dice=1,1,1,1")            # four infantry faces
    davis = named(g, "Davis")
    assert davis.figures == 3 and davis.start_figures == 3
    assert "3" in ev[-1].narrative


@pytest.mark.parametrize("sid", ["picketts-charge", "new-hope-church"])
def test_construct_field_works_is_out_of_the_deck(sid):
    sc = load_scenario(sid)
    assert sc.special["remove_cards"] == [FIELD_WORKS]
    assert FIELD_WORKS not in build_deck(sc)
    for seed in range(5):
        st = new_state(sc, seed)
        cards = st.deck + st.hands["union"] + st.hands["confederate"]
        assert FIELD_WORKS not in cards
        assert len(cards) == 60 - tables.DECK_COUNTS[FIELD_WORKS]
    control = new_state(load_scenario("fredericksburg"), 1)
    assert (control.deck + control.hands["union"] + control.hands["confederate"]).count(FIELD_WORKS) == \
        tables.DECK_COUNTS[FIELD_WORKS]


def test_picketts_charge_opening():
    g = opening("picketts-charge", ["attack-right", "probe-centre", "skirmish-left", "rally"],
                ["attack-left", "attack-centre", "rally", "skirmish-right"])
    # Confederate 1: Pettigrew's three weakened brigades step off and fire at the stone wall.
    run(g, "confederate: play attack-left", "confederate: order 0207 0307 0407",
        "confederate: move 0207 0206", "confederate: move 0307 0306", "confederate: move 0407 0406")
    ev = g.apply("confederate", "battle 0306 0403 dice=1,2")
    assert [m.reason for m in ev[0].modifiers] == ["target behind a Fence, attacker in front",
                                                   "General cg1 attached"]
    run(g, "confederate: battle 0206 0303 dice=3", "confederate: battle 0406 0403 dice=6",
        "confederate: end")
    assert named(g, "Smyth").figures == 1 and named(g, "Willard").figures == 4
    # Union 2: three hits are enough to destroy a Pettigrew brigade.
    run(g, "union: play attack-right", "union: order 0202 0303 0403",
        "union: battle 0202 0206 dice=1,6", "union: battle 0303 0206 dice=1,3",
        "union: battle 0403 0306 dice=1,1,2", "union: end")
    assert named(g, "Davis").hex is None and named(g, "Marshall").hex is None
    assert g.state.flags == {"union": 2, "confederate": 0}
    assert named(g, "Pettigrew").hex == "0306"                       # no flag: stays alone
    # Confederate 3: Pickett's division crosses the Emmitsburg road line.
    run(g, "confederate: play attack-centre", "confederate: order 0707 0807 0708",
        "confederate: move 0707 0706", "confederate: move 0807 0806", "confederate: move 0708 0707")
    ev = g.apply("confederate", "battle 0706 0603 dice=1,2")          # range 3, wall -1, Pickett +1
    assert ev[0].base == 2 and [m.value for m in ev[0].modifiers] == [-1, 1]
    run(g, "confederate: battle 0806 0703 dice=2", "confederate: end")
    assert named(g, "Hall's brigade").figures == 2 and named(g, "Harrow").figures == 3
    # Union 4: Gibbon's and Hancock's brigades answer.
    run(g, "union: play probe-centre", "union: order 0603 0703",
        "union: battle 0603 0706 dice=1,1,1", "union: battle 0703 0806 dice=1,6,4", "union: end")
    assert named(g, "Garnett").figures == 1 and named(g, "Kemper").figures == 2
    assert g.state.turn == 5 and g.state.active == "confederate"


# ---- #13 Chickamauga ----------------------------------------------------------------------------

def test_chickamauga_opening_longstreet_at_the_brotherton_gap():
    g = opening("chickamauga", ["probe-centre", "attack-left", "skirmish-right", "rally"],
                ["attack-centre", "probe-right", "skirmish-left", "rally"])
    sc = g.scenario
    assert sc.field_works == {"1003": ("union", ()), "1103": ("union", ())}
    run(g, "confederate: play attack-centre", "confederate: order 0707 0807 0708",
        "confederate: move 0707 0706", "confederate: move 0807 0806", "confederate: move 0708 0707")
    ev = g.apply("confederate", "battle 0706 0603 dice=1,5")          # Dyer's cornfield -1, Longstreet +1
    assert [m.value for m in ev[0].modifiers] == [-1, 1]
    assert g.state.pending["options"] == ["0502", "0602"]
    run(g, "union: retreat 0602", "confederate: end")
    assert (named(g, "Wood's").hex, named(g, "Wood's").figures) == ("0602", 3)
    run(g, "union: play probe-centre", "union: order 0802 0702",
        "union: battle 0702 0706 dice=1,6", "union: battle 0802 0806 dice=1", "union: end")
    assert named(g, "Bushrod").figures == 2 and named(g, "Stewart").figures == 3
    # Confederate 3: Cleburne against Thomas's breastworks: -2 from the front.
    run(g, "confederate: play probe-right", "confederate: order 1107 1207")
    with pytest.raises(Illegal, match="at least one die"):            # range 4: 1 - 2 + 1
        g.apply("confederate", "battle 1107 1103")
    run(g, "confederate: move 1107 1106")
    ev = g.apply("confederate", "battle 1106 1103 dice=6")
    assert [(m.value, m.section) for m in ev[0].modifiers][0] == (-2, "BC §2.3 Field-works")
    run(g, "confederate: end")
    assert named(g, "Johnson's division").figures == 3
    run(g, "union: play attack-left", "union: order 1103 1003 1203",
        "union: battle 1103 1106 dice=1,5", "union: end")
    cleburne = named(g, "Cleburne")
    assert (cleburne.hex, cleburne.figures) == ("1107", 3) and named(g, "Polk").hex == "1107"
    assert g.state.flags == {"union": 0, "confederate": 0} and g.state.turn == 5


# ---- #15 New Hope Church ------------------------------------------------------------------------

def test_new_hope_church_opening_hooker_in_the_hell_hole():
    g = opening("new-hope-church", ["attack-centre", "probe-centre", "skirmish-left", "rally"],
                ["fire-and-hold", "probe-centre", "skirmish-left", "rally"])
    run(g, "union: play attack-centre", "union: order 0803 0703 0903", "union: move 0803 0804",
        "union: move 0703 0704", "union: move 0903 0904")
    with pytest.raises(Illegal, match="may not battle this turn"):     # Candy into the woods
        g.apply("union", "battle 0904 0807")
    ev = g.apply("union", "battle 0804 0707 dice=1")                  # the church: -2, Hooker +1
    assert [m.value for m in ev[0].modifiers] == [-2, 1]
    with pytest.raises(Illegal, match="Field-works"):                 # range 3: 2 - 2 = 0 dice
        g.apply("union", "battle 0704 0607")
    run(g, "union: end")
    assert named(g, "Clayton").figures == 3
    run(g, "confederate: play fire-and-hold centre", "confederate: battle 0707 0804 dice=1,1,5",
        "union: retreat 0803", "confederate: battle 0607 0704 dice=1,6")
    with pytest.raises(Illegal, match="may not move this turn"):
        g.apply("confederate", "move 0807 0806")
    run(g, "confederate: end")
    assert (named(g, "Buschbeck").hex, named(g, "Buschbeck").figures) == ("0803", 2)
    assert named(g, "Hooker").hex == "0803" and named(g, "Coburn").figures == 2
    run(g, "union: play probe-centre", "union: order 0704 0803", "union: move 0704 0705",
        "union: battle 0705 0607 dice=6", "union: end")
    assert named(g, "Stovall").figures == 3
    run(g, "confederate: play probe-centre", "confederate: order 0608 0707")
    with pytest.raises(Illegal, match="crosses 0707"):                 # the church hides the guns
        g.apply("confederate", "battle 0608 0705")
    ev = g.apply("confederate", "battle 0707 0705 dice=1,1,4,4")      # range 2: 3, Stewart +1
    assert ev[0].base == 3 and [m.value for m in ev[0].modifiers] == [1]
    run(g, "confederate: end")
    assert named(g, "Coburn").hex is None
    assert g.state.flags == {"union": 0, "confederate": 1} and g.state.turn == 5


# ---- BC §6: Campaign Flags and the balancing pair ------------------------------------------

def test_campaign_flag_formula():
    assert campaign.campaign_flags(6, 2) == 4
    assert campaign.campaign_flags(6, 5) == 1
    assert campaign.campaign_flags(2, 4) == 0          # HERALD: never below 0 (resignation)
    with pytest.raises(campaign.OptionError, match="count of flags"):
        campaign.campaign_flags(-1, 0)


def test_seats_option_is_recorded_and_swapped_for_the_return_game():
    sc = load_scenario("fredericksburg")
    options = {"seats": {"union": "alice", "confederate": "bob"}}
    st = get_ruleset("battlecry").new_state(sc, 7, options)
    assert st.options == {"seats": {"union": "alice", "confederate": "bob"}, "leg": 1}
    back = get_ruleset("battlecry").swapped_options(st.options)
    assert back == {"seats": {"union": "bob", "confederate": "alice"}, "leg": 2}
    # the option records seats only: the set-up and the deal are the same
    assert new_state(sc, 7, back).hands == st.hands == new_state(sc, 7).hands
    assert "Union played by alice" in get_ruleset("battlecry").status(sc, st)
    with pytest.raises(campaign.OptionError, match="already the return game"):
        campaign.swapped_options(back)
    # older saved states without options still load
    d = st.to_dict()
    d.pop("options")
    assert BattleCryState.from_dict(d).options == {}


@pytest.mark.parametrize("options,error", [
    ({"seats": {"union": "alice", "confederate": "alice"}}, "cannot play both sides"),
    ({"seats": {"union": "alice"}}, "names the seat of each side"),
    ({"seats": {"union": "alice", "confederate": "bob"}, "leg": 3}, "'leg' is 1 or 2"),
    ({"leg": 2}, "needs 'seats'"),
    ({"swap": True}, "unknown Battle Cry game option 'swap'"),
])
def test_bad_options_are_refused(options, error):
    with pytest.raises(ScenarioError, match=error):
        new_state(load_scenario("devils-den"), 1, options)


def one_flag_game(options, flags_to_win=2):
    units = [("u", "union", "infantry", "0505"), ("c", "confederate", "infantry", "0504", {"figures": 1}),
             ("far", "confederate", "infantry", "1201"), ("ufar", "union", "infantry", "1209")]
    sc = parse_scenario(f"flags_to_win = {flags_to_win}\n" + scenario_text(units))
    rs = get_ruleset("battlecry")
    g = Game(rs, sc, 1, rs.new_state(sc, 1, options))
    g.state.hands["union"] = ["skirmish-centre"] * 4
    return g


def test_end_of_game_reports_campaign_flags_and_the_pair_has_a_winner():
    leg1 = one_flag_game({"seats": {"union": "alice", "confederate": "bob"}})
    run(leg1, "union: play skirmish-centre", "union: order u", "union: battle u 0504 dice=1",
        "union: end", "confederate: resign")
    assert leg1.state.winner == "union"
    report = leg1.history[-1].events[-1].outcome["campaign"]
    # HERALD (rules.end_report): a resignation concedes the battle's 2 flags to the winner
    assert report["campaign_flags"] == 2 and report["winner_seat"] == "alice" and report["conceded"]
    assert report["flags"] == {"union": 2, "confederate": 0}
    assert "alice" in leg1.state.result and "2 Campaign Flags (2 - 0" in leg1.state.result
    assert "a resignation concedes the battle's 2 flags" in leg1.state.result
    # a win on flags reports the formula too
    won = one_flag_game(None, flags_to_win=1)
    ev = run(won, "union: play skirmish-centre", "union: order u", "union: battle u 0504 dice=1")
    victory = [e for e in ev if e.kind == "victory"][0]
    assert victory.outcome["campaign"]["campaign_flags"] == 1
    assert "wins with 1 flags" in won.state.result and "gains 1 Campaign Flag" in won.state.result
    # the return game: sides swapped; bob (now Union) wins 1-0 again
    leg2 = one_flag_game(campaign.swapped_options(leg1.state.options))
    run(leg2, "union: play skirmish-centre", "union: order u", "union: battle u 0504 dice=1",
        "union: end", "confederate: resign")
    report2 = leg2.history[-1].events[-1].outcome["campaign"]
    assert report2["winner_seat"] == "bob" and report2["leg"] == 2
    result = campaign.pair_result([report, report2])
    assert result == {"campaign_flags": {"alice": 2, "bob": 2}, "winner": None}
    report2 = dict(report2, campaign_flags=3)
    assert campaign.pair_result([report, report2])["winner"] == "bob"
    with pytest.raises(campaign.OptionError, match="same two seats"):
        campaign.pair_result([report, dict(report2, seats={"union": "carol", "confederate": "alice"})])


def test_shiloh_objectives_count_in_the_campaign_report():
    # effective_flags decides the battle, so it is what the formula subtracts (BC §7 scenario 4)
    sc = load_scenario("shiloh")
    st = new_state(sc, 1)
    st.pieces[next(p.id for p in st.live("confederate") if not p.is_general)].hex = "1001"
    assert effective_flags(sc, st, "confederate") == 1
    st.winner = "confederate"
    from engine.battlecry.rules import end_report
    assert end_report(sc, st)["campaign_flags"] == 1
