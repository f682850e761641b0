"""Artillery fire of Jours de Gloire [7]: the `fire` verb, the Fire Table, counter-battery fire
[7.6], and (through fire/reaction.py) reaction fire [8.3]; optional [7] misdirected fire.

Verb (registered at import):
  fire <unit> <target hex> [with <unit2>] [face <vertex>]        [7.1]-[7.5], [12]

Procedure, after the text:
- Who [1.D], [2.4], [7.2]: artillery of the active formation, in its fire step (before any
  movement), in good order (disordered artillery cannot fire [7.2]), once per activation; it is
  then marked "Tir/Mouvement réduit" (Unit.fired) [4.4]. Without Orders it fires without any
  engagement check [2.4].
- Turning [7.2]: `face <vertex>` turns it in place up to 60 degrees (one vertex) before it fires;
  not movement. Two artillery units of one hex face alike (HERALD D28), so the other artillery of
  the hex turns with it.
- Obligation [7.2], HERALD D33: with an enemy unit in one of its frontal hexes (all six for a
  six-front unit, D70), before or after the turn, it must fire at one of those hexes. The
  sequence calls `obliged_to_fire` before the fire step may close.
- Where [6.1], [7.3], [7.4]: through its frontal hexes (six-front units all round; sight.in_fire_arc,
  HERALD D83), within its maximum range, in line of fire (fire/sight.py); at night only at an
  adjacent hex [12].
- Combined fire [7.1], HERALD D35: `with` a second artillery unit of the same hex and formation:
  one roll with the better firepower +2; each must be able to fire at the target, and the roll
  takes the range band of the unit whose firepower is used (the better total; HERALD D84). Both
  count as having fired.
- Resolution [7.5]: d10 + firepower + the Fire Table DRMs (tables.fire_modifiers,
  tables.terrain_fire_modifiers: range band, combined, target in square, uphill, the target's
  terrain and a trench or fortification side in front of it). 8 or less nothing (D34); 9-12 every
  unit of the target stack checks cohesion, disordered if it fails; 13-14 every unit disordered;
  15+ every unit routed (artillery eliminated) ([5.1] L307, HERALD D37). The ladder, the checks
  (night +2 [12]) and the rout retreats are combat/results.py's.
- Counter-battery [7.6], HERALD D38, D84: each artillery unit of the hex fired upon still in good
  order after the results may fire back at once, individually, without turning, under the normal
  limits of fire, at the artillery that fired (the top one of a combined pair); once per enemy
  activation, and never with reaction fire in the same activation [8.3]
  (`Activation.reacted`). Its owner's standing policy answers ("counter_battery": auto, never,
  ask); "ask" stops the game with a pending decision. Counter-battery draws no counter-battery.
- Optional [7] misdirected fire (game option "misdirected-fire"), HERALD D67: when the line passed
  over a unit standing next to the target and the unmodified die is 0-2, the fire strikes that
  unit's stack instead (a cohesion check at -2 each, failed: disordered) and the target is
  untouched. With two such hexes Herald picks the one holding the firing player's enemies, else
  the lower hex id (HERALD D84).

Other modules call: `reaction_fire`, `reaction_fire_options` (the combat helper, [8.3]),
`fire_odds_for` (/odds and the menus), `obliged_to_fire` (the sequence, [7.2]),
`counter_battery_candidates`.
"""
from __future__ import annotations

from fractions import Fraction

from engine.core import facing as core_facing
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier

from engine.jdg import checks, geometry, rules, tables
from engine.jdg.fire import sight
from engine.jdg.combat.results import is_night
from engine.jdg.sequence import command as chiefs
from engine.jdg.setup import has_option
from engine.jdg.state import JdgState, Unit

USAGE = ("fire <unit> <target hex> [with <unit2>] [face <vertex>]: artillery of the active formation "
         "fires (JdG [7])")
FIRE_TABLE = "JdG Fire Table [7.5]: d10 + firepower + DRM (DRM values: tables.py, Herald completion)"
KINDS = {
    "fire": "fires at",
    "counter_battery": "fires back (counter-battery) at",
    "reaction": "makes reaction fire at",
    "infantry_reaction": "makes reaction fire at",
}


