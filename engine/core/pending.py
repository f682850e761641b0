"""Pending decisions (DESIGN): when the rules hand a choice to a player in the middle of another's
action, the engine stops and says who must answer and with which commands. Buttons and the CLI
are two faces of the same answer: each `Answer` is a line of the command language."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    label: str       # what a button says, e.g. "Retreat to 0404", "Bypass with Rupert's wing"
    line: str        # the command that gives this answer, e.g. "retreat 0404"


@dataclass(frozen=True)
class PendingDecision:
    kind: str                      # "retreat", "bypass", "reaction_fire", ...
    side: str                      # who must answer
    prompt: str                    # one line for people
    answers: tuple[Answer, ...]    # every legal answer
    section: str = ""              # the rule that asks


def answer_hint(answers, limit: int = 8) -> str:
    """The answer commands in one short line, from the answers' own lines: "bypass p-left|none",
    "retreat 0404|0405", "react r-musketeers|none" (more than `limit` choices end with "|…")."""
    by_verb: dict[str, list[str]] = {}
    for a in answers:
        verb, _, rest = a.line.partition(" ")
        by_verb.setdefault(verb, [])
        if rest:
            by_verb[verb].append(rest)
    parts = []
    for verb, args in by_verb.items():
        shown = args[:limit] + (["…"] if len(args) > limit else [])
        parts.append(f"{verb} {'|'.join(shown)}" if shown else verb)
    return " or ".join(parts)


def waiting_line(decision: PendingDecision) -> str:
    """What a reply says when the game waits on a player: who, what, and the command that answers,
    e.g. "Waiting for Parliament: may attempt a bypass (TACW §4.4). Answer: `bypass p-left|none`"."""
    side = decision.side.title()
    prompt = decision.prompt
    if prompt.lower().startswith(decision.side.lower() + " "):      # "Parliament may ..." -> "may ..."
        prompt = prompt[len(decision.side) + 1:]
    hint = answer_hint(decision.answers)
    return (f"Waiting for {side}: {prompt}" + (f" ({decision.section})" if decision.section else "")
            + (f". Answer: `{hint}`" if hint else ""))
