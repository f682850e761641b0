"""Tests for bot.store: schema, WAL, live-game rule, seats, the atomic command log, concurrency.

The whole suite runs against both stores (issue 17): SQLite (bot/store.py) and PostgreSQL
(bot/store_pg.py, on the session's pgserver, a fresh database per test: tests/bot/pg.py). The
`backend` fixture opens either and reads its schema without the store."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from bot.migrations import MIGRATIONS, PG_MIGRATIONS
from bot.store_base import encode_state
from bot.store import (
    ChannelBusy,
    DuplicateInteraction,
    GameNotFound,
    SeatTaken,
    SeqConflict,
    Store,
    StoreError,
)

CHANNEL = 1001
GUILD = 7


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "herald.db")


class Backend:
    """One kind of store for the tests: open it (at any schema version), and read its schema
    version and tables behind its back."""

    def __init__(self, kind: str, target: str) -> None:
        self.kind, self.target = kind, target
        self.migrations = MIGRATIONS if kind == "sqlite" else PG_MIGRATIONS

    async def open(self, migrations=None) -> Store:
        if self.kind == "sqlite":
            return await Store.open(self.target, migrations=self.migrations if migrations is None else migrations)
        from bot.store_pg import PgStore
        return await PgStore.open(self.target, migrations=self.migrations if migrations is None else migrations)

    @property
    def migration_error(self) -> type[Exception]:
        if self.kind == "sqlite":
            return sqlite3.OperationalError
        import asyncpg
        return asyncpg.UndefinedTableError

    async def query(self, sql: str) -> list[tuple]:
        """Rows of a query run on a connection of its own (not the store's)."""
        if self.kind == "sqlite":
            with sqlite3.connect(self.target) as con:
                return [tuple(r) for r in con.execute(sql)]
        import asyncpg
        conn = await asyncpg.connect(self.target)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    async def version(self) -> int:
        if self.kind == "sqlite":
            return (await self.query("PRAGMA user_version"))[0][0]
        return (await self.query("SELECT version FROM herald_schema"))[0][0]

    async def set_version(self, version: int) -> None:
        if self.kind == "sqlite":
            with sqlite3.connect(self.target) as con:
                con.execute(f"PRAGMA user_version = {int(version)}")
        else:
            await self.query(f"UPDATE herald_schema SET version = {int(version)} RETURNING version")

    async def tables(self) -> set[str]:
        if self.kind == "sqlite":
            return {r[0] for r in await self.query("SELECT name FROM sqlite_master WHERE type='table'")}
        return {r[0] for r in await self.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}

    async def columns(self, table: str) -> set[str]:
        if self.kind == "sqlite":
            return {r[1] for r in await self.query(f"PRAGMA table_info({table})")}
        return {r[0] for r in await self.query("SELECT column_name FROM information_schema.columns"
                                               f" WHERE table_schema = current_schema() AND table_name = '{table}'")}


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, db_path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", db_path)
    return Backend("postgres", request.getfixturevalue("pg_url"))


@pytest.fixture
async def store(backend):
    s = await backend.open()
    yield s
    await s.close()


async def new_game(store: Store, channel: int = CHANNEL, **kw) -> int:
    return await store.create_game(GUILD, channel, "tacw", "edgehill", "seed-42", 555, **kw)


async def append(store: Store, game_id: int, seq: int, **kw) -> None:
    args = dict(user_id=555, side="royalist", text=f"move {seq}", dice=[seq, 3],
                events=[{"kind": "move", "n": seq}], state={"turn": seq, "units": {"A": "0101"}})
    args.update(kw)
    await store.append_command(game_id, seq=seq, **args)


# -- schema and connection settings --------------------------------------------------------------

async def test_migrations_set_user_version_and_reopen_keeps_data(backend):
    store = await backend.open()
    game_id = await new_game(store)
    await store.close()
    assert await backend.version() == len(MIGRATIONS)
    n = len(MIGRATIONS)

    # A second migration is applied once; reopening again re-runs nothing (the non-idempotent
    # CREATE TABLE / INSERT would fail or duplicate rows if it did).
    probe = "CREATE TABLE probe (x INTEGER); INSERT INTO probe VALUES (1);"
    for _ in range(2):
        store = await backend.open([*backend.migrations, probe])
        assert (await store.get_game(game_id)).scenario_id == "edgehill"
        await store.close()
        assert await backend.version() == n + 1
    assert await backend.query("SELECT count(*) FROM probe") == [(1,)]


async def test_failed_migration_rolls_back_whole(backend):
    await (await backend.open()).close()
    broken = "CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1);"
    with pytest.raises(backend.migration_error):
        await backend.open([*backend.migrations, broken])
    assert await backend.version() == len(MIGRATIONS)
    tables = await backend.tables()
    assert "half" not in tables and "games" in tables


@pytest.mark.parametrize("version", range(len(MIGRATIONS)))
async def test_every_earlier_schema_upgrades_keeping_what_it_held(backend, version):
    """A database left at each earlier schema version (0: a new one) is brought to the current
    one at open, keeping its games, seats, log and snapshots (thinned to keyframes by 4), its
    members (2) and names (3); a second open changes nothing."""
    old = await backend.open(backend.migrations[:version])
    try:
        if version >= 1:
            game_id = await new_game(old)
            await old.set_status(game_id, "active")
            await backend.query(f"INSERT INTO seats (game_id, side, user_id) VALUES ({game_id}, 'royalist', 7)")
            for seq in range(1, 11):
                await append(old, game_id, seq)           # a snapshot after each, as before 4
        if version >= 2:
            await old.add_member(game_id, 8, "player", "royalist", "left")
        if version >= 3:
            await old.remember_name(1, 7, "Rupert")
    finally:
        await old.close()
    assert await backend.version() == version
    for _ in range(2):
        store = await backend.open()
        try:
            assert await backend.version() == len(MIGRATIONS)
            assert {"members", "campaigns", "custom_scenarios", "user_names"} <= await backend.tables()
            assert {"undone_at", "undone_by"} <= await backend.columns("commands")
            if version == 0:
                assert await store.list_games() == []
                continue
            assert [g.id for g in await store.resumable_games()] == [game_id]
            assert await store.seats(game_id) == {"royalist": 7}
            assert [c.seq for c in await store.commands(game_id)] == list(range(1, 11))
            assert await store.latest_snapshot(game_id) == (10, {"turn": 10, "units": {"A": "0101"}})
            snaps = [r[0] for r in await backend.query(f"SELECT seq FROM snapshots WHERE game_id = {game_id} ORDER BY seq")]
            assert snaps == ([8, 10] if version < 4 else list(range(1, 11)))
            assert [(m.user_id, m.wing) for m in await store.members(game_id)] == ([(8, "left")] if version >= 2 else [])
            assert await store.display_names(1, [7]) == ({7: "Rupert"} if version >= 3 else {})
            await append(store, game_id, 11)              # and the game goes on
            await store.truncate_after(game_id, 10)
        finally:
            await store.close()


async def test_a_version_2_database_upgrades_to_the_names_table_keeping_its_games(backend):
    """Migration 3 (issue 11) on a database written by schema 2: games, seats and members
    survive; players' names are kept per server, written only when they change."""
    store = await backend.open(backend.migrations[:2])
    game_id = await new_game(store)
    await store.take_seat(game_id, "royalist", 7)
    await store.add_member(game_id, 8, "player", "royalist", None)
    await store.close()
    assert await backend.version() == 2
    store = await backend.open()
    try:
        assert await backend.version() == len(MIGRATIONS) >= 3
        assert (await store.get_game(game_id)).scenario_id == "edgehill"
        assert await store.seats(game_id) == {"royalist": 7}
        assert [m.user_id for m in await store.members(game_id)] == [8]
        assert await store.display_names(1, [7, 8]) == {}
        assert await store.remember_name(1, 7, "Prince  Rupert")          # new: written
        assert not await store.remember_name(1, 7, "Prince Rupert")       # unchanged: no write
        assert await store.remember_name(2, 7, "Rupert")                  # another server, its own
        assert await store.remember_name(None, 8, "Maurice")
        assert await store.display_names(1, [7, 8]) == {7: "Prince Rupert"}
        assert await store.display_names(2, [7]) == {7: "Rupert"}
        assert await store.display_names(None, [8, 9]) == {8: "Maurice"}
        assert await store.remember_name(1, 7, "Rupert of the Rhine")     # changed: written
        assert await store.display_names(1, [7]) == {7: "Rupert of the Rhine"}
    finally:
        await store.close()
    again = await backend.open()        # a restart: the first sighting writes again, harmlessly
    try:
        assert await again.display_names(1, [7]) == {7: "Rupert of the Rhine"}
        assert await again.remember_name(1, 7, "Rupert of the Rhine")
        assert await again.display_names(1, [7]) == {7: "Rupert of the Rhine"}
    finally:
        await again.close()


async def test_newer_schema_is_refused(backend):
    await (await backend.open()).close()
    await backend.set_version(99)
    with pytest.raises(StoreError, match="newer"):
        await backend.open()


async def test_pragmas_wal_and_foreign_keys_on(db_path):
    store = await Store.open(db_path)
    try:
        assert await store._one("PRAGMA journal_mode") == "wal"
        assert await store._one("PRAGMA foreign_keys") == 1
        assert await store._one("PRAGMA busy_timeout") == 5000
        assert await store._one("PRAGMA synchronous") == 2  # FULL (issue 17): the WAL synced at each commit
    finally:
        await store.close()
    with sqlite3.connect(db_path) as con:  # WAL is persistent in the file itself
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# -- games -------------------------------------------------------------------------------------

async def test_create_and_read_game(store):
    game_id = await new_game(store, scenario_text="[map]\nhexes = 3", options={"fog": True})
    game = await store.get_game(game_id)
    assert (game.id, game.guild_id, game.channel_id, game.ruleset, game.seed) == (
        game_id, GUILD, CHANNEL, "tacw", "seed-42")
    assert game.status == "setup" and game.created_by == 555 and game.created_at
    assert game.options == {"fog": True} and game.scenario_text == "[map]\nhexes = 3"
    assert game.result is None
    assert await store.active_game(CHANNEL) == game
    assert await store.get_game(9999) is None and await store.active_game(42) is None
    with pytest.raises(AttributeError):
        game.status = "over"  # frozen


@pytest.mark.parametrize("ending", ["over", "abandoned"])
async def test_one_live_game_per_channel(store, ending):
    first = await new_game(store)
    with pytest.raises(ChannelBusy):
        await new_game(store)
    await store.set_status(first, "active")
    with pytest.raises(ChannelBusy):
        await new_game(store)
    assert await new_game(store, channel=CHANNEL + 1)  # other channels are free

    await store.set_status(first, ending, result="Parliament wins")
    second = await new_game(store)
    assert (await store.active_game(CHANNEL)).id == second
    assert (await store.get_game(first)).result == "Parliament wins"
    with pytest.raises(ChannelBusy):  # cannot revive the old one while the new one is live
        await store.set_status(first, "active")


async def test_set_status_validation(store):
    game_id = await new_game(store)
    with pytest.raises(ValueError):
        await store.set_status(game_id, "paused")
    with pytest.raises(GameNotFound):
        await store.set_status(9999, "over")


async def test_list_and_resumable_games(store):
    a = await store.create_game(1, 10, "tacw", "s", "x", None)
    b = await store.create_game(2, 20, "jdg", "s", "x", None)
    c = await store.create_game(1, 30, "lion", "s", "x", None)
    d = await store.create_game(1, 40, "lion", "s", "x", None)
    await store.set_status(a, "active")
    await store.set_status(c, "active")
    await store.set_status(d, "over")
    assert [g.id for g in await store.list_games()] == [c, b, a]
    assert [g.id for g in await store.list_games(guild_id=1)] == [c, a]
    assert [g.id for g in await store.resumable_games()] == [a, c]


# -- seats -------------------------------------------------------------------------------------

async def test_seat_rules(store):
    game_id = await new_game(store)
    await store.take_seat(game_id, "royalist", 1)
    await store.take_seat(game_id, "royalist", 1)  # same seat again: no-op
    with pytest.raises(SeatTaken):
        await store.take_seat(game_id, "royalist", 2)  # held by someone else
    with pytest.raises(SeatTaken):
        await store.take_seat(game_id, "parliament", 1)  # user already holds a side
    await store.take_seat(game_id, "parliament", 2)
    assert await store.seats(game_id) == {"royalist": 1, "parliament": 2}

    assert await store.leave_seat(game_id, 1) == "royalist"
    assert await store.leave_seat(game_id, 1) is None
    await store.take_seat(game_id, "royalist", 3)
    assert await store.seats(game_id) == {"royalist": 3, "parliament": 2}
    other = await new_game(store, channel=CHANNEL + 1)
    await store.take_seat(other, "royalist", 2)  # seats are per game
    with pytest.raises(GameNotFound):
        await store.take_seat(9999, "royalist", 1)


# -- command log -------------------------------------------------------------------------------

async def test_append_and_read_back(store):
    game_id = await new_game(store)
    assert await store.last_seq(game_id) == 0 and await store.latest_snapshot(game_id) is None
    await append(store, game_id, 1, interaction_id="i-1")
    await append(store, game_id, 2, side="parliament", text="charge", events=[{"kind": "charge"}])
    rows = await store.commands(game_id)
    assert [(r.seq, r.side, r.text) for r in rows] == [(1, "royalist", "move 1"),
                                                       (2, "parliament", "charge")]
    assert rows[0].dice == [1, 3] and rows[0].events == [{"kind": "move", "n": 1}]
    assert rows[0].interaction_id == "i-1" and rows[1].interaction_id is None
    assert await store.last_seq(game_id) == 2
    assert await store.latest_snapshot(game_id) == (2, {"turn": 2, "units": {"A": "0101"}})
    assert await store.has_interaction("i-1") and not await store.has_interaction("i-2")


async def test_command_and_snapshot_are_one_transaction(store):
    game_id = await new_game(store)
    # Plant a snapshot at seq 1 behind the store's back so the snapshot insert fails
    # after the command insert has already succeeded inside the transaction.
    async with store._transaction() as db:
        await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES (?, 1, ?)",
                         (game_id, encode_state({})))
    with pytest.raises(StoreError):
        await append(store, game_id, 1, interaction_id="i-1")
    assert await store.commands(game_id) == []
    assert not await store.has_interaction("i-1")
    assert await store.latest_snapshot(game_id) == (1, {})
    await store.truncate_after(game_id, 0)  # no transaction was left open: writes still work
    await append(store, game_id, 1, interaction_id="i-1")
    assert [r.seq for r in await store.commands(game_id)] == [1]
    with pytest.raises(StoreError):
        await append(store, 9999, 1)  # unknown game: foreign key refuses it


