"""Jours de Gloire movement on the Marengo map: MP and terrain [4.1], [4.3], [4.4], forced march
[4.1], squares [4.2], stacking [5.1], reinforcements [5.2], zones of control [6.2], night [12],
the commander-in-chief's move [2.5] (engine/jdg/movement/).

Positions are Marengo's opening (scenarios/marengo.toml), with units moved by hand where a test
needs a clean neighbourhood. Each refusal is checked for the rule it cites."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.jdg.ruleset import JDG
from engine.jdg.state import Activation

SC = JDG.load_scenario("marengo")
V = {"E": 0, "SE": 1, "SW": 2, "W": 3, "NW": 4, "NE": 5}      # flat map vertices [6.1]


def position(active="gardanne", side="french", orders="with", turn=1, keep=None, places=None,
             marker=None):
    """The opening state with `active` (a formation) activated in its fire step; `keep`: only these
    units stay on the map (the others leave it, reinforcements still wait); `places`: {unit:
    (hex, vertex)}."""
    st = JDG.new_state(SC, 7)
    st.turn = turn
    st.phase = "activation"
    st.pending = None
    st.activation = Activation(marker=marker or f"{active}-1", side=side, formations=[active], step="fire")
    for f in st.formations.values():
        f.orders, f.revealed = "without", True
    st.formations[active].orders = orders
    if keep is not None:
        for u in st.units.values():
            if u.alive and u.id not in keep:
                u.hex, u.status = None, "off_map"
    for uid, (hx, v) in (places or {}).items():
        u = st.units[uid]
        u.hex, u.facing, u.status = hx, V[v], "active"
    return st


def play(st, line, side="french"):
    return JDG.apply(SC, st, side, parse(line))


def refused(st, line, side="french"):
    before = st.to_dict()
    with pytest.raises(Illegal) as exc:
        play(st, line, side)
    assert st.to_dict() == before          # the dispatcher worked on a copy
    return exc.value


def move_event(events):
    return next(e for e in events if e.kind == "move")


# == MP and terrain [4.1], [4.3], [4.4] =========================================================

def test_4_3_clear_hexes_cost_one_mp_each_and_the_unit_has_acted():
    """[4.3]: each hex entered costs its TET cost (clear: 1); [11]: a unit that moved may not
    rally this activation; the event lists the path and the MP."""
    st = position()
    st2, ev = play(st, "move f-101e 0611 0711")
    e = move_event(ev)
    assert e.section == "JdG [4.3]"
    assert e.outcome["path"] == ["0511", "0611", "0711"]
    assert e.outcome["mp_spent"] == 2 and e.outcome["mp_left"] == 3
    u = st2.units["f-101e"]
    assert u.hex == "0711" and u.acted
    assert "f-101e" in st2.activation.moved and st2.activation.step == "movement"


def test_4_3_the_road_rate_along_the_tortona_road():
    """[4.3]: a road hex entered from the same road costs 1/2 MP (tables.TERRAIN road): five hexes
    of the Tortona road for 2 1/2 of the 22e's 5 MP."""
    st = position("watrin")
    st2, ev = play(st, "move f-22e 1810 1711 1610 1510 1410")
    e = move_event(ev)
    assert e.outcome["mp_spent"] == 2.5
    assert all(s["how"] == "road 1/2" for s in e.outcome["steps"])


def test_4_3_the_road_rate_only_from_the_same_road():
    """[4.3] L235: the road rate needs the hex entered from another hex of the same road: 6e Leg.
    steps onto the road at 1810 for the clear cost, then along it for 1/2."""
    st = position("watrin")
    _, ev = play(st, "move f-6e-leg 1810 1711")
    e = move_event(ev)
    assert [s["mp"] for s in e.outcome["steps"]] == [1, 0.5]


def test_4_3_no_road_rate_next_to_an_enemy():
    """[4.3] L235, HERALD D23: the road may not be used to come adjacent to an enemy unit: the 44e
    pays the cascina of Pedrabona (0410) at its normal 1 MP, not 1/2."""
    st = position()
    _, ev = play(st, "move f-44e 0410")
    step = move_event(ev).outcome["steps"][0]
    assert step["mp"] == 1 and "no road rate" in step["how"]


