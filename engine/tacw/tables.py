"""This Accursed Civil War (GMT 2002, Musket & Pike series): the player-aid tables as data.

DESIGN principle 4: every table of the rulebook lives here as plain data with a small pure lookup
function, each citing its rule section ("TACW §x.y") and the lines of `rules/tacw.it.txt` it was
read from ("L1601-1632"). Authority, in order: the Italian rulebook, GMT's errata of 10 May 2002
(`rules/supplements.md` §3.1, which override the text where they apply), the English digest
(`rules/digests/tacw.md` §5, §9); the later Musket & Pike series player aid (supplements §3.2) is
only a witness for the tables the PDF extraction scrambled. Every choice taken where the text is
garbled, contradictory or silent is listed, numbered, in `DECISIONS.md` beside this file; the
comments below cite those numbers ("D7").

This module: shared helpers, the command tables (orders, continuation, bypass, interception,
leaders), terrain, movement and facing, victory. The combat tables (fire, artillery, morale,
casualty threshold, close combat, retreat, pursuit) are in `tables_combat.py`; every name there
is also reachable as `tables.<name>` (module `__getattr__` at the end of this file).

Reading conventions (DECISIONS D1-D3):
- The die is one d10 read 0-9 ("zero is zero, not 10", §2.2).
- Success-range tables (Order Change, Continuation, Bypass, Interception, scenario return rolls)
  store the highest modified roll that succeeds ("0-3" -> 3); the attempt succeeds when
  roll + modifiers <= that number; None stands for a printed "-", "Proibito" or "NA".
- Result tables (`DieTable`) read a modified roll below the lowest printed row on the lowest row
  and one above the highest printed row on the highest row ("9+", "10+", "6+" say so in print).
- A leader's command value (0, -1, -2; -2 best) is added as it is: low rolls are good on every
  command table, so a good leader subtracts.

Pure data and functions: no I/O, no discord, sqlite or Pillow.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.events import Modifier

D10_MIN, D10_MAX = 0, 9                                    # §2.2

# Mirrors of engine/tacw/state.py (a test keeps them equal).
SIDES = ("royalist", "parliament")
ORDERS = ("charge", "make_ready", "receive_charge", "rally")          # §5.5, precedence §4.2
ORDER_NAMES = {"charge": "Charge", "make_ready": "Make Ready",
               "receive_charge": "Receive Charge", "rally": "Rally"}
ORDER_NAMES_IT = {"charge": "Carica", "make_ready": "Prepararsi",
                  "receive_charge": "Ricevere Carica", "rally": "Recupero"}
UNIT_KINDS = ("cavalry", "heavy", "light", "artillery", "wagon")


# == shared helpers ==============================================================================

@dataclass(frozen=True)
class Row:
    """One printed row of a d10 result table: modified rolls `low`..`high` (high None = "and
    above") read `result`. `label` is the row as printed (or as read, D2/D25: "≤0", "≥9")."""
    low: int
    high: int | None
    label: str
    result: Any

    def holds(self, roll: int) -> bool:
        return roll >= self.low and (self.high is None or roll <= self.high)


@dataclass(frozen=True)
class DieTable:
    """A d10 result table: contiguous rows, lowest first. `row(roll)` reads a modified roll,
    below the first row on the first row and above the last on the last (D2)."""
    name: str
    section: str
    source: str
    rows: tuple[Row, ...]

    def __post_init__(self) -> None:
        for a, b in zip(self.rows, self.rows[1:]):
            if a.high is None or b.low != a.high + 1:
                raise ValueError(f"{self.name}: rows {a.label!r} and {b.label!r} are not contiguous")

    def row(self, modified_roll: int) -> Row:
        if modified_roll < self.rows[0].low:
            return self.rows[0]
        for r in self.rows:
            if r.high is None or modified_roll <= r.high:
                return r
        return self.rows[-1]

    def lookup(self, modified_roll: int) -> Any:
        return self.row(modified_roll).result


@dataclass(frozen=True)
class ModifierRule:
    """A die-roll modifier as printed beside a table. `value` None means a variable modifier
    (a leader's value, a ratio, a terrain column); `low`..`high` then bound what it can be."""
    key: str
    value: int | None
    reason: str
    section: str
    low: int = 0
    high: int = 0

    def __post_init__(self) -> None:
        if self.value is not None:
            object.__setattr__(self, "low", self.value)
            object.__setattr__(self, "high", self.value)

    def modifier(self, value: int | None = None, reason: str | None = None) -> Modifier:
        """The event record (engine.core.events.Modifier) for this rule."""
        v = self.value if value is None else value
        if v is None:
            raise ValueError(f"modifier {self.key!r} is variable: give its value")
        return Modifier(v, reason or self.reason, self.section)


def succeeds(modified_roll: int, target: int | None) -> bool:
    """Success-range tables (D1): success when the modified roll is at most the target; a
    target of None ("-", "Proibito", "NA") never succeeds."""
    return target is not None and modified_roll <= target


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r} (known: {', '.join(ORDERS)})")


