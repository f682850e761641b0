"""What each player may see of an Italian Wars game (DESIGN: "Hidden information is filtered by a
per-player view of the state"), after Jours de Gloire's secret orders (engine/jdg/public.py).

The text's secrets (HERALD D4):
  - the written orders (IW Prima della battaglia 8, IW Fase di Comando): a battle's order is
    hidden from the enemy until the battle acts on it (its activation) or is tested (the
    interpretation's result is public);
  - the Ecu bribes (IW Prima della battaglia 9, IW Tesoro): the battle, the Ecu and their
    direction are hidden until the interpretation roll they change, whose event names them;
    each side's treasury is its own;
  - the deployment map (IW Prima della battaglia 5): a battle's written place is hidden until it
    is placed; companies in ambush (and hidden skirmishers) stay off the enemy's view until seen;
  - the seed, which would tell every die to come.

    view(sc, st, viewer) -> IWState          a copy with what `viewer` may not see masked (viewer
                                             None: the channel, which sees neither side's secrets)
    public_command(sc, st, side, text, events) -> PublicCommand
                                             one log entry as everyone sees it NOW: a secret verb
                                             (deploy, ambush, order, bribe) is shown `order
                                             (secret)` until every secret it wrote is revealed
                                             (its key in `st.revealed`), then in full; the
                                             events' hidden keys (`secret`) are always dropped.

Each secret verb's event keeps what it wrote under `inputs["secret"]` (dropped from every public
view), with a `key` ("order:<battle>:<turn>", "bribe:<battle>:<turn>:<n>", "deploy:<battle>",
"ambush:<side>") that the rule revealing it appends to `st.revealed` (sequence/command.py,
sequence/activation.py, sequence/prebattle.py).
"""
from __future__ import annotations

from typing import Any, Iterable

from engine.core.events import Event
from engine.core.public import SECRET, PublicCommand, public_event, redact

from engine.italianwars.state import IWState
from engine.italianwars.verbs import SECRET_VERBS

UNKNOWN_ORDER = ""            # a masked battle's order: not known to the viewer


def revealed_keys(st: IWState) -> set[str]:
    return set(getattr(st, "revealed", None) or (st.options or {}).get("revealed", []) or [])


def reveal(st: IWState, key: str) -> None:
    """Mark a secret as revealed: every log entry that wrote it is shown in full from now on."""
    if hasattr(st, "revealed"):
        if key not in st.revealed:
            st.revealed.append(key)
        return
    keys = st.options.setdefault("revealed", [])
    if key not in keys:
        keys.append(key)


def view(sc, st: IWState, viewer: str | None = None) -> IWState:
    """A copy of `st` as `viewer` may see it (None: the public channel; HERALD D65)."""
    out = st.copy()
    for b in out.battles.values():
        if b.side != viewer and not b.revealed:
            b.order = UNKNOWN_ORDER
            b.objective = ""
    for side in list(out.secrets):
        if side != viewer:
            out.secrets[side] = {}
    for cid in sorted(out.companies):
        c = out.companies[cid]
        if c.side != viewer and c.hidden:
            del out.companies[cid]
    for side, army in out.armies.items():
        if side != viewer:
            army.ecu = 0
    if out.pending and out.pending.get("secret") and out.pending.get("side") != viewer:
        out.pending = {k: v for k, v in out.pending.items() if k != "secret"}
    out.seed = ""
    return out


def _keys(events: Iterable[Event]) -> list[str]:
    keys = []
    for e in events:
        s = (e.inputs or {}).get("secret")
        if isinstance(s, dict) and s.get("key"):
            keys.append(s["key"])
        for k in (s or {}).get("keys", []) if isinstance(s, dict) else []:
            keys.append(k)
    return keys


def public_command(sc, st: IWState, side: str | None, text: str, events: Iterable[Any]) -> PublicCommand:
    """One log entry as every player and spectator may see it while the game stands at `st`: a
    secret verb's words withheld until what it wrote is revealed; hidden keys of the events
    dropped; hidden companies' ids (an ambush not yet sprung) replaced by "(secret)"."""
    events = [e if isinstance(e, Event) else Event.from_dict(dict(e)) for e in events]
    verb = text.split(" ", 1)[0] if text else ""
    hidden = sorted(c.id for c in st.companies.values() if c.hidden)
    shown_events = [public_event(e, hidden) for e in events]
    if verb in SECRET_VERBS:
        keys = _keys(events)
        done = revealed_keys(st)
        if not keys or any(k not in done for k in keys):
            return PublicCommand(f"{verb} {SECRET}", shown_events, True)
    return PublicCommand(redact(text, hidden), shown_events, False)
