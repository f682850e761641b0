"""Lion of the North battles (engine/lion/scenario.py, setup.py, armies.py, scenarios/*.toml):
both battles load and place every base legally (on the 180 x 120 table, HERALD D1; in their
deployment zone, HERALD D24; no overlaps; groups as unbroken fronts, [4 B]); a club's bad upload
is refused with a message naming the rule, the place and by how much; new_state builds a state
that survives to_dict / from_dict. The rectangles are built here by hand from the state's
conventions (front-edge centre, compass facing, the base behind it) with shapely, not with the
validator's own code."""
from __future__ import annotations

import math
import re
from itertools import combinations

import pytest
from shapely.geometry import Polygon, box

from engine.core.errors import Illegal
from engine.core.table.geometry import Pose
from engine.core.table.moves import group_front
from engine.lion import tables as T
from engine.lion.armies import army_lists, check_battle
from engine.lion.scenario import (
    MAX_SCENARIO_BYTES,
    ScenarioError,
    list_scenarios,
    load_scenario,
    parse_scenario,
)
from engine.lion.setup import OPTIONAL_RULES, has_option, new_state
from engine.lion.state import LionState

BATTLES = ("breitenfeld", "lutzen")
SIZES = {"infantry": (4, 2), "cavalry": (4, 3), "artillery": (3, 3.5), "pike_and_shot": (8, 2),
         "tercio": (8, 4), "general": (2, 2), "camp": (9, 6)}


def rect(x, y, facing, width, depth) -> Polygon:
    """The base by hand: front edge centred on (x, y); forward = (sin f, cos f) (0 = north)."""
    a = math.radians(facing)
    fx, fy = math.sin(a), math.cos(a)
    rx, ry = fy, -fx
    fl = (x - rx * width / 2, y - ry * width / 2)
    fr = (x + rx * width / 2, y + ry * width / 2)
    return Polygon([fl, fr, (fr[0] - fx * depth, fr[1] - fy * depth),
                    (fl[0] - fx * depth, fl[1] - fy * depth)])


def size_of(u) -> tuple[float, float]:
    t = T.TROOPS[T.effective_type(u.type, u.mounted)]
    if t.key == "tercio":
        return SIZES["tercio"]
    if t.footprint.width == 8:
        return SIZES["pike_and_shot"]
    return SIZES["cavalry" if t.arm == "cavalry" else t.arm]


def bases(sc):
    out = [(f"unit {u.id}", u.side, rect(u.x, u.y, u.facing, *size_of(u)))
           for u in sc.units if not u.arrives]
    out += [(f"general {g.id}", g.side, rect(g.x, g.y, g.facing, *SIZES["general"]))
            for g in sc.generals]
    out += [(f"camp {c.side}", c.side, rect(c.x, c.y, c.facing, *SIZES["camp"])) for c in sc.camps]
    return out


def zone(sc, side) -> Polygon:
    a = sc.armies[side]
    if a.deployment:
        return Polygon(a.deployment)
    return box(0, 0, 180, 30) if a.home_edge == "south" else box(0, 90, 180, 120)


# == the two battles ============================================================================

def test_battles_listed():
    """Both ready battles are bundled."""
    assert set(BATTLES) <= set(list_scenarios())


@pytest.mark.parametrize("sid", BATTLES)
def test_battle_loads_with_both_armies(sid):
    """[3] player A is the Swedes at the south edge (HERALD D1); 20-35 units a side; one C-in-C
    each [11 B]; a camp each [12 A]; a turn limit (HERALD D25)."""
    sc = load_scenario(sid)
    assert (sc.width, sc.height) == (180, 120)
    assert sc.player("A") == "swedish" and sc.player("B") == "imperial"
    assert sc.armies["swedish"].home_edge == "south" and sc.armies["imperial"].home_edge == "north"
    for side in ("swedish", "imperial"):
        n = len(sc.units_of(side))
        assert 20 <= n <= 35, (side, n)
        assert [g.role for g in sc.generals if g.side == side].count("cinc") == 1
        assert 1 <= len([g for g in sc.generals if g.side == side and g.role != "cinc"]) <= 3
        assert sum(c.side == side for c in sc.camps) == 1
    assert sc.turn_limit == 20          # a day's battle at [2]'s 15-20 minutes a turn (HERALD D25)
    assert sc.provenance["herald_completion"] and sc.provenance["from_text"]
    assert sc.history["text"] and sc.history["result"]


