"""The dice and the shared checks of Lion of the North: rolls, disorder, quality, hits, losses.

Dice [Tabella riassuntiva]: d3, d4, d6, d8, d10, d12, each a real polyhedron read 1..N (HERALD L9);
a d3 is a d6 halved rounded up, as clubs roll it (L9): `roll` draws the d6 from the stream and
records both faces. Disorder [9 A] rolls one die smaller, never below a d3; Pike & Shot [12 E]
and Tercios [12 F] step down after their first and second hit. Elite units add 1 to every die,
untrained ones subtract 1 [troop chart]. A second hit destroys a unit, a third a Pike & Shot, a
fourth a Tercio [9 A], [12 E-F]. Losses for demoralisation [11] and victory [14] are weighted
([11 B-C], [12 A-B]).

Also here, the small geometry every module reads of a base: `pose(obj)`, `footprint(obj)`,
`base_distance(a, b)`, `in_contact_with_enemy(st, unit)` (HERALD L2, L3).
"""
from __future__ import annotations

import math

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier

GENERAL_FOOTPRINT = (2.0, 2.0)     # [2] 20 x 20 mm (HERALD L2)
CAMP_FOOTPRINT = (9.0, 6.0)        # [2] 90 x 60 mm


# -- dice -------------------------------------------------------------------------------------------

def roll(stream: DiceStream, die_sides: int, purpose: str, roller: str | None = None) -> tuple[int, DieRoll]:
    """One die of `die_sides` (3, 4, 6, 8, 10, 12) [Tabella riassuntiva]. A d3 is a d6 halved
    rounded up (HERALD L9): the d6 is drawn (or supplied) and its face kept in the record.
    `roller` is the side whose die it is when it is not the commanding side's (physical dice)."""
    if die_sides == 3:
        face = stream.roll(6, f"{purpose} (d3: a d6 halved, rounded up)", roller)
        value = (face + 1) // 2
        return value, DieRoll(purpose, "d3", value, face=f"d6 {face}")
    value = stream.roll(die_sides, purpose, roller)
    return value, DieRoll(purpose, f"d{die_sides}", value)


def roll_2d6(stream: DiceStream, purpose: str, roller: str | None = None) -> tuple[int, list[DieRoll]]:
    """Two d6 added ([5 B] cavalry in woods, [8 E] disengaging, [15] 2 sunset)."""
    a, ra = roll(stream, 6, f"{purpose}, first d6", roller)
    b, rb = roll(stream, 6, f"{purpose}, second d6", roller)
    return a + b, [ra, rb]


# -- the die a unit rolls -----------------------------------------------------------------------------

def _tables():
    from engine.lion import tables
    return tables


def step_down(die: int, n: int = 1) -> int:
    """`n` sizes smaller on the ladder d3-d4-d6-d8-d10-d12, never below a d3 [9 A]."""
    t = _tables()
    fn = getattr(t, "step_down", None)
    if fn is not None:
        return fn(die, n)
    ladder = getattr(t, "DIE_LADDER", (3, 4, 6, 8, 10, 12))
    i = ladder.index(die) if die in ladder else 0
    return ladder[max(0, i - n)]


def disorder_steps(unit) -> tuple[int, str, str]:
    """How many die sizes disorder takes off `unit` (its level of disorder), why, and the rule:
    an ordinary unit (or one looting, which counts as disordered [12 A]) one [9 A]; a Pike & Shot
    one from its first hit [12 E]; a Tercio one from its second hit [12 F]."""
    hits = unit.hits
    if unit.type == "tercio":
        if hits >= 2:
            return 1, f"Tercio with {hits} hits: one die smaller", "LdN [12 F]"
        if unit.looting:
            return 1, "looting an enemy camp, counts as disordered: one die smaller", "LdN [12 A], [9 A]"
        return 0, "", ""
    if unit.type == "pike_and_shot" or unit.type.startswith("pike_and_shot") or unit.type == "late_pike_and_shot":
        if hits >= 1:
            return 1, f"Pike & Shot with {hits} hit{'s' if hits > 1 else ''}: one die smaller", "LdN [12 E]"
    elif hits >= 1:
        return 1, "disordered: one die smaller", "LdN [9 A]"
    if unit.looting:
        return 1, "looting an enemy camp, counts as disordered: one die smaller", "LdN [12 A], [9 A]"
    return 0, "", ""


