"""Jours de Gloire "Classique" scenarios as data files (TOML), and the validator that also checks a
club's upload (issue 14).

The rulebook (rules/jours-de-gloire.it.txt) gives the series rules and, for Marengo 1800, the
special rules of section "D." (scale, counter abbreviations, the immobile Ott bridgehead artillery
with six frontal hexes, the "Zach" IA, the IACs "Grande charge" and "Marmont", cascina hexes, the
impassable Bormida, three French cavalry per hex, and the errata's immobile Austrian reserve
artillery in hex 0110). The scenarios themselves, maps, orders of battle, counter values, turn
track, night turns, rout exits and victory points are "cfr. VV # 35", not in the text (digest §7,
A2): a scenario file carries them as Herald completion, and its `[provenance]` block says which
is the text's and which is ours.

Schema (one file per battle; see `scenarios/*.toml`). Hex ids are "CCRR", column then row, from
01 (engine.core.hexgrid); `orientation` "flat" (columns of hexes) or "pointy", `shove` "odd" or
"even". Facing is a hex vertex [6.1]: a name (flat: E SE SW W NW NE; pointy: NE SE S SW NW N) or
its index 0..5 (engine.core.facing).

    id, title, date, game, description, scale = {infantry_per_sp, cavalry_per_sp,
        guns_per_artillery_sp, metres_per_hex, minutes_per_turn}
    formations = [{id, side, name, commander, initiative, colour, markers?, note?}, ...]
        initiative: the commander's value printed on the formation's two IAs [2.1, 2.4];
        markers: IAs per formation (2, [2.1])
    units = [{id, name, side, formation, arm, subtype, strength, cohesion, cohesion_back,
        engagement, mp, mp_back, firepower?, effective_range?, max_range?, hex?, facing,
        immobile?, six_fronts?, vp?, note?}, ...]
        arm: infantry | cavalry | artillery [0.3]; subtype: SUBTYPES (heavy cavalry "L" is
        subtype "heavy"); cohesion_back / mp_back: the disordered side [10.1, 11, 10.4];
        artillery: engagement 0 [8.9], firepower and ranges [7.3]; a unit without `hex` must be
        in exactly one reinforcement
    [map]        cols, rows, orientation, shove, labels = [{hex, text}],
                 roads = [{name, hexes, kind? (road | path)}]  (hexes in order, each adjacent)
                 hexsides = [{hex, side | sides, type, name?}]  (HEXSIDE_TYPES)
    [map.terrain]    <terrain> = ["CCRR", ...]   (TERRAIN; a hex not listed is clear)
    [map.elevation]  <level> = ["CCRR", ...]     (levels "1", "2"...; a hex not listed is 0)
    [turns]      count, start = "09:00", night = [turn numbers]   [12]
    [[commanders]]   id, side, name, modifier, order_potential, command_radius, hex,
                 leaves_turn?, successor? = {name, modifier, order_potential, command_radius}
                 ([2.5]; leaves_turn: he leaves the battle at the end of that turn, section D)
    [[reinforcements]] id, side, formation, turn, entry_hexes, units, arrival ("marker": [5.2]),
                 note?
    [rout_exits]  <side> = {edge, hexes?}   [10.4]: the map edge routed units make for
    [victory]    hexes = [{hex, name, vp, holder}], unit_eliminated_vp, unit_routed_vp,
                 commander_vp, automatic = [{id, side, kind, hexes?, mode?, count?, from_turn?,
                 to_turn?, text}], historical_result, notes   [13]
    [[markers]]  id, side, kind ("special_ia" | "iac"), name, uses, initiative?, activates?
                 ("all_cavalry" | "all_artillery"), max_activations?, removes_formations?,
                 trigger?, text   (section D 2.1)
    [provenance] from_text = [...], herald_completion = [...], sources = [...], note

Every table refuses keys it does not know, naming the key, the closest allowed key and the line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from engine.core.facing import VERTEX_NAMES
from engine.core.hexgrid import HexGrid
from engine.core.scenario_files import (FieldReader, bundled_ids, close_match, read_bundled,
                                        read_toml)

SCENARIO_DIR = Path(__file__).parent / "scenarios"
MAX_SCENARIO_BYTES = 160 * 1024

SIDES = ("french", "austrian")
ARMS = ("infantry", "cavalry", "artillery")
# [0.3] and section D 0.3 (Leg., Hu., Ch., Dr., Cav., Gr.): what a counter is.
SUBTYPES = {
    "infantry": ("line", "light", "grenadiers", "guard", "grenzer", "jager"),
    "cavalry": ("heavy", "dragoons", "hussars", "chasseurs", "guard", "light"),
    "artillery": ("foot", "horse", "position", "guard"),
}
# Terrain of a hex, named as the Terrain Effects Table of engine/jdg/tables.py (the printed TET is
# missing, A1). The text names village, town, woods, crops (coltivazioni), palm groves, marsh,
# fortification, castle [7.4, 9.1]; Marengo adds cascina and the Bormida with its flooded hexes
# ("river_hex", section D 4.3). Vineyards are crops (coltivazioni).
TERRAIN = ("clear", "village", "town", "cascina", "crops", "woods", "palm_grove", "marsh",
           "fortification", "castle", "river_hex")
IMPASSABLE_TERRAIN = ("river_hex",)                # section D 4.3: no unit may enter
SIX_FRONT_TERRAIN = ("village", "town", "fortification")   # [6.1]
# Hexside features [0.2, 4.3, 6.2, 7.4, 10.3] (tables.py keys; "fortification_side" is a rampart,
# "river" a watercourse crossed only at a ford or bridge, "impassable" any other barrier).
HEXSIDE_TYPES = ("river", "stream", "ford", "bridge", "crest", "steep_slope", "trench",
                 "fortification_side", "impassable")
EDGES = ("north", "south", "east", "west")
MARKER_KINDS = ("special_ia", "iac")
IAC_ACTIVATES = ("all_cavalry", "all_artillery")
AUTO_KINDS = ("occupy", "losses")
ROAD_KINDS = ("road", "path")

TOP_KEYS = {"id", "title", "date", "game", "description", "scale", "formations", "units", "map",
            "turns", "commanders", "reinforcements", "rout_exits", "victory", "markers",
            "provenance"}
SCALE_KEYS = {"infantry_per_sp", "cavalry_per_sp", "guns_per_artillery_sp", "metres_per_hex",
              "minutes_per_turn", "men_per_artillery_sp"}
FORMATION_KEYS = {"id", "side", "name", "commander", "initiative", "colour", "markers", "note"}
UNIT_KEYS = {"id", "name", "side", "formation", "arm", "subtype", "strength", "cohesion",
             "cohesion_back", "engagement", "mp", "mp_back", "firepower", "effective_range",
             "max_range", "hex", "facing", "immobile", "six_fronts", "vp", "note"}
MAP_KEYS = {"cols", "rows", "orientation", "shove", "terrain", "elevation", "hexsides", "roads",
            "labels"}
HEXSIDE_KEYS = {"hex", "side", "sides", "type", "name"}
ROAD_KEYS = {"name", "hexes", "kind"}
LABEL_KEYS = {"hex", "text"}
TURN_KEYS = {"count", "start", "night", "note"}
COMMANDER_KEYS = {"id", "side", "name", "modifier", "order_potential", "command_radius", "hex",
                  "leaves_turn", "successor", "note"}
SUCCESSOR_KEYS = {"name", "modifier", "order_potential", "command_radius"}
REINFORCEMENT_KEYS = {"id", "side", "formation", "turn", "entry_hexes", "units", "arrival", "note"}
EXIT_KEYS = {"edge", "hexes", "note"}
VICTORY_KEYS = {"hexes", "unit_eliminated_vp", "unit_routed_vp", "commander_vp", "automatic",
                "historical_result", "notes"}
VHEX_KEYS = {"hex", "name", "vp", "holder"}
AUTO_KEYS = {"id", "side", "kind", "hexes", "mode", "count", "from_turn", "to_turn", "text"}
MARKER_KEYS = {"id", "side", "kind", "name", "uses", "initiative", "activates",
               "max_activations", "removes_formations", "trigger", "text"}
PROVENANCE_KEYS = {"from_text", "herald_completion", "sources", "note"}

_TIME_RE = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class ScenarioError(ValueError):
    """A scenario file is not valid; the message names the field (and the line where known)."""


@lru_cache(maxsize=8)
def map_grid(cols: int, rows: int, orientation: str = "flat", shove: str = "odd") -> HexGrid:
    return HexGrid(cols, rows, orientation, shove)


# -- the parsed scenario --------------------------------------------------------------------

@dataclass(frozen=True)
class Scale:
    infantry_per_sp: int = 200          # [0.1]
    cavalry_per_sp: int = 150           # [0.1]
    guns_per_artillery_sp: int = 4      # [0.1] "about 4 guns"
    men_per_artillery_sp: int = 100     # HERALD: gunners and train, for the men totals
    metres_per_hex: int = 350           # section D 0.1
    minutes_per_turn: int = 80          # section D 0.1: 1 h 20 min


@dataclass(frozen=True)
class Hexside:
    """A feature on the side between `hex` and `other` (`side` is its name seen from `hex`)."""
    hex: str
    side: str
    other: str
    type: str
    name: str = ""


@dataclass(frozen=True)
class Road:
    name: str
    hexes: tuple[str, ...]
    kind: str = "road"                  # road | path ("sentiero", [4.3])


@dataclass(frozen=True)
class MapLabel:
    hex: str
    text: str


@dataclass(frozen=True)
class MapData:
    cols: int
    rows: int
    orientation: str
    shove: str
    terrain: dict[str, str]                     # hex -> terrain (absent: clear)
    elevation: dict[str, int]                   # hex -> level (absent: 0)
    hexsides: dict[frozenset[str], tuple[Hexside, ...]]   # {a, b} -> features on that side
    roads: tuple[Road, ...] = ()
    labels: tuple[MapLabel, ...] = ()

    @property
    def grid(self) -> HexGrid:
        return map_grid(self.cols, self.rows, self.orientation, self.shove)

    def terrain_at(self, hex_id: str) -> str:
        return self.terrain.get(hex_id, "clear")

    def level(self, hex_id: str) -> int:
        return self.elevation.get(hex_id, 0)

    def features(self, a: str, b: str) -> tuple[str, ...]:
        return tuple(h.type for h in self.hexsides.get(frozenset((a, b)), ()))

    def passable(self, hex_id: str) -> bool:
        return self.terrain_at(hex_id) not in IMPASSABLE_TERRAIN


@dataclass(frozen=True)
class FormationSetup:
    id: str
    side: str
    name: str
    commander: str
    initiative: int                     # printed on its IAs [2.4]
    colour: str                         # the counters' stripe [0.3]
    markers: int = 2                    # IAs [2.1]
    note: str = ""


@dataclass(frozen=True)
class UnitSetup:
    id: str
    name: str
    side: str
    formation: str
    arm: str                            # infantry / cavalry / artillery
    subtype: str
    strength: int
    cohesion: int
    cohesion_back: int                  # disordered side [11]
    engagement: int                     # 0 for artillery [8.9]
    mp: int
    mp_back: int                        # disordered side, rout movement [10.4]
    hex: str | None                     # None: a reinforcement
    facing: int                         # vertex 0..5
    firepower: int = 0                  # artillery [7.3]
    effective_range: int = 0
    max_range: int = 0
    immobile: bool = False              # section D: Ott bridgehead, reserve artillery in 0110
    six_fronts: bool = False            # section D: the bridgehead artillery fires all round
    vp: int = 1
    note: str = ""

    @property
    def heavy(self) -> bool:
        """Heavy cavalry, the counter's "L" [9.2]."""
        return self.arm == "cavalry" and self.subtype == "heavy"


