"""Moving units and groups [4], [5], [8 A], [8 E], [9 A], [12 E-F]: the verbs `move`, `charge`
and `about`.

    move <unit>[+<unit>...] <steps> [forced|triple]
      steps (engine.core.table.moves.parse_steps): "wheel 30 left advance 12", "back 5", ...
      forced   forced march: a single unit at double speed for 1 Cpt more [4 D]
      triple   the Surprise March event: a single unit at triple speed [15] 3 (HERALD D68)
    charge <unit> <enemy> [forced]   the manoeuvre computed: wheel (what remains of 45 degrees)
                                     to face the enemy, then advance into contact
    about <unit> [advance <cm>]      about-face [5 D]; light horse, dragoons, musketeers then
                                     move half a move

The rules, in the order a move is checked (a move is planned whole before anything changes;
the dispatcher works on a copy, so a refusal leaves the game untouched):
- Who [4 A], [8 A], [8 E], [12 A]: the side's move card; a live unit that has not moved this
  turn (HERALD D8), that may move at all (organ guns, heavy guns, mortars never [6 B]; captured
  guns never [9 B]; deployed light/medium guns never [6 A]: artillery.py), not looting an enemy
  camp [12 A], not in contact with the enemy, except cavalry touching only infantry, which
  disengages with 2d6 off its move [8 E] (HERALD D66).
- The rotation [5 A] (HERALD D4): wheels before any other movement, at most 45 degrees in the
  turn, counted on `Unit.turned`; a wheel's outer corner arc counts against the allowance. Only
  guns (and generals) pivot on the spot [6 C] (HERALD D61).
- The allowance [5], [Tabella riassuntiva]: the type's move (tables.TROOPS), x2 forced [4 D], x3
  Surprise March [15] 3, x2 on a road when the base starts and ends on it [5 B], halved in heavy
  rain [15] 6; minus 1d6 / 2d6 when the unit starts in woods, marsh, a town or at a ford [5 B], 2d6
  when disengaging [8 E]. A move longer than the allowance is refused with both numbers; when
  dice cut the allowance the move goes as far as they allow (HERALD D64).
- The path [5 B-C], [5], [8 A] (HERALD D62, D63): the move stops where the base's place (the
  centre of its front edge) enters woods, marsh, a town or a ford it was not in, off a road; it
  never crosses a river or stream but at a bridge or ford; marsh is for infantry and generals
  only, towns for musketeers, militia and dismounted dragoons (others only along a road, never
  ending there), artillery never into woods or marsh but by road [6 A]. It stops at the first
  touch of an enemy base (engine.core.table geometry) and is conformed to it (HERALD D6); the
  enemy's `contacted_by` records it when its front (any face of a Tercio) is touched, for the
  contact fire [7 D]. Disordered units may not close [9 A] (P&S from their 2nd hit, Tercios from
  their 3rd [12 E-F]), nor a unit in its about-face move [5 D], nor guns and generals ever [6 A],
  [8 D]. Friends passed through are disordered, never destroyed [5 C] (HERALD D65); enemies are
  never passed through; no base ends on another; no base leaves the table.
- Evasion [5 D] (the text puts it at the end of D): light horse, mounted arquebusiers and
  mounted dragoons an infantry move would touch may fall back, ending as far from the enemy as
  they were at the start (HERALD D67): their owner's policy `evade` (auto / never / ask).
- Groups [4 B] (HERALD D69): units joined by "+", one unbroken front (engine.core.table.moves
  group_front) of the arms allowed together (tables.GROUP_MIXES), moving as a block
  (group_walk), or a column (bases one behind the other) whose bases follow the head's path;
  no forced march for groups [4 D].
- The cost [4 C-D], [11 A]: sequence.command.move_cost / spend.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from shapely.geometry import LineString, Point, box
from shapely.ops import unary_union

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import (CONTACT_TOL, Footprint, Pose, angle_between, base_polygon,
                                        bearing_to, conform, contact_edge, forward, norm_angle, rnd)

from engine.lion import checks, rules, tables
from engine.lion.sequence import command

SECTION = "LdN [5]"
EPS_AREA = 0.01          # cm2 of overlap that counts as passing through (or ending on) a base
COARSE = 0.5             # cm of a move between two samples of its path
FINE = 0.005             # cm: where a touch or an entry is found
STOP_KINDS = ("woods", "marsh", "town", "ford")
ROTATIONS = ("wheel", "pivot")
USAGE = ("move <unit>[+<unit>...] <steps> [forced]: wheel up to 45 degrees first, then advance, "
         "e.g. move sw-mus1 wheel 30 left advance 8 (LdN [4], [5])")


# == small readers ==================================================================================

def troop_key(u) -> str:
    """The troop chart's row of a unit: dragoons on foot are "dismounted_dragoons" [12 C]."""
    return tables.effective_type(u.type, u.mounted)


def troop_of(u) -> tables.TroopType:
    if hasattr(u, "role"):
        return tables.TROOPS["general"]
    return tables.TROOPS[troop_key(u)]


def arm_of(u) -> str:
    return troop_of(u).arm


def pose_of(obj) -> Pose:
    return Pose(obj.x, obj.y, obj.facing)


def fp_of(obj) -> Footprint:
    return checks.footprint(obj)


def poly_of(obj):
    return base_polygon(pose_of(obj), fp_of(obj))


def owner_of(u) -> str:
    """The side a unit fights for: a captured gun works for its captor [9 B]."""
    return getattr(u, "captured_by", "") or u.side


def named(sc, uid: str) -> str:
    return rules.named(sc, uid)


def fmt(v: float) -> str:
    """14.2 -> "14.2", 10.0 -> "10"."""
    return f"{rnd(v):g}"


def is_general(obj) -> bool:
    return hasattr(obj, "role")


# == the ground [5 B] ================================================================================

