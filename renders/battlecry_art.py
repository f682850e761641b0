"""Battle Cry artwork: terrain tiles and counter sprites, drawn supersampled and cached.

Every function here draws one small picture from plain values (a terrain name, a side, a figure
count); none reads a game state or decides a rule. `renders/battlecry.py` assembles them.
"""
from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from .common import clipped_tile, downsample, font, image_cache, sprite_canvas, star_points, wave

SS = 2  # supersampling factor for art (Pillow's primitives are not anti-aliased)

SIDE_COLOURS = {"union": (46, 74, 139), "confederate": (118, 117, 106)}   # #2e4a8b, #76756a
SIDE_DARK = {"union": (24, 40, 80), "confederate": (62, 61, 54)}
SIDE_NAMES = {"union": "Union", "confederate": "Confederate"}
GOLD = (232, 190, 40)
ORDERED = (255, 214, 0)

TERRAIN_COLOURS = {
    "clear": (201, 214, 155),
    "woods": (150, 182, 108),
    "orchard": (188, 210, 139),
    "hill": (214, 186, 126),
    "field": (232, 210, 124),
    "building": (201, 214, 155),
    "rough": (190, 180, 158),
    "river": (120, 174, 222),
    "bridge": (120, 174, 222),
    "devils_den": (168, 170, 148),
}
LABEL_ON_DARK = {"river", "bridge"}


