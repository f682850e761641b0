"""This Accursed Civil War: the combat tables as data (fire, artillery, morale, casualty
threshold, close combat, retreat, pursuit). The reading conventions, the helpers (`Row`,
`DieTable`, `ModifierRule`) and the command/terrain tables are in `tables.py`, whose module
docstring explains the sources; every name here is also reachable as `tables.<name>`.
"D<n>" cites an entry of DECISIONS.md; "L<n>" a line of rules/tacw.it.txt.

The `*_modifiers` builders turn the facts of one roll into the list of event modifiers
(engine.core.events.Modifier), each with its reason and section, so that the roll explains
itself; they decide nothing about geometry (front/flank, adjacency, straight lines): the caller
says what is true.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from engine.core.events import Modifier

from engine.tacw.tables import DieTable, ModifierRule, Row, terrain_close_combat_modifier, terrain_fire_modifier

__all__ = [
    "FireResult", "MISS", "HIT_1", "HIT_2", "FH", "FH_MC",
    "MUSKET_FIRE_TABLE", "MUSKET_FIRE_MODIFIERS", "musket_fire", "musket_fire_column",
    "musket_fire_modifiers",
    "LIGHT_CAVALRY_FIRE_TABLE", "LIGHT_CAVALRY_FIRE_MODIFIERS", "light_cavalry_fire",
    "light_cavalry_fire_modifiers",
    "GUN_CLASSES", "ARTILLERY_RANGE_ROWS", "ARTILLERY_RANGE_TABLE", "artillery_range_modifier",
    "artillery_max_range", "ARTILLERY_FIRE_TABLE", "ARTILLERY_FIRE_MODIFIERS", "artillery_fire",
    "artillery_fire_modifiers",
    "MC_CASUALTY_HITS", "casualty_mc_hits", "fire_morale_checks", "MORALE_CHECK_MODIFIERS",
    "morale_check_modifier", "morale_check_passes", "current_morale",
    "CASUALTY_THRESHOLD_COLUMNS", "CASUALTY_THRESHOLD_TABLE", "casualty_threshold",
    "threshold_reached",
    "CloseCombatResult", "CLOSE_COMBAT_TABLE", "close_combat", "CLOSE_COMBAT_MODIFIERS",
    "CLOSE_COMBAT_MATRIX", "HEDGEHOG_COLUMN", "matrix_modifier", "ratio_modifier",
    "morale_modifier", "leader_close_combat_modifier", "MOMENTUM", "momentum_modifier",
    "flank_rear_modifier", "pistol_modifier", "attacker_state_modifier",
    "defender_state_modifier", "close_combat_modifiers",
    "RETREAT_IMPOSSIBLE_TABLE", "retreat_impossible", "retreat_impossible_modifier",
    "PURSUIT_TABLE", "PURSUIT_MODIFIERS", "cavalry_pursuit", "pursuit_modifiers",
    "MORALE_LADDER", "FORMATION_LADDER", "morale_after_result", "morale_after_failed_mc",
    "formation_after_hit",
]


# == fire results ================================================================================

@dataclass(frozen=True)
class FireResult:
    """One cell of a fire table. `code` is printed ("Mancato", "1", "2", "FH", "FH + MC"):
    hits are casualties (§9.6.1), FH a formation hit, MC a morale check printed in the cell.
    `code` keeps the table as transcribed; what a player reads (the log, /explain, the board) is
    `label`, in English ("Miss" for "Mancato").
    The morale checks that casualties and Salvo cause (§9.6.2-9.6.5) are not in the cell:
    see `fire_morale_checks`."""
    code: str
    hits: int = 0
    formation_hit: bool = False
    morale_check: bool = False

    @property
    def miss(self) -> bool:
        return not (self.hits or self.formation_hit or self.morale_check)

    @property
    def label(self) -> str:
        return "Miss" if self.code == "Mancato" else self.code


MISS = FireResult("Mancato")
HIT_1 = FireResult("1", hits=1)
HIT_2 = FireResult("2", hits=2)
FH = FireResult("FH", formation_hit=True)
FH_MC = FireResult("FH + MC", formation_hit=True, morale_check=True)
_CELLS = {"-": MISS, "1": HIT_1, "2": HIT_2, "FH": FH, "FH+MC": FH_MC}


def _table(name: str, section: str, source: str, rows: Iterable[tuple[int, int | None, str, str]]
           ) -> DieTable:
    return DieTable(name, section, source,
                    tuple(Row(lo, hi, label, _CELLS[cell]) for lo, hi, label, cell in rows))


def _terrain_mods(target_terrain: str | None, hexside: str | None, lookup, what: str
                  ) -> list[Modifier]:
    mods = []
    for key, where, side in ((target_terrain, "target's hex", False), (hexside, "hexside crossed", True)):
        if key is None:
            continue
        value = lookup(key, hexside=side)
        if value is None:
            raise ValueError(f"{what} is prohibited against {key} (Terrain table: NA)")
        if value:
            mods.append(Modifier(value, f"{where}: {key.replace('_', ' ')}", "TACW Terrain table"))
    return mods


# == Musket Fire table, heavy infantry (L1879-1948; §9.3-9.7) ====================================
# Rows came out in triples (Fianco, Fronte, die) and the Salvo column separately (L1938-1948).
# The stronger first column is headed "Fianco": fire into the TARGET's flank or rear (D17).

def _musket(column: str, cells: str) -> DieTable:
    rows = [(i, i if i < 9 else None, str(i) if i < 9 else "9+", c) for i, c in enumerate(cells.split())]
    return _table(f"Musket Fire table, {column}", "TACW §9.5.1", "L1879-1912, L1938-1948", rows)


MUSKET_FIRE_TABLE = {
    #                     die: 0 1 2 3 4 5 6 7 8 9+
    "flank": _musket("Fianco (flank)", "- 1 1 1 1 1 1 2 2 2"),
    "front": _musket("Fronte (front)", "- - - 1 1 1 1 1 1 2"),
    "salvo": _musket("Salva (salvo, §9.4)", "- 1 1 1 2 2 2 2 2 2"),
}

MUSKET_FIRE_MODIFIERS = (      # L1914-1937: the firer/target columns alternate in extraction
    ModifierRule("firer_disordered", -2, "firer in F-Disordered formation", "TACW §6.3.1"),
    ModifierRule("firer_broken", -3, "firer in F-Broken formation", "TACW §6.3.1"),
    ModifierRule("firer_open_order", -2, "firer has an Open Order marker (D18)", "TACW §6.3.3"),
    ModifierRule("salvo_marker", -1, "firer already fired a Salvo this turn", "TACW §9.4"),
    ModifierRule("retreat_fire", -3, "Retreat Fire", "TACW §9.3.4"),
    ModifierRule("casualties_single", None, "-1 per casualty (single-hex unit)", "TACW §9.5.1", -19, 0),
    ModifierRule("casualties_double", None, "-1 per 2 casualties (double unit)", "TACW §9.5.1", -9, 0),
    ModifierRule("target_hedgehog", +1, "target in hedgehog", "TACW §6.3.2"),
    ModifierRule("target_column", +1, "target in column", "TACW §6.3.4"),
    ModifierRule("reaction_vs_moving_cavalry", -1, "Reaction Fire at cavalry that moved before "
                 "entering the firer's Reaction Zone", "TACW §9.7.2"),
    ModifierRule("terrain", None, "Terrain table, Fire column (hex and hexside)",
                 "TACW Terrain table", -3, 2),
    ModifierRule("edgehill_royalist_foot", -1, "Edgehill optional rule: Royalist heavy infantry "
                 "brigades were poorly equipped", "TACW Edgehill optional rule"),
)


def musket_fire_column(into_flank_or_rear: bool = False, salvo: bool = False) -> str:
    """§9.5.1 B-C: "salvo" for Salvo fire (front hexes only, §9.4), "flank" when the firer
    stands in one of the target's flank or rear hexes (a hedgehog has none), else "front"."""
    return "salvo" if salvo else ("flank" if into_flank_or_rear else "front")


