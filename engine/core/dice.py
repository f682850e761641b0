"""The recorded dice stream (DESIGN principle 1: same scenario + seed + commands = same game).

Every draw is a pure function of the game seed and the draw's index, so a state carries only
`(seed, draws)` and replays bit for bit on any machine and Python version. A command may bring its
own results (physical dice rolled at a club table, or a test's fixed dice): those are used first.
"""
from __future__ import annotations

import contextvars
import hashlib

from .errors import DiceNeeded, Illegal

# What-if mode (engine/core/odds.py): while a what-if is set here, every die comes from it
# (`what_if.roll(sides, purpose, stream)`: the stream passes itself, so the what-if can read the
# adjudication in progress as `stream.working`) and a hidden draw is refused
# (`what_if.hidden(bound)` raises): nothing is drawn from the seeded stream, so a what-if can
# never reveal hidden randomness.
#
# Both variables are contextvars, not process-wide globals: a value set is seen only by the code
# running in the same context, i.e. the same thread, or the same asyncio task (each task runs in a
# copy of its creator's context; `asyncio.to_thread` copies the caller's context into the worker
# thread). So a what-if or a physical-dice command in one channel's task never changes how
# another channel's command draws its dice.
WHAT_IF: contextvars.ContextVar = contextvars.ContextVar("herald_what_if", default=None)

# Physical-dice mode (bot/physical_dice.py): while True, every command's stream (game.run_command)
# is strict, so a die the command did not bring raises DiceNeeded (with its purpose and sides)
# instead of being drawn from the seed. Hidden draws (cards, shuffles) stay seeded.
PHYSICAL_DICE: contextvars.ContextVar = contextvars.ContextVar("herald_physical_dice", default=False)


def _draw(seed: int | str, index: int, bound: int) -> int:
    digest = hashlib.sha256(f"herald:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest, "big") % bound


class DiceStream:
    """Draws for one command. `supplied` results (1-based die faces) are consumed before the
    seeded stream; with `strict` an exhausted supply raises `DiceNeeded` instead of falling back.
    `working` is the state the command is changing (`game.run_command`'s copy), or None for a
    stream made outside a command (a setup, a trial on a scratch copy): a what-if reads the
    adjudication in progress there when it stops before a die."""

    def __init__(self, seed: int | str, draws: int, supplied: list[int] | None = None,
                 strict: bool = False, working: object = None):
        self.seed, self.draws = seed, draws
        self.supplied = list(supplied or [])
        self.used_supplied: list[int] = []
        self.strict = strict
        self.working = working

    def roll(self, sides: int, purpose: str, roller: str | None = None,
             bands: tuple[int, ...] | None = None) -> int:
        """One die, 1..sides. `roller` is the side whose die it is at the table when it is not the
        side giving the command (a reaction fire, a morale check, a leader's loss roll): in
        physical-dice mode that side's player is asked for it (bot/physical_dice.py).

        `bands` (issue 13) tells a what-if how the rules read this die, where they are read
        against thresholds computed with the modifiers in hand: the highest face of each band but
        the last (ascending; faces beyond 1..sides-1 are ignored), e.g. a check that passes on
        faces 1..7 gives (7,). The caller promises that every face of one band leads to the same
        adjudication but for what is written for people (the die in an event's narrative and
        record, which no rule and no summary reads): the what-if then tries one face per band,
        weighted by the band's width (engine/core/odds.py). A real roll ignores it."""
        what_if = WHAT_IF.get()
        if what_if is not None:
            if bands is None:
                return what_if.roll(sides, purpose, self)
            return what_if.roll(sides, purpose, self, bands=bands)
        if self.supplied:
            value = self.supplied.pop(0)
            if not 1 <= value <= sides:
                raise Illegal(f"supplied die result {value} is not a face of a d{sides} (1-{sides})")
            self.used_supplied.append(value)
            return value
        if self.strict:
            raise DiceNeeded(purpose, sides=sides, roller=roller)
        value = _draw(self.seed, self.draws, sides) + 1
        self.draws += 1
        return value

    def roll_sums(self, sums: list[list[tuple]], read, rollers: list[str | None] | None = None) -> list[list[int]]:
        """Several rolls, each of dice added into one total, whose totals the rules read only
        through `read(totals)` (issue 13): e.g. opposed rolls, where only which total is the
        higher counts, and `read` returns how each compares with the other; or one roll read
        against thresholds (`read` returns its band). Each roll lists its dice in the order
        rolled, as (sides, purpose) or (sides, purpose, values), `values` the number each face
        counts for in the total (face 1's first: a d3 rolled as a d6 halved counts
        (1, 1, 2, 2, 3, 3)), the face itself when left out. `rollers` is the side rolling each roll (None: the commanding
        side). Returns each roll's faces. Outside a what-if the dice are rolled one by one with
        `roll`, roll after roll: the same draws as rolling them in turn.

        The caller promises that the rules read nothing of these dice but `read` of their
        totals (a plain value, equal for totals the rules read alike): every set of sequences
        giving the same reading leads to the same adjudication but for what is written for
        people. A what-if that merges (engine/core/odds.py) then tries each reading once,
        weighted by the number of sequences of faces giving it, with one set of sequences
        giving it; the plain enumeration rolls each die and checks it."""
        what_if = WHAT_IF.get()
        if what_if is not None and getattr(what_if, "sums", False):
            return what_if.roll_sums([list(dice) for dice in sums], read, self)
        rollers = list(rollers or [None] * len(sums))
        return [[self.roll(d[0], d[1], who) for d in dice] for dice, who in zip(sums, rollers)]

    def randbelow(self, bound: int) -> int:
        """A hidden draw (shuffles): always from the seeded stream, never supplied."""
        what_if = WHAT_IF.get()
        if what_if is not None:
            what_if.hidden(bound)
        value = _draw(self.seed, self.draws, bound)
        self.draws += 1
        return value

    def shuffle(self, items: list) -> list:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return out



def run_stages(stream: DiceStream, name: str, steps: dict, todo: list) -> list:
    """Run the stages of one adjudication in order and return their events, concatenated: e.g.
    the combats of a close combat step, resolved one after the other, and each combat's parts.
    `todo` is the list of stages, each (step name, argument); `steps[name](argument)` runs one
    and returns (its events, the stages it adds in front of the rest of `todo`).

    The ruleset promises that a stage reads nothing but the working state (`stream.working`,
    every unit, leader... looked up there, none held from before), its argument (plain data,
    never shared between stages) and values fixed before the first stage, and that the rest of
    the command reads only that state and the events. A what-if (engine/core/odds.py) may then
    keep the working state, the events and the stages left before a stage, and resume there,
    for every die sequence beginning with the same dice, instead of adjudicating the earlier
    stages again (issue 13). Outside a what-if, or with a stream that carries no working
    state, the stages simply run. Not nested: a stage runs no stages of its own."""
    what_if = WHAT_IF.get()
    resume = getattr(what_if, "stages", None) if what_if is not None and stream.working is not None else None
    if resume is not None:
        return resume(stream.working, name, steps, todo)
    events: list = []
    todo = list(todo)
    while todo:
        step, arg = todo.pop(0)
        more, then = steps[step](arg)
        events += more
        todo[:0] = then
    return events
