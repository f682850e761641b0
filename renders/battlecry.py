"""Battle Cry board image: scenario + state -> PNG bytes (Pillow only).

The renderer draws what the state says and decides nothing: pieces where `Piece.hex` puts them,
Field-works from `state.field_works` (their front from `engine.battlecry.board`), the last action
from `state.last_action`, hands as counts only (hands are secret, BC §3.1) unless a viewer asks
for their own.

Layers, bottom to top:
  1. terrain layer, cached per scenario (terrain tiles, roads, fences, objectives, hex ids, the
     dashed section lines of BC §1 and each side's home edge), drawn 2x and downsampled;
  2. Field-works markers, pending retreat choices, movement/battle arrows (none once the turn
     has ended or the battle was conceded: the last command was not an action on the board);
  3. counters and General badges (cached sprites);
  4. target rings, elimination crosses (over an empty hex only) and result labels, placed
     beside the target clear of every hex id, counter and badge (`result_labels`);
  5. the information strip under the board, its text scaled to read at DISPLAY_W (~550 px,
     Discord's width) and wrapped, with a key (fences, Field works, objectives, sections).

At DISPLAY_W the crop (size="crop", ~620 px wide) reads whole; on the full board (1296 px) the
strip and the rulers (column numbers above and below, row numbers beside, in the terrain layer)
read, the hex ids and counter ids when the image is opened.

Public API: `render_board`, `render_board_image`, `board_geometry`, `BoardGeometry`,
`SIDE_COLOURS`, `TERRAIN_COLOURS`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.battlecry import board as bc_board
from engine.battlecry import tables
from engine.battlecry.scenario import Scenario, board_grid
from engine.battlecry.state import BattleCryState

from .battlecry_art import (GOLD, LABEL_ON_DARK, SIDE_COLOURS, SIDE_DARK, SIDE_NAMES, SS,
                            TERRAIN_COLOURS,
                            counter_sprite, general_sprite, hex_polygon, paste_centred,
                            terrain_tile)
from .common import (MOVE_COLOUR, RETREAT_COLOUR, STRIP_BG, STRIP_DIM, STRIP_FG, FlowText,
                     ScenarioKey, arrow, board_with_strip, image_cache, cross, dashed_polyline, downsample,
                     encode_png, fit_box, font, label_box, path_arrow, ring,
                     star_points, trim_path)

__all__ = ["render_board", "render_board_image", "board_geometry", "BoardGeometry",
           "SIDE_COLOURS", "TERRAIN_COLOURS"]

HEX_R = 54              # hex radius (centre to corner) in output pixels
MARGIN_X = 40           # left/right margin
EDGE_BAND = 30          # band above/below the board for the home-edge labels
RULER_BAND = 30         # outside it, the column numbers (rows: in the side margins)
RULER_TEXT_PX = 9.6     # the rulers' font once the board is shown DISPLAY_W (550) px wide
BACKGROUND = (236, 231, 214)
GRID_LINE = (84, 92, 62)
FENCE = (92, 58, 26)
FENCE_RAIL = (176, 128, 72)
ROAD = (176, 146, 96)
ROAD_EDGE = (120, 96, 60)
SECTION_LINE = (150, 28, 28)
BATTLE_COLOUR = (224, 30, 30)
SQRT3 = math.sqrt(3)


# --- geometry -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoardGeometry:
    """Pixel geometry of the board area (the information strip is below `height`).

    `hex_center(h)` is the centre of hex h in output pixels; `scale` > 1 gives the same layout
    supersampled (used for the cached terrain layer)."""
    cols: int
    rows: int
    r: float
    origin: tuple[float, float]       # pixel centre of the grid's (0, 0), hex 0101
    width: int
    height: int
    board_top: float
    board_bottom: float
    scale: int = 1

    def hex_center(self, hex_id: str) -> tuple[float, float]:
        x, y = board_grid().center(hex_id, self.r)
        return (self.origin[0] + x, self.origin[1] + y)

    def hex_corners(self, hex_id: str, inset: float = 1.0) -> list[tuple[float, float]]:
        cx, cy = self.hex_center(hex_id)
        return hex_polygon(cx, cy, self.r * inset)

    @property
    def hex_width(self) -> float:
        return SQRT3 * self.r

    @property
    def west_edge(self) -> float:
        """x of the board's west edge: centre of 0101 less half a hex width (BC §1)."""
        return self.origin[0] - self.hex_width / 2

    def section_line_x(self) -> tuple[float, float]:
        """The two dashed section lines, 4.5 and 8.5 hex widths from the west edge."""
        return (self.west_edge + 4.5 * self.hex_width, self.west_edge + 8.5 * self.hex_width)

    def side_segment(self, hex_id: str, side_index: int, inset: float = 1.0):
        """Hexside k lies between corners k and k+1 (HexGrid.corners convention)."""
        pts = self.hex_corners(hex_id, inset)
        return pts[side_index % 6], pts[(side_index + 1) % 6]


