"""/dice and /undo: the players' own dice (bot/physical_dice.py) and taking an action back with
the opponent's consent (bot/undo.py). Thin: the rules of both live in those modules.

The undo answer buttons are `DynamicItem`s whose custom_id carries the game, the seq the request
was made at and the answer (`herald:undo:<game>:<seq>:yes|no`): the cog registers them with the
client each time it loads, so a button posted before a restart still answers afterwards, and a
button from an earlier moment of the game is refused (the request lapsed). After every slash
command in a channel (`on_app_command_completion`) the cog sweeps its game (bot/undo.py `sweep`):
a request that lapsed loses its buttons there and then, and says it was refused automatically."""
from __future__ import annotations

import logging
import re

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from .. import physical_dice
from .. import undo as consent
from ..service import GameService, StaleChoice, pending_of
from ..store import StoreError
from ..status_message import refresh_quietly
from ..views import INTERNAL, post_board, refuse, send, turn_line
from .common import run_action, service_of

log = logging.getLogger(__name__)


class UndoButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=r"herald:undo:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<answer>yes|no)"):
    """Accept or Refuse an undo request. custom_id = herald:undo:<game id>:<seq>:<yes|no>."""

    def __init__(self, game_id: int, seq: int, answer: str):
        self.game_id, self.seq, self.answer = game_id, seq, answer
        yes = answer == "yes"
        super().__init__(discord.ui.Button(
            label="Accept the undo" if yes else "Refuse",
            style=discord.ButtonStyle.success if yes else discord.ButtonStyle.secondary,
            custom_id=f"herald:undo:{game_id}:{seq}:{answer}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str], /) -> "UndoButton":
        return cls(int(match["game"]), int(match["seq"]), match["answer"])

    async def callback(self, interaction: discord.Interaction) -> None:
        service: GameService = interaction.client.service  # type: ignore[attr-defined]
        try:
            text, loaded = await consent.answer(service, interaction.channel_id, interaction.user.id,
                                             self.game_id, self.seq, self.answer == "yes", interaction.id)
        except StaleChoice as exc:          # lapsed: take the buttons off, say why to the clicker
            try:
                await interaction.response.edit_message(view=None)
            except Exception:
                log.debug("could not clear the undo buttons", exc_info=True)
            await refuse(interaction, exc)
            return
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        except Exception:
            log.exception("undo button %s failed", self.custom_id)
            await refuse(interaction, INTERNAL)
            return
        try:
            await interaction.response.edit_message(view=None)     # answered: buttons off
            if loaded is None:
                await send(interaction, text, quiet=True)
                await refresh_quietly(interaction.client, self.game_id)
            else:
                await post_board(interaction, service, loaded,
                                 f"{text}\n{turn_line(loaded, pending_of(loaded.state, loaded.ruleset))}")
        except Exception:
            log.exception("could not post the undo answer of game %s", self.game_id)


def undo_view(game_id: int, seq: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(UndoButton(game_id, seq, "yes"))
    view.add_item(UndoButton(game_id, seq, "no"))
    return view


class ClubActionsCog(commands.Cog, name="Club actions"):
    """Physical dice and undo with consent, for every ruleset."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(UndoButton)      # restart-proof: rebuilt from the custom_id

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(UndoButton)

    @commands.Cog.listener()
    async def on_app_command_completion(self, interaction: discord.Interaction, command) -> None:
        """Any slash command may have moved the game on: close a lapsed undo request."""
        service = getattr(self.bot, "service", None)
        if service is None or interaction.channel_id is None or self.bot.is_closed():
            return
        try:
            row = await service.game_row(interaction.channel_id, finished_ok=True)
        except Exception:
            return                      # no game here
        await consent.sweep(self.bot, row.id)

    @app_commands.command(name="dice", description="Enter the dice you rolled (physical-dice games), or 'cancel'")
    @app_commands.describe(results="What the dice show, in order: TACW 0-9 as printed; Battle Cry face names "
                                   "or 1-6. Empty: what Herald waits for. 'cancel': withdraw the command")
    @app_commands.guild_only()
    async def dice(self, interaction: discord.Interaction, results: str | None = None) -> None:
        service = service_of(interaction)
        try:
            if not results or not results.strip():
                await send(interaction, await physical_dice.status(service, interaction.channel_id),
                           ephemeral=True, quiet=True)
                return
            if results.strip().lower() == "cancel":
                await send(interaction, await physical_dice.cancel(service, interaction.channel_id,
                                                                   interaction.user.id), quiet=True)
                return
            row = await service.game_row(interaction.channel_id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        if physical_dice.mode_of(row.options) != physical_dice.PHYSICAL:
            await refuse(interaction, "Herald rolls the dice in this game (seeded and recorded); physical "
                                      "dice are chosen when a game is created: /game new dice:physical")
            return
        await run_action(interaction, f"{physical_dice.DICE_VERB} {results.strip()}")

    @app_commands.command(name="undo", description="Ask your opponent to let you take back your last action")
    @app_commands.guild_only()
    async def undo(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        try:
            loaded, req, target = await consent.request(service, interaction.channel_id, interaction.user.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        others = consent.opponents(loaded, req["side"])
        who = " ".join(f"<@{u}>" for u in others) or "Your opponent"
        await send(interaction,
                   f"↩️ <@{req['user']}> ({req['side'].title()}) asks to take back #{target.seq}: "
                   f"{consent.what_it_did(target)}\n{who}, do you agree? The request lapses as soon as "
                   "anything new happens (a command, a die, a card).",
                   view=undo_view(loaded.row.id, req["at"]),
                   allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                                            users=[discord.Object(u) for u in others]))
        try:            # where it was posted, so a lapse can take its buttons off (undo.sweep)
            message = await interaction.original_response()
            await consent.remember_message(service, loaded.row.id, req["at"], interaction.channel_id, message.id)
        except Exception:
            log.debug("undo request of game %s: message id not kept", loaded.row.id, exc_info=True)
        await refresh_quietly(self.bot, loaded.row.id)       # the status message shows the request


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ClubActionsCog(bot))
