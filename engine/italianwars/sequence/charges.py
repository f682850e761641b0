"""Charge declarations (IW Dichiarazioni di carica; IW Azioni 2b; IW Schermagliatori; the orders'
permissions in IW Definizione degli ordini di gioco).

"Le compagnie che si trovano entro una mossa dal nemico possono (alcune devono) dichiarare carica
sul nemico. Gli artiglieri non possono dichiarare cariche. Compagnie di schermagliatori possono
dichiarare carica solo su altre compagnie di schermagliatori o sul fianco/retro di altre truppe"
(and the enemy camp). "Il bersaglio della carica dev'essere visibile alla compagnia che dichiara
la carica (cioè dev'essere visibile l'intero lato dell'unità più vicina a chi carica). E'
possibile dichiarare la carica su una sola unità nemica. Le cariche vengono considerate sul
fianco/retro solo se l'unità che carica è, al momento della dichiarazione di carica,
completamente dietro la linea immaginaria che prolunga il fronte dell'unità nemica. Una sola
Compagnia può caricare un'unità nemica per ciascuno dei suoi lati."

Orders: Assault, Attack (shock troops: "dichiareranno la carica sul nemico non appena
possibile") and Occupy must charge; Hold, Delay, Hesitate (and March, HERALD D58) may not (Delay
may counter-charge, a response of 2f); Withdraw: mounted companies only, at any distance.

A declaration is kept in `Company.charge = {"target", "face", "flank", "distance", "turn"}`;
the movement module stops the charger 1 UDM short in 2d and the contact module closes it in 2g.
"Within one move": the company's move allowance from completion.py (IW-H 2: `move_class`,
`move_allowance`), from the ground it stands on (HERALD D59).
"""
from __future__ import annotations

from shapely.geometry import LineString

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table.geometry import forward, rightward

from engine.italianwars import checks, rules
from engine.italianwars.state import IWState

SECTION = "IW Dichiarazioni di carica"
S_ORDERS = "IW Definizione degli ordini di gioco"
MUST_CHARGE = ("assault", "attack", "occupy")
MAY_CHARGE = ("assault", "attack", "occupy", "withdraw")
MOVE_PLACEHOLDER = {"cavalry": 8.0, "infantry": 4.0, "skirmishers": 5.0, "artillery": 0.0}   # HERALD D59
EPS = 1e-6


def move_allowance(sc, st: IWState, c) -> float:
    """How far the company moves (UDM) for "entro una mossa": completion.py's allowance (IW-H 2)
    for its movement class, the ground it stands on (the worst category under it), the weather
    and its battle's order (HERALD D59: measured straight, the ground it stands on counted for the
    whole way); the placeholder MOVE_PLACEHOLDER while the completion lacks it."""
    try:
        from engine.italianwars import completion_movement
        cls = completion_movement.move_class(rules.arm_of(sc, st, c.id), str(rules.attr(sc, st, c.id, "armour", "protected") or "protected"),
                                    rules.role_of(sc, st, c.id), str(rules.attr(sc, st, c.id, "missile_weapon", "") or ""))
        cats = checks.categories_at(sc, checks.polygon(sc, st, c))
        terrain = next((t for t in ("impassable", "closed", "broken") if t in cats), "open")
        b = st.battles.get(c.battle)
        return float(completion_movement.move_allowance(cls, terrain=terrain, weather=st.weather or "good",
                                               order=b.order if b is not None else ""))
    except (ImportError, AttributeError, TypeError, KeyError):
        role = rules.role_of(sc, st, c.id)
        arm = rules.arm_of(sc, st, c.id)
        value = MOVE_PLACEHOLDER["skirmishers"] if role == "skirmishers" else MOVE_PLACEHOLDER[arm]
        return value / 2 if st.weather == "bad" else value


