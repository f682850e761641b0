"""The move action (TACW §7), walked step by step with the inactive side's interrupts between
the steps; the order and command restrictions on moving (§5.6 with errata [5.6.1] [5.6.3],
§5.4.3); the verbs move, face (with artillery turning instead of firing, §6.2.3), hedgehog,
leader ... move and resume; cavalry sliding aside from artillery fire (§7.6).

The rest of the chapter lives next door (and is re-exported here, where callers import it):
  - `movement/paths.py`: reading a path, the allowance, one step (advance, face, wheel, step back,
    hedgehog, pistol), terrain costs and the end-of-move formation hits (§6.2, §6.3, §7.1-§7.3);
  - `movement/stacking.py`: stacking, the stack on top, incorporation (§8);
  - `movement/leaders.py`: leader movement and leaders overrun (§5.1.2, §5.2.2, §5.3.1).
Reaction movement (§7.4) and cavalry interception (§7.5) are in `movement/reactions.py`; this module
walks the move and calls them hex by hex.

A move is ordered as a whole path (DESIGN: movement is ordered as a whole path with facing
changes). It is first walked on a copy of the state: any illegal step or end refuses the whole
order with the rule that forbids it, the state untouched. Then it is walked on the real state,
step by step; after each step the inactive side's interrupts run, in this order:

  1. Reaction Fire (§9.7; `fire.reaction_fire`), after every hex entered or facing change;
  2. Reaction Movement (§7.4): the compulsory hedgehog attempts, then the optional reactions
     by the reacting player's standing policy (`policy reaction_move never|auto|ask`);
  3. Cavalry Interception (§7.5), by policy (`policy intercept never|auto|ask`).

Whenever one of them needs a player's answer the move HALTS in the exact hex, with a pending
decision; the answer (`react_move ...`, `intercept ...`, or another module's answer verb, which
must then call `resume_move`) resumes it where it halted. A move ends early, reporting why, when
the unit is eliminated, Broken, F-Broken or pushed out of its hex, when it is intercepted, or when
the rest of the path is no longer legal after the enemy's reactions.

Command language (one move action per unit):

    move <unit> <step> <step> ... [top <unit>] [incorporate] [alone]
      <hex>          enter that FRONT hex (§7.1.1). A double unit advances obliquely: name one
                     of its two OUTER front hexes (the ones touching only one half); the half
                     next to it enters it and the other half the central front hex (HERALD).
      face <vertex>  turn to a vertex E SE SW W NW NE (cavalry/LI 1 MP, heavy 2 MP a vertex;
                     a 180 degree turn at most 2 MP, §6.2.1-§6.2.2)
      about          countermarch: turn 180 degrees for 2 MP (§6.2.2), doubles too
      wheel <hex>    double units: wheel one hex forward PIVOTING ON <hex>, one of the unit's two
                     hexes; the other half swings into the central front hex. 1 MP + the terrain
                     it enters (§6.2.1). The facing turns one vertex.
      back <hex>     step back into a rear hex keeping facing, infantry only, 2 MP (§6.2.2)
                     (doubles: name an outer rear hex, as for advancing)
      pistol <hex>   cavalry: fire its one pistol of this move at an adjacent enemy (§9.2)
      hedgehog       heavy infantry forms hedgehog for 4 MP, ending the move (§6.3.2)
      top <unit>     ending in a friendly artillery hex: which unit is on top (§8.3); default the
                     unit that moved in. With no steps: just change the stacking order.
      incorporate    the path ends in a friendly cavalry unit's hex to incorporate it (§8.4)
      alone          a cavalry + light infantry stack: move only this unit (default: together)
    face <unit> <vertex>     a move that only turns (artillery: turn instead of firing, §6.2.3)
    hedgehog <unit>          a move that only forms hedgehog
    leader <id> move <hex> <hex> ...   an Army or Wing Commander moves, 8 MP (§5.1.2, §5.2.2)
    resume                   continue a move halted by an interrupt once it has been answered

HERALD readings where the text is silent (sections of the Italian rulebook; the readings on
paths and stacking are in those modules):
- §5.6.1 (errata) "at least 1 hex closer to an enemy unit": to any one enemy unit, measured
  between the nearest hexes (D42; the later series card's "closest enemy unit not already
  engaged" is the optional rule `series-charge-nearest`); a Charge unit not adjacent may not
  make a move that only turns or forms a hedgehog. §5.6.4 Rally "non possono terminare il
  movimento più vicine ad unità nemiche": no enemy unit may end nearer than it started (D43). Make Ready / Receive Charge / out of command: no hex
  entered may be adjacent to an enemy unit (starting adjacent and only turning is allowed).
- §5.4.3 out of command: the path must end in command or closer to it ("in comando o più
  vicina ad essere in comando", the Reform bullet; digest R8): nearer its Wing Commander or an
  in-command unit of its wing (geometry.command_distance).
- §11.4.3 / §12.4.1 a morale-Broken unit takes no move action (it retreats and routs only).
- A hit taken mid-move from Reaction Fire (artillery) lowers the allowance at once (§6.3.1);
  the terrain's hits still wait for the end (§7.3.1).
- After an interrupt the rest of the path is re-checked step by step (not the orders' end
  conditions, already checked on the intended path): the move ends where a step has become
  impossible, and says why.
"""
from __future__ import annotations

