"""What a melee leaves behind [8 E], [9 A-C]: the hit, the captured or spiked guns, the generals at
risk, the 5 cm retreat facing the enemy and the winner's follow-up.

- The hit [9 A]: checks.hit (a second hit destroys; a P&S its third, a Tercio its fourth
  [12 E-F]). Artillery already disordered and disordered again in melee [9 B] rolls 1d6 instead:
  1-3 the guns are spiked (destroyed), 4-6 captured: they work for the winner, in good order,
  and never move again (HERALD D95).
- Generals [9 C], tables.GENERAL_RISK_MELEE / GENERAL_RISK_FIRE (HERALD D96): a general attached
  to, or touching, a unit that loses, or attacked alone and losing, rolls 1d8: in melee 1-2 he
  withdraws 5 cm, 3-5 wounded, 6-8 killed; under fire 1-5 nothing, 6-7 wounded, 8 killed; a
  wounded general wounded again is killed.
- The retreat [8 E] "deve ritirarsi di 5 cm, fronte al nemico" (HERALD D93): the loser turns to
  face the winner, its front flush against the edge of the winner it touched (the geometry's
  `conform`), and backs 5 cm straight away from it. The retreat stops short at the first base it
  would touch, at a river or stream outside its crossings and at the table's edge (a blocked
  retreat is a shorter one; nothing more is lost). Artillery does not retreat (the guns stay
  where they are; [6] they barely move). A general attached to the unit goes with it.
- The follow-up [8 E] (HERALD D94): the winner the loser retreated from, when the loser touched
  its front, advances straight ahead as far as the loser went back (5 cm when it was destroyed),
  stopping at the first base it touches (the loser again: they are in contact). Cavalry must;
  infantry as its side's policy "advance" says (auto, stay, ask: a decision `react advance|stay`).
  Guns, generals and units still touching another enemy do not follow up.

Other modules call: `general_risk`, `apply_loss`, `retreat`, `run_follow_ups`.
"""
from __future__ import annotations

from shapely.geometry import box

from engine.core.dice import DiceStream
from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import (CONTACT_TOL, Pose, base_polygon, boxes_apart, conform, contact_edge, forward,
                                        norm_angle, rnd)

from engine.lion import checks, rules, tables
from engine.lion.fire.sight import fmt, is_general, owner, terrain, troop

SECTION_RETREAT = "LdN [8 E]"


# -- generals [9 C] ---------------------------------------------------------------------------------

def general_risk(sc, st, g, kind: str, stream: DiceStream, cause: str,
                 away: tuple[float, float] | None = None, carried: bool = False) -> list[Event]:
    """[9 C] a general in a lost melee (`kind` "melee") or hit by fire ("fire") rolls 1d8 on his
    table (tables.GENERAL_RISK_MELEE / GENERAL_RISK_FIRE). Wounded twice is killed. In melee a
    1-2 withdraws him 5 cm along `away` (straight back when None), unless his unit's retreat
    `carried` him already (HERALD D96)."""
    table = tables.GENERAL_RISK_MELEE if kind == "melee" else tables.GENERAL_RISK_FIRE
    name = rules.named(sc, g.id)
    # the d8 is read only by its row (a wound twice is a kill whatever the face): one face per row
    # in a what-if (issue 13, checks.roll's `reads`)
    value, dr = checks.roll(stream, tables.GENERAL_RISK_DIE, f"risk to {name} ({kind})", g.side,
                            reads=tuple(row.high for row in table[:-1]))
    row = tables.general_risk(table, value)
    result = row.result
    text = row.text
    if result == "wounded" and g.wounded:
        result, text = "killed", "wounded a second time: killed"
    if result == "wounded":
        g.wounded = True
    elif result == "killed":
        g.status = "killed"
        g.attached_to = ""
    moved = 0.0
    if result == "no_effect" and kind == "melee" and not carried:
        vx, vy = away if away is not None else tuple(-c for c in forward(g.facing))
        g.x, g.y = rnd(g.x + vx * tables.GENERAL_WITHDRAW), rnd(g.y + vy * tables.GENERAL_WITHDRAW)
        moved = tables.GENERAL_WITHDRAW
    dr.effect = result.replace("_", " ")
    section = "LdN [9 C]"
    return [Event("general_risk", g.side, section, f"{name}, {cause}: d8 {value}: {text}", dice=[dr],
                  table=f"generals {'in a lost melee' if kind == 'melee' else 'under fire'}",
                  row=f"{row.low}-{row.high}" if row.low != row.high else str(row.low),
                  outcome={"general": g.id, "result": result, "withdrew": moved})]


