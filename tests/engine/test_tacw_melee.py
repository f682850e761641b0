"""TACW close combat (§10), retreats (§10.4, §11.4.3) and the rout move (§12.4), each rule with
exact dice.

Dice in a command are die FACES (1-10): the d10 reads face - 1, so `dice=8` rolls a 7.
Every position puts each side's leaders on a headquarters unit ("rhq", "phq") far from the
fighting, so that no Leader Loss roll appears unless a test wants one, and switches Reaction
Fire off (policy "never") unless a test wants it.
Map (flat-top, CCRR): 0505 facing W has front 0405 (SW) / 0404 (NW), flank 0506 / 0504, rear
0605 / 0604. 0405 facing E has front 0505 / 0506, flank 0406 / 0404, rear 0306 / 0305.
Royalists (wing r-a, on Charge) retreat east, Parliament (p-a) west.
"""
from __future__ import annotations

import pytest

from engine.core import facing as F
from engine.core.dice import DiceStream
from engine.tacw import victory
from engine.tacw.sequence import endturn as endturn
from engine.tacw.close_combat import melee as melee
from engine.tacw.close_combat import retreat as retreat

from .tacw_helpers import Position, refused

R, P = "royalist", "parliament"
RHQ = ("rhq", R, "r-a", "light", ["1801"], "W")
PHQ = ("phq", P, "p-a", "light", ["0114"], "E")


def unit(uid, side, kind, hexes, facing, **extra):
    return (uid, side, "r-a" if side == R else "p-a", kind, hexes, facing, extra)


def heavy(uid, side, hexes, facing, **extra):
    return unit(uid, side, "heavy", hexes, facing, **extra)


def cav(uid, side, hexes, facing, **extra):
    return unit(uid, side, "cavalry", hexes, facing, **extra)


def pos(*units, close=True, **kw) -> Position:
    p = Position([RHQ, PHQ, *units], **kw)
    for side in (R, P):
        p.st.policies.setdefault(side, {})["reaction_fire"] = "never"
    p.go(R, "activate r-a")
    if close:
        p.go(R, "close")
    return p


def keep_pistols(p: Position, *sides: str) -> None:
    for side in sides or (R, P):
        p.st.policies.setdefault(side, {})["close_combat_pistols"] = "keep"



def assault(p: Position, *lines: str, dice: str = "") -> list:
    for line in lines:
        p.go(R, line)
    return p.go(R, "resolve" + (f" dice={dice}" if dice else ""))


def combat(events):
    (ev,) = [e for e in events if e.kind == "close_combat" and e.dice]
    return ev


def mods(ev) -> list[tuple[str, int]]:
    return sorted((m.section, m.value) for m in ev.modifiers)


BASE = (heavy("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E"))


# == who may attack (§10.1) ======================================================================

def test_10_1_2_the_defender_must_be_in_a_front_hex_of_the_attacker():
    p = pos(heavy("r1", R, ["0505"], "W"), heavy("p1", P, ["0506"], "E"), heavy("p2", P, ["0305"], "E"))
    refused(p, R, "attack r1 0506", "front hexes")          # 0506 is r1's flank
    refused(p, R, "attack r1 0305", "front hexes")          # not adjacent
    refused(p, R, "attack r1 0404", "no enemy unit")


def test_10_1_1_close_combat_only_in_the_close_combat_step_and_by_the_active_wing():
    p = pos(*BASE, close=False)
    refused(p, R, "attack r1 0405", "use `close` first")
    p.go(R, "close")
    refused(p, R, "attack p1 0505", "not yours")
    refused(p, P, "attack p1 0505", "active wing")


def test_10_5_artillery_never_attacks_and_a_broken_unit_is_in_flight():
    p = pos(unit("g1", R, "artillery", ["0505"], "W"), heavy("r2", R, ["0404"], "SE"),
            heavy("p1", P, ["0405"], "E"))
    refused(p, R, "attack g1 0405", "artillery never attacks")
    p.unit("r2").morale_state = "broken"
    refused(p, R, "attack r2 0405", "Broken")


def test_10_1_3_a_double_attacks_only_the_unit_in_its_central_front_hex():
    p = pos(heavy("r1", R, ["0505", "0506"], "W"), heavy("p1", P, ["0404"], "SE"),
            heavy("p2", P, ["0405"], "E"))
    refused(p, R, "attack r1 0404", "central front hex (0405)")
    ev = p.go(R, "attack r1 0405")
    assert ev[0].kind == "designate" and p.st.pending["attacks"][0]["defender"] == "p2"


def test_10_1_3_a_double_defender_overlapping_the_central_front_hex_may_be_named_by_either_hex():
    p = pos(heavy("r1", R, ["0505", "0506"], "W"), heavy("p1", P, ["0405", "0406"], "E"))
    p.go(R, "attack r1 0406")
    assert p.st.pending["attacks"][0]["defender"] == "p1"


def test_10_3_1_no_assault_into_a_castle():
    p = pos(*BASE, terrain={"castle": ["0405"]})
    refused(p, R, "attack r1 0405", "cannot be assaulted")


