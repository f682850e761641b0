"""Where units go after a fight: retreats after close combat and morale failure (TACW §10.4,
§11.4.3), the advance after close combat (§10.4.6-10.4.10) and the Rout Phase move (§12.4): the
hexes a unit moves through, the units it carries along or disables, what happens when it cannot
go; and the hook to the fire module's Reaction Fire that advances, rallies and reforms trigger.

Every choice of hex is deterministic (HERALD): among the legal hexes the one farthest from the
enemy it retreats from, then one that spares friendly guns, then the one nearest its friendly
map edge (`sc.edges[side]`), then by hex id.
Paths are recorded in `st.last_action["items"]` as {"kind": "retreat" | "rout", "path": [...]}.

HERALD readings (the text does not define retreat geometry, digest R12):
- A retreat is one hex at a time. A **Broken** unit flees (D76): in any direction, each hex
  takes it farther from at least one enemy hex it flees from and closer to none, and it must end
  farther from the enemy than it started; it ends facing away from the enemy (§10.4.1 "si gira e fugge, spalle al nemico"). It
  is blocked only by stacking, enemy units and terrain (§10.4.5, §11.4.3), so a unit attacked
  from its front and both flanks flees through its open rear. A **Shaken** unit steps back in good order: each hex is one of its
  rear hexes, keeping its facing, and never closer to the enemy (§10.4.1 "arretra mantenendo
  formazione ed orientamento"). A double unit moves both halves (§10.4.4).
- "The enemy" is the unit(s) it fought (`threat`), or else the nearest enemy units.
- Retreats pay no MP and take no terrain formation hits; impassable terrain (river) and enemy
  units block; friendly units block (§10.4.3), except friendly artillery, which the retreat
  passes through (or ends on, stacking permitting) and so disables (§9.9.9); a light infantry
  unit may end its retreat stacked with a lone friendly cavalry unit and vice versa (§10.4.3).
  Disabled or captured guns are inert markers and block nothing.
- Leaving the map: a unit that can only retreat off the map does so and is eliminated (§12.4.3
  "Le unità che si ritirano fuori mappa sono eliminate", applied to every retreat; any edge).
  An on-map hex is always preferred.
- Blocked: a Broken unit that cannot make its full retreat rolls on the Retreat Impossible table
  (§10.4.5: 0-4 eliminated, 5-9 stays where it got to); a Shaken unit loses 1 SP for each hex it
  could not retreat (§10.4.5).
- Cavalry stacked with light infantry takes the light infantry along (§8.2.1, §10.4.3); the SP
  loss of a blocked Shaken retreat falls on the retreating unit only.
- Leaders of the unit's side stacked with it go along (§5.2.2 for a WC; errata [5.1.2] lets the
  AC go along, and Herald always takes him).
- A rout (§12.4) is a retreat too (§12.4.2-12.4.3 say "ritirare"): it disables friendly
  artillery it passes through. It triggers no reaction fire or movement; neither does a retreat
  (§10.4.9 names only advances).
"""
from __future__ import annotations

import inspect

from engine.core import facing as F
from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier
from engine.core.hexgrid import CUBE_DIRECTIONS, cube_add, cube_distance

from engine.tacw import readings, tables

from engine.tacw.sequence import choices as choices
from engine.tacw.battles import second_newbury as newbury
from engine.tacw.geometry import unit_arcs
from engine.tacw.state import TacwState, Unit

EDGE_ANGLE = {"east": 0.0, "south": 90.0, "west": 180.0, "north": 270.0}   # screen degrees, y down


# == small map helpers ===========================================================================

def inert(u: Unit) -> bool:
    """A disabled or captured gun: a marker on the map, no longer a unit that blocks (§9.9.9)."""
    return u.kind == "artillery" and bool(u.gun_state)


def live_units_at(st: TacwState, hex_id: str) -> list[Unit]:
    return [u for u in st.units_at(hex_id) if not inert(u)]


def companions(st: TacwState, unit: Unit) -> list[Unit]:
    """Light infantry stacked with a cavalry unit (§8.2): it goes where the cavalry retreats."""
    if unit.kind != "cavalry" or not unit.alive:
        return []
    return [u for u in st.units_at(unit.hexes[0]) if u.kind == "light" and u.side == unit.side
            and u.id != unit.id]


