"""Lion of the North table renderer (renders/lion.py): pixels that must (and must not) appear.

Both battles (engine/lion/scenarios: Breitenfeld 1631, Lützen 1632) from their first state
(`LION.new_state`), edited by hand: the tests read the renderer, not the rules. Positions are
checked through the renderer's own transform (`board_view(sc).px(x, y)`: table cm, y north, to
pixels, y down) against the shared geometry (engine.core.table.geometry), so a base drawn anywhere
but where the rules measure it fails.

Speed on the development machine (printed by nothing, for the record): the full board ~0.4 s the
first time (the terrain drawn once per scenario), then ~0.2 s (1,600 x ~1,325 px, ~75 KiB); a crop
~0.15-0.3 s once its tiles are cached (1,100 px wide).
"""
from __future__ import annotations

import io

import pytest
from PIL import Image

from engine.core.table.geometry import Pose, base_polygon, forward
from engine.lion import checks
from engine.lion.ruleset import LION
from engine.lion.scenario import load_scenario
from renders import lion
from renders.common import MOVE_COLOUR
from renders.lion_art import GROUND, NATION_COLOURS

BATTLES = ("breitenfeld", "lutzen")
TOL = 12
SWEDE = "sw-horn1"            # Breitenfeld: Swedish regular cavalry, 4 x 3
SWE_BODY, SWE_FRONT, _ = NATION_COLOURS["swedish"]


@pytest.fixture(scope="module")
def breitenfeld():
    return load_scenario("breitenfeld")


@pytest.fixture()
def state(breitenfeld):
    return LION.new_state(breitenfeld, 1)


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def close(a, b, tol: int = TOL) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) <= tol


def at(img: Image.Image, v, x: float, y: float):
    """The picture's pixel at table point (x, y) cm."""
    px, py = v.px(x, y)
    return img.getpixel((int(px), int(py)))


def base_point(pose: Pose, across: float, back: float) -> tuple[float, float]:
    """A table point `across` cm to the right of a base's front centre and `back` cm behind it."""
    fx, fy = forward(pose.facing)
    rx, ry = fy, -fx
    return pose.x + rx * across - fx * back, pose.y + ry * across - fy * back


def share(img: Image.Image, box, colour, tol: int = TOL) -> float:
    raw = img.crop(tuple(int(c) for c in box)).tobytes()
    px = [raw[i:i + 3] for i in range(0, len(raw), 3)]
    return sum(close(p, colour, tol) for p in px) / max(1, len(px))


def base_box(v, pose: Pose, fp, grow: float = 0.0):
    poly = base_polygon(pose, fp).buffer(grow, join_style="mitre")
    pts = v.pts(poly.exterior.coords)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1)


def lone(st, uid: str, x: float, y: float, facing: float):
    """Put a unit alone in the open middle of Breitenfeld's table (no terrain there)."""
    u = st.units[uid]
    u.x, u.y, u.facing = x, y, facing
    return u


# --- size, validity, determinism -----------------------------------------------------------------------
@pytest.mark.parametrize("sid", BATTLES)
def test_full_and_crop_are_valid_pngs_of_the_right_size_under_500_kib(sid):
    """Full: 1,600 px wide with the strip under the table; crop of a move: at most 1,100 px wide;
    both PNGs under 500 KiB (issue 15, 'legible at Discord's size')."""
    sc = load_scenario(sid)
    st = LION.new_state(sc, 1)
    full = lion.render_board(sc, st)
    img = decode(full)
    v = lion.board_view(sc)
    assert img.width == v.width == 1600 and img.height > v.height     # the strip is under the table
    assert len(full) <= 500 * 1024
    uid = next(u.id for u in st.units.values() if u.side == st.players["A"] and u.status == "active")
    u = st.units[uid]
    st.last_action = {"kind": "move", "units": [uid], "paths": [[(u.x, u.y - 6), (u.x, u.y)]],
                      "from": [[u.x, u.y - 6, u.facing]], "distance": 6.0}
    crop = lion.render_board(sc, st, size="crop")
    cimg = decode(crop)
    assert 550 <= cimg.width <= 1100 and len(crop) <= 500 * 1024
    assert cimg.getcolors(1 << 20) is None or len(cimg.getcolors(1 << 20)) > 50


