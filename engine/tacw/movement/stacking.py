"""Stacking (TACW §8): which units may share a hex (§8.1), the cavalry + light infantry stack
(§8.2), the unit on top of an artillery hex (§8.3) and cavalry incorporating cavalry (§8.4).
`movement/paths.py` asks these questions at every hex a move enters, `movement/move.py` at its end.

HERALD readings where the text is silent (sections of the Italian rulebook):
- §8.2.2 the entering unit must already face as the unit it joins; a stack moves together by
  default (both use their action), `alone` splits it.
- §8.3 default: the unit that moves in is on top; artillery left alone is on top.
- §8.4 the MOVING cavalry is the one with losses (the text: "un'unità di cavalleria che ha
  subito perdite ... muove nell'esagono"); its casualty threshold status is kept.
"""
from __future__ import annotations

from engine.core.events import Event

from engine.tacw.state import TacwState, Unit


def partner_of(st: TacwState, u: Unit) -> Unit | None:
    """§8.2: the light infantry stacked with a cavalry unit (or the cavalry with an LI)."""
    want = {"cavalry": "light", "light": "cavalry"}.get(u.kind)
    if want is None or u.is_double or not u.alive:
        return None
    for o in st.units_at(u.hexes[0]):
        if o.id != u.id and o.side == u.side and o.kind == want:
            return o
    return None


def stack_problem(st: TacwState, movers: list[Unit], hex_id: str, *, incorporate: bool = False
                  ) -> tuple[str | None, tuple[str, str] | None]:
    """May `movers` (one unit, or a cavalry + LI stack) enter `hex_id`? Returns (why not,
    None) or (None, stop) where stop = (reason, section) when the rules make it stop there."""
    side = movers[0].side
    ids = {m.id for m in movers}
    others = [o for o in st.units_at(hex_id) if o.id not in ids]
    foes = [o for o in others if o.side != side]
    if foes:
        return f"{hex_id} holds the enemy's {foes[0].called}", None
    rest = [o for o in others if o.kind not in ("artillery", "wagon")]
    wagons = [o for o in others if o.kind == "wagon"]
    if wagons and (movers[0].is_double or len(movers) > 1 or movers[0].kind not in ("heavy", "light", "cavalry")
                   or any(o.kind == "artillery" for o in others) or rest):
        return (f"{hex_id} holds the wagon {wagons[0].called}: only one single-hex infantry or cavalry "
                "unit may stack with it (Naseby, HERALD D115)"), None
    if movers[0].kind == "wagon" and rest:      # a wagon joins one single-hex foot or horse unit
        if len(rest) == 1 and not rest[0].is_double and rest[0].kind in ("heavy", "light", "cavalry") \
                and not any(o.kind == "artillery" for o in others):
            return None, None
        return (f"{hex_id} holds {', '.join(o.called for o in rest)}: a wagon stacks with one single-hex "
                "infantry or cavalry unit only (Naseby, HERALD D115)"), None
    if not rest:
        return None, None                       # empty, friendly artillery or a wagon (§8.1.2, §8.3)
    m = movers[0]
    if len(rest) == 1 and len(movers) == 1 and not m.is_double and \
            not any(o.kind == "artillery" for o in others):
        o = rest[0]
        if {m.kind, o.kind} == {"cavalry", "light"}:
            return None, (f"it entered the hex of {o.called}: cavalry and light infantry stack only "
                          "by stopping there", "TACW §8.2.2")
        if m.kind == o.kind == "cavalry" and incorporate:
            return None, (f"it incorporates {o.called}", "TACW §8.4")
    names = ", ".join(o.called for o in rest)
    return (f"{hex_id} holds {names}: units may not move through or stack with friendly units "
            "(one combat unit a hex; light infantry may stack with cavalry; units pass only "
            "through artillery)"), None


def final_stack_problem(st: TacwState, hex_id: str) -> str | None:
    """§8.1.1 at the end of a move: at most one artillery and one other unit a hex, or one
    cavalry with one light infantry."""
    here = st.units_at(hex_id)
    arts = [u for u in here if u.kind == "artillery"]
    wagons = [u for u in here if u.kind == "wagon"]
    rest = [u for u in here if u.kind not in ("artillery", "wagon")]
    if len(arts) > 1:
        return f"{hex_id} would hold two artillery units"
    if wagons and (len(wagons) > 1 or arts or len(rest) > 1 or any(u.is_double for u in rest)):
        return (f"{hex_id} would hold {', '.join(u.called for u in here)}: a wagon stacks with one "
                "single-hex infantry or cavalry unit only (Naseby, HERALD D115)")
    if len(rest) <= 1:
        return None
    if len(rest) == 2 and not arts and sorted(u.kind for u in rest) == ["cavalry", "light"]:
        return None
    return f"{hex_id} would hold {', '.join(u.called for u in here)}: too many units (§8.1.1)"


def _incorporate(st: TacwState, ctx: dict, u: Unit, hex_id: str) -> list[Event]:
    """§8.4: the stationary unit is removed (eliminated for VP); the mover recovers casualties
    equal to its remaining strength, never above the printed strength; the excess is lost."""
    other = next(o for o in st.units_at(hex_id) if o.id != u.id and o.kind == "cavalry")
    regained = min(u.casualties, other.remaining_strength)
    u.casualties -= regained
    other.status = "eliminated"
    other.hexes = []
    ctx["incorporated"] = other.id
    return [Event("incorporation", u.side, "TACW §8.4",
                  f"{u.called} incorporates {other.called}: {regained} casualt"
                  f"{'y' if regained == 1 else 'ies'} made good ({other.remaining_strength} SP "
                  f"absorbed, {other.remaining_strength - regained} lost); {other.called} counts as "
                  "eliminated", outcome={"unit": u.id, "absorbed": other.id, "regained": regained})]


def _apply_top(st: TacwState, ctx: dict, top: str | None) -> list[Event]:
    """§8.3: the owner decides which unit is on top when a unit moves into an artillery hex
    (HERALD default: the unit that moved in). Artillery left alone is on top of nothing."""
    u = st.units[ctx["unit"]]
    events: list[Event] = []
    for h in ctx["start_hexes"]:
        for art in st.units_at(h):
            if art.kind == "artillery" and len(st.units_at(h)) == 1:
                art.on_top = True
    if not u.alive:
        return events
    for h in u.hexes:
        for art in st.units_at(h):
            if art.kind == "artillery" and art.side == u.side:
                moved_in = h not in ctx["start_hexes"]
                if top is None and not moved_in:
                    continue
                art.on_top = top == art.id
                events.append(Event("stacking", u.side, "TACW §8.3",
                                    f"{art.called if art.on_top else u.called} is on top in {h}",
                                    outcome={"hex": h, "top": art.id if art.on_top else u.id}))
    return events
