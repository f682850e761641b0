"""Jours de Gloire artwork: terrain tiles, Napoleonic counters, commander badges and marker tags,
drawn supersampled and cached (Pillow only).

Every function here draws one small picture from plain values (a terrain name, a side, a colour,
an angle, a list of marker names); none reads a game state or decides a rule. renders/jdg.py
assembles them. Sizes are in output pixels for a hex of radius `r` (centre to vertex).

A counter is a square turned so that its FRONT EDGE faces the unit's facing vertex (a JdG unit
faces a vertex, not a side [6.1]), with a white nose on that edge pointing at the vertex, the
formation's colour as a stripe along its rear edge, and, upright whatever the facing, a NATO-like
arm symbol (infantry X, cavalry /, artillery a gun's dot; "L" beside heavy cavalry) over its
values "strength-cohesion-MP". The body is the nationality's colour: French blue, Austrian white
with an ochre border. A disordered unit shows the counter's back: a paler body, the reduced
cohesion and MP, and a yellow "D" tag; a routed one also a red "ROUT" tag and a red border.
"""
from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from .common import clipped_tile, downsample, font, image_cache, trimmed, wave

SS = 2  # supersampling factor for art (Pillow's primitives are not anti-aliased)

SIDE_NAMES = {"french": "French", "austrian": "Austrian"}
# the counters' bodies: front (good order) and back (disordered), border, ink
SIDE_BODY = {"french": (34, 66, 150), "austrian": (246, 242, 228)}
SIDE_BACK = {"french": (150, 172, 218), "austrian": (226, 208, 158)}
SIDE_BORDER = {"french": (14, 28, 70), "austrian": (186, 136, 34)}
SIDE_INK = {"french": (255, 255, 255), "austrian": (24, 24, 24)}
SIDE_BACK_INK = {"french": (16, 30, 80), "austrian": (60, 40, 10)}
# the side's colour in the strip and on rout exits / victory-hex flags
SIDE_COLOURS = {"french": (40, 80, 175), "austrian": (238, 234, 214)}
SIDE_DARK = {"french": (20, 40, 110), "austrian": (150, 104, 20)}
GOLD = (232, 190, 40)
NOSE = (255, 255, 255)
NOSE_EDGE = (18, 18, 18)
ROUT_RED = (214, 24, 24)

TERRAIN_COLOURS = {
    "clear": (214, 218, 168),
    "village": (214, 218, 168),
    "town": (204, 200, 180),
    "cascina": (214, 218, 168),
    "crops": (200, 210, 130),
    "woods": (120, 160, 90),
    "palm_grove": (196, 206, 140),
    "marsh": (170, 198, 180),
    "fortification": (196, 186, 160),
    "castle": (186, 182, 172),
    "river_hex": (104, 158, 212),
}
TERRAIN_NAMES = {"village": "village", "town": "town", "cascina": "cascina (farm)",
                 "crops": "vineyards, crops", "woods": "woods", "palm_grove": "palm grove",
                 "marsh": "marsh", "fortification": "fortification", "castle": "castle",
                 "river_hex": "river (impassable)"}
ELEVATION_TINT = (150, 112, 60)     # each level above 0 moves the terrain this way
RIVER = (44, 108, 200)
STREAM = (52, 122, 214)
ROAD = (214, 182, 120)
ROAD_EDGE = (110, 80, 40)
PATH = (140, 104, 56)
BRIDGE = (150, 100, 52)
CREST = (128, 84, 40)
TRENCH = (70, 52, 30)

# Marker tags: key -> (text, fill, ink), in drawing order
TAGS = {
    "disordered": ("D", (250, 214, 50), (20, 20, 20)),
    "routed": ("ROUT", (214, 24, 24), (255, 255, 255)),
    "square": ("SQ", (255, 255, 255), (20, 20, 20)),
    "charge": ("CHG", (255, 120, 0), (20, 20, 20)),
    "fired": ("FIRED", (90, 90, 90), (255, 255, 255)),
    "immobile": ("FIX", (60, 60, 60), (255, 255, 255)),
}
TAG_NAMES = {"disordered": "disordered (the counter's back)", "routed": "routed",
             "square": "in square", "charge": "charge declared", "fired": "artillery fired",
             "immobile": "immobile"}