def _results():
    """combat/results.py: the ladder [10.1]-[10.2] and the cohesion check [0.3] (imported lazily:
    the combat package imports this module for reaction fire)."""
    from engine.jdg.combat import results
    return results


def name_of(sc, unit: Unit) -> str:
    """A unit named for people: "Art. Gardanne (f-art-gardanne)"."""
    return f"{sc.unit(unit.id).name} ({unit.id})"


def _vertex_name(sc, v: int) -> str:
    return core_facing.VERTEX_NAMES[sc.map.orientation][v % 6]


# == who may fire, where =========================================================================

def of_active_formation(sc, st: JdgState, unit: Unit) -> bool:
    """[1.D], [2.2]: a unit of a formation the marker activated; a combined marker (section D 2.1,
    "Marmont": all the side's artillery) activates one arm of its formations (Activation.arm)."""
    act = st.activation
    if act is None or unit.side != act.side or unit.formation not in act.formations:
        return False
    if act.reserve and unit.id not in act.reserve_units:
        return False                    # next to an enemy: not activated in phase D bis (optional 1)
    return not act.arm or unit.arm == act.arm


def enemy_front_hexes(sc, st: JdgState, unit: Unit) -> list[str]:
    """The unit's frontal hexes holding an enemy unit [6.1], [7.2]."""
    return [h for h in geometry.frontal_hexes(sc, unit)
            if any(x.side != unit.side for x in st.units_at(h))]


def shot_problem(sc, st: JdgState, unit: Unit, target_hex: str) -> tuple[str, str] | None:
    """Why `unit` (standing as it is: no turning) cannot fire at `target_hex`, as (reason,
    section), or None: night [12], range [7.3], front [6.1]/[7.2], line of fire [7.4]."""
    us = sc.unit(unit.id)
    d = sight.fire_range(sc, unit.hex, target_hex)
    if d == 0:
        return f"{name_of(sc, unit)} does not fire at its own hex", "JdG [7.3]"
    if is_night(sc, st) and d > 1:
        return (f"it is night: artillery fires only point-blank, at an adjacent hex ({target_hex} is {d} "
                f"hexes from {name_of(sc, unit)})", "JdG [12]")
    if sight.range_band(sc, unit.id, unit.hex, target_hex) is None:
        return (f"{target_hex} is {d} hexes from {name_of(sc, unit)}, beyond its maximum range of "
                f"{us.max_range} (counted from the hex after the firer to the target's)", "JdG [7.3]")
    if not sight.in_fire_arc(sc, unit, target_hex):
        front = ", ".join(geometry.frontal_hexes(sc, unit))
        return (f"{target_hex} is not in front of {name_of(sc, unit)} (facing "
                f"{_vertex_name(sc, unit.facing)}, frontal hexes {front}): artillery fires only through "
                f"its frontal hexes", "JdG [6.1], [7.2]")
    clear, why = sight.line_of_sight(sc, st, unit.hex, target_hex)
    if not clear:
        why = why.rsplit(" (JdG [7.4]", 1)[0]
        return f"no line of fire from {unit.hex} to {target_hex}: {why}", "JdG [7.4]"
    return None


def obliged_to_fire(sc, st: JdgState) -> list[tuple[str, list[str]]]:
    """[7.2], HERALD D33: the active formation's artillery that must still fire, with the enemy
    hexes in its front it may fire at: in good order, not yet fired, an enemy in a frontal hex
    it can fire at. The sequence refuses to close the fire step while this is not empty."""
    act = st.activation
    if act is None:
        return []
    out = []
    for u in st.units.values():
        if not (u.alive and u.arm == "artillery" and u.condition == "good" and not u.fired
                and u.id not in act.fired and of_active_formation(sc, st, u) and chiefs.may_act(st, u)):
            continue
        hexes = [h for h in enemy_front_hexes(sc, st, u) if shot_problem(sc, st, u, h) is None]
        if hexes:
            out.append((u.id, hexes))
    return out


# == the Fire Table [7.5] ========================================================================

