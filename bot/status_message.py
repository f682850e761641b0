"""Turn flow (issue 5, Club play): one status message per game, edited; each player pinged once.

- **The status message.** Each game keeps ONE message in its channel saying whose move it is,
  what is pending, the deadlines, the seats and whether the referee paused it. It is edited after
  every action (`refresh`), never reposted; its id lives in ``games.options["status_message"]``,
  and a deleted message is posted again (and the new id stored). Edits never ping anyone.
- **One mention per wait.** When the game starts waiting on someone, the public reply to the
  action that made it wait mentions them with a ping; while it goes on waiting on the same people
  for the same thing (`club.Waiting.key`, stored in ``options["turn_flow"]``), later messages
  name them without pinging; nobody is pinged while they are the ones acting (`pings_for`). A
  ping for someone the reply does not name (a wing's player, a second player of the side) gets a
  🔔 line saying what they are asked ("🔔 <@4>: **Royalist** to act (Royalist centre)").
- **Deadline messages** (bot/deadlines.py `due_notices`): a reminder pings the player(s); the
  notice after a turn deadline pings the referee(s) (users and role), or the game's creator when
  it has no referee. `tick` runs from the client's one-minute loop with the time passed in.

Discord is reached only through `bot.get_channel` (or `fetch_channel` for a logged-in bot), so
the offline tests hand in a fake channel; every function here is safe to call after an action is
committed: a failure is logged, never raised into the reply. Where Herald lacks the permission
to post (or Discord answers 403), the post is skipped with one warning line and the players are
told when they next act there (bot/permissions.py).
"""
from __future__ import annotations

import asyncio
import logging
import weakref
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import discord

from . import permissions
from .club import loaded_waiting, paused_text, player_names, roster_lines, waiting_on
from .deadlines import Notice, due_notices, hours_text, open_decision, status_lines, turn_status_line, turn_wait
from .names import label

if TYPE_CHECKING:
    from .service import ActResult, GameService, LoadedGame

log = logging.getLogger(__name__)

STATUS_KEY = "status_message"      # games.options: {"channel_id": ..., "message_id": ...}
FLOW_KEY = "turn_flow"             # games.options: {"pinged": Waiting.key}
NO_PINGS = discord.AllowedMentions.none()
_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()


def _lock(game_id: int) -> asyncio.Lock:
    lock = _locks.get(game_id)
    if lock is None:
        lock = _locks[game_id] = asyncio.Lock()
    return lock


# --- the text --------------------------------------------------------------------------------
async def status_text(service: GameService, loaded: LoadedGame) -> str:
    """The status message: game, whose move, what is pending, deadlines, pause, seats."""
    row, rs = loaded.row, loaded.ruleset
    title = getattr(loaded.scenario, "title", row.scenario_id)
    names = await player_names(service, loaded)          # players by name (bot/names.py)
    lines = [f"📋 **Game #{row.id} · {rs.name}: {title}** (turn {getattr(loaded.state, 'turn', '?')})"]
    if row.status == "setup":
        lines.append("Setting up: /game join a side, then /game start.")
    elif row.status == "abandoned":
        lines.append("🛑 Abandoned: the game ended without a result; the channel is free for /game new.")
    elif row.status != "active" or loaded.to_act_side is None:
        lines.append(f"🏁 Battle over: {row.result or getattr(loaded.state, 'result', '') or 'the game has ended'}")
    else:
        paused = paused_text(row)
        if paused:
            lines.append(f"⏸️ {paused[0].upper()}{paused[1:]}.")
        waiting = loaded_waiting(loaded)
        if waiting is not None:
            who = " ".join(label(u, names) for u in waiting.users) or "(free seat: /game join)"
            lines.append(f"▶️ Waiting on **{waiting.side.title()}** {who}: {waiting.what}")
        lines += _open_requests(loaded)
        if not paused:
            turn = turn_status_line(await turn_wait(service, loaded))
            if turn:
                lines.append(turn)
            lines += status_lines(row.options, await open_decision(service, loaded))
    lines += ["👥 " + " · ".join(roster_lines(loaded, names))]
    lines.append(f"_After command #{loaded.seq}. This message is kept up to date; /game status for the details._")
    return "\n".join(lines)[:2000]


