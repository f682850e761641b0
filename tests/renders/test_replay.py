"""renders/replay.py: the animated replay GIF (issue 5, History). Synthetic boards (flat colours,
so every colour is in the palette exactly) check the writer pixel by pixel: what a GIF decoder
composes from the delta frames is the board as drawn; the real renderers are checked for the
public view and the width."""
from __future__ import annotations

import io
import random

from PIL import Image, ImageChops, ImageDraw, ImageSequence

from renders.replay import (LAST_HOLD_MS, MAX_WIDTH, Frame, board_image, frame_time, printable,
                            replay_gif)

GREEN, RED, BLUE, DARK = (200, 220, 180), (180, 30, 30), (30, 60, 170), (35, 38, 43)


def synthetic(state: int, strip_lines: int | None = None) -> Image.Image:
    """A 400 px board: a red counter moved one step per state, a blue one fixed, and a dark
    strip whose height changes with the state (as an information strip's lines do)."""
    lines = (state % 2 + 1) if strip_lines is None else strip_lines
    h = 300 + 20 * lines
    im = Image.new("RGB", (400, h), GREEN)
    d = ImageDraw.Draw(im)
    d.rectangle([20 + state * 30, 50, 60 + state * 30, 90], fill=RED)
    d.rectangle([300, 200, 340, 240], fill=BLUE)
    d.rectangle([0, 300, 400, h], fill=DARK)
    return im


def decoded(gif: bytes) -> tuple[list[Image.Image], list[int], Image.Image]:
    """The frames as a viewer shows them (deltas composed), their durations, the file's image."""
    im = Image.open(io.BytesIO(gif))
    frames, durations = [], []
    for frame in ImageSequence.Iterator(im):
        frames.append(frame.convert("RGB"))
        durations.append(frame.info["duration"])
    return frames, durations, im


def frame_box(gif: bytes, index: int) -> tuple[int, int, int, int]:
    """The rectangle a frame of the file stores (a fresh decoder: nothing loaded yet)."""
    im = Image.open(io.BytesIO(gif))
    im.seek(index)
    return im.tile[0].extents


def test_every_frame_decodes_to_its_board_and_identical_frames_merge():
    states = [0, 0, 1, 2, 3]
    made = replay_gif("synthetic", None, [Frame(s, f"board {s}") for s in states],
                      render=synthetic, frame_ms=500)
    frames, durations, im = decoded(made.gif)
    assert im.format == "GIF" and im.info["loop"] == 0
    assert made.frames == 4 == len(frames) and made.actions == 5 and made.stride == 1
    # the first board is shown twice as long (two actions), the last held
    assert durations == [1000, 500, 500, 500 + LAST_HOLD_MS]
    for frame, state in zip(frames, [0, 1, 2, 3]):
        board = synthetic(state)
        # the board area, top-aligned and unscaled (400 px < MAX_WIDTH): exactly the colours drawn
        assert ImageChops.difference(frame.crop((0, 0, 400, board.height)), board).getbbox() is None
        # below a shorter strip the frame is padded with the strip's colour
        assert frame.getpixel((10, 339)) == DARK
    # a later frame stores only the rectangle that changed: from the red counter's old and new
    # places (x 20-90, from y 50) down to the caption's last word
    x0, y0, x1, y1 = frame_box(made.gif, 1)
    assert (x0, y0) == (20, 50) and x1 <= 100 and y1 > 340


def test_the_map_does_not_move_when_the_strip_grows():
    """Boards of different heights share one canvas and one scale: the unchanged map gives the
    same pixels (so the delta frames stay small), even when scaled down."""
    def wide(state):         # a 1600 px map, its strip one line taller in odd states
        h = 1200 + 80 * (state % 2 + 1)
        im = Image.new("RGB", (1600, h), GREEN)
        d = ImageDraw.Draw(im)
        d.rectangle([80 + state * 120, 800, 240 + state * 120, 960], fill=RED)
        d.rectangle([0, 1200, 1600, h], fill=DARK)
        return im
    made = replay_gif("synthetic", None, [Frame(0), Frame(1)], render=wide, frame_ms=300)
    frames, _, im = decoded(made.gif)
    assert made.width == MAX_WIDTH and frames[0].width == MAX_WIDTH and made.frames == 2
    assert frame_box(made.gif, 1)[1] >= 470            # nothing above the counter (y 800 of 1600 px) is stored
    top0, top1 = frames[0].crop((0, 0, MAX_WIDTH, 470)), frames[1].crop((0, 0, MAX_WIDTH, 470))
    assert ImageChops.difference(top0, top1).getbbox() is None


