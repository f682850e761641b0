"""This Accursed Civil War board renderer: pixels that must (and must not) appear for a state.

Uses the Edgehill scenario (engine/tacw/scenarios/edgehill.toml, 40x26 hexes): Royalists on the
east side facing West, Parliament on the west side facing East."""
from __future__ import annotations

import io
import math
import subprocess
import sys

import pytest
from PIL import Image, ImageChops

from engine.core.facing import double_facings
from engine.tacw.scenario.schema import load_scenario
from engine.tacw.setup import new_state
from engine.tacw.state import Activation
from renders import tacw
from renders.tacw_art import (CASUALTY_RED, GOLD, NOSE, SIDE_COLOURS, TERRAIN_COLOURS, TAGS,
                              WING_PALETTE)

TOL = 8            # palette quantisation moves flat colours by a few units per channel
WHITE_TOL = 14
ROYAL_HORSE = "r-prince-of-wales"      # 3106, alone, no leader
PARL_HORSE = "p-essex"                 # 1512, alone, no leader
DOUBLE = "r-gerard"                    # 3109 + 3110
EMPTY_CLEAR = "0505"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("edgehill")


@pytest.fixture()
def state(scenario):
    return new_state(scenario, seed=7)


@pytest.fixture(scope="module")
def base(scenario):
    """The opening state's full render (decoded), shared by the read-only tests."""
    return render(scenario, new_state(scenario, seed=7))


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def render(scenario, state, **kw) -> Image.Image:
    return decode(tacw.render_board(scenario, state, **kw))


def geom(scenario):
    return tacw.board_geometry(scenario)


def px(img: Image.Image, xy) -> tuple[int, int, int]:
    return img.getpixel((int(round(xy[0])), int(round(xy[1]))))


def at(img: Image.Image, scenario, hex_id: str, dx: float = 0, dy: float = 0, g=None):
    x, y = (g or geom(scenario)).hex_center(hex_id)
    return px(img, (x + dx, y + dy))


def close(a, b, tol: int = TOL) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) <= tol


def region(img: Image.Image, scenario, hex_id: str, half: int = 26, g=None) -> Image.Image:
    x, y = (g or geom(scenario)).hex_center(hex_id)
    return img.crop((int(x) - half, int(y) - half, int(x) + half, int(y) + half))


def same(a: Image.Image, b: Image.Image, tol: int = TOL) -> bool:
    """Equal up to palette quantisation noise (the palette is chosen per image)."""
    if a.size != b.size:
        return False
    return max(hi for _, hi in ImageChops.difference(a, b).getextrema()) <= tol


def count_close(img: Image.Image, scenario, hex_id: str, colour, dy: float, half_w: int = 18,
                half_h: int = 4, tol: int = 40) -> int:
    """Pixels near `colour` in a small band `dy` below the centre of a hex."""
    x, y = geom(scenario).hex_center(hex_id)
    box = img.crop((int(x) - half_w, int(y + dy) - half_h, int(x) + half_w, int(y + dy) + half_h))
    raw = box.tobytes()
    return sum(close(raw[i:i + 3], colour, tol) for i in range(0, len(raw), 3))


def body(img: Image.Image, scenario, hex_id: str = "", g=None, xy=None, half: float = 0.45):
    """The commonest colour within `half` hex radii of a point: a counter's body colour (its
    centre carries its value and hex id)."""
    g = g or geom(scenario)
    x, y = xy or g.hex_center(hex_id)
    d = half * g.r
    box = img.crop((int(x - d), int(y - d), int(x + d), int(y + d)))
    return max(box.getcolors(box.width * box.height))[1]


def marker_box(scenario, st, uid: str, size: str = "full") -> tuple[int, int, int, int]:
    """Where the layout puts a unit's marker row (below, above or beside its counter)."""
    lay = tacw.board_layout(scenario, st, size)
    poly = next(p.polygon for p in lay.counters if p.kind == "markers" and p.id == uid)
    xs, ys = [x for x, _ in poly], [y for _, y in poly]
    return (int(min(xs)), int(min(ys)), int(max(xs)), int(max(ys)))


def count_in(img: Image.Image, box, colour, tol: int = 40) -> int:
    raw = img.crop(box).tobytes()
    return sum(close(raw[i:i + 3], colour, tol) for i in range(0, len(raw), 3))


def strip(img: Image.Image, scenario) -> Image.Image:
    return img.crop((0, geom(scenario).height, img.width, img.height))


