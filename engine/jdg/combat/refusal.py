"""Refusing an infantry assault [8.8], a stage of the assault resolution (combat/resolution.py):
cavalry (even disordered, not routed) may refuse an infantry assault by falling back 1 or 2
hexes, asked of the defender by its policy "refuse_assault" (HERALD D32, D51, D53)."""
from __future__ import annotations


from engine.core.errors import Illegal
from engine.core.events import Event

from engine.jdg import geometry, rules, tables
from engine.jdg.combat import advance, assault as A, assault_table, resolution
from engine.jdg.combat import results
from engine.jdg.state import JdgState, Unit


# -- refusal [8.8] ---------------------------------------------------------------------------------

def refusable(sc, st: JdgState, cur: dict, hex_id: str) -> list[Unit]:
    """[8.8]: cavalry (even disordered, not routed) may refuse an infantry assault, and non-heavy
    cavalry a charge by heavy cavalry, once per activation. Returns the units that may refuse."""
    c = A.combat_state(st)
    side = cur["side"]
    foes = A.enemies_in(st, [hex_id], side)
    if not foes or any(u.arm != "cavalry" for u in foes) or any(u.condition == "routed" for u in foes):
        return []
    if any(u.id in c["refused"] for u in foes):
        return []
    att = A._attackers(st, cur)
    cav = [u for u in att if u.arm == "cavalry"]
    if not cav:
        return foes
    if any(A.heavy(sc, u) for u in cav) and not any(A.heavy(sc, u) for u in foes):
        return foes
    return []


def stage_refuse(sc, st, cur, stream) -> list[Event]:
    """[8.8]: refusal, decided before the attacker's engagement check (L573), or at the end of the
    heavy cavalry's charge move (L577) -- here, at its resolution (HERALD D53). A hex wholly
    refused is not assaulted; if no hex is left, the attacker advances into the hex refused
    (L573, HERALD D51) and the combat is over."""
    defside = st.other(cur["side"])
    events: list[Event] = []
    for h in list(cur["targets"]):
        foes = refusable(sc, st, cur, h)
        key = f"refuse:{h}"
        if not foes or key in cur["answers"]:
            continue
        if A._policy(st, defside, "refuse_assault") == "never":
            cur["answers"][key] = {"answer": "stand"}
            continue
        what = "charge" if A._is_charge(st, cur) else "assault"
        A._ask(st, cur, "refuse_assault", defside, ["refuse", "stand"],
             f"{', '.join(A.name_of(sc, u) for u in foes)} in {h} may refuse the {what} by falling back 1 or 2 "
             f"hexes (`react refuse [hex] [hex]`), or stand", "JdG [8.8]", key,
             labels={"refuse": "Refuse: fall back", "stand": "Stand"}, default="stand")
        return events
    refused = cur.setdefault("refused_hexes", [])
    for h in list(cur["targets"]):
        ans = cur["answers"].get(f"refuse:{h}")
        if not ans or ans["answer"] != "refuse" or ans.get("done"):
            continue
        ans["done"] = True
        foes = A.enemies_in(st, [h], cur["side"])
        cur["targets"].remove(h)
        refused.append(h)
        events += _refuse_move(sc, st, cur, foes, h, ans.get("path") or [], stream)
        if st.pending:
            return events
    if refused and not cur["targets"]:
        events += advance.advance_into(sc, st, cur, refused[0], stream, refused=True)
        A._cancel(cur, "the assault was refused")
    return events


def validate_refusal_path(sc, st: JdgState, units: list[Unit], hex_id: str, path: list[str]) -> None:
    """[8.8] L575: a fall back of 1 or 2 hexes, path and facing free, terrain and enemy units as
    for any move (never into an enemy hex or impassable terrain); stacking at its end [5.1]."""
    if not 1 <= len(path) <= 2:
        raise Illegal("a refusal falls back 1 or 2 hexes", "JdG [8.8]")
    g = geometry.grid(sc)
    prev = hex_id
    side = units[0].side
    for h in path:
        if h not in g or not g.adjacent(prev, h):
            raise Illegal(f"{h} is not adjacent to {prev}", "JdG [8.8]")
        if not sc.map.passable(h) or tables.move_cost("cavalry", sc.map.terrain_at(h)) is None:
            raise Illegal(f"cavalry cannot enter {h}", "JdG [8.8]")
        for f in sc.map.features(prev, h):
            t = tables.TERRAIN.get(f)
            if t is not None and t.kind == "hexside" and t.mp.get("cavalry", 0) is None:
                raise Illegal(f"cavalry cannot cross the {f} between {prev} and {h}", "JdG [8.8], [10.3]")
        if any(u.side != side for u in st.units_at(h)):
            raise Illegal(f"{h} holds enemy units", "JdG [8.8]")
        prev = h
    end = [u for u in st.units_at(path[-1]) if u not in units]
    if end and (any(u.arm != "cavalry" or u.formation != units[0].formation for u in end)
                or len(end) + len(units) > 2):
        raise Illegal(f"{len(units)} unit(s) cannot stack in {path[-1]}", "JdG [8.8], [5.1]")



def _refuse_move(sc, st, cur, foes: list[Unit], hex_id: str, path: list[str], stream) -> list[Event]:
    c = A.combat_state(st)
    events = []
    attackers_hexes = sorted({u.hex for u in A._attackers(st, cur)})
    for u in foes:
        c["refused"].append(u.id)
    if path:
        events.append(Event("refusal", foes[0].side, "JdG [8.8]",
                            f"{', '.join(A.name_of(sc, u) for u in foes)} {A._verb(foes, 'refuse')} the "
                            f"{'charge' if A._is_charge(st, cur) else 'assault'}: "
                            f"{'they fall' if len(foes) > 1 else 'it falls'} back from {hex_id} "
                            f"to {' '.join(path)}", inputs={"hex": hex_id, "path": path},
                            outcome={"units": [u.id for u in foes], "to": path[-1]}))
        for h in path:
            extra = geometry.in_enemy_frontal_zoc(sc, st, h, foes[0].side)
            for u in foes:
                if not u.alive:
                    continue
                u.hex = h
            if extra:
                for u in foes:
                    if u.alive:
                        events += results.disorder(sc, st, u, stream, "JdG [8.8], [10.3]",
                                                      f"falling back into an enemy frontal hex at {h} (HERALD D32)",
                                                      away_from=attackers_hexes)
    else:
        events.append(Event("refusal", foes[0].side, "JdG [8.8]",
                            f"{', '.join(A.name_of(sc, u) for u in foes)} refuse the "
                            f"{'charge' if A._is_charge(st, cur) else 'assault'} and fall back from {hex_id}",
                            inputs={"hex": hex_id}, outcome={"units": [u.id for u in foes]}))
        for u in foes:
            events += assault_table.fall_back(sc, st, u, stream, "JdG [8.8]", attackers_hexes)
    return events


def resume_refuse(sc, st, side, answer, more, stream) -> list[Event]:
    """`react refuse [hex] [hex]` or `react stand` [8.8]."""
    cur = resolution._current_for(st)
    key = st.pending["key"]
    h = key.split(":", 1)[1]
    if answer == "refuse" and more:
        foes = A.enemies_in(st, [h], cur["side"])
        validate_refusal_path(sc, st, foes, h, list(more))
    elif more:
        raise Illegal("only a refusal takes hexes", "JdG [8.8]")
    cur["answers"][key] = {"answer": answer, "path": list(more)}
    st.pending = None
    return resolution.resolve_all(sc, st, stream)


rules.register_reaction("refuse_assault", resume_refuse)
