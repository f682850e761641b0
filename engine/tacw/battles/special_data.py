"""The battles' special rules as scenario data: the `[special]` block of a scenario file, its
schema, reading and validation, and the generic helpers setup and the battles call (TACW,
"BATTAGLIE"; digest §7.3, §7.5, §8, §9). The rules these data drive are played in each battle's
own module: `battles/marston_moor.py` (command rivalry, surprise, the reserve under Rupert, the
York contingent's `enter`), `battles/naseby.py` (the red wagon).

The book's words for each special rule are in the file's `[[special_rules]]` (descriptive); this
block carries what the engine needs to play them. Schema (every key optional):

    [special]
    ac_wings = ["<wing id>"]        a command with no Wing Commander: the Army Commander
                                    commands it as its WC (Marston Moor, the reserve "under
                                    Prince Rupert"; digest G4, HERALD D122)
    [special.command_rivalry]       several Army Commanders; one is activated by a d10 each time
                                    a wing of `side` activates (Marston Moor special rule 1)
        side, army_commanders = [leader ids, role "ac"],
        table = [{rolls = "0-3", army_commander = "<id>" | ""}, ...]  (d10 0-9, "" = none)
        senior_wcs = {<ac id> = "<wc id>"}  each Army Commander's own senior WC (§5.3.5)
        [special.command_rivalry.colours] <colour> = [unit and leader ids]  (every unit and
                                    leader of `side` exactly once; an AC influences only
                                    pieces of his colour)
    [[special.roll_modifiers]]      id, side, turns = [..], rolls = ["continuation", "bypass",
                                    "order_change"], value, reason  (Marston Moor surprise)
    [special.setup_choice]          options = [optional rule ids], default: exactly one applies
                                    (Marston Moor York contingent options 1-4)
    [[special.reinforcements]]      option ("" = always), units, hex, turn, facing: the units
                                    start off the map and may enter at `hex` from `turn` on
    [[special.absent]]              option, units: not used when that optional rule is chosen
    [[special.option_units]]        option, units: used ONLY when that optional rule is chosen
                                    (Naseby optional Royalist artillery)
    [[special.wagons]]              unit (kind "wagon"), capture_vp, vp_option (HERALD: digest G6,
                                    D115): the VP count only when the optional rule vp_option is
                                    chosen ("" = always)
    [[special.setup_stacks]]        hex, unit, reason: the book stacks this unit where §8 would
                                    not allow it; kept at setup only (Naseby 1516, D116)

`parse_raw` reads the block before the core checks (the allowances they need: several ACs, a
wing commanded by its AC, setup stacks); `finish` cross-checks it against the parsed scenario;
`special_of` gives a scenario's block; `resolve_choice` and `setup_plan` say which units are in
the battle and which wait off the map (setup.py). Nothing here imports the rules engine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.core.scenario_files import check_keys

from engine.tacw.scenario.schema import ScenarioError

ROLL_KINDS = ("continuation", "bypass", "order_change")
WAITING = "waiting"              # Unit.status of a unit off the map until it enters (reinforcements)
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_VERTICES = ("E", "SE", "SW", "W", "NW", "NE")


# == the parsed block ==============================================================================

@dataclass(frozen=True)
class RivalryRow:
    low: int
    high: int
    army_commander: str           # "" = none is activated

    @property
    def label(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class CommandRivalry:
    side: str
    army_commanders: tuple[str, ...]
    rows: tuple[RivalryRow, ...]
    colours: dict[str, str]       # unit or leader id -> colour
    senior_wcs: dict[str, str] = None   # Army Commander id -> his senior Wing Commander (§5.3.5)

    def row(self, roll: int) -> RivalryRow:
        return next(r for r in self.rows if r.low <= roll <= r.high)


@dataclass(frozen=True)
class RollModifier:
    id: str
    side: str
    turns: tuple[int, ...]
    rolls: tuple[str, ...]
    value: int
    reason: str


@dataclass(frozen=True)
class Reinforcement:
    option: str                   # "" = always
    units: tuple[str, ...]
    hex: str
    turn: int
    facing: str


@dataclass(frozen=True)
class OptionUnits:
    option: str
    units: tuple[str, ...]


@dataclass(frozen=True)
class Wagon:
    unit: str
    capture_vp: int
    vp_option: str = ""           # the capture VP score only with this optional rule ("" = always)


@dataclass(frozen=True)
class SetupStack:
    hex: str
    unit: str
    reason: str


@dataclass(frozen=True)
class Special:
    ac_wings: tuple[str, ...] = ()
    rivalry: CommandRivalry | None = None
    roll_modifiers: tuple[RollModifier, ...] = ()
    choice: tuple[str, ...] = ()           # setup_choice options (exactly one applies)
    choice_default: str = ""
    reinforcements: tuple[Reinforcement, ...] = ()
    absent: tuple[OptionUnits, ...] = ()
    option_units: tuple[OptionUnits, ...] = ()
    wagons: tuple[Wagon, ...] = ()
    setup_stacks: tuple[SetupStack, ...] = ()

    # -- allowances the core checks of scenario_parse ask for ---------------------------------

    def allows_army_commanders(self, side: str, leader_ids: list[str]) -> bool:
        """May `side` have these several Army Commanders (command rivalry)?"""
        r = self.rivalry
        return r is not None and r.side == side and set(leader_ids) == set(r.army_commanders)

    def ac_commands(self, wing_id: str) -> bool:
        """Is this wing commanded by its side's Army Commander (no WC of its own)?"""
        return wing_id in self.ac_wings

    def stacking_view(self, units: list) -> list:
        """The units the setup stacking check (§8) looks at: without a wagon (it stands with
        one guard, checked in `finish`) and without a unit the book overstacks (setup_stacks)."""
        skip = {w.unit for w in self.wagons} | {s.unit for s in self.setup_stacks}
        return [u for u in units if u.id not in skip]


