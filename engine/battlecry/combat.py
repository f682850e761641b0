"""Battle: dice by range, line of sight, modifiers, hits, flags and retreats (BC §4.4 - §4.7).

`battle_dice` computes the dice with every modifier explained; `resolve_battle` rolls them and
applies casualties; `continue_retreat` walks a retreat one hex at a time, stopping with a pending
decision when the defender has a genuine choice (DESIGN: pending decisions).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import DieRoll, Event, Modifier

from . import board, tables
from .scenario import Scenario
from .state import BattleCryState, Piece


@dataclass
class DiceCount:
    base: int
    modifiers: list[Modifier] = field(default_factory=list)
    row: str = ""

    @property
    def total(self) -> int:
        return self.base + sum(m.value for m in self.modifiers)


def dice_table(attacker: Piece, scenario: Scenario) -> tuple[str, tuple[int, ...]]:
    """BC §4.4.1 and the FAQ: which range row applies to this attacker.

    HERALD (digest §8 item 32): the FAQ gives horse artillery 4-3-2-1 and says nothing of hills;
    a Hill extends only the ordinary artillery's range (the text's own wording), so horse
    artillery keeps range 4 on a hill."""
    if attacker.special == "horse_artillery":
        return "horse artillery", tables.BATTLE_DICE["horse_artillery"]
    if attacker.special == "vmi":
        return "VMI cadets", tables.BATTLE_DICE["vmi"]
    if attacker.kind == "artillery" and scenario.terrain.get(attacker.hex) == "hill":
        return "artillery on a Hill", tables.BATTLE_DICE["artillery_on_hill"]
    return attacker.kind, tables.BATTLE_DICE[attacker.kind]


def battle_dice(scenario: Scenario, state: BattleCryState, attacker: Piece, target_hex: str,
                leadership: bool = False) -> DiceCount:
    """BC §4.4.1 base dice by range and §4.4.3 modifiers. Raises Illegal when out of range."""
    grid = scenario.grid
    rng = grid.distance(attacker.hex, target_hex)
    name, row = dice_table(attacker, scenario)
    if rng > len(row):
        section = "BC §4.4.1" + (" (cavalry battles adjacent only)" if attacker.kind == "cavalry" else "")
        raise Illegal(f"{attacker.id} ({name}) reaches {len(row)} hex{'es' if len(row) > 1 else ''}; "
                      f"{target_hex} is {rng} away", section)
    count = DiceCount(row[rng - 1], row=f"{name}, range {rng}")
    count.modifiers += board.target_terrain_modifiers(scenario, state, attacker, target_hex)
    own = scenario.terrain_at(attacker.hex)
    if own.attacker_dice:
        count.modifiers.append(Modifier(own.attacker_dice, f"attacker in a {own.name}", own.section))
    general = state.attached_general(attacker)
    if general is not None:
        if leadership:
            count.modifiers.append(Modifier(tables.LEADERSHIP_GENERAL_DICE,
                                            f"General {general.id} attached, under Leadership",
                                            "BC §2.4 card 12 (Leadership)"))
        elif attacker.kind in ("infantry", "cavalry"):
            count.modifiers.append(Modifier(tables.GENERAL_DICE, f"General {general.id} attached",
                                            "BC §4.7"))
    return count


def _face(value: int) -> str:
    return tables.DIE_FACES[value]


def eliminate(state: BattleCryState, piece: Piece, by_side: str) -> str:
    """Remove a piece; its flag goes to the other side (BC §4.5 step 2; §4.7: a General = 1 flag)."""
    piece.hex = None
    piece.figures = 0
    state.flags[by_side] += 1
    state.captured[by_side].append(piece.id)
    return f"{piece.label} is eliminated: {by_side.title()} takes its flag"


def resolve_battle(scenario: Scenario, state: BattleCryState, attacker: Piece, target_hex: str,
                   stream: DiceStream, leadership: bool = False) -> list[Event]:
    """BC §4.4 - §4.5: roll, remove casualties, then start the retreats for the Flags."""
    target = state.piece_at(target_hex)
    lone_general = None
    if target is not None and target.side == attacker.side:
        raise Illegal(f"{target_hex} holds your own unit", "BC §4.4")
    if target is None:
        g = state.piece_at(target_hex, general=True)
        if g is None or g.side == attacker.side:
            raise Illegal(f"there is no enemy unit or General in {target_hex}", "BC §4.4")
        lone_general = g  # BC §4.7: alone in its hex from the start of the attack
    if attacker.hex == target_hex:
        raise Illegal("a unit cannot battle its own hex", "BC §4.4")
    count = battle_dice(scenario, state, attacker, target_hex, leadership)
    clear, why = board.line_of_sight(scenario, state, attacker, target_hex)
    if not clear:
        raise Illegal(f"{attacker.id} cannot see {target_hex}: {why}", "BC §4.4.2")
    n = count.total
    if n <= 0:
        raise Illegal(f"{attacker.id} would roll {n} dice at {target_hex} "
                      f"({count.row}, modifiers {', '.join(f'{m.value:+d} {m.reason}' for m in count.modifiers)}); "
                      "a battle needs at least one die", "BC §4.4.3 (HERALD: no battle below 1 die)")
    victim = lone_general if lone_general is not None else target
    rolls: list[DieRoll] = []
    hits = flags = 0
    for i in range(n):
        value = stream.roll(6, f"battle die {i + 1} of {n}")
        face = _face(value)
        if face == "flag":
            effect = "retreat"
            flags += 1
        elif face == "sabres" or (lone_general is None and face == victim.kind):
            effect = "kills the General" if lone_general is not None else "hit"
            hits += 1
        else:
            effect = "miss"
        rolls.append(DieRoll(f"battle die {i + 1} of {n}", "battlecry-d6", value, face, effect))
    outcome: dict = {"hits": hits, "flags": flags}
    lines = []
    events: list[Event] = []
    side = attacker.side
    state.current.battles[attacker.id] = state.current.battles.get(attacker.id, 0) + 1
    state.current.battle_started = True
    action = {"kind": "battle", "piece": attacker.id, "from": attacker.hex, "to": target_hex,
              "hits": hits, "retreats": flags}
    state.last_action = {"items": [action]}
    general_after: Piece | None = None
    if lone_general is not None:
        if hits:
            lines.append(eliminate(state, lone_general, side))
            outcome["eliminated"] = lone_general.id
            flags = 0
        else:
            lines.append(f"General {lone_general.id} escapes")
    else:
        before = target.figures
        lost = min(hits, target.figures)
        target.figures -= lost
        outcome["figures_lost"] = lost
        if lost:
            lines.append(f"{target.id} loses {lost} figure{'s' if lost > 1 else ''} ({before}->{target.figures})")
        if hits > lost:
            lines.append(f"{hits - lost} excess hit{'s' if hits - lost > 1 else ''} ignored (BC §4.5)")
        if target.figures == 0:
            general_after = state.attached_general(target)
            lines.append(eliminate(state, target, side))
            outcome["eliminated"] = target.id
            state.last_action["items"].append({"kind": "eliminated", "hex": target_hex})
    faces = ", ".join(f"{tables.FACE_SYMBOLS[r.face]} {r.effect}" for r in rolls)
    why = ", ".join([count.row.split(", ")[-1] + f": {count.base}"]
                    + [f"{m.reason} {m.value:+d}" for m in count.modifiers])
    events.append(Event(
        kind="battle", actor=side, section="BC §4.4",
        narrative=(f"{attacker.label} battles {victim.label} at {target_hex} with {n} {'die' if n == 1 else 'dice'} ({why}): "
                   f"{faces} -> {hits} hit{'s' if hits != 1 else ''}, {flags} flag{'s' if flags != 1 else ''}"
                   + (". " + "; ".join(lines) if lines else "")),
        inputs={"attacker": attacker.id, "from": attacker.hex, "target": victim.id, "to": target_hex},
        base=count.base, modifiers=count.modifiers, dice=rolls, table="BC §4.4.1 battle dice",
        row=count.row, outcome=outcome))
    # Retreats: the surviving unit (with its General), or the General of a destroyed unit
    # (BC §4.6 rule 6), or a lone General that survived.
    mover = None
    if flags:
        if lone_general is not None and lone_general.alive:
            mover = lone_general
        elif target is not None and target.alive:
            mover = target
        elif general_after is not None:
            mover = general_after
    if mover is not None:
        state.pending = {"kind": "retreat", "side": mover.side, "piece": mover.id,
                         "remaining": flags, "attacker": side, "path": [mover.hex]}
        events += continue_retreat(scenario, state)
    return events


def retreat_options(scenario: Scenario, state: BattleCryState, piece: Piece) -> tuple[list[str], list[str]]:
    """BC §4.6: legal hexes for one retreat step, and the blocked candidates (for the reason).

    HERALD (digest §8 item 5; supplements §2.4): a retreat goes one hex toward the owner's own
    edge (one of the two hexes in the next row), never sideways; the FAQ's 'last row: eliminated'
    ruling only makes sense that way. 'Retreats ignore terrain effects' (no stop in Woods...),
    but Rough stays impassable to units, and where a scenario forbids retreating across a River
    (Antietam) a River hex is no retreat hex."""
    legal, blocked = [], []
    general_with = state.attached_general(piece) if not piece.is_general else None
    for h in board.toward_home(scenario, piece.side, piece.hex):
        unit_there = state.piece_at(h)
        general_there = state.piece_at(h, general=True)
        terrain = scenario.terrain.get(h, "clear")
        ok = True
        if piece.is_general:
            # Exception 2: a General may retreat through or onto a friendly unit without a General.
            if unit_there is not None and unit_there.side != piece.side:
                ok = False
            if general_there is not None:
                ok = False
        else:
            if unit_there is not None:
                ok = False                        # rule 1: never onto other units
            if general_there is not None:
                if general_there.side != piece.side or general_with is not None:
                    ok = False                    # rule 4; enemy Generals block
            if terrain == "rough":
                ok = False
        if terrain == "river" and scenario.special.get("retreat_across_river_eliminates"):
            ok = False
        (legal if ok else blocked).append(h)
    return legal, blocked


def retreat_outlook(scenario: Scenario, state: BattleCryState, piece: Piece, step: str, remaining: int) -> str:
    """What retreating into `step` with `remaining` flags to go leads to, for the owner who
    chooses (BC §4.6 rule 7: each retreat that cannot be made costs a figure): "" when the
    retreat can go on (or ends there), else the cost of the step that will be blocked, or the
    piece's loss off its own edge. The state is left as it was."""
    general = state.attached_general(piece) if not piece.is_general else None
    before = piece.hex
    piece.hex = step
    if general is not None:
        general.hex = step
    try:
        left = remaining - 1
        if left <= 0:
            return ""
        if not piece.is_general and general is None:
            g = state.piece_at(step, general=True)
            if g is not None and g.side == piece.side:
                return ""                              # exception 1: a lone General stops it there
        if board.on_home_edge(scenario, piece.side, step):
            return "then off the board: eliminated (BC §4.6 rule 8)"
        legal, _ = retreat_options(scenario, state, piece)
        if not legal:
            if piece.is_general:
                return "then blocked: the General is lost (BC §4.6 rule 7)"
            lost = min(left, piece.figures)
            return (f"then blocked: loses {lost} figure{'s' if lost > 1 else ''}"
                    + (", eliminated" if lost >= piece.figures else "") + " (BC §4.6 rule 7)")
        later = [retreat_outlook(scenario, state, piece, h, left) for h in legal]
        return "" if "" in later else later[0].replace("then", "later", 1)
    finally:
        piece.hex = before
        if general is not None:
            general.hex = before


