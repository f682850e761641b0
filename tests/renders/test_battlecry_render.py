"""Battle Cry board renderer: pixels that must (and must not) appear for a given state.

The scenario is inline TOML so these tests do not depend on the scenario files."""
from __future__ import annotations

import io
import math
import subprocess
import sys

import pytest
from PIL import Image, ImageChops

from engine.battlecry.scenario import parse_scenario
from engine.battlecry.setup import new_state
from renders import battlecry as bc
from renders.battlecry_art import SIDE_COLOURS, TERRAIN_COLOURS

SCENARIO_TOML = """
id = "render-test"
title = "Render Test"
first_player = "union"

[sides.union]
commander = "Union Commander"
cards = 4
home_edge = "south"

[sides.confederate]
commander = "Confederate Commander"
cards = 5
home_edge = "north"

[terrain]
woods = ["0302"]
hill = ["1004"]
river = ["0109"]

[[fences]]
hex = "0905"
front = ["NE"]

[special]
objective_hexes = ["0605"]
road_hexes = ["1107", "1108"]

[[units]]
side = "union"
kind = "infantry"
hex = "0707"
id = "ui1"

[[units]]
side = "union"
kind = "cavalry"
hex = "0408"
id = "uc1"

[[units]]
side = "union"
kind = "general"
hex = "0707"
id = "ug1"

[[units]]
side = "confederate"
kind = "infantry"
hex = "0703"
id = "ci1"

[[units]]
side = "confederate"
kind = "artillery"
hex = "1202"
id = "ca1"
special = "horse_artillery"
"""

EMPTY_CLEAR = "0105"
TOL = 6  # palette quantisation moves flat colours by ~1 per channel


@pytest.fixture(scope="module")
def scenario():
    return parse_scenario(SCENARIO_TOML, source="test")


@pytest.fixture()
def state(scenario):
    return new_state(scenario, seed=3)


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def render(scenario, state, **kw) -> Image.Image:
    return decode(bc.render_board(scenario, state, **kw))


def at(img: Image.Image, scenario, hex_id: str, dx: float = 0, dy: float = 0) -> tuple[int, int, int]:
    x, y = bc.board_geometry(scenario).hex_center(hex_id)
    return img.getpixel((int(round(x + dx)), int(round(y + dy))))


def close(a, b, tol: int = TOL) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) <= tol


def region(img: Image.Image, scenario, hex_id: str, half: int = 24) -> Image.Image:
    x, y = bc.board_geometry(scenario).hex_center(hex_id)
    return img.crop((int(x) - half, int(y) - half, int(x) + half, int(y) + half))


def same(a: Image.Image, b: Image.Image, tol: int = TOL) -> bool:
    """Equal up to palette quantisation noise (the palette is chosen per image)."""
    if a.size != b.size:
        return False
    return max(hi for _, hi in ImageChops.difference(a, b).getextrema()) <= tol


def test_png_decodes_at_a_phone_readable_size(scenario, state):
    png = bc.render_board(scenario, state)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = decode(png)
    assert 1200 <= img.width <= 1400
    assert 800 <= img.height <= 1150                           # a strip that reads at 550 px
    g = bc.board_geometry(scenario)
    assert img.width == g.width and img.height > g.height      # strip below the board
    assert len(png) < 1024 * 1024


def test_units_show_their_side_colour_and_empty_clear_hex_shows_clear(scenario, state):
    img = render(scenario, state)
    union, conf = at(img, scenario, "0707"), at(img, scenario, "0703")
    assert close(union, SIDE_COLOURS["union"]), union
    assert close(conf, SIDE_COLOURS["confederate"]), conf
    assert not close(union, conf, 40)
    assert close(at(img, scenario, "0408"), SIDE_COLOURS["union"])
    assert close(at(img, scenario, EMPTY_CLEAR), TERRAIN_COLOURS["clear"])
    assert not close(TERRAIN_COLOURS["clear"], SIDE_COLOURS["union"], 40)


def test_terrain_fill_under_an_empty_hex(scenario, state):
    img = render(scenario, state)
    # the river hex has wave lines but is mostly water: sample its centre row left of centre
    assert close(at(img, scenario, "0109", dx=-20, dy=-12), TERRAIN_COLOURS["river"], 40)


def test_moved_piece_changes_old_and_new_hex(scenario, state):
    before = render(scenario, state)
    moved = state.copy()
    moved.pieces["ci1"].hex = "0704"
    after = render(scenario, moved)
    assert not same(region(before, scenario, "0703"), region(after, scenario, "0703"))
    assert not same(region(before, scenario, "0704"), region(after, scenario, "0704"))
    assert close(at(after, scenario, "0703"), TERRAIN_COLOURS["clear"])
    assert close(at(after, scenario, "0704"), SIDE_COLOURS["confederate"])
    # unrelated hexes are untouched
    assert same(region(before, scenario, "0408"), region(after, scenario, "0408"))