def test_4_3_woods_cost_cavalry_three_and_a_hex_beyond_the_mp_is_refused():
    """[4.3], [4.4] L245: woods cost cavalry 3 MP (TET); a unit without the MP for a hex may not
    enter it. Nauendorf's hussars, Without Orders, have 5 (9 halved, rounded up [4.1])."""
    st = position("oreilly", "austrian", orders="without")
    err = refused(st, "move a-nauendorf-hu 0317 0318", "austrian")
    assert "0318 costs 3 MP, 2 left" in str(err) and err.section == "JdG [4.3], [4.4]"
    _, ev = play(st, "move a-nauendorf-hu 0317", "austrian")
    assert move_event(ev).outcome["mp_spent"] == 3


def test_4_3_crossing_the_fontanone_stream_and_its_bridge():
    """[4.3], TET: a stream hexside adds +1 MP for infantry; the bridge of the Tortona road replaces
    the stream (no extra), and along the road the road rate applies."""
    st = position("chambarlhac", keep=["f-96e", "f-24e-leg"])
    _, ev = play(st, "move f-24e-leg 0709")            # 0809 -> 0709 across the Fontanone
    assert move_event(ev).outcome["steps"][0]["mp"] == 2
    _, ev = play(st, "move f-96e 0710")                # 0810 -> 0710: the bridge, on the road
    assert move_event(ev).outcome["steps"][0]["mp"] == 0.5


def test_4_3_the_bormida_is_impassable():
    """Marengo 4.3 (L945): no unit may enter the Bormida or its flooded hexes."""
    st = position("hadik-kaim", "austrian", keep=["a-ir53"])
    err = refused(st, "move a-ir53 0112", "austrian")
    assert "Bormida" in str(err)


def test_4_4_a_path_of_adjacent_hexes_once_per_activation():
    """[4.4] L243: a continuous path of adjacent hexes; each unit's move is whole before the next,
    so a unit moves once an activation."""
    st = position()
    err = refused(st, "move f-101e 0612")
    assert "not adjacent" in str(err) and err.section == "JdG [4.4]"
    st2, _ = play(st, "move f-101e 0611")
    err = refused(st2, "move f-101e 0711")
    assert "already moved" in str(err)


def test_4_4_passing_through_friends_costs_one_more_stopping_does_not():
    """[4.4] L251: +1 MP to pass through a hex of friendly units, nothing to stop in it."""
    st = position("watrin", keep=["f-6e-leg", "f-22e", "f-40e", "f-art-watrin", "f-28e"])
    _, ev = play(st, "move f-6e-leg 1911 1912")        # through the 22e at 1911
    steps = move_event(ev).outcome["steps"]
    assert steps[0]["mp"] == 2 and "passing through" in steps[0]["how"]
    _, ev = play(st, "move f-40e 1911")                 # 2010 -> 1911: stops with the 22e
    assert move_event(ev).outcome["mp_spent"] == 0.5   # along the road, no extra


def test_4_4_marengo_errata_no_extra_mp_through_0110():
    """Marengo errata 4.4 (L960): passing through 0110, the immobile reserve artillery's hex, costs
    no +1 MP: IR 53 goes 0109-0110-0111 for 2 MP."""
    st = position("hadik-kaim", "austrian", keep=["a-ir53", "a-art-reserve"],
                  places={"a-ir53": ("0109", "E")})
    _, ev = play(st, "move a-ir53 0110 0111", "austrian")
    assert move_event(ev).outcome["mp_spent"] == 2


def test_4_1_without_orders_half_mp_rounded_up():
    """[4.1] L211: Without Orders, MP halved rounding up: the 101e's 5 MP are 3."""
    st = position(orders="without", keep=["f-101e"])
    err = refused(st, "move f-101e 0512 0513 0514 0515")
    assert "0515 costs 1 MP, 0 left" in str(err)
    _, ev = play(st, "move f-101e 0512 0513 0514")
    e = move_event(ev)
    assert e.outcome["mp_allowance"] == 3 and not e.outcome["with_orders"]