def board(img: Image.Image, scenario) -> Image.Image:
    g = geom(scenario)
    return img.crop((0, 0, g.width, g.height))


# --- the whole image ----------------------------------------------------------------------------
def test_start_state_png_decodes_at_a_wide_but_legible_size(scenario, state):
    png = tacw.render_board(scenario, state)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = decode(png)
    g = geom(scenario)
    assert 1600 <= img.width <= 2000, img.size
    assert 1300 <= img.height <= 2500, img.size       # the strip's text reads at 550 px wide
    # the full map's column and row numbers read at Discord's width, where its hex ids cannot
    assert tacw.ruler_px(img.width) * tacw.DISPLAY_W / img.width >= 9.5
    assert tacw.strip_scale(img.width) * 16 * tacw.DISPLAY_W / img.width >= 9.5
    assert img.width == g.width and img.height > g.height        # the strip is below the map
    assert len(png) < 400 * 1024
    # every hex of the 40x26 map fits inside the image
    for h in ("0101", "4001", "0126", "4026"):
        x, y = g.hex_center(h)
        assert g.r <= x <= g.width - g.r and 0.8 * g.r <= y <= g.height - 0.8 * g.r, h


def test_rendering_is_deterministic(scenario, state):
    state.last_action = {"items": [{"kind": "move", "path": ["3106", "3006"]}]}
    one = tacw.render_board(scenario, state)
    two = tacw.render_board(scenario, state.copy())
    assert one == two
    crop = tacw.render_board(scenario, state, size="crop")
    assert crop == tacw.render_board(scenario, state.copy(), size="crop")


def test_bad_size_is_refused(scenario, state):
    with pytest.raises(ValueError):
        tacw.render_board(scenario, state, size="huge")


# --- counters -----------------------------------------------------------------------------------
def test_counters_show_their_side_colour(scenario, base):
    royal, parl = body(base, scenario, "3106"), body(base, scenario, "1512")
    assert close(royal, SIDE_COLOURS["royalist"]), royal
    assert close(parl, SIDE_COLOURS["parliament"]), parl
    assert not close(royal, parl, 60)
    empty = at(base, scenario, EMPTY_CLEAR)
    assert close(empty, TERRAIN_COLOURS["clear"]), empty
    assert not close(empty, royal, 60) and not close(empty, parl, 60)


def test_facing_nose_points_at_the_facing_vertex(scenario, state):
    """The white nose of the counter lies toward the facing vertex, and only there."""
    g = geom(scenario)
    h = state.units[ROYAL_HORSE].hexes[0]
    assert state.units[ROYAL_HORSE].facing == 3                          # West at setup
    seen = {}
    for v in range(6):
        st = state.copy()
        st.units[ROYAL_HORSE].facing = v
        img = render(scenario, st)
        seen[v] = [px(img, g.vertex_point(h, k, 0.75)) for k in range(6)]
        # the map keeps its colours whatever else changes (exact palette remap)
        assert close(at(img, scenario, EMPTY_CLEAR), TERRAIN_COLOURS["clear"]), v
    for v, pixels in seen.items():
        assert close(pixels[v], NOSE, WHITE_TOL), (v, pixels[v])
        for k, p in enumerate(pixels):
            if k != v:
                assert not close(p, NOSE, 40), (v, k, p)


def test_turning_a_unit_changes_only_its_own_hex(scenario, state, base):
    st = state.copy()
    st.units[PARL_HORSE].facing = 3                                          # East -> West
    img = render(scenario, st)
    g = geom(scenario)
    h = st.units[PARL_HORSE].hexes[0]
    assert close(px(img, g.vertex_point(h, 3, 0.75)), NOSE, WHITE_TOL)
    assert close(px(base, g.vertex_point(h, 0, 0.75)), NOSE, WHITE_TOL)
    assert not close(px(img, g.vertex_point(h, 0, 0.75)), NOSE, 40)
    assert same(region(img, scenario, "3106"), region(base, scenario, "3106"))


