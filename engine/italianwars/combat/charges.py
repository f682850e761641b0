"""2f the responses to a charge and 2g the closing (IW Azioni 2f, 2g; IW Schermagliatori; IW
Accampamento; IW-H 4).

2f "Le compagnie nemiche bersaglio di carica possono ora effettuare un'azione di risposta a tali
cariche. Il giocatore può scegliere una della risposte facoltative in addizione ad una qualsiasi
di quelle obbligatorie." Compulsory (Herald does them when the step begins): skirmishers evade
("Compagnie di schermagliatori dovranno sempre evadere da cariche nemiche anche se dichiarate da
compagnie di schermagliatori nemici": HERALD D93, whoever charges them); companies charged in
flank or rear test morale (IW-H 7; a rout there means no melee). Optional, one each, by the
charged side: `respond <company> fire|countercharge|face|stand`; `pass` = the rest stand. A
company with no optional response open (in melee, evaded, routed, or with nothing but stand) is
not waited for.

2g "Le compagnie che hanno passato eventuali morali da tiro possono ora chiudere il contatto":
Herald closes every declared charge itself when the step begins (HERALD D94: there is no
`close` verb): a charger that failed a morale test from shooting, or that the movement left short,
stays; the charger of an evader moves onto the evader's place, or under Assault or Attack on its
full move (IW Assalto, IW Attaccare: "alla velocità massima"); a charge on the camp takes it (IW
Accampamento: "Se assalito da truppe nemiche ... l'accampamento è considerato perduto").
"""
from __future__ import annotations

from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table.geometry import Pose, base_polygon, centre, forward

from engine.italianwars import checks, completion, completion_movement, rules
from engine.italianwars.combat.common import hesitate_to_withdraw, in_contact
from engine.italianwars.combat.morale import morale_test
from engine.italianwars.state import IWState

S_RESPOND = "IW Azioni 2f"
S_CLOSE = "IW Azioni 2g"
RESPONSES = ("fire", "countercharge", "face", "stand")
# the face a charger finds itself on after the target turns to face `towards` (IW-H 3.2)
TURNED = {
    "right": {"right": "front", "front": "left", "left": "rear", "rear": "right"},
    "left": {"left": "front", "front": "right", "right": "rear", "rear": "left"},
    "rear": {"rear": "front", "front": "rear", "left": "right", "right": "left"},
}
TURN_DEGREES = {"right": 90.0, "left": -90.0, "rear": 180.0}


def api():
    from engine.italianwars.movement import api as movement_api
    return movement_api


def chargers(st: IWState, bid: str | None = None) -> list:
    """This turn's declared chargers (of battle `bid`), by id."""
    return [c for c in sorted(st.companies.values(), key=lambda x: x.id)
            if c.charge and c.charge.get("turn") == st.turn and not c.charge.get("countercharge")
            and (bid is None or c.battle == bid)]


def live_charges(st: IWState, bid: str) -> list[tuple]:
    """(charger, target) of the acting battle's charges on companies still standing against them."""
    out = []
    for c in chargers(st, bid):
        t = st.companies.get(c.charge.get("target", ""))
        if t is None or c.charge.get("face") == "camp" or c.status != "active" or c.charge.get("failed"):
            continue
        out.append((c, t))
    return out


def responses(st: IWState) -> dict:
    return st.activation.setdefault("responses", {})


def compulsory(sc, st: IWState, stream) -> list[Event]:
    """The step-2f run: the compulsory responses (evasion, the flank test), charged company by
    charged company in the order of their chargers' ids."""
    act = st.activation or {}
    if not act.get("battle"):
        return []
    events: list[Event] = []
    done = responses(st)
    tested: dict[str, str] = {}
    evaded: dict[str, dict] = {}
    for c, t in live_charges(st, act["battle"]):
        if t.status != "active":
            continue
        events += hesitate_to_withdraw(sc, st, t, "charged")
        if rules.role_of(sc, st, t.id) == "skirmishers":
            if t.id in evaded:
                c.charge["evaded_from"] = evaded[t.id]
            else:
                evaded[t.id] = c.charge["evaded_from"] = {"x": t.x, "y": t.y, "facing": t.facing, "bases": t.bases}
                done[t.id] = "evade"
                events.append(Event("evade", t.side, "IW Schermagliatori",
                                    f"{rules.named(sc, t.id)}, skirmishers charged by {rules.named(sc, c.id)}, must evade",
                                    outcome={"company": t.id, "charger": c.id}))
                events += api().evade(sc, st, t, c, stream)
                t.evaded = True
            continue
        if c.charge.get("flank") and t.formation != "igel":
            if t.id not in tested:
                result, ev = morale_test(sc, st, t, stream, f"charged in the {c.charge['face'] if c.charge['face'] == 'rear' else c.charge['face'] + ' flank'} by {rules.named(sc, c.id)}",
                                         S_RESPOND, flank=True)
                tested[t.id] = result
                events.append(ev)
                if result == "rout":
                    done[t.id] = "routed"
            c.charge["flank_test"] = tested[t.id]
            if tested[t.id] == "rout":
                c.charge["no_melee"] = "its target routed"
    return events


