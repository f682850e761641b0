"""The state of a Jours de Gloire "Classique" game: plain data, JSON-ready (issue 14).

Paragraph numbers are the rulebook's own (`rules/jours-de-gloire.it.txt`, the authority), as
mapped by the digest (`rules/digests/jours-de-gloire.md`). The scenario's fixed map, orders of
battle and schedule stay in the Scenario (engine/jdg/scenario.py); the state holds what changes:
the units' places, facing and state on the ladder of §10 (good order, disordered, routed,
eliminated), the formations' orders and activation markers, the commanders-in-chief, the cup,
the turn and its phase, and the decisions pending.

What the state keeps secret is kept in it, never shown early: the orders chosen in phase A
(`Formation.orders`, revealed on the formation's first activation marker, [2.4]) and the
combined markers put in the cup ([2.1], Marengo section D); `public.py` (to come) masks them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from engine.core.state import GameState, tree_copy

SIDES = ("french", "austrian")          # Marengo 1800 (section D); other games name theirs
ARMS = ("infantry", "cavalry", "artillery")
CONDITIONS = ("good", "disordered", "routed")    # [10]: the ladder; eliminated = status
# phases of the turn [1]: A orders, B strategic initiative, C markers in the cup, D activations,
# E rout, F end of turn; "over" once the battle has ended; "reserve" is phase D bis, between D and E
# (optional rule 1, sequence/reserve.py)
PHASES = ("orders", "initiative", "cup", "activation", "reserve", "rout", "end", "over")
# the steps of one activation, in the strict order of [1.D] / [2.4]
ACTIVATION_STEPS = ("orders_check", "fire", "movement", "combat", "rally", "done")
ORDERS = ("with", "without")            # "Con Ordini" / "Senza Ordini" [2.3]


# Issue 13 (speed): `JdgState.units_at` reads an index of the live units by hex, kept while no
# unit anywhere has changed hex or status since it was built: every such change (and every
# reordering of a state's `units`, the stacks' order: `restacked`) advances this generation.
_GENERATION = [0]
_INDEXED = frozenset(("hex", "status"))


def restacked() -> None:
    """Call after reordering a state's `units` (the stacks' order, [5.1])."""
    _GENERATION[0] += 1


@dataclass
class Unit:
    """A combat unit [0.3]: its printed values are the scenario's; here, what changes."""
    _plain_copy: ClassVar[bool] = True     # its __setattr__ only watches (engine/core/state.py)

    def __setattr__(self, name: str, value) -> None:
        if name in _INDEXED:
            _GENERATION[0] += 1
        object.__setattr__(self, name, value)

    id: str
    side: str
    formation: str
    arm: str                      # infantry / cavalry / artillery
    hex: str | None               # None once eliminated or off the map
    facing: int                   # vertex 0..5 (engine.core.facing) [6.1]
    condition: str = "good"       # good / disordered / routed [10]
    status: str = "active"        # active / eliminated / off_map / waiting (a reinforcement)
    square: bool = False          # in square [4.2, 9.3]
    fired: bool = False           # artillery that fired this activation ("Tir/Mouvement réduit") [4.4]
    charge: bool = False          # cavalry declared to charge ("Charge") [9.1]
    assault: str = ""             # "choc" (With Orders) / "choc_test" (Without Orders, engagement) [8.1]
    acted: bool = False           # fired, moved or fought this activation: no rally [11]
    recharges: int = 0            # pursuit re-charges made this combat (-1 each) [9.5]
    demoralised: bool = False     # its formation is demoralised: never good order again (optional 11)
    rout_halted: bool = False     # routed, stopped in a town/village/fortification: no rout move [10.4]
    # reinforcement status [5.2] (movement/reinforcements.py): "renforts" (the marker: With Orders,
    # may force-march), "with_orders" (entered near the enemy: With Orders that turn only),
    # "without_orders" (lost the marker: Without Orders to the end of that turn); `arrival_turn`
    # is the turn the last two hold for (HERALD D29)
    arrival: str = ""
    arrival_turn: int = 0

    @property
    def alive(self) -> bool:
        return self.status == "active" and self.hex is not None

    @property
    def disordered(self) -> bool:
        return self.condition in ("disordered", "routed")


