"""Planning a motion [5], [5 A], [5 C], [8 A] (HERALD D4, D6, D60-D64, D69): how far a unit may go,
the rotation, where the bases are after u cm of the move, and what the move meets on the way.

- The allowance [5], [Tabella riassuntiva]: the type's move (a wounded general 10 cm [9 C]),
  x2 forced march [4 D], x3 Surprise March [15] 3, halved in heavy rain [15] 6
  (`base_allowance`); a move longer than it is refused with both numbers, or cut where the dice
  leave it (`check_allowance`, HERALD D64).
- The rotation [5 A] (HERALD D4): wheels before any other movement, at most 45 degrees in the
  turn (`check_rotation`); a wheel's outer corner arc counts against the allowance
  (`step_cost`, `truncate`).
- The motion (`Motion`): a single base (engine.core.table.moves.walk), a line group moving as a
  block (group_walk) or a column whose bases follow the head's path (HERALD D69).
- The path (`plan`): sampled every COARSE cm and refined to FINE (`first_event`) on the area
  swept between two samples (`swept_between`): the first touch of an enemy base stops it [8 A]
  and the mover is conformed to the touched edge (HERALD D6); entering woods, marsh, a town or a
  ford stops it, entering terrain it may not or crossing water is refused [5 B]; enemies touched
  at the start (a disengagement [8 E]) are never passed through, friends passed through are
  listed [5 C] (HERALD D65); no base ends on another nor off the table (HERALD D1, D76).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry import LineString, Point
from shapely.ops import unary_union

from engine.core.errors import Illegal
from engine.core.table import moves as tmoves
from engine.core.table.geometry import (CONTACT_TOL, Footprint, Pose, base_polygon, bearing_to, centre,
                                        conform, contact_edge, forward, reach_radius, rnd)

from engine.lion import tables
from engine.lion.movement.common import (COARSE, EPS_AREA, FINE, SECTION, fmt, fp_of, is_general, named,
                                         owner_of, poly_of, pose_of, troop_of)
from engine.lion.movement.terrain import Ground, ground_of, may_enter

if TYPE_CHECKING:
    from engine.lion.movement.move import Order


ROTATIONS = ("wheel", "pivot")


# == the steps and their cost [5 A] ================================================================

def step_cost(step, radius: float) -> float:
    """The cm of allowance a step uses (HERALD D4): an advance its length, a wheel the arc of
    the outer front corner (radius = the frontage), pivots and about-faces nothing."""
    if step.kind in ("advance", "slide"):
        return abs(step.amount)
    if step.kind == "wheel":
        return radius * math.radians(abs(step.amount))
    return 0.0


def truncate(steps, limit: float, radius: float) -> list:
    """The steps cut after `limit` cm of allowance (a step cut part way keeps its fraction)."""
    out, used = [], 0.0
    for s in steps:
        c = step_cost(s, radius)
        if c <= 0.0:
            if used <= limit + 1e-9:
                out.append(s)
            continue
        if used + c <= limit + 1e-9:
            out.append(s)
            used += c
            continue
        part = max(0.0, limit - used)
        if part > 1e-9:
            out.append(tmoves.Step(s.kind, s.amount * part / c, s.direction))
        break
    return out


def rotation_of(steps) -> float:
    return sum(abs(s.amount) for s in steps if s.kind in ROTATIONS)


def check_rotation(sc, movers, steps) -> float:
    """[5 A] "La rotazione massima per turno è di 45° e dev'essere effettuata prima di qualsiasi
    altro movimento" (HERALD D4): rotations come first, at most 45 degrees in the turn."""
    moved = False
    for s in steps:
        if s.kind in ROTATIONS and moved:
            raise Illegal("the rotation is made before any other movement: wheel first, then "
                          "advance", "LdN [5 A]")
        if s.kind in ("advance", "slide"):
            moved = True
    turn = rotation_of(steps)
    if turn <= 0:
        return 0.0
    for m in movers:
        done = getattr(m, "turned", 0.0) or 0.0
        left = tables.MAX_TURN - done
        if turn > left + 1e-6:
            who = named(sc, m.id)
            if done:
                raise Illegal(f"the wheel is {fmt(turn)} degrees, at most {fmt(left)} more for {who} "
                              f"this turn ({fmt(done)} already, 45 in a turn)", "LdN [5 A]")
            raise Illegal(f"the wheel is {fmt(turn)} degrees, at most 45 in a turn", "LdN [5 A]")
    return turn