def edge_distance(sc, hex_id: str, edge: str) -> int:
    c, r = sc.grid.col_row(hex_id)
    return {"west": c, "east": sc.cols - 1 - c, "north": r, "south": sc.rows - 1 - r}[edge]


def friendly_edge(sc, unit: Unit) -> str | None:
    """§12.4: the unit's friendly map edge (its wing's own where the scenario gives one)."""
    fn = getattr(sc, "friendly_edge", None)
    return fn(unit.side, unit.wing) if fn else sc.edges.get(unit.side)


def _edge_dist(sc, hexes: list[str], unit: Unit) -> int:
    edge = friendly_edge(sc, unit)
    return min(edge_distance(sc, h, edge) for h in hexes) if edge else 0


def _cube_dist(sc, a_cubes, hexes: list[str]) -> int:
    return min(cube_distance(a, sc.grid.cube(h)) for a in a_cubes for h in hexes)


def nearest_enemy_hexes(sc, st: TacwState, unit: Unit) -> list[str]:
    """The hexes of the enemy units nearest to `unit` (the default "enemy" of a retreat)."""
    foes = [h for u in st.units.values() if u.alive and u.side != unit.side and not inert(u)
            for h in u.hexes]
    if not foes:
        return []
    d = {h: min(sc.grid.distance(h, x) for x in unit.hexes) for h in foes}
    best = min(d.values())
    return sorted(h for h, v in d.items() if v == best)


def _terrain_kind(unit: Unit, carried: list[Unit]) -> str:
    return "cavalry_light_stack" if carried and unit.kind == "cavalry" else unit.kind


def _bearing(sc, hexes: list[str], facing: int, others: list[str]) -> float:
    return min(F.relative_bearing(sc.grid, hexes, facing, o) for o in others)


def facing_away(sc, unit: Unit, threat: list[str]) -> int:
    """§10.4.1 / §12.4.1: the facing that turns the unit's back to the enemy: the threat as
    far behind as possible; ties toward the friendly edge, then the current facing, then the
    lowest vertex. A double keeps to the two facings across its line."""
    options = list(F.double_facings(sc.grid, *unit.hexes)) if unit.is_double else list(range(6))
    edge = friendly_edge(sc, unit)

    def key(v: int):
        away = _bearing(sc, unit.hexes, v, threat) if threat else 0.0
        to_edge = 0.0
        if edge:
            diff = abs(F.vertex_angle(sc.grid, v) - EDGE_ANGLE[edge]) % 360.0
            to_edge = min(diff, 360.0 - diff)
        return (-round(away, 6), round(to_edge, 6), v != unit.facing, v)
    return min(options, key=key)


def facing_toward_edge(sc, unit: Unit) -> int:
    """§12.4.1: a routing unit heads for its friendly map edge."""
    options = list(F.double_facings(sc.grid, *unit.hexes)) if unit.is_double else list(range(6))
    target = EDGE_ANGLE[friendly_edge(sc, unit)]

    def key(v: int):
        diff = abs(F.vertex_angle(sc.grid, v) - target) % 360.0
        return (round(min(diff, 360.0 - diff), 6), v != unit.facing, v)
    return min(options, key=key)


def front_directions(facing: int) -> tuple[int, int]:
    """Vertex k lies between hexsides k-1 and k: the two front neighbours (engine.core.facing)."""
    return ((facing - 1) % 6, facing % 6)


def rear_directions(facing: int) -> tuple[int, int]:
    return ((facing + 2) % 6, (facing + 3) % 6)


# == moving a unit and what goes with it =========================================================

def relocate(sc, st: TacwState, unit: Unit, new_hexes: list[str], carried: list[Unit] = (),
             section: str = "TACW §10.4", leaders_follow: bool = False) -> list[Event]:
    """Put `unit` (and the units it carries) on `new_hexes` (a translation of its hexes, or one
    hex for a single unit); stacked leaders of its side follow half by half (§5.2.2), unless
    another friendly combat unit stays in the hex (`leaders_follow` forces them along, as in a
    pursuit, §10.7.3); enemy leaders alone in a hex entered are removed (§5.3.1)."""
    from engine.tacw.morale.checks import remove_leader
    events: list[Event] = []
    old = list(unit.hexes)
    moves = dict(zip(old, new_hexes))
    following = []
    for h_old, h_new in moves.items():
        if h_old == h_new:
            continue
        stays = [u for u in st.units_at(h_old) if u.side == unit.side and u.id != unit.id
                 and u not in carried and u.kind != "artillery"]
        if stays and not leaders_follow:
            continue
        following += [(ld, h_new) for ld in st.leaders_at(h_old) if ld.side == unit.side]
    for ld, h_new in following:
        ld.hex = h_new
    unit.hexes = list(new_hexes)
    for c in carried:
        c.hexes = [new_hexes[0]]
    for h in new_hexes:
        if h in old:
            continue
        if any(u.side != unit.side and not inert(u) for u in st.units_at(h)):
            continue
        for ld in st.leaders_at(h):
            if ld.side != unit.side:
                events += remove_leader(st, ld, f"{unit.called} entered his hex alone", "TACW §5.3.1")
    return events