@pytest.mark.parametrize("sid", BATTLES)
def test_the_same_state_gives_the_same_bytes(sid):
    sc = load_scenario(sid)
    st = LION.new_state(sc, 1)
    assert lion.render_board(sc, st) == lion.render_board(sc, LION.new_state(sc, 1))
    assert lion.render_board(sc, st, size="crop") == lion.render_board(sc, st, size="crop")


def test_with_nothing_in_focus_the_crop_is_the_whole_table_1100_wide(breitenfeld, state):
    state.last_action = {}
    assert lion.crop_view_of(breitenfeld, state) is None
    img = lion.render_board_image(breitenfeld, state, size="crop")
    assert img.width == 1100


# --- bases where the geometry puts them ----------------------------------------------------------------
@pytest.mark.parametrize("facing", [0.0, 45.0, 90.0, 200.0])
def test_a_base_is_drawn_where_the_geometry_puts_it_with_its_front_band(breitenfeld, state, facing):
    """HERALD D2: a cavalry base 4 x 3 behind its front edge's centre; the body (Swedish blue)
    inside, the front band (yellow) just behind the front edge, the open ground just outside."""
    u = lone(state, SWEDE, 90.0, 60.0, facing)
    img = decode(lion.render_board(breitenfeld, state))
    v = lion.board_view(breitenfeld)
    pose, fp = checks.pose(u), checks.footprint(u)
    assert (fp.width, fp.depth) == (4.0, 3.0)
    assert close(at(img, v, *base_point(pose, 1.5, 2.3)), SWE_BODY)      # inside, clear of the label
    assert close(at(img, v, *base_point(pose, -1.5, 2.3)), SWE_BODY)
    assert close(at(img, v, *base_point(pose, 1.5, 0.3)), SWE_FRONT)     # the front band
    assert not close(at(img, v, *base_point(pose, 1.5, 2.7)), SWE_FRONT)  # the rear is not yellow
    for across, back in ((3.2, 1.5), (-3.2, 1.5), (0.0, 4.4)):           # outside: flanks and rear
        assert not close(at(img, v, *base_point(pose, across, back)), SWE_BODY), (across, back)


def test_the_crop_uses_the_same_transform(breitenfeld, state):
    """The crop's view maps table cm to its own pixels: the moved base's body is where it says."""
    u = lone(state, SWEDE, 90.0, 60.0, 30.0)
    state.last_action = {"kind": "move", "units": [SWEDE], "paths": [[(90.0, 50.0), (90.0, 60.0)]],
                         "from": [[90.0, 50.0, 30.0]], "distance": 10.0}
    v = lion.crop_view_of(breitenfeld, state)
    assert v is not None and v.kind == "crop" and v.width <= 1100
    img = decode(lion.render_board(breitenfeld, state, size="crop"))
    assert close(at(img, v, *base_point(checks.pose(u), 1.5, 2.3)), SWE_BODY)


def test_destroyed_units_are_not_drawn(breitenfeld, state):
    u = lone(state, SWEDE, 90.0, 60.0, 0.0)
    v = lion.board_view(breitenfeld)
    box = base_box(v, checks.pose(u), checks.footprint(u))
    before = decode(lion.render_board(breitenfeld, state))
    u.status = "destroyed"
    after = decode(lion.render_board(breitenfeld, state))
    assert share(before, box, SWE_BODY) > 0.3
    assert share(after, box, SWE_BODY) == 0
    assert share(after, box, GROUND, 20) > 0.5


