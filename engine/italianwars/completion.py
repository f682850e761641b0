"""The Italian Wars: Herald's completion of the missing half, as data and pure functions (issue 16).

The text (`rules/italian-wars.it.txt`, the authority) stops at the declaration of charges: it
defines the melee and shooting "entry levels" (Livello d'entrata 5/4/2/1, IW Fattori di mischia,
IW Fattori di tiro) but not the tables they enter, nor movement, morale, captain risk, rout,
pursuit, reorganisation, limbering, field defences, ambushes, Retreat or the end of the day.
Everything here is HERALD's (HERALD D6): each value is labelled with the rule of the supplement
that states it ("IW-H 5.3"), written up for players in engine/italianwars/SUPPLEMENT.md (which
/rules shows); `herald_values()` lists them with their reasoning. A club that owns the printed
rules replaces the numbers here and the supplement's tables (the test
tests/engine/test_iw_completion.py reprints the odds and refuses a supplement that drifts).

How to read the tables (IW-H 1): a company ENTERS the Shooting or the Melee table at the column of
its entry level (5, 4, 2, 1: the text's), modifiers move it right (+) or left (-), the column is
held to 0..10, and ONE d6 read there gives the casualty points the enemy loses. Points are the
text's own currency (a base of foot or guns 2, of horse 3: IW Compagnie).

Pure: standard library and engine.core.events only; no randomness (dice come from the caller);
the odds enumerate the d6s with fractions.Fraction (`shot_odds`, `melee_odds`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable

from engine.core.events import Modifier

HERALD = "Herald completion"
FACES = (1, 2, 3, 4, 5, 6)
SIXTH = Fraction(1, 6)
MORALE_CLASSES = ("gentlemen", "professionals", "mercenaries", "militia", "rabble")
SIZES = ("small", "medium", "large")
ARMOURS = ("armoured", "protected", "unprotected")          # heaviest first (IW Tipo di armatura)
MELEE_WEAPONS = ("lance", "pike", "polearm", "side_arms")   # IW Tipi di armi
MISSILES = ("longbow", "shortbow", "crossbow", "arquebus", "javelin",
            "light_gun", "heavy_gun", "organ_gun", "war_cart")
GUNS = ("light_gun", "heavy_gun", "organ_gun", "war_cart")
FIREARMS = ("arquebus",) + GUNS                             # cannot shoot in bad weather (IW Tempo atmosferico)
LEVELS = (1, 2, 4, 5)                                       # the text's entry levels; there is no 3
SUPPLEMENT_PATH = Path(__file__).resolve().parent / "SUPPLEMENT.md"


def hcite(rule: str) -> str:
    """The citation of a supplement rule: "IW-H 6.2"."""
    return f"IW-H {rule}"


def mod(value: int, reason: str, rule: str) -> Modifier:
    """A modifier record (engine.core.events.Modifier) whose section says it is Herald's."""
    return Modifier(value, reason, f"{hcite(rule)}; {HERALD}")


# == IW-H 2 movement ===============================================================================

# UDM a turn in open ground, by movement class (IW-H 2.1)
MOVE = {
    "foot": 4,                 # close-order foot: pike, polearms, shooting foot, colunella, legion
    "skirmisher": 6,           # skirmishers (and a screen moves with its parent)
    "horse_armoured": 8,       # gendarmes and other men-at-arms
    "horse_protected": 10,     # mounted crossbows, light lancers
    "horse_unprotected": 12,   # stradiots, jinetes
    "light_gun": 4,            # limbered
    "organ_gun": 4,            # limbered
    "war_cart": 3,
    "heavy_gun": 2,            # limbered
}
MARCH_FACTOR = Fraction(3, 2)      # IW-H 2.2: under a March order, no enemy within 2 UDM (IW Marcia)
ROAD_BONUS = 2                     # IW-H 2.2: a whole move along a road, terrain ignored (IW Strade)
ROUT_FACTOR = Fraction(3, 2)       # IW-H 9.1: fear lends wings
TERRAIN_FACTOR = {                 # IW-H 2.3 (IW Terreno)
    "open": Fraction(1), "broken": Fraction(1, 2), "closed": Fraction(1, 2), "impassable": Fraction(0),
}
HALVED_BY = ("bad weather", "withdraw")   # IW-H 2.4: the text's two halvings (IW Cattivo tempo, IW Indietreggiare)


def move_class(kind: str, armour: str = "protected", role: str = "shock", missile: str = "") -> str:
    """The movement class of a company (IW-H 2.1): `kind` infantry / cavalry / artillery."""
    if kind == "artillery":
        return missile if missile in GUNS else "light_gun"
    if kind == "cavalry":
        return f"horse_{armour}"
    return "skirmisher" if role == "skirmishers" else "foot"


def move_allowance(cls: str, *, terrain: str = "open", weather: str = "good", order: str = "",
                   road: bool = False, routing: bool = False) -> Fraction:
    """UDM a company may move this turn (IW-H 2): its open rate, x1.5 under March or in rout,
    +2 along a road (terrain ignored), halved in broken or closed ground (skirmishers ignore broken
    ground; guns may not enter closed ground but by road), halved in bad weather and under
    Withdraw (the text's, IW Tempo atmosferico, IW Indietreggiare)."""
    base = Fraction(MOVE[cls])
    if routing:
        base *= ROUT_FACTOR
    elif order == "march":
        base *= MARCH_FACTOR
    if road:
        base += ROAD_BONUS
    else:
        if terrain == "closed" and cls in GUNS:
            return Fraction(0)
        if not (terrain == "broken" and cls == "skirmisher"):
            base *= TERRAIN_FACTOR[terrain]
    if weather == "bad":
        base /= 2
    if order == "withdraw":
        base /= 2
    return base


