"""Open-table geometry: poses, base rectangles, distances, arcs, contact and line of sight.

Shared by the open-table rulesets (Lion of the North in centimetres, the Italian Wars in base
widths): it knows no ruleset, and its numbers are in whatever unit the caller measures in.
Everything a rule may want to vary (the arc's half-angle, the contact tolerance, the face of a
base) is an argument with a default.

Conventions (engine/lion/state.py's docstring states them for Lion):
- the table's origin at its south-west corner, x east, y north;
- a `Pose` is the centre of a base's FRONT edge and its facing, a compass bearing in degrees
  (0 = +y, 90 = +x, clockwise); the base extends `depth` behind its front edge;
- a base's four faces are "front", "rear", "left" and "right" (left and right as seen by the base
  itself, looking along its facing);
- every number returned as a result (a distance, a corner, a pose, an angle) is rounded with `rnd`
  / `norm_angle` (2 decimals, never -0.0), so a replay is bit for bit. The shapely polygons are
  built from the exact corners of the (rounded) pose: rounding their vertices too would open or
  close gaps of 0.01 between bases placed exactly side by side; a distance measured on them is
  rounded before it is returned.

Shapely 2 does the polygon work (distances, intersections, hulls): no hand-written clipping.
Pure and deterministic: no randomness, fixed iteration orders.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.ops import nearest_points, unary_union

CONTACT_TOL = 0.05          # two bases touch when their rectangles are at most this far apart (L3)
FACES = ("front", "rear", "left", "right")
BIG = 100_000.0             # "unlimited" reach of an arc: far beyond any table


# --- numbers ----------------------------------------------------------------------------------------
def rnd(v: float) -> float:
    """Round to 2 decimals (0.01 of the unit); never -0.0."""
    return round(float(v), 2) + 0.0


def norm_angle(deg: float) -> float:
    """A compass bearing in [0, 360), rounded to 0.01 degree (359.999 becomes 0.0)."""
    a = round(float(deg) % 360.0, 2)
    if a >= 360.0:
        a = 0.0
    return a + 0.0


def angle_between(a: float, b: float) -> float:
    """Signed difference b - a of two bearings, in (-180, 180], rounded: positive = b is clockwise
    of a."""
    d = (float(b) - float(a)) % 360.0
    if d > 180.0:
        d -= 360.0
    return rnd(d)


_EXACT = {0.0: (0.0, 1.0), 90.0: (1.0, 0.0), 180.0: (0.0, -1.0), 270.0: (-1.0, 0.0)}


def sincos(deg: float) -> tuple[float, float]:
    """(sin, cos) of a bearing; exact at the right angles so a base facing 90 has exact corners."""
    d = float(deg) % 360.0
    if d in _EXACT:
        return _EXACT[d]
    r = math.radians(d)
    return math.sin(r), math.cos(r)


def forward(facing: float) -> tuple[float, float]:
    """Unit vector of a compass bearing (0 = +y, 90 = +x)."""
    s, c = sincos(facing)
    return s, c


def rightward(facing: float) -> tuple[float, float]:
    """Unit vector to the right of a base facing `facing` (its bearing + 90)."""
    s, c = sincos(facing)
    return c, -s


def rotate_point(px: float, py: float, cx: float, cy: float, deg: float) -> tuple[float, float]:
    """The point (px, py) turned `deg` degrees CLOCKWISE (compass sense) about (cx, cy); exact
    floats (round them before storing)."""
    s, c = sincos(deg)
    dx, dy = px - cx, py - cy
    return cx + dx * c + dy * s, cy - dx * s + dy * c


def bearing_to(x0: float, y0: float, x1: float, y1: float) -> float:
    """Compass bearing from (x0, y0) to (x1, y1), rounded (0.0 for the same point)."""
    return norm_angle(math.degrees(math.atan2(x1 - x0, y1 - y0)))


# --- poses and bases --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pose:
    """The centre of a base's front edge and its facing (compass degrees)."""
    x: float
    y: float
    facing: float

    @classmethod
    def rounded(cls, x: float, y: float, facing: float) -> "Pose":
        return cls(rnd(x), rnd(y), norm_angle(facing))


