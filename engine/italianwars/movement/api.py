"""The movement package's interface for the other modules (combat/: charge responses, closing,
melee, morale; HERALD D70-D79):

    allowance(sc, st, c) -> float                 the company's move this turn (IW-H 2)
    evade(sc, st, c, charger, stream) -> events   IW Schermagliatori, IW-H 4.4
    push_back(sc, st, c, enemy, distance) -> ev.  IW-H 6.4
    close_to_contact(sc, st, mover, target, face) IW-H 4.2 (2g, counter-charges, follow-ups, pursuit)
    reveal_ambushers(sc, st, near) -> events      IW-H 13, IW Imboscata, IW Visibilità
    face_towards(sc, st, c, other) -> None        turn in place toward another company
    push_skirmishers(sc, st, skirmishers, mover)  IW Schermagliatori: pushed back by an advance

Each function mutates the state copy it is given and returns the events.
"""
from __future__ import annotations


from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import (CONTACT_TOL, Pose, bearing_to, centre, conform, forward, rnd)

from engine.italianwars import checks, completion, rules, tables
from engine.italianwars.movement import common as cm
from engine.italianwars.movement import flight
from engine.italianwars.public import reveal
from engine.italianwars.state import IWState

S_SKIRM = "IW Schermagliatori"


def allowance(sc, st: IWState, c) -> float:
    """The company's move this turn, UDM (IW-H 2; sequence.charges.move_allowance: its class's
    rate for the ground it stands on, the weather and its battle's order)."""
    from engine.italianwars.sequence.charges import move_allowance
    return float(move_allowance(sc, st, c))


def centre_of(sc, st: IWState, c) -> tuple[float, float]:
    return centre(cm.pose(c), cm.fp(sc, st, c))


def evade(sc, st: IWState, c, charger, stream=None) -> list[Event]:
    """IW Schermagliatori, IW-H 4.4: the charged skirmishers evade their full move directly away
    from the charger (from the charger's centre through theirs), turned to face away; through a
    friend they stop directly behind it; an enemy in the way stops them; off the table they are
    lost (status "off"). Sets `c.evaded` (no action when its battle activates). HERALD D76."""
    cx, cy = centre_of(sc, st, charger)
    ex, ey = centre_of(sc, st, c)
    heading = bearing_to(cx, cy, ex, ey) if (abs(ex - cx) + abs(ey - cy)) > 1e-6 else (charger.facing % 360)
    budget = cm.rate(sc, st, c)
    r = flight.run(sc, st, c, heading, budget, edge="leave", behind_friend=True)
    hit = flight.apply_run(sc, st, c, r)
    c.evaded = True
    text = (f"{rules.named(sc, c.id)} evades {rules.named(sc, charger.id)}'s charge: {cm.fmt(r.distance)} UDM "
            f"directly away (heading {cm.fmt(heading)}, a move of {cm.fmt(budget)})")
    if r.off:
        text += ": it leaves the table and is lost"
    elif r.blocked_by:
        text += f", stopped by {rules.named(sc, r.blocked_by)}"
    if r.through:
        text += "; passes through " + ", ".join(rules.named(sc, o.id) for o in r.through)
    st.last_action = {"kind": "evade", "company": c.id, "path": r.path,
                      "from": [[r.start.x, r.start.y, r.start.facing]], "distance": r.distance,
                      "evaded": [{"company": c.id, "path": r.path}]}
    events = [Event("evade", c.side, cm.h("4.4"), text,
                    outcome={"company": c.id, "charger": charger.id, "distance": r.distance, "off": r.off,
                             "x": c.x, "y": c.y, "facing": c.facing, "disordered": hit})]
    return events + reveal_ambushers(sc, st, [c])


