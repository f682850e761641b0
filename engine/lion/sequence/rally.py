"""Rally (riorganizzazione) [10], on a player's rally card [13].

[10 A] "i giocatori possono tentare di riorganizzare le proprie unità disordinate che non si
trovino a contatto con unità nemiche. Lanciare 1d8 per ciascuna unità; essa sarà riorganizzata con
7-8 se l'esercito è 'Irregolare', con 6-8 se è 'Regolare', con 5-8 se 'Addestrato'. Se il generale
è aggregato sommare il risultato di 1d3. ... Se è presente un nemico entro 10 cm o se si è sotto
tiro di artiglieria media o pesante a distanza breve, è possibile tentare la riorganizzazione
sottraendo 1 al dado." [11 A] a demoralised army subtracts 1. [troop chart] elite +1, untrained
-1. [12 F] a Tercio recovers one level at a time; every other unit (Pike & Shot included) all its
levels (HERALD D21, tables.rally_levels).

A try costs nothing and a failure changes nothing, so Herald rolls for every unit that may try
(HERALD D50: the rally card asks no choice). A unit looting an enemy camp is not rallied: it
counts as disordered until it leaves the camp [12 A] (HERALD D51).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import Event, Modifier

from engine.lion import checks, tables
from engine.lion.rules import named
from engine.lion.state import LionState

THREATENING_GUNS = ("medium", "heavy")


def discipline_of(sc, st: LionState, unit) -> str:
    """The unit's own discipline when the scenario gives one ([4 E], line 60 of the text), else its army's."""
    try:
        own = sc.unit(unit.id).discipline
    except (AttributeError, KeyError):
        own = ""
    return own or st.armies[unit.side].discipline


def may_rally(st: LionState, unit, side: str) -> bool:
    """[10 A] a disordered unit of `side` not in contact with the enemy (looters excluded, D51)."""
    return (unit.alive and checks.controller(unit) == side and unit.hits > 0 and not unit.looting
            and not checks.in_contact_with_enemy(st, unit))


def enemy_near(st: LionState, unit) -> str:
    """[10 A] "un nemico entro 10 cm": the nearest enemy unit within 10 cm, or ""."""
    side = checks.controller(unit)
    best = ""
    best_d = None
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and checks.controller(u) != side:
            d = checks.base_distance(unit, u)
            if d <= tables.RALLY_ENEMY_NEAR and (best_d is None or d < best_d):
                best, best_d = u.id, d
    return best


def sight_blockers(sc, st: LionState, a, b) -> list:
    """What blocks a line of sight from a to b [7 A]: woods, hills and towns that contain neither
    base, and every other base on the table."""
    from engine.core.table.geometry import base_polygon
    pa = base_polygon(checks.pose(a), checks.footprint(a))
    pb = base_polygon(checks.pose(b), checks.footprint(b))
    out = []
    for f in getattr(sc, "features", ()) or ():
        if f.kind in ("woods", "hill", "town"):
            g = f.geometry
            if not g.intersects(pa) and not g.intersects(pb):
                out.append(g)
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and u.id not in (a.id, b.id):
            out.append(base_polygon(checks.pose(u), checks.footprint(u)))
    return out


def guns_threatening(sc, st: LionState, unit) -> str:
    """[10 A] "sotto tiro di artiglieria media o pesante a distanza breve": an enemy medium gun
    (deployed, [6 A]) or heavy gun that has the unit in its arc [7 A] at short range (under 15 cm,
    [Tabella riassuntiva]) with a clear line of sight; "" when none (HERALD D52)."""
    from engine.core.table.geometry import clear_line, front_distance, in_arc
    side = checks.controller(unit)
    for g in sorted(st.units.values(), key=lambda u: u.id):
        if not g.alive or checks.controller(g) == side:
            continue
        gun = tables.troop(g.type).gun
        if gun not in THREATENING_GUNS or (gun == "medium" and not g.deployed):
            continue
        pg, fg, pu, fu = checks.pose(g), checks.footprint(g), checks.pose(unit), checks.footprint(unit)
        d = front_distance(pg, fg, pu, fu)
        if tables.band("artillery", d) != "short" or not in_arc(pg, fg, pu, fu, half_angle=tables.ARC_HALF_ANGLE):
            continue
        if clear_line(pg, fg, pu, fu, sight_blockers(sc, st, g, unit)):
            return g.id
    return ""


def rally_modifiers(sc, st: LionState, unit, stream: DiceStream, side: str) -> tuple[list[Modifier], list]:
    """The modifiers of one unit's rally roll [10 A], [11 A], [troop chart], with the d3 of an
    attached general rolled."""
    mods: list[Modifier] = []
    dice = []
    attached = [g for g in sorted(st.generals.values(), key=lambda g: g.id)
                if g.alive and g.side == side and g.attached_to == unit.id]
    if attached:
        v, dr = checks.roll(stream, tables.RALLY_GENERAL_DIE, f"rally of {unit.id}: {attached[0].id} attached (d3)", side)
        dice.append(dr)
        mods.append(Modifier(v, f"general {attached[0].id} attached: +1d3", "LdN [10 A]"))
    near = enemy_near(st, unit)
    guns = "" if near else guns_threatening(sc, st, unit)
    if near:
        mods.append(Modifier(tables.RALLY_PENALTY, f"enemy {near} within 10 cm", "LdN [10 A]"))
    elif guns:
        mods.append(Modifier(tables.RALLY_PENALTY, f"under fire of {guns}'s medium or heavy guns at short range",
                             "LdN [10 A]"))
    if st.armies[side].demoralised:
        mods.append(Modifier(tables.DEMORALISED_RALLY, "demoralised army", "LdN [11 A]"))
    q = checks.quality_modifier(sc, unit)
    if q is not None:
        mods.append(q)
    return mods, dice


def rally_unit(sc, st: LionState, unit, stream: DiceStream, side: str) -> Event:
    """One unit's try [10 A]: 1d8 + modifiers, at least 5 / 6 / 7 (trained / regular / irregular)."""
    discipline = discipline_of(sc, st, unit)
    target = tables.RALLY_TARGET[discipline]
    value, dr = checks.roll(stream, tables.RALLY_DIE, f"rally of {unit.id}", side)
    mods, extra = rally_modifiers(sc, st, unit, stream, side)
    total = value + sum(m.value for m in mods)
    ok = total >= target
    before = unit.hits
    if ok:
        unit.hits -= tables.rally_levels(unit.type, unit.hits)
    dr.effect = "rallied" if ok else "still disordered"
    mod_text = "".join(f" {m.value:+d}" for m in mods)
    if ok and unit.hits:
        what = f"recovers one level ({before} -> {unit.hits} hits)"
    elif ok:
        what = "rallies: in good order again"
    else:
        what = "fails: still disordered"
    return Event("rally", side, "LdN [10 A]" + (", [12 F]" if unit.type == "tercio" else ""),
                 f"{named(sc, unit.id)} rallies on d8 {value}{mod_text} = {total} against {target}+ ({discipline}): {what}",
                 modifiers=mods, dice=[dr] + extra, table=f"rally: 1d8 + modifiers >= {target} ({discipline})",
                 row=discipline, outcome={"unit": unit.id, "rallied": ok, "total": total, "target": target,
                                         "hits_before": before, "hits": unit.hits})


def rally_card(sc, st: LionState, side: str, stream: DiceStream) -> list[Event]:
    """`side`'s rally card [10], [13]: every disordered unit not in contact tries, in id order."""
    units = [u for u in sorted(st.units.values(), key=lambda u: u.id) if may_rally(st, u, side)]
    if not units:
        return [Event("rally", side, "LdN [10 A]", f"{side.title()} has no disordered unit out of contact to rally")]
    return [rally_unit(sc, st, u, stream, side) for u in units]
