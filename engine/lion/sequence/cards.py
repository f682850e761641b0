"""The card-driven turn [3], [13]: Herald draws the cards, one at a time, and walks on by itself.

[3] "La sequenza di mossa è determinata pescando le relative Carte dal mazzo ... quando tutte le
carte sono esaurite il turno termina ed il mazzo viene rimescolato." [13] The nine cards: each
player's move, shoot, combat and rally cards, and the end card.

Herald's walk (`advance`, called after every command, HERALD D7, D42):
- between cards (step "draw") the next card is drawn from those not yet drawn this turn, with a
  seeded draw (no one knows the order); when none is left the turn ends;
- a move card [4 A]: its owner's Cpts are rolled at once, then he moves (step "act") until he
  says `next`; then the other player's contact fire [3] cards 7-8, [7 D] (step "contact_fire",
  performed by engine.lion.fire.shoot.contact_fire_step);
- a shoot or combat card: its owner acts until `next` (a card where he has nothing to do passes
  by itself: rules.register_card_check, HERALD D43);
- a rally card [10]: Herald rolls for every disordered unit of its owner (sequence/rally.py);
- the end card [13]: a d6: 1-4 the turn goes on, 5 a random event [15] then the turn goes on,
  6 the turn ends: the deck is shuffled again.
At the end of a turn the per-turn marks are cleared, the weather's countdowns run (rain [15] 5-6,
surprise march [15] 3, sunset [15] 2), the scenario's turn limit is checked (HERALD D25), and at
the start of the next turn limited visibility is tested [15] 1.

While a what-if runs (`/odds`, engine/core/odds.py: engine.core.dice.WHAT_IF is set) the walk stops
once the action asked about is done: before asking whether the card passes, and between cards
before the next card is drawn or the turn ends (HERALD D110): the draw is hidden information, and
the question is the action's, so its outcome is read there.
"""
from __future__ import annotations

import importlib

from engine.core.dice import WHAT_IF, DiceStream
from engine.core.events import Event

from engine.lion import checks, rules, tables
from engine.lion.rules import card_kind, card_name, card_owner
from engine.lion.state import CARDS, LionState

MAX_STEPS = 400       # a walk never loops for ever (a turn is at most nine cards)


# -- the walk -----------------------------------------------------------------------------------------

