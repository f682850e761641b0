"""Morale tests (IW Disordine; IW-H 7), captain risk and the passing of command (IW Azioni 2i;
IW-H 8), and phase 5, reorganisation (IW Sequenza di mossa 5, IW Riorganizzazione dal disordine;
IW-H 9.4, 10): pursuers halt, disordered companies recover, routers rally.

HERALD D96: phase 5 in this order: first the recovery count of the companies already disordered
(a company disordered in this phase starts counting in the next), then the pursuers' halting
rolls, then the rallies; companies by id, the attacker's first.
"""
from __future__ import annotations

from engine.core.events import Event

from engine.italianwars import checks, completion, rules
from engine.italianwars.combat.common import Dice, dice_text, disorder, set_routing
from engine.italianwars.profiles import profile_of
from engine.italianwars.state import IWState

S_TEST = completion.hcite("7")
S_CAPTAIN = "IW Azioni 2i"
S_REORG = "IW Riorganizzazione dal disordine"
S_PHASE5 = "IW Sequenza di mossa 5"
RESULT_TEXT = {"pass": "passes", "disorder": "fails: disordered", "rout": "fails: it routs"}


def morale_test(sc, st: IWState, c, stream, why: str, section: str, **mods) -> tuple[str, Event]:
    """IW-H 7: one morale test of company `c` (`mods` as completion.morale_modifiers takes them:
    flank, captain_fell, margin, shot_points) and its result applied: disorder, or rout."""
    p = profile_of(sc, st, c)
    mm = completion.morale_modifiers(p, **mods)
    m = sum(x.value for x in mm)
    dice = Dice(st, stream, c.side)
    die = dice("morale test")
    result = completion.morale_outcome(p.morale, m, die, p.disordered)
    target = completion.MORALE_TARGET[p.morale]
    dice.mark("morale test", result)
    apply_morale(st, c, result)
    text = (f"{rules.named(sc, c.id)} tests morale, {why} ({p.morale}, needs {target}; a 6 passes, a 1 fails"
            f"{'; already disordered: a failure routs' if p.disordered else ''}): {dice_text(die, mm)}: "
            f"{RESULT_TEXT[result]}")
    return result, Event("morale", c.side, section, text, base=die, modifiers=mm, dice=dice.dice,
                         table=f"{S_TEST} morale test", row=f"{p.morale} {target}",
                         outcome={"company": c.id, "result": result, "target": target, "total": die + m})


def apply_morale(st: IWState, c, result: str) -> None:
    """IW-H 7.2: a failure disorders, a rout routs."""
    if result == "disorder":
        disorder(c)
    elif result == "rout":
        set_routing(st, c)


def captain_lost(sc, st: IWState, c, fate: str, how: str) -> list[Event]:
    """IW-H 8.2: the captain of `c` is killed or captured; a battle commander's command passes
    (`pass_command`); the Commander-in-Chief's fall forbids new orders (the text: the battle's
    commander stays his company, which sequence/command.new_orders_forbidden reads)."""
    if not fate:
        return []
    c.captain_lost = fate
    events = [Event("captain", c.side, S_CAPTAIN, f"The captain of {rules.named(sc, c.id)} is {fate} ({how})",
                    table=f"{completion.hcite('8')} captain risk", outcome={"company": c.id, "fate": fate})]
    return events + pass_command(sc, st, c)


def pass_command(sc, st: IWState, c) -> list[Event]:
    """IW-H 8.2: "If he commanded a battle, the nearest company of the battle takes command (its
    captain, with the personality already rolled). If he was the Commander-in-Chief, no new
    orders may be given for the rest of the battle" (HERALD D97: the C-in-C's battle keeps his
    company as its commander, so the loss is remembered; it still activates without a test). A
    commander whose company is destroyed or leaves the table is lost the same way."""
    b = st.battles.get(c.battle)
    if b is None or b.commander != c.id:
        return []
    if b.cinc:
        return [Event("command", c.side, completion.hcite("8.2"),
                      f"The Commander-in-Chief is lost: {c.side.title()} may give no new orders for the rest of the battle",
                      outcome={"battle": b.id, "cinc_lost": True})]
    pool = [x for x in sorted(st.companies.values(), key=lambda x: x.id)
            if x.battle == b.id and x.id != c.id and x.alive and not x.captain_lost]
    if not pool:
        return [Event("command", c.side, completion.hcite("8.2"),
                      f"{rules.battle_name(sc, st, b.id)} has lost its commander and no captain is left to take command",
                      outcome={"battle": b.id, "commander": b.commander})]
    order = {"active": 0, "pursuing": 1, "routing": 2}
    new = min(pool, key=lambda x: (order.get(x.status, 3), round(checks.distance_between(sc, st, c, x), 6), x.id))
    b.commander = new.id
    return [Event("command", c.side, completion.hcite("8.2"),
                  f"{rules.named(sc, new.id)}'s captain ({new.captain or 'unrolled'}) takes command of "
                  f"{rules.battle_name(sc, st, b.id)}, the nearest company of the battle",
                  outcome={"battle": b.id, "commander": new.id})]