class Ground:
    """The scenario's terrain as the movement reads it: areas that stop a move (woods, marsh,
    towns, fords), roads, and the water crossed only at bridges and fords [5 B]."""

    def __init__(self, sc):
        feats = sorted(getattr(sc, "features", ()) or (), key=lambda f: f.id)
        road = [f.geometry for f in feats if f.kind == "road"]
        self.road = unary_union(road) if road else None
        self.areas: list[tuple[str, str, object]] = []      # (id, kind, region off the roads)
        for f in feats:
            if f.kind in STOP_KINDS:
                g = f.geometry
                if self.road is not None and f.kind != "ford":
                    g = g.difference(self.road)
                self.areas.append((f.id, f.kind, g))
        water = [f.geometry for f in feats if f.kind in tables.IMPASSABLE_WATER]
        crossings = [f.geometry for f in feats if f.kind in ("ford", "bridge")]
        self.water = None
        if water:
            w = unary_union(water)
            if crossings:
                w = w.difference(unary_union(crossings))
            self.water = None if w.is_empty else w
        self.width = float(getattr(sc, "width", 180.0) or 180.0)
        self.height = float(getattr(sc, "height", 120.0) or 120.0)

    def on_road(self, x: float, y: float) -> bool:
        return self.road is not None and self.road.distance(Point(x, y)) <= CONTACT_TOL

    def areas_at(self, x: float, y: float) -> list[tuple[str, str]]:
        """(id, kind) of the stopping areas the point is in, off the roads."""
        p = Point(x, y)
        return [(fid, kind) for fid, kind, g in self.areas if g.distance(p) <= FINE]

    def table(self):
        return box(0.0, 0.0, self.width, self.height)


def may_enter(obj, kind: str) -> str:
    """Why `obj` may not enter an area of `kind` off a road ("" when it may) [5 B], [6 A]."""
    if is_general(obj):
        return ""
    t = troop_of(obj)
    if t.arm == "artillery" and kind in tables.NO_ARTILLERY:
        return f"artillery never moves into {kind} but along a road (LdN [6 A])"
    if kind == "marsh" and not t.enters_marsh:
        return "only infantry and generals cross marshes (LdN [5 B])"
    if kind == "town" and not t.occupies_towns:
        return ("only musketeers, militia and dismounted dragoons enter a town; others pass only "
                "along a road (LdN [5 B], HERALD D63)")
    return ""


def in_kind(ground: Ground, obj) -> str:
    """The stopping terrain a base stands in at the start of its move: the one it stopped in
    [5 B] (`stopped_in`), or the one its place is in, off a road."""
    stopped = getattr(obj, "stopped_in", "")
    if stopped:
        return stopped
    here = ground.areas_at(obj.x, obj.y)
    return here[0][1] if here else ""


# == the steps and their cost =======================================================================

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


# == motions: where the bases are after u cm of the move ============================================

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
            got = [tmoves.walk(self.starts[0], self.fps[0], steps).end] if steps else [self.starts[0]]
        elif self.mode == "line":
            got = ([w.end for w in tmoves.group_walk(list(zip(self.starts, self.fps)), steps)]
                   if steps else list(self.starts))
        else:
            got = self._column(steps)
        self.cache[key] = got
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


# == planning a move ================================================================================

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
    ground = ground or Ground(sc)
    exclude = set(exclude or ())
    ids = {m.id for m in movers}
    total = motion.total
    start_polys = motion.polys(0.0) if not motion.steps or step_cost(motion.steps[0], motion.radius) > 0 \
        else [base_polygon(p, f) for p, f in zip(motion.starts, motion.fps)]
    # -- enemies: those touching at the start (a disengagement) may not be crossed; the others stop it
    fresh, held = [], []
    for oid, what, poly in obstacles(sc, st, side, exclude):
        if any(sp.distance(poly) <= CONTACT_TOL for sp in start_polys):
            held.append((oid, what, poly))
        else:
            fresh.append((oid, what, poly))
    stops: list[tuple[float, str, object]] = []
    if fresh:
        near = unary_union([p for _, _, p in fresh])

        def touch(a, b):
            return any(h.distance(near) <= CONTACT_TOL for h in swept_between(motion, a, b))
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

            def enters(a, b, i=i, region=region):
                pa, pb = motion.poses(a)[i], motion.poses(b)[i]
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

            def wets(a, b, i=i):
                pa, pb = motion.poses(a)[i], motion.poses(b)[i]
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
            for oid, what, op in fresh:
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
            if all(fpoly.intersection(o).area <= EPS_AREA for o in others):
                result.ends[i] = flush
    # -- the area crossed: enemies held at the start, friends passed through [5 C]
    us = [0.0]
    while us[-1] < used - 1e-9:
        us.append(min(used, us[-1] + COARSE))
    swept = [[] for _ in movers]
    for a, b in zip(us, us[1:]):
        for i, h in enumerate(swept_between(motion, a, b)):
            swept[i].append(h)
    for i in range(len(movers)):
        swept[i].append(base_polygon(result.ends[i], motion.fps[i]))
    area = [unary_union(s) for s in swept]
    for oid, what, op in held:
        if any(a.intersection(op).area > EPS_AREA for a in area):
            raise Illegal(f"the move passes through {named(sc, oid)}: enemy units are never passed "
                          "through", "LdN [5 C]")
    if not general:
        for f in sorted(st.units.values(), key=lambda u: u.id):
            if f.alive and owner_of(f) == side and f.id not in ids:
                fp = poly_of(f)
                if any(a.intersection(fp).area > EPS_AREA for a in area):
                    result.through.append(f.id)
    # -- the end: on the table, on no other base
    table = ground.table()
    end_polys = [base_polygon(p, f) for p, f in zip(result.ends, motion.fps)]
    for i, ep in enumerate(end_polys):
        if not table.buffer(FINE).contains(ep):
            raise Illegal(f"{named(sc, movers[i].id)} would leave the table "
                          f"({fmt(ground.width)} x {fmt(ground.height)} cm)", "LdN [5], HERALD D1, D76")
        for o in sorted(st.units.values(), key=lambda u: u.id):
            if o.alive and o.id not in ids and o.id not in exclude and ep.intersection(poly_of(o)).area > EPS_AREA:
                raise Illegal(f"{named(sc, movers[i].id)} would end on {named(sc, o.id)}: a move "
                              "ends clear of other bases", "LdN [5 C]")
    return result


