"""/scenario: a server's own battles (bot/uploads.py does the work).

/scenario upload <ruleset> <file>   validate a scenario file, store it for this server, show its board;
                                    /game new then offers it (its autocomplete marks it "uploaded")
/scenario list [ruleset]            the server's uploads
/scenario remove <ruleset> <scenario>   by its uploader or a server manager

Who may: any member uploads a new file; replacing or removing one is for its uploader or a
server manager (Manage Server or Administrator). See bot/uploads.py.

Every refusal is ephemeral and comes before anything is stored or shown publicly: an upload is
deferred privately at once (the download and the validation take time), confirmed privately, and
its board then posted for all as a second follow-up.
"""
from __future__ import annotations

import asyncio

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from .. import uploads
from ..store import StoreError
from ..views import board_file, refuse, send
from .common import service_of
from .games import RULESET_CHOICES


def _is_manager(interaction: discord.Interaction) -> bool:
    """A server manager: the Manage Server or the Administrator permission (bot/uploads.py,
    "Who may")."""
    perms = interaction.permissions
    return bool(perms and (perms.administrator or perms.manage_guild))


async def _upload_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The server's uploads of the chosen ruleset."""
    rid = getattr(interaction.namespace, "ruleset", None)
    try:
        found = await uploads.listing(service_of(interaction).store, interaction.guild_id, str(rid) if rid else None)
    except Exception:
        return []
    cur = (current or "").lower()
    return [app_commands.Choice(name=f"{c.title} ({c.scenario_id})"[:100], value=c.scenario_id[:100])
            for c in found if cur in c.scenario_id or cur in c.title.lower()][:25]


@app_commands.guild_only()
class ScenariosCog(commands.GroupCog, group_name="scenario",
                   group_description="This server's own scenarios: upload, list, remove"):
    def __init__(self, bot: commands.Bot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="upload", description="Upload a scenario file (TOML) for this server's games")
    @app_commands.describe(ruleset="The rule system the scenario is for", file="The scenario file (.toml)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def upload(self, interaction: discord.Interaction, ruleset: str, file: discord.Attachment) -> None:
        service = service_of(interaction)
        # Private until the file is stored: a refusal (likely) concerns only its sender, and a
        # follow-up keeps the defer's visibility. The download and the validation take time.
        await interaction.response.defer(thinking=True, ephemeral=True)
        try:
            rs = service.ruleset_of(ruleset)
            uploads.check_size(rs, int(file.size or 0), file.filename)      # before downloading it
            try:
                data = await file.read()
            except Exception as exc:                                      # network, CDN
                raise uploads.UploadRejected(f"could not download {file.filename}: {exc}") from None
            checked = await asyncio.to_thread(uploads.validate, rs, data, file.filename)
            replaced = await uploads.save(service.store, interaction.guild_id, checked, interaction.user.id,
                                          _is_manager(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"✅ **{checked.title}** (`{checked.scenario_id}`) is checked and stored for this "
                   "server; its board is posted in the channel.", ephemeral=True, quiet=True)
        png = await asyncio.to_thread(uploads.preview, checked)
        kwargs = {"file": f} if (f := board_file(png)) is not None else {}
        verb = "replaces the earlier upload of" if replaced else "adds"
        await send(interaction, f"{interaction.user.mention} {verb} **{checked.title}** (`{checked.scenario_id}`, "
                   f"{rs.name}) for this server: {uploads.summary(checked)}.\n"
                   f"Play it with `/game new ruleset:{rs.id} scenario:{uploads.CUSTOM_PREFIX}{checked.scenario_id}`"
                   " (the scenario list marks it \"uploaded\")." + ("" if png else "\n(No preview could be drawn.)"),
                   quiet=True, **kwargs)             # a second follow-up: public

    @app_commands.command(name="list", description="The scenarios this server uploaded")
    @app_commands.describe(ruleset="Only this rule system's (optional)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def list_uploads(self, interaction: discord.Interaction, ruleset: str | None = None) -> None:
        found = await uploads.listing(service_of(interaction).store, interaction.guild_id, ruleset)
        if not found:
            await send(interaction, "This server has no uploaded scenario yet: /scenario upload.", quiet=True)
            return
        lines = [f"**{c.title}** · `{c.scenario_id}` · {c.ruleset} · by <@{c.uploaded_by}>"
                 f" ({(c.uploaded_at or '')[:10]})" for c in found]
        await send(interaction, "\n".join(lines), quiet=True)

    @app_commands.command(name="remove", description="Remove an uploaded scenario (its uploader or a server manager)")
    @app_commands.describe(ruleset="The rule system", scenario="The uploaded scenario")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    @app_commands.autocomplete(scenario=_upload_autocomplete)
    async def remove(self, interaction: discord.Interaction, ruleset: str, scenario: str) -> None:
        try:
            gone = await uploads.remove(service_of(interaction).store, interaction.guild_id, ruleset, scenario,
                                        interaction.user.id, _is_manager(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"**{gone.title}** (`{gone.scenario_id}`) is no longer offered on this server; "
                   "games already created from it keep their copy.", quiet=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ScenariosCog(bot))
