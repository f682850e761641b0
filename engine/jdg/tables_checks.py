"""Jours de Gloire "Classique" tables as data: the die and the checks. The d10 read 0-9 ([0.4]
L46-48), the unit types ([0.3] L26), the citation helper and the two records every table is made of
(`Drm`, a die-roll modifier; `Band`, a band of a d10 result table, with their odds); the checks the
text gives, cohesion and engagement ([0.3] L38-44), commander and strategic initiative ([2.4]
L171-177, [3] L197-199), square and recall ([4.2], [9.3] L621-643), counter-charge ([9.4]
L645-654), rally ([11] L774-786), friendly fire (optional [7] L861-865); the text's fixed numbers
of movement, charge, rout, stacking and the optional rules (RULE_NUMBERS: [2.5] [4.1]-[4.4] [5.1]
[5.2] [6.2] [9.1] [10.1] [10.2], optional [1] [2.3] [11]) and the night turn ([12] L788-806).

Part of engine/jdg/tables.py (which re-exports every name here); its conventions apply: each
value cites its rule paragraph and the lines of `rules/jours-de-gloire.it.txt`; `TEXT` marks
what the text fixes, `HERALD` Herald's completion with its reasoning (engine/jdg/TABLES.md).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from engine.core.events import Modifier

TEXT = "text"
HERALD = "Herald completion"

D10_MIN, D10_MAX = 0, 9                                    # [0.4] L46-48
D10_FACES = tuple(range(D10_MIN, D10_MAX + 1))
UNIT_TYPES = ("infantry", "cavalry", "artillery")          # [0.3] L26


def cite(section: str, lines: str = "") -> str:
    """A citation of the Italian text: "JdG 8.6 (L535-547)"."""
    return f"JdG {section}" + (f" ({lines})" if lines else "")


# == generic data records ========================================================================

@dataclass(frozen=True)
class Drm:
    """One die-roll modifier of a table. `source` is TEXT (the value is printed in the rules, and
    `section` says where) or HERALD (our completion; `why` gives the reasoning)."""
    key: str
    value: int
    reason: str
    section: str
    source: str
    why: str = ""

    def __post_init__(self) -> None:
        if self.source not in (TEXT, HERALD):
            raise ValueError(f"{self.key}: source must be TEXT or HERALD")
        if self.source == HERALD and not self.why:
            raise ValueError(f"{self.key}: a Herald completion needs its reasoning")

    def modifier(self, value: int | None = None) -> Modifier:
        """The event record (engine.core.events.Modifier); the section says "Herald completion"
        when the value is ours, so every roll explains where its numbers come from."""
        section = self.section if self.source == TEXT else f"{self.section}; {HERALD}"
        return Modifier(self.value if value is None else value, self.reason, section)


@dataclass(frozen=True)
class Band:
    """A band of a d10 result table: modified totals `low`..`high` (None: open-ended)."""
    key: str
    low: int | None
    high: int | None
    label: str
    result: str
    section: str
    source: str = TEXT

    def holds(self, total: int) -> bool:
        return (self.low is None or total >= self.low) and (self.high is None or total <= self.high)


def _check_bands(name: str, bands: tuple[Band, ...]) -> tuple[Band, ...]:
    if bands[0].low is not None or bands[-1].high is not None:
        raise ValueError(f"{name}: the first and last bands must be open-ended")
    for a, b in zip(bands, bands[1:]):
        if a.high is None or b.low != a.high + 1:
            raise ValueError(f"{name}: bands {a.label!r} and {b.label!r} are not contiguous")
    return bands


def band_of(bands: tuple[Band, ...], total: int) -> Band:
    for b in bands:
        if b.holds(total):
            return b
    raise AssertionError("bands are contiguous and open-ended")


def band_odds(bands: tuple[Band, ...], drm: int) -> dict[str, Fraction]:
    """P(each band) for d10 (0-9) + `drm`, exact."""
    odds = {b.key: Fraction(0) for b in bands}
    for face in D10_FACES:
        odds[band_of(bands, face + drm).key] += Fraction(1, 10)
    return odds


def p_check(value: int, modifier: int = 0) -> Fraction:
    """P(d10 + modifier <= value): the chance a check passes ([0.3] L38-44)."""
    return Fraction(sum(1 for f in D10_FACES if f + modifier <= value), 10)


def pct(p: Fraction) -> str:
    return f"{float(p) * 100:.0f}%"


# == checks the text gives [0.3] [2.4] [3] [4.2] [9.3] [9.4] [11] [12] ==========================

CHECK_SECTIONS = {
    "cohesion": cite("0.3", "L38-40"),
    "engagement": cite("0.3", "L42-44"),
    "commander_initiative": cite("2.4", "L171-177"),
    "strategic_initiative": cite("3", "L197-199"),
    "square": cite("9.3", "L621-629"),
    "recall": cite("9.3", "L635-643"),
    "counter_charge": cite("9.4", "L645-654"),
    "rally": cite("11", "L774-786"),
}

NIGHT_COHESION_DRM = Drm("night_cohesion", +2, "night: every cohesion check +2", cite("12", "L802"), TEXT)
COUNTER_CHARGE_LIGHT_VS_HEAVY = Drm(
    "counter_charge_light_vs_heavy", +2,
    "non-heavy cavalry counter-charging heavy cavalry: engagement check +2",
    cite("9.4", "L647"), TEXT)
RALLY_ROUTED = Drm("rally_routed", +1, "rally of a routed unit +1", cite("11", "L778"), TEXT)
RALLY_ROUTED_NIGHT = Drm("rally_routed_night", -3, "night: rally of a routed unit -3 instead of +1",
                         cite("12", "L806"), TEXT)
FRIENDLY_FIRE_COHESION = Drm("friendly_fire", -2, "misdirected friendly fire: cohesion check -2",
                             cite("opt. 7", "L861-865"), TEXT)
FRIENDLY_FIRE_MAX_UNMODIFIED = 2       # optional [7] L865: unmodified fire die <= 2 hits the friend


def cohesion_check(roll: int, cohesion: int, *, night: bool = False, modifier: int = 0) -> bool:
    """CC [0.3]: d10 <= cohesion passes; +2 at night [12]; `modifier` for others (friendly fire)."""
    return roll + modifier + (NIGHT_COHESION_DRM.value if night else 0) <= cohesion


def engagement_check(roll: int, engagement: int, *, light_vs_heavy_counter_charge: bool = False) -> bool:
    """CI [0.3]; +2 only for non-heavy cavalry counter-charging heavy cavalry [9.4]. Also the
    cavalry recall [9.3]: passing recalls the charge."""
    mod = COUNTER_CHARGE_LIGHT_VS_HEAVY.value if light_vs_heavy_counter_charge else 0
    return roll + mod <= engagement


def commander_initiative(roll: int, initiative: int, cinc_modifier: int, in_radius: bool) -> bool:
    """[2.4]: d10 minus the commander-in-chief's modifier (only if a unit of the formation is in his
    command radius) <= the formation commander's initiative: With Orders for this activation."""
    return roll - (cinc_modifier if in_radius else 0) <= initiative


