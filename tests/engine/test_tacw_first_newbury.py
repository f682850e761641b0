"""First Newbury (engine/tacw/scenarios/first-newbury.toml) against the book's setup, its map and
areas, the deployment phase with Herald's suggested setup, the Halt (special rule 1), Round Hill
(rule 2), a scripted opening of two full turns, and the board drawn in the deployment phase.

The order of battle below is hard-coded from the digest §7.2 (rules/digests/tacw.md), checked
against the Italian setup ("PRIMA NEWBURY", rules/tacw.it.txt); it is not read from the file."""
from __future__ import annotations

import io
from collections import Counter

import pytest
from PIL import Image

from engine.core.errors import Illegal
from engine.core.facing import double_facings, vertex_index
from engine.core.game import Game
from engine.tacw import victory
from engine.tacw.sequence import deployment as deployment
from engine.tacw.scenario.schema import load_scenario
from engine.tacw.scenario.parse import setup_stack_problem

R, P = "royalist", "parliament"
SEED = 11
HALT = "TACW First Newbury special rule: The Halt"
ROUND_HILL = {"1607", "1608", "1706", "1707", "1708", "1807", "1808"}

# (side, wing or "pool", kind, strength, morale) for every counter -- digest §7.2
BOOK_OOB = Counter({
    (R, "r-centre", "artillery", 0, None): 5,            # 1 x 12 lb, 2 x 4-8 lb, 2 x 3 lb
    (R, "r-centre", "heavy", 15, 8): 2,                  # Vavasour, Byron (Sir Nicholas)
    (R, "r-centre", "heavy", 15, 6): 2,                  # Belasyse, Gerard (Sir Gilbert)
    (R, "r-centre", "light", 3, 6): 3,                   # 3 x Musketeers
    (R, "pool", "cavalry", 4, 8): 5,                     # I/ of the five brigades
    (R, "pool", "cavalry", 4, 7): 10,                    # II+III/ of the five brigades
    (P, "p-centre", "artillery", 0, None): 5,
    (P, "p-centre", "heavy", 10, 7): 2,                  # Robartes, Skippon
    (P, "p-centre", "heavy", 10, 6): 2,                  # Barclay, Holborne
    (P, "p-centre", "heavy", 15, 7): 2,                  # London Trained Bands, Auxiliaries
    (P, "p-centre", "heavy", 5, 7): 1,                   # Essex
    (P, "p-centre", "heavy", 5, 6): 1,                   # Springate
    (P, "p-left", "light", 1, 4): 3,                     # 3 x Commanded Shot
    (P, "pool", "cavalry", 2, 8): 2,                     # Essex LG, Bedford
    (P, "pool", "cavalry", 4, 7): 4,                     # Essex, Balfour, Behre, Middleton
    (P, "pool", "cavalry", 3, 7): 2,                     # Delbier, Harvey
    (P, "pool", "cavalry", 4, 6): 4,                     # Ramsey, Goodwin, Meldrum, Denbigh
    (P, "pool", "cavalry", 3, 6): 2,                     # Groby, Norton
    (P, "pool", "light", 1, 5): 2,                       # 2 x Dragoons
})
ROYAL_BRIGADES = ("rupert", "byron", "caernarvon", "wilmot", "gerard")


@pytest.fixture(scope="module")
def sc():
    return load_scenario("first-newbury")


def deployed(seed: int = SEED) -> Game:
    """A game that accepts Herald's suggested setup: `deploy done` for each side."""
    g = Game.new("tacw", "first-newbury", seed)
    g.apply(R, "deploy done")
    g.apply(P, "deploy done")
    return g


# -- the file against the book ------------------------------------------------------------------

