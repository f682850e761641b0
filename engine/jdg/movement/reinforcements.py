"""Reinforcements entering the map [5.2] and their "Renforts" status.

Contract with the sequence of play (sequence/): when a reinforcement formation's IA is drawn, the
sequence marks its units ready to enter with `Unit.status = "entering"` (they are not yet on the
map: `hex` is None). Such a unit is moved with `move <unit> <entry hex> <hex> ...`: its first step
is one of its reinforcement's entry hexes (scenario `reinforcements.entry_hexes`), paying that
hex's cost "as if in column" (L329): the units entering by one hex in one activation form stacks
one behind the other, the n-th stack paying n times the entry hex's cost (tables
`reinforcement_nth_stack_cost`). A unit joins the last stack of the column if it may stack with it
[5.1], else it starts the next one (HERALD D86). A unit that does not enter (no MP, stacking) stays
"entering"; the sequence puts it back to "waiting" at the end of the activation, and it enters at
its formation's next activation (L331).

Status ([5.2] L323-L325, HERALD D29), kept per unit in `Unit.arrival`:
  - "renforts": the "Renforts" marker: With Orders whatever its formation's orders, and it may
    force-march (even at night, [12] L792), within the five-hex limit of [4.1] (D21);
  - "with_orders": it entered with enemy units within 5 hexes of its entry hex: With Orders for
    that turn only, not at forced march, no marker (L325);
  - "without_orders": it lost the marker (an enemy unit within 5 hexes of it): Without Orders to
    the end of that turn (L323); from the next turn it follows its formation's orders.
`Unit.arrival_turn` is the turn the last two hold for, so nothing needs clearing at phase F.

No unit may stand on an enemy reinforcement entry hex, or next to one, while reinforcements are
still to come through it (L335; HERALD D29: all those the scenario schedules by that hex).
"""
from __future__ import annotations

from engine.core.events import Event

from engine.jdg import tables
from engine.jdg.combat.results import name_of
from engine.jdg.movement.stacking import stack_problem
from engine.jdg.state import JdgState, Unit

RENFORTS_DISTANCE = tables.RULE_NUMBERS["reinforcement_enemy_distance"][0]
NOT_ENTERED = ("waiting", "entering")


def entering(unit: Unit) -> bool:
    """A reinforcement made ready by its formation's IA, not yet on the map [5.2]."""
    return unit.status == "entering" and unit.hex is None


def entry_hexes(sc, unit: Unit) -> tuple[str, ...]:
    r = sc.reinforcement_of(unit.id)
    return r.entry_hexes if r is not None else ()


def enemy_within(sc, st: JdgState, hex_id: str, side: str, distance: int) -> list[Unit]:
    """Enemy units on the map at most `distance` hexes from `hex_id`, nearest first."""
    g = sc.map.grid
    found = [(g.distance(hex_id, u.hex), u.id, u) for u in st.units.values()
             if u.alive and u.side != side]
    return [u for d, _, u in sorted(found, key=lambda t: (t[0], t[1])) if d <= distance]


def has_renforts(st: JdgState, unit: Unit) -> bool:
    return unit.arrival == "renforts"


def arrival_orders(st: JdgState, unit: Unit) -> bool | None:
    """The orders a reinforcement's status gives it now [5.2]: True (With Orders), False
    (Without Orders), None (its formation's orders)."""
    if entering(unit) or unit.arrival == "renforts":
        return True
    if unit.arrival in ("with_orders", "without_orders") and unit.arrival_turn == st.turn:
        return unit.arrival == "with_orders"
    return None


def may_force_march_on_entry(sc, st: JdgState, unit: Unit, entry_hex: str) -> str:
    """Why a reinforcement entering by `entry_hex` may not force-march, or "" ([5.2] L325)."""
    near = enemy_within(sc, st, entry_hex, unit.side, RENFORTS_DISTANCE)
    if near:
        return (f"{name_of(sc, near[0])} is within {RENFORTS_DISTANCE} hexes of the entry hex "
                f"{entry_hex}: {name_of(sc, unit)} enters With Orders this turn but not at forced "
                "march (JdG [5.2])")
    return ""


def column_stack(sc, st: JdgState, unit: Unit, entry_hex: str) -> int:
    """Which stack of the column `unit` enters in by `entry_hex` this activation (1, 2, ...): it
    pays that many times the entry hex's cost ([5.2] L329, HERALD D86)."""
    stacks = st.activation.entered.get(entry_hex, [])
    if stacks:
        last = [st.units[i] for i in stacks[-1] if i in st.units]
        if not stack_problem(sc, last + [unit]):
            return len(stacks)
    return len(stacks) + 1


def record_entry(sc, st: JdgState, unit: Unit, entry_hex: str, stack_no: int) -> Event:
    """The unit is on the map: its place in the column, and its status [5.2]."""
    stacks = st.activation.entered.setdefault(entry_hex, [])
    if stack_no > len(stacks):
        stacks.append([])
    stacks[stack_no - 1].append(unit.id)
    unit.status = "active"
    near = enemy_within(sc, st, entry_hex, unit.side, RENFORTS_DISTANCE)
    if near:
        unit.arrival, unit.arrival_turn = "with_orders", st.turn
        text = (f"{name_of(sc, unit)} enters at {entry_hex} With Orders for this turn, without the "
                f"Renforts marker: {name_of(sc, near[0])} is within {RENFORTS_DISTANCE} hexes")
    else:
        unit.arrival, unit.arrival_turn = "renforts", 0
        text = f"{name_of(sc, unit)} enters at {entry_hex} with the Renforts marker (With Orders)"
    return Event("reinforcement", unit.side, "JdG [5.2]", text,
                 inputs={"unit": unit.id, "entry_hex": entry_hex},
                 outcome={"arrival": unit.arrival, "column_stack": stack_no})


def update_status(sc, st: JdgState) -> list[Event]:
    """[5.2] L323: a unit with the Renforts marker that comes within five hexes of an enemy unit
    (by its move or the enemy's) loses it and is Without Orders to the end of the turn (HERALD
    D29). Every module that moves units calls this after the move."""
    events = []
    for u in st.units.values():
        if not (u.alive and u.arrival == "renforts"):
            continue
        near = enemy_within(sc, st, u.hex, u.side, RENFORTS_DISTANCE)
        if near:
            u.arrival, u.arrival_turn = "without_orders", st.turn
            events.append(Event(
                "reinforcement_status", u.side, "JdG [5.2]",
                f"{name_of(sc, u)} is within {RENFORTS_DISTANCE} hexes of {name_of(sc, near[0])}: "
                "its Renforts marker is removed; Without Orders to the end of the turn",
                inputs={"unit": u.id, "enemy": near[0].id}, outcome={"arrival": u.arrival}))
    return events


def barred_hexes(sc, st: JdgState, side: str) -> dict[str, str]:
    """Hexes a unit of `side` may not stand on [5.2] L335: enemy entry hexes with reinforcements
    still to come by them, and their neighbours -> the entry hex."""
    g = sc.map.grid
    out: dict[str, str] = {}
    for r in sc.reinforcements:
        if r.side == side:
            continue
        if not any(st.units[uid].status in NOT_ENTERED for uid in r.units if uid in st.units):
            continue
        for h in r.entry_hexes:
            out.setdefault(h, h)
            for n in g.neighbors(h):
                out.setdefault(n, h)
    return out
