"""How a d10 is about to be read, told to `/odds` before it is rolled (issue 13).

TACW reads its d10 (§2.2, 0-9) against a table or a number, with modifiers fixed before the
roll: a morale check only passes or fails (§11.2), a Retreat Impossible roll eliminates or not
(§10.4.5), a fire or a close combat roll gives a table cell (§9.5, §9.9, §10.2 D), a pursuit one
of three results (§10.7.2). Where the rules use the die only through that reading (the raw
roll goes to the event's text and nowhere else: not into the state, not into an event another
rule reads), the faces that read alike lead to the same future, and the exact what-if
(engine/core/odds.py) tries each band of faces once, weighted by its width: a morale check is
two adjudications instead of the five or so of trying faces by halves.

`d10(stream, purpose, roller, reading)` rolls as `stream.roll` does; in a what-if it also gives
the die's bands (`DiceStream.roll(..., bands=)`: the highest face of each band but the last),
cut wherever `reading(roll)` changes from one roll to the next. A reading that comes back to an
earlier result (none does: the tables' rows are contiguous, D2) only gives more bands. The real
adjudication is unchanged: the die is drawn exactly as before, and no band is computed.

HERALD decision (issue 13): a die whose raw roll matters beyond its reading is rolled without
one (`reading=None`) and is tried face by face (by halves). The plain enumeration
(`what_if(..., merge=False)`) ignores the bands, so `bench/odds_bench.py --check` and
tests/engine/test_tacw_odds_speed.py compare every banded answer with the face-by-face one.
A core without the `bands` hook (engine/core/dice.py) is asked without them.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from engine.core.dice import WHAT_IF, DiceStream

_HOOK = "bands" in inspect.signature(DiceStream.roll).parameters


def bands(reading: Callable[[int], Any], sides: int = 10) -> tuple[int, ...]:
    """The face (1-based) ending each band of rolls (0-based, face - 1) read alike, but the last."""
    results = [reading(r) for r in range(sides)]
    return tuple(f for f in range(1, sides) if results[f - 1] != results[f])


def d10(stream: Any, purpose: str, roller: str | None = None,
        reading: Callable[[int], Any] | None = None) -> int:
    """§2.2: one d10 read 0-9; `reading(roll)` is all the rules take from it (see above)."""
    if reading is not None and _HOOK and type(stream) is DiceStream and WHAT_IF.get() is not None:
        return stream.roll(10, purpose, roller, bands=bands(reading)) - 1
    return stream.roll(10, purpose, roller) - 1
