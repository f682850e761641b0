"""Lion of the North board image: scenario + state -> PNG bytes (Pillow only; issue 15).

A top-down picture of the open table (180 x 120 cm, HERALD D1) that draws what the state says and
decides nothing. Every base is a true-scale rectangle where engine.core.table.geometry puts it
(`base_polygon` of the unit's pose and footprint, the same shapes the rules measure): `Unit.x, y`
is the centre of its FRONT edge, `facing` a compass bearing (0 = north = up on the picture,
clockwise), the rectangle behind it. Bases are coloured by nation (Swedish blue with a yellow front,
Imperial white with a red front, Saxon green with a white front, Spanish cream with a red front:
the unit's nation from the scenario, else its army's), the front edge a band of the second colour,
a short type label inside (MUS, PIK, P&S, TER, REI, CAV, DRG / DRG-d, CRO, MIL, ART-r/l/m/h, ORG,
MOR) and the unit id beside it (placed where it overlaps nothing, else where it overlaps least).
Disorder is red pips along the rear edge (one per hit: up to 1 for a plain unit, 2 for P&S, 3 for a
Tercio), and tags beside the id: LOOT (looting a camp), CAPT (a gun captured: outlined in the
captor's colour), LMB / DEP (light and medium guns limbered or deployed). Generals are discs (GEN)
with a gold rim, a red cross when wounded; camps 9 x 6 with their tents, TAKEN when captured.
Destroyed, waiting and off-table units are not drawn.

The last action (`state.last_action`, read leniently: engine/lion/movement writes kind "move" with
`paths` (lists of (x, y), the front-centre's track), `from` poses, `distance`, `contact` {mover,
target, edge}, `evaded` and follow-up paths; engine/lion/fire/shoot.py kind "shoot" with
`shooter`, `target`, `distance`, `band`, `face`, `hit`, and "contact_fire" with `shots`;
engine/lion/melee/fight.py kind "melee" with `defender`, `attackers`, `edges`) is drawn as the
moves' paths with arrowheads and the ghost of where each mover started, the shooter's arc of fire
as a translucent cone (`geometry.arc_polygon`, cut at the troop's range and the table) with the
measured distance on the line from the shooter's face to the target's nearest point, and melee
contacts as the touching edges outlined in red. Anything absent is skipped.

Layers: the cached terrain and frame (renders/lion_art.py); the action's cones, ghosts and paths,
camps, bases and markers on a 2x supersampled overlay; then text at 1x (type labels, ids, tags,
distances, the rulers and the scale bar); the information strip under the board (turn, the cards
drawn this turn and the current one, who acts, Cpts left, any pending decision, the weather, each
army's weighted losses against its 40% and 60% thresholds: engine/lion/checks.weighted_losses and
engine/lion/ruleset.weather_text, never a rule computed here).

Sizes: the full board is FULL_WIDTH (1,600) px wide with rulers readable at Discord's 550 px;
`size="crop"` shows the area of the last action (or a pending decision's units) at one of
CROP_SCALES px/cm, CROP_W (1,100) px wide at most, its ids and labels >= 10 px once shown 550 px
wide; with nothing to focus on it is the whole table as an overview 1,100 px wide
(`render_replay_image`). PNG: 256 colours with an exact nearest-colour remap
(`common.encode_png_nearest`). Deterministic: the same state gives the same bytes.

Public API: `render_board(scenario, state, viewer=None, size="full") -> bytes`,
`render_board_image(...) -> Image`, `render_replay_image(scenario, state, width=, viewer=None)`,
`board_view(scenario)`, `crop_view_of(scenario, state)` (the TableView a picture uses: `px(x, y)`
maps table cm to its pixels), `type_label(unit)`, `unit_colours(scenario, unit)`.
"""
from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw
from shapely.geometry import LineString, Polygon, box as shp_box

from engine.core.table.geometry import (Footprint, Pose, arc_polygon, base_polygon, edges, forward)
from engine.lion import checks, tables

from .common import (MOVE_COLOUR, RETREAT_COLOUR, STRIP_BG, STRIP_DIM, STRIP_FG, FlowText, arrow,
                     board_with_strip, encode_png_nearest, font, outlined_text,
                     text_width)
from .table_common import (Boxes as _Boxes, Pen as _Pen, base_point as base_point_cm, composite_overlay,
                           draw_ghost, draw_id_tags, draw_pending_outline, draw_tents, draw_touching_edges,
                           fit_crop, front_band, ids as _ids, num as _num, path as _path, pending_prompt,
                           pose3 as _pose3)
from .lion_art import (CROP_SCALES, CROP_W, DISPLAY_W, FULL_WIDTH, NATION_COLOURS, NATION_NAMES, TableView,
                       crop_view, draw_rulers, draw_scale_bar, full_view, nation_colours, ruler_px, terrain_image)

__all__ = ["render_board", "render_board_image", "render_replay_image", "board_view", "crop_view_of",
           "type_label", "unit_colours", "unit_tags", "TYPE_LABELS", "NATION_COLOURS", "PIP", "GOLD",
           "FIRE_COLOUR", "COMBAT_COLOUR", "ARC_COLOUR", "SS"]