def disable_guns(st: TacwState, unit: Unit, hexes: list[str], what: str) -> list[Event]:
    """§9.9.9: friendly artillery a retreat passes through is disabled."""
    events = []
    for h in hexes:
        if h in unit.hexes:
            continue
        for g in st.units_at(h):
            if g.side == unit.side and g.kind == "artillery" and not g.gun_state:
                g.gun_state = "disabled"
                events.append(Event("disabled", g.side, "TACW §9.9.9",
                                    f"{g.called}'s guns are disabled: {unit.called} {what} through them",
                                    outcome={"unit": g.id, "by": unit.id}))
    return events


def lose_strength(sc, st: TacwState, unit: Unit, n: int, reason: str, section: str) -> list[Event]:
    """SP lost without fire (blocked Shaken retreat §10.4.5, blocked rout §12.4.2): casualties,
    elimination at the printed strength (§9.6.1) and the casualty threshold (§11.5)."""
    from engine.tacw.morale.checks import eliminate
    if n <= 0 or not unit.alive:
        return []
    unit.casualties += n
    events = [Event("casualties", unit.side, section,
                    f"{unit.called} loses {n} SP ({reason}; {unit.casualties}/{unit.strength})",
                    outcome={"unit": unit.id, "hits": n})]
    if unit.casualties >= unit.strength:
        return events + eliminate(sc, st, unit, reason, section)
    if not unit.at_threshold and tables.threshold_reached(unit.morale, unit.strength, unit.casualties):
        unit.at_threshold = True
        events.append(Event("threshold", unit.side, "TACW §11.5",
                            f"{unit.called} reaches its casualty threshold: Shaken for good"))
        if unit.morale_state == "normal":
            unit.morale_state = "shaken"
    return events


def _record(st: TacwState, kind: str, unit: Unit, path: list[list[str]]) -> None:
    st.last_action.setdefault("items", []).append(
        {"kind": kind, "unit": unit.id, "path": [p[0] for p in path],
         "paths": [list(p) for p in path]})


# == one hex of retreat ==========================================================================

def _enterable(sc, st: TacwState, unit: Unit, carried: list[Unit], h: str, last: bool) -> bool:
    """May the retreating unit (with what it carries) enter hex `h`?"""
    if sc.hex_impassable(h) or tables.terrain_mp(sc.terrain_at(h), _terrain_kind(unit, carried)) is None:
        return False
    if h in newbury.closed_hexes(sc, unit):
        return False                     # Second Newbury rules 1 and 4 (newbury_rules.closed_hexes)
    present = [u for u in live_units_at(st, h) if u.id != unit.id and u not in carried]
    if any(u.side != unit.side for u in present):
        return False
    others = [u for u in present if u.kind != "artillery"]
    if not others:
        return True                      # empty, or friendly artillery (disabled), §10.4.3
    if not last or len(others) > 1 or carried:
        return False
    # §10.4.3: retreating light infantry may end stacked with cavalry, and vice versa.
    o = others[0]
    pair = {unit.kind, o.kind} == {"cavalry", "light"}
    guns_here = any(u.kind == "artillery" for u in present)
    return pair and not guns_here and not unit.is_double


def _each_dist(threat_cubes, cubes) -> list[int]:
    """The distance from the unit (its nearest hex) to each enemy hex it retreats from."""
    return [min(cube_distance(a, c) for c in cubes) for a in threat_cubes]


