"""Italian Wars battles as data files (TOML), and the validator that also checks a club's upload
(issue 16).

The text (rules/italian-wars.it.txt) has no scenarios and no army lists (digest §7): a battle file
carries the armies, battles, companies, terrain and camps, and its `[provenance]` block says what
is history and what is Herald's. Measures are UDM (one base frontage, HERALD D1) on the 45 x 30
table; a side deploys within 6 UDM of its home edge ("Prima della battaglia" 5, L270) unless its
army gives a `deployment` polygon (a battle whose history says otherwise, HERALD D25).

Geometry (engine/italianwars/state.py): origin at the south-west corner, x east, y north; a
company's place (`x`, `y`) is the centre of the front edge of its leading base, `facing` a compass
bearing (0 = north, 90 = east), its rectangle 1 UDM wide and its bases one behind the other
(tables.footprint); a skirmisher screen is a strip in front of it (tables.SCREEN, HERALD D16).

Schema (one file per battle; see `scenarios/*.toml`):

    id, title, date, description
    turn_limit     0 = none (the battle ends by the rules and Herald's completion), else 1..99
    season         "" (rolled, Tabella 3) or winter | spring | summer | autumn
    weather        "" (rolled, Tabella 4) or good | cloudy | bad
    clock          0 (rolled, 2d6: "Ora del giorno") or the day clock's first turn, 1..24
    [table]        width = 45, height = 30
    [[armies]]     side ("french" | "league"), name, nations = [...] (tables.NATIONS),
                   ecu (an integer, or "1d6": "Tesoro" L95), home_edge ("south" | "north"),
                   attacker? (true: the battle names this army the attacker instead of
                   "Prima della battaglia" 4), deployment? = [[x, y], ...], note?
    [[features]]   id, kind (tables.TERRAIN_KINDS), category? (one the text allows the kind;
                   default the first), name?, points = [[x, y], ...], width? (lines, UDM),
                   level? (hills 1..3), crest? = [[x, y], [x, y]] (hills), note?
    [[battles]]    id, side, name, commander (the id of the company whose captain commands it),
                   cinc? (true for the Commander-in-Chief's battle: one per side), note?
    [[companies]]  id, battle, side? (the battle's), name, nation, arm (infantry | cavalry |
                   artillery), morale, role (shooting | shock | skirmishers), armour (armoured |
                   protected | unprotected; "" for artillery), armour_mixed? (the lightest armour
                   of its other bases, "Tipo di armatura" L48), melee_weapon, missile_weapon? (""),
                   melee_factor, shooting_factor? ("" without a missile weapon), bases (1, 2, 4),
                   x, y, facing, screen? (a skirmisher screen, L84), composition? ("" | colunella
                   | legion), formation? ("" | igel | "phalanx:<label>"), doppelsoldner?,
                   captain? ("" rolled on Tabella 2, or a fixed personality), ambush? (hidden in
                   ambush, "Prima della battaglia" 5), type? (its army list's company type), note?
    [[camps]]      side, x, y, facing, name?
    [[special_rules]]  id, text (known ids: SPECIAL_RULES)
    [history]      text, result, sources?
    [provenance]   from_text = [...], herald_completion = [...], sources = [...], note

Every table refuses keys it does not know, naming the key, the closest allowed key and the line.
Companies must lie on the table, inside their army's deployment zone (an ambush: in its own half,
in broken or closed ground, the defender's), on ground troops may stand on (not impassable),
overlapping no other company or camp; each battle's companies all in contact ("Le Battaglie
vengono schierate inizialmente in maniera tale che tutte le compagnie siano a contatto tra di
loro", L114); each camp in open terrain (L271) in its own half.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from shapely.geometry import LineString, Polygon, box
from shapely.ops import unary_union
from shapely.validation import explain_validity

from engine.core.scenario_files import (NUMBER, FieldReader, bundled_ids, close_match,
                                        read_bundled, read_toml)
from engine.core.table.geometry import CONTACT_TOL, Pose, base_polygon, forward
from engine.italianwars import tables
from engine.italianwars.state import SIDES

SCENARIO_DIR = Path(__file__).parent / "scenarios"
MAX_SCENARIO_BYTES = 192 * 1024
EDGES = ("south", "north")

SPECIAL_RULES = {
    "note": "A remark for the players, with no effect on the rules.",
    "moonless": "A moonless night: 2 UDM of sight at night in good weather (Visibilità L214).",
    "no-postponement": "The armies fight whatever the weather: bad weather's postponement "
                       "(Tempo cattivo L267) is not offered.",
}

TOP_KEYS = {"id", "title", "date", "description", "turn_limit", "season", "weather", "clock",
            "table", "armies", "features", "battles", "companies", "camps", "special_rules",
            "history", "provenance"}
TABLE_KEYS = {"width", "height"}
ARMY_KEYS = {"side", "name", "nations", "ecu", "home_edge", "attacker", "deployment", "note"}
FEATURE_KEYS = {"id", "kind", "category", "name", "points", "width", "level", "crest", "note"}
BATTLE_KEYS = {"id", "side", "name", "commander", "cinc", "note"}
COMPANY_KEYS = {"id", "battle", "side", "name", "nation", "arm", "morale", "role", "armour",
                "armour_mixed", "melee_weapon", "missile_weapon", "melee_factor",
                "shooting_factor", "bases", "x", "y", "facing", "screen", "composition",
                "formation", "doppelsoldner", "captain", "ambush", "type", "note"}
CAMP_KEYS = {"side", "x", "y", "facing", "name"}
SPECIAL_KEYS = {"id", "text"}
HISTORY_KEYS = {"text", "result", "sources"}
PROVENANCE_KEYS = {"from_text", "herald_completion", "sources", "note"}

OVERLAP_TOL = 0.0001        # UDM^2: rectangles that only touch do not overlap
EDGE_TOL = 0.005            # UDM: a base flush with the table's edge is on the table
COMPOSITIONS = ("", "colunella", "legion")


class ScenarioError(ValueError):
    """A scenario file is not valid; the message names the field (and the line where known)."""


# -- the parsed scenario ---------------------------------------------------------------------

@dataclass(frozen=True)
class Feature:
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
    def line(self) -> LineString | None:
        return None if self.is_area else LineString(self.points)

    @cached_property
    def geometry(self) -> Polygon:
        if self.is_area:
            return Polygon(self.points)
        return LineString(self.points).buffer(self.width / 2, cap_style="flat")

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


@dataclass(frozen=True)
class ArmySpec:
    side: str
    name: str
    nations: tuple[str, ...]
    ecu: int | str                  # an integer, or "1d6" ([Tesoro] L95)
    home_edge: str                  # "south" / "north"
    attacker: bool = False          # the battle names this army the attacker
    deployment: tuple[tuple[float, float], ...] = ()
    note: str = ""


@dataclass(frozen=True)
class BattleSpec:
    id: str
    side: str
    name: str
    commander: str                  # the company whose captain commands the battle
    cinc: bool = False              # the Commander-in-Chief's battle
    note: str = ""


@dataclass(frozen=True)
class CompanySpec:
    id: str
    side: str
    battle: str
    name: str
    nation: str
    arm: str                        # infantry / cavalry / artillery
    morale: str                     # tables.MORALE
    role: str                       # shooting / shock / skirmishers
    armour: str                     # armoured / protected / unprotected / "" (guns)
    melee_weapon: str
    missile_weapon: str
    melee_factor: str
    shooting_factor: str
    bases: int
    x: float
    y: float
    facing: float
    screen: bool = False
    formation: str = ""             # "" / "igel" / "phalanx:<label>"
    composition: str = ""           # "" / "colunella" / "legion"
    armour_mixed: str = ""          # the lightest armour of its bases when mixed ("" = none)
    doppelsoldner: bool = False
    captain: str = ""               # "" = rolled on Tabella 2
    ambush: bool = False
    type: str = ""                  # the army list's company type
    note: str = ""

    @property
    def size(self) -> str:
        return tables.size_of(self.bases)

    @property
    def points(self) -> int:
        return tables.company_points(self.arm, self.bases)

    @property
    def command_points(self) -> int:
        return tables.command_points(self.morale)

    @property
    def mounted(self) -> bool:
        return self.arm == "cavalry"

    @property
    def pose(self) -> Pose:
        return Pose(self.x, self.y, self.facing)


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


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    date: str
    width: float
    height: float
    features: tuple[Feature, ...]
    armies: dict[str, ArmySpec]
    battles: tuple[BattleSpec, ...]
    companies: tuple[CompanySpec, ...]
    camps: tuple[CampSpec, ...]
    turn_limit: int = 0
    season: str = ""                # "" rolled
    weather: str = ""               # "" rolled
    clock_start: int = 0            # 0 rolled (2d6)
    special_rules: tuple[SpecialRule, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)
    history: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    source: str = ""

    @cached_property
    def _company_index(self) -> dict[str, CompanySpec]:
        return {c.id: c for c in self.companies}

    @cached_property
    def _battle_index(self) -> dict[str, BattleSpec]:
        return {b.id: b for b in self.battles}

    def company(self, company_id: str) -> CompanySpec:
        return self._company_index[company_id]

    def battle(self, battle_id: str) -> BattleSpec:
        return self._battle_index[battle_id]

    def companies_of(self, side: str | None = None, battle: str | None = None
                     ) -> tuple[CompanySpec, ...]:
        return tuple(c for c in self.companies if (side is None or c.side == side)
                     and (battle is None or c.battle == battle))

    def battles_of(self, side: str) -> tuple[BattleSpec, ...]:
        return tuple(b for b in self.battles if b.side == side)

    def cinc_battle(self, side: str) -> BattleSpec:
        return next(b for b in self.battles if b.side == side and b.cinc)

    def commander_of(self, battle_id: str) -> CompanySpec:
        """The battle commander's company [Organizzazione dell'esercito] L113."""
        return self.company(self.battle(battle_id).commander)

    def attacker(self) -> str:
        """The side the battle names the attacker, or "" (rolled: Prima della battaglia 4)."""
        return next((a.side for a in self.armies.values() if a.attacker), "")

    def ecu_fixed(self, side: str) -> int | None:
        """The army's fixed treasury, or None when it is rolled (1d6, [Tesoro] L95)."""
        e = self.armies[side].ecu
        return e if isinstance(e, int) else None

    def has_rule(self, rule_id: str) -> bool:
        return any(r.id == rule_id for r in self.special_rules)

    def features_of(self, *kinds: str) -> tuple[Feature, ...]:
        return tuple(f for f in self.features if f.kind in kinds)

    def feature(self, feature_id: str) -> Feature:
        return next(f for f in self.features if f.id == feature_id)

    def home_y(self, side: str) -> float:
        return 0.0 if self.armies[side].home_edge == "south" else self.height

    def deployment_zone(self, side: str) -> Polygon:
        """Where a side deploys: its `deployment` polygon, else within 6 UDM of its home edge
        [Prima della battaglia 5] L270."""
        a = self.armies[side]
        if a.deployment:
            return Polygon(a.deployment)
        d = tables.DEPLOYMENT_DEPTH
        return box(0, 0, self.width, d) if a.home_edge == "south" else \
            box(0, self.height - d, self.width, self.height)

    def own_half(self, side: str) -> Polygon:
        """The side's half of the table (ambushes, camps) [Prima della battaglia 5] L270."""
        h = self.height / 2
        return box(0, 0, self.width, h) if self.armies[side].home_edge == "south" else \
            box(0, h, self.width, self.height)