def test_10_1_4_a_unit_attacks_one_hex_once():
    p = pos(heavy("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E"), heavy("p2", P, ["0404"], "E"))
    p.go(R, "attack r1 0405")
    refused(p, R, "attack r1 0404", "already attacks")


# == the modifiers (§10.3), each alone ===========================================================

def run(p, lines=("attack r1 0405",), dice="6"):
    return combat(assault(p, *lines, dice=dice))


def test_10_3_no_modifiers_between_equal_units_face_to_face():
    ev = run(pos(*BASE), dice="6")                          # a 5: DS1
    assert ev.modifiers == [] and ev.outcome["result"] == "DS1" and ev.row == "5"


@pytest.mark.parametrize("who, value, expected", [
    ("r1", -1, [("TACW §10.3.2", 1)]),                     # the attacker's value counts positive
    ("p1", -2, [("TACW §10.3.2", -2)]),                    # the defender's as it is
])
def test_10_3_2_leader_stacked_with_a_participant(who, value, expected):
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", value if who == "r1" else -1, "r-a",
                                                   "r1" if who == "r1" else "rhq"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", value if who == "p1" else -1, "p-a",
                                                   "p1" if who == "p1" else "phq")]
    p = pos(*BASE, leaders=leaders)
    die = 5 - expected[0][1]
    events = assault(p, "attack r1 0405", dice=f"{die + 1},1")   # + a Leader Loss roll of 0
    assert mods(combat(events)) == expected
    (loss,) = [e for e in events if e.kind == "leader_loss"]
    assert loss.outcome["result"] == "no_effect" and loss.section == "TACW §10.8"


def test_10_3_3_morale_difference_highest_attacker_minus_defender():
    p = pos(heavy("r1", R, ["0505"], "W", morale=8), heavy("p1", P, ["0405"], "E", morale=6))
    assert mods(run(p, dice="4")) == [("TACW §10.3.3", 2)]


@pytest.mark.parametrize("att, dfn, value", [(8, 4, 1), (12, 3, 2), (2, 5, -1), (2, 9, -2), (5, 4, 0)])
def test_10_3_4_strength_ratio_rounded_for_the_defender(att, dfn, value):
    p = pos(heavy("r1", R, ["0505"], "W", strength=att), heavy("p1", P, ["0405"], "E", strength=dfn))
    ev = run(p, dice=str(6 - value))
    assert mods(ev) == ([("TACW §10.3.4", value)] if value else [])


def test_10_3_5_cavalry_against_heavy_infantry_counts_half_the_infantry():
    p = pos(cav("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E", strength=8))
    keep_pistols(p)
    ev = run(p, dice="7")                                   # 4 against 8/2: no ratio modifier
    assert mods(ev) == [("TACW §10.3.8", -1)]


@pytest.mark.parametrize("kind, straight, value", [("cavalry", 2, 2), ("heavy", 2, 1), ("cavalry", 1, 0)])
def test_10_3_6_momentum_two_hexes_straight_into_the_combat(kind, straight, value):
    p = pos(unit("r1", R, kind, ["0505"], "W"), unit("p1", P, kind, ["0405"], "E"))
    keep_pistols(p)
    p.st.activation.straight["r1"] = straight               # filled in by the movement engine
    ev = run(p, dice=str(6 - value))
    assert mods(ev) == ([("TACW §10.3.6", value)] if value else [])


@pytest.mark.parametrize("where, facing", [("0404", "SE"), ("0305", "E")])   # flank, rear
def test_10_3_7_plus_one_from_a_flank_or_rear_hex(where, facing):
    p = pos(heavy("r1", R, [where], facing), heavy("p1", P, ["0405"], "E"))
    assert mods(run(p, [f"attack r1 0405"], dice="5")) == [("TACW §10.3.7", 1)]


def test_10_3_7_a_hedgehog_has_no_flank_and_takes_the_hedgehog_column():
    p = pos(heavy("r1", R, ["0404"], "SE"), heavy("p1", P, ["0405"], "E"))
    p.unit("p1").special_formation = "hedgehog"
    assert mods(run(p, ["attack r1 0405"], dice="7")) == [("TACW §10.3.8", -1)]     # D29


@pytest.mark.parametrize("a, d, value", [("heavy", "light", 2), ("light", "heavy", -2), ("cavalry", "light", 2),
                                         ("heavy", "cavalry", 1), ("light", "cavalry", -2)])
def test_10_3_8_close_combat_matrix(a, d, value):
    p = pos(unit("r1", R, a, ["0505"], "W"), unit("p1", P, d, ["0405"], "E"))
    keep_pistols(p)
    assert mods(run(p, dice=str(6 - value))) == [("TACW §10.3.8", value)]


def test_10_3_9_pistols_attacker_plus_one_defender_minus_one_and_shots_spent():
    p = pos(cav("r1", R, ["0505"], "W"), cav("p1", P, ["0405"], "E"))
    assert mods(run(p, dice="6")) == [("TACW §10.3.9", -1), ("TACW §10.3.9", 1)]
    assert p.unit("r1").pistols == 1 and p.unit("p1").pistols == 1


def test_10_3_9_no_shot_left_no_pistol_modifier():
    p = pos(cav("r1", R, ["0505"], "W", pistols=0), cav("p1", P, ["0405"], "E"))
    keep_pistols(p, P)
    assert mods(run(p, dice="6")) == []


