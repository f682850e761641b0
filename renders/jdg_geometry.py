"""Jours de Gloire board, the map itself: pixel geometry and the cached terrain layer (Pillow only).

`BoardGeometry` (a view of the map: the full map, a crop at 1.25-2x, or an overview at any
zoom), `board_geometry`, and the terrain layer of a scenario drawn once per zoom and cached
(`terrain_layer` for the full map, `terrain_crop` pasted from 256 px tiles for crops, as
renders/tacw_geometry.py does): terrain tiles tinted by elevation with a contour where the level
changes, hex outlines, roads and paths, hexside features (rivers, streams, fords, bridges, crests,
steep slopes, trenches, ramparts), victory-hex rings, the rout exits on the map edges, the hex
ids, the place labels and, on the full map, the rulers. It knows nothing of units or the strip.
Imports renders/jdg_art.py and renders/common.py only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.core.facing import vertex_angle
from engine.jdg.scenario import Scenario, map_grid

from .common import ScenarioKey, dashed_polyline, downsample, draw_hex_rulers, font, image_cache, outlined_text
from .jdg_art import (BRIDGE, CREST, GOLD, PATH, RIVER, ROAD, ROAD_EDGE, SIDE_DARK, SIDE_NAMES, SS, STREAM,
                      TERRAIN_COLOURS, TRENCH, hex_points, mix, terrain_fill, terrain_tile)

HEX_R = 30              # hex radius (centre to vertex) of the full map, output pixels
EDGE_BAND = 30          # band around the map: the rout exits
RULER_BAND = 44         # outside it, the full map's column and row numbers
RULER_TEXT_PX = 9.6     # the rulers' font once the full map is shown DISPLAY_W wide
HEX_ID_PX = 8.5         # hex ids, design px (x zoom)
LABEL_PX = 11           # place labels, design px (x zoom)
DISPLAY_W = 550         # the width Discord's client shows an image at (px)
BACKGROUND = (232, 228, 210)
GRID_LINE = (120, 128, 96)
CONTOUR = (150, 100, 50)
SQRT3 = math.sqrt(3)
TILE = 256


@lru_cache(maxsize=16)
def _extent(cols: int, rows: int, orientation: str, shove: str) -> tuple[float, float, float, float]:
    """min x, min y, max x, max y of every hex corner at unit size."""
    grid = map_grid(cols, rows, orientation, shove)
    xs, ys = [], []
    for h in grid:
        for x, y in grid.corners(h, 1.0):
            xs.append(x)
            ys.append(y)
    return min(xs), min(ys), max(xs), max(ys)


@dataclass(frozen=True)
class BoardGeometry:
    """Pixel geometry of a view of the map (the information strip goes below `height`).

    `hex_center(h)` is the centre of hex h in the view's pixels; a crop is the whole map at `zoom`
    shifted by `offset`; `scaled(k)` the same view supersampled."""
    cols: int
    rows: int
    orientation: str
    shove: str
    r: float
    origin: tuple[float, float]       # pixel of the grid's (0, 0) (the centre of hex 0101)
    width: int
    height: int
    offset: tuple[float, float] = (0.0, 0.0)
    zoom: float = 1.0
    scale: int = 1
    map_size: tuple[int, int] = (0, 0)

    @property
    def grid(self):
        return map_grid(self.cols, self.rows, self.orientation, self.shove)

    @property
    def start(self) -> float:
        """Screen angle of corner 0 (vertex 0)."""
        return 0.0 if self.orientation == "flat" else -30.0

    def hex_center(self, hex_id: str) -> tuple[float, float]:
        x, y = self.grid.center(hex_id)
        return (self.origin[0] + x * self.r - self.offset[0], self.origin[1] + y * self.r - self.offset[1])

    def hex_corners(self, hex_id: str, inset: float = 1.0) -> list[tuple[float, float]]:
        """Corner k is vertex k of the hex (engine.core.facing)."""
        cx, cy = self.hex_center(hex_id)
        return hex_points(cx, cy, self.r * inset, self.start)

    def vertex_point(self, hex_id: str, vertex: int, frac: float = 1.0) -> tuple[float, float]:
        """The point `frac` of the way from the hex centre to its vertex `vertex`."""
        cx, cy = self.hex_center(hex_id)
        a = math.radians(vertex_angle(self.grid, vertex))
        return (cx + frac * self.r * math.cos(a), cy + frac * self.r * math.sin(a))

    def side_segment(self, hex_id: str, direction: int, inset: float = 1.0):
        """Hexside `direction` (HexGrid numbering) runs from vertex d to vertex d+1."""
        pts = self.hex_corners(hex_id, inset)
        return pts[direction % 6], pts[(direction + 1) % 6]

    @property
    def map_box(self) -> tuple[float, float, float, float]:
        """The hex area (left, top, right, bottom) in the view's pixels."""
        x0, y0, x1, y1 = _extent(self.cols, self.rows, self.orientation, self.shove)
        ox, oy = self.origin[0] - self.offset[0], self.origin[1] - self.offset[1]
        return (ox + x0 * self.r, oy + y0 * self.r, ox + x1 * self.r, oy + y1 * self.r)

    @property
    def is_full(self) -> bool:
        return self.offset == (0.0, 0.0) and (self.width, self.height) == self.map_size

    def scaled(self, k: int) -> "BoardGeometry":
        return replace(self, r=self.r * k, origin=(self.origin[0] * k, self.origin[1] * k),
                       width=self.width * k, height=self.height * k,
                       offset=(self.offset[0] * k, self.offset[1] * k), scale=self.scale * k,
                       map_size=(self.map_size[0] * k, self.map_size[1] * k))


