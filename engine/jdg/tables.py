"""Jours de Gloire "Classique" (Frédéric Bey): every table of the game as data.

DESIGN principle 4: the tables live here as plain data with small pure functions, each value citing
its rule paragraph ("JdG 8.6") and the lines of `rules/jours-de-gloire.it.txt` it was read from
("L535-547"). The Italian text is the authority.

The text refers to four tables it does not contain (rules/README.md, digest §5.2): the Terrain
Effects Table (TET, [0.2] [4.3]), the Fire Table ([7.5], optional [8.3]), the Assault & Charge
Table ([6.1] [8.5] [8.6]) and the Force Ratio Table ([8.6]). What the text fixes is fixed here and
marked `TEXT`; every other value is Herald's own, marked `HERALD` ("Herald completion"), with its
reasoning beside it and the odds it produces (see `fire_odds`, `assault_odds`, and
`engine/jdg/TABLES.md`). A club that owns the printed player aid replaces the `HERALD` values in
these files; a test lists which values are ours.

Reading conventions:
- The die is one d10 read 0-9 ("Lo '0' viene considerato come zero, e non dieci", [0.4] L46-48).
- Checks (cohesion CC, engagement CI, initiative, square, rally) pass when d10 + modifiers <= the
  value ([0.3] L38-44). A positive modifier on a check is a penalty.
- Result tables (fire, assault) add modifiers to the d10; a positive modifier favours the firer /
  attacker.
- The glyph lost as "(" in the file ("( 15" L453, "( 10" L524, "coesione ( 7" L875) is read "≥"
  (digest A3).

The tables are kept by the rulebook's own tables, each in its module, and every name is
re-exported here (`tables.<name>`, as every importer reads them): tables_checks.py (the d10
[0.4], the `Drm` and `Band` records, the checks [0.3] [2.4] [3] [9.3] [9.4] [11], the text's fixed
numbers RULE_NUMBERS and the night [12]), tables_fire.py (the Fire Table [7], optional [8.3]),
tables_assault.py (the Force Ratio Table [8.6] and the Assault & Charge Table [8.5] [8.6] [9]) and
tables_terrain.py (the Terrain Effects Table [0.2] [4.3], movement costs, charge terrain [9.1]).
This module keeps `herald_values`, every Herald completion of the four.

Pure data and functions: standard library, engine.core and these parts only; no I/O, discord,
sqlite, Pillow.
"""
from __future__ import annotations

from engine.jdg.tables_assault import (  # noqa: F401
    ASSAULT_BANDS, ASSAULT_DRMS, CHARGE_DRM_KEYS, COHESION_DIFFERENCE, FORCE_RATIO_COLUMNS,
    FORCE_RATIO_SOURCE, SQUARE_CHARGE_READING, RatioColumn, assault_modifiers, assault_odds,
    assault_result, force_ratio_column, terrain_assault_modifiers)
from engine.jdg.tables_checks import (  # noqa: F401
    CHECK_SECTIONS, COUNTER_CHARGE_LIGHT_VS_HEAVY, D10_FACES, D10_MAX, D10_MIN, FRIENDLY_FIRE_COHESION,
    FRIENDLY_FIRE_MAX_UNMODIFIED, HERALD, NIGHT, NIGHT_COHESION_DRM, RALLY_ROUTED, RALLY_ROUTED_NIGHT,
    RULE_NUMBERS, TEXT, UNIT_TYPES, Band, Drm, band_odds, band_of, cite, cohesion_check,
    commander_initiative, engagement_check, p_check, pct, rally_check, reduced_mp, square_attempt,
    strategic_initiative)
from engine.jdg.tables_fire import (  # noqa: F401
    FIRE_BANDS, FIRE_DRMS, INFANTRY_FIRE_DRMS, NO_COLUMN_NOTE, fire_modifiers, fire_odds, fire_result,
    infantry_fire_modifiers, terrain_fire_modifiers)
from engine.jdg.tables_terrain import (  # noqa: F401
    ATTACKER_TERRAIN_DRM, FIELD_WHY, HERALD_TERRAIN_NOT_IN_TEXT, HEX_ONLY_FIELDS, IMPASSABLE,
    NOT_APPLICABLE, NOT_IN_TEXT_NOTE, TERRAIN, Terrain, UPHILL_ASSAULT, _TEXT_LISTS, can_charge_into,
    move_cost)


# == every Herald completion, for /rules and the tests ============================================

def herald_values() -> list[tuple[str, str]]:
    """(name, reasoning) of every value in these tables that is ours, not the text's."""
    out = [(f"fire.{d.key} = {d.value:+d}", d.why) for d in FIRE_DRMS.values() if d.source == HERALD]
    out += [(f"assault.{d.key} = {d.value:+d}", d.why) for d in ASSAULT_DRMS.values() if d.source == HERALD]
    out += [(f"assault.{d.key} = {d.value:+d}", d.why) for d in UPHILL_ASSAULT.values()]
    out += [(f"assault.{d.key} = {d.value:+d}", d.why) for d in ATTACKER_TERRAIN_DRM.values()]
    out += [(f"force_ratio.{c.label} = {c.drm:+d}", FORCE_RATIO_SOURCE["drm"][1]) for c in FORCE_RATIO_COLUMNS]
    for t in TERRAIN.values():
        for f in t.herald_fields():
            why = t.why if (f == "mp" or f not in FIELD_WHY) else f"{FIELD_WHY[f]} {t.why}"
            out.append((f"terrain.{t.key}.{f} = {getattr(t, f)!r}", why))
    return out
