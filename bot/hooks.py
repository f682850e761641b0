"""The service's hooks: how the club features join the game service without it importing them.

Data flows one way (DESIGN "Layers, one way"): cogs -> service -> engine and store. The club
features (bot/club.py, deadlines, physical_dice, undo, uploads, campaigns) sit beside the
service: each imports the service, and the service imports none of them. Each feature has an
`install(service)` that subscribes to the events below and fills in the extension points it
provides; one place assembles the app (bot/app.py `make_service`: the client, the bench and the
tests' harness all build their service there).

Events (`Signal`: every subscriber is awaited in order; a subscriber's failure is logged, never
raised, since what it follows is already committed). The service emits them under the game's
lock (bot/store.py `game_lock`), so a subscriber never acts on that game itself:
- `on_command_applied(service, result)`: a command (an action, an answer, a referee's
  correction) was stored; `result` is its `ActResult`.
- `on_game_ended(service, game_id)`: a game's status just became "over" (a victory, a
  resignation, a correction that ended it, or a restart that found it ended). Campaigns record
  the result.
- `on_decision_opened(service, result)`: the command left a pending decision for a player.
- `on_decision_answered(service, result)`: the command was given while a decision was pending.
- `on_new_information(service, game_id, why)`: something became known without a command being
  stored (physical dice: a die asked for). Undo lets an open request lapse.

Extension points (narrow, each with the service's own default when no feature provides it):
- `acting_side(loaded, user_id, line) -> (side, Command)`: whom a line is given for, or a
  refusal (bot/club.py: shared sides, wings, the referee's pause). Default: the user's seat.
- `rules_steps`: async `(service, loaded, side, user_id, cmd) -> (side, user_id, cmd, state,
  events) | None`; the first that answers applies the rules its own way for that game
  (bot/physical_dice.py: the players' own dice). Default: `ruleset.apply`.
- `log_line(command_row, line) -> line`: how /game log shows a stored command (bot/undo.py: one
  taken back is struck through). Default: as it is.
- `scenario_sources`: async `(store, guild_id, ruleset, scenario_id) -> text | None`: a scenario
  file `/game new` may start from besides the built-in battles (bot/uploads.py: the server's own).
- `status_lines`: async `(service, loaded) -> [line]`: lines /game status adds for a game in
  setup or play (bot/deadlines.py: the decision deadline).

A leaf of bot/: it imports nothing from bot/ (types are `Any` here; see bot/service.py).
"""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class Signal:
    """An event the service (or a feature) emits; features subscribe to it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.subscribers: list[Callable[..., Awaitable[Any]]] = []

    def subscribe(self, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """Add `fn` (once); usable as a decorator."""
        if fn not in self.subscribers:
            self.subscribers.append(fn)
        return fn

    async def emit(self, *args: Any) -> None:
        """Await every subscriber in order; a failure is logged and the others still run."""
        for fn in list(self.subscribers):
            try:
                await fn(*args)
            except Exception:
                log.exception("%s: subscriber %s failed", self.name, getattr(fn, "__qualname__", fn))

    def __repr__(self) -> str:
        return f"Signal({self.name!r}, {len(self.subscribers)} subscriber(s))"


def _as_given(command: Any, line: str) -> str:
    return line


class Hooks:
    """One service's events and extension points (module docstring)."""

    def __init__(self) -> None:
        self.on_command_applied = Signal("on_command_applied")
        self.on_game_ended = Signal("on_game_ended")
        self.on_decision_opened = Signal("on_decision_opened")
        self.on_decision_answered = Signal("on_decision_answered")
        self.on_new_information = Signal("on_new_information")
        self.acting_side: Callable[[Any, int, str], tuple[str, Any]] | None = None
        self.rules_steps: list[Callable[..., Awaitable[Any]]] = []
        self.log_line: Callable[[Any, str], str] = _as_given
        self.scenario_sources: list[Callable[..., Awaitable[str | None]]] = []
        self.status_lines: list[Callable[..., Awaitable[list[str]]]] = []
        self.installed: list[str] = []        # the features installed, by name, in order
