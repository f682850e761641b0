"""The Italian Wars combat (engine/italianwars/combat): shooting (IW Azioni 2e; IW-H 5), the
responses and the closing (2f, 2g; IW-H 4, 7), melee (2h, 2i; IW-H 6, 8, 9.2) and phase 5 (IW-H
9.4, 10). Hand-made states (tests/engine/test_iw_sequence.make_state: the French at y 5 facing
north, the League at y 15 facing south, 2-base mercenary shock foot) with the dice given in the
command (`dice=`), every expected value computed by hand from SUPPLEMENT.md's tables."""
from __future__ import annotations

import pytest

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.italianwars import completion, completion_melee, completion_shooting
from engine.italianwars.combat import morale
from engine.italianwars.sequence import endturn

from tests.engine.test_iw_sequence import go, make_state

ARQ = {"role": "shooting", "missile_weapon": "arquebus", "shooting_factor": "accurate", "bases": 2}


def at_step(st, battle, step, begun=True):
    side = st.battles[battle].side
    st.activation = {"battle": battle, "side": side, "step": step, "begun": begun}
    st.active_side = side
    return st


def place(st, cid, x, y, facing):
    c = st.companies[cid]
    c.x, c.y, c.facing = x, y, facing
    return c


def events_of(events, kind):
    return [e for e in events if e.kind == kind]


# -- 2e shooting ---------------------------------------------------------------------------------------------

def shooting_state(**extra):
    st = make_state({"fb0c0": dict(ARQ), "lb0c0": {"bases": 2}, "lb1c0": {"bases": 2}, **extra})
    place(st, "lb0c0", 10.0, 6.5, 180.0)          # 1.5 UDM in front of fb0c0's front edge (y 5)
    return at_step(st, "fb0", "shoot")


def test_a_shot_reads_its_column_and_the_morale_test_follows():
    """IW-H 5: Accurate arquebus (entry 4), medium shooter (0), short range 1.5 UDM (+2), target
    protected made unprotected by the arquebus (0): column 6; d6 5 -> 3 points (Shooting table
    column 6). 2-base foot (4 points) keeps 1 base. Captain risk d6 3: safe. Morale
    (mercenaries 4): d6 5 -1 (3 points, one beyond 2) -1 (below half) = 3: short by 1, disordered."""
    st = shooting_state()
    st, events = go(st, "french", "shoot fb0c0 lb0c0 dice=5,3,5")
    shot = events_of(events, "shot")[0]
    assert shot.outcome["column"] == 6 and shot.outcome["band"] == "short" and shot.outcome["points"] == 3
    assert completion_shooting.shooting_points(6, 5) == 3
    assert [m.value for m in shot.modifiers] == [2]
    assert "column 6" in shot.narrative and "d6 5" in shot.narrative and "needs 4" in shot.narrative
    t = st.companies["lb0c0"]
    assert (t.points_lost, t.bases, t.disordered, t.status) == (3, 1, True, "active")
    assert shot.outcome["morale"] == "disorder" and st.companies["fb0c0"].shot
    assert st.last_action["kind"] == "shot" and st.last_action["target"] == "lb0c0"


def test_a_shot_that_fells_the_battle_commander_passes_command():
    """IW Azioni 2i: IW-H 8: 3 points (d6 5 at column 6); captain risk d6 6, fate d6 4: killed; the nearest
    company of the battle (lb1c1, 1 UDM along the line) takes command of lb1. The company tests
    at -1 more (its captain fell): d6 6 passes."""
    st = shooting_state()
    place(st, "lb1c0", 10.0, 6.5, 180.0)
    place(st, "lb0c0", 30.0, 15.0, 180.0)
    place(st, "lb1c1", 11.0, 6.5, 180.0)
    st, events = go(st, "french", "shoot fb0c0 lb1c0 dice=5,6,4,6")
    assert st.companies["lb1c0"].captain_lost == "killed"
    assert st.battles["lb1"].commander == "lb1c1"
    shot = events_of(events, "shot")[0]
    assert "its captain fell" in [m.reason for m in completion.morale_modifiers(
        completion.Profile(), captain_fell=True)] and shot.outcome["morale"] == "pass"
    assert events_of(events, "command")[0].outcome["commander"] == "lb1c1"


