"""Italian Wars battles (engine/italianwars/scenario.py, setup.py, armies.py, scenarios/*.toml):
both battles load and place every company legally (on the 45 x 30 UDM table, HERALD D1; within 6
UDM of their own edge, IW Prima della battaglia 5; overlapping nothing; each battle's companies in
contact, IW Organizzazione dell'esercito; camps in open ground, IW Prima della battaglia 6); a
club's bad upload is refused with a message naming the rule, the place and by how much; new_state
builds a state that survives to_dict / from_dict. The rectangles are built here by hand from the
state's conventions (front-edge centre, compass facing, bases one behind the other) with shapely,
not with the validator's own code."""
from __future__ import annotations

import math
import re
from itertools import combinations

import pytest
from shapely.geometry import Polygon, box

from engine.core.errors import Illegal
from engine.italianwars.armies import army_lists, check_battle, company_type
from engine.italianwars.scenario import (ScenarioError, list_scenarios, load_scenario,
                                         parse_scenario)
from engine.italianwars.setup import OPTIONAL_RULES, has_option, new_state
from engine.italianwars.state import IWState

BATTLES = ("fornovo", "ravenna")
DEPTH = {"infantry": 0.5, "artillery": 0.5, "cavalry": 0.75}
POINTS = {"infantry": 2, "artillery": 2, "cavalry": 3}
CMD = {"gentlemen": 4, "professionals": 3, "mercenaries": 2, "militia": 1, "rabble": 0}


def rect(x, y, facing, width, depth) -> Polygon:
    """A rectangle by hand: front edge centred on (x, y); forward = (sin f, cos f) (0 = north)."""
    a = math.radians(facing)
    fx, fy = math.sin(a), math.cos(a)
    rx, ry = fy, -fx
    fl = (x - rx * width / 2, y - ry * width / 2)
    fr = (x + rx * width / 2, y + ry * width / 2)
    return Polygon([fl, fr, (fr[0] - fx * depth, fr[1] - fy * depth),
                    (fl[0] - fx * depth, fl[1] - fy * depth)])


def company_poly(c) -> Polygon:
    poly = rect(c.x, c.y, c.facing, 1.0, DEPTH[c.arm] * c.bases)
    if c.screen:
        a = math.radians(c.facing)
        poly = poly.union(rect(c.x + 0.25 * math.sin(a), c.y + 0.25 * math.cos(a), c.facing, 1.0, 0.25))
    return poly


def zone(sc, side) -> Polygon:
    return box(0, 0, 45, 6) if sc.armies[side].home_edge == "south" else box(0, 24, 45, 30)


# == the two battles =============================================================================

def test_battles_listed():
    """Both ready battles are bundled (issue 16)."""
    assert set(BATTLES) <= set(list_scenarios())


@pytest.mark.parametrize("sid", BATTLES)
def test_companies_on_table_in_zone_no_overlap(sid):
    """IW Prima della battaglia 5 (L270): every company (and screen) wholly within 6 UDM of its
    own edge on the 45 x 30 table (HERALD D1); none overlaps another or a camp."""
    sc = load_scenario(sid)
    assert (sc.width, sc.height) == (45.0, 30.0)
    shapes = []
    for c in sc.companies:
        p = company_poly(c)
        assert zone(sc, c.side).buffer(0.001).contains(p), c.id
        shapes.append((c.id, p))
    for cp in sc.camps:
        shapes.append((f"camp {cp.side}", rect(cp.x, cp.y, cp.facing, 2.0, 1.0)))
    for (a, pa), (b, pb) in combinations(shapes, 2):
        assert pa.intersection(pb).area < 1e-4, (a, b)


@pytest.mark.parametrize("sid", BATTLES)
def test_each_battle_in_contact_with_one_cinc(sid):
    """IW Organizzazione dell'esercito (L113-114, HERALD D25): each battle's companies form one
    group in contact; its commander is one of its companies; one C-in-C's battle a side."""
    sc = load_scenario(sid)
    for side in sc.armies:
        assert sum(b.cinc for b in sc.battles_of(side)) == 1
    for b in sc.battles:
        members = sc.companies_of(battle=b.id)
        assert b.commander in {c.id for c in members}
        polys = {c.id: company_poly(c) for c in members}
        reached, todo = {members[0].id}, [members[0].id]
        while todo:
            cur = todo.pop()
            for o, p in polys.items():
                if o not in reached and p.distance(polys[cur]) <= 0.05:
                    reached.add(o)
                    todo.append(o)
        assert reached == set(polys), (b.id, set(polys) - reached)