def musket_fire(column: str, modified_roll: int) -> FireResult:
    """Musket Fire table: the result for `column` ("flank" / "front" / "salvo")."""
    if column not in MUSKET_FIRE_TABLE:
        raise ValueError(f"unknown Musket Fire column {column!r}")
    return MUSKET_FIRE_TABLE[column].lookup(modified_roll)


def _rule(rules: tuple[ModifierRule, ...], key: str) -> ModifierRule:
    return next(r for r in rules if r.key == key)


def musket_fire_modifiers(*, firer_formation: str = "normal", firer_special: str = "",
                          salvo_marker: bool = False, retreat_fire: bool = False,
                          casualties: int = 0, double: bool = False, target_special: str = "",
                          reaction_vs_moving_cavalry: bool = False,
                          target_terrain: str | None = None, hexside: str | None = None,
                          edgehill_royalist: bool = False) -> list[Modifier]:
    """The modifiers to one heavy-infantry fire roll (Musket Fire table). `salvo_marker`: the
    unit already fired a Salvo this turn and now uses normal fire. Raises ValueError where the
    Terrain table prints NA for fire (castle)."""
    R = MUSKET_FIRE_MODIFIERS
    mods: list[Modifier] = []
    if firer_special == "hedgehog":
        raise ValueError("a unit in hedgehog may not fire (§6.3.2)")
    if firer_formation == "disordered":
        mods.append(_rule(R, "firer_disordered").modifier())
    elif firer_formation == "broken":
        mods.append(_rule(R, "firer_broken").modifier())
    if firer_special == "open":
        mods.append(_rule(R, "firer_open_order").modifier())
    if salvo_marker:
        mods.append(_rule(R, "salvo_marker").modifier())
    if retreat_fire:
        mods.append(_rule(R, "retreat_fire").modifier())
    penalty = casualties // 2 if double else casualties
    if penalty:
        key = "casualties_double" if double else "casualties_single"
        mods.append(_rule(R, key).modifier(-penalty, f"{casualties} casualties "
                                           + ("(double unit: -1 per 2)" if double else "(-1 each)")))
    if target_special == "hedgehog":
        mods.append(_rule(R, "target_hedgehog").modifier())
    elif target_special == "column":
        mods.append(_rule(R, "target_column").modifier())
    if reaction_vs_moving_cavalry:
        mods.append(_rule(R, "reaction_vs_moving_cavalry").modifier())
    mods += _terrain_mods(target_terrain, hexside, terrain_fire_modifier, "fire")
    if edgehill_royalist:
        mods.append(_rule(R, "edgehill_royalist_foot").modifier())
    return mods


# == Light Infantry and Cavalry Fire table (L1949-1996; §9.5.2, §9.5.3) ==========================
# Triples (Commanded Shot & Dragoons, Cavalry Pistol, die), values in header order.

