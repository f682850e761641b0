"""Reading the free-setup parts of a TACW scenario file (schema in `scenario/schema.py`): the
[[deployment_areas]], each unit's and leader's `area`, `near`, `deploy_rule`, the cavalry pools
(`brigade`, `wing_choices`), the [[special_rules]] and the map's drawn-only labels and roads.
Split from `scenario/parse.py`, whose field readers it uses; every message names the entry."""
from __future__ import annotations

from typing import Any

from engine.tacw.scenario.schema import (DEPLOY_RULES, IMPASSABLE, SPECIAL_RULE_KINDS, SPECIAL_RULE_PARAMS,
                       DeploymentArea, MapLabel, Road, ScenarioError, SpecialRule, UnitSetup)
from engine.tacw.scenario.parse import _check_type, _ident, _keys, _need, _opt, _side


def parse_map_drawing(data, where, hex_on_map) -> tuple[list[MapLabel], list[Road]]:
    """[map] labels (place names) and roads: drawn on the board, no effect on play."""
    mw = f"{where} map"
    m = data.get("map", {})
    labels: list[MapLabel] = []
    for i, lb in enumerate(_opt(m, "labels", list, mw, [])):
        lw = f"{mw}.labels[{i}]"
        _check_type(lb, dict, lw)
        _keys(lb, {"hex", "text"}, lw)
        labels.append(MapLabel(hex_on_map(lb.get("hex"), lw + ".hex"), _need(lb, "text", str, lw)))
    roads: list[Road] = []
    for i, rd in enumerate(_opt(m, "roads", list, mw, [])):
        rw = f"{mw}.roads[{i}]"
        _check_type(rd, dict, rw)
        _keys(rd, {"name", "hexes"}, rw)
        hexes = [hex_on_map(h, rw + ".hexes") for h in _need(rd, "hexes", list, rw)]
        if len(hexes) < 2:
            raise ScenarioError(f"{rw}.hexes: a road needs at least two hexes")
        roads.append(Road(_need(rd, "name", str, rw), tuple(hexes)))
    return labels, roads


def read_near(value: Any, where: str, hex_on_map) -> tuple[str, int]:
    """`near = { hex = "1408", distance = 2 }`: within `distance` hexes of `hex`."""
    _check_type(value, dict, where)
    _keys(value, {"hex", "distance"}, where)
    dist = _need(value, "distance", int, where)
    if not 0 <= dist <= 30:
        raise ScenarioError(f"{where}.distance: {dist} is not 0..30")
    return hex_on_map(value.get("hex"), where + ".hex"), dist


def parse_areas(data, where, grid, hex_on_map, terrain) -> dict[str, DeploymentArea]:
    """[[deployment_areas]]: the legal hexes are `hexes` intersected with `near` (either may be
    left out, not both); impassable hexes (§5.7 river) are dropped, as no unit may stand there."""
    areas: dict[str, DeploymentArea] = {}
    for i, a in enumerate(_opt(data, "deployment_areas", list, where, [])):
        aw = f"{where} deployment_areas[{i}]"
        _check_type(a, dict, aw)
        _keys(a, {"id", "side", "text", "hexes", "near", "wing"}, aw)
        aid = _ident(a.get("id"), aw + ".id")
        aw = f"{where} deployment_areas[{i}] ({aid})"
        if aid in areas:
            raise ScenarioError(f"{aw}.id: '{aid}' is used twice")
        side = _side(a.get("side"), aw + ".side")
        if "hexes" not in a and "near" not in a:
            raise ScenarioError(f"{aw}: give 'hexes', 'near' or both")
        legal = set(grid)
        if "hexes" in a:
            listed = [hex_on_map(h, aw + ".hexes") for h in _check_type(a["hexes"], list,
                                                                         aw + ".hexes")]
            dup = sorted({h for h in listed if listed.count(h) > 1})
            if dup:
                raise ScenarioError(f"{aw}.hexes: {', '.join(dup)} listed twice")
            legal &= set(listed)
        near = read_near(a["near"], aw + ".near", hex_on_map) if "near" in a else None
        if near:
            legal = {h for h in legal if grid.distance(h, near[0]) <= near[1]}
        legal = {h for h in legal if terrain.get(h) not in IMPASSABLE}
        if not legal:
            raise ScenarioError(f"{aw}: the area has no hex a unit may stand in")
        wing = _opt(a, "wing", str, aw, "")
        areas[aid] = DeploymentArea(aid, side, _opt(a, "text", str, aw, ""), frozenset(legal),
                                    near, wing)
    return areas


def deploy_rule(value: Any, where: str) -> str:
    rule = _check_type(value, str, where)
    name, _, arg = rule.partition(":")
    if name not in DEPLOY_RULES or bool(arg) != (name == "in_command_of"):
        raise ScenarioError(f"{where}: {rule!r} is not a deploy rule (stacked_or_adjacent_any, "
                            "stacked_or_adjacent_infantry, in_command_of:<unit id>, in_command)")
    return rule


