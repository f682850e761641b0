"""Drawing helpers shared by the open-table renderers (Lion of the North: renders/lion.py and
lion_art.py; the Italian Wars: renders/italianwars.py and italianwars_art.py). Each renderer keeps
its own sizes (cm or UDM), colours and what it draws; here is only what they do alike:

- reading `state.last_action` leniently: `num`, `point`, `pose3`, `ids`, `path`;
- `Pen`: the supersampled RGBA overlay drawn in table units; `base_point`, `front_band`;
  `draw_ghost` (where a mover started), `draw_touching_edges` (a melee's contact),
  `draw_pending_outline`, `draw_tents` (a camp); `composite_overlay` (the overlay clipped to the
  table and laid on the board); `fit_crop` (the crop around the action);
- `Boxes` and `draw_id_tags`: the label boxes' overlap buckets and an id with its tags;
- `pending_prompt`: a pending decision's prompt, shortened for the strip;
- terrain: `polygons`, `draw_polygon`, `lattice`; the frame's `draw_rulers` and `draw_scale_bar`.
"""
from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw
from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.prepared import prep

from engine.core.table.geometry import Footprint, Pose, base_polygon, edges, forward

from .common import dashed_polyline, downsample, font, outlined_text, text_width


# --- reading the state (leniently) -------------------------------------------------------------------
def num(v: Any) -> float | None:
    """A finite number as a float, else None (booleans are not numbers)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)) and math.isfinite(v):
        return float(v)
    return None


def point(v: Any) -> tuple[float, float] | None:
    if isinstance(v, (list, tuple)) and len(v) >= 2:
        x, y = num(v[0]), num(v[1])
        if x is not None and y is not None:
            return (x, y)
    return None


def pose3(v: Any) -> Pose | None:
    """[x, y, facing] (or {"x", "y", "facing"}) as a Pose, else None."""
    if isinstance(v, dict):
        v = [v.get("x"), v.get("y"), v.get("facing")]
    if isinstance(v, (list, tuple)) and len(v) >= 3:
        x, y, f = num(v[0]), num(v[1]), num(v[2])
        if None not in (x, y, f):
            return Pose(x, y, f)
    return None


def ids(v: Any) -> list[str]:
    """An id or a list of ids (non-strings dropped)."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, (list, tuple)):
        return [x for x in v if isinstance(x, str)]
    return []


def path(v: Any) -> list[tuple[float, float]]:
    """A list of points, or [] when any of them is not a point."""
    if not isinstance(v, (list, tuple)):
        return []
    pts = [point(p) for p in v]
    return [p for p in pts if p is not None] if all(p is not None for p in pts) else []


# --- the overlay -------------------------------------------------------------------------------------
class Pen:
    """Drawing on an RGBA overlay `ss` times the view's size, in table units."""

    def __init__(self, v, ss: int = 2):
        self.v = v.scaled(ss)
        self.img = Image.new("RGBA", (self.v.width, self.v.height), (0, 0, 0, 0))
        self.d = ImageDraw.Draw(self.img)

    def pts(self, coords) -> list[tuple[float, float]]:
        return self.v.pts(coords)

    def poly(self, geom, fill=None, outline=None, width: int = 1) -> None:
        for p in getattr(geom, "geoms", [geom]):
            if not isinstance(p, Polygon) or p.is_empty:
                continue
            pts = self.pts(p.exterior.coords)
            if fill is not None:
                self.d.polygon(pts, fill=fill)
            if outline is not None:
                self.d.line(pts, fill=outline, width=width, joint="curve")


def base_point(pose: Pose, across: float, back: float) -> tuple[float, float]:
    """The table point `across` units right of a base's front centre and `back` units behind it."""
    fx, fy = forward(pose.facing)
    return pose.x + fy * across - fx * back, pose.y - fx * across - fy * back


