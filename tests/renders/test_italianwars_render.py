"""Italian Wars table renderer (renders/italianwars.py): pixels that must (and must not) appear.

Both battles (engine/italianwars/scenarios: Fornovo 1495, Ravenna 1512) from their first state
(`engine.italianwars.setup.new_state`), edited by hand: the tests read the renderer, not the rules.
Positions are checked through the renderer's own transform (`board_view(sc).px(x, y)`: table UDM,
y north, to pixels, y down) against the shared geometry (engine.core.table.geometry and
`tables.footprint`, HERALD D1), so a company drawn anywhere but where the rules measure it fails.
Secrets (HERALD D4, D65): a hidden company must not reach the enemy's or the channel's picture,
and a battle's secret order and a side's Ecu must not reach the wrong viewer's strip.
"""
from __future__ import annotations

import io

import pytest
from PIL import Image
from shapely.geometry import box as shp_box

from engine.core.table.geometry import Pose, forward
from engine.italianwars import tables
from engine.italianwars.public import view
from engine.italianwars.scenario import load_scenario
from engine.italianwars.setup import new_state
from renders import italianwars as R
from renders.italianwars_art import GROUND, NATION_COLOURS

BATTLES = ("fornovo", "ravenna")
TOL = 16
MAX_BYTES = 500 * 1024


@pytest.fixture(scope="module", params=BATTLES)
def sc(request):
    return load_scenario(request.param)


@pytest.fixture(scope="module")
def fornovo():
    return load_scenario("fornovo")


def fresh(sc):
    st = new_state(sc, 1)
    st.turn, st.clock, st.weather = 2, 9, "good"
    return st


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.format == "PNG"
    return img.convert("RGB")


def close(a, b, tol: int = TOL) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) <= tol


def at(img, v, x: float, y: float):
    px, py = v.px(x, y)
    return img.getpixel((int(px), int(py)))


def point(pose: Pose, across: float, back: float) -> tuple[float, float]:
    """The table point `across` UDM right of a company's front centre and `back` UDM behind it."""
    fx, fy = forward(pose.facing)
    return pose.x + fy * across - fx * back, pose.y - fx * across - fy * back


def empty_spot(sc, st) -> tuple[float, float]:
    """A place in open ground away from every feature, company, camp and deployment edge."""
    taken = [f.geometry for f in sc.features]
    for y in (19.3, 18.3, 20.3, 11.3, 12.3):
        for x in range(3, 42):
            x += 0.3
            b = shp_box(x - 1.6, y - 3.6, x + 1.6, y + 1.6)
            if not any(g.intersects(b) for g in taken):
                return x, y
    raise AssertionError("no empty ground")


def move_alone(st, cid: str, x: float, y: float, facing: float = 0.0):
    c = st.companies[cid]
    c.x, c.y, c.facing = x, y, facing
    return c


def pick(sc, arm: str, side: str = "french") -> str:
    return next(c.id for c in sc.companies if c.arm == arm and c.side == side and c.bases >= 2)


def test_full_and_crop_are_valid_bounded_pngs(sc):
    """Both battles, full and crop: valid PNGs, the full board FULL_WIDTH wide, a crop at most
    CROP_W wide, each under 500 KiB."""
    st = fresh(sc)
    cid = pick(sc, "cavalry")
    c = st.companies[cid]
    st.last_action = {"kind": "move", "units": [cid], "from": [[c.x, c.y, c.facing]],
                      "paths": [[[c.x, c.y], [c.x, c.y + 3]]]}
    c.y += 3
    full = R.render_board(sc, st)
    crop = R.render_board(sc, st, size="crop")
    fi, ci = decode(full), decode(crop)
    assert fi.width == R.FULL_WIDTH and fi.height > fi.width * 0.6
    assert ci.width <= R.CROP_W and ci.width < fi.width
    assert len(full) < MAX_BYTES and len(crop) < MAX_BYTES
    v = R.crop_view_of(sc, st)
    assert v is not None and v.kind == "crop"
    assert v.vx0 <= c.x <= v.vx1 and v.vy0 <= c.y <= v.vy1      # the crop shows the mover
    st.last_action = {}
    assert R.crop_view_of(sc, st) is None
    assert decode(R.render_board(sc, st, size="crop")).width == R.CROP_W     # the overview


def test_deterministic(fornovo):
    """The same state gives the same bytes (full and crop, every viewer)."""
    st = fresh(fornovo)
    st.companies["king"].disordered = True
    for viewer in (None, "french", "league"):
        for size in ("full", "crop"):
            assert R.render_board(fornovo, st, viewer=viewer, size=size) == \
                R.render_board(fornovo, st, viewer=viewer, size=size)


def test_company_drawn_where_the_geometry_puts_it(sc):
    """A company is its true rectangle (HERALD D1: 1 UDM wide, bases x depth deep) at its pose:
    its body colour inside the rectangle's rear corners, open ground just outside them; moved,
    it is drawn at the new place and no longer at the old."""
    st = fresh(sc)
    cid = pick(sc, "cavalry")
    x, y = empty_spot(sc, st)
    c = move_alone(st, cid, x, y, 0.0)
    fp = tables.footprint("cavalry", c.bases)
    body = NATION_COLOURS[sc.company(cid).nation][0]
    v = R.board_view(sc)
    img = decode(R.render_board(sc, st))
    pose = Pose(c.x, c.y, c.facing)
    for across in (-0.35, 0.35):
        assert close(at(img, v, *point(pose, across, fp.depth - 0.1)), body)
        assert close(at(img, v, *point(pose, across, fp.depth + 0.2)), GROUND, 24)   # behind: ground
    assert close(at(img, v, *point(pose, 0.7, fp.depth / 2)), GROUND, 24)          # beside: ground
    move_alone(st, cid, x, y, 90.0)                 # facing east: the rectangle lies west of x
    img2 = decode(R.render_board(sc, st))
    assert close(at(img2, v, x - fp.depth + 0.1, y + 0.35), body)
    assert not close(at(img2, v, x + 0.35, y - fp.depth + 0.1), body)


