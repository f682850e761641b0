"""The rules of play a Jours de Gloire scenario file sets (engine/jdg/scenario.py reads the rest):
its turn track, start time and night turns [12], the map edge each side's routed units make for
[10.4], victory ([13]: the victory hexes and points, automatic victories) and the special
markers (Marengo section D 2.1: the "Zach" IA, the IACs "Grande charge" and "Marmont")."""
from __future__ import annotations

import re

from engine.jdg.scenario import (AUTO_KEYS, AUTO_KINDS, EDGES, EXIT_KEYS, IAC_ACTIVATES, MARKER_KEYS,
                                 MARKER_KINDS, SIDES, TURN_KEYS, VHEX_KEYS, VICTORY_KEYS, AutoVictory,
                                 CommanderSetup, FormationSetup, MapData, RoutExit, Scale, SpecialMarker,
                                 TurnTrack, Victory, VictoryHex, _Reader)
from engine.jdg.scenario_map import _edges_of, _hex_checker


_TIME_RE = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def _parse_turns(r: _Reader, data: dict, where: str, scale: Scale) -> TurnTrack:
    t = r.need(data, "turns", dict, where, "turns")
    ww = f"{where} turns"
    r.keys(t, TURN_KEYS, ww, "turns")
    count = r.int_in(t, "count", 1, 40, ww, "turns")
    start = r.need(t, "start", str, ww, "turns")
    if not _TIME_RE.match(start):
        raise r.fail(f"{ww}.start", f"{start!r} is not a time HH:MM", "turns.start")
    night = r.opt(t, "night", list, ww, "turns", [])
    for n in night:
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= count:
            raise r.fail(f"{ww}.night", f"{n!r} is not a turn 1..{count}", "turns.night")
    return TurnTrack(count, start, tuple(sorted(set(night))), scale.minutes_per_turn,
                     r.opt(t, "note", str, ww, "turns", ""))


def _parse_exits(r: _Reader, data: dict, where: str, m: MapData) -> dict[str, RoutExit]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    ex = r.need(data, "rout_exits", dict, where, "rout_exits")
    r.keys(ex, set(SIDES), f"{where} rout_exits", "rout_exits")
    out = {}
    for side in SIDES:
        path = f"rout_exits.{side}"
        e = r.need(ex, side, dict, f"{where} rout_exits", "rout_exits")
        ww = f"{where} rout_exits.{side}"
        r.keys(e, EXIT_KEYS, ww, path)
        edge = r.one_of(e.get("edge"), EDGES, f"{ww}.edge", path)
        hexes = tuple(on_map(h, f"{ww}.hexes", path) for h in r.opt(e, "hexes", list, ww, path, []))
        for h in hexes:
            if edge not in _edges_of(m, h):
                raise r.fail(f"{ww}.hexes", f"{h} is not on the {edge} edge", path)
        out[side] = RoutExit(side, edge, hexes, r.opt(e, "note", str, ww, path, ""))
    return out


