"""Battle Cry scenarios as data files (TOML), and the validator that also checks a club's upload.

Schema (one file per battle; see `scenarios/*.toml`):

    id, number, title, date, description, flags_to_win (default 6), first_player
    [provenance]   from_book = [...], herald_completion = [...], note = "..."
    [sides.union] / [sides.confederate]   commander, cards, home_edge ("north" | "south")
    [terrain]      <terrain name> = ["CCRR", ...]      (names of tables.TERRAIN)
    [[fences]]     hex, front = ["NE", "NW", ...]      (hexsides whose attackers roll -1)
    [[field_works]] hex, owner, front = [...]          (front optional)
    [[units]]      side, kind, hex, figures?, name?, special? ("horse_artillery" | "vmi"), id?
    [special]      objective_hexes, objective_side, road_hexes, road_fence_dice,
                   river_impassable, retreat_across_river_eliminates, remove_cards,
                   fields_block_los

Scenario rules by name (BC §7 NOTES boxes, battle-cry.it.txt pp. 13-20):
    objective_hexes / objective_side   #4 Shiloh: a unit of objective_side on one counts a flag
    road_hexes                         hexes drawn as a road; alone they change nothing
    road_fence_dice                    #7 Antietam: a Fence on a road hex gives this many dice
                                       (-2) instead of the Fence's -1
    river_impassable, retreat_across_river_eliminates   #7 Antietam: the creek
    remove_cards                       #12, #15: card ids taken out of the deck
    fields_block_los = false           #11 Devil's Den: wheat Fields do not block line of sight
    terrain "devils_den"               #11 Devil's Den (tables.TERRAIN): stop, no battle, -2, LOS
    units: figures < full              #12 Pettigrew's three units start one figure short

Every table refuses keys it does not know (`[[unit]]`, `hexx = `): the message names the key,
where it is, the closest known key and the line.

Hex ids are "CCRR": column 01..13 (01..12 on the shoved rows 2, 4, 6, 8), row 01..09 from north.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.core.hexgrid import HexGrid
from engine.core.scenario_files import check_keys, close_match, line_note, read_toml

from . import tables

SCENARIO_DIR = Path(__file__).parent / "scenarios"
MAX_SCENARIO_BYTES = 64 * 1024


class ScenarioError(ValueError):
    """A scenario file is not valid; the message names the field (and the line, for TOML syntax
    and unknown keys)."""


# The keys each table may hold (module docstring).
TOP_KEYS = {"id", "number", "title", "date", "description", "flags_to_win", "first_player",
            "provenance", "sides", "terrain", "fences", "field_works", "units", "special"}
PROVENANCE_KEYS = {"from_book", "herald_completion", "note"}
SIDE_KEYS = {"commander", "cards", "home_edge"}
FENCE_KEYS = {"hex", "front"}
FIELD_WORKS_KEYS = {"hex", "owner", "front"}
UNIT_KEYS = {"side", "kind", "hex", "figures", "name", "special", "id"}
SPECIAL_KEYS = {"objective_hexes", "objective_side", "road_hexes", "road_fence_dice",
                "river_impassable", "retreat_across_river_eliminates", "remove_cards",
                "fields_block_los"}


@lru_cache(maxsize=1)
def board_grid() -> HexGrid:
    """BC §1: the 13 x 9 board (HERALD reading: 13/12 alternating rows, see tables.py)."""
    return HexGrid(tables.BOARD_COLS, tables.BOARD_ROWS, "pointy", "odd", short_shoved_rows=True)


@dataclass(frozen=True)
class UnitSetup:
    id: str
    side: str
    kind: str
    hex: str
    figures: int
    name: str = ""
    special: str = ""


@dataclass(frozen=True)
class SideSetup:
    commander: str
    cards: int
    home_edge: str  # "north" (row 1) or "south" (row 9)


@dataclass
class Scenario:
    id: str
    title: str
    number: int
    date: str
    description: str
    first_player: str
    flags_to_win: int
    sides: dict[str, SideSetup]
    terrain: dict[str, str]                       # hex -> terrain name (absent = clear)
    fences: dict[str, tuple[str, ...]]            # hex -> front hexside names
    field_works: dict[str, tuple[str, tuple[str, ...]]]  # hex -> (owner, front sides)
    units: list[UnitSetup]
    special: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def grid(self) -> HexGrid:
        return board_grid()

    def terrain_at(self, hex_id: str) -> tables.Terrain:
        return tables.TERRAIN[self.terrain.get(hex_id, "clear")]

    def home_row(self, side: str) -> int:
        """0-based row of a side's own map edge."""
        return 0 if self.sides[side].home_edge == "north" else tables.BOARD_ROWS - 1


