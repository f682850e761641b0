"""BC §3.1 setup: place the scenario's pieces, shuffle the command deck, deal the hands."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.dice import DiceStream

from . import tables
from .campaign import OptionError, validate_options
from .scenario import Scenario, ScenarioError
from .state import BattleCryState, Piece


def build_deck(scenario: Scenario) -> list[str]:
    """The 60-card deck (HERALD counts, tables.DECK_COUNTS) less the scenario's removed cards
    (e.g. BC §7 scenarios 12 and 15 remove Construct Field-Works)."""
    removed = set(scenario.special.get("remove_cards", []))
    return [card for card, n in tables.DECK_COUNTS.items() if card not in removed for _ in range(n)]


def new_state(scenario: Scenario, seed: int | str,
              options: Mapping[str, Any] | None = None) -> BattleCryState:
    """BC §3.1 steps 2-5: pieces as the map shows, secret hands of the scenario's card counts,
    the first player named in the notes.

    `options` (BC §6 Balancing, see campaign.py): {"seats": {"union": ..., "confederate": ...},
    "leg": 1 | 2} records which seat plays which side, so that a lopsided scenario can be played
    twice with sides swapped; the options never change the set-up itself."""
    try:
        chosen = validate_options(options)
    except OptionError as exc:
        raise ScenarioError(f"{scenario.id}: {exc}") from None
    state = BattleCryState(scenario_id=scenario.id, seed=seed, active=scenario.first_player,
                           options=chosen)
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
