"""This Accursed Civil War board image: scenario + state -> PNG bytes (Pillow only).

The renderer draws what the state says and decides nothing: counters where `Unit.hexes` puts
them, turned to their facing vertex (`engine.core.facing.vertex_angle`), with their formation,
morale, casualties, pistols, fired/disabled/captured guns and Salvo markers; leaders as round
badges; the last action from `state.last_action`; the turn, phase, activation, pending decision,
VP and every wing's order in the information strip. TACW has no hidden information, so every
viewer sees the same picture.

A counter (renders/tacw_art.py) is a rectangle whose front edge faces the facing vertex, with a
white nose pointing at it, its wing's colour along the rear edge and its values upright:
"18-7" (strength-morale; guns "SAK-5"), the hex it stands in on a light chip (a hex names the unit
in commands), a red casualty badge, two pistol dots for cavalry and marker tags below it (else
above or beside it, clear of the other counters: D, F-BRK, SHKN, ROUT, OPEN, COL, HOG, SALVO,
FIRED, DISAB, CAPT). A double unit is one long counter
over both hexes, a chip on each half. Two units sharing a hex are drawn smaller, side by side
across their facing, the hex's chip full size between them. Units of the wing under activation
have a yellow halo.

Legible at Discord's size (DISPLAY_W, ~550 px): `board_layout` places every counter, marker row
and leader badge first, then every label clear of all of them and of each other (nothing is ever
drawn under or over a counter): result labels beside their target hex; the unit ids a hex does
not name (the lower unit of a stack); the hex ids of the hexes without a counter; victory-hex,
area and place labels; then the other unit ids where there is room (crops only). A crop spans
about 16 hex radii, at most 1100 px wide, so its labels (LABEL_PX x zoom) and the counters' hex
chips read at >= 10 px once scaled to 550 px; the strip's text is scaled with the image width
(`strip_scale`) and wraps. The full map is an overview at that size: its strip and its rulers
(column numbers above and below, row numbers beside it) read; its hex ids read when the image is
opened.

Layers, bottom to top:
  1. terrain layer, cached per scenario and view (terrain tiles, hedge-lined lanes, hex outlines,
     hexside features: hedges, slopes hachured downhill, streams; no_effect sides faded; victory
     hexes and the friendly map edges), drawn 2x and downsampled;
  1b. the scenario's roads, and in the deployment phase the shaded areas of the sides still
     deploying (renders/tacw_deploy.py);
  2. pending-decision hexes, and the move/retreat/fire arrows of the last action;
  3. counters (cached sprites), their marker tags, then leader badges;
  4. target rings, close-combat arrows and elimination crosses (over an empty hex only);
  5. the labels of `board_layout`;
  6. the information strip under the board: turn, phase, activation, VP, wings with their
     colours and orders, stacks whose lower unit has no caption, and a key of what the view shows
     (terrain, hexsides, markers, victory hexes) and of a counter.

The Edgehill map is 40x26 hexes: the full image is 1959 px wide (hex radius 30). `size="crop"`
redraws the area of the last action (or of the active wing) at 1.25-2x that scale. PNG: 256
colours, octree palette with an exact nearest-colour remap (`common.encode_png_nearest`).

Public API: `render_board`, `render_board_image`, `board_geometry`, `crop_geometry`,
`board_layout` (with `BoardLayout`, `Label`, `Placed`, `polygons_overlap`), `terrain_layer`,
`wing_colours`, `strip_scale`, `BoardGeometry`, `SIDE_COLOURS`, `TERRAIN_COLOURS`, `NOSE`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.core.facing import vertex_angle
from engine.tacw.scenario.schema import Scenario, map_grid
from engine.tacw.state import TacwState, Unit

from .common import (MOVE_COLOUR, RETREAT_COLOUR, STRIP_BG, STRIP_DIM, STRIP_FG, FlowText,
                     ScenarioKey, arrow, board_with_strip, cross, dashed_polyline, downsample,
                     encode_png_nearest, fit_box, font, path_arrow, ring, text_width,
                     trim_path)
from .tacw_deploy import (area_labels, deploying_sides, draw_deployment_areas, draw_map_features,
                          place_labels)
from .tacw_art import (COUNTER_HALF, GOLD, HEX_ID_PX, NOSE, NOSE_TIP, ROAD, ROAD_HEDGE, SIDE_COLOURS,
                       SIDE_DARK, SIDE_NAMES, SS, TERRAIN_COLOURS, TAGS, WING_PALETTE, counter_sprite,
                       flat_hex, leader_sprite, mix, paste_at, tag_sprite,
                       terrain_tile)

__all__ = ["render_board", "render_board_image", "board_geometry", "crop_geometry",
           "terrain_layer", "BoardGeometry", "SIDE_COLOURS", "TERRAIN_COLOURS", "NOSE",
           "HEX_R", "wing_colours", "board_layout", "BoardLayout", "Label", "Placed",
           "polygons_overlap", "DISPLAY_W", "HEX_ID_PX", "strip_scale", "ruler_px"]

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
FIRE_COLOUR = (255, 96, 0)
COMBAT_COLOUR = (220, 20, 30)
PENDING_COLOUR = (255, 230, 0)
SQRT3 = math.sqrt(3)

ZOOMS = (1.25, 1.5, 1.75, 2.0)       # crop scales (multiples of HEX_R)
CROP_VIEW_R = 18         # a crop spans at most this many hex radii across: 9.5 px text at 550
CROP_MAX_W, CROP_MAX_H = 1100, 1150  # output pixels of a crop (before the strip): legibility
# depends on how many hexes a crop spans, not on its zoom (text grows with the zoom); a crop of the
# usual 16 hex radii shows its labels at >= 10 px when Discord scales it to DISPLAY_W

ORDER_NAMES = {"charge": "Charge", "make_ready": "Make Ready", "receive_charge": "Receive Charge",
               "rally": "Rally"}
ORDER_COLOURS = {"charge": (255, 120, 100), "make_ready": (255, 214, 110),
                 "receive_charge": (140, 200, 255), "rally": (150, 230, 150)}
PHASE_NAMES = {"deployment": "Deployment phase", "initiative": "Initiative phase", "activation": "Activation phase",
               "rout": "Rout Movement phase", "markers": "Marker Removal phase", "over": "Game over"}
STEP_NAMES = {"order_change": "order change", "actions": "actions", "close_combat": "close combat",
              "continuation": "continuation", "bypass": "bypass window"}


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
    return _terrain_view(_scenario_key(scenario), 1.0, None)


def _view(scenario: Scenario, zoom: float, box: tuple[int, int, int, int] | None) -> BoardGeometry:
    g = _map_geometry(scenario.cols, scenario.rows, zoom)
    if box is None:
        return g
    x0, y0, x1, y1 = box
    return replace(g, offset=(float(x0), float(y0)), width=x1 - x0, height=y1 - y0)


def _hexes_in_view(scenario: Scenario, g: BoardGeometry) -> list[str]:
    out = []
    m = g.r * 1.05
    for h in scenario.grid:
        x, y = g.hex_center(h)
        if -m <= x <= g.width + m and -m <= y <= g.height + m:
            out.append(h)
    return out


@lru_cache(maxsize=4)               # the full map and the last few crops (~8 MB each)
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
    f = font(ruler_px(g.width), True)
    x0, y0, x1, y1 = g.map_box
    mid = (EDGE_BAND + RULER_BAND / 2) * g.zoom
    ink = (70, 66, 50)
    for c in range(1, scenario.cols + 1):
        x, _ = g.hex_center(f"{c:02d}01")
        y = y0 - mid if c % 2 else y1 + mid
        d.text((x, y), f"{c:02d}", font=f, fill=ink, anchor="mm")
    for row in range(1, scenario.rows + 1):
        _, ya = g.hex_center(f"01{row:02d}")
        _, yb = g.hex_center(f"{scenario.cols:02d}{row:02d}")
        d.text((x0 - mid, ya), f"{row:02d}", font=f, fill=ink, anchor="mm")
        d.text((x1 + mid, yb), f"{row:02d}", font=f, fill=ink, anchor="mm")


# --- state helpers ------------------------------------------------------------------------------
def wing_colours(scenario: Scenario, state: TacwState) -> dict[str, tuple[int, int, int]]:
    """Each wing's stripe colour, handed out in the scenario's wing order."""
    order = [w.id for w in scenario.wings] + [w for w in state.wings if w not in
                                              {x.id for x in scenario.wings}]
    return {w: WING_PALETTE[i % len(WING_PALETTE)] for i, w in enumerate(order)}


def _hex_ok(scenario: Scenario, h: Any) -> bool:
    return isinstance(h, str) and h in scenario.grid


def _seq(value: Any) -> list:
    """A list or tuple from the state's free-form data; anything else counts as empty."""
    return list(value) if isinstance(value, (list, tuple)) else []


