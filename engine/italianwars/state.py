"""The state of an Italian Wars game: plain data, JSON-ready (issue 16).

The text (`rules/italian-wars.it.txt`, the authority) gives the command layer: companies of 1, 2
or 4 bases in single file under captains with personalities, battles under battle commanders,
written orders and their interpretation, Ecu bribes, battle activation, weather and the day's
clock, command radius, skirmishers, ambushes, the camp and army break. It stops at the
declaration of charges; the rest (movement, shooting, melee, morale, rout, pursuit,
reorganisation) is Herald's completion (engine/italianwars/SUPPLEMENT.md), labelled so in the game.
Section names are the text's own headings, cited as "IW <heading>" (see rules_index.toml).

Geometry (engine/core/table, shared with Lion of the North), measured in UDM (unità di misura:
one base frontage; HERALD D1): origin at the table's south-west corner, x east, y north; a
company's place is the centre of the FRONT edge of its leading base (`x`, `y`) and its facing, a
compass bearing in degrees (0 = north, clockwise); the company is one rectangle 1 UDM wide and
`bases` x the base depth deep (single file, the text's "sempre una dietro l'altra"); every
coordinate and angle rounded to 2 decimals when stored. The attacker's and defender's home edges
come from the scenario.

Secrets (the text's written orders, deployment map and bribes): `IWState.secrets[side]` holds
what a side has written and not yet revealed; engine/italianwars/public.py masks it (and hidden
companies) for everyone else, in the channel, in /explain, in the replay and in exports.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core.state import GameState

SIDES = ("french", "league")     # Fornovo 1495 (the League of Venice) and Ravenna 1512 (the Holy League)
ORDERS = ("assault", "attack", "delay", "occupy", "hold", "withdraw", "hesitate", "march", "retreat")
PERSONALITIES = ("rash", "unpredictable", "reliable", "cautious", "timid")
MORALE_CLASSES = ("gentlemen", "professionals", "mercenaries", "militia", "rabble")
# the turn (Sequenza di mossa): 1 command, 2 actions (battle by battle), 3 rout, 4 pursuit,
# 5 reorganisation, 6 end of turn (army break); before it the pre-battle steps (Prima della
# battaglia 1-9); "over" once the battle has ended
PHASES = ("prebattle", "command", "actions", "rout", "pursuit", "reorganisation", "end", "over")
PREBATTLE_STEPS = ("personalities", "weather", "attacker", "deployment", "defences", "placement",
                   "orders", "bribery", "done")
# the steps of one battle's activation (2a-2h)
ACTIVATION_STEPS = ("activate", "declare", "manoeuvre", "move", "shoot", "respond", "close", "melee", "done")


@dataclass
class Company:
    """A company (compagnia): 1, 2 or 4 bases in single file under a captain. Its printed
    attributes (morale class, role, armour, weapons, factors, nation) are the scenario's; here,
    what changes."""
    id: str
    side: str
    battle: str                   # the battle (battaglia) it belongs to
    x: float                      # centre of the leading base's front edge, UDM
    y: float
    facing: float                 # compass bearing of its front, degrees
    bases: int                    # bases left (size: 1 small, 2-3 medium, 4 large)
    points_lost: int = 0          # casualty points taken (a base is 2, cavalry 3)
    captain: str = ""             # personality, rolled before the battle (Table 2)
    captain_lost: str = ""        # "" / "killed" / "captured" (captain risk, Herald completion)
    disordered: bool = False      # Disordine
    status: str = "active"        # active / routing / pursuing / destroyed / off (left the table) / waiting
    hidden: bool = False          # an ambush or a hidden skirmisher, seen only by its owner
    formation: str = ""           # "" / "igel" / "phalanx:<id>"
    screen: bool = False          # has a skirmisher screen (Schermi di Schermagliatori)
    screen_removed: bool = False  # the screen is off the table while its parent is in melee
    limbered: bool = False        # artillery limbered; `limbering` while changing (a turn)
    limbering: bool = False
    side_arms_only: bool = False  # rallied from rout: side arms only
    # this turn
    evaded: bool = False          # evaded a charge: no action when its battle activates
    charge: dict[str, Any] = field(default_factory=dict)   # declared: {"target", "flank", ...}
    in_melee: bool = False
    shot: bool = False
    moved: bool = False
    # melee, rout and recovery (Herald completion, SUPPLEMENT.md IW-H 6, 9, 10)
    melee_with: list[str] = field(default_factory=list)   # the enemy companies it is in melee with
    fought_turn: int = 0          # the last turn it fought a round of melee (IW-H 6.5, once a turn)
    pursuing: str = ""            # the router it pursues (IW-H 9.3)
    reorganising: int = 0         # consecutive reorganisation phases spent recovering (IW-H 10.1)
    start_bases: int = 0          # bases at the start of the battle (0: unknown, use the scenario's)
    # movement this turn (movement/, IW-H 2-3): UDM of its move spent on manoeuvres and moves in
    # turn `used_turn` (a mark of an earlier turn counts as nothing spent); the turn limbering began
    used_move: float = 0.0
    used_turn: int = 0
    limber_turn: int = 0

    @property
    def alive(self) -> bool:
        return self.status in ("active", "routing", "pursuing")


@dataclass
class Battle:
    """A battle (battaglia) under its commander, who is the captain of one of its companies."""
    id: str
    side: str
    commander: str                # the battle commander's company
    cinc: bool = False            # the Commander-in-Chief's battle: never tests orders or activation
    order: str = ""               # the order in force (ORDERS); secret until revealed (HERALD)
    objective: str = ""           # a terrain feature, a position or enemy companies, for the order
    revealed: bool = False        # the order in force is known to the enemy
    activated: bool = False       # attempted this turn (once a turn)
    activated_last: bool = False  # activated in the previous turn (Table 6)
    failed: bool = False          # failed its activation this turn
    off_table: bool = False       # Table 6 "fuori tavolo"


@dataclass
class Army:
    side: str
    ecu: int = 0                  # the treasury (Tesoro): 1d6 unless the battle says otherwise
    sixes_owed: int = 0           # "sacrificare un 6": new orders given, each a 6 to reroll
    broken: bool = False          # Punto di rottura: more than half its strength lost
    camp_lost: bool = False
    cinc_busy: bool = False       # the C-in-C's company charged, pursued, routed or fought last turn
    strength: int = 0             # command points + 3 for the camp (Table 1)


@dataclass
class IWState(GameState):
    scenario_id: str
    seed: int | str
    draws: int = 0
    turn: int = 1                 # game turn
    clock: int = 7                # the day clock's turn (1 turn = 1 hour; dawn 2-3, dusk 16, dark 18)
    phase: str = "prebattle"
    step: str = "personalities"
    season: str = ""
    weather: str = ""             # good / cloudy / bad
    attacker: str = ""
    active_side: str = ""         # whose turn it is to activate a battle (2)
    activation: dict[str, Any] = field(default_factory=dict)   # the battle acting and its step
    companies: dict[str, Company] = field(default_factory=dict)
    battles: dict[str, Battle] = field(default_factory=dict)
    armies: dict[str, Army] = field(default_factory=dict)
    # what each side has written and not yet revealed: {"orders": {battle: order}, "bribes":
    # {battle: {"ecu": n, "direction": +1/-1}}, "deployment": {...}}
    secrets: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    last_action: dict[str, Any] = field(default_factory=dict)
    winner: str | None = None
    result: str = ""
    done: list[str] = field(default_factory=list)   # sides done with a simultaneous step
    # the keys of secrets revealed since they were written ("order:<battle>:<turn>", "bribe:...",
    # "deploy:<battle>"): their log entries are shown in full from then on (public.py)
    revealed: list[str] = field(default_factory=list)

    SIMULTANEOUS: ClassVar[tuple[str, ...]] = ("command",)

    def other(self, side: str) -> str:
        return SIDES[1] if side == SIDES[0] else SIDES[0]

    def live_companies(self, side: str | None = None) -> list[Company]:
        return [c for c in self.companies.values() if c.alive and (side is None or c.side == side)]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "IWState":
        d = dict(d)
        d["companies"] = {k: Company(**v) for k, v in d["companies"].items()}
        d["battles"] = {k: Battle(**v) for k, v in d["battles"].items()}
        d["armies"] = {k: Army(**v) for k, v in d["armies"].items()}
        return cls(**d)