# == who may move ===================================================================================

def enemies_touching(st, obj) -> list:
    p = poly_of(obj)
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and owner_of(u) != obj.side and p.distance(poly_of(u)) <= CONTACT_TOL]


def need_mobile(sc, st, u) -> None:
    """A unit that may move now [5], [6], [9 B], [12 A], HERALD D8."""
    t = troop_of(u)
    who = named(sc, u.id)
    if u.moved:
        raise Illegal(f"{who} has already moved this turn: one move per unit (forced march "
                      "doubles it)", "LdN [4 D], HERALD D8")
    if u.captured_by:
        raise Illegal(f"{who} is a captured gun: captured guns never move", "LdN [9 B]")
    if not t.moves or t.move <= 0:
        raise Illegal(f"{who} ({t.name}) never moves", "LdN [6 B], [Tabella delle truppe]")
    if t.arm == "artillery" and t.gun in ("light", "medium") and u.deployed:
        raise Illegal(f"{who} is deployed: light and medium guns move only limbered, and change "
                      "status once", "LdN [6 A]")
    if u.looting:
        raise Illegal(f"{who} is looting the enemy camp: it must leave first (`leave`)", "LdN [12 A]")


def contact_refusal(sc, u, *, about: bool = False) -> str:
    """Why `u` may not close to contact in this move ("" when it may)."""
    t = troop_of(u)
    if is_general(u):
        return "generals never attack voluntarily (LdN [8 D], [Tabella delle truppe])"
    if t.arm == "artillery":
        return "guns never move into contact with the enemy (LdN [6 A])"
    if about:
        return "a unit that about-faces may not contact the enemy in the same move (LdN [5 D])"
    if not tables.may_close(u.type, u.hits):
        if u.type in ("pike_and_shot", "late_pike_and_shot"):
            return f"a Pike & Shot with {u.hits} hits may not close with the enemy (LdN [12 E])"
        if u.type == "tercio":
            return f"a Tercio with {u.hits} hits may not close with the enemy (LdN [12 F])"
        return "disordered units may not close to contact (LdN [9 A])"
    if u.looting:
        return "a unit looting counts as disordered and may not close (LdN [12 A], [9 A])"
    return ""


def group_problem(sc, st, side: str, units: list) -> tuple[str, str]:
    """(mode, problem): "line" or "column" and "" when the units form a group [4 B] (HERALD D69)."""
    arms = set()
    for u in units:
        a = arm_of(u)
        arms.add("musketeers" if a == "infantry" and troop_key(u) in ("musketeers", "detached_musketeers")
                 and any(arm_of(x) == "cavalry" for x in units) else a)
    if len(arms) > 1:
        mix = frozenset(arms)
        army = ""
        if mix in tables.GROUP_MIXES:
            army = tables.GROUP_MIXES[mix]
            if army and not all(army in nation_of(sc, side, u) for u in units):
                return "", (f"cavalry and musketeers form one group only in the Swedish army "
                            "(LdN [4 B])")
        else:
            return "", (f"a group is of one arm, or infantry with artillery, or (Swedish) cavalry "
                        f"with musketeers, not {' and '.join(sorted(arms))} (LdN [4 B])")
    members = [(pose_of(u), fp_of(u)) for u in units]
    why = tmoves.group_front(members)
    if why is None:
        return "line", ""
    if column_order(units) is not None:
        return "column", ""
    return "", f"the units do not form one unbroken front with their sides touching, nor a column: {why} (LdN [4 B])"


def nation_of(sc, side: str, u) -> str:
    """A unit's nation: its own in the battle (Saxons beside the Swedes), else its army's."""
    try:
        return (sc.nation_of(sc.unit(u.id)) or "").lower()
    except Exception:
        pass
    try:
        return (sc.armies[side].nation or "").lower()
    except Exception:
        return side


def column_order(units: list) -> list | None:
    """The units head first when they stand one behind the other, same facing, each front edge
    against the rear edge of the one before it; else None (HERALD D69)."""
    if len(units) < 2:
        return None
    f0 = units[0].facing
    fx, fy = forward(f0)
    if any(abs(angle_between(f0, u.facing)) > 0.5 for u in units):
        return None
    order = sorted(units, key=lambda u: -(u.x * fx + u.y * fy))
    for a, b in zip(order, order[1:]):
        rx, ry = a.x - fx * fp_of(a).depth, a.y - fy * fp_of(a).depth
        if math.hypot(b.x - rx, b.y - ry) > CONTACT_TOL + 0.01:
            return None
    return order


# == the allowance ==================================================================================

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


def terrain_dice(sc, st, obj, stream: DiceStream, ground: Ground, side: str) -> tuple[int, list, str]:
    """[5 B] a unit that starts its move in woods, marsh or a town subtracts 1d6 (infantry,
    general) or 2d6 (cavalry) from its move; at a ford 1d6. Returns (cm, dice, why)."""
    kind = in_kind(ground, obj)
    if not kind or kind not in tables.TERRAIN_MOVE:
        return 0, [], ""
    if ground.on_road(obj.x, obj.y) and kind != "ford":
        return 0, [], ""
    n = tables.TERRAIN_MOVE[kind]["dice"].get(arm_of(obj), 0)
    if not n:
        return 0, [], ""
    total, rolls = 0, []
    for k in range(n):
        v, dr = checks.roll(stream, 6, f"{named(sc, obj.id)} in {kind}: d6 {k + 1} of {n} off its move")
        total += v
        rolls.append(dr)
    return total, rolls, f"in {kind}: {n}d6 = {total} cm off the move (LdN [5 B])"


# == carrying attached generals =====================================================================

