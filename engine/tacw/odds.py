"""This Accursed Civil War's part of `/odds`, the exact what-if (engine/core/odds.py; issue 5).

What may be asked (ASKABLE): every action that rolls the d10 (TACW §2.2) or may make the other
side roll it: fire and Salvo (§9), the close combat (§10: `attack <unit> <hex>` designates and is
then resolved, `resolve` resolves the designations made), a reaction attack (`counter`), an order
change (§5.7), a continuation (§4.3), stopping the activation (its close combat step and, at the
end of the Activation Phase, the rout moves and Leader Replacement rolls, §3.3-§3.4), passing, a
bypass (§4.4), Rally and Reform (§12), a leader's action, an interception (§7.5), reaction fire
and reaction movement (§7.4, §9.7), and a move (the enemy's Reaction Fire and interceptions, by
their standing policies).

Decisions (HERALD, for this what-if):
- `attack` is followed by `resolve` (§10.2: designation has no die; the odds are those of the
  close combat step, every designated combat together). When that step stops for the other
  side's reaction attacks (their policy "ask", §10.2 B), the what-if assumes they make none and
  says so in a note: their choice is theirs, and no die tells it.
- Standing policies are public: the `policy` command is posted in the channel like any command,
  so the other side's policies (Reaction Fire, interception, advance...) may decide the what-if,
  as they decide the real adjudication. Any other decision left to a player is an outcome
  ("then Parliament decides: reaction_fire").
- Hidden information: Second Newbury's boat bridge (special rule 5) is secret until a unit uses
  it. A what-if by the other side is refused while the bridge is secret and the move of its owner
  that may use it is suspended (the adjudication would walk that move on the secret bridge); the
  owner may ask about his own moves (the answer is his alone, ephemeral).
- The next turn's initiative (§4.1) is beyond any question asked in a turn: its dice are not
  enumerated (`frozen`) and the outcome only says that the turn ends.
- Faces the rules read alike are enumerated once: the Leader Loss d10 (§9.11, §10.8: only a 9
  removes the leader) and the Leader Replacement d10 (§5.3.3: 0, 1, 2-9). A d10 whose reading
  the rules know before the roll (a morale check, a close combat, a fire, a pursuit, a Retreat
  Impossible roll: the roll plus modifiers fixed then, on a table or against a number) tells
  its bands to the what-if (engine/tacw/readings.py): one face per result is tried (issue 13:
  Edgehill's two-combat steps in 140-368 adjudications instead of 464-1,033). Every other d10
  is read against modifiers and tables that depend on the position: its faces are tried by
  halves (`ordered`: a d10 is always read against thresholds, D2), and the faces between two
  that lead to the same position are not adjudicated again (issue 13).
- Equal positions are merged (`state_key`, issue 13): when a d10 is rolled, the working state
  (its `last_action` included, which records each reading as it is made) is taken to be all the
  rest of the command reads, so two die sequences reaching the same state at the same die of
  the same command share one enumeration. Checked against the plain enumeration on every
  askable action of the Edgehill demo and of autoplayed Marston Moor, Naseby and First Newbury
  games (bench/odds_bench.py --check: 828 answers, none different).
"""
from __future__ import annotations

import pickle

from engine.tacw import tables
from engine.tacw.sequence.activation import ORDER_NAMES

