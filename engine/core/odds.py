"""`/odds`: the exact what-if (issue 5, Arbitration). Pure: no Discord, no store.

A player considering an action (a Battle Cry battle, a TACW fire, an assault, an order change, a
continuation...) asks what could happen. Herald runs the ruleset's own `apply` on the current
state WITHOUT committing (the state is never touched: `apply` is pure) and enumerates every
sequence of die results depth-first, so each outcome comes with its exact probability as a
fraction (no sampling), and with the same modifier breakdown as the real adjudication (it is
read from the events of the very same code).

How the dice are enumerated. While a what-if runs, `engine.core.dice.WHAT_IF` holds a `_Walk`:
every `DiceStream.roll` asks it for the next die, and every hidden draw (`randbelow`: card draws,
shuffles) is refused (`HiddenInformation`), so a what-if never touches the seeded stream and can
never reveal hidden randomness. One `apply` gives one leaf: the walk answers the dice of a fixed
prefix, then the first face of each further die, and records every die asked for (its sides and
purpose). The next leaf increments the last die that has a face left (an odometer), and so on
until every face of every die has been tried. The leaves' probabilities add up to exactly 1
(checked on every what-if).

Equal positions are merged (issue 13). Many die sequences lead to the same position: five faces
of a Cavalry Pursuit d10 all break contact, and the morale check that follows is then the same
check. A ruleset that declares `state_key` says that, when one of its dice is rolled, the
working state (`stream.working`: what the adjudication in progress has done so far) is all
that the rest of the adjudication depends on; the die's position is then keyed by the commands
of the what-if so far (and the state the current one was given in), the die's index, sides and
purpose, and `state_key(working)`. The first time a key is met its subtree is enumerated; its
outcomes, as chances given the position, are kept; every later walk reaching the same key
stops there and adds them, times its own chance so far. A die the rules read against
thresholds (the ruleset's `ordered`: TACW's d10, the roll plus modifiers on a table of
contiguous rows) has its faces tried by halves: its first and last faces, then the middle of
any two neighbours tried that lead to different positions (the keyed position of the next
die, or the end of the adjudication); the faces between two that lead to the same position
lead there too, and add its outcomes without an adjudication of their own. The sums stay
exact fractions: only work is saved. A TACW close combat with pursuits, reactions and morale
checks that took over a thousand adjudications takes a few dozen. `what_if(..., merge=False)`
enumerates every sequence plainly (the tests and `bench/odds_bench.py --check` compare both).

Bands (issue 13). Where the rules read a die against a threshold known only where it is rolled
(a check's value after its modifiers, a table's bands after its DRMs), the code rolling it says
so (`DiceStream.roll(..., bands=...)`: the highest face of each band but the last), and the walk
tries one face of each band, weighted by the band's width, instead of searching the faces by
halves: a pass/fail check costs two adjudications, not five or so. Exact because the rules
promise that the faces of one band lead to the same adjudication (only the die written for
people differs); the plain enumeration (`merge=False`) ignores bands and checks it.

Sums (issue 13). Where the rules read dice only through their totals (a melee: each side's dice
added together, and the totals read only as which is the higher), the code rolling them says so
(`DiceStream.roll_sums`, with `read(totals)`: what the rules read of them): the walk rolls them as
one die whose faces are the readings, each weighted by the number of sequences of faces giving it
(`_sums`, per roll), and answers one set of sequences giving the reading tried. A d10 against a
d10 costs 3 adjudications (lower, tie, higher), not 100; a d10 and a d3 against two d10s, at
most 9, not 3,000. Exact because the rules promise that only the reading is read; the plain
enumeration rolls every die and checks it.

Resuming stages (issue 13). Each leaf replays the what-if from its start, so the dice before
the last one are adjudicated again for every face of it. A ruleset may split a command into
stages (`engine.core.dice.run_stages`: TACW's close combat step, each combat and, after its
formation hits, its pursuit, advance and leader losses), each reading only the working state
and a plain argument: the walk keeps the working state, the events and the stages left before
each stage that follows a new die, and a later walk whose dice begin the same way restores
them and resumes there. Likewise each command of the what-if that rolled dice (a declaration,
its resolution, the answers the follow-ups give) is kept with the dice it rolled, and a later
walk whose path begins with those dice starts after it (a command is a function of its dice).
Only work is saved: the walks, their dice and keys are the same (`merge=False` replays plainly).

The budget (HERALD decision). The whole tree is enumerated when it fits the budget (BUDGET,
seconds of the thread's CPU time, so a busy machine gives the same answer). Beyond it, each
sequence of dice is followed down to lower and lower floors of chance within FALLBACK (see
engine/core/odds_budget.py), and each outcome cut there is the position as it stands when the
next die would be rolled. Only when not even the first floor fits, a few random descents
estimate the tree's size at each depth and the cost of a leaf (Knuth's estimator) and the
enumeration is cut at a horizon fitting FALLBACK: the first `depth` dice are enumerated exactly,
and each outcome is, likewise, the position as it stands when the next die would be rolled
("...; then: morale check, Caernarvon"), read from the adjudication in progress (`run_command`'s
working copy, which the DiceStream asking for the die carries as `stream.working`). The
probabilities stay exact; only the question is shorter, and the answer says so. A ruleset also
marks dice beyond any question (`frozen`: TACW's next-turn initiative): the outcome is read
there. Beyond `MAX_LEAVES` leaves, or when not even the first die fits, the what-if is refused
with a clear message.

The ruleset's part lives in `engine/<ruleset>/odds.py` (looked up by ruleset id, so a later
ruleset only adds that module); every function is optional except `summary`:

    ASKABLE = {verb: what it asks}            the verbs a player may ask about
    refusal(sc, state, side, cmd)             a reason to refuse (hidden information), or None
    follow_up(sc, state, side, done, events)  the next command of the what-if, or None: e.g. TACW
                                              `attack` is followed by `resolve` (returns
                                              (side, Command, note) with the assumption it makes)
    faces(sides, purpose)                     [(face, weight)]: faces the rules read alike are
                                              enumerated once with their weight (BC's two
                                              Infantry faces; TACW's leader-loss d10: only a 9)
    group(purpose)                            ((key), index) when the dice of one roll are
                                              exchangeable (BC's battle dice: only how many of
                                              each face counts), enumerated as multisets
    frozen(purpose)                           True for a die beyond the question (TACW: the next
                                              turn's initiative): the outcome is read there
    state_key(state)                          bytes (hashable) telling equal positions apart, when
                                              the working state at a die is all the rest of an
                                              adjudication reads, and `summary` and `follow_up`
                                              read states, not events (TACW): equal positions are
                                              merged (`pickled` is the usual key)
    ordered(sides, purpose)                   True for a die read against thresholds: faces
                                              between two faces leading to the same position
                                              lead there too (merging only)
    summary(sc, before, after, events, side)  the outcome, as one line (the grouping key); it
                                              must say nothing the asker may not know. At a
                                              horizon `after` is the adjudication in progress
                                              and `events` is empty.
    breakdown(sc, state, side, events)        the calculation lines shown above the table
"""
from __future__ import annotations

