"""Orders and their interpretation (IW Fase di Comando, IW Tabella 5), Ecu (IW Tesoro), sworn
enemies (IW Nemici giurati), the Commander-in-Chief's exemption and restrictions, and charge
declarations (IW Dichiarazioni di carica)."""
from __future__ import annotations

import pytest

from engine.core.errors import Illegal
from engine.italianwars.sequence import charges
from tests.engine.test_iw_sequence import go, make_state


def command_state(**specs):
    """Turn 2's command phase; fb1 (Mercenary, Reliable commander) is the battle tested."""
    st = make_state(specs, phase="command", turn=2)
    st.done = []
    return st


def test_one(st, battle, order, dice, side="french", extra=()):
    """Write `order` for `battle`, both sides keep; the test's event."""
    st, _ = go(st, side, f"order {battle} {order}")
    for line_side, line in extra:
        st, _ = go(st, line_side, line)
    st, _ = go(st, "french", "keep")
    st, events = go(st, "league", f"keep dice={dice}")
    return st, [e for e in events if e.kind == "interpretation"][0]


test_one.__test__ = False


@pytest.mark.parametrize("captain,modifier,given,die,result", [
    ("rash", 2, "hold", 4, "assault"),              # 4 + 2 = 6: fails -> Assault
    ("rash", 2, "hold", 3, "hold"),                 # 5: understood
    ("timid", 2, "attack", 4, "hesitate"),          # 6: fails -> Hesitate
    ("unpredictable", 1, "hold", 5, "attack"),      # 6: fails -> Attack
    ("unpredictable", 1, "attack", 5, "hesitate"),  # Attack was given -> Hesitate
    ("cautious", 1, "attack", 5, "hold"),           # 6: fails -> Hold
    ("cautious", 1, "hold", 5, "hesitate"),         # Hold was given -> Hesitate
    ("reliable", -1, "attack", 6, "attack"),        # 6 - 1 = 5: understood
])
def test_interpretation_modifiers_and_failures_by_personality(captain, modifier, given, die, result):
    """IW Tabella 5: Rash or Timid +2, Unpredictable or Cautious +1, Reliable -1; 6 or more fails;
    Rash -> Assault, Unpredictable -> Attack (Hesitate if Attack was given), Reliable and
    Cautious -> Hold (Hesitate if Hold was given), Timid -> Hesitate."""
    st = command_state(fb1c0={"captain": captain})
    st, ev = test_one(st, "fb1", given, die)
    assert ev.modifiers[0].value == modifier
    assert ev.outcome["total"] == die + modifier
    assert st.battles["fb1"].order == result and ev.outcome["failed"] == (result != given)
    assert st.armies["french"].sixes_owed == 1        # each new order owes a six


def test_ecu_shift_the_roll_either_way_and_are_spent():
    """IW Tesoro, IW Interpretazione degli ordini: each Ecu +/-1 at the payer's choice, on his own
    battles or the enemy's; the Ecu leave the treasury."""
    st = command_state()
    st, ev = test_one(st, "fb1", "attack", 3, extra=[("league", "bribe fb1 3 defy")])   # 3 - 1 + 3 = 5
    assert ev.outcome["total"] == 5 and not ev.outcome["failed"] and st.armies["league"].ecu == 1
    st = command_state()
    st, ev = test_one(st, "fb1", "attack", 3, extra=[("league", "bribe fb1 3"), ("french", "bribe fb1 1")])
    # the League's 3 on an enemy battle default to defy: 3 - 1 + 3 - 1 = 4
    assert ev.outcome["total"] == 4 and ev.outcome["ecu"] == {"french": -1, "league": 3}
    st = command_state()
    st, ev = test_one(st, "fb1", "attack", 5, extra=[("league", "bribe fb1 2 defy")])   # 5 - 1 + 2 = 6
    assert ev.outcome["failed"] and st.battles["fb1"].order == "hold"
    with pytest.raises(Illegal, match="4 Ecu: 1 too few"):
        go(command_state(), "french", "bribe lb1 5")


def test_ecu_have_no_effect_on_gentlemen():
    """IW Interpretazione degli ordini: "la spesa in Ecu non ha effetto su Compagnie di
    Gentiluomini" (the battle commander's company, HERALD D24): refused, Ecu kept."""
    st = command_state(fb1c0={"morale": "gentlemen"})
    with pytest.raises(Illegal, match="Gentlemen"):
        go(st, "league", "bribe fb1 2")


