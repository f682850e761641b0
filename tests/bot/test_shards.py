"""Shards (issue 17, bot/shards.py): HERALD_SHARDS parsed with clear refusals, Discord's shard
formula, the bot class it picks, and the loops no interaction starts (resuming games, decision
deadlines, turn reminders) keeping to the guilds of the process's shards, so two processes on
one database each handle their own games, and every game exactly one of them."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import discord
import pytest
from discord.ext import commands

from bot import main as herald_main
from bot.client import HeraldBot, ShardedHeraldBot, make_client
from bot.deadlines import DEADLINE_OPTION, due_notices, expire_due, set_turn_deadline
from bot.shards import Shards, ShardsError, from_env, owned, owned_games, owns, parse, shard_of
from tests.bot.conftest import SEED, start_bot
from tests.bot.harness import ALICE, BOB, Driver, fake_login

ROOT = Path(__file__).resolve().parents[2]


# --- HERALD_SHARDS ------------------------------------------------------------------------------
@pytest.mark.parametrize("text, ids, total", [
    ("0-3/8", (0, 1, 2, 3), 8),
    ("4-7/8", (4, 5, 6, 7), 8),
    ("5/8", (5,), 8),
    ("0/1", (0,), 1),
    (" 2 - 3 / 4 ", (2, 3), 4),
    ("0-0/2", (0,), 2),
])
def test_a_shard_range_is_parsed(text, ids, total):
    shards = parse(text)
    assert (shards.ids, shards.total) == (ids, total)
    assert shards.client_options() == {"shard_ids": list(ids), "shard_count": total}


def test_unset_is_one_plain_connection_and_auto_every_shard():
    assert parse(None) is None and parse("") is None and parse("   ") is None
    assert from_env({}) is None and from_env({"HERALD_SHARDS": ""}) is None
    auto = parse(" AUTO ")
    assert auto == Shards(None, None) and auto.client_options() == {}
    assert auto.owns(123 << 22) and auto.owns(None)
    assert from_env({"HERALD_SHARDS": "1/2"}) == Shards((1,), 2)


@pytest.mark.parametrize("text, why", [
    ("0-3", "not a shard range"),
    ("8", "not a shard range"),
    ("a-b/8", "not a shard range"),
    ("-1/8", "not a shard range"),
    ("0-3/8/2", "not a shard range"),
    ("0,1/4", "not a shard range"),
    ("0-٣/8", "not a shard range"),            # an Arabic-Indic digit: int() would take it
    ("1.5/4", "not a shard range"),
    ("0-3/0", "the total number of shards is at least 1"),
    ("3-1/8", "the range runs backwards (3 to 1)"),
    ("0-8/8", "there is no shard 8 among 8 (they are numbered 0 to 7)"),
    ("1/1", "there is no shard 1 among 1 (they are numbered 0 to 0)"),
    ("0/1000000", "1000000 shards is more than any bot needs"),
])
def test_a_bad_value_is_refused_saying_why(text, why):
    with pytest.raises(ShardsError) as caught:
        parse(text)
    message = str(caught.value)
    assert message.startswith(f"HERALD_SHARDS={text.strip()!r}: {why}")
    assert message.endswith("expected FIRST-LAST/TOTAL (e.g. 0-3/8), N/TOTAL (e.g. 5/8) or auto")


# --- Discord's formula ---------------------------------------------------------------------------
def test_shard_of_is_discords_formula():
    # Discord, Gateway > Sharding: shard_id = (guild_id >> 22) % num_shards; the worked example of
    # serenity's `utils::shard_id` docs: guild 81384788765712384 on 17 shards is shard 7
    assert shard_of(81384788765712384, 17) == 7
    assert shard_of(81384788765712384, 1) == 0
    # the low 22 bits (worker, process, increment) never move a guild; the timestamp bits do
    for k in range(12):
        for low in (0, 1, (1 << 22) - 1):
            assert shard_of((k << 22) | low, 4) == k % 4
    assert shard_of(None, 8) == 0                 # events with no guild (DMs) go to shard 0
    with pytest.raises(ValueError):
        shard_of(1, 0)


def test_shard_of_agrees_with_discord_py():
    """discord.py's own `Guild.shard_id` on a sharded client gives the same shard."""
    client = discord.AutoShardedClient(intents=discord.Intents(guilds=True), shard_ids=[0], shard_count=5)
    for guild_id in (81384788765712384, 222222222222222222, 1234567890123456789, 41771983423143937):
        guild = discord.Guild(data={"id": str(guild_id), "name": "g"}, state=client._connection)
        assert guild.shard_id == shard_of(guild_id, 5)


def test_owns_and_owned():
    shards = parse("0-1/4")
    rows = [type("Row", (), {"guild_id": g})() for g in (0 << 22, 1 << 22, 2 << 22, 3 << 22, 5 << 22, None)]
    assert [owns(shards, r.guild_id) for r in rows] == [True, True, False, False, True, True]
    assert owned(shards, rows) == [rows[0], rows[1], rows[4], rows[5]]
    assert owned(parse("2-3/4"), rows) == [rows[2], rows[3]]
    assert owned(None, rows) == rows                       # no shards: every guild is here