def _need(d: dict, key: str, kind: type, where: str) -> Any:
    if key not in d:
        raise ScenarioError(f"{where}: missing '{key}'")
    value = d[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ScenarioError(f"{where}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def _opt_table(d: dict, key: str, where: str) -> dict:
    value = d.get(key, {})
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}.{key}: expected a table ([{key}]), got {value!r}")
    return value


def _tables(d: dict, key: str, where: str, required: bool = False) -> list[dict]:
    """An array of tables ([[key]] entries); each entry must be a table."""
    value = _need(d, key, list, where) if required else d.get(key, [])
    if not isinstance(value, list):
        raise ScenarioError(f"{where}.{key}: expected [[{key}]] entries, got {value!r}")
    for i, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise ScenarioError(f"{where} {key}[{i}]: expected a table, got {entry!r}")
    return value


def _hex(value: Any, where: str) -> str:
    grid = board_grid()
    if not isinstance(value, str) or value not in grid:
        raise ScenarioError(f"{where}: '{value}' is not a hex of the 13x9 board "
                            "(CCRR, columns 01-13, 01-12 on even rows, rows 01-09)")
    return value


def _sides_list(value: Any, where: str) -> tuple[str, ...]:
    grid = board_grid()
    if not isinstance(value, list) or not value:
        raise ScenarioError(f"{where}: expected a list of hexsides like [\"NE\", \"NW\"]")
    out = []
    for s in value:
        try:
            grid.side_index(str(s))
        except ValueError:
            raise ScenarioError(f"{where}: '{s}' is not a hexside (E, SE, SW, W, NW, NE)") from None
        out.append(str(s).upper())
    return tuple(out)


def parse_scenario(text: str, source: str = "<upload>") -> Scenario:
    """Parse and validate a scenario; raises ScenarioError naming what is wrong."""
    data = read_toml(text, source, MAX_SCENARIO_BYTES, ScenarioError)

    def keys(table: dict, allowed: set[str], w: str, path: str) -> None:
        check_keys(table, allowed, w, ScenarioError, suggest=True, text=text, path=path)

    top = f"{source} [{data['id']}]" if isinstance(data.get("id"), str) else source
    keys(data, TOP_KEYS, top, "")
    sid = _need(data, "id", str, source)
    where = f"{source} [{sid}]"
    sides_raw = _need(data, "sides", dict, where)
    keys(sides_raw, set(tables.SIDES), f"{where} sides", "sides")
    sides: dict[str, SideSetup] = {}
    for side in tables.SIDES:
        sd = _need(sides_raw, side, dict, f"{where} sides")
        keys(sd, SIDE_KEYS, f"{where} sides.{side}", f"sides.{side}")
        edge = _need(sd, "home_edge", str, f"{where} sides.{side}")
        if edge not in ("north", "south"):
            raise ScenarioError(f"{where} sides.{side}.home_edge: must be 'north' or 'south'")
        cards = _need(sd, "cards", int, f"{where} sides.{side}")
        if not 1 <= cards <= 10:
            raise ScenarioError(f"{where} sides.{side}.cards: {cards} is not 1..10")
        sides[side] = SideSetup(str(sd.get("commander", "")), cards, edge)
    if sides["union"].home_edge == sides["confederate"].home_edge:
        raise ScenarioError(f"{where}: the two sides need opposite home edges")
    first = _need(data, "first_player", str, where)
    if first not in tables.SIDES:
        raise ScenarioError(f"{where}.first_player: must be 'union' or 'confederate'")

    terrain: dict[str, str] = {}
    for name, hexes in _opt_table(data, "terrain", where).items():
        if name not in tables.TERRAIN:
            match = close_match(name, tables.TERRAIN)
            hint = f"did you mean '{match}'? " if match else ""
            raise ScenarioError(f"{where} terrain: unknown terrain '{name}' "
                                f"({hint}known: {', '.join(sorted(tables.TERRAIN))})"
                                + line_note(text, f"terrain.{name}"))
        if not isinstance(hexes, list):
            raise ScenarioError(f"{where} terrain.{name}: expected a list of hexes")
        for h in hexes:
            h = _hex(h, f"{where} terrain.{name}")
            if h in terrain:
                raise ScenarioError(f"{where} terrain.{name}: hex {h} already has {terrain[h]}")
            terrain[h] = name
    fences: dict[str, tuple[str, ...]] = {}
    for i, f in enumerate(_tables(data, "fences", where)):
        w = f"{where} fences[{i}]"
        keys(f, FENCE_KEYS, w, f"fences[{i}]")
        fences[_hex(f.get("hex"), w + ".hex")] = _sides_list(f.get("front"), w + ".front")
    field_works: dict[str, tuple[str, tuple[str, ...]]] = {}
    for i, f in enumerate(_tables(data, "field_works", where)):
        w = f"{where} field_works[{i}]"
        keys(f, FIELD_WORKS_KEYS, w, f"field_works[{i}]")
        h = _hex(f.get("hex"), w + ".hex")
        owner = f.get("owner")
        if owner not in tables.SIDES:
            raise ScenarioError(f"{w}.owner: must be 'union' or 'confederate'")
        if terrain.get(h) == "river":
            raise ScenarioError(f"{w}: Field-works cannot be placed on a River (BC §2.3)")
        front = _sides_list(f["front"], w + ".front") if "front" in f else ()
        field_works[h] = (owner, front)

    units: list[UnitSetup] = []
    counters: dict[tuple[str, str], int] = {}
    occupied: dict[tuple[str, bool], str] = {}
    ids: set[str] = set()
    for i, u in enumerate(_tables(data, "units", where, required=True)):
        w = f"{where} units[{i}]"
        keys(u, UNIT_KEYS, w, f"units[{i}]")
        side = u.get("side")
        if side not in tables.SIDES:
            raise ScenarioError(f"{w}.side: must be 'union' or 'confederate', got {side!r}")
        kind = u.get("kind")
        if kind not in tables.PIECE_KINDS:
            raise ScenarioError(f"{w}.kind: must be one of {', '.join(tables.PIECE_KINDS)}")
        h = _hex(u.get("hex"), w + ".hex")
        if terrain.get(h) == "rough":
            raise ScenarioError(f"{w}: hex {h} is Rough, which no unit may enter (BC §2.3)")
        is_general = kind == "general"
        if (h, is_general) in occupied:
            raise ScenarioError(f"{w}: hex {h} already holds {occupied[(h, is_general)]} "
                                "(one unit and one General per hex, BC §2.1)")
        key = (side, kind)
        counters[key] = counters.get(key, 0) + 1
        uid = str(u.get("id") or f"{side[0]}{kind[0] if kind != 'general' else 'g'}{counters[key]}")
        uid = uid.lower()
        if uid in ids:
            raise ScenarioError(f"{w}.id: '{uid}' is used twice")
        ids.add(uid)
        occupied[(h, is_general)] = uid
        full = tables.FULL_FIGURES[kind]
        figures = u.get("figures", full)
        if not isinstance(figures, int) or not 1 <= figures <= full:
            raise ScenarioError(f"{w}.figures: {figures!r} is not 1..{full} for {kind}")
        special = str(u.get("special", ""))
        if special not in ("", "horse_artillery", "vmi"):
            raise ScenarioError(f"{w}.special: unknown '{special}' (horse_artillery, vmi)")
        if special == "horse_artillery" and kind != "artillery":
            raise ScenarioError(f"{w}: horse_artillery must be an artillery unit")
        if special == "vmi" and kind != "infantry":
            raise ScenarioError(f"{w}: vmi must be an infantry unit")
        units.append(UnitSetup(uid, side, kind, h, figures, str(u.get("name", "")), special))
    for side in tables.SIDES:
        if not any(u.side == side and u.kind != "general" for u in units):
            raise ScenarioError(f"{where}: {side} has no units")
    # Generals may share a hex with a unit of their own side only (BC §2.1 stacking).
    by_hex = {}
    for u in units:
        by_hex.setdefault(u.hex, []).append(u)
    for h, pieces in by_hex.items():
        if len({p.side for p in pieces}) > 1:
            raise ScenarioError(f"{where}: hex {h} holds pieces of both sides")

    special = dict(_opt_table(data, "special", where))
    for key in special:
        if key not in SPECIAL_KEYS:
            match = close_match(key, SPECIAL_KEYS)
            hint = f"did you mean '{match}'? " if match else ""
            raise ScenarioError(f"{where} special: unknown rule '{key}' "
                                f"({hint}known: {', '.join(sorted(SPECIAL_KEYS))})"
                                + line_note(text, f"special.{key}"))
    for key in ("objective_hexes", "road_hexes", "remove_cards"):
        if key in special and not isinstance(special[key], list):
            raise ScenarioError(f"{where} special.{key}: expected a list")
    for key in ("objective_hexes", "road_hexes"):
        for h in special.get(key, []):
            _hex(h, f"{where} special.{key}")
    for card in special.get("remove_cards", []):
        if card not in tables.CARD_TYPES:
            raise ScenarioError(f"{where} special.remove_cards: unknown card '{card}'")
    for key in ("river_impassable", "retreat_across_river_eliminates", "fields_block_los"):
        if key in special and not isinstance(special[key], bool):
            raise ScenarioError(f"{where} special.{key}: expected true or false, got {special[key]!r}")
    if "road_fence_dice" in special:
        dice = special["road_fence_dice"]
        if not isinstance(dice, int) or isinstance(dice, bool) or not -3 <= dice <= 0:
            raise ScenarioError(f"{where} special.road_fence_dice: {dice!r} is not a dice change -3..0")
    if "objective_side" in special and special["objective_side"] not in tables.SIDES:
        raise ScenarioError(f"{where} special.objective_side: must be 'union' or 'confederate'")
    provenance = dict(_opt_table(data, "provenance", where))
    keys(provenance, PROVENANCE_KEYS, f"{where} provenance", "provenance")
    flags = data.get("flags_to_win", tables.FLAGS_TO_WIN)
    if not isinstance(flags, int) or not 1 <= flags <= 20:
        raise ScenarioError(f"{where}.flags_to_win: {flags!r} is not 1..20")
    return Scenario(
        id=sid, title=str(data.get("title", sid)), number=int(data.get("number", 0)),
        date=str(data.get("date", "")), description=str(data.get("description", "")),
        first_player=first, flags_to_win=flags, sides=sides, terrain=terrain, fences=fences,
        field_works=field_works, units=units, special=special,
        provenance=provenance, source=source,
    )


def list_scenarios() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


@lru_cache(maxsize=64)
def load_scenario(scenario_id: str) -> Scenario:
    path = SCENARIO_DIR / f"{scenario_id}.toml"
    if not path.exists():
        raise ScenarioError(f"no Battle Cry scenario '{scenario_id}' "
                            f"(known: {', '.join(list_scenarios())})")
    return parse_scenario(path.read_text(encoding="utf-8"), source=path.name)
