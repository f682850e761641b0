"""Reaction Fire of This Accursed Civil War (TACW §9.7): the inactive side's fire at an active
unit that enters, faces, reforms, rallies, fires or advances in its zone; the `react` answer to a
reaction window, and the standing `policy reaction auto|salvo|never|ask`. Split out of
`fire/small_arms.py` (which re-exports these names); the shots themselves go through
`fire.resolve_small_arms` and, for guns, `artillery.resolve_gun`.

HERALD decisions (sections cited):
- §9.7 reaction fire: reactors resolve in unit-id order (R13); each fires at most once per
  call (one reaction per cause). The -1 against moving cavalry (§9.7.2, D19) uses
  `moved_before` or else `activation.moved[unit]`, less the hex just entered for entry-like
  triggers (movement/move.py counts the entered hex before it calls). Only inactive units react,
  and only to units of the active side (§9.7.1).
- §9.7 policies: each eligible reactor obeys its own `reaction_fire` policy (unit, wing, side:
  sequence/policies.py): the auto/salvo ones fire, then the "ask" ones wait in one pending decision.
"""
from __future__ import annotations

from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.tacw import rules, tables
from engine.tacw.sequence.actions import find_unit
from engine.tacw.fire.small_arms import cannot_fire, continue_after, must_stop, resolve_small_arms, snapshot
from engine.tacw.geometry import distance_units, unit_arcs
from engine.tacw.sequence.policies import policy
from engine.tacw.state import TacwState, Unit

TRIGGERS = ("enter", "face", "reform", "rally", "fire", "advance", "advance_fire")
ENTRY_TRIGGERS = ("enter", "advance", "advance_fire", "fire")
POLICIES = ("auto", "salvo", "never", "ask")


# == Reaction Fire (§9.7) ========================================================================

def _zone_shots(sc, st, r: Unit, trig: Unit, hexes: list[str], front_only: bool = False):
    """Infantry/cavalry reaction: (reactor hex, trigger hex) pairs, one per half, where the
    trigger hex is adjacent and in the reactor's front or flank hexes (§9.7.1)."""
    arcs = unit_arcs(sc, r)
    zone = set(arcs["front"]) | (set() if front_only else set(arcs["flank"]))
    shots = []
    for h in r.hexes:
        for t in sorted(hexes):
            if t in zone and sc.grid.adjacent(h, t) and tables.terrain_fire_modifier(sc.terrain_at(t)) is not None:
                shots.append((h, t))
                break
    return shots


def eligible_reactors(sc, st, trig: Unit, trigger: str, hexes: list[str],
                      only: list[str] | None = None, exclude: list[str] | None = None) -> list[Unit]:
    """Every inactive unit able to fire at `trig` now (§9.7.1, §9.9.6): infantry and cavalry
    with a trigger hex in their front or flank hexes; artillery with it in range and front
    arc, within ricochet range unless the trigger fired at the gun's hex; LOS clear."""
    from engine.tacw.fire.artillery import reaction_target_hex
    out = []
    for r in sorted(st.units.values(), key=lambda u: u.id):
        if r.side == trig.side or (only is not None and r.id not in only) or r.id in (exclude or ()):
            continue
        if r.kind != "artillery" and r.hexes and hexes and distance_units(sc, r.hexes, hexes) > 1:
            continue        # small arms reach adjacent hexes only (§9.7.1): skipped unasked (speed)
        if cannot_fire(st, r):
            continue
        if r.kind == "artillery":
            if reaction_target_hex(sc, st, r, trig, hexes, fired_at=trigger == "fire") is not None:
                out.append(r)
        elif _zone_shots(sc, st, r, trig, hexes):
            out.append(r)
    return out