def continue_retreat(scenario: Scenario, state: BattleCryState, choice: str | None = None) -> list[Event]:
    """Walk the pending retreat until it ends or needs the defender's choice."""
    events: list[Event] = []
    while state.pending and state.pending["kind"] == "retreat":
        pend = state.pending
        piece = state.pieces[pend["piece"]]
        attacker_side = pend["attacker"]
        if pend["remaining"] <= 0 or not piece.alive:
            _finish_retreat(state, pend)
            break
        if board.on_home_edge(scenario, piece.side, piece.hex):
            # BC §4.6 rule 8 and FAQ: off the board -> eliminated, with its General.
            lines = []
            g = state.attached_general(piece) if not piece.is_general else None
            lines.append(eliminate(state, piece, attacker_side))
            if g is not None:
                lines.append(eliminate(state, g, attacker_side))
            events.append(Event("retreat", piece.side, "BC §4.6 rule 8",
                                f"{piece.id} must retreat off its own edge: " + "; ".join(lines),
                                outcome={"eliminated": [piece.id] + ([g.id] if g else [])}))
            _finish_retreat(state, pend)
            break
        legal, blocked = retreat_options(scenario, state, piece)
        if not legal:
            events += _blocked_retreat(scenario, state, piece, pend, blocked)
            continue
        if choice is None and len(legal) > 1 and state.policies.get(piece.side, {}).get("retreat") != "auto":
            pend["options"] = legal
            notes = {h: note for h in legal if (note := retreat_outlook(scenario, state, piece, h, pend["remaining"]))}
            if notes:                     # which hex leads to a blocked step, a lost figure
                pend["notes"] = notes
            return events
        step = choice if choice is not None else legal[0]
        choice = None
        if step not in legal:
            raise Illegal(f"{step} is not a retreat hex for {piece.id}; choose one of {', '.join(legal)}",
                          "BC §4.6")
        events += _retreat_step(state, piece, step, pend)
    return events


