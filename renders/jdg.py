"""Jours de Gloire "Classique" board image: scenario + state -> PNG bytes (Pillow only).

The renderer draws what the state says and decides nothing: counters where `Unit.hex` puts them,
each turned so that its front edge faces its facing vertex [6.1] (a white nose on that edge points
at the vertex), in the Napoleonic style of renders/jdg_art.py: the nationality's body (French blue,
Austrian white with an ochre border), the formation's stripe in the scenario's colour along the
rear edge, a NATO-like arm symbol and "strength-cohesion-MP"; a disordered unit shows its back
(paler, reduced cohesion and MP, a "D" tag), a routed one a "ROUT" tag and a red border; tags for
square (SQ), declared charge (CHG) and fired artillery. Units sharing a hex are drawn smaller,
side by side across the first one's facing (every one visible); the units of the formations under
activation have a yellow halo. Commanders-in-chief are gold discs with their initial; victory hexes
a gold ring with their VP and a pennant of the side that holds them; the rout exits chevrons beyond
the map edge. The last action (`state.last_action`, read leniently: `kind` and/or `items` with
`path`, `from`/`to`, `hex`) is drawn as arrows and rings.

Layers, bottom to top:
  1. terrain (renders/jdg_geometry.py), drawn once per scenario and zoom and cached (the full map
     whole; crops pasted from 256 px tiles): terrain, elevation, hexsides, roads, victory rings,
     rout exits, hex ids, place labels, rulers;
  2. the move/retreat/fire arrows of the last action and the hexes a pending decision offers;
  3. counters (cached sprites) and their marker tags; victory pennants; commanders;
  4. rings and combat arrows of the last action, elimination crosses;
  5. the information strip under the board (renders/jdg_strip.py).

Hidden information [2.3, 2.1]: nothing secret reaches the picture. A formation's orders are shown
once revealed, or to `viewer` when it is their side; secret combined markers are neither named
nor counted but for their side. Counters show nothing secret.

Sizes: the Marengo map (32 x 24) is ~1,600 px wide in full (hex radius 30, rulers round it);
`size="crop"` draws the area of the last action, of a pending decision or of the active formation
at 1.25-2x that scale, at most 1,100 px wide (read at Discord's 550 px); with nothing to focus on
it is an overview of the whole field 1,100 px wide (`render_replay_image`). PNG: 256 colours with
an exact nearest-colour remap (`common.encode_png_nearest`).

Public API: `render_board(scenario, state, viewer=None, size="full") -> bytes`,
`render_board_image(...) -> Image`, `render_replay_image(scenario, state, width=)`,
`board_geometry(scenario)`, `crop_geometry(scenario, state)`, `placements(...)`, `terrain_layer`.
"""
from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from engine.jdg.scenario import Scenario
from engine.jdg.state import JdgState, Unit

from .common import (MOVE_COLOUR, RETREAT_COLOUR, STRIP_BG, arrow, board_with_strip, cross, dashed_polyline,
                     encode_png_nearest, fit_box, fit_focus, path_arrow, ring, trim_path)
from .jdg_art import (NOSE, SIDE_BODY, SIDE_COLOURS, TERRAIN_COLOURS, commander_sprite, counter_sprite,
                      flag_sprite, hex_colour, paste_at, tag_sprite)
from .jdg_geometry import (DISPLAY_W, HEX_R, BoardGeometry, board_geometry, hexes_in_view, overview_terrain,
                           scenario_geometry, terrain_crop, terrain_layer, view)
from .jdg_strip import cup_counts, legend_entries, orders_shown, strip, strip_scale

__all__ = ["render_board", "render_board_image", "render_replay_image", "board_geometry", "crop_geometry",
           "placements", "terrain_layer", "unit_tags", "counter_values", "SIDE_BODY", "SIDE_COLOURS",
           "TERRAIN_COLOURS", "NOSE", "HEX_R", "DISPLAY_W", "orders_shown", "cup_counts", "strip_scale"]

FIRE_COLOUR = (255, 96, 0)
COMBAT_COLOUR = (220, 20, 30)
PENDING_COLOUR = (255, 230, 0)
ZOOMS = (1.25, 1.5, 1.75, 2.0)       # crop scales
CROP_VIEW_R = 18                     # a crop spans at most this many hex radii across
CROP_MAX_W, CROP_MAX_H = 1100, 1150
STACK_SCALE = {1: 1.0, 2: 0.8, 3: 0.6}


