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
this one file; a test lists which values are ours.

Reading conventions:
- The die is one d10 read 0-9 ("Lo '0' viene considerato come zero, e non dieci", [0.4] L46-48).
- Checks (cohesion CC, engagement CI, initiative, square, rally) pass when d10 + modifiers <= the
  value ([0.3] L38-44). A positive modifier on a check is a penalty.
- Result tables (fire, assault) add modifiers to the d10; a positive modifier favours the firer /
  attacker.
- The glyph lost as "(" in the file ("( 15" L453, "( 10" L524, "coesione ( 7" L875) is read "≥"
  (digest A3).

Pure data and functions: standard library and engine.core only; no I/O, discord, sqlite, Pillow.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Iterable, Mapping

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


# == Terrain Effects Table (TET) [0.2] [4.3] =====================================================

IMPASSABLE = None     # an MP cost of None: cannot enter / cross (except by road, path or bridge [4.3])


@dataclass(frozen=True)
class Terrain:
    """One line of the TET. `mp`: cost per unit type for a hex (or the extra cost of crossing a
    hexside), IMPASSABLE = None. `fire_drm`: to fire at a target in the hex / behind the hexside.
    `assault_drm`: added when the defender is in the hex / attacked across the hexside (the open
    terrain +1 is separate, `open_terrain`). `text` maps each field the text fixes to its
    citation; every other field is Herald completion, reasoned in `why`."""
    key: str
    name_it: str
    kind: str                                    # "hex", "hexside" or "route" (road, path)
    mp: Mapping[str, int | Fraction | None]
    open_terrain: bool = False
    fire_drm: int = 0
    assault_drm: int = 0
    disorders: tuple[str, ...] = ()              # unit types disordered on entering / crossing
    retreat_disorders: bool = False              # [10.3]
    retreat_blocked: bool = False                # [10.3]
    blocks_los: bool = False                     # [7.4]
    six_front: bool = False                      # [6.1]
    no_charge_into: bool = False                 # [9.1]
    rout_may_stop: bool = False                  # [10.4]
    blocks_zoc: bool = False                     # [6.2]
    text: Mapping[str, str] = field(default_factory=dict)
    why: str = ""

    FIELDS = ("mp", "open_terrain", "fire_drm", "assault_drm", "disorders", "retreat_disorders",
              "retreat_blocked", "blocks_los", "six_front", "no_charge_into", "rout_may_stop",
              "blocks_zoc")

    def applies(self, name: str) -> bool:
        """Whether the field means anything for this kind of terrain (a hexside has no front, a
        road has only a cost: the hex it runs through gives the rest)."""
        return name not in NOT_APPLICABLE[self.kind]

    def source(self, name: str) -> str:
        """"text JdG x (Ln)" for a value the text fixes, else "Herald completion"."""
        if name not in self.FIELDS:
            raise KeyError(name)
        if not self.applies(name):
            return f"not applicable ({self.kind})"
        return f"text {self.text[name]}" if name in self.text else HERALD

    def herald_fields(self) -> list[str]:
        return [f for f in self.FIELDS if f not in self.text and self.applies(f)]


NOT_APPLICABLE = {
    "hex": (),
    "hexside": ("open_terrain", "six_front", "no_charge_into", "rout_may_stop"),
    "route": ("open_terrain", "fire_drm", "assault_drm", "disorders", "retreat_disorders",
              "retreat_blocked", "blocks_los", "six_front", "no_charge_into", "rout_may_stop",
              "blocks_zoc"),
}

FIELD_WHY = {
    "open_terrain": "Open terrain is clear ground and, by Marengo 4.3, the cascina; nothing else is "
                    "open (squares [4.2] and the open-ground +1 belong to the open field).",
    "fire_drm": "0 unless the line's reasoning gives a value: no cover beyond the open field. Never "
                "positive (optional [8.3]'s note, L878).",
    "assault_drm": "0 unless the line's reasoning gives a value: the defender gets nothing beyond "
                   "losing the open-ground +1 when the hex is not open.",
    "disorders": "Only the steep slope disorders a unit that crosses it: the text's one example "
                 "([8.7] L555, infantry). Herald adds no other movement disorder: the text's own "
                 "disorder sources are combat, retreat into frontal ZoC, steep slope / ford / "
                 "bridge on retreat [10.3] and units passed through [10.5].",
}