LIGHT_CAVALRY_FIRE_TABLE = {
    "light": _table("LI & Cavalry Fire table, Commanded Shot & Dragoons", "TACW §9.5.2",
                    "L1949-1965", [(0, 6, "0-6", "-"), (7, 7, "7", "-"), (8, 8, "8", "1"),
                                   (9, None, "9", "1")]),
    "pistol": _table("LI & Cavalry Fire table, Cavalry Pistol", "TACW §9.5.3",
                     "L1949-1965", [(0, 6, "0-6", "-"), (7, 7, "7", "1"), (8, 8, "8", "1"),
                                    (9, None, "9", "1")]),
}

LIGHT_CAVALRY_FIRE_MODIFIERS = (   # L1967-1996
    ModifierRule("firer_disordered", -1, "firer in F-Disordered formation", "TACW §6.3.1"),
    ModifierRule("firer_broken", -2, "firer in F-Broken formation", "TACW §6.3.1"),
    ModifierRule("firer_open_order", -1, "firer has an Open Order marker (D18)", "TACW §6.3.3"),
    ModifierRule("light_strength", None, "Commanded Shot & Dragoons: +1 per SP above 1 (D16)",
                 "TACW §9.5.2", 0, 19),
    ModifierRule("cavalry_strength", None, "Cavalry: +1 per SP above 3, -1 per SP below 3 (D16)",
                 "TACW §9.5.3", -2, 17),
    ModifierRule("retreat_fire", -3, "Retreat Fire", "TACW §9.3.4"),
    ModifierRule("target_hedgehog", +1, "target in hedgehog", "TACW §6.3.2"),
    ModifierRule("target_column", +1, "target in column", "TACW §6.3.4"),
    ModifierRule("reaction_vs_moving_cavalry", -1, "Reaction Fire at cavalry that moved before "
                 "entering the firer's Reaction Zone (D19)", "TACW §9.7.2"),
    ModifierRule("terrain", None, "Terrain table, Fire column (hex and hexside)",
                 "TACW Terrain table", -3, 2),
)


def light_cavalry_fire(column: str, modified_roll: int) -> FireResult:
    """LI & Cavalry Fire table: `column` "light" (Commanded Shot & Dragoons) or "pistol"."""
    if column not in LIGHT_CAVALRY_FIRE_TABLE:
        raise ValueError(f"unknown LI & Cavalry Fire column {column!r}")
    return LIGHT_CAVALRY_FIRE_TABLE[column].lookup(modified_roll)


def light_cavalry_fire_modifiers(kind: str, strength: int, *, firer_formation: str = "normal",
                                 firer_special: str = "", retreat_fire: bool = False,
                                 target_special: str = "", reaction_vs_moving_cavalry: bool = False,
                                 target_terrain: str | None = None, hexside: str | None = None
                                 ) -> list[Modifier]:
    """The modifiers to one light-infantry (`kind` "light") or cavalry pistol ("cavalry") fire
    roll. `strength` is the firer's current strength, printed minus casualties (D16)."""
    if kind not in ("light", "cavalry"):
        raise ValueError(f"{kind!r} does not fire on the LI & Cavalry Fire table")
    R = LIGHT_CAVALRY_FIRE_MODIFIERS
    mods: list[Modifier] = []
    if firer_formation == "disordered":
        mods.append(_rule(R, "firer_disordered").modifier())
    elif firer_formation == "broken":
        mods.append(_rule(R, "firer_broken").modifier())
    if firer_special == "open":
        mods.append(_rule(R, "firer_open_order").modifier())
    if kind == "light" and strength > 1:
        mods.append(_rule(R, "light_strength").modifier(strength - 1, f"{strength} SP: +1 per SP above 1"))
    if kind == "cavalry" and strength != 3:
        mods.append(_rule(R, "cavalry_strength").modifier(
            strength - 3, f"{strength} SP: " + ("+1 per SP above 3" if strength > 3 else "-1 per SP below 3")))
    if retreat_fire:
        mods.append(_rule(R, "retreat_fire").modifier())
    if target_special == "hedgehog":
        mods.append(_rule(R, "target_hedgehog").modifier())
    elif target_special == "column":
        mods.append(_rule(R, "target_column").modifier())
    if reaction_vs_moving_cavalry:
        mods.append(_rule(R, "reaction_vs_moving_cavalry").modifier())
    mods += _terrain_mods(target_terrain, hexside, terrain_fire_modifier, "fire")
    return mods


# == Artillery Range table (§9.9.2; labels L2034-2045, Falcon/Saker pairs L2049-2072, Culverin
# L2096-2107). The pairs read row by row: a column-wise read would not be monotone. ==============

GUN_CLASSES = ("3lb", "saker", "culverin")     # 3 lb Falcons, 4-8 lb Sakers, 12 lb Culverins
ARTILLERY_RANGE_ROWS = ((1, 1, "1"), (2, 3, "2-3"), (4, 4, "4"), (5, 5, "5"), (6, 6, "6"),
                        (7, 7, "7"), (8, 9, "8-9"), (10, 10, "10"), (11, 13, "11-13"),
                        (14, 14, "14"), (15, 17, "15-17"))
ARTILLERY_RANGE_TABLE: dict[str, tuple[int | None, ...]] = {    # None = "NA": out of range
    #            1   2-3  4   5   6   7   8-9   10    11-13  14    15-17
    "3lb":      (+1, 0, -1, -1, -2, -2, -3, None, None, None, None),
    "saker":    (+1, 0, 0, -1, -1, -1, -2, -2, -3, -3, None),
    "culverin": (+1, 0, 0, 0, 0, -1, -1, -2, -2, -3, -3),
}


