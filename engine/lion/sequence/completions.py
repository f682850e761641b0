"""What may fill each option of a `/lion` command (the completion kinds of verbs.py): units,
groups, manoeuvre words, targets in arc or in contact, the answers of a pending decision. Never
raises: a completion never breaks typing."""
from __future__ import annotations

from engine.core.table.geometry import CONTACT_TOL, front_distance, front_distance_floor, in_arc
from engine.core.pending import matching, pending_answers

from engine.lion import checks, rules, tables
from engine.lion.rules import display_name
from engine.lion.state import LionState


def _label(sc, st: LionState, u, extra: str = "") -> str:
    t = tables.troop(tables.effective_type(u.type, u.mounted))
    name = display_name(sc, u.id)
    bits = [name if name != u.id else u.id, t.name]
    if u.hits:
        bits.append(f"{u.hits} hit{'s' if u.hits > 1 else ''}")
    if extra:
        bits.append(extra)
    return " · ".join(bits)


def _own(st: LionState, side: str | None) -> list:
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and (side is None or checks.controller(u) == side)]


def _enemy(st: LionState, side: str | None) -> list:
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and (side is None or checks.controller(u) != side)]


_match = matching


def _troop(u):
    return tables.troop(tables.effective_type(u.type, u.mounted))


def movers(sc, st: LionState, side, prefix: str) -> list[tuple[str, str]]:
    """Units that may still move; after a "+", the units beside the last one named (a group [4 B])."""
    own = [u for u in _own(st, side) if _troop(u).moves and not u.moved and not u.captured_by]
    if "+" in prefix:
        head, _, last = prefix.rpartition("+")
        named = head.split("+")
        prev = st.units.get(named[-1])
        out = []
        for u in own:
            if u.id in named:
                continue
            if prev is not None and not checks.within(prev, u, CONTACT_TOL):
                continue
            out.append((f"{head}+{u.id} — {_label(sc, st, u)}", f"{head}+{u.id}"))
        return [(lab, val) for lab, val in out if val.startswith(prefix) or not last]
    return _match([(_label(sc, st, u, f"moves {_troop(u).move:g} cm"), u.id) for u in own], prefix)


def manoeuvre(sc, st: LionState, side, prefix: str, context: dict, head: str) -> list[tuple[str, str]]:
    """The step words of engine.core.table.moves.parse_steps, by the word before."""
    words = head.split()
    last = words[-1] if words else ""
    unit = st.units.get(str(context.get("units", context.get("unit", ""))).split("+")[0])
    full = _troop(unit).move if unit is not None else 10
    if last in ("wheel", "pivot"):
        options = ["15", "30", "45"]
    elif last == "advance":
        options = [f"{full:g}", f"{full / 2:g}"]
    elif last == "back":
        options = ["2", "5"]
    elif len(words) >= 2 and words[-2] in ("wheel", "pivot"):
        options = ["left", "right"]
    else:
        options = ["advance", "wheel", "back", "forced", "triple"]
    return [(w, w) for w in options if w.startswith(prefix)]


def _cheap_targets(st: LionState, side, shooter) -> list[tuple[float, object]]:
    """(distance, enemy) of the enemies in `shooter`'s front arc and range [7 A], nearest first:
    the quick look that lists shooters (the sight is checked for the chosen one)."""
    t = _troop(shooter)
    if not t.shoot_die:
        return []
    faces = [f for f in (("front", "left", "right", "rear") if shooter.type == "tercio" else ("front",))
             if f not in shooter.shot_faces]                     # a Tercio fires from each face [12 F]
    ps, fs = checks.pose(shooter), checks.footprint(shooter)
    out = []
    for e in _enemy(st, side):
        pe, fe = checks.pose(e), checks.footprint(e)
        for face in faces:
            if front_distance_floor(ps, fs, pe, fe, face) > t.max_range + 0.02:
                continue            # beyond range for sure: not measured
            d = front_distance(ps, fs, pe, fe, face)
            if d <= t.max_range and in_arc(ps, fs, pe, fe, half_angle=tables.ARC_HALF_ANGLE, face=face):
                out.append((d, e))
                break
    return sorted(out, key=lambda pair: (pair[0], pair[1].id))