def react_one(sc, st, r: Unit, trig: Unit, hexes: list[str], trigger: str, stream, *,
              salvo: bool = False, retreat_fire: bool = False, moving_cav: bool = False) -> list[Event]:
    """Resolve one unit's Reaction Fire at the trigger unit."""
    if cannot_fire(st, r) or not trig.alive:
        return []
    hexes = [h for h in hexes if h in trig.hexes] or list(trig.hexes)
    cav = {trig.id} if moving_cav else set()
    if r.kind == "artillery":
        from engine.tacw.fire.artillery import reaction_target_hex, resolve_gun
        t = reaction_target_hex(sc, st, r, trig, hexes, fired_at=trigger == "fire")
        return resolve_gun(sc, st, r, t, stream, reaction=True, moving_cav=cav) if t else []
    use_salvo = salvo and r.kind == "heavy" and r.salvo_allowed and not r.salvo_used
    shots = _zone_shots(sc, st, r, trig, hexes, front_only=True) if use_salvo else []
    if not shots:
        use_salvo, shots = False, _zone_shots(sc, st, r, trig, hexes)
    if not shots:
        return []
    return resolve_small_arms(sc, st, r, shots, stream, salvo=use_salvo, retreat_fire=retreat_fire,
                              reaction=True, moving_cav=cav)


def reaction_fire(sc, st: TacwState, trigger_unit: Unit, trigger: str, stream, *,
                  hexes: list[str] | None = None, only: list[str] | None = None,
                  exclude: list[str] | None = None, moved_before: int | None = None,
                  retreat_fire: bool = False, ask_as_auto: bool = False) -> tuple[list[Event], bool]:
    """§9.7: the inactive side's Reaction Fire at `trigger_unit`, which just did `trigger`
    (TRIGGERS) in `hexes` (default: where it stands). `only`: the units it fired at (trigger
    "fire"); `exclude`: units that may not fire (retreated, §10.4.9). Each eligible unit obeys
    its own `reaction_fire` policy (its unit's, else its wing's, else its side's: sequence/policies.py):
    "auto" (default: it fires), "salvo" (the same, heavy infantry firing Salvo when it can),
    "never", or "ask". The "auto" and "salvo" units fire first, in id order; then, if the
    trigger unit is still there to be fired at, the "ask" units are gathered into one pending
    decision {"kind": "reaction_fire", ...} answered by `react`; the interrupted action waits
    (a mover halts in that hex and resumes after the answer). `ask_as_auto`: "ask" is read as
    "auto" (inside close combat or an interception, where no decision may wait). Returns
    (events, interrupted): interrupted when the trigger unit was eliminated, newly morale or
    formation Broken, moved away, or a decision is pending."""
    if trigger not in TRIGGERS:
        raise ValueError(f"unknown reaction trigger {trigger!r}")
    trig = trigger_unit
    if not trig.alive or st.phase == "over" or (st.activation and trig.side != st.activation.side):
        return [], False                      # only inactive units react, to active ones (§9.7.1)
    hexes = [h for h in (hexes or trig.hexes) if h in trig.hexes] or list(trig.hexes)
    side = st.other(trig.side)
    reactors = eligible_reactors(sc, st, trig, trigger, hexes, only, exclude)
    if not reactors:
        return [], False
    if moved_before is None:
        moved = st.activation.moved.get(trig.id, 0) if st.activation else 0
        moved_before = moved - 1 if trigger in ENTRY_TRIGGERS else moved
    moving_cav = trig.kind == "cavalry" and moved_before >= 1
    chosen = {r.id: reaction_policy(st, r) for r in reactors}
    if ask_as_auto:
        chosen = {k: "auto" if v == "ask" else v for k, v in chosen.items()}
    firing = [r for r in reactors if chosen[r.id] in ("auto", "salvo")]
    asked = [r for r in reactors if chosen[r.id] == "ask"]
    held = [r.id for r in reactors if chosen[r.id] == "never"]
    events: list[Event] = []
    if held:
        events.append(Event("reaction_fire", side, "TACW §9.7", f"{side.title()} lets {trig.called} go "
                            f"with {', '.join(held)} (standing policy: never react)"))
    before = snapshot(trig)

    def stopped() -> bool:
        return not trig.alive or (trig.morale_state == "broken" and before[1] != "broken") \
            or trig.hexes != list(before[3])

    for r in firing:
        if stopped():
            break
        events += react_one(sc, st, r, trig, hexes, trigger, stream, salvo=chosen[r.id] == "salvo",
                            retreat_fire=retreat_fire, moving_cav=moving_cav)
    asked = [r for r in asked if not stopped() and not cannot_fire(st, r)]
    if asked and st.pending:
        events.append(Event("reaction_fire", side, "TACW §9.7", f"{trig.called}'s {trigger} is not offered "
                            f"to Reaction Fire: a decision is already waiting ({st.pending.get('kind')})"))
    elif asked:
        names = ", ".join(r.id for r in asked)
        st.pending = {"kind": "reaction_fire", "side": side, "options": [r.id for r in asked],
                      "trigger": trigger, "unit": trig.id, "hexes": hexes, "moving_cav": moving_cav,
                      "retreat_fire": retreat_fire, "then": None}
        events.append(Event("reaction_window", side, "TACW §9.7",
                            f"{side.title()} may answer {trig.called} with Reaction Fire ({names}): "
                            "react <unit>... | react all | react none",
                            outcome={"options": [r.id for r in asked]}))
        return events, True
    return events, must_stop(trig, before) or bool(st.pending)