def artillery_range_modifier(gun_class: str, range_hexes: int) -> int | None:
    """§9.9.2 B: the die modifier for firing `range_hexes` (target hex counted, firer's not,
    §9.1.2); None when out of range (NA, or beyond 17)."""
    if gun_class not in ARTILLERY_RANGE_TABLE:
        raise ValueError(f"unknown gun class {gun_class!r}")
    if range_hexes < 1:
        raise ValueError("range is at least 1 hex (§9.1.2)")
    for i, (low, high, _) in enumerate(ARTILLERY_RANGE_ROWS):
        if low <= range_hexes <= high:
            return ARTILLERY_RANGE_TABLE[gun_class][i]
    return None


def artillery_max_range(gun_class: str) -> int:
    """The longest range the Artillery Range table allows: 9, 14 and 17 hexes."""
    cells = ARTILLERY_RANGE_TABLE[gun_class]
    last = max(i for i, c in enumerate(cells) if c is not None)
    return ARTILLERY_RANGE_ROWS[last][1]


# == Artillery Fire table (§9.9.2 C; die rows L1983-1990, Falcon/Saker pairs L1998-2013,
# Culverin L2024-2031, modifiers L2014-2021) =====================================================

def _artillery(gun: str, cells: str) -> DieTable:
    labels = ((None, 4, "0-4"), (5, 5, "5"), (6, 6, "6"), (7, 7, "7"), (8, 8, "8"), (9, 9, "9"),
              (10, None, "10+"))
    rows = [(0 if lo is None else lo, hi, label, c) for (lo, hi, label), c in zip(labels, cells.split())]
    return _table(f"Artillery Fire table, {gun}", "TACW §9.9.2", "L1983-2031", rows)


ARTILLERY_FIRE_TABLE = {
    #                                         0-4  5   6   7   8      9      10+
    "3lb": _artillery("3 lb Falcons", "-  -  -  FH FH    FH    FH+MC"),
    "saker": _artillery("4-8 lb Sakers", "-  -  FH FH FH    FH+MC FH+MC"),
    "culverin": _artillery("12 lb Culverins", "-  FH FH FH FH+MC FH+MC FH+MC"),
}

ARTILLERY_FIRE_MODIFIERS = (
    ModifierRule("range", None, "Artillery Range table", "TACW §9.9.2", -3, 1),
    ModifierRule("target_hedgehog", +2, "target in hedgehog", "TACW §6.3.2"),
    ModifierRule("target_column", +2, "target in column", "TACW §6.3.4"),
    ModifierRule("firer_shaken", -1, "the firing artillery is morale Shaken", "TACW §9.9.2"),
    ModifierRule("reaction_vs_moving_cavalry", -1, "Reaction Fire at cavalry that moved before "
                 "entering the Reaction Zone (D19)", "TACW §9.7.2"),
    ModifierRule("terrain", None, "Terrain table, Fire column (D20)", "TACW Terrain table", -3, 2),
)


def artillery_fire(gun_class: str, modified_roll: int) -> FireResult:
    """Artillery Fire table: FH / FH + MC / miss (never casualties) for `gun_class`."""
    if gun_class not in ARTILLERY_FIRE_TABLE:
        raise ValueError(f"unknown gun class {gun_class!r}")
    return ARTILLERY_FIRE_TABLE[gun_class].lookup(modified_roll)


def artillery_fire_modifiers(gun_class: str, range_hexes: int, *, shaken: bool = False,
                             target_special: str = "", reaction_vs_moving_cavalry: bool = False,
                             target_terrain: str | None = None, hexside: str | None = None
                             ) -> list[Modifier]:
    """The modifiers to one artillery fire roll (each ricochet victim rolls with its own range,
    D20). Raises ValueError when out of range or at a target the Terrain table protects (NA)."""
    R = ARTILLERY_FIRE_MODIFIERS
    rng = artillery_range_modifier(gun_class, range_hexes)
    if rng is None:
        raise ValueError(f"{range_hexes} hexes is out of range for {gun_class} (Artillery Range table)")
    mods = [_rule(R, "range").modifier(rng, f"range {range_hexes} hexes ({gun_class})")] if rng else []
    if target_special == "hedgehog":
        mods.append(_rule(R, "target_hedgehog").modifier())
    elif target_special == "column":
        mods.append(_rule(R, "target_column").modifier())
    if shaken:
        mods.append(_rule(R, "firer_shaken").modifier())
    if reaction_vs_moving_cavalry:
        mods.append(_rule(R, "reaction_vs_moving_cavalry").modifier())
    mods += _terrain_mods(target_terrain, hexside, terrain_fire_modifier, "fire")
    return mods


# == Morale checks (§11.2 L830-835; §9.6.2-9.6.5 L588-600) =======================================

MC_CASUALTY_HITS = ((6, 1), (7, 2), (8, 3))
"""§9.6.2: hits from ONE unit's fire that force an MC: morale 6 or less any hit, 7 two or more,
8 three or more (a double heavy unit's two rolls count as one fire)."""

MORALE_CHECK_MODIFIERS = (
    ModifierRule("leader", None, "command value of ONE leader stacked with the unit",
                 "TACW §11.2", -2, 0),
    ModifierRule("extra_checks", None, "+1 per simultaneous MC beyond the first", "TACW §9.6.5", 0, 3),
)


def current_morale(base: int, morale_state: str = "normal") -> int:
    """§11.4.2-11.4.3: Shaken is one less than printed; Broken is 1."""
    if morale_state not in ("normal", "shaken", "broken"):
        raise ValueError(f"unknown morale state {morale_state!r}")
    return {"normal": base, "shaken": base - 1, "broken": 1}[morale_state]


