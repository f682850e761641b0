"""Step 2d, movement (IW Azioni 2d; IW Terreno, IW Strade, IW Marcia, IW Indietreggiare, IW
Cattivo tempo, IW Definizione degli ordini di gioco, IW Coesione delle Battaglie; IW-H 2, 4.2, 11).

    move <company> <steps>     steps: "advance 3", "wheel 20 right advance 3", "back 2" (Withdraw)
    limber <gun>               begin limbering or unlimbering (IW Azioni 2a "sganciando", IW-H 11)

Declared chargers are moved by Herald when 2d begins: straight at their target (one wheel, paid),
stopping 1 UDM short (IW-H 4.2); one that cannot get there stops where its move ends and keeps
`charge["short"] = True`. The step waits while the acting side has a company that may still move
(not moved, not a charger, its order letting it move); `pass` ends it. HERALD D70-D79.
"""
from __future__ import annotations

from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import Pose, angle_between, bearing_to, rnd

from engine.italianwars import checks, rules, tables
from engine.italianwars.movement import common as cm
from engine.italianwars.movement.plan import affordable, plan_move
from engine.italianwars.sequence import activation
from engine.italianwars.state import IWState

S_ORDERS = "IW Definizione degli ordini di gioco"
NO_MOVE = {"hold": "Hold: the companies stay where they are (Tenere)",
           "hesitate": "Hesitate: no movement unless charged (Esitare)",
           "retreat": "Retreat: its companies move by themselves toward their edge (HERALD D79)"}
TOWARDS = ("assault", "attack", "delay", "occupy", "march")


def charger(st: IWState, c) -> bool:
    return bool(c.charge) and c.charge.get("turn") == st.turn and not c.charge.get("pursuit")


def in_melee(c) -> bool:
    return bool(c.in_melee or c.melee_with)


def members(st: IWState, c) -> list:
    """A phalanx moves as one block (IW Falange; HERALD D74): its companies, else the company."""
    if c.formation.startswith("phalanx:"):
        return [o for o in sorted(st.companies.values(), key=lambda o: o.id)
                if o.formation == c.formation and o.alive]
    return [c]


def busy(sc, st: IWState, c, charging: str, limbering: str) -> str:
    """What stops a company of the acting battle from manoeuvring (2c) or moving (2d) at all: not
    free to act, a charger (`charging` says why), already moved, in melee, limbering (`limbering`);
    "" when none does."""
    name = rules.named(sc, c.id)
    if not activation.may_act(sc, st, c):
        return f"{name} is not a company of the acting battle free to act (routing, pursuing or evaded)"
    if charger(st, c):
        return f"{name} has declared a charge: {charging}"
    if c.moved:
        return f"{name} has already moved this turn"
    if in_melee(c):
        return f"{name} is in melee"
    if c.limbering:
        return f"{name} is limbering{limbering} ({cm.h('11.1')})"
    return ""


def why_not_move(sc, st: IWState, c) -> str:
    """Why the company may not move in 2d now ("" when it may)."""
    name = rules.named(sc, c.id)
    why = busy(sc, st, c, "Herald moves it in the charge (IW-H 4.2)", ": it neither moves nor shoots until next turn")
    if why:
        return why
    if rules.arm_of(sc, st, c.id) == "artillery" and not c.limbered:
        return f"{name}'s guns are unlimbered: they do not move (limber them first; {cm.h('11')})"
    if c.formation == "igel":
        return f"{name} is in an Igel, which does not move (IW Formazioni speciali)"
    order = cm.order_of(st, c)
    if order in NO_MOVE:
        return NO_MOVE[order]
    if cm.march_halted(sc, st, c):
        return f"March: an enemy is within {tables.MARCH_HALT:g} UDM of {name}; it holds until none is (HERALD D73)"
    if cm.left(sc, st, c) <= 0:
        return f"{name} has spent its move this turn"
    return ""


def need_move_step(st: IWState, side: str, what: str) -> dict:
    rules.need_not_over(st)
    act = st.activation or {}
    if st.phase != "actions" or act.get("step") != "move" or act.get("side") != side:
        now = (f"step {act.get('step')} of {act.get('battle')}" if act.get("battle")
               else rules.describe_place(st.phase))
        raise Illegal(f"{what} in step 2d of one of your battles' activation: now {now}", cm.S_MOVE)
    return act


# -- where a move may go ----------------------------------------------------------------------------------

