"""Phase D, the activations [1.D], [2.2], [2.4], [5.2], Marengo section D 2.1.

[2.2] L127: a marker is drawn at random from the cup; its formation's units are activated; when
the player is done with them the marker is set aside and a new one drawn. [1.D.3] L93-101: the
active formation fires, then moves, then assaults and charges, then rallies, in that strict order
(HERALD D14): `state.Activation.step` runs through ACTIVATION_STEPS; `rules.enter_step` moves it on
for an action, `next` ends a step by hand, and ending the rally step ends the activation. [2.2]
L129: when one marker is left in the cup the phase is over; it is set aside unused.

Who draws (HERALD D79): Herald draws at random from the seeded stream (D10); the player who asks
for it is the side with the strategic initiative for the first draw (the first side of the
scenario on a tie), then the side whose activation has just ended.

[2.4] L139: drawing a formation's first IA reveals its orders for the whole turn (HERALD D11, D12).
A Without-Orders formation may try its commander's initiative first (`initiative`, L171-177,
HERALD D13): d10 minus the chief's modifier (if a unit is within his radius) <= the initiative
printed on the IA; success: With Orders for this activation only; failure: it may only rally.

[5.2] L315: reinforcements enter when their IA is drawn: their units get status "entering" (the
movement rules bring them on through the entry hexes with `move`); those still off the map when
the activation ends wait for the next turn's draw (L331, HERALD D29).

Marengo D 2.1: an IAC activates all the side's cavalry ("Grande charge") or artillery
("Marmont"), each formation by its own status, one initiative roll per Without-Orders formation
with the IAC's value (HERALD D72); the "Zach" IA activates nobody and takes every unused
Hadik/Kaim, Frimont and Von Morzin IA out of the cup (HERALD D71).

Other modules hook the end of a step (e.g. the combat module refusing to leave the combat step
with an assault declared and not resolved, the morale module's night rally):
`on_step_end(step, fn)`, `fn(sc, st, side, stream) -> list[Event]` (may raise Illegal).
"""
from __future__ import annotations

from typing import Callable

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import DieRoll, Event, Modifier

from engine.jdg import rules, tables
from engine.jdg.checks import d10
from engine.jdg.sequence.command import chief, in_command_radius, with_orders
from engine.jdg.sequence.cup import due_reinforcements
from engine.jdg.sequence.initiative import marker_label
from engine.jdg.state import ACTIVATION_STEPS, SIDES, Activation, JdgState

STEP_NAMES = {"orders_check": "orders check", "fire": "artillery fire", "movement": "movement",
              "combat": "assaults and charges", "rally": "rally", "done": "done"}
STEP_END: dict[str, list[Callable]] = {}


def on_step_end(step: str, fn: Callable) -> None:
    """Register `fn(sc, st, side, stream) -> list[Event]`, run when `step` of an activation ends
    (by `next`); it may raise Illegal to keep the step open."""
    if step not in ACTIVATION_STEPS:
        raise ValueError(f"unknown step {step!r}")
    STEP_END.setdefault(step, []).append(fn)


def first_drawer(st: JdgState) -> str:
    """HERALD D79: the side with the strategic initiative draws first; on a tie the scenario's
    first side."""
    return st.initiative or SIDES[0]


def _orders_word(st: JdgState, fid: str) -> str:
    return "With Orders" if with_orders(st, fid) else "Without Orders"


def reveal(sc, st: JdgState, fid: str, why: str) -> list[Event]:
    """[2.4] L139: the formation's orders are shown at its first activation (HERALD D11)."""
    f = st.formations[fid]
    if f.revealed:
        return []
    f.revealed = True
    extra = " (for good: its army lost its commander-in-chief)" if f.without_orders_for_good else ""
    from engine.jdg.sequence.groups import reveal_note
    note = reveal_note(sc, st, fid)             # its tactical groups' orders (optional 2.3)
    text = f"{sc.formation(fid).name}'s orders this turn: {note}" if note else \
        f"{sc.formation(fid).name} is {_orders_word(st, fid)} this turn{extra}"
    return [Event("orders_revealed", f.side, "JdG [2.4]", f"{text} ({why})",
                  outcome={"formation": fid, "orders": "with" if with_orders(st, fid) else "without"})]