def _mp(inf, cav, art) -> dict[str, int | Fraction | None]:
    return {"infantry": inf, "cavalry": cav, "artillery": art}


_HALF = Fraction(1, 2)
_C = cite
TERRAIN: dict[str, Terrain] = {t.key: t for t in (
    # ---- hexes --------------------------------------------------------------------------------
    Terrain("clear", "terreno aperto", "hex", _mp(1, 1, 1), open_terrain=True,
            text={"open_terrain": _C("4.2", "L221"), "assault_drm": _C("Marengo 8.6", "L953"),
                  "blocks_los": _C("7.4", "L415-421")},
            why="1 MP for every arm: the unit of the movement scale (a 4-MP infantry covers 4 hexes "
                "in the open). Fire 0: the bands are written for a target in the open. The open "
                "+1 on assaults is the text's (Marengo 8.6)."),
    Terrain("cascina", "cascina (fattoria fortificata)", "hex", _mp(1, 1, 1), open_terrain=True,
            text={"mp": _C("Marengo 4.3", "L941"), "open_terrain": _C("Marengo 4.3", "L941"),
                  "fire_drm": _C("Marengo 4.3", "L941"), "assault_drm": _C("Marengo 8.6", "L953"),
                  "six_front": _C("Marengo 4.3", "L941"), "no_charge_into": _C("9.1", "L603"),
                  "blocks_los": _C("Marengo 4.3", "L941"), "rout_may_stop": _C("10.4", "L764"),
                  "disorders": _C("Marengo 4.3", "L941"), "retreat_disorders": _C("Marengo 4.3", "L941"),
                  "retreat_blocked": _C("Marengo 4.3", "L941"), "blocks_zoc": _C("Marengo 4.3", "L941")},
            why="Open terrain in everything but the assault modifier (Marengo 4.3): the open +1 is "
                "cancelled when the defenders are infantry or infantry and artillery, kept against "
                "cavalry (Marengo 8.6): see `terrain_assault_modifiers`."),
    Terrain("crops", "coltivazioni", "hex", _mp(1, 2, 2), fire_drm=-1, blocks_los=True,
            text={"blocks_los": _C("7.4", "L419")},
            why="Tall crops and vines hide but do not stop: infantry 1, cavalry and guns 2 (a charge "
                "may still enter, <= 2 MP [9.1]). They block the line of fire [7.4], so a target in "
                "them is half seen: fire -1. Not open: no square, no open +1 (an even assault: "
                "defender falls back 50%, attacker disordered 50%)."),
    Terrain("palm_grove", "palmeti", "hex", _mp(2, 3, 3), fire_drm=-1, assault_drm=-1, blocks_los=True,
            text={"blocks_los": _C("7.4", "L419")},
            why="Pyramids' palm groves are treated as woods (same line-of-fire rule [7.4])."),
    Terrain("woods", "bosco", "hex", _mp(2, 3, 3), fire_drm=-1, assault_drm=-1, blocks_los=True,
            text={"blocks_los": _C("7.4", "L419")},
            why="Infantry 2, cavalry and guns 3: cavalry cannot charge into woods because the hex "
                "costs more than 2 MP [9.1] -- which is why the text's list of forbidden charge "
                "terrain can leave woods out. Fire -1 (trees stop roundshot). Assault -1 and no "
                "open +1: an even assault into woods (DRM -1) gives repulse 10%, attacker "
                "disordered 50%, fall back 40%, breakthrough 0%."),
    Terrain("marsh", "palude", "hex", _mp(3, 3, IMPASSABLE), no_charge_into=True,
            text={"no_charge_into": _C("9.1", "L603")},
            why="Slow for men (3), guns cannot enter (except by road [4.3]). No fire or assault DRM "
                "beyond losing the open +1; the attacker standing in marsh gets -1 instead "
                "(ATTACKER_TERRAIN_DRM)."),
    Terrain("village", "villaggio", "hex", _mp(1, 2, 1), fire_drm=-1, assault_drm=-2, blocks_los=True,
            six_front=True, no_charge_into=True, rout_may_stop=True,
            text={"blocks_los": _C("7.4", "L419"), "six_front": _C("6.1", "L349"),
                  "no_charge_into": _C("9.1", "L603"), "rout_may_stop": _C("10.4", "L764")},
            why="Streets: 1 MP for foot and guns, 2 for horse. Fire -1 (walls, roofs). Assault -2 and "
                "no open +1: an even assault on a village (DRM -2) gives repulse 20%, attacker "
                "disordered 50%, fall back 30% -- villages were the anchors of Napoleonic lines; "
                "three points of cohesion or a 3:1 still carry them."),
    Terrain("town", "città", "hex", _mp(1, 2, 1), fire_drm=-2, assault_drm=-3,
            six_front=True, no_charge_into=True, rout_may_stop=True,
            text={"six_front": _C("6.1", "L349"), "no_charge_into": _C("9.1", "L603"),
                  "rout_may_stop": _C("10.4", "L764")},
            why="As village, one step stronger (stone buildings): fire -2, assault -3 (even assault: "
                "repulse 30%, attacker disordered 50%, fall back 20%). It does not block the line of "
                "fire: [7.4] names the village, not the town (DECISIONS D36)."),
    Terrain("fortification", "fortificazione", "hex", _mp(2, 3, 2), fire_drm=-2, assault_drm=-3,
            six_front=True, no_charge_into=True, rout_may_stop=True, blocks_zoc=True,
            text={"six_front": _C("6.1", "L349"), "no_charge_into": _C("9.1", "L603"),
                  "rout_may_stop": _C("10.4", "L764"), "blocks_zoc": _C("6.2", "L369")},
            why="Works: 2 MP for foot and guns (gates, ramps), 3 for horse. Fire and assault as a "
                "town (-2, -3). Earthworks are low: the hex does not block the line of fire ([7.4] "
                "names the fortification hexside, not the hex)."),
    Terrain("castle", "castello", "hex", _mp(2, IMPASSABLE, 2), fire_drm=-2, assault_drm=-3,
            no_charge_into=True, blocks_zoc=True,
            text={"no_charge_into": _C("9.1", "L603"), "blocks_zoc": _C("6.2", "L369"),
                  "six_front": _C("6.1", "L349") + " (not in the list of six-front terrain)"},
            why="Walls: as a fortification for fire and assault; cavalry cannot get in; no line-of-"
                "fire block, [7.4] not listing it. [6.1] does not list the castle among "
                "six-front terrain, so it keeps two fronts."),
    Terrain("river_hex", "fiume / esagoni inondati (Bormida)", "hex",
            _mp(IMPASSABLE, IMPASSABLE, IMPASSABLE), retreat_blocked=True, blocks_zoc=True,
            text={"mp": _C("Marengo 4.3", "L945"), "retreat_blocked": _C("10.3", "L746")},
            why="Impassable to all (Marengo 4.3: the Bormida and the hexes it floods)."),
    # ---- hexsides (extra MP to cross, DRMs for fire / assault across) ------------------------
    Terrain("road", "strada", "route", _mp(_HALF, _HALF, _HALF),
            why="Movement along the same road: 1/2 MP per hex for every arm, whatever the hex (a "
                "4-MP unit doubles its pace, as the forced march does); the last hex next to an "
                "enemy is paid at its normal cost [4.3]. A road crossing a hexside cancels the "
                "hexside's cost and makes an impassable hex or hexside passable [4.3]."),
    Terrain("path", "sentiero", "route", _mp(1, 1, 1),
            why="A track: 1 MP per hex along it whatever the hex, and it crosses impassable hexes "
                "and hexsides [4.3]; no road bonus."),
    Terrain("crest", "cresta", "hexside", _mp(1, 1, 2), blocks_los=True,
            text={"blocks_los": _C("7.4", "L421")},
            why="Climbing a level: +1 MP (+2 guns), so a charge uphill across a crest from clear "
                "costs 2 and is still allowed [9.1]. Assault uphill across it: -1 "
                "(UPHILL_ASSAULT). No point-blank fire across [7.4]."),
    Terrain("steep_slope", "pendio ripido", "hexside", _mp(2, 2, IMPASSABLE), blocks_los=True,
            disorders=("infantry", "cavalry"), retreat_disorders=True,
            text={"blocks_los": _C("7.4", "L421"), "retreat_disorders": _C("10.3", "L746")},
            why="+2 MP (3 from clear: no charge across [9.1]); guns cannot climb it. Crossing "
                "disorders infantry (the text's own example [8.7] L555) and, by the same reasoning, "
                "cavalry. Assault uphill across it: -2 (UPHILL_ASSAULT)."),
    Terrain("river", "corso d'acqua (non attraversabile)", "hexside",
            _mp(IMPASSABLE, IMPASSABLE, IMPASSABLE), retreat_blocked=True, blocks_zoc=True,
            text={"mp": _C("6.2", "L367"), "retreat_blocked": _C("10.3", "L746"),
                  "blocks_zoc": _C("6.2", "L365-367")},
            why="Crossed only at a ford or bridge (or by road/path [4.3])."),
    Terrain("stream", "corso d'acqua (attraversabile)", "hexside", _mp(1, 1, 2), assault_drm=-1,
            retreat_blocked=True,
            text={"retreat_blocked": _C("10.3", "L746")},
            why="[6.2] speaks of fords and bridges on watercourses 'otherwise impassable', so some "
                "watercourses are passable: +1 MP (+2 guns); attacking across it -1. Retreats may "
                "not cross any watercourse except at a ford or bridge [10.3]."),
    Terrain("ford", "guado", "hexside", _mp(1, 2, 2), assault_drm=-1, retreat_disorders=True,
            blocks_zoc=True, disorders=(),
            text={"retreat_disorders": _C("10.3", "L746"), "blocks_zoc": _C("6.2", "L367")},
            why="Crossing a river at a ford: +1 MP foot, +2 horse and guns, so from clear a ford "
                "costs cavalry 3 and no charge crosses it [9.1]. Attacking across -1 (as a stream); "
                "falling back across it disorders [10.3]; no movement disorder."),
    Terrain("bridge", "ponte", "hexside", _mp(0, 0, 0), assault_drm=-2, retreat_disorders=True,
            blocks_zoc=True,
            text={"retreat_disorders": _C("10.3", "L746"), "blocks_zoc": _C("6.2", "L367")},
            why="No extra MP (the road pays); attacking across a bridge -2: a defile the defender "
                "sweeps (an even assault over a bridge onto clear: -2+1 = -1, repulse 10%, fall "
                "back 40%)."),
    Terrain("trench", "trincea", "hexside", _mp(1, 2, 2), fire_drm=-1, assault_drm=-2, blocks_los=True,
            blocks_zoc=True,
            text={"blocks_los": _C("7.4", "L421-423"), "blocks_zoc": _C("6.2", "L369")},
            why="Field works: +1 MP foot, +2 horse and guns; a target behind the trench (fired at "
                "across it) -1, an assault across it -2."),
    Terrain("fortification_side", "lato di fortificazione", "hexside", _mp(2, IMPASSABLE, IMPASSABLE),
            fire_drm=-2, assault_drm=-3, blocks_los=True, blocks_zoc=True,
            text={"blocks_los": _C("7.4", "L421-423"), "blocks_zoc": _C("6.2", "L369")},
            why="A rampart: only infantry climbs it (+2); fire -2, assault -3, as a fortification hex."),
)}