# == motions: where the bases are after u cm of the move ===========================================

@dataclass
class Motion:
    """The bases of a move as a function of the allowance used: a single base (moves.walk), a
    line group moving as a block (moves.group_walk), or a column whose bases follow the head
    (HERALD D69)."""
    mode: str
    starts: list
    fps: list
    steps: list
    radius: float
    cache: dict = field(default_factory=dict)
    done: dict = field(default_factory=dict)      # k -> the poses after the first k whole steps

    @property
    def total(self) -> float:
        return sum(step_cost(s, self.radius) for s in self.steps)

    def poses(self, u: float) -> list:
        key = round(u, 4)
        got = self.cache.get(key)
        if got is not None:
            return got
        steps = truncate(self.steps, u, self.radius)
        if self.mode == "single":
            got = self._ends(steps)[:1] if steps else [self.starts[0]]
        elif self.mode == "line":
            got = self._ends(steps) if steps else list(self.starts)
        else:
            got = self._column(steps)
        self.cache[key] = got
        return got

    def _ends(self, steps) -> list:
        """Where the bases stand after `steps` (a truncation of the motion's steps): the whole
        steps walked once and remembered (`done`), the last part step from there; the same poses
        as walking them all (moves.walk, moves.group_walk), each step rounded."""
        k = 0
        while k < len(steps) and k < len(self.steps) and steps[k] is self.steps[k]:
            k += 1
        cur = self._done(k)
        for s in steps[k:]:
            cur = tmoves.step_ends(list(zip(cur, self.fps)), s)
        return cur

    def _done(self, k: int) -> list:
        got = self.done.get(k)
        if got is None:
            got = list(self.starts) if k == 0 else \
                tmoves.step_ends(list(zip(self._done(k - 1), self.fps)), self.steps[k - 1])
            self.done[k] = got
        return got

    def polys(self, u: float) -> list:
        return [base_polygon(p, f) for p, f in zip(self.poses(u), self.fps)]

    def path(self, i: int, u: float) -> list:
        """The front-centre's track of base i up to u, for the picture."""
        pts = [(rnd(self.starts[i].x), rnd(self.starts[i].y))]
        n = max(1, int(math.ceil(u / 2.0)))
        for k in range(1, n + 1):
            p = self.poses(u * k / n)[i]
            q = (rnd(p.x), rnd(p.y))
            if q != pts[-1]:
                pts.append(q)
        return pts

    def _column(self, steps) -> list:
        head = self.starts[0]
        if not steps:
            return list(self.starts)
        w = tmoves.walk(head, self.fps[0], steps)
        offsets = [0.0]
        for f in self.fps[:-1]:
            offsets.append(offsets[-1] + f.depth)
        fx, fy = forward(head.facing)
        back = offsets[-1] + 1.0
        pts = [(head.x - fx * back, head.y - fy * back), (head.x, head.y)]
        for p in list(getattr(w, "path", []) or []) + [(w.end.x, w.end.y)]:
            p = (float(p[0]), float(p[1]))
            if math.dist(p, pts[-1]) > 1e-6:
                pts.append(p)
        line = LineString(pts)
        total = line.length
        out = [w.end]
        for off in offsets[1:]:
            s = total - off
            a = line.interpolate(max(0.0, s - 0.05))
            b = line.interpolate(min(total, s + 0.05))
            p = line.interpolate(s)
            facing = bearing_to(a.x, a.y, b.x, b.y) if (a.x, a.y) != (b.x, b.y) else head.facing
            out.append(Pose(p.x, p.y, facing))
        return out


def swept_between(m: Motion, a: float, b: float) -> list:
    """Per base, the hull of its rectangles at a and b (the area it crosses in between)."""
    pa, pb = m.polys(a), m.polys(b)
    return [unary_union([x, y]).convex_hull for x, y in zip(pa, pb)]


def swept_one(m: Motion, i: int, a: float, b: float):
    """`swept_between(m, a, b)[i]` alone."""
    return unary_union([m.polys(a)[i], m.polys(b)[i]]).convex_hull


