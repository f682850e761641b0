"""The order of battle of a Jours de Gloire scenario file (engine/jdg/scenario.py reads the rest):
the formations and their IAs [2.1], [2.4], the units ([0.3]: arm, subtype, strength, cohesion and
engagement with their disordered sides [10.1], artillery's firepower and ranges [7.3] and no
engagement [8.9], Marengo's immobile batteries with six frontal hexes, section D), the
commanders-in-chief and their successors [2.5], the reinforcements [5.2] and the stacking of the
units set up on the map ([5.1], [6.1]; section D 5.1: three French cavalry a hex)."""
from __future__ import annotations

from engine.core.scenario_files import close_match

from engine.jdg.scenario import (ARMS, COMMANDER_KEYS, FORMATION_KEYS, REINFORCEMENT_KEYS, SIDES, SUBTYPES,
                                 SUCCESSOR_KEYS, UNIT_KEYS, CommanderSetup, FormationSetup, MapData,
                                 Reinforcement, Successor, TurnTrack, UnitSetup, _Reader)
from engine.jdg.scenario_map import _facing, _hex_checker, _on_edge


def _parse_formations(r: _Reader, data: dict, where: str) -> tuple[FormationSetup, ...]:
    out: dict[str, FormationSetup] = {}
    for i, f, ww, path in r.entries(data, "formations", where, FORMATION_KEYS):
        fid = r.ident(f.get("id"), f"{ww}.id", path)
        ww = f"{where} formations ({fid})"
        if fid in out:
            raise r.fail(f"{ww}.id", f"'{fid}' is used twice", path)
        out[fid] = FormationSetup(
            fid, r.one_of(f.get("side"), SIDES, f"{ww}.side", path),
            r.need(f, "name", str, ww, path), r.need(f, "commander", str, ww, path),
            r.int_in(f, "initiative", 0, 9, ww, path), r.need(f, "colour", str, ww, path),
            r.int_in(f, "markers", 1, 3, ww, path, 2), r.opt(f, "note", str, ww, path, ""))
    return tuple(out.values())


def _parse_units(r: _Reader, data: dict, where: str, m: MapData,
                 formations: dict[str, FormationSetup]) -> tuple[UnitSetup, ...]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    out: dict[str, UnitSetup] = {}
    for i, u, ww, path in r.entries(data, "units", where, UNIT_KEYS):
        uid = r.ident(u.get("id"), f"{ww}.id", path)
        ww = f"{where} units ({uid})"
        if uid in out:
            raise r.fail(f"{ww}.id", f"'{uid}' is used twice", path)
        side = r.one_of(u.get("side"), SIDES, f"{ww}.side", path)
        fid = u.get("formation")
        if fid not in formations:
            match = close_match(str(fid), formations)
            raise r.fail(f"{ww}.formation", f"no formation {fid!r}"
                         + (f" (did you mean '{match}'?)" if match else ""), path)
        if formations[fid].side != side:
            raise r.fail(f"{ww}.formation", f"'{fid}' is a {formations[fid].side} formation", path)
        arm = r.one_of(u.get("arm"), ARMS, f"{ww}.arm", path)
        subtype = r.one_of(u.get("subtype"), SUBTYPES[arm], f"{ww}.subtype", path)
        artillery = arm == "artillery"
        strength = r.int_in(u, "strength", 1, 6 if artillery else 20, ww, path)
        cohesion = r.int_in(u, "cohesion", 1, 9, ww, path)
        cohesion_back = r.int_in(u, "cohesion_back", 0, cohesion, ww, path)
        engagement = r.int_in(u, "engagement", 0, 0 if artillery else 9, ww, path,
                              0 if artillery else None)
        if not artillery and engagement < 1:
            raise r.fail(f"{ww}.engagement", "infantry and cavalry need 1..9", path)
        immobile = r.opt(u, "immobile", bool, ww, path, False)
        mp = r.int_in(u, "mp", 0, 0, ww, path) if immobile else r.int_in(u, "mp", 1, 12, ww, path)
        mp_back = r.int_in(u, "mp_back", 0, mp, ww, path)
        if artillery:
            firepower = r.int_in(u, "firepower", 1, 9, ww, path)
            max_range = r.int_in(u, "max_range", 1, 15, ww, path)
            effective = r.int_in(u, "effective_range", 1, max_range, ww, path)
        else:
            for k in ("firepower", "effective_range", "max_range"):
                if k in u:
                    raise r.fail(f"{ww}.{k}", "only artillery has firepower and ranges [7.3]",
                                 f"{path}.{k}")
            firepower = effective = max_range = 0
        six = r.opt(u, "six_fronts", bool, ww, path, False)
        if six and not immobile:
            raise r.fail(f"{ww}.six_fronts", "only an immobile battery has six frontal hexes "
                         "by itself (section D)", path)
        hex_id = u.get("hex")
        if hex_id is not None:
            hex_id = on_map(hex_id, f"{ww}.hex", path, passable=True)
        elif immobile:
            raise r.fail(ww, "an immobile unit must start on the map", path)
        out[uid] = UnitSetup(
            uid, r.need(u, "name", str, ww, path), side, fid, arm, subtype, strength, cohesion,
            cohesion_back, engagement, mp, mp_back, hex_id,
            _facing(r, u.get("facing"), m.orientation, f"{ww}.facing", path), firepower,
            effective, max_range, immobile, six, r.int_in(u, "vp", 0, 9, ww, path, 1),
            r.opt(u, "note", str, ww, path, ""))
    return tuple(out.values())


