"""Battle Cry command cards, ordering and the turn sequence (BC §2.4, §3, §4.1, §4.2)."""
import pytest

from engine.battlecry import tables
from engine.battlecry.setup import build_deck
from engine.core.errors import CannotParse, Illegal

from .bc_helpers import make_game, run

ARMY = [
    ("ui1", "union", "infantry", "0208"), ("ui2", "union", "infantry", "0608"),
    ("ui3", "union", "infantry", "1008"), ("uc1", "union", "cavalry", "0409"),
    ("ua1", "union", "artillery", "0709"), ("ug1", "union", "general", "0608"),
    ("ci1", "confederate", "infantry", "0202"), ("ci2", "confederate", "infantry", "0602"),
    ("ci3", "confederate", "infantry", "1002"), ("cc1", "confederate", "cavalry", "0401"),
    ("ca1", "confederate", "artillery", "0701"), ("cg1", "confederate", "general", "0602"),
]


def game(union_hand, conf_hand=("skirmish-centre",) * 4, units=ARMY, **kw):
    return make_game(units, hands={"union": list(union_hand), "confederate": list(conf_hand)}, **kw)


def test_bc_2_4_deck_has_every_card_and_sixty_in_all():
    assert len({c for c in tables.CARD_TYPES}) == 4 * 3 + 13     # section cards x 3 sections + 13 tactics
    names = {ct.name.split(" ")[0] for ct in tables.CARD_TYPES.values()}
    for card in ("Skirmish", "Probe", "Attack", "Assault", "Bombard", "Rally", "Leadership"):
        assert card in names
    assert sum(tables.DECK_COUNTS.values()) == 60
    assert set(tables.DECK_COUNTS) == set(tables.CARD_TYPES)


def test_bc_7_remove_cards_rule_takes_construct_field_works_out():
    g = game(["skirmish-centre"] * 4, special={"remove_cards": ["construct-field-works"]})
    assert "construct-field-works" not in build_deck(g.scenario)
    assert len(build_deck(g.scenario)) == 60 - tables.DECK_COUNTS["construct-field-works"]


def test_bc_3_1_deal_hands_of_scenario_size_from_one_deck():
    g = make_game(ARMY, cards=5)
    assert len(g.state.hands["union"]) == 5 and len(g.state.hands["confederate"]) == 5
    assert len(g.state.deck) == 50
    view = g.state.public_view("union")
    assert view["hands"]["confederate"] == 5 and isinstance(view["hands"]["union"], list)
    assert view["deck"] == 50 and "seed" not in view


def test_bc_3_2_turn_sequence_play_order_move_battle_draw():
    g = game(["probe-left", "rally", "bombard", "hit-and-run"])
    deck_before = list(g.state.deck)
    run(g, "union: play probe left", "union: order ui1 uc1", "union: move ui1 0207", "union: end")
    st = g.state
    assert st.active == "confederate" and st.turn == 2 and st.phase == "card"
    assert st.discard == ["probe-left"]
    assert st.hands["union"] == ["rally", "bombard", "hit-and-run", deck_before[0]]
    assert st.last_order["union"] == {"card": "probe-left", "section": "left"}


def test_bc_4_1_orders_limited_by_card_and_section():
    g = game(["probe-left", "skirmish-centre", "attack-right", "rally"])
    run(g, "union: play probe left")
    with pytest.raises(Illegal, match="not on your left"):
        g.apply("union", "order ui3")
    g.apply("union", "order ui1 uc1")
    with pytest.raises(Illegal, match=r"gives 2 orders and all of them are given \(ui1, uc1\)"):
        g.apply("union", "order ui1")
    assert g.state.phase == "actions"
    g.apply("union", "move ui1 0207")
    with pytest.raises(Illegal, match="before any unit moves"):
        g.apply("union", "order ui1")


def test_bc_4_1_unit_with_attached_general_is_one_order_and_general_follows():
    g = game(["skirmish-centre"] * 4)
    run(g, "union: play skirmish centre", "union: order ui2", "union: move ui2 0607")
    assert g.state.pieces["ug1"].hex == "0607"
    g = game(["skirmish-centre"] * 4)
    run(g, "union: play skirmish centre", "union: order ui2", "union: move ui2 0607 alone")
    assert g.state.pieces["ug1"].hex == "0608"