def test_the_battle_the_book_gives(sc):
    assert (sc.turns, sc.date, sc.start_time) == (20, "20 September 1643", "about 8 a.m.")
    assert sc.sides[R].army_commander == "charles" and sc.sides[R].senior_wc == "rupert"
    assert sc.sides[P].army_commander == "essex" and sc.sides[P].senior_wc == "skippon"
    assert sc.edges == {R: "east", P: "west"}
    assert sc.historical_orders == {"r-left": "charge", "r-centre": "make_ready", "r-right": "make_ready",
                                    "p-centre": "receive_charge", "p-left": "receive_charge",
                                    "p-right": "receive_charge"}
    assert {w.id: w.commander for w in sc.wings} == {
        "r-centre": "astley", "r-left": "rupert", "r-right": "byron",
        "p-centre": "skippon", "p-left": "middleton", "p-right": "stapleton"}
    assert [w.id for w in sc.wings if w.cavalry] == ["r-left", "r-right", "p-left", "p-right"]
    assert sc.leader("charles").replacement == "Lord Forth" and sc.leader("charles").special == "king"
    # victory levels (D24: -70 is Royalist marginal) and the historical result
    levels = {d: sc.victory_level(d) for d in (20, 19, -10, -11, -39, -40, -70, -71)}
    assert levels == {20: "parliament_decisive", 19: "parliament_marginal", -10: "parliament_marginal",
                      -11: "draw", -39: "draw", -40: "royalist_marginal", -70: "royalist_marginal",
                      -71: "royalist_decisive"}
    assert sc.historical_result == "parliament_marginal"
    # the three special rules; the halt is played by the engine, 4 turns long
    assert [(r.id, r.kind) for r in sc.special_rules] == [("halt", "halt"), ("round-hill", ""),
                                                          ("named-farms", "")]
    assert sc.special_rule("halt").turns == 4


def test_order_of_battle_is_the_books(sc):
    got = Counter((u.side, "pool" if u.wing_choices else u.wing, u.kind, u.strength,
                   None if u.kind == "artillery" else u.morale) for u in sc.units)
    assert got == BOOK_OOB
    guns = Counter((u.side, u.gun_class) for u in sc.units if u.kind == "artillery")
    assert guns == Counter({(R, "culverin"): 1, (R, "saker"): 2, (R, "3lb"): 2,
                            (P, "culverin"): 1, (P, "saker"): 2, (P, "3lb"): 2})
    assert all((u.morale, u.ricochet_range, u.max_range) == {"culverin": (5, 5, 17), "saker": (5, 4, 14),
                                                             "3lb": (5, 3, 9)}[u.gun_class]
               for u in sc.units if u.kind == "artillery")             # as Edgehill's (D87)
    # strength 10+ foot are double units; the 5-strength regiments single
    assert all(len(u.hexes) == (2 if u.strength >= 10 else 1) for u in sc.units if u.kind == "heavy")
    assert sum(u.light_kind == "dragoons" for u in sc.units) == 2


def test_the_cavalry_pools(sc):
    pools = deployment.brigades(sc, R)
    assert sorted(pools) == sorted(f"{b}-brigade" for b in ROYAL_BRIGADES)
    for b in ROYAL_BRIGADES:
        ids = pools[f"{b}-brigade"]
        assert [(sc.unit(i).strength, sc.unit(i).morale) for i in ids] == [(4, 8), (4, 7), (4, 7)]
        assert [sc.unit(i).name.split("/")[0] for i in ids] == ["I", "II", "III"]
        assert all(sc.unit(i).wing_choices == ("r-left", "r-right") for i in ids)
    # Herald's suggestion: Sir John Byron's brigade on the right, the other four with Rupert
    assert {b: sc.unit(ids[0]).wing for b, ids in pools.items()} == {
        "rupert-brigade": "r-left", "byron-brigade": "r-right", "caernarvon-brigade": "r-left",
        "wilmot-brigade": "r-left", "gerard-brigade": "r-left"}
    ppools = deployment.brigades(sc, P)
    assert len(ppools) == 16 and all(len(ids) == 1 and b == ids[0] for b, ids in ppools.items())
    assert all(sc.unit(b).wing_choices == ("p-left", "p-right") for b in ppools)


def test_leaders_values_and_labels(sc):
    values = {ld.id: (ld.role, ld.value, ld.value_source) for ld in sc.leaders}
    assert values == {"charles": ("ac", 0, "herald"), "rupert": ("wc", -2, "book"),
                      "astley": ("wc", -1, "herald"), "byron": ("wc", -1, "herald"),
                      "essex": ("ac", 0, "herald"), "skippon": ("wc", -1, "herald"),
                      "middleton": ("wc", 0, "herald"), "stapleton": ("wc", -1, "herald")}
    herald = " ".join(sc.provenance["herald_completion"])
    assert "Leader values" in herald and "Artillery counters" in herald and "whole map" in herald
    assert any("Rupert's command value -2" in s for s in sc.provenance["from_book"])


