"""Jours de Gloire board renderer (renders/jdg.py): pixels that must (and must not) appear.

Uses Marengo (engine/jdg/scenarios/marengo.toml, 32 x 24 flat-top hexes): the French on the east
of the Fontanone facing West, the Austrians out of the bridgehead facing East. The state is the
scenario's setup (engine/jdg/setup.py `new_state`), edited by hand: the tests read the renderer,
not the rules.

Speed, measured on the development machine (2 cores) by `test_bench_print` (printed with -s,
not asserted): the full map ~0.45 s the first time (the terrain layer drawn once per scenario),
then ~150 ms (draw and encode, 1,595 x ~2,300 px, ~220 KiB); a crop around the last action
~60-80 ms once its tiles are cached (~90 KiB); the overview of a crop with nothing in focus
~120 ms (1,100 px wide, ~140 KiB).
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from engine.jdg.scenario import load_scenario
from engine.jdg.setup import new_state
from engine.jdg.state import Activation
from renders import jdg
from renders.jdg_art import COUNTER_HALF, NOSE, SIDE_BACK, SIDE_BODY, TAGS

TOL = 10
LONE_FRENCH = "f-28e"          # 2011, alone, facing W
LONE_AUSTRIAN = "a-ir53"       # 0211, alone, facing E
EMPTY = "2520"                 # clear, empty


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("marengo")


@pytest.fixture()
def state(scenario):
    return new_state(scenario, 1)


@pytest.fixture(scope="module")
def base(scenario):
    return decode(jdg.render_board(scenario, new_state(scenario, 1)))


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def render(scenario, state, **kw) -> Image.Image:
    return decode(jdg.render_board(scenario, state, **kw))


def close(a, b, tol: int = TOL) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) <= tol


def counter_box(scenario, hex_id: str, g=None, k: float = 0.5):
    g = g or jdg.board_geometry(scenario)
    x, y = g.hex_center(hex_id)
    half = k * g.r
    return (int(x - half), int(y - half), int(x + half), int(y + half))


def share(img: Image.Image, box, colour, tol: int = TOL) -> float:
    """The fraction of the pixels in `box` within `tol` of `colour`."""
    raw = img.crop(box).tobytes()
    px = [raw[i:i + 3] for i in range(0, len(raw), 3)]
    return sum(close(p, colour, tol) for p in px) / len(px)


# --- size and content -----------------------------------------------------------------------------
def test_the_full_board_decodes_at_its_size_under_500_kib(scenario, state):
    png = jdg.render_board(scenario, state)
    img = decode(png)
    g = jdg.board_geometry(scenario)
    assert img.width == g.width and img.height > g.height          # the strip under the map
    assert 1400 < g.width < 1800
    assert len(png) <= 500 * 1024


def test_a_french_counter_is_blue_and_an_austrian_one_white(scenario, base):
    st = new_state(scenario, 1)
    fr, au = st.units[LONE_FRENCH].hex, st.units[LONE_AUSTRIAN].hex
    assert share(base, counter_box(scenario, fr), SIDE_BODY["french"]) > 0.3
    assert share(base, counter_box(scenario, au), SIDE_BODY["austrian"]) > 0.3
    assert share(base, counter_box(scenario, au), SIDE_BODY["french"]) < 0.02
    assert share(base, counter_box(scenario, EMPTY), SIDE_BODY["french"]) == 0


def test_a_disordered_counter_shows_its_pale_back_and_a_d(scenario, state, base):
    state.units[LONE_FRENCH].condition = "disordered"
    img = render(scenario, state)
    box = counter_box(scenario, state.units[LONE_FRENCH].hex)
    assert base.crop(box).tobytes() != img.crop(box).tobytes()
    assert share(img, box, SIDE_BODY["french"]) < 0.05
    assert share(img, box, SIDE_BACK["french"]) > 0.3
    wide = counter_box(scenario, state.units[LONE_FRENCH].hex, k=0.95)
    assert share(img, wide, TAGS["disordered"][1], 14) > 0.003       # the yellow "D" tag
    assert share(base, wide, TAGS["disordered"][1], 14) == 0


def test_routed_square_and_charge_tags(scenario, state):
    state.units["f-22e"].condition = "routed"
    state.units["f-43e"].square = True
    state.units["a-lobkowitz-dr"].charge = True
    img = render(scenario, state)
    for uid, tag in (("f-22e", "routed"), ("f-43e", "square"), ("a-lobkowitz-dr", "charge")):
        wide = counter_box(scenario, state.units[uid].hex, k=0.95)
        assert share(img, wide, TAGS[tag][1], 14) > 0.003, uid


@pytest.mark.parametrize("facing", range(6))
def test_the_nose_points_at_the_faced_vertex(scenario, state, facing):
    state.units[LONE_FRENCH].facing = facing
    img = render(scenario, state)
    g = jdg.board_geometry(scenario)
    h = state.units[LONE_FRENCH].hex
    tip = g.vertex_point(h, facing, 0.72)
    back = g.vertex_point(h, (facing + 3) % 6, 0.72)
    side = g.vertex_point(h, (facing + 2) % 6, 0.72)
    px = lambda p: img.getpixel((int(round(p[0])), int(round(p[1]))))   # noqa: E731
    assert close(px(tip), NOSE, 24), (facing, px(tip))
    assert not close(px(back), NOSE, 24)
    assert not close(px(side), NOSE, 24)
    assert COUNTER_HALF < 0.72


def test_stacked_units_are_all_visible(scenario, state):
    """0510 holds the 44e and Gardanne's guns: two counters, both blue, side by side."""
    img = render(scenario, state)
    g = jdg.board_geometry(scenario)
    x, y = g.hex_center("0510")
    up = (int(x - 10), int(y - 0.5 * g.r - 8), int(x + 10), int(y - 0.5 * g.r + 8))
    down = (int(x - 10), int(y + 0.5 * g.r - 8), int(x + 10), int(y + 0.5 * g.r + 8))
    assert share(img, up, SIDE_BODY["french"]) > 0.2
    assert share(img, down, SIDE_BODY["french"]) > 0.2