from typing import Any

from engine.core import facing as F
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.state import tree_copy

from engine.tacw import tables
from engine.tacw.sequence.actions import begin_action, find_unit
from engine.tacw.geometry import adjacent_to_enemy, distance_units, enemies, command_distance, in_command
from engine.tacw.movement.leaders import LEADER_KINDS, move_leader, overrun_leaders  # noqa: F401  (re-exported)
from engine.tacw.movement.paths import (  # noqa: F401  (re-exported: movement/reactions.py, the bot, the tests use mv.X)
    FACING_KIND, FREE, HEDGEHOG_COST, STEP_HELP, _accepts, _central, _column, _enter, _hex,
    _need_mp, _optional, _outer, _split, _terrain_cost, _vertex, allowance, apply_step,
    end_movement_hits, group_of, new_ctx, parse_steps, step_label)
from engine.tacw.rules import register
from engine.tacw.movement.stacking import (  # noqa: F401  (re-exported)
    _apply_top, _incorporate, final_stack_problem, partner_of, stack_problem)
from engine.tacw.state import TacwState, Unit

SUSPENDED = "_suspended_move"     # st.options key: the move halted by an interrupt (engine scratch)
MOVING_KINDS = ("cavalry", "heavy", "light", "wagon")


# == restrictions from orders and command (§5.6, §5.4.3) =========================================

# the keys `set_restrictions` may set in a walk's ctx
RESTRICTIONS = ("only_face", "no_adjacent", "max_hexes", "need_command", "command_distance",
                "closer_than", "not_closer_than")


def set_restrictions(sc, st: TacwState, ctx: dict, unit: Unit) -> dict:
    """What the wing's orders and the unit's command allow, fixed at the start of the move."""
    order = st.wings[unit.wing].order
    lim = tables.order_limits(order)
    name = tables.ORDER_NAMES[order]
    adjacent = adjacent_to_enemy(sc, st, unit.hexes, unit.side)
    info = {"order": order, "adjacent": adjacent}
    if lim.adjacent_only_face_or_wheel and adjacent:
        ctx["only_face"] = [f"{name} orders: a unit already adjacent to the enemy may only change "
                            "facing or wheel", "TACW §5.6.1 (errata)"]
    if not lim.may_move_adjacent_to_enemy:
        ctx["no_adjacent"] = [f"{name} orders: it may not move adjacent to an enemy unit",
                              lim.section + (" (errata)" if order == "receive_charge" else "")]
    if lim.max_hexes:
        ctx["max_hexes"] = [lim.max_hexes, f"{name} orders: it moves at most {lim.max_hexes} hex",
                            lim.section + " (errata)"]
    if not in_command(sc, st, unit):
        ctx["need_command"] = True
        ctx["command_distance"] = command_distance(sc, st, unit, unit.hexes)
        if not ctx["no_adjacent"]:
            ctx["no_adjacent"] = ["out of command: it may not move adjacent to the enemy",
                                  "TACW §5.4.3"]
    if lim.must_end_closer and not adjacent:
        ctx["closer_than"] = _charge_reference(sc, st, unit)
    if not lim.may_end_closer_to_enemy:
        ctx["not_closer_than"] = enemy_distances(sc, st, unit)
    return info