def check_free_setup_units(units: list[UnitSetup], where: str, wing_ids, areas) -> None:
    """Each unit's `in_command_of` names a friendly unit; a brigade's units share side, wing
    choices and suggested wing (§ the book's cavalry pools: a brigade goes to one wing)."""
    by_id = {u.id: u for u in units}
    brigades: dict[str, UnitSetup] = {}
    for u in units:
        uw = f"{where} units ({u.id})"
        if u.deploy_rule.startswith("in_command_of:"):
            target = u.deploy_rule.split(":", 1)[1]
            other = by_id.get(target)
            if other is None or other.side != u.side or other.id == u.id:
                raise ScenarioError(f"{uw}.deploy_rule: '{target}' is not another {u.side} unit")
        if not u.wing_choices:
            continue
        key = u.brigade or u.id
        if key in by_id and key != u.id:
            raise ScenarioError(f"{uw}.brigade: '{key}' is also a unit id")
        first = brigades.setdefault(key, u)
        if first is not u and (first.side, first.wing, set(first.wing_choices)) != (
                u.side, u.wing, set(u.wing_choices)):
            raise ScenarioError(f"{uw}: every unit of brigade '{key}' needs the same side, "
                                f"suggested wing and wing_choices as {first.id} (a brigade goes "
                                "to one wing as a whole)")


def area_key(d: dict, where: str, side: str, areas) -> str:
    if "area" not in d:
        return ""
    aid = _check_type(d["area"], str, where + ".area")
    area = areas.get(aid)
    if area is None:
        raise ScenarioError(f"{where}.area: no deployment area {aid!r} "
                            f"(areas: {', '.join(areas) or 'none'})")
    if area.side != side:
        raise ScenarioError(f"{where}.area: '{aid}' is a {area.side} deployment area")
    return aid


def free_setup_keys(u, uw, side, wing_id, hexes, grid, hex_on_map, wing_ids, areas):
    """A unit's free-setup keys: area (its hexes must lie inside), near, deploy_rule, brigade,
    wing_choices (the suggested `wing` among them)."""
    area = area_key(u, uw, side, areas)
    near = read_near(u["near"], uw + ".near", hex_on_map) if "near" in u else None
    if area or near:            # a `near` alone is the unit's area; with an area it narrows it
        legal = areas[area].hexes if area else set(grid)
        if near:
            legal = {h for h in legal if grid.distance(h, near[0]) <= near[1]}
        outside = [h for h in hexes if h not in legal]
        if outside:
            where = f"its area '{area}'" if area else "its own area"
            raise ScenarioError(f"{uw}.hexes: {', '.join(outside)} lies outside {where}"
                                + (f" (within {near[1]} of {near[0]})" if near else ""))
    rule = deploy_rule(u["deploy_rule"], uw + ".deploy_rule") if "deploy_rule" in u else ""
    brigade = _ident(u["brigade"], uw + ".brigade") if "brigade" in u else ""
    choices: tuple[str, ...] = ()
    if "wing_choices" in u:
        raw = _check_type(u["wing_choices"], list, uw + ".wing_choices")
        for w in raw:
            if w not in wing_ids or wing_ids[w].side != side:
                raise ScenarioError(f"{uw}.wing_choices: {w!r} is not a {side} wing "
                                    f"(wings: {', '.join(wing_ids)})")
        if len(set(raw)) < 2:
            raise ScenarioError(f"{uw}.wing_choices: give at least two different wings")
        if wing_id not in raw:
            raise ScenarioError(f"{uw}.wing: the suggested wing '{wing_id}' is not among its "
                                f"wing_choices ({', '.join(raw)})")
        choices = tuple(raw)
    elif brigade:
        raise ScenarioError(f"{uw}.brigade: a brigade is a cavalry pool; give its wing_choices")
    return area, near, rule, brigade, choices


def parse_special_rules(data, where) -> list[SpecialRule]:
    """[[special_rules]]: the book's special rules; `kind` names the engine hook that plays one
    ("halt": First Newbury rule 1, `turns` long); without a kind the rule is descriptive."""
    out: list[SpecialRule] = []
    for i, r in enumerate(_opt(data, "special_rules", list, where, [])):
        rw = f"{where} special_rules[{i}]"
        _check_type(r, dict, rw)
        _keys(r, {"id", "name", "text", "kind", "turns"}
              | set(SPECIAL_RULE_PARAMS.get(r.get("kind"), ())), rw)   # Second Newbury's keys
        rid = _ident(r.get("id"), rw + ".id")
        rw = f"{where} special_rules[{i}] ({rid})"
        if any(o.id == rid for o in out):
            raise ScenarioError(f"{rw}.id: '{rid}' is used twice")
        kind = _opt(r, "kind", str, rw, "")
        if kind not in SPECIAL_RULE_KINDS:
            raise ScenarioError(f"{rw}.kind: must be one of "
                                f"{', '.join(k for k in SPECIAL_RULE_KINDS if k)} (or left out)")
        if kind and any(o.kind == kind for o in out):
            raise ScenarioError(f"{rw}.kind: a scenario has one '{kind}' rule")
        turns = _opt(r, "turns", int, rw, 0)
        if kind == "halt" and not 1 <= turns <= 20:
            raise ScenarioError(f"{rw}.turns: a halt lasts 1..20 turns, got {turns}")
        if kind != "halt" and "turns" in r:
            raise ScenarioError(f"{rw}.turns: only a 'halt' rule has a length in turns")
        out.append(SpecialRule(rid, _need(r, "name", str, rw), _opt(r, "text", str, rw, ""),
                               kind, turns, {k: r[k] for k in SPECIAL_RULE_PARAMS.get(kind, ())
                                             if k in r}))
    return out