import importlib
import pickle
import time
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import Any, Callable

from .commands import Command, dice_faces, parse
from .dice import WHAT_IF
from .errors import CannotParse, Illegal
from .odds_answer import Odds, Outcome
from .odds_budget import FALLBACK, Budget, _TooBig
from .odds_walk import HiddenInformation, TooManyOutcomes, _Horizon, _keyless, _Merged, _Walk, generic

MAX_LEAVES = 200_000          # the adjudications one what-if may run
BUDGET = 3.0                  # seconds of work for the exact answer; beyond, a horizon
TIME_LIMIT = 20.0             # seconds of work; beyond, a refusal rather than a blocked channel
# /odds in the bot (bot/cogs/odds.py, issue 13): a first answer within about a second (exact when
# the tree fits QUICK_BUDGET, else cut at a horizon fitting QUICK_FALLBACK), then, for a cut one,
# the whole tree worked out in a process of its own, up to EXACT_LIMIT, and the reply edited
PROGRESS_EVERY = 1.0          # seconds (wall) between two progress reports of a long enumeration
QUICK_BUDGET = 0.4
QUICK_FALLBACK = 0.3
EXACT_LIMIT = 120.0
CLOCK_EVERY = 0.02            # seconds (wall) between two readings of the thread's CPU clock
SECTION = "Herald /odds"


# == the ruleset's part ==========================================================================

