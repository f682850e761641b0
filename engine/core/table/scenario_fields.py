"""Reading an open-table battle file (Lion of the North, the Italian Wars): the fields and checks
the two rulesets share, each ruleset keeping its own fields, limits and citations.

- `TableReader`: engine.core.scenario_files.FieldReader plus what a table battle reads: `[x, y]`
  point lists, a place (`x`, `y`, `facing`, rounded to 2 decimals as the states store them), a
  shape on the table, a choice among names; messages in the ruleset's measure (`unit`: cm, UDM).
- `open_battle_file`: the TOML read, its top-level keys checked, its id and the `where` prefix.
- `table_size`, `deployment_points`, `need_each_side`, `need_two_home_edges`: the `[table]` and
  the parts of `[[armies]]` both rulesets read alike.
- `FeatureHead`/`feature_head`, `feature_points`, `feature_width`, `check_outline`, `check_crossings`: the common
  part of a `[[features]]` entry; `OutlinedFeature`: a feature's line and area.
- `parse_camps`, `parse_extras` (`[[special_rules]]`, `[history]`, `[provenance]`), `CampSpec`,
  `SpecialRule`; `TableScenario`: the scenario methods both rulesets' Scenario classes share.
- `overlapping_pairs`, `uncrossed_area`: where bases overlap, and how much of a shape stands on
  water off its fords and bridges.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from shapely.geometry import LineString, Polygon, box
from shapely.validation import explain_validity

from engine.core.scenario_files import NUMBER, FieldReader, close_match, read_toml

SPECIAL_KEYS = {"id", "text"}
HISTORY_KEYS = {"text", "result", "sources"}
PROVENANCE_KEYS = {"from_text", "herald_completion", "sources", "note"}
CAMP_KEYS = {"side", "x", "y", "facing", "name"}
EDGES = ("south", "north")
EDGE_TOL = 0.005            # a base flush with the table's edge is on the table (cm or UDM)


class TableReader(FieldReader):
    """Field readers for an open-table battle: messages name the place (and line) of what is
    wrong, in the ruleset's measure `unit`; `spans` introduces a shape's extent when it lies
    off the table."""
    unit = "cm"
    spans = "it spans"

    def one_of(self, value: Any, allowed, where: str, path: str, what: str = "") -> str:
        if value not in allowed:
            match = close_match(str(value), [a for a in allowed if a])
            hint = f" (did you mean '{match}'?)" if match else ""
            kind = f"is not a known {what}" if what else "is not allowed"
            shown = ", ".join(repr(a) if a == "" else a for a in sorted(allowed))
            raise self.fail(where, f"{value!r} {kind}: one of {shown}{hint}", path)
        return value

    def points(self, value: Any, where: str, path: str, minimum: int) -> tuple[tuple[float, float], ...]:
        if not isinstance(value, list) or len(value) < minimum:
            raise self.fail(where, f"expected a list of at least {minimum} [x, y] points", path)
        out = []
        for i, p in enumerate(value):
            if (not isinstance(p, list) or len(p) != 2
                    or not all(isinstance(c, NUMBER) and not isinstance(c, bool) for c in p)):
                raise self.fail(where, f"point {i + 1} is {p!r}, not [x, y] in {self.unit}", path)
            out.append((float(p[0]), float(p[1])))
        return tuple(out)

    def facing(self, d: dict, where: str, path: str) -> float:
        f = self.need(d, "facing", NUMBER, where, path)
        if not 0 <= f < 360:
            raise self.fail(f"{where}.facing", f"{f:g} is not a compass bearing 0 <= facing < 360 "
                            "(0 north, 90 east, 180 south, 270 west)", f"{path}.facing")
        return round(f, 2)

    def place(self, d: dict, where: str, path: str) -> tuple[float, float, float]:
        """`x`, `y` and `facing`, rounded to 2 decimals as the states store them."""
        x = round(self.need(d, "x", NUMBER, where, path), 2)
        y = round(self.need(d, "y", NUMBER, where, path), 2)
        return x, y, self.facing(d, where, path)

    def on_table(self, poly, width: float, height: float, what: str, where: str, path: str) -> None:
        """Refuse a shape lying more than EDGE_TOL off the width x height table."""
        minx, miny, maxx, maxy = poly.bounds
        out = max(-minx, -miny, maxx - width, maxy - height)
        if out > EDGE_TOL:
            u = self.unit
            raise self.fail(where, f"{what} lies {out:.2f} {u} off the {width:g} x {height:g} {u} "
                            f"table ({self.spans} x {minx:.2f}..{maxx:.2f}, "
                            f"y {miny:.2f}..{maxy:.2f})", path)


def open_battle_file(text: str, source: str, max_bytes: int, error: type[Exception],
                     reader: type[TableReader], top_keys: Iterable[str]
                     ) -> tuple[dict, TableReader, str, str]:
    """The file read as TOML, its top-level keys checked: (data, reader, id, where), `where`
    being "<source> [<id>]" for the messages."""
    data = read_toml(text, source, max_bytes, error)
    r = reader(text, source, error)
    top = f"{source} [{data['id']}]" if isinstance(data.get("id"), str) else source
    r.keys(data, top_keys, top, "")
    sid = r.ident(data.get("id"), f"{source}.id", "id")
    return data, r, sid, f"{source} [{sid}]"


def table_size(r: TableReader, data: dict, where: str, default: tuple[float, float],
               lo: float, hi: float, note: str = "") -> tuple[float, float]:
    """`[table]` width and height (`default` when absent), each lo..hi (`note` ends the refusal)."""
    t = r.opt(data, "table", dict, where, "table", {})
    r.keys(t, {"width", "height"}, f"{where} table", "table")
    w = r.opt(t, "width", NUMBER, f"{where} table", "table", default[0])
    h = r.opt(t, "height", NUMBER, f"{where} table", "table", default[1])
    if not (lo <= w <= hi and lo <= h <= hi):
        raise r.fail(f"{where} table", f"{w:g} x {h:g} {r.unit} is not a table "
                     f"({lo:g}-{hi:g} {r.unit} a side{note})", "table")
    return w, h


def army_side(r: TableReader, a: dict, sides, out: dict, w: str, path: str) -> str:
    """An `[[armies]]` entry's side: one of `sides`, not given twice."""
    side = r.one_of(r.need(a, "side", str, w, path), sides, f"{w}.side", f"{path}.side", "side")
    if side in out:
        raise r.fail(f"{w}.side", f"the army '{side}' is given twice", f"{path}.side")
    return side


