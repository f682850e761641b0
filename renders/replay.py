"""Animated replays (issue 5, Club play "History"): the public board after each action of a game,
as one GIF sized for Discord.

The frames are the ruleset renderer's own boards, drawn for viewer None: the channel's view, so
a Battle Cry hand is never drawn and TACW's secret boat bridge stays river until it is revealed.
A renderer with `render_replay_image(scenario, state, width=)` (TACW) draws its board directly at
the GIF's width (issue 13: no full-size board to shrink); otherwise its `render_board_image` (or
its PNG `render_board`) is scaled to at most MAX_WIDTH px. Each board gets a one-line caption
under it (the action's public narrative). Neither the renderer nor this module decides a rule:
the caller hands over the states and the captions (bot/history.py replays them from the command
log).

Speed (issue 13): a replay of POOL_MIN_FRAMES boards or more is drawn in the render pool
(renders/pool.py), CHUNK consecutive boards per task, each worker returning its frames already
encoded as GIF changes (a chunk also draws the board before it); the file is written in order as
chunks come back, one chunk per worker in flight, and `progress(done, total)` is called after
each. Its width (and, only if even MIN_WIDTH would not fit, its stride) is planned first from
PROBES pairs of consecutive boards spread over the game, so that it is encoded once.

Size (Discord: 25 MiB on most servers, 10 MiB on unboosted ones, 8 MiB on old clients and
bots; MAX_BYTES keeps under the last with a margin, so a replay posts anywhere): every frame is mapped to ONE global
palette of 255 colours chosen from the first and the last boards (the 256th index is the
transparent one); each later frame is stored as the rectangle that changed since the one before,
its unchanged pixels transparent, and a frame identical to the one before only lengthens it. The
writer streams, one frame in memory at a time. When the file would pass the budget (projected from
the frames so far), the boards are drawn narrower, down to MIN_WIDTH, and only as a last resort is
one action in k kept (the result says which, so the caller can say so).

Timing: one frame per action, FRAME_TOTAL_MS spread over the actions (between MIN_FRAME_MS and
MAX_FRAME_MS each), and a LAST_HOLD_MS hold on the final board. Figures for whole games:
bench/replay_bench.py.
"""
from __future__ import annotations

import collections
import io
import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from PIL import GifImagePlugin, Image, ImageChops, ImageDraw

from .common import STRIP_BG, STRIP_DIM, STRIP_FG, encode_png, font

log = logging.getLogger(__name__)
from . import board_module

MAX_BYTES = 8 * 1024 * 1024 - 512 * 1024     # under every Discord upload limit, with room for the message
MAX_WIDTH = 960                              # wide enough to read a hex id, small enough for a phone
MIN_WIDTH = 480
FRAME_TOTAL_MS = 120_000                     # a whole battle plays in about two minutes
MIN_FRAME_MS, MAX_FRAME_MS = 250, 800
LAST_HOLD_MS = 3000
COLOURS = 255                                # palette colours; index 255 is transparent
TRANSPARENT = 255
CHECK_AFTER = 12                             # frames written before the size is projected

_ZERO_IS_UNCHANGED = [255] + [0] * 255       # difference 0 -> "1" mask set (pixel unchanged)
_NO_TRANSPARENT = list(range(255)) + [0]     # index 255 (padding) -> 0 (same colour)


@dataclass(frozen=True)
class Frame:
    """One board of the replay: the state after an action, and what the caption says."""
    state: Any
    caption: str = ""


@dataclass(frozen=True)
class Replay:
    """The GIF and how it was made."""
    gif: bytes
    width: int
    height: int
    frames: int             # frames in the file (identical consecutive boards are one frame)
    actions: int            # boards asked for
    stride: int             # 1: every board; k: one board in k was kept (size budget)
    frame_ms: int
    seconds: float          # time taken to draw and encode
    attempts: int           # encodings tried (a narrower one after each over the budget)

    @property
    def size(self) -> int:
        return len(self.gif)


class _TooBig(Exception):
    def __init__(self, projected: float):
        super().__init__(f"projected {projected:.0f} bytes")
        self.projected = projected


