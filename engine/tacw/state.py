"""The state of a This Accursed Civil War game (Musket & Pike series): plain data, JSON-ready.

Section numbers are the rulebook's own (`rules/tacw.it.txt`), as mapped by the digest
(`rules/digests/tacw.md`). The scenario's fixed map stays in the Scenario; the state holds what
changes: units and their formation/morale/casualties/facing, leaders, wings and their orders, the
turn and activation sequence, victory points, and decisions pending.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from engine.core.dice import WHAT_IF
from engine.core.state import GameState, tree_copy

SIDES = ("royalist", "parliament")
ORDERS = ("charge", "make_ready", "receive_charge", "rally")          # §5.5, precedence §4.2
UNIT_KINDS = ("cavalry", "heavy", "light", "artillery", "wagon")
FORMATIONS = ("normal", "disordered", "broken")                      # §6.3.1 (Scossa, Rotta)
SPECIAL_FORMATIONS = ("", "open", "column", "hedgehog")              # §6.3.2 - §6.3.4
MORALE_STATES = ("normal", "shaken", "broken")                       # §11.1 (eliminated = gone)


# Issue 13: bumped whenever any unit's `hexes` or `status` is set (Unit.__setattr__), so the
# index of `TacwState.units_at` knows when it must be built again. The rules only ever assign
# a new list to `hexes` (never change one in place): tests/engine/test_replay_equals_live.py.
_PLACEMENT = [0]


@dataclass
class Unit:
    """A combat unit (§2.1.2). `hexes` holds one hex, two for a double heavy-infantry unit,
    and is empty once the unit is gone (eliminated or pursued off the map)."""
    id: str
    side: str
    wing: str
    kind: str                     # cavalry / heavy / light / artillery / wagon
    name: str
    strength: int                 # printed SP (artillery: 0)
    morale: int                   # printed morale 4..8
    hexes: list[str]
    facing: int                   # vertex 0..5 (engine.core.facing)
    casualties: int = 0
    formation: str = "normal"
    special_formation: str = ""
    morale_state: str = "normal"
    at_threshold: bool = False    # §11.5: reached its casualty threshold, never above Shaken
    light_kind: str = ""          # "commanded_shot" / "dragoons" (§2.1.2)
    gun_class: str = ""           # "3lb" / "saker" / "culverin" (§9.9)
    ricochet_range: int = 0       # printed on artillery (§9.9.3)
    max_range: int = 0
    pistols: int = 2              # cavalry shots left (§9.8); scenario may start with 1
    max_pistols: int = 2          # shots a reload restores to (Edgehill optional rule: 1)
    fired: bool = False           # artillery fired this turn (§9.9.1)
    salvo_used: bool = False      # Salvo marker (§9.4)
    gun_state: str = ""           # "" / "disabled" / "captured" (§9.9.9)
    captured_by: str = ""         # side holding a captured gun (VP)
    on_top: bool = True           # artillery stacking order (§8.3)
    status: str = "active"        # active / eliminated / off_map
    no_hedgehog: bool = False     # scenario restriction (Naseby: Bard)
    salvo_allowed: bool = True
    # Issue 12, D129: the id a narrative adds to a name shared in the battle ("Fielding (p-fielding)"),
    # set by `label_units` at setup and on every load; never a field, so never in the JSON.
    _called: ClassVar[str] = ""
    _plain_copy: ClassVar[bool] = True     # engine.core.state.tree_copy: __setattr__ only watches

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "hexes" or name == "status":
            _PLACEMENT[0] += 1
        object.__setattr__(self, name, value)

    @property
    def called(self) -> str:
        """The unit as the narratives name it: its name, with its id (the word a player types)
        when another unit of the battle, or a leader, bears the same name."""
        return self._called or self.name

    @property
    def alive(self) -> bool:
        return self.status == "active" and bool(self.hexes)

    @property
    def is_double(self) -> bool:
        return len(self.hexes) == 2

    @property
    def current_morale(self) -> int:
        """§11.2: Shaken is one less than printed; Broken is 1."""
        if self.morale_state == "broken":
            return 1
        if self.morale_state == "shaken":
            return self.morale - 1
        return self.morale

    @property
    def remaining_strength(self) -> int:
        return max(self.strength - self.casualties, 0)


@dataclass
class Leader:
    """Army Commander ("ac") or Wing Commander ("wc"), §5."""
    id: str
    side: str
    name: str
    role: str                     # "ac" / "wc"
    value: int                    # command value 0, -1, -2 (-2 best)
    hex: str | None
    wing: str | None = None       # the wing a WC commands
    finished: bool = False        # §4.3.4: flipped to "Finished"
    no_continue: bool = False     # §4.4.2 marker
    removed_turn: int | None = None   # §5.3: removed this turn, replacement roll pending
    status: str = "active"        # active / removed / dead
    special: str = ""             # "cromwell" (§10.7.5), "king" (50 VP)
    replacement: str = ""         # name of the scenario's replacement (WC, or AC when named, §5.3.5)
    generic: bool = False         # a generic replacement leader (§5.3.3)
    replacement_value: int | None = None   # the named replacement's value (None: the scenario's)
    later: list = field(default_factory=list)  # [[name, value], ...]: who replaces the replacement


@dataclass
class Wing:
    """A wing and its order (§5.5)."""
    id: str
    side: str
    name: str
    commander: str                # leader id
    order: str
    cavalry: bool = False         # "cavalry wing" for the -1 modifiers (§4.3.3, §4.4.4)
    activations: int = 0          # activations this turn (1 + continuations)
    done: bool = False            # its activation(s) for this turn are over
    bypassed: bool = False        # pre-empted, waiting to activate (§4.4.1)
    historical_order: str = ""


@dataclass
class Activation:
    """The wing activation under way (§3.2 steps A-F)."""
    wing: str
    side: str
    step: str = "order_change"    # order_change -> actions -> close_combat -> continuation
    number: int = 1               # 1st, 2nd or 3rd activation of this wing this turn
    acted: list[str] = field(default_factory=list)       # units that used their action
    moved: dict[str, int] = field(default_factory=dict)  # unit -> hexes moved (momentum etc.)
    straight: dict[str, int] = field(default_factory=dict)  # hexes moved straight ahead
    ac_acted: bool = False
    wc_acted: bool = False
    order_change_tried: bool = False
    bypassing: bool = False       # this activation is a bypass of another wing
    resume_wing: str | None = None  # the bypassed wing that activates next


@dataclass
class TacwState(GameState):
    scenario_id: str
    seed: int | str
    draws: int = 0
    turn: int = 1
    phase: str = "initiative"     # (deployment /) initiative / activation / rout / markers / over
    phasing: str = ""             # the phasing player (§3.1)
    passes: int = 0               # consecutive passes (§3.2: two end the phase)
    initiative: str = ""          # the side that won the initiative this turn (§4.1)
    last_activator: str = ""      # the side that activated the last wing (§4.2.2 alternation)
    units: dict[str, Unit] = field(default_factory=dict)
    leaders: dict[str, Leader] = field(default_factory=dict)
    wings: dict[str, Wing] = field(default_factory=dict)
    activation: Activation | None = None
    vp: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    pending: dict[str, Any] | None = None
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)   # optional rules chosen
    last_action: dict[str, Any] = field(default_factory=dict)
    # free setup (sequence/deployment.py): {"done": [sides], "with": {leader: unit}} while deploying
    deployment: dict[str, Any] = field(default_factory=dict)
    winner: str | None = None
    result: str = ""

    def copy(self) -> "TacwState":
        """`engine.core.state.tree_copy`'s copy (nothing shared but the immutable leaves, the
        `_memo_` caches dropped), with the units and leaders copied by hand: a unit is atoms
        and its `hexes` (a list of hex ids), a leader atoms and `later`. Issue 13: `/odds`
        copies the state a few times per adjudication (engine/core/odds.py), and the units
        were half of each copy; this one is about twice as fast. A unit or leader with any
        other attribute (none has one) goes through `tree_copy`
        (tests/engine/test_tacw_odds_speed.py checks the copies are equal and unshared)."""
        out = object.__new__(type(self))
        nd = {}
        for k, v in self.__dict__.items():
            if type(v) in _ATOMS:
                nd[k] = v
            elif k == "units":
                nd[k] = {i: _copy_unit(u) for i, u in v.items()}
            elif k == "leaders":
                nd[k] = {i: _copy_leader(ld) for i, ld in v.items()}
            elif not k.startswith("_memo_"):
                nd[k] = tree_copy(v)
        if WHAT_IF.get() is not None:         # /odds: every copy in it shares one origin
            nd["_memo_origin"] = self.__dict__.get("_memo_origin") or self._origin()
        out.__dict__ = nd
        return out

    def _origin(self) -> "Origin":
        """This state's units, leaders and wings as they are now (engine/tacw/odds.py
        `state_key`: a position's merge key is what differs from them): kept on the state
        as engine scratch (`_memo_origin`), and handed on to every copy made in a what-if."""
        origin = self._memo_origin = Origin(self)
        return origin

    def other(self, side: str) -> str:
        return "parliament" if side == "royalist" else "royalist"

    def units_at(self, hex_id: str) -> list[Unit]:
        """The live units on a hex, in the order of `units`. Read from an index of the units'
        hexes, built again whenever a unit was placed or removed anywhere (`_PLACEMENT`); the
        index is engine scratch, never copied (`_memo_` attributes) nor saved."""
        memo = self.__dict__.get("_memo_at")
        units = self.units
        if memo is None or memo[0] != _PLACEMENT[0] or memo[1] is not units or memo[2] != len(units):
            where: dict[str, list[str]] = {}
            for u in units.values():
                if u.alive:
                    for h in u.hexes:
                        where.setdefault(h, []).append(u.id)
            memo = self._memo_at = (_PLACEMENT[0], units, len(units), where)
        return [units[i] for i in memo[3].get(hex_id, ())]

    def leaders_at(self, hex_id: str) -> list[Leader]:
        return [ld for ld in self.leaders.values() if ld.status == "active" and ld.hex == hex_id]

    def wing_units(self, wing_id: str) -> list[Unit]:
        return [u for u in self.units.values() if u.alive and u.wing == wing_id]

    def army_commander(self, side: str) -> Leader | None:
        for ld in self.leaders.values():
            if ld.side == side and ld.role == "ac" and ld.status == "active":
                return ld
        return None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TacwState":
        d = dict(d)        # its values are kept, not copied: see engine.core.game.Ruleset.state_from_dict
        d["units"] = {k: Unit(**v) for k, v in d["units"].items()}
        d["leaders"] = {k: Leader(**v) for k, v in d["leaders"].items()}
        d["wings"] = {k: Wing(**v) for k, v in d["wings"].items()}
        d["activation"] = Activation(**d["activation"]) if d.get("activation") else None
        st = cls(**d)
        label_units(st)
        return st


_ATOMS = frozenset((str, int, float, bool, type(None)))
_UNIT_FIELDS = len(fields(Unit))             # ClassVars (`_called`'s default) are not fields
_LEADER_FIELDS = len(fields(Leader))
_new, _set = object.__new__, object.__setattr__


def _copy_unit(u: Unit) -> Unit:
    """A unit's fields (and `_called`), its `hexes` a new list: what `tree_copy` gives. The
    `__dict__` is set past `Unit.__setattr__` (it watches `hexes` and `status` only)."""
    d = u.__dict__
    n = len(d)
    if type(u) is not Unit or not (n == _UNIT_FIELDS or n == _UNIT_FIELDS + 1 and "_called" in d):
        return tree_copy(u)
    nd = d.copy()
    nd["hexes"] = list(nd["hexes"])          # of hex ids (str)
    out = _new(Unit)
    _set(out, "__dict__", nd)
    return out


def _copy_leader(ld: Leader) -> Leader:
    d = ld.__dict__
    if type(ld) is not Leader or len(d) != _LEADER_FIELDS:
        return tree_copy(ld)
    nd = d.copy()
    if nd["later"]:
        nd["later"] = tree_copy(nd["later"])     # [[name, value], ...]
    else:
        nd["later"] = []
    out = _new(Leader)
    out.__dict__ = nd
    return out


class Origin:
    """A snapshot of a state's units, leaders and wings (their attributes, nothing shared with
    the state: a later change in place cannot reach it), numbered: two merge keys made against
    different origins never compare equal (engine/tacw/odds.py `state_key`)."""
    _serial = itertools.count()

    def __init__(self, st: TacwState):
        self.serial = next(Origin._serial)
        self.units = {i: _snap(u) for i, u in st.units.items()}
        self.leaders = {i: _snap(ld) for i, ld in st.leaders.items()}
        self.wings = {i: _snap(w) for i, w in st.wings.items()}


def _snap(obj) -> dict:
    return {k: v if type(v) in _ATOMS else tree_copy(v) for k, v in obj.__dict__.items()}


def label_units(st: TacwState) -> None:
    """Issue 12: a unit whose name another unit of the battle (or a leader) also bears is called
    by its name and id in every narrative ("Fielding (p-fielding)"); a unique name stays as it is.
    Computed from the state's own units, so an old saved state gets it on loading."""
    count: dict[str, int] = {}
    for u in st.units.values():
        count[u.name] = count.get(u.name, 0) + 1
    leaders = {ld.name for ld in st.leaders.values()}
    for u in st.units.values():
        if count[u.name] > 1 or u.name in leaders:
            u._called = f"{u.name} ({u.id})"
        elif "_called" in vars(u):
            del u._called

