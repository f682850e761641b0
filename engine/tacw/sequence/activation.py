"""Sequence of play: initiative, activation precedence, bypass, order change, continuation,
passing, and the end-of-turn phases (TACW §3, §4, §5.7, §5.3.3).

The engine walks the sequence by itself wherever the rules leave nobody a choice (initiative,
the next wing by precedence, rout and marker removal) and stops where a player must decide:
which wing to activate (or pass), whether to attempt a bypass, whether to continue.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import DieRoll, Event, Modifier

from engine.tacw.battles.special_data import EMPTY, special_of
from engine.tacw.sequence.policies import policy
from engine.tacw.state import ORDERS, Activation, Leader, TacwState, Wing

PRECEDENCE = {order: i + 1 for i, order in enumerate(ORDERS)}     # §4.2.1
ORDER_NAMES = {"charge": "Charge", "make_ready": "Make Ready", "receive_charge": "Receive Charge",
               "rally": "Rally"}


def d10(stream: DiceStream, purpose: str, roller: str | None = None) -> int:
    """§2.2: one ten-sided die read 0-9 ('zero is zero, not ten'); `roller`: the side whose die
    it is, when not the commanding side's (engine.core.dice.DiceStream.roll)."""
    return stream.roll(10, purpose, roller) - 1


def wc_of(st: TacwState, wing: Wing) -> Leader | None:
    ld = st.leaders.get(wing.commander)
    return ld if ld is not None and ld.status == "active" else None


def eligible_wings(st: TacwState, side: str) -> list[Wing]:
    """Wings of `side` that may still activate this turn (§4.2; §5.3.2: not without a WC)."""
    out = []
    for w in st.wings.values():
        if w.side != side or w.done or w.bypassed:
            continue
        wc = wc_of(st, w)
        if wc is None or wc.finished:
            continue
        if not st.wing_units(w.id):
            continue
        out.append(w)
    return out


def best_tier(wings: list[Wing]) -> int | None:
    return min((PRECEDENCE[w.order] for w in wings), default=None)


def next_to_activate(st: TacwState) -> tuple[str | None, int | None]:
    """§4.2: the side that activates next and the order tier it must activate from. All wings
    of a higher tier go before any of a lower one; within a tier the players alternate."""
    tiers = {s: best_tier(eligible_wings(st, s)) for s in ("royalist", "parliament")}
    live = [t for t in tiers.values() if t is not None]
    if not live:
        return None, None
    tier = min(live)
    sides = [s for s, t in tiers.items() if t == tier]
    if len(sides) == 1:
        return sides[0], tier
    if st.last_activator in sides:
        return st.other(st.last_activator), tier
    return st.initiative or sides[0], tier


def _best_wc_value(st: TacwState, side: str) -> int:
    vals = [ld.value for ld in st.leaders.values() if ld.side == side and ld.role == "wc"
            and ld.status == "active"]
    return min(vals, default=0)


def determine_initiative(st: TacwState, stream: DiceStream) -> list[Event]:
    """§4.1: more wings on Charge goes first; failing any Charge wing, more on Receive Charge;
    a tie goes to the side whose Wing Commander has the better value (-2 best); then a die roll.

    HERALD (digest §9): with Charge wings on both sides in equal number the tie-break applies;
    'more wings on Receive Charge' is consulted only when NO wing of either side is on Charge."""
    count = {s: {o: 0 for o in ORDERS} for s in ("royalist", "parliament")}
    for w in st.wings.values():
        if wc_of(st, w) is not None and st.wing_units(w.id):
            count[w.side][w.order] += 1
    r, p = count["royalist"], count["parliament"]
    key = "charge" if r["charge"] + p["charge"] else "receive_charge"
    dice: list[DieRoll] = []
    if r[key] != p[key]:
        winner = "royalist" if r[key] > p[key] else "parliament"
        why = f"more wings on {ORDER_NAMES[key]} ({r[key]} to {p[key]})"
    elif _best_wc_value(st, "royalist") != _best_wc_value(st, "parliament"):
        winner = min(("royalist", "parliament"), key=lambda s: _best_wc_value(st, s))
        why = "the better Wing Commander value"
    else:
        while True:
            a, b = d10(stream, "initiative, Royalist", "royalist"), d10(stream, "initiative, Parliament", "parliament")
            dice += [DieRoll("initiative, Royalist", "d10", a), DieRoll("initiative, Parliament", "d10", b)]
            if a != b:
                break
        winner = "royalist" if a > b else "parliament"
        why = "the higher die"
    st.initiative = winner
    st.phasing = winner
    st.last_activator = ""
    st.passes = 0
    st.phase = "activation"
    return [Event("initiative", winner, "TACW §4.1", f"Turn {st.turn}: {winner.title()} has the initiative ({why})",
                  dice=dice, outcome={"initiative": winner})]


