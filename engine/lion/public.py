"""What each player may see of a Lion of the North game (DESIGN: "Hidden information is filtered by
a per-player view of the state").

Nothing on the table is secret: Lion is played in the open, every base, its facing, its hits and
the Cpts are in plain view of both players, and the orders are moves made on the table [4], [5].
The only hidden randomness is the order of the cards not yet drawn (HERALD D7: a seeded draw, so
no one knows it); no event and no part of the state names a card before it is drawn (the state's
`deck` holds the cards LEFT, never their order: the next card is drawn when it is needed). So:

    view(sc, st, viewer) -> LionState        the state itself (a copy): nothing to mask
    public_command(sc, st, side, text, events) -> PublicCommand
                                             the log entry as given: engine/core/public.py's
                                             common redaction (hidden keys such as `seed` or
                                             `drawn` dropped from the events), no secret strings
                                             and no private verb

/odds never draws a card (sequence/cards.py, HERALD D110) and undo compares the count of seeded
draws (bot/undo.py), so a command that drew a card is never taken back.
"""
from __future__ import annotations

from typing import Any, Iterable

from engine.core.public import PublicCommand, redacted_command

from engine.lion.state import LionState


def view(sc, st: LionState, viewer: str | None = None) -> LionState:
    """The state as `viewer` may see it: all of it (nothing in Lion is secret)."""
    return st.copy()


def public_command(sc, st: LionState, side: str | None, text: str, events: Iterable[Any]) -> PublicCommand:
    """One log entry as everyone may see it: the command and its events, with only the common
    hidden keys dropped (Lion has no secret verb and no secret string)."""
    return redacted_command(text, events)
