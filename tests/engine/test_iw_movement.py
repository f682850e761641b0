"""The Italian Wars movement (engine/italianwars/movement): manoeuvres (2c, IW-H 3), moves (2d,
IW-H 2), the chargers' move (IW-H 4.2), limbering (IW-H 11), rout and pursuit (phases 3-4,
IW-H 9), Retreat (IW-H 14) and the api the combat package calls (evade, push_back,
close_to_contact, reveal_ambushers). Hand-made states (tests/engine/test_iw_sequence.make_state:
French foot 2 bases deep 1 UDM at y 5 facing north, x 10, 11, 16, 17; the League at y 15 facing
south), geometry computed by hand."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from shapely.geometry import box

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.italianwars.movement import api
from engine.italianwars.movement import common as cm
from engine.italianwars.ruleset import ITALIANWARS as IW

from tests.engine.test_iw_sequence import make_state


def field(*features, camps=None):
    """A scenario holding only terrain (and camps): the companies' values come from the specs."""
    return SimpleNamespace(features=[SimpleNamespace(id=i, kind=k, category=cat, geometry=g) for i, k, cat, g in features],
                           camps=camps or {})


def go(st, side, line, sc=None):
    return IW.apply(sc, st, side, parse(line))


def at_step(st, battle, step, order=None):
    st.activation = {"battle": battle, "side": st.battles[battle].side, "step": step, "begun": True}
    if order:
        st.battles[battle].order = order
    return st


def pose(st, cid):
    c = st.companies[cid]
    return (c.x, c.y, c.facing)


# -- manoeuvres (2c, IW-H 3) ---------------------------------------------------------------------------------

def test_a_90_degree_wheel_costs_1_57_and_pivots_on_the_front_corner():
    """IW Azioni 2c: IW-H 3.1: a right wheel pivots on the right front corner (10.5, 5): the front centre goes
    from (10, 5) to (10.5, 5.5), facing east; 90 degrees cost pi/2 = 1.57 of the 4 UDM."""
    st = at_step(make_state(), "fb0", "manoeuvre", "delay")
    st, events = go(st, "french", "manoeuvre fb0c0 wheel 90 right")
    assert pose(st, "fb0c0") == (10.5, 5.5, 90.0)
    assert cm.used(st, st.companies["fb0c0"]) == 1.57 and events[0].outcome["left"] == 2.43


def test_facing_changes_cost_1_for_foot_2_for_horse_and_lacking_move_disorders():
    """IW-H 3.2: turn in place about the centre (foot 1 UDM deep: centre (10, 4.5), now facing
    east, front centre (10.5, 4.5)); horse pay 2. IW-H 3.6: bad weather halves foot to 2: turn
    (1) + about (1) + wheel 90 (1.57) lacks 1.57: finished, disordered."""
    st = at_step(make_state({"fb0c1": {"arm": "cavalry", "armour": "armoured"}}), "fb0", "manoeuvre", "delay")
    after, _ = go(st, "french", "manoeuvre fb0c0 turn right")
    assert pose(after, "fb0c0") == (10.5, 4.5, 90.0) and cm.used(after, after.companies["fb0c0"]) == 1.0
    after, _ = go(st, "french", "manoeuvre fb0c1 about")
    assert after.companies["fb0c1"].facing == 180.0 and cm.used(after, after.companies["fb0c1"]) == 2.0
    st.weather = "bad"
    st.companies["fb0c1"].x = 30.0                         # out of the wheel's way
    after, events = go(st, "french", "manoeuvre fb0c0 turn left about wheel 90 right")
    assert after.companies["fb0c0"].disordered and events[0].outcome["disordered"]
    assert "lacked 1.57 UDM" in events[0].narrative


def test_manoeuvres_only_where_the_order_allows():
    """IW Attaccare: no manoeuvres; IW Tenere: only to face the enemy (HERALD D74)."""
    st = at_step(make_state(), "fb0", "manoeuvre", "attack")
    with pytest.raises(Illegal, match="Attack: no manoeuvres"):
        go(st, "french", "manoeuvre fb0c0 turn right")
    st.battles["fb0"].order = "hold"
    with pytest.raises(Illegal, match="only to face the enemy"):
        go(st, "french", "manoeuvre fb0c0 turn right")          # the League is north: east is not facing it
    st.companies["fb0c0"].facing = 90.0
    st, _ = go(st, "french", "manoeuvre fb0c0 turn left")      # back to north: faces lb0c0
    assert st.companies["fb0c0"].facing == 0.0