def carry_generals(st, u, before: Pose, after: Pose) -> list[str]:
    """A general attached to a unit moves with it, keeping his place beside it (HERALD D71)."""
    moved = []
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.alive and g.attached_to == u.id:
            dx, dy = g.x - before.x, g.y - before.y
            turn = (after.facing - before.facing) % 360.0
            r = math.radians(turn)
            nx = after.x + dx * math.cos(r) + dy * math.sin(r)
            ny = after.y - dx * math.sin(r) + dy * math.cos(r)
            g.x, g.y, g.facing = rnd(nx), rnd(ny), norm_angle(g.facing + turn)
            moved.append(g.id)
    return moved


# == carrying a plan out ============================================================================

def apply_plan(sc, st, side: str, p: Plan, *, rotation: float = 0.0, allowance: float = 0.0,
               verb: str = "move", extra: dict | None = None) -> list[Event]:
    """Put the bases where the plan ends, mark them moved, disorder the friends passed through
    [5 C], record the contact [5], [7 D] and the picture (st.last_action)."""
    events: list[Event] = []
    ground = Ground(sc)
    paths, froms, tos = [], [], []
    for i, m in enumerate(p.movers):
        before = pose_of(m)
        end = p.ends[i]
        paths.append(p.motion.path(i, p.used) + [(rnd(end.x), rnd(end.y))])
        froms.append([rnd(before.x), rnd(before.y), norm_angle(before.facing)])
        m.x, m.y, m.facing = rnd(end.x), rnd(end.y), norm_angle(end.facing)
        tos.append([m.x, m.y, m.facing])
        m.moved = True
        if not is_general(m):
            m.turned = rnd((m.turned or 0.0) + rotation)
            if i in p.entered:
                m.stopped_in = p.entered[i]
            else:
                here = ground.areas_at(m.x, m.y)
                m.stopped_in = here[0][1] if here and m.stopped_in == here[0][1] else \
                    (here[0][1] if here else "")
            carry_generals(st, m, before, pose_of(m))
    for path in paths:
        while len(path) > 1 and path[-1] == path[-2]:
            path.pop()
    names = ", ".join(named(sc, m.id) for m in p.movers)
    for fid in p.through:
        f = st.units[fid]
        if f.hits == 0:
            f.hits = 1
            events.append(Event("hit", f.side, "LdN [5 C]",
                                f"{named(sc, fid)} is disordered: {names} passed through it "
                                "(no unit is destroyed by friends)",
                                outcome={"unit": fid, "hits": f.hits, "destroyed": False, "cause": "interpenetration"}))
        else:
            events.append(Event("interpenetration", f.side, "LdN [5 C]",
                                f"{names} passed through {named(sc, fid)}, already disordered: no "
                                "further harm (no unit is destroyed by friends)",
                                outcome={"unit": fid, "hits": f.hits, "destroyed": False}))
    contact = None
    if p.contact:
        c = p.contact
        mover = p.movers[c["member"]]
        if c["what"] == "unit":
            target = st.units[c["target"]]
            edge = c["edge"] or contact_edge(pose_of(target), fp_of(target), pose_of(mover), fp_of(mover),
                                             tol=CONTACT_TOL + 0.05) or ""
            c["edge"] = edge
            if (edge == "front" or target.type == "tercio") and mover.id not in target.contacted_by:
                target.contacted_by.append(mover.id)
        contact = dict(c, mover=mover.id)
    st.last_action = {"kind": "move", "verb": verb, "side": side, "units": [m.id for m in p.movers],
                      "paths": paths, "from": froms, "to": tos, "distance": p.used,
                      "allowance": rnd(allowance), "contact": contact,
                      "entered": {p.movers[i].id: k for i, k in sorted(p.entered.items())},
                      "through": list(p.through)}
    if extra:
        st.last_action.update(extra)
    what = f"{names} {'move' if len(p.movers) > 1 else 'moves'} {fmt(p.used)} cm"
    if allowance:
        what += f" (of {fmt(allowance)})"
    if rotation:
        what += f", wheeling {fmt(rotation)} degrees"
    if contact:
        tname = named(sc, contact["target"]) if contact["what"] != "camp" else contact["target"]
        what += f", and stops in contact with {tname}" + (f"'s {contact['edge']}" if contact.get("edge") else "")
    for i, k in sorted(p.entered.items()):
        what += f"; {named(sc, p.movers[i].id)} enters {k} and stops"
    section = "LdN [5]" + (", [8 A]" if contact else "") + (", [5 B]" if p.entered else "")
    events.insert(0, Event(verb, side, section, what,
                           inputs={"units": [m.id for m in p.movers]},
                           outcome={"distance": p.used, "allowance": rnd(allowance), "to": tos,
                                    "contact": contact, "entered": st.last_action["entered"],
                                    "through": list(p.through)}))
    return events


# == reading an order ===============================================================================

def split_order(words: list[str]) -> tuple[list[str], dict]:
    """The step words of an order and its flags (forced, triple)."""
    flags = {"forced": False, "triple": False}
    steps = []
    for w in words:
        lw = w.lower()
        if lw in flags:
            flags[lw] = True
        else:
            steps.append(lw)
    return steps, flags


def read_steps(words: list[str]) -> list:
    if not words:
        raise CannotParse("usage: " + USAGE)
    try:
        return tmoves.parse_steps(words)
    except ValueError as e:
        raise CannotParse(f"{e}; usage: {USAGE}") from None


def movers_of(sc, st, side: str, word: str) -> list:
    ids = [w for w in word.replace(",", "+").split("+") if w]
    if not ids:
        raise CannotParse("usage: " + USAGE)
    units = []
    for w in ids:
        u = rules.unit_of(sc, st, side, w)
        if u in units:
            raise Illegal(f"{named(sc, u.id)} is named twice in the group", "LdN [4 B]")
        units.append(u)
    return units


