"""Lion of the North battles as data files (TOML), and the validator that also checks a club's
upload (issue 15).

The text (rules/lion-of-the-north.it.txt) has no table size, deployment, terrain set-up, army lists
or scenarios (digest §7, §9.1): a battle file carries them as Herald completion, and its
`[provenance]` block says what is history and what is Herald's. The table is 180 x 120 cm by
default (HERALD D1); a side deploys within 30 cm of its home edge unless its army gives a
`deployment` polygon (HERALD D24).

Geometry (engine/lion/state.py): centimetres, origin at the south-west corner, x east, y north; a
base's place (`x`, `y`) is the centre of its FRONT edge, `facing` a compass bearing in degrees
(0 = north, 90 = east), the rectangle (tables.TROOPS[type].footprint, HERALD D2) behind it.

Schema (one file per battle; see `scenarios/*.toml`):

    id, title, date, description, turn_limit (default 12, HERALD D25)
    [table]        width = 180, height = 120
    [[armies]]     side ("swedish" | "imperial"), name, nation (armies.toml: swedish, imperial,
                   spanish, saxon), discipline (trained | regular | irregular [4 E]), player
                   ("A" | "B" [3]), home_edge ("south" | "north"), deployment? = [[x, y], ...]
    [[features]]   id, kind, name?, points = [[x, y], ...], width? (line kinds), level? (hills)
                   kinds: woods, marsh, town, hill (areas, 3+ points); road, river, stream, wall,
                   defences (lines, buffered by width / 2); ford, bridge (short lines across a
                   river or stream)
    [[units]]      id, side, name, type (tables.TROOPS), x, y, facing, quality? ("" | elite |
                   untrained), mounted? (dragoons [12 C]), deployed? (light and medium guns [6 A]),
                   discipline? (a part of the army with another level, [4 E] L60), nation?,
                   command? (the general whose command it is: the large-army rule [4 E]),
                   arrives? ("" on the table; "turn N": enters at the start of turn N),
                   group? (a label: the side's units sharing it start as one group, an unbroken
                   front of types that may move together [4 B]), note?
    [[generals]]   id, side, name, role (cinc | sub | wing), x, y, facing, discipline?, note?
    [[camps]]      side, x, y, facing, name?
    [[special_rules]]  id, text (known ids: SPECIAL_RULES)
    [history]      text, result, sources?
    [provenance]   from_text = [...], herald_completion = [...], sources = [...], note

Every table refuses keys it does not know, naming the key, the closest allowed key and the line.
Units and generals must lie on the table, inside their army's deployment zone (unless arriving
later), overlap no other base, and stand where they may stand ([5 B], [6 A]).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from shapely.geometry import Polygon

from engine.core.scenario_files import bundled_ids, read_bundled
from engine.core.table.geometry import Pose, base_polygon
from engine.core.table.moves import group_front
from engine.core.table.scenario_fields import (EDGE_TOL, EDGES, CampSpec, OutlinedFeature,
                                               SpecialRule, TableReader, TableScenario, army_side,
                                               check_crossings, check_outline, deployment_points,
                                               feature_head, feature_points, feature_width,
                                               need_each_side, need_two_home_edges,
                                               open_battle_file, overlapping_pairs, parse_camps,
                                               parse_extras, table_size, uncrossed_area)
from engine.lion import tables
from engine.lion.state import SIDES

SCENARIO_DIR = Path(__file__).parent / "scenarios"
MAX_SCENARIO_BYTES = 192 * 1024

AREA_KINDS = ("woods", "marsh", "town", "hill")
LINE_KINDS = ("road", "river", "stream", "wall", "defences")
CROSSING_KINDS = ("ford", "bridge")
FEATURE_KINDS = AREA_KINDS + LINE_KINDS + CROSSING_KINDS
DEFAULT_WIDTH = {"road": 3.0, "river": 4.0, "stream": 2.0, "wall": 1.0, "defences": 1.0,
                 "ford": 5.0, "bridge": 5.0}
NATIONS = ("swedish", "imperial", "spanish", "saxon")
ROLES = tables.GENERAL_ROLES
PLAYERS = ("A", "B")
# Special rules a battle may name; the engine reads them by id.
SPECIAL_RULES = {
    "fog": "Limited visibility [15] 1 is in force from the start of turn 1 (its start-of-turn "
           "test ends it as usual).",
    "note": "A remark for the players, with no effect on the rules.",
}

TOP_KEYS = {"id", "title", "date", "description", "turn_limit", "table", "armies", "features",
            "units", "generals", "camps", "special_rules", "history", "provenance"}
ARMY_KEYS = {"side", "name", "nation", "discipline", "player", "home_edge", "deployment", "note"}
FEATURE_KEYS = {"id", "kind", "name", "points", "width", "level", "note"}
UNIT_KEYS = {"id", "side", "name", "type", "x", "y", "facing", "quality", "mounted", "deployed",
             "discipline", "nation", "command", "arrives", "group", "note", "detached_from"}
GENERAL_KEYS = {"id", "side", "name", "role", "x", "y", "facing", "discipline", "note", "arrives"}

_ARRIVES_RE = re.compile(r"^turn (\d{1,2})$")
OVERLAP_TOL = 0.01          # cm^2: bases that only touch do not overlap (HERALD D3)


class ScenarioError(ValueError):
    """A scenario file is not valid; the message names the field (and the line where known)."""


# -- geometry of a base ----------------------------------------------------------------------

def base_rect(x: float, y: float, facing: float, size: tables.Size) -> Polygon:
    """The rectangle of a base whose front edge is centred on (x, y), facing `facing` degrees
    (compass), extending `size.depth` behind the front edge (engine.core.table.geometry)."""
    return base_polygon(Pose(x, y, facing), size)


# -- the parsed scenario ---------------------------------------------------------------------

@dataclass(frozen=True)
class Feature(OutlinedFeature):
    """A terrain feature: an area (woods, marsh, town, hill) or a line (road, river, stream, wall,
    defences, ford, bridge) buffered by `width` / 2 [5 B], [7 A], [7 C]."""
    id: str
    kind: str
    name: str
    points: tuple[tuple[float, float], ...]
    width: float = 0.0
    level: int = 0

    @property
    def is_area(self) -> bool:
        return self.kind in AREA_KINDS


@dataclass(frozen=True)
class ArmySpec:
    side: str
    name: str
    nation: str
    discipline: str                 # trained / regular / irregular [4 E]
    player: str                     # "A" / "B" [3]
    home_edge: str                  # "south" / "north" (HERALD D1)
    deployment: tuple[tuple[float, float], ...] = ()    # () = the 30 cm strip (HERALD D24)
    note: str = ""


@dataclass(frozen=True)
class UnitSpec:
    id: str
    side: str
    name: str
    type: str                       # a key of tables.TROOPS
    x: float
    y: float
    facing: float
    quality: str = ""               # "" / elite / untrained [Tabella delle truppe] L250
    mounted: bool = True            # dragoons [12 C]
    deployed: bool = False          # light and medium guns [6 A]
    arrives: str = ""               # "" on the table at the start; "turn N"
    discipline: str = ""            # "" = the army's; else its own level [4 E] L60
    nation: str = ""                # "" = the army's
    command: str = ""               # the general whose command it is (large armies [4 E])
    note: str = ""
    group: str = ""                 # the battle's label of the group it starts in [4 B]
    detached_from: str = ""         # detached musketeers: the P&S or Tercio that detached them [12 G]

    @property
    def troop(self) -> tables.TroopType:
        """The troop chart row it uses now (dragoons on foot are dismounted dragoons [12 C])."""
        return tables.troop(tables.effective_type(self.type, self.mounted))

    @property
    def arrival_turn(self) -> int:
        m = _ARRIVES_RE.match(self.arrives)
        return int(m.group(1)) if m else 0


@dataclass(frozen=True)
class GeneralSpec:
    id: str
    side: str
    name: str
    role: str                       # cinc / sub / wing [4 E], [11 B]
    x: float
    y: float
    facing: float
    discipline: str = ""            # "" = the army's [4 E] L60
    note: str = ""
    arrives: str = ""               # "" on the table at the start; "turn N" (with his units, HERALD D122)

    @property
    def arrival_turn(self) -> int:
        m = _ARRIVES_RE.match(self.arrives)
        return int(m.group(1)) if m else 0


@dataclass(frozen=True)
class Scenario(TableScenario):
    id: str
    title: str
    date: str
    width: float
    height: float
    features: tuple[Feature, ...]
    armies: dict[str, ArmySpec]
    units: tuple[UnitSpec, ...]
    generals: tuple[GeneralSpec, ...]
    camps: tuple[CampSpec, ...]
    turn_limit: int
    special_rules: tuple[SpecialRule, ...]
    provenance: dict[str, Any] = field(default_factory=dict)
    history: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    source: str = ""

    @cached_property
    def _unit_index(self) -> dict[str, UnitSpec]:
        return {u.id: u for u in self.units}

    @cached_property
    def _general_index(self) -> dict[str, GeneralSpec]:
        return {g.id: g for g in self.generals}

    def unit(self, unit_id: str) -> UnitSpec:
        return self._unit_index[unit_id]

    def general(self, general_id: str) -> GeneralSpec:
        return self._general_index[general_id]

    def player(self, letter: str) -> str:
        """The side that is player "A" or "B" [3]."""
        return next(a.side for a in self.armies.values() if a.player == letter.upper())

    def letter(self, side: str) -> str:
        return self.armies[side].player

    def discipline_of(self, unit_or_general: UnitSpec | GeneralSpec) -> str:
        """Its own discipline when the scenario gives one ([4 E] L60), else its army's."""
        return unit_or_general.discipline or self.armies[unit_or_general.side].discipline

    def nation_of(self, unit: UnitSpec) -> str:
        return unit.nation or self.armies[unit.side].nation

    def deployment_zone(self, side: str) -> Polygon:
        """Where a side deploys: its army's `deployment` polygon, else the strip within 30 cm of
        its home edge (HERALD D24; home edges HERALD D1)."""
        return self.home_strip(side, tables.DEPLOYMENT_DEPTH)

    def starting_units(self) -> tuple[UnitSpec, ...]:
        return tuple(u for u in self.units if not u.arrives)

    def units_of(self, side: str) -> tuple[UnitSpec, ...]:
        return tuple(u for u in self.units if u.side == side)


