"""This Accursed Civil War artwork: terrain tiles, counter sprites and leader badges, drawn
supersampled and cached.

Every function here draws one small picture from plain values (a terrain name, a side, an angle,
a list of marker names); none reads a game state or decides a rule. `renders/tacw.py` assembles
them. Sizes are in output pixels for a hex of radius `r` (centre to vertex); the map is FLAT-top,
so vertex k of a hex lies at screen angle 60k degrees (0 = east, clockwise, y down), as
`engine.core.facing.vertex_angle` says.

A counter is a rectangle turned so that its front edge faces the unit's facing vertex, with a
white "nose" triangle pointing at that vertex, the wing's colour as a stripe along its rear edge
and its values written upright (readable whatever the facing). A double unit is one long counter
across both of its hexes, with a nose in front of each half.
"""
from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from .common import (clipped_tile, downsample, font, image_cache, paste_trimmed, sprite_canvas, star_points,
                     trimmed, wave)

SS = 2  # supersampling factor for art (Pillow's primitives are not anti-aliased)

SIDE_COLOURS = {"royalist": (164, 32, 48), "parliament": (38, 72, 142)}
SIDE_DARK = {"royalist": (84, 12, 22), "parliament": (16, 32, 72)}
SIDE_LIGHT = {"royalist": (236, 170, 176), "parliament": (166, 190, 236)}
SIDE_NAMES = {"royalist": "Royalist", "parliament": "Parliament"}
NEUTRAL = (120, 120, 120)
GOLD = (232, 190, 40)
NOSE = (255, 255, 255)          # the front triangle of every counter
NOSE_EDGE = (18, 18, 18)
CASUALTY_RED = (214, 24, 24)
ACTIVE_HALO = (255, 214, 0)     # units of the wing under activation
# Wing stripes, handed out in scenario order (every wing of a 6-wing battle has its own colour).
WING_PALETTE = ((246, 206, 40), (84, 208, 238), (150, 226, 84), (252, 150, 40),
                (204, 156, 255), (255, 140, 196), (40, 200, 150), (230, 230, 120))

TERRAIN_COLOURS = {
    "clear": (208, 215, 162),
    "wood": (118, 160, 88),
    "marsh": (168, 196, 178),
    "thicket": (178, 188, 118),
    "hedge_road": (208, 215, 162),
    "hedge": (192, 208, 138),
    "ploughed": (196, 170, 122),
    "river": (112, 166, 214),
    "village": (208, 215, 162),
    "bridge": (112, 166, 214),
    "castle": (186, 182, 172),
    "entrenchment": (208, 215, 162),
}
LABEL_ON_DARK = {"river", "bridge", "wood"}
ROAD = (206, 176, 118)
ROAD_HEDGE = (70, 112, 44)

# Status markers: key -> (text, fill, text colour). Order = drawing order in the tag row.
TAGS = {
    "disordered": ("D", (250, 214, 50), (20, 20, 20)),
    "formation_broken": ("F-BRK", (40, 40, 40), (255, 255, 255)),
    "shaken": ("SHKN", (250, 140, 20), (20, 20, 20)),
    "routed": ("ROUT", (214, 24, 24), (255, 255, 255)),
    "open": ("OPEN", (190, 226, 255), (20, 20, 20)),
    "column": ("COL", (190, 226, 255), (20, 20, 20)),
    "hedgehog": ("HOG", (190, 226, 255), (20, 20, 20)),
    "salvo": ("SALVO", (255, 255, 255), (20, 20, 20)),
    "fired": ("FIRED", (90, 90, 90), (255, 255, 255)),
    "disabled": ("DISAB", (20, 20, 20), (255, 255, 255)),
    "captured": ("CAPT", (20, 20, 20), (255, 255, 255)),
}


def mix(a, b, t: float) -> tuple[int, int, int]:
    """Colour a moved a fraction t of the way to b."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a[:3], b[:3]))


def flat_hex(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Flat-top hexagon; corner k is vertex k, at screen angle 60k degrees."""
    return [(cx + r * math.cos(math.radians(60 * k)), cy + r * math.sin(math.radians(60 * k)))
            for k in range(6)]