@dataclass(frozen=True)
class Successor:
    name: str
    modifier: int
    order_potential: int
    command_radius: int


@dataclass(frozen=True)
class CommanderSetup:
    """A commander-in-chief [2.5]."""
    id: str
    side: str
    name: str
    modifier: int
    order_potential: int
    command_radius: int
    hex: str
    leaves_turn: int = 0                # 0: stays; else leaves at the end of that turn
    successor: Successor | None = None
    note: str = ""


@dataclass(frozen=True)
class Reinforcement:
    """Units that enter when their formation's IA is drawn [5.2]."""
    id: str
    side: str
    formation: str
    turn: int
    entry_hexes: tuple[str, ...]
    units: tuple[str, ...]
    arrival: str = "marker"
    note: str = ""


@dataclass(frozen=True)
class TurnTrack:
    count: int
    start: str                          # "HH:MM" of turn 1
    night: tuple[int, ...]              # night turns [12]
    minutes_per_turn: int = 80
    note: str = ""

    def time_of(self, turn: int) -> str:
        h, m = map(int, self.start.split(":"))
        total = h * 60 + m + (turn - 1) * self.minutes_per_turn
        return f"{(total // 60) % 24:02d}:{total % 60:02d}"

    def is_night(self, turn: int) -> bool:
        return turn in self.night


