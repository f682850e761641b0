"""Jours de Gloire combat results [10]: the ladder [10.1]-[10.2], falling back and the rout retreat
[10.3], rout movement [10.4], units passed through [10.5], on the Marengo map (clear ground in
columns 14-28, rows 14-19)."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import Illegal

from engine.jdg import geometry, rules
from engine.jdg.combat import results, retreat
from engine.jdg.ruleset import JDG
from engine.jdg.setup import new_state

SC = JDG.load_scenario("marengo")
INF = "f-44e"              # infantry: cohesion 7 / 4, MP 5 / 3
CAV = "f-2e-cav"           # cavalry: cohesion 7 / 4, MP 7 / 4
ART = "f-art-gardanne"
A_INF = next(u.id for u in SC.units if u.side == "austrian" and u.arm == "infantry" and u.hex)
A_INF2 = [u.id for u in SC.units if u.side == "austrian" and u.arm == "infantry" and u.hex][1]


def empty_state(**places):
    """A Marengo state with only the named units on the map: id=(hex, facing)."""
    st = new_state(SC, 7)
    for u in st.units.values():
        u.hex, u.status = None, "off_map"
    for c in st.commanders.values():
        c.hex = "0101" if c.side == "austrian" else "3224"
    for uid, (hx, facing) in places.items():
        u = st.units[uid.replace("_", "-")]
        u.hex, u.facing, u.status = hx, facing, "active"
    return st


def dice(*faces):
    """Die faces 1-based, as `dice=` gives them: a d10 read r is supplied as r + 1."""
    return DiceStream(7, 0, supplied=list(faces), strict=True)


def d(sc_distance_a, b):
    return geometry.distance(SC, sc_distance_a, b)


def test_ladder_step_by_step():
    """[10.1]-[10.2]: good -> disordered -> routed (retreating 2 hexes at once) -> eliminated."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    u, enemy = st.units[INF], st.units[A_INF]
    results.disorder(SC, st, u, dice(), "JdG [8.5]", "test", away_from=enemy)
    assert (u.condition, u.hex) == ("disordered", "2015")
    ev = results.disorder(SC, st, u, dice(), "JdG [8.5]", "test", away_from=enemy)
    assert u.condition == "routed" and u.alive
    assert d(u.hex, "2015") == 2 and d(u.hex, "1915") == 3          # 2 hexes, away [10.2], [10.3]
    assert any(e.kind == "routed" for e in ev)
    results.disorder(SC, st, u, dice(), "JdG [8.5]", "test", away_from=enemy)
    assert u.status == "eliminated" and u.hex is None and not u.alive


def test_rout_result_and_worsen_steps():
    """[10.2]: a rout result on a good unit routs it; on a routed unit eliminates it (HERALD D37);
    two steps at once from good order rout."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    u = st.units[INF]
    results.rout(SC, st, u, dice(), "JdG [7.5]", "fire 15+", away_from="1915")
    assert u.condition == "routed" and d(u.hex, "2015") == 2
    results.rout(SC, st, u, dice(), "JdG [7.5]", "fire 15+", away_from="1915")
    assert u.status == "eliminated"
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    u = st.units[INF]
    results.worsen(SC, st, u, dice(), 2, "JdG [8.5]", "two disorders", away_from="1915")
    assert u.condition == "routed"


def test_retreat_distance_by_arm():
    """[10.2] L710: a routed unit retreats at once 2 hexes (infantry) or 3 (cavalry)."""
    for uid, n in ((INF, 2), (CAV, 3)):
        st = empty_state(**{uid: ("2015", 3), A_INF: ("1915", 0)})
        u = st.units[uid]
        results.rout(SC, st, u, dice(), "JdG [8.5]", "test", away_from=st.units[A_INF])
        assert d(u.hex, "2015") == n, uid
        assert d(u.hex, "1915") == n + 1, uid


def test_artillery_that_would_rout_is_eliminated():
    """[10.2] L708: artillery disordered twice, or routed, is eliminated (HERALD D37)."""
    st = empty_state(**{ART: ("2015", 3), A_INF: ("1915", 0)})
    a = st.units[ART]
    results.disorder(SC, st, a, dice(), "JdG [7.5]", "t", away_from="1915")
    assert a.condition == "disordered" and a.hex == "2015"
    results.disorder(SC, st, a, dice(), "JdG [7.5]", "t", away_from="1915")
    assert a.status == "eliminated"
    st = empty_state(**{ART: ("2015", 3)})
    results.rout(SC, st, st.units[ART], dice(), "JdG [7.5]", "t", away_from="1915")
    assert st.units[ART].status == "eliminated"


def test_fall_back_one_hex_away_keeping_facing():
    """[10.3]: 1 hex away from the attacker (D58); a unit not routed keeps its facing (L738)."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    u = st.units[INF]
    ev = retreat.fall_back(SC, st, u, dice(), "JdG [8.5]", away_from=st.units[A_INF])
    assert d(u.hex, "2015") == 1 and d(u.hex, "1915") == 2
    assert u.facing == 3 and u.condition == "good"
    assert ev[-1].outcome["path"] == [u.hex]


