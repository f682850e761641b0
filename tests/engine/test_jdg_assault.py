"""Jours de Gloire infantry assaults [8] and the Assault & Charge table (engine/jdg/combat/assault.py).

Positions are set by hand on an empty Marengo map around hex 1319 (open ground, level 0, no
hexside feature within 3 hexes); every die is given with `dice=` (a d10 read 0-9 is supplied as
read + 1, [0.4])."""
from __future__ import annotations

from fractions import Fraction

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.jdg import tables
from engine.jdg.combat import assault as A
from engine.jdg.ruleset import JDG
from engine.jdg.state import Activation


def setup(formation: str = "chambarlhac", side: str = "french", orders: str = "with", seed: int = 7,
          step: str = "movement", turn: int = 2):
    """A state with no unit on the map and `formation` activated (step `step`)."""
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, seed)
    for u in st.units.values():
        u.hex, u.status = None, "off_map"
    st.phase, st.turn, st.pending = "activation", turn, None
    for f in st.formations.values():
        f.orders = "with" if f.id != formation else orders
        f.revealed = True
    st.activation = Activation(f"{formation}-1", side, [formation], step=step, with_orders=orders == "with")
    return sc, st


def place(st, uid: str, hex_id: str, facing: int, condition: str = "good", square: bool = False):
    u = st.units.pop(uid)
    u.hex, u.facing, u.status, u.condition, u.square = hex_id, facing, "active", condition, square
    st.units[uid] = u                      # it enters under the units already there [5.1]
    return u


def run(sc, st, side: str, line: str):
    return JDG.apply(sc, st, side, parse(line))


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def the(events, kind: str):
    return next(e for e in events if e.kind == kind)


def mods_of(ev) -> dict[str, int]:
    return {m.reason: m.value for m in ev.modifiers}


# == the modifiers [8.6] ============================================================================

def test_force_ratio_examples_of_the_text():
    """[8.6] L539: 8 strength points against 3 assault at 2:1; 5 against 6 at 1:1.5 (rounded in
    the defender's favour). 24e Leg. (8) on the Mariassy Jager (3); 28e Ligne (5) on Kaiser Dr. (6)."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-mariassy", "1419", 3)
    mods = {m.reason: m.value for m in A.combat_modifiers(sc, st, [st.units["f-24e-leg"]], ["1419"])}
    assert mods["force ratio 2:1"] == 2
    assert mods["cohesion 7 vs 6"] == 1                      # [8.6] L543
    assert mods["assault against a defender in open terrain"] == 1
    sc, st = setup(formation="watrin")
    place(st, "f-28e", "1319", 0)
    place(st, "a-kaiser-dr", "1419", 3)
    mods = {m.reason: m.value for m in A.combat_modifiers(sc, st, [st.units["f-28e"]], ["1419"])}
    assert mods["force ratio 1:1.5"] == -1


def test_odds_use_the_real_modifiers():
    """/odds: the bands of [8.5] for d10 + the DRMs of this assault (+2 ratio, +1 cohesion, +1 open)."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-mariassy", "1419", 3)
    odds = A.assault_odds_for(sc, st, ["f-24e-leg"], "1419")
    assert odds == tables.assault_odds(4)
    assert odds["breakthrough"] == Fraction(4, 10) and odds["repulse"] == 0


def test_flank_and_six_front_modifiers():
    """[6.1]: a defender attacked from a flank hex suffers the flank DRM; a unit in a village (six
    fronts) attacks at -1 (HERALD D31)."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 0)            # facing East: 1319 is behind it
    mods = {m.reason: m.value for m in A.combat_modifiers(sc, st, [st.units["f-24e-leg"]], ["1419"])}
    assert mods["defender attacked through one of its four flank hexes"] == 2
    place(st, "f-24e-leg", "0910", 0)         # village
    place(st, "a-ir53", "1010", 3)
    mods = {m.reason: m.value for m in A.combat_modifiers(sc, st, [st.units["f-24e-leg"]], ["1010"])}
    assert mods["six-front unit attacking through a hex outside its normal front"] == -1


# == the results [8.5] ===============================================================================

def test_result_5_to_9_defender_falls_back_and_checks():
    """[8.5] L526: 5-9, the defender falls back 1 hex and checks cohesion (disordered on a failure);
    [8.7] the attacker advances into the hex emptied. d10 5 +2 = 7; the check: 9 > 6, failed."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, ev = run(sc, st, "french", "assault f-24e-leg on 1419")
    assert st.units["f-24e-leg"].assault == "choc"
    st, ev = run(sc, st, "french", "resolve dice=6,10")
    roll = the(ev, "assault")
    assert roll.outcome == {"total": 7, "result": "fall_back", "combat": 1}
    ir53 = st.units["a-ir53"]
    assert ir53.hex != "1419" and ir53.condition == "disordered"
    assert st.units["f-24e-leg"].hex == "1419" and st.units["f-24e-leg"].condition == "good"
    assert "advance" in kinds(ev) and st.pending is None