# == IW-H 3 manoeuvres =============================================================================

FACING_COST = {"infantry": 1, "skirmishers": 1, "cavalry": 2, "artillery": 1}   # IW-H 3.2 (the text's 2f example)
PHALANX_COST = 2                      # IW-H 3.4 form or leave a phalanx, each company
WHEEL_RADIUS = 1                      # IW-H 3.1 a company is 1 UDM wide: the outer corner's arc


def wheel_cost(degrees: float) -> float:
    """IW-H 3.1: a wheel pivots on one front corner; it costs the arc the other front corner
    travels (1 UDM radius): 90 degrees cost pi/2 = 1.57 UDM."""
    return round(math.radians(abs(degrees)) * WHEEL_RADIUS, 2)


def can_face_emergency(kind: str, allowance: Fraction | float) -> bool:
    """IW Risposte facoltative, emergency facing: half the move in the present ground must pay a
    facing change (IW-H 3.2): foot in the open needs a move of 2 UDM (the text's example)."""
    return Fraction(allowance) / 2 >= FACING_COST[kind]


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
MELEE_TABLE = {      # IW-H 6.2: column -> casualty points inflicted for d6 = 1..6
    0: (0, 0, 0, 0, 0, 1),
    1: (0, 0, 0, 0, 1, 1),
    2: (0, 0, 0, 1, 1, 2),
    3: (0, 0, 1, 1, 2, 2),
    4: (0, 1, 1, 2, 2, 3),
    5: (1, 1, 2, 2, 3, 3),
    6: (1, 2, 2, 3, 3, 4),
    7: (1, 2, 3, 3, 4, 4),
    8: (2, 2, 3, 4, 4, 5),
    9: (2, 3, 3, 4, 5, 5),
    10: (2, 3, 4, 4, 5, 6),
}
COLUMN_MIN, COLUMN_MAX = 0, 10

SHOOT_MORALE_AT = 2           # IW-H 5.4: a target that lost 2+ points tests morale


def clamp(column: int) -> int:
    return max(COLUMN_MIN, min(COLUMN_MAX, column))


def shooting_points(column: int, die: int) -> int:
    """IW-H 5.2: the casualty points a shot inflicts."""
    return SHOOTING_TABLE[clamp(column)][die - 1]


def melee_points(column: int, die: int) -> int:
    """IW-H 6.2: the casualty points a company inflicts in a round of melee."""
    return MELEE_TABLE[clamp(column)][die - 1]


# == company profiles ================================================================================

def size_of(bases: int) -> str:
    """IW Compagnie: 1 base small, 2 (and 3, the text's example) medium, 4 large."""
    if bases <= 1:
        return "small"
    return "large" if bases >= 4 else "medium"


@dataclass(frozen=True)
class Profile:
    """What the completion needs of a company (the scenario's printed attributes and the state's
    changing ones). Mixed armour: `armour` the best, `armour_light` the lightest (IW Tipo di
    armatura: the best only in good order and attacked or shot from the front)."""
    name: str = ""
    morale: str = "mercenaries"       # MORALE_CLASSES
    kind: str = "infantry"            # infantry / cavalry / artillery
    role: str = "shock"               # shock / shooting / skirmishers (IW Tipi di truppe)
    bases: int = 2
    armour: str = "protected"         # the best armour of its bases
    armour_light: str = ""            # the lightest, if its bases differ (mixed armour)
    melee: int = 2                    # melee entry level 5/4/2/1 (IW Fattori di mischia)
    weapon: str = "side_arms"         # MELEE_WEAPONS
    shooting: int = 0                 # shooting entry level 5/4/2/1, 0 none (IW Fattori di tiro)
    missile: str = ""                 # MISSILES
    nation: str = ""                  # swiss / landsknecht / imperial_landsknecht / ... (IW Nemici giurati)
    mixed: bool = False               # colunella, legion: shoots small, fights medium (IW Formazioni speciali)
    disordered: bool = False
    doppelsoldner: bool = False       # IW Doppelsöldner
    screen: bool = False              # has a skirmisher screen (IW Schermi di Schermagliatori)
    phalanx: bool = False             # part of a phalanx (IW Falange)
    igel: bool = False                # in Igel (IW Formazioni speciali)
    side_arms_only: bool = False      # rallied from rout (IW Tipi di armi)
    cover: str = ""                   # "" / "cover" / "defences" (field defences, built-up area)
    points_lost: int = 0
    start_points: int = 0             # 0: bases x (2 foot and guns, 3 horse)

    @property
    def base_points(self) -> int:
        return 3 if self.kind == "cavalry" else 2

    @property
    def full_points(self) -> int:
        return self.start_points or self.bases * self.base_points

    @property
    def size(self) -> str:
        return size_of(self.bases)

    def armour_class(self, frontal: bool = True) -> str:
        """IW Tipo di armatura: mixed armour counts the best only in good order from the front."""
        if not self.armour_light:
            return self.armour
        return self.armour if (frontal and not self.disordered) else self.armour_light

    def melee_size(self) -> str:
        return "medium" if self.mixed else self.size

    def shooting_size(self) -> str:
        return "small" if self.mixed else self.size


def screen_profile(parent: Profile, missile: str = "arquebus") -> Profile:
    """IW Schermi di Schermagliatori: the screen shoots as a small company at Inexperienced (2)."""
    return Profile(name=f"{parent.name} screen", morale=parent.morale, kind="infantry", role="skirmishers",
                   bases=1, armour="unprotected", melee=1, shooting=2, missile=missile)


def sworn_enemies(a: Profile, b: Profile) -> bool:
    """IW Nemici giurati: Swiss and Landsknechts; Imperial Landsknechts and other Landsknechts."""
    pair = {a.nation, b.nation}
    return pair == {"swiss", "landsknecht"} or pair == {"swiss", "imperial_landsknecht"} \
        or pair == {"landsknecht", "imperial_landsknecht"}


