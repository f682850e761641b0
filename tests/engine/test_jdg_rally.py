"""Jours de Gloire rally [11], with night [12] and demoralised formations (optional 11): the
`rally <unit>` verb, its dice and its refusals."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import Illegal

from engine.jdg import rules
from engine.jdg.morale import rally
from engine.jdg.ruleset import JDG
from engine.jdg.setup import new_state
from engine.jdg.state import Activation

SC = JDG.load_scenario("marengo")
INF = "f-44e"                         # Gardanne's division; reduced cohesion 4
FORMATION = "gardanne"
OTHER = next(u.id for u in SC.units if u.side == "french" and u.formation != FORMATION
             and u.arm == "infantry" and u.hex)
ENEMY = next(u.id for u in SC.units if u.side == "austrian" and u.arm == "infantry" and u.hex)


def position(condition="disordered", *, night=False, step="movement", **places):
    """Only the named units on the map (clear ground), Gardanne's formation active."""
    st = new_state(SC, 3)
    for u in st.units.values():
        u.hex, u.status = None, "off_map"
    places = {INF: ("2015", 3), **places}
    for uid, (hx, facing) in places.items():
        u = st.units[uid]
        u.hex, u.facing, u.status = hx, facing, "active"
    st.units[INF].condition = condition
    st.phase = "activation"
    st.activation = Activation(marker="gardanne-1", side="french", formations=[FORMATION], step=step)
    if night:
        st.turn = SC.turns.night[0]
    return st


def do(st, line, side="french"):
    """The handler on a copy, as the dispatcher runs it: (new state, events)."""
    work = st.copy()
    cmd = parse(line)
    ev = rally.do_rally(SC, work, side, cmd, DiceStream(3, 0, supplied=list(cmd.dice or []), strict=True))
    return work, ev


def test_rally_is_registered():
    """[11]: `rally <unit>` is a verb of the dispatcher."""
    assert rules.HANDLERS["rally"] is rally.do_rally


def test_disordered_unit_rallies_on_reduced_cohesion():
    """[11] L780-782: d10 <= the reduced cohesion (4): back in good order; the rally step begins."""
    st = position()
    st2, ev = do(st, f"rally {INF} dice=5")                   # d10 4 <= 4
    assert st2.units[INF].condition == "good"
    assert st2.activation.step == "rally"
    assert ev[0].outcome["rallied"] and ev[0].base == 4 and ev[0].dice[0].result == 4


def test_disordered_unit_fails_above_reduced_cohesion():
    """[11] L786: a roll above the reduced cohesion leaves the unit as it is (5 > 4)."""
    st2, ev = do(position(), f"rally {INF} dice=6")
    assert st2.units[INF].condition == "disordered" and not ev[0].outcome["rallied"]
    with pytest.raises(Illegal, match="already tried"):
        do(st2, f"rally {INF} dice=1")                       # one try per activation


def test_routed_unit_rallies_at_plus_one_and_stays_disordered():
    """[11] L778, L784: +1 for a routed unit; success removes the rout marker only."""
    st2, ev = do(position("routed"), f"rally {INF} dice=4")  # 3 + 1 = 4 <= 4
    assert st2.units[INF].condition == "disordered"
    assert [m.value for m in ev[0].modifiers] == [1]
    st2, ev = do(position("routed"), f"rally {INF} dice=5")  # 4 + 1 = 5 > 4
    assert st2.units[INF].condition == "routed" and ev[0].outcome["total"] == 5


def test_night_routed_rally_minus_three():
    """[12] L806 (HERALD D63): at night a routed unit rallies at -3 instead of +1."""
    st2, ev = do(position("routed", night=True), f"rally {INF} dice=8")   # 7 - 3 = 4 <= 4
    assert st2.units[INF].condition == "disordered"
    assert [m.value for m in ev[0].modifiers] == [-3]
    st2, _ = do(position("routed", night=True), f"rally {INF} dice=9")    # 8 - 3 = 5 > 4
    assert st2.units[INF].condition == "routed"


