"""This Accursed Civil War board, the map itself: pixel geometry and the cached terrain layer.

`BoardGeometry` (a view of the map: the full map or a crop at 1.25-2x), `board_geometry`, the
terrain layer cached per scenario and view (`terrain_layer`, `_terrain_view`: terrain tiles,
hedge-lined lanes, hex outlines, hexside features, victory hexes, drawn 2x and downsampled), the
hexes a view shows, the friendly map edges and the full map's rulers (`ruler_px`). It knows
nothing of units, labels or the strip. Used by renders/tacw.py, tacw_layout.py and tacw_strip.py;
imports none of them.
"""
from __future__ import annotations

import hashlib
import math
import zlib
from dataclasses import dataclass, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.core.facing import vertex_angle
from engine.tacw.scenario.schema import Scenario, map_grid

from . import tile_store
from .common import ScenarioKey, downsample, draw_hex_rulers, font, image_cache
from .tacw_art import (GOLD, ROAD, ROAD_HEDGE, SIDE_DARK, SIDE_NAMES, SS, TERRAIN_COLOURS, flat_hex, mix,
                       terrain_tile)

HEX_R = 30              # hex radius (centre to vertex) of the full map, output pixels
EDGE_BAND = 22          # band around the map for the friendly-edge labels
RULER_BAND = 50         # outside it, the full map's column and row numbers (rulers)
RULER_TEXT_PX = 9.6     # their font once the full map (~1900-2000 px) is shown DISPLAY_W wide
BACKGROUND = (234, 229, 212)
GRID_LINE = (118, 126, 92)
HEDGE_DARK = (78, 62, 26)
HEDGE_GREEN = (66, 122, 44)
SLOPE = (128, 84, 40)
STREAM = (40, 110, 206)
# the last action's colours: overlays (renders/tacw.py) and result labels (tacw_layout.py)
FIRE_COLOUR = (255, 96, 0)
COMBAT_COLOUR = (220, 20, 30)
PENDING_COLOUR = (255, 230, 0)
SQRT3 = math.sqrt(3)
DISPLAY_W = 550         # the width Discord's client shows an image at (px)


# --- geometry -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoardGeometry:
    """Pixel geometry of a view of the map (the information strip is below `height`).

    `hex_center(h)` is the centre of hex h in the view's pixels. The full map is the view with
    `offset` (0, 0) and `zoom` 1; a crop is the same layout scaled by `zoom` and shifted by
    `offset`. `scale` > 1 gives the same view supersampled (used to draw the terrain layer)."""
    cols: int
    rows: int
    r: float
    origin: tuple[float, float]       # centre of hex 0101 in unshifted pixels
    width: int
    height: int
    offset: tuple[float, float] = (0.0, 0.0)
    zoom: float = 1.0
    scale: int = 1
    map_size: tuple[int, int] = (0, 0)   # the whole map image at this zoom and scale

    def hex_center(self, hex_id: str) -> tuple[float, float]:
        x, y = map_grid(self.cols, self.rows).center(hex_id, self.r)
        return (self.origin[0] + x - self.offset[0], self.origin[1] + y - self.offset[1])

    def hex_corners(self, hex_id: str, inset: float = 1.0) -> list[tuple[float, float]]:
        """Corner k is vertex k of the hex (screen angle 60k degrees, engine.core.facing)."""
        cx, cy = self.hex_center(hex_id)
        return flat_hex(cx, cy, self.r * inset)

    def vertex_point(self, hex_id: str, vertex: int, frac: float = 1.0) -> tuple[float, float]:
        """The point `frac` of the way from the hex centre to its vertex `vertex`."""
        cx, cy = self.hex_center(hex_id)
        a = math.radians(vertex_angle(map_grid(self.cols, self.rows), vertex))
        return (cx + frac * self.r * math.cos(a), cy + frac * self.r * math.sin(a))

    def side_segment(self, hex_id: str, direction: int, inset: float = 1.0):
        """Hexside `direction` (HexGrid numbering: flat-top 0 = SE) runs from vertex d to d+1."""
        pts = self.hex_corners(hex_id, inset)
        return pts[direction % 6], pts[(direction + 1) % 6]

    @property
    def map_box(self) -> tuple[float, float, float, float]:
        """The hex area (left, top, right, bottom) in the view's pixels."""
        x0 = self.origin[0] - self.r - self.offset[0]
        y0 = self.origin[1] - SQRT3 / 2 * self.r - self.offset[1]
        return (x0, y0, x0 + self.r * (1.5 * self.cols + 0.5), y0 + SQRT3 * self.r * (self.rows + 0.5))

    def scaled(self, k: int) -> "BoardGeometry":
        """The same view with every length multiplied by k (supersampling)."""
        return replace(self, r=self.r * k, origin=(self.origin[0] * k, self.origin[1] * k),
                       width=self.width * k, height=self.height * k,
                       offset=(self.offset[0] * k, self.offset[1] * k), scale=self.scale * k,
                       map_size=(self.map_size[0] * k, self.map_size[1] * k))


