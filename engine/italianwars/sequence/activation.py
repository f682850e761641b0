"""Phase 2, the actions (IW Azioni: IW Il Giocatore Attivo, IW Attivazione delle Battaglie, IW
Tabella 6), and the activation's steps 2a-2h as a state machine.

"L'attaccante è sempre il primo giocatore attivo in un turno, dopodiché si continua alternando
l'attivazione di una battaglia per parte." "Se la battaglia fallisce l'attivazione, la mano passa
all'avversario. Quando le compagnie di una battaglia hanno terminato le proprie azioni, la mano
passa all'avversario. Le battaglie possono essere attivate una sola volta per turno." "Il gioco
ritorna alla fase 2 finché tutti i giocatori non avranno tentato di attivare tutte le proprie
battaglie." A side whose battles have all been tried leaves the hand to the other until he too is
done (HERALD D55).

Tabella 6: the minimum on 1D6 by the morale class of the battle commander's company
(Professionals 2, Gentlemen 3, Mercenaries 4, Militia 5, Rabble 6), modified Rash +1, Timid -1;
the two garbled lines read as off the table +1 and activated in the previous turn -1 (HERALD
D58). The C-in-C's battle never tests: it activates by itself.

An activated battle's steps (`st.activation = {"battle", "side", "step"}`): declare (2b, the
charges: sequence/charges.py), manoeuvre (2c), move (2d), shoot (2e), respond (2f, the charged
side's), close (2g), melee (2h). At each step the modules registered for it
(`rules.register_step`) say whether the acting side has anything to do; if so the walk waits for
his actions and his `pass`; a step nobody registered, or with nothing to do, passes by itself
(HERALD D54). After 2h the hand passes.

A battle that failed (or was not yet activated) keeps what the text allows
("Le compagnie delle battaglie che non si sono attivate possono comunque"): `still_allowed`.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import Event, Modifier

from engine.italianwars import checks, rules, tables
from engine.italianwars.public import reveal
from engine.italianwars.state import ACTIVATION_STEPS, IWState

SECTION = "IW Attivazione delle Battaglie"
S_T6 = "IW Tabella 6"
S_ACTIVE = "IW Il Giocatore Attivo"
# Tabella 6 Attivazione delle Battaglie (valore minimo da ottenere al lancio del dado)
ACTIVATION_MINIMUM = tables.ACTIVATION_MINIMUM
RASH, TIMID = tables.ACTIVATION_MODIFIERS["rash"], tables.ACTIVATION_MODIFIERS["timid"]
OFF_TABLE, ACTIVATED_LAST = tables.ACTIVATION_MODIFIERS["off_table"], tables.ACTIVATION_MODIFIERS["activated_last"]
STEP_SECTIONS = {"declare": "IW Azioni 2b", "manoeuvre": "IW Azioni 2c", "move": "IW Azioni 2d",
                 "shoot": "IW Azioni 2e", "respond": "IW Azioni 2f", "close": "IW Azioni 2g",
                 "melee": "IW Azioni 2h"}


def begin(sc, st: IWState) -> list[Event]:
    """The actions phase begins: the attacker is the first active player."""
    st.phase = "actions"
    st.activation = {}
    st.active_side = st.attacker or "french"
    for b in st.battles.values():
        b.activated = False
        b.failed = False
    return [Event("actions", st.active_side, S_ACTIVE,
                  f"Turn {st.turn}, the actions: {st.active_side.title()}, the attacker, activates first",
                  outcome={"turn": st.turn, "active": st.active_side})]


def untried(st: IWState, side: str) -> list:
    """`side`'s battles still to try this turn: not yet tried, with companies on the table."""
    out = []
    for b in sorted(st.battles.values(), key=lambda b: b.id):
        if b.side != side or b.activated:
            continue
        if any(c.battle == b.id and c.alive for c in st.companies.values()):
            out.append(b)
    return out


