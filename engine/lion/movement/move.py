"""Moving units and groups [4], [5], [8 A], [8 E]: the verbs `move`, `charge` and `about`, and the
order that checks, plans, pays and carries out a move.

    move <unit>[+<unit>...] <steps> [forced|triple]
      steps (engine.core.table.moves.parse_steps): "wheel 30 left advance 12", "back 5", ...
      forced   forced march: a single unit at double speed for 1 Cpt more [4 D]
      triple   the Surprise March event: a single unit at triple speed [15] 3 (HERALD D68)
    charge <unit> <enemy> [forced]   the manoeuvre computed: wheel (what remains of 45 degrees)
                                     to face the enemy, then advance into contact
    about <unit> [advance <cm>]      about-face [5 D]; light horse, dragoons, musketeers then
                                     move half a move

The rules, in the order a move is checked (a move is planned whole before anything changes;
the dispatcher works on a copy, so a refusal leaves the game untouched):
- Who [4 A], [8 A], [8 E], [12 A]: the side's move card; a live unit that has not moved this
  turn (HERALD D8), that may move at all (organ guns, heavy guns, mortars never [6 B]; captured
  guns never [9 B]; deployed light/medium guns never [6 A]: artillery.py), not looting an enemy
  camp [12 A], not in contact with the enemy, except cavalry touching only infantry, which
  disengages with 2d6 off its move [8 E] (HERALD D66).
- The rotation [5 A] (HERALD D4): wheels before any other movement, at most 45 degrees in the
  turn, counted on `Unit.turned`; a wheel's outer corner arc counts against the allowance. Only
  guns (and generals) pivot on the spot [6 C] (HERALD D61).
- The allowance [5], [Tabella riassuntiva]: the type's move (tables.TROOPS), x2 forced [4 D], x3
  Surprise March [15] 3, x2 on a road when the base starts and ends on it [5 B], halved in heavy
  rain [15] 6; minus 1d6 / 2d6 when the unit starts in woods, marsh, a town or at a ford [5 B], 2d6
  when disengaging [8 E]. A move longer than the allowance is refused with both numbers; when
  dice cut the allowance the move goes as far as they allow (HERALD D64).
- The path [5 B-C], [5], [8 A] (HERALD D62, D63): the move stops where the base's place (the
  centre of its front edge) enters woods, marsh, a town or a ford it was not in, off a road; it
  never crosses a river or stream but at a bridge or ford; marsh is for infantry and generals
  only, towns for musketeers, militia and dismounted dragoons (others only along a road, never
  ending there), artillery never into woods or marsh but by road [6 A]. It stops at the first
  touch of an enemy base (engine.core.table geometry) and is conformed to it (HERALD D6); the
  enemy's `contacted_by` records it when its front (any face of a Tercio) is touched, for the
  contact fire [7 D]. Disordered units may not close [9 A] (P&S from their 2nd hit, Tercios from
  their 3rd [12 E-F]), nor a unit in its about-face move [5 D], nor guns and generals ever [6 A],
  [8 D]. Friends passed through are disordered, never destroyed [5 C] (HERALD D65); enemies are
  never passed through; no base ends on another; no base leaves the table.
- Evasion [5 D] (the text puts it at the end of D): light horse, mounted arquebusiers and
  mounted dragoons an infantry move would touch may fall back, ending as far from the enemy as
  they were at the start (HERALD D67): their owner's policy `evade` (auto / never / ask).
- Groups [4 B] (HERALD D69): units joined by "+", one unbroken front (engine.core.table.moves
  group_front) of the arms allowed together (tables.GROUP_MIXES), moving as a block
  (group_walk), or a column (bases one behind the other) whose bases follow the head's path;
  no forced march for groups [4 D].
- The cost [4 C-D], [11 A]: sequence.command.move_cost / spend.

The parts live beside this module: plan.py (the allowance, the rotation, the motion and its
path), terrain.py (the ground [5 B]), contact.py (contact, the about-face and evasion [5 D],
[8 E], [9 A], [12 E-F]), groups.py (groups and columns [4 B]) and common.py (the small readers).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from shapely.geometry import Point

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import (CONTACT_TOL, Pose, angle_between, base_polygon, bearing_to,
                                        contact_edge, norm_angle, rnd)

from engine.lion import checks, rules, tables
from engine.lion.movement.common import (FINE, arm_of, fmt, fp_of, is_general, named, poly_of, pose_of,
                                         troop_of)
from engine.lion.movement.contact import (about_effects, about_steps, apply_evasion, contact_refusal,
                                          enemies_touching, evade_policy, evasion, may_evade)
from engine.lion.movement.groups import column_order, group_problem
from engine.lion.movement.plan import (Motion, Plan, base_allowance, check_allowance, check_rotation,
                                       discs_of, first_event, plan, step_cost, swept_touches, truncate)
from engine.lion.movement.terrain import Ground, ground_of, road_check, terrain_dice
from engine.lion.sequence import command


USAGE = ("move <unit>[+<unit>...] <steps> [forced]: wheel up to 45 degrees first, then advance, "
         "e.g. move sw-mus1 wheel 30 left advance 8 (LdN [4], [5])")


# == who may move [4 A], [6], [9 B], [12 A] ========================================================

def need_mobile(sc, st, u) -> None:
    """A unit that may move now [5], [6], [9 B], [12 A], HERALD D8."""
    t = troop_of(u)
    who = named(sc, u.id)
    if u.moved:
        raise Illegal(f"{who} has already moved this turn: one move per unit (forced march "
                      "doubles it)", "LdN [4 D], HERALD D8")
    if u.captured_by:
        raise Illegal(f"{who} is a captured gun: captured guns never move", "LdN [9 B]")
    if not t.moves or t.move <= 0:
        raise Illegal(f"{who} ({t.name}) never moves", "LdN [6 B], [Tabella delle truppe]")
    if t.arm == "artillery" and t.gun in ("light", "medium") and u.deployed:
        raise Illegal(f"{who} is deployed: light and medium guns move only limbered, and change "
                      "status once", "LdN [6 A]")
    if u.looting:
        raise Illegal(f"{who} is looting the enemy camp: it must leave first (`leave`)", "LdN [12 A]")


# == carrying a plan out (attached generals with it, HERALD D71) ===================================

def carry_generals(st, u, before: Pose, after: Pose) -> list[str]:
    """A general attached to a unit moves with it, keeping his place beside it (HERALD D71)."""
    moved = []
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.alive and g.attached_to == u.id:
            dx, dy = g.x - before.x, g.y - before.y
            turn = (after.facing - before.facing) % 360.0
            r = math.radians(turn)
            nx = after.x + dx * math.cos(r) + dy * math.sin(r)
            ny = after.y - dx * math.sin(r) + dy * math.cos(r)
            g.x, g.y, g.facing = rnd(nx), rnd(ny), norm_angle(g.facing + turn)
            moved.append(g.id)
    return moved


def apply_plan(sc, st, side: str, p: Plan, *, rotation: float = 0.0, allowance: float = 0.0,
               verb: str = "move", extra: dict | None = None) -> list[Event]:
    """Put the bases where the plan ends, mark them moved, disorder the friends passed through
    [5 C], record the contact [5], [7 D] and the picture (st.last_action)."""
    events: list[Event] = []
    ground = ground_of(sc)
    paths, froms, tos = [], [], []
    for i, m in enumerate(p.movers):
        before = pose_of(m)
        end = p.ends[i]
        paths.append(p.motion.path(i, p.used) + [(rnd(end.x), rnd(end.y))])
        froms.append([rnd(before.x), rnd(before.y), norm_angle(before.facing)])
        m.x, m.y, m.facing = rnd(end.x), rnd(end.y), norm_angle(end.facing)
        tos.append([m.x, m.y, m.facing])
        m.moved = True
        if not is_general(m):
            m.turned = rnd((m.turned or 0.0) + rotation)
            if i in p.entered:
                m.stopped_in = p.entered[i]
            else:
                here = ground.areas_at(m.x, m.y)
                m.stopped_in = here[0][1] if here and m.stopped_in == here[0][1] else \
                    (here[0][1] if here else "")
            carry_generals(st, m, before, pose_of(m))
    for path in paths:
        while len(path) > 1 and path[-1] == path[-2]:
            path.pop()
    names = ", ".join(named(sc, m.id) for m in p.movers)
    for fid in p.through:
        f = st.units[fid]
        if f.hits == 0:
            f.hits = 1
            events.append(Event("hit", f.side, "LdN [5 C]",
                                f"{named(sc, fid)} is disordered: {names} passed through it "
                                "(no unit is destroyed by friends)",
                                outcome={"unit": fid, "hits": f.hits, "destroyed": False, "cause": "interpenetration"}))
        else:
            events.append(Event("interpenetration", f.side, "LdN [5 C]",
                                f"{names} passed through {named(sc, fid)}, already disordered: no "
                                "further harm (no unit is destroyed by friends)",
                                outcome={"unit": fid, "hits": f.hits, "destroyed": False}))
    contact = None
    if p.contact:
        c = p.contact
        mover = p.movers[c["member"]]
        if c["what"] == "unit":
            target = st.units[c["target"]]
            edge = c["edge"] or contact_edge(pose_of(target), fp_of(target), pose_of(mover), fp_of(mover),
                                             tol=CONTACT_TOL + 0.05) or ""
            c["edge"] = edge
            if (edge == "front" or target.type == "tercio") and mover.id not in target.contacted_by:
                target.contacted_by.append(mover.id)
        contact = dict(c, mover=mover.id)
    st.last_action = {"kind": "move", "verb": verb, "side": side, "units": [m.id for m in p.movers],
                      "paths": paths, "from": froms, "to": tos, "distance": p.used,
                      "allowance": rnd(allowance), "contact": contact,
                      "entered": {p.movers[i].id: k for i, k in sorted(p.entered.items())},
                      "through": list(p.through)}
    if extra:
        st.last_action.update(extra)
    what = f"{names} {'move' if len(p.movers) > 1 else 'moves'} {fmt(p.used)} cm"
    if allowance:
        what += f" (of {fmt(allowance)})"
    if rotation:
        what += f", wheeling {fmt(rotation)} degrees"
    if contact:
        tname = named(sc, contact["target"]) if contact["what"] != "camp" else contact["target"]
        what += f", and stops in contact with {tname}" + (f"'s {contact['edge']}" if contact.get("edge") else "")
    for i, k in sorted(p.entered.items()):
        what += f"; {named(sc, p.movers[i].id)} enters {k} and stops"
    section = "LdN [5]" + (", [8 A]" if contact else "") + (", [5 B]" if p.entered else "")
    events.insert(0, Event(verb, side, section, what,
                           inputs={"units": [m.id for m in p.movers]},
                           outcome={"distance": p.used, "allowance": rnd(allowance), "to": tos,
                                    "contact": contact, "entered": st.last_action["entered"],
                                    "through": list(p.through)}))
    return events


# == reading an order ==============================================================================

def split_order(words: list[str]) -> tuple[list[str], dict]:
    """The step words of an order and its flags (forced, triple)."""
    flags = {"forced": False, "triple": False}
    steps = []
    for w in words:
        lw = w.lower()
        if lw in flags:
            flags[lw] = True
        else:
            steps.append(lw)
    return steps, flags


def read_steps(words: list[str]) -> list:
    if not words:
        raise CannotParse("usage: " + USAGE)
    try:
        return tmoves.parse_steps(words)
    except ValueError as e:
        raise CannotParse(f"{e}; usage: {USAGE}") from None


def movers_of(sc, st, side: str, word: str) -> list:
    ids = [w for w in word.replace(",", "+").split("+") if w]
    if not ids:
        raise CannotParse("usage: " + USAGE)
    units = []
    for w in ids:
        u = rules.unit_of(sc, st, side, w)
        if u in units:
            raise Illegal(f"{named(sc, u.id)} is named twice in the group", "LdN [4 B]")
        units.append(u)
    return units


def toward_own_edge(sc, st, side: str, steps, movers) -> bool:
    """[11 A] a demoralised army's move straight toward its own table edge: every advance within
    45 degrees of straight toward the home edge, none backward (HERALD D70)."""
    if not st.armies[side].demoralised:
        return False
    home = "south"
    try:
        home = sc.armies[side].home_edge or home
    except Exception:
        home = "south" if rules.letter_of_side(st, side) == "A" else "north"
    target = {"south": 180.0, "north": 0.0, "east": 90.0, "west": 270.0}.get(home, 180.0)
    facing = movers[0].facing
    for s in steps:
        if s.kind == "wheel":
            facing += s.amount if s.direction == "right" else -s.amount
        if s.kind == "about":
            facing += 180.0
        if s.kind == "advance":
            bearing = facing if s.amount >= 0 else facing + 180.0
            if abs(angle_between(target, bearing)) > 45.0:
                return False
    return any(s.kind == "advance" for s in steps)


# == the order, whole ==============================================================================

@dataclass
class Order:
    """A move order as planned: who, the motion, the allowance, the dice rolled, the cost."""
    side: str
    movers: list
    steps: list
    mode: str
    forced: bool = False
    triple: bool = False
    about: bool = False
    allowance: float = 0.0
    cut: bool = False            # dice cut the allowance: the move goes as far as it allows
    rotation: float = 0.0
    dice: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    contact_refused: str = ""


def motion_of(order: Order) -> Motion:
    movers = order.movers
    if order.mode == "column":
        movers = column_order(movers) or movers
        order.movers = movers
    starts = [pose_of(m) for m in movers]
    fps = [fp_of(m) for m in movers]
    radius = fps[0].width if order.mode != "line" else sum(f.width for f in fps)
    return Motion(order.mode, starts, fps, list(order.steps), radius)


def prepare(sc, st, side: str, movers: list, steps: list, stream: DiceStream, *, forced: bool = False,
            triple: bool = False, about: bool = False, ground: Ground | None = None) -> Order:
    """Check who moves and how far they may go [4], [5], [6], [8 E], [12 A]; roll the terrain and
    disengagement dice [5 B], [8 E]."""
    ground = ground or ground_of(sc)
    for u in movers:
        need_mobile(sc, st, u)
    mode = "single"
    if len(movers) > 1:
        if forced or triple:
            raise Illegal("a forced march is for a single unit, never a group", "LdN [4 D]")
        mode, why = group_problem(sc, st, side, movers)
        if why:
            raise Illegal(why[:why.rfind(" (")], "LdN [4 B]")
        if mode == "column" and any(s.kind == "advance" and s.amount < 0 for s in steps):
            raise Illegal("a column moves forward, its bases following the head", "LdN [4 B], HERALD D69")
    if triple:
        army = st.armies[side]
        if army.surprise_march <= 0:
            raise Illegal("no triple speed: only the Surprise March event lets single units triple "
                          "their speed", "LdN [4 D], [15] 3")
    for s in steps:
        if s.kind == "pivot" and any(arm_of(m) != "artillery" for m in movers):
            raise Illegal("only guns pivot on the spot; units wheel about a front corner",
                          "LdN [5 A], [6 C], HERALD D4")
        if s.kind == "about" and (s is not steps[0]):
            raise Illegal("the about-face is a move of its own: `about <unit>` (then, for light horse, "
                          "dragoons and musketeers, a half move)", "LdN [5 D]")
    if any(arm_of(m) == "artillery" for m in movers) and any(s.kind == "wheel" for s in steps):
        raise Illegal("guns turn on the spot: pivot up to 45 degrees, then advance", "LdN [6 C], HERALD D61")
    order = Order(side, movers, steps, mode, forced=forced, triple=triple, about=about)
    order.rotation = check_rotation(sc, movers, steps)
    # who is in contact: only cavalry touching nothing but infantry disengages [8 E]
    disengage = []
    for u in movers:
        foes = enemies_touching(st, u)
        if not foes:
            continue
        if arm_of(u) == "cavalry" and all(arm_of(f) == "infantry" for f in foes):
            disengage.append(u)
            continue
        raise Illegal(f"{named(sc, u.id)} is in contact with {named(sc, foes[0].id)}: only cavalry "
                      "in contact with infantry may disengage", "LdN [8 A], [8 E], HERALD D66")
    factor = 3 if triple else 2 if forced else 1
    allow = None
    for u in movers:
        cm, notes = base_allowance(st, u, factor)
        if about:
            if troop_of(u).about_face != "half_move":
                cm = 0.0
                notes.append("about-face: it stays where it is (LdN [5 D])")
            else:
                cm /= 2.0
                notes.append("about-face: half a move (LdN [5 D])")
        if ground.on_road(u.x, u.y) and not about:
            cm *= tables.ROAD_FACTOR
            notes.append("on a road: double move if it ends on it (LdN [5 B])")
        off, dice, why = terrain_dice(sc, st, u, stream, ground, side)
        if dice:
            cm -= off
            order.dice += dice
            notes.append(f"{named(sc, u.id)} {why}")
            order.cut = True
        if u in disengage:
            total, rolls = checks.roll_2d6(stream, f"{named(sc, u.id)} disengaging: 2d6 off its move")
            cm -= total
            order.dice += rolls
            notes.append(f"{named(sc, u.id)} disengages: 2d6 = {total} cm off the move (LdN [8 E])")
            order.cut = True
        cm = max(0.0, cm)
        allow = cm if allow is None else min(allow, cm)
        for n in notes:
            if n not in order.notes:
                order.notes.append(n)
    order.allowance = rnd(allow or 0.0)
    refusals = [contact_refusal(sc, u, about=about) for u in movers]
    order.contact_refused = next((r for r in refusals if r), "")
    return order


def execute(sc, st, side: str, order: Order, stream: DiceStream, *, verb: str = "move",
            evade: dict | None = None, paid: bool = False) -> list[Event]:
    """Plan the order's path, settle any evasion [5 D], pay [4], move [5]."""
    ground = ground_of(sc)
    motion = check_allowance(sc, st, order, motion_of(order), ground)
    evade = dict(evade or {})
    excluded: set[str] = {k for k, v in evade.items() if v}
    p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused, ground=ground,
             exclude=excluded)
    # evasion: the contacted light horse may fall back [5 D]
    while p.contact and p.contact["what"] == "unit" and p.contact["target"] not in evade \
            and may_evade(sc, st, order.movers, p.contact["target"]):
        tid = p.contact["target"]
        owner = st.units[tid].side
        pol = evade_policy(st, owner)
        if pol == "ask":
            return ask_evasion(sc, st, side, order, tid, verb, paid)
        evade[tid] = pol == "auto"
        if evade[tid]:
            excluded.add(tid)
            p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused,
                     ground=ground, exclude=excluded)
    road_check(sc, order, p, ground)
    events: list[Event] = []
    if not paid:
        events += pay(sc, st, side, order, p)
    gaps = {}
    for tid in sorted(k for k, v in evade.items() if v):
        t = st.units[tid]
        gaps[tid] = min(poly_of(t).distance(base_polygon(s, f)) for s, f in zip(motion.starts, motion.fps))
    evasions = {}
    for tid in sorted(gaps):
        mv = evasion(sc, st, side, p, tid, gaps[tid], ground)
        if mv is None:
            # the way back is blocked: no evasion, the move meets it
            events.append(Event("evade", st.units[tid].side, "LdN [5 D]",
                                f"{named(sc, tid)} cannot fall back (its way is blocked): it stands"))
            excluded.discard(tid)
            evade[tid] = False
            p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused,
                     ground=ground, exclude=excluded)
        else:
            evasions[tid] = mv
    if order.triple:
        st.armies[side].surprise_march -= 1
    events += apply_plan(sc, st, side, p, rotation=order.rotation, allowance=order.allowance, verb=verb,
                         extra={"notes": list(order.notes)})
    head = next(e for e in events if e.kind == verb)
    head.dice = list(order.dice)
    head.modifiers = []
    if order.notes:
        head.narrative += " [" + "; ".join(order.notes) + "]"
    for tid in sorted(evasions):
        events += apply_evasion(sc, st, tid, evasions[tid])
    if order.about:
        events += about_effects(sc, st, order)
    return events


