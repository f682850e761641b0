"""The turn of Jours de Gloire "Classique" [1] A-F, walked on by itself (rules.py calls `advance`
after every command) until a player must act:

    A orders [2.3]                  both sides, in either order: `orders`, `combined` (orders.py)
    B strategic initiative [3]      rolled when both have given orders; the winner: `first`
                                    (initiative.py)
    C the cup [1.C]                 filled by Herald (cup.py)
    D activations [1.D], [2.2]      `draw`, `initiative`, the actions, `next` (activation.py)
    D bis reserve (optional 1)      `reserve <formation|none>`, the initiative side first, then an
                                    activation Without Orders (reserve.py)
    E rout [1.E], [10.4]            Herald moves the routed units (endturn.py)
    F end of turn [1.F], [13]       victory, the turn marker, a new turn from A (endturn.py, victory.py)

What other modules read here:
    is_night(sc, st) -> bool                      [12]: the turn is a night turn
    advance(sc, st, stream) -> list[Event]        the walk (rules.advance)
    on_step_end(step, fn)                         activation.py: a hook when a step ends
    command.with_orders / may_act / may_rally     command.py: who acts, With Orders or not
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import Event

from engine.jdg import rules
from engine.jdg.combat.results import is_night  # noqa: F401  (the turn's contract: night [12])
from engine.jdg.movement.commander import commander_contact
from engine.jdg.sequence import activation, endturn, initiative, orders, reserve
from engine.jdg.sequence.activation import on_step_end  # noqa: F401  (re-exported for other modules)
from engine.jdg.sequence.cup import fill_cup
from engine.jdg.sequence.victory import update_holders
from engine.jdg.state import SIDES, JdgState


def to_act(st: JdgState) -> str | None:
    """Who must act now (the ruleset's `to_act`): the side owing a decision, the side still to
    give its orders (phase A, both in either order), the initiative winner's pick, the active
    side, or the side to draw."""
    if st.phase == "over":
        return None
    if st.pending:
        return st.pending["side"]
    if st.phase == "orders":
        return next((s for s in SIDES if s not in st.orders_done), None)
    if st.phase == "initiative":
        return st.initiative or None
    if st.activation is not None:
        return st.activation.side
    if st.phase == "reserve":
        return reserve.chooser(st)
    if st.phase == "activation":
        return st.drawer or activation.first_drawer(st)
    return None


def advance(sc, st: JdgState, stream: DiceStream) -> list[Event]:
    """Walk the turn [1] on until a player must act or decide (DESIGN: pure, dice from `stream`)."""
    events: list[Event] = []
    for _ in range(200):                    # a turn never needs more than a few steps
        update_holders(sc, st)
        events += reserve.after_moves(sc, st, stream)
        events += commander_contact(sc, st)
        events += endturn.army_without_chief(sc, st)
        if st.phase == "over" or st.pending:
            return events
        if st.phase == "orders":
            events += orders.auto_orders(sc, st)
            if not all(s in st.orders_done for s in SIDES):
                return events
            st.phase = "initiative"
            events += initiative.roll_strategic_initiative(sc, st, stream)
            if st.initiative:
                return events               # the winner picks: `first`
            st.phase = "cup"
        elif st.phase == "initiative":
            if st.initiative and not st.chosen_marker:
                return events
            st.phase = "cup"
        elif st.phase == "cup":
            events += fill_cup(sc, st)
            st.phase = "activation"
            st.drawer = activation.first_drawer(st)
            if st.chosen_marker:
                events += activation.start_activation(sc, st, st.chosen_marker, "picked with the strategic initiative")
        elif st.phase == "activation":
            if st.activation is not None or len(st.cup) >= 2:
                return events
            events += activation.end_of_phase_d(sc, st)
            st.phase = "reserve" if reserve.enabled(st) else "rout"
        elif st.phase == "reserve":
            more, wait = reserve.walk(sc, st)
            events += more
            if wait:
                return events
        elif st.phase == "rout":
            events += endturn.rout_phase(sc, st, stream)
            st.phase = "end"
        elif st.phase == "end":
            events += endturn.end_of_turn(sc, st)
        else:
            return events
    return events


rules.register("orders", orders.do_orders,
               "orders [formation...]: your secret orders for the turn (JdG [1] A, [2.3])")
rules.register("combined", orders.do_combined,
               "combined <marker|none>: a combined marker for the cup, in secret (JdG [2.1], Marengo D 2.1)")
rules.register("first", initiative.do_first,
               "first <marker|formation|none>: with the strategic initiative, the marker that starts the turn (JdG [3])")
rules.register("draw", activation.do_draw, "draw: draw a marker from the cup (JdG [1] D, [2.2])")
rules.register("initiative", activation.do_initiative,
               "initiative: a Without-Orders formation tries its commander's initiative (JdG [2.4])")
rules.register("next", activation.do_next,
               "next: end the active formation's step (fire, movement, combat, rally), then its activation (JdG [1] D.3)")