def strategic_initiative(roll_a: int, mod_a: int, roll_b: int, mod_b: int) -> str | None:
    """[3]: each adds his commander-in-chief's modifier; higher wins ("a" or "b"); tie: nobody."""
    a, b = roll_a + mod_a, roll_b + mod_b
    return None if a == b else ("a" if a > b else "b")


def square_attempt(rolls: int | Mapping[str, int], cohesions: Mapping[str, int], *,
                   night: bool = False) -> tuple[bool, list[str]]:
    """[9.3] L623-627: formed if the roll is <= the cohesion of every unit of the stack; otherwise
    not formed, and each unit that failed is disordered. Returns (formed, disordered ids). `rolls`:
    one roll per unit (DECISIONS D54's reading) or one int for the whole stack (the letter "tira
    un dado"). It is a cohesion check, so the night +2 of [12] applies (D54)."""
    extra = NIGHT_COHESION_DRM.value if night else 0
    per_unit = {uid: (rolls if isinstance(rolls, int) else rolls[uid]) for uid in cohesions}
    failed = [uid for uid, c in cohesions.items() if per_unit[uid] + extra > c]
    return (not failed, failed)


def rally_check(roll: int, reduced_cohesion: int, *, routed: bool, night: bool = False) -> bool:
    """[11]: d10 (+1 if routed; -3 instead at night [12]) <= the disordered-side cohesion. At
    night a disordered unit that took no action and is not adjacent to the enemy rallies without
    a roll ([12] L804) -- the caller decides that case before rolling."""
    mod = (RALLY_ROUTED_NIGHT.value if night else RALLY_ROUTED.value) if routed else 0
    return roll + mod <= reduced_cohesion


