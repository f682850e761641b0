"""TACW map questions: arcs of units, adjacency of leaders and enemies, command lines (§5.4),
line of sight (§9.10). Read-only; nothing here changes a game."""
from __future__ import annotations

from collections import deque

from engine.core import facing as F

from engine.tacw.state import Leader, TacwState, Unit


def unit_arcs(sc, u: Unit) -> dict[str, list[str]]:
    """§6.1: the unit's front, flank and rear hexes. A hedgehog has no flank or rear (§6.3.2)."""
    arcs = F.arcs(sc.grid, u.hexes, u.facing)
    if u.special_formation == "hedgehog":
        return {"front": arcs["front"] + arcs["flank"] + arcs["rear"], "flank": [], "rear": []}
    return arcs


def arc_to(sc, u: Unit, hex_id: str) -> str:
    if u.special_formation == "hedgehog":
        return "front"
    return F.arc_of(sc.grid, u.hexes, u.facing, hex_id)


def distance_units(sc, a: list[str], b: list[str]) -> int:
    distance = sc.grid.distance
    if len(a) == 1 and len(b) == 1:
        return distance(a[0], b[0])
    return min(distance(x, y) for x in a for y in b)


def leader_adjacent_or_stacked(sc, a: Leader, b: Leader) -> bool:
    if a.hex is None or b.hex is None:
        return False
    return a.hex == b.hex or sc.grid.adjacent(a.hex, b.hex)


def enemies(st: TacwState, side: str) -> list[Unit]:
    return [u for u in st.units.values() if u.alive and u.side != side]


def adjacent_to_enemy(sc, st: TacwState, hexes: list[str], side: str) -> bool:
    distance = sc.grid.distance
    for e in enemies(st, side):
        if any(distance(h, k) <= 1 for h in hexes for k in e.hexes):
            return True
    return False


def nearest_enemy_distance(sc, st: TacwState, hexes: list[str], side: str,
                           among: list[str] | None = None) -> int | None:
    ds = [distance_units(sc, hexes, e.hexes) for e in enemies(st, side)
          if among is None or e.id in among]
    return min(ds) if ds else None


def leader_next_to_enemy(sc, st: TacwState, leader: Leader | None) -> bool:
    """Modifiers of §4.4.4 and §5.7.3: the WC adjacent to an enemy unit that is not routed."""
    if leader is None or leader.hex is None:
        return False
    for u in enemies(st, leader.side):
        if u.morale_state != "broken" and any(sc.grid.distance(leader.hex, h) <= 1 for h in u.hexes):
            return True
    return False


def command_reach(u: Unit) -> int:
    """§5.4.2: links of 2 hexes for infantry, 3 for cavalry."""
    return 3 if u.kind == "cavalry" else 2


def _path_clear(sc, st: TacwState, a: str, b: str, side: str,
                blocked: frozenset[str] | set[str] | None = None) -> bool:
    """A command link may not pass through enemy units or impassable terrain (§5.4.2).
    HERALD: checked on the hexes of a straight line between the two (both sides of an edge
    must be blocked to block, as for line of sight). `blocked`: the enemy units' hexes, when
    the caller has them already."""
    if blocked is None:
        blocked = {h for u in enemies(st, side) for h in u.hexes}
    for step in _line_steps(sc.grid, a, b):
        hexes = [h for h in step if h is not None]
        bad = [h for h in hexes if h in blocked or sc.hex_impassable(h)]
        if hexes and len(bad) == len(hexes):
            return False
    return True


def _line_steps(grid, a: str, b: str) -> list:
    """`grid.line_steps`, kept in the map's memo (a pure function of the fixed map)."""
    key = ("line_steps", a, b)
    got = grid.memo.get(key)
    if got is None:
        got = F._remember(grid, key, grid.line_steps(a, b))
    return got


def _links(sc, st: TacwState, side: str):
    """`link(cur, hexes)`: whether a unit `cur` reaches one of `hexes` by a command link
    (§5.4.2: within 2 hexes, 3 for cavalry, the line clear of enemy units and impassable
    terrain), measured from `cur`'s hexes to the other end, as §5.4 traces a line from the unit
    toward its Wing Commander."""
    blocked = {h for u in enemies(st, side) for h in u.hexes}
    distance = sc.grid.distance

    def link(cur: Unit, hexes: list[str]) -> bool:
        reach = command_reach(cur)
        return any(distance(h, k) <= reach and _path_clear(sc, st, h, k, side, blocked)
                   for h in cur.hexes for k in hexes)
    return link


def wing_in_command(sc, st: TacwState, wing_id: str) -> set[str] | None:
    """§5.4: the ids of the wing's units in command, found outward from the Wing Commander: a
    unit is in command when its link reaches him, or reaches a unit already in command. The
    same chains as `in_command` walks from each unit (each link measured from the unit nearer
    the start of the chain), found once for the whole wing (issue 13). None without an active
    Wing Commander on the map."""
    wing = st.wings.get(wing_id)
    wc = st.leaders.get(wing.commander) if wing else None
    if wc is None or wc.status != "active" or wc.hex is None:
        return None
    mates = st.wing_units(wing_id)
    if not mates:
        return set()
    link = _links(sc, st, mates[0].side)
    done = {m.id for m in mates if link(m, [wc.hex])}
    grew = bool(done)
    while grew:
        grew = False
        anchors = [h for m in mates if m.id in done for h in m.hexes]
        for m in mates:
            if m.id not in done and link(m, anchors):
                done.add(m.id)
                grew = True
    return done


def in_command(sc, st: TacwState, unit: Unit) -> bool:
    """§5.4: a chain of links (2 hexes infantry, 3 cavalry) through units of the same wing to
    the Wing Commander. Command never applies to leaders themselves."""
    ok = wing_in_command(sc, st, unit.wing)
    if ok is None:
        return False
    if unit.id in ok:
        return True
    mates = st.wing_units(unit.wing)
    if any(m.id == unit.id for m in mates):
        return False                   # one of the wing's units, not reached
    wc = st.leaders[st.wings[unit.wing].commander]
    link = _links(sc, st, unit.side)   # a unit outside the wing's list: one link onto a chain
    anchors = [wc.hex] + [h for m in mates if m.id in ok for h in m.hexes]
    return link(unit, anchors)


def command_distance(sc, st: TacwState, unit: Unit, hexes: list[str]) -> int | None:
    """How far `hexes` are from being in command (§5.4.3 "più vicina ad essere in comando"):
    the hex distance to the nearest anchor of the unit's line of communication, its Wing
    Commander or a unit of its wing that is in command (§5.4.2). None without a Wing Commander."""
    wing = st.wings.get(unit.wing)
    wc = st.leaders.get(wing.commander) if wing else None
    if wc is None or wc.status != "active" or wc.hex is None:
        return None
    ok = wing_in_command(sc, st, unit.wing) or set()   # a mate's chain may pass through `unit`
    anchors = [wc.hex] + [h for m in st.wing_units(unit.wing) if m.id != unit.id
                          and m.id in ok for h in m.hexes]
    return min(sc.grid.distance(h, a) for h in hexes for a in anchors)


def line_of_sight(sc, st: TacwState, firer: Unit, src: str, dst: str) -> tuple[bool, str]:
    """§9.10: the one line-of-sight rule (friendly units block, enemy units do not, §9.10.1),
    written in `artillery.fire_line_of_sight`, the only fire that reaches beyond one hex."""
    from engine.tacw.fire.artillery import fire_line_of_sight
    return fire_line_of_sight(sc, st, firer, src, dst)