def _command_mods(sc, st: TacwState, wing: Wing, what: str) -> list[Modifier]:
    """The Wing Commander's value, plus the Army Commander's when stacked with or adjacent to
    him (§4.3.3, §4.4.4, §5.7.3).

    Influencing an order change or a continuation is one of the Army Commander's actions, one per
    activation (§5.1.2). HERALD (digest §9 R6): he lends his value when it helps (below 0) and he
    has not yet acted in this activation, and that spends his action; a player who wants him to
    rally or reform instead acts with him first. A bypass roll is made before the bypassing
    wing's activation begins, so there it spends nothing."""
    from engine.tacw.geometry import leader_adjacent_or_stacked
    mods = []
    wc = wc_of(st, wing)
    if wc is not None and wc.value:
        mods.append(Modifier(wc.value, f"Wing Commander {wc.name}", what))
    # Marston Moor: the reserve commanded by the AC himself, the rival ACs (special rule 1)
    from engine.tacw.battles.marston_moor import influencing_ac
    ac = influencing_ac(sc, st, wing, st.army_commander(wing.side))
    act = st.activation
    own_activation = act is not None and act.side == wing.side and act.wing == wing.id
    if ac is not None and wc is not None and ac.value and leader_adjacent_or_stacked(sc, ac, wc):
        if own_activation and act.ac_acted:
            return mods
        mods.append(Modifier(ac.value, f"Army Commander {ac.name} with or next to the WC", what))
        if own_activation:
            act.ac_acted = True
    return mods


def start_activation(st: TacwState, wing: Wing, bypassing: bool = False, resume: str | None = None,
                     resumed: bool = False) -> list[Event]:
    st.activation = Activation(wing=wing.id, side=wing.side, step="order_change", bypassing=bypassing,
                               resume_wing=resume)
    if not resumed:                  # Second Newbury: a Royalist activation may bring a force back
        from engine.tacw.battles.second_newbury import note_royalist_activation
        note_royalist_activation(st, wing)
    wing.activations += 1
    st.phasing = wing.side
    st.last_activator = wing.side
    st.passes = 0
    return [Event("activate", wing.side, "TACW §3.2", f"{wing.side.title()} activates {wing.name} "
                  f"({ORDER_NAMES[wing.order]})" + (" by bypass" if bypassing else ""),
                  inputs={"wing": wing.id})]


def open_bypass_window(st: TacwState, continuation: bool = False) -> list[Event]:
    """§3.2 step A / §4.4: before a normal activation or after a successful continuation the
    inactive player may attempt a bypass with an eligible wing. Stops with a pending decision
    unless a standing policy answers (default: never bypass). The policy is read for each
    eligible wing (its own "bypass" policy, else the side's): only the wings on "ask" are
    offered, and no window opens when none is."""
    act = st.activation
    inactive = st.other(act.side)
    options = [w.id for w in eligible_wings(st, inactive) if w.order != "rally"
               and policy(st, inactive, "bypass", wing=w) == "ask"]
    if not options or st.wings[act.wing].bypassed:
        act.step = "order_change"
        return []
    st.pending = {"kind": "bypass", "side": inactive, "options": options, "continuation": continuation,
                  "wing": act.wing}
    act.step = "bypass"
    return []


