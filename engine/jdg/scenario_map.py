"""The map of a Jours de Gloire scenario file (`[map]`, engine/jdg/scenario.py reads the rest):
its grid (hex ids CCRR, `orientation`, `shove`), the terrain of each hex as the Terrain Effects
Table names it ([4.1], [7.4], [9.1]; the printed TET is missing, A1; section D 4.3: the Bormida's
flooded hexes are impassable), elevation levels, the hexside features ([0.2], [4.3], [6.2], [7.4],
[10.3]), roads and paths [4.1] and labels; with the checks the other parts share: a hex on the
map (and passable), a facing vertex [6.1] and the map edges a hex touches (reinforcements enter
from them [5.2], routed units make for them [10.4])."""
from __future__ import annotations

from typing import Any

from engine.core.facing import VERTEX_NAMES
from engine.core.hexgrid import HexGrid
from engine.core.scenario_files import close_match

from engine.jdg.scenario import (HEXSIDE_KEYS, HEXSIDE_TYPES, IMPASSABLE_TERRAIN, LABEL_KEYS, MAP_KEYS,
                                 ROAD_KEYS, ROAD_KINDS, TERRAIN, Hexside, MapData, MapLabel, Road, _Reader,
                                 map_grid)


def _hex_checker(r: _Reader, grid: HexGrid, terrain: dict[str, str] | None = None):
    def hex_on_map(value: Any, where: str, path: str, passable: bool = False) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            raise r.fail(where, f"write hex ids as quoted strings, \"{value:04d}\", not {value}",
                         path)
        if not isinstance(value, str) or value not in grid:
            raise r.fail(where, f"{value!r} is not a hex of the {grid.cols}x{grid.rows} map "
                         f"(CCRR, columns 01-{grid.cols:02d}, rows 01-{grid.rows:02d})", path)
        if passable and terrain is not None and terrain.get(value) in IMPASSABLE_TERRAIN:
            raise r.fail(where, f"{value} is {terrain[value]}: impassable (section D 4.3)", path)
        return value
    return hex_on_map


def _facing(r: _Reader, value: Any, orientation: str, where: str, path: str) -> int:
    names = VERTEX_NAMES[orientation]
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= 5:
            return value
        raise r.fail(where, f"{value} is not a vertex 0..5", path)
    if isinstance(value, str) and value.upper() in names:
        return names.index(value.upper())
    raise r.fail(where, f"{value!r} is not a facing vertex ({', '.join(names)} or 0..5)", path)


def _edges_of(m: MapData, hex_id: str) -> set[str]:
    """The map edges a hex touches (by column and row, counted from 01)."""
    c, r = int(hex_id[:2]), int(hex_id[2:])
    out = set()
    if c == 1:
        out.add("west")
    if c == m.cols:
        out.add("east")
    if r == 1:
        out.add("north")
    if r == m.rows:
        out.add("south")
    return out


def _on_edge(m: MapData, hex_id: str) -> bool:
    return bool(_edges_of(m, hex_id))