def objective_geometry(sc, st: IWState, b):
    """The battle's objective as a geometry (HERALD D51: a feature, a place "x,y" or enemy
    companies), or None."""
    from shapely.geometry import Point
    from shapely.ops import unary_union
    text = (b.objective or "").strip() if b is not None else ""
    if not text:
        return None
    parts = text.replace(",", " ").split()
    try:
        if len(parts) == 2:
            return Point(float(parts[0]), float(parts[1]))
    except ValueError:
        pass
    for f in checks.features(sc):
        if getattr(f, "id", None) == text:
            return f.geometry
    words = text.replace("+", " ").replace(",", " ").split()
    polys = [checks.polygon(sc, st, st.companies[w]) for w in words
             if w in st.companies and st.companies[w].alive and not st.companies[w].hidden]
    return unary_union(polys) if polys else None


def nearest_enemy(sc, st: IWState, c):
    me = cm.poly(sc, st, c)
    found = sorted(cm.enemies(st, c), key=lambda e: (round(me.distance(cm.poly(sc, st, e)), 6), e.id))
    return found[0] if found else None


def direction_refusal(sc, st: IWState, c, end: Pose, backwards: bool) -> str:
    """The order's direction (IW Definizione degli ordini di gioco; HERALD D72): Assault, Attack,
    Delay move toward the nearest enemy (Attack and Delay: or their objective), Occupy and March
    toward the objective, Withdraw away from the nearest enemy (backwards, facing it); a company
    out of its commander's radius moves back toward it first (IW Coesione delle Battaglie)."""
    from engine.italianwars.sequence.cohesion import commander_company, in_radius, must_return
    name = rules.named(sc, c.id)
    start, after = cm.poly(sc, st, c), cm.poly(sc, st, c, end)
    if must_return(sc, st, c):
        cmd = commander_company(st, c)
        if rules.role_of(sc, st, c.id) == "skirmishers" or cmd is None:
            return ""
        d0, d1 = start.distance(cm.poly(sc, st, cmd)), after.distance(cm.poly(sc, st, cmd))
        saved = (c.x, c.y, c.facing)
        cm.set_pose(c, end)
        back_in = in_radius(sc, st, c)
        c.x, c.y, c.facing = saved
        if d1 > d0 - 0.01 and not back_in:
            return (f"{name} is out of its commander's radius and must move back toward {rules.named(sc, cmd.id)} "
                    f"({cm.fmt(d0)} UDM now, {cm.fmt(d1)} after this move; IW Coesione delle Battaglie)")
        return ""
    order = cm.order_of(st, c)
    if backwards and order != "withdraw":
        return (f"only a Withdraw order moves back (IW Indietreggiare, HERALD D72); under {order or 'no order'} "
                "face about in step 2c and advance")
    b = st.battles.get(c.battle)
    if order == "withdraw":
        e = nearest_enemy(sc, st, c)
        if e is None:
            return ""
        ep = cm.poly(sc, st, e)
        d0, d1 = start.distance(ep), after.distance(ep)
        if d1 < d0 - 0.01:
            return (f"Withdraw moves away from the enemy: this move brings {name} from {cm.fmt(d0)} to {cm.fmt(d1)} "
                    f"UDM of {rules.named(sc, e.id)} (IW Indietreggiare)")
        return ""
    if order not in TOWARDS:
        return ""
    goal = objective_geometry(sc, st, b) if order in ("attack", "delay", "occupy", "march") else None
    what = f"its objective ({b.objective})" if goal is not None else ""
    if goal is None and order in ("occupy", "march"):
        return ""
    if goal is None:
        e = nearest_enemy(sc, st, c)
        if e is None:
            return ""
        goal, what = cm.poly(sc, st, e), f"the nearest enemy, {rules.named(sc, e.id)}"
    d0, d1 = start.distance(goal), after.distance(goal)
    if d1 > d0 + 0.01:
        return (f"{order.title()} moves toward {what}: this move takes {name} from {cm.fmt(d0)} to {cm.fmt(d1)} UDM "
                f"away ({S_ORDERS})")
    return ""


# -- carrying a move out ------------------------------------------------------------------------------------

