"""Fixtures for the Discord-side tests: a HeraldBot on a temporary SQLite file, never logged in,
driven through the offline harness (tests/bot/harness.py), plus a small fixed test scenario so
the seeded hands and dice below do not depend on the book scenarios' contents."""
from __future__ import annotations

import pytest
import pytest_asyncio

from bot.client import make_client
from tests.bot.harness import ALICE, BOB, Driver, fake_login
from tests.bot.pg import pg_server, pg_url  # noqa: F401  (PostgreSQL: a server per session, a database per test)

# A small board: three units a side facing each other two rows apart, a General attached to the
# centre unit on each side. Seed 1 deals Union: skirmish-centre, sharp-shooter, attack-centre,
# skirmish-right, attack-left.
TEST_SCENARIO = """
id = "test-skirmish"
title = "Test Skirmish"
number = 0
first_player = "union"
flags_to_win = 4
[provenance]
herald_completion = ["all: a board for the bot tests"]
[sides.union]
commander = "Test Union"
cards = 5
home_edge = "south"
[sides.confederate]
commander = "Test Confederate"
cards = 5
home_edge = "north"
[terrain]
woods = ["0705"]
[[units]]
side = "union"
kind = "infantry"
hex = "0306"
[[units]]
side = "union"
kind = "infantry"
hex = "0606"
[[units]]
side = "union"
kind = "infantry"
hex = "1006"
[[units]]
side = "union"
kind = "general"
hex = "0606"
[[units]]
side = "confederate"
kind = "infantry"
hex = "0304"
[[units]]
side = "confederate"
kind = "infantry"
hex = "0604"
[[units]]
side = "confederate"
kind = "infantry"
hex = "1004"
[[units]]
side = "confederate"
kind = "general"
hex = "0604"
"""
SEED = "1"
UNION_HAND = ["skirmish-centre", "sharp-shooter", "attack-centre", "skirmish-right", "attack-left"]


@pytest.fixture
def scenario_dir(tmp_path, monkeypatch):
    """Battle Cry's scenario directory, holding only the test scenario."""
    from engine.battlecry import scenario as bc_scenario
    d = tmp_path / "scenarios"
    d.mkdir()
    (d / "test-skirmish.toml").write_text(TEST_SCENARIO, encoding="utf-8")
    monkeypatch.setattr(bc_scenario, "SCENARIO_DIR", d)
    bc_scenario.load_scenario.cache_clear()
    yield d
    bc_scenario.load_scenario.cache_clear()


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "herald.db")


async def start_bot(db_path: str):
    bot = make_client(db_path)
    await bot._async_setup_hook()      # give the client its loop; no login, no token
    fake_login(bot)                    # client.user + application_id, offline
    await bot.setup_hook()             # store, cogs, dynamic items (what login() would run)
    return bot


@pytest_asyncio.fixture
async def bot(db_path, scenario_dir):
    b = await start_bot(db_path)
    yield b
    await b.close()


@pytest.fixture
def d(bot) -> Driver:
    return Driver(bot)


@pytest_asyncio.fixture
async def game(d):
    """A started game: Alice commands the Union (first player), Bob the Confederates."""
    rest = await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    assert not rest.last.ephemeral, rest.last.content
    rest = await d.game("join", user=BOB, side="confederate")
    assert not rest.last.ephemeral, rest.last.content
    rest = await d.game("start", user=ALICE)
    assert not rest.last.ephemeral, rest.last.content
    return await d.bot.store.active_game(d.channel_id)
