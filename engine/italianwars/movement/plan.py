"""Planning a move before anything changes (IW Azioni 2d, IW-H 2, 4.2, 13; HERALD D70-D76): the
walk of a company (or a phalanx as one block) through its steps, cut short where it first comes
within 1 UDM of a hidden enemy (IW-H 13: the ambush is sprung), within 2 UDM of an enemy on the
march (IW Marcia), or touches enemy skirmishers (IW Schermagliatori: they are pushed back); the
friends it passes through; its price over the ground; and its refusals (an enemy touched, the
table's edge, a friend under its end place, too long a move).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from shapely.ops import unary_union

from engine.core.table import moves as tmoves
from engine.core.table.geometry import CONTACT_TOL, rnd

from engine.italianwars import completion, completion_movement, rules, tables
from engine.italianwars.movement import common as cm
from engine.italianwars.state import IWState


@dataclass
class Plan:
    movers: list
    walks: list
    steps: list
    priced: cm.Priced
    cut: str = ""                 # why the move stopped short ("" when whole)
    spring: list = field(default_factory=list)     # hidden enemies come within 1 UDM
    push: object = None           # enemy skirmishers met (pushed back)
    through: list = field(default_factory=list)    # friends passed through
    available: float = 0.0

    @property
    def distance(self) -> float:
        return self.walks[0].used if self.walks else 0.0


def step_cost(steps, width: float = 1.0) -> list[float]:
    """Each step's use of the allowance before the ground (an advance its length, a wheel its
    outer corner's arc)."""
    out = []
    for s in steps:
        if s.kind in ("advance", "slide"):
            out.append(abs(s.amount))
        elif s.kind == "wheel":
            out.append(width * math.radians(s.amount))
        else:
            out.append(0.0)
    return out


def truncate(steps, budget: float, width: float = 1.0) -> list:
    """The steps cut where `budget` of plain allowance is used (the last step shortened)."""
    out = []
    for s, cost in zip(steps, step_cost(steps, width)):
        if cost <= budget + 1e-9:
            out.append(s)
            budget -= cost
            continue
        if budget > 1e-6 and cost > 0:
            amount = rnd(s.amount * budget / cost - 0.005) if s.amount > 0 else -rnd(abs(s.amount) * budget / cost - 0.005)
            if abs(amount) > 0:
                out.append(tmoves.Step(s.kind, amount, s.direction))
        break
    return out


def affordable(sc, st: IWState, movers, steps, available: float):
    """The longest beginning of the steps whose price over the ground is within `available`
    (a charge, a rout, a retreat or a pursuit goes as far as its move takes it)."""
    starts = [cm.pose(c) for c in movers]
    width = float(len(movers))
    total = sum(step_cost(steps, width))
    whole = cm.price(sc, st, movers, starts, steps)
    if not whole.refusal and whole.cost <= available + 1e-6:
        return list(steps), whole
    lo, hi = 0.0, total
    best = ([], cm.Priced(0.0, False, "", []))
    for _ in range(24):
        mid = (lo + hi) / 2
        cut = truncate(steps, mid, width)
        p = cm.price(sc, st, movers, starts, cut)
        if not p.refusal and p.cost <= available + 1e-6:
            lo, best = mid, (cut, p)
        else:
            hi = mid
        if hi - lo < 0.005:
            break
    return best


def bodies(sc, st: IWState, movers) -> list:
    return [(cm.pose(c), cm.fp(sc, st, c)) for c in movers]


def swept_of(sc, st: IWState, movers, steps):
    return unary_union([w.swept for w in tmoves.group_walk(bodies(sc, st, movers), steps)])


def cut_at(sc, st: IWState, movers, steps, obstacles: list, tol: float):
    """Where the move first comes within `tol` of one of the obstacles ((id, polygon)); one
    already within `tol` at the start stops it only where the move would run into it. Returns
    (the steps cut there, the obstacle id) or None (HERALD D72)."""
    width = float(len(movers))
    total = sum(step_cost(steps, width))
    starts = [cm.poly(sc, st, m) for m in movers]
    best = None
    for oid, obs in obstacles:
        gap0 = min(p.distance(obs) for p in starts)
        if gap0 > total + tol + 0.01:
            continue                         # beyond the reach of the whole move
        near = gap0 <= tol

        def hit(b: float) -> bool:
            sw = swept_of(sc, st, movers, truncate(steps, b, width))
            return cm.overlaps(sw, obs) if near else sw.distance(obs) <= tol
        if total <= 0 or not hit(total):
            continue
        lo, hi = 0.0, total
        if hit(0.0):
            lo = hi = 0.0
        while hi - lo > 0.004:
            mid = (lo + hi) / 2
            if hit(mid):
                hi = mid
            else:
                lo = mid
        if best is None or lo < best[0] - 1e-9:
            best = (lo, oid)
    if best is None:
        return None
    return truncate(steps, best[0], width), best[1]