def disorder_die(unit, sc, base_die: int) -> tuple[int, list[Modifier]]:
    """The die `unit` rolls to shoot or fight once disorder is counted [9 A], [12 E-F]: one size
    smaller, never below a d3 ("ma mai con un dado minore di 1d3"). The modifiers returned count
    die sizes (value -1 = one size smaller), for the record."""
    n, why, section = disorder_steps(unit)
    if not n:
        return base_die, []
    die = step_down(base_die, n)
    return die, [Modifier(-n, f"{why} (d{base_die} -> d{die})", section)]


def quality_modifier(sc, unit) -> Modifier | None:
    """[troop chart] "Unità d'Elitè sommano sempre 1 al dado. Unità non addestrate sottraggono
    sempre 1 al dado": +1 elite, -1 untrained, to every die the unit rolls."""
    q = (getattr(unit, "quality", "") or "").lower()
    if q == "elite":
        return Modifier(1, "elite unit: +1 to every die", "LdN [Tabella riassuntiva]")
    if q == "untrained":
        return Modifier(-1, "untrained unit: -1 to every die", "LdN [Tabella riassuntiva]")
    return None


# -- hits ---------------------------------------------------------------------------------------------

def hits_to_destroy(unit) -> int:
    """[9 A] a second disorder destroys; [12 E] a Pike & Shot needs 3, [12 F] a Tercio 4."""
    t = _tables()
    table = getattr(t, "HITS_TO_DESTROY", None)
    if isinstance(table, dict):
        if unit.type in table:
            return int(table[unit.type])
        return int(table.get("default", 2))
    if unit.type == "tercio":
        return 4
    if "pike_and_shot" in unit.type:
        return 3
    return 2


def hit(sc, st, unit, cause: str, section: str = "LdN [9 A]") -> Event:
    """One level of disorder on `unit` [9 A]: a unit already disordered is destroyed by the next
    hit (a Pike & Shot by its third [12 E], a Tercio by its fourth [12 F]). A unit looting an enemy
    camp counts as disordered [12 A]: its first hit counts as its second (HERALD L44). Artillery
    captured or spiked in melee [9 B] is the melee module's. A general attached to a destroyed
    unit is left alone where he stands."""
    from engine.lion.rules import named
    level = unit.hits + (1 if unit.looting and unit.hits == 0 else 0) + 1
    unit.hits = level
    need = hits_to_destroy(unit)
    name = named(sc, unit.id)
    if level >= need:
        unit.status = "destroyed"
        unit.looting = False
        for g in sorted(st.generals.values(), key=lambda g: g.id):
            if g.attached_to == unit.id:
                g.attached_to = ""
        for camp in st.camps.values():
            if unit.id in camp.looters:
                camp.looters.remove(unit.id)
            if camp.garrison == unit.id:
                camp.garrison = ""
        return Event("destroyed", unit.side, section, f"{name} is destroyed ({cause}): hit {level} of {need}",
                     outcome={"unit": unit.id, "hits": level, "destroyed": True})
    return Event("hit", unit.side, section, f"{name} is disordered ({cause}): hit {level} of {need}",
                 outcome={"unit": unit.id, "hits": level, "destroyed": False})


# -- losses ---------------------------------------------------------------------------------------------

def unit_weight(sc, unit) -> int:
    """[11 C] a Pike & Shot counts as 2 units, a Tercio as 3, every other unit as 1."""
    t = _tables()
    troop = getattr(t, "TROOPS", {}).get(unit.type)
    w = getattr(troop, "weight", None)
    if w:
        return int(w)
    weights = getattr(t, "WEIGHTS", {})
    if isinstance(weights, dict) and unit.type in weights:
        return int(weights[unit.type])
    return 3 if unit.type == "tercio" else 2 if "pike_and_shot" in unit.type else 1