def board_geometry(scenario: Scenario | None = None, scale: int = 1) -> BoardGeometry:
    """Geometry of the 13x9 board image (the same for every Battle Cry scenario)."""
    return _geometry(tables.BOARD_COLS, tables.BOARD_ROWS, scale)


@lru_cache(maxsize=8)
def _geometry(cols: int, rows: int, scale: int) -> BoardGeometry:
    r = HEX_R * scale
    hw = SQRT3 * r
    top = (RULER_BAND + EDGE_BAND) * scale
    origin = (MARGIN_X * scale + hw / 2, top + r)
    width = int(round(2 * MARGIN_X * scale + cols * hw))
    board_bottom = top + (rows - 1) * 1.5 * r + 2 * r
    height = int(round(board_bottom + (EDGE_BAND + RULER_BAND) * scale))
    return BoardGeometry(cols, rows, r, origin, width, height, top, board_bottom, scale)


# --- terrain layer (cached per scenario) --------------------------------------------------------
def _scenario_key(scenario: Scenario) -> ScenarioKey:
    """The terrain layer's cache key: the scenario id and everything the layer draws."""
    sp = scenario.special
    parts = (sorted(scenario.terrain.items()), sorted(scenario.fences.items()),
             sorted(sp.get("road_hexes", [])), sorted(sp.get("objective_hexes", [])),
             sp.get("objective_side"),
             sorted((s, v.home_edge, v.commander) for s, v in scenario.sides.items()))
    return ScenarioKey(scenario, parts)


def terrain_layer(scenario: Scenario) -> Image.Image:
    """The scenario's static board, cached (callers must copy or paste, never draw on it)."""
    return _terrain_layer(_scenario_key(scenario))


@image_cache(64 << 20)              # ~3.5 MB a battle: every bundled battle and uploads
def _terrain_layer(sk: ScenarioKey) -> Image.Image:
    scenario = sk.scenario
    grid = scenario.grid
    g = board_geometry(scenario, SS)
    img = Image.new("RGB", (g.width, g.height), BACKGROUND)
    d = ImageDraw.Draw(img)
    # 1. terrain tiles
    for h in grid:
        tile = terrain_tile(scenario.terrain.get(h, "clear"), g.r)
        cx, cy = g.hex_center(h)
        img.paste(tile, (int(round(cx - tile.width / 2)), int(round(cy - tile.height / 2))), tile)
    # 2. roads: centre to the common side of each neighbouring road hex
    roads = [h for h in scenario.special.get("road_hexes", []) if h in grid]
    road_set = set(roads)
    for width, colour in ((0.2 * g.r, ROAD_EDGE), (0.14 * g.r, ROAD)):
        for h in roads:
            c = g.hex_center(h)
            links = [n for n in grid.neighbors(h) if n in road_set]
            for n in links:
                m = g.hex_center(n)
                d.line([c, ((c[0] + m[0]) / 2, (c[1] + m[1]) / 2)], fill=colour, width=int(width))
            rr = width / 2
            d.ellipse((c[0] - rr, c[1] - rr, c[0] + rr, c[1] + rr), fill=colour)
    # 3. hex outlines
    for h in grid:
        pts = g.hex_corners(h)
        d.line(pts + pts[:1], fill=GRID_LINE, width=SS)
    # 4. fences along their front hexsides, just inside the hex that owns them
    for h, sides in scenario.fences.items():
        if h not in grid:
            continue
        for name in sides:
            a, b = g.side_segment(h, grid.side_index(name), inset=0.9)
            d.line([a, b], fill=FENCE, width=int(0.12 * g.r), joint="curve")
            d.line([a, b], fill=FENCE_RAIL, width=int(0.035 * g.r))
            for t in (0.12, 0.5, 0.88):
                px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
                rr = 0.075 * g.r
                d.ellipse((px - rr, py - rr, px + rr, py + rr), fill=FENCE)
    # 5. objectives: gold ring inside the hex and a gold star near its top
    for h in scenario.special.get("objective_hexes", []):
        if h not in grid:
            continue
        cx, cy = g.hex_center(h)
        pts = g.hex_corners(h, 0.88)
        d.line(pts + pts[:2], fill=GOLD, width=4 * SS, joint="curve")
        star = star_points(cx, cy - 0.62 * g.r, 0.2 * g.r)
        d.polygon(star, fill=GOLD)
        d.line(star + star[:2], fill=(60, 40, 0), width=SS, joint="curve")
    # 6. dashed section lines (BC §1)
    for x in g.section_line_x():
        dashed_polyline(d, [(x, g.board_top - 6 * SS), (x, g.board_bottom + 6 * SS)],
                        SECTION_LINE, 3 * SS, dash=14 * SS, gap=9 * SS)
    base = downsample(img, SS)
    _draw_static_text(base, scenario)
    return base


