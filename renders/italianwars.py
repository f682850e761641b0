"""Italian Wars board image: scenario + state -> PNG bytes (Pillow only; issue 16).

A top-down picture of the 45 x 30 UDM open table (HERALD D1) that draws what the state says and
decides nothing, after Lion of the North's renderer (renders/lion.py). Every company is its true
rectangle where engine.core.table.geometry puts it (`base_polygon` of its pose and
`tables.footprint(arm, bases)`: 1 UDM wide, its bases one behind the other): `Company.x, y` is the
centre of the leading base's FRONT edge, `facing` a compass bearing (0 = north = up, clockwise).
A thin line between bases makes small / medium / large read at a glance; the front edge is a band
of the nation's second colour (French blue/gold, Swiss red/white, Landsknechts yellow/black,
Spanish red/yellow, Venetian crimson/gold, Papal white/yellow, Italian condottieri green/white);
a short type label inside (PK, HB, AQ, XB, LB, GD, ST, LH, ART, WC, SK; a colunella PK+AQ) and the
id beside it with its tags (DIS disordered, ROUT, PURS pursuing, MEL in melee, EVD evaded, LMB
limbered guns, CMD the battle commander, C-in-C). Disorder is also a red diamond at the rear; the
battle commander's company carries a gold pennant, the C-in-C's a gold star; a skirmisher screen is
a dotted strip in front; routing companies are outlined orange, companies in melee red. Camps are
1 x 2 UDM tents (TAKEN when lost).

SECRETS (HERALD D4, D65): everything is drawn from `engine.italianwars.public.view(sc, st,
viewer)`: the enemy's hidden companies (ambushes, hidden skirmishers) are simply not there, and a
battle's order is shown only when the view has it (the enemy's once revealed; the viewer's own
always, marked "secret" until revealed). The viewer's own hidden companies are drawn dashed and
pale. Each side's Ecu appears only on its own viewer's picture.

The last action (`state.last_action`, read leniently: `units`/`companies`/`company`, `paths`
(lists of (x, y)), `from` poses, `shooter`/`target`, `attacker(s)`/`defender(s)`, `contact`
{mover, target}) is drawn as the moves' paths with arrowheads and the ghost of where each mover
started, the shooter's line to its target and the melee's touching edges in red. Anything absent
or malformed is skipped.

The strip under the board: the turn, the day clock's hour and light (dawn / day / dusk / night),
weather and season, the attacker, who acts and the active battle with its step, any pending
decision, each army's command points lost against its break point (more than half: IW Punto di
rottura, engine.italianwars.sequence.endturn.army_losses), each battle's order as the viewer may
see it, the viewer's Ecu, and a key of the terrain categories.

Sizes: full FULL_WIDTH (1,600) px wide; `size="crop"` the last action's area at one of CROP_SCALES
px/UDM, at most CROP_W (1,100) px wide, else the whole table 1,100 px wide. PNG: 256 colours
(`common.encode_png_nearest`). Deterministic.

Public API: `render_board(scenario, state, viewer=None, size="full") -> bytes`,
`render_board_image(...) -> Image`, `render_replay_image(scenario, state, width=, viewer=None)`,
`board_view(scenario)`, `crop_view_of(scenario, state)` (the TableView: `px(x, y)` maps table UDM
to pixels), `company_polygon(scenario, company)`, `type_label(spec)`, `company_colours(...)`.
"""
from __future__ import annotations

import math

from PIL import Image, ImageDraw
from shapely.geometry import LineString, Polygon, box as shp_box

from engine.core.table.geometry import Footprint, Pose, base_polygon, forward
from engine.italianwars import tables

from .common import (MOVE_COLOUR, RETREAT_COLOUR, STRIP_BG, STRIP_DIM, STRIP_FG, FlowText, arrow,
                     board_with_strip, dashed_polyline, encode_png_nearest, font, star_points, text_width)
from .table_common import (Boxes as _Boxes, Pen as _Pen, base_point, composite_overlay, draw_ghost, draw_id_tags,
                           draw_pending_outline, draw_tents, draw_touching_edges, fit_crop, front_band, ids as _ids,
                           path as _path, pending_prompt, pose3 as _pose3)
from .italianwars_art import (CATEGORY_FILL, CROP_SCALES, CROP_W, DISPLAY_W, FULL_WIDTH, TableView, crop_view,
                              draw_rulers, draw_scale_bar, feature_name_boxes, full_view, nation_colours,
                              ruler_px, terrain_image)

__all__ = ["render_board", "render_board_image", "render_replay_image", "board_view", "crop_view_of",
           "company_polygon", "type_label", "company_colours", "company_tags", "DIS_COLOUR", "GOLD", "SS"]

