"""TACW fire combat (§9): infantry fire, Salvo, pistols, artillery, ricochet, line of sight,
Reaction Fire and leader loss, each rule with exact dice.

Dice in a command are die FACES (1-10): the d10 reads face - 1, so `dice=10` rolls a 9 and
`dice=1` a 0. Every position puts each side's leaders on a headquarters unit ("rhq", "phq")
away from the fighting, so that no Leader Loss roll appears unless a test wants one.
Map (flat-top, CCRR): 0505 facing E has front 0605/0604, flank 0506/0504, rear 0405/0404;
the straight SE line from 0505 runs 0605 0706 0806 0907 1007.
"""
from __future__ import annotations

import pytest

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.tacw.fire.artillery import fire_line_of_sight
from engine.tacw.fire.small_arms import pistol_fire, reaction_fire

from .tacw_helpers import Position, refused

R, P = "royalist", "parliament"
RHQ = ("rhq", R, "r-a", "light", ["0503"], "E")
PHQ = ("phq", P, "p-a", "light", ["1812"], "W")


def pos(*units, hq_p=True, **kw) -> Position:
    p = Position([RHQ, *([PHQ] if hq_p else []), *units], **kw)
    p.go(R, "activate r-a")
    return p


def never(p: Position, side: str = P) -> None:
    p.go(side, "policy reaction never")


def fires(events, firer=None):
    return [e for e in events if e.kind == "fire" and (firer is None or e.inputs["firer"] == firer)]



def strict(p: Position, *faces: int) -> DiceStream:
    """A stream that must be given exactly the dice used (DiceNeeded otherwise)."""
    return DiceStream(p.st.seed, p.st.draws, list(faces), strict=True)


def heavy(uid, side, hexes, facing, **extra):
    return (uid, side, "r-a" if side == R else "p-a", "heavy", hexes, facing, extra)


def gun(uid, side, hexes, facing, **extra):
    return (uid, side, "r-a" if side == R else "p-a", "artillery", hexes, facing, extra)


# == infantry fire (§9.1, §9.3, §9.5) ============================================================

def test_9_5_1_musket_front_column_when_the_firer_stands_in_the_targets_front():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    ev = p.go(R, "fire r1 0605 dice=2")              # a 1: Front column "-"
    (shot,) = fires(ev)
    assert shot.inputs["column"] == "front" and shot.outcome["hits"] == 0
    assert p.unit("p1").casualties == 0


def test_9_5_1_musket_flank_column_when_the_firer_stands_in_the_targets_flank():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "NE"))   # 0505 is p1's flank
    never(p)
    ev = p.go(R, "fire r1 0605 dice=2")              # a 1: Flank column "1"
    (shot,) = fires(ev)
    assert shot.inputs["column"] == "flank" and shot.outcome["hits"] == 1
    assert p.unit("p1").casualties == 1


def test_9_1_3_no_fire_into_rear_hexes_and_the_state_is_untouched():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0405"], "E"))
    refused(p, R, "fire r1 0405", "rear")
    assert "r1" not in p.st.activation.acted


def test_9_1_2_infantry_range_is_one_hex():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"))
    refused(p, R, "fire r1 0705", "out of range")


