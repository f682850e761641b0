"""Phase 1, the command phase (IW Fase di Comando: IW Emanazione di nuovi ordini, IW
Interpretazione degli ordini, IW Tabella 5).

"Durante la fase di comando di ogni turno (eccetto il primo) il giocatore può cambiare gli ordini
delle proprie battaglie. Per ogni nuovo ordine il giocatore dovrà 'sacrificare un 6'." "Se la
compagnia del comandante in capo ha dichiarato una carica, ha inseguito, è andata in rotta o ha
combattuto nel turno precedente o è soggetta ad ordine di Assalto, non è permesso emanare nuovi
ordini, così come se il comandante in capo è stato ucciso o catturato." "Gli ordini vengono
eseguiti dopo la verifica del test."

Both players write their new orders and bribes in secret (`order`, `bribe`), then `keep`; when
both are done Herald rolls every test, the attacker's battles first, each battle by its id:
1D6 + Tabella 5 (Rash or Timid +2, Unpredictable or Cautious +1, Reliable -1, sworn enemies in
sight +1, each Ecu spent +/-1, none on Gentlemen); 6 or more: not understood, and the order
becomes, by the commander's personality, Assault (Rash), Attack or Hesitate if Attack was given
(Unpredictable), Hold or Hesitate if Hold was given (Reliable, Cautious), Hesitate (Timid). The
Commander-in-Chief's battle never tests. Turn 1 has no command phase (its orders were written the
day before and are understood).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import Event, Modifier

from engine.italianwars import checks, rules, tables
from engine.italianwars.public import reveal
from engine.italianwars.state import IWState

SECTION = "IW Fase di Comando"
S_NEW = "IW Emanazione di nuovi ordini"
S_TEST = "IW Interpretazione degli ordini"
S_T5 = "IW Tabella 5"
# Tabella 5 Modificatori
PERSONALITY_MODIFIER = tables.INTERPRETATION_MODIFIERS
SWORN_ENEMY_MODIFIER = tables.SWORN_ENEMY_MODIFIER
FAIL_AT = tables.INTERPRETATION_FAILS_AT     # "Un risultato di 6 o più"
PERSONALITY_TEXT = {"rash": "Rash (Irruento)", "unpredictable": "Unpredictable (Imprevedibile)",
                    "reliable": "Reliable (Affidabile)", "cautious": "Cautious (Prudente)", "timid": "Timid (Timoroso)"}


def failed_order(personality: str, given: str) -> str:
    """IW Interpretazione degli ordini, Risultato: the order a commander takes when the test fails."""
    return tables.failed_order(personality, given)


def commander_of(st: IWState, battle) -> object | None:
    return st.companies.get(battle.commander)


def personality_of(st: IWState, battle) -> str:
    c = commander_of(st, battle)
    return (c.captain if c is not None else "") or "reliable"


def new_orders_forbidden(sc, st: IWState, side: str) -> str:
    """Why `side` may give no new orders this turn ("" when it may), IW Emanazione di nuovi ordini."""
    if st.turn <= 1:
        return "no new orders on turn 1: the orders written before the battle stand"
    army = st.armies[side]
    if army.broken:
        return "the army is broken: every battle retreats"
    cinc_battle = next((b for b in sorted(st.battles.values(), key=lambda b: b.id) if b.side == side and b.cinc), None)
    if cinc_battle is None:
        return ""
    c = st.companies.get(cinc_battle.commander)
    if c is None or c.captain_lost or c.status in ("destroyed", "off"):
        lost = (c.captain_lost if c is not None and c.captain_lost else "lost")
        return f"the Commander-in-Chief has been {lost}"
    if cinc_battle.order == "assault":
        return "the Commander-in-Chief's company is under an Assault order"
    if army.cinc_busy:
        return "the Commander-in-Chief's company charged, pursued, routed or fought last turn"
    return ""


def step(sc, st: IWState, stream: DiceStream) -> tuple[list[Event], bool]:
    """The command phase: skipped on turn 1; it waits until both sides `keep` (a side that may
    give no new orders and has no Ecu is done by itself), then the tests are rolled."""
    from engine.italianwars.sequence.walk import sides_in_order
    if st.turn <= 1:
        return begin_actions(sc, st), False
    events = []
    for side in sides_in_order(st):
        if side in st.done:
            continue
        if new_orders_forbidden(sc, st, side) and st.armies[side].ecu <= 0:
            st.done.append(side)
            why = new_orders_forbidden(sc, st, side)
            events.append(Event("command_skipped", side, S_NEW, f"{side.title()} gives no new orders: {why}",
                                outcome={"side": side, "why": why}))
    if not all(s in st.done for s in sides_in_order(st)):
        return events, True
    events += resolve(sc, st, stream)
    events += begin_actions(sc, st)
    return events, False


def begin_actions(sc, st: IWState) -> list[Event]:
    from engine.italianwars.sequence.activation import begin
    st.done = []
    return begin(sc, st)


def new_order(sc, st: IWState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`order <battle> <order> [objective]` in the command phase: a new order, written in secret;
    refused when the C-in-C may give none. Writing a battle's order again replaces it."""
    from engine.italianwars.sequence.prebattle import write_order
    rules.need_phase(st, "command", "New orders are given", S_NEW)
    why = new_orders_forbidden(sc, st, side)
    if why:
        raise Illegal(f"no new orders: {why}", S_NEW)
    if side in st.done:
        raise Illegal(f"{side.title()} is done with the command phase: waiting for {st.other(side).title()}", SECTION)
    b, order, objective = write_order(sc, st, side, cmd, S_NEW)
    key = f"order:{b.id}:{st.turn}"
    st.secrets.setdefault(side, {}).setdefault("orders", {})[b.id] = {
        "order": order, "objective": objective, "key": key, "in_force": False}
    return [Event("order_written", side, S_NEW, f"{side.title()} writes a new order (secret until its test)",
                  inputs={"secret": {"key": key, "battle": b.id, "order": order, "objective": objective}})]


