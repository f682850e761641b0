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
    return min(sc.grid.distance(x, y) for x in a for y in b)


def leader_adjacent_or_stacked(sc, a: Leader, b: Leader) -> bool:
    if a.hex is None or b.hex is None:
        return False
    return a.hex == b.hex or sc.grid.adjacent(a.hex, b.hex)


def enemies(st: TacwState, side: str) -> list[Unit]:
    return [u for u in st.units.values() if u.alive and u.side != side]


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


def _path_clear(sc, st: TacwState, a: str, b: str, side: str) -> bool:
    """A command link may not pass through enemy units or impassable terrain (§5.4.2).
    HERALD: checked on the hexes of a straight line between the two (both sides of an edge
    must be blocked to block, as for line of sight)."""
    blocked = {h for u in enemies(st, side) for h in u.hexes}
    for step in sc.grid.line_steps(a, b):
        hexes = [h for h in step if h is not None]
        bad = [h for h in hexes if h in blocked or sc.hex_impassable(h)]
        if hexes and len(bad) == len(hexes):
            return False
    return True


def in_command(sc, st: TacwState, unit: Unit) -> bool:
    """§5.4: a chain of links (2 hexes infantry, 3 cavalry) through units of the same wing to
    the Wing Commander. Command never applies to leaders themselves."""
    wing = st.wings.get(unit.wing)
    wc = st.leaders.get(wing.commander) if wing else None
    if wc is None or wc.status != "active" or wc.hex is None:
        return False
    mates = [u for u in st.wing_units(unit.wing)]
    seen = {unit.id}
    queue = deque([unit])
    while queue:
        cur = queue.popleft()
        reach = command_reach(cur)
        if any(sc.grid.distance(h, wc.hex) <= reach and _path_clear(sc, st, h, wc.hex, unit.side)
               for h in cur.hexes):
            return True
        for m in mates:
            if m.id in seen:
                continue
            if any(sc.grid.distance(h, k) <= reach and _path_clear(sc, st, h, k, unit.side)
                   for h in cur.hexes for k in m.hexes):
                seen.add(m.id)
                queue.append(m)
    return False


def command_distance(sc, st: TacwState, unit: Unit, hexes: list[str]) -> int | None:
    """How far `hexes` are from being in command (§5.4.3 "più vicina ad essere in comando"):
    the hex distance to the nearest anchor of the unit's line of communication, its Wing
    Commander or a unit of its wing that is in command (§5.4.2). None without a Wing Commander."""
    wing = st.wings.get(unit.wing)
    wc = st.leaders.get(wing.commander) if wing else None
    if wc is None or wc.status != "active" or wc.hex is None:
        return None
    anchors = [wc.hex] + [h for m in st.wing_units(unit.wing) if m.id != unit.id
                          and in_command(sc, st, m) for h in m.hexes]
    return min(sc.grid.distance(h, a) for h in hexes for a in anchors)


def line_of_sight(sc, st: TacwState, firer: Unit, src: str, dst: str) -> tuple[bool, str]:
    """§9.10: the one line-of-sight rule (friendly units block, enemy units do not, §9.10.1),
    written in `artillery.fire_line_of_sight`, the only fire that reaches beyond one hex."""
    from engine.tacw.fire.artillery import fire_line_of_sight
    return fire_line_of_sight(sc, st, firer, src, dst)
