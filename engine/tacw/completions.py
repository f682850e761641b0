"""Completions for This Accursed Civil War's options (engine/tacw/verbs.py): what a player may
type next, read from the state with the engine's own read-only checks (fire arcs, close combat
fronts, a dry run of each step of a path, §5.4.3 command, §5.6 orders). Nothing here decides a
rule: a candidate the engine would refuse is left out, and the refusal names the rule.

Each function returns (label shown, value) pairs; the slash commands and `/act`'s whole-line
completion both read them through `TacwRuleset.completions`."""
from __future__ import annotations

import copy
import time

from engine.core.errors import HeraldError

# The dice each target would get (issue 12): every candidate's exact what-if (engine/core/odds.py,
# nothing committed), within a time budget so that the whole list answers quickly; a what-if over
# its budget, refused (hidden information) or failing leaves the candidate's plain label.
ODDS_EACH = 0.15         # CPU seconds one candidate's what-if may take (fire: ~8 ms; a close combat more)
ODDS_TOTAL = 1.0         # seconds all the candidates' what-ifs may take together
ODDS_LEAVES = 5_000      # die sequences one candidate's what-if may enumerate
LABEL_MAX = 100          # Discord's limit on a choice's name


def _vertex_names(sc) -> tuple[str, ...]:
    from engine.core import facing as F
    return F.VERTEX_NAMES[sc.grid.orientation]


def _unit_label(sc, u) -> str:
    names = _vertex_names(sc)
    state = [s for s in (u.formation if u.formation != "normal" else "", u.special_formation,
                         u.morale_state if u.morale_state != "normal" else "") if s]
    return (f"{u.name} ({u.kind}) {'&'.join(u.hexes)} facing {names[u.facing % 6]}"
            + (f", {', '.join(state)}" if state else ""))


def _own_unit(st, side, word):
    """The user's live unit named by `word` (id or hex), or None."""
    from engine.tacw.sequence.actions import find_unit
    if not word:
        return None
    try:
        u = find_unit(st, str(word).strip())
    except HeraldError:
        return None
    return u if u.side == side else None


def _actors(st, side) -> list:
    """Units of the user's active wing that have not used their action (TACW §3.2 C)."""
    act = st.activation
    if act is None or act.side != side:
        return []
    return [u for u in st.wing_units(act.wing) if u.id not in act.acted]


def _able(sc, st, side, action: str) -> list:
    """The active wing's units that may start `action` now: the engine's own begin_action
    (TACW §3.2 C one action per unit, §5.6 orders, §5.4.3 command) tried on a copy."""
    from engine.tacw.sequence.actions import begin_action
    out = []
    for u in _actors(st, side):
        trial = copy.copy(st)
        trial.activation = copy.deepcopy(st.activation)
        try:
            begin_action(sc, trial, side, u.id, "fire" if action == "face" and u.kind == "artillery"
                         else "move" if action == "face" else action)
        except HeraldError:
            continue
        out.append(u)
    return out


def _pending(st, side, kind):
    p = st.pending
    return p if p and p.get("kind") == kind and p.get("side") == side else None


def _wings_to_activate(sc, st, side) -> list[tuple[str, str]]:
    """The user's wings, those precedence allows now first, marked ▶ (TACW §4.2)."""
    from engine.tacw.sequence.activation import ORDER_NAMES, PRECEDENCE, eligible_wings, next_to_activate
    eligible = eligible_wings(st, side)
    who, tier = next_to_activate(st)
    now = st.phase == "activation" and st.activation is None and who == side and st.phasing == side
    first, rest = [], []
    for w in st.wings.values():
        if w.side != side:
            continue
        order = ORDER_NAMES.get(w.order, w.order)
        if w in eligible and now and PRECEDENCE[w.order] == tier:
            first.append((f"▶ {w.name} ({order}): may activate now", w.id))
        elif w.done:
            rest.append((f"{w.name} ({order}): done this turn", w.id))
        elif w not in eligible:
            rest.append((f"{w.name} ({order}): cannot activate this turn (TACW §5.3.2)", w.id))
        elif now:
            rest.append((f"{w.name} ({order}): not yet, higher orders first (TACW §4.2)", w.id))
        else:
            rest.append((f"{w.name} ({order}): not your turn to activate", w.id))
    return first + rest