async def test_duplicate_interaction_applied_once(store):
    game_id = await new_game(store)
    await append(store, game_id, 1, interaction_id="click-1")
    with pytest.raises(DuplicateInteraction):
        await append(store, game_id, 2, interaction_id="click-1")  # retried/double click
    other = await new_game(store, channel=CHANNEL + 1)
    with pytest.raises(DuplicateInteraction):  # ids are unique across games
        await append(store, other, 1, interaction_id="click-1")
    assert [r.seq for r in await store.commands(game_id)] == [1]
    assert await store.latest_snapshot(game_id) == (1, {"turn": 1, "units": {"A": "0101"}})
    assert await store.commands(other) == []


async def test_seq_conflict(store):
    game_id = await new_game(store)
    with pytest.raises(SeqConflict):
        await append(store, game_id, 2)  # gap
    await append(store, game_id, 1)
    with pytest.raises(SeqConflict):
        await append(store, game_id, 1)  # stale writer
    with pytest.raises(SeqConflict):
        await append(store, game_id, 3)
    assert await store.last_seq(game_id) == 1


async def test_truncate_after(store):
    game_id = await new_game(store)
    for seq in range(1, 5):
        await append(store, game_id, seq)
    assert await store.truncate_after(game_id, 2) == 2
    assert [r.seq for r in await store.commands(game_id)] == [1, 2]
    assert (await store.latest_snapshot(game_id))[0] == 2
    await append(store, game_id, 3)  # the log continues from the truncation point