# --- terrain tiles ------------------------------------------------------------------------------
def _blob_tree(d: ImageDraw.ImageDraw, x: float, y: float, s: float, fill, edge) -> None:
    d.ellipse((x - s, y - s * 0.9, x + s, y + s * 0.9), fill=fill, outline=edge,
              width=max(1, int(s * 0.18)))


def _house(d: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    w = max(1, int(s * 0.12))
    d.rectangle((x - s * 0.7, y - s * 0.1, x + s * 0.7, y + s * 0.7), fill=(238, 228, 206),
                outline=(60, 50, 40), width=w)
    d.polygon([(x - s * 0.92, y - s * 0.05), (x, y - s * 0.8), (x + s * 0.92, y - s * 0.05)],
              fill=(176, 62, 42), outline=(90, 34, 24))


def _paint_terrain(d: ImageDraw.ImageDraw, name: str, cx: float, cy: float, r: float) -> None:
    """Art inside one flat-top hex of radius r (drawn on a tile, then clipped to the hex)."""
    lw = max(1, int(r * 0.045))
    if name == "wood":
        for dx, dy, s in ((-0.42, -0.45, 0.24), (0.1, -0.55, 0.24), (0.55, -0.2, 0.22),
                          (-0.62, 0.05, 0.22), (-0.12, -0.05, 0.26), (0.38, 0.3, 0.24),
                          (-0.35, 0.48, 0.22), (0.7, 0.25, 0.14)):
            _blob_tree(d, cx + dx * r, cy + dy * r, s * r, (52, 104, 42), (30, 66, 26))
            d.ellipse((cx + (dx - s * 0.45) * r, cy + (dy - s * 0.5) * r,
                       cx + (dx - s * 0.05) * r, cy + (dy - s * 0.15) * r), fill=(86, 142, 62))
    elif name == "thicket":
        for dx, dy in ((-0.5, -0.45), (0.05, -0.55), (0.5, -0.35), (-0.7, 0.0), (-0.2, -0.1),
                       (0.3, 0.05), (0.7, 0.15), (-0.45, 0.42), (0.05, 0.4), (0.45, 0.55)):
            s = 0.13 * r
            x, y = cx + dx * r, cy + dy * r
            d.ellipse((x - s, y - s * 0.8, x + s, y + s * 0.8), fill=(96, 122, 52),
                      outline=(62, 84, 30), width=lw)
    elif name == "marsh":
        for dx, dy, w in ((-0.35, -0.45, 0.32), (0.3, -0.1, 0.36), (-0.45, 0.3, 0.3),
                          (0.35, 0.52, 0.22)):
            x, y = cx + dx * r, cy + dy * r
            d.ellipse((x - w * r, y - 0.09 * r, x + w * r, y + 0.09 * r), fill=(120, 170, 200))
        for dx, dy in ((0.1, -0.55), (-0.1, 0.02), (0.55, 0.25), (-0.6, -0.05), (0.0, 0.55)):
            x, y = cx + dx * r, cy + dy * r
            for a in (-0.12, 0.0, 0.12):
                d.line([(x, y), (x + a * r, y - 0.22 * r)], fill=(66, 110, 60), width=lw)
    elif name == "ploughed":
        y = cy - r
        while y < cy + r:
            d.line([(cx - r, y), (cx + r, y + 0.3 * r)], fill=(150, 118, 72), width=lw * 2)
            y += 0.2 * r
    elif name == "hedge":
        pts = flat_hex(cx, cy, 0.8 * r)
        d.line(pts + pts[:1], fill=(62, 108, 40), width=int(0.1 * r), joint="curve")
        for k in range(6):
            (ax, ay), (bx, by) = pts[k], pts[(k + 1) % 6]
            for t in (0.25, 0.75):
                x, y = ax + (bx - ax) * t, ay + (by - ay) * t
                s = 0.07 * r
                d.ellipse((x - s, y - s, x + s, y + s), fill=(46, 86, 30))
    elif name in ("river", "bridge"):
        for dy in (-0.6, -0.3, 0.0, 0.3, 0.6):
            wave(d, cx - r, cx + r, cy + dy * r, 0.05 * r, 0.5 * r, (188, 218, 244), lw)
        if name == "bridge":
            bw = 0.28 * r
            d.rectangle((cx - r, cy - bw, cx + r, cy + bw), fill=(160, 112, 62))
            x = cx - r
            while x < cx + r:
                d.line([(x, cy - bw), (x, cy + bw)], fill=(104, 70, 36), width=lw)
                x += 0.14 * r
            for sy in (-1, 1):
                d.line([(cx - r, cy + sy * bw), (cx + r, cy + sy * bw)], fill=(70, 46, 24),
                       width=lw * 2)
    elif name == "village":
        _house(d, cx - 0.05 * r, cy - 0.5 * r, 0.3 * r)
        _house(d, cx - 0.48 * r, cy + 0.08 * r, 0.26 * r)
        _house(d, cx + 0.42 * r, cy + 0.02 * r, 0.26 * r)
        _house(d, cx + 0.02 * r, cy + 0.42 * r, 0.22 * r)
    elif name == "castle":
        w = 0.5 * r
        d.rectangle((cx - w, cy - w * 0.8, cx + w, cy + w * 0.8), fill=(150, 146, 138),
                    outline=(70, 66, 60), width=lw * 2)
        for sx in (-1, 1):
            for sy in (-1, 1):
                t = 0.17 * r
                x, y = cx + sx * w, cy + sy * w * 0.8
                d.rectangle((x - t, y - t, x + t, y + t), fill=(126, 122, 114),
                            outline=(60, 56, 50), width=lw)
        d.rectangle((cx - 0.14 * r, cy - 0.18 * r, cx + 0.14 * r, cy + 0.18 * r), fill=(70, 66, 60))
    elif name == "entrenchment":
        pts = []
        n = 12
        for i in range(n + 1):
            a = math.radians(200 + 140 * i / n)
            rr = 0.62 * r if i % 2 == 0 else 0.48 * r
            pts.append((cx + rr * math.cos(a), cy + 0.15 * r + rr * math.sin(a) * -1))
        d.line(pts, fill=(120, 84, 44), width=int(0.1 * r), joint="curve")
        d.line(pts, fill=(176, 134, 84), width=max(1, int(0.04 * r)), joint="curve")


@image_cache(48 << 20)              # every terrain at every zoom of the full map and the crops
def terrain_tile(name: str, r: float) -> Image.Image:
    """RGBA tile of one hex of `name`, radius r (already supersampled), transparent outside."""
    w, h = int(math.ceil(2 * r)) + 2, int(math.ceil(math.sqrt(3) * r)) + 2
    return clipped_tile(w, h, TERRAIN_COLOURS.get(name, TERRAIN_COLOURS["clear"]),
                        lambda d, cx, cy: _paint_terrain(d, name, cx, cy, r),
                        lambda cx, cy: flat_hex(cx, cy, r + 1))


# --- counters -----------------------------------------------------------------------------------
COUNTER_HALF = 0.6      # half the side of a one-hex counter, in hex radii
HEX_ID_PX = 9.5         # the hex id printed on a counter, in design px (a hex radius is 30)
NOSE_TIP = 0.9          # the nose reaches this far toward the facing vertex, in hex radii


def _tag_row(d: ImageDraw.ImageDraw, tags: tuple[str, ...], cx: float, cy: float, z: float) -> None:
    """Marker tags centred on (cx, cy) in sprite pixels (already supersampled: z includes SS)."""
    f = font(max(6, int(round(8 * z))), True)
    pad, gap, h = 2.5 * z, 2 * z, 10 * z
    widths = [f.getlength(TAGS[t][0]) + 2 * pad for t in tags]
    x = cx - (sum(widths) + gap * (len(tags) - 1)) / 2
    for t, w in zip(tags, widths):
        text, fill, fg = TAGS[t]
        d.rounded_rectangle((x, cy - h / 2, x + w, cy + h / 2), radius=2.5 * z, fill=fill,
                            outline=(10, 10, 10), width=max(1, int(z * 0.8)))
        d.text((x + w / 2, cy + 0.5 * z), text, font=f, fill=fg, anchor="mm")
        x += w + gap


def _nato(d: ImageDraw.ImageDraw, box, kind: str, light_kind: str, fg, w: int, z: float) -> None:
    x0, y0, x1, y1 = box
    d.rectangle(box, outline=fg, width=w)
    if kind == "heavy":
        d.line([(x0, y0), (x1, y1)], fill=fg, width=w)
        d.line([(x0, y1), (x1, y0)], fill=fg, width=w)
    elif kind == "cavalry":
        d.line([(x0, y1), (x1, y0)], fill=fg, width=w)
    elif kind == "light":
        label = "DR" if light_kind == "dragoons" else "CS"
        d.text(((x0 + x1) / 2, (y0 + y1) / 2 + 0.5 * z), label,
               font=font(max(6, int(round(7.5 * z))), True), fill=fg, anchor="mm")
    elif kind == "artillery":
        cx, cy, rr = (x0 + x1) / 2, (y0 + y1) / 2, (y1 - y0) * 0.28
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=fg)
    elif kind == "wagon":
        cy = y1 - (y1 - y0) * 0.1
        for cx in (x0 + (x1 - x0) * 0.3, x0 + (x1 - x0) * 0.7):
            rr = (y1 - y0) * 0.22
            d.ellipse((cx - rr, cy - 2 * rr, cx + rr, cy), outline=fg, width=w)


