"""Reaction fire of Jours de Gloire [8.3] (and optional [8.3]: infantry reaction fire).

The combat helper calls `reaction_fire(sc, st, defenders_hex, attackers, stream)` when an assault
or charge on `defenders_hex` is about to be resolved (after any engagement check: an attacker
that failed it does not assault, so there is nothing to fire at), and reads the attackers'
condition afterwards: a unit disordered by reaction fire does not assault [8.3].

The text, with HERALD D44, D53, D68, D75, D85:
- [8.3] artillery that is the target of an assault may fire at one attacking unit in one of its
  frontal hexes (all six for a six-front unit [6.1]); several artillery units fire individually,
  never combined, possibly at different targets; it may not turn first [7.2]. DRMs as [7.5] plus
  the reaction -1, and -1 more when stacked with a square [9.3] (tables.fire_modifiers).
- [5.1] L309-L311: the result strikes only the top unit of the attacking stack; when that is
  artillery, the firing player may choose the infantry just under it instead, before the roll.
- [8.3] "Fuoco di reazione e controbatteria": in one enemy activation an artillery unit makes
  either reaction or counter-battery fire, once (`Activation.reacted`).
- optional [8.3] (game option "line-infantry-fire"): infantry in good order, assaulted, fires at
  attackers in its frontal hexes, once per activation, individually; in a stack only the top
  infantry, unless all are in square; d10 + only: line infantry -1, cohesion or strength 7+ +1,
  terrain (tables.infantry_fire_modifiers); no firepower (D68: every infantry not light is line).
- Who decides: the defender's standing policy "reaction_fire": auto (each unit fires, at the
  attacker Herald picks: HERALD D85), never, or ask: one pending decision per firing unit (kind
  "reaction_fire", options: the attackers it may strike, and none). The caller passes
  `then=<reaction kind>` (the assault passes "combat_continue"): when the last answer is in, the
  reaction registered as `then` is called (`rules.REACTIONS[then](sc, st, then_side, "done", [],
  stream)`), so what waited for it goes on. A caller without `then` cannot be resumed: "ask"
  then fires at Herald's pick, as "auto".
"""
from __future__ import annotations

from engine.core.errors import Illegal
from engine.core.events import Event

from engine.jdg import geometry, rules
from engine.jdg.fire import artillery, sight
from engine.jdg.setup import has_option
from engine.jdg.state import JdgState, Unit


def _units(st: JdgState, attackers) -> list[Unit]:
    out = []
    for a in attackers or ():
        u = st.units.get(a) if isinstance(a, str) else a
        if u is not None and u.alive and u not in out:
            out.append(u)
    return out


def _used(st: JdgState) -> list[str]:
    return st.activation.reacted if st.activation is not None else []


def targets_for(sc, st: JdgState, unit: Unit, attackers) -> list[Unit]:
    """[8.3], [5.1] L309-L311: the units `unit` may strike: for each attacking stack in one of its
    frontal hexes, in line of fire (no fire across a crest or steep slope [7.4]), the top unit of
    the stack, and the infantry just under it when the top is artillery."""
    attackers = _units(st, attackers)
    front = geometry.frontal_hexes(sc, unit)
    hexes = sorted({a.hex for a in attackers if a.hex in front and a.side != unit.side})
    out: list[Unit] = []
    for h in hexes:
        if not sight.line_of_sight(sc, st, unit.hex, h)[0]:
            continue
        stack = st.units_at(h)
        if not stack:
            continue
        out.append(stack[0])
        if stack[0].arm == "artillery":
            below = next((x for x in stack[1:] if x.arm == "infantry"), None)
            if below is not None:
                out.append(below)
    return out


def may_react(sc, st: JdgState, unit: Unit, attackers) -> bool:
    """[8.3] (artillery), optional [8.3] (infantry): whether `unit` may make reaction fire now."""
    if not unit.alive or unit.condition != "good" or unit.id in _used(st):
        return False
    if unit.arm == "infantry":
        if not has_option(st, "line-infantry-fire"):
            return False
        infantry = [x for x in st.units_at(unit.hex) if x.arm == "infantry"]
        if not all(x.square for x in infantry) and infantry and infantry[0].id != unit.id:
            return False          # only the top infantry of a stack, unless all are in square
    elif unit.arm != "artillery":
        return False
    return bool(targets_for(sc, st, unit, attackers))


def reaction_fire_options(sc, st: JdgState, defenders_hex: str, attackers) -> list[str]:
    """[8.3]: ids of the units in `defenders_hex` that may fire in reaction at `attackers` (ids
    or Units), in the order of the stack (artillery on top)."""
    att = _units(st, attackers)
    if not att:
        return []
    side = att[0].side
    return [u.id for u in st.units_at(defenders_hex) if u.side != side and may_react(sc, st, u, att)]


def auto_target(sc, st: JdgState, unit: Unit, attackers) -> Unit | None:
    """HERALD D85: the attacker the standing policy "auto" strikes: never artillery when the
    infantry under it may be chosen, then the strongest unit (strength, then cohesion, then id)."""
    cands = targets_for(sc, st, unit, attackers)
    if not cands:
        return None
    fighters = [c for c in cands if c.arm != "artillery"] or cands
    return sorted(fighters, key=lambda c: (-sc.unit(c.id).strength, -sc.unit(c.id).cohesion, c.id))[0]


