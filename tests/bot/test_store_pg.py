"""The store on PostgreSQL beyond the shared store suite (tests/bot/test_store.py runs all of it on
both): the game service playing on it, two stores (two processes' pools) writing one database,
what a bad URL answers, and `herald db copy` from SQLite checked by replaying every game."""
from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

from bot.app import make_service
from bot.cli import DEMO_DIR, main as cli_main, read_script, split_side
from bot.db_copy import copy_database
from bot.store import DuplicateInteraction, SeqConflict, Store, StoreError
from bot.stores import open_store
from bot.store_pg import PgStore

GUILD, ROY, PAR = 20, 1, 2


@pytest.fixture(autouse=True)
def keyframes_by_count_only(monkeypatch):
    """These tests count snapshots: every 8th command only, not also after slow ones (their
    places would depend on the machine's speed; bot/store_base.py KEYFRAME_COST_MS)."""
    from bot import store_base
    monkeypatch.setattr(store_base, "KEYFRAME_COST_MS", float("inf"))


async def play_edgehill(service, channel: int, n: int, skip: int = 0):
    """The TACW demo's first `n` commands (after `skip`) in a new game on `channel`."""
    seed, lines = read_script(DEMO_DIR / "tacw--edgehill.txt")
    await service.new_game(GUILD, channel, ROY, "tacw", "edgehill", seed, side="royalist")
    await service.join(channel, PAR, "parliament")
    await service.start(channel, ROY)
    result = None
    for i, line in enumerate(lines[:n]):
        side, text = split_side(line, ("royalist", "parliament"))
        result = await service.act(channel, ROY if side == "royalist" else PAR, text, interaction_id=f"{channel}-{i}")
    return result


async def test_open_store_chooses_postgresql_by_url_and_the_service_plays_on_it(pg_url, tmp_path):
    store = await open_store(pg_url)
    try:
        assert type(store) is PgStore
        service = make_service(store)
        last = await play_edgehill(service, 10, 20)
        row = await store.get_game(last.game_id)
        assert row.status == "active" and await store.last_seq(row.id) == 20
        assert await make_service(store).verify(row)      # a fresh service: snapshot + log == replay
        assert (await store.latest_snapshot(row.id))[0] == 16     # keyframes, as on SQLite
        assert await service.applied("10-19") is not None      # a retried click finds its command
    finally:
        await store.close()
    sqlite = await open_store(str(tmp_path / "h.db"))
    assert type(sqlite) is Store
    await sqlite.close()


async def test_two_stores_on_one_database_serialize_each_game(pg_url):
    """Two pools (as two processes would hold) racing on one game: one command per seq, an
    interaction id stored once even when its two writers act on different games at once."""
    a, b = await PgStore.open(pg_url), await PgStore.open(pg_url)
    try:
        g = await a.create_game(GUILD, 1, "tacw", "edgehill", "1", ROY)
        h = await b.create_game(GUILD, 2, "tacw", "edgehill", "1", ROY)

        def write(store, game, seq, iid):
            return store.append_command(game, seq=seq, user_id=ROY, side="royalist", text=f"t{seq}",
                                        dice=[], events=[], state={"seq": seq}, interaction_id=iid)
        got = await asyncio.gather(*(write(s, g, 1, f"i{n}") for n, s in enumerate([a, b] * 4)),
                                   return_exceptions=True)
        assert sum(r is None for r in got) == 1
        assert all(isinstance(r, SeqConflict) for r in got if r is not None)
        got = await asyncio.gather(write(a, g, 2, "same"), write(b, h, 1, "same"), return_exceptions=True)
        assert sorted(type(r).__name__ for r in got) == ["DuplicateInteraction", "NoneType"]
        assert await a.last_seq(g) + await a.last_seq(h) == 2
        with pytest.raises(DuplicateInteraction):
            await write(b, h, 2, "same")
    finally:
        await a.close()
        await b.close()


async def test_an_unreachable_server_is_a_store_error_without_the_password():
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as err:
        await PgStore.open("postgresql://herald:s3cret@127.0.0.1:1/herald")
    assert "s3cret" not in str(err.value) and "herald:***@127.0.0.1:1" in str(err.value)