# Sprite caches are sized in bytes for many live games at once (issue 13): 50 games of several
# battles show thousands of distinct counters (a counter prints its hex, so a move makes a new one)
@image_cache(64 << 20)
def counter_sprite(r: float, side: str, kind: str, light_kind: str, value: str,
                   casualties: int, angle: float, span: float, wing_colour: tuple,
                   pistols: int | None, body: str, label: str = "",
                   active: bool = False, hex_id: str = "") -> tuple[Image.Image, tuple[float, float]]:
    """RGBA counter sprite and the offset of the unit's centre inside it.

    r: hex radius (output px); angle: screen angle of the facing vertex (degrees); span: distance
    between the two hex centres of a double unit (0 for a one-hex unit); value: the line printed
    under the symbol ("18-7", guns "SAK-5"); casualties > 0 adds a red badge (markers: `tag_sprite`);
    pistols: None (not cavalry) or shots left 0..2; body: "normal", "disordered" (flipped:
    lighter), "broken" (formation broken: dimmed) or "grey" (fired/disabled gun), with "+x" for a
    cross (disabled/captured gun) and "+hog" for hedgehog pikes; label: a caption above the
    counter (unused by the board, which lays its captions out itself); active: a yellow halo (the
    unit belongs to the wing being activated); hex_id: the hex the counter stands in, printed on a
    light chip along its lower edge (the hex ids of the map are never drawn under a counter).
    """
    k = SS
    z = r / 30.0 * k                       # 1 "design pixel" at r=30, supersampled
    R = r * k
    hd = COUNTER_HALF * R                  # half depth (along the facing)
    hw = hd + span * k / 2                 # half width (across the facing)
    ext = math.hypot(hd, hw) + 0.5 * R + 2 * z
    ext = max(ext, hw + 0.45 * R, 1.15 * R)
    W = H = int(math.ceil(2 * ext))
    img, d = sprite_canvas(W, H)
    ox, oy = W / 2, H / 2
    a = math.radians(angle)
    fx, fy = math.cos(a), math.sin(a)      # toward the front
    lx, ly = -fy, fx                       # across (to the unit's right)

    def P(along: float, across: float, dx: float = 0.0, dy: float = 0.0):
        return (ox + along * fx + across * lx + dx, oy + along * fy + across * ly + dy)

    def rect(a0, a1, b0, b1, dx=0.0, dy=0.0):
        return [P(a0, b0, dx, dy), P(a1, b0, dx, dy), P(a1, b1, dx, dy), P(a0, b1, dx, dy)]

    base = SIDE_COLOURS.get(side, NEUTRAL)
    dark = SIDE_DARK.get(side, (40, 40, 40))
    kind_body, *extras = body.split("+")
    if kind_body == "disordered":
        fill = mix(base, (255, 255, 255), 0.42)
    elif kind_body == "broken":
        fill = mix(base, (70, 70, 70), 0.45)
    elif kind_body == "grey":
        fill = mix(base, (150, 150, 150), 0.75)
    else:
        fill = base
    # halo, shadow, body, rear stripe (wing colour), outline
    if active:
        g = 3.2 * z
        halo = rect(-hd - g, hd + g, -hw - g, hw + g)
        d.polygon(halo, fill=ACTIVE_HALO)
    d.polygon(rect(-hd, hd, -hw, hw, 2 * z, 2 * z), fill=(0, 0, 0, 80))
    d.polygon(rect(-hd, hd, -hw, hw), fill=fill)
    if kind_body == "disordered":          # flipped counter: hatched as well as lighter
        step = 5 * z
        t = -hw - hd
        while t < hw + hd:
            # a diagonal from (along=-hd, across=t) to (along=hd, across=t+2hd), clipped
            a0, b0, a1, b1 = -hd, t, hd, t + 2 * hd
            if b0 < -hw:
                a0, b0 = a0 + (-hw - b0), -hw
            if b1 > hw:
                a1, b1 = a1 - (b1 - hw), hw
            if a0 < a1:
                d.line([P(a0, b0), P(a1, b1)], fill=mix(base, (255, 255, 255), 0.62),
                       width=max(1, int(1.2 * z)))
            t += step
    stripe = 0.3 * hd
    d.polygon(rect(-hd, -hd + stripe, -hw, hw), fill=tuple(wing_colour))
    outline = rect(-hd, hd, -hw, hw)
    d.line(outline + outline[:1], fill=(14, 14, 14), width=max(2, int(1.4 * z)), joint="curve")
    if "hog" in extras:                    # hedgehog: pikes out of every edge
        for along, across, da, db in ((hd, 0, 1, 0), (-hd, 0, -1, 0), (0, hw, 0, 1), (0, -hw, 0, -1)):
            n = 3 if da else 2
            for i in range(n):
                if da:
                    b = -hw + (i + 0.5) * 2 * hw / n
                    d.line([P(along, b), P(along + da * 0.16 * R, b)], fill=(14, 14, 14),
                           width=max(1, int(1.4 * z)))
                else:
                    aa = -hd + (i + 0.5) * 2 * hd / n
                    d.line([P(aa, across), P(aa, across + db * 0.16 * R)], fill=(14, 14, 14),
                           width=max(1, int(1.4 * z)))
    # the nose: one per hex of the unit, pointing at that hex's facing vertex
    halves = (0.0,) if span == 0 else (-span * k / 2, span * k / 2)
    for b in halves:
        nose = [P(hd - 0.5 * z, b - 0.26 * R), P(NOSE_TIP * R, b), P(hd - 0.5 * z, b + 0.26 * R)]
        d.polygon(nose, fill=NOSE)
        d.line(nose, fill=NOSE_EDGE, width=max(1, int(1.2 * z)), joint="curve")
    if "x" in extras:                       # disabled or captured gun
        for p, q in ((P(-hd, -hw), P(hd, hw)), (P(-hd, hw), P(hd, -hw))):
            d.line([p, q], fill=(14, 14, 14), width=int(2.4 * z))
    # upright content
    fg = (255, 255, 255)
    text_stroke = dark if kind_body != "disordered" else mix(base, (0, 0, 0), 0.3)
    w = max(1, int(round(1.3 * z)))
    if hex_id:                             # symbol, value and the hex id on a chip below
        _nato(d, (ox - 7 * z, oy - 15 * z, ox + 7 * z, oy - 7 * z), kind, light_kind, fg, w, z)
        value_y = oy + 0.5 * z
        hf = font(max(6, int(round(HEX_ID_PX * z))), True)
        ids = hex_id.split()
        if span and len(ids) == 2:         # a double: each half's id in the middle of that half
            spots = [P(0, -span * k / 2, 0, 4 * z), P(0, span * k / 2, 0, 4 * z)]
        else:
            spots = [(ox, oy + hd - 6.2 * z)]
            ids = [" ".join(ids)]
        for text, (hx, hy) in zip(ids, spots):
            tw = hf.getlength(text)
            d.rounded_rectangle((hx - tw / 2 - 2 * z, hy - 5.4 * z, hx + tw / 2 + 2 * z, hy + 5.4 * z),
                                radius=2 * z, fill=(250, 248, 236), outline=(14, 14, 14),
                                width=max(1, int(0.8 * z)))
            d.text((hx, hy + 0.3 * z), text, font=hf, fill=(20, 20, 20), anchor="mm")
    else:
        _nato(d, (ox - 8 * z, oy - 12 * z, ox + 8 * z, oy - 3 * z), kind, light_kind, fg, w, z)
        value_y = oy + 7.5 * z
    if value:
        size = int(round(11 * z))
        while size > 6 and font(size, True).getlength(value) > 2 * hd - 3 * z:
            size -= 1
        d.text((ox, value_y), value, font=font(size, True), fill=fg,
               anchor="mm", stroke_width=max(1, int(z)), stroke_fill=text_stroke)
    if pistols is not None:                # two small dots, filled while loaded
        for i in range(2):
            x, y, rr = ox - 14.5 * z + i * 5.6 * z, oy - 14.5 * z, 2.4 * z
            if i < pistols:
                d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=fg, outline=(14, 14, 14),
                          width=max(1, int(0.8 * z)))
            else:
                d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=(40, 40, 40), outline=fg,
                          width=max(1, int(0.8 * z)))
    if casualties > 0:
        x, y, rr = ox + 13 * z, oy - 13 * z, 6.5 * z
        d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=CASUALTY_RED, outline=(255, 255, 255),
                  width=max(1, int(z)))
        d.text((x, y + 0.3 * z), str(casualties), font=font(max(6, int(round(8.5 * z))), True),
               fill=(255, 255, 255), anchor="mm")
    if label:
        d.text((ox, oy - 21 * z), label, font=font(max(6, int(round(7.5 * z))), True),
               fill=(255, 255, 255), anchor="mm", stroke_width=max(1, int(1.2 * z)),
               stroke_fill=(20, 20, 20))
    return trimmed(downsample(img, k)), (ox / k, oy / k)


