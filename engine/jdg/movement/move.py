"""Movement [4]: the `move` verb, and the path walker the charge and other moves reuse.

    move <unit> <step> <step> ... [forced]
      <hex>          enter that adjacent hex, paying its TET cost [4.3] (costs.py)
      face <vertex>  turn to a vertex E SE SW W NW NE (flat map; pointy: NE SE S SW NW N) or
                     0-5: free, during or at the end of the move [4.3], [6.1]
      charge <hex>   ends a cavalry move with a charge on that hex [9.1]: the move is the combat
                     module's (`engine.jdg.combat.charge.charge_move`)
      forced         forced march: double MP [4.1]
    A reinforcement ready to enter (status "entering") names its entry hex first [5.2].

The rules, in the order the walker applies them:
- Who [1.D], [2.4], [4.4]: a unit of the active formation (or of the arm an IAC activates), not of
  a formation whose commander's initiative failed (sequence/command.py `may_act`), in the
  movement step (`rules.enter_step`). One move per unit per activation; units move one at a time,
  each move whole before the next (L243): a move order is the whole path. Routed units move only
  in phase E [10.2]; immobile units (Marengo: the Ott bridgehead artillery, the reserve artillery
  in 0110, section D 0.3 and errata 4.4) never.
- MP [4.1], [4.4], [10.1]: the MP of the face up (disordered: the back, HERALD D2); half, rounded
  up, Without Orders (tables.reduced_mp), unless the formation won its commander's initiative for
  this activation or a reinforcement's status gives it orders [5.2]; artillery that fired this
  activation ("Tir/Mouvement réduit") moves at half MP With Orders and not at all Without Orders
  (L247, HERALD D22). Forced march doubles them: With Orders only, never disordered [10.1], never
  at night but for reinforcements [12], never for artillery that fired (D22), never from or into a
  hex within 5 hexes of an enemy unit (L217, D21), and within the stacking limits at every hex
  (L217, [5.1]). MP spent leaving square [4.2] count against the move.
- Each hex [4.3], [4.4], [5.1], [6.2]: adjacent to the last; its cost paid from the MP left (a unit
  without enough MP may not enter, L245); never a hex with an enemy unit [5.1] L281 (nor with the
  enemy commander-in-chief, HERALD D19); never a hex with a friendly square, and a square only
  into an empty hex (L253); +1 MP to pass through friends (L251; not in Marengo's 0110, errata
  4.4, L960). Enemy ZoC: entering one ends the move, though the unit may still turn (L373); a
  disordered unit pays +1 to enter (L375, [10.1] L698), any unit +2 at night (L794; at night a
  disordered unit may not move next to an enemy at all, L796, D63); artillery enters an enemy ZoC
  only into a hex a friendly unit holds (L375, D26). A unit that starts in an enemy ZoC either
  stays, turning at most 60 degrees (L381), or leaves paying +1 MP, its first hex neither a
  frontal hex of an enemy unit nor in the ZoC of an enemy unit whose ZoC it leaves (L385-L389,
  D25). A square moves at most one hex of open terrain for at most 2 MP (L227, D24).
- The end [5.1], [5.2], [6.1]: the stacking limits (stacking.py); one facing per hex but
  artillery beside infantry; not on or next to an enemy reinforcement entry hex while
  reinforcements are to come by it (L335). The unit goes under the stack, artillery on top (L283).
- After: the unit has acted (no rally this activation [11]); reinforcements within 5 hexes of an
  enemy lose their Renforts marker [5.2] (reinforcements.py).

A move is validated whole before anything changes (`plan_move`), and the dispatcher works on a
copy: a refused move leaves the game untouched. HERALD D87: a move that only turns the unit in
its hex spends no MP and is not movement for rally [11], but it is the unit's one move.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from engine.core import facing as core_facing
from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.jdg import geometry, rules, tables
from engine.jdg.combat.results import forbidden, is_night, movement_points, name_of
from engine.jdg.movement import reinforcements as rf
from engine.jdg.movement.costs import adjacent_to_enemy, fmt_mp, step_cost
from engine.jdg.movement.stacking import facing_problem, place_in_stack, stack_problem
from engine.jdg.sequence import command as chiefs
from engine.jdg.state import JdgState, Unit

N = tables.RULE_NUMBERS
USAGE = ("move <unit> <hex> <hex> ... [face <vertex>] [charge <hex>] [forced]: move hex by hex, "
         "turning freely (JdG [4])")
# Marengo errata 4.4 (L960): no +1 MP to pass through hex 0110, the immobile reserve artillery's.
NO_PASS_THROUGH_COST = {"marengo": ("0110",)}


# == reading the steps =============================================================================

def vertex_of(sc, word: str) -> int:
    """A vertex by name (E SE SW W NW NE on a flat map) or index 0-5 [6.1]."""
    grid = geometry.grid(sc)
    if word.isdigit() and 0 <= int(word) <= 5:
        return int(word)
    try:
        return core_facing.vertex_index(grid, word)
    except ValueError:
        names = " ".join(core_facing.VERTEX_NAMES[grid.orientation])
        raise CannotParse(f"'{word}' is not a vertex: {names} (or 0-5)") from None


def vertex_name(sc, v: int) -> str:
    return core_facing.vertex_name(geometry.grid(sc), v)


def parse_steps(sc, words: list[str]) -> list[tuple[str, object]]:
    """[("hex", "0512"), ("face", 3), ...] from the words of a path."""
    grid = geometry.grid(sc)
    steps: list[tuple[str, object]] = []
    i = 0
    while i < len(words):
        w = words[i].upper()
        if w == "FACE":
            if i + 1 >= len(words):
                raise CannotParse("'face' needs a vertex: face E|SE|SW|W|NW|NE")
            steps.append(("face", vertex_of(sc, words[i + 1])))
            i += 2
            continue
        if w not in grid:
            raise CannotParse(f"'{words[i]}' is neither a hex of the map nor 'face <vertex>'")
        steps.append(("hex", w))
        i += 1
    if not steps:
        raise CannotParse("usage: " + USAGE)
    return steps


# == who moves, with how many MP ==================================================================

def need_mover(sc, st: JdgState, side: str, token: str) -> Unit:
    """The unit named (by id, or the top unit of a hex) if it belongs to the activation and may
    move [1.D], [2.4]; a reinforcement ready to enter by its id [5.2]."""
    u = st.units.get(token)
    if u is None:
        u = rules.unit_of(st, token, side)
    if u.side != side:
        raise Illegal(f"{u.id} is not yours", "JdG [0.3]")
    if u.status == "waiting":
        raise Illegal(f"{name_of(sc, u)} is a reinforcement not yet called: it enters when its "
                      "formation's marker is drawn on its turn", "JdG [5.2]")
    if not (u.alive or rf.entering(u)):
        raise Illegal(f"{name_of(sc, u)} is not on the map ({u.status})", "JdG [0.3]")
    act = st.activation
    if not chiefs.in_activation(st, u):
        what = f"the {act.arm} of " if act.arm else ""
        if act.reserve and u.formation in act.formations:
            raise Illegal(f"{name_of(sc, u)} was next to an enemy unit when its formation was activated in "
                          "reserve: it is not activated (phase D bis)", "JdG opt. [1] L834")
        raise Illegal(f"{name_of(sc, u)} is not of the active formation ({what}{', '.join(act.formations)})",
                      "JdG [1] D, [2.2]")
    if not chiefs.may_act(st, u):
        raise Illegal(f"{u.formation}'s commander failed his initiative: its units may only rally",
                      "JdG [2.4]")
    return u


def with_orders(sc, st: JdgState, unit: Unit) -> bool:
    """[2.4], [5.2]: the unit moves With Orders now: a reinforcement's own status, else its
    formation's (phase-A orders or its commander's initiative for this activation); its tactical
    group's (optional 2.3); Without Orders in a reserve activation (optional 1)."""
    return chiefs.unit_with_orders(st, unit, rf.arrival_orders(st, unit))