def toward_own_edge(sc, st, side: str, steps, movers) -> bool:
    """[11 A] a demoralised army's move straight toward its own table edge: every advance within
    45 degrees of straight toward the home edge, none backward (HERALD D70)."""
    if not st.armies[side].demoralised:
        return False
    home = "south"
    try:
        home = sc.armies[side].home_edge or home
    except Exception:
        home = "south" if rules.letter_of_side(st, side) == "A" else "north"
    target = {"south": 180.0, "north": 0.0, "east": 90.0, "west": 270.0}.get(home, 180.0)
    facing = movers[0].facing
    for s in steps:
        if s.kind == "wheel":
            facing += s.amount if s.direction == "right" else -s.amount
        if s.kind == "about":
            facing += 180.0
        if s.kind == "advance":
            bearing = facing if s.amount >= 0 else facing + 180.0
            if abs(angle_between(target, bearing)) > 45.0:
                return False
    return any(s.kind == "advance" for s in steps)


# == evasion [5 D] ==================================================================================

def may_evade(sc, st, movers, target_id: str) -> bool:
    """[5 D] "Cavallerie Leggere, Archibugieri a cavallo e Dragoni montati attaccati da fanterie
    possono evitare il combattimento": the target evades infantry only, not when already in
    contact with an enemy."""
    t = st.units.get(target_id)
    if t is None or not t.alive:
        return False
    if not troop_of(t).evades or not t.mounted:
        return False
    if not all(not is_general(m) and arm_of(m) == "infantry" for m in movers):
        return False
    return not enemies_touching(st, t)


def evade_policy(st, side: str) -> str:
    """The evader's standing answer: auto (evade when it can), never, ask (HERALD D67)."""
    mine = (st.policies.get(side) or {}).get("evade")
    if mine in ("auto", "never", "ask"):
        return mine
    default = rules.POLICY_DEFAULTS.get("evade")
    return default if default in ("auto", "never", "ask") else "auto"


def evasion(sc, st, side: str, p: Plan, evader_id: str, start_gap: float, ground: Ground) -> dict | None:
    """Where the evader falls back to: straight back along the mover's final facing, keeping its
    own facing, until it is `start_gap` from the nearest mover again (HERALD D67); None when the
    way back is blocked (another base, water, terrain it may not enter, the table's edge)."""
    ev = st.units[evader_id]
    fx, fy = forward(p.ends[p.contact["member"]].facing if p.contact else p.ends[0].facing)
    ends = [base_polygon(e, f) for e, f in zip(p.ends, p.motion.fps)]
    start = pose_of(ev)
    fp = fp_of(ev)

    def gap(s):
        q = base_polygon(Pose(start.x + fx * s, start.y + fy * s, start.facing), fp)
        return min(q.distance(e) for e in ends)
    lo, hi = 0.0, 5.0
    while gap(hi) < start_gap and hi < 400.0:
        hi *= 2.0
    if gap(hi) < start_gap:
        return None
    if gap(0.0) >= start_gap:
        hi = 0.0
    while hi - lo > FINE:
        mid = (lo + hi) / 2.0
        if gap(mid) >= start_gap - FINE:
            hi = mid
        else:
            lo = mid
    end = Pose(rnd(start.x + fx * hi), rnd(start.y + fy * hi), start.facing)
    if hi <= 0.0:
        return {"pose": end, "distance": 0.0, "path": [(start.x, start.y)]}
    swath = unary_union([base_polygon(start, fp), base_polygon(end, fp)]).convex_hull
    endp = base_polygon(end, fp)
    if not ground.table().buffer(FINE).contains(endp):
        return None
    for o in sorted(st.units.values(), key=lambda u: u.id):
        if not o.alive or o.id == ev.id:
            continue
        if owner_of(o) != owner_of(ev) and swath.intersection(poly_of(o)).area > EPS_AREA:
            return None
        if endp.intersection(poly_of(o)).area > EPS_AREA:
            return None
    for mp in ends:
        if endp.distance(mp) <= CONTACT_TOL:
            return None
    seg = LineString([(start.x, start.y), (end.x, end.y)])
    if ground.water is not None and seg.distance(ground.water) <= FINE:
        return None
    for fid, kind, region in ground.areas:
        if seg.distance(region) <= FINE and may_enter(ev, kind):
            return None
    through = [o.id for o in sorted(st.units.values(), key=lambda u: u.id)
               if o.alive and o.id != ev.id and owner_of(o) == owner_of(ev)
               and swath.intersection(poly_of(o)).area > EPS_AREA]
    return {"pose": end, "distance": rnd(hi), "path": [(rnd(start.x), rnd(start.y)), (end.x, end.y)],
            "through": through}


def apply_evasion(sc, st, ev_id: str, move: dict) -> list[Event]:
    ev = st.units[ev_id]
    end = move["pose"]
    ev.x, ev.y = end.x, end.y
    events = [Event("evade", ev.side, "LdN [5 D]",
                    f"{named(sc, ev_id)} evades, falling back {fmt(move['distance'])} cm to keep its "
                    "distance from the infantry",
                    outcome={"unit": ev_id, "distance": move["distance"], "to": [end.x, end.y, end.facing]})]
    for fid in move.get("through", []):
        f = st.units[fid]
        if f.hits == 0:
            f.hits = 1
            events.append(Event("hit", f.side, "LdN [5 C]",
                                f"{named(sc, fid)} is disordered: {named(sc, ev_id)} fell back through it "
                                "(no unit is destroyed by friends)",
                                outcome={"unit": fid, "hits": 1, "destroyed": False, "cause": "interpenetration"}))
    st.last_action.setdefault("evaded", []).append({"unit": ev_id, "path": move["path"],
                                                    "distance": move["distance"]})
    return events


# == the order, whole ===============================================================================

@dataclass
class Order:
    """A move order as planned: who, the motion, the allowance, the dice rolled, the cost."""
    side: str
    movers: list
    steps: list
    mode: str
    forced: bool = False
    triple: bool = False
    about: bool = False
    allowance: float = 0.0
    cut: bool = False            # dice cut the allowance: the move goes as far as it allows
    rotation: float = 0.0
    dice: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    contact_refused: str = ""


