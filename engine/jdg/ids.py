"""Every id discoverable (issue 12) for Jours de Gloire: the questions `units [side]`, `formations`
and `cup`, answered only to the asker (the bot's reply "query": ruleset.query), and the game's
status line (ruleset.status). Only reads the state; nothing decides a rule.

Private to the asker (HERALD D11, D72): a side sees its own formations' orders, the enemy's only
once revealed [2.4]; the cup is shown as counts by formation, a secret combined marker named only
to its owner. Every answer fits one Discord message (MAX_REPLY).
"""
from __future__ import annotations

from engine.core import facing as F
from engine.core.errors import Illegal

from engine.jdg import rules
from engine.jdg.sequence.activation import STEP_NAMES, first_drawer
from engine.jdg.sequence.command import chief, in_command_radius
from engine.jdg.sequence.groups import enabled as groups_enabled
from engine.jdg.sequence.groups import formation_groups, group_lines
from engine.jdg.sequence.reserve import candidates as reserve_candidates
from engine.jdg.sequence.reserve import chooser as reserve_chooser
from engine.jdg.state import SIDES, JdgState, Unit

MAX_REPLY = 1900                # under Discord's 2,000 characters
QUERIES = ("units", "formations", "cup")
ARM_LETTER = {"infantry": "inf", "cavalry": "cav", "artillery": "art"}
PHASE_NAMES = {"orders": "A, orders", "initiative": "B, strategic initiative", "cup": "C, the cup",
               "activation": "D, activations", "reserve": "D bis, reserve activation", "rout": "E, rout", "end": "F, end of turn", "over": "the battle is over"}


def _fit(lines: list[str], short: list[str] | None = None) -> str:
    text = "\n".join(lines)
    if len(text) <= MAX_REPLY:
        return text
    if short is not None:
        text = "\n".join(short)
        if len(text) <= MAX_REPLY:
            return text
        lines = short
    out, used = [], 0
    for line in lines:
        if used + len(line) + 1 > MAX_REPLY - 40:
            out.append(f"... ({len(lines) - len(out)} more lines)")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def unit_line(sc, st: JdgState, u: Unit) -> str:
    """`f-44e` 44e Ligne (inf) 8-7-5 0510 W · disordered"""
    name = sc.unit(u.id).name
    if u.status in ("waiting", "entering"):
        return f"`{u.id}` {name} ({ARM_LETTER[u.arm]}): {'ready to enter' if u.status == 'entering' else 'reinforcement'}"
    if not u.alive:
        return f"`{u.id}` {name} ({ARM_LETTER[u.arm]}): {u.status.replace('_', ' ')}"
    face = F.VERTEX_NAMES[sc.map.grid.orientation][u.facing % 6]
    marks = [u.condition] if u.condition != "good" else []
    marks += [w for w, on in (("square", u.square), ("fired", u.fired), ("acted", u.acted),
                              ("demoralised", u.demoralised)) if on]
    return (f"`{u.id}` {name} ({ARM_LETTER[u.arm]}) {values(sc, u)} {u.hex} {face}"
            + (f" · {', '.join(marks)}" if marks else ""))


def values(sc, u: Unit) -> str:
    """The counter's face up [0.3], [10.1]: strength-cohesion-MP (its back when disordered or
    routed); artillery adds firepower and ranges [7.3]."""
    s = sc.unit(u.id)
    back = u.condition != "good"
    text = f"{s.strength}-{s.cohesion_back if back else s.cohesion}-{s.mp_back if back else s.mp}"
    if u.arm == "artillery":
        text += f" fp{s.firepower} r{s.effective_range}/{s.max_range}"
    return text