def _steps(sc, st: TacwState, unit: Unit, kind: str, threat: list[str], carried: list[Unit],
           last: bool, facing: int, start_d: int | None = None):
    """Legal one-hex translations of the whole unit: (new hexes or None if off the map, key).
    D76: each hex of a Broken unit takes it farther from at least one enemy hex it flees from and
    closer to none, and its last hex leaves it farther from the nearest of them than where it
    started (`start_d`); a Shaken unit steps into a rear hex no closer to the enemy."""
    grid = sc.grid
    cubes = [grid.cube(h) for h in unit.hexes]
    threat_cubes = [grid.cube(h) for h in threat]
    d_old = _cube_dist(sc, threat_cubes, unit.hexes) if threat else 0
    each_old = _each_dist(threat_cubes, cubes)
    if start_d is None:
        start_d = d_old
    on_map, off_map = [], []
    for t in range(6):
        if kind == "shaken" and t not in rear_directions(facing):
            continue                     # into its rear hexes (a double's too: both halves)
        new_cubes = [cube_add(c, CUBE_DIRECTIONS[t]) for c in cubes]
        new = [grid.hex_id(c) for c in new_cubes]
        if threat:
            d_new = min(cube_distance(a, c) for a in threat_cubes for c in new_cubes)
        else:
            d_new = d_old + 1
        if kind == "broken":
            # it turns its back and flees (§10.4.1): never toward any enemy it flees from, and
            # away from them by the end. Only stacking, enemy units and terrain block (§10.4.5,
            # §11.4.3), so a unit beset on its front and flanks still flees by its open rear.
            each_new = _each_dist(threat_cubes, new_cubes)
            if threat and (any(n < o for n, o in zip(each_new, each_old))
                           or not any(n > o for n, o in zip(each_new, each_old))):
                continue                 # toward an enemy, or only sideways along its front
            if last and d_new <= start_d:
                continue
        if kind == "shaken" and d_new < d_old:
            continue
        if any(h is None for h in new):
            off_map.append((t, d_new))
            continue
        entering = [h for h in new if h not in unit.hexes]
        if not all(_enterable(sc, st, unit, carried, h, last) for h in entering):
            continue
        guns = sum(1 for h in entering for u in live_units_at(st, h) if u.kind == "artillery")
        key = (-d_new, guns, _edge_dist(sc, new, unit), sorted(new))
        on_map.append((key, new))
    return sorted(on_map), sorted(off_map, key=lambda x: (-x[1], x[0]))


def _choose(st: TacwState, unit: Unit, on_map: list, section: str) -> list[str]:
    """§10.4, §12.4: the owner chooses the retreat hex. Herald's own choice (the first option, see
    `_steps`) stands unless the owner set `policy retreat ask` (sequence/choices.py, HERALD D93)."""
    options = ["/".join(o[1]) for o in on_map]
    answer = choices.choose(st, unit.side, "retreat", options, f"where {unit.called} retreats", section, unit)
    return on_map[options.index(answer)][1]


def retreat_unit(sc, st: TacwState, unit: Unit, hexes: int, kind: str, stream: DiceStream,
                 threat: list[str] | None = None) -> list[Event]:
    """§10.4 / §11.4.3: retreat `unit` `hexes` hexes, `kind` "broken" (flight, back to the
    enemy) or "shaken" (orderly, keeping facing). `threat`: the hexes of the enemy it retreats
    from (default: the nearest enemy units). Artillery never retreats (§9.9.8, §11.4.4)."""
    if kind not in ("broken", "shaken"):
        raise ValueError(f"a retreat is 'broken' or 'shaken', not {kind!r}")
    if not unit.alive or hexes <= 0 or unit.kind == "artillery":
        return []
    threat = list(threat) if threat else nearest_enemy_hexes(sc, st, unit)
    carried = companions(st, unit)
    section = "TACW §10.4.1" if kind == "shaken" else "TACW §10.4.1, §11.4.3"
    events: list[Event] = []
    path = [list(unit.hexes)]
    facing = unit.facing
    done = 0
    start_d = _cube_dist(sc, [sc.grid.cube(h) for h in threat], unit.hexes) if threat else 0
    for step in range(hexes):
        on_map, off_map = _steps(sc, st, unit, kind, threat, carried, step == hexes - 1, facing,
                                 start_d)
        if on_map:
            new = _choose(st, unit, on_map, section)
            events += disable_guns(st, unit, new, "retreated")
            events += relocate(sc, st, unit, new, carried)
            path.append(list(new))
            done += 1
            continue
        if off_map:
            return _off_map(sc, st, unit, carried, path, kind, events)
        break
    if kind == "broken":
        unit.facing = facing_away(sc, unit, threat)
        for c in carried:
            c.facing = unit.facing
    how = "flees" if kind == "broken" else "falls back in good order"
    if done:
        events.insert(0, Event("retreat", unit.side, section,
                               f"{unit.called} {how} {done} hex{'es' if done > 1 else ''}: "
                               + " -> ".join("/".join(p) for p in path)
                               + (f" (with {', '.join(c.called for c in carried)})" if carried else ""),
                               outcome={"unit": unit.id, "path": [list(p) for p in path],
                                        "kind": kind, "carried": [c.id for c in carried]}))
        _record(st, "retreat", unit, path)
    short = hexes - done
    if short:
        events += _blocked(sc, st, unit, carried, kind, short, stream)
    return events