def optional_refusal(sc, st: IWState, t, response: str, charger) -> str:
    """Why `t` may not make `response` to `charger`'s charge ("" when it may): IW Azioni 2f."""
    name = rules.named(sc, t.id)
    if response == "stand":
        return ""
    if t.melee_with:
        return f"{name} is already in melee: it can only stand"
    if response == "fire":
        from engine.italianwars.combat.shooting import shot_refusal
        return shot_refusal(sc, st, t, charger, response=True)[0]
    if response == "countercharge":
        arm = rules.arm_of(sc, st, t.id)
        if rules.role_of(sc, st, t.id) != "shock" or arm == "artillery":
            return f"only companies with shock weapons counter-charge; {name} is not shock troops"
        if arm == "infantry" and rules.arm_of(sc, st, charger.id) == "cavalry":
            return "foot charged by horse stand: they may not counter-charge (IW Azioni 2f)"
        if charger.charge.get("face") != "front":
            return f"{rules.named(sc, charger.id)} charges its {charger.charge.get('face')}: only a frontal charge is met (HERALD D95)"
        b = st.battles.get(t.battle)
        if b is not None and b.order == "retreat":
            return f"Retreat: no charges ({completion.hcite('14')})"
        return ""
    if response == "face":
        face = charger.charge.get("face")
        if face not in TURNED:
            return f"{rules.named(sc, charger.id)} charges its front: there is nothing to face"
        if t.formation == "igel":
            return "an Igel has no flank nor rear: it already faces every way (IW-H 3.5)"
        kind = "skirmishers" if rules.role_of(sc, st, t.id) == "skirmishers" else rules.arm_of(sc, st, t.id)
        allowance = api().allowance(sc, st, t)
        if not completion_movement.can_face_emergency(kind, allowance):
            return (f"half of {name}'s move in its ground ({allowance / 2:g} UDM) does not pay a facing change "
                    f"({completion_movement.FACING_COST[kind]} UDM, {completion.hcite('3.2')})")
        return ""
    return f"'{response}' is not a response: {', '.join(RESPONSES)}"


def options_for(sc, st: IWState, t) -> list[str]:
    """The optional responses open to charged company `t` (stand aside)."""
    bid = (st.activation or {}).get("battle")
    mine = [c for c, x in live_charges(st, bid) if x.id == t.id]
    if not mine or t.status != "active" or t.evaded or responses(st).get(t.id):
        return []
    return [r for r in RESPONSES[:-1] if any(not optional_refusal(sc, st, t, r, c) for c in mine)]


def has_responses(sc, st: IWState, side: str) -> bool:
    """Step 2f's check: a charged company of `side` may still respond."""
    act = st.activation or {}
    if not act.get("battle") or act.get("side") == side:
        return False
    return any(options_for(sc, st, t) for _, t in live_charges(st, act["battle"]) if t.side == side)


