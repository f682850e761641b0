"""The Italian Wars' part of `/odds`, the exact what-if (engine/core/odds.py).

What may be asked (ASKABLE): a battle's activation (IW Tabella 6), a shot (IW Azioni 2e, IW-H 5)
and a melee (IW Azioni 2h, IW-H 6): the actions whose dice a player weighs before acting. The
what-if runs the same code as the game (sequence/activation.py, combat/shooting.py,
combat/melee.py, which call completion_shooting.resolve_shot and completion_melee.resolve_melee)
with every d6 enumerated, so each outcome comes with its exact chance: the activation die (and a
sacrificed six rolled again), the Shooting or Melee table's die, Doppelsöldner, the captains' risk
and fate, the morale tests.

- A decision the what-if meets (a winner who may pursue or follow up) takes the side's standing
  answer, or the offered default, and the answer says so: the choice is the player's, no die
  tells it.
- The what-if stops once the action is done: Herald does not walk the sequence on in a what-if
  (rules._apply), so it never plays the next steps, the rout phase or a command phase (their
  dice, and the other side's secret orders and Ecu: IW Ordini, IW Tesoro; HERALD D4). `refusal`
  refuses a question whose answer could show a secret.
"""
from __future__ import annotations

ASKABLE = {
    "activate": "activate <battle>: the battle's activation die against Tabella 6 (IW Tabella 6)",
    "shoot": "shoot <company> <target>: a shot, with its captain risk and morale test (IW Azioni 2e; IW-H 5)",
    "melee": "melee <company>: a round of melee, with Doppelsöldner, captains, morale, push back and "
             "rout (IW Azioni 2h; IW-H 6)",
}


def faces(sides: int, purpose: str) -> list[tuple[int, int]]:
    """The faces the what-if tries for one die, with their weights: every face, except where the
    completion says what each face decides (checks.FACE_KEY, set while completion.py rolls: the
    table's points, a test's pass or fail, a captain's fate): then one face for each group of
    faces that decide alike, weighted by the group's size. Exact, and a melee round's tree is a
    few hundred leaves instead of 6^7."""
    from engine.italianwars.checks import FACE_KEY
    key = FACE_KEY.get()
    if key is None or sides != 6:
        return [(v, 1) for v in range(1, sides + 1)]
    groups: dict = {}
    for f in range(1, 7):
        groups.setdefault(key(f), []).append(f)
    return [(fs[0], len(fs)) for fs in groups.values()]


def refusal(sc, state, side: str, cmd) -> str | None:
    """A what-if that could reveal what the other side has not shown: none of the askable actions
    reads the enemy's written orders or Ecu, but the activation of a battle whose order is still
    secret is asked only by its owner."""
    if cmd.verb == "activate" and cmd.args:
        b = state.battles.get(cmd.args[0])
        if b is not None and b.side != side and not b.revealed:
            return "that battle's order is secret: only its owner may ask about its activation (IW Ordini)"
    return None


def follow_up(sc, state, side: str, done: list[str], events):
    """A decision the action leaves open (pursue, follow up...): the side's standing answer or the
    offered default, said in the answer."""
    from engine.core.commands import Command
    p = state.pending
    if not p:
        return None
    who = p["side"]
    answer = p.get("default") or (p.get("options") or [None])[0]
    if answer is None:
        return None
    return who, Command("react", (str(answer),)), (
        f"assumes {who.title()} answers '{answer}' when asked ({p.get('section', 'IW Sequenza di gioco')}): "
        "that is their choice")


def _company_changes(a, b) -> list[str]:
    if a.alive and not b.alive:
        return ["destroyed" if b.status == "destroyed" else "leaves the table"]
    out = []
    if b.points_lost != a.points_lost:
        lost = b.points_lost - a.points_lost
        out.append(f"loses {lost} point{'s' if lost != 1 else ''}")
    if b.bases != a.bases:
        out.append(f"{b.bases} base{'s' if b.bases != 1 else ''} left")
    if b.captain_lost and not a.captain_lost:
        out.append(f"captain {b.captain_lost}")
    if b.status != a.status:
        out.append(b.status)
    elif b.disordered and not a.disordered:
        out.append("disordered")
    if (b.x, b.y) != (a.x, a.y) and b.status == a.status:
        out.append("moves")
    return out


def summary(sc, before, after, events, side: str) -> str:
    """The board's changes: each company's losses, bases, captain, disorder, rout or destruction;
    a battle activated or not; a decision then waiting."""
    from engine.italianwars.rules import battle_name, named
    parts: list[str] = []
    for cid in sorted(before.companies):
        a, b = before.companies[cid], after.companies.get(cid)
        if b is None:
            continue
        changes = _company_changes(a, b)
        if changes:
            parts.append(f"{named(sc, cid)}: {', '.join(changes)}")
    for bid in sorted(before.battles):
        a, b = before.battles[bid], after.battles.get(bid)
        if b is not None and b.activated and not a.activated:
            parts.append(f"{battle_name(sc, after, bid)}: " + ("fails" if b.failed else "activated"))
    p = after.pending
    if p and p != before.pending:
        parts.append(f"then {p['side'].title()} decides: {p.get('prompt', p['kind'].replace('_', ' '))}")
    return "; ".join(parts) if parts else "no effect"


def breakdown(sc, state, side: str, events) -> list[str]:
    """The roll's calculation as its event records it: the table and its column or minimum, the
    modifiers with their reasons."""
    ev = next((e for e in events if e.table or e.modifiers), None)
    if ev is None:
        return []
    head = f"{ev.table} ({ev.section})" if ev.table else ev.section
    if ev.row:
        head += f": {ev.row}"
    return [head] + [f"  {m.value:+d}  {m.reason} ({m.section})" for m in ev.modifiers]
