"""The questions a player asks privately (reply "query" in verbs.py): `companies`, `battles`,
`treasury`. They change nothing; the bot answers them with ruleset.query (never applied). Each
answer is given from the asker's own view (public.view): the enemy's hidden companies, unrevealed
orders and treasury are never in it."""
from __future__ import annotations

from engine.core.errors import Illegal

from engine.italianwars import public, rules
from engine.italianwars.state import IWState

MAX_REPLY = 1900


def company_line(sc, st: IWState, c) -> str:
    bits = [f"`{c.id}` {rules.display_name(sc, c.id)}" if rules.display_name(sc, c.id) != c.id else f"`{c.id}`",
            f"{rules.morale_of(sc, st, c.id)} {rules.arm_of(sc, st, c.id)}", f"{c.bases} base{'s' if c.bases != 1 else ''}"]
    if c.status != "waiting":
        bits.append(f"({c.x:g}, {c.y:g}) facing {c.facing:g}")
    if c.captain:
        bits.append(f"captain {c.captain}")
    for flag in ("disordered", "hidden", "evaded", "in_melee"):
        if getattr(c, flag):
            bits.append(flag.replace("_", " "))
    if c.charge:
        bits.append(f"charging {c.charge.get('target')}")
    if c.status != "active":
        bits.append(c.status)
    return " · ".join(bits)


def short_line(sc, st: IWState, c) -> str:
    """A company in a few words, for a long list: id, battle, bases, place and what matters now."""
    bits = [f"`{c.id}`", c.battle, f"{c.bases}b"]
    if c.status != "waiting":
        bits.append(f"({c.x:g},{c.y:g}) {c.facing:g}°")
    bits += [w for w, on in (("DIS", c.disordered), ("hidden", c.hidden), ("MEL", bool(c.melee_with)))
             if on]
    if c.status != "active":
        bits.append(c.status)
    return " ".join(bits)


def fit(lines: list[str]) -> str:
    text = "\n".join(lines)
    return text if len(text) <= MAX_REPLY else text[:MAX_REPLY - 1] + "…"


def answer(sc, st: IWState, side: str | None, verb: str, args: tuple[str, ...]) -> str:
    v = public.view(sc, st, side)
    if verb == "companies":
        which = (args[0] if args else "all").lower()
        sides = [side] if which in ("mine", "own") and side else [st.other(side)] if which == "enemy" and side \
            else sorted(st.armies)
        for line_of in (company_line, short_line):      # the short form when the long one overflows
            lines = []
            for s in sides:
                lines.append(f"**{s.title()}**")
                lines += [line_of(sc, v, c) for c in sorted(v.companies.values(), key=lambda c: (c.battle, c.id))
                          if c.side == s]
            if len("\n".join(lines)) <= MAX_REPLY:
                break
        if len("\n".join(lines)) > MAX_REPLY and which not in ("mine", "own", "enemy"):
            lines.append("(more than a message holds: ask `companies mine` or `companies enemy`)")
        return fit(lines)
    if verb == "battles":
        lines = []
        for b in sorted(v.battles.values(), key=lambda b: (b.side, b.id)):
            cmd = v.companies.get(b.commander)
            order = b.order.title() if b.order else "order secret"
            if b.side == side and not b.revealed and b.order:
                order += " (secret)"
            written = ((v.secrets.get(side) or {}).get("orders") or {}).get(b.id) if b.side == side else None
            if written and not written.get("in_force"):
                order += f"; new order written: {written['order'].title()}"
            bits = [f"`{b.id}` {rules.battle_name(sc, st, b.id)}", b.side.title(),
                    f"commander {b.commander}" + (f" ({cmd.captain})" if cmd is not None and cmd.captain else ""),
                    order]
            if b.cinc:
                bits.append("C-in-C")
            if b.activated:
                bits.append("failed" if b.failed else "activated")
            lines.append(" · ".join(bits))
        return fit(lines)
    if verb == "treasury":
        if side is None:
            raise Illegal("the treasury is told only to its own player", "IW Tesoro")
        army = st.armies[side]
        lines = [f"{side.title()}: {army.ecu} Ecu in the treasury; {army.sixes_owed} six(es) owed for new orders"]
        for bid, b in sorted(((st.secrets.get(side) or {}).get("bribes") or {}).items()):
            word = "defy" if b["direction"] > 0 else "obey"
            lines.append(f"  {b['ecu']} Ecu on {bid} ({word}), spent at its next interpretation test")
        return fit(lines)
    raise Illegal(f"'{verb}' is not a question", "IW Sequenza di gioco")


def do_query(sc, st: IWState, side: str, cmd, stream) -> list:
    """A question changes nothing: the bot answers it with ruleset.query."""
    raise Illegal(f"`{cmd.verb}` is a question: it is answered only to you (/iw {cmd.verb}) and changes nothing",
                  "IW Sequenza di gioco")


for _verb in ("companies", "battles", "treasury"):
    rules.register(_verb, do_query, f"{_verb}: a question answered only to you")
