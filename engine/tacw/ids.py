"""Every id discoverable (issue 12): TACW's questions `units`, `wings` and `leaders`, answered
only to the asker on Discord and printed by the CLI, and the refusals of an unknown wing, unit or
leader, which list the valid ids (engine/core/ids.py).

Everything here only reads the state; nothing decides a rule. Each line shows the id first, in
backticks, because names collide (the regiment Rupert `r-rupert` and Prince Rupert `rupert`, the
two Fieldings at Edgehill, six Commanded Shot): an id names one piece. A reply fits one Discord
message (`MAX_REPLY`): a long list is summarised (a side's units by wing, ids and hexes only)
and says which question shows more."""
from __future__ import annotations

import re

from engine.core import facing as F
from engine.core.errors import Illegal
from engine.core.ids import listing, unknown
from engine.tacw.state import SIDES, Leader, TacwState, Unit, Wing

MAX_REPLY = 1900                 # under Discord's 2,000 characters, with room for a header
QUERIES = ("units", "wings", "leaders")
ORDER_NAMES = {"charge": "Charge", "make_ready": "Make Ready", "receive_charge": "Receive Charge",
               "rally": "Rally"}
KIND_NAMES = {"cavalry": "cavalry", "heavy": "heavy infantry", "light": "light infantry",
              "artillery": "artillery", "wagon": "wagon"}
LIGHT_NAMES = {"commanded_shot": "commanded shot", "dragoons": "dragoons"}
FORMATION_NAMES = {"disordered": "disordered", "broken": "formation broken"}
SPECIAL_NAMES = {"open": "Open Order", "column": "column", "hedgehog": "hedgehog"}
STATUS_NAMES = {"eliminated": "eliminated", "off_map": "off the map", "waiting": "waiting to enter"}
HEX_RE = re.compile(r"^\d{4}$")


# == labels ========================================================================================

def kind_name(u: Unit) -> str:
    if u.kind == "light" and u.light_kind:
        return LIGHT_NAMES.get(u.light_kind, u.light_kind.replace("_", " "))
    if u.kind == "artillery" and u.gun_class:
        return f"artillery, {u.gun_class}"
    return KIND_NAMES.get(u.kind, u.kind)


def unit_state(st: TacwState, u: Unit) -> list[str]:
    """What a player needs to know of a unit now: morale, formation, losses, ammunition, guns,
    and whether it has acted in this activation (TACW §6.3, §9.8, §9.9, §11)."""
    out = []
    if u.morale_state != "normal":
        out.append(u.morale_state.title())
    if u.formation in FORMATION_NAMES:
        out.append(FORMATION_NAMES[u.formation])
    if u.special_formation in SPECIAL_NAMES:
        out.append(SPECIAL_NAMES[u.special_formation])
    if u.casualties:
        out.append(f"{u.casualties} hit{'s' if u.casualties != 1 else ''}" + (", at threshold" if u.at_threshold else ""))
    if u.kind == "cavalry" and u.pistols < u.max_pistols:
        out.append(f"pistols {u.pistols}/{u.max_pistols}")
    if u.gun_state:
        out.append(u.gun_state + (f" by {u.captured_by.title()}" if u.captured_by else ""))
    elif u.fired:
        out.append("fired this turn")
    if u.salvo_used:
        out.append("Salvo used")
    act = st.activation
    if act is not None and u.id in act.acted:
        out.append("acted")
    return out


def facing_name(sc, u: Unit) -> str:
    return F.VERTEX_NAMES[sc.grid.orientation][u.facing % 6]


def unit_line(sc, st: TacwState, u: Unit) -> str:
    """`r-kings-lg` King's LG (cavalry) 3105 faces W · SP 2 M8 · Shaken, disordered"""
    if not u.alive:
        return f"`{u.id}` {u.name} ({kind_name(u)}): {STATUS_NAMES.get(u.status, u.status.replace('_', ' '))}"
    sp = f"SP {u.remaining_strength}" if u.strength else "gun"
    state = unit_state(st, u)
    return (f"`{u.id}` {u.name} ({kind_name(u)}) {'&'.join(u.hexes)} faces {facing_name(sc, u)}"
            f" · {sp} M{u.current_morale}" + (f" · {', '.join(state)}" if state else ""))