@dataclass
class Formation:
    """A formation [2.1]: its orders this turn and its activation markers."""
    id: str
    side: str
    orders: str = ""              # "" (phase A not done) / with / without: secret until revealed
    revealed: bool = False        # its first IA was drawn this turn: the orders are known [2.4]
    initiative_success: bool = False   # With Orders for this activation only, by its commander [2.4]
    activations: int = 0          # IAs drawn for it this turn
    without_orders_for_good: bool = False   # its commander-in-chief was lost [2.5]
    demoralised: bool = False     # optional rule 11
    # optional rule 2.3 (sequence/groups.py): the tactical groups fixed in phase A, each
    # {"units": [ids], "orders": "with" | "without"}; secret like `orders` until revealed
    groups: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Commander:
    """A commander-in-chief [2.5]."""
    id: str
    side: str
    hex: str | None
    moved: bool = False           # his once-a-turn move is used (the white band)
    status: str = "active"        # active / eliminated


@dataclass
class Marker:
    """An activation marker in the cup or set aside: a formation's IA [2.1], a special IA
    (Marengo's "Zach"), or a combined one (IAC, "C": "Grande charge", "Marmont")."""
    id: str
    side: str
    kind: str = "ia"              # ia / special / combined
    formation: str = ""           # the formation an IA activates
    secret: bool = False          # an IAC put in the cup secretly (section D) until drawn


@dataclass
class Activation:
    """The activation under way [1.D]: whose marker, which step, what each unit has done."""
    marker: str
    side: str
    formations: list[str] = field(default_factory=list)   # one, or several for an IAC
    step: str = "orders_check"
    with_orders: bool = False
    moved: list[str] = field(default_factory=list)         # units that moved (one at a time [4.3])
    fired: list[str] = field(default_factory=list)
    fought: list[str] = field(default_factory=list)
    commander_moved: bool = False
    # an IAC activates only this arm of its formations ("cavalry", "artillery"; "" for an IA) [D.2.1]
    arm: str = ""
    # formations whose commander's initiative failed: they may only rally [2.4] (HERALD D13)
    failed: list[str] = field(default_factory=list)
    # units that tried to rally this activation: one attempt each [11]
    rallied: list[str] = field(default_factory=list)
    # MP each unit has spent this activation (leaving square, then moving) [4.2], [4.4]
    mp_used: dict[str, float] = field(default_factory=dict)
    # reinforcements entered this activation, per entry hex, in the stacks of their column [5.2]
    entered: dict[str, list[list[str]]] = field(default_factory=dict)
    # the other side's units that made reaction or counter-battery fire this activation: one of
    # the two, once, per enemy activation [8.3], [7.6]
    reacted: list[str] = field(default_factory=list)
    # phase D bis, optional rule 1 (sequence/reserve.py): a reserve activation, its units (those
    # not adjacent to an enemy) with their hexes at its start, and those whose move was checked
    reserve: bool = False
    reserve_units: dict[str, str] = field(default_factory=dict)
    reserve_checked: list[str] = field(default_factory=list)
    # optional rule 2.3 (sequence/groups.py): the groups ("<formation>:<n>") whose commander's
    # initiative passed (With Orders for this activation) or failed (rally only)
    groups_won: list[str] = field(default_factory=list)
    groups_failed: list[str] = field(default_factory=list)