def test_eliminated_piece_is_not_drawn(scenario, state):
    gone = state.copy()
    gone.pieces["uc1"].hex = None
    img = render(scenario, gone)
    assert close(at(img, scenario, "0408"), TERRAIN_COLOURS["clear"])
    base = render(scenario, state)
    assert not same(region(base, scenario, "0408"), region(img, scenario, "0408"))


def test_attached_general_and_unit_are_both_visible(scenario, state):
    img = render(scenario, state)
    alone = state.copy()
    alone.pieces["ug1"].hex = None
    without = render(scenario, alone)
    assert close(at(img, scenario, "0707"), SIDE_COLOURS["union"])       # unit still on top
    g = bc.board_geometry(scenario)
    below = int(0.66 * g.r)                                                # the General's badge
    assert not same(region(img, scenario, "0707", 50), region(without, scenario, "0707", 50))
    assert at(img, scenario, "0707", dy=below) != at(without, scenario, "0707", dy=below)


def strip(img: Image.Image, scenario) -> Image.Image:
    return img.crop((0, bc.board_geometry(scenario).height, img.width, img.height))


def board(img: Image.Image, scenario) -> Image.Image:
    g = bc.board_geometry(scenario)
    return img.crop((0, 0, g.width, g.height))


def test_info_strip_changes_with_flags_and_board_does_not(scenario, state):
    before = render(scenario, state)
    flagged = state.copy()
    flagged.flags["union"] = 2
    after = render(scenario, flagged)
    assert not same(strip(before, scenario), strip(after, scenario))
    assert same(board(before, scenario), board(after, scenario))


def test_info_strip_shows_hand_sizes_not_cards(scenario, state):
    """Hands are secret (BC §3.1): the channel image depends on hand sizes only."""
    swapped = state.copy()
    swapped.hands["union"] = ["rally"] * len(state.hands["union"])
    a, b = render(scenario, state), render(scenario, swapped)
    assert a.tobytes() == b.tobytes()
    own = render(scenario, swapped, viewer="union")
    assert not same(strip(own, scenario), strip(a, scenario))
    shorter = state.copy()
    shorter.hands["union"] = state.hands["union"][:-1]
    assert not same(strip(render(scenario, shorter), scenario), strip(a, scenario))


def test_rendering_is_deterministic(scenario, state):
    state.last_action = {"items": [{"kind": "move", "piece": "ui1", "path": ["0708", "0707"]}]}
    one, two = bc.render_board(scenario, state), bc.render_board(scenario, state)
    assert one == two
    assert decode(one).tobytes() == decode(two).tobytes()


def _midpoint(scenario, a: str, b: str) -> tuple[int, int]:
    g = bc.board_geometry(scenario)
    (ax, ay), (bx, by) = g.hex_center(a), g.hex_center(b)
    return int(round((ax + bx) / 2)), int(round((ay + by) / 2))


def test_move_overlay_draws_on_the_path(scenario, state):
    plain = render(scenario, state)
    moved = state.copy()
    moved.pieces["uc1"].hex = "0607"
    moved.last_action = {"kind": "move", "piece": "uc1", "path": ["0408", "0508", "0607"]}
    no_overlay = moved.copy()
    no_overlay.last_action = {}
    with_arrow, without = render(scenario, moved), render(scenario, no_overlay)
    for a, b in (("0408", "0508"), ("0508", "0607")):
        p = _midpoint(scenario, a, b)
        assert with_arrow.getpixel(p) != without.getpixel(p), (a, b)
    assert close(at(with_arrow, scenario, "0508"), bc.MOVE_COLOUR, 10)
    assert same(region(plain, scenario, "0105"), region(with_arrow, scenario, "0105"))


def test_items_list_battle_retreat_and_elimination_are_all_drawn(scenario, state):
    st = state.copy()
    st.pieces["ci1"].hex = None
    st.last_action = {"items": [
        {"kind": "battle", "piece": "ui1", "from": "0707", "to": "0705", "hits": 2, "retreats": 0},
        {"kind": "retreat", "piece": "ca1", "path": ["1202", "1201"]},
        {"kind": "eliminated", "hex": "0703"},
    ]}
    st.pieces["ca1"].hex = "1201"
    bare = st.copy()
    bare.last_action = {}
    a, b = render(scenario, st), render(scenario, bare)
    g = bc.board_geometry(scenario)
    ring = at(a, scenario, "0705", dx=0.8 * g.r - 4)               # target ring, east side
    assert close(ring, bc.BATTLE_COLOUR, 30), ring
    assert not close(at(b, scenario, "0705", dx=0.8 * g.r - 4), ring, 30)
    assert close(at(a, scenario, "0703"), bc.BATTLE_COLOUR, 30)     # the cross on its centre
    assert a.getpixel(_midpoint(scenario, "1202", "1201")) != b.getpixel(_midpoint(scenario, "1202", "1201"))
    battle_line = _midpoint(scenario, "0707", "0705")                # halfway along the arrow
    assert close(a.getpixel(battle_line), bc.BATTLE_COLOUR, 30), a.getpixel(battle_line)
    assert not close(b.getpixel(battle_line), bc.BATTLE_COLOUR, 30)


