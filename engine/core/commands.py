"""One command language for Discord and the CLI (DESIGN principle 5).

A command is a verb and its words, e.g. ``move i3 0504 0505`` or ``play probe left``. Slash
commands build the same line the CLI reads, so both reach the engine through `parse`.
An optional ``dice=`` word carries die results supplied by the players (physical dice): the
engine's face numbers, or the names a ruleset gives its faces (`dice_faces`, e.g. Battle Cry's
``dice=flag,sabres``), stored as numbers so the text of a command stays canonical.
"""
from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

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


def dice_faces(ruleset: Any) -> Mapping[str, int] | None:
    """The names a ruleset gives its dice faces, for `dice=` (None: numbers only)."""
    return getattr(ruleset, "dice_faces", None)


def _die(word: str, faces: Mapping[str, int] | None) -> int:
    try:
        return int(word)
    except ValueError:
        pass
    if faces and word.lower() in faces:
        return faces[word.lower()]
    names = f" or face names ({', '.join(sorted({k for k in faces if len(k) > 1}))})" if faces else ""
    raise CannotParse(f"dice= takes numbers{names} separated by commas, not '{word}'")


def parse(line: str, faces: Mapping[str, int] | None = None) -> Command:
    """Split a line into a Command. Words are lower-cased; '#' starts a comment. `faces`: the
    ruleset's names for its dice faces (`dice_faces`), read in `dice=` as their numbers."""
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
            dice.extend(_die(x, faces) for x in w[5:].split(",") if x)
        else:
            rest.append(w.lower())
    if not rest:
        raise CannotParse("a command needs a verb")
    return Command(rest[0], tuple(rest[1:]), tuple(dice))


def split_side(line: str, sides: Iterable[str]) -> tuple[str | None, str]:
    """A script line `side: command` (the CLI's and /act's form): the side it names, if it names
    one of `sides`, and the command."""
    sides = tuple(sides)
    head, sep, rest = line.partition(":")
    side = None
    if sep and head.strip().lower() in sides:
        side, line = head.strip().lower(), rest
        head, sep, rest = line.partition(":")
    word = head.strip()
    if sep and word and " " not in word and "#" not in word and "=" not in word:
        # `napoleon: end`, `union: napoleon: end`: a prefix that names no side of the battle
        which = f"one of {', '.join(sides)}" if sides else "a side"
        raise CannotParse(f"'{word}:' is not a side of this battle: a line starts with {which} and a "
                          "colon, or with the command alone"
                          + (" (it names a side once)" if side else ""))
    return side, line.strip()