def test_bc_4_2_movement_allowances_and_stops():
    g = game(["attack-left"] * 4, terrain={"woods": ["0307"]})
    run(g, "union: play attack left", "union: order ui1 uc1")
    with pytest.raises(Illegal, match="at most 1"):
        g.apply("union", "move ui1 0207 0206")
    with pytest.raises(Illegal, match="must stop"):
        g.apply("union", "move uc1 0308 0307 0306")
    g.apply("union", "move uc1 0308 0307")
    with pytest.raises(Illegal, match="already moved"):
        g.apply("union", "move uc1 0306")
    with pytest.raises(Illegal, match="may not battle"):
        g.apply("union", "battle uc1 0306")        # entered woods this turn


def test_bc_4_2_no_moving_through_units_and_into_not_through_lone_general():
    units = ARMY + [("ug2", "union", "general", "0307")]
    g = game(["attack-left"] * 4, units=units)
    run(g, "union: play attack left", "union: order uc1")
    with pytest.raises(Illegal, match="into, not through"):
        g.apply("union", "move uc1 0308 0307 0306")
    g.apply("union", "move uc1 0308 0307")
    assert g.state.attached_general(g.state.pieces["uc1"]).id == "ug2"


def test_bc_4_2_artillery_moving_may_not_battle_and_movement_ends_before_battle():
    g = game(["attack-centre"] * 4)
    g.state.pieces["ci2"].hex = "0605"
    run(g, "union: play attack centre", "union: order ua1 ui2")
    g.apply("union", "move ua1 0708")
    with pytest.raises(Illegal, match="may not battle"):
        g.apply("union", "battle ua1 0605")
    g.apply("union", "battle ui2 0605 dice=3,3")     # range 3: 2 dice, both miss
    with pytest.raises(Illegal):
        g.apply("union", "move ui2 0607")


def test_illegal_commands_are_refused_with_a_rule_and_state_untouched():
    g = game(["probe-left", "rally", "bombard", "hit-and-run"])
    before = g.state.state_hash()
    for side, line, match in [
        ("confederate", "play skirmish-centre", "Union's turn"),
        ("union", "play assault-centre", "not in your hand"),
        ("union", "move ui1 0207", "play a command card first"),
        ("union", "rally ui1", "needs Rally"),
        ("union", "end", "play a command card first"),
        ("union", "discard rally", "can use"),
    ]:
        with pytest.raises(Illegal, match=match) as exc:
            g.apply(side, line)
        assert exc.value.section and exc.value.section.startswith("BC")
        assert g.state.state_hash() == before
    with pytest.raises(CannotParse):
        g.apply("union", "dance ui1")
    run(g, "union: play probe left", "union: order ui1")
    with pytest.raises(Illegal, match="no order"):
        g.apply("union", "move ui3 1007")


def test_bc_3_2_discard_and_draw_when_no_card_usable():
    units = [u for u in ARMY if u[2] != "artillery" and u[2] != "cavalry"]
    g = game(["bombard", "hit-and-run", "bombard", "hit-and-run"], units=units)
    top = g.state.deck[0]
    run(g, "union: discard bombard")
    assert g.state.active == "confederate" and top in g.state.hands["union"]
    assert g.state.discard == ["bombard"]


def test_bc_2_4_card_1_all_out_offensive_orders_all_and_reshuffles():
    g = game(["all-out-offensive", "rally", "bombard", "rally"])
    g.state.discard = ["probe-left", "attack-right"]
    run(g, "union: play all-out-offensive")
    assert set(g.state.current.ordered) == {p.id for p in g.state.live("union")}
    deck_size = len(g.state.deck)
    run(g, "union: end")
    assert g.state.discard == []
    assert len(g.state.deck) == deck_size + 3 - 1      # card + 2 discards in, one drawn
    assert "all-out-offensive" in g.state.deck + g.state.hands["union"]