def fire_terms(sc, st: JdgState, firers: list[Unit], target_hex: str, victims: list[Unit],
               kind: str) -> tuple[int, list[Modifier], str, Unit]:
    """[7.5]: (firepower, DRMs, range band, the unit whose firepower counts) of a shot. `kind`:
    fire, counter_battery, reaction (artillery, [7.6], [8.3]) or infantry_reaction (optional
    [8.3]: no firepower, only its own DRMs and terrain)."""
    terrain = sc.map.terrain_at(target_hex)
    if terrain not in tables.TERRAIN:
        terrain = "clear"
    hexside = sight.hexside_into_target(sc, firers[0].hex, target_hex)
    if kind == "infantry_reaction":
        u = firers[0]
        us = sc.unit(u.id)
        coh = _results().cohesion(sc, u)
        mods = tables.infantry_fire_modifiers(line=us.subtype != "light", steady=coh >= 7 or us.strength >= 7,
                                              target_terrain=terrain, hexside=hexside)
        return 0, mods, "point_blank", u
    best = None
    for f in firers:
        band = sight.range_band(sc, f.id, f.hex, target_hex)
        if band is None:
            continue
        drm = tables.FIRE_DRMS[{"point_blank": "point_blank", "effective": "effective_range",
                                "maximum": "maximum_range"}[band]].value
        score = sc.unit(f.id).firepower + drm
        if best is None or score > best[0]:
            best = (score, f, band)
    if best is None:
        raise Illegal(f"{target_hex} is beyond the range of {', '.join(name_of(sc, f) for f in firers)}",
                      "JdG [7.3]")
    _, lead, band = best
    level = sc.map.level
    mods = tables.fire_modifiers(
        range_band=band, combined=len(firers) > 1, reaction=kind == "reaction",
        stacked_with_square=kind == "reaction" and any(x.square for x in st.units_at(lead.hex)),
        target_in_square=any(v.square for v in victims),
        target_uphill=level(target_hex) > level(lead.hex),
        counter_battery=kind == "counter_battery", target_terrain=terrain, hexside=hexside)
    return sc.unit(lead.id).firepower, mods, band, lead


def _misdirected_hex(sc, st: JdgState, from_hex: str, target_hex: str, side: str) -> str | None:
    """Optional [7], HERALD D67, D84: the hex the line passed over, next to the target, whose
    units a misdirected shot strikes (enemy-held first, then the lower hex id)."""
    passed = sight.trace(sc, st, from_hex, target_hex).passed_over
    g = geometry.grid(sc)
    near = [h for h in passed if g.adjacent(h, target_hex) and st.units_at(h)]
    if not near:
        return None
    near.sort(key=lambda h: (not any(u.side != side for u in st.units_at(h)), h))
    return near[0]


def apply_fire_result(sc, st: JdgState, band: tables.Band, victims: list[Unit], stream, section: str,
                      cause: str, away_from) -> list[Event]:
    """[7.5] on each victim, top first ([5.1] L307; HERALD D37): "check" a cohesion check each,
    disordered if failed; "disorder" disordered; "rout" routed (artillery eliminated [10.2])."""
    res = _results()
    events: list[Event] = []
    for v in victims:
        if not v.alive:
            continue
        if band.key == "check":
            passed, evs = res.cohesion_check(sc, st, v, stream, "cohesion check (artillery fire)",
                                             section, roller=v.side)
            events += evs
            if not passed:
                events += res.disorder(sc, st, v, stream, section, cause, away_from)
        elif band.key == "disorder":
            events += res.disorder(sc, st, v, stream, section, cause, away_from)
        elif band.key == "rout":
            events += res.rout(sc, st, v, stream, section, cause, away_from)
    return events