def test_sworn_enemies_in_sight_add_one():
    """IW Nemici giurati, IW Tabella 5: Swiss seeing Landsknechts +1."""
    st = command_state(fb1c0={"nation": "swiss"}, lb1c0={"nation": "landsknecht"})
    st, ev = test_one(st, "fb1", "attack", 5)       # 5 - 1 + 1 = 5: understood
    assert [m.value for m in ev.modifiers] == [-1, 1] and not ev.outcome["failed"]
    st = command_state(fb1c0={"nation": "swiss"}, lb1c0={"nation": "landsknecht"})
    st.weather = "bad"                               # 8 UDM: the League is 10 - 1 = 9 away
    st, ev = test_one(st, "fb1", "attack", 5)
    assert [m.value for m in ev.modifiers] == [-1]


def test_the_cinc_battle_never_tests():
    """IW Interpretazione degli ordini: "La Battaglia del Comandante non deve mai testare"."""
    st = command_state(fb0c0={"captain": "rash"})
    st, _ = go(st, "french", "order fb0 hold")
    st, _ = go(st, "french", "keep")
    before = st.draws
    st, events = go(st, "league", "keep")
    assert st.draws == before and st.battles["fb0"].order == "hold"
    assert not [e for e in events if e.kind == "interpretation"]
    assert st.armies["french"].sixes_owed == 1


@pytest.mark.parametrize("setup,why", [
    (lambda st: setattr(st.armies["french"], "cinc_busy", True), "charged, pursued, routed or fought"),
    (lambda st: setattr(st.battles["fb0"], "order", "assault"), "Assault"),
    (lambda st: setattr(st.companies["fb0c0"], "captain_lost", "killed"), "killed"),
])
def test_the_cinc_restrictions(setup, why):
    """IW Emanazione di nuovi ordini: no new orders when the C-in-C's company charged, pursued,
    routed or fought last turn, is under Assault, or the C-in-C is killed or captured."""
    st = command_state()
    setup(st)
    with pytest.raises(Illegal, match=why):
        go(st, "french", "order fb1 hold")
    go(st, "league", "order lb1 hold")              # the other side may


def test_turn_1_has_no_command_phase():
    """IW Interpretazione degli ordini: turn 1's orders are understood by themselves; no new
    orders are given on turn 1."""
    st = make_state(turn=1)
    assert st.phase == "actions"
    with pytest.raises(Illegal, match="no new orders on turn 1"):
        go(st, "french", "order fb1 hold")


def test_a_cinc_busy_last_turn_is_remembered_at_the_end_of_the_turn():
    """IW Emanazione di nuovi ordini: the C-in-C's company that declared a charge this turn
    blocks the next turn's new orders."""
    from engine.italianwars.sequence import endturn
    st = make_state()
    st.companies["fb0c0"].charge = {"target": "lb0c0"}
    endturn.clear_turn_marks(None, st)
    assert st.armies["french"].cinc_busy and not st.armies["league"].cinc_busy
    assert st.companies["fb0c0"].charge == {}


# -- charge declarations ------------------------------------------------------------------------------

def charge_state(**specs):
    """fb1 acting at step 2b, the League 3 UDM in front (y 5 -> the League's front edge at 8)."""
    st = make_state(specs)
    for c in st.companies.values():
        if c.side == "league":
            c.y = 9.0                      # facing south: its front edge at 9, 4 UDM from the French front at 5
    st.activation = {"battle": "fb1", "side": "french", "step": "declare", "begun": True}
    return st


def test_artillery_never_charges_and_hold_forbids():
    """IW Azioni 2b: "Gli artiglieri non possono dichiarare cariche"; IW Tenere: no charges."""
    st = charge_state(fb1c1={"arm": "artillery"})
    with pytest.raises(Illegal, match="artillery never"):
        go(st, "french", "declare fb1c1 lb1c1")
    st = charge_state()
    st.battles["fb1"].order = "hold"
    with pytest.raises(Illegal, match="Hold"):
        go(st, "french", "declare fb1c0 lb1c0")


