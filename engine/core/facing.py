"""Facing to a hex vertex, for rulesets whose units face a vertex (TACW §6.1, Musket & Pike).

A unit faces one of the six vertices of its hex, numbered 0..5 clockwise: vertex k lies between
hexside k-1 and hexside k of `HexGrid` (on a flat-top GMT map vertex 0 points East, 3 West; on a
pointy-top map vertex 0 points North-East... see `vertex_angle`). A one-hex unit then has two
front, two flank and two rear hexes. A two-hex ("double") unit stands with its halves side by side
across its facing: three front, two flank and three rear hexes, the middle front hex touching both
halves ("central front hex", TACW §10.1.3).

Hexes are classified by the bearing from the unit's centre (the midpoint of a double unit) to the
neighbour's centre, measured from the facing direction: under 60 degrees front, 60 to 120 flank,
over 120 rear. For a one-hex unit the bearings are exactly 30, 90 and 150 degrees.
"""
from __future__ import annotations

import math

from .hexgrid import HexGrid

VERTEX_NAMES = {
    "flat": ("E", "SE", "SW", "W", "NW", "NE"),
    "pointy": ("NE", "SE", "S", "SW", "NW", "N"),
}


def vertex_angle(grid: HexGrid, vertex: int) -> float:
    """Screen angle in degrees (0 = east, clockwise, y down) of vertex `vertex`."""
    base = 0.0 if grid.orientation == "flat" else -30.0
    return (base + 60.0 * (vertex % 6)) % 360.0


def vertex_name(grid: HexGrid, vertex: int) -> str:
    return VERTEX_NAMES[grid.orientation][vertex % 6]


def vertex_index(grid: HexGrid, name: str) -> int:
    return VERTEX_NAMES[grid.orientation].index(name.upper())


def _centre(grid: HexGrid, hexes: list[str]) -> tuple[float, float]:
    pts = [grid.center(h) for h in hexes]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def relative_bearing(grid: HexGrid, hexes: list[str], facing: int, other: str) -> float:
    """Degrees (0..180) between the unit's facing and the direction to `other`. A pure function
    of the fixed map, kept in `grid.memo` (issue 13: the rules ask it ~200 times a command)."""
    key = ("bearing", tuple(hexes), facing, other)
    got = grid.memo.get(key)
    if got is None:
        got = _remember(grid, key, _bearing(grid, hexes, facing, other))
    return got


MEMO_LIMIT = 100_000      # entries a map keeps (about 15 MB); past it the memo starts again


def _remember(grid: HexGrid, key: tuple, value):
    if len(grid.memo) >= MEMO_LIMIT:
        grid.memo.clear()
    grid.memo[key] = value
    return value


def _bearing(grid: HexGrid, hexes: list[str], facing: int, other: str) -> float:
    cx, cy = _centre(grid, hexes)
    ox, oy = grid.center(other)
    ang = math.degrees(math.atan2(oy - cy, ox - cx)) % 360.0
    diff = abs(ang - vertex_angle(grid, facing)) % 360.0
    return 360.0 - diff if diff > 180.0 else diff


def adjacent_hexes(grid: HexGrid, hexes: list[str]) -> list[str]:
    """On-map hexes next to any part of the unit, not part of it."""
    out: list[str] = []
    for h in hexes:
        for n in grid.neighbors(h):
            if n not in hexes and n not in out:
                out.append(n)
    return out


def arc_of(grid: HexGrid, hexes: list[str], facing: int, other: str) -> str:
    """'front', 'flank' or 'rear': where an adjacent hex lies for this unit (TACW §6.1)."""
    b = relative_bearing(grid, hexes, facing, other)
    if b < 60.0 - 1e-6:
        return "front"
    if b <= 120.0 + 1e-6:
        return "flank"
    return "rear"


def arcs(grid: HexGrid, hexes: list[str], facing: int) -> dict[str, list[str]]:
    """The unit's adjacent hexes by arc (kept in `grid.memo`; the caller gets its own lists)."""
    key = ("arcs", tuple(hexes), facing)
    got = grid.memo.get(key)
    if got is None:
        out: dict[str, list[str]] = {"front": [], "flank": [], "rear": []}
        for n in adjacent_hexes(grid, hexes):
            out[arc_of(grid, hexes, facing, n)].append(n)
        got = _remember(grid, key, {k: tuple(v) for k, v in out.items()})
    return {k: list(v) for k, v in got.items()}


def central_front_hex(grid: HexGrid, hexes: list[str], facing: int) -> str | None:
    """The front hex touching both halves of a double unit (TACW §10.1.3), or for a one-hex
    unit None (it has two front hexes and no centre)."""
    if len(hexes) != 2:
        return None
    for n in arcs(grid, hexes, facing)["front"]:
        if all(grid.adjacent(n, h) for h in hexes):
            return n
    return None


def double_facings(grid: HexGrid, a: str, b: str) -> tuple[int, int]:
    """The two vertices a double unit on hexes a, b may face: across its line, never along it.
    Vertex k lies between sides k-1 and k; for the axis along side d these are d-1 and d+2."""
    d = grid.direction(a, b)
    if d is None:
        raise ValueError(f"{a} and {b} are not adjacent")
    return ((d - 1) % 6, (d + 2) % 6)


def in_arc_within(grid: HexGrid, hexes: list[str], facing: int, other: str, arc: str,
                  max_range: int) -> bool:
    """Is a hex within range and inside a unit's front (or front+flank) arc, for ranged rules
    such as artillery reaction fire (front arc) and cavalry interception (front or flank arc)?
    `arc` is 'front' or 'front+flank'."""
    if min(grid.distance(h, other) for h in hexes) > max_range:
        return False
    b = relative_bearing(grid, hexes, facing, other)
    return b < 60.0 - 1e-6 if arc == "front" else b <= 120.0 + 1e-6


def turn_cost_vertices(frm: int, to: int) -> int:
    """Number of vertices turned from one facing to another (0..3)."""
    d = abs(frm - to) % 6
    return min(d, 6 - d)