def resolve_shot(sc, st: JdgState, firers: list[Unit], target_hex: str, victims: list[Unit], stream, *,
                 kind: str, section: str, roller: str | None = None) -> list[Event]:
    """One shot on the Fire Table [7.5] and its result on `victims` (the whole target stack for
    artillery fire [5.1]; the top unit, or the infantry under artillery, for reaction and
    counter-battery fire [5.1] L309-L311). Optional [7]: a misdirected shot strikes instead."""
    side = firers[0].side
    base, mods, band_name, lead = fire_terms(sc, st, firers, target_hex, victims, kind)
    who = " and ".join(name_of(sc, f) for f in firers)
    purpose = f"{kind.replace('_', ' ')} of {who} at {target_hex}"
    # read: the band of the total, and, with misdirected fire, whether the die is 2 or less (a
    # what-if tries one result of each such band, issue 13)
    misdirect = has_option(st, "misdirected-fire") and kind in ("fire", "counter_battery")
    reads = checks.table_reads(tables.FIRE_BANDS, base + sum(m.value for m in mods))
    die = checks.d10(stream, purpose, roller,
                     reads=reads + ((tables.FRIENDLY_FIRE_MAX_UNMODIFIED + 1,) if misdirect else ()))
    total = die + base + sum(m.value for m in mods)
    band = tables.fire_result(total)
    targets = ", ".join(name_of(sc, v) for v in victims)
    mod_text = "".join(f" {m.value:+d} {m.reason}" for m in mods)
    fp = f" + firepower {base}" if kind != "infantry_reaction" else ""
    verb = KINDS[kind] if len(firers) == 1 else KINDS[kind].replace("fires", "fire").replace("makes", "make")
    narrative = (f"{who} {verb} {target_hex} ({targets}): d10 {die}{fp}{mod_text} = {total}: "
                 f"{band.label}, {band.result}")
    ev = Event("fire", side, section, narrative,
               inputs={"kind": kind, "firers": [f.id for f in firers], "target_hex": target_hex,
                       "victims": [v.id for v in victims], "range": sight.fire_range(sc, lead.hex, target_hex),
                       "range_band": band_name, "firepower_of": lead.id, "base_name": "firepower"},
               base=base, modifiers=mods,
               dice=[DieRoll(purpose, "d10", die, effect=band.key)],
               table=FIRE_TABLE, row=band.label,
               outcome={"total": total, "result": band.key})
    events = [ev]
    cause = f"{kind.replace('_', ' ')} of {who}"
    if misdirect and die <= tables.FRIENDLY_FIRE_MAX_UNMODIFIED:
        stray = _misdirected_hex(sc, st, lead.hex, target_hex, side)
        if stray is not None:
            struck = st.units_at(stray)
            ev.outcome["misdirected"] = stray
            ev.outcome["result"] = "misdirected"
            events.append(Event("misdirected_fire", side, "JdG optional [7]",
                                f"the unmodified die is {die} (2 or less): the fire strikes "
                                f"{', '.join(name_of(sc, u) for u in struck)} in {stray}, next to the target, "
                                f"instead of {target_hex} (HERALD D67)",
                                inputs={"die": die, "hex": stray}, outcome={"struck": [u.id for u in struck]}))
            res = _results()
            for u in struck:
                if not u.alive:
                    continue
                passed, evs = res.cohesion_check(sc, st, u, stream, "cohesion check (misdirected fire)",
                                                 "JdG optional [7]", [tables.FRIENDLY_FIRE_COHESION.modifier()],
                                                 roller=u.side)
                events += evs
                if not passed:
                    events += res.disorder(sc, st, u, stream, "JdG optional [7]", "misdirected " + cause,
                                           lead.hex)
            return events
    events += apply_fire_result(sc, st, band, victims, stream, section, cause, lead.hex)
    return events


# == the `fire` verb =============================================================================

def _parse(sc, st: JdgState, args: tuple[str, ...]) -> tuple[str, str, str | None, int | None]:
    if len(args) < 2:
        raise CannotParse("usage: " + USAGE)
    unit_tok, target_tok = args[0], args[1]
    rest = list(args[2:])
    partner = face = None
    while rest:
        w = rest.pop(0)
        if w == "with" and rest and partner is None:
            partner = rest.pop(0)
        elif w == "face" and rest and face is None:
            face = rest.pop(0)
        else:
            raise CannotParse(f"the word '{w}' is not part of the command: usage: {USAGE}")
    g = geometry.grid(sc)
    if target_tok in g:
        target = target_tok
    else:
        t = st.units.get(target_tok)
        if t is None or not t.alive:
            raise Illegal(f"'{target_tok}' is neither a hex of the map (CCRR) nor a unit on it", "JdG [7]")
        target = t.hex
    vertex = None
    if face is not None:
        try:
            vertex = int(face) % 6 if face.isdigit() else core_facing.vertex_index(g, face)
        except ValueError:
            names = ", ".join(core_facing.VERTEX_NAMES[sc.map.orientation])
            raise Illegal(f"'{face}' is not a vertex: one of {names}", "JdG [6.1]") from None
    return unit_tok, target, partner, vertex