# -- cheap bounds: the exact measure (shapely) only where they cannot decide ----------------------
# A base's rectangle lies within the disc of its half diagonal about its centre (reach_radius), so
# the hull of a base at two places lies within the hull of two such discs (a capsule), and any
# polygon within the disc about its bounding box's centre. The distance between two of these is a
# lower bound of the exact one: when it clears a limit by MARGIN, so does the exact distance and
# shapely need not be asked; otherwise it is asked exactly as before (the same answers).
MARGIN = 0.01


def discs_of(polys: list) -> np.ndarray:
    """(n, 3): a disc holding each polygon: its bounding box's centre and half diagonal."""
    if not polys:
        return np.zeros((0, 3))
    b = shapely.bounds(np.asarray(polys, dtype=object)).reshape(-1, 4)
    return np.stack([(b[:, 0] + b[:, 2]) / 2.0, (b[:, 1] + b[:, 3]) / 2.0,
                     np.hypot(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) / 2.0], axis=1)


def capsule_floors(a: tuple, b: tuple, r: float, discs: np.ndarray) -> np.ndarray:
    """Lower bounds of the distances from the hull of the discs of radius r about a and b to
    each disc of `discs`."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    cx, cy = discs[:, 0] - ax, discs[:, 1] - ay
    l2 = dx * dx + dy * dy
    t = np.clip((cx * dx + cy * dy) / l2, 0.0, 1.0) if l2 > 0.0 else 0.0
    return np.hypot(cx - t * dx, cy - t * dy) - r - discs[:, 2]


def swept_floors(m: Motion, i: int, a: float, b: float, discs: np.ndarray) -> np.ndarray:
    """Lower bounds of the distances from `swept_one(m, i, a, b)` to each disc."""
    f = m.fps[i]
    return capsule_floors(centre(m.poses(a)[i], f), centre(m.poses(b)[i], f), reach_radius(f), discs)


def swept_touches(m: Motion, a: float, b: float, near, discs: np.ndarray) -> bool:
    """`any(h.distance(near) <= CONTACT_TOL for h in swept_between(m, a, b))`, where `discs`
    hold the parts of `near`: a base surely farther from all of them is not measured."""
    if not len(discs):
        return any(h.distance(near) <= CONTACT_TOL for h in swept_between(m, a, b))
    for i in range(len(m.fps)):
        if swept_floors(m, i, a, b, discs).min() > CONTACT_TOL + MARGIN:
            continue
        if swept_one(m, i, a, b).distance(near) <= CONTACT_TOL:
            return True
    return False


def chain_floors(points: list, r: float, discs: np.ndarray) -> np.ndarray:
    """Lower bounds of the distances from the hulls of the discs of radius r about consecutive
    `points` (one point: its disc) to each disc of `discs`: the least over the chain."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    a, b = (pts, pts) if len(pts) == 1 else (pts[:-1], pts[1:])
    d = b - a                                                   # (m, 2)
    c = discs[None, :, :2] - a[:, None, :]                      # (m, k, 2)
    l2 = (d * d).sum(axis=1)
    t = np.clip((c * d[:, None, :]).sum(axis=2) / np.where(l2 > 0.0, l2, 1.0)[:, None], 0.0, 1.0)
    t = np.where((l2 > 0.0)[:, None], t, 0.0)
    q = c - t[..., None] * d[:, None, :]
    return (np.hypot(q[..., 0], q[..., 1]) - r - discs[None, :, 2]).min(axis=0)


def box_gap(a: tuple, b: tuple, bounds: tuple) -> float:
    """A lower bound of the distance from the segment a-b to a geometry of these bounds."""
    x0, y0, x1, y1 = bounds
    gx = max(x0 - max(a[0], b[0]), min(a[0], b[0]) - x1, 0.0)
    gy = max(y0 - max(a[1], b[1]), min(a[1], b[1]) - y1, 0.0)
    return math.hypot(gx, gy)


def disc_apart(pa: Pose, fa: Footprint, pb: Pose, fb: Footprint, limit: float = 0.0) -> bool:
    """The two bases are surely more than `limit` apart (their discs are)."""
    (ax, ay), (bx, by) = centre(pa, fa), centre(pb, fb)
    return math.hypot(ax - bx, ay - by) - reach_radius(fa) - reach_radius(fb) > limit + MARGIN


