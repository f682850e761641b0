"""Phases E and F: rout [1.E], [10.4], demoralisation (optional 11), the end of the turn [1.F],
night [12], the commanders-in-chief leaving or lost [2.5], Marengo section D 2.1, victory [13].

[1.E] L107: the players move their routed units their whole movement capacity toward the exit
(the rout move itself is the combat module's, `engine.jdg.combat.retreat.rout_movement`); HERALD
D60: the side with the strategic initiative moves all its routed units first, then the other (no
initiative: the scenario's first side); each side's in the state's order of units.
Optional 11 L890-895 (HERALD D69): formations' demoralisation is checked in phase E, after the rout
moves, from the turn a formation has no reinforcements left to enter.
[1.F] L111: the victory conditions are checked, the turn marker advances, the With/Without Orders
markers are removed (HERALD D11: statuses never revealed are published now).
"""
from __future__ import annotations

from fractions import Fraction

from engine.core.dice import DiceStream
from engine.core.events import Event

from engine.jdg import tables
from engine.jdg.sequence.command import chief_lost, successor_id
from engine.jdg.sequence.victory import check_victory
from engine.jdg.setup import has_option
from engine.jdg.state import SIDES, Commander, JdgState


def rout_order(st: JdgState) -> list[str]:
    """HERALD D60: the initiative side's routed units first."""
    first = st.initiative or SIDES[0]
    return [first, st.other(first)]


def rout_phase(sc, st: JdgState, stream: DiceStream) -> list[Event]:
    """Phase E [1.E], [10.4]: every routed unit makes its rout move (combat/retreat.py), then the
    formations' demoralisation (optional 11)."""
    events = [Event("phase", "both", "JdG [1] E", f"Turn {st.turn}, phase E: rout movement")]
    from engine.jdg.combat.retreat import rout_movement
    for side in rout_order(st):
        routed = [u.id for u in st.units.values() if u.side == side and u.alive and u.condition == "routed"]
        for uid in routed:
            u = st.units[uid]
            if u.alive and u.condition == "routed":       # an earlier move may have changed it
                events += rout_movement(sc, st, u, stream) or []
    if has_option(st, "demoralisation"):
        events += demoralisation(sc, st)
    return events


def demoralisation(sc, st: JdgState) -> list[Event]:
    """Optional 11 L890-895 (HERALD D69): a formation with no reinforcements left to enter whose
    infantry and cavalry units that have entered the map are routed or eliminated in a proportion
    of 2/3 or more (1/2 for a formation of cavalry only) is demoralised: every other unit is
    disordered at once (a disordered one routs; artillery that would rout is eliminated, [10.2]
    L708), and its units never return to good order."""
    events = []
    ratio_all = tables.RULE_NUMBERS["demoralisation_ratio"][0]
    ratio_cav = tables.RULE_NUMBERS["demoralisation_ratio_cavalry_only"][0]
    for f in sc.formations:
        fs = st.formations[f.id]
        units = [st.units[u.id] for u in sc.units_of(f.id)]
        if fs.demoralised or any(u.status in ("waiting", "entering") for u in units):
            continue
        fighting = [u for u in units if u.arm in ("infantry", "cavalry") and u.status in ("active", "eliminated")]
        if not fighting:
            continue
        lost = [u for u in fighting if u.status == "eliminated" or u.condition == "routed"]
        ratio = ratio_cav if all(u.arm == "cavalry" for u in units) else ratio_all
        if Fraction(len(lost), len(fighting)) < ratio:
            continue
        fs.demoralised = True
        hit = []
        for u in units:
            u.demoralised = True
            if not u.alive or u.condition == "routed" or u in lost:
                continue
            if u.condition == "good":
                u.condition = "disordered"
            elif u.arm == "artillery":
                u.status, u.hex = "eliminated", None
            else:
                u.condition = "routed"
            hit.append(f"{sc.unit(u.id).name} `{u.id}` {u.condition if u.alive else 'eliminated'}")
        events.append(Event("demoralisation", f.side, "JdG opt. [11]",
                            f"{f.name} is demoralised ({len(lost)} of {len(fighting)} infantry and cavalry units "
                            f"routed or eliminated, at least {ratio}): " + ("; ".join(hit) or "no other unit")
                            + "; its units never return to good order",
                            outcome={"formation": f.id, "lost": len(lost), "of": len(fighting)}))
    return events