def test_bc_2_4_card_4_bombard_fires_twice_or_moves_twice():
    g = game(["bombard"] * 4)
    g.state.pieces["ca1"].hex = "0705"                 # 4 hexes: 2 dice
    run(g, "union: play bombard", "union: battle ua1 0705 dice=3,3", "union: battle ua1 0705 dice=3,3")
    with pytest.raises(Illegal, match="already battled"):
        g.apply("union", "battle ua1 0705 dice=3,3")
    g = game(["bombard"] * 4)
    run(g, "union: play bombard", "union: move ua1 0708", "union: move ua1 0707")
    with pytest.raises(Illegal, match="not both"):
        g.apply("union", "battle ua1 0701")


def test_bc_2_4_card_5_call_for_reinforcements():
    g = game(["call-for-reinforcements"] * 4)
    g.state.pieces["uc1"].hex = None              # a cavalry unit was lost
    g.state.pieces["ui1"].hex = None
    run(g, "union: play call-for-reinforcements")
    g.apply("union", "reinforce dice=6")           # Sabres: nothing
    assert g.state.current.reinforcement is None and g.state.phase == "actions"
    g = game(["call-for-reinforcements"] * 4)
    g.state.pieces["uc1"].hex = None
    run(g, "union: play call-for-reinforcements", "union: reinforce dice=3")   # Cavalry
    with pytest.raises(Illegal, match="own edge"):
        g.apply("union", "place 0505")
    g.apply("union", "place 0109")
    new = g.state.piece_at("0109")
    assert new.kind == "cavalry" and new.figures == 3
    with pytest.raises(Illegal, match="may not move"):
        g.apply("union", f"move {new.id} 0108")
    g = game(["call-for-reinforcements"] * 4)
    g.state.pieces["uc1"].hex = None
    run(g, "union: play call-for-reinforcements", "union: reinforce dice=5")   # Flag: any lost type
    with pytest.raises(Illegal, match="choose a type"):
        g.apply("union", "place 0109 artillery")
    g.apply("union", "place 0109 cavalry")


def test_bc_2_4_card_6_construct_field_works():
    g = game(["construct-field-works"] * 4, terrain={"river": ["0208"]})
    run(g, "union: play construct-field-works")
    with pytest.raises(Illegal, match="River"):
        g.apply("union", "fieldworks ui1 ui2")
    g.apply("union", "fieldworks ui2 ui3")
    assert set(g.state.field_works) == {"0608", "1008"}
    with pytest.raises(Illegal):
        g.apply("union", "battle ui2 0602")


def test_bc_2_4_card_7_coordinated_attack_one_per_section():
    g = game(["coordinated-attack"] * 4)
    run(g, "union: play coordinated-attack")
    with pytest.raises(Illegal, match="each section"):
        g.apply("union", "order ui1 uc1")         # both on the left
    g.apply("union", "order ui1 ui2 ui3")
    assert g.state.phase == "actions"


def test_bc_2_4_card_8_counter_attack_mirrors_last_order():
    g = game(["skirmish-centre"] * 4, conf_hand=["counter-attack", "rally", "rally", "rally"])
    with pytest.raises(Illegal):
        g.apply("union", "play counter-attack")
    run(g, "union: play skirmish centre", "union: order ui2", "union: end")
    g2 = game(["probe-left"] * 4, conf_hand=["counter-attack", "rally", "rally", "rally"])
    run(g2, "union: play probe left", "union: order ui1", "union: end", "confederate: play counter-attack")
    cur = g2.state.current
    assert cur.card == "counter-attack" and cur.effective == "probe-right"
    # the Confederate's right is the west, where ci1 stands
    g2.apply("confederate", "order ci1 cc1")


def test_bc_2_4_card_9_fire_and_hold_battles_without_moving():
    g = game(["fire-and-hold"] * 4)
    with pytest.raises(Illegal, match="which"):
        g.apply("union", "play fire-and-hold")
    run(g, "union: play fire-and-hold centre")
    assert set(g.state.current.ordered) == {"ui2", "ua1"}
    with pytest.raises(Illegal, match="may not move"):
        g.apply("union", "move ui2 0607")


