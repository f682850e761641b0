"""Jours de Gloire "Classique" tables as data: the Force Ratio Table [8.6] (L539: the columns the
text names, its rounding in the defender's favour, Herald's DRMs) and the Assault & Charge Table
[8.5] [8.6] [9] (both missing from the text, digest §5.2): the result bands the text prints ([8.5]
L518-530), the DRMs it names (charges [9.2], a square [9.3], pursuit [9.5], a routed defender
[10.2], off-front [6.1], open ground Marengo 8.6) and Herald's flank DRM [6.1], the cohesion
difference [8.6] L541-543, the square-charge reading, and the terrain's DRMs for an assault, read
from the Terrain Effects Table (tables_terrain.py: UPHILL_ASSAULT, ATTACKER_TERRAIN_DRM).

Part of engine/jdg/tables.py (which re-exports every name here); its conventions apply: each
value cites its rule paragraph and the lines of `rules/jours-de-gloire.it.txt`; `TEXT` marks
what the text fixes, `HERALD` Herald's completion with its reasoning (engine/jdg/TABLES.md).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from engine.core.events import Modifier
from engine.jdg.tables_checks import HERALD, TEXT, Band, Drm, _check_bands, band_odds, band_of, cite
from engine.jdg.tables_terrain import ATTACKER_TERRAIN_DRM, TERRAIN, UPHILL_ASSAULT

# == Force Ratio Table [8.6] ======================================================================
# "Il risultato è arrotondato in favore del difensore. Quindi, un'unità di 8 punti forza che
#  attacca un'unità di 3 punti forza assalta con un rapporto di 2:1. Se 5 punti forza avessero
#  attaccato 6 punti forza, il rapporto sarebbe di 1:1.5." (L539)

@dataclass(frozen=True)
class RatioColumn:
    label: str
    attacker: Fraction
    defender: Fraction
    drm: int

    @property
    def value(self) -> Fraction:
        return self.attacker / self.defender


FORCE_RATIO_SOURCE = {
    "columns": (TEXT + " in part", "1:1.5 and 2:1 are named by the text (L539); 8:3 -> 2:1 proves "
                "there is no 2.5:1 column (2.67 would round to it), so by symmetry no 1:2.5; 1.5:1 "
                "mirrors 1:1.5; 1:3, 1:2, 1:1, 3:1, 4:1 are Herald completion, the ends open "
                "('1:3 or worse', '4:1 or better')."),
    "rounding": (TEXT, "round in the defender's favour (L539): the highest column not above the "
                 "true ratio; 8:3 = 2.67 -> 2:1, 5:6 = 1:1.2 -> 1:1.5."),
    "drm": (HERALD, "One point per column, 0 at 1:1. The cohesion difference [8.6] moves the die "
            "one point per cohesion point on a 0-9 scale, and the text's own named DRMs are 1-3 "
            "points (+1 light charge, +2 routed, +3 heavy charge); one column = one point keeps "
            "numbers and quality of equal weight, as the procedure (ratio and cohesion side by "
            "side) implies. The ends: 4:1 +4 (with the open-ground +1 a breakthrough half the "
            "time, never a repulse); 1:3 -3 (the attacker is thrown back 70% of the time in the "
            "open, and routs the attack (< 0) on 0-1, 20%)."),
}

_F = Fraction
FORCE_RATIO_COLUMNS: tuple[RatioColumn, ...] = (
    RatioColumn("1:3", _F(1), _F(3), -3),
    RatioColumn("1:2", _F(1), _F(2), -2),
    RatioColumn("1:1.5", _F(1), _F(3, 2), -1),
    RatioColumn("1:1", _F(1), _F(1), 0),
    RatioColumn("1.5:1", _F(3, 2), _F(1), +1),
    RatioColumn("2:1", _F(2), _F(1), +2),
    RatioColumn("3:1", _F(3), _F(1), +3),
    RatioColumn("4:1", _F(4), _F(1), +4),
)


def force_ratio_column(attacker_strength: int | Fraction, defender_strength: int | Fraction) -> RatioColumn:
    """[8.6]: attacker strength / defender strength, rounded in the defender's favour: the
    highest column whose ratio does not exceed the true one (below 1:3 reads 1:3). Strengths
    exclude artillery [8.9] and the attacker's disordered units [5.1]."""
    if attacker_strength <= 0 or defender_strength <= 0:
        raise ValueError("both sides need a positive strength (lone artillery is not rolled for, [8.9])")
    ratio = Fraction(attacker_strength) / Fraction(defender_strength)
    best = FORCE_RATIO_COLUMNS[0]
    for col in FORCE_RATIO_COLUMNS:
        if col.value <= ratio:
            best = col
    return best


