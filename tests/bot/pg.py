"""A real PostgreSQL for the tests (issue 17): the `pgserver` package (PostgreSQL 16 binaries
from the package registry, in the test extras) starts one server per test session in a
temporary folder; each test that asks for `pg_url` gets a database of its own on it.
Registered as fixtures in tests/bot/conftest.py."""
from __future__ import annotations

import tempfile
import uuid

import pytest
import pytest_asyncio


@pytest.fixture(scope="session")
def pg_server():
    """The session's PostgreSQL server (skipped, saying why, only when it cannot start). Its
    folder is a fresh one in the system's temporary folder, not pytest's: run as root, pgserver
    runs PostgreSQL as its own user, who cannot enter pytest's folders (mode 0700)."""
    try:
        import pgserver
    except ImportError as exc:           # pragma: no cover - the test extras install it
        pytest.skip(f"PostgreSQL tests need the pgserver package (pip install -e '.[test]'): {exc}")
    try:
        server = pgserver.get_server(tempfile.mkdtemp(prefix="herald-pg-"), cleanup_mode="delete")
    except Exception as exc:             # pragma: no cover - a machine where it cannot run
        pytest.skip(f"PostgreSQL (pgserver) did not start here: {type(exc).__name__}: {exc}")
    # a test server: what it writes need not survive a power loss (without this, the databases
    # created and dropped by the tests took a minute to sync at shutdown)
    server.psql("ALTER SYSTEM SET fsync = off; ALTER SYSTEM SET synchronous_commit = off;"
                " ALTER SYSTEM SET full_page_writes = off; SELECT pg_reload_conf();")
    yield server
    server.cleanup()


async def new_database(server) -> str:
    """A new empty schema on ``server`` (a database of its own, to the store: asyncpg passes the
    URL's ``search_path`` to the server, and every table the store makes goes there; a schema
    is made in milliseconds, a database in half a second); returns its URL."""
    import asyncpg
    name = "t_" + uuid.uuid4().hex[:16]
    conn = await asyncpg.connect(server.get_uri())
    try:
        await conn.execute(f'CREATE SCHEMA "{name}"')
    finally:
        await conn.close()
    return f"{server.get_uri()}&search_path={name}"


async def drop_database(server, url: str) -> None:
    import asyncpg
    name = url.rsplit("search_path=", 1)[-1]
    conn = await asyncpg.connect(server.get_uri())
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    finally:
        await conn.close()


@pytest_asyncio.fixture
async def pg_url(pg_server):
    """A fresh, empty database (a schema) on the session's server, dropped after the test."""
    url = await new_database(pg_server)
    yield url
    await drop_database(pg_server, url)
