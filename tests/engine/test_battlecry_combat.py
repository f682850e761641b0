"""Battle Cry battle, line of sight, casualties, retreats and Generals (BC §4.4 - §4.8).

Board reminder (Herald's reading of BC §1): rows 01-09 from north; odd rows hold 13 hexes,
even rows 12 hexes shoved half a hex east. Union's home edge is south here, Confederate north.
"""
import pytest

from engine.battlecry import combat
from engine.core.errors import Illegal

from .bc_helpers import make_game, run

INF, FLAG, SABRES, CAV, ART = 1, 5, 6, 3, 4


def example_position(**kw):
    """The book's game example (BC §4.8): Probe on your left; General A on a hex split between
    left flank and centre; infantry B; enemy infantry D (2 figures, with a General) in Woods;
    another enemy General in hex E and enemy unit C behind D."""
    units = [
        ("b", "union", "infantry", "0207"),
        ("a", "union", "general", "0507"),
        ("d", "confederate", "infantry", "0205", {"figures": 2}),
        ("dg", "confederate", "general", "0205"),
        ("e", "confederate", "general", "0104"),
        ("c", "confederate", "infantry", "0204"),
        ("far", "confederate", "infantry", "1201"),
    ]
    return make_game(units, hands={"union": ["probe-left", "attack-centre", "rally", "bombard"]},
                     terrain={"woods": ["0205"]}, **kw)


def test_bc_4_8_example_probe_orders_general_on_split_hex_and_rolls_three_dice():
    g = example_position()
    assert g.ruleset.sections_of(g.scenario, "union", "0507") == ("left", "centre")
    run(g, "union: play probe left", "union: order b a", "union: move a 0207")
    count = combat.battle_dice(g.scenario, g.state, g.state.pieces["b"], "0205")
    assert count.base == 3                      # infantry at range 2
    assert [m.value for m in count.modifiers] == [-1, +1]   # Woods, attached General
    assert count.total == 3


def test_bc_4_8_result_a_attached_general_unharmed():
    g = example_position()
    run(g, "union: play probe left", "union: order b a", "union: move a 0207")
    events = g.apply("union", "battle b 0205 dice=1,2,6")
    st = g.state
    assert st.pieces["d"].hex is None and st.flags["union"] == 1
    assert st.pieces["dg"].hex == "0205"       # not alone at the start of the attack
    assert events[0].outcome["hits"] == 3 and "excess" in events[0].narrative


def test_bc_4_8_result_b_general_retreats_into_friendly_unit_not_onto_general():
    g = example_position()
    run(g, "union: play probe left", "union: order b a", "union: move a 0207")
    g.apply("union", "battle b 0205 dice=1,2,5")
    st = g.state
    assert st.pieces["d"].hex is None
    assert st.pieces["dg"].hex == "0204"        # into C's hex (exception 2), not E's 0104
    assert st.attached_general(st.pieces["c"]).id == "dg"
    assert st.pending is None


def test_bc_4_8_result_c_blocked_unit_is_removed_general_retreats_alone():
    g = example_position()
    run(g, "union: play probe left", "union: order b a", "union: move a 0207")
    g.apply("union", "battle b 0205 dice=1,5,5")
    st = g.state
    assert st.pieces["d"].hex is None and st.flags["union"] == 1
    # the General, now alone, passes through C's hex and must still choose its second hex
    assert st.pending and st.pending["side"] == "confederate" and st.pending["piece"] == "dg"
    assert sorted(st.pending["options"]) == ["0203", "0303"]
    with pytest.raises(Illegal):
        g.apply("union", "retreat 0203")        # only the defender answers
    g.apply("confederate", "retreat 0203")
    assert g.state.pieces["dg"].hex == "0203" and g.state.pending is None


def test_bc_4_8_note_moving_first_then_attaching_rolls_four():
    g = example_position()
    run(g, "union: play probe left", "union: order b a", "union: move b 0206", "union: move a 0206")
    count = combat.battle_dice(g.scenario, g.state, g.state.pieces["b"], "0205")
    assert count.total == 4


@pytest.mark.parametrize("kind,special,hill,expected", [
    ("infantry", "", False, [4, 3, 2, 1]),
    ("artillery", "", False, [5, 4, 3, 2, 1]),
    ("artillery", "", True, [5, 4, 3, 2, 1, 1]),
    ("cavalry", "", False, [3]),
    ("artillery", "horse_artillery", False, [4, 3, 2, 1]),   # FAQ
    ("artillery", "horse_artillery", True, [4, 3, 2, 1]),    # HERALD: no hill bonus
    ("infantry", "vmi", False, [3, 2, 1]),                   # FAQ
])
def test_bc_4_4_1_battle_dice_by_range(kind, special, hill, expected):
    extra = {"special": special} if special else {}
    units = [("x", "union", kind, "0709", extra), ("y", "confederate", "infantry", "0101")]
    g = make_game(units, terrain={"hill": ["0709"]} if hill else None)
    x = g.state.pieces["x"]
    got = []
    for rng in range(1, 8):
        target = next(h for h in g.scenario.grid if g.scenario.grid.distance("0709", h) == rng)
        try:
            got.append(combat.battle_dice(g.scenario, g.state, x, target).base)
        except Illegal:
            break
    assert got == expected


