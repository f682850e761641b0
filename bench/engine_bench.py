"""Engine speed (issue 13): the demo games replayed from their scripts as the service replays a
stored log (in place: `engine.core.game.replay_in_place`), commands per second, the same played
one command at a time (a copy of the state each, as live play does), and
the time to load any of their states the way the service does (the newest keyframe snapshot,
decoded, plus the commands after it replayed: bot/service.py `_rebuild`).

Run: .venv/bin/python bench/engine_bench.py [--runs 5]   (prints figures; asserts nothing)

Targets: Edgehill's whole replay (~450 commands) in at most 0.2 s; Battle Cry at 10,000
commands a second or more; loading any game in at most 20 ms. Wall times are the best of the
runs; the replay's verdict reads its CPU time (this single-threaded process's own seconds:
what the replay takes on an idle core), since other work on the machine stretches the wall.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from bot.store_base import SNAPSHOT_EVERY, decode_state, encode_state  # noqa: E402
from engine.core.commands import parse  # noqa: E402
from engine.core.game import Game, replay_in_place  # noqa: E402

REPLAY_TARGET_S = {"tacw--edgehill": 0.2}
RATE_TARGET = {"battlecry": 10_000}
LOAD_TARGET_MS = 20.0


def replay(path: Path) -> tuple[Game, float, float]:
    """The script replayed as the service replays a stored log (`replay_in_place`, from the
    first state), and the wall and CPU seconds it took."""
    ruleset_id, scenario_id = path.stem.split("--", 1)
    seed, lines = read_script(path)
    wall, cpu = time.perf_counter(), time.process_time()
    g = Game.new(ruleset_id, scenario_id, seed)
    g.replay([split_side(line, g.ruleset.sides) for line in lines])
    return g, time.perf_counter() - wall, time.process_time() - cpu


def live(path: Path) -> tuple[float, int]:
    """The script applied one command at a time as players give them (`Game.apply`: a copy of
    the state a command, every state kept): the best of 3, in seconds."""
    ruleset_id, scenario_id = path.stem.split("--", 1)
    seed, lines = read_script(path)
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        g = Game.new(ruleset_id, scenario_id, seed)
        for line in lines:
            side, text = split_side(line, g.ruleset.sides)
            g.apply(side, text)
        best = min(best, time.perf_counter() - t)
    return best, len(lines)


def load_times(path: Path) -> list[float]:
    """For every command of the game: ms to rebuild the state after it from the newest keyframe
    at or before it (decode the compressed JSON, state_from_dict, replay the rest)."""
    ruleset_id, scenario_id = path.stem.split("--", 1)
    seed, lines = read_script(path)
    g = Game.new(ruleset_id, scenario_id, seed)
    rs, sc = g.ruleset, g.scenario
    keyframes: dict[int, bytes] = {}
    cmds: list[tuple[str, str]] = []
    for seq, line in enumerate(lines, 1):
        side, text = split_side(line, rs.sides)
        g.apply(side, text)
        cmds.append((side, text))
        if seq % SNAPSHOT_EVERY == 0:
            keyframes[seq] = encode_state(rs.state_to_dict(g.state))
    out = []
    for seq in range(1, len(lines) + 1):
        base = seq - seq % SNAPSHOT_EVERY
        t = time.perf_counter()
        state = rs.state_from_dict(decode_state(keyframes[base])) if base else Game.new(
            ruleset_id, scenario_id, seed).state
        state, _ = replay_in_place(rs, sc, state, [(side, parse(text)) for side, text in cmds[base:seq]])
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    for path in sorted(DEMO_DIR.glob("*.txt")):
        runs = [replay(path) for _ in range(args.runs)]
        g = runs[0][0]
        n = len(g.history)
        best = min(w for _, w, _ in runs)
        cpu = min(c for _, _, c in runs)
        line = (f"{path.stem}: {n} commands replayed in {cpu * 1000:.0f} ms CPU (wall {best * 1000:.0f} ms, "
                f"best of {args.runs}), {n / cpu:,.0f} commands/s")
        if path.stem in REPLAY_TARGET_S:
            target = REPLAY_TARGET_S[path.stem]
            line += f"  [target <= {target * 1000:.0f} ms: {'ok' if cpu <= target else 'OVER'}]"
        rid = g.ruleset.id
        if rid in RATE_TARGET:
            line += f"  [target >= {RATE_TARGET[rid]:,} commands/s: {'ok' if n / cpu >= RATE_TARGET[rid] else 'OVER'}]"
        print(line)
        t, n_live = live(path)
        print(f"  applied one by one as played (a copy of the state a command): {t * 1000:.0f} ms, "
              f"{n_live / t:,.0f} commands/s")
        loads = load_times(path)
        print(f"  loading any of its {len(loads)} states (keyframe every {SNAPSHOT_EVERY}): median "
              f"{statistics.median(loads):.1f} ms, max {max(loads):.1f} ms  "
              f"[target <= {LOAD_TARGET_MS:.0f} ms: {'ok' if max(loads) <= LOAD_TARGET_MS else 'OVER'}]")
        st = g.state
        t = time.perf_counter()
        for _ in range(200):
            st.copy()
        print(f"  state copy: {(time.perf_counter() - t) / 200 * 1000:.3f} ms")


if __name__ == "__main__":
    main()
