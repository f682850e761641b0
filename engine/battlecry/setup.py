"""BC §3.1 setup: place the scenario's pieces, shuffle the command deck, deal the hands."""
from __future__ import annotations

from engine.core.dice import DiceStream

from . import tables
from .scenario import Scenario
from .state import BattleCryState, Piece


def build_deck(scenario: Scenario) -> list[str]:
    """The 60-card deck (HERALD counts, tables.DECK_COUNTS) less the scenario's removed cards
    (e.g. BC §7 scenarios 12 and 15 remove Construct Field-Works)."""
    removed = set(scenario.special.get("remove_cards", []))
    return [card for card, n in tables.DECK_COUNTS.items() if card not in removed for _ in range(n)]


def new_state(scenario: Scenario, seed: int | str) -> BattleCryState:
    """BC §3.1 steps 2-5: pieces as the map shows, secret hands of the scenario's card counts,
    the first player named in the notes."""
    state = BattleCryState(scenario_id=scenario.id, seed=seed, active=scenario.first_player)
    for u in scenario.units:
        state.pieces[u.id] = Piece(u.id, u.side, u.kind, u.hex, u.figures,
                                   u.figures, u.name, u.special)
    for h, (owner, front) in scenario.field_works.items():
        state.field_works[h] = [owner, list(front)]
    stream = DiceStream(seed, 0)
    state.deck = stream.shuffle(build_deck(scenario))
    for side in (scenario.first_player, state.other(scenario.first_player)):
        n = scenario.sides[side].cards
        state.hands[side], state.deck = state.deck[:n], state.deck[n:]
    state.draws = stream.draws
    return state
