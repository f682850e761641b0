"""Jours de Gloire tables (engine/jdg/tables.py): what the text fixes, the odds of what Herald
completes, and the marking of every Herald completion.

Run with -s to see the odds tables: .venv/bin/python -m pytest tests/engine/test_jdg_tables.py -s
"""
from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest

from engine.jdg import tables as T

ONE = Fraction(1)


# == (a) what the text fixes ======================================================================

def test_d10_is_read_0_to_9():                                  # [0.4] L46-48
    """[0.4] L48: one ten-sided die whose "0" is zero, not ten: faces 0-9."""
    assert T.D10_FACES == tuple(range(10))


@pytest.mark.parametrize("att, dfn, column", [
    (8, 3, "2:1"),            # [8.6] L539, the text's first example
    (5, 6, "1:1.5"),          # [8.6] L539, the text's second example
    (6, 6, "1:1"), (9, 6, "1.5:1"), (12, 6, "2:1"), (6, 4, "1.5:1"), (4, 6, "1:1.5"),
    (29, 10, "2:1"),          # no 2.5:1 column: 8:3 = 2.67 reads 2:1
    (3, 1, "3:1"), (7, 2, "3:1"), (4, 1, "4:1"), (20, 1, "4:1"),
    (1, 2, "1:2"), (2, 5, "1:3"), (1, 3, "1:3"), (1, 9, "1:3"),
    (5, 7, "1:1.5"), (5, 8, "1:2"),   # 5:8 = 1:1.6, rounded for the defender to 1:2
])
def test_force_ratio_rounds_in_the_defenders_favour(att, dfn, column):
    assert T.force_ratio_column(att, dfn).label == column


def test_force_ratio_needs_strength_on_both_sides():              # [8.9]: lone artillery is not rolled for
    with pytest.raises(ValueError):
        T.force_ratio_column(5, 0)


@pytest.mark.parametrize("total, band", [
    (-3, "none"), (8, "none"), (9, "check"), (12, "check"), (13, "disorder"), (14, "disorder"),
    (15, "rout"), (25, "rout"),
])
def test_fire_bands(total, band):                                  # [7.5] L449-453
    assert T.fire_result(total).key == band


@pytest.mark.parametrize("total, band", [
    (-7, "repulse"), (-1, "repulse"), (0, "check_attacker"), (4, "check_attacker"),
    (5, "fall_back"), (9, "fall_back"), (10, "breakthrough"), (18, "breakthrough"),
])
def test_assault_bands(total, band):                               # [8.5] L524-530
    assert T.assault_result(total).key == band


def test_fire_modifiers_the_text_names():
    d = T.FIRE_DRMS
    assert (d["combined_battery"].value, d["combined_battery"].source) == (+2, T.TEXT)     # [7.1] L399
    assert (d["reaction_fire"].value, d["reaction_fire"].source) == (-1, T.TEXT)           # [9.3] L633
    assert (d["reaction_with_square"].value, d["reaction_with_square"].source) == (-1, T.TEXT)  # [9.3]
    mods = T.fire_modifiers(range_band="point_blank", reaction=True, stacked_with_square=True)
    assert sorted(m.value for m in mods) == [-1, -1, +1]
    i = T.INFANTRY_FIRE_DRMS                                                                # opt. [8.3]
    assert (i["line_infantry"].value, i["steady_infantry"].value) == (-1, +1)


def test_line_infantry_under_7_never_reaches_9_in_any_terrain():
    """Optional [8.3] L878: 'impossibile ottenere un risultato di 9 col dado'. It holds only if no
    terrain gives the firer a bonus: every Herald fire DRM for terrain is <= 0."""
    for t in T.TERRAIN:
        for side in (None, "trench", "fortification_side", "stream"):
            total = T.D10_MAX + sum(m.value for m in T.infantry_fire_modifiers(
                line=True, steady=False, target_terrain=t, hexside=side))
            assert total < 9, (t, side)
    assert all(t.fire_drm <= 0 for t in T.TERRAIN.values())


def test_assault_modifiers_the_text_names():
    d = T.ASSAULT_DRMS
    named = {"heavy_charge": 3, "cavalry_charge": 1, "charge_vs_square": -2, "pursuit_recharge": -1,
             "routed_defender": 2, "six_front_off_front": -1, "open_terrain": 1}
    for key, value in named.items():                      # [9.2] [9.3] [9.5] [10.2] [6.1] Marengo 8.6
        assert (d[key].value, d[key].source) == (value, T.TEXT), key