def _open_requests(loaded: LoadedGame) -> list[str]:
    """What else the game waits for: a roll of physical dice (bot/physical_dice.py), an undo
    request waiting for the other side's answer (bot/undo.py)."""
    from . import physical_dice, undo
    lines = []
    dice = physical_dice.open_request(loaded)
    if dice is not None:
        roller, uid = physical_dice.asked_of(dice)
        lines.append(f"🎲 Waiting for dice: {f'<@{uid}>' if uid else '(free seat)'} ({roller.title()}) rolls for {dice['side'].title()}'s "
                     f"`{dice['verb']}`: {dice['ask']['purpose']} (/dice)")
    asked = undo.open_request(loaded)
    if asked is not None:
        lines.append(f"↩️ {asked['side'].title()} (<@{asked['user']}>) asks to take back #{asked['seq']}: "
                     "waiting for the other side's answer (the buttons on the request)")
    return lines


# --- the one message ---------------------------------------------------------------------------
async def _channel(bot: Any, channel_id: int) -> Any:
    channel = bot.get_channel(channel_id)
    if channel is None and getattr(getattr(bot, "http", None), "token", None):
        try:
            channel = await bot.fetch_channel(channel_id)      # e.g. a thread not in the cache
        except discord.HTTPException:
            channel = None
    return channel


async def refresh(bot: Any, game_id: int) -> int | None:
    """Edit the game's status message (post it if it has none or it was deleted); returns its
    message id, or None when the channel cannot be reached. Raises on other Discord errors."""
    service: GameService = bot.service
    async with _lock(game_id):
        row = await service.store.get_game(game_id)
        if row is None:
            return None
        channel = await _channel(bot, row.channel_id)
        if channel is None:
            log.debug("game %s: channel %s not reachable; status message not refreshed", game_id, row.channel_id)
            return None
        what = f"game {game_id}'s status message"
        if not permissions.check_channel(bot, channel, row.channel_id, what):
            return None
        text = await status_text(service, await service.load_row(row))
        info = row.options.get(STATUS_KEY) or {}
        message_id = info.get("message_id") if info.get("channel_id") == row.channel_id else None
        try:
            if message_id:
                try:
                    await channel.get_partial_message(int(message_id)).edit(content=text, allowed_mentions=NO_PINGS)
                    permissions.posted(bot, row.channel_id)
                    return int(message_id)
                except discord.NotFound:
                    log.info("game %s: status message %s was deleted; posting it again", game_id, message_id)
            message = await channel.send(text, allowed_mentions=NO_PINGS)
        except discord.Forbidden:
            permissions.cannot_post(bot, row.channel_id, what)
            return None
        permissions.posted(bot, row.channel_id)
        await service.store.set_options(game_id, **{STATUS_KEY: {"channel_id": row.channel_id,
                                                                 "message_id": message.id}})
        return message.id


async def refresh_quietly(bot: Any, game_id: int) -> int | None:
    """`refresh`, never raising (the action it follows is committed and answered already)."""
    try:
        return await refresh(bot, game_id)
    except Exception:
        log.exception("game %s: status message not refreshed", game_id)
        return None


# --- one ping per wait -------------------------------------------------------------------------
async def pings_for(service: GameService, result: ActResult, actor: int | None = None) -> list[int]:
    """The users the public reply to `result` should ping: whoever the game now waits on, if it
    did not already wait on them for the same thing, never the actor. Records the wait."""
    if result.duplicate:
        return []
    row = await service.store.get_game(result.game_id)
    if row is None:
        return []
    waiting = None if result.over else waiting_on(result.ruleset, result.scenario, result.state, result.seats,
                                                  await service.store.members(result.game_id))
    key = waiting.key if waiting is not None else None
    flow = dict(row.options.get(FLOW_KEY) or {})
    if flow.get("pinged") == key:
        return []
    flow["pinged"] = key
    await service.store.set_options(result.game_id, **{FLOW_KEY: flow})
    if waiting is None or actor in waiting.users:
        return []           # the side that acts goes on acting: its players are at the table
    return Pinged(waiting.users, note=f"**{waiting.side.title()}** {waiting.what}")


class Pinged(list):
    """The users to ping, with what they are asked (for the 🔔 line of `with_pings`)."""

    def __init__(self, users: Any = (), note: str = ""):
        super().__init__(users)
        self.note = note


class _Mentions(discord.AllowedMentions):
    """AllowedMentions carrying what the pinged users are asked."""
    __slots__ = ("note",)


def mention_kwargs(users: list[int]) -> discord.AllowedMentions:
    if not users:
        return NO_PINGS
    am = _Mentions(everyone=False, roles=False, users=[discord.Object(u) for u in users], replied_user=False)
    am.note = getattr(users, "note", "")
    return am