def camp_geometry(sc, st: IWState, side: str):
    """The side's camp (1 x 2 UDM) as a polygon, from the scenario or step 6, or None."""
    from engine.core.table.geometry import Footprint, Pose, base_polygon
    placed = (st.options.get("camps") or {}).get(side)
    if placed:
        return base_polygon(Pose(placed["x"], placed["y"], placed["facing"]), Footprint(2.0, 1.0))
    camps = getattr(sc, "camps", None) or {}
    camp = camps.get(side) if isinstance(camps, dict) else next((c for c in camps if getattr(c, "side", "") == side), None)
    if camp is None:
        return None
    g = getattr(camp, "geometry", None) or getattr(camp, "polygon", None)
    if g is not None:
        return g
    x, y = getattr(camp, "x", None), getattr(camp, "y", None)
    if x is None:
        return None
    return base_polygon(Pose(x, y, getattr(camp, "facing", 0.0)), Footprint(2.0, 1.0))


def relative_face(sc, st: IWState, charger, target) -> str:
    """Which side of `target` the charge falls on: "front" unless the charger is wholly behind
    the line prolonging the target's front; then "left" or "right" when it lies wholly beyond
    that flank's line, else "rear" (IW Dichiarazioni di carica; HERALD D64)."""
    fx, fy = forward(target.facing)
    rx, ry = rightward(target.facing)
    corners = list(checks.polygon(sc, st, charger).exterior.coords)
    ahead = [(px - target.x) * fx + (py - target.y) * fy for px, py in corners]
    if max(ahead) > -EPS:
        return "front"
    lateral = [(px - target.x) * rx + (py - target.y) * ry for px, py in corners]
    if min(lateral) >= 0.5 - EPS:
        return "right"
    if max(lateral) <= -0.5 + EPS:
        return "left"
    return "rear"


def face_segment(sc, st: IWState, target, face: str) -> LineString:
    from engine.core.table.geometry import edges
    return edges(checks.pose(target), checks.footprint(sc, st, target))[face]


def nearest_face(sc, st: IWState, charger, target) -> str:
    poly = checks.polygon(sc, st, charger)
    return min(("front", "left", "right", "rear"), key=lambda f: (round(face_segment(sc, st, target, f).distance(poly), 6),
                                                                  ("front", "left", "right", "rear").index(f)))


def side_wholly_visible(sc, st: IWState, charger, target) -> bool:
    """"dev'essere visibile l'intero lato dell'unità più vicina a chi carica": the whole nearest
    side of the target seen from the charger's front edge: within the visibility range, and lines
    from the charger's front to both ends and the middle of that side crossing no sight-blocking
    terrain and no other company (HERALD D60)."""
    from engine.italianwars.sequence.endturn import visibility
    if target.hidden and checks.distance_between(sc, st, charger, target) > 1.0:
        return False
    rng = visibility(st)
    if rng is not None and checks.distance_between(sc, st, charger, target) > rng:
        return False
    seg = face_segment(sc, st, target, nearest_face(sc, st, charger, target))
    (ax, ay), (bx, by) = seg.coords[0], seg.coords[-1]
    ends = [(ax, ay), ((ax + bx) / 2, (ay + by) / 2), (bx, by)]
    front = face_segment(sc, st, charger, "front")
    (cx, cy), (dx, dy) = front.coords[0], front.coords[-1]
    sources = [(cx, cy), ((cx + dx) / 2, (cy + dy) / 2), (dx, dy)]
    pc, pt = checks.polygon(sc, st, charger), checks.polygon(sc, st, target)
    hull = pc.union(pt).convex_hull          # every sight line lies in it: only what touches it blocks
    x0, y0, x1, y1 = hull.bounds
    blockers = []
    for f in checks.features(sc):
        g = getattr(f, "geometry", None)
        if g is None or g.area <= 0 or getattr(f, "kind", "") not in checks.SIGHT_BLOCKING:
            continue
        if not g.intersects(hull) or g.intersects(pc) or g.intersects(pt):
            continue
        blockers.append(g)
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.id not in (charger.id, target.id) and c.alive and c.status != "waiting" \
                and x0 - 3.5 <= c.x <= x1 + 3.5 and y0 - 3.5 <= c.y <= y1 + 3.5:
            poly = checks.polygon(sc, st, c)
            if poly.intersects(hull):
                blockers.append(poly.buffer(-EPS))
    for end in ends:
        seen = False
        for src in sources:
            line = LineString([src, end])
            if not any(line.intersects(g) and not line.touches(g) for g in blockers):
                seen = True
                break
        if not seen:
            return False
    return True