def publish_orders(sc, st: JdgState) -> list[Event]:
    """HERALD D11: the statuses never revealed in the turn, of the formations on the map, are shown
    when the markers come off."""
    hidden = [f for f in sc.formations if not st.formations[f.id].revealed and st.formations[f.id].orders
              and st.formation_units(f.id)]
    if not hidden:
        return []
    text = "; ".join(f"{f.name} {'With' if st.formations[f.id].orders == 'with' else 'Without'} Orders"
                     for f in hidden)
    return [Event("orders_revealed", "both", "JdG [1] F, [2.3]",
                  f"Orders never revealed this turn: {text}",
                  outcome={"orders": {f.id: st.formations[f.id].orders for f in hidden}})]


def commanders_leave(sc, st: JdgState) -> list[Event]:
    """Marengo section D 2.1 (scenario `leaves_turn`, HERALD D71, D81): a commander-in-chief leaves
    the battle at the end of that turn; his successor takes over his counter in the same hex, with
    his own values. Leaving is not a loss: no formation is Without Orders for good."""
    events = []
    for c in sc.commanders:
        cs = st.commanders.get(c.id)
        if cs is None or cs.status != "active" or c.leaves_turn != st.turn:
            continue
        cs.status = "left"
        hex_, cs.hex = cs.hex, None
        text = f"{c.name} leaves the battle at the end of turn {st.turn}"
        if c.successor is not None:
            sid = successor_id(c)
            st.commanders[sid] = Commander(id=sid, side=c.side, hex=hex_)
            s = c.successor
            text += (f"; {s.name} succeeds him in {hex_} (modifier {s.modifier}, {s.order_potential} orders, "
                     f"radius {s.command_radius})")
        events.append(Event("commander_leaves", c.side, "JdG [2.5], Marengo D 2.1", text,
                            outcome={"commander": c.id, "successor": successor_id(c) if c.successor else None}))
    return events


def army_without_chief(sc, st: JdgState) -> list[Event]:
    """[2.5] L195 (HERALD D19): once a side's commander-in-chief is eliminated, all its
    formations are Without Orders until the end of the battle."""
    events = []
    for side in SIDES:
        if not chief_lost(st, side):
            continue
        newly = [f for f in st.formations.values() if f.side == side and not f.without_orders_for_good]
        for f in newly:
            f.without_orders_for_good = True
            f.initiative_success = False
        if newly:
            events.append(Event("without_chief", side, "JdG [2.5]",
                                f"{side.title()}'s commander-in-chief is lost: every {side.title()} formation "
                                "is Without Orders until the end of the battle"))
    return events


def end_of_turn(sc, st: JdgState) -> list[Event]:
    """Phase F [1.F] (HERALD D81's order): orders published, victory checked [13], the chief
    leaving (Marengo), the markers removed and the turn marker advanced; the night turns announced [12]."""
    events = [Event("phase", "both", "JdG [1] F", f"Turn {st.turn}, phase F: end of turn")]
    events += publish_orders(sc, st)
    events += check_victory(sc, st, last_turn=st.turn >= sc.turns.count)
    if st.phase == "over":
        return events
    events += commanders_leave(sc, st)
    for f in st.formations.values():
        f.orders = ""
        f.revealed = False
        f.initiative_success = False
        f.activations = 0
        f.groups = []                   # tactical groups are fixed anew each phase A (optional 2.3)
    for c in st.commanders.values():
        c.moved = False
    st.orders_done = []
    st.initiative = ""
    st.chosen_marker = ""
    st.cup = [m for m in st.cup if st.markers[m].kind == "combined"]   # none: the last chit is set aside
    st.set_aside = []
    st.drawer = ""
    st.turn += 1
    st.phase = "orders"
    night = sc.turns.is_night(st.turn)
    text = f"Turn {st.turn} of {sc.turns.count} begins, {sc.turns.time_of(st.turn)}"
    if night:
        text += ": a night turn (no charges, no forced march but reinforcements, artillery point-blank only, " \
                "every cohesion check +2) [12]"
    events.append(Event("turn", "both", "JdG [1] F" + (", [12]" if night else ""),
                        text + ". Phase A: each side gives its orders (`orders`)",
                        outcome={"turn": st.turn, "night": night}))
    return events