def fire_in_reaction(sc, st: JdgState, unit: Unit, target: Unit, stream) -> list[Event]:
    """One reaction shot [8.3] (optional [8.3] for infantry) at `target` alone [5.1] L309."""
    if st.activation is not None and unit.id not in st.activation.reacted:
        st.activation.reacted.append(unit.id)
    if unit.arm == "infantry":
        return artillery.resolve_shot(sc, st, [unit], target.hex, [target], stream, kind="infantry_reaction",
                                      section="JdG optional [8.3]", roller=unit.side)
    return artillery.resolve_shot(sc, st, [unit], target.hex, [target], stream, kind="reaction",
                                  section="JdG [8.3]", roller=unit.side)


def _ask(sc, st: JdgState, defenders_hex: str, attackers: list[str], queue: list[str],
         then: str | None, then_side: str | None) -> list[Event]:
    """Set the pending decision for the first unit of `queue` that may still fire; [] if none."""
    while queue:
        uid = queue.pop(0)
        u = st.units.get(uid)
        if u is None or not may_react(sc, st, u, attackers):
            continue
        targets = targets_for(sc, st, u, attackers)
        options = [t.id for t in targets] + ["none"]
        labels = {t.id: f"fire at {artillery.name_of(sc, t)} in {t.hex}" for t in targets}
        labels["none"] = "no reaction fire"
        default = auto_target(sc, st, u, attackers)
        st.pending = {"kind": "reaction_fire", "side": u.side, "options": options, "labels": labels,
                      "default": default.id if default else "none",
                      "prompt": f"reaction fire of {artillery.name_of(sc, u)} before the assault on {defenders_hex}?",
                      "section": "JdG [8.3]", "unit": u.id, "hex": defenders_hex,
                      "attackers": list(attackers), "queue": list(queue), "then": then, "then_side": then_side}
        return [Event("decision", u.side, "JdG [8.3]",
                      f"{u.side.title()} may make reaction fire with {artillery.name_of(sc, u)} at "
                      f"{', '.join(artillery.name_of(sc, t) for t in targets)}",
                      outcome={"pending": "reaction_fire", "options": options})]
    return []


def reaction_fire(sc, st: JdgState, defenders_hex: str, attackers, stream, *, then: str | None = None,
                  then_side: str | None = None) -> list[Event]:
    """[8.3]: the reaction fire of the units in `defenders_hex` at the `attackers`, before the
    assault or charge is resolved, by the defender's standing policy "reaction_fire" (auto /
    never / ask). With "ask", `st.pending` is set and this returns at once; `then` names the
    reaction to call (with `then_side`, default the active side) once the answers are in."""
    ids = reaction_fire_options(sc, st, defenders_hex, attackers)
    if not ids:
        return []
    att_ids = [u.id for u in _units(st, attackers)]
    owner = st.units[ids[0]].side
    pol = rules.policy(st, owner, "reaction_fire")
    if pol == "never":
        return [Event("reaction_fire_declined", owner, "JdG [8.3]",
                      f"{owner.title()}'s standing policy: no reaction fire from "
                      f"{', '.join(artillery.name_of(sc, st.units[i]) for i in ids)}", outcome={"policy": "never"})]
    if pol == "ask" and then is not None:
        return _ask(sc, st, defenders_hex, att_ids, list(ids), then, then_side)
    # "auto" (or "ask" from a caller that cannot be resumed): each unit fires at the attacker
    # Herald picks (HERALD D85)
    events: list[Event] = []
    for uid in ids:
        u = st.units[uid]
        if not may_react(sc, st, u, att_ids):
            continue
        target = auto_target(sc, st, u, att_ids)
        if target is not None:
            events += fire_in_reaction(sc, st, u, target, stream)
    return events


def resume_reaction_fire(sc, st: JdgState, side: str, answer: str, more: list[str], stream) -> list[Event]:
    """The answer to a reaction-fire decision [8.3]: the attacker to strike, or "none"; then the
    next defending unit is asked, and when none is left the waiting `then` reaction goes on."""
    p = st.pending
    st.pending = None
    events: list[Event] = []
    u = st.units.get(p["unit"])
    if answer == "none":
        events.append(Event("reaction_fire_declined", side, "JdG [8.3]",
                            f"{artillery.name_of(sc, u)} makes no reaction fire"))
    else:
        target = next((t for t in targets_for(sc, st, u, p["attackers"]) if t.id == answer), None)
        if target is None or not may_react(sc, st, u, p["attackers"]):
            raise Illegal(f"{u.id} cannot fire in reaction at {answer}", "JdG [8.3]")
        events += fire_in_reaction(sc, st, u, target, stream)
    events += _ask(sc, st, p["hex"], p["attackers"], list(p.get("queue", [])), p.get("then"), p.get("then_side"))
    if st.pending is None and p.get("then"):
        resume = rules.REACTIONS.get(p["then"])
        if resume is not None:
            who = p.get("then_side") or (st.activation.side if st.activation else side)
            events += resume(sc, st, who, "done", [], stream)
    return events


rules.register_reaction("reaction_fire", resume_reaction_fire)
