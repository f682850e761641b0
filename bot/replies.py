"""Answering an interaction: a reply, a private refusal, a message clipped to Discord's length.

A leaf of bot/ (it imports only the store's errors): bot/views.py (which re-exports these names),
bot/permissions.py and the cogs all answer through it.
"""
from __future__ import annotations

from typing import Any

import discord

from .store import ChannelBusy

MAX_CONTENT = 2000
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)
INTERNAL = "internal error, the game is untouched"


async def send(interaction: discord.Interaction, content: str, *, ephemeral: bool = False, quiet: bool = False,
               **kw: Any) -> None:
    """Answer an interaction, whether or not it was already acknowledged. `quiet`: mentions
    are shown but ping nobody (a status or board request is not a move)."""
    content = clip(content)
    kw.setdefault("allowed_mentions", discord.AllowedMentions.none() if quiet else MENTIONS)
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=ephemeral, **kw)
    else:
        await interaction.response.send_message(content, ephemeral=ephemeral, **kw)


def refusal_text(error: BaseException) -> str:
    if isinstance(error, ChannelBusy):
        return "this channel already has a game (one game per channel): finish it or /game abandon it first"
    return str(error) or type(error).__name__


async def refuse(interaction: discord.Interaction, error: BaseException | str) -> None:
    """The ephemeral answer to a refused request; nothing was stored. A question the game asks
    instead (an error with `public`: bot/physical_dice.py's dice request) is posted for all."""
    if getattr(error, "public", False):
        await send(interaction, str(error))
        return
    text = error if isinstance(error, str) else refusal_text(error)
    await send(interaction, f"❌ {text}", ephemeral=True, quiet=True)


def clip(text: str, limit: int = MAX_CONTENT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
