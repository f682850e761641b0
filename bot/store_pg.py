"""The game store on PostgreSQL (asyncpg): chosen by HERALD_DATABASE_URL=postgresql://...
(`bot.stores.open_store`), behind the same interface as the SQLite one (issue 17).

`PgStore` is `Store` with PostgreSQL's plumbing: every public method is the one in bot/store.py
and bot/store_club.py, the same SQL with ``?`` marks, which `_pg` turns into ``$1, $2...``
(and ``IS ?`` into ``IS NOT DISTINCT FROM $n``). The few places where the dialects differ are
the hooks overridden here: the new row's id (RETURNING), case-blind names (lower()), the JSON
options, and the locks a writer takes.

Concurrency: a pool of connections, each transaction on its own, READ COMMITTED. SQLite runs one
writer at a time; here writers of different games run side by side, so every write that checks
then writes takes the game's row (``SELECT ... FOR UPDATE``, `_lock_game`) or a transaction
advisory lock on a name (`_lock_name`: a server's campaigns, its uploads) first: the check then
sees what the writer before it committed. The unique constraints stay the last word (a second
writer of one interaction id gets DuplicateInteraction).

Schema versions: bot/migrations.py's PG_MIGRATIONS, version kept in ``herald_schema``, each
migration and its version bump one transaction, all of them applied under a session advisory
lock so two processes starting at once migrate once.

One game across processes (issue 17): `lock_game(game_id)` holds a session advisory lock,
``pg_advisory_lock(GAME_LOCK, game_id)`` (the two-int form, a key space of its own), on a
connection of a small pool kept for locks alone, from load to commit, released in ``finally``
(and by asyncpg's reset, ``pg_advisory_unlock_all``, whenever a connection goes back to its
pool). A session lock, not ``pg_advisory_xact_lock``: load, apply and commit are several
transactions (each store call is its own, the rules run in a thread between them), so no one
transaction spans them. A pool of its own: a holder also needs the main pool for its reads and
its commit, so holders drawing on the main pool could take every connection and wait forever.
`game_lock(game_id)`, the lock every caller already holds around load -> apply -> commit
(bot/service.py, undo, club, physical dice, deadlines), is here the in-process asyncio lock
followed by `lock_game`: one process queues its own callers without holding a connection each,
and every one of those callers is serialized across processes with no change of its own. A
holder that waits more than LOCK_WAIT seconds is refused (StoreError: the game is busy). If a
lock's connection dies, PostgreSQL drops the lock; the ``seq`` check of the commit stays the
last word (SeqConflict), so a stale writer is still refused.
"""
from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

import asyncpg

from .migrations import PG_MIGRATIONS
from .store import _GAME_COLUMNS, GameRow, Store, redact
from .store_base import StoreError, _dumps

# pg_advisory_lock keys (two-int form: class, id): the migration lock, and the per-game lock
# across processes (see the module's docstring).
MIGRATION_LOCK = (17_001, 0)
GAME_LOCK = 17_002
LOCK_WAIT = 30.0             # seconds a caller waits for a game another process holds
LOCK_CONNECTIONS = 20        # the lock pool: games locked at once by one process


def _game_key(game_id: int) -> int:
    """The game's id as the lock's second key (int4; ids past 2**31 share keys: more waiting,
    never less)."""
    return int(game_id) % 2**31


class _GameLock:
    """`PgStore.game_lock`: the in-process asyncio lock, then the advisory lock across
    processes (`PgStore.lock_game`), released in the reverse order. Used as ``async with``."""

    def __init__(self, store: PgStore, game_id: int) -> None:
        self._store, self._game_id = store, game_id
        self._local = asyncio.Lock()
        self._held: Any = None

    def locked(self) -> bool:
        return self._local.locked()

    async def __aenter__(self) -> None:
        await self._local.acquire()
        try:
            held = self._store.lock_game(self._game_id)
            await held.__aenter__()
        except BaseException:
            self._local.release()
            raise
        self._held = held

    async def __aexit__(self, *exc: Any) -> None:
        held, self._held = self._held, None
        try:
            await held.__aexit__(*exc)
        finally:
            self._local.release()


@lru_cache(maxsize=512)
def _pg(sql: str) -> str:
    """The store's SQL (``?`` marks, SQLite's ``IS ?``) in PostgreSQL's: ``$1, $2...``."""
    sql = re.sub(r"\bIS \?", "IS NOT DISTINCT FROM ?", sql)
    count = iter(range(1, 10_000))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql)


class _Done:
    """What a write answers: how many rows it touched (as an SQLite cursor's ``rowcount``)."""

    def __init__(self, status: str) -> None:
        last = status.rsplit(" ", 1)[-1] if status else ""
        self.rowcount = int(last) if last.isdigit() else -1