def units_text(sc, st: JdgState, asker: str | None, args: tuple[str, ...]) -> str:
    """`units [french|austrian|all]`: the units by formation (default: the asker's own)."""
    word = args[0] if args else (asker or "all")
    if word not in (*SIDES, "all"):
        raise Illegal(f"'{word}' is not a side: {', '.join(SIDES)} or all", "JdG [0.3]")
    sides = SIDES if word == "all" else (word,)
    lines, short = [], []
    for side in sides:
        for f in sc.formations_of(side):
            us = [st.units[u.id] for u in sc.units_of(f.id)]
            lines.append(f"**{f.name}** `{f.id}`")
            lines += [unit_line(sc, st, u) for u in us if u.status not in ("waiting", "entering")]
            # the reinforcements on one line, so the units on the map keep their values, hex and
            # facing within one message (the Austrians' list fell back to ids and hexes only)
            for status, word in (("entering", "ready to enter"), ("waiting", "reinforcements")):
                later = [u for u in us if u.status == status]
                if later:
                    lines.append(f"{word}: " + ", ".join(f"`{u.id}` ({ARM_LETTER[u.arm]})" for u in later))
            short.append(f"**{f.id}**: " + ", ".join(f"`{u.id}` {u.hex or u.status}" for u in us))
    return _fit(lines, short)


def orders_word(st: JdgState, asker: str | None, fid: str) -> str:
    f = st.formations[fid]
    if f.without_orders_for_good:
        return "Without Orders for good"
    if not f.orders:
        return "orders not given"
    if f.side != asker and not f.revealed:
        return "orders secret"
    word = "With Orders" if f.orders == "with" else "Without Orders"
    if f.initiative_success:
        word += " (initiative: With Orders now)"
    return word + ("" if f.revealed else " (secret)")


def formations_text(sc, st: JdgState, asker: str | None, args: tuple[str, ...]) -> str:
    """`formations`: each formation's initiative, orders (yours; the enemy's once revealed),
    markers drawn, and (yours) whether a unit is in your chief's command radius [2.3]."""
    lines = []
    for side in SIDES:
        ch = chief(sc, st, side)
        lines.append(f"**{side.title()}**: {ch.name}, modifier {ch.modifier}, {ch.order_potential} orders, "
                     f"radius {ch.command_radius}" + (f", in {ch.hex}" if ch.hex else ""))
        for f in sc.formations_of(side):
            fs = st.formations[f.id]
            bits = [f"initiative {f.initiative}", orders_word(st, asker, f.id), f"IAs drawn {fs.activations}"]
            if side == asker:
                bits.append("in radius" if in_command_radius(sc, st, f.id) else "out of radius")
            n_groups = len(formation_groups(sc, st, f.id)) if groups_enabled(st) else 0
            if n_groups:
                bits.append(f"{n_groups} tactical groups" if n_groups > 1 else "one tactical group")
            if fs.demoralised:
                bits.append("demoralised")
            if not st.formation_units(f.id):
                bits.append("not on the map")
            lines.append(f"`{f.id}` {f.name}: " + ", ".join(bits))
            lines += group_lines(sc, st, asker, f.id)          # tactical groups (optional 2.3)
    return _fit(lines)


def _marker_counts(sc, st: JdgState, ids: list[str], asker: str | None) -> str:
    counts: dict[str, int] = {}
    secret = 0
    for mid in ids:
        m = st.markers[mid]
        if m.kind == "combined" and m.secret and m.side != asker:
            secret += 1
            continue
        key = m.formation if m.kind == "ia" else f"\"{sc.marker(mid).name}\""
        counts[key] = counts.get(key, 0) + 1
    parts = [f"{k} x{n}" if n > 1 else k for k, n in counts.items()]
    return ", ".join(parts) or "none"


def cup_text(sc, st: JdgState, asker: str | None, args: tuple[str, ...]) -> str:
    """`cup` [1.C], [1.D]: the markers in the cup and set aside, as counts; a secret IAC is named
    only to its owner (HERALD D72)."""
    visible = [m for m in st.cup if not (st.markers[m].kind == "combined" and st.markers[m].secret
                                         and st.markers[m].side != asker)]
    lines = [f"Turn {st.turn}, phase {PHASE_NAMES.get(st.phase, st.phase)}"]
    if st.phase in ("orders", "initiative"):
        mine = [m for m in visible if st.markers[m].side == asker]
        lines.append("The cup is filled in phase C." + (
            f" Your combined marker chosen: {_marker_counts(sc, st, mine, asker)}" if mine else ""))
    else:
        lines.append(f"In the cup: {len(visible)} marker(s): {_marker_counts(sc, st, visible, asker)}")
        lines.append(f"Set aside: {_marker_counts(sc, st, st.set_aside, asker)}")
        if len(st.cup) >= 2 and st.activation is None and st.phase == "activation":
            lines.append(f"{(st.drawer or first_drawer(st)).title()} draws next (`draw`)")
    used = [m for m in st.used_once if not (st.markers[m].secret and st.markers[m].side != asker)]
    if used:
        lines.append("Used once a game already: " + ", ".join(sorted(set(used))))
    return _fit(lines)