def test_result_0_to_4_attacker_disordered_checks_and_falls_back():
    """[8.5] L528: 0-4, the attacker is disordered, checks cohesion (its reduced value, HERALD D2)
    and falls back 1 hex on a failure. d10 0 +2 = 2; the check 9 > 4."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=1,10")
    assert the(ev, "assault").outcome["result"] == "check_attacker"
    leg = st.units["f-24e-leg"]
    assert leg.condition == "disordered" and leg.hex != "1319"
    assert st.units["a-ir53"].hex == "1419" and st.units["a-ir53"].condition == "good"
    assert st.pending is None


def test_result_below_0_and_the_counter_assault():
    """[8.5] L530, [8.7] L563: below 0, the attacker is disordered and checks cohesion; the
    defender may counter-assault any unit in its front, at once, without a check (HERALD D50).
    28e Ligne (5, coh 7) on Gr. Morzin I (7, coh 8): 1:1.5 -1, cohesion -1, open +1; d10 0 = -1."""
    sc, st = setup(formation="watrin")
    place(st, "f-28e", "1319", 0)
    place(st, "a-gr-morzin-1", "1419", 3)
    st, _ = run(sc, st, "french", "assault f-28e on 1419")
    st, ev = run(sc, st, "french", "resolve dice=1,1")
    assert the(ev, "assault").outcome == {"total": -1, "result": "repulse", "combat": 1}
    assert st.units["f-28e"].condition == "disordered" and st.units["f-28e"].hex == "1319"   # passed 0 <= 4
    p = st.pending
    assert p["kind"] == "counter_assault" and p["side"] == "austrian" and p["options"] == ["f-28e", "none"]
    with pytest.raises(Illegal):                       # the French may not answer for the Austrians
        run(sc, st, "french", "react f-28e")
    # Morzin (7, coh 8) on the disordered 28e (5, coh 4): 1:1 0, cohesion +4, open +1; d10 5 = 10
    st, ev = run(sc, st, "austrian", "react f-28e dice=6")
    roll = the(ev, "assault")
    assert roll.inputs["origin"] == "counter_assault" and roll.outcome["total"] == 10
    assert not any(e.kind == "engagement_check" for e in ev)
    assert st.units["f-28e"].condition in ("routed", "eliminated") or not st.units["f-28e"].alive
    assert st.units["a-gr-morzin-1"].hex == "1319"                         # it advanced [8.7]
    assert st.pending is None                                               # no chain [8.7] L559


def test_result_10_or_more_and_the_breakthrough():
    """[8.5] L524, [8.7] L561: 10 or more, the defender falls back and is disordered; the attacker
    advances and may break through: a second assault on every enemy in its front, no engagement
    check, and never a third (no chains, L559). d10 6 +4 = 10."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-mariassy", "1419", 3)
    place(st, "a-ir53", "1520", 3)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=7")
    assert the(ev, "assault").outcome["result"] == "breakthrough"
    assert st.units["a-mariassy"].condition == "disordered" and st.units["a-mariassy"].hex != "1419"
    assert st.units["f-24e-leg"].hex == "1419" and st.units["f-24e-leg"].facing == 0
    p = st.pending
    assert p["kind"] == "breakthrough" and p["side"] == "french" and p["options"] == ["f-24e-leg", "none"]
    with pytest.raises(Illegal):
        run(sc, st, "french", "breakthrough f-96e")
    st2, ev = run(sc, st, "french", "breakthrough none")
    assert st2.pending is None and "assault" not in kinds(ev)
    st3, ev = run(sc, st, "french", "breakthrough f-24e-leg dice=10")
    roll = the(ev, "assault")
    assert roll.inputs["origin"] == "breakthrough" and "1520" in roll.inputs["targets"]
    assert not any(e.kind == "engagement_check" for e in ev)
    assert st3.pending is None or st3.pending["kind"] != "breakthrough"


