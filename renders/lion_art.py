"""Lion of the North table, the ground itself: the view's pixel geometry and the cached terrain
layer (Pillow only; issue 15).

`TableView` maps the table's centimetres (origin south-west, x east, y NORTH: engine/lion/state.py)
to the picture's pixels (y down): `px(x, y)`. The full board is the whole 180 x 120 cm table at
FULL_WIDTH px inside a dark frame whose left and bottom bands carry the 10 cm grid's labels; a
crop is a part of the table at one of from . import table_common
from .common import ScenarioKey, dashed_polyline, downsample, font, image_cache, outlined_text, text_width
from .table_common import draw_polygon, lattice, polygons

SS = 2                       # supersampling of the terrain
TILE = 256
FULL_WIDTH = 1600           # px of the full board
CROP_W = 1100               # px of a crop (at most)
RULER_TEXT_PX = 9.6          # the rulers' labels once a picture is shown DISPLAY_W wide
CROP_SCALES, pasted from 256 px tiles; an overview (a replay
frame) the whole table at any width. The terrain (woods, marsh, towns, hills with their contour and
level, roads, rivers and streams with their fords and bridges, walls and defences, the deployment
zones, the feature names, the light 10 cm grid) is drawn once per scenario and scale, supersampled
2x and cached (as renders/jdg_geometry.py does); shapes come from the scenario's own shapely
geometry (`Feature.geometry`), so the picture shows what the rules measure. Knows nothing of units,
the last action or the strip (renders/lion.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw
from shapely.geometry import Point, Polygon, box as shp_box

from . import table_common
from .common import ScenarioKey, dashed_polyline, downsample, font, image_cache, outlined_text
from .table_common import draw_polygon, lattice, polygons

SS = 2                       # supersampling of the terrain
TILE = 256
FULL_WIDTH = 1600            # px of the full board
CROP_W = 1100                # px of a crop (at most)
RULER_TEXT_PX = 9.6          # the rulers' labels once a picture is shown DISPLAY_W wide
CROP_SCALES = (6.2, 7.0, 8.5, 10.0, 12.0, 14.0, 17.0, 20.0, 24.0)
DISPLAY_W = 550              # the width Discord shows an image at

# -- palette -----------------------------------------------------------------------------------------
FRAME_BG = (52, 48, 42)
FRAME_FG = (226, 220, 200)
GROUND = (190, 203, 146)
GRID = (255, 255, 255, 70)
GRID_50 = (255, 255, 255, 120)
TERRAIN = {
    "woods": (104, 146, 80), "woods_tree": (62, 104, 52), "woods_edge": (48, 84, 40),
    "marsh": (160, 190, 168), "marsh_mark": (70, 120, 150), "marsh_edge": (92, 132, 130),
    "town": (198, 178, 160), "town_roof": (160, 82, 62), "town_edge": (112, 84, 70),
    "hill": ((214, 198, 146), (200, 178, 122), (184, 158, 100)), "contour": (132, 96, 52),
    "road": (222, 198, 150), "road_edge": (160, 130, 92),
    "river": (74, 132, 204), "stream": (96, 156, 214), "water_edge": (40, 84, 150),
    "ford": (168, 204, 228), "ford_mark": (236, 240, 244),
    "bridge": (150, 108, 64), "bridge_edge": (70, 48, 26),
    "wall": (128, 126, 120), "wall_edge": (70, 68, 64),
    "defences": (120, 88, 52), "defences_edge": (60, 40, 20),
}
LABEL_INK = (40, 36, 30)

# The sides' colours by nation: (body, front edge and text, dark outline).
NATION_COLOURS = {
    "swedish": ((36, 84, 178), (250, 206, 30), (12, 26, 70)),
    "imperial": ((246, 244, 238), (172, 22, 44), (60, 20, 20)),
    "saxon": ((34, 132, 66), (246, 246, 240), (10, 50, 24)),
    "spanish": ((250, 232, 180), (178, 24, 40), (80, 30, 20)),
}
NATION_NAMES = {"swedish": "Swedish", "imperial": "Imperial", "saxon": "Saxon", "spanish": "Spanish"}


def nation_colours(nation: str) -> tuple[tuple[int, int, int], ...]:
    return NATION_COLOURS.get(nation, ((150, 150, 150), (30, 30, 30), (20, 20, 20)))


# -- the view ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableView:
    """Pixel geometry of a picture of the table: `s` px per cm; the table point (vx0, vy1) (the
    view's north-west corner, cm) at pixel (ox, oy); the board `width` x `height` px (the strip
    goes below). `px(x, y)` is where a table point is drawn (y grows north, so the picture's y
    is flipped)."""
    s: float
    vx0: float
    vy0: float
    vx1: float
    vy1: float
    ox: float
    oy: float
    width: int
    height: int
    kind: str = "full"            # full / crop / overview

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + (x - self.vx0) * self.s, self.oy + (self.vy1 - y) * self.s)

    def pts(self, coords) -> list[tuple[float, float]]:
        return [self.px(x, y) for x, y in coords]

    def cm(self, px: float, py: float) -> tuple[float, float]:
        """The table point under a pixel (the inverse of `px`)."""
        return (self.vx0 + (px - self.ox) / self.s, self.vy1 - (py - self.oy) / self.s)

    @property
    def table_box(self) -> tuple[int, int, int, int]:
        """The pixels of the table part of the view (left, top, right, bottom)."""
        x0, y0 = self.px(self.vx0, self.vy1)
        x1, y1 = self.px(self.vx1, self.vy0)
        return (int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1)))

    @property
    def cm_box(self) -> Polygon:
        return shp_box(self.vx0, self.vy0, self.vx1, self.vy1)

    def scaled(self, k: int) -> "TableView":
        return TableView(self.s * k, self.vx0, self.vy0, self.vx1, self.vy1, self.ox * k, self.oy * k,
                         self.width * k, self.height * k, self.kind)


def ruler_px(width: int) -> int:
    """The rulers' font size on a picture `width` px wide (RULER_TEXT_PX once shown DISPLAY_W wide)."""
    return max(11, math.ceil(RULER_TEXT_PX * width / DISPLAY_W))


