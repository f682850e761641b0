"""`herald sync`: register Herald's slash commands with Discord, a deliberate act (the bot never
syncs on start, so a sync Discord refuses can never stop it from logging in).

    herald sync                    # register the commands globally (every server Herald is on)
    herald sync --guild ID         # register them on one server only (a test server: instant)
    herald sync --clear-guild ID   # remove one server's copies (repeatable)
    herald sync --clear-global     # remove the global commands
    herald sync --dry-run          # print what would be registered; no token, no network

It needs DISCORD_TOKEN and uses Discord's HTTP API only (log in, PUT the commands, exit): no
gateway connection, no database.

No command is listed twice on a server. A server shows the global commands plus its own guild
copies, so the two never coexist:

- a global sync then removes the guild copies from every server Herald is on (printing each);
- `--guild ID` refuses, with one line, while the application has global commands: clear them
  first (`--clear-global`), or use a second application (its own token) for a test server.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any, Callable, TextIO

import discord
from discord import app_commands

from .client import HeraldBot, failure_line


def add_arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group()
    what.add_argument("--guild", type=int, metavar="ID",
                      help="register the commands on this server only (refused while global commands exist)")
    what.add_argument("--clear-guild", type=int, metavar="ID", action="append",
                      help="remove this server's copies of the commands (repeatable)")
    what.add_argument("--clear-global", action="store_true", help="remove the global commands")
    what.add_argument("--dry-run", action="store_true",
                      help="print what would be registered, without logging in")


class SyncRefused(Exception):
    """`herald sync` will not do it (the message says why and what to do instead)."""


def _names(commands: list[Any]) -> str:
    return ", ".join(sorted(c["name"] if isinstance(c, dict) else c.name for c in commands)) or "(none)"


async def _registered(bot: HeraldBot, guild_id: int | None = None) -> list[dict]:
    app_id = bot.application_id
    if guild_id is None:
        return await bot.http.get_global_commands(app_id)
    return await bot.http.get_guild_commands(app_id, guild_id)


async def _guild_ids(bot: HeraldBot) -> list[int]:
    return [g.id async for g in bot.fetch_guilds(limit=None)]


async def _clear_guild(bot: HeraldBot, guild_id: int, say: Callable[[str], None], why: str = "") -> int:
    """Remove one guild's copies; how many there were."""
    try:
        before = await _registered(bot, guild_id)
    except discord.Forbidden:
        say(f"guild {guild_id}: no access to its commands (is Herald on that server?); nothing cleared")
        return 0
    if not before:
        if not why:
            say(f"guild {guild_id}: no guild commands to clear")
        return 0
    guild = discord.Object(id=guild_id)
    bot.tree.clear_commands(guild=guild)
    await bot.tree.sync(guild=guild)
    say(f"cleared {len(before)} guild command(s) from guild {guild_id}{why}: {_names(before)}")
    return len(before)


async def sync(bot: HeraldBot, token: str, *, guild: int | None = None, clear_guilds: list[int] | None = None,
               clear_global: bool = False, say: Callable[[str], None] = print) -> list[Any]:
    """Log in over HTTP and do one of: global sync (then clear every guild's copies), guild sync
    (refused while global commands exist), clear guilds, clear the global set. Returns the
    commands registered (empty when clearing). Raises SyncRefused, discord errors."""
    async with bot:
        await bot.login(token)            # HTTP only: /users/@me, the application; then the cog tree
        if clear_guilds:
            for gid in clear_guilds:
                await _clear_guild(bot, gid, say)
            return []
        if clear_global:
            before = await _registered(bot)
            bot.tree.clear_commands(guild=None)
            await bot.tree.sync()
            say(f"cleared {len(before)} global command(s): {_names(before)}")
            return []
        if guild is not None:
            existing = await _registered(bot)
            if existing:
                raise SyncRefused(
                    f"the application already has {len(existing)} global command(s), so a copy on guild {guild} "
                    "would list every command twice there. Use `herald sync` (global) alone, or remove the "
                    "global commands first with `herald sync --clear-global`.")
            synced = await bot.sync_tree(guild)
            say(f"registered {len(synced)} top-level command(s) on guild {guild} (available at once): {_names(synced)}")
            return synced
        synced = await bot.sync_tree()
        say(f"registered {len(synced)} top-level command(s) globally: {_names(synced)}")
        for gid in await _guild_ids(bot):     # a guild copy beside the global set lists it twice
            await _clear_guild(bot, gid, say, why=" (the global commands replace them)")
        return synced


def dry_run(bot: HeraldBot, say: Callable[[str], None] = print) -> list[dict]:
    """The payload a global sync would send, built offline."""
    async def build() -> list[dict]:
        async with bot:
            await bot.setup_hook()
            return [c.to_dict(bot.tree) for c in bot.tree.get_commands()]
    payload = asyncio.run(build())
    say(f"would register {len(payload)} top-level command(s) globally: {_names(payload)}")
    return payload


def main(argv: list[str] | None = None, token: str | None = None, err: TextIO | None = None,
         client: HeraldBot | None = None) -> int:
    """`herald sync ...`: the exit code (0 done, 1 refused or failed, 2 no token)."""
    ap = argparse.ArgumentParser(prog="herald sync", description=__doc__.split("\n\n")[0],
                                 epilog="Needs DISCORD_TOKEN (except --dry-run).")
    add_arguments(ap)
    args = ap.parse_args(argv)
    err = err or sys.stderr
    bot = client or HeraldBot(os.environ.get("HERALD_DB", "herald.db"), commands_only=True)
    if args.dry_run:
        dry_run(bot)
        return 0
    token = (token if token is not None else os.environ.get("DISCORD_TOKEN", "")).strip()
    if not token:
        print("herald sync: set DISCORD_TOKEN to the bot's token (developer portal → Bot)", file=err)
        return 2
    try:
        asyncio.run(sync(bot, token, guild=args.guild, clear_guilds=args.clear_guild,
                         clear_global=args.clear_global))
    except SyncRefused as exc:
        print(f"herald sync: refused: {exc}", file=err)
        return 1
    except KeyboardInterrupt:
        print("herald sync: interrupted", file=err)
        return 1
    except app_commands.CommandSyncFailure as exc:
        print(f"herald sync: Discord refused the commands: {' '.join(str(exc).split())}", file=err)
        return 1
    except Exception as exc:
        line = failure_line(exc, bot.db_path)
        if line is None:
            raise
        print(f"herald sync: {line}", file=err)
        return 1
    return 0