@lru_cache(maxsize=64)
def map_geometry(cols: int, rows: int, orientation: str, shove: str, zoom: float,
                 rulers: bool = True) -> BoardGeometry:
    """The whole map at `zoom` (hex radius HEX_R x zoom) with its bands (rulers: the outer band)."""
    r = HEX_R * zoom
    band = (EDGE_BAND + (RULER_BAND if rulers else 0)) * zoom
    x0, y0, x1, y1 = _extent(cols, rows, orientation, shove)
    origin = (band - x0 * r, band - y0 * r)
    width = int(round(2 * band + (x1 - x0) * r))
    height = int(round(2 * band + (y1 - y0) * r))
    return BoardGeometry(cols, rows, orientation, shove, r, origin, width, height, zoom=zoom,
                         map_size=(width, height))


def scenario_geometry(scenario: Scenario, zoom: float = 1.0, rulers: bool = True) -> BoardGeometry:
    m = scenario.map
    return map_geometry(m.cols, m.rows, m.orientation, m.shove, float(zoom), rulers)


def board_geometry(scenario: Scenario) -> BoardGeometry:
    """Geometry of the full map image of `scenario` (hex radius 30 px, rulers round it)."""
    return scenario_geometry(scenario, 1.0)


def view(scenario: Scenario, zoom: float, box: tuple[int, int, int, int] | None,
         rulers: bool = True) -> BoardGeometry:
    g = scenario_geometry(scenario, zoom, rulers)
    if box is None:
        return g
    x0, y0, x1, y1 = box
    return replace(g, offset=(float(x0), float(y0)), width=x1 - x0, height=y1 - y0)


def hexes_in_view(scenario: Scenario, g: BoardGeometry) -> list[str]:
    grid = scenario.map.grid
    if g.is_full:
        return list(grid)
    m = g.r * 1.05
    out = []
    for h in grid:
        x, y = g.hex_center(h)
        if -m <= x <= g.width + m and -m <= y <= g.height + m:
            out.append(h)
    return out


