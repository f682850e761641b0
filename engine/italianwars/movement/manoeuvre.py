"""Step 2c, manoeuvres (IW Azioni 2c, IW Formazioni speciali, IW Falange; IW-H 3; HERALD D71,
D74, D75).

    manoeuvre <company> <steps>
      wheel N left|right    pivot on a front corner: the other corner's arc (90 degrees 1.57 UDM)
      turn left|right       a facing change of 90 degrees in place: foot, guns, skirmishers 1 UDM,
      about                 horse 2 (completion_movement.FACING_COST); about-face the same
      pivot N left|right    unlimbered guns: up to 45 degrees instead of moving (IW-H 11.2)
      igel | break          pike companies form or leave an Igel with their whole move (IW-H 3.5)
      phalanx <company...>  shock companies side by side in contact form a phalanx, 2 UDM each
      break                 a phalanx's companies leave it, 2 UDM each (IW-H 3.4)

Only where the battle's order allows (tables.ORDERS[order].manoeuvre: Attack and Assault none,
Hold, Withdraw and Hesitate only to face the enemy, the others any); a company lacking the move to
finish finishes and is disordered (IW-H 3.6). What it spends is what 2d has left.
"""
from __future__ import annotations

from shapely.ops import unary_union

from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import CONTACT_TOL, angle_between, bearing_to, centre, rnd

from engine.italianwars import completion_movement, rules, tables
from engine.italianwars.movement import common as cm
from engine.italianwars.movement.move import busy, members, nearest_enemy
from engine.italianwars.state import IWState

S = cm.S_MANOEUVRE
S_FORM = "IW Formazioni speciali"
FACE_ARC = 45.0          # the enemy's centre within 45 degrees of the front: faced (HERALD D74)


def permission(st: IWState, c) -> str:
    order = cm.order_of(st, c)
    if order == "retreat":
        return "none"
    o = tables.ORDERS.get(order)
    return (o.manoeuvre if o is not None else "") or "any"


def why_not(sc, st: IWState, c) -> str:
    name = rules.named(sc, c.id)
    why = busy(sc, st, c, "its only move is the charge (one wheel, IW-H 4.2; HERALD D74)", "")
    if why:
        return why
    p = permission(st, c)
    if p in ("none", "steer"):
        order = cm.order_of(st, c)
        return f"{order.title()}: no manoeuvres and no formation changes (IW Definizione degli ordini di gioco)"
    if cm.left(sc, st, c) <= 0:
        return f"{name} has spent its move this turn"
    return ""


def faces_enemy(sc, st: IWState, c) -> bool:
    e = nearest_enemy(sc, st, c)
    if e is None:
        return False
    ex, ey = centre(cm.pose(e), cm.fp(sc, st, e))
    return abs(angle_between(c.facing, bearing_to(c.x, c.y, ex, ey))) <= FACE_ARC + 1e-6


def parse(words: list[str]) -> list[tuple]:
    toks = [t.lower() for w in words for t in str(w).split()]
    out, i = [], 0
    while i < len(toks):
        w = toks[i]
        if w in ("wheel", "pivot"):
            pair = toks[i + 1:i + 3]
            amount = next((float(t) for t in pair if t.replace(".", "", 1).isdigit()), None)
            direction = next((t for t in pair if t in ("left", "right")), None)
            if amount is None or direction is None:
                raise CannotParse(f"'{w}' needs an angle and left|right, e.g. '{w} 30 left'")
            out.append((w, amount, direction))
            i += 3
        elif w == "turn":
            if i + 1 >= len(toks) or toks[i + 1] not in ("left", "right"):
                raise CannotParse("'turn' needs left or right: a facing change of 90 degrees")
            out.append(("turn", 90.0, toks[i + 1]))
            i += 2
        elif w in ("about", "igel", "break"):
            if w == "break" and i + 1 < len(toks) and toks[i + 1] in ("igel", "phalanx"):
                i += 1
            out.append((w, 0.0, ""))
            i += 1
        elif w == "phalanx":
            out.append(("phalanx", 0.0, " ".join(toks[i + 1:])))
            break
        else:
            raise CannotParse(f"unknown manoeuvre {w!r}: wheel N left|right, turn left|right, about, pivot N "
                              "left|right (guns), igel, phalanx <companies>, break")
    if not out:
        raise CannotParse("usage: manoeuvre <company> <steps>, e.g. manoeuvre c1 wheel 45 left")
    return out


