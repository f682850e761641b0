"""Shared Pillow helpers for every board renderer: fonts, PNG encoding, text and arrows, the
overlays of a last action (path arrows, rings, crosses, labels), supersampled art (waves,
hex tiles, sprite canvases) and the information strip under the board.

Nothing here knows a ruleset. Fonts are the bundled DejaVu files loaded with the BASIC layout
engine, so the same state gives the same pixels on any machine with the same Pillow (the RAQM
engine depends on the system's libfribidi; see notes/toolchain.md §3).
"""
from __future__ import annotations

import functools
import hashlib
import io
import math
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).parent / "fonts"
FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}

Point = tuple[float, float]
Colour = str | tuple[int, ...]

# PNG (measured by bench/render_bench.py on the 1296x~890 Battle Cry board): an anti-aliased
# RGB image costs ~100 ms at zlib level 1 (~370 KiB), because Pillow tries every PNG row filter
# on truecolour rows. Quantising to a 256-colour palette with the fast octree first costs ~35 ms
# and then encodes unfiltered: ~60-70 ms in all for ~95 KiB, visually identical on a map of flat
# fills (flat colours move by at most ~1 per channel).
#
# zlib's level (issue 13, measured on 25 TACW crops and 25 Battle Cry boards of the load bench):
# on a palette image level 6 costs ~20-23 ms of zlib for 75-91 KiB, level 2 ~6 ms for 95-115
# KiB. An action image (at most FAST_PNG_PIXELS) is encoded at level 2: 15 ms less on every
# reply, for a fifth more bytes, far below Discord's limits. A larger image (a full TACW map,
# 3-4 megapixels) keeps level 6, so it stays under 500 KiB.
PNG_PALETTE = 256
PNG_COMPRESS_LEVEL = 6
PNG_FAST_LEVEL = 2
FAST_PNG_PIXELS = 1_600_000


def png_level(image: Image.Image) -> int:
    """zlib's level for an image: PNG_FAST_LEVEL up to FAST_PNG_PIXELS, else PNG_COMPRESS_LEVEL."""
    return PNG_FAST_LEVEL if image.width * image.height <= FAST_PNG_PIXELS else PNG_COMPRESS_LEVEL

# The information strip and the last action's arrows, the same in every renderer.
STRIP_BG = (35, 38, 43)
STRIP_FG = (242, 242, 242)
STRIP_DIM = (176, 182, 192)
MOVE_COLOUR = (255, 210, 30)
RETREAT_COLOUR = (255, 140, 30)


def _nbytes(value: Any) -> int:
    """Bytes an image (or the images in a tuple, or a bytes string) holds, roughly; 64 for
    anything else."""
    if isinstance(value, Image.Image):
        return value.width * value.height * len(value.getbands()) + 200
    if isinstance(value, (bytes, bytearray)):
        return len(value) + 40
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value) + 64
    return 64


def image_cache(max_bytes: int) -> Callable:
    """Like `functools.lru_cache`, but bounded by the bytes of the pictures it keeps (issue 13):
    many live games of different scenarios need thousands of sprites and terrain tiles, which an
    entry count either starves (a few scenarios' worth) or lets grow without bound. Least
    recently used entries go first; thread-safe (the bot draws in threads). The wrapper has
    `cache_clear()` and `cache_info()` (hits, misses, entries, bytes)."""
    def deco(fn: Callable) -> Callable:
        store: OrderedDict = OrderedDict()
        lock = threading.Lock()
        stats = {"hits": 0, "misses": 0, "bytes": 0}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            with lock:
                hit = store.get(key)
                if hit is not None:
                    store.move_to_end(key)
                    stats["hits"] += 1
                    return hit[0]
                stats["misses"] += 1
            value = fn(*args, **kwargs)
            size = _nbytes(value)
            with lock:
                if key not in store:
                    store[key] = (value, size)
                    stats["bytes"] += size
                    while stats["bytes"] > max_bytes and len(store) > 1:
                        _, (_, gone) = store.popitem(last=False)
                        stats["bytes"] -= gone
            return value

        def cache_clear() -> None:
            with lock:
                store.clear()
                stats.update(hits=0, misses=0, bytes=0)

        def cache_info() -> dict:
            with lock:
                return {**stats, "entries": len(store), "max_bytes": max_bytes}

        wrapper.cache_clear = cache_clear          # type: ignore[attr-defined]
        wrapper.cache_info = cache_info            # type: ignore[attr-defined]
        wrapper.__wrapped__ = fn                   # type: ignore[attr-defined]
        return wrapper
    return deco


