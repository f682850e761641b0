"""Command [4]: the control points (Cpts) a move card gives and what each move costs.

[4 A] On his move card a player first rolls for his Cpts; the general moves free. [4 E] The die
is the army's discipline's: trained d8, regular d6, irregular d4; limited visibility takes 1 off
([15] 1). [4 C] Moving a unit or a group costs 1 Cpt, 2 when the general is dead, in contact with
enemy bases or more than 40 cm away. [4 D] A forced march (one unit alone, double speed) costs 1
Cpt more. [11 A] A demoralised army pays 2 (3 when the general is dead, in contact or beyond 40
cm), but only 1 for a unit or group moving straight toward its own table edge without ending in
contact with the enemy.

The movement module calls `move_cost` to price a move and `spend` to pay it.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import Event, Modifier

from engine.lion import checks, tables

COMMAND_RANGE = tables.COMMAND_RADIUS          # 40 cm [4 C]


def cpt_die(discipline: str) -> int:
    """[4 E] trained d8, regular d6, irregular d4 (tables.CPT_DICE)."""
    return tables.cpt_die(discipline)


def roll_cpts(sc, st, side: str, stream: DiceStream) -> Event:
    """[4 A], [4 E]: the move card's owner rolls his Cpts with his discipline's die; limited
    visibility takes 1 off the roll ([15] 1), never below 0. The Cpts left are stored on the army."""
    army = st.armies[side]
    army.pools = {}
    if sc is not None and _large(st):
        return roll_pools(sc, st, side, stream)
    die = cpt_die(army.discipline)
    value, dr = checks.roll(stream, die, f"{side.title()} Cpts", side)
    mods = []
    if st.weather.get("visibility"):
        mods.append(Modifier(tables.VISIBILITY_CPT_MODIFIER, "limited visibility: -1 to the Cpt roll",
                             "LdN [15] 1"))
    total = max(0, value + sum(m.value for m in mods))
    army.cpts = total
    army.cpts_rolled = total
    dr.effect = f"{total} Cpt{'s' if total != 1 else ''}"
    mod_text = "".join(f" {m.value:+d}" for m in mods)
    return Event("cpts", side, "LdN [4 A], [4 E]",
                 f"{side.title()} ({army.discipline}) rolls d{die}: {value}{mod_text} = {total} Cpt{'s' if total != 1 else ''}",
                 base=value, modifiers=mods, dice=[dr], table=f"Cpt dice: {army.discipline} d{die}",
                 row=army.discipline, outcome={"cpts": total})


def _large(st) -> bool:
    from engine.lion.setup import has_option
    return has_option(st, "large-armies")


def commands(sc, st, side: str) -> list[str]:
    """[4 E] L60 the large-army rule's commands of `side`: the commander-in-chief's (the centre,
    with the reserves and the sub-commanders' units), then each wing general's, by id. A command
    whose general is dead still rolls (HERALD D121)."""
    gens = sorted((g for g in st.generals.values() if g.side == side and g.role in ("cinc", "wing")),
                  key=lambda g: (g.role != "cinc", g.id))
    return [g.id for g in gens]


def pool_of(sc, st, side: str, unit_id: str) -> str:
    """The command whose Cpts pay for a unit's move under the large-army rule [4 E] (HERALD
    D121): its own command's general when he is a wing general, else the commander-in-chief's
    (the centre, which has the reserves and the sub-commanders under it)."""
    from engine.lion.setup import commander_of
    keys = commands(sc, st, side)
    try:
        mine = commander_of(sc, st, unit_id)
    except (KeyError, StopIteration, AttributeError):
        mine = ""
    if mine in keys:
        return mine
    return keys[0] if keys else ""


def roll_pools(sc, st, side: str, stream: DiceStream) -> Event:
    """[4 E] L60 "Determinato quale dei tre generali è il Comandante in capo, questi lancerà il
    dado corrispondente al tipo di esercito, mentre i generali delle ali avranno a disposizione un
    Dado pari ad un livello inferiore ... (esercito addestrato D6, esercito regolare D4, esercito
    irregolare D3)": each command rolls its own die (the general's own discipline's, HERALD D27);
    limited visibility takes 1 off each roll ("tutti i lanci", [15] 1). Each unit pays from its
    own command's pool (pool_of, HERALD D121)."""
    from engine.lion.setup import cpt_die_of
    army = st.armies[side]
    dice, parts, mods = [], [], []
    vis = st.weather.get("visibility")
    for gid in commands(sc, st, side):
        die = cpt_die_of(sc, st, gid)
        value, dr = checks.roll(stream, die, f"{side.title()} Cpts of {gid}'s command", side)
        total = max(0, value + (tables.VISIBILITY_CPT_MODIFIER if vis else 0))
        army.pools[gid] = total
        dr.effect = f"{total} Cpt{'s' if total != 1 else ''} for {gid}'s command"
        dice.append(dr)
        parts.append(f"{gid} d{die}: {value}" + (f" {tables.VISIBILITY_CPT_MODIFIER:+d}" if vis else "")
                     + f" = {total}")
    if vis:
        mods.append(Modifier(tables.VISIBILITY_CPT_MODIFIER, "limited visibility: -1 to each Cpt roll",
                             "LdN [15] 1"))
    army.cpts = army.cpts_rolled = sum(army.pools.values())
    return Event("cpts", side, "LdN [4 A], [4 E]",
                 f"{side.title()} ({army.discipline}, large armies) rolls for each command: " + "; ".join(parts),
                 modifiers=mods, dice=dice, table="Cpt dice: the C-in-C the army's, wings one lower",
                 row=army.discipline, outcome={"cpts": army.cpts, "pools": dict(army.pools)})