# == Assault & Charge Table [8.5] [8.6] [9] ======================================================

ASSAULT_BANDS = _check_bands("assault", (
    Band("repulse", None, -1, "below 0",
         "attacker disordered and checks cohesion, falls back 1 hex if it fails; the defender may "
         "counter-assault (controcarica)", cite("8.5", "L530")),
    Band("check_attacker", 0, 4, "0-4",
         "attacker disordered and checks cohesion, falls back 1 hex if it fails", cite("8.5", "L528")),
    Band("fall_back", 5, 9, "5-9",
         "defender falls back 1 hex and checks cohesion, disordered if it fails", cite("8.5", "L526")),
    Band("breakthrough", 10, None, "10+",
         "defender falls back 1 hex and is disordered; the attacker may break through",
         cite("8.5", "L524")),
))

ASSAULT_DRMS: dict[str, Drm] = {d.key: d for d in (
    # -- printed in the text --
    Drm("heavy_charge", +3, "one or more heavy cavalry (L) charging", cite("9.2", "L613"), TEXT),
    Drm("cavalry_charge", +1, "cavalry charging, none heavy", cite("9.2", "L615"), TEXT),
    Drm("charge_vs_square", -2, "charge against a square (and no positive charge DRM)",
        cite("9.3", "L631"), TEXT),
    Drm("pursuit_recharge", -1, "each re-charge in pursuit, cumulative", cite("9.5", "L668"), TEXT),
    Drm("routed_defender", +2, "defender routed", cite("10.2", "L722"), TEXT),
    Drm("six_front_off_front", -1, "six-front unit attacking through a hex outside its normal front",
        cite("6.1", "L355"), TEXT),
    Drm("open_terrain", +1, "assault against a defender in open terrain",
        cite("Marengo 8.6", "L953") + " (a series rule: 'no change from the series rules' for cavalry)",
        TEXT),
    # -- Herald completion --
    Drm("flank", +2, "defender attacked through one of its four flank hexes",
        cite("6.1", "L353"), HERALD,
        why="The text says a unit attacked on a flank 'suffers penalties' without the value. +2 "
            "matches the text's other defender who cannot face his enemy (a routed one, +2 "
            "[10.2]) and twice the cost the text puts on a unit fighting off its own front (-1, "
            "[6.1]). An even assault in the open from the flank (+1+2): breakthrough 30%, fall "
            "back 50%, attacker disordered 20%, never below 0 -- a flank attack should usually "
            "work, and does."),
)}
CHARGE_DRM_KEYS = ("heavy_charge", "cavalry_charge")   # the 'positive charge modifiers' [9.3] [9.4]

COHESION_DIFFERENCE = ("attacker's highest cohesion - defender's highest cohesion, as a DRM",
                       cite("8.6", "L541-543"), TEXT)

SQUARE_CHARGE_READING = (
    "[9.3] 'la cavalleria non riceve modificatori positivi alla carica' is read as the charge "
    "modifiers of [9.2] (+3/+1), the ones its exception points at (L617); the open-ground +1 is an "
    "assault modifier and stays (a square stands in open terrain by [4.2]). Even charge on a square: "
    "-2 + 1 = -1: repulse 10%, attacker disordered 50%, square falls back 40%.")