def arrive(sc, st: JdgState, fid: str) -> list[Event]:
    """[5.2] L315: a reinforcement's units become ready to enter when their IA is drawn; a
    formation with no unit on the map enters With Orders, without an order spent (L323)."""
    ready = []
    for r in due_reinforcements(sc, st, fid):
        for uid in r.units:
            if st.units[uid].status == "waiting":
                st.units[uid].status = "entering"
                ready.append(uid)
    if not ready:
        return []
    f = st.formations[fid]
    if not st.formation_units(fid) and not f.without_orders_for_good:
        f.orders = "with"
    hexes = sorted({h for r in due_reinforcements(sc, st, fid) for h in r.entry_hexes})
    # [5.2] L325: with an enemy within 5 hexes of the entry hex, With Orders this turn only and no
    # forced march (the line said "forced march" and the move was then refused)
    from engine.jdg.movement.reinforcements import RENFORTS_DISTANCE, enemy_within
    near = [h for h in hexes if enemy_within(sc, st, h, f.side, RENFORTS_DISTANCE)]
    if len(near) == len(hexes):
        how = f"With Orders this turn, not at forced march: the enemy is within {RENFORTS_DISTANCE} hexes"
    elif near:
        how = (f"With Orders, forced march except by {', '.join(near)} (the enemy within "
               f"{RENFORTS_DISTANCE} hexes)")
    else:
        how = "With Orders, forced march"
    return [Event("reinforcements", f.side, "JdG [5.2]",
                  f"{sc.formation(fid).name}: reinforcements ready to enter at {', '.join(hexes)}: "
                  + ", ".join(f"{sc.unit(u).name} `{u}`" for u in ready)
                  + f" ({how} [5.2]; `move <unit> <entry hex> ...`)",
                  outcome={"units": ready, "entry_hexes": hexes})]


def start_activation(sc, st: JdgState, mid: str, how: str) -> list[Event]:
    """[1.D.1-2]: the marker's formation(s) activated, their orders checked and revealed."""
    m = st.markers[mid]
    if mid not in st.set_aside:
        st.set_aside.append(mid)
    if m.kind == "special":
        return zach(sc, st, mid)
    events: list[Event] = []
    if m.kind == "combined":
        m.secret = False
        setup = sc.marker(mid)
        arm = "cavalry" if setup.activates == "all_cavalry" else "artillery"
        fids = [f.id for f in sc.formations_of(m.side)
                if any(u.arm == arm for u in st.formation_units(f.id))]
        st.activation = Activation(marker=mid, side=m.side, formations=fids, arm=arm)
        for fid in fids:
            events += reveal(sc, st, fid, f"activated by \"{setup.name}\"")
        text = (f"\"{setup.name}\" ({how}): all {m.side.title()} {arm} activated, "
                f"{', '.join(sc.formation(f).name + ' ' + _orders_word(st, f) for f in fids) or 'none on the map'}")
        events.insert(0, Event("activation", m.side, "JdG [2.1], Marengo D 2.1", text,
                               outcome={"marker": mid, "formations": fids, "arm": arm}))
    else:
        fid = m.formation
        f = st.formations[fid]
        f.activations += 1
        st.activation = Activation(marker=mid, side=m.side, formations=[fid])
        events.append(Event("activation", m.side, "JdG [1] D, [2.2]",
                            f"{sc.formation(fid).name} activated ({how}: `{mid}`, activation {f.activations})",
                            outcome={"marker": mid, "formations": [fid]}))
        events += arrive(sc, st, fid)
        events += reveal(sc, st, fid, "its first marker drawn")
    act = st.activation
    live = [u for u in st.units.values() if u.formation in act.formations and u.side == act.side
            and (u.alive or u.status == "entering") and (not act.arm or u.arm == act.arm)]
    if not live:
        events.append(Event("activation_end", act.side, "JdG [2.2]", "No unit to activate: the marker is set aside"))
        events += end_activation(sc, st)
        return events
    if all(with_orders(st, fid) for fid in act.formations):
        act.with_orders = True
        act.step = fire_or_movement(st)
    else:
        events.append(Event("orders_check", act.side, "JdG [1] D.2, [2.4]",
                            f"{act.side.title()}: Without Orders; try the commander's initiative with "
                            "`initiative`, or act Without Orders (`next`, or any action)"))
    return events


def fire_or_movement(st: JdgState) -> str:
    """The activation's first step [1.D], [2.4]: the artillery fire step when some artillery of
    the activation could fire (in good order, not yet fired), else straight to movement: nobody
    has a choice to make in an empty fire step (DESIGN: the sequence walks on by itself)."""
    act = st.activation
    for u in st.units.values():
        if (u.alive and u.side == act.side and u.arm == "artillery" and u.formation in act.formations
                and u.condition == "good" and not u.fired and (not act.arm or act.arm == "artillery")):
            return "fire"
    return "movement"