def _parse_commanders(r: _Reader, data: dict, where: str, m: MapData) -> tuple[CommanderSetup, ...]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    out = []
    for i, c, ww, path in r.entries(data, "commanders", where, COMMANDER_KEYS):
        cid = r.ident(c.get("id"), f"{ww}.id", path)
        ww = f"{where} commanders ({cid})"
        succ = None
        if "successor" in c:
            s = r.check(c["successor"], dict, f"{ww}.successor", f"{path}.successor")
            r.keys(s, SUCCESSOR_KEYS, f"{ww}.successor", f"{path}.successor")
            sw = f"{ww}.successor"
            succ = Successor(r.need(s, "name", str, sw, path), r.int_in(s, "modifier", 0, 5, sw, path),
                             r.int_in(s, "order_potential", 1, 9, sw, path),
                             r.int_in(s, "command_radius", 1, 40, sw, path))
        out.append(CommanderSetup(
            cid, r.one_of(c.get("side"), SIDES, f"{ww}.side", path), r.need(c, "name", str, ww, path),
            r.int_in(c, "modifier", 0, 5, ww, path), r.int_in(c, "order_potential", 1, 9, ww, path),
            r.int_in(c, "command_radius", 1, 40, ww, path),
            on_map(c.get("hex"), f"{ww}.hex", path, passable=True),
            r.int_in(c, "leaves_turn", 0, 99, ww, path, 0), succ, r.opt(c, "note", str, ww, path, "")))
    for side in SIDES:
        n = sum(c.side == side for c in out)
        if n != 1:
            raise r.fail(f"{where} commanders", f"{side} needs exactly one commander-in-chief "
                         f"[2.5], has {n}", "commanders")
    if len({c.id for c in out}) != len(out):
        raise r.fail(f"{where} commanders", "an id is used twice", "commanders")
    return tuple(out)