@dataclass
class Allowance:
    mp: Fraction
    notes: list[str] = field(default_factory=list)
    with_orders: bool = True


def allowance(sc, st: JdgState, unit: Unit, forced: bool = False) -> Allowance:
    """The MP the unit may spend in this activation [4.1], [4.4], [10.1], or Illegal."""
    name = name_of(sc, unit)
    setup = sc.unit(unit.id)
    if setup.immobile:
        raise Illegal(f"{name} may not move: it is immobile (Marengo: the bridgehead artillery, "
                      "the reserve artillery in 0110)", "JdG [D.0.3], [D.4.4]")
    reason, section = forbidden(unit, "move")
    if reason:
        raise Illegal(reason, section)
    base = Fraction(movement_points(sc, unit))
    orders = with_orders(sc, st, unit)
    out = Allowance(base, [f"{fmt_mp(base)} MP" + (" (disordered side)" if unit.disordered else "")], orders)
    if unit.fired:
        if not orders:
            raise Illegal(f"{name} fired Without Orders: it may not move this activation",
                          "JdG [2.4], [4.4]")
        out.mp = Fraction(tables.reduced_mp(base))
        out.notes.append(f"fired: Tir/Mouvement réduit, half = {fmt_mp(out.mp)} (JdG [4.4])")
    elif not orders:
        out.mp = Fraction(tables.reduced_mp(base))
        out.notes.append(f"Without Orders: half = {fmt_mp(out.mp)} (JdG [4.1])")
    if forced:
        reinforcement = rf.entering(unit) or unit.arrival == "renforts"
        if not orders:
            raise Illegal(f"{name} is Without Orders: only a unit With Orders may force-march", "JdG [4.1]")
        reason, section = forbidden(unit, "force_march")
        if reason:
            raise Illegal(reason, section)
        if unit.fired:
            raise Illegal(f"{name} fired this activation: its movement is reduced, no forced march "
                          "(HERALD D22)", "JdG [4.4]")
        if unit.arrival == "with_orders" and unit.arrival_turn == st.turn:
            raise Illegal(f"{name} entered near the enemy: With Orders this turn but not at forced "
                          "march", "JdG [5.2]")
        if is_night(sc, st) and not reinforcement:
            raise Illegal("no forced march at night, except for reinforcements", "JdG [12]")
        out.mp *= N["forced_march_factor"][0]
        out.notes.append(f"forced march: double = {fmt_mp(out.mp)} (JdG [4.1])")
    return out