# == §5.6 Order Limitation table (L1601-1632; §5.6 text L307-318; errata [5.6.1] [5.6.3] [7.6]) ==

WITH_LEADER = "with_leader"
"""Printed "Con comandante": allowed only to a unit stacked with or adjacent to its own Wing
Commander (§5.6.2, §5.6.3, §12.2.3, §12.2.4; the footnote's "un comandante" is read as the
wing's WC, D5). The Army Commander may reform or rally any unit whatever its orders (§12.3)."""


@dataclass(frozen=True)
class OrderLimits:
    """What a wing's units may do under one order (§5.6 and the Order Limitation table)."""
    order: str
    printed: tuple[str, str, str, str]   # Movimento, Fuoco, Riformarsi, Recupero, as printed
    max_hexes: int | None                # None: full movement allowance; 1: "1 esagono"
    must_end_closer: bool                # errata [5.6.1]: end >= 1 hex closer to an enemy unit
    adjacent_only_face_or_wheel: bool    # errata [5.6.1]: if already adjacent, only face/wheel
    may_move_adjacent_to_enemy: bool     # note (2); errata [5.6.3] for Receive Charge
    may_end_closer_to_enemy: bool        # note (3) / §5.6.4 (D6)
    may_fire: bool
    advance_fire: bool                   # §9.3.2: Charge only ("*" note)
    salvo: bool
    skirmish: bool
    retreat_fire: bool                   # §9.3.4: not on Charge
    reform: str                          # "yes" / "no" / WITH_LEADER
    rally: str                           # "yes" / "no" / WITH_LEADER
    may_pass: bool                       # §5.6.1: a Charge wing may not Pass
    retreat_reaction: bool               # §7.4.4: not for Charge wings
    notes: tuple[str, ...]
    section: str


ORDER_LIMITATION_TABLE: dict[str, OrderLimits] = {
    "charge": OrderLimits(
        "charge", ("Pieno (1)", "Sì", "No", "No"), None,
        must_end_closer=True, adjacent_only_face_or_wheel=True,
        may_move_adjacent_to_enemy=True, may_end_closer_to_enemy=True,
        may_fire=True, advance_fire=True, salvo=True, skirmish=True, retreat_fire=False,
        reform="no", rally="no", may_pass=False, retreat_reaction=False,
        notes=("(1) every unit must end its activation at least 1 hex closer to an enemy unit; "
               "if already adjacent it may only change facing or wheel (errata [5.6.1], which "
               "deletes the printed 'and fire', D4)",
               "no Pass, no Retreat Fire, no Retreat reaction movement (note 1, §5.6.1)"),
        section="TACW §5.6.1"),
    "make_ready": OrderLimits(
        "make_ready", ("Pieno (2)", "Sì *", "Con comandante", "No"), None,
        must_end_closer=False, adjacent_only_face_or_wheel=False,
        may_move_adjacent_to_enemy=False, may_end_closer_to_enemy=True,
        may_fire=True, advance_fire=False, salvo=True, skirmish=True, retreat_fire=True,
        reform=WITH_LEADER, rally="no", may_pass=True, retreat_reaction=True,
        notes=("(2) may not move adjacent to an enemy unit",
               "* no Advance Fire; Salvo, Skirmish and Retreat Fire allowed"),
        section="TACW §5.6.2"),
    "receive_charge": OrderLimits(
        "receive_charge", ("1 esagono", "Sì *", "Sì", "Con comandante"), 1,
        must_end_closer=False, adjacent_only_face_or_wheel=False,
        may_move_adjacent_to_enemy=False, may_end_closer_to_enemy=True,
        may_fire=True, advance_fire=False, salvo=True, skirmish=True, retreat_fire=True,
        reform="yes", rally=WITH_LEADER, may_pass=True, retreat_reaction=True,
        notes=("moves at most 1 hex, and not adjacent to an enemy unit (errata [5.6.3])",
               "* no Advance Fire; Salvo, Skirmish and Retreat Fire allowed"),
        section="TACW §5.6.3"),
    "rally": OrderLimits(
        "rally", ("Pieno (3)", "Sì *", "Sì", "Sì"), None,
        must_end_closer=False, adjacent_only_face_or_wheel=False,
        may_move_adjacent_to_enemy=True, may_end_closer_to_enemy=False,
        may_fire=True, advance_fire=False, salvo=True, skirmish=True, retreat_fire=True,
        reform="yes", rally="yes", may_pass=True, retreat_reaction=True,
        notes=("(3) may not end its move closer to enemy units (§5.6.4, D6)",
               "* no Advance Fire; Salvo, Skirmish and Retreat Fire allowed"),
        section="TACW §5.6.4"),
}
"""Errata [7.6]: these restrictions on moving relative to enemy units also bind cavalry sliding
aside from artillery fire (§7.6)."""


