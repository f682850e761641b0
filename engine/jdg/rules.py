"""Jours de Gloire command dispatcher: `apply(scenario, state, side, command) -> (state, events)`.

Pure (DESIGN principle 1): `engine.core.game.run_command` copies the state, the handler runs the
rule on the copy with dice from the recorded stream, and the sequence of play then walks on by
itself (`sequence.advance`) until a player must act or decide.

How the package is laid out, after the rulebook's parts (paragraph numbers are the text's own):

- `sequence/`  the turn [1] A-F: secret orders [2.3], combined markers [2.1], the strategic
               initiative [3], the cup and the draws [1.C-D, 2.2], the commander's initiative [2.4],
               the activation's steps [1.D], the rout phase [1.E, 10.4], the end of turn [1.F],
               reinforcements, night [12], demoralisation (optional 11) and victory [13].
- `movement/`  movement [4] (MP, terrain, forced march, roads), squares [4.2], stacking [5],
               zones of control [6], the commander-in-chief's move [2.5].
- `fire/`      artillery fire [7]: line of sight, range, point-blank, combined fire, reaction fire
               [8.3] and counter-battery [7.6].
- `combat/`    assaults [8] (declared: assault.py; resolved: resolution.py; the roll on the
               table and its results: assault_table.py) and charges [9] (charge.py) on the
               Assault & Charge table, engagement checks, results [10] (results.py), fall back,
               retreat and rout moves [10.3-10.4] (retreat.py), breakthrough and counter-assault
               [8.7] (advance.py), refusal [8.8] (refusal.py), recall, counter-charge and pursuit
               [9.3-9.5].
- `morale/`    rally [11].

Each module registers its verbs here with `register(verb, handler, usage)`; a handler is
`handler(sc, st, side, cmd, stream) -> list[Event]` and raises `Illegal(reason, section)` to refuse
(the state is a copy: a refusal leaves the game untouched). A module that stops the game for the
other player's answer sets `st.pending = {"kind", "side", "options", "section", ...}` and
registers the answer's resumer with `register_reaction(kind, resume)`; `resume(sc, st, side,
answer, more, stream) -> list[Event]` is called by the `react` verb (or by the answering side's
standing policy, `policy_answer`).
"""
from __future__ import annotations

from typing import Callable

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal, once_cited
from engine.core.events import Event
from engine.core.game import run_command
from engine.core.pending import answer_pending, decision_event
from engine.core.verbs import refuse_extra_words, set_policy

from engine.jdg.state import ACTIVATION_STEPS, SIDES, JdgState
from engine.jdg.verbs import COMMANDS, POLICIES

Handler = Callable[..., list[Event]]

HANDLERS: dict[str, Handler] = {}
USAGE: dict[str, str] = {}
REACTIONS: dict[str, Handler] = {}
ANY_TIME = {"policy", "resign", "units", "formations", "cup"}
POLICY_DEFAULTS = {p.key: p.default for p in POLICIES}


def register(verb: str, handler: Handler, usage: str) -> None:
    """A rule module's verb (movement, fire, assault...): `handler(sc, st, side, cmd, stream)`."""
    HANDLERS[verb] = handler
    USAGE[verb] = usage


def register_reaction(kind: str, resume: Handler) -> None:
    """The resumer of a pending decision of `kind`: `resume(sc, st, side, answer, more, stream)`."""
    REACTIONS[kind] = resume


def policy(st: JdgState, side: str, key: str) -> str:
    """A side's standing answer (verbs.POLICIES), or its default."""
    return (st.policies.get(side) or {}).get(key, POLICY_DEFAULTS.get(key, "ask"))


# -- guards every handler shares ------------------------------------------------------------------

def need_not_over(st: JdgState) -> None:
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}", "JdG [13]")


def need_no_pending(st: JdgState, side: str) -> None:
    """Nothing else may happen while a decision is owed (DESIGN: pending decisions)."""
    p = st.pending
    if p:
        who = p["side"].title()
        raise Illegal(f"waiting for {who}: {p.get('prompt', p['kind'].replace('_', ' '))} "
                      f"(answer with `react {'|'.join(p.get('options', []))}`)", p.get("section", "JdG [1] D"))


# What a unit's action or `next` meets when no formation is active, by phase of the turn [1].
NO_ACTIVATION = {
    "orders": "phase A: the orders come first (`orders <formation> ...`, or `orders none`); no formation acts yet",
    "initiative": "phase B: the strategic initiative's winner plays `first <marker>` or `first none` before any "
                  "formation acts",
    "cup": "phase C: the markers go into the cup; then `draw`",
    "rout": "phase E: the routed units move by themselves; no formation is active",
    "end": "phase F, the end of the turn: no formation is active",
}


def need_active(st: JdgState, side: str) -> None:
    """An action of the active formation, by its owner [1.D]."""
    act = st.activation
    if st.phase not in ("activation", "reserve") or act is None:
        raise Illegal(NO_ACTIVATION.get(st.phase, "no formation is active: `draw` a marker from the cup first"),
                      "JdG [1]")
    if act.side != side:
        raise Illegal(f"the active formation is {act.side.title()}'s ({', '.join(act.formations)})", "JdG [1] D")
    need_no_pending(st, side)


STEP_GUARDS: dict[str, list[Callable]] = {}


