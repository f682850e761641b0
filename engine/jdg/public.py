"""What each player may see of a Jours de Gloire game (DESIGN: "Hidden information is filtered by a
per-player view of the state").

The game's secrets (HERALD D10, D11, D72):
  - the orders each side gave in phase A [2.3]: a formation's With/Without Orders status is hidden
    from the other side until its first activation reveals it [2.4] (and published in phase F);
  - a combined marker (IAC) chosen in secret and put in the cup "all'insaputa" of the opponent
    (Marengo D 2.1 L937) until it is drawn or picked; a secret IAC left last in the cup stays
    unnamed;
  - the seed, which would tell every draw to come.

    view(sc, st, viewer) -> JdgState      a copy with what `viewer` may not see masked (viewer None:
                                          the channel, which sees neither side's secrets)
    view_dict(st, viewer) -> dict         the same as JSON-ready data, without seed and draws
                                          (JdgState.public_view; bot/undo.py compares it)
    public_command(sc, st, side, text, events) -> PublicCommand
                                          one log entry as everyone sees it (engine/core/public.py
                                          finds it as the ruleset's `public_command`): the words
                                          of `orders` and `combined` are withheld, both shown as
                                          `orders (secret)`, so the log does not tell which was
                                          given; the events' hidden keys (`secret`) are dropped.
"""
from __future__ import annotations

from typing import Any, Iterable

from engine.core.public import SECRET, PublicCommand, public_event

from engine.jdg.state import JdgState

PRIVATE_VERBS = ("orders", "combined")
UNKNOWN_ORDERS = ""                     # a masked formation's orders: not known to the viewer


def secret_markers(st: JdgState, viewer: str | None) -> set[str]:
    """The combined markers `viewer` may not see: the other side's, still secret."""
    return {m.id for m in st.markers.values()
            if m.kind == "combined" and m.secret and m.side != viewer}


def view(sc, st: JdgState, viewer: str | None = None) -> JdgState:
    """A copy of `st` as `viewer` may see it (None: the public channel)."""
    out = st.copy()
    for f in out.formations.values():
        if f.side != viewer and not f.revealed:
            f.orders = UNKNOWN_ORDERS
            f.initiative_success = False
            for g in f.groups:          # tactical groups' orders (optional 2.3, HERALD D66)
                g["orders"] = UNKNOWN_ORDERS
    hidden = secret_markers(st, viewer)
    if hidden:
        out.cup = [m for m in out.cup if m not in hidden]
        out.used_once = [m for m in out.used_once if m not in hidden]
        out.set_aside = [m for m in out.set_aside if m not in hidden]
        if out.chosen_marker in hidden:
            out.chosen_marker = ""
    out.seed = ""
    return out


def view_dict(st: JdgState, viewer: str | None = None) -> dict[str, Any]:
    """`view` as data, without the seed and the count of draws (which would change with a hidden
    draw from the cup: bot/undo.py then refuses to take it back)."""
    d = view(None, st, viewer).to_dict()
    d.pop("seed", None)
    d.pop("draws", None)
    return d


def public_command(sc, st: JdgState, side: str | None, text: str, events: Iterable[Any]) -> PublicCommand:
    """One log entry as every player and spectator may see it: a secret verb's words withheld (and
    `combined` shown as `orders`, so nobody learns a combined marker was chosen), hidden keys of
    the events dropped, and a still-secret IAC's id hidden wherever it appears."""
    verb = text.split(" ", 1)[0] if text else ""
    secrets = sorted(secret_markers(st, None))
    shown_events = [public_event(e, secrets) for e in events]
    if verb in PRIVATE_VERBS:
        return PublicCommand(f"orders {SECRET}", shown_events, True)
    from engine.core.public import redact
    return PublicCommand(redact(text, secrets), shown_events, False)