def order_limits(order: str) -> OrderLimits:
    _check_order(order)
    return ORDER_LIMITATION_TABLE[order]


def _allowed(permission: str, with_leader: bool) -> bool:
    return permission == "yes" or (permission == WITH_LEADER and with_leader)


def may_reform(order: str, with_wc: bool = False) -> bool:
    """§5.6 / §12.2.3: may a unit of a wing on `order` Reform? `with_wc`: stacked with or
    adjacent to its Wing Commander. (The AC's own Reform, §12.3, ignores orders.)"""
    return _allowed(order_limits(order).reform, with_wc)


def may_rally(order: str, with_wc: bool = False) -> bool:
    """§5.6 / §12.2.4: may a unit of a wing on `order` attempt Rally? (AC: §12.3.)"""
    return _allowed(order_limits(order).rally, with_wc)


# == §5.7 Order Change table (L1633-1651, displaced 4th column L1694-1698; modifiers L327-337) ===
# Reconstructed (D7). The extraction printed the desired-order header without "Recupero", nine
# values with no diagonal cells, the four current-order labels, and then, after the page break,
# "Recupero 0-5 0-6 0-4 -": the missing fourth DESIRED column (the current-order list is already
# complete). The nine values read row by row, skipping the diagonal. The later series player aid
# holds the same sixteen cells transposed, which confirms the values and rules out the
# column-wise reading (digest A1); the orientation follows the Italian labels.

ORDER_CHANGE_TABLE: dict[str, dict[str, int | None]] = {
    #  current \ desired: charge        make_ready       receive_charge   rally
    "charge":         {"charge": None, "make_ready": 3, "receive_charge": 2, "rally": 5},
    "make_ready":     {"charge": 5, "make_ready": None, "receive_charge": 5, "rally": 6},
    "receive_charge": {"charge": 3, "make_ready": 5, "receive_charge": None, "rally": 4},
    "rally":          {"charge": 1, "make_ready": 4, "receive_charge": 3, "rally": None},
}

ORDER_CHANGE_MODIFIERS = (
    ModifierRule("leaders", None, "WC's command value, plus the AC's if stacked with or adjacent "
                 "to the WC (sign lost in print: added as it is, D3)", "TACW §5.7.3", -4, 0),
    ModifierRule("wc_adjacent_enemy", +1, "WC adjacent to a non-routed enemy unit", "TACW §5.7.3"),
    ModifierRule("cavalry_to_charge", -1, "cavalry wing changing to Charge", "TACW §5.7.3"),
    ModifierRule("cavalry_to_receive_charge", +1, "cavalry wing changing to Receive Charge",
                 "TACW §5.7.3"),
    ModifierRule("battered_to_rally", -2, "changing to Rally with more than half of the wing's "
                 "units shaken, broken or eliminated", "TACW §5.7.3"),
)


def order_change_target(current: str, desired: str, *, transposed: bool = False) -> int | None:
    """§5.7.2: the highest modified roll that changes `current` orders to `desired`; None where
    the table prints "-" (no change to the same order). `transposed=True` reads the table the
    way the later series player aid prints it (D7), for clubs whose own chart says so."""
    _check_order(current)
    _check_order(desired)
    if transposed:
        current, desired = desired, current
    return ORDER_CHANGE_TABLE[current][desired]


# == §4.3 / §4.4 Continuation and Bypass table (L1652-1675; §4.3.3 L196-203; §4.4.4 L223-232) ====

CONTINUATION_TABLE: dict[str, int | None] = {
    "charge": 3, "make_ready": 2, "receive_charge": 1, "rally": None}     # Rally: "Proibito"
BYPASS_TABLE: dict[str, int | None] = {
    "charge": 4, "make_ready": 3, "receive_charge": 2, "rally": None}     # Rally: "Proibito"
MAX_CONTINUATIONS = 2                                                     # §4.3.1

CONTINUATION_MODIFIERS = (
    ModifierRule("leaders", None, "WC's command value, plus the AC's if stacked with or adjacent "
                 "to the WC", "TACW §4.3.3", -4, 0),
    ModifierRule("wc_adjacent_enemy", +1, "WC adjacent to a non-routed enemy unit (on the table, "
                 "not in §4.3.3: D8)", "TACW §4.3 table"),
    ModifierRule("cavalry_wing", -1, "cavalry wing", "TACW §4.3.3"),
    ModifierRule("second_attempt", +1, "second continuation attempt", "TACW §4.3.3"),
    ModifierRule("marston_moor_surprise", -1, "Marston Moor, turn 1: Allied surprise (a bonus: "
                 "low rolls succeed)", "TACW Marston Moor special rule 2"),
)
BYPASS_MODIFIERS = (
    ModifierRule("leaders", None, "WC's command value, plus the AC's if stacked with or adjacent "
                 "to the WC", "TACW §4.4.4", -4, 0),
    ModifierRule("wc_adjacent_enemy", +1, "WC adjacent to a non-routed enemy unit", "TACW §4.4.4"),
    ModifierRule("cavalry_wing", -1, "cavalry wing", "TACW §4.4.4"),
    ModifierRule("no_continue", +1, "WC has a No Continue marker", "TACW §4.4.4"),
    ModifierRule("marston_moor_surprise", -1, "Marston Moor, turn 1: Allied surprise",
                 "TACW Marston Moor special rule 2"),
)


