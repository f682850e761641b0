"""What every movement module shares: a company's rate and what it has spent this turn, the ground
a path crosses and its price, the table's edges and the companies in the way.

Rates (IW-H 2.1-2.4, completion_movement.move_allowance): the company's open-ground move for its class,
x1.5 under March while no enemy is within 2 UDM (IW Marcia), halved in bad weather (IW Cattivo
tempo) and under Withdraw (IW Indietreggiare). The ground is paid part by part along the path
(IW-H 2.3, IW Terreno): a stretch in broken ground costs double (not for skirmishers), in closed
ground double and disorders (HERALD D22), impassable ground refuses; guns enter closed ground only
by road; a move wholly along a road gains 2 UDM and ignores the ground (IW Strade, IW-H 2.2); foot
crossing field defences pay 2 UDM and are disordered, horse and guns may not cross (IW-H 12). A
ford or bridge lifts the watercourse it crosses (IW Terreno: "Guadi", "Ponti"). HERALD D70.

Spent movement (manoeuvres in 2c, the move in 2d) is kept on the company: `used_move` in turn
`used_turn` (HERALD D71).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from shapely.geometry import LineString, Point, box
from shapely.ops import unary_union

from engine.core.errors import Illegal
from engine.core.table import moves as tmoves
from engine.core.table.geometry import CONTACT_TOL, Pose, base_polygon, forward, rnd

from engine.italianwars import checks, completion, completion_movement, rules, tables
from engine.italianwars.state import IWState

S_MOVE = "IW Azioni 2d"
S_MANOEUVRE = "IW Azioni 2c"
S_TERRAIN = "IW Terreno"
EPS = 1e-6
PIECE = 0.1                 # a path is priced in pieces of at most 0.1 UDM (IW-H 2.3: each part)
GUN_CLASSES = completion.GUNS
CROSSINGS = ("ford", "bridge")
WATER = tables.WATER_KINDS
MULT = {"open": 1.0, "broken": 2.0, "closed": 2.0}


def h(rule: str) -> str:
    return completion.hcite(rule)


# -- who and how fast ---------------------------------------------------------------------------------

def fp(sc, st: IWState, c):
    return checks.footprint(sc, st, c)


def pose(c) -> Pose:
    return Pose(c.x, c.y, c.facing)


def poly(sc, st: IWState, c, at: Pose | None = None):
    return base_polygon(at or pose(c), fp(sc, st, c))


def set_pose(c, p: Pose) -> None:
    c.x, c.y, c.facing = rnd(p.x), rnd(p.y), rnd(p.facing % 360.0)


def kind_of(sc, st: IWState, c) -> str:
    """The facing-cost kind (completion_movement.FACING_COST): skirmishers, cavalry, infantry, artillery."""
    if rules.role_of(sc, st, c.id) == "skirmishers":
        return "skirmishers"
    return rules.arm_of(sc, st, c.id)


def move_class(sc, st: IWState, c) -> str:
    """IW-H 2.1 movement class (completion_movement.move_class)."""
    return completion_movement.move_class(rules.arm_of(sc, st, c.id),
                                 str(rules.attr(sc, st, c.id, "armour", "protected") or "protected"),
                                 rules.role_of(sc, st, c.id),
                                 str(rules.attr(sc, st, c.id, "missile_weapon", "") or ""))


def order_of(st: IWState, c) -> str:
    b = st.battles.get(c.battle)
    return b.order if b is not None else ""


def enemies(st: IWState, c, hidden: bool | None = False) -> list:
    """The enemy companies on the table (hidden ones only when `hidden` is None or True)."""
    out = []
    for o in sorted(st.companies.values(), key=lambda o: o.id):
        if o.side == c.side or not o.alive or o.status == "waiting":
            continue
        if hidden is False and o.hidden:
            continue
        if hidden is True and not o.hidden:
            continue
        out.append(o)
    return out


def friends(st: IWState, c) -> list:
    return [o for o in sorted(st.companies.values(), key=lambda o: o.id)
            if o.side == c.side and o.id != c.id and o.alive and o.status != "waiting"]


def enemy_within(sc, st: IWState, c, reach: float, at: Pose | None = None) -> str:
    """The first enemy (seen) within `reach` UDM of the company (edge to edge, HERALD D2), or ""."""
    me = poly(sc, st, c, at)
    for e in enemies(st, c):
        if me.distance(poly(sc, st, e)) <= reach + EPS:
            return e.id
    return ""


def march_halted(sc, st: IWState, c) -> bool:
    """IW Marcia: a marching battle's company with an enemy within 2 UDM acts as under Hold until
    none is (HERALD D73)."""
    return order_of(st, c) == "march" and bool(enemy_within(sc, st, c, tables.MARCH_HALT))


def rate(sc, st: IWState, c, *, routing: bool = False, order: str | None = None) -> float:
    """The company's move this turn in open ground, UDM (IW-H 2.1-2.4): its class's rate, x1.5
    marching with no enemy within 2 UDM or routing, halved in bad weather and under Withdraw."""
    o = order_of(st, c) if order is None else order
    if o == "march" and march_halted(sc, st, c):
        o = ""
    return float(completion_movement.move_allowance(move_class(sc, st, c), weather=st.weather or "good",
                                           order="" if routing else o, routing=routing))


def used(st: IWState, c) -> float:
    return c.used_move if c.used_turn == st.turn else 0.0


def spend(st: IWState, c, amount: float) -> None:
    c.used_move = rnd(used(st, c) + amount)
    c.used_turn = st.turn


def left(sc, st: IWState, c) -> float:
    """What remains of the company's move this turn (HERALD D71)."""
    return rnd(max(0.0, rate(sc, st, c) - used(st, c)))


