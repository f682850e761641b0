"""Groups [4 B] (HERALD D69): "Un gruppo di unità è costituito da un numero qualsiasi di basette
dello stesso tipo (fanteria con fanteria, cavalleria con cavalleria, artiglieria con fanteria) in
contatto tra loro": one unbroken front with the sides touching (engine.core.table.moves
group_front), of one arm, or infantry with artillery, or (the Swedish army only) cavalry with
musketeers (tables.GROUP_MIXES), moving as a block; or a column, the bases one behind the other,
following the head's path (`column_order`). No forced march for a group [4 D] (move.prepare).
"""
from __future__ import annotations

import math

from engine.core.table import moves as tmoves
from engine.core.table.geometry import CONTACT_TOL, angle_between, forward

from engine.lion import tables
from engine.lion.movement.common import arm_of, fp_of, pose_of, troop_key


def group_problem(sc, st, side: str, units: list) -> tuple[str, str]:
    """(mode, problem): "line" or "column" and "" when the units form a group [4 B] (HERALD D69)."""
    arms = set()
    for u in units:
        a = arm_of(u)
        arms.add("musketeers" if a == "infantry" and troop_key(u) in ("musketeers", "detached_musketeers")
                 and any(arm_of(x) == "cavalry" for x in units) else a)
    if len(arms) > 1:
        mix = frozenset(arms)
        army = ""
        if mix in tables.GROUP_MIXES:
            army = tables.GROUP_MIXES[mix]
            if army and not all(army in nation_of(sc, side, u) for u in units):
                return "", (f"cavalry and musketeers form one group only in the Swedish army "
                            "(LdN [4 B])")
        else:
            return "", (f"a group is of one arm, or infantry with artillery, or (Swedish) cavalry "
                        f"with musketeers, not {' and '.join(sorted(arms))} (LdN [4 B])")
    members = [(pose_of(u), fp_of(u)) for u in units]
    why = tmoves.group_front(members)
    if why is None:
        return "line", ""
    if column_order(units) is not None:
        return "column", ""
    return "", f"the units do not form one unbroken front with their sides touching, nor a column: {why} (LdN [4 B])"


def nation_of(sc, side: str, u) -> str:
    """A unit's nation: its own in the battle (Saxons beside the Swedes), else its army's."""
    try:
        return (sc.nation_of(sc.unit(u.id)) or "").lower()
    except Exception:
        pass
    try:
        return (sc.armies[side].nation or "").lower()
    except Exception:
        return side


def column_order(units: list) -> list | None:
    """The units head first when they stand one behind the other, same facing, each front edge
    against the rear edge of the one before it; else None (HERALD D69)."""
    if len(units) < 2:
        return None
    f0 = units[0].facing
    fx, fy = forward(f0)
    if any(abs(angle_between(f0, u.facing)) > 0.5 for u in units):
        return None
    order = sorted(units, key=lambda u: -(u.x * fx + u.y * fy))
    for a, b in zip(order, order[1:]):
        rx, ry = a.x - fx * fp_of(a).depth, a.y - fy * fp_of(a).depth
        if math.hypot(b.x - rx, b.y - ry) > CONTACT_TOL + 0.01:
            return None
    return order