def captain_risk_text(dice: Dice, risk: str, fate: str, situation: str) -> str:
    """The narrative of IW-H 8.1-8.2's two dice."""
    first = dice.faces.get(risk)
    if first is None:
        return ""
    need = completion.CAPTAIN_AT_RISK[situation]
    if not completion.captain_falls(situation, first):
        return f"captain risk d6 {first} (at risk on {need}+): safe"
    second = dice.faces.get(fate)
    result = completion.captain_fate(situation, second) if second is not None else ""
    return f"captain risk d6 {first} (at risk on {need}+), then d6 {second}: " + (result or "unhurt")


# -- phase 5 ---------------------------------------------------------------------------------------------

def in_rough_ground(sc, st: IWState, c) -> bool:
    """IW Riorganizzazione dal disordine: "non devono essere ... in terreno rotto" (IW-H 10.1:
    nor in closed ground)."""
    cats = checks.categories_at(sc, checks.polygon(sc, st, c))
    return bool(cats & {"broken", "closed"})


def touching_enemy(sc, st: IWState, c) -> bool:
    """In contact with an enemy: in melee, or its rectangle touching an enemy's (IW-H 10.2)."""
    if c.melee_with:
        return True
    from engine.core.table.geometry import CONTACT_TOL
    return any(checks.distance_between(sc, st, c, e) <= CONTACT_TOL
               for e in st.companies.values() if e.side != c.side and e.alive and e.status != "waiting")


def phase_order(st: IWState) -> list:
    """The companies in the order phase 5 treats them: the attacker's first, each side by id."""
    from engine.italianwars.sequence.walk import sides_in_order
    order = sides_in_order(st)
    return sorted(st.companies.values(), key=lambda c: (order.index(c.side) if c.side in order else 2, c.id))


def reorganisation(sc, st: IWState, stream) -> list[Event]:
    """Phase 5 (IW Sequenza di mossa 5: "Entrambi i giocatori tentano di riorganizzare le
    compagnie dal disordine, rotta, inseguimento"); HERALD D96 for the order."""
    events: list[Event] = []
    comps = phase_order(st)
    for c in comps:
        events += recover(sc, st, c)
    for c in comps:
        if c.status == "pursuing":
            events += halt_pursuit(sc, st, c, stream)
    for c in comps:
        if c.status == "routing":
            events += rally(sc, st, c, stream)
    return events


def recover(sc, st: IWState, c) -> list[Event]:
    """IW-H 10.1 (HERALD D42): a disordered company not in melee, routing, pursuing, nor in
    broken or closed ground counts one more reorganisation phase; after REORGANISE_TURNS of them
    in a row it is in good order. One that is not eligible starts again."""
    if not c.disordered or c.status != "active":
        if c.status in ("routing", "pursuing"):
            c.reorganising = 0
        return []
    morale = rules.morale_of(sc, st, c.id)
    need = completion.REORGANISE_TURNS.get(morale, 2)
    why = ("in melee" if c.melee_with else "in broken or closed ground" if in_rough_ground(sc, st, c) else "")
    if why:
        c.reorganising = 0
        return [Event("reorganise", c.side, S_REORG, f"{rules.named(sc, c.id)} cannot reorganise: {why}",
                      outcome={"company": c.id, "reorganising": 0, "recovered": False})]
    c.reorganising += 1
    if c.reorganising >= need:
        c.disordered = False
        c.reorganising = 0
        return [Event("reorganise", c.side, S_REORG,
                      f"{rules.named(sc, c.id)} reorganises ({morale}: {need} phase{'s' if need > 1 else ''}): in good order",
                      table=f"{completion.hcite('10.1')} reorganisation", row=f"{morale} {need}",
                      outcome={"company": c.id, "reorganising": 0, "recovered": True})]
    return [Event("reorganise", c.side, S_REORG,
                  f"{rules.named(sc, c.id)} reorganising: {c.reorganising} of {need} phases ({morale})",
                  table=f"{completion.hcite('10.1')} reorganisation", row=f"{morale} {need}",
                  outcome={"company": c.id, "reorganising": c.reorganising, "recovered": False})]