@dataclass(frozen=True)
class Footprint:
    """A base's frontage (`width`, along its front edge) and `depth` (behind the front edge)."""
    width: float
    depth: float


def _corners(pose: Pose, fp: Footprint) -> dict[str, tuple[float, float]]:
    fx, fy = forward(pose.facing)
    rx, ry = rightward(pose.facing)
    hw, d = fp.width / 2.0, fp.depth
    x, y = pose.x, pose.y
    return {
        "front_left": (x - rx * hw, y - ry * hw),
        "front_right": (x + rx * hw, y + ry * hw),
        "rear_left": (x - rx * hw - fx * d, y - ry * hw - fy * d),
        "rear_right": (x + rx * hw - fx * d, y + ry * hw - fy * d),
    }


def corners(pose: Pose, fp: Footprint) -> dict[str, tuple[float, float]]:
    """The four corners, rounded: front_left, front_right, rear_left, rear_right."""
    return {k: (rnd(x), rnd(y)) for k, (x, y) in _corners(pose, fp).items()}


def centre(pose: Pose, fp: Footprint) -> tuple[float, float]:
    """The centre of the base (half its depth behind the front-centre), exact floats."""
    fx, fy = forward(pose.facing)
    return pose.x - fx * fp.depth / 2.0, pose.y - fy * fp.depth / 2.0


# The shapes of a base are built once for its numbers and shared (shapely geometries are
# immutable): a rules check measures the same few dozen bases against each other hundreds of
# times. Keyed on the numbers themselves, so a base that moves simply has another key.
_SHAPES: dict[tuple, object] = {}
_SHAPES_MAX = 50_000


def _shape_key(kind: str, pose: Pose, fp: Footprint, *more) -> tuple:
    return (kind, float(pose.x), float(pose.y), float(pose.facing), float(fp.width), float(fp.depth)) + more


def _remember(key: tuple, value):
    if len(_SHAPES) >= _SHAPES_MAX:
        _SHAPES.clear()
    _SHAPES[key] = value
    return value


def base_polygon(pose: Pose, fp: Footprint) -> Polygon:
    """The base's rectangle: the front edge centred on the pose, `depth` behind it."""
    key = _shape_key("poly", pose, fp)
    got = _SHAPES.get(key)
    if got is not None:
        return got
    c = _corners(pose, fp)
    return _remember(key, Polygon([c["front_left"], c["front_right"], c["rear_right"], c["rear_left"]]))


def edges(pose: Pose, fp: Footprint) -> dict[str, LineString]:
    """The four edges as segments: front (left to right), rear (left to right), left (front to
    rear), right (front to rear)."""
    key = _shape_key("edges", pose, fp)
    got = _SHAPES.get(key)
    if got is None:
        c = _corners(pose, fp)
        got = _remember(key, (
            ("front", LineString([c["front_left"], c["front_right"]])),
            ("rear", LineString([c["rear_left"], c["rear_right"]])),
            ("left", LineString([c["front_left"], c["rear_left"]])),
            ("right", LineString([c["front_right"], c["rear_right"]])),
        ))
    return dict(got)


def reach_radius(fp: Footprint) -> float:
    """How far any point of a base lies from its centre at most: half its diagonal."""
    return math.hypot(fp.width, fp.depth) / 2.0


def face_bearing(pose: Pose, face: str = "front") -> float:
    """The outward bearing of a face: front = facing, right = +90, rear = +180, left = -90."""
    _check_face(face)
    turn = {"front": 0.0, "right": 90.0, "rear": 180.0, "left": 270.0}[face]
    return norm_angle(pose.facing + turn)