def hex_polygon(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Pointy-top hexagon, corner k at angle -30 + 60k degrees (as HexGrid.corners)."""
    return [(cx + r * math.cos(math.radians(-30 + 60 * i)),
             cy + r * math.sin(math.radians(-30 + 60 * i))) for i in range(6)]


# --- terrain tiles ------------------------------------------------------------------------------
def _tree(d: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    d.rectangle((x - s * 0.12, y, x + s * 0.12, y + s * 0.9), fill=(92, 64, 36))
    d.ellipse((x - s * 0.62, y - s * 0.75, x + s * 0.62, y + s * 0.35), fill=(52, 104, 42),
              outline=(30, 66, 26), width=max(1, int(s * 0.1)))
    d.ellipse((x - s * 0.3, y - s * 0.6, x + s * 0.05, y - s * 0.25), fill=(84, 140, 62))


def _conifer(d: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    d.rectangle((x - s * 0.1, y + s * 0.35, x + s * 0.1, y + s * 0.7), fill=(92, 64, 36))
    d.polygon([(x, y - s * 0.8), (x - s * 0.5, y + s * 0.4), (x + s * 0.5, y + s * 0.4)],
              fill=(38, 88, 40), outline=(24, 58, 26))


def _rock(d: ImageDraw.ImageDraw, x: float, y: float, s: float, big: bool = False) -> None:
    pts = [(x - s, y + s * 0.5), (x - s * 0.7, y - s * 0.4), (x - s * 0.1, y - s * 0.8),
           (x + s * 0.6, y - s * 0.5), (x + s, y + s * 0.5)]
    d.polygon(pts, fill=(128, 122, 110) if big else (140, 133, 118), outline=(70, 66, 58),
              width=max(1, int(s * 0.15)))
    d.line([(x - s * 0.1, y - s * 0.8), (x + s * 0.05, y + s * 0.5)], fill=(96, 90, 80),
           width=max(1, int(s * 0.1)))


def _house(d: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    w = max(1, int(s * 0.08))
    d.rectangle((x - s * 0.7, y - s * 0.1, x + s * 0.7, y + s * 0.7), fill=(238, 228, 206),
                outline=(60, 50, 40), width=w)
    d.polygon([(x - s * 0.9, y - s * 0.05), (x, y - s * 0.75), (x + s * 0.9, y - s * 0.05)],
              fill=(178, 64, 44), outline=(90, 34, 24), width=w)
    d.rectangle((x - s * 0.15, y + s * 0.25, x + s * 0.15, y + s * 0.7), fill=(90, 60, 40))


def _paint_terrain(d: ImageDraw.ImageDraw, name: str, cx: float, cy: float, r: float) -> None:
    """Art inside one hex of radius r (drawn on a tile then clipped to the hex)."""
    lw = max(1, int(r * 0.035))
    if name == "woods":
        for dx, dy, s in ((0, -0.62, 0.2), (-0.45, -0.3, 0.19), (0.45, -0.3, 0.19), (-0.2, 0.0, 0.2),
                          (0.25, 0.05, 0.2), (-0.5, 0.32, 0.17), (0.52, 0.35, 0.17)):
            _tree(d, cx + dx * r, cy + dy * r, s * r)
    elif name == "orchard":
        for row, dy in enumerate((-0.62, -0.3, 0.02, 0.34)):
            off = 0.17 if row % 2 else 0.0
            for dx in (-0.68, -0.34, 0.0, 0.34, 0.68):
                x, y = cx + (dx + off) * r, cy + dy * r
                d.line([(x, y), (x, y + 0.1 * r)], fill=(100, 72, 40), width=lw)
                d.ellipse((x - 0.09 * r, y - 0.1 * r, x + 0.09 * r, y + 0.06 * r),
                          fill=(96, 150, 64), outline=(58, 98, 36), width=lw)
    elif name == "hill":
        for k, fill in ((0.86, (200, 168, 104)), (0.62, (214, 186, 126)), (0.4, (226, 204, 150))):
            d.ellipse((cx - k * 0.95 * r, cy - k * 0.95 * r, cx + k * 0.95 * r, cy + k * 0.8 * r),
                      fill=fill, outline=(150, 118, 62), width=lw * 2)
    elif name == "field":
        step = 0.16 * r
        y = cy - r
        while y < cy + r:
            d.line([(cx - r, y), (cx + r, y + 0.25 * r)], fill=(196, 162, 70), width=lw * 2)
            y += step
    elif name == "building":
        _house(d, cx, cy - 0.5 * r, 0.3 * r)
        _house(d, cx - 0.45 * r, cy + 0.05 * r, 0.24 * r)
        _house(d, cx + 0.42 * r, cy + 0.08 * r, 0.22 * r)
    elif name in ("rough", "devils_den"):
        big = name == "devils_den"
        spots = ((0, -0.6, 0.16), (-0.45, -0.25, 0.14), (0.42, -0.28, 0.15), (-0.1, 0.05, 0.18),
                 (0.35, 0.3, 0.13), (-0.45, 0.35, 0.12))
        for dx, dy, s in spots:
            _rock(d, cx + dx * r, cy + dy * r, s * r * (1.35 if big else 1.0), big)
        if big:
            _conifer(d, cx + 0.05 * r, cy - 0.3 * r, 0.22 * r)
    elif name in ("river", "bridge"):
        for dy in (-0.66, -0.33, 0.0, 0.33, 0.66):
            wave(d, cx - r, cx + r, cy + dy * r, 0.05 * r, 0.5 * r, (190, 220, 244), lw * 2)
        if name == "bridge":
            bw = 0.26 * r
            d.rectangle((cx - bw, cy - r, cx + bw, cy + r), fill=(160, 112, 62))
            y = cy - r
            while y < cy + r:
                d.line([(cx - bw, y), (cx + bw, y)], fill=(104, 70, 36), width=lw)
                y += 0.12 * r
            for sx in (-1, 1):
                d.line([(cx + sx * bw, cy - r), (cx + sx * bw, cy + r)], fill=(70, 46, 24),
                       width=lw * 3)


@lru_cache(maxsize=32)
def terrain_tile(name: str, r: float) -> Image.Image:
    """RGBA tile of one hex of `name`, radius r (already supersampled), transparent outside."""
    w, h = int(math.ceil(math.sqrt(3) * r)) + 2, int(math.ceil(2 * r)) + 2
    return clipped_tile(w, h, TERRAIN_COLOURS.get(name, TERRAIN_COLOURS["clear"]),
                        lambda d, cx, cy: _paint_terrain(d, name, cx, cy, r),
                        lambda cx, cy: hex_polygon(cx, cy, r + 1))


# --- counters -----------------------------------------------------------------------------------
COUNTER_W, COUNTER_H = 58, 46      # px at final scale; centred on the hex centre
PILL_W, PILL_H = 46, 18            # General badge


def _nato(d: ImageDraw.ImageDraw, box, kind: str, special: str, fg, w: int) -> None:
    x0, y0, x1, y1 = box
    d.rectangle(box, outline=fg, width=w)
    if kind == "infantry":
        d.line([(x0, y0), (x1, y1)], fill=fg, width=w)
        d.line([(x0, y1), (x1, y0)], fill=fg, width=w)
    if kind == "cavalry" or special == "horse_artillery":
        d.line([(x0, y1), (x1, y0)], fill=fg, width=w)
    if kind == "artillery":
        cx, cy, rr = (x0 + x1) / 2, (y0 + y1) / 2, (y1 - y0) * 0.26
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=fg)


@image_cache(32 << 20)              # many live games (issue 13): ~5,000 counters
def counter_sprite(side: str, kind: str, figures: int, full: int, label: str, special: str,
                   ordered: bool = False) -> Image.Image:
    """RGBA counter for a unit, with its centre at the sprite centre. Layout (final px, origin
    at the hex centre): NATO box top-left, id below it, figure pips in a column at the right
    (filled = present, hollow = lost), the exact hex centre left plain side colour."""
    k = SS
    pad = 10
    W, H = (COUNTER_W + 2 * pad) * k, (COUNTER_H + 2 * pad) * k
    img, d = sprite_canvas(W, H)
    ox, oy = W / 2, H / 2

    def P(x, y):
        return (ox + x * k, oy + y * k)

    hw, hh = COUNTER_W / 2, COUNTER_H / 2
    if ordered:
        d.rounded_rectangle((*P(-hw - 4, -hh - 4), *P(hw + 4, hh + 4)), radius=9 * k, fill=ORDERED)
    d.rounded_rectangle((*P(-hw + 2, -hh + 3), *P(hw + 2, hh + 3)), radius=6 * k, fill=(0, 0, 0, 90))
    fill, dark = SIDE_COLOURS[side], SIDE_DARK[side]
    d.rounded_rectangle((*P(-hw, -hh), *P(hw, hh)), radius=6 * k, fill=fill, outline=(16, 16, 16),
                        width=2 * k)
    fg = (255, 255, 255)
    _nato(d, (*P(-23, -18), *P(5, -4)), kind, special, fg, 2 * k)
    # id: bold, white with a dark stroke
    d.text(P(-9, 12), label, font=font(13 * k, True), fill=fg, anchor="mm",
           stroke_width=k, stroke_fill=dark)
    # figure pips
    n = max(full, figures)
    step = 9.0
    y0 = -step * (n - 1) / 2
    for i in range(n):
        x, y = P(19, y0 + i * step)
        rr = 3.6 * k
        if i < figures:
            d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=fg, outline=dark, width=k)
        else:
            d.ellipse((x - rr, y - rr, x + rr, y + rr), outline=(220, 220, 220), width=k)
    tag = {"vmi": "VMI", "horse_artillery": "HORSE"}.get(special)
    if tag:
        f = font(9 * k, True)
        tw = f.getlength(tag) / k + 8
        box = (*P(-hw - 2, -hh - 8), *P(-hw - 2 + tw, -hh + 4))
        d.rounded_rectangle(box, radius=4 * k, fill=(242, 196, 0), outline=(20, 20, 20), width=k)
        d.text(P(-hw - 2 + tw / 2, -hh - 2), tag, font=f, fill=(20, 20, 20), anchor="mm")
    return downsample(img, k)


@image_cache(8 << 20)
def general_sprite(side: str, label: str, big: bool = False, ordered: bool = False) -> Image.Image:
    """RGBA badge of a General: a pill in side colour with a gold star and the General's id."""
    k = SS
    scale = 1.3 if big else 1.0
    pw, ph = PILL_W * scale, PILL_H * scale
    pad = 8
    W, H = int((pw + 2 * pad) * k), int((ph + 2 * pad) * k)
    img, d = sprite_canvas(W, H)
    ox, oy = W / 2, H / 2

    def P(x, y):
        return (ox + x * k, oy + y * k)

    if ordered:
        d.rounded_rectangle((*P(-pw / 2 - 4, -ph / 2 - 4), *P(pw / 2 + 4, ph / 2 + 4)),
                            radius=(ph / 2 + 4) * k, fill=ORDERED)
    d.rounded_rectangle((*P(-pw / 2, -ph / 2), *P(pw / 2, ph / 2)), radius=ph / 2 * k,
                        fill=SIDE_COLOURS[side], outline=GOLD, width=2 * k)
    sx = -pw / 2 + ph / 2 + 1
    d.polygon(star_points(*P(sx, 0.5), 7.5 * scale * k), fill=GOLD, outline=(60, 40, 0))
    d.text(P(sx + 8 * scale + (pw / 2 - sx - 8 * scale) / 2, 0.5), label,
           font=font(int(11 * scale) * k, True), fill=(255, 255, 255), anchor="mm",
           stroke_width=k, stroke_fill=SIDE_DARK[side])
    return downsample(img, k)


def paste_centred(base: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    w, h = sprite.size
    base.paste(sprite, (int(round(x - w / 2)), int(round(y - h / 2))), sprite)