def test_hidden_company_only_for_its_owner(fornovo):
    """HERALD D4/D65: a hidden company (an ambush) is not drawn for the enemy nor the channel;
    its owner sees it (dashed and pale)."""
    st = fresh(fornovo)
    cid = "m_light"                                  # League light horse
    x, y = empty_spot(fornovo, st)
    c = move_alone(st, cid, x, y, 0.0)
    c.hidden = True
    fp = tables.footprint("cavalry", c.bases)
    body = NATION_COLOURS["milanese"][0]
    v = R.board_view(fornovo)
    spot = point(Pose(x, y, 0.0), 0.3, fp.depth / 2 + 0.15)
    owner = decode(R.render_board(fornovo, st, viewer="league"))
    for viewer in ("french", None):
        img = decode(R.render_board(fornovo, st, viewer=viewer))
        assert close(at(img, v, *spot), GROUND, 24)
        assert not close(at(img, v, *spot), at(owner, v, *spot), 20)
    seen = at(owner, v, *spot)
    dist_body = sum(abs(p - q) for p, q in zip(seen, body))
    dist_ground = sum(abs(p - q) for p, q in zip(seen, GROUND))
    assert dist_body < dist_ground
    st.last_action = {"kind": "move", "units": [cid], "from": [[x, y - 3, 0.0]],
                      "paths": [[[x, y - 3], [x, y]]]}
    assert R.crop_view_of(fornovo, st, "french") is None          # its move is not shown either
    assert R.crop_view_of(fornovo, st, "league") is not None
    box = (0, 0, v.width, v.height)                   # the board (the strips differ: own orders, Ecu)
    french = R.render_board_image(fornovo, st, viewer="french").crop(box)     # before the palette
    channel = R.render_board_image(fornovo, st, viewer=None).crop(box)
    assert french.tobytes() == channel.tobytes()
    st.last_action = {}
    c.hidden = False                                  # revealed: everyone sees it at full colour
    img = decode(R.render_board(fornovo, st, viewer="french"))
    assert close(at(img, v, *spot), body)


def _texts(flow) -> str:
    return " ".join(str(i[1]) for items, _ in flow.groups for i in items if i[0] == "text")


def test_strip_secrets(fornovo):
    """HERALD D4: an unrevealed order is shown to its own side only (marked secret), a revealed
    one to everyone; the Ecu only to its own side (IW Tesoro)."""
    st = fresh(fornovo)
    st.battles["gonzaga"].order = "retreat"
    st.battles["vanguard"].order = "assault"
    st.battles["vanguard"].revealed = True
    st.armies["french"].ecu, st.armies["league"].ecu = 4, 5

    def strip(viewer):
        return _texts(R._strip(fornovo, st, view(fornovo, st, viewer), viewer, 1600))
    for viewer in (None, "french"):
        t = strip(viewer)
        assert "Retreat" not in t and "Assault" in t
        assert "Ecu 5" not in t
    assert "your Ecu 4" in strip("french") and "Ecu" not in strip(None)
    league = strip("league")
    assert "Retreat (secret)" in league and "your Ecu 5" in league and "Ecu 4" not in league


def test_disordered_marker(fornovo):
    """Disordine: a red diamond at the company's rear centre (and the DIS tag)."""
    st = fresh(fornovo)
    cid = "b_foot"                                    # 4 bases of infantry: 2 UDM deep
    x, y = empty_spot(fornovo, st)
    c = move_alone(st, cid, x, y, 0.0)
    fp = tables.footprint("infantry", 4)
    v = R.board_view(fornovo)
    spot = point(Pose(x, y, 0.0), 0.0, fp.depth - 0.2)
    before = decode(R.render_board(fornovo, st))
    assert not close(at(before, v, *spot), R.DIS_COLOUR, 30)
    c.disordered = True
    after = decode(R.render_board(fornovo, st))
    assert close(at(after, v, *spot), R.DIS_COLOUR, 30)
    assert "DIS" in R.company_tags(c)


def test_type_labels(fornovo):
    """The short labels of the text's troop kinds (IW Tipi di truppe): pikes, halberds, lancers,
    mounted archers, stradiots, light horse, guns, crossbows."""
    lab = {c.id: R.type_label(c) for c in fornovo.companies}
    assert lab["b_foot"] == "PK" and lab["swiss_halberds"] == "HB" and lab["king"] == "GD"
    assert lab["scots"] == "LB" and lab["contarini"] == "ST" and lab["m_light"] == "LH"
    assert lab["v_guns"] == "ART" and lab["r_gascons"] == "XB"
    rav = load_scenario("ravenna")
    lab = {c.id: R.type_label(c) for c in rav.companies}
    assert lab["carts1"] == "WC" and lab["lk_shot"] == "AQ" and lab["colunella1"] == "PK+AQ"


def test_the_melee_tag_means_in_contact_now():
    """A company that fought this turn and then routed (in_melee, no melee_with) is tagged ROUT,
    not MEL; one in contact is tagged MEL."""
    from engine.italianwars.state import Company
    from renders.italianwars import company_tags
    routed = Company("x", "french", "b", 1.0, 1.0, 0.0, 2, status="routing", in_melee=True)
    fighting = Company("y", "league", "c", 1.0, 2.0, 180.0, 2, in_melee=True, melee_with=["x"])
    assert "MEL" not in company_tags(routed) and "ROUT" in company_tags(routed)
    assert "MEL" in company_tags(fighting)