def register_step_guard(step: str, guard: Callable) -> None:
    """`guard(sc, st) -> str`: why the activation may not leave `step` yet ("" when it may), e.g.
    artillery that must still fire [7.2], assaults declared and not resolved [8.5]."""
    STEP_GUARDS.setdefault(step, []).append(guard)


def enter_step(st: JdgState, step: str, section: str = "JdG [1] D, [2.4]", sc=None) -> None:
    """The activation's steps come in a strict order [1.D, 2.4]: fire, movement, assault and
    charge, rally. An action of a later step closes the earlier ones, unless a step still owes
    something (its guards: artillery obliged to fire [7.2] HERALD D33, declared assaults and
    charges not yet resolved [8.5] HERALD D16); one of an earlier step than the current one is
    refused."""
    act = st.activation
    order = ACTIVATION_STEPS
    if order.index(step) < order.index(act.step):
        raise Illegal(f"the {act.step} step has begun: the {step} step is over for this activation "
                      f"(fire, movement, assault and charge, rally, in that order)", section)
    if sc is not None:
        for passed in order[order.index(act.step):order.index(step)]:
            for guard in STEP_GUARDS.get(passed, []):
                reason = guard(sc, st)
                if reason:
                    raise Illegal(reason, section)
    act.step = step


def unit_of(st: JdgState, token: str, side: str | None = None):
    """A unit by id or by hex (the top unit there); refuses with the ids when unknown."""
    from engine.core.ids import unknown
    u = st.units.get(token)
    if u is None:
        stack = st.units_at(token)
        if side is not None:
            stack = [x for x in stack if x.side == side]
        if stack:
            u = stack[0]
    if u is None or not u.alive:
        pairs = [(x.id, x.hex or "") for x in st.units.values() if x.alive and (side is None or x.side == side)]
        raise Illegal(unknown(token, "one of your units" if side else "a unit on the map", pairs, query="units"),
                      "JdG [0.3]")
    if side is not None and u.side != side:
        raise Illegal(f"{u.id} is not yours", "JdG [0.3]")
    return u


# -- the answers to pending decisions ---------------------------------------------------------------

def do_react(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    resume, answer, more = answer_pending(st.pending, side, list(cmd.args), REACTIONS, "JdG [1] D")
    return resume(sc, st, side, answer, more, stream)


def do_policy(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    return [set_policy(POLICIES, st, side, list(cmd.args))]


def do_resign(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    need_not_over(st)
    st.winner = st.other(side)
    st.result = f"{side.title()} resigns; {st.winner.title()} wins"
    st.phase = "over"
    st.pending = None
    st.activation = None
    return [Event("resign", side, "JdG [13]", st.result)]


register("react", do_react, "react <answer> [more]: answer a reaction (JdG [7.6], [8.3], [8.8], [9.3]-[9.5])")
register("policy", do_policy, "policy <kind> <value>: your standing answers to reactions")
register("resign", do_resign, "resign: concede the battle")

ACTION_MODULES = ("sequence.turn", "movement.move", "fire.artillery", "combat.assault", "combat.resolution",
                  "combat.retreat", "morale.rally", "ids")
_loaded = False


def load_action_modules() -> None:
    """Each rule module registers its verbs when imported."""
    global _loaded
    if _loaded:
        return
    import importlib
    for name in ACTION_MODULES:
        importlib.import_module(f"engine.jdg.{name}")
    _loaded = True


def advance(sc, st: JdgState, stream: DiceStream) -> list[Event]:
    """Walk the sequence on by itself (sequence/turn.py) once a command is done."""
    from engine.jdg.sequence.turn import advance as walk
    return walk(sc, st, stream)


def apply(sc, state: JdgState, side: str, cmd: Command) -> tuple[JdgState, list[Event]]:
    try:
        return _apply(sc, state, side, cmd)
    except Illegal as e:
        raise once_cited(e) from None


def _apply(sc, state: JdgState, side: str, cmd: Command) -> tuple[JdgState, list[Event]]:
    load_action_modules()
    if side not in SIDES:
        raise Illegal(f"'{side}' is not a side of this battle ({', '.join(SIDES)})")
    handler = HANDLERS.get(cmd.verb)
    if handler is None:
        raise CannotParse(f"unknown command '{cmd.verb}'; Jours de Gloire commands: {', '.join(sorted(HANDLERS))}")
    refuse_extra_words(COMMANDS, cmd.verb, cmd.args)
    if cmd.verb not in ANY_TIME:
        need_not_over(state)
        if cmd.verb != "react" and state.pending and state.pending["side"] != side:
            need_no_pending(state, side)

    before = state.pending

    def body(st: JdgState, stream: DiceStream) -> list[Event]:
        events = handler(sc, st, side, cmd, stream)
        if st.phase != "over":
            events += advance(sc, st, stream)
        if st.pending and st.pending != before:
            events.append(decision_event(st.pending, "JdG [1] D"))
        return events

    return run_command(state, cmd, body)


def start(sc, st: JdgState) -> tuple[JdgState, list[Event]]:
    """Walk the opening of the battle right after setup."""
    load_action_modules()
    st = st.copy()
    stream = DiceStream(st.seed, st.draws)
    events = advance(sc, st, stream)
    st.draws = stream.draws
    return st, events
