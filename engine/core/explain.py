"""`/explain`: the full calculation of an adjudication, readable with the rulebook open (DESIGN
principle 3: every roll explains itself).

An entry of the log is one accepted command and the events it produced. Each event that
adjudicated something (it drew dice, or carries a base number, modifiers or a table) is shown in
full: the base value (or the die roll the table is entered with), each modifier with its reason
and rule section, the total, the table and row, each die with its face and effect, and the
result; the other events of the same command follow as one line each, in order, so the reader
sees what the result did (the retreats, the losses, the flag taken).

Hidden information is never shown (DESIGN: per-player views): `entry_for_view` gives an entry
as everyone may see it before it is formatted, through the one public view of a command that
every reader of the log shares (engine/core/public.py: hidden keys dropped for every ruleset;
each ruleset's own secrets, e.g. TACW's Second Newbury boat bridge, D108, in
`engine/<ruleset>/hidden.py`).

Pure: no discord, sqlite or Pillow. The section titles come in through a `titles` callable
(`RulesIndex.title_of`), so the text names "BC §4.6 Retreats" when an index exists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from .events import DieRoll, Event
from .public import HIDDEN_KEYS, SECRET, public_command, redacted_command  # noqa: F401

MAX_VALUE = 300          # characters of one outcome value (a campaign report can be long)

Titles = Callable[[str, str], "str | None"]     # (citation, hint words) -> section title


@dataclass
class Entry:
    """One command of the log as /explain sees it."""
    seq: int
    side: str | None
    text: str
    events: list[Event]
    undone: bool = False
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_record(cls, seq: int, side: str | None, text: str, events: Iterable[Any],
                    undone: bool = False) -> "Entry":
        return cls(seq, side, text, [e if isinstance(e, Event) else Event.from_dict(e) for e in events], undone)

    @property
    def adjudications(self) -> list[Event]:
        return [e for e in self.events if is_adjudication(e)]


def is_adjudication(event: Event) -> bool:
    """An event that decided something by dice or by a table (not a move or a card played)."""
    return bool(event.dice or event.modifiers or event.base is not None or event.table)


# == hidden information ==========================================================================
# One public view of a command for every reader of the log (engine/core/public.py): /explain, the
# board at an earlier point and the replay all hide the same things the same way.

def public_entry(entry: Entry, secrets: Iterable[str] = (), private: Iterable[str] = ()) -> Entry:
    """The entry with hidden keys dropped, `secrets` replaced and a `private` verb's words
    withheld (the common rule of engine/core/public.py, for a caller that names its secrets)."""
    view = redacted_command(entry.text, entry.events, secrets, private if secrets else ())
    return replace(entry, text=view.text, events=view.events)


def entry_for_view(entry: Entry, ruleset: Any, scenario: Any, state: Any) -> Entry:
    """The entry as every player and spectator may see it while the game stands at `state`
    (the ruleset's own public view: engine/core/public.py `public_command`)."""
    view = public_command(ruleset, scenario, state, entry.side, entry.text, entry.events)
    return replace(entry, text=view.text, events=view.events)


# == formatting ==================================================================================

def _words(key: str) -> str:
    return str(key).replace("_", " ")


def _value(v: Any) -> str:
    if isinstance(v, bool):
        out = "yes" if v else "no"
    elif v is None:
        out = "none"
    elif isinstance(v, (list, tuple)):
        out = ", ".join(_value(x) for x in v) or "none"
    elif isinstance(v, dict):
        out = "; ".join(f"{_words(k)} {_value(x)}" for k, x in v.items()) or "none"
    elif isinstance(v, str) and re.fullmatch(r"[a-z]+(?:_[a-z]+)+", v):
        out = v.replace("_", " ")            # a result code in words: "no_effect" -> "no effect"
    else:
        out = str(v)
    return out if len(out) <= MAX_VALUE else out[: MAX_VALUE - 1] + "…"


def _cite(citation: str, titles: Titles | None, hint: str = "") -> str:
    if not citation:
        return ""
    title = None
    if titles is not None:
        try:
            title = titles(citation, hint)
        except Exception:       # a broken index never breaks an explanation
            title = None
    return f"{citation} ({title})" if title and title.lower() not in citation.lower() else citation


def roll_is_base(event: Event) -> bool:
    """Tables entered with one die plus modifiers (TACW): the base is the die itself. Symbol dice
    (Battle Cry) count dice instead, so a face name marks them."""
    return (event.base is not None and len(event.dice) == 1 and not event.dice[0].face
            and event.dice[0].result == event.base)


def _die_line(d: DieRoll) -> str:
    face = f" {d.face}" if d.face else ""
    effect = f" -> {d.effect}" if d.effect else ""
    return f"{d.purpose} ({d.die}): {d.result}{face}{effect}"


def format_event(event: Event, titles: Titles | None = None) -> list[str]:
    """The calculation of one adjudication, as plain lines (the bot puts them in a code block)."""
    kind = _words(event.kind).replace("-", " ").capitalize()
    lines = [f"{kind} · {_cite(event.section, titles)}", f"  {event.narrative}"]
    pad = "  {:<9} {}"
    if event.inputs:
        lines.append(pad.format("Inputs", " · ".join(f"{_words(k)} {_value(v)}" for k, v in event.inputs.items())))
    base_is_roll = roll_is_base(event)
    if event.base is not None:
        if base_is_roll:
            d = event.dice[0]
            lines.append(pad.format("Roll", f"{event.base}  ({d.purpose}, {d.die})"))
        else:
            lines.append(pad.format("Base", str(event.base)))
    for m in event.modifiers:
        lines.append(pad.format(f"{m.value:+d}", f"{m.reason}  [{_cite(m.section, titles, m.reason)}]"))
    if event.base is not None and event.modifiers:
        lines.append(pad.format("Total", str(event.base + sum(m.value for m in event.modifiers))))
    if event.table or event.row:
        table = _cite(event.table or "", titles) if event.table else ""
        row = f"row: {event.row}" if event.row else ""
        lines.append(pad.format("Table", ", ".join(p for p in (table, row) if p)))
    dice = [] if base_is_roll else event.dice
    for i, d in enumerate(dice):
        lines.append(pad.format("Dice" if i == 0 else "", _die_line(d)))
    if event.outcome:
        lines.append(pad.format("Result", " · ".join(f"{_words(k)} {_value(v)}" for k, v in event.outcome.items())))
    return lines


def shown_command(text: str, note: bool = True) -> str:
    """The command as a player reads it: a `dice=` word (the results the players entered, kept
    in the engine's 1-based faces so the line replays) is left out, since each die is shown
    below as the rules read it (a TACW d10 0-9), and said instead (unless `note` is False)."""
    words = (text or "").split()
    kept = [w for w in words if not w.lower().startswith("dice=")]
    return " ".join(kept) + (" (dice entered by the players)" if note and len(kept) < len(words) else "")


def entry_title(entry: Entry) -> str:
    side = (entry.side or "").title() or "Herald"
    return f"#{entry.seq} · {side} · {shown_command(entry.text)}" + (" (undone)" if entry.undone else "")


def format_entry(entry: Entry, titles: Titles | None = None, *, markdown: bool = True) -> list[str]:
    """The explanation of one log entry as blocks of text (each block fits a message on its own
    unless one adjudication is enormous): a heading, each adjudication's calculation, and the
    other events' narratives, in the order they happened."""
    head = entry_title(entry)
    blocks = [f"**{head}**" if markdown else head]
    if entry.undone:
        blocks.append("This action was taken back (undone): it stays in the log but no longer counts.")
    blocks += entry.notes
    if not entry.adjudications:
        blocks.append("No die was rolled and no table consulted in this entry; what it did:")
    for e in entry.events:
        if is_adjudication(e):
            body = "\n".join(format_event(e, titles))
            blocks.append(f"```\n{body}\n```" if markdown else body)
        else:
            cite = f" ({_cite(e.section, titles)})" if e.section else ""
            blocks.append(f"→ {e.narrative}{cite}")
    if not entry.events:
        blocks.append("(no event was recorded)")
    return blocks


def entry_label(entry: Entry, limit: int = 100) -> str:
    """One line naming an entry for a picker: '#12 Union: battle ui1 0607 - ui1 battles ...'."""
    first = entry.adjudications[0].narrative if entry.adjudications else (entry.events[0].narrative if entry.events else "")
    side = (entry.side or "").title()
    text = f"#{entry.seq} {side}: {shown_command(entry.text, note=False)}" + (" (undone)" if entry.undone else "") + (f" — {first}" if first else "")
    return text if len(text) <= limit else text[: limit - 1] + "…"