EMPTY = Special()


def special_of(sc) -> Special:
    sp = getattr(sc, "special", None)
    return sp if isinstance(sp, Special) else EMPTY


# == reading =======================================================================================

def _need(d: dict, key: str, kind: type, where: str) -> Any:
    if key not in d:
        raise ScenarioError(f"{where}: missing '{key}'")
    return _typed(d[key], kind, f"{where}.{key}")


def _opt(d: dict, key: str, kind: type, where: str, default: Any) -> Any:
    return _typed(d[key], kind, f"{where}.{key}") if key in d else default


def _typed(v: Any, kind: type, where: str) -> Any:
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise ScenarioError(f"{where}: expected {kind.__name__}, got {v!r}")
    return v


def _keys(d: dict, allowed: set[str], where: str) -> None:
    check_keys(d, allowed, where, ScenarioError)


def _ids(v: Any, where: str) -> tuple[str, ...]:
    _typed(v, list, where)
    for i, x in enumerate(v):
        if not isinstance(x, str) or not _ID.match(x):
            raise ScenarioError(f"{where}[{i}]: {x!r} is not an id")
    return tuple(v)


def _side(v: Any, where: str) -> str:
    if v not in ("royalist", "parliament"):
        raise ScenarioError(f"{where}: must be 'royalist' or 'parliament', got {v!r}")
    return v


def _rows(raw: list, where: str) -> tuple[RivalryRow, ...]:
    rows = []
    for i, r in enumerate(_typed(raw, list, where)):
        rw = f"{where}[{i}]"
        _typed(r, dict, rw)
        _keys(r, {"rolls", "army_commander"}, rw)
        m = re.fullmatch(r"(\d)(?:-(\d))?", _need(r, "rolls", str, rw))
        if not m:
            raise ScenarioError(f"{rw}.rolls: write a d10 range such as \"0-3\" or \"9\"")
        low, high = int(m[1]), int(m[2] if m[2] else m[1])
        rows.append(RivalryRow(low, high, _opt(r, "army_commander", str, rw, "")))
    expect = 0
    for r in rows:
        if r.low != expect or r.high < r.low:
            raise ScenarioError(f"{where}: the rows must cover the d10 from 0 to 9 in order, "
                                f"without gaps (row {r.label})")
        expect = r.high + 1
    if expect != 10:
        raise ScenarioError(f"{where}: the rows must end at 9")
    return tuple(rows)