def keep(sc, st: IWState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`keep` in the command phase: the side's new orders and bribes stand."""
    rules.need_phase(st, "command", "The command phase ends", SECTION)
    if side in st.done:
        raise Illegal(f"{side.title()} is already done: waiting for {st.other(side).title()}", SECTION)
    st.done.append(side)
    return [Event("keep", side, SECTION, f"{side.title()} is done with its command phase")]


def written_new_orders(st: IWState, side: str) -> list[tuple[str, dict]]:
    orders = (st.secrets.get(side) or {}).get("orders") or {}
    return [(bid, o) for bid, o in sorted(orders.items()) if not o.get("in_force")]


def resolve(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """Both sides are done: every new order costs its side a six (IW Emanazione di nuovi ordini)
    and is tested (IW Interpretazione degli ordini), the attacker's battles first (HERALD D63)."""
    from engine.italianwars.sequence.walk import sides_in_order
    events = []
    for side in sides_in_order(st):
        for bid, o in written_new_orders(st, side):
            b = st.battles[bid]
            st.armies[side].sixes_owed += 1
            events += interpretation_test(sc, st, b, o, stream)
    return events


def sworn_enemies(a: str, b: str) -> bool:
    """IW Nemici giurati: "Svizzeri e Lanzi e Lanzi Imperiali contro Lanzi al servizio di altri
    partiti" (tables.SWORN_ENEMIES)."""
    return tables.sworn_enemies((a or "").lower(), (b or "").lower())


def sees(sc, st: IWState, a, b) -> bool:
    """Whether company `a` sees company `b` (IW Visibilità): within the light's and weather's
    range, a hidden company only within 1 UDM, and no sight-blocking terrain or other company
    across every line between them (the geometry's `clear_line`)."""
    from engine.core.table.geometry import clear_line
    from engine.italianwars.sequence.endturn import visibility
    d = checks.distance_between(sc, st, a, b)
    rng = visibility(st)
    if rng is not None and d > rng:
        return False
    if b.hidden and d > 1.0:
        return False
    pa, pb = checks.polygon(sc, st, a), checks.polygon(sc, st, b)
    # every line between the two rectangles lies in the hull of both: only what touches it blocks
    hull = pa.union(pb).convex_hull
    x0, y0, x1, y1 = hull.bounds
    reach = 3.5                     # a company's length at most (4 bases of horse, 3 UDM) and its width
    blockers = []
    for f in checks.features(sc):
        g = getattr(f, "geometry", None)
        if g is None or g.area <= 0 or getattr(f, "kind", "") not in checks.SIGHT_BLOCKING:
            continue
        if not g.intersects(hull):
            continue
        if g.intersects(pa) or g.intersects(pb):
            continue                # lining its edge or inside: sees out (HERALD D61)
        blockers.append(g)
    for c in sorted(st.companies.values(), key=lambda c: c.id):
        if c.id in (a.id, b.id) or not c.alive or c.status == "waiting" or c.hidden:
            continue
        if not (x0 - reach <= c.x <= x1 + reach and y0 - reach <= c.y <= y1 + reach):
            continue
        poly = checks.polygon(sc, st, c)
        if poly.intersects(hull):
            blockers.append(poly)
    return clear_line(checks.pose(a), checks.footprint(sc, st, a), checks.pose(b), checks.footprint(sc, st, b),
                      blockers)


def sworn_enemies_in_sight(sc, st: IWState, battle) -> tuple[str, str] | None:
    """A (company, enemy) pair of the battle's that are sworn enemies and in sight, or None."""
    mine = [c for c in sorted(st.companies.values(), key=lambda c: c.id)
            if c.battle == battle.id and c.alive and c.status != "waiting"]
    theirs = [c for c in sorted(st.companies.values(), key=lambda c: c.id)
              if c.side != battle.side and c.alive and c.status != "waiting"]
    for c in mine:
        for e in theirs:
            if sworn_enemies(rules.nation_of(sc, st, c.id), rules.nation_of(sc, st, e.id)) and sees(sc, st, c, e):
                return c.id, e.id
    return None


def interpretation_test(sc, st: IWState, b, written: dict, stream: DiceStream) -> list[Event]:
    """One battle's new order (IW Interpretazione degli ordini, IW Tabella 5). The bribes on it
    are applied and shown here (HERALD D4, D53)."""
    side = b.side
    order, objective = written["order"], written.get("objective", "")
    st.secrets.setdefault(side, {}).setdefault("orders", {}).pop(b.id, None)
    name = rules.battle_name(sc, st, b.id)
    if b.cinc:
        # never tested: the order stays secret until the battle acts on it (HERALD D4, D63)
        b.order, b.objective, b.revealed = order, objective, False
        st.secrets[side]["orders"][b.id] = {**written, "in_force": True}
        return [Event("order", side, S_TEST,
                      f"{name}, the Commander-in-Chief's battle, takes a new order without a test (secret until it acts)",
                      inputs={"secret": {"order": order, "objective": objective}},
                      outcome={"battle": b.id, "tested": False, "sixes_owed": st.armies[side].sixes_owed})]
    reveal(st, written["key"])
    personality = personality_of(st, b)
    mods = []
    pm = PERSONALITY_MODIFIER.get(personality, 0)
    if pm:
        mods.append(Modifier(pm, f"captain {PERSONALITY_TEXT.get(personality, personality)}", S_T5))
    seen = sworn_enemies_in_sight(sc, st, b)
    if seen:
        mods.append(Modifier(SWORN_ENEMY_MODIFIER, f"sworn enemies in sight ({seen[0]} sees {seen[1]})", S_T5))
    gentlemen = rules.morale_of(sc, st, b.commander) == "gentlemen"
    spent = {}
    for payer in sorted(st.secrets):
        bribe = (st.secrets[payer].get("bribes") or {}).pop(b.id, None)
        if not bribe:
            continue
        reveal(st, bribe["key"])
        spent[payer] = bribe["ecu"] * bribe["direction"]
        if gentlemen:
            mods.append(Modifier(0, f"{payer.title()}'s {bribe['ecu']} Ecu: no effect on Gentlemen", "IW Tesoro"))
        else:
            word = "defy" if bribe["direction"] > 0 else "obey"
            mods.append(Modifier(bribe["ecu"] * bribe["direction"], f"{payer.title()} spent {bribe['ecu']} Ecu ({word})",
                                 "IW Tesoro"))
    value, dice = checks.d6(st, stream, side, f"interpretation of {b.id}'s new order", owed=False)
    total = value + sum(m.value for m in mods)
    failed = total >= FAIL_AT
    result = failed_order(personality, order) if failed else order
    b.order, b.revealed = result, True
    b.objective = objective if not failed else ""
    dice[-1].effect = "not understood" if failed else "understood"
    mod_text = "".join(f" {m.value:+d}" for m in mods if m.value)
    text = (f"{name} ({PERSONALITY_TEXT.get(personality, personality)} commander) tests its new order "
            f"{order.title()}: d6 {value}{mod_text} = {total}: ")
    text += (f"{'6 or more' if failed else 'under 6'}, " + (f"not understood: it takes {result.title()}" if failed
                                                            else f"understood: {order.title()}"))
    return [Event("interpretation", side, S_TEST, text, base=value, modifiers=mods, dice=dice,
                  table="Tabella 5 Modificatori; fails on 6 or more", row=f"{total}",
                  outcome={"battle": b.id, "given": order, "order": result, "failed": failed,
                           "personality": personality, "ecu": spent, "total": total})]


def test_battle(sc, st: IWState, bid: str, order: str, stream: DiceStream, objective: str = "") -> list[Event]:
    """A test of one battle's new order outside the walk (the later modules, a what-if): writes
    the order and tests it now."""
    b = st.battles[bid]
    key = f"order:{bid}:{st.turn}"
    return interpretation_test(sc, st, b, {"order": order, "objective": objective, "key": key}, stream)
