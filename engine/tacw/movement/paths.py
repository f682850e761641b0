"""Paths and steps of a move (TACW §7.1-§7.3) and the facing mechanics walked on the way (§6.2,
§6.3): reading a path, the movement allowance (§7.2, with the formation effects of §6.3 and the
cavalry + light infantry stack of §8.2.1), and one step at a time -- advancing into a front hex
(§7.1.1), turning (§6.2.1-§6.2.2), wheeling a double unit (§6.2.1), stepping back (§6.2.2),
forming a hedgehog (§6.3.2), a cavalry pistol shot (§9.2) -- with its terrain and hexside costs
(§7.1.2) and formation hits (§7.3), which are applied when the move ends (§7.3.1).

`movement/move.py` walks a whole move with these (and the interrupts between steps); `movement/reactions.py`
uses them for reaction moves. A move's walk is a JSON-ready dict, `ctx` (`new_ctx`).

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
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any

from engine.core import facing as F
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.tacw import tables
from engine.tacw.geometry import adjacent_to_enemy
from engine.tacw.movement.leaders import overrun_leaders
from engine.tacw.morale.checks import FORMATION_STEPS, formation_hit
from engine.tacw.movement.stacking import _incorporate, stack_problem
from engine.tacw.state import TacwState, Unit

HEDGEHOG_COST = 4                 # §6.3.2: "spendendo 4 MP"
FREE = 99                         # the "allowance" of a reaction that costs no MP (§7.4.2)
FACING_KIND = {"cavalry": "cavalry", "light": "light", "heavy": "heavy", "wagon": "wagon"}

STEP_HELP = ("steps: <hex> (a front hex), face <vertex>, about, wheel <pivot hex>, back <hex>, "
             "pistol <hex>, hedgehog; options: top <unit>, incorporate, alone")


# == optional modules written by the fire and close-combat rules =================================

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


# == groups and allowances (§7.2, §8.2.1) ========================================================

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
    _need_mp(ctx, cost, label, u.called)
    if stop and stop[1] == "TACW §8.4":
        if u.kind != "cavalry" or len(group) > 1:
            raise Illegal("only a cavalry unit on its own may incorporate", "TACW §8.4")
        if not u.casualties:
            raise Illegal(f"{u.called} has no casualties: only cavalry that has suffered losses "
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
        raise Illegal(f"{u.called} must stop in {u.hexes[0]} ({ctx['stop'][0]}): '{label}' and what "
                      "follows cannot be done", ctx["stop"][1])
    grid = sc.grid
    f = u.facing
    if kind == "hex":
        new = None
        if u.is_double and a == F.central_front_hex(grid, u.hexes, f):
            outer = _outer(grid, u, "front")
            raise Illegal(f"{a} is {u.called}'s central front hex: a double unit advances by naming "
                          f"one of its outer front hexes ({', '.join(outer)})", "TACW §7.1.1")
        for d in ((f - 1) % 6, f):
            cand = [grid.neighbor(h, d) for h in u.hexes]
            if a in cand:
                new = cand
                break
        if new is None:
            fronts = _outer(grid, u, "front") if u.is_double else F.arcs(grid, u.hexes, f)["front"]
            raise Illegal(f"{a} is not a front hex of {u.called} (facing {F.vertex_name(grid, f)}: "
                          f"{', '.join(fronts)}); turn first", "TACW §7.1.1")
        info = _enter(sc, st, ctx, new, list(zip(u.hexes, new)), label, "forward", events)
        return info, events
    if kind == "back":
        if len(group) > 1 or not tables.may_step_back(u.kind):
            raise Illegal(f"only infantry may step back ({u.called} is {u.kind})", "TACW §6.2.2")
        if u.is_double and a in _central(grid, u, "rear"):
            raise Illegal(f"{a} is {u.called}'s central rear hex: name an outer rear hex "
                          f"({', '.join(_outer(grid, u, 'rear'))})", "TACW §6.2.2")
        new = None
        for d in ((f + 2) % 6, (f + 3) % 6):
            cand = [grid.neighbor(h, d) for h in u.hexes]
            if a in cand:
                new = cand
                break
        if new is None:
            rears = _outer(grid, u, "rear") if u.is_double else F.arcs(grid, u.hexes, f)["rear"]
            raise Illegal(f"{a} is not a rear hex of {u.called} ({', '.join(rears)})", "TACW §6.2.2")
        info = _enter(sc, st, ctx, new, list(zip(u.hexes, new)), label, "back", events)
        return info, events
    if kind == "wheel":
        if not u.is_double:
            raise Illegal("only double units wheel; a one-hex unit turns with 'face <vertex>'",
                          "TACW §6.2.1")
        central = F.central_front_hex(grid, u.hexes, f)
        if a not in u.hexes:
            raise Illegal(f"wheel names the PIVOT, one of {u.called}'s hexes ({' or '.join(u.hexes)}); "
                          f"the other half swings into {central}", "TACW §6.2.1")
        if central is None:
            raise Illegal(f"{u.called} cannot wheel: no central front hex on the map", "TACW §6.2.1")
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
            raise Illegal(f"{u.called} already faces {F.vertex_name(grid, f)}", "TACW §6.2")
        if u.is_double and n != 3:
            raise Illegal("a double unit changes facing by wheeling (wheel <pivot hex>) or "
                          "countermarching (about)", "TACW §6.2.1")
        cost = tables.COUNTERMARCH_COST if (kind == "about" or u.is_double) else \
            tables.facing_change_cost("cavalry" if len(group) > 1 else FACING_KIND[u.kind], n)
        _need_mp(ctx, cost, label, u.called)
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
            raise Illegal(f"{u.called} may not form a hedgehog (scenario rule)", "TACW §6.3.2")
        if u.special_formation == "hedgehog":
            raise Illegal(f"{u.called} is already in hedgehog", "TACW §6.3.2")
        if ctx["only_face"]:
            raise Illegal(*ctx["only_face"])
        _need_mp(ctx, HEDGEHOG_COST, label, u.called)
        u.special_formation = "hedgehog"
        ctx["spent"] += HEDGEHOG_COST
        ctx["straight"] = 0
        ctx["stop"] = ["it formed a hedgehog, which cannot move", "TACW §6.3.2"]
        ctx["log"].append({"step": label, "mp": HEDGEHOG_COST, "terrain": [], "hits": 0})
        events.append(Event("hedgehog", u.side, "TACW §6.3.2",
                            f"{u.called} forms a hedgehog (4 MP)", outcome={"unit": u.id}))
        return {"trigger": None, "entered": []}, events
    if kind == "pistol":
        cav = next((g for g in group if g.kind == "cavalry"), None)
        if cav is None:
            raise Illegal("only cavalry fires while moving (pistol)", "TACW §9.2")
        if ctx["pistol"]:
            raise Illegal(f"{cav.called} fires one pistol per move action", "TACW §9.2")
        if cav.pistols <= 0:
            raise Illegal(f"{cav.called} has No Pistols: it must reload (Reform)", "TACW §9.8.3")
        if not any(e.side != cav.side for e in st.units_at(a)):
            raise Illegal(f"no enemy unit in {a} to fire at", "TACW §9.1.1")
        if grid.distance(cav.hexes[0], a) != 1:
            raise Illegal(f"{a} is out of pistol range (1 hex)", "TACW §9.1.2")
        fire = _optional("fire.small_arms", "pistol_fire")
        if fire is None:
            raise Illegal("pistol fire during a move needs the fire rules (engine.tacw.fire.small_arms), "
                          "not installed yet", "TACW §9.2")
        if not live:                    # the fire rules' own checks, at this point of the path
            cannot, plan = _optional("fire.small_arms", "cannot_fire"), _optional("fire.small_arms", "plan_shots")
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


# == the end of a move (§7.3.1) ==================================================================

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