@lru_cache(maxsize=32)
def _map_geometry(cols: int, rows: int, zoom: float) -> BoardGeometry:
    r = HEX_R * zoom
    band = (EDGE_BAND + RULER_BAND) * zoom
    origin = (band + r, band + SQRT3 / 2 * r)
    width = int(round(2 * band + r * (1.5 * cols + 0.5)))
    height = int(round(2 * band + SQRT3 * r * (rows + 0.5)))
    return BoardGeometry(cols, rows, r, origin, width, height, zoom=zoom, map_size=(width, height))


def board_geometry(scenario: Scenario, scale: int = 1) -> BoardGeometry:
    """Geometry of the full map image of `scenario` (scale > 1: supersampled)."""
    g = _map_geometry(scenario.cols, scenario.rows, 1.0)
    return g.scaled(scale) if scale != 1 else g


# --- terrain layer (cached per scenario and view) -----------------------------------------------
def _scenario_key(scenario: Scenario) -> ScenarioKey:
    """The terrain layer's cache key: the scenario id and everything the layer draws."""
    parts = (scenario.cols, scenario.rows, sorted(scenario.terrain.items()),
             sorted((h.hex, h.side, h.type, h.no_effect) for h in scenario.hexsides.values()),
             sorted((v.hex, v.vp, v.side) for v in scenario.victory_hexes),
             sorted(scenario.edges.items()), sorted(scenario.wing_edges.items()))
    return ScenarioKey(scenario, parts)


def terrain_layer(scenario: Scenario) -> Image.Image:
    """The scenario's full static map, cached (callers must copy or paste, never draw on it)."""
    return _terrain_full(_scenario_key(scenario))


@image_cache(48 << 20)              # a full map is ~8 MB: the five battles and an upload
def _terrain_full(sk: ScenarioKey) -> Image.Image:
    return _terrain_view(sk, 1.0, None)


TILE = 256      # the terrain of a crop's zoom is drawn in tiles of TILE x TILE px, each once


@image_cache(128 << 20)             # ~15 full maps' worth of crop tiles, whatever the games
def _terrain_tile(sk: ScenarioKey, zoom: float, tx: int, ty: int) -> Image.Image:
    """Tile (tx, ty) of the whole map drawn at `zoom` (issue 13: the terrain of a scenario is
    drawn once per zoom, and every crop is cut from its tiles, instead of drawing a view per
    crop box, which missed the cache whenever the action moved). Unpacked from `_packed_tile`
    when this cache has let it go."""
    size, packed = _packed_tile(sk, zoom, tx, ty)
    try:
        return Image.frombytes("RGB", size, zlib.decompress(packed))
    except (zlib.error, ValueError):          # a damaged file on disk: drawn here instead
        return _terrain_view(sk, zoom, _tile_box(sk, zoom, tx, ty))


def _tile_box(sk: ScenarioKey, zoom: float, tx: int, ty: int) -> tuple[int, int, int, int]:
    g = _map_geometry(sk.scenario.cols, sk.scenario.rows, zoom)
    return (tx * TILE, ty * TILE, min(g.width, (tx + 1) * TILE), min(g.height, (ty + 1) * TILE))


