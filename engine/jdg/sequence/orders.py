"""Phase A, the orders [1.A], [2.3], and the combined markers chosen before the strategic
initiative roll [2.1], Marengo section D 2.1.

[2.3] L133-135: at the start of each turn both players choose, in secret, the formations that
receive orders; they are With Orders for the whole turn, the rest Without. The number is limited
by the commander-in-chief's order potential, and a formation must have at least one unit within
his command radius. Herald takes the choice privately (`orders`, reply "secret"), refuses an
illegal list with the reason, and keeps each formation's status hidden until its first activation
reveals it ([2.4] L139, HERALD D11). Phase B starts when both lists are in (HERALD D11); until
then a player may give his list again, the new one replacing the old.

The IACs (Marengo: "Grande charge", "Marmont") are chosen "prima del test di iniziativa
strategica" (L123, L937) and join the cup in phase C, unknown to the opponent (HERALD D72): the
chit goes in the cup now (the cup is otherwise empty until phase C) and is spent, once a game
(`st.used_once`). `combined none` takes this turn's choice back while phase A lasts.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.ids import unknown

from engine.jdg.sequence.command import chief, chief_lost, units_in_radius
from engine.jdg.state import JdgState

SECTION = "JdG [2.3]"


def formation_name(sc, formation_id: str) -> str:
    return sc.formation(formation_id).name


def _need_orders_phase(st: JdgState, what: str, section: str) -> None:
    if st.phase != "orders":
        raise Illegal(f"{what} given in phase A, at the start of the turn, before the strategic "
                      f"initiative roll (now: phase {st.phase})", section)


def on_map(st: JdgState, formation_id: str) -> bool:
    return bool(st.formation_units(formation_id))


def check_orders(sc, st: JdgState, side: str, named: list[str]) -> list[str]:
    """[2.3]: the formations `side` names for orders, checked: its own, on the map, not Without
    Orders for good ([2.5] L195), within the order potential and each with a unit in the
    commander-in-chief's command radius. Returns the formation ids; raises Illegal."""
    ch = chief(sc, st, side)
    mine = [f.id for f in sc.formations_of(side)]
    pairs = [(f.id, f.name) for f in sc.formations_of(side)]
    out: list[str] = []
    for word in named:
        if word not in st.formations:
            raise Illegal(unknown(word, "one of your formations", pairs, query="formations"), SECTION)
        if word not in mine:
            raise Illegal(f"{word} ({formation_name(sc, word)}) is not your formation", SECTION)
        if word in out:
            raise Illegal(f"{word} is named twice", SECTION)
        out.append(word)
    if len(out) > ch.order_potential:
        raise Illegal(f"{ch.name}'s order potential is {ch.order_potential}: {len(out)} formations named "
                      f"({', '.join(out)}); the others are Without Orders", SECTION)
    for fid in out:
        f = st.formations[fid]
        if f.without_orders_for_good:
            raise Illegal(f"{fid} is Without Orders until the end of the battle: its army lost its "
                          "commander-in-chief", "JdG [2.5]")
        if not on_map(st, fid):
            raise Illegal(f"{fid} ({formation_name(sc, fid)}) has no unit on the map: reinforcements "
                          "enter With Orders without an order ([5.2])", "JdG [2.3], [5.2]")
        if not units_in_radius(sc, st, fid):
            grid = sc.map.grid
            dist = min((grid.distance(ch.hex, u.hex) for u in st.formation_units(fid) if u.hex), default=None) \
                if ch.hex else None
            where = f"the nearest is {dist} hexes from {ch.name} in {ch.hex}" if dist is not None else \
                f"{ch.name} is not on the map"
            raise Illegal(f"no unit of {fid} ({formation_name(sc, fid)}) is within {ch.name}'s command radius "
                          f"of {ch.command_radius} hexes ({where})", "JdG [2.3], [2.5]")
    return out