def _lighter(armour: str, classes: int) -> str:
    return ARMOURS[min(len(ARMOURS) - 1, ARMOURS.index(armour) + classes)]


ARMOUR_SHIFT = {"armoured": -2, "protected": -1, "unprotected": 0}     # IW-H 5.3, IW-H 6.3
SIZE_SHIFT_SHOOTER = {"small": -1, "medium": 0, "large": 1}            # IW-H 5.3
COVER_SHIFT = {"": 0, "cover": -1, "defences": -2}                     # IW-H 5.3, IW-H 6.3


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


# == IW-H 7 morale tests ================================================================================

MORALE_TARGET = {"professionals": 2, "gentlemen": 3, "mercenaries": 4, "militia": 5, "rabble": 6}   # IW-H 7.1
ROUT_MARGIN = 4                  # IW-H 7.2: short by 4 or more routs


def morale_outcome(morale: str, modifier: int, die: int, disordered: bool) -> str:
    """IW-H 7.2: d6 + modifiers >= the class's target passes (a 6 always passes, a 1 always
    fails). A failure disorders; a company already disordered, or short by 4 or more, routs."""
    total = die + modifier
    target = MORALE_TARGET[morale]
    if die == 6 or (die != 1 and total >= target):
        return "pass"
    if disordered or target - total >= ROUT_MARGIN:
        return "rout"
    return "disorder"


def morale_modifiers(c: Profile, *, margin: int = 0, shot_points: int = 0, flank: bool = False,
                     captain_fell: bool = False, points_after: int | None = None) -> list[Modifier]:
    """IW-H 7.3: the modifiers of a morale test. `margin`: the melee lost by so many points;
    `shot_points`: points lost to the shot that makes it test."""
    mods: list[Modifier] = []
    if margin > 1:
        mods.append(mod(-(margin - 1), f"lost the melee by {margin}", "7.3"))
    if shot_points > SHOOT_MORALE_AT:
        mods.append(mod(-(shot_points - SHOOT_MORALE_AT), f"lost {shot_points} points to shooting", "7.3"))
    if c.disordered:
        mods.append(mod(-1, "disordered", "7.3"))
    if flank:
        mods.append(mod(-1, "charged or attacked in flank or rear", "7.3"))
    if captain_fell:
        mods.append(mod(-1, "its captain fell", "7.3"))
    left = c.full_points - c.points_lost if points_after is None else points_after
    if left * 2 < c.full_points:
        mods.append(mod(-1, "below half its starting points", "7.3"))
    if c.cover:
        mods.append(mod(1, "in cover or behind field defences", "7.3"))
    if c.phalanx or c.igel:
        mods.append(mod(1, "in a phalanx or Igel", "7.3"))
    return mods


# == IW-H 8 captain risk ===============================================================================

CAPTAIN_AT_RISK = {"shot": 6, "melee": 6, "melee_lost": 5}   # IW-H 8.1: first d6 at least
CAPTAIN_FATE = {1: "", 2: "", 3: "", 4: "killed", 5: "killed", 6: "captured"}   # IW-H 8.2: second d6


def captain_falls(situation: str, die: int) -> bool:
    """IW-H 8.1: the captain is at risk on a 6 (5-6 if his company lost its melee)."""
    return die >= CAPTAIN_AT_RISK[situation]


def captain_fate(situation: str, die: int) -> str:
    """IW-H 8.2: the second d6: 1-3 unhurt ("" ), 4-5 killed, 6 captured (killed when shot)."""
    fate = CAPTAIN_FATE[die]
    return "killed" if (fate == "captured" and situation == "shot") else fate


# == IW-H 6 melee ======================================================================================

@dataclass(frozen=True)
class Side:
    """One side of a melee: its company and what it did this round."""
    company: Profile
    charging: bool = False            # charged (or counter-charged) into this melee this turn
    flanked: bool = False             # the enemy fights it on its flank or rear
    first_round: bool = True          # the round in which contact was made


LANCE_CHARGE = 2                      # IW-H 6.3
LANCE_VS_PIKE = 1                     # IW-H 6.3: against pikes in good order, frontally
CHARGE_IMPETUS = 1                    # IW-H 6.3: any other company that charged
PIKE_VS_HORSE, PIKE_VS_FOOT = 2, 1    # IW-H 6.3: pikes in good order, fighting to the front
SIDE_ARMS = -1                        # IW-H 6.3
DISORDER, PIKE_DISORDER = -1, -2      # IW-H 6.3: and disordered pikes lose their pike bonus
FLANKED = -2                          # IW-H 6.3
SWORN = 1                             # IW-H 6.3: both sides; a bloodier fight
WAR_CART_VS_HORSE = -2                # IW-H 6.3
DOPPEL_AT = 5                         # IW-H 6.1: d6 5+ disorders the enemy
BROKEN_THROUGH_MARGIN = 3             # IW-H 6.4


def effective_weapon(side: Side) -> str:
    """IW Tipi di armi: lancers who did not charge, rallied troops, shooting troops and
    skirmishers fight with side arms."""
    c = side.company
    if c.side_arms_only or c.role in ("shooting", "skirmishers") and not c.mixed:
        return "side_arms"
    if c.weapon == "lance" and not (side.charging and side.first_round):
        return "side_arms"
    return c.weapon


def _pike_ready(side: Side) -> bool:
    c = side.company
    return effective_weapon(side) == "pike" and not c.disordered and (not side.flanked or c.igel)