# -- the map and the areas --------------------------------------------------------------------

def test_the_books_hex_numbers_on_the_map(sc):
    grid = sc.grid
    assert {(v.hex, v.vp, v.side) for v in sc.victory_hexes} == {(h, 5, R) for h in ROUND_HILL}
    areas = sc.deployment_areas
    # the reserve: within 2 hexes of 1408
    assert areas["p-reserve"].hexes == {h for h in grid if grid.distance(h, "1408") <= 2}
    # the centre: not east of column 19, rows 05 (Cope Hall) to 11 (Wash Common Farm)
    cols = {int(h[:2]) for h in areas["p-centre"].hexes}
    rows = {int(h[2:]) for h in areas["p-centre"].hexes}
    assert cols == set(range(1, 20)) and rows == set(range(5, 12))
    assert {"1905", "1911", "0105"} <= areas["p-centre"].hexes and not {"2005", "1904", "1912"} & areas["p-centre"].hexes
    assert ROUND_HILL <= areas["p-centre"].hexes and "1408" in areas["p-centre"].hexes
    # Rupert's wing: south of row 11; Stapleton's: not north of row 12
    assert min(int(h[2:]) for h in areas["r-left-wash-common"].hexes) == 12
    assert min(int(h[2:]) for h in areas["p-right-bell-hill"].hexes) == 12
    # the Wash Hill road from 3100 (3101 on Herald's map) to 2511, the centre's area along it
    road = next(r for r in sc.roads if r.name == "Wash Hill road")
    assert road.hexes[0] == "3101" and "2511" in road.hexes
    assert set(road.hexes[:road.hexes.index("2511") + 1]) <= areas["r-centre-wash-hill"].hexes
    # the right wing's area overlaps the centre's (the book: "quest'Ala si sovrappone all'Ala
    # centrale"), and no right-wing hex lies west of the road or south of the Sandleford road
    right = areas["r-right-sandleford"].hexes
    assert right & areas["r-centre-wash-hill"].hexes and not right & areas["r-left-wash-common"].hexes
    assert "3101" in right and "3001" not in right and "3409" not in right
    # the left wing: within 3 hexes of Skinners Green, whose label is on that hex
    assert areas["p-left-skinners-green"].near == ("1203", 3)
    labels = {lb.text: lb.hex for lb in sc.labels}
    assert labels["Skinners Green"] == "1203" and labels["Round Hill"] == "1707"
    assert labels["Cope Hall"][2:] == "05" and labels["Wash Common Farm"][2:] == "11"
    # named farms have no effect: no terrain under the labels
    assert sc.terrain_at(labels["Cope Hall"]) == sc.terrain_at(labels["Wash Common Farm"]) == "clear"


def test_the_ground(sc):
    grid = sc.grid
    hs = list(sc.hexsides.values())
    # Round Hill stands above every neighbour: a slope on each of its outer sides
    outer = {frozenset((h, n)) for h in ROUND_HILL for n in grid.neighbors(h) if n not in ROUND_HILL}
    assert len(outer) == 22
    for key in outer:
        side = sc.hexsides[key]
        assert side.type == "slope" and side.hex in ROUND_HILL           # the hill is the higher hex
    assert sc.crossing("1507", "1607") == "slope_up" and sc.crossing("1607", "1507") == "slope_down"
    # the plateau of Wash Common: its northern edge between rows 11 and 12
    assert sc.crossing("2011", "2012") == "slope_up"
    # the enclosures between Enborne and Round Hill: many hedges, none on Round Hill
    hedges = [h for h in hs if h.type == "hedge"]
    west = [h for h in hedges if 3 <= int(h.hex[:2]) <= 15]
    assert len(west) >= 60 and not any(h.hex in ROUND_HILL or h.other in ROUND_HILL for h in hedges)
    assert all(not h.no_effect for h in hs)
    # the Kennet to the north; Enborne to the west; the lane between them hedge-lined
    assert all(sc.terrain_at(f"{c:02d}01") == "river" for c in range(1, 28))
    assert sc.terrain_at("0208") == "village" and sc.terrain_at("1407") == "hedge_road"