@pytest.fixture
async def club_file(tmp_path):
    """An SQLite club: two TACW games (one with a command taken back), a seat, a member, a name,
    a campaign with its game, an uploaded scenario, and a pre-keyframe JSON-text snapshot."""
    path = str(tmp_path / "club.db")
    store = await Store.open(path)
    service = make_service(store)
    first = await play_edgehill(service, 10, 12)
    await play_edgehill(service, 11, 5)
    await store.add_member(first.game_id, 9, "referee")
    await store.remember_name(GUILD, ROY, "Rupert")
    camp = await store.create_campaign(GUILD, "Autumn", "tacw", ROY, limit=5)
    await store.add_campaign_game(camp.id, first.game_id)
    from bot.store_club import CustomScenarioRow
    await store.save_custom_scenario(CustomScenarioRow(GUILD, "tacw", "moor", "Moor", "text", ROY, None),
                                     may_replace_others=False, limit=5)
    async with store._transaction() as db:        # an old row: the state as JSON text
        await db.execute("UPDATE commands SET undone_at = 'x', undone_by = 1 WHERE game_id = ? AND seq = 5",
                         (first.game_id + 1,))
        await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES (?, 3, ?)",
                         (first.game_id + 1, json.dumps({"old": True})))
    await store.close()
    return path


def test_db_copy_moves_every_row_and_every_game_replays_the_same(club_file, pg_url, capsys):
    """`herald db copy` as typed (a plain test: the command runs its own event loop)."""
    assert cli_main(["db", "copy", club_file, pg_url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("copied: 2 games, 4 seats, 1 members, 17 commands, 2 snapshots, 1 campaigns,"
                             " 1 campaign_games, 0 campaign_results, 1 custom_scenarios, 1 user_names"), out
    assert out[1].startswith("game 1 (tacw edgehill, active): 12 command(s), same state "), out
    assert out[2].startswith("game 2 (tacw edgehill, active): 5 command(s), same state "), out
    assert out[-1] == "2 of 2 game(s) replay to the same state on PostgreSQL"
    asyncio.run(same_rows(club_file, pg_url))
    # a second copy into the same database is refused, nothing written
    assert cli_main(["db", "copy", club_file, pg_url]) == 1
    assert "already holds 3 game(s)" in capsys.readouterr().err


async def same_rows(club_file: str, pg_url: str) -> None:
    sqlite, pg = await Store.open(club_file), await PgStore.open(pg_url)
    try:
        for g in (1, 2):
            assert await pg.get_game(g) == await sqlite.get_game(g)
            assert await pg.commands(g, undone=True) == await sqlite.commands(g, undone=True)
            assert await pg.latest_snapshot(g) == await sqlite.latest_snapshot(g)
            assert await pg.members(g) == await sqlite.members(g)
        assert await pg.latest_snapshot(2) == (3, {"old": True})        # the JSON text, as a blob
        assert await pg.display_names(GUILD, [ROY]) == {ROY: "Rupert"}
        assert await pg.campaigns(GUILD) == await sqlite.campaigns(GUILD)
        assert await pg.custom_scenarios(GUILD) == await sqlite.custom_scenarios(GUILD)
        # the next game and campaign are numbered after the copied ones
        assert await pg.create_game(GUILD, 99, "tacw", "edgehill", "1", ROY) == 3
        assert (await pg.create_campaign(GUILD, "Winter", None, ROY, limit=5)).id == 2
    finally:
        await sqlite.close()
        await pg.close()


async def test_db_copy_reports_a_game_that_replays_differently(club_file, pg_url, monkeypatch):
    """The check is real: a log changed on the way (here, after the copy) is a DIFFERENT line
    and exit status 1."""
    import bot.db_copy as db_copy
    copy_rows = db_copy.copy_rows

    async def tampered(source, target):
        counts = await copy_rows(source, target)
        conn = await asyncpg.connect(pg_url)
        await conn.execute("UPDATE commands SET undone_at = 'x' WHERE game_id = 1 AND seq = 12")
        await conn.close()
        return counts
    monkeypatch.setattr(db_copy, "copy_rows", tampered)
    lines: list[str] = []
    assert await copy_database(club_file, pg_url, lines.append) == 1
    assert "game 1 (tacw edgehill, active): 12 command(s), DIFFERENT" in lines[1]
    assert lines[-1] == "1 of 2 game(s) replay to the same state on PostgreSQL; 1 differ"


def test_db_copy_refuses_bad_arguments(tmp_path, capsys):
    assert cli_main(["db", "copy", str(tmp_path / "none.db"), "postgresql://x/y"]) == 2
    assert "no SQLite file" in capsys.readouterr().err
    (tmp_path / "a.db").write_bytes(b"")
    assert cli_main(["db", "copy", str(tmp_path / "a.db"), "mysql://u:pw@h/db"]) == 2
    assert "not a postgresql:// URL" in capsys.readouterr().err
