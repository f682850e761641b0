"""Arbitration: /explain an adjudication and look up /rules, for every ruleset.

/explain [entry] shows the full calculation of the channel's last adjudication, or of the log
entry picked (autocomplete lists the recent ones): base value, each modifier with its reason and
rule section, each die, the table and row, and what the result did (engine/core/explain.py). It
shows only what every player may see, so its answer is public unless `private` is set.

/rules <query> [ruleset] looks a section up in the ruleset's index (engine/core/rulesdoc.py;
the channel's game's ruleset unless one is named): our own statement of the rule, Herald's
decisions where the book is unclear, and the tests that check it.
"""
from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError
from engine.core.game import rulesets

from .. import arbitration
from ..store import StoreError
from ..views import refuse, send
from .common import service_of

RULESET_CHOICES = [app_commands.Choice(name=rs.name, value=rid) for rid, rs in sorted(rulesets().items())]


def _choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=n[:100], value=v[:100]) for n, v in pairs][:25]


async def _entry_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    return _choices(await arbitration.explain_choices(service_of(interaction), interaction.channel_id, current))


async def _query_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        rs = await arbitration.ruleset_for(service_of(interaction), interaction.channel_id,
                                           getattr(interaction.namespace, "ruleset", None))
    except Exception:
        return []
    return _choices(await asyncio.to_thread(arbitration.rules_choices, rs, current))


async def send_blocks(interaction: discord.Interaction, blocks: list[str], *, ephemeral: bool,
                      filename: str) -> None:
    """Up to MAX_MESSAGES messages; a longer answer sends its start and the whole as a file."""
    messages = arbitration.pack(blocks)
    if len(messages) <= arbitration.MAX_MESSAGES:
        for m in messages:
            await send(interaction, m, ephemeral=ephemeral, quiet=True)
        return
    for m in messages[: arbitration.MAX_MESSAGES - 1]:
        await send(interaction, m, ephemeral=ephemeral, quiet=True)
    data = arbitration.plain(blocks).encode("utf-8")
    await send(interaction, f"… {len(messages) - arbitration.MAX_MESSAGES + 1} more message(s) of it: "
               f"the whole explanation is in {filename}.", ephemeral=ephemeral, quiet=True,
               file=discord.File(io.BytesIO(data), filename=filename))


class ArbitrationCog(commands.Cog, name="Arbitration"):
    """Rulings players can check: the calculation behind a roll, and the rule itself."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @app_commands.command(name="explain",
                          description="The full calculation of an adjudication: base, modifiers, dice, table, result")
    @app_commands.guild_only()
    @app_commands.describe(entry="Log entry number (default: the last adjudication); recent ones are offered",
                           private="Answer only to you (default: the channel sees it)")
    @app_commands.autocomplete(entry=_entry_autocomplete)
    async def explain(self, interaction: discord.Interaction, entry: str | None = None,
                      private: bool = False) -> None:
        try:
            found, blocks = await arbitration.explain(service_of(interaction), interaction.channel_id, entry)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send_blocks(interaction, blocks, ephemeral=private, filename=f"explain-{found.seq}.txt")

    @app_commands.command(name="rules", description="Look up a rule by section number or by words")
    @app_commands.guild_only()
    @app_commands.describe(query="A section (4.6, §4.6) or words (retreat, horse artillery)",
                           ruleset="The rules to search (default: this channel's game)",
                           private="Answer only to you (default: the channel sees it)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    @app_commands.autocomplete(query=_query_autocomplete)
    async def rules(self, interaction: discord.Interaction, query: str, ruleset: str | None = None,
                    private: bool = False) -> None:
        try:
            rs = await arbitration.ruleset_for(service_of(interaction), interaction.channel_id, ruleset)
            text = await asyncio.to_thread(arbitration.rules_text, rs, query)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send_blocks(interaction, [text], ephemeral=private, filename="rules.txt")


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ArbitrationCog(bot))
