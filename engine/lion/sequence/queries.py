"""The questions a player asks privately (reply "query" in verbs.py): `units`, `generals`,
`measure`. They change nothing; the bot answers them with ruleset.query (never applied)."""
from __future__ import annotations

from engine.core.errors import Illegal

from engine.lion import checks, rules, tables
from engine.lion.rules import display_name, named
from engine.lion.state import LionState


def unit_line(sc, st: LionState, u) -> str:
    t = tables.troop(tables.effective_type(u.type, u.mounted))
    bits = [f"{u.id} {display_name(sc, u.id)}" if display_name(sc, u.id) != u.id else u.id,
            t.name, f"at ({u.x:g}, {u.y:g}) facing {u.facing:g}"]
    if u.quality:
        bits.append(u.quality)
    if u.hits:
        bits.append(f"{u.hits} hit{'s' if u.hits > 1 else ''} of {tables.hits_to_destroy(u.type)}")
    if u.looting:
        bits.append("looting")
    if u.captured_by:
        bits.append(f"captured by {u.captured_by.title()}")
    if t.arm == "artillery" and t.gun in ("light", "medium"):
        bits.append("deployed" if u.deployed else "limbered")
    if u.type == "dragoons" and not u.mounted:
        bits.append("dismounted")
    if u.moved:
        bits.append("moved")
    if u.status != "active":
        bits.append(u.status)
    return " · ".join(bits)


def units_answer(sc, st: LionState, side: str | None, args: tuple[str, ...]) -> str:
    which = (args[0] if args else "all").lower()
    if which in ("mine", "own") and side:
        sides = [side]
    elif which == "enemy" and side:
        sides = [st.other(side)]
    elif which in st.armies:
        sides = [which]
    else:
        sides = sorted(st.armies)
    lines = []
    for s in sides:
        us = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.side == s]
        alive = [u for u in us if u.status in ("active", "waiting")]
        lines.append(f"**{s.title()}** ({len([u for u in us if u.alive])} on the table)")
        lines += [f"- {unit_line(sc, st, u)}" for u in alive]
        gone = [u.id for u in us if u.status == "destroyed"]
        if gone:
            lines.append(f"- destroyed: {', '.join(gone)}")
    return "\n".join(lines)


def generals_answer(sc, st: LionState, side: str | None, args: tuple[str, ...]) -> str:
    lines = []
    for g in sorted(st.generals.values(), key=lambda g: (g.side, g.id)):
        bits = [named(sc, g.id), g.side.title(), {"cinc": "commander-in-chief", "sub": "sub-commander",
                                                   "wing": "wing general"}.get(g.role, g.role)]
        if not g.alive:
            bits.append("killed")
        else:
            bits.append(f"at ({g.x:g}, {g.y:g}) facing {g.facing:g}")
            if g.attached_to:
                bits.append(f"attached to {g.attached_to}")
            if g.wounded:
                bits.append("wounded (10 cm a move)")
        lines.append("- " + " · ".join(bits))
    return "\n".join(lines) or "No generals."


def base_of(st: LionState, word: str):
    """A unit, a general or a camp ("camp-<side>" or the side's name) by its word."""
    w = (word or "").lower()
    if w in st.units:
        return st.units[w]
    if w in st.generals:
        return st.generals[w]
    side = w[5:] if w.startswith("camp-") else w
    if side in st.camps:
        return st.camps[side]
    from engine.core.ids import unknown
    pairs = [(u.id, "unit") for u in st.units.values() if u.alive] + \
            [(g.id, "general") for g in st.generals.values() if g.alive] + \
            [(f"camp-{s}", "camp") for s in sorted(st.camps)]
    raise Illegal(unknown(word, "a base on the table", sorted(pairs), query="units"), "LdN [1]")


def label(sc, obj) -> str:
    if hasattr(obj, "type") or hasattr(obj, "role"):
        return named(sc, obj.id)
    return f"the {obj.side.title()} camp"


def measure_answer(sc, st: LionState, side: str | None, args: tuple[str, ...]) -> str:
    """[1] distances in cm (HERALD D3); [7 A] the arc (30 degrees a side, D5) and line of sight."""
    from engine.core.table.geometry import clear_line, front_distance, in_arc
    if len(args) != 2:
        raise Illegal("usage: measure <from> <to>: two units, generals or camps (camp-<side>)", "LdN [1]")
    a, b = base_of(st, args[0]), base_of(st, args[1])
    pa, fa, pb, fb = checks.pose(a), checks.footprint(a), checks.pose(b), checks.footprint(b)
    d = checks.base_distance(a, b)
    lines = [f"{label(sc, a)} to {label(sc, b)}: {d:g} cm between the nearest points"
             + (" (in contact)" if d <= 0.05 else "")]
    fd = front_distance(pa, fa, pb, fb)
    arc = in_arc(pa, fa, pb, fb, half_angle=tables.ARC_HALF_ANGLE)
    lines.append(f"from its front edge: {fd:g} cm; in its arc (30 degrees a side): {'yes' if arc else 'no'}")
    if hasattr(a, "type"):
        from engine.lion.sequence.rally import sight_blockers
        sight = clear_line(pa, fa, pb, fb, sight_blockers(sc, st, a, b))
        lines.append(f"line of sight from its front: {'clear' if sight else 'blocked'}")
        t = tables.troop(tables.effective_type(a.type, a.mounted))
        if t.shoot_die and hasattr(b, "type"):
            if tables.in_range(t.key, fd):
                band = tables.shooting_band(t.key, fd)
                lines.append(f"its fire: {band} range, hits on {tables.threshold(t.arm, band)}+ with d{t.shoot_die} "
                             "(before disorder, weather and modifiers)")
            else:
                rng = "unlimited" if t.max_range == tables.UNLIMITED else f"{t.max_range:g} cm"
                lines.append(f"out of its range ({rng})")
    return "\n".join(lines)


ANSWERS = {"units": units_answer, "generals": generals_answer, "measure": measure_answer}


def answer(sc, st: LionState, side: str | None, verb: str, args: tuple[str, ...]) -> str:
    fn = ANSWERS.get(verb)
    if fn is None:
        raise Illegal(f"`{verb}` is not a question of Lion of the North", "LdN [1]")
    return fn(sc, st, side, tuple(a.lower() for a in args))


def do_query(sc, st: LionState, side: str, cmd, stream) -> list:
    """A question is not an action: the bot answers it privately (ruleset.query)."""
    raise Illegal(f"`{cmd.verb}` is a question, answered only to you: ask it with /lion {cmd.verb} "
                  "(or the CLI's query); it changes nothing in the game", "LdN [1]")


for _verb in ANSWERS:
    rules.register(_verb, do_query, f"{_verb}: a question answered only to you")