def continuation_target(order: str) -> int | None:
    """§4.3.2: the highest modified roll that lets a wing on `order` activate again (None:
    Rally, prohibited)."""
    _check_order(order)
    return CONTINUATION_TABLE[order]


def bypass_target(order: str) -> int | None:
    """§4.4.2: the highest modified roll for a bypass by a wing on `order` (None: Rally)."""
    _check_order(order)
    return BYPASS_TABLE[order]


# == §7.5 Interception table, cavalry only (L1850-1868; §7.5 L453-475) ===========================

INTERCEPTION_TABLE: dict[str, int | None] = {
    "charge": 5, "make_ready": 4, "receive_charge": 3, "rally": None}     # Rally: "NA"
INTERCEPTION_RANGE = 4                                                    # §7.5.1, hexes

INTERCEPTION_MODIFIERS = (
    ModifierRule("leader", None, "command value of the WC or the AC stacked with the cavalry "
                 "(one of them)", "TACW §7.5.2", -2, 0),
    ModifierRule("original_morale_8", -1, "original morale 8", "TACW §7.5.2"),
    ModifierRule("original_morale_6", +1, "original morale 6 (or less, D9)", "TACW §7.5.2"),
)


def interception_target(order: str) -> int | None:
    """§7.5.2: the highest modified roll for cavalry on `order` to intercept (None: Rally)."""
    _check_order(order)
    return INTERCEPTION_TABLE[order]


def interception_morale_modifier(original_morale: int) -> int:
    """§7.5.2: -1 for original morale 8, +1 for original morale 6 (6 or less, D9), else 0."""
    if original_morale >= 8:
        return -1
    if original_morale <= 6:
        return +1
    return 0


# == §9.11 / §10.8 Leader Loss table (L1676-1682; §9.11 L667-670; §10.8 L822-825) ================

LEADER_LOSS_TABLE = DieTable(
    "Leader Loss table", "TACW §9.11, §10.8", "L1676-1682",
    (Row(0, 8, "0-8", "no_effect"), Row(9, 9, "9", "removed")))


def leader_loss(roll: int) -> str:
    """§9.11 (a hex fired at with any result but no effect) and §10.8 (after each close combat
    with a leader): unmodified d10, "removed" on a 9, else "no_effect"."""
    return LEADER_LOSS_TABLE.lookup(roll)


# == §5.3.3 Leader Replacement table (L1683-1691; §5.3.3 L268-271) ===============================
# The die values 0 / 1 / 2-9 are printed in the same order as the three results (digest 5.6).

LEADER_REPLACEMENT_TABLE = DieTable(
    "Leader Replacement table", "TACW §5.3.3", "L1683-1691",
    (Row(0, 0, "0", "returns"),                 # the original leader returns immediately
     Row(1, 1, "1", "returns_next_turn"),       # use the replacement; the original returns next turn
     Row(2, 9, "2-9", "eliminated")))           # leader eliminated; use the replacement
LEADER_REPLACEMENT_TEXT = {
    "returns": "the original leader returns immediately",
    "returns_next_turn": "use the replacement; the original leader returns next turn",
    "eliminated": "the leader is eliminated; use the replacement",
}


def leader_replacement(roll: int) -> str:
    """§5.3.3, Marker Removal phase, one unmodified d10 per leader removed this turn:
    "returns", "returns_next_turn" or "eliminated"."""
    return LEADER_REPLACEMENT_TABLE.lookup(roll)


# == §7 Terrain table (L1701-1834; Clear's Fire/CC at L1870-1875) ================================
# Hex rows came out row-wise in groups of six (HI MP, Cav MP, LI MP, blocks LOS, Fire, CC).
# Hexside rows came out column-wise (D10): the errata ("light infantry take no formation hit
# crossing a hedge or berm") rules out the row-wise reading. "*" = one formation hit to that unit
# type on entering (§7.3). Fire and CC values modify the firer's / attacker's roll for a target
# in the hex or an attack across the hexside (D11). None = "NA": the move, fire or close combat
# is prohibited.

TERRAIN_KINDS = ("heavy", "cavalry", "light")      # the table's three MP columns


