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


MAX_REPLY = 1900                # one Discord message with room to spare


def short_line(sc, st: LionState, u) -> str:
    """`sw-horn1` Regular cavalry (66, 35) 0°, 1 hit: the line of a long list."""
    t = tables.troop(tables.effective_type(u.type, u.mounted))
    bits = [f"`{u.id}` {t.name} ({u.x:g}, {u.y:g}) {u.facing:g}°"]
    if u.hits:
        bits.append(f"{u.hits} hit{'s' if u.hits > 1 else ''}")
    if u.status != "active":
        bits.append(u.status)
    return ", ".join(bits)


def fit(lines: list[str], short: list[str]) -> str:
    """The full lines when they fit one message, else the short ones, else cut with a count."""
    for candidate in (lines, short):
        text = "\n".join(candidate)
        if len(text) <= MAX_REPLY:
            return text
    out, used = [], 0
    for line in short:
        if used + len(line) + 1 > MAX_REPLY - 60:
            out.append(f"... ({len(short) - len(out)} more lines: ask `units mine` or `units enemy`)")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def units_answer(sc, st: LionState, side: str | None, args: tuple[str, ...]) -> str:
    """[2] the units with their ids, places, facing and state, fitted to one message (a shorter
    line per unit when the full ones are too long)."""
    which = (args[0] if args else "all").lower()
    if which in ("mine", "own") and side:
        sides = [side]
    elif which == "enemy" and side:
        sides = [st.other(side)]
    elif which in st.armies:
        sides = [which]
    else:
        sides = sorted(st.armies)
    lines, short = [], []
    for s in sides:
        us = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.side == s]
        alive = [u for u in us if u.status in ("active", "waiting")]
        head = f"**{s.title()}** ({len([u for u in us if u.alive])} on the table)"
        lines.append(head)
        short.append(head)
        lines += [f"- {unit_line(sc, st, u)}" for u in alive]
        short += [short_line(sc, st, u) for u in alive]
        gone = [u.id for u in us if u.status == "destroyed"]
        if gone:
            lines.append(f"- destroyed: {', '.join(gone)}")
            short.append(f"destroyed: {', '.join(gone)}")
    return fit(lines, short)


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


def _sight_blockers(sc, st: LionState, a, b) -> list:
    """What stands between two bases for the line of sight [7 A] (HERALD D81, the fire module's
    reading): woods, hills and towns (one under either base cut back to its edge) and every other
    live unit."""
    from engine.lion.fire import sight
    ter = sight.terrain(sc)
    ends = [checks_poly(a), checks_poly(b)]
    out = []
    for f in ter.features:
        if f.kind not in ter.blocking_kinds or f.geometry.area <= 0:
            continue
        g = f.geometry
        inside = [p for p in ends if g.intersection(p).area > 1e-9]
        if inside:
            if f.kind in ter.hill_kinds:
                continue
            from shapely.ops import unary_union
            g = g.difference(unary_union([p.buffer(sight.EDGE_DEPTH) for p in inside]))
            if g.is_empty:
                continue
        out.append(g)
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and u is not a and u is not b:
            out.append(checks_poly(u))
    return out


def checks_poly(obj):
    from engine.core.table.geometry import base_polygon
    return base_polygon(checks.pose(obj), checks.footprint(obj))


def measure_answer(sc, st: LionState, side: str | None, args: tuple[str, ...]) -> str:
    """`measure <from> <to>`: the exact distance between two bases (the nearest points of their
    rectangles, HERALD D3) and from the first one's front edge [1]; whether the second lies in
    its arc (30 degrees a side, HERALD D5; each face of a Tercio [12 F]) and in its sight
    (woods, hills, towns and troops block it [7 A], HERALD D81); the range band and the score to
    hit when the first one shoots [7 B]. A question: nothing changes, nothing is logged."""
    from engine.core.table.geometry import clear_line, front_distance, in_arc
    if len(args) != 2:
        raise Illegal("usage: measure <from> <to>: two units, generals or camps (camp-<side>)", "LdN [1]")
    a, b = base_of(st, args[0]), base_of(st, args[1])
    if a is b:
        raise Illegal("measure two different bases", "LdN [1]")
    pa, fa, pb, fb = checks.pose(a), checks.footprint(a), checks.pose(b), checks.footprint(b)
    d = checks.base_distance(a, b)
    lines = [f"{label(sc, a)} to {label(sc, b)}: **{d:g} cm** between the nearest points"
             + (" (in contact)" if d <= 0.05 else "")]
    if not (hasattr(a, "type") or hasattr(a, "role")):         # a camp has no front [12 A]
        return "\n".join(lines)
    faces = ("front", "left", "right", "rear") if getattr(a, "type", "") == "tercio" else ("front",)
    arcs = [f for f in faces if in_arc(pa, fa, pb, fb, half_angle=tables.ARC_HALF_ANGLE, face=f)]
    face = arcs[0] if arcs else "front"
    fd = front_distance(pa, fa, pb, fb, face)
    where = "in its arc (30 degrees a side)" if face == "front" else f"in the arc of its {face} (LdN [12 F])"
    lines.append(f"from its {face} edge: {fd:g} cm; " + (f"{where}: yes" if arcs else
                                                        "in its arc (30 degrees a side): no"))
    seen = clear_line(pa, fa, pb, fb, _sight_blockers(sc, st, a, b), face)
    lines.append(f"line of sight from its {face}: {'clear' if seen else 'blocked by terrain or troops'}")
    if hasattr(a, "type") and (hasattr(b, "type") or hasattr(b, "role")) and b.side != a.side:
        t = tables.troop(tables.effective_type(a.type, a.mounted))
        if t.shoot_die:
            if tables.in_range(t.key, fd):
                band = tables.shooting_band(t.key, fd)
                lines.append(f"its fire: {band} range, hits on {tables.threshold(t.arm, band)}+ with "
                             f"d{t.shoot_die} (before disorder, weather and modifiers; LdN [7 B])")
            else:
                rng = "unlimited" if t.max_range == tables.UNLIMITED else f"{t.max_range:g} cm"
                lines.append(f"out of its range ({rng}, LdN [7 A])")
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
