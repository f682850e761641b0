"""The generals' move [4 A], [5], [5 C], [9 C]: the verb `general`.

    general <general> <steps>           e.g. general sw-gen wheel 20 right advance 15
    general <general> attach <unit>     ride to the unit and join it (aggregato)
    general <general> detach            leave the unit he is with

- [4 A], [4 C] "Il Generale può sempre muovere liberamente, senza spendere Cpts": free.
- [5], [Tabella riassuntiva] 24 cm; [9 C] a wounded general at most 10 cm a move; heavy rain
  halves it [15] 6; woods, marsh and towns stop him and cut his next move by 1d6 [5 B] (marsh is
  open to generals); water only at bridges and fords.
- [5 A] his rotation too comes first, at most 45 degrees in a move (a general keeps no count of
  the turn's degrees: HERALD D71).
- [5 C] "Generali interpenetrano liberamente unità amiche": he passes through friends, who are
  not disordered; never through enemies, and never into contact with them ([8 D], troop chart:
  "Non possono attaccare volontariamente").
- Attached (aggregato, [8 D], [10 A]): a general in contact with one of his units; `attach`
  places him against the middle of the unit's rear edge, facing as it does, when that place is
  within his move in a straight line (HERALD D71); an attached general moves with his unit
  (move.carry_generals) and leaves it when he moves on his own. One move a turn (HERALD D8).
"""
from __future__ import annotations

import math

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import CONTACT_TOL, Pose, base_polygon, forward, norm_angle, rnd

from engine.lion import checks, rules
from engine.lion.movement import common, contact, plan, terrain
from engine.lion.movement import move as mv

USAGE = "general <general> <steps> | attach <unit> | detach (LdN [4 A], [5], [8 D])"


def attach_pose(sc, g, u) -> Pose:
    """Against the middle of the unit's rear edge, facing as it does (HERALD D71)."""
    fx, fy = forward(u.facing)
    depth = common.fp_of(u).depth
    gd = checks.footprint(g).depth
    return Pose(rnd(u.x - fx * (depth + gd + 0.02)), rnd(u.y - fy * (depth + gd + 0.02)), norm_angle(u.facing))


def general_allowance(sc, st, g, stream, ground) -> tuple[float, list, list[str]]:
    cm, notes = plan.base_allowance(st, g)
    off, dice, why = terrain.terrain_dice(sc, st, g, stream, ground, g.side)
    if dice:
        cm = max(0.0, cm - off)
        notes.append(why)
    return cm, dice, notes