@pytest.mark.parametrize("sid", BATTLES)
def test_camps_in_open_ground(sid):
    """IW Prima della battaglia 6 (L271): each army's camp in open terrain, on the table."""
    sc = load_scenario(sid)
    assert {c.side for c in sc.camps} == {"french", "league"}
    for cp in sc.camps:
        poly = rect(cp.x, cp.y, cp.facing, 2.0, 1.0)
        assert box(0, 0, 45, 30).contains(poly)
        for f in sc.features:
            if f.category != "open":
                assert poly.intersection(f.geometry).area < 1e-4, (cp.side, f.id)


@pytest.mark.parametrize("sid", BATTLES)
def test_nothing_on_impassable_and_features_categorised(sid):
    """IW Terreno (HERALD D26): every feature in a category the text gives its kind; no company
    on impassable ground."""
    from engine.italianwars.tables import TERRAIN_KINDS
    sc = load_scenario(sid)
    for f in sc.features:
        assert f.category in TERRAIN_KINDS[f.kind].categories
        if f.category == "impassable":
            for c in sc.companies:
                assert company_poly(c).intersection(f.geometry).area < 1e-4


@pytest.mark.parametrize("sid", BATTLES)
def test_battles_within_their_army_lists(sid):
    """The army lists (Herald completion, HERALD D27): every company of the bundled battles is of
    a type of its nation's list, with the type's attributes, within the counts."""
    assert check_battle(load_scenario(sid)) == []


def test_text_examples_in_the_lists():
    """IW Morale, Fattori di mischia, Fattori di tiro (L32-36, L74-82): the lists assign the text's
    examples (Swiss pike Professionals Terrifying; gendarmes Gentlemen Terrifying; Spanish
    arquebusiers Professionals Devastating; Italian and French infantry Unreliable; Landsknechts
    Mercenaries Valiant; French archers Poor; French gunners Devastating)."""
    t = company_type
    assert (t("swiss_pike").morale, t("swiss_pike").melee_factor) == ("professionals", "terrifying")
    assert (t("gendarmes").morale, t("gendarmes").melee_factor) == ("gentlemen", "terrifying")
    sa = t("spanish_arquebusiers")
    assert (sa.morale, sa.shooting_factor) == ("professionals", "devastating")
    assert t("italian_infantry").melee_factor == t("french_infantry").melee_factor == "unreliable"
    assert t("french_infantry").morale == "rabble" and t("italian_infantry").morale == "militia"
    assert (t("landsknecht_pike").morale, t("landsknecht_pike").melee_factor) == ("mercenaries", "valiant")
    assert t("french_archers").shooting_factor == "poor"
    assert t("french_artillery").shooting_factor == "devastating"
    assert t("spanish_artillery").shooting_factor == "accurate"
    assert t("war_carts").missile_weapons == ("war_cart",)
    assert set(army_lists()) == {"swiss", "landsknecht", "french", "spanish", "italian", "venetian"}


def test_fornovo_history():
    """Fornovo (HERALD D28): summer, cloudy, mid-afternoon (clock 10); the League attacks; the
    Taro is closed ground with fords; Swiss with the French vanguard; stradiots in the League."""
    sc = load_scenario("fornovo")
    assert (sc.season, sc.weather, sc.clock_start, sc.attacker()) == ("summer", "cloudy", 10, "league")
    assert sc.feature("taro").category == "closed"
    assert len(sc.features_of("ford")) == 3
    assert {c.nation for c in sc.companies_of(battle="vanguard")} >= {"swiss", "french"}
    assert all(c.role == "skirmishers" for c in sc.companies_of(battle="stradiots"))
    assert sc.cinc_battle("french").commander == "king"


def test_ravenna_history():
    """Ravenna (HERALD D28): spring, good weather, early morning; the French attack; the Spanish
    ditch is closed field defences; war carts and colunellas in Navarro's battle."""
    sc = load_scenario("ravenna")
    assert (sc.season, sc.weather, sc.clock_start, sc.attacker()) == ("spring", "good", 4, "french")
    assert sc.feature("spanish-ditch").kind == "defences"
    assert sc.feature("spanish-ditch").category == "closed"
    nav = sc.companies_of(battle="navarro")
    assert sum(c.missile_weapon == "war_cart" for c in nav) == 3
    assert sum(c.composition == "colunella" for c in nav) == 5
    assert any(c.nation == "landsknecht" for c in sc.companies_of("french"))


