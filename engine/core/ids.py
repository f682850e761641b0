"""Every id discoverable (issue 12): what a refusal of an unknown id says, for every ruleset.

A player who types a wing, unit, leader or card the game does not know is told the valid ones,
or, when there are many, the closest few (by spelling, and any whose id or name holds the word),
each with what it names: "'right' is not one of your wings: r-right (Royalist right wing),
r-centre (Royalist centre), r-left (Royalist left wing)".
"""
from __future__ import annotations

import difflib
import re
from typing import Iterable

ALL_UP_TO = 8          # up to this many valid ids: list them all
CLOSEST = 5            # else: the closest few


def closest(word: str, pairs: Iterable[tuple[str, str]], n: int = CLOSEST) -> list[tuple[str, str]]:
    """The (id, label) pairs nearest to `word`: those whose id or label holds it first, then the
    nearest ids and labels by spelling."""
    pairs = list(pairs)
    word = (word or "").lower().strip()
    if not word:
        return []
    by_id = {i.lower(): (i, label) for i, label in pairs}
    hits: list[str] = [i for i, label in pairs if len(word) >= 3 and (word in i.lower() or word in label.lower())]
    ids = list(by_id)
    hits += difflib.get_close_matches(word, ids, n=n, cutoff=0.5)
    labels = {label.lower(): i for i, label in pairs}
    hits += [labels[m] for m in difflib.get_close_matches(word, list(labels), n=n, cutoff=0.6)]
    for i, label in pairs:                       # a word of a name, misspelt: "bnside" for Burnside's
        words = [w for w in re.split(r"[^a-z0-9]+", label.lower()) if len(w) > 2]
        if difflib.get_close_matches(word, words, n=1, cutoff=0.75):
            hits.append(i)
    out = []
    for h in dict.fromkeys(x.lower() for x in hits):
        out.append(by_id[h])
        if len(out) >= n:
            break
    return out


def listing(pairs: Iterable[tuple[str, str]]) -> str:
    """"id (label), id (label)": a label equal to its id is not repeated."""
    return ", ".join(i if not label or label == i else f"{i} ({label})" for i, label in pairs)


def valid_ids(word: str, pairs: Iterable[tuple[str, str]], *, query: str = "") -> str:
    """What follows a refusal of `word`: every valid id when there are few, else the closest few
    and how many there are (and the question that lists them, e.g. `units`); "" when none."""
    pairs = list(pairs)
    if not pairs:
        return ""
    if len(pairs) <= ALL_UP_TO:
        return listing(pairs)
    near = closest(word, pairs)
    more = f"{len(pairs)} in all" + (f"; `{query}` lists them" if query else "")
    if not near:
        return f"none is close ({more})"
    return f"closest: {listing(near)} ({more})"


def unknown(word: str, what: str, pairs: Iterable[tuple[str, str]], *, query: str = "") -> str:
    """The whole refusal: "'right' is not one of your wings: r-right (...), ..."."""
    tail = valid_ids(word, pairs, query=query)
    return f"'{word}' is not {what}" + (f": {tail}" if tail else "")