SS = 2
GOLD = (240, 190, 30)
DIS_COLOUR = (236, 28, 20)
ROUT_COLOUR = (255, 140, 0)
MELEE_COLOUR = (220, 20, 30)
FIRE_COLOUR = (255, 96, 0)
PENDING_COLOUR = (255, 230, 0)
CAMP_BODY = (236, 226, 196)
ID_FILL, ID_OUTLINE = (255, 255, 255), (20, 20, 20)
CROP_MIN_W, CROP_MIN_H = 14.0, 9.0          # UDM: the smallest area a crop shows
CROP_MARGIN = 2.5
CROP_MAX_H = 1150
LIVE = ("active", "routing", "pursuing")
TAG_COLOURS = {"DIS": (255, 110, 100), "ROUT": (255, 170, 60), "PURS": (255, 210, 120), "MEL": (255, 90, 90),
               "EVD": (190, 220, 255), "LMB": (200, 200, 200), "CMD": (250, 214, 90), "C-in-C": (255, 200, 40),
               "HIDDEN": (220, 220, 220), "TAKEN": (255, 90, 90)}
ORDER_TEXT = {"assault": "Assault", "attack": "Attack", "delay": "Delay", "occupy": "Occupy", "hold": "Hold",
              "withdraw": "Withdraw", "hesitate": "Hesitate", "march": "March", "retreat": "Retreat"}


# --- reading the state (leniently) ------------------------------------------------------------------
def _action(state) -> dict:
    """The last action as `state` (a viewer's view) may show it: nothing when it names a company
    the view does not hold (a hidden company's path would tell where it is: HERALD D4)."""
    la = getattr(state, "last_action", None)
    if not isinstance(la, dict):
        return {}
    named = set(_movers(la)) | {x for pair in _pairs(la) + _shots(la) for x in pair}
    if any(cid not in state.companies for cid in named):
        return {}
    return la


def _movers(la: dict) -> list[str]:
    out: list[str] = []
    for key in ("units", "companies", "company", "unit", "mover", "movers", "chargers", "charger"):
        for i in _ids(la.get(key)):
            if i not in out:
                out.append(i)
    return out


def _pairs(la: dict) -> list[tuple[str, str]]:
    """(attacker, defender) pairs of a melee or a contact."""
    pairs = []
    attackers = _ids(la.get("attacker")) + _ids(la.get("attackers"))
    defenders = _ids(la.get("defender")) + _ids(la.get("defenders"))
    for a in attackers:
        for d in defenders:
            pairs.append((a, d))
    c = la.get("contact")
    if isinstance(c, dict) and isinstance(c.get("mover"), str) and isinstance(c.get("target"), str):
        pairs.append((c["mover"], c["target"]))
    return pairs


def _shots(la: dict) -> list[tuple[str, str]]:
    out = []
    for a in _ids(la.get("shooter")) + _ids(la.get("shooters")):
        for t in _ids(la.get("target")) + _ids(la.get("targets")):
            out.append((a, t))
    return out


# --- companies --------------------------------------------------------------------------------------
def _spec(scenario, cid: str):
    try:
        return scenario.company(cid)
    except (KeyError, StopIteration, AttributeError):
        return None


def _arm(scenario, c) -> str:
    spec = _spec(scenario, c.id)
    arm = getattr(spec, "arm", "") or "infantry"
    return arm if arm in tables.BASE_DEPTH else "infantry"


def footprint_of(scenario, c) -> Footprint:
    return tables.footprint(_arm(scenario, c), max(1, int(c.bases or 1)))


def _pose(c) -> Pose:
    return Pose(float(c.x), float(c.y), float(c.facing))


def company_polygon(scenario, c) -> Polygon:
    """The company's rectangle as the rules measure it (HERALD D1)."""
    return base_polygon(_pose(c), footprint_of(scenario, c))


def _nation(scenario, c) -> str:
    spec = _spec(scenario, c.id)
    if spec is not None and getattr(spec, "nation", ""):
        return spec.nation
    try:
        return scenario.armies[c.side].nations[0]
    except (KeyError, AttributeError, IndexError):
        return c.side


def side_nation(scenario, side: str) -> str:
    try:
        return scenario.armies[side].nations[0]
    except (KeyError, AttributeError, IndexError):
        return side


def company_colours(scenario, c) -> tuple[tuple[int, int, int], ...]:
    """(body, front edge and label, outline) of a company by its nation."""
    return nation_colours(_nation(scenario, c))


