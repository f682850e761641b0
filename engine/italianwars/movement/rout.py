"""Phases 3 (rout) and 4 (pursuit), and the Retreat order (IW Sequenza di mossa 3-4, IW
Accampamento, IW Disordine; IW-H 9, 11.1, 14; HERALD D76, D77, D79).

Phase 3, in this order: guns that began limbering last turn and have not finished it in their
battle's move step finish (IW-H 11.1); the companies of a battle under Retreat that have not
moved this turn move their full move toward their edge (IW-H 14); every routing company runs
1.5x its move toward its own edge by the shortest way round enemies (IW-H 9.1): through friends
(disordered unless skirmishers), surrendering (destroyed) if it cannot get away, lost when it
leaves the table, its camp lost if it runs through it.
Phase 4: each pursuer moves its full move after its router (IW-H 9.3): reaching it destroys it;
meeting another enemy starts a melee in which it counts as charging; it stops at the table edge.
"""
from __future__ import annotations

from engine.core.events import Event
from engine.core.table.geometry import CONTACT_TOL, bearing_to, centre

from engine.italianwars import rules
from engine.italianwars.movement import common as cm
from engine.italianwars.movement import flight
from engine.italianwars.state import IWState

S_ROUT = "IW Sequenza di mossa 3"
S_PURSUIT = "IW Sequenza di mossa 4"
SURRENDER_UNDER = 0.1          # a router that cannot get 0.1 UDM away surrenders (HERALD D77)


def camp_overrun(sc, st: IWState, c, swept) -> list[Event]:
    """IW Accampamento: routing troops running through their own camp lose it."""
    from engine.italianwars.sequence.charges import camp_geometry
    army = st.armies.get(c.side)
    g = camp_geometry(sc, st, c.side)
    if army is None or army.camp_lost or g is None or swept is None or not swept.intersects(g):
        return []
    army.camp_lost = True
    return [Event("camp_lost", c.side, "IW Accampamento",
                  f"{rules.named(sc, c.id)} flees through {c.side.title()}'s own camp: the camp is lost",
                  outcome={"side": c.side, "camp_lost": True, "by": c.id})]


def rout_one(sc, st: IWState, c) -> tuple[list[Event], dict]:
    """IW-H 9.1: one router's run."""
    budget = cm.rate(sc, st, c, routing=True)
    toward = cm.edge_bearing(sc, st, c.side)
    r = flight.best_way(sc, st, c, toward, budget, edge="leave")
    name = rules.named(sc, c.id)
    if not r.off and flight.progress(r, toward, toward) < SURRENDER_UNDER:
        c.status = "destroyed"
        c.melee_with = []
        c.in_melee = False
        return [Event("surrender", c.side, cm.h("9.1"),
                      f"{name} routs but cannot get away from the enemy: it surrenders and is destroyed",
                      outcome={"company": c.id, "status": "destroyed"})], {}
    hit = flight.apply_run(sc, st, c, r)
    c.disordered = True
    c.melee_with = []
    c.in_melee = False
    text = (f"{name} routs {cm.fmt(r.distance)} UDM toward its edge (1.5 x its move: {cm.fmt(budget)}"
            f"{', heading ' + cm.fmt(r.turned.facing) if abs(r.turned.facing - toward) > 0.01 else ''})")
    if r.off:
        text += ": it leaves the table and is lost"
    if r.through:
        text += "; through " + ", ".join(rules.named(sc, o.id) for o in r.through) + (
            f" (disordered: {', '.join(hit)})" if hit else "")
    events = [Event("rout_move", c.side, cm.h("9.1"), text,
                    outcome={"company": c.id, "distance": r.distance, "off": r.off, "x": c.x, "y": c.y,
                             "disordered": hit})]
    events += camp_overrun(sc, st, c, r.swept)
    return events, {"company": c.id, "path": r.path}


def retreat_one(sc, st: IWState, c) -> tuple[list[Event], dict]:
    """IW-H 14: a Retreat battle's company moves its full move toward its own edge, facing away,
    avoiding enemies; off the table it is gone."""
    budget = cm.rate(sc, st, c, order="")
    toward = cm.edge_bearing(sc, st, c.side)
    r = flight.best_way(sc, st, c, toward, budget, edge="leave")
    hit = flight.apply_run(sc, st, c, r)
    c.moved = True
    cm.spend(st, c, r.cost)
    text = f"{rules.named(sc, c.id)} retreats {cm.fmt(r.distance)} UDM toward its edge (its move {cm.fmt(budget)})"
    if r.off:
        text += ": it leaves the table"
    if hit:
        text += f"; disordered passing through friends: {', '.join(hit)}"
    return [Event("retreat_move", c.side, cm.h("14"), text,
                  outcome={"company": c.id, "distance": r.distance, "off": r.off, "x": c.x, "y": c.y})], \
        {"company": c.id, "path": r.path}


