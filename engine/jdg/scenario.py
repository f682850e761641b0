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

This module holds the schema's keys, the parsed scenario's classes and `parse_scenario`; the parts
of a file are read by scenario_map.py (`[map]`), scenario_order_of_battle.py (formations, units,
commanders, reinforcements, stacking) and scenario_rules.py (turns, rout exits, victory, markers).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from engine.core.hexgrid import HexGrid
from engine.core.scenario_files import FieldReader, bundled_ids, read_bundled, read_toml

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


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a scenario; raises ScenarioError naming what is wrong (and where)."""
    # the parts of the file (imported here: they read the classes above)
    from engine.jdg.scenario_map import _parse_map
    from engine.jdg.scenario_order_of_battle import (_check_stacking, _parse_commanders,
                                                     _parse_formations, _parse_reinforcements,
                                                     _parse_units)
    from engine.jdg.scenario_rules import _parse_exits, _parse_markers, _parse_turns, _parse_victory

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