def _need_may_fire(sc, st: JdgState, u: Unit) -> None:
    """[7.2], [4.4], [1.D]: good-order artillery of the active formation that has not fired or
    moved this activation."""
    if u.arm != "artillery":
        raise Illegal(f"{name_of(sc, u)} is {u.arm}: only artillery fires (infantry fires only in "
                      f"reaction, optional [8.3])", "JdG [7.1]")
    if not of_active_formation(sc, st, u):
        raise Illegal(f"{name_of(sc, u)} is not of the active formation ({', '.join(st.activation.formations)})",
                      "JdG [1] D, [2.2]")
    if u.formation in st.activation.failed or not chiefs.may_act(st, u):
        raise Illegal(f"the commander's initiative of {chiefs.group_key(st, u) or u.formation} failed: "
                      "its units may only rally", "JdG [2.4]; HERALD D13")
    if u.condition != "good":
        raise Illegal(f"{name_of(sc, u)} is {u.condition}: disordered artillery cannot fire", "JdG [7.2]")
    if u.fired or u.id in st.activation.fired:
        raise Illegal(f"{name_of(sc, u)} has already fired this activation", "JdG [7.2], [4.4]")
    if u.id in st.activation.moved:
        raise Illegal(f"{name_of(sc, u)} has moved: artillery fires before any movement", "JdG [7.2], [4.4]")


def do_fire(sc, st: JdgState, side: str, cmd, stream) -> list[Event]:
    """`fire <unit> <target> [with <unit2>] [face <vertex>]` [7.1]-[7.5], [12]; then the
    counter-battery fire it may draw [7.6]."""
    rules.need_active(st, side)
    unit_tok, target_hex, partner_tok, vertex = _parse(sc, st, cmd.args)
    u = rules.unit_of(st, unit_tok, side)
    _need_may_fire(sc, st, u)
    firers = [u]
    if partner_tok is not None:
        p = rules.unit_of(st, partner_tok, side)
        if p.id == u.id:
            raise Illegal("combined fire needs a second artillery unit", "JdG [7.1]")
        _need_may_fire(sc, st, p)
        if p.hex != u.hex:
            raise Illegal(f"{name_of(sc, p)} is in {p.hex}, not in {u.hex}: only two artillery units in one hex "
                          f"combine their fire", "JdG [7.1]")
        if p.formation != u.formation:
            raise Illegal(f"{name_of(sc, u)} and {name_of(sc, p)} are of different formations: only artillery of "
                          f"one formation combines its fire", "JdG [7.1]")
        firers.append(p)
    rules.enter_step(st, "fire", sc=sc)
    events: list[Event] = []
    before = sorted({h for f in firers for h in enemy_front_hexes(sc, st, f)})
    if vertex is not None and vertex != u.facing:
        turn = core_facing.turn_cost_vertices(u.facing, vertex)
        if turn > 1:
            raise Illegal(f"{name_of(sc, u)} may turn at most 60 degrees (one vertex) before firing: from "
                          f"{_vertex_name(sc, u.facing)} to {_vertex_name(sc, vertex)} is {60 * turn}", "JdG [7.2]")
        turned = [x for x in st.units_at(u.hex) if x.side == side and x.arm == "artillery"]
        for x in turned:
            x.facing = vertex
        events.append(Event("turn", side, "JdG [7.2]",
                            f"{', '.join(name_of(sc, x) for x in turned)} turn{'s' if len(turned) == 1 else ''} in "
                            f"place to face {_vertex_name(sc, vertex)} before firing (not movement; two artillery "
                            f"of one hex face alike, HERALD D28)",
                            inputs={"units": [x.id for x in turned], "facing": vertex}))
    after = sorted({h for f in firers for h in enemy_front_hexes(sc, st, f)})
    obliged = before or after
    if obliged and target_hex not in obliged:
        raise Illegal(f"an enemy unit stands in a frontal hex of {name_of(sc, u)} ({', '.join(obliged)}): it must "
                      f"fire at it (before as after turning)", "JdG [7.2]")
    stack = st.units_at(target_hex)
    if not stack:
        raise Illegal(f"no unit stands in {target_hex}", "JdG [7.5]")
    if any(x.side == side for x in stack):
        raise Illegal(f"{target_hex} holds your own units", "JdG [7.5]")
    for f in firers:
        problem = shot_problem(sc, st, f, target_hex)
        if problem is not None:
            raise Illegal(*problem)
    victims = list(stack)
    section = "JdG [7.5]" + (", [7.1]" if len(firers) > 1 else "")
    events += resolve_shot(sc, st, firers, target_hex, victims, stream, kind="fire", section=section)
    act = st.activation
    for f in firers:
        f.fired = True
        f.acted = True
        if f.id not in act.fired:
            act.fired.append(f.id)
    st.last_action = {"verb": "fire", "firers": [f.id for f in firers], "target": target_hex}
    events += counter_battery(sc, st, firers, target_hex, stream)
    return events