def unit_rect(u: UnitSpec) -> Polygon:
    return base_rect(u.x, u.y, u.facing, u.troop.footprint)


def general_rect(g: GeneralSpec) -> Polygon:
    return base_rect(g.x, g.y, g.facing, tables.GENERAL_SIZE)


def camp_rect(c: CampSpec) -> Polygon:
    return base_rect(c.x, c.y, c.facing, tables.CAMP_SIZE)


# -- reading ---------------------------------------------------------------------------------

class _Reader(TableReader):
    """Field readers that name the place (and line) of what is wrong, as a ScenarioError; measures
    in cm."""
    unit = "cm"
    spans = "its base spans"


def _parse_table(r: _Reader, data: dict, where: str) -> tuple[float, float]:
    return table_size(r, data, where, (tables.TABLE_WIDTH, tables.TABLE_HEIGHT), 60, 600)


def _parse_armies(r: _Reader, data: dict, where: str, width: float, height: float
                  ) -> dict[str, ArmySpec]:
    out: dict[str, ArmySpec] = {}
    for i, a, w, path in r.entries(data, "armies", where, ARMY_KEYS, by_id=False):
        side = army_side(r, a, SIDES, out, w, path)
        dep = deployment_points(r, a, w, path, width, height)
        out[side] = ArmySpec(
            side=side, name=r.need(a, "name", str, w, path),
            nation=r.one_of(r.need(a, "nation", str, w, path), NATIONS, f"{w}.nation",
                            f"{path}.nation", "nation"),
            discipline=r.one_of(r.need(a, "discipline", str, w, path), tables.DISCIPLINES,
                                f"{w}.discipline", f"{path}.discipline", "discipline"),
            player=r.one_of(r.need(a, "player", str, w, path), PLAYERS, f"{w}.player",
                            f"{path}.player", "player"),
            home_edge=r.one_of(r.need(a, "home_edge", str, w, path), EDGES, f"{w}.home_edge",
                               f"{path}.home_edge", "home edge"),
            deployment=dep, note=r.opt(a, "note", str, w, path, ""))
    need_each_side(r, out, where, SIDES)
    if {a.player for a in out.values()} != set(PLAYERS):
        raise r.fail(f"{where} armies", "one army must be player \"A\" and the other \"B\" [3]",
                     "armies")
    need_two_home_edges(r, out, where)
    return out