def _values(**kw):
    base = dict(attacker_strength=6, defender_strength=6, attacker_cohesion=6, defender_cohesion=6)
    base.update(kw)
    return sorted(m.value for m in T.assault_modifiers(**base))


def test_charge_square_counter_charge_pursuit():
    assert _values(charge="heavy") == [1, 3]                            # open +1, heavy +3 [9.2]
    assert _values(charge="cavalry") == [1, 1]                          # [9.2]
    assert _values(charge="heavy", square=True) == [-2, 1]              # [9.3]: no +3, -2 instead
    assert _values(charge="heavy", counter_charged=True) == [1]         # [9.4]: no positive charge DRM
    assert _values(charge="cavalry", pursuit_recharges=2) == [-2, 1, 1]  # [9.5] cumulative
    assert _values(routed_defender=True) == [1, 2]                      # [10.2]
    assert _values(six_front_off_front=True, defender_terrain="village") == [-2, -1]  # [6.1]
    assert _values(attacker_cohesion=8, defender_cohesion=5) == [1, 3]  # [8.6] cohesion difference
    assert _values(attacker_strength=8, defender_strength=3) == [1, 2]  # [8.6] 2:1


def test_no_flank_for_six_fronts_or_routed():                             # [6.1] L349, [10.2] L720
    for kw in (dict(defender_terrain="village"), dict(routed_defender=True), dict(charge="heavy", square=True)):
        with pytest.raises(ValueError):
            _values(flank=True, **kw)
    assert _values(flank=True) == [1, 2]


def test_cascina_cancels_the_open_plus_one_for_infantry_only():          # Marengo 8.6 L953
    """Marengo D 8.6 L953: the open-ground +1 is cancelled when infantry (or infantry and
    artillery) hold the cascina, not cavalry; Marengo D 4.3 L941: otherwise a cascina is open."""
    def opens(types):
        return [m.value for m in T.terrain_assault_modifiers("cascina", types)]
    assert opens(["infantry"]) == []
    assert opens(["infantry", "artillery"]) == []
    assert opens(["cavalry"]) == [1]
    assert [m.value for m in T.terrain_assault_modifiers("clear", ["infantry"])] == [1]
    c, k = T.TERRAIN["cascina"], T.TERRAIN["clear"]                      # Marengo 4.3 L941: open terrain
    assert c.open_terrain and c.mp == k.mp and c.fire_drm == k.fire_drm and not c.six_front


def test_checks():
    assert T.cohesion_check(6, 6) and not T.cohesion_check(7, 6)                       # [0.3]
    assert not T.cohesion_check(5, 6, night=True)                                      # [12] +2
    assert T.cohesion_check(8, 6, modifier=-2)                                         # opt. [7] -2
    assert T.engagement_check(5, 5) and not T.engagement_check(4, 5, light_vs_heavy_counter_charge=True)  # [9.4]
    assert T.commander_initiative(5, 3, 2, in_radius=True)                             # [2.4] 5-2 <= 3
    assert not T.commander_initiative(5, 3, 2, in_radius=False)
    assert T.strategic_initiative(4, 1, 3, 2) is None                                  # [3] tie
    assert T.strategic_initiative(7, 0, 3, 2) == "a" and T.strategic_initiative(1, 0, 0, 2) == "b"
    assert T.square_attempt(5, {"a": 6, "b": 5}) == (True, [])                         # [9.3]
    assert T.square_attempt(6, {"a": 6, "b": 5}) == (False, ["b"])
    assert T.square_attempt({"a": 7, "b": 2}, {"a": 6, "b": 5}) == (False, ["a"])      # D54: per unit
    assert T.rally_check(4, 4, routed=False) and not T.rally_check(4, 4, routed=True)  # [11] +1
    assert T.rally_check(6, 4, routed=True, night=True)                                # [12] -3
    assert T.reduced_mp(4) == 2 and T.reduced_mp(5) == 3                               # [4.1]
    assert T.p_check(6) == Fraction(7, 10) and T.p_check(6, 2) == Fraction(1, 2)


