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
answered (the seq has moved on). Several processes running this loop over one game: each answer and
each notice is claimed in the database first (`OWNER`, `DECISION_LEASE` below), so one fires it. No Discord here; `now` is always passed in, so tests own the
clock and the bot passes `datetime.now(timezone.utc)`.

**Turn deadlines** (issue 5, Club play "Turn flow"): a game may also give whoever it waits on
(a turn or a decision, bot/club.py `waiting_on`) `turn_deadline_hours` to act, with a reminder
`turn_reminder_hours` before the end and a notice to the referee after it (`/turn deadline`).
A wait starts with the command that opened it (its `created_at`), else with the game's start;
a deadline set later, a resume after a pause and a substitution restart the clock. Nothing but
the two "already sent" marks is stored (`options["turn_notices"]`, keyed by the wait), so a
restarted bot finds every clock where it was and sends each message once. While the referee
has paused a game (bot/club.py) nothing expires and nothing is sent.

HERALD decision, what a turn deadline does when it passes: Herald never plays a move for a side
that has not acted; the game waits and the referee (else the creator) is told, and may substitute
the player or pause. When the wait is a pending decision the notice says what becomes of it: the
decision deadline above answers it with the player's default policy at its own time (named in
the reminder and the notice), or, with no decision deadline, it waits too. The reply to
`/turn deadline` states both cases.
"""
from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from engine.core.errors import HeraldError

from .club import is_referee, loaded_waiting, referee_ids, referee_role
from .errors import NotAllowed, Refused, StaleChoice
from .options import (CLOCK_RESTARTED, DEADLINE_OPTION, DEADLINE_SET_AT, MAX_DEADLINE_HOURS, PAUSED,
                      STARTED_AT)
from .service import pending_of
from .shards import owned_games
from .store import StoreError

if TYPE_CHECKING:
    from .service import ActResult, GameService, LoadedGame

log = logging.getLogger(__name__)

# DEADLINE_OPTION, DEADLINE_SET_AT, MAX_DEADLINE_HOURS (one week), STARTED_AT (set by
# GameService.start), PAUSED and CLOCK_RESTARTED (bot/club.py) are keys of bot/options.py
TURN_OPTION = "turn_deadline_hours"
REMINDER_OPTION = "turn_reminder_hours"
TURN_SET_AT = "turn_deadline_set_at"
NOTICES = "turn_notices"          # {"reminded": wait key, "noticed": wait key}
# Claims (issue 17, Store.claim): several processes may run these loops over the same games (two
# processes on one shard range, a reshard). Each firing is claimed in the database before it is
# acted on, so exactly one process fires it: a decision's answer by (game, "decision", its seq),
# a reminder or a referee notice by (game, kind, the wait's key and start). A notice's claim is
# for good (at most once, as its "already sent" mark); a decision's has a lease: a process that
# died between claim and answer leaves it to another after DECISION_LEASE seconds (the answer's
# interaction id still applies it once).
OWNER = f"{socket.gethostname()}:{os.getpid()}"
DECISION_LEASE = 120.0


def install(service: GameService) -> None:
    """Join the service (bot/hooks.py): /game status shows the decision deadline and when the
    open decision expires."""
    service.hooks.status_lines.append(_status_lines)


async def _status_lines(service: GameService, loaded: LoadedGame) -> list[str]:
    return status_lines(loaded.row.options, await open_decision(service, loaded))


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
    for later in (parse_time(row.options.get(DEADLINE_SET_AT)), parse_time(row.options.get(CLOCK_RESTARTED))):
        if started is None or (later is not None and later > started):
            started = later       # a deadline set, a resume or a substitution restarts the clock
    if started is None:
        return None
    return OpenDecision(row.id, row.channel_id, loaded.seq, pending.kind, pending.side,
                        loaded.seats.get(pending.side), answer, started, hours)


async def expire_due(service: GameService, now: datetime) -> list[ActResult]:
    """Answer every pending decision whose deadline has passed at `now` with the player's default
    policy; returns what was applied (nothing twice: see the module docstring). One game's
    failure is logged and never stops the others."""
    now = _aware(now)
    results: list[ActResult] = []
    for row in await owned_games(service):       # only the guilds of this process's shards
        if not deadline_hours(row.options) or row.options.get(PAUSED):
            continue                      # most games: nothing to load; a paused game waits
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
            if not await service.store.claim(row.id, "decision", str(decision.seq), OWNER,
                                             lease_seconds=DECISION_LEASE):
                continue                  # another process is answering it (issue 17)
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


# --- turn deadlines: a reminder before, a notice to the referee after -------------------------
def turn_hours(options: dict[str, Any] | None) -> tuple[float, float]:
    """The game's turn deadline and reminder, in hours; (0, 0) when it has none."""
    def num(key: str) -> float:
        try:
            return float((options or {}).get(key) or 0)
        except (TypeError, ValueError):
            return 0.0
    hours = num(TURN_OPTION)
    if not 0 < hours <= MAX_DEADLINE_HOURS:
        return 0.0, 0.0
    reminder = num(REMINDER_OPTION)
    return hours, reminder if 0 < reminder < hours else 0.0


