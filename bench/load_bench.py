"""Load bench (issue 13): one bot process, many live games, actions offered at a steady rate.

Drives the game service as the bot does for every action: `GameService.act` (load, rules,
commit) then the action image through the render pool (bot/render_pool.py), and measures each
action from its arrival to its PNG: the reply time a player waits for. Arrivals are open-loop
(an action arrives on time whether or not the earlier ones are done), spread over the games at
random; actions of one game queue on its lock, as on Discord.

    .venv/bin/python bench/load_bench.py [--games 50] [--rate 20] [--seconds 60]

Prints per ruleset the reply p50/p95/p99 against the targets (TACW 250 ms, Battle Cry 100 ms
at p95), the event loop's longest stall (target 50 ms: a ticker every 5 ms notes how late it
wakes), the memory of this process (target 300 MiB) and of the render workers, and the storage
of the games (database size against the command log's). Asserts nothing.

The games are half TACW (its five battles), half Battle Cry (five battles), each from a seeded
autoplay script (engine/*/autoplay.py) cached in bench/.cache/; each is played some way in
before the clock starts, so the states are mid-battle.

On PostgreSQL with several processes (issue 17; bench/load_bench_pg.py): the same games in a
PostgreSQL database started for the run (pgserver), split between `--processes` OS processes,
each its own GameService and render pool offered rate/processes actions a second; `--shared N`
games are played by every process at once (interaction ids, the per-game lock):

    .venv/bin/python bench/load_bench.py --store postgres --processes 2 --shared 4

Measured 2026-11-28 on the development machine (2 cores) WHILE a full test run took both cores,
so both rows are far over their targets from the render pool's queue alone (the action itself
stays small); compare them with each other, not with the README's earlier figures.
`--games 20 --seconds 15` (300 actions at 20/s):
    SQLite, 1 process:      TACW p50 7104 / p95 9921 / p99 10320 ms; Battle Cry 6926 / 9892 / 9981
                            the action alone p95 40 (TACW) / 25 ms; loop stall 90 ms; 113 MiB
    PostgreSQL, 2 processes: TACW p50 12727 / p95 14911 / p99 15248 ms; Battle Cry 6288 / 14594 / 15010
                            the action alone p95 222 (TACW) / 139 ms; loop stall 120 / 265 ms;
                            91 / 80 MiB; 57 shared lines answered as duplicates, none refused
Full (50 games, 60 s, 1200 actions), PostgreSQL, 2 processes, `--shared 4`: TACW p50 28839 / p95
33256 / p99 33548 ms, Battle Cry 5254 / 26760 / 31712 ms; the action alone p95 124 / 91 ms; loop
stall 149 / 308 ms; 181 / 115 MiB a process (render workers up to 361 MiB); 86 duplicates, none
refused; 3214 commands, 11.3 MiB database, log + snapshots 1.42 x the log.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.app import make_service, settle_memory  # noqa: E402
from bot.render_pool import render_png  # noqa: E402
from bot.store import Store  # noqa: E402
from engine.core.game import Game  # noqa: E402

CACHE = ROOT / "bench" / ".cache"
TACW = ("edgehill", "first-newbury", "marston-moor", "naseby", "second-newbury")
BATTLECRY = ("first-bull-run", "shiloh", "pea-ridge", "antietam", "picketts-charge")
PLAYED_BEFORE = {"tacw": 60, "battlecry": 24}     # commands applied before the clock starts
SCRIPT_LENGTH = {"tacw": 200, "battlecry": 400}
TARGET_P95 = {"tacw": 250.0, "battlecry": 100.0}
TARGET_STALL_MS = 50.0
TARGET_RSS_MIB = 300.0


def script(ruleset: str, scenario: str, seed: int) -> list[tuple[str, str]]:
    """The autoplayed game's accepted lines (side, line), cached by ruleset, scenario and seed."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{ruleset}--{scenario}--{seed}.json"
    if path.exists():
        return [tuple(x) for x in json.loads(path.read_text())]
    from importlib import import_module
    game = Game.new(ruleset, scenario, seed)
    lines = import_module(f"engine.{ruleset}.autoplay").play_game(game, max_commands=SCRIPT_LENGTH[ruleset])
    path.write_text(json.dumps(lines))
    return lines


def battlecry_scenarios() -> list[str]:
    from engine.core.game import get_ruleset
    known = [sid for sid, _ in get_ruleset("battlecry").scenarios()]
    chosen = [s for s in BATTLECRY if s in known]
    return chosen + [s for s in known if s not in chosen][: len(BATTLECRY) - len(chosen)]