def test_fence_on_its_front_side_only(scenario, state):
    img = render(scenario, state)
    g = bc.board_geometry(scenario)
    ne = scenario.grid.side_index("NE")
    a, b = g.side_segment("0905", ne, inset=0.9)
    cx, cy = g.hex_center("0905")
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    assert mid[0] > cx and mid[1] < cy                    # the NE side is up and to the right
    fence = img.getpixel((int(mid[0] + 0.3 * (b[0] - a[0]) / 2), int(mid[1] + 0.3 * (b[1] - a[1]) / 2)))
    assert close(fence, bc.FENCE, 40) or close(fence, bc.FENCE_RAIL, 40), fence
    sw = g.side_segment("0905", scenario.grid.side_index("SW"), inset=0.9)
    sw_mid = ((sw[0][0] + sw[1][0]) / 2, (sw[0][1] + sw[1][1]) / 2)
    assert close(img.getpixel((int(sw_mid[0]), int(sw_mid[1]))), TERRAIN_COLOURS["clear"])


def test_section_lines_at_4_5_and_8_5_hex_widths(scenario, state):
    img = render(scenario, state)
    g = bc.board_geometry(scenario)
    west = g.hex_center("0101")[0] - g.hex_width / 2
    for k in (4.5, 8.5):
        x = int(round(west + k * g.hex_width))
        column = [img.getpixel((x, y)) for y in range(int(g.board_top), int(g.board_bottom))]
        red = sum(close(p, bc.SECTION_LINE, 40) for p in column)
        assert red > 0.3 * len(column), (k, red)
        beside = [img.getpixel((x + 12, y)) for y in range(int(g.board_top), int(g.board_bottom))]
        assert sum(close(p, bc.SECTION_LINE, 40) for p in beside) < 0.05 * len(beside)
    # 4.5 hex widths from the west edge runs through the centre of hex 0501 (split hex, BC §1)
    assert abs(g.section_line_x()[0] - g.hex_center("0501")[0]) < 1


def test_field_works_from_state_are_drawn(scenario, state):
    base = render(scenario, state)
    fw = state.copy()
    fw.field_works["0707"] = ["union", []]
    img = render(scenario, fw)
    assert not same(region(base, scenario, "0707", 45), region(img, scenario, "0707", 45))
    assert close(at(img, scenario, "0707"), SIDE_COLOURS["union"])


def test_pending_retreat_and_winner_show_in_strip(scenario, state):
    base = strip(render(scenario, state), scenario)
    pend = state.copy()
    pend.pending = {"kind": "retreat", "side": "confederate", "piece": "ci1", "options": ["0602"]}
    img = render(scenario, pend)
    assert not same(strip(img, scenario), base)
    assert not same(region(img, scenario, "0602", 50), region(render(scenario, state), scenario, "0602", 50))
    won = state.copy()
    won.winner, won.result = "union", "6 flags to 2"
    assert not same(strip(render(scenario, won), scenario), base)


def test_crop_zooms_on_the_last_action(scenario, state):
    full = render(scenario, state, size="crop")
    assert full.size == render(scenario, state).size          # nothing to crop around
    st = state.copy()
    st.last_action = {"items": [{"kind": "move", "piece": "uc1", "path": ["0408", "0508"]}]}
    st.pieces["uc1"].hex = "0508"
    crop = render(scenario, st, size="crop")
    assert crop.width < full.width and crop.height < full.height
    with pytest.raises(ValueError):
        bc.render_board(scenario, st, size="huge")


def test_bad_overlay_data_is_ignored(scenario, state):
    st = state.copy()
    st.last_action = {"items": [{"kind": "move", "path": ["9999", None]}, {"kind": "battle", "to": None},
                                "junk", {"kind": "eliminated", "hex": 5}]}
    assert render(scenario, st).tobytes() == render(scenario, state).tobytes()