def default_reminder(hours: float) -> float:
    """HERALD: with no reminder given, it comes a quarter of the deadline before its end."""
    return round(hours / 4, 2)


@dataclass(frozen=True)
class TurnWait:
    """Whom a game waits on, under a turn deadline."""
    game_id: int
    channel_id: int
    seq: int
    side: str
    users: tuple[int, ...]
    what: str
    started: datetime
    hours: float
    reminder: float
    referees: tuple[int, ...] = ()
    referee_role: int | None = None
    creator: int | None = None
    kind: str = "turn"                          # "turn", or the pending decision's kind
    answer: str | None = None                   # a decision: what the player's default policy answers
    decision_expires: datetime | None = None    # a decision under a decision deadline: when it answers

    @property
    def key(self) -> str:
        return f"{self.seq}:{self.side}:{','.join(map(str, self.users))}"

    @property
    def expires(self) -> datetime:
        return self.started + timedelta(hours=self.hours)

    @property
    def remind_at(self) -> datetime | None:
        return self.expires - timedelta(hours=self.reminder) if self.reminder else None


@dataclass(frozen=True)
class Notice:
    """A message a turn deadline asks for: "reminder" (to the player) or "overdue" (to the referee)."""
    kind: str
    wait: TurnWait


async def wait_started(service: GameService, row: Any) -> datetime | None:
    """When the current wait began: the last command, else the start; later clock restarts win."""
    last = await service.store.last_command(row.id)
    started = parse_time(last.created_at if last is not None else None) or \
        parse_time(row.options.get(STARTED_AT)) or parse_time(row.created_at)
    for later in (parse_time(row.options.get(TURN_SET_AT)), parse_time(row.options.get(CLOCK_RESTARTED))):
        if started is None or (later is not None and later > started):
            started = later
    return started


async def turn_wait(service: GameService, loaded: LoadedGame) -> TurnWait | None:
    """The wait under the game's turn deadline, or None (no deadline, paused, over)."""
    row = loaded.row
    hours, reminder = turn_hours(row.options)
    if not hours or row.status != "active" or row.options.get(PAUSED):
        return None
    waiting = loaded_waiting(loaded)
    started = await wait_started(service, row)
    if waiting is None or started is None:
        return None
    answer, expires = None, None
    if waiting.kind != "turn":              # a pending decision: does the decision deadline answer it?
        decision = await open_decision(service, loaded)
        default = getattr(loaded.ruleset, "default_answer", None)
        answer = decision.answer if decision is not None else default(loaded.state) if default else None
        expires = decision.expires if decision is not None and decision.answer else None
    return TurnWait(row.id, row.channel_id, loaded.seq, waiting.side, waiting.users, waiting.what, started,
                    hours, reminder, tuple(referee_ids(loaded.members)), referee_role(row), row.created_by,
                    waiting.kind, answer, expires)