def frame(text_px: int) -> dict[str, int]:
    """The dark frame around the table: the left band holds the y labels, the bottom band the x
    labels and the scale bar."""
    return {"left": int(2.0 * text_px + 14), "right": 10, "top": 10, "bottom": int(2 * text_px + 22)}


def full_view(width_cm: float, height_cm: float, width_px: int = FULL_WIDTH) -> TableView:
    """The whole table `width_px` wide (the full board, or an overview / replay frame)."""
    f = frame(ruler_px(width_px))
    s = round((width_px - f["left"] - f["right"]) / width_cm, 4)
    h = int(round(f["top"] + height_cm * s + f["bottom"]))
    kind = "full" if width_px == FULL_WIDTH else "overview"
    return TableView(s, 0.0, 0.0, width_cm, height_cm, f["left"], f["top"], int(width_px), h, kind)


def crop_view(s: float, x0: float, y0: float, x1: float, y1: float) -> TableView:
    """A crop at scale `s` of the table part x0..x1, y0..y1 (cm), snapped to whole pixels of the
    scale's tile grid (so the tiles paste without seams)."""
    f = frame(ruler_px(CROP_W))
    gx0, gx1 = math.floor(x0 * s), math.floor(x1 * s)
    gy0, gy1 = math.floor(y0 * s), math.floor(y1 * s)
    vx0, vx1, vy0, vy1 = gx0 / s, gx1 / s, gy0 / s, gy1 / s
    w = int(f["left"] + (gx1 - gx0) + f["right"])
    h = int(f["top"] + (gy1 - gy0) + f["bottom"])
    return TableView(s, vx0, vy0, vx1, vy1, f["left"], f["top"], w, h, "crop")


# -- the terrain -------------------------------------------------------------------------------------
def scenario_key(scenario) -> ScenarioKey:
    """The terrain cache's key: the scenario id and everything the terrain layer draws."""
    parts = (scenario.width, scenario.height,
             [(f.id, f.kind, f.name, f.points, f.width, f.level) for f in scenario.features],
             sorted((s, a.home_edge, a.deployment, a.nation) for s, a in scenario.armies.items()))
    return ScenarioKey(scenario, parts)


_polys = polygons
_lattice = lattice


def _poly(d: ImageDraw.ImageDraw, gpx, geom, fill, outline=None, width: int = 1) -> None:
    draw_polygon(d, gpx, geom, fill, outline, width, hole_fill=GROUND, always_fill=True)