def carry_out(sc, st: IWState, plan, side: str, verb: str = "moves", section: str = cm.S_MOVE) -> list[Event]:
    """Move the companies as planned: pay, disorder (closed ground, field defences, friends passed
    through), spring ambushes, push skirmishers; one event; `st.last_action`."""
    from engine.italianwars.movement import api
    c = plan.movers[0]
    froms = [[m.x, m.y, m.facing] for m in plan.movers]
    for m, w in zip(plan.movers, plan.walks):
        cm.set_pose(m, w.end)
        cm.spend(st, m, plan.priced.cost)
        m.moved = True
        if m.hidden:
            m.hidden = False
    notes = []
    if plan.priced.road:
        notes.append(f"along the road (+2 UDM, the ground ignored: IW Strade, {cm.h('2.2')})")
    if plan.priced.closed:
        notes.append(f"disordered by the closed ground of {plan.priced.closed} (IW Terreno chiuso, HERALD D22)")
    for fid in plan.priced.defences:
        notes.append(f"crosses the field defences {fid}: 2 UDM and disordered ({cm.h('12.2')})")
    if plan.priced.closed or plan.priced.defences:
        for m in plan.movers:
            m.disordered = True
    hit = []
    for m in plan.movers:
        hit += cm.interpenetration(sc, st, m, plan.through)
    if plan.through:
        notes.append("passes through " + ", ".join(rules.named(sc, o.id) for o in plan.through)
                     + (f": disordered {', '.join(hit)} (IW Disordine)" if hit else " (skirmishers: no disorder)"))
    if plan.cut:
        notes.append(plan.cut)
    what = " ".join(str(s) for s in plan.steps) or "stays"
    group = "+".join(m.id for m in plan.movers)
    text = (f"{rules.named(sc, c.id) if len(plan.movers) == 1 else 'The phalanx ' + group} {verb}: {what} "
            f"({cm.fmt(plan.priced.cost)} of {cm.fmt(plan.available)} UDM) to ({cm.fmt(c.x)}, {cm.fmt(c.y)}) "
            f"facing {cm.fmt(c.facing)}" + ("; " + "; ".join(notes) if notes else ""))
    events = [Event("move", side, section, text,
                    outcome={"company": c.id, "companies": [m.id for m in plan.movers], "x": c.x, "y": c.y,
                             "facing": c.facing, "cost": plan.priced.cost, "road": plan.priced.road,
                             "disordered": sorted(set(hit) | ({m.id for m in plan.movers}
                                                              if plan.priced.closed or plan.priced.defences else set())),
                             "cut": plan.cut})]
    if plan.push is not None:
        events += api.push_skirmishers(sc, st, plan.push, c)
    events += api.reveal_ambushers(sc, st, plan.movers)
    st.last_action = {"kind": "move", "company": c.id, "companies": [m.id for m in plan.movers],
                      "path": [list(p) for p in plan.walks[0].path], "from": froms,
                      "distance": plan.distance}
    return events


