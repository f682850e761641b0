"""Opening the store a deployment names: `open_store(target)`, the SQLite file at a path or
PostgreSQL for a ``postgresql://`` URL (HERALD_DATABASE_URL). Apart from bot/store.py and
bot/store_pg.py so neither imports the other in a circle (tests/test_layering.py)."""
from __future__ import annotations

from .store import Store, is_postgres_url


async def open_store(target: str) -> Store:
    """The store at ``target``: a ``postgresql://`` URL opens PostgreSQL (bot/store_pg.py),
    anything else is the path of an SQLite file. Either is migrated to the current schema."""
    if is_postgres_url(target):
        from .store_pg import PgStore
        return await PgStore.open(target)
    return await Store.open(target)