def casualty_mc_hits(morale: int) -> int:
    """§9.6.2: the hits from one unit's fire that force an MC on a unit of this (current,
    D16) morale."""
    for limit, hits in MC_CASUALTY_HITS:
        if morale <= limit:
            return hits
    return MC_CASUALTY_HITS[-1][1]


def fire_morale_checks(morale: int, hits: int, *, salvo: bool = False,
                       at_threshold: bool = False) -> int:
    """§9.6.2-9.6.5: how many MCs one unit's fire causes: one for casualties (never more,
    §9.6.2), one for being the target of a Salvo (§9.6.3, even when it misses, D21), one for
    any hit on a unit at its casualty threshold (§9.6.4). They are rolled once, +1 per MC
    beyond the first (§9.6.5: `morale_check_modifier`)."""
    count = int(hits >= casualty_mc_hits(morale))
    count += int(salvo)
    count += int(at_threshold and hits > 0)
    return count


def morale_check_modifier(leader_value: int = 0, checks: int = 1) -> int:
    """§11.2 and §9.6.5: one stacked leader's value (0..-2) plus 1 per MC beyond the first."""
    return leader_value + max(checks - 1, 0)


def morale_check_passes(modified_roll: int, morale: int) -> bool:
    """§11.2: passed when the modified roll is at most the unit's current morale (example:
    morale 7 passes on 0-7 and fails on 8-9)."""
    return modified_roll <= morale


# == Casualty Threshold table (§11.5; L2073-2095, L2108-2115) ====================================
# First four columns row-wise, then 10-14 and 15+ separately. Printed rows "<6", 7, 8: "<6" is
# read as 6 or less (D27). NA (morale 8 at strength 2 and 3-4): no threshold.

CASUALTY_THRESHOLD_COLUMNS = ((2, 2, "2"), (3, 4, "3-4"), (5, 6, "5-6"), (7, 9, "7-9"),
                              (10, 14, "10-14"), (15, None, "15+"))
CASUALTY_THRESHOLD_TABLE: dict[str, tuple[int | None, ...]] = {
    #          2     3-4   5-6  7-9  10-14  15+
    "<6": (1, 1, 2, 3, 4, 5),
    "7": (1, 2, 3, 4, 5, 6),
    "8": (None, None, 4, 5, 6, 7),
}


def casualty_threshold(morale: int, strength: int) -> int | None:
    """§11.5.1: the casualties at which a unit of ORIGINAL morale and strength reaches its
    threshold; None where there is none (NA, and strength 1, which has no column: its first
    casualty eliminates it, §9.6.1)."""
    if not 1 <= morale <= 8:
        raise ValueError("printed morale runs 4 to 8 (§11.1)")
    if strength < 1:
        raise ValueError("strength is at least 1")
    row = CASUALTY_THRESHOLD_TABLE["<6" if morale <= 6 else str(morale)]
    for i, (low, high, _) in enumerate(CASUALTY_THRESHOLD_COLUMNS):
        if strength >= low and (high is None or strength <= high):
            return row[i]
    return None                                     # strength 1


def threshold_reached(morale: int, strength: int, casualties: int) -> bool:
    """§11.5.2: reached once casualties are at least the table's number (D27)."""
    t = casualty_threshold(morale, strength)
    return t is not None and casualties >= t


# == Close Combat table, the attacker rolls (§10.2 D, §10.4; L2116-2136) =========================
# Printed "<0" and ">9" leave the rolls 0 and 9 without a row: read as ≤0 and ≥9 (D25).

@dataclass(frozen=True)
class CloseCombatResult:
    code: str                  # Herald's short code
    text: str                  # English
    text_it: str               # as printed
    attacker: str              # "" / "shaken" / "broken" / "eliminated" (a result, §10.4.2)
    attacker_retreat: int      # hexes
    defender: str
    defender_retreat: int
    winner: str                # "attacker" / "defender"
    advance: str               # the winner's advance into the vacated hex: must / may / may_not
    check_pursuit: bool        # §10.7: the winner's cavalry checks Cavalry Pursuit


def _cc(code, text, it, att, ar, dfn, dr, winner, advance, pursuit) -> CloseCombatResult:
    return CloseCombatResult(code, text, it, att, ar, dfn, dr, winner, advance, pursuit)