def _feature_layers(scenario):
    order = {"hill": 0, "marsh": 1, "woods": 2, "town": 3, "river": 4, "stream": 4, "ford": 5,
             "road": 6, "bridge": 7, "wall": 8, "defences": 8}
    return sorted(scenario.features, key=lambda f: (order.get(f.kind, 9), f.level, f.id))


def draw_terrain(scenario, s: float, box: tuple[int, int, int, int]) -> Image.Image:
    """The table at `s` px/cm inside the pixel box of the table-wide picture whose (0, 0) is the
    table's north-west corner (a tile, or the whole table), RGB, supersampled."""
    bx0, by0, bx1, by1 = box
    k = s * SS
    H = scenario.height
    img = Image.new("RGB", ((bx1 - bx0) * SS, (by1 - by0) * SS), GROUND)
    d = ImageDraw.Draw(img, "RGBA")

    def gpx(x: float, y: float) -> tuple[float, float]:
        return (x * k - bx0 * SS, (H - y) * k - by0 * SS)

    area = shp_box(bx0 / s, H - by1 / s, bx1 / s, H - by0 / s)
    lw = max(1, int(round(0.18 * k)))
    for f in _feature_layers(scenario):
        geom = f.geometry
        if not geom.intersects(area.buffer(2)):
            continue
        kind = f.kind
        if kind == "hill":
            shades = TERRAIN["hill"]
            fill = shades[min(max(f.level, 1), len(shades)) - 1]
            _poly(d, gpx, geom, fill, TERRAIN["contour"], max(2, int(round(0.25 * k))))
            inner = geom.buffer(-0.6)
            for p in _polys(inner):       # a second, thin contour line: the slope
                d.line([gpx(x, y) for x, y in p.exterior.coords], fill=TERRAIN["contour"] + (110,),
                       width=max(1, int(round(0.1 * k))))
        elif kind == "woods":
            _poly(d, gpx, geom, TERRAIN["woods"])
            r = 0.85 * k
            for x, y in _lattice(geom.buffer(-0.7), 2.4, True, area):
                cx, cy = gpx(x, y)
                d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=TERRAIN["woods_tree"])
            _poly(d, gpx, geom, None, TERRAIN["woods_edge"], lw)
        elif kind == "marsh":
            _poly(d, gpx, geom, TERRAIN["marsh"])
            for x, y in _lattice(geom.buffer(-0.5), 2.0, True, area):
                cx, cy = gpx(x, y)
                d.line([(cx - 0.6 * k, cy), (cx + 0.6 * k, cy)], fill=TERRAIN["marsh_mark"], width=lw)
                d.line([(cx - 0.2 * k, cy - 0.45 * k), (cx - 0.2 * k, cy)], fill=TERRAIN["marsh_mark"], width=lw)
            _poly(d, gpx, geom, None, TERRAIN["marsh_edge"], lw)
        elif kind == "town":
            _poly(d, gpx, geom, TERRAIN["town"])
            for x, y in _lattice(geom.buffer(-1.2), 3.2, True, area):
                cx, cy = gpx(x, y)
                d.rectangle((cx - 0.9 * k, cy - 0.6 * k, cx + 0.9 * k, cy + 0.6 * k),
                            fill=TERRAIN["town_roof"], outline=TERRAIN["town_edge"])
            _poly(d, gpx, geom, None, TERRAIN["town_edge"], max(2, lw))
        elif kind in ("river", "stream"):
            _poly(d, gpx, geom, TERRAIN[kind], TERRAIN["water_edge"], lw)
        elif kind == "ford":
            _poly(d, gpx, geom, TERRAIN["ford"], TERRAIN["water_edge"], lw)
            line = getattr(f, "line", None)
            if line is not None and line.length > 0:
                n = max(2, int(line.length / 1.5))
                for i in range(1, n):
                    p = line.interpolate(i / n, normalized=True)
                    cx, cy = gpx(p.x, p.y)
                    rr = 0.35 * k
                    d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=TERRAIN["ford_mark"])
        elif kind == "road":
            _poly(d, gpx, geom, TERRAIN["road"], TERRAIN["road_edge"], lw)
        elif kind == "bridge":
            _poly(d, gpx, geom, TERRAIN["bridge"], TERRAIN["bridge_edge"], max(2, lw))
            line = getattr(f, "line", None)
            if line is not None and line.length > 0:      # planks across the roadway
                n = max(2, int(line.length / 0.9))
                (ax, ay), (bx, by) = line.coords[0], line.coords[-1]
                ln = math.dist((ax, ay), (bx, by))
                nx, ny = -(by - ay) / ln * f.width / 2, (bx - ax) / ln * f.width / 2
                for i in range(1, n):
                    p = line.interpolate(i / n, normalized=True)
                    d.line([gpx(p.x - nx, p.y - ny), gpx(p.x + nx, p.y + ny)],
                           fill=TERRAIN["bridge_edge"], width=max(1, lw // 2))
        elif kind in ("wall", "defences"):
            g2 = geom.buffer(max(0.0, 0.45 - f.width / 2)) if f.width < 0.9 else geom
            _poly(d, gpx, g2, TERRAIN[kind], TERRAIN[kind + "_edge"], lw)
            line = getattr(f, "line", None)
            if kind == "defences" and line is not None and line.length > 0:   # ticks outward (north)
                n = max(2, int(line.length / 2.0))
                for i in range(n + 1):
                    p = line.interpolate(i / n, normalized=True)
                    d.line([gpx(p.x, p.y), gpx(p.x, p.y + 1.1)], fill=TERRAIN["defences_edge"], width=lw)
    # the deployment zones: a dashed line in the side's colours where a zone's edge crosses the table
    table = shp_box(0, 0, scenario.width, H)
    for side in sorted(scenario.armies):
        try:
            zone = scenario.deployment_zone(side)
        except Exception:                     # noqa: BLE001 - a picture never fails on a zone
            continue
        body, front, _ = nation_colours(scenario.armies[side].nation)
        edge = zone.exterior.intersection(table.buffer(-0.01))
        for seg in getattr(edge, "geoms", [edge]):
            coords = list(getattr(seg, "coords", []))
            if len(coords) >= 2:
                pts = [gpx(x, y) for x, y in coords]
                dashed_polyline(d, pts, front + (255,), max(2, int(0.3 * k)), dash=1.6 * k, gap=1.6 * k)
                dashed_polyline(d, _shift(pts, 0.28 * k), body + (230,), max(2, int(0.3 * k)), dash=1.6 * k, gap=1.6 * k)
    # the light 10 cm grid, darker every 50 cm
    for gx in range(10, int(scenario.width), 10):
        x, _ = gpx(gx, 0)
        d.line([(x, 0), (x, img.height)], fill=GRID_50 if gx % 50 == 0 else GRID, width=max(1, SS))
    for gy in range(10, int(H), 10):
        _, y = gpx(0, gy)
        d.line([(0, y), (img.width, y)], fill=GRID_50 if gy % 50 == 0 else GRID, width=max(1, SS))
    out = downsample(img, SS)
    _feature_names(out, scenario, s, box)
    return out


def _shift(pts, dy: float):
    return [(x, y + dy) for x, y in pts]


def _feature_names(img: Image.Image, scenario, s: float, box) -> None:
    """The names of towns, woods, hills and marshes at their centres (the crop's tiles agree: the
    text is drawn whole on every tile it touches, clipped by the tile)."""
    bx0, by0, _, _ = box
    H = scenario.height
    size = feature_name_size(s)
    fnt = font(size, True)
    d = ImageDraw.Draw(img)
    sk = scenario_key(scenario)
    for f in scenario.features:
        if f.kind not in ("town", "woods", "hill", "marsh") or not f.name:
            continue
        c = _label_spot(sk, f.id)
        x, y = c[0] * s - bx0, (H - c[1]) * s - by0
        text = f.name + (f" (hill {f.level})" if f.kind == "hill" else "")
        outlined_text(d, (x, y), text, fnt, fill=(255, 255, 240), outline=LABEL_INK, width=max(2, size // 8))


def feature_name_size(s: float) -> int:
    """The features' names' font px at `s` px/cm."""
    return int(round(min(26, max(11, 1.45 * s))))


def label_spot(sk: ScenarioKey, feature_id: str) -> tuple[float, float]:
    """Where a feature's name is written (table cm)."""
    return _label_spot(sk, feature_id)


def _start_bases(scenario) -> list[Polygon]:
    from engine.lion.scenario import camp_rect, general_rect, unit_rect
    out = []
    for u in getattr(scenario, "units", ()):
        if not u.arrives:
            out.append(unit_rect(u))
    out += [general_rect(g) for g in getattr(scenario, "generals", ())]
    out += [camp_rect(c) for c in getattr(scenario, "camps", ())]
    return out


@lru_cache(maxsize=256)
def _label_spot(sk: ScenarioKey, feature_id: str) -> tuple[float, float]:
    """Where a feature's name goes: inside it, as far as it can be (up to 4 cm) from the bases
    the battle starts with, then near its centre (a point of a table-wide lattice: every tile
    agrees)."""
    scenario = sk.scenario
    f = scenario.feature(feature_id)
    geom = f.geometry
    inner = geom.buffer(-1.0)
    if inner.is_empty:
        inner = geom
    c = geom.centroid
    cands = _lattice(inner, 2.0, False, inner) or [(c.x, c.y)]
    bases = [b for b in _start_bases(scenario) if b.distance(geom) < 5]
    best, score = cands[0], None
    for x, y in cands:
        p = Point(x, y)
        clear = min([4.0] + [min(4.0, b.distance(p) - 0.8) for b in bases])
        sc = (-round(clear, 1), round(math.dist((x, y), (c.x, c.y)), 3), x, y)
        if score is None or sc < score:
            best, score = (x, y), sc
    return best


@image_cache(96 << 20)
def _terrain_whole(sk: ScenarioKey, s: float) -> Image.Image:
    sc = sk.scenario
    return draw_terrain(sc, s, (0, 0, int(round(sc.width * s)), int(round(sc.height * s))))


@image_cache(128 << 20)
def _terrain_tile(sk: ScenarioKey, s: float, tx: int, ty: int) -> Image.Image:
    sc = sk.scenario
    w, h = int(math.floor(sc.width * s)), int(math.floor(sc.height * s))
    box = (tx * TILE, ty * TILE, min(w, (tx + 1) * TILE), min(h, (ty + 1) * TILE))
    return draw_terrain(sc, s, box)


def terrain_image(scenario, v: TableView) -> Image.Image:
    """A new RGB image of the view's size: the frame, and the table's terrain where the view shows
    it (the whole table cached per scale; a crop pasted from cached tiles)."""
    out = Image.new("RGB", (v.width, v.height), FRAME_BG)
    sk = scenario_key(scenario)
    if v.kind in ("full", "overview"):
        out.paste(_terrain_whole(sk, v.s), (int(round(v.ox)), int(round(v.oy))))
        return out
    H = scenario.height
    x0, y0 = int(math.floor(v.vx0 * v.s + 1e-6)), int(math.floor((H - v.vy1) * v.s + 1e-6))
    x1, y1 = x0 + int(round((v.vx1 - v.vx0) * v.s)), y0 + int(round((v.vy1 - v.vy0) * v.s))
    region = Image.new("RGB", (x1 - x0, y1 - y0), GROUND)
    for ty in range(y0 // TILE, (y1 - 1) // TILE + 1):
        for tx in range(x0 // TILE, (x1 - 1) // TILE + 1):
            region.paste(_terrain_tile(sk, v.s, tx, ty), (tx * TILE - x0, ty * TILE - y0))
    out.paste(region, (int(round(v.ox)), int(round(v.oy))))
    return out


def terrain_cache_clear() -> None:
    _terrain_whole.cache_clear()
    _terrain_tile.cache_clear()


# -- rulers and the scale bar (drawn per view, on the frame) -------------------------------------------
def draw_rulers(img: Image.Image, v: TableView, text_px: int) -> None:
    """The grid's labels every 10 cm along the bottom (x) and the left (y) bands of the frame."""
    table_common.draw_rulers(img, v, text_px, 10, FRAME_FG)


def draw_scale_bar(img: Image.Image, v: TableView, text_px: int) -> None:
    """A 0-10-20 cm bar (0-5-10 when the view is very close) in the bottom band, right."""
    n = 20 if v.s * 20 <= v.width / 3 else 10
    table_common.draw_scale_bar(img, v, text_px, n, "cm", text_px * 2.6, FRAME_FG, unit_ticks=False)
