"""Jours de Gloire's optional rules of section II played as game options: the reserve activation,
phase D bis (optional 1, L822-838, HERALD D65, D94), and the tactical groups (optional 2.3,
L840-859, HERALD D66, D93). Positions are built on the Marengo map."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.jdg import ids
from engine.jdg.public import view
from engine.jdg.ruleset import JDG
from engine.jdg.sequence import command as chiefs
from engine.jdg.sequence import groups
from engine.jdg.setup import OPTIONAL_RULES

SC = JDG.load_scenario("marengo")


def go(st, side, line):
    return JDG.apply(SC, st, side, parse(line))


def kinds(events):
    return [e.kind for e in events]


# == the reserve activation, phase D bis (optional 1) ============================================

def to_reserve(dice="8,2", options=("reserve-activation",), seed=3):
    """Turn 1 of Marengo to phase D bis: orders, the strategic initiative with `dice` (French
    first: 8,2 reads 7+2 against 1+1, the French win), no pick, then `draw`/`next` to the end of
    phase D."""
    st = JDG.new_state(SC, seed, list(options))
    st, _ = go(st, "french", "orders watrin")
    st, _ = go(st, "austrian", f"orders hadik-kaim frimont oreilly dice={dice}")
    if st.phase == "initiative":
        st, _ = go(st, st.initiative, "first none")
    log = []
    for _ in range(300):
        if st.phase != "activation":
            return st, log
        st, events = go(st, JDG.to_act(st), "draw" if st.activation is None else "next")
        log += events
    raise AssertionError("phase D never ended")


def test_reserve_activation_is_a_game_option():
    """Optional rules are game options (section II, L820): `reserve-activation` and
    `tactical-groups` are offered; without the option the turn goes from D to E."""
    offered = {oid for oid, _ in OPTIONAL_RULES}
    assert {"reserve-activation", "tactical-groups"} <= offered
    st, _ = to_reserve(options=())
    assert st.phase in ("rout", "end", "orders") and st.turn in (1, 2)
    with pytest.raises(Illegal, match="without the reserve activation"):
        go(st, "french", "reserve watrin")


def test_reserve_phase_d_bis_comes_after_d_the_initiative_holder_first():
    """[II.1] L824-828: phase D bis follows the last draw; the side with the strategic initiative
    chooses first (the status says so); the other may not choose before it."""
    st, log = to_reserve()
    assert log[-2].kind == "last_marker" and st.phase == "reserve"
    assert st.initiative == "french" and JDG.to_act(st) == "french"
    assert "**French** may activate one formation in reserve" in ids.status(SC, st, "french")
    with pytest.raises(Illegal, match="French chooses a reserve formation now"):
        go(st, "austrian", "reserve ott")
    with pytest.raises(Illegal, match="markers are drawn in phase D"):
        go(st, "french", "draw")


def test_reserve_none_without_the_strategic_initiative():
    """[II.1] L828: "Se nessuno dei due giocatori ha l'iniziativa, l'attivazione di riserve non è
    consentita": on a tie (French 4+2, Austrian 5+1) phase D bis passes to phase E at once."""
    st, log = to_reserve(dice="5,6")
    assert st.initiative == ""
    assert "reserve_none" in kinds(log)
    assert st.phase != "reserve"


def test_reserve_formation_needs_a_unit_in_the_chiefs_radius():
    """[II.1] L832: Gardanne, 18 hexes and more from Bonaparte in 2912 (radius 10), may not be the
    reserve; Watrin, 9 hexes away, may."""
    st, _ = to_reserve()
    with pytest.raises(Illegal, match="command radius of 10 hexes"):
        go(st, "french", "reserve gardanne")
    st2, events = go(st, "french", "reserve watrin")
    assert st2.activation.reserve and st2.activation.formations == ["watrin"]