def _face_ends(pose: Pose, fp: Footprint, face: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The face's two ends, (left end, right end) as seen looking OUT of the face."""
    c = _corners(pose, fp)
    return {
        "front": (c["front_left"], c["front_right"]),
        "right": (c["front_right"], c["rear_right"]),
        "rear": (c["rear_right"], c["rear_left"]),
        "left": (c["rear_left"], c["front_left"]),
    }[face]


def _check_face(face: str) -> None:
    if face not in FACES:
        raise ValueError(f"unknown face {face!r}: expected one of {', '.join(FACES)}")


# --- distances ---------------------------------------------------------------------------------------
def distance(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint) -> float:
    """The shortest distance between the two rectangles (0 when they touch or overlap), rounded
    (HERALD L3 for Lion)."""
    return rnd(base_polygon(pa, fa).distance(base_polygon(pb, fb)))


def front_distance(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint, face: str = "front") -> float:
    """From a face edge of base a to the nearest point of base b, rounded (range measured from
    the shooter's front edge, L3)."""
    _check_face(face)
    return rnd(edges(pa, fa)[face].distance(base_polygon(pb, fb)))


def distance_floor(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint) -> float:
    """A cheap lower bound of `distance` (no shapely): the centres' distance less both half
    diagonals. When it exceeds a limit by more than the rounding (0.01), so does `distance`."""
    ax, ay = centre(pa, fa)
    bx, by = centre(pb, fb)
    return math.hypot(ax - bx, ay - by) - reach_radius(fa) - reach_radius(fb)


def front_distance_floor(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint, face: str = "front") -> float:
    """A cheap lower bound of `front_distance` (no shapely): from the face's middle to b's
    centre, less half the face's length and b's half diagonal."""
    (lx, ly), (rx_, ry_) = _face_ends(pa, fa, face)
    bx, by = centre(pb, fb)
    half = math.hypot(rx_ - lx, ry_ - ly) / 2.0
    return math.hypot((lx + rx_) / 2.0 - bx, (ly + ry_) / 2.0 - by) - half - reach_radius(fb)


def boxes_apart(a: tuple, b: tuple) -> bool:
    """Two bounding boxes (x0, y0, x1, y1, as Shapely's `bounds`) do not meet: the shapes inside
    them have no point in common (the cheap test before a Shapely one)."""
    return a[0] > b[2] or a[2] < b[0] or a[1] > b[3] or a[3] < b[1]


def touching(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint, tol: float = CONTACT_TOL) -> bool:
    """The two bases touch (or overlap): their rectangles are at most `tol` apart."""
    return base_polygon(pa, fa).distance(base_polygon(pb, fb)) <= tol


# --- arcs ----------------------------------------------------------------------------------------------
def arc_polygon(pose: Pose, fp: Footprint, reach: float | None, half_angle: float = 30.0,
                face: str = "front") -> Polygon:
    """The arc of a face: the region beyond the face edge between two rays leaving the face's
    ends `half_angle` degrees outward of the face's bearing (L5 for Lion, 30 degrees), cut at
    `reach` from the face edge (None = unlimited). A point within `reach` of the edge means within
    reach of its nearest point of the edge, so near the ends the cut is a circular arc."""
    _check_face(face)
    if not 0.0 <= half_angle < 90.0:
        raise ValueError(f"the half-angle of an arc must be at least 0 and under 90, not {half_angle}")
    key = _shape_key("arc", pose, fp, None if reach is None else float(reach), float(half_angle), face)
    got = _SHAPES.get(key)
    if got is None:
        got = _remember(key, _arc_polygon(pose, fp, reach, half_angle, face))
    return got


def _arc_polygon(pose: Pose, fp: Footprint, reach: float | None, half_angle: float, face: str) -> Polygon:
    (lx, ly), (rx_, ry_) = _face_ends(pose, fp, face)
    out = face_bearing(pose, face)
    long = BIG if reach is None else max(float(reach), 0.0) / math.cos(math.radians(half_angle)) + 1.0
    dlx, dly = forward(out - half_angle)
    drx, dry = forward(out + half_angle)
    wedge = Polygon([(lx, ly), (lx + dlx * long, ly + dly * long),
                     (rx_ + drx * long, ry_ + dry * long), (rx_, ry_)])
    if reach is None:
        return wedge
    edge = LineString([(lx, ly), (rx_, ry_)])
    return wedge.intersection(edge.buffer(max(float(reach), 0.0), quad_segs=64))


def in_arc(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint, reach: float | None = None,
           half_angle: float = 30.0, face: str = "front") -> bool:
    """Any part of base b lies in the arc of a's face (L5: the target is in arc when any part of
    its base is inside), within `reach` when given."""
    return arc_polygon(pa, fa, reach, half_angle, face).intersects(base_polygon(pb, fb))


# --- contact -----------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def contact_edge(target_pose: Pose, target_fp: Footprint, other_pose: Pose, other_fp: Footprint,
                 tol: float = CONTACT_TOL) -> str | None:
    """Which edge of the TARGET the other base touches: "front", "rear", "left" or "right", or
    None when they do not touch. When the other touches two edges (at a corner), the edge with
    the longer overlap (the length of the edge within `tol` of the other base) wins; on equal
    overlaps (to 0.01), the edge the other base's centre lies furthest beyond (the edge facing
    it); then the fixed order front, rear, left, right. A pure function of frozen poses and
    footprints, so it is cached: a what-if meets the same contacts in every leaf."""
    other = base_polygon(other_pose, other_fp)
    if base_polygon(target_pose, target_fp).distance(other) > tol:
        return None
    near = other.buffer(tol, quad_segs=8)
    ocx, ocy = centre(other_pose, other_fp)
    best: tuple | None = None
    for rank, face in enumerate(FACES):
        edge = edges(target_pose, target_fp)[face]
        if edge.distance(other) > tol:
            continue
        overlap = rnd(edge.intersection(near).length)
        (ax, ay), (bx, by) = _face_ends(target_pose, target_fp, face)
        nx, ny = forward(face_bearing(target_pose, face))
        beyond = rnd((ocx - (ax + bx) / 2.0) * nx + (ocy - (ay + by) / 2.0) * ny)
        key = (-overlap, -beyond, rank)
        if best is None or key < best[0]:
            best = (key, face)
    return None if best is None else best[1]


