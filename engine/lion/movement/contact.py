"""Contact and turning from it [5 D], [8 A], [8 E], [9 A], [12 A], [12 E-F]: who touches an enemy,
who may not close, the about-face and the evasion.

- Contact [8 A], [8 E]: the enemies a base touches (`enemies_touching`); only cavalry touching
  nothing but infantry disengages, with 2d6 off its move (move.prepare, HERALD D66).
- Who may not close (`contact_refusal`): disordered units [9 A] (Pike & Shot from their 2nd
  hit [12 E], Tercios from their 3rd [12 F]), units looting a camp [12 A], a unit in its
  about-face move [5 D], guns [6 A] and generals [8 D] ever.
- The about-face [5 D]: light horse, dragoons and musketeers then move half a move straight on
  (`about_steps`); pikemen and Pike & Shot stay and are disordered, never destroyed by it
  (`about_effects`, HERALD D65).
- Evasion [5 D] (the end of the paragraph): light horse, mounted arquebusiers and mounted
  dragoons an infantry move would touch may fall back, ending as far from the enemy as they
  were (`may_evade`, `evasion`, `apply_evasion`, HERALD D67); their owner's policy `evade`
  (auto / never / ask, `evade_policy`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from shapely.geometry import LineString
from shapely.ops import unary_union

from engine.core.errors import Illegal
from engine.core.events import Event
from engine.core.table.geometry import CONTACT_TOL, Pose, base_polygon, forward, rnd

from engine.lion import rules, tables
from engine.lion.movement.common import (EPS_AREA, FINE, arm_of, fmt, fp_of, is_general, named, owner_of,
                                         poly_of, pose_of, troop_of)
from engine.lion.movement.terrain import Ground, may_enter

if TYPE_CHECKING:
    from engine.lion.movement.move import Order
    from engine.lion.movement.plan import Plan


# == in contact, and who may not close [8 A], [9 A], [12 E-F] ======================================

def enemies_touching(st, obj) -> list:
    p = poly_of(obj)
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and owner_of(u) != obj.side and p.distance(poly_of(u)) <= CONTACT_TOL]


def contact_refusal(sc, u, *, about: bool = False) -> str:
    """Why `u` may not close to contact in this move ("" when it may)."""
    t = troop_of(u)
    if is_general(u):
        return "generals never attack voluntarily (LdN [8 D], [Tabella delle truppe])"
    if t.arm == "artillery":
        return "guns never move into contact with the enemy (LdN [6 A])"
    if about:
        return "a unit that about-faces may not contact the enemy in the same move (LdN [5 D])"
    if not tables.may_close(u.type, u.hits):
        if u.type in ("pike_and_shot", "late_pike_and_shot"):
            return f"a Pike & Shot with {u.hits} hits may not close with the enemy (LdN [12 E])"
        if u.type == "tercio":
            return f"a Tercio with {u.hits} hits may not close with the enemy (LdN [12 F])"
        return "disordered units may not close to contact (LdN [9 A])"
    if u.looting:
        return "a unit looting counts as disordered and may not close (LdN [12 A], [9 A])"
    return ""


# == the about-face [5 D] ==========================================================================

def about_steps(sc, u, steps) -> list:
    """[5 D] the about-face, then (light horse, dragoons, musketeers) a straight half move."""
    rest = steps[1:]
    kind = troop_of(u).about_face
    if rest and kind != "half_move":
        raise Illegal(f"{named(sc, u.id)} about-faces and stays where it is: only light horse, dragoons "
                      "and musketeers move half a move after it", "LdN [5 D]")
    if any(s.kind != "advance" or s.amount < 0 for s in rest):
        raise Illegal("after the about-face only a straight advance (half a move)", "LdN [5 D]")
    return steps


def about_effects(sc, st, order: Order) -> list[Event]:
    """[5 D] pikemen and Pike & Shot (and Tercios) about-face and are disordered (never destroyed
    by it, HERALD D65)."""
    events = []
    for u in order.movers:
        if troop_of(u).about_face == "stay_disordered" and u.hits == 0:
            u.hits = 1
            events.append(Event("hit", u.side, "LdN [5 D]", f"{named(sc, u.id)} about-faces and is disordered",
                                outcome={"unit": u.id, "hits": 1, "destroyed": False, "cause": "about-face"}))
    return events


# == evasion [5 D] =================================================================================

def may_evade(sc, st, movers, target_id: str) -> bool:
    """[5 D] "Cavallerie Leggere, Archibugieri a cavallo e Dragoni montati attaccati da fanterie
    possono evitare il combattimento": the target evades infantry only, not when already in
    contact with an enemy."""
    t = st.units.get(target_id)
    if t is None or not t.alive:
        return False
    if not troop_of(t).evades or not t.mounted:
        return False
    if not all(not is_general(m) and arm_of(m) == "infantry" for m in movers):
        return False
    return not enemies_touching(st, t)


def evade_policy(st, side: str) -> str:
    """The evader's standing answer: auto (evade when it can), never, ask (HERALD D67)."""
    mine = (st.policies.get(side) or {}).get("evade")
    if mine in ("auto", "never", "ask"):
        return mine
    default = rules.POLICY_DEFAULTS.get("evade")
    return default if default in ("auto", "never", "ask") else "auto"