CLOSE_COMBAT_TABLE = DieTable("Close Combat table", "TACW §10.4", "L2116-2136", (
    Row(0, 0, "≤0", _cc("AE", "Attacker eliminated; the defender may advance; check Cavalry Pursuit",
                        "Attaccante eliminato, il difensore può avanzare nell'esagono, controllate "
                        "per l'Inseguimento di Cavalleria", "eliminated", 0, "", 0, "defender", "may", True)),
    Row(1, 2, "1-2", _cc("AB2", "Attacker Broken, retreats 2 hexes; the defender may advance; "
                         "check Cavalry Pursuit", "Attaccante in Rotta, l'attaccante si ritira di 2 "
                         "esagoni, il difensore può avanzare nell'esagono, controllate per "
                         "l'Inseguimento di Cavalleria", "broken", 2, "", 0, "defender", "may", True)),
    Row(3, 3, "3", _cc("AS2", "Attacker Shaken, retreats 2 hexes; the defender may advance",
                       "Attaccante Scosso, l'attaccante si ritira di 2 esagoni, il difensore può "
                       "avanzare nell'esagono", "shaken", 2, "", 0, "defender", "may", False)),
    Row(4, 4, "4", _cc("AS1", "Attacker Shaken, retreats 1 hex; the defender may not advance",
                       "Attaccante Scosso, l'attaccante si ritira di 1 esagono, il difensore non "
                       "può avanzare", "shaken", 1, "", 0, "defender", "may_not", False)),
    Row(5, 5, "5", _cc("DS1", "Defender Shaken, retreats 1 hex; the attacker may not advance",
                       "Difensore Scosso, il difensore si ritira di 1 esagono, l'attaccante non "
                       "può avanzare", "", 0, "shaken", 1, "attacker", "may_not", False)),
    Row(6, 6, "6", _cc("DS2", "Defender Shaken, retreats 2 hexes; the attacker must advance",
                       "Difensore Scosso, il difensore si ritira di 2 esagoni, l'attaccante deve "
                       "avanzare nell'esagono", "", 0, "shaken", 2, "attacker", "must", False)),
    Row(7, 8, "7-8", _cc("DB2", "Defender Broken, retreats 2 hexes; the attacker must advance; "
                         "check Cavalry Pursuit", "Difensore in Rotta, il difensore si ritira di 2 "
                         "esagoni, l'attaccante deve avanzare nell'esagono, controllate per "
                         "l'Inseguimento di Cavalleria", "", 0, "broken", 2, "attacker", "must", True)),
    Row(9, None, "≥9", _cc("DE", "Defender eliminated; the attacker must advance; check Cavalry "
                           "Pursuit", "Difensore eliminato, l'attaccante deve avanzare "
                           "nell'esagono, controllate per l'Inseguimento di Cavalleria",
                           "", 0, "eliminated", 0, "attacker", "must", True)),
))


def close_combat(modified_roll: int) -> CloseCombatResult:
    """§10.2 D: the Close Combat table result for the attacker's modified roll. Afterwards
    both sides take one formation hit (§10.2 E, `formation_after_hit`)."""
    return CLOSE_COMBAT_TABLE.lookup(modified_roll)


CLOSE_COMBAT_MODIFIERS = (      # L2137-2164 and §10.3
    ModifierRule("leader", None, "one leader per side stacked with a participant: the attacker's "
                 "value counts positive, the defender's negative", "TACW §10.3.2", -2, 2),
    ModifierRule("morale", None, "highest attacking morale minus the defender's morale (D16)",
                 "TACW §10.3.3", -7, 7),
    ModifierRule("ratio", None, "strength ratio, rounded in the defender's favour",
                 "TACW §10.3.4", -2, 2),
    ModifierRule("matrix", None, "Close Combat Matrix", "TACW §10.3.8", -2, 2),
    ModifierRule("defending_pistol", -1, "defending cavalry spent a pistol shot", "TACW §10.3.9"),
    ModifierRule("attacking_pistol", +1, "per attacking cavalry unit that spent a pistol shot",
                 "TACW §10.3.9"),
    ModifierRule("flank_rear", +1, "per flank or rear hex the defender is attacked from",
                 "TACW §10.3.7"),
    ModifierRule("attacker_disordered", -1, "attacker in F-Disordered formation (or Open Order, "
                 "errata [6.3.3])", "TACW §10.3"),
    ModifierRule("attacker_broken", -2, "attacker in F-Broken formation", "TACW §10.3"),
    ModifierRule("attacker_salvo", +1, "attacker has just fired a Salvo", "TACW §10.3"),
    ModifierRule("heavy_momentum", +1, "heavy infantry momentum", "TACW §10.3.6"),
    ModifierRule("cavalry_momentum", +2, "cavalry momentum", "TACW §10.3.6"),
    ModifierRule("defender_disordered", +1, "defender in F-Disordered formation (or Open Order, "
                 "errata [6.3.3])", "TACW §10.3"),
    ModifierRule("defender_broken", +2, "defender in F-Broken formation (a column attacked goes "
                 "F-Broken first, §6.3.4)", "TACW §10.3"),
    ModifierRule("terrain", None, "Terrain table, Close Combat column (hex and hexside)",
                 "TACW §10.3.1", -3, 1),
    ModifierRule("naseby_bard_vs_cavalry", +1, "Naseby: the Bard brigade (no pikes) attacked by "
                 "cavalry (D28)", "TACW Naseby special rule"),
)

# Close Combat Matrix (§10.3.8; L2169-2187): attacker row, defender column; artillery is ignored
# (§10.5). The orphan "Testuggine -2 -1 -3" of L2221-2224 (the file's last line, "-3", has no
# newline) is read as a defender-in-hedgehog column replacing Heavy Infantry, in the matrix's row
# order: cavalry -2, heavy -1, light -3 (D29).
CLOSE_COMBAT_MATRIX: dict[str, dict[str, int]] = {
    "cavalry": {"cavalry": 0, "heavy": -1, "light": +2},
    "heavy": {"cavalry": +1, "heavy": 0, "light": +2},
    "light": {"cavalry": -2, "heavy": -2, "light": 0},
}
HEDGEHOG_COLUMN: dict[str, int] = {"cavalry": -2, "heavy": -1, "light": -3}   # D29


def matrix_modifier(attacker_kind: str, defender_kind: str, defender_hedgehog: bool = False) -> int:
    """§10.3.8: the Close Combat Matrix modifier (attacker kind against defender kind)."""
    for kind in (attacker_kind, defender_kind):
        if kind not in CLOSE_COMBAT_MATRIX:
            raise ValueError(f"{kind!r} has no row in the Close Combat Matrix (artillery is "
                             "ignored in close combat, §10.5)")
    if defender_hedgehog:
        if defender_kind != "heavy":
            raise ValueError("only heavy infantry forms hedgehog (§6.3.2)")
        return HEDGEHOG_COLUMN[attacker_kind]
    return CLOSE_COMBAT_MATRIX[attacker_kind][defender_kind]