def test_reserve_formation_needs_its_ia_put_in_the_cup_this_turn():
    """[II.1] L838: no formation whose IA was not put in the cup this turn (HERALD D94: any of its
    IAs set aside this turn counts, the unused last chit included)."""
    st, _ = to_reserve()
    assert "rivaud-2" in st.set_aside                   # the last chit, unused, still counts
    st.set_aside = [m for m in st.set_aside if not m.startswith("watrin-")]
    with pytest.raises(Illegal, match="no IA of Watrin \\(Lannes\\) was put in the cup this turn"):
        go(st, "french", "reserve watrin")


def test_reserve_units_next_to_the_enemy_are_not_activated():
    """[II.1] L834: only the formation's units not adjacent to enemy units are activated: with
    IR 28 in 2111 next to 2010 and 2011, the 40e, its artillery and the 28e stay out."""
    st, _ = to_reserve()
    st.units["a-ir28"].hex, st.units["a-ir28"].status = "2111", "active"
    st, events = go(st, "french", "reserve watrin")
    ev = events[0]
    assert ev.kind == "reserve_activation" and ev.section == "JdG opt. [1]"
    assert sorted(ev.outcome["not_activated"]) == ["f-28e", "f-40e", "f-art-watrin"]
    assert sorted(st.activation.reserve_units) == ["f-22e", "f-6e-leg"]
    with pytest.raises(Illegal, match="next to an enemy unit when its formation was activated in reserve"):
        go(st, "french", "move f-28e 2012")
    # every unit adjacent: the formation may not be chosen
    st2, _ = to_reserve()
    for uid, h in (("a-ir28", "1810"), ("a-ir18", "2111"), ("a-ir51", "1912")):
        st2.units[uid].hex, st2.units[uid].status = h, "active"
    with pytest.raises(Illegal, match="every unit of Watrin \\(Lannes\\) is adjacent to an enemy unit"):
        go(st2, "french", "reserve watrin")


def test_reserve_acts_without_orders_whatever_its_orders():
    """[II.1] L836: Watrin was given orders in phase A, yet in reserve it is Without Orders: half
    MP (the 6e Légère's 6 MP give 3), an engagement check to assault (unit_with_orders False), no
    commander's initiative."""
    st, _ = to_reserve()
    assert st.formations["watrin"].orders == "with"
    st, _ = go(st, "french", "reserve watrin")
    assert not chiefs.with_orders(st, "watrin")
    assert not chiefs.unit_with_orders(st, st.units["f-22e"])
    with pytest.raises(Illegal, match="no commander's initiative"):
        go(st, "french", "initiative")
    with pytest.raises(Illegal, match="0 left"):
        go(st, "french", "move f-6e-leg 2009 2008 2007 2006 dice=1")
    st2, events = go(st, "french", "move f-6e-leg 2009 2008 2007 dice=1")
    assert "Without Orders: half = 3" in events[0].narrative


def test_reserve_assault_is_declared_without_orders():
    """[II.1] L836, [8.1], [8.2]: a Watrin unit With Orders in phase A assaults from the reserve as
    Without Orders ("Choc/Test": an engagement check first): the 6e Légère, out of contact at the
    start, moves next to IR 28 in 1709 (cohesion check passed on a 0) and declares its assault."""
    st, _ = to_reserve()
    st.units["a-ir28"].hex, st.units["a-ir28"].status, st.units["a-ir28"].facing = "1709", "active", 0
    st, _ = go(st, "french", "reserve watrin")
    st, events = go(st, "french", "move f-6e-leg 1809 dice=1")
    assert kinds(events)[:2] == ["move", "cohesion_check"]
    st, _ = go(st, "french", "assault f-6e-leg on 1709")
    assert st.units["f-6e-leg"].assault == "choc_test"