def evasion(sc, st, side: str, p: Plan, evader_id: str, start_gap: float, ground: Ground) -> dict | None:
    """Where the evader falls back to: straight back along the mover's final facing, keeping its
    own facing, until it is `start_gap` from the nearest mover again (HERALD D67); None when the
    way back is blocked (another base, water, terrain it may not enter, the table's edge)."""
    ev = st.units[evader_id]
    fx, fy = forward(p.ends[p.contact["member"]].facing if p.contact else p.ends[0].facing)
    ends = [base_polygon(e, f) for e, f in zip(p.ends, p.motion.fps)]
    start = pose_of(ev)
    fp = fp_of(ev)

    def gap(s):
        q = base_polygon(Pose(start.x + fx * s, start.y + fy * s, start.facing), fp)
        return min(q.distance(e) for e in ends)
    lo, hi = 0.0, 5.0
    while gap(hi) < start_gap and hi < 400.0:
        hi *= 2.0
    if gap(hi) < start_gap:
        return None
    if gap(0.0) >= start_gap:
        hi = 0.0
    while hi - lo > FINE:
        mid = (lo + hi) / 2.0
        if gap(mid) >= start_gap - FINE:
            hi = mid
        else:
            lo = mid
    end = Pose(rnd(start.x + fx * hi), rnd(start.y + fy * hi), start.facing)
    if hi <= 0.0:
        return {"pose": end, "distance": 0.0, "path": [(start.x, start.y)]}
    swath = unary_union([base_polygon(start, fp), base_polygon(end, fp)]).convex_hull
    endp = base_polygon(end, fp)
    if not ground.table().buffer(FINE).contains(endp):
        return None
    for o in sorted(st.units.values(), key=lambda u: u.id):
        if not o.alive or o.id == ev.id:
            continue
        if owner_of(o) != owner_of(ev) and swath.intersection(poly_of(o)).area > EPS_AREA:
            return None
        if endp.intersection(poly_of(o)).area > EPS_AREA:
            return None
    for mp in ends:
        if endp.distance(mp) <= CONTACT_TOL:
            return None
    seg = LineString([(start.x, start.y), (end.x, end.y)])
    if ground.water is not None and seg.distance(ground.water) <= FINE:
        return None
    for fid, kind, region in ground.areas:
        if seg.distance(region) <= FINE and may_enter(ev, kind):
            return None
    through = [o.id for o in sorted(st.units.values(), key=lambda u: u.id)
               if o.alive and o.id != ev.id and owner_of(o) == owner_of(ev)
               and swath.intersection(poly_of(o)).area > EPS_AREA]
    return {"pose": end, "distance": rnd(hi), "path": [(rnd(start.x), rnd(start.y)), (end.x, end.y)],
            "through": through}


def apply_evasion(sc, st, ev_id: str, move: dict) -> list[Event]:
    ev = st.units[ev_id]
    end = move["pose"]
    ev.x, ev.y = end.x, end.y
    events = [Event("evade", ev.side, "LdN [5 D]",
                    f"{named(sc, ev_id)} evades, falling back {fmt(move['distance'])} cm to keep its "
                    "distance from the infantry",
                    outcome={"unit": ev_id, "distance": move["distance"], "to": [end.x, end.y, end.facing]})]
    for fid in move.get("through", []):
        f = st.units[fid]
        if f.hits == 0:
            f.hits = 1
            events.append(Event("hit", f.side, "LdN [5 C]",
                                f"{named(sc, fid)} is disordered: {named(sc, ev_id)} fell back through it "
                                "(no unit is destroyed by friends)",
                                outcome={"unit": fid, "hits": 1, "destroyed": False, "cause": "interpenetration"}))
    st.last_action.setdefault("evaded", []).append({"unit": ev_id, "path": move["path"],
                                                    "distance": move["distance"]})
    return events