def _option_units(raw: Any, where: str) -> tuple[OptionUnits, ...]:
    out = []
    for i, r in enumerate(_typed(raw, list, where)):
        rw = f"{where}[{i}]"
        _typed(r, dict, rw)
        _keys(r, {"option", "units"}, rw)
        out.append(OptionUnits(_need(r, "option", str, rw), _ids(_need(r, "units", list, rw), rw + ".units")))
    return tuple(out)


def parse_raw(raw: Any, where: str) -> Special:
    """The `[special]` block, read on its own (ids are checked later by `finish`)."""
    if raw is None:
        return EMPTY
    sw = f"{where} special"
    _typed(raw, dict, sw)
    _keys(raw, {"ac_wings", "command_rivalry", "roll_modifiers", "setup_choice", "reinforcements",
                "absent", "option_units", "wagons", "setup_stacks"}, sw)
    rivalry = None
    if "command_rivalry" in raw:
        cw = f"{sw}.command_rivalry"
        cr = _typed(raw["command_rivalry"], dict, cw)
        _keys(cr, {"side", "army_commanders", "table", "colours", "senior_wcs"}, cw)
        acs = _ids(_need(cr, "army_commanders", list, cw), cw + ".army_commanders")
        if len(acs) < 2:
            raise ScenarioError(f"{cw}.army_commanders: a rivalry needs two or more")
        rows = _rows(_need(cr, "table", list, cw), cw + ".table")
        for r in rows:
            if r.army_commander and r.army_commander not in acs:
                raise ScenarioError(f"{cw}.table: '{r.army_commander}' is not one of the "
                                    f"army_commanders ({', '.join(acs)})")
        colours: dict[str, str] = {}
        for colour, ids in _need(cr, "colours", dict, cw).items():
            for pid in _ids(ids, f"{cw}.colours.{colour}"):
                if pid in colours:
                    raise ScenarioError(f"{cw}.colours: '{pid}' is both {colours[pid]} and {colour}")
                colours[pid] = colour
        seniors = dict(_opt(cr, "senior_wcs", dict, cw, {}))
        for ac, wc in seniors.items():
            if ac not in acs or not isinstance(wc, str):
                raise ScenarioError(f"{cw}.senior_wcs: '{ac}' is not one of the army_commanders "
                                    f"({', '.join(acs)}) or names no leader")
        rivalry = CommandRivalry(_side(cr.get("side"), cw + ".side"), acs, rows, colours, seniors)
    mods = []
    for i, m in enumerate(_opt(raw, "roll_modifiers", list, sw, [])):
        mw = f"{sw}.roll_modifiers[{i}]"
        _typed(m, dict, mw)
        _keys(m, {"id", "side", "turns", "rolls", "value", "reason"}, mw)
        turns = _need(m, "turns", list, mw)
        if not turns or not all(isinstance(t, int) and not isinstance(t, bool) and t >= 1 for t in turns):
            raise ScenarioError(f"{mw}.turns: a list of turn numbers (1, 2...)")
        rolls = _need(m, "rolls", list, mw)
        if not rolls or any(r not in ROLL_KINDS for r in rolls):
            raise ScenarioError(f"{mw}.rolls: each one of {', '.join(ROLL_KINDS)}")
        value = _need(m, "value", int, mw)
        if not -3 <= value <= 3 or value == 0:
            raise ScenarioError(f"{mw}.value: {value} is not -3..3 (and not 0)")
        mods.append(RollModifier(_need(m, "id", str, mw), _side(m.get("side"), mw + ".side"),
                                 tuple(turns), tuple(rolls), value, _need(m, "reason", str, mw)))
    choice, default = (), ""
    if "setup_choice" in raw:
        cw = f"{sw}.setup_choice"
        sc_raw = _typed(raw["setup_choice"], dict, cw)
        _keys(sc_raw, {"options", "default"}, cw)
        choice = _ids(_need(sc_raw, "options", list, cw), cw + ".options")
        default = _opt(sc_raw, "default", str, cw, choice[0] if choice else "")
        if len(choice) < 2 or default not in choice:
            raise ScenarioError(f"{cw}: two or more options, and a default among them")
    reinf = []
    for i, r in enumerate(_opt(raw, "reinforcements", list, sw, [])):
        rw = f"{sw}.reinforcements[{i}]"
        _typed(r, dict, rw)
        _keys(r, {"option", "units", "hex", "turn", "facing"}, rw)
        facing = _need(r, "facing", str, rw).upper()
        if facing not in _VERTICES:
            raise ScenarioError(f"{rw}.facing: a vertex {', '.join(_VERTICES)}")
        turn = _need(r, "turn", int, rw)
        if turn < 1:
            raise ScenarioError(f"{rw}.turn: {turn} is not a turn")
        reinf.append(Reinforcement(_opt(r, "option", str, rw, ""), _ids(_need(r, "units", list, rw), rw + ".units"),
                                   _need(r, "hex", str, rw), turn, facing))
    wagons = []
    for i, w in enumerate(_opt(raw, "wagons", list, sw, [])):
        ww = f"{sw}.wagons[{i}]"
        _typed(w, dict, ww)
        _keys(w, {"unit", "capture_vp", "vp_option"}, ww)
        vp = _need(w, "capture_vp", int, ww)
        if not 0 <= vp <= 100:
            raise ScenarioError(f"{ww}.capture_vp: {vp} is not 0..100")
        wagons.append(Wagon(_need(w, "unit", str, ww), vp, _opt(w, "vp_option", str, ww, "")))
    stacks = []
    for i, s in enumerate(_opt(raw, "setup_stacks", list, sw, [])):
        xw = f"{sw}.setup_stacks[{i}]"
        _typed(s, dict, xw)
        _keys(s, {"hex", "unit", "reason"}, xw)
        stacks.append(SetupStack(_need(s, "hex", str, xw), _need(s, "unit", str, xw), _need(s, "reason", str, xw)))
    return Special(
        ac_wings=_ids(_opt(raw, "ac_wings", list, sw, []), sw + ".ac_wings"), rivalry=rivalry,
        roll_modifiers=tuple(mods), choice=choice, choice_default=default,
        reinforcements=tuple(reinf),
        absent=_option_units(_opt(raw, "absent", list, sw, []), sw + ".absent"),
        option_units=_option_units(_opt(raw, "option_units", list, sw, []), sw + ".option_units"),
        wagons=tuple(wagons), setup_stacks=tuple(stacks))


