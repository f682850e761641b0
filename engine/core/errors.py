"""Errors a command can meet. Each one leaves the game untouched (DESIGN: bad input is a clear
answer, never a crash). The bot shows `str(error)` to the player, ephemerally."""
from __future__ import annotations


class HeraldError(Exception):
    """Base class: a command was refused."""


class CannotParse(HeraldError):
    """The words could not be read as a command."""


class Illegal(HeraldError):
    """The rules forbid this command. Carries the rule section that forbids it."""

    def __init__(self, reason: str, section: str | None = None):
        self.reason, self.section = reason, section
        super().__init__(f"{reason} ({section})" if section else reason)


class Ambiguous(HeraldError):
    """The words match more than one thing; `options` lists what they could mean."""

    def __init__(self, what: str, options: list[str]):
        self.options = options
        super().__init__(f"'{what}' is ambiguous: it could be {', '.join(options)}")


class DiceNeeded(HeraldError):
    """Physical-dice mode: the supplied results ran out; `count` more are needed for `purpose`,
    each a face of a d`sides` (0 when unknown)."""

    def __init__(self, purpose: str, count: int = 1, sides: int = 0, roller: str | None = None):
        self.purpose, self.count, self.sides, self.roller = purpose, count, sides, roller
        super().__init__(f"{count} die result(s) needed for {purpose}")


def once_cited(e: Illegal) -> Illegal:
    """A refusal whose reason already ends with its rule in brackets, "... (JdG [11], HERALD D62)",
    cites it once: the bracket becomes the section (it read "(JdG [11], HERALD D62) (JdG [11])")."""
    reason, section = e.reason, e.section
    cut = reason.rfind(" (")
    if section and cut >= 0 and reason.endswith(")") and section in reason[cut:]:
        return Illegal(reason[:cut], reason[cut + 2:-1])
    return e