def geometry_check(sc, st: IWState, movers, steps) -> list:
    """Walk the turns; refuse touching an enemy, ending on a friend or off the table."""
    walks = tmoves.group_walk([(cm.pose(m), cm.fp(sc, st, m)) for m in movers], steps)
    ids = {m.id for m in movers}
    swept = unary_union([w.swept for w in walks])
    ends = [cm.poly(sc, st, m, w.end) for m, w in zip(movers, walks)]
    for e in cm.enemies(st, movers[0]):
        ep = cm.poly(sc, st, e)
        if swept.distance(ep) <= CONTACT_TOL:
            cm.refuse(f"the manoeuvre would touch {rules.named(sc, e.id)}: contact only by a charge", S)
    for o in cm.friends(st, movers[0]):
        if o.id not in ids and any(cm.overlaps(end, cm.poly(sc, st, o)) for end in ends):
            cm.refuse(f"the manoeuvre would end on {rules.named(sc, o.id)}", S)
    if not all(cm.on_table(sc, end) for end in ends):
        cm.refuse("the manoeuvre would take the company off the table", S)
    return walks


def do_manoeuvre(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`manoeuvre <company> <steps>` in step 2c (IW Azioni 2c; IW-H 3)."""
    rules.need_not_over(st)
    act = st.activation or {}
    if st.phase != "actions" or act.get("step") != "manoeuvre" or act.get("side") != side:
        now = f"step {act.get('step')} of {act.get('battle')}" if act.get("battle") else rules.describe_place(st.phase)
        raise Illegal(f"Manoeuvres are made in step 2c of one of your battles' activation: now {now}", S)
    if len(cmd.args) < 2:
        raise CannotParse("usage: manoeuvre <company> <steps>, e.g. manoeuvre c1 turn left")
    c = rules.company_of(sc, st, side, cmd.args[0])
    if c.battle != act["battle"]:
        raise Illegal(f"{rules.named(sc, c.id)} is not in the acting battle ({act['battle']})", S)
    why = why_not(sc, st, c)
    if why:
        raise Illegal(why, "IW Definizione degli ordini di gioco" if "no manoeuvres" in why else S)
    items = parse(list(cmd.args[1:]))
    kinds = {k for k, _, _ in items}
    perm = permission(st, c)
    if "phalanx" in kinds or ("break" in kinds and c.formation.startswith("phalanx:")):
        if len(items) != 1:
            raise Illegal("forming or leaving a phalanx is a manoeuvre of its own", S)
        return phalanx(sc, st, side, c, items[0], perm)
    if kinds & {"igel", "break"}:
        if len(items) != 1:
            raise Illegal("forming or leaving an Igel takes the whole move (IW-H 3.5)", S)
        return igel(sc, st, side, c, items[0][0])
    if c.formation == "igel":
        raise Illegal(f"{rules.named(sc, c.id)} is in an Igel: it faces every way already; `break` it first", S_FORM)
    group = members(st, c)
    if len(group) > 1 and kinds - {"wheel"}:
        raise Illegal("a phalanx only wheels as one block; break it up to turn in place (HERALD D74)", "IW Falange")
    gun = rules.arm_of(sc, st, c.id) == "artillery"
    if "pivot" in kinds:
        if not gun or c.limbered or len(items) != 1 or items[0][1] > 45.0 + 1e-9:
            raise Illegal("only unlimbered guns pivot, up to 45 degrees, instead of moving (IW-H 11.2)", cm.h("11.2"))
        if cm.used(st, c) > 0:
            raise Illegal(f"{rules.named(sc, c.id)} has used part of its move: a gun pivots instead of moving", cm.h("11.2"))
    elif gun and not c.limbered:
        raise Illegal(f"{rules.named(sc, c.id)}'s guns are unlimbered: they only pivot up to 45 degrees (IW-H 11.2)",
                      cm.h("11.2"))
    steps = []
    for k, amount, direction in items:
        if k == "wheel":
            steps.append(tmoves.Step("wheel", amount, direction))
        elif k in ("turn", "pivot"):
            steps.append(tmoves.Step("pivot", amount, direction))
        else:
            steps.append(tmoves.Step("about", 180.0))
    walks = geometry_check(sc, st, group, steps)
    if perm == "face":
        saved = [(m.x, m.y, m.facing) for m in group]
        for m, w in zip(group, walks):
            cm.set_pose(m, w.end)
        ok = faces_enemy(sc, st, c)
        for m, s in zip(group, saved):
            m.x, m.y, m.facing = s
        if not ok:
            raise Illegal(f"{cm.order_of(st, c).title()}: manoeuvres only to face the enemy; after this one the nearest "
                          f"enemy would not be within {FACE_ARC:g} degrees of {rules.named(sc, c.id)}'s front (HERALD D74)",
                          "IW Definizione degli ordini di gioco")
    # the price: wheels over the ground (IW-H 3.1, 2.3), facing changes by kind (IW-H 3.2)
    wheel_steps = [s for s in steps if s.kind == "wheel"]
    cost = 0.0
    if wheel_steps:
        pr = cm.price(sc, st, group, [cm.pose(m) for m in group], wheel_steps)
        if pr.refusal:
            raise Illegal(pr.refusal, cm.S_TERRAIN)
        cost += pr.cost
    facing = completion_movement.FACING_COST[cm.kind_of(sc, st, c)]
    cost += facing * sum(1 for s in steps if s.kind == "about" or (s.kind == "pivot" and not gun))
    if gun and "pivot" in kinds:
        cost = cm.rate(sc, st, c)
    cost = rnd(cost)
    left = min(cm.left(sc, st, m) for m in group)
    short = cost > left + 1e-6
    for m, w in zip(group, walks):
        cm.set_pose(m, w.end)
        cm.spend(st, m, min(cost, left) if not short else left)
        if short:
            m.disordered = True
    what = ", ".join(f"{k} {cm.fmt(a)} {d}".strip() if k in ("wheel", "pivot") else f"{k} {d}".strip()
                     for k, a, d in items)
    text = (f"{rules.named(sc, c.id)} manoeuvres: {what} ({cm.fmt(cost)} UDM of {cm.fmt(left)} left), now facing "
            f"{cm.fmt(c.facing)}")
    if short:
        text += f"; it lacked {cm.fmt(cost - left)} UDM: it finishes and is disordered ({cm.h('3.6')})"
    st.last_action = {"kind": "manoeuvre", "company": c.id, "companies": [m.id for m in group],
                      "path": [list(p) for p in walks[0].path],
                      "from": [[w.start.x, w.start.y, w.start.facing] for w in walks], "distance": cost}
    return [Event("manoeuvre", side, S, text,
                  outcome={"company": c.id, "companies": [m.id for m in group], "cost": cost, "left": rnd(max(0.0, left - cost)),
                           "disordered": short, "x": c.x, "y": c.y, "facing": c.facing})]


def igel(sc, st: IWState, side: str, c, kind: str) -> list[Event]:
    """IW-H 3.5, IW Formazioni speciali: pike companies form or leave an Igel with their whole move."""
    name = rules.named(sc, c.id)
    forming = kind == "igel"
    if forming and c.formation == "igel":
        raise Illegal(f"{name} is already in an Igel", S_FORM)
    if not forming and c.formation != "igel":
        raise Illegal(f"{name} is in no Igel or phalanx to break", S_FORM)
    if forming and str(rules.attr(sc, st, c.id, "melee_weapon", "") or "").lower() != "pike":
        raise Illegal(f"only pike companies form an Igel; {name} is not armed with pikes (IW Formazioni speciali)", S_FORM)
    if forming and c.formation:
        raise Illegal(f"{name} is in a phalanx: break it first", S_FORM)
    if cm.used(st, c) > 0:
        raise Illegal(f"{name} has used {cm.fmt(cm.used(st, c))} UDM of its move: an Igel takes the whole move "
                      f"({cm.h('3.5')})", S_FORM)
    c.formation = "igel" if forming else ""
    cm.spend(st, c, cm.rate(sc, st, c))
    c.moved = True
    return [Event("formation", side, cm.h("3.5"),
                  f"{name} {'forms an Igel: it does not move, and has no flank or rear' if forming else 'leaves its Igel'} "
                  "(its whole move)", outcome={"company": c.id, "formation": c.formation})]


def phalanx(sc, st: IWState, side: str, c, item, perm: str) -> list[Event]:
    """IW Falange, IW-H 3.4: shock companies (not Militia or Rabble: HERALD D12) side by side in
    contact, facing one way, form a phalanx at 2 UDM each; `break` leaves it, 2 UDM each."""
    if perm != "any":
        raise Illegal(f"{cm.order_of(st, c).title()}: manoeuvres only to face the enemy; no formation changes "
                      "(IW Definizione degli ordini di gioco)", "IW Definizione degli ordini di gioco")
    cost = float(completion_movement.PHALANX_COST)
    kind, _, rest = item
    if kind == "break":
        group = members(st, c)
        for m in group:
            if cm.left(sc, st, m) < cost - 1e-6:
                raise Illegal(f"{rules.named(sc, m.id)} has {cm.fmt(cm.left(sc, st, m))} UDM left: leaving a phalanx costs "
                              f"{cost:g} ({cm.h('3.4')}; or break it up freely in the command phase)", "IW Falange")
        for m in group:
            m.formation = ""
            cm.spend(st, m, cost)
        return [Event("formation", side, cm.h("3.4"),
                      f"The phalanx {'+'.join(m.id for m in group)} breaks up ({cost:g} UDM each)",
                      outcome={"companies": [m.id for m in group], "formation": ""})]
    words = rest.replace("+", " ").replace(",", " ").split()
    if not words:
        raise CannotParse("usage: manoeuvre <company> phalanx <company...>")
    group = [c] + [rules.company_of(sc, st, side, w) for w in words]
    if len({m.id for m in group}) != len(group):
        raise Illegal("a company is named twice", "IW Falange")
    for m in group:
        name = rules.named(sc, m.id)
        if m.battle != c.battle:
            raise Illegal(f"{name} is not in the acting battle", "IW Falange")
        why = why_not(sc, st, m)
        if why:
            raise Illegal(why, S)
        if rules.role_of(sc, st, m.id) != "shock" or rules.arm_of(sc, st, m.id) != "infantry":
            raise Illegal(f"{name} is not shock foot: a phalanx is of shock troops (IW Falange)", "IW Falange")
        if rules.morale_of(sc, st, m.id) in tables.PHALANX_EXCLUDED:
            raise Illegal(f"{name} is {rules.morale_of(sc, st, m.id)}: no phalanx of Militia (Reclute) or Rabble "
                          "(IW Falange, HERALD D12)", "IW Falange")
        if m.formation:
            raise Illegal(f"{name} is already in a formation ({m.formation})", "IW Falange")
        if m.disordered:
            raise Illegal(f"{name} is disordered: a disordered phalanx breaks up (IW Falange)", "IW Falange")
        if cm.left(sc, st, m) < cost - 1e-6:
            raise Illegal(f"{name} has {cm.fmt(cm.left(sc, st, m))} UDM left: forming a phalanx costs {cost:g}, and one "
                          f"lacking it would be disordered, which breaks a phalanx (IW-H 3.4, 3.6; HERALD D74)", "IW Falange")
    gap = tmoves.group_front([(m.id, cm.pose(m), cm.fp(sc, st, m)) for m in group], tol=CONTACT_TOL, unit="UDM")
    if gap:
        raise Illegal(f"the companies must stand side by side in contact, facing one way: {gap} (IW Falange)", "IW Falange")
    tag = f"phalanx:{c.id}"
    for m in group:
        m.formation = tag
        cm.spend(st, m, cost)
    return [Event("formation", side, cm.h("3.4"),
                  f"{' + '.join(rules.named(sc, m.id) for m in group)} form a phalanx ({cost:g} UDM each): it fights as "
                  "larger than its enemy and moves as one block", outcome={"companies": [m.id for m in group], "formation": tag})]


def has_manoeuvres(sc, st: IWState, side: str) -> bool:
    """Step 2c's check: a company of the acting battle may manoeuvre (under Hold, Withdraw and
    Hesitate only one with an enemy in sight not yet faced)."""
    act = st.activation or {}
    bid = act.get("battle")
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.battle != bid or c.side != side or why_not(sc, st, c):
            continue
        if permission(st, c) == "face" and (nearest_enemy(sc, st, c) is None or faces_enemy(sc, st, c)):
            continue
        return True
    return False


rules.register("manoeuvre", do_manoeuvre,
               "manoeuvre <company> <steps>: wheel N left|right, turn left|right, about, igel, phalanx <..>, break (2c)")
rules.register_step("manoeuvre", check=has_manoeuvres)
