"""First Newbury, 20 September 1643: the battle's special rules (book, "PRIMA NEWBURY", "Regole
speciali" 1-3; digest §7.2; DECISIONS.md D100). The file's [[special_rules]] carry the book's
words; the rule that needs the engine is played here, named by its `kind`.

    1. the Halt          `halt`, below
    2. Round Hill        5 VP to the Royalists for each of its hexes they hold at the end: the
                         file's victory hexes (`scenarios/first-newbury.toml`), scored by
                         `victory.victory_points` like every victory hex; no code of its own
    3. named farms       "no effect": nothing to play

The setup by areas and the cavalry pools (D94-D99) are the deployment phase of any battle whose
file asks for it (`sequence/deployment.py`).

Special rule 1, the Halt ("La battaglia iniziò la mattina presto e continuò tutto
il giorno..."): if no units are adjacent and no Parliament wing has Charge orders, the Royalist
may declare a halt. A halt lasts 4 turns; every wing of both sides goes back to Receive Charge
orders; every unit on the map returns to Normal morale and to Normal or Open formation; the
cavalry reloads both pistol shots; the effects of the Casualty Threshold (§11.5) stay.

    halt        the Royalist player declares a halt (the rule's `turns` long)

HERALD readings (DECISIONS.md D100):
- the halt is declared at the start of a turn's Activation Phase (§3.2), before any wing has
  activated and before either player has passed, so that it never cuts one side's activations
  short after the other's;
- it is a pause: the declaring turn is the first of its `turns` turns, nobody activates during
  them, and play resumes with the Initiative Phase (§4.1) of turn T + turns (the battle ends, as
  usual, if that is past the last turn). Each turn of the halt ends with its Marker Removal phase
  (§3.4, Leader Replacement rolls included); there is nothing to rout;
- "no units adjacent": no combat unit of either side next to an enemy one (gun markers, disabled
  or captured, §9.9.9, are not units);
- a unit at its casualty threshold returns to Shaken, never better (§11.5); column and hedgehog
  end (Normal), Open Order stays; every formation and morale marker of a gun goes too; disabled
  and captured guns stay as they are; casualties stay;
- the cavalry's reload restores the shots it may carry (`max_pistols`, two at First Newbury).
"""
from __future__ import annotations

from engine.core.errors import Illegal
from engine.core.events import Event

from engine.tacw.state import TacwState

USAGE = {"halt": ("halt: the Royalist declares a halt at the start of a turn: every wing to "
                  "Receive Charge, units to Normal morale and formation, cavalry reloads "
                  "(First Newbury special rule 1)")}


def _adjacent_pair(sc, st: TacwState):
    units = [u for u in st.units.values() if u.alive and not u.gun_state]
    for a in units:
        if a.side != "royalist":
            continue
        for b in units:
            if b.side == "parliament" and any(sc.grid.distance(h, k) <= 1
                                               for h in a.hexes for k in b.hexes):
                return a, b
    return None


def halt_problem(sc, st: TacwState, side: str) -> str | None:
    """Why a halt may not be declared now (None: it may)."""
    if side != "royalist":
        return "only the Royalist player may declare a halt"
    if st.phase != "activation" or st.activation is not None or st.pending:
        return ("a halt is declared in the Activation Phase, when no wing is active and no "
                "decision is waiting")
    if st.passes or any(w.activations for w in st.wings.values()) or st.last_activator:
        return ("a halt is declared at the start of a turn's Activation Phase, before any wing "
                "activates or either player passes")
    pair = _adjacent_pair(sc, st)
    if pair:
        a, b = pair
        return f"units are adjacent: {a.called} ({'&'.join(a.hexes)}) and {b.called} ({'&'.join(b.hexes)})"
    charging = [w.name for w in st.wings.values() if w.side == "parliament" and w.order == "charge"]
    if charging:
        return f"a Parliament wing is on Charge orders: {charging[0]}"
    return None


def halt_effects(st: TacwState) -> None:
    """What a halt does to the armies (First Newbury special rule 1)."""
    for w in st.wings.values():
        w.order = "receive_charge"
    for u in st.units.values():
        if not u.alive:
            continue
        u.morale_state = "shaken" if u.at_threshold else "normal"     # §11.5 stays
        u.formation = "normal"
        u.special_formation = "open" if u.special_formation == "open" else ""
        if u.kind == "cavalry":
            u.pistols = u.max_pistols


def do_halt(sc, st: TacwState, side, cmd, stream) -> list[Event]:
    from engine.tacw.sequence.endturn import marker_removal
    from engine.tacw.victory import end_of_battle
    rule = sc.special_rule("halt")
    if rule is None:
        raise Illegal(f"{sc.title} has no halt rule", "TACW scenario special rules")
    sec = f"TACW {sc.title} special rule: {rule.name}"
    problem = halt_problem(sc, st, side)
    if problem:
        raise Illegal(problem, sec)
    first = st.turn
    last = first + rule.turns - 1
    halt_effects(st)
    st.activation = None
    events = [Event("halt", side, sec,
                    f"The Royalists declare a halt for turns {first}-{min(last, sc.turns)}: every wing "
                    "returns to Receive Charge, every unit to Normal morale and formation (Open "
                    "Order stays; a unit at its casualty threshold stays Shaken), the cavalry reloads",
                    outcome={"first_turn": first, "turns": rule.turns})]
    while True:
        events.append(Event("phase", "both", sec, f"Turn {st.turn}: the halt"))
        events += marker_removal(sc, st, stream)
        if st.turn >= sc.turns:
            return events + end_of_battle(sc, st)
        st.turn += 1
        if st.turn > last:
            break
    st.phase = "initiative"
    st.passes, st.last_activator, st.phasing, st.initiative = 0, "", "", ""
    events.append(Event("halt", side, sec, f"The halt ends: turn {st.turn} begins"))
    return events


def _register() -> None:
    from engine.tacw.rules import register
    register("halt", do_halt, USAGE["halt"])


_register()
