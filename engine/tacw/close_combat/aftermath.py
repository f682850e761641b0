"""Close combat (TACW §10), what follows a combat's formation hits, as stages of
engine.core.dice.run_stages (FIGHT_STEPS, named by close_combat/resolution.py `_fight`, run by
close_combat/melee.py `fight` and `_resolve_all`): cavalry pursuit (§10.7), the advance after
combat (§10.4.6-10.4.8) and leader loss (§10.8).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event

from engine.tacw import tables

from engine.tacw import tables_combat as tc
from engine.tacw.morale.checks import d10, eliminate, remove_leader
from engine.tacw.sequence.policies import policy
from engine.tacw.close_combat.resolution import _advancer, participant_leaders
from engine.tacw.close_combat.retreat import (advance_after_combat, companions, live_units_at, reaction_fire, reaction_moves,
                      relocate)
from engine.tacw.state import Leader, TacwState, Unit


def _eliminate_stack(sc, st: TacwState, unit: Unit, reason: str, section: str) -> list[Event]:
    """Eliminate a unit and the light infantry sharing its fate (§8.2.1)."""
    events: list[Event] = []
    if unit.alive:
        for c in companions(st, unit):
            events += eliminate(sc, st, c, reason, section)
        events += eliminate(sc, st, unit, reason, section)
    return events


def _pursuit(sc, st: TacwState, pursuers: list[Unit], routed: Unit, momentum: list[str],
             path: list[list[str]], stream: DiceStream) -> tuple[list[Event], set[str]]:
    """§10.7: each winning cavalry unit rolls on the Cavalry Pursuit table (D32)."""
    events: list[Event] = []
    gone: set[str] = set()
    for cav in pursuers:
        if not cav.alive:
            continue
        cromwell = any(ld.special == "cromwell" and ld.side == cav.side and ld.hex is not None
                       and any(sc.grid.distance(ld.hex, h) <= 1 for h in cav.hexes)
                       for ld in st.leaders.values() if ld.status == "active")
        mods = tc.pursuit_modifiers(charge_orders=st.wings[cav.wing].order == "charge",
                                    momentum=cav.id in momentum, cromwell=cromwell)
        plus, gone_already = sum(m.value for m in mods), not routed.alive
        roll = d10(stream, f"cavalry pursuit, {cav.called}", cav.side,
                   reading=lambda r: tc.cavalry_pursuit(r + plus, routed_unit_gone=gone_already))
        total = roll + plus
        result = tc.cavalry_pursuit(total, routed_unit_gone=gone_already)
        text = {"break_contact": "breaks contact", "pursue_eliminate": "pursues and eliminates",
                "pursue_off_map": "pursues off the map"}[result]
        events.append(Event("pursuit", cav.side, "TACW §10.7.2",
                            f"{cav.called} checks pursuit of {routed.called}: {roll}"
                            + "".join(f" {m.value:+d}" for m in mods) + f" = {total} -> {text}",
                            base=roll, modifiers=mods, dice=[DieRoll("cavalry pursuit", "d10", roll)],
                            table="Cavalry Pursuit table", row=tc.PURSUIT_TABLE.row(total).label,
                            outcome={"unit": cav.id, "result": result, "routed": routed.id}))
        if result == "break_contact":
            continue
        gone.add(cav.id)
        if result == "pursue_off_map":
            for ld in participant_leaders(st, [cav]):
                events += remove_leader(st, ld, f"pursued off the map with {cav.called}", "TACW §10.7.2 C")
            events += _eliminate_stack(sc, st, routed, f"pursued off the map by {cav.called}", "TACW §10.7.2 C")
            cav.status, cav.hexes = "off_map", []
            events.append(Event("pursuit", cav.side, "TACW §10.7.2 C",
                                f"{cav.called} pursues off the map: it never returns (no VP)",
                                outcome={"unit": cav.id, "off_map": True}))
            continue
        # pursue and eliminate: along the retreat path into the routed unit's hex (§10.7.2 B)
        steps = path[1:] if path else []
        here = cav.hexes[0]
        trail = [here]
        for hexes in [path[0] if path else routed.hexes] + steps:
            nxt = min(hexes, key=lambda h: (sc.grid.distance(trail[-1], h), h))
            if nxt != trail[-1]:
                trail.append(nxt)
        events += _eliminate_stack(sc, st, routed, f"caught by {cav.called}'s pursuit", "TACW §10.7.2 B")
        events += relocate(sc, st, cav, [trail[-1]], [], "TACW §10.7.2 B", leaders_follow=True)
        events.append(Event("pursuit", cav.side, "TACW §10.7.2 B",
                            f"{cav.called} pursues: " + " -> ".join(trail), outcome={"unit": cav.id, "path": trail}))
        st.last_action.setdefault("items", []).append({"kind": "move", "unit": cav.id, "path": trail})
        events += reaction_fire(sc, st, cav, "advance", stream, trail[1:], exclude=[routed.id])
        events += reaction_moves(sc, st, cav, trail[1:], stream, exclude=[routed.id], before=[here])
    return events, gone


def _leader_losses(st: TacwState, involved: list[Leader], stream: DiceStream) -> list[Event]:
    """§10.8: after each close combat, a d10 for every leader stacked with a participant who is
    still on the field: removed on a 9 (Leader Loss table)."""
    events: list[Event] = []
    for ld in involved:
        if ld.status != "active":
            continue
        lr = d10(stream, f"leader loss, {ld.name}", ld.side)
        out = tables.leader_loss(lr)
        events.append(Event("leader_loss", ld.side, "TACW §10.8",
                            f"{ld.name} was in the close combat: {lr} -> "
                            + ("removed" if out == "removed" else "no effect"),
                            base=lr, dice=[DieRoll("leader loss", "d10", lr)], table="Leader Loss table",
                            row=tables.LEADER_LOSS_TABLE.row(lr).label, outcome={"leader": ld.id, "result": out}))
        if out == "removed":
            events += remove_leader(st, ld, "lost in close combat", "TACW §10.8")
    return events


def _fight_pursuit(sc, st: TacwState, stream: DiceStream, ctx: dict) -> tuple[list[Event], list]:
    """§10.7: the winner's cavalry checks pursuit of the routed loser."""
    events: list[Event] = []
    attackers = [st.units[i] for i in ctx["attackers"]]
    defender = st.units[ctx["defender"]]
    start, def_start, res = ctx["start"], ctx["def_start"], tc.close_combat(ctx["total"])
    if res.winner == "attacker":
        pursuers = [a for a in attackers if a.kind == "cavalry" and a.alive and a.hexes == start[a.id]]
        routed, path = defender, ctx["path"]
    else:
        in_place = defender.alive and defender.hexes == def_start
        pursuers = [defender] if defender.kind == "cavalry" and in_place else []
        routed = attackers[0]
        path = ctx["path"]
    if pursuers and routed.kind == "light":
        events.append(Event("pursuit", attackers[0].side, "TACW §10.7.1",
                            f"{routed.called} is light infantry: no pursuit, a normal advance"))
    elif pursuers:
        momentum = [a.id for a in attackers] if ctx["momentum"] else []
        more, gone = _pursuit(sc, st, pursuers, routed, momentum, path or [def_start], stream)
        events += more
        ctx["gone"] = sorted(gone)
    return events, [("advance", ctx)]


