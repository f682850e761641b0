"""Jours de Gloire scenarios (engine/jdg/scenario.py) and the bundled Marengo, 14 June 1800
(engine/jdg/scenarios/marengo.toml): it loads, every unit and reinforcement stands on a legal hex,
the section D units and markers are there, unknown keys are refused with the key, the closest
allowed key and the line, and the men per side are near the historical figures."""
from __future__ import annotations

import pytest

from engine.jdg.scenario import (
    IMPASSABLE_TERRAIN, SCENARIO_DIR, ScenarioError, list_scenarios, load_scenario, parse_scenario)

TEXT = (SCENARIO_DIR / "marengo.toml").read_text(encoding="utf-8")

# Historical strengths (Chandler, The Campaigns of Napoleon ch. 20; Hollins, Marengo 1800): about
# 28,000 French counting Desaix's (Boudet's) division, about 31,000 Austrians. The scenario counts
# 200 men per infantry SP, 150 per cavalry SP [0.1] and 100 gunners per artillery SP (Herald);
# sources differ by some thousands, so a total within 7.5% of these figures is accepted.
HISTORICAL = {"french": 28_000, "austrian": 31_000}
TOLERANCE = 0.075


@pytest.fixture(scope="module")
def marengo():
    return load_scenario("marengo")


