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
  1. terrain layer, drawn once per scenario and zoom (a crop is pasted from 256 px tiles of it,
     tacw_geometry.terrain_crop) (terrain tiles, hedge-lined lanes, hex outlines,
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

Modules: renders/tacw_geometry.py (the map's geometry, terrain layer, rulers and map edges),
renders/tacw_layout.py (reading the state, placing counters, badges, marker rows and labels, and
drawing them), renders/tacw_strip.py (the information strip and its map key); this module holds
the overlays of the last action, the crop (`crop_geometry`) and the entry points, and re-exports
the public names. None of those modules imports this one.

`render_replay_image` draws the whole map directly at an animated replay's width (renders/replay.py).

Public API: `render_board`, `render_board_image`, `render_replay_image`, `board_geometry`, `crop_geometry`,
`board_layout` (with `BoardLayout`, `Label`, `Placed`, `polygons_overlap`), `terrain_layer`,
`wing_colours`, `strip_scale`, `BoardGeometry`, `SIDE_COLOURS`, `TERRAIN_COLOURS`, `NOSE`.
"""
from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from engine.tacw.scenario.schema import Scenario
from engine.tacw.state import TacwState

from .common import (MOVE_COLOUR, RETREAT_COLOUR, STRIP_BG, arrow, board_with_strip, cross, dashed_polyline,
                     encode_png_nearest, fit_box, fit_focus, image_cache, path_arrow, ring, trim_path)
from .tacw_deploy import draw_deployment_areas, draw_map_features
from .tacw_art import HEX_ID_PX, NOSE, SIDE_COLOURS, SIDE_NAMES, TERRAIN_COLOURS
# the board's parts (none imports this module); their public names are re-exported from here
from .tacw_geometry import (COMBAT_COLOUR, DISPLAY_W, FIRE_COLOUR, HEX_R, PENDING_COLOUR, BoardGeometry,
                            _map_geometry, _scenario_key, _terrain_view, _view, board_geometry, ruler_px,
                            draw_tiles, terrain_crop, terrain_layer, tiles_not_on_disk)
from .tacw_layout import (LABEL_PX, BoardLayout, Label, Placed, _action_items, _draw_labels, _draw_leaders,
                          _draw_units, _hex_ok, _layout, _seq, polygons_overlap, wing_colours)
from .tacw_strip import _legend, _strip, strip_scale

__all__ = ["render_board", "render_board_image", "render_replay_image", "board_geometry", "crop_geometry",
           "terrain_layer", "BoardGeometry", "SIDE_COLOURS", "TERRAIN_COLOURS", "NOSE",
           "HEX_R", "wing_colours", "board_layout", "BoardLayout", "Label", "Placed",
           "polygons_overlap", "DISPLAY_W", "HEX_ID_PX", "strip_scale", "ruler_px", "LABEL_PX",
           "SIDE_NAMES"]

ZOOMS = (1.25, 1.5, 1.75, 2.0)       # crop scales (multiples of HEX_R)
CROP_VIEW_R = 18         # a crop spans at most this many hex radii across: 9.5 px text at 550
CROP_MAX_W, CROP_MAX_H = 1100, 1150  # output pixels of a crop (before the strip): legibility
# depends on how many hexes a crop spans, not on its zoom (text grows with the zoom); a crop of the
# usual 16 hex radii shows its labels at >= 10 px when Discord scales it to DISPLAY_W


IDLE_TILES = 2           # terrain tiles per task drawn ahead (5-16 ms each)


def idle_tasks(scenario: Scenario, states: list[TacwState]) -> list[tuple[Any, tuple]]:
    """Work for render workers with nothing else to do (renders.pool `idle`, queued by
    bot.render_pool.warm_workers when the bot starts): the terrain tiles of the crop zoom most
    actions are drawn at (ZOOMS[-1]: 93% of 2,000 autoplayed actions) not yet on disk, nearest
    the units of `states` first, IDLE_TILES a task. Issue 13: after a first start (no tiles on
    disk) a worker drew 20-30 tiles for a crop in a new part of a map; with every such tile on
    disk the load bench's TACW p95 was 127 ms instead of 164-192. Only for a bundled battle (a
    worker loads it by id)."""
    from engine.core.game import get_ruleset
    from .pool import scenario_ref
    sid, _ = scenario_ref(get_ruleset("tacw"), scenario)
    if sid is None:
        return []
    near = [h for st in states for u in st.units.values() if u.alive for h in u.hexes]
    tiles = tiles_not_on_disk(scenario, ZOOMS[-1], near)
    return [(draw_tiles, (sid, tuple(tiles[i:i + IDLE_TILES]))) for i in range(0, len(tiles), IDLE_TILES)]


# --- the layout of a view (tacw_layout._layout) -------------------------------------------------
def board_layout(scenario: Scenario, state: TacwState, size: str = "full") -> BoardLayout:
    """Where `render_board_image` puts every counter, badge, marker row and label (the view's
    pixels, before the information strip)."""
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    from engine.tacw.battles.second_newbury import scenario_view
    scenario = scenario_view(scenario, state, public=True)
    g = crop_geometry(scenario, state) if size == "crop" else None
    return _layout(scenario, state, g or board_geometry(scenario))


# --- overlays: the last action and the pending decision -----------------------------------------
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
    return fit_focus(_map_geometry(scenario.cols, scenario.rows, 1.0), _focus_groups(scenario, state), CROP_VIEW_R)


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
    if g is None and size == "crop":
        # nothing to focus on (a new turn, the initiative): the whole field as an overview at a
        # crop's width (as Discord shows it), not the full 2,000 px map -- issue 13: that one
        # cost ~200 ms to draw and encode, the tail of the replies; /game board has the full map
        return render_replay_image(scenario, state, width=CROP_MAX_W)
    if g is None:
        g = board_geometry(scenario)
        board = terrain_layer(scenario).copy()
    else:
        box = (int(g.offset[0]), int(g.offset[1]), int(g.offset[0]) + g.width,
               int(g.offset[1]) + g.height)
        board = terrain_crop(scenario, g.zoom, box)
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


@image_cache(32 << 20)
def _replay_terrain(sk, zoom: float) -> Image.Image:
    return _terrain_view(sk, zoom, None)


def replay_zoom(scenario: Scenario, width: int) -> float:
    """The zoom at which the whole map (with its bands) is `width` px wide, at most 1."""
    return min(1.0, width / board_geometry(scenario).width)


def render_replay_image(scenario: Scenario, state: TacwState, *, width: int) -> Image.Image:
    """The public board of an animated replay (renders/replay.py): the whole map drawn directly
    at the GIF's width (about half scale: no full-size drawing to shrink), its terrain drawn once
    per scenario, without the hex ids (of the empty hexes and on the counters: unreadable at
    that size, and the counters' values print larger), with the information strip. Issue 13."""
    from engine.tacw.battles.second_newbury import scenario_view
    scenario = scenario_view(scenario, state, public=True)
    zoom = replay_zoom(scenario, width)
    g = _map_geometry(scenario.cols, scenario.rows, zoom)
    board = _replay_terrain(_scenario_key(scenario), zoom).copy()
    draw_map_features(board, g, scenario)
    draw_deployment_areas(board, g, scenario, state)
    layout = _layout(scenario, state, g, hex_ids=False)
    d = ImageDraw.Draw(board)
    _overlay_under(d, g, scenario, state)
    _draw_units(board, layout, scenario, state, hex_ids=False)
    _draw_leaders(board, layout, scenario, state)
    _overlay_over(d, g, scenario, state, {h for u, *_ in layout.units for h in u.hexes})
    _draw_labels(board, layout)
    legend = _legend(scenario, state, g, layout)
    # the strip's text in proportion to the map (as on the full board shrunk to this width), but
    # never under 0.6 (~10 px)
    k = max(0.6, strip_scale(board_geometry(scenario).width) * zoom)
    return board_with_strip(board, _strip(scenario, state, board.width, legend, layout.stacks, k),
                            STRIP_BG)


def render_board(scenario: Scenario, state: TacwState, *, viewer: str | None = None,
                 size: str = "full") -> bytes:
    """PNG of the map: terrain, counters with their facing and markers, leaders, the last action
    and an information strip (turn, phase, activation, pending decision, VP, wing orders).

    viewer: accepted for symmetry with the other renderers; TACW hides nothing, so every viewer
    gets the same image. size: "full" (the whole map, ~1960 px wide) or "crop" (the area of the
    last action, or of the active wing, at 1.25-2x scale; the full map when there is neither).
    CPU-bound (a crop ~20 ms to draw and ~40 to encode, bench/render_bench.py): the bot draws it
    in the render pool (renders/pool.py, bot/render_pool.py)."""
    return encode_png_nearest(render_board_image(scenario, state, viewer=viewer, size=size))