@dataclass(frozen=True)
class Terrain:
    key: str
    name_it: str
    name_en: str                        # the English map legend
    mp: dict[str, int | None]           # per TERRAIN_KINDS; a hexside's cost is added (+1)
    formation_hit: dict[str, bool]      # the printed "*"
    blocks_los: bool
    fire: int | None
    close_combat: int | None
    hexside: bool
    source: str


def _t(key, it, en, hi, cav, li, los, fire, cc, source, hexside=False) -> Terrain:
    def parse(cell):
        if cell == "NA":
            return None, False
        return int(cell.rstrip("*")), cell.endswith("*")
    cells = {"heavy": parse(hi), "cavalry": parse(cav), "light": parse(li)}
    return Terrain(key, it, en, {k: v[0] for k, v in cells.items()},
                   {k: v[1] for k, v in cells.items()}, los, fire, cc, hexside, source)


TERRAIN_TABLE: dict[str, Terrain] = {t.key: t for t in (
    #  key             Italian             map legend          HI    Cav   LI    LOS    Fire  CC    lines
    _t("clear",        "Aperto",           "Clear",            "1",  "1",  "1",  False, 0,    0,    "L1740-1743, L1874-1875"),
    _t("wood",         "Bosco",            "Wood",             "2*", "4*", "3",  True,  -1,   -1,   "L1744-1749"),
    _t("marsh",        "Palude",           "Marsh",            "1*", "2*", "2",  False, 0,    +1,   "L1750-1755"),
    _t("thicket",      "Sottobosco",       "Thicket",          "2*", "3*", "2",  False, 0,    +1,   "L1756-1761"),
    _t("hedge_road",   "Strada con Siepe", "Hedge Lined Road", "2*", "3*", "2",  True,  -1,   -1,   "L1762-1767"),
    _t("hedge",        "Siepe",            "Hedge / Berm",     "2*", "3*", "2",  True,  -1,   -1,   "L1768-1773"),
    _t("ploughed",     "Campo coltivato",  "Ploughed field",   "1",  "1",  "1",  False, 0,    0,    "L1774-1779"),
    _t("river",        "Fiume",            "River",            "NA", "NA", "NA", False, 0,    None, "L1780-1785"),
    _t("village",      "Paese",            "Village",          "2*", "4*", "2",  True,  -2,   -2,   "L1786-1791"),
    _t("bridge",       "Ponte",            "Bridge",           "2*", "2*", "1",  False, +2,   -2,   "L1792-1797"),
    _t("castle",       "Castello",         "Castle",           "2*", "4*", "2",  True,  None, None, "L1798-1803"),
    _t("entrenchment", "Trinceramento",    "Entrenchment",     "2*", "2*", "2",  False, -1,   -1,   "L1804-1809"),
)}

HEXSIDE_TABLE: dict[str, Terrain] = {t.key: t for t in (
    #  key           Italian            legend        HI     Cav    LI    LOS    Fire CC  lines
    _t("stream",     "Ruscello §",      "Stream",     "+1*", "+1*", "+1", False, 0,  -1, "L1810-1832", True),
    _t("hedge",      "Siepe",           "Hedge",      "+1*", "+1*", "+1", True,  -1, -1, "L1810-1832", True),
    _t("slope_up",   "Pendìo in alto",  "Slope up",   "+1*", "+1*", "+1", True,  0,  -1, "L1810-1832", True),
    _t("slope_down", "Pendìo in basso", "Slope down", "+1*", "+1*", "+1", True,  0,  0,  "L1810-1832", True),
)}
"""Only three "Sì" survive for the four hexside rows' LOS column: the stream is the one that
does not block (D12). § (L1834): the stream at Edgehill has no effect on movement or combat (and
the Edgehill scenario makes the stream and the ploughed field historical decoration only)."""

TERRAIN_KEYS = tuple(TERRAIN_TABLE)
HEXSIDE_KEYS = tuple(HEXSIDE_TABLE)


def _terrain(key: str, hexside: bool) -> Terrain:
    table = HEXSIDE_TABLE if hexside else TERRAIN_TABLE
    if key not in table:
        raise ValueError(f"unknown {'hexside' if hexside else 'hex'} terrain {key!r} (known: "
                         f"{', '.join(table)})")
    return table[key]


def _terrain_column(kind: str) -> str | None:
    """The MP column a unit kind reads (D13): wagons read Heavy Infantry, leaders and a
    cavalry + light infantry stack read Cavalry; artillery never moves in TACW (§7.2.1)."""
    column = {"heavy": "heavy", "cavalry": "cavalry", "light": "light", "wagon": "heavy",
              "leader": "cavalry", "cavalry_light_stack": "cavalry", "artillery": None}
    if kind not in column:
        raise ValueError(f"unknown unit kind {kind!r}")
    return column[kind]


# "hedge" is both a hex terrain and a hexside: every lookup says which with `hexside`.

