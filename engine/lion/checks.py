"""The dice and the shared checks of Lion of the North: rolls, disorder, quality, hits, losses.

Dice [Tabella riassuntiva]: d3, d4, d6, d8, d10, d12, each a real polyhedron read 1..N (HERALD D9);
a d3 is a d6 halved rounded up, as clubs roll it (D9): `roll` draws the d6 from the stream and
records both faces. Disorder [9 A] rolls one die smaller, never below a d3; Pike & Shot [12 E]
and Tercios [12 F] step down after their first and second hit. Elite units add 1 to every die,
untrained ones subtract 1 [troop chart]. A second hit destroys a unit, a third a Pike & Shot, a
fourth a Tercio [9 A], [12 E-F]. Losses for demoralisation [11] and victory [14] are weighted
([11 B-C], [12 A-B]).

Also here, the small geometry every module reads of a base: `pose(obj)`, `footprint(obj)`,
`base_distance(a, b)`, `in_contact_with_enemy(st, unit)` (HERALD D2, D3).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier
from engine.core.table.geometry import CONTACT_TOL, Footprint, Pose, distance, distance_floor

from engine.lion import tables


# -- dice -------------------------------------------------------------------------------------------

def roll(stream: DiceStream, die_sides: int, purpose: str, roller: str | None = None,
         reads: tuple[int, ...] | None = None) -> tuple[int, DieRoll]:
    """One die of `die_sides` (3, 4, 6, 8, 10, 12) [Tabella riassuntiva]. A d3 is a d6 halved
    rounded up (HERALD D9): the d6 is drawn (or supplied) and its face kept in the record.
    `roller` is the side whose die it is when it is not the commanding side's (physical dice).

    `reads` (issue 13): the highest value of each band of results the rules read alike (the
    caller promises that the values of one band lead to the same adjudication but for the die
    written in the event), passed to the what-if as DiceStream.roll's `bands` (a d3's value v
    ends at the d6's face 2v); a real roll ignores it."""
    if die_sides == 3:
        bands = None if reads is None else tuple(2 * v for v in reads)
        d3 = f"{purpose} (d3: a d6 halved, rounded up)"
        face = stream.roll(6, d3, roller) if bands is None else stream.roll(6, d3, roller, bands=bands)
        value = (face + 1) // 2
        return value, DieRoll(purpose, "d3", value, face=f"d6 {face}")
    bands = None if reads is None else tuple(reads)
    value = (stream.roll(die_sides, purpose, roller) if bands is None
             else stream.roll(die_sides, purpose, roller, bands=bands))
    return value, DieRoll(purpose, f"d{die_sides}", value)


D3_VALUES = (1, 1, 2, 2, 3, 3)     # a d3 is a d6 halved, rounded up (HERALD D9)


def roll_totals(stream: DiceStream, plans: list[list[tuple[int, str]]], read,
                rollers: list[str | None] | None = None) -> list[tuple[list[int], list[DieRoll]]]:
    """Several rolls, each of dice added into one total, `plans` = [[(die_sides, purpose)]] in
    the order rolled (a melee's sides [8 A-D], [12 E-F]): each roll's values and records, exactly
    as `roll` would give them one after the other (the same draws, a d3 a d6 halved, HERALD
    D9). `rollers`: the side rolling each (None: the commanding side).

    The caller promises that the rules read nothing of these dice but `read(totals)` (each
    roll's total of values, modifiers left out) (issue 13): a what-if then tries each reading
    once, weighted by its number of sequences (DiceStream.roll_sums). A real roll ignores it."""
    sums = [[(6, f"{purpose} (d3: a d6 halved, rounded up)", D3_VALUES) if sides == 3 else (sides, purpose)
             for sides, purpose in plan] for plan in plans]
    out = []
    for plan, faces in zip(plans, stream.roll_sums(sums, read, rollers)):
        values, records = [], []
        for (sides, purpose), face in zip(plan, faces):
            if sides == 3:
                value = (face + 1) // 2
                records.append(DieRoll(purpose, "d3", value, face=f"d6 {face}"))
            else:
                value = face
                records.append(DieRoll(purpose, f"d{sides}", value))
            values.append(value)
        out.append((values, records))
    return out


def roll_2d6(stream: DiceStream, purpose: str, roller: str | None = None) -> tuple[int, list[DieRoll]]:
    """Two d6 added ([5 B] cavalry in woods, [8 E] disengaging, [15] 2 sunset)."""
    a, ra = roll(stream, 6, f"{purpose}, first d6", roller)
    b, rb = roll(stream, 6, f"{purpose}, second d6", roller)
    return a + b, [ra, rb]


# -- the die a unit rolls -----------------------------------------------------------------------------

def step_down(die: int, n: int = 1) -> int:
    """`n` sizes smaller on the ladder d3-d4-d6-d8-d10-d12, never below a d3 [9 A]."""
    return tables.step_down(die, n)


def disorder_steps(unit) -> tuple[int, str, str]:
    """How many die sizes disorder takes off `unit`, why, and the rule: an ordinary unit one once
    disordered [9 A]; a Pike & Shot one from its first hit [12 E]; a Tercio one from its second
    [12 F] (tables.disorder_steps); a unit looting an enemy camp counts as disordered [12 A]."""
    n = tables.disorder_steps(unit.type, unit.hits)
    if n:
        if unit.type == "tercio":
            return n, f"Tercio with {unit.hits} hits: one die smaller", "LdN [12 F]"
        if "pike_and_shot" in unit.type:
            return n, f"Pike & Shot with {unit.hits} hit{'s' if unit.hits > 1 else ''}: one die smaller", "LdN [12 E]"
        return n, "disordered: one die smaller", "LdN [9 A]"
    if unit.looting:
        return 1, "looting an enemy camp, counts as disordered: one die smaller", "LdN [12 A], [9 A]"
    return 0, "", ""