# --- markers -------------------------------------------------------------------------------------------
def test_a_disordered_unit_shows_red_pips_one_per_hit(breitenfeld, state):
    """[9 A] a hit is a disorder level: one pip for a unit, up to three for a Tercio ([12 F])."""
    u = lone(state, SWEDE, 90.0, 60.0, 0.0)
    ter = lone(state, "imp-ter-tilly", 110.0, 60.0, 180.0)
    v = lion.board_view(breitenfeld)
    ubox = base_box(v, checks.pose(u), checks.footprint(u))
    tbox = base_box(v, checks.pose(ter), checks.footprint(ter))
    clean = decode(lion.render_board(breitenfeld, state))
    assert share(clean, ubox, lion.PIP, 25) == 0 and share(clean, tbox, lion.PIP, 25) == 0
    u.hits = 1
    ter.hits = 1
    one = decode(lion.render_board(breitenfeld, state))
    ter.hits = 3
    three = decode(lion.render_board(breitenfeld, state))
    assert share(one, ubox, lion.PIP, 25) > 0.01
    assert share(three, tbox, lion.PIP, 25) > 2.2 * share(one, tbox, lion.PIP, 25) > 0


def test_marker_tags_and_labels():
    """Type labels (dragoons on foot DRG-d [12 C]) and the tags of looting, captured and guns'
    status [6 A], [9 B], [12 A]."""
    sc = load_scenario("breitenfeld")
    st = LION.new_state(sc, 1)
    dr = st.units["sw-dragoons"]
    assert lion.type_label(dr) == "DRG"
    dr.mounted = False
    assert lion.type_label(dr) == "DRG-d"
    assert lion.type_label(st.units["imp-ter-tilly"]) == "TER"
    guns = st.units["sx-guns"]
    guns.deployed = False
    assert "LMB" in lion.unit_tags(guns)
    guns.deployed, guns.captured_by = True, "imperial"
    assert {"DEP", "CAPT"} <= set(lion.unit_tags(guns))
    st.units["sw-horn1"].looting = True
    assert "LOOT" in lion.unit_tags(st.units["sw-horn1"])


def test_a_wounded_general_is_marked(breitenfeld, state):
    g = state.generals["horn"]
    g.x, g.y, g.facing = 90.0, 60.0, 0.0
    v = lion.board_view(breitenfeld)
    box = base_box(v, checks.pose(g), checks.footprint(g), 0.3)
    before = decode(lion.render_board(breitenfeld, state))
    g.wounded = True
    after = decode(lion.render_board(breitenfeld, state))
    assert share(before, box, lion.PIP, 25) == 0
    assert share(after, box, lion.PIP, 25) > 0.02


# --- the last action -----------------------------------------------------------------------------------
def test_a_move_path_is_drawn_along_its_track(breitenfeld, state):
    """movement's last_action: paths of the front-centre's track, with the start's ghost."""
    lone(state, SWEDE, 90.0, 70.0, 0.0)
    v = lion.board_view(breitenfeld)
    plain = decode(lion.render_board(breitenfeld, state))
    state.last_action = {"kind": "move", "units": [SWEDE], "paths": [[(90.0, 50.0), (90.0, 70.0)]],
                         "from": [[90.0, 50.0, 0.0]], "distance": 20.0}
    moved = decode(lion.render_board(breitenfeld, state))
    px, py = v.px(90.0, 60.0)
    near = (px - 4, py - 4, px + 5, py + 5)
    assert share(moved, near, MOVE_COLOUR, 30) > 0.2
    assert share(plain, near, MOVE_COLOUR, 30) == 0
    far = v.px(60.0, 60.0)
    assert moved.getpixel((int(far[0]), int(far[1]))) == plain.getpixel((int(far[0]), int(far[1])))


