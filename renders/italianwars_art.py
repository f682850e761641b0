"""Italian Wars table, the ground itself: the view's geometry (Lion's `TableView`, in UDM here) and
the cached terrain layer (Pillow only; issue 16).

The table is 45 x 30 UDM (HERALD D1: one UDM = a base's frontage), origin south-west, x east,
y NORTH (engine/italianwars/state.py). `TableView.px(x, y)` maps table UDM to pixels (y down). The
full board is the whole table FULL_WIDTH px wide inside the dark frame of renders/lion_art.py (its
left and bottom bands carry the grid's labels every 5 UDM and the scale bar in UDM); a crop a part
of the table at one of CROP_SCALES px per UDM.

Terrain is coloured by its CATEGORY (IW Terreno: open / broken / closed / impassable, the
feature's own `category`), with the kind's marks on top (trees, vine rows, roofs, marsh reeds,
scrub tufts, rocks, corn; hills by level with their contour and the crest line dashed; roads,
rivers, canals, streams, fords and bridges; linear obstacles and field defences as bands with
their own marks), the deployment edges (6 UDM, dashed in each side's colours) and a light 1 UDM
grid, darker every 5. Drawn once per scenario, scale and box, supersampled 2x, cached; shapes are
the scenario's own shapely geometry (`Feature.geometry`), so the picture shows what the rules
measure. Knows nothing of companies, the last action or the strip (renders/italianwars.py).
"""
from __future__ import annotations

import math

from PIL import Image, ImageDraw
from shapely.geometry import box as shp_box

from . import table_common
from .common import ScenarioKey, dashed_polyline, downsample, font, image_cache, outlined_text, text_width
from .lion_art import (CROP_W, DISPLAY_W, FRAME_BG, FRAME_FG, FULL_WIDTH, TableView, crop_view, full_view,
                       ruler_px)
from .table_common import draw_polygon, lattice, polygons

__all__ = ["TableView", "full_view", "crop_view", "ruler_px", "terrain_image", "draw_rulers", "draw_scale_bar",
           "nation_colours", "NATION_COLOURS", "NATION_NAMES", "CATEGORY_FILL", "GROUND", "FULL_WIDTH",
           "CROP_W", "CROP_SCALES", "DISPLAY_W", "SS"]

SS = 2
CROP_SCALES = (34.0, 38.0, 44.0, 50.0, 56.0, 64.0, 72.0)     # px per UDM

# -- palette -------------------------------------------------------------------------------------
GROUND = (196, 206, 150)                       # open ground
GRID = (255, 255, 255, 60)
GRID_5 = (255, 255, 255, 140)
CATEGORY_FILL = {                              # IW Terreno: the category's fill
    "open": (214, 204, 150),
    "broken": (178, 176, 96),
    "closed": (118, 136, 78),
    "impassable": (92, 88, 84),
}
CATEGORY_EDGE = {"open": (150, 124, 70), "broken": (110, 104, 44), "closed": (54, 72, 34),
                 "impassable": (30, 28, 26)}
MARK = {
    "tree": (52, 96, 44), "vine": (96, 70, 44), "roof": (164, 78, 58), "house_edge": (88, 60, 48),
    "reed": (60, 110, 140), "tuft": (92, 110, 52), "rock": (120, 112, 100), "corn": (226, 196, 80),
    "contour": (130, 94, 50), "crest": (96, 60, 24),
    "road": (226, 204, 156), "road_edge": (150, 122, 84),
    "water": (74, 132, 204), "water_edge": (36, 80, 150), "stream": (100, 160, 216),
    "ford": (170, 206, 230), "ford_mark": (240, 244, 246),
    "bridge": (150, 108, 64), "bridge_edge": (70, 48, 26),
    "hedge": (56, 110, 46), "low_wall": (150, 146, 136), "palisade": (130, 92, 50),
    "drainage_ditch": (84, 130, 170), "high_wall": (96, 94, 90), "ditch": (96, 70, 42),
    "dyke": (150, 120, 76), "ridge": (140, 110, 66), "defences": (120, 82, 40), "line_edge": (40, 32, 24),
}
LABEL_INK = (40, 36, 30)

