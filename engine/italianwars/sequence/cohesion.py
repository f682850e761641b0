"""Battle cohesion (IW Coesione delle Battaglie).

"Le Compagnie di Cavalleria devono rimanere entro 5 UDM dalla compagnia del Comandante della
Battaglia. Le Compagnie di Fanteria devono rimanere entro 3 UDM ... Le Compagnie di
schermagliatori devono rimanere entro 2 UDM da una delle Compagnie della propria battaglia.
L'artiglieria ... non è obbligata a mantenere una distanza massima." Companies out of the radius
"dovranno rientrare nel raggio di comando appena possibile, evitando di contattare unità nemiche";
so "se la compagnia del Comandante si ritira o fugge dal campo, tutte le compagnie della Battaglia
la seguiranno".

Measured edge to edge (HERALD D2). The movement module asks `must_return(sc, st, company)` before
a move (such a company moves back toward its commander and may not contact the enemy) and
`radius_of` for the allowance; `cohesion_events` reports the companies out of radius after every
activation and at the end of the turn.
"""
from __future__ import annotations

from engine.core.events import Event

from engine.italianwars import checks, rules, tables
from engine.italianwars.state import IWState

SECTION = "IW Coesione delle Battaglie"
RADIUS = tables.COMMAND_RADIUS


def radius_of(sc, st: IWState, c) -> float | None:
    """The company's command radius (UDM), None for artillery (no limit)."""
    return tables.command_radius(rules.arm_of(sc, st, c.id), rules.role_of(sc, st, c.id))[0]


def commander_company(st: IWState, c):
    b = st.battles.get(c.battle)
    return st.companies.get(b.commander) if b is not None else None


def in_radius(sc, st: IWState, c) -> bool:
    """Whether the company is within its radius: of its battle commander's company (cavalry 5,
    infantry 3), of any company of its battle (skirmishers 2); artillery always. A battle whose
    commander's company is gone has no one to follow: its companies count as in radius."""
    r = radius_of(sc, st, c)
    if r is None or not c.alive or c.status == "waiting":
        return True
    if rules.role_of(sc, st, c.id) == "skirmishers":
        friends = [o for o in st.companies.values() if o.battle == c.battle and o.id != c.id and o.alive
                   and o.status != "waiting"]
        return not friends or any(checks.distance_between(sc, st, c, o) <= r + 1e-6 for o in friends)
    cmd = commander_company(st, c)
    if cmd is None or cmd.id == c.id or not cmd.alive or cmd.status == "waiting":
        return True
    return checks.distance_between(sc, st, c, cmd) <= r + 1e-6


def out_of_radius(sc, st: IWState, bid: str) -> list[str]:
    """The battle's companies out of their command radius, by id."""
    return [c.id for c in sorted(st.companies.values(), key=lambda c: c.id)
            if c.battle == bid and c.alive and c.status == "active" and not in_radius(sc, st, c)]


def must_return(sc, st: IWState, c) -> bool:
    """The company must move back into its radius as soon as it can, contacting no enemy."""
    return c.alive and c.status == "active" and not in_radius(sc, st, c)


def cohesion_events(sc, st: IWState, bid: str) -> list[Event]:
    out = out_of_radius(sc, st, bid)
    if not out:
        return []
    b = st.battles[bid]
    return [Event("cohesion", b.side, SECTION,
                  f"{rules.battle_name(sc, st, bid)}: out of its commander's radius, to return as soon as possible: "
                  + ", ".join(rules.named(sc, c) for c in out), outcome={"battle": bid, "out_of_radius": out})]