def melee_column(me: Side, enemy: Side) -> tuple[int, list[Modifier]]:
    """IW-H 6.3: the column `me` reads on the Melee table against `enemy` (not held to 0..10)."""
    c, e = me.company, enemy.company
    mods: list[Modifier] = []
    flanked = me.flanked and not c.igel
    weapon = effective_weapon(me)
    # size: the larger gets +1 a size step; a phalanx always counts one step larger (IW Falange)
    if not flanked:
        mine, theirs = SIZES.index(c.melee_size()), SIZES.index(e.melee_size())
        if c.phalanx:
            mine = max(mine, theirs + 1)
        if mine > theirs:
            mods.append(mod(mine - theirs, "larger than the enemy" + (" (phalanx)" if c.phalanx else ""), "6.3"))
    # weapon
    if weapon == "lance":
        pike_front = _pike_ready(enemy) and not enemy.flanked
        bonus = LANCE_VS_PIKE if pike_front else LANCE_CHARGE
        mods.append(mod(bonus, "lances charging" + (" into pikes in good order" if pike_front else ""), "6.3"))
    elif me.charging and me.first_round:
        mods.append(mod(CHARGE_IMPETUS, "charged", "6.3"))
    if weapon == "pike" and _pike_ready(me):
        v = PIKE_VS_HORSE if e.kind == "cavalry" else PIKE_VS_FOOT
        mods.append(mod(v, "pikes in good order against " + ("horse" if e.kind == "cavalry" else "foot"), "6.3"))
    if weapon == "side_arms":
        mods.append(mod(SIDE_ARMS, "side arms" + (" (lancers who did not charge)" if c.weapon == "lance" else ""), "6.3"))
    # the enemy's armour (polearms bite one class through)
    armour = e.armour_class(frontal=not enemy.flanked or e.igel)
    if weapon == "polearm":
        armour = _lighter(armour, 1)
    if ARMOUR_SHIFT[armour]:
        mods.append(mod(ARMOUR_SHIFT[armour], f"enemy {armour}" + (" (polearms)" if weapon == "polearm" else ""), "6.3"))
    if c.disordered:
        pike = c.weapon == "pike" and weapon == "pike"
        mods.append(mod(PIKE_DISORDER if pike else DISORDER, "disordered pikes" if pike else "disordered", "6.3"))
    if flanked:
        mods.append(mod(FLANKED, "fighting an enemy on its flank or rear", "6.3"))
    if COVER_SHIFT[e.cover]:
        mods.append(mod(COVER_SHIFT[e.cover], "enemy behind field defences or in a built-up area"
                        if e.cover == "defences" else "enemy in cover", "6.3"))
    if e.missile == "war_cart" and c.kind == "cavalry":
        mods.append(mod(WAR_CART_VS_HORSE, "horse against war carts", "6.3"))
    if sworn_enemies(c, e):
        mods.append(mod(SWORN, "sworn enemies", "6.3"))
    return c.melee + sum(m.value for m in mods), mods


def may_use_doppelsoldner(me: Side, enemy: Side) -> bool:
    """IW-H 6.1: before the first round, from the front, in good order, against foot in good order."""
    return (me.company.doppelsoldner and me.first_round and not me.flanked and not me.company.disordered
            and enemy.company.kind == "infantry" and not enemy.company.disordered)


# == the procedures, with the dice from the caller ======================================================
# `roll(purpose, key)` returns a d6 face. In the game it draws from the seeded stream and ignores
# `key`; the odds enumerate the faces, grouping those `key` maps alike (exact, and fast).

Roll = Callable[[str, Callable[[int], object] | None], int]


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


@dataclass
class MeleeResult:
    doppel: dict[str, bool] = field(default_factory=dict)     # "a"/"b": its Doppelsöldner disordered the enemy
    flank_test: str = ""                                         # the flanked side's test at 2f (IW Risposte obbligatorie)
    columns: dict[str, int] = field(default_factory=dict)
    modifiers: dict[str, list[Modifier]] = field(default_factory=dict)
    dice: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)        # points each side LOST
    winner: str = ""                                             # "a" / "b" / "" (drawn: the melee goes on)
    broken_through: bool = False
    captains: dict[str, str] = field(default_factory=dict)      # "a"/"b": "" / killed / captured
    morale: str = ""                                             # the loser's test: pass / disorder / rout
    captain_tests: dict[str, str] = field(default_factory=dict)  # "a"/"b": the test of a side whose captain
                                                                 # fell and that had no other (IW-H 7.1)
    outcome: dict[str, str] = field(default_factory=dict)      # "a"/"b": held / drawn / won / pushed back /
                                                                 # disordered / routed / destroyed


