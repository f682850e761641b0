"""Lion of the North's part of `/odds`, the exact what-if (engine/core/odds.py; HERALD D99).

What may be asked (ASKABLE): a shot [7] and a melee [8], the two actions whose dice a player
weighs before acting. The what-if runs the same code as the game (engine/lion/fire/shoot.py,
engine/lion/melee/fight.py) with every die enumerated, so each outcome comes with its exact
chance: the shooting die, canister, the explosion test, the cover save and a general's risk roll;
each combatant's melee dice, the guns' d6 and the generals' d8.

- A d3 is a d6 halved (HERALD D9): its six faces are enumerated as three, each of weight 2.
- An infantry winner whose side would be asked about its follow-up ([8 E], policy advance ask)
  is assumed to advance, and the answer says so: the choice is theirs, no die tells it.
- Totals (issue 13, engine/core/odds.py "Sums"; DiceStream.roll_sums): [8 A], [8 C] read a
  melee's dice only through the totals, and those only as how each attack total compares with
  the one defence total (lower, tie or higher; each side's dice added, its quality added after;
  no face of a melee die does anything of its own: the gun explosion's natural 1 is a shot's,
  [7 E], HERALD D84). melee/fight.py decides every side's dice first (`side_dice`: the melee
  die, a P&S's or Tercio's second die, a Tercio's 1d3, a flank attack's 1d3, a general's 1d3),
  then rolls them all at once (`roll_sides`, checks.roll_totals), reading that comparison: the
  real game rolls and records each die in turn, as before (the same draws), and a what-if
  tries each comparison once, weighted by the number of dice sequences giving it, with one
  sequence giving it. A melee of one attacker costs 3 adjudications (lower, tie, higher),
  whatever the dice; two attackers at most 9 (Lutzen's `fight sw-res2`, a d10 and a flank d3
  and a d10 against a d10: 9, not 3,000). The dice and totals of one comparison differ only in
  what is written for people (the melee event, st.last_action for the picture).
- Bands (issue 13, engine/core/odds.py; checks.roll's `reads`): where the rules read a die only
  against thresholds, the code rolling it names them and the what-if tries one value per band:
  the guns' d6 (1-3 spiked, 4-6 captured, [9 B]) and a general's d8 (his table's rows, [9 C]).
- Cheaper adjudications (issue 13): a retreat's and a follow-up's way (melee/results.py
  `_straight`) measures only the bases whose bounding box comes near the box of the way, each
  only when its box meets the moving base's; the answers are the same.
- No `state_key`: with the totals read as comparisons, a melee has so few adjudications that
  merging equal positions would not pay for keying them.
- Nothing in Lion is hidden but the order of the cards: the what-if stops once the action is done,
  before the card may pass and the next one be drawn (sequence/cards.py, HERALD D110), so the
  last shot or melee of a card is asked like any other and no draw is ever made.
"""
from __future__ import annotations

ASKABLE = {
    "shoot": "shoot <unit> <target> [from <face>]: a shot, with its explosion test, cover save and "
             "a general's risk (LdN [7], [9 C])",
    "fight": "fight <enemy> [units]: a melee with its hits, guns, generals, retreats and follow-ups "
             "(LdN [8], [9])",
}

D3_MARK = "(d3: a d6 halved"


def faces(sides: int, purpose: str) -> list[tuple[int, int]]:
    """A d3 rolled as a d6 halved rounded up (HERALD D9): faces 1, 3, 5 each stand for two."""
    if sides == 6 and D3_MARK in purpose:
        return [(1, 2), (3, 2), (5, 2)]
    return [(v, 1) for v in range(1, sides + 1)]


def follow_up(sc, state, side: str, done: list[str], events):
    """An infantry follow-up the winner's side would be asked about: assumed "advance"."""
    from engine.core.commands import Command
    p = state.pending
    if p and p.get("kind") == "advance":
        who = p["side"]
        return who, Command("react", ("advance",)), (
            f"assumes {who.title()} advances after the melee when asked (LdN [8 E]): that is their choice")
    return None


def _unit_changes(sc, a, b) -> list[str]:
    out = []
    if a.alive and not b.alive:
        return ["destroyed"]
    if b.captured_by != a.captured_by:
        out.append(f"captured by {b.captured_by.title()}" if b.captured_by else "retaken")
    if b.hits != a.hits:
        out.append(f"{b.hits} hit{'s' if b.hits != 1 else ''}")
    if (b.x, b.y, b.facing) != (a.x, a.y, a.facing):
        out.append("moves")
    return out


def summary(sc, before, after, events, side: str) -> str:
    """The board's changes: each unit's hits, destruction, capture and move; each general wounded,
    killed or withdrawing; a decision then waiting."""
    from engine.lion.rules import named
    parts: list[str] = []
    for uid in sorted(before.units):
        a, b = before.units[uid], after.units.get(uid)
        if b is None:
            continue
        changes = _unit_changes(sc, a, b)
        if changes:
            parts.append(f"{named(sc, uid)}: {', '.join(changes)}")
    for gid in sorted(before.generals):
        a, b = before.generals[gid], after.generals.get(gid)
        if b is None:
            continue
        if a.alive and not b.alive:
            parts.append(f"{named(sc, gid)}: killed")
        elif b.wounded and not a.wounded:
            parts.append(f"{named(sc, gid)}: wounded")
        elif (b.x, b.y) != (a.x, a.y):
            parts.append(f"{named(sc, gid)}: withdraws")
    p = after.pending
    if p and p != before.pending:
        parts.append(f"then {p['side'].title()} decides: {p['kind'].replace('_', ' ')}")
    return "; ".join(parts) if parts else "no effect"


def breakdown(sc, state, side: str, events) -> list[str]:
    """The roll's calculation as its event records it: the table and band, the die and the
    modifiers with their reasons."""
    ev = next((e for e in events if e.kind in ("shoot", "melee")), None)
    if ev is None:
        return []
    if ev.kind == "shoot":
        i = ev.inputs
        head = (f"{ev.section} {ev.table}: d{i['die']} at {i['distance']:g} cm, {i['band']} range, "
                f"{ev.outcome['threshold']} or more to hit")
        out = [head] + [f"  size down: {s['reason']} ({s['section']})" for s in i.get("die_steps", [])]
    else:
        out = [f"{ev.section} {ev.table}"]
    out += [f"  {m.value:+d}  {m.reason} ({m.section})" for m in ev.modifiers]
    return out