@pytest.mark.parametrize("formation, special, value",
                         [("disordered", "", -1), ("broken", "", -2), ("normal", "open", -1)])
def test_10_3_attacker_formation(formation, special, value):
    p = pos(*BASE)
    p.unit("r1").formation, p.unit("r1").special_formation = formation, special
    assert mods(run(p, dice=str(6 - value))) == [("TACW §10.3", value)]


def test_10_3_attacker_just_fired_a_salvo():
    p = pos(*BASE)
    p.unit("r1").salvo_used = True
    p.st.activation.acted.append("r1")                       # its action of this activation
    assert mods(run(p, dice="5")) == [("TACW §10.3", 1)]


@pytest.mark.parametrize("formation, special, value", [("disordered", "", 1), ("broken", "", 2), ("normal", "open", 1)])
def test_10_3_defender_formation(formation, special, value):
    p = pos(*BASE)
    p.unit("p1").formation, p.unit("p1").special_formation = formation, special
    assert mods(run(p, dice=str(6 - value))) == [("TACW §10.3", value)]


@pytest.mark.parametrize("kw, value", [({"terrain": {"wood": ["0405"]}}, -1),
                                       ({"terrain": {"village": ["0405"]}}, -2),
                                       ({"hexsides": [{"hex": "0405", "side": "NE", "type": "stream"}]}, -1)])
def test_10_3_1_terrain_of_the_defenders_hex_and_the_hexside_crossed(kw, value):
    p = pos(*BASE, **kw)
    assert mods(run(p, dice=str(6 - value))) == [("TACW Terrain table", value)]


def test_naseby_bard_attacked_by_cavalry_is_plus_one_to_the_attacker():
    p = pos(cav("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E", strength=8, no_hedgehog=True))
    keep_pistols(p)
    assert mods(run(p, dice="6")) == [("TACW Naseby special rule", 1), ("TACW §10.3.8", -1)]


def test_10_1_4_several_attackers_use_the_modifiers_most_favourable_to_the_defender():
    p = pos(heavy("r1", R, ["0505"], "W"), cav("r2", R, ["0404"], "SE"), heavy("p1", P, ["0405"], "E"))
    p.st.activation.straight.update({"r1": 2, "r2": 2})
    events = assault(p, "attack r1 0405", "attack r2 0405", dice="5")   # 4 + 3 = 7
    ev = combat(events)
    # cavalry's matrix cell (-1), no halving with infantry along (D30): 8 to 4 is +1; r2 on the
    # flank +1; r2's pistol +1; momentum only the heavy infantry's +1 (both have it).
    assert mods(ev) == [("TACW §10.3.4", 1), ("TACW §10.3.6", 1), ("TACW §10.3.7", 1),
                        ("TACW §10.3.8", -1), ("TACW §10.3.9", 1)]
    assert ev.outcome["result"] == "DB2" and ev.inputs["attackers"] == ["r1", "r2"]


# == results (§10.4) ==============================================================================

def test_10_4_1_shaken_retreat_is_orderly_into_rear_hexes_keeping_facing():
    p = pos(*BASE)
    run(p, dice="6")                                         # DS1
    p1 = p.unit("p1")
    assert p1.morale_state == "shaken" and p1.hexes == ["0305"] and p1.facing == 0
    assert p.unit("r1").hexes == ["0505"]                    # DS1: the attacker may not advance
    assert p1.formation == "disordered" and p.unit("r1").formation == "disordered"    # §10.2 E
    assert {"kind": "retreat", "unit": "p1", "path": ["0405", "0305"], "paths": [["0405"], ["0305"]]} \
        in p.st.last_action["items"]
    assert p.st.activation.step == "continuation"


def test_10_4_1_broken_unit_flees_two_hexes_back_to_the_enemy_and_the_attacker_must_advance():
    p = pos(*BASE)
    events = assault(p, "attack r1 0405", dice="8")          # 7: DB2
    p1 = p.unit("p1")
    assert p1.morale_state == "broken" and p1.hexes == ["0204"]
    assert F.relative_bearing(p.sc.grid, p1.hexes, p1.facing, "0405") > 120     # back to the enemy
    assert p.unit("r1").hexes == ["0405"] and p.unit("r1").facing == 3
    assert [e.kind for e in events].count("advance") == 1


def test_10_4_1_orderly_retreat_stays_in_the_rear_hexes_even_beside_a_flank_attacker():
    p = pos(heavy("r1", R, ["0404"], "SE"), heavy("p1", P, ["0405"], "E"), heavy("p2", P, ["0306"], "E"))
    run(p, dice="5")                                         # 4 + 1 (flank) = 5: DS1
    # 0406 would be farther from r1, but it is a flank hex: the one rear hex left is 0305
    assert p.unit("p1").hexes == ["0305"] and p.unit("p1").facing == 0