def front_band(pose: Pose, fp: Footprint, band: float) -> list[tuple[float, float]]:
    """The strip `band` deep behind a base's front edge (table points)."""
    fx, fy = forward(pose.facing)
    ed = edges(pose, fp)["front"].coords
    (lx, ly), (rx_, ry_) = ed[0], ed[1]
    return [(lx, ly), (rx_, ry_), (rx_ - fx * band, ry_ - fy * band), (lx - fx * band, ly - fy * band)]


def draw_ghost(pen: Pen, pose: Pose, fp: Footprint, wide: int, thin: int, dash: float, gap: float) -> None:
    """Where a mover started: its outline dashed dark under white."""
    ghost = pen.pts(base_polygon(pose, fp).exterior.coords)
    dashed_polyline(pen.d, ghost, (20, 20, 20, 200), wide, dash=dash, gap=gap)
    dashed_polyline(pen.d, ghost, (255, 255, 255, 255), thin, dash=dash, gap=gap)


def draw_touching_edges(pen: Pen, pa: Polygon, pb: Polygon, grow: float, colour, wide: int, thin: int) -> None:
    """The part of `pb`'s outline within `grow` of `pa`: thick `colour` on white."""
    seg = pb.exterior.intersection(pa.buffer(grow, join_style="mitre"))
    for line in getattr(seg, "geoms", [seg]):
        coords = list(getattr(line, "coords", []))
        if len(coords) >= 2:
            pts = pen.pts(coords)
            pen.d.line(pts, fill=(255, 255, 255, 255), width=wide)
            pen.d.line(pts, fill=colour + (255,), width=thin)


def draw_pending_outline(pen: Pen, poly: Polygon, grow: float, colour, width: int, dash: float,
                         gap: float) -> None:
    """A dashed outline `grow` units around a base a pending decision names."""
    pts = pen.pts(poly.buffer(grow, join_style="mitre").exterior.coords)
    dashed_polyline(pen.d, pts, colour + (255,), width, dash=dash, gap=gap)


def draw_tents(pen: Pen, pose: Pose, fp: Footprint, offsets, half: float, back: float, ahead: float,
               fill, outline) -> None:
    """A camp's tents: triangles `2 * half` wide pointing forward, centred across its middle at
    `offsets` (table units)."""
    fx, fy = forward(pose.facing)
    rx, ry = fy, -fx
    cx, cy = pose.x - fx * fp.depth / 2, pose.y - fy * fp.depth / 2
    for off in offsets:
        tx, ty = cx + rx * off, cy + ry * off
        tri = [(tx - rx * half - fx * back, ty - ry * half - fy * back), (tx + fx * ahead, ty + fy * ahead),
               (tx + rx * half - fx * back, ty + ry * half - fy * back)]
        pen.d.polygon(pen.pts(tri), fill=fill, outline=outline)


def composite_overlay(board: Image.Image, pen: Pen, v, ss: int = 2) -> Image.Image:
    """The board (RGB) with the pen's overlay, downsampled and clipped to the table (nothing is
    drawn on the frame's bands), laid on it."""
    overlay = downsample(pen.img, ss)
    mask = Image.new("L", overlay.size, 0)
    ImageDraw.Draw(mask).rectangle(v.table_box, fill=255)
    overlay.putalpha(Image.composite(overlay.getchannel("A"), mask, mask))
    board = board.convert("RGBA")
    board.alpha_composite(overlay)
    return board.convert("RGB")


