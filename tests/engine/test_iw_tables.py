"""The Italian Wars tables (engine/italianwars/tables.py) against the Italian text's own numbers
(rules/italian-wars.it.txt): Tabelle 1-6, the morale classes, factors and their entry levels,
companies and their points, the weather and the day's clock, sight, command radii, terrain,
orders, the camp, army break, Ecu and sworn enemies. Each expected value is written out here
from the text, not read back from the module."""
from __future__ import annotations

import pytest

from engine.italianwars import tables as T


# == Tabella 1, Morale ===========================================================================

def test_tabella_1_command_points():
    """IW Tabella 1 (L125-130): Gentlemen 4, Professionals 3, Mercenaries 2, Militia 1, Rabble 0."""
    assert T.COMMAND_POINTS == {"gentlemen": 4, "professionals": 3, "mercenaries": 2,
                                "militia": 1, "rabble": 0}
    assert T.command_points("reclute") == 1          # HERALD D12


def test_morale_classes_italian_names():
    """IW Morale (L31-36): the five classes in the text's order and words."""
    assert [(k, m.italian) for k, m in T.MORALE.items()] == [
        ("gentlemen", "Gentiluomini"), ("professionals", "Professionisti"),
        ("mercenaries", "Mercenari"), ("militia", "Milizie"), ("rabble", "Feccia")]


# == Fattori di mischia / di tiro ================================================================

def test_factor_entry_levels():
    """IW Fattori di mischia (L74-77) and Fattori di tiro (L79-82): 5/4/2/1, no level 3."""
    assert {k: T.melee_level(k) for k in T.MELEE_FACTORS} == {
        "terrifying": 5, "valiant": 4, "unreliable": 2, "incapable": 1}
    assert {k: T.shooting_level(k) for k in T.SHOOTING_FACTORS} == {
        "devastating": 5, "accurate": 4, "inexperienced": 2, "poor": 1}
    assert T.shooting_level("") == 0
    assert 3 not in T.ENTRY_LEVELS
    assert T.MELEE_FACTORS["terrifying"].italian == "Terrificanti"
    assert T.SHOOTING_FACTORS["poor"].italian == "Pessimi"


# == Compagnie ===================================================================================

def test_base_points_and_company_points():
    """IW Compagnie (L13-14): foot and guns 2 a base, horse 3; a large foot company is 8 points."""
    assert T.BASE_POINTS == {"infantry": 2, "artillery": 2, "cavalry": 3}
    assert T.company_points("infantry", 4) == 8
    assert T.company_points("cavalry", 2) == 6
    assert T.COMPANY_BASES == (1, 2, 4)


def test_sizes_and_losses():
    """IW Compagnie (L12-16, HERALD D13-D14): 1 small, 2 medium, 4 large, 3 medium; 8-point foot
    losing 6 is small, losing one base (2) medium; horse losing 1 or 2 keeps its bases."""
    assert [T.size_of(n) for n in (1, 2, 3, 4)] == ["small", "medium", "medium", "large"]
    assert T.size_of(T.bases_left("infantry", 4, 6)) == "small"
    assert T.size_of(T.bases_left("infantry", 4, 2)) == "medium"
    assert T.bases_left("cavalry", 2, 1) == 2 and T.bases_left("cavalry", 2, 2) == 2
    assert T.bases_left("cavalry", 2, 3) == 1
    assert T.bases_left("artillery", 2, 1) == 2 and T.bases_left("artillery", 2, 2) == 1
    assert T.bases_left("infantry", 1, 5) == 0
    with pytest.raises(ValueError):
        T.size_of(5)


def test_footprints_single_file():
    """HERALD D1 (IW Compagnie L12): a company is 1 UDM wide, its bases one behind the other."""
    assert T.footprint("infantry", 4) == T.Footprint(1.0, 2.0)
    assert T.footprint("cavalry", 2) == T.Footprint(1.0, 1.5)
    assert T.footprint("artillery", 1) == T.Footprint(1.0, 0.5)
    assert (T.TABLE_WIDTH, T.TABLE_HEIGHT) == (45.0, 30.0)