def _off_map(sc, st, unit, carried, path, kind, events) -> list[Event]:
    from engine.tacw.morale.checks import eliminate
    events.append(Event("retreat", unit.side, "TACW §12.4.3",
                        f"{unit.called} retreats off the map ("
                        + " -> ".join("/".join(p) for p in path) + " -> off the map) and is eliminated",
                        outcome={"unit": unit.id, "path": [list(p) for p in path], "off_map": True}))
    _record(st, "retreat", unit, path)
    for c in carried:
        events += eliminate(sc, st, c, "retreated off the map with its cavalry", "TACW §12.4.3")
    return events + eliminate(sc, st, unit, "retreated off the map", "TACW §12.4.3")


def _blocked(sc, st, unit, carried, kind, short, stream) -> list[Event]:
    from engine.tacw.morale.checks import eliminate
    if kind == "shaken":
        return lose_strength(sc, st, unit, short, f"could not retreat {short} hex"
                             + ("es" if short > 1 else ""), "TACW §10.4.5")
    value = tables.retreat_impossible_modifier(unit.morale)
    mods = [Modifier(value, f"base morale {unit.morale}", "TACW §10.4.5")] if value else []
    roll = readings.d10(stream, f"retreat impossible, {unit.called}", unit.side,
                        reading=lambda r: tables.retreat_impossible(r + value))
    total = roll + value
    result = tables.retreat_impossible(total)
    ev = Event("retreat_impossible", unit.side, "TACW §10.4.5",
               f"{unit.called} cannot retreat: {roll}" + "".join(f" {m.value:+d}" for m in mods)
               + f" = {total} -> " + ("eliminated" if result == "eliminated" else "stays in place"),
               base=roll, modifiers=mods, dice=[DieRoll("retreat impossible", "d10", roll)],
               table="Retreat Impossible table", row=tables.RETREAT_IMPOSSIBLE_TABLE.row(total).label,
               outcome={"unit": unit.id, "result": result})
    events = [ev]
    if result == "eliminated":
        for c in carried:
            events += eliminate(sc, st, c, "its cavalry could not retreat", "TACW §10.4.5")
        events += eliminate(sc, st, unit, "could not retreat", "TACW §10.4.5")
    return events


# == Reaction Fire hook, advance after combat (§9.7, §10.4.6-10.4.10) ============================

_PARAMS: dict = {}                        # function -> the names of its parameters


def reaction_fire(sc, st: TacwState, unit: Unit, trigger: str, stream: DiceStream,
                  hexes: list[str], exclude: list[str] = (), ask: bool = False) -> list[Event]:
    """Call `fire.reaction_fire` if that module exists (§9.7: advances, rallies and reforms
    next to the enemy trigger Reaction Fire). `exclude`: units that may not react (§10.4.9:
    those that retreated). HERALD: inside close combat (`ask` False) a Reaction Fire policy
    "ask" is read as "auto", so that the combats resolve in order without a decision in the
    middle (as movement/reactions.py does inside an interception); and no trigger is offered while
    another decision is already waiting."""
    try:
        from engine.tacw.fire import small_arms as fire
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.fire":
            raise
        return []
    fn = getattr(fire, "reaction_fire", None)
    if fn is None or not unit.alive:
        return []
    if st.pending:
        return [Event("reaction_fire", st.other(unit.side), "TACW §9.7",
                      f"{unit.called}'s {trigger} is not offered to Reaction Fire: a decision is "
                      f"already waiting ({st.pending.get('kind')})")]
    kwargs = {"hexes": list(hexes)}
    params = _PARAMS.get(fn)
    if params is None:                    # read once per function (issue 13: /odds calls it often)
        params = _PARAMS[fn] = frozenset(inspect.signature(fn).parameters)
    if exclude and "exclude" in params:
        kwargs["exclude"] = list(exclude)
    if not ask and "ask_as_auto" in params:
        kwargs["ask_as_auto"] = True       # each unit's "ask" is read as "auto" (sequence/policies.py)
    out = fn(sc, st, unit, trigger, stream, **kwargs)
    return list((out[0] if isinstance(out, tuple) else out) or [])