def answer(sc, st: JdgState, side: str | None, verb: str, args: tuple[str, ...]) -> str:
    """A question, answered only to `side` (None: a spectator, who sees no secret)."""
    if verb == "units":
        return units_text(sc, st, side, args)
    if verb == "formations":
        return formations_text(sc, st, side, args)
    if verb == "cup":
        return cup_text(sc, st, side, args)
    raise Illegal(f"'{verb}' is not a question Jours de Gloire answers ({', '.join(QUERIES)})")


def next_step(sc, st: JdgState, viewer: str | None) -> str:
    """Who is to act and with which command."""
    if st.phase == "over":
        return f"The battle is over: {st.result}"
    if st.pending:
        p = st.pending
        return (f"Waiting for **{p['side'].title()}**: {p.get('prompt', p['kind'].replace('_', ' '))} "
                f"(`react {'|'.join(p.get('options', []))}`)")
    if st.phase == "orders":
        waiting = [s for s in SIDES if s not in st.orders_done]
        return ("Phase A: " + " and ".join(f"**{s.title()}**" for s in waiting)
                + " to give secret orders (`orders <formation...>`, `combined <marker>` before the initiative roll)")
    if st.phase == "initiative":
        return (f"**{st.initiative.title()}** has the strategic initiative: `first <marker>` to start the "
                "turn with it, or `first none`")
    act = st.activation
    if act is not None:
        who = " + ".join(sc.formation(f).name for f in act.formations)
        step = STEP_NAMES[act.step]
        extra = " (`initiative` to try the commander's initiative, or act Without Orders)" \
            if act.step == "orders_check" else ""
        if act.failed:
            extra += f"; initiative failed for {', '.join(act.failed)}: rally only"
        if act.reserve:
            return (f"**{act.side.title()}** active in reserve (phase D bis): {who}, Without Orders, {step} "
                    "step; `next` ends the step")
        return f"**{act.side.title()}** active: {who} (`{act.marker}`), {step} step{extra}; `next` ends the step"
    if st.phase == "reserve":
        side = reserve_chooser(st)
        if side:
            ok = [fid for fid, why in reserve_candidates(sc, st, side) if not why]
            return (f"Phase D bis: **{side.title()}** may activate one formation in reserve "
                    f"(`reserve <formation>`: {', '.join(ok) or 'none may'}; or `reserve none`)")
    if st.phase == "activation":
        return f"**{(st.drawer or first_drawer(st)).title()}** to draw a marker (`draw`); {len(st.cup)} in the cup"
    return f"Phase {PHASE_NAMES.get(st.phase, st.phase)}"


def status(sc, st: JdgState, viewer: str | None = None) -> str:
    """The status line: turn, time of day, night, phase, who acts with which command, the active
    formation and step, a pending decision and its answer, the VP at the last end of turn."""
    night = " (night [12])" if sc.turns.is_night(st.turn) else ""
    lines = [f"**{sc.title}** · turn {st.turn}/{sc.turns.count} · {sc.turns.time_of(st.turn)}{night} · "
             f"phase {PHASE_NAMES.get(st.phase, st.phase)}"]
    if st.initiative and st.phase not in ("orders",):
        lines.append(f"Strategic initiative: {st.initiative.title()}")
    lines.append(next_step(sc, st, viewer))
    if any(st.vp.values()):
        lines.append("VP: " + ", ".join(f"{s.title()} {st.vp.get(s, 0)}" for s in SIDES))
    return _fit(lines)


def do_query(sc, st: JdgState, side: str, cmd, stream) -> list:
    """A question is not an action: the bot answers it privately (ruleset.query)."""
    raise Illegal(f"`{cmd.verb}` is a question, answered only to you: ask it with /jdg {cmd.verb} "
                  "(or the CLI's query); it changes nothing in the game", "JdG [0.3]")


for _verb in QUERIES:
    rules.register(_verb, do_query, f"{_verb}: a question answered only to you")
