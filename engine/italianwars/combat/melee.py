"""2h Risoluzione delle mischie and 2i the captains' risk (IW Azioni 2h, 2i, IW Fattori di mischia,
IW Doppelsöldner, IW Falange, IW Disordine; IW-H 6, 8, 9.2).

"Le compagnie che si trovino a contatto con unità nemiche devono effettuare il combattimento.
Ogni morale derivante dalla risoluzione delle mischie viene ora effettuato." One round is
completion_melee.resolve_melee (the Doppelsöldner, each side's d6 on the Melee table, the captains, the
loser's test); here its results are applied: points and bases, disorder, push back (movement
api), rout, destruction, guns taken, and the winner's follow-up or pursuit.

HERALD D98 (when): Herald fights, when step 2h begins, every melee of the acting battle's
companies not yet fought this turn (`Company.fought_turn`), company by company in id order; the
`melee` verb says so. A battle that failed its activation still reaches 2h (HERALD D92), so a
melee is fought at the first activation, attempted or failed, of a battle with a company in it
(IW Attivazione delle Battaglie: "unità già in mischia, conducono comunque la fase di
risoluzione delle mischie"; IW-H 6.5).

HERALD D99 (several against one): a round is fought by two companies, the acting company and
its main enemy (the one it touches front to front, else the first by id not yet fought). Every
other company in contact with one of the two fights on its flank or rear (its contact edge, else
its charge's side) and makes it "flanked" (-2, no size nor pike bonus, the lightest armour, and
-1 to its test: IW-H 6.3, 7.3); those helpers roll no die and count as having fought this turn.

HERALD D100 (follow-up and pursuit): the winner of a decided round, if no other enemy holds it,
follows up a pushed-back loser (the melee goes on next turn) or pursues a routed one (status
"pursuing", disordered: IW Disordine "Stanno inseguendo"); Swiss, Gentlemen horse and
companies under Assault must (IW-H 6.4, 9.2: PURSUE_MUST); shooting troops, skirmishers, guns,
an Igel and troops behind field defences never do; the others follow their side's standing
answer (`policy pursue always|never|ask`), asked by default.
"""
from __future__ import annotations

from engine.core.errors import Illegal
from engine.core.events import Event, Modifier
from engine.core.table.geometry import contact_edge

from engine.italianwars import checks, completion, completion_melee, rules
from engine.italianwars.combat.common import (Dice, apply_points, destroy, dice_text, disorder, end_contacts, in_contact,
                                              loss_text, set_routing)
from engine.italianwars.combat.morale import RESULT_TEXT, apply_morale, captain_lost, captain_risk_text, pass_command
from engine.italianwars.profiles import profile_of
from engine.italianwars.state import IWState

SECTION = "IW Azioni 2h"
S_H6 = completion.hcite("6")
OUTCOME_TEXT = {"held": "holds", "drawn": "holds (drawn)", "won": "wins", "pushed back": "is pushed back",
                "disordered, pushed back": "is disordered and pushed back", "routed": "routs",
                "destroyed": "is destroyed"}


def face_on(sc, st: IWState, target, other) -> str:
    """The side of `target` that `other` fights: the edge it touches, else the side its charge
    this turn fell on, else the front; an Igel has only fronts (IW-H 3.5)."""
    if target.formation == "igel":
        return "front"
    edge = contact_edge(checks.pose(target), checks.footprint(sc, st, target),
                        checks.pose(other), checks.footprint(sc, st, other))
    if edge:
        return edge
    ch = other.charge or {}
    if ch.get("target") == target.id and ch.get("turn") == st.turn and ch.get("face") in ("front", "left", "right", "rear"):
        return ch["face"]
    return "front"


def charging(st: IWState, c, enemy) -> bool:
    """`c` charged or counter-charged `enemy` into this melee this turn, or met it in pursuit
    (`st.options["new_melees"]`, set by the pursuit moves: the pursuer counts as charging)."""
    ch = c.charge or {}
    if ch.get("turn") == st.turn and ch.get("target") == enemy.id and ch.get("closed"):
        return True
    return (st.options.get("new_melees") or {}).get(c.id) == enemy.id


