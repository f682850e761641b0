"""The commanders-in-chief and what they command [2.3], [2.4], [2.5] (JdG Classique).

Each side has one commander-in-chief with three values: the die modifier for the commanders'
initiative and the strategic initiative, the order potential, and the command radius in hexes,
which no terrain, unit or ZoC limits ([2.5] L183-187). The values are the scenario's (HERALD D8,
D20). A chief who leaves the battle (Marengo: Melas at the end of turn 5, section D 2.1) is
succeeded by the scenario's successor (Zach), who takes over his counter in the same hex; a chief
eliminated is not replaced: from then on his side has no order potential, no radius and modifier
0, and every formation of his army is Without Orders for good ([2.5] L195, HERALD D19).

The helpers here only read the state; other modules call them:
    chief(sc, st, side) -> Chief                 the side's commander-in-chief now and his values
    in_command_radius(sc, st, formation_id) -> bool
    with_orders(st, formation_id) -> bool        the formation acts With Orders now [2.4]
    unit_with_orders(st, unit, own=None) -> bool the unit acts With Orders now (its tactical group,
                                                 optional 2.3; a reserve activation, optional 1)
    may_act(st, unit) -> bool                    a unit of the activation that may fire/move/fight
    may_rally(st, unit) -> bool                  a unit of the activation (rally is always open [11])
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine.jdg.state import Commander, JdgState, Unit


@dataclass(frozen=True)
class Chief:
    """A side's commander-in-chief now [2.5]: his counter (None once eliminated) and his values."""
    commander: Commander | None
    name: str
    modifier: int
    order_potential: int
    command_radius: int

    @property
    def hex(self) -> str | None:
        return self.commander.hex if self.commander is not None else None


def successor_id(setup) -> str:
    """The id of the successor's counter: his name in lower case ("Zach" -> `zach`)."""
    return re.sub(r"[^a-z0-9]+", "-", setup.successor.name.lower()).strip("-") or f"{setup.id}-successor"


def commander_values(sc, commander_id: str) -> tuple[str, int, int, int]:
    """(name, modifier, order potential, command radius) of a commander-in-chief or of a
    successor, from the scenario [2.5] (HERALD D8, D20)."""
    for c in sc.commanders:
        if c.id == commander_id:
            return c.name, c.modifier, c.order_potential, c.command_radius
        if c.successor is not None and successor_id(c) == commander_id:
            s = c.successor
            return s.name, s.modifier, s.order_potential, s.command_radius
    raise KeyError(commander_id)


def chief(sc, st: JdgState, side: str) -> Chief:
    """[2.5]: the side's commander-in-chief in command now. None in command (eliminated, HERALD
    D19): no order potential, no radius, modifier 0."""
    for cid in sorted(st.commanders):
        c = st.commanders[cid]
        if c.side == side and c.status == "active":
            name, mod, pot, radius = commander_values(sc, cid)
            return Chief(c, name, mod, pot, radius)
    lost = next((c for c in sc.commanders if c.side == side), None)
    return Chief(None, lost.name if lost else side.title(), 0, 0, 0)


def chief_lost(st: JdgState, side: str) -> bool:
    """[2.5] L195: the side's commander-in-chief was eliminated (not merely succeeded)."""
    return any(c.side == side and c.status == "eliminated" for c in st.commanders.values()) and not any(
        c.side == side and c.status == "active" for c in st.commanders.values())


def units_in_radius(sc, st: JdgState, formation_id: str) -> list[Unit]:
    """[2.3], [2.5]: the formation's units on the map within the chief's command radius, counted
    in hexes from his hex, whatever lies between (L187, HERALD D18)."""
    f = st.formations[formation_id]
    ch = chief(sc, st, f.side)
    if ch.hex is None or ch.command_radius <= 0:
        return []
    grid = sc.map.grid
    return [u for u in st.formation_units(formation_id)
            if u.hex is not None and grid.distance(ch.hex, u.hex) <= ch.command_radius]


def in_command_radius(sc, st: JdgState, formation_id: str) -> bool:
    """[2.3] L135, [2.4] L173: at least one unit of the formation within the chief's radius."""
    return bool(units_in_radius(sc, st, formation_id))


def with_orders(st: JdgState, formation_id: str) -> bool:
    """[2.4]: the formation acts With Orders now: its phase-A orders (for the whole turn, HERALD
    D12), or its commander's initiative won for this activation only; never once its army's chief
    is lost ([2.5] L195)."""
    f = st.formations[formation_id]
    if f.without_orders_for_good or in_reserve(st, formation_id):
        return False
    return f.orders == "with" or f.initiative_success


def in_reserve(st: JdgState, formation_id: str) -> bool:
    """Optional rule 1 L836 (HERALD D65): a formation activated in phase D bis acts Without Orders
    whatever its orders."""
    act = st.activation
    return act is not None and act.reserve and formation_id in act.formations


def group_key(st: JdgState, unit: Unit) -> str:
    """Optional rule 2.3 (HERALD D66): the tactical group the unit belonged to in phase A,
    "<formation>:<n>" (n from 1), or "" (no groups, or the unit was not on the map then)."""
    f = st.formations.get(unit.formation)
    for n, g in enumerate(f.groups if f is not None else [], 1):
        if unit.id in g["units"]:
            return f"{unit.formation}:{n}"
    return ""


def unit_with_orders(st: JdgState, unit: Unit, own: bool | None = None) -> bool:
    """[2.4] for one unit: Without Orders in a reserve activation whatever else (optional 1 L836,
    HERALD D65); else its own reinforcement status `own` [5.2] when it has one; else its phase-A
    tactical group's orders, or its group's commander's initiative won for this activation
    (optional 2.3 L852, HERALD D66); else its formation's (`with_orders`)."""
    if in_reserve(st, unit.formation):
        return False
    if own is not None:
        return own
    key = group_key(st, unit)
    f = st.formations[unit.formation]
    if not key or f.without_orders_for_good:
        return with_orders(st, unit.formation)
    act = st.activation
    group = f.groups[int(key.rsplit(":", 1)[1]) - 1]
    return group["orders"] == "with" or f.initiative_success or (act is not None and key in act.groups_won)


def in_activation(st: JdgState, unit: Unit) -> bool:
    """The unit belongs to the activation under way: its formation's IA, or an IAC activating its
    arm (Marengo section D 2.1). A reinforcement ready to enter (status "entering", [5.2]) is one."""
    act = st.activation
    if act is None or unit.side != act.side or not (unit.alive or unit.status == "entering"):
        return False
    if unit.formation not in act.formations:
        return False
    if act.reserve and unit.id not in act.reserve_units:
        return False                    # optional 1 L834: next to an enemy, not activated
    return not act.arm or unit.arm == act.arm


def may_act(st: JdgState, unit: Unit) -> bool:
    """A unit of the activation that may fire, move and fight: not of a formation whose
    commander's initiative failed ([2.4] L177: it may only rally, HERALD D13)."""
    if not in_activation(st, unit) or unit.formation in st.activation.failed:
        return False
    return not (st.activation.groups_failed and group_key(st, unit) in st.activation.groups_failed)


def may_rally(st: JdgState, unit: Unit) -> bool:
    """[11] L776: rally does not depend on the orders status: every unit of the activation; not in a
    reserve activation (optional 1 L836)."""
    return in_activation(st, unit) and not st.activation.reserve


def acting_units(st: JdgState) -> list[Unit]:
    """The units of the activation under way that may fire, move and fight, in the state's order."""
    return [u for u in st.units.values() if may_act(st, u)]
