"""The walk of `/odds`'s enumeration (engine/core/odds.py, which tells the whole method): the
`WHAT_IF` object one `apply` of a what-if rolls its dice from, answering a fixed prefix, then first
faces, stopping at a horizon, a floor, a frozen die or a position already worked out; and the
errors and small helpers it shares with the enumeration. Pure: no Discord, no store."""
from __future__ import annotations

import math
import pickle
import random
from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable

from .errors import HeraldError
from .state import tree_copy

MAX_DICE = 64                 # dice in one leaf (a loop of re-rolls is refused, not followed)


class HiddenInformation(HeraldError):
    """The what-if would draw hidden randomness (a card, a shuffle) or depend on what the asker
    does not know: refused, and nothing is shown."""


class TooManyOutcomes(HeraldError):
    """The what-if has more die sequences than Herald enumerates (MAX_LEAVES, TIME_LIMIT)."""


def _faces_default(sides: int, purpose: str) -> list[tuple[int, int]]:
    return [(v, 1) for v in range(1, sides + 1)]


def _banded(sides: int, cuts: tuple[int, ...]) -> list[tuple[int, int]]:
    """[(the band's lowest face, its width)] for the bands ending at each cut and at `sides`."""
    out, low = [], 1
    for high in sorted({c for c in cuts if 1 <= c < sides}) + [sides]:
        out.append((low, high - low + 1))
        low = high + 1
    return out


def generic(purpose: str) -> str:
    """'battle die 2 of 4' -> 'battle die': one name per kind of die in the answer."""
    words = purpose.split()
    if len(words) >= 4 and words[-2] == "of" and words[-1].isdigit() and words[-3].isdigit():
        return " ".join(words[:-3])
    return purpose


# == the walk: one leaf per apply ================================================================

@dataclass
class _Die:
    sides: int
    purpose: str
    faces: list[tuple[int, int]]      # (face, weight)
    pick: int                         # index into faces
    group: tuple | None = None        # ((key), index): exchangeable dice of one roll
    low: int = 0                      # the lowest pick allowed (a multiset never goes down)
    key: tuple | None = None          # the merge key of the position it is rolled in (or None)
    banded: bool = False              # one face per band (DiceStream.roll's bands): none by halves
    parts: tuple | None = None        # totals read (DiceStream.roll_sums): their dice, (sides,
                                      # purpose) each; `sides` is then the number of their
                                      # sequences, each face a reading with the number of
                                      # sequences giving it


class _Horizon(Exception):
    """The walk reached a die it does not enumerate: the outcome is read there."""

    def __init__(self, label: str, frozen: str = ""):
        super().__init__(label)
        self.label, self.frozen = label, frozen


class _Merged(Exception):
    """The walk reached a position whose outcomes are already known (merged): it stops there."""