def test_bc_2_4_card_10_force_march_two_hexes_and_battle():
    g = game(["force-march"] * 4)
    run(g, "union: play force-march left", "union: move ui1 0207 0206")
    assert g.state.pieces["ui1"].hex == "0206"


def test_bc_2_4_card_10_force_march_orders_every_infantry_of_the_section():
    """"Date ordini ad un'unità di fanteria che si trovano in una sezione ... Ogni fanteria può
    muovere di 2 esagoni e combattere": the plural verb and "Ogni fanteria" win (HERALD, cards.py):
    every infantry unit of the section, and nothing else."""
    units = ARMY + [("ui4", "union", "infantry", "0308")]
    g = game(["force-march"] * 4, units=units)
    run(g, "union: play force-march left")
    assert set(g.state.current.ordered) == {"ui1", "ui4"}          # not uc1 (cavalry, left)
    run(g, "union: move ui1 0207 0206", "union: move ui4 0307 0306")
    assert g.state.pieces["ui4"].hex == "0306"


def test_bc_2_4_card_11_hit_and_run_move_battle_move():
    g = game(["hit-and-run"] * 4)
    run(g, "union: play hit-and-run", "union: move uc1 0408 0407 0406")
    with pytest.raises(Illegal, match="moves, battles, then moves"):
        g.apply("union", "move uc1 0405")
    g.state.pieces["cc1"].hex = "0405"
    run(g, "union: battle uc1 0405 dice=1,1,1", "union: move uc1 0407")
    assert g.state.pieces["uc1"].hex == "0407"


def test_bc_2_4_card_12_leadership_two_extra_dice_artillery_included():
    units = ARMY + [("ug2", "union", "general", "0709")]
    g = game(["leadership"] * 4, units=units)
    g.state.pieces["ca1"].hex = "0704"                 # 5 hexes north of ua1: 1 die
    run(g, "union: play leadership")
    assert {"ug1", "ug2", "ui2", "ua1"} <= set(g.state.current.ordered)
    ev = g.apply("union", "battle ua1 0704 dice=3,3,3")
    assert ev[0].base == 1 and [m.value for m in ev[0].modifiers] == [2]
    assert len(ev[0].dice) == 3


def test_bc_4_7_general_adds_no_die_to_artillery_outside_leadership():
    units = ARMY + [("ug2", "union", "general", "0709")]
    g = game(["skirmish-centre"] * 4, units=units)
    g.state.pieces["ca1"].hex = "0704"
    run(g, "union: play skirmish centre", "union: order ua1")
    ev = g.apply("union", "battle ua1 0704 dice=3")
    assert ev[0].modifiers == [] and len(ev[0].dice) == 1


def test_bc_2_4_card_14_rally_one_die_per_card_in_hand():
    g = game(["rally", "probe-left", "attack-left", "bombard"])
    g.state.pieces["ui1"].figures = 1
    run(g, "union: play rally")
    ev = g.apply("union", "rally ui1 dice=1,2,1,3")   # 4 dice: 3 cards left + Rally itself
    assert len(ev[0].dice) == 4 and g.state.pieces["ui1"].figures == 4   # capped at 4
    assert [d.effect for d in ev[0].dice] == ["figure returns", "figure returns", "figure returns", "no"]
    with pytest.raises(Illegal, match="may not move"):
        g.apply("union", "move ui1 0207")


def test_bc_2_4_card_15_sharp_shooter_kills_on_sabres_only():
    g = game(["sharp-shooter"] * 4)
    run(g, "union: play sharp-shooter")
    with pytest.raises(Illegal):
        g.apply("union", "snipe ug1")
    g.apply("union", "snipe cg1 dice=5")
    assert g.state.pieces["cg1"].hex == "0602"
    g = game(["sharp-shooter"] * 4)
    run(g, "union: play sharp-shooter", "union: snipe cg1 dice=6")
    assert g.state.pieces["cg1"].hex is None and g.state.flags["union"] == 1