def first_event(pred, total: float, start: float = 0.0) -> float | None:
    """The first u in (start, total] where `pred(a, b)` (something happens between a and b)
    turns true, to FINE; None when it never does."""
    a = start
    while a < total - 1e-9:
        b = min(total, a + COARSE)
        if pred(a, b):
            lo, hi = a, b
            while hi - lo > FINE:
                mid = (lo + hi) / 2.0
                if pred(lo, mid):
                    hi = mid
                else:
                    lo = mid
            return hi
        a = b
    return None


# == planning a move [5 B-C], [8 A] ================================================================

@dataclass
class Plan:
    movers: list
    motion: Motion
    used: float
    ends: list
    contact: dict | None = None          # {"member", "target", "what", "edge"}
    entered: dict = field(default_factory=dict)    # member index -> kind entered
    through: list = field(default_factory=list)    # friends passed through
    stopped_by: str = ""


def obstacles(sc, st, side: str, exclude: set[str]) -> list[tuple[str, str, object]]:
    """(id, what, polygon) of the enemy bases a move may touch: units, generals and camps."""
    out = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and owner_of(u) != side and u.id not in exclude:
            out.append((u.id, "unit", poly_of(u)))
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.alive and g.side != side and g.id not in exclude:
            out.append((g.id, "general", poly_of(g)))
    for cs, camp in sorted(st.camps.items()):
        if camp.side != side and camp.captured_by != side:
            out.append((f"camp-{cs}", "camp", base_polygon(pose_of(camp), Footprint(tables.CAMP_SIZE.width, tables.CAMP_SIZE.depth))))
    return out


