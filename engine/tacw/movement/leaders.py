"""Leader movement (TACW §5.1.2 Army Commander, §5.2.2 Wing Commander) and leaders overrun by
an enemy unit entering their hex (§5.3.1). The `leader <id> move ...` verb that calls
`move_leader` is registered by `movement/move.py`, the Army Commander's `leader <ac> rally|reform`
by `morale/recovery.py`; Marston Moor's command rivalry (special rule 1) checks the command first
(`battles/marston_moor.py`)."""
from __future__ import annotations

from engine.core.errors import Illegal
from engine.core.events import Event

from engine.tacw import tables
from engine.tacw.morale.checks import remove_leader
from engine.tacw.state import TacwState, Unit

LEADER_KINDS = ("ac", "wc")


def overrun_leaders(st: TacwState, unit: Unit, hex_id: str) -> list[Event]:
    """§5.3.1: a leader is removed at once when an enemy unit enters his hex (he is alone: a
    unit never enters a hex with enemy units)."""
    out: list[Event] = []
    for ld in st.leaders_at(hex_id):
        if ld.side != unit.side:
            out += remove_leader(st, ld, f"{unit.called} entered his hex", "TACW §5.3.1")
    return out


def move_leader(sc, st: TacwState, side: str, leader_id: str, path: list[str]) -> list[Event]:
    """An Army Commander's move is his one action when a wing of his army activates (§5.1.1-
    §5.1.2); a Wing Commander moves when his wing is active (§5.2.2). 8 MP, the cavalry costs of
    the Terrain table (D13); hex by hex along adjacent hexes; never into a hex with an enemy unit
    (HERALD: nor with an enemy leader). Leaders are not combat units: they pass friendly units
    freely and cause no reactions. HERALD: the move belongs to step C, so it closes the order
    change step (§3.2)."""
    ld = st.leaders.get(leader_id.lower())
    if ld is None or ld.side != side:
        from engine.tacw.ids import unknown_leader
        raise Illegal(unknown_leader(st, leader_id.lower(), side), "TACW §5")
    if ld.status != "active" or ld.hex is None:
        raise Illegal(f"{ld.name} is not on the field", "TACW §5.3")
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("leaders move only when a wing of their army is active", "TACW §5.1.1, §5.2.2")
    if st.pending:
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step not in ("order_change", "actions"):
        raise Illegal("leaders move in the actions step, before close combat", "TACW §3.2 C")
    if ld.role == "ac":
        if act.ac_acted:
            raise Illegal(f"{ld.name} has already taken his one action in this activation", "TACW §5.1.2")
        from engine.tacw.battles.marston_moor import RIVALRY_SECTION, ac_action_refusal
        why = ac_action_refusal(sc, st, ld)                  # Marston Moor: rival ACs
        if why:
            raise Illegal(why, RIVALRY_SECTION)
    else:
        if ld.wing != act.wing:
            raise Illegal(f"{ld.name} moves only when his own wing is active", "TACW §5.2.2")
        if act.wc_acted:
            raise Illegal(f"{ld.name} has already moved in this activation", "TACW §5.2.2")
    ma = tables.MOVEMENT_ALLOWANCE["leader"]
    cur, spent, log = ld.hex, 0, []
    for h in path:
        if not sc.grid.adjacent(cur, h):
            raise Illegal(f"{h} is not next to {cur}: give the path hex by hex", "TACW §7.1")
        if any(u.side != side for u in st.units_at(h)):
            raise Illegal(f"{h} holds an enemy unit: a leader may not enter it", "TACW §5.3.1")
        if any(o.side != side for o in st.leaders_at(h)):
            raise Illegal(f"{h} holds an enemy leader", "TACW §5.3.1")
        key = sc.terrain_at(h)
        mp = tables.terrain_mp(key, "leader")
        if mp is None:
            raise Illegal(f"{h} is {key}: impassable", "TACW §7.1.1")
        cross = sc.crossing(cur, h)
        if cross:
            mp += tables.terrain_mp(cross, "leader", hexside=True) or 0
        if spent + mp > ma:
            raise Illegal(f"{h} costs {mp} MP but {ld.name} has {ma - spent} of {ma} left", "TACW §7.2.1")
        spent += mp
        log.append(f"{h} ({mp} MP)")
        cur = h
    start = ld.hex
    ld.hex = cur
    if ld.role == "ac":
        act.ac_acted = True
    else:
        act.wc_acted = True
    act.step = "actions"
    st.last_action = {"items": [{"kind": "move", "piece": ld.id, "path": [start] + list(path)}]}
    return [Event("leader_move", side, "TACW §5.1.2" if ld.role == "ac" else "TACW §5.2.2",
                  f"{ld.name} moves {start} > " + " > ".join(log) + f": {spent} of {ma} MP",
                  outcome={"leader": ld.id, "path": [start] + list(path), "mp_spent": spent})]