# Optional rule (D42): the later Musket & Pike series card's Charge wording, offered by every
# scenario file's [[optional_rules]]; never the default.
SERIES_CHARGE_OPTION = "series-charge-nearest"


def enemy_distances(sc, st: TacwState, unit: Unit) -> dict[str, int]:
    """Each enemy unit's distance from `unit` (nearest hexes of the two), by id."""
    return {e.id: distance_units(sc, unit.hexes, e.hexes) for e in enemies(st, unit.side)}


def _charge_reference(sc, st: TacwState, unit: Unit) -> dict[str, int] | None:
    """The enemy units a Charge unit must end at least 1 hex closer to, with their distances
    now. Errata [5.6.1]: "closer to an enemy unit": every enemy unit counts (D42). With the
    optional rule `series-charge-nearest` (the later series card): only the closest enemy
    unit(s) not already engaged (HERALD: engaged = adjacent to another unit of the mover's
    side), all enemies if every one is engaged."""
    dists = enemy_distances(sc, st, unit)
    if not dists:
        return None
    if SERIES_CHARGE_OPTION not in st.options:
        return dists
    group_ids = {unit.id} | ({p.id} if (p := partner_of(st, unit)) else set())
    friends = [u for u in st.units.values() if u.alive and u.side == unit.side and u.id not in group_ids]
    foes = enemies(st, unit.side)
    free = [e for e in foes if not any(distance_units(sc, e.hexes, f.hexes) <= 1 for f in friends)]
    pool = free or foes
    d = min(dists[e.id] for e in pool)
    return {e.id: d for e in pool if dists[e.id] == d}


def final_checks(sc, before: TacwState, sim: TacwState, ctx: dict, opts: dict) -> None:
    """The end of a validated path: stacking, the orders' end conditions, command."""
    u = sim.units[ctx["unit"]]
    side = u.side
    if ctx["incorporate"] and not ctx["incorporated"]:
        raise Illegal("'incorporate': the path must end in the hex of a friendly cavalry unit",
                      "TACW §8.4")
    for h in u.hexes:
        problem = final_stack_problem(sim, h)
        if problem:
            raise Illegal(problem, "TACW §8.1.1")
    mate = partner_of(sim, u)
    if mate is not None and not ctx["partner"] and mate.facing != u.facing:
        raise Illegal(f"{u.called} and {mate.called} must face the same way to stack: turn before "
                      f"entering ({mate.called} faces {F.vertex_name(sc.grid, mate.facing)})",
                      "TACW §8.2.1")
    if opts.get("top"):
        arts = [o for o in sim.units_at(u.hexes[0]) if o.kind == "artillery" and o.side == side]
        if not arts:
            raise Illegal("'top': the unit does not end stacked with friendly artillery", "TACW §8.3")
        if opts["top"] not in (u.id, arts[0].id):
            raise Illegal(f"'top' names {u.id} or {arts[0].id}", "TACW §8.3")
    ref = ctx.get("closer_than")
    if isinstance(ref, list):                # a move suspended before D42's reading: [d, [ids]]
        ref = {e: ref[0] for e in ref[1]}
    if ref:
        now = enemy_distances(sc, sim, u)
        if not any(e in now and now[e] <= d - 1 for e, d in ref.items()):
            nearest = min(ref.values())
            whom = ("the nearest enemy unit not already engaged" if SERIES_CHARGE_OPTION in before.options
                    else "an enemy unit")
            raise Illegal(f"Charge orders: {u.called} must end at least 1 hex closer to {whom} "
                          f"(the nearest is {nearest} hex{'es' if nearest != 1 else ''} away; this "
                          f"path gains on none)", "TACW §5.6.1 (errata)")
    if isinstance(ctx.get("not_closer_than"), int):     # suspended before D43's reading
        ctx["not_closer_than"] = {e.id: ctx["not_closer_than"] for e in enemies(before, side)}
    if ctx.get("not_closer_than") is not None:
        now = enemy_distances(sc, sim, u)
        nearer = sorted(e for e, d in ctx["not_closer_than"].items() if e in now and now[e] < d)
        if nearer:
            e = sim.units[nearer[0]]
            raise Illegal(f"Rally orders: {u.called} may not end its move closer to enemy units "
                          f"({e.called}: {ctx['not_closer_than'][e.id]} hexes at the start, "
                          f"{now[e.id]} at the end)", "TACW §5.6.4 (D6)")
    if ctx["need_command"] and not in_command(sc, sim, u):
        before_d, now_d = ctx.get("command_distance"), command_distance(sc, sim, u, u.hexes)
        if before_d is None or now_d is None or now_d >= before_d:
            raise Illegal(f"{u.called} is out of command: it must move so as to come into command, "
                          f"or closer to it ({before_d} hex{'es' if before_d != 1 else ''} from its "
                          f"line of command now, {now_d} at the end of this path)", "TACW §5.4.3")


