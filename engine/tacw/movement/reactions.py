"""The inactive side's answers to a move, hex by hex: Reaction Movement (TACW §7.4) and Cavalry
Interception (§7.5). `movement.drive` walks the move and runs these as interrupts after every
hex entered; when a player must choose, the move halts with a pending decision and resumes
when it is answered (§7.4.1: "the active player stops, the inactive player reacts, then the
active player resumes where he stopped").

Standing policies (DESIGN: pending decisions), set with `policy <key> <value>` for the side, or
`policy <key> <value> for <wing|unit>` for one wing or unit (sequence/policies.py). Each reacting or
intercepting unit obeys its own policy (its unit's, else its wing's, else its side's): the "auto"
units act first, then the "ask" units (if any) are gathered into one pending decision:

    policy reaction_move never|auto|ask    (default never)
        never: no optional reaction; auto: face the mover when it comes adjacent to a flank or
        rear hex (§7.4.2), never an optional hedgehog or retreat (they need a choice);
        ask: a pending decision {"kind": "reaction_move", "choices": {unit: [face, hedgehog,
        retreat]}} answered with
            react_move <unit> face <vertex>                       (one-hex unit, up to 2 vertices)
            react_move <unit> wheel <pivot> [wheel <pivot>]       (double unit, up to 2 hexes)
            react_move <unit> hedgehog                            (heavy infantry, a morale check)
            react_move <unit> retreat <step> ...                  (a path, full MA, §7.4.4)
            react_move none                                        (no more reactions here)
        The COMPULSORY hedgehog attempt (enemy cavalry enters a rear hex of heavy infantry,
        §7.4.3) is rolled whatever the policy.
    policy intercept never|auto|ask        (default never)
        auto: every eligible cavalry unit tries, in id order, at the first hex where it may, until
        one succeeds; ask: {"kind": "intercept", "options": [cavalry ids]} answered with
            intercept <cavalry> [<hex>] [nopistol] [nocombat]     (try; optional end hex)
            intercept none      (not at this hex: asked again at the next hex)
            intercept pass      (not during the rest of this move; cavalry whose own policy
                                 is "auto" still tries)

Each cavalry unit tries at most one interception per enemy wing activation (§7.5.1): the units
that tried are kept in st.options["_intercepted"] = {"key": "<turn>:<wing>:<activation>",
"units": [...]} (engine scratch, not an optional rule).
"""
from __future__ import annotations

import heapq

from engine.core import facing as F
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier

from engine.tacw.movement import move as mv
from engine.tacw import tables
from engine.tacw.sequence import policies as policies
from engine.tacw.sequence.actions import find_unit
from engine.tacw.geometry import arc_to, distance_units, enemies, unit_arcs
from engine.tacw.morale.checks import FORMATION_STEPS, d10, morale_check, stacked_leader
from engine.tacw.rules import register
from engine.tacw.state import TacwState, Unit

POLICY_KEYS = ("reaction_move", "intercept")
POLICY_VALUES = ("never", "auto", "ask")
INTERCEPTED = "_intercepted"
REACTING_KINDS = ("heavy", "light", "cavalry")


def policy(st: TacwState, side: str, key: str, unit: Unit | str | None = None) -> str:
    """The reacting unit's policy (its own, its wing's, its side's, "never": sequence/policies.py)."""
    return policies.policy(st, side, key, "never", unit=unit)


# == the interrupt tasks ==========================================================================

def run_task(sc, st: TacwState, rec: dict, task: dict, stream: DiceStream) -> list[Event]:
    do = task["do"]
    if do == "reactions":
        return _reactions(sc, st, rec, task)
    if do == "hedgehog":
        r = st.units[task["unit"]]
        if not r.alive or r.morale_state == "broken" or r.special_formation == "hedgehog":
            return []
        return hedgehog_attempt(sc, st, r, st.units[task["mover"]], stream, task["mandatory"])
    if do == "react_options":
        return _react_options(sc, st, rec, task)
    if do == "intercept":
        return _intercept(sc, st, rec, stream)
    if do in ("icpt_fire", "icpt_pistol", "icpt_combat"):
        return _after_interception(sc, st, rec, task, stream)
    raise ValueError(f"unknown movement task {do!r}")


