"""Lion of the North movement [4]-[6], [12 C]: moves, wheels, terrain, interpenetration, contact,
charges, groups, Cpts, guns, dragoons, generals and evasion, against hand-computed figures.

The positions are built on a small fixture battle (scenario dataclasses) with a LionState made
by hand: the Swedes (player A, south) on their move card with 6 Cpts. Terrain of the fixture:
woods x 60-80 y 40-60; a river along y 79-81 with a ford at x 97-103 (y 78-82) and a bridge
under the road; a road x 148-152 from south to north; a marsh x 20-40 y 60-75; a town x 120-135
y 40-55. The Swedish general stands at (90, 10), far from everything unless a test moves him.
"""
from __future__ import annotations

import math

import pytest

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.lion import scenario as scn
from engine.lion.movement import artillery, dragoons, generals, move
from engine.lion.state import Army, General, LionState, Unit

SW, IM = "swedish", "imperial"


def fixture_scenario():
    feats = (
        scn.Feature("w1", "woods", "Wood", ((60, 40), (80, 40), (80, 60), (60, 60))),
        scn.Feature("r1", "river", "River", ((0, 80), (180, 80)), width=2.0),
        scn.Feature("f1", "ford", "Ford", ((100, 78), (100, 82)), width=6.0),
        scn.Feature("b1", "bridge", "Bridge", ((150, 77), (150, 83)), width=4.0),
        scn.Feature("rd", "road", "Road", ((150, 0), (150, 120)), width=4.0),
        scn.Feature("m1", "marsh", "Marsh", ((20, 60), (40, 60), (40, 75), (20, 75))),
        scn.Feature("t1", "town", "Town", ((120, 40), (135, 40), (135, 55), (120, 55))),
    )
    armies = {SW: scn.ArmySpec(SW, "Swedes", "swedish", "trained", "A", "south"),
              IM: scn.ArmySpec(IM, "Imperials", "imperial", "regular", "B", "north")}
    return scn.Scenario("fixture", "Fixture", "1631", 180.0, 120.0, feats, armies, (), (), (), 12, ())


SC = fixture_scenario()


def state(cpts: int = 6) -> LionState:
    st = LionState(scenario_id="fixture", seed=1)
    st.players = {"A": SW, "B": IM}
    st.armies = {SW: Army(SW, "trained", cpts=cpts, cpts_rolled=cpts), IM: Army(IM, "regular")}
    st.generals = {"sg": General("sg", SW, "cinc", 90.0, 10.0, 0.0),
                   "ig": General("ig", IM, "cinc", 90.0, 115.0, 180.0)}
    st.card, st.step = "move_a", "act"
    return st


def put(st, uid, type_, x, y, facing=0.0, side=SW, **kw) -> Unit:
    u = Unit(uid, side, type_, x, y, facing, **kw)
    st.units[uid] = u
    return u


def run(st, line: str, dice=(), side=SW):
    words = line.split()
    verb, args = words[0], tuple(words[1:])
    handler = {"move": move.do_move, "charge": move.do_charge, "about": move.do_about,
               "pivot": artillery.do_pivot, "limber": artillery.do_limber, "deploy": artillery.do_deploy,
               "mount": dragoons.do_mount, "dismount": dragoons.do_dismount,
               "general": generals.do_general}[verb]
    return handler(SC, st, side, Command(verb, args), DiceStream(1, 0, supplied=list(dice)))


def refused(st, line: str, dice=(), side=SW) -> str:
    with pytest.raises(Illegal) as e:
        run(st, line, dice, side)
    return str(e.value)


# == the allowance [5], [Tabella riassuntiva] ===========================================================

def test_advance_within_the_allowance_costs_one_cpt():
    """[5], [4 C]: musketeers move 10 cm; 1 Cpt with the general within 40 cm... here he is far
    (90, 10) from (30, 10): 58 cm between the bases, so 2 Cpts [4 C]."""
    st = state()
    u = put(st, "m1", "musketeers", 30, 10)
    ev = run(st, "move m1 advance 10")
    assert (u.x, u.y, u.facing) == (30.0, 20.0, 0.0)
    assert u.moved
    assert st.armies[SW].cpts == 4
    assert st.last_action["distance"] == 10.0 and st.last_action["allowance"] == 10.0
    assert st.last_action["paths"][0][0] == (30.0, 10.0) and st.last_action["paths"][0][-1] == (30.0, 20.0)
    assert any(e.kind == "move" for e in ev)