def motion_of(order: Order) -> Motion:
    movers = order.movers
    if order.mode == "column":
        movers = column_order(movers) or movers
        order.movers = movers
    starts = [pose_of(m) for m in movers]
    fps = [fp_of(m) for m in movers]
    radius = fps[0].width if order.mode != "line" else sum(f.width for f in fps)
    return Motion(order.mode, starts, fps, list(order.steps), radius)


def prepare(sc, st, side: str, movers: list, steps: list, stream: DiceStream, *, forced: bool = False,
            triple: bool = False, about: bool = False, ground: Ground | None = None) -> Order:
    """Check who moves and how far they may go [4], [5], [6], [8 E], [12 A]; roll the terrain and
    disengagement dice [5 B], [8 E]."""
    ground = ground or Ground(sc)
    for u in movers:
        need_mobile(sc, st, u)
    mode = "single"
    if len(movers) > 1:
        if forced or triple:
            raise Illegal("a forced march is for a single unit, never a group", "LdN [4 D]")
        mode, why = group_problem(sc, st, side, movers)
        if why:
            raise Illegal(why[:why.rfind(" (")], "LdN [4 B]")
        if mode == "column" and any(s.kind == "advance" and s.amount < 0 for s in steps):
            raise Illegal("a column moves forward, its bases following the head", "LdN [4 B], HERALD D69")
    if triple:
        army = st.armies[side]
        if army.surprise_march <= 0:
            raise Illegal("no triple speed: only the Surprise March event lets single units triple "
                          "their speed", "LdN [4 D], [15] 3")
    for s in steps:
        if s.kind == "pivot" and any(arm_of(m) != "artillery" for m in movers):
            raise Illegal("only guns pivot on the spot; units wheel about a front corner",
                          "LdN [5 A], [6 C], HERALD D4")
        if s.kind == "about" and (s is not steps[0]):
            raise Illegal("the about-face is a move of its own: `about <unit>` (then, for light horse, "
                          "dragoons and musketeers, a half move)", "LdN [5 D]")
    if any(arm_of(m) == "artillery" for m in movers) and any(s.kind == "wheel" for s in steps):
        raise Illegal("guns turn on the spot: pivot up to 45 degrees, then advance", "LdN [6 C], HERALD D61")
    order = Order(side, movers, steps, mode, forced=forced, triple=triple, about=about)
    order.rotation = check_rotation(sc, movers, steps)
    # who is in contact: only cavalry touching nothing but infantry disengages [8 E]
    disengage = []
    for u in movers:
        foes = enemies_touching(st, u)
        if not foes:
            continue
        if arm_of(u) == "cavalry" and all(arm_of(f) == "infantry" for f in foes):
            disengage.append(u)
            continue
        raise Illegal(f"{named(sc, u.id)} is in contact with {named(sc, foes[0].id)}: only cavalry "
                      "in contact with infantry may disengage", "LdN [8 A], [8 E], HERALD D66")
    factor = 3 if triple else 2 if forced else 1
    allow = None
    for u in movers:
        cm, notes = base_allowance(st, u, factor)
        if about:
            if troop_of(u).about_face != "half_move":
                cm = 0.0
                notes.append("about-face: it stays where it is (LdN [5 D])")
            else:
                cm /= 2.0
                notes.append("about-face: half a move (LdN [5 D])")
        if ground.on_road(u.x, u.y) and not about:
            cm *= tables.ROAD_FACTOR
            notes.append("on a road: double move if it ends on it (LdN [5 B])")
        off, dice, why = terrain_dice(sc, st, u, stream, ground, side)
        if dice:
            cm -= off
            order.dice += dice
            notes.append(f"{named(sc, u.id)} {why}")
            order.cut = True
        if u in disengage:
            total, rolls = checks.roll_2d6(stream, f"{named(sc, u.id)} disengaging: 2d6 off its move")
            cm -= total
            order.dice += rolls
            notes.append(f"{named(sc, u.id)} disengages: 2d6 = {total} cm off the move (LdN [8 E])")
            order.cut = True
        cm = max(0.0, cm)
        allow = cm if allow is None else min(allow, cm)
        for n in notes:
            if n not in order.notes:
                order.notes.append(n)
    order.allowance = rnd(allow or 0.0)
    refusals = [contact_refusal(sc, u, about=about) for u in movers]
    order.contact_refused = next((r for r in refusals if r), "")
    return order


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


def road_check(sc, order: Order, p: Plan, ground: Ground) -> None:
    """[5 B] the road doubles the move only when the base starts and ends on it."""
    for i, m in enumerate(order.movers):
        if ground.on_road(m.x, m.y) and not ground.on_road(p.ends[i].x, p.ends[i].y):
            plain = order.allowance / tables.ROAD_FACTOR
            if p.used > plain + FINE:
                raise Illegal(f"the move is {fmt(p.used)} cm, at most {fmt(plain)} off the road: the road "
                              "doubles the move only when the base starts and ends on it", "LdN [5 B]")