def shooters(sc, st: LionState, side, prefix: str) -> list[tuple[str, str]]:
    """Your units that may still fire on this card [7], [12 F] with an enemy in arc and range."""
    out = []
    for u in _own(st, side):
        t = _troop(u)
        if not t.shoot_die or u.captured_by:
            continue
        if u.shot and not (u.type == "tercio" and len(u.shot_faces) < 4):
            continue
        near = _cheap_targets(st, side, u)
        if near:
            rng = "unlimited range" if t.max_range == tables.UNLIMITED else f"{t.max_range:g} cm"
            extra = f"d{t.shoot_die}, {rng}, nearest {near[0][0]:g} cm"
            out.append((_label(sc, st, u, extra), u.id))
    return _match(out, prefix)


def targets_in_arc(sc, st: LionState, side, prefix: str, context: dict) -> list[tuple[str, str]]:
    """The enemies the shooter may fire at now, in arc, range and sight [7 A], [9 C] (the fire
    module's own search, engine.lion.fire.sight.legal_targets), nearest first."""
    shooter = st.units.get(str(context.get("unit", "")))
    if shooter is None:
        return _match([(_label(sc, st, e), e.id) for e in _enemy(st, side)], prefix)
    from engine.lion.fire.sight import legal_targets
    t = _troop(shooter)
    ps, fs = checks.pose(shooter), checks.footprint(shooter)
    out = []
    for tid, face in legal_targets(sc, st, shooter):
        e = st.units.get(tid) or st.generals.get(tid)
        d = front_distance(ps, fs, checks.pose(e), checks.footprint(e), face)
        band = tables.shooting_band(t.key, d)
        where = f"{d:g} cm, {band} range" + (f", from its {face}" if face != "front" else "")
        label = _label(sc, st, e, where) if tid in st.units else f"{rules.named(sc, tid)} · general, {where}"
        out.append((d, label, tid))
    seen, pairs = set(), []
    for _, label, tid in sorted(out):
        if tid not in seen:
            seen.add(tid)
            pairs.append((label, tid))
    return _match(pairs, prefix)


def reach(st: LionState, u) -> tuple[float, float]:
    """How far `u` may move on this card: its move, and at most (forced march [4 D], or a
    surprise march [15] 3 while its army has one left) double or triple it."""
    move = _troop(u).move
    army = st.armies.get(u.side)
    most = 3 if army is not None and getattr(army, "surprise_march", 0) else 2
    return move, move * most


def charge_targets(sc, st: LionState, side, prefix: str, context: dict) -> list[tuple[str, str]]:
    """Enemies within the charger's reach [5], [4 D] (its move, or a forced or surprise march),
    nearest first; the move itself finds the path and stops at first touch."""
    unit = st.units.get(str(context.get("unit", "")))
    out = []
    if unit is None:
        return _match([(_label(sc, st, e), e.id) for e in _enemy(st, side)], prefix)
    move, most = reach(st, unit)
    for e in _enemy(st, side):
        d = checks.base_distance(unit, e)
        if d > most:
            continue
        how = "" if d <= move else (" (forced march)" if d <= 2 * move else " (surprise march)")
        out.append((d, _label(sc, st, e, f"{d:g} cm{how}"), e.id))
    return _match([(lab, val) for _, lab, val in sorted(out)], prefix)


def fight_targets(sc, st: LionState, side, prefix: str) -> list[tuple[str, str]]:
    """Enemies touched by one of your units [8 A]."""
    own = _own(st, side)
    out = []
    for e in _enemy(st, side):
        touching = [u.id for u in own if checks.within(u, e, CONTACT_TOL)]
        if touching:
            out.append((_label(sc, st, e, f"touched by {', '.join(touching)}"), e.id))
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if g.alive and side is not None and g.side != side:
            touching = [u.id for u in own if checks.within(u, g, CONTACT_TOL)]
            if touching:
                out.append((f"{rules.named(sc, g.id)} · general, touched by {', '.join(touching)}", g.id))
    return _match(out, prefix)


