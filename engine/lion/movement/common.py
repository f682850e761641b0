"""What every movement module reads [4]-[6]: a base's troop row, arm, pose, footprint, polygon
and owner (a captured gun fights for its captor [9 B]), names and numbers for the messages, and
the tolerances of a move's path (HERALD D3, D62).

- EPS_AREA: the cm2 of overlap that counts as passing through (or ending on) a base [5 C];
- COARSE, FINE: a move's path is sampled every COARSE cm, and a touch [8 A] or an entry into
  terrain [5 B] is found to FINE cm (plan.first_event).
"""
from __future__ import annotations

from engine.core.table.geometry import Footprint, Pose, base_polygon, rnd

from engine.lion import checks, rules, tables


SECTION = "LdN [5]"
EPS_AREA = 0.01          # cm2 of overlap that counts as passing through (or ending on) a base
COARSE = 0.5             # cm of a move between two samples of its path
FINE = 0.005             # cm: where a touch or an entry is found


# == small readers =================================================================================

def troop_key(u) -> str:
    """The troop chart's row of a unit: dragoons on foot are "dismounted_dragoons" [12 C]."""
    return tables.effective_type(u.type, u.mounted)


def troop_of(u) -> tables.TroopType:
    if hasattr(u, "role"):
        return tables.TROOPS["general"]
    return tables.TROOPS[troop_key(u)]


def arm_of(u) -> str:
    return troop_of(u).arm


def pose_of(obj) -> Pose:
    return Pose(obj.x, obj.y, obj.facing)


def fp_of(obj) -> Footprint:
    return checks.footprint(obj)


def poly_of(obj):
    return base_polygon(pose_of(obj), fp_of(obj))


def owner_of(u) -> str:
    """The side a unit fights for: a captured gun works for its captor [9 B]."""
    return getattr(u, "captured_by", "") or u.side


def named(sc, uid: str) -> str:
    return rules.named(sc, uid)


def fmt(v: float) -> str:
    """14.2 -> "14.2", 10.0 -> "10"."""
    return f"{rnd(v):g}"


def is_general(obj) -> bool:
    return hasattr(obj, "role")