def test_igel_pike_only_whole_move_and_does_not_move():
    """IW Igel: IW Formazioni speciali, IW-H 3.5: pikes form an Igel with the whole move; it does not move."""
    st = at_step(make_state({"fb0c0": {"melee_weapon": "pike"}}), "fb0", "manoeuvre", "delay")
    with pytest.raises(Illegal, match="only pike companies"):
        go(st, "french", "manoeuvre fb0c1 igel")
    st, _ = go(st, "french", "manoeuvre fb0c0 igel")
    assert st.companies["fb0c0"].formation == "igel" and st.companies["fb0c0"].moved


def test_phalanx_of_shock_companies_side_by_side_not_militia():
    """IW Falange, IW-H 3.4: shock foot side by side in contact form a phalanx at 2 UDM each; no
    Militia; it moves as one block (advance 2: both fronts from y 5 to 7)."""
    st = at_step(make_state({"fb1c1": {"morale": "militia"}}), "fb1", "manoeuvre", "delay")
    with pytest.raises(Illegal, match="Militia"):
        go(st, "french", "manoeuvre fb1c0 phalanx fb1c1")
    st = at_step(make_state(), "fb0", "manoeuvre", "delay")
    st, _ = go(st, "french", "manoeuvre fb0c0 phalanx fb0c1")
    assert {st.companies[c].formation for c in ("fb0c0", "fb0c1")} == {"phalanx:fb0c0"}
    st.activation["step"] = "move"
    st, events = go(st, "french", "move fb0c1 advance 2")
    assert pose(st, "fb0c0") == (10.0, 7.0, 0.0) and pose(st, "fb0c1") == (11.0, 7.0, 0.0)
    with pytest.raises(Illegal, match="side by side"):
        st2 = at_step(make_state(), "fb1", "manoeuvre", "delay")
        st2.companies["fb1c1"].x = 17.5                    # a gap of 0.5 UDM
        go(st2, "french", "manoeuvre fb1c0 phalanx fb1c1")


# -- moves (2d, IW-H 2) ----------------------------------------------------------------------------------------

def test_foot_moves_4_north_from_y_5_to_y_9_and_no_further():
    st = at_step(make_state(), "fb0", "move", "delay")
    after, events = go(st, "french", "move fb0c0 advance 4")
    assert pose(after, "fb0c0") == (10.0, 9.0, 0.0) and events[0].outcome["cost"] == 4.0
    assert after.last_action["path"] == [[10.0, 5.0], [10.0, 9.0]] and after.last_action["distance"] == 4.0
    with pytest.raises(Illegal, match="costs 4.5 UDM .* has 4 left .0.5 too far"):
        go(st, "french", "move fb0c0 advance 4.5")


def test_broken_ground_halves_skirmishers_ignore_it_closed_disorders():
    """IW Azioni 2d: IW-H 2.3: scrub (broken) from y 5: 2 UDM of advance cost 4; skirmishers move their 6;
    a marsh (closed) halves and disorders (HERALD D22)."""
    sc = field(("scrub", "scrub", "broken", box(0, 5, 45, 20)), ("marsh", "marsh", "closed", box(14, 5, 20, 20)))
    st = make_state({"fb0c1": {"role": "skirmishers"}})
    st.companies["fb0c1"].x = 12.0
    st = at_step(st, "fb0", "move", "delay")
    after, events = go(st, "french", "move fb0c0 advance 2", sc)
    assert after.companies["fb0c0"].y == 7.0 and events[0].outcome["cost"] == 4.0
    with pytest.raises(Illegal, match="costs 4.2"):
        go(st, "french", "move fb0c0 advance 2.1", sc)
    after, _ = go(st, "french", "move fb0c1 advance 6", sc)
    assert after.companies["fb0c1"].y == 11.0
    st = at_step(st, "fb1", "move", "delay")
    after, events = go(st, "french", "move fb1c0 advance 2", sc)
    assert after.companies["fb1c0"].disordered and "closed ground of marsh" in events[0].narrative


def test_road_adds_2_and_impassable_refuses():
    """IW Strade, IW-H 2.2: a move wholly along a road: 4 + 2 = 6; a lake refuses."""
    sc = field(("road", "road", "open", box(9.5, 0, 10.5, 30)), ("lake", "lake", "impassable", box(15, 7, 19, 9)))
    st = at_step(make_state(), "fb0", "move", "delay")
    after, events = go(st, "french", "move fb0c0 advance 6", sc)
    assert after.companies["fb0c0"].y == 11.0 and events[0].outcome["road"]
    with pytest.raises(Illegal, match="costs 6"):
        go(st, "french", "move fb0c1 advance 6", sc)
    st = at_step(st, "fb1", "move", "delay")
    with pytest.raises(Illegal, match="lake is impassable"):
        go(st, "french", "move fb1c0 advance 3", sc)


