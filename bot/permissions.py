"""What Herald needs of a channel, and what it does where it cannot post.

Herald answers slash commands and buttons through the interaction (a webhook: it needs no channel
permission), but it also posts in a game's channel as itself: the status message
(bot/status_message.py), the turn reminders and referee notices, and the answers a decision
deadline applies (bot/client.py). Those go through the bot's own channel permissions:

- ``REQUIRED`` is what Herald needs, for the invite URL (its integer is ``PERMISSIONS_INTEGER``,
  written in the README) and for the check of ``/game new``: View Channel, Send Messages (Send
  Messages in Threads in a thread), Attach Files (the board PNGs, GIF replays, exports) and Read
  Message History. Herald posts no embeds and reads no message content.
- ``refuse_if_cannot_post`` refuses ``/game new`` (and the commands that start a game) in a channel
  where ``interaction.app_permissions`` lacks one, naming which.
- Before posting as itself Herald checks ``channel.permissions_for(guild.me)``; where it cannot
  post (or Discord answers 403), it logs ONE warning line per channel (again only when what is
  missing changes), skips the post, and the next player who acts there is told privately, at
  most once an hour each, which permission the server admin must grant (``tell_actor``).

The record of unpostable channels is per client (a WeakKeyDictionary), so offline test bots never
share it. This module imports no other module of bot/.
"""
from __future__ import annotations

import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Sequence

import discord

log = logging.getLogger(__name__)

LABELS = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
}
REQUIRED = discord.Permissions(**{name: True for name in LABELS})
PERMISSIONS_INTEGER = REQUIRED.value          # 274878008320: the invite URL's `permissions=`
SCOPES = ("bot", "applications.commands")
TELL_EVERY = 3600.0                           # seconds between two private notes to one player


def invite_url(application_id: int | str) -> str:
    return (f"https://discord.com/oauth2/authorize?client_id={application_id}"
            f"&scope={'+'.join(SCOPES)}&permissions={PERMISSIONS_INTEGER}")


def is_thread(channel: Any) -> bool:
    return isinstance(channel, discord.Thread) or getattr(channel, "type", None) in (
        discord.ChannelType.public_thread, discord.ChannelType.private_thread, discord.ChannelType.news_thread)


def needed(thread: bool) -> list[str]:
    """The permissions Herald needs in a channel (a thread: Send Messages in Threads instead of
    Send Messages)."""
    return ["view_channel", "send_messages_in_threads" if thread else "send_messages",
            "attach_files", "read_message_history"]


def missing(perms: discord.Permissions | None, *, thread: bool) -> list[str]:
    """The labels of the needed permissions `perms` lacks ([] when unknown)."""
    if perms is None or perms.administrator:
        return []
    return [LABELS[name] for name in needed(thread) if not getattr(perms, name)]


def bot_missing(channel: Any) -> list[str]:
    """What the bot's own member lacks in `channel`; [] when it cannot be told (no guild member
    cached, a thread whose parent is unknown, a stand-in channel of the offline tests)."""
    me = getattr(getattr(channel, "guild", None), "me", None)
    permissions_for = getattr(channel, "permissions_for", None)
    if me is None or permissions_for is None:
        return []
    try:
        perms = permissions_for(me)
    except Exception:           # discord.ClientException: the thread's parent is not cached
        return []
    return missing(perms, thread=is_thread(channel))


def _join(labels: Sequence[str]) -> str:
    return ", ".join(labels[:-1]) + f" and {labels[-1]}" if len(labels) > 1 else "".join(labels)


def missing_text(labels: Sequence[str]) -> str:
    """The refusal of a game in a channel where Herald lacks `labels`."""
    return (f"Herald cannot run a game in this channel: it lacks the permission{'s' if len(labels) > 1 else ''} "
            f"{_join(labels)} here. A server admin can grant {'them' if len(labels) > 1 else 'it'} to Herald "
            "(Edit Channel → Permissions, or Herald's role in Server Settings → Roles); then try again.")


async def refuse_if_cannot_post(interaction: discord.Interaction) -> bool:
    """Refuse (privately) a command that starts a game where Herald could not post its board,
    its status message or its notices; True if refused."""
    lacking = missing(interaction.app_permissions, thread=is_thread(interaction.channel))
    if not lacking:
        return False
    from .replies import refuse
    await refuse(interaction, missing_text(lacking))
    return True


# --- where Herald cannot post as itself ------------------------------------------------------------
@dataclass
class _Record:
    blocked: dict[int, tuple[str, ...]] = field(default_factory=dict)     # channel id -> labels
    told: dict[tuple[int, int], float] = field(default_factory=dict)      # (channel, user) -> when


_records: weakref.WeakKeyDictionary[Any, _Record] = weakref.WeakKeyDictionary()


def _record(bot: Any) -> _Record:
    rec = _records.get(bot)
    if rec is None:
        rec = _records[bot] = _Record()
    return rec


def check_channel(bot: Any, channel: Any, channel_id: int, what: str) -> bool:
    """Before Herald posts `what` in `channel` as itself: True if it may; otherwise the channel
    is recorded as unpostable (one warning line) and False."""
    lacking = bot_missing(channel)
    if lacking:
        cannot_post(bot, channel_id, what, lacking)
        return False
    return True


def cannot_post(bot: Any, channel_id: int, what: str, lacking: Sequence[str] | None = None) -> None:
    """Record that Herald could not post `what` in the channel: one WARNING line the first time
    (and when what is missing changes), never a traceback. `lacking` None: Discord said 403."""
    labels = tuple(lacking) if lacking else ()
    rec = _record(bot)
    if rec.blocked.get(channel_id) != labels:
        lack = _join(labels) if labels else "a permission it needs (Discord answered 403 Forbidden)"
        log.warning("cannot post in channel %s (missing %s): %s not posted; the players are told when they act there",
                    channel_id, lack, what)
    rec.blocked[channel_id] = labels


def posted(bot: Any, channel_id: int) -> None:
    """Herald posted in the channel: it is not blocked (any more)."""
    rec = _records.get(bot)
    if rec is not None and rec.blocked.pop(channel_id, None) is not None:
        log.info("channel %s: Herald can post there again", channel_id)


def blocked(bot: Any, channel_id: int) -> tuple[str, ...] | None:
    """The permissions Herald lacked when it last tried to post in the channel (() when Discord
    only said 403), or None if it could post there."""
    rec = _records.get(bot)
    return None if rec is None else rec.blocked.get(channel_id)


def blocked_text(bot: Any, channel_id: int) -> str | None:
    labels = blocked(bot, channel_id)
    if labels is None:
        return None
    lack = (f"it lacks {_join(labels)}" if labels else
            f"Discord refused its post; it needs {_join([LABELS[n] for n in needed(False)])}")
    return (f"⚠️ Herald cannot post in this channel as itself ({lack}), so the game's status message, "
            "the turn reminders and the deadline notices do not appear here. A server admin can grant "
            "the permission to Herald (Edit Channel → Permissions).")


async def tell_actor(interaction: discord.Interaction) -> bool:
    """After an answered interaction in a channel where Herald could not post: tell the user
    privately (at most once an hour each). True if told. Never raises."""
    bot, channel_id = interaction.client, interaction.channel_id
    text = blocked_text(bot, channel_id) if channel_id is not None else None
    if text is None:
        return False
    rec, key, now = _record(bot), (channel_id, interaction.user.id), time.monotonic()
    if key in rec.told and now - rec.told[key] < TELL_EVERY:
        return False
    rec.told[key] = now
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("channel %s: could not tell the player that Herald cannot post there", channel_id)
        return False
    return True