def test_2_4_commander_initiative_gives_full_mp():
    """[2.4]: a Without-Orders formation whose commander passed his initiative moves With Orders
    for this activation."""
    st = position(orders="without", keep=["f-101e"])
    st.formations["gardanne"].initiative_success = True
    _, ev = play(st, "move f-101e 0512 0513 0514 0515 0516")
    assert move_event(ev).outcome["mp_spent"] == 5


def test_4_4_artillery_that_fired_moves_at_half_with_orders_not_at_all_without():
    """[4.4] L247 (HERALD D22): artillery that fired this activation moves at half MP With Orders
    ("Tir/Mouvement réduit"), and not at all Without Orders."""
    st = position("watrin", keep=["f-art-watrin"])
    st.units["f-art-watrin"].fired = True
    err = refused(st, "move f-art-watrin 2011 2012 2013")
    assert "0 left" in str(err)
    _, ev = play(st, "move f-art-watrin 2011 2012")
    assert move_event(ev).outcome["mp_allowance"] == 2
    st.formations["watrin"].orders = "without"
    err = refused(st, "move f-art-watrin 2011")
    assert "fired Without Orders" in str(err) and err.section == "JdG [2.4], [4.4]"


def test_4_disordered_units_move_on_their_back_and_immobile_units_never():
    """[10.1], HERALD D2: a disordered unit uses its back's MP (101e: 3); Marengo D 0.3 and errata
    4.4: the bridgehead and reserve artillery never move; [10.2]: routed units only in phase E."""
    st = position(keep=["f-101e"])
    st.units["f-101e"].condition = "disordered"
    _, ev = play(st, "move f-101e 0512")
    assert move_event(ev).outcome["mp_allowance"] == 3
    st.units["f-101e"].condition = "routed"
    assert refused(st, "move f-101e 0512").section == "JdG [10.2]"
    st = position("ott", "austrian")
    err = refused(st, "move a-art-bridgehead 0309", "austrian")
    assert "immobile" in str(err)


def test_1d_only_units_of_the_active_formation_in_the_movement_step():
    """[1.D], [2.4]: only the active formation moves; once its combat step has begun, no more
    movement."""
    st = position()
    assert "active formation" in str(refused(st, "move f-96e 0811"))
    refused(st, "move a-ir53 0212", "austrian")
    st.activation.step = "combat"
    assert "movement step is over" in str(refused(st, "move f-101e 0611"))


# == forced march [4.1] =========================================================================

def test_4_1_forced_march_doubles_mp_far_from_the_enemy():
    """[4.1] L215: a forced march doubles MP: Watrin's 22e, With Orders, far from the Austrians,
    marches 7 clear hexes (5 MP normally)."""
    st = position("watrin")
    path = "1912 1913 1914 1915 1916 1917 1918"
    err = refused(st, f"move f-22e {path}")
    assert "0 left" in str(err)
    _, ev = play(st, f"move f-22e {path} forced")
    e = move_event(ev)
    assert e.outcome["forced"] and e.outcome["mp_allowance"] == 10 and e.outcome["mp_spent"] == 7


def test_4_1_forced_march_refused_near_the_enemy():
    """[4.1] L217 (HERALD D21): never starting from, nor coming to, 5 hexes or less of an enemy unit."""
    st = position()
    err = refused(st, "move f-101e 0611 forced")
    assert "starts within 5 hexes" in str(err) and err.section == "JdG [4.1]"
    st = position("watrin", keep=["f-22e", "a-bussy-ch"], places={"a-bussy-ch": ("1312", "E")})
    err = refused(st, "move f-22e 1811 1712 forced")          # 1911 is 6 hexes from 1312, 1811 5
    assert "1811: forced march: within 5 hexes of Bussy Ch." in str(err)
    assert err.section == "JdG [4.1]"


def test_4_1_forced_march_only_with_orders_in_good_order_by_day():
    """[4.1] L217 With Orders only; [10.1] L696 never disordered; [12] L792 never at night."""
    st = position("watrin", orders="without")
    assert "Without Orders" in str(refused(st, "move f-22e 1912 forced"))
    st = position("watrin")
    st.units["f-22e"].condition = "disordered"
    assert refused(st, "move f-22e 1912 forced").section == "JdG [10.1]"
    st = position("watrin", turn=9)
    assert refused(st, "move f-22e 1912 forced").section == "JdG [12]"