def reaction_policy(st: TacwState, unit: Unit) -> str:
    """The `reaction_fire` policy a unit obeys (its own, its wing's, its side's, "auto")."""
    return policy(st, unit.side, "reaction_fire", unit=unit)


def do_react(sc, st, side, cmd, stream):
    """`react <unit>... [salvo] | react all [salvo] | react none`: answer a Reaction Fire window
    (§9.7). The chosen units fire in the order given; then the interrupted action goes on:
    Retreat fire's step back, Advance fire's shot, or a move halted in the hex where it drew
    the fire (movement.resume_move, which stops it if the fire left it unable to go on)."""
    pend = st.pending
    if not pend or pend.get("kind") != "reaction_fire" or pend.get("side") != side:
        raise Illegal("there is no Reaction Fire for you to answer", "TACW §9.7")
    words = list(cmd.args)
    if not words:
        raise CannotParse("usage: " + rules.VERBS["react"])
    salvo = "salvo" in words
    words = [w for w in words if w != "salvo"]
    if words == ["all"]:
        chosen = list(pend["options"])
    elif words == ["none"]:
        chosen = []
    else:
        chosen = [find_unit(st, w, side).id for w in words]
        bad = [c for c in chosen if c not in pend["options"]]
        if bad:
            raise Illegal(f"{', '.join(bad)} cannot react now; you may choose from {', '.join(pend['options'])}",
                          "TACW §9.7")
    st.pending = None
    trig = st.units[pend["unit"]]
    events = [Event("reaction_fire", side, "TACW §9.7",
                    f"{side.title()} reacts to {trig.called} with " + (", ".join(chosen) or "nobody"))]
    before = snapshot(trig)
    for uid in dict.fromkeys(chosen):
        if not trig.alive or trig.hexes != list(before[3]):
            break
        events += react_one(sc, st, st.units[uid], trig, pend["hexes"], pend["trigger"], stream, salvo=salvo,
                            retreat_fire=pend.get("retreat_fire", False), moving_cav=pend.get("moving_cav", False))
    events += continue_after(sc, st, pend.get("then"), stream)
    if not st.pending:
        try:                                  # a move halted by this window goes on (movement/move.py)
            from engine.tacw.movement.move import resume_move
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.movement":
                raise
            return events
        events += resume_move(sc, st, stream)
    return events


_policy_before = rules.HANDLERS["policy"]


def do_policy(sc, st, side, cmd, stream):
    """`policy reaction auto|salvo|never|ask` (§9.7); other policies go to the sequence's verb."""
    if not cmd.args or cmd.args[0] not in ("reaction", "reaction_fire"):
        return _policy_before(sc, st, side, cmd, stream)
    if len(cmd.args) < 2 or cmd.args[1] not in POLICIES:
        raise CannotParse("usage: policy reaction auto|salvo|never|ask")
    st.policies.setdefault(side, {})["reaction_fire"] = cmd.args[1]
    return [Event("policy", side, "DESIGN pending decisions",
                  f"{side.title()}'s Reaction Fire policy: {cmd.args[1]}")]


rules.register("react", do_react, "react <unit>... [salvo] | react all | react none: answer Reaction Fire (TACW §9.7)")
rules.register("policy", do_policy, rules.VERBS["policy"] + "; policy reaction auto|salvo|never|ask (TACW §9.7)")