def plan(sc, st, side: str, movers: list, motion: Motion, *, contact_refused: str = "",
         ground: Ground | None = None, exclude: set[str] | None = None, general: bool = False) -> Plan:
    """Walk the motion and find where it stops and what it meets [5 B-C], [5], [8 A]. Raises
    Illegal for a forbidden crossing, a pass through an enemy, an end on another base, a move off
    the table, or a contact when `contact_refused` says why it may not close."""
    ground = ground or ground_of(sc)
    exclude = set(exclude or ())
    ids = {m.id for m in movers}
    total = motion.total
    start_polys = motion.polys(0.0) if not motion.steps or step_cost(motion.steps[0], motion.radius) > 0 \
        else [base_polygon(p, f) for p, f in zip(motion.starts, motion.fps)]
    # -- enemies: those touching at the start (a disengagement) may not be crossed; the others stop it
    fresh, held = [], []
    obs = obstacles(sc, st, side, exclude)
    obs_discs = discs_of([poly for _, _, poly in obs])
    start_discs = discs_of(start_polys)
    for k, (oid, what, poly) in enumerate(obs):
        ox, oy, orad = obs_discs[k]
        if all(math.hypot(ox - sx, oy - sy) - orad - sr > CONTACT_TOL + MARGIN for sx, sy, sr in start_discs):
            fresh.append((oid, what, poly))
        elif any(sp.distance(poly) <= CONTACT_TOL for sp in start_polys):
            held.append((oid, what, poly))
        else:
            fresh.append((oid, what, poly))
    stops: list[tuple[float, str, object]] = []
    if fresh:
        near = unary_union([p for _, _, p in fresh])
        fresh_discs = discs_of([p for _, _, p in fresh])

        def touch(a, b):
            return swept_touches(motion, a, b, near, fresh_discs)
        u = first_event(touch, total)
        if u is not None:
            stops.append((u, "contact", None))
    # -- terrain: the first entry of each member into an area it is not in [5 B]
    refusals: list[tuple[float, str]] = []
    for i, m in enumerate(movers):
        start = motion.starts[i]
        inside = {fid for fid, _ in ground.areas_at(start.x, start.y)}
        for fid, kind, region in ground.areas:
            if fid in inside or region.is_empty:
                continue

            def enters(a, b, i=i, region=region, bounds=region.bounds):
                pa, pb = motion.poses(a)[i], motion.poses(b)[i]
                if box_gap((pa.x, pa.y), (pb.x, pb.y), bounds) > FINE + MARGIN:
                    return False
                seg = LineString([(pa.x, pa.y), (pb.x, pb.y)]) if (pa.x, pa.y) != (pb.x, pb.y) \
                    else Point(pb.x, pb.y)
                return seg.distance(region) <= FINE
            u = first_event(enters, total)
            if u is None:
                continue
            why = may_enter(m, kind)
            if why:
                refusals.append((u, f"{named(sc, m.id)} would enter {kind} ({fid}): {why}"))
            else:
                stops.append((u, "terrain", (i, kind)))
        if ground.water is not None:
            water = ground.water

            def wets(a, b, i=i, bounds=water.bounds):
                pa, pb = motion.poses(a)[i], motion.poses(b)[i]
                if box_gap((pa.x, pa.y), (pb.x, pb.y), bounds) > FINE + MARGIN:
                    return False
                seg = LineString([(pa.x, pa.y), (pb.x, pb.y)]) if (pa.x, pa.y) != (pb.x, pb.y) \
                    else Point(pb.x, pb.y)
                return seg.distance(water) <= FINE
            if ground.water.distance(Point(start.x, start.y)) > FINE:
                u = first_event(wets, total)
                if u is not None:
                    refusals.append((u, f"{named(sc, m.id)} would cross the water: no one crosses a "
                                        "river or stream but at a bridge or ford (LdN [5 B])"))
    used = min([total] + [u for u, _, _ in stops])
    for u, why in sorted(refusals):
        if u <= used + FINE:
            section = why[why.rfind("(") + 1:-1] if why.endswith(")") else "LdN [5 B]"
            raise Illegal(why[:why.rfind(" (")] if why.endswith(")") else why, section)
    result = Plan(movers, motion, rnd(used), list(motion.poses(used)))
    contact_u = next((u for u, k, _ in stops if k == "contact"), None)
    terrain = sorted(((u, d) for u, k, d in stops if k == "terrain"), key=lambda x: x[0])
    if contact_u is not None and contact_u <= used + 1e-9:
        # which member touches which enemy first
        polys = motion.polys(used)
        best = None
        for i, p in enumerate(polys):
            f = motion.fps[i]
            lows = chain_floors([centre(motion.poses(used)[i], f)], reach_radius(f), fresh_discs)
            for k, (oid, what, op) in enumerate(fresh):
                if lows[k] > CONTACT_TOL + 0.02 + MARGIN:
                    continue
                d = p.distance(op)
                if d <= CONTACT_TOL + 0.02 and (best is None or d < best[0]):
                    best = (d, i, oid, what)
        if best is None:        # the touch fell between two fine samples: take the nearest
            for i, p in enumerate(polys):
                for oid, what, op in fresh:
                    d = p.distance(op)
                    if best is None or d < best[0]:
                        best = (d, i, oid, what)
        _, i, oid, what = best
        if contact_refused:
            raise Illegal(f"{named(sc, movers[i].id)} would touch {named(sc, oid) if what != 'camp' else oid}: "
                          f"{contact_refused}", contact_refused[contact_refused.rfind("(") + 1:-1]
                          if contact_refused.endswith(")") else SECTION)
        result.contact = {"member": i, "target": oid, "what": what, "edge": ""}
        result.stopped_by = "contact"
    for u, (i, kind) in terrain:
        if u <= used + 1e-9:
            result.entered[i] = kind
            result.stopped_by = result.stopped_by or kind
    # -- conform to the enemy touched (HERALD D6)
    if result.contact and result.contact["what"] == "unit":
        i = result.contact["member"]
        target = st.units[result.contact["target"]]
        tp, tf = pose_of(target), fp_of(target)
        edge = contact_edge(tp, tf, result.ends[i], motion.fps[i], tol=CONTACT_TOL + 0.05)
        if edge:
            result.contact["edge"] = edge
            flush = conform(result.ends[i], motion.fps[i], tp, tf, edge)
            fpoly = base_polygon(flush, motion.fps[i])
            others = [poly_of(x) for x in st.units.values()
                      if x.alive and x.id not in ids and x.id != target.id]
            others += [base_polygon(p, f) for j, (p, f) in enumerate(zip(result.ends, motion.fps)) if j != i]
            lows = chain_floors([centre(flush, motion.fps[i])], reach_radius(motion.fps[i]), discs_of(others))
            if all(lows[k] > MARGIN or fpoly.intersection(o).area <= EPS_AREA for k, o in enumerate(others)):
                result.ends[i] = flush
    # -- the area crossed: enemies held at the start, friends passed through [5 C]
    us = [0.0]
    while us[-1] < used - 1e-9:
        us.append(min(used, us[-1] + COARSE))
    friends = [] if general else [f for f in sorted(st.units.values(), key=lambda u: u.id)
                                  if f.alive and owner_of(f) == side and f.id not in ids]
    met = [op for _, _, op in held] + [poly_of(f) for f in friends]
    reach = np.zeros((len(movers), len(met)), dtype=bool)      # member i may cross met[k]
    if met:
        met_discs = discs_of(met)
        for i, f in enumerate(motion.fps):
            r = reach_radius(f)
            lows = np.minimum(chain_floors([centre(motion.poses(u)[i], f) for u in us], r, met_discs),
                              chain_floors([centre(result.ends[i], f)], r, met_discs))
            reach[i] = lows <= MARGIN
    areas: dict[int, object] = {}

    def area(i):
        """Member i's area crossed: the hulls between the samples and its end, as one."""
        got = areas.get(i)
        if got is None:
            got = areas[i] = unary_union([swept_one(motion, i, a, b) for a, b in zip(us, us[1:])]
                                         + [base_polygon(result.ends[i], motion.fps[i])])
        return got
    for k, (oid, what, op) in enumerate(held):
        if any(reach[i, k] and area(i).intersection(op).area > EPS_AREA for i in range(len(movers))):
            raise Illegal(f"the move passes through {named(sc, oid)}: enemy units are never passed "
                          "through", "LdN [5 C]")
    for k, f in enumerate(friends, start=len(held)):
        if any(reach[i, k] and area(i).intersection(met[k]).area > EPS_AREA for i in range(len(movers))):
            result.through.append(f.id)
    # -- the end: on the table, on no other base
    table = ground.table()
    end_polys = [base_polygon(p, f) for p, f in zip(result.ends, motion.fps)]
    for i, ep in enumerate(end_polys):
        if not table.buffer(FINE).contains(ep):
            raise Illegal(f"{named(sc, movers[i].id)} would leave the table "
                          f"({fmt(ground.width)} x {fmt(ground.height)} cm)", "LdN [5], HERALD D1, D76")
        for o in sorted(st.units.values(), key=lambda u: u.id):
            if o.alive and o.id not in ids and o.id not in exclude \
                    and not disc_apart(result.ends[i], motion.fps[i], pose_of(o), fp_of(o)) \
                    and ep.intersection(poly_of(o)).area > EPS_AREA:
                raise Illegal(f"{named(sc, movers[i].id)} would end on {named(sc, o.id)}: a move "
                              "ends clear of other bases", "LdN [5 C]")
    return result