def candidates(sc, st: TacwState, rec: dict, group: list[Unit], entered: list[str]
               ) -> tuple[list[str], dict[str, list[str]]]:
    """The reactions the mover's last step caused (§7.4): (units that MUST try a hedgehog,
    {unit: [optional reactions]}). Causes (HERALD readings, §7.4.1 "one reaction per cause"):
    - face (§7.4.2): the mover entered a flank or rear hex of the reactor, and the mover's MA
      (formation effects included) is equal to or lower than the reactor's; each such hex is a
      cause;
    - hedgehog (§7.4.3): enemy cavalry comes within 2 hexes of heavy infantry: the first hex of
      the move within 2 hexes is the cause; COMPULSORY each time the cavalry enters a rear hex;
    - retreat (§7.4.4): an enemy with equal or lower MA comes within 2 hexes (first hex of the
      move within 2), not for units of a wing on Charge orders.
    Reactors: heavy, light and cavalry units not Broken (a routing unit only routs); a cavalry +
    LI stack reacts as one, through its cavalry."""
    mover = group[0]
    m_ma = mv.allowance(group)
    m_cav = any(g.kind == "cavalry" for g in group)
    seen = rec.setdefault("within2", [])
    mandatory: list[str] = []
    options: dict[str, list[str]] = {}
    for r in sorted(enemies(st, mover.side), key=lambda u: u.id):
        if r.kind not in REACTING_KINDS or r.morale_state == "broken":
            continue
        if (mover.hexes and distance_units(sc, mover.hexes, r.hexes) > 2
                and (not entered or distance_units(sc, entered, r.hexes) > 1)):
            continue        # too far for any cause below: none of its hexes is touched (speed)
        mate = mv.partner_of(st, r)
        if mate is not None and r.kind == "light":
            continue
        r_ma = mv.allowance([r] + ([mate] if mate else []))
        arcs = unit_arcs(sc, r)
        into_fr = any(h in arcs["flank"] or h in arcs["rear"] for h in entered)
        into_rear = any(h in arcs["rear"] for h in entered)
        first_within2 = distance_units(sc, mover.hexes, r.hexes) <= 2 and r.id not in seen
        if first_within2:
            seen.append(r.id)
        can_hedgehog = (r.kind == "heavy" and m_cav and r.special_formation != "hedgehog"
                        and not r.no_hedgehog)
        kinds = []
        if can_hedgehog and into_rear:
            mandatory.append(r.id)
        if into_fr and 0 < r_ma and m_ma <= r_ma:
            kinds.append("face")
        if can_hedgehog and first_within2 and not into_rear:
            kinds.append("hedgehog")
        if first_within2 and 0 < r_ma and m_ma <= r_ma and st.wings[r.wing].order != "charge":
            kinds.append("retreat")
        if kinds:
            options[r.id] = kinds
    return mandatory, options


def _reactions(sc, st: TacwState, rec: dict, task: dict) -> list[Event]:
    if mv._cannot_continue(st, rec):
        return []
    group = mv.group_of(st, rec["ctx"])
    mandatory, options = candidates(sc, st, rec, group, task["entered"])
    new = [{"do": "hedgehog", "unit": rid, "mandatory": True, "mover": group[0].id}
           for rid in mandatory]
    if options:
        new.append({"do": "react_options", "choices": options})
    rec["tasks"][:0] = new
    return []


def _react_options(sc, st: TacwState, rec: dict, task: dict) -> list[Event]:
    mover = st.units[rec["ctx"]["unit"]]
    if not mover.alive:
        return []
    choices = {rid: kinds for rid, kinds in task["choices"].items()
               if st.units[rid].alive and st.units[rid].morale_state != "broken"}
    if not choices:
        return []
    side = st.other(mover.side)
    pols = {rid: policy(st, side, "reaction_move", rid) for rid in choices}
    events: list[Event] = []
    for rid, kinds in choices.items():          # each unit by its own policy: "auto" ones first
        if pols[rid] == "auto" and "face" in kinds:
            events += auto_face(sc, st, st.units[rid], mover, stream=None)
    asked = {rid: kinds for rid, kinds in choices.items() if pols[rid] == "ask"}
    if asked:
        st.pending = {"kind": "reaction_move", "side": side, "mover": mover.id, "hex": mover.hexes[0],
                      "options": sorted(asked) + ["none"], "choices": asked, "section": "TACW §7.4"}
    return events