def test_every_unit_stands_legally_inside_its_area(sc):
    g = Game.new("tacw", "first-newbury", SEED)
    st, grid = g.state, sc.grid
    west, east = vertex_index(grid, "W"), vertex_index(grid, "E")
    by_hex: dict[str, list] = {}
    for u in st.units.values():
        assert u.facing == (west if u.side == R else east), u.id
        for h in u.hexes:
            assert h in grid and not sc.hex_impassable(h), (u.id, h)
            by_hex.setdefault(h, []).append(u)
        if u.is_double:
            assert grid.adjacent(*u.hexes) and u.facing in double_facings(grid, *u.hexes), u.id
        legal = deployment.legal_hexes(sc, st, u.id)
        assert legal is not None and set(u.hexes) <= legal, u.id      # every unit has an area
        assert deployment.rule_problem(sc, st, u, at_end=True) is None
    for h, us in by_hex.items():
        assert setup_stack_problem(us) is None, h
    for ld in st.leaders.values():
        mates = [u for u in st.units_at(ld.hex) if u.side == ld.side and (ld.role == "ac" or u.wing == ld.wing)]
        assert mates, ld.id
    assert deployment.side_problems(sc, st, R) == deployment.side_problems(sc, st, P) == []
    # Parliament holds Round Hill at the start (Skippon and the guns)
    assert {u.side for h in ROUND_HILL for u in st.units_at(h)} == {P}


# -- the deployment phase ---------------------------------------------------------------------

def test_the_suggested_setup_is_played_by_deploy_done():
    g = Game.new("tacw", "first-newbury", SEED)
    assert g.state.phase == "deployment" and g.to_act == R
    g.apply(R, "deploy done")
    assert g.to_act == P
    events = g.apply(P, "deploy done")
    assert events[-1].narrative == "Turn 1: Royalist has the initiative (more wings on Charge (1 to 0))"
    assert g.state.phase == "activation" and g.state.turn == 1 and g.state.phasing == R


def test_a_pool_brigade_changes_wing_and_area():
    g = Game.new("tacw", "first-newbury", SEED)
    g.apply(R, "assign byron-brigade r-left")
    with pytest.raises(Illegal, match="I/Byron \\(Sir John\\) at 3202 is outside its deployment area "
                                      "'r-left-wash-common'"):
        g.apply(R, "deploy done")
    with pytest.raises(Illegal, match="3201 lies outside"):
        g.apply(R, "deploy r-i-byron 3201")
    with pytest.raises(Illegal, match="I/Rupert belongs to brigade 'rupert-brigade'"):
        g.apply(R, "assign r-i-rupert r-right")
    for uid, h in (("r-i-byron", "3112"), ("r-ii-byron", "3113"), ("r-iii-byron", "3114")):
        g.apply(R, f"deploy {uid} {h}")
    # the right wing now has no unit, and Byron is with a unit of the left wing
    problems = deployment.side_problems(g.scenario, g.state, R)
    assert problems == ["Royalist right wing (cavalry) has no unit: its commander is placed with a unit "
                        "of his wing", "Sir John Byron must stand with a unit of his wing (r-right)"]
    g.apply(R, "assign wilmot-brigade r-right")
    for uid, h in (("r-i-wilmot", "3302"), ("r-ii-wilmot", "3303"), ("r-iii-wilmot", "3304")):
        g.apply(R, f"deploy {uid} {h}")
    g.apply(R, "deploy byron 3302")
    g.apply(R, "deploy done")
    assert g.state.units["r-i-byron"].wing == "r-left" and g.state.units["r-i-wilmot"].wing == "r-right"
    assert g.state.leaders["byron"].hex == "3302"


# -- the Halt (special rule 1) -------------------------------------------------------------------

def test_the_halt_is_refused_unless_the_book_allows_it():
    g = Game.new("tacw", "first-newbury", SEED)
    with pytest.raises(Illegal, match="still deploying"):
        g.apply(R, "halt")
    g = deployed()
    with pytest.raises(Illegal) as exc:
        g.apply(P, "halt")
    assert str(exc.value) == f"only the Royalist player may declare a halt ({HALT})"
    st = g.state
    # units adjacent
    essex = st.units["p-essex-horse"]                             # 1612
    rupert = st.units["r-i-rupert"]
    rupert.hexes = ["1712"]
    with pytest.raises(Illegal, match=r"units are adjacent: I/Rupert \(1712\) and "):
        g.apply(R, "halt")
    rupert.hexes = ["2712"]
    assert essex.hexes == ["1612"]
    # a Parliament wing on Charge
    st.wings["p-left"].order = "charge"
    with pytest.raises(Illegal, match="a Parliament wing is on Charge orders: Parliament left wing"):
        g.apply(R, "halt")
    st.wings["p-left"].order = "receive_charge"
    # not once a wing has activated this turn, nor while one is active
    g.apply(R, "activate r-left")
    with pytest.raises(Illegal, match="no wing is active"):
        g.apply(R, "halt")
    g.apply(R, "stop")
    with pytest.raises(Illegal, match="at the start of a turn's Activation Phase"):
        g.apply(R, "halt")
    # Edgehill has no such rule
    edge = Game.new("tacw", "edgehill", 5)
    with pytest.raises(Illegal, match="Edgehill has no halt rule"):
        edge.apply(R, "halt")