# == the allowance [5], [Tabella riassuntiva] ======================================================

def base_allowance(st, obj, factor: int = 1) -> tuple[float, list[str]]:
    """The move of the type [Tabella riassuntiva] (a wounded general 10 cm [9 C]) x `factor`
    (forced march 2 [4 D], surprise march 3 [15] 3), halved in heavy rain [15] 6."""
    notes = []
    t = troop_of(obj)
    cm = float(t.move)
    if is_general(obj) and obj.wounded:
        cm = min(cm, tables.WOUNDED_GENERAL_MOVE)
        notes.append("wounded general: at most 10 cm (LdN [9 C])")
    if factor == 2:
        cm *= tables.FORCED_MARCH_FACTOR
        notes.append("forced march: double speed (LdN [4 D])")
    elif factor == 3:
        cm *= tables.SURPRISE_MARCH_FACTOR
        notes.append("surprise march: triple speed (LdN [15] 3)")
    if st.weather.get("rain") == "heavy" and st.weather.get("rain_moves", 1):
        cm /= 2.0
        notes.append("heavy rain: half speed (LdN [15] 6)")
    return cm, notes


def check_allowance(sc, st, order: Order, motion: Motion, ground: Ground) -> Motion:
    """[5 A-B]: the move within the allowance (refused with both numbers); cut short when dice
    cut it (HERALD D64)."""
    total = motion.total
    if total <= order.allowance + FINE:
        return motion
    if order.cut:
        order.notes.append(f"the dice leave {fmt(order.allowance)} cm: the move stops there (HERALD D64)")
        return Motion(motion.mode, motion.starts, motion.fps,
                      truncate(motion.steps, order.allowance, motion.radius), motion.radius)
    raise Illegal(f"the move is {fmt(total)} cm, at most {fmt(order.allowance)}"
                  + (f" ({'; '.join(order.notes)})" if order.notes else ""), "LdN [5], [Tabella riassuntiva]")
