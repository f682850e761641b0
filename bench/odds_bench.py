"""/odds speed: the exact what-if of real actions from the demo battles (engine/core/odds.py).

For each verb below, the first few times a demo script gives it, the game is replayed to just
before that line and the line is asked as a what-if: the wall time, the die sequences enumerated,
the outcomes, and whether a horizon cut the question short (the ~2 s budget, BUDGET).

Run: .venv/bin/python bench/odds_bench.py   (prints figures; asserts nothing)
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from engine.core.errors import HeraldError  # noqa: E402
from engine.core.game import Game  # noqa: E402
from engine.core.odds import what_if  # noqa: E402

VERBS = {"battlecry": ("battle",), "tacw": ("fire", "attack", "change", "continue")}
PER_VERB = 4


def main() -> None:
    for path in sorted(DEMO_DIR.glob("*.txt")):
        ruleset_id, scenario_id = path.stem.split("--", 1)
        seed, lines = read_script(path)
        g = Game.new(ruleset_id, scenario_id, seed)
        asked: dict[str, list[tuple[float, int, int, bool]]] = {v: [] for v in VERBS[ruleset_id]}
        refused: dict[str, int] = {v: 0 for v in VERBS[ruleset_id]}
        for line in lines:
            side, text = split_side(line, g.ruleset.sides)
            verb = text.split()[0]
            if verb in asked and len(asked[verb]) < PER_VERB:
                t = time.perf_counter()
                try:
                    odds = what_if(g.ruleset, g.scenario, g.state, side, text.split(" dice=")[0])
                    asked[verb].append((time.perf_counter() - t, odds.leaves, len(odds.outcomes),
                                        odds.horizon is not None))
                except HeraldError:
                    refused[verb] += 1
            g.apply(side, text)
        for verb, runs in asked.items():
            if not runs:
                print(f"{path.stem} {verb}: not asked ({refused[verb]} refused)")
                continue
            times = [r[0] for r in runs]
            print(f"{path.stem} {verb}: {len(runs)} asked, median {statistics.median(times) * 1000:.0f} ms, "
                  f"max {max(times) * 1000:.0f} ms; sequences {[r[1] for r in runs]}, outcomes "
                  f"{[r[2] for r in runs]}, horizon cut {sum(r[3] for r in runs)}; refused {refused[verb]}")


if __name__ == "__main__":
    main()