def push_back(sc, st: IWState, c, enemy, distance: float = 1.0) -> list[Event]:
    """IW-H 6.4: the company is moved straight back `distance` UDM keeping its facing; an enemy,
    a friend, impassable ground or the table's edge stops it short. One that cannot move back at
    all stays where it is and is disordered (HERALD D75)."""
    f = cm.fp(sc, st, c)
    start = cm.pose(c)
    others = [(o.id, cm.poly(sc, st, o)) for o in st.companies.values()
              if o.id != c.id and o.alive and o.status != "waiting" and o.id != enemy.id]
    from engine.italianwars.movement.plan import cut_at
    d = float(distance)
    got = cut_at(sc, st, [c], [tmoves.Step("advance", -d)], others, CONTACT_TOL) if others else None
    blocked = ""
    if got is not None:
        cut, blocked = got
        d = abs(cut[0].amount) if cut else 0.0
    for _ in range(60):
        end = tmoves.walk(start, f, [tmoves.Step("advance", -d)]).end if d > 0 else start
        endp = cm.poly(sc, st, c, end)
        cat, fid = cm.worst_ground(sc, endp)
        if cm.on_table(sc, endp) and cat != "impassable" or d <= 0:
            break
        blocked = blocked or (fid if cat == "impassable" else "the table's edge")
        d = rnd(max(0.0, d - 0.05))
    if d < 0.01:
        d = 0.0
    end = tmoves.walk(start, f, [tmoves.Step("advance", -d)]).end if d > 0 else start
    cm.set_pose(c, end)
    name = rules.named(sc, c.id)
    if d <= 0.0:
        c.disordered = True
        text = f"{name} cannot fall back (blocked by {blocked or 'the ground'}): it stands and is disordered (HERALD D75)"
    else:
        text = f"{name} is pushed back {cm.fmt(d)} UDM" + (f", stopped by {blocked}" if d < distance - 0.01 else "")
    return [Event("push_back", c.side, cm.h("6.4"), text,
                  outcome={"company": c.id, "distance": rnd(d), "x": c.x, "y": c.y, "blocked": blocked,
                           "disordered": d <= 0.0})]


def close_to_contact(sc, st: IWState, mover, target, face: str) -> list[Event]:
    """IW-H 4.2: `mover` closes on `target`'s `face` ("front", "left", "right", "rear"), its front
    squared against that side, free (2g, counter-charges, follow-ups, pursuit); an Igel has no
    flank or rear (IW-H 3.5): it is met on the side the mover comes from, squared to it. Sets
    `melee_with` both ways and `in_melee`."""
    f, tf = cm.fp(sc, st, mover), cm.fp(sc, st, target)
    start = cm.pose(mover)
    end = conform(start, f, cm.pose(target), tf, face)
    cm.set_pose(mover, end)
    if mover.hidden:
        mover.hidden = False
    for a, b in ((mover, target), (target, mover)):
        if b.id not in a.melee_with:
            a.melee_with.append(b.id)
        a.in_melee = True
    st.last_action = {"kind": "contact", "company": mover.id, "path": [[start.x, start.y], [end.x, end.y]],
                      "from": [[start.x, start.y, start.facing]], "contact": {"mover": mover.id, "target": target.id}}
    return [Event("contact", mover.side, cm.h("4.2"),
                  f"{rules.named(sc, mover.id)} closes on {rules.named(sc, target.id)}'s {face}, squared against it",
                  outcome={"company": mover.id, "target": target.id, "face": face, "x": mover.x, "y": mover.y,
                           "facing": mover.facing})] + reveal_ambushers(sc, st, [mover])


def face_towards(sc, st: IWState, c, other) -> None:
    """Turn `c` in place (about its centre) to face the centre of `other`."""
    ox, oy = centre_of(sc, st, other)
    cx, cy = centre_of(sc, st, c)
    cm.set_pose(c, flight.turned_to(sc, st, c, bearing_to(cx, cy, ox, oy)))


