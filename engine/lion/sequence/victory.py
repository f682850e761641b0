"""Demoralisation [11] and victory [14].

[11 A] "Quando un esercito ha perduto il 40% (arrotondato per eccesso) del numero totale delle sue
unità, esso è demoralizzato." Its effects: -1 on rally rolls (rally.py) and the dearer moves of
command.move_cost. [11 B] "Una volta demoralizzato, un esercito non può più riassumere lo status
normale." Losses are weighted (checks.weighted_losses: P&S 2, Tercio 3, the C-in-C 2, a
sub-commander 1, a captured camp 2/3/5 [12 A]; returned reinforcements count for victory only
[12 B]).

[14 A] "Il giocatore che per primo elimina il 60% delle unità nemiche è il vincitore": decisive
when he lost under 30% himself, partial from 30 to 40%, Pyrrhic above 40% (tables.victory_level).
[14 B] a battle ended by the sunset without a 60% victory is a draw, unless only one army is
demoralised: the other then wins a partial victory. The scenario's turn limit (HERALD D25) ends it
the same way.

Herald checks after every command (`check`, from cards.advance): demoralisation first, then
victory. Both sides reaching 60% with the same command: the one that took the larger share of the
enemy wins; the same share is a draw (HERALD D55).
"""
from __future__ import annotations

from engine.core.events import Event

from engine.lion import checks, tables
from engine.lion.state import SIDES, LionState


def pct(n: int, total: int) -> str:
    return f"{(100 * n / total) if total else 0:.0f}%"


def check(sc, st: LionState) -> list[Event]:
    """Demoralisation [11 A] and the 60% victory [14 A], after each command."""
    if st.phase == "over":
        return []
    events: list[Event] = []
    losses = {side: checks.weighted_losses(sc, st, side) for side in SIDES}
    for side in SIDES:
        army = st.armies.get(side)
        lo = losses[side]
        if army is None or army.demoralised or not lo["total"]:
            continue
        if lo["demoralisation"] >= lo["demoralised_at"]:
            army.demoralised = True
            events.append(Event("demoralised", side, "LdN [11 A]",
                                f"The {side.title()} army is demoralised: it has lost {lo['demoralisation']} of "
                                f"{lo['total']} ({pct(lo['demoralisation'], lo['total'])}; 40% rounded up is "
                                f"{lo['demoralised_at']}); for good",
                                outcome={"side": side, "lost": lo["demoralisation"], "total": lo["total"],
                                         "threshold": lo["demoralised_at"]}))
    beaten = [side for side in SIDES
              if losses[side]["total"] and losses[side]["victory"] >= losses[side]["beaten_at"]]
    if not beaten:
        return events
    if len(beaten) == 2:
        share = {side: losses[side]["victory"] / losses[side]["total"] for side in SIDES}
        if share[SIDES[0]] == share[SIDES[1]]:
            return events + finish(st, None, "both armies lost 60% at once, the same share: a draw (HERALD D55)",
                                   losses, "draw")
        beaten = [max(SIDES, key=lambda s: share[s])]
    loser = beaten[0]
    winner = st.other(loser)
    return events + finish(st, winner, "", losses, "")


def level_of(losses: dict, winner: str) -> str:
    """[14 A] the winner's own losses: under 30% decisive, 30-40% partial, over 40% Pyrrhic."""
    own = losses[winner]
    return tables.victory_level(own["victory"], own["total"])


def finish(st: LionState, winner: str | None, why: str, losses: dict, level: str) -> list[Event]:
    """End the battle: `winner` (None: a draw) with its level."""
    st.phase = "over"
    st.pending = None
    st.winner = winner
    if winner is not None and not level:
        level = level_of(losses, winner)
        loser = st.other(winner)
        lo, own = losses[loser], losses[winner]
        why = (f"the {loser.title()} army has lost {lo['victory']} of {lo['total']} ({pct(lo['victory'], lo['total'])}, "
               f"60% is {lo['beaten_at']}); {winner.title()} lost {own['victory']} of {own['total']} "
               f"({pct(own['victory'], own['total'])})")
    if winner is None:
        st.result = f"A draw: {why}"
    else:
        article = "an" if level[0] in "aeiou" else "a"
        st.result = f"{winner.title()} wins {article} {level} victory: {why}"
    return [Event("victory", winner or "", "LdN [14]", st.result,
                  outcome={"winner": winner, "level": level or "draw",
                           "losses": {s: {k: losses[s][k] for k in ("victory", "total", "demoralisation")}
                                      for s in SIDES}})]


def end_by_time(sc, st: LionState, why: str) -> list[Event]:
    """[14 B] the battle ends by the sunset (or the scenario's last turn, HERALD D25) with no 60%
    victory: a draw, unless only one army is demoralised: the other wins a partial victory."""
    if st.phase == "over":
        return []
    losses = {side: checks.weighted_losses(sc, st, side) for side in SIDES}
    demoralised = [s for s in SIDES if st.armies.get(s) is not None and st.armies[s].demoralised]
    if len(demoralised) == 1:
        winner = st.other(demoralised[0])
        return finish(st, winner, f"{why}; only the {demoralised[0].title()} army is demoralised (LdN [14 B])",
                      losses, "partial")
    both = "both armies are demoralised" if demoralised else "neither army is demoralised"
    return finish(st, None, f"{why}; {both} (LdN [14 B])", losses, "draw")


def summary(sc, st: LionState, side: str) -> str:
    """"lost 5/24 (40% at 10, 60% at 15)" for the status line."""
    lo = checks.weighted_losses(sc, st, side)
    demo = " demoralised" if st.armies.get(side) is not None and st.armies[side].demoralised else ""
    return (f"{side.title()}{demo}: lost {lo['victory']}/{lo['total']} "
            f"(40% at {lo['demoralised_at']}, 60% at {lo['beaten_at']})")
