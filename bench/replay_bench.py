"""Replay GIF (issue 5, History; issue 13, speed): time and size of the animated replay of a whole
battle, drawn the way /game replay draws them (bot/history.py captions, renders/replay.py, its
boards in the render pool), against the target of 5 s a battle.

Battles: Edgehill (the bundled demo game, bot/demos/tacw--edgehill.txt), Naseby and Marston Moor
(played to the end by the engine's own autoplayer, engine/tacw/autoplay.py, seed 3: there is no
demo file of them) and First Bull Run (Battle Cry's demo).

Run: .venv/bin/python bench/replay_bench.py [--no-pool] [--turn]   (prints its figures; asserts nothing)

Wall time is what a player waits; it depends on what else the machine runs (the pool's workers
need free cores), so the bench also prints the CPU time of this process (the workers' is not in it).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from bot.history import Step, turn_of  # noqa: E402
from engine.core.game import Game  # noqa: E402
from renders.replay import MAX_BYTES, Frame, replay_gif  # noqa: E402

TARGET_S = 5.0
GAMES = ("tacw--edgehill", "tacw--naseby", "tacw--marston-moor", "battlecry--first-bull-run")
AUTOPLAY_SEED = 3


def lines_of(stem: str) -> tuple[object, list[tuple[str, str]]]:
    """The seed and the (side, line) commands of a battle: its demo script, else autoplayed."""
    path = DEMO_DIR / f"{stem}.txt"
    ruleset_id, scenario_id = stem.split("--", 1)
    if path.exists():
        seed, lines = read_script(path)
        g = Game.new(ruleset_id, scenario_id, 1)
        return (int(seed) if seed and seed.isdigit() else seed or 1), [split_side(x, g.ruleset.sides) for x in lines]
    import importlib
    g = Game.new(ruleset_id, scenario_id, AUTOPLAY_SEED)
    return AUTOPLAY_SEED, importlib.import_module(f"engine.{ruleset_id}.autoplay").play_game(g)


def steps_of(stem: str) -> tuple[Game, list[Step]]:
    """The battle played through the engine: the opening and the state after each command."""
    ruleset_id, scenario_id = stem.split("--", 1)
    seed, lines = lines_of(stem)
    g = Game.new(ruleset_id, scenario_id, seed)
    steps = [Step(0, None, g.state, turn_of(g.ruleset, g.state))]
    for side, text in lines:
        events = g.apply(side, text)
        steps.append(Step(len(steps), side, g.state, turn_of(g.ruleset, g.state),
                          tuple(e.narrative for e in events)))
    return g, steps


def workers_cpu() -> float:
    """CPU seconds used so far by the shared render pool's worker processes (Linux /proc)."""
    from renders.pool import shared_pool
    pool = shared_pool()._pool
    total = 0.0
    for pid in list(getattr(pool, "_processes", {}) or {}):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


def measure(label: str, g: Game, steps: list[Step], pool) -> float:
    frames = [Frame(s.state, s.caption(g.scenario.title)) for s in steps]
    reports = []
    wall, cpu, wcpu = time.perf_counter(), time.process_time(), workers_cpu()
    made = replay_gif(g.ruleset.id, g.scenario, frames, pool=pool,
                      progress=lambda done, total: reports.append(done))
    wall, cpu, wcpu = time.perf_counter() - wall, time.process_time() - cpu, workers_cpu() - wcpu
    verdict = "ok" if wall <= TARGET_S else "OVER"
    print(f"  {label}: {wall:5.1f} s wall (target {TARGET_S:.0f} s: {verdict}), CPU {cpu:.1f} s in this "
          f"process + {wcpu:.1f} s in the pool's workers (on 2 free cores: ~{cpu + wcpu / 2:.1f} s); "
          f"{made.actions - 1} actions -> {made.frames} frames, {made.width}x{made.height} px, "
          f"{made.size / 2**20:.2f} MiB ({made.size / MAX_BYTES:.0%} of the budget), {made.frame_ms} ms a "
          f"frame, stride {made.stride}, {made.attempts} encoding(s), {len(reports)} progress reports")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-pool", action="store_true", help="draw every board in this process")
    ap.add_argument("--turn", action="store_true", help="also the longest turn of each battle")
    args = ap.parse_args()
    pool = False if args.no_pool else None
    if pool is None:
        from renders.pool import shared_pool
        t = time.perf_counter()
        shared_pool().map(abs, list(range(8)))           # the workers started, as in a running bot
        print(f"render pool: {shared_pool().workers} workers started in {time.perf_counter() - t:.1f} s")
    for stem in GAMES:
        wall = time.perf_counter()
        g, steps = steps_of(stem)
        print(f"{stem}: {len(steps) - 1} commands replayed in {time.perf_counter() - wall:.1f} s; "
              f"turns {steps[0].turn} to {steps[-1].turn}, result: {getattr(g.state, 'result', '')}")
        measure("whole battle", g, steps, pool)
        if args.turn:
            busiest = max({s.turn for s in steps}, key=lambda t: sum(1 for s in steps if s.turn == t))
            turn = [s for s in steps if s.turn == busiest]
            nxt = next((s for s in steps if s.turn is not None and s.turn > busiest), None)
            measure(f"turn {busiest} (the longest)", g, turn + ([nxt] if nxt else []), pool)


if __name__ == "__main__":
    main()