def attempt_bypass(sc, st: TacwState, side: str, wing_id: str | None, stream: DiceStream) -> list[Event]:
    """§4.4.2 - §4.4.4: roll on the Bypass table for the bypassing wing's orders."""
    from engine.tacw import tables
    from engine.tacw.geometry import leader_next_to_enemy
    pend = st.pending
    if pend and pend["kind"] == "bypass" and pend["side"] != side:
        raise Illegal(f"the bypass decision is {pend['side'].title()}'s to make", "TACW §4.4")
    if not pend or pend["kind"] != "bypass":
        raise Illegal("no bypass decision is waiting", "TACW §4.4")
    st.pending = None
    act = st.activation
    act.step = "order_change"
    if wing_id is None:
        return [Event("bypass", side, "TACW §4.4", f"{side.title()} does not attempt a bypass")]
    if wing_id not in pend["options"]:
        st.pending = pend
        act.step = "bypass"
        raise Illegal(f"{wing_id} cannot bypass now; eligible: {', '.join(pend['options'])}", "TACW §4.4.1")
    wing = st.wings[wing_id]
    wc = wc_of(st, wing)
    mods = []
    if wing.cavalry:
        mods.append(Modifier(-1, "cavalry wing", "TACW §4.4.4"))
    if leader_next_to_enemy(sc, st, wc):
        mods.append(Modifier(+1, "WC adjacent to a non-routed enemy unit", "TACW §4.4.4"))
    if wc.no_continue:
        mods.append(Modifier(+1, "WC has a No Continue marker", "TACW §4.4.4"))
    mods += _command_mods(sc, st, wing, "TACW §4.4.4")
    from engine.tacw.battles.marston_moor import roll_modifiers    # Marston Moor: surprise
    mods += roll_modifiers(sc, st, side, "bypass")
    target = tables.bypass_target(wing.order)
    roll = d10(stream, "bypass")
    total = roll + sum(m.value for m in mods)
    ok = target is not None and total <= target
    bypassed = st.wings[act.wing]
    ev = Event("bypass", side, "TACW §4.4.2",
               f"{wing.name} attempts to bypass {bypassed.name}: {roll}"
               + "".join(f" {m.value:+d}" for m in mods) + f" = {total} vs 0-{target} -> "
               + ("success" if ok else "failure"),
               base=roll, modifiers=mods, dice=[DieRoll("bypass", "d10", roll)],
               table="Bypass table", row=ORDER_NAMES[wing.order], outcome={"success": ok})
    if not ok:
        if wc.no_continue:
            wc.finished = True
            wing.done = True
            ev.narrative += (f"; {wc.name} already had No Continue: he is Finished, his wing acts no more "
                             "this turn")
        else:
            wc.no_continue = True
            ev.narrative += f"; {wc.name} gets a No Continue marker"
        return [ev]
    events = [ev]
    if pend.get("continuation"):
        # §4.4.3: the continuation is cancelled and the bypassed WC is Finished.
        bw = wc_of(st, bypassed)
        if bw is not None:
            bw.finished = True
        bypassed.done = True
        events.append(Event("bypass", side, "TACW §4.4.3", f"{bypassed.name}'s continuation is cancelled; "
                            "its commander is Finished: the wing acts no more this turn"))
        events += start_activation(st, wing, bypassing=True)
    else:
        bypassed.bypassed = True
        bypassed.activations -= 1
        events += start_activation(st, wing, bypassing=True, resume=bypassed.id)
    return events


def change_order(sc, st: TacwState, side: str, new_order: str, stream: DiceStream) -> list[Event]:
    """§5.7: in step B, before any unit acts, the wing may try to change its orders."""
    from engine.tacw import tables
    from engine.tacw.geometry import leader_next_to_enemy
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("only the active wing may change its orders", "TACW §5.7")
    if act.step != "order_change" or act.acted or act.order_change_tried:
        raise Illegal("orders change only in step B, once, before any unit acts", "TACW §5.7.1")
    if new_order not in ORDERS:
        raise Illegal(f"'{new_order}' is not an order (charge, make_ready, receive_charge, rally)", "TACW §5.5")
    wing = st.wings[act.wing]
    if new_order == wing.order:
        raise Illegal(f"{wing.name} is already on {ORDER_NAMES[new_order]}", "TACW §5.7")
    target = tables.order_change_target(wing.order, new_order)
    if target is None:
        raise Illegal(f"{ORDER_NAMES[wing.order]} cannot change to {ORDER_NAMES[new_order]} "
                      "(Order Change table: '-')", "TACW §5.7")
    wc = wc_of(st, wing)
    mods = _command_mods(sc, st, wing, "TACW §5.7.3")
    if leader_next_to_enemy(sc, st, wc):
        mods.append(Modifier(+1, "WC adjacent to a non-routed enemy unit", "TACW §5.7.3"))
    if wing.cavalry and new_order == "charge":
        mods.append(Modifier(-1, "cavalry wing changing to Charge", "TACW §5.7.3"))
    if wing.cavalry and new_order == "receive_charge":
        mods.append(Modifier(+1, "cavalry wing changing to Receive Charge", "TACW §5.7.3"))
    if new_order == "rally":
        units = [u for u in st.units.values() if u.wing == wing.id]
        bad = [u for u in units if not u.alive or u.morale_state != "normal"]
        if units and len(bad) * 2 > len(units):
            mods.append(Modifier(-2, "changing to Rally with over half the wing shaken, broken or gone",
                                 "TACW §5.7.3"))
    from engine.tacw.battles.marston_moor import roll_modifiers    # the scenario's modifiers
    mods += roll_modifiers(sc, st, side, "order_change")
    roll = d10(stream, "order change")
    total = roll + sum(m.value for m in mods)
    ok = total <= target
    act.order_change_tried = True
    old = wing.order
    if ok:
        wing.order = new_order
    act.step = "actions"
    return [Event("order_change", side, "TACW §5.7",
                  f"{wing.name} tries {ORDER_NAMES[old]} -> {ORDER_NAMES[new_order]}: {roll}"
                  + "".join(f" {m.value:+d}" for m in mods) + f" = {total} vs 0-{target} -> "
                  + (f"now on {ORDER_NAMES[new_order]}" if ok else f"stays on {ORDER_NAMES[old]}"),
                  base=roll, modifiers=mods, dice=[DieRoll("order change", "d10", roll)],
                  table="Order Change table", row=f"{ORDER_NAMES[old]} -> {ORDER_NAMES[new_order]}",
                  outcome={"success": ok, "order": wing.order})]


