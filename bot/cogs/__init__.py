"""The cogs: thin slash-command layers over `bot.service.GameService`.

Each handler builds one line of the command language (the CLI's language) and hands it to
`run_action`; refusals are answered ephemerally, accepted actions with the board and narrative.
The rulesets' own commands are built from the verbs each declares (bot/cogs/rulesets.py).
"""
from __future__ import annotations

import logging
import discord
from discord import app_commands

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


def words(*parts: object) -> str:
    """Join non-empty option values into a command line."""
    return " ".join(str(p).strip() for p in parts if p is not None and str(p).strip())


async def setup(bot) -> None:
    """Extension entry point: add every cog."""
    from .games import GamesCog
    from .rulesets import add_ruleset_commands   # /act and one group per ruleset, from its verbs
    await bot.add_cog(GamesCog(bot))
    add_ruleset_commands(bot.tree)
    from .club_actions import ClubActionsCog   # /dice (physical dice) and /undo (with consent)
    await bot.add_cog(ClubActionsCog(bot))
    from .campaign import CampaignCog          # club campaigns (bot/campaigns.py)
    from .scenarios import ScenariosCog        # a server's uploaded scenarios (bot/uploads.py)
    await bot.add_cog(CampaignCog(bot))
    await bot.add_cog(ScenariosCog(bot))
    from .arbitration import ArbitrationCog    # /explain and /rules (bot/arbitration.py)
    await bot.add_cog(ArbitrationCog(bot))
    from .club import ClubCog                  # /seat, /referee, /turn (bot/club.py)
    await bot.add_cog(ClubCog(bot))
    from .odds import OddsCog                  # /odds: the exact what-if (engine/core/odds.py)
    await bot.add_cog(OddsCog(bot))