SS = 2
FIRE_COLOUR = (255, 96, 0)
ARC_COLOUR = (255, 120, 20)
ARC_ALPHA = 72
COMBAT_COLOUR = (220, 20, 30)
PENDING_COLOUR = (255, 230, 0)
GHOST = (255, 255, 255)
PIP = (244, 32, 16)
GOLD = (232, 186, 40)
CAMP_BODY = (236, 226, 196)
ID_FILL, ID_OUTLINE = (255, 255, 255), (20, 20, 20)
CROP_MIN_W, CROP_MIN_H = 40.0, 28.0        # cm: the smallest area a crop shows
CROP_MARGIN = 7.0                           # cm around what a crop focuses on
CROP_MAX_H = 1150

TYPE_LABELS = {
    "militia": "MIL", "musketeers": "MUS", "pike_and_shot": "P&S", "late_pike_and_shot": "P&S",
    "tercio": "TER", "pikemen": "PIK", "reiter": "REI", "regular_cavalry": "CAV", "dragoons": "DRG",
    "mounted_arquebusiers": "ARQ", "dismounted_dragoons": "DRG-d", "detached_musketeers": "MUS-d",
    "croats": "CRO", "organ_guns": "ORG", "regimental_guns": "ART-r", "light_guns": "ART-l",
    "medium_guns": "ART-m", "heavy_guns": "ART-h", "mortar": "MOR",
}
STATUS_GUNS = ("light_guns", "medium_guns")        # limbered / deployed [6 A]
TAG_COLOURS = {"LOOT": (255, 200, 40), "CAPT": (255, 90, 90), "LMB": (190, 190, 190), "DEP": (150, 230, 150),
               "WND": (255, 90, 90), "TAKEN": (255, 90, 90), "GARR": (150, 230, 150)}


# --- reading the state --------------------------------------------------------------------------------
def _action(state) -> dict:
    la = getattr(state, "last_action", None)
    return la if isinstance(la, dict) else {}


def _shots(la: dict) -> list[dict]:
    if la.get("kind") == "shoot":
        return [la]
    if la.get("kind") == "contact_fire":
        return [s for s in la.get("shots") or [] if isinstance(s, dict)]
    return []


def _side_paths(la: dict) -> list[tuple[str, list[tuple[float, float]]]]:
    """(unit id or "", path) of the secondary moves: evasions, follow-ups, retreats."""
    out = []
    for key in ("evaded", "follow_ups", "retreats", "recoils", "routs", "pursuits"):
        for item in la.get(key) or []:
            if isinstance(item, dict):
                path = _path(item.get("path"))
                if len(path) >= 2:
                    out.append((str(item.get("unit", "")), path))
    return out


def _melee_pairs(la: dict) -> list[tuple[str, str]]:
    """(attacker, defender) pairs of a melee or of a move's contact."""
    pairs = []
    if la.get("kind") in ("melee", "fight"):
        defenders = _ids(la.get("defender")) + _ids(la.get("defenders"))
        for a in _ids(la.get("attacker")) + _ids(la.get("attackers")):
            for dfd in defenders:
                pairs.append((a, dfd))
    c = la.get("contact")
    if isinstance(c, dict) and isinstance(c.get("mover"), str) and isinstance(c.get("target"), str):
        pairs.append((c["mover"], c["target"]))
    return pairs


# --- units -------------------------------------------------------------------------------------------
def _spec(scenario, uid: str):
    try:
        return scenario.unit(uid)
    except (KeyError, StopIteration, AttributeError):
        return None


def _nation(scenario, side: str, spec=None) -> str:
    if spec is not None:
        try:
            return scenario.nation_of(spec)
        except (KeyError, AttributeError):
            pass
    try:
        return scenario.armies[side].nation
    except (KeyError, AttributeError):
        return side


def unit_colours(scenario, unit) -> tuple[tuple[int, int, int], ...]:
    """(body, front edge and label, outline) of a unit or general by its nation."""
    spec = _spec(scenario, unit.id) if hasattr(unit, "type") else None
    return nation_colours(_nation(scenario, unit.side, spec))


def type_label(unit) -> str:
    """The short type label drawn on a base (dragoons on foot: DRG-d)."""
    t = tables.effective_type(unit.type, getattr(unit, "mounted", True))
    return TYPE_LABELS.get(t, t[:3].upper())


def unit_tags(unit) -> tuple[str, ...]:
    tags = []
    if getattr(unit, "looting", False):
        tags.append("LOOT")
    if getattr(unit, "captured_by", ""):
        tags.append("CAPT")
    if unit.type in STATUS_GUNS:
        tags.append("DEP" if unit.deployed else "LMB")
    return tuple(tags)


def _footprint(obj) -> Footprint:
    try:
        return checks.footprint(obj)
    except (KeyError, ValueError):
        return Footprint(4.0, 2.0)


def _pose(obj) -> Pose:
    return Pose(float(obj.x), float(obj.y), float(obj.facing))


def _live_units(state) -> list:
    return [u for u in sorted(state.units.values(), key=lambda u: u.id) if u.status == "active"]


def _live_generals(state) -> list:
    return [g for g in sorted(state.generals.values(), key=lambda g: g.id) if g.status == "active"]


def _poly_of(state, uid: str) -> Polygon | None:
    u = state.units.get(uid)
    if u is not None:
        return base_polygon(_pose(u), _footprint(u))
    g = state.generals.get(uid)
    if g is not None:
        return base_polygon(_pose(g), _footprint(g))
    return None