def _parse_reinforcements(r: _Reader, data: dict, where: str, m: MapData, turns: TurnTrack,
                          formations: dict[str, FormationSetup],
                          units: dict[str, UnitSetup]) -> tuple[Reinforcement, ...]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    out: list[Reinforcement] = []
    placed: dict[str, str] = {}
    for i, rf, ww, path in r.entries(data, "reinforcements", where, REINFORCEMENT_KEYS, required=False):
        rid = r.ident(rf.get("id"), f"{ww}.id", path)
        ww = f"{where} reinforcements ({rid})"
        side = r.one_of(rf.get("side"), SIDES, f"{ww}.side", path)
        fid = r.one_of(rf.get("formation"), list(formations), f"{ww}.formation", path)
        if formations[fid].side != side:
            raise r.fail(f"{ww}.formation", f"'{fid}' is a {formations[fid].side} formation", path)
        turn = r.int_in(rf, "turn", 1, turns.count, ww, path)
        entries = tuple(on_map(h, f"{ww}.entry_hexes", path, passable=True)
                        for h in r.need(rf, "entry_hexes", list, ww, path))
        if not entries:
            raise r.fail(f"{ww}.entry_hexes", "at least one entry hex [5.2]", path)
        for h in entries:
            if not _on_edge(m, h):
                raise r.fail(f"{ww}.entry_hexes", f"{h} is not on a map edge (reinforcements "
                             "enter from off the map [5.2])", path)
        ids = tuple(r.need(rf, "units", list, ww, path))
        if not ids:
            raise r.fail(f"{ww}.units", "no units", path)
        for uid in ids:
            u = units.get(uid)
            if u is None:
                raise r.fail(f"{ww}.units", f"no unit {uid!r}", path)
            if u.formation != fid:
                raise r.fail(f"{ww}.units", f"'{uid}' is of formation '{u.formation}', not "
                             f"'{fid}'", path)
            if u.hex is not None:
                raise r.fail(f"{ww}.units", f"'{uid}' already starts on the map in {u.hex}", path)
            if uid in placed:
                raise r.fail(f"{ww}.units", f"'{uid}' already arrives with '{placed[uid]}'", path)
            placed[uid] = rid
        arrival = r.one_of(r.opt(rf, "arrival", str, ww, path, "marker"), ("marker",),
                           f"{ww}.arrival", path)
        out.append(Reinforcement(rid, side, fid, turn, entries, ids, arrival,
                                 r.opt(rf, "note", str, ww, path, "")))
    for u in units.values():
        if u.hex is None and u.id not in placed:
            raise r.fail(f"{where} units ({u.id})", "no hex and in no reinforcement", "units")
    return tuple(out)


def _check_stacking(r: _Reader, units: tuple[UnitSetup, ...], where: str) -> None:
    """[5.1] at the start: 2 of one arm and formation; 1 artillery + 1-2 infantry; 2 artillery;
    Marengo (section D 5.1): 3 French cavalry. One facing per hex but artillery with infantry."""
    by_hex: dict[str, list[UnitSetup]] = {}
    for u in units:
        if u.hex is not None:
            by_hex.setdefault(u.hex, []).append(u)
    for h, us in by_hex.items():
        if len(us) == 1:
            continue
        arms = [u.arm for u in us]
        art, inf, cav = arms.count("artillery"), arms.count("infantry"), arms.count("cavalry")
        ok = False
        if cav == len(us) and len({u.formation for u in us}) == 1:
            ok = len(us) <= (3 if us[0].side == "french" else 2)
        elif inf == len(us) and len({u.formation for u in us}) == 1:
            ok = len(us) <= 2
        elif art == len(us):
            ok = len(us) <= 2
        elif art == 1 and inf == len(us) - 1:
            ok = inf <= 2 and len({u.formation for u in us if u.arm == "infantry"}) == 1
        if not ok:
            raise r.fail(f"{where} units", f"hex {h}: {', '.join(u.id for u in us)} may not "
                         "stack [5.1]", "units")
        if len({u.side for u in us}) > 1:
            raise r.fail(f"{where} units", f"hex {h}: both sides", "units")
        facings = {u.facing for u in us if u.arm != "artillery"}
        if len(facings) > 1:
            raise r.fail(f"{where} units", f"hex {h}: units stacked need one facing [6.1]",
                         "units")