def test_the_commander_in_chief_falling_forbids_new_orders():
    """IW-H 8.2, IW Emanazione di nuovi ordini: lb0c0 commands lb0, the C-in-C's battle."""
    from engine.italianwars.sequence.command import new_orders_forbidden
    st = shooting_state()
    st, _ = go(st, "french", "shoot fb0c0 lb0c0 dice=5,6,5,6")
    assert st.battles["lb0"].commander == "lb0c0"
    assert "killed" in new_orders_forbidden(None, st, "league")


@pytest.mark.parametrize("setup, reason", [
    (lambda st: place(st, "lb0c0", 10.0, 9.5, 180.0), "beyond the arquebus's long range of 4"),
    (lambda st: place(st, "lb0c0", 14.0, 5.5, 180.0), "out of"),           # due east: outside 45 degrees
    (lambda st: (st.companies["lb0c0"].melee_with.append("fb1c0"),
                 st.companies["fb1c0"].melee_with.append("lb0c0")), "in melee"),
    (lambda st: setattr(st, "weather", "bad"), "bad weather"),
    (lambda st: setattr(st.companies["fb0c0"], "shot", True), "already shot"),
])
def test_shots_refused(setup, reason):
    """IW-H 5.1: range, arc, never into a melee, no firearm in bad weather, once a turn."""
    st = shooting_state()
    setup(st)
    with pytest.raises(Illegal, match=reason):
        go(st, "french", "shoot fb0c0 lb0c0")


def test_long_range_and_a_shooter_without_missiles():
    """Arquebus at 3 UDM: long (-1): column 4 - 1 = 3; d6 6 -> 2 points. fb0c1 has no missile."""
    st = shooting_state()
    place(st, "lb0c0", 10.0, 8.0, 180.0)
    with pytest.raises(Illegal, match="no missile weapon"):
        go(st, "french", "shoot fb0c1 lb0c0")
    st, events = go(st, "french", "shoot fb0c0 lb0c0 dice=6,1,6")
    shot = events_of(events, "shot")[0]
    assert (shot.outcome["band"], shot.outcome["column"], shot.outcome["points"]) == ("long", 3, 2)


def test_a_screen_shoots_for_its_parent():
    """IW Schermi di Schermagliatori (HERALD D91): a small company at Inexperienced (2) with an
    arquebus: 2 -1 (small) +2 (short) = column 3 at a protected target (pierced: 0); d6 6 -> 2."""
    st = make_state({"fb0c0": {"bases": 2}, "lb0c0": {"bases": 2}})
    st.companies["fb0c0"].screen = True
    place(st, "lb0c0", 10.0, 6.5, 180.0)
    at_step(st, "fb0", "shoot")
    st, events = go(st, "french", "shoot fb0c0 lb0c0 dice=6,2,6")
    shot = events_of(events, "shot")[0]
    assert shot.outcome["column"] == 3 and shot.outcome["points"] == 2 and "screen" in shot.narrative


def test_a_failed_battle_still_shoots_then_the_hand_passes():
    """IW Attivazione delle Battaglie, HERALD D92: fb1 fails (d6 1 for mercenaries, 4 needed)
    and stops at 2e, where its arquebusiers may shoot; `pass` then gives the hand away."""
    st = make_state({"fb1c0": dict(ARQ), "lb1c0": {"bases": 2}})
    place(st, "lb1c0", 16.0, 7.0, 180.0)
    st, _ = go(st, "french", "activate fb1 dice=1")
    assert st.battles["fb1"].failed and st.activation["step"] == "shoot" and st.active_side == "french"
    with pytest.raises(Illegal, match="not in the acting battle"):
        go(st, "french", "shoot fb0c0 lb1c0")
    st, _ = go(st, "french", "shoot fb1c0 lb1c0 dice=1")
    assert st.activation == {} and st.active_side == "league"