def company_rect(c: CompanySpec) -> Polygon:
    """The company's rectangle: 1 UDM wide, its bases one behind the other (HERALD D1)."""
    return base_polygon(Pose(c.x, c.y, c.facing), tables.footprint(c.arm, c.bases))


def screen_rect(c: CompanySpec) -> Polygon | None:
    """The skirmisher screen's strip in front of the company's front edge (HERALD D16)."""
    if not c.screen:
        return None
    fx, fy = forward(c.facing)
    d = tables.SCREEN.depth
    return base_polygon(Pose(c.x + fx * d, c.y + fy * d, c.facing), tables.SCREEN)


def company_shape(c: CompanySpec) -> Polygon:
    """The company with its screen, if any."""
    s = screen_rect(c)
    return company_rect(c) if s is None else unary_union([company_rect(c), s])


def camp_rect(c: CampSpec) -> Polygon:
    """The camp, 2 x 1 UDM (HERALD D23), its long side the front."""
    return base_polygon(Pose(c.x, c.y, c.facing), tables.CAMP_SIZE)


# -- reading ---------------------------------------------------------------------------------

class _Reader(FieldReader):
    """Field readers that name the place (and line) of what is wrong, as a ScenarioError."""

    def __init__(self, text: str, source: str):
        super().__init__(text, source, ScenarioError)

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
                raise self.fail(where, f"point {i + 1} is {p!r}, not [x, y] in UDM", path)
            out.append((float(p[0]), float(p[1])))
        return tuple(out)