def test_the_halt_rests_both_armies_for_four_turns():
    g = deployed()
    st = g.state
    u = st.units
    u["r-vavasour"].formation, u["r-vavasour"].morale_state = "disordered", "broken"
    u["p-skippon"].formation, u["p-skippon"].special_formation = "broken", "column"
    u["p-barclay"].special_formation = "hedgehog"
    u["p-holborne"].special_formation, u["p-holborne"].formation = "open", "disordered"
    u["p-robartes"].casualties, u["p-robartes"].at_threshold, u["p-robartes"].morale_state = 3, True, "broken"
    u["r-i-rupert"].pistols, u["p-essex-horse"].pistols = 0, 1
    st.wings["p-centre"].order, st.leaders["middleton"].finished = "make_ready", True
    events = g.apply(R, "halt")
    st = g.state
    assert events[0].kind == "halt" and events[0].section == HALT
    assert events[0].narrative.startswith("The Royalists declare a halt for turns 1-4")
    assert [e.narrative for e in events if e.kind == "phase"] == [f"Turn {t}: the halt" for t in (1, 2, 3, 4)]
    assert [e.narrative for e in events[-2:]] == [
        "The halt ends: turn 5 begins",
        "Turn 5: Royalist has the initiative (the better Wing Commander value)"]   # no Charge wing
    assert st.turn == 5 and st.phase == "activation" and st.phasing == R
    assert {w.order for w in st.wings.values()} == {"receive_charge"}
    u = st.units
    assert (u["r-vavasour"].formation, u["r-vavasour"].morale_state) == ("normal", "normal")
    assert (u["p-skippon"].formation, u["p-skippon"].special_formation) == ("normal", "")
    assert u["p-barclay"].special_formation == ""
    assert (u["p-holborne"].special_formation, u["p-holborne"].formation) == ("open", "normal")
    # the casualty threshold stays: Shaken for good, the casualties too
    assert (u["p-robartes"].morale_state, u["p-robartes"].casualties, u["p-robartes"].at_threshold) == \
        ("shaken", 3, True)
    assert u["r-i-rupert"].pistols == u["p-essex-horse"].pistols == 2
    assert not st.leaders["middleton"].finished
    assert st.draws == 0                               # no die was needed


@pytest.mark.parametrize("turn,resume", [(16, 20), (17, None), (20, None)])
def test_the_halt_expires_or_runs_out_the_day(turn, resume):
    g = deployed()
    g.state.turn = turn
    events = g.apply(R, "halt")
    st = g.state
    if resume:
        assert st.turn == resume and st.phase == "activation" and events[-2].narrative == \
            f"The halt ends: turn {resume} begins"
    else:
        assert st.phase == "over" and st.turn == 20 and events[-1].kind == "victory"
        assert events[0].narrative.startswith(f"The Royalists declare a halt for turns {turn}-20")
        assert [e.narrative for e in events if e.kind == "phase"][-1] == "Turn 20: the halt"


# -- Round Hill (special rule 2) -----------------------------------------------------------------