def _action_items(state: TacwState) -> list[dict]:
    la = state.last_action or {}
    if not isinstance(la, dict):
        return []
    items = [i for i in _seq(la.get("items")) if isinstance(i, dict)]
    if "kind" in la:
        items.insert(0, la)
    return items


def _unit_tags(u: Unit) -> tuple[tuple[str, ...], str]:
    """Marker tags and the body style of a counter (see tacw_art.counter_sprite)."""
    tags: list[str] = []
    if u.morale_state == "shaken":
        tags.append("shaken")
    elif u.morale_state == "broken":
        tags.append("routed")
    if u.formation == "disordered":
        tags.append("disordered")
    elif u.formation == "broken":
        tags.append("formation_broken")
    if u.special_formation in ("open", "column", "hedgehog"):
        tags.append(u.special_formation)
    if u.salvo_used:
        tags.append("salvo")
    body = {"disordered": "disordered", "broken": "broken"}.get(u.formation, "normal")
    extras = ""
    if u.kind == "artillery":
        if u.gun_state in ("disabled", "captured"):
            tags.append(u.gun_state)
            body, extras = "grey", "+x"
        elif u.fired:
            tags.append("fired")
            body = "grey"
    if u.special_formation == "hedgehog":
        extras += "+hog"
    return tuple(tags), body + extras


GUN_SHORT = {"3lb": "3LB", "saker": "SAK", "culverin": "CUL"}


def _value_text(u: Unit) -> str:
    if u.kind == "artillery":
        return f"{GUN_SHORT.get(u.gun_class, u.gun_class.upper()[:3] or 'ART')}-{u.morale}"
    return f"{u.strength}-{u.morale}"


def _short(name: str, n: int = 12) -> str:
    return name if len(name) <= n else name[: n - 1].rstrip() + "."


def _unit_layout(scenario: Scenario, state: TacwState):
    """Units on the map, bottom of each stack first, and the units in each hex."""
    units = [u for u in sorted(state.units.values(), key=lambda u: u.id)
             if u.alive and u.hexes and all(_hex_ok(scenario, h) for h in u.hexes)]

    def layer(u: Unit) -> int:
        if u.kind == "artillery":
            return 3 if u.on_top else 0
        return 2 if u.kind == "light" else 1

    units.sort(key=lambda u: (len(u.hexes) != 2, layer(u), u.id))
    by_hex: dict[str, list[Unit]] = {}
    for u in units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    return units, by_hex


def _unit_centre(g: BoardGeometry, u: Unit) -> tuple[float, float]:
    pts = [g.hex_center(h) for h in u.hexes]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def _unit_angle(scenario: Scenario, g: BoardGeometry, u: Unit) -> float:
    """Screen angle of the counter's front: the facing vertex; for a double, the side of its
    long axis nearest the facing (the same thing for every legal facing)."""
    face = vertex_angle(scenario.grid, u.facing)
    if len(u.hexes) != 2:
        return face
    (ax, ay), (bx, by) = g.hex_center(u.hexes[0]), g.hex_center(u.hexes[1])
    axis = math.degrees(math.atan2(by - ay, bx - ax))
    best = min((axis + 90, axis - 90), key=lambda c: abs((c - face + 180) % 360 - 180))
    return round(best % 360.0, 6)


STACK_SCALE = 0.74      # counters sharing a hex are drawn smaller, side by side


def _placements(scenario: Scenario, g: BoardGeometry, state: TacwState):
    """(unit, centre, scale, angle) for every counter, in drawing order.

    A lone counter sits on its hex centre (a double on the midpoint of its two hexes). One-hex
    units sharing a hex are drawn at STACK_SCALE side by side across their facing (a stack shares
    one facing, §8.2); a one-hex unit on a double unit's hex sits on the rear half of that hex."""
    units, by_hex = _unit_layout(scenario, state)
    out = []
    for u in units:
        angle = _unit_angle(scenario, g, u)
        cx, cy = _unit_centre(g, u)
        scale = 1.0
        if len(u.hexes) == 1:
            others = by_hex[u.hexes[0]]
            if len(others) > 1:
                scale = STACK_SCALE if len(others) == 2 else 0.56
                a = math.radians(angle)
                if any(len(o.hexes) == 2 for o in others):
                    cx -= 0.42 * g.r * math.cos(a)
                    cy -= 0.42 * g.r * math.sin(a)
                else:
                    singles = [o for o in others if len(o.hexes) == 1]
                    i, n = singles.index(u), len(singles)
                    step = 0.8 / max(1, n - 1) if n > 2 else 1.04   # two: room between for the hex id
                    t = (i - (n - 1) / 2) * step * g.r
                    cx += -math.sin(a) * t
                    cy += math.cos(a) * t
        out.append((u, (cx, cy), scale, angle))
    return out, by_hex


# --- dynamic layers -----------------------------------------------------------------------------
def _hex_ids_text(g: BoardGeometry, u: Unit, centre, angle: float) -> str:
    """The hex id(s) a counter prints: a double's two ids in the order of its halves."""
    if len(u.hexes) != 2:
        return u.hexes[0]
    a = math.radians(angle)
    lx, ly = -math.sin(a), math.cos(a)
    h0 = g.hex_center(u.hexes[0])
    first = (h0[0] - centre[0]) * lx + (h0[1] - centre[1]) * ly < 0
    return " ".join(u.hexes if first else reversed(u.hexes))


def _draw_units(img: Image.Image, layout: BoardLayout, scenario: Scenario, state: TacwState) -> None:
    """Counters, bottom of each stack first, each with its hex id; then their marker rows."""
    g = layout.geometry
    colours = wing_colours(scenario, state)
    act = state.activation if state.phase == "activation" else None
    markers = []
    for u, (cx, cy), scale, angle in layout.units:
        r = g.r * scale
        span = g.r * SQRT3 if len(u.hexes) == 2 else 0.0
        tags, body = _unit_tags(u)
        sprite, anchor = counter_sprite(
            round(r, 3), u.side, u.kind, u.light_kind, _value_text(u),
            int(u.casualties), angle, round(span, 3), colours.get(u.wing, (255, 255, 255)),
            max(0, min(2, int(u.pistols))) if u.kind == "cavalry" else None, body,
            "", act is not None and u.wing == act.wing,
            "" if scale != 1.0 else _hex_ids_text(g, u, (cx, cy), angle))
        paste_at(img, sprite, anchor, cx, cy)
        if tags:
            box = next(p.polygon for p in layout.counters if p.kind == "markers" and p.id == u.id)
            markers.append((tag_sprite(round(g.r, 3), tags), box[0]))
    _draw_stack_chips(img, layout)
    for (sprite, _), (x0, y0) in markers:            # markers over every counter of a stack
        img.paste(sprite, (int(round(x0)), int(round(y0))), sprite)


