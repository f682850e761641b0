"""This Accursed Civil War scenarios as data files (TOML), and the validator that also checks a
club's upload.

The book (rules/tacw.it.txt, "BATTAGLIE") gives each battle's order of battle hex by hex, the
historical orders, the victory levels and the optional rules; the maps, most leader values and
the artillery counters' data are not in the text (digest §9.1, G1-G3). A scenario file carries
both, and its `[provenance]` block says which is which ("Herald completion" for what we authored).

Schema (one file per battle; see `scenarios/*.toml`). Hex ids are "CCRR", column then row, both
from 01, on a FLAT-top map whose odd (0-based) columns are shoved down half a hex (GMT maps):

    id, title, date, turns, start_time, description, first_turn_note
    [map]          cols, rows, orientation = "flat", shove = "odd"
                   hexsides = [{hex, side | sides, type, no_effect?}, ...]   (or [[map.hexsides]])
                       side: SE S SW NW N NE; type: stream | hedge | slope. For a slope `hex` is
                       the HIGHER hex: crossing into `hex` through that side is "slope up".
                       no_effect = true: drawn for historical interest, ignored by the rules.
                   victory_hexes = [{hex, vp, side}, ...]  (side scores vp holding it at the end)
    [map.terrain]  <terrain> = ["CCRR", ...]   (TERRAIN keys; a hex not listed is clear)
    [map.edges]    royalist = "east", parliament = "west"   (friendly map edges, §12.4)
    [map.wing_edges]  <wing id> = "south" ...  (optional: a wing that came from its own edge
                   routs toward it instead of its side's, e.g. Manchester at Second Newbury)
    [sides.royalist] / [sides.parliament]   name, army_commander, senior_wc  (leader ids),
                   generic_leader_value (0: the §5.3.3 generic WC, not in the text)
    [[leaders]]    id, side, name, role ("ac" | "wc"), value (0 | -1 | -2), hex | with_unit,
                   wing (WCs), special ("" | "king" | "cromwell"), replacement, replacement_value,
                   later_replacements ([{name, value}]: the book's chain after the first),
                   value_source ("book" | "herald"). An Army Commander's replacement takes the
                   army instead of the senior WC (§5.3.5 "unless the battle's rules say otherwise")
    [[wings]]      id, side, name, commander, cavalry, historical_order?
    [[units]]      id?, side, wing, kind, name, strength, morale, hexes, facing, light_kind,
                   gun_class, ricochet_range, max_range, pistols (2), no_hedgehog, salvo_allowed
                   kind: cavalry | heavy | light | artillery | wagon; hexes: 1 hex, or 2 ADJACENT
                   hexes for a double heavy unit; facing: a vertex E SE SW W NW NE, and a double
                   must face across its line (engine.core.facing.double_facings).
                   Without `id`: "<r|p>-<name slug>", numbered -1, -2... when a name repeats.
    [orders]       historical = { <wing id> = "charge" | "make_ready" | "receive_charge" | "rally" }
    [victory]      bands = [{level, min?, max?}], historical_result, notes = [...]
                   (the result is Parliament VP minus Royalist VP, Victory Determination)
    [[optional_rules]] id, name, text, side?, kind?, pistols? (starting pistol shots),
                   fire_modifier? (added to the firer's roll on the Fire table)
    [provenance]   from_book = [...], herald_completion = [...], note = "..."

Free setups (the shared interface of the "deployment" engineer; engine/tacw/sequence/deployment.py):
    [[deployment_areas]] id, side, text (the book's words), hexes = ["CCRR", ...] and/or
                   near = { hex = "CCRR", distance = N } (within N hexes; with hexes: the
                   intersection); wing? (HERALD: the area of a cavalry-pool unit assigned to
                   that wing). Impassable hexes (river) are never part of an area.
    [[units]] / [[leaders]] may carry  area = "<area id>": the hexes (hex / with_unit) are then
                   Herald's SUGGESTED placement, inside the area, and the owner may redeploy the
                   unit inside it in the deployment phase; near = {...} (a unit's own: with an
                   area, intersected; alone, the unit's area).
    [[units]]      deploy_rule = "stacked_or_adjacent_any" | "stacked_or_adjacent_infantry" |
                   "in_command_of:<unit id>" | "in_command"  (the book's extra constraints);
                   brigade = "<brigade id>", wing_choices = ["<wing>", ...]: a cavalry pool
                   (`wing` is the suggested one; a brigade goes to one wing as a whole; a unit
                   with wing_choices and no brigade is a brigade of its own, named by its id).
    A scenario with any `area`, unit `near` or `wing_choices` starts in the deployment phase.
    [[special_rules]] id, name, text, kind? ("" descriptive | "halt"), turns? (halt length)
                   or a Second Newbury kind (SPECIAL_RULE_PARAMS: its extra keys; battles/second_newbury.py)
    [special]      engine data of Marston Moor's and Naseby's special rules (AC-commanded wings,
                   command rivalry, roll modifiers, setup choices, reinforcements, wagons, setup
                   stacks): schema and checks in battles/special_data.py
    [map]          labels = [{hex, text}]  (place names, drawn only);
                   roads = [{name, hexes}] (drawn only: the Terrain table has no road row)

The parser and its validation are in `scenario/parse.py`; `parse_scenario` is importable from
here as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from engine.core.hexgrid import HexGrid

SCENARIO_DIR = Path(__file__).parent.parent / "scenarios"
MAX_SCENARIO_BYTES = 96 * 1024

# §5.7 Terrain table, in-hex rows (English map legend, snake_case).
TERRAIN = ("clear", "wood", "marsh", "thicket", "hedge_road", "hedge", "ploughed", "river",
           "village", "bridge", "castle", "entrenchment")
# Terrain no unit may enter (Terrain table: NA for every unit type).
IMPASSABLE = ("river",)
# Terrain that blocks line of sight (§5.7 "Blocca LOS" column; §9.10), hex and hexside rows.
LOS_BLOCKING = ("wood", "hedge_road", "hedge", "village", "castle")
LOS_BLOCKING_HEXSIDES = ("hedge", "slope")
# §5.7 Terrain table, hexside rows.
HEXSIDE_TYPES = ("stream", "hedge", "slope")
EDGES = ("north", "south", "east", "west")
ROLES = ("ac", "wc")
LEADER_VALUES = (0, -1, -2)                      # §2.1.3: 0 to -2, -2 best
LEADER_SPECIALS = ("", "king", "cromwell")       # King Charles 50 VP; Cromwell §10.7.5
VALUE_SOURCES = ("book", "herald")
LIGHT_KINDS = ("commanded_shot", "dragoons")     # §2.1.2 (musketeers count as commanded shot)
# §9.9 classes, and the longest range on the Artillery Range table (§9.9.2) for each.
GUN_CLASSES = {"3lb": 9, "saker": 14, "culverin": 17}
# Free setups (sequence/deployment.py): the book's extra placement constraints.
DEPLOY_RULES = ("stacked_or_adjacent_any", "stacked_or_adjacent_infantry", "in_command_of",
                "in_command")
# Second Newbury (battles/second_newbury.py): each kind it plays, and the extra keys its rule carries
# (kept in SpecialRule.params, checked by newbury_rules.check_special_rules).
SPECIAL_RULE_PARAMS = {"impregnable_castle": ("side", "hexes"),
                       "last_occupied_victory_hexes": ("side",),
                       "bridges": ("hexes",), "boat_bridge": ("side", "hexes"),
                       "detached_forces": ("forces",), "battle_length": ("limits",),
                       "attack_axes": ("axes",)}
SPECIAL_RULE_KINDS = ("", "halt") + tuple(SPECIAL_RULE_PARAMS)   # "halt": First Newbury rule 1
VICTORY_LEVELS = ("parliament_decisive", "parliament_marginal", "draw",
                  "royalist_marginal", "royalist_decisive")
SIDE_PREFIX = {"royalist": "r", "parliament": "p"}

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


class ScenarioError(ValueError):
    """A scenario file is not valid; the message names the field (and line, for TOML syntax)."""


@lru_cache(maxsize=16)
def map_grid(cols: int, rows: int) -> HexGrid:
    """A TACW map: flat-top GMT hexes, odd (0-based) columns shoved down, CCRR ids."""
    return HexGrid(cols, rows, "flat", "odd")


# -- the parsed scenario --------------------------------------------------------------------

@dataclass(frozen=True)
class Hexside:
    """A hexside feature between `hex` and its neighbour `other` (§5.7 hexside rows). For a
    slope, `hex` is the higher side: moving from `other` into `hex` is "slope up"."""
    hex: str
    side: str
    other: str
    type: str
    no_effect: bool = False


@dataclass(frozen=True)
class VictoryHex:
    hex: str
    vp: int
    side: str


@dataclass(frozen=True)
class SideSetup:
    name: str
    army_commander: str
    senior_wc: str
    edge: str                      # friendly map edge (rout, §12.4)
    generic_leader_value: int = 0  # §5.3.3 generic replacement WC (value not in the text)


@dataclass(frozen=True)
class LeaderSetup:
    id: str
    side: str
    name: str
    role: str
    value: int
    hex: str | None                # fixed hex, or None when placed with_unit
    with_unit: str = ""
    wing: str | None = None
    special: str = ""
    replacement: str = ""
    replacement_value: int | None = None
    value_source: str = "herald"
    area: str = ""                 # free setup: the deployment area he may be redeployed in
    later_replacements: tuple = ()  # ((name, value), ...): the book's chain after `replacement` (D119)


@dataclass(frozen=True)
class WingSetup:
    id: str
    side: str
    name: str
    commander: str
    cavalry: bool
    historical_order: str = ""


@dataclass(frozen=True)
class UnitSetup:
    id: str
    side: str
    wing: str
    kind: str
    name: str
    strength: int
    morale: int
    hexes: tuple[str, ...]
    facing: int                    # vertex 0..5 (engine.core.facing)
    light_kind: str = ""
    gun_class: str = ""
    ricochet_range: int = 0
    max_range: int = 0
    pistols: int = 2
    no_hedgehog: bool = False
    salvo_allowed: bool = True
    area: str = ""                 # free setup: `hexes` are a suggestion inside this area
    near: tuple[str, int] | None = None   # free setup: within N hexes of a hex (extra)
    deploy_rule: str = ""          # the book's extra placement constraint (DEPLOY_RULES)
    brigade: str = ""              # cavalry pool: the brigade that goes to one wing
    wing_choices: tuple[str, ...] = ()   # cavalry pool: the wings it may be assigned to


@dataclass(frozen=True)
class DeploymentArea:
    """Where the book lets one side set units up (free setup): `hexes` are the legal hexes,
    i.e. the listed hexes intersected with the `near` disc, impassable hexes left out."""
    id: str
    side: str
    text: str
    hexes: frozenset[str]
    near: tuple[str, int] | None = None
    wing: str = ""                 # HERALD: the area of pool units assigned to this wing


@dataclass(frozen=True)
class SpecialRule:
    """A scenario special rule: the book's words, and the engine hook that plays it."""
    id: str
    name: str
    text: str
    kind: str = ""                 # "" (descriptive only) or a SPECIAL_RULE_KINDS hook
    turns: int = 0                 # "halt": how many turns a halt lasts
    params: dict[str, Any] = field(default_factory=dict)   # SPECIAL_RULE_PARAMS keys of its kind