# --- drawing -----------------------------------------------------------------------------------------
def _draw_cones(pen: _Pen, scenario, state, la: dict) -> None:
    table = shp_box(0, 0, scenario.width, scenario.height)
    for shot in _shots(la):
        u = state.units.get(shot.get("shooter"))
        if u is None:
            continue
        face = shot.get("face") if shot.get("face") in ("front", "rear", "left", "right") else "front"
        try:
            t = tables.troop(tables.effective_type(u.type, u.mounted))
            dist = _num(shot.get("distance")) or 0.0
            reach = t.max_range if math.isfinite(t.max_range) and t.max_range > 0 else max(30.0, dist + 15.0)
            cone = arc_polygon(_pose(u), _footprint(u), reach, 30.0, face).intersection(table)
        except (KeyError, ValueError):
            continue
        w = max(2, int(round(0.12 * pen.v.s)))
        pen.poly(cone, fill=ARC_COLOUR + (ARC_ALPHA,), outline=ARC_COLOUR + (230,), width=w)


def _ghosts_and_paths(pen: _Pen, scenario, state, la: dict) -> list[tuple[tuple[float, float], str]]:
    """Where each mover started (a dashed outline) and its path; returns (midpoint, text) labels."""
    labels = []
    s = pen.v.s
    ids = _ids(la.get("units"))
    froms = la.get("from") if isinstance(la.get("from"), list) else []
    for i, uid in enumerate(ids):
        obj = state.units.get(uid) or state.generals.get(uid)
        if obj is None or i >= len(froms):
            continue
        p0 = _pose3(froms[i])
        if p0 is None or (abs(p0.x - obj.x) < 0.05 and abs(p0.y - obj.y) < 0.05 and abs(p0.facing - obj.facing) < 0.05):
            continue
        draw_ghost(pen, p0, _footprint(obj), max(3, int(0.2 * s)), max(2, int(0.1 * s)), 0.7 * s, 0.45 * s)
    paths = la.get("paths") if isinstance(la.get("paths"), list) else []
    kind = str(la.get("kind", ""))
    drawn = []
    for i, raw in enumerate(paths):
        path = _path(raw)
        uid = ids[i] if i < len(ids) else ""
        drawn.append((uid, path, MOVE_COLOUR, False))
    for uid, path in _side_paths(la):
        drawn.append((uid, path, RETREAT_COLOUR, True))
    for n, (uid, path, colour, dashed) in enumerate(drawn):
        length = sum(math.dist(a, b) for a, b in zip(path, path[1:]))
        if len(path) < 2 or length < 0.3:
            continue
        pts = pen.pts(path)
        head = max(14, 1.3 * s)
        (ax, ay), (bx, by) = pts[-2], pts[-1]
        seg = math.dist((ax, ay), (bx, by)) or 1.0
        pts = pts[:-1] + [(bx + (bx - ax) / seg * head * 0.95, by + (by - ay) / seg * head * 0.95)]
        pen.d.ellipse((pts[0][0] - 0.35 * s, pts[0][1] - 0.35 * s, pts[0][0] + 0.35 * s, pts[0][1] + 0.35 * s),
                      fill=colour + (255,), outline=(0, 0, 0, 255), width=max(2, int(0.08 * s)))
        arrow(pen.d, pts, colour + (255,), width=max(4, int(round(0.3 * s))), head=head, outline=(0, 0, 0, 255),
              dashed=dashed)
        if n == 0 and kind == "move" and _num(la.get("distance")):
            mid = path[len(path) // 2] if len(path) > 2 else ((path[0][0] + path[-1][0]) / 2, (path[0][1] + path[-1][1]) / 2)
            labels.append((mid, f"{_fmt(la['distance'])} cm"))
    return labels


def _fmt(v: Any) -> str:
    x = _num(v)
    if x is None:
        return str(v)
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _draw_camps(pen: _Pen, scenario, state) -> None:
    s = pen.v.s
    for side in sorted(state.camps):
        c = state.camps[side]
        pose, fp = _pose(c), _footprint(c)
        body, front, dark = nation_colours(_nation(scenario, side))
        poly = base_polygon(pose, fp)
        pen.poly(poly, fill=CAMP_BODY + (255,), outline=body + (255,), width=max(3, int(0.3 * s)))
        draw_tents(pen, pose, fp, (-2.6, 0.0, 2.6), 1.1, 1.0, 1.2, body + (255,), dark + (255,))   # three tents
        if c.captured_by:
            cb, cf, _ = nation_colours(_nation(scenario, c.captured_by))
            pen.poly(poly, outline=cf + (255,), width=max(3, int(0.25 * s)))


def _draw_units(pen: _Pen, scenario, state, units, hits_focus: set[str]) -> None:
    s = pen.v.s
    ow = max(2, int(round(0.09 * s)))
    for u in units:
        pose, fp = _pose(u), _footprint(u)
        body, front, dark = unit_colours(scenario, u)
        c = base_polygon(pose, fp)
        pen.poly(c, fill=body + (255,))
        # the front band: the front edge and a strip behind it
        pen.d.polygon(pen.pts(front_band(pose, fp, min(fp.depth * 0.3, 0.7))), fill=front + (255,))
        outline = dark
        width = ow
        if u.captured_by:
            outline = nation_colours(_nation(scenario, u.captured_by))[1]
            width = max(3, int(round(0.22 * s)))
        pen.poly(c, outline=outline + (255,), width=width)
        if u.id in hits_focus:
            pen.poly(c.buffer(0.25, join_style="mitre"), outline=COMBAT_COLOUR + (255,), width=max(3, int(0.2 * s)))
        _pips(pen, u, pose, fp)


def _pip_radius(fp: Footprint) -> float:
    return max(0.28, min(0.36, fp.depth * 0.16))


def _pips(pen: _Pen, u, pose: Pose, fp: Footprint) -> None:
    """One red pip per hit taken along the inside of the rear edge ([9 A], [12 E-F])."""
    n = int(u.hits or 0)
    if n <= 0:
        return
    s = pen.v.s
    r = _pip_radius(fp)
    rpx = max(r * s, 4.5 * SS)
    fx, fy = forward(pose.facing)
    rx, ry = fy, -fx
    cx, cy = pose.x - fx * (fp.depth - r - 0.15), pose.y - fy * (fp.depth - r - 0.15)
    step = max(2 * r + 0.25, 2 * rpx / s + 0.1)
    for i in range(n):
        off = (i - (n - 1) / 2) * step
        px, py = pen.v.px(cx + rx * off, cy + ry * off)
        pen.d.ellipse((px - rpx, py - rpx, px + rpx, py + rpx), fill=PIP + (255,), outline=(255, 255, 255, 255),
                      width=max(2, int(rpx * 0.28)))


def _draw_generals(pen: _Pen, scenario, state) -> None:
    s = pen.v.s
    for g in _live_generals(state):
        pose, fp = _pose(g), _footprint(g)
        body, front, dark = unit_colours(scenario, g)
        cx, cy = pen.v.px(pose.x - forward(pose.facing)[0] * fp.depth / 2, pose.y - forward(pose.facing)[1] * fp.depth / 2)
        r = max(fp.width / 2 * s, 6 * SS)
        pen.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=body + (255,), outline=GOLD + (255,),
                      width=max(3, int(r * 0.22)))
        fx, fy = forward(pose.facing)          # a nose toward the facing
        nx, ny = fx, -fy
        pen.d.polygon([(cx + nx * r * 1.45, cy + ny * r * 1.45), (cx + ny * r * 0.5 + nx * r * 0.8, cy - nx * r * 0.5 + ny * r * 0.8),
                       (cx - ny * r * 0.5 + nx * r * 0.8, cy + nx * r * 0.5 + ny * r * 0.8)], fill=GOLD + (255,))
        if g.wounded:
            k = r * 0.8
            for w, col in ((max(5, int(r * 0.5)), (255, 255, 255, 255)), (max(3, int(r * 0.3)), PIP + (255,))):
                pen.d.line([(cx - k, cy - k), (cx + k, cy + k)], fill=col, width=w)
                pen.d.line([(cx - k, cy + k), (cx + k, cy - k)], fill=col, width=w)