async def due_notices(service: GameService, now: datetime) -> list[Notice]:
    """Every reminder and referee notice due at `now`, each marked as sent (at most once per
    wait, even across restarts) before it is returned for posting. One game's failure is logged
    and never stops the others."""
    now = _aware(now)
    notices: list[Notice] = []
    for row in await owned_games(service):       # only the guilds of this process's shards
        if not turn_hours(row.options)[0] or row.options.get(PAUSED):
            continue
        try:
            async with service.store.game_lock(row.id):
                fresh = await service.store.get_game(row.id)
                wait = await turn_wait(service, await service.load_row(fresh))
                if wait is None:
                    continue
                sent = dict(fresh.options.get(NOTICES) or {})
                if now >= wait.expires and sent.get("noticed") != wait.key:
                    kind = "overdue"
                    sent["noticed"] = sent["reminded"] = wait.key   # a late reminder is pointless
                elif (wait.remind_at is not None and now >= wait.remind_at
                      and sent.get("reminded") != wait.key and sent.get("noticed") != wait.key):
                    kind = "reminder"
                    sent["reminded"] = wait.key
                else:
                    continue
                if not await service.store.claim(row.id, kind, f"{wait.key}@{wait.started.isoformat()}", OWNER):
                    continue              # another process sent it (issue 17)
                await service.store.set_options(row.id, **{NOTICES: sent})
        except Exception:
            log.exception("game %s: turn deadline failed", row.id)
            continue
        notices.append(Notice(kind, wait))
    return notices


def turn_deadline_text(game_id: int, hours: float, reminder: float, decision_hours: float = 0) -> str:
    """The reply to /turn deadline: what happens at the deadline, for a turn and for a decision."""
    if not hours:
        return f"⏰ Game #{game_id}: no turn deadline; the game waits on each player as long as it takes."
    remind = f", a reminder {hours_text(reminder)} before the end" if reminder else ", no reminder"
    decision = (f"the decision deadline ({hours_text(decision_hours)}, /game deadline) answers it with the "
                "player's default policy" if decision_hours else
                "it waits too, as no decision deadline is set (/game deadline lets the player's default "
                "policy answer it)")
    return (f"⏰ Game #{game_id}: turn deadline **{hours_text(hours)}**{remind}; past it, the referee is told "
            "(they may substitute the player or pause the game). Herald never moves for a side that has "
            f"not acted: the game waits. A pending decision (a retreat, a bypass, a reaction): {decision}.")


def turn_status_line(wait: TurnWait | None) -> str | None:
    if wait is None:
        return None
    line = f"⏰ Turn deadline ({hours_text(wait.hours)}): {_stamp(wait.expires)}"
    return line + (f", reminder <t:{int(wait.remind_at.timestamp())}:R>" if wait.remind_at else "")


async def set_turn_deadline(service: GameService, channel_id: int, user_id: int, hours: float,
                            reminder: float | None = None, *, role_ids: Any = (), is_admin: bool = False,
                            now: datetime | None = None) -> Any:
    """Set the channel's game's turn deadline and reminder, in hours (0 = none; reminder None =
    `default_reminder`). By a player, the creator, the referee or an administrator. A wait
    already under way counts from `now`."""
    loaded = await service.load(channel_id)
    row = loaded.row
    if (user_id != row.created_by and loaded.side_of(user_id) is None
            and not is_referee(loaded, user_id, role_ids, is_admin)):
        raise NotAllowed("only a player, the game's creator, its referee or a server administrator "
                         "may set its turn deadline")
    try:
        hours = float(hours)
        reminder = default_reminder(hours) if reminder is None else float(reminder)
    except (TypeError, ValueError):
        raise Refused("a deadline is a number of hours, 0 to turn it off") from None
    if not 0 <= hours <= MAX_DEADLINE_HOURS:           # NaN fails this too
        raise Refused(f"a turn deadline is 0 (off) to {MAX_DEADLINE_HOURS} hours")
    if hours and not 0 <= reminder < hours:
        raise Refused(f"the reminder comes before the deadline: 0 (none) to less than {hours_text(hours)}")

    def tidy(x: float) -> float | int:
        return int(x) if float(x).is_integer() else round(x, 2)

    when = _aware(now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    async with service.store.game_lock(row.id):
        await service.store.set_options(row.id, **{TURN_OPTION: tidy(hours) if hours else None,
                                                   REMINDER_OPTION: tidy(reminder) if hours and reminder else None,
                                                   TURN_SET_AT: when if hours else None})
    return await service.store.get_game(row.id)