@dataclass(frozen=True)
class RoutExit:
    side: str
    edge: str
    hexes: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class VictoryHex:
    hex: str
    name: str
    vp: int
    holder: str                         # who holds it at the start (last to occupy holds it)


@dataclass(frozen=True)
class AutoVictory:
    """An automatic victory [13], checked at the end of a turn."""
    id: str
    side: str
    kind: str                           # occupy (hexes, mode any/all) | losses (count of enemy units)
    text: str
    hexes: tuple[str, ...] = ()
    mode: str = "any"
    count: int = 0
    from_turn: int = 1
    to_turn: int = 0                    # 0: to the end


@dataclass(frozen=True)
class Victory:
    hexes: tuple[VictoryHex, ...]
    unit_eliminated_vp: int
    unit_routed_vp: int
    commander_vp: int
    automatic: tuple[AutoVictory, ...]
    historical_result: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SpecialMarker:
    """Section D 2.1: the "Zach" IA and the combined markers (IAC) "Grande charge", "Marmont"."""
    id: str
    side: str
    kind: str                           # special_ia | iac
    name: str
    uses: int
    text: str
    initiative: int = 0                 # an IAC's own initiative value
    activates: str = ""                 # IAC: all_cavalry | all_artillery of its side
    max_activations: int = 0            # IAC: a unit may then act up to this often in the turn
    removes_formations: tuple[str, ...] = ()   # Zach: the IAs it takes out of the cup
    trigger: str = ""                   # Zach: "after_leaves:<commander id>"


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    date: str
    game: str
    description: str
    scale: Scale
    map: MapData
    formations: tuple[FormationSetup, ...]
    units: tuple[UnitSetup, ...]
    commanders: tuple[CommanderSetup, ...]
    reinforcements: tuple[Reinforcement, ...]
    turns: TurnTrack
    rout_exits: dict[str, RoutExit]
    victory: Victory
    markers: tuple[SpecialMarker, ...]
    provenance: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @cached_property
    def _unit_index(self) -> dict[str, UnitSetup]:
        return {u.id: u for u in self.units}

    def unit(self, unit_id: str) -> UnitSetup:
        return self._unit_index[unit_id]

    def formation(self, formation_id: str) -> FormationSetup:
        return next(f for f in self.formations if f.id == formation_id)

    def marker(self, marker_id: str) -> SpecialMarker:
        return next(m for m in self.markers if m.id == marker_id)

    def commander(self, side: str) -> CommanderSetup:
        return next(c for c in self.commanders if c.side == side)

    def formations_of(self, side: str) -> tuple[FormationSetup, ...]:
        return tuple(f for f in self.formations if f.side == side)

    def units_of(self, formation_id: str) -> tuple[UnitSetup, ...]:
        return tuple(u for u in self.units if u.formation == formation_id)

    def starting_units(self) -> tuple[UnitSetup, ...]:
        """The units on the map at the start (the others arrive as reinforcements)."""
        return tuple(u for u in self.units if u.hex is not None)

    def reinforcement_of(self, unit_id: str) -> Reinforcement | None:
        return next((r for r in self.reinforcements if unit_id in r.units), None)

    def men(self, side: str) -> dict[str, int]:
        """Men per arm at the text's scale (artillery: gunners at scale.men_per_artillery_sp)."""
        out = {"infantry": 0, "cavalry": 0, "artillery": 0, "guns": 0}
        for u in self.units:
            if u.side != side:
                continue
            if u.arm == "infantry":
                out["infantry"] += u.strength * self.scale.infantry_per_sp
            elif u.arm == "cavalry":
                out["cavalry"] += u.strength * self.scale.cavalry_per_sp
            else:
                out["artillery"] += u.strength * self.scale.men_per_artillery_sp
                out["guns"] += u.strength * self.scale.guns_per_artillery_sp
        out["total"] = out["infantry"] + out["cavalry"] + out["artillery"]
        return out


# -- reading --------------------------------------------------------------------------------

class _Reader(FieldReader):
    """Field readers that name the place (and line) of what is wrong, as a ScenarioError."""

    def __init__(self, text: str, source: str):
        super().__init__(text, source, ScenarioError)


def _named(table: dict) -> str:
    """' (<id>)' after a table's place in a message, when it has a readable id."""
    return f" ({table['id']})" if isinstance(table.get("id"), str) else ""