def _named(table: dict) -> str:
    return f" ({table['id']})" if isinstance(table.get("id"), str) else ""


def _facing(r: _Reader, d: dict, where: str, path: str) -> float:
    f = r.need(d, "facing", NUMBER, where, path)
    if not 0 <= f < 360:
        raise r.fail(f"{where}.facing", f"{f:g} is not a compass bearing 0 <= facing < 360 "
                     "(0 north, 90 east, 180 south, 270 west)", f"{path}.facing")
    return round(f, 2)


def _place(r: _Reader, d: dict, where: str, path: str) -> tuple[float, float, float]:
    x = round(r.need(d, "x", NUMBER, where, path), 2)
    y = round(r.need(d, "y", NUMBER, where, path), 2)
    return x, y, _facing(r, d, where, path)


def _on_table(r: _Reader, poly, width: float, height: float, what: str, where: str,
              path: str) -> None:
    minx, miny, maxx, maxy = poly.bounds
    out = max(-minx, -miny, maxx - width, maxy - height)
    if out > EDGE_TOL:
        raise r.fail(where, f"{what} lies {out:.2f} UDM off the {width:g} x {height:g} UDM table "
                     f"(it spans x {minx:.2f}..{maxx:.2f}, y {miny:.2f}..{maxy:.2f})", path)


def _parse_table(r: _Reader, data: dict, where: str) -> tuple[float, float]:
    t = r.opt(data, "table", dict, where, "table", {})
    r.keys(t, TABLE_KEYS, f"{where} table", "table")
    w = r.opt(t, "width", NUMBER, f"{where} table", "table", tables.TABLE_WIDTH)
    h = r.opt(t, "height", NUMBER, f"{where} table", "table", tables.TABLE_HEIGHT)
    if not (12 <= w <= 150 and 12 <= h <= 150):
        raise r.fail(f"{where} table", f"{w:g} x {h:g} UDM is not a table (12-150 UDM a side; "
                     "the text's 1.8 x 1.2 m is 45 x 30 UDM, HERALD D1)", "table")
    return float(w), float(h)


def _parse_armies(r: _Reader, data: dict, where: str, width: float, height: float
                  ) -> dict[str, ArmySpec]:
    out: dict[str, ArmySpec] = {}
    for i, a in enumerate(r.tables(data, "armies", where)):
        path = f"armies[{i}]"
        w = f"{where} armies[{i}]"
        r.keys(a, ARMY_KEYS, w, path)
        side = r.one_of(r.need(a, "side", str, w, path), SIDES, f"{w}.side", f"{path}.side", "side")
        if side in out:
            raise r.fail(f"{w}.side", f"the army '{side}' is given twice", f"{path}.side")
        nations = r.need(a, "nations", list, w, path)
        if not nations:
            raise r.fail(f"{w}.nations", "name at least one nation", f"{path}.nations")
        for n in nations:
            r.one_of(n, tables.NATIONS, f"{w}.nations", f"{path}.nations", "nation")
        ecu: int | str = tables.ECU_DEFAULT
        if "ecu" in a:
            v = a["ecu"]
            if isinstance(v, bool) or not (isinstance(v, int) and 0 <= v <= 99 or v == "1d6"):
                raise r.fail(f"{w}.ecu", f"{v!r}: the treasury is a number of Ecu 0..99 or "
                             "\"1d6\" (the text's default, Tesoro L95)", f"{path}.ecu")
            ecu = v
        dep: tuple = ()
        if "deployment" in a:
            dep = r.points(a["deployment"], f"{w}.deployment", f"{path}.deployment", 3)
            poly = Polygon(dep)
            if not poly.is_valid or poly.area <= 0:
                raise r.fail(f"{w}.deployment", f"not a simple polygon ({explain_validity(poly)})",
                             f"{path}.deployment")
            _on_table(r, poly, width, height, "the deployment zone", f"{w}.deployment",
                      f"{path}.deployment")
        out[side] = ArmySpec(
            side=side, name=r.need(a, "name", str, w, path), nations=tuple(nations), ecu=ecu,
            home_edge=r.one_of(r.need(a, "home_edge", str, w, path), EDGES, f"{w}.home_edge",
                               f"{path}.home_edge", "home edge"),
            attacker=r.opt(a, "attacker", bool, w, path, False), deployment=dep,
            note=r.opt(a, "note", str, w, path, ""))
    if set(out) != set(SIDES):
        missing = ", ".join(s for s in SIDES if s not in out)
        raise r.fail(f"{where} armies", f"an army for each side is needed ({', '.join(SIDES)}); "
                     f"missing: {missing}", "armies")
    if len({a.home_edge for a in out.values()}) != 2:
        raise r.fail(f"{where} armies", "the two armies need different home edges (south, north)",
                     "armies")
    if sum(a.attacker for a in out.values()) > 1:
        raise r.fail(f"{where} armies", "only one army can be named the attacker", "armies")
    return out