def push_skirmishers(sc, st: IWState, sk, mover) -> list[Event]:
    """IW Schermagliatori: skirmishers do not bar an enemy's way; the enemy ends its move and the
    skirmishers are placed 1 UDM in front of it (free), facing it; on a friend of theirs, directly
    behind that friend; in impassable ground or off the table, they evade toward their own edge."""
    fx, fy = forward(mover.facing)
    d = tables.SKIRMISHER_PUSH_BACK
    facing = (mover.facing + 180.0) % 360.0
    def at(dist):
        return Pose.rounded(mover.x + fx * dist, mover.y + fy * dist, facing)
    others = [cm.poly(sc, st, o) for o in st.companies.values()
              if o.id not in (sk.id, mover.id) and o.alive and o.status != "waiting"]
    place = at(d)
    for _ in range(60):
        p = cm.poly(sc, st, sk, Pose(place.x, place.y, place.facing))
        # the rectangle lies behind its front edge: a skirmisher facing the mover extends away from it
        if not any(cm.overlaps(p, o) for o in others):
            break
        d = rnd(d + 0.1)
        place = at(d)
    p = cm.poly(sc, st, sk, place)
    start = cm.pose(sk)
    if not cm.on_table(sc, p) or cm.worst_ground(sc, p)[0] == "impassable":
        r = flight.run(sc, st, sk, cm.edge_bearing(sc, st, sk.side), cm.rate(sc, st, sk), edge="leave", behind_friend=True)
        flight.apply_run(sc, st, sk, r)
        text = (f"{rules.named(sc, sk.id)} cannot stand 1 UDM before {rules.named(sc, mover.id)}: it evades "
                f"{cm.fmt(r.distance)} UDM toward its own edge" + (" and leaves the table" if r.off else ""))
    else:
        cm.set_pose(sk, place)
        text = (f"{rules.named(sc, sk.id)} is pushed back before {rules.named(sc, mover.id)}, "
                f"{cm.fmt(d)} UDM in front of it (free)")
    return [Event("pushed", sk.side, S_SKIRM, text, outcome={"company": sk.id, "by": mover.id, "x": sk.x, "y": sk.y,
                                                             "from": [start.x, start.y]})]


# -- ambushes (IW-H 13) ---------------------------------------------------------------------------------

def concealed(sc, st: IWState, c) -> bool:
    """The hidden company stands in ground that conceals it or limits sight into it
    (tables.TERRAIN_KINDS conceals / limits_sight: woods, vineyards, villages, scrub, rough
    ground, marsh, cornfields...): only an enemy within 1 UDM finds it (IW Visibilità; HERALD D78)."""
    p = cm.poly(sc, st, c)
    for f in checks.features(sc):
        g = getattr(f, "geometry", None)
        kind = tables.TERRAIN_KINDS.get(getattr(f, "kind", ""))
        if g is None or kind is None or not (kind.conceals or kind.limits_sight):
            continue
        if g.intersects(p) and not g.touches(p):
            return True
    return False


def spotted_by(sc, st: IWState, c) -> str:
    """The enemy that finds the hidden company (IW-H 13): one within 1 UDM, or one standing in
    open ground that sees its place with nothing blocking the view (unless the ground conceals
    it); "" when none."""
    from engine.italianwars.sequence.command import sees
    me = cm.poly(sc, st, c)
    foes = [e for e in sorted(st.companies.values(), key=lambda e: e.id)
            if e.side != c.side and e.alive and e.status != "waiting" and not e.hidden]
    for e in foes:
        if me.distance(cm.poly(sc, st, e)) <= completion.AMBUSH_REVEAL + cm.EPS:
            return e.id
    if concealed(sc, st, c):
        return ""
    for e in foes:
        if cm.worst_ground(sc, cm.poly(sc, st, e))[0] != "open":
            continue
        c.hidden = False
        try:
            seen = sees(sc, st, e, c)
        finally:
            c.hidden = True
        if seen:
            return e.id
    return ""


def reveal_ambushers(sc, st: IWState, near=None) -> list[Event]:
    """IW-H 13 (IW Imboscata, IW Visibilità): every hidden company an enemy has found is placed
    (hidden no more). `near`: the companies that just moved (None: every company); called after
    every move. When the last hidden company of a battle or of the ambush is found, the map's
    secret is revealed (HERALD D4)."""
    events = []
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if not c.hidden or not c.alive or c.status == "waiting":
            continue
        who = spotted_by(sc, st, c)
        if not who:
            continue
        c.hidden = False
        events.append(Event("ambush_sprung", c.side, cm.h("13"),
                            f"{rules.named(sc, c.id)} is found by {rules.named(sc, who)} and placed on the table",
                            outcome={"company": c.id, "by": who, "x": c.x, "y": c.y, "facing": c.facing}))
        if not any(o.hidden for o in st.companies.values() if o.battle == c.battle):
            reveal(st, f"deploy:{c.battle}")
        written = (st.secrets.get(c.side) or {}).get("ambush") or []
        if written and not any(st.companies[x].hidden for x in written if x in st.companies):
            reveal(st, "ambush:" + "+".join(written))
    return events
