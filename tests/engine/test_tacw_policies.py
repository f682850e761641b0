"""TACW standing policies for a wing or a unit (DESIGN: pending decisions; policies.py, D91):
`policy <kind> <value> for <wing|unit>`, `policy <kind> clear for <wing|unit>`, `policy show
[for ...]`, and every rule that reads a policy reading it per wing or per unit: bypass (§4.4),
Reaction Fire (§9.7), interception (§7.5), reaction movement (§7.4), reaction attacks (§10.2 B),
advance after combat (§10.4.6), close-combat pistols (§10.3.9).

Dice in a command are die FACES (1-10): the d10 reads face - 1."""
from __future__ import annotations

import pytest

from engine.core.errors import CannotParse, Illegal
from engine.tacw.close_combat import resolution as resolution
from engine.tacw.fire.small_arms import reaction_fire
from engine.tacw.sequence.policies import policy

from . import test_tacw_fire as tf
from . import test_tacw_melee as tm
from .tacw_helpers import Position
from .test_tacw_sequence import three_wings

R, P = "royalist", "parliament"


def refused(p: Position, side: str, line: str, words: str, exc=Illegal) -> None:
    """Refused with a reason naming `words`; the state is untouched."""
    before = p.st.state_hash()
    with pytest.raises(exc) as err:
        p.go(side, line)
    assert words in str(err.value)
    assert p.st.state_hash() == before


def two_reactors() -> Position:
    """r1 has just entered 0605: a front hex of p1 (0705) and of p2 (0706)."""
    return tf.pos(tf.heavy("r1", R, ["0605"], "E"), tf.heavy("p1", P, ["0705"], "W"),
                  tf.heavy("p2", P, ["0706"], "NW"))


# == set, show, clear =============================================================================

def test_a_scoped_policy_is_stored_under_its_scope_and_the_sides_policy_is_untouched():
    p = two_reactors()
    p.go(P, "policy reaction salvo")
    ev = p.go(P, "policy reaction never for p1")
    mine = p.st.policies[P]
    assert mine["reaction_fire@p1"] == "never" and mine["reaction_fire"] == "salvo"
    assert "for p1: never" in ev[0].narrative and "the side's: salvo" in ev[0].narrative
    p.go(P, "policy counter ask for p-a")                  # a wing; the melee chain's word
    p.go(P, "policy advance advance for p2")
    assert mine is not p.st.policies[P]                     # (each command works on a copy)
    mine = p.st.policies[P]
    assert mine["reaction_attack@p-a"] == "ask" and "reaction_attack" not in mine
    assert mine["advance_after_combat@p2"] == "advance" and "advance_after_combat" not in mine


def test_the_lookup_goes_unit_then_wing_then_side_then_default():
    p = two_reactors()
    st = p.st
    assert policy(st, P, "reaction_fire", unit="p1") == "auto"            # the default
    p.go(P, "policy reaction salvo")
    p.go(P, "policy reaction ask for p-a")
    p.go(P, "policy reaction never for p1")
    st = p.st
    assert policy(st, P, "reaction_fire", unit=st.units["p1"]) == "never"  # its own
    assert policy(st, P, "reaction_fire", unit="p2") == "ask"              # its wing's
    assert policy(st, P, "reaction_fire", wing="p-a") == "ask"
    assert policy(st, P, "reaction_fire") == "salvo"                       # the side's
    assert policy(st, P, "intercept", unit="p1") == "never"                # the default


def test_policy_show_lists_the_scoped_policies_and_show_for_explains_one():
    p = two_reactors()
    p.go(P, "policy reaction never for p1")
    p.go(P, "policy bypass ask for p-a")
    text = p.go(P, "policy show")[0].narrative
    assert "reaction fire: auto (default)" in text
    assert "for wings and units:" in text and "bypass for p-a: ask" in text
    assert "reaction fire for p1: never" in text
    text = p.go(P, "policy show for p1")[0].narrative
    assert "reaction fire: never," in text                # its own: no source named
    assert "bypass: ask (wing)" in text and "intercept: never (default)" in text
    assert "Royalist" not in p.go(R, "policy show")[0].narrative.split(":", 1)[1]


def test_policy_clear_for_a_scope_drops_it_and_a_second_clear_is_refused():
    p = two_reactors()
    p.go(P, "policy reaction ask")
    p.go(P, "policy reaction never for p1")
    ev = p.go(P, "policy reaction clear for p1")
    assert "reaction_fire@p1" not in p.st.policies[P] and p.st.policies[P]["reaction_fire"] == "ask"
    assert "follows the side's (ask)" in ev[0].narrative
    refused(p, P, "policy reaction clear for p1", "no reaction fire policy of its own")
    p.go(P, "policy reaction clear")                      # the side's back to the default
    assert "reaction_fire" not in p.st.policies[P]
    assert policy(p.st, P, "reaction_fire", unit="p1") == "auto"