def test_artillery_alone_is_eliminated_without_a_roll():
    """[8.5] L534, [8.9]: artillery alone in its hex, assaulted, is eliminated (after any reaction
    fire), no die rolled; the attacker advances and may not break through ([8.7] Exc. 2)."""
    sc, st = setup()
    st.policies["austrian"] = {"reaction_fire": "never"}
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-art-hadik", "1419", 3)
    place(st, "a-ir53", "1520", 3)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve")
    assert not st.units["a-art-hadik"].alive
    assert the(ev, "assault").outcome["result"] == "artillery_overrun" and not the(ev, "assault").dice
    assert st.units["f-24e-leg"].hex == "1419" and st.pending is None


# == who may assault [8.1], [8.2], [8.4] ================================================================

@pytest.mark.parametrize("prepare, line, why", [
    (lambda st: None, "assault f-art-chambarlhac on 1419", "artillery never assaults"),
    (lambda st: None, "assault f-2e-cav on 1419", "cavalry assaults only by charging"),
    (lambda st: setattr(st.units["f-24e-leg"], "condition", "disordered"), "assault f-24e-leg on 1419",
     "disordered and routed units may not assault"),
    (lambda st: setattr(st.units["f-24e-leg"], "square", True), "assault f-24e-leg on 1419",
     "in square"),
    (lambda st: None, "assault f-24e-leg on 1320", "frontal hexes"),
    (lambda st: None, "assault f-24e-leg on 1418", "no enemy unit in 1418"),
])
def test_refusals_leave_the_state_unchanged(prepare, line, why):
    """[8.1] Exc. 1: disordered, routed, square and artillery units never assault; cavalry only
    charges [9]; only through a frontal hex [6.1]; a refused command changes nothing."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "f-art-chambarlhac", "1319", 0)
    place(st, "f-2e-cav", "1219", 0)
    place(st, "a-ir53", "1419", 3)
    place(st, "a-ir52", "1320", 3)
    prepare(st)
    before = st.state_hash()
    with pytest.raises(Illegal, match=why):
        run(sc, st, "french", line)
    assert st.state_hash() == before


def test_without_orders_the_engagement_check_at_resolution():
    """[8.2] L481-485 (HERALD D15): Without Orders the unit is marked Choc/Test and checks
    engagement when its combat is resolved: 24e Leg. (engagement 7) fails on 8 and does not
    assault; passes on 7 and assaults."""
    sc, st = setup(orders="without")
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    assert st.units["f-24e-leg"].assault == "choc_test"
    failed, ev = run(sc, st, "french", "resolve dice=9")
    check = the(ev, "engagement_check")
    assert check.outcome["passed"] is False and "assault" not in kinds(ev)
    assert failed.units["a-ir53"].hex == "1419" and failed.units["f-24e-leg"].hex == "1319"
    passed, ev = run(sc, st, "french", "resolve dice=8,6,1")
    assert the(ev, "engagement_check").outcome["passed"] is True
    assert the(ev, "assault").outcome["result"] == "fall_back"


def test_combined_assault_adds_strengths_and_one_declaration():
    """[8.4] L500: friendly units adjacent to the defender combine: strengths added (8 + 9 = 17
    against 7: 2:1), the best cohesion; a second declaration on the same hex joins the first (an
    enemy unit is assaulted once per activation, [8.1] L473)."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "f-96e", "1320", 0)
    place(st, "a-ir53", "1419", 3)
    st, ev = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "assault f-96e on 1419")
    assert the(ev, "assault_declared").outcome["joined"] is True
    c = st.combat
    assert len(c["queue"]) == 1 and c["queue"][0]["attackers"] == ["f-24e-leg", "f-96e"]
    mods = {m.reason: m.value for m in A.combat_modifiers(sc, st, [st.units["f-24e-leg"], st.units["f-96e"]],
                                                          ["1419"])}
    assert mods["force ratio 2:1"] == 2 and mods["cohesion 7 vs 6"] == 1