def _front_hexes(sc, u) -> list[str]:
    from engine.tacw.geometry import unit_arcs
    return unit_arcs(sc, u)["front"]


def _fire_targets(sc, st, u, front_only: bool) -> list[tuple[str, str]]:
    """Enemy hexes `u` may fire at: adjacent front/flank (Salvo: front) hexes, checked with the
    engine's plan_shots (TACW §9.1); for a gun, hexes in range and front arc with a line of
    sight (TACW §9.9.2, §9.10)."""
    from engine.core import facing as F
    from engine.tacw.fire.small_arms import enemy_target, plan_shots
    out = []
    if u.kind == "artillery":
        from engine.tacw.fire.artillery import fire_line_of_sight, gun_reach
        hexes = sorted({h for e in st.units.values() if e.alive and e.side != u.side for h in e.hexes})
        for h in hexes:
            target = enemy_target(st, u, h)
            if target is None or gun_reach(sc, u, h) is not None:
                continue
            if not fire_line_of_sight(sc, st, u, u.hexes[0], h)[0]:
                continue
            d = min(sc.grid.distance(a, h) for a in u.hexes)
            out.append((f"{h} {target.name} ({target.kind}), {d} hexes", h))
        return out
    from engine.tacw.geometry import arc_to
    for h in F.adjacent_hexes(sc.grid, u.hexes):
        target = enemy_target(st, u, h)
        if target is None:
            continue
        try:
            plan_shots(sc, st, u, [h], front_only=front_only)
        except HeraldError:
            continue
        out.append((f"{h} {target.name} ({target.kind}), {arc_to(sc, u, h)} hex", h))
    return out


def _enemy_at(st, u, h):
    """The enemy unit at `h` that `u`'s fire or attack would meet, or None."""
    from engine.tacw.fire.small_arms import enemy_target
    try:
        return enemy_target(st, u, h)
    except HeraldError:
        return None


def _short_pct(p) -> str:
    """A probability in a few characters, as /odds writes it, a whole number without its ".0":
    30%, 2.5%, <0.1%."""
    from engine.core.odds_answer import _percent
    return _percent(p).replace(".0%", "%")


def _spread(odds, target) -> list[tuple[str, str]]:
    """The outcomes of a what-if, most likely first, as (what happens, chance): ("no effect",
    "70%"), ("F-Disordered", "30%"); the target's own name is left out of its changes (the
    candidate's label names it)."""
    names = () if target is None else (f"{target.name}: ", f"{target.name} ({target.id}): ")
    out = []
    for o in odds.outcomes:
        parts = []
        for part in o.label.split("; "):
            for n in names:
                if part.startswith(n):
                    part = part[len(n):]
                    break
            parts.append(part)
        out.append(("; ".join(parts), _short_pct(o.probability)))
    return out


def _with_odds(sc, st, side, candidates, line_of, target_of) -> list[tuple[str, str]]:
    """Each (label, value) with what its action would get, read from Herald's own exact what-if
    (engine/core/odds.py: the state is never touched, hidden information is refused). A what-if
    that fails, is refused, is cut at a horizon or goes over its time budget leaves the label as
    it is; so do the candidates left when the whole budget is spent."""
    from engine.core.odds import what_if
    from engine.core.verbs import WEIGH_CANDIDATES
    from engine.tacw.ruleset import TACW
    if not WEIGH_CANDIDATES.get():          # a search for a legal line: the values will do
        return list(candidates)
    deadline = time.perf_counter() + ODDS_TOTAL
    out = []
    for label, value in candidates:
        left = deadline - time.perf_counter()
        if left <= 0:
            out.append((label, value))
            continue
        try:
            odds = what_if(TACW, sc, st, side, line_of(value), max_leaves=ODDS_LEAVES, budget=None,
                           time_limit=min(ODDS_EACH, left))
            if not odds.exact or not odds.outcomes or len(label) + 12 > LABEL_MAX:
                raise ValueError("cut short, or no room")
            spread = _spread(odds, target_of(value))
        except Exception:               # HeraldError (refusal, TooManyOutcomes...) or any failure
            out.append((label, value))
            continue
        out.append((_fit(label, spread), value))
    return out