def test_orders_hold_stays_withdraw_backs_at_half_speed_attack_toward_the_enemy():
    st = at_step(make_state(), "fb0", "move", "hold")
    with pytest.raises(Illegal, match="Hold"):
        go(st, "french", "move fb0c0 advance 1")
    st.battles["fb0"].order = "withdraw"                    # half speed: 2 UDM, back from the enemy
    after, _ = go(st, "french", "move fb0c0 back 2")
    assert pose(after, "fb0c0") == (10.0, 3.0, 0.0)
    with pytest.raises(Illegal, match="Withdraw moves away"):
        go(st, "french", "move fb0c0 advance 1")
    with pytest.raises(Illegal, match="has 2 left"):
        go(st, "french", "move fb0c0 back 3")
    st.battles["fb0"].order = "attack"
    with pytest.raises(Illegal, match="only a Withdraw order moves back"):
        go(st, "french", "move fb0c0 back 1")
    st.companies["fb0c0"].facing = 180.0                    # its back to the League
    with pytest.raises(Illegal, match="toward the nearest enemy"):
        go(st, "french", "move fb0c0 advance 1")


def test_no_contact_without_a_charge_and_friends_passed_through_are_disordered():
    st = make_state()
    st.companies["lb0c0"].y = 8.0                            # its front at y 8: 3 UDM from fb0c0
    st = at_step(st, "fb0", "move", "delay")
    with pytest.raises(Illegal, match="touch lb0c0: contact with the enemy is only by a declared charge"):
        go(st, "french", "move fb0c0 advance 3")
    st.companies["fb0c1"].x, st.companies["fb0c1"].y = 10.0, 3.5   # 1.5 behind the line
    st.companies["fb0c0"].x = 12.0
    blocker = st.companies["fb1c0"]
    blocker.x, blocker.y = 10.0, 5.0
    after, events = go(st, "french", "move fb0c1 advance 2.5")   # through fb1c0 (y 4..5) to y 6
    assert after.companies["fb0c1"].disordered and after.companies["fb1c0"].disordered
    with pytest.raises(Illegal, match="would end on fb1c0"):
        go(st, "french", "move fb0c1 advance 1")


def test_chargers_stop_1_udm_short_or_fall_short():
    """IW-H 4.2: fb0c0 (front y 5) charges lb0c0 (front y 8.5): it advances 2.5 to y 7.5 in 2d.
    With scrub on the way (broken: double cost) its 4 UDM take it 2 and it falls short."""
    st = make_state()
    st.companies["lb0c0"].y = 8.5
    st.companies["fb0c1"].x = 30.0
    st = at_step(st, "fb0", "declare", "attack")
    after, events = go(st, "french", "declare fb0c0 lb0c0")   # the only charger: 2b, 2c pass by themselves
    charge = [e for e in events if e.outcome.get("charge")][0]
    assert after.companies["fb0c0"].y == pytest.approx(7.5, abs=0.01) and not charge.outcome["short"]
    assert after.companies["fb0c0"].charge["short"] is False and after.last_action["chargers"] == ["fb0c0"]
    sc = field(("scrub", "scrub", "broken", box(0, 5.5, 45, 8)))
    after, events = go(st, "french", "declare fb0c0 lb0c0", sc)
    assert after.companies["fb0c0"].y == pytest.approx(7.25, abs=0.02)   # 0.5 open + 1.75 in scrub (x2) = 4
    assert after.companies["fb0c0"].charge["short"] is True


def test_march_halts_2_udm_from_the_enemy():
    """IW Marcia: x1.5 (foot 6) while no enemy within 2 UDM; the move halts on coming within 2."""
    st = make_state()
    st.companies["lb0c0"].y = 12.0
    st = at_step(st, "fb0", "move", "march")
    after, events = go(st, "french", "move fb0c0 advance 6")
    assert 9.9 <= after.companies["fb0c0"].y <= 10.05 and "halts on the march" in events[0].narrative


# -- limbering (IW-H 11) -------------------------------------------------------------------------------------

