"""`herald db copy SQLITE_FILE POSTGRES_URL` (issue 17): a club's games moved from its SQLite file
to PostgreSQL, checked by replaying every game on the other side.

Every row of every table (games with their ids, seats, members, the whole command log with the
commands taken back, snapshots, campaigns and their games and results, uploaded scenarios,
players' names) is copied in ONE PostgreSQL transaction: the copy lands whole or not at all,
and only into a database that holds no game yet. Then each game is replayed from its seed and
log on both sides and the two state hashes compared; a line per game says what was found.
The SQLite file is opened as the bot opens it (brought to the current schema), nothing else.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .store import Store
from .store_base import StoreError, encode_state
from .store_pg import PgStore

# parents before children (the foreign keys); the columns are the current schema's
TABLES: dict[str, str] = {
    "games": "id, guild_id, channel_id, ruleset, scenario_id, scenario_text, seed, status, created_by,"
             " created_at, options, result",
    "seats": "game_id, side, user_id",
    "members": "game_id, user_id, role, side, wing",
    "commands": "game_id, seq, user_id, side, text, dice, events, interaction_id, created_at, undone_at,"
                " undone_by",
    "snapshots": "game_id, seq, state",
    "campaigns": "id, guild_id, name, ruleset, created_by, created_at, options",
    "campaign_games": "campaign_id, game_id",
    "campaign_results": "campaign_id, game_id, side, user_id, outcome, score, detail, recorded_at",
    "custom_scenarios": "guild_id, ruleset, scenario_id, title, text, uploaded_by, uploaded_at",
    "user_names": "guild_id, user_id, display_name, updated_at",
}


def _snapshot_blob(raw: Any) -> bytes:
    """A snapshot as PostgreSQL keeps it (BYTEA): rows from before migration 4 hold JSON text."""
    return encode_state(json.loads(raw)) if isinstance(raw, str) else bytes(raw)


async def copy_rows(source: Store, target: PgStore) -> dict[str, int]:
    """Copy every row of `source` into `target` in one transaction; returns the rows per table.
    Raises :class:`StoreError` if the target already holds a game."""
    held = await target._one("SELECT COUNT(*) FROM games")
    if held:
        raise StoreError(f"the PostgreSQL database already holds {held} game(s): copy into an empty one")
    counts: dict[str, int] = {}
    async with target._transaction() as tx:
        for table, columns in TABLES.items():
            rows = [tuple(r) for r in await source._rows(f"SELECT {columns} FROM {table}")]
            if table == "snapshots":
                rows = [(g, s, _snapshot_blob(state)) for g, s, state in rows]
            if rows:
                await tx.conn.copy_records_to_table(table, records=rows,
                                                    columns=[c.strip() for c in columns.split(",")])
            counts[table] = len(rows)
        for table in ("games", "campaigns"):     # new rows are numbered after the copied ones
            await tx.conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                                  f" GREATEST((SELECT MAX(id) FROM {table}), 1))")
    return counts


async def compare_games(source: Store, target: PgStore, say: Callable[[str], None]) -> int:
    """Replay every game on both sides and compare the state hashes; a line per game. Returns
    how many games differ (or could not be replayed on one side)."""
    from .app import make_service
    from .history import state_hash

    sides = make_service(source), make_service(target)
    bad = 0
    for row in await source._rows("SELECT id FROM games ORDER BY id"):
        game_id = row[0]
        hashes, counts = [], []
        for service in sides:
            game = await service.store.get_game(game_id)
            try:
                state = await service.replay_state(game)
                hashes.append(state_hash(service.ruleset_of(game.ruleset), state))
            except Exception as exc:        # a game that cannot be replayed is reported, not fatal
                hashes.append(f"cannot replay: {type(exc).__name__}: {exc}")
            counts.append(await service.store.last_seq(game_id))
        game = await source.get_game(game_id)
        same = hashes[0] == hashes[1] and counts[0] == counts[1] and not hashes[0].startswith("cannot")
        bad += not same
        what = f"same state {hashes[0][:12]}" if same else f"DIFFERENT: sqlite {hashes[0][:60]} / postgresql {hashes[1][:60]}"
        say(f"game {game_id} ({game.ruleset} {game.scenario_id}, {game.status}): {counts[0]} command(s), {what}")
    return bad


async def copy_database(sqlite_file: str, url: str, say: Callable[[str], None] = print) -> int:
    """The whole of `herald db copy`; returns the exit status (0: every game the same)."""
    source = await Store.open(sqlite_file)
    try:
        target = await PgStore.open(url)
        try:
            counts = await copy_rows(source, target)
            say("copied: " + ", ".join(f"{n} {table}" for table, n in counts.items()))
            bad = await compare_games(source, target, say)
        finally:
            await target.close()
    finally:
        await source.close()
    say(f"{counts['games'] - bad} of {counts['games']} game(s) replay to the same state on PostgreSQL"
        + ("" if not bad else f"; {bad} differ"))
    return 1 if bad else 0