def halt_pursuit(sc, st: IWState, c, stream) -> list[Event]:
    """IW-H 9.4: a pursuer halts on a d6 of PURSUIT_HALT (4+, Gentlemen horse and Swiss 5+);
    one whose router is gone (rallied, destroyed, off the table) halts without a roll. A halted
    pursuer is disordered (IW Disordine)."""
    router = st.companies.get(c.pursuing)
    name = rules.named(sc, c.id)
    if router is None or router.status != "routing":
        stop_pursuit(c)
        return [Event("pursuit_halt", c.side, completion.hcite("9.4"),
                      f"{name} halts: the company it pursued is no longer routing; it is disordered",
                      outcome={"company": c.id, "halted": True, "rolled": False})]
    cls = completion.pursuit_class(profile_of(sc, st, c))
    need = completion.PURSUIT_HALT.get(cls, completion.PURSUIT_HALT["default"])
    dice = Dice(st, stream, c.side)
    die = dice("pursuit halt")
    halted = die >= need
    dice.mark("pursuit halt", "halts" if halted else "pursues on")
    if halted:
        stop_pursuit(c)
    who = {"gentlemen_horse": "Gentlemen horse", "swiss": "Swiss"}.get(cls, "pursuers")
    return [Event("pursuit_halt", c.side, completion.hcite("9.4"),
                  f"{name} pursuing {rules.named(sc, router.id)}: d6 {die} ({who} halt on {need}+): "
                  + ("halts, disordered" if halted else "pursues on"), base=die, dice=dice.dice,
                  table=f"{completion.hcite('9.4')} halting", row=f"{cls} {need}",
                  outcome={"company": c.id, "halted": halted, "need": need})]


def stop_pursuit(c) -> None:
    c.status = "active"
    c.pursuing = ""
    disorder(c)


def rally(sc, st: IWState, c, stream) -> list[Event]:
    """IW-H 10.2: a router not in contact rolls a d6 to rally (Professionals 3+, Gentlemen 4+,
    Mercenaries 5+, Militia 6, Rabble never); rallied, it faces the nearest enemy, is
    disordered, and fights with side arms for the rest of the battle (IW Tipi di armi)."""
    name = rules.named(sc, c.id)
    if touching_enemy(sc, st, c):
        return [Event("rally", c.side, completion.hcite("10.2"), f"{name} cannot rally: it is in contact with the enemy",
                      outcome={"company": c.id, "rallied": False, "rolled": False})]
    morale = rules.morale_of(sc, st, c.id)
    need = completion.rally_target(morale)
    if need is None:
        return [Event("rally", c.side, completion.hcite("10.2"), f"{name} ({morale}) never rallies: it flees on",
                      outcome={"company": c.id, "rallied": False, "rolled": False})]
    dice = Dice(st, stream, c.side)
    die = dice("rally")
    ok = die >= need
    dice.mark("rally", "rallies" if ok else "flees on")
    if ok:
        c.status = "active"
        c.side_arms_only = True
        disorder(c)
        face_nearest_enemy(sc, st, c)
    return [Event("rally", c.side, completion.hcite("10.2"),
                  f"{name} ({morale}) tries to rally: d6 {die}, needs {need}: "
                  + ("rallies, facing the enemy, disordered, side arms only from now on" if ok else "flees on"),
                  base=die, dice=dice.dice, table=f"{completion.hcite('10.2')} rally", row=f"{morale} {need}",
                  outcome={"company": c.id, "rallied": ok, "need": need})]


def face_nearest_enemy(sc, st: IWState, c) -> None:
    enemies = [e for e in sorted(st.companies.values(), key=lambda e: e.id)
               if e.side != c.side and e.alive and e.status != "waiting" and not e.hidden]
    if not enemies:
        return
    near = min(enemies, key=lambda e: (round(checks.distance_between(sc, st, c, e), 6), e.id))
    from engine.italianwars.movement import api
    api.face_towards(sc, st, c, near)


rules.register_step("reorganisation", run=reorganisation)