def pay(sc, st, side: str, order: Order, p: Plan) -> list[Event]:
    """[4 C-D], [11 A]: the Cpts of the move."""
    toward = toward_own_edge(sc, st, side, order.steps, order.movers) and not p.contact
    cost, reason = command.move_cost(sc, st, side, [m.id for m in order.movers],
                                     forced=order.forced or order.triple, toward_own_edge=toward)
    what = ("the about-face of " if order.about else "the move of ") + " + ".join(named(sc, m.id) for m in order.movers)
    ev = command.spend(st, side, cost, what, sc=sc, unit_ids=[m.id for m in order.movers])
    ev.narrative += f" ({reason})"
    return [ev]


# == evasion asked of the defender [5 D] ===========================================================

def ask_evasion(sc, st, side: str, order: Order, target: str, verb: str, paid: bool) -> list[Event]:
    """Stop for the evader's owner: `react evade|stand` [5 D]. The order is kept whole (its dice
    rolled, its allowance fixed) and paid now; the answer finishes it."""
    events: list[Event] = []
    if not paid:
        ground = ground_of(sc)
        motion = check_allowance(sc, st, order, motion_of(order), ground)
        p = plan(sc, st, side, order.movers, motion, contact_refused=order.contact_refused, ground=ground)
        events += pay(sc, st, side, order, p)
    owner = st.units[target].side
    st.pending = {
        "kind": "evade", "side": owner, "options": ["evade", "stand"], "default": "evade",
        "section": "LdN [5 D]",
        "prompt": (f"{named(sc, order.movers[0].id)} advances on {named(sc, target)}: evade (fall back, "
                   "keeping the distance) or stand"),
        "unit": target,
        "order": {"side": side, "movers": [m.id for m in order.movers], "verb": verb,
                  "steps": [[s.kind, s.amount, s.direction] for s in order.steps], "mode": order.mode,
                  "forced": order.forced, "triple": order.triple, "about": order.about,
                  "allowance": order.allowance, "cut": order.cut, "rotation": order.rotation,
                  "notes": list(order.notes), "contact_refused": order.contact_refused,
                  "evade": {}},
    }
    return events