def test_advance_beyond_the_allowance_is_refused_with_both_numbers():
    """[5], [Tabella riassuntiva]: "the move is 14.2 cm, at most 10"."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    assert "the move is 14.2 cm, at most 10" in refused(st, "move m1 advance 14.2")
    assert st.units["m1"].y == 10.0


def test_one_move_per_turn():
    """HERALD D8: a unit moves once in a turn."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    run(st, "move m1 advance 5")
    assert "already moved" in refused(st, "move m1 advance 5")


# == the rotation [5 A] ===============================================================================

def test_wheel_45_right_about_the_front_right_corner():
    """[5 A], HERALD D4: a 45-degree right wheel about the front-right corner (32, 10): the
    front-centre goes to (32 - 2 cos 45, 10 + 2 sin 45) = (30.59, 11.41); the outer corner's arc
    4 * pi / 4 = 3.14 cm of the allowance."""
    st = state()
    u = put(st, "m1", "musketeers", 30, 10)
    run(st, "move m1 wheel 45 right")
    assert (u.x, u.y, u.facing) == (30.59, 11.41, 45.0)
    assert u.turned == 45.0
    assert st.last_action["distance"] == 3.14


def test_wheel_52_is_refused():
    """[5 A]: "the wheel is 52 degrees, at most 45 in a turn"."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    assert "the wheel is 52 degrees, at most 45 in a turn" in refused(st, "move m1 wheel 52 left")


def test_the_rotation_comes_before_any_other_movement():
    """[5 A] "dev'essere effettuata prima di qualsiasi altro movimento"."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    assert "before any other movement" in refused(st, "move m1 advance 3 wheel 20 left")


def test_the_45_degrees_are_counted_over_the_turn():
    """[5 A]: a unit that turned 30 this turn may wheel 15 more."""
    st = state()
    put(st, "m1", "musketeers", 30, 10, turned=30.0)
    assert "at most 15 more" in refused(st, "move m1 wheel 20 right")


def test_units_do_not_pivot():
    """HERALD D4, [6 C]: only guns pivot on the spot; a unit wheels."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    assert "only guns pivot" in refused(st, "move m1 pivot 20 right")


# == terrain [5 B] ====================================================================================

def test_road_doubles_when_the_base_starts_and_ends_on_it():
    """[5 B]: musketeers on the road (x 148-152) move 20 along it; off the road 10."""
    st = state()
    u = put(st, "m1", "musketeers", 150, 10)
    run(st, "move m1 advance 20")
    assert u.y == 30.0
    st = state()
    put(st, "m2", "musketeers", 30, 10)
    assert "at most 10" in refused(st, "move m2 advance 20")


def test_road_doubling_lost_when_the_move_ends_off_the_road():
    """[5 B]: a left wheel of 45 (3.14 cm) and 12 cm end at (140.93, 19.9), off the road: 15.14 cm
    is more than the 10 of a move off the road."""
    st = state()
    put(st, "m1", "musketeers", 150, 10)
    msg = refused(st, "move m1 wheel 45 left advance 12")
    assert "the move is 15.14 cm, at most 10 off the road" in msg


def test_entering_woods_stops_the_base():
    """[5 B] "Basette che entrano in boschi devono arrestarsi immediatamente": from y 35 the place
    enters the wood (y 40) after 5 cm and stops there."""
    st = state()
    u = put(st, "m1", "musketeers", 70, 35)
    run(st, "move m1 advance 8")
    assert u.x == 70.0 and u.y == pytest.approx(40.0, abs=0.01)
    assert u.stopped_in == "woods"
    assert st.last_action["entered"] == {"m1": "woods"}


def test_in_the_woods_infantry_loses_1d6():
    """[5 B]: a later turn in the wood, infantry subtracts 1d6: a 4 leaves 6 of 10 cm, and the
    move goes that far (HERALD D64)."""
    st = state()
    u = put(st, "m1", "musketeers", 70, 45, stopped_in="woods")
    ev = run(st, "move m1 advance 10", dice=[4])
    assert u.y == 51.0
    head = next(e for e in ev if e.kind == "move")
    assert [d.result for d in head.dice] == [4]


def test_in_the_woods_cavalry_loses_2d6():
    """[5 B]: cavalry subtracts 2d6: 3 + 5 = 8 of 22 leaves 14."""
    st = state()
    u = put(st, "c1", "regular_cavalry", 65, 44, stopped_in="woods")
    run(st, "move c1 advance 20", dice=[3, 5])
    assert u.y == 58.0


def test_river_refused_and_ford_stops():
    """[5 B]: no one crosses a watercourse but at a bridge or ford; a base that meets a ford stops,
    and next move loses 1d6."""
    st = state()
    put(st, "m1", "musketeers", 50, 72)
    assert "cross the water" in refused(st, "move m1 advance 10")
    u = put(st, "m2", "musketeers", 100, 72)
    run(st, "move m2 advance 8")
    assert u.y == pytest.approx(78.0, abs=0.01) and u.stopped_in == "ford"
    st2 = state()
    st2.units["m2"] = Unit("m2", SW, "musketeers", 100, 78, 0.0, stopped_in="ford")
    run(st2, "move m2 advance 8", dice=[2])
    assert st2.units["m2"].y == 86.0 and st2.units["m2"].stopped_in == ""


def test_bridge_carries_the_road_over_the_river():
    """[5 B]: at a bridge the river is crossed."""
    st = state()
    u = put(st, "m1", "musketeers", 150, 70)
    run(st, "move m1 advance 20")
    assert u.y == 90.0


def test_marsh_refused_to_cavalry_and_town_to_pikemen():
    """[5 B]: only infantry and generals cross marshes; only musketeers, militia and dismounted
    dragoons enter towns (HERALD D63); artillery never into woods [6 A]."""
    st = state()
    put(st, "c1", "regular_cavalry", 30, 50)
    assert "only infantry and generals cross marshes" in refused(st, "move c1 advance 15")
    put(st, "p1", "pikemen", 127, 35)
    assert "only musketeers, militia and dismounted dragoons" in refused(st, "move p1 advance 8")
    m = put(st, "m1", "musketeers", 130, 35)
    run(st, "move m1 advance 8")
    assert m.y == pytest.approx(40.0, abs=0.01) and m.stopped_in == "town"
    put(st, "g1", "light_guns", 70, 33)
    assert "artillery never moves into woods" in refused(st, "move g1 advance 8")


# == interpenetration [5 C] ===========================================================================

def test_friends_passed_through_are_disordered_never_destroyed():
    """[5 C] "E' possibile interpenetrare basette amiche disordinandole: nessun'unità viene
    distrutta da unità amiche"."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    f = put(st, "p1", "pikemen", 30, 15)
    run(st, "move m1 advance 10")
    assert f.hits == 1 and f.alive
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    f = put(st, "p1", "pikemen", 30, 15, hits=1)
    run(st, "move m1 advance 10")
    assert f.hits == 1 and f.alive