def test_double_unit_is_one_long_counter_over_both_hexes(scenario, state, base):
    g = geom(scenario)
    a, b = state.units[DOUBLE].hexes
    mid = tuple((p + q) / 2 for p, q in zip(g.hex_center(a), g.hex_center(b)))
    for point in (g.hex_center(a), g.hex_center(b), mid):                 # no hex line between
        assert close(body(base, scenario, xy=point), SIDE_COLOURS["royalist"]), point
    # a nose in front of each half (facing West)
    for h in (a, b):
        assert close(px(base, g.vertex_point(h, 3, 0.75)), NOSE, WHITE_TOL)
    # moved onto a diagonal pair (SE axis), the counter lies along the new axis
    st = state.copy()
    c = "2510"
    d = scenario.grid.neighbor(c, 0)
    st.units[DOUBLE].hexes = [c, d]
    st.units[DOUBLE].facing = double_facings(scenario.grid, c, d)[0]
    img = render(scenario, st)
    mid = tuple((p + q) / 2 for p, q in zip(g.hex_center(c), g.hex_center(d)))
    for point in (g.hex_center(c), g.hex_center(d), mid):
        assert close(body(img, scenario, xy=point), SIDE_COLOURS["royalist"]), point
    for h in (c, d):
        assert close(px(img, g.vertex_point(h, st.units[DOUBLE].facing, 0.75)), NOSE, WHITE_TOL)
    assert close(at(img, scenario, a), TERRAIN_COLOURS["clear"])            # gone from 3109/3110


def test_eliminated_unit_is_not_drawn(scenario, state, base):
    st = state.copy()
    st.units[ROYAL_HORSE].status = "eliminated"
    st.units[ROYAL_HORSE].hexes = []
    img = render(scenario, st)
    assert close(at(img, scenario, "3106"), TERRAIN_COLOURS["clear"])
    assert not same(region(img, scenario, "3106"), region(base, scenario, "3106"))
    st2 = state.copy()
    st2.units[DOUBLE].status, st2.units[DOUBLE].hexes = "eliminated", []
    img2 = render(scenario, st2)
    for h in state.units[DOUBLE].hexes:
        assert close(at(img2, scenario, h), TERRAIN_COLOURS["clear"]), h


def test_stacked_units_are_both_visible(scenario, state, base):
    """1804 holds Ramsey's horse and a Commanded Shot (§8.2): both counters show."""
    alone = state.copy()
    shot = [u for u in alone.units.values() if u.hexes == ["1804"] and u.kind == "light"][0]
    shot.status, shot.hexes = "eliminated", []
    img = render(scenario, alone)
    assert not same(region(img, scenario, "1804", 28), region(base, scenario, "1804", 28))
    g = geom(scenario)
    # side by side across the facing (East): one counter above the centre, one below
    cx, cy = g.hex_center("1804")
    for dy in (-0.52 * g.r, 0.52 * g.r):
        assert close(body(base, scenario, xy=(cx, cy + dy), half=0.3), SIDE_COLOURS["parliament"], 30)
    # the hex id once, on a chip between them, full size (not shrunk with the counters)
    lay = tacw.board_layout(scenario, state)
    chip = next(p.polygon for p in lay.counters if p.kind == "stack" and p.id == "1804")
    assert abs((chip[0][1] + chip[2][1]) / 2 - cy) < 0.1 * g.r
    assert chip[2][1] - chip[0][1] >= 0.9 * tacw.HEX_ID_PX
    assert not any(lb.text == "1804" for lb in lay.labels)


def test_casualties_pistols_and_markers(scenario, state, base):
    g = geom(scenario)
    z = g.r / 30
    st = state.copy()
    u = st.units[ROYAL_HORSE]
    u.casualties = 2
    u.pistols = 0
    u.morale_state = "shaken"
    img = render(scenario, st)
    # red casualty badge at the counter's upper right
    badge = at(img, scenario, "3106", dx=13 * z + 4 * z, dy=-13 * z)
    assert close(badge, CASUALTY_RED, 30), badge
    assert not close(at(base, scenario, "3106", dx=17 * z, dy=-13 * z), CASUALTY_RED, 60)
    # the pistols: first dot white while loaded, dark once both shots are spent
    dot = (-14.5 * z, -14.5 * z)
    assert close(at(base, scenario, "3106", *dot), (255, 255, 255), 30)
    assert not close(at(img, scenario, "3106", *dot), (255, 255, 255), 80)
    # the Shaken marker below the counter, in its orange
    orange = TAGS["shaken"][1]
    box = marker_box(scenario, st, ROYAL_HORSE)
    assert math.dist(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), g.hex_center("3106")) < 1.6 * g.r
    assert count_in(img, box, orange) > 40
    assert count_in(base, box, orange) == 0


def test_disordered_counter_is_lighter_and_tagged(scenario, state, base):
    st = state.copy()
    st.units[PARL_HORSE].formation = "disordered"
    img = render(scenario, st)
    before, after = body(base, scenario, "1512"), body(img, scenario, "1512")
    assert sum(after) > sum(before) + 60, (before, after)
    yellow = TAGS["disordered"][1]
    box = marker_box(scenario, st, PARL_HORSE)
    assert count_in(img, box, yellow) > 15
    assert count_in(base, box, yellow) == 0


