"""Movement of units and Generals (BC §4.2, §4.3; FAQ rulings in supplements §2.3)."""
from __future__ import annotations

from collections import deque

from engine.core.errors import Illegal
from engine.core.events import Event

from . import tables
from .scenario import Scenario
from .state import BattleCryState, Piece


def allowance(state: BattleCryState, piece: Piece) -> int:
    """BC §4.2 movement table; Force March (card 10) gives infantry 2; horse artillery 2."""
    card = state.current.effective
    if piece.kind == "infantry" and card == "force-march":
        return tables.FORCE_MARCH_INFANTRY_MOVE
    if piece.special == "horse_artillery":
        return tables.MOVEMENT["horse_artillery"][0]
    return tables.MOVEMENT[piece.kind][0]


def entry_problem(scenario: Scenario, state: BattleCryState, piece: Piece, hex_id: str,
                  final: bool) -> str | None:
    """Why `piece` may not enter `hex_id` (None if it may). `final`: the move would end there."""
    terrain = scenario.terrain_at(hex_id)
    unit_there = state.piece_at(hex_id)
    general_there = state.piece_at(hex_id, general=True)
    moving_general = state.attached_general(piece) if not piece.is_general else None
    if piece.is_general:
        if unit_there is not None and unit_there.side != piece.side:
            return f"{hex_id} holds an enemy unit (BC §4.2: a General may not enter enemy hexes)"
        if general_there is not None:
            return f"{hex_id} already holds General {general_there.id} (one General per hex, BC §2.1)"
        if unit_there is not None and not final:
            return (f"{hex_id} holds {unit_there.id}: a General entering a friendly unit must end "
                    "its move there (BC §4.2, FAQ)")
        return None
    if terrain.impassable:
        return f"{hex_id} is {terrain.name.title()}, which no unit may enter (BC §2.3)"
    if terrain.name == "river" and scenario.special.get("river_impassable"):
        return f"{hex_id} is the creek, crossable only at the bridge (BC §7 Antietam)"
    if unit_there is not None:
        return f"{hex_id} holds {unit_there.id} (BC §4.2: no moving onto or through units)"
    if general_there is not None:
        if general_there.side != piece.side:
            return f"{hex_id} holds an enemy General (BC §4.2)"
        if moving_general is not None:
            return f"{hex_id} already holds General {general_there.id} (one General per hex, BC §2.1)"
        if not final:
            return (f"{hex_id} holds General {general_there.id}: a unit may move into, not through, "
                    "a lone friendly General's hex (FAQ)")
    return None


def stops_in(scenario: Scenario, hex_id: str) -> bool:
    """BC §2.3: Woods, Building, River (not Bridge) end a move; so does Devil's Den (BC §7
    scenario 11: "è costretta a fermarsi", tables.TERRAIN["devils_den"])."""
    return scenario.terrain_at(hex_id).stop_on_entry


def check_path(scenario: Scenario, state: BattleCryState, piece: Piece, path: list[str]) -> None:
    """Validate a whole path (hexes after the start), hex by hex; raise Illegal with the rule."""
    grid = scenario.grid
    limit = allowance(state, piece)
    if len(path) > limit:
        raise Illegal(f"{piece.id} moves at most {limit} hex{'es' if limit > 1 else ''}; the path has "
                      f"{len(path)}", "BC §4.2 movement table")
    here = piece.hex
    for i, step in enumerate(path):
        if step not in grid:
            raise Illegal(f"{step} is not a hex of the board", "BC §1")
        if not grid.adjacent(here, step):
            raise Illegal(f"{step} is not next to {here}", "BC §4.2")
        final = i == len(path) - 1
        problem = entry_problem(scenario, state, piece, step, final)
        if problem:
            raise Illegal(problem)
        if not final and stops_in(scenario, step):
            raise Illegal(f"{piece.id} must stop on entering {step} "
                          f"({scenario.terrain_at(step).label})", scenario.terrain_at(step).section)
        here = step


def find_path(scenario: Scenario, state: BattleCryState, piece: Piece, dest: str) -> list[str]:
    """A shortest legal path to `dest`, or raise Illegal saying why none exists."""
    grid = scenario.grid
    if dest not in grid:
        raise Illegal(f"{dest} is not a hex of the board", "BC §1")
    if dest == piece.hex:
        raise Illegal(f"{piece.id} is already in {dest}", "BC §4.2")
    limit = allowance(state, piece)
    prev: dict[str, str | None] = {piece.hex: None}
    queue = deque([(piece.hex, 0)])
    while queue:
        here, d = queue.popleft()
        if here == dest:
            break
        if d >= limit or (here != piece.hex and stops_in(scenario, here)):
            continue
        for n in grid.neighbors(here):
            if n in prev:
                continue
            if entry_problem(scenario, state, piece, n, final=(n == dest)) is not None:
                continue
            prev[n] = here
            queue.append((n, d + 1))
    if dest not in prev:
        problem = entry_problem(scenario, state, piece, dest, final=True)
        if problem:
            raise Illegal(problem)
        raise Illegal(*unreachable(scenario, state, piece, dest))
    path = []
    node: str | None = dest
    while node is not None and node != piece.hex:
        path.append(node)
        node = prev[node]
    return list(reversed(path))


