"""Squares [4.2], and who may form one against a charge [9.3].

    square <unit>    the unit's stack forms square, or leaves it if in square

[4.2] L221-L227: only in open terrain (tables `open_terrain`: clear ground and the Marengo cascina,
HERALD D9, D73), only infantry and artillery neither disordered nor routed, artillery only in the
hex of infantry that forms square too. A unit or a stack forms square voluntarily in its
activation if it does not move: it costs all its MP, With or Without Orders; leaving costs 1 MP and
the unit faces as it likes (`move <unit> face <vertex>`, free) and may go on with the MP it has
left (HERALD D24). Neither in an enemy ZoC, except the reaction to a charge [9.3], which is the
combat module's (it calls `can_form_square`). A square moves at most one hex of open terrain for at
most 2 MP (move.py); it has six fronts and no ZoC [6.1], [6.2] (geometry.py); no unit passes
through it, and it stacks only with squares [4.4], [5.1].

HERALD D88: `square` acts on the whole stack of the hex. [5.1] L275 bars a square and a unit not in
square from one hex, and [4.2] speaks of "una unità, o una pila di unità": the infantry of the
stack (all of the active formation) form or leave square together, and stacked artillery, of any
formation, conforms to what the infantry does, as in [9.3] L623 ("si conforma a quello che fa la
fanteria"). If one unit of the stack may not, the stack may not.
"""
from __future__ import annotations

from fractions import Fraction

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.jdg import geometry, rules, tables
from engine.jdg.combat.results import forbidden, name_of
from engine.jdg.movement.costs import fmt_mp
from engine.jdg.sequence import command as chiefs
from engine.jdg.state import JdgState, Unit

USAGE = "square <unit>: its stack forms square (all its MP, open ground, not in an enemy ZoC) or leaves it (1 MP) (JdG [4.2])"


def can_form_square(sc, st: JdgState, unit: Unit) -> tuple[bool, str]:
    """[4.2], [9.3], [10.1], [10.2]: whether `unit` may be in square where it stands, ZoC and MP
    aside (the reaction to a charge [9.3] is allowed in an enemy ZoC): infantry, or artillery
    stacked with infantry that may form square; neither disordered nor routed; in open terrain.
    Returns (True, "") or (False, the reason with its paragraph)."""
    name = name_of(sc, unit)
    if not unit.alive:
        return False, f"{name} is not on the map"
    if unit.square:
        return False, f"{name} is already in square (JdG [4.2])"
    if unit.arm == "cavalry":
        return False, f"{name} is cavalry: only infantry, and artillery with it, form square (JdG [4.2])"
    reason, section = forbidden(unit, "square")
    if reason:
        return False, f"{reason} ({section})"
    terrain = geometry.terrain(sc, unit.hex)
    if not terrain.open_terrain:
        return False, f"{name} is in {terrain.key.replace('_', ' ')}: squares form only in open terrain (JdG [4.2])"
    if unit.arm == "artillery":
        infantry = [u for u in st.units_at(unit.hex) if u.side == unit.side and u.arm == "infantry"]
        if not any(can_form_square(sc, st, u)[0] for u in infantry):
            return False, (f"{name} is artillery: it forms square only in the hex of infantry that "
                           "forms square (JdG [4.2], [9.3])")
    return True, ""


def _full_mp(sc, st: JdgState, unit: Unit) -> Fraction:
    """The unit's MP this activation (0 if it may not move at all)."""
    from engine.jdg.movement.move import allowance
    try:
        return allowance(sc, st, unit).mp
    except Illegal:
        return Fraction(0)


def do_square(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`square <unit>`: form square or leave it [4.2] (HERALD D24, D88)."""
    from engine.jdg.movement.move import need_mover
    rules.need_active(st, side)
    if not cmd.args:
        raise CannotParse("usage: " + USAGE)
    unit = need_mover(sc, st, side, cmd.args[0])
    if not unit.alive:
        raise Illegal(f"{name_of(sc, unit)} is not on the map yet", "JdG [5.2]")
    rules.enter_step(st, "movement", sc=sc)
    act = st.activation
    stack = [u for u in st.units_at(unit.hex) if u.side == side]
    infantry = [u for u in stack if u.arm == "infantry"]
    if not unit.square and unit.arm == "cavalry":
        raise Illegal(can_form_square(sc, st, unit)[1])
    if not infantry:
        raise Illegal(f"{name_of(sc, unit)}: only infantry, and artillery with it, form square", "JdG [4.2]")
    for u in infantry:
        if not chiefs.may_act(st, u):
            raise Illegal(f"{name_of(sc, u)} shares the hex and is not of the active formation: the "
                          "stack forms or leaves square together (HERALD D88)", "JdG [4.2], [5.1]")
    zoc = geometry.enemy_zoc(sc, st, unit.hex, side)
    leaving = unit.square
    verb = "leave" if leaving else "form"
    if zoc:
        raise Illegal(f"{unit.hex} is in the ZoC of {name_of(sc, zoc[0])}: no square may {verb} in an "
                      "enemy ZoC (only against a charge, JdG [9.3])", "JdG [4.2]")
    names = ", ".join(name_of(sc, u) for u in stack)
    if leaving:
        cost = tables.RULE_NUMBERS["leave_square_mp"][0]
        for u in infantry:
            left = _full_mp(sc, st, u) - Fraction(act.mp_used.get(u.id, 0)).limit_denominator(2)
            if left < cost:
                raise Illegal(f"{name_of(sc, u)} has {fmt_mp(left)} MP left: leaving square costs {cost}",
                              "JdG [4.2]")
        for u in stack:
            u.square = False
            u.acted = True
            if chiefs.may_act(st, u):
                act.mp_used[u.id] = float(Fraction(act.mp_used.get(u.id, 0)).limit_denominator(2) + cost)
        return [Event("square", side, "JdG [4.2]",
                      f"{names} leave square in {unit.hex} for {cost} MP; they may face as they like "
                      "and move on with the MP left",
                      inputs={"unit": unit.id, "hex": unit.hex},
                      outcome={"square": False, "units": [u.id for u in stack], "mp": cost})]
    # the named unit answers first, then its infantry, then the rest of the stack (the artillery
    # on top [5.1] only follows the infantry [4.2]: its refusal would hide the infantry's reason)
    for u in sorted(stack, key=lambda x: (x.id != unit.id, x.arm != "infantry")):
        ok, reason = can_form_square(sc, st, u)
        if not ok:
            raise Illegal(reason)
        if u.id in act.moved or act.mp_used.get(u.id):
            raise Illegal(f"{name_of(sc, u)} has moved this activation: a square forms only without "
                          "moving, for all its MP", "JdG [4.2]")
    for u in stack:
        u.square = True
        u.acted = True
        act.mp_used[u.id] = float(_full_mp(sc, st, u)) or float(act.mp_used.get(u.id, 0))
    return [Event("square", side, "JdG [4.2]",
                  f"{names} form square in {unit.hex}, spending all their MP (six fronts, no ZoC)",
                  inputs={"unit": unit.id, "hex": unit.hex},
                  outcome={"square": True, "units": [u.id for u in stack]})]


rules.register("square", do_square, USAGE)
