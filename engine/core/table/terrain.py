"""Terrain on the open table: the queries a ruleset asks of the scenario's terrain features.

`Terrain(features)` takes any objects with `.kind` (a string the caller chooses) and `.geometry`
(a shapely geometry: areas as polygons, roads and rivers as polygons buffered from their line or
as bare lines). Which kinds are roads, water, crossings, woods, hills and sight blockers are
arguments with plain English defaults; nothing here knows a ruleset. Features are kept in the
order given, and every query walks them in that order.
"""
from __future__ import annotations

from typing import Iterable

from shapely.geometry import Point
from shapely.ops import unary_union

from .geometry import CONTACT_TOL

EPS = 1e-9


def _overlaps(a, b) -> bool:
    """The two geometries share more than a boundary (interiors meet), or a line lies on an area."""
    return a.intersects(b) and not a.touches(b)


def _size(g) -> float:
    return g.area if g.area > 0 else g.length


def _point(p) -> Point:
    return p if isinstance(p, Point) else Point(float(p[0]), float(p[1]))


class Terrain:
    """The terrain features of a table and the queries on them."""

    def __init__(self, features: Iterable, *, road_kinds: tuple[str, ...] = ("road",),
                 water_kinds: tuple[str, ...] = ("river", "stream"),
                 crossing_kinds: tuple[str, ...] = ("ford", "bridge"),
                 wood_kinds: tuple[str, ...] = ("woods",),
                 hill_kinds: tuple[str, ...] = ("hill",),
                 blocking_kinds: tuple[str, ...] = ("woods", "hill", "town")):
        self.features = [f for f in features if f.geometry is not None and not f.geometry.is_empty]
        self.road_kinds = tuple(road_kinds)
        self.water_kinds = tuple(water_kinds)
        self.crossing_kinds = tuple(crossing_kinds)
        self.wood_kinds = tuple(wood_kinds)
        self.hill_kinds = tuple(hill_kinds)
        self.blocking_kinds = tuple(blocking_kinds)

    def of_kind(self, *kinds: str) -> list:
        """The features of these kinds, in the order given."""
        return [f for f in self.features if f.kind in kinds]

    def kinds_at(self, geom) -> set[str]:
        """The kinds of the features the geometry lies (at least partly) in: interiors meeting,
        not a bare touch of boundaries."""
        return {f.kind for f in self.features if _overlaps(f.geometry, geom)}

    def features_at(self, geom, kind: str | None = None) -> list:
        """The features (of `kind`, or all) the geometry lies at least partly in, in order."""
        return [f for f in self.features
                if (kind is None or f.kind == kind) and _overlaps(f.geometry, geom)]

    def entered(self, walk_swept, start_geom, kind: str) -> bool:
        """The move (its swept area) entered a feature of `kind` the base was not already in
        at the start (a base leaving one wood for another enters the second)."""
        for f in self.features:
            if f.kind == kind and _overlaps(f.geometry, walk_swept) and not _overlaps(f.geometry, start_geom):
                return True
        return False

    def on_road(self, geom, tol: float = CONTACT_TOL) -> bool:
        """The geometry's centre lies on a road (within `tol` of a road feature)."""
        c = geom.centroid
        return any(f.geometry.distance(c) <= tol for f in self.of_kind(*self.road_kinds))

    def crosses_water(self, path_geom) -> bool:
        """The path (the front-centre's track as a line, or any geometry) goes into a river or
        stream outside every ford and bridge: some part of it lies in the water with the
        crossings taken away (a bare touch of a watercourse's bank is not a crossing; for a
        watercourse given as a bare line, meeting the line is)."""
        crossings = [f.geometry for f in self.of_kind(*self.crossing_kinds)]
        dry = unary_union(crossings) if crossings else None
        for f in self.of_kind(*self.water_kinds):
            wet = path_geom.intersection(f.geometry)
            if wet.is_empty:
                continue
            if dry is not None:
                wet = wet.difference(dry)
                if wet.is_empty:
                    continue
            if _size(wet) > EPS:
                return True
            if f.geometry.area <= 0 and not f.geometry.touches(path_geom):
                return True          # a line crossed by the path at a point
        return False

    def sight_blockers(self, exclude_points: Iterable = (), kinds: tuple[str, ...] | None = None) -> list:
        """The areas that block sight (woods, hills, towns by default), in order, leaving out
        any that contains one of `exclude_points` ((x, y) or Points: e.g. the shooter's and the
        target's places, when a ruleset lets a base on a hill or at a wood's edge see out)."""
        kinds = self.blocking_kinds if kinds is None else tuple(kinds)
        points = [_point(p) for p in exclude_points]
        out = []
        for f in self.features:
            if f.kind not in kinds or f.geometry.area <= 0:
                continue
            if any(f.geometry.covers(p) for p in points):
                continue
            out.append(f.geometry)
        return out

    def height_at(self, point) -> int:
        """The level of the highest hill under the point (a feature's `.level`, 1 when it has
        none or 0), 0 off every hill."""
        p = _point(point)
        best = 0
        for f in self.of_kind(*self.hill_kinds):
            if f.geometry.covers(p):
                best = max(best, int(getattr(f, "level", 0) or 1))
        return best

    def in_woods(self, geom) -> bool:
        """The geometry lies at least partly in a wood."""
        return any(_overlaps(f.geometry, geom) for f in self.of_kind(*self.wood_kinds))

    def at_wood_edge(self, geom, depth: float = CONTACT_TOL) -> bool:
        """The geometry (a base, or its face edge) is in a wood and at its edge: it lies at
        least partly in a wood and comes within `depth` of that wood's boundary (a base
        sticking out of the wood is at its edge; one deeper inside than `depth` is not)."""
        for f in self.of_kind(*self.wood_kinds):
            if _overlaps(f.geometry, geom) and f.geometry.boundary.distance(geom) <= depth:
                return True
        return False