def test_fired_and_captured_guns_are_greyed(scenario, state, base):
    st = state.copy()
    st.units["r-culverins"].fired = True
    st.units["p-falcons"].gun_state = "captured"
    img = render(scenario, st)
    for uid in ("r-culverins", "p-falcons"):
        h = st.units[uid].hexes[0]
        assert not same(region(img, scenario, h), region(base, scenario, h)), uid
    h = st.units["r-culverins"].hexes[0]
    p, q = body(img, scenario, h), body(base, scenario, h)                # the counter's body
    assert max(p) - min(p) < 40, p                                          # grey ...
    assert close(q, SIDE_COLOURS["royalist"]), q                            # ... not crimson


def test_wing_stripe_on_the_rear_edge(scenario, base):
    """Royalists face West, so the wing stripe runs down the east edge of their counters."""
    g = geom(scenario)
    colours = tacw.wing_colours(load_scenario("edgehill"), new_state(scenario, seed=1))
    rear = at(base, scenario, "3106", dx=0.52 * g.r)
    assert close(rear, colours["r-right"], 20), rear
    centre_wing = at(base, scenario, "3109", dx=0.52 * g.r)
    assert close(centre_wing, colours["r-centre"], 20), centre_wing
    assert colours["r-right"] != colours["r-centre"]
    assert set(colours.values()) <= set(WING_PALETTE)


def test_leaders_are_drawn_as_badges(scenario, state, base):
    st = state.copy()
    st.leaders["rupert"].status = "dead"
    st.leaders["charles"].hex = "2513"                                   # the King alone, mid-field
    img = render(scenario, st)
    assert not same(region(img, scenario, "3107", 30), region(base, scenario, "3107", 30))
    assert close(at(base, scenario, "2513"), TERRAIN_COLOURS["clear"])
    assert close(at(img, scenario, "2513", dx=-8), GOLD, 40), at(img, scenario, "2513", dx=-8)
    # Finished and No Continue add their marks
    fin = state.copy()
    fin.leaders["rupert"].finished = True
    fin.leaders["rupert"].no_continue = True
    assert not same(region(render(scenario, fin), scenario, "3107", 30), region(base, scenario, "3107", 30))


# --- terrain ------------------------------------------------------------------------------------
def test_terrain_and_hexsides(scenario, base):
    g = geom(scenario)
    wood = at(base, scenario, "3505", dx=0.55 * g.r, dy=0.05 * g.r)
    assert not close(wood, TERRAIN_COLOURS["clear"], 25), wood
    ploughed = [at(base, scenario, "2615", dx=dx, dy=4) for dx in (-6, -3, 0, 3, 6)]
    assert any(close(p, TERRAIN_COLOURS["ploughed"], 25) for p in ploughed), ploughed
    # slope 3502 NW: the higher hex is 3502, the ticks point downhill into the lower hex 3401
    direction = scenario.grid.side_index("NW")
    lower = scenario.grid.neighbor("3502", direction)
    (ax, ay), (bx, by) = g.side_segment("3502", direction)
    cx, cy = (ax + bx) / 2, (ay + by) / 2
    ux, uy = (g.hex_center(lower)[0] - cx), (g.hex_center(lower)[1] - cy)
    n = math.hypot(ux, uy)
    ux, uy = ux / n, uy / n

    def brown(sign: float) -> int:
        count = 0
        for t in (0.1, 0.3, 0.5, 0.7, 0.9):
            for s in (0.15, 0.2, 0.25):
                x = ax + (bx - ax) * t + sign * ux * s * g.r
                y = ay + (by - ay) * t + sign * uy * s * g.r
                p = px(base, (x, y))
                count += p[0] - p[2] > 50 and p[1] < 150
        return count

    assert brown(+1) >= 3 > brown(-1), (brown(+1), brown(-1))
    # hedge hexside (2020 NE) is drawn; the no_effect stream is fainter than a hedge
    hedge_a, hedge_b = g.side_segment("2021", scenario.grid.side_index("SE"))
    hedge = px(base, ((hedge_a[0] + hedge_b[0]) / 2, (hedge_a[1] + hedge_b[1]) / 2))
    assert not close(hedge, TERRAIN_COLOURS["clear"], 40), hedge
    s_a, s_b = g.side_segment("2410", scenario.grid.side_index("NE"))
    stream = px(base, ((s_a[0] + s_b[0]) / 2, (s_a[1] + s_b[1]) / 2))
    assert stream[2] > TERRAIN_COLOURS["clear"][2] + 10, stream             # bluish ...
    assert stream[2] < 200                                                  # ... but faded


