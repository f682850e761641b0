"""Jours de Gloire cavalry charges [9] (engine/jdg/combat/charge.py, resolved with the assaults in
engine/jdg/combat/resolution.py): the charge move, the charge DRMs, square and recall, counter-charge,
refusal, pursuit with its -1 a re-charge, and the disorder of every cavalry unit that charged.

Positions are set by hand on an empty Marengo map around hex 1319 (open ground); every die is
given with `dice=` (a d10 read 0-9 is supplied as read + 1, [0.4])."""
from __future__ import annotations

import pytest

from engine.core.errors import Illegal
from engine.jdg import geometry

from tests.engine.test_jdg_assault import kinds, mods_of, place, run, setup, the


def cavalry(formation: str = "kellermann", orders: str = "with", turn: int = 2, **policies):
    sc, st = setup(formation=formation, orders=orders, turn=turn)
    if policies:
        st.policies["austrian"] = dict(policies)
    return sc, st


# == the charge move [9.1] ==========================================================================

def test_a_charge_moves_and_turns_toward_its_target():
    """[9.1] L599: declared as it moves ("Charge" marker), 1 or 2 hexes, then the attack through a
    frontal hex [6.1]; the marker stays on the unit until its charge ends."""
    sc, st = cavalry()
    place(st, "f-2e-cav", "1219", 3)            # facing West, away from the enemy
    place(st, "a-ir53", "1419", 3)
    st, ev = run(sc, st, "french", "move f-2e-cav 1319 charge 1419")
    cav = st.units["f-2e-cav"]
    assert cav.hex == "1319" and cav.charge and "1419" in geometry.frontal_hexes(sc, cav)
    assert "charge_declared" in kinds(ev) and "f-2e-cav" in st.activation.moved


@pytest.mark.parametrize("prepare, line, why", [
    (lambda st: setattr(st, "turn", 9), "charge f-2e-cav 1419", "night"),
    (lambda st: place(st, "a-ir53", "0910", 0) and place(st, "f-2e-cav", "1010", 3), "charge f-2e-cav 0910",
     "village"),
    (lambda st: place(st, "f-2e-cav", "1019", 0), "move f-2e-cav 1119 1219 1319 charge 1419", "more than 2 hexes"),
    (lambda st: setattr(st.units["f-2e-cav"], "condition", "disordered"), "charge f-2e-cav 1419", "good order"),
    (lambda st: None, "charge f-2e-cav 1519", "no enemy unit in 1519"),
    (lambda st: None, "charge f-art-chambarlhac 1419", "not cavalry|not of the active"),
])
def test_charges_refused_leave_the_state_unchanged(prepare, line, why):
    """[12] L800 no charges at night (Marengo turns 9-10); [9.1] L603 not into a village; L605 a
    unit that moves more than 2 hexes cannot charge; [10.1] a disordered unit never charges."""
    sc, st = cavalry()
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    place(st, "f-art-chambarlhac", "1218", 0)
    prepare(st)
    before = st.state_hash()
    with pytest.raises(Illegal, match=why):
        run(sc, st, "french", line)
    assert st.state_hash() == before


def test_without_orders_the_check_comes_before_the_move():
    """[9.1] L599 (HERALD D15, D52): Without Orders the engagement check is made before the charge
    move; on a failure the unit stays put and cannot fight. 2e Cav. has engagement 7: 8 fails,
    7 passes."""
    sc, st = cavalry(orders="without", square="never")
    place(st, "f-2e-cav", "1219", 0)
    place(st, "a-ir53", "1419", 3)
    failed, ev = run(sc, st, "french", "move f-2e-cav 1319 charge 1419 dice=9")
    assert the(ev, "engagement_check").outcome["passed"] is False and "charge_failed" in kinds(ev)
    assert failed.units["f-2e-cav"].hex == "1219" and not failed.units["f-2e-cav"].charge
    with pytest.raises(Illegal, match="no assault or charge"):
        run(sc, failed, "french", "resolve")
    passed, ev = run(sc, st, "french", "move f-2e-cav 1319 charge 1419 dice=8")
    assert passed.units["f-2e-cav"].hex == "1319" and passed.units["f-2e-cav"].charge


# == the charge DRMs [9.2] and the end of the charge =================================================