def deployment_points(r: TableReader, a: dict, w: str, path: str, width: float, height: float
                      ) -> tuple[tuple[float, float], ...]:
    """An army's `deployment` polygon (() when absent): a simple polygon on the table."""
    if "deployment" not in a:
        return ()
    dep = r.points(a["deployment"], f"{w}.deployment", f"{path}.deployment", 3)
    poly = Polygon(dep)
    if not poly.is_valid or poly.area <= 0:
        raise r.fail(f"{w}.deployment", f"not a simple polygon ({explain_validity(poly)})",
                     f"{path}.deployment")
    r.on_table(poly, width, height, "the deployment zone", f"{w}.deployment", f"{path}.deployment")
    return dep


def need_each_side(r: TableReader, armies: dict, where: str, sides) -> None:
    if set(armies) != set(sides):
        missing = ", ".join(s for s in sides if s not in armies)
        raise r.fail(f"{where} armies", f"an army for each side is needed ({', '.join(sides)}); "
                     f"missing: {missing}", "armies")


def need_two_home_edges(r: TableReader, armies: dict, where: str) -> None:
    if len({a.home_edge for a in armies.values()}) != 2:
        raise r.fail(f"{where} armies", "the two armies need different home edges (south, north)",
                     "armies")


# -- terrain features ----------------------------------------------------------------------------