@image_cache(16 << 20)
def leader_sprite(r: float, side: str, role: str, value: int, wing_colour: tuple | None,
                  finished: bool, no_continue: bool, big: bool = False,
                  label: str = "") -> tuple[Image.Image, tuple[float, float]]:
    """RGBA round badge of a leader and the offset of its centre inside the sprite.

    Army Commander: gold disc ringed in the side colour, with a small star; Wing Commander: disc
    in the side colour ringed in white and the wing's colour. The command value is written in the
    disc. Finished: greyed with a "FIN" tag; No Continue: a red "NC" tag."""
    k = SS
    z = r / 30.0 * k * (1.3 if big else 1.0)
    W, H = int(64 * z), int(54 * z)
    img, d = sprite_canvas(W, H)
    ox, oy = W / 2, 18 * z
    base = SIDE_COLOURS.get(side, NEUTRAL)
    rr = (11 if role == "ac" else 10) * z
    d.ellipse((ox - rr + 1.5 * z, oy - rr + 1.5 * z, ox + rr + 1.5 * z, oy + rr + 1.5 * z),
              fill=(0, 0, 0, 90))
    grey = (150, 150, 150)
    if role == "ac":
        fill, ring, text = GOLD, base, (20, 20, 20)
        if finished:
            fill = mix(fill, grey, 0.6)
        d.ellipse((ox - rr, oy - rr, ox + rr, oy + rr), fill=ring)
        ri = rr - 2.4 * z
        d.ellipse((ox - ri, oy - ri, ox + ri, oy + ri), fill=fill)
        d.polygon(star_points(ox, oy - rr + 0.2 * z, 4.2 * z), fill=(255, 255, 255),
                  outline=(20, 20, 20))
    else:
        fill = base if not finished else mix(base, grey, 0.65)
        ring = tuple(wing_colour) if wing_colour else (255, 255, 255)
        d.ellipse((ox - rr, oy - rr, ox + rr, oy + rr), fill=ring)
        ri = rr - 1.8 * z
        d.ellipse((ox - ri, oy - ri, ox + ri, oy + ri), fill=(255, 255, 255))
        ri -= 1.3 * z
        d.ellipse((ox - ri, oy - ri, ox + ri, oy + ri), fill=fill)
        text = (255, 255, 255)
    d.text((ox, oy + 0.8 * z), str(value), font=font(max(6, int(round(11.5 * z))), True), fill=text,
           anchor="mm")
    marks = [m for m, on in (("FIN", finished), ("NC", no_continue)) if on]
    if marks:
        f = font(max(6, int(round(7.5 * z))), True)
        pad, h = 2 * z, 9 * z
        widths = [f.getlength(m) + 2 * pad for m in marks]
        x = ox - (sum(widths) + 2 * z * (len(marks) - 1)) / 2
        y = oy + rr + 3.5 * z
        for m, w in zip(marks, widths):
            fill_m = (30, 30, 30) if m == "FIN" else CASUALTY_RED
            d.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), radius=2 * z, fill=fill_m,
                                outline=(255, 255, 255), width=max(1, int(0.8 * z)))
            d.text((x + w / 2, y + 0.4 * z), m, font=f, fill=(255, 255, 255), anchor="mm")
            x += w + 2 * z
    if label:
        d.text((ox, oy + rr + (13 if marks else 5) * z), label,
               font=font(max(6, int(round(7 * z))), True), fill=(255, 255, 255), anchor="mm",
               stroke_width=max(1, int(z)), stroke_fill=(20, 20, 20))
    return downsample(img, k), (ox / k, oy / k)


@image_cache(8 << 20)
def tag_sprite(r: float, tags: tuple[str, ...]) -> tuple[Image.Image, tuple[float, float]]:
    """RGBA row(s) of marker tags (TAGS keys), two to a row, and the centre of the first row.
    Drawn after every counter, so a marker stays visible on a stack."""
    k = SS
    z = r / 30.0 * k
    rows = [tags[i:i + 2] for i in range(0, len(tags), 2)]
    f = font(max(6, int(round(8 * z))), True)
    widest = max(sum(f.getlength(TAGS[t][0]) + 7 * z for t in row) for row in rows)
    W, H = int(widest + 6 * z), int((len(rows) * 11 + 2) * z)
    img, d = sprite_canvas(W, H)
    for i, row in enumerate(rows):
        _tag_row(d, row, W / 2, (6 + 11 * i) * z, z)
    return downsample(img, k), (W / 2 / k, 6 * z / k)


def paste_at(base: Image.Image, sprite: Image.Image, anchor: tuple[float, float], x: float,
             y: float) -> None:
    """Paste an RGBA sprite (whole or `trimmed`) so that its point `anchor` lands on (x, y)."""
    paste_trimmed(base, sprite, (int(round(x - anchor[0])), int(round(y - anchor[1]))))