def fit_crop(fb, width: float, height: float, crop_view, *, margin: float, min_w: float, min_h: float,
             scales, crop_w: int, max_h: int, snap: int = 0):
    """The crop view of the focus box `fb` (x0, y0, x1, y1) with `margin` around it: the largest of
    `scales` at which at least min_w x min_h fits crop_w x max_h px (`snap` px spared for the
    grid's snapping), kept on the width x height table."""
    x0, y0, x1, y1 = fb[0] - margin, fb[1] - margin, fb[2] + margin, fb[3] + margin
    probe = crop_view(scales[0], 0, 0, 1, 1)
    frame_w, frame_h = probe.width - (probe.vx1 - probe.vx0) * probe.s, probe.height - (probe.vy1 - probe.vy0) * probe.s
    need_w, need_h = max(x1 - x0, min_w), max(y1 - y0, min_h)
    fits = [s for s in scales if need_w * s + frame_w <= crop_w and need_h * s + frame_h <= max_h]
    s = max(fits) if fits else scales[0]
    view_w = min(width, (crop_w - frame_w - snap) / s)
    view_h = min(height, max(need_h, view_w / 1.6), (max_h - frame_h) / s)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    vx0 = min(max(0.0, cx - view_w / 2), width - view_w)
    vy0 = min(max(0.0, cy - view_h / 2), height - view_h)
    return crop_view(s, vx0, vy0, vx0 + view_w, vy0 + view_h)