def flank_tested(st: IWState, c) -> bool:
    """`c` took the compulsory flank test at 2f this turn (completion_melee.resolve_melee must not test
    it again: HERALD D95)."""
    return any(x.charge.get("target") == c.id and x.charge.get("turn") == st.turn and "flank_test" in x.charge
               for x in st.companies.values() if x.charge)


def unfought(st: IWState, bid: str) -> list:
    return [c for c in sorted(st.companies.values(), key=lambda x: x.id)
            if c.battle == bid and c.alive and c.melee_with and c.fought_turn != st.turn]


def fight_all(sc, st: IWState, stream) -> list[Event]:
    """The step-2h run (HERALD D98): every melee of the acting battle not fought this turn."""
    act = st.activation or {}
    bid = act.get("battle")
    events: list[Event] = []
    if not bid:
        return events
    while not st.pending and st.phase != "over":
        todo = unfought(st, bid)
        if not todo:
            break
        events += fight(sc, st, todo[0], stream)
    return events


def fight(sc, st: IWState, a, stream) -> list[Event]:
    """One round of melee for company `a` and its main enemy (HERALD D99)."""
    enemies = [st.companies[e] for e in a.melee_with if e in st.companies and st.companies[e].alive]
    if not enemies:
        end_contacts(st, a)
        a.fought_turn = st.turn
        return []
    # a company that charged into contact this turn fights its new melee even against an enemy
    # that has already fought this turn (HERALD D99)
    fresh = [e for e in enemies if e.fought_turn != st.turn or charging(st, a, e)]
    if not fresh:
        a.fought_turn = st.turn
        return [Event("melee", a.side, SECTION, f"{rules.named(sc, a.id)}'s enemies have fought this turn: it waits",
                      outcome={"company": a.id, "fought": False})]
    seen: dict[tuple[str, str], str] = {}

    def face(t, o) -> str:          # each side met measured once a round (contact_edge is costly)
        if (t.id, o.id) not in seen:
            seen[(t.id, o.id)] = face_on(sc, st, t, o)
        return seen[(t.id, o.id)]

    b = min(fresh, key=lambda e: (face(a, e) != "front", face(e, a) != "front", e.id))
    a_faces = {h.id: face(a, st.companies[h.id]) for h in enemies}
    helpers_a = [st.companies[x] for x in b.melee_with if x != a.id and x in st.companies and st.companies[x].alive]
    b_faces = {h.id: face(b, h) for h in helpers_a + [a]}
    a_flanked = any(f != "front" for f in a_faces.values())
    b_flanked = any(f != "front" for f in b_faces.values())
    a_ch, b_ch = charging(st, a, b), charging(st, b, a)
    new = a_ch or b_ch
    first = {"a": new and not (a_flanked and flank_tested(st, a) and not a_ch),
             "b": new and not (b_flanked and flank_tested(st, b) and not b_ch)}
    sa = completion_melee.Side(profile_of(sc, st, a), charging=a_ch, flanked=a_flanked, first_round=first["a"])
    sb = completion_melee.Side(profile_of(sc, st, b), charging=b_ch, flanked=b_flanked, first_round=first["b"])
    owner = DiceOwner(a, b, sa, sb)
    dice = Dice(st, stream, None, owner=owner)
    res = completion_melee.resolve_melee(sa, sb, dice)
    for c in [a, b] + helpers_a + [e for e in enemies if e is not b]:
        c.fought_turn = st.turn
        c.in_melee = True
    news = st.options.get("new_melees") or {}
    for c in (a, b):
        news.pop(c.id, None)
    comp = {"a": a, "b": b}
    events: list[Event] = []
    # the flank test inside the round (a contact HERALD did not test at 2f, e.g. from pursuit)
    if res.flank_test:
        k = owner.flank_side or "b"
        test_c = comp[k]
        if res.flank_test == "disorder":
            disorder(test_c)
        elif res.flank_test == "rout":
            set_routing(st, test_c)
    for k, hit in res.doppel.items():
        if hit:
            o = comp["b" if k == "a" else "a"]
            disorder(o)
            if o.formation.startswith("phalanx"):
                o.formation = ""
    outs = {}
    for k in ("a", "b"):
        if res.points.get(k):
            outs[k] = apply_points(sc, st, comp[k], res.points[k])
    text = round_text(sc, st, a, b, res, dice, outs)
    loser_k = {"a": "b", "b": "a"}.get(res.winner, "")
    events.append(Event("melee", a.side, SECTION, text, modifiers=labelled(a, b, res), dice=dice.dice,
                        table=f"{completion.hcite('6.2')} Melee table",
                        row=f"columns {res.columns.get('a', '-')} v {res.columns.get('b', '-')}",
                        outcome={"a": a.id, "b": b.id, "columns": res.columns, "dice": res.dice, "points": res.points,
                                 "winner": comp[res.winner].id if res.winner else "", "outcome": {
                                     comp[k].id: v for k, v in res.outcome.items()},
                                 "broken_through": res.broken_through, "captains": {
                                     comp[k].id: v for k, v in res.captains.items() if v},
                                 "morale": res.morale, "flank_test": res.flank_test, "doppel": res.doppel}))
    st.last_action = {"kind": "melee", "attacker": a.id, "defender": b.id,
                      "winner": comp[res.winner].id if res.winner else "", "points": res.points}
    for k in ("a", "b"):
        if outs.get(k, {}).get("destroyed"):
            events += pass_command(sc, st, comp[k])
    for k in ("a", "b"):
        c = comp[k]
        if res.captains.get(k) and c.status != "destroyed":
            events += captain_lost(sc, st, c, res.captains[k], "in melee")
            result = res.captain_tests.get(k)
            if result and c.alive:
                # IW-H 7.1: its captain fell and it had no other test (rolled by resolve_melee)
                events.append(captain_test_event(sc, st, c, result, dice, k))
    if not res.winner:
        return events
    winner, loser = comp[res.winner], comp[loser_k]
    outcome = res.outcome.get(loser_k, "")
    face = face_on(sc, st, loser, winner)
    if loser.status == "destroyed":
        end_contacts(st, winner, only=loser.id)
        return events
    if rules.arm_of(sc, st, loser.id) == "artillery":
        destroy(st, loser)
        events.append(Event("guns_taken", winner.side, completion.hcite("6.4"),
                            f"{rules.named(sc, loser.id)} lost the melee: the guns are taken", outcome={"company": loser.id}))
        return events + pass_command(sc, st, loser)
    if res.broken_through or "disordered" in outcome:
        disorder(loser)
    if outcome == "routed":
        set_routing(st, loser)
        return events + after_win(sc, st, winner, loser, "pursue", face, stream)
    events += list(_api().push_back(sc, st, loser, winner, 1.0) or [])
    end_contacts(st, loser)
    return events + after_win(sc, st, winner, loser, "follow", face, stream)