def _parse_features(r: _Reader, data: dict, where: str, width: float, height: float
                    ) -> tuple[Feature, ...]:
    out: list[Feature] = []
    seen: set[str] = set()
    for i, f in enumerate(r.tables(data, "features", where, required=False)):
        path = f"features[{i}]"
        w = f"{where} features[{i}]{_named(f)}"
        r.keys(f, FEATURE_KEYS, w, path)
        fid = r.ident(f.get("id"), f"{w}.id", f"{path}.id")
        if fid in seen:
            raise r.fail(f"{w}.id", f"the feature id '{fid}' is used twice", f"{path}.id")
        seen.add(fid)
        kind = r.one_of(r.need(f, "kind", str, w, path), tables.TERRAIN_KINDS, f"{w}.kind",
                        f"{path}.kind", "terrain kind")
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
        pts = r.points(f.get("points"), f"{w}.points", f"{path}.points", 3 if area else 2)
        if area and "width" in f:
            raise r.fail(f"{w}.width", f"an area ({kind}) has no width: its points are its outline",
                         f"{path}.width")
        wid = 0.0
        if not area:
            wid = float(r.opt(f, "width", NUMBER, w, path, tk.width))
            if not 0.1 <= wid <= 6:
                raise r.fail(f"{w}.width", f"{wid:g} UDM is not a width 0.1..6 UDM", f"{path}.width")
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
        feat = Feature(fid, kind, category, r.opt(f, "name", str, w, path, ""), pts, wid, level,
                       crest)
        geom = feat.geometry
        if area and (not geom.is_valid or geom.area <= 0):
            raise r.fail(f"{w}.points", f"the outline is not a simple polygon "
                         f"({explain_validity(geom)})", f"{path}.points")
        bad = next((p for p in pts + crest if not (-EDGE_TOL <= p[0] <= width + EDGE_TOL
                                                    and -EDGE_TOL <= p[1] <= height + EDGE_TOL)),
                   None)
        if bad is not None:
            raise r.fail(f"{w}.points", f"the point {list(bad)} is off the {width:g} x {height:g} "
                         "UDM table", f"{path}.points")
        out.append(feat)
    waters = [f for f in out if f.kind in tables.WATER_KINDS and not f.is_area]
    for i, f in enumerate(out):
        if f.kind in tables.CROSSING_KINDS and not any(f.line.intersects(wt.line) for wt in waters):
            raise r.fail(f"{where} features[{i}] ({f.id})", f"a {f.kind} must cross a river, canal "
                         "or stream (Terreno L179, L183)", f"features[{i}]")
    return tuple(out)


def _parse_battles(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                   ) -> tuple[BattleSpec, ...]:
    out: list[BattleSpec] = []
    for i, b in enumerate(r.tables(data, "battles", where)):
        path = f"battles[{i}]"
        w = f"{where} battles[{i}]{_named(b)}"
        r.keys(b, BATTLE_KEYS, w, path)
        bid = r.ident(b.get("id"), f"{w}.id", f"{path}.id")
        if any(o.id == bid for o in out):
            raise r.fail(f"{w}.id", f"the battle id '{bid}' is used twice", f"{path}.id")
        side = r.one_of(r.need(b, "side", str, w, path), list(armies), f"{w}.side",
                        f"{path}.side", "side")
        out.append(BattleSpec(bid, side, r.need(b, "name", str, w, path),
                              r.ident(b.get("commander"), f"{w}.commander", f"{path}.commander"),
                              r.opt(b, "cinc", bool, w, path, False),
                              r.opt(b, "note", str, w, path, "")))
    for side in armies:
        chiefs = [b.id for b in out if b.side == side and b.cinc]
        if len(chiefs) != 1:
            raise r.fail(f"{where} battles", f"the {side} army needs exactly one battle of the "
                         "Commander-in-Chief (cinc = true) (Organizzazione dell'esercito L113); it "
                         f"has {len(chiefs)}" + (f": {', '.join(chiefs)}" if chiefs else ""),
                         "battles")
    return tuple(out)


def _str_of(r: _Reader, d: dict, key: str, allowed, w: str, path: str, what: str,
            default: str | None = None) -> str:
    v = r.need(d, key, str, w, path) if default is None else r.opt(d, key, str, w, path, default)
    return r.one_of(v, allowed, f"{w}.{key}", f"{path}.{key}", what)