# == zones of control [6.2] =====================================================================

def test_6_2_entering_an_enemy_zoc_ends_the_move_but_the_unit_may_turn():
    """[6.2] L373: entering an enemy ZoC ends the move; the unit may still turn."""
    st = position()
    err = refused(st, "move f-101e 0411 0412")
    assert "its move ends there" in str(err) and err.section == "JdG [6.2]"
    st2, ev = play(st, "move f-101e 0411 face E")
    e = move_event(ev)
    assert e.outcome["zoc_stop"] and e.outcome["mp_spent"] == 1 and st2.units["f-101e"].facing == V["E"]


def test_6_2_disordered_pay_one_more_into_a_zoc_and_all_two_more_at_night():
    """[6.2] L375, [10.1] L698: +1 MP for a disordered unit entering an enemy ZoC; [12] L794: +2 at
    night; [12] L796: at night a disordered unit may not move into contact at all."""
    st = position()
    st.units["f-101e"].condition = "disordered"
    _, ev = play(st, "move f-101e 0411")
    assert move_event(ev).outcome["mp_spent"] == 2
    st = position(turn=9)
    _, ev = play(st, "move f-101e 0411")
    assert move_event(ev).outcome["mp_spent"] == 3
    st.units["f-101e"].condition = "disordered"
    assert refused(st, "move f-101e 0411").section == "JdG [12]"


LEAVE = ["f-101e", "a-ir52", "a-ir53"]


def test_6_2_leaving_a_zoc_costs_one_mp():
    """[6.2] L385: a unit starting in an enemy ZoC may leave it for +1 MP."""
    st = position(keep=LEAVE, places={"f-101e": ("1215", "SE"), "a-ir52": ("1216", "NW")})
    _, ev = play(st, "move f-101e 1214 1213")
    e = move_event(ev)
    assert [s["mp"] for s in e.outcome["steps"]] == [2, 1]


def test_6_2_not_from_one_zoc_to_another_of_the_same_unit():
    """[6.2] L389 (HERALD D25): not from one ZoC of an enemy unit into another of the same unit."""
    st = position(keep=LEAVE, places={"f-101e": ("1215", "SE"), "a-ir52": ("1216", "NW")})
    err = refused(st, "move f-101e 1316")
    assert "same unit" in str(err) and err.section == "JdG [6.2]"


def test_6_2_not_straight_into_a_frontal_hex_of_another_enemy():
    """[6.2] L387 (HERALD D25): the first hex after leaving may not be a frontal hex of an enemy
    unit; a flank ZoC hex may be entered (and stops the unit)."""
    places = {"f-101e": ("1215", "SE"), "a-ir52": ("1216", "NW"), "a-ir53": ("1314", "W")}
    st = position(keep=LEAVE, places=places)
    err = refused(st, "move f-101e 1214")
    assert "frontal" in str(err) and err.section == "JdG [6.2]"
    places["a-ir53"] = ("1314", "E")                  # 1214 is now its flank
    st = position(keep=LEAVE, places=places)
    assert "move ends" in str(refused(st, "move f-101e 1214 1114"))
    _, ev = play(st, "move f-101e 1214")
    assert move_event(ev).outcome["zoc_stop"]


def test_6_2_staying_in_a_zoc_turns_at_most_60_degrees():
    """[6.2] L381: a unit that stays in an enemy ZoC may turn at most one vertex (60 degrees)."""
    st = position(keep=LEAVE, places={"f-101e": ("1215", "SE"), "a-ir52": ("1216", "NW")})
    err = refused(st, "move f-101e face NW")
    assert "at most 60 degrees" in str(err)
    st2, ev = play(st, "move f-101e face E")
    assert st2.units["f-101e"].facing == V["E"] and move_event(ev).outcome["mp_spent"] == 0
    assert not st2.units["f-101e"].acted          # turning is not movement for rally (HERALD D87)


