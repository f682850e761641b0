"""The Discord client: opens the store, adds the cogs, registers the restart-proof buttons.

Nothing lives in memory that matters: every game is in SQLite, so a restarted bot (a new client
on the same database file) carries on every game where it stopped, and the retreat buttons
already posted keep working (DynamicItem re-reads game, seq and hex from the custom_id).

The bot never syncs its slash commands on start: `herald sync` registers them (bot/sync.py), so a
sync Discord refuses can never stop the bot from logging in.

Intents: only `guilds` (the channels and the bot's own member, to post the status message and
check its permissions there). Slash commands and buttons arrive as interactions, which need no
intent; Herald reads no message, so text messages ("@Herald hello") are ignored entirely.

`run_bot` runs it: a wrong or revoked token, no network or a refused intent end with one line on
stderr and exit code 1; Ctrl-C or SIGTERM (docker stop) stop it cleanly, closing the database.

Decision deadlines (bot/deadlines.py): a one-minute background task answers every pending
decision whose deadline has passed with the player's default policy and posts the result in the
game's channel. It starts only for a logged-in client (not the offline test harness), or when
asked (`deadlines=True`); HERALD_DEADLINES=0 turns it off.

Shards (issue 17, bot/shards.py): with HERALD_SHARDS set, `make_client` builds a
`ShardedHeraldBot` (`commands.AutoShardedBot`) running the shards named, and its service's
loops (resumption, deadlines, reminders) keep to the guilds of those shards; unset, the plain
`HeraldBot` (one connection) as before.
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
import sys
from datetime import datetime, timezone

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands, tasks

from engine.core.errors import HeraldError

from .app import make_service, settle_memory
from .render_pool import warm_workers
from .deadlines import deadline_hours, expire_due, hours_text
from .names import remember as remember_name
from .service import ActResult, GameService
from .shards import Shards
from .store import Store, StoreError, redact
from .stores import open_store
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


def intents() -> discord.Intents:
    """Only what Herald uses: `guilds` (channels, threads, roles and the bot's own member, for
    posting in a game's channel and checking its permissions there). No privileged intent."""
    return discord.Intents(guilds=True)


NO_PREFIX: tuple[str, ...] = ()     # no text command ever matches (and commands.Bot does not warn
                                    # about the message content intent): Herald is slash commands only


class HeraldBot(commands.Bot):
    def __init__(self, db_path: str, *, deadlines: bool | None = None, commands_only: bool = False,
                 shards: Shards | None = None):
        """`commands_only`: a client for `herald sync`, whose setup builds the command tree and
        opens no database. `shards` (HERALD_SHARDS, bot/shards.py): only `ShardedHeraldBot`
        runs shards; `make_client` picks the class."""
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False    # Herald has no voice
        super().__init__(command_prefix=NO_PREFIX, intents=intents(), tree_cls=HeraldTree, help_command=None,
                         **self._shard_options(shards))
        self.herald_shards = shards       # not `shards`: AutoShardedClient.shards is its connections
        self.db_path = str(db_path)
        self.store: Store | None = None
        self.service: GameService | None = None
        self.run_deadlines = deadlines
        self.commands_only = commands_only

    @staticmethod
    def _shard_options(shards: Shards | None) -> dict:
        if shards is not None:
            raise ValueError("a bot running shards is a ShardedHeraldBot: use make_client(db_path, shards=...)")
        return {}

    async def on_message(self, message: discord.Message) -> None:
        """Text messages are ignored: no prefix, no mention command, nothing logged."""

    async def setup_hook(self) -> None:
        from .cogs import setup as add_cogs

        if self.commands_only:
            await add_cogs(self)
            return
        self.store = await open_store(self.db_path)     # a file, or HERALD_DATABASE_URL (bot/store_pg.py)
        self.service = make_service(self.store)       # the service and its club features (bot/app.py)
        self.service.shards = self.herald_shards      # the loops pick only this process's games
        await add_cogs(self)          # /game, Battle Cry (and the shared verbs), TACW
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        resumed = await self.service.resume_all()
        if self.http.token:        # a real bot, not the offline harness (whose tests start many)
            # the render workers start now, each drawing the resumed games' boards while the bot
            # logs in (bot/render_pool.py: warm_workers); then what was loaded leaves the
            # garbage collector's sight
            await warm_workers(self.service.resumed_games, store=self.store)
            settle_memory()
        self.service.resumed_games = []
        log.info("store %s open; %d active game(s) resumed%s", redact(self.db_path), len(resumed),
                 f" (this process runs {self.herald_shards.describe()})" if self.herald_shards is not None else "")
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
        from .permissions import cannot_post, check_channel, posted
        what = f"game {result.game_id}'s deadline answer #{result.seq}"
        if not check_channel(self, channel, row.channel_id, what):
            return
        hours = deadline_hours(row.options)
        why = (f"⏰ **{result.side.title()}** did not answer within {hours_text(hours) if hours else 'the deadline'}: "
               f"Herald applies their default policy, `{result.text}`.")
        kwargs = await result_message_parts(self.service, result)
        from .status_message import refresh_quietly, with_pings
        try:
            await channel.send(with_pings(clip(f"{why}\n{result_text(result)}"), kwargs), **kwargs)
        except discord.Forbidden:
            cannot_post(self, row.channel_id, what)
            return
        posted(self, row.channel_id)
        await refresh_quietly(self, result.game_id)        # the game's one status message
        from .undo import sweep
        await sweep(self, result.game_id)                  # an undo request lapses on new information

    async def sync_tree(self, guild_id: int | None = None) -> list[app_commands.AppCommand]:
        """Register the commands globally, or on one guild (a copy of the global set). Only
        `herald sync` calls it (bot/sync.py, which keeps a guild from listing them twice)."""
        if guild_id:
            guild = discord.Object(id=guild_id)
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


class ShardedHeraldBot(HeraldBot, commands.AutoShardedBot):
    """Herald on `commands.AutoShardedBot` (HERALD_SHARDS set, bot/shards.py): this process
    connects the shards named (`shard_ids` of `shard_count`), or every shard for `auto`. Discord
    sends each guild's interactions to its shard's connection; the deadline loop and the resumption
    at start keep to the guilds of these shards (`bot.shards.owned_games`)."""

    @staticmethod
    def _shard_options(shards: Shards | None) -> dict:
        return shards.client_options() if shards is not None else {}


def make_client(db_path: str, *, shards: Shards | None = None, **kwargs) -> HeraldBot:
    """The bot: a `ShardedHeraldBot` when `shards` is given (HERALD_SHARDS), else the plain one."""
    if shards is not None:
        return ShardedHeraldBot(db_path, shards=shards, **kwargs)
    return HeraldBot(db_path, **kwargs)


# --- running it ---------------------------------------------------------------------------------
def failure_line(exc: BaseException, db_path: str = "herald.db") -> str | None:
    """The one line a start-up failure ends with, or None for an unexpected error."""
    if isinstance(exc, discord.LoginFailure):
        return ("Discord refused the token (DISCORD_TOKEN is wrong or was reset): copy the bot's token "
                "again from the developer portal (Bot → Reset Token)")
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return ("Discord refused a privileged intent Herald asked for; Herald needs none, so this is a bug: "
                "please report it (or enable the intent under Bot → Privileged Gateway Intents)")
    if isinstance(exc, (aiohttp.ClientConnectionError, asyncio.TimeoutError, OSError, discord.GatewayNotFound)):
        return f"cannot reach Discord (no network, or Discord is down): {exc or type(exc).__name__}"
    if isinstance(exc, discord.HTTPException):
        return f"Discord answered {exc.status}: {exc.text or exc}"
    if isinstance(exc, discord.ConnectionClosed):
        return f"Discord closed the connection (code {exc.code}): {exc.reason or exc}"
    if isinstance(exc, (sqlite3.Error, StoreError)):
        return f"cannot open the database {redact(db_path)!r} (HERALD_DATABASE_URL or HERALD_DB): {exc}"
    return None


async def _serve(bot: HeraldBot, token: str) -> None:
    loop = asyncio.get_running_loop()
    try:                                  # docker stop: SIGTERM closes the bot like Ctrl-C
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    except (NotImplementedError, RuntimeError):
        pass                              # Windows, or not the main thread
    async with bot:                       # bot.close() on the way out closes the store
        try:
            await bot.start(token)
        except sqlite3.Error:
            await asyncio.sleep(0.2)      # aiosqlite's thread stops after a failed open: let it
            raise                         # finish while the loop runs (else it prints a traceback)


def run_bot(token: str, db_path: str, client: HeraldBot | None = None, *, shards: Shards | None = None) -> int:
    """Run the bot until it is stopped; the exit code. Failures at start end with ONE line on
    stderr (exit 1), not a traceback; Ctrl-C and SIGTERM stop it cleanly (exit 0). `shards`:
    HERALD_SHARDS parsed (bot/shards.py), None for one plain connection."""
    bot = client or make_client(db_path, shards=shards)
    try:
        asyncio.run(_serve(bot, token))
    except KeyboardInterrupt:
        print("herald: stopped", file=sys.stderr)
        return 0
    except Exception as exc:
        line = failure_line(exc, bot.db_path)
        if line is None:
            raise
        print(f"herald: {line}", file=sys.stderr)
        return 1
    return 0