# Lists the text gives in full: for every terrain the value follows from the list, so it is the text's.
_TEXT_LISTS = {
    # field: (citation, hexes or hexsides for which it is True, applies to)
    "six_front": (_C("6.1", "L349"), {"village", "town", "fortification"}, "hex"),
    "no_charge_into": (_C("9.1", "L603"), {"marsh", "village", "town", "fortification", "castle"}, "hex"),
    "rout_may_stop": (_C("10.4", "L764"), {"village", "town", "fortification"}, "hex"),
    "retreat_disorders": (_C("10.3", "L746"), {"steep_slope", "ford", "bridge"}, "any"),
    "retreat_blocked": (_C("10.3", "L746") + ", " + _C("4.3", "L237-239"),
                        {"river", "stream", "river_hex"}, "any"),
    "blocks_los": (_C("7.4", "L415-421"), {"village", "woods", "crops", "palm_grove", "crest",
                                           "steep_slope", "trench", "fortification_side"}, "any"),
    "blocks_zoc": (_C("6.2", "L365-369"), {"fortification", "castle", "river_hex", "river", "ford",
                                           "bridge", "trench", "fortification_side"}, "any"),
}
HEX_ONLY_FIELDS = ("six_front", "no_charge_into", "rout_may_stop")


def _cite_lists(t: Terrain) -> Terrain:
    text = dict(t.text)
    for name, (citation, true_for, scope) in _TEXT_LISTS.items():
        if (scope == "hex" and t.kind != "hex") or not t.applies(name):
            continue
        if getattr(t, name) != (t.key in true_for):
            raise ValueError(f"terrain {t.key}.{name} contradicts the text's list {citation}")
        text.setdefault(name, citation)
    return replace(t, text=text)