def resolve_melee(a: Side, b: Side, roll: Roll) -> MeleeResult:
    """IW-H 6: one round of melee between `a` and `b` (a usually the charger).

    Order: the flanked company's compulsory morale test if it was charged in flank or rear this
    turn (IW Risposte obbligatorie; IW-H 7); Doppelsöldner (6.1); each side's d6 on the Melee
    table (6.2, 6.3); casualties; captain risk (IW-H 8); the loser's morale test, push back,
    broken through, rout (6.4)."""
    res = MeleeResult()
    sides = {"a": a, "b": b}
    # 2f: a company charged in flank or rear tests first (its captain is not at risk yet)
    for k in ("a", "b"):
        s, o = sides[k], sides["b" if k == "a" else "a"]
        if s.flanked and s.first_round and o.charging and not s.company.igel:
            mm = morale_modifiers(s.company, flank=True)
            m = sum(x.value for x in mm)
            c = s.company
            die = roll("flank morale", lambda f, c=c, m=m: morale_outcome(c.morale, m, f, c.disordered))
            res.flank_test = morale_outcome(c.morale, m, die, c.disordered)
            if res.flank_test == "rout":
                res.winner = "b" if k == "a" else "a"
                res.outcome = {k: "routed", res.winner: "won"}
                res.points = {"a": 0, "b": 0}
                return res
            if res.flank_test == "disorder":
                sides[k] = replace(s, company=replace(c, disordered=True, phalanx=False))
    # 6.1 Doppelsöldner, just before close combat
    for k in ("a", "b"):
        s, o = sides[k], sides["b" if k == "a" else "a"]
        if may_use_doppelsoldner(s, o):
            hit = roll("Doppelsöldner", lambda f: f >= DOPPEL_AT) >= DOPPEL_AT
            res.doppel[k] = hit
    for k, hit in res.doppel.items():
        if hit:
            ok = "b" if k == "a" else "a"
            o = sides[ok]
            sides[ok] = replace(o, company=replace(o.company, disordered=True, phalanx=False))
    a, b = sides["a"], sides["b"]
    ca, ma = melee_column(a, b)
    cb, mb = melee_column(b, a)
    res.columns, res.modifiers = {"a": ca, "b": cb}, {"a": ma, "b": mb}
    da = roll("melee a", lambda f, c=clamp(ca): MELEE_TABLE[c][f - 1])
    db = roll("melee b", lambda f, c=clamp(cb): MELEE_TABLE[c][f - 1])
    res.dice = {"a": da, "b": db}
    lost = {"a": melee_points(cb, db), "b": melee_points(ca, da)}
    res.points = lost
    left = {k: sides[k].company.full_points - sides[k].company.points_lost - lost[k] for k in ("a", "b")}
    if lost["a"] != lost["b"]:
        res.winner = "a" if lost["b"] > lost["a"] else "b"
    loser = {"a": "b", "b": "a"}.get(res.winner, "")
    margin = abs(lost["a"] - lost["b"])
    # IW-H 8: captain risk for both companies
    fell = {}
    for k in ("a", "b"):
        sit = "melee_lost" if k == loser else "melee"
        f1 = roll(f"captain risk {k}", lambda f, sit=sit: captain_falls(sit, f))
        res.captains[k] = ""
        if captain_falls(sit, f1):
            f2 = roll(f"captain fate {k}", lambda f: captain_fate("melee", f))
            res.captains[k] = captain_fate("melee", f2)
        fell[k] = bool(res.captains[k])
    for k in ("a", "b"):
        if left[k] <= 0:
            res.outcome[k] = "destroyed"

    def captain_tests() -> MeleeResult:
        """IW-H 7.1: a side whose captain fell and that takes no other test (the winner, or both
        in a drawn round) tests at -1 (IW-H 8.2), after the loser's test."""
        for k in ("a", "b"):
            if not fell[k] or k == loser or res.outcome.get(k) == "destroyed":
                continue
            c = sides[k].company
            mm = morale_modifiers(c, captain_fell=True, points_after=left[k])
            m = sum(x.value for x in mm)
            die = roll(f"captain morale {k}", lambda f, c=c, m=m: morale_outcome(c.morale, m, f, c.disordered))
            res.captain_tests[k] = morale_outcome(c.morale, m, die, c.disordered)
            if res.captain_tests[k] == "rout":
                res.outcome[k] = "routed"
            elif res.captain_tests[k] == "disorder":
                res.outcome[k] = f"{res.outcome.get(k, 'drawn')}, disordered"
        return res

    if not res.winner:
        for k in ("a", "b"):
            res.outcome.setdefault(k, "drawn")
        return captain_tests()
    res.outcome.setdefault(res.winner, "won")
    if res.outcome.get(loser) == "destroyed":
        return captain_tests()
    lc = sides[loser].company
    if margin >= BROKEN_THROUGH_MARGIN:
        res.broken_through = True
        lc = replace(lc, disordered=True, phalanx=False)
    mm = morale_modifiers(lc, margin=margin, flank=sides[loser].flanked, captain_fell=fell[loser],
                          points_after=left[loser])
    m = sum(x.value for x in mm)
    die = roll("morale", lambda f: morale_outcome(lc.morale, m, f, lc.disordered))
    res.morale = morale_outcome(lc.morale, m, die, lc.disordered)
    res.outcome[loser] = {"pass": "disordered, pushed back" if res.broken_through else "pushed back",
                          "disorder": "disordered, pushed back", "rout": "routed"}[res.morale]
    return captain_tests()


# == exact odds: every d6 enumerated ===================================================================

class _Need(Exception):
    def __init__(self, branches: list[tuple[int, Fraction]]):
        self.branches = branches


def enumerate_outcomes(procedure: Callable[[Roll], object]) -> list[tuple[Fraction, object]]:
    """Run `procedure(roll)` over every sequence of d6 faces, exactly. Faces that the caller's
    `key` maps alike are run once with their summed weight (a representative face)."""
    out: list[tuple[Fraction, object]] = []
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        it = iter(prefix)

        def roll(purpose, key=None, _it=it):
            try:
                return next(_it)
            except StopIteration:
                groups: dict[object, list[int]] = {}
                for f in FACES:
                    groups.setdefault(key(f) if key else f, []).append(f)
                raise _Need([(fs[-1], Fraction(len(fs), 6)) for fs in groups.values()])
        try:
            result = procedure(roll)
        except _Need as need:
            for face, w in reversed(need.branches):
                stack.append((prefix + (face,), weight * w))
            continue
        out.append((weight, result))
    return out


@dataclass
class ShotOdds:
    points: dict[int, Fraction]       # P(target loses n points)
    mean: Fraction
    test: Fraction                    # P(a morale test)
    disorder: Fraction                # P(disordered by the test)
    rout: Fraction
    captain: Fraction                 # P(its captain killed)
    destroyed: Fraction