def generals_with(st, unit) -> list:
    """The live generals of the unit's side attached to it or touching it (HERALD D96)."""
    side = owner(unit)
    out = []
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.alive and g.side == side and (g.attached_to == unit.id or checks.base_distance(g, unit) <= CONTACT_TOL):
            out.append(g)
    return out


# -- the hit [9 A-B] --------------------------------------------------------------------------------

def apply_loss(sc, st, loser, winner_side: str, stream: DiceStream, cause: str) -> list[Event]:
    """One lost comparison in melee on `loser` [9 A], [9 B] (HERALD D95)."""
    if troop(loser).arm == "artillery" and loser.hits >= 1:
        name = rules.named(sc, loser.id)
        lo, hi = tables.GUN_CAPTURE["spiked"]
        # spiked or captured: the d6 is read against 1-3 only (issue 13, checks.roll's `reads`)
        value, dr = checks.roll(stream, tables.GUN_CAPTURE["die"], f"the guns of {name}", owner(loser),
                                reads=(hi,))
        if lo <= value <= hi:
            loser.status = "destroyed"
            for g in st.generals.values():
                if g.attached_to == loser.id:
                    g.attached_to = ""
            dr.effect = "spiked"
            return [Event("guns_spiked", owner(loser), "LdN [9 B]",
                          f"{name}, already disordered, is disordered again in melee ({cause}): d6 {value}: "
                          f"the guns are spiked (destroyed)", dice=[dr], table="artillery in melee: 1-3 spiked, 4-6 captured",
                          row=str(value), outcome={"unit": loser.id, "result": "spiked", "destroyed": True})]
        loser.captured_by = "" if winner_side == loser.side else winner_side
        loser.hits = 0
        loser.looting = False
        for g in st.generals.values():
            if g.attached_to == loser.id:
                g.attached_to = ""
        dr.effect = "captured"
        return [Event("guns_captured", winner_side, "LdN [9 B]",
                      f"{name}, already disordered, is disordered again in melee ({cause}): d6 {value}: the guns "
                      f"are captured by {winner_side.title()}: they work for them and never move (HERALD D95)",
                      dice=[dr], table="artillery in melee: 1-3 spiked, 4-6 captured", row=str(value),
                      outcome={"unit": loser.id, "result": "captured", "captured_by": winner_side})]
    return [checks.hit(sc, st, loser, cause, "LdN [8 A], [9 A]")]


# -- the retreat [8 E] ---------------------------------------------------------------------------------

def _table(sc):
    return box(0.0, 0.0, float(getattr(sc, "width", 180.0) or 180.0), float(getattr(sc, "height", 120.0) or 120.0))


def _clear(sc, start: Pose, fp, d: float, steps_kind: float) -> bool:
    """Backing (steps_kind -1) or advancing (+1) `d` cm from `start` stays on the table and
    crosses no river or stream outside its crossings."""
    if d <= 0:
        return True
    w = tmoves.walk(start, fp, [tmoves.Step("advance", steps_kind * d)])
    if not _table(sc).buffer(0.01).contains(base_polygon(w.end, fp)):
        return False
    return not terrain(sc).crosses_water(w.swept)


def _near(obstacles: list, start: Pose, fp, amount: float) -> list:
    """The obstacles ((id, polygon)) whose bounding box comes within 1 cm of the box of a base's
    straight way (`amount` cm ahead, negative back, from `start`), as (id, polygon, box), in
    their order: a straight advance keeps the base inside the box of where it starts and ends,
    so no other obstacle can touch it (within CONTACT_TOL) or be stood on (issue 13: the same
    answers as measuring every base on the table, with a few Shapely calls instead)."""
    a = base_polygon(start, fp).bounds
    b = base_polygon(tmoves.step_ends([(start, fp)], tmoves.Step("advance", amount))[0], fp).bounds
    way = (min(a[0], b[0]) - 1.0, min(a[1], b[1]) - 1.0, max(a[2], b[2]) + 1.0, max(a[3], b[3]) + 1.0)
    return [(oid, o, o.bounds) for oid, o in obstacles if not boxes_apart(o.bounds, way)]