# --- the terrain layer --------------------------------------------------------------------------
def scenario_key(scenario: Scenario) -> ScenarioKey:
    """The terrain layer's cache key: the scenario id and everything the layer draws."""
    m = scenario.map
    parts = (m.cols, m.rows, m.orientation, m.shove, sorted(m.terrain.items()), sorted(m.elevation.items()),
             sorted((f.hex, f.side, f.type) for fs in m.hexsides.values() for f in fs),
             [(r.name, r.hexes, r.kind) for r in m.roads], [(lb.hex, lb.text) for lb in m.labels],
             sorted((v.hex, v.vp) for v in scenario.victory.hexes),
             sorted((s, e.edge, e.hexes) for s, e in scenario.rout_exits.items()))
    return ScenarioKey(scenario, parts)


def terrain_layer(scenario: Scenario) -> Image.Image:
    """The scenario's full static map at zoom 1, cached (callers copy or paste, never draw on it)."""
    return _terrain_full(scenario_key(scenario), 1.0, True)


@image_cache(64 << 20)
def _terrain_full(sk: ScenarioKey, zoom: float, rulers: bool) -> Image.Image:
    return _terrain_view(sk, zoom, None, rulers)


@image_cache(128 << 20)
def _terrain_tile(sk: ScenarioKey, zoom: float, tx: int, ty: int) -> Image.Image:
    """Tile (tx, ty) of the whole map drawn at `zoom`: each drawn once, crops are cut from them."""
    g = scenario_geometry(sk.scenario, zoom)
    box = (tx * TILE, ty * TILE, min(g.width, (tx + 1) * TILE), min(g.height, (ty + 1) * TILE))
    return _terrain_view(sk, zoom, box, True)