def _parse_companies(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec],
                     battles: tuple[BattleSpec, ...]) -> tuple[CompanySpec, ...]:
    out: list[CompanySpec] = []
    by_battle = {b.id: b for b in battles}
    for i, c in enumerate(r.tables(data, "companies", where)):
        path = f"companies[{i}]"
        w = f"{where} companies[{i}]{_named(c)}"
        r.keys(c, COMPANY_KEYS, w, path)
        cid = r.ident(c.get("id"), f"{w}.id", f"{path}.id")
        if any(o.id == cid for o in out):
            raise r.fail(f"{w}.id", f"the company id '{cid}' is used twice", f"{path}.id")
        if cid in by_battle:
            raise r.fail(f"{w}.id", f"'{cid}' is already a battle's id: companies and battles need "
                         "ids of their own", f"{path}.id")
        bid = r.need(c, "battle", str, w, path)
        if bid not in by_battle:
            raise r.fail(f"{w}.battle", f"no battle '{bid}' (battles: "
                         f"{', '.join(sorted(by_battle))})", f"{path}.battle")
        side = by_battle[bid].side
        if "side" in c and c["side"] != side:
            raise r.fail(f"{w}.side", f"{c['side']!r}, but its battle '{bid}' is {side}",
                         f"{path}.side")
        nation = _str_of(r, c, "nation", tables.NATIONS, w, path, "nation")
        if nation not in armies[side].nations:
            raise r.fail(f"{w}.nation", f"'{nation}' is not among the {side} army's nations "
                         f"({', '.join(armies[side].nations)})", f"{path}.nation")
        arm = _str_of(r, c, "arm", tables.ARMS, w, path, "arm")
        morale_raw = r.need(c, "morale", str, w, path)
        if morale_raw in tables.MORALE_ALIASES:
            raise r.fail(f"{w}.morale", f"write '{tables.MORALE_ALIASES[morale_raw]}' for "
                         f"'{morale_raw}' (the text's Reclute are Militia, HERALD D12)",
                         f"{path}.morale")
        morale = r.one_of(morale_raw, tables.MORALE, f"{w}.morale", f"{path}.morale",
                          "morale class")
        role = _str_of(r, c, "role", tables.ROLE_KEYS, w, path, "troop role")
        armour_ok = ("",) if arm == "artillery" else tables.ARMOUR_KEYS
        armour = _str_of(r, c, "armour", armour_ok, w, path,
                         "armour for " + arm + (" (guns wear none: write \"\")"
                                                if arm == "artillery" else ""), default="" if arm == "artillery" else None)
        armour_mixed = _str_of(r, c, "armour_mixed", ("",) + tables.ARMOUR_KEYS, w, path,
                               "armour", default="")
        if armour_mixed and tables.ARMOUR_RANK[armour_mixed] >= tables.ARMOUR_RANK[armour]:
            raise r.fail(f"{w}.armour_mixed", f"'{armour_mixed}' must be lighter than its best "
                         f"armour '{armour}' (Tipo di armatura L48)", f"{path}.armour_mixed")
        melee = _str_of(r, c, "melee_weapon", tables.MELEE_WEAPONS, w, path, "melee weapon",
                        default="side_arms" if arm == "artillery" else None)
        missile = _str_of(r, c, "missile_weapon", ("",) + tuple(tables.MISSILE_WEAPONS), w, path,
                          "missile weapon", default="")
        mfactor = _str_of(r, c, "melee_factor", tables.MELEE_FACTORS, w, path, "melee factor")
        sfactor = _str_of(r, c, "shooting_factor", ("",) + tuple(tables.SHOOTING_FACTORS), w, path,
                          "shooting factor", default="")
        bases = r.need(c, "bases", int, w, path)
        if bases not in tables.COMPANY_BASES:
            raise r.fail(f"{w}.bases", f"{bases}: a company has 1 (small), 2 (medium) or 4 (large) "
                         "bases (Compagnie L12)", f"{path}.bases")
        x, y, facing = _place(r, c, w, path)
        composition = _str_of(r, c, "composition", COMPOSITIONS, w, path, "composition",
                              default="")
        formation = r.opt(c, "formation", str, w, path, "")
        captain = _str_of(r, c, "captain", ("",) + tables.PERSONALITY_KEYS, w, path,
                          "captain's personality", default="")
        spec = CompanySpec(
            id=cid, side=side, battle=bid, name=r.need(c, "name", str, w, path), nation=nation,
            arm=arm, morale=morale, role=role, armour=armour, melee_weapon=melee,
            missile_weapon=missile, melee_factor=mfactor, shooting_factor=sfactor, bases=bases,
            x=x, y=y, facing=facing, screen=r.opt(c, "screen", bool, w, path, False),
            formation=formation, composition=composition, armour_mixed=armour_mixed,
            doppelsoldner=r.opt(c, "doppelsoldner", bool, w, path, False), captain=captain,
            ambush=r.opt(c, "ambush", bool, w, path, False),
            type=r.ident(c["type"], f"{w}.type", f"{path}.type") if "type" in c else "",
            note=r.opt(c, "note", str, w, path, ""))
        problem = company_problem(spec)
        if problem:
            field_, why = problem
            raise r.fail(f"{w}.{field_}", why, f"{path}.{field_}")
        out.append(spec)
    for b in battles:
        members = [c for c in out if c.battle == b.id]
        if not members:
            raise r.fail(f"{where} battles ({b.id})", f"the battle '{b.id}' has no company",
                         "battles")
        if b.commander not in {c.id for c in members}:
            raise r.fail(f"{where} battles ({b.id}).commander", f"'{b.commander}' is not a company "
                         f"of the battle '{b.id}': its commander is the captain of one of its own "
                         f"companies (Organizzazione dell'esercito L113); its companies: "
                         f"{', '.join(c.id for c in members)}", "battles")
    return tuple(out)