def type_label(spec) -> str:
    """The short type label: PK pike, HB halberd/polearm, AQ arquebus, XB crossbow, LB longbow,
    GD gendarmes (lancers), ST stradiots, LH light horse, ART guns, WC war carts, SK skirmishers
    on foot; a colunella (pikes with arquebusiers) PK+AQ."""
    if spec is None:
        return "?"
    arm, role = spec.arm, spec.role
    melee, missile = spec.melee_weapon, spec.missile_weapon
    if arm == "artillery":
        return "WC" if missile == "war_cart" else "ART"
    if role == "skirmishers":
        if arm == "cavalry":
            return "ST" if (spec.nation == "stradiot" or "stradiot" in (spec.type or "")) else "LH"
        return "SK"
    shot = {"arquebus": "AQ", "crossbow": "XB", "longbow": "LB", "shortbow": "BW", "javelin": "JV"}.get(missile, "")
    if arm == "cavalry":
        if melee == "lance":
            return "GD"
        return shot or "LH"
    hand = {"pike": "PK", "polearm": "HB"}.get(melee, "")
    if hand and shot:
        return f"{hand}+{shot}"
    return hand or shot or "FT"


def _roles(state) -> tuple[set[str], set[str]]:
    """(the battle commanders' companies, the C-in-Cs' companies)."""
    cmd, cinc = set(), set()
    for b in state.battles.values():
        if b.commander:
            (cinc if b.cinc else cmd).add(b.commander)
    return cmd, cinc


def company_tags(c, cmd: set[str] = frozenset(), cinc: set[str] = frozenset()) -> tuple[str, ...]:
    tags = []
    if c.id in cinc:
        tags.append("C-in-C")
    elif c.id in cmd:
        tags.append("CMD")
    if c.disordered:
        tags.append("DIS")
    if c.status == "routing":
        tags.append("ROUT")
    if c.status == "pursuing":
        tags.append("PURS")
    if getattr(c, "melee_with", None) or (c.in_melee and not hasattr(c, "melee_with")):
        tags.append("MEL")          # in contact now (in_melee only says it fought this turn)
    if c.evaded:
        tags.append("EVD")
    if c.limbered or c.limbering:
        tags.append("LMB")
    if c.hidden:
        tags.append("HIDDEN")
    return tuple(tags)


def _live(state) -> list:
    return [c for c in sorted(state.companies.values(), key=lambda c: c.id) if c.status in LIVE]


# --- drawing (supersampled) -------------------------------------------------------------------------
def _draw_camps(pen: _Pen, scenario, state) -> list[tuple[Polygon, str, tuple[str, ...]]]:
    s = pen.v.s
    out = []
    for camp in sorted(getattr(scenario, "camps", ()), key=lambda c: c.side):
        pose, fp = Pose(camp.x, camp.y, camp.facing), tables.CAMP_SIZE
        body, front, dark = nation_colours(side_nation(scenario, camp.side))
        poly = base_polygon(pose, fp)
        pen.poly(poly, fill=CAMP_BODY + (255,), outline=body + (255,), width=max(3, int(0.1 * s)))
        draw_tents(pen, pose, fp, (-0.55, 0.0, 0.55), 0.22, 0.3, 0.3, body + (255,), dark + (255,))
        lost = bool(getattr(state.armies.get(camp.side), "camp_lost", False))
        if lost:
            pen.poly(poly, outline=MELEE_COLOUR + (255,), width=max(3, int(0.1 * s)))
        out.append((poly, f"{camp.side} camp", ("TAKEN",) if lost else ()))
    return out


def _dashed_poly(pen: _Pen, poly: Polygon, colour, width: int) -> None:
    s = pen.v.s
    dashed_polyline(pen.d, pen.pts(poly.exterior.coords), colour, width, dash=0.22 * s, gap=0.14 * s)


