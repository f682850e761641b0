"""The Italian Wars, Herald's completion: movement and manoeuvres (SUPPLEMENT.md IW-H 2, IW-H 3).

IW-H 2: the open-ground rate of each movement class (2.1), March and roads (2.2), terrain (2.3)
and the text's two halvings, bad weather and Withdraw (2.4), with the rout's x1.5 (IW-H 9.1);
IW-H 3: wheels (3.1), facing changes (3.2, the text's emergency facing, IW Risposte facoltative)
and the phalanx (3.4). Every value is HERALD's (HERALD D6), labelled with its rule; see
completion.py for how the completion is read and cited.

Pure: standard library only; no randomness.
"""
from __future__ import annotations

import math
from fractions import Fraction

from engine.italianwars.completion import GUNS


# == IW-H 2 movement ===============================================================================

# UDM a turn in open ground, by movement class (IW-H 2.1)
MOVE = {
    "foot": 4,                 # close-order foot: pike, polearms, shooting foot, colunella, legion
    "skirmisher": 6,           # skirmishers (and a screen moves with its parent)
    "horse_armoured": 8,       # gendarmes and other men-at-arms
    "horse_protected": 10,     # mounted crossbows, light lancers
    "horse_unprotected": 12,   # stradiots, jinetes
    "light_gun": 4,            # limbered
    "organ_gun": 4,            # limbered
    "war_cart": 3,
    "heavy_gun": 2,            # limbered
}
MARCH_FACTOR = Fraction(3, 2)      # IW-H 2.2: under a March order, no enemy within 2 UDM (IW Marcia)
ROAD_BONUS = 2                     # IW-H 2.2: a whole move along a road, terrain ignored (IW Strade)
ROUT_FACTOR = Fraction(3, 2)       # IW-H 9.1: fear lends wings
TERRAIN_FACTOR = {                 # IW-H 2.3 (IW Terreno)
    "open": Fraction(1), "broken": Fraction(1, 2), "closed": Fraction(1, 2), "impassable": Fraction(0),
}
HALVED_BY = ("bad weather", "withdraw")   # IW-H 2.4: the text's two halvings (IW Cattivo tempo, IW Indietreggiare)


def move_class(kind: str, armour: str = "protected", role: str = "shock", missile: str = "") -> str:
    """The movement class of a company (IW-H 2.1): `kind` infantry / cavalry / artillery."""
    if kind == "artillery":
        return missile if missile in GUNS else "light_gun"
    if kind == "cavalry":
        return f"horse_{armour}"
    return "skirmisher" if role == "skirmishers" else "foot"


def move_allowance(cls: str, *, terrain: str = "open", weather: str = "good", order: str = "",
                   road: bool = False, routing: bool = False) -> Fraction:
    """UDM a company may move this turn (IW-H 2): its open rate, x1.5 under March or in rout,
    +2 along a road (terrain ignored), halved in broken or closed ground (skirmishers ignore broken
    ground; guns may not enter closed ground but by road), halved in bad weather and under
    Withdraw (the text's, IW Tempo atmosferico, IW Indietreggiare)."""
    base = Fraction(MOVE[cls])
    if routing:
        base *= ROUT_FACTOR
    elif order == "march":
        base *= MARCH_FACTOR
    if road:
        base += ROAD_BONUS
    else:
        if terrain == "closed" and cls in GUNS:
            return Fraction(0)
        if not (terrain == "broken" and cls == "skirmisher"):
            base *= TERRAIN_FACTOR[terrain]
    if weather == "bad":
        base /= 2
    if order == "withdraw":
        base /= 2
    return base


# == IW-H 3 manoeuvres =============================================================================

FACING_COST = {"infantry": 1, "skirmishers": 1, "cavalry": 2, "artillery": 1}   # IW-H 3.2 (the text's 2f example)
PHALANX_COST = 2                      # IW-H 3.4 form or leave a phalanx, each company
WHEEL_RADIUS = 1                      # IW-H 3.1 a company is 1 UDM wide: the outer corner's arc


def wheel_cost(degrees: float) -> float:
    """IW-H 3.1: a wheel pivots on one front corner; it costs the arc the other front corner
    travels (1 UDM radius): 90 degrees cost pi/2 = 1.57 UDM."""
    return round(math.radians(abs(degrees)) * WHEEL_RADIUS, 2)


def can_face_emergency(kind: str, allowance: Fraction | float) -> bool:
    """IW Risposte facoltative, emergency facing: half the move in the present ground must pay a
    facing change (IW-H 3.2): foot in the open needs a move of 2 UDM (the text's example)."""
    return Fraction(allowance) / 2 >= FACING_COST[kind]