@image_cache(64 << 20)              # a tile packs to ~4-30 KiB: every zoom of every battle
def _packed_tile(sk: ScenarioKey, zoom: float, tx: int, ty: int) -> tuple[tuple[int, int], bytes]:
    """A tile drawn once and kept packed (zlib level 1: ~0.7 ms to pack, ~0.5 ms to unpack,
    against 5-16 ms to draw). Issue 13: 25 TACW games wander over 5 maps at 4 crop zooms, more
    tiles than the unpacked cache holds, and a third of a render worker's time under the load
    bench went to drawing tiles. Kept on disk too (renders/tile_store.py), for the other
    workers and the next start."""
    name = _tile_name(sk, zoom, tx, ty)
    kept = tile_store.read(name)          # drawn by another worker, or before a restart
    if kept is not None:
        return kept
    img = _terrain_view(sk, zoom, _tile_box(sk, zoom, tx, ty))
    packed = zlib.compress(img.tobytes(), 1)
    tile_store.write(name, img.size, packed)
    return img.size, packed


_DRAWING = ("tacw_geometry.py", "tacw_art.py", "common.py")     # what draws a tile (tile_store)


def _tile_name(sk: ScenarioKey, zoom: float, tx: int, ty: int) -> str:
    return "tacw-" + hashlib.sha1(f"{sk.key}|{tile_store.drawing_version(*_DRAWING)}|{zoom}|{tx}|{ty}"
                                  .encode()).hexdigest()