def test_a_move_may_not_end_on_a_friend():
    """[5 C]: interpenetration passes through; no base ends on another."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    put(st, "p1", "pikemen", 30, 19)
    assert "would end on" in refused(st, "move m1 advance 8")


def test_enemies_are_never_passed_through():
    """[5 C] "Non è mai possibile interpenetrare unità nemiche": cavalry touching infantry may
    disengage backward (2d6 off its move, [8 E]) but never ride through it."""
    st = state()
    put(st, "c1", "regular_cavalry", 100, 50)
    put(st, "e1", "musketeers", 100, 50, 180.0, side=IM)
    assert "never passed through" in refused(st, "move c1 advance 10", dice=[2, 3])
    c = st.units["c1"]
    run(st, "move c1 back 10", dice=[2, 3])
    assert (c.x, c.y, c.facing) == (100.0, 40.0, 0.0)


def test_infantry_in_contact_may_not_move():
    """[8 A], [8 E], HERALD D66: only cavalry in contact with infantry disengages."""
    st = state()
    put(st, "m1", "musketeers", 30, 50)
    put(st, "e1", "musketeers", 30, 50, 180.0, side=IM)
    assert "only cavalry in contact with infantry may disengage" in refused(st, "move m1 back 5")


# == contact [5], [8 A], HERALD D6 ====================================================================

def test_contact_stops_the_move_and_records_the_front():
    """[8 A], HERALD D6: the move stops at the enemy's front edge (y 16) and the mover is
    conformed, centred on it (x 31); the enemy records the contact on its front [7 D]."""
    st = state()
    u = put(st, "m1", "musketeers", 30, 10)
    e = put(st, "e1", "pikemen", 31, 16, 180.0, side=IM)
    run(st, "move m1 advance 10")
    assert (u.x, u.facing) == (31.0, 0.0) and u.y == pytest.approx(16.0, abs=0.03)
    assert st.last_action["contact"]["target"] == "e1" and st.last_action["contact"]["edge"] == "front"
    assert e.contacted_by == ["m1"]


def test_contact_on_a_flank_is_not_front_contact():
    """HERALD D6: touching the right edge of an enemy facing east (the edge y 15, x 31-33), the
    mover lies flush against it, its centre on the touch (31.5); no contact fire is owed."""
    st = state()
    u = put(st, "m1", "musketeers", 30, 10)
    e = put(st, "e1", "pikemen", 33, 17, 90.0, side=IM)
    run(st, "move m1 advance 10")
    assert st.last_action["contact"]["edge"] == "right"
    assert u.x == pytest.approx(31.5, abs=0.03) and u.facing == 0.0 and u.y == pytest.approx(15.0, abs=0.03)
    assert e.contacted_by == []


def test_disordered_units_may_not_close():
    """[9 A] "Unità disordinate non possono chiudere contatto"; a P&S may until its 2nd hit [12 E]."""
    st = state()
    put(st, "m1", "musketeers", 30, 10, hits=1)
    put(st, "e1", "pikemen", 30, 16, 180.0, side=IM)
    assert "disordered units may not close" in refused(st, "move m1 advance 10")
    st = state()
    p = put(st, "ps", "pike_and_shot", 30, 10, hits=1)
    put(st, "e1", "pikemen", 30, 16, 180.0, side=IM)
    run(st, "move ps advance 8")
    assert st.last_action["contact"]["target"] == "e1"
    p.hits = 2
    p.moved = False
    p.y = 10.0
    assert "Pike & Shot with 2 hits" in refused(st, "move ps advance 8")


def test_about_face_forbids_contact_and_disorders_pikes():
    """[5 D]: musketeers about-face and move half (5 cm); pikemen about-face, stay and are
    disordered; no contact in an about-face move."""
    st = state()
    m = put(st, "m1", "musketeers", 30, 20)
    run(st, "about m1 advance 5")
    assert m.facing == 180.0 and m.y == pytest.approx(13.0)
    st = state()
    put(st, "m1", "musketeers", 30, 20)
    assert "at most 5" in refused(st, "about m1 advance 6")
    p = put(st, "p1", "pikemen", 60, 20)
    run(st, "about p1")
    assert p.facing == 180.0 and p.y == 18.0 and p.hits == 1
    st = state()
    put(st, "m1", "musketeers", 30, 20)
    put(st, "e1", "pikemen", 30, 15, 0.0, side=IM)
    assert "about-faces may not contact" in refused(st, "about m1 advance 5")


# == charge ===========================================================================================

def test_charge_straight_ahead():
    """[8 A]: the enemy's front 8 cm ahead: no wheel, an 8 cm advance into contact."""
    st = state()
    u = put(st, "m1", "musketeers", 30, 10)
    put(st, "e1", "pikemen", 30, 18, 180.0, side=IM)
    run(st, "charge m1 e1")
    assert st.last_action["contact"]["target"] == "e1"
    assert u.y == pytest.approx(18.0, abs=0.03) and u.turned == 0.0