def _draw_static_text(img: Image.Image, scenario: Scenario) -> None:
    """Hex ids and edge labels, drawn at final scale so they stay crisp."""
    g = board_geometry(scenario)
    d = ImageDraw.Draw(img)
    small = font(HEX_ID_PX)
    for h in scenario.grid:
        cx, cy = g.hex_center(h)
        dark = scenario.terrain.get(h, "clear") in LABEL_ON_DARK
        d.text((cx, cy + 0.74 * g.r), h, font=small, anchor="mm",
               fill=(255, 255, 255) if dark else (40, 40, 32),
               stroke_width=1, stroke_fill=(40, 60, 90) if dark else (236, 236, 220))
    west, east = g.section_line_x()
    centres = {"west": (g.west_edge + west) / 2, "centre": (west + east) / 2,
               "east": (east + g.west_edge + g.cols * g.hex_width) / 2}
    bold, label = font(15, True), font(13)
    # rulers: column numbers above (at row 01) and below (at the last row), row numbers beside
    rf = font(math.ceil(RULER_TEXT_PX * g.width / DISPLAY_W), True)
    ink = (70, 66, 50)
    for c in range(1, g.cols + 1):
        d.text((g.hex_center(f"{c:02d}01")[0], RULER_BAND / 2), f"{c:02d}", font=rf, fill=ink, anchor="mm")
        d.text((g.hex_center(f"{c:02d}{g.rows:02d}")[0], g.height - RULER_BAND / 2), f"{c:02d}",
               font=rf, fill=ink, anchor="mm")
    for row in range(1, g.rows + 1):
        y = g.hex_center(f"01{row:02d}")[1]
        d.text((MARGIN_X / 2, y), f"{row:02d}", font=rf, fill=ink, anchor="mm")
        d.text((g.width - MARGIN_X / 2, y), f"{row:02d}", font=rf, fill=ink, anchor="mm")
    for side, setup in scenario.sides.items():
        y = RULER_BAND + EDGE_BAND / 2 if setup.home_edge == "north" else g.height - RULER_BAND - EDGE_BAND / 2
        arrowhead = "\u25b2" if setup.home_edge == "north" else "\u25bc"
        who = f" ({setup.commander})" if setup.commander else ""
        d.text((centres["centre"], y), f"{arrowhead} {SIDE_NAMES[side]} home edge{who}",
               font=bold, fill=SIDE_DARK[side], anchor="mm")
        for compass in ("west", "east"):
            flank = bc_board.side_section(scenario, side, compass)
            d.text((centres[compass], y), f"{SIDE_NAMES[side]} {flank}", font=label,
                   fill=(90, 90, 80), anchor="mm")


# --- dynamic layers -----------------------------------------------------------------------------
def _field_works(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario,
                 state: BattleCryState) -> None:
    """Sandbag rows on the front sides of each Field-works marker in the state."""
    grid = scenario.grid
    for h, value in state.field_works.items():
        if h not in grid:
            continue
        owner, front = value[0], value[1] if len(value) > 1 else []
        sides = bc_board.field_works_front(scenario, owner, front) if owner in scenario.sides else front
        for name in sides:
            a, b = g.side_segment(h, grid.side_index(name), inset=0.8)
            for t in (0.2, 0.5, 0.8):
                px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
                d.ellipse((px - 8, py - 5, px + 8, py + 5), fill=(200, 170, 108),
                          outline=(80, 60, 28), width=2)


