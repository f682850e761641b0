"""Durability (issue 17): what each committed action costs with SQLite's WAL at synchronous=NORMAL
(before: the last answered actions may roll back on a power loss or OS crash), at FULL (now: the
WAL synced at every commit), and on PostgreSQL (a local pgserver, its defaults: fsync on,
synchronous_commit on).

Each store plays the first N commands of the bundled Edgehill demo (TACW) through the game
service, as the bot does; printed: ms per action in all (engine included, the same for each)
and ms inside the store's commit (`append_command`: the log row, a keyframe snapshot every 8).

Run: .venv/bin/python bench/durability_bench.py [--actions 120] [--no-postgres]
(prints its figures; asserts nothing). The fsync figures depend on the disk under the temporary
folder: a laptop's SSD, a cloud volume and a tmpfs differ by orders of magnitude.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app import make_service  # noqa: E402
from bot.cli import DEMO_DIR, read_script  # noqa: E402
from bot.store import Store  # noqa: E402
from engine.core.commands import split_side  # noqa: E402


async def play(store, n: int) -> tuple[float, float]:
    """ms per action in all, and ms of it inside append_command."""
    spent = [0.0]
    append = store.append_command

    async def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return await append(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t
    store.append_command = timed
    service = make_service(store)
    seed, lines = read_script(DEMO_DIR / "tacw--edgehill.txt")
    await service.new_game(1, 10, 1, "tacw", "edgehill", seed, side="royalist")
    await service.join(10, 2, "parliament")
    await service.start(10, 1)
    lines = lines[:n]
    start = time.perf_counter()
    for i, line in enumerate(lines):
        side, text = split_side(line, ("royalist", "parliament"))
        await service.act(10, 1 if side == "royalist" else 2, text, interaction_id=f"i{i}")
    total = time.perf_counter() - start
    return 1000 * total / len(lines), 1000 * spent[0] / len(lines)


async def sqlite_run(n: int, synchronous: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.db"))
        await store._db.execute(f"PRAGMA synchronous={synchronous}")
        try:
            return await play(store, n)
        finally:
            await store.close()


async def postgres_run(n: int, url: str) -> tuple[float, float]:
    from bot.store_pg import PgStore
    store = await PgStore.open(url)
    try:
        return await play(store, n)
    finally:
        await store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=120)
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()
    rows = [(f"SQLite WAL synchronous={mode}", asyncio.run(sqlite_run(args.actions, mode)))
            for mode in ("NORMAL", "FULL")]
    if not args.no_postgres:
        import pgserver
        folder = tempfile.mkdtemp(prefix="herald-pg-bench-")
        server = pgserver.get_server(folder, cleanup_mode="delete")
        try:
            rows.append(("PostgreSQL 16 (pgserver, fsync on)", asyncio.run(postgres_run(args.actions, server.get_uri()))))
        finally:
            server.cleanup()
    print(f"{args.actions} actions of the Edgehill demo (TACW), ms per committed action:")
    print(f"{'store':40s} {'per action':>11s} {'in the commit':>14s}")
    for name, (total, commit) in rows:
        print(f"{name:40s} {total:11.2f} {commit:14.2f}")


if __name__ == "__main__":
    main()