def test_renderer_imports_no_discord_or_sqlite():
    code = ("import sys, renders.battlecry, renders.common; "
            "bad = [m for m in ('discord', 'sqlite3', 'aiosqlite', 'bot') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# --- issue 12: what the board says after end and resign, and a strip that never cuts a line ------
def test_last_action_overlay_clears_after_end_and_resign(scenario, state):
    st = state.copy()
    st.phase = "actions"
    st.last_action = {"items": [{"kind": "move", "piece": "ui1", "path": ["0708", "0707"]}]}
    bare = st.copy()
    bare.last_action = {}
    assert render(scenario, st).tobytes() != render(scenario, bare).tobytes()
    ended = st.copy()                       # `end`: the other side is at the card phase of turn 2
    ended.phase, ended.turn, ended.active = "card", 2, "confederate"
    ended_bare = ended.copy()
    ended_bare.last_action = {}
    assert render(scenario, ended).tobytes() == render(scenario, ended_bare).tobytes()
    resigned = st.copy()                    # `resign`: the battle is over, conceded
    resigned.phase, resigned.winner, resigned.conceded = "over", "confederate", True
    resigned.result = "Union resigns"
    resigned_bare = resigned.copy()
    resigned_bare.last_action = {}
    assert render(scenario, resigned).tobytes() == render(scenario, resigned_bare).tobytes()


def test_long_victory_line_wraps_inside_the_image(scenario, state):
    st = state.copy()
    st.phase, st.winner = "over", "confederate"
    st.result = ("Confederate victory: Union resigns; a resignation concedes the battle and every "
                 "flag still to be won, " * 3)
    img = render(scenario, st)
    flow = bc._strip(scenario, st, img.width, None)
    words = []
    for line in flow.layout():
        for x, items in line:
            assert x + sum(flow._item_width(i) for i in items) <= img.width - 1
            words += [i[1] for i in items if i[0] == "text"]
    assert "".join(words).count("concedes the battle") == 3     # nothing cut off


def test_result_labels_cover_no_hex_id_or_piece_and_no_cross_over_a_unit(scenario, state):
    st = state.copy()
    st.phase = "actions"
    # ui1 (0707) battled a unit in 0706 and eliminated it; uc1 took the ground
    st.pieces["ci1"].hex = None
    st.pieces["uc1"].hex = "0706"
    st.last_action = {"items": [{"kind": "battle", "piece": "ui1", "from": "0707", "to": "0706",
                                 "hits": 2, "retreats": 1},
                                {"kind": "eliminated", "hex": "0706"}]}
    g = bc.board_geometry(scenario)
    labels = bc.result_labels(g, scenario, st)
    assert [t for t, _ in labels] == ["2 hits, 1 flag", "Eliminated"]
    ids = [bc.hex_id_box(g, h) for h in scenario.grid]
    pieces = [b for _, b in bc.piece_boxes(g, scenario, st)]
    for text, box in labels:
        for other in ids + pieces:
            assert not bc._overlaps(box, other), (text, box, other)
        assert bc._overlaps(box, (0, 0, g.width, g.height))
    img = render(scenario, st)
    x, y = g.hex_center("0706")
    assert not close(img.getpixel((int(x), int(y))), bc.BATTLE_COLOUR, 60)   # no X over uc1
    st.pieces["uc1"].hex = "0408"                                            # hex left empty: X
    img = render(scenario, st)
    assert close(img.getpixel((int(x), int(y))), bc.BATTLE_COLOUR, 60)


def test_strip_reads_at_discords_width_and_keys_fences_and_field_works(scenario, state):
    img = render(scenario, state)
    k = bc.DISPLAY_W / img.width
    assert 17 * bc.strip_scale(img.width) * k >= 9.5
    # the rulers (column numbers above and below, row numbers beside) read where hex ids cannot
    assert math.ceil(bc.RULER_TEXT_PX * img.width / bc.DISPLAY_W) * k >= 9.5
    g = bc.board_geometry(scenario)
    assert g.board_top >= bc.RULER_BAND + bc.EDGE_BAND and g.height - g.board_bottom >= bc.RULER_BAND
    flow = bc._strip(scenario, state, img.width, None)
    words = "".join(i[1] for line in flow.layout() for _, items in line for i in items
                    if i[0] == "text")
    assert "fence (on the hexside it protects)" in words
    assert "Field works (on the sides they face)" in words
    assert any(i[0] == "image" for line in flow.layout() for _, items in line for i in items)


def test_the_crop_reads_at_discords_width(scenario, state):
    """The crop around an action (size="crop") is narrow enough that its hex ids, counter ids,
    result labels and strip read at >= 9.5 px once shown DISPLAY_W px wide (the full board, 1296
    px, is an overview at that size)."""
    st = state.copy()
    st.phase = "actions"
    st.last_action = {"items": [{"kind": "battle", "piece": "ui1", "from": "0707", "to": "0703",
                                 "hits": 1, "retreats": 0}]}
    img = render(scenario, st, size="crop")
    k = bc.DISPLAY_W / img.width
    assert img.width < 700
    assert bc.HEX_ID_PX * k >= 9.5                  # hex ids (terrain layer)
    assert 13 * k >= 9.5                            # counter ids and result labels (13 px bold)
    assert 17 * bc.strip_scale(img.width) * k >= 9.5
