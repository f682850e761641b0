"""Board queries: sections, home edges, line of sight and terrain modifiers (BC §1, §2.3, §4.4.2).

These are read-only questions about a scenario and a state; nothing here changes a game.
"""
from __future__ import annotations

from engine.core.events import Modifier

from . import tables
from .scenario import Scenario
from .state import BattleCryState, Piece


def compass_sections(scenario: Scenario, hex_id: str) -> tuple[str, ...]:
    col, row = scenario.grid.col_row(hex_id)
    return tables.board_sections(col, row)


def side_section(scenario: Scenario, side: str, compass: str) -> str:
    """BC §1: sections are named from each player's own seat. The player whose home edge is
    south looks north, so their left is the west."""
    if compass == "centre":
        return "centre"
    south = scenario.sides[side].home_edge == "south"
    if compass == "west":
        return "left" if south else "right"
    return "right" if south else "left"


def sections_of(scenario: Scenario, side: str, hex_id: str) -> tuple[str, ...]:
    """The sections ("left", "centre", "right") a hex belongs to for `side`: two for a hex cut
    by a dashed line (BC §1; the §4.8 example orders a General on such a hex)."""
    return tuple(side_section(scenario, side, c) for c in compass_sections(scenario, hex_id))


def toward_home(scenario: Scenario, side: str, hex_id: str) -> list[str]:
    """Neighbours one row closer to the side's own edge (retreat direction, see combat.py)."""
    grid = scenario.grid
    _, row = grid.col_row(hex_id)
    step = -1 if scenario.sides[side].home_edge == "north" else 1
    return [n for n in grid.neighbors(hex_id) if grid.col_row(n)[1] == row + step]


def on_home_edge(scenario: Scenario, side: str, hex_id: str) -> bool:
    return scenario.grid.col_row(hex_id)[1] == scenario.home_row(side)


def rows_from_home(scenario: Scenario, side: str, hex_id: str) -> int:
    return abs(scenario.grid.col_row(hex_id)[1] - scenario.home_row(side))


def terrain_blocks_los(scenario: Scenario, hex_id: str) -> bool:
    """BC §4.4.2: Woods, Hills, Fields and Buildings obstruct.

    BC §7 scenario 11 (Devil's Den, NOTES box, battle-cry.it.txt p. 18): "Il Devil's Den blocca
    la linea di vista" (tables.TERRAIN["devils_den"].blocks_los), and "I Campi di Frumento non
    bloccano la linea di vista, ma le altre regole sono comunque applicate": with
    `fields_block_los = false` a Field hex no longer obstructs, and keeps its -1 die."""
    t = scenario.terrain_at(hex_id)
    if t.name == "field" and scenario.special.get("fields_block_los") is False:
        return False
    return t.blocks_los


def hex_obstructed(scenario: Scenario, state: BattleCryState, hex_id: str | None,
                   attacker: Piece) -> bool:
    """Does this hex obstruct a line of sight? BC §4.4.2: any unit or General, friendly or enemy,
    and blocking terrain. Exception: artillery on a Hill is not blocked by a friendly unit or
    General in an adjacent hex, unless that hex has blocking terrain."""
    if hex_id is None:
        return False
    if terrain_blocks_los(scenario, hex_id):
        return True
    occupants = [p for p in state.pieces.values() if p.hex == hex_id]
    if not occupants:
        return False
    if (attacker.kind == "artillery" and scenario.terrain.get(attacker.hex) == "hill"
            and scenario.grid.distance(attacker.hex, hex_id) == 1
            and all(p.side == attacker.side for p in occupants)):
        return False
    return True


def line_of_sight(scenario: Scenario, state: BattleCryState, attacker: Piece,
                  target_hex: str) -> tuple[bool, str]:
    """BC §4.4.2: centre-to-centre line; blocked if a hex between holds an obstruction; a line
    running along a hexside is blocked only when the hexes on BOTH sides obstruct. The target's
    and the attacker's own hexes never block. Returns (clear?, reason)."""
    for step in scenario.grid.line_steps(attacker.hex, target_hex):
        if len(step) == 1:
            if hex_obstructed(scenario, state, step[0], attacker):
                return False, f"line of sight crosses {step[0]}, which obstructs it"
        else:
            a, b = step
            if hex_obstructed(scenario, state, a, attacker) and hex_obstructed(scenario, state, b, attacker):
                return False, f"line of sight runs between {a} and {b}, obstructed on both sides"
    return True, "clear"


def attacker_in_front(scenario: Scenario, target_hex: str, attacker_hex: str,
                      front_sides: tuple[str, ...] | list[str]) -> bool:
    """Is the attacker on the front side of a fence or Field-works in `target_hex`?

    HERALD (digest §8 item 3; the figures 11 and 12 are lost): a fence or trench has a set of
    front hexsides. The line from the target's centre to the attacker's centre leaves the target
    hex through one hexside (or exactly through a vertex); the attacker is in front when that
    side is a front side (for a vertex: when either adjoining side is). This extends the book's
    adjacent 'shaded hexes' to ranged fire in the natural way."""
    grid = scenario.grid
    idx = grid.bearing_side(target_hex, attacker_hex)
    front = {grid.side_index(s) for s in front_sides}
    nearest = round(idx) % 6
    if abs(idx - round(idx)) < 1e-6:
        return nearest in front
    if abs((idx % 1) - 0.5) < 1e-6:
        return int(idx) % 6 in front or (int(idx) + 1) % 6 in front
    return nearest in front


def field_works_front(scenario: Scenario, owner: str, front: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """HERALD (digest §8 item 26): a Field-works marker without a printed facing faces away from
    its owner's edge: every hexside is front except the two toward the owner's own edge, so an
    attacker from the rear (behind the works) rolls normally, as BC §2.3 says."""
    if front:
        return tuple(front)
    rear = ("SW", "SE") if scenario.sides[owner].home_edge == "south" else ("NW", "NE")
    return tuple(s for s in ("E", "SE", "SW", "W", "NW", "NE") if s not in rear)


def target_terrain_modifiers(scenario: Scenario, state: BattleCryState, attacker: Piece,
                             target_hex: str) -> list[Modifier]:
    """BC §4.4.3: dice reductions from the target's hex. Field-works replace the underlying
    terrain's reduction; the Antietam road fences are -2 instead of -1 (`road_fence_dice`);
    Devil's Den is -2 (BC §7 scenario 11, tables.TERRAIN)."""
    mods: list[Modifier] = []
    fw = state.field_works.get(target_hex)
    if fw is not None:
        owner, front = fw
        if attacker_in_front(scenario, target_hex, attacker.hex, field_works_front(scenario, owner, front)):
            mods.append(Modifier(tables.FIELD_WORKS_DICE, "target in Field-works, attacker not at the rear",
                                 "BC §2.3 Field-works"))
        return mods
    t = scenario.terrain_at(target_hex)
    if t.target_dice:
        mods.append(Modifier(t.target_dice, f"target in {t.label}", t.section))
    if target_hex in scenario.fences:
        if attacker_in_front(scenario, target_hex, attacker.hex, scenario.fences[target_hex]):
            # A road alone is only drawn; the Antietam rule is the `road_fence_dice` it sets.
            if target_hex in scenario.special.get("road_hexes", []) and \
                    "road_fence_dice" in scenario.special:
                mods.append(Modifier(int(scenario.special["road_fence_dice"]),
                                     "target on the road fences", "BC §7 (Antietam)"))
            else:
                mods.append(Modifier(tables.FENCE_DICE, "target behind a Fence, attacker in front",
                                     "BC §2.3 Fence"))
    return mods