def _retreat_step(state: BattleCryState, piece: Piece, step: str, pend: dict) -> list[Event]:
    general = state.attached_general(piece) if not piece.is_general else None
    frm = piece.hex
    piece.hex = step
    if general is not None:
        general.hex = step                       # rule 5: the General makes every retreat move
    pend["remaining"] -= 1
    pend["path"].append(step)
    pend.pop("options", None)
    pend.pop("notes", None)
    text = f"{piece.id}" + (f" with General {general.id}" if general else "") + f" retreats {frm} -> {step}"
    section = "BC §4.6"
    if not piece.is_general and general is None:
        g = state.piece_at(step, general=True)
        if g is not None and g.side == piece.side:
            # Exception 1: the lone friendly General attaches and the retreat stops.
            text += f"; General {g.id} attaches and the unit stops (remaining flags ignored)"
            pend["remaining"] = 0
            section = "BC §4.6 exception 1"
    if piece.is_general and pend["remaining"] == 0 and state.piece_at(step) is not None:
        text += f"; it attaches to {state.piece_at(step).id}"
        section = "BC §4.6 exception 2"
    return [Event("retreat", piece.side, section, text, inputs={"piece": piece.id, "from": frm, "to": step})]


def _blocked_retreat(scenario: Scenario, state: BattleCryState, piece: Piece, pend: dict,
                     blocked: list[str]) -> list[Event]:
    """BC §4.6 rule 7: one figure per retreat move that cannot be made; a General who cannot
    retreat is lost. Antietam: a unit forced to retreat across the creek is eliminated."""
    attacker_side = pend["attacker"]
    n = pend["remaining"]
    river = [h for h in blocked if scenario.terrain.get(h) == "river"]
    if river and scenario.special.get("retreat_across_river_eliminates") and \
            all(scenario.terrain.get(h) == "river" or state.piece_at(h) is None for h in blocked):
        lines = [eliminate(state, piece, attacker_side)]
        g = state.attached_general(piece) if not piece.is_general else None
        _finish_retreat(state, pend)
        return [Event("retreat", piece.side, "BC §7 (Antietam: no retreat across the creek)",
                      f"{piece.id} is forced to retreat across the creek: " + "; ".join(lines),
                      outcome={"eliminated": piece.id, "general": g.id if g else None})]
    if piece.is_general:
        text = eliminate(state, piece, attacker_side)
        _finish_retreat(state, pend)
        return [Event("retreat", piece.side, "BC §4.6 rule 7",
                      f"General {piece.id} has no room to retreat: {text}", outcome={"eliminated": piece.id})]
    lost = min(n, piece.figures)
    piece.figures -= lost
    text = f"{piece.id} cannot retreat ({n} flag{'s' if n > 1 else ''} unfulfilled): loses {lost} figure{'s' if lost > 1 else ''}"
    outcome: dict = {"figures_lost": lost}
    pend["remaining"] = 0
    if piece.figures == 0:
        g = state.attached_general(piece)
        text += "; " + eliminate(state, piece, attacker_side)
        outcome["eliminated"] = piece.id
        if g is not None:
            # Example C of BC §4.8: the General, now alone, makes the retreats still owed.
            pend["piece"] = g.id
            pend["remaining"] = n
            pend["path"] = [g.hex]
            text += f"; General {g.id}, now alone, must still retreat {n}"
    if pend["remaining"] == 0:
        _finish_retreat(state, pend)
    return [Event("retreat", piece.side, "BC §4.6 rule 7", text, outcome=outcome)]


def _finish_retreat(state: BattleCryState, pend: dict) -> None:
    if len(pend.get("path", [])) > 1:
        state.last_action.setdefault("items", []).append(
            {"kind": "retreat", "piece": pend["piece"], "path": list(pend["path"])})
    state.pending = None