TERRAIN = {k: _cite_lists(t) for k, t in TERRAIN.items()}

HERALD_TERRAIN_NOT_IN_TEXT = {
    "stream": "implied by [6.2] 'corsi d'acqua altrimenti non attraversabili' (L367)",
}
NOT_IN_TEXT_NOTE = ("Vineyards, hedges, sunken roads and columns are not named by the text and are not "
                    "in the table; a scenario map that draws them maps them to the nearest line above.")

UPHILL_ASSAULT = {
    "crest": Drm("uphill_crest", -1, "attacking uphill across a crest", cite("7.4", "L421"), HERALD,
                 why="The defender on the brow: -1, as the fire table's uphill -1."),
    "steep_slope": Drm("uphill_steep", -2, "attacking uphill across a steep slope", cite("10.3", "L746"),
                       HERALD, why="A slope steep enough to disorder those who cross it [8.7] [10.3]: "
                                   "-2, as a bridge or trench."),
}

ATTACKER_TERRAIN_DRM = {
    "marsh": Drm("attacker_in_marsh", -1, "attacker in a marsh hex", cite("8.4", "L502-508"), HERALD,
                 why="[8.4] knows attackers' hexes that give different modifiers: men wading out of "
                     "a marsh attack badly. The only attacker-hex DRM Herald adds."),
}


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


def move_cost(unit_type: str, hex_terrain: str, hexside: str | None = None,
              along_road: bool = False) -> int | Fraction | None:
    """MP to enter a hex (plus a hexside crossed); None if impassable. `along_road`: entered from a
    hex of the same road, not next to an enemy [4.3]: the road cost, hexside costs cancelled."""
    if along_road:
        return TERRAIN["road"].mp[unit_type]
    cost = TERRAIN[hex_terrain].mp[unit_type]
    if hexside is not None:
        side = TERRAIN[hexside].mp[unit_type]
        if cost is None or side is None:
            return None
        cost = cost + side
    return cost


def can_charge_into(hex_terrain: str, hexside: str | None = None) -> bool:
    """[9.1]: not into marsh, village, town, fortification, castle; and hex + hexside <= 2 MP."""
    if TERRAIN[hex_terrain].no_charge_into:
        return False
    cost = move_cost("cavalry", hex_terrain, hexside)
    return cost is not None and cost <= RULE_NUMBERS["charge_max_hex_cost"][0]


# == every Herald completion, for /rules and the tests ============================================

def herald_values() -> list[tuple[str, str]]:
    """(name, reasoning) of every value in this file that is ours, not the text's."""
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