# -- 2f responses and 2g closing --------------------------------------------------------------------------

def flank_state(die_extra=None):
    """fb0c0 charges lb0c0's left flank (lb0c0 faces south at x 10, y 15; the charger east of
    it, wholly behind its front line)."""
    st = make_state({"lb0c0": {"bases": 2}, "fb0c0": {"bases": 2}})
    place(st, "fb0c0", 12.0, 15.6, 270.0)
    st.companies["fb0c0"].charge = {"target": "lb0c0", "face": "left", "flank": True, "distance": 1.5, "turn": st.turn}
    return at_step(st, "fb0", "shoot")


def test_charged_in_the_flank_a_rout_means_no_melee():
    """IW Azioni 2f (Risposte obbligatorie), IW-H 7: d6 1 always fails; 1 - 1 (flank) = 0, short
    by 4 of mercenaries' 4: it routs; the charger does not close."""
    st = flank_state()
    st, events = go(st, "french", "pass dice=1")
    test = events_of(events, "morale")[0]
    assert test.outcome["result"] == "rout" and [m.value for m in test.modifiers] == [-1]
    assert st.companies["lb0c0"].status == "routing" and st.companies["lb0c0"].disordered
    assert not st.companies["fb0c0"].melee_with
    assert events_of(events, "no_close")[0].outcome["why"] == "target routed"
    assert endturn.army_losses(None, st, "league")["lost"] == 2      # a routing mercenary company: Tabella 1


def test_charged_in_the_flank_disordered_then_faces_the_charger():
    """d6 4 - 1 = 3: short by 1, disordered. Then the emergency facing (foot, move 4: half pays
    the 1 UDM facing change): lb0c0 turns left about its centre (10, 15.5) to face east, and the
    charge falls on its front."""
    st = flank_state()
    st, events = go(st, "french", "pass dice=4")
    assert events_of(events, "morale")[0].outcome["result"] == "disorder"
    assert st.activation["step"] == "respond" and st.companies["lb0c0"].disordered
    with pytest.raises(Illegal, match="only a frontal charge"):
        go(st, "league", "respond lb0c0 countercharge")
    st, events = go(st, "league", "respond lb0c0 face")
    t = st.companies["lb0c0"]
    assert (t.x, t.y, t.facing) == (10.5, 15.5, 90.0)
    assert st.companies["fb0c0"].charge["face"] == "front"
    assert "lb0c0" in st.companies["fb0c0"].melee_with


def test_a_charger_that_fails_its_test_from_the_response_shot_does_not_close():
    """IW Azioni 2g: lb0c0, arquebusiers charged from the front 1 UDM away, fire: column 4 + 2 =
    6 at fb0c0 (protected, pierced), d6 6 -> 3 points; captain d6 1; morale d6 3 -1 -1 = 1:
    short by 3, disordered: the charge fails."""
    st = make_state({"lb0c0": dict(ARQ), "fb0c0": {"bases": 2}})
    place(st, "fb0c0", 10.0, 14.0, 0.0)
    st.companies["fb0c0"].charge = {"target": "lb0c0", "face": "front", "flank": False, "distance": 1.0, "turn": st.turn}
    at_step(st, "fb0", "shoot")
    st, _ = go(st, "french", "pass")
    assert st.activation["step"] == "respond"
    st, events = go(st, "league", "respond lb0c0 fire dice=6,1,3")
    assert events_of(events, "shot")[0].outcome["column"] == 6
    assert st.companies["fb0c0"].charge["failed"] == "disordered"
    assert events_of(events, "no_close") and not st.companies["fb0c0"].melee_with