def claimed_faces(st: IWState, target_id: str, but: str = "") -> dict[str, str]:
    """The sides of a target already charged this turn: {face: charger}."""
    out = {}
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.id != but and c.charge.get("target") == target_id and c.charge.get("face"):
            out[c.charge["face"]] = c.id
    return out


def charge_refusal(sc, st: IWState, c, target_id: str, check_order: bool = True) -> tuple[str, dict]:
    """Why `c` may not declare a charge on `target_id` ("" and the declaration when it may)."""
    order = st.battles[c.battle].order if c.battle in st.battles else ""
    arm, role = rules.arm_of(sc, st, c.id), rules.role_of(sc, st, c.id)
    if arm == "artillery":
        return "artillery never declares a charge (Gli artiglieri non possono dichiarare cariche)", {}
    if c.status != "active" or c.evaded:
        return f"{rules.named(sc, c.id)} is {c.status if c.status != 'active' else 'an evader this turn'}: it cannot charge", {}
    if c.charge:
        return f"{rules.named(sc, c.id)} has already declared a charge on {c.charge['target']}: one target only", {}
    if check_order:
        if order not in MAY_CHARGE:
            why = {"hold": "Hold: no charges may be declared", "delay": "Delay: no charges (only counter-charges when charged)",
                   "hesitate": "Hesitate: the battle stays put", "march": "March: no charges (HERALD D58)",
                   "retreat": "Retreat: no charges"}.get(order, f"{order or 'no order'}: no charges")
            return why, {}
        if order == "withdraw" and arm != "cavalry":
            return "Withdraw: only mounted troops may charge", {}
    camp_side = target_id[5:] if target_id.lower().startswith("camp-") else ""
    if camp_side:
        if camp_side == c.side or camp_side not in st.armies:
            return f"'{target_id}' is not an enemy camp", {}
        if st.armies[camp_side].camp_lost:
            return f"{camp_side.title()}'s camp is already lost", {}
        g = camp_geometry(sc, st, camp_side)
        if g is None:
            return f"{camp_side.title()} has no camp on the table", {}
        d = round(checks.polygon(sc, st, c).distance(g), 2)
        reach = move_allowance(sc, st, c)
        if d > reach + EPS and order != "withdraw":
            return f"the camp is {d:g} UDM away, beyond {rules.named(sc, c.id)}'s move of {reach:g} ({d - reach:g} too far)", {}
        return "", {"target": target_id, "face": "camp", "flank": False, "distance": d, "turn": st.turn}
    t = st.companies.get(target_id) or st.companies.get(target_id.lower())
    if t is None or not t.alive or t.side == c.side or t.status == "waiting" or (t.hidden and
                                                                                   checks.distance_between(sc, st, c, t) > 1.0):
        return f"'{target_id}' is not an enemy company in sight", {}
    face = relative_face(sc, st, c, t)
    flank = face != "front"
    if role == "skirmishers" and not flank and rules.role_of(sc, st, t.id) != "skirmishers":
        return ("skirmishers charge only skirmishers, the flank or rear of other troops, or the camp "
                f"(they are not wholly behind {rules.named(sc, t.id)}'s front line)"), {}
    d = checks.distance_between(sc, st, c, t)
    reach = move_allowance(sc, st, c)
    if d > reach + EPS and not (order == "withdraw" and arm == "cavalry"):
        return (f"{rules.named(sc, t.id)} is {d:g} UDM away, beyond {rules.named(sc, c.id)}'s move of {reach:g} "
                f"({round(d - reach, 2):g} too far)"), {}
    if not side_wholly_visible(sc, st, c, t):
        return f"{rules.named(sc, c.id)} does not see the whole nearest side of {rules.named(sc, t.id)}", {}
    taken = claimed_faces(st, t.id, c.id)
    if face in taken:
        return (f"{rules.named(sc, taken[face])} already charges {rules.named(sc, t.id)}'s {face}: "
                "one company a side"), {}
    return "", {"target": t.id, "face": face, "flank": flank, "distance": d, "turn": st.turn}


