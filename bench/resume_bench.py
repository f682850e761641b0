"""Restart (issues 11 and 13): how long a restarted bot blocks before login, for N active games,
each a late Edgehill (the bundled demo battle up to its last command, ~450 commands, TACW),
loaded the way `resume_all` loads them now (the newest keyframe snapshot, one every
SNAPSHOT_EVERY commands, plus the commands after it, replayed off the loop) and the way it used
to (every game replayed from its seed on the event loop, `verify` per game); and how long the
background check of the snapshots then takes (`check_snapshot`: the replays from the seed, in a
thread, after login). Target (issue 13): 50 late-game battles ready in at most 5 s.

Run: .venv/bin/python bench/resume_bench.py [--games 1 10 50] [--replay-up-to 50]
(prints its figures; asserts nothing; the replay of 50 games takes minutes: --replay-up-to
leaves out the old way above that many games).

Wall time depends on what else the machine runs; CPU time (this process) is the steadier figure.
"""
from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app import make_service  # noqa: E402
from bot.cli import DEMO_DIR, read_script  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.store_base import is_keyframe  # noqa: E402
from engine.core.commands import split_side  # noqa: E402
from engine.core.game import Game  # noqa: E402

STEM = "tacw--edgehill"


def demo_game() -> tuple[str, Game, list]:
    """The demo battle played through the engine: its seed, the game, the state after each command."""
    seed, lines = read_script(DEMO_DIR / f"{STEM}.txt")
    seed = seed or "1"
    g = Game.new("tacw", "edgehill", int(seed) if seed.isdigit() else seed)
    states = []
    for line in lines:
        side, text = split_side(line, g.ruleset.sides)
        g.apply(side, text)
        if g.ruleset.to_act(g.state) is None:      # the battle's last command: keep it going
            g.history.pop()
            break
        states.append(g.state)
    return seed, g, states


async def build(path: str, n: int, seed: str, g: Game, states: list) -> None:
    """N active games in channels 1..N, each holding the demo's whole log and its keyframes."""
    store = await Store.open(path)
    try:
        first = await store.create_game(1, 1, "tacw", "edgehill", seed, 1)
        for seq, (record, state) in enumerate(zip(g.history, states), 1):
            await store.append_command(first, seq=seq, user_id=1, side=record.side, text=record.text,
                                       dice=[asdict(d) for e in record.events for d in e.dice],
                                       events=[e.to_dict() for e in record.events],
                                       state=g.ruleset.state_to_dict(state) if is_keyframe(seq) else None)
        await store.set_status(first, "active")
    finally:
        await store.close()
    with sqlite3.connect(path) as db:          # the others: copies of the log and the keyframes
        for channel in range(2, n + 1):
            gid = db.execute("INSERT INTO games (guild_id, channel_id, ruleset, scenario_id, seed, status, created_by)"
                             " VALUES (1, ?, 'tacw', 'edgehill', ?, 'active', 1)", (channel, seed)).lastrowid
            db.execute("INSERT INTO commands (game_id, seq, user_id, side, text, dice, events, created_at)"
                       " SELECT ?, seq, user_id, side, text, dice, events, created_at FROM commands WHERE game_id = ?",
                       (gid, first))
            db.execute("INSERT INTO snapshots (game_id, seq, state) SELECT ?, seq, state FROM snapshots"
                       " WHERE game_id = ?", (gid, first))


def storage(path: str) -> None:
    """One late Edgehill's bytes: the database file, its command log, its keyframes."""
    import os
    with sqlite3.connect(path) as db:
        db.execute("VACUUM")
        log_bytes = db.execute("SELECT SUM(LENGTH(text) + LENGTH(dice) + LENGTH(events)) FROM commands").fetchone()[0]
        snap_bytes = db.execute("SELECT SUM(LENGTH(state)) FROM snapshots").fetchone()[0] or 0
        n_snaps = db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
    size = os.path.getsize(path)
    print(f"  storage of one game: database file {size / 1024:.0f} KiB; command log {log_bytes / 1024:.0f} KiB, "
          f"{n_snaps} keyframes {snap_bytes / 1024:.0f} KiB; (log + keyframes) / log = "
          f"{(log_bytes + snap_bytes) / log_bytes:.2f} (target <= 3), file / log = {size / log_bytes:.2f}")


async def timed(coro) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    await coro
    return time.perf_counter() - wall, time.process_time() - cpu


async def old_resume(service) -> None:
    """What resume_all did before issue 11: every game loaded and replayed from its seed, on the loop."""
    for row in await service.store.resumable_games():
        await service.load_row(row)
        await service.verify(row)


async def measure(n: int, seed: str, g: Game, states: list, replay: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/herald.db"
        await build(path, n, seed, g, states)
        if n == 1:
            storage(path)
        store = await Store.open(path)
        try:
            service = make_service(store)
            wall, cpu = await timed(service.resume_all())
            verdict = f" (target for 50: <= 5 s, {'ok' if wall <= 5 else 'OVER'})" if n == 50 else ""
            print(f"  {n:3d} game(s), from the keyframes (resume_all, before login): {wall:6.2f} s wall, "
                  f"{cpu:6.2f} s CPU{verdict}")
            wall, cpu = await timed(service.background_done())
            print(f"      then the background check of every snapshot (replays in a thread): {wall:6.1f} s wall, "
                  f"{cpu:6.1f} s CPU, the event loop free meanwhile")
            if replay:
                wall, cpu = await timed(old_resume(make_service(store)))
                print(f"      replayed from the seed on the event loop (before issue 11): {wall:6.1f} s wall, "
                      f"{cpu:6.1f} s CPU")
            else:
                print("      replayed from the seed on the event loop (before issue 11): not measured (--replay-up-to)")
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--replay-up-to", type=int, default=10 ** 6)
    args = parser.parse_args()
    wall = time.perf_counter()
    seed, g, states = demo_game()
    print(f"{STEM}: {len(states)} commands (turn {getattr(g.state, 'turn', '?')}), played in "
          f"{time.perf_counter() - wall:.1f} s; each game below holds that log and its keyframes")
    for n in args.games:
        asyncio.run(measure(n, seed, g, states, n <= args.replay_up_to))


if __name__ == "__main__":
    main()