def test_charge_wheels_to_face_the_target():
    """[5 A], [8 A]: the enemy half right: the charge wheels right (under 45) then advances."""
    st = state()
    u = put(st, "m1", "musketeers", 30, 10)
    put(st, "e1", "pikemen", 36, 16, 180.0, side=IM)
    run(st, "charge m1 e1")
    assert st.last_action["contact"]["target"] == "e1"
    assert 0.0 < u.turned <= 45.0
    assert st.last_action["distance"] <= 10.0


def test_charge_out_of_reach():
    """[5]: 28 cm away, musketeers move 10: refused with both numbers."""
    st = state()
    put(st, "m1", "musketeers", 30, 10)
    put(st, "e1", "pikemen", 30, 38, 180.0, side=IM)
    msg = refused(st, "charge m1 e1")
    assert "out of reach" in msg and "needs 28" in msg and "at most 10" in msg


# == groups [4 B] =====================================================================================

def test_group_moves_as_a_block_for_one_move():
    """[4 B]: three musketeers side by side move 8 together, for one move's Cpts."""
    st = state()
    us = [put(st, f"m{i}", "musketeers", 30 + 4 * i, 10) for i in range(3)]
    run(st, "move m0+m1+m2 advance 8")
    assert [u.y for u in us] == [18.0, 18.0, 18.0] and all(u.moved for u in us)
    assert st.armies[SW].cpts == 4


