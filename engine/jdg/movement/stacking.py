"""Stacking [5.1] and the facing of a stack [6.1].

In one hex may stand ([5.1] L261-267; numbers in tables.RULE_NUMBERS):
  - two units of the same arm and the same formation (Marengo: three French cavalry, section D
    5.1 L948, still of one formation, HERALD D74);
  - one artillery unit of any formation with one or two infantry units (the infantry of one
    formation, HERALD D28);
  - two artillery units of any formations.
Routed units ignore the one-formation condition (L269) but a routed unit ends a move alone or with
one other routed unit (L295, HERALD D61). Never: a routed unit with one in good order or
disordered; a square with a unit not in square; artillery with cavalry (L273-L277). Markers and
commanders-in-chief do not count (L259).

The limits hold at the end of every move, and at every hex of a forced march (L287-L289,
[4.1] L217). All units of a hex face the same vertex, except that artillery and infantry need not
(L343-L345, HERALD D28); a routed unit has no facing that matters ([10.2] L720).

Stack order ([5.1] L283-L285): a unit entering a hex goes under those already there; artillery is
always on top. The state keeps a stack's order as the order of `JdgState.units` (top first):
`place_in_stack` moves the unit that arrived.
"""
from __future__ import annotations

from engine.jdg import tables
from engine.jdg.combat.results import name_of
from engine.jdg.state import JdgState, Unit, restacked

N = tables.RULE_NUMBERS


def cavalry_limit(sc, side: str) -> int:
    """Cavalry units of one formation per hex: 2 [5.1]; 3 for the French in Marengo 1800
    (section D 5.1, L948)."""
    if side == "french" and "marengo" in f"{sc.id} {sc.game}".lower():
        return N["stack_marengo_french_cavalry"][0]
    return N["stack_same_arm_and_formation"][0]


def _names(sc, units: list[Unit]) -> str:
    return ", ".join(name_of(sc, u) for u in units)


def stack_problem(sc, units: list[Unit]) -> str:
    """Why these units may not stand together [5.1], or "" when they may."""
    if len(units) <= 1:
        return ""
    who = _names(sc, units)
    if len({u.side for u in units}) > 1:
        return f"{who}: units of both sides in one hex"
    routed = [u for u in units if u.condition == "routed"]
    if routed and len(routed) < len(units):
        return f"{who}: a routed unit may not stand with a unit in good order or disordered"
    if routed:
        limit = N["stack_routed"][0]
        return "" if len(units) <= limit else f"{who}: at most {limit} routed units in a hex"
    squares = [u for u in units if u.square]
    if squares and len(squares) < len(units):
        return f"{who}: a unit in square may not stand with a unit not in square"
    arms = [u.arm for u in units]
    art, inf, cav = arms.count("artillery"), arms.count("infantry"), arms.count("cavalry")
    if art and cav:
        return f"{who}: artillery may not stand with cavalry"
    formations = {u.formation for u in units}
    if cav:
        if inf:
            return f"{who}: cavalry may stand only with cavalry of its formation"
        limit = cavalry_limit(sc, units[0].side)
        if len(formations) > 1:
            return f"{who}: two units of one arm must be of the same formation"
        if cav > limit:
            where = " (Marengo: three French cavalry, [D.5.1])" if limit == 3 else ""
            return f"{who}: at most {limit} cavalry units in a hex{where}"
        return ""
    if art and not inf:
        limit = N["stack_artillery"][0]
        return "" if art <= limit else f"{who}: at most {limit} artillery units in a hex"
    if art > 1:
        return (f"{who}: one artillery unit only may stand with infantry (one artillery "
                "with one or two infantry)")
    limit = (N["stack_infantry_with_one_artillery"] if art else N["stack_same_arm_and_formation"])[0]
    if inf > limit:
        return f"{who}: at most {limit} infantry units in a hex"
    if len({u.formation for u in units if u.arm == "infantry"}) > 1:
        return (f"{who}: two infantry units in a hex must be of the same formation "
                "(HERALD D28)")
    return ""


def facing_problem(sc, units: list[Unit]) -> str:
    """[6.1] L343-L345: one facing per hex, except artillery beside infantry (HERALD D28):
    the non-artillery units face alike, and so do the artillery units. Routed units are left
    out ([10.2] L720: no front)."""
    live = [u for u in units if u.condition != "routed"]
    for group in ([u for u in live if u.arm != "artillery"], [u for u in live if u.arm == "artillery"]):
        if len({u.facing for u in group}) > 1:
            return f"{_names(sc, group)} share a hex and must face the same vertex"
    return ""


def place_in_stack(st: JdgState, unit: Unit) -> None:
    """[5.1] L283-L285: the unit that arrived goes under all the others; artillery always on top.
    The order of `st.units` is the stacks' order (top first)."""
    st.units[unit.id] = st.units.pop(unit.id)
    for other in [u for u in st.units.values() if u.hex == unit.hex and u.alive]:
        if other.arm != "artillery":
            st.units[other.id] = st.units.pop(other.id)
    restacked()