# == the three reactions (§7.4.2 - §7.4.4) ========================================================

def react_face(sc, st: TacwState, r: Unit, vertex: int) -> list[Event]:
    """§7.4.2: a one-hex unit turns up to two vertices, free (its stacked LI with it)."""
    n = F.turn_cost_vertices(r.facing, vertex)
    if r.is_double:
        raise Illegal("a double unit reacts by wheeling: react_move <unit> wheel <pivot> "
                      "[wheel <pivot>]", "TACW §7.4.2")
    if not 1 <= n <= 2:
        raise Illegal(f"a facing reaction turns one or two vertices ({r.called} faces "
                      f"{F.vertex_name(sc.grid, r.facing)})", "TACW §7.4.2")
    mate = mv.partner_of(st, r)
    for g in [r] + ([mate] if mate else []):
        g.facing = vertex
    return [Event("reaction_move", r.side, "TACW §7.4.2",
                  f"{r.called} reacts: turns to face {F.vertex_name(sc.grid, vertex)}",
                  outcome={"unit": r.id, "reaction": "face", "facing": F.vertex_name(sc.grid, vertex)})]


def reaction_walk(sc, st: TacwState, r: Unit, steps: list[list], stream: DiceStream | None, *,
                  ma: int, no_adjacent: list | None, end_check=None, section: str,
                  with_partner: bool = True) -> list[Event]:
    """A reaction that moves (a wheel, a retreat, an interception): validated on a copy, then
    walked with the normal rules of movement, facing, stacking and formation hits (§7.4.4), and
    no interrupts (HERALD: the active side has no reactions to a reaction; cavalry may not
    intercept an interception, §7.5.1). A cavalry + LI stack moves together unless
    `with_partner` is False (an interceptor leaves its LI behind, §8.2.1)."""
    mate = mv.partner_of(st, r) if with_partner else None
    sim = st.copy()
    sctx = mv.new_ctx(sc, sim, sim.units[r.id], sim.units[mate.id] if mate else None, "reaction", ma=ma)
    sctx["no_adjacent"] = no_adjacent
    for s in steps:
        mv.apply_step(sc, sim, sctx, s)
    for h in sim.units[r.id].hexes:
        problem = mv.final_stack_problem(sim, h)
        if problem:
            raise Illegal(problem, "TACW §8.1.1")
    if end_check is not None:
        end_check(sim)
    ctx = mv.new_ctx(sc, st, r, mate, "reaction", ma=ma)
    ctx["no_adjacent"] = no_adjacent
    events: list[Event] = []
    for s in steps:
        events += mv.apply_step(sc, st, ctx, s, live=True, stream=stream)[1]
    events += mv.end_movement_hits(sc, st, ctx, stream)
    events += mv._apply_top(st, ctx, None)
    ev = mv.move_event(sc, st, ctx, r)
    ev.section = section
    st.last_action.setdefault("items", []).append({"kind": "move", "piece": r.id, "path": list(ctx["path"])})
    return events + [ev]


def react_wheel(sc, st: TacwState, r: Unit, steps: list[list], stream) -> list[Event]:
    """§7.4.2: a double unit wheels up to two hexes (no MP; the terrain's formation hits and
    the stacking limits still apply, HERALD)."""
    if not r.is_double:
        raise Illegal("only a double unit wheels; a one-hex unit reacts with 'face <vertex>'", "TACW §7.4.2")
    if not 1 <= len(steps) <= 2 or any(k != "wheel" for k, _ in steps):
        raise Illegal("a double unit's facing reaction is one or two hexes of wheel", "TACW §7.4.2")
    return reaction_walk(sc, st, r, steps, stream, ma=mv.FREE, no_adjacent=None, section="TACW §7.4.2")