def _hex_ok(scenario: Scenario, h: Any) -> bool:
    return isinstance(h, str) and h in scenario.grid


def _action_items(state: BattleCryState) -> list[dict]:
    """The last action's overlay items; none once the turn has ended (`end` or `discard` leave
    the next player at the card phase of a later turn) or the battle was conceded (`resign`):
    the last command was not an action on the board."""
    if state.conceded or (state.phase == "card" and state.turn > 1):
        return []
    la = state.last_action or {}
    if not isinstance(la, dict):
        return []
    items = [i for i in la.get("items", []) if isinstance(i, dict)]
    if "kind" in la:
        items.insert(0, la)
    return items


def _overlay_under(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario,
                   state: BattleCryState) -> None:
    """Arrows of the last action (under the counters, so ids stay readable) and the hexes a
    pending decision offers."""
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        for h in pend.get("options", []) or []:
            if _hex_ok(scenario, h):
                pts = g.hex_corners(h, 0.9)
                dashed_polyline(d, pts + pts[:1], (255, 230, 0), 4, dash=9, gap=6)
    for item in _action_items(state):
        kind = item.get("kind")
        if kind in ("move", "retreat"):
            path = [g.hex_center(h) for h in item.get("path", []) if _hex_ok(scenario, h)]
            if len(path) >= 2:
                colour = MOVE_COLOUR if kind == "move" else RETREAT_COLOUR
                path_arrow(d, path, colour, end_gap=0.45 * g.r, dot=9, dot_width=3, width=7, head=20,
                           dashed=(kind == "retreat"))
        elif kind == "battle" and _hex_ok(scenario, item.get("from")) and _hex_ok(scenario, item.get("to")):
            a, b = g.hex_center(item["from"]), g.hex_center(item["to"])
            arrow(d, trim_path([a, b], 0.3 * g.r, 0.78 * g.r), BATTLE_COLOUR, width=5, head=18,
                  outline=(255, 255, 255))
        if kind == "battle" and _hex_ok(scenario, item.get("to")):
            _ring(d, g, item["to"], BATTLE_COLOUR)
        elif kind in ("rally", "fieldworks", "reinforce", "place") and _hex_ok(scenario, item.get("hex")):
            _ring(d, g, item["hex"], (40, 170, 60) if kind == "rally" else (120, 86, 40))


def _ring(d: ImageDraw.ImageDraw, g: BoardGeometry, h: str, colour) -> None:
    ring(d, g.hex_center(h), 0.8 * g.r, colour, width=5, casing_width=8)


HEX_ID_PX = 11          # the hex ids of the terrain layer (font px)
DISPLAY_W = 550         # the width Discord's client shows an image at (px)


def hex_id_box(g: BoardGeometry, h: str) -> tuple[float, float, float, float]:
    """Where the terrain layer prints hex h's id (near the bottom of the hex)."""
    cx, cy = g.hex_center(h)
    w = font(HEX_ID_PX).getlength(h)
    return (cx - w / 2 - 1, cy + 0.74 * g.r - 0.6 * HEX_ID_PX - 1, cx + w / 2 + 1,
            cy + 0.74 * g.r + 0.6 * HEX_ID_PX + 1)