@dataclass
class JdgState(GameState):
    scenario_id: str
    seed: int | str
    draws: int = 0
    turn: int = 1
    phase: str = "orders"
    units: dict[str, Unit] = field(default_factory=dict)
    formations: dict[str, Formation] = field(default_factory=dict)
    commanders: dict[str, Commander] = field(default_factory=dict)
    # phase A: each side's secret choice is done when it has given one marker per formation
    orders_done: list[str] = field(default_factory=list)
    initiative: str = ""          # the side with the strategic initiative this turn, "" on a tie [3]
    chosen_marker: str = ""       # the IA the initiative player chose to play first [3, B.2]
    cup: list[str] = field(default_factory=list)           # marker ids still in the cup [1.C]
    markers: dict[str, Marker] = field(default_factory=dict)
    set_aside: list[str] = field(default_factory=list)     # drawn (or the last one, unused) [1.D]
    used_once: list[str] = field(default_factory=list)     # once-a-game markers already used (section D)
    activation: Activation | None = None
    pending: dict[str, Any] | None = None                  # a decision some player owes
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # optional rules chosen (section II)
    last_action: dict[str, Any] = field(default_factory=dict)
    vp: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    winner: str | None = None
    result: str = ""
    # the assaults and charges of the activation [8], [9]: declared (combat/assault.py), being
    # resolved (combat/resolution.py: the stage reached, so a pending decision resumes it),
    # units already assaulted
    combat: dict[str, Any] = field(default_factory=dict)
    # the side that draws the next marker from the cup [1.D.1] (sequence/activation.py)
    drawer: str = ""
    # victory hexes -> the side that last occupied each [13] (sequence/victory.py)
    holders: dict[str, str] = field(default_factory=dict)
    # phase D bis (optional rule 1, sequence/reserve.py): the sides that chose or passed this turn
    reserve_done: list[str] = field(default_factory=list)

    # the phases where no side is to act alone: both give secret orders (phase A)
    SIMULTANEOUS: ClassVar[tuple[str, ...]] = ("orders",)

    def copy(self) -> "JdgState":
        """`GameState.copy` (a tree copy: nothing shared but the atoms) written out for this
        state's shape (issue 13: a what-if copies the working state at each resumable stage):
        a unit, commander or marker holds only atoms (`_FLAT`: every field declared str, int,
        bool or None), so each is a copy of its attribute dict; the rest goes through
        engine.core.state.tree_copy. The same copy, about twice as fast."""
        nd = {}
        for k, v in self.__dict__.items():
            if k in _FLAT_FIELDS:
                nd[k] = {i: _flat_copy(x) for i, x in v.items()}
            elif type(v) in _ATOMS:
                nd[k] = v
            elif not k.startswith("_memo_"):
                nd[k] = tree_copy(v)
        out = object.__new__(JdgState)
        out.__dict__.update(nd)
        return out

    def other(self, side: str) -> str:
        return SIDES[1] if side == SIDES[0] else SIDES[0]

    def units_at(self, hex_id: str) -> list[Unit]:
        """The live units in a hex, top first (a unit entering goes under those there, artillery
        always on top [5.1]: the order of `units` is kept as the stack's order). Read from an
        index rebuilt after any unit changes hex or status (see `_GENERATION`)."""
        memo = self.__dict__.get("_memo_hex_index")
        if memo is None or memo[0] != _GENERATION[0] or memo[1] is not self.units:
            index: dict[str, list[Unit]] = {}
            for u in self.units.values():
                if u.hex is not None and u.status == "active":
                    index.setdefault(u.hex, []).append(u)
            memo = (_GENERATION[0], self.units, index)
            self.__dict__["_memo_hex_index"] = memo
        return list(memo[2].get(hex_id, ()))

    def formation_units(self, formation_id: str) -> list[Unit]:
        return [u for u in self.units.values() if u.formation == formation_id and u.alive]

    def public_view(self, viewer: str | None = None) -> dict[str, Any]:
        """What `viewer` (None: the channel) may see, as a dict (engine/jdg/public.py; bot/undo.py
        compares it to the whole state): secret orders and combined markers masked, no seed."""
        from engine.jdg.public import view_dict
        return view_dict(self, viewer)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "JdgState":
        d = dict(d)
        d["units"] = {k: Unit(**v) for k, v in d["units"].items()}
        d["formations"] = {k: Formation(**v) for k, v in d["formations"].items()}
        d["commanders"] = {k: Commander(**v) for k, v in d["commanders"].items()}
        d["markers"] = {k: Marker(**v) for k, v in d["markers"].items()}
        d["activation"] = Activation(**d["activation"]) if d.get("activation") else None
        return cls(**d)


_ATOMS = frozenset((str, int, float, bool, type(None)))
_ATOM_NAMES = frozenset(("str", "int", "float", "bool", "None"))


def _flat(cls) -> int | None:
    """The number of fields of a record whose fields are all atoms (declared `str`, `int | None`...),
    else None."""
    fs = fields(cls)
    if all(isinstance(f.type, str) and {p.strip() for p in f.type.split("|")} <= _ATOM_NAMES for f in fs):
        return len(fs)
    return None


_FLAT = {cls: n for cls in (Unit, Commander, Marker) for n in (_flat(cls),) if n is not None}
_FLAT_FIELDS = frozenset(k for k, cls in (("units", Unit), ("commanders", Commander), ("markers", Marker))
                         if cls in _FLAT)


def _flat_copy(x):
    """A copy of a record of atoms (its attribute dict copied); anything else, a tree copy."""
    t = type(x)
    d = x.__dict__
    if _FLAT.get(t) != len(d):
        return tree_copy(x)
    out = _new(t)
    _set(out, "__dict__", d.copy())
    return out


_new, _set = object.__new__, object.__setattr__
