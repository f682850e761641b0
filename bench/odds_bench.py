"""/odds speed: the exact what-if of every askable action of the demo battles (engine/core/odds.py).

Each demo script (bot/demos/*.txt) is replayed; before each line whose verb its ruleset lets a
player ask about (the odds module's ASKABLE: TACW fire, attack, resolve, continue, stop, move...,
Battle Cry battle, rally...), that line is asked as a what-if, exactly as `/odds` asks it (the
default budget). Where a wing has just activated in TACW, an Order Change to each other order is
asked too (`change <order>`: the demos never give one). Each answer is timed in the thread's CPU
time (what /odds's own budget counts: other work on a shared machine does not move it; the wall
clock is printed beside it) and called exact when no horizon cut it short. A refusal by the rules
(an illegal action, e.g. `leader <name> move`) is counted apart; a refusal by /odds itself (too
many dice) is not exact.

Printed per verb and overall: how many were asked, the median and maximum time beside the
targets of issue 13 (median at most 50 ms, maximum at most 1 s), and how many answers are exact
(target: all); then the slowest questions.

With --check, each answer is also compared with the plain enumeration (every die sequence, no
position merged, no face skipped: `what_if(..., merge=False)`), where that finishes within
CHECK_LIMIT seconds: the fractions must be equal.

With --as-bot, each question is asked as /odds asks it (bot/cogs/odds.py): a first answer within
QUICK_BUDGET (cut at a horizon when the tree is larger), then, for a cut one, the whole tree up to
EXACT_LIMIT, else the deepest horizon finished by then (`deepen`), whose time and exactness are
printed too, and for those still cut the dice they reach and the chance left beyond them: the
reply's first answer is what the targets time, the edited one what "exact" counts.

Run: .venv/bin/python bench/odds_bench.py [--per-verb N] [--slowest N] [--check] [--as-bot]
     [--script FILE] [--line N ...]
(prints figures; asserts nothing)
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from engine.core.errors import HeraldError  # noqa: E402
from engine.core.game import Game  # noqa: E402
from engine.core.odds import (EXACT_LIMIT, QUICK_BUDGET, QUICK_FALLBACK, TooManyOutcomes,  # noqa: E402
                              rules_for, what_if)

MEDIAN_TARGET = 0.050       # seconds (issue 13)
MAX_TARGET = 1.0
CHECK_LIMIT = 15.0
ORDERS = ("charge", "make_ready", "receive_charge", "rally")


class Asked:
    def __init__(self, where: str, side: str, line: str):
        self.where, self.side, self.line = where, side, line
        self.seconds = 0.0          # CPU time of the thread (what /odds's own budget counts)
        self.wall = 0.0             # wall clock (a busy machine adds to it)
        self.exact = False
        self.outcomes = 0
        self.runs = 0
        self.failed = ""            # /odds gave up (too many dice)
        self.checked: bool | None = None    # --check: equal to the plain enumeration (None: not checked)
        self.then: float | None = None      # --as-bot: CPU seconds of the whole tree after a cut answer
        self.exact_then = False             # ... and whether it finished within EXACT_LIMIT
        self.deepest: tuple | None = None   # ... else (the dice it reached, the chance left beyond)


def ask(g: Game, where: str, side: str, line: str, check: bool = False, as_bot: bool = False) -> Asked | None:
    """One what-if, timed; None when the rules refuse the action itself (not askable there)."""
    a = Asked(where, side, line)
    quick = {"budget": QUICK_BUDGET, "fallback": QUICK_FALLBACK} if as_bot else {}
    t, w = time.thread_time(), time.perf_counter()
    try:
        odds = what_if(g.ruleset, g.scenario, g.state, side, line, **quick)
    except TooManyOutcomes as exc:
        a.seconds, a.wall, a.failed = time.thread_time() - t, time.perf_counter() - w, str(exc)
        return a
    except HeraldError:
        return None
    a.seconds, a.wall = time.thread_time() - t, time.perf_counter() - w
    a.exact, a.outcomes, a.runs = odds.exact, len(odds.outcomes), odds.leaves
    a.exact_then = a.exact
    if as_bot and not a.exact:            # the reply is then edited with the whole tree
        t = time.thread_time()
        try:
            odds = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None, time_limit=EXACT_LIMIT,
                           deepen=True)
            a.exact_then = odds.exact
            if not odds.exact:
                a.deepest = (odds.floor, odds.unresolved)
        except TooManyOutcomes:
            pass
        a.then = time.thread_time() - t
    if check and a.exact:
        try:
            plain = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None, merge=False,
                            time_limit=CHECK_LIMIT)
        except TooManyOutcomes:
            return a
        fractions = lambda o: {x.label: x.probability for x in o.outcomes}  # noqa: E731
        a.checked = fractions(odds) == fractions(plain)
    return a


def questions(path: Path, per_verb: int | None, check: bool = False, only: set[int] | None = None,
              as_bot: bool = False):
    """Replay one demo, asking before each askable line (only those numbered in `only`, when
    given); yields (verb, Asked or None)."""
    ruleset_id, scenario_id = path.stem.split("--", 1)
    seed, lines = read_script(path)
    g = Game.new(ruleset_id, scenario_id, seed)
    askable = getattr(rules_for(g.ruleset), "ASKABLE", {})
    seen: dict[str, int] = {}
    for n, raw in enumerate(lines, 1):
        side, command = split_side(raw, g.ruleset.sides)
        text = command.split(" dice=")[0]
        verb = text.split()[0]
        if verb in askable and (per_verb is None or seen.get(verb, 0) < per_verb) and (not only or n in only):
            seen[verb] = seen.get(verb, 0) + 1
            yield verb, ask(g, f"{path.stem}:{n}", side, text, check, as_bot)
        g.apply(side, command)
        if ruleset_id == "tacw" and verb == "activate" and "change" in askable and not only \
                and (per_verb is None or seen.get("change", 0) < per_verb):
            wing = g.state.wings[g.state.activation.wing] if g.state.activation else None
            for order in ORDERS:
                if wing is not None and order != wing.order:
                    seen["change"] = seen.get("change", 0) + 1
                    yield "change", ask(g, f"{path.stem}:{n}+", side, f"change {order}", check, as_bot)


def figures(name: str, asked: list[Asked], refused: int) -> str:
    if not asked:
        return f"{name}: not asked ({refused} refused by the rules)"
    times = [a.seconds for a in asked]
    med, top = statistics.median(times), max(times)
    wall = [a.wall for a in asked]
    exact = sum(a.exact for a in asked)
    ok = lambda good: "ok" if good else "MISSED"  # noqa: E731
    return (f"{name}: {len(asked)} asked; median {med * 1000:.0f} ms (target {MEDIAN_TARGET * 1000:.0f}, "
            f"{ok(med <= MEDIAN_TARGET)}); max {top * 1000:.0f} ms (target {MAX_TARGET * 1000:.0f}, "
            f"{ok(top <= MAX_TARGET)}); exact {exact}/{len(asked)} (target all, {ok(exact == len(asked))}); "
            f"wall median {statistics.median(wall) * 1000:.0f} ms, max {max(wall) * 1000:.0f} ms; "
            f"outcomes up to {max(a.outcomes for a in asked)}; refused by the rules {refused}"
            + _then(asked))


def _then(asked: list[Asked]) -> str:
    """--as-bot: the exact answers that replaced cut ones."""
    later = [a.then for a in asked if a.then is not None]
    if not later:
        return ""
    deep = [a.deepest for a in asked if a.deepest is not None]
    still = (f"; the {len(deep)} still cut followed each sequence of dice down to 1 in "
             f"{round(1 / max(f for f, _ in deep)):,}-{round(1 / min(f for f, _ in deep)):,}, at most "
             f"{max(float(u) for _, u in deep):.4%} of the chances left beyond") if deep else ""
    return (f"; then exact: {sum(a.exact_then for a in asked)}/{len(asked)} (the {len(later)} cut at "
            f"first worked out in median {statistics.median(later):.1f} s, max {max(later):.1f} s of CPU{still})")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-verb", type=int, default=None, help="ask at most N questions of each verb per demo")
    ap.add_argument("--slowest", type=int, default=8, help="list the N slowest questions")
    ap.add_argument("--check", action="store_true", help="compare each answer with the plain enumeration")
    ap.add_argument("--script", type=Path, action="append", default=[],
                    help="a script (named <ruleset>--<scenario>.txt, as the demos) instead of the demos")
    ap.add_argument("--line", type=int, action="append", default=[],
                    help="ask only before the script line numbered N (repeatable; e.g. Edgehill's slow "
                         "close combat steps: --script bot/demos/tacw--edgehill.txt --line 199 ...)")
    ap.add_argument("--as-bot", action="store_true",
                    help="ask as /odds does: a first answer within QUICK_BUDGET, then the whole tree of a cut one")
    args = ap.parse_args(argv)
    everything: list[Asked] = []
    for path in args.script or sorted(DEMO_DIR.glob("*.txt")):
        by_verb: dict[str, list[Asked]] = {}
        refused: dict[str, int] = {}
        for verb, a in questions(path, args.per_verb, args.check, set(args.line), args.as_bot):
            if a is None:
                refused[verb] = refused.get(verb, 0) + 1
            else:
                by_verb.setdefault(verb, []).append(a)
        for verb in sorted(set(by_verb) | set(refused)):
            print(figures(f"{path.stem} {verb}", by_verb.get(verb, []), refused.get(verb, 0)), flush=True)
        everything += [a for v in by_verb.values() for a in v]
    print(figures("ALL", everything, 0).replace("; refused by the rules 0", ""))
    if args.as_bot:
        print(f"  (as /odds asks: the first answer within {QUICK_BUDGET:g} s of budget and {QUICK_FALLBACK:g} s "
              f"for a cut one; then the whole tree of a cut one, up to {EXACT_LIMIT:.0f} s, else the deepest "
              f"horizon finished by then, edited in)")
    if args.check:
        checked = [a for a in everything if a.checked is not None]
        wrong = [a for a in checked if not a.checked]
        print(f"checked against the plain enumeration: {len(checked)}/{len(everything)} "
              f"(the rest too long to enumerate plainly in {CHECK_LIMIT:.0f} s); different: {len(wrong)}")
        for a in wrong:
            print(f"  DIFFERENT: {a.where} {a.side}: {a.line}")
    for a in sorted(everything, key=lambda a: -a.seconds)[:args.slowest]:
        state = "exact" if a.exact else ("GAVE UP: " + a.failed[:60] if a.failed else "horizon cut")
        if a.then is not None:
            state += ("; then exact" if a.exact_then else
                      f"; then down to 1 in {round(1 / a.deepest[0]):,}, {float(a.deepest[1]):.4%} beyond"
                      if a.deepest else "; then gave up")
            state += f" in {a.then:.0f} s"
        print(f"  {a.seconds * 1000:7.0f} ms (wall {a.wall * 1000:.0f})  {a.where} {a.side}: {a.line}  ({a.runs} adjudications, "
              f"{a.outcomes} outcomes, {state})")


if __name__ == "__main__":
    main()