def attempt_continuation(sc, st: TacwState, side: str, stream: DiceStream) -> list[Event]:
    """§4.3: a wing not on Rally may try to activate again, at most twice."""
    from engine.tacw import tables
    from engine.tacw.geometry import leader_next_to_enemy
    act = st.activation
    wing = st.wings[act.wing]
    wc = wc_of(st, wing)
    if wing.order == "rally":
        raise Illegal("a wing on Rally orders may not continue", "TACW §4.3.1")
    if act.number >= 3:
        raise Illegal(f"{wing.name} has continued twice already", "TACW §4.3.1")
    if wc is None:
        raise Illegal("the wing has no commander", "TACW §5.3.2")
    if wc.no_continue:
        raise Illegal(f"{wc.name} has a No Continue marker", "TACW §4.4.2")
    mods = []
    if wing.cavalry:
        mods.append(Modifier(-1, "cavalry wing", "TACW §4.3.3"))
    if act.number == 2:
        mods.append(Modifier(+1, "second continuation attempt", "TACW §4.3.3"))
    mods += _command_mods(sc, st, wing, "TACW §4.3.3")
    if leader_next_to_enemy(sc, st, wc):
        mods.append(Modifier(+1, "WC adjacent to an enemy unit (Continuation table)", "TACW §4.3 table"))
    from engine.tacw.battles.marston_moor import roll_modifiers    # Marston Moor: surprise
    mods += roll_modifiers(sc, st, side, "continuation")
    target = tables.continuation_target(wing.order)
    roll = d10(stream, "continuation")
    total = roll + sum(m.value for m in mods)
    ok = total <= target
    ev = Event("continuation", side, "TACW §4.3",
               f"{wing.name} tries to continue: {roll}" + "".join(f" {m.value:+d}" for m in mods)
               + f" = {total} vs 0-{target} -> " + ("it activates again" if ok else
                                                    f"it fails: {wc.name} is Finished, the wing acts no more this turn"),
               base=roll, modifiers=mods, dice=[DieRoll("continuation", "d10", roll)],
               table="Continuation table", row=ORDER_NAMES[wing.order], outcome={"success": ok})
    if not ok:
        wc.finished = True
        return [ev] + end_activation(sc, st, stream)
    act.number += 1
    wing.activations += 1
    act.step = "order_change"
    act.acted, act.moved, act.straight = [], {}, {}
    act.ac_acted = act.wc_acted = act.order_change_tried = False
    return [ev] + open_bypass_window(st, continuation=True)