def reaction_moves(sc, st: TacwState, unit: Unit, entered: list[str], stream: DiceStream,
                   exclude: list[str] = (), before: list[str] | None = None) -> list[Event]:
    """§10.4.9 / §10.7: an advance after combat or a pursuit triggers Reaction Movement (§7.4)
    as a move does after each hex entered: the same causes (`reactions.candidates`), the
    COMPULSORY hedgehog attempts (§7.4.3) and each reactor's "reaction_move" policy, except
    from the units in `exclude` (those that retreated). `before`: the unit's hexes before it
    moved; an enemy already within 2 hexes of them gives no new "within 2 hexes" cause.
    HERALD (D-numbers in DECISIONS.md): inside close combat a policy "ask" is read as "auto"
    (face the mover; never an optional hedgehog or retreat), as for Reaction Fire, so that the
    combats resolve in order without a decision in the middle; nothing is offered while
    another decision is already waiting."""
    if not unit.alive or not entered:
        return []
    from engine.tacw.movement import move as mv
    from engine.tacw.movement import reactions as reactions
    if st.pending:
        return [Event("reaction_move", st.other(unit.side), "TACW §7.4",
                      f"{unit.called}'s advance is not offered to Reaction Movement: a decision is "
                      f"already waiting ({st.pending.get('kind')})")]
    mate = mv.partner_of(st, unit)
    group = [unit] + ([mate] if mate is not None and mate.alive else [])
    old = list(before or [])
    seen = [r.id for r in st.units.values() if r.alive and r.side != unit.side and old and r.hexes
            and min(sc.grid.distance(a, b) for a in old for b in r.hexes) <= 2]
    rec = {"within2": seen}
    mandatory, options = reactions.candidates(sc, st, rec, group, list(entered))
    skip = set(exclude)
    events: list[Event] = []
    for rid in mandatory:
        r = st.units[rid]
        if rid in skip or not r.alive or r.morale_state == "broken" or r.special_formation == "hedgehog":
            continue
        events += reactions.hedgehog_attempt(sc, st, r, unit, stream, True)
    for rid, kinds in sorted(options.items()):
        r = st.units[rid]
        if rid in skip or not r.alive or r.morale_state == "broken" or not unit.alive:
            continue
        if reactions.policy(st, r.side, "reaction_move", rid) in ("auto", "ask") and "face" in kinds:
            events += reactions.auto_face(sc, st, r, unit, stream)
    return events


def _advance_hexes(sc, st: TacwState, unit: Unit, vacated: list[str], section: str) -> tuple[list[str], int] | None:
    """§10.4.6-10.4.8: where an advance puts the unit: (new hexes, new facing) or None. A
    double moves both halves straight ahead when both hexes it enters were vacated; otherwise
    (one hex opened) it wheels one flank into it, the other half pivoting in place, and takes
    the facing across its new line nearer its old one. A single unit may turn one hexside
    (§10.4.7); a double may not (§10.4.8).

    The owner chooses (sequence/choices.py, `policy advance_choice ask`, HERALD D93): the vacated hex a
    single unit enters (§10.4.6: "one or both hexes"), the flank a double wheels, and the single
    unit's turn. Herald's own choices come first: the lowest hex id, the lower pivot id, no turn."""
    grid = sc.grid
    closed = newbury.closed_hexes(sc, unit)

    def free(h: str) -> bool:
        return (h is not None and not sc.hex_impassable(h) and h not in closed
                and tables.terrain_mp(sc.terrain_at(h), unit.kind) is not None
                and not [u for u in live_units_at(st, h) if u.id != unit.id])
    front = unit_arcs(sc, unit)["front"]
    targets = [h for h in vacated if h in front and free(h)]
    if not targets:
        return None
    if not unit.is_double:
        into = choices.choose(st, unit.side, "advance", targets, f"the hex {unit.called} advances into",
                              "TACW §10.4.6", unit)
        turns = {"keep": unit.facing}
        for v in ((unit.facing - 1) % 6, (unit.facing + 1) % 6):
            turns[F.vertex_name(grid, v)] = v
        turn = choices.choose(st, unit.side, "advance", list(turns),
                              f"whether {unit.called} turns one hexside as it advances into {into}",
                              "TACW §10.4.7", unit)
        return [into], turns[turn]
    for t in front_directions(unit.facing):        # both halves, into vacated hexes only
        new = [grid.neighbor(h, t) for h in unit.hexes]
        if all(h in unit.hexes or (h in vacated and free(h)) for h in new):
            return new, unit.facing
    wheels: dict[str, tuple[list[str], int]] = {}
    for v in targets:                             # §10.4.8: wheel one flank into the hex
        for pivot in sorted(unit.hexes):
            if grid.adjacent(pivot, v):
                new = [pivot if h == pivot else v for h in unit.hexes]
                face = min(F.double_facings(grid, pivot, v), key=lambda f: (F.turn_cost_vertices(unit.facing, f), f))
                wheels.setdefault("/".join(new), (new, face))
    if not wheels:
        return None
    pick = choices.choose(st, unit.side, "advance", list(wheels), f"how {unit.called} wheels a flank forward",
                          "TACW §10.4.8", unit)
    return wheels[pick]