def test_6_2_artillery_enters_an_enemy_zoc_only_where_a_friend_stands():
    """[6.2] L375 (HERALD D26): artillery may not enter an enemy ZoC unless a friendly unit holds
    the hex."""
    st = position()
    err = refused(st, "move f-art-gardanne 0410")
    assert "artillery enters an enemy ZoC only" in str(err) and err.section == "JdG [6.2]"
    st2, _ = play(st, "move f-44e 0410")
    st3, ev = play(st2, "move f-art-gardanne 0410")
    assert st3.units["f-art-gardanne"].hex == "0410"
    assert [u.id for u in st3.units_at("0410")] == ["f-art-gardanne", "f-44e"]   # artillery on top [5.1]


# == stacking [5.1] and facing [6.1] ============================================================

def test_5_1_two_infantry_of_different_formations_may_not_stack():
    """[5.1] L263 (HERALD D28): infantry stacks only with infantry of its formation."""
    st = position()
    err = refused(st, "move f-44e 0610 0710 0810")
    assert "same formation" in str(err) and err.section == "JdG [5.1]"


def test_5_1_marengo_three_french_cavalry_but_not_four():
    """Marengo 5.1 (L948): three French cavalry units of one formation in a hex."""
    st = position("champeaux")
    st2, ev = play(st, "move f-6e-dr 1206")
    assert len(st2.units_at("1206")) == 3
    st = position("kellermann", keep=["f-2e-cav", "f-20e-cav", "f-21e-cav", "f-1er-dr"],
                  places={"f-1er-dr": ("1014", "W")})
    st.units["f-1er-dr"].formation = "kellermann"       # a fourth of the same formation
    err = refused(st, "move f-21e-cav 1014")
    assert "at most 3 cavalry" in str(err)


def test_5_1_austrian_cavalry_two_per_hex_and_no_artillery_with_cavalry():
    """[5.1] L263: two cavalry of one formation (the Marengo three are French only); L277:
    artillery may not stand with cavalry."""
    keep = ["a-kaiser-dr", "a-karaczay-dr", "a-liechtenstein-dr", "a-art-elsnitz"]
    places = {"a-kaiser-dr": ("1215", "E"), "a-karaczay-dr": ("1215", "E"),
              "a-liechtenstein-dr": ("1115", "E"), "a-art-elsnitz": ("1114", "E")}
    st = position("elsnitz", "austrian", keep=keep, places=places)
    assert "at most 2 cavalry" in str(refused(st, "move a-liechtenstein-dr 1215", "austrian"))
    assert "artillery may not stand with cavalry" in str(refused(st, "move a-art-elsnitz 1115", "austrian"))


def test_6_1_a_stack_faces_one_way_but_artillery_beside_infantry():
    """[6.1] L343-L345: units in a hex face alike, except artillery with infantry."""
    st = position("watrin", keep=["f-6e-leg", "f-22e", "f-art-watrin"])
    st.units["f-22e"].facing = V["E"]
    err = refused(st, "move f-6e-leg 1911")
    assert "face the same vertex" in str(err) and err.section == "JdG [6.1]"
    play(st, "move f-6e-leg 1911 face E")
    st.units["f-art-watrin"].facing = V["NW"]
    play(st, "move f-art-watrin 1911")       # road 2010 -> 1911, facing NW beside the 22e facing E


def test_5_1_stack_order_the_unit_arriving_goes_under():
    """[5.1] L283: a unit entering a hex goes under those already there."""
    st = position("champeaux")
    st2, _ = play(st, "move f-6e-dr 1206")
    assert [u.id for u in st2.units_at("1206")] == ["f-1er-dr", "f-8e-dr", "f-6e-dr"]


# == squares [4.2] ==============================================================================

def test_4_2_forming_square_takes_all_mp_and_the_stack_forms_together():
    """[4.2] L223: a unit or a stack forms square without moving, for all its MP; the stacked
    artillery forms with the infantry (HERALD D88)."""
    st = position(keep=["f-44e", "f-art-gardanne"])
    st2, ev = play(st, "square f-44e")
    assert st2.units["f-44e"].square and st2.units["f-art-gardanne"].square
    assert ev[0].section == "JdG [4.2]"
    err = refused(st2, "move f-44e 0610")
    assert "no MP left" in str(err)


