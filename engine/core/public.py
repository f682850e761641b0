"""The public view of a command: what every player and spectator may see of one log entry (DESIGN:
"Hidden information is filtered by a per-player view"; renders and replies for a channel use
the public view). One function answers it for every reader of the log: the board at an earlier
point and the replay's captions (bot/history.py), `/explain` (engine/core/explain.py), and any
later one.

    public_command(ruleset, scenario, state, side, text, events) -> PublicCommand

`state` is the game as it stands NOW (not as it stood when the command was given): a secret
still kept now is kept in every earlier entry; one revealed since is shown everywhere.

What every ruleset gets (`redacted_command`):
  - keys of an event's `inputs`/`outcome` that name hidden things (a hand, the deck, a card
    drawn, the seed, a secret) are dropped (HIDDEN_KEYS);
  - the command line and the events lose the secret strings the ruleset names, and a private
    verb's words are withheld entirely.

Each ruleset may refine it with its own `public_command(scenario, state, side, text, events)`:
a method of the ruleset object, or a function of an optional module `engine/<ruleset>/hidden.py`
(TACW: engine/tacw/hidden.py, the Second Newbury boat bridge). A ruleset with neither gets
`redacted_command` with no secret strings: Battle Cry, whose hidden information is the hands and
the deck order (BC §3.1); no Battle Cry event names a card drawn or held (a card is named when it
is played or discarded, face up, BC §3.2), and the dropped keys guard against one ever doing so.

Pure: no discord, sqlite or Pillow.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping

from .events import DieRoll, Event, Modifier

SECRET = "(secret)"
# Keys of inputs/outcome that would name hidden information; dropped from every public view.
HIDDEN_KEYS = frozenset({"hand", "hands", "deck", "drawn", "draw", "draws", "card_drawn", "cards_drawn",
                         "secret", "secrets", "hidden", "seed", "private"})


@dataclass(frozen=True)
class PublicCommand:
    """One log entry as everyone may see it: the command line and its events, redacted."""
    text: str
    events: list[Event] = field(default_factory=list)
    withheld: bool = False          # the command's words are secret (a private verb)

    @property
    def narratives(self) -> tuple[str, ...]:
        return tuple(e.narrative for e in self.events if e.narrative)


def _event(e: Event | Mapping[str, Any]) -> Event:
    return e if isinstance(e, Event) else Event.from_dict(dict(e))


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """`value` with hidden keys dropped and every secret string (a whole word: hex 3338 is not
    hidden inside 13338) replaced by SECRET."""
    secrets = [s for s in secrets if s]
    if isinstance(value, str):
        for s in secrets:
            value = re.sub(rf"(?<!\w){re.escape(s)}(?!\w)", SECRET, value)
        return value
    if isinstance(value, dict):
        return {redact(k, secrets): redact(v, secrets) for k, v in value.items()
                if str(k).lower() not in HIDDEN_KEYS}
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v, secrets) for v in value)
    return value


def public_event(event: Event | Mapping[str, Any], secrets: Iterable[str] = ()) -> Event:
    """The event without hidden keys and with the secret strings replaced."""
    event = _event(event)
    r = lambda v: redact(v, secrets)   # noqa: E731
    return replace(event, actor=r(event.actor), section=r(event.section), narrative=r(event.narrative),
                   inputs=r(dict(event.inputs)), outcome=r(dict(event.outcome)), table=r(event.table),
                   row=r(event.row), modifiers=[Modifier(m.value, r(m.reason), r(m.section)) for m in event.modifiers],
                   dice=[DieRoll(r(d.purpose), d.die, d.result, r(d.face), r(d.effect)) for d in event.dice])


def redacted_command(text: str, events: Iterable[Any], secrets: Iterable[str] = (),
                     private_verbs: Iterable[str] = ()) -> PublicCommand:
    """The common public view: hidden keys dropped, `secrets` replaced, and the words of a verb
    in `private_verbs` withheld (`boatbridge (secret)`)."""
    secrets = [s for s in secrets if s]
    verb = text.split(" ", 1)[0] if text else ""
    withheld = verb in set(private_verbs)
    shown = f"{verb} {SECRET}" if withheld else redact(text, secrets)
    return PublicCommand(shown, [public_event(e, secrets) for e in events], withheld)


def _hidden_module(ruleset: Any):
    rid = getattr(ruleset, "id", None)
    if not rid:
        return None
    name = f"engine.{rid}.hidden"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name in (name, f"engine.{rid}"):
            return None
        raise


def ruleset_public_command(ruleset: Any) -> Callable[..., PublicCommand] | None:
    """The ruleset's own `public_command(scenario, state, side, text, events)`, if it has one."""
    fn = getattr(ruleset, "public_command", None)
    return fn if fn is not None else getattr(_hidden_module(ruleset), "public_command", None)


def public_command(ruleset: Any, scenario: Any, state: Any, side: str | None, text: str,
                   events: Iterable[Any]) -> PublicCommand:
    """One log entry (`side` gave `text`, which produced `events`: Event objects or their dicts)
    as every player and spectator may see it while the game stands at `state`."""
    events = [_event(e) for e in events or ()]
    fn = ruleset_public_command(ruleset)
    if fn is None:
        return redacted_command(text or "", events)
    return fn(scenario, state, side, text or "", events)