# The nations' colours: (body, front edge and label, dark outline) (the task's heraldry).
_FRENCH = ((34, 70, 170), (246, 204, 40), (10, 24, 70))
_SWISS = ((206, 34, 40), (250, 250, 250), (80, 10, 14))
_LANDSKNECHT = ((246, 212, 44), (22, 22, 22), (60, 50, 10))
_SPANISH = ((190, 26, 34), (250, 214, 40), (70, 10, 14))
_VENETIAN = ((130, 18, 52), (226, 186, 62), (50, 6, 20))
_PAPAL = ((246, 244, 236), (236, 196, 30), (70, 60, 20))
_ITALIAN = ((36, 128, 70), (240, 240, 226), (10, 50, 26))
NATION_COLOURS = {
    "french": _FRENCH, "gascon": _FRENCH, "scots": _FRENCH,
    "swiss": _SWISS,
    "landsknecht": _LANDSKNECHT, "imperial_landsknecht": _LANDSKNECHT, "german": _LANDSKNECHT,
    "spanish": _SPANISH,
    "venetian": _VENETIAN, "stradiot": _VENETIAN,
    "papal": _PAPAL,
    "italian": _ITALIAN, "milanese": _ITALIAN, "mantuan": _ITALIAN, "ferrarese": _ITALIAN,
    "florentine": _ITALIAN,
}
NATION_NAMES = {"french": "French", "league": "League"}


def nation_colours(nation: str) -> tuple[tuple[int, int, int], ...]:
    return NATION_COLOURS.get(nation, ((150, 150, 150), (30, 30, 30), (20, 20, 20)))


# -- the terrain ---------------------------------------------------------------------------------
def scenario_key(scenario) -> ScenarioKey:
    parts = (scenario.width, scenario.height,
             [(f.id, f.kind, f.category, f.name, f.points, f.width, f.level, f.crest) for f in scenario.features],
             sorted((s, a.home_edge, a.deployment, a.nations) for s, a in scenario.armies.items()))
    return ScenarioKey(scenario, parts)


_polys = polygons
_lattice = lattice


def _poly(d, gpx, geom, fill, outline=None, width: int = 1) -> None:
    draw_polygon(d, gpx, geom, fill, outline, width, hole_fill=GROUND)


_ORDER = {"hill": 0, "lake": 1, "marsh": 1, "cornfield": 2, "cultivation": 2, "vineyard": 2, "scrub": 2, "rough": 2,
          "woods": 3, "village": 4, "town": 4, "fortification": 4, "river": 5, "canal": 5, "stream": 5,
          "drainage_ditch": 5, "ford": 6, "road": 7, "bridge": 8}


def _layers(scenario):
    return sorted(scenario.features, key=lambda f: (_ORDER.get(f.kind, 9), f.level, f.id))


