"""Phase 6, the end of the turn (IW Sequenza di mossa 6, IW Punto di rottura dell'esercito), and
the day's clock (IW Notte e giorno).

"Ogni esercito ha un punteggio che rappresenta la forza dell'esercito. Ogni Compagnia ha un valore
in funzione del proprio morale (Tabella 1) ... I punti di comando sono perduti quando la compagnia
è perduta (fuori tavolo, in rotta, distrutta, o soggetta ad ordini di ritirata). Quando più della
metà della forza dell'esercito è perduta, la battaglia è conclusa, il morale dell'esercito è
rotto, ed il resto dei punti di comando è perduto. Quando il morale dell'esercito è rotto, tutte
le battaglie rimanenti cambieranno il proprio ordine in Ritirata." The camp counts 3 points (IW
Accampamento).

The clock: "il tramonto inizia al turno 16 e sarà buio al turno 18. L'alba si alza al turno 2 e
continua fino al turno 3" (the day's hour, `IWState.clock`, one an hour a turn).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import Event

from engine.italianwars import rules, tables
from engine.italianwars.state import SIDES, IWState

SECTION = "IW Punto di rottura dell'esercito"
# Tabella 1 – Punti di Comando
COMMAND_POINTS = tables.COMMAND_POINTS
CAMP_POINTS = tables.CAMP_POINTS    # IW Accampamento
DAWN, DUSK, DARK = tables.DAWN, tables.DUSK, tables.DARK   # IW Notte e giorno
PER_TURN = {"evaded": False, "in_melee": False, "shot": False, "moved": False}


def command_points(sc, st: IWState, cid: str) -> int:
    """IW Tabella 1: a company's command points by its morale class."""
    return tables.command_points(rules.morale_of(sc, st, cid))


def company_lost(st: IWState, c) -> bool:
    """"fuori tavolo, in rotta, distrutta, o soggetta ad ordini di ritirata" (IW Punto di
    rottura); a company not yet on the table (status "waiting") is not lost."""
    if c.status in ("off", "routing", "destroyed"):
        return True
    b = st.battles.get(c.battle)
    return b is not None and b.order == "retreat"


def army_losses(sc, st: IWState, side: str) -> dict:
    """`side`'s strength (Tabella 1 for every company + 3 for the camp) and the points lost now
    (companies lost, the camp if lost); `broken` when more than half is lost (exactly half is
    not: "più della metà")."""
    comps = [c for c in st.companies.values() if c.side == side]
    strength = sum(command_points(sc, st, c.id) for c in comps) + CAMP_POINTS
    lost = sum(command_points(sc, st, c.id) for c in comps if company_lost(st, c))
    army = st.armies.get(side)
    if army is not None and army.camp_lost:
        lost += CAMP_POINTS
    if army is not None and army.broken:
        lost = strength                # "il resto dei punti di comando è perduto"
    return {"strength": strength, "lost": lost, "broken": tables.army_broken(lost, strength)}


def light_of(clock: int) -> str:
    """IW Notte e giorno: "dawn" at hours 2-3, "dusk" 16-17, "night" from 18, else "day"."""
    return tables.day_phase(clock)


def visibility(st: IWState) -> float | None:
    """How far troops see (UDM), None for the whole field (IW Visibilità, IW Tempo atmosferico;
    tables.visibility, HERALD D20); a battle's moonless night by `st.options["moonless"]`."""
    return tables.visibility(st.weather or "good", light_of(st.clock), bool(st.options.get("moonless")))


def check_break(sc, st: IWState) -> list[Event]:
    """Phase 6: each army's losses against half its strength; a broken army's battles all go to
    Retreat and the battle ends (both broken: a draw)."""
    events = []
    broken = []
    for side in SIDES:
        if side not in st.armies:
            continue
        loss = army_losses(sc, st, side)
        army = st.armies[side]
        army.strength = loss["strength"]
        half = loss["strength"] / 2
        if loss["broken"] and not army.broken:
            broken.append(side)
            events.append(Event("army_break", side, SECTION,
                                f"{side.title()} has lost {loss['lost']} of {loss['strength']} command points, "
                                f"more than half ({half:g}): its army's morale is broken; every battle retreats",
                                base=loss["lost"], table="Tabella 1 – Punti di Comando",
                                row=f"{loss['lost']} > {half:g}",
                                outcome={"side": side, "lost": loss["lost"], "strength": loss["strength"], "broken": True}))
        else:
            events.append(Event("army_check", side, SECTION,
                                f"{side.title()} has lost {loss['lost']} of {loss['strength']} command points "
                                f"(breaks above {half:g})",
                                outcome={"side": side, "lost": loss["lost"], "strength": loss["strength"], "broken": False}))
    for side in broken:
        army = st.armies[side]
        army.broken = True
        for b in sorted(st.battles.values(), key=lambda b: b.id):
            if b.side == side and b.order != "retreat":
                b.order = "retreat"
                b.revealed = True
    if broken:
        if len(broken) == 2:
            st.winner = None
            st.result = "both armies broke in the same turn: a draw"
        else:
            st.winner = st.other(broken[0])
            st.result = f"{broken[0].title()}'s army is broken; {st.winner.title()} wins"
        st.phase = "over"
        events.append(Event("battle_over", st.winner or "", SECTION, f"The battle is over: {st.result}",
                            outcome={"winner": st.winner, "result": st.result}))
    return events