def test_9_1_4_double_fires_from_each_half_and_counts_as_one_unit_for_the_mc():
    # Both halves touch 0605 (the central front hex): two rolls of 1 hit each. Morale 7 checks
    # on 2 hits from ONE unit's fire, so the two rolls together force one MC (one die, no +1).
    p = pos(heavy("r1", R, ["0505", "0506"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    ev = p.go(R, "fire r1 0605 dice=4,4,1")          # 3 and 3: "1" each; MC roll 0 passes
    assert [e.inputs["from"] for e in fires(ev)] == ["0505", "0506"]
    assert p.unit("p1").casualties == 2
    (mc,) = [e for e in ev if e.kind == "morale_check"]
    assert mc.outcome == {"unit": "p1", "passed": True} and mc.modifiers == []


def test_9_1_4_double_may_fire_at_two_targets_one_per_half():
    p = pos(heavy("r1", R, ["0505", "0506"], "E"), heavy("p1", P, ["0604"], "W"),
            heavy("p2", P, ["0606"], "W"))
    never(p)
    ev = p.go(R, "fire r1 0604 0606 dice=4,1")
    assert [(e.inputs["from"], e.inputs["target"]) for e in fires(ev)] == [("0505", "p1"), ("0506", "p2")]
    assert (p.unit("p1").casualties, p.unit("p2").casualties) == (1, 0)


def test_9_1_4_fire_is_voluntary_one_half_of_a_double_may_fire_alone():
    p = pos(heavy("r1", R, ["0505", "0506"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    ev = p.go(R, "fire r1 0605 from 0506 dice=4")
    assert [e.inputs["from"] for e in fires(ev)] == ["0506"]


def test_9_5_2_light_infantry_uses_the_commanded_shot_column_with_its_strength():
    p = pos(("r1", R, "r-a", "light", ["0505"], "E", {"strength": 2}), heavy("p1", P, ["0605"], "W"))
    never(p)
    ev = p.go(R, "fire r1 0605 dice=8")              # 7 +1 (2 SP) = 8: "1"
    (shot,) = fires(ev)
    assert "Commanded Shot" in shot.table and shot.row == "8"
    assert [m.value for m in shot.modifiers] == [1]
    assert p.unit("p1").casualties == 1


# == Salvo (§9.4, §9.6.3) =========================================================================

def test_9_4_salvo_forces_an_mc_even_when_it_misses_and_sets_the_marker():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    ev = p.go(R, "salvo r1 0605 dice=1,1")           # 0: miss; MC 0 passes
    (shot,) = fires(ev)
    assert shot.inputs["column"] == "salvo" and shot.outcome["hits"] == 0
    assert [e.outcome["unit"] for e in ev if e.kind == "morale_check"] == ["p1"]
    assert p.unit("r1").salvo_used


def test_9_4_salvo_once_per_turn_and_normal_fire_afterwards_is_minus_one():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    p.go(R, "salvo r1 0605 dice=1,1")
    p.st.activation.acted.clear()                    # as in a continuation activation
    refused(p, R, "salvo r1 0605", "already fired its Salvo this turn")
    ev = p.go(R, "fire r1 0605 dice=4")              # 3 -1 = 2: Front column "-"
    (shot,) = fires(ev)
    assert [(m.value, m.section) for m in shot.modifiers] == [(-1, "TACW §9.4")]
    assert p.unit("p1").casualties == 0


def test_9_4_salvo_only_into_front_hexes():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0506"], "NW"))
    refused(p, R, "salvo r1 0506", "front hexes only")


# == Skirmish, Retreat and Advance fire (§9.3) ====================================================

def test_9_3_3_skirmish_target_fires_back_after_its_hits_are_applied():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    ev = p.go(R, "fire r1 0605 dice=4,10")           # r1: 3 -> 1 hit; p1 back: 9 -1 = 8 -> 1 hit
    r1_shot, p1_shot = fires(ev)
    assert r1_shot.inputs["firer"] == "r1" and p1_shot.inputs["firer"] == "p1"
    assert p1_shot.inputs["reaction"] and [m.value for m in p1_shot.modifiers] == [-1]
    assert p.unit("r1").casualties == 1 and p.unit("p1").casualties == 1
    assert p.unit("r1").hexes == ["0505"]            # nobody moves
    assert p.st.last_action["items"] == [{"kind": "fire", "from": "0505", "to": "0605", "text": "1 hit"},
                                         {"kind": "fire", "from": "0605", "to": "0505", "text": "1 hit"}]
    # a third die is not needed (no MC on 1 hit at morale 7): the command is refused
    with pytest.raises(Illegal, match="not needed"):
        pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W")).go(R, "fire r1 0605 dice=4,10,1")


def test_9_3_4_retreat_fire_minus_three_both_ways_then_a_step_back():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"),
            orders={"r-a": "make_ready", "p-a": "receive_charge"})
    ev = p.go(R, "fire r1 0605 retreat dice=10,10")  # 9 -3 = 6: "1"; back 9 -1 -3 = 5: "1"
    r1_shot, p1_shot = fires(ev)
    assert (-3, "TACW §9.3.4") in [(m.value, m.section) for m in r1_shot.modifiers]
    assert (-3, "TACW §9.3.4") in [(m.value, m.section) for m in p1_shot.modifiers]
    r1 = p.unit("r1")
    assert r1.hexes[0] in ("0405", "0404") and r1.facing == 0
    assert ev.index(p1_shot) < [i for i, e in enumerate(ev) if e.kind == "move"][0]


def test_9_3_4_retreat_fire_is_not_allowed_on_charge():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    refused(p, R, "fire r1 0605 retreat", "Charge")


def test_9_3_2_advance_fire_takes_the_reaction_fire_first_and_draws_none_itself():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"))
    ev = p.go(R, "fire r1 0705 advance dice=10,1,10")   # p1: 9 -> 2 hits, MC 0; r1: 9 -2 -> 1 hit
    assert p.unit("r1").hexes == ["0605"]
    p1_shot, r1_shot = fires(ev)
    assert p1_shot.inputs["firer"] == "p1" and p1_shot.inputs["to"] == "0605"
    assert r1_shot.inputs["firer"] == "r1" and [m.value for m in r1_shot.modifiers] == [-2]
    assert ev.index(p1_shot) < ev.index(r1_shot)
    assert p.unit("r1").casualties == 2 and p.unit("p1").casualties == 1


def test_9_3_2_advance_fire_only_on_charge_orders():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"),
            orders={"r-a": "make_ready", "p-a": "receive_charge"})
    refused(p, R, "fire r1 0705 advance", "Charge")


# == cavalry pistols (§9.2, §9.8) =================================================================

def test_9_8_pistols_count_down_two_one_none_then_refuse():
    # pistol_fire is what the movement engine calls for "move ... pistol <hex>" (one per move).
    p = pos(("c1", R, "r-a", "cavalry", ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    st, sc = p.st.copy(), p.sc
    c1 = st.units["c1"]
    ev = pistol_fire(sc, st, c1, "0605", strict(p, 8))     # 7: Pistol column "1"
    assert c1.pistols == 1 and st.units["p1"].casualties == 1
    assert fires(ev)[0].table.endswith("Cavalry Pistol")
    assert [e.outcome["pistols"] for e in ev if e.kind == "pistol"] == [1]
    pistol_fire(sc, st, c1, "0605", strict(p, 1))          # 0: miss, but the shot is spent
    assert c1.pistols == 0
    before = st.state_hash()
    with pytest.raises(Illegal, match="No Pistols"):
        pistol_fire(sc, st, c1, "0605", strict(p))
    assert st.state_hash() == before


def test_9_8_pistol_fire_draws_the_targets_reaction_fire_during_a_move():
    p = pos(("c1", R, "r-a", "cavalry", ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    st = p.st.copy()
    ev = pistol_fire(p.sc, st, st.units["c1"], "0605", strict(p, 1, 1))   # c1 misses, p1 misses
    assert [e.inputs["firer"] for e in fires(ev)] == ["c1", "p1"]
    st = p.st.copy()
    ev = pistol_fire(p.sc, st, st.units["c1"], "0605", strict(p, 1), during_move=False)
    assert [e.inputs["firer"] for e in fires(ev)] == ["c1"]


def test_9_2_cavalry_does_not_fire_as_an_action_only_during_its_move():
    p = pos(("c1", R, "r-a", "cavalry", ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    refused(p, R, "fire c1 0605", "during a move")
    refused(p, R, "pistol c1 0605", "move")


# == artillery (§9.9) =============================================================================

def test_9_9_2_range_modifier_by_gun_class():
    target = heavy("p1", P, ["1007"], "W")                  # 5 hexes down the SE line
    p = pos(gun("g", R, ["0505"], "E"), target)
    ev = p.go(R, "fire g 1007 dice=7")                      # saker: 6 -1 = 5: miss
    (shot,) = fires(ev)
    assert [(m.value, m.reason) for m in shot.modifiers] == [(-1, "range 5 hexes (saker)")]
    assert p.unit("p1").formation == "normal"
    p = pos(gun("g", R, ["0505"], "E", gun_class="culverin", max_range=17), target)
    ev = p.go(R, "fire g 1007 dice=7")                      # culverin: 6 +0: FH
    assert fires(ev)[0].modifiers == [] and p.unit("p1").formation == "disordered"


def test_9_9_1_artillery_fires_once_per_turn():
    p = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["1007"], "W"))
    p.go(R, "fire g 1007 dice=1")
    assert p.unit("g").fired
    p.st.activation.acted.clear()
    refused(p, R, "fire g 1007", "already fired")


def test_9_9_2_out_of_range_and_out_of_the_front_arc_are_refused():
    p = pos(gun("g", R, ["0505"], "E", max_range=4), heavy("p1", P, ["1007"], "W"),
            heavy("p2", P, ["0305"], "E"))
    refused(p, R, "fire g 1007", "range")
    refused(p, R, "fire g 0305", "front arc")


def test_9_9_7_fh_and_mc_on_a_gun_is_one_morale_check_with_plus_one():
    p = pos(gun("g", R, ["0505"], "E", gun_class="culverin", max_range=17), gun("pg", P, ["0605"], "W"))
    never(p)
    ev = p.go(R, "fire g 0605 dice=10,1")                   # 9 +1 (range 1) = 10: FH + MC; MC 0 +1
    assert fires(ev)[0].outcome["result"] == "FH + MC"
    (mc,) = [e for e in ev if e.kind == "morale_check"]
    assert mc.section == "TACW §11.2" and [m.value for m in mc.modifiers] == [1]
    assert p.unit("pg").formation == "normal"               # guns take the MC instead of the FH


def test_6_2_3_a_gun_turns_instead_of_firing():
    p = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0305"], "E"))
    p.go(R, "turngun g W")
    assert p.unit("g").facing == 3 and p.unit("g").fired
    p.st.activation.acted.clear()
    refused(p, R, "fire g 0305", "already fired")


# == line of sight (§9.10) ========================================================================

def test_9_10_wood_blocks_the_line_of_sight():
    p = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0806"], "W"), terrain={"wood": ["0706"]})
    refused(p, R, "fire g 0806", "line of sight")


def test_9_10_1_a_friendly_unit_blocks_the_line_of_sight_an_enemy_does_not():
    # §9.10.1 (Italian text and digest): "through enemy combat units, but not friendly ones".
    friend = pos(gun("g", R, ["0505"], "E"), heavy("r2", R, ["0706"], "E"), heavy("p1", P, ["0806"], "W"))
    refused(friend, R, "fire g 0806", "a friendly unit")
    p = pos(gun("g", R, ["0505"], "E"), heavy("p2", P, ["0706"], "W"), heavy("p1", P, ["0806"], "W"))
    ev = p.go(R, "fire g 0806 dice=1,1")                    # the target, then p2 by ricochet
    assert [e.inputs["target"] for e in fires(ev)] == ["p1", "p2"]


def test_9_10_3_a_line_along_a_hexside_is_blocked_only_if_both_sides_block():
    one = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"), terrain={"wood": ["0605"]})
    g, st = one.unit("g"), one.st
    assert fire_line_of_sight(one.sc, st, g, "0505", "0705")[0]
    both = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"), terrain={"wood": ["0605", "0604"]})
    clear, why = fire_line_of_sight(both.sc, both.st, both.unit("g"), "0505", "0705")
    assert not clear and "both blocking" in why


def test_9_10_2_a_hedge_hexside_between_blocks_but_not_the_targets_own_side():
    hedge = [{"hex": "0605", "side": "SE", "type": "hedge"}]          # the side 0605 | 0706
    p = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0806"], "W"), hexsides=hedge)
    refused(p, R, "fire g 0806", "hexside")
    p = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0706"], "W"), hexsides=hedge)
    assert fire_line_of_sight(p.sc, p.st, p.unit("g"), "0505", "0706")[0]


# == ricochet (§9.9.3-9.9.5) ======================================================================

def test_9_9_3_ricochet_strikes_a_friendly_unit_behind_the_target_within_its_range():
    p = pos(gun("g", R, ["0505"], "E"), heavy("p1", P, ["0706"], "W"), heavy("r2", R, ["0806"], "E"),
            heavy("p3", P, ["1007"], "W"))                  # p3 is 5 hexes out: beyond ricochet 4
    ev = p.go(R, "fire g 0706 dice=1,7")                    # p1: miss; r2 (range 3): 6 -> FH
    assert [(e.inputs["target"], e.section) for e in fires(ev)] == [("p1", "TACW §9.9.2"), ("r2", "TACW §9.9.3")]
    assert p.unit("r2").formation == "disordered" and p.unit("p3").formation == "normal"


def test_9_9_5_along_a_hexside_the_ricochet_takes_one_side():
    units = (gun("g", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"), heavy("p2", P, ["0805"], "W"),
             heavy("r2", R, ["0804"], "E"))
    p = pos(*units)                                         # default: the side with the enemy
    ev = p.go(R, "fire g 0705 dice=1,1")
    assert [e.inputs["target"] for e in fires(ev)] == ["p1", "p2"]
    p = pos(*units)
    ev = p.go(R, "fire g 0705 ricochet left dice=1,1")
    assert [e.inputs["target"] for e in fires(ev)] == ["p1", "r2"]


# == Reaction Fire (§9.7, §9.9.6) =================================================================

def test_9_7_1_entering_a_front_hex_draws_reaction_fire_but_not_from_a_rear_hex():
    # r1 has just entered 0605: p1's front hex, p2's rear hex.
    p = pos(heavy("r1", R, ["0605"], "E"), heavy("p1", P, ["0705"], "W"), heavy("p2", P, ["0706"], "SE"))
    st = p.st.copy()
    events, stop = reaction_fire(p.sc, st, st.units["r1"], "enter", strict(p, 10, 1), hexes=["0605"])
    assert [e.inputs["firer"] for e in fires(events)] == ["p1"]
    assert st.units["r1"].casualties == 2 and not stop     # MC passed: it may go on


def test_9_7_2_reaction_fire_at_cavalry_that_moved_before_entering_is_minus_one():
    p = pos(("c1", R, "r-a", "cavalry", ["0605"], "E"), heavy("p1", P, ["0705"], "W"))
    st = p.st.copy()
    st.activation.moved["c1"] = 3                           # 2 hexes, then 0605
    events, _ = reaction_fire(p.sc, st, st.units["c1"], "enter", strict(p, 10), hexes=["0605"])
    assert (-1, "TACW §9.7.2") in [(m.value, m.section) for m in fires(events)[0].modifiers]
    st = p.st.copy()
    st.activation.moved["c1"] = 1                           # it entered the zone on its first hex
    events, _ = reaction_fire(p.sc, st, st.units["c1"], "enter", strict(p, 10, 1), hexes=["0605"])
    assert all(m.section != "TACW §9.7.2" for m in fires(events)[0].modifiers)


def test_9_7_reaction_stops_the_mover_when_it_is_eliminated():
    p = pos(heavy("r1", R, ["0605"], "E", strength=1), heavy("p1", P, ["0705"], "W"))
    st = p.st.copy()
    events, stop = reaction_fire(p.sc, st, st.units["r1"], "enter", strict(p, 10), hexes=["0605"])
    assert stop and not st.units["r1"].alive


def test_9_9_6_artillery_reacts_to_a_unit_entering_its_ricochet_range_in_its_front_arc():
    p = pos(heavy("r1", R, ["0806"], "W"), gun("pg", P, ["0505"], "E"), gun("pg2", P, ["1108"], "SE"))
    st = p.st.copy()
    events, _ = reaction_fire(p.sc, st, st.units["r1"], "enter", strict(p, 7), hexes=["0806"])
    assert [e.inputs["firer"] for e in fires(events)] == ["pg"]   # pg2 faces away
    assert st.units["pg"].fired and st.units["r1"].formation == "disordered"


def test_9_4_salvo_used_as_reaction_fire_by_policy():
    p = pos(heavy("r1", R, ["0605"], "E"), heavy("p1", P, ["0705"], "W"))
    p.go(P, "policy reaction salvo")
    st = p.st.copy()
    events, _ = reaction_fire(p.sc, st, st.units["r1"], "enter", strict(p, 1, 1), hexes=["0605"])
    (shot,) = fires(events)                                 # 0: miss, yet r1 must check morale
    assert shot.inputs["column"] == "salvo" and st.units["p1"].salvo_used
    assert [e.outcome["unit"] for e in events if e.kind == "morale_check"] == ["r1"]


def test_9_7_1_only_inactive_units_react_and_only_to_active_units():
    p = pos(heavy("r1", R, ["0605"], "E"), heavy("p1", P, ["0705"], "W"))
    st = p.st.copy()                                        # Royalist is the active side
    events, stop = reaction_fire(p.sc, st, st.units["p1"], "face", strict(p))
    assert events == [] and not stop


def test_9_7_policy_never_lets_the_mover_pass():
    p = pos(heavy("r1", R, ["0605"], "E"), heavy("p1", P, ["0705"], "W"))
    never(p)
    st = p.st.copy()
    events, stop = reaction_fire(p.sc, st, st.units["r1"], "enter", strict(p), hexes=["0605"])
    assert fires(events) == [] and not stop and st.pending is None


def test_9_7_policy_ask_opens_a_pending_decision_and_react_answers_it():
    p = pos(heavy("r1", R, ["0605"], "E"), heavy("p1", P, ["0705"], "W"))
    p.go(P, "policy reaction ask")
    st = p.st.copy()
    events, stop = reaction_fire(p.sc, st, st.units["r1"], "enter", strict(p), hexes=["0605"])
    assert stop and st.pending["kind"] == "reaction_fire" and st.pending["options"] == ["p1"]
    assert st.pending["side"] == P and st.pending["unit"] == "r1"
    # Through commands: Skirmish, then Parliament is asked; Royalist waits; `react p1` fires.
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"), heavy("r2", R, ["0504"], "E"))
    p.go(P, "policy reaction ask")
    p.go(R, "fire r1 0605 dice=1")
    assert p.st.pending["options"] == ["p1"]
    refused(p, R, "fire r2 0604", "waiting for Parliament")
    ev = p.go(P, "react p1 dice=4")
    assert [e.inputs["firer"] for e in fires(ev)] == ["p1"] and p.st.pending is None
    assert p.unit("r1").casualties == 1


def test_9_3_2_advance_fire_goes_on_after_an_asked_reaction_is_declined():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0705"], "W"))
    p.go(P, "policy reaction ask")
    p.go(R, "fire r1 0705 advance")
    assert p.st.pending["then"]["kind"] == "advance_fire"
    ev = p.go(P, "react none dice=10")                       # r1 now fires: 9 -> 2 hits
    assert [e.inputs["firer"] for e in fires(ev)] == ["r1"] and p.unit("p1").casualties == 2


# == leader loss (§9.11), columns (§6.3.4) =========================================================

def test_9_11_a_leader_in_a_hex_hit_by_fire_is_removed_on_a_9():
    p = pos(heavy("p1", P, ["0605"], "W"), heavy("r1", R, ["0505"], "E"), hq_p=False)   # p-ac, p-wc on p1
    never(p)
    ev = p.go(R, "fire r1 0605 dice=10,1,10,1")      # 2 hits, MC passes; p-ac rolls 9, p-wc 0
    assert [e.outcome["result"] for e in ev if e.kind == "leader_loss"] == ["removed", "no_effect"]
    assert p.st.leaders["p-ac"].status == "removed" and p.st.leaders["p-wc"].status == "active"


def test_9_11_a_leader_whose_unit_breaks_and_routs_from_the_fire_still_rolls():
    """D127: the leaders in the hex when the fire struck roll, after the morale check, even
    though they have routed away with their unit (§9.11; D39 takes them along)."""
    p = pos(heavy("p1", P, ["0605"], "W"), heavy("r1", R, ["0505"], "E"), hq_p=False)   # p-ac, p-wc on p1
    never(p)
    p.st.units["p1"].morale_state = "shaken"
    draws = p.st.draws
    ev = p.go(R, "fire r1 0605 dice=10,10,10,1")     # 2 hits; MC 9 fails: Broken, routs; p-ac 9, p-wc 0
    p1 = p.unit("p1")
    assert p1.morale_state == "broken" and "0605" not in p1.hexes
    kinds = [e.kind for e in ev if e.kind in ("fire", "morale_check", "leader_loss")]
    assert kinds == ["fire", "morale_check", "leader_loss", "leader_loss"]      # the book's order
    losses = [e for e in ev if e.kind == "leader_loss"]
    assert [(e.outcome["leader"], e.outcome["result"], e.outcome["hex"]) for e in losses] == \
        [("p-ac", "removed", "0605"), ("p-wc", "no_effect", "0605")]
    assert p.st.leaders["p-ac"].status == "removed"
    assert p.st.leaders["p-wc"].status == "active" and p.st.leaders["p-wc"].hex in p1.hexes
    assert p.st.draws == draws                       # only the four dice given


def test_9_11_a_leader_removed_with_his_eliminated_unit_rolls_nothing_more():
    """D127 with D39: the fire eliminates the unit; its leaders go with it, no roll follows."""
    p = pos(heavy("p1", P, ["0605"], "W"), heavy("r1", R, ["0505"], "E"), hq_p=False)
    never(p)
    p.st.units["p1"].casualties = 3
    draws = p.st.draws
    ev = p.go(R, "fire r1 0605 dice=10")             # 2 hits: 5/4, eliminated
    assert p.unit("p1").status == "eliminated"
    assert not [e for e in ev if e.kind == "leader_loss"]
    assert {p.st.leaders[x].status for x in ("p-ac", "p-wc")} == {"removed"}
    assert p.st.draws == draws


def test_9_11_gunfire_leaders_roll_even_after_their_unit_broke_and_fled():
    """D127 for artillery: the leaders in the hex when the shot struck roll after the FH + MC."""
    p = pos(gun("g", R, ["0505"], "E", gun_class="culverin", max_range=17),
            heavy("p1", P, ["0605"], "W"), hq_p=False)                        # p-ac, p-wc on p1
    never(p)
    p.st.units["p1"].morale_state = "shaken"
    draws = p.st.draws
    ev = p.go(R, "fire g 0605 dice=10,10,10,1")      # 9 +1 = 10: FH + MC; MC 9 fails; p-ac 9, p-wc 0
    p1 = p.unit("p1")
    assert p1.morale_state == "broken" and "0605" not in p1.hexes
    losses = [e for e in ev if e.kind == "leader_loss"]
    assert [(e.outcome["leader"], e.outcome["result"]) for e in losses] == [("p-ac", "removed"), ("p-wc", "no_effect")]
    assert "(now in" in losses[1].narrative and p.st.draws == draws


def test_9_11_no_leader_roll_when_the_fire_has_no_effect():
    p = pos(heavy("p1", P, ["0605"], "W"), heavy("r1", R, ["0505"], "E"), hq_p=False)
    never(p)
    draws = p.st.draws
    ev = p.go(R, "fire r1 0605 dice=1")
    assert not [e for e in ev if e.kind == "leader_loss"] and p.st.draws == draws


def test_6_3_4_a_column_fired_on_by_muskets_goes_f_broken_and_checks_morale_first():
    p = pos(heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W"))
    never(p)
    p.st.units["p1"].special_formation = "column"
    ev = p.go(R, "fire r1 0605 dice=1,3")            # MC 0 passes; then 2 +1 (column) = 3: "1"
    kinds = [e.kind for e in ev]
    assert kinds.index("morale_check") < kinds.index("fire")
    (shot,) = fires(ev)
    assert [(m.value, m.section) for m in shot.modifiers] == [(1, "TACW §6.3.4")]
    p1 = p.unit("p1")
    assert (p1.special_formation, p1.formation, p1.casualties) == ("", "broken", 1)



# == a cavalry + light infantry stack under fire (§8.2.1, D90) =====================================

def cav(uid, side, hexes, facing, **extra):
    return (uid, side, "r-a" if side == R else "p-a", "cavalry", hexes, facing, extra)


def light(uid, side, hexes, facing, **extra):
    return (uid, side, "r-a" if side == R else "p-a", "light", hexes, facing, extra)


def test_8_2_1_artillery_at_a_stack_both_take_the_formation_hit_and_the_morale_level():
    p = pos(gun("g", R, ["0505"], "E", gun_class="culverin", max_range=17),
            cav("c1", P, ["1007"], "W"), light("l1", P, ["1007"], "W"))
    never(p)
    ev = p.go(R, "fire g 1007 dice=10,10")          # 9: FH + MC; the cavalry's MC 9 > 7 fails
    assert [e.inputs["target"] for e in fires(ev)] == ["c1"]          # fired at through the cavalry
    assert [e.outcome["unit"] for e in ev if e.kind == "morale_check"] == ["c1"]   # one roll
    c1, l1 = p.unit("c1"), p.unit("l1")
    assert (c1.formation, c1.morale_state) == ("disordered", "shaken")
    assert (l1.formation, l1.morale_state) == ("disordered", "shaken")
    assert [e.section for e in ev if e.outcome.get("unit") == "l1"] == ["TACW §8.2.1"] * 2


def test_8_2_1_musket_fire_casualties_stay_on_the_cavalry_the_morale_level_is_shared():
    p = pos(heavy("r1", R, ["0505"], "E"), cav("c1", P, ["0605"], "W"), light("l1", P, ["0605"], "W"))
    never(p)
    p.go(R, "fire r1 0605 dice=10,10")              # 2 hits; threshold: c1 Shaken; MC fails: Broken
    c1, l1 = p.unit("c1"), p.unit("l1")
    assert (c1.casualties, l1.casualties) == (2, 0)
    assert c1.morale_state == "broken" and c1.at_threshold
    assert l1.morale_state == "shaken" and not l1.at_threshold   # the threshold is the cavalry's own
    assert c1.hexes == l1.hexes != ["0605"]                       # they flee together


def test_8_2_1_a_one_sp_light_infantry_shares_morale_and_is_never_struck_by_casualties():
    # the cavalry (2 SP) is destroyed by its casualties: its 1-SP light infantry stays, unharmed
    p = pos(heavy("r1", R, ["0505"], "E"), cav("c1", P, ["0605"], "W", strength=2),
            light("l1", P, ["0605"], "W", strength=1))
    never(p)
    p.go(R, "fire r1 0605 dice=10")                 # 2 hits: eliminated, no MC
    l1 = p.unit("l1")
    assert p.unit("c1").status == "eliminated"
    assert (l1.alive, l1.casualties, l1.morale_state, l1.formation) == (True, 0, "normal", "normal")
    # an already Broken 1-SP light infantry loses its last level with its cavalry
    p = pos(gun("g", R, ["0505"], "E", gun_class="culverin", max_range=17),
            cav("c1", P, ["1007"], "W"), light("l1", P, ["1007"], "W", strength=1))
    never(p)
    p.st.units["l1"].morale_state = "broken"
    p.go(R, "fire g 1007 dice=10,10")               # FH + MC, failed: c1 Shaken, l1 eliminated
    assert p.unit("c1").morale_state == "shaken" and p.unit("l1").status == "eliminated"


def test_8_2_1_a_light_infantry_unit_next_to_the_cavalry_shares_nothing():
    p = pos(gun("g", R, ["0505"], "E", gun_class="culverin", max_range=17),
            cav("c1", P, ["1007"], "W"), light("l1", P, ["1008"], "W"))   # next to it, not stacked
    never(p)
    p.go(R, "fire g 1007 dice=10,10")
    assert p.unit("c1").morale_state == "shaken" and p.unit("l1").morale_state == "normal"
    assert p.unit("l1").formation == "normal"
