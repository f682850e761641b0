"""The state of a Lion of the North game: plain data, JSON-ready (issue 15).

Section numbers are the rulebook's own (`rules/lion-of-the-north.it.txt`, the authority: sections
1-15, "Tabella riassuntiva", the troop chart, the TIRO grid and the cards), as mapped by the digest
(`rules/digests/lion-of-the-north.md`). The scenario (engine/lion/scenario.py) keeps what never
changes: the table, its terrain polygons, the armies' discipline and the units' types; the state
holds what changes.

Geometry conventions (engine/core/table, shared with the Italian Wars ruleset):
- distances in centimetres [1], the table's origin at its south-west corner, x east, y north;
- a base's place is the centre of its FRONT edge (`x`, `y`) and its facing, a compass bearing in
  degrees (0 = north, +y; 90 = east, +x; clockwise), normalised to [0, 360);
- every coordinate and angle is rounded to 2 decimals (0.1 mm, 0.01 degree) when it is stored,
  so a replay is bit for bit (engine.core.table.geometry.rnd);
- side "A" of the cards [3] is the scenario's `player_a`; its home edge is the south (y = 0) unless
  the scenario says otherwise.

Nothing here is secret: the cards are drawn one at a time from the dice stream (the deck is the
set of cards not yet drawn this turn), so the order of the rest is not known to anyone [3], [13].
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core.state import GameState

SIDES = ("swedish", "imperial")     # Breitenfeld 1631 and Lützen 1632 (Saxons with the Swedes)
# the nine cards [3], [13]: move/shoot/combat/rally for player A and B, and the end card
CARDS = ("move_a", "move_b", "shoot_a", "shoot_b", "combat_a", "combat_b", "rally_a", "rally_b",
         "end")
PHASES = ("cards", "over")
# what the current card is waiting for: the card's owner acting ("act"), the other side's contact
# fire after a move card ("contact_fire", [3] cards 7-8, [7] D), nothing (between cards: "draw")
STEPS = ("draw", "act", "contact_fire")


@dataclass
class Unit:
    """A unit [2], [12]: one base, a Pike & Shot unit (two bases side by side, one rectangle) or a
    Tercio (two P&S one behind the other). Its type and quality are the scenario's; here, what
    changes."""
    id: str
    side: str
    type: str                     # a key of tables.TROOPS ("musketeers", "pike_and_shot", ...)
    x: float                      # centre of the front edge, cm
    y: float
    facing: float                 # compass bearing of its front, degrees
    quality: str = ""             # "" / "elite" (+1 to every die) / "untrained" (-1) [troop chart]
    hits: int = 0                 # disorder levels taken [9]; P&S die at 3, Tercio at 4 [12 E-F]
    status: str = "active"        # active / destroyed / waiting (a reinforcement not yet on) / off
    mounted: bool = True          # dragoons only [12 C]
    deployed: bool = False        # light/medium guns: deployed (piazzati) or limbered [6 A]
    status_changed: bool = False  # light/medium guns changed status once: never again [6 A]
    captured_by: str = ""         # artillery captured in melee works for this side, never moves [9 B]
    looting: bool = False         # in an enemy camp, counts as disordered until it leaves [12 A]
    detached_musketeers: bool = False   # a P&S that detached its musketeers [12 G]
    # per turn (cleared when the deck is shuffled again [3]):
    moved: bool = False           # moved (or about-faced) this turn: one move per card (HERALD)
    turned: float = 0.0           # degrees pivoted this turn, at most 45 [5 A]
    stopped_in: str = ""          # terrain it entered and stopped in: woods / marsh / ford / town [5 B]
    contacted_by: list[str] = field(default_factory=list)   # enemies that came into contact with
                                  # its front this turn (contact fire, [7] D)
    shot: bool = False            # fired on this shoot card (a Tercio may fire once per face [12 F])
    shot_faces: list[str] = field(default_factory=list)    # Tercio: the faces it fired from this turn
    fought: bool = False          # fought a melee this combat card [8]
    shot_at: list[str] = field(default_factory=list)      # a Tercio's targets this turn, one
                                  # per entry of shot_faces: each face at a different enemy [12 F]

    @property
    def alive(self) -> bool:
        return self.status == "active"

    @property
    def disordered(self) -> bool:
        return self.hits > 0 or self.looting


@dataclass
class General:
    """A general [2], [4], [8], [9]: the commander-in-chief, a sub-commander, or a wing general in
    the optional rule for large armies [4]."""
    id: str
    side: str
    role: str                     # "cinc" / "sub" / "wing"
    x: float
    y: float
    facing: float
    wounded: bool = False         # moves at most 10 cm; a second wound kills [5 H], [9]
    status: str = "active"        # active / killed
    attached_to: str = ""         # the unit it is attached to (aggregato) ("" = alone)
    moved: bool = False           # moved this turn
    supported: str = ""           # the combat card ("turn:card") he last gave his 1d3 in melee [8 D]
    fought: str = ""              # the combat card ("turn:card") he was attacked alone on: once a phase [8 A]

    @property
    def alive(self) -> bool:
        return self.status == "active"


@dataclass
class Camp:
    """A side's camp [12 A]: 90 x 60 mm, never moves, garrisoned or taken by one base."""
    side: str
    x: float
    y: float
    facing: float
    garrison: str = ""            # the unit garrisoning it
    captured_by: str = ""         # the enemy side holding it
    recaptured: bool = False      # retaken by its owner [12 A]
    looters: list[str] = field(default_factory=list)