def test_skirmishers_evade_and_a_charge_on_the_camp_takes_it():
    """IW Schermagliatori: charged skirmishers must evade (HERALD D93); IW Accampamento."""
    st = make_state({"lb0c0": {"role": "skirmishers", "missile_weapon": "crossbow", "shooting_factor": "poor",
                               "bases": 1}})
    st.companies["fb0c0"].charge = {"target": "lb0c0", "face": "front", "flank": False, "distance": 1.0, "turn": st.turn}
    st.companies["fb0c1"].charge = {"target": "camp-league", "face": "camp", "flank": False, "distance": 1.0,
                                    "turn": st.turn}
    at_step(st, "fb0", "shoot")
    st, events = go(st, "french", "pass")
    assert st.companies["lb0c0"].evaded and events_of(events, "evade")
    assert st.armies["league"].camp_lost and events_of(events, "camp_taken")
    with pytest.raises(Exception, match="unknown command 'close'"):
        go(st, "french", "close fb0c0")         # Herald closes the charges himself (HERALD D94)


# -- 2h melee ------------------------------------------------------------------------------------------------

def melee_state(a_spec=None, b_spec=None):
    """fb0c0 (Valiant pike) and lb0c0 (Unreliable, side arms) front to front at y 5."""
    st = make_state({"fb0c0": {"melee_factor": "valiant", "melee_weapon": "pike", "bases": 2, **(a_spec or {})},
                     "lb0c0": {"melee_factor": "unreliable", "bases": 2, **(b_spec or {})}})
    place(st, "lb0c0", 10.0, 5.0, 180.0)
    st.companies["fb0c0"].melee_with = ["lb0c0"]
    st.companies["lb0c0"].melee_with = ["fb0c0"]
    return at_step(st, "fb0", "melee")


def test_a_melee_round_from_known_dice_rout_and_the_pursuit_asked():
    """IW-H 6: fb0c0 entry 4 +1 (pikes in good order against foot) -1 (enemy protected) = 4;
    lb0c0 entry 2 -1 (side arms) -1 (protected) = 0. d6 6 at column 4: 3 points; d6 1 at column
    0: 0. fb0c0 wins by 3: broken through (disordered). Captains d6 1 and 2: safe. lb0c0 tests:
    d6 5 -2 (lost by 3) -1 (disordered) -1 (below half) = 1, already disordered: routs. The
    winner, Attack and not Swiss nor Gentlemen horse, may pursue: asked."""
    st = melee_state()
    st, events = go(st, "french", "pass dice=6,1,1,2,5")
    m = events_of(events, "melee")[0]
    assert m.outcome["columns"] == {"a": 4, "b": 0} and m.outcome["points"] == {"a": 0, "b": 3}
    assert completion_melee.melee_points(4, 6) == 3 and completion_melee.melee_points(0, 1) == 0
    assert m.outcome["broken_through"] and m.outcome["morale"] == "rout"
    b = st.companies["lb0c0"]
    assert (b.status, b.points_lost, b.bases, b.melee_with) == ("routing", 3, 1, [])
    assert st.pending["kind"] == "pursue" and st.pending["side"] == "french"
    assert st.companies["fb0c0"].fought_turn == st.turn
    st, events = go(st, "french", "react pursue")
    a = st.companies["fb0c0"]
    assert (a.status, a.pursuing, a.disordered) == ("pursuing", "lb0c0", True)
    assert st.last_action["kind"] == "melee" and st.activation == {}


def test_swiss_must_pursue_and_the_policy_answers_for_others():
    """IW-H 9.2: Swiss pursue without being asked; `policy pursue never` stands for others."""
    st = melee_state({"nation": "swiss"})
    st, _ = go(st, "french", "pass dice=6,1,1,2,5")
    assert st.pending is None and st.companies["fb0c0"].status == "pursuing"
    st = melee_state()
    st, _ = go(st, "french", "policy pursue never")
    st, events = go(st, "french", "pass dice=6,1,1,2,5")
    assert st.pending is None and st.companies["fb0c0"].status == "active" and events_of(events, "stand")


