"""Italian Wars battle files: the terrain (`[[features]]`, [Terreno] L172-211) and what stands
on it: a feature's kind, category, shape and a hill's crest; the ground a company or camp may be
placed on (engine/italianwars/scenario.py reads the rest of the file)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from shapely.geometry import LineString

from engine.core.table.scenario_fields import (OutlinedFeature, TableReader, check_crossings,
                                               check_outline, feature_head, feature_points,
                                               feature_width, uncrossed_area)
from engine.italianwars import tables

FEATURE_KEYS = {"id", "kind", "category", "name", "points", "width", "level", "crest", "note"}
OVERLAP_TOL = 0.0001        # UDM^2: rectangles that only touch do not overlap


@dataclass(frozen=True)
class Feature(OutlinedFeature):
    """A terrain feature [Terreno] L172-211: an area, a line buffered by `width` / 2, or a
    crossing (ford, bridge) across a watercourse; its `category` (open / broken / closed /
    impassable) one the text gives its kind (tables.TERRAIN_KINDS, HERALD D26)."""
    id: str
    kind: str
    category: str
    name: str
    points: tuple[tuple[float, float], ...]
    width: float = 0.0
    level: int = 0
    crest: tuple[tuple[float, float], ...] = ()

    @property
    def is_area(self) -> bool:
        return tables.TERRAIN_KINDS[self.kind].shape == "area"

    @cached_property
    def crest_line(self) -> LineString | None:
        """A hill's crest [Creste di colline] L208-209: "una cresta che corre attraverso il loro
        centro e parallele al loro lato più lungo od attraverso il loro diametro maggiore": the
        file's `crest`, else the long axis of the hill's smallest enclosing rectangle through its
        centre, clipped to the hill."""
        if self.kind != "hill":
            return None
        if self.crest:
            return LineString(self.crest)
        poly = self.geometry
        rect = poly.minimum_rotated_rectangle
        pts = list(rect.exterior.coords)[:4]
        sides = [(pts[i], pts[(i + 1) % 4]) for i in range(4)]
        (a, b) = max(sides, key=lambda s: LineString(s).length)
        c = poly.centroid
        dx, dy = b[0] - a[0], b[1] - a[1]
        far = LineString([(c.x - dx, c.y - dy), (c.x + dx, c.y + dy)])
        clipped = far.intersection(poly)
        if clipped.geom_type == "LineString" and not clipped.is_empty:
            return clipped
        return LineString(list(far.coords))


def parse_features(r: TableReader, data: dict, where: str, width: float, height: float
                   ) -> tuple[Feature, ...]:
    """`[[features]]`: each a kind of tables.TERRAIN_KINDS in a category the text gives it
    [Terreno] L172-211 (HERALD D26); hills with a level 1..3 and maybe a crest [Creste di
    colline] L208; fords and bridges across a watercourse (L179, L183)."""
    out: list[Feature] = []
    seen: set[str] = set()
    for _, f, w, path in r.entries(data, "features", where, FEATURE_KEYS, required=False):
        head = feature_head(r, f, w, path, tables.TERRAIN_KINDS, seen, "terrain kind")
        kind = head.kind
        tk = tables.TERRAIN_KINDS[kind]
        category = tk.categories[0]
        if "category" in f:
            cat = r.need(f, "category", str, w, path)
            if cat not in tables.CATEGORIES:
                r.one_of(cat, tables.CATEGORIES, f"{w}.category", f"{path}.category", "category")
            if cat not in tk.categories:
                raise r.fail(f"{w}.category", f"a {kind} is {' or '.join(tk.categories)} ground in "
                             f"the text ({tk.line}), not {cat} (Terreno)", f"{path}.category")
            category = cat
        area = tk.shape == "area"
        pts = feature_points(r, f, head, area)
        wid = feature_width(r, f, head, area, tk.width, 0.1, 6)
        level = 0
        if "level" in f or "crest" in f:
            key = "level" if "level" in f else "crest"
            if kind != "hill":
                raise r.fail(f"{w}.{key}", f"only hills have a {key}", f"{path}.{key}")
        if kind == "hill":
            level = r.opt(f, "level", int, w, path, 1)
            if not 1 <= level <= 3:
                raise r.fail(f"{w}.level", f"{level} is not a hill level 1..3", f"{path}.level")
        crest: tuple = ()
        if "crest" in f:
            crest = r.points(f["crest"], f"{w}.crest", f"{path}.crest", 2)
            if len(crest) != 2:
                raise r.fail(f"{w}.crest", "a crest is a line of two points", f"{path}.crest")
        feat = Feature(head.id, kind, category, r.opt(f, "name", str, w, path, ""), pts, wid,
                       level, crest)
        check_outline(r, head, feat.geometry, area, pts + crest, width, height)
        out.append(feat)
    waters = [f for f in out if f.kind in tables.WATER_KINDS and not f.is_area]
    check_crossings(r, out, where, tables.CROSSING_KINDS, waters,
                    "cross a river, canal or stream (Terreno L179, L183)")
    return tuple(out)


def ground_problem(poly, features: tuple[Feature, ...]) -> str | None:
    """Why nothing may stand on `poly` (impassable ground off its bridges: Terreno impassabile
    L199-205, "non possono transitare né essere schierate"), else None."""
    crossings = [f.geometry for f in features if f.kind in tables.CROSSING_KINDS]
    for f in features:
        if f.category != "impassable" or not poly.intersects(f.geometry):
            continue
        wet = uncrossed_area(poly, f.geometry, crossings)
        if wet > OVERLAP_TOL:
            name = f"{f.kind} {f.id}" + (f" ({f.name})" if f.name else "")
            return (f"stands {wet:.2f} sq UDM on the {name}, impassable ground: troops may not "
                    "cross it nor be deployed on it (Terreno impassabile L199)")
    return None


def categories_at(poly, features: tuple[Feature, ...]) -> set[str]:
    """The categories of the features `poly` overlaps by more than a touch."""
    out = set()
    for f in features:
        if poly.intersects(f.geometry) and poly.intersection(f.geometry).area > OVERLAP_TOL:
            out.add(f.category)
    return out


def in_open_ground(poly, features: tuple[Feature, ...]) -> bool:
    """Wholly on open ground: it overlaps no broken, closed or impassable feature (roads,
    bridges, gentle hills and cornfields are open) [Terreno aperto] L174-180."""
    return categories_at(poly, features) <= {"open"}