def test_an_assaulting_unit_attacks_every_enemy_in_its_front():
    """[8.1] L473 (HERALD D39): 24e Leg. assaults 1419; IR 52 in its other frontal hex 1418, which
    no friend attacks, is attacked too, in one assault (7 + 8 against 8: 1:2)."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    place(st, "a-ir52", "1418", 2)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=1,1")
    assert "assault_extended" in kinds(ev)
    roll = the(ev, "assault")
    assert roll.inputs["targets"] == ["1419", "1418"] and mods_of(roll)["force ratio 1:2"] == -2


def test_cavalry_refuses_an_infantry_assault():
    """[8.8] L573: cavalry, even disordered, may refuse an infantry assault by falling back 1 or 2
    hexes, decided before any engagement check; the infantry may advance into the hex (HERALD
    D51). No die is rolled."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-bussy-ch", "1419", 3, condition="disordered")
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve")
    p = st.pending
    assert p["kind"] == "refuse_assault" and p["side"] == "austrian" and p["options"] == ["refuse", "stand"]
    with pytest.raises(Illegal, match="1 or 2 hexes"):
        run(sc, st, "austrian", "react refuse 1519 1619 1719")
    with pytest.raises(Illegal, match="enemy"):
        run(sc, st, "austrian", "react refuse 1319")
    st2, ev = run(sc, st, "austrian", "react refuse 1519 1619")
    assert st2.units["a-bussy-ch"].hex == "1619" and st2.units["f-24e-leg"].hex == "1419"
    assert "assault" not in kinds(ev) and "refusal" in kinds(ev) and st2.pending is None
    # standing: 8 on the disordered chasseurs' 2 is 4:1 +4, cohesion 7 vs its reduced 4 +3 (HERALD
    # D2, D30), open +1: d10 0 = 8, it falls back and checks cohesion (0, passed)
    st3, ev = run(sc, st, "austrian", "react stand dice=1,1")
    assert the(ev, "assault").outcome["total"] == 8


def test_resolve_needs_a_declaration_and_the_combat_step():
    """[8.2]: nothing to resolve without a declaration; [1.D] the combat step closes movement."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    with pytest.raises(Illegal, match="no assault or charge"):
        run(sc, st, "french", "resolve")
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    assert st.activation.step == "combat"


def test_reaction_fire_comes_before_the_roll():
    """[8.3] L493 (HERALD D44, D53): the defending artillery fires in reaction after any engagement
    check and before the assault is resolved."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-art-hadik", "1419", 3)
    place(st, "a-ir52", "1419", 3)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve")
    order = kinds(ev)
    assert "fire" in order and order.index("fire") < order.index("assault")


def test_a_fall_back_asked_of_its_owner_resumes_the_combat():
    """[10.3]: with policy `retreat ask` the defender picks the hex of its fall back; the result's
    cohesion check and the attacker's advance [8.7] follow his answer."""
    sc, st = setup()
    st.policies["austrian"] = {"retreat": "ask"}
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=6")
    p = st.pending
    assert p["kind"] == "retreat" and p["side"] == "austrian" and p["continue"] == {"kind": "jdg_combat"}
    hex_ = p["options"][0]
    st, ev = run(sc, st, "austrian", f"react {hex_} dice=10")
    assert st.units["a-ir53"].hex == hex_ and st.units["a-ir53"].condition == "disordered"
    assert st.units["f-24e-leg"].hex == "1419" and st.pending is None


# == regressions found by whole autoplayed games (tests/engine/test_jdg_game.py) ==================