def rules_for(ruleset: Any):
    """The ruleset's odds module: a ruleset attribute `odds` if it has one, else
    `engine.<ruleset id>.odds`. A ruleset without one has no what-if yet."""
    mod = getattr(ruleset, "odds", None)
    if mod is not None:
        return mod
    try:
        return importlib.import_module(f"engine.{ruleset.id}.odds")
    except ModuleNotFoundError as exc:
        if exc.name != f"engine.{ruleset.id}.odds":
            raise
        raise Illegal(f"{ruleset.name} has no what-if yet", SECTION) from None


# == the what-if =================================================================================

def what_if(ruleset: Any, scenario: Any, state: Any, side: str, line: str | Command, *,
            max_leaves: int = MAX_LEAVES, budget: float | None = BUDGET,
            time_limit: float | None = TIME_LIMIT, horizon: int | None = None,
            merge: bool = True, fallback: float = FALLBACK,
            progress: Callable[[float], None] | None = None, deepen: bool = False) -> Odds:
    """The exact odds of `side` giving `line` now. Raises a HeraldError (the rules' own refusal
    of an illegal action, HiddenInformation, TooManyOutcomes) with the reason.

    `budget` (seconds of CPU) is the time the whole tree may take; beyond it Herald picks a
    horizon whose enumeration fits `fallback` (None: always the whole tree, up to
    `time_limit`); `horizon` forces one (the number of dice enumerated). `merge=False`
    enumerates every die sequence plainly (no position merged, no face skipped: the check of
    the merged enumeration). /odds asks twice (QUICK_BUDGET, QUICK_FALLBACK: an answer within
    about a second, cut at a horizon when the tree is larger; then, only for a cut answer, the
    whole tree with budget=None and EXACT_LIMIT, off the bot's process: bot/cogs/odds.py).
    `progress`, for a whole tree, is told every PROGRESS_EVERY seconds the share of the chances
    worked out so far (0 to 1). `deepen`, for a whole tree: when it does not fit the first part
    of `time_limit`, each sequence of dice is followed down to lower and lower chances
    (`Budget.deepen`, engine/core/odds_budget.py), and the last answer finished is given instead
    of a refusal (/odds's long answer)."""
    mod = rules_for(ruleset)
    askable = getattr(mod, "ASKABLE", None)
    if isinstance(line, str) and not line.strip():
        first = next(iter(askable.values()), "").split(":")[0] if askable else ""
        raise CannotParse("say which action you are considering, as you would give it"
                          + (f": {', '.join(sorted(askable))}" if askable else "")
                          + (f" (e.g. `{first}`)" if first else ""))
    cmd = parse(line, dice_faces(ruleset)) if isinstance(line, str) else line
    if cmd.dice:
        raise CannotParse("a what-if enumerates every die: leave out dice=")
    if askable is not None and cmd.verb not in askable:
        raise Illegal(f"/odds answers {', '.join(sorted(askable))}; `{cmd.verb}` cannot be asked "
                      f"(it rolls no die, or it would reveal hidden information)", SECTION)
    refusal = getattr(mod, "refusal", None)
    why = refusal(scenario, state, side, cmd) if refusal else None
    if why:
        raise HiddenInformation(why)
    run = _Runner(ruleset, scenario, state, side, cmd, mod, merge)
    if horizon is None and budget is not None:
        # the whole tree, exactly, within the budget; beyond it, each sequence of dice followed
        # down to a floor of chance within `fallback`, or, should not even the first floor fit,
        # measured and cut at a horizon within half of it more
        exact: dict = {}
        try:
            return run.enumerate(None, max_leaves, budget, quick=True, exact=exact)
        except _TooBig:
            floored = run.floored(max_leaves, fallback, exact, quick=True)
            return floored if floored is not None else run.cut_short(max_leaves, time_limit, fallback / 2)
    if deepen and horizon is None:
        return run.deepen(max_leaves, time_limit, progress)
    return run.enumerate(horizon, max_leaves, time_limit, progress=progress)