# == new_state ===================================================================================

@pytest.mark.parametrize("sid", BATTLES)
def test_new_state_round_trip(sid):
    """new_state at the start of the pre-battle sequence (IW Prima della battaglia) survives
    to_dict / from_dict, with every company and battle of the file; strength = Tabella 1 + 3."""
    sc = load_scenario(sid)
    st = new_state(sc, 7)
    d = st.to_dict()
    back = IWState.from_dict(d)
    assert back.to_dict() == d and back.state_hash() == st.state_hash()
    assert (st.phase, st.step) == ("prebattle", "personalities")
    assert set(st.companies) == {c.id for c in sc.companies}
    assert set(st.battles) == {b.id for b in sc.battles}
    for side in ("french", "league"):
        expected = sum(CMD[c.morale] for c in sc.companies_of(side)) + 3
        assert st.armies[side].strength == expected
        assert st.armies[side].ecu == 0            # "1d6": rolled by the pre-battle sequence
    c0 = sc.companies[0]
    assert (st.companies[c0.id].x, st.companies[c0.id].y, st.companies[c0.id].bases) == (c0.x, c0.y, c0.bases)


def test_new_state_swiss_rash_and_fixed_captains():
    """IW Tabella 2 (L249): Swiss captains are Rash from the start; a captain the file fixes is
    kept; the others wait for their roll ("")."""
    sc = load_scenario("fornovo")
    st = new_state(sc, 1)
    assert st.companies["swiss1"].captain == "rash"
    assert st.companies["montefeltro"].captain == "timid"
    assert st.companies["king"].captain == ""
    assert st.battles["bataille"].cinc and st.battles["bataille"].commander == "king"


def test_options():
    """OPTIONAL_RULES: known options are kept and read by has_option; roll-weather leaves the
    season, weather and clock to roll; an unknown option is refused."""
    sc = load_scenario("ravenna")
    st = new_state(sc, 1, ["roll-weather", "roll-attacker"])
    assert has_option(st, "roll-weather") and not has_option(st, "free-deployment")
    assert (st.season, st.weather, st.clock, st.attacker) == ("", "", 0, "")
    assert {o for o, _ in OPTIONAL_RULES} >= {"roll-weather", "roll-attacker", "free-deployment"}
    with pytest.raises(Illegal, match="unknown optional rule"):
        new_state(sc, 1, ["no-such-rule"])


# == a club's upload =============================================================================

BASE = """
id = "test"
title = "Test"
[[armies]]
side = "french"
name = "F"
nations = ["french", "swiss"]
home_edge = "south"
[[armies]]
side = "league"
name = "L"
nations = ["venetian", "landsknecht"]
home_edge = "north"
[[battles]]
id = "fb"
side = "french"
name = "French battle"
commander = "f1"
cinc = true
[[battles]]
id = "lb"
side = "league"
name = "League battle"
commander = "l1"
cinc = true
[[camps]]
side = "french"
x = 40
y = 1.5
facing = 0
[[camps]]
side = "league"
x = 40
y = 29
facing = 180
[[companies]]
id = "f1"
battle = "fb"
name = "Gendarmes"
nation = "french"
arm = "cavalry"
morale = "gentlemen"
role = "shock"
armour = "armoured"
melee_weapon = "lance"
melee_factor = "terrifying"
bases = 2
x = 10
y = 5
facing = 0
[[companies]]
id = "f2"
battle = "fb"
name = "Swiss"
nation = "swiss"
arm = "infantry"
morale = "professionals"
role = "shock"
armour = "armoured"
melee_weapon = "pike"
melee_factor = "terrifying"
bases = 4
x = 11
y = 5
facing = 0
[[companies]]
id = "l1"
battle = "lb"
name = "Lances"
nation = "venetian"
arm = "cavalry"
morale = "mercenaries"
role = "shock"
armour = "armoured"
melee_weapon = "lance"
melee_factor = "valiant"
bases = 2
x = 10
y = 25
facing = 180
"""