def captain_test_event(sc, st: IWState, c, result: str, dice: Dice, k: str) -> Event:
    """The morale test of a company whose captain fell in the round and that had no other test
    (IW-H 7.1), as resolve_melee rolled it; its result applied (a failure disorders, a rout
    routs: IW-H 7.2)."""
    p = profile_of(sc, st, c)
    mm = completion.morale_modifiers(p, captain_fell=True)
    die = dice.faces.get(f"captain morale {k}", 0)
    dice.mark(f"captain morale {k}", result)
    apply_morale(st, c, result)
    target = completion.MORALE_TARGET[p.morale]
    text = (f"{rules.named(sc, c.id)} tests morale, its captain fell ({p.morale}, needs {target}): "
            f"{dice_text(die, mm)}: {RESULT_TEXT[result]}")
    return Event("morale", c.side, completion.hcite("7"), text, base=die, modifiers=mm,
                 table=f"{completion.hcite('7')} morale test", row=f"{p.morale} {target}",
                 outcome={"company": c.id, "result": result, "target": target, "total": die + sum(m.value for m in mm)})


class DiceOwner:
    """Whose die each of resolve_melee's rolls is (the sacrificed sixes are the roller's, HERALD
    D50): "melee a", "captain risk b"... by their letter; the flank test the flanked side's; the
    Doppelsöldner in the order resolve_melee rolls them; the loser's test the side whose captain
    risk read 5+ (completion.captain_falls("melee_lost", 5) is the loser's threshold)."""

    def __init__(self, a, b, sa, sb):
        self.side = {"a": a.side, "b": b.side}
        self.flank_side = ""
        sides = {"a": sa, "b": sb}
        self.flank = [k for k in ("a", "b") if sides[k].flanked and sides[k].first_round
                      and sides["b" if k == "a" else "a"].charging and not sides[k].company.igel]
        self.doppel = [k for k in ("a", "b") if completion_melee.may_use_doppelsoldner(sides[k], sides["b" if k == "a" else "a"])]
        self.loser = ""

    def __call__(self, purpose: str, key) -> str:
        if purpose.endswith((" a", " b")):
            k = purpose[-1]
            if purpose.startswith("captain risk") and key is not None and key(5):
                self.loser = k
            return self.side[k]
        if purpose == "flank morale":
            self.flank_side = self.flank.pop(0) if self.flank else "b"
            return self.side[self.flank_side]
        if purpose == "Doppelsöldner":
            return self.side[self.doppel.pop(0) if self.doppel else "a"]
        return self.side[self.loser or "b"]