def finish(sp: Special, sc, where: str) -> Special:
    """Cross-check the block against the parsed scenario (ids, sides, hexes, options)."""
    sw = f"{where} special"
    units = {u.id: u for u in sc.units}
    leaders = {ld.id: ld for ld in sc.leaders}
    wings = {w.id: w for w in sc.wings}
    options = {r.id for r in sc.optional_rules}

    def unit(uid: str, w: str):
        if uid not in units:
            raise ScenarioError(f"{w}: no unit '{uid}'")
        return units[uid]

    def option(oid: str, w: str, blank: bool = False) -> None:
        if not (blank and oid == "") and oid not in options:
            raise ScenarioError(f"{w}: no optional rule '{oid}' (optional rules: {', '.join(sorted(options)) or 'none'})")

    for wid in sp.ac_wings:
        w = wings.get(wid)
        if w is None:
            raise ScenarioError(f"{sw}.ac_wings: no wing '{wid}'")
        ld = leaders.get(w.commander)
        if ld is None or ld.role != "ac" or ld.side != w.side:
            raise ScenarioError(f"{sw}.ac_wings: wing '{wid}' must name its side's Army Commander "
                                "as its commander")
    r = sp.rivalry
    if r is not None:
        cw = f"{sw}.command_rivalry"
        side_acs = {ld.id for ld in sc.leaders if ld.side == r.side and ld.role == "ac"}
        if set(r.army_commanders) != side_acs:
            raise ScenarioError(f"{cw}.army_commanders: must be every {r.side} Army Commander "
                                f"({', '.join(sorted(side_acs))})")
        pieces = {u.id for u in sc.units if u.side == r.side} | {ld.id for ld in sc.leaders if ld.side == r.side}
        unknown = sorted(set(r.colours) - pieces)
        if unknown:
            raise ScenarioError(f"{cw}.colours: '{unknown[0]}' is not a {r.side} unit or leader")
        wcs = {ld.id for ld in sc.leaders if ld.side == r.side and ld.role == "wc"}
        for ac, wc in (r.senior_wcs or {}).items():
            if wc not in wcs:
                raise ScenarioError(f"{cw}.senior_wcs: '{wc}' ({ac}'s) is not a {r.side} Wing Commander")
        missing = sorted(pieces - set(r.colours))
        if missing:
            raise ScenarioError(f"{cw}.colours: '{missing[0]}' has no colour (every {r.side} unit "
                                "and leader needs one)")
    for m in sp.roll_modifiers:
        if any(t > sc.turns for t in m.turns):
            raise ScenarioError(f"{sw}.roll_modifiers ({m.id}).turns: the battle lasts {sc.turns} turns")
    for oid in sp.choice:
        option(oid, f"{sw}.setup_choice.options")
    for i, rf in enumerate(sp.reinforcements):
        rw = f"{sw}.reinforcements[{i}]"
        option(rf.option, rw + ".option", blank=True)
        if rf.hex not in sc.grid:
            raise ScenarioError(f"{rw}.hex: {rf.hex!r} is not a hex of the {sc.cols}x{sc.rows} map")
        if sc.hex_impassable(rf.hex):
            raise ScenarioError(f"{rw}.hex: {rf.hex} is impassable (§5.7)")
        if rf.turn > sc.turns:
            raise ScenarioError(f"{rw}.turn: the battle lasts {sc.turns} turns")
        for uid in rf.units:
            u = unit(uid, rw + ".units")
            if len(u.hexes) != 1:
                raise ScenarioError(f"{rw}.units: '{uid}' is a double unit: it cannot enter by one hex")
    for group, name in ((sp.absent, "absent"), (sp.option_units, "option_units")):
        for i, g in enumerate(group):
            option(g.option, f"{sw}.{name}[{i}].option")
            for uid in g.units:
                unit(uid, f"{sw}.{name}[{i}].units")
    by_hex: dict[str, list] = {}
    for u in sc.units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    for i, w in enumerate(sp.wagons):
        ww = f"{sw}.wagons[{i}]"
        option(w.vp_option, ww + ".vp_option", blank=True)
        u = unit(w.unit, ww + ".unit")
        if u.kind != "wagon":
            raise ScenarioError(f"{ww}.unit: '{w.unit}' is a {u.kind}, not a wagon")
        others = [o for o in by_hex[u.hexes[0]] if o.id != u.id]
        if len(others) > 1 or any(o.side != u.side or o.kind not in ("heavy", "light", "cavalry")
                                  or (o.kind == "heavy" and len(o.hexes) == 2) for o in others):
            raise ScenarioError(f"{ww}: a wagon stands alone or with ONE friendly single-hex "
                                "infantry or cavalry unit (HERALD D115, as artillery §8.3)")
    for i, s in enumerate(sp.setup_stacks):
        xw = f"{sw}.setup_stacks[{i}]"
        u = unit(s.unit, xw + ".unit")
        if s.hex not in u.hexes:
            raise ScenarioError(f"{xw}: '{s.unit}' does not stand in {s.hex}")
        if not any(o.id != u.id for o in by_hex[s.hex]):
            raise ScenarioError(f"{xw}: '{s.unit}' is alone in {s.hex}: nothing to allow")
    return sp


# == setup (setup.py) ==============================================================================

def resolve_choice(sc, chosen: list[str]) -> tuple[list[str], str]:
    """The optional rules in play after the scenario's setup choice: exactly one of its options
    (the default when none is chosen). Returns (chosen ids, the default added or "")."""
    sp = special_of(sc)
    if not sp.choice:
        return chosen, ""
    picked = [o for o in chosen if o in sp.choice]
    if len(picked) > 1:
        raise ScenarioError(f"{sc.id}: choose one of {', '.join(sp.choice)}, not {' and '.join(picked)}")
    if picked:
        return chosen, ""
    return chosen + [sp.choice_default], sp.choice_default


def setup_plan(sc, chosen: set[str]) -> tuple[set[str], dict[str, Reinforcement]]:
    """Which units are left out of the battle, and which wait off the map to enter."""
    sp = special_of(sc)
    out = {uid for g in sp.option_units if g.option not in chosen for uid in g.units}
    out |= {uid for g in sp.absent if g.option in chosen for uid in g.units}
    waiting = {uid: rf for rf in sp.reinforcements if not rf.option or rf.option in chosen
               for uid in rf.units if uid not in out}
    return out, waiting