def _fit(label: str, spread: list[tuple[str, str]]) -> str:
    """`label · no effect 70% · F-Disordered 30%`, within Discord's 100 characters: an outcome's
    words are cut ("…") to fit, and "…" stands for the rarer outcomes left out."""
    text = label
    for i, (what, pct) in enumerate(spread):
        more = i + 1 < len(spread)
        room = LABEL_MAX - len(text) - len(" · ") - len(f" {pct}") - (len(" · …") if more else 0)
        if len(what) > min(room, 40):
            cut = min(room, 40) - 1
            if cut < 8:                     # no room for a readable outcome: say there are more
                return text + " · …" if i and len(text) + 4 <= LABEL_MAX else text
            what = what[:cut].rstrip() + "…"
        text += f" · {what} {pct}"
    return text


def _attack_targets(sc, st, u) -> list[tuple[str, str]]:
    from engine.tacw.close_combat.melee import check_attack
    out = []
    for h in _front_hexes(sc, u):
        try:
            d = check_attack(sc, st, u, h)
        except HeraldError:
            continue
        out.append((f"{h} {d.name} ({d.kind})" if d is not None else f"{h} enemy leaders", h))
    return out


def _path_choices(sc, st, unit, head: str) -> list[tuple[str, str]]:
    """The next steps of `unit`'s path after `head`, each tried on a dry run with the engine's
    own step checks (TACW §6.2, §7.1): front hexes, facings, about, wheels, steps back, a
    pistol, a hedgehog, with the MP spent so far. A head the engine refuses is shown as such."""
    from engine.tacw.movement import move as mv
    words_ = head.split()
    wanted = None                           # the head ends with a keyword that needs its argument
    if words_ and words_[-1].lower() in ("face", "wheel", "back", "pistol"):
        wanted = words_.pop().lower()
    sim = st.copy()
    su = sim.units[unit.id]
    partner = None if "alone" in (w.lower() for w in words_) else mv.partner_of(sim, su)
    ctx = mv.new_ctx(sc, sim, su, partner, "action")
    mv.set_restrictions(sc, sim, ctx, su)
    try:
        steps, opts = mv.parse_steps(sc, words_)
        for step in steps:
            mv.apply_step(sc, sim, ctx, step)
    except HeraldError as exc:
        return [(f"⚠ {exc}", wanted or "")]
    u = sim.units[unit.id]
    grid = sc.grid
    from engine.core import facing as F
    arcs = F.arcs(grid, u.hexes, u.facing)
    fronts = mv._outer(grid, u, "front") if u.is_double else arcs["front"]
    rears = mv._outer(grid, u, "rear") if u.is_double else arcs["rear"]
    cands = [["hex", h] for h in fronts] + [["face", v] for v in range(6) if v != u.facing]
    cands.append(["about", None])
    if u.is_double:
        cands += [["wheel", h] for h in u.hexes]
    cands += [["back", h] for h in rears]
    if u.kind == "cavalry":
        cands += [["pistol", h] for h in F.adjacent_hexes(grid, u.hexes)
                  if any(e.side != u.side for e in sim.units_at(h))]
    if u.kind == "heavy":
        cands.append(["hedgehog", None])
    if wanted:
        cands = [c for c in cands if c[0] == wanted]
    out = []
    for step in cands:
        sim2, ctx2 = sim.copy(), copy.deepcopy(ctx)
        try:
            mv.apply_step(sc, sim2, ctx2, step)
        except HeraldError:
            continue
        label = mv.step_label(sc, step)
        try:
            mv.final_checks(sc, st, sim2, ctx2, opts)
            end = ", may end here"
        except HeraldError:
            end = ""
        name = f"{label}: {ctx2['spent']} of {ctx2['ma']} MP{end}"
        out.append((name, label.split(" ", 1)[1] if wanted else label))
    return out


