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

The completion is kept by the supplement's rules, each part in its module: this one holds what
they share (the citation, the column held to 0..10, the company profile) and the morale, captain
and after-battle rules every procedure calls (IW-H 7-15); completion_movement.py IW-H 2-3,
completion_shooting.py IW-H 5, completion_melee.py IW-H 6, completion_odds.py the exact odds, the
report and the supplement's generated text (IW-H 16).

Pure: standard library and engine.core.events only; no randomness (dice come from the caller);
the odds enumerate the d6s with fractions.Fraction (`shot_odds`, `melee_odds`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

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


# == IW-H 1 the column, held to 0..10 ==============================================================

COLUMN_MIN, COLUMN_MAX = 0, 10

SHOOT_MORALE_AT = 2           # IW-H 5.4: a target that lost 2+ points tests morale


def clamp(column: int) -> int:
    return max(COLUMN_MIN, min(COLUMN_MAX, column))


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


# == the procedures, with the dice from the caller ======================================================
# `roll(purpose, key)` returns a d6 face. In the game it draws from the seeded stream and ignores
# `key`; the odds enumerate the faces, grouping those `key` maps alike (exact, and fast).

Roll = Callable[[str, Callable[[int], object] | None], int]


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
