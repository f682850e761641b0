"""Herald on a real server (issue 11, "Ready for a real server"), offline:

- `herald sync` (bot/sync.py) against a fake Discord REST API (`HTTPClient.request` replaced):
  the payload it would PUT, and that no command is ever listed twice on a server;
- start-up failures (wrong token, no network, a refused intent) end with one line and exit 1,
  Ctrl-C and SIGTERM stop cleanly with the database closed;
- intents and text messages: only `guilds`, and "@Herald hello" logs nothing;
- channel permissions: /game new refuses naming what is missing; where Herald cannot post as
  itself the status message and the notices are skipped with one warning line and the players
  are told privately (bot/permissions.py);
- /scenario upload and /turn status defer first, privately;
- the README's invite permission integer is the code's.
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import sqlite3
import threading
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import discord
import pytest
from discord.http import HTTPClient

from bot import main as herald_main
from bot import permissions
from bot import sync as herald_sync
from bot.client import HeraldBot, intents
from bot.deadlines import TURN_SET_AT, parse_time
from bot.status_message import STATUS_KEY
from tests.bot.harness import (ALICE, APP_ID, BOB, CHANNEL_ID, GUILD_ID, fake_discord_rest, invoke,
                               message_payload)
from tests.bot.test_status_message import FakeChannel
from tests.bot.test_uploads import MY_BATTLE, Cdn, upload

README = Path(__file__).resolve().parents[2] / "README.md"
GUILD_A, GUILD_B = 600000000000000001, 600000000000000002
SEND_ONLY = discord.Permissions(view_channel=True, read_message_history=True)   # no Send Messages, no Attach Files


# --- a fake Discord REST API -------------------------------------------------------------------
class FakeDiscord:
    """Discord's HTTP API as `herald sync` and login use it: the application's global commands,
    each guild's commands, the guilds the bot is in. Records every request."""

    def __init__(self, *, global_commands: list[str] = (), guild_commands: dict[int, list[str]] | None = None,
                 guilds: list[int] = (), login_error: BaseException | None = None):
        self._ids = iter(range(1000, 10 ** 6))
        self.global_commands = [self._cmd(n) for n in global_commands]
        self.guild_commands = {g: [self._cmd(n, g) for n in names] for g, names in (guild_commands or {}).items()}
        self.guilds = list(guilds)
        self.login_error = login_error
        self.requests: list[tuple[str, str, object]] = []

    def _cmd(self, name: str, guild: int | None = None, payload: dict | None = None) -> dict:
        d = {"type": 1, "description": "x", "options": [], **(payload or {}), "name": name,
             "id": str(next(self._ids)), "application_id": str(APP_ID),
             "version": "1", "default_member_permissions": None, "nsfw": False}
        if guild:
            d["guild_id"] = str(guild)
        return d

    def puts(self, path_part: str = "") -> list[tuple[str, list]]:
        return [(url, body) for method, url, body in self.requests if method == "PUT" and path_part in url]

    async def request(self, route, **kwargs):           # replaces HTTPClient.request (self is the fake)
        body = kwargs.get("json")
        self.requests.append((route.method, route.url, body))
        key = (route.method, route.path)
        if key == ("GET", "/users/@me"):
            if self.login_error is not None:
                raise self.login_error
            return {"id": str(APP_ID), "username": "herald", "discriminator": "0", "avatar": None, "bot": True,
                    "global_name": None, "mfa_enabled": False, "verified": True, "flags": 0}
        if key == ("GET", "/oauth2/applications/@me"):
            return {"id": str(APP_ID), "name": "Herald", "description": "", "icon": None, "bot_public": False,
                    "bot_require_code_grant": False, "verify_key": "0" * 64, "flags": 0,
                    "owner": {"id": "1", "username": "owner", "discriminator": "0", "avatar": None}}
        if key == ("GET", "/applications/{application_id}/commands"):
            return list(self.global_commands)
        if key == ("PUT", "/applications/{application_id}/commands"):
            self.global_commands = [self._cmd(c["name"], payload=c) for c in body]
            return list(self.global_commands)
        if key == ("GET", "/applications/{application_id}/guilds/{guild_id}/commands"):
            return list(self.guild_commands.get(int(route.guild_id), []))
        if key == ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands"):
            gid = int(route.guild_id)
            self.guild_commands[gid] = [self._cmd(c["name"], gid, payload=c) for c in body]
            return list(self.guild_commands[gid])
        if key == ("GET", "/users/@me/guilds"):
            after = int(kwargs.get("params", {}).get("after") or 0)
            return [{"id": str(g), "name": f"guild {g}", "icon": None, "owner": False, "permissions": "0",
                     "features": []} for g in self.guilds if g > after]
        raise AssertionError(f"unexpected Discord request {route.method} {route.url}")

    def listed_on(self, guild: int) -> list[str]:
        """What a member of `guild` sees: the global commands plus the guild's own."""
        return sorted(c["name"] for c in self.global_commands + self.guild_commands.get(guild, []))