def company_problem(c: CompanySpec) -> tuple[str, str] | None:
    """(field, reason) when a company's printed attributes do not fit the text, else None:
    shooting troops and skirmishers need a missile weapon (Tipi di truppe L38-40), a missile
    weapon needs a shooting factor (and only then), guns are artillery shooting troops firing
    guns or war carts (L61-65), a colunella is two bases of shooters and shock troops (L70), a
    legion two bases of shock troops (L72), an igel is pikes (L67), a phalanx shock companies
    of neither Militia nor Rabble (L68, HERALD D12), a screen is crossbows or arquebuses in front
    of shock infantry (L84), a Swiss captain always Rash (Tabella 2 L249)."""
    artillery_weapon = c.missile_weapon in tables.ARTILLERY_WEAPONS
    if c.arm == "artillery":
        if not artillery_weapon:
            return "missile_weapon", ("an artillery company fires guns or war carts (light_gun, "
                                      "heavy_gun, organ_gun, war_cart: Artiglieria L61-65), not "
                                      f"{c.missile_weapon or 'nothing'}")
        if c.role != "shooting":
            return "role", "artillery are shooting troops (Tipi di truppe L38)"
    elif artillery_weapon:
        return "missile_weapon", f"{c.missile_weapon} is fired by artillery companies only"
    if c.role in ("shooting", "skirmishers") and not c.missile_weapon:
        return "missile_weapon", f"{c.role} troops are armed with missile weapons (Tipi di truppe " \
                                 "L38-40)"
    if c.role == "skirmishers" and c.arm == "artillery":
        return "role", "guns are not skirmishers"
    if c.missile_weapon and not c.shooting_factor:
        return "shooting_factor", (f"a company with a missile weapon ({c.missile_weapon}) needs a "
                                   "shooting factor: devastating, accurate, inexperienced or poor "
                                   "(Fattori di tiro L78-82)")
    if c.shooting_factor and not c.missile_weapon:
        return "shooting_factor", ("a shooting factor without a missile weapon: give the weapon or "
                                   "leave the factor out (a screen shoots with its own, L84)")
    if c.composition:
        need = tables.COMPOSITION_BASES[c.composition]
        if c.bases != need:
            return "bases", f"a {c.composition} is medium: {need} bases (Formazioni speciali L70-72)"
        if c.arm != "infantry":
            return "composition", f"a {c.composition} is infantry (Formazioni speciali L70-72)"
    if c.composition == "colunella" and (not c.missile_weapon or c.role == "skirmishers"):
        return "composition", ("a colunella is a base of shooting troops and a base of shock "
                               "troops: give it a missile weapon and the shock base's melee weapon "
                               "(Colunella L70)")
    if c.composition == "legion" and c.role != "shock":
        return "composition", "a legion is of shock troops (Legione L72)"
    if c.formation:
        if c.formation == "igel":
            if c.melee_weapon != "pike":
                return "formation", "an igel is formed by pikemen (Igel L67)"
        elif c.formation.startswith("phalanx:") and len(c.formation) > 8:
            if c.role != "shock":
                return "formation", "a phalanx is made of shock troops (Falange L68)"
            if c.morale in tables.PHALANX_EXCLUDED:
                return "formation", (f"{c.morale} companies cannot form a phalanx (Falange L68: "
                                     "Reclute, read as Militia, HERALD D12, or Feccia)")
        else:
            return "formation", (f"{c.formation!r}: write \"igel\" or \"phalanx:<label>\" (the "
                                 "companies sharing the label form one phalanx)")
    if c.screen and not (c.arm == "infantry" and c.role == "shock"):
        return "screen", ("a skirmisher screen stands in front of shock infantry (Schermi di "
                          "Schermagliatori L84)")
    if c.captain and c.nation in tables.SWISS_NATIONS and c.captain != tables.SWISS_PERSONALITY:
        return "captain", "a Swiss captain is always Rash (Tabella 2 L249: \"Svizzeri Sempre " \
                          "Irruento\")"
    return None


def _parse_camps(r: _Reader, data: dict, where: str, armies: dict[str, ArmySpec]
                 ) -> tuple[CampSpec, ...]:
    out: list[CampSpec] = []
    for i, c in enumerate(r.tables(data, "camps", where)):
        path = f"camps[{i}]"
        w = f"{where} camps[{i}]"
        r.keys(c, CAMP_KEYS, w, path)
        side = r.one_of(r.need(c, "side", str, w, path), list(armies), f"{w}.side", f"{path}.side",
                        "side")
        if any(o.side == side for o in out):
            raise r.fail(f"{w}.side", f"the {side} army has a camp already (one each, "
                         "Accampamento L237)", f"{path}.side")
        x, y, facing = _place(r, c, w, path)
        out.append(CampSpec(side, x, y, facing, r.opt(c, "name", str, w, path, "")))
    for side in armies:
        if not any(c.side == side for c in out):
            raise r.fail(f"{where} camps", f"the {side} army has no camp: \"Ogni esercito dev'essere "
                         "dotato di un accampamento\" (Accampamento L237)", "camps")
    return tuple(out)


# -- where things stand -----------------------------------------------------------------------

def _wet(poly, feature: Feature, crossings: list) -> float:
    """The area of `poly` on `feature` not covered by a bridge or ford."""
    part = poly.intersection(feature.geometry)
    for c in crossings:
        part = part.difference(c)
    return part.area