def _parse_features(r: _Reader, data: dict, where: str, width: float, height: float
                    ) -> tuple[Feature, ...]:
    out: list[Feature] = []
    seen: set[str] = set()
    for _, f, w, path in r.entries(data, "features", where, FEATURE_KEYS, required=False):
        head = feature_head(r, f, w, path, FEATURE_KINDS, seen, "terrain")
        kind = head.kind
        area = kind in AREA_KINDS
        pts = feature_points(r, f, head, area)
        width_cm = feature_width(r, f, head, area, DEFAULT_WIDTH.get(kind, 0.0), 0.2, 20)
        level = 0
        if "level" in f:
            if kind != "hill":
                raise r.fail(f"{w}.level", "only hills have a level", f"{path}.level")
            level = r.need(f, "level", int, w, path)
            if not 1 <= level <= 5:
                raise r.fail(f"{w}.level", f"{level} is not a hill level 1..5", f"{path}.level")
        elif kind == "hill":
            level = 1
        feat = Feature(head.id, kind, r.opt(f, "name", str, w, path, ""), pts, width_cm, level)
        check_outline(r, head, feat.geometry, area, pts, width, height)
        out.append(feat)
    waters = [f for f in out if f.kind in tables.IMPASSABLE_WATER]
    check_crossings(r, out, where, CROSSING_KINDS, waters, "cross a river or stream [5 B]")
    return tuple(out)