def legal_targets(sc, st: IWState, c, check_order: bool = True) -> list[str]:
    """The enemy companies (and camps) `c` may declare a charge on now."""
    out = []
    order = st.battles[c.battle].order if c.battle in st.battles else ""
    unbounded = order == "withdraw" and rules.arm_of(sc, st, c.id) == "cavalry"
    reach = None if unbounded else move_allowance(sc, st, c)
    for t in sorted(st.companies.values(), key=lambda x: x.id):
        if t.side != c.side and t.alive and t.status != "waiting":
            if reach is not None and checks.distance_between(sc, st, c, t) > reach + EPS:
                continue            # beyond its move: charge_refusal would say so, more slowly
            if not charge_refusal(sc, st, c, t.id, check_order)[0]:
                out.append(t.id)
    for side in sorted(st.armies):
        if side != c.side and not charge_refusal(sc, st, c, f"camp-{side}", check_order)[0]:
            out.append(f"camp-{side}")
    return out


def obliged_without_charge(sc, st: IWState, bid: str) -> list[tuple[str, str]]:
    """The companies of the battle whose order obliges them to charge (Assault, Attack: shock
    troops; Occupy: any, HERALD D58), that have not declared and could: [(company, a target)]."""
    b = st.battles.get(bid)
    if b is None or b.order not in MUST_CHARGE:
        return []
    out = []
    for c in sorted(st.companies.values(), key=lambda x: x.id):
        if c.battle != bid or c.charge or c.status != "active" or c.evaded:
            continue
        if b.order in ("assault", "attack") and rules.role_of(sc, st, c.id) != "shock":
            continue
        targets = legal_targets(sc, st, c)
        if targets:
            out.append((c.id, targets[0]))
    return out


def do_declare(sc, st: IWState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`declare <company> <target>` in step 2b of the company's battle's activation."""
    rules.need_not_over(st)
    act = st.activation or {}
    if st.phase != "actions" or act.get("step") != "declare" or act.get("side") != side:
        raise Illegal("charges are declared in step 2b of one of your battles' activation: now "
                      + (f"step {act.get('step')} of {act.get('battle')}" if act.get("battle") else rules.describe_place(st.phase)),
                      "IW Azioni 2b")
    if len(cmd.args) != 2:
        raise CannotParse("usage: declare <company> <target>")
    c = rules.company_of(sc, st, side, cmd.args[0])
    if c.battle != act["battle"]:
        raise Illegal(f"{rules.named(sc, c.id)} is not in the acting battle ({act['battle']})", "IW Azioni 2b")
    why, decl = charge_refusal(sc, st, c, cmd.args[1])
    if why:
        raise Illegal(why, SECTION)
    c.charge = decl
    where = {"front": "in front", "left": "in the left flank", "right": "in the right flank", "rear": "in the rear",
             "camp": ""}[decl["face"]]
    tname = f"{decl['target'][5:].title()}'s camp" if decl["face"] == "camp" else rules.named(sc, decl["target"])
    return [Event("charge_declared", side, SECTION,
                  f"{rules.named(sc, c.id)} declares a charge on {tname}{(' ' + where) if where else ''} "
                  f"({decl['distance']:g} UDM away)", outcome={"company": c.id, **decl})]


def has_declarations(sc, st: IWState, side: str) -> bool:
    """Step 2b's check: a company of the acting battle may declare a charge."""
    act = st.activation or {}
    bid = act.get("battle")
    if not bid:
        return False
    return any(legal_targets(sc, st, c) for c in sorted(st.companies.values(), key=lambda x: x.id)
               if c.battle == bid and c.status == "active" and not c.evaded and not c.charge)


rules.register("declare", do_declare, "declare <company> <target>: declare a charge (2b)")
rules.register_step("declare", check=has_declarations)
