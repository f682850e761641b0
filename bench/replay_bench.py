"""Replay GIF (issue 5, History): time and size of the animated replay of a whole battle, for the
bundled demo games (a whole Edgehill, TACW, and a whole First Bull Run, Battle Cry), drawn the way
/game replay draws them (bot/history.py captions, renders/replay.py).

Run: .venv/bin/python bench/replay_bench.py   (prints its figures; asserts nothing)

Wall time depends on what else the machine runs; CPU time (this process) is the steadier figure.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from bot.history import Step, turn_of  # noqa: E402
from engine.core.game import Game  # noqa: E402
from renders.replay import MAX_BYTES, Frame, replay_gif  # noqa: E402

GAMES = ("tacw--edgehill", "battlecry--first-bull-run")


def steps_of(stem: str) -> tuple[Game, list[Step]]:
    """The demo game played through the engine: the opening and the state after each command."""
    ruleset_id, scenario_id = stem.split("--", 1)
    seed, lines = read_script(DEMO_DIR / f"{stem}.txt")
    g = Game.new(ruleset_id, scenario_id, int(seed) if seed and seed.isdigit() else seed or 1)
    steps = [Step(0, None, g.state, turn_of(g.ruleset, g.state))]
    for line in lines:
        side, text = split_side(line, g.ruleset.sides)
        events = g.apply(side, text)
        steps.append(Step(len(steps), side, g.state, turn_of(g.ruleset, g.state),
                          tuple(e.narrative for e in events)))
    return g, steps


def measure(label: str, g: Game, steps: list[Step]) -> None:
    frames = [Frame(s.state, s.caption(g.scenario.title)) for s in steps]
    wall, cpu = time.perf_counter(), time.process_time()
    made = replay_gif(g.ruleset.id, g.scenario, frames)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label}: {made.actions - 1} actions -> {made.frames} frames, {made.width}x{made.height} px, "
          f"{made.size / 2**20:.2f} MiB ({made.size / MAX_BYTES:.0%} of the budget), "
          f"{made.frame_ms} ms a frame, stride {made.stride}, {made.attempts} encoding(s)")
    print(f"    {wall:.1f} s wall, {cpu:.1f} s CPU ({cpu / made.actions * 1000:.0f} ms CPU a board)")


def main() -> None:
    for stem in GAMES:
        wall = time.perf_counter()
        g, steps = steps_of(stem)
        print(f"{stem}: {len(steps) - 1} commands replayed in {time.perf_counter() - wall:.1f} s; "
              f"turns {steps[0].turn} to {steps[-1].turn}, result: {getattr(g.state, 'result', '')}")
        measure("whole battle", g, steps)
        busiest = max({s.turn for s in steps}, key=lambda t: sum(1 for s in steps if s.turn == t))
        turn = [s for s in steps if s.turn == busiest]
        nxt = next((s for s in steps if s.turn is not None and s.turn > busiest), None)
        measure(f"turn {busiest} (the longest)", g, turn + ([nxt] if nxt else []))


if __name__ == "__main__":
    main()