ASKABLE = {
    "fire": "fire <unit> <hex>: musket, pistol or artillery fire, with the Reaction Fire it draws (§9)",
    "salvo": "salvo <unit> <hex>: heavy infantry Salvo (§9.4)",
    "attack": "attack <unit> <hex>: designate a close combat and resolve the step (§10.1-§10.2)",
    "resolve": "resolve: the close combats designated (§10.2)",
    "counter": "counter <unit> <hex> | none: a reaction attack, then the close combats (§10.2 B)",
    "change": "change <order>: the Order Change roll (§5.7)",
    "continue": "continue: the Continuation roll (§4.3)",
    "stop": "stop: the close combat step, then the end of the activation (§3.2 F)",
    "pass": "pass: passing (and, when it ends the Activation Phase, the rout and replacement rolls)",
    "bypass": "bypass <wing>: the Bypass roll (§4.4)",
    "rally": "rally <unit>: the Rally action (§12.1)",
    "reform": "reform <unit> [...]: the Reform action (§12.2)",
    "leader": "leader <ac> rally|reform <unit>: an Army Commander's action (§5.1.2)",
    "intercept": "intercept <cavalry>: a cavalry interception (§7.5)",
    "react": "react <unit>... | all: Reaction Fire (§9.7)",
    "react_move": "react_move ...: reaction movement (§7.4)",
    "move": "move <unit> <path>: the move, the enemy's Reaction Fire and interceptions (§7, §9.7)",
}


# == the dice ===================================================================================

def _by_result(lookup) -> list[tuple[int, int]]:
    """The d10's faces (1-10, read 0-9) grouped by the result `lookup(read)` gives."""
    first: dict = {}
    weight: dict = {}
    for face in range(1, 11):
        key = lookup(face - 1)
        first.setdefault(key, face)
        weight[key] = weight.get(key, 0) + 1
    return [(first[k], weight[k]) for k in first]


def faces(sides: int, purpose: str) -> list[tuple[int, int]]:
    if sides == 10 and purpose.startswith("leader loss"):
        return _by_result(tables.leader_loss)
    if sides == 10 and purpose.startswith("leader replacement"):
        return _by_result(tables.leader_replacement)
    return [(v, 1) for v in range(1, sides + 1)]


def state_key(state) -> bytes:
    """The merge key of a position (engine/core/odds.py): the whole working state, `last_action`
    included. No rule reads `last_action` (the record of what the command did, kept for the
    picture), but it holds each die's reading as soon as it is made (a fire's result, a close
    combat's result code, each retreat and pursuit path), where the adjudication may still hold
    it in a local: the two rolls of a double unit's fire are added up and applied together
    (§9.6.2), so after the first roll only `last_action` tells a hit from a miss. Left out, the
    merge was wrong on Edgehill moves under Reaction Fire (bench/odds_bench.py --check).

    One part of it is left out: in the close combat step (§10.2 C: the combats resolved one
    after the other, `close_combat/melee.py` `_resolve_all`), the record of the combats finished
    before the one being resolved. Each combat reads the state alone (its designation was fixed
    before any die), and nothing of an earlier combat's dice is kept but in the state, so two
    earlier combats that left the same units, leaders and wings lead to the same later combat.
    Where a combat's record begins is marked by `_resolve_all` before it starts
    (`_memo_combat_record`: the record's list and its length then, engine scratch never copied
    nor saved), so the later combat's first die, rolled before it records anything, merges too
    (issue 13: a third fewer adjudications on Edgehill's two-combat steps). The combat's own
    record is kept.

    How it is written (issue 13: pickling the whole state took a quarter of a millisecond, at
    every die and at every leaf's end): the units, leaders and wings equal to those of the
    state's origin (`state.Origin`: a snapshot of the state the what-if was asked in, taken by
    its first copy and handed on to every copy made in the what-if) are left out; those that
    differ are pickled as their attributes (a dict pickles several times faster than a
    dataclass), the rest of the state as it is. The origin's number comes first, so keys
    written against two origins never compare equal; a state with no origin (made outside a
    what-if) is written whole. Two states with equal keys are still equal in every attribute
    but the earlier combats' records."""
    act = state.activation
    mark = state.__dict__.get("_memo_combat_record")
    record = state.last_action.get("items") if act is not None and act.step == "close_combat" \
        and mark is not None and isinstance(state.last_action, dict) else None
    last_action = state.last_action
    if record is not None and mark[0] is record and 0 < mark[1] <= len(record):
        last_action = dict(state.last_action, items=record[mark[1]:])
    origin = state.__dict__.get("_memo_origin")
    parts = [origin.serial if origin is not None else None]
    for k, v in state.__dict__.items():
        if k == "units" or k == "leaders" or k == "wings":
            parts.append((k, _changed(v, getattr(origin, k) if origin is not None else {})))
        elif k == "activation":
            parts.append((k, v.__dict__ if v is not None else None))
        elif k == "last_action":
            parts.append((k, last_action))
        elif not k.startswith("_memo_"):
            parts.append((k, v))
    return pickle.dumps((type(state), parts), pickle.HIGHEST_PROTOCOL)