def test_a_scope_that_is_not_yours_or_not_fit_is_refused_and_nothing_changes():
    p = two_reactors()
    refused(p, P, "policy reaction never for r1", "r1 is not yours")
    refused(p, P, "policy reaction never for r-a", "not one of your wings")
    refused(p, P, "policy reaction never for nobody", "is not one of your wings or units")
    refused(p, P, "policy bypass ask for p1", "whole wing")
    refused(p, P, "policy intercept auto for p1", "not cavalry")
    refused(p, P, "policy pistols keep for p1", "not cavalry")
    refused(p, P, "policy reaction sometimes for p1", "usage", CannotParse)   # the chain's check
    refused(p, P, "policy reaction never for", "usage", CannotParse)
    refused(p, P, "policy nonsense never for p1", "unknown policy", CannotParse)


# == bypass (§4.4) ================================================================================

CHARGE = {w: "charge" for w in ("a1", "a2", "a3", "b1", "b2", "b3")}
STRONG = {"a1-wc": -2, "a2-wc": -2, "a3-wc": -2}


def test_4_4_a_wing_scoped_bypass_ask_offers_only_that_wing():
    p = three_wings(CHARGE, STRONG)
    p.go(P, "policy bypass ask for b2")                   # the side stays on "never"
    p.go(R, "activate a1")
    assert p.st.pending["kind"] == "bypass" and p.st.pending["options"] == ["b2"]
    refused(p, P, "bypass b1", "cannot bypass now; eligible: b2")


def test_4_4_never_for_a_wing_removes_it_from_the_sides_bypass_window():
    p = three_wings(CHARGE, STRONG)
    p.go(P, "policy bypass ask")
    p.go(P, "policy bypass never for b1")
    p.go(R, "activate a1")
    assert p.st.pending["options"] == ["b2", "b3"]
    q = three_wings(CHARGE, STRONG)
    for w in ("b1", "b2", "b3"):
        q.go(P, f"policy bypass never for {w}")
    q.go(P, "policy bypass ask")
    q.go(R, "activate a1")                                # no wing on "ask": no window at all
    assert q.st.pending is None and q.st.activation.step == "order_change"


# == Reaction Fire (§9.7) =========================================================================

def test_9_7_each_reactor_obeys_its_own_policy_never_for_one_lets_only_the_other_fire():
    p = two_reactors()
    st = p.st.copy()                                      # unscoped: both fire (two dice)
    events, _ = reaction_fire(p.sc, st, st.units["r1"], "enter", tf.strict(p, 1, 1), hexes=["0605"])
    assert [e.inputs["firer"] for e in tf.fires(events)] == ["p1", "p2"]
    p.go(P, "policy reaction never for p1")
    st = p.st.copy()
    events, stop = reaction_fire(p.sc, st, st.units["r1"], "enter", tf.strict(p, 1), hexes=["0605"])
    assert [e.inputs["firer"] for e in tf.fires(events)] == ["p2"] and not stop
    assert "with p1 (standing policy: never react)" in events[0].narrative


def test_9_7_auto_units_fire_and_the_ask_units_wait_in_one_decision():
    p = two_reactors()
    p.go(P, "policy reaction ask")
    p.go(P, "policy reaction auto for p2")
    st = p.st.copy()
    events, stop = reaction_fire(p.sc, st, st.units["r1"], "enter", tf.strict(p, 1), hexes=["0605"])
    assert [e.inputs["firer"] for e in tf.fires(events)] == ["p2"]
    assert stop and st.pending["kind"] == "reaction_fire" and st.pending["options"] == ["p1"]
    # a Salvo policy for one unit: p1 fires a Salvo, p2 its normal fire
    p = two_reactors()
    p.go(P, "policy reaction salvo for p1")
    st = p.st.copy()
    events, _ = reaction_fire(p.sc, st, st.units["r1"], "enter", tf.strict(p, 1, 1, 1), hexes=["0605"])
    assert [e.inputs["column"] for e in tf.fires(events)] == ["salvo", "front"]
    assert st.units["p1"].salvo_used and not st.units["p2"].salvo_used


def test_10_4_9_a_unit_scoped_ask_is_read_as_auto_inside_close_combat():
    p = tm.pos(*tm.BASE, tm.heavy("p2", P, ["0306"], "E"))   # reaction fire "never" for the side
    p.go(P, "policy reaction ask for p2")
    events = tm.assault(p, "attack r1 0405", dice="7,1")   # DS2; p2's musket at the advance: a miss
    assert p.unit("r1").hexes == ["0405"]
    assert [e.inputs["firer"] for e in events if e.kind == "fire"] == ["p2"] and p.st.pending is None
    assert p.st.policies[P]["reaction_fire@p2"] == "ask"


# == interception (§7.5) ==========================================================================

def interception_position() -> Position:
    p = Position([("r-cav", R, "r-a", "cavalry", ["0505"], "E"),
                  ("p-cav", P, "p-a", "cavalry", ["1005"], "W"),         # p-wc (-1) stacked
                  ("p-cav2", P, "p-a", "cavalry", ["1004"], "W")],
                 orders={"r-a": "charge", "p-a": "receive_charge"})
    p.go(R, "activate r-a")
    return p


