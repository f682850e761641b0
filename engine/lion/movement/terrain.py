"""The ground of a move [5 B], [6 A]: the scenario's terrain as the movement reads it (`Ground`),
who may enter which terrain, the dice lost by a unit that starts in it, and the road that doubles a
move.

- [5 B] A base starting and ending its move on a road doubles its move (`road_check`: refused
  when it leaves the road after more than the plain move). A base entering woods, a marsh or a
  ford stops (plan.plan finds the entry, HERALD D62); a unit starting its move in woods, marsh or
  a town loses 1d6 cm (infantry, generals) or 2d6 (cavalry), at a ford 1d6 (`terrain_dice`).
  Marshes are for infantry and generals; towns for musketeers, militia and dismounted dragoons,
  crossed by others only along a road (HERALD D63). Rivers and streams are crossed only at
  bridges and fords (`Ground.water`).
- [6 A] Guns never move into woods or marsh but along a road (`may_enter`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from shapely.geometry import Point, box
from shapely.ops import unary_union

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.table.geometry import CONTACT_TOL

from engine.lion import checks, tables
from engine.lion.movement.common import FINE, arm_of, fmt, is_general, named, troop_of

if TYPE_CHECKING:
    from engine.lion.movement.move import Order
    from engine.lion.movement.plan import Plan


STOP_KINDS = ("woods", "marsh", "town", "ford")


# == the ground [5 B] ==============================================================================

class Ground:
    """The scenario's terrain as the movement reads it: areas that stop a move (woods, marsh,
    towns, fords), roads, and the water crossed only at bridges and fords [5 B]."""

    def __init__(self, sc):
        feats = sorted(getattr(sc, "features", ()) or (), key=lambda f: f.id)
        road = [f.geometry for f in feats if f.kind == "road"]
        self.road = unary_union(road) if road else None
        self.areas: list[tuple[str, str, object]] = []      # (id, kind, region off the roads)
        for f in feats:
            if f.kind in STOP_KINDS:
                g = f.geometry
                if self.road is not None and f.kind != "ford":
                    g = g.difference(self.road)
                self.areas.append((f.id, f.kind, g))
        water = [f.geometry for f in feats if f.kind in tables.IMPASSABLE_WATER]
        crossings = [f.geometry for f in feats if f.kind in ("ford", "bridge")]
        self.water = None
        if water:
            w = unary_union(water)
            if crossings:
                w = w.difference(unary_union(crossings))
            self.water = None if w.is_empty else w
        self.width = float(getattr(sc, "width", 180.0) or 180.0)
        self.height = float(getattr(sc, "height", 120.0) or 120.0)

    def on_road(self, x: float, y: float) -> bool:
        return self.road is not None and self.road.distance(Point(x, y)) <= CONTACT_TOL

    def areas_at(self, x: float, y: float) -> list[tuple[str, str]]:
        """(id, kind) of the stopping areas the point is in, off the roads."""
        p = Point(x, y)
        return [(fid, kind) for fid, kind, g in self.areas if g.distance(p) <= FINE]

    def table(self):
        return box(0.0, 0.0, self.width, self.height)


_GROUNDS: dict[int, tuple] = {}


def ground_of(sc) -> Ground:
    """The scenario's Ground, built once (a scenario and its features are frozen): kept with
    the scenario itself, so its id is not reused while remembered. Read it, never change it."""
    got = _GROUNDS.get(id(sc))
    if got is not None and got[0] is sc:
        return got[1]
    if len(_GROUNDS) >= 16:
        _GROUNDS.clear()
    ground = Ground(sc)
    _GROUNDS[id(sc)] = (sc, ground)
    return ground


def may_enter(obj, kind: str) -> str:
    """Why `obj` may not enter an area of `kind` off a road ("" when it may) [5 B], [6 A]."""
    if is_general(obj):
        return ""
    t = troop_of(obj)
    if t.arm == "artillery" and kind in tables.NO_ARTILLERY:
        return f"artillery never moves into {kind} but along a road (LdN [6 A])"
    if kind == "marsh" and not t.enters_marsh:
        return "only infantry and generals cross marshes (LdN [5 B])"
    if kind == "town" and not t.occupies_towns:
        return ("only musketeers, militia and dismounted dragoons enter a town; others pass only "
                "along a road (LdN [5 B], HERALD D63)")
    return ""


def in_kind(ground: Ground, obj) -> str:
    """The stopping terrain a base stands in at the start of its move: the one it stopped in
    [5 B] (`stopped_in`), or the one its place is in, off a road."""
    stopped = getattr(obj, "stopped_in", "")
    if stopped:
        return stopped
    here = ground.areas_at(obj.x, obj.y)
    return here[0][1] if here else ""


# == the terrain's dice and the road [5 B] =========================================================

def terrain_dice(sc, st, obj, stream: DiceStream, ground: Ground, side: str) -> tuple[int, list, str]:
    """[5 B] a unit that starts its move in woods, marsh or a town subtracts 1d6 (infantry,
    general) or 2d6 (cavalry) from its move; at a ford 1d6. Returns (cm, dice, why)."""
    kind = in_kind(ground, obj)
    if not kind or kind not in tables.TERRAIN_MOVE:
        return 0, [], ""
    if ground.on_road(obj.x, obj.y) and kind != "ford":
        return 0, [], ""
    n = tables.TERRAIN_MOVE[kind]["dice"].get(arm_of(obj), 0)
    if not n:
        return 0, [], ""
    total, rolls = 0, []
    for k in range(n):
        v, dr = checks.roll(stream, 6, f"{named(sc, obj.id)} in {kind}: d6 {k + 1} of {n} off its move")
        total += v
        rolls.append(dr)
    return total, rolls, f"in {kind}: {n}d6 = {total} cm off the move (LdN [5 B])"


def road_check(sc, order: Order, p: Plan, ground: Ground) -> None:
    """[5 B] the road doubles the move only when the base starts and ends on it."""
    for i, m in enumerate(order.movers):
        if ground.on_road(m.x, m.y) and not ground.on_road(p.ends[i].x, p.ends[i].y):
            plain = order.allowance / tables.ROAD_FACTOR
            if p.used > plain + FINE:
                raise Illegal(f"the move is {fmt(p.used)} cm, at most {fmt(plain)} off the road: the road "
                              "doubles the move only when the base starts and ends on it", "LdN [5 B]")