# --- reading the state ----------------------------------------------------------------------------
def _hex_ok(scenario: Scenario, h: Any) -> bool:
    return isinstance(h, str) and h in scenario.map.grid


def _seq(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value] if isinstance(value, str) else []


def _action_items(state: JdgState) -> list[dict]:
    la = state.last_action or {}
    if not isinstance(la, dict):
        return []
    items = [i for i in _seq(la.get("items")) if isinstance(i, dict)]
    if "kind" in la:
        items.insert(0, la)
    return items


def unit_tags(u: Unit) -> tuple[str, ...]:
    """The marker tags of a counter, in drawing order (renders/jdg_art.TAGS)."""
    tags = []
    if u.condition == "disordered":
        tags.append("disordered")
    elif u.condition == "routed":
        tags.append("routed")
    if u.square:
        tags.append("square")
    if u.charge:
        tags.append("charge")
    if u.arm == "artillery" and u.fired:
        tags.append("fired")
    return tuple(tags)


def counter_values(scenario: Scenario, u: Unit) -> str:
    """"strength-cohesion-MP" as printed on the side shown: the back (reduced cohesion and MP)
    once disordered or routed [10.1]."""
    try:
        s = scenario.unit(u.id)
    except KeyError:
        return "?"
    if u.disordered:
        return f"{s.strength}-{s.cohesion_back}-{s.mp_back}"
    return f"{s.strength}-{s.cohesion}-{s.mp}"


def _stripe(scenario: Scenario, formation_id: str) -> tuple[int, int, int]:
    try:
        return hex_colour(scenario.formation(formation_id).colour)
    except StopIteration:
        return (255, 255, 255)


def _units_by_hex(scenario: Scenario, state: JdgState) -> dict[str, list[Unit]]:
    """Live units on the map per hex, in the state's order (the stack's order, top first)."""
    out: dict[str, list[Unit]] = {}
    for u in state.units.values():
        if u.alive and _hex_ok(scenario, u.hex):
            out.setdefault(u.hex, []).append(u)
    return out


def _angle(scenario: Scenario, u: Unit) -> float:
    from engine.core.facing import vertex_angle
    return vertex_angle(scenario.map.grid, int(u.facing))


def placements(scenario: Scenario, state: JdgState, g: BoardGeometry) -> list[tuple[Unit, tuple[float, float], float, float]]:
    """(unit, centre, scale, angle) of every counter, in drawing order (bottom of a stack first).

    A lone counter sits on its hex centre; two or three units in a hex are drawn smaller side by
    side across the top unit's facing, each turned to its own facing."""
    out = []
    for h, units in sorted(_units_by_hex(scenario, state).items()):
        n = len(units)
        scale = STACK_SCALE.get(n, 0.5)
        cx, cy = g.hex_center(h)
        a = math.radians(_angle(scenario, units[0]))
        step = {2: 1.0, 3: 0.7}.get(n, 0.5) * g.r
        placed = []
        for i, u in enumerate(units):
            t = (i - (n - 1) / 2) * step if n > 1 else 0.0
            placed.append((u, (cx - math.sin(a) * t, cy + math.cos(a) * t), scale, _angle(scenario, u)))
        out.extend(reversed(placed))         # the top unit drawn last
    return out


def holders(scenario: Scenario, state: JdgState) -> dict[str, str]:
    """Who holds each victory hex: the state's record when it keeps one (`holders` or
    `victory_holders`: hex -> side), else the scenario's holder at the start. Never computed here."""
    rec = getattr(state, "holders", None) or getattr(state, "victory_holders", None) or {}
    out = {}
    for v in scenario.victory.hexes:
        side = rec.get(v.hex) if isinstance(rec, dict) else None
        out[v.hex] = side if side in SIDE_BODY else v.holder
    return out