@pytest.fixture
def api(monkeypatch):
    fake = FakeDiscord()

    async def request(self, route, **kwargs):
        return await fake.request(route, **kwargs)
    monkeypatch.setattr(HTTPClient, "request", request)
    return fake


def run_sync(capsys, *argv: str) -> tuple[int, str, str]:
    rc = herald_sync.main(list(argv), token="fake-token")
    out, err = capsys.readouterr()
    return rc, out, err


def tree_names() -> list[str]:
    payload = herald_sync.dry_run(HeraldBot(":memory:", commands_only=True), say=lambda s: None)
    return sorted(c["name"] for c in payload)


# --- herald sync ---------------------------------------------------------------------------------
def test_sync_registers_the_tree_globally_and_clears_the_guild_copies(api, capsys):
    """A global sync PUTs the whole tree once, prints the count and names, and removes the
    guild copies a test left on a server, so that server does not list each command twice."""
    names = tree_names()
    api.guilds = [GUILD_A, GUILD_B]
    api.guild_commands = {GUILD_A: [api._cmd(n, GUILD_A) for n in names]}      # an earlier --guild sync
    rc, out, err = run_sync(capsys)
    assert rc == 0, err
    [(url, payload)] = api.puts(f"/applications/{APP_ID}/commands")
    assert sorted(c["name"] for c in payload) == names
    assert all(c["type"] == 1 and len(c["description"]) <= 100 for c in payload)
    assert f"registered {len(names)} top-level command(s) globally: " in out and ", ".join(names) in out
    [(_, cleared)] = api.puts(f"/guilds/{GUILD_A}/commands")
    assert cleared == []
    assert f"cleared {len(names)} guild command(s) from guild {GUILD_A}" in out
    assert not api.puts(f"/guilds/{GUILD_B}/")              # nothing there: nothing sent
    for guild in (GUILD_A, GUILD_B):
        assert api.listed_on(guild) == names                # each command once
    assert err == ""


def test_sync_to_a_guild_is_refused_while_global_commands_exist(api, capsys):
    api.global_commands = [api._cmd(n) for n in ("game", "act")]
    rc, out, err = run_sync(capsys, "--guild", str(GUILD_A))
    assert rc == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("herald sync: refused: the application already has 2 global")
    assert "list every command twice" in err and "--clear-global" in err
    assert not api.puts()                                   # nothing registered


def test_sync_to_a_guild_then_clear_it(api, capsys):
    names = tree_names()
    rc, out, err = run_sync(capsys, "--guild", str(GUILD_A))
    assert rc == 0, err
    [(url, payload)] = api.puts()
    assert url.endswith(f"/applications/{APP_ID}/guilds/{GUILD_A}/commands")
    assert sorted(c["name"] for c in payload) == names     # copy_global_to: the whole tree
    assert not api.global_commands and api.listed_on(GUILD_A) == names
    assert f"registered {len(names)} top-level command(s) on guild {GUILD_A}" in out

    rc, out, err = run_sync(capsys, "--clear-guild", str(GUILD_A), "--clear-guild", str(GUILD_B))
    assert rc == 0, err
    assert api.listed_on(GUILD_A) == []
    assert f"cleared {len(names)} guild command(s) from guild {GUILD_A}" in out
    assert f"guild {GUILD_B}: no guild commands to clear" in out


def test_sync_clear_global(api, capsys):
    api.global_commands = [api._cmd(n) for n in ("game", "act")]
    rc, out, err = run_sync(capsys, "--clear-global")
    assert rc == 0, err
    [(_, body)] = api.puts()
    assert body == [] and api.global_commands == []
    assert "cleared 2 global command(s): act, game" in out