def react_retreat(sc, st: TacwState, r: Unit, mover: Unit, steps: list[list], stream) -> list[Event]:
    """§7.4.4: move away up to the full MA, ending farther from the mover than at the start,
    never adjacent to any enemy unit; normal movement, facing and formation-hit rules. HERALD:
    the wing's movement orders do not limit it beyond this (Charge wings may not retreat)."""
    if st.wings[r.wing].order == "charge":
        raise Illegal("units of a wing on Charge orders may not retreat", "TACW §5.6.1, §7.4.4")
    start = distance_units(sc, r.hexes, mover.hexes)
    mate = mv.partner_of(st, r)

    def farther(sim):
        now = distance_units(sc, sim.units[r.id].hexes, sim.units[mover.id].hexes)
        if now <= start:
            raise Illegal(f"a retreat reaction must end farther from {mover.called} than it began "
                          f"({start} hexes; this path ends {now})", "TACW §7.4.4")

    return reaction_walk(sc, st, r, steps, stream, ma=mv.allowance([r] + ([mate] if mate else [])),
                         no_adjacent=["a retreating unit may not move adjacent to any enemy unit",
                                      "TACW §7.4.4"], end_check=farther, section="TACW §7.4.4")


def hedgehog_attempt(sc, st: TacwState, r: Unit, mover: Unit, stream, mandatory: bool) -> list[Event]:
    """§7.4.3: heavy infantry tries to form a hedgehog by passing a morale check; failing, it
    does not form it and loses one morale level (§11)."""
    why = (f"{'must try' if mandatory else 'tries'} to form a hedgehog: {mover.called} "
           f"{'entered its rear' if mandatory else 'came within 2 hexes'}")
    events = morale_check(sc, st, r, stream, reason=why, section="TACW §7.4.3")
    passed = bool(events) and events[0].outcome.get("passed")
    if passed and r.alive:
        r.special_formation = "hedgehog"
        events.append(Event("reaction_move", r.side, "TACW §7.4.3", f"{r.called} forms a hedgehog",
                            outcome={"unit": r.id, "reaction": "hedgehog", "formed": True}))
    else:
        events.append(Event("reaction_move", r.side, "TACW §7.4.3",
                            f"{r.called} fails to form a hedgehog and loses a morale level",
                            outcome={"unit": r.id, "reaction": "hedgehog", "formed": False}))
    return events


class NoDice(DiceStream):
    """A stream for a trial on a scratch copy, which must roll nothing (D128): a die asked of it
    is an internal error (RuntimeError, never Illegal, so no caller mistakes it for "this plan is
    not legal"). It refuses before the what-if hook (engine/core/odds.py) is consulted, so a trial
    never draws the seeded stream's next die nor adds a branch to a what-if."""

    def __init__(self, what: str):
        super().__init__("no-dice", 0)
        self.what = what

    def roll(self, sides: int, purpose: str, roller: str | None = None) -> int:
        raise RuntimeError(f"internal error: {self.what} asked for a d{sides} ({purpose}); "
                           "a trial must roll no dice")

    def randbelow(self, bound: int) -> int:
        raise RuntimeError(f"internal error: {self.what} asked for a hidden draw below {bound}; "
                           "a trial must draw nothing")


def auto_face(sc, st: TacwState, r: Unit, mover: Unit, stream) -> list[Event]:
    """Policy 'auto': the fewest vertices (or hexes of wheel) that bring the mover into the
    reactor's front; nothing when two are not enough (§7.4.2). A double unit's wheels are tried
    on a scratch copy with a stream that rolls nothing (D128): a wheel costs no MP and its
    terrain formation hits roll no die for infantry (§7.3.1, §6.3.1)."""
    grid = sc.grid
    if not r.is_double:
        for n in (1, 2):
            for v in range(6):
                if F.turn_cost_vertices(r.facing, v) == n and \
                        any(h in F.arcs(grid, r.hexes, v)["front"] for h in mover.hexes):
                    return react_face(sc, st, r, v)
        return []
    plans = [[["wheel", p]] for p in r.hexes] + [[["wheel", p], ["wheel", p]] for p in r.hexes]
    for plan in plans:
        sim = st.copy()
        try:
            react_wheel(sc, sim, sim.units[r.id], plan, NoDice("a trial wheel of the 'auto' facing reaction"))
        except Illegal:
            continue
        su = sim.units[r.id]
        if any(h in F.arcs(grid, su.hexes, su.facing)["front"] for h in mover.hexes):
            return react_wheel(sc, st, r, plan, stream)
    return []


# == cavalry interception (§7.5) ==================================================================