def terrain_crop(scenario: Scenario, zoom: float, box: tuple[int, int, int, int]) -> Image.Image:
    """A new RGB image of the terrain at `zoom` inside `box`, pasted from the cached tiles."""
    sk = scenario_key(scenario)
    x0, y0, x1, y1 = box
    out = Image.new("RGB", (x1 - x0, y1 - y0), BACKGROUND)
    for ty in range(y0 // TILE, (y1 - 1) // TILE + 1):
        for tx in range(x0 // TILE, (x1 - 1) // TILE + 1):
            out.paste(_terrain_tile(sk, zoom, tx, ty), (tx * TILE - x0, ty * TILE - y0))
    return out


def overview_terrain(scenario: Scenario, zoom: float) -> Image.Image:
    """The whole map at `zoom`, without rulers (an overview or a replay frame), cached."""
    return _terrain_full(scenario_key(scenario), zoom, False)


def _level(scenario: Scenario, h: str | None) -> int:
    return scenario.map.level(h) if h else 0


def _terrain_view(sk: ScenarioKey, zoom: float, box, rulers: bool) -> Image.Image:
    scenario = sk.scenario
    m = scenario.map
    grid = m.grid
    g1 = view(scenario, zoom, box, rulers)
    g = g1.scaled(SS)
    hexes = hexes_in_view(scenario, g1)
    shown = set(hexes)
    img = Image.new("RGB", (g.width, g.height), BACKGROUND)
    d = ImageDraw.Draw(img)
    # 1. terrain, tinted by elevation (a clear hex is a plain fill)
    for h in hexes:
        name, level = m.terrain_at(h), m.level(h)
        cx, cy = g.hex_center(h)
        if name == "clear":
            d.polygon(hex_points(cx, cy, g.r + 1, g.start), fill=terrain_fill(name, level))
            continue
        tile = terrain_tile(name, level, round(g.r, 3), g.start)
        img.paste(tile, (int(round(cx - tile.width / 2)), int(round(cy - tile.height / 2))), tile)
    # 2. hex outlines
    for h in hexes:
        pts = g.hex_corners(h)
        d.line(pts + pts[:1], fill=GRID_LINE, width=SS)
    # 3. contours where the level changes (ticks toward the lower hex)
    for h in hexes:
        for dirn in range(6):
            n = grid.neighbor(h, dirn)
            if n is None or m.level(n) >= m.level(h):
                continue
            a, b = g.side_segment(h, dirn)
            d.line([a, b], fill=CONTOUR, width=max(2, int(0.06 * g.r)))
            _ticks(d, g, h, dirn, CONTOUR, 3, 0.12)
    # 4. roads and paths, centre to centre
    for road in m.roads:
        pts = [g.hex_center(h) for h in road.hexes]
        if not any(h in shown for h in road.hexes):
            continue
        if road.kind == "path":
            dashed_polyline(d, pts, PATH, max(2, int(0.07 * g.r)), dash=0.25 * g.r, gap=0.15 * g.r)
        else:
            d.line(pts, fill=ROAD_EDGE, width=int(0.2 * g.r), joint="curve")
            d.line(pts, fill=ROAD, width=int(0.13 * g.r), joint="curve")
    # 5. hexside features
    order = {"river": 0, "stream": 1, "crest": 2, "steep_slope": 3, "trench": 4, "fortification_side": 5,
             "impassable": 6, "ford": 7, "bridge": 8}
    feats = sorted((f for fs in m.hexsides.values() for f in fs), key=lambda f: (order.get(f.type, 9), f.hex, f.side))
    for f in feats:
        if f.hex not in shown and f.other not in shown:
            continue
        dirn = grid.side_index(f.side)
        a, b = g.side_segment(f.hex, dirn)
        if f.type == "river":
            d.line([a, b], fill=RIVER, width=int(0.2 * g.r))
        elif f.type == "stream":
            d.line([a, b], fill=STREAM, width=int(0.1 * g.r))
        elif f.type == "ford":
            mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            rr = 0.17 * g.r
            d.ellipse((mx - rr, my - rr, mx + rr, my + rr), fill=(236, 214, 150), outline=STREAM,
                      width=max(2, int(0.04 * g.r)))
            for t in (-0.08, 0.0, 0.08):
                d.line([(mx - 0.1 * g.r, my + t * g.r), (mx + 0.1 * g.r, my + t * g.r)], fill=STREAM,
                       width=max(1, int(0.025 * g.r)))
        elif f.type == "bridge":
            _bridge(d, g, f.hex, f.other, a, b)
        elif f.type in ("crest", "steep_slope"):
            lo = f.other if _level(scenario, f.other) <= _level(scenario, f.hex) else f.hex
            hi = f.hex if lo == f.other else f.other
            dd = grid.direction(hi, lo)
            sa, sb = g.side_segment(hi, dd)
            d.line([sa, sb], fill=CREST, width=int(0.07 * g.r))
            _ticks(d, g, hi, dd, CREST, 5 if f.type == "crest" else 9, 0.22 if f.type == "crest" else 0.3)
        elif f.type == "trench":
            _zigzag(d, a, b, 0.08 * g.r, TRENCH, max(2, int(0.06 * g.r)))
        elif f.type == "fortification_side":
            d.line([a, b], fill=(90, 86, 80), width=int(0.14 * g.r))
            _zigzag(d, a, b, 0.06 * g.r, (40, 38, 34), max(2, int(0.04 * g.r)))
        elif f.type == "impassable":
            d.line([a, b], fill=(20, 20, 20), width=int(0.14 * g.r))
    # 6. victory hexes: a gold ring
    for v in scenario.victory.hexes:
        if v.hex in shown:
            pts = g.hex_corners(v.hex, 0.88)
            d.line(pts + pts[:2], fill=GOLD, width=int(0.09 * g.r), joint="curve")
    # 7. rout exits: the edge hexes get a band of the routing side's colour beyond the map edge
    _rout_exits(d, scenario, g)
    base = downsample(img, SS)
    _draw_text(base, scenario, g1, hexes, rulers and g1.zoom == 1.0)
    return base


def _ticks(d, g: BoardGeometry, h: str, dirn: int, colour, n: int, length: float) -> None:
    """Hachures from side `dirn` of h pointing away from h (downhill)."""
    a, b = g.side_segment(h, dirn)
    cx, cy = g.hex_center(h)
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dist = math.hypot(mx - cx, my - cy) or 1.0
    ux, uy = (mx - cx) / dist, (my - cy) / dist
    for i in range(n):
        t = (i + 0.5) / n
        px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        ln = length * g.r * (1.0 if i % 2 == 0 else 0.6)
        d.line([(px, py), (px + ux * ln, py + uy * ln)], fill=colour, width=max(1, int(0.045 * g.r)))


def _zigzag(d, a, b, amp: float, colour, width: int) -> None:
    n = 6
    ln = math.dist(a, b) or 1.0
    ux, uy = (b[0] - a[0]) / ln, (b[1] - a[1]) / ln
    pts = []
    for i in range(n * 2 + 1):
        t = i / (2 * n)
        s = amp if i % 2 else -amp
        pts.append((a[0] + (b[0] - a[0]) * t - uy * s, a[1] + (b[1] - a[1]) * t + ux * s))
    d.line(pts, fill=colour, width=width, joint="curve")


def _bridge(d, g: BoardGeometry, h: str, other: str, a, b) -> None:
    """A plank bridge across the side, from one hex centre's side toward the other."""
    (ax, ay), (bx, by) = g.hex_center(h), g.hex_center(other)
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    ln = math.hypot(bx - ax, by - ay) or 1.0
    ux, uy = (bx - ax) / ln, (by - ay) / ln
    vx, vy = -uy, ux
    L, W = 0.3 * g.r, 0.16 * g.r
    poly = [(mx - ux * L - vx * W, my - uy * L - vy * W), (mx + ux * L - vx * W, my + uy * L - vy * W),
            (mx + ux * L + vx * W, my + uy * L + vy * W), (mx - ux * L + vx * W, my - uy * L + vy * W)]
    d.polygon(poly, fill=BRIDGE, outline=(60, 40, 20))
    for s in (-1, 1):
        d.line([(mx - ux * L + s * vx * W, my - uy * L + s * vy * W), (mx + ux * L + s * vx * W, my + uy * L + s * vy * W)],
               fill=(50, 30, 14), width=max(2, int(0.05 * g.r)))


def _exit_hexes(scenario: Scenario, side: str) -> list[str]:
    ex = scenario.rout_exits.get(side)
    if ex is None:
        return []
    if ex.hexes:
        return list(ex.hexes)
    m = scenario.map
    out = []
    for h in m.grid:
        c, r = int(h[:2]), int(h[2:])
        if ((ex.edge == "west" and c == 1) or (ex.edge == "east" and c == m.cols)
                or (ex.edge == "north" and r == 1) or (ex.edge == "south" and r == m.rows)):
            out.append(h)
    return out


_EDGE_DIR = {"east": (1, 0), "west": (-1, 0), "north": (0, -1), "south": (0, 1)}


def _rout_exits(d, scenario: Scenario, g: BoardGeometry) -> None:
    """Beyond each rout-exit hex, a chevron in the routing side's dark colour pointing off the map."""
    for side, ex in sorted(scenario.rout_exits.items()):
        ux, uy = _EDGE_DIR.get(ex.edge, (0, 0))
        col = SIDE_DARK.get(side, (80, 80, 80))
        for h in _exit_hexes(scenario, side):
            cx, cy = g.hex_center(h)
            # the point just beyond the hex on that edge
            off = (g.r * 1.0 if ux else g.r * SQRT3 / 2) + EDGE_BAND * g.zoom * g.scale * 0.3
            px, py = cx + ux * off, cy + uy * off
            s = min(0.22 * g.r, EDGE_BAND * g.zoom * g.scale * 0.26)
            vx, vy = -uy, ux
            pts = [(px + ux * s, py + uy * s), (px - ux * s * 0.4 + vx * s, py - uy * s * 0.4 + vy * s),
                   (px - ux * s * 0.4 - vx * s, py - uy * s * 0.4 - vy * s)]
            d.polygon(pts, fill=col, outline=(255, 255, 255))


def _draw_text(img: Image.Image, scenario: Scenario, g: BoardGeometry, hexes: list[str], rulers: bool) -> None:
    """Hex ids (top of every hex), place labels (across the bottom edge of their hex), the rout
    exits' captions, and the full map's rulers, at final scale (crisp)."""
    d = ImageDraw.Draw(img)
    m = scenario.map
    fid = font(max(7, int(round(HEX_ID_PX * g.zoom))))
    for h in hexes:
        cx, cy = g.hex_center(h)
        dark = m.terrain_at(h) in ("river_hex", "woods")
        d.text((cx, cy - 0.7 * g.r), h, font=fid, fill=(235, 240, 250) if dark else (70, 70, 56), anchor="mm")
    flab = font(max(8, int(round(LABEL_PX * g.zoom))), True)
    for lb in m.labels:             # every label (a tile shows the part of a long one that falls in it)
        cx, cy = g.hex_center(lb.hex)
        outlined_text(d, (cx, cy + 0.86 * g.r), lb.text, flab, fill=(40, 30, 20), outline=(250, 246, 230),
                      width=max(1, int(round(2 * g.zoom))))
    # rout-exit captions in the band
    fcap = font(max(8, int(round(11 * g.zoom))), True)
    x0, y0, x1, y1 = g.map_box
    band = EDGE_BAND * g.zoom
    for side, ex in sorted(scenario.rout_exits.items()):
        hx = _exit_hexes(scenario, side)
        if not hx:
            continue
        text = f"{SIDE_NAMES.get(side, side)} rout exit"
        col = SIDE_DARK.get(side, (80, 80, 80))
        pts = [g.hex_center(h) for h in hx]
        mx, my = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
        if ex.edge in ("east", "west"):
            # in the outer part of the band (the chevrons are in its inner part)
            x = x1 + band * 0.74 if ex.edge == "east" else x0 - band * 0.74
            ys = [my] if len(hx) < 6 else [y0 + (y1 - y0) * 0.25, y0 + (y1 - y0) * 0.75]
            for y in ys:
                _rotated(img, (x, y), text, fcap, col, 90 if ex.edge == "west" else -90)
        else:
            y = y0 - band * 0.74 if ex.edge == "north" else y1 + band * 0.74
            d.text((mx, y), text, font=fcap, fill=col, anchor="mm")
    if rulers:
        _draw_rulers(d, scenario, g)


def _rotated(img: Image.Image, xy, text: str, fnt, fill, angle: int) -> None:
    w = int(fnt.getlength(text)) + 4
    h = int(fnt.size * 1.4)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((w / 2, h / 2), text, font=fnt, fill=255, anchor="mm")
    mask = mask.rotate(angle, expand=True)
    img.paste(Image.new("RGB", mask.size, fill), (int(round(xy[0] - mask.width / 2)), int(round(xy[1] - mask.height / 2))), mask)


def ruler_px(width: int) -> int:
    """The rulers' font size on a full map `width` px wide (RULER_TEXT_PX once shown DISPLAY_W wide)."""
    return math.ceil(RULER_TEXT_PX * width / DISPLAY_W)


def _draw_rulers(d: ImageDraw.ImageDraw, scenario: Scenario, g: BoardGeometry) -> None:
    """Column numbers above (odd) and below (even) the map, row numbers on both sides."""
    f = font(min(int(RULER_BAND * 0.8), ruler_px(g.width)), True)
    draw_hex_rulers(d, g, scenario.map.cols, scenario.map.rows, f, (EDGE_BAND + RULER_BAND / 2) * g.zoom)


__all__ = ["BoardGeometry", "board_geometry", "scenario_geometry", "map_geometry", "view", "hexes_in_view",
           "terrain_layer", "terrain_crop", "overview_terrain", "scenario_key", "ruler_px", "HEX_R", "DISPLAY_W",
           "TERRAIN_COLOURS", "mix"]
