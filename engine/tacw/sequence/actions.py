"""What every unit action shares (TACW §3.2 C, §4.2.3, §5.6): the unit belongs to the active
wing, has not acted in this activation, the wing's orders allow the action, and starting it
closes the order-change step. Move, Fire, Rally and Reform call `begin_action` first."""
from __future__ import annotations

from engine.core.errors import Illegal

from engine.tacw import tables
from engine.tacw.geometry import in_command
from engine.tacw.state import TacwState, Unit

ACTIONS = ("move", "fire", "rally", "reform")


def find_unit(st: TacwState, word: str, side: str | None = None) -> Unit:
    """A unit by id, or by a hex it stands in (the top unit there). An unknown word is refused
    with the closest ids (of `side`'s units when given; engine/tacw/ids.py)."""
    word = word.lower()
    if word in st.units:
        u = st.units[word]
        if not u.alive:
            raise Illegal(f"{u.called} is no longer on the field", "TACW §9.6.1")
        return u
    here = st.units_at(word)
    if here:
        return sorted(here, key=lambda u: (u.kind == "artillery" and not u.on_top, u.id))[0]
    from engine.tacw.ids import unknown_unit
    raise Illegal(unknown_unit(st, word, side))


def begin_action(sc, st: TacwState, side: str, unit_word: str, action: str) -> Unit:
    """Check that `unit` may take `action` now and mark it as having acted (§3.2 C: one action
    per unit per activation). Raises Illegal naming the rule otherwise. The caller must not
    modify anything before this returns."""
    act = st.activation
    if act is None or act.side != side:
        from engine.tacw.ids import no_active_wing
        raise Illegal(no_active_wing(st, side), "TACW §3.2 C")
    if st.pending:
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step not in ("order_change", "actions"):
        raise Illegal("unit actions come before close combat (step C)", "TACW §3.2")
    unit = find_unit(st, unit_word, side)
    if unit.side != side:
        raise Illegal(f"{unit.called} is not yours", "TACW §3.2 C")
    if unit.wing != act.wing:
        raise Illegal(f"{unit.called} belongs to another wing; only the active wing acts", "TACW §4.2.3")
    if unit.id in act.acted:
        raise Illegal(f"{unit.called} has already acted in this activation (one action per unit)", "TACW §3.2 C")
    order = st.wings[act.wing].order
    limits = tables.order_limits(order)
    wc = st.leaders.get(st.wings[act.wing].commander)
    with_wc = wc is not None and wc.hex is not None and any(
        h == wc.hex or sc.grid.adjacent(h, wc.hex) for h in unit.hexes)
    if action == "reform" and not tables.may_reform(order, with_wc):
        raise Illegal(f"{tables.ORDER_NAMES[order]} orders do not allow Reform"
                      + (" except next to the Wing Commander" if order == "make_ready" else ""), "TACW §5.6")
    if action == "rally" and not tables.may_rally(order, with_wc):
        raise Illegal(f"{tables.ORDER_NAMES[order]} orders do not allow Rally"
                      + (" except next to the Wing Commander" if order == "receive_charge" else ""), "TACW §5.6")
    if action == "fire" and not limits.may_fire:
        raise Illegal(f"{tables.ORDER_NAMES[order]} orders do not allow fire", "TACW §5.6")
    if action == "fire" and unit.kind != "artillery" and not in_command(sc, st, unit):
        raise Illegal(f"{unit.called} is out of command: its only fire is Reaction Fire", "TACW §5.4.3")
    act.acted.append(unit.id)
    act.step = "actions"
    return unit
