"""Engine speed: commands per second, and the time to replay the demo game from its script.

Run: .venv/bin/python bench/engine_bench.py   (prints figures; asserts nothing)
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from engine.core.game import Game  # noqa: E402


def replay(path: Path) -> tuple[Game, float]:
    ruleset_id, scenario_id = path.stem.split("--", 1)
    seed, lines = read_script(path)
    t = time.perf_counter()
    g = Game.new(ruleset_id, scenario_id, seed)
    for line in lines:
        side, text = split_side(line, g.ruleset.sides)
        g.apply(side, text)
    return g, time.perf_counter() - t


def main() -> None:
    for path in sorted(DEMO_DIR.glob("*.txt")):
        runs = [replay(path) for _ in range(5)]
        g = runs[0][0]
        times = [t for _, t in runs]
        n = len(g.history)
        med = statistics.median(times)
        print(f"{path.stem}: {n} commands, replay median {med * 1000:.1f} ms "
              f"({n / med:.0f} commands/s), min {min(times) * 1000:.1f} ms")
        snap = g.state.to_dict()
        t = time.perf_counter()
        for _ in range(200):
            g.ruleset.state_from_dict(snap).state_hash()
        print(f"  state load+hash: {(time.perf_counter() - t) / 200 * 1000:.2f} ms")


if __name__ == "__main__":
    main()