def terrain_assault_modifiers(defender_terrain: str, defender_types: Iterable[str] = ("infantry",),
                              hexside: str | None = None, attacker_uphill: bool = False,
                              attacker_terrain: str = "clear") -> list[Modifier]:
    """Terrain DRMs of an assault: the open +1 (text; cancelled in a cascina held by infantry, or
    infantry and artillery, Marengo 8.6), the defender's hex, the hexside crossed (uphill across a
    crest or steep slope), the attacker's hex."""
    t = TERRAIN[defender_terrain]
    types = set(defender_types)
    mods: list[Modifier] = []
    if t.open_terrain:
        cancelled = t.key == "cascina" and "infantry" in types and "cavalry" not in types
        if not cancelled:
            mods.append(ASSAULT_DRMS["open_terrain"].modifier())
    if t.assault_drm:
        mods.append(Modifier(t.assault_drm, f"defender in {t.name_it}", f"JdG TET ({t.source('assault_drm')})"))
    if hexside is not None:
        h = TERRAIN[hexside]
        if h.assault_drm:
            mods.append(Modifier(h.assault_drm, f"across {h.name_it}", f"JdG TET ({h.source('assault_drm')})"))
        if attacker_uphill and hexside in UPHILL_ASSAULT:
            mods.append(UPHILL_ASSAULT[hexside].modifier())
    if attacker_terrain in ATTACKER_TERRAIN_DRM:
        mods.append(ATTACKER_TERRAIN_DRM[attacker_terrain].modifier())
    return mods


def assault_modifiers(*, attacker_strength: int, defender_strength: int,
                      attacker_cohesion: int, defender_cohesion: int,
                      defender_terrain: str = "clear", defender_types: Iterable[str] = ("infantry",),
                      hexside: str | None = None, attacker_uphill: bool = False,
                      attacker_terrain: str = "clear",
                      charge: str | None = None, square: bool = False, counter_charged: bool = False,
                      routed_defender: bool = False, flank: bool = False,
                      six_front_off_front: bool = False, pursuit_recharges: int = 0) -> list[Modifier]:
    """Every DRM of one assault or charge ([8.6], [9.2]-[9.5], [10.2], [6.1], terrain). `charge`:
    None, "heavy" or "cavalry". `pursuit_recharges`: how many re-charges this one is (1, 2, ...).
    `square`: the charged defender stands in square (SQUARE_CHARGE_READING). A unit with six fronts
    (village, town, fortification, square) has no flank [6.1], nor has a routed unit [10.2] L720:
    asking for a flank DRM there is an error."""
    if charge not in (None, "heavy", "cavalry"):
        raise ValueError(f"charge must be None, 'heavy' or 'cavalry', not {charge!r}")
    if flank and (square or routed_defender or TERRAIN[defender_terrain].six_front):
        raise ValueError("a unit with six fronts, or routed, has no flank [6.1] [10.2]")
    col = force_ratio_column(attacker_strength, defender_strength)
    mods = [Modifier(col.drm, f"force ratio {col.label}", f"{cite('8.6', 'L539')}; {HERALD} (DRM)")]
    diff = attacker_cohesion - defender_cohesion
    mods.append(Modifier(diff, f"cohesion {attacker_cohesion} vs {defender_cohesion}", COHESION_DIFFERENCE[1]))
    d = ASSAULT_DRMS
    if charge is not None and not square and not counter_charged:
        mods.append(d["heavy_charge" if charge == "heavy" else "cavalry_charge"].modifier())
    if charge is not None and square:
        mods.append(d["charge_vs_square"].modifier())
    if pursuit_recharges:
        mods.append(d["pursuit_recharge"].modifier(-pursuit_recharges))
    if routed_defender:
        mods.append(d["routed_defender"].modifier())
    if flank:
        mods.append(d["flank"].modifier())
    if six_front_off_front:
        mods.append(d["six_front_off_front"].modifier())
    mods += terrain_assault_modifiers(defender_terrain, defender_types, hexside, attacker_uphill,
                                      attacker_terrain)
    return [m for m in mods if m.value]


def assault_result(total: int) -> Band:
    return band_of(ASSAULT_BANDS, total)


def assault_odds(drm: int) -> dict[str, Fraction]:
    """P(below 0 / 0-4 / 5-9 / 10+) for d10 + drm."""
    return band_odds(ASSAULT_BANDS, drm)
