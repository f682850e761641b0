"""Camps (accampamenti) [12 A]: garrison, capture, recapture, looting and the roll to leave.

[12 A] "Ciascun esercito ha i propri Accampamenti che non possono muovere, né hanno proprie
capacità di combattimento, ma possono essere presidiati -e catturati- da una basetta. Ai fini
della Demoralizzazione e della determinazione del vincitore gli Accampamenti, al momento della
loro cattura da parte dell'avversario, contano come 2 basette se l'esercito è addestrato, 3 se
regolare, 5 se irregolare. La ricattura del proprio accampamento non ha effetto sulla
demoralizzazione dell'esercito ma conta contro le perdite totali al momento della determinazione
del vincitore. Unità intente al saccheggio di un accampamento avversario devono lanciare un d6 se
il giocatore vuole farle uscire dall'accampamento: con 1,2,3 le unità rimangono all'interno
dell'accampamento e sono considerate come disordinate. La presenza di un generale con l'unità
somma 1 al risultato del dado."

Herald reads the table after every command (`update`, HERALD D53): a unit "in" a camp is one
whose base touches or overlaps the camp's 9 x 6 cm rectangle (D3's contact);
- the owner's first infantry or cavalry unit in its camp garrisons it; a garrison holds it (the
  enemy must beat the garrison in melee first);
- an enemy infantry or cavalry unit in an ungarrisoned camp captures it: every enemy unit then in
  it loots (`unit.looting`: counts as disordered [9 A]) until a `leave` roll of 4-6;
- the owner retakes its camp when one of its units is in it and no enemy unit is (`recaptured`).
The losses are counted in checks.weighted_losses.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import Event, Modifier
from engine.core.table.geometry import CONTACT_TOL

from engine.lion import checks, rules, tables
from engine.lion.rules import named
from engine.lion.state import LionState

HOLDING_ARMS = ("infantry", "cavalry")


def in_camp(camp, unit) -> bool:
    """The unit's base touches or overlaps the camp (HERALD D3, D53)."""
    return checks.within(camp, unit, CONTACT_TOL)


def holders(st: LionState, camp) -> list:
    """The live infantry and cavalry units in the camp, by id."""
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and tables.troop(u.type).arm in HOLDING_ARMS and in_camp(camp, u)]


def update(sc, st: LionState) -> list[Event]:
    """Garrison, capture and recapture, as the bases stand now [12 A] (HERALD D53)."""
    events: list[Event] = []
    for side in sorted(st.camps):
        camp = st.camps[side]
        inside = holders(st, camp)
        own = [u for u in inside if checks.controller(u) == side]
        enemy = [u for u in inside if checks.controller(u) != side]
        if camp.garrison:
            g = st.units.get(camp.garrison)
            if g is None or g not in own:
                events.append(Event("camp", side, "LdN [12 A]",
                                    f"{named(sc, camp.garrison)} no longer garrisons the {side.title()} camp"))
                camp.garrison = ""
        camp.looters = [uid for uid in camp.looters if uid in st.units and st.units[uid].alive
                        and st.units[uid].looting]
        if not camp.captured_by:
            if not camp.garrison and own:
                camp.garrison = own[0].id
                events.append(Event("camp", side, "LdN [12 A]",
                                    f"{named(sc, own[0].id)} garrisons the {side.title()} camp",
                                    outcome={"camp": side, "garrison": own[0].id}))
            if not camp.garrison and enemy:
                captor = checks.controller(enemy[0])
                camp.captured_by = captor
                camp.recaptured = False
                for u in enemy:
                    u.looting = True
                    if u.id not in camp.looters:
                        camp.looters.append(u.id)
                army = st.armies.get(side)
                value = checks.camp_value(army.discipline) if army else 0
                events.append(Event("camp_captured", captor, "LdN [12 A]",
                                    f"{named(sc, enemy[0].id)} captures the {side.title()} camp: it counts as "
                                    f"{value} units lost; {', '.join(u.id for u in enemy)} loot it (disordered "
                                    "until they leave)",
                                    outcome={"camp": side, "by": captor, "looters": [u.id for u in enemy],
                                             "value": value}))
        elif own and not enemy:
            captor = camp.captured_by
            camp.captured_by = ""
            camp.recaptured = True
            camp.garrison = own[0].id
            for uid in camp.looters:
                if uid in st.units:
                    st.units[uid].looting = False
            camp.looters = []
            events.append(Event("camp_recaptured", side, "LdN [12 A]",
                                f"{named(sc, own[0].id)} retakes the {side.title()} camp from {captor.title()}: no "
                                "longer a loss for demoralisation, still one for victory",
                                outcome={"camp": side, "by": side}))
    return events


def camp_looted_by(st: LionState, unit) -> str:
    """The side whose camp `unit` is looting, or ""."""
    for side in sorted(st.camps):
        if unit.id in st.camps[side].looters:
            return side
    return ""


def do_leave(sc, st: LionState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`leave <unit>` on your move card [12 A]: a d6 (+1 with a general attached, the unit's
    quality [troop chart]); 1-3 it stays in the camp, disordered, and does not move this card
    (HERALD D54); 4+ it stops looting and may move."""
    rules.need_card(st, side, ("move",), sc)
    if not cmd.args:
        raise Illegal("usage: leave <unit>: a unit of yours looting an enemy camp", "LdN [12 A]")
    unit = rules.unit_of(sc, st, side, cmd.args[0])
    if not unit.looting:
        raise Illegal(f"{named(sc, unit.id)} is not looting an enemy camp", "LdN [12 A]")
    if unit.moved:
        raise Illegal(f"{named(sc, unit.id)} has already moved or tried to leave on this card", "LdN [12 A], HERALD D8")
    value, dr = checks.roll(stream, tables.LOOT_EXIT["die"], f"{unit.id} leaves the camp", side)
    mods = []
    if any(g.alive and g.side == side and g.attached_to == unit.id for g in st.generals.values()):
        mods.append(Modifier(tables.LOOT_EXIT["general_bonus"], "a general with the unit", "LdN [12 A]"))
    q = checks.quality_modifier(sc, unit)
    if q is not None:
        mods.append(q)
    total = value + sum(m.value for m in mods)
    stays = total <= tables.LOOT_EXIT["stay"][1]
    camp_side = camp_looted_by(st, unit)
    mod_text = "".join(f" {m.value:+d}" for m in mods)
    if stays:
        unit.moved = True
        dr.effect = "stays looting"
        text = f"{named(sc, unit.id)} tries to leave the camp: d6 {value}{mod_text} = {total}: it stays, looting (disordered)"
    else:
        unit.looting = False
        if camp_side:
            st.camps[camp_side].looters = [u for u in st.camps[camp_side].looters if u != unit.id]
        dr.effect = "leaves"
        text = f"{named(sc, unit.id)} tries to leave the camp: d6 {value}{mod_text} = {total}: it stops looting and may move"
    return [Event("leave_camp", side, "LdN [12 A]", text, modifiers=mods, dice=[dr],
                  table="leave the camp: d6, 1-3 stays", outcome={"unit": unit.id, "left": not stays, "total": total})]


rules.register("leave", do_leave, "leave <unit>: looters try to leave the enemy camp, d6 4-6 (LdN [12 A])")