def wing_header(st: TacwState, w: Wing) -> str:
    wc = st.leaders.get(w.commander)
    who = f"{wc.name} (`{wc.id}`)" if wc is not None else "no commander"
    return f"**{w.id}** {w.name} · {ORDER_NAMES.get(w.order, w.order)} orders · {who}"


def may_activate(sc, st: TacwState, w: Wing) -> str:
    """The wing's standing this turn, as the `activate` completions put it (TACW §4.2, §5.3.2):
    "▶ may activate now", "done this turn", "not yet, higher orders first"..."""
    from engine.tacw.completions import _wings_to_activate
    for label, wid in _wings_to_activate(sc, st, w.side):
        if wid == w.id:
            tail = label.split("): ", 1)[1] if "): " in label else ""
            tail = tail.replace("not your turn", f"not {w.side.title()}'s turn")   # asked by either side
            return ("▶ " if label.startswith("▶") else "") + tail
    return ""


def wing_line(sc, st: TacwState, w: Wing) -> str:
    wc = st.leaders.get(w.commander)
    who = (f"WC {wc.name} (`{wc.id}`)" + (f" at {wc.hex}" if wc.hex else "")) if wc is not None else "no commander"
    units = st.wing_units(w.id)
    if st.activation is not None and st.activation.wing == w.id:
        standing = "**active now**"
    else:
        standing = may_activate(sc, st, w)
    return (f"`{w.id}` {w.name}: {ORDER_NAMES.get(w.order, w.order)} orders · {who} · {len(units)} units"
            + (f" · {standing}" if standing else ""))


def leader_status(st: TacwState, ld: Leader) -> str:
    if ld.status == "dead":
        return "killed"
    if ld.status in ("removed", "away"):
        return "off the field" + (f" since turn {ld.removed_turn}" if ld.removed_turn else "")
    bits = [f"at {ld.hex}" if ld.hex else "not on the map"]
    if ld.finished:
        bits.append("Finished")
    if ld.no_continue:
        bits.append("No Continue")
    return ", ".join(bits)


def namesakes(st: TacwState, ld: Leader) -> list[Unit]:
    """Regiments named after a leader ("Rupert" for Prince Rupert): a name alone is ambiguous."""
    last = ld.name.replace(",", " ").split()
    words = {w.lower() for w in last[-1:]} | {ld.id.lower()}
    return [u for u in st.units.values() if u.name.lower() in words]


def leader_line(st: TacwState, ld: Leader) -> str:
    if ld.role == "ac":
        role = "Army Commander"
    else:
        role = "Wing Commander" + (f" of {ld.wing}" if ld.wing else "")
    same = namesakes(st, ld)
    note = (" · not the regiment " + ", ".join(f"`{u.id}`" for u in same)) if same else ""
    return f"`{ld.id}` {ld.name}: {role}, value {ld.value} · {leader_status(st, ld)}{note}"


# == the questions =================================================================================

def _fit(parts: list[str], short: list[str] | None = None, more: str = "") -> str:
    """The full answer if it fits one message, else the short one, else the full one clipped with
    the count of lines left out."""
    text = "\n".join(parts)
    if len(text) <= MAX_REPLY:
        return text
    if short is not None:
        text = "\n".join(short + ([more] if more else []))
        if len(text) <= MAX_REPLY:
            return text
        parts = short
    keep, used = [], len(more) + 40
    for line in parts:
        if used + len(line) + 1 > MAX_REPLY:
            break
        keep.append(line)
        used += len(line) + 1
    return "\n".join(keep + [f"… {len(parts) - len(keep)} more line(s)" + (f"; {more}" if more else "")])


def _side_word(word: str) -> str | None:
    w = word.lower()
    for s in SIDES:
        if w == s or (len(w) >= 3 and s.startswith(w)):
            return s
    return None


def _filters(sc, st: TacwState) -> list[tuple[str, str]]:
    return [(s, f"{s.title()} units") for s in SIDES] + [("all", "both sides")] + [
        (w.id, w.name) for w in st.wings.values()]