@pytest.mark.parametrize("sid", BATTLES)
def test_every_base_on_the_table_and_in_its_zone(sid):
    """HERALD D1, D24: every unit, general and camp lies inside the 180 x 120 table and inside its
    army's deployment zone (the 30 cm strip, or the battle's polygon)."""
    sc = load_scenario(sid)
    table = box(0, 0, 180, 120).buffer(0.001)
    for label, side, poly in bases(sc):
        assert table.contains(poly), label
        assert zone(sc, side).buffer(0.001).contains(poly), label
    for u in sc.units:                       # arrivals too are on the table
        assert table.contains(rect(u.x, u.y, u.facing, *size_of(u))), u.id


@pytest.mark.parametrize("sid", BATTLES)
def test_no_base_overlaps_another(sid):
    """L26: bases may touch but never overlap."""
    sc = load_scenario(sid)
    for (la, _, pa), (lb, _, pb) in combinations(bases(sc), 2):
        assert pa.intersection(pb).area < 0.01, (la, lb)


@pytest.mark.parametrize("sid", BATTLES)
def test_groups_form_fronts(sid):
    """[4 B] L50: each group a battle names is an unbroken front (same facing, front edges in line,
    sides touching) of types that may move together; most units start in one."""
    sc = load_scenario(sid)
    labels = sorted({(u.side, u.group) for u in sc.units if u.group})
    assert len(labels) >= 10
    for side, label in labels:
        members = [u for u in sc.units if u.side == side and u.group == label]
        assert len(members) >= 2, label
        fp = [(u.id, Pose(u.x, u.y, u.facing), T.Size(*size_of(u))) for u in members]
        assert group_front(fp) is None, (label, group_front(fp))
        arms = {T.TROOPS[u.type].arm for u in members}
        assert len(arms) == 1 or arms <= {"infantry", "artillery"} or (
            arms == {"cavalry", "infantry"} and {sc.nation_of(u) for u in members} == {"swedish"}
            and all(u.type == "musketeers" for u in members if T.TROOPS[u.type].arm == "infantry"))
    grouped = sum(1 for u in sc.units if u.group)
    assert grouped >= 0.8 * len(sc.units)


@pytest.mark.parametrize("sid", BATTLES)
def test_units_stand_where_they_may(sid):
    """[5 B] L65, [6 A] L71: no unit in a river or stream off its crossings, no gun in woods or
    marsh, only musketeers, militia and dismounted dragoons in a town."""
    sc = load_scenario(sid)
    for u in sc.starting_units():
        poly = rect(u.x, u.y, u.facing, *size_of(u))
        for f in sc.features:
            if poly.intersection(f.geometry).area < 0.01:
                continue
            assert f.kind not in ("river", "stream"), (u.id, f.id)
            if f.kind == "town":
                assert u.type in T.TOWN_OCCUPANTS, (u.id, f.id)
            if f.kind in ("woods", "marsh"):
                assert T.TROOPS[u.type].arm != "artillery", (u.id, f.id)


@pytest.mark.parametrize("sid", BATTLES)
def test_battles_keep_to_the_army_lists(sid):
    """HERALD D17, D27: each nation's units are within its army list (armies.toml)."""
    assert check_battle(load_scenario(sid)) == []


def test_army_lists():
    """The four lists of the issue, with their disciplines [4 E] and notes; only the Swedes mix
    cavalry with musketeers [4 B] L50."""
    lists = army_lists()
    assert set(lists) == {"swedish", "imperial", "spanish", "saxon"}
    assert {k: v.discipline for k, v in lists.items()} == {
        "swedish": "trained", "imperial": "regular", "spanish": "regular", "saxon": "irregular"}
    assert [k for k, v in lists.items() if v.mixed_groups] == ["swedish"]
    assert lists["spanish"].allowance("tercio", "elite") is not None
    assert lists["saxon"].allowance("pike_and_shot", "untrained").max >= 3
    assert all(v.note and v.sources for v in lists.values())


def test_breitenfeld_history():
    """Breitenfeld: Saxons (irregular, mostly untrained) on the Swedish left; Tilly's infantry in
    tercios; Swedes trained, Imperial regular (HERALD D27)."""
    sc = load_scenario("breitenfeld")
    assert sc.armies["swedish"].discipline == "trained"
    assert sc.armies["imperial"].discipline == "regular"
    saxons = [u for u in sc.units if sc.nation_of(u) == "saxon"]
    swedes = [u for u in sc.units if u.side == "swedish" and sc.nation_of(u) == "swedish"]
    assert len(saxons) >= 8 and all(sc.discipline_of(u) == "irregular" for u in saxons)
    assert sum(u.quality == "untrained" for u in saxons) >= 4
    assert max(u.x for u in saxons) < min(u.x for u in swedes)       # on the left (west)
    assert sum(u.type == "tercio" for u in sc.units if u.side == "imperial") >= 6
    assert sc.discipline_of(sc.general("johngeorge")) == "irregular"