@dataclass(frozen=True)
class MapLabel:
    hex: str
    text: str


@dataclass(frozen=True)
class Road:
    """A road drawn on the map (no effect: the §5.7 Terrain table has no road row)."""
    name: str
    hexes: tuple[str, ...]


@dataclass(frozen=True)
class VictoryBand:
    level: str
    min: int | None = None         # None: open-ended
    max: int | None = None

    def contains(self, diff: int) -> bool:
        return (self.min is None or diff >= self.min) and (self.max is None or diff <= self.max)


@dataclass(frozen=True)
class OptionalRule:
    id: str
    name: str
    text: str
    side: str = ""                 # "" = both sides
    kind: str = ""                 # "" = every kind
    pistols: int | None = None     # starting pistol shots (§9.8) for the units it names
    fire_modifier: int = 0         # added to the firer's roll on the Fire table

    def applies_to(self, side: str, kind: str) -> bool:
        return (not self.side or self.side == side) and (not self.kind or self.kind == kind)


@dataclass
class Scenario:
    id: str
    title: str
    date: str
    turns: int
    start_time: str
    description: str
    first_turn_note: str
    cols: int
    rows: int
    terrain: dict[str, str]                        # hex -> terrain (absent = clear)
    hexsides: dict[frozenset[str], Hexside]        # {a, b} -> feature
    edges: dict[str, str]                          # side -> "east" / "west" / ...
    victory_hexes: list[VictoryHex]
    sides: dict[str, SideSetup]
    leaders: list[LeaderSetup]
    wings: list[WingSetup]
    units: list[UnitSetup]
    historical_orders: dict[str, str]              # wing id -> order
    victory_bands: list[VictoryBand]
    historical_result: str = ""
    victory_notes: list[str] = field(default_factory=list)
    optional_rules: list[OptionalRule] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    deployment_areas: dict[str, DeploymentArea] = field(default_factory=dict)
    special: Any = None            # scenario_special.Special: the [special] block (battle rules)
    special_rules: list[SpecialRule] = field(default_factory=list)
    labels: list[MapLabel] = field(default_factory=list)
    roads: list[Road] = field(default_factory=list)
    wing_edges: dict[str, str] = field(default_factory=dict)   # wing id -> its own friendly edge

    def friendly_edge(self, side: str, wing: str | None = None) -> str | None:
        """§12.4: the map edge a unit of `side` (and `wing`) routs toward: its wing's own edge
        where the scenario gives one ([map.wing_edges]), else its side's."""
        return self.wing_edges.get(wing or "") or self.edges.get(side)

    @cached_property
    def grid(self) -> HexGrid:
        """The map's grid: shared by every scenario of the same size (`map_grid`), kept on the
        scenario once asked (issue 13: the rules ask ~200 times a command)."""
        return map_grid(self.cols, self.rows)

    def terrain_at(self, hex_id: str) -> str:
        return self.terrain.get(hex_id, "clear")

    def hex_impassable(self, hex_id: str) -> bool:
        """Terrain no unit may enter (Terrain table NA: River); command lines avoid it (§5.4)."""
        return self.terrain_at(hex_id) in IMPASSABLE

    def hex_blocks_los(self, hex_id: str) -> bool:
        """Does the terrain in this hex block line of sight (§5.7, §9.10)?"""
        return self.terrain_at(hex_id) in LOS_BLOCKING

    def hexside_blocks_los(self, a: str, b: str) -> bool:
        """Does the side between two adjacent hexes block line of sight (§5.7 hexside rows: hedge
        and slope do; the stream is the HERALD reading of the row without "Si")?"""
        hs = self.hexside(a, b)
        return hs is not None and not hs.no_effect and hs.type in LOS_BLOCKING_HEXSIDES

    def hexside(self, a: str, b: str) -> Hexside | None:
        """The feature on the side between two adjacent hexes, if any (no_effect ones too)."""
        return self.hexsides.get(frozenset((a, b)))

    def crossing(self, frm: str, to: str) -> str | None:
        """What moving from `frm` into the adjacent `to` crosses, as a §5.7 hexside row:
        "stream", "hedge", "slope_up", "slope_down", or None (nothing, or a no_effect side)."""
        hs = self.hexside(frm, to)
        if hs is None or hs.no_effect:
            return None
        if hs.type == "slope":
            return "slope_up" if to == hs.hex else "slope_down"
        return hs.type

    def unit(self, unit_id: str) -> UnitSetup:
        got = self._units_by_id.get(unit_id)
        if got is not None:
            return got
        for u in self.units:        # one added after the index was made
            if u.id == unit_id:
                return u
        raise KeyError(unit_id)

    @cached_property
    def _units_by_id(self) -> dict[str, UnitSetup]:
        """`unit` by id (issue 13: the victory points ask it after every command)."""
        return {u.id: u for u in self.units}

    def leader(self, leader_id: str) -> LeaderSetup:
        for ld in self.leaders:
            if ld.id == leader_id:
                return ld
        raise KeyError(leader_id)

    def wing(self, wing_id: str) -> WingSetup:
        for w in self.wings:
            if w.id == wing_id:
                return w
        raise KeyError(wing_id)

    def wing_units(self, wing_id: str) -> list[UnitSetup]:
        return [u for u in self.units if u.wing == wing_id]

    def leader_hex(self, leader: LeaderSetup) -> str:
        """Where a leader starts: his fixed hex, or the (first) hex of the unit he is with."""
        if leader.hex:
            return leader.hex
        return self.unit(leader.with_unit).hexes[0]

    @property
    def free_setup(self) -> bool:
        """Does the game start with a deployment phase (any `area` or `wing_choices`)?"""
        return (any(u.area or u.near or u.wing_choices for u in self.units)
                or any(ld.area for ld in self.leaders))

    def special_rule(self, kind: str) -> SpecialRule | None:
        """The scenario's special rule played by the engine hook `kind`, if any."""
        return next((r for r in self.special_rules if r.kind == kind), None)

    def victory_level(self, diff: int) -> str:
        """The first band (in file order) holding Parliament VP minus Royalist VP, or ""."""
        for band in self.victory_bands:
            if band.contains(diff):
                return band.level
        return ""


