"""/campaign: a club's series of games and its standings (bot/campaigns.py does the work).

/campaign new <name> [ruleset]      a campaign of this server (any ruleset when none is given)
/campaign add <campaign> [game]     the channel's game, or game #id; a finished one counts at once
/campaign standings [campaign]      the table per player and per side, as text and a PNG
/campaign list                      the server's campaigns

Results are recorded when a campaign game ends (bot/campaigns.py, on the service's `on_game_ended`).
"""
from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from .. import campaigns
from ..service import Refused
from ..store import StoreError
from ..views import refuse, send
from .common import service_of
from .games import RULESET_CHOICES


def _is_admin(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return bool(perms and perms.administrator)


async def _campaign_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        found = await campaigns.campaigns_of_server(service_of(interaction).store, interaction.guild_id)
    except Exception:
        return []
    cur = (current or "").lower()
    return [app_commands.Choice(name=f"{c.name} ({c.ruleset or 'any ruleset'})"[:100], value=c.name[:100])
            for c in found if cur in c.name.lower()][:25]


def _names(interaction: discord.Interaction, user_ids) -> dict[int, str]:
    """Display names for the standings picture (a PNG cannot show a mention)."""
    out = {}
    for uid in user_ids:
        member = interaction.guild.get_member(uid) if interaction.guild is not None else None
        user = member or interaction.client.get_user(uid)
        if user is not None:
            out[uid] = user.display_name
    return out


async def _default_campaign(interaction: discord.Interaction) -> campaigns.Campaign:
    """No name given: the campaign of this channel's latest game, else the server's only one."""
    store = service_of(interaction).store
    row = await store.latest_game(interaction.channel_id)
    if row is not None:
        found = await campaigns.campaigns_of_game(store, row.id)
        if found:
            return found[0]
    every = await campaigns.campaigns_of_server(store, interaction.guild_id)
    if len(every) == 1:
        return every[0]
    if not every:
        raise Refused("this server has no campaign yet: /campaign new <name>")
    raise Refused(f"which campaign? {', '.join(c.name for c in every)} (campaign:)")


@app_commands.guild_only()
class CampaignCog(commands.GroupCog, group_name="campaign",
                  group_description="A club campaign: a series of games and its standings"):
    def __init__(self, bot: commands.Bot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="new", description="Start a campaign on this server")
    @app_commands.describe(name="The campaign's name", ruleset="Only games of this rule system (optional)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def new(self, interaction: discord.Interaction, name: str, ruleset: str | None = None) -> None:
        service = service_of(interaction)
        try:
            c = await campaigns.create_campaign(service, interaction.guild_id, name, ruleset, interaction.user.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        terms = campaigns.terms_of(service, c.ruleset)
        kind = f"**{terms['name']}** games" if c.ruleset else "games of any ruleset"
        await send(interaction, f"Campaign **{c.name}** is open for {kind}. Add a game with "
                   f"`/campaign add campaign:{c.name}` (in its channel, or with its number); its result is "
                   f"recorded when it ends.\nScoring: {terms['rule']}.", quiet=True)

    @app_commands.command(name="add", description="Count this channel's game (or game #id) in a campaign")
    @app_commands.describe(campaign="The campaign", game="A game number (default: this channel's game)")
    @app_commands.autocomplete(campaign=_campaign_autocomplete)
    async def add(self, interaction: discord.Interaction, campaign: str, game: int | None = None) -> None:
        service = service_of(interaction)
        try:
            c, row, recorded = await campaigns.add_game(
                service, interaction.guild_id, campaign, interaction.user.id, game_id=game,
                channel_id=interaction.channel_id, is_admin=_is_admin(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        title = campaigns._title(service, row)
        if recorded:
            scores = " · ".join(f"{r.side.title()} {r.outcome} {r.score}" for r in recorded)
            tail = f" The battle is over: its result is recorded ({scores})."
        else:
            tail = " Its result is recorded when the battle ends."
        await send(interaction, f"Game #{row.id} ({title}) now counts in campaign **{c.name}**.{tail}", quiet=True)

    @app_commands.command(name="standings", description="The campaign's table per player and per side")
    @app_commands.describe(campaign="The campaign (default: this channel's game's, or the server's only one)")
    @app_commands.autocomplete(campaign=_campaign_autocomplete)
    async def standings(self, interaction: discord.Interaction, campaign: str | None = None) -> None:
        service = service_of(interaction)
        try:
            c = (await campaigns.find_campaign(service.store, interaction.guild_id, campaign) if campaign
                 else await _default_campaign(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await interaction.response.defer(thinking=True)      # a late game may be replayed, then drawn
        table = await campaigns.standings(service, c)
        kwargs = {}
        if table.games:
            from renders.standings import render_standings
            data = campaigns.standings_table(table, _names(interaction, [ln.key for ln in table.players]))
            png = await asyncio.to_thread(render_standings, data["title"], data["subtitle"], data["sections"])
            kwargs["file"] = discord.File(io.BytesIO(png), filename="standings.png")
        await send(interaction, campaigns.standings_text(table), quiet=True, **kwargs)

    @app_commands.command(name="list", description="The campaigns of this server")
    async def list_campaigns(self, interaction: discord.Interaction) -> None:
        store = service_of(interaction).store
        every = await campaigns.campaigns_of_server(store, interaction.guild_id)
        if not every:
            await send(interaction, "This server has no campaign yet: /campaign new <name>.", quiet=True)
            return
        lines = []
        for c in every:
            n = len(await campaigns.game_ids(store, c.id))
            lines.append(f"**{c.name}** · {c.ruleset or 'any ruleset'} · {n} game(s) · opened by <@{c.created_by}>")
        await send(interaction, "\n".join(lines), quiet=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(CampaignCog(bot))
