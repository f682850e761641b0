"""What a hex costs to enter: the Terrain Effects Table, roads and paths, hexsides [4.3], [0.2].

A unit pays, for every hex it enters, the TET cost of that hex for its arm plus the cost of the
hexside it crosses (tables.move_cost; the TET is Herald completion, DECISIONS D7). Roads [4.3]:
a unit entering a road hex from another hex of the same road pays the road rate (tables: 1/2 MP,
hexside costs cancelled), except for a hex adjacent to an enemy unit, which is paid at its normal
cost ("Un’unità non può utilizzare il movimento su strada per porsi adiacente ad un’unità
nemica", L235; HERALD D23). A path ("sentiero") costs its own rate along it. Impassable hexes and
hexsides are entered or crossed only where a road, a path or a bridge crosses them (L239); the
Bormida and its flooded hexes never (Marengo 4.3, L945).

Hexside features are the scenario's (scenario.HEXSIDE_TYPES). Where one side carries both a
watercourse and its crossing (the Fontanone's bridge and ford), the crossing replaces the
watercourse: the stream is crossed at the bridge or ford, not in addition to it ([6.2] L367
"ponti o guadi su corsi d’acqua altrimenti non attraversabili"). The scenario's "impassable"
barrier is impassable to every arm.

Values are tables.py's; MP are `Fraction`s (the road's half MP).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.jdg import tables
from engine.jdg.state import JdgState

WATERCOURSES = ("river", "stream")
CROSSINGS = ("bridge", "ford")
BARRIER = "impassable"           # scenario.HEXSIDE_TYPES: a barrier no arm crosses [4.3] L239


def fmt_mp(mp) -> str:
    """MP for people: 3, 1/2, 2 1/2."""
    mp = Fraction(mp)
    whole, rest = divmod(mp.numerator, mp.denominator)
    if not rest:
        return str(whole)
    frac = f"{rest}/{mp.denominator}"
    return f"{whole} {frac}" if whole else frac


def _routes(sc) -> dict[frozenset, str]:
    """{a, b} -> "road" or "path" for every two consecutive hexes of one road or path (the map's
    fixed data, built once)."""
    got = getattr(sc, "_jdg_routes", None)
    if got is None:
        got = {}
        for road in sc.map.roads:
            for a, b in zip(road.hexes, road.hexes[1:]):
                pair = frozenset((a, b))
                if got.get(pair) != "road":             # a road beats a path on the same side
                    got[pair] = road.kind
        object.__setattr__(sc, "_jdg_routes", got)
    return got


def route_between(sc, a: str, b: str) -> str:
    """"road" or "path" when `a` and `b` follow each other on one road or path [4.3], else ""."""
    return _routes(sc).get(frozenset((a, b)), "")


def adjacent_to_enemy(sc, st: JdgState, hex_id: str, side: str) -> bool:
    """A hex next to an enemy combat unit on the map (any unit: artillery too) [4.3], [12]."""
    for n in sc.map.grid.neighbors(hex_id):
        if any(u.side != side for u in st.units_at(n)):
            return True
    return False


def hexside_features(sc, a: str, b: str) -> tuple[str, ...]:
    """The features of the side between `a` and `b` that cost or bar movement: a crossing
    (bridge, ford) replaces the watercourse it crosses."""
    feats = sc.map.features(a, b)
    if any(f in CROSSINGS for f in feats):
        feats = tuple(f for f in feats if f not in WATERCOURSES)
    return feats


@dataclass(frozen=True)
class StepCost:
    """The terrain cost of entering one hex: `mp` (None: the unit may not enter it), how it was
    reckoned for people, and whether the road rate was used."""
    mp: Fraction | None
    how: str
    road: bool = False
    normal: Fraction | None = None      # hex + hexside at the normal rate (a charge's limit [9.1])


def terrain_cost(sc, arm: str, hex_id: str, from_hex: str | None = None) -> tuple[Fraction | None, str]:
    """Hex + hexside at the normal rate for `arm` (tables.move_cost), None if impassable [4.3]."""
    terrain = sc.map.terrain_at(hex_id)
    cost = tables.move_cost(arm, terrain)
    how = f"{terrain} {fmt_mp(cost)}" if cost is not None else f"{terrain} impassable"
    if cost is None:
        return None, how
    cost = Fraction(cost)
    if from_hex is not None:
        for f in hexside_features(sc, from_hex, hex_id):
            t = tables.TERRAIN.get(f)
            extra = None if (f == BARRIER or t is None) else t.mp.get(arm)
            if extra is None:
                return None, f"{how} across {f.replace('_', ' ')}: impassable"
            if extra:
                how += f" + {f.replace('_', ' ')} {fmt_mp(extra)}"
            cost += Fraction(extra)
    return cost, how


def step_cost(sc, st: JdgState, arm: str, from_hex: str | None, hex_id: str, side: str) -> StepCost:
    """The terrain cost of entering `hex_id` from `from_hex` (None: from off the map, a
    reinforcement's entry hex) [4.3]: the road or path rate along one, else hex + hexside."""
    if not sc.map.passable(hex_id):
        return StepCost(None, f"{hex_id} is the Bormida or flooded by it: no unit may enter (JdG [D.4.3])")
    normal, how = terrain_cost(sc, arm, hex_id, from_hex)
    route = route_between(sc, from_hex, hex_id) if from_hex else ""
    if route == "road":
        if not adjacent_to_enemy(sc, st, hex_id, side):
            rate = Fraction(tables.TERRAIN["road"].mp[arm])
            return StepCost(rate, f"road {fmt_mp(rate)}", True, normal)
        if normal is None:
            return StepCost(None, f"{how}: off the road rate (next to an enemy unit, JdG [4.3]) "
                                  "it cannot be entered", False, normal)
        return StepCost(normal, f"{how} (next to an enemy: no road rate, JdG [4.3])", False, normal)
    if route == "path":
        rate = Fraction(tables.TERRAIN["path"].mp[arm])
        return StepCost(rate, f"path {fmt_mp(rate)}", False, normal)
    return StepCost(normal, how, False, normal)