def units_text(sc, st: TacwState, side: str | None, args: tuple[str, ...] = ()) -> str:
    """`units [side|wing|unit|hex|all]`: each unit with its id, name, hex, facing and state,
    under its wing's orders (TACW §5.5, §6, §11)."""
    if len(args) > 1:
        raise Illegal(f"units takes one filter (a side, a wing, a unit or a hex), not '{' '.join(args)}'")
    word = args[0].lower() if args else ""
    if word and word in st.wings:
        return _wing_units(sc, st, st.wings[word])
    if word and (word in st.units or HEX_RE.match(word)):
        return _units_here(sc, st, word)
    if word and word in st.leaders:
        ld = st.leaders[word]
        raise Illegal(f"'{word}' is a leader ({ld.name}), not a unit or wing: `leaders` lists the leaders"
                      + (f"; his wing's units: `units {ld.wing}`" if ld.wing else ""))
    sides = SIDES if word == "all" or (not word and side is None) else None
    if sides is None:
        chosen = _side_word(word) if word else side
        if chosen is None:
            raise Illegal(unknown(word, "a side, a wing, a unit or a hex", _filters(sc, st)
                                  + [(u.id, u.name) for u in st.units.values()], query="wings"))
        sides = (chosen,)
    full, short = [], []
    for s in sides:
        units = [u for u in st.units.values() if u.side == s]
        full.append(f"__{s.title()}__: {sum(u.alive for u in units)} units on the field "
                    "(id, name, type, hex, facing · strength, morale · state)")
        short.append(f"__{s.title()}__ (id hex):")
        for w in (w for w in st.wings.values() if w.side == s):
            mine = [u for u in units if u.wing == w.id and u.alive]
            full.append(wing_header(st, w))
            full += [unit_line(sc, st, u) for u in mine]
            short.append(f"**{w.id}** ({ORDER_NAMES.get(w.order, w.order)}): "
                         + ", ".join(f"{u.id} {'&'.join(u.hexes)}" for u in mine))
        gone = [u for u in units if not u.alive]
        if gone:
            line = "Not on the field: " + ", ".join(
                f"{u.id} ({STATUS_NAMES.get(u.status, u.status)})" for u in gone)
            full.append(line)
            short.append(line)
    more = "`units <wing>` shows each unit's facing and state"
    return _fit(full, short, more if len(sides) == 1 else f"ask `units <side>` or {more}")


def _wing_units(sc, st: TacwState, w: Wing) -> str:
    units = [u for u in st.units.values() if u.wing == w.id]
    lines = [wing_header(st, w)] + [unit_line(sc, st, u) for u in units if u.alive]
    gone = [u for u in units if not u.alive]
    if gone:
        lines.append("Not on the field: " + ", ".join(
            f"{u.id} ({STATUS_NAMES.get(u.status, u.status)})" for u in gone))
    short = [wing_header(st, w)] + [f"`{u.id}` {u.name} {'&'.join(u.hexes)}" for u in units if u.alive]
    return _fit(lines, short, "`units <unit>` shows one unit in full")


def _units_here(sc, st: TacwState, word: str) -> str:
    if word in st.units:
        units = [st.units[word]]
    else:
        units = st.units_at(word)
        if not units:
            ldrs = st.leaders_at(word)
            return f"No unit stands in {word}" + (
                "; leaders there: " + ", ".join(f"`{l.id}` {l.name}" for l in ldrs) if ldrs else ".")
    lines = []
    for u in units:
        w = st.wings.get(u.wing)
        lines.append(unit_line(sc, st, u))
        if w is not None:
            lines.append(f"  {u.side.title()}, wing `{w.id}` {w.name} on {ORDER_NAMES.get(w.order, w.order)} orders")
    ldrs = [l for h in (units[0].hexes if units and units[0].alive else []) for l in st.leaders_at(h)]
    if ldrs:
        lines.append("Leaders with it: " + ", ".join(f"`{l.id}` {l.name}" for l in ldrs))
    return _fit(lines)


def wings_text(sc, st: TacwState, side: str | None, args: tuple[str, ...] = ()) -> str:
    """`wings [side]`: each wing with its id, orders, commander and whether it may activate now
    (TACW §4.2, §5.3.2, §5.5)."""
    sides = _sides_for(st, side, args, "wings")
    lines = []
    for s in sides:
        lines.append(f"__{s.title()} wings__")
        lines += [wing_line(sc, st, w) for w in st.wings.values() if w.side == s]
    lines.append("`activate <wing>` activates one; `units <wing>` lists its units")
    return _fit(lines)