def _fight_advance(sc, st: TacwState, stream: DiceStream, ctx: dict) -> tuple[list[Event], list]:
    """§10.4.6: the winner's advance after combat."""
    events: list[Event] = []
    attackers = [st.units[i] for i in ctx["attackers"]]
    defender = st.units[ctx["defender"]]
    start, def_start, res = ctx["start"], ctx["def_start"], tc.close_combat(ctx["total"])
    gone = set(ctx["gone"])
    retreated = [u.id for u in attackers + [defender] if u.alive and
                 u.hexes != (start.get(u.id) or def_start)]
    if res.winner == "attacker" and res.advance == "must":
        vacated = [h for h in def_start if not live_units_at(st, h)]
        mover = _advancer(st, attackers, start, gone)
        if mover and vacated:
            events += advance_after_combat(sc, st, mover, vacated, stream, retreated)
    elif res.winner == "defender" and res.advance == "may" and defender.alive and defender.hexes == def_start \
            and policy(st, defender.side, "advance_after_combat", unit=defender) == "advance":
        vacated = [h for a in attackers for h in start[a.id] if not live_units_at(st, h)]
        if vacated:
            events += advance_after_combat(sc, st, defender, vacated, stream, retreated, "TACW §10.4.6 (may)")
    return events, [("leader_losses", {"involved": ctx["involved"], "record": ctx.get("record")})]


def _fight_leader_losses(sc, st: TacwState, stream: DiceStream, ctx: dict) -> tuple[list[Event], list]:
    return _leader_losses(st, [st.leaders[i] for i in ctx["involved"]], stream), []


FIGHT_STEPS = {"pursuit": _fight_pursuit, "advance": _fight_advance, "leader_losses": _fight_leader_losses}