def fighters(sc, st: LionState, side, prefix: str, context: dict) -> list[tuple[str, str]]:
    target = st.units.get(str(context.get("target", "")))
    own = [u for u in _own(st, side) if target is None or checks.within(u, target, CONTACT_TOL)]
    return _match([(_label(sc, st, u), u.id) for u in own], prefix)


def reaction(st: LionState, side, prefix: str) -> list[tuple[str, str]]:
    return pending_answers(st.pending, side, prefix)


def reaction_more(sc, st: LionState, side, prefix: str, context: dict) -> list[tuple[str, str]]:
    p = st.pending
    if not p or p.get("kind") != "reinforcements" or context.get("answer") != "bring":
        return []
    from engine.lion.sequence.events import bases_of, eligible
    return _match([(_label(sc, st, u, f"{bases_of(u)} base(s)"), u.id) for u in eligible(st, p["side"])], prefix)


def option_completions(sc, st: LionState, side: str | None, kind: str, prefix: str, context: dict,
                       head: str = "") -> list[tuple[str, str]]:
    try:
        return _complete(sc, st, side, kind, prefix or "", context or {}, head or "")
    except Exception:              # a completion never breaks typing
        return []


def _complete(sc, st, side, kind, prefix, context, head):
    own = _own(st, side)
    if kind == "mover":
        return movers(sc, st, side, prefix)
    if kind in ("manoeuvre", "general_move"):
        if kind == "general_move" and not head:
            base = [("attach to one of your units", "attach"), ("leave the unit he is with", "detach"),
                    ("wheel first (at most 45 degrees)", "wheel"), ("advance (cm)", "advance")]
            return _match(base, prefix)
        if kind == "general_move" and head.split()[-1:] == ["attach"]:
            return _match([(_label(sc, st, u), u.id) for u in own], prefix)
        return manoeuvre(sc, st, side, prefix, context, head)
    if kind in ("charger", "about_unit"):
        return _match([(_label(sc, st, u), u.id) for u in own if _troop(u).moves and not u.moved], prefix)
    if kind == "charge_target":
        return charge_targets(sc, st, side, prefix, context)
    if kind == "gun":
        return _match([(_label(sc, st, u), u.id) for u in own if _troop(u).arm == "artillery"], prefix)
    if kind in ("deployed_gun", "limbered_gun"):
        want = kind == "deployed_gun"
        return _match([(_label(sc, st, u), u.id) for u in own if _troop(u).gun in ("light", "medium")
                       and u.deployed == want and not u.status_changed], prefix)
    if kind in ("mounted", "dismounted"):
        want = kind == "mounted"
        return _match([(_label(sc, st, u), u.id) for u in own if u.type == "dragoons" and u.mounted == want],
                      prefix)
    if kind == "own_general":
        return _match([(rules.named(sc, g.id), g.id) for g in sorted(st.generals.values(), key=lambda g: g.id)
                       if g.alive and (side is None or g.side == side)], prefix)
    if kind == "looter":
        return _match([(_label(sc, st, u), u.id) for u in own if u.looting], prefix)
    if kind == "shooter":
        return shooters(sc, st, side, prefix)
    if kind == "shoot_target":
        return targets_in_arc(sc, st, side, prefix, context)
    if kind == "fight_target":
        return fight_targets(sc, st, side, prefix)
    if kind == "fighter":
        return fighters(sc, st, side, prefix, context)
    if kind == "reaction":
        return reaction(st, side, prefix)
    if kind == "reaction_more":
        return reaction_more(sc, st, side, prefix, context)
    if kind == "base":
        pairs = [(_label(sc, st, u, u.side.title()), u.id) for u in sorted(st.units.values(), key=lambda u: u.id)
                 if u.alive]
        pairs += [(rules.named(sc, g.id) + " · general", g.id) for g in sorted(st.generals.values(), key=lambda g: g.id)
                  if g.alive]
        pairs += [(f"the {s.title()} camp", f"camp-{s}") for s in sorted(st.camps)]
        return _match(pairs, prefix)
    return []
