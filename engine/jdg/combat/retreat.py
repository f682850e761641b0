"""Falling back, retreat and rout movement of Jours de Gloire [10.3]-[10.5].

- Fall back [10.3]: 1 hex after a combat result, away from the enemy that caused it.
- Rout retreat [10.2], [10.3]: 2 hexes (infantry) or 3 (cavalry) at once when a unit is routed.
- Rout movement [10.4]: in phase E (and when a routed unit is asked for a cohesion check, HERALD
  D46) a routed unit moves its full back-side MP in a straight line toward its side's exit.
- Units passed through [10.5]: they check cohesion (a routed one makes a rout move instead).

Functions the other rule modules call (all return the events they produce):

  fall_back(sc, st, unit, stream, section, away_from=None) -> events        [10.3]
  rout_retreat(sc, st, unit, stream, section, away_from=None) -> events     [10.2], [10.3]
  rout_movement(sc, st, unit, stream) -> events                             [10.4] phase E
  may_stack(sc, st, unit, hex_id) -> bool                                   [5.1]
  register_continuation(kind, fn)                                           (the "ask" contract)

`away_from`: what caused the result: a hex id, a Unit, or a list of them (HERALD D58: each hex
entered is farther from the nearest of them than the hex left). With none (a rout by
demoralisation, by a unit passing through) the unit moves toward its side's rout exit (D76).

The owner's choices ([10.3] "away from the enemy" leaves the hex to him) follow his standing
policy `rules.policy(st, owner, "retreat")`:
- "auto": Herald picks, by a fixed preference among the legal paths (HERALD D77): first no hex
  with friends it may not stack with (the text's "extrema ratio", a rule, not a preference), then
  the fewest disorders (enemy frontal ZoC hexes [10.3], steep slope / ford / bridge hexsides), then
  not ending in an enemy ZoC, then the shortest path (no passing beyond the distance, [10.5]), then
  ending farthest from the enemy, then nearest the side's rout exit, then the lowest hex ids.
- "ask": when more than one next hex is legal, the game stops on
  st.pending = {"kind": "retreat", "side": owner, "unit": id, "options": [hexes], ...}; the answer
  (`react <hex>` or `retreat <hex>`) moves the unit one hex and the rest of ITS move goes on
  (asking again at each fork). A caller that has more to do after the move (the combat sequence)
  checks `st.pending` when fall_back / worsen return: if it is set, it stores its own continuation
  in `st.pending["continue"] = {"kind": <its kind>, ...data}` and returns; once the unit's move
  (and the disorders it earned) are done, the resumer calls the function registered with
  `register_continuation(<its kind>, fn)` as `fn(sc, st, data, stream) -> events` (if the move
  asks again, "continue" is carried over to the new question).

HERALD decisions (DECISIONS.md): D32 (extra disorder only for enemy FRONTAL ZoC hexes), D58 (away
from the nearest cause, hex by hex), D59 (rivers, terrain disorders, "extrema ratio", 10.5), D60
(the rout goal hex, the straight line, column shifts, leaving the map), D61 (routed units' stacking),
D19 (the commander-in-chief follows), D74 (3 French cavalry per hex at Marengo), D76, D77, D78.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.jdg import geometry, rules, tables
from engine.jdg.combat import results
from engine.jdg.state import JdgState, Unit, restacked

EXTRA_HEXES = 4           # [10.5]: how far beyond its distance a unit may go to find a legal hex
CONTINUATIONS: dict[str, Callable[..., list[Event]]] = {}
_AUTO = [0]               # > 0 while units passed through [10.5] react: no question asked then
_THIRD_PERSON = {"fall back": "falls back", "rout retreat": "retreats in rout"}   # "X falls back 1419 -> 1519"


def register_continuation(kind: str, fn: Callable[..., list[Event]]) -> None:
    """What a caller does once a retreat it started (and its owner's choices) is over:
    `fn(sc, st, data, stream) -> events` (see the module docstring)."""
    CONTINUATIONS[kind] = fn


# -- places and obstacles -----------------------------------------------------------------------

def _hexes_of(away_from) -> list[str]:
    if away_from is None:
        return []
    if isinstance(away_from, str):
        return [away_from]
    if isinstance(away_from, Unit):
        return [away_from.hex] if away_from.hex else []
    out: list[str] = []
    for a in away_from:
        out += _hexes_of(a)
    return sorted(set(out))


def exit_hexes(sc, side: str) -> list[str]:
    """The hexes of the side's rout exit [10.4] (scenario `rout_exits`: the listed hexes, or every
    passable hex of the named edge; HERALD D60)."""
    ex = sc.rout_exits[side]
    if ex.hexes:
        return list(ex.hexes)
    g = geometry.grid(sc)
    key = ("jdg_exit_hexes", side, ex.edge)
    if key in g.memo:                       # the fixed map's answer, kept (issue 13)
        return list(g.memo[key])
    g.memo[key] = tuple(_edge_hexes(sc, g, ex))
    return list(g.memo[key])


def _edge_hexes(sc, g, ex) -> list[str]:
    out = []
    for h in g:
        c, r = int(h[:2]), int(h[2:])
        on = {"west": c == 1, "east": c == sc.map.cols, "north": r == 1, "south": r == sc.map.rows}[ex.edge]
        if on and sc.map.passable(h):
            out.append(h)
    return sorted(out)


def goal_hex(sc, hex_id: str, side: str) -> str:
    """[10.4] "verso l'uscita dalla mappa più vicina": the exit hex nearest in hexes (HERALD D60);
    between equally near ones (on a hex grid a whole stretch of the edge is) Herald takes the one
    nearest as the crow flies, the straight line to the edge of L762, then the lowest id (D77)."""
    g = geometry.grid(sc)
    exits = tuple(exit_hexes(sc, side))
    key = ("jdg_goal_hex", hex_id, exits)
    got = g.memo.get(key)                   # the fixed map's answer, kept (issue 13)
    if got is not None:
        return got
    cx, cy = g.center(hex_id)

    def crow(h: str) -> float:
        x, y = g.center(h)
        return round((x - cx) ** 2 + (y - cy) ** 2, 6)

    got = g.memo[key] = min(exits, key=lambda h: (geometry.distance(sc, hex_id, h), crow(h), h))
    return got


def _road_link(sc, a: str, b: str) -> bool:
    """A road or path runs from a to b (the fixed map's answer, kept: issue 13)."""
    g = geometry.grid(sc)
    links = g.memo.get("jdg_road_links")
    if links is None:
        links = set()
        for road in sc.map.roads:
            for x, y in zip(road.hexes, road.hexes[1:]):
                links.add(frozenset((x, y)))
        g.memo["jdg_road_links"] = links = frozenset(links)
    return frozenset((a, b)) in links


def _crossing(sc, a: str, b: str, arm: str, *, retreat: bool) -> tuple[bool, bool]:
    """(blocked, disorders) for crossing the hexside a|b. [10.3] L746: no watercourse except at a
    ford or bridge (retreat only; rout movement pays its cost like a move, [10.4] L756), a steep
    slope, ford or bridge disorders (retreat only); any hexside impassable to the arm blocks."""
    feats = sc.map.features(a, b)
    crossing = any(f in ("ford", "bridge") for f in feats)
    road = _road_link(sc, a, b)
    blocked = disorders = False
    for f in feats:
        t = tables.TERRAIN.get(f)
        if t is None:
            continue
        if retreat and t.retreat_blocked and not crossing:
            blocked = True
        if t.mp.get(arm, 0) is None and not crossing and not road:
            blocked = True
        if retreat and t.retreat_disorders:
            disorders = True
    return blocked, disorders


def _enterable(sc, st: JdgState, unit: Unit, frm: str, to: str) -> bool:
    """A hex the unit may enter at all: on the map, passable to its arm (a road may carry it
    [4.3]), no enemy unit or commander in it [5.1] (HERALD D19), no friendly square ([5.1]
    exception 3)."""
    if not sc.map.passable(to):
        return False
    if tables.move_cost(unit.arm, sc.map.terrain_at(to)) is None and not _road_link(sc, frm, to):
        return False
    for u in st.units_at(to):
        if u.side != unit.side or u.square:
            return False
    for c in st.commanders.values():
        if c.status == "active" and c.hex == to and c.side != unit.side:
            return False
    return True


def may_stack(sc, st: JdgState, unit: Unit, hex_id: str) -> bool:
    """Whether `unit` may end its move in `hex_id` with the friends there [5.1]: two of one arm and
    formation; one artillery with one or two infantry (of one formation); two artillery; Marengo:
    three French cavalry (D74). A routed unit only alone or with one other routed unit, of any
    formation, and no routed unit with units in good order or disordered (L269, L295, D61); a square
    only with squares (L271)."""
    others = [u for u in st.units_at(hex_id) if u.id != unit.id]
    if any(u.side != unit.side for u in others):
        return False
    if not others:
        return True
    if unit.condition == "routed" or any(u.condition == "routed" for u in others):
        return unit.condition == "routed" and len(others) == 1 and others[0].condition == "routed"
    if any(u.square != unit.square for u in others):
        return False
    us = others + [unit]
    arms = [u.arm for u in us]
    art, inf, cav = arms.count("artillery"), arms.count("infantry"), arms.count("cavalry")
    one_formation = len({u.formation for u in us}) == 1
    if cav == len(us):
        limit = 3 if (unit.side == "french" and sc.id.startswith("marengo")) else 2
        return one_formation and len(us) <= limit
    if inf == len(us):
        return one_formation and len(us) <= 2
    if art == len(us):
        return len(us) <= 2
    if art == 1 and inf == len(us) - 1:
        return inf <= 2 and len({u.formation for u in us if u.arm == "infantry"}) == 1
    return False


def _frontal_zoc(sc, st: JdgState, unit: Unit, hex_id: str) -> bool:
    return geometry.in_enemy_frontal_zoc(sc, st, hex_id, unit.side)


def _facing_toward(sc, frm: str, to: str) -> int:
    """A routed unit "points" along its retreat ([10.2] L720, HERALD D6): the vertex nearest the
    bearing from `frm` to `to`."""
    b = geometry.grid(sc).bearing_side(frm, to)
    return int(math.floor(b + 0.5)) % 6


# -- the fall back and the rout retreat [10.3] ----------------------------------------------------

def _away(sc, causes: list[str], goal: str | None, frm: str, to: str) -> bool:
    """[10.3] L734 "allontanandosi dall'unità nemica": each hex entered is farther from the nearest
    cause than the hex left (HERALD D58); with no cause, nearer the rout goal (HERALD D76)."""
    if causes:
        d = lambda h: min(geometry.distance(sc, h, c) for c in causes)   # noqa: E731
        return d(to) > d(frm)
    return geometry.distance(sc, to, goal) < geometry.distance(sc, frm, goal)


def _hexside(sc, arm: str, a: str, b: str) -> tuple[bool, bool, bool]:
    """The fixed map's part of a retreat step a -> b for `arm`, kept in the grid's memo (issue 13):
    (b passable to the arm, or by a road from a [4.3]; the hexside blocks [10.3]; it disorders)."""
    memo = geometry.grid(sc).memo.setdefault("jdg_retreat_hexside", {})
    key = (arm, a, b)
    got = memo.get(key)
    if got is None:
        open_to = sc.map.passable(b) and (tables.move_cost(arm, sc.map.terrain_at(b)) is not None
                                          or _road_link(sc, a, b))
        memo[key] = got = (open_to,) + _crossing(sc, a, b, arm, retreat=True)
    return got


_PATHS_KEPT = 512         # searches kept per map (_paths), the least recently asked forgotten first


def _paths(sc, st: JdgState, unit: Unit, start: str, causes: list[str], goal: str, n: int) -> list[tuple]:
    """Every legal path of a fall back or rout retreat from `start` ([10.3], [10.5]), each with
    Herald's preference rank (D77) (`_search`). The search reads the map (and the scenario's id,
    for Marengo's stacking), the moving unit and every unit and commander on it, nothing else:
    its answer is kept for that whole layout (every attribute of every unit and commander, in
    the stacks' order, and the question), so the same retreat asked again (a what-if adjudicates
    it again for each result of a later die, issue 13) is not searched again. The callers only read the list. At most _PATHS_KEPT
    answers are kept per map (a few MB), the least recently asked forgotten first."""
    kept = geometry.grid(sc).memo.setdefault("jdg_retreat_paths", {})
    key = (sc.id, tuple(unit.__dict__.values()), start, tuple(causes), goal, n,
           tuple([tuple(u.__dict__.values()) for u in st.units.values()]),
           tuple([tuple(c.__dict__.values()) for c in st.commanders.values()]))
    got = kept.pop(key, None)
    if got is None:
        got = _search(sc, st, unit, start, causes, goal, n)
        try:
            while len(kept) >= _PATHS_KEPT:
                kept.pop(next(iter(kept)), None)
        except (RuntimeError, StopIteration):   # another thread's what-if changed it meanwhile
            kept.clear()
    kept[key] = got                     # the most recent last (dicts keep their order)
    return got


def _search(sc, st: JdgState, unit: Unit, start: str, causes: list[str], goal: str, n: int) -> list[tuple]:
    """`_paths`' search. A path must take `n` hexes, each away from the cause, and may go on
    through friends it cannot stack with until it finds a hex where it may stop ([10.5]).
    The state does not change during the search: what it asks of each hex (distance from the
    causes, entering, stacking, zones of control) is found once (issue 13)."""
    g = geometry.grid(sc)
    out: list[tuple] = []
    side, arm = unit.side, unit.arm
    dist: dict[str, int] = {}
    enter: dict[str, bool] = {}
    stack: dict[str, bool] = {}
    frontal: dict[str, bool] = {}
    crowds: dict[str, bool] = {}
    enemy_commanders = {c.hex for c in st.commanders.values() if c.status == "active" and c.side != side}

    def far_from(h: str) -> int:            # the distance from the nearest cause, or to the goal
        d = dist.get(h)
        if d is None:
            d = dist[h] = (min(g.distance(h, c) for c in causes) if causes else g.distance(h, goal))
        return d

    def away(frm: str, to: str) -> bool:    # _away
        return far_from(to) > far_from(frm) if causes else far_from(to) < far_from(frm)

    def enterable(h: str) -> bool:           # _enterable's part read in the state
        e = enter.get(h)
        if e is None:
            e = enter[h] = (h not in enemy_commanders
                            and not any(u.side != side or u.square for u in st.units_at(h)))
        return e

    def stacks(h: str) -> bool:
        s = stack.get(h)
        if s is None:
            s = stack[h] = may_stack(sc, st, unit, h)
        return s

    def crowded_in(h: str) -> bool:          # friends it may not stack with
        b = crowds.get(h)
        if b is None:
            friends = [u for u in st.units_at(h) if u.id != unit.id]
            b = crowds[h] = bool(friends) and not stacks(h)
        return b

    def in_frontal(h: str) -> bool:
        f = frontal.get(h)
        if f is None:
            f = frontal[h] = _frontal_zoc(sc, st, unit, h)
        return f

    def walk(cur: str, path: list[str], disorders: int, crowded: int) -> None:
        if len(path) >= n and path and stacks(cur):
            end_zoc = bool(geometry.enemy_zoc(sc, st, cur, side))
            far = min((g.distance(cur, c) for c in causes), default=0)
            rank = (crowded > 0, disorders, end_zoc, len(path), -far,
                    g.distance(cur, goal), tuple(path))
            out.append((rank, list(path), disorders, crowded))
            return
        if len(path) >= n + EXTRA_HEXES:
            return
        for nb in sorted(g.neighbors(cur)):
            if nb in path or nb == start or not away(cur, nb):
                continue
            open_to, blocked, terrain_dis = _hexside(sc, arm, cur, nb)
            if not open_to or blocked or not enterable(nb):
                continue
            dis = disorders + int(terrain_dis) + int(in_frontal(nb))
            walk(nb, path + [nb], dis, crowded + int(crowded_in(nb)))

    walk(start, [], 0, 0)
    # "se non come extrema ratio" (L742): a path through friends it cannot stack with only if
    # no other exists (HERALD D59)
    if any(not p[0][0] for p in out):
        out = [p for p in out if not p[0][0]]
    return sorted(out, key=lambda p: p[0])


def fall_back(sc, st: JdgState, unit: Unit, stream: DiceStream, section: str, away_from=None) -> list[Event]:
    """Fall back 1 hex after a combat result [10.3]: away from the enemy that caused it (D58),
    counted in hexes, not MP, no +1 for friends (L734); keeps its facing unless it must stack with
    a friend facing otherwise (L738); not across a watercourse except at a ford or bridge, and a
    steep slope, ford or bridge disorders (L746); one extra disorder per enemy frontal ZoC hex
    entered (L750, D32); friends it cannot stack with only as a last resort, and then [10.5]. A
    unit that cannot fall back is eliminated (L734)."""
    return _start(sc, st, unit, stream, section, away_from, 1, "fall back")


def rout_retreat(sc, st: JdgState, unit: Unit, stream: DiceStream, section: str, away_from=None) -> list[Event]:
    """The retreat of a unit just routed [10.2] L710: at once 2 hexes (infantry) or 3 (cavalry),
    with the limits of [10.3] (see `fall_back`); a routed unit entering an enemy frontal ZoC hex, or
    disordered by the terrain, is eliminated (L750); one that cannot complete it is eliminated."""
    key = "rout_retreat_cavalry" if unit.arm == "cavalry" else "rout_retreat_infantry"
    n = tables.RULE_NUMBERS[key][0]
    return _start(sc, st, unit, stream, section, away_from, n, "rout retreat")


def _start(sc, st, unit, stream, section, away_from, n, what) -> list[Event]:
    if not unit.alive:
        return []
    events = results.leave_square(sc, st, unit, f"made to {what}") if what == "fall back" else []
    data = {"unit": unit.id, "start": unit.hex, "causes": _hexes_of(away_from),
            "goal": goal_hex(sc, unit.hex, unit.side), "n": n, "moved": [], "disorders": 0,
            "what": what, "section": section}
    return events + _go_on(sc, st, stream, data)


def _go_on(sc, st: JdgState, stream: DiceStream, data: dict[str, Any]) -> list[Event]:
    """Move the unit on, hex by hex, asking its owner at a fork if his policy says "ask"."""
    unit = st.units[data["unit"]]
    events: list[Event] = []
    name = results.name_of(sc, unit)
    what, section = data["what"], data["section"]
    sec = "JdG [10.3]"
    while unit.alive:
        left = data["n"] - len(data["moved"])
        if left <= 0 and may_stack(sc, st, unit, unit.hex):
            break
        paths = _paths(sc, st, unit, unit.hex, data["causes"], data["goal"], max(left, 0))
        if not paths:
            events += results.eliminate(sc, st, unit, stream, f"{section}; {sec}",
                                        f"it cannot complete its {what} of {data['n']} hex"
                                        f"{'es' if data['n'] > 1 else ''} away from the enemy")
            return events
        options = sorted({p[1][0] for p in paths})
        if len(options) > 1 and not _AUTO[0] and rules.policy(st, unit.side, "retreat") == "ask":
            st.pending = {"kind": "retreat", "side": unit.side, "unit": unit.id, "options": options,
                          "prompt": f"{what} of {name} from {unit.hex}: choose the next hex "
                                    f"({', '.join(options)})",
                          "section": "JdG [10.3]", "retreat": data}
            events.append(Event("retreat_choice", unit.side, "JdG [10.3]",
                                f"{name} must {what}: {unit.side.title()} chooses the next hex among "
                                f"{', '.join(options)}", inputs={"unit": unit.id},
                                outcome={"options": options}))
            return events
        events += _step(sc, st, unit, stream, data, paths[0][1][0])
    return events + _finish(sc, st, stream, data)


def _step(sc, st: JdgState, unit: Unit, stream: DiceStream, data: dict[str, Any], to: str) -> list[Event]:
    """Enter one hex of a fall back or retreat: disorders it earns [10.3], units passed [10.5]."""
    frm = unit.hex
    name = results.name_of(sc, unit)
    section = data["section"]
    _, terrain_dis = _crossing(sc, frm, to, unit.arm, retreat=True)
    frontal = _frontal_zoc(sc, st, unit, to)
    passed = [u for u in st.units_at(to) if u.id != unit.id]
    crowded = bool(passed) and not may_stack(sc, st, unit, to)
    _move(sc, st, unit, frm, to)
    data["moved"].append(to)
    causes = []
    if terrain_dis:
        causes.append("across a " + "/".join(f for f in sc.map.features(frm, to)
                                              if tables.TERRAIN.get(f) and tables.TERRAIN[f].retreat_disorders))
    if frontal:
        causes.append("into an enemy frontal ZoC")
    events = [Event("retreat_step", unit.side, "JdG [10.3]",
                    f"{name} {_THIRD_PERSON.get(data['what'], data['what'])} {frm} -> {to}"
                    + (f" ({', '.join(causes)}: disorder)" if causes else ""),
                    inputs={"unit": unit.id, "from": frm, "to": to},
                    outcome={"hex": to, "disorders": len(causes)})]
    if causes:
        if unit.condition == "routed":
            events += results.eliminate(sc, st, unit, stream, f"{section}; JdG [10.3]",
                                        f"a routed unit disordered again: {', '.join(causes)}")
            return events
        data["disorders"] += len(causes)
    if crowded:
        events += _pass_through(sc, st, unit, stream, passed)
    return events


def _finish(sc, st: JdgState, stream: DiceStream, data: dict[str, Any]) -> list[Event]:
    """The move is over: the facing [10.3] L738, the disorders it earned, the caller's sequence."""
    unit = st.units[data["unit"]]
    events: list[Event] = []
    if unit.alive:
        if unit.condition == "routed" and data["moved"]:
            prev = ([data["start"]] + data["moved"])[-2]
            unit.facing = _facing_toward(sc, prev, unit.hex)
        else:
            for u in st.units_at(unit.hex):
                if u.id != unit.id and u.facing != unit.facing and "artillery" not in (u.arm, unit.arm):
                    unit.facing = u.facing        # L738: as the unit that did not move
                    break
        events.append(Event("retreat", unit.side, f"{data['section']}; JdG [10.3]",
                            f"{results.name_of(sc, unit)} ends its {data['what']} in {unit.hex}",
                            inputs={"unit": unit.id, "from": data["start"], "hexes": data["n"]},
                            outcome={"path": list(data["moved"]), "hex": unit.hex}))
        if data["disorders"]:
            events += results.worsen(sc, st, unit, stream, data["disorders"], data["section"],
                                     f"its {data['what']} [10.3]", away_from=data["causes"] or None)
    return events


def resume(sc, st: JdgState, side: str, answer: str, more: list[str], stream: DiceStream) -> list[Event]:
    """The owner's answer to a "retreat" decision: the next hex of his unit's fall back or retreat
    [10.3]; the rest of that unit's move goes on, then the caller's continuation (if any)."""
    p = st.pending
    if not p or p.get("kind") != "retreat":
        raise Illegal("no fall back or retreat is waiting for a hex", "JdG [10.3]")
    if answer not in p["options"]:
        raise Illegal(f"{answer} is not one of the hexes offered: {', '.join(p['options'])}", "JdG [10.3]")
    data, cont = p["retreat"], p.get("continue")
    st.pending = None
    unit = st.units[data["unit"]]
    events = _step(sc, st, unit, stream, data, answer)
    events += _go_on(sc, st, stream, data) if unit.alive else _finish(sc, st, stream, data)
    if cont is not None:
        if st.pending:
            st.pending["continue"] = cont
        else:
            fn = CONTINUATIONS.get(cont.get("kind", ""))
            if fn is not None:
                events += fn(sc, st, cont, stream)
    return events


def do_retreat(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`retreat <hex>`: the same answer as `react <hex>` to a fall-back or retreat choice [10.3]."""
    p = st.pending
    if not p or p.get("kind") != "retreat":
        raise Illegal("no fall back or retreat is waiting for your choice of hex", "JdG [10.3]")
    if p["side"] != side:
        raise Illegal(f"the choice is {p['side'].title()}'s", "JdG [10.3]")
    if not cmd.args:
        raise CannotParse("usage: retreat <hex>, one of " + ", ".join(p["options"]))
    return resume(sc, st, side, cmd.args[0].lower(), list(cmd.args[1:]), stream)


# -- moving the counter (and the commander-in-chief with it) ---------------------------------------

def _move(sc, st: JdgState, unit: Unit, frm: str, to: str) -> None:
    """Put the unit in `to`, under the units there (artillery on top) [5.1] L283-285; a
    commander-in-chief in the hex it leaves must follow it ([2.5] L195, HERALD D19)."""
    unit.hex = to
    if unit.arm == "artillery":
        for u in [x for x in st.units_at(to) if x.id != unit.id]:
            st.units[u.id] = st.units.pop(u.id)
    else:
        st.units[unit.id] = st.units.pop(unit.id)
    restacked()
    for c in sorted(st.commanders.values(), key=lambda c: c.id):
        if c.status == "active" and c.side == unit.side and c.hex == frm:
            c.hex = to


def _commander_lost(sc, st: JdgState, unit: Unit, frm: str) -> list[Event]:
    """[2.5] L195: a commander-in-chief following a routed unit off the map is eliminated, and from
    then on all his formations are Without Orders (HERALD D19)."""
    events = []
    for c in sorted(st.commanders.values(), key=lambda c: c.id):
        if c.status == "active" and c.side == unit.side and c.hex == frm:
            c.status, c.hex = "eliminated", None
            for f in st.formations.values():
                if f.side == unit.side:
                    f.without_orders_for_good = True
            events.append(Event("commander_eliminated", unit.side, "JdG [2.5]",
                                f"the commander-in-chief {c.id} follows {results.name_of(sc, unit)} off "
                                f"the map and is lost: all {unit.side.title()} formations are Without "
                                f"Orders for the rest of the battle", outcome={"commander": c.id}))
    return events


# -- units passed through [10.5] --------------------------------------------------------------------

def _pass_through(sc, st: JdgState, mover: Unit, stream: DiceStream, passed: list[Unit]) -> list[Event]:
    """[10.5] L772: each unit passed through checks cohesion (a failure disorders it, HERALD D78);
    a routed one makes a rout move instead."""
    events = []
    _AUTO[0] += 1            # their own retreats are Herald's: the mover's move is under way
    try:
        for u in passed:
            if not u.alive or u.side != mover.side:
                continue
            what = f"cohesion check (passed through by {mover.id})"
            ok, evs = results.cohesion_check(sc, st, u, stream, what, "JdG [10.5]")
            events += evs
            if not ok:
                events += results.disorder(sc, st, u, stream, "JdG [10.5]",
                                           f"passed through by {results.name_of(sc, mover)}, cohesion check failed")
    finally:
        _AUTO[0] -= 1
    return events


# -- rout movement [10.4] ------------------------------------------------------------------------------

def _hex_cost(sc, st: JdgState, unit: Unit, frm: str, to: str):
    """MP to enter `to` in a rout move: as a normal move [10.4] L756 (terrain, the hexside, a road
    followed [4.3]), +1 to enter an enemy ZoC as a disordered unit [10.1] L698 (never the night +2,
    D63); no +1 for friends (L756). None if it cannot enter."""
    if not _enterable(sc, st, unit, frm, to):
        return None
    blocked, _ = _crossing(sc, frm, to, unit.arm, retreat=False)
    if blocked:
        return None
    if _road_link(sc, frm, to):
        cost = tables.move_cost(unit.arm, sc.map.terrain_at(to), along_road=True)
    else:
        cost = tables.move_cost(unit.arm, sc.map.terrain_at(to))
        for f in sc.map.features(frm, to):
            t = tables.TERRAIN.get(f)
            if t is not None and t.kind == "hexside":
                side_cost = t.mp.get(unit.arm, 0)
                if side_cost is None:
                    if "bridge" in sc.map.features(frm, to) or "ford" in sc.map.features(frm, to):
                        continue
                    return None
                cost += side_cost
    if geometry.enemy_zoc(sc, st, to, unit.side):
        cost += tables.RULE_NUMBERS["disordered_enter_zoc_mp"][0]
    return cost


def _obstacle(sc, st: JdgState, unit: Unit, frm: str, to: str) -> bool:
    """An obstacle on the rout line (HERALD D60): an enemy unit, terrain it cannot enter, or an
    enemy frontal ZoC hex (another disorder: elimination, L750, L758)."""
    return _hex_cost(sc, st, unit, frm, to) is None or _frontal_zoc(sc, st, unit, to)


def _next_on_line(sc, st: JdgState, unit: Unit, cur: str, goal: str, visited: list[str]) -> tuple[str | None, bool]:
    """The next hex of the straight line toward the goal ([10.4] L762; where the line runs along a
    hexside the owner picks, Herald the cheaper then the lower id, D60, D77); if it is an obstacle,
    the nearest hex of a parallel column that avoids it (exception 2, L766: progress first, then a
    sideways step). (hex, shifted) or (None, False) when it is blocked."""
    g = geometry.grid(sc)
    steps = g.line_steps(cur, goal) + [(goal,)]
    first = [h for h in steps[0] if h is not None]

    def key(h):
        return (_hex_cost(sc, st, unit, cur, h) or 0, h)

    good = sorted((h for h in first if h not in visited and not _obstacle(sc, st, unit, cur, h)), key=key)
    if good:
        return good[0], False
    d0 = g.distance(cur, goal)
    alts = [h for h in g.neighbors(cur) if h not in visited and g.distance(h, goal) <= d0
            and not _obstacle(sc, st, unit, cur, h)]
    if not alts:
        return None, False
    return min(alts, key=lambda h: (g.distance(h, goal), _hex_cost(sc, st, unit, cur, h), h)), True


def rout_movement(sc, st: JdgState, unit: Unit, stream: DiceStream) -> list[Event]:
    """A rout move [10.4]: the routed unit moves its full MP of the back side (L762; no halving
    Without Orders, D60) by the straight line toward the nearest hex of its side's exit
    (scenario.rout_exits, D60). Terrain costs as a move, no +1 for friends (L756); it may not stop
    in a hex against the stacking rules and goes on through friends ([10.5], each passed unit
    checks cohesion); an obstacle that would eliminate it is avoided by shifting columns
    (exception 2, L766) or, failing that, eliminates it. It stops for good in a town, village or
    fortification it enters (L764: the owner may; Herald always does, D77). Off the map it is
    eliminated (L730), with a commander-in-chief who follows it ([2.5] L195)."""
    if not unit.alive or unit.condition != "routed":
        return []
    name = results.name_of(sc, unit)
    sec = "JdG [10.4]"
    if unit.rout_halted:
        return [Event("rout_move", unit.side, sec,
                      f"{name} stays in {unit.hex}: it stopped its rout there and need not move on (L764)",
                      inputs={"unit": unit.id}, outcome={"path": [], "hex": unit.hex, "halted": True})]
    start = unit.hex
    goal = goal_hex(sc, start, unit.side)
    mp: Fraction | int = results.movement_points(sc, unit)
    exits = set(exit_hexes(sc, unit.side))
    path: list[str] = []
    events: list[Event] = []
    shifted = False
    while unit.alive:
        cur = unit.hex
        legal_here = may_stack(sc, st, unit, cur)
        if cur in exits and mp > 0:
            events.append(Event("rout_move", unit.side, sec,
                                f"{name} routs {start} -> {' -> '.join(path) or start} and off the map by "
                                f"its exit: eliminated (L730)",
                                inputs={"unit": unit.id, "goal": goal, "mp": str(mp)},
                                outcome={"path": path, "off_map": True}))
            events += _commander_lost(sc, st, unit, cur)
            events += results.eliminate(sc, st, unit, stream, sec, "its rout took it off the map")
            return events
        if mp <= 0 and legal_here:
            break
        nxt, shift = _next_on_line(sc, st, unit, cur, goal, [start] + path)
        if nxt is None:
            if mp > 0 or not legal_here:
                events.append(Event("rout_move", unit.side, sec,
                                    f"{name} routs {start} -> {' -> '.join(path) or '(nowhere)'} and is "
                                    f"blocked at {cur}: eliminated (L734, L766)",
                                    inputs={"unit": unit.id, "goal": goal}, outcome={"path": path, "blocked": True}))
                events += results.eliminate(sc, st, unit, stream, sec, "its rout move is blocked")
                return events
            break
        cost = _hex_cost(sc, st, unit, cur, nxt)
        if cost > mp and legal_here:
            break                       # not enough MP left for the next hex
        shifted = shifted or shift
        passed = [u for u in st.units_at(nxt) if u.id != unit.id]
        crowded = bool(passed) and not may_stack(sc, st, unit, nxt)
        _move(sc, st, unit, cur, nxt)
        unit.facing = _facing_toward(sc, cur, nxt)
        mp = max(mp - cost, 0)
        path.append(nxt)
        if crowded:
            events += _pass_through(sc, st, unit, stream, passed)
        if geometry.terrain(sc, nxt).rout_may_stop and may_stack(sc, st, unit, nxt):
            unit.rout_halted = True
            events.append(Event("rout_move", unit.side, sec,
                                f"{name} routs {start} -> {' -> '.join(path)} and stops in "
                                f"{sc.map.terrain_at(nxt)} {nxt} (L764): no more rout moves for it",
                                inputs={"unit": unit.id, "goal": goal},
                                outcome={"path": path, "hex": nxt, "halted": True}))
            return events
    if unit.alive:
        events.append(Event("rout_move", unit.side, sec,
                            f"{name} routs toward {goal}: {start} -> {' -> '.join(path) or '(no hex)'}"
                            + (" (shifting a column round an obstacle, L766)" if shifted else ""),
                            inputs={"unit": unit.id, "goal": goal, "mp": results.movement_points(sc, unit)},
                            outcome={"path": path, "hex": unit.hex, "mp_left": str(mp)}))
    return events


rules.register_reaction("retreat", resume)
rules.register("retreat", do_retreat, "retreat <hex>: the hex your unit falls back or retreats to (JdG [10.3])")