def mix(a, b, t: float) -> tuple[int, int, int]:
    """Colour a moved a fraction t of the way to b."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a[:3], b[:3]))


def hex_colour(value: str, default=(255, 255, 255)) -> tuple[int, int, int]:
    """'#rrggbb' -> (r, g, b); anything else the default."""
    v = str(value or "").strip().lstrip("#")
    if len(v) == 6:
        try:
            return tuple(int(v[i:i + 2], 16) for i in (0, 2, 4))      # type: ignore[return-value]
        except ValueError:
            pass
    return default


def hex_points(cx: float, cy: float, r: float, start: float = 0.0) -> list[tuple[float, float]]:
    """A hexagon; corner k at screen angle start + 60k degrees (flat-top: start 0, corner k is
    vertex k; pointy-top: start -30)."""
    return [(cx + r * math.cos(math.radians(start + 60 * k)), cy + r * math.sin(math.radians(start + 60 * k)))
            for k in range(6)]


# --- terrain tiles ------------------------------------------------------------------------------
def _house(d: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    w = max(1, int(s * 0.12))
    d.rectangle((x - s * 0.7, y - s * 0.1, x + s * 0.7, y + s * 0.7), fill=(238, 228, 206),
                outline=(60, 50, 40), width=w)
    d.polygon([(x - s * 0.92, y - s * 0.05), (x, y - s * 0.8), (x + s * 0.92, y - s * 0.05)],
              fill=(176, 62, 42), outline=(90, 34, 24))


def _tree(d, x, y, s, fill=(52, 104, 42), edge=(30, 66, 26)) -> None:
    d.ellipse((x - s, y - s * 0.9, x + s, y + s * 0.9), fill=fill, outline=edge, width=max(1, int(s * 0.18)))


def _paint_terrain(d: ImageDraw.ImageDraw, name: str, cx: float, cy: float, r: float) -> None:
    """Art inside one hex of radius r (drawn on a tile, then clipped to the hex)."""
    lw = max(1, int(r * 0.045))
    if name == "woods":
        for dx, dy, s in ((-0.42, -0.45, 0.24), (0.1, -0.55, 0.24), (0.55, -0.2, 0.22),
                          (-0.62, 0.05, 0.22), (-0.12, -0.05, 0.26), (0.38, 0.3, 0.24),
                          (-0.35, 0.48, 0.22), (0.7, 0.25, 0.14)):
            _tree(d, cx + dx * r, cy + dy * r, s * r)
    elif name == "palm_grove":
        for dx, dy in ((-0.4, -0.3), (0.35, -0.35), (0.0, 0.3), (-0.5, 0.45), (0.5, 0.4)):
            x, y = cx + dx * r, cy + dy * r
            for a in range(0, 360, 60):
                d.line([(x, y), (x + 0.16 * r * math.cos(math.radians(a)), y + 0.16 * r * math.sin(math.radians(a)))],
                       fill=(60, 120, 50), width=lw * 2)
    elif name == "crops":
        # vineyards: rows of vine stocks
        y = cy - r
        k = 0
        while y < cy + r:
            x = cx - r + (0.09 * r if k % 2 else 0)
            while x < cx + r:
                d.ellipse((x - 0.045 * r, y - 0.045 * r, x + 0.045 * r, y + 0.045 * r), fill=(96, 120, 40))
                x += 0.18 * r
            d.line([(cx - r, y + 0.06 * r), (cx + r, y + 0.06 * r)], fill=(160, 176, 96), width=lw)
            y += 0.2 * r
            k += 1
    elif name == "marsh":
        for dx, dy, w in ((-0.35, -0.45, 0.32), (0.3, -0.1, 0.36), (-0.45, 0.3, 0.3), (0.35, 0.52, 0.22)):
            x, y = cx + dx * r, cy + dy * r
            d.ellipse((x - w * r, y - 0.09 * r, x + w * r, y + 0.09 * r), fill=(120, 170, 200))
        for dx, dy in ((0.1, -0.55), (-0.1, 0.02), (0.55, 0.25), (-0.6, -0.05), (0.0, 0.55)):
            x, y = cx + dx * r, cy + dy * r
            for a in (-0.12, 0.0, 0.12):
                d.line([(x, y), (x + a * r, y - 0.22 * r)], fill=(66, 110, 60), width=lw)
    elif name == "river_hex":
        for dy in (-0.6, -0.3, 0.0, 0.3, 0.6):
            wave(d, cx - r, cx + r, cy + dy * r, 0.05 * r, 0.5 * r, (176, 210, 240), lw)
    elif name in ("village", "town"):
        houses = ((-0.05, -0.5, 0.3), (-0.48, 0.08, 0.26), (0.42, 0.02, 0.26), (0.02, 0.42, 0.22))
        if name == "town":
            houses += ((-0.45, -0.4, 0.2), (0.45, -0.45, 0.2), (-0.42, 0.55, 0.2), (0.45, 0.5, 0.2))
        for dx, dy, s in houses:
            _house(d, cx + dx * r, cy + dy * r, s * r)
    elif name == "cascina":
        # a fortified farm: buildings round a courtyard
        w = 0.42 * r
        d.rectangle((cx - w, cy - w * 0.8, cx + w, cy + w * 0.8), fill=(232, 220, 196),
                    outline=(90, 60, 40), width=lw * 2)
        d.rectangle((cx - w * 0.5, cy - w * 0.4, cx + w * 0.5, cy + w * 0.4), fill=(206, 190, 150),
                    outline=(90, 60, 40), width=lw)
        d.rectangle((cx - w, cy - w * 0.8, cx + w, cy - w * 0.45), fill=(176, 62, 42))
    elif name in ("fortification", "castle"):
        w = 0.5 * r
        d.rectangle((cx - w, cy - w * 0.8, cx + w, cy + w * 0.8), fill=(150, 146, 138),
                    outline=(70, 66, 60), width=lw * 2)
        for sx in (-1, 1):
            for sy in (-1, 1):
                t = 0.15 * r
                x, y = cx + sx * w, cy + sy * w * 0.8
                d.rectangle((x - t, y - t, x + t, y + t), fill=(126, 122, 114), outline=(60, 56, 50), width=lw)


def terrain_fill(name: str, level: int) -> tuple[int, int, int]:
    base = TERRAIN_COLOURS.get(name, TERRAIN_COLOURS["clear"])
    return mix(base, ELEVATION_TINT, min(0.6, 0.2 * max(0, level)))


@image_cache(48 << 20)
def terrain_tile(name: str, level: int, r: float, start: float) -> Image.Image:
    """RGBA tile of one hex of `name` at elevation `level`, radius r (already supersampled),
    transparent outside the hex."""
    w, h = int(math.ceil(2 * r)) + 2, int(math.ceil(2 * r)) + 2
    return clipped_tile(w, h, terrain_fill(name, level),
                        lambda d, cx, cy: _paint_terrain(d, name, cx, cy, r),
                        lambda cx, cy: hex_points(cx, cy, r + 1, start))


# --- counters -----------------------------------------------------------------------------------
COUNTER_HALF = 0.6     # half the side of a lone counter, in hex radii
NOSE_TIP = 0.9          # the nose reaches this far toward the facing vertex, in hex radii


def _symbol(d: ImageDraw.ImageDraw, arm: str, heavy: bool, cx: float, cy: float, hw: float, hh: float,
            ink, lw: int, z: float) -> None:
    """NATO-like arm symbol in a box of half-size hw x hh centred on (cx, cy)."""
    box = (cx - hw, cy - hh, cx + hw, cy + hh)
    d.rectangle(box, outline=ink, width=lw)
    if arm == "infantry":
        d.line([(box[0], box[1]), (box[2], box[3])], fill=ink, width=lw)
        d.line([(box[0], box[3]), (box[2], box[1])], fill=ink, width=lw)
    elif arm == "cavalry":
        d.line([(box[0], box[3]), (box[2], box[1])], fill=ink, width=lw)
    else:
        rr = hh * 0.45
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ink)
    if heavy:
        f = font(max(6, int(round(hh * 1.5))), True)
        d.text((box[2] + 2.5 * z, cy), "L", font=f, fill=ink, anchor="lm")


@image_cache(64 << 20)
def counter_sprite(r: float, side: str, arm: str, heavy: bool, values: str, angle: float,
                   stripe: tuple[int, int, int], back: bool, routed: bool, halo: bool) -> tuple[Image.Image, tuple[float, float]]:
    """RGBA sprite of a counter for a hex of radius r (output px), its front edge facing screen
    angle `angle`, and the sprite pixel that goes on the counter's centre."""
    k = SS
    R = r * k
    s = COUNTER_HALF * R
    size = int(math.ceil(2 * R * 1.02)) + 4
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    cx = cy = size / 2
    a = math.radians(angle)
    ux, uy = math.cos(a), math.sin(a)          # toward the front
    vx, vy = -uy, ux                           # across

    def pt(u: float, v: float) -> tuple[float, float]:
        return (cx + u * ux + v * vx, cy + u * uy + v * vy)

    corners = [pt(s, -s), pt(s, s), pt(-s, s), pt(-s, -s)]
    lw = max(1, int(round(0.05 * R)))
    if halo:
        hs = s + 0.12 * R
        d.polygon([pt(hs, -hs), pt(hs, hs), pt(-hs, hs), pt(-hs, -hs)], fill=(255, 214, 0, 255))
    body = SIDE_BACK[side] if back else SIDE_BODY[side]
    border = ROUT_RED if routed else SIDE_BORDER[side]
    d.polygon(corners, fill=body)
    # the formation's stripe along the rear edge
    st = 0.15 * s
    d.polygon([pt(-s, -s), pt(-s, s), pt(-s + 2 * st, s), pt(-s + 2 * st, -s)], fill=stripe)
    d.line([pt(-s + 2 * st, -s), pt(-s + 2 * st, s)], fill=(20, 20, 20), width=max(1, lw // 2))
    d.line(corners + corners[:1], fill=border, width=lw * (2 if routed else 1) + (1 if side == "austrian" else 0),
           joint="curve")
    # the nose: a triangle on the front edge pointing at the facing vertex
    tip = NOSE_TIP * R
    nose = [pt(tip, 0), pt(s - 0.02 * R, -0.2 * R), pt(s - 0.02 * R, 0.2 * R)]
    d.polygon(nose, fill=NOSE, outline=NOSE_EDGE)
    d.line(nose + nose[:1], fill=NOSE_EDGE, width=max(1, lw // 2 + 1), joint="curve")
    # upright content: the arm symbol over the values, as large as fits inside the turned square
    # clear of the stripe (larger on an E or W facing than on a diagonal one)
    ink = SIDE_BACK_INK[side] if back else SIDE_INK[side]
    f0 = font(100, True)
    tw = f0.getlength(values) / 100            # text width per px of font size
    fit = content_fit(angle, tw)
    fs = fit * s
    ox, oy = 0.12 * s * ux, 0.12 * s * uy      # a little toward the front, away from the stripe
    _symbol(d, arm, heavy, cx + ox, cy + oy - 0.36 * fs, 0.36 * fs, 0.2 * fs, ink, max(1, int(round(0.035 * R))), k)
    f = font(max(6, int(round(0.62 * fs))), True)
    d.text((cx + ox, cy + oy + 0.3 * fs), values, font=f, fill=ink, anchor="mm")
    sprite = downsample(img, k)
    return trimmed(sprite), (size / 2 / k, size / 2 / k)


@lru_cache(maxsize=512)
def content_fit(angle: float, text_w: float) -> float:
    """The scale (in counter half-sides) of the upright content of a counter turned to `angle`:
    the largest, up to 1, whose corners all lie inside the square, behind the front margin and
    clear of the rear stripe. `text_w`: the values' width per px of font size."""
    a = math.radians(angle)
    ux, uy = math.cos(a), math.sin(a)
    best = 0.3
    for i in range(30, 101):
        k = i / 100
        half_t = 0.31 * text_w * k                 # the values: font 0.62k, centred 0.3k below
        pts = [(x, y) for x in (-0.36 * k, 0.36 * k) for y in (-0.56 * k, -0.16 * k)]        # symbol
        pts += [(x, y) for x in (-half_t, half_t) for y in (0.05 * k, 0.55 * k)]             # values
        ok = True
        for x, y in pts:
            x, y = x + 0.12 * ux, y + 0.12 * uy
            u, v = x * ux + y * uy, -x * uy + y * ux
            if not (-0.66 <= u <= 0.94 and -0.94 <= v <= 0.94):
                ok = False
                break
        if not ok:
            break
        best = k
    return best


def paste_at(base: Image.Image, sprite: Image.Image, anchor: tuple[float, float], x: float, y: float) -> None:
    """Paste a (trimmed) sprite so that its `anchor` pixel lands on (x, y)."""
    dx, dy = sprite.info.get("trim", (0, 0))
    base.paste(sprite, (int(round(x - anchor[0])) + dx, int(round(y - anchor[1])) + dy), sprite)


@image_cache(8 << 20)
def tag_sprite(h: float, tags: tuple[str, ...]) -> Image.Image:
    """A row of marker tags `h` px high (output px)."""
    k = SS
    f = font(max(6, int(round(0.78 * h * k))), True)
    pad, gap = 0.3 * h * k, 0.2 * h * k
    widths = [f.getlength(TAGS[t][0]) + 2 * pad for t in tags]
    w = int(math.ceil(sum(widths) + gap * (len(tags) - 1))) + 2 * k
    hh = int(math.ceil(h * k)) + 2 * k
    img = Image.new("RGBA", (w, hh), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    x = k
    for t, tw in zip(tags, widths):
        text, fill, ink = TAGS[t]
        d.rounded_rectangle((x, k, x + tw, k + h * k), radius=0.25 * h * k, fill=fill, outline=(20, 20, 20),
                            width=max(1, k))
        d.text((x + tw / 2, k + h * k / 2), text, font=f, fill=ink, anchor="mm")
        x += tw + gap
    return downsample(img, k)


@image_cache(4 << 20)
def commander_sprite(r: float, side: str, initial: str) -> Image.Image:
    """A commander-in-chief: a disc in the side's colour with a gold star ring and his initial."""
    k = SS
    rr = r * k
    size = int(math.ceil(2 * rr)) + 4
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    c = size / 2
    d.ellipse((c - rr, c - rr, c + rr, c + rr), fill=GOLD, outline=(40, 30, 0), width=max(1, int(0.12 * rr)))
    ri = rr * 0.74
    d.ellipse((c - ri, c - ri, c + ri, c + ri), fill=SIDE_BODY[side])
    f = font(max(6, int(round(1.05 * ri))), True)
    d.text((c, c), initial, font=f, fill=SIDE_INK[side], anchor="mm")
    return downsample(img, k)


@image_cache(2 << 20)
def flag_sprite(h: float, side: str, vp: int) -> Image.Image:
    """A victory hex's flag `h` px high: a pole and a banner in the colour of the side that holds
    it, with the hex's VP."""
    k = SS
    H = h * k
    w = int(math.ceil(1.1 * H)) + 2 * k
    img = Image.new("RGBA", (w, int(math.ceil(H)) + 2 * k), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pole = k + 0.08 * H
    d.line([(pole, k), (pole, k + H)], fill=(30, 30, 30), width=max(1, int(0.1 * H)))
    box = (pole, k, k + 1.05 * H, k + 0.7 * H)
    d.rectangle(box, fill=SIDE_COLOURS[side], outline=(30, 30, 30), width=max(1, int(0.06 * H)))
    f = font(max(6, int(round(0.6 * H))), True)
    d.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), str(vp), font=f, fill=SIDE_INK[side], anchor="mm")
    return downsample(img, k)