def test_10_4_4_both_hexes_of_a_double_retreat_and_a_double_advances_into_both():
    p = pos(heavy("r1", R, ["0505", "0506"], "W"), heavy("p1", P, ["0405", "0406"], "E"))
    run(p, dice="6")                                         # DS1
    assert p.unit("p1").hexes == ["0305", "0306"] and p.unit("r1").hexes == ["0505", "0506"]
    p = pos(heavy("r1", R, ["0505", "0506"], "W"), heavy("p1", P, ["0405", "0406"], "E"))
    run(p, dice="7")                                         # DS2: both halves advance
    assert p.unit("p1").hexes == ["0204", "0205"] and p.unit("r1").hexes == ["0405", "0406"]


def test_10_4_2_shaken_on_a_shaken_unit_is_broken():
    p = pos(*BASE)
    p.unit("p1").morale_state = "shaken"                    # morale 6 now: +1
    events = assault(p, "attack r1 0405", dice="5")          # 4 + 1 = 5: DS1 -> Broken
    assert p.unit("p1").morale_state == "broken" and len(p.unit("p1").hexes) == 1
    assert [e for e in events if e.kind == "retreat"][0].outcome["path"][-1] == ["0204"]


def test_10_4_2_an_attacker_shaken_again_is_broken():
    p = pos(*BASE)
    p.unit("r1").morale_state = "shaken"                    # 6 against 7: -1
    run(p, dice="6")                                         # 5 - 1 = 4: AS1 -> Broken, 2 hexes
    r1 = p.unit("r1")
    assert r1.morale_state == "broken" and r1.hexes == ["0704"]


def test_10_4_2_any_adverse_result_on_a_broken_unit_eliminates_it():
    p = pos(*BASE)
    p.unit("p1").morale_state = "broken"                    # morale 1: +6
    run(p, dice="1")                                         # 0 + 6: DS2 -> eliminated
    assert p.unit("p1").status == "eliminated" and p.unit("r1").hexes == ["0405"]


def test_10_4_attacker_eliminated_and_the_defender_holds_by_default():
    p = pos(*BASE)
    run(p, dice="1")                                         # 0: AE
    assert p.unit("r1").status == "eliminated" and p.unit("p1").hexes == ["0405"]


def test_10_4_6_the_defender_may_advance_by_policy():
    p = pos(*BASE)
    p.st.policies[P]["advance_after_combat"] = "advance"
    run(p, dice="4")                                         # 3: AS2
    assert p.unit("r1").hexes == ["0704"] and p.unit("p1").hexes == ["0505"]


def test_10_4_6_highest_morale_attacker_advances_after_ds2():
    p = pos(heavy("r1", R, ["0505"], "W"), heavy("r2", R, ["0404"], "SE", morale=8), heavy("p1", P, ["0405"], "E"))
    ev = combat(assault(p, "attack r1 0405", "attack r2 0405", dice="4"))     # 3 + 3 = 6: DS2
    assert ev.outcome["result"] == "DS2"
    assert p.unit("r2").hexes == ["0405"] and p.unit("r1").hexes == ["0505"]


def test_10_4_8_a_double_wheels_one_flank_into_a_single_vacated_hex():
    p = pos(heavy("r1", R, ["0505", "0506"], "W"), heavy("p1", P, ["0405"], "E"))
    run(p, dice="7")                                         # 6: DS2
    r1 = p.unit("r1")
    assert sorted(r1.hexes) == ["0405", "0505"] and r1.facing in F.double_facings(p.sc.grid, "0505", "0405")
    assert r1.facing == 4                                    # NW: the nearer of its two facings


def test_10_4_10_terrain_formation_hit_on_advancing_in_addition():
    p = pos(*BASE, terrain={"wood": ["0405"]})
    run(p, dice="8")                                         # 7 - 1 (wood) = 6: DS2
    assert p.unit("r1").hexes == ["0405"] and p.unit("r1").formation == "broken"


@pytest.mark.parametrize("policy", ["auto", "ask"])
def test_10_4_9_the_advance_draws_reaction_fire_but_not_from_the_unit_that_retreated(policy):
    p = pos(*BASE, heavy("p2", P, ["0306"], "E"))
    p.st.policies[P]["reaction_fire"] = policy               # "ask" is read as "auto" in combat
    events = assault(p, "attack r1 0405", dice="7,1")        # DS2; p2's musket: a 0, a miss
    assert p.unit("r1").hexes == ["0405"] and p.unit("p1").hexes == ["0204"]
    shots = [e for e in events if e.kind == "fire"]
    assert [s.inputs["firer"] for s in shots] == ["p2"] and p.st.pending is None
    assert p.st.policies[P]["reaction_fire"] == policy


# == blocked retreats (§10.4.3 - §10.4.5) =========================================================

@pytest.mark.parametrize("face, result", [(7, "eliminated"), (9, "remains")])
def test_10_4_5_broken_unit_that_cannot_retreat_rolls_retreat_impossible(face, result):
    p = pos(heavy("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E", morale=6),
            heavy("p2", P, ["0305"], "E"), heavy("p3", P, ["0306"], "E"), heavy("p4", P, ["0406"], "E"))
    events = assault(p, "attack r1 0405", dice=f"7,{face}")   # 6 + 1 (morale) = 7: DB2
    (imp,) = [e for e in events if e.kind == "retreat_impossible"]
    assert imp.modifiers[0].value == -2 and imp.outcome["result"] == result    # base morale 6
    if result == "eliminated":
        assert p.unit("p1").status == "eliminated" and p.unit("r1").hexes == ["0405"]
    else:
        assert p.unit("p1").hexes == ["0405"] and p.unit("r1").hexes == ["0505"]