def _draw_contacts(pen: _Pen, state, la: dict) -> set[str]:
    """The touching edges of a melee or a move's contact, thick red on white ([8 A], D6)."""
    s = pen.v.s
    involved = set()
    for a, b in _melee_pairs(la):
        pa, pb = _poly_of(state, a), _poly_of(state, b)
        if pa is None or pb is None:
            continue
        involved |= {a, b}
        if pa.distance(pb) > 0.3:
            continue
        draw_touching_edges(pen, pa, pb, 0.12, COMBAT_COLOUR, max(7, int(0.55 * s)), max(4, int(0.32 * s)))
    return involved


def _shot_lines(scenario, state, la: dict) -> list[tuple[list[tuple[float, float]], str, bool]]:
    """(the measured line shooter face -> target, its label, hit) of each shot."""
    out = []
    for shot in _shots(la):
        u, t = state.units.get(shot.get("shooter")), state.units.get(shot.get("target"))
        if u is None or t is None:
            continue
        face = shot.get("face") if shot.get("face") in ("front", "rear", "left", "right") else "front"
        edge = edges(_pose(u), _footprint(u))[face]
        tp = base_polygon(_pose(t), _footprint(t))
        from shapely.ops import nearest_points
        a, b = nearest_points(edge, tp)
        dist = shot.get("distance", round(a.distance(b), 2))
        text = f"{_fmt(dist)} cm"
        if shot.get("band"):
            text += f" {shot['band']}"
        if "hit" in shot:
            text += ": hit" if shot.get("hit") else ": miss"
        out.append(([(a.x, a.y), (b.x, b.y)], text, bool(shot.get("hit"))))
    return out