def test_round_hill_scores_five_vp_a_hex_held_by_the_royalists_alone():
    g = deployed()
    st, sc = g.state, g.scenario
    assert victory.victory_points(sc, st)[R] == {}
    for u in list(st.units.values()):                  # Parliament leaves the hill (off to 0120)
        if u.side == P and set(u.hexes) & ROUND_HILL:
            u.hexes = ["0120"] if len(u.hexes) == 1 else ["0120", "0121"]
    horse = ["r-i-rupert", "r-ii-rupert", "r-iii-rupert", "r-i-caernarvon"]
    for uid, h in zip(horse, ["1607", "1706", "1707", "1808"]):
        st.units[uid].hexes = [h]
    vp = victory.victory_points(sc, st)
    assert vp[R] == {"victory hex 1607": 5, "victory hex 1706": 5, "victory hex 1707": 5,
                     "victory hex 1808": 5}
    assert vp[P] == {}                                  # the hill scores only for the Royalists
    # a hex shared with an enemy unit is held by nobody; a captured gun marker holds nothing
    st.units["p-springate"].hexes = ["1607"]
    gun = st.units["p-culverins"]
    gun.hexes, gun.gun_state, gun.captured_by = ["1707"], "captured", R
    vp = victory.victory_points(sc, st)
    assert "victory hex 1607" not in vp[R] and vp[R]["victory hex 1707"] == 5
    assert vp[R]["guns captured"] == 15
    events = victory.end_of_battle(sc, st)
    assert st.vp == {R: 30, P: 0} and events[0].outcome["difference"] == -30
    assert st.winner == "draw" and st.result.startswith("Draw")


# -- a scripted opening: two full turns -------------------------------------------------------------

OPENING = [
    # the deployment: Wilmot's brigade goes to Byron's wing, Harvey to Middleton's
    (R, "assign wilmot-brigade r-right"), (R, "deploy r-i-wilmot 3302"), (R, "deploy r-ii-wilmot 3303"),
    (R, "deploy r-iii-wilmot 3304 facing sw"), (R, "deploy done"),
    (P, "assign p-harvey p-left"), (P, "deploy p-harvey 1402"), (P, "deploy stapleton 1612"),
    (P, "deploy done"),
    # turn 1: Rupert's Charge wing first (§4.2), then the Make Ready wings, then Parliament
    (R, "activate r-left"), (R, "move r-i-rupert 2612 2512 2412 2312"),
    (R, "move r-ii-rupert 2613 2513 2413 2313"), (R, "move r-iii-rupert 2614 2514 2414 2314"),
    (R, "leader rupert move 2612 2512 2412 2312"), (R, "stop"),
    (R, "activate r-centre"), (R, "move r-belasyse 2507"), (R, "stop"),
    (R, "activate r-right"), (R, "move r-i-byron 3102"), (R, "stop"),
    (P, "activate p-right"), (P, "move p-essex-horse 1712"), (P, "stop"),
    (P, "pass"), (P, "pass"),
    # turn 2
    (R, "activate r-left"), (R, "move r-i-caernarvon 2615 2515 2415 2315"),
    (R, "move r-ii-caernarvon 2616 2516 2416 2316"), (R, "stop"),
    (R, "activate r-centre"), (R, "stop"), (R, "activate r-right"), (R, "stop"),
    (P, "activate p-right"), (P, "move p-balfour 1713"), (P, "stop"),
    (P, "activate p-centre"), (P, "stop"), (P, "activate p-left"), (P, "stop"),
]


def test_a_scripted_opening_of_two_full_turns():
    g = Game.new("tacw", "first-newbury", SEED)
    for side, line in OPENING:
        g.apply(side, line)
    st = g.state
    assert st.turn == 3 and st.phase == "activation" and st.initiative == R and st.phasing == R
    u = st.units
    assert u["r-iii-wilmot"].wing == "r-right" and u["r-iii-wilmot"].facing == vertex_index(g.scenario.grid, "SW")
    assert u["p-harvey"].wing == "p-left" and st.leaders["stapleton"].hex == "1612"   # placed with Essex;
    # in play a leader moves on his own (§5.2.2): Essex's regiment went on to 1712 without him
    assert [u[i].hexes for i in ("r-i-rupert", "r-ii-rupert", "r-iii-rupert")] == [["2312"], ["2313"], ["2314"]]
    assert st.leaders["rupert"].hex == "2312"
    assert u["r-belasyse"].hexes == ["2507", "2508"] and u["r-i-byron"].hexes == ["3102"]
    assert [u[i].hexes for i in ("r-i-caernarvon", "r-ii-caernarvon")] == [["2315"], ["2316"]]
    assert u["p-essex-horse"].hexes == ["1712"] and u["p-balfour"].hexes == ["1713"]
    texts = [e.narrative for r in g.history for e in r.events]
    assert "I/Rupert: 2612 (1 MP), 2512 (1 MP), 2412 (1 MP), 2312 (1 MP); 4 of 8 MP" in texts
    assert texts.count("Turn 1: the Activation Phase ends") == 1
    assert "Turn 2: Royalist has the initiative (more wings on Charge (1 to 0))" in texts
    assert "Turn 3: Royalist has the initiative (more wings on Charge (1 to 0))" in texts
    # nobody came within reach of anybody: no die rolled, no loss, no VP
    assert st.draws == 0 and st.vp == {R: 0, P: 0}
    assert all(x.casualties == 0 and x.alive for x in u.values())
    again = Game.new("tacw", "first-newbury", SEED)
    for rec in g.history:
        again.apply(rec.side, rec.text)
    assert again.state.state_hash() == st.state_hash()