def edit(text: str, old: str, new: str, nth: int = 1) -> str:
    parts = text.split(old)
    assert len(parts) > nth, f"{old!r} occurs fewer than {nth} times"
    return old.join(parts[:nth]) + new + old.join(parts[nth:])


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def refused(text: str, *words: str) -> str:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, source="club.toml")
    msg = str(err.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


# -- the bundled file -------------------------------------------------------------------------

def test_marengo_loads_and_is_cached(marengo):
    assert "marengo" in list_scenarios()
    assert marengo.id == "marengo" and marengo.date == "14 June 1800"
    assert load_scenario("marengo") is marengo
    assert parse_scenario(TEXT, "marengo.toml").units == marengo.units


def test_scale_is_the_texts(marengo):
    """[0.1] L18: a strength point is 200 infantrymen or 150 cavalrymen, about four guns for the
    artillery; Marengo D 0.1 L903: a turn is 1 h 20', a hex 350 m."""
    s = marengo.scale
    assert (s.infantry_per_sp, s.cavalry_per_sp, s.guns_per_artillery_sp) == (200, 150, 4)
    assert (s.metres_per_hex, s.minutes_per_turn) == (350, 80)


def test_map_size_orientation_and_places(marengo):
    m = marengo.map
    assert (m.cols, m.rows, m.orientation) == (32, 24, "flat")
    assert m.terrain_at("0910") == "village"                 # Marengo
    assert m.terrain_at("0410") == "cascina"                 # Pedrabona
    assert m.terrain_at("1708") == "cascina"                 # Cassina Grossa
    assert {m.terrain_at(h) for h in ("1504", "0914", "2912")} == {"village"}
    assert "crops" in m.terrain.values()                     # the vineyards
    # the Bormida: impassable, but not the bridgehead hexes on its bank
    assert m.terrain_at("0105") == "river_hex" and m.passable("0110")
    # the Fontanone: a stream the whole height of the map, bridged on the Tortona road
    assert sum("stream" in m.features(a, b) for a, b in
               ((f"07{r:02d}", n) for r in range(1, 25) for n in m.grid.neighbors(f"07{r:02d}"))
               ) >= 40
    assert "bridge" in m.features("0710", "0810") and "stream" in m.features("0710", "0810")
    assert "trench" in m.features("0210", "0310")            # the bridgehead earthwork
    tortona = next(r for r in m.roads if r.name.startswith("Strada di Tortona"))
    assert tortona.hexes[0] == "0110" and "0910" in tortona.hexes and "2912" in tortona.hexes


def test_every_unit_and_entry_hex_is_legal(marengo):
    grid, m = marengo.map.grid, marengo.map
    ids = [u.id for u in marengo.units]
    assert len(ids) == len(set(ids))
    formations = {f.id: f for f in marengo.formations}
    for u in marengo.units:
        assert u.formation in formations and formations[u.formation].side == u.side
        assert 0 <= u.facing <= 5
        if u.hex is None:
            assert marengo.reinforcement_of(u.id) is not None, u.id
        else:
            assert u.hex in grid and m.terrain_at(u.hex) not in IMPASSABLE_TERRAIN, u.id
    for r in marengo.reinforcements:
        assert r.entry_hexes and all(h in grid and m.passable(h) for h in r.entry_hexes)
        assert all(marengo.unit(uid).formation == r.formation for uid in r.units)
    for c in marengo.commanders:
        assert c.hex in grid and m.passable(c.hex)
    # every formation has units, and at 09:00 the Austrians are all west of the French
    assert all(any(u.formation == f for u in marengo.units) for f in formations)
    cols = {side: [int(u.hex[:2]) for u in marengo.units if u.side == side and u.hex]
            for side in ("french", "austrian")}
    assert max(cols["austrian"]) < min(cols["french"])


def test_section_d_units_and_markers(marengo):
    ott_guns = marengo.unit("a-art-bridgehead")
    assert ott_guns.formation == "ott" and ott_guns.arm == "artillery"
    assert ott_guns.immobile and ott_guns.six_fronts and ott_guns.mp == 0
    reserve = marengo.unit("a-art-reserve")
    assert reserve.hex == "0110" and reserve.immobile and reserve.arm == "artillery"
    names = {f.name for f in marengo.formations}
    assert {"Ott", "Hadik/Kaim", "Frimont", "Von Morzin"} <= names
    zach = marengo.marker("zach")
    assert zach.kind == "special_ia" and zach.uses == 1 and zach.side == "austrian"
    assert set(zach.removes_formations) == {"hadik-kaim", "frimont", "von-morzin"}
    assert zach.trigger == "after_leaves:melas" and marengo.commander("austrian").leaves_turn
    charge, marmont = marengo.marker("grande-charge"), marengo.marker("marmont")
    assert (charge.kind, charge.activates, charge.uses, charge.max_activations) == \
        ("iac", "all_cavalry", 1, 3)
    assert (marmont.kind, marmont.activates, marmont.uses) == ("iac", "all_artillery", 1)
    # heavy cavalry ("L"): Kellermann's brigade
    assert all(marengo.unit(u).heavy for u in ("f-2e-cav", "f-20e-cav", "f-21e-cav"))


def test_commanders_turns_reinforcements_victory(marengo):
    assert marengo.commander("french").name == "Bonaparte"
    assert marengo.commander("austrian").name == "Melas"
    t = marengo.turns
    assert t.time_of(1) == "09:00" and t.time_of(10) == "21:00" and t.count == 10
    assert t.night and max(t.night) == t.count and not t.is_night(7)
    desaix = next(r for r in marengo.reinforcements if r.formation == "boudet")
    assert t.time_of(desaix.turn) == "17:00"
    assert {"f-9e-leg", "f-30e", "f-59e"} <= set(desaix.units)
    assert marengo.rout_exits["french"].edge == "east"
    assert marengo.rout_exits["austrian"].edge == "west"
    assert {v.name for v in marengo.victory.hexes} >= {"Marengo", "San Giuliano Vecchio",
                                                        "Castel Ceriolo"}
    assert {a.side for a in marengo.victory.automatic} == {"french", "austrian"}
    prov = marengo.provenance
    assert prov["from_text"] and prov["herald_completion"] and prov["sources"]


@pytest.mark.parametrize("side", ["french", "austrian"])
def test_men_per_side_near_history(marengo, side):
    men = marengo.men(side)
    assert abs(men["total"] - HISTORICAL[side]) <= TOLERANCE * HISTORICAL[side], men
    if side == "french":      # the French were weak in guns, the Austrians strong
        assert men["guns"] < marengo.men("austrian")["guns"]


def test_stacking_at_start_respects_5_1(marengo):
    by_hex: dict[str, list] = {}
    for u in marengo.units:
        if u.hex:
            by_hex.setdefault(u.hex, []).append(u)
    for h, us in by_hex.items():
        if all(u.arm == "cavalry" for u in us) and us[0].side == "french":
            assert len(us) <= 3, h
        else:
            assert len(us) <= 3 and sum(u.arm != "artillery" for u in us) <= 2, h


# -- refusals ---------------------------------------------------------------------------------

def test_unknown_top_level_key_names_key_match_and_line():
    text = edit(TEXT, "[victory]", "[victroy]")
    msg = refused(text, "unknown key(s) victroy", "did you mean 'victory'?")
    assert f"(line {line_of(text, '[victroy]')})" in msg


def test_unknown_unit_key_names_the_unit_and_its_line():
    text = edit(TEXT, 'id = "f-44e", name', 'id = "f-44e", nmae')
    msg = refused(text, "units[0] (f-44e)", "unknown key(s) nmae", "did you mean 'name'?")
    assert f"(line {line_of(text, 'nmae')})" in msg


def test_unknown_keys_deeper_down_are_refused():
    refused(edit(TEXT, "leaves_turn = 5", "leave_turn = 5"), "leave_turn",
            "did you mean 'leaves_turn'?")
    refused(edit(TEXT, "successor = { name", "successor = { nome"), "nome")
    refused(edit(TEXT, 'edge = "east"', 'edges = "east"'), "rout_exits.french", "edges",
            "did you mean 'edge'?")
    refused(edit(TEXT, "removes_formations =", "remove_formations ="), "remove_formations",
            "did you mean 'removes_formations'?")
    refused(edit(TEXT, "count = 10", "count = 10\nnights = [9]"), "nights", "did you mean 'night'?")
    refused(edit(TEXT, "[map.terrain]\n", "[map.terrain]\nvinyard = [\"1212\"]\n"),
            "unknown terrain 'vinyard'")
    refused(edit(TEXT, 'type = "stream"', 'type = "streem"'), "'streem'", "did you mean 'stream'?")


def test_values_are_checked():
    refused(edit(TEXT, 'hex = "0510", facing = "W"', 'hex = "0510", facing = 7'),
            "not a vertex 0..5")
    refused(edit(TEXT, 'hex = "0510", facing = "W"', 'hex = "3399", facing = "W"'),
            "'3399' is not a hex of the 32x24 map")
    refused(edit(TEXT, 'hex = "0910", name = "Marengo"', 'hex = "0105", name = "Marengo"'),
            "impassable")
    refused(edit(TEXT, 'formation = "gardanne"', 'formation = "gardane"'),
            "no formation 'gardane'", "did you mean 'gardanne'?")
    refused(edit(TEXT, 'id = "f-101e"', 'id = "f-44e"'), "'f-44e' is used twice")
    refused(edit(TEXT, "cohesion = 7, cohesion_back = 4", "cohesion = 12, cohesion_back = 4"),
            "cohesion: 12 is not 1..9")
    refused(edit(TEXT, 'units = ["a-ir63", ', 'units = ["a-ir99", '), "no unit 'a-ir99'")
    refused(edit(TEXT, 'units = ["a-ir63", ', 'units = ["a-ir52", '), "already starts on the map")
    refused(edit(TEXT, 'units = ["a-ir63", "a-ir23", "a-ir47", "a-art-kaim"]',
                 'units = ["a-ir23", "a-ir47", "a-art-kaim"]'), "a-ir63", "in no reinforcement")
    refused(edit(TEXT, 'entry_hexes = ["3212"]', 'entry_hexes = ["2912"]'), "not on a map edge")
    refused(edit(TEXT, 'hexes = ["0109", "0110", "0111"]\nnote', 'hexes = ["0210"]\nnote'),
            "not on the west edge")
    refused(edit(TEXT, "leaves_turn = 5", "leaves_turn = 10"), "no turn after it")
    refused(edit(TEXT, 'mp = 0, mp_back = 0', 'mp = 2, mp_back = 0'), "mp: 2 is not 0..0")
    refused(edit(TEXT, 'hex = "1015"', 'hex = "0510"'), "may not stack")   # horse, foot, guns


def test_load_unknown_scenario():
    with pytest.raises(ScenarioError, match="no Jours de Gloire scenario 'austerlitz'"):
        load_scenario("austerlitz")


def test_three_layers_of_rules_basic_optional_and_the_battles():
    """[0] L14: basic rules, optional rules that the players choose, and each battle's own rules;
    [II] L820: the optional rules replace or complete the basic ones, "I giocatori scelgano quali
    applicare": a game has none unless chosen at its creation, and an unknown one is refused;
    [D] L899: Marengo 1800, at demi-brigade level, Bonaparte's French against Melas' Austrians."""
    from engine.core.errors import Illegal
    from engine.jdg.ruleset import JDG
    from engine.jdg.setup import OPTIONAL_RULES, has_option

    sc = JDG.load_scenario("marengo")
    plain = JDG.new_state(sc, 1)
    chosen = JDG.new_state(sc, 1, ["demoralisation"])
    assert not any(has_option(plain, oid) for oid, _ in OPTIONAL_RULES)
    assert has_option(chosen, "demoralisation") and not has_option(chosen, "misdirected-fire")
    with pytest.raises(Illegal, match="unknown optional rule"):
        JDG.new_state(sc, 1, ["tactical-fog"])
    assert {c.side: c.name for c in sc.commanders} == {"french": "Bonaparte", "austrian": "Melas"}
    assert {u.side for u in sc.units} == {"french", "austrian"}


def test_the_guard_guns_are_artillery(marengo):
    """[0.3], [7.3] (play-test): "Art. Garde" was entered as infantry (strength 1, an engagement
    value, no firepower): the Consular Guard's guns are artillery, a horse company."""
    u = marengo.unit("f-art-garde")
    assert u.arm == "artillery" and u.engagement == 0 and u.firepower and u.max_range