def _discipline(r: _Reader, d: dict, w: str, path: str) -> str:
    v = r.opt(d, "discipline", str, w, path, "")
    return v and r.one_of(v, tables.DISCIPLINES, f"{w}.discipline", f"{path}.discipline",
                          "discipline")


def _parse_units(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                 ) -> tuple[UnitSpec, ...]:
    out: list[UnitSpec] = []
    for i, u, w, path in r.entries(data, "units", where, UNIT_KEYS):
        uid = r.ident(u.get("id"), f"{w}.id", f"{path}.id")
        side = r.one_of(r.need(u, "side", str, w, path), list(armies), f"{w}.side", f"{path}.side",
                        "side")
        ttype = r.one_of(r.need(u, "type", str, w, path), sorted(k for k in tables.TROOPS
                                                                   if k != "general"),
                         f"{w}.type", f"{path}.type", "troop type")
        x, y, facing = r.place(u, w, path)
        quality = r.one_of(r.opt(u, "quality", str, w, path, ""), tables.QUALITIES,
                           f"{w}.quality", f"{path}.quality", "quality")
        if "mounted" in u and ttype != "dragoons":
            raise r.fail(f"{w}.mounted", f"only dragoons mount and dismount [12 C], not {ttype}",
                         f"{path}.mounted")
        mounted = r.opt(u, "mounted", bool, w, path, True)
        t = tables.troop(ttype)
        if "deployed" in u and t.gun not in ("light", "medium"):
            raise r.fail(f"{w}.deployed", "only light and medium guns start deployed or limbered "
                         f"[6 A], not {ttype}", f"{path}.deployed")
        deployed = r.opt(u, "deployed", bool, w, path, False)
        if t.arm == "artillery" and not t.moves:
            deployed = True                     # guns that never move are always in battery [6 B]
        arrives = r.opt(u, "arrives", str, w, path, "")
        if arrives and not _ARRIVES_RE.match(arrives):
            raise r.fail(f"{w}.arrives", f"{arrives!r}: write \"turn N\" (or leave it out for a "
                         "unit on the table at the start)", f"{path}.arrives")
        nation = r.opt(u, "nation", str, w, path, "")
        if nation:
            r.one_of(nation, NATIONS, f"{w}.nation", f"{path}.nation", "nation")
        out.append(UnitSpec(
            id=uid, side=side, name=r.need(u, "name", str, w, path), type=ttype, x=x, y=y,
            facing=facing, quality=quality, mounted=mounted, deployed=deployed, arrives=arrives,
            discipline=_discipline(r, u, w, path), nation=nation,
            command=r.opt(u, "command", str, w, path, ""), note=r.opt(u, "note", str, w, path, ""),
            group=r.ident(u["group"], f"{w}.group", f"{path}.group") if "group" in u else "",
            detached_from=r.opt(u, "detached_from", str, w, path, "")))
    _check_detachments(r, where, out)
    return tuple(out)


DETACHING_TYPES = ("pike_and_shot", "late_pike_and_shot", "tercio")


