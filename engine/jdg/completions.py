"""Completions for Jours de Gloire's options (engine/jdg/verbs.py): what a player may type next,
read from the state. Nothing here decides a rule: the engine refuses what is illegal and names the
rule; these lists only offer what is plausible now (the active formation's units, enemy hexes in
the unit's front, the offered answers of a pending decision).

Each function returns (label shown, value) pairs; the slash commands, `/act`'s whole-line
completion and the menus read them through `JdgRuleset.completions`."""
from __future__ import annotations

from engine.core import facing as core_facing

from engine.jdg import geometry
from engine.jdg.state import SIDES, JdgState

CONDITION_NAMES = {"good": "good order", "disordered": "disordered", "routed": "routed"}


def unit_label(sc, st: JdgState, u) -> str:
    setup = sc.unit(u.id)
    names = core_facing.VERTEX_NAMES[sc.map.orientation]
    extra = [CONDITION_NAMES[u.condition]] + (["square"] if u.square else [])
    return f"{setup.name} ({u.id}) {u.hex or 'off map'} facing {names[u.facing % 6]}, {', '.join(extra)}"


def _active_units(st: JdgState, side: str | None, entering: bool = False):
    """The live units of the active formation(s) (`entering`: those off the map instead)."""
    act = st.activation
    if act is None or (side is not None and act.side != side):
        return []
    units = [u for u in st.units.values() if u.side == act.side
             and (u.hex is None and u.status == "entering" if entering else u.alive)]
    if act.formations:
        units = [u for u in units if u.formation in act.formations
                 or (act.marker in st.markers and st.markers[act.marker].kind == "combined")]
    return units


def _enemy_front_hexes(sc, st: JdgState, unit) -> list[str]:
    out = []
    for h in geometry.frontal_hexes(sc, unit):
        if any(x.side != unit.side for x in st.units_at(h)):
            out.append(h)
    return out


def _hex_label(sc, st: JdgState, h: str) -> str:
    stack = st.units_at(h)
    names = ", ".join(f"{sc.unit(u.id).name} ({u.id})" for u in stack)
    return f"{h} {sc.map.terrain_at(h)}" + (f": {names}" if names else "")