class _Node:
    """A die rolled in a keyed position, while the odometer walks below it: the chance of
    reaching it, the outcomes of its subtree so far (absolute chances), and, tried by halves, the
    position each face tried leads to."""

    def __init__(self, depth: int, key: tuple, reach: Fraction, faces: int, by_halves: bool):
        self.depth, self.key, self.reach, self.faces, self.by_halves = depth, key, reach, faces, by_halves
        self.outs: dict[str, list] = {}
        self.seen: dict[int, tuple | None] = {}    # face index -> the position it leads to
        self.cut = False                           # a leaf below it was cut (horizon, floor)

    def next_face(self) -> int | None:
        """The last face, then the middle of any two neighbouring faces tried that lead to
        different positions; None when every face is tried or alike."""
        if self.faces - 1 not in self.seen:
            return self.faces - 1
        tried = sorted(self.seen)
        for a, b in zip(tried, tried[1:]):
            if b - a > 1 and (self.seen[a] is None or self.seen[a] != self.seen[b]):
                return (a + b) // 2
        return None

    def alike(self) -> list[tuple[int, int]]:
        """(face, a face tried leading to the same position) for each face not tried: it lies
        between two faces tried that lead to the same position."""
        if not self.by_halves:
            return []
        tried = sorted(self.seen)
        out = []
        for a, b in zip(tried, tried[1:]):
            if b - a > 1 and self.seen[a] is not None and self.seen[a] == self.seen[b]:
                out += [(f, a) for f in range(a + 1, b)]
        return out