def test_limbering_takes_a_turn_and_unlimbered_guns_do_not_move():
    st = at_step(make_state({"fb0c0": {"arm": "artillery", "missile_weapon": "light_gun"}}), "fb0", "move", "delay")
    with pytest.raises(Illegal, match="unlimbered"):
        go(st, "french", "move fb0c0 advance 1")
    st, _ = go(st, "french", "limber fb0c0")
    gun = st.companies["fb0c0"]
    assert gun.limbering and not gun.limbered and gun.limber_turn == 2
    from engine.italianwars.movement.rout import run_rout_phase
    st.turn = 3
    events = run_rout_phase(None, st, None)                 # its battle failed next turn: done in phase 3
    assert gun.limbered and not gun.limbering and events[0].kind == "limbered"


# -- rout and pursuit (IW-H 9) ------------------------------------------------------------------------------

def test_a_routing_foot_runs_6_toward_its_edge_and_off_the_table():
    """IW Sequenza di mossa 3: IW-H 9.1: foot 4 x 1.5 = 6: turned about its centre (20, 14.5) to face south (front at
    y 14), then 6 UDM: front at y 8. One at y 3 runs off the table: lost."""
    from engine.italianwars.movement.rout import run_rout_phase
    st = make_state()
    r = st.companies["fb1c1"]
    r.x, r.y, r.status = 20.0, 15.0, "routing"
    near = st.companies["fb1c0"]
    near.y, near.status = 3.0, "routing"
    st.phase = "rout"
    events = run_rout_phase(None, st, None)
    assert pose(st, "fb1c1") == (20.0, 8.0, 180.0) and r.disordered
    assert near.status == "off"
    assert st.last_action["kind"] == "rout" and len(st.last_action["routs"]) == 2


def test_a_router_overruns_its_camp_and_one_boxed_in_surrenders():
    """IW Accampamento, IW-H 9.1: a router running through its own camp (2 x 1 at y 1-2) loses
    it (and runs off the table); one that cannot get away surrenders (HERALD D77)."""
    from engine.italianwars.movement.rout import run_rout_phase
    sc = field(camps={"french": SimpleNamespace(side="french", x=20.0, y=2.0, facing=0.0)})
    st = make_state()
    r = st.companies["fb1c1"]
    r.x, r.y, r.status = 20.0, 6.0, "routing"
    run_rout_phase(sc, st, None)
    assert st.armies["french"].camp_lost and r.status == "off"
    # a router at (30, 5) facing north, enemies 0.03 UDM from its rear and both flanks: no way out
    st = make_state()
    r = st.companies["fb1c1"]
    r.x, r.y, r.facing, r.status = 30.0, 5.0, 0.0, "routing"
    for cid, (x, y, f) in {"lb1c0": (30.0, 3.97, 0.0), "lb1c1": (29.47, 4.5, 90.0), "lb0c0": (30.53, 4.5, 270.0)}.items():
        e = st.companies[cid]
        e.x, e.y, e.facing = x, y, f
    events = run_rout_phase(None, st, None)
    assert r.status == "destroyed" and events[0].kind == "surrender"


def test_a_pursuer_catches_its_router_or_meets_another_enemy():
    from engine.italianwars.movement.rout import run_pursuit_phase
    st = make_state()
    router, pursuer = st.companies["lb1c0"], st.companies["fb1c0"]
    router.y, router.status = 12.0, "routing"
    router.facing = 0.0
    pursuer.status, pursuer.pursuing = "pursuing", "lb1c0"
    pursuer.y = 8.0                                     # 4 UDM of foot: reaches the router's rear at y 11
    events = run_pursuit_phase(None, st, None)
    assert router.status == "destroyed" and events[0].outcome["caught"]
    st = make_state()
    router, pursuer, other = st.companies["lb1c0"], st.companies["fb1c0"], st.companies["lb1c1"]
    router.y, router.facing, router.status = 14.0, 0.0, "routing"
    other.x, other.y = 16.0, 10.0                       # in the way, facing south: front at y 10
    pursuer.status, pursuer.pursuing, pursuer.y = "pursuing", "lb1c0", 8.0
    events = run_pursuit_phase(None, st, None)
    assert pursuer.melee_with == ["lb1c1"] and other.melee_with == ["fb1c0"]
    assert pursuer.charge["pursuit"] and pursuer.charge["target"] == "lb1c1" and pursuer.y == 10.0


# -- the api ----------------------------------------------------------------------------------------------------