def fmt(v: float) -> str:
    return f"{rnd(v):g}"


# -- the table -----------------------------------------------------------------------------------------

def table_size(sc) -> tuple[float, float]:
    from engine.italianwars.sequence.prebattle import table_size as ts
    return ts(sc)


def on_table(sc, g) -> bool:
    w, h_ = table_size(sc)
    minx, miny, maxx, maxy = g.bounds
    return minx >= -EPS and miny >= -EPS and maxx <= w + EPS and maxy <= h_ + EPS


def edge_bearing(sc, st: IWState, side: str) -> float:
    """The compass bearing toward the side's own home edge (sequence/prebattle.edge_of)."""
    from engine.italianwars.sequence.prebattle import edge_of
    return {"south": 180.0, "north": 0.0, "west": 270.0, "east": 90.0}[edge_of(sc, st, side)]


# -- the ground ----------------------------------------------------------------------------------------

@dataclass
class Ground:
    """The scenario's features as the mover meets them: [(id, kind, category, geometry)] with
    each watercourse less its fords and bridges, the roads (and bridges) as one area, the field
    defences apart (IW-H 12)."""
    areas: list = field(default_factory=list)
    roads: object = None
    defences: list = field(default_factory=list)
    memo: dict = field(default_factory=dict)     # (pose, footprint) -> the worst ground under it


_GROUND: dict[int, tuple[object, Ground]] = {}


def ground(sc) -> Ground:
    if sc is None:
        return Ground()
    got = _GROUND.get(id(sc))
    if got is not None and got[0] is sc:
        return got[1]
    feats = checks.features(sc)
    crossings = unary_union([f.geometry for f in feats if getattr(f, "kind", "") in CROSSINGS]) if any(
        getattr(f, "kind", "") in CROSSINGS for f in feats) else None
    g = Ground()
    roads = []
    for f in feats:
        geom = getattr(f, "geometry", None)
        kind = getattr(f, "kind", "")
        if geom is None:
            continue
        fid = getattr(f, "id", kind)
        if kind == "defences":
            g.defences.append((fid, geom))
            continue
        if kind == "road" or kind == "bridge":
            roads.append(geom)
        if kind in WATER and crossings is not None:
            geom = geom.difference(crossings)
        g.areas.append((fid, kind, checks.category_of(f), geom))
    g.roads = unary_union(roads) if roads else None
    _GROUND[id(sc)] = (sc, g)
    return g


def worst_ground(sc, g) -> tuple[str, str]:
    """The worst category under the geometry and the feature giving it ("open", "")."""
    order = ("open", "broken", "closed", "impassable")
    best = ("open", "")
    for fid, kind, cat, geom in ground(sc).areas:
        if cat in order and order.index(cat) > order.index(best[0]) and geom.intersects(g) and not geom.touches(g):
            best = (cat, fid)
    return best


@dataclass
class Priced:
    """A path priced over the ground: UDM spent, whether wholly on a road, closed ground met (a
    disorder), the field defences crossed, and a refusal ("" when the ground allows it)."""
    cost: float
    road: bool
    closed: str
    defences: list
    refusal: str = ""


def pieces(bodies: list, steps) -> list[list[tuple[Pose, float]]]:
    """The path of a body (one company, or a phalanx's companies as a block: `bodies` =
    [(Pose, Footprint)]) cut in pieces: per member, [(pose after the piece, allowance of the
    piece before the ground)]. A piece's allowance is the block's (an advance its length, a wheel
    the arc of the block's outer front corner: 90 degrees of a lone company cost 1.57 UDM,
    completion_movement.wheel_cost). Each pose is walked from its step's start (one rounding)."""
    out: list[list[tuple[Pose, float]]] = [[] for _ in bodies]
    cur = list(bodies)
    for s in steps:
        if s.kind in ("advance", "slide"):
            marks = _splits(abs(s.amount), PIECE)
        elif s.kind == "wheel":
            marks = _splits(s.amount, 5.0)
        else:                       # turns in place: priced by the caller (IW-H 3.2)
            marks = [abs(s.amount)]
        whole = tmoves.group_walk(cur, [s])
        total = abs(s.amount) or 1.0
        cost = whole[0].used if s.kind in ("advance", "slide", "wheel") else 0.0
        if s.kind == "wheel" and len(cur) == 1:
            cost = completion_movement.wheel_cost(s.amount)
        done = 0.0
        for mark in marks:
            each = cost * (mark - done) / total
            done = mark
            if s.kind == "advance":          # straight on: no need to walk it
                sign = 1.0 if s.amount >= 0 else -1.0
                for i, (p0, _) in enumerate(cur):
                    fx, fy = forward(p0.facing)
                    out[i].append((Pose.rounded(p0.x + fx * sign * mark, p0.y + fy * sign * mark, p0.facing), each))
                continue
            part = tmoves.Step(s.kind, mark if s.amount >= 0 else -mark, s.direction)
            for i, end in enumerate(tmoves.step_ends(cur, part)):     # the poses only: no swept area
                out[i].append((end, each))
        cur = [(w.end, f) for w, (_, f) in zip(whole, cur)]
    return out