def ratio_modifier(att: int | Fraction, dfn: int | Fraction, cavalry_vs_heavy: bool = False) -> int:
    """§10.3.4-10.3.5: the strength-ratio modifier. Attacking SP (summed) against defending SP;
    when cavalry attacks heavy infantry only half the infantry's SP count (exactly: 4 against
    9 is 4 : 4.5). The ratio is rounded in the defender's favour (D30): attacker-stronger ratios
    round down (7:2 is 3:1), defender-stronger ratios round up (4:5 is 1:2). 4:1 or more +2;
    2:1 or 3:1 +1; 1:2 or 1:3 -1; 1:4 or less -2; otherwise 0."""
    a = Fraction(att)
    d = Fraction(dfn) / 2 if cavalry_vs_heavy else Fraction(dfn)
    if a <= 0 or d <= 0:
        raise ValueError("both sides of a close combat have strength")
    if a >= d:
        k = floor(a / d)
        return 2 if k >= 4 else 1 if k >= 2 else 0
    k = ceil(d / a)
    return -2 if k >= 4 else -1 if k >= 2 else 0


def morale_modifier(attacker_morales: Iterable[int], defender_morale: int) -> int:
    """§10.3.3: the highest attacking morale minus the defender's (current morale, D16)."""
    return max(attacker_morales) - defender_morale


def leader_close_combat_modifier(value: int, attacking: bool) -> int:
    """§10.3.2: a leader's value (0..-2) helps his side: positive for the attacker (who rolls),
    as it is (negative) for the defender. One leader per side."""
    return -value if attacking else value


MOMENTUM = {"cavalry": +2, "heavy": +1}        # §10.3.6: two hexes straight into the combat


def momentum_modifier(kind: str) -> int:
    return MOMENTUM.get(kind, 0)


def flank_rear_modifier(hexes: int, defender_hedgehog: bool = False) -> int:
    """§10.3.7: +1 per flank or rear hex the defender is attacked from; none on a hedgehog."""
    return 0 if defender_hedgehog else hexes


def pistol_modifier(attacking_shots: int = 0, defending_shot: bool = False) -> int:
    """§10.3.9: +1 per attacking cavalry unit spending a shot, -1 if the defending cavalry does."""
    return attacking_shots - int(defending_shot)


def _effective_formation(formation: str, special: str) -> str:
    if special == "column":
        return "broken"             # §6.3.4: attacked in column, it goes F-Broken first
    if special == "open" and formation == "normal":
        return "disordered"         # errata [6.3.3]: Open Order counts as Formation-Shaken
    return formation


def attacker_state_modifier(formation: str = "normal", special: str = "",
                            just_fired_salvo: bool = False) -> int:
    """Close Combat table, "L'attaccante è o ha ...": F-Disordered -1 (Open Order too, errata
    [6.3.3]), F-Broken -2, has just fired a Salvo +1."""
    f = "disordered" if special == "open" and formation == "normal" else formation
    return {"normal": 0, "disordered": -1, "broken": -2}[f] + int(just_fired_salvo)


def defender_state_modifier(formation: str = "normal", special: str = "") -> int:
    """Close Combat table, "Il difensore è ...": F-Disordered +1 (Open Order too), F-Broken
    +2 (a column attacked is F-Broken, §6.3.4)."""
    return {"normal": 0, "disordered": +1, "broken": +2}[_effective_formation(formation, special)]


def close_combat_modifiers(*, attacker_kind: str, defender_kind: str, attacker_strength: int | Fraction,
                           defender_strength: int | Fraction, attacker_morales: Iterable[int],
                           defender_morale: int, attacker_leader: int | None = None,
                           defender_leader: int | None = None, momentum: bool = False,
                           flank_rear_hexes: int = 0, attacker_pistols: int = 0,
                           defender_pistol: bool = False, attacker_formation: str = "normal",
                           attacker_special: str = "", just_fired_salvo: bool = False,
                           defender_formation: str = "normal", defender_special: str = "",
                           target_terrain: str | None = None, hexside: str | None = None,
                           naseby_bard_vs_cavalry: bool = False,
                           halve_heavy: bool | None = None) -> list[Modifier]:
    """Every modifier of one close combat roll (§10.3), zero terms left out. With several
    attackers of different kinds or across different terrain, the caller passes the kind and
    terrain most favourable to the defender (§10.1.4); strengths are summed, morales listed.
    `halve_heavy` (default: cavalry attacking heavy infantry) counts half the infantry's SP
    (§10.3.5); with mixed attackers pass False: only an all-cavalry attack halves it (D30)."""
    R = CLOSE_COMBAT_MODIFIERS
    hedgehog = defender_special == "hedgehog"
    attacker_morales = list(attacker_morales)
    if halve_heavy is None:
        halve_heavy = attacker_kind == "cavalry" and defender_kind == "heavy"
    terms: list[tuple[str, int, str | None]] = [
        ("leader", leader_close_combat_modifier(attacker_leader, True)
         if attacker_leader is not None else 0, "attacker's leader"),
        ("leader", leader_close_combat_modifier(defender_leader, False)
         if defender_leader is not None else 0, "defender's leader"),
        ("morale", morale_modifier(attacker_morales, defender_morale),
         f"morale {max(attacker_morales)} against {defender_morale}"),
        ("ratio", ratio_modifier(attacker_strength, defender_strength, halve_heavy),
         f"strength {attacker_strength} against {defender_strength}"
         + (" (half the infantry's SP against cavalry)" if halve_heavy else "")),
        ("matrix", matrix_modifier(attacker_kind, defender_kind, hedgehog),
         f"Close Combat Matrix: {attacker_kind} against {defender_kind}"
         + (" in hedgehog" if hedgehog else "")),
        ("attacking_pistol", attacker_pistols, None),
        ("defending_pistol", -int(defender_pistol), None),
        ("flank_rear", flank_rear_modifier(flank_rear_hexes, hedgehog), None),
        ("cavalry_momentum" if attacker_kind == "cavalry" else "heavy_momentum",
         momentum_modifier(attacker_kind) if momentum else 0, None),
    ]
    f = "disordered" if attacker_special == "open" and attacker_formation == "normal" \
        else attacker_formation
    terms.append(("attacker_" + f, attacker_state_modifier(attacker_formation, attacker_special), None))
    terms.append(("attacker_salvo", int(just_fired_salvo), None))
    f = _effective_formation(defender_formation, defender_special)
    terms.append(("defender_" + f, defender_state_modifier(defender_formation, defender_special), None))
    terms.append(("naseby_bard_vs_cavalry", int(naseby_bard_vs_cavalry and attacker_kind == "cavalry"), None))
    mods = [_rule(R, key).modifier(value, reason) for key, value, reason in terms if value]
    mods += _terrain_mods(target_terrain, hexside, terrain_close_combat_modifier, "close combat")
    return mods