# == the move action =============================================================================

def check_can_move(u: Unit) -> None:
    if u.kind == "artillery":
        raise Illegal("artillery never moves in TACW (it may turn instead of firing: face <gun> "
                      "<vertex>)", "TACW §7.2.1")
    if u.kind not in MOVING_KINDS:
        raise Illegal(f"{u.called} cannot move", "TACW §7.2.1")
    if u.morale_state == "broken":
        raise Illegal(f"{u.called} is Broken: it moves only when it retreats or routs",
                      "TACW §11.4.3, §12.4.1")
    if u.formation == "broken":
        raise Illegal(f"{u.called} is F-Broken: no movement", "TACW §6.3.1")
    if u.special_formation == "hedgehog":
        raise Illegal(f"{u.called} is in hedgehog: no movement", "TACW §6.3.2")


def start_move(sc, st: TacwState, unit: Unit, steps: list[list], opts: dict,
               stream: DiceStream) -> list[Event]:
    """Validate the whole path on a copy, then walk it (the unit has already used its action)."""
    check_can_move(unit)
    partner = None if opts.get("alone") else partner_of(st, unit)
    act = st.activation
    if partner is not None:
        if partner.wing != act.wing or partner.id in act.acted:
            raise Illegal(f"{unit.called} is stacked with {partner.called}, which cannot move now: "
                          f"add 'alone' to move {unit.called} by itself", "TACW §8.2.1")
        check_can_move(partner)
        act.acted.append(partner.id)
    if opts.get("incorporate"):
        if partner is not None:
            raise Illegal("a cavalry unit stacked with light infantry incorporates 'alone'", "TACW §8.4")
    if not steps and not opts.get("top"):
        raise CannotParse(f"give the path: move <unit> <step> ...; {STEP_HELP}")
    # -- what orders and command allow, fixed at the start: read once, for both walks -----------
    real = new_ctx(sc, st, unit, partner, "action")
    real["incorporate"] = bool(opts.get("incorporate"))
    set_restrictions(sc, st, real, unit)
    # -- the dry run ---------------------------------------------------------------------------
    sim = st.copy()
    su = sim.units[unit.id]
    ctx = new_ctx(sc, sim, su, sim.units[partner.id] if partner else None, "action")
    ctx["incorporate"] = real["incorporate"]
    ctx.update({k: tree_copy(real[k]) for k in RESTRICTIONS if k in real})
    if ctx["ma"] <= 0 and steps:
        raise Illegal(f"{unit.called} has no movement allowance", "TACW §7.2")
    for step in steps:
        was = list(su.hexes)
        apply_step(sc, sim, ctx, step)
        newbury.check_step(sc, sim, su, was)         # Second Newbury rules 1 and 4
    newbury.check_end(sc, sim, ctx)                  # rule 4: cross the bridge completely
    final_checks(sc, st, sim, ctx, opts)
    # -- the real walk -------------------------------------------------------------------------
    ctx = real
    rec = {"ctx": ctx, "steps": [list(s) for s in steps], "tasks": [], "within2": [],
           "no_intercept": False, "halt": None, "top": opts.get("top")}
    st.last_action = {"items": [{"kind": "move", "piece": unit.id, "path": [unit.hexes[0]]}]}
    _record_activation(st, ctx)
    return drive(sc, st, rec, stream)