def test_heavy_and_light_charge_modifiers():
    """[9.2] L613-615: +3 when heavy cavalry (L) charges, +1 for other cavalry."""
    sc, st = cavalry(square="never")
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st2, ev = run(sc, st, "french", "resolve dice=1,10")
    assert mods_of(the(ev, "assault"))["one or more heavy cavalry (L) charging"] == 3
    sc, st = cavalry(formation="rivaud", square="never")
    place(st, "f-12e-hu", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-12e-hu 1419")
    st, ev = run(sc, st, "french", "resolve dice=1,10")
    assert mods_of(the(ev, "assault"))["cavalry charging, none heavy"] == 1


def test_a_lost_charge_disorders_twice_and_pursuit_recharges_at_minus_one():
    """[9.5] L668: the defender falls back, the charging cavalry must pursue and charge it again,
    -1 for the re-charge; [9.2] L619 (HERALD D55): a charge lost (0-4) disorders the cavalry, and
    the end of the charge disorders it again after every pursuit: routed.
    2e Cav. (2, heavy) on IR 53 (7): 1:3 -3, cohesion +1, heavy +3, open +1: d10 8 = 10; the
    re-charge on the disordered IR 53 (cohesion 3): -3 +4 +3 -1 +1: d10 0 = 4; the check 9 fails."""
    sc, st = cavalry(square="never")
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, ev = run(sc, st, "french", "resolve dice=9,1,10")
    rolls = [e for e in ev if e.kind == "assault"]
    assert [r.outcome["result"] for r in rolls] == ["breakthrough", "check_attacker"]
    assert rolls[1].inputs["origin"] == "pursuit"
    assert mods_of(rolls[1])["each re-charge in pursuit, cumulative"] == -1
    assert "pursuit" in kinds(ev) and st.units["a-ir53"].condition == "disordered"
    assert st.units["f-2e-cav"].condition == "routed" and not st.units["f-2e-cav"].charge
    assert kinds(ev).index("pursuit") < [i for i, e in enumerate(ev) if e.kind == "routed"][-1]
    assert st.pending is None and st.combat["queue"] == []


def test_pursuit_recharges_add_minus_one_each():
    """[9.5] L668: no limit to the pursuits, each re-charge -1 cumulative (-1, then -2)."""
    sc, st = cavalry(square="never")
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, ev = run(sc, st, "french", "resolve dice=9,10,1")
    recharges = [mods_of(e).get("each re-charge in pursuit, cumulative") for e in ev if e.kind == "assault"]
    assert recharges[:3] == [None, -1, -2]


def test_charge_on_lone_artillery_enters_the_hex_then_disordered():
    """[8.9], [9.5] L662: artillery alone is eliminated; the cavalry enters the emptied hex and, with
    no enemy in its front, the pursuit ends; [9.2] every cavalry unit that charged is then
    disordered. With an enemy in its front it may charge on, or stop ("può continuare")."""
    sc, st = cavalry(reaction_fire="never")
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-art-hadik", "1419", 3)
    st2, ev = run(sc, st, "french", "charge f-2e-cav 1419")
    st2, ev = run(sc, st2, "french", "resolve")
    assert not st2.units["a-art-hadik"].alive
    assert st2.units["f-2e-cav"].hex == "1419" and st2.units["f-2e-cav"].condition == "disordered"
    place(st, "a-ir53", "1519", 3)
    st3, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st3, ev = run(sc, st3, "french", "resolve")
    p = st3.pending
    assert p["kind"] == "pursuit" and p["side"] == "french" and p["options"] == ["charge", "stop"]
    assert st3.units["f-2e-cav"].condition == "good"                # not before the pursuit ends
    st4, ev = run(sc, st3, "french", "react stop")
    assert st4.units["f-2e-cav"].condition == "disordered" and st4.pending is None


# == square and recall [9.3] ==========================================================================

def test_square_against_a_charge_and_the_recall():
    """[9.3] L623-627: infantry charged in open ground tries to form square, d10 <= its cohesion
    (0 <= 6: formed); L637-639: the charging cavalry may be recalled, an engagement check (0 <= 7),
    and falls back 1 hex away from the square, never into an enemy ZoC; not resolved, so no
    end-of-charge disorder (HERALD D54)."""
    sc, st = cavalry()
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, ev = run(sc, st, "french", "resolve dice=1")
    assert the(ev, "square_attempt").outcome["formed"] is True and st.units["a-ir53"].square
    assert st.pending["kind"] == "recall" and st.pending["side"] == "french"
    recalled, ev = run(sc, st, "french", "react recall dice=1")
    cav = recalled.units["f-2e-cav"]
    assert "recall" in kinds(ev) and "assault" not in kinds(ev)
    assert geometry.distance(sc, cav.hex, "1419") == 2 and cav.condition == "good"
    assert not geometry.enemy_zoc(sc, recalled, cav.hex, "french")
    # charging the square instead: no +3, -2 instead [9.3] L631
    charged, ev = run(sc, st, "french", "react charge dice=10,1")
    mods = mods_of(the(ev, "assault"))
    assert mods["charge against a square (and no positive charge DRM)"] == -2
    assert "one or more heavy cavalry (L) charging" not in mods


def test_a_failed_square_disorders():
    """[9.3] L627: a roll above the cohesion (9 > 6): no square, the unit is disordered."""
    sc, st = cavalry()
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, ev = run(sc, st, "french", "resolve dice=10,1,10")
    assert the(ev, "square_attempt").outcome == {"formed": False, "disordered": ["a-ir53"]}
    assert "cohesion 7 vs 3" in mods_of(the(ev, "assault"))


# == refusal [8.8] and counter-charge [9.4] =============================================================

def test_light_cavalry_refuses_a_heavy_charge():
    """[8.8] L577: non-heavy cavalry may refuse a charge by heavy cavalry; the charge is not
    resolved: the cavalry takes the hex, no pursuit, no end-of-charge disorder (HERALD D51)."""
    sc, st = cavalry()
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-bussy-ch", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, _ = run(sc, st, "french", "resolve")
    assert st.pending["kind"] == "refuse_assault" and st.pending["side"] == "austrian"
    st, ev = run(sc, st, "austrian", "react refuse")
    assert st.units["a-bussy-ch"].hex != "1419" and st.units["f-2e-cav"].hex == "1419"
    assert st.units["f-2e-cav"].condition == "good" and "assault" not in kinds(ev) and st.pending is None


def test_counter_charge_cancels_the_charge_modifiers():
    """[9.4] L647-653: charged through its front, cavalry in good order may counter-charge: an
    engagement check, +2 for non-heavy cavalry against heavy (5 + 2 <= 7, passed); the charge is
    then resolved without its +3: 2 on 2, 1:1, cohesion 7 vs 7, open +1: d10 0 = 1, the attacker
    is disordered, fails its check (9 > 4) and falls back, then routs at the end of its charge."""
    sc, st = cavalry(refuse_assault="never")
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-bussy-ch", "1419", 3)
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, _ = run(sc, st, "french", "resolve")
    assert st.pending["kind"] == "counter_charge" and st.pending["side"] == "austrian"
    st, ev = run(sc, st, "austrian", "react counter_charge dice=6,1,10")
    check = the(ev, "engagement_check")
    assert check.outcome == {"passed": True, "total": 7}
    assert [m.value for m in check.modifiers] == [2]
    mods = mods_of(the(ev, "assault"))
    assert "one or more heavy cavalry (L) charging" not in mods and the(ev, "assault").outcome["total"] == 1
    assert the(ev, "fall_back" if "fall_back" in kinds(ev) else "retreat").outcome  # failed its check (9 > 4)
    assert st.units["f-2e-cav"].condition == "routed"                 # result + end of charge (D55)


def test_no_counter_charge_from_the_flank():
    """[9.4] L647: only a charge through the defender's frontal hexes may be counter-charged."""
    sc, st = cavalry(refuse_assault="never")
    place(st, "f-2e-cav", "1319", 0)
    place(st, "a-bussy-ch", "1419", 0)        # facing East: 1319 is a flank hex
    st, _ = run(sc, st, "french", "charge f-2e-cav 1419")
    st, ev = run(sc, st, "french", "resolve dice=1,1")
    assert "engagement_check" not in kinds(ev)
    first = the(ev, "assault")
    assert first.inputs["origin"] == "declared"
    assert mods_of(first)["defender attacked through one of its four flank hexes"] == 2
    # the pursuit's re-charge comes through its front: that one may be counter-charged
    assert st.pending["kind"] == "counter_charge" and st.pending["combat"] != first.outcome["combat"]