def _hex_checker(r: _Reader, grid: HexGrid, terrain: dict[str, str] | None = None):
    def hex_on_map(value: Any, where: str, path: str, passable: bool = False) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            raise r.fail(where, f"write hex ids as quoted strings, \"{value:04d}\", not {value}",
                         path)
        if not isinstance(value, str) or value not in grid:
            raise r.fail(where, f"{value!r} is not a hex of the {grid.cols}x{grid.rows} map "
                         f"(CCRR, columns 01-{grid.cols:02d}, rows 01-{grid.rows:02d})", path)
        if passable and terrain is not None and terrain.get(value) in IMPASSABLE_TERRAIN:
            raise r.fail(where, f"{value} is {terrain[value]}: impassable (section D 4.3)", path)
        return value
    return hex_on_map


def _facing(r: _Reader, value: Any, orientation: str, where: str, path: str) -> int:
    names = VERTEX_NAMES[orientation]
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= 5:
            return value
        raise r.fail(where, f"{value} is not a vertex 0..5", path)
    if isinstance(value, str) and value.upper() in names:
        return names.index(value.upper())
    raise r.fail(where, f"{value!r} is not a facing vertex ({', '.join(names)} or 0..5)", path)


def _edges_of(m: MapData, hex_id: str) -> set[str]:
    """The map edges a hex touches (by column and row, counted from 01)."""
    c, r = int(hex_id[:2]), int(hex_id[2:])
    out = set()
    if c == 1:
        out.add("west")
    if c == m.cols:
        out.add("east")
    if r == 1:
        out.add("north")
    if r == m.rows:
        out.add("south")
    return out


def _on_edge(m: MapData, hex_id: str) -> bool:
    return bool(_edges_of(m, hex_id))


def _parse_map(r: _Reader, data: dict, where: str) -> MapData:
    m = r.need(data, "map", dict, where, "map")
    w = f"{where} map"
    r.keys(m, MAP_KEYS, w, "map")
    cols = r.int_in(m, "cols", 2, 99, w, "map")
    rows = r.int_in(m, "rows", 2, 99, w, "map")
    orientation = r.one_of(r.opt(m, "orientation", str, w, "map", "flat"), ("flat", "pointy"),
                           f"{w}.orientation", "map.orientation")
    shove = r.one_of(r.opt(m, "shove", str, w, "map", "odd"), ("odd", "even"), f"{w}.shove",
                     "map.shove")
    grid = map_grid(cols, rows, orientation, shove)
    on_map = _hex_checker(r, grid)

    terrain: dict[str, str] = {}
    for name, hexes in r.opt(m, "terrain", dict, w, "map", {}).items():
        path = f"map.terrain.{name}"
        if name not in TERRAIN:
            match = close_match(name, TERRAIN)
            raise r.fail(f"{w}.terrain", f"unknown terrain '{name}' ("
                         + (f"did you mean '{match}'? " if match else "")
                         + f"known: {', '.join(TERRAIN)})", path)
        for h in r.check(hexes, list, f"{w}.terrain.{name}", path):
            on_map(h, f"{w}.terrain.{name}", path)
            if h in terrain:
                raise r.fail(f"{w}.terrain.{name}", f"hex {h} is already {terrain[h]}", path)
            if name != "clear":
                terrain[h] = name

    elevation: dict[str, int] = {}
    for level, hexes in r.opt(m, "elevation", dict, w, "map", {}).items():
        path = f"map.elevation.{level}"
        if not level.isdigit() or not 0 <= int(level) <= 9:
            raise r.fail(f"{w}.elevation", f"level '{level}' is not 0..9", path)
        for h in r.check(hexes, list, f"{w}.elevation.{level}", path):
            on_map(h, f"{w}.elevation.{level}", path)
            if h in elevation:
                raise r.fail(f"{w}.elevation.{level}", f"hex {h} already has level "
                             f"{elevation[h]}", path)
            if int(level):
                elevation[h] = int(level)

    hexsides: dict[frozenset[str], tuple[Hexside, ...]] = {}
    for i, hs in enumerate(r.opt(m, "hexsides", list, w, "map", [])):
        ww, path = f"{w}.hexsides[{i}]", f"map.hexsides[{i}]"
        r.check(hs, dict, ww, path)
        r.keys(hs, HEXSIDE_KEYS, ww, path)
        h = on_map(hs.get("hex"), f"{ww}.hex", path)
        kind = r.one_of(hs.get("type"), HEXSIDE_TYPES, f"{ww}.type", path)
        if ("side" in hs) == ("sides" in hs):
            raise r.fail(ww, "give exactly one of 'side' or 'sides'", path)
        names = [hs["side"]] if "side" in hs else r.check(hs["sides"], list, f"{ww}.sides", path)
        for s in names:
            try:
                d = grid.side_index(str(s))
            except ValueError:
                raise r.fail(ww, f"'{s}' is not a hexside of a {orientation}-top hex "
                             f"({', '.join(grid.side_name(k) for k in range(6))})", path) from None
            other = grid.neighbor(h, d)
            if other is None:
                raise r.fail(ww, f"side {s} of {h} is on the map edge", path)
            key = frozenset((h, other))
            feature = Hexside(h, grid.side_name(d), other, kind, r.opt(hs, "name", str, ww, path, ""))
            if any(f.type == kind for f in hexsides.get(key, ())):
                raise r.fail(ww, f"the side {h}-{other} already has a {kind}", path)
            hexsides[key] = hexsides.get(key, ()) + (feature,)

    roads = []
    for i, rd in enumerate(r.opt(m, "roads", list, w, "map", [])):
        ww, path = f"{w}.roads[{i}]", f"map.roads[{i}]"
        r.check(rd, dict, ww, path)
        r.keys(rd, ROAD_KEYS, ww, path)
        hexes = [on_map(h, f"{ww}.hexes", path) for h in r.need(rd, "hexes", list, ww, path)]
        if len(hexes) < 2:
            raise r.fail(ww, "a road needs at least two hexes", path)
        for a, b in zip(hexes, hexes[1:]):
            if not grid.adjacent(a, b):
                raise r.fail(ww, f"{a} and {b} are not adjacent (a road runs hex to hex)", path)
        kind = r.one_of(r.opt(rd, "kind", str, ww, path, "road"), ROAD_KINDS, f"{ww}.kind", path)
        roads.append(Road(r.need(rd, "name", str, ww, path), tuple(hexes), kind))

    labels = []
    for i, lb in enumerate(r.opt(m, "labels", list, w, "map", [])):
        ww, path = f"{w}.labels[{i}]", f"map.labels[{i}]"
        r.check(lb, dict, ww, path)
        r.keys(lb, LABEL_KEYS, ww, path)
        labels.append(MapLabel(on_map(lb.get("hex"), f"{ww}.hex", path),
                               r.need(lb, "text", str, ww, path)))
    return MapData(cols, rows, orientation, shove, terrain, elevation, hexsides, tuple(roads),
                   tuple(labels))