def _check_detachments(r: _Reader, where: str, units: list[UnitSpec]) -> None:
    """[12 G] L125 "unità di P&S, prima della partita, possono distaccare ciascuna fino ad un'unità
    di moschettieri": a `detached_musketeers` unit names the P&S (or Tercio) of its side that
    detached it; each detaches at most one (HERALD D123)."""
    by_id = {u.id: u for u in units}
    seen: dict[str, str] = {}
    for i, u in enumerate(units):
        path = f"units[{i}].detached_from"
        w = f"{where} units[{i}] ({u.id}).detached_from"
        if u.detached_from and u.type != "detached_musketeers":
            raise r.fail(w, f"only detached musketeers name the unit that detached them [12 G], not "
                         f"{u.type}", path)
        if u.type != "detached_musketeers" or not u.detached_from:
            continue
        parent = by_id.get(u.detached_from)
        if parent is None or parent.side != u.side or parent.type not in DETACHING_TYPES:
            raise r.fail(w, f"{u.detached_from!r} is not a Pike & Shot or Tercio of the {u.side} army: "
                         "only they detach musketeers [12 G]", path)
        if u.detached_from in seen:
            raise r.fail(w, f"{u.detached_from} has detached {seen[u.detached_from]} already: each P&S "
                         "detaches at most one unit of musketeers [12 G]", path)
        seen[u.detached_from] = u.id


def _parse_generals(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                    ) -> tuple[GeneralSpec, ...]:
    out: list[GeneralSpec] = []
    for i, g, w, path in r.entries(data, "generals", where, GENERAL_KEYS):
        gid = r.ident(g.get("id"), f"{w}.id", f"{path}.id")
        side = r.one_of(r.need(g, "side", str, w, path), list(armies), f"{w}.side", f"{path}.side",
                        "side")
        role = r.one_of(r.need(g, "role", str, w, path), ROLES, f"{w}.role", f"{path}.role", "role")
        x, y, facing = r.place(g, w, path)
        arrives = r.opt(g, "arrives", str, w, path, "")
        if arrives and not _ARRIVES_RE.match(arrives):
            raise r.fail(f"{w}.arrives", f"{arrives!r}: write \"turn N\" (or leave it out for a "
                         "general on the table at the start)", f"{path}.arrives")
        if arrives and role == "cinc":
            raise r.fail(f"{w}.arrives", "the commander-in-chief is on the table at the start "
                         "(HERALD D122)", f"{path}.arrives")
        out.append(GeneralSpec(gid, side, r.need(g, "name", str, w, path), role, x, y, facing,
                               _discipline(r, g, w, path), r.opt(g, "note", str, w, path, ""),
                               arrives))
    for side in armies:
        chiefs = [g.id for g in out if g.side == side and g.role == "cinc"]
        if len(chiefs) != 1:
            raise r.fail(f"{where} generals", f"the {side} army needs exactly one commander-in-chief "
                         f"(role \"cinc\") [11 B]; it has {len(chiefs)}"
                         + (f": {', '.join(chiefs)}" if chiefs else ""), "generals")
        wings = [g.id for g in out if g.side == side and g.role == "wing"]
        if len(wings) > 2:
            raise r.fail(f"{where} generals", f"the {side} army names {len(wings)} wing generals "
                         f"({', '.join(wings)}): the large-army rule has a centre and two wings "
                         "[4 E]", "generals")
    return tuple(out)


def _parse_camps(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                 ) -> tuple[CampSpec, ...]:
    return parse_camps(r, data, where, armies, "(one each, [12 A])", "each army has its own [12 A]")


def _check_places(r: _Reader, where: str, width: float, height: float,
                  armies: dict[str, ArmySpec], features: tuple[Feature, ...],
                  units: tuple[UnitSpec, ...], generals: tuple[GeneralSpec, ...],
                  camps: tuple[CampSpec, ...], zone) -> None:
    """Every base on the table, in its deployment zone, on ground it may stand on, overlapping
    no other base."""
    bases: list[tuple[str, str, str, Polygon, str]] = []   # (label, side, kind, poly, path)
    for i, u in enumerate(units):
        label = f"unit {u.id} ({u.name}, {u.type})"
        poly = unit_rect(u)
        path = f"units[{i}]"
        r.on_table(poly, width, height, label, f"{where} units[{i}]", path)
        if not u.arrives:
            _in_zone(r, poly, zone(u.side), label, u.side, f"{where} units[{i}]", path, armies)
            _ground(r, u, poly, features, f"{where} units[{i}]", path)
            bases.append((label, u.side, "unit", poly, path))
    for i, g in enumerate(generals):
        label = f"general {g.id} ({g.name})"
        poly = general_rect(g)
        path = f"generals[{i}]"
        r.on_table(poly, width, height, label, f"{where} generals[{i}]", path)
        _in_zone(r, poly, zone(g.side), label, g.side, f"{where} generals[{i}]", path, armies)
        bases.append((label, g.side, "general", poly, path))
    for i, c in enumerate(camps):
        label = f"the {c.side} camp"
        poly = camp_rect(c)
        path = f"camps[{i}]"
        r.on_table(poly, width, height, label, f"{where} camps[{i}]", path)
        _in_zone(r, poly, zone(c.side), label, c.side, f"{where} camps[{i}]", path, armies)
        bases.append((label, c.side, "camp", poly, path))
    for a, b, area in overlapping_pairs([base[3] for base in bases], OVERLAP_TOL):
        la, sa, ka, pa, path_a = bases[a]
        lb, sb, kb, pb, _ = bases[b]
        if sa == sb and {ka, kb} == {"unit", "camp"}:
            camp, other = (pa, pb) if ka == "camp" else (pb, pa)
            if camp.buffer(EDGE_TOL).contains(other):
                continue                        # a garrison inside its own camp [12 A]
        raise r.fail(f"{where}", f"{la} overlaps {lb} by {area:.2f} sq cm: bases may touch "
                     "but not overlap", path_a)