def retreat_battle(sc, st: IWState, b) -> list[Event]:
    """IW-H 14 (HERALD D79): the battle's companies that have not moved this turn retreat."""
    events, paths = [], []
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.battle != b.id or c.status != "active" or c.moved or c.in_melee or c.melee_with:
            continue
        if rules.arm_of(sc, st, c.id) == "artillery" and not c.limbered:
            continue
        more, path = retreat_one(sc, st, c)
        events += more
        paths.append(path)
    if paths:
        st.last_action = {"kind": "retreat", "companies": [p["company"] for p in paths], "retreats": paths}
    return events


def run_rout_phase(sc, st: IWState, stream) -> list[Event]:
    """Phase 3 (see the module docstring)."""
    from engine.italianwars.movement.move import finish_limbering
    events = finish_limbering(sc, st, list(st.companies.values()))
    for b in sorted(st.battles.values(), key=lambda b: b.id):
        if b.order == "retreat":
            events += retreat_battle(sc, st, b)
    paths = []
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.status != "routing":
            continue
        more, path = rout_one(sc, st, c)
        events += more
        if path:
            paths.append(path)
    if paths:
        st.last_action = {"kind": "rout", "companies": [p["company"] for p in paths], "routs": paths}
    return events


def pursue_one(sc, st: IWState, c) -> tuple[list[Event], dict]:
    """IW-H 9.3: the pursuer's full move after its router."""
    from engine.italianwars.movement import api
    router = st.companies.get(c.pursuing)
    name = rules.named(sc, c.id)
    if router is None or not router.alive or router.status != "routing":
        return [], {}
    rx, ry = centre(cm.pose(router), cm.fp(sc, st, router))
    mx, my = centre(cm.pose(c), cm.fp(sc, st, c))
    heading = bearing_to(mx, my, rx, ry)
    budget = cm.rate(sc, st, c, order="")
    r = flight.run(sc, st, c, heading, budget, edge="stop", ignore=(router.id,))
    # the router itself: reached when the run comes within contact of it
    reached = r.swept is not None and r.swept.distance(cm.poly(sc, st, router)) <= CONTACT_TOL
    if reached and not r.blocked_by:
        from engine.core.table import moves as tmoves
        got = tmoves.first_touch(r.turned, cm.fp(sc, st, c), [tmoves.Step("advance", r.distance)],
                                 [(router.id, cm.poly(sc, st, router))])
        if got is not None:
            w, _ = got
            r.end = w.end
            r.distance = w.steps[0].amount if w.steps else 0.0
    flight.apply_run(sc, st, c, r)
    events = []
    if reached and not r.blocked_by:
        router.status = "destroyed"
        router.melee_with = []
        router.in_melee = False
        c.pursuing = ""
        events.append(Event("pursuit", c.side, cm.h("9.3"),
                            f"{name} pursues {cm.fmt(r.distance)} UDM and catches {rules.named(sc, router.id)}: "
                            "the router is destroyed", outcome={"company": c.id, "router": router.id, "caught": True,
                                                                "x": c.x, "y": c.y}))
    elif r.blocked_by:
        enemy = st.companies[r.blocked_by]
        from engine.italianwars.sequence.charges import nearest_face
        face = nearest_face(sc, st, c, enemy)
        if enemy.formation == "igel":
            face = "front"          # an Igel has no flank or rear (IW-H 3.5)
        events.append(Event("pursuit", c.side, cm.h("9.3"),
                            f"{name} pursues {cm.fmt(r.distance)} UDM and runs into {rules.named(sc, enemy.id)}: a new "
                            "melee, the pursuer counting as charging",
                            outcome={"company": c.id, "router": router.id, "met": enemy.id, "x": c.x, "y": c.y}))
        events += api.close_to_contact(sc, st, c, enemy, face)
        c.charge = {"target": enemy.id, "face": face, "flank": face != "front", "turn": st.turn, "pursuit": True}
        # the new melee is fought next turn, the pursuer counting as charging (combat/melee.charging)
        st.options.setdefault("new_melees", {})[c.id] = enemy.id
        c.status, c.pursuing = "active", ""
    else:
        events.append(Event("pursuit", c.side, cm.h("9.3"),
                            f"{name} pursues {rules.named(sc, router.id)} {cm.fmt(r.distance)} UDM (its move "
                            f"{cm.fmt(budget)})" + (", to the table's edge" if r.distance < budget - 0.05 else ""),
                            outcome={"company": c.id, "router": router.id, "caught": False, "x": c.x, "y": c.y}))
    c.disordered = True
    events += api.reveal_ambushers(sc, st, [c])
    return events, {"company": c.id, "path": [[r.start.x, r.start.y], [c.x, c.y]]}


def run_pursuit_phase(sc, st: IWState, stream) -> list[Event]:
    events, paths = [], []
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.status != "pursuing" or not c.pursuing:
            continue
        more, path = pursue_one(sc, st, c)
        events += more
        if path:
            paths.append(path)
    if paths:
        st.last_action = {"kind": "pursuit", "companies": [p["company"] for p in paths], "pursuits": paths}
    return events


rules.register_step("rout", run=run_rout_phase)
rules.register_step("pursuit", run=run_pursuit_phase)