# --- drawing --------------------------------------------------------------------------------------
def _draw_units(img: Image.Image, g: BoardGeometry, scenario: Scenario, state: JdgState,
                places) -> set[str]:
    active = set(state.activation.formations) if state.activation is not None and state.phase == "activation" else set()
    tag_rows = []
    for u, (cx, cy), scale, angle in places:
        r = g.r * scale
        sprite, anchor = counter_sprite(round(r, 3), u.side if u.side in SIDE_BODY else "french", u.arm,
                                        _heavy(scenario, u), counter_values(scenario, u), round(angle, 3),
                                        _stripe(scenario, u.formation), u.disordered, u.condition == "routed",
                                        u.formation in active)
        paste_at(img, sprite, anchor, cx, cy)
        tags = unit_tags(u)
        if tags:
            tag_rows.append((tags, cx, cy, r))
    for tags, cx, cy, r in tag_rows:          # over every counter of a stack
        sp = tag_sprite(round(max(7.0, 0.3 * g.r * (0.8 if r < g.r else 1.0)), 3), tags)
        img.paste(sp, (int(round(cx - sp.width / 2)), int(round(cy - 0.56 * r - sp.height * 0.75))), sp)
    return {u.hex for u, *_ in places}


def _heavy(scenario: Scenario, u: Unit) -> bool:
    try:
        return scenario.unit(u.id).heavy
    except KeyError:
        return False


def _draw_victory(img: Image.Image, g: BoardGeometry, scenario: Scenario, state: JdgState,
                  shown: set[str]) -> None:
    held = holders(scenario, state)
    for v in scenario.victory.hexes:
        if v.hex not in shown:
            continue
        cx, cy = g.hex_center(v.hex)
        fl = flag_sprite(round(0.4 * g.r, 3), held[v.hex], int(v.vp))
        # the hex's top-left corner, clear of its id
        img.paste(fl, (int(round(cx - 0.78 * g.r)), int(round(cy - 0.84 * g.r))), fl)


def _draw_commanders(img: Image.Image, g: BoardGeometry, scenario: Scenario, state: JdgState,
                     occupied: set[str], shown: set[str]) -> None:
    for c in scenario.commanders:
        cs = state.commanders.get(c.id)
        if cs is None or cs.status != "active" or not _hex_ok(scenario, cs.hex) or cs.hex not in shown:
            continue
        name = c.successor.name if (c.leaves_turn and c.successor and state.turn > c.leaves_turn) else c.name
        cx, cy = g.hex_center(cs.hex)
        if cs.hex in occupied:
            rr, x, y = 0.24 * g.r, cx - 0.58 * g.r, cy + 0.5 * g.r
        else:
            rr, x, y = 0.36 * g.r, cx, cy + 0.1 * g.r
        sp = commander_sprite(round(rr, 3), cs.side if cs.side in SIDE_BODY else "french", name[:1].upper())
        img.paste(sp, (int(round(x - sp.width / 2)), int(round(y - sp.height / 2))), sp)


def _overlay_under(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario, state: JdgState) -> None:
    z = g.zoom
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        for h in _seq(pend.get("options")) + _seq(pend.get("hexes")):
            if _hex_ok(scenario, h):
                pts = g.hex_corners(h, 0.9)
                dashed_polyline(d, pts + pts[:1], PENDING_COLOUR, max(3, int(3 * z)), dash=8 * z, gap=5 * z)
    for item in _action_items(state):
        kind = str(item.get("kind", ""))
        path = [g.hex_center(h) for h in _seq(item.get("path")) if _hex_ok(scenario, h)]
        if len(path) >= 2:
            colour = MOVE_COLOUR if kind in ("move", "march", "enter") else RETREAT_COLOUR
            path_arrow(d, path, colour, end_gap=0.3 * g.r, dot=6 * z, dot_width=max(2, int(2 * z)),
                       width=max(4, int(5 * z)), head=15 * z, dashed=kind not in ("move", "march", "enter"))
        elif kind == "fire":
            for src in _seq(item.get("from")):
                if _hex_ok(scenario, src) and _hex_ok(scenario, item.get("to")):
                    a, b = g.hex_center(src), g.hex_center(item["to"])
                    arrow(d, trim_path([a, b], 0.25 * g.r, 0.55 * g.r), FIRE_COLOUR, width=max(3, int(4 * z)),
                          head=15 * z, outline=(255, 255, 255), dashed=True)