def _in_zone(r: _Reader, poly: Polygon, zone_poly: Polygon, label: str, side: str, where: str,
             path: str, armies: dict[str, ArmySpec]) -> None:
    if zone_poly.buffer(EDGE_TOL).contains(poly):
        return
    outside = poly.difference(zone_poly).area
    a = armies[side]
    zone_txt = ("its army's deployment polygon" if a.deployment else
                f"the {tables.DEPLOYMENT_DEPTH:g} cm strip along the {a.home_edge} edge")
    raise r.fail(where, f"{label} is outside the {side} deployment zone ({zone_txt}) by "
                 f"{outside:.2f} sq cm of its base (HERALD D24)", path)


def _ground(r: _Reader, u: UnitSpec, poly: Polygon, features: tuple[Feature, ...], where: str,
            path: str) -> None:
    """[5 B], [6 A]: no base on a river or stream off its fords and bridges; no gun in woods or
    marsh; no horse in marsh; only musketeers, militia and dismounted dragoons in towns."""
    t = u.troop
    crossings = [f.geometry for f in features if f.kind in CROSSING_KINDS]
    for f in features:
        if not poly.intersects(f.geometry) or poly.intersection(f.geometry).area <= OVERLAP_TOL:
            continue
        name = f"{f.kind} {f.id}" + (f" ({f.name})" if f.name else "")
        if f.kind in tables.IMPASSABLE_WATER:
            if uncrossed_area(poly, f.geometry, crossings) > OVERLAP_TOL:
                raise r.fail(where, f"unit {u.id} stands in the {name}: a watercourse is crossed "
                             "only at fords and bridges [5 B]", path)
        elif f.kind in tables.NO_ARTILLERY and t.arm == "artillery":
            raise r.fail(where, f"unit {u.id} ({u.type}) stands in the {name}: guns never go into "
                         "woods or marsh [6 A]", path)
        elif f.kind == "marsh" and not t.enters_marsh:
            raise r.fail(where, f"unit {u.id} ({u.type}) stands in the {name}: only infantry and "
                         "generals cross marshes [5 B]", path)
        elif f.kind == "town" and not t.occupies_towns:
            raise r.fail(where, f"unit {u.id} ({u.type}) stands in the {name}: only musketeers, "
                         "militia and dismounted dragoons occupy towns [5 B]", path)


def group_arms(sc_units: list[UnitSpec]) -> set[str]:
    """The kinds a group mixes, for [4 B]: "musketeers" for musketeers (and detached ones), else
    each unit's arm."""
    return {"musketeers" if u.troop.key in ("musketeers", "detached_musketeers") else u.troop.arm
            for u in sc_units}


def group_problem(members: list[UnitSpec], nations: set[str]) -> str | None:
    """None when the units may move as one group [4 B] L50: an unbroken front (sides touching,
    one facing, front edges in line: engine.core.table.moves.group_front) of one arm, or infantry
    with artillery, or (Swedes only) cavalry with musketeers; else the reason."""
    kinds = group_arms(members)
    foot = {"infantry", "musketeers"}
    if len(kinds) > 1:
        if kinds <= foot | {"artillery"}:
            pass
        elif kinds <= {"cavalry", "musketeers"}:
            if nations != {"swedish"}:
                return "cavalry and musketeers move as one group only in the Swedish army [4 B]"
        else:
            return f"a group may not mix {' and '.join(sorted(kinds))} [4 B]"
    return group_front([(u.id, Pose(u.x, u.y, u.facing), u.troop.footprint) for u in members])


