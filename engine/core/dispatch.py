"""The command dispatcher the open-table rulesets share (Lion of the North, the Italian Wars):
`dispatch(sc, state, side, cmd, rules, ...)` checks the side and the verb, refuses extra words,
refuses a command while the game is over or another decision is owed, then runs the verb's
handler on a copy of the state (`engine.core.game.run_command`), lets the sequence walk on by
itself, logs a decision the command left owed, and gives the state's JSON-kept records their
round trip so a game equals its own replay (DESIGN principle 1).

`rules` is the ruleset's rules module: it provides SIDES, HANDLERS, COMMANDS, ANY_TIME,
load_action_modules, need_not_over, need_no_pending and advance."""
from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from engine.core.commands import Command
from engine.core.dice import WHAT_IF, DiceStream
from engine.core.errors import CannotParse, Illegal, once_cited
from engine.core.events import Event
from engine.core.game import run_command
from engine.core.pending import decision_event
from engine.core.verbs import refuse_extra_words


def dispatch(sc, state: Any, side: str, cmd: Command, rules: ModuleType, *, name: str, section: str,
             kept: tuple[str, ...] = ("last_action",), walk_in_what_if: bool = True) -> tuple[Any, list[Event]]:
    """Apply `cmd` for `side`: (the new state, its events), or a cited refusal. `name` names the
    ruleset in an unknown verb's answer, `section` cites a decision's event, `kept` are the
    state's record fields given a JSON round trip (the pending decision always is);
    `walk_in_what_if=False`: in a what-if (/odds) the sequence does not walk on after the action."""
    try:
        return _dispatch(sc, state, side, cmd, rules, name, section, kept, walk_in_what_if)
    except Illegal as e:
        raise once_cited(e) from None


def _dispatch(sc, state, side, cmd, rules, name, section, kept, walk_in_what_if):
    rules.load_action_modules()
    if side not in rules.SIDES:
        raise Illegal(f"'{side}' is not a side of this battle ({', '.join(rules.SIDES)})")
    handler = rules.HANDLERS.get(cmd.verb)
    if handler is None:
        raise CannotParse(f"unknown command '{cmd.verb}'; {name} commands: {', '.join(sorted(rules.HANDLERS))}")
    refuse_extra_words(rules.COMMANDS, cmd.verb, cmd.args)
    if cmd.verb not in rules.ANY_TIME:
        rules.need_not_over(state)
        if cmd.verb != "react" and state.pending:
            rules.need_no_pending(state, side)
    before = state.pending

    def body(st, stream: DiceStream) -> list[Event]:
        events = handler(sc, st, side, cmd, stream)
        if st.phase != "over" and cmd.verb not in rules.ANY_TIME and (walk_in_what_if or WHAT_IF.get() is None):
            events += rules.advance(sc, st, stream)
        if st.pending and st.pending != before:
            events.append(decision_event(st.pending, section))
        for field in kept:
            setattr(st, field, json.loads(json.dumps(getattr(st, field))))
        if st.pending:
            st.pending = json.loads(json.dumps(st.pending))
        return events

    return run_command(state, cmd, body)