def test_evade_directly_away_full_move_and_off_the_table():
    """IW Sequenza di mossa 4: IW Schermagliatori, IW-H 4.4: skirmishers 6 UDM directly away from the charger."""
    st = make_state({"lb1c0": {"role": "skirmishers"}})
    sk, charger = st.companies["lb1c0"], st.companies["fb1c0"]
    sk.y = 10.0                                         # facing south; centre (16, 10.5); charger centre (16, 4.5)
    events = api.evade(None, st, sk, charger, None)
    assert pose(st, "lb1c0") == (16.0, 17.0, 0.0) and sk.evaded
    sk.y, sk.facing = 27.0, 180.0
    api.evade(None, st, sk, charger, None)
    assert sk.status == "off"


def test_push_back_close_to_contact_face_towards():
    """IW-H 6.4: 1 UDM straight back keeping the facing (y 15 -> 16 facing south); a friend 0.05
    behind: it cannot, stands and is disordered (HERALD D75). IW-H 4.2: closing squares the front
    on the target's front (y 15). face_towards: fb1c1 is due east of fb0c1."""
    st = make_state()
    c, e = st.companies["lb0c0"], st.companies["fb0c0"]
    api.push_back(None, st, c, e, 1.0)
    assert pose(st, "lb0c0") == (10.0, 16.0, 180.0)
    st.companies["lb0c1"].x = 10.0
    st.companies["lb0c1"].y = 17.05                    # a friend 0.05 behind its rear (y 17)
    events = api.push_back(None, st, c, e, 1.0)
    assert events[0].outcome["disordered"] and c.y == 16.0
    a, t = st.companies["fb1c0"], st.companies["lb1c0"]
    api.close_to_contact(None, st, a, t, "front")
    assert pose(st, "fb1c0") == (16.0, 15.0, 0.0) and a.melee_with == ["lb1c0"] and t.melee_with == ["fb1c0"]
    api.face_towards(None, st, st.companies["fb0c1"], st.companies["fb1c1"])
    assert st.companies["fb0c1"].facing == 90.0


def test_ambushers_are_found_within_1_udm_or_from_open_ground_unless_concealed():
    """IW-H 13: a hidden company in a wood is found only within 1 UDM; in plain broken ground
    an enemy in the open sees it."""
    sc = field(("wood", "woods", "broken", box(14, 12, 20, 18)))
    st = make_state()
    amb = st.companies["lb1c0"]
    amb.hidden = True
    assert api.reveal_ambushers(sc, st) == []
    st.companies["fb1c0"].y = 14.2                      # its front 0.8 UDM from the ambusher's (y 15)
    events = api.reveal_ambushers(sc, st)
    assert not amb.hidden and events[0].outcome["by"] == "fb1c0"
    sc = field(("fields", "cultivation", "broken", box(14, 12, 20, 18)))
    st = make_state()
    st.companies["lb1c0"].hidden = True
    events = api.reveal_ambushers(sc, st)
    assert not st.companies["lb1c0"].hidden


# -- a scripted turn of Fornovo ---------------------------------------------------------------------------------

def test_a_turn_of_fornovo_moves_through_iw_apply():
    """Fornovo through the dispatcher: the opening played (engine.italianwars.autoplay) up to the
    first battle's step 2d, then `move <company> advance 1` by IW.apply: 1 UDM along its facing,
    the event and the last action for the picture; then `pass` ends its activation's moves."""
    from engine.core.game import Game
    from engine.core.table.geometry import forward
    from engine.italianwars import autoplay
    from engine.italianwars.movement.move import why_not_move
    g = Game.new("italianwars", "fornovo", 3)
    for _ in range(200):
        if g.state.phase == "actions" and (g.state.activation or {}).get("step") == "move":
            break
        autoplay.play_step(g)
    sc, st = g.scenario, g.state
    act = st.activation
    assert act.get("step") == "move"
    side, bid = act["side"], act["battle"]
    mover = next(c for c in sorted(st.companies.values(), key=lambda c: c.id)
                 if c.battle == bid and not why_not_move(sc, st, c))
    x0, y0, f0 = mover.x, mover.y, mover.facing
    fx, fy = forward(f0)
    st, events = IW.apply(sc, st, side, parse(f"move {mover.id} advance 1"))
    moved = st.companies[mover.id]
    assert (moved.x, moved.y) == pytest.approx((x0 + fx, y0 + fy), abs=0.011) and events[0].kind == "move"
    assert st.last_action["company"] == mover.id and st.last_action["distance"] == 1.0
    with pytest.raises(Illegal, match="already moved"):
        IW.apply(sc, st, side, parse(f"move {mover.id} advance 1"))