def intercepts(p: Position) -> list[str]:
    return [e.outcome["unit"] for e in p.events if e.kind == "intercept" and "unit" in e.outcome]


def test_7_5_a_unit_scoped_auto_intercepts_while_its_side_says_never():
    p = interception_position()
    p.go(R, "move r-cav 0604 0705 0804")                   # the side's "never": no die
    assert intercepts(p) == [] and p.unit("r-cav").hexes == ["0804"]
    p = interception_position()
    p.go(P, "policy intercept auto for p-cav2")
    p.go(R, "move r-cav 0604 0705 0804 dice=10")            # p-cav2 alone tries: 9 > 3, fails
    assert intercepts(p) == ["p-cav2"] and p.unit("r-cav").hexes == ["0804"]
    assert p.unit("p-cav2").hexes == ["1004"] and p.st.pending is None


def test_7_5_never_for_one_cavalry_keeps_it_out_of_the_sides_auto_interception():
    p = interception_position()
    p.go(P, "policy intercept auto")
    p.go(P, "policy intercept never for p-cav")
    p.go(R, "move r-cav 0604 0705 0804 dice=10")            # p-cav would have gone first
    assert intercepts(p) == ["p-cav2"]


def test_7_5_auto_cavalry_tries_first_and_the_ask_cavalry_is_asked_after():
    p = interception_position()
    p.go(P, "policy intercept ask")
    p.go(P, "policy intercept auto for p-cav")
    p.go(R, "move r-cav 0604 0705 0804 dice=10")            # p-cav: 9 - 1 = 8 > 3, fails
    assert intercepts(p) == ["p-cav"]
    assert p.st.pending["kind"] == "intercept" and p.st.pending["options"] == ["p-cav2"]
    assert p.unit("r-cav").hexes == ["0604"]
    p.go(P, "intercept pass")
    assert p.unit("r-cav").hexes == ["0804"] and p.st.pending is None


# == reaction movement (§7.4) =====================================================================

def test_7_4_reaction_movement_by_unit_auto_faces_while_the_side_asks_the_others():
    p = Position([("r-hi", R, "r-a", "heavy", ["0505"], "E"),
                  ("p-li", P, "p-a", "light", ["0705"], "NE")],
                 orders={"r-a": "charge", "p-a": "receive_charge"})
    p.go(R, "activate r-a")
    for side in (R, P):
        p.go(side, "policy reaction never")
    p.go(P, "policy reaction_move ask")
    p.go(P, "policy reaction_move auto for p-li")
    p.go(R, "move r-hi 0604")
    assert p.st.pending is None                           # p-li answered by itself
    assert any(e.kind == "reaction_move" and e.section == "TACW §7.4.2" for e in p.events)


# == close combat: reaction attacks, advance, pistols (§10.2 B, §10.4.6, §10.3.9) =================

def test_10_2_b_reaction_attacks_offered_for_the_units_on_ask_only():
    p = tm.reaction_position()
    p.go(P, "policy counter ask for p2")                   # the side: never
    p.go(R, "attack r1 0405")
    p.go(R, "resolve")
    assert p.st.pending["kind"] == "reaction_attack" and p.st.pending["options"] == ["p2 0505", "none"]
    q = tm.reaction_position()
    q.go(P, "policy counter ask")
    q.go(P, "policy counter never for p2")                 # the only unit that could: no window
    q.go(R, "attack r1 0405")
    events = q.go(R, "resolve dice=6")
    assert q.st.pending is None and tm.combat(events).inputs["attackers"] == ["r1"]


def test_10_4_6_advance_after_combat_follows_the_defending_units_own_policy():
    p = tm.pos(*tm.BASE)
    p.go(P, "policy advance advance for p1")
    tm.run(p, dice="4")                                     # 3: AS2
    assert p.unit("r1").hexes == ["0704"] and p.unit("p1").hexes == ["0505"]
    q = tm.pos(*tm.BASE)
    q.go(P, "policy advance advance")
    q.go(P, "policy advance hold for p1")
    tm.run(q, dice="4")
    assert q.unit("r1").hexes == ["0704"] and q.unit("p1").hexes == ["0405"]
    w = tm.pos(*tm.BASE)
    w.go(P, "policy advance advance for p-a")               # the wing's policy
    tm.run(w, dice="4")
    assert w.unit("p1").hexes == ["0505"]


def test_10_3_9_pistols_policy_by_cavalry_unit():
    p = tm.pos(tm.cav("c1", R, ["0505"], "W"), tm.cav("c2", R, ["0507"], "W"), tm.heavy("p1", P, ["0405"], "E"))
    p.go(R, "policy pistols keep for c1")
    assert not resolution._spends_pistol(p.st, p.unit("c1")) and resolution._spends_pistol(p.st, p.unit("c2"))
