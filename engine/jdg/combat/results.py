"""Combat results of Jours de Gloire [10]: the ladder of a unit's state, and the cohesion check.

The ladder [10.1], [10.2]: good order -> (disorder) -> disordered (the counter flipped to its
reduced face) -> (disorder) -> routed (the "Déroute" marker) -> (disorder) -> eliminated (removed
for good). A unit routed retreats at once 2 hexes (infantry) or 3 (cavalry), and is eliminated if
it cannot complete that retreat ([10.2] L710, the move itself in combat/retreat.py).

Functions the other rule modules call (all return the events they produce):

  cohesion_check(sc, st, unit, stream, what, section, modifiers=(), roller=None) -> (passed, events)
  worsen(sc, st, unit, stream, steps, section, cause, away_from=None) -> events
  disorder / rout / eliminate(sc, st, unit, stream, section, cause, away_from=None) -> events

`away_from` is what caused the result (a hex, a unit, or a list of them): the rout retreat moves
away from it ([10.3], HERALD D58); without one the unit retreats toward its side's rout exit
(HERALD D76). The values a unit uses ([10.1], HERALD D2) and what a disordered or routed unit may
not do ([10.1], [10.2]) are here too, for the movement, fire and combat modules:

  cohesion(sc, unit), engagement(sc, unit), movement_points(sc, unit)
  forbidden(unit, action) -> reason or ""     (action: force_march, assault, charge, square,
                                               counter_charge, fire, move)

Scoring is the victory code's: the facts stay in the state (Unit.status "eliminated", condition
"routed"), and the scenario's `victory.unit_eliminated_vp` / `unit_routed_vp` score them.

HERALD decisions (DECISIONS.md):
- D2: cohesion, engagement and MP are read from the face up: disordered and routed units use the
  back of the counter.
- D37: artillery that would rout is eliminated, whether by a second disorder or by a rout result;
  a routed unit given a rout result is eliminated.
- D45: a disorder that routs the unit adds its rout retreat from where it then stands.
- D46: a routed unit asked for a cohesion check makes a phase-E rout move instead (10.4).
- D76: a unit routed with no enemy unit causing it retreats toward its side's rout exit.
"""
from __future__ import annotations

from typing import Iterable

from engine.core.dice import DiceStream
from engine.core.events import Event, Modifier

from engine.jdg import checks, tables
from engine.jdg.state import JdgState, Unit

LADDER = ("good", "disordered", "routed", "eliminated")      # [10.1]


# -- the values of the face up [10.1], HERALD D2 ------------------------------------------------

def name_of(sc, unit: Unit) -> str:
    """A unit named for people: "24e Légère (f-24l)"."""
    try:
        return f"{sc.unit(unit.id).name} ({unit.id})"
    except (KeyError, StopIteration):
        return unit.id


def cohesion(sc, unit: Unit) -> int:
    """[0.3], [10.1]: the cohesion of the face up; a disordered or routed unit uses the reduced
    value of its back (HERALD D2; [11] L780 says so for rally)."""
    us = sc.unit(unit.id)
    return us.cohesion_back if unit.disordered else us.cohesion


def engagement(sc, unit: Unit) -> int:
    """[0.3], [10.1]: the engagement value of the face up (HERALD D2)."""
    us = sc.unit(unit.id)
    back = getattr(us, "engagement_back", None)
    return back if (unit.disordered and back is not None) else us.engagement


def movement_points(sc, unit: Unit) -> int:
    """[0.3], [10.1], [10.4]: the MP of the face up; a routed unit's rout move uses the back (L762),
    and a disordered one moves on its back too (HERALD D2)."""
    us = sc.unit(unit.id)
    return us.mp_back if unit.disordered else us.mp


def is_night(sc, st: JdgState) -> bool:
    """[12]: which turns are night is the scenario's (HERALD D8, D63)."""
    return sc.turns.is_night(st.turn)