def test_a_shot_draws_the_arc_and_the_measured_line(breitenfeld, state):
    """fire's last_action: the shooter's arc ([7], D5: 30 degrees outward of the front corners)
    tints the ground inside it and nowhere else; the line shooter -> target is drawn."""
    lone(state, "sw-horn-musk", 90.0, 60.0, 0.0)
    lone(state, "imp-ter-tilly", 90.0, 72.0, 180.0)
    v = lion.board_view(breitenfeld)
    plain = decode(lion.render_board(breitenfeld, state))
    state.last_action = {"kind": "shoot", "shooter": "sw-horn-musk", "target": "imp-ter-tilly",
                         "distance": 8.0, "band": "short", "face": "front", "hit": False}
    shot = decode(lion.render_board(breitenfeld, state))
    inside = (83.0, 66.0)          # 6 cm ahead, 5 cm left of the front-left corner (tan 30 * 6 = 3.46)
    assert at(shot, v, *inside) != at(plain, v, *inside)
    outside = (80.0, 62.0)         # 2 cm ahead: the cone is only 1.15 cm wider there
    assert at(shot, v, *outside) == at(plain, v, *outside)
    behind = (90.0, 50.0)
    assert at(shot, v, *behind) == at(plain, v, *behind)
    mid = v.px(90.3, 64.0)
    assert shot.getpixel((int(mid[0]), int(mid[1]))) != plain.getpixel((int(mid[0]), int(mid[1])))


def test_the_crop_contains_the_action_and_is_at_most_1100_wide(breitenfeld, state):
    lone(state, "sw-horn-musk", 60.0, 40.0, 0.0)
    lone(state, "imp-ter-tilly", 70.0, 52.0, 180.0)
    state.last_action = {"kind": "shoot", "shooter": "sw-horn-musk", "target": "imp-ter-tilly",
                         "distance": 8.0, "band": "short", "face": "front", "hit": True}
    v = lion.crop_view_of(breitenfeld, state)
    assert v.width <= 1100
    box = v.cm_box
    for uid in ("sw-horn-musk", "imp-ter-tilly"):
        u = state.units[uid]
        assert box.contains(base_polygon(checks.pose(u), checks.footprint(u))), uid
    img = lion.render_board_image(breitenfeld, state, size="crop")
    assert img.width == v.width <= 1100


def test_a_melee_contact_is_outlined(breitenfeld, state):
    """melee's last_action (defender, attackers): the touching edges drawn red ([8 A], D6)."""
    lone(state, SWEDE, 90.0, 60.0, 0.0)                   # its front edge y = 60, x 88..92
    lone(state, "imp-furst1", 90.0, 60.0, 180.0)          # front to front
    v = lion.board_view(breitenfeld)
    plain = decode(lion.render_board(breitenfeld, state))
    state.last_action = {"kind": "melee", "defender": "imp-furst1", "attackers": [SWEDE],
                         "edges": {SWEDE: "front"}}
    fought = decode(lion.render_board(breitenfeld, state))
    px, py = v.px(89.0, 60.0)
    box = (px - 2, py - 2, px + 3, py + 3)
    assert share(fought, box, lion.COMBAT_COLOUR, 30) > 0.3
    assert share(plain, box, lion.COMBAT_COLOUR, 30) == 0


def test_a_real_move_renders(breitenfeld):
    """The movement module's own last_action (a wheel and an advance) draws without error and
    its crop holds the mover."""
    from engine.core.game import Game
    g = Game.new("lion", "breitenfeld", 1)
    g.apply("swedish", "move sw-horn1 wheel 20 left advance 15")
    v = lion.crop_view_of(g.scenario, g.state)
    u = g.state.units["sw-horn1"]
    assert v.cm_box.contains(base_polygon(checks.pose(u), checks.footprint(u)))
    assert decode(lion.render_board(g.scenario, g.state, size="crop")).width <= 1100


def test_replay_frames_are_drawn_at_the_width_asked(breitenfeld, state):
    img = lion.render_replay_image(breitenfeld, state, width=800)
    assert img.width == 800
