"""The map geometry the rules share: facing to a vertex and frontal hexes [6.1], zones of control
[6.2], distances. Line of sight is with the fire rules (fire/sight.py); movement paths with the
movement rules.

A unit faces a hex vertex (engine.core.facing): the 2 hexes touching that vertex are its
frontal hexes, the other 4 its flank hexes [6.1]. A unit in a town, village or fortification, or
in square, has 6 frontal hexes [6.1]; so has the Ott bridgehead artillery (Marengo D, the
scenario's `six_fronts`). A routed unit has no front that matters: it never fires, assaults or
charges, and an attack on it gets no flank modifier ([10.2], tables.assault_modifiers).
"""
from __future__ import annotations

from engine.core import facing as core_facing
from engine.core.hexgrid import HexGrid

from engine.jdg import tables
from engine.jdg.state import JdgState, Unit


def grid(sc) -> HexGrid:
    """The scenario's grid, built once (its memo keeps the fixed map's answers)."""
    g = getattr(sc, "_jdg_grid", None)
    if g is None:
        g = sc.map.grid
        object.__setattr__(sc, "_jdg_grid", g)
    return g


def terrain(sc, hex_id: str) -> tables.Terrain:
    """The TET line of a hex (tables.TERRAIN; an unknown name reads as clear)."""
    return tables.TERRAIN.get(sc.map.terrain_at(hex_id), tables.TERRAIN["clear"])


def six_fronts(sc, unit: Unit) -> bool:
    """[6.1]: in a town, village or fortification, or in square, a unit has 6 frontal hexes; the
    scenario may print it (Marengo D: the Ott bridgehead artillery)."""
    if unit.square:
        return True
    if unit.hex and terrain(sc, unit.hex).six_front:
        return True
    return bool(getattr(sc.unit(unit.id), "six_fronts", False))


def normal_front(sc, unit: Unit) -> list[str]:
    """The 2 hexes touching the vertex the unit faces [6.1] (on the map)."""
    return core_facing.arcs(grid(sc), [unit.hex], unit.facing)["front"]


def frontal_hexes(sc, unit: Unit) -> list[str]:
    """The unit's frontal hexes [6.1]: 6 for a six-front unit, else the 2 of its vertex."""
    if six_fronts(sc, unit):
        return grid(sc).neighbors(unit.hex)
    return normal_front(sc, unit)


def flank_hexes(sc, unit: Unit) -> list[str]:
    """The adjacent hexes that are not frontal [6.1] (none for a six-front unit)."""
    front = set(frontal_hexes(sc, unit))
    return [h for h in grid(sc).neighbors(unit.hex) if h not in front]


def is_flank_attack(sc, defender: Unit, from_hex: str) -> bool:
    """An attack from a hex that is not one of the defender's frontal hexes [6.1], [8.6]; a routed
    defender has no flank [10.2]."""
    if defender.condition == "routed":
        return False
    return from_hex not in frontal_hexes(sc, defender)


def exerts_zoc(unit: Unit) -> bool:
    """[6.2]: every unit exerts a ZoC, except artillery, units in square and routed units."""
    return unit.alive and unit.arm != "artillery" and not unit.square and unit.condition != "routed"


def zoc_reaches(sc, unit: Unit, hex_id: str) -> bool:
    """Whether `unit`'s ZoC covers the adjacent `hex_id` [6.2]: not into a hex or across a hexside
    it could not cross, not across a bridge or ford over an otherwise impassable watercourse, not
    from outside into a fortification or trench (tables: `blocks_zoc`)."""
    g = grid(sc)
    if not exerts_zoc(unit) or not g.adjacent(unit.hex, hex_id):
        return False
    if not sc.map.passable(hex_id) or terrain(sc, hex_id).blocks_zoc:
        return False
    if tables.move_cost(unit.arm, sc.map.terrain_at(hex_id)) is None:
        return False
    for side_type in sc.map.features(unit.hex, hex_id):
        t = tables.TERRAIN.get(side_type)
        if t is not None and (t.blocks_zoc or t.mp.get(unit.arm, 0) is None):
            return False
    return True


def enemy_zoc(sc, st: JdgState, hex_id: str, side: str) -> list[Unit]:
    """The enemy units whose ZoC covers `hex_id` for a unit of `side` [6.2]."""
    out = []
    for n in grid(sc).neighbors(hex_id):
        for u in st.units_at(n):
            if u.side != side and zoc_reaches(sc, u, hex_id):
                out.append(u)
    return out


def in_enemy_frontal_zoc(sc, st: JdgState, hex_id: str, side: str) -> bool:
    """`hex_id` is a frontal hex of an enemy unit exerting a ZoC there ([6.2] leaving, [10.3]
    falling back or retreating into it disorders)."""
    return any(hex_id in frontal_hexes(sc, u) for u in enemy_zoc(sc, st, hex_id, side))


def distance(sc, a: str, b: str) -> int:
    return grid(sc).distance(a, b)


def adjacent_enemies(sc, st: JdgState, unit: Unit) -> list[Unit]:
    out = []
    for n in grid(sc).neighbors(unit.hex):
        out += [u for u in st.units_at(n) if u.side != unit.side]
    return out