class _Walk:
    """The `WHAT_IF` object for one apply: answers dice along `path`, then first faces (or, when
    probing, random faces); stops at the horizon."""

    def __init__(self, mod, path: list[int], horizon: int | None = None, read: Callable | None = None,
                 rng: random.Random | None = None, known: dict | None = None,
                 state_key: Callable | None = None, saved: dict | None = None, banded: bool = False,
                 joint: dict | None = None, floor: float | None = None):
        self.path, self.horizon, self.read, self.rng = path, horizon, read, rng
        self.floor = floor                # a new die is not rolled once the walk's chance is below it
        self.banded = banded              # a die's bands (DiceStream.roll) are tried one face each
        self.sums = banded                # dice read through their totals (DiceStream.roll_sums):
                                          # one reading each
        self.joint = {} if joint is None else joint   # roll_sums's readings, by position (one
                                                        # enumeration's walks share them)
        self.dice: list[_Die] = []
        self.faces = getattr(mod, "faces", None) or _faces_default
        self.group = getattr(mod, "group", None) or (lambda purpose: None)
        self.is_frozen = getattr(mod, "frozen", None) or (lambda purpose: False)
        self.branching: list[int] = []    # probes: the choices open at each die
        self.known = known                # merge key -> the finished subtree's outcomes
        self.state_key = state_key if known is not None else None
        self.step: tuple | None = None    # the command of the what-if being applied (its key)
        self.step_state: Any = None       # the position it was given in, until keyed
        self.merged: tuple | None = None  # the key of the known subtree the walk stopped at
        self.final: Any = None            # the position the adjudication ended in (merging)
        self.cut = False                  # the walk was cut (horizon, floor)
        self.saved = saved                # (command, stages, stage, dice) -> the state there
        self.command = 0                  # the command of the what-if being applied (its index)
        self.calls: dict = {}             # (command, name) -> the run_stages calls made

    def roll(self, sides: int, purpose: str, stream: Any = None, bands: tuple[int, ...] | None = None) -> int:
        """The next die of the leaf; `stream` is the DiceStream asking (it carries the
        adjudication in progress, read at a horizon). `bands` (engine.core.dice.DiceStream.roll):
        the faces the rules read alike, computed where the die is read (a check's threshold
        after its modifiers, a table's bands after its DRMs); when the walk is `banded` (merging;
        never in the plain enumeration, which checks it) one face of each band is tried, its
        lowest, weighted by the band's width: a pass/fail check costs two adjudications, not
        the five or so of a search by halves."""
        group = self.group(purpose)
        prev = self.dice[-1] if self.dice else None
        same_roll = (group is not None and prev is not None and prev.group is not None
                     and prev.group[0] == group[0] and prev.group[1] + 1 == group[1])
        i = self._next(purpose, stream, mid_roll=same_roll)
        banded = bands is not None and self.banded
        faces = _banded(sides, bands) if banded else list(self.faces(sides, purpose))
        key = self._key(i, sides, purpose, group, stream)
        low = prev.pick if same_roll else 0
        if i < len(self.path):
            pick = self.path[i]
        elif self.rng is not None:
            pick = self.rng.randrange(low, len(faces))
            self.branching.append(len(faces) - low)
        else:
            pick = low
        self.dice.append(_Die(sides, purpose, faces, pick, group, low, key, banded))
        return faces[pick][0]

    def _next(self, purpose: str, stream: Any, frozen: bool | None = None, mid_roll: bool = False) -> int:
        """The index of the next die; stops the walk at the horizon, the floor or a frozen die.
        Never at the floor amid a roll of exchangeable dice (`mid_roll`): they are enumerated as
        a multiset, whose partial chances hold only when every walk of the roll stops at the
        same die (as at a horizon)."""
        i = len(self.dice)
        if i >= MAX_DICE:
            raise TooManyOutcomes(f"this action could roll more than {MAX_DICE} dice in a row "
                                  "(a chain of re-rolls): Herald does not enumerate it")
        frozen = self.is_frozen(purpose) if frozen is None else frozen
        if frozen or (self.horizon is not None and i >= self.horizon) or (
                self.floor is not None and not mid_roll and i >= len(self.path) and self._chance() < self.floor):
            then = "" if frozen else f"; then: {generic(purpose)}"
            raise _Horizon(self.read(_in_progress(stream)) + then if self.read else then,
                           generic(purpose).split(",")[0] if frozen else "")
        return i

    def _chance(self) -> float:
        """The chance of the dice so far (what `floor` reads; a roll of exchangeable dice counted
        in one order only: a little under its chance, so such a walk stops a little sooner)."""
        p = 1.0
        for d in self.dice:
            p *= d.faces[d.pick][1] / d.sides
        return p

    def _key(self, i: int, sides: int, purpose: str, group: tuple | None, stream: Any) -> tuple | None:
        """The merge key of a new die's position (None: not keyed); stops the walk (_Merged)
        when that position's outcomes are known."""
        key = None
        if self.state_key is not None and group is None and self.step is not None and i >= len(self.path):
            working = getattr(stream, "working", None)      # a new die (the path's are keyed)
            try:
                if working is not None:
                    if self.step_state is not None:    # the position the command was given in
                        self.step, self.step_state = self.step + (self.state_key(self.step_state),), None
                    key = (self.step, i, sides, purpose, self.state_key(working))
            except (pickle.PicklingError, TypeError, AttributeError):
                key = None                             # a state that cannot be keyed: no merge
            if key is not None and key in self.known:
                self.merged = key
                raise _Merged()
        return key

    def roll_sums(self, sums: list[list[tuple]], read: Callable, stream: Any = None) -> list[list[int]]:
        """Rolls of dice, each read as its total, the totals read only through `read`
        (engine.core.dice.DiceStream.roll_sums), while merging: one die of the walk whose faces
        are the readings the totals can give, each weighted by the number of sequences of faces
        giving it, over the number of all sequences; returns, for the reading tried, one
        sequence of faces per roll giving it (always the same: the first totals met, ascending,
        and `_sums`'s sequence for each). The readings are worked out once per position of the
        enumeration (`self.joint`: the same dice before it, the same call). Exact because the
        caller promises that only the reading is read; the plain enumeration checks it."""
        parts = tuple((d[0], d[1]) for dice in sums for d in dice)
        purpose = " + ".join(p for _, p in parts)
        i = self._next(parts[0][1], stream, any(self.is_frozen(p) for _, p in parts))
        sides = math.prod(n for n, _ in parts)
        where = (i, tuple(d.pick for d in self.dice), purpose)
        got = self.joint.get(where)
        if got is None:
            tables = [_sums(tuple((d[0], tuple(d[2]) if len(d) > 2 and d[2] is not None else None) for d in dice))
                      for dice in sums]
            combos: list[tuple[tuple[int, ...], int]] = [((), 1)]     # (totals, sequences)
            for table in tables:
                combos = [(ts + (t,), n * c) for ts, n in combos for t, (c, _) in table.items()]
            readings: dict[Any, list] = {}
            for totals, n in combos:
                entry = readings.get(r := read(totals))
                if entry is None:
                    readings[r] = [n, totals]
                else:
                    entry[0] += n
            got = self.joint[where] = [(k, n) for k, (n, _) in enumerate(readings.values())], \
                [tuple(table[t][1] for table, t in zip(tables, totals)) for _, totals in readings.values()]
        faces, chosen = got
        key = self._key(i, sides, purpose, None, stream)
        if i < len(self.path):
            pick = self.path[i]
        elif self.rng is not None:
            pick = self.rng.randrange(len(faces))
            self.branching.append(len(faces))
        else:
            pick = 0
        self.dice.append(_Die(sides, purpose, faces, pick, None, 0, key, True, parts))
        return [list(f) for f in chosen[pick]]

    def stages(self, st: Any, name: str, steps: dict, todo: list) -> list:
        """`engine.core.dice.run_stages` in a what-if: resume at the latest stage kept for the
        dice this walk replays (the working state, the events, the stages left and the dice
        then), and run the rest, keeping them before each later stage that follows a new die,
        for the walks that will share its dice. The walks go depth first, so a kept stage whose
        dice are not the beginning of this walk's path is never met again: it is dropped."""
        saved = self.saved
        todo = list(todo)
        events: list = []
        n = self.calls.get((self.command, name), 0)
        self.calls[(self.command, name)] = n + 1
        where = (self.command, name, n)
        done = 0                                  # the stages run (or resumed past)
        if saved is not None:
            path, found = tuple(self.path), None
            for k in list(saved):
                picks = k[4]
                if picks != path[:len(picks)]:
                    del saved[k]
                elif k[:3] == where and len(picks) >= len(self.dice) and (found is None or k[3] > found[3]):
                    found = k
            if found is not None:
                kept, kept_events, kept_todo, kept_dice = saved[found]
                fresh = kept.copy()
                st.__dict__.clear()
                st.__dict__.update(fresh.__dict__)
                events, todo, done = list(kept_events), tree_copy(kept_todo), found[3]
                self.dice[:] = kept_dice
        last = len(self.dice)                     # dice when the last stage was kept or resumed
        while todo:
            if saved is not None and done and len(self.dice) > last:
                k = where + (done, tuple(d.pick for d in self.dice))
                if k not in saved:
                    saved[k] = (st.copy(), list(events), tree_copy(todo), _keyless(self.dice))
                last = len(self.dice)
            step, arg = todo.pop(0)
            more, then = steps[step](arg)
            events += more
            todo[:0] = then
            done += 1
        return events

    def hidden(self, bound: int) -> None:
        raise HiddenInformation("a what-if cannot draw a card or shuffle: that would reveal hidden "
                                "information (the deck, the other player's hand)")

    # -- after the apply --------------------------------------------------------------------
    def probability(self, upto: int | None = None) -> Fraction:
        """The leaf's chance (or that of its first `upto` dice): each die's face weight over its
        sides, times, for each roll of exchangeable dice, the number of orders its multiset of
        faces can come in."""
        p = Fraction(1)
        runs: list[list[_Die]] = []
        dice = self.dice if upto is None else self.dice[:upto]
        for i, d in enumerate(dice):
            p *= Fraction(d.faces[d.pick][1], d.sides)
            if d.group is None:
                continue
            prev = self.dice[i - 1] if i else None
            if runs and runs[-1][-1] is prev and prev.group[0] == d.group[0] and prev.group[1] + 1 == d.group[1]:
                runs[-1].append(d)
            else:
                runs.append([d])
        for run in runs:
            counts = Counter(x.pick for x in run)
            p *= math.factorial(len(run)) // math.prod(math.factorial(c) for c in counts.values())
        return p

    def chances(self) -> list[Fraction]:
        """[probability(k) for k in 0..len(dice)], in one pass when no die is of a group."""
        if any(d.group is not None for d in self.dice):
            return [self.probability(k) for k in range(len(self.dice) + 1)]
        num, den = 1, 1
        out = [Fraction(1)]
        for d in self.dice:
            num *= d.faces[d.pick][1]
            den *= d.sides
            out.append(Fraction(num, den))
        return out

    def next_path(self) -> list[int] | None:
        for i in range(len(self.dice) - 1, -1, -1):
            d = self.dice[i]
            if d.pick + 1 < len(d.faces):
                return [x.pick for x in self.dice[:i]] + [d.pick + 1]
        return None