def _record_activation(st: TacwState, ctx: dict) -> None:
    """Activation.moved / .straight: hexes moved, and hexes moved straight ahead without a
    facing change at the end of the move (momentum, §10.3.6; reaction fire at moving cavalry,
    §9.7.2). Kept up to date hex by hex, so the fire rules read them mid-move."""
    act = st.activation
    if act is None or ctx["mode"] != "action":
        return
    for uid in (ctx["unit"], ctx["partner"]):
        if uid:
            act.moved[uid] = ctx["moved"]
            act.straight[uid] = ctx["straight"]


def _set_last_path(st: TacwState, ctx: dict) -> None:
    items = st.last_action.setdefault("items", [])
    for it in items:
        if it.get("kind") == "move" and it.get("piece") == ctx["unit"]:
            it["path"] = list(ctx["path"])
            return
    items.append({"kind": "move", "piece": ctx["unit"], "path": list(ctx["path"])})


def _cannot_continue(st: TacwState, rec: dict) -> tuple[str, str] | None:
    ctx = rec["ctx"]
    u = st.units[ctx["unit"]]
    if not u.alive:
        return "it was eliminated", "TACW §9.6.1"
    if u.morale_state == "broken":
        return "it is Broken", "TACW §11.4.3"
    if u.formation == "broken":
        return "it is F-Broken: no movement", "TACW §6.3.1"
    if list(u.hexes) != ctx["at"]:
        return "it was pushed out of its hex", "TACW §7.4.1"
    if rec["halt"]:
        return tuple(rec["halt"])
    return None


def drive(sc, st: TacwState, rec: dict, stream: DiceStream) -> list[Event]:
    """Walk the rest of a move: interrupts first, then the next step, until the path is done,
    the unit must stop, or a player must answer (the move then waits in st.options)."""
    from engine.tacw.movement import reactions as reactions
    events: list[Event] = []
    ctx = rec["ctx"]
    while True:
        if st.pending:
            st.options[SUSPENDED] = rec
            u = st.units[ctx["unit"]]
            _set_last_path(st, ctx)
            events.append(Event("move_halt", ctx["side"], "TACW §7.4.1",
                                f"{u.called} halts in {u.hexes[0] if u.hexes else '-'}: "
                                f"{st.pending['side'].title()} to answer ({st.pending['kind']})",
                                outcome={"unit": u.id, "pending": st.pending["kind"]}))
            return events
        if rec["tasks"]:
            task = rec["tasks"].pop(0)
            events += _run_task(sc, st, rec, task, stream, reactions)
            continue
        why = _cannot_continue(st, rec)
        if why or not rec["steps"]:
            if why:
                ctx["ended"] = list(why)
            break
        if ctx["mode"] == "action":
            # a hit taken mid-move (artillery reaction fire, §6.3.1) halves what is left; the
            # terrain's own hits wait for the end of the move (§7.3.1)
            ma = allowance(group_of(st, ctx))
            if ma < ctx["ma"]:
                ctx["ma"] = ma
                if ctx["spent"] >= ma:
                    ctx["ended"] = [f"its movement allowance fell to {ma} MP ({st.units[ctx['unit']].formation})"
                                    f" and {ctx['spent']} are spent", "TACW §6.3.1"]
                    break
        step = rec["steps"].pop(0)
        try:
            info, evs = apply_step(sc, st, ctx, step, live=True, stream=stream)
        except Illegal as exc:
            ctx["ended"] = [f"the rest of the path is no longer possible: {exc.reason}",
                            exc.section or "TACW §7.1"]
            break
        events += evs
        events += newbury.after_step(sc, st, ctx)    # Second Newbury rule 5: the boat bridge seen
        _record_activation(st, ctx)
        _set_last_path(st, ctx)
        if info.get("interrupted") and not st.pending:
            rec["halt"] = ["the pistol fire's reaction stopped it", "TACW §9.7"]
        rec["tasks"] = _tasks_after(st, ctx, info)
    return events + finish(sc, st, rec, stream)