def test_minimal_upload_loads():
    """The minimal battle above is valid (so each refusal below is the one change it makes)."""
    sc = parse_scenario(BASE)
    assert sc.attacker() == "" and sc.ecu_fixed("french") is None
    assert sc.turn_limit == 0 and sc.season == "" and sc.clock_start == 0


def refused(text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text)
    return str(e.value)


def test_unknown_key_refused_with_suggestion_and_line():
    """A typo of a key is refused naming it, the key meant and its line."""
    msg = refused(BASE.replace('melee_factor = "valiant"', 'melee_facter = "valiant"'))
    assert "melee_facter" in msg and "did you mean 'melee_factor'" in msg
    assert re.search(r"\(line \d+\)", msg)


def test_unknown_class_weapon_factor_refused():
    """IW Morale, Tipi di armi, Fattori di mischia: unknown values named with the known ones."""
    msg = refused(BASE.replace('morale = "mercenaries"', 'morale = "veterans"'))
    assert "'veterans' is not a known morale class" in msg and "professionals" in msg
    msg = refused(BASE.replace('melee_weapon = "pike"', 'melee_weapon = "pikes"'))
    assert "did you mean 'pike'" in msg
    msg = refused(BASE.replace('melee_factor = "valiant"', 'melee_factor = "brave"'))
    assert "not a known melee factor" in msg
    msg = refused(BASE.replace('morale = "mercenaries"', 'morale = "reclute"'))
    assert "write 'militia'" in msg and "D12" in msg


def test_off_table_refused():
    """HERALD D1: a company off the 45 x 30 table is refused, by how much."""
    msg = refused(BASE.replace("x = 10\ny = 25", "x = 44.8\ny = 25"))
    assert "0.30 UDM off the 45 x 30 UDM table" in msg


def test_overlap_refused():
    """Companies may touch but not overlap."""
    msg = refused(BASE.replace("x = 11\ny = 5", "x = 10.5\ny = 5"))
    assert "overlaps" in msg and "sq UDM" in msg


def test_outside_deployment_refused():
    """IW Prima della battaglia 5 (L270): within 6 UDM of the own edge."""
    msg = refused(BASE.replace("x = 10\ny = 25", "x = 10\ny = 22"))
    assert "outside the league deployment zone" in msg and "6 UDM of the north edge" in msg


def test_battle_not_in_contact_refused():
    """IW Organizzazione dell'esercito (L114, HERALD D25): all the battle's companies in contact."""
    msg = refused(BASE.replace("x = 11\ny = 5", "x = 13\ny = 5"))
    assert "not deployed with all its companies in contact" in msg
    assert "2.00 UDM apart" in msg and "L114" in msg


def test_camp_not_in_open_refused():
    """IW Prima della battaglia 6 (L271): camps only in open terrain."""
    text = BASE + """
[[features]]
id = "wood"
kind = "woods"
points = [[38, 0], [42, 0], [42, 3], [38, 3]]
"""
    msg = refused(text)
    assert "the french camp stands on broken ground" in msg and "L271" in msg


def test_terrain_category_refused():
    """IW Terreno (HERALD D26): a kind in a category the text does not give it."""
    text = BASE + """
[[features]]
id = "r"
kind = "river"
category = "open"
points = [[0, 15], [45, 15]]
"""
    msg = refused(text)
    assert "a river is closed or impassable ground" in msg


def test_impassable_ground_refused():
    """IW Terreno impassabile (L199): nothing is deployed on impassable ground."""
    text = BASE + """
[[features]]
id = "lake"
kind = "lake"
points = [[9, 3], [12, 3], [12, 5.5], [9, 5.5]]
"""
    msg = refused(text)
    assert "impassable ground" in msg and "f1" in msg


def test_swiss_captain_fixed_refused():
    """IW Tabella 2 (L249, HERALD D15): a Swiss captain is always Rash."""
    msg = refused(BASE.replace('melee_weapon = "pike"', 'melee_weapon = "pike"\ncaptain = "timid"'))
    assert "Swiss captain is always Rash" in msg