# == counter-battery fire [7.6] ==================================================================

def counter_battery_candidates(sc, st: JdgState, firer_hex: str, target_hex: str) -> list[Unit]:
    """[7.6], HERALD D38: the artillery in the hex fired upon that may answer: still in good order,
    not yet used for counter-battery or reaction fire this activation [8.3], able to fire at the
    firer's hex as it stands (no turning [7.2]; range, front, line of fire, night)."""
    act = st.activation
    used = act.reacted if act is not None else []
    out = []
    for g in st.units_at(target_hex):
        if g.arm != "artillery" or g.condition != "good" or g.id in used:
            continue
        if act is not None and g.side == act.side:
            continue
        if shot_problem(sc, st, g, firer_hex) is None:
            out.append(g)
    return out


def _counter_target(st: JdgState, firer_ids: list[str], firer_hex: str) -> Unit | None:
    """[7.6], [5.1] L311, HERALD D38: the artillery that fired, the top one of a combined pair."""
    return next((u for u in st.units_at(firer_hex) if u.id in firer_ids), None)


def _counter_fire(sc, st: JdgState, gun: Unit, firer_ids: list[str], firer_hex: str, stream) -> list[Event]:
    target = _counter_target(st, firer_ids, firer_hex)
    if target is None or not gun.alive or gun.condition != "good":
        return []
    if st.activation is not None and gun.id not in st.activation.reacted:
        st.activation.reacted.append(gun.id)
    return resolve_shot(sc, st, [gun], firer_hex, [target], stream, kind="counter_battery",
                        section="JdG [7.6]", roller=gun.side)


def counter_battery(sc, st: JdgState, firers: list[Unit], target_hex: str, stream) -> list[Event]:
    """[7.6]: after an artillery shot and its results, the artillery fired upon may answer,
    as its owner's standing policy "counter_battery" says (auto / never / ask)."""
    if not firers or not firers[0].alive:
        return []
    firer_hex = firers[0].hex
    firer_ids = [f.id for f in firers]
    cands = counter_battery_candidates(sc, st, firer_hex, target_hex)
    if not cands:
        return []
    owner = cands[0].side
    pol = rules.policy(st, owner, "counter_battery")
    if pol == "never":
        return [Event("counter_battery_declined", owner, "JdG [7.6]",
                      f"{owner.title()}'s standing policy: no counter-battery fire from "
                      f"{', '.join(name_of(sc, g) for g in cands)}", outcome={"policy": "never"})]
    if pol == "ask":
        options = [g.id for g in cands] + (["all"] if len(cands) > 1 else []) + ["none"]
        labels = {g.id: f"{name_of(sc, g)} fires back" for g in cands}
        labels.update({"all": "all of them fire back, one after the other", "none": "no counter-battery fire"})
        target = _counter_target(st, firer_ids, firer_hex)
        st.pending = {"kind": "counter_battery", "side": owner, "options": options, "labels": labels,
                      "default": options[-2] if len(options) > 1 else "none",
                      "prompt": f"counter-battery fire at {name_of(sc, target)} in {firer_hex}?",
                      "section": "JdG [7.6]", "firers": firer_ids, "firer_hex": firer_hex,
                      "target_hex": target_hex}
        return [Event("decision", owner, "JdG [7.6]",
                      f"{owner.title()} may answer with counter-battery fire from "
                      f"{', '.join(name_of(sc, g) for g in cands)} at {name_of(sc, target)}",
                      outcome={"pending": "counter_battery", "options": options})]
    events: list[Event] = []
    for g in cands:
        events += _counter_fire(sc, st, g, firer_ids, firer_hex, stream)
    return events