def shot_odds(shooter: Profile, target: Profile, band: str, *, weather: str = "good",
              frontal: bool = True) -> ShotOdds:
    """IW-H 5: the exact distribution of one shot (points, morale test, captain)."""
    outs = enumerate_outcomes(lambda r: resolve_shot(shooter, target, band, r, weather=weather, frontal=frontal))
    pts: dict[int, Fraction] = {}
    test = dis = rout = cap = dead = Fraction(0)
    for w, r in outs:
        pts[r.points] = pts.get(r.points, Fraction(0)) + w
        test += w if r.morale else 0
        dis += w if r.morale == "disorder" else 0
        rout += w if r.morale == "rout" else 0
        cap += w if r.captain else 0
        dead += w if r.destroyed else 0
    mean = sum((p * w for p, w in pts.items()), Fraction(0))
    return ShotOdds(dict(sorted(pts.items())), mean, test, dis, rout, cap, dead)


@dataclass
class MeleeOdds:
    win: dict[str, Fraction]          # "a", "b", "draw"
    outcome: dict[str, dict[str, Fraction]]   # per side: P(each outcome)
    points: dict[str, dict[int, Fraction]]    # per side: P(loses n points)
    mean_points: dict[str, Fraction]
    broken_through: Fraction
    captain: dict[str, Fraction]      # P(the captain killed or captured)
    columns: dict[str, int]           # the columns read without Doppelsöldner or flank test

    def p(self, side: str, *outcomes: str) -> Fraction:
        return sum((self.outcome[side].get(o, Fraction(0)) for o in outcomes), Fraction(0))


def melee_odds(a: Side, b: Side) -> MeleeOdds:
    """IW-H 6: the exact distribution of one round of melee between `a` and `b`."""
    outs = enumerate_outcomes(lambda r: resolve_melee(a, b, r))
    win = {"a": Fraction(0), "b": Fraction(0), "draw": Fraction(0)}
    outcome: dict[str, dict[str, Fraction]] = {"a": {}, "b": {}}
    points: dict[str, dict[int, Fraction]] = {"a": {}, "b": {}}
    bt = Fraction(0)
    cap = {"a": Fraction(0), "b": Fraction(0)}
    for w, r in outs:
        win[r.winner or "draw"] += w
        bt += w if r.broken_through else 0
        for k in ("a", "b"):
            o = r.outcome.get(k, "held")
            outcome[k][o] = outcome[k].get(o, Fraction(0)) + w
            n = r.points.get(k, 0)
            points[k][n] = points[k].get(n, Fraction(0)) + w
            cap[k] += w if r.captains.get(k) else 0
    mean = {k: sum((n * w for n, w in points[k].items()), Fraction(0)) for k in ("a", "b")}
    cols = {"a": melee_column(a, b)[0], "b": melee_column(b, a)[0]}
    return MeleeOdds(win, outcome, {k: dict(sorted(v.items())) for k, v in points.items()}, mean, bt, cap, cols)


# == IW-H 9-15 the rest, as data =======================================================================

PURSUE_MUST = ("gentlemen_horse", "swiss", "assault")     # IW-H 9.2
PURSUIT_HALT = {"default": 4, "gentlemen_horse": 5, "swiss": 5}   # IW-H 9.3: d6 at least, phase 5
RALLY_TARGET = {k: v + 1 for k, v in MORALE_TARGET.items() if k != "rabble"}   # IW-H 10.2: rabble never rallies
REORGANISE_TURNS = {"professionals": 1, "gentlemen": 1, "mercenaries": 2, "militia": 2, "rabble": 3}  # IW-H 10.1
LIMBER_TURNS = 1                  # IW-H 11.1: started in one turn, finished in the next (IW 2a Attivazione)
DEFENCES_COST = 2                 # IW-H 12.1: foot crossing field defences (UDM), and disordered
AMBUSH_REVEAL = 1                 # IW-H 13: an enemy within 1 UDM (the text's hidden skirmishers)
LAST_CLOCK_TURN = 18              # IW-H 15: the battle ends with the first turn of darkness (IW Notte e giorno)
MELEE_ONCE_A_TURN = True          # IW-H 6.5


def pursuit_class(c: Profile) -> str:
    if c.kind == "cavalry" and c.morale == "gentlemen":
        return "gentlemen_horse"
    return "swiss" if c.nation == "swiss" else "default"


def rally_target(morale: str) -> int | None:
    """IW-H 10.2: d6 at least this to rally from rout (rabble: never)."""
    return RALLY_TARGET.get(morale)


# == the odds report (IW-H 16) =========================================================================

def _foot(name, morale, melee, weapon, armour, bases=4, **kw):
    return Profile(name=name, morale=morale, kind="infantry", role="shock", bases=bases, armour=armour,
                   melee=melee, weapon=weapon, **kw)


SWISS_PIKE = _foot("Swiss pike", "professionals", 5, "pike", "armoured", armour_light="protected", nation="swiss",
                   doppelsoldner=True)
LANDSKNECHTS = _foot("Landsknechts", "mercenaries", 4, "pike", "armoured", armour_light="protected", nation="landsknecht",
                     doppelsoldner=True)
SPANISH_SWORD = _foot("Spanish sword-and-buckler", "mercenaries", 4, "polearm", "protected", bases=2,
                      doppelsoldner=True)
ITALIAN_FOOT = _foot("Italian foot", "militia", 2, "pike", "protected", bases=2)
MILITIA_PIKE = _foot("militia pike", "militia", 2, "pike", "protected", bases=2)
RABBLE = _foot("French rabble foot", "rabble", 1, "polearm", "unprotected", bases=2)
GENDARMES = Profile(name="French gendarmes", morale="gentlemen", kind="cavalry", bases=2, armour="armoured",
                    melee=5, weapon="lance")
STRADIOTS = Profile(name="Stradiots", morale="professionals", kind="cavalry", bases=2, armour="unprotected",
                    melee=2, weapon="side_arms", shooting=2, missile="javelin")