def tiles_not_on_disk(scenario: Scenario, zoom: float,
                      near: list[str] | tuple[str, ...] = ()) -> list[tuple[float, int, int]]:
    """The tiles of the map at `zoom` not yet kept on disk (none when tiles stay in memory:
    HERALD_TILE_CACHE=off), those nearest the hexes `near` first (where the games' units
    stand: the next crops are cut there). For idle render workers to draw ahead (`draw_tiles`):
    on a first start a worker drew up to 20-30 tiles for a crop in a new part of a map."""
    if tile_store.folder() is None:
        return []
    sk = _scenario_key(scenario)
    g = _map_geometry(scenario.cols, scenario.rows, zoom)
    centres = {h: (x, y) for h, x, y in _centres(scenario.cols, scenario.rows, g.r, g.origin)}
    points = [centres[h] for h in set(near) if h in centres]

    def distance(tile: tuple[float, int, int]) -> float:
        _, tx, ty = tile
        cx, cy = (tx + 0.5) * TILE, (ty + 0.5) * TILE
        return min(((cx - x) ** 2 + (cy - y) ** 2 for x, y in points), default=0.0)

    tiles = [(zoom, tx, ty) for ty in range(-(-g.height // TILE)) for tx in range(-(-g.width // TILE))]
    return sorted((t for t in tiles if not tile_store.exists(_tile_name(sk, *t))), key=distance)


def draw_tiles(scenario_id: str, tiles: tuple[tuple[float, int, int], ...]) -> int:
    """In a render worker with nothing else to do (renders.pool `idle`): the terrain tiles of
    the bundled battle `scenario_id`, each drawn (or read back, if another worker drew it
    meanwhile) into this worker's cache and onto disk. Returns how many it was given."""
    from engine.core.game import get_ruleset
    sk = _scenario_key(get_ruleset("tacw").load_scenario(scenario_id))
    for zoom, tx, ty in tiles:
        _packed_tile(sk, zoom, tx, ty)
    return len(tiles)


def terrain_crop(scenario: Scenario, zoom: float, box: tuple[int, int, int, int]) -> Image.Image:
    """A new RGB image of the terrain of the map at `zoom` inside `box` (left, top, right,
    bottom), pasted from the cached tiles; the caller may draw on it."""
    sk = _scenario_key(scenario)
    x0, y0, x1, y1 = box
    out = Image.new("RGB", (x1 - x0, y1 - y0), BACKGROUND)
    for ty in range(y0 // TILE, (y1 - 1) // TILE + 1):
        for tx in range(x0 // TILE, (x1 - 1) // TILE + 1):
            out.paste(_terrain_tile(sk, zoom, tx, ty), (tx * TILE - x0, ty * TILE - y0))
    return out


def _view(scenario: Scenario, zoom: float, box: tuple[int, int, int, int] | None) -> BoardGeometry:
    g = _map_geometry(scenario.cols, scenario.rows, zoom)
    if box is None:
        return g
    x0, y0, x1, y1 = box
    return replace(g, offset=(float(x0), float(y0)), width=x1 - x0, height=y1 - y0)


def _hexes_in_view(scenario: Scenario, g: BoardGeometry) -> list[str]:
    """The hexes of the map whose centre lies within a hex radius (and a little) of the view."""
    if g.offset == (0.0, 0.0) and (g.width, g.height) == g.map_size:
        return list(scenario.grid)          # the whole map (with its bands): every hex
    ox, oy = g.offset
    m = g.r * 1.05
    x0, x1, y0, y1 = ox - m, ox + g.width + m, oy - m, oy + g.height + m
    return [h for h, x, y in _centres(scenario.cols, scenario.rows, g.r, g.origin)
            if x0 <= x <= x1 and y0 <= y <= y1]


@lru_cache(maxsize=64)
def _centres(cols: int, rows: int, r: float, origin: tuple[float, float]) -> tuple[tuple[str, float, float], ...]:
    """Every hex of a map (its grid is a function of its size: `map_grid`) with its centre in the
    unshifted pixels of a view of radius `r` (issue 13: a crop tested ~1,300 hexes' centres
    twice per board, ~5% of drawing it)."""
    grid = map_grid(cols, rows)
    return tuple((h, origin[0] + x, origin[1] + y) for h in grid for x, y in (grid.center(h, r),))


def _terrain_view(sk: ScenarioKey, zoom: float, box: tuple[int, int, int, int] | None) -> Image.Image:
    scenario = sk.scenario
    grid = scenario.grid
    g1 = _view(scenario, zoom, box)
    g = g1.scaled(SS)
    hexes = _hexes_in_view(scenario, g1)
    shown = set(hexes)
    img = Image.new("RGB", (g.width, g.height), BACKGROUND)
    d = ImageDraw.Draw(img)
    # 1. terrain tiles (a clear hex is a plain fill: much cheaper than pasting through a mask)
    for h in hexes:
        name = scenario.terrain_at(h)
        cx, cy = g.hex_center(h)
        if name == "clear":
            d.polygon(flat_hex(cx, cy, g.r + 1), fill=TERRAIN_COLOURS["clear"])
            continue
        tile = terrain_tile(name, g.r)
        img.paste(tile, (int(round(cx - tile.width / 2)), int(round(cy - tile.height / 2))), tile)
    # 2. hedge-lined lanes: centre to centre of neighbouring lane/bridge hexes
    lanes = [h for h in hexes if scenario.terrain_at(h) == "hedge_road"]
    linkable = {h for h in grid if scenario.terrain_at(h) in ("hedge_road", "bridge")}
    for width, colour in ((0.36 * g.r, ROAD_HEDGE), (0.2 * g.r, ROAD)):
        for h in lanes:
            c = g.hex_center(h)
            links = [n for n in grid.neighbors(h) if n in linkable]
            ends = [g.hex_center(n) for n in links] or [(c[0] - 0.8 * g.r, c[1]), (c[0] + 0.8 * g.r, c[1])]
            for m in ends:
                mid = ((c[0] + m[0]) / 2, (c[1] + m[1]) / 2) if links else m
                d.line([c, mid], fill=colour, width=int(width))
            rr = width / 2
            d.ellipse((c[0] - rr, c[1] - rr, c[0] + rr, c[1] + rr), fill=colour)
    # 3. hex outlines
    for h in hexes:
        pts = g.hex_corners(h)
        d.line(pts + pts[:1], fill=GRID_LINE, width=SS)
    # 4. hexside features
    for hs in sorted(scenario.hexsides.values(), key=lambda s: (s.type, s.hex, s.side)):
        if hs.hex not in shown and hs.other not in shown:
            continue
        direction = grid.side_index(hs.side)
        a, b = g.side_segment(hs.hex, direction)
        bg = TERRAIN_COLOURS["clear"]
        fade = 0.55 if hs.no_effect else 0.0
        if hs.type == "hedge":
            d.line([a, b], fill=mix(HEDGE_DARK, bg, fade), width=int(0.2 * g.r))
            d.line([a, b], fill=mix(HEDGE_GREEN, bg, fade), width=int(0.09 * g.r))
            for t in (0.2, 0.5, 0.8):
                px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
                rr = 0.09 * g.r
                d.ellipse((px - rr, py - rr, px + rr, py + rr), fill=mix(HEDGE_GREEN, bg, fade),
                          outline=mix(HEDGE_DARK, bg, fade), width=SS)
        elif hs.type == "slope":
            col = mix(SLOPE, bg, fade)
            d.line([a, b], fill=col, width=int(0.07 * g.r))
            # ticks from the crest into the lower hex (hs.other), i.e. pointing downhill
            ang = math.radians(30 + 60 * direction)
            ux, uy = math.cos(ang), math.sin(ang)
            n = 5
            for i in range(n):
                t = (i + 0.5) / n
                px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
                ln = 0.24 * g.r if i % 2 == 0 else 0.15 * g.r
                d.line([(px, py), (px + ux * ln, py + uy * ln)], fill=col, width=int(0.05 * g.r))
        elif hs.type == "stream":
            d.line([a, b], fill=mix(STREAM, bg, fade), width=int(0.07 * g.r) if not fade else int(0.05 * g.r))
    # 5. victory hexes: gold ring
    for v in scenario.victory_hexes:
        if v.hex in shown:
            pts = g.hex_corners(v.hex, 0.86)
            d.line(pts + pts[:2], fill=GOLD, width=int(0.1 * g.r), joint="curve")
    base = downsample(img, SS)
    _draw_static_text(base, scenario, g1, hexes)
    return base


def _rotated_text(img: Image.Image, xy: tuple[float, float], text: str, fnt, fill, angle: int) -> None:
    w = int(fnt.getlength(text)) + 4
    h = int(fnt.size * 1.4)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((w / 2, h / 2), text, font=fnt, fill=255, anchor="mm")
    mask = mask.rotate(angle, expand=True)
    img.paste(Image.new("RGB", mask.size, fill),
              (int(round(xy[0] - mask.width / 2)), int(round(xy[1] - mask.height / 2))), mask)


def _draw_static_text(img: Image.Image, scenario: Scenario, g: BoardGeometry, hexes: list[str]) -> None:
    """The friendly map edges, drawn at final scale (crisp). Hex ids and victory-hex values are
    laid out with the counters (board_layout), never under one."""
    d = ImageDraw.Draw(img)
    # friendly map edges (§12.4)
    x0, y0, x1, y1 = g.map_box
    band = EDGE_BAND * g.zoom
    lf = font(max(9, int(round(13 * g.zoom))), True)
    wing_names = {w.id: (w.name, w.side) for w in scenario.wings}
    labels = [(f"{SIDE_NAMES.get(side, side)} friendly map edge", side, edge)
              for side, edge in sorted(scenario.edges.items())]
    labels += [(f"{wing_names[w][0]}: friendly map edge", wing_names[w][1], edge)
               for w, edge in sorted(scenario.wing_edges.items())]
    if box_is_full(g):
        _draw_rulers(d, scenario, g)
    for text, side, edge in labels:
        colour = SIDE_DARK.get(side, (60, 60, 60))
        for t in (0.25, 0.75):
            if edge in ("east", "west"):
                x = x1 + band / 2 if edge == "east" else x0 - band / 2
                y = y0 + (y1 - y0) * t
                # rotated to run along the edge; the triangles end up pointing off the map
                _rotated_text(img, (x, y), f"\u25b2 {text} \u25b2", lf, colour,
                              90 if edge == "west" else -90)
            else:
                x = x0 + (x1 - x0) * t
                y = y0 - band / 2 if edge == "north" else y1 + band / 2
                d.text((x, y), text, font=lf, fill=colour, anchor="mm")


def ruler_px(width: int) -> int:
    """The rulers' font size on a full map `width` px wide."""
    return math.ceil(RULER_TEXT_PX * width / DISPLAY_W)


def box_is_full(g: BoardGeometry) -> bool:
    """Is this view the whole map at its own scale (not a crop)?"""
    return g.zoom == 1.0 and g.offset == (0.0, 0.0) and (g.width, g.height) == g.map_size


def _draw_rulers(d: ImageDraw.ImageDraw, scenario: Scenario, g: BoardGeometry) -> None:
    """Column numbers above (odd columns) and below (even columns) the map, row numbers left
    (beside column 01) and right (beside the last column): on the full map, where the hex ids
    are too small to read at Discord's width, a hex can still be found as column + row."""
    draw_hex_rulers(d, g, scenario.cols, scenario.rows, font(ruler_px(g.width), True),
                    (EDGE_BAND + RULER_BAND / 2) * g.zoom)