def _busy_points(g: BoardGeometry, placements) -> dict[str, list[tuple[float, float]]]:
    """Per hex, the points a leader badge should keep clear of (noses, pistols, casualty badges,
    markers)."""
    busy: dict[str, list[tuple[float, float]]] = {}
    for u, (cx, cy), scale, angle in placements:
        r = g.r * scale
        a = math.radians(angle)
        pts = [(cx + 0.48 * r * math.cos(a + k * math.pi / 2), cy + 0.48 * r * math.sin(a + k * math.pi / 2))
               for k in (1, 3)] if len(u.hexes) == 2 else []
        for h in u.hexes:
            hx, hy = g.hex_center(h)
            pts.append((hx + 0.8 * g.r * math.cos(a), hy + 0.8 * g.r * math.sin(a)))
        if u.kind == "cavalry":
            pts.append((cx - 0.48 * r, cy - 0.48 * r))
        if u.casualties:
            pts.append((cx + 0.43 * r, cy - 0.43 * r))
        pts.append((cx, cy + 0.45 * r))                  # the hex id chip
        for h in u.hexes:
            busy.setdefault(h, []).extend(pts)
    return busy


def _leader_places(g: BoardGeometry, scenario: Scenario, state: TacwState, occupied: set[str],
                   placements) -> list[tuple]:
    """(leader, (x, y), big, label) of each badge: on a corner of the counter it stands with,
    clear of its nose and marks; alone, larger, a little below the hex centre (its hex id above)."""
    busy = _busy_points(g, placements)
    by_hex: dict[str, list] = {}
    for ld in sorted(state.leaders.values(), key=lambda ld: (ld.role != "ac", ld.id)):
        if ld.status == "active" and _hex_ok(scenario, ld.hex):
            by_hex.setdefault(ld.hex, []).append(ld)
    label_on = g.zoom >= 1.5
    out = []
    for h, leaders in by_hex.items():
        cx, cy = g.hex_center(h)
        avoid = list(busy.get(h, []))
        if h in occupied:
            cands = [(-0.62, -0.5), (0.62, -0.5), (-0.62, 0.5), (0.62, 0.5), (0.0, -0.68), (0.0, 0.68)]
            big = False
        else:
            cands = [(0.0, 0.12), (-0.45, 0.3), (0.45, 0.3), (0.0, 0.45)]
            big = len(leaders) == 1
        for ld in leaders:
            def clearance(c):
                x, y = cx + c[0] * g.r, cy + c[1] * g.r
                return min((math.dist((x, y), p) for p in avoid), default=1e9)
            best = max(cands, key=clearance)           # first of the best on ties: deterministic
            cands = [c for c in cands if c != best] or cands
            x, y = cx + best[0] * g.r, cy + best[1] * g.r
            avoid.append((x, y))
            out.append((ld, (x, y), big, _leader_label(ld) if label_on and h not in occupied else ""))
    return out


def _leader_sprite_for(g: BoardGeometry, scenario: Scenario, state: TacwState, ld, big: bool,
                       label: str):
    colours = wing_colours(scenario, state)
    wing = ld.wing if ld.role == "wc" else None
    return leader_sprite(g.r, ld.side, ld.role, int(ld.value), colours.get(wing) if wing else None,
                         bool(ld.finished), bool(ld.no_continue), big, label)


def _draw_leaders(img: Image.Image, layout: BoardLayout, scenario: Scenario, state: TacwState) -> None:
    for ld, (x, y), big, label in layout.leaders:
        sprite, anchor = _leader_sprite_for(layout.geometry, scenario, state, ld, big, label)
        paste_at(img, sprite, anchor, x, y)


# --- layout: counters, badges and labels, computed before anything is drawn ---------------------
DISPLAY_W = 550         # the width Discord's client shows an image at (px)
# label fonts in design px (a hex radius is 30): at a crop's scale each is >= ~10 px at DISPLAY_W
LABEL_PX = {"hex": 11.0, "vp": 10.0, "result": 11.0, "caption": 9.5, "place": 10.5, "area": 11.0,
            "elim": 10.0}


@dataclass(frozen=True)
class Label:
    """A text drawn on the map: its box (left, top, right, bottom) in the view's pixels, font
    size in px and style (hex, vp, result, caption, place, area, elim; colour: the box fill)."""
    text: str
    box: tuple[float, float, float, float]
    size: int
    style: str
    colour: tuple = (255, 255, 255)


@dataclass(frozen=True)
class Placed:
    """A counter (unit), leader badge or marker row: its outline (a convex polygon) in the
    view's pixels, and what it is ("unit", "leader", "markers") with its id."""
    kind: str
    id: str
    polygon: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class BoardLayout:
    """Everything `render_board_image` draws over the terrain that can hide something: every
    counter, badge and marker row, and every label. No label overlaps any of them or another
    label (tests/renders check it)."""
    geometry: BoardGeometry
    counters: tuple[Placed, ...]
    labels: tuple[Label, ...]
    units: tuple            # (unit, centre, scale, angle) in drawing order
    leaders: tuple          # (leader, (x, y), big, label) in drawing order
    stacks: tuple = ()      # (hex, unit ids, the one the hex names first) of the stacks in view
    # whose lower unit has no caption on the map: the strip lists them