def _tasks_after(st: TacwState, ctx: dict, info: dict) -> list[dict]:
    u = st.units[ctx["unit"]]
    tasks: list[dict] = []
    if info["trigger"] == "enter":
        tasks.append({"do": "fire", "trigger": "enter", "hexes": list(info["entered"])})
    elif info["trigger"] == "face":
        tasks.append({"do": "fire", "trigger": "face", "hexes": list(u.hexes)})
    if info["entered"] and ctx["mode"] == "action":
        tasks += [{"do": "reactions", "entered": list(info["entered"])}, {"do": "intercept"}]
    return tasks


def _run_task(sc, st: TacwState, rec: dict, task: dict, stream: DiceStream, reactions) -> list[Event]:
    ctx = rec["ctx"]
    u = st.units[ctx["unit"]]
    do = task["do"]
    if do == "fire":
        fn = _optional("fire.small_arms", "reaction_fire")
        if fn is None or not u.alive:
            return []
        evs, interrupted = _split(fn(sc, st, u, task["trigger"], stream, hexes=task["hexes"]))
        if interrupted and not st.pending:
            rec["halt"] = ["reaction fire stopped it", "TACW §9.7"]
        return evs
    return reactions.run_task(sc, st, rec, task, stream)


def finish(sc, st: TacwState, rec: dict, stream: DiceStream) -> list[Event]:
    ctx = rec["ctx"]
    st.options.pop(SUSPENDED, None)
    u = st.units[ctx["unit"]]
    events = end_movement_hits(sc, st, ctx, stream)
    events += _apply_top(st, ctx, rec.get("top"))
    _record_activation(st, ctx)
    _set_last_path(st, ctx)
    if ctx["mode"] == "action" and rec["steps"] and not ctx.get("ended"):
        ctx["ended"] = ["the rest of its path was not walked", "TACW §7.1"]
    events.append(move_event(sc, st, ctx, u, rec["steps"]))
    newbury.scrub_secret(st, events[-1])             # a secret boat bridge left unwalked
    return events


def move_event(sc, st: TacwState, ctx: dict, u: Unit, left: list | None = None) -> Event:
    names = [u.called] + ([st.units[ctx["partner"]].called] if ctx["partner"] else [])
    steps = ", ".join(f"{s['step']} ({s['mp']} MP{'; ' + '; '.join(s['terrain']) if s['terrain'] else ''})"
                      for s in ctx["log"]) or "no step"
    text = f"{' and '.join(names)}: {steps}; " + (f"{ctx['spent']} of {ctx['ma']} MP" if ctx["ma"] < FREE
                                                   else "a free reaction")
    ended = ctx.get("ended")
    if ended:
        where = u.hexes[0] if u.hexes else ctx["path"][-1]
        text += f"; stops in {where}: {ended[0]}"
    section = {"action": "TACW §7.1", "reaction": "TACW §7.4", "intercept": "TACW §7.5.3",
               "slide": "TACW §7.6"}.get(ctx["mode"], "TACW §7.1")
    return Event("move", ctx["side"], section, text,
                 inputs={"unit": ctx["unit"], "partner": ctx["partner"], "mode": ctx["mode"]},
                 outcome={"path": list(ctx["path"]), "hexes": list(u.hexes),
                          "facing": F.vertex_name(sc.grid, u.facing) if u.alive else None,
                          "mp_spent": ctx["spent"], "ma": ctx["ma"], "moved": ctx["moved"],
                          "straight": ctx["straight"], "steps": ctx["log"],
                          "stopped": ended[0] if ended else None,
                          "stop_section": ended[1] if ended else None,
                          "unwalked": [step_label(sc, s) for s in (left or [])]})


