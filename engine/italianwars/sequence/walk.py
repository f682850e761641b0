"""The walk of the game (IW Sequenza di gioco): Herald carries the sequence on by itself after every
command until a player must act or decide.

Before the battle (IW Prima della battaglia 1-9, sequence/prebattle.py) each step either passes by
itself (a scenario fixed it, or Herald rolled it) or waits for the players. Then turn after turn
(IW Sequenza di mossa): 1 the command phase (not on turn 1: the orders written before the battle
stand, IW Interpretazione degli ordini) waits for both players' `keep`, then the interpretation
tests are rolled (sequence/command.py); 2 the actions: battles activated one at a time, the
attacker first (sequence/activation.py); 3 rout, 4 pursuit, 5 reorganisation: Herald runs what
the completion modules registered for them (rules.register_step); 6 the end of the turn: army
break, the clock (sequence/endturn.py).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import Event

from engine.italianwars import rules
from engine.italianwars.state import SIDES, IWState

MAX_STEPS = 500
LATE_PHASES = ("rout", "pursuit", "reorganisation")
LATE_SECTIONS = {"rout": "IW Sequenza di mossa 3", "pursuit": "IW Sequenza di mossa 4",
                 "reorganisation": "IW Sequenza di mossa 5"}


def advance(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """Walk on until a player must act or decide, or the battle is over."""
    from engine.italianwars.sequence import activation, command, endturn, prebattle
    waiting = {"prebattle": prebattle.step, "command": command.step, "actions": activation.step}
    events: list[Event] = []
    for _ in range(MAX_STEPS):
        if st.phase == "over" or st.pending:
            break
        if st.phase in waiting:             # phases where a player may have to act: (events, wait)
            more, wait = waiting[st.phase](sc, st, stream)
            events += more
            if wait:
                break
        elif st.phase in LATE_PHASES:
            events += late_phase(sc, st, stream)
        elif st.phase == "end":
            events += endturn.end_of_turn(sc, st, stream)
        else:
            break
    return events


def late_phase(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """Phases 3-5 (rout, pursuit, reorganisation): both players' companies move or rally by the
    completion's rules, all by Herald (rules.register_step(phase, run=...)); then the next phase."""
    phase = st.phase
    events: list[Event] = []
    for run in rules.STEP_RUNS.get(phase, []):
        events += list(run(sc, st, stream) or [])
        if st.pending or st.phase == "over":
            return events
    st.phase = {"rout": "pursuit", "pursuit": "reorganisation", "reorganisation": "end"}[phase]
    return events


def to_act(st: IWState) -> str | None:
    """Who must act now (see ruleset.to_act)."""
    if st.phase == "over":
        return None
    if st.pending:
        return st.pending["side"]
    if st.phase == "prebattle":
        from engine.italianwars.sequence.prebattle import to_act as pre
        return pre(st)
    if st.phase == "command":
        for side in sides_in_order(st):
            if side not in st.done:
                return side
        return None
    if st.phase == "actions":
        from engine.italianwars.sequence.activation import acting_side
        return acting_side(st)
    return None


def sides_in_order(st: IWState) -> list[str]:
    """The attacker first, then the defender (the sides' order before the attacker is known)."""
    if st.attacker in SIDES:
        return [st.attacker, st.other(st.attacker)]
    return list(SIDES)