def test_fall_back_into_a_frontal_zoc_disorders():
    """[10.3] L750 (D32): a unit falling back into a frontal hex of an enemy unit takes a disorder;
    here every hex away from the attacker is in the front of a second enemy unit."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0), A_INF2: ("2216", 3)})
    fr = geometry.frontal_hexes(SC, st.units[A_INF2])
    away = [h for h in geometry.grid(SC).neighbors("2015") if d(h, "1915") == 2]
    assert set(away) & set(fr)
    # every away hex not in that front holds an enemy unit
    blockers = [h for h in away if h not in fr]
    extra = [u.id for u in SC.units if u.side == "austrian" and u.arm == "infantry" and u.hex][2:2 + len(blockers)]
    for uid, h in zip(extra, blockers):
        st.units[uid].hex, st.units[uid].status, st.units[uid].facing = h, "active", 0
    u = st.units[INF]
    ev = retreat.fall_back(SC, st, u, dice(), "JdG [8.5]", away_from="1915")
    assert u.hex in fr and u.condition == "disordered"
    assert any(e.kind == "disordered" for e in ev)


def test_routed_unit_retreating_into_a_frontal_zoc_is_eliminated():
    """[10.3] L750: "un'unità in rotta che si ritira in una ZoC frontale nemica è eliminata"."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0), A_INF2: ("2216", 3)})
    fr = geometry.frontal_hexes(SC, st.units[A_INF2])
    g = geometry.grid(SC)
    away = [h for h in g.neighbors("2015") if d(h, "1915") == 2]
    extra = [u.id for u in SC.units if u.side == "austrian" and u.arm == "infantry" and u.hex][2:]
    for uid, h in zip(extra, [h for h in away if h not in fr]):
        st.units[uid].hex, st.units[uid].status, st.units[uid].facing = h, "active", 0
    u = st.units[INF]
    u.condition = "disordered"
    results.disorder(SC, st, u, dice(), "JdG [8.5]", "t", away_from="1915")
    assert u.status == "eliminated"


