"""Jours de Gloire artillery fire [7], counter-battery [7.6], reaction fire [8.3], night [12] and
the optional misdirected fire [7] and infantry reaction fire [8.3], on Marengo positions.

Dice: `dice=` gives die faces 1-based, so a d10 read r (0-9, [0.4]) is supplied as r + 1.
Facing (flat map): 0 E, 1 SE, 2 SW, 3 W, 4 NW, 5 NE. Around 1216: E front 1317+1316.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.jdg import tables
from engine.jdg.fire import artillery, sight
from engine.jdg.ruleset import JDG
from engine.jdg.scenario import Hexside
from engine.jdg.state import Activation

E, SE, SW, W, NW, NE = range(6)


def marengo(seed=1, options=None, empty=True):
    """Marengo at the start; `empty`: every unit taken off the map, to place only the test's."""
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, seed, options)
    if empty:
        for u in st.units.values():
            u.hex, u.status = None, "off_map"
    return sc, st


def place(st, uid, hex_id, facing, condition="good", square=False):
    u = st.units[uid]
    u.hex, u.facing, u.condition, u.status, u.square = hex_id, facing, condition, "active", square
    return u


def activate(st, side, *formations, step="fire"):
    st.phase = "activation"
    st.activation = Activation(f"{formations[0]}-1", side, list(formations), step=step, with_orders=True)


def fire(sc, st, line, side="austrian"):
    return JDG.apply(sc, st, side, parse(line))


def the_fire(events):
    return [e for e in events if e.kind == "fire"]


def drm(event, key_word):
    return [m.value for m in event.modifiers if key_word in m.reason]


def hadik_battery(sc, st, at="1216", facing=E):
    """Austrian Art. Hadik (firepower 4, effective 3, maximum 6) of the active formation."""
    place(st, "a-art-hadik", at, facing)
    activate(st, "austrian", "hadik-kaim")
    return st.units["a-art-hadik"]


def with_map(sc, **changes):
    """The Marengo scenario with a changed map (elevation, hexsides) for a test."""
    return replace(sc, map=replace(sc.map, **changes))


# == range [7.3] ===============================================================================

def test_range_counts_from_the_hex_after_the_firer_to_the_target_and_its_bands():
    """[7.3]: range from the firer (excluded) to the target (included); adjacent is point-blank
    [7.4]; up to the effective range 'effective', then 'maximum' (Fire Table -2, Herald), beyond
    the maximum nothing (D34)."""
    sc, st = marengo()
    assert sight.fire_range(sc, "1216", "1316") == 1
    assert sight.range_band(sc, "a-art-hadik", "1216", "1316") == "point_blank"
    assert sight.range_band(sc, "a-art-hadik", "1216", "1516") == "effective"     # 3 hexes
    assert sight.range_band(sc, "a-art-hadik", "1216", "1616") == "maximum"       # 4 hexes
    assert sight.range_band(sc, "a-art-hadik", "1216", "1816") == "maximum"       # 6 hexes
    assert sight.range_band(sc, "a-art-hadik", "1216", "1916") is None            # 7 hexes


def test_fire_at_maximum_range_has_the_minus_2_and_beyond_it_is_refused():
    """[7.3], [7.5]: a target at 5 hexes (maximum range 6) is fired at with the -2 of the
    maximum range; at 7 hexes the fire is refused and the game is unchanged."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1716", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 1716 dice=10,1")      # d10 9; the CC 0 passes
    f = the_fire(ev)[0]
    assert drm(f, "beyond effective range") == [-2]
    assert f.outcome["total"] == 9 + 4 - 2 and f.outcome["result"] == "check"
    place(st, "f-44e", "1916", W)
    before = st.to_dict()
    with pytest.raises(Illegal, match=r"beyond its maximum range of 6.*\[7\.3\]"):
        fire(sc, st, "fire a-art-hadik 1916 dice=10")
    assert st.to_dict() == before


# == line of fire [7.4] ========================================================================

def test_a_unit_in_between_blocks_the_line_friend_or_foe():
    """[7.4]: units, enemy or friendly, in a hex between block the line of fire."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    assert sight.line_of_sight(sc, st, "1216", "1516")[0]
    place(st, "a-ir52", "1416", E)                   # a friendly unit between
    clear, why = sight.line_of_sight(sc, st, "1216", "1516")
    assert not clear and "1416" in why and "a-ir52" in why
    before = st.to_dict()
    with pytest.raises(Illegal, match=r"no line of fire.*1416.*\[7\.4\]"):
        fire(sc, st, "fire a-art-hadik 1516 dice=5")
    assert st.to_dict() == before


