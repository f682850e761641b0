"""Italian Wars balance and speed: how the autoplayed battles end (issue 16).

Autoplays N seeds of each battle with engine/italianwars/autoplay.py (both sides the same plain
commander) and prints, per game: the seed, the result (an army broken: IW Punto di rottura
dell'esercito; or dark: IW-H 15, HERALD D46), the turn and hour reached, each army's command
points lost against its strength, the shots, melees, routs and rallies, the commands, the
refusals (always 0: every line is tried first) and the wall time with the milliseconds per
command; then the distribution of results per battle. Used to judge Herald's completion
(SUPPLEMENT.md) and the battles' set-ups.

Run: .venv/bin/python bench/iw_outcomes.py [--seeds 6] [--first 1] [--battle fornovo] [-j 2]
     (prints figures; asserts nothing)
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core.game import Game  # noqa: E402
from engine.italianwars.autoplay import play_game, refusals  # noqa: E402
from engine.italianwars.sequence.endturn import army_losses  # noqa: E402

BATTLES = ("fornovo", "ravenna")
COUNTED = ("shot", "melee", "rout", "pursuit", "rally", "evade", "camp_taken", "captain")


def outcome_kind(result: str, winner: str | None) -> str:
    r = (result or "").lower()
    if winner is None:
        return "draw"
    if "broken" in r:
        return f"{winner}: enemy army broken"
    if "holds the field" in r:
        return f"{winner}: holds the field at dark"
    return f"{winner} wins ({r[:30]})"


def play_one(args: tuple[str, int]) -> dict:
    battle, seed = args
    t0 = time.perf_counter()
    game = Game.new("italianwars", battle, seed)
    script = play_game(game, 3000)
    secs = time.perf_counter() - t0
    st = game.state
    counts = collections.Counter(e.kind for r in game.history for e in r.events)
    t1 = time.perf_counter()
    again = Game.new("italianwars", battle, seed)
    again.replay([(r.side, r.text) for r in game.history])
    replay = time.perf_counter() - t1
    return {"battle": battle, "seed": seed, "turn": st.turn, "clock": st.clock, "result": st.result,
            "winner": st.winner, "kind": outcome_kind(st.result, st.winner), "commands": len(script),
            "refused": len(refusals(game)), "secs": secs, "replay_ms": 1000 * replay / max(1, len(script)),
            "same": again.state.state_hash() == st.state_hash(),
            "losses": {s: army_losses(game.scenario, st, s) for s in sorted(st.armies)},
            "counts": {k: counts.get(k, 0) for k in COUNTED}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--battle", choices=BATTLES, action="append")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args()
    battles = a.battle or list(BATTLES)
    jobs = [(b, s) for b in battles for s in range(a.first, a.first + a.seeds)]
    with ProcessPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(play_one, jobs))
    for battle in battles:
        rows = [r for r in results if r["battle"] == battle]
        print(f"== {battle} ==")
        for r in rows:
            losses = "  ".join(f"{s} {v['lost']}/{v['strength']}{' BROKEN' if v['broken'] else ''}"
                               for s, v in r["losses"].items())
            counts = " ".join(f"{k} {v}" for k, v in r["counts"].items() if v)
            print(f"seed {r['seed']:>3}: turn {r['turn']:>2} hour {r['clock']:>2}  {r['kind']:<34} {losses}  "
                  f"| {counts} | {r['commands']} commands, {r['refused']} refused, {r['secs']:.0f} s played, "
                  f"replay {r['replay_ms']:.0f} ms/command{'' if r['same'] else ', REPLAY DIFFERS'}")
        kinds = collections.Counter(r["kind"] for r in rows)
        print("results: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))


if __name__ == "__main__":
    main()