def test_reserve_unit_checks_cohesion_at_the_end_of_its_move():
    """[II.1] L836 (HERALD D65, D94): a unit that moved checks cohesion when its move is over:
    the 6e Légère (cohesion 8) rolls 9 and is disordered; with a 8 it passes and stays in good
    order; a unit that did not move rolls nothing."""
    st, _ = to_reserve()
    st, _ = go(st, "french", "reserve watrin")
    failed, events = go(st, "french", "move f-6e-leg 2009 2008 dice=10")
    assert kinds(events) == ["move", "cohesion_check", "disordered"]
    assert events[1].outcome["passed"] is False and events[1].base == 8
    assert failed.units["f-6e-leg"].condition == "disordered"
    passed, events = go(st, "french", "move f-6e-leg 2009 2008 dice=9")
    assert kinds(events) == ["move", "cohesion_check"] and events[1].outcome["passed"] is True
    assert passed.units["f-6e-leg"].condition == "good"
    assert passed.units["f-22e"].condition == "good"
    assert [e for e in events if e.kind == "cohesion_check"][0].outcome["unit"] == "f-6e-leg"


def test_reserve_units_cannot_rally():
    """[II.1] L836: "le unità della formazione attivata nella fase D bis non possono recuperare il
    morale": a disordered unit of the reserve is refused its rally."""
    st, _ = to_reserve()
    st.units["f-22e"].condition = "disordered"
    st, _ = go(st, "french", "reserve watrin")
    with pytest.raises(Illegal, match="activated in reserve .* cannot rally"):
        go(st, "french", "rally f-22e dice=1")
    assert not chiefs.may_rally(st, st.units["f-22e"])


def test_reserve_then_the_other_side_then_phase_e():
    """[II.1] L828: after the French reserve activation the Austrians choose theirs (or none);
    then phase E. The French formation acted a third time this turn (L830)."""
    st, _ = to_reserve()
    assert st.formations["watrin"].activations == 2
    st, _ = go(st, "french", "reserve watrin")
    for _ in range(3):                                  # fire, movement, combat, rally: done
        st, events = go(st, "french", "next")
        assert st.activation is not None
    st, events = go(st, "french", "next")
    assert "reserve activation over (phase D bis)" in " ".join(e.narrative for e in events)
    assert st.phase == "reserve" and JDG.to_act(st) == "austrian"
    with pytest.raises(Illegal, match="Austrian chooses"):
        go(st, "french", "reserve watrin")
    st, events = go(st, "austrian", "reserve none")
    assert "reserve_declined" in kinds(events)
    assert st.phase != "reserve" and st.reserve_done == []


def test_reserve_side_with_no_formation_to_choose_passes():
    """[II.1] L832 (HERALD D94): a side with no formation in its chief's radius has nothing to
    choose: Herald passes for it, and the other side chooses."""
    from engine.jdg.sequence import reserve
    st, _ = to_reserve()
    st.commanders["bonaparte"].hex = "3224"              # far from every French unit
    assert all(why for _, why in reserve.candidates(SC, st, "french"))
    events, wait = reserve.walk(SC, st)
    assert "French has no formation that may be activated in reserve" in " ".join(e.narrative for e in events)
    assert wait and reserve.chooser(st) == "austrian"


# == tactical groups (optional 2.3) =============================================================

# The text's example B (L857): Mortier's 10 units in two groups of 6 and 4, more than 2 hexes
# apart, need 2 of Masséna's 3 orders. On the Marengo map: Ott (the formation) with three borrowed
# grenadier and line units makes 10 units, and Melas has 3 orders (radius 8, in 0210).
GROUP_A = {"a-art-bridgehead": "0209", "a-ir28": "0208", "a-ir18": "0207", "a-ir51": "0307",
           "a-ir57": "0306", "a-ej-hu": "0206"}
GROUP_B = {"a-art-ott": "0212", "a-gr-morzin-1": "0213", "a-gr-morzin-2": "0313", "a-ir11": "0214"}


def mortier(options=("tactical-groups",)):
    st = JDG.new_state(SC, 3, list(options))
    for uid, h in {**GROUP_A, **GROUP_B}.items():
        u = st.units[uid]
        u.hex, u.status, u.formation = h, "active", "ott"
    return st