def do_respond(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`respond <company> fire|countercharge|face|stand` in step 2f, by the charged side."""
    from engine.italianwars.combat.shooting import acting_battle_company, fire
    if len(cmd.args) != 2:
        raise CannotParse("usage: respond <company> fire|countercharge|face|stand")
    t = acting_battle_company(sc, st, side, cmd.args[0], "respond", S_RESPOND)
    response = cmd.args[1].lower()
    if response not in RESPONSES:
        raise Illegal(f"'{cmd.args[1]}' is not a response: {', '.join(RESPONSES)}", S_RESPOND)
    mine = [c for c, x in live_charges(st, st.activation["battle"]) if x.id == t.id]
    if not mine:
        raise Illegal(f"{rules.named(sc, t.id)} is not charged by the acting battle", S_RESPOND)
    done = responses(st)
    if done.get(t.id):
        raise Illegal(f"{rules.named(sc, t.id)} has already responded ({done[t.id]}): one optional response", S_RESPOND)
    if t.status != "active" or t.evaded:
        raise Illegal(f"{rules.named(sc, t.id)} is {'an evader' if t.evaded else t.status}: it cannot respond", S_RESPOND)
    whys = [optional_refusal(sc, st, t, response, c) for c in mine]
    legal = [c for c, why in zip(mine, whys) if not why]
    if not legal:
        open_ = options_for(sc, st, t)
        raise Illegal(whys[0] + f"; open to it: {', '.join(open_ + ['stand'])}", S_RESPOND)
    c = legal[0]
    done[t.id] = response
    tname, cname = rules.named(sc, t.id), rules.named(sc, c.id)
    if response == "fire":
        return fire(sc, st, t, c, stream, response=True)
    if response == "stand":
        return [Event("response", side, S_RESPOND, f"{tname} stands to receive {cname}'s charge",
                      outcome={"company": t.id, "response": "stand"})]
    if response == "countercharge":
        t.charge = {"target": c.id, "face": "front", "flank": False, "turn": st.turn, "countercharge": True,
                    "distance": checks.distance_between(sc, st, t, c)}
        return [Event("response", side, S_RESPOND,
                      f"{tname} counter-charges {cname}: it meets the charge and counts as charging (IW-H 4.3)",
                      outcome={"company": t.id, "response": "countercharge", "charger": c.id})]
    return face_charger(sc, st, t, c)


def face_charger(sc, st: IWState, t, charger) -> list[Event]:
    """IW Azioni 2f's emergency facing (IW-H 3.2-3.3): `t` turns in place (about its centre) to
    face `charger`; every charge on it falls on the face it now presents."""
    towards = charger.charge["face"]
    fp = checks.footprint(sc, st, t)
    cx, cy = centre(checks.pose(t), fp)
    facing = (t.facing + TURN_DEGREES[towards]) % 360
    fx, fy = forward(facing)
    p = Pose.rounded(cx + fx * fp.depth / 2, cy + fy * fp.depth / 2, facing)
    t.x, t.y, t.facing = p.x, p.y, p.facing
    for c in chargers(st):
        if c.charge.get("target") == t.id and c.charge.get("face") in TURNED[towards]:
            face = TURNED[towards][c.charge["face"]]
            c.charge = {**c.charge, "face": face, "flank": face != "front"}
    return [Event("response", t.side, S_RESPOND,
                  f"{rules.named(sc, t.id)} turns to face {rules.named(sc, charger.id)}'s charge on its {towards} "
                  f"(emergency facing, {completion.hcite('3.3')})",
                  outcome={"company": t.id, "response": "face", "facing": t.facing})]


# -- 2g ---------------------------------------------------------------------------------------------------

def close_all(sc, st: IWState, stream) -> list[Event]:
    """The step-2g run (HERALD D94): every charge of the acting battle closes or says why not."""
    act = st.activation or {}
    if not act.get("battle"):
        return []
    events: list[Event] = []
    for c in chargers(st, act["battle"]):
        events += close_one(sc, st, c, stream)
    return events


def close_one(sc, st: IWState, c, stream) -> list[Event]:
    decl = c.charge
    name = rules.named(sc, c.id)
    if decl.get("closed"):
        return []
    if c.status != "active":
        return []
    if decl.get("failed"):
        return [Event("no_close", c.side, S_CLOSE, f"{name} failed a morale test from shooting: it does not close",
                      outcome={"company": c.id, "why": "failed"})]
    if decl.get("short"):
        met = countercharge_meets(sc, st, c)
        if met:
            return met
        return [Event("no_close", c.side, S_CLOSE, f"{name} did not come within 1 UDM of its target: it does not close",
                      outcome={"company": c.id, "why": "short"})]
    if decl.get("face") == "camp":
        return take_camp(sc, st, c)
    t = st.companies.get(decl["target"])
    if decl.get("no_melee") or t is None:
        return [Event("no_close", c.side, S_CLOSE, f"{name}'s target routed when charged in the flank: no melee",
                      outcome={"company": c.id, "why": "target routed"})]
    if decl.get("evaded_from"):
        return follow_evader(sc, st, c)
    if t.status != "active":
        return [Event("no_close", c.side, S_CLOSE, f"{name}'s target {rules.named(sc, t.id)} is {t.status}: no contact",
                      outcome={"company": c.id, "why": t.status})]
    events = list(api().close_to_contact(sc, st, c, t, decl.get("face", "front")) or [])
    in_contact(st, c, t)
    c.charge = {**decl, "closed": True}
    if t.charge.get("countercharge") and t.charge.get("target") == c.id and t.charge.get("turn") == st.turn:
        t.charge = {**t.charge, "closed": True}
    st.last_action = {"kind": "charge", "contact": {"mover": c.id, "target": t.id}, "face": decl.get("face", "front")}
    if events:          # the movement's own account of the contact
        return events
    where = "" if decl.get("face", "front") == "front" else f" in the {decl['face']}"
    return [Event("contact", c.side, S_CLOSE, f"{name} closes with {rules.named(sc, t.id)}{where}",
                  outcome={"company": c.id, "target": t.id, "face": decl.get("face", "front")})]


def countercharge_meets(sc, st: IWState, c) -> list[Event]:
    """IW-H 4.3: "the company moves into contact and counts as charging": a charger that fell
    short of its target is met by the target's counter-charge, if the gap is within the
    counter-charger's own move (HERALD D102), front to front; [] when it is not."""
    t = st.companies.get(c.charge.get("target", ""))
    if t is None or t.status != "active" or not t.charge.get("countercharge") or t.charge.get("target") != c.id \
            or t.charge.get("turn") != st.turn:
        return []
    from engine.italianwars.movement.api import allowance
    gap = checks.distance_between(sc, st, c, t)
    if gap > allowance(sc, st, t) + 1e-6:
        return []
    events = list(api().close_to_contact(sc, st, t, c, "front") or [])
    in_contact(st, t, c)
    c.charge = {**c.charge, "closed": True}
    t.charge = {**t.charge, "closed": True}
    st.last_action = {"kind": "charge", "contact": {"mover": t.id, "target": c.id}, "face": "front"}
    return events + [Event("contact", t.side, completion.hcite("4.3"),
                           f"{rules.named(sc, c.id)} fell short; {rules.named(sc, t.id)}'s counter-charge meets it "
                           f"{gap:g} UDM out, front to front", outcome={"company": t.id, "target": c.id, "gap": gap})]


def take_camp(sc, st: IWState, c) -> list[Event]:
    """IW Accampamento: the camp charged is lost (3 points of its army's strength)."""
    side = c.charge["target"][5:]
    army = st.armies.get(side)
    c.charge = {**c.charge, "closed": True}
    if army is None or army.camp_lost:
        return []
    army.camp_lost = True
    st.last_action = {"kind": "camp", "company": c.id, "camp": side}
    return [Event("camp_taken", c.side, "IW Accampamento",
                  f"{rules.named(sc, c.id)} assaults {side.title()}'s camp: it is lost (3 points of its army's strength)",
                  outcome={"company": c.id, "camp": side})]


def follow_evader(sc, st: IWState, c) -> list[Event]:
    """IW-H 4.4 (HERALD D94): the charger of an evader moves straight ahead onto the evader's
    former place; under Assault or Attack on the rest of its full move (its allowance less the
    declared distance less the 1 UDM it stopped short). It stops on touching any company."""
    from engine.core.table.moves import Step, first_touch, walk
    from engine.italianwars import tables
    decl = c.charge
    was = decl["evaded_from"]
    b = st.battles.get(c.battle)
    full = max(0.0, api().allowance(sc, st, c) - max(0.0, decl.get("distance", 1.0) - 1.0))
    old_fp = tables.footprint(rules.arm_of(sc, st, decl["target"]), max(1, int(was.get("bases", 1))))
    old = base_polygon(Pose(was["x"], was["y"], was["facing"]), old_fp)
    gap = checks.polygon(sc, st, c).distance(old)
    onto = gap + old_fp.depth
    go_on = b is not None and b.order in ("assault", "attack")
    amount = round(full if go_on else min(full, onto), 2)
    c.charge = {**decl, "closed": True}
    if amount <= 0:
        return []
    obstacles = [(o.id, checks.polygon(sc, st, o)) for o in sorted(st.companies.values(), key=lambda x: x.id)
                 if o.id != c.id and o.alive and o.status != "waiting"]
    steps = [Step("advance", amount)]
    hit = first_touch(checks.pose(c), checks.footprint(sc, st, c), steps, obstacles)
    w = hit[0] if hit else walk(checks.pose(c), checks.footprint(sc, st, c), steps)
    start = (c.x, c.y)
    c.x, c.y, c.facing = w.end.x, w.end.y, w.end.facing
    moved = round(w.used, 2)
    st.last_action = {"kind": "charge", "company": c.id, "paths": [[list(start), [c.x, c.y]]]}
    how = "goes on its full move (Assault or Attack)" if go_on else "moves onto its place"
    return [Event("follow_evader", c.side, S_CLOSE,
                  f"{rules.named(sc, c.id)}'s target evaded: it {how}, {moved:g} UDM"
                  + (f", stopping at {hit[1]}" if hit else ""),
                  outcome={"company": c.id, "moved": moved, "stopped_by": hit[1] if hit else ""})]


rules.register("respond", do_respond, "respond <company> fire|countercharge|face|stand: answer a charge (2f)")
rules.register_step("respond", check=has_responses, run=compulsory)
rules.register_step("close", run=close_all)