def execute(sc, st, side: str, order: Order, stream: DiceStream, *, verb: str = "move",
            evade: dict | None = None, paid: bool = False) -> list[Event]:
    """Plan the order's path, settle any evasion [5 D], pay [4], move [5]."""
    ground = Ground(sc)
    motion = check_allowance(sc, st, order, motion_of(order), ground)
    evade = dict(evade or {})
    excluded: set[str] = {k for k, v in evade.items() if v}
    p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused, ground=ground,
             exclude=excluded)
    # evasion: the contacted light horse may fall back [5 D]
    while p.contact and p.contact["what"] == "unit" and p.contact["target"] not in evade \
            and may_evade(sc, st, order.movers, p.contact["target"]):
        tid = p.contact["target"]
        owner = st.units[tid].side
        pol = evade_policy(st, owner)
        if pol == "ask":
            return ask_evasion(sc, st, side, order, tid, verb, paid)
        evade[tid] = pol == "auto"
        if evade[tid]:
            excluded.add(tid)
            p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused,
                     ground=ground, exclude=excluded)
    road_check(sc, order, p, ground)
    events: list[Event] = []
    if not paid:
        events += pay(sc, st, side, order, p)
    gaps = {}
    for tid in sorted(k for k, v in evade.items() if v):
        t = st.units[tid]
        gaps[tid] = min(poly_of(t).distance(base_polygon(s, f)) for s, f in zip(motion.starts, motion.fps))
    evasions = {}
    for tid in sorted(gaps):
        mv = evasion(sc, st, side, p, tid, gaps[tid], ground)
        if mv is None:
            # the way back is blocked: no evasion, the move meets it
            events.append(Event("evade", st.units[tid].side, "LdN [5 D]",
                                f"{named(sc, tid)} cannot fall back (its way is blocked): it stands"))
            excluded.discard(tid)
            evade[tid] = False
            p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused,
                     ground=ground, exclude=excluded)
        else:
            evasions[tid] = mv
    if order.triple:
        st.armies[side].surprise_march -= 1
    events += apply_plan(sc, st, side, p, rotation=order.rotation, allowance=order.allowance, verb=verb,
                         extra={"notes": list(order.notes)})
    head = next(e for e in events if e.kind == verb)
    head.dice = list(order.dice)
    head.modifiers = []
    if order.notes:
        head.narrative += " [" + "; ".join(order.notes) + "]"
    for tid in sorted(evasions):
        events += apply_evasion(sc, st, tid, evasions[tid])
    if order.about:
        events += about_effects(sc, st, order)
    return events


def pay(sc, st, side: str, order: Order, p: Plan) -> list[Event]:
    """[4 C-D], [11 A]: the Cpts of the move."""
    toward = toward_own_edge(sc, st, side, order.steps, order.movers) and not p.contact
    cost, reason = command.move_cost(sc, st, side, [m.id for m in order.movers],
                                     forced=order.forced or order.triple, toward_own_edge=toward)
    what = ("the about-face of " if order.about else "the move of ") + " + ".join(named(sc, m.id) for m in order.movers)
    ev = command.spend(st, side, cost, what, sc=sc, unit_ids=[m.id for m in order.movers])
    ev.narrative += f" ({reason})"
    return [ev]


def about_effects(sc, st, order: Order) -> list[Event]:
    """[5 D] pikemen and Pike & Shot (and Tercios) about-face and are disordered (never destroyed
    by it, HERALD D65)."""
    events = []
    for u in order.movers:
        if troop_of(u).about_face == "stay_disordered" and u.hits == 0:
            u.hits = 1
            events.append(Event("hit", u.side, "LdN [5 D]", f"{named(sc, u.id)} about-faces and is disordered",
                                outcome={"unit": u.id, "hits": 1, "destroyed": False, "cause": "about-face"}))
    return events


# == evasion asked of the defender ==================================================================

def ask_evasion(sc, st, side: str, order: Order, target: str, verb: str, paid: bool) -> list[Event]:
    """Stop for the evader's owner: `react evade|stand` [5 D]. The order is kept whole (its dice
    rolled, its allowance fixed) and paid now; the answer finishes it."""
    events: list[Event] = []
    if not paid:
        ground = Ground(sc)
        motion = check_allowance(sc, st, order, motion_of(order), ground)
        p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused, ground=ground)
        events += pay(sc, st, side, order, p)
    owner = st.units[target].side
    st.pending = {
        "kind": "evade", "side": owner, "options": ["evade", "stand"], "default": "evade",
        "section": "LdN [5 D]",
        "prompt": (f"{named(sc, order.movers[0].id)} advances on {named(sc, target)}: evade (fall back, "
                   "keeping the distance) or stand"),
        "unit": target,
        "order": {"side": side, "movers": [m.id for m in order.movers], "verb": verb,
                  "steps": [[s.kind, s.amount, s.direction] for s in order.steps], "mode": order.mode,
                  "forced": order.forced, "triple": order.triple, "about": order.about,
                  "allowance": order.allowance, "cut": order.cut, "rotation": order.rotation,
                  "notes": list(order.notes), "contact_refused": order.contact_refused,
                  "evade": {}},
    }
    return events


def resume_evasion(sc, st, side: str, answer: str, more: list, stream: DiceStream) -> list[Event]:
    """The evader's owner answers [5 D]: the move is finished as planned."""
    p = st.pending
    o = p["order"]
    evade = dict(o.get("evade") or {})
    evade[p["unit"]] = answer == "evade"
    st.pending = None
    order = Order(o["side"], [st.units[i] for i in o["movers"]],
                  [tmoves.Step(k, a, d) for k, a, d in o["steps"]], o["mode"], forced=o["forced"],
                  triple=o["triple"], about=o["about"], allowance=o["allowance"], cut=o["cut"],
                  rotation=o["rotation"], notes=list(o["notes"]), contact_refused=o["contact_refused"])
    events = [Event("evade_answer", side, "LdN [5 D]",
                    f"{side.title()}: {named(sc, p['unit'])} {'evades' if evade[p['unit']] else 'stands'}")]
    more_events = execute(sc, st, o["side"], order, stream, verb=o["verb"], evade=evade, paid=True)
    if st.pending and st.pending.get("kind") == "evade":
        st.pending["order"]["evade"] = evade
    return events + more_events


# == the verbs ======================================================================================