# --- text (1x) ------------------------------------------------------------------------------------------
def _place(boxes: _Boxes, pts, facing: float, w: float, h: float, table_box):
    """The best box for a label w x h beside a base (screen polygon `pts`): behind it, in front,
    above, below, right, left, further behind; the first with no overlap, else the least."""
    tx0, ty0, tx1, ty1 = table_box
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    cxp, cyp = (x0 + x1) / 2, (y0 + y1) / 2
    half_w, half_h = (x1 - x0) / 2, (y1 - y0) / 2
    fx, fy = forward(facing)
    bx, by = -fx, fy                           # backward on screen (y flipped)
    cands = []
    for sgn in (1, -1):
        ux, uy = bx * sgn, by * sgn
        reach = abs(ux) * (half_w + w / 2) + abs(uy) * (half_h + h / 2) + 2
        cands.append((cxp + ux * reach, cyp + uy * reach))
    cands += [(cxp, y0 - h / 2 - 1), (cxp, y1 + h / 2 + 1), (x1 + w / 2 + 3, cyp), (x0 - w / 2 - 3, cyp)]
    reach = abs(bx) * (half_w + w / 2) + abs(by) * (half_h + h / 2) + 2 + h
    cands.append((cxp + bx * reach, cyp + by * reach))
    best, best_score = None, None
    for i, (lx, ly) in enumerate(cands):
        if tx1 - tx0 > w:
            lx = min(max(lx, tx0 + w / 2), tx1 - w / 2)
        ly = min(max(ly, ty0 + h / 2), ty1 - h / 2)
        b = (lx - w / 2, ly - h / 2, lx + w / 2, ly + h / 2)
        score = boxes.overlap((b[0] - 3, b[1] - 1, b[2] + 3, b[3] + 1)) + i * 0.5
        if best_score is None or score < best_score:
            best, best_score = b, score
        if score < 1 + i * 0.5:
            break
    return best, best_score


def _label_size(text: str, tags: tuple[str, ...], fnt, tfnt) -> tuple[float, float]:
    w = text_width(text, fnt) + 4
    for t in tags:
        w += text_width(t, tfnt) + 10
    return w, fnt.size * 1.25


def _draw_label(d: ImageDraw.ImageDraw, box, text: str, tags, fnt, tfnt) -> None:
    x0, y0, x1, y1 = box
    draw_id_tags(d, x0 + 2, (y0 + y1) / 2, text, tags, fnt, tfnt, TAG_COLOURS, ID_FILL, ID_OUTLINE)


def _fit_label(label: str, largest: int, wide: float, high: float):
    """(font px, lines) of a type label inside a base `wide` x `high` px: one line, or two split
    at the hyphen ("ART" over "-h") when that is larger; None below 7 px."""
    options = [[label]] + ([[label.split("-")[0], "-" + label.split("-", 1)[1]]] if "-" in label else [])
    best = None
    for rows in options:
        size = largest
        while size >= 7:
            f = font(size, True)
            if max(text_width(r, f) for r in rows) <= wide * 0.88 and size * (1.05 * len(rows)) <= high * 0.8:
                break
            size -= 1
        if size >= 7 and (best is None or size > best[0] + 1):
            best = (size, rows)
    return best


def _feature_name_boxes(scenario, v: TableView) -> list[tuple[float, float, float, float]]:
    """Where the terrain layer wrote the features' names (unit ids keep clear of them)."""
    from .lion_art import feature_name_size, label_spot, scenario_key
    size = feature_name_size(v.s)
    fnt = font(size, True)
    sk = scenario_key(scenario)
    out = []
    for f in scenario.features:
        if f.kind not in ("town", "woods", "hill", "marsh") or not f.name:
            continue
        x, y = v.px(*label_spot(sk, f.id))
        text = f.name + (f" (hill {f.level})" if f.kind == "hill" else "")
        w = text_width(text, fnt)
        out.append((x - w / 2, y - size * 0.6, x + w / 2, y + size * 0.6))
    return out


def _text_sizes(v: TableView) -> tuple[int, int]:
    """(id font px, largest type-label px) of a view: legible at DISPLAY_W for a crop."""
    if v.kind == "full":
        return 12, 11
    legible = math.ceil(10.5 * v.width / DISPLAY_W)
    if v.kind == "crop":
        return max(12, min(legible, int(round(v.s * 2.1)))), legible
    return max(10, min(legible, int(round(v.s * 1.9)))), max(9, min(legible, int(round(v.s * 1.7))))