def los_game(blockers, terrain=None):
    units = [("a", "union", "infantry", "0507"), ("t", "confederate", "infantry", "0503")]
    units += [(f"o{i}", "union", "infantry", h) for i, h in enumerate(blockers)]
    return make_game(units, terrain=terrain)


def test_bc_4_4_2_line_along_a_hexside_blocked_only_when_both_sides_obstruct():
    # 0507 -> 0503 runs straight north along the sides between 0406/0506 and 0404/0504.
    g = los_game(["0406", "0404"])                       # obstructions on one side only
    assert combat.board.line_of_sight(g.scenario, g.state, g.state.pieces["a"], "0503")[0]
    g = los_game(["0406"], terrain={"woods": ["0506"]})  # both sides of the same side
    clear, why = combat.board.line_of_sight(g.scenario, g.state, g.state.pieces["a"], "0503")
    assert not clear and "both sides" in why


def test_bc_4_4_2_crossed_hex_blocks_and_target_terrain_does_not():
    g = los_game([], terrain={"woods": ["0505", "0503"]})   # 0505 is on the line, 0503 is the target
    clear, why = combat.board.line_of_sight(g.scenario, g.state, g.state.pieces["a"], "0503")
    assert not clear and "0505" in why
    g = los_game([], terrain={"woods": ["0503"], "orchard": ["0505"]})
    assert combat.board.line_of_sight(g.scenario, g.state, g.state.pieces["a"], "0503")[0]


def test_bc_4_4_2_hill_artillery_ignores_adjacent_friend_unless_blocking_terrain():
    units = [("art", "union", "artillery", "0307"), ("f", "union", "infantry", "0407"),
             ("t", "confederate", "infantry", "0507"), ("f2", "union", "infantry", "0309")]
    assert make_game(units).scenario.grid.line_steps("0307", "0507") == [("0407",)]
    on_hill = make_game(units, terrain={"hill": ["0307"]})
    assert combat.board.line_of_sight(on_hill.scenario, on_hill.state, on_hill.state.pieces["art"], "0507")[0]
    flat = make_game(units)
    assert not combat.board.line_of_sight(flat.scenario, flat.state, flat.state.pieces["art"], "0507")[0]
    wooded = make_game(units, terrain={"hill": ["0307"], "woods": ["0407"]})
    assert not combat.board.line_of_sight(wooded.scenario, wooded.state, wooded.state.pieces["art"], "0507")[0]
    # an infantry unit on the hill gets no such exception
    units[0] = ("art", "union", "infantry", "0307")
    inf = make_game(units, terrain={"hill": ["0307"]})
    assert not combat.board.line_of_sight(inf.scenario, inf.state, inf.state.pieces["art"], "0507")[0]


@pytest.mark.parametrize("terrain,expected", [
    ("woods", [-1]), ("orchard", [-1]), ("hill", [-1]), ("field", [-1]), ("building", [-2]),
    ("bridge", []), ("clear", []),
])
def test_bc_4_4_3_target_terrain(terrain, expected):
    units = [("a", "union", "infantry", "0506"), ("t", "confederate", "infantry", "0505")]
    g = make_game(units, terrain={terrain: ["0505"]} if terrain != "clear" else None)
    count = combat.battle_dice(g.scenario, g.state, g.state.pieces["a"], "0505")
    assert [m.value for m in count.modifiers] == expected


def test_bc_4_4_3_attacker_in_river_and_field_works_replace_terrain():
    units = [("a", "union", "infantry", "0506"), ("t", "confederate", "infantry", "0505")]
    g = make_game(units, terrain={"river": ["0506"], "woods": ["0505"]})
    assert sorted(m.value for m in combat.battle_dice(g.scenario, g.state, g.state.pieces["a"], "0505").modifiers) == [-1, -1]
    g.state.field_works["0505"] = ["confederate", []]
    mods = combat.battle_dice(g.scenario, g.state, g.state.pieces["a"], "0505").modifiers
    assert sorted(m.value for m in mods) == [-2, -1]          # -2 replaces the Woods' -1
    # from the rear (north of a Confederate work facing south) the work gives nothing
    g.state.pieces["a"].hex = "0504"
    mods = combat.battle_dice(g.scenario, g.state, g.state.pieces["a"], "0505").modifiers
    assert [m.value for m in mods] == []


def test_bc_2_3_fence_front_and_rear():
    units = [("a", "union", "infantry", "0506"), ("t", "confederate", "infantry", "0505"),
             ("b", "union", "infantry", "0504")]
    g = make_game(units, fences={"0505": ["SW", "SE"]})
    st = g.state
    assert [m.value for m in combat.battle_dice(g.scenario, st, st.pieces["a"], "0505").modifiers] == [-1]
    assert [m.value for m in combat.battle_dice(g.scenario, st, st.pieces["b"], "0505").modifiers] == []