def conform(mover_pose: Pose, mover_fp: Footprint, target_pose: Pose, target_fp: Footprint,
            edge: str, at: tuple[float, float] | None = None) -> Pose:
    """The mover's pose with its front edge flush against the target's `edge` (L6 for Lion):
    facing straight into the target (the edge's outward bearing + 180), its front-centre on the
    edge's line at the point `at` (projected on the line), clamped so the two edges overlap as
    much as they can (a narrower mover lies wholly along the edge; a wider one covers it all).
    `at` None: the point of touch, i.e. the middle of the part of the edge within CONTACT_TOL of
    the mover (the nearest point of the edge when they do not touch). Rounded."""
    _check_face(edge)
    (ax, ay), (bx, by) = _face_ends(target_pose, target_fp, edge)
    seg = LineString([(ax, ay), (bx, by)])
    length = seg.length
    mx, my = (ax + bx) / 2.0, (ay + by) / 2.0
    ux, uy = (bx - ax) / length, (by - ay) / length
    if at is None:
        mover = base_polygon(mover_pose, mover_fp)
        part = seg.intersection(mover.buffer(CONTACT_TOL, quad_segs=8))
        if part.is_empty:
            p = nearest_points(seg, mover)[0]
            at = (p.x, p.y)
        else:
            c = part.centroid
            at = (c.x, c.y)
    s = (at[0] - mx) * ux + (at[1] - my) * uy
    room = abs(length - mover_fp.width) / 2.0
    s = min(max(s, -room), room)
    facing = face_bearing(target_pose, edge) + 180.0
    return Pose.rounded(mx + ux * s, my + uy * s, facing)


# --- line of sight -------------------------------------------------------------------------------
SIGHT_FROM = 9              # points along a's face edge (its two ends included)
SIGHT_PER_EDGE = 8          # points along each edge of b (corners included once): 32 in all


def sight_points(pose: Pose, fp: Footprint, face: str = "front", n: int = SIGHT_FROM) -> list[tuple[float, float]]:
    """`n` evenly spaced points along a face edge, from its left end to its right end."""
    (ax, ay), (bx, by) = _face_ends(pose, fp, face)
    if n < 2:
        return [((ax + bx) / 2.0, (ay + by) / 2.0)]
    return [(ax + (bx - ax) * i / (n - 1), ay + (by - ay) * i / (n - 1)) for i in range(n)]