def resume_counter_battery(sc, st: JdgState, side: str, answer: str, more: list[str], stream) -> list[Event]:
    """The answer to a counter-battery decision [7.6]: a unit id, "all" or "none"."""
    p = st.pending
    st.pending = None
    if answer == "none":
        return [Event("counter_battery_declined", side, "JdG [7.6]", f"{side.title()} makes no counter-battery fire")]
    cands = counter_battery_candidates(sc, st, p["firer_hex"], p["target_hex"])
    chosen = cands if answer == "all" else [g for g in cands if g.id == answer]
    if not chosen:
        raise Illegal(f"{answer} can no longer fire back", "JdG [7.6]")
    events: list[Event] = []
    for g in chosen:
        events += _counter_fire(sc, st, g, p["firers"], p["firer_hex"], stream)
    return events


# == odds ==========================================================================================

def fire_odds_for(sc, st: JdgState, unit_id: str, target_hex: str,
                  with_unit: str | None = None) -> dict[str, Fraction]:
    """[7.5]: the chance of each fire band (none, check, disorder, rout) for `unit_id` firing at
    `target_hex` as it stands (combined with `with_unit`, [7.1]), with the real DRMs
    (tables.fire_odds); refuses what it may not fire at (Illegal, with the rule)."""
    firers = []
    for uid in [unit_id] + ([with_unit] if with_unit else []):
        u = st.units.get(uid)
        if u is None or not u.alive or u.arm != "artillery":
            raise Illegal(f"{uid} is not artillery on the map", "JdG [7.1]")
        problem = shot_problem(sc, st, u, target_hex)
        if problem is not None:
            raise Illegal(*problem)
        firers.append(u)
    victims = [x for x in st.units_at(target_hex) if x.side != firers[0].side]
    base, mods, _, _ = fire_terms(sc, st, firers, target_hex, victims, "fire")
    return tables.fire_odds(base, sum(m.value for m in mods))


# == reaction fire [8.3] (fire/reaction.py) ========================================================

def reaction_fire_options(sc, st: JdgState, defenders_hex: str, attackers) -> list[str]:
    """[8.3]: ids of the defending units in `defenders_hex` that may make reaction fire at the
    `attackers` (unit ids or Units). See fire/reaction.py."""
    from engine.jdg.fire import reaction
    return reaction.reaction_fire_options(sc, st, defenders_hex, attackers)


def reaction_fire(sc, st: JdgState, defenders_hex: str, attackers, stream, *, then: str | None = None,
                  then_side: str | None = None) -> list[Event]:
    """[8.3]: the defenders' reaction fire before an assault or charge is resolved, by the
    defender's policy "reaction_fire"; with "ask" it sets `st.pending` (kind "reaction_fire") and,
    once answered, calls the reaction registered as `then` (if given). See fire/reaction.py."""
    from engine.jdg.fire import reaction
    return reaction.reaction_fire(sc, st, defenders_hex, attackers, stream, then=then, then_side=then_side)


rules.register("fire", do_fire, USAGE)
rules.register_reaction("counter_battery", resume_counter_battery)

from engine.jdg.fire import reaction as _reaction  # noqa: E402,F401  (registers "reaction_fire")


def _must_fire_first(sc, st: JdgState) -> str:
    """[7.2], HERALD D33: the fire step does not end while artillery must fire."""
    owed = obliged_to_fire(sc, st)
    if not owed:
        return ""
    listing = "; ".join(f"{uid} at {' or '.join(hexes)}" for uid, hexes in owed)
    return (f"artillery with an enemy in a frontal hex must fire at it first (JdG [7.2], HERALD D33): "
            f"`fire` {listing}")


def _fire_step_end(sc, st: JdgState, side: str, stream) -> list[Event]:
    reason = _must_fire_first(sc, st)
    if reason:
        raise Illegal(reason, "JdG [7.2]")
    return []


rules.register_step_guard("fire", _must_fire_first)
from engine.jdg.sequence import activation as _activation  # noqa: E402
_activation.on_step_end("fire", _fire_step_end)