def test_charge_terrain():                                                             # [9.1] L603-607
    for t in ("marsh", "village", "town", "fortification", "castle"):
        assert not T.can_charge_into(t)
    assert T.can_charge_into("clear") and T.can_charge_into("crops") and T.can_charge_into("cascina")
    assert not T.can_charge_into("woods")                 # 3 MP > 2
    assert T.can_charge_into("clear", "crest") and not T.can_charge_into("clear", "steep_slope")
    assert T.move_cost("artillery", "marsh") is None      # Herald: impassable to guns
    assert T.move_cost("infantry", "river_hex") is None   # Marengo 4.3 L945
    assert T.move_cost("artillery", "marsh", along_road=True) == Fraction(1, 2)   # [4.3] road


def test_text_lists_are_respected():
    """[6.1] six fronts, [9.1] no charge, [10.4] rout may stop, [10.3] retreats, [6.2] ZoC and
    [7.4] line of fire: every terrain agrees with the text's lists and cites them."""
    for t in T.TERRAIN.values():
        for name, (citation, true_for, scope) in T._TEXT_LISTS.items():
            if (scope == "hex" and t.kind != "hex") or not t.applies(name):
                continue
            assert getattr(t, name) == (t.key in true_for), (t.key, name)
            assert t.source(name).startswith("text"), (t.key, name)
    assert T.TERRAIN["steep_slope"].disorders[0] == "infantry"      # [8.7] L555


# == (b) the odds of the completed tables =========================================================

def _row(odds: dict[str, Fraction]) -> str:
    return "  ".join(f"{k} {T.pct(v):>4}" for k, v in odds.items())


def _monotone(rows: list[dict[str, Fraction]], keys: list[str]) -> None:
    """With a larger DRM, the chance of each band or better (for the firer / attacker) never falls."""
    for lo, hi in zip(rows, rows[1:]):
        for i in range(1, len(keys)):
            assert sum(hi[k] for k in keys[i:]) >= sum(lo[k] for k in keys[i:])


def test_assault_odds_table():
    keys = [b.key for b in T.ASSAULT_BANDS]
    print("\nAssault & Charge Table, d10 (0-9) + total DRM [8.5]:")
    print("  DRM  " + "  ".join(f"{b.label:>14}" for b in T.ASSAULT_BANDS))
    rows = []
    for drm in range(-11, 12):
        odds = T.assault_odds(drm)
        assert sum(odds.values()) == ONE
        rows.append(odds)
        print(f"  {drm:+3d}  " + "  ".join(f"{T.pct(odds[k]):>14}" for k in keys))
    _monotone(rows, keys)

    def situation(label, **kw):
        base = dict(attacker_strength=6, defender_strength=6, attacker_cohesion=6, defender_cohesion=6)
        base.update(kw)
        drm = sum(m.value for m in T.assault_modifiers(**base))
        odds = T.assault_odds(drm)
        print(f"  {label:<52} DRM {drm:+d}: {_row(odds)}")
        return odds

    print("Named situations (6 v 6 strength, cohesion 6 v 6 unless said):")
    even = situation("even assault, clear")
    assert [even[k] for k in keys] == [0, Fraction(4, 10), Fraction(5, 10), Fraction(1, 10)]
    situation("even assault, flank (Herald +2)", flank=True)
    situation("8 v 3 (2:1), clear", attacker_strength=8, defender_strength=3)
    situation("4 v 6 (1:1.5), clear", attacker_strength=4, defender_strength=6)
    situation("2 v 6 (1:3), clear", attacker_strength=2, defender_strength=6)
    situation("even assault on a village", defender_terrain="village")
    situation("even assault on a town", defender_terrain="town")
    situation("even assault on woods", defender_terrain="woods")
    situation("even assault on infantry in a cascina", defender_terrain="cascina")
    situation("even assault across a bridge", hexside="bridge")
    situation("even assault up a steep slope", hexside="steep_slope", attacker_uphill=True)
    heavy = situation("heavy cavalry charge, even, clear", charge="heavy")
    situation("light cavalry charge, even, clear", charge="cavalry")
    sq = situation("heavy charge on a square", charge="heavy", square=True)
    situation("heavy charge, counter-charged", charge="heavy", counter_charged=True)
    situation("light charge, 2nd pursuit re-charge", charge="cavalry", pursuit_recharges=2)
    situation("even assault on a routed unit", routed_defender=True)
    # breakthroughs rare at even odds, never a repulse (< 0) without a terrain or odds handicap
    assert even["breakthrough"] == Fraction(1, 10) and even["repulse"] == 0
    assert heavy["breakthrough"] == Fraction(4, 10) and sq["breakthrough"] == 0