def intercepted_this_activation(st: TacwState) -> list[str]:
    """The cavalry that tried an interception during the current enemy wing activation."""
    act = st.activation
    key = f"{st.turn}:{act.wing}:{act.number}" if act else ""
    rec = st.options.get(INTERCEPTED)
    if not isinstance(rec, dict) or rec.get("key") != key:
        rec = {"key": key, "units": []}
        st.options[INTERCEPTED] = rec
    return rec["units"]


def intercept_plan(sc, st: TacwState, cav: Unit, mover: Unit, dest: str | None = None) -> dict | None:
    """§7.5.1: can `cav` reach a hex adjacent to the mover, with its MP and without the move's
    formation hits leaving it F-Broken, ending with the mover in its front? The cheapest way
    (HERALD: preferring a hex in the mover's flank or rear, then fewer MP, fewer hits).
    Normal movement: front hexes only, facing costs, no passing through friendly units except
    artillery, never into enemy units (§7.1, §8.1.2). The light infantry it stacks with stays."""
    grid = sc.grid
    ma = tables.movement_allowance("cavalry", cav.formation, cav.special_formation)
    f0 = FORMATION_STEPS.index(cav.formation)
    hits_apply = tables.movement_formation_hits_apply(cav.special_formation)
    targets = set(mover.hexes)
    start = cav.hexes[0]
    heap: list = [(0, 0, 0, start, cav.facing, ())]
    best: set = set()
    goals = []
    while heap:
        cost, hits, nsteps, h, f, steps = heapq.heappop(heap)
        if (h, f, hits) in best:
            continue
        best.add((h, f, hits))
        if (dest is None or h == dest) and any(grid.adjacent(h, t) for t in targets) and \
                any(t in F.arcs(grid, [h], f)["front"] for t in targets):
            pri = 0 if arc_to(sc, mover, h) in ("flank", "rear") else 1
            goals.append((pri, cost, hits, nsteps, h, f, steps))
        for nf in range(6):
            if nf != f:
                c = cost + tables.facing_change_cost("cavalry", F.turn_cost_vertices(f, nf))
                if c <= ma and (h, nf, hits) not in best:
                    heapq.heappush(heap, (c, hits, nsteps + 1, h, nf, steps + (("face", nf),)))
        for d in ((f - 1) % 6, f):
            n = grid.neighbor(h, d)
            if n is None or n in targets:
                continue
            others = [o for o in st.units_at(n) if o.id != cav.id]
            if any(o.side != cav.side or o.kind != "artillery" for o in others):
                continue
            key = sc.terrain_at(n)
            mp = tables.terrain_mp(key, "cavalry")
            if mp is None:
                continue
            cross = sc.crossing(h, n)
            smp = (tables.terrain_mp(cross, "cavalry", hexside=True) or 0) if cross else 0
            nh = hits
            if hits_apply:
                nh += int(tables.terrain_formation_hit(key, "cavalry"))
                nh += int(bool(cross) and tables.terrain_formation_hit(cross, "cavalry", hexside=True))
            c = cost + mp + smp
            if f0 + nh >= 2 or c > ma or (n, f, nh) in best:
                continue
            heapq.heappush(heap, (c, nh, nsteps + 1, n, f, steps + (("hex", n),)))
    if not goals:
        return None
    pri, cost, hits, _, h, f, steps = min(goals)
    return {"steps": [list(s) for s in steps], "dest": h, "facing": f, "cost": cost, "hits": hits}


def eligible_interceptors(sc, st: TacwState, mover: Unit) -> dict[str, dict]:
    """§7.5.1: enemy cavalry within 4 hexes with the mover in its front or flank arc, not
    Broken (morale; an F-Broken unit cannot move anyway), whose orders allow interception
    (Rally: "NA"), that has not tried during this activation, and that can reach the mover."""
    done = intercepted_this_activation(st)
    out: dict[str, dict] = {}
    for c in sorted(st.units.values(), key=lambda u: u.id):
        if c.side == mover.side or not c.alive or c.kind != "cavalry" or c.id in done:
            continue
        if c.morale_state == "broken" or c.formation == "broken":
            continue
        if tables.interception_target(st.wings[c.wing].order) is None:
            continue
        if not any(F.in_arc_within(sc.grid, c.hexes, c.facing, h, "front+flank",
                                   tables.INTERCEPTION_RANGE) for h in mover.hexes):
            continue
        plan = intercept_plan(sc, st, c, mover)
        if plan is not None:
            out[c.id] = plan
    return out