def test_within_one_move_and_withdraw_mounted_at_any_distance():
    """IW Dichiarazioni di carica: within one move (foot 4 UDM, IW-H 2); IW Indietreggiare:
    mounted troops may charge at any distance, foot not at all."""
    st = charge_state()
    st, events = go(st, "french", "declare fb1c0 lb1c0")
    assert events[0].outcome["face"] == "front" and events[0].outcome["distance"] == 4.0
    st = charge_state()
    for c in st.companies.values():
        if c.side == "league":
            c.y = 9.5
    with pytest.raises(Illegal, match="4.5 UDM away, beyond .* move of 4 \\(0.5 too far\\)"):
        go(st, "french", "declare fb1c0 lb1c0")
    st.battles["fb1"].order = "withdraw"
    with pytest.raises(Illegal, match="only mounted"):
        go(st, "french", "declare fb1c0 lb1c0")
    st.options["specs"]["fb1c0"]["arm"] = "cavalry"
    for c in st.companies.values():
        if c.side == "league":
            c.y = 25.0
    st, events = go(st, "french", "declare fb1c0 lb1c0")
    assert events[0].outcome["distance"] > 15


def test_one_target_and_one_charger_a_side():
    """IW Dichiarazioni di carica: one target only; one company on each side of a target."""
    st = charge_state()                      # fb1c1 stands 4 UDM from lb1c0's front, diagonally
    st, _ = go(st, "french", "declare fb1c0 lb1c0")
    with pytest.raises(Illegal, match="one target only"):
        go(st, "french", "declare fb1c0 lb1c1")
    with pytest.raises(Illegal, match="already charges .*front: one company a side"):
        go(st, "french", "declare fb1c1 lb1c0")


def test_flank_only_wholly_behind_the_front_line():
    """IW Dichiarazioni di carica: "sul fianco/retro solo se l'unità che carica è ... completamente
    dietro la linea immaginaria che prolunga il fronte dell'unità nemica"."""
    st = charge_state()
    t = st.companies["lb1c0"]                  # front at y 9 facing south: its body from y 9 to 10
    c = st.companies["fb1c0"]
    c.x, c.y, c.facing = t.x - 2.5, 9.0 + 0.01, 90.0        # east-facing: its width spans y 8.51 .. 9.51
    assert charges.relative_face(None, st, c, t) == "front"   # it straddles the line: not wholly behind
    c.y = 9.5 + 0.01                           # its width spans y 9.01 .. 10.01: wholly behind y 9
    assert charges.relative_face(None, st, c, t) == "right"   # west of a south-facing company: its right
    c.x, c.y, c.facing = t.x, 12.0, 180.0
    assert charges.relative_face(None, st, c, t) == "rear"
    c.x, c.y, c.facing = t.x + 2.5, 9.51, 270.0
    assert charges.relative_face(None, st, c, t) == "left"


def test_skirmishers_charge_only_skirmishers_flanks_or_the_camp():
    """IW Schermagliatori: skirmishers charge only skirmishers, the flank or rear of others."""
    st = charge_state(fb1c0={"role": "skirmishers"})
    with pytest.raises(Illegal, match="skirmishers charge only"):
        go(st, "french", "declare fb1c0 lb1c0")
    st.options["specs"]["lb1c0"]["role"] = "skirmishers"
    st, events = go(st, "french", "declare fb1c0 lb1c0")
    assert events[0].outcome["target"] == "lb1c0"


def test_attack_obliges_shock_troops_to_declare_before_passing():
    """IW Attaccare: "Capitani che comandano truppe da scontro dichiareranno la carica sul
    nemico non appena possibile": `pass` is refused while one can and has not."""
    st = charge_state()
    with pytest.raises(Illegal, match="must charge"):
        go(st, "french", "pass")
    st.battles["fb1"].order = "delay"
    st, events = go(st, "french", "pass")
    assert st.activation.get("step") != "declare"
    while st.activation.get("side") == "french":      # the later steps (2c, 2d...) each end with `pass`
        st, events = go(st, "french", "pass")
    assert st.activation == {} and st.active_side == "league"


def test_the_whole_nearest_side_must_be_seen():
    """IW Dichiarazioni di carica: the target's whole nearest side visible: a company standing
    between blocks it."""
    st = charge_state()
    blocker = st.companies["lb0c0"]
    c, t = st.companies["fb1c0"], st.companies["lb1c0"]
    blocker.x, blocker.y, blocker.facing = t.x, 7.0, 180.0
    with pytest.raises(Illegal, match="does not see the whole nearest side"):
        go(st, "french", "declare fb1c0 lb1c0")