def test_fire_odds_table():
    keys = [b.key for b in T.FIRE_BANDS]
    print("\nFire Table, d10 (0-9) + firepower + DRM [7.5]  (none / 9-12 check / 13-14 disorder / 15+ rout):")
    bands = {"maximum range (-2)": "maximum", "effective range (0)": "effective", "point-blank (+1)": "point_blank"}
    for fp in range(1, 9):
        cells = []
        for label, rb in bands.items():
            drm = sum(m.value for m in T.fire_modifiers(range_band=rb))
            odds = T.fire_odds(fp, drm)
            assert sum(odds.values()) == ONE
            cells.append(f"{label}: " + "/".join(T.pct(odds[k]) for k in keys))
        print(f"  firepower {fp}:  " + "   ".join(cells))
    rows = [T.fire_odds(0, drm) for drm in range(-5, 20)]
    _monotone(rows, keys)
    for label, kw in [("firepower 4, effective, target in square (+2)", dict(target_in_square=True)),
                      ("firepower 4, effective, target in woods (-1)", dict(target_terrain="woods")),
                      ("firepower 4, effective, target in a town (-2)", dict(target_terrain="town")),
                      ("firepower 4, reaction fire at an adjacent attacker", dict(reaction=True)),
                      ("firepower 4, combined battery (+2)", dict(combined=True))]:
        rb = "point_blank" if "reaction" in label else "effective"
        drm = sum(m.value for m in T.fire_modifiers(range_band=rb, **kw))
        print(f"  {label:<52} DRM {drm:+d}: {_row(T.fire_odds(4, drm))}")
    print("Infantry reaction fire (opt. 8.3), d10 + (-1..+1):")
    for label, line, steady in [("line, under 7", True, False), ("line, 7+", True, True),
                                ("light, under 7", False, False), ("light, 7+", False, True)]:
        drm = sum(m.value for m in T.infantry_fire_modifiers(line=line, steady=steady))
        print(f"  {label:<16} {_row(T.fire_odds(0, drm))}")
    assert T.fire_odds(4, 0)["none"] == Fraction(1, 2)
    assert T.fire_odds(4, -2)["disorder"] == 0


def test_checks_odds_table():
    print("\nChecks [0.3]: P(pass) = P(d10 + DRM <= value)")
    for v in range(0, 10):
        p = [T.p_check(v, m) for m in (0, 1, 2, -3)]
        print(f"  value {v}:  plain {T.pct(p[0]):>4}  +1 (routed rally) {T.pct(p[1]):>4}  "
              f"+2 (night CC) {T.pct(p[2]):>4}  -3 (routed rally at night) {T.pct(p[3]):>4}")
        assert p[0] == Fraction(v + 1, 10)