# == the walk ===================================================================================

@dataclass
class Step:
    hex: str
    mp: Fraction
    how: str


@dataclass
class MovePlan:
    unit: str
    start: str | None
    path: list[str]
    steps: list[Step]
    facing: int
    spent: Fraction
    allowance: Allowance
    used_before: Fraction
    forced: bool
    stopped: str = ""                 # why the move had to end where it did (enemy ZoC)
    entry: tuple[str, int] | None = None   # (entry hex, stack of the column) for a reinforcement

    @property
    def left(self) -> Fraction:
        return self.allowance.mp - self.used_before - self.spent


def _enemy_commander_at(st: JdgState, hex_id: str, side: str) -> bool:
    return any(c.hex == hex_id and c.side != side and c.status == "active" for c in st.commanders.values())


def plan_move(sc, st: JdgState, unit: Unit, words: list[str], *, forced: bool = False,
              max_hexes: int | None = None, max_hex_cost=None,
              section: str = "JdG [4.3]") -> MovePlan:
    """Validate a whole path without changing anything [4], [5.1], [5.2], [6.2]; Illegal names the
    step that fails and the rule."""
    name = name_of(sc, unit)
    act = st.activation
    if unit.id in act.moved:
        raise Illegal(f"{name} has already moved in this activation: one move a unit, each whole "
                      "before the next (JdG [4.4])", "JdG [4.4]")
    steps = parse_steps(sc, words)
    allow = allowance(sc, st, unit, forced)
    used = Fraction(act.mp_used.get(unit.id, 0)).limit_denominator(2)
    if used and used >= allow.mp and any(k == "hex" for k, _ in steps):
        raise Illegal(f"{name} has no MP left this activation ({fmt_mp(used)} spent"
                      + (", it formed square" if unit.square else "") + ")", "JdG [4.2], [4.4]")
    side, arm = unit.side, unit.arm
    grid = geometry.grid(sc)
    night = is_night(sc, st)
    entering = rf.entering(unit)
    start = unit.hex
    start_zoc = {u.id for u in geometry.enemy_zoc(sc, st, start, side)} if start else set()
    hex_steps = [i for i, (k, _) in enumerate(steps) if k == "hex"]
    last_hex_index = hex_steps[-1] if hex_steps else -1
    square_limit = N["square_move_max_hexes"][0]
    square_mp = N["square_move_max_mp"][0]
    forced_distance = N["forced_march_enemy_distance"][0]
    no_pass_cost = NO_PASS_THROUGH_COST.get(sc.id, ())

    if forced and start is not None:
        near = rf.enemy_within(sc, st, start, side, forced_distance)
        if near:
            raise Illegal(f"forced march: {name} starts within {forced_distance} hexes of "
                          f"{name_of(sc, near[0])}: it must use normal movement", "JdG [4.1]")
    if entering and not hex_steps:
        raise Illegal(f"{name} enters the map: its first step is its entry hex "
                      f"({' or '.join(rf.entry_hexes(sc, unit))})", "JdG [5.2]")

    plan = MovePlan(unit.id, start, [start] if start else [], [], unit.facing, Fraction(0), allow,
                    used, forced)
    cur = start
    for i, (kind, value) in enumerate(steps):
        if kind == "face":
            plan.facing = value
            continue
        b = value
        where = f"{b}: "
        if plan.stopped:
            raise Illegal(f"{where}{plan.stopped}", "JdG [6.2]")
        if max_hexes is not None and len(plan.steps) >= max_hexes:
            raise Illegal(f"{where}{name} may move at most {max_hexes} hex{'es' if max_hexes > 1 else ''}", section)
        if cur is None:
            entries = rf.entry_hexes(sc, unit)
            if b not in entries:
                raise Illegal(f"{where}{name} enters the map at {' or '.join(entries)}", "JdG [5.2]")
            if forced:
                reason = rf.may_force_march_on_entry(sc, st, unit, b)
                if reason:
                    raise Illegal(reason, "JdG [5.2]")
        elif not grid.adjacent(cur, b):
            near = sorted(grid.neighbors(cur))
            raise Illegal(f"{where}not adjacent to {cur} (its neighbours: {', '.join(near)}): a move is a "
                          "path of adjacent hexes", "JdG [4.4]")
        here = st.units_at(b)
        if any(u.side != side for u in here):
            raise Illegal(f"{where}an enemy unit holds it: no unit may enter an enemy-occupied hex", "JdG [5.1]")
        if _enemy_commander_at(st, b, side):
            raise Illegal(f"{where}the enemy commander-in-chief is there (HERALD D19)", "JdG [2.5], [5.1]")
        friends = [u for u in here if u.id != unit.id]
        if any(u.square for u in friends):
            raise Illegal(f"{where}a friendly square is there: no unit may pass through or enter it", "JdG [4.4]")
        if unit.square and friends:
            raise Illegal(f"{where}a square may not enter a hex of units not in square", "JdG [4.4]")
        if night and unit.condition == "disordered" and adjacent_to_enemy(sc, st, b, side):
            raise Illegal(f"{where}at night a disordered unit may not move into contact with the enemy",
                          "JdG [12]")
        cost = step_cost(sc, st, arm, cur, b, side)
        if cost.mp is None:
            raise Illegal(f"{where}{cost.how}", "JdG [4.3]")
        mp, how = cost.mp, [cost.how]
        if cur is None:
            stack_no = rf.column_stack(sc, st, unit, b)
            plan.entry = (b, stack_no)
            if stack_no > 1:
                mp *= stack_no
                how.append(f"x{stack_no}: stack {stack_no} of the column (JdG [5.2])")
        if max_hex_cost is not None and (cost.normal is None or cost.normal > max_hex_cost):
            raise Illegal(f"{where}hex and hexside cost {fmt_mp(cost.normal)} MP: more than "
                          f"{fmt_mp(max_hex_cost)}", section)
        # leaving an enemy ZoC [6.2] L383-L389 (HERALD D25)
        if cur is not None and cur == start and start_zoc and not plan.steps:
            mp += N["leave_zoc_mp"][0]
            how.append(f"+{N['leave_zoc_mp'][0]} leaving the enemy ZoC (JdG [6.2])")
            front = [u for u in geometry.enemy_zoc(sc, st, b, side) if b in geometry.frontal_hexes(sc, u)]
            if front:
                raise Illegal(f"{where}leaving an enemy ZoC, {name} may not go straight into a frontal "
                              f"hex of {name_of(sc, front[0])}", "JdG [6.2]")
            same = [u for u in geometry.enemy_zoc(sc, st, b, side) if u.id in start_zoc]
            if same:
                raise Illegal(f"{where}{name} may not move from one ZoC of {name_of(sc, same[0])} to "
                              "another of the same unit", "JdG [6.2]")
        # entering an enemy ZoC [6.2] L373-L375, [10.1], [12]
        zoc = geometry.enemy_zoc(sc, st, b, side)
        if zoc:
            if arm == "artillery" and not friends:
                raise Illegal(f"{where}in the ZoC of {name_of(sc, zoc[0])}: artillery enters an enemy "
                              "ZoC only where a friendly unit stands (HERALD D26)", "JdG [6.2]")
            if unit.condition == "disordered":
                mp += N["disordered_enter_zoc_mp"][0]
                how.append(f"+{N['disordered_enter_zoc_mp'][0]} disordered into an enemy ZoC (JdG [6.2], [10.1])")
            elif night:
                mp += N["night_enter_zoc_mp"][0]
                how.append(f"+{N['night_enter_zoc_mp'][0]} into an enemy ZoC at night (JdG [12])")
            plan.stopped = (f"{name} entered the ZoC of {name_of(sc, zoc[0])} at {b}: its move ends "
                            "there (it may still turn)")
        # passing through friends [4.4] L251
        if friends and i != last_hex_index and b not in no_pass_cost:
            mp += N["pass_through_friendly_mp"][0]
            how.append(f"+{N['pass_through_friendly_mp'][0]} passing through friendly units (JdG [4.4])")
        # squares [4.2] L227
        if unit.square:
            if len(plan.steps) >= square_limit:
                raise Illegal(f"{where}a square moves at most one hex", "JdG [4.2]")
            if not geometry.terrain(sc, b).open_terrain:
                raise Illegal(f"{where}a square moves only in open terrain", "JdG [4.2]")
            if plan.spent + mp > square_mp:
                raise Illegal(f"{where}a square may spend at most {square_mp} MP ({fmt_mp(mp)} here)", "JdG [4.2]")
        # forced march [4.1] L217
        if forced:
            near = rf.enemy_within(sc, st, b, side, forced_distance)
            if near:
                raise Illegal(f"{where}forced march: within {forced_distance} hexes of "
                              f"{name_of(sc, near[0])}; to come that near it must use normal movement",
                              "JdG [4.1]")
            problem = stack_problem(sc, friends + [unit])
            if problem:
                raise Illegal(f"{where}forced march keeps the stacking limits at every hex: {problem}", "JdG [4.1], [5.1]")
        left = plan.left
        if mp > left:
            # the allowance and what the path has cost so far, so the player sees why [4.1], [4.3]
            spent = ", ".join(f"{s.hex} {fmt_mp(s.mp)}" for s in plan.steps)
            budget = (f"{name} has {fmt_mp(plan.allowance.mp)} MP"
                      + (f" ({'; '.join(plan.allowance.notes[1:])})" if len(plan.allowance.notes) > 1 else "")
                      + (f", {fmt_mp(plan.used_before)} spent earlier" if plan.used_before else "")
                      + (f"; the path so far: {spent}" if spent else ""))
            raise Illegal(f"{b} costs {fmt_mp(mp)} MP, {fmt_mp(left)} left ({'; '.join(how)}); {budget}",
                          "JdG [4.3], [4.4]")
        plan.spent += mp
        plan.steps.append(Step(b, mp, "; ".join(how)))
        plan.path.append(b)
        cur = b

    # the end of the move
    final = cur
    if not plan.steps and start is not None and start_zoc:
        turn = (plan.facing - unit.facing) % 6
        if min(turn, 6 - turn) > N["zoc_stay_turn_vertices"][0]:
            raise Illegal(f"{name} stays in an enemy ZoC: it may turn at most 60 degrees (one vertex) "
                          f"from {vertex_name(sc, unit.facing)}", "JdG [6.2]")
    if plan.steps:
        moved = replace(unit, hex=final, facing=plan.facing, status="active")
        others = [u for u in st.units_at(final) if u.id != unit.id]
        problem = stack_problem(sc, others + [moved])
        if problem:
            raise Illegal(f"{final}: {problem}", "JdG [5.1]")
        problem = facing_problem(sc, others + [moved])
        if problem:
            raise Illegal(f"{final}: {problem}: add face <vertex> to the path", "JdG [6.1]")
        barred = rf.barred_hexes(sc, st, side)
        if final in barred:
            raise Illegal(f"{final}: on or next to the enemy reinforcement entry hex {barred[final]}, "
                          "while reinforcements are still to come by it", "JdG [5.2]")
    return plan