def _draw_company(pen: _Pen, scenario, c, viewer: str | None, cmd: set[str], cinc: set[str]) -> None:
    s = pen.v.s
    pose, fp = _pose(c), footprint_of(scenario, c)
    body, front, dark = company_colours(scenario, c)
    poly = base_polygon(pose, fp)
    fx, fy = forward(pose.facing)
    alpha = 150 if c.hidden else 255
    ow = max(2, int(round(0.045 * s)))
    if c.screen and not c.screen_removed:          # the screen: a dotted strip in front (HERALD D16)
        d = tables.SCREEN.depth
        scr = base_polygon(Pose(pose.x + fx * d, pose.y + fy * d, pose.facing), tables.SCREEN)
        pen.poly(scr, fill=front + (110,))
        r = max(2.0, 0.05 * s)
        for i in range(5):
            x, y = base_point(pose, -0.4 + i * 0.2, -d / 2)
            px, py = pen.v.px(x, y)
            pen.d.ellipse((px - r, py - r, px + r, py + r), fill=body + (255,))
    pen.poly(poly, fill=body + (alpha,))
    pen.d.polygon(pen.pts(front_band(pose, fp, min(0.14, fp.depth * 0.28))), fill=front + (alpha,))
    depth = tables.BASE_DEPTH.get(_arm(scenario, c), 0.5)
    for i in range(1, max(1, int(c.bases))):       # the lines between the bases
        a, b = base_point(pose, -0.5, depth * i), base_point(pose, 0.5, depth * i)
        pen.d.line(pen.pts([a, b]), fill=dark + (alpha,), width=max(2, int(round(0.035 * s))))
    if c.hidden:                                   # the viewer's own hidden company: dashed
        _dashed_poly(pen, poly, (255, 255, 255, 255), max(3, int(0.07 * s)))
        _dashed_poly(pen, poly, (20, 20, 20, 255), max(2, int(0.035 * s)))
    else:
        pen.poly(poly, outline=dark + (255,), width=ow)
    if c.status == "routing":
        pen.poly(poly.buffer(0.06, join_style="mitre"), outline=ROUT_COLOUR + (255,), width=max(3, int(0.08 * s)))
    elif getattr(c, "melee_with", None) or (c.in_melee and not hasattr(c, "melee_with")):
        pen.poly(poly.buffer(0.06, join_style="mitre"), outline=MELEE_COLOUR + (255,), width=max(3, int(0.08 * s)))
    if c.disordered:                               # a red diamond at the rear
        x, y = base_point(pose, 0.0, fp.depth - min(0.2, fp.depth * 0.3))
        px, py = pen.v.px(x, y)
        r = max(5.5 * SS, 0.17 * s)
        for grow, col in ((r * 0.55, (0, 0, 0, 255)), (r * 0.3, (255, 255, 255, 255)), (0.0, DIS_COLOUR + (255,))):
            rr = r + grow                         # black, white, red: seen on any body colour
            pen.d.polygon([(px, py - rr), (px + rr, py), (px, py + rr), (px - rr, py)], fill=col)
    if c.id in cinc or c.id in cmd:                # a gold star / pennant at the front-left corner
        x, y = base_point(pose, -0.5, 0.0)
        px, py = pen.v.px(x, y)
        r = max(7 * SS, 0.2 * s)
        if c.id in cinc:
            pen.d.polygon(star_points(px, py, r * 1.15), fill=GOLD + (255,), outline=(40, 30, 0, 255))
        else:
            pen.d.line([(px, py + r * 0.6), (px, py - r * 1.2)], fill=(40, 30, 0, 255), width=max(2, int(r * 0.18)))
            pen.d.polygon([(px, py - r * 1.2), (px + r * 1.1, py - r * 0.85), (px, py - r * 0.5)],
                          fill=GOLD + (255,), outline=(40, 30, 0, 255))


def _ghosts_and_paths(pen: _Pen, scenario, state, la: dict) -> None:
    s = pen.v.s
    ids = _movers(la)
    froms = la.get("from") if isinstance(la.get("from"), list) else []
    for i, cid in enumerate(ids):
        c = state.companies.get(cid)
        if c is None or i >= len(froms):
            continue
        p0 = _pose3(froms[i])
        if p0 is None or (abs(p0.x - c.x) < 0.02 and abs(p0.y - c.y) < 0.02 and abs(p0.facing - c.facing) < 0.05):
            continue
        draw_ghost(pen, p0, footprint_of(scenario, c), max(3, int(0.07 * s)), max(2, int(0.035 * s)), 0.25 * s,
                   0.15 * s)
    paths = la.get("paths") if isinstance(la.get("paths"), list) else []
    if not paths and la.get("path") is not None:
        paths = [la.get("path")]
    drawn = [(_path(p), MOVE_COLOUR, False) for p in paths]
    for key in ("evaded", "retreats", "routs", "pursuits", "follow_ups"):
        for item in la.get(key) or [] if isinstance(la.get(key), list) else []:
            if isinstance(item, dict):
                drawn.append((_path(item.get("path")), RETREAT_COLOUR, True))
    for path, colour, dashed in drawn:
        if len(path) < 2 or sum(math.dist(a, b) for a, b in zip(path, path[1:])) < 0.1:
            continue
        pts = pen.pts(path)
        head = max(14, 0.45 * s)
        arrow(pen.d, pts, colour + (255,), width=max(4, int(round(0.1 * s))), head=head, outline=(0, 0, 0, 255),
              dashed=dashed)


def _poly_of(scenario, state, cid: str) -> Polygon | None:
    c = state.companies.get(cid)
    return company_polygon(scenario, c) if c is not None else None


def _draw_contacts(pen: _Pen, scenario, state, la: dict) -> None:
    s = pen.v.s
    for a, b in _pairs(la):
        pa, pb = _poly_of(scenario, state, a), _poly_of(scenario, state, b)
        if pa is None or pb is None or pa.distance(pb) > 0.1:
            continue
        draw_touching_edges(pen, pa, pb, 0.04, MELEE_COLOUR, max(7, int(0.2 * s)), max(4, int(0.11 * s)))
    for a, t in _shots(la):
        pa, pt = _poly_of(scenario, state, a), _poly_of(scenario, state, t)
        if pa is None or pt is None:
            continue
        from shapely.ops import nearest_points
        p, q = nearest_points(pa, pt)
        pts = pen.pts([(p.x, p.y), (q.x, q.y)])
        if math.dist(pts[0], pts[1]) > 4:
            arrow(pen.d, pts, FIRE_COLOUR + (255,), width=max(4, int(0.09 * s)), head=max(16, 0.4 * s),
                  outline=(255, 255, 255, 255))