def _changed(objs: dict, origin: dict) -> list:
    """The records (units, leaders or wings) whose attributes differ from the origin's, by id;
    and the ids in order when they are not the origin's."""
    out = [(i, o.__dict__) for i, o in objs.items() if origin.get(i) != o.__dict__]
    if objs.keys() != origin.keys():
        out.append(list(objs))
    return out


def ordered(sides: int, purpose: str) -> bool:
    """Every TACW d10 is read against thresholds: the roll plus its modifiers on a table of
    contiguous rows (D2, `tables.DieTable`), or against a morale, an interception or a return
    number (§11.2, §7.5.2); the Leader Loss and Replacement faces are merged by result, in
    order. So two faces that lead to the same position enclose faces that lead there too, and
    `/odds` tries a d10's faces by halves (engine/core/odds.py)."""
    return sides == 10


def frozen(purpose: str) -> bool:
    """§4.1: the next turn's initiative (and its tie re-rolls) is beyond the question."""
    return purpose.startswith("initiative")


# == what may be asked ==========================================================================

def refusal(sc, state, side: str, cmd) -> str | None:
    """Second Newbury special rule 5: no what-if by the other side while a move of the secret
    boat bridge's owner, halted by an interrupt, may walk onto it."""
    from engine.tacw.battles import second_newbury as nb
    boat = nb.data(state).get("boat") or {}
    owner = (nb.params(sc, "boat_bridge") or {}).get("side")
    if not boat.get("hex") or boat.get("revealed") or owner is None or side == owner:
        return None
    if nb._owner_sees_boat(sc, state, side, cmd.verb):
        return (f"{owner.title()}'s halted move may use its secret boat bridge (Second Newbury special "
                "rule 5): a what-if now would reveal it")
    return None


def follow_up(sc, state, side: str, done: list[str], events):
    """`attack` designates, then the close combat step is resolved; the other side's reaction
    attacks, when its policy asks, are assumed not made (noted)."""
    from engine.core.commands import Command
    p = state.pending or {}
    act = state.activation
    if done[-1].split()[0] == "attack" and len(done) == 1 and p.get("kind") == "close_combat" \
            and act is not None and act.side == side and act.step == "close_combat":
        return side, Command("resolve"), None
    if p.get("kind") == "reaction_attack" and p.get("side") != side:
        other = p["side"]
        return other, Command("counter", ("none",)), (
            f"assumes {other.title()} makes no reaction attack when asked (§10.2 B): that is their choice")
    return None


# == the outcome ================================================================================

def _unit_changes(a, b) -> list[str]:
    """What happened to one unit: gone, or its SP lost, morale, formation, guns, new hexes."""
    if not a.alive:
        return []
    if not b.alive:
        return ["leaves the map" if b.status == "off_map" else "eliminated"]
    out = []
    if b.casualties > a.casualties:
        out.append(f"-{b.casualties - a.casualties} SP")
    if b.morale_state != a.morale_state:
        out.append(b.morale_state.title())
    if b.formation != a.formation:
        out.append(f"F-{b.formation.title()}")
    if b.special_formation != a.special_formation:
        out.append(b.special_formation or f"leaves {a.special_formation}")
    if b.gun_state != a.gun_state and b.gun_state:
        out.append(f"guns {b.gun_state}")
    if b.hexes != a.hexes:
        out.append(f"to {'&'.join(b.hexes)}")
    return out