def test_blocked_fall_back_eliminates():
    """[10.3] L734: a unit that cannot fall back (every hex away from the attacker holds an enemy)
    is eliminated."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    away = [h for h in geometry.grid(SC).neighbors("2015") if d(h, "1915") == 2]
    extra = [u.id for u in SC.units if u.side == "austrian" and u.arm == "infantry" and u.hex][1:1 + len(away)]
    for uid, h in zip(extra, away):
        st.units[uid].hex, st.units[uid].status, st.units[uid].facing = h, "active", 0
    u = st.units[INF]
    ev = retreat.fall_back(SC, st, u, dice(), "JdG [8.5]", away_from="1915")
    assert u.status == "eliminated"
    assert "cannot complete its fall back" in ev[-1].narrative


def test_fall_back_onto_friends_it_may_not_stack_with_is_a_last_resort():
    """[10.3] L742, [10.5]: friends it cannot stack with only as an extrema ratio; then it passes
    through them (they check cohesion) to a hex where it may stop."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0), CAV: ("2115", 3)})
    u = st.units[INF]
    retreat.fall_back(SC, st, u, dice(), "JdG [8.5]", away_from="1915")
    assert u.hex != "2115"                           # another hex away was free
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    away = sorted(h for h in geometry.grid(SC).neighbors("2015") if d(h, "1915") == 2)
    cav = [x.id for x in SC.units if x.side == "french" and x.arm == "cavalry"][:len(away)]
    for uid, h in zip(cav, away):
        st.units[uid].hex, st.units[uid].status, st.units[uid].facing = h, "active", 3
    u = st.units[INF]
    ev = retreat.fall_back(SC, st, u, dice(2, 2, 2), "JdG [8.5]", away_from="1915")
    assert u.alive and d(u.hex, "1915") == 3            # through the cavalry, one hex beyond
    assert [e for e in ev if e.kind == "cohesion_check"]    # the unit passed through checked [10.5]


def test_cohesion_check_night_and_reduced_value():
    """[0.3], [12] L802: d10 <= cohesion, the reduced value when disordered; +2 at night."""
    st = empty_state(**{INF: ("2015", 3)})
    u = st.units[INF]
    ok, ev = results.cohesion_check(SC, st, u, dice(8), "cohesion check", "JdG [8.5]")
    assert ok and ev[0].outcome["total"] == 7                # 7 <= 7
    u.condition = "disordered"
    ok, _ = results.cohesion_check(SC, st, u, dice(6), "cohesion check", "JdG [8.5]")
    assert not ok                                            # 5 > 4 (back)
    st.turn = SC.turns.night[0]
    u.condition = "good"
    ok, ev = results.cohesion_check(SC, st, u, dice(7), "cohesion check", "JdG [8.5]")
    assert not ok and ev[0].outcome["total"] == 8            # 6 + 2 > 7
    assert ev[0].dice[0].result == 6


def test_routed_unit_asked_a_check_makes_a_rout_move():
    """[10.2] L726, HERALD D46: a routed unit's cohesion check is replaced by a rout move."""
    st = empty_state(**{INF: ("2015", 3)})
    u = st.units[INF]
    u.condition = "routed"
    ok, ev = results.cohesion_check(SC, st, u, dice(), "cohesion check", "JdG [8.5]")
    assert ok and u.hex != "2015" and any(e.kind == "rout_move" for e in ev)