def resume_move(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """Continue the move halted by an interrupt, once no decision is pending. Every module
    whose answer verb resolves a decision raised during a move (reaction fire...) calls this
    after resolving it; it does nothing when no move is waiting."""
    if st.pending or SUSPENDED not in st.options:
        return []
    sc = newbury.scenario_view(sc, st)     # Second Newbury: its owner's secret boat bridge
    rec = st.options.pop(SUSPENDED)
    return drive(sc, st, rec, stream)


def suspended_move(st: TacwState) -> dict | None:
    return st.options.get(SUSPENDED)


# == verbs =======================================================================================

def do_move(sc, st, side, cmd, stream):
    if not cmd.args:
        raise CannotParse("usage: " + USAGE["move"])
    steps, opts = parse_steps(sc, cmd.args[1:])
    if not steps and not opts.get("top"):
        raise CannotParse(f"give the path: move <unit> <step> ...; {STEP_HELP}")
    unit = begin_action(sc, st, side, cmd.args[0], "move")
    sc = newbury.scenario_view(sc, st, side, "move")   # Second Newbury: its owner's boat bridge
    return start_move(sc, st, unit, steps, opts, stream)


def do_face(sc, st, side, cmd, stream):
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + USAGE["face"])
    vertex = _vertex(sc, cmd.args[1])
    target = find_unit(st, cmd.args[0], side)
    if target.kind == "artillery":
        return artillery_face(sc, st, side, cmd.args[0], vertex, stream)
    unit = begin_action(sc, st, side, cmd.args[0], "move")
    step = ["about", None] if unit.is_double and F.turn_cost_vertices(unit.facing, vertex) == 3 \
        else ["face", vertex]
    return start_move(sc, st, unit, [step], {"top": None, "incorporate": False, "alone": False}, stream)


def do_hedgehog(sc, st, side, cmd, stream):
    if len(cmd.args) != 1:
        raise CannotParse("usage: " + USAGE["hedgehog"])
    unit = begin_action(sc, st, side, cmd.args[0], "move")
    return start_move(sc, st, unit, [["hedgehog", None]],
                      {"top": None, "incorporate": False, "alone": True}, stream)


def artillery_face(sc, st: TacwState, side: str, word: str, vertex: int, stream) -> list[Event]:
    """§6.2.3: artillery may change facing instead of firing (HERALD: any vertex, no MP; it is
    the gun's fire of the turn, §9.9.1, so it is marked as fired). Turning next to the enemy
    causes Reaction Fire (§6.2.4)."""
    gun = begin_action(sc, st, side, word, "fire")
    if gun.gun_state:
        raise Illegal(f"{gun.called}'s guns are {gun.gun_state}", "TACW §9.9.9")
    if gun.morale_state == "broken":
        raise Illegal(f"{gun.called} is Broken: it may not fire or change facing", "TACW §9.9.8")
    if gun.fired:
        raise Illegal(f"{gun.called} has fired this turn: it turns only instead of firing", "TACW §6.2.3")
    if gun.facing == vertex:
        raise Illegal(f"{gun.called} already faces {F.vertex_name(sc.grid, vertex)}", "TACW §6.2.3")
    gun.facing = vertex
    gun.fired = True
    events = [Event("face", side, "TACW §6.2.3", f"{gun.called} turns to face "
                    f"{F.vertex_name(sc.grid, vertex)} instead of firing",
                    outcome={"unit": gun.id, "facing": F.vertex_name(sc.grid, vertex)})]
    fn = _optional("fire.small_arms", "reaction_fire")
    if fn is not None:
        events += _split(fn(sc, st, gun, "face", stream, hexes=list(gun.hexes)))[0]
    return events


def do_resume(sc, st, side, cmd, stream):
    rec = suspended_move(st)
    if rec is None:
        raise Illegal("no move is waiting to resume")
    if st.pending:
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if rec["ctx"]["side"] != side:
        raise Illegal("the halted move is not yours")
    return resume_move(sc, st, stream)


# == the leader verb (§5.1.2, §5.2.2; the move itself: leaders.move_leader) ======================

def do_leader(sc, st, side, cmd, stream):
    if len(cmd.args) < 2 or cmd.args[1] != "move":
        if _previous.get("leader"):
            return _previous["leader"](sc, st, side, cmd, stream)
        raise CannotParse("usage: " + USAGE["leader"])
    if len(cmd.args) < 3:
        raise CannotParse("usage: " + USAGE["leader"])
    return move_leader(sc, st, side, cmd.args[0], [_hex(sc, h) for h in cmd.args[2:]])