def test_a_replay_over_the_budget_is_drawn_narrower_then_with_fewer_frames():
    def noisy(state):        # incompressible boards, a new one each action
        return Image.frombytes("RGB", (300, 220), random.Random(state).randbytes(300 * 220 * 3))
    frames = [Frame(i, f"#{i}") for i in range(30)]
    big = replay_gif("synthetic", None, frames, render=noisy, frame_ms=250)
    assert big.size > 1_000_000 and big.width == 300 and big.attempts == 1
    small = replay_gif("synthetic", None, frames, render=noisy, frame_ms=250, max_bytes=300_000,
                       min_width=200)
    assert small.size <= 300_000 and small.attempts > 1
    assert small.width == 200 and small.stride > 1          # narrower first, down to min_width
    # then one action in k, always with the last board
    assert small.frames == len(range(0, 30, small.stride)) + (29 % small.stride != 0)
    frames_seen, _, _ = decoded(small.gif)
    assert len(frames_seen) == small.frames


def test_frame_time_spreads_two_minutes_and_stays_readable():
    assert frame_time(1) == 800 and frame_time(150) == 800
    assert frame_time(421) == 280                 # a whole Edgehill: ~2 minutes
    assert frame_time(5000) == 250


def test_captions_drop_what_the_font_cannot_draw():
    assert printable("ui1 battles: 🐎 miss, ⚔️ hit  ->  1 hit") == "ui1 battles: miss, ⚔ hit -> 1 hit"


def test_the_real_boards_are_the_public_view():
    """Battle Cry: the board of a replay lists no hand (viewer None), unlike a player's own."""
    from engine.core.game import Game
    from renders.battlecry import render_board_image
    g = Game.new("battlecry", "first-bull-run", 7)
    public = board_image("battlecry", g.scenario, g.state)
    assert ImageChops.difference(public, render_board_image(g.scenario, g.state)).getbbox() is None
    own = render_board_image(g.scenario, g.state, viewer="union")
    assert own.height > public.height              # a player's own board adds a line: the hand
    made = replay_gif("battlecry", g.scenario, [Frame(g.state, "#0 opening")])
    frames, durations, _ = decoded(made.gif)
    assert len(frames) == 1 and durations == [frame_time(1) + LAST_HOLD_MS]
    assert frames[0].width == min(MAX_WIDTH, public.width)


def test_a_board_about_twice_the_width_is_halved_by_pixel_averaging():
    """TACW's 1859 px map: an integer reduction to 930 px (faster than a resize, under
    MAX_WIDTH); the counter's colour survives exactly where it covers whole 2x2 blocks."""
    def tacw_like(state):
        im = Image.new("RGB", (1859, 1500), GREEN)
        ImageDraw.Draw(im).rectangle([100 + 40 * state, 100, 199 + 40 * state, 199], fill=RED)
        return im
    made = replay_gif("synthetic", None, [Frame(0), Frame(1)], render=tacw_like, frame_ms=300)
    frames, _, _ = decoded(made.gif)
    assert made.width == 930 == frames[0].width
    assert frames[0].getpixel((75, 75)) == RED and frames[1].getpixel((75, 75)) == RED
    assert frames[0].getpixel((10, 10)) == GREEN


def test_a_past_board_carries_its_caption_under_the_board_as_drawn():
    """/game board at: — the image itself names the point; the board above is untouched."""
    from renders.common import encode_png
    from renders.replay import captioned_png
    board = synthetic(2)
    png = encode_png(board)
    short = Image.open(io.BytesIO(captioned_png(png, "Game #1, after log entry #3"))).convert("RGB")
    long = Image.open(io.BytesIO(captioned_png(png, "Game #1, after log entry #3\n" + "word " * 200))).convert("RGB")
    for out in (short, long):
        assert out.width == board.width and out.height > board.height
        assert ImageChops.difference(out.crop((0, 0, 400, board.height)), board).getbbox() is None
        band = out.crop((0, board.height + 1, out.width, out.height)).convert("L")
        assert band.point(lambda v: 255 if v > 200 else 0).getbbox() is not None       # text drawn
    assert short.height < long.height <= board.height + 4 * 30                        # at most 3 lines