def test_bc_2_4_card_16_short_of_supplies_falls_back_in_section():
    g = game(["short-of-supplies"] * 4)
    run(g, "union: play short-of-supplies")
    with pytest.raises(Illegal, match="toward"):
        g.apply("union", "supply ci2 0603")         # away from its own (north) edge
    g.apply("union", "supply ci2 0601")
    assert g.state.pieces["ci2"].hex == "0601" and g.state.pieces["cg1"].hex == "0601"


def test_herald_empty_deck_reshuffles_discards():
    g = game(["skirmish-centre"] * 4)
    g.state.discard = g.state.deck[:-1]
    g.state.deck = g.state.deck[-1:]
    run(g, "union: play skirmish centre", "union: end", "confederate: play skirmish centre",
        "confederate: end")
    assert len(g.state.deck) > 0 and len(g.state.hands["confederate"]) == 4


def test_bc_6_six_flags_win_and_nothing_after():
    g = game(["skirmish-centre"] * 4)
    g.state.flags["union"] = 5
    g.state.pieces["ci2"].hex = "0607"
    g.state.pieces["ci2"].figures = 1
    g.state.pieces["cg1"].hex = "0601"
    run(g, "union: play skirmish centre", "union: order ui2")
    ev = g.apply("union", "battle ui2 0607 dice=1,3,3,3,3")
    assert ev[-1].kind == "victory" and g.state.winner == "union" and g.state.phase == "over"
    with pytest.raises(Illegal, match="over"):
        g.apply("union", "end")


def test_bc_6_shiloh_objective_hexes_count_for_units_only():
    g = game(["skirmish-centre"] * 4, special={"objective_hexes": ["0607", "0608"], "objective_side": "confederate"})
    from engine.battlecry.rules import effective_flags
    g.state.pieces["ci1"].hex = "0607"
    g.state.pieces["cg1"].hex = "0605"
    assert effective_flags(g.scenario, g.state, "confederate") == 1
    g.state.pieces["cg1"].hex = "0607"
    assert effective_flags(g.scenario, g.state, "confederate") == 1   # a General adds nothing


def test_resign_ends_the_battle():
    g = game(["skirmish-centre"] * 4)
    g.apply("confederate", "resign")
    assert g.state.winner == "union" and g.ruleset.to_act(g.state) is None


def test_short_card_names_pick_the_card_held_or_are_ambiguous():
    from engine.core.errors import Ambiguous
    g = game(["probe-left", "attack-left", "attack-right", "rally"])
    with pytest.raises(Ambiguous, match="attack-left, attack-right"):
        g.apply("union", "play attack")
    g.apply("union", "play probe")
    assert g.state.current.card == "probe-left"


def test_battle_narrative_shows_each_die_and_why():
    g = game(["skirmish-centre"] * 4, terrain={"woods": ["0606"]})
    g.state.pieces["ci2"].hex = "0606"
    run(g, "union: play skirmish centre", "union: order ui2")
    ev = g.apply("union", "battle ui2 0606 dice=6,3,5")
    text = ev[0].narrative
    assert "range 2: 3" in text and "target in woods -1" in text and "General ug1 attached +1" in text
    assert "⚔️ hit, 🐎 miss, 🚩 retreat" in text


def test_autocomplete_ranks_targets_by_reach_and_lists_legal_destinations():
    g = game(["skirmish-centre"] * 4)
    g.state.pieces["ci2"].hex = "0606"
    run(g, "union: play skirmish centre", "union: order ui2")
    rs, sc, st = g.ruleset, g.scenario, g.state
    targets = rs.completions(sc, st, "union", "target", "", {"unit": "ui2"})
    assert targets[0] == ("ci2 (infantry) in 0606: range 2, 4 dice", "0606")
    assert any("out of reach" in name for name, _ in targets)
    dests = [v for _, v in rs.completions(sc, st, "union", "destination", "", {"unit": "ui2"})]
    assert set(dests) == {"0708", "0609", "0508", "0607", "0707"}      # 0709 holds ua1
    assert [v for _, v in rs.completions(sc, st, "union", "battler", "")] == ["ui2"]
    supply = rs.completions(sc, st, "union", "supply", "", {"unit": "ci2"})
    assert supply and all(sc.grid.col_row(v)[1] < 5 for _, v in supply)