def zach(sc, st: JdgState, mid: str) -> list[Event]:
    """Marengo D 2.1 (HERALD D71): drawn, the "Zach" IA takes every unused IA of its formations
    out of the cup; it activates nobody."""
    setup = sc.marker(mid)
    gone = [m for m in st.cup if st.markers[m].kind == "ia" and st.markers[m].formation in setup.removes_formations]
    for m in gone:
        st.cup.remove(m)
        st.set_aside.append(m)
    names = ", ".join(sc.formation(f).name for f in setup.removes_formations)
    return [Event("zach", setup.side, "Marengo D 2.1",
                  f"\"{setup.name}\" drawn: the unused IAs of {names} leave the cup "
                  f"({', '.join(gone) or 'none left'}): they will not activate this turn",
                  outcome={"removed": gone})]


def do_draw(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`draw` [1.D.1], [2.2]: a marker drawn at random from the cup by the side to draw (HERALD
    D79, D10); the draw is public."""
    section = "JdG [1] D, [2.2]"
    if st.phase != "activation":
        raise Illegal(f"markers are drawn in phase D (now: phase {st.phase})", section)
    if st.activation is not None:
        raise Illegal(f"{', '.join(st.activation.formations)} is still active: end it first (`next`)", section)
    rules.need_no_pending(st, side)
    if len(st.cup) < 2:
        raise Illegal("one marker is left in the cup: phase D is over, it is not used", "JdG [2.2]")
    if side != st.drawer:
        raise Illegal(f"{st.drawer.title()} draws the next marker (the side whose activation has just "
                      "ended; first the side with the strategic initiative, HERALD D79)", section)
    mid = st.cup.pop(stream.randbelow(len(st.cup)))
    # the public count leaves out a combined marker still secret (Marengo D 2.1 L937, HERALD D72): it
    # said "(21 left)" when the opponent's `cup` showed 21 markers before the draw
    left = sum(1 for m in st.cup if not (st.markers[m].kind == "combined" and st.markers[m].secret))
    events = [Event("draw", side, section, f"{side.title()} draws {marker_label(sc, st, mid)} from the cup "
                    f"({left} left)", outcome={"marker": mid, "left": left})]
    return events + start_activation(sc, st, mid, f"drawn by {side.title()}")


def initiative_value(sc, st: JdgState, fid: str) -> int:
    """The initiative printed on the marker: the formation's IA, or the IAC's own (HERALD D72)."""
    act = st.activation
    m = st.markers[act.marker]
    if m.kind == "combined":
        return sc.marker(act.marker).initiative
    return sc.formation(fid).initiative


def do_initiative(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`initiative` [1.D.2], [2.4] L171-177: each Without-Orders formation of the activation rolls
    d10, minus the commander-in-chief's modifier when one of its units is within his radius; at
    most the initiative on the marker: With Orders for this activation only; above it: the
    formation may only rally (HERALD D13). Under an IAC one roll per such formation (D72, D81)."""
    section = "JdG [2.4]"
    from engine.jdg.sequence import groups
    if groups.enabled(st):
        return groups.do_initiative(sc, st, side, cmd, stream)      # one roll per group, opt. 2.3
    rules.need_active(st, side)
    act = st.activation
    if act.reserve:
        raise Illegal("a formation activated in reserve (phase D bis) acts Without Orders: no commander's "
                      "initiative", "JdG opt. [1]; HERALD D65")
    todo = [fid for fid in act.formations if not with_orders(st, fid) and fid not in act.failed]
    if not todo:
        raise Illegal("the active formation is With Orders: no initiative to try", section)
    if act.step != "orders_check":
        raise Illegal(f"the commander's initiative is tried when the marker is drawn, before any action "
                      f"(the {STEP_NAMES[act.step]} step has begun)", "JdG [1] D.2, [2.4]")
    events = []
    ch = chief(sc, st, side)
    for fid in todo:
        name = sc.formation(fid).name
        value = initiative_value(sc, st, fid)
        radius = in_command_radius(sc, st, fid)
        purpose = f"commander's initiative, {name}"
        die = d10(stream, purpose)
        passed = tables.commander_initiative(die, value, ch.modifier, radius)
        mods = [Modifier(-ch.modifier, f"{ch.name} within {ch.command_radius} hexes of a unit", section)] \
            if radius and ch.modifier else []
        total = die + sum(x.value for x in mods)
        if passed:
            st.formations[fid].initiative_success = True
        else:
            act.failed.append(fid)
        note = "" if radius else f" (no unit within {ch.name}'s radius: no modifier)"
        events.append(Event(
            "commander_initiative", side, section,
            f"{name}: commander's initiative d10 {die}{''.join(f' {x.value:+d}' for x in mods)} = {total} "
            f"against {value}{note}: " + ("With Orders for this activation" if passed else
                                        "failed: its units may only rally"),
            base=value, modifiers=mods, dice=[DieRoll(purpose, "d10", die, effect="passed" if passed else "failed")],
            table="d10 - commander-in-chief's modifier <= initiative", row=tables.CHECK_SECTIONS["commander_initiative"],
            outcome={"formation": fid, "passed": passed, "total": total}))
    act.with_orders = all(with_orders(st, fid) for fid in act.formations)
    act.step = "rally" if all(fid in act.failed for fid in act.formations) else fire_or_movement(st)
    return events


def end_step(sc, st: JdgState, side: str, stream: DiceStream) -> list[Event]:
    """The current step ends: the hooks of other modules run (they may refuse)."""
    events: list[Event] = []
    for fn in STEP_END.get(st.activation.step, []):
        events += fn(sc, st, side, stream) or []
    return events


def do_next(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`next` [1.D.3], [2.4]: the active formation ends its current step (fire, movement, assaults
    and charges, rally, in that strict order, HERALD D14); after the rally step, its activation."""
    rules.need_active(st, side)
    act = st.activation
    events = end_step(sc, st, side, stream)
    if st.activation is None or st.pending:           # a hook ended it, or asks a player
        return events
    i = ACTIVATION_STEPS.index(act.step)
    act.step = ACTIVATION_STEPS[i + 1]
    if act.step == "fire":
        act.step = fire_or_movement(st)
    who = " + ".join(sc.formation(f).name for f in act.formations) or act.marker
    if act.step == "done":
        return events + end_activation(sc, st)
    return events + [Event("step", side, "JdG [1] D.3", f"{who}: {STEP_NAMES[act.step]} step",
                           outcome={"step": act.step})]


def reset_activation_flags(st: JdgState) -> None:
    """What lasts one activation (state.py): fired, acted, charge, assault, pursuit re-charges [4.4,
    8.1, 9.1, 9.5, 11]; the reaction fire of the other side's units too (one per activation, [8.3])."""
    for u in st.units.values():
        u.fired = False
        u.acted = False
        u.charge = False
        u.assault = ""
        u.recharges = 0


def end_activation(sc, st: JdgState) -> list[Event]:
    """[2.2] L127: the marker is set aside; per-activation flags cleared; reinforcements that did
    not enter wait for the next turn's draw ([5.2] L331); the side that acted draws next (D79)."""
    act = st.activation
    if act is None:
        return []
    reset_activation_flags(st)
    late = []
    for u in st.units.values():
        if u.status == "entering":
            u.status = "waiting"
            late.append(u.id)
    for fid in act.formations:
        st.formations[fid].initiative_success = False
    st.activation = None
    if hasattr(st, "combat"):
        st.combat = {}
    st.drawer = act.side
    who = " + ".join(sc.formation(f).name for f in act.formations) or act.marker
    text = f"{who}: activation over, `{act.marker}` set aside" if not act.reserve else \
        f"{who}: reserve activation over (phase D bis)"
    if late:
        text += f"; not entered, they wait for the next turn: {', '.join(late)} ([5.2])"
    return [Event("activation_end", act.side, "JdG [2.2]", text, outcome={"marker": act.marker, "late": late})]


def end_of_phase_d(sc, st: JdgState) -> list[Event]:
    """[1.D] L103, [2.2] L129: one marker left: it is set aside unused (HERALD D10: named unless
    it is a secret IAC, D72; a last IAC or "Zach" is spent without effect)."""
    events = []
    for mid in list(st.cup):
        st.cup.remove(mid)
        st.set_aside.append(mid)
        m = st.markers[mid]
        label = "a marker kept secret" if (m.kind == "combined" and m.secret) else marker_label(sc, st, mid)
        late = m.kind == "ia" and not st.formation_units(m.formation) and due_reinforcements(sc, st, m.formation)
        events.append(Event("last_marker", "both", "JdG [1] D, [2.2]",
                            f"One marker left in the cup: {label} is set aside unused"
                            + (": the reinforcements are late, both IAs go in next turn ([5.2])" if late else ""),
                            outcome={} if m.kind == "combined" and m.secret else {"marker": mid}))
    return events