def terrain_mp(key: str, kind: str, *, hexside: bool = False) -> int | None:
    """§7.1.1: MP to enter hex terrain `key` (with hexside=True: the MP ADDED for crossing
    hexside `key`) for a unit of `kind`; None = prohibited ("NA", or artillery, which never
    moves)."""
    t, column = _terrain(key, hexside), _terrain_column(kind)
    return None if column is None else t.mp[column]


def terrain_formation_hit(key: str, kind: str, *, hexside: bool = False) -> bool:
    """§7.3.1: does entering hex `key` (or crossing hexside `key`) give `kind` a formation hit
    (the "*")? Wagons and leaders have no formation and never take one (D13)."""
    t, column = _terrain(key, hexside), _terrain_column(kind)
    if column is None or kind in ("wagon", "leader"):
        return False
    return t.formation_hit[column]


def terrain_blocks_los(key: str, *, hexside: bool = False) -> bool:
    """§9.10.2: does the hex terrain (or hexside) block line of sight?"""
    return _terrain(key, hexside).blocks_los


def terrain_fire_modifier(key: str, *, hexside: bool = False) -> int | None:
    """Fire column: the modifier to fire at a unit in hex `key`, or across hexside `key`
    (D11); None = fire at a unit there is prohibited (castle)."""
    return _terrain(key, hexside).fire


def terrain_close_combat_modifier(key: str, *, hexside: bool = False) -> int | None:
    """Close-combat column (§10.3.1): the modifier to an attack on a unit in hex `key`, or
    across hexside `key` (D11); None = no close combat there (river, castle)."""
    return _terrain(key, hexside).close_combat


# == §7.2 Movement allowances (L412-425), §8.2.1 (L495-496), Formation Effects table (L1835-1849) =

MOVEMENT_ALLOWANCE = {
    "cavalry": 8, "leader": 8,          # "Cavalleria e comandanti 8 MP"; AC/WC 8 (§5.1.2, §5.2.2)
    "light": 6,
    "heavy": 4,
    "wagon": 2, "limbered_gun": 2,      # limbered guns are not used in TACW (§7.2.1 *)
    "artillery": 0,                     # all TACW guns are immobile
}
CAVALRY_LIGHT_STACK_ALLOWANCE = 6       # §8.2.1
COLUMN_BONUS = 2                        # §6.3.4, Formation Effects table

FORMATION_MOVEMENT_EFFECTS = {          # printed Formation Effects on Movement table
    "normal": "full movement allowance",
    "disordered": "half movement allowance",          # "Scossa"
    "broken": "no movement",                          # "Rotta"
    "hedgehog": "no movement",
    "open": "full movement allowance, no formation hits",
    "column": "full movement allowance +2, no formation hits",
}


def movement_allowance(kind: str, formation: str = "normal", special_formation: str = "",
                       stacked_with_light: bool = False) -> int:
    """§7.2.1 with the Formation Effects table: the MP a unit (or leader) may spend.

    Order of application (D14): base (6 for a cavalry + light infantry stack, §8.2.1), +2 in
    column, halved and rounded down when F-Disordered, 0 when F-Broken or in hedgehog. (Every
    allowance TACW produces is even, so the rounding never bites with the printed values.)
    A routing (morale Broken) unit has no formation state (§12.4.1): pass formation="normal"."""
    if kind not in MOVEMENT_ALLOWANCE:
        raise ValueError(f"unknown kind {kind!r}")
    if formation not in ("normal", "disordered", "broken"):
        raise ValueError(f"unknown formation {formation!r}")
    mp = CAVALRY_LIGHT_STACK_ALLOWANCE if stacked_with_light and kind in ("cavalry", "light") \
        else MOVEMENT_ALLOWANCE[kind]
    if special_formation == "hedgehog" or formation == "broken":
        return 0
    if special_formation == "column":
        mp += COLUMN_BONUS
    if formation == "disordered":
        mp //= 2
    return mp


def movement_formation_hits_apply(special_formation: str = "", routing: bool = False) -> bool:
    """§6.3.3, §6.3.4, §7.3, §12.4.1: units in Open Order or Column, and routing units, take no
    formation hits from movement."""
    return not (special_formation in ("open", "column") or routing)


# == §6.2 Facing changes (L343-355) ==============================================================

FACING_COST_PER_VERTEX = {"cavalry": 1, "light": 1, "heavy": 2, "wagon": 1}   # wagon: D15
WHEEL_BASE_COST = 1        # double units: 1 MP + the terrain cost of the hex the moving half enters
COUNTERMARCH_COST = 2      # §6.2.2: a 180° facing change
STEP_BACK_COST = 2         # §6.2.2: infantry only, one hex back keeping facing


