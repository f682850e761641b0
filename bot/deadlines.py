"""Decision deadlines: a pending decision left unanswered too long gets the player's default policy.

When the rules hand a player a choice in the middle of another's action (DESIGN: pending
decisions) the game waits for them. A game may set a deadline (`/game deadline hours:<n>`,
stored as `games.options["decision_deadline_hours"]`; 0 or absent = none): once a decision has
waited that long, Herald gives the answer the player's *default* policy would give
(`ruleset.default_answer(state)`, e.g. TACW `bypass none`), as that player, through
`GameService.act`, so it is stored, replayed and logged like any other command.

Nothing extra is stored per decision: a decision opens with the command that made the current
state, so its start is that command's `created_at` (the game's creation time if there is none),
and a restarted bot finds every timer where it was. A deadline set (or changed) while a decision
is already open counts from that moment (`options["decision_deadline_set_at"]`), so turning it
on never expires a decision on the spot.

The answer carries the interaction id `deadline:<game>:<seq>` (the seq the decision was opened
at) and the seq it was built against: it is applied at most once, and never after the player
answered (the seq has moved on). No Discord here; `now` is always passed in, so tests own the
clock and the bot passes `datetime.now(timezone.utc)`.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from engine.core.errors import HeraldError

from .store import StoreError

if TYPE_CHECKING:
    from .service import ActResult, GameService, LoadedGame

log = logging.getLogger(__name__)

DEADLINE_OPTION = "decision_deadline_hours"
DEADLINE_SET_AT = "decision_deadline_set_at"
MAX_DEADLINE_HOURS = 168          # one week


def deadline_hours(options: dict[str, Any] | None) -> float:
    """The game's decision deadline in hours; 0 when it has none (or a value that makes no sense)."""
    try:
        hours = float((options or {}).get(DEADLINE_OPTION) or 0)
    except (TypeError, ValueError):
        return 0.0
    return hours if 0 < hours <= MAX_DEADLINE_HOURS else 0.0


def hours_text(hours: float) -> str:
    """'24 h', '1.5 h', '30 min'."""
    if hours < 1:
        return f"{max(1, round(hours * 60))} min"
    return f"{hours:g} h"


def parse_time(text: str | None) -> datetime | None:
    """A stored ISO timestamp as an aware UTC datetime (naive ones are UTC), or None."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _aware(now: datetime) -> datetime:
    return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class OpenDecision:
    """A pending decision under a deadline."""
    game_id: int
    channel_id: int
    seq: int                 # the state's seq: the command that opened the decision
    kind: str
    side: str
    user_id: int | None      # who must answer (their seat)
    answer: str | None       # what their default policy answers; None: the ruleset has none
    started: datetime
    hours: float

    @property
    def expires(self) -> datetime:
        return self.started + timedelta(hours=self.hours)

    @property
    def interaction_id(self) -> str:
        return f"deadline:{self.game_id}:{self.seq}"


async def open_decision(service: GameService, loaded: LoadedGame) -> OpenDecision | None:
    """The decision the game waits on, if it has a deadline; else None."""
    from .service import pending_of

    row = loaded.row
    hours = deadline_hours(row.options)
    if not hours or row.status != "active":
        return None
    pending = pending_of(loaded.state, loaded.ruleset)
    if pending is None:
        return None
    default = getattr(loaded.ruleset, "default_answer", None)
    answer = default(loaded.state) if default is not None else None
    last = await service.store.last_command(row.id)
    started = parse_time(last.created_at if last is not None else None) or parse_time(row.created_at)
    set_at = parse_time(row.options.get(DEADLINE_SET_AT))
    if started is None or (set_at is not None and set_at > started):
        started = set_at
    if started is None:
        return None
    return OpenDecision(row.id, row.channel_id, loaded.seq, pending.kind, pending.side,
                        loaded.seats.get(pending.side), answer, started, hours)


async def expire_due(service: GameService, now: datetime) -> list[ActResult]:
    """Answer every pending decision whose deadline has passed at `now` with the player's default
    policy; returns what was applied (nothing twice: see the module docstring). One game's
    failure is logged and never stops the others."""
    from .service import StaleChoice

    now = _aware(now)
    results: list[ActResult] = []
    for row in await service.store.resumable_games():
        if not deadline_hours(row.options):
            continue                      # most games: nothing to load
        try:
            decision = await open_decision(service, await service.load_row(row))
            if decision is None or now < decision.expires:
                continue
            if decision.answer is None:
                log.info("game %s: %s decision past its deadline has no default answer; it waits",
                         row.id, decision.kind)
                continue
            if decision.user_id is None:
                log.warning("game %s: nobody holds %s to answer its %s decision", row.id,
                            decision.side, decision.kind)
                continue
            result = await service.act(row.channel_id, decision.user_id, decision.answer,
                                       decision.interaction_id, expect_game=row.id,
                                       expect_seq=decision.seq)
        except StaleChoice:
            continue                      # the player answered (or the game moved) meanwhile
        except (HeraldError, StoreError) as exc:
            log.warning("game %s: the deadline answer was refused: %s", row.id, exc)
            continue
        except Exception:
            log.exception("game %s: decision deadline failed", row.id)
            continue
        if not result.duplicate:
            results.append(result)
    return results


# --- words (no Discord markup beyond timestamps) ---------------------------------------------
def deadline_set_text(game_id: int, hours: float) -> str:
    if not hours:
        return f"⏰ Game #{game_id}: no decision deadline; a pending decision waits for its player."
    return (f"⏰ Game #{game_id}: decision deadline **{hours_text(hours)}**. A pending decision left "
            f"unanswered for {hours_text(hours)} is answered by the player's default policy.")


def _stamp(when: datetime) -> str:
    unix = int(when.timestamp())
    return f"<t:{unix}:R> (<t:{unix}:f>)"


def status_lines(options: dict[str, Any] | None, decision: OpenDecision | None) -> list[str]:
    """For /game status: the deadline, and when the open decision expires."""
    hours = deadline_hours(options)
    if not hours:
        return []
    lines = [f"⏰ Decision deadline: {hours_text(hours)} (then the player's default policy answers)."]
    if decision is not None:
        then = (f"then Herald answers `{decision.answer}`" if decision.answer
                else "no default answer exists, so it will wait")
        lines.append(f"⏰ {decision.side.title()}'s {decision.kind.replace('_', ' ')} decision expires "
                     f"{_stamp(decision.expires)}; {then}.")
    return lines