def resume_evasion(sc, st, side: str, answer: str, more: list, stream: DiceStream) -> list[Event]:
    """The evader's owner answers [5 D]: the move is finished as planned."""
    p = st.pending
    o = p["order"]
    evade = dict(o.get("evade") or {})
    evade[p["unit"]] = answer == "evade"
    st.pending = None
    order = Order(o["side"], [st.units[i] for i in o["movers"]],
                  [tmoves.Step(k, a, d) for k, a, d in o["steps"]], o["mode"], forced=o["forced"],
                  triple=o["triple"], about=o["about"], allowance=o["allowance"], cut=o["cut"],
                  rotation=o["rotation"], notes=list(o["notes"]), contact_refused=o["contact_refused"])
    events = [Event("evade_answer", side, "LdN [5 D]",
                    f"{side.title()}: {named(sc, p['unit'])} {'evades' if evade[p['unit']] else 'stands'}")]
    more_events = execute(sc, st, o["side"], order, stream, verb=o["verb"], evade=evade, paid=True)
    if st.pending and st.pending.get("kind") == "evade":
        st.pending["order"]["evade"] = evade
    return events + more_events


# == the verbs =====================================================================================

def do_move(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`move <unit>[+<unit>...] <steps> [forced|triple]` [4], [5]."""
    rules.need_card(st, side, ("move",))
    if not cmd.args:
        raise CannotParse("usage: " + USAGE)
    movers = movers_of(sc, st, side, cmd.args[0])
    words, flags = split_order(list(cmd.args[1:]))
    steps = read_steps(words)
    if len(movers) == 1 and arm_of(movers[0]) == "artillery" and all(s.kind in ("pivot", "about") for s in steps):
        from engine.lion.movement import artillery
        return artillery.turn_gun(sc, st, side, movers[0], steps, stream)
    about = bool(steps) and steps[0].kind == "about"
    if about and len(movers) > 1:
        raise Illegal("an about-face is a single unit's move", "LdN [5 D]")
    if any(arm_of(m) == "artillery" for m in movers):
        from engine.lion.movement import artillery
        artillery.need_gun_move(sc, st, movers, steps)
    if about:
        steps = about_steps(sc, movers[0], steps)
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    ground = ground_of(sc)
    order = prepare(sc, st, side, movers, steps, stream, forced=flags["forced"], triple=flags["triple"],
                    about=about, ground=ground)
    return execute(sc, st, side, order, stream, verb="move")


def do_about(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`about <unit> [advance <cm>]` [5 D], [6 C]: 1 Cpt (as any move), the unit's move."""
    rules.need_card(st, side, ("move",))
    if not cmd.args:
        raise CannotParse("usage: about <unit> [advance <cm>]")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    words = ["about"] + [w for w in cmd.args[1:]]
    steps = read_steps(words)
    if arm_of(u) == "artillery":
        from engine.lion.movement import artillery
        return artillery.turn_gun(sc, st, side, u, steps, stream)
    steps = about_steps(sc, u, steps)
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    order = prepare(sc, st, side, [u], steps, stream, about=True)
    return execute(sc, st, side, order, stream, verb="about")


def charge_steps(sc, st, u, target, reach: float) -> tuple[list, float]:
    """[5 A], [8 A] the manoeuvre of a charge: the wheel (within what is left of the turn's 45
    degrees) that points the unit's front at the nearest point of the target, then an advance
    long enough to meet it (`reach` cm at most). Returns (steps, the wheel's degrees)."""
    left = tables.MAX_TURN - (u.turned or 0.0)
    pose, fp = pose_of(u), fp_of(u)
    tpoly = poly_of(target)
    total_turn, direction = 0.0, "right"
    for _ in range(4):
        cur = tmoves.walk(pose, fp, [tmoves.Step("wheel", total_turn, direction)]).end if total_turn else pose
        near = tpoly.exterior.interpolate(tpoly.exterior.project(Point(cur.x, cur.y)))
        want = angle_between(cur.facing, bearing_to(cur.x, cur.y, near.x, near.y))
        signed = (total_turn if direction == "right" else -total_turn) + want
        direction = "right" if signed >= 0 else "left"
        total_turn = abs(signed)
        if abs(want) < 0.05:
            break
    total_turn = rnd(min(total_turn, left))
    steps = []
    if total_turn >= 0.01:
        steps.append(tmoves.Step("wheel", total_turn, direction))
    steps.append(tmoves.Step("advance", rnd(reach), ""))
    return steps, total_turn


def do_charge(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`charge <unit> <enemy> [forced]` [5], [8 A]: the manoeuvre computed for the player."""
    rules.need_card(st, side, ("move",))
    if len(cmd.args) < 2:
        raise CannotParse("usage: charge <unit> <enemy> [forced]")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    target = rules.enemy_of(sc, st, side, cmd.args[1])
    words, flags = split_order(list(cmd.args[2:]))
    if words:
        raise CannotParse(f"usage: charge <unit> <enemy> [forced], not '{' '.join(words)}'")
    need_mobile(sc, st, u)
    why = contact_refusal(sc, u)
    if why:
        raise Illegal(f"{named(sc, u.id)} may not charge: {why[:why.rfind(' (')]}", why[why.rfind("(") + 1:-1])
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    ground = ground_of(sc)
    # how far the contact is, on a long straight line after the wheel
    probe_steps, turn = charge_steps(sc, st, u, target, 400.0)
    m = Motion("single", [pose_of(u)], [fp_of(u)], probe_steps, fp_of(u).width)
    tpoly = poly_of(target)
    tdisc = discs_of([tpoly])
    hit = first_event(lambda a, b: swept_touches(m, a, b, tpoly, tdisc), m.total)
    if hit is None:
        raise Illegal(f"{named(sc, target.id)} is not ahead of {named(sc, u.id)} even after a wheel of "
                      f"{fmt(turn)} degrees (at most 45 in a turn)", "LdN [5 A]")
    need = rnd(hit + CONTACT_TOL)      # the gap itself: the touch is found CONTACT_TOL short of it
    steps = truncate(probe_steps, need, fp_of(u).width)
    order = prepare(sc, st, side, [u], steps, stream, forced=flags["forced"], triple=flags["triple"],
                    ground=ground)
    total = sum(step_cost(s, fp_of(u).width) for s in steps)
    if total > order.allowance + FINE and not order.cut:
        raise Illegal(f"{named(sc, target.id)} is out of reach: the charge needs {fmt(total)} cm "
                      f"(a wheel of {fmt(turn)} degrees and the advance), at most {fmt(order.allowance)}",
                      "LdN [5], [Tabella riassuntiva]")
    events = execute(sc, st, side, order, stream, verb="charge")
    if st.pending is None:
        got = (st.last_action or {}).get("contact") or {}
        if got.get("target") != target.id and not any(e.kind == "evade" for e in events):
            events.append(Event("charge", side, "LdN [8 A]",
                                f"{named(sc, u.id)} did not reach {named(sc, target.id)}"
                                + (f": it stopped at {got.get('target')}" if got.get("target") else ""),
                                outcome={"reached": False}))
    return events


rules.register("move", do_move, USAGE)
rules.register("charge", do_charge, "charge <unit> <enemy> [forced]: wheel to face it and advance into "
                                    "contact (LdN [5], [8 A])")
rules.register("about", do_about, "about <unit> [advance <cm>]: about-face, 1 Cpt (LdN [5 D], [6 C])")
rules.register_reaction("evade", resume_evasion)