def test_tactical_groups_are_chains_two_hexes_apart():
    """[II.2.3] L844: units of one formation each within 2 hexes of another form one group; the
    ten units make two groups (6 and 4), 3 hexes apart (0209-0212); the `formations` question
    lists them with their units."""
    st = mortier()
    assert groups.chains(SC, st, "ott") == [list(GROUP_A), list(GROUP_B)]
    text = ids.answer(SC, st, "austrian", "formations", ())
    assert "2 tactical groups" in text
    assert "group `ott:1`: `a-art-bridgehead`, `a-ir28`, `a-ir18`, `a-ir51`, `a-ir57`, `a-ej-hu`" in text
    assert "group `ott:2`: `a-art-ott`, `a-gr-morzin-1`, `a-gr-morzin-2`, `a-ir11`" in text
    # one unit 2 hexes from the chain joins it: one group
    st.units["a-art-ott"].hex = "0211"
    assert len(groups.chains(SC, st, "ott")) == 1


def test_tactical_groups_each_need_an_order_example_b():
    """[II.2.3] L846, L857 (example B): both groups With Orders cost 2 of the 3 orders; with two
    other formations that is 4 orders: refused; an order to one group only leaves the other
    Without Orders."""
    st = mortier()
    with pytest.raises(Illegal, match="order potential is 3: 4 tactical groups named"):
        go(st, "austrian", "orders ott hadik-kaim frimont")
    both, _ = go(st, "austrian", "orders ott hadik-kaim")
    assert [g["orders"] for g in both.formations["ott"].groups] == ["with", "with"]
    assert both.formations["ott"].orders == "with"
    one, events = go(st, "austrian", "orders ott:1 hadik-kaim frimont")
    assert [g["orders"] for g in one.formations["ott"].groups] == ["with", "without"]
    assert one.formations["ott"].orders == "without"
    assert chiefs.unit_with_orders(one, one.units["a-ir28"])
    assert not chiefs.unit_with_orders(one, one.units["a-gr-morzin-1"])
    # a unit names its group: a-ir11 is in ott:2
    by_unit, _ = go(st, "austrian", "orders a-ir11")
    assert [g["orders"] for g in by_unit.formations["ott"].groups] == ["without", "with"]
    with pytest.raises(Illegal, match="ott has 2 tactical group"):
        go(st, "austrian", "orders ott:3")
    with pytest.raises(Illegal, match="named twice"):
        go(st, "austrian", "orders ott ott:2")


def test_tactical_groups_orders_stay_secret():
    """HERALD D11, D66: the other side sees neither the formation's nor its groups' orders before
    the first activation."""
    st = mortier()
    st, events = go(st, "austrian", "orders ott:1")
    seen = view(SC, st, "french")
    assert [g["orders"] for g in seen.formations["ott"].groups] == ["", ""]
    assert "orders secret" in ids.answer(SC, st, "french", "formations", ())
    assert "With Orders" in ids.answer(SC, st, "austrian", "formations", ())


def test_tactical_groups_need_a_unit_in_the_chiefs_radius():
    """[II.2.3] L850: a group needs a unit within the commander-in-chief's radius: group 2 moved
    to 0219-0221, 9 to 11 hexes from Melas (radius 8), gets no order; group 1 may."""
    st = mortier()
    for uid, h in zip(GROUP_B, ("0219", "0220", "0221", "0321")):
        st.units[uid].hex = h
    with pytest.raises(Illegal, match="no unit of the tactical group ott:2 .* within Melas's command radius"):
        go(st, "austrian", "orders ott:2")
    with pytest.raises(Illegal, match="ott:2"):
        go(st, "austrian", "orders ott")
    st, _ = go(st, "austrian", "orders ott:1")
    assert [g["orders"] for g in st.formations["ott"].groups] == ["with", "without"]


def activate_ott(st, austrian="orders ott:1 hadik-kaim frimont"):
    """Phase A; the Austrians win the initiative (French 0+2, Austrian 9+1) and start with Ott."""
    st, _ = go(st, "austrian", austrian)
    st, _ = go(st, "french", "orders watrin dice=1,10")
    assert st.initiative == "austrian"
    return go(st, "austrian", "first ott")


