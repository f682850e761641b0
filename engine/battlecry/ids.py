"""Every id discoverable (issue 12): Battle Cry's question `units`, answered only to the asker on
Discord and printed by the CLI: each unit and General with its id, name, hex, figures, section
and what it has done this turn (BC §2.1, §3.2, §4)."""
from __future__ import annotations

import re

from engine.battlecry import board
from engine.battlecry.state import BattleCryState, Piece
from engine.battlecry.tables import SIDES
from engine.core.errors import Illegal
from engine.core.ids import unknown

MAX_REPLY = 1900
HEX_RE = re.compile(r"^\d{4}$")
SECTIONS = ("left", "centre", "right")


def kind_name(p: Piece) -> str:
    if p.special == "horse_artillery":
        return "horse artillery"
    if p.special == "vmi":
        return "VMI cadets"
    return "General" if p.is_general else p.kind


def piece_line(scenario, state: BattleCryState, p: Piece) -> str:
    """`ui1` Burnside's brigade (infantry) 0503 · 4/4 figures · left · with General `ug1` McDowell"""
    if not p.alive:
        return f"`{p.id}` {p.name or kind_name(p)} ({kind_name(p)}): eliminated"
    bits = [f"`{p.id}` {p.name or kind_name(p)} ({kind_name(p)}) {p.hex}"]
    if not p.is_general:
        bits.append(f"{p.figures}/{p.start_figures} figures")
    bits.append("/".join(board.sections_of(scenario, p.side, p.hex)))
    other = state.piece_at(p.hex, general=not p.is_general)
    if other is not None and other.side == p.side:
        bits.append(f"with {'General ' if other.is_general else ''}`{other.id}` {other.name or kind_name(other)}")
    cur = state.current
    if p.side == state.active:
        done = []
        if p.id in cur.ordered:
            done.append("ordered")
        if cur.moves.get(p.id):
            done.append("moved")
        if cur.battles.get(p.id):
            done.append("battled")
        if done:
            bits.append(", ".join(done))
    return " · ".join(bits)


def units_text(scenario, state: BattleCryState, side: str | None, args: tuple[str, ...] = ()) -> str:
    """`units [side|section|piece|hex|all]`: the pieces with their ids (BC §2.1)."""
    if len(args) > 1:
        raise Illegal(f"units takes one filter (a side, a section, a piece or a hex), not '{' '.join(args)}'")
    word = args[0].lower() if args else ""
    if word in state.pieces or (word and HEX_RE.match(word)):
        pieces = ([state.pieces[word]] if word in state.pieces else
                  [p for p in state.live() if p.hex == word])
        if not pieces:
            return f"No unit or General stands in {word}."
        return "\n".join(piece_line(scenario, state, p) for p in pieces)
    section = word if word in SECTIONS else ""
    if word in ("", "all") or section:
        sides = SIDES if word == "all" or side is None else (side,)
    elif word in SIDES:
        sides = (word,)
    else:
        pairs = ([(s, f"{s.title()} pieces") for s in SIDES] + [(s, f"your {s} section") for s in SECTIONS]
                 + [("all", "both sides")] + [(p.id, f"{p.name or kind_name(p)}, {p.hex}") for p in state.live()])
        raise Illegal(unknown(word, "a side, a section, a piece or a hex", pairs, query="units"))
    lines = []
    for s in sides:
        pieces = [p for p in state.pieces.values() if p.side == s]
        live = [p for p in pieces if p.alive and (not section or section in board.sections_of(scenario, s, p.hex))]
        lines.append(f"__{s.title()}__" + (f", {section} section" if section else "")
                     + f": {len(live)} pieces (id, name, type, hex · figures · section)")
        lines += [piece_line(scenario, state, p) for p in live]
        gone = [p.id for p in pieces if not p.alive]
        if gone and not section:
            lines.append("Eliminated: " + ", ".join(gone))
    text = "\n".join(lines)
    if len(text) > MAX_REPLY:
        text = text[:MAX_REPLY - 40].rsplit("\n", 1)[0] + "\n… more: ask `units <side>` or `units <section>`"
    return text