def test_woods_between_block_and_a_target_in_woods_is_seen_with_the_cover_drm():
    """[7.4]: a wood between the artillery and the target blocks (the Marengo riverside woods,
    0317); the target's own wood hex does not block but gives the TET fire DRM."""
    sc, st = marengo()
    clear, why = sight.line_of_sight(sc, st, "0517", "0217")
    assert not clear and "0317" in why and "woods" in why
    assert sight.line_of_sight(sc, st, "0516", "0216")[0]
    place(st, "a-art-hadik", "0516", W)
    activate(st, "austrian", "hadik-kaim")
    place(st, "f-44e", "0216", E)
    st2, ev = fire(sc, st, "fire a-art-hadik 0216 dice=1")
    assert drm(the_fire(ev)[0], "bosco") == [tables.TERRAIN["woods"].fire_drm]


def test_a_higher_hex_between_blocks_and_a_line_along_one_blocking_hex_does_not():
    """[7.4]: a hex higher than both the artillery and the target blocks; a line running exactly
    along the side of one blocking hex is not blocked, along two (one each side) it is."""
    sc, st = marengo()
    hill = with_map(sc, elevation={"1416": 1})
    clear, why = sight.line_of_sight(hill, st, "1216", "1516")
    assert not clear and "higher than both" in why
    # 1216 -> 1416 runs along the side between 1317 and 1316
    place(st, "f-101e", "1316", W)
    assert sight.line_of_sight(sc, st, "1216", "1416")[0]
    place(st, "f-43e", "1317", W)
    clear, why = sight.line_of_sight(sc, st, "1216", "1416")
    assert not clear and "both blocking" in why


def test_elevation_the_san_giuliano_rise_sees_over_a_unit_at_half_way_not_beyond():
    """[7.4] Ostacoli e altitudine: artillery on the San Giuliano rise (2812, level 1) firing at
    2412 (level 0, 4 hexes) ignores a unit at half way (2612) but not one nearer the target
    (both 2513 and 2512, the line running between them)."""
    sc, st = marengo()
    assert sc.map.level("2812") == 1 and sc.map.level("2412") == 0
    place(st, "f-44e", "2612", W)
    assert sight.line_of_sight(sc, st, "2812", "2412")[0]
    place(st, "f-44e", "2513", W)
    place(st, "f-101e", "2512", W)
    assert not sight.line_of_sight(sc, st, "2812", "2412")[0]