def _parse_formations(r: _Reader, data: dict, where: str) -> tuple[FormationSetup, ...]:
    out: dict[str, FormationSetup] = {}
    for i, f in enumerate(r.tables(data, "formations", where)):
        path = f"formations[{i}]"
        ww = f"{where} formations[{i}]" + _named(f)
        r.keys(f, FORMATION_KEYS, ww, path)
        fid = r.ident(f.get("id"), f"{ww}.id", path)
        ww = f"{where} formations ({fid})"
        if fid in out:
            raise r.fail(f"{ww}.id", f"'{fid}' is used twice", path)
        out[fid] = FormationSetup(
            fid, r.one_of(f.get("side"), SIDES, f"{ww}.side", path),
            r.need(f, "name", str, ww, path), r.need(f, "commander", str, ww, path),
            r.int_in(f, "initiative", 0, 9, ww, path), r.need(f, "colour", str, ww, path),
            r.int_in(f, "markers", 1, 3, ww, path, 2), r.opt(f, "note", str, ww, path, ""))
    return tuple(out.values())


def _parse_units(r: _Reader, data: dict, where: str, m: MapData,
                 formations: dict[str, FormationSetup]) -> tuple[UnitSetup, ...]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    out: dict[str, UnitSetup] = {}
    for i, u in enumerate(r.tables(data, "units", where)):
        path = f"units[{i}]"
        ww = f"{where} units[{i}]" + _named(u)
        r.keys(u, UNIT_KEYS, ww, path)
        uid = r.ident(u.get("id"), f"{ww}.id", path)
        ww = f"{where} units ({uid})"
        if uid in out:
            raise r.fail(f"{ww}.id", f"'{uid}' is used twice", path)
        side = r.one_of(u.get("side"), SIDES, f"{ww}.side", path)
        fid = u.get("formation")
        if fid not in formations:
            match = close_match(str(fid), formations)
            raise r.fail(f"{ww}.formation", f"no formation {fid!r}"
                         + (f" (did you mean '{match}'?)" if match else ""), path)
        if formations[fid].side != side:
            raise r.fail(f"{ww}.formation", f"'{fid}' is a {formations[fid].side} formation", path)
        arm = r.one_of(u.get("arm"), ARMS, f"{ww}.arm", path)
        subtype = r.one_of(u.get("subtype"), SUBTYPES[arm], f"{ww}.subtype", path)
        artillery = arm == "artillery"
        strength = r.int_in(u, "strength", 1, 6 if artillery else 20, ww, path)
        cohesion = r.int_in(u, "cohesion", 1, 9, ww, path)
        cohesion_back = r.int_in(u, "cohesion_back", 0, cohesion, ww, path)
        engagement = r.int_in(u, "engagement", 0, 0 if artillery else 9, ww, path,
                              0 if artillery else None)
        if not artillery and engagement < 1:
            raise r.fail(f"{ww}.engagement", "infantry and cavalry need 1..9", path)
        immobile = r.opt(u, "immobile", bool, ww, path, False)
        mp = r.int_in(u, "mp", 0, 0, ww, path) if immobile else r.int_in(u, "mp", 1, 12, ww, path)
        mp_back = r.int_in(u, "mp_back", 0, mp, ww, path)
        if artillery:
            firepower = r.int_in(u, "firepower", 1, 9, ww, path)
            max_range = r.int_in(u, "max_range", 1, 15, ww, path)
            effective = r.int_in(u, "effective_range", 1, max_range, ww, path)
        else:
            for k in ("firepower", "effective_range", "max_range"):
                if k in u:
                    raise r.fail(f"{ww}.{k}", "only artillery has firepower and ranges [7.3]",
                                 f"{path}.{k}")
            firepower = effective = max_range = 0
        six = r.opt(u, "six_fronts", bool, ww, path, False)
        if six and not immobile:
            raise r.fail(f"{ww}.six_fronts", "only an immobile battery has six frontal hexes "
                         "by itself (section D)", path)
        hex_id = u.get("hex")
        if hex_id is not None:
            hex_id = on_map(hex_id, f"{ww}.hex", path, passable=True)
        elif immobile:
            raise r.fail(ww, "an immobile unit must start on the map", path)
        out[uid] = UnitSetup(
            uid, r.need(u, "name", str, ww, path), side, fid, arm, subtype, strength, cohesion,
            cohesion_back, engagement, mp, mp_back, hex_id,
            _facing(r, u.get("facing"), m.orientation, f"{ww}.facing", path), firepower,
            effective, max_range, immobile, six, r.int_in(u, "vp", 0, 9, ww, path, 1),
            r.opt(u, "note", str, ww, path, ""))
    return tuple(out.values())