# == §7.6 cavalry sliding aside from artillery fire (for the fire rules) =========================

def artillery_avoidance_hexes(sc, st: TacwState, cav: Unit) -> list[str]:
    """§7.6 with errata [7.6]: the flank hexes a cavalry unit hit by an artillery formation hit
    may slide into, keeping its facing: stacking respected, no impassable terrain, and its
    wing's order restrictions relative to enemy units (Make Ready: not adjacent nor closer;
    Receive Charge: not adjacent; Rally: not closer)."""
    if cav.kind != "cavalry" or not cav.alive:
        return []
    order = st.wings[cav.wing].order
    lim = tables.order_limits(order)
    before = enemy_distances(sc, st, cav)
    group = [cav] + ([p] if (p := partner_of(st, cav)) else [])
    out = []
    for h in F.arcs(sc.grid, cav.hexes, cav.facing)["flank"]:
        if sc.hex_impassable(h):
            continue
        problem, stop = stack_problem(st, group, h)
        if problem or stop:
            continue
        if not lim.may_move_adjacent_to_enemy and adjacent_to_enemy(sc, st, [h], cav.side):
            continue
        closer = any(distance_units(sc, [h], e.hexes) < before[e.id] for e in enemies(st, cav.side))
        if closer and (order in ("make_ready", "rally")):
            continue
        out.append(h)
    return out


def avoid_artillery(sc, st: TacwState, cav: Unit, hex_id: str, stream: DiceStream) -> list[Event]:
    """§7.6: slide into flank hex `hex_id` keeping facing, instead of taking the artillery's
    formation hit. HERALD: the terrain entered gives its own formation hits (§7.3)."""
    if hex_id not in artillery_avoidance_hexes(sc, st, cav):
        raise Illegal(f"{cav.called} may not slide into {hex_id}", "TACW §7.6")
    partner = partner_of(st, cav)
    ctx = new_ctx(sc, st, cav, partner, "slide", ma=FREE)
    start = cav.hexes[0]
    events: list[Event] = []
    _enter(sc, st, ctx, [hex_id], [(start, hex_id)], hex_id, "forward", events)
    events += end_movement_hits(sc, st, ctx, stream)
    st.last_action.setdefault("items", []).append({"kind": "move", "piece": cav.id, "path": [start, hex_id]})
    return events + [Event("avoid_artillery", cav.side, "TACW §7.6",
                           f"{cav.called} slides from {start} into {hex_id} to avoid the artillery's "
                           "formation hit", outcome={"unit": cav.id, "hex": hex_id})]


# == registration ================================================================================

USAGE = {
    "move": "move <unit> <step> ...: move one unit along a path (TACW §7); " + STEP_HELP,
    "face": "face <unit> <vertex>: turn a unit (TACW §6.2; artillery instead of firing, §6.2.3)",
    "hedgehog": "hedgehog <unit>: heavy infantry forms a hedgehog for 4 MP (TACW §6.3.2)",
    "leader": "leader <id> move <hex> <hex> ...: move an Army or Wing Commander, 8 MP (TACW §5.1.2, §5.2.2)",
    "resume": "resume: continue your move halted by an interrupt once it is answered (TACW §7.4.1)",
}

_previous: dict[str, Any] = {}


def _register() -> None:
    from engine.tacw import rules
    if "leader" in rules.HANDLERS and rules.HANDLERS["leader"] is not do_leader:
        _previous["leader"] = rules.HANDLERS["leader"]
    register("move", do_move, USAGE["move"])
    register("face", do_face, USAGE["face"])
    register("hedgehog", do_hedgehog, USAGE["hedgehog"])
    register("leader", do_leader, USAGE["leader"])
    register("resume", do_resume, USAGE["resume"])


_register()
from engine.tacw.movement import reactions as reactions  # noqa: E402,F401  (registers react_move, intercept, the policies)
from engine.tacw.battles import second_newbury as newbury  # noqa: E402  (Second Newbury's hooks; registers boatbridge)
