"""What every cog shares: the game service of the interaction's client, and `run_action`, which
applies one line of the command language and answers it (public board, or a private refusal)."""
from __future__ import annotations

import logging

import discord

from engine.core.errors import HeraldError

from ..service import ActResult, GameService
from ..store import StoreError
from ..views import post_result, refuse

log = logging.getLogger(__name__)


def service_of(interaction: discord.Interaction) -> GameService:
    return interaction.client.service  # type: ignore[attr-defined]


async def run_action(interaction: discord.Interaction, line: str) -> ActResult | None:
    """Apply `line` for the user's side; reply once (public board, or ephemeral refusal)."""
    service = service_of(interaction)
    try:
        result = await service.act(interaction.channel_id, interaction.user.id, line, interaction.id)
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        if getattr(exc, "public", False):         # the game now waits for dice: say so in the status
            from ..status_message import refresh_quietly
            try:
                row = await service.game_row(interaction.channel_id)
            except (HeraldError, StoreError):
                return None
            await refresh_quietly(interaction.client, row.id)
        return None
    await post_result(interaction, service, result)
    return result