# == Retreat Impossible table (§10.4.5 L761-763, §11.4.3 L852-854; table L2188-2198) ============

RETREAT_IMPOSSIBLE_TABLE = DieTable(
    "Retreat Impossible table", "TACW §10.4.5", "L2188-2198",
    (Row(0, 4, "0-4", "eliminated"), Row(5, 9, "5-9", "remains")))


def retreat_impossible_modifier(base_morale: int) -> int:
    """-2 for base morale 6 or less, +1 for base morale 8."""
    return -2 if base_morale <= 6 else (+1 if base_morale >= 8 else 0)


def retreat_impossible(modified_roll: int) -> str:
    """A morale-Broken unit that cannot retreat: "eliminated" or "remains" (stays in place)."""
    return RETREAT_IMPOSSIBLE_TABLE.lookup(modified_roll)


# == Cavalry Pursuit table (§10.7; L787-821, table L2199-2214) ===================================

PURSUIT_TABLE = DieTable(
    "Cavalry Pursuit table", "TACW §10.7.2", "L2199-2207",
    (Row(0, 2, "0-2", "break_contact"), Row(3, 5, "3-5", "pursue_eliminate"),
     Row(6, None, "6+", "pursue_off_map")))
PURSUIT_MODIFIERS = (
    ModifierRule("charge_orders", +1, "cavalry on Charge orders", "TACW §10.7.5"),
    ModifierRule("momentum", +1, "cavalry momentum used in the close combat", "TACW §10.7.5"),
    ModifierRule("cromwell", -2, "Cromwell stacked with or adjacent to the cavalry", "TACW §10.7.5"),
)


def pursuit_modifiers(*, charge_orders: bool = False, momentum: bool = False,
                      cromwell: bool = False) -> list[Modifier]:
    flags = {"charge_orders": charge_orders, "momentum": momentum, "cromwell": cromwell}
    return [r.modifier() for r in PURSUIT_MODIFIERS if flags[r.key]]


def cavalry_pursuit(modified_roll: int, routed_unit_gone: bool = False) -> str:
    """§10.7.2: "break_contact", "pursue_eliminate" or "pursue_off_map", rolled for each winning
    cavalry unit that took part (D32). §10.7.4: a 3-5 when the routed unit is already gone
    counts as break contact."""
    result = PURSUIT_TABLE.lookup(modified_roll)
    if result == "pursue_eliminate" and routed_unit_gone:
        return "break_contact"
    return result


# == morale and formation ladders (§6.3.1, §10.2 E, §10.4.2, §11.4.1) ============================

MORALE_LADDER = ("normal", "shaken", "broken", "eliminated")
FORMATION_LADDER = ("normal", "disordered", "broken")


def morale_after_failed_mc(current: str) -> str:
    """§11.4.1: a failed MC loses one level: Normal -> Shaken -> Broken -> eliminated."""
    return MORALE_LADDER[min(MORALE_LADDER.index(current) + 1, 3)]


def morale_after_result(current: str, result: str) -> str:
    """§10.4.2: a close-combat result on a unit. Shaken on a Shaken unit counts as Broken; any
    adverse result on a Broken unit counts as Eliminated; never an improvement."""
    if result not in ("shaken", "broken", "eliminated"):
        raise ValueError(f"unknown close combat result {result!r}")
    if current == "broken":
        return "eliminated"
    if current == "shaken" and result == "shaken":
        return "broken"
    return MORALE_LADDER[max(MORALE_LADDER.index(current), MORALE_LADDER.index(result))]


def formation_after_hit(formation: str, special: str = "") -> tuple[str, str]:
    """One formation hit (§6.3.1, §10.2 E): (formation, special formation) afterwards. Normal ->
    Disordered -> Broken; a Broken unit takes no further effect (D31). A hit on Open Order
    sends it straight to F-Broken and removes the marker (§6.3.3); so does an attack on a column
    (§6.3.4). A hedgehog keeps its marker (only Reform removes it, §6.3.2)."""
    if special in ("open", "column"):
        return "broken", ""
    return FORMATION_LADDER[min(FORMATION_LADDER.index(formation) + 1, 2)], special