def perform(sc, st: JdgState, plan: MovePlan, section: str = "JdG [4.3]") -> list[Event]:
    """Carry out a validated move: the unit's hex, facing, place in the stack [5.1], what it has
    spent, and the reinforcements' status after it [5.2]."""
    unit = st.units[plan.unit]
    act = st.activation
    name = name_of(sc, unit)
    events: list[Event] = []
    old_facing = unit.facing
    if plan.entry is not None:
        events.append(rf.record_entry(sc, st, unit, *plan.entry))
    unit.facing = plan.facing
    if plan.steps:
        unit.hex = plan.path[-1]
        place_in_stack(st, unit)
        unit.acted = True
    act.moved.append(unit.id)
    act.mp_used[unit.id] = float(plan.used_before + plan.spent)
    allow = plan.allowance
    turned = f", facing {vertex_name(sc, unit.facing)}" if unit.facing != old_facing or not plan.steps else ""
    if plan.steps:
        route = "-".join(h for h in plan.path if h)
        where = f"enters at {route}" if plan.start is None else f"moves {route}"
        text = (f"{name} {where}{turned}: {fmt_mp(plan.spent)} of {fmt_mp(allow.mp - plan.used_before)} MP"
                + (f" ({'; '.join(allow.notes[1:])})" if len(allow.notes) > 1 else "")
                + (f"; stopped by the enemy ZoC" if plan.stopped else ""))
    else:
        text = f"{name} turns in {unit.hex}{turned}: no MP spent"
    events.insert(0, Event(
        "move", unit.side, section, text,
        inputs={"unit": unit.id, "from": plan.start, "forced": plan.forced},
        base=None, table="TET (tables.TERRAIN)",
        outcome={"unit": unit.id, "path": [h for h in plan.path if h],
                 "steps": [{"hex": s.hex, "mp": float(s.mp), "how": s.how} for s in plan.steps],
                 "facing": vertex_name(sc, unit.facing), "mp_spent": float(plan.spent),
                 "mp_allowance": float(allow.mp), "mp_left": float(plan.left),
                 "allowance": allow.notes, "with_orders": allow.with_orders,
                 "forced": plan.forced, "zoc_stop": bool(plan.stopped)}))
    events += rf.update_status(sc, st)
    return events