_SUMS: dict[tuple, dict[int, tuple[int, tuple[int, ...]]]] = {}


def _sums(dice: tuple[tuple[int, tuple[int, ...] | None], ...]) -> dict[int, tuple[int, tuple[int, ...]]]:
    """{total: (the sequences of faces giving it, the first of them)}, ascending totals, for
    dice given as (sides, the value of each face or None: the face itself) (remembered: a few
    kinds of rolls recur)."""
    got = _SUMS.get(dice)
    if got is not None:
        return got
    table: dict[int, tuple[int, tuple[int, ...]]] = {0: (1, ())}
    for sides, values in dice:
        nxt: dict[int, tuple[int, tuple[int, ...]]] = {}
        for total, (n, first) in table.items():
            for face in range(1, sides + 1):
                t = total + (values[face - 1] if values is not None else face)
                entry = nxt.get(t)
                nxt[t] = (n, first + (face,)) if entry is None else (entry[0] + n, entry[1])
        table = nxt
    got = _SUMS[dice] = dict(sorted(table.items()))
    return got


def _keyless(dice: list[_Die]) -> list[_Die]:
    """The dice of a walk kept for the walks that resume after them, without their merge keys
    (a die is never changed once rolled: those already keyless are shared)."""
    return [d if d.key is None else replace(d, key=None) for d in dice]


def _in_progress(stream: Any) -> Any:
    """The state the adjudication in progress is changing: the working copy of
    `engine.core.game.run_command`, which every ruleset's `apply` runs its rules in; its dice
    stream carries it (`stream.working`)."""
    working = getattr(stream, "working", None)
    if working is None:
        raise TooManyOutcomes("too many dice follow to enumerate them, and this adjudication cannot "
                              "be read halfway (its die is not drawn by a command's own stream)")
    return working