def _leader_path(sc, st, side, ld, head: str) -> list[tuple[str, str]]:
    """Hexes next to where the leader's path so far ends; each checked with the engine's own
    leader move on a copy when it can be (TACW §5.1.2, §5.2.2)."""
    from engine.tacw.movement import move as mv
    path = [w for w in head.split() if w in sc.grid]
    pos = path[-1] if path else ld.hex
    out, checked = [], []
    for h in sc.grid.neighbors(pos):
        if any(u.side != side for u in st.units_at(h)):
            continue
        try:
            events = mv.move_leader(sc, st.copy(), side, ld.id, path + [h])
            mp = events[-1].outcome.get("mp_spent")
            checked.append((f"{h} {sc.terrain_at(h)}: {mp} of 8 MP", h))
        except HeraldError:
            out.append((f"{h} {sc.terrain_at(h)}", h))
    return checked or out


def _leader_units(sc, st, side, ld, action: str) -> list[tuple[str, str]]:
    """Your units stacked with or next to the Army Commander, for his rally/reform (TACW §12.3)."""
    from engine.tacw.morale.recovery import rally_check, reform_plan
    out = []
    for u in st.units.values():
        if not u.alive or u.side != side or ld.hex is None:
            continue
        if not any(h == ld.hex or sc.grid.adjacent(h, ld.hex) for h in u.hexes):
            continue
        try:
            rally_check(u) if action == "rally" else reform_plan(u, None)
        except HeraldError:
            continue
        out.append((_unit_label(sc, u), u.id))
    return out