def test_the_victory_flag_shows_who_holds_the_hex(scenario, state):
    """Marengo (0910) starts French; the state's `holders` record moves its flag to the Austrians."""
    g = jdg.board_geometry(scenario)
    x, y = g.hex_center("0910")
    flag = (int(x - 0.8 * g.r), int(y - 0.86 * g.r), int(x - 0.2 * g.r), int(y - 0.5 * g.r))
    from renders.jdg_art import SIDE_COLOURS
    before = render(scenario, state)
    state.holders = {"0910": "austrian"}
    after = render(scenario, state)
    assert share(before, flag, SIDE_COLOURS["french"]) > 0.1
    assert share(after, flag, SIDE_COLOURS["french"]) < 0.01


# --- hidden information ---------------------------------------------------------------------------
def test_a_secret_order_is_never_drawn(scenario, state):
    plain = jdg.render_board(scenario, state)
    state.formations["gardanne"].orders = "with"          # given in phase A, not yet revealed
    state.formations["ott"].orders = "without"
    assert jdg.render_board(scenario, state) == plain
    assert jdg.render_board(scenario, state, viewer="austrian") != jdg.render_board(scenario, state, viewer="french")
    mine = jdg.render_board(scenario, state, viewer="french")
    state.formations["ott"].orders = ""
    assert jdg.render_board(scenario, state, viewer="french") == mine    # the enemy's never
    state.formations["gardanne"].revealed = True                         # its first IA drawn
    assert jdg.render_board(scenario, state) != plain


def test_a_secret_combined_marker_is_neither_named_nor_counted(scenario, state):
    plain = jdg.render_board(scenario, state)
    state.cup = ["grande-charge"]                          # the French IAC, put in secretly
    assert state.markers["grande-charge"].secret
    assert jdg.render_board(scenario, state) == plain
    assert jdg.render_board(scenario, state, viewer="austrian") == plain
    assert jdg.cup_counts(state, None) == {}
    assert jdg.cup_counts(state, "french") == {"french": (1, 1)}


# --- determinism, caching, crops ------------------------------------------------------------------
def test_the_same_state_gives_the_same_bytes(scenario, state):
    assert jdg.render_board(scenario, state) == jdg.render_board(scenario, state)


def test_the_same_bytes_whatever_the_hash_seed():
    script = ("import hashlib\nfrom engine.jdg.scenario import load_scenario\nfrom engine.jdg.setup import new_state\n"
              "from renders import jdg\nsc = load_scenario('marengo')\n"
              "print(hashlib.sha1(jdg.render_board(sc, new_state(sc, 1))).hexdigest())\n")
    root = Path(__file__).resolve().parents[2]
    out = [subprocess.run([sys.executable, "-c", script], cwd=root, check=True, capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert out[0] == out[1] and len(out[0]) == 41


def test_the_terrain_is_drawn_once_per_scenario(scenario):
    assert jdg.terrain_layer(scenario) is jdg.terrain_layer(scenario)


def _moved(state):
    state.phase = "activation"
    state.activation = Activation(marker="hadik-kaim-1", side="austrian", formations=["hadik-kaim"],
                                  step="movement", with_orders=True)
    state.units["a-ir52"].hex = "0410"
    state.last_action = {"kind": "move", "unit": "a-ir52", "path": ["0210", "0310", "0410"]}
    return state


def test_a_crop_shows_the_last_action_at_a_larger_scale(scenario, state):
    _moved(state)
    g = jdg.crop_geometry(scenario, state)
    assert g is not None and 1.25 <= g.zoom <= 2.0
    for h in ("0210", "0410"):
        x, y = g.hex_center(h)
        assert 0 <= x <= g.width and 0 <= y <= g.height
    png = jdg.render_board(scenario, state, size="crop")
    img = decode(png)
    assert img.width == g.width <= 1100
    assert len(png) <= 500 * 1024
    x0, y0, x1, y1 = counter_box(scenario, "0410", g)
    assert share(img, (x0, y0, x1, y1), SIDE_BODY["austrian"]) > 0.2


def test_a_crop_with_nothing_in_focus_is_an_overview(scenario, state):
    assert jdg.crop_geometry(scenario, state) is None
    img = render(scenario, state, size="crop")
    assert img.width == 1100


def test_board_module_finds_the_renderer():
    from renders import board_module
    assert board_module("jdg") is jdg


def test_bench_print(scenario, state):
    """Timings printed, never asserted (see the module docstring)."""
    _moved(state)
    for size in ("full", "crop"):
        t = time.perf_counter()
        png = jdg.render_board(scenario, state, size=size)
        print(f"jdg {size}: {1000 * (time.perf_counter() - t):.0f} ms, {len(png) // 1024} KiB")