def acting_side(st: IWState) -> str | None:
    """Who acts in the actions phase: in an activation's respond step (2f) the charged side, else
    the active side."""
    act = st.activation or {}
    if act.get("battle"):
        if act.get("step") == "respond":
            return st.other(act["side"])
        return act["side"]
    return st.active_side or None


def step(sc, st: IWState, stream: DiceStream) -> tuple[list[Event], bool]:
    """Walk the actions: an activation in progress goes through its steps; else the active side
    chooses a battle; when both sides have tried every battle, phase 3 begins."""
    act = st.activation or {}
    if act.get("battle"):
        return walk_steps(sc, st, stream)
    side = st.active_side
    if side and untried(st, side):
        return [], True
    other = st.other(side) if side else st.attacker
    if other and untried(st, other):
        st.active_side = other
        return [], True
    st.phase = "rout"
    st.active_side = ""
    return [Event("actions_done", "", S_ACTIVE, "Every battle has been tried: the rout phase (3)",
                  outcome={"turn": st.turn})], False


def hand_passes(st: IWState) -> None:
    """The hand passes to the opponent (who keeps it while the active side has nothing left)."""
    side = st.active_side
    other = st.other(side)
    st.active_side = other if untried(st, other) else side


def step_has_work(sc, st: IWState, name: str, side: str) -> bool:
    checks_ = rules.STEP_CHECKS.get(name, [])
    return any(check(sc, st, side) for check in checks_)


def walk_steps(sc, st: IWState, stream: DiceStream) -> tuple[list[Event], bool]:
    """From the current step on: run what Herald does there, wait where the acting side has
    something to do (`waiting` marks that the step began), pass the others."""
    events: list[Event] = []
    act = st.activation
    while True:
        name = act["step"]
        if name == "done":
            events += end_activation(sc, st)
            return events, False
        if not act.get("begun"):
            act["begun"] = True
            for run in rules.STEP_RUNS.get(name, []):
                events += list(run(sc, st, stream) or [])
                if st.pending or st.phase == "over":
                    return events, True
        side = acting_side(st)
        if step_has_work(sc, st, name, side):
            return events, True
        next_activation_step(st)


def next_activation_step(st: IWState) -> None:
    act = st.activation
    act["step"] = ACTIVATION_STEPS[ACTIVATION_STEPS.index(act["step"]) + 1]
    act["begun"] = False
    act.pop("ending", None)


def end_activation(sc, st: IWState) -> list[Event]:
    from engine.italianwars.sequence.cohesion import cohesion_events
    bid, side = st.activation["battle"], st.activation["side"]
    events = cohesion_events(sc, st, bid)
    events.append(Event("activation_done", side, S_ACTIVE,
                        f"{rules.battle_name(sc, st, bid)} has done its actions: the hand passes",
                        outcome={"battle": bid}))
    st.activation = {}
    hand_passes(st)
    return events


def dawn_blind(sc, st: IWState, b) -> bool:
    """IW Assalto all'alba: the defender's troops "non possono fare alcun azione finché il nemico
    non diviene visibile" (HERALD D56: per battle: until one of its companies sees an enemy)."""
    from engine.italianwars.sequence.command import sees
    from engine.italianwars.sequence.prebattle import defender
    if not st.options.get("dawn_assault") or b.side != defender(st):
        return False
    if st.options.get("dawn_seen", {}).get(b.id):
        return False
    mine = [c for c in st.companies.values() if c.battle == b.id and c.alive]
    theirs = [c for c in st.companies.values() if c.side != b.side and c.alive and c.status != "waiting"]
    if any(sees(sc, st, c, e) for c in mine for e in theirs):
        st.options.setdefault("dawn_seen", {})[b.id] = True
        return False
    return True