def _check_groups(r: _Reader, where: str, units: tuple[UnitSpec, ...],
                  armies: dict[str, ArmySpec]) -> None:
    labels = sorted({(u.side, u.group) for u in units if u.group})
    for side, label in labels:
        members = [u for u in units if u.group == label and u.side == side]
        first = units.index(members[0])
        if len({bool(u.arrives) for u in members}) > 1:
            raise r.fail(f"{where} units[{first}] ({members[0].id}).group",
                         f"the group '{label}' mixes units on the table and units arriving later",
                         f"units[{first}].group")
        nations = {u.nation or armies[u.side].nation for u in members}
        why = group_problem(members, nations)
        if why:
            raise r.fail(f"{where} units[{first}] ({members[0].id}).group",
                         f"the group '{label}' cannot move as one group: {why}",
                         f"units[{first}].group")


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a battle; raises ScenarioError naming what is wrong (and where)."""
    data, r, sid, where = open_battle_file(text, source, MAX_SCENARIO_BYTES, ScenarioError, _Reader,
                                           TOP_KEYS)
    width, height = _parse_table(r, data, where)
    armies = _parse_armies(r, data, where, width, height)
    features = _parse_features(r, data, where, width, height)
    units = _parse_units(r, data, where, armies)
    generals = _parse_generals(r, data, where, armies)
    camps = _parse_camps(r, data, where, armies)
    ids = [u.id for u in units] + [g.id for g in generals]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise r.fail(where, f"id(s) used twice among units and generals: {', '.join(dup)}", "units")
    gids = {g.id for g in generals}
    for i, u in enumerate(units):
        if u.command and u.command not in gids:
            raise r.fail(f"{where} units[{i}] ({u.id}).command", f"no general '{u.command}' "
                         f"(generals: {', '.join(sorted(gids))})", f"units[{i}].command")
        if u.command and r_side(generals, u.command) != u.side:
            raise r.fail(f"{where} units[{i}] ({u.id}).command", f"'{u.command}' is a general of "
                         "the other side", f"units[{i}].command")
    turn_limit = r.opt(data, "turn_limit", int, where, "turn_limit", tables.DEFAULT_TURN_LIMIT)
    if not 1 <= turn_limit <= 99:
        raise r.fail(f"{where}.turn_limit", f"{turn_limit} is not 1..99", "turn_limit")
    for i, u in enumerate(units):
        if u.arrival_turn and not 2 <= u.arrival_turn <= turn_limit:
            raise r.fail(f"{where} units[{i}] ({u.id}).arrives", f"turn {u.arrival_turn} is not "
                         f"2..{turn_limit}", f"units[{i}].arrives")
    for side in armies:
        if not any(u.side == side and not u.arrives for u in units):
            raise r.fail(f"{where} units", f"the {side} army has no unit on the table", "units")

    probe = Scenario(sid, "", "", width, height, features, armies, units, generals, camps,
                     turn_limit, ())
    _check_places(r, where, width, height, armies, features, units, generals, camps,
                  probe.deployment_zone)
    _check_groups(r, where, units, armies)

    specials, hist, prov = parse_extras(r, data, where, SPECIAL_RULES)
    return Scenario(
        id=sid, title=r.need(data, "title", str, where, "title"),
        date=r.opt(data, "date", str, where, "", ""), width=width, height=height,
        features=features, armies=armies, units=units, generals=generals, camps=camps,
        turn_limit=turn_limit, special_rules=specials, provenance=prov,
        history=hist, description=r.opt(data, "description", str, where, "", "").strip(),
        source=source)


def r_side(generals: tuple[GeneralSpec, ...], gid: str) -> str:
    return next(g.side for g in generals if g.id == gid)


def list_scenarios() -> list[str]:
    return bundled_ids(SCENARIO_DIR)


@lru_cache(maxsize=8)
def load_scenario(scenario_id: str) -> Scenario:
    """A bundled battle by id (the file name without .toml). Cached: do not mutate it."""
    text, name = read_bundled(SCENARIO_DIR, scenario_id, "Lion of the North", ScenarioError)
    return parse_scenario(text, source=name)