def test_4_2_square_only_in_open_terrain_out_of_zoc_for_infantry_in_order():
    """[4.2] L221, L225: open terrain only (not woods), not in an enemy ZoC, not cavalry, not
    disordered [10.1]; and not after moving."""
    st = position("oreilly", "austrian", keep=["a-banal", "a-art-oreilly", "a-ogulin", "a-nauendorf-hu"],
                  places={"a-ogulin": ("0317", "SE")})
    assert "open terrain" in str(refused(st, "square a-ogulin", "austrian"))
    assert "cavalry" in str(refused(st, "square a-nauendorf-hu", "austrian"))
    st.units["a-banal"].condition = "disordered"
    assert "disordered" in str(refused(st, "square a-banal", "austrian"))
    st = position()
    st2, _ = play(st, "move f-101e 0411")
    err = refused(st2, "square f-101e")
    assert "ZoC" in str(err) and err.section == "JdG [4.2]"
    st = position(keep=["f-101e"])
    st2, _ = play(st, "move f-101e 0512")
    assert "has moved" in str(refused(st2, "square f-101e"))


def test_4_2_leaving_square_costs_one_mp_then_the_unit_moves_on():
    """[4.2] L223 (HERALD D24): leaving square costs 1 MP; the unit faces as it likes and moves on
    with what is left (101e: 4 of 5)."""
    st = position(keep=["f-101e"])
    st.units["f-101e"].square = True
    st2, ev = play(st, "square f-101e")
    assert not st2.units["f-101e"].square and ev[0].outcome["mp"] == 1
    err = refused(st2, "move f-101e 0512 0513 0514 0515 0516")
    assert "0 left" in str(err)
    st3, ev = play(st2, "move f-101e face SE 0512 0513 0514 0515")
    assert move_event(ev).outcome["mp_left"] == 0


def test_4_2_a_square_moves_one_hex_of_open_ground():
    """[4.2] L227: a square moves at most one hex, in open terrain, for at most 2 MP."""
    st = position(keep=["f-101e"])
    st.units["f-101e"].square = True
    assert "at most one hex" in str(refused(st, "move f-101e 0512 0513"))
    _, ev = play(st, "move f-101e 0512")
    assert move_event(ev).outcome["path"] == ["0511", "0512"]
    st = position("chambarlhac", keep=["f-43e"], places={"f-43e": ("1113", "W")})
    st.units["f-43e"].square = True
    assert "open terrain" in str(refused(st, "move f-43e 1112"))      # crops


def test_4_4_no_unit_enters_a_friendly_square():
    """[4.4] L253: no unit passes through or enters a hex holding a friendly square."""
    st = position(keep=["f-101e", "f-44e"])
    st.units["f-44e"].square = True
    err = refused(st, "move f-101e 0510")
    assert "friendly square" in str(err) and err.section == "JdG [4.4]"


def test_9_3_can_form_square_for_the_charge_reaction():
    """[9.3] L623: against a charge, infantry in open terrain in good order may try square even in
    an enemy ZoC; artillery only with such infantry; never cavalry."""
    from engine.jdg.movement.square import can_form_square
    st = position()
    st.units["f-101e"].hex = "0411"                  # in Bussy's ZoC
    assert can_form_square(SC, st, st.units["f-101e"]) == (True, "")
    assert can_form_square(SC, st, st.units["f-art-gardanne"]) == (True, "")   # with the 44e
    ok, why = can_form_square(SC, st, st.units["f-2e-cav"])
    assert not ok and "cavalry" in why
    st.units["f-44e"].condition = "disordered"
    ok, why = can_form_square(SC, st, st.units["f-art-gardanne"])
    assert not ok and "artillery" in why


# == reinforcements [5.2] =======================================================================

KAIM = ["a-ir63", "a-ir23", "a-ir47", "a-art-kaim"]


def kaim_entering(**kw):
    st = position("hadik-kaim", "austrian", **kw)
    for uid in KAIM:
        st.units[uid].status = "entering"
    return st


