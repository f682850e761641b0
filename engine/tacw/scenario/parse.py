"""Reading and validating a TACW scenario file (the schema is in `scenario/schema.py`): TOML syntax,
then each block -- [map], [[wings]], [[units]] with the setup stacking check (§8),
[[leaders]], [sides], [orders], [victory], [[optional_rules]], [provenance] -- into the
dataclasses of `scenario/schema.py`, raising ScenarioError with a message that names the field.

Validation (each message names the field): hexes on the map, doubles on two adjacent hexes and
facing across their line, setup stacking (§8), every unit's wing, one AC per side, every WC
commanding exactly one wing, orders, strength 1..20 (artillery 0), morale 4..8, artillery class
and ranges (max range within the class's Artillery Range table, §9.9.2).

Free setups (`scenario/schema.py` docstring): [[deployment_areas]] (hexes and/or near, side, text),
each unit's and leader's `area` (its suggested hexes inside it), `near`, `deploy_rule`, the
cavalry pools (`brigade`, `wing_choices`), and the suggested setup checked whole with the
deployment phase's own rules (sequence/deployment.py), so `deploy done` accepts it as it stands.
"""
from __future__ import annotations

import re
from typing import Any

from engine.core.facing import VERTEX_NAMES, double_facings, vertex_index, vertex_name
from engine.core.hexgrid import HexGrid
from engine.core.scenario_files import check_keys, read_toml

from engine.tacw.scenario.schema import (
    _ID_RE, DEPLOY_RULES, EDGES, GUN_CLASSES, HEXSIDE_TYPES, IMPASSABLE, LEADER_SPECIALS,
    LEADER_VALUES, LIGHT_KINDS, MAX_SCENARIO_BYTES, ROLES, SIDE_PREFIX, SPECIAL_RULE_KINDS,
    TERRAIN, TOP_KEYS, UNIT_KEYS, VALUE_SOURCES, VICTORY_LEVELS, DeploymentArea, Hexside,
    LeaderSetup, MapLabel, OptionalRule, Road, Scenario, ScenarioError, SideSetup, SpecialRule,
    UnitSetup, VictoryBand, VictoryHex, WingSetup, map_grid)
from engine.tacw.battles import special_data as scenario_special
from engine.tacw.state import ORDERS, SIDES, UNIT_KINDS


# -- field readers --------------------------------------------------------------------------

def _type_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return " or ".join(k.__name__ for k in kind)
    return {"str": "a string", "int": "an integer", "bool": "true/false", "list": "a list",
            "dict": "a table"}.get(kind.__name__, kind.__name__)


def _check_type(value: Any, kind: type, where: str) -> Any:
    bad = not isinstance(value, kind) or (kind is int and isinstance(value, bool))
    if bad:
        raise ScenarioError(f"{where}: expected {_type_name(kind)}, got {value!r}")
    return value


def _need(d: dict, key: str, kind: type, where: str) -> Any:
    if key not in d:
        raise ScenarioError(f"{where}: missing '{key}'")
    return _check_type(d[key], kind, f"{where}.{key}")


def _opt(d: dict, key: str, kind: type, where: str, default: Any) -> Any:
    if key not in d:
        return default
    return _check_type(d[key], kind, f"{where}.{key}")


def _keys(d: dict, allowed: set[str], where: str) -> None:
    check_keys(d, allowed, where, ScenarioError)