def clear_turn_marks(sc, st: IWState) -> None:
    """The marks that last one turn: a company's evasion, charge, melee, shooting and move; a
    battle's activation (remembered as last turn's, IW Tabella 6); the C-in-C's company's deeds
    remembered for the next command phase (IW Emanazione di nuovi ordini)."""
    for side, army in st.armies.items():
        cinc = cinc_company(st, side)
        army.cinc_busy = bool(cinc is not None and (cinc.charge or cinc.in_melee
                                                    or cinc.status in ("routing", "pursuing")))
    for c in st.companies.values():
        for k, v in PER_TURN.items():
            setattr(c, k, v)
        c.charge = {}
    for b in st.battles.values():
        b.activated_last = b.activated and not b.failed
        b.activated = False
        b.failed = False
    st.activation = {}
    st.active_side = ""


def cinc_company(st: IWState, side: str):
    for b in sorted(st.battles.values(), key=lambda b: b.id):
        if b.side == side and b.cinc:
            return st.companies.get(b.commander)
    return None


def turn_limit(sc) -> int:
    return int(getattr(sc, "turn_limit", 0) or 0)


def end_of_day(sc, st: IWState, why: str) -> list[Event]:
    """HERALD D46: the battle ends at the end of clock turn 18 (or the scenario's last turn); an
    unbroken army that lost the smaller share of its strength holds the field; equal shares: a
    draw."""
    share = {}
    for side in SIDES:
        if side in st.armies:
            loss = army_losses(sc, st, side)
            share[side] = loss["lost"] / loss["strength"] if loss["strength"] else 0.0
    a, b = SIDES
    if share.get(a, 0) == share.get(b, 0):
        st.winner = None
        st.result = f"the battle ends undecided: {why}"
    else:
        st.winner = a if share[a] < share[b] else b
        st.result = (f"{st.winner.title()} holds the field ({share[st.winner]:.0%} of its strength lost to "
                     f"{share[st.other(st.winner)]:.0%}): {why}")
    st.phase = "over"
    return [Event("battle_over", st.winner or "", "IW Notte e giorno", f"The battle is over: {st.result}",
                  outcome={"winner": st.winner, "result": st.result, "share_lost": share})]


def end_of_turn(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """Phase 6, then the next turn: army break; the marks of the turn cleared; the clock one hour
    on (dusk at 16; the end of clock turn 18 ends the battle, HERALD D46; a scenario's turn limit
    too); the next turn begins with its command phase."""
    events = check_break(sc, st)
    if st.phase == "over":
        return events
    clear_turn_marks(sc, st)
    events.append(Event("end_turn", "", "IW Sequenza di mossa 6", f"Turn {st.turn} ends (hour {st.clock})",
                        outcome={"turn": st.turn, "clock": st.clock}))
    limit = turn_limit(sc)
    if st.clock >= DARK or (limit and st.turn >= limit):
        events += end_of_day(sc, st, "night has fallen (IW Notte e giorno; HERALD D46)" if st.clock >= DARK
                             else f"turn {st.turn} was the battle's last")
        return events
    st.turn += 1
    st.clock += 1
    st.phase = "command"
    st.done = []
    light = light_of(st.clock)
    note = {"dusk": ": dusk (IW Notte e giorno)", "dawn": ": dawn (IW Notte e giorno)"}.get(light, "")
    events.append(Event("new_turn", "", "IW Sequenza di mossa", f"Turn {st.turn} begins at hour {st.clock}{note}",
                        outcome={"turn": st.turn, "clock": st.clock, "light": light}))
    return events
