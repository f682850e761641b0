"""The load bench (bench/load_bench.py) on PostgreSQL with several bot processes (issue 17).

    .venv/bin/python bench/load_bench.py --store postgres [--processes 2] [--shared 4] \
        [--games 50] [--rate 20] [--seconds 60]

Starts a PostgreSQL server with the `pgserver` package (in the test extras) in a fresh temporary
folder, its settings left at PostgreSQL's defaults (every commit flushed to disk), stopped and
deleted at the end; prepares the same games as the SQLite run in its database; then runs the
load in `--processes` OS processes (this file run as a child: each its own GameService and
render pool on the same URL), the games split between them and each offered rate/processes
actions a second, so the total rate is the SQLite run's. The last `--shared` games are played by
every process at once, as when two bots serve one channel: each walks the game's whole script,
line i with the interaction id ``bench-<channel>-<i>``, so the per-game advisory lock queues them
and whichever commits a line first applies it, the other gets the duplicate's answer (counted
apart: no image is drawn for it). Each child sends its reply times back as JSON; the parent prints
the same per-ruleset p50/p95/p99 lines over all of them, then the event loop's stalls and the
memory of each process, the cold loads and the storage.

Measured on the development machine (2 cores), see the module docstring of bench/load_bench.py.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load_bench as lb  # noqa: E402
from bot.app import make_service  # noqa: E402
from bot.stores import open_store  # noqa: E402


def plan_of(g: lb.LiveGame) -> dict:
    return {"channel": g.channel, "ruleset": g.ruleset, "scenario": g.scenario, "seed": g.seed,
            "next": g.next, "users": g.users}


def game_of(p: dict) -> lb.LiveGame:
    g = lb.LiveGame(p["channel"], p["ruleset"], p["scenario"], p["seed"],
                    lb.script(p["ruleset"], p["scenario"], p["seed"]))
    g.next, g.users = p["next"], p["users"]
    return g


async def child(url: str, plan_path: str) -> None:
    """One bot process: its games' service on `url`, the load offered once the parent says go."""
    plan = json.loads(Path(plan_path).read_text())
    games = [game_of(p) for p in plan["games"]]
    store = await open_store(url)
    try:
        service = make_service(store)
        await lb.warm_up(service, store, games)
        print("READY", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        result = await lb.measure(service, store, games, plan["rate"], plan["seconds"], plan["seed"],
                                  frozenset(plan["shared"]), in_order=True)
        print("RESULT " + json.dumps(result), flush=True)
    finally:
        await store.close()
        from renders.pool import shutdown_shared
        shutdown_shared()


async def run(args) -> None:
    import pgserver
    folder = tempfile.mkdtemp(prefix="herald-pg-")    # not 0700 below root: pgserver's user enters it
    server = pgserver.get_server(folder, cleanup_mode="delete")
    procs: list[subprocess.Popen] = []
    plans = tempfile.mkdtemp(prefix="herald-load-plans-")
    try:
        url = server.get_uri()
        store = await open_store(url)
        service = make_service(store)
        t = time.perf_counter()
        games = await lb.set_up(service, args.games)
        lb.announce(games, time.perf_counter() - t)
        n = args.processes
        shared = games[len(games) - args.shared:] if args.shared else []
        own = games[: len(games) - len(shared)]
        print(f"PostgreSQL {server.psql('SHOW server_version;').split()[2]}, {n} processes: "
              f"{len(own)} games split between them, {len(shared)} played by all of them; "
              f"each offered {args.rate / n:g} actions/s")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        for k in range(n):
            mine = [g for i, g in enumerate(own) if i % n == k] + shared
            plan = {"games": [plan_of(g) for g in mine], "shared": [g.channel for g in shared],
                    "rate": args.rate / n, "seconds": args.seconds, "seed": args.seed + k}
            path = Path(plans) / f"plan-{k}.json"
            path.write_text(json.dumps(plan))
            procs.append(subprocess.Popen([sys.executable, __file__, url, str(path)], cwd=ROOT, env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for p in procs:
            line = p.stdout.readline()
            if line.strip() != "READY":
                raise SystemExit(f"a bench process did not start (it said {line!r})")
        for p in procs:                  # go, as close together as the pipes allow
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            out, _ = p.communicate()
            got = [x for x in out.splitlines() if x.startswith("RESULT ")]
            if p.returncode or not got:
                raise SystemExit(f"a bench process failed (exit {p.returncode})")
            results.append(json.loads(got[0][len("RESULT "):]))
        lb.report(results, args.rate)
        # the games as they are now, for the cold loads and the storage
        await lb.cold_loads(store, games)
        rows = await store._rows(
            "SELECT (SELECT SUM(LENGTH(text) + LENGTH(dice) + LENGTH(events) + 40) FROM commands),"
            " (SELECT COALESCE(SUM(LENGTH(state) + 16), 0) FROM snapshots),"
            " (SELECT COUNT(*) FROM commands), pg_database_size(current_database())")
        log_bytes, snap_bytes, commands, size = (int(x) for x in tuple(rows[0]))
        print(f"  storage: database {size / 2**20:.1f} MiB for {commands} commands; "
              f"log {log_bytes / 2**20:.2f} MiB, snapshots {snap_bytes / 2**20:.2f} MiB; "
              f"log + snapshots = {(log_bytes + snap_bytes) / log_bytes:.2f} x the log (target <= 3)")
        await store.close()
        from renders.pool import shutdown_shared
        shutdown_shared()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        server.cleanup()
        shutil.rmtree(plans, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(child(sys.argv[1], sys.argv[2]))
