"""The game store: games, seats and the command log in SQLite (aiosqlite, WAL); its PostgreSQL
twin is bot/store_pg.py, and bot/stores.py `open_store` opens either.

Generic on purpose: it stores text and JSON and knows nothing of Discord or of any ruleset.

Concurrency (notes/anchors.md §5, WAL section of notes/toolchain.md): one aiosqlite connection
with ``isolation_level=None``. aiosqlite runs every coroutine's statements on one thread, so
without care two tasks interleave inside each other's transaction ("cannot start a transaction
within a transaction", or reading another task's uncommitted rows). Hence every write is
``BEGIN IMMEDIATE ... COMMIT/ROLLBACK`` under one ``asyncio.Lock``, and reads take the same lock
briefly so they only see committed data. :meth:`Store.game_lock` is the per-game lock callers
hold around load -> apply -> commit; the ``seq`` check rejects any stale writer regardless.

One SQL for both databases: the methods below are written once, with ``?`` marks, in the SQL
SQLite and PostgreSQL share; where the dialects differ they ask a hook (``_insert_id``,
``_nocase``, ``_lock_game``, ``_lock_name``, ``_IntegrityError``), which bot/store_pg.py overrides.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiosqlite

from .migrations import MIGRATIONS

STATUSES = ("setup", "active", "over", "abandoned")

_GAME_COLUMNS = ("id, guild_id, channel_id, ruleset, scenario_id, scenario_text, seed, status,"
                 " created_by, created_at, options, result")
_COMMAND_COLUMNS = "game_id, seq, user_id, side, text, dice, events, interaction_id, created_at"
# read with the undo marks (migration 2): a row whose undone_at is set is not in force (bot/undo.py)
_COMMAND_READ = _COMMAND_COLUMNS + ", undone_at, undone_by"


from .store_base import (AlreadyExists, ChannelBusy, DuplicateInteraction, GameNotFound,  # noqa: F401
                         LimitReached, SeatTaken, SeqConflict, StoreError, UploadTaken, _dumps, _now,
                         decode_state, encode_state)
from .store_club import (CampaignResultRow, CampaignRow, ClubTables, CustomScenarioRow,  # noqa: F401
                         MemberRow)


def _raise_duplicate(exc: Exception, interaction_id: str | None) -> None:
    """A constraint failure on the interaction id (two writers of one id in different games at
    once: PostgreSQL runs them side by side) is the duplicate it is, not a store error."""
    if interaction_id is not None and "interaction_id" in str(exc):
        raise DuplicateInteraction(f"interaction {interaction_id} already applied") from exc


def is_postgres_url(target: str) -> bool:
    """Whether ``target`` names a PostgreSQL database (HERALD_DATABASE_URL) and not a file."""
    return str(target).startswith(("postgresql://", "postgres://"))


def redact(target: str) -> str:
    """The database's name for messages and logs: a URL without its password."""
    parts = urlsplit(str(target))
    if not is_postgres_url(target) or parts.password is None:
        return str(target)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


@dataclass(frozen=True)
class GameRow:
    """One row of ``games``; ``options`` is the decoded JSON object."""

    id: int
    guild_id: int | None
    channel_id: int
    ruleset: str
    scenario_id: str
    scenario_text: str | None
    seed: str
    status: str
    created_by: int | None
    created_at: str | None
    options: dict[str, Any]
    result: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> GameRow:
        return cls(**{**dict(row), "options": json.loads(row["options"] or "{}")})


@dataclass(frozen=True)
class CommandRow:
    """One accepted command; ``dice`` and ``events`` are decoded JSON."""

    game_id: int
    seq: int
    user_id: int | None
    side: str | None
    text: str
    dice: list[Any]
    events: list[Any]
    interaction_id: str | None
    created_at: str | None
    undone_at: str | None = None    # set: taken back (or the record of an undo); replays skip it
    undone_by: int | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> CommandRow:
        return cls(**{**dict(row), "dice": json.loads(row["dice"] or "[]"),
                      "events": json.loads(row["events"] or "[]")})