def _straight(sc, st, obj, start: Pose, distance: float, sign: float, exclude: set[str]) -> tuple[float, str]:
    """How far `obj`, placed at `start`, goes straight back (sign -1) or ahead (+1) up to
    `distance`: (cm, what stopped it, "" when nothing did)."""
    fp = checks.footprint(obj)
    obstacles = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and u.id not in exclude:
            obstacles.append((u.id, base_polygon(checks.pose(u), checks.footprint(u))))
    for cs, camp in sorted(st.camps.items()):
        obstacles.append((f"camp-{cs}", base_polygon(checks.pose(camp), checks.footprint(camp))))
    steps = [tmoves.Step("advance", sign * distance)]
    near = _near(obstacles, start, fp, sign * distance)
    # (an obstacle whose box is over 1 cm from the way's never comes within CONTACT_TOL of it)
    got = tmoves.first_touch(start, fp, steps, [(oid, o) for oid, o, _ in near])
    reach, why = distance, ""
    if got is not None:
        w, oid = got
        reach = rnd(w.used)
        why = rules.named(sc, oid) if not oid.startswith("camp-") else f"the {oid[5:]} camp"
    # a base touching it where it starts is no obstacle to first_touch: walk the way in short
    # steps and stop before the first place it would stand on a base (HERALD D100); only the
    # obstacles near the way (`near`) can be stood on, each measured only when its box meets
    # the base's (boxes apart: no common area)
    def stands_on(d: float) -> str:
        if not near:
            return ""
        end = tmoves.step_ends([(start, fp)], tmoves.Step("advance", sign * d))[0] if d > 0 else start
        poly = base_polygon(end, fp)
        return next((oid for oid, o, bounds in near
                     if not boxes_apart(bounds, poly.bounds) and poly.intersection(o).area > 0.01), "")
    if reach > 0 and not stands_on(0.0):
        d = 0.0
        while d < reach:
            nxt = min(reach, d + 0.25)
            oid = stands_on(nxt)
            if oid:
                lo, hi = d, nxt
                for _ in range(20):
                    mid = (lo + hi) / 2.0
                    lo, hi = (mid, hi) if not stands_on(mid) else (lo, mid)
                reach = rnd(lo)
                why = rules.named(sc, oid) if not oid.startswith("camp-") else f"the {oid[5:]} camp"
                break
            d = nxt
    if not _clear(sc, start, fp, reach, sign):
        lo, hi = 0.0, reach
        for _ in range(30):
            if hi - lo <= 0.005:
                break
            mid = (lo + hi) / 2.0
            if _clear(sc, start, fp, mid, sign):
                lo = mid
            else:
                hi = mid
        reach = rnd(lo)
        why = "the table's edge or a river"
    return reach, why


def _turn_overlaps(st, obj, pose: Pose, fp, exclude: set[str]) -> bool:
    """Whether `obj` placed at `pose` would stand on another live base (HERALD D100)."""
    poly = base_polygon(pose, fp)
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if not u.alive or u.id in exclude:
            continue
        o = base_polygon(checks.pose(u), checks.footprint(u))
        if not boxes_apart(o.bounds, poly.bounds) and poly.intersection(o).area > 0.01:
            return True
    return False


def retreat(sc, st, loser, winner, distance: float = tables.RETREAT_DISTANCE) -> tuple[list[Event], dict]:
    """[8 E] the loser retreats `distance` cm facing the winner (HERALD D93). Returns the events
    and {"moved": cm, "away": (dx, dy) unit vector, "carried": [general ids]}."""
    name = rules.named(sc, loser.id)
    if troop(loser).arm == "artillery":
        return [Event("retreat", owner(loser), SECTION_RETREAT,
                      f"{name} is artillery: the guns do not retreat (HERALD D93)",
                      outcome={"unit": loser.id, "moved": 0.0})], {"moved": 0.0, "away": None, "carried": []}
    wp, wf = checks.pose(winner), checks.footprint(winner)
    lp, lf = checks.pose(loser), checks.footprint(loser)
    edge = contact_edge(wp, wf, lp, lf)
    if edge is not None:
        start = conform(lp, lf, wp, wf, edge)
        if _turn_overlaps(st, loser, start, lf, {loser.id, winner.id}):
            start = lp          # it cannot turn there without standing on a base: HERALD D100
    else:
        start = lp
    fx, fy = forward(start.facing)
    away = (-fx, -fy)
    reach, why = _straight(sc, st, loser, start, distance, -1.0, {loser.id, winner.id})
    end = Pose(rnd(start.x - fx * reach), rnd(start.y - fy * reach), norm_angle(start.facing))
    before = checks.pose(loser)
    loser.x, loser.y, loser.facing = end.x, end.y, end.facing
    from engine.lion.movement.move import carry_generals
    carried = carry_generals(st, loser, before, end)
    wname = rules.named(sc, winner.id)
    if reach >= distance:
        text = f"{name} retreats {fmt(distance)} cm facing {wname}"
    elif reach > 0:
        text = f"{name} retreats only {fmt(reach)} cm facing {wname}: {why} is in the way (HERALD D93)"
    else:
        text = f"{name} cannot retreat from {wname}: {why} is in the way; it stays, facing the enemy (HERALD D93)"
    ev = Event("retreat", owner(loser), SECTION_RETREAT, text,
               inputs={"from": [before.x, before.y, before.facing], "winner": winner.id},
               outcome={"unit": loser.id, "moved": reach, "to": [end.x, end.y, end.facing], "blocked_by": why})
    return [ev], {"moved": reach, "away": away, "carried": carried}