def end_activation(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """§3.2 step F: the bypassed wing (if any) activates now from step B; otherwise precedence
    picks the next side to activate."""
    act = st.activation
    wing = st.wings[act.wing]
    wing.done = True
    st.activation = None
    events = [Event("end_activation", act.side, "TACW §3.2 F", f"{wing.name} ends its activation")]
    if act.resume_wing:
        waiting = st.wings[act.resume_wing]
        waiting.bypassed = False
        events += start_activation(st, waiting, resumed=True)   # not a new activation
        st.activation.step = "order_change"      # no bypass window: a bypassed wing is not bypassed again
        return events
    return events + advance(sc, st, stream)


def battle_rules_between_commands(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """The battles' special rules checked after every command: Marston Moor's reserve follows
    whoever commands the army (D122), Naseby's wagon is captured between activations (D115),
    Marston Moor's command rivalry rolls when an Allied wing activates (special rule 1)."""
    if special_of(sc) is EMPTY or st.phase not in ("activation", "initiative"):
        return []
    from engine.tacw.battles import marston_moor, naseby
    events = marston_moor.follow_army_commander(sc, st)
    if st.activation is None:
        events += naseby.wagon_captures(sc, st)
    return events + marston_moor.rivalry_roll(sc, st, stream)


def advance(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """Walk the sequence until a player must decide something."""
    from engine.tacw.sequence.endturn import end_of_activation_phase
    # the battles' special rules: a wing commanded by the AC following the army's commander,
    # wagons captured between activations, rival Army Commanders' roll at each activation
    events: list[Event] = battle_rules_between_commands(sc, st, stream)
    # Second Newbury: its turn limit and boat bridge (the scenario as this game plays it), the
    # return rolls of Northampton and Douglas, the victory hexes' last occupants
    from engine.tacw.battles.second_newbury import between_commands, scenario_view
    sc = scenario_view(sc, st)
    events += between_commands(sc, st, stream)
    if st.phase == "initiative":
        events += determine_initiative(st, stream)
    if st.phase != "activation" or st.activation is not None or st.pending:
        return events
    side, tier = next_to_activate(st)
    if side is None or st.passes >= 2:
        return events + end_of_activation_phase(sc, st, stream)
    st.phasing = side
    return events


def activate(st: TacwState, side: str, wing_id: str) -> list[Event]:
    """§3.2: the phasing player activates a wing of the tier precedence requires."""
    if st.phase != "activation" or st.activation is not None:
        raise Illegal("a wing is already active", "TACW §3.2")
    if side != st.phasing:
        raise Illegal(f"{st.phasing.title()} is the phasing player", "TACW §3.2")
    wing = st.wings.get(wing_id)
    if wing is None or wing.side != side:
        from engine.tacw.ids import unknown_wing
        raise Illegal(unknown_wing(st, wing_id, side), "TACW §3.2")
    eligible = eligible_wings(st, side)
    if wing not in eligible:
        raise Illegal(f"{wing.name} cannot activate this turn (done, Finished or without its commander)",
                      "TACW §3.2 / §5.3.2")
    _, tier = next_to_activate(st)
    if PRECEDENCE[wing.order] != tier:
        names = ", ".join(w.id for w in eligible if PRECEDENCE[w.order] == tier)
        raise Illegal(f"wings on {ORDERS[tier - 1].replace('_', ' ').title()} activate first: {names}",
                      "TACW §4.2.2")
    events = start_activation(st, wing)
    return events + open_bypass_window(st)


def pass_turn(sc, st: TacwState, side: str, stream: DiceStream) -> list[Event]:
    """Glossary 'Passing': the phasing player declines to activate; the opponent becomes the
    phasing player; two passes in a row end the Activation Phase. A player whose next wing is on
    Charge may not pass (§5.6.1).

    HERALD: a pass activates nothing and does not spend the wing: it may activate after a later
    pass by the opponent breaks the run."""
    if st.phase != "activation" or st.activation is not None:
        raise Illegal("you may pass only instead of activating a wing", "TACW §3.2")
    if side != st.phasing:
        raise Illegal(f"{st.phasing.title()} is the phasing player", "TACW §3.2")
    mine = eligible_wings(st, side)
    _, tier = next_to_activate(st)
    if any(w.order == "charge" and PRECEDENCE[w.order] == tier for w in mine):
        raise Illegal("a wing on Charge orders may not pass", "TACW §5.6.1")
    st.passes += 1
    st.phasing = st.other(side)
    st.last_activator = side
    events = [Event("pass", side, "TACW §3.2", f"{side.title()} passes")]
    if st.passes >= 2 or not eligible_wings(st, st.phasing):
        from engine.tacw.sequence.endturn import end_of_activation_phase
        if st.passes >= 2 or not mine:
            return events + end_of_activation_phase(sc, st, stream)
    return events