def advance_after_combat(sc, st: TacwState, unit: Unit, vacated: list[str], stream: DiceStream,
                         exclude: list[str] = (), section: str = "TACW §10.4.6",
                         formation_hits: bool = True) -> list[Event]:
    """Advance `unit` into the vacated hex(es); terrain formation hits apply in addition
    (§10.4.10); the advance triggers Reaction Fire, then Reaction Movement (the order of a move's
    interrupts, movement/move.py), except from units that retreated (§10.4.9)."""
    from engine.tacw.morale.checks import formation_hit
    where = _advance_hexes(sc, st, unit, vacated, section)
    if where is None or not unit.alive:
        return []
    new, face = where
    old = list(unit.hexes)
    entering = [h for h in new if h not in old]
    carried = companions(st, unit)
    events = relocate(sc, st, unit, new, carried, section)
    unit.facing = face
    for c in carried:
        c.facing = face
    events.insert(0, Event("advance", unit.side, section,
                           f"{unit.called} advances into {'/'.join(entering)}", outcome={"unit": unit.id, "hexes": new}))
    st.last_action.setdefault("items", []).append({"kind": "move", "unit": unit.id, "path": [old[0], entering[0]]})
    if formation_hits and tables.movement_formation_hits_apply(unit.special_formation):
        pairs = [(a, b) for a, b in zip(old, new) if a != b]
        hit = any(tables.terrain_formation_hit(sc.terrain_at(b), unit.kind) for _, b in pairs)
        hit_side = any(sc.crossing(a, b) and tables.terrain_formation_hit(sc.crossing(a, b), unit.kind, hexside=True)
                       for a, b in pairs)
        n = int(hit) + int(hit_side)
        for u in [unit] + carried:
            events += formation_hit(sc, st, u, stream, "terrain entered advancing after combat", "TACW §10.4.10", n)
    events += reaction_fire(sc, st, unit, "advance", stream, entering, exclude)
    return events + reaction_moves(sc, st, unit, entering, stream, exclude, before=old)


# == the Rout Phase move (§12.4) ==================================================================