def do_general(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`general <general> <steps> | attach <unit> | detach` [4 A], [5], [5 C], [9 C]."""
    rules.need_card(st, side, ("move",))
    if len(cmd.args) < 2:
        raise CannotParse("usage: " + USAGE)
    g = rules.general_of(sc, st, side, cmd.args[0])
    who = common.named(sc, g.id)
    words = [w.lower() for w in cmd.args[1:]]
    if words == ["detach"]:
        if not g.attached_to:
            raise Illegal(f"{who} is not attached to a unit", "LdN [8 D]")
        was = g.attached_to
        g.attached_to = ""
        return [Event("general", side, "LdN [8 D]", f"{who} leaves {common.named(sc, was)}",
                      outcome={"general": g.id, "attached_to": ""})]
    if g.moved:
        raise Illegal(f"{who} has already moved this turn", "LdN [5], HERALD D8")
    if contact.enemies_touching(st, g):
        raise Illegal(f"{who} is in contact with the enemy: he cannot ride away", "LdN [8 A], [9 C]")
    ground = terrain.ground_of(sc)
    cm, dice, notes = general_allowance(sc, st, g, stream, ground)
    if words[0] == "attach":
        if len(words) != 2:
            raise CannotParse("usage: general <general> attach <unit>")
        u = rules.unit_of(sc, st, side, words[1])
        return attach(sc, st, side, g, u, cm, dice, notes, ground)
    try:
        steps = mv.read_steps(words)
    except CannotParse as e:
        raise CannotParse(f"{e}".replace(mv.USAGE, USAGE)) from None
    if any(s.kind == "about" for s in steps):
        steps = [s if s.kind != "about" else tmoves.Step("pivot", 180.0, "right") for s in steps]
    turn = sum(s.amount for s in steps if s.kind in plan.ROTATIONS and s.amount != 180.0)
    moved_first = False
    for s in steps:
        if s.kind in plan.ROTATIONS and moved_first:
            raise Illegal("the rotation is made before any other movement", "LdN [5 A]")
        moved_first = moved_first or s.kind in ("advance", "slide")
    if turn > 45.0 + 1e-6:
        raise Illegal(f"the wheel is {common.fmt(turn)} degrees, at most 45 in a turn", "LdN [5 A]")
    fp = checks.footprint(g)
    motion = plan.Motion("single", [common.pose_of(g)], [fp], steps, fp.width)
    total = motion.total
    if total > cm + common.FINE:
        if dice:
            motion = plan.Motion("single", [common.pose_of(g)], [fp], plan.truncate(steps, cm, fp.width), fp.width)
            notes.append(f"the dice leave {common.fmt(cm)} cm: he stops there (HERALD D64)")
        else:
            raise Illegal(f"the move is {common.fmt(total)} cm, at most {common.fmt(cm)}"
                          + (f" ({'; '.join(notes)})" if notes else ""), "LdN [5], [9 C]")
    p = plan.plan(sc, st, side, [g], motion, ground=ground, general=True,
                contact_refused=contact.contact_refusal(sc, g))
    events = mv.apply_plan(sc, st, side, p, allowance=cm, verb="general", extra={"notes": notes})
    events[0].dice = list(dice)
    if notes:
        events[0].narrative += " [" + "; ".join(notes) + "]"
    if g.attached_to:
        u = st.units.get(g.attached_to)
        if u is None or base_polygon(common.pose_of(g), fp).distance(common.poly_of(u)) > CONTACT_TOL:
            events.append(Event("general", side, "LdN [8 D]",
                                f"{who} leaves {common.named(sc, g.attached_to)}", outcome={"attached_to": ""}))
            g.attached_to = ""
    return events


def attach(sc, st, side, g, u, cm, dice, notes, ground) -> list[Event]:
    """Ride straight to the unit's rear and join it (HERALD D71)."""
    who = common.named(sc, g.id)
    end = attach_pose(sc, g, u)
    dist = rnd(math.hypot(end.x - g.x, end.y - g.y))
    if dist > cm + common.FINE:
        raise Illegal(f"{common.named(sc, u.id)} is out of reach: joining it is a ride of {common.fmt(dist)} cm, "
                      f"at most {common.fmt(cm)}" + (f" ({'; '.join(notes)})" if notes else ""), "LdN [5], [9 C]")
    fp = checks.footprint(g)
    body = base_polygon(end, fp)
    for o in sorted(st.units.values(), key=lambda x: x.id):
        if o.alive and body.intersection(common.poly_of(o)).area > common.EPS_AREA:
            raise Illegal(f"there is no room behind {common.named(sc, u.id)}: {common.named(sc, o.id)} is there",
                          "LdN [8 D], HERALD D71")
    from shapely.geometry import LineString
    seg = LineString([(g.x, g.y), (end.x, end.y)]) if (g.x, g.y) != (end.x, end.y) else None
    if seg is not None and ground.water is not None and seg.distance(ground.water) <= common.FINE:
        raise Illegal(f"{who} would cross the water: only at bridges and fords", "LdN [5 B]")
    for o in sorted(st.units.values(), key=lambda x: x.id):
        if o.alive and common.owner_of(o) != side and seg is not None and \
                seg.buffer(fp.width / 2).intersection(common.poly_of(o)).area > common.EPS_AREA:
            raise Illegal(f"{who} would ride through {common.named(sc, o.id)}: never through enemies", "LdN [5 C]")
    before = [rnd(g.x), rnd(g.y), norm_angle(g.facing)]
    g.x, g.y, g.facing = end.x, end.y, end.facing
    g.moved = True
    g.attached_to = u.id
    st.last_action = {"kind": "move", "verb": "general", "side": side, "units": [g.id],
                      "paths": [[(before[0], before[1]), (g.x, g.y)]], "from": [before],
                      "to": [[g.x, g.y, g.facing]], "distance": dist, "allowance": rnd(cm), "contact": None}
    return [Event("general", side, "LdN [5], [8 D]",
                  f"{who} rides {common.fmt(dist)} cm (of {common.fmt(cm)}) and joins {common.named(sc, u.id)}",
                  dice=list(dice), outcome={"general": g.id, "attached_to": u.id, "distance": dist})]


rules.register("general", do_general, USAGE)