# --- text (1x) ------------------------------------------------------------------------------------
def _label_image(text: str, tags: tuple[str, ...], fnt, tfnt) -> Image.Image:
    """The id and its tags, left to right, on a transparent image."""
    w = text_width(text, fnt) + 6
    for t in tags:
        w += text_width(t, tfnt) + 10
    h = int(fnt.size * 1.35)
    img = Image.new("RGBA", (int(math.ceil(w)) + 2, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    draw_id_tags(d, 3, h / 2, text, tags, fnt, tfnt, TAG_COLOURS, ID_FILL, ID_OUTLINE)
    return img


def _candidates(v: TableView, poly: Polygon, facing: float, w: float, h: float):
    """(centre, angle) candidates for a label w x h: along the company's axis behind it and in
    front of it (rotated), then level above, below, right, left."""
    pts = v.pts(poly.exterior.coords)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    cxp, cyp = (x0 + x1) / 2, (y0 + y1) / 2
    fx, fy = forward(facing)
    sx, sy = fx, -fy                               # forward on screen
    ang = (90.0 - facing) % 360.0                  # the axis' angle, counter-clockwise
    if ang > 90.0 and ang <= 270.0:
        ang -= 180.0
    elif ang > 270.0:
        ang -= 360.0
    ext = abs(sx) * (x1 - x0) / 2 + abs(sy) * (y1 - y0) / 2
    out = []
    for sgn in (-1, 1):                             # behind, then in front
        reach = ext + w / 2 + 3
        out.append(((cxp + sx * sgn * reach, cyp + sy * sgn * reach), ang))
    out += [((cxp, y0 - h / 2 - 1), 0.0), ((cxp, y1 + h / 2 + 1), 0.0), ((x1 + w / 2 + 3, cyp), 0.0),
            ((x0 - w / 2 - 3, cyp), 0.0)]
    return out


def _rot_box(centre, angle: float, w: float, h: float):
    a = math.radians(angle)
    bw = abs(math.cos(a)) * w + abs(math.sin(a)) * h
    bh = abs(math.sin(a)) * w + abs(math.cos(a)) * h
    return (centre[0] - bw / 2, centre[1] - bh / 2, centre[0] + bw / 2, centre[1] + bh / 2)


def _fit(label: str, largest: int, wide: float, high: float) -> int | None:
    size = largest
    while size >= 7:
        if text_width(label, font(size, True)) <= wide * 0.86 and size <= high * 0.8:
            return size
        size -= 1
    return None


def _text_sizes(v: TableView) -> tuple[int, int]:
    if v.kind == "full":
        return 13, 12
    legible = math.ceil(10.5 * v.width / DISPLAY_W)
    if v.kind == "crop":
        return max(13, legible), legible
    return max(10, min(legible, int(round(v.s * 0.45)))), max(9, min(legible, int(round(v.s * 0.4))))


def _draw_text(img: Image.Image, v: TableView, scenario, state, comps, camps, la: dict, cmd, cinc) -> None:
    d = ImageDraw.Draw(img)
    id_px, type_px = _text_sizes(v)
    tx0, ty0, tx1, ty1 = v.table_box
    boxes = _Boxes()
    polys = {c.id: company_polygon(scenario, c) for c in comps}
    for c in comps:
        pts = v.pts(polys[c.id].exterior.coords)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        boxes.add((min(xs), min(ys), max(xs), max(ys)), 1.0)
    for poly, _, _ in camps:
        pts = v.pts(poly.exterior.coords)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        boxes.add((min(xs), min(ys), max(xs), max(ys)), 1.0)
    for b in feature_name_boxes(scenario, v):
        boxes.add(b, 0.5)
    # type labels inside the companies
    for c in comps:
        fp = footprint_of(scenario, c)
        band = min(0.14, fp.depth * 0.28)
        rear = fp.depth - (0.4 if c.disordered and fp.depth > 0.6 else 0.0)
        lx, ly = base_point(_pose(c), 0.0, (band + rear) / 2)
        cxp, cyp = v.px(lx, ly)
        if not (tx0 <= cxp <= tx1 and ty0 <= cyp <= ty1):
            continue
        ang = c.facing % 180
        upright = ang < 45 or ang > 135
        wide = (1.0 if upright else rear - band) * v.s
        high = (rear - band if upright else 1.0) * v.s
        body, front, _ = company_colours(scenario, c)
        label = type_label(_spec(scenario, c.id))
        size = _fit(label, type_px, wide, high)
        if "+" in label and (size is None or size < 0.75 * type_px):   # too small: the main arm only
            label = label.split("+")[0]
            size = _fit(label, type_px, wide, high)
        if size is None:
            continue
        ink = (25, 25, 25) if sum(body) > 560 else (255, 255, 255)
        d.text((cxp, cyp), label, font=font(size, True), fill=ink, anchor="mm")
    # ids and tags, where they overlap least (the action's companies first)
    focus = set(_movers(la)) | {p for pair in _pairs(la) + _shots(la) for p in pair}
    fnt, tfnt = font(id_px, True), font(max(8, int(id_px * 0.78)), True)
    items = [(c, polys[c.id], c.id, company_tags(c, cmd, cinc), c.facing) for c in comps]
    items += [(None, poly, text, tags, 0.0) for poly, text, tags in camps]
    items.sort(key=lambda it: (getattr(it[0], "id", it[2]) not in focus, -it[1].centroid.y, it[1].centroid.x, it[2]))
    for obj, poly, text, tags, facing in items:
        cen = v.px(poly.centroid.x, poly.centroid.y)
        if not (tx0 <= cen[0] <= tx1 and ty0 <= cen[1] <= ty1):
            continue
        lab = _label_image(text, tags, fnt, tfnt)
        w, h = lab.width, lab.height
        best = None
        for i, (centre, angle) in enumerate(_candidates(v, poly, facing, w, h)):
            b = _rot_box(centre, angle, w, h)
            dx = max(0.0, tx0 - b[0]) - max(0.0, b[2] - tx1)
            dy = max(0.0, ty0 - b[1]) - max(0.0, b[3] - ty1)
            b = (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)
            score = boxes.overlap((b[0] - 2, b[1] - 1, b[2] + 2, b[3] + 1)) + i * 0.5
            if best is None or score < best[0]:
                best = (score, b, angle)
            if score < 1 + i * 0.5:
                break
        _, b, angle = best
        boxes.add(b, 1.0)
        im = lab.rotate(angle, resample=Image.BICUBIC, expand=True) if abs(angle) > 0.01 else lab
        img.paste(im, (int(round((b[0] + b[2]) / 2 - im.width / 2)), int(round((b[1] + b[3]) / 2 - im.height / 2))), im)


# --- the strip ------------------------------------------------------------------------------------
def strip_scale(width: int) -> float:
    return max(1.0, width * 10.5 / (DISPLAY_W * 16))


def _loss_bar(lost: int, strength: int, colour, k: float) -> Image.Image:
    """A bar of command points lost with the break point (more than half) marked."""
    w, h = int(round(170 * k)), int(round(14 * k))
    img = Image.new("RGBA", (w + 2, h + 6), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    total = max(1, strength)
    d.rectangle((1, 3, w, h + 2), fill=(70, 74, 80), outline=(200, 200, 200))
    lost = max(0, min(total, lost))
    if lost:
        d.rectangle((2, 4, 2 + (w - 2) * lost / total, h + 1), fill=colour)
    x = 1 + (w - 1) / 2
    d.line([(x, 0), (x, h + 5)], fill=(255, 70, 70), width=max(2, int(2 * k)))
    return img


def _strip(scenario, state, seen, viewer: str | None, width: int, k: float | None = None) -> FlowText:
    k = strip_scale(width) if k is None else k
    big, bold, reg = font(round(20 * k), True), font(round(16 * k), True), font(round(16 * k))
    flow = FlowText(width, round(28 * k), pad_x=round(14 * k), gap=round(18 * k))

    def chip(side: str) -> list[tuple]:
        body, front, _ = nation_colours(side_nation(scenario, side))
        return [("box", round(16 * k), round(14 * k), body, front), ("gap", round(4 * k)),
                ("text", side.title() if side else "?", bold, STRIP_FG)]

    flow.add([("text", getattr(scenario, "title", state.scenario_id), big, STRIP_FG), ("gap", round(10 * k)),
              ("text", getattr(scenario, "date", ""), reg, STRIP_DIM)])
    limit = getattr(scenario, "turn_limit", 0) or 0
    flow.add([("text", f"Turn {state.turn}" + (f" of {limit}" if limit else ""), bold, STRIP_FG)])
    if state.clock:
        try:
            light = tables.day_phase(state.clock)
        except Exception:                          # noqa: BLE001 - a picture never fails
            light = ""
        flow.add([("text", f"Hour {state.clock}", bold, STRIP_FG), ("gap", round(6 * k)),
                  ("text", light, bold, {"dawn": (255, 190, 120), "day": (255, 236, 140), "dusk": (255, 160, 90),
                                         "night": (150, 170, 255)}.get(light, STRIP_FG))])
    wx = ", ".join(x for x in (f"{state.weather} weather" if state.weather else "", state.season) if x)
    if wx:
        flow.add([("text", wx, reg, STRIP_FG)])
    if state.attacker:
        flow.add([("text", "Attacker:", reg, STRIP_DIM), ("gap", round(6 * k))] + chip(state.attacker))
    # who acts
    line: list[tuple] = []
    if state.phase == "over":
        line.append(("text", "Battle over: " + (state.result or ""), bold, PENDING_COLOUR))
    else:
        try:
            from engine.italianwars.rules import battle_name, describe_place
            from engine.italianwars.sequence.walk import to_act
            where = describe_place(state.phase, state.step)
            actor = to_act(state)
        except Exception:                          # noqa: BLE001
            where, actor, battle_name = state.phase, None, None
        if actor:
            line += chip(actor) + [("gap", round(6 * k))]
        line.append(("text", str(where), bold, STRIP_FG))
        act = seen.activation if isinstance(seen.activation, dict) else {}
        if state.phase == "actions" and act.get("battle"):
            name = battle_name(scenario, state, act["battle"]) if battle_name else act["battle"]
            line.append(("text", f"  battle {name}, step {act.get('step', '?')}", reg, STRIP_FG))
        p = seen.pending if isinstance(seen.pending, dict) else None
        if p:
            line.append(("text", f"  to decide: {pending_prompt(p)}", bold, PENDING_COLOUR))
    flow.add(line, new_line=True)
    # the armies: losses against the break point; the viewer's Ecu
    try:
        from engine.italianwars.sequence.endturn import army_losses
    except Exception:                              # noqa: BLE001
        army_losses = None
    first = True
    for side in sorted(state.armies):
        items = chip(side) + [("gap", round(6 * k))]
        if army_losses is not None:
            try:
                full = army_losses(scenario, state, side)      # strength: public (the scenario's companies)
                shown = army_losses(scenario, seen, side)      # lost: from the view (no secret order leaks)
                strength, lost = full["strength"], min(shown["lost"], full["strength"])
                if state.armies[side].broken:
                    lost = strength
                items += [("text", f"lost {lost}/{strength} cp", bold, STRIP_FG), ("gap", round(6 * k)),
                          ("image", _loss_bar(lost, strength, (235, 80, 60), k)), ("gap", round(6 * k)),
                          ("text", f"breaks above {strength / 2:g}", reg, STRIP_DIM)]
            except Exception:                      # noqa: BLE001
                pass
        if state.armies[side].broken:
            items += [("gap", round(6 * k)), ("text", "BROKEN", bold, (255, 120, 90))]
        if viewer == side:
            items += [("gap", round(10 * k)), ("text", f"your Ecu {seen.armies[side].ecu}", bold, (255, 214, 90))]
        flow.add(items, new_line=first)
        first = False
    # the battles' orders as the viewer may see them
    for side in sorted(state.armies):
        items: list[tuple] = [("box", round(10 * k), round(14 * k), nation_colours(side_nation(scenario, side))[0],
                               (230, 230, 230)), ("gap", round(4 * k))]
        for b in sorted(seen.battles.values(), key=lambda b: (not b.cinc, b.id)):
            if b.side != side:
                continue
            name = b.id
            try:
                name = scenario.battle(b.id).name or b.id
            except Exception:                      # noqa: BLE001
                pass
            if b.order:
                order = ORDER_TEXT.get(b.order, b.order)
                col = STRIP_FG if b.revealed else (255, 214, 90)
                txt = order + ("" if b.revealed else " (secret)")
            elif b.side == viewer:
                txt, col = "no order yet", STRIP_DIM
            else:
                txt, col = "order unknown", STRIP_DIM
            items += [("text", ("\u2605" if b.cinc else "") + f"{name}:", reg, STRIP_DIM), ("gap", round(4 * k)),
                      ("text", txt, bold, col), ("gap", round(12 * k))]
        flow.add(items, new_line=True)
    key: list[tuple] = [("text", "Ground:", reg, STRIP_DIM)]
    for cat in ("open", "broken", "closed", "impassable"):
        key += [("gap", round(6 * k)), ("box", round(16 * k), round(14 * k), CATEGORY_FILL[cat], (230, 230, 230)),
                ("gap", round(3 * k)), ("text", cat, reg, STRIP_FG)]
    flow.add(key, new_line=True)
    return flow


# --- views ----------------------------------------------------------------------------------------
def board_view(scenario) -> TableView:
    """The full board's view (FULL_WIDTH px wide): `px(x, y)` is where table point (x, y) UDM is drawn."""
    return full_view(float(scenario.width), float(scenario.height))


def _focus_box(scenario, state) -> tuple[float, float, float, float] | None:
    la = _action(state)
    geoms = []
    paths = la.get("paths") if isinstance(la.get("paths"), list) else []
    if la.get("path") is not None:
        paths = paths + [la.get("path")]
    for raw in paths:
        p = _path(raw)
        if len(p) > 1:
            geoms.append(LineString(p))
    ids = set(_movers(la)) | {x for pair in _pairs(la) + _shots(la) for x in pair}
    pend = state.pending if isinstance(state.pending, dict) else None
    if pend:
        ids |= set(_ids(pend.get("company"))) | set(_ids(pend.get("companies")))
    for cid in sorted(ids):
        poly = _poly_of(scenario, state, cid)
        if poly is not None:
            geoms.append(poly)
    for raw in la.get("from") if isinstance(la.get("from"), list) else []:
        p = _pose3(raw)
        if p is not None:
            geoms.append(shp_box(p.x - 1, p.y - 1, p.x + 1, p.y + 1))
    if not geoms:
        return None
    xs0, ys0, xs1, ys1 = zip(*(g.bounds for g in geoms))
    return min(xs0), min(ys0), max(xs1), max(ys1)


def crop_view_of(scenario, state, viewer: str | None = None) -> TableView | None:
    """The view `size="crop"` draws: the last action's area with a margin at the largest of
    CROP_SCALES that fits CROP_W x CROP_MAX_H px; None when nothing (the viewer may see) is in focus."""
    from engine.italianwars.public import view
    fb = _focus_box(scenario, view(scenario, state, viewer))
    if fb is None:
        return None
    return fit_crop(fb, float(scenario.width), float(scenario.height), crop_view, margin=CROP_MARGIN,
                    min_w=CROP_MIN_W, min_h=CROP_MIN_H, scales=CROP_SCALES, crop_w=CROP_W, max_h=CROP_MAX_H,
                    snap=1)                          # 1 px for the grid's snapping

# --- composing ------------------------------------------------------------------------------------
def _compose(scenario, state, v: TableView, viewer: str | None) -> Image.Image:
    from engine.italianwars.public import view
    seen = view(scenario, state, viewer)            # never the wrong viewer's secrets
    board = terrain_image(scenario, v)
    la = _action(seen)
    comps = _live(seen)
    cmd, cinc = _roles(seen)
    pen = _Pen(v)
    camps = _draw_camps(pen, scenario, seen)
    _ghosts_and_paths(pen, scenario, seen, la)
    for c in comps:
        _draw_company(pen, scenario, c, viewer, cmd, cinc)
    _draw_contacts(pen, scenario, seen, la)
    pend = seen.pending if isinstance(seen.pending, dict) else None
    if pend:
        for cid in sorted(set(_ids(pend.get("company")) + _ids(pend.get("companies")))):
            poly = _poly_of(scenario, seen, cid)
            if poly is not None:
                draw_pending_outline(pen, poly, 0.15, PENDING_COLOUR, max(3, int(0.07 * pen.v.s)), 0.25 * pen.v.s,
                                     0.15 * pen.v.s)
    board = composite_overlay(board, pen, v, SS)
    _draw_text(board, v, scenario, seen, comps, camps, la, cmd, cinc)
    t = ruler_px(v.width)
    draw_rulers(board, v, t)
    draw_scale_bar(board, v, t)
    return board_with_strip(board, _strip(scenario, state, seen, viewer, v.width), STRIP_BG)


def render_board_image(scenario, state, *, viewer: str | None = None, size: str | None = "full") -> Image.Image:
    """The board as a PIL RGB image (see `render_board`)."""
    size = size or "full"
    if size not in ("full", "crop"):
        raise ValueError("size must be 'full' or 'crop'")
    if size == "crop":
        v = crop_view_of(scenario, state, viewer)
        if v is None:
            return render_replay_image(scenario, state, width=CROP_W, viewer=viewer)
        return _compose(scenario, state, v, viewer)
    return _compose(scenario, state, board_view(scenario), viewer)


def render_replay_image(scenario, state, *, width: int, viewer: str | None = None) -> Image.Image:
    """The whole table `width` px wide (at most FULL_WIDTH): the crop's overview when nothing is in
    focus, and a frame of an animated replay (renders/replay.py)."""
    width = int(min(max(320, width), FULL_WIDTH))
    v = full_view(float(scenario.width), float(scenario.height), width)
    return _compose(scenario, state, v, viewer)


def render_board(scenario, state, *, viewer: str | None = None, size: str | None = "full") -> bytes:
    """PNG of the table as `viewer` ("french" / "league"; None: the channel) may see it: terrain
    by category, every company to scale with its facing, size and markers, the camps, the last
    action, and the strip (turn, hour and light, weather, attacker, who acts, losses against the
    break point, the orders the viewer may see, the viewer's own Ecu). size "full" (FULL_WIDTH px
    wide) or "crop" (the last action's area, at most CROP_W px wide; the whole table 1,100 px
    wide when there is none). CPU-bound: the bot draws it in the render pool."""
    return encode_png_nearest(render_board_image(scenario, state, viewer=viewer, size=size))