@dataclass
class Army:
    """A side's army: discipline [4], [10], [12 A], Cpts, demoralisation [11]."""
    side: str
    discipline: str               # trained / regular / irregular
    cpts: int = 0                 # control points left on the current move card [4]
    cpts_rolled: int = 0
    demoralised: bool = False     # permanent [11]
    surprise_march: int = 0       # single units that may still triple their speed (event 3) [15]
    surprise_turns: int = 0       # turns the allowance lasts ("this turn or the next")
    reinforcements: int = 0       # destroyed bases it may bring back (event 4) [15]
    pools: dict[str, int] = field(default_factory=dict)   # large armies [4 E]: Cpts left per command general


@dataclass
class LionState(GameState):
    scenario_id: str
    seed: int | str
    draws: int = 0
    turn: int = 1
    phase: str = "cards"
    step: str = "draw"
    card: str = ""                # the card being played ("" before the first draw)
    deck: list[str] = field(default_factory=lambda: list(CARDS))   # not yet drawn this turn
    drawn: list[str] = field(default_factory=list)                 # drawn this turn, in order
    units: dict[str, Unit] = field(default_factory=dict)
    generals: dict[str, General] = field(default_factory=dict)
    camps: dict[str, Camp] = field(default_factory=dict)
    armies: dict[str, Army] = field(default_factory=dict)
    # random events [15] in force: {"visibility": True, "rain": "light"/"heavy", "rain_moves": n,
    # "sunset_turns": n, "sunset_ignored": bool}
    weather: dict[str, Any] = field(default_factory=dict)
    pending: dict[str, Any] | None = None                  # a decision some player owes
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # optional rules chosen (large armies [4])
    last_action: dict[str, Any] = field(default_factory=dict)   # for the picture: path, arcs, distances
    winner: str | None = None
    result: str = ""
    # destroyed units brought back by the Reinforcements event: still lost for victory [12 B]
    returned: list[str] = field(default_factory=list)
    # the card letters' sides [3]: {"A": the scenario's player A's side, "B": ...}, set by
    # engine.lion.rules.start from the scenario (HERALD D40)
    players: dict[str, str] = field(default_factory=dict)

    SIMULTANEOUS: ClassVar[tuple[str, ...]] = ()

    def other(self, side: str) -> str:
        return SIDES[1] if side == SIDES[0] else SIDES[0]

    def live_units(self, side: str | None = None) -> list[Unit]:
        return [u for u in self.units.values() if u.alive and (side is None or u.side == side)]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LionState":
        d = dict(d)
        d["units"] = {k: Unit(**v) for k, v in d["units"].items()}
        d["generals"] = {k: General(**v) for k, v in d["generals"].items()}
        d["camps"] = {k: Camp(**v) for k, v in d["camps"].items()}
        d["armies"] = {k: Army(**v) for k, v in d["armies"].items()}
        return cls(**d)