def test_terrain_layer_is_cached(scenario):
    assert tacw.terrain_layer(scenario) is tacw.terrain_layer(scenario)
    g = geom(scenario)
    assert tacw.terrain_layer(scenario).size == (g.width, g.height)
    g2 = tacw.board_geometry(scenario, 2)
    assert g2.width == 2 * g.width and g2.r == 2 * g.r
    assert g2.hex_center("2413") == tuple(2 * v for v in g.hex_center("2413"))


# --- information strip --------------------------------------------------------------------------
def test_strip_changes_with_phase_wing_order_and_vp_but_the_map_does_not(scenario, state, base):
    def raw(st):                     # before palette quantisation, so the map compares exactly
        return tacw.render_board_image(scenario, st)

    start = raw(state)
    act = state.copy()
    act.phase, act.phasing = "activation", "royalist"
    img = raw(act)
    assert not same(strip(img, scenario), strip(start, scenario))
    assert board(img, scenario).tobytes() == board(start, scenario).tobytes()
    wing = act.copy()
    wing.activation = Activation(wing="r-right", side="royalist", step="actions", number=2)
    img2 = raw(wing)
    assert not same(strip(img2, scenario), strip(img, scenario))
    order = wing.copy()
    order.wings["p-centre"].order = "rally"
    img3 = raw(order)
    assert not same(strip(img3, scenario), strip(img2, scenario))
    assert board(img3, scenario).tobytes() == board(img2, scenario).tobytes()
    vp = order.copy()
    vp.vp["parliament"] = 20
    assert not same(strip(raw(vp), scenario), strip(img3, scenario))
    # and the decoded PNG shows the same strip change
    assert not same(strip(render(scenario, act), scenario), strip(base, scenario))


def test_pending_decision_and_winner_show_in_strip(scenario, state, base):
    pend = state.copy()
    pend.phase = "activation"
    pend.pending = {"kind": "bypass", "side": "parliament", "options": ["p-left", "p-right"]}
    assert not same(strip(render(scenario, pend), scenario), strip(base, scenario))
    # hexes offered by a decision (e.g. a retreat) are outlined on the map
    retreat = state.copy()
    retreat.pending = {"kind": "retreat", "side": "royalist", "options": ["2906", "2907"]}
    img = render(scenario, retreat)
    for h in ("2906", "2907"):
        assert not same(region(img, scenario, h, 28), region(base, scenario, h, 28)), h
    assert same(region(img, scenario, "2909", 28), region(base, scenario, "2909", 28))
    over = state.copy()
    over.phase, over.winner, over.result = "over", "royalist", "royalist_marginal"
    assert not same(strip(render(scenario, over), scenario), strip(base, scenario))


# --- last action --------------------------------------------------------------------------------
def _midpoint(g, a: str, b: str):
    (ax, ay), (bx, by) = g.hex_center(a), g.hex_center(b)
    return (ax + bx) / 2, (ay + by) / 2


def test_last_action_overlays_are_drawn(scenario, state):
    g = geom(scenario)
    st = state.copy()
    st.units[ROYAL_HORSE].hexes = ["2806"]
    st.units["p-waller"].status, st.units["p-waller"].hexes = "eliminated", []
    st.last_action = {"items": [
        {"kind": "move", "path": ["3106", "3006", "2906", "2806"]},
        {"kind": "fire", "from": "1812", "to": "2512", "text": "2 hits"},
        {"kind": "close_combat", "from": "2806", "to": "2706"},
        {"kind": "retreat", "path": ["2210", "2110", "2010"]},
        {"kind": "eliminated", "hex": "0505"},
        {"kind": "eliminated", "hex": "1805"},
        {"kind": "charge_of_the_light_brigade", "hex": "0101"},
    ]}
    bare = st.copy()
    bare.last_action = {}
    a, b = render(scenario, st), render(scenario, bare)
    for x, y in (("3106", "3006"), ("3006", "2906"), ("2210", "2110"), ("1812", "2512")):
        p = _midpoint(g, x, y)
        assert px(a, p) != px(b, p), (x, y)
    assert close(at(a, scenario, "3006"), tacw.MOVE_COLOUR, 30)
    assert close(at(a, scenario, "0505"), tacw.COMBAT_COLOUR, 40)          # the elimination cross
    # 1805 still holds a unit (a stack lost one of two): no cross over it, a label beside it
    assert not close(at(a, scenario, "1805"), tacw.COMBAT_COLOUR, 40)
    lay = tacw.board_layout(scenario, st)
    texts = {lb.text: lb for lb in lay.labels if lb.style == "result"}
    assert set(texts) == {"2 hits", "Eliminated"}
    ring = at(a, scenario, "2706", dx=0.86 * g.r - 2)
    assert close(ring, tacw.COMBAT_COLOUR, 40), ring
    x0, y0, x1, y1 = texts["2 hits"].box                                    # "2 hits" label
    assert math.dist(((x0 + x1) / 2, (y0 + y1) / 2), g.hex_center("2512")) < 3 * g.r
    inside = a.crop((int(x0) + 2, int(y0) + 2, int(x1) - 2, int(y1) - 2))
    assert sum(close(c, tacw.FIRE_COLOUR, 30) for c in inside.getdata()) > 30
    assert same(region(a, scenario, "0101"), region(b, scenario, "0101"))     # unknown kind ignored


