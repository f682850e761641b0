"""This Accursed Civil War board, what stands on the map and where it is drawn (Pillow only).

Reading the state (`wing_colours`, the last action's items, a counter's marker tags and values),
the counters' placements (stacks side by side, doubles over both hexes) and outlines
(`_counter_polygon`), the leaders' badges and places, and `_layout`, which places every counter,
marker row and leader badge first and then every label clear of all of them and of each other
(`Label`, `Placed`, `BoardLayout`, `polygons_overlap`); then drawing them: counters, stack chips,
leaders and labels. `board_layout` (renders/tacw.py) picks the view and calls `_layout`.
Imports renders/tacw_geometry.py; never renders/tacw.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.core.facing import vertex_angle
from engine.tacw.scenario.schema import Scenario
from engine.tacw.state import TacwState, Unit

from .common import font, image_cache, text_width
from .tacw_deploy import area_labels, place_labels
from .tacw_art import (COUNTER_HALF, GOLD, HEX_ID_PX, NOSE_TIP, SIDE_DARK, SIDE_NAMES, WING_PALETTE,
                       counter_sprite, leader_sprite, paste_at, tag_sprite)
from .tacw_geometry import COMBAT_COLOUR, FIRE_COLOUR, SQRT3, BoardGeometry, _hexes_in_view


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


def _draw_units(img: Image.Image, layout: BoardLayout, scenario: Scenario, state: TacwState,
                hex_ids: bool = True) -> None:
    """Counters, bottom of each stack first, each with its hex id (unless not `hex_ids`); then
    their marker rows."""
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
            "" if scale != 1.0 or not hex_ids else _hex_ids_text(g, u, (cx, cy), angle))
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


def _poly_box(poly) -> tuple[float, float, float, float]:
    xs, ys = [x for x, _ in poly], [y for _, y in poly]
    return (min(xs), min(ys), max(xs), max(ys))


@lru_cache(maxsize=65536)           # the same counters meet on board after board (replays)
def _overlap(a, b) -> bool:
    return polygons_overlap(a, b)


def _boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _counter_polygon(g: BoardGeometry, u: Unit, centre, scale: float, angle: float):
    """The outline of a counter as drawn (body, halo and noses)."""
    return _outline(g.r, len(u.hexes) == 2, centre, scale, angle)


@lru_cache(maxsize=65536)           # most counters stand still from one board to the next
def _outline(g_r: float, double: bool, centre, scale: float, angle: float):
    r = g_r * scale
    span = g_r * SQRT3 if double else 0.0
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


def _layout(scenario: Scenario, state: TacwState, g: BoardGeometry, hex_ids: bool = True) -> BoardLayout:
    """Every counter, badge, marker row and label of view `g`; hex_ids=False (an animated
    replay's small overview) leaves out the hex ids of the empty hexes."""
    placements, by_hex = _placements(scenario, g, state)
    placed: list[Placed] = [Placed("unit", u.id, _counter_polygon(g, u, centre, scale, angle))
                            for u, centre, scale, angle in placements]
    bodies = {p.id: p.polygon for p in placed}
    boxes = [_poly_box(p.polygon) for p in placed]     # bounding boxes: a cheap test first
    grid_cell = 2 * g.r                                # and a grid of them: only neighbours
    near: dict[tuple[int, int], list[int]] = {}

    def box_cells(b):
        return [(i, j) for i in range(int(b[0] // grid_cell), int(b[2] // grid_cell) + 1)
                for j in range(int(b[1] // grid_cell), int(b[3] // grid_cell) + 1)]

    for n, b in enumerate(boxes):
        for c in box_cells(b):
            near.setdefault(c, []).append(n)
    for u, centre, scale, angle in placements:
        tags, _ = _unit_tags(u)
        if not tags:
            continue
        # a marker row goes below its counter, else above it, beside it, or on its lower half:
        # where it covers no other counter (nor another marker row)
        sprite, anchor = tag_sprite(round(g.r, 3), tags)
        own = bodies[u.id]
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
            bb = (x0, y0, x0 + sprite.width, y0 + sprite.height)
            others = {n for c in box_cells(bb) for n in near.get(c, ())}
            if not any(placed[n].id != u.id and _boxes_overlap(bb, boxes[n])
                       and _overlap(tuple(poly), placed[n].polygon) for n in sorted(others)):
                chosen = poly
                break
        if chosen is None:
            x, y = spots[-1]
            x0, y0 = x - anchor[0], y - anchor[1]
            chosen = _box_poly((x0, y0, x0 + sprite.width, y0 + sprite.height))
        placed.append(Placed("markers", u.id, tuple(chosen)))
        boxes.append(_poly_box(chosen))
        for c in box_cells(boxes[-1]):
            near.setdefault(c, []).append(len(boxes) - 1)
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
                poly = poly or tuple(_box_poly(box))
                if _overlap(poly, shape):
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
    shown = _hexes_in_view(scenario, g) if hex_ids else []
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


@image_cache(24 << 20)
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