def test_mixed_units_shoot_small_fight_medium():
    """IW Colunella (L71): mixed units shoot as small and fight as medium; others as they are."""
    assert T.shoots_as("medium", "colunella") == "small"
    assert T.fights_as("small", "colunella") == "medium"
    assert T.shoots_as("large") == "large"
    assert T.PHALANX_EXCLUDED == ("militia", "rabble")        # L68 Reclute (D12) o Feccia


def test_mixed_armour():
    """IW Tipo di armatura (L48): the best armour only in good order and attacked from the front."""
    assert T.armour_in_use("armoured", "protected") == "armoured"
    assert T.armour_in_use("armoured", "protected", good_order=False) == "protected"
    assert T.armour_in_use("armoured", "protected", from_front=False) == "protected"
    assert T.armour_in_use("protected") == "protected"


def test_side_arms():
    """IW Armi da mischia (L54): lancers who have not charged and troops rallied from rout use
    side arms."""
    assert T.weapon_for_melee("lance", charged=False) == "side_arms"
    assert T.weapon_for_melee("lance", charged=True) == "lance"
    assert T.weapon_for_melee("pike", rallied=True) == "side_arms"
    assert set(T.ARTILLERY_WEAPONS) == {"light_gun", "heavy_gun", "organ_gun", "war_cart"}
    assert "arquebus" in T.FIREARMS and "crossbow" not in T.FIREARMS


# == Tabella 2 ===================================================================================

@pytest.mark.parametrize("morale,expected", [
    ("mercenaries", ["timid", "timid", "cautious", "cautious", "reliable", "unpredictable"]),
    ("militia", ["timid", "timid", "timid", "cautious", "cautious", "unpredictable"]),
    ("rabble", ["timid", "timid", "timid", "cautious", "cautious", "unpredictable"]),
    ("gentlemen", ["timid", "cautious", "reliable", "reliable", "unpredictable", "rash"]),
    ("professionals", ["timid", "cautious", "reliable", "reliable", "unpredictable", "rash"]),
])
def test_tabella_2_personalities(morale, expected):
    """IW Tabella 2 (L247-250): the rows as printed, faces 1 to 6."""
    assert [T.personality(morale, "french", r) for r in range(1, 7)] == expected


def test_tabella_2_swiss_always_rash():
    """IW Tabella 2 (L249, HERALD D15): a Swiss captain is Rash whatever his class, with no roll."""
    assert T.personality("mercenaries", "swiss", None) == "rash"
    assert not T.rolls_personality("professionals", "swiss")
    assert T.rolls_personality("professionals", "landsknecht")


# == Tabelle 3 and 4, the day ====================================================================

def test_tabella_3_season():
    """IW Tabella 3 (L253-256): 1 winter, 2-3 spring, 4-5 summer, 6 autumn."""
    assert [T.season(r) for r in range(1, 7)] == ["winter", "spring", "spring", "summer", "summer",
                                                  "autumn"]


def test_tabella_4_weather():
    """IW Tabella 4 (L257-261): d6 + the season die: 2 and 12 bad, 3-4 and 10-11 cloudy, 5-9
    good (HERALD D17)."""
    got = {a + b: T.weather(a, b) for a in range(1, 7) for b in range(1, 7)}
    assert got == {2: "bad", 3: "cloudy", 4: "cloudy", 5: "good", 6: "good", 7: "good", 8: "good",
                   9: "good", 10: "cloudy", 11: "cloudy", 12: "bad"}


def test_fixed_season_die():
    """HERALD D17: a fixed season reads its die among its own faces."""
    assert [T.season_die("summer", r) for r in (1, 3, 4, 6)] == [4, 4, 5, 5]
    assert T.season_die("winter", 6) == 1 and T.season_die("autumn", 1) == 6
    assert [T.season_die("spring", r) for r in (2, 5)] == [2, 3]