def _hexes(n: int) -> str:
    return f"{n} hex{'es' if n != 1 else ''}"


def unreachable(scenario: Scenario, state: BattleCryState, piece: Piece, dest: str) -> tuple[str, str]:
    """Why `piece` cannot reach `dest` (free itself), as (reason, section): too far (how far it
    is, and how far the piece may move), or what bars each way of its length (a unit, a General,
    terrain that stops or may not be entered)."""
    grid = scenario.grid
    limit = allowance(state, piece)
    away = grid.distance(piece.hex, dest)
    what = "General" if piece.is_general else piece.kind
    if away > limit:
        why = " (Force March)" if limit == tables.FORCE_MARCH_INFANTRY_MOVE and piece.kind == "infantry" \
            and state.current.effective == "force-march" else ""
        return (f"{dest} is too far: it is {_hexes(away)} from {piece.id} in {piece.hex}, and "
                f"{what} moves at most {_hexes(limit)}{why}", "BC §4.2 movement table")
    barred: dict[str, str] = {}

    def walk(here: str, path: list[str]) -> None:
        if here == dest:
            return
        if len(path) >= limit:
            return
        for n in grid.neighbors(here):
            if n in path or n == piece.hex or grid.distance(n, dest) > limit - len(path) - 1:
                continue
            if n == dest:
                continue                                    # the end of the way is free (checked above)
            problem = entry_problem(scenario, state, piece, n, final=False)
            if problem is None and stops_in(scenario, n):
                label = scenario.terrain_at(n).label
                problem = (f"{n} is {label[:1].upper() + label[1:]}, where a move ends "
                           f"({scenario.terrain_at(n).section})")
            if problem is not None:
                barred.setdefault(n, problem)
                continue
            walk(n, path + [n])

    walk(piece.hex, [])
    reasons = [barred[h] for h in sorted(barred)][:4]
    return (f"{piece.id} cannot reach {dest} ({_hexes(away)} away; {what} moves up to {_hexes(limit)}): "
            "every way there is barred: " + "; ".join(reasons or ["no path of that length"]), "BC §4.2")


def reachable(scenario: Scenario, state: BattleCryState, piece: Piece) -> list[str]:
    """Every hex `piece` could end a legal move in (for autocomplete and hints), nearest first."""
    grid = scenario.grid
    limit = allowance(state, piece)
    seen = {piece.hex: 0}
    frontier = [piece.hex]
    ends: list[str] = []
    for d in range(1, limit + 1):
        nxt = []
        for here in frontier:
            if here != piece.hex and (stops_in(scenario, here) or
                                      entry_problem(scenario, state, piece, here, final=False)):
                continue
            for n in grid.neighbors(here):
                if n in seen:
                    continue
                seen[n] = d
                nxt.append(n)
                if entry_problem(scenario, state, piece, n, final=True) is None:
                    ends.append(n)
        frontier = nxt
    return ends


def move_piece(scenario: Scenario, state: BattleCryState, piece: Piece, path: list[str],
               take_general: bool = True) -> list[Event]:
    """Carry out a checked move. An attached General goes with its unit unless told to stay or
    it has already moved this turn (BC §4.2 exception)."""
    cur = state.current
    start = piece.hex
    general = state.attached_general(piece) if not piece.is_general else None
    follows = general is not None and take_general and cur.moves.get(general.id, 0) == 0
    piece.hex = path[-1]
    cur.moves[piece.id] = cur.moves.get(piece.id, 0) + 1
    cur.hexes_moved[piece.id] = cur.hexes_moved.get(piece.id, 0) + len(path)
    notes = []
    if follows:
        general.hex = path[-1]
        cur.moves[general.id] = cur.moves.get(general.id, 0) + 1
        notes.append(f"General {general.id} moves with it")
    elif general is not None:
        notes.append(f"General {general.id} stays in {start}")
    end = path[-1]
    terrain = scenario.terrain_at(end)
    if not piece.is_general:
        if terrain.no_battle_after_entry:
            cur.no_battle.append(piece.id)
            notes.append(f"it entered {terrain.label} and may not battle this turn ({terrain.section})")
        if piece.kind == "artillery" and piece.special != "horse_artillery":
            cur.no_battle.append(piece.id)
            notes.append("artillery that moves may not battle this turn (BC §4.2)")
        if piece.special == "horse_artillery" and cur.hexes_moved[piece.id] > 1:
            cur.no_battle.append(piece.id)
            notes.append("horse artillery that moves 2 may not fire (BC §7 Fredericksburg)")
        g_there = state.piece_at(end, general=True)
        if g_there is not None and not follows and g_there.side == piece.side and g_there is not general:
            notes.append(f"General {g_there.id} is now attached")
    else:
        u = state.piece_at(end)
        if u is not None:
            notes.append(f"attaches to {u.id}")
    state.last_action = {"items": [{"kind": "move", "piece": piece.id, "path": [start] + path}]}
    text = f"{piece.label} moves {' -> '.join([start] + path)}" + (f"; {'; '.join(notes)}" if notes else "")
    return [Event("move", piece.side, "BC §4.2", text,
                  inputs={"piece": piece.id, "path": [start] + path}, outcome={"hex": end})]