def rout_move(sc, st: TacwState, unit: Unit, stream: DiceStream) -> list[Event]:
    """§12.4: a morale-Broken unit moves its full allowance toward its friendly map edge, back
    to the enemy: it turns to face the edge (paying the facing MP, §6.2), then moves hex by hex
    into front hexes that bring it closer to the edge, paying terrain and hexside MP, with no
    formation state and no formation hits (§12.4.1). Blocked by enemy units, friendly units
    (except artillery, which it disables, §9.9.9) or impassable terrain, it stops and loses 1 SP
    per MP it could not use (§12.4.2). Leaving the map eliminates it (§12.4.3).

    HERALD: MP left over because the next open hex costs more than remain are not "unusable"
    (no SP lost); stepping off the map costs 1 MP; among the front hexes nearer the edge it
    takes the cheaper, then the one farther from the enemy, then by id, unless the owner set
    `policy retreat ask` and chooses each hex himself among those it can pay for (D93); a light infantry unit
    stacked with routing cavalry routs with it (MA 6, §8.2.1); stacked leaders go along, and
    one still with it when it leaves the map is removed with it (morale.eliminate, §10.8)."""
    from engine.tacw.morale.checks import eliminate
    if not unit.alive or unit.morale_state != "broken" or unit.kind == "artillery":
        return []
    if unit.kind == "light":
        cav = [u for u in st.units_at(unit.hexes[0]) if u.kind == "cavalry" and u.side == unit.side
               and u.morale_state == "broken"]
        if cav:
            return []                     # it routs with the cavalry (§8.2.1)
    if friendly_edge(sc, unit) is None:
        return []
    carried = [c for c in companions(st, unit) if c.morale_state == "broken"]
    tkind = _terrain_kind(unit, carried)
    mp = tables.movement_allowance(unit.kind, "normal", "", stacked_with_light=bool(carried))
    ma = mp
    section = "TACW §12.4"
    events: list[Event] = []
    face = facing_toward_edge(sc, unit)
    turn = F.turn_cost_vertices(unit.facing, face)
    if turn:
        cost = tables.facing_change_cost("heavy" if unit.is_double else
                                         ("cavalry" if carried else unit.kind), 3 if unit.is_double else turn)
        cost = min(cost, mp)
        mp -= cost
        events.append(Event("facing", unit.side, "TACW §12.4.1, §6.2",
                            f"{unit.called} turns its back to the enemy, facing "
                            f"{F.vertex_name(sc.grid, face)} ({cost} MP)",
                            outcome={"unit": unit.id, "facing": face, "mp": cost}))
        unit.facing = face
        for c in carried:
            c.facing = face
    path = [list(unit.hexes)]
    blocked = False
    left_map = False
    enemies = [h for u in st.units.values() if u.alive and u.side != unit.side and not inert(u)
               for h in u.hexes]
    while mp > 0:
        here = _edge_dist(sc, unit.hexes, unit)
        options = []
        exits = False
        for t in front_directions(unit.facing):
            new = [sc.grid.neighbor(h, t) for h in unit.hexes]
            if any(h is None for h in new):
                exits = exits or here == 0
                continue
            if _edge_dist(sc, new, unit) >= here:
                continue
            entering = [h for h in new if h not in unit.hexes]
            if not all(_enterable(sc, st, unit, carried, h, False) for h in entering):
                continue
            cost = max(tables.terrain_mp(sc.terrain_at(h), tkind) for h in entering)
            cross = [sc.crossing(a, b) for a, b in zip(unit.hexes, new) if a != b]
            cost += max([tables.terrain_mp(x, tkind, hexside=True) for x in cross if x] or [0])
            far = min((sc.grid.distance(h, e) for h in new for e in enemies), default=99)
            options.append(((cost, -far, sorted(new)), new, cost))
        if exits:
            left_map = True
            mp -= 1
            break
        if not options:
            blocked = True
            break
        options.sort()
        affordable = [o for o in options if o[2] <= mp]
        if not affordable:
            break
        labels = ["/".join(o[1]) for o in affordable]
        pick = choices.choose(st, unit.side, "retreat", labels, f"where {unit.called} routs", section, unit)
        _, new, cost = affordable[labels.index(pick)]
        events += disable_guns(st, unit, new, "routed")
        events += relocate(sc, st, unit, new, carried, section)
        path.append(list(new))
        mp -= cost
    used = ma - mp
    route = " -> ".join("/".join(p) for p in path) + (" -> off the map" if left_map else "")
    events.insert(0, Event("rout", unit.side, section,
                           f"{unit.called} routs toward the {friendly_edge(sc, unit)} edge "
                           f"({used} of {ma} MP): {route}",
                           outcome={"unit": unit.id, "path": [list(p) for p in path], "mp": used,
                                    "off_map": left_map, "blocked": blocked}))
    if len(path) > 1 or left_map:
        _record(st, "rout", unit, path)
    if left_map:
        for c in carried:
            events += eliminate(sc, st, c, "routed off the map", "TACW §12.4.3")
        return events + eliminate(sc, st, unit, "routed off the map", "TACW §12.4.3")
    if blocked and mp > 0:
        events += lose_strength(sc, st, unit, mp, f"blocked with {mp} MP unused", "TACW §12.4.2")
    return events


__all__ = ["retreat_unit", "rout_move", "advance_after_combat", "reaction_fire", "reaction_moves", "relocate", "lose_strength", "disable_guns", "inert",
           "live_units_at", "companions", "edge_distance", "nearest_enemy_hexes", "facing_away",
           "facing_toward_edge", "front_directions", "rear_directions"]