def ground_problem(poly, features: tuple[Feature, ...]) -> str | None:
    """Why nothing may stand on `poly` (impassable ground off its bridges: Terreno impassabile
    L199-205, "non possono transitare né essere schierate"), else None."""
    crossings = [f.geometry for f in features if f.kind in tables.CROSSING_KINDS]
    for f in features:
        if f.category != "impassable" or not poly.intersects(f.geometry):
            continue
        wet = _wet(poly, f, crossings)
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


def _in_zone(zone, poly) -> float:
    """Area of `poly` outside `zone` (0 when inside)."""
    if zone.buffer(EDGE_TOL).contains(poly):
        return 0.0
    return max(poly.difference(zone).area, OVERLAP_TOL * 2)


def _check_places(r: _Reader, where: str, sc: "Scenario") -> None:
    """Every company and camp on the table, on ground it may stand on, inside its deployment
    zone (an ambush: its own half, broken or closed ground, the defender's), overlapping nothing;
    the camps in open ground in their own halves."""
    shapes: list[tuple[str, Any, str]] = []          # (label, shape, path)
    attacker = sc.attacker()
    for i, c in enumerate(sc.companies):
        label = f"company {c.id} ({c.name})"
        path = f"companies[{i}]"
        w = f"{where} companies[{i}] ({c.id})"
        shape = company_shape(c)
        _on_table(r, shape, sc.width, sc.height, label + (" with its screen" if c.screen else ""),
                  w, path)
        why = ground_problem(shape, sc.features)
        if why:
            raise r.fail(w, f"{label} {why}", path)
        if c.ambush:
            if not attacker or attacker == c.side:
                raise r.fail(f"{w}.ambush", f"{label}: only the defender may lay an ambush (Prima "
                             "della battaglia 5, L270); name the other army the attacker "
                             "(attacker = true) to lay one", f"{path}.ambush")
            out = _in_zone(sc.own_half(c.side), shape)
            if out:
                raise r.fail(f"{w}.ambush", f"{label}: an ambush stays in its own half of the table "
                             f"(Prima della battaglia 5, L270); {out:.2f} sq UDM lie beyond it",
                             f"{path}.ambush")
            if not categories_at(company_rect(c), sc.features) & set(tables.AMBUSH_CATEGORIES):
                raise r.fail(f"{w}.ambush", f"{label}: an ambush hides in broken or closed ground "
                             "(Prima della battaglia 5, L270; out of the enemy's sight is for the "
                             "players' own table: a battle file uses the ground, HERALD D29)",
                             f"{path}.ambush")
        else:
            out = _in_zone(sc.deployment_zone(c.side), shape)
            if out:
                a = sc.armies[c.side]
                zone_txt = ("its army's deployment polygon" if a.deployment else
                            f"{tables.DEPLOYMENT_DEPTH:g} UDM of the {a.home_edge} edge")
                raise r.fail(w, f"{label} is outside the {c.side} deployment zone (within "
                             f"{zone_txt}, Prima della battaglia 5, L270) by {out:.2f} sq UDM",
                             path)
        shapes.append((label, shape, path))
    for i, cp in enumerate(sc.camps):
        label = f"the {cp.side} camp"
        path = f"camps[{i}]"
        w = f"{where} camps[{i}]"
        poly = camp_rect(cp)
        _on_table(r, poly, sc.width, sc.height, label, w, path)
        if not in_open_ground(poly, sc.features):
            cats = ", ".join(sorted(categories_at(poly, sc.features) - {"open"}))
            raise r.fail(w, f"{label} stands on {cats} ground: camps go \"esclusivamente in terreno "
                         "aperto\" (Prima della battaglia 6, L271)", path)
        out = _in_zone(sc.own_half(cp.side), poly)
        if out:
            raise r.fail(w, f"{label} lies {out:.2f} sq UDM beyond its own half of the table "
                         "(HERALD D23)", path)
        shapes.append((label, poly, path))
    for a in range(len(shapes)):
        la, pa, path_a = shapes[a]
        for b in range(a + 1, len(shapes)):
            lb, pb, _ = shapes[b]
            if not pa.intersects(pb):
                continue
            area = pa.intersection(pb).area
            if area > OVERLAP_TOL:
                raise r.fail(where, f"{la} overlaps {lb} by {area:.2f} sq UDM: they may touch but "
                             "not overlap", path_a)


def battle_groups(sc: "Scenario", battle_id: str) -> list[list[str]]:
    """The battle's companies split into groups in contact (each touching another of its group,
    within CONTACT_TOL, screens included): one group when the battle is deployed as the text asks
    [Organizzazione dell'esercito] L114 (HERALD D25)."""
    members = sc.companies_of(battle=battle_id)
    shapes = {c.id: company_shape(c) for c in members}
    ids = [c.id for c in members]
    groups: list[list[str]] = []
    left = list(ids)
    while left:
        group = [left.pop(0)]
        grew = True
        while grew:
            grew = False
            for o in list(left):
                if any(shapes[o].distance(shapes[g]) <= CONTACT_TOL for g in group):
                    group.append(o)
                    left.remove(o)
                    grew = True
        groups.append(group)
    return groups


def _check_contact(r: _Reader, where: str, sc: "Scenario") -> None:
    for b in sc.battles:
        groups = battle_groups(sc, b.id)
        if len(groups) > 1:
            shapes = {c.id: company_shape(c) for c in sc.companies_of(battle=b.id)}
            gap = min(shapes[a].distance(shapes[o]) for a in groups[0]
                      for g in groups[1:] for o in g)
            parts = "; ".join(", ".join(g) for g in groups)
            raise r.fail(f"{where} battles ({b.id})", f"the battle '{b.id}' ({b.name}) is not "
                         f"deployed with all its companies in contact (Organizzazione "
                         f"dell'esercito L114: \"tutte le compagnie siano a contatto tra di "
                         f"loro\"): it stands in {len(groups)} groups ({parts}), {gap:.2f} UDM "
                         "apart at the nearest", "battles")