def test_bad_overlay_data_is_ignored(scenario, state):
    st = state.copy()
    st.last_action = {"items": [{"kind": "move", "path": ["9999", None]}, {"kind": "fire", "to": None},
                                "junk", {"kind": "eliminated", "hex": 5}, {"kind": "retreat", "path": 7}]}
    assert render(scenario, st).tobytes() == render(scenario, state).tobytes()


# --- crop ---------------------------------------------------------------------------------------
def test_crop_zooms_on_the_last_action(scenario, state, base):
    st = state.copy()
    st.units[ROYAL_HORSE].hexes = ["2906"]
    st.last_action = {"items": [{"kind": "move", "path": ["3106", "3006", "2906"]}]}
    cg = tacw.crop_geometry(scenario, st)
    full = geom(scenario)
    assert cg is not None and cg.zoom > 1 and cg.r > full.r
    crop = render(scenario, st, size="crop")
    assert crop.width * crop.height < base.width * base.height
    assert crop.width == cg.width and crop.height > cg.height               # strip under the crop
    for h in ("3106", "2906"):
        x, y = cg.hex_center(h)
        assert cg.r < x < cg.width - cg.r and cg.r < y < cg.height - cg.r, h
    # the moved counter, at the crop's scale, on its new hex
    assert close(body(crop, scenario, "2906", g=cg), SIDE_COLOURS["royalist"])
    assert close(px(crop, cg.vertex_point("2906", 3, 0.75)), NOSE, WHITE_TOL)


def test_crop_falls_back_to_the_active_wing_then_an_overview_of_the_field(scenario, state, base):
    assert tacw.crop_geometry(scenario, state) is None
    overview = render(scenario, state, size="crop")     # the whole field, at a crop's width (issue 13)
    assert overview.width == tacw.CROP_MAX_W and overview.width < base.width
    assert abs(overview.height / overview.width - base.height / base.width) < 0.12
    st = state.copy()
    st.phase, st.phasing = "activation", "parliament"
    st.activation = Activation(wing="p-right", side="parliament")
    cg = tacw.crop_geometry(scenario, st)
    assert cg is not None and cg.zoom > 1
    for u in st.wing_units("p-right"):
        x, y = cg.hex_center(u.hexes[0])
        assert 0 < x < cg.width and 0 < y < cg.height, u.id
    x, y = cg.hex_center("3106")                                               # far away
    assert not (0 <= x <= cg.width and 0 <= y <= cg.height)
    crop = render(scenario, st, size="crop")
    assert crop.width * crop.height < base.width * base.height