def _splits(total: float, size: float) -> list[float]:
    """The marks along a step at a fixed spacing from its start (size, 2 size, ..., total): a
    shorter try of the same move meets the same poses first, so their ground is read once
    (`ground_under`)."""
    n = max(1, math.ceil(total / size - 1e-9))
    return [min(total, size * k) for k in range(1, n + 1)]


def ground_under(sc, pose: Pose, f) -> tuple[str, str]:
    """`worst_ground` under a company's rectangle at `pose`, remembered per scenario (a move is
    priced again and again while its longest affordable part is sought)."""
    memo = ground(sc).memo
    key = (pose, f)
    found = memo.get(key)
    if found is None:
        if len(memo) > 200_000:
            memo.clear()
        found = memo[key] = worst_ground(sc, base_polygon(pose, f))
    return found


def price(sc, st: IWState, movers: list, starts: list[Pose], steps) -> Priced:
    """IW-H 2.2-2.3, 12 (HERALD D70): the path's cost over the ground it crosses, part by part;
    a block pays as its worst-placed member."""
    fps = [fp(sc, st, c) for c in movers]
    paths = pieces(list(zip(starts, fps)), steps)
    g = ground(sc)
    road = bool(paths and paths[0]) and g.roads is not None and all(
        g.roads.covers(Point(p.x, p.y)) for path in paths for p, _ in path) and all(
        g.roads.covers(Point(s.x, s.y)) for s in starts)
    total, closed, crossed = 0.0, "", []
    for c, start, f, path in zip(movers, starts, fps, paths):
        cls = move_class(sc, st, c)
        skirm = cls == "skirmisher"
        cost = 0.0
        for p, each in path:
            if road:
                cost += each
                continue
            cat, fid = ground_under(sc, p, f)
            if cat == "impassable":
                return Priced(cost, road, closed, [], f"{fid} is impassable ground (IW Terreno impassabile)")
            if cat == "closed" and cls in GUN_CLASSES:
                return Priced(cost, road, closed, [], f"{fid} is closed ground: guns enter it only by road ({h('2.3')})")
            if cat == "closed" and not closed:
                closed = fid
            cost += each * (1.0 if (cat == "broken" and skirm) else MULT.get(cat, 1.0))
        if g.defences and path:
            track = LineString([(start.x, start.y)] + [(p.x, p.y) for p, _ in path])
            for fid, geom in g.defences:
                if track.intersects(geom) and not geom.intersects(base_polygon(start, f)):
                    if rules.arm_of(sc, st, c.id) != "infantry":
                        return Priced(cost, road, closed, [], f"{fid}: horse and guns cannot cross field defences ({h('12.2')})")
                    if fid not in crossed:
                        crossed.append(fid)
                    cost += completion.DEFENCES_COST
        total = max(total, cost)
    return Priced(rnd(total), road, closed, crossed)


# -- companies in the way --------------------------------------------------------------------------------

def overlaps(a, b) -> bool:
    """Two rectangles overlap (more than touching)."""
    return a.intersection(b).area > 1e-4


def passed_through(sc, st: IWState, c, swept, end_poly) -> tuple[list, list, list]:
    """(friends passed through, friends overlapped at the end, enemies touched) along a swept area."""
    through, at_end, touched = [], [], []
    for o in friends(st, c):
        op = poly(sc, st, o)
        if overlaps(end_poly, op):
            at_end.append(o)
        elif overlaps(swept, op):
            through.append(o)
    for e in enemies(st, c):
        if swept.distance(poly(sc, st, e)) <= CONTACT_TOL and poly(sc, st, c).distance(poly(sc, st, e)) > CONTACT_TOL:
            touched.append(e)
    return through, at_end, touched


def interpenetration(sc, st: IWState, c, through: list) -> list[str]:
    """IW Disordine, IW Schermagliatori: friends passed through, and the mover, are disordered
    unless one of the two is skirmishers. Returns the ids newly disordered."""
    out = []
    mine = rules.role_of(sc, st, c.id) == "skirmishers"
    for o in through:
        if mine or rules.role_of(sc, st, o.id) == "skirmishers":
            continue
        for x in (c, o):
            if not x.disordered:
                x.disordered = True
                out.append(x.id)
    return out


def refuse(reason: str, section: str = S_MOVE):
    raise Illegal(reason, section)


def bounds_box(sc):
    w, h_ = table_size(sc)
    return box(0, 0, w, h_)
