"""The movement package's interface for the other modules (combat/: charge responses, closing,
melee, morale): allowance, evade, push_back, close_to_contact, reveal_ambushers, face_towards.

Each function mutates the state copy it is given and returns the events (a stub for now)."""
from __future__ import annotations

import math

from engine.core.events import Event

from engine.italianwars import rules
from engine.italianwars.state import IWState


def allowance(sc, st: IWState, c) -> float:
    """The company's move this turn, UDM (IW-H 2; sequence.charges.move_allowance)."""
    from engine.italianwars.sequence.charges import move_allowance
    return float(move_allowance(sc, st, c))


def evade(sc, st: IWState, c, charger, stream) -> list[Event]:
    """The evader moves its full move directly away from the charger (IW Schermagliatori;
    IW-H 4.4); sets `c.evaded`; leaving the table = status "off"."""
    c.evaded = True
    return []


def push_back(sc, st: IWState, c, enemy, distance: float = 1.0) -> list[Event]:
    """Moved straight back `distance` UDM keeping its facing (IW-H 6.4)."""
    return []


def close_to_contact(sc, st: IWState, mover, target, face: str) -> list[Event]:
    """`mover` into contact with `target`'s `face`, squared against it (IW-H 4.2); sets
    melee_with both ways."""
    if target.id not in mover.melee_with:
        mover.melee_with.append(target.id)
    if mover.id not in target.melee_with:
        target.melee_with.append(mover.id)
    mover.in_melee = target.in_melee = True
    return []


def reveal_ambushers(sc, st: IWState, near=None) -> list[Event]:
    """IW-H 13 (IW Imboscata, IW Visibilità): ambushers revealed by an enemy within 1 UDM."""
    return []


def face_towards(sc, st: IWState, c, other) -> None:
    """Turn `c` in place to face the centre of `other`."""
    from engine.italianwars import checks
    centre = checks.polygon(sc, st, other).centroid
    c.facing = round(math.degrees(math.atan2(centre.x - c.x, centre.y - c.y)) % 360, 2)