def piece_boxes(g: BoardGeometry, scenario: Scenario, state: BattleCryState) -> list[tuple]:
    """(piece id, box) of every counter and General badge on the board, as `_pieces` draws them."""
    from .battlecry_art import COUNTER_H, COUNTER_W, PILL_H, PILL_W
    units = {p.hex for p in state.pieces.values() if p.kind != "general" and _hex_ok(scenario, p.hex)}
    out = []
    for p in sorted(state.pieces.values(), key=lambda p: p.id):
        if not _hex_ok(scenario, p.hex):
            continue
        cx, cy = g.hex_center(p.hex)
        if p.kind != "general":
            out.append((p.id, (cx - COUNTER_W / 2 - 4, cy - COUNTER_H / 2 - 4, cx + COUNTER_W / 2 + 4,
                               cy + COUNTER_H / 2 + 4)))
        else:
            k = 1.0 if p.hex in units else 1.3
            y = cy + 0.66 * g.r if p.hex in units else cy
            out.append((p.id, (cx - PILL_W * k / 2 - 4, y - PILL_H * k / 2 - 4, cx + PILL_W * k / 2 + 4,
                               y + PILL_H * k / 2 + 4)))
    return out


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def result_labels(g: BoardGeometry, scenario: Scenario, state: BattleCryState) -> list[tuple]:
    """(text, box) of each battle result: beside the target hex, clear of every hex id, counter,
    General badge and other result label (first free spot, nearest first)."""
    out: list[tuple] = []
    blockers = [hex_id_box(g, h) for h in scenario.grid] + [b for _, b in piece_boxes(g, scenario, state)]
    occupied = {p.hex for p in state.pieces.values() if _hex_ok(scenario, p.hex)}
    f = font(13, True)
    for item in _action_items(state):
        kind = item.get("kind")
        text = None
        if kind == "battle" and _hex_ok(scenario, item.get("to")) and isinstance(item.get("hits"), int):
            hits = item["hits"]
            text = f"{hits} hit{'s' if hits != 1 else ''}"
            if item.get("retreats"):
                text += f", {item['retreats']} flag{'s' if item['retreats'] != 1 else ''}"
            h = item["to"]
        elif kind == "eliminated" and _hex_ok(scenario, item.get("hex")) and item["hex"] in occupied:
            text, h = "Eliminated", item["hex"]          # a unit took the ground: no cross over it
        if text is None:
            continue
        cx, cy = g.hex_center(h)
        w, hh = f.getlength(text) + 12, 20
        spots = [(0, -0.8), (0, -1.05), (0, 0.45), (-0.85, 0), (0.85, 0)]
        spots += [(round(1.3 * math.cos(math.radians(a)), 3), round(1.3 * math.sin(math.radians(a)), 3))
                  for a in range(-90, 270, 30)]
        spots += [(round(2.0 * math.cos(math.radians(a)), 3), round(2.0 * math.sin(math.radians(a)), 3))
                  for a in range(-90, 270, 20)]
        for dx, dy in spots:
            x, y = cx + dx * g.r, cy + dy * g.r
            box = (x - w / 2, y - hh / 2, x + w / 2, y + hh / 2)
            if box[0] < 0 or box[1] < 0 or box[2] > g.width or box[3] > g.height:
                continue
            if not any(_overlaps(box, b) for b in blockers):
                out.append((text, box))
                blockers.append(box)
                break
    return out


def _overlay_over(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario,
                  state: BattleCryState) -> None:
    """Result labels beside the target (clear of hex ids and counters) and crosses over hexes
    left empty, on top of the counters."""
    occupied = {p.hex for p in state.pieces.values() if _hex_ok(scenario, p.hex)}
    for item in _action_items(state):
        if item.get("kind") == "eliminated" and _hex_ok(scenario, item.get("hex")) \
                and item["hex"] not in occupied:
            cross(d, g.hex_center(item["hex"]), 0.36 * g.r, ((13, (255, 255, 255)), (7, BATTLE_COLOUR)))
    for text, box in result_labels(g, scenario, state):
        x = (box[0] + box[2]) / 2
        label_box(d, text, font(13, True), BATTLE_COLOUR, x=x, text_y=(box[1] + box[3]) / 2,
                  top=box[1], bottom=box[3], pad=6, radius=5, width=2)


def _pieces(img: Image.Image, g: BoardGeometry, scenario: Scenario, state: BattleCryState) -> None:
    ordered = set(state.current.ordered) if state.current else set()
    units: dict[str, Any] = {}
    generals: list[Any] = []
    for p in sorted(state.pieces.values(), key=lambda p: p.id):
        if not _hex_ok(scenario, p.hex):
            continue                      # eliminated (hex None) or off the board
        if p.kind == "general":
            generals.append(p)
        else:
            units[p.hex] = p
    for h, p in units.items():
        sprite = counter_sprite(p.side, p.kind, int(p.figures),
                                int(p.start_figures or tables.FULL_FIGURES.get(p.kind, p.figures)),
                                p.id, p.special or "", p.id in ordered)
        paste_centred(img, sprite, *g.hex_center(h))
    for p in generals:
        cx, cy = g.hex_center(p.hex)
        if p.hex in units:               # attached: a badge below the unit's counter
            paste_centred(img, general_sprite(p.side, p.id, False, p.id in ordered), cx, cy + 0.66 * g.r)
        else:
            paste_centred(img, general_sprite(p.side, p.id, True, p.id in ordered), cx, cy)