def labelled(a, b, res) -> list[Modifier]:
    """Both sides' column modifiers, each reason naming its company (the event's list)."""
    out = []
    for k, c in (("a", a), ("b", b)):
        for m in res.modifiers.get(k, []):
            out.append(Modifier(m.value, f"{c.id}: {m.reason}", m.section))
    return out


def round_text(sc, st: IWState, a, b, res, dice: Dice, outs: dict) -> str:
    comp = {"a": a, "b": b}
    parts = []
    if res.flank_test:
        parts.append(f"flank test: {res.flank_test}")
    for k, hit in res.doppel.items():
        parts.append(f"{comp[k].id}'s Doppelsöldner d6 {dice.faces.get('Doppelsöldner', '?')}: "
                     + ("the enemy is disordered" if hit else "no effect (5+)"))
    for k in ("a", "b"):
        if k not in res.columns:
            continue
        o = "b" if k == "a" else "a"
        col = res.columns[k]
        read = completion.clamp(col)
        entry = profile_of(sc, st, comp[k]).melee
        mods = "".join(f" {m.value:+d}" for m in res.modifiers.get(k, []))
        lost = res.points.get(o, 0)
        parts.append(f"{rules.named(sc, comp[k].id)}: entry {entry}{mods} = column {col}"
                     + (f" (read {read})" if read != col else "") + f", d6 {res.dice.get(k)}: "
                     + f"{rules.named(sc, comp[o].id)} " + (loss_text(sc, comp[o], lost, outs[o]) if o in outs
                                                             else "loses nothing"))
    for k in ("a", "b"):
        risk = captain_risk_text(dice, f"captain risk {k}", f"captain fate {k}",
                                 "melee_lost" if res.winner and res.winner != k else "melee")
        if risk:
            parts.append(f"{comp[k].id} {risk}")
    if res.winner:
        loser_k = "b" if res.winner == "a" else "a"
        margin = abs(res.points.get("a", 0) - res.points.get("b", 0))
        text = f"{rules.named(sc, comp[res.winner].id)} wins by {margin}"
        if res.broken_through:
            text += f" ({completion_melee.BROKEN_THROUGH_MARGIN}+: broken through)"
        if res.morale:
            lc, mm = loser_test(sc, st, comp[loser_k], res, loser_k, outs)
            die = dice.faces.get("morale", 0)
            text += (f"; the loser tests ({lc.morale}, needs {completion.MORALE_TARGET[lc.morale]}"
                     f"{', already disordered: a failure routs' if lc.disordered else ''}): "
                     f"d6 {die}" + "".join(f" {m.value:+d}" for m in mm) + f" = {die + sum(m.value for m in mm)}"
                     f" ({', '.join(m.reason for m in mm) or 'no modifier'}): {res.morale}")
        text += f"; {rules.named(sc, comp[loser_k].id)} {OUTCOME_TEXT.get(res.outcome.get(loser_k, ''), res.outcome.get(loser_k, ''))}"
        parts.append(text)
    elif res.columns:
        parts.append("drawn: the melee goes on")
    return f"Melee, {rules.named(sc, a.id)} against {rules.named(sc, b.id)}: " + "; ".join(parts)