SPANISH_ARQ = Profile(name="Spanish arquebusiers", morale="professionals", kind="infantry", role="shooting",
                      bases=2, armour="unprotected", melee=1, shooting=5, missile="arquebus")
ITALIAN_XBOW = Profile(name="Italian crossbows", morale="militia", kind="infantry", role="shooting", bases=2,
                       armour="protected", melee=1, shooting=4, missile="crossbow")
ITALIAN_ARQ = replace(ITALIAN_XBOW, name="Italian arquebusiers", missile="arquebus")
FRENCH_GUNS = Profile(name="French guns", morale="professionals", kind="artillery", role="shooting", bases=1,
                      armour="unprotected", melee=1, shooting=5, missile="light_gun")


def _pct(p: Fraction) -> str:
    return f"{round(float(p) * 100)}%"


def _melee_row(label: str, a: Side, b: Side) -> tuple[str, ...]:
    o = melee_odds(a, b)
    return (label, f"{o.columns['a']} v {o.columns['b']}", _pct(o.win["a"]), _pct(o.win["draw"]),
            _pct(o.win["b"]), _pct(o.p("b", "routed", "destroyed")), _pct(o.p("a", "routed", "destroyed")),
            f"{float(o.mean_points['b']):.1f} / {float(o.mean_points['a']):.1f}")


def melee_report() -> list[tuple[str, ...]]:
    """IW-H 16.1: the text's melee matchups, one round (a charges b unless said)."""
    ch = dict(charging=True)
    ita_pike_att = replace(ITALIAN_FOOT, name="Italian foot")
    rows = [
        _melee_row("Gendarmes charge Swiss pike, front", Side(GENDARMES, **ch), Side(SWISS_PIKE)),
        _melee_row("Gendarmes charge Swiss pike, flank", Side(GENDARMES, **ch), Side(SWISS_PIKE, flanked=True)),
        _melee_row("Gendarmes charge disordered Swiss pike, front", Side(GENDARMES, **ch),
                   Side(replace(SWISS_PIKE, disordered=True))),
        _melee_row("Swiss pike charge Landsknechts (sworn enemies)", Side(SWISS_PIKE, **ch), Side(LANDSKNECHTS)),
        _melee_row("Landsknechts charge Swiss pike (sworn enemies)", Side(LANDSKNECHTS, **ch), Side(SWISS_PIKE)),
        _melee_row("Spanish sword-and-buckler charge Landsknechts", Side(SPANISH_SWORD, **ch), Side(LANDSKNECHTS)),
        _melee_row("Landsknechts charge Spanish sword-and-buckler", Side(LANDSKNECHTS, **ch), Side(SPANISH_SWORD)),
        _melee_row("Gendarmes charge stradiots", Side(GENDARMES, **ch), Side(STRADIOTS)),
        _melee_row("Stradiots charge gendarmes", Side(STRADIOTS, **ch), Side(GENDARMES)),
        _melee_row("Gendarmes charge Italian foot", Side(GENDARMES, **ch), Side(ITALIAN_FOOT)),
        _melee_row("Gendarmes charge militia pike, 2nd round (no lances)", Side(GENDARMES, first_round=False),
                   Side(MILITIA_PIKE, first_round=False)),
        _melee_row("Italian foot charge Landsknechts", Side(ita_pike_att, **ch), Side(LANDSKNECHTS)),
        _melee_row("Italian foot charge Spanish sword-and-buckler", Side(ita_pike_att, **ch), Side(SPANISH_SWORD)),
        _melee_row("Italian foot charge militia pike", Side(ita_pike_att, **ch), Side(MILITIA_PIKE)),
        _melee_row("Italian foot charge rabble", Side(ita_pike_att, **ch), Side(RABBLE)),
        _melee_row("Rabble charge militia pike", Side(RABBLE, **ch), Side(MILITIA_PIKE)),
        _melee_row("Militia pike charge rabble", Side(MILITIA_PIKE, **ch), Side(RABBLE)),
    ]
    return rows


def _shot_row(label: str, shooter: Profile, target: Profile, band: str, **kw) -> tuple[str, ...]:
    col = shooting_column(shooter, target, band, **kw)[0]
    o = shot_odds(shooter, target, band, **kw)
    return (label, str(col), f"{float(o.mean):.2f}", _pct(1 - o.points.get(0, Fraction(0))),
            _pct(o.test), _pct(o.disorder), _pct(o.rout), _pct(o.captain))


def shooting_report() -> list[tuple[str, ...]]:
    """IW-H 16.2: the text's shooting matchups, one shot."""
    screened = replace(SWISS_PIKE, screen=True)
    lk_screened = replace(LANDSKNECHTS, screen=True)
    return [
        _shot_row("Spanish arquebusiers v Swiss pike, short", SPANISH_ARQ, SWISS_PIKE, "short"),
        _shot_row("  the same, pike screened", SPANISH_ARQ, screened, "short"),
        _shot_row("Spanish arquebusiers v Swiss pike, long", SPANISH_ARQ, SWISS_PIKE, "long"),
        _shot_row("  the same, pike screened", SPANISH_ARQ, screened, "long"),
        _shot_row("Spanish arquebusiers v Landsknecht pike, short", SPANISH_ARQ, LANDSKNECHTS, "short"),
        _shot_row("  the same, pike screened", SPANISH_ARQ, lk_screened, "short"),
        _shot_row("Spanish arquebusiers v militia pike, short", SPANISH_ARQ, MILITIA_PIKE, "short"),
        _shot_row("Italian arquebus v Italian crossbow, short", ITALIAN_ARQ, ITALIAN_XBOW, "short"),
        _shot_row("Italian crossbow v Italian arquebus, short", ITALIAN_XBOW, ITALIAN_ARQ, "short"),
        _shot_row("Italian arquebus v Italian crossbow, long", ITALIAN_ARQ, ITALIAN_XBOW, "long"),
        _shot_row("Italian crossbow v Italian arquebus, long", ITALIAN_XBOW, ITALIAN_ARQ, "long"),
        _shot_row("French guns (light) v large pike block, short", FRENCH_GUNS, SWISS_PIKE, "short"),
        _shot_row("French guns (light) v large pike block, long", FRENCH_GUNS, SWISS_PIKE, "long"),
        _shot_row("French guns (heavy) v large pike block, long", replace(FRENCH_GUNS, missile="heavy_gun"),
                  SWISS_PIKE, "long"),
        _shot_row("Other guns (light, Inexperienced) v large pike, long", replace(FRENCH_GUNS, shooting=2),
                  LANDSKNECHTS, "long"),
        _shot_row("Stradiots' javelins v gendarmes", STRADIOTS, GENDARMES, "short"),
        _shot_row("Swiss screen (small, Inexperienced) v arquebusiers, short",
                  screen_profile(SWISS_PIKE), SPANISH_ARQ, "short"),
    ]