def test_lutzen_history():
    """Lützen: the road with musketeers in its ditch ("defences", cover [7 C]), the town and its
    windmill battery, Pappenheim's horse arriving, and the fog (limited visibility [15] 1)."""
    sc = load_scenario("lutzen")
    ditch = sc.feature("road-ditch")
    assert ditch.kind == "defences" and sc.feature("leipzig-road").kind == "road"
    musk = [u for u in sc.units if u.group == "road-musketeers"]
    assert len(musk) == 4 and all(u.type == "musketeers" for u in musk)
    assert all(rect(u.x, u.y, u.facing, 4, 2).distance(ditch.geometry) < 0.01 for u in musk)
    town = sc.feature("lutzen").geometry
    assert [u.id for u in sc.starting_units() if rect(u.x, u.y, u.facing, *size_of(u)).intersects(town)] == ["imp-lutzen"]
    mill = sc.feature("windmill-hill")
    assert mill.kind == "hill" and all(
        mill.geometry.contains(rect(u.x, u.y, u.facing, 3, 3.5)) for u in sc.units if u.group == "windmill-battery")
    late = [u for u in sc.units if u.arrives]
    assert {u.arrival_turn for u in late} == {3} and len(late) == 4
    assert sc.has_rule("fog")


# == new_state ==================================================================================

@pytest.mark.parametrize("sid", BATTLES)
def test_new_state_round_trip(sid):
    """new_state builds every unit, general, camp and army; to_dict / from_dict gives it back."""
    sc = load_scenario(sid)
    st = new_state(sc, 11)
    assert set(st.units) == {u.id for u in sc.units}
    assert set(st.generals) == {g.id for g in sc.generals}
    assert set(st.camps) == {"swedish", "imperial"}
    assert st.armies["swedish"].discipline == "trained"
    assert st.players == {"A": "swedish", "B": "imperial"}
    assert sorted(st.deck) == sorted(T.CARDS)
    back = LionState.from_dict(st.to_dict())
    assert back == st and back.to_dict() == st.to_dict()


def test_new_state_places_and_waits():
    """Units arriving later wait off the table; the fog special rule starts in limited visibility
    [15] 1; guns that never move are in battery [6 B]."""
    sc = load_scenario("lutzen")
    st = new_state(sc, 1)
    assert sorted(u for u, x in st.units.items() if x.status == "waiting") == [
        "imp-papp1", "imp-papp2", "imp-papp3", "imp-papp4"]
    assert st.weather == {"visibility": True}
    assert st.units["imp-mill1"].deployed
    u = sc.unit("sw-yellow")
    assert (st.units["sw-yellow"].x, st.units["sw-yellow"].y, st.units["sw-yellow"].facing) == (u.x, u.y, 0.0)
    assert st.units["sw-yellow"].quality == "elite"
    assert new_state(load_scenario("breitenfeld"), 1).weather == {}


def test_large_armies_option():
    """[4 E] L60 (HERALD D20): with "large-armies" the battle's wing generals command wings (a die
    lower: trained d6, irregular d3); without it they are sub-commanders."""
    from engine.lion.setup import cpt_die_of
    sc = load_scenario("breitenfeld")
    plain = new_state(sc, 3)
    assert not has_option(plain, "large-armies")
    assert plain.generals["baner"].role == "sub" and plain.generals["gustavus"].role == "cinc"
    big = new_state(sc, 3, ["large-armies"])
    assert has_option(big, "large-armies")
    assert {g: big.generals[g].role for g in ("gustavus", "horn", "baner", "johngeorge")} == {
        "gustavus": "cinc", "horn": "sub", "baner": "wing", "johngeorge": "wing"}
    assert cpt_die_of(sc, big, "gustavus") == 8
    assert cpt_die_of(sc, big, "baner") == 6
    assert cpt_die_of(sc, big, "johngeorge") == 3          # the Saxons' own irregular discipline
    assert cpt_die_of(sc, big, "pappenheim") == 4
    assert "large-armies" in dict(OPTIONAL_RULES)