def _parse_commanders(r: _Reader, data: dict, where: str, m: MapData) -> tuple[CommanderSetup, ...]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    out = []
    for i, c in enumerate(r.tables(data, "commanders", where)):
        path = f"commanders[{i}]"
        ww = f"{where} commanders[{i}]" + _named(c)
        r.keys(c, COMMANDER_KEYS, ww, path)
        cid = r.ident(c.get("id"), f"{ww}.id", path)
        ww = f"{where} commanders ({cid})"
        succ = None
        if "successor" in c:
            s = r.check(c["successor"], dict, f"{ww}.successor", f"{path}.successor")
            r.keys(s, SUCCESSOR_KEYS, f"{ww}.successor", f"{path}.successor")
            sw = f"{ww}.successor"
            succ = Successor(r.need(s, "name", str, sw, path), r.int_in(s, "modifier", 0, 5, sw, path),
                             r.int_in(s, "order_potential", 1, 9, sw, path),
                             r.int_in(s, "command_radius", 1, 40, sw, path))
        out.append(CommanderSetup(
            cid, r.one_of(c.get("side"), SIDES, f"{ww}.side", path), r.need(c, "name", str, ww, path),
            r.int_in(c, "modifier", 0, 5, ww, path), r.int_in(c, "order_potential", 1, 9, ww, path),
            r.int_in(c, "command_radius", 1, 40, ww, path),
            on_map(c.get("hex"), f"{ww}.hex", path, passable=True),
            r.int_in(c, "leaves_turn", 0, 99, ww, path, 0), succ, r.opt(c, "note", str, ww, path, "")))
    for side in SIDES:
        n = sum(c.side == side for c in out)
        if n != 1:
            raise r.fail(f"{where} commanders", f"{side} needs exactly one commander-in-chief "
                         f"[2.5], has {n}", "commanders")
    if len({c.id for c in out}) != len(out):
        raise r.fail(f"{where} commanders", "an id is used twice", "commanders")
    return tuple(out)


def _parse_turns(r: _Reader, data: dict, where: str, scale: Scale) -> TurnTrack:
    t = r.need(data, "turns", dict, where, "turns")
    ww = f"{where} turns"
    r.keys(t, TURN_KEYS, ww, "turns")
    count = r.int_in(t, "count", 1, 40, ww, "turns")
    start = r.need(t, "start", str, ww, "turns")
    if not _TIME_RE.match(start):
        raise r.fail(f"{ww}.start", f"{start!r} is not a time HH:MM", "turns.start")
    night = r.opt(t, "night", list, ww, "turns", [])
    for n in night:
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= count:
            raise r.fail(f"{ww}.night", f"{n!r} is not a turn 1..{count}", "turns.night")
    return TurnTrack(count, start, tuple(sorted(set(night))), scale.minutes_per_turn,
                     r.opt(t, "note", str, ww, "turns", ""))


def _parse_reinforcements(r: _Reader, data: dict, where: str, m: MapData, turns: TurnTrack,
                          formations: dict[str, FormationSetup],
                          units: dict[str, UnitSetup]) -> tuple[Reinforcement, ...]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    out: list[Reinforcement] = []
    placed: dict[str, str] = {}
    for i, rf in enumerate(r.tables(data, "reinforcements", where, required=False)):
        path = f"reinforcements[{i}]"
        ww = f"{where} reinforcements[{i}]" + _named(rf)
        r.keys(rf, REINFORCEMENT_KEYS, ww, path)
        rid = r.ident(rf.get("id"), f"{ww}.id", path)
        ww = f"{where} reinforcements ({rid})"
        side = r.one_of(rf.get("side"), SIDES, f"{ww}.side", path)
        fid = r.one_of(rf.get("formation"), list(formations), f"{ww}.formation", path)
        if formations[fid].side != side:
            raise r.fail(f"{ww}.formation", f"'{fid}' is a {formations[fid].side} formation", path)
        turn = r.int_in(rf, "turn", 1, turns.count, ww, path)
        entries = tuple(on_map(h, f"{ww}.entry_hexes", path, passable=True)
                        for h in r.need(rf, "entry_hexes", list, ww, path))
        if not entries:
            raise r.fail(f"{ww}.entry_hexes", "at least one entry hex [5.2]", path)
        for h in entries:
            if not _on_edge(m, h):
                raise r.fail(f"{ww}.entry_hexes", f"{h} is not on a map edge (reinforcements "
                             "enter from off the map [5.2])", path)
        ids = tuple(r.need(rf, "units", list, ww, path))
        if not ids:
            raise r.fail(f"{ww}.units", "no units", path)
        for uid in ids:
            u = units.get(uid)
            if u is None:
                raise r.fail(f"{ww}.units", f"no unit {uid!r}", path)
            if u.formation != fid:
                raise r.fail(f"{ww}.units", f"'{uid}' is of formation '{u.formation}', not "
                             f"'{fid}'", path)
            if u.hex is not None:
                raise r.fail(f"{ww}.units", f"'{uid}' already starts on the map in {u.hex}", path)
            if uid in placed:
                raise r.fail(f"{ww}.units", f"'{uid}' already arrives with '{placed[uid]}'", path)
            placed[uid] = rid
        arrival = r.one_of(r.opt(rf, "arrival", str, ww, path, "marker"), ("marker",),
                           f"{ww}.arrival", path)
        out.append(Reinforcement(rid, side, fid, turn, entries, ids, arrival,
                                 r.opt(rf, "note", str, ww, path, "")))
    for u in units.values():
        if u.hex is None and u.id not in placed:
            raise r.fail(f"{where} units ({u.id})", "no hex and in no reinforcement", "units")
    return tuple(out)