def disorder_die(unit, sc, base_die: int) -> tuple[int, list[Modifier]]:
    """The die `unit` rolls to shoot or fight once disorder is counted [9 A], [12 E-F]: one size
    smaller, never below a d3 ("ma mai con un dado minore di 1d3"). The modifiers returned count
    die sizes (value -1 = one size smaller), for the record."""
    n, why, section = disorder_steps(unit)
    if not n or not base_die:
        return base_die, []
    die = step_down(base_die, n)
    return die, [Modifier(-n, f"{why} (d{base_die} -> d{die})", section)]


def quality_modifier(sc, unit) -> Modifier | None:
    """[troop chart] "Unità d'Elitè sommano sempre 1 al dado. Unità non addestrate sottraggono
    sempre 1 al dado": +1 elite, -1 untrained, to every die the unit rolls."""
    q = (getattr(unit, "quality", "") or "").lower()
    value = tables.QUALITY_MODIFIER.get(q, 0)
    if value > 0:
        return Modifier(value, "elite unit: +1 to every die", "LdN [Tabella riassuntiva]")
    if value < 0:
        return Modifier(value, "untrained unit: -1 to every die", "LdN [Tabella riassuntiva]")
    return None


# -- hits ---------------------------------------------------------------------------------------------

def hits_to_destroy(unit) -> int:
    """[9 A] a second disorder destroys; [12 E] a Pike & Shot needs 3, [12 F] a Tercio 4."""
    return tables.hits_to_destroy(unit.type)


def hit(sc, st, unit, cause: str, section: str = "LdN [9 A]") -> Event:
    """One level of disorder on `unit` [9 A]: a unit already disordered is destroyed by the next
    hit (a Pike & Shot by its third [12 E], a Tercio by its fourth [12 F]). A unit looting an enemy
    camp counts as disordered [12 A]: an ordinary unit's first hit then counts as its second
    (HERALD D44). Artillery captured or spiked in melee [9 B] is the melee module's. A general
    attached to a destroyed unit is left alone where he stands."""
    from engine.lion.rules import named
    extra = 1 if unit.looting and unit.hits == 0 and tables.disorder_steps(unit.type, 1) else 0
    level = unit.hits + extra + 1
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
    return tables.weight(unit.type)


def general_weight(general) -> int:
    """[11 B] the commander-in-chief counts as 2 units, a sub-commander (or wing general) as 1."""
    return tables.weight("general", general.role)


def camp_value(discipline: str) -> int:
    """[12 A] a captured camp counts as 2 units (trained), 3 (regular), 5 (irregular)."""
    return tables.CAMP_VALUE[discipline]


def weighted_losses(sc, st, side: str) -> dict:
    """`side`'s losses, weighted [11 B-C], [12 A-B]:
    - total: the army's strength, every unit and general as it counts (P&S 2, Tercio 3, the
      commander-in-chief 2, a sub-commander 1), reinforcements still to come included; a camp
      is never in the total (HERALD D22);
    - demoralisation: units destroyed (or guns captured by the enemy [9 B]) and generals killed,
      a reinforcement back on the table not counted [12 B], the camp counted while captured, a
      recaptured camp not [12 A];
    - victory: the same, but returned reinforcements still count as lost [12 B] and the camp's
      value counts once it was captured, even if recaptured ("conta contro le perdite totali")
      [12 A];
    - demoralised_at / beaten_at: 40% and 60% of total, rounded up [11 A], [14 A]."""
    total = lost = returned_back = 0
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.side != side:
            continue
        w = unit_weight(sc, u)
        total += w
        if u.status == "destroyed" or (u.captured_by and u.captured_by != side):
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
            "demoralised_at": tables.demoralisation_threshold(total),
            "beaten_at": tables.victory_threshold(total)}


# -- a base's geometry (HERALD D2, D3) -------------------------------------------------------------

def pose(obj) -> Pose:
    """The Pose of a unit, general or camp (centre of its front edge, facing)."""
    return Pose(obj.x, obj.y, obj.facing)


def footprint(obj) -> Footprint:
    """The Footprint of a unit (its type's base [2], HERALD D2; dragoons on foot stand on an
    infantry base), a general (2 x 2) or a camp (9 x 6)."""
    if hasattr(obj, "role"):
        size = tables.GENERAL_SIZE
    elif not hasattr(obj, "type"):
        size = tables.CAMP_SIZE
    else:
        size = tables.footprint(obj.type, obj.mounted)
    return Footprint(size.width, size.depth)


def base_distance(a, b) -> float:
    """The shortest distance between two bases (HERALD D3), cm rounded to 0.01."""
    return distance(pose(a), footprint(a), pose(b), footprint(b))


def within(a, b, limit: float) -> bool:
    """base_distance(a, b) <= limit (HERALD D3), a cheap lower bound first
    (geometry.distance_floor): bases surely further apart are not measured."""
    pa, fa, pb, fb = pose(a), footprint(a), pose(b), footprint(b)
    if distance_floor(pa, fa, pb, fb) > limit + 0.02:
        return False
    return distance(pa, fa, pb, fb) <= limit


def controller(unit) -> str:
    """The side a unit works for: a gun captured in melee works for its captor [9 B]."""
    return unit.captured_by or unit.side


def in_contact_with_enemy(st, obj) -> bool:
    """Any live enemy unit touching `obj` (HERALD D3: distance <= CONTACT_TOL)."""
    side = controller(obj) if hasattr(obj, "captured_by") else obj.side
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and controller(u) != side and u is not obj and within(obj, u, CONTACT_TOL):
            return True
    return False