def with_pings(text: str, kwargs: dict[str, Any], limit: int = 2000) -> str:
    """`text` plus a 🔔 line naming every user the message pings who is not named in it yet
    (a ping needs the mention in the content)."""
    am = kwargs.get("allowed_mentions")
    users = getattr(am, "users", None)
    if not isinstance(users, list):
        return text
    missing = [u.id for u in users if f"<@{u.id}>" not in text]
    if not missing:
        return text
    note = getattr(am, "note", "")      # the reply may name only the side's first player: say why
    line = "\n🔔 " + " ".join(f"<@{u}>" for u in missing) + (f": {note}" if note else "")
    room = limit - len(line)
    return (text if len(text) <= room else text[: room - 1] + "…") + line


# --- deadline messages -------------------------------------------------------------------------
def _decision_words(w: Any) -> str:
    """For a wait on a pending decision: what becomes of it (bot/deadlines.py)."""
    if w.kind == "turn":
        return ""
    if w.decision_expires is not None and w.answer:
        return (f" If it is not answered, the decision deadline answers `{w.answer}` for them "
                f"<t:{int(w.decision_expires.timestamp())}:R>.")
    default = f" (their default policy would answer `{w.answer}`)" if w.answer else ""
    return f" No decision deadline is set (/game deadline), so the decision waits for them{default}."


def notice_message(notice: Notice) -> tuple[str, discord.AllowedMentions]:
    w = notice.wait
    who = " ".join(f"<@{u}>" for u in w.users) or f"**{w.side.title()}**"
    stamp = f"<t:{int(w.expires.timestamp())}:R>"
    if notice.kind == "reminder":
        return (f"⏰ {who}: game #{w.game_id} waits on **{w.side.title()}** ({w.what}); the turn deadline "
                f"ends {stamp}, then the referee is told.{_decision_words(w)}", mention_kwargs(list(w.users)))
    refs = [f"<@{u}>" for u in w.referees] + ([f"<@&{w.referee_role}>"] if w.referee_role else [])
    if w.kind == "turn":
        late = (f"⏰ Game #{w.game_id}: **{w.side.title()}** {who} has not acted within the turn deadline "
                f"({hours_text(w.hours)}; {w.what}). Herald never moves for a side: the game waits.")
    else:
        late = (f"⏰ Game #{w.game_id}: **{w.side.title()}** {who} has not answered within the turn deadline "
                f"({hours_text(w.hours)}; {w.what}).{_decision_words(w)}")
    if refs:
        text = f"{late} Referee {' '.join(refs)}: you may /referee substitute the player, pause the game, or let it wait."
        users = list(w.referees)
    else:
        text = (f"{late} This game has no referee: the players may wait, or "
                + (f"its creator <@{w.creator}>" if w.creator else "its creator")
                + " may appoint one (/referee appoint) or /game abandon it.")
        users = [w.creator] if w.creator else []
    am = discord.AllowedMentions(everyone=False, users=[discord.Object(u) for u in users],
                                 roles=[discord.Object(w.referee_role)] if w.referee_role else False,
                                 replied_user=False)
    return text, am


async def post_notices(bot: Any, notices: list[Notice]) -> int:
    """Post each notice in its game's channel; returns how many were posted."""
    posted = 0
    for notice in notices:
        try:
            channel = await _channel(bot, notice.wait.channel_id)
            if channel is None:
                log.warning("game %s: %s due but its channel is unknown", notice.wait.game_id, notice.kind)
                continue
            what = f"game {notice.wait.game_id}'s {notice.kind}"
            if not permissions.check_channel(bot, channel, notice.wait.channel_id, what):
                continue
            text, mentions = notice_message(notice)
            try:
                await channel.send(text, allowed_mentions=mentions)
            except discord.Forbidden:
                permissions.cannot_post(bot, notice.wait.channel_id, what)
                continue
            permissions.posted(bot, notice.wait.channel_id)
            posted += 1
        except Exception:
            log.exception("game %s: could not post the %s", notice.wait.game_id, notice.kind)
    return posted


async def tick(bot: Any, now: datetime | None = None) -> list[Notice]:
    """One beat of the client's loop: the turn deadlines' reminders and referee notices due
    now, posted; never raises."""
    if getattr(bot, "service", None) is None:
        return []
    try:
        notices = await due_notices(bot.service, now or datetime.now(timezone.utc))
    except Exception:
        log.exception("turn deadlines could not be checked")
        return []
    await post_notices(bot, notices)
    for game_id in {n.wait.game_id for n in notices}:
        await refresh_quietly(bot, game_id)
    return notices