def _intercept(sc, st: TacwState, rec: dict, stream: DiceStream) -> list[Event]:
    if mv._cannot_continue(st, rec):
        return []
    mover = st.units[rec["ctx"]["unit"]]
    side = st.other(mover.side)
    if policies.values_in_use(st, side, "intercept") <= {"never"}:
        return []
    eligible = eligible_interceptors(sc, st, mover)
    pols = {cid: policy(st, side, "intercept", cid) for cid in eligible}
    events: list[Event] = []
    for cid in eligible:                        # each cavalry by its own policy: "auto" ones first
        if pols[cid] == "auto":
            events += attempt_interception(sc, st, rec, st.units[cid], stream)
            if rec["halt"]:
                return events
    asked = [cid for cid in eligible if pols[cid] == "ask" and cid not in intercepted_this_activation(st)]
    if asked and not rec.get("no_intercept"):
        st.pending = {"kind": "intercept", "side": side, "mover": mover.id, "hex": mover.hexes[0],
                      "options": asked, "section": "TACW §7.5"}
    return events


def attempt_interception(sc, st: TacwState, rec: dict, cav: Unit, stream: DiceStream,
                         dest: str | None = None, pistol: bool = True, combat: bool = True) -> list[Event]:
    """§7.5.2 - §7.5.4: roll on the Interception table for the cavalry's orders (d10 + the
    value of a WC or AC stacked with it + the original-morale modifier, success at or under
    the printed number); on a failure it stays put. On a success the mover's movement ends
    (its terrain formation hits apply), the cavalry moves adjacent, the mover may reaction-fire,
    the cavalry may fire a pistol, then the immediate close combat."""
    mover = st.units[rec["ctx"]["unit"]]
    plan = intercept_plan(sc, st, cav, mover, dest)
    if plan is None:
        raise Illegal(f"{cav.called} cannot reach {dest or 'a hex next to ' + mover.name}",
                      "TACW §7.5.1")
    order = st.wings[cav.wing].order
    target = tables.interception_target(order)
    mods: list[Modifier] = []
    ld = stacked_leader(st, cav, sc)
    if ld is not None and ld.value:
        mods.append(Modifier(ld.value, f"{ld.name} stacked with the cavalry", "TACW §7.5.2"))
    mm = tables.interception_morale_modifier(cav.morale)
    if mm:
        mods.append(Modifier(mm, f"original morale {cav.morale}", "TACW §7.5.2"))
    roll = d10(stream, f"interception, {cav.called}", cav.side)
    total = roll + sum(m.value for m in mods)
    ok = tables.succeeds(total, target)
    intercepted_this_activation(st).append(cav.id)
    text = (f"{cav.called} tries to intercept {mover.called} in {mover.hexes[0]}: {roll}"
            + "".join(f" {m.value:+d}" for m in mods) + f" = {total} vs 0-{target} -> "
            + ("success" if ok else "failure: it stays where it is"))
    events = [Event("intercept", cav.side, "TACW §7.5.2", text, base=roll, modifiers=mods,
                    dice=[DieRoll("interception", "d10", roll)], table="Interception table",
                    row=tables.ORDER_NAMES[order],
                    outcome={"unit": cav.id, "mover": mover.id, "hex": mover.hexes[0], "success": ok})]
    if not ok:
        return events
    rec["halt"] = [f"intercepted by {cav.called}", "TACW §7.5.3"]
    events += mv.end_movement_hits(sc, st, rec["ctx"], stream)
    if plan["steps"]:
        ma = tables.movement_allowance("cavalry", cav.formation, cav.special_formation)
        events += reaction_walk(sc, st, cav, plan["steps"], stream, ma=ma, no_adjacent=None,
                                section="TACW §7.5.3", with_partner=False)
    rec["tasks"][:0] = [{"do": "icpt_fire", "cav": cav.id, "steps": plan["steps"]},
                        {"do": "icpt_pistol", "cav": cav.id, "fire": pistol},
                        {"do": "icpt_combat", "cav": cav.id, "combat": combat}]
    return events