def leaders_text(sc, st: TacwState, side: str | None, args: tuple[str, ...] = ()) -> str:
    """`leaders [side]`: each leader with his id, role, command value, hex and status (TACW §5)."""
    sides = _sides_for(st, side, args, "leaders")
    lines = []
    for s in sides:
        lines.append(f"__{s.title()} leaders__")
        lines += [leader_line(st, ld) for ld in st.leaders.values() if ld.side == s]
    lines.append("`leader <id> move <hexes>` moves one (TACW §5.1.2, §5.2.2)")
    return _fit(lines)


def _sides_for(st: TacwState, side: str | None, args: tuple[str, ...], verb: str) -> tuple[str, ...]:
    if len(args) > 1:
        raise Illegal(f"{verb} takes one filter (a side or all), not '{' '.join(args)}'")
    if not args:
        return SIDES
    word = args[0].lower()
    if word == "all":
        return SIDES
    chosen = _side_word(word)
    if chosen is None:
        raise Illegal(unknown(word, "a side", [(s, s.title()) for s in SIDES] + [("all", "both sides")]))
    return (chosen,)


def answer(sc, st: TacwState, side: str | None, verb: str, args: tuple[str, ...]) -> str:
    if verb == "units":
        return units_text(sc, st, side, args)
    if verb == "wings":
        return wings_text(sc, st, side, args)
    if verb == "leaders":
        return leaders_text(sc, st, side, args)
    raise Illegal(f"'{verb}' is not a question TACW answers ({', '.join(QUERIES)})")


# == refusals of an unknown id ==================================================================

def unit_pairs(st: TacwState, side: str | None = None) -> list[tuple[str, str]]:
    return [(u.id, f"{u.name}, {'&'.join(u.hexes)}") for u in st.units.values()
            if u.alive and (side is None or u.side == side)]


def unknown_unit(st: TacwState, word: str, side: str | None = None) -> str:
    """The refusal of a word that names no unit: a hex with none, a leader's id, or the closest ids."""
    if HEX_RE.match(word):
        ldrs = st.leaders_at(word)
        return (f"no unit stands in {word}" + (f" (only {', '.join(l.name + ' `' + l.id + '`' for l in ldrs)}, "
                                                "a leader)" if ldrs else "")
                + "; `units` lists every unit with its hex")
    if word in st.leaders:
        ld = st.leaders[word]
        same = [u for u in namesakes(st, ld) if u.alive and (side is None or u.side == side)]
        return (f"'{word}' is a leader ({ld.name}, {ld.side.title()}), not a unit"
                + (f"; the regiment is {listing((u.id, u.name) for u in same)}" if same else "")
                + "; leaders act with `leader <id> ...`")
    mine = "one of your units" if side else "a unit id or a hex with a unit"
    return unknown(word, mine, unit_pairs(st, side), query="units")


def unknown_wing(st: TacwState, word: str, side: str) -> str:
    return unknown(word, "one of your wings", [(w.id, w.name) for w in st.wings.values() if w.side == side],
                   query="wings")


def unknown_leader(st: TacwState, word: str, side: str) -> str:
    if word in st.units:
        u = st.units[word]
        return (f"'{word}' is a unit ({u.name}), not a leader; your leaders: "
                + listing((l.id, l.name) for l in st.leaders.values() if l.side == side))
    return unknown(word, "one of your leaders", [(l.id, l.name) for l in st.leaders.values()
                                                  if l.side == side], query="leaders")


# == the game waits on a player ===================================================================

def waiting_note(st: TacwState) -> str:
    """"waiting for Parliament: may attempt a bypass (TACW §4.4). Answer: `bypass p-left|none`":
    who the game waits on and the command that answers (the refusals of a command given meanwhile)."""
    from engine.core.pending import waiting_line
    from engine.tacw.ruleset import TACW          # the ruleset's own pending decision
    p = st.pending or {}
    decision = TACW.pending(st)
    if decision is None:
        return f"waiting for {str(p.get('side', '')).title()}: {str(p.get('kind', '')).replace('_', ' ')}"
    text = waiting_line(decision)
    return text[0].lower() + text[1:]


def no_active_wing(st: TacwState, side: str) -> str:
    """The refusal of a unit or wing action by a side with no active wing, naming the answer the
    game waits for when it is this side's (a bypass window, a reaction)."""
    if st.pending and st.pending.get("side") == side:
        return "you have no active wing; the game is " + waiting_note(st)
    return "you have no active wing: units act only when their wing is active"