# --- the bot class -------------------------------------------------------------------------------
def test_the_bot_class_follows_herald_shards(tmp_path):
    plain = make_client(str(tmp_path / "h.db"))
    assert type(plain) is HeraldBot and not isinstance(plain, commands.AutoShardedBot)
    assert plain.shard_count is None and plain.herald_shards is None

    sharded = make_client(str(tmp_path / "h.db"), shards=parse("2-3/4"))
    assert isinstance(sharded, ShardedHeraldBot) and isinstance(sharded, commands.AutoShardedBot)
    assert isinstance(sharded, HeraldBot)
    assert (sharded.shard_ids, sharded.shard_count) == ([2, 3], 4)
    assert sharded.intents.value == discord.Intents(guilds=True).value    # the same single intent

    auto = make_client(str(tmp_path / "h.db"), shards=parse("auto"))
    assert isinstance(auto, commands.AutoShardedBot) and (auto.shard_ids, auto.shard_count) == (None, None)

    with pytest.raises(ValueError, match="ShardedHeraldBot"):
        HeraldBot(str(tmp_path / "h.db"), shards=parse("0/2"))


def test_herald_refuses_a_bad_herald_shards_in_one_line(monkeypatch, capsys):
    import bot.client
    started = []
    monkeypatch.setattr(bot.client, "run_bot", lambda *a, **k: started.append((a, k)) or 0)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.setenv("HERALD_SHARDS", "4-2/8")
    assert herald_main.main(["bot"]) == 1 and started == []
    err = capsys.readouterr().err
    assert err == ("herald: HERALD_SHARDS='4-2/8': the range runs backwards (4 to 2); expected "
                   "FIRST-LAST/TOTAL (e.g. 0-3/8), N/TOTAL (e.g. 5/8) or auto\n")

    monkeypatch.setenv("HERALD_SHARDS", "4-7/8")
    assert herald_main.main(["bot"]) == 0
    [(args, kwargs)] = started
    assert args[0] == "not-a-real-token" and kwargs == {"shards": Shards((4, 5, 6, 7), 8)}


# --- the loops pick only the process's games ---------------------------------------------------
BASE = 222222222222222222
GUILDS = {k: next(g for g in range(BASE, BASE + (8 << 22), 1 << 22) if shard_of(g, 4) == k) for k in range(4)}
CHANNELS = {k: 333333333333333000 + k for k in range(4)}
DM_CHANNEL = 333333333333333999


async def start_sharded(db_path: str, shards: str | None):
    """A bot as `herald` starts it with HERALD_SHARDS=`shards`, offline (tests/bot/conftest.py)."""
    bot = make_client(db_path, shards=parse(shards))
    await bot._async_setup_hook()
    fake_login(bot)
    await bot.setup_hook()
    return bot


async def four_guilds(db_path: str) -> dict[object, int]:
    """A Battle Cry game in a guild of each shard of 4, and one in a DM (shard 0); each waits on
    Bob's retreat decision (the flag rolled at ci2). Returns {shard or 'dm': game id}."""
    bot = await start_bot(db_path)
    try:
        service, games = bot.service, {}
        for key, guild, channel in [*((k, GUILDS[k], CHANNELS[k]) for k in range(4)), ("dm", None, DM_CHANNEL)]:
            loaded = await service.new_game(guild, channel, ALICE, "battlecry", "test-skirmish", SEED, side="union")
            await service.join(channel, BOB, "confederate")
            await service.start(channel, ALICE)
            for line in ("play attack-centre", "order ui2", "move ui2 0605", "battle ui2 0604 dice=5,1,1,3,4"):
                result = await service.act(channel, ALICE, line)
            assert result.pending is not None and result.pending.side == "confederate"
            games[key] = loaded.row.id
        return games
    finally:
        await bot.close()