def test_the_completed_tables_odds_within_the_texts_bands():
    """Issue 14: the completed tables' odds, printed (-s), inside the bands the text fixes: the Fire
    Table [7.5] L449-453 (below 9 nothing, 9-12 check, 13-14 disorder, 15+ rout), the Assault &
    Charge Table [8.5] L524-530 (10+, 5-9, 0-4, below 0) and the force ratio [8.6] L539 (8:3 reads
    2:1, 5:6 reads 1:1.5). Each odds cell is the count of d10 faces whose total falls in the band."""
    fire = {b.key: (b.low, b.high) for b in T.FIRE_BANDS}
    assert fire == {"none": (None, 8), "check": (9, 12), "disorder": (13, 14), "rout": (15, None)}
    assault = {b.key: (b.low, b.high) for b in T.ASSAULT_BANDS}
    assert assault == {"repulse": (None, -1), "check_attacker": (0, 4), "fall_back": (5, 9),
                       "breakthrough": (10, None)}
    assert T.force_ratio_column(8, 3).label == "2:1" and T.force_ratio_column(5, 6).label == "1:1.5"

    def faces(bands, base):
        return {b.key: Fraction(sum(1 for r in T.D10_FACES if T.band_of(bands, base + r) is b), 10)
                for b in bands}

    print("\nFire Table [7.5]: d10 + firepower + DRM -> none <9 / check 9-12 / disorder 13-14 / rout 15+")
    for base in range(0, 16):
        odds = T.fire_odds(base, 0)
        assert odds == faces(T.FIRE_BANDS, base), base
        print(f"  firepower+DRM {base:>2}: {_row(odds)}")
    print("Assault & Charge Table [8.5]: d10 + DRM -> repulse <0 / attacker 0-4 / fall back 5-9 / 10+")
    for drm in range(-10, 11):
        odds = T.assault_odds(drm)
        assert odds == faces(T.ASSAULT_BANDS, drm), drm
        print(f"  DRM {drm:+3d}: {_row(odds)}")
    print("Force ratio [8.6] (Herald's columns, rounded in the defender's favour):")
    for col in T.FORCE_RATIO_COLUMNS:
        print(f"  {col.label:>6}  DRM {col.drm:+d}")
    for att, dfn in ((8, 3), (5, 6)):
        col = T.force_ratio_column(att, dfn)
        print(f"  the text's example {att} v {dfn}: {col.label} (DRM {col.drm:+d})")


# == (c) every Herald completion is marked as such ================================================

def test_every_drm_is_marked():
    all_drms = (list(T.FIRE_DRMS.values()) + list(T.INFANTRY_FIRE_DRMS.values())
                + list(T.ASSAULT_DRMS.values()) + list(T.UPHILL_ASSAULT.values())
                + list(T.ATTACKER_TERRAIN_DRM.values()))
    for d in all_drms:
        assert d.source in (T.TEXT, T.HERALD)
        assert d.section.startswith("JdG ")
        if d.source == T.HERALD:
            assert d.why and "Herald completion" in d.modifier().section
        else:
            assert "Herald" not in d.modifier().section
    herald = {d.key for d in all_drms if d.source == T.HERALD}
    assert herald == {"effective_range", "maximum_range", "point_blank", "target_in_square", "target_uphill",
                      "counter_battery", "flank", "uphill_crest", "uphill_steep", "attacker_in_marsh"}


def test_every_terrain_field_is_text_or_herald():
    """[0.2] L22: each terrain's effects are on the Terrain Effects Table; the text does not print
    it, so every field of tables.TERRAIN is the text's (cited) or a marked Herald completion."""
    for t in T.TERRAIN.values():
        assert t.why, t.key
        for f in t.FIELDS:
            src = t.source(f)
            assert src == T.HERALD or src.startswith("text JdG ") or src.startswith("not applicable"), (t.key, f)
        assert t.kind in T.NOT_APPLICABLE
        for f in t.text:
            assert f in t.FIELDS, (t.key, f)


def test_herald_values_lists_every_completion():
    listed = dict(T.herald_values())
    assert all(listed.values())                                       # each with its reasoning
    for c in T.FORCE_RATIO_COLUMNS:
        assert f"force_ratio.{c.label} = {c.drm:+d}" in listed
    assert "assault.flank = +2" in listed and "fire.maximum_range = -2" in listed
    assert "terrain.woods.mp = {'infantry': 2, 'cavalry': 3, 'artillery': 3}" in listed
    assert not any(k.startswith("terrain.cascina.") for k in listed)   # Marengo 4.3: all text
    assert T.FORCE_RATIO_SOURCE["drm"][0] == T.HERALD and T.FORCE_RATIO_SOURCE["rounding"][0] == T.TEXT
    print(f"\n{len(listed)} Herald-completion values in engine/jdg/tables.py")


def test_imports_only_stdlib_and_engine_core():
    # tables.py and its parts (tables_checks.py, tables_fire.py, tables_assault.py,
    # tables_terrain.py), which may import one another
    parts = sorted(Path(T.__file__).parent.glob("tables*.py"))
    assert len(parts) == 5, parts
    for path in parts:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module in ("__future__", "dataclasses", "fractions", "typing", "math") \
                    or node.module.startswith(("engine.core", "engine.jdg.tables_")), (path.name, node.module)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    assert a.name in ("math",), (path.name, a.name)