class FeatureHead(NamedTuple):
    where: str          # "<file> [id] features[i] (fid)"
    path: str           # "features[i]"
    id: str
    kind: str


def feature_head(r: TableReader, f: dict, w: str, path: str, kinds, seen: set[str], what: str
                 ) -> FeatureHead:
    """A `[[features]]` entry's id (unique among `seen`) and its kind (one of `kinds`, named
    `what` in a refusal)."""
    fid = r.ident(f.get("id"), f"{w}.id", f"{path}.id")
    if fid in seen:
        raise r.fail(f"{w}.id", f"the feature id '{fid}' is used twice", f"{path}.id")
    seen.add(fid)
    kind = r.one_of(r.need(f, "kind", str, w, path), kinds, f"{w}.kind", f"{path}.kind", what)
    return FeatureHead(w, path, fid, kind)


def feature_points(r: TableReader, f: dict, head: FeatureHead, area: bool
                   ) -> tuple[tuple[float, float], ...]:
    """The outline of an area (3+ points, no width) or the course of a line (2+ points)."""
    w, path = head.where, head.path
    pts = r.points(f.get("points"), f"{w}.points", f"{path}.points", 3 if area else 2)
    if area and "width" in f:
        raise r.fail(f"{w}.width", f"an area ({head.kind}) has no width: its points are its outline",
                     f"{path}.width")
    return pts


def feature_width(r: TableReader, f: dict, head: FeatureHead, area: bool, default: float,
                  lo: float, hi: float) -> float:
    """A line's `width` (`default` when absent), lo..hi; 0 for an area."""
    if area:
        return 0.0
    wid = float(r.opt(f, "width", NUMBER, head.where, head.path, default))
    if not lo <= wid <= hi:
        raise r.fail(f"{head.where}.width", f"{wid:g} {r.unit} is not a width {lo:g}..{hi:g} "
                     f"{r.unit}", f"{head.path}.width")
    return wid


def check_outline(r: TableReader, head: FeatureHead, geom, area: bool, pts, width: float,
                  height: float) -> None:
    """An area's outline is a simple polygon; every point (`pts`) lies on the table."""
    w, path = head.where, head.path
    if area and (not geom.is_valid or geom.area <= 0):
        raise r.fail(f"{w}.points", f"the outline is not a simple polygon "
                     f"({explain_validity(geom)})", f"{path}.points")
    bad = next((p for p in pts if not (-EDGE_TOL <= p[0] <= width + EDGE_TOL
                                       and -EDGE_TOL <= p[1] <= height + EDGE_TOL)), None)
    if bad is not None:
        raise r.fail(f"{w}.points", f"the point {list(bad)} is off the {width:g} x {height:g} "
                     f"{r.unit} table", f"{path}.points")


def check_crossings(r: TableReader, features: list, where: str, crossing_kinds, waters: list,
                    rule: str) -> None:
    """Each ford or bridge crosses one of the `waters` (lines): else "a <kind> must <rule>"."""
    for i, f in enumerate(features):
        if f.kind in crossing_kinds and not any(f.line.intersects(wt.line) for wt in waters):
            raise r.fail(f"{where} features[{i}] ({f.id})", f"a {f.kind} must {rule}",
                         f"features[{i}]")


class OutlinedFeature:
    """A terrain feature's shapes for a frozen dataclass with `points`, `width` and `is_area`:
    an area is the polygon of its points, a line its course buffered by `width` / 2."""

    @cached_property
    def line(self) -> LineString | None:
        return None if self.is_area else LineString(self.points)

    @cached_property
    def geometry(self) -> Polygon:
        if self.is_area:
            return Polygon(self.points)
        return LineString(self.points).buffer(self.width / 2, cap_style="flat")


def uncrossed_area(poly, geom, crossings: list) -> float:
    """The area of `poly` on `geom` not covered by a bridge or ford (`crossings`)."""
    part = poly.intersection(geom)
    for c in crossings:
        part = part.difference(c)
    return part.area