async def test_two_processes_split_the_games_by_shard(db_path, scenario_dir):
    games = await four_guilds(db_path)
    low = await start_sharded(db_path, "0-1/4")
    high = await start_sharded(db_path, "2-3/4")
    try:
        assert low.service.shards == Shards((0, 1), 4) and high.service.shards == Shards((2, 3), 4)
        mine = {games[0], games[1], games["dm"]}
        theirs = {games[2], games[3]}
        assert {r.id for r in await owned_games(low.service)} == mine
        assert {r.id for r in await owned_games(high.service)} == theirs
        assert set(await low.service.resume_all(verify=False)) == mine        # what setup_hook resumed
        assert set(await high.service.resume_all(verify=False)) == theirs

        # decision deadlines: each process answers the decisions of its own guilds, once
        for game_id in games.values():
            await low.store.set_options(game_id, **{DEADLINE_OPTION: 1})
        later = datetime.now(timezone.utc) + timedelta(hours=2)
        seqs = {g: await low.store.last_seq(g) for g in games.values()}
        answered_low = await expire_due(low.service, later)
        assert {r.game_id for r in answered_low} == mine
        for g in theirs:                                       # untouched by the other process
            assert await high.store.last_seq(g) == seqs[g]
        answered_high = await expire_due(high.service, later)
        assert {r.game_id for r in answered_high} == theirs
        assert await expire_due(low.service, later) == [] and await expire_due(high.service, later) == []
        for g in games.values():                               # every decision answered exactly once
            assert await low.store.last_seq(g) == seqs[g] + 1
            assert (await low.store.last_command(g)).text.startswith("retreat")

        # turn deadlines: the referee notices, each from the owner of the game's guild
        now = datetime.now(timezone.utc)
        for key, game_id in games.items():
            channel = DM_CHANNEL if key == "dm" else CHANNELS[key]
            await set_turn_deadline(low.service, channel, ALICE, 1, now=now)
        notices = await due_notices(high.service, now + timedelta(hours=2))
        assert {n.wait.game_id for n in notices} == theirs and {n.kind for n in notices} == {"overdue"}
        notices = await due_notices(low.service, now + timedelta(hours=2))
        assert {n.wait.game_id for n in notices} == mine
    finally:
        await low.close()
        await high.close()


async def test_a_sharded_bot_answers_slash_commands_offline(db_path, scenario_dir):
    """The harness drives the sharded class like the plain one (its guild on shard 0 of 1)."""
    bot = await start_sharded(db_path, "0/1")
    try:
        d = Driver(bot)
        rest = await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
        assert not rest.last.ephemeral, rest.last.content
        assert (await bot.store.active_game(d.channel_id)).ruleset == "battlecry"
    finally:
        await bot.close()


# --- docker-compose.yml (no Docker here, no PyYAML: its structure read as text) -------------------
def _block(text: str, key: str, indent: int) -> str:
    """The lines under `key:` at `indent` spaces, up to the next key at that indent or less."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line == " " * indent + f"{key}:")
    out = []
    for line in lines[start + 1:]:
        if line.strip() and not line.lstrip().startswith("#") and len(line) - len(line.lstrip()) <= indent:
            break
        out.append(line)
    return "\n".join(out)


def test_the_compose_file_has_postgres_and_the_bot():
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert "\t" not in text
    top = [line[:-1] for line in text.splitlines() if re.fullmatch(r"[a-z_]+:", line)]
    assert top == ["services", "volumes"]
    services = _block(text, "services", 0)
    names = re.findall(r"^  ([a-z0-9_-]+):\s*$", services, re.M)
    assert names == ["postgres", "herald"]                 # the two-process example is commented out
    postgres, herald = _block(services, "postgres", 2), _block(services, "herald", 2)
    assert re.search(r"^    image: postgres:16\b", postgres, re.M)
    assert re.search(r"^    healthcheck:\n      test: .*pg_isready", postgres, re.M)
    assert re.search(r"^      - herald-pg:/var/lib/postgresql/data$", postgres, re.M)
    assert re.search(r"^    build: \.$", herald, re.M)
    assert re.search(r"^      DISCORD_TOKEN: \$\{DISCORD_TOKEN", herald, re.M)
    assert re.search(r"^      HERALD_DATABASE_URL: postgresql://herald:\$\{POSTGRES_PASSWORD[^}]*\}@postgres(:5432)?/herald$",
                     herald, re.M)
    assert re.search(r"^    depends_on:\n      postgres:\n        condition: service_healthy$", herald, re.M)
    assert "herald-pg:" in _block(text, "volumes", 0)
    # the commented example: two bot processes splitting four shards, each its own service
    example = re.findall(r"^  # (herald-[ab]):$|^  #     HERALD_SHARDS: \"([^\"]+)\"$", text, re.M)
    assert example == [("herald-a", ""), ("", "0-1/4"), ("herald-b", ""), ("", "2-3/4")]
    ranges = [parse(value) for _, value in example if value]
    assert sorted(i for r in ranges for i in r.ids) == [0, 1, 2, 3] and {r.total for r in ranges} == {4}


# --- the README -----------------------------------------------------------------------------------
def test_the_readme_explains_running_for_many_servers():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    heads = re.findall(r"^## (.+)$", text, re.M)
    at = heads.index("Running Herald for many servers")
    assert heads[at - 1] == "Running Herald on your server"
    section = text.split("## Running Herald for many servers\n", 1)[1].split("\n## ", 1)[0]
    for needed in ("`HERALD_DATABASE_URL`", "`HERALD_SHARDS`", "docker-compose.yml", "`.env`",
                   "herald db copy SQLITE_FILE POSTGRES_URL", "herald sync", "What is guaranteed"):
        assert needed in section, needed
    # the values it shows work as it says: these run, these stop the bot
    for good in ("0-3/8", "5/8", "auto", "0-1/4", "2-3/4"):
        assert f"`{good}`" in section or f'"{good}"' in section, good
        assert parse(good) is not None
    for bad in ("0-8/8", "3-1/8", "0-3"):
        assert f"`{bad}`" in section, bad
        with pytest.raises(ShardsError):
            parse(bad)
