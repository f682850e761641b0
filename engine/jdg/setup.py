"""The first state of a Jours de Gloire game from its scenario (JdG [1], [2.1], scenario setup).

Units on the map at their hexes and facings, reinforcements waiting off the map [5.2], each
formation's two activation markers [2.1] (the scenario's own count), the scenario's special
markers (Marengo section D: "Zach", the combined "Grande charge" and "Marmont"), and the
commanders-in-chief at their hexes [2.5]. Optional rules (section II) are game options.
"""
from __future__ import annotations

from engine.core.errors import Illegal

from engine.jdg.state import Commander, Formation, JdgState, Marker, Unit

# The optional rules of section II (digest §7) a game may be created with: (id, what it does).
# The rules modules read `st.options` with `has_option(st, id)`.
OPTIONAL_RULES = (
    ("demoralisation", "Formations are demoralised by their losses (JdG optional 11)"),
    ("line-infantry-fire", "Line infantry gives reaction fire to assaults (JdG optional 8.3)"),
    ("misdirected-fire", "Fire may strike by mistake a unit next to the target it passed over (JdG optional 7)"),
    ("reserve-activation", "Phase D bis: each side may activate one formation in reserve (JdG optional 1)"),
    ("tactical-groups", "Orders go to tactical groups, chains of units 2 hexes apart (JdG optional 2.3)"),
)


def has_option(st: JdgState, option_id: str) -> bool:
    return option_id in (st.options.get("rules") or [])


def marker_id(formation_id: str, n: int) -> str:
    """A formation's n-th IA: `<formation>-1`, `<formation>-2` [2.1]."""
    return f"{formation_id}-{n}"


def new_state(sc, seed: int | str, options=None) -> JdgState:
    chosen = list(options or [])
    known = {oid for oid, _ in OPTIONAL_RULES}
    bad = [o for o in chosen if o not in known]
    if bad:
        raise Illegal(f"unknown optional rule(s) {', '.join(bad)}; known: {', '.join(sorted(known))}",
                      "JdG optional rules")
    st = JdgState(scenario_id=sc.id, seed=seed, options={"rules": chosen})
    for u in sc.units:
        waiting = u.hex is None
        st.units[u.id] = Unit(id=u.id, side=u.side, formation=u.formation, arm=u.arm, hex=u.hex,
                              facing=u.facing, status="waiting" if waiting else "active")
    _artillery_on_top(st)
    for f in sc.formations:
        st.formations[f.id] = Formation(id=f.id, side=f.side)
        for n in range(1, f.markers + 1):
            mid = marker_id(f.id, n)
            st.markers[mid] = Marker(id=mid, side=f.side, kind="ia", formation=f.id)
    for m in sc.markers:
        kind = "combined" if m.kind == "iac" else "special"
        st.markers[m.id] = Marker(id=m.id, side=m.side, kind=kind, secret=(kind == "combined"))
    for c in sc.commanders:
        st.commanders[c.id] = Commander(id=c.id, side=c.side, hex=c.hex)
    return st


def _artillery_on_top(st: JdgState) -> None:
    """[5.1] L285: artillery is always on top of its stack (the order of `st.units` is the stacks'
    order, top first): in each hex of the setup, the artillery comes before the other units,
    each group keeping the scenario's order."""
    units = list(st.units.values())
    first_in_hex: dict[str, int] = {}
    for i, u in enumerate(units):
        if u.hex is not None:
            first_in_hex.setdefault(u.hex, i)
    order = sorted(range(len(units)), key=lambda i: (
        first_in_hex.get(units[i].hex, i) if units[i].hex is not None else i,
        0 if units[i].arm == "artillery" else 1, i))
    st.units = {units[i].id: units[i] for i in order}