# -- the follow-up [8 E] ------------------------------------------------------------------------------

def enemies_touching(st, obj, but: str = "") -> list:
    side = owner(obj)
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and owner(u) != side and u.id != but and checks.within(obj, u, CONTACT_TOL)]


def follow_up_move(sc, st, winner_id: str, distance: float) -> list[Event]:
    """The winner advances straight ahead up to `distance`, stopping at the first base (HERALD D94)."""
    w = st.units.get(winner_id)
    if w is None or not w.alive or distance <= 0:
        return []
    start = checks.pose(w)
    reach, why = _straight(sc, st, w, start, distance, 1.0, {w.id})
    fx, fy = forward(start.facing)
    end = Pose(rnd(start.x + fx * reach), rnd(start.y + fy * reach), start.facing)
    w.x, w.y = end.x, end.y
    from engine.lion.movement.move import carry_generals
    carry_generals(st, w, start, end)
    name = rules.named(sc, w.id)
    text = f"{name} follows up {fmt(reach)} cm into the space left" + (f", into contact with {why}" if why else "")
    st.last_action.setdefault("follow_ups", []).append({"unit": w.id, "moved": reach,
                                                       "path": [[start.x, start.y], [end.x, end.y]]})
    return [Event("follow_up", owner(w), SECTION_RETREAT, text,
                  outcome={"unit": w.id, "moved": reach, "to": [end.x, end.y], "stopped_by": why})]


def follow_up_choice(sc, st, winner) -> str:
    """"must" (cavalry), "advance", "stay" or "ask" (infantry, by the policy "advance") [8 E]."""
    if troop(winner).arm == "cavalry":
        return "must"
    value = rules.policy(st, owner(winner), "advance")
    return value if value in ("advance", "stay", "ask") else ("advance" if value == "auto" else "stay")


def run_follow_ups(sc, st, queue: list[dict], stream: DiceStream) -> list[Event]:
    """Carry out the follow-ups in order ({"unit", "distance", "loser"}); an infantry winner whose
    side's policy is "ask" stops the game with a decision (the rest of the queue waits in it)."""
    events: list[Event] = []
    queue = list(queue)
    while queue:
        item = queue.pop(0)
        w = st.units.get(item["unit"])
        if w is None or not w.alive:
            continue
        choice = follow_up_choice(sc, st, w)
        name = rules.named(sc, w.id)
        if choice == "stay":
            events.append(Event("follow_up", owner(w), SECTION_RETREAT,
                                f"{name} stays where it is (policy advance stay)", outcome={"unit": w.id, "moved": 0.0}))
            continue
        if choice == "ask":
            st.pending = {"kind": "advance", "side": owner(w), "options": ["advance", "stay"],
                          "section": SECTION_RETREAT, "default": "advance", "unit": w.id,
                          "prompt": f"{name} won the melee: advance into the space left ({fmt(item['distance'])} cm) or stay",
                          "item": item, "queue": queue}
            return events
        events += follow_up_move(sc, st, w.id, item["distance"])
    return events


def resume_advance(sc, st, side: str, answer: str, more: list[str], stream: DiceStream) -> list[Event]:
    """`react advance|stay`: the infantry winner's choice [8 E]."""
    p = st.pending or {}
    item, queue = p.get("item") or {}, list(p.get("queue") or [])
    st.pending = None
    events: list[Event] = []
    if answer == "advance":
        events += follow_up_move(sc, st, item.get("unit", ""), float(item.get("distance", 0.0)))
    else:
        events.append(Event("follow_up", side, SECTION_RETREAT,
                            f"{rules.named(sc, item.get('unit', ''))} stays where it is",
                            outcome={"unit": item.get("unit", ""), "moved": 0.0}))
    return events + run_follow_ups(sc, st, queue, stream)


rules.register_reaction("advance", resume_advance)