def trimmed(sprite: Image.Image) -> Image.Image:
    """An RGBA sprite cut to what it draws (its alpha's bounding box), in a third of the memory of
    a canvas with room for every rotation; `sprite.info["trim"]` keeps where the cut starts, so
    `paste_trimmed` puts it exactly where the whole canvas would have gone (same pixels)."""
    box = sprite.getchannel("A").getbbox()
    if box is None or box == (0, 0, sprite.width, sprite.height):
        return sprite
    out = sprite.crop(box)
    out.info["trim"] = box[:2]
    return out


def paste_trimmed(base: Image.Image, sprite: Image.Image, xy: tuple[int, int]) -> None:
    """Paste a sprite (`trimmed` or whole) through its alpha with its uncut canvas's corner at xy."""
    dx, dy = sprite.info.get("trim", (0, 0))
    base.paste(sprite, (xy[0] + dx, xy[1] + dy), sprite)


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans (or Bold) at `size` px, BASIC layout, cached."""
    path = FONT_DIR / FONT_FILES[bool(bold)]
    try:
        return ImageFont.truetype(str(path), int(size), layout_engine=ImageFont.Layout.BASIC)
    except OSError:  # pragma: no cover - only if the package was installed without its fonts
        return ImageFont.load_default(size=int(size))


# NB: ImageDraw.polygon(..., width > 1) rasterises through a mask as large as the whole image;
# on a board that costs ~1 ms per call, so outlines here are drawn with line(), which is cheap.


def encode_png(image: Image.Image, *, palette: int | None = PNG_PALETTE,
               compress_level: int | None = None) -> bytes:
    """PNG bytes of an image. With `palette` (number of colours) an RGB/RGBA image is first
    quantised with the fast octree (deterministic); None keeps it truecolour. zlib's level is
    `png_level(image)` unless given."""
    if compress_level is None:
        compress_level = png_level(image)
    if palette and image.mode in ("RGB", "RGBA"):
        image = image.quantize(palette, method=Image.Quantize.FASTOCTREE)
    buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=compress_level)
    return buf.getvalue()


def encode_png_nearest(image: Image.Image, *, palette: int = PNG_PALETTE,
                       compress_level: int | None = None) -> bytes:
    """PNG bytes of an RGB image in a 256-colour palette chosen by the fast octree, with every
    pixel then mapped to its NEAREST palette colour (no dithering; deterministic).

    FASTOCTREE's own pixel mapping goes through a coarse lookup: on a large map of one flat
    colour it can move that whole colour by ~30 per channel (a visible tint that comes and goes
    with the rest of the picture). The exact remap costs ~10-15 ms on a 3-megapixel image."""
    if image.mode not in ("RGB", "RGBA"):
        return encode_png(image, palette=None, compress_level=compress_level)
    rgb = image.convert("RGB") if image.mode == "RGBA" else image
    chosen = rgb.quantize(palette, method=Image.Quantize.FASTOCTREE)
    mapped = rgb.quantize(palette=chosen, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    mapped.save(buf, "PNG", compress_level=png_level(rgb) if compress_level is None else compress_level)
    return buf.getvalue()


@lru_cache(maxsize=8192)
def _text_mask(text: str, fnt: ImageFont.FreeTypeFont, anchor: str, start: tuple[float, float], ink: int):
    return fnt.getmask2(text, "L", None, None, None, 0, anchor, ink, start, stroke_filled=True)


def cached_text(draw: ImageDraw.ImageDraw, xy: Point, text: str, fnt: ImageFont.FreeTypeFont,
                fill: Colour, anchor: str = "la") -> None:
    """`draw.text(xy, text, font=fnt, fill=fill, anchor=anchor)` with the rasterised glyphs
    cached (the same pixels: what ImageDraw.text does for one line without a stroke, on an RGB
    image): an information strip draws the same words on every board of a replay."""
    if "\n" in text or draw.mode != "RGB" or not isinstance(fnt, ImageFont.FreeTypeFont):
        draw.text(xy, text, font=fnt, fill=fill, anchor=anchor)
        return
    ink = draw._getink(fill)[0]
    x, y = xy
    mask, offset = _text_mask(text, fnt, anchor, (math.modf(x)[0], math.modf(y)[0]), ink)
    draw.draw.draw_bitmap((int(x) + offset[0], int(y) + offset[1]), mask, ink)


@lru_cache(maxsize=16384)
def text_width(text: str, fnt: ImageFont.FreeTypeFont) -> float:
    """`fnt.getlength(text)`, cached (fonts come from the cached `font`, so they hash alike)."""
    return fnt.getlength(text)


def outlined_text(draw: ImageDraw.ImageDraw, xy: Point, text: str, fnt: ImageFont.FreeTypeFont,
                  fill: Colour = "white", outline: Colour = "black", width: int = 2,
                  anchor: str = "mm") -> None:
    """Text with a contrasting outline (readable over any terrain)."""
    draw.text(xy, text, font=fnt, fill=fill, anchor=anchor, stroke_width=width,
              stroke_fill=outline)


def _polyline_length(points: Sequence[Point]) -> float:
    return sum(math.dist(a, b) for a, b in zip(points, points[1:]))


def dashed_polyline(draw: ImageDraw.ImageDraw, points: Sequence[Point], fill: Colour, width: int,
                    dash: float = 12.0, gap: float = 8.0) -> None:
    """A dashed line along a polyline (Pillow has no dash pattern of its own)."""
    on, left = True, dash
    for a, b in zip(points, points[1:]):
        seg = math.dist(a, b)
        if seg == 0:
            continue
        ux, uy = (b[0] - a[0]) / seg, (b[1] - a[1]) / seg
        pos = 0.0
        while pos < seg - 1e-9:
            step = min(left, seg - pos)
            if on:
                p = (a[0] + ux * pos, a[1] + uy * pos)
                q = (a[0] + ux * (pos + step), a[1] + uy * (pos + step))
                draw.line([p, q], fill=fill, width=width)
            pos += step
            left -= step
            if left <= 1e-9:
                on = not on
                left = dash if on else gap


def _trim_end(points: list[Point], amount: float) -> list[Point]:
    """Shorten a polyline at its end by `amount` pixels (room for an arrow head)."""
    pts = list(points)
    while len(pts) >= 2 and amount > 0:
        a, b = pts[-2], pts[-1]
        seg = math.dist(a, b)
        if seg > amount:
            t = (seg - amount) / seg
            pts[-1] = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            return pts
        amount -= seg
        pts.pop()
    return pts


def arrow(draw: ImageDraw.ImageDraw, points: Sequence[Point], fill: Colour, width: int = 6,
          head: float = 18.0, outline: Colour | None = "black", dashed: bool = False) -> None:
    """An arrow along a polyline, head at the last point; optional dark outline and dashes."""
    pts = [(float(x), float(y)) for x, y in points]
    if len(pts) < 2 or _polyline_length(pts) < 1:
        return
    (ax, ay), (bx, by) = pts[-2], pts[-1]
    ang = math.atan2(by - ay, bx - ax)
    tip = (bx, by)
    left = (bx - head * math.cos(ang - 0.45), by - head * math.sin(ang - 0.45))
    right = (bx - head * math.cos(ang + 0.45), by - head * math.sin(ang + 0.45))
    shaft = _trim_end(pts, head * 0.75)
    if outline is not None:                       # solid casing; dashes show through it
        if len(shaft) >= 2:
            draw.line(shaft, fill=outline, width=width + 4, joint="curve")
        draw.polygon([tip, left, right], fill=outline)
        draw.line([tip, left, right, tip, left], fill=outline, width=4, joint="curve")
    if dashed:
        dashed_polyline(draw, shaft, fill, width, dash=10, gap=7)
    elif len(shaft) >= 2:
        draw.line(shaft, fill=fill, width=width, joint="curve")
    draw.polygon([tip, left, right], fill=fill)


def trim_path(points: list[Point], start: float, end: float) -> list[Point]:
    """Pull the first and last points of a path in toward their neighbours."""
    pts = list(points)
    if len(pts) < 2:
        return pts

    def pull(p, q, amount):
        dist = math.dist(p, q)
        if dist <= amount * 1.2:
            return p
        t = amount / dist
        return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)

    pts[0] = pull(pts[0], pts[1], start)
    pts[-1] = pull(pts[-1], pts[-2], end)
    return pts


def path_arrow(draw: ImageDraw.ImageDraw, path: list[Point], fill: Colour, *, end_gap: float,
               dot: float, dot_width: int, width: int, head: float, dashed: bool) -> None:
    """A piece's path: a dot of radius `dot` where it started, an arrow along the path whose
    head stops `end_gap` short of the last point."""
    (sx, sy), rr = path[0], dot
    draw.ellipse((sx - rr, sy - rr, sx + rr, sy + rr), fill=fill, outline=(0, 0, 0),
                 width=dot_width)
    arrow(draw, trim_path(path, 0, end_gap), fill, width=width, head=head, dashed=dashed)


def ring(draw: ImageDraw.ImageDraw, centre: Point, radius: float, fill: Colour, width: int,
         casing_width: int, casing: Colour = (255, 255, 255)) -> None:
    """A target ring: a circle in `fill` over a wider one in `casing`."""
    cx, cy = centre
    rr = radius
    draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), outline=casing, width=casing_width)
    draw.ellipse((cx - rr + 1, cy - rr + 1, cx + rr - 1, cy + rr - 1), outline=fill, width=width)


def cross(draw: ImageDraw.ImageDraw, centre: Point, size: float,
          strokes: Iterable[tuple[int, Colour]]) -> None:
    """An X over `centre`, `size` from the centre to each arm's end; `strokes` are the (width,
    colour) pairs drawn in turn, a wide casing first."""
    cx, cy = centre
    s = size
    for w, col in strokes:
        draw.line([(cx - s, cy - s), (cx + s, cy + s)], fill=col, width=w)
        draw.line([(cx - s, cy + s), (cx + s, cy - s)], fill=col, width=w)


def label_box(draw: ImageDraw.ImageDraw, text: str, fnt: ImageFont.FreeTypeFont, fill: Colour, *,
              x: float, text_y: float, top: float, bottom: float, pad: float, radius: float,
              width: int, fg: Colour = (255, 255, 255)) -> None:
    """A label: text in `fg` on a rounded box in `fill` outlined in `fg`, centred on `x`; the box
    spans `top`..`bottom` and `pad` either side of the text."""
    w = fnt.getlength(text)
    box = (x - w / 2 - pad, top, x + w / 2 + pad, bottom)
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=fg, width=width)
    draw.text((x, text_y), text, font=fnt, fill=fg, anchor="mm")


def fit_box(x0: float, x1: float, y0: float, y1: float, min_w: float,
            min_h: float) -> tuple[float, float, float, float]:
    """The box x0..x1, y0..y1 widened about its centre to at least min_w x min_h."""
    if x1 - x0 < min_w:
        c = (x0 + x1) / 2
        x0, x1 = c - min_w / 2, c + min_w / 2
    if y1 - y0 < min_h:
        c = (y0 + y1) / 2
        y0, y1 = c - min_h / 2, c + min_h / 2
    return x0, x1, y0, y1


def wave(draw: ImageDraw.ImageDraw, x0: float, x1: float, y: float, amp: float, period: float,
         fill: Colour, width: int) -> None:
    """A horizontal sine wave from x0 to x1 (water)."""
    pts, x = [], x0
    while x <= x1:
        pts.append((x, y + amp * math.sin(2 * math.pi * (x - x0) / period)))
        x += period / 8
    draw.line(pts, fill=fill, width=width, joint="curve")


def star_points(cx: float, cy: float, outer: float, inner: float | None = None,
                points: int = 5, rotation: float = -90.0) -> list[Point]:
    """Vertices of a star (first point straight up by default)."""
    inner = outer * 0.45 if inner is None else inner
    out = []
    for i in range(points * 2):
        r = outer if i % 2 == 0 else inner
        a = math.radians(rotation + i * 180.0 / points)
        out.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return out


def scale_points(points: Iterable[Point], k: float, dx: float = 0.0, dy: float = 0.0) -> list[Point]:
    return [(x * k + dx, y * k + dy) for x, y in points]


def inset_polygon(points: Sequence[Point], centre: Point, factor: float) -> list[Point]:
    """Shrink a convex polygon toward a centre (factor 1 = unchanged)."""
    cx, cy = centre
    return [(cx + (x - cx) * factor, cy + (y - cy) * factor) for x, y in points]


def downsample(image: Image.Image, factor: int) -> Image.Image:
    """Supersampled drawing -> final size (anti-aliasing for Pillow's aliased primitives)."""
    if factor == 1:
        return image
    if image.mode == "RGBA":                      # average in premultiplied alpha
        return image.convert("RGBa").reduce(factor).convert("RGBA")
    return image.reduce(factor)                   # box filter: fast, fine for 2x supersampling


def clipped_tile(width: int, height: int, background: Colour,
                 paint: Callable[[ImageDraw.ImageDraw, float, float], None],
                 outline: Callable[[float, float], list[Point]]) -> Image.Image:
    """An RGBA tile: `background`, then `paint(draw, cx, cy)` about its centre, transparent
    outside the polygon `outline(cx, cy)` (a terrain hex)."""
    cx, cy = width / 2, height / 2
    tile = Image.new("RGB", (width, height), background)
    paint(ImageDraw.Draw(tile), cx, cy)
    mask = Image.new("L", (width, height), 0)
    ImageDraw.Draw(mask).polygon(outline(cx, cy), fill=255)
    tile.putalpha(mask)
    return tile


def sprite_canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A transparent RGBA image to draw a sprite on, and its drawing context."""
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img)


def draw_hex_rulers(d: ImageDraw.ImageDraw, g: Any, cols: int, rows: int, f: ImageFont.FreeTypeFont,
                    mid: float, ink: Colour = (70, 66, 50)) -> None:
    """A CCRR hex map's rulers: column numbers above (odd columns) and below (even columns) the
    map, row numbers left (beside column 01) and right (beside the last column), `mid` pixels
    outside the map box: where hex ids are too small to read at Discord's width, a hex can still
    be found as column + row. `g` has `map_box` and `hex_center(hex_id)` (TACW's and JdG's)."""
    x0, y0, x1, y1 = g.map_box
    for c in range(1, cols + 1):
        x, _ = g.hex_center(f"{c:02d}01")
        y = y0 - mid if c % 2 else y1 + mid
        d.text((x, y), f"{c:02d}", font=f, fill=ink, anchor="mm")
    for row in range(1, rows + 1):
        _, ya = g.hex_center(f"01{row:02d}")
        _, yb = g.hex_center(f"{cols:02d}{row:02d}")
        d.text((x0 - mid, ya), f"{row:02d}", font=f, fill=ink, anchor="mm")
        d.text((x1 + mid, yb), f"{row:02d}", font=f, fill=ink, anchor="mm")


def fit_focus(g1: Any, groups: Iterable[Iterable[str]], view_r: float) -> list[str]:
    """The focus hexes that fit a crop legible at Discord's width (`view_r` hex radii wide with
    its margins, 1.25 times that high): taken in order of importance, each while it fits. `g1`
    is the map's geometry at zoom 1 (`r`, `hex_center`)."""
    r = g1.r
    max_w, max_h = (view_r - 4) * r, (1.25 * view_r - 4) * r
    hexes: list[str] = []
    box = None
    for group in groups:
        for h in group:
            x, y = g1.hex_center(h)
            nb = (x, y, x, y) if box is None else (min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y))
            if nb[2] - nb[0] <= max_w and nb[3] - nb[1] <= max_h:
                box = nb
                hexes.append(h)
    return hexes