def test_day_clock():
    """IW Notte e giorno (L235), IW Ora del giorno (L263): dawn 2-3, dusk from 16, dark from 18;
    7 is midday (day); the clock starts on 2d6 (HERALD D19)."""
    assert [T.day_phase(c) for c in (1, 2, 3, 4, 7, 12, 15, 16, 17, 18, 24, 26)] == [
        "night", "dawn", "dawn", "day", "day", "day", "day", "dusk", "dusk", "night", "night",
        "dawn"]
    assert T.start_clock(1, 1) == T.DAWN_ASSAULT_CLOCK == 2
    assert T.start_clock(6, 6) == 12


def test_postponement_clock():
    """IW Tempo cattivo (L267, HERALD D19): past 16 subtract 12, the next morning."""
    assert T.postponed_clock(12, 4) == (16, False)
    assert T.postponed_clock(14, 5) == (7, True)


def test_weather_effects():
    """IW Tempo atmosferico (L231-233): bad weather halves moves and silences firearms."""
    assert T.move_factor("bad") == 0.5 and T.move_factor("cloudy") == 1.0
    assert not T.firearms_fire("bad") and T.firearms_fire("good")


def test_visibility():
    """IW Visibilità (L213-214), IW Tempo atmosferico (L231-233), HERALD D20: whole field by day;
    3 UDM at dawn, dusk, full-moon night; 2 moonless; cloudy 15 by day, 1.5 else; bad 8 / 1."""
    assert T.visibility("good", "day") is None
    assert T.visibility("good", "dawn") == T.visibility("good", "night") == 3.0
    assert T.visibility("good", "night", moonless=True) == 2.0
    assert T.visibility("cloudy", "day") == 15.0 and T.visibility("cloudy", "dusk") == 1.5
    assert T.visibility("bad", "day") == 8.0 and T.visibility("bad", "night") == 1.0
    assert T.INTO_TERRAIN_SIGHT == 0.5 and T.HIDDEN_SEEN_WITHIN == 1.0


# == Tabella 5 ===================================================================================

def test_tabella_5_modifiers():
    """IW Tabella 5 (L305-309): Rash/Timid +2, Unpredictable/Cautious +1, Reliable -1, sworn
    enemies +1, Ecu +/-1 each; 6 or more fails (L303)."""
    assert T.INTERPRETATION_MODIFIERS == {"rash": 2, "timid": 2, "unpredictable": 1,
                                          "cautious": 1, "reliable": -1}
    assert T.interpretation_total(4, "rash", sworn_in_sight=True) == 7
    assert T.interpretation_total(6, "reliable", ecu=-1) == 4
    assert T.interpretation_fails(6) and not T.interpretation_fails(5)


def test_tabella_5_results():
    """IW Tabella 5, Risultato (L311-315)."""
    assert T.failed_order("rash", "hold") == "assault"
    assert T.failed_order("unpredictable", "hold") == "attack"
    assert T.failed_order("unpredictable", "attack") == "hesitate"
    assert T.failed_order("reliable", "attack") == "hold"
    assert T.failed_order("cautious", "hold") == "hesitate"
    assert T.failed_order("timid", "attack") == "hesitate"


def test_ecu_no_effect_on_gentlemen():
    """IW Tesoro (L94-95), IW Interpretazione degli ordini (L301), HERALD D24."""
    assert T.ecu_effect("gentlemen", 3) == 0
    assert T.ecu_effect("mercenaries", -2) == -2
    assert T.ECU_DEFAULT == "1d6"


# == Tabella 6 ===================================================================================

