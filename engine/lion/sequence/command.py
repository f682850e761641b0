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


def spend(st, side: str, cost: int, what: str) -> Event:
    """Pay `cost` Cpts for `what` [4 A]; Illegal when fewer are left."""
    army = st.armies[side]
    if cost > army.cpts:
        raise Illegal(f"{what} costs {cost} Cpt{'s' if cost != 1 else ''}, {army.cpts} left of "
                      f"{army.cpts_rolled} rolled", "LdN [4 C]")
    army.cpts -= cost
    return Event("cpts_spent", side, "LdN [4 C]",
                 f"{side.title()} spends {cost} Cpt{'s' if cost != 1 else ''} on {what}: {army.cpts} left",
                 base=cost, outcome={"cost": cost, "left": army.cpts})