class ScenarioKey:
    """Hashable stand-in for a scenario in an lru_cache: its id plus a digest of `parts`, which
    holds everything the cached picture draws (so an edited scenario is drawn anew)."""

    def __init__(self, scenario: Any, parts: Any):
        self.scenario = scenario
        self.key = (scenario.id, hashlib.sha1(repr(parts).encode()).hexdigest())

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScenarioKey) and other.key == self.key


def board_with_strip(board: Image.Image, flow: "FlowText",
                     background: Colour = STRIP_BG) -> Image.Image:
    """The board image with the information strip laid out by `flow` under it."""
    strip_h = flow.height()
    out = Image.new("RGB", (board.width, board.height + strip_h), background)
    out.paste(board, (0, 0))
    flow.draw(ImageDraw.Draw(out), board.height)
    return out


def side_chip(fill: Colour, name: str, fnt: ImageFont.FreeTypeFont,
              fg: Colour = STRIP_FG) -> list[tuple]:
    """FlowText items naming a side: a box in its colour, then its name."""
    return [("box", 16, 14, fill, (230, 230, 230)), ("gap", 4), ("text", name, fnt, fg)]


class FlowText:
    """Left-to-right layout of coloured text runs and small drawn items, wrapping to a width.

    Used for information strips whose content varies (titles, card names); `height` is known
    after `layout()`, before anything is drawn.
    """

    def __init__(self, width: int, line_height: int, pad_x: int = 14, gap: int = 18):
        self.width, self.line_height, self.pad_x, self.gap = width, line_height, pad_x, gap
        self.groups: list[tuple[list[tuple], bool]] = []  # (items, force_new_line)
        self._lines: list | None = None

    def add(self, items: list[tuple], new_line: bool = False) -> None:
        """A group is kept on one line: items are ("text", str, font, colour),
        ("box", w, h, fill, outline), ("flag", w, h, fill, outline), ("image", RGBA image) or
        ("gap", w). A group wider than a line is broken after its words."""
        self.groups.append((items, new_line))
        self._lines = None

    @staticmethod
    def _item_width(item: tuple) -> float:
        if item[0] == "text":
            return text_width(item[1], item[2])
        if item[0] == "image":
            return item[1].width
        return item[1]

    def _atoms(self) -> list[tuple[list[tuple], bool, bool]]:
        """The groups, with each group wider than a line split into words (its text runs cut
        after each space; other items stay whole), so no line is ever cut off."""
        out: list[tuple[list[tuple], bool, bool]] = []     # (items, new line, glued to the next)
        room = self.width - 2 * self.pad_x
        for items, new_line in self.groups:
            if sum(self._item_width(i) for i in items) <= room:
                out.append((items, new_line, False))
                continue
            parts = []
            for item in items:
                if item[0] == "text":
                    parts += [("text", w) + tuple(item[2:]) for w in re.split(r"(?<= )", item[1]) if w]
                else:
                    parts.append(item)
            for n, part in enumerate(parts):
                out.append(([part], new_line and n == 0, n < len(parts) - 1))
        return out

    def layout(self) -> list[list[tuple[float, list[tuple]]]]:
        """Lines of (x, items); the words of a broken group that end on one line are one run
        again (one text to draw)."""
        if self._lines is not None:
            return self._lines
        lines: list[list[tuple[float, list[tuple]]]] = [[]]
        x = self.pad_x
        prev_glued = False
        for items, new_line, glued in self._atoms():
            w = sum(self._item_width(i) for i in items)
            if lines[-1] and (new_line or x + w > self.width - self.pad_x):
                lines.append([])
                x = self.pad_x
                prev_glued = False
            last = lines[-1][-1] if lines[-1] else None
            if (prev_glued and last is not None and len(last[1]) == 1 and len(items) == 1
                    and last[1][0][0] == items[0][0] == "text" and last[1][0][2:] == items[0][2:]):
                run = last[1][0]
                lines[-1][-1] = (last[0], [("text", run[1] + items[0][1]) + tuple(run[2:])])
            else:
                lines[-1].append((x, items))
            x += w + (0 if glued else self.gap)
            prev_glued = glued
        self._lines = lines
        return lines

    def height(self) -> int:
        return len(self.layout()) * self.line_height + 12

    def draw(self, draw: ImageDraw.ImageDraw, top: int) -> None:
        for n, line in enumerate(self.layout()):
            mid = top + 6 + n * self.line_height + self.line_height / 2
            for x, items in line:
                for item in items:
                    if item[0] == "text":
                        cached_text(draw, (x, mid), item[1], item[2], item[3], anchor="lm")
                    elif item[0] == "box":
                        _, w, h, fill, outline = item
                        draw.rectangle((x + 1, mid - h / 2, x + w - 3, mid + h / 2),
                                       fill=fill, outline=outline, width=2)
                    elif item[0] == "image":
                        im = item[1]
                        draw._image.paste(im, (int(round(x)), int(round(mid - im.height / 2))),
                                          im if im.mode == "RGBA" else None)
                    elif item[0] == "flag":
                        _, w, h, fill, outline = item
                        pole = x + 2
                        draw.line([(pole, mid - h / 2), (pole, mid + h / 2)], fill=outline, width=2)
                        draw.polygon([(pole + 1, mid - h / 2), (x + w - 3, mid - h / 2 + h * 0.22),
                                      (pole + 1, mid - h / 2 + h * 0.5)],
                                     fill=fill, outline=outline)
                    x += self._item_width(item)