# Movement and other fixed numbers of the text.
RULE_NUMBERS = {
    "reduced_move": ("Without Orders: MP halved, fractions up", cite("4.1", "L211")),
    "forced_march_factor": (2, cite("4.1", "L215")),
    "forced_march_enemy_distance": (5, cite("4.1", "L217")),
    "cinc_mp": (7, cite("2.5", "L189")),
    "pass_through_friendly_mp": (1, cite("4.4", "L251")),
    "leave_zoc_mp": (1, cite("6.2", "L385")),
    "disordered_enter_zoc_mp": (1, cite("10.1", "L698")),
    "night_enter_zoc_mp": (2, cite("12", "L794")),
    "leave_square_mp": (1, cite("4.2", "L223")),
    "square_move_max_hexes": (1, cite("4.2", "L227")),
    "square_move_max_mp": (2, cite("4.2", "L227")),
    "charge_max_hexes": (2, cite("9.1", "L599, L605")),
    "charge_max_hex_cost": (2, cite("9.1", "L607")),
    "rout_retreat_infantry": (2, cite("10.2", "L710")),
    "rout_retreat_cavalry": (3, cite("10.2", "L710")),
    "demoralisation_ratio": (Fraction(2, 3), cite("opt. 11", "L893")),
    "demoralisation_ratio_cavalry_only": (Fraction(1, 2), cite("opt. 11", "L895")),
    "tactical_group_distance": (2, cite("opt. 2.3", "L844")),
    "reserve_activations_per_side": (1, cite("opt. 1", "L828")),
    "activations_max_with_reserve": (3, cite("opt. 1", "L830")),
    "reinforcement_nth_stack_cost": ("the n-th stack entering pays n x the entry hex", cite("5.2", "L329")),
    "reinforcement_enemy_distance": (5, cite("5.2", "L323-325")),
    "stack_same_arm_and_formation": (2, cite("5.1", "L263")),
    "stack_infantry_with_one_artillery": (2, cite("5.1", "L265")),
    "stack_artillery": (2, cite("5.1", "L267")),
    "stack_routed": (2, cite("5.1", "L295")),
    "stack_marengo_french_cavalry": (3, cite("Marengo 5.1", "L948")),
    "zoc_stay_turn_vertices": (1, cite("6.2", "L381")),
}

NIGHT = {                                                           # [12] L788-806
    "forced_march": (False, "no forced march, except reinforcements", cite("12", "L792")),
    "enter_zoc_mp": (2, "entering an enemy ZoC costs +2 MP", cite("12", "L794")),
    "artillery_point_blank_only": (True, "artillery fires only at an adjacent hex", cite("12", "L798")),
    "disordered_contact": (False, "disordered units may not move into contact with the enemy "
                           "(they may leave a ZoC)", cite("12", "L796")),
    "charges": (False, "no cavalry charges", cite("12", "L800")),
    "cohesion_drm": (NIGHT_COHESION_DRM.value, "every cohesion check +2", cite("12", "L802")),
    "disordered_auto_rally": (True, "disordered units taking no action, not adjacent to the enemy, "
                              "rally without a roll", cite("12", "L804")),
    "routed_rally_drm": (RALLY_ROUTED_NIGHT.value, "routed units rally at -3 instead of +1", cite("12", "L806")),
}


def reduced_mp(mp: int) -> int:
    """[4.1] and artillery that fired [4.4]: half, rounded up (4 -> 2, 5 -> 3)."""
    return math.ceil(mp / 2)