def test_bc_7_antietam_road_fences_are_minus_two():
    units = [("a", "union", "infantry", "0506"), ("t", "confederate", "infantry", "0505")]
    g = make_game(units, fences={"0505": ["SW", "SE"]},
                  special={"road_hexes": ["0505"], "road_fence_dice": -2})
    assert [m.value for m in combat.battle_dice(g.scenario, g.state, g.state.pieces["a"], "0505").modifiers] == [-2]


def battle_game(extra_units=(), terrain=None, target_figures=4, target_kind="infantry", **kw):
    units = [("a", "union", "infantry", "0506"),
             ("t", "confederate", target_kind, "0505", {"figures": target_figures}), *extra_units]
    g = make_game(units, hands={"union": ["skirmish-centre"] * 4}, terrain=terrain, **kw)
    run(g, "union: play skirmish centre", "union: order a")
    return g


def test_bc_4_5_hits_by_face_and_flag_bearer_last():
    g = battle_game()
    ev = g.apply("union", "battle a 0505 dice=1,3,4,6")   # inf hit, cav miss, art miss, sabres hit
    assert [d.effect for d in ev[0].dice] == ["hit", "miss", "miss", "hit"]
    assert g.state.pieces["t"].figures == 2 and g.state.flags["union"] == 0
    g = battle_game(target_kind="cavalry", target_figures=1)
    g.apply("union", "battle a 0505 dice=3,1,1,1")
    assert g.state.pieces["t"].hex is None and g.state.flags["union"] == 1
    assert g.state.captured["union"] == ["t"]


def test_bc_4_6_retreat_toward_own_edge_and_blocked_costs_a_figure_per_flag():
    blockers = [("x1", "confederate", "infantry", "0404"), ("x2", "confederate", "infantry", "0504"),
                ("far", "confederate", "infantry", "1201")]
    g = battle_game(blockers)
    g.apply("union", "battle a 0505 dice=5,5,2,3")   # 2 flags + 1 inf hit + miss; both rear hexes held
    assert g.state.pieces["t"].figures == 4 - 1 - 2 and g.state.pieces["t"].hex == "0505"
    g = battle_game()
    g.apply("confederate", "policy retreat auto")
    g.apply("union", "battle a 0505 dice=5,3,3,3")
    assert g.state.pieces["t"].hex in ("0404", "0504")   # one row toward the north edge


def test_bc_4_6_faq_last_row_retreat_eliminates():
    units = [("a", "union", "infantry", "0502"), ("t", "confederate", "infantry", "0501"),
             ("tg", "confederate", "general", "0501"), ("far", "confederate", "infantry", "1203")]
    g = make_game(units, hands={"union": ["skirmish-centre"] * 4})
    run(g, "union: play skirmish centre", "union: order a")
    g.apply("union", "battle a 0501 dice=5,3,3,3")
    assert g.state.pieces["t"].hex is None and g.state.pieces["tg"].hex is None
    assert g.state.flags["union"] == 2


def test_bc_4_6_exception_1_unit_stops_on_lone_friendly_general():
    extra = [("lg", "confederate", "general", "0504"), ("x1", "confederate", "infantry", "0404")]
    g = battle_game(extra)
    g.apply("union", "battle a 0505 dice=5,5,3,3")
    st = g.state
    assert st.pieces["t"].hex == "0504" and st.attached_general(st.pieces["t"]).id == "lg"
    assert st.pending is None


def test_bc_4_7_lone_general_only_sabres_kill():
    units = [("a", "union", "infantry", "0506"), ("g", "confederate", "general", "0505"),
             ("far", "confederate", "infantry", "1201")]
    g = make_game(units, hands={"union": ["skirmish-centre"] * 4})
    run(g, "union: play skirmish centre", "union: order a")
    snap = g.state.state_hash()
    g2 = make_game(units, hands={"union": ["skirmish-centre"] * 4})
    run(g2, "union: play skirmish centre", "union: order a")
    g2.apply("union", "battle a 0505 dice=1,2,3,4")
    assert g2.state.pieces["g"].hex == "0505"              # escapes
    g.apply("union", "battle a 0505 dice=1,1,1,6")
    assert g.state.pieces["g"].hex is None and g.state.flags["union"] == 1
    assert snap != g.state.state_hash()


def test_bc_4_4_no_battle_with_zero_dice_and_state_untouched():
    units = [("a", "union", "infantry", "0509"), ("t", "confederate", "infantry", "0505")]
    g = make_game(units, hands={"union": ["skirmish-centre"] * 4}, terrain={"building": ["0505"]})
    run(g, "union: play skirmish centre", "union: order a")
    before = g.state.state_hash()
    with pytest.raises(Illegal, match="at least one die"):
        g.apply("union", "battle a 0505")      # range 4: 1 die, building -2
    assert g.state.state_hash() == before
