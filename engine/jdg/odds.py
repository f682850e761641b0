"""Jours de Gloire's part of `/odds`, the exact what-if (engine/core/odds.py; issue 14).

What may be asked (ASKABLE): every action that rolls the d10 [0.4] or makes the other side roll
it: artillery fire [7] (with the counter-battery it draws, by the target's standing policy
[7.6]), an assault or a charge [8], [9] (declared, then resolved with every declared combat of
the activation: the reactions, the table, the results, breakthroughs and pursuits as the
policies decide them), `resolve`, the commander's initiative [2.4], a rally [11], a move (a
charge move's engagement check, [9.1]) and `next` when it resolves what is declared.

Decisions (HERALD, for this what-if):
- `assault` and `charge` declare; the what-if then resolves the activation's declared combats
  (`resolve`), as the next step would. A decision the other side owes (refusing, forming square,
  counter-charging, reaction fire, a retreat hex, when their policy is "ask") is answered with the
  first answer offered, and the answer says so: their choice is theirs, no die tells it.
- Standing policies are public (the `policy` command is posted like any other), so they decide
  the what-if as they decide the adjudication.
- Hidden information: the secret orders [2.3] are read by the rules only for the formation whose
  marker is drawn (then revealed); a what-if is refused in phase A, and never draws a marker
  (the cup's draw is a hidden draw, refused by engine/core/odds.py).
- Every d10 is read against a threshold or a band (checks [0.3], the fire and assault tables):
  the code rolling it names the bands where it knows the threshold (checks.d10 `reads`: a check
  passed or failed, the table's band; the what-if tries one result of each), the others' faces
  are tried by halves (`ordered`), and equal positions are merged (`state_key`).
"""
from __future__ import annotations

import io
import marshal
import pickle
from dataclasses import fields

from engine.jdg.state import Activation, Commander, Formation, Marker, Unit

ASKABLE = {
    "fire": "fire <unit> <hex>: artillery fire, with the counter-battery it draws (JdG [7])",
    "assault": "assault <units> on <hex>: declare, then resolve the activation's assaults (JdG [8])",
    "charge": "charge <unit> <hex>: declare a charge, then resolve (JdG [9])",
    "resolve": "resolve: the declared assaults and charges (JdG [8.5], [9.2])",
    "move": "move <unit> <hexes> [charge <hex>]: a charge's engagement check (JdG [9.1])",
    "initiative": "initiative: the commander's initiative roll (JdG [2.4])",
    "rally": "rally <unit>: the rally roll (JdG [11])",
    "square": "square <unit>: forming square (JdG [4.2])",
    "next": "next: ending the step (the declared combats resolved, JdG [8.5])",
    "react": "react <answer>: a reaction and what follows (JdG [7.6]-[9.5])",
    "breakthrough": "breakthrough <unit>: the breakthrough assault (JdG [8.7])",
}

CONDITION = {"good": "good order", "disordered": "disordered", "routed": "routed"}


# what a combat's record (`st.combat["current"]`, combat/resolution.py) keeps that no later rule reads
# and no summary shows: the roll's die and total, why it was cancelled, the defenders at the start,
# the hexes fought, the counter-chargers (kept for the narrative and the picture)
_RECORD_ONLY = frozenset(("die", "total", "cancelled", "check_failed", "defenders_at_start", "fight_hexes",
                          "counter_chargers", "log"))
_STAGES = ("start", "refuse", "check", "square", "recall", "counter_charge", "reaction_fire", "roll",
           "effects", "advance", "follow", "end", "done")
# what each stage and those after it still read of the combat's record (combat/resolution.py,
# combat/charge.py): after the effects, not `before` (the defenders the roll met); after the
# follow-up (breakthrough, counter-assault), nothing but its id, side, origin, stage and the
# charge it belongs to (`_finish`)
_AFTER_EFFECTS = frozenset(("before", "effects"))
_AT_END = frozenset(("id", "side", "origin", "stage", "group"))


def _record_view(cur: dict) -> dict:
    stage = _STAGES.index(cur.get("stage", "start")) if cur.get("stage", "start") in _STAGES else 0
    if stage >= _STAGES.index("end"):
        return {k: v for k, v in cur.items() if k in _AT_END}
    drop = _RECORD_ONLY | (_AFTER_EFFECTS if stage > _STAGES.index("effects") else frozenset())
    return {k: v for k, v in cur.items() if k not in drop}


def state_key(state) -> bytes:
    """The merge key of a position (engine/core/odds.py, issue 13): the whole working state but
    what the combat being resolved records only for the narrative (`_RECORD_ONLY`: its die and
    total, read by no rule, kept equal positions apart), and what no stage still to come reads
    of it (`_record_view`: the defenders the roll met, once the results are applied; all but its
    id, side, origin and charge once its follow-up is over). The rest of the combat's record
    (the answers given, the targets, the hexes vacated, the units pursued, the result until the
    follow-up has read it) is kept: each is read by a later stage. JdG's adjudication keeps
    what a later die depends on in the state (each combat's queued effects, its stage), never in
    a local across a die, so equal states lead to the same outcomes. Checked against the plain
    enumeration (bench/odds_bench.py --check, tests/engine/test_jdg_odds.py)."""
    c = state.combat
    cur = c.get("current") if isinstance(c, dict) else None
    items = [(k, v) for k, v in state.__dict__.items() if not k.startswith("_memo_")]
    if isinstance(cur, dict):
        items = [(k, dict(c, current=_record_view(cur)) if k == "combat" else v) for k, v in items]
    try:
        return b"m" + _marshalled(items)
    except (ValueError, AttributeError):    # a value marshal does not write: the pickle
        return b"p" + _values((type(state), items))