MELEE_HEAD = ("Melee (a v b), one round", "columns", "a wins", "drawn", "b wins", "b routs", "a routs",
              "points lost b / a")
SHOT_HEAD = ("Shot", "column", "mean points", "any loss", "test", "disordered", "routed", "captain killed")


def markdown_table(head: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def odds_report() -> str:
    """IW-H 16: the odds table printed by the test and written in SUPPLEMENT.md (between the
    ODDS markers), so the document cannot drift from the data."""
    return (markdown_table(MELEE_HEAD, melee_report()) + "\n\n"
            + markdown_table(SHOT_HEAD, shooting_report()))


def table_markdown(table: dict[int, tuple[int, ...]]) -> str:
    """IW-H 5.2 / 6.2 as the supplement prints them."""
    head = ("column",) + tuple(f"d6 {f}" for f in FACES) + ("mean",)
    rows = [(str(c),) + tuple(str(v) for v in vals) + (f"{sum(vals) / 6:.2f}",) for c, vals in table.items()]
    return markdown_table(head, rows)


# the generated blocks of SUPPLEMENT.md, between <!-- BEGIN NAME --> and <!-- END NAME -->
SUPPLEMENT_BLOCKS: dict[str, Callable[[], str]] = {
    "SHOOTING TABLE": lambda: table_markdown(SHOOTING_TABLE),
    "MELEE TABLE": lambda: table_markdown(MELEE_TABLE),
    "ODDS": odds_report,
}


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- BEGIN {name} (generated from the data: do not edit by hand) -->", f"<!-- END {name} -->"


def supplement_block(name: str, text: str | None = None) -> str:
    """A generated block as SUPPLEMENT.md has it."""
    text = SUPPLEMENT_PATH.read_text(encoding="utf-8") if text is None else text
    begin, end = _markers(name)
    i, j = text.index(begin) + len(begin), text.index(end)
    return text[i:j].strip()


def render_supplement(text: str) -> str:
    """The supplement's text with every generated block rewritten from the data (pure: the
    caller writes it; see tests/engine/test_iw_completion.py)."""
    for name, make in SUPPLEMENT_BLOCKS.items():
        begin, end = _markers(name)
        i, j = text.index(begin) + len(begin), text.index(end)
        text = text[:i] + "\n" + make() + "\n" + text[j:]
    return text


# == the supplement, for /rules ===============================================================================

_RULE_RE = re.compile(r"^## (IW-H \d+)\s*[—-]\s*(.+)$", re.MULTILINE)


def supplement_sections(text: str | None = None) -> list[tuple[str, str, str]]:
    """(id "IW-H 5", title, body) of every rule of SUPPLEMENT.md, in order (for /rules)."""
    text = SUPPLEMENT_PATH.read_text(encoding="utf-8") if text is None else text
    marks = list(_RULE_RE.finditer(text))
    out = []
    for n, m in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        out.append((m.group(1), m.group(2).strip(), text[m.end():end].strip()))
    return out


def herald_values() -> list[tuple[str, str]]:
    """(name = value, rule) of every number of the completion, for /rules and the tests."""
    out: list[tuple[str, str]] = []
    out += [(f"move.{k} = {v} UDM", hcite("2.1")) for k, v in MOVE.items()]
    out += [(f"march x{MARCH_FACTOR}", hcite("2.2")), (f"road +{ROAD_BONUS} UDM", hcite("2.2"))]
    out += [(f"terrain.{k} x{v}", hcite("2.3")) for k, v in TERRAIN_FACTOR.items()]
    out += [(f"facing.{k} = {v} UDM", hcite("3.2")) for k, v in FACING_COST.items()]
    out += [(f"phalanx = {PHALANX_COST} UDM", hcite("3.4"))]
    out += [(f"range.{k} = {v[0]}/{v[1]} UDM", hcite("5.1")) for k, v in RANGES.items()]
    out += [(f"range_shift.{k} = {v[0]:+d}/{v[1]:+d}", hcite("5.3")) for k, v in RANGE_SHIFT.items()]
    out += [(f"shooting_table.{c} = {v}", hcite("5.2")) for c, v in SHOOTING_TABLE.items()]
    out += [(f"melee_table.{c} = {v}", hcite("6.2")) for c, v in MELEE_TABLE.items()]
    out += [(f"morale.{k} = {v}+", hcite("7.1")) for k, v in MORALE_TARGET.items()]
    out += [(f"reorganise.{k} = {v} turns", hcite("10.1")) for k, v in REORGANISE_TURNS.items()]
    out += [(f"rally.{k} = {v}+", hcite("10.2")) for k, v in RALLY_TARGET.items()]
    return out