def test_renderer_imports_no_discord_or_sqlite():
    code = ("import sys, renders.tacw; "
            "bad = [m for m in ('discord', 'sqlite3', 'aiosqlite', 'bot') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# --- legible at Discord's size (issue 12) --------------------------------------------------------
def _played_state(scenario, state):
    """A close combat that eliminated a unit, the winner advancing into its hex, and a missed
    shot at that hex: the crop the bot posts after such an action."""
    st = state.copy()
    st.units["p-essex"].status, st.units["p-essex"].hexes = "eliminated", []
    st.units[ROYAL_HORSE].hexes = ["1512"]
    st.units[ROYAL_HORSE].morale_state = "shaken"       # a marker row beside other counters
    st.units["p-falcons"].fired = True
    st.last_action = {"items": [
        {"kind": "close_combat", "from": "1612", "to": "1512", "text": "DE"},
        {"kind": "eliminated", "hex": "1512"},
        {"kind": "move", "unit": ROYAL_HORSE, "path": ["1612", "1512"]},
        {"kind": "fire", "from": "1411", "to": "1512", "text": "Miss"}]}
    return st


@pytest.mark.parametrize("which", ["start", "played"])
def test_no_label_under_or_over_a_counter_and_none_overlap(scenario, state, which):
    st = state if which == "start" else _played_state(scenario, state)
    for size in ("full", "crop"):
        lay = tacw.board_layout(scenario, st, size)
        assert lay.labels and lay.counters
        for i, lb in enumerate(lay.labels):
            poly = [(lb.box[0], lb.box[1]), (lb.box[2], lb.box[1]), (lb.box[2], lb.box[3]),
                    (lb.box[0], lb.box[3])]
            for p in lay.counters:
                assert not tacw.polygons_overlap(poly, p.polygon), (size, lb.text, p.kind, p.id)
            for other in lay.labels[i + 1:]:
                b = other.box
                assert not (lb.box[0] < b[2] and b[0] < lb.box[2] and lb.box[1] < b[3]
                            and b[1] < lb.box[3]), (lb.text, other.text)
        # a marker row covers no other unit's counter
        for m in (p for p in lay.counters if p.kind == "markers"):
            for other in (p for p in lay.counters if p.kind == "unit" and p.id != m.id):
                assert not tacw.polygons_overlap(m.polygon, other.polygon), (m.id, other.id)
        # every empty hex in view shows its id; an occupied one shows it on its counter
        ids = {lb.text for lb in lay.labels if lb.style == "hex"}
        occupied = {h for u, *_ in lay.units for h in u.hexes}
        assert not ids & occupied
        if size == "crop":
            assert len(ids) > 40


def test_crop_labels_read_at_discords_display_width(scenario, state):
    """Discord's client shows an image about 550 px wide: every label of the action crop, the
    hex ids printed on the counters and the strip's text are >= 9.5 px tall at that width."""
    st = _played_state(scenario, state)
    lay = tacw.board_layout(scenario, st, "crop")
    img = render(scenario, st, size="crop")
    k = tacw.DISPLAY_W / img.width
    assert img.width <= 1100
    for lb in lay.labels:
        assert lb.size * k >= 9.5, (lb.text, lb.size, img.width)
    from renders.tacw_art import HEX_ID_PX
    assert HEX_ID_PX * lay.geometry.zoom * k >= 9.5
    assert 16 * tacw.strip_scale(img.width) * k >= 9.5
    # the result labels name both results, and the X is not drawn over the unit that advanced
    results = {lb.text for lb in lay.labels if lb.style == "result"}
    assert results == {"DE", "Miss", "Eliminated"}
    assert close(body(img, scenario, "1512", g=lay.geometry), SIDE_COLOURS["royalist"])


def test_strip_text_fits_the_image_and_wraps(scenario, state):
    st = state.copy()
    st.winner, st.phase = "royalist", "over"
    st.result = "Royalist decisive victory: " + "a very long explanation of the result " * 6
    for size in ("full", "crop"):
        img = render(scenario, st, size=size)
        flow = tacw._strip(scenario, st, img.width)
        for line in flow.layout():
            for x, items in line:
                assert x + sum(flow._item_width(i) for i in items) <= img.width - 1
        assert flow.height() <= img.height - tacw.board_geometry(scenario).height or size == "crop"


def test_legend_explains_terrain_hexsides_markers_and_wings(scenario, state):
    st = state.copy()
    st.units[PARL_HORSE].formation = "disordered"
    g = tacw.board_geometry(scenario)
    lay = tacw.board_layout(scenario, st)
    entries = tacw._legend(scenario, st, g, lay)
    names = {text for _, _, text in entries}
    assert {"wood", "village", "ploughed field", "hedged lane", "hedge", "stream (no effect)",
            "slope (ticks point downhill)", "disordered"} <= names
    flow = tacw._strip(scenario, st, g.width, entries)
    words = "".join(i[1] for line in flow.layout() for _, items in line for i in items
                    if i[0] == "text")         # a long group is cut after its words' spaces
    for name in ("Map key:", "wood", "disordered", "rear stripe is the wing's colour",
                 "Royalist wings:", "Parliament wings:"):
        assert name in words, name
    # a crop's key names only what the crop shows
    crop_lay = tacw.board_layout(scenario, _played_state(scenario, state), "crop")
    crop_names = {t for _, _, t in tacw._legend(scenario, st, crop_lay.geometry, crop_lay)}
    assert crop_names < names | {"formation broken", "gun fired", "shaken"}


def test_every_unit_of_a_crop_can_be_named_from_the_image(scenario, state):
    """A counter prints its hex, which names the unit in commands (the first of a stack,
    engine.tacw.sequence.actions.find_unit); the other unit of a stack has its id as a caption,
    or, where the map has no room, in the strip's list of stacks."""
    from engine.tacw.sequence.actions import find_unit
    st = state.copy()
    st.activation = Activation(wing="p-left", side="parliament", number=1, step="actions")
    lay = tacw.board_layout(scenario, st, "crop")
    assert lay.geometry.zoom >= 1.5
    captions = {lb.text for lb in lay.labels if lb.style == "caption"}
    listed = {i for _, ids, _ in lay.stacks for i in ids}
    assert lay.stacks and "p-ramsey" in captions         # Ramsey's horse under a Commanded Shot
    for u, *_ in lay.units:
        named = any(find_unit(st, h).id == u.id for h in u.hexes)
        assert named or u.id in captions or u.id in listed, u.id
    for h, ids, first in lay.stacks:
        assert find_unit(st, h).id == first
    flow = tacw._strip(scenario, st, lay.geometry.width, [], lay.stacks)
    words = "".join(i[1] for line in flow.layout() for _, items in line for i in items
                    if i[0] == "text")
    for h, ids, _ in lay.stacks:
        assert f"{h}: " in words and all(i in words for i in ids)


def test_every_action_crop_of_the_edgehill_demo_reads_at_550_px():
    """The crop after each action of the bundled Edgehill demo (bot/demos) spans few enough hexes
    that its smallest label is >= 9.5 px once Discord shows it DISPLAY_W px wide."""
    from pathlib import Path
    from engine.core.commands import split_side
    from engine.core.game import Game
    script = Path(__file__).resolve().parents[2] / "bot" / "demos" / "tacw--edgehill.txt"
    lines = script.read_text(encoding="utf-8").splitlines()
    seed = next(x.split(":", 1)[1].strip() for x in lines if x.lower().startswith("# seed:"))
    game = Game.new("tacw", "edgehill", seed)
    smallest = min(tacw.LABEL_PX.values())
    crops = 0
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        side, text = split_side(line, game.ruleset.sides)
        game.apply(side or game.to_act, text)
        g = tacw.crop_geometry(game.scenario, game.state)
        if g is None:
            continue
        crops += 1
        assert g.width <= tacw.CROP_MAX_W
        assert smallest * g.zoom * tacw.DISPLAY_W / g.width >= 9.5, (line, g.width, g.zoom)
    assert crops > 300


@pytest.mark.parametrize("battle", ["edgehill", "first-newbury", "marston-moor", "naseby",
                                    "second-newbury"])
def test_area_place_and_victory_labels_all_shown_clear_of_counters(battle):
    """First Newbury's deployment areas and victory hexes were covered by counters: at every
    battle's start each area id (while deploying), place name and victory-hex value is drawn,
    clear of every counter, and at most a handful of empty hexes lack room for their id."""
    from engine.tacw.battles.second_newbury import scenario_view
    from renders.tacw_deploy import area_labels, place_labels
    sc = load_scenario(battle)
    st = new_state(sc, seed=1)
    view = scenario_view(sc, st, public=True)
    lay = tacw.board_layout(sc, st)
    got = {(lb.style, lb.text) for lb in lay.labels}
    for text, *_ in area_labels(lay.geometry, view, st):
        assert ("area", text) in got, text
    for text, *_ in place_labels(lay.geometry, view):
        assert ("place", text) in got, text
    for v in view.victory_hexes:
        assert ("vp", f"{v.vp} VP {tacw.SIDE_NAMES.get(v.side, '')[:1]}".strip()) in got, v.hex
    occupied = {h for u, *_ in lay.units for h in u.hexes}
    missing = [h for h in view.grid if h not in occupied and ("hex", h) not in got]
    assert len(missing) <= 6, missing
    for lb in lay.labels:
        poly = [(lb.box[0], lb.box[1]), (lb.box[2], lb.box[1]), (lb.box[2], lb.box[3]),
                (lb.box[0], lb.box[3])]
        assert not any(tacw.polygons_overlap(poly, p.polygon) for p in lay.counters), lb.text