def test_a_drawn_round_goes_on_and_once_a_turn():
    """Equal points (d6 3 at column 4: 1; d6 6 at column 0: 1): drawn, the melee goes on; a
    later 2h of the League's battle this turn does not fight it again (IW-H 6.5)."""
    st = melee_state()
    st, events = go(st, "french", "pass dice=3,6,1,1")
    m = events_of(events, "melee")[0]
    assert m.outcome["winner"] == "" and st.companies["fb0c0"].melee_with == ["lb0c0"]
    at_step(st, "lb0", "close")
    st, events = go(st, "league", "pass")
    assert not events_of(events, "melee")


def test_pushed_back_and_the_captain_of_the_loser_killed():
    """d6 4 at column 4: 2 points; d6 1: 0. Lost by 2: not broken through. Captain risk: a d6 1
    safe, b d6 5 (5+ when losing) then d6 5: killed; lb1c0 commands lb1: lb1c1 takes over.
    lb1c0 tests: d6 6 passes: pushed back, the contact ends; the winner may follow up: asked."""
    st = make_state({"fb1c0": {"melee_factor": "valiant", "melee_weapon": "pike", "bases": 2},
                     "lb1c0": {"melee_factor": "unreliable", "bases": 2}})
    place(st, "lb1c0", 16.0, 5.0, 180.0)
    st.companies["fb1c0"].melee_with = ["lb1c0"]
    st.companies["lb1c0"].melee_with = ["fb1c0"]
    at_step(st, "fb1", "melee")
    st, events = go(st, "french", "pass dice=4,1,1,5,5,6")
    m = events_of(events, "melee")[0]
    assert m.outcome["outcome"]["lb1c0"] == "pushed back" and m.outcome["captains"] == {"lb1c0": "killed"}
    assert st.battles["lb1"].commander == "lb1c1" and not st.companies["lb1c0"].melee_with
    assert st.pending["options"] == ["follow", "stand"]
    st, _ = go(st, "french", "react follow")
    assert st.companies["fb1c0"].melee_with == ["lb1c0"]


def test_the_melee_verb_fights_the_melee_the_player_chooses():
    """IW Azioni 2h (HERALD D98): `melee <company>` fights that company's melee now, in the order
    the player chooses; refused outside step 2h, for a company in no melee, for the enemy's, and
    once it has fought this turn (IW-H 6.5); with no melee left the step passes by itself."""
    st = melee_state()
    at_step(st, "fb0", "close")
    with pytest.raises(Illegal, match="step 2h"):
        go(st, "french", "melee fb0c0")
    at_step(st, "fb0", "melee")
    with pytest.raises(Illegal, match="in no melee"):
        go(st, "french", "melee fb0c1")
    with pytest.raises(Illegal, match="not yours"):
        go(st, "french", "melee lb0c0")
    st2, events = go(st, "french", "melee fb0c0 dice=3,6,1,1")
    m = events_of(events, "melee")[0]
    assert m.outcome["winner"] == "" and st2.companies["fb0c0"].fought_turn == st2.turn
    assert st2.activation == {} and events_of(events, "activation_done")
    with pytest.raises(Illegal, match="once a turn"):
        go(at_step(st2, "fb0", "melee"), "french", "melee fb0c0")


# -- phase 5 -------------------------------------------------------------------------------------------------