# --- information strip --------------------------------------------------------------------------
def _card_name(card: str | None) -> str:
    if not card:
        return ""
    ct = tables.CARD_TYPES.get(card)
    return ct.name if ct else str(card)


STRIP_TEXT_PX = 10.5     # the strip's body text once the image is shown DISPLAY_W px wide


def strip_scale(width: int) -> float:
    """How much the strip's 17 px text is enlarged to read at STRIP_TEXT_PX at DISPLAY_W."""
    return max(1.0, width * STRIP_TEXT_PX / (DISPLAY_W * 17))


@lru_cache(maxsize=8)
def _key_swatch(kind: str, h: int) -> Image.Image:
    """A small picture of a fence or a Field-works marker, drawn as the board draws them."""
    w = int(2.4 * h)
    img = Image.new("RGBA", (w * SS, h * SS), TERRAIN_COLOURS["clear"] + (255,))
    d = ImageDraw.Draw(img)
    a, b = (0.1 * w * SS, 0.5 * h * SS), (0.9 * w * SS, 0.5 * h * SS)
    if kind == "fence":
        d.line([a, b], fill=FENCE, width=int(0.28 * h * SS))
        d.line([a, b], fill=FENCE_RAIL, width=max(1, int(0.08 * h * SS)))
        for t in (0.12, 0.5, 0.88):
            x = a[0] + (b[0] - a[0]) * t
            rr = 0.17 * h * SS
            d.ellipse((x - rr, a[1] - rr, x + rr, a[1] + rr), fill=FENCE)
    else:
        for t in (0.2, 0.5, 0.8):
            x = a[0] + (b[0] - a[0]) * t
            rx, ry = 0.3 * h * SS, 0.2 * h * SS
            d.ellipse((x - rx, a[1] - ry, x + rx, a[1] + ry), fill=(200, 170, 108),
                      outline=(80, 60, 28), width=SS)
    return downsample(img, SS)


def _strip(scenario: Scenario, state: BattleCryState, width: int, viewer: str | None) -> FlowText:
    k = strip_scale(width)
    big, bold, reg = font(round(20 * k), True), font(round(17 * k), True), font(round(17 * k))
    flow = FlowText(width, round(30 * k), pad_x=round(14 * k), gap=round(18 * k))
    turn = f"Turn {state.turn}"
    flow.add([("text", scenario.title, big, STRIP_FG), ("gap", round(14 * k)), ("text", turn, bold, STRIP_DIM)])

    def chip(side: str) -> list[tuple]:
        return [("box", round(16 * k), round(14 * k), SIDE_COLOURS.get(side, (128, 128, 128)),
                 (230, 230, 230)), ("gap", round(4 * k)),
                ("text", SIDE_NAMES.get(side, str(side)), bold, STRIP_FG)]

    pend = state.pending if isinstance(state.pending, dict) else None
    if state.winner:
        flow.add([("text", "Victory: ", bold, GOLD)] + chip(state.winner)
                 + ([("text", f"  {state.result}", reg, STRIP_DIM)] if state.result else []))
    elif pend:
        who = pend.get("side") or pend.get("player") or state.active
        what = str(pend.get("kind", "decision"))
        if pend.get("piece"):
            what += f" {pend['piece']}"
        opts = pend.get("options")
        tail = f" ({', '.join(map(str, opts))})" if opts else ""
        flow.add([("text", "Waiting for ", reg, GOLD)] + chip(who)
                 + [("text", f": {what}{tail}", reg, STRIP_FG)])
    else:
        flow.add(chip(state.active) + [("text", f" to act ({state.phase})", reg, STRIP_FG)])
    card = _card_name(state.current.card if state.current else None)
    if card:
        flow.add([("text", "Card: ", reg, STRIP_DIM), ("text", card, bold, (255, 226, 140))])
    first = True
    for side in tables.SIDES:
        n = int(state.flags.get(side, 0))
        need = scenario.flags_to_win
        boxes = [("flag", round(17 * k), round(20 * k), GOLD if i < n else STRIP_BG,
                  (240, 240, 240) if i < n else (130, 134, 142)) for i in range(need)]
        head = [("text", "Flags ", reg, STRIP_DIM)] if first else []
        flow.add(head + chip(side) + [("gap", round(6 * k))] + boxes
                 + [("text", f" {n}/{need}", bold, STRIP_FG)], new_line=first)
        first = False
    hands = " \u00b7 ".join(f"{SIDE_NAMES[s][0]} {len(state.hands.get(s, []))}" for s in tables.SIDES)
    flow.add([("text", "Hands ", reg, STRIP_DIM), ("text", hands, bold, STRIP_FG)])
    flow.add([("text", "Deck ", reg, STRIP_DIM), ("text", str(len(state.deck)), bold, STRIP_FG)])
    if viewer in state.hands:
        names = ", ".join(_card_name(c) for c in state.hands[viewer]) or "(empty)"
        flow.add([("text", f"Your hand ({SIDE_NAMES.get(viewer, viewer)}): ", reg, STRIP_DIM),
                  ("text", names, reg, STRIP_FG)], new_line=True)
    # the key: what the board's marks mean (those of this battle)
    small, sw = font(round(15 * k)), round(16 * k)
    key = [("fence", "fence (on the hexside it protects)")] if scenario.fences else []
    key.append(("works", "Field works (on the sides they face)"))
    flow.add([("text", "Key:", bold, STRIP_DIM)], new_line=True)
    for kind, text in key:
        flow.add([("image", _key_swatch(kind, sw)), ("gap", round(5 * k)), ("text", text, small, STRIP_FG)])
    flow.add([("text", "gold ring: objective; dashed red lines: the sections; yellow halo: ordered",
               small, STRIP_FG)])
    return flow