class LiveGame:
    def __init__(self, channel: int, ruleset: str, scenario: str, seed: int, lines):
        self.channel, self.ruleset, self.scenario, self.seed = channel, ruleset, scenario, seed
        self.lines = list(lines)
        self.next = 0
        self.users = {}

    def take(self) -> tuple[int, str] | None:
        """The next line of the script, as (user, line); None once the script is used up."""
        if self.next >= len(self.lines):
            return None
        side, line = self.lines[self.next]
        self.next += 1
        return self.users[side], line


async def set_up(service, n_games: int) -> list[LiveGame]:
    bc = battlecry_scenarios()
    games, user = [], 1000
    for i in range(n_games):
        ruleset = "tacw" if i % 2 == 0 else "battlecry"
        names = TACW if ruleset == "tacw" else bc
        scenario = names[(i // 2) % len(names)]
        seed = 100 + i
        g = LiveGame(10_000 + i, ruleset, scenario, seed, script(ruleset, scenario, seed))
        sides = service.ruleset_of(ruleset).sides
        g.users = {s: user + k for k, s in enumerate(sides)}
        user += len(sides)
        await service.new_game(1, g.channel, g.users[sides[0]], ruleset, scenario, str(seed), side=sides[0])
        await service.join(g.channel, g.users[sides[1]], sides[1])
        await service.start(g.channel, g.users[sides[0]])
        for _ in range(min(PLAYED_BEFORE[ruleset], len(g.lines) - 10)):
            uid, line = g.take()
            await service.act(g.channel, uid, line)
        games.append(g)
    return games


def rss_mib(pid: int | str = "self") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    """Processes started by this one, and theirs (the forkserver and its render workers)."""
    parents: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


async def measure(service, store, games: list[LiveGame], rate: float, seconds: float, seed: int,
                  shared: frozenset[int] = frozenset(), in_order: bool = False) -> dict:
    """Offer `rate` actions a second for `seconds` to `games` (open loop) and measure each reply.
    Lines of a game in `shared` (played by another process too) carry an interaction id made
    of the game and the line's place in its script: whichever process commits it first applies
    it, the other gets the duplicate's answer. With `in_order` (or for a shared game) a game's
    lines reach `act` in script order, a player sending the next once the last is answered (on
    PostgreSQL the reads `act` makes before the game lock may finish out of order)."""
    loop = asyncio.get_running_loop()
    loop.slow_callback_duration = TARGET_STALL_MS / 1000
    stalls: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            t0 = loop.time()
            await asyncio.sleep(0.005)
            stalls.append((loop.time() - t0 - 0.005) * 1000)

    replies: dict[str, list[float]] = {"tacw": [], "battlecry": []}
    parts: dict[str, tuple[list[float], list[float]]] = {"tacw": ([], []), "battlecry": ([], [])}
    duplicates: list[float] = []
    timeline: list[tuple[float, float]] = []
    refused: list[str] = []
    pngs: list[int] = []
    rng = random.Random(seed)
    queue = {g.channel: asyncio.Lock() for g in games if in_order or g.channel in shared}

    async def one(g: LiveGame, uid: int, line: str, arrived: float, iid: str | None) -> None:
        try:
            if g.channel not in queue:
                result = await service.act(g.channel, uid, line)
            else:
                async with queue[g.channel]:
                    result = await service.act(g.channel, uid, line, interaction_id=iid)
        except Exception as exc:           # a refusal: the script and the game disagree
            refused.append(f"{g.ruleset}/{g.scenario}: {line}: {exc}")
            return
        if result.duplicate:               # the other process applied it first: nothing to draw
            duplicates.append((loop.time() - arrived) * 1000)
            return
        acted = loop.time()
        png = await render_png(result, store=store)
        pngs.append(len(png or b""))
        replies[g.ruleset].append((loop.time() - arrived) * 1000)
        timeline.append((arrived - start, (loop.time() - arrived) * 1000))
        parts[g.ruleset][0].append((acted - arrived) * 1000)
        parts[g.ruleset][1].append((loop.time() - acted) * 1000)

    import gc
    pauses: list[float] = []
    gc_start: list[float] = []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            gc_start[:] = [time.perf_counter()]
        elif gc_start:
            pauses.append((time.perf_counter() - gc_start[0]) * 1000)

    rss_start = rss_mib()
    gc.callbacks.append(on_gc)
    tick = loop.create_task(ticker())
    tasks = []
    n = int(rate * seconds)
    start = loop.time()
    cpu0 = time.process_time()
    for i in range(n):
        due = start + i / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        live = [g for g in games if g.next < len(g.lines)]
        if not live:
            break
        g = rng.choice(live)
        iid = f"bench-{g.channel}-{g.next}" if g.channel in shared else None
        uid, line = g.take()
        tasks.append(loop.create_task(one(g, uid, line, loop.time(), iid)))
    offered_for = loop.time() - start
    await asyncio.gather(*tasks)
    wall = loop.time() - start
    cpu = time.process_time() - cpu0
    stop.set()
    await tick
    gc.callbacks.remove(on_gc)
    return {"pid": os.getpid(), "offered": len(tasks), "offered_for": offered_for, "wall": wall, "cpu": cpu,
            "replies": replies, "parts": parts, "duplicates": duplicates, "refused": refused, "pngs": pngs,
            "stalls": stalls, "timeline": timeline, "pauses": pauses, "tracked": len(gc.get_objects()), "frozen": gc.get_freeze_count(),
            "rss_start": rss_start, "rss_end": rss_mib(),
            "workers": [rss_mib(pid) for pid in descendants(os.getpid())]}


def report(results: list[dict], rate: float) -> None:
    """Print the figures of one process's run, or of several processes' runs pooled (the reply
    times pooled; CPU, loop stalls and memory per process)."""
    many = len(results) > 1
    offered = sum(r["offered"] for r in results)
    offered_for = max(r["offered_for"] for r in results)
    wall = max(r["wall"] for r in results)
    if many:
        print(f"offered {offered} actions in {offered_for:.1f} s ({offered / offered_for:.1f}/s in all; "
              f"target rate {rate}/s); all answered after {wall:.1f} s; CPU per process: "
              + ", ".join(f"{r['cpu']:.1f} s ({r['cpu'] / r['wall']:.0%} of one core)" for r in results))
    else:
        r = results[0]
        print(f"offered {offered} actions in {offered_for:.1f} s ({offered / offered_for:.1f}/s; "
              f"target rate {rate}/s); all answered after {wall:.1f} s; "
              f"main process CPU {r['cpu']:.1f} s ({r['cpu'] / r['wall']:.0%} of one core)")
    for rid in ("tacw", "battlecry"):
        xs = [x for r in results for x in r["replies"][rid]]
        if len(xs) < 2:
            continue
        q = statistics.quantiles(xs, n=100)
        ok = "ok" if q[94] <= TARGET_P95[rid] else "OVER"
        print(f"  {rid:9s} {len(xs):5d} replies: p50 {q[49]:6.0f} ms  p95 {q[94]:6.0f} ms  p99 {q[98]:6.0f} ms"
              f"   (target p95 <= {TARGET_P95[rid]:.0f} ms: {ok})")
        a, b = (statistics.quantiles([x for r in results for x in r["parts"][rid][k]], n=100) for k in (0, 1))
        print(f"  {'':9s}   of which the action (lock, rules, commit) p50 {a[49]:.0f} / p95 {a[94]:.0f} ms, "
              f"the image (queue and drawing) p50 {b[49]:.0f} / p95 {b[94]:.0f} ms")
    dups = [x for r in results for x in r["duplicates"]]
    if dups:
        print(f"  shared games: {len(dups)} lines already applied by the other process (the duplicate's answer, "
              f"no image): p50 {statistics.median(dups):.0f} ms, max {max(dups):.0f} ms")
    for k, r in enumerate(results, 1):
        who = f"process {k} (pid {r['pid']}): " if many else ""
        stalls = r["stalls"]
        worst = max(stalls) if stalls else 0.0
        print(f"  {who}event loop: longest stall {worst:.0f} ms (target <= {TARGET_STALL_MS:.0f} ms: "
              f"{'ok' if worst <= TARGET_STALL_MS else 'OVER'}); p99 stall {statistics.quantiles(stalls, n=100)[98]:.1f} ms; "
              f"garbage collections {len(r['pauses'])}, longest {max(r['pauses'], default=0):.0f} ms; "
              f"{r['tracked']:,} objects tracked, {r['frozen']:,} frozen")
        print(f"  {who}memory: {'it' if many else 'this process'} {r['rss_start']:.0f} MiB before the run, "
              f"{r['rss_end']:.0f} MiB after (target <= {TARGET_RSS_MIB:.0f} MiB: "
              f"{'ok' if r['rss_end'] <= TARGET_RSS_MIB else 'OVER'}); "
              f"render processes: " + ", ".join(f"{x:.0f}" for x in r["workers"]) + " MiB")
    pngs = [x for r in results for x in r["pngs"]]
    if pngs:
        print(f"  action images: median {statistics.median(pngs) / 1024:.0f} KiB, largest {max(pngs) / 1024:.0f} KiB "
              f"(target <= 500 KiB)")
    spans: dict[int, list[float]] = {}
    for r in results:
        for at, ms in r["timeline"]:
            spans.setdefault(int(at // 5) * 5, []).append(ms)
    if spans:
        print("  replies by when the action was offered (s: p50 / max ms): " + "; ".join(
            f"{t}-{t + 5}: {statistics.median(v):.0f} / {max(v):.0f}" for t, v in sorted(spans.items())))
    refused = [x for r in results for x in r["refused"]]
    if refused:
        print(f"  {len(refused)} refused (script and game disagree), e.g. {refused[0]}")


async def cold_loads(store, games: list[LiveGame]) -> None:
    cold = make_service(store)       # nothing held in memory: each game from its keyframe and log
    loads = []
    for g in games:
        t = time.perf_counter()
        got = await cold.load(g.channel)
        loads.append((time.perf_counter() - t) * 1000)
        if loads[-1] > 20:
            print(f"  (a slow load: {g.ruleset}/{g.scenario} at #{got.seq}, {loads[-1]:.0f} ms)")
    print(f"  loading a game with nothing in memory (its newest keyframe + the commands after it): "
          f"median {statistics.median(loads):.1f} ms, max {max(loads):.1f} ms (target <= 20 ms: "
          f"{'ok' if max(loads) <= 20 else 'OVER'})")


async def warm_up(service, store, games: list[LiveGame]) -> float:
    """What the bot does when it starts (bot/client.py: setup_hook), before the clock: the
    render workers start, each drawing the live games' action views (bot/render_pool.py:
    warm_workers; the bot does not wait for them, its login takes about as long), then what is
    in memory is frozen (settle_memory). Returns the seconds the workers took."""
    from bot.render_pool import warm_workers
    t = time.perf_counter()
    loaded = [await service.load(g.channel) for g in games]
    for ready in await warm_workers(loaded, store=store):
        await asyncio.wrap_future(ready)
    settle_memory()
    return time.perf_counter() - t


def announce(games: list[LiveGame], took: float) -> None:
    print(f"{len(games)} games set up in {took:.1f} s "
          f"({sum(g.ruleset == 'tacw' for g in games)} TACW, {sum(g.ruleset == 'battlecry' for g in games)} Battle Cry), "
          f"{sum(g.next for g in games)} commands played in")


async def run(args) -> None:
    tmp = tempfile.mkdtemp(prefix="herald-load-")
    db = os.path.join(tmp, "herald.db")
    store = await Store.open(db)
    service = make_service(store)
    t = time.perf_counter()
    games = await set_up(service, args.games)
    announce(games, time.perf_counter() - t)
    from renders import tile_store
    where = tile_store.folder()
    on_disk = len(list(where.glob("*.tile"))) if where and where.exists() else 0
    print(f"terrain tiles on disk before the start: {on_disk} ({where or 'HERALD_TILE_CACHE=off'})")
    took = await warm_up(service, store, games)
    print(f"render workers started, each drawing the {len(games)} games' boards, in {took:.1f} s (as the bot starts)")
    report([await measure(service, store, games, args.rate, args.seconds, args.seed)], args.rate)
    await cold_loads(store, games)
    await store.close()
    with sqlite3.connect(db) as con:
        log_bytes = con.execute("SELECT SUM(LENGTH(text) + LENGTH(dice) + LENGTH(events) + 40)"
                                " FROM commands").fetchone()[0]
        snap_bytes = con.execute("SELECT SUM(LENGTH(state) + 16) FROM snapshots").fetchone()[0] or 0
    size = os.path.getsize(db)
    print(f"  storage: database {size / 2**20:.1f} MiB for {sum(g.next for g in games)} commands; "
          f"log {log_bytes / 2**20:.2f} MiB, snapshots {snap_bytes / 2**20:.2f} MiB; "
          f"log + snapshots = {(log_bytes + snap_bytes) / log_bytes:.2f} x the log (target <= 3)")
    from renders.pool import shutdown_shared
    shutdown_shared()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--rate", type=float, default=20.0, help="actions offered a second")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite",
                   help="postgres: a PostgreSQL server started for the run (bench/load_bench_pg.py)")
    p.add_argument("--processes", type=int, default=2,
                   help="with --store postgres: bot processes sharing the database and the rate")
    p.add_argument("--shared", type=int, default=0,
                   help="with --store postgres: games played by every process at once")
    p.add_argument("--show-stalls", action="store_true",
                   help="asyncio debug mode: log every callback that held the loop over 50 ms")
    args = p.parse_args()
    if args.show_stalls:
        import logging
        logging.basicConfig(level=logging.WARNING)
    if args.store == "postgres":
        if args.processes < 1 or not 0 <= args.shared < args.games:
            p.error("--processes must be at least 1 and --shared below --games")
        from load_bench_pg import run as run_pg     # bench/ is on the path: this script's folder
        asyncio.run(run_pg(args), debug=args.show_stalls)
    else:
        asyncio.run(run(args), debug=args.show_stalls)


if __name__ == "__main__":
    main()