def test_unknown_option_refused():
    """An optional rule that does not exist is refused, naming the known ones."""
    with pytest.raises(Illegal, match="unknown optional rule.*large-armies"):
        new_state(load_scenario("lutzen"), 1, ["huge-armies"])


# == a club's upload ============================================================================

MINI_TEXT = '''id = "mini"
title = "A small fight"
[[armies]]
side = "swedish"
name = "Swedes"
nation = "swedish"
discipline = "trained"
player = "A"
home_edge = "south"
[[armies]]
side = "imperial"
name = "Imperials"
nation = "imperial"
discipline = "regular"
player = "B"
home_edge = "north"
[[features]]
id = "brook"
kind = "stream"
points = [[0, 60], [180, 60]]
[[features]]
id = "ford"
kind = "ford"
points = [[90, 57], [90, 63]]
[[features]]
id = "hamlet"
kind = "town"
points = [[140, 95], [150, 95], [150, 105], [140, 105]]
[[units]]
id = "blue"
side = "swedish"
name = "Blue brigade"
type = "late_pike_and_shot"
x = 50
y = 20
facing = 0
group = "foot"
[[units]]
id = "yellow"
side = "swedish"
name = "Yellow brigade"
type = "late_pike_and_shot"
x = 58
y = 20
facing = 0
group = "foot"
[[units]]
id = "old"
side = "imperial"
name = "Old tercio"
type = "tercio"
x = 90
y = 100
facing = 180
[[generals]]
id = "gustavus"
side = "swedish"
name = "Gustavus"
role = "cinc"
x = 54
y = 10
facing = 0
[[generals]]
id = "tilly"
side = "imperial"
name = "Tilly"
role = "cinc"
x = 90
y = 110
facing = 180
[[camps]]
side = "swedish"
x = 150
y = 6
facing = 0
[[camps]]
side = "imperial"
x = 150
y = 114
facing = 180
'''


def test_the_small_upload_is_good():
    """The base file of the refusals below is itself valid."""
    sc = parse_scenario(MINI_TEXT, "mini.toml")
    assert [u.id for u in sc.units] == ["blue", "yellow", "old"]
    assert sc.feature("brook").geometry.area == pytest.approx(360.0)     # 180 x 2 cm (L28)


def upload(old: str, new: str, count: int = 1) -> str:
    assert old in MINI_TEXT, old
    return MINI_TEXT.replace(old, new, count)


@pytest.mark.parametrize("text, message", [
    (upload('name = "Blue brigade"', 'name = "Blue brigade"\ncolour = "blue"'),
     r"units\[0\] \(blue\): unknown key\(s\) colour .*\(line 33\)"),
    (upload('x = 50\ny = 20\nfacing = 0\ngroup = "foot"', 'x = 50\ny = 20\nfacng = 0'),
     r"unknown key\(s\) facng \(did you mean 'facing'\?"),
    (upload('type = "tercio"', 'type = "tercios"'),
     r"units\[2\] \(old\)\.type: 'tercios' is not a known troop type: .*did you mean 'tercio'\?"),
    (upload('x = 90\ny = 100', 'x = 179\ny = 100'),
     r"unit old \(Old tercio, tercio\) lies 3\.00 cm off the 180 x 120 cm table"),
    (upload('x = 58', 'x = 54'),
     (r"unit blue \(Blue brigade, late_pike_and_shot\) overlaps unit yellow \(Yellow brigade, "
     r"late_pike_and_shot\) by 8\.00 sq cm")),
    (upload('facing = 180\n[[generals]]', 'facing = 360\n[[generals]]'),
     r"units\[2\] \(old\)\.facing: 360 is not a compass bearing 0 <= facing < 360"),
    (upload('facing = 180\n[[generals]]', 'facing = "south"\n[[generals]]'),
     r"units\[2\] \(old\)\.facing: expected a number, got 'south'"),
    (upload('y = 100', 'y = 80'),
     (r"unit old \(Old tercio, tercio\) is outside the imperial deployment zone \(the 30 cm strip "
     r"along the north edge\) by 32\.00 sq cm")),
    (upload('x = 50\ny = 20', 'x = 50\ny = 30'),
     r"the group 'foot' cannot move as one group: yellow is 10\.00 cm behind the front of blue"),
    (upload('side = "imperial"\nname = "Old tercio"\ntype = "tercio"\nx = 90',
            'side = "imperial"\nname = "Old tercio"\ntype = "regular_cavalry"\nx = 145'),
     (r"unit old \(regular_cavalry\) stands in the town hamlet: only musketeers, militia and "
     r"dismounted dragoons occupy towns \[5 B\]")),
    (upload('role = "cinc"\nx = 90', 'role = "sub"\nx = 90'),
     r"the imperial army needs exactly one commander-in-chief \(role \"cinc\"\) \[11 B\]; it has 0"),
    (upload('[[camps]]\nside = "imperial"\nx = 150\ny = 114\nfacing = 180\n', ''),
     r"the imperial army has no camp: each army has its own \[12 A\]"),
    (upload('points = [[90, 57], [90, 63]]', 'points = [[20, 10], [20, 14]]'),
     r"features\[1\] \(ford\): a ford must cross a river or stream \[5 B\]"),
    (upload('player = "B"', 'player = "A"'), r"one army must be player \"A\" and the other \"B\""),
    (upload('discipline = "regular"', 'discipline = "veteran"'),
     r"'veteran' is not a known discipline: one of irregular, regular, trained"),
    (upload('type = "tercio"', 'type = "tercio"\nquality = "veteran"'),      # the blank choice shown as ''
     r"units\[2\] \(old\)\.quality: 'veteran' is not a known quality: one of '', elite, untrained \(line"),
    (upload('id = "mini"', 'id = "mini"\nturn_limt = 12'), r"unknown key\(s\) turn_limt .*did you mean 'turn_limit'"),
    ("id = 'x'\n[[units]\n", r"TOML syntax"),
])
def test_bad_upload_is_refused_clearly(text, message):
    """A club's file that breaks the schema or the placement rules is refused with a message that
    names the place (and line), the rule and by how much (DESIGN principle 6)."""
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "upload.toml")


