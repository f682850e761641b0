"""TACW's public view of a command (engine/core/public.py looks `public_command` up here; every
public reader of the log uses it: /explain, the board at an earlier point, the replay): the
Second Newbury boat bridge (special rule 5, DECISIONS.md D108) is TACW's one secret.

Parliament records the boat bridge's hex in secret with `boatbridge <hex>`; until one of its
units stands on it, nobody else may learn the hex. The engine keeps the hex out of every event
(D108), and the board draws it only once revealed (renders/tacw.py, `scenario_view(public=True)`);
what remains is the log itself. While the secret stands:
  - `boatbridge <hex>` is shown as `boatbridge (secret)`;
  - a command of the owner (or a referee correction) whose line names the hex, e.g. a move
    whose unwalked path ran over it, is shown as `<verb> (secret)`, and the hex is hidden in
    its events;
  - the other side's commands are shown as given: they cannot name a hex they do not know, and
    hiding a public hex that happens to be the secret one would itself give the secret away.
Once revealed, the log shows everything. Hidden keys of events (a hand, the seed...) are dropped
for every ruleset by engine/core/public.py.

`hidden_strings` and `private_verbs` name the same secret as strings (the tests and any caller
that builds its own redaction use them); `public_command` is what the readers of the log call.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from engine.core.public import SECRET, PublicCommand, public_event, redacted_command
from engine.core.referee import REFEREE

PRIVATE_VERB = "boatbridge"


def _secret_boat(state: Any) -> str:
    """The boat bridge's hex while only its owner knows it, else ''."""
    from engine.tacw.battles.second_newbury import boat_bridge_hex
    recorded = boat_bridge_hex(state, secret=True)
    return recorded if recorded and not boat_bridge_hex(state) else ""


def _owner(scenario: Any) -> str | None:
    from engine.tacw.battles.second_newbury import params
    try:
        return (params(scenario, "boat_bridge") or {}).get("side")
    except Exception:           # a scenario without special rules
        return None


def hidden_strings(scenario: Any, state: Any) -> set[str]:
    boat = _secret_boat(state)
    return {boat} if boat else set()


def private_verbs(scenario: Any, state: Any) -> set[str]:
    return {PRIVATE_VERB} if _secret_boat(state) else set()


def public_command(scenario: Any, state: Any, side: str | None, text: str,
                   events: Iterable[Any]) -> PublicCommand:
    """The command as every player and spectator may see it while the game stands at `state`."""
    boat = _secret_boat(state)
    if not boat:
        return redacted_command(text, events)
    verb = text.split(" ", 1)[0] if text else ""
    if verb == PRIVATE_VERB:
        return redacted_command(text, events, (boat,), (PRIVATE_VERB,))
    if side in (_owner(scenario), REFEREE):
        names_it = re.search(rf"(?<!\w){re.escape(boat)}(?!\w)", text) is not None
        shown = f"{verb} {SECRET}" if names_it else text
        return PublicCommand(shown, [public_event(e, (boat,)) for e in events], names_it)
    return redacted_command(text, events)