def test_tabella_6_minimums():
    """IW Tabella 6 (L334-338): Professionals 2, Gentlemen 3, Mercenaries 4, Militia 5, Rabble 6."""
    assert T.ACTIVATION_MINIMUM == {"professionals": 2, "gentlemen": 3, "mercenaries": 4,
                                    "militia": 5, "rabble": 6}


def test_tabella_6_modifiers_reading():
    """IW Tabella 6 (L339-344), HERALD D10: Rash +1, Timid -1, off table +1 (the orphan "+ 1"),
    activated in the previous turn -1 (printed on its line)."""
    assert T.TABLE6_AS_PRINTED[3].endswith("- 1") and T.TABLE6_AS_PRINTED[4] == "+ 1"
    assert T.activation_total(3, "rash") == 4
    assert T.activation_total(3, "timid", activated_last=True) == 1
    assert T.activation_total(3, "reliable", off_table=True) == 4
    assert T.activates("mercenaries", T.activation_total(3, "rash"))
    assert not T.activates("mercenaries", T.activation_total(4, "timid"))
    assert T.activates("rabble", 6) and not T.activates("militia", 4)


# == the rest ====================================================================================

def test_command_radii():
    """IW Coesione delle battaglie (L117-120): cavalry 5, infantry 3 from the commander's company;
    skirmishers 2 from any company of the battle; artillery none."""
    assert T.command_radius("cavalry", "shock") == (5.0, "commander")
    assert T.command_radius("infantry", "shooting") == (3.0, "commander")
    assert T.command_radius("cavalry", "skirmishers") == (2.0, "battle")
    assert T.command_radius("artillery", "shooting") == (None, "")


def test_army_break():
    """IW Punto di rottura dell'esercito (L124-131), IW Accampamento (L240): strength = Tabella 1
    + 3 for the camp; broken when more than half is lost."""
    assert T.army_strength(["gentlemen", "rabble", "mercenaries"]) == 4 + 0 + 2 + 3
    assert T.army_strength(["militia"], camp=False) == 1
    assert not T.army_broken(10, 20) and T.army_broken(11, 20) and T.army_broken(6, 11)
    assert T.CAMP_POINTS == 3 and (T.CAMP_SIZE.width, T.CAMP_SIZE.depth) == (2.0, 1.0)


def test_sworn_enemies():
    """IW Nemici giurati (L97): Swiss vs Landsknechts; Imperial vs other Landsknechts."""
    assert T.sworn_enemies("swiss", "landsknecht") and T.sworn_enemies("landsknecht", "swiss")
    assert T.sworn_enemies("swiss", "imperial_landsknecht")
    assert T.sworn_enemies("imperial_landsknecht", "landsknecht")
    assert not T.sworn_enemies("landsknecht", "landsknecht")
    assert not T.sworn_enemies("swiss", "french")


def test_terrain_categories():
    """IW Terreno (L174-205, HERALD D26): each kind in the text's categories; broken slows all but
    skirmishers without disordering (D22), closed slows and disorders, impassable bars."""
    K = T.TERRAIN_KINDS
    assert K["hill"].categories == ("open", "broken")
    assert K["woods"].categories == ("broken", "closed", "impassable")
    assert K["river"].categories == ("closed", "impassable")
    assert K["ford"].categories == K["stream"].categories == ("broken",)
    assert K["bridge"].categories == K["road"].categories == ("open",)
    assert K["lake"].categories == K["fortification"].categories == ("impassable",)
    assert K["town"].categories == ("closed",) and K["village"].categories == ("broken",)
    c = T.CATEGORIES
    assert c["broken"].slows and not c["broken"].slows_skirmishers and not c["broken"].disorders
    assert c["closed"].disorders and not c["impassable"].passable