def test_5_2_reinforcements_enter_at_their_entry_hex_in_column():
    """[5.2] L329: they enter by the scenario's entry hex as if in column: the second stack pays
    twice the entry hex, the third three times... (HERALD D86: a unit joins the last stack if it
    may stack with it)."""
    st = kaim_entering(keep=KAIM + ["a-art-reserve"])
    st, ev = play(st, "move a-ir63 0111 0211", "austrian")     # clear 1, then 1 + the trench 1
    assert move_event(ev).outcome["mp_spent"] == 3
    assert st.units["a-ir63"].status == "active" and st.units["a-ir63"].hex == "0211"
    st, ev = play(st, "move a-ir23 0111 0210", "austrian")      # joins the first stack
    assert move_event(ev).outcome["steps"][0]["mp"] == 1
    st, ev = play(st, "move a-ir47 0111", "austrian")           # a third infantry: stack 2
    step = move_event(ev).outcome["steps"][0]
    assert step["mp"] == 2 and "stack 2 of the column" in step["how"]
    assert st.activation.entered["0111"] == [["a-ir63", "a-ir23"], ["a-ir47"]]


def test_5_2_reinforcements_enter_only_by_their_entry_hexes():
    """[5.2] L329: the entry hex named by the scenario (Kaim: 0110 or 0111)."""
    st = kaim_entering(keep=KAIM)
    err = refused(st, "move a-ir63 0209", "austrian")
    assert "enters the map at 0110 or 0111" in str(err) and err.section == "JdG [5.2]"
    st.units["a-ir63"].status = "waiting"
    assert "not yet called" in str(refused(st, "move a-ir63 0111", "austrian"))


def test_5_2_renforts_with_orders_at_forced_march_and_lost_near_the_enemy():
    """[5.2] L323 (HERALD D29): far from the enemy they enter With Orders (the Renforts marker),
    even if their formation has none, and may force-march; within 5 hexes of an enemy unit the
    marker goes and the unit is Without Orders to the end of the turn."""
    st = position("monnier", orders="without", turn=4, keep=["f-70e", "a-bussy-ch"],
                  places={"a-bussy-ch": ("2112", "E")})
    st.units["f-70e"].status = "entering"
    st2, ev = play(st, "move f-70e 3212 3112 3012 2912 2811 2712 forced")
    assert move_event(ev).outcome["mp_allowance"] == 10 and st2.units["f-70e"].arrival == "renforts"
    assert any(e.kind == "reinforcement" for e in ev)
    st2.activation.moved.clear()
    st3, ev = play(st2, "move f-70e 2611")                      # 5 hexes from Bussy at 2112
    assert st3.units["f-70e"].arrival == "without_orders"
    assert any(e.kind == "reinforcement_status" for e in ev)


def test_5_2_entering_near_the_enemy_with_orders_but_no_forced_march():
    """[5.2] L325: with enemy units within 5 hexes of the entry hex they enter With Orders for this
    turn only, not at forced march, without the marker."""
    st = kaim_entering(keep=KAIM + ["f-101e"])                 # the 101e at 0511, 4 from 0111
    err = refused(st, "move a-ir63 0111 forced", "austrian")
    assert "not at forced march" in str(err) and err.section == "JdG [5.2]"
    st2, _ = play(st, "move a-ir63 0111 0211", "austrian")
    u = st2.units["a-ir63"]
    assert (u.arrival, u.arrival_turn) == ("with_orders", 1)


def test_5_2_no_unit_stands_next_to_an_enemy_entry_hex_while_reinforcements_are_due():
    """[5.2] L335 (HERALD D29): not on or next to an enemy entry hex while reinforcements are to
    come by it."""
    st = position(keep=["f-101e"], places={"f-101e": ("0312", "NW")})
    err = refused(st, "move f-101e 0211")
    assert "reinforcement entry hex" in str(err) and err.section == "JdG [5.2]"
    for u in st.units.values():
        if u.side == "austrian" and u.status == "waiting":
            u.status = "off_map"
    play(st, "move f-101e 0211")


# == the commander-in-chief [2.5] ===============================================================