def _target_hex(sc, cav: Unit, mover: Unit) -> str | None:
    adj = [h for h in mover.hexes if sc.grid.adjacent(h, cav.hexes[0])]
    front = F.arcs(sc.grid, cav.hexes, cav.facing)["front"]
    adj.sort(key=lambda h: (h not in front, h))
    return adj[0] if adj else None


def _after_interception(sc, st: TacwState, rec: dict, task: dict, stream) -> list[Event]:
    cav = st.units[task["cav"]]
    mover = st.units[rec["ctx"]["unit"]]
    if not cav.alive or not mover.alive:
        return []
    target = _target_hex(sc, cav, mover)
    if target is None:
        return []
    do = task["do"]
    if do == "icpt_fire":
        # §7.5.3 "the enemy unit may Reaction Fire": the intercepted unit (of the ACTIVE side)
        # fires at the interceptor, by its side's reaction fire policy (HERALD: "ask" is read
        # as "auto" here, never a second decision inside the interception).
        pol = policies.policy(st, mover.side, "reaction_fire", unit=mover)
        if mover.morale_state == "broken" or pol == "never":
            return []
        one = mv._optional("fire.small_arms", "react_one")
        if one is not None:
            moved_before = max(sum(1 for s in task.get("steps", []) if s[0] == "hex") - 1, 0)
            return list(one(sc, st, mover, cav, list(cav.hexes), "enter", stream,
                            salvo=pol == "salvo", moving_cav=moved_before >= 1) or [])
        fn = mv._optional("fire.small_arms", "reaction_fire")
        if fn is None:
            return []
        kwargs = {"hexes": list(cav.hexes)}
        if mv._accepts(fn, "only"):
            kwargs["only"] = [mover.id]
        return mv._split(fn(sc, st, cav, "enter", stream, **kwargs))[0]
    if do == "icpt_pistol":
        # §7.5.3 then the interceptor may fire (§9.2); no reaction to it (fire.pistol_fire)
        fn = mv._optional("fire.small_arms", "pistol_fire")
        if not task["fire"] or fn is None or cav.pistols <= 0 or cav.morale_state == "broken":
            return []
        return mv._split(fn(sc, st, cav, target, stream, during_move=False))[0]
    if not task["combat"] or cav.morale_state == "broken":
        return []
    fn = mv._optional("close_combat.melee", "immediate_close_combat")
    if fn is None:
        return [Event("close_combat", cav.side, "TACW §7.5.3",
                      f"{cav.called}'s immediate close combat with {mover.called} is not resolved: "
                      "the close combat rules are not installed")]
    return mv._split(fn(sc, st, cav, target, stream))[0]


# == answer verbs and policies ====================================================================

def _pending(st: TacwState, side: str, kind: str) -> dict:
    pend = st.pending
    if not pend or pend.get("kind") != kind or pend.get("side") != side:
        raise Illegal(f"no {kind.replace('_', ' ')} decision is waiting for you", "TACW §7.4.1")
    if mv.suspended_move(st) is None:
        raise Illegal("no move is halted for this decision")
    return pend


def do_react_move(sc, st, side, cmd, stream):
    pend = _pending(st, side, "reaction_move")
    rec = mv.suspended_move(st)
    if not cmd.args:
        raise CannotParse("usage: " + USAGE["react_move"])
    if cmd.args[0] in ("none", "no"):
        st.pending = None
        return [Event("reaction_move", side, "TACW §7.4", f"{side.title()} makes no reaction movement "
                      f"to {st.units[pend['mover']].name} in {pend['hex']}")] + mv.resume_move(sc, st, stream)
    r = find_unit(st, cmd.args[0], side)
    if r.id not in pend["choices"]:
        raise Illegal(f"{r.called} has no reaction to make now (eligible: {', '.join(pend['choices'])})",
                      "TACW §7.4")
    kinds = pend["choices"][r.id]
    what = cmd.args[1] if len(cmd.args) > 1 else ""
    mover = st.units[pend["mover"]]
    want = {"wheel": "face"}.get(what, what)
    if want not in ("face", "hedgehog", "retreat"):
        raise CannotParse("usage: " + USAGE["react_move"])
    if want not in kinds:
        raise Illegal(f"{r.called} may react now only by: {', '.join(kinds)}", "TACW §7.4")
    st.pending = None
    if what == "face":
        if len(cmd.args) != 3:
            raise CannotParse("usage: react_move <unit> face <vertex>")
        events = react_face(sc, st, r, mv._vertex(sc, cmd.args[2]))
    elif what == "wheel":
        steps, _ = mv.parse_steps(sc, cmd.args[1:], allow=("wheel",))
        events = react_wheel(sc, st, r, steps, stream)
    elif what == "hedgehog":
        events = hedgehog_attempt(sc, st, r, mover, stream, mandatory=False)
    else:
        steps, _ = mv.parse_steps(sc, cmd.args[2:], allow=("hex", "face", "about", "wheel", "back"))
        if not steps:
            raise CannotParse("usage: react_move <unit> retreat <step> ...")
        events = react_retreat(sc, st, r, mover, steps, stream)
    remaining = {k: v for k, v in pend["choices"].items() if k != r.id}
    if remaining:
        rec["tasks"].insert(0, {"do": "react_options", "choices": remaining})
    return events + mv.resume_move(sc, st, stream)