# -- the board in the deployment phase ------------------------------------------------------------

def _pixel(sc, png: bytes, hex_id: str):
    from renders.tacw import board_geometry
    img = Image.open(io.BytesIO(png)).convert("RGB")
    x, y = board_geometry(sc).hex_center(hex_id)
    return img.getpixel((int(x), int(y + 0.35 * board_geometry(sc).r)))


def test_the_board_shades_the_areas_of_the_sides_still_deploying(sc):
    from renders.tacw import render_board
    from renders.tacw_art import SIDE_COLOURS, TERRAIN_COLOURS
    g = Game.new("tacw", "first-newbury", SEED)
    royal, parl = "3420", "0518"                  # empty hexes of r-left-wash-common, p-right-bell-hill
    assert royal in sc.deployment_areas["r-left-wash-common"].hexes
    assert parl in sc.deployment_areas["p-right-bell-hill"].hexes
    assert not g.state.units_at(royal) and not g.state.units_at(parl)
    both = render_board(sc, g.state)
    g.apply(R, "deploy done")
    parl_only = render_board(sc, g.state)
    g.apply(P, "deploy done")
    none = render_board(sc, g.state)
    clear = TERRAIN_COLOURS["clear"]

    def tinted(px, side):     # moved toward the side's colour, away from the clear terrain
        return sum(abs(a - b) for a, b in zip(px, clear)) > 30 and \
            sum(abs(a - b) for a, b in zip(px, SIDE_COLOURS[side])) < sum(abs(a - b) for a, b in zip(clear, SIDE_COLOURS[side]))

    def plain(px):
        return max(abs(a - b) for a, b in zip(px, clear)) <= 10

    assert tinted(_pixel(sc, both, royal), R) and tinted(_pixel(sc, both, parl), P)
    assert plain(_pixel(sc, parl_only, royal)) and tinted(_pixel(sc, parl_only, parl), P)
    assert plain(_pixel(sc, none, royal)) and plain(_pixel(sc, none, parl))


@pytest.mark.parametrize("face, outcome", [(6, "dead"), (2, "away")])
def test_5_3_5_lord_forth_takes_the_army_when_the_king_falls(face, outcome):
    """"Comandante di Armata: Re carlo I (rimpiazzo: Lord Forth)"; §5.3.5: the senior WC replaces
    a fallen Army Commander "a meno che che non sia indicato diversamente nelle regole della
    battaglia". Forth commands the army and Rupert (senior WC) keeps the left wing (D37). On
    "returns next turn" (roll 1) Forth stands in for the turn and stands down when the King comes
    back."""
    from engine.core.dice import DiceStream
    from engine.tacw.sequence.endturn import marker_removal
    g = Game.new("tacw", "first-newbury", 5)
    st = g.state.copy()
    king = st.leaders["charles"]
    king.status, king.removed_turn, king.hex = "removed", st.turn, None
    events = marker_removal(g.scenario, st, DiceStream(st.seed, st.draws, [face]))   # face-1: 5 / 1
    assert king.status == outcome
    forth = st.army_commander("royalist")
    assert forth.name == "Lord Forth" and forth.role == "ac" and forth.value == 0 and forth.hex
    assert st.leaders["rupert"].role == "wc" and st.wings["r-left"].commander == "rupert"
    assert "Lord Forth" in " ".join(e.narrative for e in events)
    if outcome == "away":
        st.turn += 1
        marker_removal(g.scenario, st, DiceStream(st.seed, st.draws, []))
        assert king.status == "active" and st.army_commander("royalist") is king
        assert forth.status == "stood_down"