# --- assembly -----------------------------------------------------------------------------------
def _crop_box(g: BoardGeometry, scenario: Scenario, state: BattleCryState) -> tuple[int, int, int, int] | None:
    hexes: list[str] = []
    for item in _action_items(state):
        for key in ("from", "to", "hex"):
            if _hex_ok(scenario, item.get(key)):
                hexes.append(item[key])
        hexes += [h for h in item.get("path", []) or [] if _hex_ok(scenario, h)]
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        hexes += [h for h in pend.get("options", []) or [] if _hex_ok(scenario, h)]
    if not hexes:
        return None
    xs, ys = zip(*(g.hex_center(h) for h in hexes))
    pad = 1.7 * g.r
    x0, x1, y0, y1 = min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad
    x0, x1, y0, y1 = fit_box(x0, x1, y0, y1, 620, 440)
    dx = max(0, -x0) - max(0, x1 - g.width)
    dy = max(0, -y0) - max(0, y1 - g.height)
    x0, x1, y0, y1 = x0 + dx, x1 + dx, y0 + dy, y1 + dy
    return (max(0, int(x0)), max(0, int(y0)), min(g.width, int(x1)), min(g.height, int(y1)))


def render_board_image(scenario: Scenario, state: BattleCryState, *, viewer: str | None = None,
                       size: str = "full") -> Image.Image:
    """The board as a PIL RGB image (see `render_board`)."""
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    g = board_geometry(scenario)
    board = terrain_layer(scenario).copy()
    d = ImageDraw.Draw(board)
    _field_works(d, g, scenario, state)
    _overlay_under(d, g, scenario, state)
    _pieces(board, g, scenario, state)
    _overlay_over(d, g, scenario, state)
    box = _crop_box(g, scenario, state) if size == "crop" else None
    if box is not None:
        board = board.crop(box)
    return board_with_strip(board, _strip(scenario, state, board.width, viewer), STRIP_BG)


def render_board(scenario: Scenario, state: BattleCryState, *, viewer: str | None = None,
                 size: str = "full") -> bytes:
    """PNG of the board: terrain, Field-works, pieces, the last action and an information strip.

    viewer: a side whose own hand is listed (for an ephemeral reply); None for the channel,
    which sees hand sizes only. size: "full" (the whole board, ~1300 px wide) or "crop"
    (around the last action and any pending choice; the full board when there is none).
    CPU-bound (~tens of ms): call it via `asyncio.to_thread` from the bot."""
    return encode_png(render_board_image(scenario, state, viewer=viewer, size=size))