def advance(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """Walk the sequence on until a player must act or decide, or the battle is over."""
    from engine.lion.sequence import camps, victory
    events: list[Event] = []
    for _ in range(MAX_STEPS):
        if st.phase == "over":
            break
        events += camps.update(sc, st)
        events += victory.check(sc, st)
        if st.phase == "over" or st.pending:
            break
        if st.step == "act":
            if WHAT_IF.get() is not None:
                break       # a what-if's action is done: whether the card passes is no part of it (D110)
            if card_passes(sc, st):
                events.append(Event("card_passed", card_owner(st), "LdN [3]",
                                    f"{card_owner(st).title()} has nothing to do on the {card_name(st)}: it passes",
                                    outcome={"card": st.card}))
                events += finish_card(sc, st, stream)
                continue
            break
        if st.step == "contact_fire":
            events += contact_fire(sc, st, stream)
            if st.pending:
                break
            st.step = "draw"
            continue
        if WHAT_IF.get() is not None:
            break           # a what-if ends before the next card is drawn (HERALD D110)
        if not st.deck:
            events += end_turn(sc, st, stream, "all nine cards have been drawn (LdN [3])")
            continue
        events += draw_card(sc, st, stream)
    return events


def card_passes(sc, st: LionState) -> bool:
    """Whether the owner of the current card has nothing to do on it: every check registered
    for its kind says so (none registered: he is asked, HERALD D43)."""
    found = rules.CARD_CHECKS.get(card_kind(st.card), [])
    if not found:
        return False
    owner = card_owner(st)
    return not any(check(sc, st, owner) for check in found)


def draw_card(sc, st: LionState, stream: DiceStream, card: str | None = None) -> list[Event]:
    """Draw the next card from those left this turn (HERALD D7: a seeded draw; `card` forces one,
    for tests) and begin it [3], [13]."""
    if card is None:
        deck = [c for c in CARDS if c in st.deck]          # a fixed order to draw from
        card = deck[stream.randbelow(len(deck))]
    st.deck.remove(card)
    st.drawn.append(card)
    st.card = card
    kind, owner = card_kind(card), card_owner(st, card)
    n = len(st.drawn)
    text = tables.CARDS[card].english if card in tables.CARDS else card
    events = [Event("card", owner or "", "LdN [3], [13]",
                    f"Turn {st.turn}, card {n} of 9: the {card_name(st, card)}: {text}",
                    outcome={"card": card, "turn": st.turn, "drawn": n, "left": len(st.deck)})]
    if kind == "move":
        from engine.lion.sequence.command import roll_cpts
        for u in st.units.values():
            if u.side == owner:
                u.moved = False
        events.append(roll_cpts(sc, st, owner, stream))
        st.step = "act"
    elif kind == "shoot":
        for u in st.units.values():
            if checks.controller(u) == owner:
                u.shot = False
        st.step = "act"
    elif kind == "combat":
        for u in st.units.values():
            u.fought = False
        st.step = "act"
    elif kind == "rally":
        from engine.lion.sequence.rally import rally_card
        events += rally_card(sc, st, owner, stream)
        st.step = "draw"
    else:
        events += end_card(sc, st, stream)
    return events


def finish_card(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """The owner has done with his card: a move card goes on to the other player's contact fire
    [3] cards 7-8, [7 D] (Cpts not spent are lost, HERALD D42); any other card is over."""
    if card_kind(st.card) == "move":
        owner = card_owner(st)
        st.armies[owner].cpts = 0
        st.step = "contact_fire"
    else:
        st.step = "draw"
    return []


def contact_fire(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[3] cards 7-8 "Il Giocatore B, poi, spara contro le unità nemiche giunte a contatto sul
    proprio fronte", [7 D]: the player the move card does not name fires with his units that
    enemy bases touched this turn. The fire module performs it
    (`engine.lion.fire.shoot.contact_fire_step(sc, st, side, stream)`, `side` the firing side);
    until it exists the step is empty."""
    fire_side = st.other(card_owner(st))
    try:
        mod = importlib.import_module("engine.lion.fire.shoot")
    except ModuleNotFoundError as e:
        if e.name not in ("engine.lion.fire", "engine.lion.fire.shoot"):
            raise
        return []
    step = getattr(mod, "contact_fire_step", None)
    if step is None:
        return []
    return list(step(sc, st, fire_side, stream) or [])


# -- the end card [13] -------------------------------------------------------------------------------

def end_card(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """[13] "Lanciare 1d6. 1-4=Il turno continua: pescare un'altra carta. 5=Consultare la tabella
    degli eventi casuali, poi pescare un'altra carta. 6=Il turno termina. Mischiare il mazzo di
    carte e ricominciare"."""
    value, dr = checks.roll(stream, tables.END_CARD["die"], "the end card")
    result = tables.end_card_result(value)
    dr.effect = {"continue": "the turn goes on", "event": "a random event", "end_turn": "the turn ends"}[result]
    events = [Event("end_card", "", "LdN [13]", f"The end card: d6 {value}: {dr.effect}", dice=[dr],
                    table="end card: 1-4 continue, 5 random event, 6 end of turn", row=str(value),
                    outcome={"roll": value, "result": result})]
    st.step = "draw"
    if result == "event":
        from engine.lion.sequence.events import random_event
        events += random_event(sc, st, stream)
    elif result == "end_turn":
        events += end_turn(sc, st, stream, "the end card's d6 is a 6 (LdN [13])")
    return events


# -- the end of a turn -------------------------------------------------------------------------------

PER_TURN = {"moved": False, "turned": 0.0, "stopped_in": "", "shot": False, "fought": False}


def clear_turn_marks(st: LionState) -> None:
    """The marks that last one turn [3], [5 A], [7 D], [8 A] (state.Unit's per-turn fields)."""
    for u in st.units.values():
        for key, value in PER_TURN.items():
            setattr(u, key, value)
        u.contacted_by = []
        u.shot_faces = []
        if hasattr(u, "shot_at"):
            u.shot_at = []
    for g in st.generals.values():
        g.moved = False
    for army in st.armies.values():
        army.cpts = 0


def turn_limit(sc) -> int:
    """The scenario's last turn, or Herald's default (HERALD D25)."""
    return int(getattr(sc, "turn_limit", 0) or tables.DEFAULT_TURN_LIMIT)


def end_turn(sc, st: LionState, stream: DiceStream, why: str) -> list[Event]:
    """The turn ends [3], [13]: per-turn marks cleared, countdowns run ([15] 2, 3, 5, 6, HERALD
    D23, D45), the sunset or the scenario's turn limit may end the battle [14 B], else the deck is
    shuffled again and the next turn begins with the visibility test [15] 1."""
    from engine.lion.sequence import events as random_events
    from engine.lion.sequence import victory
    events = [Event("end_turn", "", "LdN [3], [13]", f"Turn {st.turn} ends: {why}",
                    outcome={"turn": st.turn, "cards_drawn": len(st.drawn)})]
    clear_turn_marks(st)
    events += random_events.end_of_turn(sc, st)
    if st.weather.get("sunset_turns") == 0:
        events += victory.end_by_time(sc, st, "the sun has set (LdN [15] 2)")
    elif st.turn >= turn_limit(sc):
        events += victory.end_by_time(sc, st, f"turn {st.turn} was the battle's last (HERALD D25)")
    st.deck = list(CARDS)
    st.drawn = []
    st.card = ""
    st.step = "draw"
    if st.phase == "over":
        return events
    st.turn += 1
    events.append(Event("new_turn", "", "LdN [3]", f"Turn {st.turn} begins: the nine cards are shuffled",
                        outcome={"turn": st.turn}))
    events += random_events.start_of_turn(sc, st, stream)
    return events


# -- next / done ---------------------------------------------------------------------------------------

def do_next(sc, st: LionState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`next`: the card's owner has done with his move, shoot or combat card [3], [13]."""
    rules.need_card(st, side, ("move", "shoot", "combat"), sc)
    kind = card_kind(st.card)
    left = ""
    if kind == "move" and st.armies[side].cpts:
        n = st.armies[side].cpts
        left = f" ({n} Cpt{'s' if n != 1 else ''} not spent {'are' if n != 1 else 'is'} lost)"
    events = [Event("card_done", side, "LdN [3], [13]", f"{side.title()} ends the {card_name(st)}{left}",
                    outcome={"card": st.card})]
    return events + finish_card(sc, st, stream)


rules.register("next", do_next, "next: end your actions on the current card (LdN [3], [13])")
rules.register("done", do_next, "done: the same as next (LdN [3], [13])")