def test_firing_uphill_has_the_minus_1():
    """[7.4] levels; Fire Table 'target uphill' -1 (Herald completion): a battery at 2412 firing at
    the rise (2712, level 1)."""
    sc, st = marengo()
    place(st, "a-art-hadik", "2412", E)
    activate(st, "austrian", "hadik-kaim")
    place(st, "f-44e", "2712", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 2712 dice=1")
    assert drm(the_fire(ev)[0], "higher level") == [-1]


def test_a_crest_hexside_blocks_even_point_blank_fire():
    """[7.4]: crest hexsides block the line; point-blank fire is always possible except across a
    crest or steep slope (Tiro ad alzo zero)."""
    sc, st = marengo()
    crest = Hexside("1216", "NE", "1316", "crest")
    far = Hexside("1416", "NE", "1516", "crest")
    hilly = with_map(sc, hexsides={**sc.map.hexsides, frozenset(("1216", "1316")): (crest,),
                                   frozenset(("1416", "1516")): (far,)})
    clear, why = sight.line_of_sight(hilly, st, "1216", "1316")
    assert not clear and "crest" in why and "point-blank" in why
    clear, why = sight.line_of_sight(hilly, st, "1316", "1616")
    assert not clear and "crest between 1416 and 1516" in why


def test_a_trench_blocks_unless_it_is_a_side_of_the_firer_or_target_hex():
    """[7.4]: trench hexsides block the line, except when the artillery or the target is next to
    them (the Austrian bridgehead's works); a target behind one has the TET's fire DRM."""
    sc, st = marengo()
    assert "trench" in sc.map.features("0210", "0310")
    assert sight.line_of_sight(sc, st, "0510", "0210")[0]          # the trench is a side of 0210
    clear, why = sight.line_of_sight(sc, st, "0410", "0110")        # it is not a side of 0410, 0110
    assert not clear and "trench between 0310 and 0210" in why
    assert sight.hexside_into_target(sc, "0510", "0210") == "trench"
    place(st, "f-art-chambarlhac", "0510", W)
    activate(st, "french", "chambarlhac")
    place(st, "a-ir52", "0210", E)
    st2, ev = fire(sc, st, "fire f-art-chambarlhac 0210 dice=1", side="french")
    assert drm(the_fire(ev)[0], "trincea") == [tables.TERRAIN["trench"].fire_drm]


# == front [6.1], [7.2] ========================================================================

def test_artillery_fires_only_through_its_frontal_hexes_and_may_turn_60_degrees_first():
    """[6.1], [7.2]: fire only through the two frontal hexes; a turn in place of 60 degrees before
    firing is allowed (not movement), 120 is not."""
    sc, st = marengo()
    hadik_battery(sc, st, facing=E)
    place(st, "f-44e", "1117", E)                       # adjacent, south-west: a flank hex
    before = st.to_dict()
    with pytest.raises(Illegal, match=r"not in front.*\[6\.1\], \[7\.2\]"):
        fire(sc, st, "fire a-art-hadik 1117 dice=1")
    with pytest.raises(Illegal, match=r"at most 60 degrees.*120"):
        fire(sc, st, "fire a-art-hadik 1117 face sw dice=1")  # E -> SW is two vertices
    assert st.to_dict() == before
    st.units["a-art-hadik"].facing = SE
    st2, ev = fire(sc, st, "fire a-art-hadik 1117 face sw dice=1")
    assert st2.units["a-art-hadik"].facing == SW
    assert [e.kind for e in ev][:2] == ["turn", "fire"]


def test_at_range_the_line_must_leave_through_a_frontal_hex():
    """[6.1], [7.2], HERALD D83: facing E from 1216, 1516 (straight ahead) is in front, 1214 (due
    north) is not."""
    sc, st = marengo()
    u = hadik_battery(sc, st, facing=E)
    assert sight.in_fire_arc(sc, u, "1516")
    assert not sight.in_fire_arc(sc, u, "1214")


def test_the_bridgehead_artillery_fires_all_round():
    """Marengo D: the Ott bridgehead artillery has six frontal hexes and fires in any direction."""
    sc, st = marengo()
    place(st, "a-art-bridgehead", "0209", E)
    activate(st, "austrian", "ott")
    place(st, "f-44e", "0208", E)                        # north, behind its facing
    st2, ev = fire(sc, st, "fire a-art-bridgehead 0208 dice=1")
    assert the_fire(ev)[0].inputs["range_band"] == "point_blank"


def test_an_enemy_in_a_frontal_hex_must_be_the_target():
    """[7.2], HERALD D33: artillery with an enemy unit in a frontal hex must fire at it."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1316", W)
    place(st, "f-101e", "1616", W)
    assert artillery.obliged_to_fire(sc, st) == [("a-art-hadik", ["1316"])]
    with pytest.raises(Illegal, match=r"must fire at it.*\[7\.2\]"):
        fire(sc, st, "fire a-art-hadik 1616 dice=1")


# == point-blank, combined fire, the bands [7.1], [7.5] ========================================

def test_point_blank_fire_has_its_plus_1():
    """[7.4] tiro ad alzo zero at an adjacent hex: Fire Table +1 (Herald completion)."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1316", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 1316 dice=4")          # d10 3
    f = the_fire(ev)[0]
    assert drm(f, "point-blank") == [1]
    assert f.outcome["total"] == 3 + 4 + 1 and f.outcome["result"] == "none"
    assert st2.units["a-art-hadik"].fired and "a-art-hadik" in st2.activation.fired


def test_combined_fire_takes_the_better_firepower_plus_2():
    """[7.1]: two artillery units of one formation in one hex combine: the higher firepower +2,
    one roll; both have fired."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "a-art-kaim", "1216", E)
    place(st, "f-44e", "1516", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 with a-art-kaim dice=3")   # d10 2
    f = the_fire(ev)[0]
    assert f.base == 4 and drm(f, "combine") == [2]
    assert f.outcome["total"] == 2 + 4 + 2
    assert st2.units["a-art-hadik"].fired and st2.units["a-art-kaim"].fired


def test_combined_fire_needs_one_formation_and_one_hex():
    """[7.1]: only artillery of the same formation, in the same hex, combines."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "a-art-ott", "1216", E)
    place(st, "a-art-kaim", "1217", E)
    place(st, "f-44e", "1516", W)
    activate(st, "austrian", "hadik-kaim", "ott")
    with pytest.raises(Illegal, match=r"different formations.*\[7\.1\]"):
        fire(sc, st, "fire a-art-hadik 1516 with a-art-ott")
    with pytest.raises(Illegal, match=r"not in 1216.*\[7\.1\]"):
        fire(sc, st, "fire a-art-hadik 1516 with a-art-kaim")


def test_below_9_nothing_happens():
    """[7.5], D34: a total of 8 or less has no effect."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=5")           # 4 + 4 = 8
    assert the_fire(ev)[0].outcome["result"] == "none"
    assert st2.units["f-44e"].condition == "good"


def test_9_to_12_every_unit_of_the_stack_checks_cohesion():
    """[7.5] 9-12, [5.1] L307: each unit of the target stack checks cohesion, disordered if it
    fails: 44e Ligne (cohesion 7) rolls 8 and is disordered, Art. Gardanne (6) rolls 2 and holds."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    place(st, "f-art-gardanne", "1516", NW)               # no counter-battery: 1216 is not in its front
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=6,3,9")       # 5 + 4 = 9; CCs 2 and 8
    assert the_fire(ev)[0].outcome["result"] == "check"
    checks = [e for e in ev if e.kind == "cohesion_check"]
    # top first: the artillery is on top of its stack [5.1] L285
    assert [c.inputs["unit"] for c in checks] == ["f-art-gardanne", "f-44e"]
    assert st2.units["f-44e"].condition == "disordered"
    assert st2.units["f-art-gardanne"].condition == "good"


def test_night_adds_2_to_the_cohesion_checks_under_fire():
    """[12]: every cohesion check +2; artillery fires only point-blank."""
    sc, st = marengo()
    st.turn = 9
    assert sc.turns.is_night(9)
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    with pytest.raises(Illegal, match=r"night.*\[12\]"):
        fire(sc, st, "fire a-art-hadik 1516 dice=6")
    place(st, "f-44e", "1316", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 1316 dice=5,6")          # 4+4+1 = 9; CC 5 + 2 = 7
    cc = [e for e in ev if e.kind == "cohesion_check"][0]
    assert drm(cc, "night") == [2] and cc.outcome["passed"]


def test_13_to_14_disorders_the_whole_stack():
    """[7.5] 13-14: the target unit, or the whole stack, is disordered at once (no check)."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    place(st, "f-art-gardanne", "1516", NW)
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=10")          # 9 + 4 = 13
    assert the_fire(ev)[0].outcome["result"] == "disorder"
    assert not [e for e in ev if e.kind == "cohesion_check"]
    assert st2.units["f-44e"].condition == "disordered"
    assert st2.units["f-art-gardanne"].condition == "disordered"


def test_15_or_more_routs_and_artillery_is_eliminated():
    """[7.5] 15+: the target is routed ([10.2]: the infantry retreats at once); artillery that
    would rout is eliminated ([10.2], D37)."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "a-art-kaim", "1216", E)
    place(st, "f-44e", "1316", W)
    place(st, "f-art-gardanne", "1316", W)
    st2, ev = fire(sc, st, "fire a-art-hadik 1316 with a-art-kaim dice=9")   # 8 + 4 + 2 + 1 = 15
    assert the_fire(ev)[0].outcome["result"] == "rout"
    assert st2.units["f-art-gardanne"].status == "eliminated"
    assert st2.units["f-44e"].condition == "routed" and st2.units["f-44e"].hex != "1316"


def test_fire_on_a_square_has_the_plus_2():
    """[9.3] square; Fire Table 'target in square' +2 (Herald completion)."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W, square=True)
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=1")
    assert drm(the_fire(ev)[0], "square") == [2]


# == refusals ====================================================================================

@pytest.mark.parametrize("setup, line, match", [
    ("disordered", "fire a-art-hadik 1516", r"disordered artillery cannot fire.*\[7\.2\]"),
    ("inactive", "fire a-art-hadik 1516", r"not of the active formation"),
    ("fired", "fire a-art-hadik 1516", r"already fired.*\[7\.2\]"),
    ("infantry", "fire a-ir52 1516", r"only artillery fires"),
    ("own", "fire a-art-hadik 1416", r"your own units"),
    ("empty", "fire a-art-hadik 1616", r"no unit stands in 1616"),
])
def test_refusals_leave_the_game_untouched(setup, line, match):
    """[7.2], [1.D], [7.5]: disordered artillery, a unit not of the active formation, one that
    already fired, infantry, own units and empty hexes are refused with the rule; the state is
    unchanged."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1516", W)
    place(st, "a-ir52", "1416" if setup == "own" else "1210", E)
    if setup == "disordered":
        st.units["a-art-hadik"].condition = "disordered"
    elif setup == "inactive":
        activate(st, "austrian", "ott")
    elif setup == "fired":
        st.units["a-art-hadik"].fired = True
    if setup == "own":
        place(st, "f-44e", "1716", W)
    before = st.to_dict()
    with pytest.raises(Illegal, match=match):
        fire(sc, st, line + " dice=10")
    assert st.to_dict() == before


def test_the_enemy_may_not_fire_in_our_activation():
    """[1.D]: only the active formation's owner gives its orders."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-art-gardanne", "1516", W)
    with pytest.raises(Illegal, match="active formation"):
        fire(sc, st, "fire f-art-gardanne 1216", side="french")


def test_fire_comes_before_movement():
    """[1.D], [2.4], [4.4]: once the movement step has begun, no artillery fires."""
    sc, st = marengo()
    hadik_battery(sc, st)
    st.activation.step = "movement"
    place(st, "f-44e", "1516", W)
    with pytest.raises(Illegal, match="movement step has begun"):
        fire(sc, st, "fire a-art-hadik 1516")


# == counter-battery [7.6] ======================================================================

def gun_duel(policy):
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-art-gardanne", "1516", W)
    st.policies["french"] = {"counter_battery": policy}
    return sc, st


def test_counter_battery_auto_answers_at_the_firing_artillery_only():
    """[7.6]: artillery fired upon, still in good order, fires back at once at the artillery that
    fired (policy auto); its roll has the 7.5 modifiers and strikes only that unit."""
    sc, st = gun_duel("auto")
    place(st, "a-ir52", "1216", E)                         # the infantry under the guns is spared
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=1,10")   # 0+4 none; answer 9+3 = 12: check
    shots = the_fire(ev)
    assert [s.inputs["kind"] for s in shots] == ["fire", "counter_battery"]
    assert shots[1].inputs["victims"] == ["a-art-hadik"] and shots[1].section == "JdG [7.6]"
    assert "f-art-gardanne" in st2.activation.reacted
    cc = [e for e in ev if e.kind == "cohesion_check"]
    assert [c.inputs["unit"] for c in cc] == ["a-art-hadik"]


def test_no_counter_battery_from_artillery_disordered_by_the_fire():
    """[7.6]: the answering artillery must still be in good order after the results."""
    sc, st = gun_duel("auto")
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=10")      # 13: disordered
    assert [s.inputs["kind"] for s in the_fire(ev)] == ["fire"]


def test_counter_battery_never_and_ask():
    """[7.6], standing policies: never gives no answer; ask stops the game with the decision, and
    `react <unit>` fires back."""
    sc, st = gun_duel("never")
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=1")
    assert [s.inputs["kind"] for s in the_fire(ev)] == ["fire"]
    assert any(e.kind == "counter_battery_declined" for e in ev)
    sc, st = gun_duel("ask")
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 dice=1")
    p = st2.pending
    assert p["kind"] == "counter_battery" and p["side"] == "french" and p["section"] == "JdG [7.6]"
    assert p["options"] == ["f-art-gardanne", "none"]
    st3, ev3 = JDG.apply(sc, st2, "french", parse("react f-art-gardanne dice=1"))
    assert st3.pending is None
    assert [s.inputs["kind"] for s in the_fire(ev3)] == ["counter_battery"]


def test_counter_battery_at_a_combined_pair_strikes_the_top_one():
    """[7.6], [5.1] L311, HERALD D38: after combined fire the answer strikes only the top one of
    the two artillery units that fired."""
    sc, st = gun_duel("auto")
    place(st, "a-art-kaim", "1216", E)
    top = [u.id for u in st.units_at("1216")][0]
    st2, ev = fire(sc, st, "fire a-art-hadik 1516 with a-art-kaim dice=1,1")   # 0+4+2 = 6; answer 0+3 = 3
    shots = the_fire(ev)
    assert [s.inputs["kind"] for s in shots] == ["fire", "counter_battery"]
    assert shots[1].inputs["victims"] == [top]


# == reaction fire [8.3] ========================================================================

def assault_on_guns(options=None):
    """French infantry (24e Legere, 96e) assault Austrian guns at 1216 facing E."""
    sc, st = marengo(options=options)
    place(st, "a-art-hadik", "1216", E)
    place(st, "f-24e-leg", "1316", W)
    place(st, "f-96e", "1317", W)
    activate(st, "french", "chambarlhac", step="combat")
    return sc, st


def test_reaction_fire_options_and_one_shot_per_activation():
    """[8.3]: the assaulted artillery may fire at an attacker in its frontal hexes; once per enemy
    activation, and then no counter-battery either."""
    sc, st = assault_on_guns()
    assert artillery.reaction_fire_options(sc, st, "1216", ["f-24e-leg", "f-96e"]) == ["a-art-hadik"]
    ev = artillery.reaction_fire(sc, st, "1216", ["f-24e-leg", "f-96e"], DiceStream(1, 0, [1]))
    f = the_fire(ev)[0]
    assert f.inputs["kind"] == "reaction" and len(f.inputs["victims"]) == 1
    assert drm(f, "reaction") == [-1] and drm(f, "point-blank") == [1]
    assert "a-art-hadik" in st.activation.reacted
    assert artillery.reaction_fire_options(sc, st, "1216", ["f-24e-leg"]) == []
    assert artillery.counter_battery_candidates(sc, st, "1316", "1216") == []


def test_reaction_fire_strikes_only_the_top_unit_and_disorders_it():
    """[8.3], [5.1] L309: 13-14 disorders the struck attacker alone (a unit disordered by
    reaction fire no longer assaults: the assault reads its condition)."""
    sc, st = assault_on_guns()
    place(st, "f-43e", "1316", W)                           # under the 24e Leg.
    ev = artillery.reaction_fire(sc, st, "1216", ["f-24e-leg", "f-43e", "f-96e"], DiceStream(1, 0, [10]))
    f = the_fire(ev)[0]                                     # 9 + 4 + 1 - 1 = 13
    assert f.outcome["result"] == "disorder"
    struck = f.inputs["victims"][0]
    assert st.units[struck].condition == "disordered"
    assert [u.id for u in st.units_at("1316")][0] == "f-24e-leg"
    others = {"f-24e-leg", "f-43e", "f-96e"} - {struck}
    assert all(st.units[o].condition == "good" for o in others)


def test_reaction_fire_with_a_square_has_a_further_minus_1():
    """[9.3]: artillery stacked with a square fires in reaction at -1 besides the -1 of 8.3."""
    sc, st = assault_on_guns()
    place(st, "a-ir52", "1216", E, square=True)
    st.units["a-art-hadik"].square = True
    ev = artillery.reaction_fire(sc, st, "1216", ["f-24e-leg"], DiceStream(1, 0, [1]))
    assert sorted(drm(the_fire(ev)[0], "reaction")) == [-1, -1]


def test_reaction_fire_policy_never_and_ask_with_a_continuation():
    """[8.3], standing policy reaction_fire: never fires nothing; ask (with a caller waiting)
    offers the attackers it may strike, then calls the waiting reaction."""
    sc, st = assault_on_guns()
    st.policies["austrian"] = {"reaction_fire": "never"}
    ev = artillery.reaction_fire(sc, st, "1216", ["f-24e-leg"], DiceStream(1, 0, []))
    assert not the_fire(ev) and st.activation.reacted == []
    st.policies["austrian"] = {"reaction_fire": "ask"}
    called = []
    from engine.jdg import rules
    rules.register_reaction("test_after_reaction", lambda sc, st, side, a, m, s: called.append((side, a)) or [])
    ev = artillery.reaction_fire(sc, st, "1216", ["f-24e-leg", "f-96e"], DiceStream(1, 0, []),
                                 then="test_after_reaction")
    p = st.pending
    assert p["kind"] == "reaction_fire" and p["side"] == "austrian"
    assert set(p["options"]) == {"f-24e-leg", "f-96e", "none"}
    st2, ev2 = JDG.apply(sc, st, "austrian", parse("react f-96e dice=1"))
    assert the_fire(ev2)[0].inputs["victims"] == ["f-96e"]
    assert st2.pending is None


def test_infantry_reaction_fire_is_an_option():
    """Optional [8.3]: with 'line-infantry-fire', assaulted infantry in good order fires in
    reaction: d10, line -1, cohesion or strength 7+ +1, terrain; no firepower."""
    sc, st = assault_on_guns()
    place(st, "a-ir52", "1216", E)
    assert artillery.reaction_fire_options(sc, st, "1216", ["f-24e-leg"]) == ["a-art-hadik"]
    sc, st = assault_on_guns(options=["line-infantry-fire"])
    st.units["a-art-hadik"].hex, st.units["a-art-hadik"].status = None, "off_map"
    place(st, "a-ir52", "1216", E)                          # line, strength 8
    assert artillery.reaction_fire_options(sc, st, "1216", ["f-24e-leg"]) == ["a-ir52"]
    ev = artillery.reaction_fire(sc, st, "1216", ["f-24e-leg"], DiceStream(1, 0, [10]))
    f = the_fire(ev)[0]
    assert f.base == 0 and sorted(m.value for m in f.modifiers) == [-1, 1]
    assert f.outcome["total"] == 9 and f.outcome["result"] == "check"


# == optional misdirected fire [7] ==============================================================

def test_misdirected_fire_strikes_the_unit_next_to_a_higher_target():
    """Optional [7]: a unit between does not block a higher target; if it stands next to the
    target and the unmodified die is 2 or less, it checks cohesion at -2 and the target is
    untouched. Battery at 2312, target on the rise at 2712 (level 1): Austrian infantry at 2412
    and 2411, on both sides of the line and nearer the battery, block it under the basic rules
    only."""
    def position(options):
        sc, st = marengo(options=options)
        place(st, "a-art-hadik", "2312", E)
        activate(st, "austrian", "hadik-kaim")
        place(st, "f-44e", "2712", W)
        place(st, "a-ir52", "2412", E)                  # friends block as foes do [7.4]
        place(st, "a-ir53", "2411", E)
        return sc, st
    sc, st = position(None)
    assert not sight.line_of_sight(sc, st, "2312", "2712")[0]
    sc, st = position(["misdirected-fire"])
    assert sight.line_of_sight(sc, st, "2312", "2712")[0]
    place(st, "f-96e", "2612", W)                       # next to the target, along the line
    s = sight.trace(sc, st, "2312", "2712")
    assert s.clear and "2612" in s.passed_over
    st2, ev = fire(sc, st, "fire a-art-hadik 2712 dice=2,10")   # die 1: misdirected; CC 9 - 2 = 7
    assert any(e.kind == "misdirected_fire" for e in ev)
    cc = [e for e in ev if e.kind == "cohesion_check"]
    assert [c.inputs["unit"] for c in cc] == ["f-96e"]
    assert drm(cc[0], "misdirected") == [-2] and not cc[0].outcome["passed"]      # 9 - 2 = 7 > 6
    assert st2.units["f-96e"].condition == "disordered" and st2.units["f-44e"].condition == "good"
    st3, ev3 = fire(sc, st, "fire a-art-hadik 2712 dice=4")     # die 3: 3 + 4 - 1 = 6 on the target
    assert not any(e.kind == "misdirected_fire" for e in ev3)
    assert the_fire(ev3)[0].inputs["victims"] == ["f-44e"]
    assert [c.inputs["unit"] for c in ev3 if c.kind == "cohesion_check"] == []


# == odds ========================================================================================

def test_fire_odds_for_uses_the_real_modifiers():
    """[7.5]: the odds of each band with the shot's real DRMs: firepower 4 point-blank (+1) gives
    no effect 40%, check 40%, disorder 20%."""
    sc, st = marengo()
    hadik_battery(sc, st)
    place(st, "f-44e", "1316", W)
    odds = artillery.fire_odds_for(sc, st, "a-art-hadik", "1316")
    assert odds == tables.fire_odds(4, 1)
    assert odds["none"] == Fraction(4, 10) and odds["disorder"] == Fraction(2, 10)
    with pytest.raises(Illegal, match=r"not in front"):
        artillery.fire_odds_for(sc, st, "a-art-hadik", "1117")
    place(st, "a-art-kaim", "1216", E)
    assert artillery.fire_odds_for(sc, st, "a-art-hadik", "1316", with_unit="a-art-kaim") == tables.fire_odds(4, 3)