def test_cover():
    """IW Copertura (L223-226): in broken or closed ground except watercourses; behind hedges,
    crests, walls, field defences; built-up areas against all."""
    assert T.gives_cover("woods", "broken") == "in"
    assert T.gives_cover("hill", "open") == ""
    assert T.gives_cover("stream", "broken") == "" and T.gives_cover("river", "closed") == ""
    assert T.gives_cover("hedge", "broken") == "behind"
    assert T.gives_cover("defences", "closed") == "behind"
    assert T.gives_cover("village", "broken") == "all"


def test_orders_permissions():
    """IW Ordini (L133-160): Assault and Hesitate never given; Attack and Assault must charge;
    Hold, Delay, Hesitate never declare; Withdraw only mounted troops."""
    assert set(T.VOLUNTARY_ORDERS) == {"attack", "delay", "occupy", "hold", "withdraw", "march"}
    assert T.must_charge("assault") and T.must_charge("attack") and T.must_charge("occupy")
    assert not any(T.may_declare_charge(o) for o in ("hold", "delay", "hesitate"))
    assert T.may_declare_charge("withdraw", mounted=True)
    assert not T.may_declare_charge("withdraw", mounted=False)
    assert T.ORDERS["assault"].shooting == "short" and T.ORDERS["hesitate"].shooting == "none"
    assert (T.DELAY_STANDOFF, T.OCCUPY_CLEAR, T.MARCH_HALT, T.CHARGE_HALT) == (2.0, 2.0, 2.0, 1.0)
    assert T.WITHDRAW_SPEED == 0.5


def test_deployment_and_attacker():
    """IW Prima della battaglia 4-5 (L269-270, HERALD D11): 6 UDM from the edge; the attacker has
    more Rash captains, a tie rolls."""
    assert T.DEPLOYMENT_DEPTH == 6.0
    assert T.attacker_by_captains(3, 1) == 1 and T.attacker_by_captains(0, 2) == 2
    assert T.attacker_by_captains(1, 1) == 0


def test_citation():
    """Events cite the text's headings: "IW Tabella 6 (L333-344)"."""
    assert T.cite("Tabella 6", "L333-344") == "IW Tabella 6 (L333-344)"
    assert T.cite("Ordini") == "IW Ordini"


def test_bad_dice_refused():
    """A d6 reads 1-6 (HERALD D5)."""
    for f in (lambda: T.season(7), lambda: T.personality("mercenaries", "", 0),
              lambda: T.activation_total(0, "rash")):
        with pytest.raises(ValueError):
            f()


def test_rules_index_covers_the_tables():
    """The rules index (engine/italianwars/rules_index.toml) validates (engine/core/rulesdoc.py:
    every D-number in DECISIONS.md, every test prefix matching a test) and has a section for every
    heading the tables cite: Tabelle 1-6, the pre-battle steps 1-9, the turn's phases 1-6, the
    activation steps 2a-2i, and Herald's completion."""
    from engine.core import rulesdoc as R
    idx = R.load_index("italianwars")
    assert idx is not None and idx.cite == "IW"
    assert R.validate(idx, R.load_decisions("italianwars"), R.scan_tests()) == []
    wanted = [f"Tabella {n}" for n in range(1, 7)]
    wanted += [sec for _, _, sec, _ in T.PREBATTLE] + [sec for _, _, sec, _ in T.TURN]
    wanted += [f"Azioni {step}" for _, step, _, _ in T.ACTIVATION_SEQUENCE]
    wanted += [name for _, _, name, _ in T.ACTIVATION_SEQUENCE[1:2]] + ["Herald completion"]
    missing = [w for w in wanted if idx.get(w) is None]
    assert missing == []
    assert idx.lookup("IW Tabella 6")[0].section.id == "Tabella 6"


def test_every_table_names_its_section():
    """Each table of tables.py names the rules-index section it comes from (tables.SECTIONS), and
    every such section is in the index."""
    from engine.core import rulesdoc as R
    idx = R.load_index("italianwars")
    assert all(hasattr(T, name) for name in T.SECTIONS)
    assert [s for s in T.SECTIONS.values() if idx.get(s) is None] == []