def test_unit_in_the_stream_but_not_at_the_ford():
    """[5 B] L65 "Non è possibile per nessuno attraversare un corso d'acqua tranne che su ponti o
    guadi": a unit on the stream away from the ford is refused; on the ford it is not refused for
    the water (its zone still applies)."""
    wet = upload('name = "Imperials"', 'name = "Imperials"\ndeployment = [[0, 50], [180, 50], [180, 120], [0, 120]]')
    wet = wet.replace('x = 90\ny = 100', 'x = 40\ny = 60')
    with pytest.raises(ScenarioError, match=r"unit old stands in the stream brook: a watercourse is crossed only at fords"):
        parse_scenario(wet, "upload.toml")
    dry = wet.replace('x = 40\ny = 60', 'x = 90\ny = 58')   # the tercio's 86-94 is wider than the ford's 87.5-92.5
    with pytest.raises(ScenarioError, match=r"stands in the stream brook"):
        parse_scenario(dry, "upload.toml")
    narrow = wet.replace('type = "tercio"\nx = 40\ny = 60', 'type = "musketeers"\nx = 90\ny = 58')
    sc = parse_scenario(narrow, "upload.toml")         # 88-92 x 58-60: all on the ford
    assert sc.unit("old").type == "musketeers"


def test_mixed_group_only_for_swedes():
    """[4 B] L50: cavalry and musketeers move as one group only in the Swedish army."""
    text = upload('type = "late_pike_and_shot"\nx = 58', 'type = "musketeers"\nx = 56')
    text = text.replace('type = "late_pike_and_shot"\nx = 50', 'type = "regular_cavalry"\nx = 52')
    assert parse_scenario(text, "upload.toml").unit("blue").type == "regular_cavalry"
    saxon = text.replace('nation = "swedish"', 'nation = "saxon"')
    with pytest.raises(ScenarioError, match=r"cavalry and musketeers move as one group only in the Swedish army"):
        parse_scenario(saxon, "upload.toml")


def test_upload_too_large():
    """An upload larger than the limit is refused before it is read."""
    with pytest.raises(ScenarioError, match="larger than"):
        parse_scenario(MINI_TEXT + "#" * MAX_SCENARIO_BYTES, "upload.toml")


def test_bundled_files_name_no_unknown_special_rule():
    """Every special rule a bundled battle names is one the engine knows."""
    from engine.lion.scenario import SPECIAL_RULES
    for sid in BATTLES:
        assert all(r.id in SPECIAL_RULES for r in load_scenario(sid).special_rules)
        assert re.match(r"^\d{4}-\d{2}-\d{2}$", load_scenario(sid).date)