def _overlay_over(d: ImageDraw.ImageDraw, g: BoardGeometry, scenario: Scenario, state: JdgState,
                  occupied: set[str]) -> None:
    z = g.zoom
    for item in _action_items(state):
        kind = str(item.get("kind", ""))
        to = item.get("to")
        if kind in ("fire", "assault", "charge", "combat", "close_combat", "counter_charge") and _hex_ok(scenario, to):
            colour = FIRE_COLOUR if kind == "fire" else COMBAT_COLOUR
            w = max(3, int(round(3 * z)))
            ring(d, g.hex_center(to), 0.86 * g.r, colour, width=w, casing_width=w + 3)
            if kind != "fire":
                for src in _seq(item.get("from")):
                    if not _hex_ok(scenario, src):
                        continue
                    (ax, ay), (bx, by) = g.hex_center(src), g.hex_center(to)
                    dist = math.dist((ax, ay), (bx, by))
                    if dist > 0.6 * g.r:
                        t0, t1 = 0.3 * g.r / dist, 1 - 0.3 * g.r / dist
                        arrow(d, [(ax + (bx - ax) * t0, ay + (by - ay) * t0), (ax + (bx - ax) * t1, ay + (by - ay) * t1)],
                              COMBAT_COLOUR, width=max(4, int(5 * z)), head=14 * z, outline=(255, 255, 255))
        elif kind == "eliminated" and _hex_ok(scenario, item.get("hex")) and item["hex"] not in occupied:
            cross(d, g.hex_center(item["hex"]), 0.42 * g.r, ((int(9 * z), (255, 255, 255)), (int(5 * z), COMBAT_COLOUR)))


def _stacks(scenario: Scenario, state: JdgState, shown: set[str]) -> list[tuple[str, list[str]]]:
    return [(h, [u.id for u in us]) for h, us in sorted(_units_by_hex(scenario, state).items())
            if len(us) > 1 and h in shown]


def _compose(scenario: Scenario, state: JdgState, g: BoardGeometry, board: Image.Image, viewer: str | None,
             k: float | None = None, stacks: bool = True) -> Image.Image:
    shown = set(hexes_in_view(scenario, g))
    places = [p for p in placements(scenario, state, g) if p[0].hex in shown]
    d = ImageDraw.Draw(board)
    _overlay_under(d, g, scenario, state)
    occupied = _draw_units(board, g, scenario, state, places)
    _draw_victory(board, g, scenario, state, shown)
    _draw_commanders(board, g, scenario, state, occupied, shown)
    _overlay_over(d, g, scenario, state, occupied)
    tags = {t for u, *_ in places for t in unit_tags(u)}
    legend = legend_entries(scenario, shown, tags)
    flow = strip(scenario, state, board.width, viewer, legend, _stacks(scenario, state, shown) if stacks else (), k)
    return board_with_strip(board, flow, STRIP_BG)


# --- the crop -------------------------------------------------------------------------------------
def _focus_groups(scenario: Scenario, state: JdgState) -> list[list[str]]:
    """The hexes a crop should show, most important first: a pending decision's hexes; the
    targets, sources and eliminations of the last action; where its moves ended and began; the
    rest of their paths; failing all of these, the active formations' units."""
    pend = state.pending if isinstance(state.pending, dict) else None
    choices = [h for h in _seq(pend.get("options")) + _seq(pend.get("hexes")) if _hex_ok(scenario, h)] if pend else []
    hits, ends, paths = [], [], []
    for item in _action_items(state):
        path = [h for h in _seq(item.get("path")) if _hex_ok(scenario, h)]
        if path:
            ends += path[-1:] + path[:1]
            paths += path[1:-1]
        hits += [h for key in ("to", "hex", "from", "hexes") for h in _seq(item.get(key)) if _hex_ok(scenario, h)]
    groups = [grp for grp in (choices, hits, ends, paths) if grp]
    if groups:
        return groups
    act = state.activation
    if act is None:
        return []
    hexes = [u.hex for fid in act.formations for u in state.formation_units(fid) if _hex_ok(scenario, u.hex)]
    if not hexes:
        return []
    grid = scenario.map.grid
    first = hexes[0]
    return [sorted(set(hexes), key=lambda h: (grid.distance(first, h), h))]


def _focus_hexes(scenario: Scenario, state: JdgState) -> list[str]:
    return fit_focus(scenario_geometry(scenario, 1.0), _focus_groups(scenario, state), CROP_VIEW_R)


