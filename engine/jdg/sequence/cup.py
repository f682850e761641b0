"""Phase C, the activation markers in the cup [1.C], [2.1], [5.2], Marengo section D 2.1.

[1.C] L85: the IAs of the formations on the map or due to enter this turn go in an opaque cup,
except the one picked in B.2. [2.1] L121: every formation has two IAs (the scenario's count).
[5.2] L319-321 (HERALD D29): a formation arriving this turn puts one IA in; if that IA is the
unused last chit its units are late and next turn both go in; a formation with other units already
on the map uses both. Marengo D 2.1 (HERALD D71): the "Zach" IA goes in, once, on the turn after
Melas leaves. The IACs chosen in phase A are already in (HERALD D72).
"""
from __future__ import annotations

from engine.core.events import Event

from engine.jdg.setup import marker_id
from engine.jdg.state import JdgState


def due_reinforcements(sc, st: JdgState, formation_id: str) -> list:
    """The formation's reinforcements due by this turn with units still off the map [5.2]."""
    out = []
    for r in sc.reinforcements:
        if r.formation != formation_id or r.turn > st.turn:
            continue
        if any(st.units[u].status in ("waiting", "entering") for u in r.units):
            out.append(r)
    return out


def formation_ia_count(sc, st: JdgState, formation_id: str) -> int:
    """[2.1], [5.2]: how many of the formation's IAs go in the cup this turn: all of them with a
    unit on the map; one for a formation arriving this turn, all of them when it is late (its
    reinforcement's turn is past, L319); none for a formation gone or not yet due."""
    f = sc.formation(formation_id)
    if st.formation_units(formation_id):
        return f.markers
    due = due_reinforcements(sc, st, formation_id)
    if not due:
        return 0
    late = any(r.turn < st.turn for r in due)
    return f.markers if late else 1


def zach_due(sc, st: JdgState, m) -> bool:
    """Marengo D 2.1: the special IA goes in the cup on the turn after its commander left, once."""
    kind, _, who = m.trigger.partition(":")
    if kind != "after_leaves":
        return False
    setup = next((c for c in sc.commanders if c.id == who), None)
    if setup is None or not setup.leaves_turn or st.turn != setup.leaves_turn + 1:
        return False
    return st.used_once.count(m.id) < m.uses


def due_markers(sc, st: JdgState) -> list[str]:
    """Every marker due in the cup this turn but the IACs (already in): the formations' IAs in
    the scenario's order, then the special IAs whose trigger holds."""
    out = []
    for f in sc.formations:
        for n in range(1, formation_ia_count(sc, st, f.id) + 1):
            out.append(marker_id(f.id, n))
    for m in sc.markers:
        if m.kind == "special_ia" and zach_due(sc, st, m):
            out.append(m.id)
    return out


def fill_cup(sc, st: JdgState) -> list[Event]:
    """Phase C [1.C]: the cup filled, less the marker picked in B.2."""
    iacs = [m for m in st.cup if st.markers[m].kind == "combined"]
    due = due_markers(sc, st)
    for m in due:
        if st.markers[m].kind == "special":
            st.used_once.append(m)
    st.cup = [m for m in due + iacs if m != st.chosen_marker]
    st.set_aside = []
    n_ia = sum(1 for m in st.cup if st.markers[m].kind == "ia")
    specials = [m for m in st.cup if st.markers[m].kind == "special"]
    arriving = [f.id for f in sc.formations if not st.formation_units(f.id) and formation_ia_count(sc, st, f.id)]
    # the IACs stay unnamed and uncounted: they are put in "all'insaputa" of the opponent (L937)
    text = f"Phase C: {n_ia} IAs in the cup"
    if specials:
        text += " and the special IA " + ", ".join(f'"{sc.marker(m).name}"' for m in specials)
    if st.chosen_marker and st.markers[st.chosen_marker].kind == "ia":
        text += f" (not {st.chosen_marker}, picked to start the turn)"
    if arriving:
        text += "; reinforcements due: " + ", ".join(sc.formation(f).name for f in arriving)
    return [Event("cup", "both", "JdG [1] C, [2.1], [5.2]", text,
                  outcome={"ias": n_ia, "special": specials, "arriving": arriving})]