def loser_test(sc, st: IWState, loser, res, k: str, outs: dict):
    """The loser's profile and morale modifiers as resolve_melee tested it (IW-H 6.4, 7.3), for
    the narrative: broken through disorders it first; its points after the round."""
    from dataclasses import replace
    p = profile_of(sc, st, loser)
    lost = res.points.get(k, 0)
    before = replace(p, points_lost=p.points_lost - lost if k in outs else p.points_lost)
    lc = replace(before, disordered=True, phalanx=False) if res.broken_through else before
    flanked = any(m.reason.startswith("fighting an enemy on its flank") for m in res.modifiers.get(k, []))
    margin = abs(res.points.get("a", 0) - res.points.get("b", 0))
    mm = completion.morale_modifiers(lc, margin=margin, flank=flanked, captain_fell=bool(res.captains.get(k)),
                                     points_after=before.full_points - before.points_lost - lost)
    return lc, mm


def _api():
    from engine.italianwars.movement import api
    return api


# -- the winner's choice ---------------------------------------------------------------------------------

def may_go_on(sc, st: IWState, c) -> tuple[bool, bool, str]:
    """(may, must, why not) follow up or pursue (IW-H 6.4, 9.2; HERALD D100)."""
    p = profile_of(sc, st, c)
    b = st.battles.get(c.battle)
    if c.status != "active":
        return False, False, f"it is {c.status}"
    if c.melee_with:
        return False, False, "another enemy holds it in melee"
    if p.role in ("shooting", "skirmishers") or p.kind == "artillery":
        return False, False, "shooting troops, skirmishers and guns never pursue"
    if p.igel:
        return False, False, "an Igel does not move"
    if p.cover == "defences":
        return False, False, "troops behind field defences stay behind them"
    cls = completion.pursuit_class(p)
    must = cls in completion.PURSUE_MUST or (b is not None and b.order in completion.PURSUE_MUST)
    return True, must, ""


def after_win(sc, st: IWState, winner, loser, what: str, face: str, stream) -> list[Event]:
    """The winner follows up (`what` "follow") or pursues ("pursue"), must, may, or never."""
    may, must, why = may_go_on(sc, st, winner)
    verb = "pursue" if what == "pursue" else "follow up"
    if not may:
        return [Event("stand", winner.side, completion.hcite("9.2" if what == "pursue" else "6.4"),
                      f"{rules.named(sc, winner.id)} does not {verb}: {why}", outcome={"company": winner.id, what: False})]
    if must:
        return go_on(sc, st, winner, loser, what, face, "must (Swiss, Gentlemen horse or Assault)")
    answer = rules.policy(st, winner.side, "pursue")
    if answer == "always":
        return go_on(sc, st, winner, loser, what, face, "by its standing answer")
    if answer == "never":
        return stand(sc, st, winner, what, "by its standing answer")
    options = ["pursue", "stand"] if what == "pursue" else ["follow", "stand"]
    st.pending = {"kind": "pursue", "side": winner.side, "options": options,
                  "labels": {"pursue": "Pursue", "follow": "Follow up", "stand": "Stand"},
                  "section": completion.hcite("9.2" if what == "pursue" else "6.4"), "default": "stand",
                  "prompt": (f"{rules.named(sc, winner.id)} won: "
                             + (f"pursue the routed {loser.id}, or stand?" if what == "pursue"
                                else f"follow up {loser.id} into contact (the melee goes on), or stand?")),
                  "company": winner.id, "enemy": loser.id, "what": what, "face": face}
    return []


