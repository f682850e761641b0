"""Lion of the North balance: how the autoplayed battles end (issue 15).

Autoplays N seeds of each battle with engine/lion/autoplay.py (both sides the same plain
commander, no concession) and prints, per game: the seed, the result [14], the turn reached, the
weighted losses of each side [11 B-C] against its demoralisation and victory thresholds, the
armies demoralised [11 A], the melees fought [8], the shots [7], the commands and the wall time;
then the distribution of results per battle. Used to judge HERALD D24/D25 and D101-D109.

Run: .venv/bin/python bench/lion_outcomes.py [--seeds 10] [--first 1] [--battle breitenfeld]
     [-j 4]   (prints figures; asserts nothing)
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
from engine.lion import checks  # noqa: E402
from engine.lion.autoplay import play_game, refusals  # noqa: E402

BATTLES = ("breitenfeld", "lutzen")


def outcome_kind(result: str, winner: str | None) -> str:
    """A short label of the result [14]: decisive / partial / Pyrrhic victory, or a draw."""
    r = (result or "").lower()
    if winner is None:
        return "draw"
    for k in ("decisive", "pyrrhic", "partial"):
        if k in r:
            return f"{winner} {k}"
    return f"{winner} wins"


def play_one(args: tuple[str, int]) -> dict:
    battle, seed = args
    t0 = time.perf_counter()
    game = Game.new("lion", battle, seed)
    script = play_game(game)
    st = game.state
    out = {"battle": battle, "seed": seed, "turn": st.turn, "over": st.phase == "over",
           "result": st.result or "", "winner": st.winner, "commands": len(script),
           "refused": len(refusals(game)), "secs": time.perf_counter() - t0, "sides": {}}
    melees = shots = 0
    for r in game.history:
        for e in r.events:
            melees += e.kind == "melee"
            shots += e.kind == "shoot"
    out["melees"], out["shots"] = melees, shots
    for side in sorted(st.armies):
        w = checks.weighted_losses(game.scenario, st, side)
        out["sides"][side] = {"lost": w["victory"], "total": w["total"],
                              "demoralised": bool(st.armies[side].demoralised)}
    out["kind"] = outcome_kind(out["result"], st.winner)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
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
            sides = "  ".join(f"{s} lost {v['lost']}/{v['total']}{' DEMORALISED' if v['demoralised'] else ''}"
                              for s, v in r["sides"].items())
            print(f"seed {r['seed']:3d}  turn {r['turn']:2d}  {r['kind']:<20} {sides}  melees {r['melees']:3d}"
                  f"  shots {r['shots']:3d}  cmds {r['commands']:4d}  refused {r['refused']}  {r['secs']:.0f}s"
                  f"{'' if r['over'] else '  NOT OVER'}")
            print(f"          {r['result']}")
        dist = collections.Counter(r["kind"] for r in rows)
        demo = sum(any(v["demoralised"] for v in r["sides"].values()) for r in rows)
        print(f"-- {battle}: " + ", ".join(f"{k} {n}" for k, n in sorted(dist.items()))
              + f"; a demoralised army in {demo} of {len(rows)}; mean turn "
              f"{sum(r['turn'] for r in rows) / max(1, len(rows)):.1f}, mean melees "
              f"{sum(r['melees'] for r in rows) / max(1, len(rows)):.0f}, mean commands "
              f"{sum(r['commands'] for r in rows) / max(1, len(rows)):.0f}")
        print()


if __name__ == "__main__":
    main()
