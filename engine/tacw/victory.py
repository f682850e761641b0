"""Victory Determination: the VP schedule and the battle's victory levels (TACW, after §12).

VP are derived from the state at the end (eliminated units, casualties still on the map,
captured guns, eliminated leaders, victory hexes), so nothing can drift out of step."""
from __future__ import annotations

from engine.core.events import Event

from engine.tacw.battles.naseby import wagon_vp
from engine.tacw import tables
from engine.tacw.state import TacwState


def victory_points(sc, st: TacwState) -> dict[str, dict[str, int]]:
    """VP earned by each side, itemised."""
    vp = {"royalist": {}, "parliament": {}}

    def add(side: str, item: str, n: int) -> None:
        if n:
            vp[side][item] = vp[side].get(item, 0) + n

    for u in st.units.values():
        enemy = st.other(u.side)
        if u.status == "eliminated":
            add(enemy, f"{u.kind} eliminated", tables.unit_elimination_vp(u.kind, u.is_double or
                                                                           len(sc.unit(u.id).hexes) == 2))
        elif u.alive and u.casualties:
            add(enemy, f"{u.kind} casualties on the map",
                tables.casualty_vp(u.kind, u.casualties, len(u.hexes) == 2))
        if u.kind == "artillery" and u.gun_state == "captured" and u.captured_by:
            add(u.captured_by, "guns captured", tables.gun_capture_vp(u.gun_class))
    for side, n in wagon_vp(sc, st).items():               # Naseby's red wagon (HERALD, G6)
        add(side, "wagons captured", n)
    for ld in st.leaders.values():
        if ld.status == "dead" and not ld.generic:
            add(st.other(ld.side), "leaders eliminated", tables.leader_elimination_vp(ld.role, ld.special))
    # Second Newbury special rule 2: a victory hex scores for its LAST occupant (newbury_rules)
    from engine.tacw.battles.second_newbury import last_occupants
    last = last_occupants(sc, st)
    for vh in getattr(sc, "victory_hexes", []) or []:
        # gun markers (disabled or captured, §9.9.9) hold nothing (First Newbury's Round Hill)
        holders = {u.side for u in st.units_at(vh.hex) if not u.gun_state}
        if last is not None:
            holders = {last[vh.hex]} if last.get(vh.hex) else set()
        if len(holders) == 1:
            side = holders.pop()
            if not getattr(vh, "side", "") or vh.side == side:
                add(side, f"victory hex {vh.hex}", vh.vp)
    return vp


def end_of_battle(sc, st: TacwState) -> list[Event]:
    vp = victory_points(sc, st)
    totals = {s: sum(v.values()) for s, v in vp.items()}
    st.vp = totals
    diff = totals["parliament"] - totals["royalist"]
    key = sc.victory_level(diff)
    level = tables.VICTORY_LEVEL_NAMES.get(key, key)
    st.phase = "over"
    st.winner = ("parliament" if key.startswith("parliament") else
                 "royalist" if key.startswith("royalist") else "draw")
    st.result = (f"{level}: Parliament {totals['parliament']} VP, Royalists {totals['royalist']} VP "
                 f"(difference {diff:+d})")
    return [Event("victory", st.winner, "TACW Victory Determination", st.result,
                  outcome={"vp": vp, "difference": diff, "level": level})]
