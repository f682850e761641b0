"""The Discord client: opens the store, adds the cogs, registers the restart-proof buttons.

Nothing lives in memory that matters: every game is in SQLite, so a restarted bot (a new client
on the same database file) carries on every game where it stopped, and the retreat buttons
already posted keep working (DynamicItem re-reads game, seq and hex from the custom_id).

Slash commands are synced with Discord only when asked (HERALD_SYNC=1, or `sync=True`): syncing
on every start is rate-limited and unnecessary. HERALD_GUILD_ID syncs to one guild (instant, for
testing) instead of globally.

Decision deadlines (bot/deadlines.py): a one-minute background task answers every pending
decision whose deadline has passed with the player's default policy and posts the result in the
game's channel. It starts only for a logged-in client (not the offline test harness), or when
asked (`deadlines=True`); HERALD_DEADLINES=0 turns it off.
"""
from __future__ import annotations

import logging
import os
from datetime import datetime, timezone

import discord
from discord import app_commands
from discord.ext import commands, tasks

from engine.core.errors import HeraldError

from .deadlines import deadline_hours, expire_due, hours_text
from .names import remember as remember_name
from .service import ActResult, GameService
from .store import Store, StoreError
from .views import DYNAMIC_ITEMS, INTERNAL, clip, refuse, result_message_parts, result_text

log = logging.getLogger(__name__)


class HeraldTree(app_commands.CommandTree):
    """The safety net: nothing a user types may crash the bot."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Before every command: keep the user's name as it shows on the server (bot/names.py)."""
        await remember_name(getattr(self.client, "store", None), interaction)
        return True

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        original = getattr(error, "original", error)
        if isinstance(original, (HeraldError, StoreError)):
            text: str | BaseException = original
        elif isinstance(error, (app_commands.CheckFailure, app_commands.TransformerError,
                                app_commands.CommandNotFound, app_commands.CommandSignatureMismatch)):
            text = str(error) or "this command cannot be used here"
        else:
            log.error("unexpected error in /%s", getattr(interaction.command, "qualified_name", "?"),
                      exc_info=original)
            text = INTERNAL
        try:
            await refuse(interaction, text)
        except Exception:
            log.exception("could not report an error to the user")


class HeraldBot(commands.Bot):
    def __init__(self, db_path: str, *, sync: bool | None = None, sync_guild: int | None = None,
                 deadlines: bool | None = None):
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         tree_cls=HeraldTree, help_command=None)
        self.db_path = str(db_path)
        env_sync = os.environ.get("HERALD_SYNC", "").strip().lower() in ("1", "true", "yes")
        self.sync_commands = env_sync if sync is None else sync
        guild = sync_guild if sync_guild is not None else os.environ.get("HERALD_GUILD_ID", "").strip()
        self.sync_guild = int(guild) if guild else None
        self.store: Store | None = None
        self.service: GameService | None = None
        self.run_deadlines = deadlines

    async def setup_hook(self) -> None:
        from .cogs import setup as add_cogs

        self.store = await Store.open(self.db_path)
        self.service = GameService(self.store)
        await add_cogs(self)          # /game, Battle Cry (and the shared verbs), TACW
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        resumed = await self.service.resume_all()
        log.info("store %s open; %d active game(s) resumed", self.db_path, len(resumed))
        if self.sync_commands:
            await self.sync_tree()
        if self._wants_deadline_task():
            self.deadline_loop.start()

    # -- decision deadlines ---------------------------------------------------------------
    def _wants_deadline_task(self) -> bool:
        if self.run_deadlines is not None:
            return self.run_deadlines
        if os.environ.get("HERALD_DEADLINES", "").strip().lower() in ("0", "false", "no", "off"):
            return False
        return bool(self.http.token)      # login() ran: a real bot, not the offline harness

    @tasks.loop(minutes=1)
    async def deadline_loop(self) -> None:
        await self.expire_deadlines()
        await self.turn_timers()

    async def turn_timers(self, now: datetime | None = None) -> list:
        """Turn deadlines: post the reminders and referee notices due (bot/status_message.py)."""
        from .status_message import tick
        return await tick(self, now or datetime.now(timezone.utc))

    @deadline_loop.before_loop
    async def _before_deadline_loop(self) -> None:
        await self.wait_until_ready()     # channels are known once READY has arrived

    async def expire_deadlines(self, now: datetime | None = None) -> list[ActResult]:
        """Apply every expired decision's default answer and post each result; never raises
        (an exception would stop the loop)."""
        if self.service is None:
            return []
        try:
            results = await expire_due(self.service, now or datetime.now(timezone.utc))
        except Exception:
            log.exception("decision deadlines could not be checked")
            return []
        for result in results:
            try:
                await self.post_deadline_result(result)
            except Exception:
                log.exception("could not post the deadline answer of game %s", result.game_id)
        return results

    async def post_deadline_result(self, result: ActResult) -> None:
        """The public message for a default answer: why, the narrative, the board, new buttons."""
        row = await self.store.get_game(result.game_id) if self.store is not None else None
        channel = self.get_channel(row.channel_id) if row is not None else None
        if channel is None:
            log.warning("game %s: deadline answer #%s `%s` applied, but its channel is unknown",
                        result.game_id, result.seq, result.text)
            return
        hours = deadline_hours(row.options)
        why = (f"⏰ **{result.side.title()}** did not answer within {hours_text(hours) if hours else 'the deadline'}: "
               f"Herald applies their default policy, `{result.text}`.")
        kwargs = await result_message_parts(self.service, result)
        from .status_message import refresh_quietly, with_pings
        await channel.send(with_pings(clip(f"{why}\n{result_text(result)}"), kwargs), **kwargs)
        await refresh_quietly(self, result.game_id)        # the game's one status message
        from .undo import sweep
        await sweep(self, result.game_id)                  # an undo request lapses on new information

    async def sync_tree(self) -> list[app_commands.AppCommand]:
        if self.sync_guild:
            guild = discord.Object(id=self.sync_guild)
            self.tree.copy_global_to(guild=guild)
            return await self.tree.sync(guild=guild)
        return await self.tree.sync()

    async def close(self) -> None:
        self.deadline_loop.cancel()
        try:
            await super().close()
        finally:
            if self.store is not None:
                store, self.store = self.store, None
                await store.close()


def make_client(db_path: str, **kwargs) -> HeraldBot:
    return HeraldBot(db_path, **kwargs)


def run_bot(token: str, db_path: str) -> None:
    make_client(db_path).run(token, log_handler=None)