class _Runner(Budget):
    """One what-if's commands, applied leaf after leaf."""

    def __init__(self, ruleset, scenario, state, side, cmd, mod, merge: bool = True):
        self.ruleset, self.scenario, self.state, self.side, self.cmd = ruleset, scenario, state, side, cmd
        self.summary = mod.summary
        self.follow_up = getattr(mod, "follow_up", None)
        self.state_key = getattr(mod, "state_key", None) if merge else None
        self.resume = merge               # resume at a stage kept (engine.core.dice.run_stages)
        self.mod = mod
        self.notes: dict[str, None] = {}
        self.memo: list = []              # the leading steps that drew no die (the same in every leaf)
        self.kept: dict | None = {} if merge else None   # (commands done, their dice) -> the position
        self.first_events: list | None = None
        self.steps: list[str] = [cmd.text]
        self.cut = False                  # a horizon or floor was met
        self.cut_labels: set[str] = set()  # the outcomes read there
        self.deepest = 1                  # the most dice a probe met (choose_horizon)

    def read(self, in_progress) -> str:
        """The outcome at a horizon: the adjudication in progress, as the summary reads it."""
        return self.summary(self.scenario, self.state, in_progress, [], self.side)

    def leaf(self, walk: _Walk) -> str | None:
        """One adjudication along `walk`: the outcome's label, or None when the walk stopped at a
        position whose outcomes are known (`walk.merged`)."""
        token = WHAT_IF.set(walk)
        try:
            label, events, done = self._run(walk)
        except _Merged:
            return None
        except _Horizon as h:
            label = h.label.lstrip("; ") or "no effect"
            if h.frozen:
                self.notes.setdefault(f"the {h.frozen} roll that follows is beyond the question: "
                                      "not enumerated", None)
            else:
                self.cut = walk.cut = True
                self.cut_labels.add(label)
            return label
        except Illegal as exc:
            if not walk.dice:          # refused before any die: the action itself is illegal
                raise
            return f"refused by the rules after the dice: {exc}"
        finally:
            WHAT_IF.reset(token)
        if self.first_events is None:
            self.first_events, self.steps = events, done
        if walk.state_key is not None:
            walk.final = self._final
        return label

    def _step(self, walk: _Walk | None, done: list[str], current: Any) -> None:
        """Tell the walk which command of the what-if is applied (the merge key's first part):
        the commands so far and, after the first, the position it is applied to (keyed when
        the command rolls its first die)."""
        if walk is not None:
            walk.command = len(done)
        if walk is not None and walk.state_key is not None:
            walk.step, walk.step_state = (tuple(done),), (current if done else None)

    def _resumed(self, walk: _Walk) -> tuple | None:
        """The latest command of the what-if kept (`self.kept`) whose dice begin this walk's
        path: (the position after it, the events, the commands done), its dice restored in the
        walk; the kept commands whose dice do not begin the path are dropped (depth first, they
        are never met again)."""
        path, found = tuple(walk.path), None
        for k in list(self.kept):
            picks = k[1]
            if picks != path[:len(picks)]:
                del self.kept[k]
            elif found is None or k[0] > found[0]:
                found = k
        if found is None:
            return None
        current, events, done, dice = self.kept[found]
        walk.dice[:] = dice             # never changed once rolled: shared, not copied
        return current, events, list(done)

    def _keep(self, walk: _Walk | None, current, events, done: list[str]) -> None:
        """After a command of the what-if that rolled dice: the position it ended in, kept for
        the walks whose paths begin with the same dice (they replay it to the same position,
        the adjudication being a function of the dice, so they resume after it)."""
        if walk is not None and self.kept is not None and walk.dice and walk.rng is None:
            picks = tuple(d.pick for d in walk.dice)
            key = (len(done), picks)
            if key not in self.kept:
                self.kept[key] = (current, events, list(done), _keyless(walk.dice))

    def _run(self, walk: _Walk | None) -> tuple[str, list, list[str]]:
        """Apply the what-if's commands (the asked one and its follow-ups) on copies; resume
        after the latest command kept for the dice this walk replays (merging only)."""
        memo = self.memo if walk is not None else []
        resumed = self._resumed(walk) if walk is not None and self.kept else None
        if resumed is not None:
            current, events, done = resumed
        elif memo:
            current, events, done = memo[-1]
        else:
            self._step(walk, [], self.state)
            current, events = self.ruleset.apply(self.scenario, self.state, self.side, self.cmd)
            done = [self.cmd.text]
            if walk is not None and not walk.dice:
                memo.append((current, events, list(done)))
            self._keep(walk, current, events, done)
        while self.follow_up is not None and len(done) < 8:
            nxt = self.follow_up(self.scenario, current, self.side, done, events)
            if nxt is None:
                break
            who, then, note = nxt
            if note:
                self.notes.setdefault(note, None)
            self._step(walk, done, current)
            current, more = self.ruleset.apply(self.scenario, current, who, then)
            events = events + more
            done = done + [then.text if who == self.side else f"{who}: {then.text}"]
            if walk is not None and not walk.dice and len(memo) == len(done) - 1:
                memo.append((current, events, list(done)))
            self._keep(walk, current, events, done)
        self._final = current
        return self.summary(self.scenario, self.state, current, events, self.side), events, done

    def enumerate(self, horizon: int | None, max_leaves: int, time_limit: float | None,
                  quick: bool = False, progress: Callable[[float], None] | None = None,
                  exact: dict | None = None, floor: float | None = None) -> Odds:
        """Every leaf, odometer order, the outcomes summed up exactly. Time is the thread's own
        CPU time, so a busy machine does not change the answer.

        Merging (the ruleset's `state_key`): each die rolled in a keyed position opens a node,
        which stays open while the odometer walks below it and gathers the outcomes of its
        subtree (absolute chances); when the odometer moves above it, the node is finished and
        its outcomes, divided by the chance of reaching it, are kept under its key. A later walk
        that reaches a die with the same key (the same command, die, purpose and position) stops
        there and adds the kept outcomes, times its own chance so far. A node whose die the
        rules read against thresholds (the ruleset's `ordered`) tries its faces by halves: when
        two faces lead to the same position, the faces between them do too, and they add that
        position's outcomes without an adjudication of their own.

        `floor` cuts instead each sequence of dice once its chance is below it, outcomes read
        there as at a horizon. `exact` (deepening): the positions whose whole subtree an earlier
        enumeration of the same what-if worked out, no leaf below them met its horizon or floor,
        so their outcomes hold whatever the cut; they are merged like the positions of this one,
        and those this one works out whole are added to it."""
        mod, cmd = self.mod, self.cmd
        started = time.thread_time()
        clock_every = CLOCK_EVERY if time_limit is None else min(CLOCK_EVERY, time_limit / 10)
        next_check = time.perf_counter() + clock_every
        next_report = time.perf_counter() + PROGRESS_EVERY
        self.cut = False
        self.cut_labels = set()
        known: dict | None = {} if self.state_key is not None else None
        if known is not None and exact:
            known.update(exact)
        cut_keys: set = set()              # the positions kept whose subtree was cut
        saved: dict | None = {} if self.resume else None     # the stages kept (run_stages)
        joint: dict = {}                   # roll_sums's readings, by position
        ordered = getattr(mod, "ordered", None) if known is not None else None
        totals: dict[str, list] = {}
        opened: list[_Node] = []           # the nodes on the current path, shallowest first
        dice_seen: dict[tuple[int, str], None] = {}
        leaves = 0
        total_p = Fraction(0)

        def gain(outs, scale: Fraction, node: _Node | None) -> Fraction:
            """Add outcomes (chances given `scale`) to the deepest open node, or to the totals:
            a node's outcomes are added to its parent's (or the totals) once it is finished, so
            a leaf costs one addition per outcome, not one per open node."""
            got = Fraction(0)
            into = totals if node is None else node.outs
            for lab, (q, n) in outs:
                p = scale * q
                got += p
                entry = into.get(lab)
                if entry is None:
                    into[lab] = [p, n]
                else:
                    entry[0] += p
                    entry[1] += n
            return got

        path: list[int] | None = []
        while path is not None:
            walk = _Walk(mod, path, horizon, self.read, known=known, state_key=self.state_key, saved=saved,
                         banded=self.resume, joint=joint, floor=floor)
            label = self.leaf(walk)
            chances = walk.chances()
            for depth in range(len(path), len(walk.dice)):       # the nodes this walk opened
                d = walk.dice[depth]
                if d.key is not None:
                    by_halves = (ordered is not None and d.group is None and not d.banded
                                 and d.parts is None and ordered(d.sides, d.purpose))
                    opened.append(_Node(depth, d.key, chances[depth], len(d.faces), by_halves))
            for node in reversed(opened):                           # the faces this walk tried first
                if node.depth < len(path) - 1:
                    break
                if node.by_halves:                                  # (only a search by halves reads them)
                    node.seen[walk.dice[node.depth].pick] = self._next_position(walk, node.depth + 1, label)
            deepest = opened[-1] if opened else None
            if deepest is not None and (walk.cut or walk.merged in cut_keys):
                deepest.cut = True
            if label is None:                                       # stopped at a known position
                total_p += gain(known[walk.merged].items(), chances[-1], deepest)
            else:
                total_p += gain([(label, (Fraction(1), 1))], chances[-1], deepest)
            for d in walk.dice[max(len(path) - 1, 0):]:             # (the path's were seen before)
                for sides, purpose in d.parts or ((d.sides, d.purpose),):
                    dice_seen.setdefault((sides, generic(purpose)), None)
            leaves += 1
            # the thread's CPU clock is a system call that costs 0.5-5 ms on a virtual machine
            # (more than a cheap adjudication): it is read when CLOCK_EVERY s have passed (a
            # tenth of a smaller budget)
            over_time = False
            if time_limit is not None and time.perf_counter() >= next_check:
                next_check = time.perf_counter() + clock_every
                over_time = time.thread_time() - started > time_limit
            if progress is not None and time.perf_counter() >= next_report:
                next_report = time.perf_counter() + PROGRESS_EVERY
                progress(float(total_p))            # the chances whose outcomes are known
            if quick and (leaves >= max_leaves or over_time):
                raise _TooBig()
            if leaves > max_leaves:
                raise TooManyOutcomes(f"`{cmd.text}` has more than {max_leaves:,} die sequences: too many "
                                      "to enumerate exactly; ask about a smaller step")
            if over_time:
                raise TooManyOutcomes(f"`{cmd.text}` has too many die sequences to enumerate within "
                                      f"{time_limit:.0f} s ({leaves:,} so far); ask about a smaller step")
            # the odometer: the deepest die with a face left to try (a node by halves chooses it)
            at = {node.depth: node for node in opened}
            path = None
            for i in range(len(walk.dice) - 1, -1, -1):
                node = at.get(i)
                if node is not None and node.by_halves:
                    face = node.next_face()
                else:
                    d = walk.dice[i]
                    face = d.pick + 1 if d.pick + 1 < len(d.faces) else None
                if face is not None:
                    path = [x.pick for x in walk.dice[:i]] + [face]
                    break
            moved = len(path) - 1 if path is not None else -1      # the die whose face changes
            while opened and opened[-1].depth > moved:              # finished: kept for merging
                node = opened.pop()
                d = walk.dice[node.depth]
                for face, like in node.alike():                    # faces that need no adjudication
                    total_p += gain(self._outcomes(known, node.seen[like]),
                                    node.reach * Fraction(d.faces[face][1], d.sides), node)
                    node.cut = node.cut or node.seen[like][1] in cut_keys
                known[node.key] = {lab: (p / node.reach, n) for lab, (p, n) in node.outs.items()}
                parent = opened[-1] if opened else None
                if node.cut:
                    cut_keys.add(node.key)
                    if parent is not None:
                        parent.cut = True
                elif exact is not None:
                    exact[node.key] = known[node.key]
                gain(node.outs.items(), Fraction(1), parent)        # to its parent
        if self.first_events is None:          # every leaf met the horizon: one whole adjudication
            self.leaf(_Walk(mod, []))          # gives the first roll's calculation
        if total_p != 1:                       # the enumeration is exact or it is a bug
            raise AssertionError(f"what-if probabilities add up to {total_p}, not 1")
        outcomes = sorted((Outcome(k, v[0], v[1]) for k, v in totals.items()),
                          key=lambda o: (-o.probability, o.label))
        breakdown = (getattr(mod, "breakdown", None) or _breakdown_default)(
            self.scenario, self.state, self.side, self.first_events or [])
        dice = [f"d{s} {p}" for s, p in dice_seen]
        cut = horizon if horizon is not None and self.cut else None
        unresolved = sum((o.probability for o in outcomes if o.label in self.cut_labels), Fraction(0))
        return Odds(self.ruleset.id, self.side, cmd.text, outcomes, leaves, dice, list(breakdown),
                    list(self.notes), self.steps, cut, unresolved,
                    floor if floor is not None and self.cut and cut is None else None)

    def _next_position(self, walk: _Walk, depth: int, label: str | None) -> tuple | None:
        """Where a face leads: the keyed position of the next die, or the end of the
        adjudication (its final position and outcome); None when it cannot be told apart."""
        if depth < len(walk.dice):
            key = walk.dice[depth].key
            return ("die", key) if key is not None else None
        if label is None:
            return ("die", walk.merged)
        if walk.final is not None:
            try:
                return ("end", self.state_key(walk.final), label)
            except (pickle.PicklingError, TypeError, AttributeError):
                return None
        return None

    @staticmethod
    def _outcomes(known: dict, position: tuple):
        if position[0] == "die":
            return known[position[1]].items()
        return [(position[2], (Fraction(1), 1))]