def outline_points(pose: Pose, fp: Footprint, per_edge: int = SIGHT_PER_EDGE) -> list[tuple[float, float]]:
    """`per_edge` points along each edge of the outline (corners once), going round from the
    front-left corner: front, right, rear, left."""
    c = _corners(pose, fp)
    ring = [c["front_left"], c["front_right"], c["rear_right"], c["rear_left"]]
    out = []
    for k in range(4):
        (ax, ay), (bx, by) = ring[k], ring[(k + 1) % 4]
        for i in range(per_edge):
            out.append((ax + (bx - ax) * i / per_edge, ay + (by - ay) * i / per_edge))
    return out


def clear_line(a_pose: Pose, a_fp: Footprint, b_pose: Pose, b_fp: Footprint,
               blockers: list, face: str = "front") -> bool:
    """Line of sight from a's face edge to any part of b's base: True when at least one straight
    segment from a point of a's face edge to a point of b's outline crosses the INTERIOR of none
    of the blockers (running along a blocker's boundary or grazing its corner does not block).

    Deterministic sampling, not an exact visibility computation: SIGHT_FROM (9) evenly spaced
    points of a's face edge (its ends included) against SIGHT_PER_EDGE (8) points per edge of
    b's outline (32, its corners included). A gap narrower than the spacing may be missed.
    The caller chooses the blockers (woods, hills, other bases...): a blocker containing a or b
    still blocks here; leave it out if the rule says it should not.

    The answer is `clear_line_exact`'s (shapely's relate on the blockers' union), found faster:
    against the convex four-sided blockers (bases) each segment is first judged by arithmetic
    with a margin (THROUGH_MARGIN): one running that deep inside a base is crossed; one that
    far clear of every base (and meeting no other blocker) is clear; shapely judges the rest."""
    _check_face(face)
    geoms = [g for g in blockers if g is not None and not g.is_empty]
    if not geoms:
        return True
    src = np.array(sight_points(a_pose, a_fp, face), dtype=float)
    dst = np.array(outline_points(b_pose, b_fp), dtype=float)
    starts = np.repeat(src, len(dst), axis=0)
    ends = np.tile(dst, (len(src), 1))
    dots = (starts == ends).all(axis=1)
    quads = [_convex_quad(g) for g in geoms]
    rings = [r for r in quads if r is not None]
    others = [g for g, r in zip(geoms, quads) if r is None]
    crossed = np.zeros(len(starts), dtype=bool)
    if rings:
        through, apart = _against_quads(starts, ends, np.array(rings))
        crossed = through & ~dots
        if crossed.all():
            return False
        free = apart & ~crossed
        if free.any():
            if not others:
                return True             # a segment well clear of every blocker crosses none
            rest = unary_union(others)
            shapely.prepare(rest)
            cand = _segments(starts[free], ends[free], dots[free])
            if not shapely.intersects(cand, rest).all():
                return True
    keep = ~crossed
    segs = _segments(starts[keep], ends[keep], dots[keep])
    block = unary_union(geoms)
    shapely.prepare(block)
    if not shapely.intersects(segs, block).all():
        return True                     # a segment meeting no blocker at all crosses none
    return not bool(shapely.relate_pattern(segs, block, "T********").all())


THROUGH_MARGIN = 1e-6       # cm: this deep inside a base, or this far clear of it, whatever the rounding


def _segments(starts, ends, dots) -> list:
    """The segments as shapely geometries (a point where a segment's ends coincide)."""
    out = list(shapely.linestrings(np.stack([starts[~dots], ends[~dots]], axis=1))) if (~dots).any() else []
    return out + (list(shapely.points(starts[dots])) if dots.any() else [])


_QUADS: dict[int, tuple] = {}


def _convex_quad(g):
    """The corners of a convex four-sided polygon without holes (a base), anticlockwise, as a
    list of four (x, y); None for any other geometry. Remembered per geometry object (kept
    with its answer, so its id is not reused while remembered)."""
    got = _QUADS.get(id(g))
    if got is not None and got[0] is g:
        return got[1]
    if len(_QUADS) >= _SHAPES_MAX:
        _QUADS.clear()
    ring = _quad_corners(g)
    _QUADS[id(g)] = (g, ring)
    return ring