def general_in_command(sc, st, side: str, unit_ids: list[str]) -> tuple[bool, str]:
    """[4 C] whether a general commands the move at the ordinary cost: one of `side`'s live
    generals not in contact with enemy bases and within 40 cm of the unit (for a group, of its
    nearest member, HERALD D41). Returns (ok, why not)."""
    generals = [g for g in sorted(st.generals.values(), key=lambda g: g.id) if g.side == side and g.alive]
    if unit_ids and sc is not None:
        from engine.lion.setup import commander_of, has_option
        if has_option(st, "large-armies"):          # [4 E] each command's own general (HERALD D41)
            try:
                mine = commander_of(sc, st, unit_ids[0])
            except (KeyError, StopIteration):
                mine = ""
            generals = [g for g in generals if g.id == mine]
    if not generals:
        return False, "the general is dead"
    units = [st.units[u] for u in unit_ids if u in st.units]
    why = ""
    for g in generals:
        if checks.in_contact_with_enemy(st, g):
            why = why or f"the general ({g.id}) is in contact with the enemy"
            continue
        if not units:
            return True, ""
        near = min(checks.base_distance(g, u) for u in units)
        if near <= COMMAND_RANGE:
            return True, ""
        why = why or f"the general ({g.id}) is {near:g} cm away, more than 40"
    return False, why


def move_cost(sc, st, side: str, unit_ids, *, forced: bool = False,
              toward_own_edge: bool = False) -> tuple[int, str]:
    """The Cpts a move of a unit or a group costs, and why [4 C], [4 D], [11 A]:
    - 1; 2 when the general is dead, in contact with enemy bases or more than 40 cm away [4 C];
    - a demoralised army: 2, or 3 in those cases; 1 for a move straight toward its own table
      edge that does not end in contact with the enemy (`toward_own_edge`, judged by the mover)
      [11 A];
    - forced march: 1 more, a single unit only [4 D].
    A general's own move is free and never priced here [4 A]."""
    unit_ids = list(unit_ids)
    if forced and len(unit_ids) > 1:
        raise Illegal("a forced march is for a single unit, never a group", "LdN [4 D]")
    army = st.armies[side]
    ok, why = general_in_command(sc, st, side, unit_ids)
    cost = tables.move_cost(demoralised=army.demoralised, general_away=not ok,
                            to_own_edge=toward_own_edge, forced=forced)
    if army.demoralised and toward_own_edge:
        reason = "demoralised army moving straight toward its own edge (LdN [11 A])"
    elif army.demoralised:
        reason = "demoralised army" + (f" and {why}" if not ok else "") + " (LdN [11 A])"
    elif ok:
        reason = "a unit or group in command (LdN [4 C])"
    else:
        reason = f"{why} (LdN [4 C])"
    if forced:
        reason += "; forced march +1 (LdN [4 D])"
    reason = f"{cost} Cpt{'s' if cost != 1 else ''}: {reason}"
    return cost, reason


def spend(st, side: str, cost: int, what: str, *, sc=None, unit_ids=()) -> Event:
    """Pay `cost` Cpts for `what` [4 A]; Illegal when fewer are left. Under the large-army rule
    [4 E] the Cpts come from the pool of the first unit's command (pool_of, HERALD D121)."""
    army = st.armies[side]
    if army.pools and unit_ids:
        key = pool_of(sc, st, side, list(unit_ids)[0])
        if key in army.pools:
            left = army.pools[key]
            if cost > left:
                raise Illegal(f"{what} costs {cost} Cpt{'s' if cost != 1 else ''}, {left} left in "
                              f"{key}'s command (each command pays from its own roll)", "LdN [4 E], [4 C]")
            army.pools[key] = left - cost
            army.cpts -= cost
            return Event("cpts_spent", side, "LdN [4 C], [4 E]",
                         f"{side.title()} spends {cost} Cpt{'s' if cost != 1 else ''} of {key}'s command on "
                         f"{what}: {army.pools[key]} left there",
                         base=cost, outcome={"cost": cost, "left": army.cpts, "pool": key,
                                             "pool_left": army.pools[key]})
    if cost > army.cpts:
        raise Illegal(f"{what} costs {cost} Cpt{'s' if cost != 1 else ''}, {army.cpts} left of "
                      f"{army.cpts_rolled} rolled", "LdN [4 C]")
    army.cpts -= cost
    return Event("cpts_spent", side, "LdN [4 C]",
                 f"{side.title()} spends {cost} Cpt{'s' if cost != 1 else ''} on {what}: {army.cpts} left",
                 base=cost, outcome={"cost": cost, "left": army.cpts})
