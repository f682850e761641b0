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


def answer_pending(pending: dict | None, side: str, args: list[str], resumers: dict, section: str):
    """The `react` verb of a ruleset that keeps its decision as `state.pending = {"kind", "side",
    "options", "section", ...}` and a resumer per kind: checks that a decision waits, that `side`
    owes it and that the answer is one of its options; returns (resumer, answer, the words after
    it). `section` is cited when the decision names none."""
    from .errors import CannotParse, Illegal
    if not pending:
        raise Illegal("no decision is waiting", section)
    if pending["side"] != side:
        raise Illegal(f"the decision is {pending['side'].title()}'s", pending.get("section", section))
    if not args:
        raise CannotParse("usage: react " + "|".join(pending.get("options", [])))
    answer = args[0].lower()
    if pending.get("options") and answer not in pending["options"]:
        raise Illegal(f"answer one of: {', '.join(pending['options'])}", pending.get("section"))
    resume = resumers.get(pending["kind"])
    if resume is None:
        raise Illegal(f"no rule answers a '{pending['kind']}' decision", pending.get("section"))
    return resume, answer, list(args[1:])


def decision_of(pending: dict | None) -> PendingDecision | None:
    """The PendingDecision of a ruleset's `state.pending` dict ({"kind", "side", "options",
    "labels", "prompt", "section", "default"}): each option answered by `react <option>`."""
    if not pending:
        return None
    labels = pending.get("labels", {})
    answers = tuple(Answer(labels.get(o, o.replace("_", " ").capitalize()), f"react {o}")
                    for o in pending.get("options", []))
    return PendingDecision(pending["kind"], pending["side"],
                           pending.get("prompt", pending["kind"].replace("_", " ")), answers,
                           pending.get("section", ""))


def default_answer_of(pending: dict | None) -> str | None:
    """The answer a deadline gives for such a decision: its `default`, else its first option."""
    if not pending:
        return None
    return f"react {pending.get('default', (pending.get('options') or ['none'])[0])}"


def decision_event(pending: dict, section: str):
    """The log's line for a decision a command leaves owed (DESIGN: pending decisions): who, what,
    the rule (`section` when the decision names none) and the answers, so /game log and /explain
    read why the game waits."""
    from .events import Event
    answers = "|".join(pending.get("options", []))
    return Event("decision", pending["side"], pending.get("section", section),
                 f"Waiting for {pending['side'].title()}: "
                 f"{pending.get('prompt', pending['kind'].replace('_', ' '))}"
                 + (f": `react {answers}`" if answers else ""),
                 outcome={"kind": pending["kind"], "options": list(pending.get("options", []))})


def matching(pairs, prefix: str) -> list[tuple[str, str]]:
    """The (label, value) completions a typed `prefix` selects: a value starting with it or a
    label containing it (any case); all of them for an empty prefix."""
    p = (prefix or "").lower()
    return [(label, value) for label, value in pairs if not p or value.lower().startswith(p) or p in label.lower()]


def pending_answers(pending: dict | None, side: str | None, prefix: str) -> list[tuple[str, str]]:
    """The `react` answers of the decision `side` owes (its `labels` shown where it has them)."""
    if not pending or (side is not None and pending["side"] != side):
        return []
    labels = pending.get("labels", {})
    return matching([(labels.get(o, o), o) for o in pending.get("options", [])], prefix)