def go_on(sc, st: IWState, winner, loser, what: str, face: str, why: str) -> list[Event]:
    if what == "pursue":
        winner.status = "pursuing"
        winner.pursuing = loser.id
        disorder(winner)
        st.last_action = {**st.last_action, "pursuer": winner.id}
        return [Event("pursue", winner.side, completion.hcite("9.2"),
                      f"{rules.named(sc, winner.id)} pursues {rules.named(sc, loser.id)} ({why}), disordered (IW Disordine)",
                      outcome={"company": winner.id, "pursuing": loser.id})]
    events = list(_api().close_to_contact(sc, st, winner, loser, face) or [])
    in_contact(st, winner, loser)
    return [Event("follow_up", winner.side, completion.hcite("6.4"),
                  f"{rules.named(sc, winner.id)} follows up {rules.named(sc, loser.id)} ({why}): the melee goes on next turn",
                  outcome={"company": winner.id, "enemy": loser.id})] + events


def stand(sc, st: IWState, winner, what: str, why: str) -> list[Event]:
    return [Event("stand", winner.side, completion.hcite("9.2" if what == "pursue" else "6.4"),
                  f"{rules.named(sc, winner.id)} stands ({why})", outcome={"company": winner.id, what: False})]


def resume_pursue(sc, st: IWState, side: str, answer: str, more, stream) -> list[Event]:
    p = st.pending
    st.pending = None
    winner, loser = st.companies[p["company"]], st.companies[p["enemy"]]
    if answer == "stand":
        events = stand(sc, st, winner, p["what"], "its player's choice")
    else:
        events = go_on(sc, st, winner, loser, p["what"], p.get("face", "front"), "its player's choice")
    act = st.activation or {}
    if act.get("step") == "melee" and act.get("ending"):
        events += fight_all(sc, st, stream)         # the rest of `pass`: the melees still to fight
    return events


def has_melees(sc, st: IWState, side: str) -> bool:
    """Step 2h waits while the acting battle has a melee not fought this turn (HERALD D98)."""
    act = st.activation or {}
    return bool(act.get("battle")) and act.get("side") == side and bool(unfought(st, act["battle"]))


def do_melee(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`melee <company>` (IW Azioni 2h; HERALD D98): fight now the melee of one of the acting
    battle's companies, in the order the player chooses (a push back or a rout may change the next
    fight); `pass` fights the rest, company by company in id order."""
    rules.need_phase(st, "actions", "Melees are fought", SECTION)
    act = st.activation or {}
    if act.get("step") != "melee":
        raise Illegal(f"melees are fought in step 2h: now step {act.get('step') or 'none'} "
                      "(pass to go on)", SECTION)
    if act.get("side") != side:
        raise Illegal(f"it is {act.get('side', '').title()}'s step", SECTION)
    if len(cmd.args) != 1:
        raise Illegal("usage: melee <company> (one of your acting battle's companies in contact)", SECTION)
    c = rules.company_of(sc, st, side, cmd.args[0])
    if c.battle != act.get("battle"):
        raise Illegal(f"{rules.named(sc, c.id)} is not of the acting battle ({rules.battle_name(sc, st, act['battle'])})",
                      SECTION)
    if not c.melee_with:
        raise Illegal(f"{rules.named(sc, c.id)} is in no melee", SECTION)
    if c.fought_turn == st.turn:
        raise Illegal(f"{rules.named(sc, c.id)} has fought this turn: a melee is fought once a turn (IW-H 6.5)",
                      SECTION)
    return fight(sc, st, c, stream)


rules.register("melee", do_melee, "melee <company>: fight that company's melee now (2h); pass fights the rest")
rules.register_reaction("pursue", resume_pursue)
rules.register_step("melee", check=has_melees, end=fight_all)