def frame_time(actions: int) -> int:
    """Milliseconds per frame for a replay of `actions` boards (multiple of 10: GIF centiseconds)."""
    ms = FRAME_TOTAL_MS // max(1, actions)
    return int(min(MAX_FRAME_MS, max(MIN_FRAME_MS, ms)) // 10 * 10)


def board_image(ruleset_id: str, scenario: Any, state: Any, width: int | None = None) -> Image.Image:
    """The channel's (public) board of `state` as an RGB image, from the ruleset's renderer: its
    `render_replay_image(scenario, state, width=)` when it has one and `width` is given (a board
    drawn directly at the GIF's width: TACW), else its full board."""
    module = board_module(ruleset_id)
    replay_fn = getattr(module, "render_replay_image", None)
    if replay_fn is not None and width is not None:
        return replay_fn(scenario, state, width=width).convert("RGB")
    fn = getattr(module, "render_board_image", None)
    if fn is not None:
        return fn(scenario, state, viewer=None, size="full").convert("RGB")
    with Image.open(io.BytesIO(module.render_board(scenario, state, viewer=None, size="full"))) as im:
        return im.convert("RGB")


def printable(text: str) -> str:
    """The caption as the bundled font can draw it: no emoji (astral plane, variation selectors,
    joiners), one line."""
    kept = "".join(ch for ch in text if ord(ch) <= 0xFFFF and ord(ch) not in (0xFE0F, 0x200D))
    return " ".join(kept.split())


class _Layout:
    """Where a board goes in a frame of a fixed size: on a canvas of one size (in the renderer's
    pixels, top-aligned, the strip area padded), scaled by one factor to `width`, the caption band
    at the bottom. One canvas and one factor for every frame: an unchanged area of the map gives
    the same pixels in every frame, whatever the height of the information strip."""

    def __init__(self, width: int, board_height: int, source_width: int):
        self.requested = width
        self.source_width = source_width
        # boards of one game differ in height only by their information strip's lines: leave
        # room for two more lines than the tallest of the first and last boards
        self.canvas_h = board_height + 2 * 22
        # an integer reduction (pixel averaging, ~4x faster than a resize) when it lands within
        # 10% under the width asked for: TACW's 1859 px map -> 930 px
        k = math.ceil(source_width / width)
        self.reduce = k if k >= 2 and -(-source_width // k) >= 0.9 * width else 0
        if source_width <= width:         # drawn at the width asked (render_replay_image)
            self.reduce, k = 0, 1
        self.width = -(-source_width // k) if self.reduce else min(width, source_width)
        self.board_h = (-(-self.canvas_h // k) if self.reduce
                        else max(1, round(self.canvas_h * self.width / source_width)))
        self.caption_h = max(16, round(self.width * 0.024))
        self.font = font(max(10, round(self.caption_h * 0.62)))
        self.height = self.board_h + self.caption_h

    def scaled(self, board: Image.Image) -> Image.Image:
        canvas = Image.new("RGB", (self.source_width, self.canvas_h), STRIP_BG)
        if board.width != self.source_width or board.height > self.canvas_h:   # fit, never crop
            k = min(self.source_width / board.width, self.canvas_h / board.height)
            board = board.resize((max(1, round(board.width * k)), max(1, round(board.height * k))),
                                 Image.Resampling.BOX)
        canvas.paste(board, (0, 0))
        if self.reduce:
            return canvas.reduce(self.reduce)
        if canvas.width == self.width:
            return canvas
        return canvas.resize((self.width, self.board_h), Image.Resampling.BOX)

    def frame(self, board: Image.Image, caption: str) -> Image.Image:
        out = Image.new("RGB", (self.width, self.height), STRIP_BG)
        out.paste(self.scaled(board), (0, 0))
        d = ImageDraw.Draw(out)
        y = self.board_h
        d.line([(0, y), (self.width, y)], fill=STRIP_DIM, width=1)
        text = printable(caption)
        room = self.width - 16
        if self.font.getlength(text) > room:
            lo, hi = 0, len(text)                 # the longest prefix that fits with the ellipsis
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self.font.getlength(text[:mid] + "…") <= room:
                    lo = mid
                else:
                    hi = mid - 1
            text = text[:lo].rstrip() + "…"
        d.text((8, y + (self.caption_h - self.font.size) // 2 - 1), text, font=self.font, fill=STRIP_FG)
        return out


class _GifStream:
    """A GIF89a written as it goes: one global palette, looping, every frame after the first
    stored as its changed rectangle with the unchanged pixels transparent."""

    def __init__(self, size: tuple[int, int], palette: bytes):
        self.size = size
        self.out = io.BytesIO()
        w, h = size
        self.out.write(b"GIF89a" + _u16(w) + _u16(h) + bytes([0xF7, 0, 0]) + palette)
        self.out.write(b"!\xff\x0bNETSCAPE2.0\x03\x01" + _u16(0) + b"\x00")   # loop for ever
        self.prev: Image.Image | None = None
        self.pending: list | None = None       # [transparent?, chunks, ms] of the last frame
        self.frames = 0

    def add(self, indices: Image.Image, ms: int) -> None:
        """Add a frame given as an "L" image of palette indices (0..254)."""
        self.put(_delta(self.prev, indices), ms)
        self.prev = indices

    def put(self, encoded: tuple[bool, list[bytes]] | None, ms: int) -> None:
        """Add a frame encoded by `_delta` (None: the same board as the frame before)."""
        if encoded is None:                    # the same board: the frame before lasts longer
            self.pending[2] += ms
            return
        transparent, chunks = encoded
        self._flush()
        self.pending = [transparent, chunks, ms]
        self.frames += 1

    def hold(self, ms: int) -> None:
        if self.pending is not None:
            self.pending[2] += ms

    def tell(self) -> int:
        pending = sum(len(c) for c in self.pending[1]) + 8 if self.pending else 0
        return self.out.tell() + pending

    def _flush(self) -> None:
        if self.pending is None:
            return
        transparent, chunks, ms = self.pending
        cs = max(1, round(ms / 10))
        # graphic control: disposal 1 (leave the frame in place), delay, transparency
        self.out.write(b"!\xf9\x04" + bytes([(1 << 2) | (1 if transparent else 0)]) + _u16(cs)
                       + bytes([TRANSPARENT if transparent else 0, 0]))
        for c in chunks:
            self.out.write(c)
        self.pending = None

    def close(self) -> bytes:
        self._flush()
        self.out.write(b";")
        return self.out.getvalue()


def _delta(prev: Image.Image | None, indices: Image.Image) -> tuple[bool, list[bytes]] | None:
    """A frame's GIF data: the whole frame (no `prev`), else the rectangle that changed since
    `prev` with its unchanged pixels transparent; None when nothing changed."""
    if prev is None:
        return False, GifImagePlugin.getdata(indices, (0, 0))
    diff = ImageChops.difference(prev, indices)
    box = diff.getbbox()
    if box is None:
        return None
    part = indices.crop(box)
    part.paste(TRANSPARENT, box=(0, 0), mask=diff.crop(box).point(_ZERO_IS_UNCHANGED, "1"))
    return True, GifImagePlugin.getdata(part, box[:2])


def _u16(v: int) -> bytes:
    return int(v).to_bytes(2, "little")


def _palette(images: Sequence[Image.Image]) -> tuple[Image.Image, bytes]:
    """One palette of COLOURS colours for the whole replay, from sample frames (the first and
    the last), padded to 256 entries; the padding index is never used by a pixel."""
    h = sum(im.height for im in images)
    sample = Image.new("RGB", (images[0].width, h))
    y = 0
    for im in images:
        sample.paste(im, (0, y))
        y += im.height
    chosen = sample.quantize(COLOURS, method=Image.Quantize.FASTOCTREE)
    rgb = (chosen.getpalette() or [])[: 3 * COLOURS]
    rgb += rgb[:3] * ((768 - len(rgb)) // 3)            # pad with the first colour
    pal = Image.new("P", (1, 1))
    pal.putpalette(rgb)
    return pal, bytes(rgb)


def _palette_image(rgb: bytes) -> Image.Image:
    pal = Image.new("P", (1, 1))
    pal.putpalette(list(rgb))
    return pal


def _indices(frame: Image.Image, pal: Image.Image) -> Image.Image:
    """The frame's nearest palette index per pixel (no dithering: the same pixel always maps to
    the same index, so unchanged areas stay unchanged), as an "L" image."""
    mapped = frame.quantize(palette=pal, dither=Image.Dither.NONE)
    return Image.frombytes("L", mapped.size, mapped.tobytes()).point(_NO_TRANSPARENT)


def _encode(render: Callable[[Any], Image.Image], frames: Sequence[Frame], picks: list[int],
            layout: _Layout, samples: dict[int, Image.Image], pal: Image.Image, rgb: bytes, ms: int,
            hold_ms: int, max_bytes: int, progress: Progress | None) -> tuple[bytes, int]:
    """The GIF drawn in this process, one board after the other."""
    gif = _GifStream((layout.width, layout.height), rgb)
    base = 0
    for n, i in enumerate(picks):
        board = samples.get(i)
        if board is None:
            board = render(frames[i].state)
        gif.add(_indices(layout.frame(board, frames[i].caption), pal), ms)
        if progress is not None:
            progress(n + 1, len(picks))
        if n == 0:
            base = gif.tell()
            continue
        _check_size(gif, base, n, len(picks), max_bytes)
    return _close(gif, hold_ms, max_bytes)


def _check_size(gif: _GifStream, base: int, n: int, count: int, max_bytes: int) -> None:
    """Raise _TooBig once the file, projected from the `n` frames after the first, passes the
    budget."""
    written = gif.tell()
    if written > max_bytes or n >= CHECK_AFTER:
        projected = written + (written - base) / n * (count - 1 - n)
        if projected > max_bytes:
            raise _TooBig(projected)


def _close(gif: _GifStream, hold_ms: int, max_bytes: int) -> tuple[bytes, int]:
    gif.hold(hold_ms)
    data = gif.close()
    if len(data) > max_bytes:
        raise _TooBig(len(data))
    return data, gif.frames


@dataclass(frozen=True)
class _Chunk:
    """Consecutive boards of a replay for a worker: states as their ruleset's dicts (the first
    one only the board before, when `has_prev`: what the first frame is a change from)."""
    ruleset_id: str
    scenario_id: str | None
    scenario: Any
    items: list                 # (state, caption): the state pickled as it is (~8x cheaper
    # than the ruleset's dict and back), or its dict
    has_prev: bool
    layout: tuple[int, int, int]      # _Layout(width, board_height, source_width)
    board_width: int | None
    palette: bytes


def _draw_chunk(chunk: _Chunk) -> list:
    """In a worker: the `_delta` of each board of the chunk (after the board before)."""
    from engine.core.game import rulesets
    from .pool import resolve_scenario
    rs = rulesets(include_unfinished=True)[chunk.ruleset_id]
    scenario = resolve_scenario(chunk.ruleset_id, chunk.scenario_id, chunk.scenario)
    layout = _Layout(*chunk.layout)
    pal = _palette_image(chunk.palette)
    prev, out = None, []
    for n, (state, caption) in enumerate(chunk.items):
        if isinstance(state, dict):
            state = rs.state_from_dict(state)
        board = board_image(chunk.ruleset_id, scenario, state, chunk.board_width)
        indices = _indices(layout.frame(board, caption), pal)
        if not (n == 0 and chunk.has_prev):
            out.append(_delta(prev, indices))
        prev = indices
    return out


def _encode_pooled(pool: Any, ruleset_id: str, scenario: Any, frames: Sequence[Frame],
                   picks: list[int], layout: _Layout, board_width: int | None, rgb: bytes,
                   ms: int, hold_ms: int, max_bytes: int, progress: Progress | None) -> tuple[bytes, int]:
    """The GIF with its boards drawn in the render pool's workers, CHUNK consecutive boards at a
    time (each chunk also draws the board before it, which its first frame is a change from),
    written in order as the chunks come back."""
    from engine.core.game import rulesets
    from .pool import scenario_ref
    rs = rulesets(include_unfinished=True)[ruleset_id]
    sid, sobj = scenario_ref(rs, scenario)
    args = (layout.requested, layout.canvas_h - 2 * 22, layout.source_width)

    def chunks():
        for k in range(0, len(picks), CHUNK):
            group = picks[k:k + CHUNK]
            lead = [picks[k - 1]] if k else []
            items = [(frames[i].state, frames[i].caption) for i in lead + group]
            yield _Chunk(ruleset_id, sid, sobj, items, bool(lead), args, board_width, rgb)

    # one chunk per worker in flight, and one more queued: a board after an action, drawn by the
    # same pool meanwhile, waits behind a chunk or two, not behind the whole replay
    todo, futures = chunks(), collections.deque()

    def refill() -> None:
        while len(futures) < getattr(pool, "workers", 1) + 1:
            spec = next(todo, None)
            if spec is None:
                return
            futures.append(pool.submit_call(_draw_chunk, spec))

    refill()
    gif = _GifStream((layout.width, layout.height), rgb)
    base, done = 0, 0
    try:
        while futures:
            f = futures.popleft()
            encoded_frames = f.result()
            refill()
            for encoded in encoded_frames:
                gif.put(encoded, ms)
                if done == 0:
                    base = gif.tell()
                done += 1
            if progress is not None:
                progress(done, len(picks))
            if done > 1:
                _check_size(gif, base, done - 1, len(picks), max_bytes)
    finally:
        for f in futures:
            f.cancel()
    return _close(gif, hold_ms, max_bytes)


PROBES = 20                 # pairs of boards drawn to plan a long replay's width and stride


def _plan(pool: Any, ruleset_id: str, scenario: Any, frames: Sequence[Frame], width: int,
          min_width: int, max_bytes: int, prepared: tuple) -> tuple[int, int]:
    """(width, stride) under which a long replay should fit `max_bytes`: its size projected from
    the first frame and the changes between PROBES pairs of consecutive boards spread over the
    game (drawn in the pool, in parallel), the bytes taken to go as the area (width squared).
    A guess: the encoding still checks the budget as it goes (_TooBig)."""
    from engine.core.game import rulesets
    from .pool import scenario_ref
    board_width, first, _, layout, pal, rgb = prepared
    rs = rulesets(include_unfinished=True)[ruleset_id]
    sid, sobj = scenario_ref(rs, scenario)
    args = (layout.requested, layout.canvas_h - 2 * 22, layout.source_width)
    n = len(frames)
    starts = sorted({round(k * (n - 2) / (PROBES - 1)) for k in range(PROBES)})
    futures = [pool.submit_call(_draw_chunk, _Chunk(
        ruleset_id, sid, sobj, [(frames[i].state, frames[i].caption),
                                (frames[i + 1].state, frames[i + 1].caption)],
        True, args, board_width, rgb)) for i in starts]
    head = sum(len(c) for c in _delta(None, _indices(layout.frame(first, frames[0].caption), pal))[1])
    deltas = []
    for f in futures:
        [encoded] = f.result()
        deltas.append(sum(len(c) for c in encoded[1]) + 10 if encoded else 0)
    budget = 0.7 * max_bytes           # the projection errs by up to ~30%: a margin, no retry
    # the mean change without the largest and the smallest (one busy moment sways a mean)
    kept = sorted(deltas)[1:-1] if len(deltas) > 4 else deltas
    projected = 800 + head + sum(kept) / len(kept) * (n - 1)
    log.debug("replay plan at %d px: first frame %d bytes, changes %s, projected %d", width, head,
              deltas, projected)
    if projected <= budget:
        return width, 1
    fit = int(width * math.sqrt(budget / projected))
    if fit >= min_width:
        return fit, 1
    at_min = projected * (min_width / width) ** 2
    return min_width, max(1, math.ceil(at_min * 1.2 / budget))


Progress = Callable[[int, int], None]
POOL_MIN_FRAMES = 40        # fewer boards are drawn in this process (no worker start-up)
CHUNK = 24                  # boards per worker task


def replay_gif(ruleset_id: str, scenario: Any, frames: Sequence[Frame], *,
               max_width: int = MAX_WIDTH, max_bytes: int = MAX_BYTES, frame_ms: int | None = None,
               hold_ms: int = LAST_HOLD_MS, min_width: int = MIN_WIDTH,
               render: Callable[[Any], Image.Image] | None = None,
               progress: Progress | None = None, pool: Any = None) -> Replay:
    """The GIF of `frames` (one per action, in order), under `max_bytes`.

    `render(state) -> RGB image` defaults to the ruleset's public board: drawn at the GIF's width
    when the renderer can (`render_replay_image`: TACW), else its full board scaled. A replay of
    POOL_MIN_FRAMES boards or more is drawn in the render pool (`pool`, default the shared one
    of renders/pool.py; False: in this process), boards in parallel. `progress(done, total)`
    is called, from the calling thread, as boards are done. CPU-bound (bench/replay_bench.py):
    call it via `asyncio.to_thread` from the bot."""
    if not frames:
        raise ValueError("a replay needs at least one board")
    started = time.perf_counter()
    sized = False
    if render is None:
        try:
            sized = hasattr(board_module(ruleset_id), "render_replay_image")
        except ImportError:
            sized = False
    use_pool = render is None and pool is not False and len(frames) >= POOL_MIN_FRAMES
    if use_pool and pool is None:
        from .pool import shared_pool
        pool = shared_pool()
    ms = frame_ms or frame_time(len(frames))
    cache: dict[tuple[int, int | None], Image.Image] = {}

    def draw_at(state: Any, board_width: int | None) -> Image.Image:
        if render is not None:
            return render(state)
        return board_image(ruleset_id, scenario, state, board_width)

    def sample(i: int, board_width: int | None) -> Image.Image:
        if (i, board_width) not in cache:
            cache[(i, board_width)] = draw_at(frames[i].state, board_width)
        return cache[(i, board_width)]

    last_i = len(frames) - 1
    width = max_width if sized else min(max_width, sample(0, None).width)
    stride, attempts = 1, 0

    def prepare(width: int):
        board_width = width - 1 if sized else None       # drawn at most `width` px wide
        first, last = sample(0, board_width), sample(last_i, board_width)
        layout = _Layout(width, max(first.height, last.height), first.width)
        pal, rgb = _palette([layout.frame(first, frames[0].caption),
                             layout.frame(last, frames[last_i].caption)])
        return board_width, first, last, layout, pal, rgb

    if use_pool and len(frames) > PROBES:   # the width and stride that fit, from a few boards
        try:
            width, stride = _plan(pool, ruleset_id, scenario, frames, width, min_width, max_bytes,
                                  prepare(width))
        except Exception:                   # the encoding below finds them the slow way
            log.warning("replay size plan failed", exc_info=True)
    while True:
        attempts += 1
        picks = list(range(0, len(frames), stride))
        if picks[-1] != last_i:
            picks.append(last_i)
        board_width, first, last, layout, pal, rgb = prepare(width)
        try:
            data = None
            if use_pool:
                try:
                    data, count = _encode_pooled(pool, ruleset_id, scenario, frames, picks, layout,
                                                 board_width, rgb, ms, hold_ms, max_bytes, progress)
                except _TooBig:
                    raise
                except Exception:           # e.g. a state that cannot be pickled: draw here
                    log.warning("replay boards could not be drawn in the pool; drawing here",
                                exc_info=True)
                    use_pool = False
            if data is None:
                samples = {0: first, last_i: last}
                data, count = _encode(lambda st: draw_at(st, board_width), frames, picks, layout,
                                      samples, pal, rgb, ms, hold_ms, max_bytes, progress)
        except _TooBig as big:
            ratio = max_bytes / big.projected
            if width > min_width:          # narrower first: the area (and the bytes) go as width^2
                width = max(min_width, min(int(width * 0.9), int(width * math.sqrt(ratio) * 0.95)))
            elif len(picks) > 2:           # then fewer frames
                stride = max(stride + 1, math.ceil(stride / ratio * 1.1))
            else:
                raise ValueError(f"even two boards at {width} px pass {max_bytes} bytes") from None
            continue
        return Replay(data, layout.width, layout.height, count, len(frames), stride, ms,
                      time.perf_counter() - started, attempts)


def _wrap(text: str, fnt: Any, room: float, max_lines: int) -> list[str]:
    """`text` in lines of at most `room` px, at most `max_lines` (the last ends with '…' if cut)."""
    lines: list[str] = []
    words = text.split()
    while words and len(lines) < max_lines:
        line = words.pop(0)
        while words and fnt.getlength(line + " " + words[0]) <= room:
            line += " " + words.pop(0)
        lines.append(line)
    if words:
        last = lines[-1]
        while last and fnt.getlength(last + " …") > room:
            last = last[:-1]
        lines[-1] = last.rstrip() + " …"
    return lines


def captioned_png(png: bytes, caption: str, max_lines: int = 3) -> bytes:
    """A board PNG with a caption band under it, so the image itself says which point of the
    game it shows (/game board at: or turn:); the board above is left as drawn."""
    with Image.open(io.BytesIO(png)) as im:
        board = im.convert("RGB")
    size = max(12, round(board.width * 0.0125))
    fnt = font(size)
    lines = [ln for part in caption.splitlines() if (t := printable(part))
             for ln in _wrap(t, fnt, board.width - 2 * size, max_lines)][:max_lines]
    pad = size // 2
    band = pad * 2 + len(lines) * round(size * 1.35)
    out = Image.new("RGB", (board.width, board.height + band), STRIP_BG)
    out.paste(board, (0, 0))
    d = ImageDraw.Draw(out)
    d.line([(0, board.height), (board.width, board.height)], fill=STRIP_DIM, width=1)
    y = board.height + pad
    for line in lines:
        d.text((size, y), line, font=fnt, fill=STRIP_FG)
        y += round(size * 1.35)
    return encode_png(out)