async def test_delete_game_cascades(store):
    game_id = await new_game(store)
    await store.take_seat(game_id, "royalist", 1)
    await append(store, game_id, 1)
    async with store._transaction() as db:
        await db.execute("DELETE FROM games WHERE id = ?", (game_id,))
    assert await store.seats(game_id) == {} and await store.commands(game_id) == []
    assert await store.latest_snapshot(game_id) is None


# -- concurrency -------------------------------------------------------------------------------

async def test_concurrent_appends_to_two_games(store):
    games = [await new_game(store, channel=CHANNEL + i) for i in range(2)]

    async def play(game_id: int, n: int) -> None:
        for seq in range(1, n + 1):
            await append(store, game_id, seq, interaction_id=f"{game_id}-{seq}")

    await asyncio.gather(*(play(g, 60) for g in games))
    for g in games:
        assert [r.seq for r in await store.commands(g)] == list(range(1, 61))
        assert (await store.latest_snapshot(g))[0] == 60


async def test_racing_same_seq_exactly_one_wins(store):
    game_id = await new_game(store)
    results = await asyncio.gather(
        *(append(store, game_id, 1, user_id=u, interaction_id=f"i-{u}") for u in range(8)),
        return_exceptions=True,
    )
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, SeqConflict) for r in results if r is not None)
    assert len(await store.commands(game_id)) == 1