def option_completions(sc, st: JdgState, side: str | None, kind: str, prefix: str, context: dict,
                       head: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    units = _active_units(st, side)
    if kind == "order_formation":
        out = [(f"{f.name} ({f.id})", f.id) for f in sc.formations if side is None or f.side == side]
        from engine.jdg.sequence import groups
        if groups.enabled(st):              # optional 2.3: each tactical group too
            out += [(f"{f.name} group {n}: {', '.join(g)}", f"{f.id}:{n}") for f in sc.formations
                    if side is None or f.side == side
                    for n, g in enumerate(groups.formation_groups(sc, st, f.id), 1)]
    elif kind == "reserve_formation":
        from engine.jdg.sequence import reserve
        out = [(f"{sc.formation(fid).name} ({fid})", fid) for fid, why in
               (reserve.candidates(sc, st, side) if side else []) if not why] + [("none", "none")]
    elif kind in ("combined_marker", "first_marker"):
        mine = [m for m in st.markers.values() if side is None or m.side == side]
        if kind == "combined_marker":
            mine = [m for m in mine if m.kind == "combined" and m.id not in st.used_once]
        else:                           # the markers due in the cup this turn (HERALD D17)
            from engine.jdg.sequence.initiative import pick_candidates
            due = set(pick_candidates(sc, st, side)) if side else {m.id for m in mine}
            mine = [m for m in mine if m.id in due]
            out.append(("none: a random draw", "none"))
        out += [(f"{m.id}", m.id) for m in sorted(mine, key=lambda m: m.id)]
    elif kind == "firer":
        out = [(unit_label(sc, st, u), u.id) for u in units
               if u.arm == "artillery" and u.condition == "good" and not u.fired]
    elif kind in ("mover", "square_unit", "unit"):
        pick = units
        if kind == "mover":             # reinforcements ready to enter, off the map [5.2]
            from engine.jdg.movement import reinforcements as rf
            pick = units + [u for u in _active_units(st, side, entering=True) if rf.entering(u)]
        if kind == "square_unit":
            pick = [u for u in units if u.arm == "infantry"]
        out = [(unit_label(sc, st, u), u.id) for u in pick]
    elif kind == "attacker":
        named = set(head.split())           # a unit already in the list is not offered again
        out = [(unit_label(sc, st, u), u.id) for u in units if u.id not in named
               and u.arm == "infantry" and u.condition == "good" and _enemy_front_hexes(sc, st, u)]
    elif kind == "charger":
        out = [(unit_label(sc, st, u), u.id) for u in units
               if u.arm == "cavalry" and u.condition == "good"]
    elif kind == "rallier":
        out = [(unit_label(sc, st, u), u.id) for u in units if u.condition != "good" and not u.acted]
    elif kind in ("fire_target", "assault_target", "charge_target"):
        word = str(context.get("unit") or context.get("units") or "").split()
        me = st.units.get(word[0]) if word else None
        if me is not None and me.alive:
            if kind == "fire_target":
                top = max(sc.unit(me.id).max_range, 1)
                hexes = [h for h in sorted(geometry.grid(sc).within(me.hex, top))
                         if h != me.hex and any(x.side != me.side for x in st.units_at(h))]
            elif kind == "charge_target":
                hexes = [h for h in sorted(geometry.grid(sc).within(me.hex, 3))
                         if any(x.side != me.side for x in st.units_at(h))]
            else:
                hexes = _enemy_front_hexes(sc, st, me)
            out = [(_hex_label(sc, st, h), h) for h in hexes]
    elif kind == "combine_with":
        word = str(context.get("unit") or "")
        me = st.units.get(word)
        if me is not None and me.alive:
            out = [(unit_label(sc, st, u), u.id) for u in st.units_at(me.hex)
                   if u.id != me.id and u.arm == "artillery" and u.formation == me.formation]
    elif kind == "vertex":
        names = core_facing.VERTEX_NAMES[sc.map.orientation]
        out = [(n, n.lower()) for n in names]
    elif kind in ("destination", "commander_path"):
        word = str(context.get("unit") or "")
        me = st.units.get(word)
        where = None
        if kind == "commander_path":
            cic = next((c for c in st.commanders.values() if c.side == side and c.status == "active"), None)
            where = cic.hex if cic else None
        elif me is not None:
            where = me.hex
        last = head.split()[-1] if head.split() else where
        if me is not None and kind == "destination" and me.hex is None and not head.split():
            from engine.jdg.movement import reinforcements as rf     # its first step: an entry hex [5.2]
            out = [(_hex_label(sc, st, h) + " (entry)", h) for h in rf.entry_hexes(sc, me)]
        elif last and last in geometry.grid(sc):
            out = [(_hex_label(sc, st, h), h) for h in geometry.grid(sc).neighbors(last)]
            if kind == "destination":
                names = core_facing.VERTEX_NAMES[sc.map.orientation]
                out += [(f"face {n}", f"face {n.lower()}") for n in names]
    elif kind == "breakthrough":
        out = [(unit_label(sc, st, u), u.id) for u in units] + [("none", "none")]
    elif kind in ("reaction", "retreat_hex"):
        p = st.pending
        if p and (side is None or p["side"] == side):
            labels = p.get("labels", {})
            out = [(labels.get(o, o), o) for o in p.get("options", [])]
    elif kind == "reaction_more":
        out = []
    prefix = (prefix or "").lower()
    return [(n[:100], v) for n, v in out if prefix in n.lower() or prefix in v.lower()][:25]


def sides_choices() -> list[tuple[str, str]]:
    return [(s.title(), s) for s in SIDES]