def _check_phalanxes(r: _Reader, where: str, sc: "Scenario") -> None:
    """Companies sharing a phalanx label: of one side and battle, side by side in contact
    [Falange] L68 ("a contatto lato a lato")."""
    labels = sorted({(c.side, c.formation) for c in sc.companies if c.formation.startswith("phalanx:")})
    for side, label in labels:
        members = [c for c in sc.companies if c.side == side and c.formation == label]
        first = sc.companies.index(members[0])
        if len(members) < 2:
            raise r.fail(f"{where} companies[{first}] ({members[0].id}).formation",
                         f"the {label} has one company: a phalanx is several companies side by "
                         "side (Falange L68)", f"companies[{first}].formation")
        facings = {c.facing for c in members}
        if len(facings) > 1:
            raise r.fail(f"{where} companies[{first}] ({members[0].id}).formation",
                         f"the companies of {label} face different ways: side by side they share "
                         "a front (Falange L68)", f"companies[{first}].formation")
        rects = {c.id: company_rect(c) for c in members}
        done = [members[0].id]
        rest = [c.id for c in members[1:]]
        while rest:
            nxt = next((o for o in rest if any(rects[o].distance(rects[d]) <= CONTACT_TOL
                                               for d in done)), None)
            if nxt is None:
                raise r.fail(f"{where} companies[{first}] ({members[0].id}).formation",
                             f"{', '.join(rest)} of {label} are not in contact with the rest "
                             "(Falange L68: \"a contatto lato a lato\")",
                             f"companies[{first}].formation")
            done.append(nxt)
            rest.remove(nxt)


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a battle; raises ScenarioError naming what is wrong (and where)."""
    data = read_toml(text, source, MAX_SCENARIO_BYTES, ScenarioError)
    r = _Reader(text, source)
    top = f"{source} [{data['id']}]" if isinstance(data.get("id"), str) else source
    r.keys(data, TOP_KEYS, top, "")
    sid = r.ident(data.get("id"), f"{source}.id", "id")
    where = f"{source} [{sid}]"
    width, height = _parse_table(r, data, where)
    armies = _parse_armies(r, data, where, width, height)
    features = _parse_features(r, data, where, width, height)
    battles = _parse_battles(r, data, where, armies)
    companies = _parse_companies(r, data, where, armies, battles)
    camps = _parse_camps(r, data, where, armies)
    turn_limit = r.opt(data, "turn_limit", int, where, "turn_limit", 0)
    if not 0 <= turn_limit <= 99:
        raise r.fail(f"{where}.turn_limit", f"{turn_limit} is not 0 (none) or 1..99", "turn_limit")
    season = r.one_of(r.opt(data, "season", str, where, "season", ""), ("",) + tables.SEASONS,
                      f"{where}.season", "season", "season")
    weather = r.one_of(r.opt(data, "weather", str, where, "weather", ""), ("",) + tables.WEATHERS,
                       f"{where}.weather", "weather", "weather")
    clock = r.opt(data, "clock", int, where, "clock", 0)
    if not 0 <= clock <= tables.DAY_HOURS:
        raise r.fail(f"{where}.clock", f"{clock} is not 0 (rolled on 2d6, Ora del giorno) or a turn "
                     f"of the day clock 1..{tables.DAY_HOURS}", "clock")
    for side in armies:
        if not any(c.side == side for c in companies):
            raise r.fail(f"{where} companies", f"the {side} army has no company", "companies")

    specials: list[SpecialRule] = []
    for i, s in enumerate(r.tables(data, "special_rules", where, required=False)):
        path = f"special_rules[{i}]"
        w = f"{where} special_rules[{i}]"
        r.keys(s, SPECIAL_KEYS, w, path)
        rid = r.one_of(r.need(s, "id", str, w, path), list(SPECIAL_RULES), f"{w}.id", f"{path}.id",
                       "special rule")
        specials.append(SpecialRule(rid, r.need(s, "text", str, w, path).strip()))
    hist = r.opt(data, "history", dict, where, "history", {})
    r.keys(hist, HISTORY_KEYS, f"{where} history", "history")
    prov = r.opt(data, "provenance", dict, where, "provenance", {})
    r.keys(prov, PROVENANCE_KEYS, f"{where} provenance", "provenance")
    for k in ("from_text", "herald_completion", "sources"):
        r.opt(prov, k, list, f"{where} provenance", "provenance", [])

    sc = Scenario(
        id=sid, title=r.need(data, "title", str, where, "title"),
        date=r.opt(data, "date", str, where, "", ""), width=width, height=height,
        features=features, armies=armies, battles=battles, companies=companies, camps=camps,
        turn_limit=turn_limit, season=season, weather=weather, clock_start=clock,
        special_rules=tuple(specials), provenance=dict(prov), history=dict(hist),
        description=r.opt(data, "description", str, where, "", "").strip(), source=source)
    _check_places(r, where, sc)
    _check_contact(r, where, sc)
    _check_phalanxes(r, where, sc)
    return sc


def list_scenarios() -> list[str]:
    return bundled_ids(SCENARIO_DIR)


@lru_cache(maxsize=8)
def load_scenario(scenario_id: str) -> Scenario:
    """A bundled battle by id (the file name without .toml). Cached: do not mutate it."""
    text, name = read_bundled(SCENARIO_DIR, scenario_id, "Italian Wars", ScenarioError)
    return parse_scenario(text, source=name)