def general_weight(general) -> int:
    """[11 B] the commander-in-chief counts as 2 units, a sub-commander (or wing general) as 1."""
    t = _tables()
    weights = getattr(t, "WEIGHTS", {})
    if isinstance(weights, dict) and general.role in weights:
        return int(weights[general.role])
    return 2 if general.role == "cinc" else 1


def camp_value(discipline: str) -> int:
    """[12 A] a captured camp counts as 2 units (trained), 3 (regular), 5 (irregular)."""
    t = _tables()
    table = getattr(t, "CAMP_VALUE", None)
    if isinstance(table, dict) and discipline in table:
        return int(table[discipline])
    return {"trained": 2, "regular": 3, "irregular": 5}.get(discipline, 3)


def weighted_losses(sc, st, side: str) -> dict:
    """`side`'s losses, weighted [11 B-C], [12 A-B]:
    - total: the army's strength, every unit and general as it counts (P&S 2, Tercio 3, the
      commander-in-chief 2, a sub-commander 1), reinforcements still to come included;
    - demoralisation: units and generals destroyed or killed, a returned reinforcement not
      counted [12 B], the camp counted once captured, a recaptured camp not [12 A];
    - victory: the same, returned reinforcements counted as lost [12 B] and the camp's value
      counted once it was captured, even if recaptured ("conta contro le perdite totali") [12 A];
    - pct_demoralisation, pct_victory: as fractions of `total` (0..1)."""
    total = lost = 0
    returned_back = 0
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.side != side:
            continue
        w = unit_weight(sc, u)
        total += w
        if u.status == "destroyed":
            lost += w
        elif u.id in st.returned:
            returned_back += w
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.side != side:
            continue
        w = general_weight(g)
        total += w
        if g.status == "killed":
            lost += w
    camp_demo = camp_victory = 0
    camp = st.camps.get(side)
    army = st.armies.get(side)
    if camp is not None and army is not None:
        value = camp_value(army.discipline)
        if camp.captured_by:
            camp_demo = camp_victory = value
        elif camp.recaptured:
            camp_victory = value
    demo = lost + camp_demo
    victory = lost + returned_back + camp_victory
    return {"side": side, "total": total, "demoralisation": demo, "victory": victory,
            "pct_demoralisation": demo / total if total else 0.0,
            "pct_victory": victory / total if total else 0.0,
            "demoralised_at": math.ceil(0.4 * total), "beaten_at": math.ceil(0.6 * total)}


# -- a base's geometry (HERALD L2, L3) -------------------------------------------------------------

def pose(obj):
    """The Pose of a unit, general or camp (centre of its front edge, facing)."""
    from engine.core.table.geometry import Pose
    return Pose(obj.x, obj.y, obj.facing)


def footprint(obj):
    """The Footprint of a unit (its type's [2], HERALD L2; dismounted dragoons 4 x 2), a general
    (2 x 2) or a camp (9 x 6)."""
    from engine.core.table.geometry import Footprint
    if hasattr(obj, "role"):
        return Footprint(*GENERAL_FOOTPRINT)
    if not hasattr(obj, "type"):
        return Footprint(*CAMP_FOOTPRINT)
    t = _tables()
    key = obj.type
    if key == "dragoons" and not obj.mounted:
        for alt in ("dismounted_dragoons", "dragoons_dismounted"):
            if alt in getattr(t, "TROOPS", {}):
                key = alt
                break
        else:
            return Footprint(4.0, 2.0)
    fp = getattr(getattr(t, "TROOPS", {}).get(key), "footprint", None)
    if fp is None:
        return Footprint(4.0, 2.0)
    if isinstance(fp, Footprint):
        return fp
    return Footprint(*fp)


def base_distance(a, b) -> float:
    """The shortest distance between two bases (HERALD L3), cm rounded to 0.01."""
    from engine.core.table.geometry import distance
    return distance(pose(a), footprint(a), pose(b), footprint(b))


def in_contact_with_enemy(st, obj) -> bool:
    """Any live enemy unit touching `obj` (HERALD L3: distance <= CONTACT_TOL)."""
    from engine.core.table.geometry import CONTACT_TOL
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and u.side != obj.side and base_distance(obj, u) <= CONTACT_TOL:
            return True
    return False