def test_broken_group_is_refused():
    """[4 B]: a gap of 1 cm between two bases breaks the front."""
    st = state()
    put(st, "m0", "musketeers", 30, 10)
    put(st, "m1", "musketeers", 34, 10)
    put(st, "m2", "musketeers", 39, 10)
    assert "gap of 1.00 cm" in refused(st, "move m0+m1+m2 advance 8")


def test_group_arms_and_forced_march():
    """[4 B]: cavalry with pikemen is no group; [4 D] no forced march for a group."""
    st = state()
    put(st, "c0", "regular_cavalry", 30, 10)
    put(st, "p1", "pikemen", 34, 10)
    assert "a group is of one arm" in refused(st, "move c0+p1 advance 5")
    st = state()
    put(st, "m0", "musketeers", 30, 10)
    put(st, "m1", "musketeers", 34, 10)
    assert "never a group" in refused(st, "move m0+m1 advance 5 forced")


def test_column_on_the_road():
    """[4 B] "Un gruppo che muove lungo una strada ... deve muovere in colonna": three bases one
    behind the other on the road advance 14 together (doubled on the road)."""
    st = state()
    us = [put(st, f"m{i}", "musketeers", 150, 10 - 2 * i) for i in range(3)]
    run(st, "move m2+m1+m0 advance 14")
    assert [u.y for u in us] == [24.0, 22.0, 20.0]


# == Cpts [4] =========================================================================================

def test_forced_march_doubles_and_costs_one_more():
    """[4 D]: 20 cm for musketeers, 1 Cpt more; triple speed only with the Surprise March."""
    st = state()
    st.generals["sg"].x, st.generals["sg"].y = 30.0, 5.0
    u = put(st, "m1", "musketeers", 30, 10)
    run(st, "move m1 advance 20 forced")
    assert u.y == 30.0 and st.armies[SW].cpts == 4
    put(st, "m2", "musketeers", 40, 10)
    assert "Surprise March" in refused(st, "move m2 advance 30 triple")


def test_cpts_at_39_and_41_cm_from_the_general():
    """[4 C]: 1 Cpt with the general within 40 cm (39 between the bases), 2 beyond (41)."""
    st = state()
    st.generals["sg"].x, st.generals["sg"].y = 30.0, 10.0     # his base y 8-10
    put(st, "m1", "musketeers", 30, 51)                         # base y 49-51: 39 cm
    run(st, "move m1 advance 2")
    assert st.armies[SW].cpts == 5
    st = state()
    st.generals["sg"].x, st.generals["sg"].y = 30.0, 10.0
    put(st, "m1", "musketeers", 30, 53)                         # 41 cm
    run(st, "move m1 advance 2")
    assert st.armies[SW].cpts == 4


def test_no_cpts_no_move():
    """[4 A]: a move needs its Cpts."""
    st = state(cpts=1)
    put(st, "m1", "musketeers", 30, 10)
    assert "costs 2 Cpts, 1 left" in refused(st, "move m1 advance 5")


# == artillery [6] ====================================================================================

def test_guns_that_never_move():
    """[6 B]: heavy guns and mortars never move (organ guns neither, HERALD D11)."""
    st = state()
    put(st, "h1", "heavy_guns", 30, 10)
    assert "never moves" in refused(st, "move h1 advance 4")


def test_light_guns_move_limbered_and_change_status_once():
    """[6 A]: a limbered light gun moves 8; deployed it never moves; status changes once."""
    st = state()
    g = put(st, "g1", "light_guns", 30, 10)
    assert "at most 8" in refused(st, "move g1 advance 9")
    run(st, "move g1 advance 8")
    assert g.y == 18.0
    st = state()
    g = put(st, "g1", "light_guns", 30, 10, deployed=True)
    assert "deployed" in refused(st, "move g1 advance 4")
    run(st, "limber g1")
    assert not g.deployed and g.status_changed and g.moved
    g.moved = False
    assert "changed its status once already" in refused(st, "deploy g1")
    assert st.armies[SW].cpts == 6


def test_gun_pivot_and_no_contact():
    """[6 C]: a pivot on the spot up to 45 degrees for a move's Cpt; [6 A] never into contact."""
    st = state()
    st.generals["sg"].x, st.generals["sg"].y = 30.0, 4.0
    g = put(st, "g1", "medium_guns", 30, 10, deployed=True)
    assert "the pivot is 50 degrees, at most 45" in refused(st, "pivot g1 50 right")
    run(st, "pivot g1 30 right")
    assert g.facing == 30.0 and st.armies[SW].cpts == 5
    st = state()
    put(st, "g2", "regimental_guns", 30, 10)
    put(st, "e1", "pikemen", 30, 16, 180.0, side=IM)
    assert "guns never move into contact" in refused(st, "move g2 advance 8")