def _ident(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise ScenarioError(f"{where}: {value!r} is not an id (lower-case letters, digits, "
                            "'-' and '_', up to 40 characters)")
    return value


def _side(value: Any, where: str) -> str:
    if value not in SIDES:
        raise ScenarioError(f"{where}: must be 'royalist' or 'parliament', got {value!r}")
    return value


def _slug(name: str) -> str:
    s = name.lower().replace("'", "").replace("\u2019", "")
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return s[:30].strip("-") or "unit"


def _hex_checker(grid: HexGrid):
    def hex_on_map(value: Any, where: str) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            raise ScenarioError(f"{where}: write hex ids as quoted strings, \"{value:04d}\", "
                                f"not {value}")
        if not isinstance(value, str) or value not in grid:
            raise ScenarioError(f"{where}: {value!r} is not a hex of the {grid.cols}x{grid.rows} "
                                f"map (CCRR, columns 01-{grid.cols:02d}, rows "
                                f"01-{grid.rows:02d})")
        return value
    return hex_on_map


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a scenario; raises ScenarioError naming what is wrong."""
    data = read_toml(text, source, MAX_SCENARIO_BYTES, ScenarioError)
    special_raw = data.pop("special", None)        # battle rules: battles/special_data.py
    _keys(data, TOP_KEYS, source)
    sid = _ident(_need(data, "id", str, source), f"{source}.id")
    where = f"{source} [{sid}]"
    special = scenario_special.parse_raw(special_raw, where)
    turns = _need(data, "turns", int, where)
    if not 1 <= turns <= 99:
        raise ScenarioError(f"{where}.turns: {turns} is not 1..99")

    grid, cols, rows, terrain, hexsides, edges, vhexes, wing_edges = _parse_map(data, where)
    hex_on_map = _hex_checker(grid)
    labels, roads = free.parse_map_drawing(data, where, hex_on_map)
    areas = free.parse_areas(data, where, grid, hex_on_map, terrain)

    # wings first: units and leaders refer to them.
    wings: list[WingSetup] = []
    wing_ids: dict[str, WingSetup] = {}
    for i, w in enumerate(_need(data, "wings", list, where)):
        ww = f"{where} wings[{i}]"
        _check_type(w, dict, ww)
        _keys(w, {"id", "side", "name", "commander", "cavalry", "historical_order"}, ww)
        wid = _ident(w.get("id"), ww + ".id")
        ww = f"{where} wings[{i}] ({wid})"
        if wid in wing_ids:
            raise ScenarioError(f"{ww}.id: '{wid}' is used twice")
        order = _opt(w, "historical_order", str, ww, "")
        if order and order not in ORDERS:
            raise ScenarioError(f"{ww}.historical_order: '{order}' is not one of "
                                f"{', '.join(ORDERS)}")
        wing = WingSetup(wid, _side(w.get("side"), ww + ".side"), _need(w, "name", str, ww),
                         _ident(w.get("commander"), ww + ".commander"),
                         _opt(w, "cavalry", bool, ww, None), order)
        wings.append(wing)
        wing_ids[wid] = wing

    for wid in wing_edges:
        if wid not in wing_ids:
            raise ScenarioError(f"{where} map.wing_edges: no wing {wid!r} (wings: {', '.join(wing_ids)})")
    for a in areas.values():
        if a.wing and (a.wing not in wing_ids or wing_ids[a.wing].side != a.side):
            raise ScenarioError(f"{where} deployment_areas ({a.id}).wing: no {a.side} wing "
                                f"{a.wing!r} (wings: {', '.join(wing_ids)})")
    units = _parse_units(data, where, grid, hex_on_map, wing_ids, terrain, areas)
    unit_ids = {u.id: u for u in units}
    _check_stacking(special.stacking_view(units), where)   # the book's own exceptions aside
    free.check_free_setup_units(units, where, wing_ids, areas)

    leaders = _parse_leaders(data, where, hex_on_map, wing_ids, unit_ids, units, areas)
    leader_ids = {ld.id: ld for ld in leaders}

    # Each wing: one commander, a WC of its side who commands that wing; each WC one wing.
    for w in wings:
        ww = f"{where} wings ({w.id})"
        ld = leader_ids.get(w.commander)
        if ld is None:
            raise ScenarioError(f"{ww}.commander: no leader '{w.commander}'")
        if (ld.role != "wc" or ld.side != w.side or ld.wing != w.id) and not (
                special.ac_commands(w.id) and ld.role == "ac" and ld.side == w.side):
            raise ScenarioError(f"{ww}.commander: '{ld.id}' must be a {w.side} wing commander "
                                f"(role \"wc\") whose wing is '{w.id}'")
        if not any(u.wing == w.id for u in units):
            raise ScenarioError(f"{ww}: the wing has no units")
    for ld in leaders:
        if ld.role == "wc" and wing_ids[ld.wing].commander != ld.id:
            raise ScenarioError(f"{where} leaders ({ld.id}).wing: wing '{ld.wing}' is commanded "
                                f"by '{wing_ids[ld.wing].commander}', not '{ld.id}'")
    for side in SIDES:
        acs = [ld.id for ld in leaders if ld.side == side and ld.role == "ac"]
        if len(acs) != 1 and not special.allows_army_commanders(side, acs):
            raise ScenarioError(f"{where} leaders: {side} needs exactly one army commander "
                                f"(role \"ac\"), has {len(acs)}")
        if not any(w.side == side for w in wings):
            raise ScenarioError(f"{where} wings: {side} has no wing")

    sides = _parse_sides(data, where, leader_ids, edges)
    orders = _parse_orders(data, where, wing_ids)
    wings = [WingSetup(w.id, w.side, w.name, w.commander,
                       w.cavalry if w.cavalry is not None else _cavalry_wing(units, w.id),
                       orders.get(w.id, w.historical_order)) for w in wings]
    historical = {w.id: w.historical_order for w in wings if w.historical_order}
    bands, result, notes = _parse_victory(data, where)
    optional = _parse_optional_rules(data, where)
    specials = free.parse_special_rules(data, where)
    provenance = _parse_provenance(data, where)

    scenario = Scenario(
        id=sid, title=_need(data, "title", str, where), date=_opt(data, "date", str, where, ""),
        turns=turns, start_time=_opt(data, "start_time", str, where, ""),
        description=_opt(data, "description", str, where, ""),
        first_turn_note=_opt(data, "first_turn_note", str, where, ""),
        cols=cols, rows=rows, terrain=terrain, hexsides=hexsides, edges=edges,
        victory_hexes=vhexes, sides=sides, leaders=leaders, wings=wings, units=units,
        historical_orders=historical, victory_bands=bands, historical_result=result,
        victory_notes=notes, optional_rules=optional, provenance=provenance, source=source,
        deployment_areas=areas, special_rules=specials, labels=labels, roads=roads,
        wing_edges=wing_edges,
    )
    scenario.special = scenario_special.finish(special, scenario, where)
    from engine.tacw.battles.second_newbury import check_special_rules   # Second Newbury's rule kinds
    check_special_rules(scenario)
    if scenario.free_setup:
        from engine.tacw.sequence.deployment import suggested_setup_problem
        problem = suggested_setup_problem(scenario)
        if problem:
            raise ScenarioError(f"{where}: the suggested setup breaks a deployment rule: {problem}")
    elif areas:
        raise ScenarioError(f"{where} deployment_areas: no unit or leader has an `area` "
                            "(or `wing_choices`): the areas would never be used")
    return scenario


def _cavalry_wing(units, wing_id: str) -> bool:
    """§4.3.3, §4.4.4, §5.7.3 "cavalry wing" (digest R19). HERALD: the scenario says it with
    `cavalry = true|false` (the book's headings name the cavalry wings); where it does not, a wing
    is a cavalry wing when its cavalry units outnumber its heavy infantry units (light infantry
    and guns attached to either do not count)."""
    kinds = [u.kind for u in units if u.wing == wing_id]
    return kinds.count("cavalry") > kinds.count("heavy")


def _parse_map(data: dict, where: str):
    mw = f"{where} map"
    m = _need(data, "map", dict, where)
    _keys(m, {"cols", "rows", "orientation", "shove", "terrain", "hexsides", "edges",
              "wing_edges", "victory_hexes", "labels", "roads"}, mw)
    cols, rows = _need(m, "cols", int, mw), _need(m, "rows", int, mw)
    if not 1 <= cols <= 99 or not 1 <= rows <= 99:
        raise ScenarioError(f"{mw}: cols and rows must be 1..99 (CCRR ids), got {cols}x{rows}")
    if m.get("orientation", "flat") != "flat" or m.get("shove", "odd") != "odd":
        raise ScenarioError(f"{mw}: TACW maps are orientation = \"flat\", shove = \"odd\" "
                            f"(GMT hex maps), got {m.get('orientation')!r}, {m.get('shove')!r}")
    grid = map_grid(cols, rows)
    hex_on_map = _hex_checker(grid)

    terrain: dict[str, str] = {}
    for name, hexes in _opt(m, "terrain", dict, mw, {}).items():
        tw = f"{mw}.terrain.{name}"
        if name not in TERRAIN:
            raise ScenarioError(f"{mw}.terrain: unknown terrain '{name}' "
                                f"(known: {', '.join(TERRAIN)})")
        _check_type(hexes, list, tw)
        for h in hexes:
            hex_on_map(h, tw)
            if h in terrain:
                raise ScenarioError(f"{tw}: hex {h} is already {terrain[h]}")
            terrain[h] = name
    terrain = {h: t for h, t in terrain.items() if t != "clear"}   # listing clear is allowed

    hexsides: dict[frozenset[str], Hexside] = {}
    for i, hs in enumerate(_opt(m, "hexsides", list, mw, [])):
        hw = f"{mw}.hexsides[{i}]"
        _check_type(hs, dict, hw)
        _keys(hs, {"hex", "side", "sides", "type", "no_effect"}, hw)
        h = hex_on_map(hs.get("hex"), hw + ".hex")
        kind = hs.get("type")
        if kind not in HEXSIDE_TYPES:
            raise ScenarioError(f"{hw}.type: must be one of {', '.join(HEXSIDE_TYPES)}, "
                                f"got {kind!r}")
        if ("side" in hs) == ("sides" in hs):
            raise ScenarioError(f"{hw}: give either 'side' or 'sides'")
        names = [hs["side"]] if "side" in hs else _check_type(hs["sides"], list, hw + ".sides")
        no_effect = _opt(hs, "no_effect", bool, hw, False)
        for s in names:
            try:
                d = grid.side_index(str(s))
            except ValueError:
                raise ScenarioError(f"{hw}.side: {s!r} is not a hexside of a flat-top hex "
                                    "(SE, S, SW, NW, N, NE)") from None
            other = grid.neighbor(h, d)
            if other is None:
                raise ScenarioError(f"{hw}.side: the {str(s).upper()} side of {h} is the map "
                                    "edge, not a side between two hexes")
            key = frozenset((h, other))
            if key in hexsides:
                raise ScenarioError(f"{hw}: the side between {h} and {other} is already "
                                    f"{hexsides[key].type}")
            hexsides[key] = Hexside(h, str(s).upper(), other, kind, no_effect)

    edges_raw = _need(m, "edges", dict, mw)
    _keys(edges_raw, set(SIDES), mw + ".edges")
    edges: dict[str, str] = {}
    for side in SIDES:
        e = _need(edges_raw, side, str, mw + ".edges")
        if e not in EDGES:
            raise ScenarioError(f"{mw}.edges.{side}: must be one of {', '.join(EDGES)}")
        edges[side] = e
    if edges["royalist"] == edges["parliament"]:
        raise ScenarioError(f"{mw}.edges: the two sides need different friendly map edges")
    wing_edges: dict[str, str] = {}
    for wid, e in _opt(m, "wing_edges", dict, mw, {}).items():
        if e not in EDGES:
            raise ScenarioError(f"{mw}.wing_edges.{wid}: must be one of {', '.join(EDGES)}")
        wing_edges[str(wid)] = e

    vhexes: list[VictoryHex] = []
    for i, v in enumerate(_opt(m, "victory_hexes", list, mw, [])):
        vw = f"{mw}.victory_hexes[{i}]"
        _check_type(v, dict, vw)
        _keys(v, {"hex", "vp", "side"}, vw)
        vp = _need(v, "vp", int, vw)
        if not 0 < vp <= 500:
            raise ScenarioError(f"{vw}.vp: {vp} is not 1..500")
        vhexes.append(VictoryHex(hex_on_map(v.get("hex"), vw + ".hex"), vp,
                                 _side(v.get("side"), vw + ".side")))
    return grid, cols, rows, terrain, hexsides, edges, vhexes, wing_edges







def _parse_units(data, where, grid, hex_on_map, wing_ids, terrain, areas=None) -> list[UnitSetup]:
    raw = _need(data, "units", list, where)
    # Generated ids: "<r|p>-<slug of name>", numbered when the same slug repeats on a side.
    slug_count: dict[str, int] = {}
    for u in raw:
        if isinstance(u, dict) and "id" not in u and u.get("side") in SIDES:
            key = f"{SIDE_PREFIX[u['side']]}-{_slug(str(u.get('name', '')))}"
            slug_count[key] = slug_count.get(key, 0) + 1
    slug_seen: dict[str, int] = {}
    units: list[UnitSetup] = []
    ids: set[str] = set()
    for i, u in enumerate(raw):
        uw = f"{where} units[{i}]"
        _check_type(u, dict, uw)
        _keys(u, UNIT_KEYS, uw)
        name = _need(u, "name", str, uw)
        uw = f"{where} units[{i}] ({name})"
        side = _side(u.get("side"), uw + ".side")
        if "id" in u:
            uid = _ident(u["id"], uw + ".id")
        else:
            base = f"{SIDE_PREFIX[side]}-{_slug(name)}"
            if slug_count.get(base, 0) > 1:
                slug_seen[base] = slug_seen.get(base, 0) + 1
                uid = f"{base}-{slug_seen[base]}"
            else:
                uid = base
        if uid in ids:
            raise ScenarioError(f"{uw}.id: '{uid}' is used twice (give the unit an explicit id)")
        ids.add(uid)
        wing_id = u.get("wing")
        if wing_id not in wing_ids:
            raise ScenarioError(f"{uw}.wing: no wing {wing_id!r} "
                                f"(wings: {', '.join(wing_ids)})")
        if wing_ids[wing_id].side != side:
            raise ScenarioError(f"{uw}.wing: '{wing_id}' is a {wing_ids[wing_id].side} wing")
        kind = u.get("kind")
        if kind not in UNIT_KINDS:
            raise ScenarioError(f"{uw}.kind: must be one of {', '.join(UNIT_KINDS)}, "
                                f"got {kind!r}")
        # strength (§2.1.2: 1-20; artillery has none) and morale (4-8).
        if kind == "artillery":
            strength = _opt(u, "strength", int, uw, 0)
            if strength != 0:
                raise ScenarioError(f"{uw}.strength: artillery has no strength (0), got "
                                    f"{strength}")
        else:
            strength = _need(u, "strength", int, uw)
            if not 1 <= strength <= 20:
                raise ScenarioError(f"{uw}.strength: {strength} is not 1..20")
        morale = _need(u, "morale", int, uw)
        if not 4 <= morale <= 8:
            raise ScenarioError(f"{uw}.morale: {morale} is not 4..8")
        # hexes: one, or two adjacent for a double heavy-infantry unit.
        hexes = _need(u, "hexes", list, uw)
        if len(hexes) not in (1, 2):
            raise ScenarioError(f"{uw}.hexes: a unit stands in 1 hex (2 for a double heavy "
                                f"unit), got {len(hexes)}")
        hexes = [hex_on_map(h, uw + ".hexes") for h in hexes]
        if len(hexes) == 2:
            if kind != "heavy":
                raise ScenarioError(f"{uw}.hexes: only heavy infantry may be a double (2-hex) "
                                    f"unit, not {kind}")
            if hexes[0] == hexes[1] or not grid.adjacent(hexes[0], hexes[1]):
                raise ScenarioError(f"{uw}.hexes: a double unit needs two ADJACENT hexes, "
                                    f"{hexes[0]} and {hexes[1]} are not")
        for h in hexes:
            if terrain.get(h) in IMPASSABLE:
                raise ScenarioError(f"{uw}.hexes: {h} is {terrain[h]}, which no unit may "
                                    "enter (§5.7)")
        facing_name = _need(u, "facing", str, uw)
        try:
            facing = vertex_index(grid, facing_name)
        except ValueError:
            raise ScenarioError(f"{uw}.facing: {facing_name!r} is not a vertex of a flat-top "
                                f"hex ({', '.join(VERTEX_NAMES['flat'])})") from None
        if len(hexes) == 2:
            allowed = double_facings(grid, hexes[0], hexes[1])
            if facing not in allowed:
                names = " or ".join(vertex_name(grid, v) for v in allowed)
                raise ScenarioError(f"{uw}.facing: a double unit on {hexes[0]} & {hexes[1]} "
                                    f"faces across its line ({names}), not {facing_name}")
        # type-specific fields
        light_kind = _opt(u, "light_kind", str, uw, "")
        if kind == "light":
            light_kind = light_kind or "commanded_shot"
            if light_kind not in LIGHT_KINDS:
                raise ScenarioError(f"{uw}.light_kind: must be one of {', '.join(LIGHT_KINDS)}")
        elif light_kind:
            raise ScenarioError(f"{uw}.light_kind: only light infantry has one")
        gun_class = _opt(u, "gun_class", str, uw, "")
        ricochet = _opt(u, "ricochet_range", int, uw, 0)
        max_range = _opt(u, "max_range", int, uw, 0)
        if kind == "artillery":
            if gun_class not in GUN_CLASSES:
                raise ScenarioError(f"{uw}.gun_class: must be one of {', '.join(GUN_CLASSES)} "
                                    f"(§9.9), got {gun_class!r}")
            top = GUN_CLASSES[gun_class]
            if not 1 <= max_range <= top:
                raise ScenarioError(f"{uw}.max_range: {max_range} is not 1..{top}, the "
                                    f"{gun_class} column of the Artillery Range table (§9.9.2)")
            if not 1 <= ricochet <= max_range:
                raise ScenarioError(f"{uw}.ricochet_range: {ricochet} is not 1..{max_range} "
                                    "(the max_range)")
        elif gun_class or ricochet or max_range:
            raise ScenarioError(f"{uw}: only artillery has gun_class, ricochet_range, max_range")
        pistols = _opt(u, "pistols", int, uw, 2)
        if not 0 <= pistols <= 2:
            raise ScenarioError(f"{uw}.pistols: {pistols} is not 0..2 (§9.8)")
        if "pistols" in u and kind != "cavalry":
            raise ScenarioError(f"{uw}.pistols: only cavalry carries pistols (§9.8)")
        no_hedgehog = _opt(u, "no_hedgehog", bool, uw, False)
        salvo = _opt(u, "salvo_allowed", bool, uw, True)
        if (no_hedgehog or not salvo) and kind != "heavy":
            raise ScenarioError(f"{uw}: no_hedgehog and salvo_allowed concern heavy infantry "
                                "only (§6.3.2, §9.4)")
        area, near, rule, brigade, choices = free.free_setup_keys(u, uw, side, wing_id, hexes, grid,
                                                              hex_on_map, wing_ids, areas or {})
        units.append(UnitSetup(uid, side, wing_id, kind, name, strength, morale, tuple(hexes),
                               facing, light_kind, gun_class, ricochet, max_range, pistols,
                               no_hedgehog, salvo, area, near, rule, brigade, choices))
    for side in SIDES:
        if not any(u.side == side for u in units):
            raise ScenarioError(f"{where} units: {side} has no units")
    return units




def setup_stack_problem(us: list) -> str | None:
    """§8 at setup, for the units (anything with side, kind, facing, name, id) standing in one
    hex: one combat unit per hex, except 1 light + 1 cavalry (same facing, §8.2), 1 artillery
    + 1 infantry or cavalry (§8.3), and so 2 artillery with a double heavy unit, one per hex.
    Two cavalry share a hex only while incorporating (§8.4), never at setup; a wagon stands
    alone (HERALD reading: the text gives wagons no stacking rule). None when legal."""
    if len(us) < 2:
        return None
    names = " and ".join(f"{u.name} ({u.id})" for u in us)
    if len({u.side for u in us}) > 1:
        return f"holds units of both sides: {names}"
    kinds = sorted(u.kind for u in us)
    legal = len(us) == 2 and (
        kinds == ["cavalry", "light"]
        or (kinds.count("artillery") == 1
            and any(k in ("heavy", "light", "cavalry") for k in kinds)))
    if not legal:
        return (f"holds {names}: stacking allows one combat unit per hex, except 1 light + 1 "
                "cavalry, or 1 artillery + 1 infantry or cavalry (§8)")
    if kinds == ["cavalry", "light"] and us[0].facing != us[1].facing:
        return f"holds {names}: cavalry stacked with light infantry must have the same facing (§8.2)"
    return None


def _check_stacking(units: list[UnitSetup], where: str) -> None:
    """§8 at setup (`setup_stack_problem`) for every hex of the order of battle."""
    by_hex: dict[str, list[UnitSetup]] = {}
    for u in units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    for h, us in by_hex.items():
        problem = setup_stack_problem(us)
        if problem:
            raise ScenarioError(f"{where} units: hex {h} {problem}")


def _parse_leaders(data, where, hex_on_map, wing_ids, unit_ids, units,
                   areas=None) -> list[LeaderSetup]:
    leaders: list[LeaderSetup] = []
    ids: set[str] = set()
    for i, ld in enumerate(_need(data, "leaders", list, where)):
        lw = f"{where} leaders[{i}]"
        _check_type(ld, dict, lw)
        _keys(ld, {"id", "side", "name", "role", "value", "hex", "with_unit", "wing", "special",
                   "replacement", "replacement_value", "later_replacements", "value_source",
                   "area"}, lw)
        lid = _ident(ld.get("id"), lw + ".id")
        lw = f"{where} leaders[{i}] ({lid})"
        if lid in ids:
            raise ScenarioError(f"{lw}.id: '{lid}' is used twice")
        if lid in unit_ids:
            raise ScenarioError(f"{lw}.id: '{lid}' is also a unit id")
        ids.add(lid)
        side = _side(ld.get("side"), lw + ".side")
        role = ld.get("role")
        if role not in ROLES:
            raise ScenarioError(f"{lw}.role: must be \"ac\" (army commander) or \"wc\" (wing "
                                f"commander), got {role!r}")
        value = _need(ld, "value", int, lw)
        if value not in LEADER_VALUES:
            raise ScenarioError(f"{lw}.value: command value must be 0, -1 or -2 (§2.1.3), got "
                                f"{value}")
        rvalue = _opt(ld, "replacement_value", int, lw, None)
        if rvalue is not None and rvalue not in LEADER_VALUES:
            raise ScenarioError(f"{lw}.replacement_value: must be 0, -1 or -2, got {rvalue}")
        later = []
        for j, x in enumerate(_opt(ld, "later_replacements", list, lw, [])):
            xw = f"{lw}.later_replacements[{j}]"
            _check_type(x, dict, xw)
            _keys(x, {"name", "value"}, xw)
            xv = _need(x, "value", int, xw)
            if xv not in LEADER_VALUES:
                raise ScenarioError(f"{xw}.value: must be 0, -1 or -2, got {xv}")
            later.append((_need(x, "name", str, xw), xv))
        if later and not ld.get("replacement"):
            raise ScenarioError(f"{lw}.later_replacements: name the first one as 'replacement'")
        source = _opt(ld, "value_source", str, lw, "herald")
        if source not in VALUE_SOURCES:
            raise ScenarioError(f"{lw}.value_source: must be \"book\" or \"herald\"")
        special = _opt(ld, "special", str, lw, "")
        if special not in LEADER_SPECIALS:
            raise ScenarioError(f"{lw}.special: must be \"\", \"king\" or \"cromwell\", got "
                                f"{special!r}")
        wing = ld.get("wing")
        if role == "wc":
            if wing not in wing_ids:
                raise ScenarioError(f"{lw}.wing: a wing commander needs an existing wing, got "
                                    f"{wing!r} (wings: {', '.join(wing_ids)})")
            if wing_ids[wing].side != side:
                raise ScenarioError(f"{lw}.wing: '{wing}' is a {wing_ids[wing].side} wing")
        elif wing is not None:
            raise ScenarioError(f"{lw}.wing: an army commander commands no single wing")
        # placement: a fixed hex, or with a unit (AC: any friendly unit; WC: one of his wing).
        if ("hex" in ld) == ("with_unit" in ld):
            raise ScenarioError(f"{lw}: give exactly one of 'hex' or 'with_unit'")
        hex_id: str | None = None
        with_unit = ""
        if "hex" in ld:
            hex_id = hex_on_map(ld["hex"], lw + ".hex")
            enemy = [u.id for u in units if u.side != side and hex_id in u.hexes]
            if enemy:
                raise ScenarioError(f"{lw}.hex: {hex_id} holds the enemy unit {enemy[0]}")
        else:
            with_unit = _check_type(ld["with_unit"], str, lw + ".with_unit")
            unit = unit_ids.get(with_unit)
            if unit is None:
                raise ScenarioError(f"{lw}.with_unit: no unit '{with_unit}'")
            if unit.side != side:
                raise ScenarioError(f"{lw}.with_unit: '{with_unit}' is an enemy unit")
            if role == "wc" and unit.wing != wing:
                raise ScenarioError(f"{lw}.with_unit: a wing commander starts with a unit of "
                                    f"his wing '{wing}'; '{with_unit}' is in '{unit.wing}'")
        area = free.area_key(ld, lw, side, areas or {})
        start = hex_id or (unit_ids[with_unit].hexes[0] if with_unit else None)
        if area and start not in (areas or {})[area].hexes:
            raise ScenarioError(f"{lw}: his suggested place {start} lies outside his area '{area}'")
        leaders.append(LeaderSetup(lid, side, _need(ld, "name", str, lw), role, value, hex_id,
                                   with_unit, wing if role == "wc" else None, special,
                                   _opt(ld, "replacement", str, lw, ""), rvalue, source, area,
                                   tuple(later)))
    return leaders


def _parse_sides(data, where, leader_ids, edges) -> dict[str, SideSetup]:
    raw = _need(data, "sides", dict, where)
    _keys(raw, set(SIDES), f"{where} sides")
    sides: dict[str, SideSetup] = {}
    for side in SIDES:
        sw = f"{where} sides.{side}"
        sd = _need(raw, side, dict, f"{where} sides")
        _keys(sd, {"name", "army_commander", "senior_wc", "generic_leader_value"}, sw)
        ac = _need(sd, "army_commander", str, sw)
        ld = leader_ids.get(ac)
        if ld is None or ld.role != "ac" or ld.side != side:
            raise ScenarioError(f"{sw}.army_commander: '{ac}' is not the {side} army commander "
                                "(a leader with role \"ac\")")
        senior = _need(sd, "senior_wc", str, sw)
        ld = leader_ids.get(senior)
        if ld is None or ld.role != "wc" or ld.side != side:
            raise ScenarioError(f"{sw}.senior_wc: '{senior}' is not a {side} wing commander")
        generic = _opt(sd, "generic_leader_value", int, sw, 0)
        if generic not in LEADER_VALUES:
            raise ScenarioError(f"{sw}.generic_leader_value: must be 0, -1 or -2, got {generic}")
        sides[side] = SideSetup(_need(sd, "name", str, sw), ac, senior, edges[side], generic)
    return sides


def _parse_orders(data, where, wing_ids) -> dict[str, str]:
    raw = _opt(data, "orders", dict, where, {})
    _keys(raw, {"historical"}, f"{where} orders")
    hist = _opt(raw, "historical", dict, f"{where} orders", {})
    out: dict[str, str] = {}
    for wid, order in hist.items():
        ow = f"{where} orders.historical.{wid}"
        if wid not in wing_ids:
            raise ScenarioError(f"{ow}: no wing '{wid}' (wings: {', '.join(wing_ids)})")
        if order not in ORDERS:
            raise ScenarioError(f"{ow}: '{order}' is not one of {', '.join(ORDERS)}")
        own = wing_ids[wid].historical_order
        if own and own != order:
            raise ScenarioError(f"{ow}: '{order}' contradicts the wing's historical_order "
                                f"'{own}'")
        out[wid] = order
    return out


def _parse_victory(data, where):
    vw = f"{where} victory"
    raw = _opt(data, "victory", dict, where, {})
    _keys(raw, {"bands", "historical_result", "notes"}, vw)
    bands: list[VictoryBand] = []
    for i, b in enumerate(_opt(raw, "bands", list, vw, [])):
        bw = f"{vw}.bands[{i}]"
        _check_type(b, dict, bw)
        _keys(b, {"level", "min", "max"}, bw)
        level = b.get("level")
        if level not in VICTORY_LEVELS:
            raise ScenarioError(f"{bw}.level: must be one of {', '.join(VICTORY_LEVELS)}")
        lo, hi = _opt(b, "min", int, bw, None), _opt(b, "max", int, bw, None)
        if lo is None and hi is None:
            raise ScenarioError(f"{bw}: give min, max or both")
        if lo is not None and hi is not None and lo > hi:
            raise ScenarioError(f"{bw}: min {lo} is above max {hi}")
        bands.append(VictoryBand(level, lo, hi))
    result = _opt(raw, "historical_result", str, vw, "")
    if result and result not in VICTORY_LEVELS:
        raise ScenarioError(f"{vw}.historical_result: must be one of {', '.join(VICTORY_LEVELS)}")
    notes = _opt(raw, "notes", list, vw, [])
    for i, n in enumerate(notes):
        _check_type(n, str, f"{vw}.notes[{i}]")
    return bands, result, list(notes)


def _parse_optional_rules(data, where) -> list[OptionalRule]:
    out: list[OptionalRule] = []
    for i, r in enumerate(_opt(data, "optional_rules", list, where, [])):
        rw = f"{where} optional_rules[{i}]"
        _check_type(r, dict, rw)
        _keys(r, {"id", "name", "text", "side", "kind", "pistols", "fire_modifier"}, rw)
        rid = _ident(r.get("id"), rw + ".id")
        if any(o.id == rid for o in out):
            raise ScenarioError(f"{rw}.id: '{rid}' is used twice")
        side = _opt(r, "side", str, rw, "")
        if side:
            _side(side, rw + ".side")
        kind = _opt(r, "kind", str, rw, "")
        if kind and kind not in UNIT_KINDS:
            raise ScenarioError(f"{rw}.kind: must be one of {', '.join(UNIT_KINDS)}")
        pistols = _opt(r, "pistols", int, rw, None)
        if pistols is not None and (not 0 <= pistols <= 2 or kind != "cavalry"):
            raise ScenarioError(f"{rw}.pistols: 0..2 starting shots, for kind = \"cavalry\"")
        fire = _opt(r, "fire_modifier", int, rw, 0)
        if not -5 <= fire <= 5:
            raise ScenarioError(f"{rw}.fire_modifier: {fire} is not -5..5")
        out.append(OptionalRule(rid, _need(r, "name", str, rw), _opt(r, "text", str, rw, ""),
                                side, kind, pistols, fire))
    return out



def _parse_provenance(data, where) -> dict[str, Any]:
    pw = f"{where} provenance"
    raw = _need(data, "provenance", dict, where)
    _keys(raw, {"from_book", "herald_completion", "note"}, pw)
    out: dict[str, Any] = {}
    for key in ("from_book", "herald_completion"):
        items = _need(raw, key, list, pw)
        for i, s in enumerate(items):
            _check_type(s, str, f"{pw}.{key}[{i}]")
        out[key] = list(items)
    out["note"] = _opt(raw, "note", str, pw, "")
    return out


# The free-setup blocks (areas, pools, deploy rules, special rules, map drawing) read their
# fields with the helpers above, so that module is imported once they exist.
from engine.tacw.scenario import free_setup as free  # noqa: E402