def _flee(p, uid, threat):
    stream = DiceStream(p.st.seed, p.st.draws, [], strict=True)      # no die may be rolled
    return retreat.retreat_unit(p.sc, p.st, p.unit(uid), 2, "broken", stream, threat=threat)


def test_10_4_1_broken_unit_beset_on_front_and_both_flanks_flees_through_its_open_rear():
    """§10.4.1 "si gira e fugge, spalle al nemico"; §10.4.5 the Retreat Impossible table is for a
    unit that "non si può ritirare per il raggruppamento o unità nemiche" (§11.4.3: "o terreno").
    p1 in 0405 facing E, attacked from 0505 (front), 0404 and 0406 (flanks), rear 0305/0306 empty:
    nothing blocks it, so it flees two hexes and rolls no die (D76)."""
    p = pos(heavy("r1", R, ["0505"], "W"), heavy("r2", R, ["0404"], "SE"), heavy("r3", R, ["0406"], "NE"),
            heavy("p1", P, ["0405"], "E"), close=False)
    events = _flee(p, "p1", ["0505", "0404", "0406"])
    p1 = p.unit("p1")
    assert [e.kind for e in events] == ["retreat"] and p1.alive
    path = events[0].outcome["path"]
    assert path[1] in (["0305"], ["0306"]) and len(path) == 3       # through a rear hex, 2 hexes
    grid = p.sc.grid
    assert all(grid.distance(p1.hexes[0], h) >= 2 for h in ("0505", "0404", "0406"))
    assert F.relative_bearing(grid, p1.hexes, p1.facing, "0505") > 120  # back to the enemy


def test_10_4_1_a_broken_unit_does_not_flee_sideways_along_the_enemys_front():
    """Fleeing is going away: a hex that takes it farther from no enemy (0404 or 0506, both still
    beside r1) is not a retreat hex; with its rear held by friends it rolls on the table."""
    p = pos(heavy("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E"), heavy("p2", P, ["0305"], "E"),
            heavy("p3", P, ["0306"], "E"), heavy("p4", P, ["0406"], "E"), close=False)
    stream = DiceStream(p.st.seed, p.st.draws, [10], strict=True)
    events = retreat.retreat_unit(p.sc, p.st, p.unit("p1"), 2, "broken", stream, threat=["0505"])
    assert [e.kind for e in events] == ["retreat_impossible"] and p.unit("p1").hexes == ["0405"]


def test_10_4_5_shaken_unit_loses_one_sp_per_hex_it_cannot_retreat():
    p = pos(*BASE, heavy("p2", P, ["0305"], "E"), heavy("p3", P, ["0306"], "E"))
    run(p, dice="7")                                         # DS2, both rear hexes held by friends
    p1 = p.unit("p1")
    assert p1.hexes == ["0405"] and p1.casualties == 2 and p1.at_threshold
    assert p.unit("r1").hexes == ["0505"]                    # nothing vacated, no advance


def test_10_4_5_shaken_unit_blocked_after_one_hex_loses_one_sp():
    p = pos(*BASE, heavy("p2", P, ["0204"], "E"), heavy("p3", P, ["0205"], "E"))
    run(p, dice="7")                                         # DS2: 0305, then blocked
    assert p.unit("p1").hexes == ["0305"] and p.unit("p1").casualties == 1


def test_9_9_9_retreat_through_friendly_artillery_disables_it():
    p = pos(*BASE, unit("g1", P, "artillery", ["0305"], "E"), heavy("p2", P, ["0306"], "E"))
    run(p, dice="7")                                         # DS2: through the guns at 0305
    events = p.events
    assert p.unit("p1").hexes == ["0204"] and p.unit("g1").gun_state == "disabled"
    assert any(e.kind == "disabled" and e.section == "TACW §9.9.9" for e in events)


def test_8_2_light_infantry_stacked_with_cavalry_is_ignored_but_retreats_with_it():
    p = pos(heavy("r1", R, ["0505"], "W"), cav("p1", P, ["0405"], "E"), unit("p2", P, "light", ["0405"], "E"))
    ev = run(p, dice="6")       # heavy vs cavalry +1, defending pistol -1: 5, DS1
    assert mods(ev) == [("TACW §10.3.8", 1), ("TACW §10.3.9", -1)]
    p1, p2 = p.unit("p1"), p.unit("p2")
    assert p1.hexes == p2.hexes == ["0305"] and p2.morale_state == "shaken" and p2.formation == "disordered"


def test_retreat_off_the_map_eliminates():
    p = pos(heavy("r1", R, ["0205"], "W"), heavy("p1", P, ["0105"], "E"))
    run(p, ["attack r1 0105"], dice="7")                     # DS2: no hex left but off the map
    assert p.unit("p1").status == "eliminated"
    assert p.unit("r1").hexes == ["0105"]