def test_2_5_the_commander_moves_once_a_turn_up_to_seven_mp():
    """[2.5] L189: once a turn, at most 7 MP (HERALD D18: cavalry costs, roads included)."""
    st = position("watrin")
    err = refused(st, "commander 2812 2712 2612 2512 2412 2312 2212 2112")
    assert "2112 costs 1 MP, 0 left" in str(err) or "left of his 7" in str(err)
    st2, ev = play(st, "commander 2812 2712 2612")
    assert st2.commanders["bonaparte"].hex == "2612" and st2.commanders["bonaparte"].moved
    assert ev[0].section == "JdG [2.5]"
    assert "once a turn" in str(refused(st2, "commander 2512"))


def test_2_5_the_commander_never_enters_an_enemy_zoc_alone():
    """[2.5] L189: never alone into an enemy ZoC; with friendly units there he may (HERALD D89)."""
    st = position()
    st.commanders["bonaparte"].hex = "0611"
    err = refused(st, "commander 0511 0411")
    assert "never enters an enemy ZoC alone" in str(err) and err.section == "JdG [2.5]"
    st2, _ = play(st, "move f-101e 0411")
    st3, _ = play(st2, "commander 0511 0411")
    assert st3.commanders["bonaparte"].hex == "0411"
    assert "force-march" in str(refused(st, "commander 0511 forced"))


def test_2_5_a_commander_alone_falls_back_when_the_enemy_comes_into_contact():
    """[2.5] L193, HERALD D19, D92: an enemy combat unit that ends its move next to the
    commander-in-chief alone makes him fall back 1 or 2 hexes at once, out of contact; with
    friendly units in his hex he may stay, and Herald keeps him there."""
    st = position("hadik-kaim", side="austrian", keep=["a-ir53", "f-44e"],
                  places={"a-ir53": ("2215", "W"), "f-44e": ("1815", "W")})
    st.commanders["bonaparte"].hex = "2015"
    st2, ev = play(st, "move a-ir53 2115", side="austrian")
    back = next(e for e in ev if e.kind == "commander_falls_back")
    hex_ = st2.commanders["bonaparte"].hex
    assert back.section == "JdG [2.5]" and back.outcome["to"] == hex_
    assert 1 <= SC.map.grid.distance("2015", hex_) <= 2 and SC.map.grid.distance("2115", hex_) >= 2
    assert st2.commanders["bonaparte"].status == "active"
    st.commanders["bonaparte"].hex = "1815"                # with the 44e: he stays
    st.units["a-ir53"].hex = "2015"
    st3, ev = play(st, "move a-ir53 1915", side="austrian")
    assert st3.commanders["bonaparte"].hex == "1815" and not any(e.kind == "commander_falls_back" for e in ev)


def test_4_1_a_move_too_far_says_the_allowance_and_the_path_so_far():
    """[4.1], [4.3] (play-test): the refusal of a hex beyond the MP says the unit's allowance (Without
    Orders: half) and what each hex of the path cost, not only "0 left"."""
    st = position(orders="without", keep=["f-101e"])
    err = str(refused(st, "move f-101e 0512 0513 0514 0515"))
    assert "101e Ligne (f-101e) has 3 MP (Without Orders: half" in err
    assert "the path so far: 0512 1, 0513 1, 0514 1" in err


def test_4_4_a_hex_not_adjacent_names_the_neighbours():
    """[4.4] L243 (play-test): "not adjacent to 0111" now lists 0111's neighbours, so a player who
    misreads the staggered columns sees which hexes follow."""
    st = position()
    err = refused(st, "move f-101e 0612")
    assert "not adjacent to 0511 (its neighbours: " in str(err) and "0611" in str(err)


def test_a_refusal_cites_its_rule_once():
    """(play-test) a reason that already ends with its rule in brackets is not followed by the same
    section again: it read "... (JdG [4.4]) (JdG [4.4])"."""
    st = position()
    st2, _ = play(st, "move f-101e 0611")
    err = refused(st2, "move f-101e 0711")
    assert "already moved" in str(err) and str(err).count("JdG [4.4]") == 1
    assert err.section == "JdG [4.4]"