class PgTransaction:
    """A pooled connection inside a transaction, with the calls the shared store code makes."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> _Done:
        return _Done(await self.conn.execute(_pg(sql), *params))

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[asyncpg.Record]:
        return await self.conn.fetch(_pg(sql), *params)


class PgStore(Store):
    """Persistent store for games in PostgreSQL. Create with ``await PgStore.open(url)``."""

    _IntegrityError = (asyncpg.IntegrityConstraintViolationError,)

    def __init__(self, pool: asyncpg.Pool, url: str = "") -> None:
        super().__init__(pool)          # type: ignore[arg-type]   (self._db is the pool here)
        self.url = url
        self._lock_pool: asyncpg.Pool | None = None     # lock_game's connections, made on first use
        self._lock_pool_ready = asyncio.Lock()

    # -- lifecycle ---------------------------------------------------------------------------

    @classmethod
    async def open(cls, url: str, *, migrations: Sequence[str] = PG_MIGRATIONS,
                   max_size: int = 10) -> PgStore:
        """Connect to the database at ``url`` and migrate it. Raises :class:`StoreError` when
        the server cannot be reached or refuses the connection (the password left out)."""
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=max_size)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {redact(url)}: {exc}") from exc
        store = cls(pool, url)
        try:
            await store._migrate(migrations)
        except BaseException:
            await pool.close()
            raise
        return store

    async def close(self) -> None:
        """Close the pool (after the transactions in progress)."""
        self.closed = True
        if self._lock_pool is not None:
            await self._lock_pool.close()
        await self._db.close()

    async def schema_version(self) -> int:
        """The schema version the database is at (0: none yet)."""
        return int(await self._one("SELECT COALESCE(MAX(version), 0) FROM herald_schema"))

    async def _migrate(self, migrations: Sequence[str]) -> None:
        """Apply each migration past the stored version, each with its version bump in one
        transaction, under a session advisory lock (one process migrates, the others wait)."""
        async with self._db.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1, $2)", *MIGRATION_LOCK)
            try:
                async with conn.transaction():
                    await conn.execute("CREATE TABLE IF NOT EXISTS herald_schema (version INTEGER NOT NULL)")
                    version = await conn.fetchval("SELECT MAX(version) FROM herald_schema")
                    if version is None:
                        await conn.execute("INSERT INTO herald_schema (version) VALUES (0)")
                        version = 0
                if version > len(migrations):
                    raise StoreError(f"database schema v{version} is newer than this code "
                                     f"(v{len(migrations)})")
                for index in range(version, len(migrations)):
                    async with conn.transaction():
                        await conn.execute(migrations[index])
                        await conn.execute("UPDATE herald_schema SET version = $1", index + 1)
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1, $2)", *MIGRATION_LOCK)

    # -- plumbing ----------------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[PgTransaction]:  # type: ignore[override]
        """A pooled connection in a transaction: COMMIT on success, else ROLLBACK."""
        async with self._db.acquire() as conn:
            async with conn.transaction():
                yield PgTransaction(conn)

    async def _rows(self, sql: str, params: Sequence[Any] = (),  # type: ignore[override]
                    db: PgTransaction | None = None) -> list[asyncpg.Record]:
        """Run a query, inside the transaction ``db`` if given (else on any pooled connection:
        READ COMMITTED, so it sees only committed rows)."""
        if db is not None:
            return await db.fetch(sql, params)
        return await self._db.fetch(_pg(sql), *params)

    # -- one game across processes --------------------------------------------------------------

    def game_lock(self, game_id: int) -> _GameLock:  # type: ignore[override]
        """The lock callers hold around load -> apply -> commit: in this process and across
        processes (`_GameLock`). The same object while anyone holds or awaits it."""
        lock = self._game_locks.get(game_id)
        if lock is None:
            lock = self._game_locks[game_id] = _GameLock(self, game_id)   # type: ignore[assignment]
        return lock  # type: ignore[return-value]

    async def _locks(self) -> asyncpg.Pool:
        async with self._lock_pool_ready:
            if self._lock_pool is None:
                self._lock_pool = await asyncpg.create_pool(self.url, min_size=0, max_size=LOCK_CONNECTIONS)
            return self._lock_pool

    @asynccontextmanager
    async def lock_game(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's advisory lock (see the module's docstring) for the ``async with``
        block; every other process's holder of it waits. Raises :class:`StoreError` when another
        process has held it for LOCK_WAIT seconds."""
        pool = await self._locks()
        async with pool.acquire() as conn:
            try:
                await conn.execute("SELECT pg_advisory_lock($1, $2)", GAME_LOCK, _game_key(game_id),
                                   timeout=LOCK_WAIT)
            except asyncio.TimeoutError:
                raise StoreError(f"game {game_id} is busy in another process; try again in a moment") from None
            try:
                yield
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1, $2)", GAME_LOCK, _game_key(game_id))

    # -- the hooks (bot/store.py) --------------------------------------------------------------

    async def _insert_id(self, db: PgTransaction, sql: str, params: Sequence[Any]) -> int:
        return int(await db.conn.fetchval(_pg(sql + " RETURNING id"), *params))

    async def _lock_game(self, db: PgTransaction, game_id: int) -> None:
        await db.execute("SELECT 1 FROM games WHERE id = ? FOR UPDATE", (game_id,))

    async def _lock_name(self, db: PgTransaction, name: str) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 17))", (name,))

    @staticmethod
    def _nocase(expr: str) -> str:
        return f"lower({expr})"

    async def games_with_option(self, key: str, values: Sequence[Any]) -> list[GameRow]:
        if not values:
            return []
        marks = ", ".join(["?::jsonb"] * len(values))
        rows = await self._rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE (options::jsonb -> ?) IN ({marks})"
                                " ORDER BY id", (key, *(_dumps(v) for v in values)))
        return [GameRow.from_row(r) for r in rows]
