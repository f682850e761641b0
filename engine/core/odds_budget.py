"""How much of a what-if's tree `/odds` enumerates (engine/core/odds.py tells the method): the
whole tree within a budget, else each sequence of dice followed down to lower and lower floors of
chance, else a horizon chosen by Knuth's estimator. The methods of the enumeration (`_Runner`,
which `Budget` is a part of) that choose the cut; the enumeration itself is `_Runner.enumerate`.

Deepening (issue 13, HERALD decision). /odds's long answer, after a first one cut short,
tries the whole tree for DEEPEN_AFTER of its EXACT_LIMIT; when that does not finish, it follows
each sequence of dice until its chance falls below a floor (1 in 100, then a quarter of that
each time: `Odds.floor`), keeping every position worked out whole for the next try, and gives
the last floor finished instead of no answer: its fractions exact, the chance that more dice
follow stated (`Odds.unresolved`). Why not the whole tree: a JdG cavalry charge's pursuits go on
while they win ([9.5]: unlimited, each rolling the table and a check for every unit of the
stack), so Marengo's largest charge has 4,679 distinct outcomes (boards) and 71,866
adjudications even merged, about 5 minutes of work; no merging of equal positions brings that
under a second (keying only the units within 2 hexes of the charger, which is not even exact,
still took over a minute). The floor, rather than a deeper horizon, because the rare
sequences are the long ones: Marengo's line 353 pursuit left 0.5% of its chances beyond the
floor after 64 s where deeper horizons left 1.8% after 99 s.
"""
from __future__ import annotations

import random
import time
from typing import Callable

from .odds_answer import Odds
from .odds_walk import TooManyOutcomes, _Walk

FALLBACK = 1.0                # seconds the enumeration cut at a horizon aims at
PROBES = 12                   # random descents that estimate the tree before cutting it
DEEPEN_AFTER = 0.5             # the share of an exact answer's time the whole tree is tried;
DEEPEN_FLOOR = 0.01            # then the chance below which a sequence of dice is cut (`deepen`)
DEEPEN_DIVIDE = 4              # ... divided by this for each next try


class _TooBig(Exception):
    """The quick enumeration of a small tree found a larger one."""


class Budget:
    """The part of `_Runner` (engine/core/odds.py) that chooses how much of the tree to enumerate:
    it calls the runner's `enumerate`, `leaf`, `cmd`, `mod`, `resume` and `deepest`."""

    def deepen(self, max_leaves: int, time_limit: float | None,
               progress: Callable[[float], None] | None = None) -> Odds:
        """The whole tree, or, when `time_limit` runs out first, the deepest answer finished
        rather than none. The whole tree is tried first, for DEEPEN_AFTER of the time; then each
        sequence of dice is followed until its chance falls below a floor, DEEPEN_FLOOR, then a
        DEEPEN_DIVIDE-th of it each time (the rarest sequences left for last: a pursuit that
        goes on while it wins rolls dozens of dice, each sequence of them rare). Every
        enumeration keeps the positions it works out whole (no leaf below them cut:
        `enumerate`'s `exact`) and the next ones merge them, so the first try's work is not lost
        and each lower floor costs about what its new sequences add. The answer is the first
        that cuts nothing (exact), else the last finished, the chance that more dice follow
        stated (`unresolved`). `progress` is told the chance worked out so far (0 to 1)."""
        started = time.thread_time()
        exact: dict = {}
        shown = [0.0]

        def told(share: float) -> None:        # never backwards: each try counts its own way
            if progress is not None and share > shown[0]:
                shown[0] = share
                progress(share)

        first = None if time_limit is None else time_limit * DEEPEN_AFTER
        try:
            return self.enumerate(None, max_leaves, first, progress=told, exact=exact)
        except TooManyOutcomes:
            if time_limit is None:
                raise
        best = self.floored(max_leaves, time_limit - (time.thread_time() - started), exact, told)
        if best is None:
            raise TooManyOutcomes(f"`{self.cmd.text}` has too many die sequences to enumerate within "
                                  f"{time_limit:.0f} s, even its likeliest; ask about a smaller step")
        return best

    def floored(self, max_leaves: int, time_limit: float, exact: dict,
                told: Callable[[float], None] | None = None, quick: bool = False) -> Odds | None:
        """Each sequence of dice followed until its chance falls below DEEPEN_FLOOR, then a
        DEEPEN_DIVIDE-th of it, and so on, within `time_limit`, each try merging the positions
        the earlier ones (and whatever filled `exact` before) worked out whole: the first
        answer that cuts nothing, else the last one finished (None: not even the first).
        `told` hears the chance each finished one works out."""
        started = time.thread_time()
        best: Odds | None = None
        floor, leaves = DEEPEN_FLOOR, 0
        while True:
            left = time_limit - (time.thread_time() - started)
            if left <= 0:
                return best
            try:
                odds = self.enumerate(None, max_leaves, left, quick=quick, exact=exact, floor=floor)
            except (TooManyOutcomes, _TooBig):
                return best
            leaves += odds.leaves
            odds.leaves = leaves                  # the adjudications of every enumeration
            if odds.exact:
                return odds
            best = odds
            if told is not None:
                told(float(1 - odds.unresolved))
            floor /= DEEPEN_DIVIDE

    def cut_short(self, max_leaves: int, time_limit: float | None, fallback: float = FALLBACK) -> Odds:
        """The whole tree did not fit the budget: enumerate it to a horizon. The estimator's
        horizon is tried first, within `fallback`; when its leaves cost more than estimated (a
        tree whose deep branches the probes rarely meet: pursuits that go on while they win),
        a shallower one, each try within `fallback`, down to the first die, which is enumerated
        whatever it costs (up to `time_limit`)."""
        horizon = self.choose_horizon(fallback, max_leaves)
        if horizon is None:               # the estimate fits, the tree did not: one die less
            horizon = max(1, self.deepest - 1)
        while horizon > 1:
            try:
                return self.enumerate(horizon, max_leaves, fallback, quick=True)
            except _TooBig:
                horizon = max(1, horizon // 2 if horizon > 4 else horizon - 1)
        return self.enumerate(horizon, max_leaves, time_limit)

    def choose_horizon(self, budget: float, max_leaves: int) -> int | None:
        """Knuth's estimator: random descents give the tree's size at each depth and the cost of
        a leaf; the deepest horizon whose leaves fit the budget (None: the whole tree fits)."""
        rng = random.Random(0)            # Herald's own probes: no game die is drawn
        sizes: list[list[int]] = []
        cost = 0.0
        for _ in range(PROBES):
            walk = _Walk(self.mod, [], None, None, rng, banded=self.resume)
            t0 = time.thread_time()
            self.leaf(walk)
            cost += time.thread_time() - t0
            if not walk.branching:
                return None               # no die, or the same dice whatever happens
            sizes.append(list(_cumprod(walk.branching)))
        cost /= PROBES
        depth = max(len(s) for s in sizes)
        self.deepest = depth

        def leaves_at(d: int) -> float:
            return sum(s[min(d, len(s)) - 1] for s in sizes) / len(sizes)

        fits = lambda d: leaves_at(d) <= max_leaves and leaves_at(d) * cost <= budget  # noqa: E731
        if fits(depth):
            return None
        for d in range(depth - 1, 0, -1):
            if fits(d):
                return d
        raise TooManyOutcomes(f"`{self.cmd.text}`: even its first die opens more outcomes than Herald "
                              "enumerates in time; ask about a smaller step")


def _cumprod(xs: list[int]):
    p = 1
    for x in xs:
        p *= x
        yield p