def do_intercept(sc, st, side, cmd, stream):
    pend = _pending(st, side, "intercept")
    rec = mv.suspended_move(st)
    if not cmd.args:
        raise CannotParse("usage: " + USAGE["intercept"])
    word = cmd.args[0]
    mover = st.units[pend["mover"]]
    if word in ("none", "pass"):
        st.pending = None
        if word == "pass":
            rec["no_intercept"] = True
        return [Event("intercept", side, "TACW §7.5", f"{side.title()} does not intercept "
                      f"{mover.called}{' during this move' if word == 'pass' else ' in ' + pend['hex']}")] \
            + mv.resume_move(sc, st, stream)
    cav = find_unit(st, word, side)
    if cav.id not in pend["options"]:
        raise Illegal(f"{cav.called} may not intercept now (eligible: {', '.join(pend['options'])})",
                      "TACW §7.5.1")
    dest, pistol, combat = None, True, True
    for w in cmd.args[1:]:
        if w == "nopistol":
            pistol = False
        elif w == "nocombat":
            combat = False
        else:
            dest = mv._hex(sc, w)
    st.pending = None
    events = attempt_interception(sc, st, rec, cav, stream, dest, pistol, combat)
    if not rec["halt"]:
        rec["tasks"].insert(0, {"do": "intercept"})      # §7.5.1: others may try after seeing it
    return events + mv.resume_move(sc, st, stream)


def do_policy(sc, st, side, cmd, stream):
    if cmd.args and cmd.args[0] in POLICY_KEYS:
        if len(cmd.args) < 2 or cmd.args[1] not in POLICY_VALUES:
            raise CannotParse(f"usage: policy {cmd.args[0]} never|auto|ask")
        st.policies.setdefault(side, {})[cmd.args[0]] = cmd.args[1]
        what = {"reaction_move": "reaction movement (TACW §7.4)", "intercept": "interception (TACW §7.5)"}
        return [Event("policy", side, "DESIGN pending decisions",
                      f"{side.title()}: {what[cmd.args[0]]} -> {cmd.args[1]}")]
    if _previous_policy is None:
        raise CannotParse("usage: " + USAGE["policy"])
    return _previous_policy(sc, st, side, cmd, stream)


USAGE = {
    "react_move": ("react_move <unit> face <vertex> | wheel <pivot> [wheel <pivot>] | hedgehog | "
                   "retreat <step> ... | react_move none: answer a reaction movement decision (TACW §7.4)"),
    "intercept": ("intercept <cavalry> [<hex>] [nopistol] [nocombat] | none | pass: answer an "
                  "interception decision (TACW §7.5)"),
    "policy": "policy reaction_move|intercept never|auto|ask (TACW §7.4, §7.5)",
}

_previous_policy = None


def _register() -> None:
    global _previous_policy
    from engine.tacw import rules
    prev = rules.HANDLERS.get("policy")
    if prev is not None and getattr(prev, "__module__", "") != __name__:
        _previous_policy = prev
    register("react_move", do_react_move, USAGE["react_move"])
    register("intercept", do_intercept, USAGE["intercept"])
    register("policy", do_policy, rules.VERBS.get("policy", "") + "; " + USAGE["policy"])


_register()