def do_move(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`move <company> <steps>` in step 2d (IW Azioni 2d; IW-H 2)."""
    act = need_move_step(st, side, "Companies move")
    if len(cmd.args) < 2:
        raise CannotParse("usage: move <company> <steps>, e.g. move c1 wheel 20 right advance 3")
    c = rules.company_of(sc, st, side, cmd.args[0])
    if c.battle != act["battle"]:
        raise Illegal(f"{rules.named(sc, c.id)} is not in the acting battle ({act['battle']})", cm.S_MOVE)
    try:
        steps = tmoves.parse_steps(list(cmd.args[1:]))
    except ValueError as e:
        raise CannotParse(str(e)) from None
    for s in steps:
        if s.kind not in ("advance", "wheel"):
            raise Illegal(f"'{s}' is not a move: a move advances (or backs, under Withdraw) and wheels; turning in "
                          f"place is a manoeuvre of step 2c ({cm.h('3')})", cm.S_MOVE)
    group = members(st, c)
    for m in group:
        why = why_not_move(sc, st, m)
        if why:
            raise Illegal(why, S_ORDERS if "(Tenere)" in why or "Esitare" in why else cm.S_MOVE)
    available = min(cm.left(sc, st, m) for m in group)
    march = cm.order_of(st, c) == "march"
    plan = plan_move(sc, st, group, steps, available=available, march=march)
    backwards = any(s.kind == "advance" and s.amount < 0 for s in steps)
    why = direction_refusal(sc, st, c, plan.walks[0].end, backwards)
    if why:
        raise Illegal(why, S_ORDERS)
    return carry_out(sc, st, plan, side)


# -- the chargers' move (IW-H 4.2) ------------------------------------------------------------------------

def target_geometry(sc, st: IWState, c):
    """(the charged face's segment or the camp, its name), for the charge move."""
    from engine.italianwars.sequence.charges import camp_geometry, face_segment
    t = c.charge.get("target", "")
    if c.charge.get("face") == "camp":
        g = camp_geometry(sc, st, t[5:])
        return g, f"{t[5:].title()}'s camp"
    tc = st.companies.get(t)
    if tc is None or not tc.alive:
        return None, t
    return face_segment(sc, st, tc, c.charge.get("face") or "front"), rules.named(sc, t)


def aim_wheel(sc, st: IWState, c, aim) -> tmoves.Step | None:
    """The one wheel that points the company's front at the aim point (IW-H 4.2), or None."""
    start = cm.pose(c)
    f = cm.fp(sc, st, c)
    turn = angle_between(start.facing, bearing_to(start.x, start.y, aim.x, aim.y))
    if abs(turn) < 1.0:
        return None
    amount = abs(turn)
    direction = "right" if turn > 0 else "left"
    for _ in range(6):
        end = tmoves.walk(start, f, [tmoves.Step("wheel", amount, direction)]).end
        off = angle_between(end.facing, bearing_to(end.x, end.y, aim.x, aim.y))
        amount += off if direction == "right" else -off
        amount = max(0.0, min(180.0, amount))
    amount = rnd(amount)
    return tmoves.Step("wheel", amount, direction) if amount >= 1.0 else None


def halt_distance(sc, st: IWState, c, wheel, target, stop: float) -> float:
    """How far to advance (after the wheel) so the front stops `stop` UDM from the target."""
    f = cm.fp(sc, st, c)
    start = tmoves.walk(cm.pose(c), f, [wheel]).end if wheel else cm.pose(c)

    def gap(d: float) -> float:          # the area swept: it only grows (a front passing the target is no gap)
        if d <= 0:
            return cm.poly(sc, st, c, start).distance(target)
        return tmoves.walk(start, f, [tmoves.Step("advance", d)]).swept.distance(target)
    if gap(0.0) <= stop + 1e-6:
        return 0.0
    lo, hi = 0.0, 60.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if gap(mid) >= stop:
            lo = mid
        else:
            hi = mid
    return rnd(lo - 0.004) if lo > 0.005 else 0.0


def charge_move(sc, st: IWState, c) -> list[Event]:
    """IW-H 4.2 (IW Azioni 2d: "si fermano ad 1 udm dal bersaglio della carica"): the charger
    wheels once toward the charged side and advances, stopping 1 UDM short; an enemy, a hidden
    enemy springing, the table's edge or the end of its move stop it short (`charge["short"]`)."""
    from engine.italianwars.movement.plan import Plan
    target, tname = target_geometry(sc, st, c)
    c.charge["moved"] = True
    if target is None:
        c.charge["short"] = True
        return []
    stop = tables.CHARGE_HALT
    aim = target.interpolate(0.5, normalized=True) if target.geom_type == "LineString" else \
        target.exterior.interpolate(target.exterior.project(cm.poly(sc, st, c).centroid))
    wheel = aim_wheel(sc, st, c, aim)
    d = halt_distance(sc, st, c, wheel, target, stop)
    steps = ([wheel] if wheel else []) + ([tmoves.Step("advance", d)] if d > 0 else [])
    available = cm.left(sc, st, c)
    cut_steps, _ = affordable(sc, st, [c], steps, available + (0.0))
    steps_try = cut_steps
    plan = None
    while True:
        try:
            plan = plan_move(sc, st, [c], steps_try, available=available, section="IW-H 4.2")
            break
        except Illegal:
            if not steps_try:
                break
            last = steps_try[-1]
            if last.kind == "advance" and last.amount > 0.25:
                steps_try = steps_try[:-1] + [tmoves.Step("advance", rnd(last.amount - 0.25))]
            else:
                steps_try = steps_try[:-1]
    if plan is None:
        plan = Plan([c], [tmoves.walk(cm.pose(c), cm.fp(sc, st, c), [])], [], cm.Priced(0.0, False, "", []),
                    available=available)
    events = carry_out(sc, st, plan, c.side, verb=f"charges {tname}", section=cm.h("4.2"))
    gap = cm.poly(sc, st, c).distance(target)
    short = gap > stop + 0.05
    c.charge["short"] = short
    c.charge["gap"] = rnd(gap)
    events[0].narrative += (f"; {cm.fmt(gap)} UDM short of {tname}: the charge cannot close" if short
                            else f"; stops {cm.fmt(stop)} UDM short of {tname}")
    events[0].outcome.update({"charge": True, "target": c.charge.get("target"), "short": short, "gap": rnd(gap)})
    st.last_action["chargers"] = [c.id]
    return events


def run_move_step(sc, st: IWState, stream) -> list[Event]:
    """When 2d begins: the guns that began limbering last turn finish (IW-H 11.1); the acting
    battle's declared chargers move (IW-H 4.2); a Retreat battle's companies move (IW-H 14)."""
    from engine.italianwars.movement import rout
    act = st.activation or {}
    bid = act.get("battle")
    events = finish_limbering(sc, st, [c for c in st.companies.values() if c.battle == bid], in_move_step=True)
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.battle == bid and charger(st, c) and not c.charge.get("moved") and c.status == "active" and not c.evaded:
            events += charge_move(sc, st, c)
    b = st.battles.get(bid)
    if b is not None and b.order == "retreat":
        events += rout.retreat_battle(sc, st, b)
    return events


def has_moves(sc, st: IWState, side: str) -> bool:
    """Step 2d's check: the acting battle has a company that may still move or limber."""
    act = st.activation or {}
    bid = act.get("battle")
    if not bid:
        return False
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.battle != bid or c.side != side:
            continue
        if not why_not_move(sc, st, c):
            return True
        if not why_not_limber(sc, st, c):
            return True
    return False


# -- limbering (IW Azioni 2a "sganciando", IW-H 11) --------------------------------------------------------

def why_not_limber(sc, st: IWState, c) -> str:
    name = rules.named(sc, c.id)
    if rules.arm_of(sc, st, c.id) != "artillery":
        return f"{name} is not artillery: only guns limber"
    if not activation.may_act(sc, st, c):
        return f"{name} is not a company of the acting battle free to act"
    if c.limbering:
        return f"{name} is already limbering; it finishes next turn ({cm.h('11.1')})"
    if c.moved or cm.used(st, c) > 0:
        return f"{name} has moved this turn: limbering takes the whole move ({cm.h('11.1')})"
    if in_melee(c):
        return f"{name} is in melee"
    if c.shot:
        return f"{name} has shot this turn"
    return ""


def do_limber(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`limber <gun>`: begin limbering (or unlimbering) in step 2d; finished at the same point next
    turn, even if the battle fails its activation (IW Attivazione delle Battaglie; IW-H 11.1)."""
    act = need_move_step(st, side, "Guns limber")
    if len(cmd.args) != 1:
        raise CannotParse("usage: limber <gun>")
    c = rules.company_of(sc, st, side, cmd.args[0])
    if c.battle != act["battle"]:
        raise Illegal(f"{rules.named(sc, c.id)} is not in the acting battle ({act['battle']})", "IW Azioni 2a")
    why = why_not_limber(sc, st, c)
    if why:
        raise Illegal(why, cm.h("11.1"))
    c.limbering = True
    c.limber_turn = st.turn
    c.moved = True
    cm.spend(st, c, cm.rate(sc, st, c))
    what = "unlimbering" if c.limbered else "limbering"
    return [Event("limber", side, cm.h("11.1"),
                  f"{rules.named(sc, c.id)} begins {what}: no move and no shot until it is done at this point next turn",
                  outcome={"company": c.id, "limbering": True, "limbered": c.limbered, "turn": st.turn})]


def finish_limbering(sc, st: IWState, companies, in_move_step: bool = False) -> list[Event]:
    """IW-H 11.1: guns that began limbering in an earlier turn finish now."""
    events = []
    for c in sorted(companies, key=lambda c: c.id):
        if not c.limbering or c.limber_turn >= st.turn or not c.alive:
            continue
        c.limbering = False
        c.limbered = not c.limbered
        if in_move_step:
            c.moved = True
        events.append(Event("limbered", c.side, cm.h("11.1"),
                            f"{rules.named(sc, c.id)} is now {'limbered' if c.limbered else 'unlimbered'}",
                            outcome={"company": c.id, "limbered": c.limbered}))
    return events


rules.register("move", do_move, "move <company> <steps>: advance N, wheel N left|right, back N (Withdraw) (2d)")
rules.register("limber", do_limber, "limber <gun>: begin limbering or unlimbering (2d; finished next turn)")
rules.register_step("move", check=has_moves, run=run_move_step)