def test_tactical_groups_revealed_and_initiative_per_group():
    """[2.4] L139, [II.2.3] L852 (HERALD D66, D93): Ott's first IA reveals each group's orders; the
    commander's initiative is rolled for the Without-Orders group only; failed (9 - 1 = 8 against
    5), that group may only rally while the group With Orders acts."""
    st, events = activate_ott(mortier())
    revealed = next(e for e in events if e.kind == "orders_revealed")
    assert "ott:1 With Orders" in revealed.narrative and "ott:2 Without Orders" in revealed.narrative
    st, events = go(st, "austrian", "initiative dice=10")
    rolls = [e for e in events if e.kind == "commander_initiative"]
    assert len(rolls) == 1 and rolls[0].outcome == {"formation": "ott", "group": "ott:2", "passed": False,
                                                    "total": 8}
    assert st.activation.groups_failed == ["ott:2"] and st.activation.step == "fire"
    assert chiefs.may_act(st, st.units["a-ir28"])
    assert not chiefs.may_act(st, st.units["a-gr-morzin-1"])
    with pytest.raises(Illegal, match="initiative failed|may only rally"):
        go(st, "austrian", "move a-gr-morzin-1 0214")
    # a success (0 - 1 = -1): the group is With Orders for this activation
    won, events = go(activate_ott(mortier())[0], "austrian", "initiative dice=1")
    assert won.activation.groups_won == ["ott:2"]
    assert chiefs.unit_with_orders(won, won.units["a-gr-morzin-1"])
    assert chiefs.with_orders(won, "ott")


def test_tactical_groups_status_fixed_for_the_turn():
    """[II.2.3] L855-859 (example B): units of the Without-Orders group that join the group With
    Orders stay Without Orders for the rest of the turn, at a second activation too; the group
    With Orders' units that leave it stay With Orders."""
    st, _ = activate_ott(mortier())
    st.units["a-gr-morzin-1"].hex = "0210"       # next to group 1 now
    st.units["a-ir57"].hex = "0316"              # far from everyone
    assert not chiefs.unit_with_orders(st, st.units["a-gr-morzin-1"])
    assert chiefs.unit_with_orders(st, st.units["a-ir57"])
    # the formation's second activation, later in the turn
    from engine.jdg.sequence.activation import end_activation, start_activation
    end_activation(SC, st)
    start_activation(SC, st, "ott-2", "drawn")
    assert st.activation.step == "orders_check"
    assert not chiefs.unit_with_orders(st, st.units["a-gr-morzin-1"])
    assert chiefs.unit_with_orders(st, st.units["a-ir57"])
    assert groups.formation_groups(SC, st, "ott") == [list(GROUP_A), list(GROUP_B)]


def test_tactical_groups_half_mp_for_the_group_without_orders():
    """[2.4], [4.1], [II.2.3]: in one activation the group With Orders moves its full MP and the
    group Without Orders half (IR 11: 4 MP, then 2)."""
    st, _ = activate_ott(mortier())
    st, _ = go(st, "austrian", "next")                  # act Without Orders: the orders check ends
    st, events = go(st, "austrian", "move a-ir11 0215")
    assert "Without Orders: half = 2" in events[0].narrative
    st, events = go(st, "austrian", "move a-ir51 0308")
    assert "Without Orders" not in events[0].narrative and "of 4 MP" in events[0].narrative


def test_tactical_groups_traced_anew_each_turn():
    """[II.2.3] L844: the groups are fixed "per il turno intero": at the end of the turn they are
    forgotten, and phase A traces them again."""
    st = mortier()
    st, _ = go(st, "austrian", "orders ott:1")
    assert st.formations["ott"].groups
    from engine.jdg.sequence.endturn import end_of_turn
    end_of_turn(SC, st)
    assert st.phase == "orders" and st.formations["ott"].groups == []
    assert len(groups.formation_groups(SC, st, "ott")) == 2