FORBIDDEN = {
    # action: (conditions that forbid it, reason, section)
    "force_march": (("disordered", "routed"), "a disordered unit may not force-march", "JdG [10.1]"),
    "assault": (("disordered", "routed"), "a disordered or routed unit may not assault", "JdG [10.1], [10.2]"),
    "charge": (("disordered", "routed"), "a disordered or routed unit may not charge", "JdG [10.1], [10.2]"),
    "square": (("disordered", "routed"), "a disordered or routed unit may not form square", "JdG [10.1], [10.2]"),
    "counter_charge": (("disordered", "routed"), "a disordered or routed unit may not counter-charge",
                       "JdG [10.1], [10.2]"),
    "fire": (("routed",), "a routed unit may not fire", "JdG [10.2]"),
    "move": (("routed",), "a routed unit moves only in the rout phase (E)", "JdG [10.2]"),
}


def forbidden(unit: Unit, action: str) -> tuple[str, str]:
    """What a disordered [10.1] or routed [10.2] unit may not do: (reason, section), or ("", "")
    when the action is allowed by its state. Disordered artillery may not fire either [7.2]: that
    is the fire module's rule."""
    conds, reason, section = FORBIDDEN[action]
    if unit.condition in conds:
        return f"{unit.id} is {unit.condition}: {reason}", section
    return "", ""


# -- the cohesion check [0.3] ---------------------------------------------------------------------

def cohesion_check(sc, st: JdgState, unit: Unit, stream: DiceStream, what: str, section: str,
                   modifiers: Iterable[Modifier] = (), roller: str | None = None,
                   rout_move_if_routed: bool = True) -> tuple[bool, list[Event]]:
    """A cohesion check (CC) [0.3]: d10 + modifiers <= the unit's cohesion (the reduced value when
    disordered, HERALD D2); at night every CC +2 [12] (tables.NIGHT_COHESION_DRM). The die is the
    unit's side's (`roller`, default the unit's side).

    A routed unit asked for a CC makes a rout move instead ([10.2] L726, [8.5] L534; HERALD D46):
    no die is rolled, the move is made (combat/retreat.rout_movement) and the result is
    (True, events): nothing more is to be applied for that check. A caller whose result has just
    routed the unit passes `rout_move_if_routed=False` or does not ask (D46)."""
    name = name_of(sc, unit)
    if unit.condition == "routed" and rout_move_if_routed:
        from engine.jdg.combat import retreat
        ev = Event("rout_instead_of_check", unit.side, "JdG [10.2]",
                   f"{name} is routed: instead of its {what} it makes a rout move (HERALD D46)",
                   inputs={"unit": unit.id, "check": what}, outcome={"rout_move": True})
        return True, [ev] + retreat.rout_movement(sc, st, unit, stream)
    mods = list(modifiers)
    if is_night(sc, st):
        mods.append(tables.NIGHT_COHESION_DRM.modifier())
    value = cohesion(sc, unit)
    passed, ev = checks.check(stream, unit.side, value, f"{what} of {name}", section, mods,
                              roller=roller or unit.side, kind="cohesion_check")
    ev.inputs = {"unit": unit.id, "cohesion": value, "face": "reduced" if unit.disordered else "normal"}
    ev.outcome["unit"] = unit.id
    return passed, [ev]


# -- the ladder [10.1], [10.2] --------------------------------------------------------------------

def _step(condition: str, arm: str) -> str:
    """One disorder down the ladder [10.1]; artillery that would rout is eliminated [10.2] L708."""
    nxt = LADDER[LADDER.index(condition) + 1]
    if nxt == "routed" and arm == "artillery":
        return "eliminated"
    return nxt