# --- labels ------------------------------------------------------------------------------------------
class Boxes:
    """Placed label boxes and the bases' boxes, bucketed for overlap queries."""
    CELL = 64

    def __init__(self):
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float, float]]] = {}

    def _keys(self, b):
        c = self.CELL
        for i in range(int(b[0] // c), int(b[2] // c) + 1):
            for j in range(int(b[1] // c), int(b[3] // c) + 1):
                yield (i, j)

    def add(self, b, weight: float = 1.0) -> None:
        for k in self._keys(b):
            self.cells.setdefault(k, []).append((*b, weight))

    def overlap(self, b) -> float:
        seen, total = set(), 0.0
        for k in self._keys(b):
            for o in self.cells.get(k, ()):
                if o in seen:
                    continue
                seen.add(o)
                w = min(b[2], o[2]) - max(b[0], o[0])
                h = min(b[3], o[3]) - max(b[1], o[1])
                if w > 0 and h > 0:
                    total += w * h * o[4]
        return total


def draw_id_tags(d: ImageDraw.ImageDraw, x: float, cy: float, text: str, tags, fnt, tfnt, tag_colours,
                 fill, outline) -> None:
    """An id (white outlined) from `x` on the line `cy`, then its tags as rounded chips."""
    outlined_text(d, (x, cy), text, fnt, fill=fill, outline=outline, width=max(2, fnt.size // 7), anchor="lm")
    x = x + text_width(text, fnt) + 5
    for t in tags:
        w = text_width(t, tfnt) + 6
        d.rounded_rectangle((x, cy - tfnt.size * 0.62, x + w, cy + tfnt.size * 0.62), radius=3,
                            fill=tag_colours.get(t, (220, 220, 220)), outline=(20, 20, 20), width=1)
        d.text((x + w / 2, cy), t, font=tfnt, fill=(20, 20, 20), anchor="mm")
        x += w + 4


def pending_prompt(p: dict) -> str:
    """A pending decision's prompt (else its kind), at most 140 characters."""
    prompt = str(p.get("prompt", p.get("kind", "")))
    return prompt[:139] + "\u2026" if len(prompt) > 140 else prompt


# --- terrain and the frame ---------------------------------------------------------------------------
def polygons(geom) -> list[Polygon]:
    """The polygons of a shapely geometry (none when it is empty)."""
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    if isinstance(geom, MultiPolygon):
        return list(geom.geoms)
    return [g for g in getattr(geom, "geoms", []) if isinstance(g, Polygon)]


def draw_polygon(d: ImageDraw.ImageDraw, gpx, geom, fill, outline=None, width: int = 1, *, hole_fill,
                 always_fill: bool = False) -> None:
    """Each polygon of `geom` through `gpx` (table -> px): filled (its holes in `hole_fill`) unless
    `fill` is None (`always_fill`: Lion's layer fills and punches the holes even then), outlined."""
    for p in polygons(geom):
        pts = [gpx(x, y) for x, y in p.exterior.coords]
        if len(pts) < 3:
            continue
        if fill is not None or always_fill:
            d.polygon(pts, fill=fill)
            for hole in p.interiors:
                d.polygon([gpx(x, y) for x, y in hole.coords], fill=hole_fill)
        if outline is not None:
            d.line(pts, fill=outline, width=width, joint="curve")


def lattice(geom, step: float, stagger: bool, area) -> list[tuple[float, float]]:
    """Points of a table-wide lattice (so tiles and boxes agree) inside `geom` and near `area`."""
    g = geom.intersection(area.buffer(step))
    if g.is_empty:
        return []
    pg = prep(geom)
    x0, y0, x1, y1 = g.bounds
    out = []
    j = math.floor(y0 / step)
    while j * step <= y1:
        off = step / 2 if (stagger and j % 2) else 0.0
        i = math.floor((x0 - off) / step)
        while i * step + off <= x1:
            p = (i * step + off, j * step)
            if pg.contains(Point(p)):
                out.append(p)
            i += 1
        j += 1
    return out


def draw_rulers(img: Image.Image, v, text_px: int, step: int, colour) -> None:
    """The grid's labels every `step` units along the bottom (x) and the left (y) bands of the
    frame (every 2 * step when they would crowd), and the compass (N up) bottom left."""
    d = ImageDraw.Draw(img)
    fnt = font(text_px)
    tx0, ty0, tx1, ty1 = v.table_box
    step = step if v.s * step >= text_px * 2.2 else 2 * step
    top = int(max(v.vx1, v.vy1)) + step
    for gx in range(0, top, step):
        if gx < v.vx0 - 1e-6 or gx > v.vx1 + 1e-6:
            continue
        x, _ = v.px(gx, 0)
        d.line([(x, ty1), (x, ty1 + 5)], fill=colour, width=1)
        half = text_width(str(gx), fnt) / 2
        anchor = "rt" if x + half > img.width - 2 else ("lt" if x - half < 2 else "mt")
        d.text((x, ty1 + 6), str(gx), font=fnt, fill=colour, anchor=anchor)
    for gy in range(0, top, step):
        if gy < v.vy0 - 1e-6 or gy > v.vy1 + 1e-6:
            continue
        _, y = v.px(0, gy)
        d.line([(tx0 - 5, y), (tx0, y)], fill=colour, width=1)
        d.text((tx0 - 7, min(max(y, ty0 + text_px * 0.6), ty1 - text_px * 0.6)), str(gy), font=fnt,
               fill=colour, anchor="rm")
    cx, cy = tx0 / 2, ty1 + 8 + text_px + (v.height - ty1 - 8 - text_px) / 2
    d.text((cx, cy), "N\u2191", font=font(text_px, True), fill=colour, anchor="mm")


def draw_scale_bar(img: Image.Image, v, text_px: int, n: int, unit: str, right: float, colour, *,
                   unit_ticks: bool) -> None:
    """A 0-n `unit` bar in the frame's bottom band, `right` px more from its right edge: dark and
    light halves, or (`unit_ticks`) a segment a unit, alternating."""
    d = ImageDraw.Draw(img)
    fnt = font(text_px)
    length = n * v.s
    tx0, ty0, tx1, ty1 = v.table_box
    x1 = v.width - 14 - right
    x0 = x1 - length
    y = ty1 + 8 + text_px + (v.height - ty1 - 8 - text_px) * 0.5
    hgt = max(5, text_px // 2)
    ends = [x0 + i * v.s for i in range(n + 1)] if unit_ticks else [x0, x0 + length / 2, x1]
    for i in range(len(ends) - 1):
        fill = (20, 20, 20) if i % 2 == 0 else colour
        d.rectangle((ends[i], y - hgt / 2, ends[i + 1], y + hgt / 2), fill=fill, outline=colour)
    d.text((x0 - 6, y), "0", font=fnt, fill=colour, anchor="rm")
    d.text((x1 + 5, y), f"{n} {unit}", font=fnt, fill=colour, anchor="lm")