class Store(ClubTables):
    """Persistent store for games. Create with ``await Store.open(path)``."""

    #: what a constraint failure raises in this database (bot/store_pg.py: asyncpg's)
    _IntegrityError: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)

    def __init__(self, db: aiosqlite.Connection) -> None:
        """Use :meth:`open`; this only wraps an already configured connection."""
        self._db = db
        self._db_lock = asyncio.Lock()
        self.closed = False              # set by close(): late listeners leave the store alone
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock]
        self._game_locks = weakref.WeakValueDictionary()
        self._names: dict[tuple[int, int], str] = {}     # what user_names holds, as last written
        self._changes: dict[int, int] = {}     # game id -> writes to its log/snapshots (`changes`)

    # -- lifecycle ---------------------------------------------------------------------------

    @classmethod
    async def open(cls, path: str, *, migrations: Sequence[str] = MIGRATIONS) -> Store:
        """Open (creating if needed) the database at ``path``, configure it and migrate it."""
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            # synchronous=FULL (issue 17): WAL with NORMAL may roll back the last answered
            # actions on a power loss or OS crash; FULL syncs the WAL at every commit
            # (bench/durability_bench.py prints what it costs per action).
            for pragma in ("journal_mode=WAL", "busy_timeout=5000", "synchronous=FULL",
                           "foreign_keys=ON"):
                await db.execute(f"PRAGMA {pragma}")
            store = cls(db)
            await store._migrate(migrations)
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        """Close the connection (after any transaction in progress)."""
        async with self._db_lock:
            self.closed = True
            await self._db.close()

    async def _migrate(self, migrations: Sequence[str]) -> None:
        """Apply each migration at index >= user_version, with its version bump, atomically.

        ``executescript`` commits any open transaction before it runs, so BEGIN/COMMIT are part
        of the script itself; a failing statement leaves the transaction open and we roll back.
        """
        version = await self._one("PRAGMA user_version")
        if version > len(migrations):
            raise StoreError(f"database schema v{version} is newer than this code "
                             f"(v{len(migrations)})")
        async with self._db_lock:
            for index in range(version, len(migrations)):
                try:
                    await self._db.executescript(
                        f"BEGIN IMMEDIATE;\n{migrations[index]}\n;"
                        f"PRAGMA user_version = {index + 1};\nCOMMIT;")
                except BaseException:
                    await self._rollback()
                    raise

    # -- plumbing ----------------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Hold the store lock around ``BEGIN IMMEDIATE``; COMMIT on success, else ROLLBACK."""
        async with self._db_lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                await self._db.execute("COMMIT")
            except BaseException:
                await self._rollback()
                raise

    async def _rollback(self) -> None:
        """ROLLBACK, ignoring "no transaction is active" (SQLite may have rolled back itself)."""
        try:
            await self._db.execute("ROLLBACK")
        except sqlite3.OperationalError:
            pass

    async def _rows(self, sql: str, params: Sequence[Any] = (),
                    db: aiosqlite.Connection | None = None) -> list[sqlite3.Row]:
        """Run a query. Inside a transaction pass its ``db``; otherwise the read takes the store
        lock, so it never sees another task's uncommitted rows."""
        if db is not None:
            async with db.execute(sql, params) as cursor:
                return list(await cursor.fetchall())
        async with self._db_lock:
            return await self._rows(sql, params, self._db)

    async def _one(self, sql: str, params: Sequence[Any] = (),
                   db: aiosqlite.Connection | None = None) -> Any:
        """First column of the first row, or None."""
        rows = await self._rows(sql, params, db)
        return rows[0][0] if rows else None

    # -- where the dialects differ (bot/store_pg.py overrides each) ---------------------------

    async def _insert_id(self, db: Any, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT into a table with an ``id`` key; returns the new row's id."""
        cursor = await db.execute(sql, params)
        return int(cursor.lastrowid)

    async def _lock_game(self, db: Any, game_id: int) -> None:
        """Inside a write transaction: keep every other writer of the game waiting until it
        ends. A no-op here: ``BEGIN IMMEDIATE`` already serializes every writer."""

    async def _lock_name(self, db: Any, name: str) -> None:
        """Inside a write transaction: the same for a name (e.g. a server's campaigns)."""

    @staticmethod
    def _nocase(expr: str) -> str:
        """``expr`` compared and sorted without regard to case."""
        return f"{expr} COLLATE NOCASE"

    def game_lock(self, game_id: int) -> asyncio.Lock:
        """The lock callers hold around load -> apply -> commit for one game.

        Created on demand; the same lock is returned while anyone holds or awaits it (entries
        vanish once nobody references them, so the map does not grow without bound).
        """
        lock = self._game_locks.get(game_id)
        if lock is None:
            lock = self._game_locks[game_id] = asyncio.Lock()
        return lock

    @asynccontextmanager
    async def lock_game(self, game_id: int) -> AsyncIterator[None]:
        """The game's lock across processes, taken inside :meth:`game_lock` around load ->
        apply -> commit (bot/service.py). A no-op here: one process uses an SQLite file, and
        WAL with ``BEGIN IMMEDIATE`` already serializes its writers. bot/store_pg.py holds a
        PostgreSQL advisory lock."""
        yield

    async def claim(self, game_id: int, kind: str, key: str, owner: str = "", *,
                    lease_seconds: float | None = None) -> bool:
        """Claim one firing of a deadline or reminder (``kind``, ``key``) of the game, for
        ``owner``; True for the one caller that gets it, in whichever process (the table's key
        decides: INSERT ... ON CONFLICT DO NOTHING). With ``lease_seconds``, a claim older than
        that is taken over (its owner died before acting; what it fires must be idempotent)."""
        now = _now()
        try:
            async with self._transaction() as db:
                cursor = await db.execute(
                    "INSERT INTO claims (game_id, kind, claim_key, owner, claimed_at) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (game_id, kind, claim_key) DO NOTHING", (game_id, kind, key, owner, now))
                if cursor.rowcount == 1:
                    return True
                if lease_seconds is None:
                    return False
                cutoff = (datetime.fromisoformat(now) - timedelta(seconds=lease_seconds)).isoformat(timespec="seconds")
                cursor = await db.execute(
                    "UPDATE claims SET owner = ?, claimed_at = ? WHERE game_id = ? AND kind = ?"
                    " AND claim_key = ? AND claimed_at < ?", (owner, now, game_id, kind, key, cutoff))
                return cursor.rowcount == 1
        except self._IntegrityError as exc:       # the foreign key: no such game
            raise GameNotFound(f"no game {game_id}") from exc

    # -- games -------------------------------------------------------------------------------

    async def create_game(self, guild_id: int | None, channel_id: int, ruleset: str,
                          scenario_id: str, seed: str, created_by: int | None,
                          scenario_text: str | None = None,
                          options: dict[str, Any] | None = None) -> int:
        """Insert a game in 'setup' status and return its id.

        Raises :class:`ChannelBusy` if the channel already has a setup/active game.
        """
        try:
            async with self._transaction() as db:
                return await self._insert_id(
                    db, "INSERT INTO games (guild_id, channel_id, ruleset, scenario_id, scenario_text,"
                    " seed, status, created_by, created_at, options)"
                    " VALUES (?, ?, ?, ?, ?, ?, 'setup', ?, ?, ?)",
                    (guild_id, channel_id, ruleset, scenario_id, scenario_text, seed,
                     created_by, _now(), _dumps(options or {})))
        except self._IntegrityError as exc:
            if "unique" in str(exc).lower():
                raise ChannelBusy(f"channel {channel_id} already has a game in progress") from exc
            raise StoreError(f"cannot create game: {exc}") from exc

    async def get_game(self, game_id: int) -> GameRow | None:
        """The game with this id, or None."""
        rows = await self._rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return GameRow.from_row(rows[0]) if rows else None

    async def active_game(self, channel_id: int) -> GameRow | None:
        """The channel's game in setup or active status, or None."""
        rows = await self._rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ?"
                                " AND status IN ('setup', 'active')", (channel_id,))
        return GameRow.from_row(rows[0]) if rows else None

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's newest game that was not abandoned (a finished battle stays readable:
        its board, status and log), or None."""
        rows = await self._rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ?"
                                " AND status != 'abandoned' ORDER BY id DESC LIMIT 1", (channel_id,))
        return GameRow.from_row(rows[0]) if rows else None

    async def list_games(self, guild_id: int | None = None) -> list[GameRow]:
        """Setup/active games, newest first; only this guild's when ``guild_id`` is given."""
        where, params = ("", ()) if guild_id is None else (" AND guild_id = ?", (guild_id,))
        rows = await self._rows(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('setup', 'active'){where}"
            " ORDER BY id DESC", params)
        return [GameRow.from_row(r) for r in rows]

    async def resumable_games(self) -> list[GameRow]:
        """Games in 'active' status, oldest first: what a restarted bot must pick up again."""
        rows = await self._rows(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' ORDER BY id")
        return [GameRow.from_row(r) for r in rows]

    async def set_status(self, game_id: int, status: str, result: str | None = None) -> None:
        """Set a game's status and result text (e.g. the victory summary when 'over').

        Raises ValueError for an unknown status, :class:`GameNotFound`, or :class:`ChannelBusy`
        when reviving a game in a channel that already has another live game.
        """
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}; expected one of {STATUSES}")
        try:
            async with self._transaction() as db:
                cursor = await db.execute("UPDATE games SET status = ?, result = ? WHERE id = ?",
                                          (status, result, game_id))
                if cursor.rowcount == 0:
                    raise GameNotFound(f"no game {game_id}")
        except self._IntegrityError as exc:
            raise ChannelBusy(f"game {game_id}'s channel already has a game in progress") from exc

    async def set_options(self, game_id: int, **changes: Any) -> dict[str, Any]:
        """Merge ``changes`` into the game's ``options`` JSON object (a value of None removes
        its key), in one transaction; returns the new options. Raises :class:`GameNotFound`."""
        async with self._transaction() as db:
            await self._lock_game(db, game_id)
            text = await self._one("SELECT options FROM games WHERE id = ?", (game_id,), db)
            if text is None:
                raise GameNotFound(f"no game {game_id}")
            options = json.loads(text or "{}")
            for key, value in changes.items():
                if value is None:
                    options.pop(key, None)
                else:
                    options[key] = value
            await db.execute("UPDATE games SET options = ? WHERE id = ?", (_dumps(options), game_id))
            return options

    # -- seats -------------------------------------------------------------------------------

    async def take_seat(self, game_id: int, side: str, user_id: int) -> None:
        """Seat ``user_id`` on ``side``; a no-op if they already hold it.

        Raises :class:`SeatTaken` if another user holds the side or this user holds another
        side, and :class:`GameNotFound` for an unknown game.
        """
        async with self._transaction() as db:
            await self._lock_game(db, game_id)
            holder = await self._one("SELECT user_id FROM seats WHERE game_id = ? AND side = ?",
                                     (game_id, side), db)
            if holder == user_id:
                return
            if holder is not None:
                raise SeatTaken(f"side {side!r} is already taken")
            other = await self._one("SELECT side FROM seats WHERE game_id = ? AND user_id = ?",
                                    (game_id, user_id), db)
            if other is not None:
                raise SeatTaken(f"you already command side {other!r} in this game")
            role = await self._one("SELECT role FROM members WHERE game_id = ? AND user_id = ?",
                                   (game_id, user_id), db)
            if role is not None:                # bot/club.py: one role per user and game
                raise SeatTaken(f"you are already a {role} in this game")
            if await self._one("SELECT 1 FROM games WHERE id = ?", (game_id,), db) is None:
                raise GameNotFound(f"no game {game_id}")
            await db.execute("INSERT INTO seats (game_id, side, user_id) VALUES (?, ?, ?)",
                             (game_id, side, user_id))

    async def leave_seat(self, game_id: int, user_id: int) -> str | None:
        """Free the side ``user_id`` holds in the game; returns that side, or None if none."""
        async with self._transaction() as db:
            side = await self._one("SELECT side FROM seats WHERE game_id = ? AND user_id = ?",
                                   (game_id, user_id), db)
            await db.execute("DELETE FROM seats WHERE game_id = ? AND user_id = ?",
                             (game_id, user_id))
            return side

    async def seats(self, game_id: int) -> dict[str, int]:
        """Map side -> user id for the game's taken seats."""
        rows = await self._rows(
            "SELECT side, user_id FROM seats WHERE game_id = ? ORDER BY side", (game_id,))
        return {r["side"]: r["user_id"] for r in rows}

    async def games_with_option(self, key: str, values: Sequence[Any]) -> list[GameRow]:
        """Games whose ``options`` JSON has ``key`` equal to one of ``values`` (e.g. the return
        games of a list of games), oldest first."""
        if not values:
            return []
        marks = ", ".join("?" * len(values))
        rows = await self._rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE json_extract(options, ?) IN ({marks})"
                                " ORDER BY id", ("$." + key, *values))
        return [GameRow.from_row(r) for r in rows]

    # -- command log and snapshots -----------------------------------------------------------

    async def append_command(self, game_id: int, *, seq: int, user_id: int | None,
                             side: str | None, text: str, dice: list[Any], events: list[Any],
                             state: dict[str, Any] | bytes | None,
                             interaction_id: str | None = None) -> None:
        """Record an accepted command and the state after it, in ONE transaction. ``state``: the
        state as a dict, or already encoded (`encode_state`, done off the event loop), or None
        to keep no snapshot of it (the service keeps one every SNAPSHOT_EVERY commands).

        Raises :class:`DuplicateInteraction` if ``interaction_id`` was already stored,
        :class:`SeqConflict` unless ``seq == last_seq + 1``, and :class:`StoreError` if an
        insert fails (e.g. unknown game); in every case nothing is written.
        """
        dice_json, events_json = _dumps(dice), _dumps(events)
        state_blob = None if state is None else state if isinstance(state, bytes) else encode_state(state)
        try:
            async with self._transaction() as db:
                await self._lock_game(db, game_id)
                if interaction_id is not None and await self._one(
                        "SELECT 1 FROM commands WHERE interaction_id = ?", (interaction_id,), db):
                    raise DuplicateInteraction(f"interaction {interaction_id} already applied")
                last = await self._one("SELECT COALESCE(MAX(seq), 0) FROM commands"
                                       " WHERE game_id = ?", (game_id,), db)
                if seq != last + 1:
                    raise SeqConflict(f"game {game_id}: got seq {seq}, expected {last + 1}")
                await db.execute(
                    f"INSERT INTO commands ({_COMMAND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, seq, user_id, side, text, dice_json, events_json, interaction_id,
                     _now()))
                if state_blob is not None:
                    await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES (?, ?, ?)",
                                     (game_id, seq, state_blob))
        except self._IntegrityError as exc:
            _raise_duplicate(exc, interaction_id)
            raise StoreError(f"game {game_id}: cannot record command {seq}: {exc}") from exc
        finally:
            self._changed(game_id)

    async def commands(self, game_id: int, *, undone: bool = False, after: int = 0) -> list[CommandRow]:
        """The game's command log in force (what every replay applies), ordered by seq; with
        ``undone``, also the commands taken back and the records of those undos (bot/undo.py);
        ``after``: only the commands with a higher seq (those after a snapshot)."""
        rows = await self._rows(
            f"SELECT {_COMMAND_READ} FROM commands WHERE game_id = ? AND seq > ?"
            f"{'' if undone else ' AND undone_at IS NULL'} ORDER BY seq", (game_id, after))
        return [CommandRow.from_row(r) for r in rows]

    async def replay_lines(self, game_id: int, after: int = 0) -> list[tuple[int, str | None, str]]:
        """``(seq, side, text)`` of the commands in force after ``after``: what a load replays
        on top of a snapshot, without decoding the dice and events (issue 13)."""
        rows = await self._rows("SELECT seq, side, text FROM commands WHERE game_id = ? AND seq > ?"
                                " AND undone_at IS NULL ORDER BY seq", (game_id, after))
        return [(r["seq"], r["side"], r["text"]) for r in rows]

    async def last_command(self, game_id: int) -> CommandRow | None:
        """The game's latest command (the one that made the current state), or None."""
        rows = await self._rows(f"SELECT {_COMMAND_READ} FROM commands WHERE game_id = ?"
                                " ORDER BY seq DESC LIMIT 1", (game_id,))
        return CommandRow.from_row(rows[0]) if rows else None

    async def last_seq(self, game_id: int) -> int:
        """The highest command seq of the game, 0 when it has none."""
        return int(await self._one(
            "SELECT COALESCE(MAX(seq), 0) FROM commands WHERE game_id = ?", (game_id,)))

    async def latest_snapshot(self, game_id: int) -> tuple[int, dict[str, Any]] | None:
        """``(seq, state)`` of the newest snapshot, or None if the game has none."""
        got = await self.latest_snapshot_raw(game_id)
        return (got[0], decode_state(got[1])) if got else None

    async def latest_snapshot_raw(self, game_id: int) -> tuple[int, bytes | str] | None:
        """``(seq, blob)`` of the newest snapshot, undecoded: the service decodes it off the
        event loop (`decode_state`)."""
        rows = await self._rows("SELECT seq, state FROM snapshots WHERE game_id = ?"
                                " ORDER BY seq DESC LIMIT 1", (game_id,))
        return (rows[0]["seq"], rows[0]["state"]) if rows else None

    def changes(self, game_id: int) -> int:
        """How many times this store changed the game's log or snapshots since it opened: the
        service's cache of live states (bot/service.py) is good while this has not moved."""
        return self._changes.get(game_id, 0)

    def _changed(self, game_id: int) -> None:
        self._changes[game_id] = self._changes.get(game_id, 0) + 1

    async def replace_snapshots(self, game_id: int, from_seq: int, seq: int, state: dict[str, Any]) -> None:
        """A repair (bot/service.py `check_snapshot`): drop the game's snapshots from
        ``from_seq`` on and store ``state`` as the snapshot at ``seq``, in ONE transaction."""
        try:
            async with self._transaction() as db:
                await self._lock_game(db, game_id)
                await db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq >= ?", (game_id, from_seq))
                await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES (?, ?, ?)"
                                 " ON CONFLICT (game_id, seq) DO UPDATE SET state = excluded.state",
                                 (game_id, seq, encode_state(state)))
        finally:
            self._changed(game_id)

    async def snapshot_before(self, game_id: int, seq: int) -> tuple[int, dict[str, Any]] | None:
        """``(seq, state)`` of the newest snapshot older than ``seq``, or None (undo's base)."""
        rows = await self._rows("SELECT seq, state FROM snapshots WHERE game_id = ? AND seq < ?"
                                " ORDER BY seq DESC LIMIT 1", (game_id, seq))
        return (rows[0]["seq"], decode_state(rows[0]["state"])) if rows else None

    async def record_undo(self, game_id: int, target: int, *, seq: int, user_id: int | None,
                          side: str | None, text: str, events: list[Any], state: dict[str, Any],
                          undone_by: int | None, consent_by: int | None,
                          interaction_id: str | None = None) -> None:
        """Take back command ``target`` (bot/undo.py), in ONE transaction: mark it undone, append
        the record of the undo at ``seq`` (itself marked, so no replay applies it), drop the
        snapshots from ``target`` on (they hold its effects) and store ``state`` (the game
        without it) as the snapshot at ``seq``. Raises like :meth:`append_command`, and
        :class:`StoreError` if ``target`` is not a command in force."""
        when = _now()
        try:
            async with self._transaction() as db:
                await self._lock_game(db, game_id)
                if interaction_id is not None and await self._one(
                        "SELECT 1 FROM commands WHERE interaction_id = ?", (interaction_id,), db):
                    raise DuplicateInteraction(f"interaction {interaction_id} already applied")
                last = await self._one("SELECT COALESCE(MAX(seq), 0) FROM commands"
                                       " WHERE game_id = ?", (game_id,), db)
                if seq != last + 1:
                    raise SeqConflict(f"game {game_id}: got seq {seq}, expected {last + 1}")
                cursor = await db.execute(
                    "UPDATE commands SET undone_at = ?, undone_by = ? WHERE game_id = ? AND seq = ?"
                    " AND undone_at IS NULL", (when, undone_by, game_id, target))
                if cursor.rowcount != 1:
                    raise StoreError(f"game {game_id}: command {target} is not in force")
                await db.execute(
                    f"INSERT INTO commands ({_COMMAND_READ}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, seq, user_id, side, text, "[]", _dumps(events), interaction_id, when,
                     when, consent_by))
                await db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq >= ?", (game_id, target))
                await db.execute("INSERT INTO snapshots (game_id, seq, state) VALUES (?, ?, ?)",
                                 (game_id, seq, encode_state(state)))
        except self._IntegrityError as exc:
            _raise_duplicate(exc, interaction_id)
            raise StoreError(f"game {game_id}: cannot record the undo of {target}: {exc}") from exc
        finally:
            self._changed(game_id)

    async def truncate_after(self, game_id: int, seq: int) -> int:
        """Delete commands and snapshots with seq > ``seq`` (undo); returns commands removed."""
        try:
            async with self._transaction() as db:
                await self._lock_game(db, game_id)
                cursor = await db.execute("DELETE FROM commands WHERE game_id = ? AND seq > ?",
                                          (game_id, seq))
                await db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq > ?", (game_id, seq))
                return cursor.rowcount
        finally:
            self._changed(game_id)

    async def has_interaction(self, interaction_id: str) -> bool:
        """Whether a command with this interaction id was already stored."""
        return await self._one("SELECT 1 FROM commands WHERE interaction_id = ?",
                               (interaction_id,)) is not None

    async def command_by_interaction(self, interaction_id: str) -> CommandRow | None:
        """The command stored with this interaction id, in whichever game (ids are unique across
        games, as :meth:`has_interaction` sees them), or None."""
        rows = await self._rows(f"SELECT {_COMMAND_READ} FROM commands WHERE interaction_id = ?",
                                (interaction_id,))
        return CommandRow.from_row(rows[0]) if rows else None

    async def finished_games(self, guild_id: int, limit: int = 5) -> list[GameRow]:
        """The guild's latest finished ('over') games, newest first (bot/club.py: /game list)."""
        rows = await self._rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'over' AND guild_id = ?"
                                " ORDER BY id DESC LIMIT ?", (guild_id, int(limit)))
        return [GameRow.from_row(r) for r in rows]