def test_sync_needs_a_token_and_options_exclude_each_other(api, capsys, monkeypatch):
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert herald_main.main(["sync"]) == 2
    assert "set DISCORD_TOKEN" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        herald_sync.main(["--guild", "1", "--clear-global"], token="t")
    assert herald_main.main(["sync", "--dry-run"]) == 0
    assert "would register" in capsys.readouterr().out and not api.requests


def test_sync_with_a_wrong_token_says_so_in_one_line(api, capsys):
    api.login_error = discord.HTTPException(SimpleNamespace(status=401, reason="Unauthorized"),
                                            {"code": 0, "message": "401: Unauthorized"})
    rc, out, err = run_sync(capsys)
    assert rc == 1 and err.count("\n") == 1 and "Discord refused the token" in err


def test_the_bot_never_syncs_on_start(api, capsys, tmp_path, monkeypatch):
    """Logged in and set up (store, cogs, games resumed), the bot has sent no command to Discord:
    a sync Discord refuses can never stop it from starting. HERALD_SYNC is gone."""
    from bot.client import run_bot
    monkeypatch.setenv("HERALD_SYNC", "1")
    bot = HeraldBot(str(tmp_path / "h.db"))

    async def stop():
        assert bot.service is not None and len(bot.tree.get_commands()) > 10
        await bot.close()
    _started(bot, stop)
    assert run_bot("t0ken", bot.db_path, client=bot) == 0
    assert [(m, url.split("/api/v10")[1]) for m, url, _ in api.requests] == [
        ("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
    assert "HERALD_SYNC" not in README.read_text(encoding="utf-8")


# --- start-up failures and stopping --------------------------------------------------------------
def connector_error() -> aiohttp.ClientConnectorError:
    key = SimpleNamespace(host="discord.com", port=443, ssl=True)
    return aiohttp.ClientConnectorError(key, OSError(-3, "Temporary failure in name resolution"))


@pytest.mark.parametrize("error, words", [
    (discord.HTTPException(SimpleNamespace(status=401, reason="Unauthorized"), {"code": 0, "message": "401"}),
     "Discord refused the token"),
    (connector_error(), "cannot reach Discord"),
    (asyncio.TimeoutError(), "cannot reach Discord"),
    (OSError(101, "Network is unreachable"), "cannot reach Discord"),
])
def test_a_wrong_token_or_no_network_ends_with_one_line(api, capsys, monkeypatch, tmp_path, error, words):
    api.login_error = error
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-token")
    monkeypatch.setenv("HERALD_DB", str(tmp_path / "h.db"))
    assert herald_main.main([]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("herald: ") and words in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "h.db").exists()               # the token is checked before the store opens


def test_a_refused_privileged_intent_ends_with_one_line(api, capsys, monkeypatch, tmp_path):
    async def connect(self, *, reconnect=True):
        raise discord.PrivilegedIntentsRequired(None)
    monkeypatch.setattr(HeraldBot, "connect", connect)
    monkeypatch.setenv("DISCORD_TOKEN", "t0ken")
    monkeypatch.setenv("HERALD_DB", str(tmp_path / "h.db"))
    assert herald_main.main(["bot"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "privileged intent" in err


def test_an_unusable_database_ends_with_one_line(api, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DISCORD_TOKEN", "t0ken")
    monkeypatch.setenv("HERALD_DB", str(tmp_path / "no-such-dir" / "h.db"))
    assert herald_main.main([]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the database" in err and "no-such-dir" in err


def _started(bot: HeraldBot, then):
    """A `connect` for `bot` that records the open store and runs `then` (the gateway never)."""
    seen = {}

    async def connect(*, reconnect=True):
        seen["store"] = bot.store
        await then()
    bot.connect = connect
    return seen


def test_ctrl_c_stops_cleanly_and_closes_the_database(api, capsys, tmp_path):
    from bot.client import run_bot
    bot = HeraldBot(str(tmp_path / "h.db"))

    async def interrupt():
        raise KeyboardInterrupt
    seen = _started(bot, interrupt)
    assert run_bot("t0ken", bot.db_path, client=bot) == 0
    assert "herald: stopped" in capsys.readouterr().err
    assert seen["store"] is not None and bot.store is None and seen["store"].closed
    assert bot.is_closed()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals: main thread")
def test_sigterm_stops_cleanly_and_closes_the_database(api, capsys, tmp_path):
    """docker stop sends SIGTERM: the bot closes (the store with it) and exits 0."""
    from bot.client import run_bot
    bot = HeraldBot(str(tmp_path / "h.db"))

    async def terminate():
        loop = asyncio.get_running_loop()
        assert signal.SIGTERM in loop._signal_handlers        # else the signal would end pytest itself
        os.kill(os.getpid(), signal.SIGTERM)
        while not bot.is_closed():
            await asyncio.sleep(0.01)
    seen = _started(bot, terminate)
    assert run_bot("t0ken", bot.db_path, client=bot) == 0
    assert seen["store"].closed and bot.store is None


# --- intents and text messages -------------------------------------------------------------------
def test_intents_are_only_guilds():
    assert intents() == discord.Intents(guilds=True)
    bot = HeraldBot(":memory:")
    assert bot.intents.value == discord.Intents(guilds=True).value
    assert not (bot.intents.message_content or bot.intents.members or bot.intents.presences
                or bot.intents.guild_messages)


async def test_a_message_mentioning_herald_logs_no_error(bot, caplog):
    """No mention prefix: "@Herald hello" used to log an ERROR traceback (CommandNotFound)."""
    channel = discord.PartialMessageable(state=bot._connection, id=CHANNEL_ID, guild_id=GUILD_ID)
    data = message_payload(f"<@{APP_ID}> hello", 1234, channel_id=CHANNEL_ID)
    data["author"] = {"id": str(ALICE), "username": "alice", "discriminator": "0", "avatar": None}
    data["mentions"] = [{"id": str(APP_ID), "username": "herald", "discriminator": "0", "avatar": None, "bot": True}]
    message = discord.Message(state=bot._connection, channel=channel, data=data)
    with caplog.at_level(logging.DEBUG):
        bot.dispatch("message", message)
        await bot.process_commands(message)                  # even asked to, no command matches
        for _ in range(5):
            await asyncio.sleep(0)
    assert (await bot.get_context(message)).command is None
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


# --- channel permissions -------------------------------------------------------------------------
async def _game_new(d, app_permissions: discord.Permissions, **opts):
    payload = d.payload("game", sub="new", user=ALICE, ruleset="battlecry", scenario="test-skirmish",
                        side="union", seed="1", **opts)
    payload["app_permissions"] = str(app_permissions.value)
    with fake_discord_rest() as rest:
        await invoke(d.bot, payload)
    return rest


async def test_game_new_names_the_permissions_herald_lacks(d):
    rest = await _game_new(d, SEND_ONLY)
    msg = rest.last
    assert msg.ephemeral and msg.content.startswith("❌ Herald cannot run a game in this channel")
    assert "Send Messages and Attach Files" in msg.content and "View Channel" not in msg.content
    assert await d.bot.store.active_game(CHANNEL_ID) is None
    rest = await _game_new(d, permissions.REQUIRED)
    assert not rest.last.ephemeral and "New game #" in rest.last.content


async def test_game_new_in_a_thread_needs_send_messages_in_threads(bot):
    from tests.bot.harness import Driver
    thread = Driver(bot, channel_id=CHANNEL_ID + 1, thread=True)
    no_threads = discord.Permissions(permissions.REQUIRED.value)
    no_threads.send_messages_in_threads = False
    rest = await _game_new(thread, no_threads)
    assert rest.last.ephemeral and "lacks the permission Send Messages in Threads here" in rest.last.content
    in_threads = discord.Permissions(permissions.REQUIRED.value)
    in_threads.send_messages = False                         # not needed in a thread
    rest = await _game_new(thread, in_threads)
    assert not rest.last.ephemeral, rest.last.content


class LockedChannel(FakeChannel):
    """A channel where Herald's own member has `perms` (a real guild's permissions_for)."""

    def __init__(self, perms: discord.Permissions | None = None, forbidden: bool = False):
        super().__init__()
        self.perms, self.forbidden = perms, forbidden
        self.guild = SimpleNamespace(me=SimpleNamespace(id=APP_ID))
        self.type = discord.ChannelType.text

    def permissions_for(self, member):
        return self.perms if self.perms is not None else discord.Permissions.all()

    async def send(self, content, **kw):
        if self.forbidden:
            raise discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),
                                    {"code": 50013, "message": "Missing Permissions"})
        return await super().send(content, **kw)


def _warnings(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("bot")]


@pytest.mark.parametrize("locked", ["permissions", "403"])
async def test_where_herald_cannot_post_players_are_told_and_one_warning_is_logged(d, game, monkeypatch,
                                                                                   caplog, locked):
    channel = LockedChannel(SEND_ONLY) if locked == "permissions" else LockedChannel(forbidden=True)
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: channel if cid == CHANNEL_ID else None)
    with caplog.at_level(logging.INFO):
        rest = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    *_, reply, note = rest.messages()
    assert not reply.ephemeral and "attack" in reply.content.lower()       # the action is answered as ever
    assert note.ephemeral and note.content.startswith("⚠️ Herald cannot post in this channel as itself")
    assert ("Send Messages and Attach Files" in note.content) == (locked == "permissions")
    assert channel.sent == []                                              # nothing posted as itself
    [warning] = _warnings(caplog)
    assert warning.levelno == logging.WARNING and warning.exc_info is None
    assert f"cannot post in channel {CHANNEL_ID}" in warning.getMessage() and "status message" in warning.getMessage()

    caplog.clear()
    rest = await d.cmd("bc", sub="order", user=ALICE, units="ui2")                   # told once an hour, not each time
    assert all(not m.content.startswith("⚠️") for m in rest.messages())
    assert _warnings(caplog) == []                                         # and logged once

    rest = await d.cmd("turn", sub="status", user=BOB)                     # /turn status says why
    assert rest.calls[0].type == 5 and rest.last.ephemeral
    assert rest.last.content.startswith("⚠️ Herald cannot post in this channel") and "📋" in rest.last.content

    if locked == "permissions":                                            # an admin grants them
        channel.perms = permissions.REQUIRED
        await d.cmd("bc", sub="move", user=ALICE, unit="ui2", to="0605")
        assert len(channel.status_posts()) == 1 and permissions.blocked(d.bot, CHANNEL_ID) is None


async def test_turn_reminders_are_skipped_with_one_warning_where_herald_cannot_post(d, game, monkeypatch, caplog):
    channel = LockedChannel()
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: channel if cid == CHANNEL_ID else None)
    await d.cmd("turn", sub="deadline", user=ALICE, hours=4)
    options = (await d.bot.store.get_game(game.id)).options
    t0 = parse_time(options[TURN_SET_AT])
    assert STATUS_KEY in options
    channel.perms = SEND_ONLY                                              # the permission is taken away
    with caplog.at_level(logging.INFO):
        [reminder] = await d.bot.turn_timers(t0 + timedelta(hours=3, minutes=1))
    assert reminder.kind == "reminder" and channel.others() == []
    [warning] = _warnings(caplog)
    assert "reminder not posted" in warning.getMessage() and warning.exc_info is None


# --- defer first ---------------------------------------------------------------------------------
@pytest.fixture
def cdn(bot, monkeypatch) -> Cdn:
    c = Cdn()
    monkeypatch.setattr(bot.http, "get_from_cdn", c.get_from_cdn)
    return c


async def test_scenario_upload_defers_privately_then_posts_the_board_for_all(d, cdn):
    rest = await upload(d, cdn, MY_BATTLE)
    first = rest.calls[0]
    assert first.kind == "response" and first.type == 5 and first.ephemeral
    confirm, board = rest.messages()
    assert confirm.ephemeral and confirm.content.startswith("✅")
    assert not board.ephemeral and "Club Ridge" in board.content and board.files

    rest = await upload(d, cdn, MY_BATTLE.replace('hex = "0306"', 'hex = "9999"'), filename="bad.toml")
    assert rest.calls[0].type == 5 and rest.calls[0].ephemeral
    [refusal] = rest.messages()
    assert refusal.ephemeral and refusal.content.startswith("❌")


async def test_turn_status_defers_first_and_refuses_privately(d):
    rest = await d.cmd("turn", sub="status", user=ALICE)                 # no game here
    assert rest.calls[0].type == 5 and rest.calls[0].ephemeral
    assert rest.last.ephemeral and rest.last.content.startswith("❌")


# --- the README ----------------------------------------------------------------------------------
def test_the_readme_invite_has_the_permissions_herald_needs():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Running Herald on your server", 1)[1].split("\n## ", 1)[0]
    ints = {int(m) for m in re.findall(r"permissions=(\d+)", section)}
    assert ints == {permissions.PERMISSIONS_INTEGER}
    assert "scope=bot+applications.commands" in section
    assert all(label in section for label in permissions.LABELS.values())
    assert f"`{permissions.PERMISSIONS_INTEGER}`" in section
    assert "herald sync" in section and "--guild" in section and "--clear-guild" in section
    assert permissions.invite_url("APPLICATION_ID") in section