def overlapping_pairs(polys: list, tol: float) -> Iterator[tuple[int, int, float]]:
    """(a, b, area) for each pair of `polys` (a < b) overlapping by more than `tol`."""
    for a in range(len(polys)):
        for b in range(a + 1, len(polys)):
            if not polys[a].intersects(polys[b]):
                continue
            area = polys[a].intersection(polys[b]).area
            if area > tol:
                yield a, b, area


# -- camps, special rules, history ---------------------------------------------------------------

@dataclass(frozen=True)
class CampSpec:
    side: str
    x: float
    y: float
    facing: float
    name: str = ""


@dataclass(frozen=True)
class SpecialRule:
    id: str
    text: str


def parse_camps(r: TableReader, data: dict, where: str, armies: dict, twice: str, missing: str
                ) -> tuple[CampSpec, ...]:
    """`[[camps]]`: one for each army (`twice` and `missing` end the refusals with the rule)."""
    out: list[CampSpec] = []
    for i, c, w, path in r.entries(data, "camps", where, CAMP_KEYS, by_id=False):
        side = r.one_of(r.need(c, "side", str, w, path), list(armies), f"{w}.side", f"{path}.side",
                        "side")
        if any(o.side == side for o in out):
            raise r.fail(f"{w}.side", f"the {side} army has a camp already {twice}", f"{path}.side")
        x, y, facing = r.place(c, w, path)
        out.append(CampSpec(side, x, y, facing, r.opt(c, "name", str, w, path, "")))
    for side in armies:
        if not any(c.side == side for c in out):
            raise r.fail(f"{where} camps", f"the {side} army has no camp: {missing}", "camps")
    return tuple(out)


def parse_extras(r: TableReader, data: dict, where: str, special_rules: dict[str, str]
                 ) -> tuple[tuple[SpecialRule, ...], dict, dict]:
    """(`[[special_rules]]` (ids of `special_rules`), `[history]`, `[provenance]`)."""
    specials: list[SpecialRule] = []
    for i, s, w, path in r.entries(data, "special_rules", where, SPECIAL_KEYS, required=False, by_id=False):
        rid = r.one_of(r.need(s, "id", str, w, path), list(special_rules), f"{w}.id", f"{path}.id",
                       "special rule")
        specials.append(SpecialRule(rid, r.need(s, "text", str, w, path).strip()))
    hist = r.opt(data, "history", dict, where, "history", {})
    r.keys(hist, HISTORY_KEYS, f"{where} history", "history")
    prov = r.opt(data, "provenance", dict, where, "provenance", {})
    r.keys(prov, PROVENANCE_KEYS, f"{where} provenance", "provenance")
    for k in ("from_text", "herald_completion", "sources"):
        r.opt(prov, k, list, f"{where} provenance", "provenance", [])
    return tuple(specials), dict(hist), dict(prov)


class TableScenario:
    """Methods of a parsed open-table battle (a frozen dataclass with `width`, `height`,
    `armies` (each with `home_edge`), `features` and `special_rules`)."""

    def has_rule(self, rule_id: str) -> bool:
        return any(r.id == rule_id for r in self.special_rules)

    def features_of(self, *kinds: str) -> tuple:
        return tuple(f for f in self.features if f.kind in kinds)

    def feature(self, feature_id: str):
        return next(f for f in self.features if f.id == feature_id)

    def home_y(self, side: str) -> float:
        """The y of a side's home edge."""
        return 0.0 if self.armies[side].home_edge == "south" else self.height

    def home_strip(self, side: str, depth: float) -> Polygon:
        """The army's `deployment` polygon, else the strip `depth` deep along its home edge."""
        a = self.armies[side]
        if a.deployment:
            return Polygon(a.deployment)
        return box(0, 0, self.width, depth) if a.home_edge == "south" else \
            box(0, self.height - depth, self.width, self.height)