def _quad_corners(g):
    if g.geom_type != "Polygon" or len(g.interiors):
        return None
    c = list(g.exterior.coords)
    if len(c) != 5:
        return None
    c = [(float(x), float(y)) for x, y in c[:4]]
    turns = []
    for k in range(4):
        (x0, y0), (x1, y1), (x2, y2) = c[k], c[(k + 1) % 4], c[(k + 2) % 4]
        turns.append((x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1))
    if all(t > 0 for t in turns):
        return c
    if all(t < 0 for t in turns):
        return c[::-1]
    return None


def _against_quads(starts, ends, rings) -> tuple:
    """For each segment (rows of `starts`, `ends`) against the convex anticlockwise quads
    `rings` (M, 4, 2): (through, apart). through: some open part of the segment lies more than
    THROUGH_MARGIN inside one of them (it surely crosses that interior); apart: it is more
    than THROUGH_MARGIN clear of all of them along a separating axis (a quad's edge normal or
    the segment's own normal), so it surely meets none."""
    eps = THROUGH_MARGIN
    nxt = np.roll(rings, -1, axis=1)
    edge = nxt - rings                                         # (M, 4, 2)
    normal = np.stack([-edge[..., 1], edge[..., 0]], axis=-1)  # inward: the interior is on the left
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    off = (rings * normal).sum(axis=-1)                        # (M, 4): v . n
    hs = starts @ normal.reshape(-1, 2).T - off.reshape(-1)     # (N, M*4): how far inside each edge
    he = ends @ normal.reshape(-1, 2).T - off.reshape(-1)
    n, m = len(starts), len(rings)
    hs, he = hs.reshape(n, m, 4), he.reshape(n, m, 4)
    # through: the parameters t in [0, 1] where s + t (e - s) is eps inside every edge
    a = hs - eps
    b = he - hs
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(b != 0, -a / np.where(b != 0, b, 1.0), 0.0)
    lo = np.maximum(np.where(b > 0, t, -np.inf).max(axis=2), 0.0)
    hi = np.minimum(np.where(b < 0, t, np.inf).min(axis=2), 1.0)
    never = ((b == 0) & (a <= 0)).any(axis=2)
    through = ((hi - lo > 1e-9) & ~never).any(axis=1)
    # apart: both ends eps outside one edge, or the quad eps to one side of the segment's line
    by_edge = ((hs < -eps) & (he < -eps)).any(axis=2)
    d = ends - starts
    length = np.hypot(d[:, 0], d[:, 1])
    perp = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.where(length > 0, length, 1.0)[:, None]
    side = (rings.reshape(-1, 2) @ perp.T).T.reshape(n, m, 4) - (starts * perp).sum(axis=1)[:, None, None]
    by_line = ((side > eps).all(axis=2) | (side < -eps).all(axis=2)) & (length > 0)[:, None]
    apart = (by_edge | by_line).all(axis=1)
    return through, apart


def clear_line_exact(a_pose: Pose, a_fp: Footprint, b_pose: Pose, b_fp: Footprint,
                     blockers: list, face: str = "front") -> bool:
    """`clear_line` judged by shapely alone for every segment (the reference its fast path is
    tested against)."""
    _check_face(face)
    geoms = [g for g in blockers if g is not None and not g.is_empty]
    src = sight_points(a_pose, a_fp, face)
    dst = outline_points(b_pose, b_fp)
    if not geoms:
        return True
    block = unary_union(geoms)
    shapely.prepare(block)
    # built at once (shapely.linestrings): 288 LineString objects one by one cost ~5 ms a call
    pairs = [(p, q) for p in src for q in dst]
    lines = [(p, q) for p, q in pairs if p != q]
    dots = [p for p, q in pairs if p == q]
    segs = list(shapely.linestrings(lines)) if lines else []
    segs += list(shapely.points(dots)) if dots else []
    crossed = shapely.relate_pattern(segs, block, "T********")
    return not bool(crossed.all())