def _parse_exits(r: _Reader, data: dict, where: str, m: MapData) -> dict[str, RoutExit]:
    on_map = _hex_checker(r, m.grid, m.terrain)
    ex = r.need(data, "rout_exits", dict, where, "rout_exits")
    r.keys(ex, set(SIDES), f"{where} rout_exits", "rout_exits")
    out = {}
    for side in SIDES:
        path = f"rout_exits.{side}"
        e = r.need(ex, side, dict, f"{where} rout_exits", "rout_exits")
        ww = f"{where} rout_exits.{side}"
        r.keys(e, EXIT_KEYS, ww, path)
        edge = r.one_of(e.get("edge"), EDGES, f"{ww}.edge", path)
        hexes = tuple(on_map(h, f"{ww}.hexes", path) for h in r.opt(e, "hexes", list, ww, path, []))
        for h in hexes:
            if edge not in _edges_of(m, h):
                raise r.fail(f"{ww}.hexes", f"{h} is not on the {edge} edge", path)
        out[side] = RoutExit(side, edge, hexes, r.opt(e, "note", str, ww, path, ""))
    return out


def _parse_victory(r: _Reader, data: dict, where: str, m: MapData, turns: TurnTrack) -> Victory:
    on_map = _hex_checker(r, m.grid, m.terrain)
    v = r.need(data, "victory", dict, where, "victory")
    ww = f"{where} victory"
    r.keys(v, VICTORY_KEYS, ww, "victory")
    vhexes = []
    seen = set()
    for i, h in enumerate(r.opt(v, "hexes", list, ww, "victory", [])):
        path, hw = f"victory.hexes[{i}]", f"{ww}.hexes[{i}]"
        r.check(h, dict, hw, path)
        r.keys(h, VHEX_KEYS, hw, path)
        hx = on_map(h.get("hex"), f"{hw}.hex", path, passable=True)
        if hx in seen:
            raise r.fail(hw, f"hex {hx} is listed twice", path)
        seen.add(hx)
        vhexes.append(VictoryHex(hx, r.need(h, "name", str, hw, path),
                                 r.int_in(h, "vp", 1, 20, hw, path),
                                 r.one_of(h.get("holder"), SIDES, f"{hw}.holder", path)))
    autos = []
    for i, a in enumerate(r.opt(v, "automatic", list, ww, "victory", [])):
        path, aw = f"victory.automatic[{i}]", f"{ww}.automatic[{i}]"
        r.check(a, dict, aw, path)
        r.keys(a, AUTO_KEYS, aw, path)
        kind = r.one_of(a.get("kind"), AUTO_KINDS, f"{aw}.kind", path)
        hexes = tuple(on_map(h, f"{aw}.hexes", path, passable=True)
                      for h in r.opt(a, "hexes", list, aw, path, []))
        if kind == "occupy" and not hexes:
            raise r.fail(aw, "an 'occupy' victory needs hexes", path)
        count = r.int_in(a, "count", 0, 200, aw, path, 0)
        if kind == "losses" and count < 1:
            raise r.fail(aw, "a 'losses' victory needs count >= 1", path)
        from_turn = r.int_in(a, "from_turn", 1, turns.count, aw, path, 1)
        to_turn = r.int_in(a, "to_turn", 0, turns.count, aw, path, 0)
        if to_turn and to_turn < from_turn:
            raise r.fail(aw, f"to_turn {to_turn} is before from_turn {from_turn}", path)
        autos.append(AutoVictory(
            r.ident(a.get("id"), f"{aw}.id", path), r.one_of(a.get("side"), SIDES, f"{aw}.side", path),
            kind, r.need(a, "text", str, aw, path), hexes,
            r.one_of(r.opt(a, "mode", str, aw, path, "any"), ("any", "all"), f"{aw}.mode", path),
            count, from_turn, to_turn))
    notes = r.opt(v, "notes", list, ww, "victory", [])
    return Victory(tuple(vhexes), r.int_in(v, "unit_eliminated_vp", 0, 20, ww, "victory"),
                   r.int_in(v, "unit_routed_vp", 0, 20, ww, "victory"),
                   r.int_in(v, "commander_vp", 0, 50, ww, "victory"), tuple(autos),
                   r.opt(v, "historical_result", str, ww, "victory", ""),
                   tuple(str(n) for n in notes))


def _parse_markers(r: _Reader, data: dict, where: str, formations: dict[str, FormationSetup],
                   commanders: tuple[CommanderSetup, ...], turns: TurnTrack) -> tuple[SpecialMarker, ...]:
    out: dict[str, SpecialMarker] = {}
    for i, mk in enumerate(r.tables(data, "markers", where, required=False)):
        path = f"markers[{i}]"
        ww = f"{where} markers[{i}]" + _named(mk)
        r.keys(mk, MARKER_KEYS, ww, path)
        mid = r.ident(mk.get("id"), f"{ww}.id", path)
        ww = f"{where} markers ({mid})"
        if mid in out or mid in formations:
            raise r.fail(f"{ww}.id", f"'{mid}' is used twice (markers and formations share ids)",
                         path)
        side = r.one_of(mk.get("side"), SIDES, f"{ww}.side", path)
        kind = r.one_of(mk.get("kind"), MARKER_KINDS, f"{ww}.kind", path)
        activates = r.opt(mk, "activates", str, ww, path, "")
        removes = tuple(r.opt(mk, "removes_formations", list, ww, path, []))
        trigger = r.opt(mk, "trigger", str, ww, path, "")
        if kind == "iac":
            r.one_of(activates, IAC_ACTIVATES, f"{ww}.activates", path)
            initiative = r.int_in(mk, "initiative", 0, 9, ww, path)
            max_act = r.int_in(mk, "max_activations", 1, 3, ww, path, 3)
        else:
            if activates:
                raise r.fail(f"{ww}.activates", "only an IAC activates units", path)
            initiative = r.int_in(mk, "initiative", 0, 9, ww, path, 0)
            max_act = 0
        for fid in removes:
            if fid not in formations or formations[fid].side != side:
                raise r.fail(f"{ww}.removes_formations", f"no {side} formation {fid!r}", path)
        if trigger:
            kind_t, _, who = trigger.partition(":")
            if kind_t != "after_leaves" or not any(c.id == who and c.side == side
                                                    for c in commanders):
                raise r.fail(f"{ww}.trigger", f"{trigger!r}: expected 'after_leaves:<{side} "
                             "commander-in-chief id>'", path)
            leaves = next(c for c in commanders if c.id == who).leaves_turn
            if not leaves:
                raise r.fail(f"{ww}.trigger", f"'{who}' never leaves (no leaves_turn)", path)
            if leaves >= turns.count:
                raise r.fail(f"{ww}.trigger", f"'{who}' leaves on the last turn ({leaves}): no "
                             "turn after it for the marker", path)
        out[mid] = SpecialMarker(mid, side, kind, r.need(mk, "name", str, ww, path),
                                 r.int_in(mk, "uses", 1, 9, ww, path), r.need(mk, "text", str, ww, path),
                                 initiative, activates, max_act, removes, trigger)
    return tuple(out.values())


