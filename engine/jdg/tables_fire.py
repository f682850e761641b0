"""Jours de Gloire "Classique" tables as data: the Fire Table [7] (missing from the text, digest
§5.2): the result bands the text prints ([7.5] L447-453), the DRMs it names (combined battery
[7.1], reaction fire [9.3], optional [8.3]) and Herald's completion of the rest (range bands
[7.3], point blank [7.4], target in square [9.3], uphill [7.4], counter-battery [7.6]), the
infantry reaction fire of optional [8.3] (L867-886), and the terrain's DRMs for fire, read from
the Terrain Effects Table (tables_terrain.py).

Part of engine/jdg/tables.py (which re-exports every name here); its conventions apply: each
value cites its rule paragraph and the lines of `rules/jours-de-gloire.it.txt`; `TEXT` marks
what the text fixes, `HERALD` Herald's completion with its reasoning (engine/jdg/TABLES.md).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from fractions import Fraction

from engine.core.events import Modifier
from engine.jdg.tables_checks import HERALD, TEXT, Band, Drm, _check_bands, band_odds, band_of, cite
from engine.jdg.tables_terrain import TERRAIN

# == Fire Table [7] ==============================================================================
# Total = d10 + firepower (printed on the counter, [7.3]) + the DRMs below, all cumulative [7.5].

FIRE_BANDS = _check_bands("fire", (
    Band("none", None, 8, "8 or less", "no effect", cite("7.5", "L447-453") + " (no result below 9 is "
         "listed: digest A6)"),
    Band("check", 9, 12, "9-12", "each target unit checks cohesion; disordered if it fails",
         cite("7.5", "L449")),
    Band("disorder", 13, 14, "13-14", "the target unit (or the whole stack) is disordered",
         cite("7.5", "L451")),
    Band("rout", 15, None, "15+", "the target is routed (artillery: eliminated, [10.2])",
         cite("7.5", "L453")),
))

FIRE_DRMS: dict[str, Drm] = {d.key: d for d in (
    # -- printed in the text --
    Drm("combined_battery", +2, "two artillery of one formation in one hex combine: higher firepower +2",
        cite("7.1", "L397-399"), TEXT),
    Drm("reaction_fire", -1, "artillery reaction fire", cite("9.3", "L633") + ", " + cite("opt. 8.3", "L886"),
        TEXT),
    Drm("reaction_with_square", -1, "reaction fire by artillery stacked with a square (besides the -1)",
        cite("9.3", "L633"), TEXT),
    # -- Herald completion --
    Drm("effective_range", 0, "target within effective range", cite("7.3", "L407-409"), HERALD,
        why="The counter's firepower is its value at effective range: the bands 9-12 / 13-14 / 15+ "
            "are written for it (firepower 4 at effective range: an effect 50% -- check 40%, "
            "disorder 10%)."),
    Drm("maximum_range", -2, "target beyond effective range, within maximum range",
        cite("7.3", "L407-409"), HERALD,
        why="Each counter prints two ranges, so the longer one must cost something. -2 keeps long "
            "fire useful but unable to disorder outright: firepower 4 at maximum range gives a "
            "cohesion check 30% and never an automatic result (d10+2 tops at 11)."),
    Drm("point_blank", +1, "point-blank fire at an adjacent hex: canister",
        cite("7.4", "L439-441"), HERALD,
        why="The text makes point-blank fire a case of its own (always possible except across a "
            "crest or steep slope [7.4]; the only fire allowed at night [12]). Canister at 350 m "
            "hexes is the deadliest fire: +1 turns a firepower-4 battery's 10% disorder into 20% and "
            "gives an effect on every roll from 4 up (60%)."),
    Drm("target_in_square", +2, "target in square", cite("9.3", "L631-633"), HERALD,
        why="A square is the densest target on the field; the text already punishes artillery "
            "inside a square (-1 on its reaction fire [9.3]). +2 makes holding square under guns "
            "costly, as the procedures invite weighing (forming costs all MP, leaving 1 MP [4.2]): "
            "firepower 4 at effective range against a square: an effect 70% -- check 40%, "
            "disorder 20%, rout 10%."),
    Drm("target_uphill", -1, "target on a higher level than the firing artillery",
        cite("7.4", "L415-437"), HERALD,
        why="The text gives levels only for line of fire [7.4]; firing uphill (grazing lost, target "
            "behind the brow) is the usual Napoleonic penalty. Never positive: optional [8.3]'s note "
            "(line infantry under 7 can never reach 9, L878) forbids a terrain bonus to the firer."),
    Drm("counter_battery", 0, "counter-battery fire", cite("7.6", "L455-457"), HERALD,
        why="The text resolves it 'with all the modifiers of 7.5' and names no penalty, unlike "
            "reaction fire (-1): so nothing is added. Artillery as a target has no DRM either."),
)}

INFANTRY_FIRE_DRMS: dict[str, Drm] = {d.key: d for d in (
    # Optional [8.3] (L867-886): infantry reaction fire, no firepower; only these plus terrain.
    Drm("line_infantry", -1, "line infantry", cite("opt. 8.3", "L873"), TEXT),
    Drm("steady_infantry", +1, "cohesion 7+ or strength 7+ (not cumulative)", cite("opt. 8.3", "L875"), TEXT),
)}

NO_COLUMN_NOTE = ("JdG Classique has no column formation (only reinforcements enter 'as if in column', "
                  "[5.2] L329): the Fire Table therefore has no column modifier.")



def terrain_fire_modifiers(target_terrain: str, hexside: str | None = None) -> list[Modifier]:
    """Terrain DRMs for fire at a target: the target's hex and, if the fire crosses one, a trench
    or fortification hexside (the larger penalty alone: the same cover is not counted twice)."""
    t = TERRAIN[target_terrain]
    drm, where = t.fire_drm, t
    if hexside is not None and TERRAIN[hexside].fire_drm < drm:
        drm, where = TERRAIN[hexside].fire_drm, TERRAIN[hexside]
    if not drm:
        return []
    src = where.source("fire_drm")
    return [Modifier(drm, f"target in/behind {where.name_it}", f"JdG TET ({src})")]


def fire_modifiers(*, range_band: str, combined: bool = False, reaction: bool = False,
                   stacked_with_square: bool = False, target_in_square: bool = False,
                   target_uphill: bool = False, counter_battery: bool = False,
                   target_terrain: str = "clear", hexside: str | None = None) -> list[Modifier]:
    """The artillery Fire Table DRMs (besides the firepower). range_band: "point_blank",
    "effective" or "maximum"."""
    if range_band not in ("point_blank", "effective", "maximum"):
        raise ValueError(f"unknown range band {range_band!r}")
    d = FIRE_DRMS
    keys = {"point_blank": "point_blank", "effective": "effective_range", "maximum": "maximum_range"}
    chosen = [d[keys[range_band]]]
    if combined:
        chosen.append(d["combined_battery"])
    if reaction:
        chosen.append(d["reaction_fire"])
        if stacked_with_square:
            chosen.append(d["reaction_with_square"])
    if target_in_square:
        chosen.append(d["target_in_square"])
    if target_uphill:
        chosen.append(d["target_uphill"])
    if counter_battery:
        chosen.append(d["counter_battery"])
    mods = [m.modifier() for m in chosen if m.value]
    mods += terrain_fire_modifiers(target_terrain, hexside)
    return mods


def infantry_fire_modifiers(*, line: bool, steady: bool, target_terrain: str = "clear",
                            hexside: str | None = None) -> list[Modifier]:
    """Optional [8.3]: line -1; cohesion or strength 7+ +1; plus terrain; nothing else."""
    mods = []
    if line:
        mods.append(INFANTRY_FIRE_DRMS["line_infantry"].modifier())
    if steady:
        mods.append(INFANTRY_FIRE_DRMS["steady_infantry"].modifier())
    return mods + terrain_fire_modifiers(target_terrain, hexside)


def fire_result(total: int) -> Band:
    return band_of(FIRE_BANDS, total)


def fire_odds(firepower: int, drm: int = 0) -> dict[str, Fraction]:
    """P(no effect / check / disorder / rout) for d10 + firepower + drm."""
    return band_odds(FIRE_BANDS, firepower + drm)