def do_move(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`move <unit>[+<unit>...] <steps> [forced|triple]` [4], [5]."""
    rules.need_card(st, side, ("move",))
    if not cmd.args:
        raise CannotParse("usage: " + USAGE)
    movers = movers_of(sc, st, side, cmd.args[0])
    words, flags = split_order(list(cmd.args[1:]))
    steps = read_steps(words)
    if len(movers) == 1 and arm_of(movers[0]) == "artillery" and all(s.kind in ("pivot", "about") for s in steps):
        from engine.lion.movement import artillery
        return artillery.turn_gun(sc, st, side, movers[0], steps, stream)
    about = bool(steps) and steps[0].kind == "about"
    if about and len(movers) > 1:
        raise Illegal("an about-face is a single unit's move", "LdN [5 D]")
    if any(arm_of(m) == "artillery" for m in movers):
        from engine.lion.movement import artillery
        artillery.need_gun_move(sc, st, movers, steps)
    if about:
        steps = about_steps(sc, movers[0], steps)
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    ground = Ground(sc)
    order = prepare(sc, st, side, movers, steps, stream, forced=flags["forced"], triple=flags["triple"],
                    about=about, ground=ground)
    return execute(sc, st, side, order, stream, verb="move")


def about_steps(sc, u, steps) -> list:
    """[5 D] the about-face, then (light horse, dragoons, musketeers) a straight half move."""
    rest = steps[1:]
    kind = troop_of(u).about_face
    if rest and kind != "half_move":
        raise Illegal(f"{named(sc, u.id)} about-faces and stays where it is: only light horse, dragoons "
                      "and musketeers move half a move after it", "LdN [5 D]")
    if any(s.kind != "advance" or s.amount < 0 for s in rest):
        raise Illegal("after the about-face only a straight advance (half a move)", "LdN [5 D]")
    return steps


def do_about(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`about <unit> [advance <cm>]` [5 D], [6 C]: 1 Cpt (as any move), the unit's move."""
    rules.need_card(st, side, ("move",))
    if not cmd.args:
        raise CannotParse("usage: about <unit> [advance <cm>]")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    words = ["about"] + [w for w in cmd.args[1:]]
    steps = read_steps(words)
    if arm_of(u) == "artillery":
        from engine.lion.movement import artillery
        return artillery.turn_gun(sc, st, side, u, steps, stream)
    steps = about_steps(sc, u, steps)
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    order = prepare(sc, st, side, [u], steps, stream, about=True)
    return execute(sc, st, side, order, stream, verb="about")


def charge_steps(sc, st, u, target, reach: float) -> tuple[list, float]:
    """[5 A], [8 A] the manoeuvre of a charge: the wheel (within what is left of the turn's 45
    degrees) that points the unit's front at the nearest point of the target, then an advance
    long enough to meet it (`reach` cm at most). Returns (steps, the wheel's degrees)."""
    left = tables.MAX_TURN - (u.turned or 0.0)
    pose, fp = pose_of(u), fp_of(u)
    tpoly = poly_of(target)
    total_turn, direction = 0.0, "right"
    for _ in range(4):
        cur = tmoves.walk(pose, fp, [tmoves.Step("wheel", total_turn, direction)]).end if total_turn else pose
        near = tpoly.exterior.interpolate(tpoly.exterior.project(Point(cur.x, cur.y)))
        want = angle_between(cur.facing, bearing_to(cur.x, cur.y, near.x, near.y))
        signed = (total_turn if direction == "right" else -total_turn) + want
        direction = "right" if signed >= 0 else "left"
        total_turn = abs(signed)
        if abs(want) < 0.05:
            break
    total_turn = rnd(min(total_turn, left))
    steps = []
    if total_turn >= 0.01:
        steps.append(tmoves.Step("wheel", total_turn, direction))
    steps.append(tmoves.Step("advance", rnd(reach), ""))
    return steps, total_turn


def do_charge(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`charge <unit> <enemy> [forced]` [5], [8 A]: the manoeuvre computed for the player."""
    rules.need_card(st, side, ("move",))
    if len(cmd.args) < 2:
        raise CannotParse("usage: charge <unit> <enemy> [forced]")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    target = rules.enemy_of(sc, st, side, cmd.args[1])
    words, flags = split_order(list(cmd.args[2:]))
    if words:
        raise CannotParse(f"usage: charge <unit> <enemy> [forced], not '{' '.join(words)}'")
    need_mobile(sc, st, u)
    why = contact_refusal(sc, u)
    if why:
        raise Illegal(f"{named(sc, u.id)} may not charge: {why[:why.rfind(' (')]}", why[why.rfind("(") + 1:-1])
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    ground = Ground(sc)
    # how far the contact is, on a long straight line after the wheel
    probe_steps, turn = charge_steps(sc, st, u, target, 400.0)
    m = Motion("single", [pose_of(u)], [fp_of(u)], probe_steps, fp_of(u).width)
    tpoly = poly_of(target)
    hit = first_event(lambda a, b: any(h.distance(tpoly) <= CONTACT_TOL for h in swept_between(m, a, b)),
                      m.total)
    if hit is None:
        raise Illegal(f"{named(sc, target.id)} is not ahead of {named(sc, u.id)} even after a wheel of "
                      f"{fmt(turn)} degrees (at most 45 in a turn)", "LdN [5 A]")
    need = rnd(hit + CONTACT_TOL)      # the gap itself: the touch is found CONTACT_TOL short of it
    steps = truncate(probe_steps, need, fp_of(u).width)
    order = prepare(sc, st, side, [u], steps, stream, forced=flags["forced"], triple=flags["triple"],
                    ground=ground)
    total = sum(step_cost(s, fp_of(u).width) for s in steps)
    if total > order.allowance + FINE and not order.cut:
        raise Illegal(f"{named(sc, target.id)} is out of reach: the charge needs {fmt(total)} cm "
                      f"(a wheel of {fmt(turn)} degrees and the advance), at most {fmt(order.allowance)}",
                      "LdN [5], [Tabella riassuntiva]")
    events = execute(sc, st, side, order, stream, verb="charge")
    if st.pending is None:
        got = (st.last_action or {}).get("contact") or {}
        if got.get("target") != target.id and not any(e.kind == "evade" for e in events):
            events.append(Event("charge", side, "LdN [8 A]",
                                f"{named(sc, u.id)} did not reach {named(sc, target.id)}"
                                + (f": it stopped at {got.get('target')}" if got.get("target") else ""),
                                outcome={"reached": False}))
    return events


rules.register("move", do_move, USAGE)
rules.register("charge", do_charge, "charge <unit> <enemy> [forced]: wheel to face it and advance into "
                                    "contact (LdN [5], [8 A])")
rules.register("about", do_about, "about <unit> [advance <cm>]: about-face, 1 Cpt (LdN [5 D], [6 C])")
rules.register_reaction("evade", resume_evasion)