# == dragoons [12 C] ==================================================================================

def test_dragoons_dismount_and_mount():
    """[12 C]: no Cpt, not in contact, not after moving; the unit moves no more this turn."""
    st = state()
    d = put(st, "d1", "dragoons", 30, 10)
    run(st, "dismount d1")
    assert not d.mounted and d.moved and st.armies[SW].cpts == 6
    assert "already moved" in refused(st, "move d1 advance 5")
    st = state()
    d = put(st, "d1", "dragoons", 30, 10)
    run(st, "move d1 advance 5")
    assert "has moved this turn" in refused(st, "dismount d1")
    st = state()
    put(st, "d1", "dragoons", 30, 10)
    put(st, "e1", "pikemen", 30, 10, 180.0, side=IM)
    assert "in contact" in refused(st, "dismount d1")
    st = state()
    put(st, "d1", "dragoons", 30, 10, mounted=False)
    put(st, "p1", "pikemen", 30, 7.5)
    assert "would lie on" in refused(st, "mount d1")


# == generals [5 H] ===================================================================================

def test_general_moves_free_and_wounded_10():
    """[4 A] the general moves free; [9 C] wounded, at most 10 cm."""
    st = state()
    g = st.generals["sg"]
    g.wounded = True
    assert "the move is 12 cm, at most 10" in refused(st, "general sg advance 12")
    run(st, "general sg advance 10")
    assert g.y == 20.0 and st.armies[SW].cpts == 6


def test_general_passes_friends_freely_and_attaches():
    """[5 C] generals pass through friends freely; attach: against the unit's rear."""
    st = state()
    f = put(st, "p1", "pikemen", 90, 16)
    run(st, "general sg advance 20")
    assert f.hits == 0 and st.generals["sg"].y == 30.0
    st = state()
    put(st, "m1", "musketeers", 90, 25)
    run(st, "general sg attach m1")
    g = st.generals["sg"]
    assert g.attached_to == "m1" and (g.x, g.y) == (90.0, 20.98)
    st.units["m1"].moved = False
    run(st, "move m1 advance 5")
    assert (g.x, g.y) == (90.0, 25.98)


# == evasion [5 D] ====================================================================================

def test_light_horse_evades_infantry_keeping_its_distance():
    """[5 D]: Croats 10 cm ahead of musketeers that advance 10 fall back and end 10 cm away."""
    st = state()
    m = put(st, "m1", "musketeers", 30, 20)
    c = put(st, "c1", "croats", 30, 30, 180.0, side=IM)
    run(st, "move m1 advance 10")
    assert m.y == 30.0
    assert c.y == pytest.approx(40.0, abs=0.01) and c.facing == 180.0
    assert st.last_action["evaded"][0]["unit"] == "c1"


def test_evasion_asked_then_stand():
    """[5 D]: with policy ask, the Croats' owner answers; standing, the contact is made."""
    st = state()
    st.policies[IM] = {"evade": "ask"}
    m = put(st, "m1", "musketeers", 30, 20)
    put(st, "c1", "croats", 30, 26, 180.0, side=IM)
    run(st, "move m1 advance 10")
    assert st.pending["kind"] == "evade" and st.pending["side"] == IM
    assert m.y == 20.0 and st.armies[SW].cpts == 4
    move.resume_evasion(SC, st, IM, "stand", [], DiceStream(1, 0))
    assert st.pending is None and m.y == pytest.approx(26.0, abs=0.03)
    assert st.units["c1"].contacted_by == ["m1"] and st.armies[SW].cpts == 4


def test_evasion_answered_when_the_infantry_would_pass_its_place():
    """[5 D]: Croats 6 cm ahead; the musketeers' 10 cm carry them past where the Croats stood,
    who end 6 cm beyond the musketeers' new front (y 20 + 6 = 26... the front at 20, Croats at 26)."""
    st = state()
    st.policies[IM] = {"evade": "ask"}
    m = put(st, "m1", "musketeers", 30, 10)
    c = put(st, "c1", "croats", 30, 16, 180.0, side=IM)
    run(st, "move m1 advance 10")
    move.resume_evasion(SC, st, IM, "evade", [], DiceStream(1, 0))
    assert m.y == 20.0 and c.y == pytest.approx(26.0, abs=0.01)
    assert st.pending is None and c.contacted_by == []