def _marshalled(items: list) -> bytes:
    """The key's bytes, about four times faster than the pickle (issue 13): the state's records
    (units, formations, commanders, markers, the activation) written as their values (`_record`),
    everything by `marshal` version 2, which writes every value out, shared or not (no
    references: sharing never keeps equal states apart, as `_values`). The state's plain data
    is marshal's (str, int, float, bool, None, lists, tuples, dicts); anything else raises
    ValueError. Equal bytes are equal states: marshal's output reads back to the values, and
    each attribute of the state always holds the same kind of thing (`units` its Units...)."""
    out = []
    for k, v in items:
        t = type(v)
        if t is dict and v and type(next(iter(v.values()))) in _RECORDS:
            v = [(i, _record(x)) for i, x in v.items()]
        elif t in _RECORDS:
            v = _record(v)
        out.append((k, v))
    return marshal.dumps(out, 2)


def _record(x):
    """A record's attribute values, in the order of its fields: a dataclass sets them in that
    order (its __init__, the state's copy and from_dict alike) and a record never gains or loses
    an attribute, so its values alone tell it apart; one with another number of attributes is
    written as its dict (names and values)."""
    d = x.__dict__
    return list(d.values()) if len(d) == _FIELDS[type(x)] else d


_RECORDS = (Unit, Formation, Commander, Marker, Activation)
_FIELDS = {cls: len(fields(cls)) for cls in _RECORDS}


def _values(obj) -> bytes:
    """A pickle that writes every value out, shared or not (the pickler's fast mode: no memo), so
    two equal states pickle alike whatever their lists share: a state resumed from a copy
    (engine.core.dice.run_stages) no longer shares the hexes a combat's queued results were
    given together, and must still merge with the one it was copied from (`pickled` keeps
    the sharing)."""
    out = io.BytesIO()
    p = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    p.fast = True
    p.dump(obj)
    return out.getvalue()


def ordered(sides: int, purpose: str) -> bool:
    """Every JdG d10 is read against a threshold or a band ([0.3], [7.5], [8.5])."""
    return sides == 10


def refusal(sc, state, side: str, cmd) -> str | None:
    if state.phase == "orders":
        return "the orders of phase A are secret (JdG [2.3]): no what-if before they are all given"
    return None


def follow_up(sc, state, side: str, done: list[str], events):
    """After a declaration, the declared combats are resolved; a decision the other side owes
    gets its first offered answer (noted)."""
    from engine.core.commands import Command
    p = state.pending
    verb = done[-1].split()[0]
    if p:
        answer = (p.get("options") or ["none"])[0]
        who = p["side"]
        return who, Command("react", (answer,)), (
            f"assumes {who.title()} answers '{answer}' when asked ({p.get('section', 'JdG')}): that is "
            f"their choice")
    act = state.activation
    if verb in ("assault", "charge") and len(done) == 1 and act is not None and act.side == side:
        from engine.jdg.combat.assault import declared
        if declared(state):
            return side, Command("resolve"), None
    return None


def _unit_changes(a, b) -> list[str]:
    if not a.alive:
        return ["enters the map"] if b.alive else []
    if not b.alive:
        return ["eliminated" if b.status == "eliminated" else "leaves the map"]
    out = []
    if b.condition != a.condition:
        out.append(CONDITION.get(b.condition, b.condition))
    if b.square != a.square:
        out.append("in square" if b.square else "leaves square")
    if b.hex != a.hex:
        out.append(f"to {b.hex}")
    return out


def summary(sc, before, after, events, side: str) -> str:
    """The board's changes: each unit's state on the ladder [10], square and position; the
    formation's initiative; the activation ending; the decision then waiting; the battle's end."""
    parts: list[str] = []
    for uid in sorted(before.units):
        a, b = before.units[uid], after.units.get(uid)
        changes = _unit_changes(a, b) if b is not None else []
        if changes:
            parts.append(f"{sc.unit(uid).name} ({uid}): {', '.join(changes)}")
    for fid in sorted(before.formations):
        a, b = before.formations[fid], after.formations[fid]
        if b.initiative_success and not a.initiative_success:
            parts.append(f"{sc.formation(fid).name} acts With Orders (initiative)")
    a, b = before.activation, after.activation
    if after.phase == "over" and before.phase != "over":
        parts.append(f"the battle ends: {after.result}")
    elif a is not None and (b is None or b.marker != a.marker):
        parts.append("the activation ends")
    elif a is not None and b is not None and b.failed and not a.failed:
        parts.append("the initiative fails: rally only")
    p = after.pending
    if p and p != before.pending:
        parts.append(f"then {p['side'].title()} decides: {p['kind'].replace('_', ' ')}")
    return "; ".join(parts) if parts else "no effect"


def breakdown(sc, state, side: str, events) -> list[str]:
    """The first roll's calculation as its event records it: the table, the modifiers with
    their reasons and paragraphs; the die is the d10 read 0-9 [0.4]."""
    ev = next((e for e in events if e.dice), None)
    if ev is None:
        return []
    check = "check" in (ev.table or ev.kind)
    head = f"[{ev.section}] {ev.table or ev.kind}: d10 (0-9)"
    if ev.base is not None and not check:
        head += f" + {ev.base} ({ev.inputs.get('base_name', 'base') if isinstance(ev.inputs, dict) else 'base'})"
    if ev.modifiers:
        head += f" {sum(m.value for m in ev.modifiers):+d}"
    if ev.base is not None and check:
        head += f", passed at {ev.base} or less"
    out = [head]
    for m in ev.modifiers:
        out.append(f"  {m.value:+d}  {m.reason} ({m.section})")
    return out