def test_5_2_2_a_stacked_leader_retreats_with_the_unit():
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", -1, "r-a", "rhq"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", 0, "p-a", "p1")]
    p = pos(*BASE, leaders=leaders)
    assault(p, "attack r1 0405", dice="6,1")                 # DS1, leader loss 0
    assert p.st.leaders["p-wc"].hex == "0305" == p.unit("p1").hexes[0]


# == artillery and light infantry (§10.5, §10.6), leaders (§5.3.1, §10.8) ========================

def test_10_5_1_artillery_alone_is_captured_without_a_roll():
    p = pos(heavy("r1", R, ["0505"], "W"), unit("g1", P, "artillery", ["0405"], "E"))
    events = assault(p, "attack r1 0405")
    g1 = p.unit("g1")
    assert g1.gun_state == "captured" and g1.captured_by == R
    assert p.unit("r1").hexes == ["0405"] and p.unit("r1").formation == "normal"
    assert not [e for e in events if e.dice]
    assert victory.victory_points(p.sc, p.st)[R].get("guns captured") == 10


def test_10_5_2_stacked_artillery_is_captured_when_its_unit_loses():
    p = pos(*BASE, unit("g1", P, "artillery", ["0405"], "E"))
    run(p, dice="6")                                         # DS1: the gun counts for nothing
    assert p.unit("g1").gun_state == "captured" and p.unit("g1").hexes == ["0405"]
    assert p.unit("p1").hexes == ["0305"]


def test_10_5_2_stacked_artillery_stays_with_a_winning_unit():
    p = pos(*BASE, unit("g1", P, "artillery", ["0405"], "E"))
    run(p, dice="5")                                         # 4: AS1
    assert p.unit("g1").gun_state == ""


def test_10_6_one_sp_light_infantry_alone_is_eliminated_automatically():
    p = pos(heavy("r1", R, ["0505"], "W"), unit("p1", P, "light", ["0405"], "E", strength=1))
    events = assault(p, "attack r1 0405")
    assert p.unit("p1").status == "eliminated" and p.unit("r1").hexes == ["0405"]
    assert p.unit("r1").formation == "normal" and not [e for e in events if e.dice]


def test_10_6_except_against_another_one_sp_light_infantry():
    p = pos(unit("r1", R, "light", ["0505"], "W", strength=1), unit("p1", P, "light", ["0405"], "E", strength=1))
    ev = run(p, dice="6")
    assert ev.outcome["result"] == "DS1" and p.unit("p1").alive


def test_10_8_leader_loss_on_a_nine():
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", 0, "r-a", "r1"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", 0, "p-a", "phq")]
    p = pos(*BASE, leaders=leaders)
    events = assault(p, "attack r1 0405", dice="6,10")       # DS1, then a 9
    (loss,) = [e for e in events if e.kind == "leader_loss"]
    assert loss.row == "9" and loss.outcome["result"] == "removed"
    assert p.st.leaders["r-wc"].status == "removed"


def test_10_8_leader_loss_also_after_an_automatic_capture():
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", 0, "r-a", "r1"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", 0, "p-a", "phq")]
    p = pos(heavy("r1", R, ["0505"], "W"), unit("g1", P, "artillery", ["0405"], "E"), leaders=leaders)
    events = assault(p, "attack r1 0405", dice="10")          # no combat roll; the leader's 9
    assert [e.kind for e in events if e.dice] == ["leader_loss"]
    assert p.st.leaders["r-wc"].status == "removed" and p.unit("g1").gun_state == "captured"


def test_10_8_a_leader_stacked_with_an_eliminated_unit_is_removed():
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", 0, "r-a", "rhq"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", 0, "p-a", "p1")]
    p = pos(*BASE, leaders=leaders)
    p.unit("p1").morale_state = "broken"
    assault(p, "attack r1 0405", dice="1")                   # DS2 on a Broken unit: eliminated
    assert p.st.leaders["p-wc"].status == "removed"


def test_5_3_1_a_leader_alone_assaulted_is_removed():
    p = pos(heavy("r1", R, ["0505"], "W"))
    p.st.leaders["p-ac"].hex = "0405"
    events = assault(p, "attack r1 0405")
    assert p.st.leaders["p-ac"].status == "removed"
    assert any(e.section == "TACW §5.3.1" for e in events)


# == cavalry pursuit (§10.7) =====================================================================

def pursuit_position(**kw):
    p = pos(cav("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E"), **kw)
    keep_pistols(p)
    return p


def test_10_7_2_a_break_contact_then_a_normal_advance():
    p = pursuit_position()
    events = assault(p, "attack r1 0405", dice="8,1")        # 7 -1 +1 = 7: DB2; pursuit 0 +1
    (pur,) = [e for e in events if e.kind == "pursuit"]
    assert pur.outcome["result"] == "break_contact" and mods_of(pur) == [("TACW §10.7.5", 1)]
    assert p.unit("r1").hexes == ["0405"] and p.unit("p1").hexes == ["0204"]


def mods_of(ev):
    return sorted((m.section, m.value) for m in ev.modifiers)