def _area(d, gpx, f, geom, area, k: float, lw: int) -> None:
    """An area feature: the category's fill, the kind's marks, the category's edge."""
    cat = f.category or "open"
    kind = f.kind
    fill = CATEGORY_FILL.get(cat, GROUND)
    edge = CATEGORY_EDGE.get(cat, LABEL_INK)
    if kind == "hill":
        shade = max(0, min(2, f.level - 1)) * 14
        fill = tuple(max(0, c - shade) for c in fill)
        _poly(d, gpx, geom, fill, MARK["contour"], max(2, int(round(0.08 * k))))
        for p in _polys(geom.buffer(-0.35)):
            d.line([gpx(x, y) for x, y in p.exterior.coords], fill=MARK["contour"] + (110,),
                   width=max(1, int(round(0.035 * k))))
        crest = getattr(f, "crest_line", None)
        if crest is not None and crest.length > 0:
            dashed_polyline(d, [gpx(x, y) for x, y in crest.coords], MARK["crest"] + (255,),
                            max(2, int(round(0.09 * k))), dash=0.5 * k, gap=0.3 * k)
        return
    if kind == "lake":
        fill = MARK["water"]
    _poly(d, gpx, geom, fill)
    r = max(1.0, 0.3 * k)
    if kind == "woods":
        for x, y in _lattice(geom.buffer(-0.3), 0.9, True, area):
            cx, cy = gpx(x, y)
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=MARK["tree"])
    elif kind in ("vineyard", "cultivation"):
        for x, y in _lattice(geom.buffer(-0.2), 0.5, False, area):
            cx, cy = gpx(x, y)
            d.line([(cx - 0.18 * k, cy), (cx + 0.18 * k, cy)], fill=MARK["vine"], width=max(1, lw))
    elif kind in ("village", "town"):
        for x, y in _lattice(geom.buffer(-0.45), 1.1 if kind == "village" else 0.8, True, area):
            cx, cy = gpx(x, y)
            d.rectangle((cx - 0.3 * k, cy - 0.2 * k, cx + 0.3 * k, cy + 0.2 * k), fill=MARK["roof"],
                        outline=MARK["house_edge"])
    elif kind == "fortification":
        for x, y in _lattice(geom.buffer(-0.3), 0.8, True, area):
            cx, cy = gpx(x, y)
            d.rectangle((cx - 0.25 * k, cy - 0.25 * k, cx + 0.25 * k, cy + 0.25 * k), fill=MARK["high_wall"])
    elif kind == "marsh":
        for x, y in _lattice(geom.buffer(-0.2), 0.7, True, area):
            cx, cy = gpx(x, y)
            d.line([(cx - 0.2 * k, cy), (cx + 0.2 * k, cy)], fill=MARK["reed"], width=lw)
            d.line([(cx, cy - 0.18 * k), (cx, cy)], fill=MARK["reed"], width=lw)
    elif kind == "scrub":
        for x, y in _lattice(geom.buffer(-0.2), 0.7, True, area):
            cx, cy = gpx(x, y)
            rr = 0.13 * k
            d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=MARK["tuft"])
    elif kind == "rough":
        for x, y in _lattice(geom.buffer(-0.2), 0.8, True, area):
            cx, cy = gpx(x, y)
            rr = 0.16 * k
            d.polygon([(cx - rr, cy + rr), (cx, cy - rr), (cx + rr, cy + rr)], fill=MARK["rock"])
    elif kind == "cornfield":
        for x, y in _lattice(geom.buffer(-0.2), 0.45, False, area):
            cx, cy = gpx(x, y)
            d.line([(cx, cy - 0.15 * k), (cx, cy + 0.15 * k)], fill=MARK["corn"], width=lw)
    if cat == "impassable":                       # cross-hatched over the marks
        for x, y in _lattice(geom, 0.7, False, area):
            cx, cy = gpx(x, y)
            d.line([(cx - 0.3 * k, cy + 0.3 * k), (cx + 0.3 * k, cy - 0.3 * k)], fill=(30, 28, 26, 120),
                   width=lw)
    _poly(d, gpx, geom, None, edge, max(2, int(round(0.06 * k))))