def _names(units) -> dict[str, str]:
    """Each unit's name, with its id where two units share a name (two "Dragoons"). Kept for
    the units dict it was made for (a what-if reads the same `before` at every leaf)."""
    memo = _NAMES.get(id(units))
    if memo is not None and memo[0] is units and len(memo[1]) == len(units):
        return memo[1]
    out = _name_units(units)
    _NAMES.clear()                       # one what-if's `before` at a time
    _NAMES[id(units)] = (units, out)
    return out


_NAMES: dict = {}                        # id(units) -> (units, their names)


def _name_units(units) -> dict[str, str]:
    count: dict[str, int] = {}
    for u in units.values():
        count[u.name] = count.get(u.name, 0) + 1
    return {uid: u.name if count[u.name] == 1 else f"{u.name} ({uid})" for uid, u in units.items()}


def summary(sc, before, after, events, side: str) -> str:
    """The board's changes: each unit's casualties, morale, formation, guns and position; the
    leaders lost, Finished or with No Continue; orders changed; the activation going on or
    ending; the decision then waiting; the end of the turn or of the battle. Never the next
    turn's initiative (its dice are not enumerated) nor anything secret."""
    parts: list[str] = []
    names = _names(before.units)
    for uid in sorted(before.units):
        b = after.units.get(uid)
        changes = _unit_changes(before.units[uid], b) if b is not None else []
        if changes:
            parts.append(f"{names[uid]}: {', '.join(changes)}")
    for lid in sorted(after.leaders):
        b, a = after.leaders[lid], before.leaders.get(lid)
        if a is None:
            parts.append(f"{b.name} takes command")
            continue
        if b.status != a.status:
            parts.append(f"leader {a.name} " + {"active": "returns", "removed": "struck down",
                                                 "dead": "lost for good", "away": "away for a turn",
                                                 "stood_down": "stands down"}.get(b.status, b.status))
        if b.finished and not a.finished:
            parts.append(f"{a.name} is Finished (his wing acts no more this turn)")
        if b.no_continue and not a.no_continue:
            parts.append(f"{a.name} gets No Continue")
    for wid in sorted(before.wings):
        a, b = before.wings[wid], after.wings[wid]
        if b.order != a.order:
            parts.append(f"{a.name} now on {ORDER_NAMES[b.order]}")
    parts += _sequence(before, after)
    return "; ".join(parts) if parts else "no effect"


def _sequence(before, after) -> list[str]:
    out = []
    a, b = before.activation, after.activation
    if after.phase == "over" and before.phase != "over":
        return out + [f"the battle ends: {after.result}"]
    if after.turn != before.turn:
        return out + [f"turn {before.turn} ends"]
    if a is not None:
        wing = before.wings[a.wing].name
        if b is None or b.wing != a.wing:
            out.append(f"{wing}'s activation ends")
        elif b.number > a.number:
            out.append(f"{wing} activates again")
    if a is not None and b is not None and b.wing != a.wing:
        out.append(f"{after.wings[b.wing].name} activates")
    p = after.pending
    if p and p.get("kind") not in ("close_combat",) and p != before.pending:
        out.append(f"then {p['side'].title()} decides: {p['kind'].replace('_', ' ')}")
    return out


def breakdown(sc, state, side: str, events) -> list[str]:
    """The first roll's calculation, as its event records it: the table (and its column), the
    modifiers with reasons and sections; the die is the d10 read 0-9 (§2.2)."""
    ev = next((e for e in events if e.dice), None)
    if ev is None:
        return []
    column = ev.inputs.get("column") if isinstance(ev.inputs, dict) else None
    table = ev.table or ev.kind
    head = f"[{ev.section}] {table}" + (f" ({column} column)" if column and column not in table else "")
    total = sum(m.value for m in ev.modifiers)
    out = [head + f": d10 (0-9){f' {total:+d}' if ev.modifiers else ''}"]
    for m in ev.modifiers:
        out.append(f"  {m.value:+d}  {m.reason} ({m.section})")
    return out
