"""The Discord client: opens the store, adds the cogs, registers the restart-proof buttons.

Nothing lives in memory that matters: every game is in SQLite, so a restarted bot (a new client
on the same database file) carries on every game where it stopped, and the retreat buttons
already posted keep working (DynamicItem re-reads game, seq and hex from the custom_id).

Slash commands are synced with Discord only when asked (HERALD_SYNC=1, or `sync=True`): syncing
on every start is rate-limited and unnecessary. HERALD_GUILD_ID syncs to one guild (instant, for
testing) instead of globally.
"""
from __future__ import annotations

import logging
import os

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from .service import GameService
from .store import Store, StoreError
from .views import DYNAMIC_ITEMS, INTERNAL, refuse

log = logging.getLogger(__name__)


class HeraldTree(app_commands.CommandTree):
    """The safety net: nothing a user types may crash the bot."""

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
    def __init__(self, db_path: str, *, sync: bool | None = None, sync_guild: int | None = None):
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(),
                         tree_cls=HeraldTree, help_command=None)
        self.db_path = str(db_path)
        env_sync = os.environ.get("HERALD_SYNC", "").strip().lower() in ("1", "true", "yes")
        self.sync_commands = env_sync if sync is None else sync
        guild = sync_guild if sync_guild is not None else os.environ.get("HERALD_GUILD_ID", "").strip()
        self.sync_guild = int(guild) if guild else None
        self.store: Store | None = None
        self.service: GameService | None = None

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

    async def sync_tree(self) -> list[app_commands.AppCommand]:
        if self.sync_guild:
            guild = discord.Object(id=self.sync_guild)
            self.tree.copy_global_to(guild=guild)
            return await self.tree.sync(guild=guild)
        return await self.tree.sync()

    async def close(self) -> None:
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