def _check_stacking(r: _Reader, units: tuple[UnitSetup, ...], where: str) -> None:
    """[5.1] at the start: 2 of one arm and formation; 1 artillery + 1-2 infantry; 2 artillery;
    Marengo (section D 5.1): 3 French cavalry. One facing per hex but artillery with infantry."""
    by_hex: dict[str, list[UnitSetup]] = {}
    for u in units:
        if u.hex is not None:
            by_hex.setdefault(u.hex, []).append(u)
    for h, us in by_hex.items():
        if len(us) == 1:
            continue
        arms = [u.arm for u in us]
        art, inf, cav = arms.count("artillery"), arms.count("infantry"), arms.count("cavalry")
        ok = False
        if cav == len(us) and len({u.formation for u in us}) == 1:
            ok = len(us) <= (3 if us[0].side == "french" else 2)
        elif inf == len(us) and len({u.formation for u in us}) == 1:
            ok = len(us) <= 2
        elif art == len(us):
            ok = len(us) <= 2
        elif art == 1 and inf == len(us) - 1:
            ok = inf <= 2 and len({u.formation for u in us if u.arm == "infantry"}) == 1
        if not ok:
            raise r.fail(f"{where} units", f"hex {h}: {', '.join(u.id for u in us)} may not "
                         "stack [5.1]", "units")
        if len({u.side for u in us}) > 1:
            raise r.fail(f"{where} units", f"hex {h}: both sides", "units")
        facings = {u.facing for u in us if u.arm != "artillery"}
        if len(facings) > 1:
            raise r.fail(f"{where} units", f"hex {h}: units stacked need one facing [6.1]",
                         "units")


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a scenario; raises ScenarioError naming what is wrong (and where)."""
    data = read_toml(text, source, MAX_SCENARIO_BYTES, ScenarioError)
    r = _Reader(text, source)
    top = f"{source} [{data['id']}]" if isinstance(data.get("id"), str) else source
    r.keys(data, TOP_KEYS, top, "")
    sid = r.ident(data.get("id"), f"{source}.id", "id")
    where = f"{source} [{sid}]"

    sc = r.opt(data, "scale", dict, where, "scale", {})
    r.keys(sc, SCALE_KEYS, f"{where} scale", "scale")
    scale = Scale(**{k: r.int_in(sc, k, 1, 10_000, f"{where} scale", "scale")
                     for k in sc})

    m = _parse_map(r, data, where)
    formations = _parse_formations(r, data, where)
    fmap = {f.id: f for f in formations}
    units = _parse_units(r, data, where, m, fmap)
    umap = {u.id: u for u in units}
    _check_stacking(r, units, where)
    for f in formations:
        if not any(u.formation == f.id for u in units):
            raise r.fail(f"{where} formations ({f.id})", "the formation has no units", "formations")
    commanders = _parse_commanders(r, data, where, m)
    turns = _parse_turns(r, data, where, scale)
    for c in commanders:
        if c.leaves_turn > turns.count:
            raise r.fail(f"{where} commanders ({c.id}).leaves_turn",
                         f"{c.leaves_turn} is after the last turn {turns.count}", "commanders")
    reinforcements = _parse_reinforcements(r, data, where, m, turns, fmap, umap)
    exits = _parse_exits(r, data, where, m)
    victory = _parse_victory(r, data, where, m, turns)
    markers = _parse_markers(r, data, where, fmap, commanders, turns)

    prov = r.opt(data, "provenance", dict, where, "provenance", {})
    r.keys(prov, PROVENANCE_KEYS, f"{where} provenance", "provenance")
    for k in ("from_text", "herald_completion", "sources"):
        r.opt(prov, k, list, f"{where} provenance", "provenance", [])

    return Scenario(
        id=sid, title=r.need(data, "title", str, where, "title"),
        date=r.opt(data, "date", str, where, "", ""), game=r.opt(data, "game", str, where, "", ""),
        description=r.opt(data, "description", str, where, "", "").strip(), scale=scale, map=m,
        formations=formations, units=units, commanders=commanders,
        reinforcements=reinforcements, turns=turns, rout_exits=exits, victory=victory,
        markers=markers, provenance=dict(prov), source=source)


def list_scenarios() -> list[str]:
    return bundled_ids(SCENARIO_DIR)


@lru_cache(maxsize=8)
def load_scenario(scenario_id: str) -> Scenario:
    """A bundled scenario by id (the file name without .toml). Cached: do not mutate it."""
    text, name = read_bundled(SCENARIO_DIR, scenario_id, "Jours de Gloire", ScenarioError)
    return parse_scenario(text, source=name)