async def test_game_lock_serializes_load_apply_commit(store):
    game_id = await new_game(store)
    assert store.game_lock(game_id) is store.game_lock(game_id)
    assert store.game_lock(game_id) is not store.game_lock(game_id + 1)

    async def act(user: int) -> None:
        async with store.game_lock(game_id):
            seq = await store.last_seq(game_id) + 1  # load
            await asyncio.sleep(0.01)  # apply (other tasks run meanwhile)
            await append(store, game_id, seq, user_id=user)  # commit

    await asyncio.gather(*(act(u) for u in range(5)))
    rows = await store.commands(game_id)
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5]
    assert sorted(r.user_id for r in rows) == [0, 1, 2, 3, 4]


async def test_survives_close_and_reopen_mid_game(backend):
    store = await backend.open()
    game_id = await new_game(store)
    await store.set_status(game_id, "active")
    await store.take_seat(game_id, "royalist", 1)
    for seq in range(1, 4):
        await append(store, game_id, seq, interaction_id=f"i-{seq}")
    before = (await store.commands(game_id), await store.latest_snapshot(game_id))
    await store.close()

    store = await backend.open()
    try:
        assert (await store.commands(game_id), await store.latest_snapshot(game_id)) == before
        assert [g.id for g in await store.resumable_games()] == [game_id]
        assert await store.seats(game_id) == {"royalist": 1}
        assert await store.has_interaction("i-3")
        await append(store, game_id, 4)
        assert await store.last_seq(game_id) == 4
    finally:
        await store.close()