def test_10_7_2_b_pursue_and_eliminate_along_the_retreat_path():
    p = pursuit_position()
    assault(p, "attack r1 0405", dice="8,4")                 # pursuit 3 + 1 = 4
    assert p.unit("p1").status == "eliminated" and p.unit("r1").hexes == ["0204"]
    item = [i for i in p.st.last_action["items"] if i.get("unit") == "r1" and i["kind"] == "move"][0]
    assert item["path"] == ["0505", "0405", "0305", "0204"]


def test_10_7_2_c_pursue_off_the_map_no_vp_and_the_leader_goes_too():
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", 0, "r-a", "r1"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", 0, "p-a", "phq")]
    p = pursuit_position(leaders=leaders)
    assault(p, "attack r1 0405", dice="8,7")                 # pursuit 6 + 1 = 7: off the map
    r1 = p.unit("r1")
    assert r1.status == "off_map" and r1.hexes == [] and p.unit("p1").status == "eliminated"
    assert p.st.leaders["r-wc"].status == "removed"          # may return (§5.3.3)
    vp = victory.victory_points(p.sc, p.st)
    assert "cavalry eliminated" not in vp[P] and vp[R]["heavy eliminated"] == 5


def test_10_7_4_pursue_and_eliminate_an_eliminated_unit_is_break_contact():
    p = pursuit_position()
    p.unit("p1").morale_state = "broken"                     # morale 1: +6
    events = assault(p, "attack r1 0405", dice="4,4")        # 3 +6 -1 +1 = 9: DE; pursuit 3 + 1
    (pur,) = [e for e in events if e.kind == "pursuit"]
    assert pur.outcome["result"] == "break_contact" and p.unit("r1").hexes == ["0405"]


def test_10_7_5_momentum_and_cromwell():
    p = pursuit_position()
    p.st.activation.straight["r1"] = 2
    p.st.leaders["r-ac"].special = "cromwell"
    p.st.leaders["r-ac"].hex = "0605"                        # adjacent to r1
    events = assault(p, "attack r1 0405", dice="6,3")        # 5 -1 +1 +2 = 7: DB2; pursuit 2+1+1-2
    (pur,) = [e for e in events if e.kind == "pursuit"]
    assert mods_of(pur) == [("TACW §10.7.5", -2), ("TACW §10.7.5", 1), ("TACW §10.7.5", 1)]
    assert pur.outcome["result"] == "break_contact"


def test_10_7_1_no_pursuit_of_light_infantry():
    p = pos(cav("r1", R, ["0505"], "W"), unit("p1", P, "light", ["0405"], "E"))
    keep_pistols(p)
    events = assault(p, "attack r1 0405", dice="6")          # 5 + 2 (matrix) = 7: DB2
    assert not [e for e in events if e.kind == "pursuit" and e.dice]
    assert p.unit("r1").hexes == ["0405"] and p.unit("p1").alive


def test_10_7_defending_cavalry_pursues_a_routed_attacker():
    p = pos(heavy("r1", R, ["0505"], "W"), cav("p1", P, ["0405"], "E"))
    keep_pistols(p)
    events = assault(p, "attack r1 0405", dice="2,5")        # 1 + 1 (matrix) = 2: AB2; pursuit 4
    (pur,) = [e for e in events if e.kind == "pursuit" and e.dice]
    assert pur.outcome["result"] == "pursue_eliminate" and p.unit("r1").status == "eliminated"
    assert p.unit("p1").hexes == ["0704"]                   # where r1's flight ended


# == reaction attacks (§10.2 B-C) ================================================================

def reaction_position():
    return pos(heavy("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E"), heavy("p2", P, ["0506"], "NW"))


def test_10_2_the_close_combat_step_ends_in_the_continuation_step():
    p = pos(*BASE)
    p.go(R, "attack r1 0405")
    refused(p, P, "counter none", "waiting for Royalist")
    refused(p, R, "counter none", "no reaction attack decision")
    p.go(R, "attack none")
    assert p.st.pending is None
    events = p.go(R, "resolve")                               # nothing designated: no die
    assert not [e for e in events if e.dice] and p.st.activation.step == "continuation"
    refused(p, R, "attack r1 0405", "use `close` first")
    p.go(R, "stop")
    assert p.st.activation is None


def test_10_2_b_no_reaction_attacks_by_default():
    p = reaction_position()
    events = assault(p, "attack r1 0405", dice="6")
    assert p.st.pending is None and len([e for e in events if e.kind == "close_combat" and e.dice]) == 1


def test_10_2_b_reaction_attack_asked_and_resolved_first():
    p = reaction_position()
    p.st.policies[P]["reaction_attack"] = "ask"
    p.go(R, "attack r1 0405")
    p.go(R, "resolve")
    pend = p.st.pending
    assert pend["kind"] == "reaction_attack" and pend["side"] == P
    assert pend["options"] == ["p2 0505", "none"]            # p1 is a designated defender
    refused(p, P, "counter p1 0505", "designated as a defender")
    refused(p, R, "stop", "waiting")
    events = p.go(P, "counter p2 0505 dice=6")               # 5 + 1 (r1's flank) = 6: DS2 on r1
    fights = [e for e in events if e.kind == "close_combat"]
    assert fights[0].inputs["attackers"] == ["p2"] and fights[0].outcome["result"] == "DS2"
    assert "can no longer assault" in fights[1].narrative    # r1 fell back: its attack is off
    assert p.unit("p2").hexes == ["0505"] and p.unit("p1").hexes == ["0405"]
    assert p.st.pending is None and p.st.activation.step == "continuation"


