"""Moves Herald makes by itself along one heading: evasion (IW Schermagliatori, IW-H 4.4), rout
(IW-H 9.1), retreat (IW-H 14), pursuit (IW-H 9.3), skirmishers pushed back. The company turns in
place to the heading (free: fear, or the chase, turns it; HERALD D76), then runs as far as its
move takes it over the ground (IW-H 2.3), stopping short of any enemy, passing through friends
(disordering them unless skirmishers), and leaving the table or stopping at its edge.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.table import moves as tmoves
from engine.core.table.geometry import CONTACT_TOL, Pose, centre, forward, rnd

from engine.italianwars import completion_movement
from engine.italianwars.movement import common as cm
from engine.italianwars.movement.plan import affordable, cut_at
from engine.italianwars.state import IWState


@dataclass
class Run:
    start: Pose
    turned: Pose
    end: Pose
    distance: float
    cost: float
    off: bool = False              # ran off the table
    blocked_by: str = ""           # the enemy that stopped it
    through: list = field(default_factory=list)
    swept: object = None
    closed: str = ""

    @property
    def path(self) -> list[list[float]]:
        return [[self.start.x, self.start.y], [self.end.x, self.end.y]]


def turned_to(sc, st: IWState, c, heading: float) -> Pose:
    """The company turned in place (about its centre) to face `heading`."""
    f = cm.fp(sc, st, c)
    cx, cy = centre(cm.pose(c), f)
    fx, fy = forward(heading)
    return Pose.rounded(cx + fx * f.depth / 2, cy + fy * f.depth / 2, heading)


def run(sc, st: IWState, c, heading: float, budget: float, *, edge: str = "leave", behind_friend: bool = False,
        ignore: tuple = ()) -> Run:
    """Plan the run (nothing changes): `edge` "leave" (off the table) or "stop" (at the edge);
    `behind_friend`: a run ending on a friend goes on to stop directly behind it (an evader),
    else it stops short of it; `ignore`: enemy ids not stopping it (the router a pursuer chases)."""
    f = cm.fp(sc, st, c)
    start = cm.pose(c)
    turned = turned_to(sc, st, c, heading)
    saved = (c.x, c.y, c.facing)
    cm.set_pose(c, turned)
    try:
        reach = rnd(budget + completion_movement.ROAD_BONUS)          # the ground only shortens it, a road adds 2
        steps, priced = affordable(sc, st, [c], [tmoves.Step("advance", reach)], budget)
        d = steps[0].amount if steps else 0.0
        blocked = ""
        obstacles = [(e.id, cm.poly(sc, st, e)) for e in cm.enemies(st, c, hidden=None) if e.id not in ignore]
        if d > 0 and obstacles:
            got = cut_at(sc, st, [c], [tmoves.Step("advance", d)], obstacles, CONTACT_TOL)
            if got is not None:
                cut, blocked = got
                d = cut[0].amount if cut else 0.0
        off = False

        def place(x: float) -> Pose:
            return tmoves.walk(turned, f, [tmoves.Step("advance", x)]).end if x > 0 else turned
        if not cm.on_table(sc, cm.poly(sc, st, c, place(d))):
            if edge == "leave":
                off = True
            else:
                lo, hi = 0.0, d
                for _ in range(30):
                    mid = (lo + hi) / 2
                    if cm.on_table(sc, cm.poly(sc, st, c, place(mid))):
                        lo = mid
                    else:
                        hi = mid
                d = rnd(lo - 0.005) if lo > 0.005 else 0.0
        if not off:
            friends = [(o, cm.poly(sc, st, o)) for o in cm.friends(st, c)]
            for _ in range(80):
                endp = cm.poly(sc, st, c, place(d))
                on = [o for o, p in friends if cm.overlaps(endp, p)]
                if not on:
                    break
                if behind_friend:
                    d = rnd(d + 0.1)
                else:
                    d = rnd(max(0.0, d - 0.1))
                    if d == 0.0:
                        break
        end = place(d)
        swept = tmoves.walk(turned, f, [tmoves.Step("advance", d)]).swept if d > 0 else cm.poly(sc, st, c, turned)
        through = [o for o in cm.friends(st, c) if cm.overlaps(swept, cm.poly(sc, st, o))
                   and not cm.overlaps(cm.poly(sc, st, c, start), cm.poly(sc, st, o))]
        cost = cm.price(sc, st, [c], [turned], [tmoves.Step("advance", d)]).cost if d > 0 else 0.0
        return Run(start, turned, end, rnd(d), cost, off, blocked, through, swept, priced.closed)
    finally:
        c.x, c.y, c.facing = saved


def progress(r: Run, heading: float, toward: float) -> float:
    """How far the run took the company along `toward` (a bearing)."""
    fx, fy = forward(toward)
    return (r.end.x - r.turned.x) * fx + (r.end.y - r.turned.y) * fy + (1000.0 if r.off else 0.0)


def best_way(sc, st: IWState, c, toward: float, budget: float, **kw) -> Run:
    """The shortest way round enemies (IW-H 9.1; HERALD D77): headings from `toward` out to 90
    degrees either side in 15-degree turns (left before right), the run going furthest toward
    `toward` winning; equal runs: the straighter."""
    best = None
    for k in range(0, 7):
        for sign in ((0,) if k == 0 else (-1, 1)):
            heading = (toward + sign * 15.0 * k) % 360.0
            r = run(sc, st, c, heading, budget, **kw)
            p = progress(r, heading, toward)
            if best is None or p > best[0] + 0.01:
                best = (p, r)
        if best is not None and (best[1].off or (k == 0 and not best[1].blocked_by)):
            break                            # straight on and unblocked: the shortest way
    return best[1]


def apply_run(sc, st: IWState, c, r: Run) -> list[str]:
    """Carry the run out: the place (or off the table), friends passed through disordered unless
    one is skirmishers (IW Disordine). Returns the ids disordered."""
    cm.set_pose(c, r.end)
    if c.hidden:
        c.hidden = False
    if r.off:
        c.status = "off"
        c.melee_with = []
        c.in_melee = False
        return []
    return cm.interpenetration(sc, st, c, r.through)
