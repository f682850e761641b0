"""Battle Cry's part of `/odds`, the exact what-if (engine/core/odds.py; issue 5, Arbitration).

What may be asked: the actions that roll the battle dice (BC §5.2): a battle (§4.4), Rally
(§2.4 card 14), Sharp Shooter (§2.4 card 15) and the Call for Reinforcements die (§2.4 card 5).
Nothing else rolls a die; `end` and `discard` draw a card from the deck, which is hidden (BC
§3.1), so they are never asked (and the core refuses any hidden draw anyway).

Hidden information: a what-if runs the asker's own action, which reads only public pieces and,
for Rally, the asker's OWN hand size (one die per card, §2.4 card 14): never the other hand nor
the deck. Standing retreat policies are announced in the channel (the `policy` command is a
public event), so a battle's retreat that waits for the defender's choice is an outcome ("the
defender chooses where ... retreats").

The dice (HERALD, by reading combat.py and cards.py): every rule reads a battle die by its face
name (tables.DIE_FACES), so faces 1 and 2 (both Infantry) are enumerated once with weight 2; and
the dice of one battle or one Rally are added up face by face (hits, flags, figures back), so
their order never matters: they are enumerated as multisets with multinomial weights. The test
file checks both against a plain enumeration of every ordered sequence of six faces.
"""
from __future__ import annotations

import re

from . import tables

ASKABLE = {
    "battle": "battle <unit> <target>: hits, figures lost, retreats and flags (BC §4.4-§4.6)",
    "rally": "rally <unit>: figures returned (BC §2.4 card 14)",
    "snipe": "snipe <General>: the Sharp Shooter's die (BC §2.4 card 15)",
    "reinforce": "reinforce: the Call for Reinforcements die (BC §2.4 card 5)",
}

_GROUPED = re.compile(r"^(battle|rally) die (\d+) of (\d+)$")


def faces(sides: int, purpose: str) -> list[tuple[int, int]]:
    """BC §5.2: one face per sticker kind, weighted by how many faces carry it."""
    if sides != 6:
        return [(v, 1) for v in range(1, sides + 1)]
    first: dict[str, int] = {}
    weight: dict[str, int] = {}
    for value, name in sorted(tables.DIE_FACES.items()):
        first.setdefault(name, value)
        weight[name] = weight.get(name, 0) + 1
    return [(first[name], weight[name]) for name in first]


def group(purpose: str) -> tuple | None:
    """The dice of one battle (or one Rally) are exchangeable: ("battle", n) and the die's index."""
    m = _GROUPED.match(purpose)
    if not m:
        return None
    return (m.group(1), int(m.group(3))), int(m.group(2))


def summary(sc, before, after, events, side: str) -> str:
    """What the action did to the board: each piece's figures, elimination and retreat, the
    reinforcement rolled, the retreat choice left to a player, the end of the battle."""
    parts: list[str] = []
    for pid in sorted(before.pieces):
        a, b = before.pieces[pid], after.pieces.get(pid)
        if b is None or not a.alive:
            continue
        if not b.alive:
            parts.append(f"{a.label} eliminated")
            continue
        if b.figures < a.figures:
            n = a.figures - b.figures
            parts.append(f"{a.label} loses {n} ({a.figures}→{b.figures} figures)")
        elif b.figures > a.figures:
            n = b.figures - a.figures
            parts.append(f"{a.label} regains {n} ({a.figures}→{b.figures} figures)")
        if b.hex != a.hex:
            parts.append(f"{a.label} retreats to {b.hex}")
    for e in events:
        if e.kind == "reinforce":
            kind = e.outcome.get("kind")
            parts.append("reinforcement: " + ("any lost type" if kind == "any" else
                                              f"a {kind} unit" if kind else "none"))
    p = after.pending
    if p and p.get("kind") == "retreat" and p.get("options"):
        parts.append(f"then {p['side'].title()} picks {p['piece']}'s retreat "
                     f"({p['remaining']} to go: {'/'.join(p['options'])})")
    if after.winner and not before.winner:
        parts.append(f"{after.winner.title()} wins the battle")
    return "; ".join(parts) if parts else "no effect"


def breakdown(sc, state, side: str, events) -> list[str]:
    """The dice count of the action (BC §4.4.1 range row, §4.4.3 modifiers), as the real
    adjudication's event records it."""
    ev = next((e for e in events if e.dice), None)
    if ev is None:
        return []
    out = [f"[{ev.section}] {ev.table or ev.kind}" + (f": {ev.row}" if ev.row else "")
           + (f", {ev.base} {'die' if ev.base == 1 else 'dice'}" if ev.base is not None else "")]
    for m in ev.modifiers:
        out.append(f"  {m.value:+d}  {m.reason} ({m.section})")
    if ev.modifiers and ev.base is not None:
        n = ev.base + sum(m.value for m in ev.modifiers)
        out.append(f"  = {n} {'die' if n == 1 else 'dice'}")
    return out
