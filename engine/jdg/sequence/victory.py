"""Victory [13] and the scenario's victory points (Marengo: Herald completion, HERALD D8, D64).

[13] L810-816: an automatic victory, where the scenario defines one, applies at the end of the turn
it occurs in and ends the game whatever turns remain; otherwise the side with more victory points
at the end of the last turn wins (equal points: a draw, HERALD D64). What scores is the
scenario's (`[victory]`): each victory hex counts for the side that last occupied it (HERALD D80:
a unit not routed standing in it at the end of a command), each enemy unit eliminated, each enemy
unit routed at the end, the enemy commander-in-chief eliminated (a chief who leaves the battle,
Melas at Marengo, scores nothing).
"""
from __future__ import annotations

from engine.core.events import Event

from engine.jdg.state import SIDES, JdgState


def update_holders(sc, st: JdgState) -> None:
    """HERALD D80: the last side with a live unit not routed in a victory hex holds it; at the
    start the scenario's holder."""
    for vh in sc.victory.hexes:
        st.holders.setdefault(vh.hex, vh.holder)
        here = {u.side for u in st.units_at(vh.hex) if u.condition != "routed"}
        if len(here) == 1:
            st.holders[vh.hex] = here.pop()


def victory_points(sc, st: JdgState) -> tuple[dict[str, int], dict[str, list[str]]]:
    """[13]: each side's VP now, and the items that score (for the narrative)."""
    v = sc.victory
    vp = {s: 0 for s in SIDES}
    why: dict[str, list[str]] = {s: [] for s in SIDES}
    for vh in v.hexes:
        holder = st.holders.get(vh.hex, vh.holder)
        vp[holder] += vh.vp
        why[holder].append(f"{vh.name} {vh.vp}")
    for side in SIDES:
        enemy = st.other(side)
        gone = [u for u in st.units.values() if u.side == enemy and u.status == "eliminated"]
        routed = [u for u in st.units.values() if u.side == enemy and u.alive and u.condition == "routed"]
        if gone and v.unit_eliminated_vp:
            vp[side] += len(gone) * v.unit_eliminated_vp
            why[side].append(f"{len(gone)} enemy units eliminated {len(gone) * v.unit_eliminated_vp}")
        if routed and v.unit_routed_vp:
            vp[side] += len(routed) * v.unit_routed_vp
            why[side].append(f"{len(routed)} enemy units routed {len(routed) * v.unit_routed_vp}")
        lost = [c for c in st.commanders.values() if c.side == enemy and c.status == "eliminated"]
        if lost and v.commander_vp:
            vp[side] += len(lost) * v.commander_vp
            why[side].append(f"the enemy commander-in-chief {len(lost) * v.commander_vp}")
    return vp, why


def automatic_winners(sc, st: JdgState) -> list:
    """[13] L812: the scenario's automatic victories that hold at this end of turn."""
    out = []
    for a in sc.victory.automatic:
        if st.turn < a.from_turn or (a.to_turn and st.turn > a.to_turn):
            continue
        if a.kind == "occupy":
            held = [any(u.side == a.side and u.condition != "routed" for u in st.units_at(h)) for h in a.hexes]
            if (all(held) if a.mode == "all" else any(held)):
                out.append(a)
        elif a.kind == "losses":
            enemy = st.other(a.side)
            if sum(1 for u in st.units.values() if u.side == enemy and u.status == "eliminated") >= a.count:
                out.append(a)
    return out


def finish(st: JdgState, winner: str | None, result: str) -> None:
    st.winner = winner
    st.result = result
    st.phase = "over"
    st.activation = None
    st.pending = None


def on_points(st: JdgState, vp: dict[str, int], why: dict[str, list[str]]) -> tuple[str | None, str]:
    a, b = SIDES
    score = f"{a.title()} {vp[a]} VP, {b.title()} {vp[b]} VP"
    if vp[a] == vp[b]:
        return None, f"{score}: a draw (HERALD D64)"
    winner = a if vp[a] > vp[b] else b
    return winner, f"{score}: {winner.title()} wins ({'; '.join(why[winner]) or 'no points'})"


def check_victory(sc, st: JdgState, last_turn: bool) -> list[Event]:
    """Phase F [1.F], [13]: VP counted; an automatic victory ends the game; at the end of the last
    turn the side with more VP wins. Both sides' automatic victories at once: the VP decide
    (HERALD D80)."""
    update_holders(sc, st)
    vp, why = victory_points(sc, st)
    st.vp = dict(vp)
    autos = automatic_winners(sc, st)
    sides = sorted({a.side for a in autos})
    if len(sides) == 1:
        a = autos[0]
        finish(st, a.side, f"{a.side.title()} wins an automatic victory at the end of turn {st.turn}: {a.text}")
        return [Event("victory", a.side, "JdG [13]", st.result, outcome={"winner": a.side, "automatic": a.id, "vp": vp})]
    if sides or last_turn:
        winner, text = on_points(st, vp, why)
        head = "Both sides win an automatic victory: " if sides else f"End of the last turn ({st.turn}): "
        finish(st, winner, head + text)
        return [Event("victory", winner or "both", "JdG [13]", st.result, outcome={"winner": winner, "vp": vp})]
    a, b = SIDES
    return [Event("victory_points", "both", "JdG [13]",
                  f"End of turn {st.turn}: {a.title()} {vp[a]} VP, {b.title()} {vp[b]} VP", outcome={"vp": vp})]