def _parse_map(r: _Reader, data: dict, where: str) -> MapData:
    m = r.need(data, "map", dict, where, "map")
    w = f"{where} map"
    r.keys(m, MAP_KEYS, w, "map")
    cols = r.int_in(m, "cols", 2, 99, w, "map")
    rows = r.int_in(m, "rows", 2, 99, w, "map")
    orientation = r.one_of(r.opt(m, "orientation", str, w, "map", "flat"), ("flat", "pointy"),
                           f"{w}.orientation", "map.orientation")
    shove = r.one_of(r.opt(m, "shove", str, w, "map", "odd"), ("odd", "even"), f"{w}.shove",
                     "map.shove")
    grid = map_grid(cols, rows, orientation, shove)
    on_map = _hex_checker(r, grid)

    terrain: dict[str, str] = {}
    for name, hexes in r.opt(m, "terrain", dict, w, "map", {}).items():
        path = f"map.terrain.{name}"
        if name not in TERRAIN:
            match = close_match(name, TERRAIN)
            raise r.fail(f"{w}.terrain", f"unknown terrain '{name}' ("
                         + (f"did you mean '{match}'? " if match else "")
                         + f"known: {', '.join(TERRAIN)})", path)
        for h in r.check(hexes, list, f"{w}.terrain.{name}", path):
            on_map(h, f"{w}.terrain.{name}", path)
            if h in terrain:
                raise r.fail(f"{w}.terrain.{name}", f"hex {h} is already {terrain[h]}", path)
            if name != "clear":
                terrain[h] = name

    elevation: dict[str, int] = {}
    for level, hexes in r.opt(m, "elevation", dict, w, "map", {}).items():
        path = f"map.elevation.{level}"
        if not level.isdigit() or not 0 <= int(level) <= 9:
            raise r.fail(f"{w}.elevation", f"level '{level}' is not 0..9", path)
        for h in r.check(hexes, list, f"{w}.elevation.{level}", path):
            on_map(h, f"{w}.elevation.{level}", path)
            if h in elevation:
                raise r.fail(f"{w}.elevation.{level}", f"hex {h} already has level "
                             f"{elevation[h]}", path)
            if int(level):
                elevation[h] = int(level)

    hexsides: dict[frozenset[str], tuple[Hexside, ...]] = {}
    for i, hs in enumerate(r.opt(m, "hexsides", list, w, "map", [])):
        ww, path = f"{w}.hexsides[{i}]", f"map.hexsides[{i}]"
        r.check(hs, dict, ww, path)
        r.keys(hs, HEXSIDE_KEYS, ww, path)
        h = on_map(hs.get("hex"), f"{ww}.hex", path)
        kind = r.one_of(hs.get("type"), HEXSIDE_TYPES, f"{ww}.type", path)
        if ("side" in hs) == ("sides" in hs):
            raise r.fail(ww, "give exactly one of 'side' or 'sides'", path)
        names = [hs["side"]] if "side" in hs else r.check(hs["sides"], list, f"{ww}.sides", path)
        for s in names:
            try:
                d = grid.side_index(str(s))
            except ValueError:
                raise r.fail(ww, f"'{s}' is not a hexside of a {orientation}-top hex "
                             f"({', '.join(grid.side_name(k) for k in range(6))})", path) from None
            other = grid.neighbor(h, d)
            if other is None:
                raise r.fail(ww, f"side {s} of {h} is on the map edge", path)
            key = frozenset((h, other))
            feature = Hexside(h, grid.side_name(d), other, kind, r.opt(hs, "name", str, ww, path, ""))
            if any(f.type == kind for f in hexsides.get(key, ())):
                raise r.fail(ww, f"the side {h}-{other} already has a {kind}", path)
            hexsides[key] = hexsides.get(key, ()) + (feature,)

    roads = []
    for i, rd in enumerate(r.opt(m, "roads", list, w, "map", [])):
        ww, path = f"{w}.roads[{i}]", f"map.roads[{i}]"
        r.check(rd, dict, ww, path)
        r.keys(rd, ROAD_KEYS, ww, path)
        hexes = [on_map(h, f"{ww}.hexes", path) for h in r.need(rd, "hexes", list, ww, path)]
        if len(hexes) < 2:
            raise r.fail(ww, "a road needs at least two hexes", path)
        for a, b in zip(hexes, hexes[1:]):
            if not grid.adjacent(a, b):
                raise r.fail(ww, f"{a} and {b} are not adjacent (a road runs hex to hex)", path)
        kind = r.one_of(r.opt(rd, "kind", str, ww, path, "road"), ROAD_KINDS, f"{ww}.kind", path)
        roads.append(Road(r.need(rd, "name", str, ww, path), tuple(hexes), kind))

    labels = []
    for i, lb in enumerate(r.opt(m, "labels", list, w, "map", [])):
        ww, path = f"{w}.labels[{i}]", f"map.labels[{i}]"
        r.check(lb, dict, ww, path)
        r.keys(lb, LABEL_KEYS, ww, path)
        labels.append(MapLabel(on_map(lb.get("hex"), f"{ww}.hex", path),
                               r.need(lb, "text", str, ww, path)))
    return MapData(cols, rows, orientation, shove, terrain, elevation, hexsides, tuple(roads),
                   tuple(labels))