def test_reorganisation_counts_halts_pursuers_and_rallies():
    """IW Sequenza di mossa 5, IW Riorganizzazione dal disordine: IW-H 10.1: mercenaries need 2 phases (fb0c0: 1, then recovered); a company in melee starts
    again (fb0c1). IW-H 9.4: the pursuer fb1c0 halts on d6 4 (4+), disordered. IW-H 10.2:
    lb0c0 (professionals) rallies on d6 3 (3+): facing, disordered, side arms only; lb0c1
    (rabble) never rallies."""
    st = make_state({"lb0c0": {"morale": "professionals"}, "lb0c1": {"morale": "rabble"}}, phase="reorganisation")
    c = st.companies
    c["fb0c0"].disordered = True
    c["fb0c1"].disordered, c["fb0c1"].reorganising, c["fb0c1"].melee_with = True, 1, ["lb1c1"]
    c["lb1c1"].melee_with = ["fb0c1"]
    c["fb1c0"].status, c["fb1c0"].pursuing = "pursuing", "lb0c0"
    for cid in ("lb0c0", "lb0c1"):
        c[cid].status, c[cid].disordered = "routing", True
    events = morale.reorganisation(None, st, DiceStream(7, 0, [4, 3]))
    assert c["fb0c0"].disordered and c["fb0c0"].reorganising == 1
    assert c["fb0c1"].reorganising == 0
    assert (c["fb1c0"].status, c["fb1c0"].disordered, c["fb1c0"].pursuing) == ("active", True, "")
    assert (c["lb0c0"].status, c["lb0c0"].side_arms_only, c["lb0c0"].disordered) == ("active", True, True)
    assert c["lb0c1"].status == "routing"
    assert [e.outcome.get("need") for e in events if e.kind in ("pursuit_halt", "rally") and e.dice] == [4, 3]
    morale.reorganisation(None, st, DiceStream(7, 0, []))
    assert not c["fb0c0"].disordered and c["fb1c0"].reorganising == 1


def test_a_pursuer_whose_router_is_gone_halts_without_a_die():
    st = make_state(phase="reorganisation")
    st.companies["fb1c0"].status, st.companies["fb1c0"].pursuing = "pursuing", "lb0c0"
    events = morale.reorganisation(None, st, DiceStream(7, 0, []))
    assert st.companies["fb1c0"].status == "active" and not events_of(events, "pursuit_halt")[0].dice


def test_a_second_company_on_the_flank_makes_the_enemy_flanked():
    """HERALD D99: fb0c0 fights lb0c0 front to front; fb0c1 touches lb0c0's left flank and rolls
    no die. lb0c0: 2 -1 (side arms) -1 (protected) -2 (flanked, no size nor pike) = -2 (read 0);
    fb0c0: 4 +1 -1 = 4. d6 3 at column 4: 1 point; d6 5 at column 0: 0. Lost by 1; captains d6 1,
    1; lb0c0 tests d6 4 -1 (flank) = 3: disordered, pushed back, every contact ended."""
    st = melee_state()
    place(st, "fb0c1", 10.5, 5.5, 270.0)
    st.companies["fb0c1"].melee_with = ["lb0c0"]
    st.companies["lb0c0"].melee_with = ["fb0c0", "fb0c1"]
    st, _ = go(st, "french", "policy pursue never")
    st, events = go(st, "french", "pass dice=3,5,1,1,4")
    m = events_of(events, "melee")[0]
    assert m.outcome["columns"] == {"a": 4, "b": -2} and m.outcome["points"] == {"a": 0, "b": 1}
    assert m.outcome["outcome"]["lb0c0"] == "disordered, pushed back"
    assert "d6 4 -1 = 3" in m.narrative
    c = st.companies
    assert c["fb0c1"].fought_turn == st.turn and c["lb0c0"].melee_with == [] and c["fb0c1"].melee_with == []


def test_a_fresh_charge_fights_an_enemy_that_already_fought():
    """HERALD D99: lb0c0 fought earlier this turn, fb0c0 charged it now: it fights, charging
    (+1, IW-H 6.3): 4 +1 (charged) +1 (pikes) -1 = 5; d6 2 at column 5: 1 point; d6 1: 0;
    captains 1, 1; lb0c0 tests d6 6: passes, pushed back."""
    st = melee_state()
    st.companies["lb0c0"].fought_turn = st.turn
    st.companies["fb0c0"].charge = {"target": "lb0c0", "face": "front", "flank": False, "distance": 1.0,
                                    "turn": st.turn, "closed": True}
    st, _ = go(st, "french", "policy pursue never")
    st, events = go(st, "french", "pass dice=2,1,1,1,6")
    m = events_of(events, "melee")[0]
    assert m.outcome["columns"]["a"] == 5 and m.outcome["outcome"]["lb0c0"] == "pushed back"
