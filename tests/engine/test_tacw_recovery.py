"""TACW Rally and Reform (§12.1-12.3), the formation changes Reform buys (§6.3-6.4), pistol
reloading (§9.8.4) and the Army Commander's rally/reform action (§5.1.2, §12.3), with exact
dice. Dice are die FACES (1-10): `dice=8` rolls a 7.

Positions: the Royalist wing r-a (units r1, r2...) activates first; leaders stand on the
headquarters units "rhq"/"phq" unless a test places them; Reaction Fire is off unless a test
wants it. 0505 and 0506 are adjacent; 0505 and 0405 too.
"""
from __future__ import annotations

import pytest

from engine.core.errors import Illegal
from engine.tacw.fire import small_arms as fire

from .tacw_helpers import Position, refused

R, P = "royalist", "parliament"
RHQ = ("rhq", R, "r-a", "light", ["0503"], "W")   # in command of the units near 0505 (§5.4)
PHQ = ("phq", P, "p-a", "light", ["0114"], "E")


def heavy(uid, side, hexes, facing="W", wing=None, **extra):
    return (uid, side, wing or ("r-a" if side == R else "p-a"), "heavy", hexes, facing, extra)


def cav(uid, side, hexes, facing="W", **extra):
    return (uid, side, "r-a" if side == R else "p-a", "cavalry", hexes, facing, extra)