# -- campaigns and custom scenarios (bot/campaigns.py, bot/uploads.py use only these) ----------------

async def test_campaign_methods_refuse_duplicates_and_limits_and_record_once(store):
    from bot.store import AlreadyExists, CampaignResultRow, LimitReached
    c = await store.create_campaign(1, "Autumn", "battlecry", 7, limit=2)
    assert (c.name, c.ruleset, c.created_by, c.options) == ("Autumn", "battlecry", 7, {})
    with pytest.raises(AlreadyExists, match="already has a campaign named 'AUTUMN'"):
        await store.create_campaign(1, "AUTUMN", None, 8, limit=2)
    await store.create_campaign(2, "Autumn", None, 8, limit=2)        # another server's name space
    await store.create_campaign(1, "Winter", None, 8, limit=2)
    with pytest.raises(LimitReached, match="at most 2 campaigns"):
        await store.create_campaign(1, "Spring", None, 8, limit=2)
    assert [x.name for x in await store.campaigns(1)] == ["Autumn", "Winter"]
    assert (await store.campaign_named(1, "autumn")).id == c.id and await store.campaign_named(1, "x") is None

    g = await store.create_game(1, 10, "battlecry", "s", "1", 7)
    r = await store.create_game(1, 11, "battlecry", "s", "2", 7, options={"rematch_of": g})
    await store.add_campaign_game(c.id, g)
    with pytest.raises(AlreadyExists):
        await store.add_campaign_game(c.id, g)
    assert await store.campaign_game_ids(c.id) == [g]
    assert [x.id for x in await store.campaigns_of_game(g)] == [c.id]
    assert [x.id for x in await store.games_with_option("rematch_of", [g])] == [r]
    assert await store.games_with_option("rematch_of", []) == []

    rows = [CampaignResultRow(g, "union", 7, "win", 3, {"players": [7]}),
            CampaignResultRow(g, "confederate", 8, "loss", 0, {})]
    assert await store.record_campaign_results(c.id, g, rows) is True
    assert await store.record_campaign_results(c.id, g, rows[:1]) is False     # idempotent
    assert await store.campaign_results(c.id) == sorted(rows, key=lambda x: x.side)
    bad = [CampaignResultRow(r, "union", 7, "win", 1, {}), CampaignResultRow(r, "union", 8, "bogus", 0, {})]
    with pytest.raises(StoreError):
        await store.record_campaign_results(c.id, r, bad)            # all or nothing
    assert [x.game_id for x in await store.campaign_results(c.id)] == [g, g]