def facing_change_cost(kind: str, vertices: int) -> int:
    """§6.2.1: MP for a one-hex unit to turn `vertices` vertices (0-3). A 180° turn (3
    vertices) may be done as a countermarch for 2 MP (§6.2.2), so the cheaper is returned.
    Double units do not pivot: see `wheel_cost`."""
    if kind not in FACING_COST_PER_VERTEX:
        raise ValueError(f"{kind!r} does not change facing by vertices (§6.2.1)")
    if not 0 <= vertices <= 3:
        raise ValueError("a facing change turns 0 to 3 vertices")
    cost = FACING_COST_PER_VERTEX[kind] * vertices
    return min(cost, COUNTERMARCH_COST) if vertices == 3 else cost


def wheel_cost(terrain_cost: int) -> int:
    """§6.2.1: one hex of wheel for a double unit: 1 MP plus the terrain cost of the hex the
    moving half enters (example: clear terrain, 2 MP). Doubles may not wheel backwards."""
    return WHEEL_BASE_COST + terrain_cost


def may_step_back(kind: str) -> bool:
    """§6.2.2: only infantry (heavy or light) may step back one hex keeping facing (2 MP)."""
    return kind in ("heavy", "light")


# == Victory Determination (L904-930) ============================================================
# Twelve items, then twelve values, mapped one to one in printed order (D22).

VP_SCHEDULE = (
    ("cavalry_eliminated", "Unità di cavalleria eliminata", 10),
    ("cavalry_casualty_on_map", "Per perdita di cavalleria che rimane sulla mappa a fine gioco", 2),
    ("double_infantry_eliminated", "Unità di fanteria doppia eliminata", 10),
    ("infantry_eliminated", "Unità di fanteria eliminata", 5),
    ("double_infantry_casualty_on_map",
     "Per perdita di fanteria doppia che rimane sulla mappa a fine gioco", 1),
    ("light_infantry_eliminated", "Moschettieri e dragoni", 0),
    ("gun_captured_3lb", "Unità di artiglieria 3 lb catturata", 5),
    ("gun_captured_saker", "Unità di artiglieria 4-8 lb catturata", 10),
    ("gun_captured_culverin", "Unità di artiglieria 12 lb catturata", 15),
    ("wing_commander_eliminated", "Ogni Comandante di Ala eliminato", 10),
    ("army_commander_eliminated", "Comandante di Armata eliminato", 20),
    ("king_charles_eliminated", "Re Carlo eliminato", 50),
)
VICTORY_POINTS = {key: vp for key, _, vp in VP_SCHEDULE}


def unit_elimination_vp(kind: str, double: bool = False) -> int:
    """VP to the enemy for one eliminated unit (also a cavalry unit absorbed by incorporation,
    §8.4; not one pursued off the map, §10.7.2.C). Artillery scores only when captured."""
    if kind == "cavalry":
        return VICTORY_POINTS["cavalry_eliminated"]
    if kind == "heavy":
        return VICTORY_POINTS["double_infantry_eliminated" if double else "infantry_eliminated"]
    if kind == "light":
        return VICTORY_POINTS["light_infantry_eliminated"]
    if kind in ("artillery", "wagon"):
        return 0
    raise ValueError(f"unknown kind {kind!r}")


def casualty_vp(kind: str, casualties: int, double: bool = False) -> int:
    """End of game: VP for casualty points on units still on the map: 2 each on cavalry, 1 each
    on double infantry, none on single heavy or light infantry (D22)."""
    if kind == "cavalry":
        return casualties * VICTORY_POINTS["cavalry_casualty_on_map"]
    if kind == "heavy" and double:
        return casualties * VICTORY_POINTS["double_infantry_casualty_on_map"]
    return 0


def gun_capture_vp(gun_class: str) -> int:
    """VP to the side holding a captured gun at the end (§9.9.9; disabled but uncaptured: 0)."""
    keys = {"3lb": "gun_captured_3lb", "saker": "gun_captured_saker",
            "culverin": "gun_captured_culverin"}
    if gun_class not in keys:
        raise ValueError(f"unknown gun class {gun_class!r}")
    return VICTORY_POINTS[keys[gun_class]]


def leader_elimination_vp(role: str, special: str = "") -> int:
    """VP for a leader eliminated (a 2-9 on the Leader Replacement table): WC 10, AC 20; King
    Charles 50 instead of the AC's 20 (D23)."""
    if special == "king":
        return VICTORY_POINTS["king_charles_eliminated"]
    if role == "ac":
        return VICTORY_POINTS["army_commander_eliminated"]
    if role == "wc":
        return VICTORY_POINTS["wing_commander_eliminated"]
    raise ValueError(f"unknown leader role {role!r}")


# == Victory levels per battle (Condizioni di vittoria; digest §6) ===============================
# Result = Parliament VP - Royalist VP. Bands (low, high) inclusive, None = open-ended.

VICTORY_LEVELS = ("parliament_decisive", "parliament_marginal", "draw",
                  "royalist_marginal", "royalist_decisive")