def test_10_2_b_counter_none_resolves_the_active_attacks():
    p = reaction_position()
    p.st.policies[P]["reaction_attack"] = "ask"
    p.go(R, "attack r1 0405")
    p.go(R, "resolve")
    events = p.go(P, "counter none dice=6")
    assert combat(events).inputs["attackers"] == ["r1"]


def test_policy_verbs_set_the_close_combat_policies():
    p = pos(*BASE)
    p.go(P, "policy counter ask")
    p.go(P, "policy advance advance")
    p.go(R, "policy pistols keep")
    assert p.st.policies[P]["reaction_attack"] == "ask"
    assert p.st.policies[P]["advance_after_combat"] == "advance"
    assert p.st.policies[R]["close_combat_pistols"] == "keep"


# == column (§6.3.4), interception (§7.5) ========================================================

def test_6_3_4_a_column_assaulted_goes_f_broken_and_checks_morale_first():
    p = pos(*BASE)
    p.unit("p1").special_formation = "column"
    events = assault(p, "attack r1 0405", dice="1,4")        # MC 0 passed; 3 + 2 = 5: DS1
    kinds = [e.kind for e in events]
    assert kinds.index("morale_check") < kinds.index("close_combat")
    assert mods(combat(events)) == [("TACW §10.3", 2)]
    assert p.unit("p1").special_formation == ""


def test_7_5_immediate_close_combat_for_interception():
    p = pos(*BASE, close=False)
    st = p.st.copy()
    stream = DiceStream(st.seed, st.draws, [7], strict=True)
    events = melee.immediate_close_combat(p.sc, st, st.units["r1"], "0405", stream)
    assert combat(events).outcome["result"] == "DS2" and st.units["r1"].hexes == ["0405"]
    before = st.state_hash()
    (ev,) = melee.immediate_close_combat(p.sc, st, st.units["r1"], "0404", stream)   # no die drawn
    assert ev.outcome["refused"] and "front hexes" in ev.narrative and st.state_hash() == before


# == rout (§12.4) ================================================================================

def rout(p, uid, faces=()):
    stream = DiceStream(p.st.seed, p.st.draws, list(faces), strict=True)
    return retreat.rout_move(p.sc, p.st, p.unit(uid), stream)


def test_12_4_1_rout_turns_to_the_friendly_edge_and_uses_the_full_allowance():
    p = pos(heavy("r1", R, ["0505"], "W"), cav("r2", R, ["0508"], "W"), close=False)
    for uid in ("r1", "r2"):
        p.unit(uid).morale_state = "broken"
    ev = rout(p, "r1")
    (turn,) = [e for e in ev if e.kind == "facing"]
    assert turn.outcome["mp"] == 2 and ev[0].outcome["mp"] == 4                    # countermarch
    assert p.unit("r1").facing == 0 and p.unit("r1").hexes == ["0704"]               # 2 MP left
    rout(p, "r2")
    assert p.unit("r2").hexes[0][:2] == "11"                  # cavalry: 2 MP to turn, 6 hexes east
    assert p.unit("r2").casualties == 0


def test_12_4_2_a_blocked_rout_loses_one_sp_per_mp_unused():
    p = pos(heavy("r1", R, ["0505"], "E", strength=6), heavy("r2", R, ["0605"], "E"),
            heavy("r3", R, ["0604"], "E"), close=False)
    p.unit("r1").morale_state = "broken"
    events = rout(p, "r1")
    assert p.unit("r1").hexes == ["0505"] and p.unit("r1").casualties == 4
    assert any(e.section == "TACW §12.4.2" for e in events)


def test_12_4_3_routing_off_the_map_eliminates():
    p = pos(cav("r1", R, ["1805"], "E"), close=False)
    p.unit("r1").morale_state = "broken"
    rout(p, "r1")
    assert p.unit("r1").status == "eliminated"
    assert victory.victory_points(p.sc, p.st)[P]["cavalry eliminated"] == 10


def test_12_4_rout_phase_moves_every_broken_unit_but_artillery():
    p = pos(heavy("r1", R, ["0505"], "E"), unit("g1", R, "artillery", ["0808"], "W"), close=False)
    p.unit("r1").morale_state = "broken"
    p.unit("g1").morale_state = "broken"
    stream = DiceStream(p.st.seed, p.st.draws, [], strict=True)
    endturn.rout_phase(p.sc, p.st, stream)
    assert p.unit("r1").hexes != ["0505"] and p.unit("g1").hexes == ["0808"]


def test_12_4_rout_disables_friendly_artillery_it_passes():
    p = pos(heavy("r1", R, ["0505"], "E"), unit("g1", R, "artillery", ["0605"], "E"),
            heavy("r3", R, ["0604"], "E"), close=False)
    p.unit("r1").morale_state = "broken"
    rout(p, "r1")
    assert p.unit("g1").gun_state == "disabled" and p.unit("r1").hexes[0] != "0505"