def _parse_victory(r: _Reader, data: dict, where: str, m: MapData, turns: TurnTrack) -> Victory:
    on_map = _hex_checker(r, m.grid, m.terrain)
    v = r.need(data, "victory", dict, where, "victory")
    ww = f"{where} victory"
    r.keys(v, VICTORY_KEYS, ww, "victory")
    vhexes = []
    seen = set()
    for i, h in enumerate(r.opt(v, "hexes", list, ww, "victory", [])):
        path, hw = f"victory.hexes[{i}]", f"{ww}.hexes[{i}]"
        r.check(h, dict, hw, path)
        r.keys(h, VHEX_KEYS, hw, path)
        hx = on_map(h.get("hex"), f"{hw}.hex", path, passable=True)
        if hx in seen:
            raise r.fail(hw, f"hex {hx} is listed twice", path)
        seen.add(hx)
        vhexes.append(VictoryHex(hx, r.need(h, "name", str, hw, path),
                                 r.int_in(h, "vp", 1, 20, hw, path),
                                 r.one_of(h.get("holder"), SIDES, f"{hw}.holder", path)))
    autos = []
    for i, a in enumerate(r.opt(v, "automatic", list, ww, "victory", [])):
        path, aw = f"victory.automatic[{i}]", f"{ww}.automatic[{i}]"
        r.check(a, dict, aw, path)
        r.keys(a, AUTO_KEYS, aw, path)
        kind = r.one_of(a.get("kind"), AUTO_KINDS, f"{aw}.kind", path)
        hexes = tuple(on_map(h, f"{aw}.hexes", path, passable=True)
                      for h in r.opt(a, "hexes", list, aw, path, []))
        if kind == "occupy" and not hexes:
            raise r.fail(aw, "an 'occupy' victory needs hexes", path)
        count = r.int_in(a, "count", 0, 200, aw, path, 0)
        if kind == "losses" and count < 1:
            raise r.fail(aw, "a 'losses' victory needs count >= 1", path)
        from_turn = r.int_in(a, "from_turn", 1, turns.count, aw, path, 1)
        to_turn = r.int_in(a, "to_turn", 0, turns.count, aw, path, 0)
        if to_turn and to_turn < from_turn:
            raise r.fail(aw, f"to_turn {to_turn} is before from_turn {from_turn}", path)
        autos.append(AutoVictory(
            r.ident(a.get("id"), f"{aw}.id", path), r.one_of(a.get("side"), SIDES, f"{aw}.side", path),
            kind, r.need(a, "text", str, aw, path), hexes,
            r.one_of(r.opt(a, "mode", str, aw, path, "any"), ("any", "all"), f"{aw}.mode", path),
            count, from_turn, to_turn))
    notes = r.opt(v, "notes", list, ww, "victory", [])
    return Victory(tuple(vhexes), r.int_in(v, "unit_eliminated_vp", 0, 20, ww, "victory"),
                   r.int_in(v, "unit_routed_vp", 0, 20, ww, "victory"),
                   r.int_in(v, "commander_vp", 0, 50, ww, "victory"), tuple(autos),
                   r.opt(v, "historical_result", str, ww, "victory", ""),
                   tuple(str(n) for n in notes))


def _parse_markers(r: _Reader, data: dict, where: str, formations: dict[str, FormationSetup],
                   commanders: tuple[CommanderSetup, ...], turns: TurnTrack) -> tuple[SpecialMarker, ...]:
    out: dict[str, SpecialMarker] = {}
    for i, mk, ww, path in r.entries(data, "markers", where, MARKER_KEYS, required=False):
        mid = r.ident(mk.get("id"), f"{ww}.id", path)
        ww = f"{where} markers ({mid})"
        if mid in out or mid in formations:
            raise r.fail(f"{ww}.id", f"'{mid}' is used twice (markers and formations share ids)",
                         path)
        side = r.one_of(mk.get("side"), SIDES, f"{ww}.side", path)
        kind = r.one_of(mk.get("kind"), MARKER_KINDS, f"{ww}.kind", path)
        activates = r.opt(mk, "activates", str, ww, path, "")
        removes = tuple(r.opt(mk, "removes_formations", list, ww, path, []))
        trigger = r.opt(mk, "trigger", str, ww, path, "")
        if kind == "iac":
            r.one_of(activates, IAC_ACTIVATES, f"{ww}.activates", path)
            initiative = r.int_in(mk, "initiative", 0, 9, ww, path)
            max_act = r.int_in(mk, "max_activations", 1, 3, ww, path, 3)
        else:
            if activates:
                raise r.fail(f"{ww}.activates", "only an IAC activates units", path)
            initiative = r.int_in(mk, "initiative", 0, 9, ww, path, 0)
            max_act = 0
        for fid in removes:
            if fid not in formations or formations[fid].side != side:
                raise r.fail(f"{ww}.removes_formations", f"no {side} formation {fid!r}", path)
        if trigger:
            kind_t, _, who = trigger.partition(":")
            if kind_t != "after_leaves" or not any(c.id == who and c.side == side
                                                    for c in commanders):
                raise r.fail(f"{ww}.trigger", f"{trigger!r}: expected 'after_leaves:<{side} "
                             "commander-in-chief id>'", path)
            leaves = next(c for c in commanders if c.id == who).leaves_turn
            if not leaves:
                raise r.fail(f"{ww}.trigger", f"'{who}' never leaves (no leaves_turn)", path)
            if leaves >= turns.count:
                raise r.fail(f"{ww}.trigger", f"'{who}' leaves on the last turn ({leaves}): no "
                             "turn after it for the marker", path)
        out[mid] = SpecialMarker(mid, side, kind, r.need(mk, "name", str, ww, path),
                                 r.int_in(mk, "uses", 1, 9, ww, path), r.need(mk, "text", str, ww, path),
                                 initiative, activates, max_act, removes, trigger)
    return tuple(out.values())