def test_a_screens_weapon_is_the_battle_files_and_shoots():
    """IW Schermi di Schermagliatori (L84: crossbowmen or arquebusiers in front of shock
    infantry; HERALD D91): a battle file says a screen's weapon (`screen_weapon`), and the
    screen shoots with it; left out, an arquebus. A weapon for a company without a screen, or
    one a screen cannot carry, is refused with the reason."""
    from engine.italianwars.combat.shooting import shooter_of
    screened = BASE.replace('melee_weapon = "pike"', 'melee_weapon = "pike"\nscreen = true')
    for text, weapon in ((screened.replace("screen = true", 'screen = true\nscreen_weapon = "crossbow"'), "crossbow"),
                         (screened, "arquebus")):
        sc = parse_scenario(text)
        st = new_state(sc, 7)
        profile, *_, what = shooter_of(sc, st, st.companies["f2"])
        assert profile.missile == weapon and profile.shooting == 2 and what == "the screen of Swiss (f2)"
    msg = refused(BASE.replace('melee_weapon = "pike"', 'melee_weapon = "pike"\nscreen_weapon = "crossbow"'))
    assert "a company without a screen" in msg and "L84" in msg
    msg = refused(screened.replace("screen = true", 'screen = true\nscreen_weapon = "bow"'))
    assert "'bow' is not a known screen's weapon" in msg and "crossbow" in msg


def test_commander_not_in_battle_refused():
    """IW Organizzazione dell'esercito (L113): the commander is a captain of one of its companies."""
    msg = refused(BASE.replace('commander = "l1"', 'commander = "f1"'))
    assert "'f1' is not a company of the battle 'lb'" in msg


def test_two_cinc_refused():
    """IW Organizzazione dell'esercito (L113): one Commander-in-Chief a side."""
    text = BASE.replace('commander = "l1"\ncinc = true', 'commander = "l1"\ncinc = true') + """
[[battles]]
id = "lb2"
side = "league"
name = "Second"
commander = "l2"
cinc = true
[[companies]]
id = "l2"
battle = "lb2"
name = "Lances"
nation = "venetian"
arm = "cavalry"
morale = "mercenaries"
role = "shock"
armour = "armoured"
melee_weapon = "lance"
melee_factor = "valiant"
bases = 2
x = 20
y = 25
facing = 180
"""
    msg = refused(text)
    assert "exactly one battle of the Commander-in-Chief" in msg and "has 2" in msg


def test_company_attributes_refused():
    """IW Tipi di truppe, Artiglieria, Compagnie, Falange: shooters need a missile weapon and a
    factor, guns fire guns, companies have 1, 2 or 4 bases, no Rabble phalanx."""
    msg = refused(BASE.replace('role = "shock"\narmour = "armoured"\nmelee_weapon = "lance"\nmelee_factor = "valiant"',
                               'role = "shooting"\narmour = "armoured"\nmelee_weapon = "lance"\nmelee_factor = "valiant"'))
    assert "shooting troops are armed with missile weapons" in msg
    msg = refused(BASE.replace('melee_factor = "valiant"', 'melee_factor = "valiant"\nmissile_weapon = "crossbow"'))
    assert "needs a shooting factor" in msg
    msg = refused(BASE.replace("bases = 4", "bases = 3"))
    assert "1 (small), 2 (medium) or 4 (large)" in msg
    msg = refused(BASE.replace('melee_factor = "valiant"', 'melee_factor = "valiant"\nmissile_weapon = "light_gun"\nshooting_factor = "poor"'))
    assert "fired by artillery companies only" in msg


def test_ambush_rules_refused():
    """IW Prima della battaglia 5 (L270, HERALD D29): only the defender ambushes, in its own half,
    in broken or closed ground."""
    msg = refused(BASE.replace("x = 10\ny = 25\nfacing = 180", "x = 10\ny = 25\nfacing = 180\nambush = true"))
    assert "only the defender may lay an ambush" in msg
    text = BASE.replace('home_edge = "south"', 'home_edge = "south"\nattacker = true').replace(
        "x = 10\ny = 25\nfacing = 180", "x = 10\ny = 20\nfacing = 180\nambush = true")
    msg = refused(text)
    assert "an ambush hides in broken or closed ground" in msg
    ok = text + """
[[features]]
id = "w"
kind = "woods"
points = [[9, 19], [11, 19], [11, 22], [9, 22]]
"""
    sc = parse_scenario(ok)
    assert sc.company("l1").ambush and new_state(sc, 1).companies["l1"].hidden


def test_upload_list_check_is_advice():
    """armies.check_battle tells a club's upload where it leaves the lists (no type named),
    without refusing it."""
    sc = parse_scenario(BASE)
    problems = check_battle(sc)
    assert "french: f1 names no army list type" in problems