def record_orders(sc, st: JdgState, side: str, with_ids: list[str]) -> None:
    """Each formation of `side` With or Without Orders for the turn [2.3] (secret until [2.4])."""
    for f in sc.formations_of(side):
        fs = st.formations[f.id]
        fs.orders = "with" if f.id in with_ids else "without"
        fs.revealed = False
    if side not in st.orders_done:
        st.orders_done.append(side)


def do_orders(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`orders [formation...]` [1.A], [2.3]: the formations of `side` With Orders this turn; every
    other one is Without. Secret: the event says only that the orders are given (HERALD D11); the
    list is kept under the hidden key `secret`, dropped from every public view. With the optional
    rule 2.3 the orders go to tactical groups (sequence/groups.py)."""
    from engine.jdg.sequence import groups
    if groups.enabled(st):
        return groups.do_orders(sc, st, side, cmd, stream)
    _need_orders_phase(st, "The orders are", SECTION)
    words = [w for w in cmd.args if w not in ("none", "-")]
    if len(words) != len(cmd.args) and words:
        raise CannotParse("orders: name formations, or none for no orders")
    with_ids = check_orders(sc, st, side, words)
    again = side in st.orders_done
    record_orders(sc, st, side, with_ids)
    ch = chief(sc, st, side)
    return [Event("orders", side, "JdG [1] A, [2.3]",
                  f"{side.title()} {'gives its orders again' if again else 'has given its orders'} for turn "
                  f"{st.turn} (secret until each formation's first activation)",
                  inputs={"secret": {"with": with_ids}},
                  outcome={"secret": {f.id: st.formations[f.id].orders for f in sc.formations_of(side)},
                           "potential": ch.order_potential})]


def auto_orders(sc, st: JdgState) -> list[Event]:
    """[2.5] L195 (HERALD D19): a side whose commander-in-chief is lost has no orders to give;
    Herald records its phase A for it (every formation Without Orders)."""
    out = []
    for side in sorted({f.side for f in sc.formations}):
        if side not in st.orders_done and chief_lost(st, side):
            record_orders(sc, st, side, [])
            out.append(Event("orders", side, "JdG [2.5]", f"{side.title()} has no commander-in-chief: "
                             "every formation is Without Orders"))
    return out


def combined_markers(sc, side: str) -> list:
    return [m for m in sc.markers if m.kind == "iac" and m.side == side]


def do_combined(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`combined <marker|none>` [2.1] L123, Marengo D 2.1 L937: an IAC chosen in secret before the
    strategic initiative roll; it goes in the cup with the IAs in phase C (HERALD D72) and is used
    once a game. `none` takes back this turn's choice."""
    section = "JdG [2.1], Marengo D 2.1"
    mine = combined_markers(sc, side)
    if not mine:
        raise Illegal(f"{side.title()} has no combined marker in this battle", section)
    _need_orders_phase(st, "A combined marker is", section)
    if not cmd.args:
        raise CannotParse("usage: combined <marker> (or none)")
    word = cmd.args[0]
    if word == "none":
        chosen = [m.id for m in mine if m.id in st.cup]
        for mid in chosen:
            st.cup.remove(mid)
            st.used_once.remove(mid)
        return [Event("combined", side, section, f"{side.title()} makes a secret choice",
                      outcome={"secret": {"withdrawn": chosen}})]
    if not mine:
        raise Illegal(f"{side.title()} has no combined marker in this battle", section)
    marker = next((m for m in mine if word in (m.id, m.name.lower().replace(" ", "-"))), None)
    if marker is None:
        raise Illegal(unknown(word, "one of your combined markers", [(m.id, m.name) for m in mine]), section)
    if marker.id in st.cup:
        raise Illegal(f"{marker.name} is already chosen for this turn", section)
    used = sum(1 for u in st.used_once if u == marker.id)
    if used >= marker.uses:
        raise Illegal(f"{marker.name} is used once a game, and it was used already", "Marengo D 2.1")
    st.cup.append(marker.id)
    st.used_once.append(marker.id)
    st.markers[marker.id].secret = True
    return [Event("combined", side, section, f"{side.title()} makes a secret choice",
                  outcome={"secret": {"chosen": marker.id}})]
