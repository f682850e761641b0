"""Movement (TACW §7), facing (§6.2), formations on the move (§6.3, §7.3), stacking (§8), the
order and command restrictions on moving (§5.6 with errata [5.6.1] [5.6.3], §5.4.3) and leader
movement (§5.1.2, §5.2.2, §5.3.1). Reaction movement (§7.4) and cavalry interception (§7.5)
are in `reactions.py`; this module walks the move and calls them hex by hex.

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

HERALD readings where the text is silent (sections of the Italian rulebook):
- §7.1.1 a double unit advances obliquely, one half into the central front hex, the other into
  the outer front hex named; `wheel` names the pivot (the destination, the central front
  hex, is the same for both halves, so it cannot say which half moves).
- §7.1.2 / §7.3.2 per step a double pays the higher hex cost plus the hexside cost ONCE (both
  halves crossing in the same step pay once); a half crossing a hexside in a later step pays
  again. Each step gives at most one hit for the hexes entered and one for the hexsides.
- §6.2.2 step back costs 2 MP, or the terrain cost if that is higher; wheels are facing
  changes, not hexes moved (Receive Charge's 1 hex, momentum).
- §7.3.1 a path going on past the hex where the move's hits would reach F-Broken is refused.
- §5.6.1 (errata) "closer": to the closest enemy unit(s) not already engaged (adjacent to
  another friendly unit), measured between the nearest hexes; a Charge unit not adjacent may
  not make a move that only turns or forms a hedgehog. §5.6.4 Rally: the distance to the
  nearest enemy unit may not shrink. Make Ready / Receive Charge / out of command: no hex
  entered may be adjacent to an enemy unit (starting adjacent and only turning is allowed).
- §5.4.3 out of command: the path must end in command; otherwise the unit may not move.
- §8.2.2 the entering unit must already face as the unit it joins; a stack moves together by
  default (both use their action), `alone` splits it.
- §8.3 default: the unit that moves in is on top; artillery left alone is on top.
- §8.4 the MOVING cavalry is the one with losses (the text: "un'unità di cavalleria che ha
  subito perdite ... muove nell'esagono"); its casualty threshold status is kept.
- §11.4.3 / §12.4.1 a morale-Broken unit takes no move action (it retreats and routs only).
- A hit taken mid-move from Reaction Fire (artillery) lowers the allowance at once (§6.3.1);
  the terrain's hits still wait for the end (§7.3.1).
- After an interrupt the rest of the path is re-checked step by step (not the orders' end
  conditions, already checked on the intended path): the move ends where a step has become
  impossible, and says why.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any

from engine.core import facing as F
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from . import tables
from .actions import begin_action, find_unit
from .geometry import distance_units, enemies, in_command
from .morale import FORMATION_STEPS, formation_hit, remove_leader
from .rules import register
from .state import TacwState, Unit

HEDGEHOG_COST = 4                 # §6.3.2: "spendendo 4 MP"
FREE = 99                         # the "allowance" of a reaction that costs no MP (§7.4.2)
LEADER_KINDS = ("ac", "wc")
SUSPENDED = "_suspended_move"     # st.options key: the move halted by an interrupt (engine scratch)
MOVING_KINDS = ("cavalry", "heavy", "light", "wagon")
FACING_KIND = {"cavalry": "cavalry", "light": "light", "heavy": "heavy", "wagon": "wagon"}

STEP_HELP = ("steps: <hex> (a front hex), face <vertex>, about, wheel <pivot hex>, back <hex>, "
             "pistol <hex>, hedgehog; options: top <unit>, incorporate, alone")


# == optional modules written by the fire and close-combat rules ================================

def _optional(module: str, name: str):
    """A function of engine.tacw.<module>, or None while that module is not installed.
    `importlib.import_module` returns what sys.modules holds, so tests can stand in a fake."""
    try:
        mod = importlib.import_module(f"engine.tacw.{module}")
    except ImportError:
        return None
    return getattr(mod, name, None)


def _accepts(fn, kwarg: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return kwarg in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _split(result) -> tuple[list[Event], bool]:
    """Fire / close-combat calls return events, or (events, interrupted)."""
    if isinstance(result, tuple):
        return list(result[0] or []), bool(result[1])
    return list(result or []), False


# == parsing =====================================================================================

def parse_steps(sc, words: list[str] | tuple[str, ...], *, allow=None) -> tuple[list[list], dict]:
    """Read a path: a list of [kind, arg] steps and the options {top, incorporate, alone}."""
    steps: list[list] = []
    opts: dict[str, Any] = {"top": None, "incorporate": False, "alone": False}
    words = list(words)
    i = 0

    def arg(what: str) -> str:
        nonlocal i
        if i + 1 >= len(words):
            raise CannotParse(f"'{words[i]}' needs {what}; {STEP_HELP}")
        i += 1
        return words[i]

    while i < len(words):
        w = words[i].lower()
        if len(w) == 4 and w.isdigit():
            steps.append(["hex", _hex(sc, w)])
        elif w == "face":
            v = arg("a vertex (E SE SW W NW NE)")
            steps.append(["face", _vertex(sc, v)])
        elif w in ("about", "countermarch"):
            steps.append(["about", None])
        elif w in ("wheel", "back", "pistol"):
            steps.append([w, _hex(sc, arg("a hex"))])
        elif w == "hedgehog":
            steps.append(["hedgehog", None])
        elif w == "top":
            opts["top"] = arg("a unit").lower()
        elif w == "incorporate":
            opts["incorporate"] = True
        elif w == "alone":
            opts["alone"] = True
        else:
            raise CannotParse(f"'{w}' is not a step of a move; {STEP_HELP}")
        i += 1
    if allow is not None:
        for kind, _ in steps:
            if kind not in allow:
                raise CannotParse(f"'{kind}' is not allowed here (only: {', '.join(allow)})")
    return steps, opts


def _hex(sc, word: str) -> str:
    if word not in sc.grid:
        raise Illegal(f"{word} is not a hex of this map (CCRR, columns 01-{sc.cols:02d}, rows "
                      f"01-{sc.rows:02d})")
    return word


def _vertex(sc, word: str) -> int:
    try:
        return F.vertex_index(sc.grid, word)
    except ValueError:
        names = " ".join(F.VERTEX_NAMES[sc.grid.orientation])
        raise CannotParse(f"'{word}' is not a vertex ({names})") from None


def step_label(sc, step: list) -> str:
    kind, a = step
    if kind == "hex":
        return a
    if kind == "face":
        return f"face {F.vertex_name(sc.grid, a)}"
    if kind == "about":
        return "about"
    if kind in ("wheel", "back", "pistol"):
        return f"{kind} {a}"
    return kind


# == units, groups, allowances ===================================================================

def partner_of(st: TacwState, u: Unit) -> Unit | None:
    """§8.2: the light infantry stacked with a cavalry unit (or the cavalry with an LI)."""
    want = {"cavalry": "light", "light": "cavalry"}.get(u.kind)
    if want is None or u.is_double or not u.alive:
        return None
    for o in st.units_at(u.hexes[0]):
        if o.id != u.id and o.side == u.side and o.kind == want:
            return o
    return None


def group_of(st: TacwState, ctx: dict) -> list[Unit]:
    out = [st.units[ctx["unit"]]]
    if ctx.get("partner"):
        out.append(st.units[ctx["partner"]])
    return out


def allowance(group: list[Unit]) -> int:
    """§7.2.1 with formation effects (tables.movement_allowance); a cavalry + LI stack 6
    (§8.2.1). A routing unit has no formation state (§12.4.1)."""
    stacked = len(group) == 2
    out = []
    for u in group:
        if u.kind not in tables.MOVEMENT_ALLOWANCE:
            return 0
        form = "normal" if u.morale_state == "broken" else u.formation
        out.append(tables.movement_allowance(u.kind, form, u.special_formation, stacked))
    return min(out)


def _column(group: list[Unit]) -> str:
    return "cavalry_light_stack" if len(group) == 2 else group[0].kind


def adjacent_to_enemy(sc, st: TacwState, hexes: list[str], side: str) -> bool:
    for e in enemies(st, side):
        if any(sc.grid.distance(h, k) <= 1 for h in hexes for k in e.hexes):
            return True
    return False


def nearest_enemy_distance(sc, st: TacwState, hexes: list[str], side: str,
                           among: list[str] | None = None) -> int | None:
    ds = [distance_units(sc, hexes, e.hexes) for e in enemies(st, side)
          if among is None or e.id in among]
    return min(ds) if ds else None


# == stacking (§8) ===============================================================================

def stack_problem(st: TacwState, movers: list[Unit], hex_id: str, *, incorporate: bool = False
                  ) -> tuple[str | None, tuple[str, str] | None]:
    """May `movers` (one unit, or a cavalry + LI stack) enter `hex_id`? Returns (why not,
    None) or (None, stop) where stop = (reason, section) when the rules make it stop there."""
    side = movers[0].side
    ids = {m.id for m in movers}
    others = [o for o in st.units_at(hex_id) if o.id not in ids]
    foes = [o for o in others if o.side != side]
    if foes:
        return f"{hex_id} holds the enemy's {foes[0].name}", None
    rest = [o for o in others if o.kind != "artillery"]
    if not rest:
        return None, None                       # empty, or friendly artillery (§8.1.2, §8.3)
    m = movers[0]
    if len(rest) == 1 and len(movers) == 1 and not m.is_double and \
            not any(o.kind == "artillery" for o in others):
        o = rest[0]
        if {m.kind, o.kind} == {"cavalry", "light"}:
            return None, (f"it entered the hex of {o.name}: cavalry and light infantry stack only "
                          "by stopping there", "TACW §8.2.2")
        if m.kind == o.kind == "cavalry" and incorporate:
            return None, (f"it incorporates {o.name}", "TACW §8.4")
    names = ", ".join(o.name for o in rest)
    return (f"{hex_id} holds {names}: units may not move through or stack with friendly units "
            "(one combat unit a hex; light infantry may stack with cavalry; units pass only "
            "through artillery)"), None


def final_stack_problem(st: TacwState, hex_id: str) -> str | None:
    """§8.1.1 at the end of a move: at most one artillery and one other unit a hex, or one
    cavalry with one light infantry."""
    here = st.units_at(hex_id)
    arts = [u for u in here if u.kind == "artillery"]
    rest = [u for u in here if u.kind != "artillery"]
    if len(arts) > 1:
        return f"{hex_id} would hold two artillery units"
    if len(rest) <= 1:
        return None
    if len(rest) == 2 and not arts and sorted(u.kind for u in rest) == ["cavalry", "light"]:
        return None
    return f"{hex_id} would hold {', '.join(u.name for u in here)}: too many units (§8.1.1)"


# == one step ====================================================================================

def new_ctx(sc, st: TacwState, unit: Unit, partner: Unit | None, mode: str,
            ma: int | None = None) -> dict:
    """The walk of one move: JSON-ready so a halted move can wait in the state."""
    group = [unit] + ([partner] if partner else [])
    routing = unit.morale_state == "broken"
    return {
        "unit": unit.id, "partner": partner.id if partner else None, "side": unit.side,
        "mode": mode,                      # action / reaction / intercept / slide
        "ma": allowance(group) if ma is None else ma, "spent": 0, "hits": 0,
        "hits_apply": tables.movement_formation_hits_apply(unit.special_formation, routing)
        and unit.kind not in ("wagon", "artillery"),
        "moved": 0, "straight": 0, "pistol": False, "stop": None,
        "path": [unit.hexes[0]], "log": [], "at": list(unit.hexes),
        "start_hexes": list(unit.hexes), "start_facing": unit.facing,
        "no_adjacent": None, "max_hexes": None, "only_face": None, "need_command": False,
        "incorporate": False, "incorporated": None, "entered": [],
    }


def _terrain_cost(sc, column: str, moves: list[tuple[str, str]]) -> tuple[int, int, int, list[str]]:
    """§7.1.1-§7.1.2: the higher terrain cost of the hexes entered plus the hexside cost (once
    in a step even when both halves cross one; a double pays again when its other half crosses
    later, because that is another step). Returns (hex MP, hexside MP, hits, notes)."""
    hex_mp, side_mp, hex_hit, side_hit, notes = 0, 0, False, False, []
    for frm, to in moves:
        key = sc.terrain_at(to)
        mp = tables.terrain_mp(key, column)
        if mp is None:
            raise Illegal(f"{to} is {key}: no unit may enter it", "TACW §7.1.1, Terrain table")
        hex_mp = max(hex_mp, mp)
        hit = tables.terrain_formation_hit(key, column)
        hex_hit = hex_hit or hit
        if key != "clear":
            notes.append(f"{to} {key} {mp}{'*' if hit else ''}")
        cross = sc.crossing(frm, to)
        if cross:
            smp = tables.terrain_mp(cross, column, hexside=True) or 0
            shit = tables.terrain_formation_hit(cross, column, hexside=True)
            side_mp = max(side_mp, smp)
            side_hit = side_hit or shit
            notes.append(f"{cross.replace('_', ' ')} hexside +{smp}{'*' if shit else ''}")
    return hex_mp, side_mp, int(hex_hit) + int(side_hit), notes


def _need_mp(ctx: dict, cost: int, label: str, name: str) -> None:
    left = max(ctx["ma"] - ctx["spent"], 0)
    if cost > left:
        raise Illegal(f"{label} costs {cost} MP but {name} has {left} of its {ctx['ma']} MP left",
                      "TACW §7.2")


def _enter(sc, st: TacwState, ctx: dict, new_hexes: list[str], moves: list[tuple[str, str]],
           label: str, how: str, events: list[Event]) -> dict:
    """Common to advancing, stepping back and wheeling: checks, cost, and the state change."""
    group = group_of(st, ctx)
    u = group[0]
    entered = [h for h in new_hexes if h not in u.hexes]
    for h in entered:
        if h is None:
            raise Illegal(f"{label}: off the map", "TACW §7.1")
    if ctx["only_face"] and how != "wheel":
        raise Illegal(*ctx["only_face"])
    if ctx["max_hexes"] and how in ("forward", "back") and ctx["moved"] + 1 > ctx["max_hexes"][0]:
        raise Illegal(ctx["max_hexes"][1], ctx["max_hexes"][2])
    stop = None
    for h in entered:
        problem, why = stack_problem(st, group, h, incorporate=ctx["incorporate"])
        if problem:
            raise Illegal(f"{label}: {problem}", "TACW §8.1")
        stop = stop or why
    if ctx["no_adjacent"]:
        for h in entered:
            if adjacent_to_enemy(sc, st, [h], u.side):
                raise Illegal(f"{label}: {ctx['no_adjacent'][0]}", ctx["no_adjacent"][1])
    hex_mp, side_mp, hits, notes = _terrain_cost(sc, _column(group), moves)
    terrain = hex_mp + side_mp
    if how == "forward":
        cost = terrain
    elif how == "back":
        cost = max(tables.STEP_BACK_COST, terrain)     # HERALD: 2 MP, or the terrain if dearer
    else:
        cost = tables.wheel_cost(terrain)              # §6.2.1: 1 + the terrain entered
    _need_mp(ctx, cost, label, u.name)
    if stop and stop[1] == "TACW §8.4":
        if u.kind != "cavalry" or len(group) > 1:
            raise Illegal("only a cavalry unit on its own may incorporate", "TACW §8.4")
        if not u.casualties:
            raise Illegal(f"{u.name} has no casualties: only cavalry that has suffered losses "
                          "incorporates another", "TACW §8.4")
    # -- the state changes --
    for g in group:
        g.hexes = list(new_hexes) if g is u else [new_hexes[0]]
    ctx["spent"] += cost
    if ctx["hits_apply"]:
        ctx["hits"] += hits
    ctx["at"] = list(u.hexes)
    ctx["entered"] = entered
    ctx["path"].append(u.hexes[0])
    ctx["log"].append({"step": label, "mp": cost, "terrain": notes,
                       "hits": hits if ctx["hits_apply"] else 0})
    if how in ("forward", "back"):
        ctx["moved"] += 1
    ctx["straight"] = ctx["straight"] + 1 if how == "forward" else 0
    for h in entered:
        events += overrun_leaders(st, u, h)
    if stop:
        ctx["stop"] = list(stop)
        if stop[1] == "TACW §8.4":
            events += _incorporate(st, ctx, u, entered[0])
    if ctx["hits"] and ctx["hits_apply"] and \
            FORMATION_STEPS.index(u.formation) + ctx["hits"] >= 2 and not ctx["stop"]:
        ctx["stop"] = [f"its formation hits ({ctx['hits']}) would leave it F-Broken: it stops "
                       "at once", "TACW §7.3.1"]
    return {"trigger": "face" if how == "wheel" else "enter", "entered": entered}


def overrun_leaders(st: TacwState, unit: Unit, hex_id: str) -> list[Event]:
    """§5.3.1: a leader is removed at once when an enemy unit enters his hex (he is alone: a
    unit never enters a hex with enemy units)."""
    out: list[Event] = []
    for ld in st.leaders_at(hex_id):
        if ld.side != unit.side:
            out += remove_leader(st, ld, f"{unit.name} entered his hex", "TACW §5.3.1")
    return out


def _incorporate(st: TacwState, ctx: dict, u: Unit, hex_id: str) -> list[Event]:
    """§8.4: the stationary unit is removed (eliminated for VP); the mover recovers casualties
    equal to its remaining strength, never above the printed strength; the excess is lost."""
    other = next(o for o in st.units_at(hex_id) if o.id != u.id and o.kind == "cavalry")
    regained = min(u.casualties, other.remaining_strength)
    u.casualties -= regained
    other.status = "eliminated"
    other.hexes = []
    ctx["incorporated"] = other.id
    return [Event("incorporation", u.side, "TACW §8.4",
                  f"{u.name} incorporates {other.name}: {regained} casualt"
                  f"{'y' if regained == 1 else 'ies'} made good ({other.remaining_strength} SP "
                  f"absorbed, {other.remaining_strength - regained} lost); {other.name} counts as "
                  "eliminated", outcome={"unit": u.id, "absorbed": other.id, "regained": regained})]


def apply_step(sc, st: TacwState, ctx: dict, step: list, *, live: bool = False,
               stream: DiceStream | None = None) -> tuple[dict, list[Event]]:
    """Check and perform one step; raises Illegal naming the rule. `live`: the real walk (the
    pistol is fired); otherwise a dry run on a copy. Returns (info for the interrupts, events)."""
    group = group_of(st, ctx)
    u = group[0]
    kind, a = step
    label = step_label(sc, step)
    events: list[Event] = []
    if ctx["stop"]:
        raise Illegal(f"{u.name} must stop in {u.hexes[0]} ({ctx['stop'][0]}): '{label}' and what "
                      "follows cannot be done", ctx["stop"][1])
    grid = sc.grid
    f = u.facing
    if kind == "hex":
        new = None
        if u.is_double and a == F.central_front_hex(grid, u.hexes, f):
            outer = _outer(grid, u, "front")
            raise Illegal(f"{a} is {u.name}'s central front hex: a double unit advances by naming "
                          f"one of its outer front hexes ({', '.join(outer)})", "TACW §7.1.1")
        for d in ((f - 1) % 6, f):
            cand = [grid.neighbor(h, d) for h in u.hexes]
            if a in cand:
                new = cand
                break
        if new is None:
            fronts = _outer(grid, u, "front") if u.is_double else F.arcs(grid, u.hexes, f)["front"]
            raise Illegal(f"{a} is not a front hex of {u.name} (facing {F.vertex_name(grid, f)}: "
                          f"{', '.join(fronts)}); turn first", "TACW §7.1.1")
        info = _enter(sc, st, ctx, new, list(zip(u.hexes, new)), label, "forward", events)
        return info, events
    if kind == "back":
        if len(group) > 1 or not tables.may_step_back(u.kind):
            raise Illegal(f"only infantry may step back ({u.name} is {u.kind})", "TACW §6.2.2")
        if u.is_double and a in _central(grid, u, "rear"):
            raise Illegal(f"{a} is {u.name}'s central rear hex: name an outer rear hex "
                          f"({', '.join(_outer(grid, u, 'rear'))})", "TACW §6.2.2")
        new = None
        for d in ((f + 2) % 6, (f + 3) % 6):
            cand = [grid.neighbor(h, d) for h in u.hexes]
            if a in cand:
                new = cand
                break
        if new is None:
            rears = _outer(grid, u, "rear") if u.is_double else F.arcs(grid, u.hexes, f)["rear"]
            raise Illegal(f"{a} is not a rear hex of {u.name} ({', '.join(rears)})", "TACW §6.2.2")
        info = _enter(sc, st, ctx, new, list(zip(u.hexes, new)), label, "back", events)
        return info, events
    if kind == "wheel":
        if not u.is_double:
            raise Illegal("only double units wheel; a one-hex unit turns with 'face <vertex>'",
                          "TACW §6.2.1")
        central = F.central_front_hex(grid, u.hexes, f)
        if a not in u.hexes:
            raise Illegal(f"wheel names the PIVOT, one of {u.name}'s hexes ({' or '.join(u.hexes)}); "
                          f"the other half swings into {central}", "TACW §6.2.1")
        if central is None:
            raise Illegal(f"{u.name} cannot wheel: no central front hex on the map", "TACW §6.2.1")
        moving = next(h for h in u.hexes if h != a)
        new = [central if h == moving else h for h in u.hexes]
        info = _enter(sc, st, ctx, new, [(moving, central)], label, "wheel", events)
        vs = F.double_facings(grid, new[0], new[1])
        nf = next(v for v in vs if F.turn_cost_vertices(f, v) == 1)
        for g in group:
            g.facing = nf
        return info, events
    if kind in ("face", "about"):
        if kind == "about":
            target = (f + 3) % 6
        else:
            target = a
        n = F.turn_cost_vertices(f, target)
        if n == 0:
            raise Illegal(f"{u.name} already faces {F.vertex_name(grid, f)}", "TACW §6.2")
        if u.is_double and n != 3:
            raise Illegal(f"a double unit changes facing by wheeling (wheel <pivot hex>) or "
                          "countermarching (about)", "TACW §6.2.1")
        cost = tables.COUNTERMARCH_COST if (kind == "about" or u.is_double) else \
            tables.facing_change_cost("cavalry" if len(group) > 1 else FACING_KIND[u.kind], n)
        _need_mp(ctx, cost, label, u.name)
        for g in group:
            g.facing = target
        ctx["spent"] += cost
        ctx["straight"] = 0
        ctx["log"].append({"step": label, "mp": cost, "terrain": [], "hits": 0})
        return {"trigger": "face", "entered": []}, events
    if kind == "hedgehog":
        if u.kind != "heavy" or len(group) > 1:
            raise Illegal("only heavy infantry forms a hedgehog", "TACW §6.3.2")
        if u.no_hedgehog:
            raise Illegal(f"{u.name} may not form a hedgehog (scenario rule)", "TACW §6.3.2")
        if u.special_formation == "hedgehog":
            raise Illegal(f"{u.name} is already in hedgehog", "TACW §6.3.2")
        if ctx["only_face"]:
            raise Illegal(*ctx["only_face"])
        _need_mp(ctx, HEDGEHOG_COST, label, u.name)
        u.special_formation = "hedgehog"
        ctx["spent"] += HEDGEHOG_COST
        ctx["straight"] = 0
        ctx["stop"] = ["it formed a hedgehog, which cannot move", "TACW §6.3.2"]
        ctx["log"].append({"step": label, "mp": HEDGEHOG_COST, "terrain": [], "hits": 0})
        events.append(Event("hedgehog", u.side, "TACW §6.3.2",
                            f"{u.name} forms a hedgehog (4 MP)", outcome={"unit": u.id}))
        return {"trigger": None, "entered": []}, events
    if kind == "pistol":
        cav = next((g for g in group if g.kind == "cavalry"), None)
        if cav is None:
            raise Illegal("only cavalry fires while moving (pistol)", "TACW §9.2")
        if ctx["pistol"]:
            raise Illegal(f"{cav.name} fires one pistol per move action", "TACW §9.2")
        if cav.pistols <= 0:
            raise Illegal(f"{cav.name} has No Pistols: it must reload (Reform)", "TACW §9.8.3")
        if not any(e.side != cav.side for e in st.units_at(a)):
            raise Illegal(f"no enemy unit in {a} to fire at", "TACW §9.1.1")
        if grid.distance(cav.hexes[0], a) != 1:
            raise Illegal(f"{a} is out of pistol range (1 hex)", "TACW §9.1.2")
        fire = _optional("fire", "pistol_fire")
        if fire is None:
            raise Illegal("pistol fire during a move needs the fire rules (engine.tacw.fire), "
                          "not installed yet", "TACW §9.2")
        if not live:                    # the fire rules' own checks, at this point of the path
            cannot, plan = _optional("fire", "cannot_fire"), _optional("fire", "plan_shots")
            why = cannot(st, cav) if cannot else None
            if why:
                raise Illegal(why, "TACW §9.2")
            if plan:
                plan(sc, st, cav, [a])
        ctx["pistol"] = True
        ctx["log"].append({"step": label, "mp": 0, "terrain": [], "hits": 0})
        info = {"trigger": None, "entered": [], "pistol": True}
        if live:
            evs, interrupted = _split(fire(sc, st, cav, a, stream, during_move=True))
            events += evs
            info["interrupted"] = interrupted
        return info, events
    raise CannotParse(f"unknown step {kind!r}")


def _central(grid, u: Unit, arc: str) -> list[str]:
    return [n for n in F.arcs(grid, u.hexes, u.facing)[arc] if all(grid.adjacent(n, h) for h in u.hexes)]


def _outer(grid, u: Unit, arc: str) -> list[str]:
    central = _central(grid, u, arc)
    return [n for n in F.arcs(grid, u.hexes, u.facing)[arc] if n not in central]


# == restrictions from orders and command (§5.6, §5.4.3) =========================================

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
        if not ctx["no_adjacent"]:
            ctx["no_adjacent"] = ["out of command: it may not move adjacent to the enemy",
                                  "TACW §5.4.3"]
    if lim.must_end_closer and not adjacent:
        ctx["closer_than"] = _charge_reference(sc, st, unit)
    if not lim.may_end_closer_to_enemy:
        ctx["not_closer_than"] = nearest_enemy_distance(sc, st, unit.hexes, unit.side)
    return info


def _charge_reference(sc, st: TacwState, unit: Unit) -> list | None:
    """Errata [5.6.1] (series card wording): the closest enemy unit(s) not already engaged
    (HERALD: engaged = adjacent to another unit of the mover's side), all enemies if every one
    is engaged. Returns [distance, [ids]]."""
    group_ids = {unit.id} | ({p.id} if (p := partner_of(st, unit)) else set())
    friends = [u for u in st.units.values() if u.alive and u.side == unit.side and u.id not in group_ids]
    foes = enemies(st, unit.side)
    free = [e for e in foes if not any(distance_units(sc, e.hexes, f.hexes) <= 1 for f in friends)]
    pool = free or foes
    if not pool:
        return None
    d = min(distance_units(sc, unit.hexes, e.hexes) for e in pool)
    return [d, [e.id for e in pool if distance_units(sc, unit.hexes, e.hexes) == d]]


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
        raise Illegal(f"{u.name} and {mate.name} must face the same way to stack: turn before "
                      f"entering ({mate.name} faces {F.vertex_name(sc.grid, mate.facing)})",
                      "TACW §8.2.1")
    if opts.get("top"):
        arts = [o for o in sim.units_at(u.hexes[0]) if o.kind == "artillery" and o.side == side]
        if not arts:
            raise Illegal("'top': the unit does not end stacked with friendly artillery", "TACW §8.3")
        if opts["top"] not in (u.id, arts[0].id):
            raise Illegal(f"'top' names {u.id} or {arts[0].id}", "TACW §8.3")
    ref = ctx.get("closer_than")
    if ref:
        d, ids = ref
        now = nearest_enemy_distance(sc, sim, u.hexes, side, among=ids)
        if now is None or now > d - 1:
            raise Illegal(f"Charge orders: {u.name} must end at least 1 hex closer to the nearest "
                          f"enemy unit not already engaged (now {d} hex{'es' if d != 1 else ''}, "
                          f"this path ends {now})", "TACW §5.6.1 (errata)")
    if ctx.get("not_closer_than") is not None:
        now = nearest_enemy_distance(sc, sim, u.hexes, side)
        if now is not None and now < ctx["not_closer_than"]:
            raise Illegal(f"Rally orders: {u.name} may not end its move closer to enemy units "
                          f"({ctx['not_closer_than']} hexes at the start, {now} at the end)",
                          "TACW §5.6.4 (D6)")
    if ctx["need_command"] and not in_command(sc, sim, u):
        raise Illegal(f"{u.name} is out of command: it must move so as to come into command",
                      "TACW §5.4.3")


# == the move action =============================================================================

def check_can_move(u: Unit) -> None:
    if u.kind == "artillery":
        raise Illegal("artillery never moves in TACW (it may turn instead of firing: face <gun> "
                      "<vertex>)", "TACW §7.2.1")
    if u.kind not in MOVING_KINDS:
        raise Illegal(f"{u.name} cannot move", "TACW §7.2.1")
    if u.morale_state == "broken":
        raise Illegal(f"{u.name} is Broken: it moves only when it retreats or routs",
                      "TACW §11.4.3, §12.4.1")
    if u.formation == "broken":
        raise Illegal(f"{u.name} is F-Broken: no movement", "TACW §6.3.1")
    if u.special_formation == "hedgehog":
        raise Illegal(f"{u.name} is in hedgehog: no movement", "TACW §6.3.2")


def start_move(sc, st: TacwState, unit: Unit, steps: list[list], opts: dict,
               stream: DiceStream) -> list[Event]:
    """Validate the whole path on a copy, then walk it (the unit has already used its action)."""
    check_can_move(unit)
    partner = None if opts.get("alone") else partner_of(st, unit)
    act = st.activation
    if partner is not None:
        if partner.wing != act.wing or partner.id in act.acted:
            raise Illegal(f"{unit.name} is stacked with {partner.name}, which cannot move now: "
                          f"add 'alone' to move {unit.name} by itself", "TACW §8.2.1")
        check_can_move(partner)
        act.acted.append(partner.id)
    if opts.get("incorporate"):
        if partner is not None:
            raise Illegal("a cavalry unit stacked with light infantry incorporates 'alone'", "TACW §8.4")
    if not steps and not opts.get("top"):
        raise CannotParse(f"give the path: move <unit> <step> ...; {STEP_HELP}")
    # -- the dry run ---------------------------------------------------------------------------
    sim = st.copy()
    su = sim.units[unit.id]
    ctx = new_ctx(sc, sim, su, sim.units[partner.id] if partner else None, "action")
    ctx["incorporate"] = bool(opts.get("incorporate"))
    set_restrictions(sc, sim, ctx, su)
    if ctx["ma"] <= 0 and steps:
        raise Illegal(f"{unit.name} has no movement allowance", "TACW §7.2")
    for step in steps:
        apply_step(sc, sim, ctx, step)
    final_checks(sc, st, sim, ctx, opts)
    # -- the real walk -------------------------------------------------------------------------
    ctx = new_ctx(sc, st, unit, partner, "action")
    ctx["incorporate"] = bool(opts.get("incorporate"))
    set_restrictions(sc, st, ctx, unit)
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
    from . import reactions
    events: list[Event] = []
    ctx = rec["ctx"]
    while True:
        if st.pending:
            st.options[SUSPENDED] = rec
            u = st.units[ctx["unit"]]
            _set_last_path(st, ctx)
            events.append(Event("move_halt", ctx["side"], "TACW §7.4.1",
                                f"{u.name} halts in {u.hexes[0] if u.hexes else '-'}: "
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
        fn = _optional("fire", "reaction_fire")
        if fn is None or not u.alive:
            return []
        evs, interrupted = _split(fn(sc, st, u, task["trigger"], stream, hexes=task["hexes"]))
        if interrupted and not st.pending:
            rec["halt"] = ["reaction fire stopped it", "TACW §9.7"]
        return evs
    return reactions.run_task(sc, st, rec, task, stream)


def end_movement_hits(sc, st: TacwState, ctx: dict, stream: DiceStream) -> list[Event]:
    """§7.3.1: the formation hits of the move, applied when it is complete (a cavalry + LI stack
    shares them, §8.2.1). None in Open Order, Column or routing (§6.3.3, §6.3.4, §12.4.1)."""
    events: list[Event] = []
    n = ctx["hits"]
    ctx["hits"] = 0
    if not n or not ctx["hits_apply"]:
        return events
    for g in group_of(st, ctx):
        if g.alive and g.morale_state != "broken":
            events += formation_hit(sc, st, g, stream, f"{n} formation hit{'s' if n > 1 else ''} "
                                    "from the terrain of its move", "TACW §7.3.1", n=n)
    return events


def _apply_top(st: TacwState, ctx: dict, top: str | None) -> list[Event]:
    """§8.3: the owner decides which unit is on top when a unit moves into an artillery hex
    (HERALD default: the unit that moved in). Artillery left alone is on top of nothing."""
    u = st.units[ctx["unit"]]
    events: list[Event] = []
    for h in ctx["start_hexes"]:
        for art in st.units_at(h):
            if art.kind == "artillery" and len(st.units_at(h)) == 1:
                art.on_top = True
    if not u.alive:
        return events
    for h in u.hexes:
        for art in st.units_at(h):
            if art.kind == "artillery" and art.side == u.side:
                moved_in = h not in ctx["start_hexes"]
                if top is None and not moved_in:
                    continue
                art.on_top = top == art.id
                events.append(Event("stacking", u.side, "TACW §8.3",
                                    f"{art.name if art.on_top else u.name} is on top in {h}",
                                    outcome={"hex": h, "top": art.id if art.on_top else u.id}))
    return events


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
    return events


def move_event(sc, st: TacwState, ctx: dict, u: Unit, left: list | None = None) -> Event:
    names = [u.name] + ([st.units[ctx["partner"]].name] if ctx["partner"] else [])
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
    return start_move(sc, st, unit, steps, opts, stream)


def do_face(sc, st, side, cmd, stream):
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + USAGE["face"])
    vertex = _vertex(sc, cmd.args[1])
    target = find_unit(st, cmd.args[0])
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
        raise Illegal(f"{gun.name}'s guns are {gun.gun_state}", "TACW §9.9.9")
    if gun.morale_state == "broken":
        raise Illegal(f"{gun.name} is Broken: it may not fire or change facing", "TACW §9.9.8")
    if gun.fired:
        raise Illegal(f"{gun.name} has fired this turn: it turns only instead of firing", "TACW §6.2.3")
    if gun.facing == vertex:
        raise Illegal(f"{gun.name} already faces {F.vertex_name(sc.grid, vertex)}", "TACW §6.2.3")
    gun.facing = vertex
    gun.fired = True
    events = [Event("face", side, "TACW §6.2.3", f"{gun.name} turns to face "
                    f"{F.vertex_name(sc.grid, vertex)} instead of firing",
                    outcome={"unit": gun.id, "facing": F.vertex_name(sc.grid, vertex)})]
    fn = _optional("fire", "reaction_fire")
    if fn is not None:
        events += _split(fn(sc, st, gun, "face", stream, hexes=list(gun.hexes)))[0]
    return events


def do_resume(sc, st, side, cmd, stream):
    rec = suspended_move(st)
    if rec is None:
        raise Illegal("no move is waiting to resume")
    if st.pending:
        raise Illegal(f"waiting for {st.pending['side'].title()}: {st.pending['kind']}")
    if rec["ctx"]["side"] != side:
        raise Illegal("the halted move is not yours")
    return resume_move(sc, st, stream)


# == leaders (§5.1.2, §5.2.2) ====================================================================

def do_leader(sc, st, side, cmd, stream):
    if len(cmd.args) < 2 or cmd.args[1] != "move":
        if _previous.get("leader"):
            return _previous["leader"](sc, st, side, cmd, stream)
        raise CannotParse("usage: " + USAGE["leader"])
    if len(cmd.args) < 3:
        raise CannotParse("usage: " + USAGE["leader"])
    return move_leader(sc, st, side, cmd.args[0], [_hex(sc, h) for h in cmd.args[2:]])


def move_leader(sc, st: TacwState, side: str, leader_id: str, path: list[str]) -> list[Event]:
    """An Army Commander's move is his one action when a wing of his army activates (§5.1.1-
    §5.1.2); a Wing Commander moves when his wing is active (§5.2.2). 8 MP, the cavalry costs of
    the Terrain table (D13); hex by hex along adjacent hexes; never into a hex with an enemy unit
    (HERALD: nor with an enemy leader). Leaders are not combat units: they pass friendly units
    freely and cause no reactions. HERALD: the move belongs to step C, so it closes the order
    change step (§3.2)."""
    ld = st.leaders.get(leader_id.lower())
    if ld is None or ld.side != side:
        raise Illegal(f"'{leader_id}' is not one of your leaders")
    if ld.status != "active" or ld.hex is None:
        raise Illegal(f"{ld.name} is not on the field", "TACW §5.3")
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("leaders move only when a wing of their army is active", "TACW §5.1.1, §5.2.2")
    if st.pending:
        raise Illegal(f"waiting for {st.pending['side'].title()}: {st.pending['kind']}", "TACW §3.2")
    if act.step not in ("order_change", "actions"):
        raise Illegal("leaders move in the actions step, before close combat", "TACW §3.2 C")
    if ld.role == "ac":
        if act.ac_acted:
            raise Illegal(f"{ld.name} has already taken his one action in this activation", "TACW §5.1.2")
    else:
        if ld.wing != act.wing:
            raise Illegal(f"{ld.name} moves only when his own wing is active", "TACW §5.2.2")
        if act.wc_acted:
            raise Illegal(f"{ld.name} has already moved in this activation", "TACW §5.2.2")
    ma = tables.MOVEMENT_ALLOWANCE["leader"]
    cur, spent, log = ld.hex, 0, []
    for h in path:
        if not sc.grid.adjacent(cur, h):
            raise Illegal(f"{h} is not next to {cur}: give the path hex by hex", "TACW §7.1")
        if any(u.side != side for u in st.units_at(h)):
            raise Illegal(f"{h} holds an enemy unit: a leader may not enter it", "TACW §5.3.1")
        if any(o.side != side for o in st.leaders_at(h)):
            raise Illegal(f"{h} holds an enemy leader", "TACW §5.3.1")
        key = sc.terrain_at(h)
        mp = tables.terrain_mp(key, "leader")
        if mp is None:
            raise Illegal(f"{h} is {key}: impassable", "TACW §7.1.1")
        cross = sc.crossing(cur, h)
        if cross:
            mp += tables.terrain_mp(cross, "leader", hexside=True) or 0
        if spent + mp > ma:
            raise Illegal(f"{h} costs {mp} MP but {ld.name} has {ma - spent} of {ma} left", "TACW §7.2.1")
        spent += mp
        log.append(f"{h} ({mp} MP)")
        cur = h
    start = ld.hex
    ld.hex = cur
    if ld.role == "ac":
        act.ac_acted = True
    else:
        act.wc_acted = True
    act.step = "actions"
    st.last_action = {"items": [{"kind": "move", "piece": ld.id, "path": [start] + list(path)}]}
    return [Event("leader_move", side, "TACW §5.1.2" if ld.role == "ac" else "TACW §5.2.2",
                  f"{ld.name} moves {start} > " + " > ".join(log) + f": {spent} of {ma} MP",
                  outcome={"leader": ld.id, "path": [start] + list(path), "mp_spent": spent})]


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
    before = nearest_enemy_distance(sc, st, cav.hexes, cav.side)
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
        after = nearest_enemy_distance(sc, st, [h], cav.side)
        closer = before is not None and after is not None and after < before
        if closer and (order in ("make_ready", "rally")):
            continue
        out.append(h)
    return out


def avoid_artillery(sc, st: TacwState, cav: Unit, hex_id: str, stream: DiceStream) -> list[Event]:
    """§7.6: slide into flank hex `hex_id` keeping facing, instead of taking the artillery's
    formation hit. HERALD: the terrain entered gives its own formation hits (§7.3)."""
    if hex_id not in artillery_avoidance_hexes(sc, st, cav):
        raise Illegal(f"{cav.name} may not slide into {hex_id}", "TACW §7.6")
    partner = partner_of(st, cav)
    ctx = new_ctx(sc, st, cav, partner, "slide", ma=FREE)
    start = cav.hexes[0]
    events: list[Event] = []
    _enter(sc, st, ctx, [hex_id], [(start, hex_id)], hex_id, "forward", events)
    events += end_movement_hits(sc, st, ctx, stream)
    st.last_action.setdefault("items", []).append({"kind": "move", "piece": cav.id, "path": [start, hex_id]})
    return events + [Event("avoid_artillery", cav.side, "TACW §7.6",
                           f"{cav.name} slides from {start} into {hex_id} to avoid the artillery's "
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
    from . import rules
    if "leader" in rules.HANDLERS and rules.HANDLERS["leader"] is not do_leader:
        _previous["leader"] = rules.HANDLERS["leader"]
    register("move", do_move, USAGE["move"])
    register("face", do_face, USAGE["face"])
    register("hedgehog", do_hedgehog, USAGE["hedgehog"])
    register("leader", do_leader, USAGE["leader"])
    register("resume", do_resume, USAGE["resume"])


_register()
from . import reactions  # noqa: E402,F401  (registers react_move, intercept, the policies)