def activation_modifiers(sc, st: IWState, b) -> list[Modifier]:
    """IW Tabella 6's modifiers (HERALD D10)."""
    mods = []
    c = st.companies.get(b.commander)
    captain = c.captain if c is not None else ""
    if captain == "rash":
        mods.append(Modifier(RASH, "Rash commander (Comandante Irruento)", S_T6))
    elif captain == "timid":
        mods.append(Modifier(TIMID, "Timid commander (Comandante Timoroso)", S_T6))
    if b.off_table:
        mods.append(Modifier(OFF_TABLE, "the battle is off the table (HERALD D10)", S_T6))
    if b.activated_last:
        mods.append(Modifier(ACTIVATED_LAST, "the battle was activated in the previous turn (HERALD D10)", S_T6))
    return mods


def activation_minimum(sc, st: IWState, b) -> tuple[int, str]:
    morale = rules.morale_of(sc, st, b.commander)
    return ACTIVATION_MINIMUM.get(morale, 6), morale


def do_activate(sc, st: IWState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`activate <battle>` (IW Attivazione delle Battaglie, IW Tabella 6)."""
    rules.need_phase(st, "actions", "Battles are activated", S_ACTIVE)
    if st.activation.get("battle"):
        raise Illegal(f"{rules.battle_name(sc, st, st.activation['battle'])} is acting "
                      f"(step {st.activation['step']}): finish it with `pass`", S_ACTIVE)
    if st.active_side != side:
        raise Illegal(f"it is {st.active_side.title()}'s turn to activate a battle", S_ACTIVE)
    if len(cmd.args) != 1:
        raise Illegal("usage: activate <battle>", S_ACTIVE)
    b = rules.battle_of(sc, st, side, cmd.args[0])
    name = rules.battle_name(sc, st, b.id)
    if b.activated:
        raise Illegal(f"{name} has already been tried this turn: a battle activates once a turn", S_ACTIVE)
    if b not in untried(st, side) and not any(c.battle == b.id and c.alive for c in st.companies.values()):
        raise Illegal(f"{name} has no company left on the table", S_ACTIVE)
    b.activated = True
    if dawn_blind(sc, st, b):
        b.failed = True
        hand_passes(st)
        return [Event("activation", side, "IW Assalto all'alba",
                      f"{name} cannot act: surprised at dawn, it sees no enemy yet",
                      outcome={"battle": b.id, "activated": False, "dawn": True})]
    if b.cinc:
        events = [Event("activation", side, SECTION,
                        f"{name}, the Commander-in-Chief's battle, activates without a test",
                        outcome={"battle": b.id, "activated": True, "tested": False})]
        return events + activated(sc, st, b)
    minimum, morale = activation_minimum(sc, st, b)
    mods = activation_modifiers(sc, st, b)
    value, dice = checks.d6(st, stream, side, f"activation of {b.id}")
    total = value + sum(m.value for m in mods)
    ok = total >= minimum
    dice[-1].effect = "activated" if ok else "fails"
    mod_text = "".join(f" {m.value:+d}" for m in mods)
    sacrificed = checks.sacrificed(dice)
    extra = " (a 6 sacrificed for a new order, rolled again)" * (1 if sacrificed else 0)
    text = (f"{name} ({morale} commander, needs {minimum}): d6 {value}{mod_text} = {total}{extra}: "
            + ("activated" if ok else "fails: its companies may only shoot (2e) and fight their melees (2h), "
               "then the hand passes"))
    events = [Event("activation", side, S_T6, text, base=value, modifiers=mods, dice=dice,
                    table="Tabella 6 Attivazione delle Battaglie", row=f"{morale} {minimum}",
                    outcome={"battle": b.id, "activated": ok, "minimum": minimum, "total": total,
                             "sacrificed": sacrificed})]
    if not ok:
        b.failed = True
        st.activation = failed_activation(b)
        return events
    return events + activated(sc, st, b)


def failed_activation(b) -> dict:
    """A battle that failed its test keeps what IW Attivazione delle Battaglie allows: its
    companies may "aprire il fuoco contro nemici in vista" and those "già in mischia, conducono
    comunque la fase di risoluzione delle mischie" (HERALD D92): its activation goes on from step
    2e (shooting) to 2h (melee), where only those happen; then the hand passes."""
    return {"battle": b.id, "side": b.side, "step": "shoot", "begun": False, "failed": True}


def activated(sc, st: IWState, b) -> list[Event]:
    """The battle acts on its order: the order is revealed (HERALD D4) and its steps begin."""
    events = []
    written = (st.secrets.get(b.side) or {}).get("orders", {}).pop(b.id, None)
    if written:
        reveal(st, written["key"])
    if not b.revealed:
        b.revealed = True
        events.append(Event("order_revealed", b.side, "IW Ordini",
                            f"{rules.battle_name(sc, st, b.id)} acts on its order: {b.order.title()}"
                            + (f" ({b.objective})" if b.objective else ""),
                            outcome={"battle": b.id, "order": b.order, "objective": b.objective}))
    st.activation = {"battle": b.id, "side": b.side, "step": "declare", "begun": False}
    return events


def do_pass(sc, st: IWState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`pass`: the acting side ends the current step of the activation (IW Azioni 2b-2h). In the
    charge step a company whose order obliges it to charge and that can must declare first
    (sequence/charges.py)."""
    rules.need_not_over(st)
    act = st.activation or {}
    if st.phase != "actions" or not act.get("battle"):
        raise Illegal(f"no step to end: {rules.describe_place(st.phase, st.step)}"
                      + (" (choose a battle with `activate`)" if st.phase == "actions" else ""), S_ACTIVE)
    if acting_side(st) != side:
        raise Illegal(f"it is {acting_side(st).title()}'s step", STEP_SECTIONS.get(act["step"], S_ACTIVE))
    if act["step"] == "declare":
        from engine.italianwars.sequence.charges import obliged_without_charge
        left = obliged_without_charge(sc, st, act["battle"])
        if left:
            raise Illegal("these companies must charge, their order obliges them and an enemy is within their move: "
                          + ", ".join(f"{rules.named(sc, c)} (e.g. on {t})" for c, t in left), "IW Definizione degli ordini di gioco")
    name = act["step"]
    events = [Event("step_done", side, STEP_SECTIONS.get(name, S_ACTIVE),
                    f"{side.title()} ends step {name} of {rules.battle_name(sc, st, act['battle'])}",
                    outcome={"battle": act["battle"], "step": name})]
    act["ending"] = True            # a decision met here resumes the step's end (combat/melee.py)
    for end in rules.STEP_ENDS.get(name, []):
        events += list(end(sc, st, stream) or [])
        if st.pending or st.phase == "over":
            return events           # the step ends once the decision is answered (nothing left to do)
    next_activation_step(st)
    return events


def still_allowed(sc, st: IWState, company) -> tuple[str, ...]:
    """What a company of a battle that did not activate (or failed) may still do (IW Attivazione
    delle Battaglie): "aprire il fuoco contro nemici in vista" ("shoot"); charge an enemy within
    its move if its order obliges it ("forced_charge"); artillery that began limbering last turn
    finishes ("limber"); companies already in melee fight it out ("melee"). A company that evaded
    a charge does nothing when its battle activates (IW Il Giocatore Attivo); routing and
    pursuing companies move only in phases 3 and 4."""
    if company.evaded or company.status in ("routing", "pursuing"):
        return ("melee",) if company.in_melee else ()
    b = st.battles.get(company.battle)
    out = ["shoot"]
    if b is not None and b.order in ("assault", "attack", "occupy"):
        out.append("forced_charge")
    if company.limbering:
        out.append("limber")
    if company.in_melee:
        out.append("melee")
    return tuple(out)


def may_act(sc, st: IWState, company) -> bool:
    """Whether a company belongs to the battle acting now and may take its actions (not evaded,
    not routing or pursuing: IW Il Giocatore Attivo)."""
    act = st.activation or {}
    return (act.get("battle") == company.battle and company.alive and not company.evaded
            and company.status == "active")


rules.register("activate", do_activate, "activate <battle>: try to activate a battle (Tabella 6)")
rules.register("pass", do_pass, "pass: end the current step of your activation")