def crop_geometry(scenario: Scenario, state: JdgState) -> BoardGeometry | None:
    """The view `size="crop"` draws: the focus hexes with a margin at 1.25-2x the full map's
    scale, at most CROP_MAX_W x CROP_MAX_H px; None when there is nothing to focus on."""
    hexes = _focus_hexes(scenario, state)
    if not hexes:
        return None
    g1 = scenario_geometry(scenario, 1.0)
    xs, ys = zip(*(g1.hex_center(h) for h in hexes))
    r = g1.r
    x0, x1, y0, y1 = fit_box(min(xs) - 2 * r, max(xs) + 2 * r, min(ys) - 2 * r, max(ys) + 2 * r, 16 * r, 14 * r)
    if x1 - x0 > 1.6 * (y1 - y0):
        c = (y0 + y1) / 2
        y0, y1 = c - (x1 - x0) / 3.2, c + (x1 - x0) / 3.2
    elif y1 - y0 > 1.25 * (x1 - x0):
        c = (x0 + x1) / 2
        x0, x1 = c - (y1 - y0) / 2.5, c + (y1 - y0) / 2.5
    fit = min(CROP_MAX_W / (x1 - x0), CROP_MAX_H / (y1 - y0))
    zoom = max([z for z in ZOOMS if z <= fit] or [ZOOMS[0]])
    gz = scenario_geometry(scenario, zoom)
    cx, cy = (x0 + x1) / 2 * zoom, (y0 + y1) / 2 * zoom
    w = min((x1 - x0) * zoom, CROP_MAX_W, gz.width)
    h = min((y1 - y0) * zoom, CROP_MAX_H, gz.height)
    bx0 = min(max(0.0, cx - w / 2), gz.width - w)
    by0 = min(max(0.0, cy - h / 2), gz.height - h)
    return view(scenario, zoom, (int(bx0), int(by0), int(bx0 + w), int(by0 + h)))


# --- entry points ---------------------------------------------------------------------------------
def render_board_image(scenario: Scenario, state: JdgState, *, viewer: str | None = None,
                       size: str | None = "full") -> Image.Image:
    """The board as a PIL RGB image (see `render_board`)."""
    size = size or "full"
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    if size == "crop":
        g = crop_geometry(scenario, state)
        if g is None:
            return render_replay_image(scenario, state, width=CROP_MAX_W, viewer=viewer)
        box = (int(g.offset[0]), int(g.offset[1]), int(g.offset[0]) + g.width, int(g.offset[1]) + g.height)
        return _compose(scenario, state, g, terrain_crop(scenario, g.zoom, box), viewer)
    g = board_geometry(scenario)
    return _compose(scenario, state, g, terrain_layer(scenario).copy(), viewer)


def render_replay_image(scenario: Scenario, state: JdgState, *, width: int, viewer: str | None = None) -> Image.Image:
    """The whole field drawn directly at `width` px (at most the full map's scale), without
    rulers, its terrain cached per scenario and width: the crop's overview when nothing is in
    focus, and a frame of an animated replay (renders/replay.py)."""
    full = board_geometry(scenario)
    zoom = min(1.0, round(width / scenario_geometry(scenario, 1.0, rulers=False).width, 4))
    g = scenario_geometry(scenario, zoom, rulers=False)
    board = overview_terrain(scenario, zoom).copy()
    k = max(0.6, strip_scale(full.width) * zoom)
    return _compose(scenario, state, g, board, viewer, k, stacks=False)


def render_board(scenario: Scenario, state: JdgState, *, viewer: str | None = None,
                 size: str | None = "full") -> bytes:
    """PNG of the board: terrain, counters with their facing and state, commanders-in-chief,
    victory hexes and who holds them, rout exits, the last action and an information strip
    (turn and time, phase, initiative, activation, VP, cup, formations and their public orders).

    viewer: None for the public view (a channel); a side ("french" / "austrian") also sees its own
    formations' orders and secret markers. size: "full" (the whole map, ~1,600 px wide, with
    rulers) or "crop" (the area of the last action, pending decision or active formation at
    1.25-2x; an overview 1,100 px wide when there is none). CPU-bound: the bot draws it in the
    render pool (renders/pool.py)."""
    return encode_png_nearest(render_board_image(scenario, state, viewer=viewer, size=size))