VICTORY_LEVEL_NAMES = {
    "parliament_decisive": "Parliament decisive victory", "parliament_marginal":
    "Parliament marginal victory", "draw": "Draw", "royalist_marginal": "Royalist marginal victory",
    "royalist_decisive": "Royalist decisive victory"}

VICTORY_BANDS_PRINTED: dict[str, tuple[tuple[str, int | None, int | None], ...]] = {
    "edgehill": (("parliament_decisive", 11, None), ("parliament_marginal", -9, 10),       # L1035-1043
                 ("draw", -29, -10), ("royalist_marginal", -49, -30), ("royalist_decisive", None, -50)),
    "first-newbury": (("parliament_decisive", 20, None), ("parliament_marginal", -10, 19),  # L1127-1131
                      ("draw", -39, -11), ("royalist_marginal", -70, -40),
                      ("royalist_decisive", None, -70)),
    "marston-moor": (("parliament_decisive", 50, None), ("parliament_marginal", 20, 49),   # L1309-1313
                     ("draw", -19, 0), ("royalist_marginal", -20, -1),
                     ("royalist_decisive", None, -21)),
    "second-newbury": (("parliament_decisive", 70, None), ("parliament_marginal", 40, 69),  # L1441-1445
                       ("draw", 10, 39), ("royalist_marginal", -20, 9),
                       ("royalist_decisive", None, -21)),
    "naseby": (("parliament_decisive", 60, None), ("parliament_marginal", 30, 59),          # L1585-1589
               ("draw", 10, 29), ("royalist_marginal", -19, 9), ("royalist_decisive", None, -20)),
}

VICTORY_BANDS: dict[str, tuple[tuple[str, int | None, int | None], ...]] = {
    **VICTORY_BANDS_PRINTED,
    # D24: "-70 o meno" overlaps "da -40 a -70"; every other battle starts the decisive band one
    # below the marginal one, so -70 stays Royalist marginal and decisive is -71 or less.
    "first-newbury": (("parliament_decisive", 20, None), ("parliament_marginal", -10, 19),
                      ("draw", -39, -11), ("royalist_marginal", -70, -40),
                      ("royalist_decisive", None, -71)),
    # D24: "Pareggio da 0 a -19" leaves +1..+19 unscored and overlaps "da -1 a -20"; reading the
    # draw as 0 to +19 (one sign misprinted) makes the five bands contiguous.
    "marston-moor": (("parliament_decisive", 50, None), ("parliament_marginal", 20, 49),
                     ("draw", 0, 19), ("royalist_marginal", -20, -1),
                     ("royalist_decisive", None, -21)),
}

HISTORICAL_RESULTS = {"edgehill": "royalist_marginal", "first-newbury": "parliament_marginal",
                      "marston-moor": "parliament_decisive", "second-newbury": "royalist_marginal",
                      "naseby": "parliament_decisive"}


def _battle(battle_id: str) -> str:
    key = battle_id.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in VICTORY_BANDS:
        raise ValueError(f"unknown battle {battle_id!r} (known: {', '.join(VICTORY_BANDS)})")
    return key


def victory_level(battle_id: str, parliament_minus_royalist: int) -> str:
    """Victory Determination: the level for Parliament VP minus Royalist VP in `battle_id`
    (edgehill, first-newbury, marston-moor, second-newbury, naseby), bands as resolved (D24)."""
    for level, low, high in VICTORY_BANDS[_battle(battle_id)]:
        if (low is None or parliament_minus_royalist >= low) and \
                (high is None or parliament_minus_royalist <= high):
            return level
    raise AssertionError("victory bands cover every integer")   # checked by the tests


# == Scenario tables ==============================================================================

MARSTON_MOOR_AC_TABLE = DieTable(          # Marston Moor special rule 1 (L1317-1329)
    "Marston Moor command rivalry", "TACW Marston Moor special rule 1", "L1320-1329",
    (Row(0, 3, "0-3", "manchester"), Row(4, 6, "4-6", "f_fairfax"), Row(7, 8, "7-8", "leven"),
     Row(9, 9, "9", "none")))

SECOND_NEWBURY_RETURN_TARGETS = {          # Second Newbury, option 1 (L1379-1387)
    "northampton": 1,                      # returns from the south edge on 0-1
    "douglas": 3,                          # returns from the west edge on 0-3 of the SAME roll (D26)
}
"""Each time a Royalist wing activates, one unmodified d10 ("combinato con il tiro per
Northampton"): 0-1 brings Northampton's brigade back, 0-3 Douglas's command."""


# == the combat tables, as tables.<name> =========================================================

def __getattr__(name: str) -> Any:
    """Names defined in tables_combat.py are reachable here too (PEP 562), in any import order."""
    if name.startswith("__"):
        raise AttributeError(name)
    from engine.tacw import tables_combat
    try:
        return getattr(tables_combat, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