def worsen(sc, st: JdgState, unit: Unit, stream: DiceStream, steps: int, section: str, cause: str,
           away_from=None) -> list[Event]:
    """`steps` disorders on the ladder [10.1]: good -> disordered -> routed -> eliminated; a
    disordered unit disordered again routs ([10.2] L706), a routed one is eliminated (L724);
    artillery that would rout is eliminated (L708, HERALD D37). A unit that becomes routed
    retreats at once 2 hexes (infantry) or 3 (cavalry), eliminated if it cannot ([10.2] L710,
    [10.3]; HERALD D45: from where it then stands)."""
    if not unit.alive or steps <= 0:
        return []
    before = unit.condition
    after = before
    for _ in range(steps):
        after = _step(after, unit.arm)
        if after == "eliminated":
            break
    name = name_of(sc, unit)
    if after == "eliminated":
        why = ("artillery cannot rout" if unit.arm == "artillery" and before != "routed"
               else "a routed unit disordered again" if before == "routed" or steps > 1
               else "")
        return eliminate(sc, st, unit, stream, section, f"{cause}" + (f" ({why})" if why else ""))
    unit.condition = after
    events = leave_square(sc, st, unit, "disordered" if after == "disordered" else "routed")
    sec = "JdG [10.1]" if after == "disordered" else "JdG [10.2]"
    word = "disordered" if after == "disordered" else "routed"
    ev = Event(word, unit.side, f"{section}; {sec}",
               f"{name} is {word} ({cause})" + (" and must retreat at once" if word == "routed" else ""),
               inputs={"unit": unit.id, "before": before, "steps": steps, "cause": cause},
               outcome={"unit": unit.id, "condition": after})
    events = [ev] + events
    if after == "routed":
        from engine.jdg.combat import retreat
        events += retreat.rout_retreat(sc, st, unit, stream, section, away_from)
    return events


def leave_square(sc, st: JdgState, unit: Unit, why: str) -> list[Event]:
    """[4.2] L227: a unit in square that is disordered or made to fall back by a combat result
    leaves the square at once; one unit of a stack in square disordered, the whole stack leaves
    it (no unit in square may stand with one that is not, [5.1] L275)."""
    if not unit.square:
        return []
    stack = [u for u in st.units_at(unit.hex) if u.side == unit.side and u.square] if unit.hex else []
    for u in stack + [unit]:
        u.square = False
    names = ", ".join(name_of(sc, u) for u in stack) or name_of(sc, unit)
    return [Event("square_left", unit.side, "JdG [4.2]",
                  f"{names} {'leaves' if len(stack) <= 1 else 'leave'} square: {name_of(sc, unit)} is {why}",
                  inputs={"unit": unit.id}, outcome={"units": [u.id for u in stack] or [unit.id], "square": False})]


def disorder(sc, st: JdgState, unit: Unit, stream: DiceStream, section: str, cause: str,
             away_from=None) -> list[Event]:
    """A disorder result [10.1]: one step down the ladder (see `worsen`)."""
    return worsen(sc, st, unit, stream, 1, section, cause, away_from)


def rout(sc, st: JdgState, unit: Unit, stream: DiceStream, section: str, cause: str,
         away_from=None) -> list[Event]:
    """A rout result [10.2]: a unit in good order or disordered is routed ("simply routed, not
    eliminated", L710) and retreats at once; a routed unit is eliminated (L724, HERALD D37);
    artillery is eliminated (L708, D37)."""
    if not unit.alive:
        return []
    if unit.condition == "routed":
        return worsen(sc, st, unit, stream, 1, section, cause, away_from)
    steps = 2 if unit.condition == "good" else 1
    return worsen(sc, st, unit, stream, steps, section, cause, away_from)


def eliminate(sc, st: JdgState, unit: Unit, stream: DiceStream, section: str, cause: str) -> list[Event]:
    """Elimination [10.1] L692: the counter is removed from play and never returns. The VP the
    scenario gives for it are scored by the victory code from Unit.status."""
    if unit.status == "eliminated":
        return []
    where = unit.hex
    unit.status = "eliminated"
    unit.hex = None
    unit.square = False
    unit.charge = False
    return [Event("eliminated", unit.side, f"{section}; JdG [10.1]",
                  f"{name_of(sc, unit)} is eliminated ({cause})",
                  inputs={"unit": unit.id, "hex": where, "cause": cause, "condition": unit.condition},
                  outcome={"unit": unit.id, "status": "eliminated"})]
