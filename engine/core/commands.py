"""One command language for Discord and the CLI (DESIGN principle 5).

A command is a verb and its words, e.g. ``move i3 0504 0505`` or ``play probe left``. Slash
commands build the same line the CLI reads, so both reach the engine through `parse`.
An optional ``dice=`` word carries die results supplied by the players (physical dice).
"""
from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import CannotParse


@dataclass(frozen=True)
class Command:
    verb: str
    args: tuple[str, ...] = ()
    dice: tuple[int, ...] = field(default=())
    # False when `dice` is a longer queue to draw from (the CLI's --dice): unused results are
    # then left for the next command instead of being refused.
    exact_dice: bool = True

    @property
    def text(self) -> str:
        words = [self.verb, *self.args]
        if self.dice:
            words.append("dice=" + ",".join(str(d) for d in self.dice))
        return " ".join(words)


def parse(line: str) -> Command:
    """Split a line into a Command. Words are lower-cased; '#' starts a comment."""
    line = line.split("#", 1)[0].strip()
    if not line:
        raise CannotParse("empty command")
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise CannotParse(f"cannot read '{line}': {exc}") from None
    dice: list[int] = []
    rest = []
    for w in words:
        if w.lower().startswith("dice="):
            try:
                dice.extend(int(x) for x in w[5:].split(",") if x)
            except ValueError:
                raise CannotParse(f"dice= takes numbers separated by commas, not '{w[5:]}'") from None
        else:
            rest.append(w.lower())
    if not rest:
        raise CannotParse("a command needs a verb")
    return Command(rest[0], tuple(rest[1:]), tuple(dice))


def split_side(line: str, sides: Iterable[str]) -> tuple[str | None, str]:
    """A script line `side: command` (the CLI's and /act's form): the side it names, if it names
    one of `sides`, and the command."""
    head, sep, rest = line.partition(":")
    if sep and head.strip().lower() in sides:
        return head.strip().lower(), rest.strip()
    return None, line.strip()