def test_night_disordered_unit_rallies_without_a_roll():
    """[12] L804: at night a disordered unit that took no action, not next to the enemy, rallies
    automatically; the sequence's end-of-activation call does the same for the whole formation."""
    st2, ev = do(position(night=True), f"rally {INF}")
    assert st2.units[INF].condition == "good" and ev[0].outcome["automatic"] and not ev[0].dice
    st = position(night=True)
    rally.night_auto_rally(SC, st, [FORMATION])
    assert st.units[INF].condition == "good"
    st = position(night=False)
    assert rally.night_auto_rally(SC, st, [FORMATION]) == [] and st.units[INF].condition == "disordered"


def test_refusals_leave_the_state_unchanged():
    """[11], D62: no rally after moving or firing, of a unit in good order, of another formation,
    next to the enemy, out of turn, or back into good order in a demoralised formation."""
    cases = []
    st = position()
    st.units[INF].acted = True
    cases.append((st, f"rally {INF} dice=1", "french", "moved, fired or fought"))
    cases.append((position("good"), f"rally {INF} dice=1", "french", "good order"))
    st = position(**{OTHER: ("2415", 3)})
    st.units[OTHER].condition = "disordered"
    cases.append((st, f"rally {OTHER} dice=1", "french", "not of the active formation"))
    cases.append((position(**{ENEMY: ("1915", 0)}), f"rally {INF} dice=1", "french", "adjacent to the enemy"))
    cases.append((position(), f"rally {INF} dice=1", "austrian", "active formation"))
    st = position()
    st.formations[FORMATION].demoralised = True
    cases.append((st, f"rally {INF} dice=1", "french", "demoralised"))
    st = position(step="done")
    cases.append((st, f"rally {INF} dice=1", "french", "step"))
    for st, line, side, why in cases:
        before = st.to_dict()
        with pytest.raises(Illegal, match=why):
            do(st, line, side)
        assert st.to_dict() == before


def test_routed_unit_of_a_demoralised_formation_reaches_disorder():
    """Optional 11 (HERALD D69): from rout a demoralised unit may still reach disordered."""
    st = position("routed")
    st.formations[FORMATION].demoralised = True
    st2, _ = do(st, f"rally {INF} dice=1")
    assert st2.units[INF].condition == "disordered"


def test_routed_unit_that_fought_may_still_rally():
    """[11] L776, HERALD D62: the moved/fired condition is the disordered units'; routed units may
    try at the end of their activation."""
    st = position("routed")
    st.units[INF].acted = True
    st2, _ = do(st, f"rally {INF} dice=1")
    assert st2.units[INF].condition == "disordered"


def test_a_rallied_unit_faces_as_its_owner_likes():
    """[11] L782-L784, [6.1]: "la si orienta a piacere": `rally <unit> face <vertex>` turns the
    unit when it rallies; a failed rally leaves it facing as it was."""
    st2, ev = do(position("routed"), f"rally {INF} face ne dice=4")     # 3 + 1 = 4 <= 4
    assert st2.units[INF].condition == "disordered" and st2.units[INF].facing == 5
    assert ev[-1].kind == "face" and "faces NE" in ev[-1].narrative
    st2, ev = do(position("routed"), f"rally {INF} face ne dice=5")     # fails
    assert st2.units[INF].facing == 3 and len(ev) == 1
    with pytest.raises(Illegal, match=r"not a vertex"):
        do(position("routed"), f"rally {INF} face up dice=4")


def test_a_night_activation_ends_with_its_idle_disordered_units_rallied():
    """[12] L804 (D63): `next` closing a night activation's rally step rallies, without a roll,
    the formation's disordered units that took no action and are not next to an enemy; one that
    moved stays disordered."""
    st = position(night=True, step="rally", **{"f-101e": ("2017", 3)})
    st.units["f-101e"].condition = "disordered"
    st.units["f-101e"].acted = True
    st.formations[FORMATION].orders, st.formations[FORMATION].revealed = "with", True
    st2, ev = JDG.apply(SC, st, "french", parse("next"))
    assert st2.units[INF].condition == "good" and st2.units["f-101e"].condition == "disordered"
    assert any(e.kind == "rally" and e.outcome.get("automatic") for e in ev)