def option_completions(sc, st, side: str | None, kind: str, prefix: str, context: dict,
                       head: str) -> list[tuple[str, str]] | None:
    """The completions of the options engine/tacw/verbs.py declares, for `side`; None for a kind
    `TacwRuleset.completions` answers itself (wing, order, unit lists, hex, deployment)."""
    prefix = (prefix or "").lower().strip()
    ctx = {k: str(v).lower().strip() for k, v in (context or {}).items() if v}
    out: list[tuple[str, str]]
    if side is None:
        return []
    if kind == "activate":
        out = _wings_to_activate(sc, st, side)
    elif kind == "bypass":
        p = _pending(st, side, "bypass")
        out = [(f"{st.wings[w].name}", w) for w in p["options"] if w in st.wings] if p else []
        out.append(("No bypass", "none"))
    elif kind in ("mover", "actor", "firer", "salvo_unit"):
        action = {"mover": "move", "actor": "face", "firer": "fire", "salvo_unit": "fire"}[kind]
        units = _able(sc, st, side, action)
        if kind in ("firer", "salvo_unit"):   # cavalry fires its pistols in a move (TACW §9.2)
            from engine.tacw.fire.small_arms import cannot_fire
            shots = ("heavy",) if kind == "salvo_unit" else ("heavy", "light", "artillery")
            units = [u for u in units if u.kind in shots and cannot_fire(st, u) is None]
        out = [(_unit_label(sc, u), u.id) for u in units]
    elif kind == "rallier":                   # rally: Shaken or Broken units (TACW §12.2.4)
        from engine.tacw.morale.recovery import rally_check
        out = []
        for u in _able(sc, st, side, "rally"):
            try:
                rally_check(u)
            except HeraldError:
                continue
            out.append((_unit_label(sc, u), u.id))
    elif kind == "reformer":
        from engine.tacw.morale.recovery import reform_plan
        needs, others = [], []
        for u in _able(sc, st, side, "reform"):
            if u.kind in ("artillery", "wagon"):
                continue
            try:
                _, what, _ = reform_plan(u, None)
                needs.append((f"{_unit_label(sc, u)}: {what}", u.id))
            except HeraldError:
                others.append((_unit_label(sc, u), u.id))
        out = needs + others
    elif kind == "destination":               # move's path (TACW §7)
        u = _own_unit(st, side, ctx.get("unit"))
        if u is None:
            return []
        out = _path_choices(sc, st, u, head)
        if out and out[0][0].startswith("⚠"):
            return out
    elif kind == "vertex":
        names = _vertex_names(sc)
        u = _own_unit(st, side, ctx.get("unit"))
        gun = " instead of firing (TACW §6.2.3)" if u is not None and u.kind == "artillery" else ""
        out = [(f"{n}{gun}", n) for i, n in enumerate(names) if u is None or i != u.facing]
    elif kind in ("fire_target", "salvo_target"):
        u = _own_unit(st, side, ctx.get("unit"))
        if u is None:
            return []
        taken = head.split()
        out = [(n, v) for n, v in _fire_targets(sc, st, u, kind == "salvo_target") if v not in taken]
        out = [(n, v) for n, v in out if not prefix or prefix in n.lower() or prefix in v.lower()][:25]
        verb = "salvo" if kind == "salvo_target" else "fire"
        out = _with_odds(sc, st, side, out, lambda h: " ".join([verb, u.id, *taken, h]),
                         lambda h: _enemy_at(st, u, h))
    elif kind == "attacker":
        act = st.activation
        out = []
        if act is not None and act.side == side:
            out = [(_unit_label(sc, u), u.id) for u in st.wing_units(act.wing) if _attack_targets(sc, st, u)]
        out.append(("none: withdraw every designation", "none"))
    elif kind == "attack_target":
        u = _own_unit(st, side, ctx.get("unit"))
        out = _attack_targets(sc, st, u) if u is not None else []
        out = [(n, v) for n, v in out if not prefix or prefix in n.lower() or prefix in v.lower()][:25]
        if u is not None:
            out = _with_odds(sc, st, side, out, lambda h: f"attack {u.id} {h}", lambda h: _enemy_at(st, u, h))
    elif kind in ("counter_unit", "counter_target"):
        p = _pending(st, side, "reaction_attack")
        pairs = [o.split() for o in (p or {}).get("options", []) if len(o.split()) == 2]
        if kind == "counter_unit":
            ids = list(dict.fromkeys(uid for uid, _ in pairs))
            out = [(_unit_label(sc, st.units[i]), i) for i in ids if i in st.units]
            out.append(("none: no (more) reaction attacks", "none"))
        else:
            u = _own_unit(st, side, ctx.get("unit"))
            out = [(f"{h} {st.units_at(h)[0].name}" if st.units_at(h) else h, h)
                   for uid, h in pairs if u is not None and uid == u.id]
    elif kind == "reactor":
        p = _pending(st, side, "reaction_fire")
        taken = set(head.split())
        out = [(_unit_label(sc, st.units[i]), i) for i in (p or {}).get("options", [])
               if i in st.units and i not in taken]
        if p and not head:
            out += [("all: every unit offered fires", "all"), ("none: no Reaction Fire", "none")]
    elif kind == "react_unit":
        p = _pending(st, side, "reaction_move")
        choices = (p or {}).get("choices", {})
        out = [(f"{_unit_label(sc, st.units[i])}: {', '.join(k)}", i) for i, k in choices.items() if i in st.units]
        out.append(("none: no (more) reaction movement", "none"))
    elif kind == "react_how":
        p = _pending(st, side, "reaction_move")
        u = _own_unit(st, side, ctx.get("unit"))
        kinds = (p or {}).get("choices", {}).get(u.id, []) if u is not None else []
        out = []
        if "face" in kinds:
            if u.is_double:
                out += [(f"wheel {h} (pivot)", f"wheel {h}") for h in u.hexes]
            else:
                out += [(f"face {n}", f"face {n}") for i, n in enumerate(_vertex_names(sc)) if i != u.facing]
        if "hedgehog" in kinds:
            out.append(("hedgehog (a morale check, TACW §7.4.3)", "hedgehog"))
        if "retreat" in kinds:
            out.append(("retreat <steps...> (TACW §7.4.4): type the path after it", "retreat"))
    elif kind == "interceptor":
        p = _pending(st, side, "intercept")
        out = [(_unit_label(sc, st.units[i]), i) for i in (p or {}).get("options", []) if i in st.units]
        if p:
            out += [("none: not at this hex", "none"), ("pass: not during the rest of this move", "pass")]
    elif kind == "leader":
        out = [(f"{ld.name} ({'Army' if ld.role == 'ac' else 'Wing'} Commander) {ld.hex}", ld.id)
               for ld in st.leaders.values() if ld.side == side and ld.status == "active" and ld.hex]
    elif kind == "enter_unit":                # /enter: units waiting off the map (D123)
        from engine.tacw.battles.marston_moor import waiting_units
        out = [(f"{st.units[uid].name}: enters at {rf.hex} from turn {rf.turn}", uid)
               for uid, rf in sorted(waiting_units(sc, st, side).items())]
    elif kind == "boat_hex":                  # /boatbridge: the Lambourn hexes (D108)
        from engine.tacw.battles.second_newbury import params
        p = params(sc, "boat_bridge") or {}
        out = [(h, h) for h in p.get("hexes", [])] if p.get("side") == side else []
    elif kind == "leader_target":
        ld = st.leaders.get(ctx.get("leader", ""))
        if ld is None or ld.side != side or ld.hex is None:
            return []
        action = ctx.get("action", "move")
        if action == "move":
            out = _leader_path(sc, st, side, ld, head)
        elif head:                           # rally/reform name one unit
            return []
        else:
            out = _leader_units(sc, st, side, ld, action)
    elif kind == "choice":                    # retreat / choose: the owner's choice (TACW §10.4, §12.4)
        p = st.pending if st.pending and st.pending.get("side") == side else None
        labels = (p or {}).get("labels", {})
        out = [(f"{labels.get(o, o)}", o) for o in (p or {}).get("options", [])
               if p.get("kind") in ("retreat", "advance") and o != "none"]
    elif kind == "fire_step":                 # fire's step: to a rear hex / from a front hex (TACW §9.3)
        u = _own_unit(st, side, ctx.get("unit"))
        if u is None:
            return []
        from engine.core import facing as F
        arcs = F.arcs(sc.grid, u.hexes, u.facing)
        if ctx.get("mode") == "retreat":
            out = [(f"to {h}: step back into this rear hex (Retreat fire)", f"to {h}") for h in arcs["rear"]]
        else:
            out = [(f"from {h}: fire from this front hex or half", f"from {h}") for h in [*arcs["front"], *u.hexes]]
    elif kind == "gun":                       # turngun: your guns of the active wing
        out = [(_unit_label(sc, u), u.id) for u in _able(sc, st, side, "fire") if u.kind == "artillery"]
    elif kind == "heavy":                     # hedgehog: heavy infantry of the active wing (TACW §6.3.2)
        out = [(_unit_label(sc, u), u.id) for u in _able(sc, st, side, "move") if u.kind == "heavy"]
    elif kind == "policy_scope":              # policy ... for <wing|unit>
        out = [(f"{w.name} (wing)", w.id) for w in st.wings.values() if w.side == side]
        out += [(_unit_label(sc, u), u.id) for u in st.units.values() if u.alive and u.side == side]
    else:
        return None
    return [(n, v) for n, v in out if not prefix or prefix in n.lower() or prefix in v.lower()][:25]