def test_a_square_made_to_fall_back_leaves_the_square():
    """[4.2] L227: a unit in square made to fall back by a combat result leaves the square at once,
    and the whole stack with it ([5.1] L275: square never with non-square). d10 9 on the square
    stack: 5-9, both fall back, in line again."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3, square=True)
    place(st, "a-ir52", "1419", 3, square=True)
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=10,1,1")
    assert the(ev, "assault").outcome["result"] == "fall_back"
    assert the(ev, "square_left").outcome["units"] == ["a-ir53", "a-ir52"]
    for uid in ("a-ir53", "a-ir52"):
        assert st.units[uid].hex != "1419" and not st.units[uid].square


def test_the_counter_assault_strikes_with_the_stack_that_has_the_target_in_front():
    """[8.7] L563, HERALD D39, D50: IR 53 assaults the 21e Chasseurs in 1418 and must also attack
    the 70e Ligne in 1419 (D39); repulsed (d10 0 -1 -1 +1 = -1), the defender counter-assaults
    IR 52 in 1320, which only the 70e has in its front: the 70e strikes, never the chasseurs
    (who would have advanced into the 70e's own hex, breaking [5.1])."""
    sc, st = setup(formation="hadik-kaim", side="austrian")
    place(st, "a-ir53", "1319", 0)
    place(st, "a-ir52", "1320", 0)
    place(st, "f-21e-ch", "1418", 3)
    place(st, "f-70e", "1419", 3)
    st.policies["french"] = {"refuse_assault": "never"}
    st, _ = run(sc, st, "austrian", "assault a-ir53 on 1418")
    st, ev = run(sc, st, "austrian", "resolve dice=1,1")
    assert the(ev, "assault").outcome["result"] == "repulse"
    assert st.pending["kind"] == "counter_assault" and "a-ir52" in st.pending["options"]
    st, ev = run(sc, st, "french", "react a-ir52 dice=6")
    roll = the(ev, "assault")
    assert roll.inputs["origin"] == "counter_assault" and roll.inputs["attackers"] == ["f-70e"]
    assert st.units["f-21e-ch"].hex == "1418"
    assert st.units["f-70e"].hex == "1320" and st.units["a-ir52"].hex != "1320"


def test_marengo_cascina_cancels_the_open_ground_plus_one_for_infantry():
    """Marengo D 8.6 L953: a cascina's defenders, if infantry (or infantry and artillery), lose the
    attacker the +1 of an assault in open terrain; cavalry there is assaulted as in the open
    (Marengo D 4.3 L941: otherwise a cascina is open ground). The 24e Légère (2113, facing SE)
    assaults cascina 2213: against IR 53 (8 on 7, 1:1 0, cohesion 7 vs 6 +1) d10 4 gives 5, no
    +1; against the Bussy chasseurs standing (8 on 2, 4:1 +4, cohesion 0) d10 4 gives 9 with it."""
    sc, st = setup()
    assert sc.map.terrain_at("2213") == "cascina"
    place(st, "f-24e-leg", "2113", 1)
    place(st, "a-ir53", "2213", 3)
    st1, _ = run(sc, st, "french", "assault f-24e-leg on 2213")
    st1, ev = run(sc, st1, "french", "resolve dice=5,1")
    roll = the(ev, "assault")
    assert "assault against a defender in open terrain" not in mods_of(roll)
    assert roll.outcome["total"] == 4 + 0 + 1
    sc, st = setup()
    place(st, "f-24e-leg", "2113", 1)
    place(st, "a-bussy-ch", "2213", 3)
    st2, _ = run(sc, st, "french", "assault f-24e-leg on 2213")
    st2, _ = run(sc, st2, "french", "resolve")
    st2, ev = run(sc, st2, "austrian", "react stand dice=5,1")
    roll = the(ev, "assault")
    assert mods_of(roll)["assault against a defender in open terrain"] == 1
    assert roll.outcome["total"] == 4 + 4 + 0 + 1


def test_the_assault_line_names_each_modifier():
    """[8.6] (play-test): the assault's line names its modifiers as the fire's does; it read
    "d10 6 +2 = 8" and the player could not tell the force ratio from the cohesion."""
    sc, st = setup()
    place(st, "f-24e-leg", "1319", 0)
    place(st, "a-ir53", "1419", 3)
    st, ev = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=6,10")
    roll = the(ev, "assault")
    for m in roll.modifiers:
        assert f"{m.value:+d} {m.reason}" in roll.narrative
    assert any(e.kind == "advance" and " advances from " in e.narrative for e in ev)
