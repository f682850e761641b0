"""The state of a Battle Cry game: plain data, serialisable to JSON, copied on every command.

A state never holds the scenario's fixed terrain (that stays in `Scenario`); it holds what
changes: pieces, cards, Field-works placed in play, flags, whose turn and what is pending.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core.state import GameState

from . import tables


@dataclass
class Piece:
    """A unit (infantry, cavalry, artillery) or a General. BC §2.1."""
    id: str
    side: str
    kind: str                 # infantry / cavalry / artillery / general
    hex: str | None           # None once eliminated
    figures: int
    start_figures: int
    name: str = ""
    special: str = ""         # "horse_artillery" / "vmi" (BC §7 scenarios 8, 14)

    @property
    def is_general(self) -> bool:
        return self.kind == "general"

    @property
    def alive(self) -> bool:
        return self.hex is not None

    @property
    def label(self) -> str:
        kind = "horse artillery" if self.special == "horse_artillery" else (
            "VMI cadets" if self.special == "vmi" else self.kind)
        return f"{self.id} ({self.name or kind})" if self.name else f"{self.id} ({kind})"


@dataclass
class TurnState:
    """What the active player has done this turn (BC §3.2)."""
    card: str | None = None            # the card played
    effective: str | None = None       # the card whose effect applies (Counter-Attack copies)
    section: str | None = None         # chosen section for section-choice tactics ("left"...)
    ordered: list[str] = field(default_factory=list)
    moves: dict[str, int] = field(default_factory=dict)      # piece -> number of moves made
    hexes_moved: dict[str, int] = field(default_factory=dict)  # piece -> hexes moved in total
    battles: dict[str, int] = field(default_factory=dict)    # piece -> battles made
    no_battle: list[str] = field(default_factory=list)       # pieces barred from battling
    no_move: list[str] = field(default_factory=list)         # pieces barred from moving
    battle_started: bool = False                             # BC §4.2: movement is over
    done: list[str] = field(default_factory=list)            # special actions done (card verbs)
    reinforcement: str | None = None   # rolled type for Call for Reinforcements ("any" on Flag)


@dataclass
class BattleCryState(GameState):
    scenario_id: str
    seed: int | str
    draws: int = 0
    turn: int = 1
    active: str = "union"
    phase: str = "card"        # card -> orders -> actions -> over
    pieces: dict[str, Piece] = field(default_factory=dict)
    field_works: dict[str, list] = field(default_factory=dict)  # hex -> [owner, [front sides]]
    deck: list[str] = field(default_factory=list)
    hands: dict[str, list[str]] = field(default_factory=dict)
    discard: list[str] = field(default_factory=list)
    flags: dict[str, int] = field(default_factory=lambda: {s: 0 for s in tables.SIDES})
    captured: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in tables.SIDES})
    current: TurnState = field(default_factory=TurnState)
    last_order: dict[str, dict] = field(default_factory=dict)   # side -> {card, section, ...}
    pending: dict[str, Any] | None = None    # a decision the rules hand to a player
    policies: dict[str, dict[str, str]] = field(default_factory=dict)  # side -> {"retreat": "auto"}
    winner: str | None = None
    result: str = ""
    conceded: bool = False        # the battle ended by a resignation (BC §6 campaign flags, rules.end_report)
    # BC §6 Balancing: game options chosen at creation (campaign.validate_options): which seat
    # plays which side, and which game of a balancing pair this is.
    options: dict[str, Any] = field(default_factory=dict)
    last_action: dict[str, Any] = field(default_factory=dict)  # for the render overlay

    # -- helpers ---------------------------------------------------------------------------
    def other(self, side: str) -> str:
        return "confederate" if side == "union" else "union"

    def piece_at(self, hex_id: str, general: bool = False) -> Piece | None:
        for p in self.pieces.values():
            if p.hex == hex_id and p.is_general == general:
                return p
        return None

    def attached_general(self, unit: Piece) -> Piece | None:
        """BC §4.3: a General in the same hex as a unit is attached to it."""
        if unit.is_general or unit.hex is None:
            return None
        g = self.piece_at(unit.hex, general=True)
        return g if g is not None and g.side == unit.side else None

    def unit_under(self, general: Piece) -> Piece | None:
        if general.hex is None:
            return None
        return self.piece_at(general.hex, general=False)

    def live(self, side: str | None = None) -> list[Piece]:
        return [p for p in self.pieces.values() if p.alive and (side is None or p.side == side)]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "BattleCryState":
        d = dict(d)        # its values are kept, not copied: see engine.core.game.Ruleset.state_from_dict
        d["pieces"] = {k: Piece(**v) for k, v in d["pieces"].items()}
        d["current"] = TurnState(**d["current"])
        return cls(**d)


    def public_view(self, viewer: str | None = None) -> dict[str, Any]:
        """What a player (or, with viewer None, the channel) may see: hands are hidden except
        the viewer's own; the deck order is never shown (BC §3.1: hands are secret)."""
        d = self.to_dict()
        d["deck"] = len(self.deck)
        d["hands"] = {s: (list(h) if s == viewer else len(h)) for s, h in self.hands.items()}
        d.pop("seed", None)
        d.pop("draws", None)
        return d