def _line(d, gpx, f, geom, k: float, lw: int) -> None:
    """A line feature or a crossing."""
    kind = f.kind
    line = getattr(f, "line", None)
    if kind in ("river", "canal", "stream", "drainage_ditch"):
        col = MARK["stream"] if kind == "stream" else (MARK["drainage_ditch"] if kind == "drainage_ditch"
                                                        else MARK["water"])
        edge = (10, 10, 20) if f.category == "impassable" else MARK["water_edge"]
        _poly(d, gpx, geom, col, edge, max(2, lw * (2 if f.category == "impassable" else 1)))
    elif kind == "ford":
        _poly(d, gpx, geom, MARK["ford"], MARK["water_edge"], lw)
        if line is not None and line.length > 0:
            n = max(2, int(line.length / 0.5))
            for i in range(1, n):
                p = line.interpolate(i / n, normalized=True)
                cx, cy = gpx(p.x, p.y)
                rr = 0.12 * k
                d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=MARK["ford_mark"])
    elif kind == "road":
        _poly(d, gpx, geom, MARK["road"], MARK["road_edge"], lw)
    elif kind == "bridge":
        _poly(d, gpx, geom, MARK["bridge"], MARK["bridge_edge"], max(2, lw))
        if line is not None and line.length > 0:
            n = max(2, int(line.length / 0.3))
            (ax, ay), (bx, by) = line.coords[0], line.coords[-1]
            ln = math.dist((ax, ay), (bx, by)) or 1.0
            nx, ny = -(by - ay) / ln * f.width / 2, (bx - ax) / ln * f.width / 2
            for i in range(1, n):
                p = line.interpolate(i / n, normalized=True)
                d.line([gpx(p.x - nx, p.y - ny), gpx(p.x + nx, p.y + ny)], fill=MARK["bridge_edge"],
                       width=max(1, lw // 2))
    else:                                         # linear obstacles and field defences
        g2 = geom.buffer(max(0.0, 0.12 - f.width / 2)) if f.width < 0.24 else geom
        _poly(d, gpx, g2, MARK.get(kind, (120, 100, 70)), MARK["line_edge"], max(1, lw))
        if line is not None and line.length > 0 and kind in ("defences", "palisade"):
            n = max(2, int(line.length / 0.6))
            for i in range(n + 1):            # teeth toward the north of the line's direction
                p = line.interpolate(i / n, normalized=True)
                q = line.interpolate(min(1.0, i / n + 0.01), normalized=True)
                dx, dy = q.x - p.x, q.y - p.y
                ln = math.hypot(dx, dy) or 1.0
                nx, ny = -dy / ln, dx / ln
                reach = f.width / 2 + 0.3
                d.line([gpx(p.x, p.y), gpx(p.x + nx * reach, p.y + ny * reach)], fill=MARK["line_edge"], width=lw)


def draw_terrain(scenario, s: float, box: tuple[int, int, int, int]) -> Image.Image:
    """The table at `s` px/UDM inside the pixel box of the table-wide picture whose (0, 0) is the
    table's north-west corner, RGB, supersampled 2x."""
    bx0, by0, bx1, by1 = box
    k = s * SS
    H = scenario.height
    img = Image.new("RGB", ((bx1 - bx0) * SS, (by1 - by0) * SS), GROUND)
    d = ImageDraw.Draw(img, "RGBA")

    def gpx(x: float, y: float) -> tuple[float, float]:
        return (x * k - bx0 * SS, (H - y) * k - by0 * SS)

    area = shp_box(bx0 / s, H - by1 / s, bx1 / s, H - by0 / s)
    lw = max(1, int(round(0.05 * k)))
    for f in _layers(scenario):
        geom = f.geometry
        if not geom.intersects(area.buffer(1)):
            continue
        if f.is_area:
            _area(d, gpx, f, geom, area, k, lw)
        else:
            _line(d, gpx, f, geom, k, lw)
    # the deployment edges: a dashed line in the side's colours where each zone meets the table
    table = shp_box(0, 0, scenario.width, H)
    for side in sorted(scenario.armies):
        try:
            zone = scenario.deployment_zone(side)
            nations = scenario.armies[side].nations
        except Exception:                        # noqa: BLE001 - a picture never fails on a zone
            continue
        body, front, _ = nation_colours(nations[0] if nations else side)
        edge = zone.exterior.intersection(table.buffer(-0.01))
        for seg in getattr(edge, "geoms", [edge]):
            coords = list(getattr(seg, "coords", []))
            if len(coords) >= 2:
                pts = [gpx(x, y) for x, y in coords]
                w = max(2, int(0.09 * k))
                dashed_polyline(d, pts, front + (255,), w, dash=0.5 * k, gap=0.5 * k)
                dashed_polyline(d, [(x, y + w) for x, y in pts], body + (230,), w, dash=0.5 * k, gap=0.5 * k)
    # the light 1 UDM grid, stronger every 5
    for gx in range(1, int(scenario.width)):
        x, _ = gpx(gx, 0)
        d.line([(x, 0), (x, img.height)], fill=GRID_5 if gx % 5 == 0 else GRID, width=max(1, SS))
    for gy in range(1, int(H)):
        _, y = gpx(0, gy)
        d.line([(0, y), (img.width, y)], fill=GRID_5 if gy % 5 == 0 else GRID, width=max(1, SS))
    out = downsample(img, SS)
    _feature_names(out, scenario, s, box)
    return out


def feature_name_size(s: float) -> int:
    return int(round(min(24, max(11, 0.36 * s))))


def name_spot(f) -> tuple[float, float]:
    """Where a feature's name is written (UDM): a representative point inside it."""
    p = f.geometry.representative_point() if f.is_area else f.line.interpolate(0.5, normalized=True)
    return (p.x, p.y)


NAMED_KINDS = ("hill", "woods", "vineyard", "cultivation", "village", "town", "marsh", "scrub", "rough",
               "lake", "fortification", "cornfield", "river", "canal")


def _feature_names(img: Image.Image, scenario, s: float, box) -> None:
    bx0, by0, _, _ = box
    H = scenario.height
    size = feature_name_size(s)
    fnt = font(size, True)
    d = ImageDraw.Draw(img)
    for f in scenario.features:
        if f.kind not in NAMED_KINDS or not f.name:
            continue
        cx, cy = name_spot(f)
        x, y = cx * s - bx0, (H - cy) * s - by0
        outlined_text(d, (x, y), f.name, fnt, fill=(255, 255, 240), outline=LABEL_INK, width=max(2, size // 8))


def feature_name_boxes(scenario, v: TableView) -> list[tuple[float, float, float, float]]:
    size = feature_name_size(v.s)
    fnt = font(size, True)
    out = []
    for f in scenario.features:
        if f.kind not in NAMED_KINDS or not f.name:
            continue
        x, y = v.px(*name_spot(f))
        w = text_width(f.name, fnt)
        out.append((x - w / 2, y - size * 0.6, x + w / 2, y + size * 0.6))
    return out


@image_cache(96 << 20)
def _terrain_box(sk: ScenarioKey, s: float, box: tuple[int, int, int, int]) -> Image.Image:
    return draw_terrain(sk.scenario, s, box)


def terrain_image(scenario, v: TableView) -> Image.Image:
    """A new RGB image of the view's size: the frame, and the terrain where the view shows it."""
    out = Image.new("RGB", (v.width, v.height), FRAME_BG)
    sk = scenario_key(scenario)
    H = scenario.height
    x0, y0 = int(math.floor(v.vx0 * v.s + 1e-6)), int(math.floor((H - v.vy1) * v.s + 1e-6))
    x1, y1 = x0 + int(round((v.vx1 - v.vx0) * v.s)), y0 + int(round((v.vy1 - v.vy0) * v.s))
    out.paste(_terrain_box(sk, v.s, (x0, y0, x1, y1)), (int(round(v.ox)), int(round(v.oy))))
    return out


def terrain_cache_clear() -> None:
    _terrain_box.cache_clear()


# -- rulers and the scale bar (on the frame) -------------------------------------------------------
def draw_rulers(img: Image.Image, v: TableView, text_px: int) -> None:
    """The grid's labels every 5 UDM along the bottom (x) and the left (y) bands."""
    table_common.draw_rulers(img, v, text_px, 5, FRAME_FG)


def draw_scale_bar(img: Image.Image, v: TableView, text_px: int) -> None:
    """A 0-5 UDM bar (0-2 when very close) in the bottom band, right, with its ticks every UDM."""
    n = 5 if v.s * 5 <= v.width / 3 else 2
    table_common.draw_scale_bar(img, v, text_px, n, "UDM", text_px * 3.4, FRAME_FG, unit_ticks=True)