def _hull(points) -> list[tuple[float, float]]:
    pts = sorted(set((round(x, 3), round(y, 3)) for x, y in points))
    if len(pts) <= 2:
        return pts

    def cross3(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross3(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross3(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _box_poly(b) -> list[tuple[float, float]]:
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


def polygons_overlap(a, b) -> bool:
    """Two convex polygons share interior points (separating axis test; touching is not)."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
            ax, ay = y0 - y1, x1 - x0
            pa = [ax * x + ay * y for x, y in a]
            pb = [ax * x + ay * y for x, y in b]
            if max(pa) <= min(pb) + 1e-6 or max(pb) <= min(pa) + 1e-6:
                return False
    return True


def _boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _counter_polygon(g: BoardGeometry, u: Unit, centre, scale: float, angle: float):
    """The outline of a counter as drawn (body, halo and noses)."""
    r = g.r * scale
    span = g.r * SQRT3 if len(u.hexes) == 2 else 0.0
    hd = COUNTER_HALF * r + 3.4 * r / 30
    hw = hd + span / 2
    a = math.radians(angle)
    fx, fy, lx, ly = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    cx, cy = centre
    pts = [(cx + al * fx + ac * lx, cy + al * fy + ac * ly) for al in (-hd, hd) for ac in (-hw, hw)]
    for b in ((0.0,) if not span else (-span / 2, span / 2)):
        pts.append((cx + NOSE_TIP * r * fx + b * lx, cy + NOSE_TIP * r * fy + b * ly))
    return tuple(_hull(pts))


def _label_font_px(g: BoardGeometry, style: str) -> int:
    return max(7, int(round(LABEL_PX[style] * g.zoom)))


def _text_box(text: str, size: int, x: float, y: float, pad: float) -> tuple[float, float, float, float]:
    w = text_width(text, font(size, True))
    h = size * 1.15
    return (x - w / 2 - pad, y - h / 2 - pad * 0.6, x + w / 2 + pad, y + h / 2 + pad * 0.6)


def board_layout(scenario: Scenario, state: TacwState, size: str = "full") -> BoardLayout:
    """Where `render_board_image` puts every counter, badge, marker row and label (the view's
    pixels, before the information strip)."""
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    from engine.tacw.battles.second_newbury import scenario_view
    scenario = scenario_view(scenario, state, public=True)
    g = crop_geometry(scenario, state) if size == "crop" else None
    return _layout(scenario, state, g or board_geometry(scenario))


def _layout(scenario: Scenario, state: TacwState, g: BoardGeometry) -> BoardLayout:
    placements, by_hex = _placements(scenario, g, state)
    placed: list[Placed] = [Placed("unit", u.id, _counter_polygon(g, u, centre, scale, angle))
                            for u, centre, scale, angle in placements]
    bodies = list(placed)
    for u, centre, scale, angle in placements:
        tags, _ = _unit_tags(u)
        if not tags:
            continue
        # a marker row goes below its counter, else above it, beside it, or on its lower half:
        # where it covers no other counter (nor another marker row)
        sprite, anchor = tag_sprite(round(g.r, 3), tags)
        own = next(p.polygon for p in bodies if p.id == u.id)
        xs, ys = [x for x, _ in own], [y for _, y in own]
        gap = 6.5 * g.r / 30
        spots = [(centre[0], max(ys) + gap), (centre[0], min(ys) - sprite.height + anchor[1] - gap / 2),
                 (max(xs) + gap / 2 + anchor[0], centre[1]),
                 (min(xs) - gap / 2 - (sprite.width - anchor[0]), centre[1]),
                 (centre[0], centre[1] + 0.62 * g.r * scale)]
        chosen = None
        for x, y in spots:
            x0, y0 = x - anchor[0], y - anchor[1]
            poly = _box_poly((x0, y0, x0 + sprite.width, y0 + sprite.height))
            if not any(p.id != u.id and polygons_overlap(poly, p.polygon) for p in placed):
                chosen = poly
                break
        if chosen is None:
            x, y = spots[-1]
            x0, y0 = x - anchor[0], y - anchor[1]
            chosen = _box_poly((x0, y0, x0 + sprite.width, y0 + sprite.height))
        placed.append(Placed("markers", u.id, tuple(chosen)))
    for h in _stacked_hexes(by_hex):
        placed.append(Placed("stack", h, tuple(_box_poly(_stack_chip_box(g, h, placements)))))
    leaders = _leader_places(g, scenario, state, set(by_hex), placements)
    for ld, (x, y), big, label in leaders:
        sprite, anchor = _leader_sprite_for(g, scenario, state, ld, big, label)
        x0, y0 = x - anchor[0], y - anchor[1]
        # the badge itself (the sprite's canvas is wider than what it draws)
        rr = (11 if ld.role == "ac" else 10) * g.r / 30 * (1.3 if big else 1.0) + 2
        bottom = y + rr + ((13 if (ld.finished or ld.no_continue) else 5) * g.r / 30 if label else
                           (8 * g.r / 30 if (ld.finished or ld.no_continue) else 0))
        half = rr
        if label:
            half = max(rr, font(max(6, int(round(7 * g.r / 30 * (1.3 if big else 1.0)))), True).getlength(label) / 2 + 2)
            bottom += 5 * g.r / 30
        placed.append(Placed("leader", ld.id, tuple(_box_poly((x - half, y - rr, x + half, bottom)))))
    labels: list[Label] = []
    view = (0.0, 0.0, float(g.width), float(g.height))
    cell = 2 * g.r                     # a grid of buckets: a label is checked against its neighbours
    buckets: dict[tuple[int, int], list] = {}

    def cells(box):
        for i in range(int(box[0] // cell), int(box[2] // cell) + 1):
            for j in range(int(box[1] // cell), int(box[3] // cell) + 1):
                yield (i, j)

    def index(box, thing) -> None:
        for c in cells(box):
            buckets.setdefault(c, []).append(thing)

    for p in placed:
        xs, ys = [x for x, _ in p.polygon], [y for _, y in p.polygon]
        index((min(xs), min(ys), max(xs), max(ys)), ("poly", p.polygon, (min(xs), min(ys), max(xs), max(ys))))

    def free(box) -> bool:
        if box[0] < view[0] or box[1] < view[1] or box[2] > view[2] or box[3] > view[3]:
            return False
        poly = None
        for c in cells(box):
            for kind, shape, bb in buckets.get(c, ()):
                if not _boxes_overlap(box, bb):
                    continue
                if kind == "box":
                    return False
                poly = poly or _box_poly(box)
                if polygons_overlap(poly, shape):
                    return False
        return True

    def put(text, style, spots, pad, colour=(255, 255, 255)) -> bool:
        sz = _label_font_px(g, style)
        for x, y in spots:
            box = _text_box(text, sz, x, y, pad)
            if free(box):
                labels.append(Label(text, box, sz, style, colour))
                index(box, ("box", None, box))
                return True
        return False

    z = g.zoom
    r = g.r
    around = [(0, -1.0), (0, 1.0), (-1.0, -0.5), (1.0, -0.5), (-1.0, 0.5), (1.0, 0.5)]
    around += [(round(1.75 * math.cos(math.radians(a)), 3), round(1.75 * math.sin(math.radians(a)), 3))
               for a in range(-90, 270, 30)]
    around += [(round(2.6 * math.cos(math.radians(a)), 3), round(2.6 * math.sin(math.radians(a)), 3))
               for a in range(-90, 270, 20)]
    # 1. results of the last action, beside the target hex, clear of every counter
    occupied = set(by_hex)
    results: dict[str, list[tuple[str, tuple]]] = {}
    for item in _action_items(state):
        kind = item.get("kind")
        if kind in ("fire", "close_combat") and _hex_ok(scenario, item.get("to")):
            text = item.get("text")
            if isinstance(text, str) and text:
                results.setdefault(item["to"], []).append(
                    (text, FIRE_COLOUR if kind == "fire" else COMBAT_COLOUR))
        elif kind == "eliminated" and _hex_ok(scenario, item.get("hex")) and item["hex"] in occupied:
            # a unit advanced into the hex: no cross over it, a label beside it instead
            results.setdefault(item["hex"], []).append(("Eliminated", COMBAT_COLOUR))
    for h, texts in results.items():
        cx, cy = g.hex_center(h)
        for text, colour in texts:
            put(text, "result", [(cx + dx * r, cy + dy * r) for dx, dy in around], 4 * z, colour)
    def captions(units) -> None:
        for u, (cx, cy), scale, angle in units:
            poly = next(p.polygon for p in placed if p.kind == "unit" and p.id == u.id)
            top = min(y for _, y in poly)
            bottom = max(y for _, y in poly)
            mark = [p.polygon for p in placed if p.kind == "markers" and p.id == u.id]
            if mark:
                bottom = max(bottom, max(y for _, y in mark[0]))
            sz = _label_font_px(g, "caption")
            ya, yb = top - 0.62 * sz - 1, bottom + 0.62 * sz + 1
            put(u.id, "caption", [(cx, ya), (cx, yb), (cx - 0.4 * r, ya), (cx + 0.4 * r, ya),
                                  (cx - 0.4 * r, yb), (cx + 0.4 * r, yb)], 1)

    # 2. unit ids, in a crop: first of the units their hex does not name (a hex names the top
    # unit of a stack, engine.tacw.sequence.actions.find_unit), then, after the hex ids, the rest
    named = {h: sorted(us, key=lambda u: (u.kind == "artillery" and not u.on_top, u.id))[0].id
             for h, us in by_hex.items()}
    hidden = [pl for pl in placements if not any(named.get(h) == pl[0].id for h in pl[0].hexes)]
    if g.zoom >= 1.5:
        captions(hidden)
    # 3. victory hexes, area ids, place names (before the hex ids, which have other spots)
    for v in scenario.victory_hexes:
        if v.hex in scenario.grid:
            cx, cy = g.hex_center(v.hex)
            who = SIDE_NAMES.get(v.side, "")[:1]
            put(f"{v.vp} VP {who}".strip(), "vp",
                [(cx, cy + 0.6 * r), (cx, cy - 0.6 * r)] + [(cx + dx * r, cy + dy * r) for dx, dy in around], 2)
    for text, h, side in area_labels(g, scenario, state):
        cx, cy = g.hex_center(h)
        area = scenario.deployment_areas.get(text)
        inside = sorted(area.hexes if area else [], key=lambda a: (math.dist(g.hex_center(a), (cx, cy)), a))
        spots = [(cx, cy - 0.3 * r), (cx, cy + 0.3 * r)]
        spots += [(x, y + dy * r) for x, y in map(g.hex_center, inside) for dy in (-0.3, 0.3, 0.0)]
        put(text, "area", spots + [(cx + dx * r, cy + dy * r) for dx, dy in around], 2,
            SIDE_DARK.get(side, (40, 40, 40)))
    for text, h, _ in place_labels(g, scenario):
        cx, cy = g.hex_center(h)
        put(text, "place", [(cx, cy + 0.5 * r), (cx, cy - 0.5 * r)] + [(cx + dx * r, cy + dy * r) for dx, dy in around], 2)
    # 4. hex ids of the hexes without a counter (a counter prints its own hex id)
    shown = _hexes_in_view(scenario, g)
    for h in shown:
        if h in occupied:
            continue
        cx, cy = g.hex_center(h)
        put(h, "hex", [(cx, cy - 0.5 * r), (cx, cy), (cx, cy + 0.5 * r)], 1)
    # 5. the other units' ids, where there is room
    if g.zoom >= 1.5:
        captions([pl for pl in placements if pl not in hidden])
    captioned = {lb.text for lb in labels if lb.style == "caption"}
    stacks = []
    for h in sorted(by_hex):
        us = by_hex[h]
        if len(us) > 1 and any(u.id not in captioned for u, *_ in hidden if h in u.hexes):
            x, y = g.hex_center(h)
            if 0 <= x <= g.width and 0 <= y <= g.height:
                stacks.append((h, tuple(u.id for u in us), named[h]))
    return BoardLayout(g, tuple(placed), tuple(labels), tuple(placements), tuple(leaders),
                       tuple(stacks))


def _stacked_hexes(by_hex: dict[str, list[Unit]]) -> list[str]:
    """Hexes with two or more one-hex units: their counters are drawn smaller, side by side, and
    the hex id once, full size, on a chip between them."""
    return sorted(h for h, us in by_hex.items() if sum(len(u.hexes) == 1 for u in us) >= 2)


def _stack_chip_box(g: BoardGeometry, h: str, placements) -> tuple[float, float, float, float]:
    """The hex id chip of a stack: between its counters, clear of what they print (symbol and
    values, upright about each counter's centre) when the hex leaves room, else on the middle."""
    size = max(7, int(round(HEX_ID_PX * g.zoom)))
    cx, cy = g.hex_center(h)
    w = font(size, True).getlength(h)
    half_w, half_h = w / 2 + 2 * g.zoom, 0.6 * size + 1.5 * g.zoom
    members = [(c, s, a) for u, c, s, a in placements if u.hexes == [h]]
    content = [(x - 0.47 * s * g.r, y - 0.44 * s * g.r, x + 0.47 * s * g.r, y + 0.44 * s * g.r)
               for (x, y), s, _ in members]
    spots = [(0.0, 0.0)]
    if members:
        a = math.radians(members[0][2])
        spots += [(-k * math.cos(a), -k * math.sin(a)) for k in (0.45, 0.6)]
        spots += [(0.0, -0.5), (0.0, 0.5), (0.5, 0.0), (-0.5, 0.0)]
    for dx, dy in spots:
        box = (cx + dx * g.r - half_w, cy + dy * g.r - half_h, cx + dx * g.r + half_w, cy + dy * g.r + half_h)
        if not any(_boxes_overlap(box, c) for c in content):
            return box
    return (cx - half_w, cy - half_h, cx + half_w, cy + half_h)


def _draw_stack_chips(img: Image.Image, layout: BoardLayout) -> None:
    d = ImageDraw.Draw(img)
    g = layout.geometry
    for p in layout.counters:
        if p.kind == "stack":
            box = (p.polygon[0][0], p.polygon[0][1], p.polygon[2][0], p.polygon[2][1])
            d.rounded_rectangle(box, radius=2 * g.zoom, fill=(250, 248, 236), outline=(14, 14, 14),
                                width=max(1, int(round(g.zoom))))
            d.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2 + 0.3 * g.zoom), p.id,
                   font=font(max(7, int(round(HEX_ID_PX * g.zoom))), True), fill=(20, 20, 20),
                   anchor="mm")


LABEL_INK = {"hex": ((44, 48, 34), (232, 236, 204), 1.5), "vp": ((60, 40, 0), GOLD, 1.5),
             "caption": ((255, 255, 255), (20, 20, 20), 1.5),
             "place": ((40, 34, 20), (246, 240, 220), 2.0)}     # fill, outline, outline width / zoom


@lru_cache(maxsize=8192)
def _label_sprite(text: str, size: int, fill: tuple, stroke: tuple, stroke_w: int) -> Image.Image:
    """An outlined text as an RGBA image, cached: the full map repeats a thousand hex ids."""
    f = font(size, True)
    w = int(f.getlength(text)) + 2 * stroke_w + 4
    h = int(size * 1.4) + 2 * stroke_w + 2
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((w / 2, h / 2), text, font=f, fill=fill, anchor="mm",
                             stroke_width=stroke_w, stroke_fill=stroke)
    return img


def _draw_labels(img: Image.Image, layout: BoardLayout) -> None:
    d = ImageDraw.Draw(img)
    z = layout.geometry.zoom
    for lb in layout.labels:
        x0, y0, x1, y1 = lb.box
        x, y = (x0 + x1) / 2, (y0 + y1) / 2
        if lb.style == "result":
            d.rounded_rectangle(lb.box, radius=4 * z, fill=lb.colour, outline=(255, 255, 255),
                                width=max(1, int(1.5 * z)))
            d.text((x, y), lb.text, font=font(lb.size, True), fill=(255, 255, 255), anchor="mm")
            continue
        if lb.style == "area":
            fill, stroke, sw = (255, 255, 255), tuple(lb.colour), 2.0
        else:
            fill, stroke, sw = LABEL_INK.get(lb.style, LABEL_INK["place"])
        sprite = _label_sprite(lb.text, lb.size, fill, stroke, max(1, int(round(sw * z))))
        img.paste(sprite, (int(round(x - sprite.width / 2)), int(round(y - sprite.height / 2))), sprite)


def _leader_label(ld) -> str:
    words = [w for w in str(ld.name).replace(",", " ").split() if w not in ("I", "II", "III")]
    if ld.special == "king":
        return "King"
    return words[-1] if words else ld.id


def _ring(d: ImageDraw.ImageDraw, g: BoardGeometry, h: str, colour) -> None:
    w = max(3, int(round(3 * g.zoom)))
    ring(d, g.hex_center(h), 0.86 * g.r, colour, width=w, casing_width=w + 3)


def _overlay_under(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario,
                   state: TacwState) -> None:
    """Arrows of the last action (under the counters) and the hexes a pending decision offers."""
    z = g.zoom
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        for h in _seq(pend.get("options")):
            if _hex_ok(scenario, h):
                pts = g.hex_corners(h, 0.9)
                dashed_polyline(d, pts + pts[:1], PENDING_COLOUR, max(3, int(3 * z)),
                                dash=8 * z, gap=5 * z)
    for item in _action_items(state):
        kind = item.get("kind")
        if kind in ("move", "retreat", "rout"):
            path = [g.hex_center(h) for h in _seq(item.get("path")) if _hex_ok(scenario, h)]
            if len(path) >= 2:
                colour = MOVE_COLOUR if kind == "move" else RETREAT_COLOUR
                path_arrow(d, path, colour, end_gap=0.3 * g.r, dot=6 * z,
                           dot_width=max(2, int(2 * z)), width=max(4, int(5 * z)), head=15 * z,
                           dashed=(kind != "move"))
        elif kind == "fire" and _hex_ok(scenario, item.get("from")) and _hex_ok(scenario, item.get("to")):
            a, b = g.hex_center(item["from"]), g.hex_center(item["to"])
            arrow(d, trim_path([a, b], 0.25 * g.r, 0.55 * g.r), FIRE_COLOUR, width=max(3, int(4 * z)),
                  head=15 * z, outline=(255, 255, 255), dashed=True)


def _overlay_over(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario,
                  state: TacwState, occupied: set[str]) -> None:
    """Target rings, close-combat arrows and elimination crosses, on top of the counters (the
    result labels are laid out by board_layout, beside the target). A cross is drawn only over an
    empty hex: over a unit that advanced into it, the label "Eliminated" says it instead."""
    z = g.zoom
    for item in _action_items(state):
        kind = item.get("kind")
        if kind in ("fire", "close_combat") and _hex_ok(scenario, item.get("to")):
            colour = FIRE_COLOUR if kind == "fire" else COMBAT_COLOUR
            _ring(d, g, item["to"], colour)
            if kind == "close_combat" and _hex_ok(scenario, item.get("from")):
                # over the counters: close combat is between neighbours, whose counters would
                # hide an arrow drawn beneath them
                (ax, ay), (bx, by) = g.hex_center(item["from"]), g.hex_center(item["to"])
                dist = math.dist((ax, ay), (bx, by))
                if dist > 0.6 * g.r:
                    t0, t1 = 0.3 * g.r / dist, 1 - 0.3 * g.r / dist
                    p0 = (ax + (bx - ax) * t0, ay + (by - ay) * t0)
                    p1 = (ax + (bx - ax) * t1, ay + (by - ay) * t1)
                    arrow(d, [p0, p1], COMBAT_COLOUR, width=max(4, int(5 * z)), head=14 * z,
                          outline=(255, 255, 255))
        elif kind == "eliminated" and _hex_ok(scenario, item.get("hex")) and item["hex"] not in occupied:
            cross(d, g.hex_center(item["hex"]), 0.42 * g.r,
                  ((int(9 * z), (255, 255, 255)), (int(5 * z), COMBAT_COLOUR)))


# --- legend (in the strip): what the map's drawings mean -----------------------------------------
TERRAIN_NAMES = {"wood": "wood", "marsh": "marsh", "thicket": "thicket", "hedge_road": "hedged lane",
                 "hedge": "enclosures", "ploughed": "ploughed field", "river": "river",
                 "village": "village", "bridge": "bridge", "castle": "castle",
                 "entrenchment": "entrenchment"}
HEXSIDE_NAMES = {"hedge": "hedge", "slope": "slope (ticks point downhill)", "stream": "stream"}
TAG_NAMES = {"disordered": "disordered", "formation_broken": "formation broken",
             "shaken": "shaken", "routed": "routed", "open": "open order", "column": "column",
             "hedgehog": "hedgehog", "salvo": "salvo used", "fired": "gun fired",
             "disabled": "gun disabled", "captured": "gun captured"}


@lru_cache(maxsize=64)
def _terrain_swatch(name: str, h: int) -> Image.Image:
    r = h / SQRT3 * SS
    tile = terrain_tile(name, r)
    return downsample(tile, SS)


@lru_cache(maxsize=16)
def _hexside_swatch(kind: str, h: int, faded: bool) -> Image.Image:
    w = int(2.2 * h)
    img = Image.new("RGBA", (w * SS, h * SS), TERRAIN_COLOURS["clear"] + (255,))
    d = ImageDraw.Draw(img)
    r = h * SS / 0.9 / 1.0
    a, b = (0.1 * w * SS, 0.35 * h * SS), (0.9 * w * SS, 0.35 * h * SS)
    bg = TERRAIN_COLOURS["clear"]
    fade = 0.55 if faded else 0.0
    if kind == "hedge":
        d.line([a, b], fill=mix(HEDGE_DARK, bg, fade), width=int(0.2 * r))
        d.line([a, b], fill=mix(HEDGE_GREEN, bg, fade), width=int(0.09 * r))
    elif kind == "slope":
        col = mix(SLOPE, bg, fade)
        d.line([a, b], fill=col, width=int(0.07 * r))
        for i in range(5):
            x = a[0] + (b[0] - a[0]) * (i + 0.5) / 5
            d.line([(x, a[1]), (x, a[1] + (0.3 if i % 2 == 0 else 0.2) * r)], fill=col, width=int(0.05 * r))
    elif kind == "stream":
        d.line([a, b], fill=mix(STREAM, bg, fade), width=int(0.07 * r))
    return downsample(img, SS)


def _legend(scenario: Scenario, state: TacwState, g: BoardGeometry, layout: "BoardLayout") -> list[tuple]:
    """Legend entries for what this view shows: [(swatch image, text)], terrain first, then
    hexsides, then the markers on its counters."""
    hexes = set(_hexes_in_view(scenario, g))
    out: list[tuple[str, Any, str]] = []
    terrains = sorted({scenario.terrain_at(h) for h in hexes} - {"clear"},
                      key=lambda t: list(TERRAIN_NAMES).index(t) if t in TERRAIN_NAMES else 99)
    for t in terrains:
        out.append(("terrain", t, TERRAIN_NAMES.get(t, t.replace("_", " "))))
    sides = sorted({(hs.type, bool(hs.no_effect)) for hs in scenario.hexsides.values()
                    if hs.hex in hexes or hs.other in hexes})
    for kind, faded in sides:
        name = HEXSIDE_NAMES.get(kind, kind)
        out.append(("hexside", (kind, faded), name + (" (no effect)" if faded else "")))
    tags = set()
    for u, *_ in layout.units:
        tags |= set(_unit_tags(u)[0])
    for t in TAGS:
        if t in tags:
            out.append(("tag", t, TAG_NAMES.get(t, t)))
    if scenario.victory_hexes and any(v.hex in hexes for v in scenario.victory_hexes):
        out.append(("vp", None, "victory hex"))
    return out


def _legend_groups(entries, k: float, reg, dim) -> list[list[tuple]]:
    h = round(18 * k)
    groups = []
    for kind, what, text in entries:
        if kind == "terrain":
            sw = _terrain_swatch(what, h)
        elif kind == "hexside":
            sw = _hexside_swatch(what[0], h, what[1])
        elif kind == "tag":
            sw = _tag_swatch(what, k)
        else:
            sw = _vp_swatch(h)
        groups.append([("image", sw), ("gap", round(5 * k)), ("text", text, reg, dim)])
    return groups


@lru_cache(maxsize=32)
def _tag_swatch(tag: str, k: float) -> Image.Image:
    sprite, _ = tag_sprite(round(30 * k * 2.0, 3), (tag,))   # its text at the strip's size
    return sprite


@lru_cache(maxsize=8)
def _vp_swatch(h: int) -> Image.Image:
    img = Image.new("RGBA", (h * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pts = flat_hex(h * SS / 2, h * SS / 2, h * SS / 2 - SS)
    d.polygon(pts, fill=TERRAIN_COLOURS["clear"])
    d.line(pts + pts[:2], fill=GOLD, width=int(0.16 * h * SS), joint="curve")
    return downsample(img, SS)


# --- information strip --------------------------------------------------------------------------
def _wing_short(name: str, side: str) -> str:
    n = str(name)
    for prefix in ("Royalist ", "Parliament ", "Parliamentarian ", SIDE_NAMES.get(side, "") + " "):
        if prefix.strip() and n.lower().startswith(prefix.lower()):
            n = n[len(prefix):]
            break
    return n.replace(" (cavalry)", " (horse)").strip() or str(name)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


STRIP_TEXT_PX = 10.5     # the strip's body text at DISPLAY_W, whatever the image's width


def strip_scale(width: int) -> float:
    """How much the strip's 16 px text is enlarged so that it reads at STRIP_TEXT_PX px once the
    image is shown DISPLAY_W px wide."""
    return max(1.0, width * STRIP_TEXT_PX / (DISPLAY_W * 16))


def _strip(scenario: Scenario, state: TacwState, width: int, legend: list | None = None,
           stacks: tuple = ()) -> FlowText:
    k = strip_scale(width)
    big, bold, reg = font(round(20 * k), True), font(round(16 * k), True), font(round(16 * k))
    flow = FlowText(width, round(28 * k), pad_x=round(14 * k), gap=round(18 * k))
    colours = wing_colours(scenario, state)

    def chip(side: str) -> list[tuple]:
        return [("box", round(16 * k), round(14 * k), SIDE_COLOURS.get(side, (128, 128, 128)),
                 (230, 230, 230)), ("gap", round(4 * k)),
                ("text", SIDE_NAMES.get(side, str(side).title() or "?"), bold, STRIP_FG)]

    def wing_label(wid: str) -> str:
        w = state.wings.get(wid)
        return _wing_short(w.name, w.side) if w else str(wid)

    flow.add([("text", scenario.title, big, STRIP_FG), ("gap", round(14 * k)),
              ("text", f"Turn {state.turn} of {scenario.turns}", bold, STRIP_DIM)])
    flow.add([("text", PHASE_NAMES.get(state.phase, str(state.phase).title()), bold, STRIP_FG)])
    if state.phasing and state.phase != "over":
        flow.add([("text", "Phasing ", reg, STRIP_DIM)] + chip(state.phasing))
    if deploying_sides(state):
        flow.add([("text", "Deploying (areas shaded) ", reg, STRIP_DIM)]
                 + [x for s in deploying_sides(state) for x in chip(s) + [("gap", round(6 * k))]])
    pend = state.pending if isinstance(state.pending, dict) else None
    act = state.activation
    if state.winner or state.phase == "over":
        if state.winner:
            flow.add([("text", "Victory: ", bold, GOLD)] + chip(state.winner)
                     + ([("text", f"  {state.result}", reg, STRIP_DIM)] if state.result else []))
        else:
            flow.add([("text", "Game over" + (f": {state.result}" if state.result else ""), bold, GOLD)])
    if act is not None and state.phase != "over":
        w = state.wings.get(act.wing)
        items = [("text", "Active ", reg, STRIP_DIM),
                 ("box", round(18 * k), round(12 * k), colours.get(act.wing, (255, 255, 255)), (20, 20, 20)), ("gap", round(3 * k)),
                 ("text", f"{SIDE_NAMES.get(act.side, act.side)} {wing_label(act.wing)}", bold, STRIP_FG)]
        if w is not None:
            items += [("text", f"  {ORDER_NAMES.get(w.order, w.order)}", bold,
                       ORDER_COLOURS.get(w.order, STRIP_FG))]
        items += [("text", f"  step: {STEP_NAMES.get(act.step, act.step)}, "
                           f"{_ordinal(int(act.number))} activation"
                   + (", bypass" if act.bypassing else ""), reg, STRIP_FG)]
        flow.add(items, new_line=True)
    if pend and state.phase != "over":
        who = pend.get("side") or pend.get("player") or state.phasing
        what = str(pend.get("kind", "decision")).replace("_", " ")
        opts = [wing_label(o) if isinstance(o, str) and o in state.wings else str(o)
                for o in _seq(pend.get("options"))]
        tail = f" ({', '.join(opts)})" if opts else ""
        flow.add([("text", "Waiting for ", reg, GOLD)] + chip(who)
                 + [("text", f": {what}{tail}", reg, STRIP_FG)], new_line=act is None)
    vp = state.vp or {}
    first = True
    for side in ("royalist", "parliament"):
        head = [("text", "VP ", reg, STRIP_DIM)] if first else []
        flow.add(head + chip(side) + [("text", f" {int(vp.get(side, 0))}", bold, STRIP_FG)],
                 new_line=first)
        first = False
    for side in ("royalist", "parliament"):
        wings = [w for w in state.wings.values() if w.side == side]
        order = {w.id: i for i, w in enumerate(scenario.wings)}
        wings.sort(key=lambda w: (order.get(w.id, 99), w.id))
        lead = True
        for w in wings:
            status = ""
            if act is not None and act.wing == w.id and state.phase != "over":
                status = " \u25c0 active"
            elif w.done:
                status = " (done)"
            items = ([("text", f"{SIDE_NAMES.get(side, side)} wings: ", reg, STRIP_DIM)] if lead else [])
            items += [("box", round(18 * k), round(12 * k), colours.get(w.id, (255, 255, 255)), (20, 20, 20)), ("gap", round(3 * k)),
                      ("text", _wing_short(w.name, side), reg, STRIP_FG if not w.done else STRIP_DIM),
                      ("text", f" {ORDER_NAMES.get(w.order, w.order).upper()}", bold,
                       ORDER_COLOURS.get(w.order, STRIP_FG)),
                      ("text", status, reg, STRIP_DIM)]
            flow.add(items, new_line=lead)
            lead = False
    small = font(round(14 * k))
    edges = [f"{SIDE_NAMES.get(side, side)} {edge}" for side, edge in sorted(scenario.edges.items())]
    wing_names = {w.id: w.name for w in scenario.wings}
    edges += [f"{wing_names.get(w, w)} {edge}" for w, edge in sorted(scenario.wing_edges.items())]
    if edges:
        flow.add([("text", "Friendly map edges: ", reg, STRIP_DIM), ("text", ", ".join(edges), reg, STRIP_FG)],
                 new_line=True)
    if stacks:
        flow.add([("text", "Stacks (the hex names the first unit):", bold, STRIP_DIM)], new_line=True)
        for h, ids, first in stacks:
            rest = [i for i in ids if i != first]
            flow.add([("text", f"{h}: ", bold, STRIP_FG), ("text", ", ".join([first] + rest), reg, STRIP_FG)])
    flow.add([("text", "Map key:", bold, STRIP_DIM)], new_line=True)
    for group in _legend_groups(legend or [], k, small, STRIP_FG):
        flow.add(group)
    flow.add([("text", "Counters: strength-morale (guns: class-morale); the white point faces the "
                       "facing vertex; the rear stripe is the wing's colour (above); the chip is "
                       "the hex, which names the unit in commands; red disc: casualties; dots: "
                       "pistols; yellow halo: the active wing. Leaders: discs with their command "
                       "value (gold: army commander).", small, STRIP_DIM)], new_line=True)
    return flow


# --- assembly -----------------------------------------------------------------------------------
def _focus_groups(scenario: Scenario, state: TacwState) -> list[list[str]]:
    """The hexes a crop should show, most important first: the choices of a pending decision;
    the targets, sources and eliminations of the last action; where its moves ended and began;
    the rest of their paths. Failing all of these, the active wing's commander and units,
    nearest the commander first."""
    pend = state.pending if isinstance(state.pending, dict) else None
    choices = [h for h in _seq(pend.get("options")) if _hex_ok(scenario, h)] if pend else []
    hits, ends, paths = [], [], []
    for item in _action_items(state):
        kind = item.get("kind")
        if kind in ("fire", "close_combat", "eliminated"):
            hits += [item[k] for k in ("to", "hex", "from") if _hex_ok(scenario, item.get(k))]
        elif kind in ("move", "retreat", "rout"):
            path = [h for h in _seq(item.get("path")) if _hex_ok(scenario, h)]
            ends += path[-1:] + path[:1]
            paths += path[1:-1]
    groups = [g for g in (choices, hits, ends, paths) if g]
    if groups:
        return groups
    act = state.activation
    if act is None:
        return []
    hexes = []
    w = state.wings.get(act.wing)
    ld = state.leaders.get(w.commander) if w else None
    if ld is not None and ld.status == "active" and _hex_ok(scenario, ld.hex):
        hexes.append(ld.hex)
    units = [h for u in state.wing_units(act.wing) for h in u.hexes if _hex_ok(scenario, h)]
    if units:
        grid = scenario.grid
        first = hexes[0] if hexes else units[0]
        hexes += sorted(units, key=lambda h: (grid.distance(first, h), h))
    return [hexes] if hexes else []


def _focus_hexes(scenario: Scenario, state: TacwState) -> list[str]:
    """The focus hexes that fit a crop that stays legible at DISPLAY_W (CROP_VIEW_R hex radii
    wide with its margins): taken in order of importance, each while it fits."""
    g1 = _map_geometry(scenario.cols, scenario.rows, 1.0)
    r = g1.r
    max_w, max_h = (CROP_VIEW_R - 4) * r, (1.25 * CROP_VIEW_R - 4) * r
    hexes: list[str] = []
    box = None
    for group in _focus_groups(scenario, state):
        for h in group:
            x, y = g1.hex_center(h)
            nb = (x, y, x, y) if box is None else (min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y))
            if nb[2] - nb[0] <= max_w and nb[3] - nb[1] <= max_h:
                box = nb
                hexes.append(h)
    return hexes


def crop_geometry(scenario: Scenario, state: TacwState) -> BoardGeometry | None:
    """The view `size="crop"` draws: the focus hexes with a margin, at 1.25-2x the full map's
    scale; None when there is nothing to focus on (the crop is then the full map)."""
    hexes = _focus_hexes(scenario, state)
    if not hexes:
        return None
    g1 = _map_geometry(scenario.cols, scenario.rows, 1.0)
    xs, ys = zip(*(g1.hex_center(h) for h in hexes))
    r = g1.r
    x0, x1 = min(xs) - 2.0 * r, max(xs) + 2.0 * r
    y0, y1 = min(ys) - 2.0 * r, max(ys) + 2.0 * r
    x0, x1, y0, y1 = fit_box(x0, x1, y0, y1, 16 * r, 14 * r)
    if x1 - x0 > 1.6 * (y1 - y0):                 # no thin panoramas: at most 1.6:1 ...
        c = (y0 + y1) / 2
        y0, y1 = c - (x1 - x0) / 3.2, c + (x1 - x0) / 3.2
    elif y1 - y0 > 1.25 * (x1 - x0):              # ... or 1:1.25
        c = (x0 + x1) / 2
        x0, x1 = c - (y1 - y0) / 2.5, c + (y1 - y0) / 2.5
    fit = min(CROP_MAX_W / (x1 - x0), CROP_MAX_H / (y1 - y0))
    zoom = max([z for z in ZOOMS if z <= fit] or [ZOOMS[0]])
    gz = _map_geometry(scenario.cols, scenario.rows, zoom)
    cx, cy = (x0 + x1) / 2 * zoom, (y0 + y1) / 2 * zoom
    w = min((x1 - x0) * zoom, CROP_MAX_W, gz.width)
    h = min((y1 - y0) * zoom, CROP_MAX_H, gz.height)
    bx0 = min(max(0.0, cx - w / 2), gz.width - w)
    by0 = min(max(0.0, cy - h / 2), gz.height - h)
    box = (int(bx0), int(by0), int(bx0 + w), int(by0 + h))
    return _view(scenario, zoom, box)


def render_board_image(scenario: Scenario, state: TacwState, *, viewer: str | None = None,
                       size: str = "full") -> Image.Image:
    """The board as a PIL RGB image (see `render_board`)."""
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    # Second Newbury: the board shows the scenario as this game plays it (its turn limit, the boat
    # bridge once revealed -- never while secret --, only the deployment areas in use)
    from engine.tacw.battles.second_newbury import scenario_view
    scenario = scenario_view(scenario, state, public=True)
    g = crop_geometry(scenario, state) if size == "crop" else None
    if g is None:
        g = board_geometry(scenario)
        board = terrain_layer(scenario).copy()
    else:
        box = (int(g.offset[0]), int(g.offset[1]), int(g.offset[0]) + g.width,
               int(g.offset[1]) + g.height)
        board = _terrain_view(_scenario_key(scenario), g.zoom, box).copy()
    draw_map_features(board, g, scenario)              # roads (renders/tacw_deploy.py)
    draw_deployment_areas(board, g, scenario, state)   # the areas of the sides still deploying
    layout = _layout(scenario, state, g)
    d = ImageDraw.Draw(board)
    _overlay_under(d, g, scenario, state)
    _draw_units(board, layout, scenario, state)
    _draw_leaders(board, layout, scenario, state)
    _overlay_over(d, g, scenario, state, {h for u, *_ in layout.units for h in u.hexes})
    _draw_labels(board, layout)
    legend = _legend(scenario, state, g, layout)
    return board_with_strip(board, _strip(scenario, state, board.width, legend, layout.stacks),
                            STRIP_BG)


def render_board(scenario: Scenario, state: TacwState, *, viewer: str | None = None,
                 size: str = "full") -> bytes:
    """PNG of the map: terrain, counters with their facing and markers, leaders, the last action
    and an information strip (turn, phase, activation, pending decision, VP, wing orders).

    viewer: accepted for symmetry with the other renderers; TACW hides nothing, so every viewer
    gets the same image. size: "full" (the whole map, ~1960 px wide) or "crop" (the area of the
    last action, or of the active wing, at 1.25-2x scale; the full map when there is neither).
    CPU-bound (~0.1-0.2 s): call it via `asyncio.to_thread` from the bot."""
    return encode_png_nearest(render_board_image(scenario, state, viewer=viewer, size=size))
