"""Moves on the open table: steps, walks, the area they sweep, first touch, and groups.

A move is a list of `Step`s, each a rigid motion of the base (or of a block of bases):
- "advance" d: straight along the facing (d < 0 = backwards);
- "wheel" a left/right: a turn of a degrees about the front corner on the side turned to (wheeling
  left pivots on the left front corner: the right end swings forward). It uses the outer front
  corner's arc, width * radians(a), of the allowance (HERALD L4 for Lion);
- "pivot" a left/right: a turn of a degrees about the base's centre. It uses the arc of the outer
  (front) corner about the centre, hypot(width / 2, depth / 2) * radians(a): the furthest any
  point of the base travels (a ruleset that makes a pivot free, like Lion's artillery, ignores it);
- "about": an about-face, 180 degrees about the centre (the new front-centre is where the
  rear-centre was). It turns right (clockwise) unless its direction is "left", which matters only
  for the area swept. It uses nothing of the allowance (the ruleset says what it costs) and is
  counted in `Walk.abouts`, not in `Walk.turned`. An amount under 180 (a first touch cutting an
  about-face short) turns that much;
- "slide" d left/right: sideways, keeping the facing (for conforming to a contact).

`walk` applies the steps one after the other, rounding the pose after each (so walking the steps
one at a time from the stored poses gives the same result as walking them all); `first_touch`
stops the move where the base first comes within the contact tolerance of an obstacle; the group
helpers move a block of bases as one body.

Units are abstract (cm for Lion, base widths for the Italian Wars); angles are compass degrees.
Nothing here knows a ruleset.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Polygon

from .geometry import (CONTACT_TOL, Footprint, Pose, _corners, angle_between, base_polygon, centre,
                       forward, rightward, rnd, rotate_point)

STEP_KINDS = ("advance", "wheel", "pivot", "about", "slide")
TURNS = ("wheel", "pivot")                  # the steps counted in Walk.turned
SAMPLE_DEGREES = 5.0                        # a turn is sampled at least every 5 degrees
DIRECTIONS = ("left", "right")


@dataclass(frozen=True)
class Step:
    """One part of a move: kind (advance/wheel/pivot/about/slide), amount (distance or degrees)
    and direction (left/right for wheel, pivot and slide; optional for about)."""
    kind: str
    amount: float = 0.0
    direction: str = ""

    def __str__(self) -> str:
        if self.kind == "about":
            return "about" if self.amount in (0.0, 180.0) else f"about {_num(self.amount)}"
        words = [self.kind, _num(self.amount)]
        if self.direction:
            words.append(self.direction)
        return " ".join(words)


@dataclass(frozen=True)
class Walk:
    """The result of a move: where the base ends, where it stood after each step, how much of
    the allowance it used (advances and slides, the outer-corner arcs of wheels and pivots), how
    many degrees it wheeled or pivoted (summed, absolute; about-faces apart in `abouts`), the area
    it covered over the whole move (turns sampled every 5 degrees at most) and the track of its
    front-centre (for drawing)."""
    start: Pose
    end: Pose
    poses: list[Pose]
    used: float
    turned: float
    swept: Polygon
    path: list[tuple[float, float]]
    steps: list[Step] = field(default_factory=list)
    abouts: int = 0


def _num(v: float) -> str:
    s = f"{rnd(v):.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


# --- parsing -------------------------------------------------------------------------------------------
def _number(word: str, what: str) -> float | None:
    try:
        v = float(word)
    except ValueError:
        return None
    if not math.isfinite(v):
        raise ValueError(f"{what}: {word!r} is not a finite number")
    return v


def parse_steps(words: list[str]) -> list[Step]:
    """Read steps from words, e.g. "wheel 30 left advance 12", "about", "pivot 20 right",
    "slide 1.5 left", "advance -3", "back 5" (= advance -5, keeping the facing). Words may hold several tokens ("wheel 30 left"). The angle
    or distance and the direction of a wheel, pivot or slide may come in either order.
    Raises ValueError with a clear message."""
    toks = [t.lower() for w in words for t in str(w).split()]
    if not toks:
        raise ValueError("no steps given: say e.g. 'advance 12', 'wheel 30 left', 'pivot 20 right' or 'about'")
    steps: list[Step] = []
    i = 0
    while i < len(toks):
        w = toks[i]
        if w in ("advance", "back"):
            v = _number(toks[i + 1], w) if i + 1 < len(toks) else None
            if v is None:
                raise ValueError(f"'{w}' needs a distance, e.g. '{w} 12'"
                                 + (" (negative to go back)" if w == "advance" else ""))
            if w == "back" and v < 0:
                raise ValueError(f"'back {_num(v)}': the distance must not be negative (say 'advance')")
            steps.append(Step("advance", v if w == "advance" else -v))
            i += 2
        elif w in ("wheel", "pivot", "slide"):
            what = "an angle in degrees" if w != "slide" else "a distance"
            pair = toks[i + 1:i + 3]
            amount = direction = None
            for t in pair:
                if t in DIRECTIONS and direction is None:
                    direction = t
                elif amount is None and _number(t, w) is not None:
                    amount = _number(t, w)
            if amount is None or direction is None:
                got = " ".join([w] + pair)
                raise ValueError(f"'{w}' needs {what} and a direction (left or right), "
                                 f"e.g. '{w} {30 if w != 'slide' else 2} left' (got '{got}')")
            if amount < 0:
                raise ValueError(f"'{w} {_num(amount)} {direction}': the {what[2:]} must not be "
                                 f"negative (turn the other way instead)")
            steps.append(Step(w, amount, direction))
            i += 3
        elif w == "about":
            if i + 1 < len(toks) and toks[i + 1] in DIRECTIONS:
                steps.append(Step("about", 180.0, toks[i + 1]))
                i += 2
            else:
                steps.append(Step("about", 180.0))
                i += 1
        else:
            raise ValueError(f"unknown step {w!r}: expected advance, back, wheel, pivot, about or slide")
    return steps


def _check(step: Step) -> None:
    if step.kind not in STEP_KINDS:
        raise ValueError(f"unknown step kind {step.kind!r}: expected one of {', '.join(STEP_KINDS)}")
    if not math.isfinite(step.amount):
        raise ValueError(f"{step.kind}: the amount must be a finite number")
    if step.kind in ("wheel", "pivot", "slide"):
        if step.direction not in DIRECTIONS:
            raise ValueError(f"{step.kind} needs a direction, left or right (got {step.direction!r})")
        if step.amount < 0:
            raise ValueError(f"{step.kind}: the amount must not be negative (turn the other way)")
    if step.kind == "about" and (step.direction not in ("", "left", "right") or step.amount < 0):
        raise ValueError("about: the direction is left, right or empty, the amount not negative")


# --- motions ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Motion:
    """A rigid motion: a turn of `deg` degrees clockwise about (a, b), or a shift by (a, b)."""
    turn: bool
    a: float
    b: float
    deg: float = 0.0


def _at(pose: Pose, m: _Motion, t: float) -> tuple[float, float, float]:
    if m.turn:
        x, y = rotate_point(pose.x, pose.y, m.a, m.b, m.deg * t)
        return x, y, pose.facing + m.deg * t
    return pose.x + m.a * t, pose.y + m.b * t, pose.facing


def _end(pose: Pose, m: _Motion) -> Pose:
    return Pose.rounded(*_at(pose, m, 1.0))


def _times(m: _Motion, t: float) -> list[float]:
    if not m.turn:
        return [0.0, t]
    n = max(1, math.ceil(abs(m.deg * t) / SAMPLE_DEGREES - 1e-9))
    return [t * k / n for k in range(n + 1)]


def _hull_points(pose: Pose, fp: Footprint, m: _Motion, t: float) -> list[tuple[float, float]]:
    x, y, f = _at(pose, m, t)
    return list(_corners(Pose(x, y, f), fp).values())


def _swept(pose: Pose, fp: Footprint, m: _Motion, t: float):
    """The area the base covers during the first fraction t of the motion: the union of the
    convex hulls of consecutive sampled positions."""
    ts = _times(m, t)
    pts = [_hull_points(pose, fp, m, u) for u in ts]
    # built at once (shapely.multipoints): a MultiPoint made point by point costs ~0.2 ms
    hulls = shapely.convex_hull(shapely.multipoints(np.array([pts[k] + pts[k + 1] for k in range(len(pts) - 1)],
                                                             dtype=float)))
    return hulls[0] if len(hulls) == 1 else shapely.union_all(hulls)


def _reach(pose: Pose, fp: Footprint, m: _Motion) -> float:
    """How far the furthest-travelling point of the base goes in the whole motion."""
    if not m.turn:
        return math.hypot(m.a, m.b)
    r = max(math.hypot(x - m.a, y - m.b) for x, y in _corners(pose, fp).values())
    return r * math.radians(abs(m.deg))


def _frame(members: list[tuple[Pose, Footprint]]) -> dict:
    """The block's frame, in the first member's facing: its outer front corners (the front-left
    corner of the leftmost base, the front-right of the rightmost), centre, width and depth."""
    p0 = members[0][0]
    fx, fy = forward(p0.facing)
    rx, ry = rightward(p0.facing)

    def uv(pt):
        return ((pt[0] - p0.x) * rx + (pt[1] - p0.y) * ry, (pt[0] - p0.x) * fx + (pt[1] - p0.y) * fy)

    left = right = None
    vs = []
    for k, (pose, fp) in enumerate(members):
        c = _corners(pose, fp)
        ul, ur = uv(c["front_left"])[0], uv(c["front_right"])[0]
        if left is None or ul < left[0]:
            left = (ul, c["front_left"])
        if right is None or ur > right[0]:
            right = (ur, c["front_right"])
        vs.extend(uv(p)[1] for p in c.values())
    umid, vmid = (left[0] + right[0]) / 2.0, (max(vs) + min(vs)) / 2.0
    return {"left": left[1], "right": right[1], "width": right[0] - left[0],
            "depth": max(vs) - min(vs),
            "centre": (p0.x + rx * umid + fx * vmid, p0.y + ry * umid + fy * vmid)}


def _plan(members: list[tuple[Pose, Footprint]], step: Step) -> tuple[list[_Motion], float, float, int]:
    """The motion of each member for one step of the block, the allowance used, the degrees
    turned (wheel/pivot) and the about-faces."""
    _check(step)
    p0 = members[0][0]
    sign = -1.0 if step.direction == "left" else 1.0
    a = step.amount
    if step.kind == "advance":
        fx, fy = forward(p0.facing)
        m = _Motion(False, fx * a, fy * a)
        return [m] * len(members), abs(a), 0.0, 0
    if step.kind == "slide":
        rx, ry = rightward(p0.facing)
        m = _Motion(False, rx * a * sign, ry * a * sign)
        return [m] * len(members), abs(a), 0.0, 0
    fr = _frame(members)
    if step.kind == "wheel":
        cx, cy = fr["left"] if sign < 0 else fr["right"]
        m = _Motion(True, cx, cy, sign * a)
        return [m] * len(members), fr["width"] * math.radians(a), a, 0
    if step.kind == "pivot":
        cx, cy = fr["centre"]
        m = _Motion(True, cx, cy, sign * a)
        return [m] * len(members), math.hypot(fr["width"] / 2.0, fr["depth"] / 2.0) * math.radians(a), a, 0
    # about: each base turns on its own centre
    turn = a if a > 0 else 180.0
    ms = [_Motion(True, *centre(pose, fp), sign * turn) for pose, fp in members]
    return ms, 0.0, 0.0, 1


# --- walking ---------------------------------------------------------------------------------------------
def _run(members: list[tuple[Pose, Footprint]], steps: list[Step]) -> list[Walk]:
    fps = [fp for _, fp in members]
    cur = [pose for pose, _ in members]
    pieces = [[base_polygon(p, fp)] for p, fp in members]
    paths = [[(rnd(p.x), rnd(p.y))] for p in cur]
    after: list[list[Pose]] = [[] for _ in members]
    used = turned = 0.0
    abouts = 0
    for step in steps:
        motions, u, tr, ab = _plan(list(zip(cur, fps)), step)
        used, turned, abouts = used + u, turned + tr, abouts + ab
        for i, m in enumerate(motions):
            pieces[i].append(_swept(cur[i], fps[i], m, 1.0))
            for t in _times(m, 1.0)[1:-1]:
                x, y, _ = _at(cur[i], m, t)
                _extend(paths[i], (rnd(x), rnd(y)))
            cur[i] = _end(cur[i], m)
            _extend(paths[i], (cur[i].x, cur[i].y))
            after[i].append(cur[i])
    return [Walk(start=pose, end=cur[i], poses=after[i], used=rnd(used), turned=rnd(turned),
                 swept=shapely.union_all(pieces[i]), path=paths[i], steps=list(steps), abouts=abouts)
            for i, (pose, _) in enumerate(members)]


def _extend(path: list, pt: tuple[float, float]) -> None:
    if not path or path[-1] != pt:
        path.append(pt)


def walk(pose: Pose, fp: Footprint, steps: list[Step]) -> Walk:
    """Move one base through the steps (see the module docstring for each kind)."""
    return _run([(pose, fp)], list(steps))[0]


def step_ends(members: list[tuple[Pose, Footprint]], step: Step) -> list[Pose]:
    """Where the bases of a block (one base: a block of one) stand after one step: the poses
    `walk` and `group_walk` reach after it, without the area swept or the track. Walking a move
    a step at a time from these gives the same poses as walking it whole (each is rounded)."""
    motions, _, _, _ = _plan(list(members), step)
    return [_end(pose, m) for (pose, _), m in zip(members, motions)]


# --- first touch -----------------------------------------------------------------------------------------
def _first_touch(members: list[tuple[Pose, Footprint]], steps: list[Step], obstacles: list,
                 tol: float) -> tuple[list[Walk], int, str] | None:
    steps = list(steps)
    fps = [fp for _, fp in members]
    cur = [pose for pose, _ in members]
    start = [base_polygon(p, fp) for p, fp in members]
    ignored = {(i, j) for i in range(len(members)) for j, (_, obs) in enumerate(obstacles)
               if start[i].distance(obs) <= tol}
    for k, step in enumerate(steps):
        motions, _, _, _ = _plan(list(zip(cur, fps)), step)
        best = None
        swept: dict[tuple[int, float], object] = {}     # each member's swept areas, built once a step

        def area(i: int, u: float):
            got = swept.get((i, u))
            if got is None:
                got = swept[(i, u)] = _swept(cur[i], fps[i], motions[i], u)
            return got
        for j, (_, obs) in enumerate(obstacles):
            for i, m in enumerate(motions):
                if (i, j) in ignored:
                    continue
                whole = area(i, 1.0).distance(obs)
                if whole > tol:
                    continue
                # aim inside the tolerance, so the rounded stopping place still touches
                aim = tol / 2.0 if whole <= tol / 2.0 else tol
                t = _bisect(lambda u: area(i, u).distance(obs) <= aim,
                            _reach(cur[i], fps[i], m))
                if best is None or (t, j, i) < best:
                    best = (t, j, i)
        if best is not None:
            t, j, i = best
            amount = rnd(step.amount * t) if step.kind != "about" or step.amount else rnd(180.0 * t)
            cut = steps[:k] + ([Step(step.kind, amount, step.direction)] if amount else [])
            return _run(members, cut), i, obstacles[j][0]
        cur = [_end(cur[i], m) for i, m in enumerate(motions)]
    return None


def _bisect(hit, reach: float, precision: float = 0.002) -> float:
    """The smallest fraction t of a motion for which hit(t) holds (hit(1) holds; hit grows with
    t), to `precision` of travel of the furthest-moving point."""
    if hit(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        if (hi - lo) * reach <= precision:
            break
        mid = (lo + hi) / 2.0
        if hit(mid):
            hi = mid
        else:
            lo = mid
    return hi


def first_touch(pose: Pose, fp: Footprint, steps: list[Step], obstacles: list,
                tol: float = CONTACT_TOL) -> tuple[Walk, str] | None:
    """Where the move first brings the base within `tol` of one of the obstacles ((id, polygon)
    pairs, in the caller's order): the walk cut short there (its last step shortened, rounded
    to 0.01; the base stops about tol / 2 from the obstacle, so it touches and does not overlap)
    and the obstacle's id; None when the whole move touches nothing. Obstacles already within
    `tol` at the start are ignored for the whole move (a base in contact may move away); check
    the swept area against them yourself if passing through them is forbidden. Two obstacles
    touched at the same moment: the first in the list."""
    got = _first_touch([(pose, fp)], steps, obstacles, tol)
    if got is None:
        return None
    walks, _, oid = got
    return walks[0], oid


# --- groups ----------------------------------------------------------------------------------------------
def _members(members: list, names: list[str] | None = None) -> tuple[list[str], list[tuple[Pose, Footprint]]]:
    """Members as (Pose, Footprint) or (name, Pose, Footprint): their names and bodies."""
    got_names, bodies = [], []
    for k, m in enumerate(members):
        if len(m) == 3:
            got_names.append(str(m[0]))
            bodies.append((m[1], m[2]))
        else:
            got_names.append(f"base {k + 1}")
            bodies.append((m[0], m[1]))
    if names is not None:
        got_names = [str(n) for n in names]
    return got_names, bodies


def _len(v: float, unit: str) -> str:
    return f"{v:.2f} {unit}" if unit else f"{v:.2f}"


def group_front(members: list, names: list[str] | None = None, tol: float = CONTACT_TOL,
                angle_tol: float = 0.5, unit: str = "cm") -> str | None:
    """None when the bases form one unbroken front: the same facing as the first (within
    `angle_tol` degrees), their front edges on one line and each touching the next side to side
    (within `tol`); else the first reason found, naming the bases ("S3 is 1.20 cm behind the
    front of S2", "S4 faces 10 degrees off the group", "there is a gap of 1.50 cm between S2 and
    S3", "S2 and S3 overlap by 0.50 cm"). Members are (Pose, Footprint) or (name, Pose,
    Footprint); `names` overrides; unnamed bases are "base 1", "base 2"... `unit` names the
    unit in the reasons ("" for none)."""
    names, bodies = _members(members, names)
    if not bodies:
        return "the group has no bases"
    p0 = bodies[0][0]
    for name, (pose, _) in zip(names[1:], bodies[1:]):
        off = angle_between(p0.facing, pose.facing)
        if abs(off) > angle_tol:
            return f"{name} faces {_num(abs(off))} degrees off the group"
    fx, fy = forward(p0.facing)
    rx, ry = rightward(p0.facing)
    order = sorted(range(len(bodies)),
                   key=lambda k: (rnd((bodies[k][0].x - p0.x) * rx + (bodies[k][0].y - p0.y) * ry), k))
    for a, b in zip(order, order[1:]):
        (pa, fa), (pb, fb) = bodies[a], bodies[b]
        dx, dy = pb.x - pa.x, pb.y - pa.y
        ahead = rnd(dx * fx + dy * fy)
        if abs(ahead) > tol:
            where = "behind" if ahead < 0 else "ahead of"
            return f"{names[b]} is {_len(abs(ahead), unit)} {where} the front of {names[a]}"
        gap = rnd(dx * rx + dy * ry - (fa.width + fb.width) / 2.0)
        if gap > tol:
            return f"there is a gap of {_len(gap, unit)} between {names[a]} and {names[b]}"
        if gap < -tol:
            return f"{names[a]} and {names[b]} overlap by {_len(-gap, unit)}"
    return None


def group_walk(members: list, steps: list[Step]) -> list[Walk]:
    """Move a block of bases as one body, one Walk per member in the given order: advances and
    slides parallel to the first member's facing; wheels about the block's outer front corner on
    the side turned to (the leftmost base's front-left corner for a left wheel); pivots about the
    block's centre; an about-face turns each base on its own centre. Every member's `used` and
    `turned` are the block's (a wheel uses the block's width * radians(angle), the arc of its
    outer front corner). Does not check the block is an unbroken front: see group_front."""
    _, bodies = _members(members)
    if not bodies:
        return []
    return _run(bodies, list(steps))


def group_first_touch(members: list, steps: list[Step], obstacles: list,
                      tol: float = CONTACT_TOL) -> tuple[list[Walk], int, str] | None:
    """`first_touch` for a block moved by `group_walk`: the walks of all members cut short where
    any member first touches an obstacle, the index of that member and the obstacle's id; None
    when nothing is touched. A (member, obstacle) pair touching at the start is ignored."""
    _, bodies = _members(members)
    if not bodies:
        return None
    return _first_touch(bodies, steps, obstacles, tol)