def test_rout_movement_toward_marengo_exits():
    """[10.4]: full back-side MP, straight toward the nearest exit hex of the side's edge (French:
    east; Austrians: the bridgehead 0109-0111)."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("2010", 0)})
    u, a = st.units[INF], st.units[A_INF]
    u.condition = a.condition = "routed"
    assert retreat.goal_hex(SC, "2015", "french") == "3215"
    retreat.rout_movement(SC, st, u, dice())
    assert u.hex == "2315"                                   # 3 MP of clear ground, due east
    start = "2010"
    retreat.rout_movement(SC, st, a, dice())
    mp = SC.unit(A_INF).mp_back
    assert d(a.hex, "0110") == d(start, "0110") - mp           # toward the bridgehead
    assert a.condition == "routed"


def test_rout_movement_off_the_map_eliminates():
    """[10.2] L730: a rout move that takes the unit off the map eliminates it."""
    st = empty_state(**{INF: ("3115", 3)})
    u = st.units[INF]
    u.condition = "routed"
    ev = retreat.rout_movement(SC, st, u, dice())
    assert u.status == "eliminated"
    assert ev[0].outcome.get("off_map")


def test_rout_movement_stops_in_a_village():
    """[10.4] L764: a routed unit may stop for good in a town, village or fortification it crosses
    (Herald's standing choice, D77), and then makes no more rout moves."""
    st = empty_state(**{INF: ("2712", 3)})
    assert SC.map.terrain_at("2912") == "village"
    u = st.units[INF]
    u.condition = "routed"
    ev = retreat.rout_movement(SC, st, u, dice())
    assert u.hex == "2912" and u.rout_halted and ev[-1].outcome["halted"]
    retreat.rout_movement(SC, st, u, dice())
    assert u.hex == "2912"


def test_rout_movement_shifts_round_an_enemy():
    """[10.4] exception 2 (L766): an obstacle on the line that would eliminate it is avoided by
    shifting a column."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("2215", 3)})
    u = st.units[INF]
    u.condition = "routed"
    ev = retreat.rout_movement(SC, st, u, dice())
    assert u.alive and u.hex != "2215"
    assert "2215" not in ev[-1].outcome["path"]
    assert all(not geometry.in_enemy_frontal_zoc(SC, st, h, "french") for h in ev[-1].outcome["path"])


def test_retreat_policy_ask_waits_for_the_owner():
    """[10.3] (DESIGN pending decisions): under policy "ask" the owner picks the hex; `retreat <hex>`
    answers and the unit's move goes on."""
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    st.policies["french"] = {"retreat": "ask"}
    u = st.units[INF]
    retreat.fall_back(SC, st, u, dice(), "JdG [8.5]", away_from="1915")
    p = st.pending
    assert p["kind"] == "retreat" and p["side"] == "french" and len(p["options"]) > 1
    assert u.hex == "2015"
    choice = p["options"][-1]
    assert rules.HANDLERS["retreat"] is retreat.do_retreat
    with pytest.raises(Illegal):
        retreat.do_retreat(SC, st.copy(), "french", parse("retreat 2014"), dice())   # not offered
    with pytest.raises(Illegal):
        retreat.do_retreat(SC, st.copy(), "austrian", parse(f"retreat {choice}"), dice())
    ev = retreat.do_retreat(SC, st, "french", parse(f"retreat {choice}"), dice())
    assert st.units[INF].hex == choice and st.pending is None
    assert ev[-1].outcome["path"] == [choice]


def test_retreat_continuation_contract():
    """The caller's continuation runs once the owner's choices are done (module contract)."""
    seen = []
    retreat.register_continuation("test_after", lambda sc, st, data, stream: seen.append(data["x"]) or [])
    st = empty_state(**{INF: ("2015", 3), A_INF: ("1915", 0)})
    st.policies["french"] = {"retreat": "ask"}
    retreat.fall_back(SC, st, st.units[INF], dice(), "JdG [8.5]", away_from="1915")
    st.pending["continue"] = {"kind": "test_after", "x": 42}
    rules.REACTIONS["retreat"](SC, st, "french", st.pending["options"][0], [], dice())
    assert seen == [42] and st.pending is None


def test_a_disordered_unit_in_square_and_its_stack_leave_the_square():
    """[4.2] L227: a unit in square that is disordered leaves the square at once; one unit of a
    stack in square disordered, all of them leave it (found by whole autoplayed games: a routed
    unit was left in square)."""
    st = empty_state(**{INF: ("2015", 3), "f-101e": ("2015", 3), A_INF: ("1915", 0)})
    for uid in (INF, "f-101e"):
        st.units[uid].square = True
    ev = results.disorder(SC, st, st.units[INF], dice(), "JdG [7.5]", "test")
    assert st.units[INF].condition == "disordered" and not st.units[INF].square
    assert not st.units["f-101e"].square and st.units["f-101e"].condition == "good"
    assert any(e.kind == "square_left" and e.section == "JdG [4.2]" for e in ev)
