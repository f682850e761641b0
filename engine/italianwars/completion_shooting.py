"""The Italian Wars, Herald's completion: shooting (SUPPLEMENT.md IW-H 5).

IW-H 5.1 ranges and arcs, 5.2 the Shooting table (column -> casualty points for one d6), 5.3 the
column's modifiers (size, disorder, range, armour and piercing, target, cover, weather) and one
shot resolved with the dice from the caller (`resolve_shot`: the table, captain risk IW-H 8, the
morale test of 5.4 and IW-H 7). Every value is HERALD's (HERALD D6), labelled with its rule; see
completion.py for how the completion is read and cited.

Pure: standard library and engine.core.events only; no randomness (dice come from the caller).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.events import Modifier
from engine.italianwars.completion import (ARMOUR_SHIFT, COVER_SHIFT, FIREARMS, GUNS, SHOOT_MORALE_AT,
                                           SIZE_SHIFT_SHOOTER, Profile, Roll, _lighter,
                                           captain_falls, captain_fate, clamp, mod,
                                           morale_modifiers, morale_outcome)


# == IW-H 5 shooting ===============================================================================

# (short, long) range in UDM, measured as HERALD D2 (edge to edge) (IW-H 5.1)
RANGES = {
    "longbow": (2, 6), "shortbow": (2, 3), "crossbow": (2, 5), "arquebus": (2, 4),
    "javelin": (1, 1), "light_gun": (4, 10), "heavy_gun": (6, 15), "organ_gun": (2, 4),
    "war_cart": (2, 4),
}
# column shift at (short, long) range (IW-H 5.3)
RANGE_SHIFT = {
    "longbow": (1, 0), "shortbow": (0, -1), "crossbow": (1, 0), "arquebus": (2, -1),
    "javelin": (0, 0), "light_gun": (1, 0), "heavy_gun": (2, 1), "organ_gun": (2, -1),
    "war_cart": (1, -1),
}
# classes of armour a missile ignores (IW-H 5.3): firearms pierce one class, roundshot all
PIERCE = {"arquebus": 1, "light_gun": 2, "heavy_gun": 2, "organ_gun": 1, "war_cart": 1}
ARC = {"infantry": 45, "cavalry": 45, "screen": 45, "skirmishers": 180, "artillery": 22.5}   # degrees each side (IW-H 5.1)

SHOOTING_TABLE = {   # IW-H 5.2: column -> casualty points for d6 = 1..6
    0: (0, 0, 0, 0, 0, 0),
    1: (0, 0, 0, 0, 0, 1),
    2: (0, 0, 0, 0, 1, 1),
    3: (0, 0, 0, 1, 1, 2),
    4: (0, 0, 1, 1, 2, 2),
    5: (0, 1, 1, 2, 2, 3),
    6: (1, 1, 2, 2, 3, 3),
    7: (1, 2, 2, 3, 3, 4),
    8: (1, 2, 3, 3, 4, 4),
    9: (2, 2, 3, 4, 4, 5),
    10: (2, 3, 3, 4, 5, 6),
}


def shooting_points(column: int, die: int) -> int:
    """IW-H 5.2: the casualty points a shot inflicts."""
    return SHOOTING_TABLE[clamp(column)][die - 1]


# == IW-H 5 the shot =================================================================================

def range_band(missile: str, distance: float) -> str | None:
    """IW-H 5.1: "short", "long", or None beyond range."""
    short, long_ = RANGES[missile]
    if distance <= short:
        return "short"
    return "long" if distance <= long_ else None


def shooting_column(shooter: Profile, target: Profile, band: str, *, weather: str = "good",
                    frontal: bool = True) -> tuple[int, list[Modifier]]:
    """IW-H 5.3: the column a shot reads (not yet held to 0..10) and its modifiers.
    `frontal`: the shooter is in front of the target's front edge (mixed armour)."""
    if not shooter.shooting or not shooter.missile:
        raise ValueError(f"{shooter.name or 'the company'} has no missile weapon (IW Tipi di armi)")
    if weather == "bad" and shooter.missile in FIREARMS:
        raise ValueError("no firearm or gun shoots in bad weather (IW Tempo atmosferico)")
    mods: list[Modifier] = []
    size = shooter.shooting_size()
    if SIZE_SHIFT_SHOOTER[size]:
        mods.append(mod(SIZE_SHIFT_SHOOTER[size], f"{size} company shooting", "5.3"))
    if shooter.disordered:
        mods.append(mod(-1, "shooter disordered", "5.3"))
    shift = RANGE_SHIFT[shooter.missile][0 if band == "short" else 1]
    if shift:
        mods.append(mod(shift, f"{shooter.missile.replace('_', ' ')} at {band} range", "5.3"))
    armour = target.armour_class(frontal)
    armour = _lighter(armour, PIERCE.get(shooter.missile, 0))
    if ARMOUR_SHIFT[armour]:
        mods.append(mod(ARMOUR_SHIFT[armour], f"target {armour}"
                        + (" (after the weapon's piercing)" if shooter.missile in PIERCE else ""), "5.3"))
    if target.size == "large":
        mods.append(mod(2 if shooter.missile in GUNS else 1, "large target (deep files)", "5.3"))
    if target.role == "skirmishers":
        mods.append(mod(-1, "target skirmishers (loose order)", "5.3"))
    if COVER_SHIFT[target.cover]:
        mods.append(mod(COVER_SHIFT[target.cover],
                        "target behind field defences or in a built-up area" if target.cover == "defences"
                        else "target in cover", "5.3"))
    if target.screen:
        mods.append(mod(-1, "target screened by skirmishers", "5.3"))
    if weather == "bad":
        mods.append(mod(-1, "bad weather (bows, crossbows, javelins)", "5.3"))
    return shooter.shooting + sum(m.value for m in mods), mods


@dataclass
class ShotResult:
    column: int
    modifiers: list[Modifier]
    die: int
    points: int
    captain: str = ""                 # "" or "killed"
    morale: str = ""                  # "" (no test) / pass / disorder / rout
    morale_modifiers: list[Modifier] = field(default_factory=list)
    destroyed: bool = False


def resolve_shot(shooter: Profile, target: Profile, band: str, roll: Roll, *, weather: str = "good",
                 frontal: bool = True) -> ShotResult:
    """IW-H 5: one shot: the Shooting table (5.2), captain risk (IW-H 8) for a target that lost
    points, and its morale test (5.4, IW-H 7) if it lost 2+ points or its captain fell."""
    column, mods = shooting_column(shooter, target, band, weather=weather, frontal=frontal)
    col = clamp(column)
    die = roll("shooting", lambda f: SHOOTING_TABLE[col][f - 1])
    pts = shooting_points(column, die)
    res = ShotResult(column, mods, die, pts)
    left = target.full_points - target.points_lost - pts
    if left <= 0:
        res.destroyed = True
        return res
    fell = False
    if pts >= SHOOT_MORALE_AT:
        if captain_falls("shot", roll("captain risk", lambda f: captain_falls("shot", f))):
            res.captain = captain_fate("shot", roll("captain fate", lambda f: captain_fate("shot", f)))
            fell = bool(res.captain)
    if pts >= SHOOT_MORALE_AT or fell:
        mm = morale_modifiers(target, shot_points=pts, captain_fell=fell, points_after=left)
        m = sum(x.value for x in mm)
        res.morale_modifiers = mm
        die_m = roll("morale", lambda f: morale_outcome(target.morale, m, f, target.disordered))
        res.morale = morale_outcome(target.morale, m, die_m, target.disordered)
    return res