def earliest(sc, st: IWState, movers, steps, groups: list[tuple[str, list, float]]):
    """The first of several cuts: groups of (label, obstacles [(id, polygon)], tol). Returns
    (walks, label, obstacle id) or None."""
    best = None
    width = float(len(movers))
    for label, obstacles, tol in groups:
        if not obstacles:
            continue
        got = cut_at(sc, st, movers, steps, obstacles, tol)
        if got is None:
            continue
        cut, oid = got
        key = sum(step_cost(cut, width))
        if best is None or key < best[0] - 1e-9:
            best = (key, cut, label, oid)
    if best is None:
        return None
    _, cut, label, oid = best
    return tmoves.group_walk(bodies(sc, st, movers), cut), label, oid


def plan_move(sc, st: IWState, movers: list, steps: list, *, available: float, march: bool = False,
              section: str = cm.S_MOVE) -> Plan:
    """Plan a move of `movers` (one company, or a phalanx's companies as a block) through `steps`
    with `available` UDM, refusing with Illegal what the rules forbid (HERALD D72)."""
    c = movers[0]
    ids = {m.id for m in movers}
    walks = tmoves.group_walk(bodies(sc, st, movers), steps)
    cut_groups = [("spring", [(e.id, cm.poly(sc, st, e)) for e in cm.enemies(st, c, hidden=True)],
                   float(completion.AMBUSH_REVEAL))]
    skirm = rules.role_of(sc, st, c.id) == "skirmishers"
    if not skirm:
        cut_groups.append(("push", [(e.id, cm.poly(sc, st, e)) for e in cm.enemies(st, c)
                                    if rules.role_of(sc, st, e.id) == "skirmishers"], CONTACT_TOL))
    if march:
        cut_groups.append(("march", [(e.id, cm.poly(sc, st, e)) for e in cm.enemies(st, c)], tables.MARCH_HALT))
    plan = Plan(movers, walks, list(steps), cm.Priced(0.0, False, "", []), available=available)
    got = earliest(sc, st, movers, steps, cut_groups)
    if got is not None:
        walks, label, oid = got
        plan.walks, plan.steps = walks, [x for x in walks[0].steps]
        enemy = st.companies[oid]
        if label == "spring":
            plan.spring.append(enemy)
            plan.cut = f"stops: {rules.named(sc, oid)} springs from hiding within 1 UDM ({cm.h('13')})"
        elif label == "push":
            plan.push = enemy
            plan.cut = (f"meets the skirmishers {rules.named(sc, oid)} and ends its move; they are pushed back "
                        "1 UDM in front of it (IW Schermagliatori)")
        else:
            plan.cut = f"halts on the march within {tables.MARCH_HALT:g} UDM of {rules.named(sc, oid)} (IW Marcia)"
    swept = unary_union([w.swept for w in plan.walks])
    ends = [cm.poly(sc, st, m, w.end) for m, w in zip(movers, plan.walks)]
    for e in cm.enemies(st, c):
        if plan.push is not None and e.id == plan.push.id:
            continue
        ep = cm.poly(sc, st, e)
        if swept.distance(ep) <= CONTACT_TOL and all(cm.poly(sc, st, m).distance(ep) > CONTACT_TOL for m in movers):
            cm.refuse(f"the move would touch {rules.named(sc, e.id)}: contact with the enemy is only by a declared "
                      "charge (IW Dichiarazioni di carica)", section)
    for m, end in zip(movers, ends):
        if not cm.on_table(sc, end):
            w, h_ = cm.table_size(sc)
            cm.refuse(f"{rules.named(sc, m.id)} would leave the table ({w:g} x {h_:g} UDM)", section)
    for o in cm.friends(st, c):
        if o.id in ids:
            continue
        op = cm.poly(sc, st, o)
        if any(cm.overlaps(end, op) for end in ends):
            cm.refuse(f"the move would end on {rules.named(sc, o.id)}: no company ends on another", section)
        if cm.overlaps(swept, op) and not any(cm.overlaps(cm.poly(sc, st, m), op) for m in movers):
            plan.through.append(o)
    plan.priced = cm.price(sc, st, movers, [cm.pose(m) for m in movers], plan.steps)
    if plan.priced.refusal:
        cm.refuse(plan.priced.refusal, cm.S_TERRAIN)
    room = available + (completion_movement.ROAD_BONUS if plan.priced.road else 0)
    if plan.priced.cost > room + 1e-6:
        cm.refuse(f"the move costs {cm.fmt(plan.priced.cost)} UDM over the ground it crosses and "
                  f"{rules.named(sc, c.id)} has {cm.fmt(room)} left ({cm.fmt(plan.priced.cost - room)} too far; "
                  f"{cm.h('2')})", section)
    return plan