def leaders(r_wc="rhq", r_ac="rhq", r_ac_value=0, r_wc_value=-1):
    return [("r-ac", R, "ac", r_ac_value, None, r_ac), ("r-wc", R, "wc", r_wc_value, "r-a", r_wc),
            ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", 0, "p-a", "phq")]


def pos(*units, order="rally", lds=None, **kw) -> Position:
    p = Position([RHQ, PHQ, *units], orders={"r-a": order, "p-a": "rally"}, leaders=lds or leaders(), **kw)
    for side in (R, P):
        p.st.policies.setdefault(side, {})["reaction_fire"] = "never"
    p.go(R, "activate r-a")
    return p



def next_activation(p: Position) -> None:
    """As after a successful continuation (§4.3): every unit may act again."""
    p.st.activation.acted.clear()
    p.st.activation.ac_acted = False


# == Rally (§12.2.4 - §12.2.5) ===================================================================

def test_12_2_5_rally_is_automatic_when_stacked_with_the_wing_commander():
    p = pos(heavy("r1", R, ["0505"]), lds=leaders(r_wc="r1"))
    p.unit("r1").morale_state = "broken"
    events = p.go(R, "rally r1")                              # no die
    assert p.unit("r1").morale_state == "shaken" and "automatic" in events[0].narrative


def test_12_2_5_rally_morale_check_with_the_adjacent_wing_commander():
    p = pos(heavy("r1", R, ["0505"]), heavy("r2", R, ["0506"]), lds=leaders(r_wc="r2"))
    p.unit("r1").morale_state = "shaken"                     # current morale 6
    events = p.go(R, "rally r1 dice=8")                        # 7 - 1 = 6: passed
    (mc,) = [e for e in events if e.kind == "morale_check"]
    assert [(m.value, m.section) for m in mc.modifiers] == [(-1, "TACW §12.2.5")]
    assert p.unit("r1").morale_state == "normal"


def test_12_2_5_rally_without_a_leader_fails_on_the_same_die():
    p = pos(heavy("r1", R, ["0505"]))
    p.unit("r1").morale_state = "shaken"
    p.go(R, "rally r1 dice=8")                                 # 7 > 6: failed, Shaken -> Broken
    r1 = p.unit("r1")
    assert r1.morale_state == "broken" and r1.hexes != ["0505"]      # and it flees (§11.4.3)


def test_12_2_5_a_broken_unit_failing_its_rally_is_eliminated():
    p = pos(heavy("r1", R, ["0505"]))
    p.unit("r1").morale_state = "broken"                     # morale 1
    p.go(R, "rally r1 dice=3")                                 # 2 > 1
    assert p.unit("r1").status == "eliminated"


def test_11_5_2_a_unit_at_its_threshold_never_rallies_above_shaken():
    p = pos(heavy("r1", R, ["0505"]), heavy("r2", R, ["0507"]), lds=leaders(r_wc="r1"))
    r1 = p.unit("r1")
    r1.morale_state, r1.at_threshold = "shaken", True
    refused(p, R, "rally r1", "threshold")
    r1.morale_state = "broken"
    p.go(R, "rally r1")
    assert r1.morale_state == "broken" and p.unit("r1").morale_state == "shaken"


def test_12_2_4_rally_needs_a_shaken_or_broken_unit():
    p = pos(heavy("r1", R, ["0505"]))
    refused(p, R, "rally r1", "neither Shaken nor Broken")


@pytest.mark.parametrize("order, wc_near, ok", [("charge", True, False), ("make_ready", True, False),
                                                ("receive_charge", False, False), ("receive_charge", True, True)])
def test_5_6_orders_limit_rally(order, wc_near, ok):
    p = pos(heavy("r1", R, ["0505"]), heavy("r2", R, ["0506"]), order=order,
            lds=leaders(r_wc="r2" if wc_near else "rhq"))
    p.unit("r1").morale_state = "shaken"
    if ok:
        p.go(R, "rally r1 dice=1")
        assert p.unit("r1").morale_state == "normal"
    else:
        refused(p, R, "rally r1", "Rally")


# == Reform (§12.2.3, §6.3, §6.4, §9.8.4) ========================================================

def test_6_4_reform_one_formation_level_per_action():
    p = pos(heavy("r1", R, ["0505"]))
    r1 = p.unit("r1")
    r1.formation = "broken"
    p.go(R, "reform r1")
    assert r1.formation == "broken" and p.unit("r1").formation == "disordered"
    refused(p, R, "reform r1", "already acted")               # one action per activation (§3.2 C)
    next_activation(p)
    p.go(R, "reform r1")
    assert p.unit("r1").formation == "normal"
    next_activation(p)
    refused(p, R, "reform r1", "good order")


@pytest.mark.parametrize("order, wc_near, ok", [("charge", True, False), ("make_ready", False, False),
                                                ("make_ready", True, True), ("receive_charge", False, True)])
def test_5_6_orders_limit_reform(order, wc_near, ok):
    p = pos(heavy("r1", R, ["0505"]), heavy("r2", R, ["0506"]), order=order,
            lds=leaders(r_wc="r2" if wc_near else "rhq"))
    p.unit("r1").formation = "disordered"
    if ok:
        p.go(R, "reform r1")
        assert p.unit("r1").formation == "normal"
    else:
        refused(p, R, "reform r1", "Reform")


def test_6_3_2_leaving_hedgehog_takes_three_reforms():
    p = pos(heavy("r1", R, ["0505"]))
    p.unit("r1").special_formation = "hedgehog"
    p.go(R, "reform r1 hedgehog-exit")
    assert (p.unit("r1").special_formation, p.unit("r1").formation) == ("", "broken")
    for expected in ("disordered", "normal"):
        next_activation(p)
        p.go(R, "reform r1")
        assert p.unit("r1").formation == expected


def test_6_3_2_a_plain_reform_of_a_hedgehog_in_good_order_starts_the_exit():
    p = pos(heavy("r1", R, ["0505"]))
    p.unit("r1").special_formation = "hedgehog"
    p.go(R, "reform r1")
    assert (p.unit("r1").special_formation, p.unit("r1").formation) == ("", "broken")


def test_9_8_4_reload_pistols_one_shot_per_reform():
    p = pos(cav("r1", R, ["0505"], pistols=0))
    p.go(R, "reform r1 reload")
    assert p.unit("r1").pistols == 1                          # No Pistols -> 1st Pistol Used
    next_activation(p)
    p.go(R, "reform r1")                                      # the only thing left to reform
    assert p.unit("r1").pistols == 2
    next_activation(p)
    refused(p, R, "reform r1 reload", "all its pistol shots (2)")


def test_9_8_reload_is_for_cavalry_only():
    p = pos(heavy("r1", R, ["0505"]))
    refused(p, R, "reform r1 reload", "only cavalry")


def test_6_3_3_open_order_in_and_out():
    p = pos(heavy("r1", R, ["0505"]))
    p.go(R, "reform r1 open")
    assert p.unit("r1").special_formation == "open"
    next_activation(p)
    refused(p, R, "reform r1 open", "already in Open Order")
    p.go(R, "reform r1 normal")
    assert p.unit("r1").special_formation == ""


def test_6_3_3_only_a_unit_in_normal_formation_takes_open_order():
    p = pos(heavy("r1", R, ["0505"]))
    p.unit("r1").formation = "disordered"
    refused(p, R, "reform r1 open", "Normal formation")


@pytest.mark.parametrize("kind, after", [("heavy", "broken"), ("cavalry", "disordered")])
def test_6_3_4_leaving_column(kind, after):
    unit = heavy("r1", R, ["0505"]) if kind == "heavy" else cav("r1", R, ["0505"])
    p = pos(unit)
    p.unit("r1").special_formation = "column"
    p.go(R, "reform r1 column-exit")
    assert (p.unit("r1").special_formation, p.unit("r1").formation) == ("", after)


def test_12_2_3_artillery_has_nothing_to_reform():
    p = pos(("g1", R, "r-a", "artillery", ["0505"], "W", {}))
    refused(p, R, "reform g1", "no formation")


# == Reaction Fire (§12.2.2) =====================================================================

def test_12_2_2_rally_or_reform_next_to_the_enemy_triggers_reaction_fire(monkeypatch):
    calls = []

    def fake(sc, st, unit, trigger, stream, *, hexes=None, exclude=None, **kw):
        calls.append((unit.id, trigger, hexes))
        return [], False
    monkeypatch.setattr(fire, "reaction_fire", fake)
    p = pos(heavy("r1", R, ["0505"]), heavy("r2", R, ["0507"]), heavy("p1", P, ["0405"], "E"),
            lds=leaders(r_wc="r1"))
    p.unit("r1").formation = "disordered"
    p.unit("r2").formation = "disordered"
    p.go(R, "reform r1")
    p.go(R, "reform r2")                                      # not next to an enemy
    p.unit("r1").morale_state = "shaken"
    next_activation(p)
    p.go(R, "rally r1")
    assert calls == [("r1", "reform", ["0505"]), ("r1", "rally", ["0505"])]


def test_12_2_2_real_reaction_fire_answers_a_reform():
    p = pos(heavy("r1", R, ["0505"]), heavy("p1", P, ["0405"], "E"))
    p.st.policies[P]["reaction_fire"] = "auto"
    p.unit("r1").formation = "disordered"
    events = p.go(R, "reform r1 dice=1")                       # p1 fires: a 0, a miss
    assert p.unit("r1").formation == "normal"
    assert any(e.kind == "fire" for e in events)


# == the Army Commander (§5.1.2, §12.3) ==========================================================

def ac_position(**kw):
    wings = [("r-a", R, "r-wc", False), ("r-b", R, "r-wc2", False), ("p-a", P, "p-wc", False)]
    lds = [("r-ac", R, "ac", -1, None, kw.pop("ac_with", "r1")), ("r-wc", R, "wc", -1, "r-a", "rhq"),
           ("r-wc2", R, "wc", -1, "r-b", "b2"), ("p-ac", P, "ac", 0, None, "phq"),
           ("p-wc", P, "wc", 0, "p-a", "phq")]
    p = Position([RHQ, PHQ, heavy("r1", R, ["0505"]), heavy("b1", R, ["0506"], wing="r-b"),
                  heavy("b2", R, ["0808"], wing="r-b")], wings=wings, leaders=lds,
                 orders={"r-a": "charge", "r-b": "rally", "p-a": "rally"})
    for side in (R, P):
        p.st.policies.setdefault(side, {})["reaction_fire"] = "never"
    p.go(R, "activate r-a")
    return p


def test_12_3_the_ac_rallies_a_stacked_unit_automatically_whatever_its_orders():
    p = ac_position()
    p.unit("r1").morale_state = "broken"                     # r-a is on Charge: no Rally of its own
    refused(p, R, "rally r1", "Rally")
    p.go(R, "leader r-ac rally r1")
    assert p.unit("r1").morale_state == "shaken" and p.st.activation.ac_acted


def test_12_3_3_the_ac_rally_of_an_adjacent_unit_of_another_wing_is_an_mc_with_his_value():
    p = ac_position()
    p.unit("b1").morale_state = "shaken"
    events = p.go(R, "leader ac rally b1 dice=8")              # 7 - 1 = 6 <= 6
    (mc,) = [e for e in events if e.kind == "morale_check"]
    assert [(m.value, m.section) for m in mc.modifiers] == [(-1, "TACW §12.3.3")]
    assert p.unit("b1").morale_state == "normal"


def test_5_1_2_the_ac_acts_once_per_activation_and_only_near_him():
    p = ac_position()
    p.unit("b1").formation = "broken"
    p.unit("b2").formation = "broken"
    refused(p, R, "leader r-ac reform b2", "neither stacked with nor adjacent")
    p.go(R, "leader r-ac reform b1")
    assert p.unit("b1").formation == "disordered"
    p.unit("r1").formation = "disordered"
    refused(p, R, "leader r-ac reform r1", "already taken his action")


def test_12_3_the_ac_reforms_a_charge_unit():
    p = ac_position()
    p.unit("r1").formation = "disordered"
    refused(p, R, "reform r1", "Reform")
    p.go(R, "leader r-ac reform r1")
    assert p.unit("r1").formation == "normal"


def test_5_1_2_only_the_army_commander():
    p = ac_position()
    p.unit("b1").formation = "broken"
    refused(p, R, "leader r-wc2 reform b1", "Army Commander")
    refused(p, R, "leader p-ac reform b1", "not one of your leaders")


def test_edgehill_one_pistol_option_reloads_to_one_shot_only():
    """Edgehill optional rule: Royalist cavalry has one pistol shot instead of two; a Reform
    (§9.8.4) reloads it to that one shot, never to two."""
    from engine.tacw.scenario.schema import load_scenario
    from engine.tacw.setup import new_state
    st = new_state(load_scenario("edgehill"), 1, options=["royalist_cavalry_one_pistol"])
    cav = st.units["r-rupert"]
    assert cav.pistols == cav.max_pistols == 1
    assert st.units["p-ramsey"].pistols == st.units["p-ramsey"].max_pistols == 2
    from engine.tacw.morale.recovery import reform_plan
    cav.pistols = 0
    assert reform_plan(cav, "reload")[2] == {"pistols": 1}
    cav.pistols = 1
    import pytest
    with pytest.raises(Illegal, match=r"all its pistol shots \(1\)"):
        reform_plan(cav, "reload")


# == out of command (§5.4.3, digest R8) ==========================================================

FAR_HQ = ("rhq", R, "r-a", "light", ["1801"], "W")     # the Wing Commander far from the fighting


def far(*units, lds=None) -> Position:
    p = Position([FAR_HQ, PHQ, *units], orders={"r-a": "rally", "p-a": "rally"}, leaders=lds or leaders())
    for side in (R, P):
        p.st.policies.setdefault(side, {})["reaction_fire"] = "never"
    p.go(R, "activate r-a")
    p.unit("r1").formation = "disordered"
    return p


def test_5_4_3_out_of_command_a_unit_that_could_step_toward_command_may_not_reform():
    p = far(heavy("r1", R, ["0505"]))
    refused(p, R, "reform r1", "could move closer to command")


def test_5_4_3_out_of_command_the_army_commander_next_to_it_allows_the_reform():
    p = far(heavy("r1", R, ["0505"]), heavy("r2", R, ["0506"]),
            lds=leaders(r_ac="r2"))
    p.go(R, "reform r1")
    assert p.unit("r1").formation == "normal"


def test_5_4_3_out_of_command_a_unit_that_cannot_step_closer_may_reform():
    ring = [heavy(f"r{i}", R, [h]) for i, h in enumerate(("0504", "0506", "0404", "0405", "0604", "0605"), 2)]
    p = far(heavy("r1", R, ["0505"]), *ring)
    p.go(R, "reform r1")                      # every neighbouring hex is taken: it may not move
    assert p.unit("r1").formation == "normal"