def _draw_text(img: Image.Image, v: TableView, scenario, state, units, generals, la: dict,
               move_labels, shot_lines) -> None:
    d = ImageDraw.Draw(img)
    id_px, type_px = _text_sizes(v)
    fnt, tfnt = font(id_px, True), font(max(8, int(id_px * 0.8)), True)
    boxes = _Boxes()
    tx0, ty0, tx1, ty1 = v.table_box
    items = []                                  # (obj, screen polygon, label, tags)
    for u in units:
        poly = base_polygon(_pose(u), _footprint(u))
        items.append((u, v.pts(poly.exterior.coords), u.id, unit_tags(u), _footprint(u)))
    for g in generals:
        poly = base_polygon(_pose(g), _footprint(g))
        tags = ("WND",) if g.wounded else ()
        items.append((g, v.pts(poly.exterior.coords), g.id, tags, _footprint(g)))
    for side in sorted(state.camps):
        c = state.camps[side]
        poly = base_polygon(_pose(c), _footprint(c))
        tags = ("TAKEN",) if c.captured_by else (("GARR",) if c.garrison else ())
        items.append((c, v.pts(poly.exterior.coords), f"{side} camp", tags, _footprint(c)))
    for _, pts, *_ in items:
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        boxes.add((min(xs), min(ys), max(xs), max(ys)), 0.35)
    # type labels inside the bases
    for obj, pts, _, _, fp in items:
        if not hasattr(obj, "type"):
            continue
        body, front, _ = unit_colours(scenario, obj)
        # the label sits between the front band and the pips (centred when there are none)
        band = min(fp.depth * 0.3, 0.7)
        rear = fp.depth - (2 * _pip_radius(fp) + 0.2 if obj.hits else 0.0)
        lx, ly = base_point_cm(_pose(obj), 0.0, (band + rear) / 2 if obj.hits else (band + fp.depth) / 2)
        cxp, cyp = v.px(lx, ly)
        if not (tx0 <= cxp <= tx1 and ty0 <= cyp <= ty1):
            continue
        # the inner box of the base on screen: an axis-aligned base fits its frontage or depth
        ang = obj.facing % 180
        upright = ang < 45 or ang > 135
        wide = (fp.width if upright else fp.depth) * v.s
        high = ((rear - band) if obj.hits else fp.depth - band) * v.s if upright else fp.width * v.s
        label = type_label(obj)
        ink = (30, 30, 30) if sum(body) > 600 else ((255, 255, 255) if sum(front) > 600 else front)
        lines = _fit_label(label, type_px, wide, high)
        if lines:
            size, rows = lines
            f = font(size, True)
            for i, row in enumerate(rows):
                d.text((cxp, cyp + (i - (len(rows) - 1) / 2) * size * 1.05), row, font=f, fill=ink, anchor="mm")
    for b in _feature_name_boxes(scenario, v):
        boxes.add(b, 0.8)
    # ids and tags: placed where they overlap least (the action's units first)
    focus = set(_ids(la.get("units"))) | {p for pair in _melee_pairs(la) for p in pair}
    for shot in _shots(la):
        focus |= set(_ids(shot.get("shooter"))) | set(_ids(shot.get("target")))
    order = sorted(items, key=lambda it: (getattr(it[0], "id", it[2]) not in focus, -it[0].y, it[0].x, it[2]))
    small, tsmall = font(max(9, int(id_px * 0.8)), True), font(max(8, int(id_px * 0.65)), True)
    for obj, pts, text, tags, fp in order:
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        cxp, cyp = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        if not (tx0 <= cxp <= tx1 and ty0 <= cyp <= ty1):
            continue                                # its base's centre is out of the view
        key = getattr(obj, "id", text) in focus or v.kind == "full"
        best = None
        for f1, f2 in ((fnt, tfnt), (small, tsmall)):
            w, h = _label_size(text, tags, f1, f2)
            b, score = _place(boxes, pts, obj.facing, w, h, v.table_box)
            if score <= w * h * 0.03:
                best = (b, f1, f2)
                break
            if best is None:
                best = (b, f1, f2)
            if key:
                break
        else:
            if not key:
                continue                            # no room: the full board names it
        b, f1, f2 = best
        boxes.add(b, 1.0)
        _draw_label(d, b, text, tags, f1, f2)
    # distances
    dfnt = font(max(id_px + 2, 13), True)
    for line, text, hit in shot_lines:
        (ax, ay), (bx_, by_) = v.px(*line[0]), v.px(*line[1])
        mx, my = (ax + bx_) / 2, (ay + by_) / 2
        w = text_width(text, dfnt) + 12
        hh = dfnt.size * 0.75
        d.rounded_rectangle((mx - w / 2, my - hh, mx + w / 2, my + hh), radius=4,
                            fill=(255, 255, 255), outline=COMBAT_COLOUR if hit else FIRE_COLOUR, width=2)
        d.text((mx, my), text, font=dfnt, fill=(20, 20, 20), anchor="mm")
    for (x, y), text in move_labels:
        px, py = v.px(x, y)
        outlined_text(d, (px, py), text, dfnt, fill=MOVE_COLOUR, outline=(0, 0, 0), width=max(2, dfnt.size // 6))


# --- the strip -----------------------------------------------------------------------------------------
def strip_scale(width: int) -> float:
    return max(1.0, width * 10.5 / (DISPLAY_W * 16))


def _card_text(state, card: str) -> tuple[str, str]:
    """("A move", side) of a card."""
    if card == "end":
        return "END", ""
    kind, _, letter = card.partition("_")
    letter = letter.upper()
    side = (getattr(state, "players", {}) or {}).get(letter, "")
    return f"{letter} {kind}", side


def _loss_bar(lo: dict, colour, k: float) -> Image.Image:
    """A bar of the army's weighted losses (victory count) with ticks at 40% and 60% [11 A], [14 A]."""
    w, h = int(round(170 * k)), int(round(14 * k))
    img = Image.new("RGBA", (w + 2, h + 6), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    total = max(1, int(lo.get("total") or 1))
    d.rectangle((1, 3, w, h + 2), fill=(70, 74, 80), outline=(200, 200, 200))
    lost = min(total, int(lo.get("victory") or 0))
    if lost:
        d.rectangle((2, 4, 2 + (w - 2) * lost / total, h + 1), fill=colour)
    for at, col in ((lo.get("demoralised_at"), (255, 200, 40)), (lo.get("beaten_at"), (255, 70, 70))):
        if isinstance(at, (int, float)) and 0 < at <= total:
            x = 1 + (w - 1) * at / total
            d.line([(x, 0), (x, h + 5)], fill=col, width=max(2, int(2 * k)))
    return img


def _letter(scenario, side: str) -> str:
    try:
        return scenario.armies[side].player
    except (KeyError, AttributeError):
        return "Z"


def _strip(scenario, state, width: int, k: float | None = None) -> FlowText:
    from engine.lion.ruleset import LION, weather_text
    from engine.lion.sequence.cards import turn_limit
    k = strip_scale(width) if k is None else k
    big, bold, reg = font(round(20 * k), True), font(round(16 * k), True), font(round(16 * k))
    flow = FlowText(width, round(28 * k), pad_x=round(14 * k), gap=round(18 * k))

    def chip(side: str) -> list[tuple]:
        body, front, _ = nation_colours(_nation(scenario, side))
        return [("box", round(16 * k), round(14 * k), body, front), ("gap", round(4 * k)),
                ("text", NATION_NAMES.get(_nation(scenario, side), side.title()) if side else "?", bold, STRIP_FG)]

    try:
        limit = turn_limit(scenario)
    except Exception:                                  # noqa: BLE001 - a picture never fails
        limit = 0
    flow.add([("text", f"{scenario.title}", big, STRIP_FG), ("gap", round(10 * k)),
              ("text", scenario.date, reg, STRIP_DIM)])
    flow.add([("text", f"Turn {state.turn}" + (f" of {limit}" if limit else ""), bold, STRIP_FG)])
    cards = [("text", "Cards:", reg, STRIP_DIM)]
    drawn = list(state.drawn or [])
    for i, card in enumerate(drawn):
        text, side = _card_text(state, card)
        current = card == state.card and i == len(drawn) - 1
        col = nation_colours(_nation(scenario, side))[0] if side else (120, 120, 120)
        cards += [("gap", round(6 * k)), ("box", round(10 * k), round(14 * k), col, (230, 230, 230)),
                  ("gap", round(3 * k)),
                  ("text", ("\u25b6" if current else "") + text, bold if current else reg,
                   PENDING_COLOUR if current else STRIP_DIM)]
    if not drawn:
        cards.append(("text", " none yet", reg, STRIP_DIM))
    cards.append(("text", f"  ({len(drawn)} of 9)", reg, STRIP_DIM))
    flow.add(cards)
    # who acts
    if state.phase == "over":
        flow.add([("text", "Battle over: " + (state.result or "") , bold, PENDING_COLOUR)], new_line=True)
    else:
        try:
            actor = LION.to_act(state)
        except Exception:                              # noqa: BLE001
            actor = None
        line: list[tuple] = []
        if actor:
            line += chip(actor) + [("gap", round(6 * k))]
        p = state.pending if isinstance(state.pending, dict) else None
        if p:
            line.append(("text", f"to decide: {pending_prompt(p)}", bold, PENDING_COLOUR))
        elif state.step == "contact_fire":
            line.append(("text", "contact fire (LdN [7 D])", bold, STRIP_FG))
        elif state.card:
            kind = state.card.partition("_")[0]
            line.append(("text", {"move": "to move", "shoot": "to shoot", "combat": "to fight",
                                  "rally": "to rally", "end": "end of the turn"}.get(kind, kind), bold, STRIP_FG))
            if kind == "move" and actor in state.armies:
                a = state.armies[actor]
                line.append(("text", f"  {a.cpts} of {a.cpts_rolled} Cpts left", reg, STRIP_FG))
        flow.add(line, new_line=True)
    try:
        weather = weather_text(state)
    except Exception:                                  # noqa: BLE001
        weather = ""
    if weather:
        flow.add([("text", "Weather:", reg, STRIP_DIM), ("gap", round(6 * k)), ("text", weather, reg, STRIP_FG)])
    first = True
    for side in sorted(state.armies, key=lambda sd: (_letter(scenario, sd), sd)):
        try:
            lo = checks.weighted_losses(scenario, state, side)
        except Exception:                              # noqa: BLE001
            continue
        body = nation_colours(_nation(scenario, side))[0]
        demo = state.armies[side].demoralised
        items = chip(side) + [("gap", round(6 * k)),
                              ("text", f"lost {lo['victory']}/{lo['total']}", bold, STRIP_FG), ("gap", round(6 * k)),
                              ("image", _loss_bar(lo, (235, 80, 60), k)), ("gap", round(6 * k)),
                              ("text", f"40% at {lo['demoralised_at']}, 60% at {lo['beaten_at']}", reg, STRIP_DIM)]
        if demo:
            items += [("gap", round(6 * k)), ("text", "DEMORALISED", bold, (255, 120, 90))]
        del body
        flow.add(items, new_line=first)
        first = False
    return flow


# --- views --------------------------------------------------------------------------------------------
def board_view(scenario) -> TableView:
    """The full board's view (FULL_WIDTH px wide): `px(x, y)` is where table point (x, y) is drawn."""
    return full_view(float(scenario.width), float(scenario.height))


def _focus_box(scenario, state) -> tuple[float, float, float, float] | None:
    """The table area (x0, y0, x1, y1 in cm) of the last action (or of a pending decision's
    units): paths, start and end poses, the shooter and its target, the units in contact."""
    la = _action(state)
    geoms = []
    for raw in la.get("paths") or []:
        p = _path(raw)
        if p:
            geoms.append(LineString(p) if len(p) > 1 else shp_box(p[0][0], p[0][1], p[0][0], p[0][1]))
    for _, p in _side_paths(la):
        geoms.append(LineString(p))
    ids = set(_ids(la.get("units")))
    for shot in _shots(la):
        ids |= set(_ids(shot.get("shooter"))) | set(_ids(shot.get("target")))
    for a, b in _melee_pairs(la):
        ids |= {a, b}
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        ids |= set(_ids(pend.get("unit"))) | set(_ids(pend.get("units")))
    for uid in sorted(ids):
        poly = _poly_of(state, uid)
        if poly is not None:
            geoms.append(poly)
    for raw in la.get("from") or [] if isinstance(la.get("from"), list) else []:
        p = _pose3(raw)
        if p is not None:
            geoms.append(shp_box(p.x - 2, p.y - 2, p.x + 2, p.y + 2))
    if not geoms:
        return None
    xs0, ys0, xs1, ys1 = zip(*(g.bounds for g in geoms))
    return min(xs0), min(ys0), max(xs1), max(ys1)


def crop_view_of(scenario, state) -> TableView | None:
    """The view `size="crop"` draws: the last action's area with a margin at the largest of
    CROP_SCALES that fits CROP_W x CROP_MAX_H px; None when nothing is in focus."""
    fb = _focus_box(scenario, state)
    if fb is None:
        return None
    return fit_crop(fb, float(scenario.width), float(scenario.height), crop_view, margin=CROP_MARGIN,
                    min_w=CROP_MIN_W, min_h=CROP_MIN_H, scales=CROP_SCALES, crop_w=CROP_W, max_h=CROP_MAX_H)

# --- composing ----------------------------------------------------------------------------------------
def _compose(scenario, state, v: TableView, k: float | None = None) -> Image.Image:
    board = terrain_image(scenario, v)
    la = _action(state)
    units = _live_units(state)
    generals = _live_generals(state)
    pen = _Pen(v)
    _draw_cones(pen, scenario, state, la)
    _draw_camps(pen, scenario, state)
    move_labels = _ghosts_and_paths(pen, scenario, state, la)
    hit_ids = {s.get("target") for s in _shots(la) if s.get("hit")}
    _draw_units(pen, scenario, state, units, {h for h in hit_ids if isinstance(h, str)})
    _draw_generals(pen, scenario, state)
    _draw_contacts(pen, state, la)
    lines = _shot_lines(scenario, state, la)
    for line, _, hit in lines:
        pts = pen.pts(line)
        if math.dist(pts[0], pts[1]) > 4:
            arrow(pen.d, pts, (COMBAT_COLOUR if hit else FIRE_COLOUR) + (255,), width=max(4, int(0.28 * pen.v.s)),
                  head=max(16, 1.1 * pen.v.s), outline=(255, 255, 255, 255))
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        for uid in sorted(set(_ids(pend.get("unit")) + _ids(pend.get("units")))):
            poly = _poly_of(state, uid)
            if poly is not None:
                draw_pending_outline(pen, poly, 0.5, PENDING_COLOUR, max(3, int(0.2 * pen.v.s)), 0.8 * pen.v.s,
                                     0.5 * pen.v.s)
    board = composite_overlay(board, pen, v, SS)        # clipped to the table: nothing on the frame's bands
    _draw_text(board, v, scenario, state, units, generals, la, move_labels, lines)
    t = ruler_px(v.width)
    draw_rulers(board, v, t)
    draw_scale_bar(board, v, t)
    return board_with_strip(board, _strip(scenario, state, v.width, k), STRIP_BG)


def render_board_image(scenario, state, *, viewer: str | None = None, size: str | None = "full") -> Image.Image:
    """The board as a PIL RGB image (see `render_board`)."""
    size = size or "full"
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    if size == "crop":
        v = crop_view_of(scenario, state)
        if v is None:
            return render_replay_image(scenario, state, width=CROP_W, viewer=viewer)
        return _compose(scenario, state, v)
    return _compose(scenario, state, board_view(scenario))


def render_replay_image(scenario, state, *, width: int, viewer: str | None = None) -> Image.Image:
    """The whole table drawn directly `width` px wide (at most the full board's width): the crop's
    overview when nothing is in focus, and a frame of an animated replay (renders/replay.py)."""
    width = int(min(max(320, width), FULL_WIDTH))
    v = full_view(float(scenario.width), float(scenario.height), width)
    return _compose(scenario, state, v)


def render_board(scenario, state, *, viewer: str | None = None, size: str | None = "full") -> bytes:
    """PNG of the table: terrain, every base to scale with its facing and state, generals and
    camps, the last action (paths, arcs of fire, measured distances, contacts) and the strip (turn,
    cards, who acts, Cpts, weather, losses against 40% and 60%).

    viewer: nothing in Lion is secret [3]: the same picture for everyone. size: "full" (the whole
    table, FULL_WIDTH px wide) or "crop" (the last action's area, at most CROP_W px wide, legible
    at Discord's 550 px; the whole table 1,100 px wide when there is no action). CPU-bound: the
    bot draws it in the render pool (renders/pool.py)."""
    return encode_png_nearest(render_board_image(scenario, state, viewer=viewer, size=size))
