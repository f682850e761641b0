"""Hex geometry shared by every hex ruleset (Battle Cry, TACW, Jours de Gloire).

Internally every hex is a cube coordinate (x, y, z with x + y + z == 0), which makes distance,
lines and line of sight independent of how a map is drawn. A `HexGrid` knows the printed layout:
orientation ("pointy": rows of hexes, as on the Battle Cry board; "flat": columns of hexes, as on
GMT maps), which rows or columns are shoved by half a hex, the map size, and the four-digit
"CCRR" id printed on each hex (column then row, both counted from 1).

Directions are numbered 0..5 clockwise. For pointy-top grids direction 0 is East; for flat-top
grids direction 0 is South-East. `SIDE_NAMES` gives the compass name of each hexside.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Iterator

Cube = tuple[int, int, int]

# Cube = (q, r, s) axial plus s = -q - r. Clockwise, screen y grows downward:
# pointy-top direction 0 is East, flat-top direction 0 is South-East.
CUBE_DIRECTIONS: tuple[Cube, ...] = (
    (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1), (1, -1, 0),
)
SIDE_NAMES = {
    "pointy": ("E", "SE", "SW", "W", "NW", "NE"),
    "flat": ("SE", "S", "SW", "NW", "N", "NE"),
}


def cube_add(a: Cube, b: Cube) -> Cube:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def cube_distance(a: Cube, b: Cube) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


def cube_round(x: float, y: float, z: float) -> Cube:
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return (int(rx), int(ry), int(rz))


def cube_neighbors(c: Cube) -> list[Cube]:
    return [cube_add(c, d) for d in CUBE_DIRECTIONS]


def cube_direction_index(a: Cube, b: Cube) -> int | None:
    """Index of the direction from a to an adjacent hex b, or None if not adjacent."""
    delta = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    try:
        return CUBE_DIRECTIONS.index(delta)
    except ValueError:
        return None


@dataclass(frozen=True)
class LineStep:
    """One step of a centre-to-centre line: the hex under it, or the two hexes whose common side
    the line runs along (`pair`), as needed by line-of-sight rules with an edge clause."""
    hexes: tuple[Cube, ...]

    @property
    def along_edge(self) -> bool:
        return len(self.hexes) == 2


def cube_line_steps(a: Cube, b: Cube) -> list[LineStep]:
    """The hexes strictly between a and b along the centre-to-centre line.

    Each point is sampled nudged both ways; when the nudges fall in different hexes the line runs
    exactly along the side shared by those two hexes (the 'along the edge' case of LOS rules).
    """
    n = cube_distance(a, b)
    steps: list[LineStep] = []
    eps = 1e-6
    for i in range(1, n):
        t = i / n
        x = a[0] + (b[0] - a[0]) * t
        y = a[1] + (b[1] - a[1]) * t
        z = a[2] + (b[2] - a[2]) * t
        h1 = cube_round(x + eps, y + eps, z - 2 * eps)
        h2 = cube_round(x - eps, y - eps, z + 2 * eps)
        steps.append(LineStep((h1,) if h1 == h2 else (h1, h2)))
    return steps


class HexGrid:
    """A printed hex map: size, orientation, offset convention and CCRR ids.

    `shove` says which rows (pointy) or columns (flat) are shoved half a hex right / down:
    "odd" or "even" counted 0-based. `row_lengths` lets a pointy board have shorter shoved rows
    (Battle Cry: 13 hexes in unshoved rows, 12 in shoved rows).
    """

    def __init__(self, cols: int, rows: int, orientation: str = "pointy", shove: str = "odd",
                 short_shoved_rows: bool = False):
        if orientation not in ("pointy", "flat"):
            raise ValueError("orientation must be 'pointy' or 'flat'")
        self.cols, self.rows = cols, rows
        self.orientation, self.shove = orientation, shove
        self.short_shoved_rows = short_shoved_rows
        self._cells: dict[str, Cube] = {}
        self._ids: dict[Cube, str] = {}
        self._neighbors: dict[str, tuple[str, ...]] = {}     # issue 13: a fixed map's answers, kept
        self._centers: dict[str, tuple[float, float]] = {}
        self.memo: dict = {}          # callers' caches of pure functions of this map (engine.core.facing)
        for r in range(rows):
            for c in range(self.row_length(r)):
                cube = self.offset_to_cube(c, r)
                hid = f"{c + 1:02d}{r + 1:02d}"
                self._cells[hid] = cube
                self._ids[cube] = hid

    # -- offsets ---------------------------------------------------------------------------
    def _shoved(self, index: int) -> bool:
        return (index % 2 == 1) == (self.shove == "odd")

    def row_length(self, r: int) -> int:
        if self.orientation == "pointy" and self.short_shoved_rows and self._shoved(r):
            return self.cols - 1
        return self.cols

    def offset_to_cube(self, c: int, r: int) -> Cube:
        if self.orientation == "pointy":
            if self.shove == "odd":
                q = c - (r - (r & 1)) // 2
            else:
                q = c - (r + (r & 1)) // 2
            return (q, r, -q - r)
        if self.shove == "odd":
            rr = r - (c - (c & 1)) // 2
        else:
            rr = r - (c + (c & 1)) // 2
        return (c, rr, -c - rr)

    def cube_to_offset(self, cube: Cube) -> tuple[int, int]:
        q, r, _ = cube
        if self.orientation == "pointy":
            if self.shove == "odd":
                return q + (r - (r & 1)) // 2, r
            return q + (r + (r & 1)) // 2, r
        c = q
        if self.shove == "odd":
            return c, r + (c - (c & 1)) // 2
        return c, r + (c + (c & 1)) // 2

    # -- ids -------------------------------------------------------------------------------
    def __contains__(self, hex_id: object) -> bool:
        return hex_id in self._cells

    def __iter__(self) -> Iterator[str]:
        return iter(self._cells)

    def __len__(self) -> int:
        return len(self._cells)

    def cube(self, hex_id: str) -> Cube:
        return self._cells[hex_id]

    def hex_id(self, cube: Cube) -> str | None:
        return self._ids.get(cube)

    def col_row(self, hex_id: str) -> tuple[int, int]:
        """0-based (column, row) of a hex id."""
        return int(hex_id[:2]) - 1, int(hex_id[2:]) - 1

    # -- geometry --------------------------------------------------------------------------
    def distance(self, a: str, b: str) -> int:
        p, q = self._cells[a], self._cells[b]
        return max(abs(p[0] - q[0]), abs(p[1] - q[1]), abs(p[2] - q[2]))

    def neighbors(self, hex_id: str) -> list[str]:
        """On-map neighbours, in direction order."""
        got = self._neighbors.get(hex_id)
        if got is None:
            got = tuple(hid for n in cube_neighbors(self._cells[hex_id])
                        if (hid := self._ids.get(n)) is not None)
            self._neighbors[hex_id] = got
        return list(got)

    def neighbor(self, hex_id: str, direction: int) -> str | None:
        return self._ids.get(cube_add(self._cells[hex_id], CUBE_DIRECTIONS[direction % 6]))

    def adjacent(self, a: str, b: str) -> bool:
        return self.distance(a, b) == 1

    def direction(self, a: str, b: str) -> int | None:
        return cube_direction_index(self._cells[a], self._cells[b])

    def side_name(self, direction: int) -> str:
        return SIDE_NAMES[self.orientation][direction % 6]

    def side_index(self, name: str) -> int:
        return SIDE_NAMES[self.orientation].index(name.upper())

    def line_steps(self, a: str, b: str) -> list[tuple[str | None, ...]]:
        """Hexes crossed strictly between a and b; a 2-tuple means the line runs along their side.
        Off-map hexes (possible only along the edge) come back as None."""
        return [tuple(self._ids.get(h) for h in step.hexes)
                for step in cube_line_steps(self._cells[a], self._cells[b])]

    def within(self, hex_id: str, radius: int) -> Iterable[str]:
        for other in self._cells:
            if self.distance(hex_id, other) <= radius:
                yield other

    # -- drawing support (pure arithmetic, unit = hex "size": centre to vertex) ---------------
    def center(self, hex_id: str, size: float = 1.0) -> tuple[float, float]:
        if size == 1.0 and (got := self._centers.get(hex_id)) is not None:
            return got
        q, r, _ = self._cells[hex_id]
        if self.orientation == "pointy":
            out = size * math.sqrt(3) * (q + r / 2), size * 1.5 * r
        else:
            out = size * 1.5 * q, size * math.sqrt(3) * (r + q / 2)
        if size == 1.0:
            self._centers[hex_id] = out
        return out

    def corners(self, hex_id: str, size: float = 1.0) -> list[tuple[float, float]]:
        cx, cy = self.center(hex_id, size)
        start = 30 if self.orientation == "pointy" else 0
        return [(cx + size * math.cos(math.radians(start + 60 * i - 60)),
                 cy + size * math.sin(math.radians(start + 60 * i - 60))) for i in range(6)]

    def bearing_side(self, frm: str, to: str) -> float:
        """Which hexside of `frm` the line towards `to` leaves through, as a fractional direction
        index: an integer k means the centre of side k, k + 0.5 means exactly on the vertex
        between sides k and k+1 (used by facing rules)."""
        ax, ay = self.center(frm)
        bx, by = self.center(to)
        ang = math.degrees(math.atan2(by - ay, bx - ax))  # 0 = east, clockwise positive (y down)
        base = 0.0 if self.orientation == "pointy" else 30.0
        idx = ((ang - base) / 60.0) % 6
        return round(idx * 1e6) / 1e6