# -- the keys each block may hold (checked by scenario_parse) -------------------------------

TOP_KEYS = {"id", "title", "date", "turns", "start_time", "description", "first_turn_note",
            "map", "sides", "leaders", "wings", "units", "orders", "victory", "optional_rules",
            "provenance", "deployment_areas", "special_rules"}

UNIT_KEYS = {"id", "side", "wing", "kind", "name", "strength", "morale", "hexes", "facing",
             "light_kind", "gun_class", "ricochet_range", "max_range", "pistols", "no_hedgehog",
             "salvo_allowed", "area", "near", "deploy_rule", "brigade", "wing_choices"}


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a scenario; raises ScenarioError naming what is wrong. The parser
    lives in `scenario_parse` (imported here when first called: it builds these classes)."""
    from engine.tacw.scenario.parse import parse_scenario as parse
    return parse(text, source)


# -- loading --------------------------------------------------------------------------------

def list_scenarios() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


@lru_cache(maxsize=16)
def load_scenario(scenario_id: str) -> Scenario:
    """A bundled scenario by id (the file name without .toml). Cached: do not mutate it."""
    if not _ID_RE.match(scenario_id or ""):
        raise ScenarioError(f"no TACW scenario {scenario_id!r}")
    path = SCENARIO_DIR / f"{scenario_id}.toml"
    if not path.exists():
        raise ScenarioError(f"no TACW scenario '{scenario_id}' "
                            f"(known: {', '.join(list_scenarios()) or 'none'})")
    return parse_scenario(path.read_text(encoding="utf-8"), source=path.name)