# -- the merge key ---------------------------------------------------------------------------------

def pickled(state: Any, omit: tuple[str, ...] = ()) -> bytes:
    """A merge key for a state of plain data: its pickle, without the state's own caches
    (attributes named `_memo_...`, engine/core/state.py: never copied nor saved) and without the
    attributes named in `omit` (what no rule reads and no summary shows, e.g. a record kept for
    the picture). Equal bytes mean equal states (the same values, the same sharing); equal
    states pickled apart (a dict filled in another order, a cache deeper in the state) only miss
    a merge, never make a wrong one."""
    d = getattr(state, "__dict__", None)
    if d is None:
        return pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
    items = [(k, v) for k, v in d.items() if k not in omit and not k.startswith("_memo_")]
    return pickle.dumps((type(state), items), pickle.HIGHEST_PROTOCOL)


def _breakdown_default(scenario, state, side, events) -> list[str]:
    """The calculation of the first roll, as its event records it (section, table, row,
    base, each modifier with its reason and section)."""
    ev = next((e for e in events if e.dice), None)
    if ev is None:
        return []
    out = [f"[{ev.section}] {ev.table or ev.kind}" + (f", {ev.row}" if ev.row else "")]
    for m in ev.modifiers:
        out.append(f"  {m.value:+d}  {m.reason} ({m.section})")
    return out


# == checks the tests share ======================================================================

def sampled(ruleset: Any, scenario: Any, state: Any, side: str, line: str, seeds) -> Counter:
    """The outcomes of the REAL adjudication of `line` over many seeds (the seeded stream, no
    what-if), counted by the ruleset's summary: the tests compare them with `what_if`."""
    mod = rules_for(ruleset)
    out: Counter = Counter()
    cmd = parse(line)
    for seed in seeds:
        st = replace(state, seed=seed)
        label, _, _ = _Runner(ruleset, scenario, st, side, cmd, mod)._run(None)
        out[label] += 1
    return out