async def test_custom_scenario_methods_guard_other_members_files_and_the_limit(store):
    from bot.store import CustomScenarioRow, LimitReached, UploadTaken
    a = CustomScenarioRow(1, "battlecry", "ridge", "Ridge", "text a", 7, None)
    assert await store.save_custom_scenario(a, may_replace_others=False, limit=2) is False
    with pytest.raises(UploadTaken) as taken:
        await store.save_custom_scenario(a.__class__(1, "battlecry", "ridge", "Bob's", "b", 8, None),
                                         may_replace_others=False, limit=2)
    assert taken.value.holder == 7 and (await store.custom_scenario(1, "battlecry", "ridge")).text == "text a"
    assert await store.save_custom_scenario(a.__class__(1, "battlecry", "ridge", "Ridge II", "a2", 7, None),
                                            may_replace_others=False, limit=2) is True
    await store.save_custom_scenario(CustomScenarioRow(1, "tacw", "moor", "Moor", "m", 8, None),
                                     may_replace_others=False, limit=2)
    with pytest.raises(LimitReached):
        await store.save_custom_scenario(CustomScenarioRow(1, "tacw", "hill", "Hill", "h", 8, None),
                                         may_replace_others=False, limit=2)
    assert [x.scenario_id for x in await store.custom_scenarios(1)] == ["ridge", "moor"]
    assert [x.scenario_id for x in await store.custom_scenarios(1, "tacw")] == ["moor"]
    assert await store.custom_scenarios(2) == []
    assert await store.delete_custom_scenario(1, "tacw", "moor") is True
    assert await store.delete_custom_scenario(1, "tacw", "moor") is False


# -- one game across processes, and claims (issue 17) ----------------------------------------------