def walk(sc, st: JdgState, unit: Unit, steps, stream: DiceStream | None = None, *,
         max_hexes: int | None = None, max_hex_cost=None, section: str = "JdG [4.3]",
         forced: bool = False) -> list[Event]:
    """Validate and perform a path for `unit` ([4], [5.1], [5.2], [6.2]); the reusable walker
    (a charge's move, [9.1]: `max_hexes=2, max_hex_cost=2`). `steps`: the path's words (hexes,
    `face <vertex>`). Raises Illegal naming the step and the rule; nothing changes then. The
    caller has checked the activation and the step (`need_mover`, `rules.enter_step`)."""
    words = list(steps) if not isinstance(steps, str) else steps.split()
    plan = plan_move(sc, st, unit, words, forced=forced, max_hexes=max_hexes,
                     max_hex_cost=max_hex_cost, section=section)
    return perform(sc, st, plan, section)


# == the verb ===================================================================================

def do_move(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`move <unit> <steps...> [forced]` [4]; a path ending `charge <hex>` is a charge [9.1]."""
    rules.need_active(st, side)
    if not cmd.args:
        raise CannotParse("usage: " + USAGE)
    unit = need_mover(sc, st, side, cmd.args[0])
    words = list(cmd.args[1:])
    forced = False
    if "forced" in words:
        words.remove("forced")
        forced = True
        if "forced" in words:
            raise CannotParse("'forced' is given twice")
    rules.enter_step(st, "movement", sc=sc)
    if "charge" in words:
        k = words.index("charge")
        if k + 1 >= len(words):
            raise CannotParse("'charge' needs the hex charged: charge <hex>")
        target = words[k + 1].upper()
        if k + 2 != len(words):
            raise CannotParse("'charge <hex>' ends the move")
        if target not in geometry.grid(sc):
            raise CannotParse(f"'{words[k + 1]}' is not a hex of the map")
        if forced:
            raise Illegal("a charge is not a forced march", "JdG [4.1], [9.1]")
        from engine.jdg.combat.charge import charge_move
        return charge_move(sc, st, side, unit, words[:k], target, stream)
    return walk(sc, st, unit, words, stream, forced=forced)


rules.register("move", do_move, USAGE)

# the other verbs of movement register themselves when imported
from engine.jdg.movement import commander as _commander  # noqa: E402,F401
from engine.jdg.movement import square as _square  # noqa: E402,F401