async def test_claim_is_won_once_across_stores_and_taken_over_after_its_lease(backend):
    """Two stores on one database (two processes) claim the same firing at once: exactly one
    gets it; another firing is its own; a stale claim is taken over only with a lease."""
    first, second = await backend.open(), await backend.open()
    try:
        game_id = await new_game(first)
        got = await asyncio.gather(*(s.claim(game_id, "reminder", "3:union:7", f"p{i}")
                                     for i, s in enumerate([first, second, first, second])))
        assert sorted(got) == [False, False, False, True]
        assert await second.claim(game_id, "overdue", "3:union:7", "p1")        # another kind
        assert await second.claim(game_id, "reminder", "4:union:7", "p1")       # another wait
        assert not await first.claim(game_id, "reminder", "3:union:7", "p0", lease_seconds=60)
        await backend.query("UPDATE claims SET claimed_at = '2000-01-01T00:00:00+00:00'"
                            " WHERE claim_key = '3:union:7' AND kind = 'reminder' RETURNING 1")
        assert not await first.claim(game_id, "reminder", "3:union:7", "p0")    # no lease: never again
        assert await first.claim(game_id, "reminder", "3:union:7", "p0", lease_seconds=60)
        assert not await second.claim(game_id, "reminder", "3:union:7", "p1", lease_seconds=60)
        assert await backend.query("SELECT owner FROM claims WHERE kind = 'reminder'"
                                   " AND claim_key = '3:union:7'") == [("p0",)]
        with pytest.raises(StoreError):                 # no such game: the foreign key refuses
            await first.claim(game_id + 99, "reminder", "x", "p0")
    finally:
        await first.close()
        await second.close()


async def test_lock_game_is_an_async_context_manager_on_both(store):
    game_id = await new_game(store)
    async with store.lock_game(game_id):
        await append(store, game_id, 1)                 # the store's own calls work inside it
    async with store.game_lock(game_id):
        assert store.game_lock(game_id).locked()
        await append(store, game_id, 2)
    assert not store.game_lock(game_id).locked()
    assert await store.last_seq(game_id) == 2


@pytest.fixture
async def pg_pair(pg_url):
    """Two PostgreSQL stores on one database: two processes, as far as the locks can tell."""
    from bot.store_pg import PgStore
    first = await PgStore.open(pg_url)
    second = await PgStore.open(pg_url)
    yield first, second
    await first.close()
    await second.close()


async def test_pg_lock_game_serializes_one_game_across_stores_and_not_two(pg_pair):
    first, second = pg_pair
    game_id, other = await new_game(first), await new_game(first, channel=CHANNEL + 1)
    entered = asyncio.Event()

    async def second_takes(gid: int) -> None:
        async with second.lock_game(gid):
            entered.set()

    async with first.lock_game(game_id):
        await asyncio.wait_for(second_takes(other), 5)           # another game: no wait
        entered.clear()
        waiting = asyncio.create_task(second_takes(game_id))
        await asyncio.sleep(0.3)
        assert not entered.is_set()                             # held by the other "process"
    await asyncio.wait_for(waiting, 5)
    assert entered.is_set()


async def test_pg_game_lock_serializes_load_apply_commit_across_stores(pg_pair):
    """Load, apply and commit under `game_lock` from two stores at once: every writer sees the
    one before it committed (no SeqConflict, no lost write)."""
    first, second = pg_pair
    game_id = await new_game(first)

    async def act(store, user: int) -> None:
        async with store.game_lock(game_id):
            seq = await store.last_seq(game_id) + 1
            await asyncio.sleep(0.01)
            await append(store, game_id, seq, user_id=user)

    await asyncio.gather(*(act(first if u % 2 else second, u) for u in range(10)))
    rows = await first.commands(game_id)
    assert [r.seq for r in rows] == list(range(1, 11))
    assert sorted(r.user_id for r in rows) == list(range(10))


async def test_pg_a_game_held_too_long_is_refused_and_a_cancelled_wait_leaves_no_lock(pg_pair, monkeypatch):
    import bot.store_pg as store_pg
    first, second = pg_pair
    game_id = await new_game(first)
    monkeypatch.setattr(store_pg, "LOCK_WAIT", 0.2)
    async with first.game_lock(game_id):
        with pytest.raises(StoreError, match="busy in another process"):
            async with second.game_lock(game_id):
                pass
        assert not second.game_lock(game_id).locked()            # the local lock let go too
        waiting = asyncio.create_task(second.lock_game(game_id).__aenter__())
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
    async with second.game_lock(game_id):                        # nothing left held anywhere
        async with first.lock_game(game_id + 1):
            pass
    monkeypatch.setattr(store_pg, "LOCK_WAIT", 5)
    async with first.game_lock(game_id):
        pass
