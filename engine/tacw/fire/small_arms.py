"""Fire combat of This Accursed Civil War (TACW §9): infantry normal fire (§9.3), Salvo (§9.4),
cavalry pistols (§9.2, §9.8) and leader loss (§9.11). Reaction Fire (§9.7) is in
`fire/reaction_fire.py` (its names are re-exported here), artillery (§9.9) and line of sight (§9.10)
in `fire/artillery.py`. Damage always goes through `morale/checks.py`.

Verbs (registered at import):
  fire <unit> <hex> [<hex>] [skirmish|retreat|advance] [from|to <hex>]   §9.3 (guns: fire/artillery.py)
  salvo <unit> <hex> [<hex>]                                             §9.4
  pistol <cav> <hex>          refused: pistols are fired during a move (§9.2)
  react, policy reaction ...  (fire/reaction_fire.py)                         §9.7

HERALD decisions (sections cited):
- §9.1.3: the target hex must be one of the firer's front or flank hexes, never rear; Salvo
  front only (§9.4). A double heavy unit fires once from each half that touches the target hex
  (§9.1.4); with two target hexes each half takes one. Its rolls on one target are added and
  applied once, so the casualty MC counts one unit (§9.6.2).
- §9.3: every infantry fire is Skirmish (default), Retreat or Advance fire. Skirmish and
  Retreat fire are followed by the target's Reaction Fire (§9.7.1 "an active unit fires at an
  inactive unit": only the target). Retreat fire: both rolls -3, then the firer steps into a
  rear hex keeping its facing (`to <hex>`, default the one farthest from the target); the step
  is skipped if the return fire left the firer F-Broken, morale Broken or gone (§6.3.1: an
  F-Broken unit does not move). The step is an entry: it may trigger Reaction Fire.
- §9.3.2 Advance fire: the unit moves one hex straight ahead (a translation of all its hexes
  into its front hexes; `from <hex>` picks which when two are possible); terrain formation
  hits apply; Reaction Fire ("advance_fire") first; the unit then fires if it is still on the
  field, in place and not morale Broken ("survives": an F-Broken unit fires at -3).
- §9.10 line of sight matters only beyond one hex, so it lives in fire/artillery.py.
- `from <hex>` in a Skirmish: only that half of a double unit fires (fire is voluntary).
- §9.11: one Leader Loss roll per leader in a hex where one unit's fire (all its rolls) had an
  effect (D64): the leaders who stood in that hex when the fire struck, rolled after its hits
  and morale check are applied, even if they have since retreated or routed with their unit
  (D127). §6.3.4: a column attacked by musket or pistol loses its marker, goes F-Broken and
  checks morale before the roll; the roll still has the "+1 target in column" (D31).
- §8.3: only the top unit of an artillery stack fires or is fired at; a cavalry + light
  infantry stack is fired at through its cavalry. §8.2.1 "shares all formation and morale
  hits" (D90): the light infantry takes every formation hit of that fire and every morale
  level the cavalry loses from it (a failed check rolled by the cavalry alone), through
  `morale.*(share=True)`, which only fire passes (close combat shares by itself); the
  casualties, and the casualty threshold they reach, stay on the cavalry.
"""
from __future__ import annotations

from engine.core import facing as F
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier

from engine.tacw import rules, tables

from engine.tacw.morale import checks as morale
from engine.tacw import readings, tables_combat as tc
from engine.tacw.sequence.actions import begin_action
from engine.tacw.geometry import arc_to, unit_arcs
from engine.tacw.setup import option_modifiers
from engine.tacw.state import TacwState, Unit


def d10(stream, purpose: str, roller: str | None = None, reading=None) -> int:
    """§2.2: a d10 read 0-9; `reading`: all the rules take from it (engine/tacw/readings.py)."""
    return readings.d10(stream, purpose, roller, reading)


# == who stands where, who may fire ===========================================================

def combat_units_at(st: TacwState, hex_id: str) -> list[Unit]:
    """Combat units in a hex: disabled or captured guns are markers, not units (§9.9.9); a wagon
    is never fired at or assaulted (Naseby, HERALD D115)."""
    return [u for u in st.units_at(hex_id) if not u.gun_state and u.kind != "wagon"]


def top_unit(st: TacwState, hex_id: str) -> Unit | None:
    """§8.3: the unit of a stack that fires and is fired at. A gun is on top when its `on_top`
    flag says so; a cavalry + light stack shows its cavalry (HERALD)."""
    here = combat_units_at(st, hex_id)
    if len(here) <= 1:
        return here[0] if here else None
    guns = [u for u in here if u.kind == "artillery"]
    others = [u for u in here if u.kind != "artillery"]
    if guns and others:
        return guns[0] if guns[0].on_top else others[0]
    return sorted(here, key=lambda u: (u.kind != "cavalry", u.id))[0]


def enemy_target(st: TacwState, firer: Unit, hex_id: str) -> Unit | None:
    u = top_unit(st, hex_id)
    return u if u is not None and u.side != firer.side else None


def cannot_fire(st: TacwState, u: Unit) -> str | None:
    """Why this unit may not fire at all now (None: it may)."""
    if not u.alive or u.gun_state:
        return f"{u.called} is no longer a fighting unit"
    if u.kind == "wagon":
        return "wagons do not fire"
    if u.special_formation == "hedgehog":
        return f"{u.called} is in hedgehog and may not fire (TACW §6.3.2)"
    for h in u.hexes:
        top = top_unit(st, h)
        if top is not None and top.id != u.id:
            return f"{u.called} is under {top.called} in the stack: only the top unit fires (TACW §8.3)"
    if u.kind == "artillery":
        if u.morale_state == "broken":
            return f"{u.called} is morale Broken: broken guns do not fire (TACW §11.4.4)"
        if u.fired:
            return f"{u.called} has already fired (or turned) this turn (TACW §9.9.1)"
    if u.kind == "cavalry" and u.pistols <= 0:
        return f"{u.called} has No Pistols: it may not fire until it reloads (TACW §9.8.3)"
    return None


def must_stop(unit: Unit, before: tuple | None = None) -> bool:
    """For the movement engine after fire at a mover: eliminated, morale Broken (it has
    retreated) or F-Broken units stop (§9.7, §6.3.1). `before` = `snapshot(unit)` taken earlier:
    then only a change counts."""
    now = snapshot(unit)
    if before is None:
        return not now[0] or now[1] == "broken" or now[2] == "broken"
    return (not now[0] or (now[1] == "broken" and before[1] != "broken")
            or (now[2] == "broken" and before[2] != "broken") or now[3] != before[3])


def snapshot(unit: Unit) -> tuple:
    return (unit.alive, unit.morale_state, unit.formation, tuple(unit.hexes))


# == one small-arms roll and its application ===================================================

def _small_arms_roll(sc, st, firer: Unit, frm: str, to: str, target: Unit, stream, *, salvo: bool,
                     retreat_fire: bool, vs_moving_cav: bool, target_special: str, reaction: bool):
    """One roll on the Musket Fire table (heavy), or the LI & Cavalry Fire table (light:
    Commanded Shot & Dragoons; cavalry: Pistol). Returns (event, FireResult)."""
    terrain, side = sc.terrain_at(to), sc.crossing(frm, to)
    common = dict(firer_formation=firer.formation, firer_special=firer.special_formation,
                  retreat_fire=retreat_fire, target_special=target_special,
                  reaction_vs_moving_cavalry=vs_moving_cav, target_terrain=terrain, hexside=side)
    if firer.kind == "heavy":
        column = tc.musket_fire_column(arc_to(sc, target, frm) in ("flank", "rear"), salvo)
        table, section = tc.MUSKET_FIRE_TABLE[column], "TACW §9.4" if salvo else "TACW §9.5.1"
        mods = tc.musket_fire_modifiers(salvo_marker=firer.salvo_used and not salvo,
                                        casualties=firer.casualties, double=firer.is_double, **common)
    else:
        column = "light" if firer.kind == "light" else "pistol"
        table = tc.LIGHT_CAVALRY_FIRE_TABLE[column]
        section = "TACW §9.5.2" if column == "light" else "TACW §9.5.3"
        mods = tc.light_cavalry_fire_modifiers("light" if column == "light" else "cavalry",
                                               firer.remaining_strength, **common)
    mods += [Modifier(v, why, "TACW scenario optional rule")
             for v, why in option_modifiers(st, firer, "fire_modifier")]
    plus = sum(m.value for m in mods)
    roll = d10(stream, f"fire, {firer.called} at {target.called}", firer.side,
               reading=lambda r: table.row(r + plus).result)
    total = roll + plus
    row = table.row(total)
    res = row.result
    what = "fires a Salvo" if salvo else "fires"
    what += " in reaction" if reaction else ""
    text = res.label if not res.hits else f"{res.hits} hit{'s' if res.hits > 1 else ''}"
    ev = Event("fire", firer.side, section,
               f"{firer.called} ({frm}) {what} at {target.called} ({to}): {roll}"
               + "".join(f" {m.value:+d}" for m in mods) + f" = {total} -> {text}",
               inputs={"firer": firer.id, "target": target.id, "from": frm, "to": to,
                       "column": column, "salvo": salvo, "reaction": reaction},
               base=roll, modifiers=mods, dice=[DieRoll(f"fire, {firer.called}", "d10", roll)],
               table=table.name, row=row.label, outcome={"result": res.label, "hits": res.hits})
    st.last_action.setdefault("items", []).append({"kind": "fire", "from": frm, "to": to, "text": text})
    return ev, res


def column_attacked(sc, st, target: Unit, stream, what: str) -> list[Event]:
    """§6.3.4: a column attacked by musket, pistol or close combat removes its marker, goes
    F-Broken and checks morale before the combat is resolved. Light infantry stacked with the
    cavalry shares both (§8.2.1, D90)."""
    mates = morale.sharing(st, target, True)
    events = []
    for u in [target] + mates:
        u.special_formation = ""
        u.formation = "broken"
        events.append(Event("formation", u.side, "TACW §8.2.1" if u is not target else "TACW §6.3.4",
                            f"{u.called} is caught in column by {what}: F-Broken"
                            + (", and it checks morale first" if u is target else f" (shares {target.called}'s hit)"),
                            outcome={"unit": u.id, "formation": "broken"}))
    return events + morale.morale_check(sc, st, target, stream, reason=f"caught in column by {what}",
                                        section="TACW §6.3.4", share=True)


def leader_loss(sc, st: TacwState, hex_id: str, stream, what: str,
                present: list | None = None) -> list[Event]:
    """§9.11: "Se un comandante si trova in un esagono che viene fatto bersaglio di fuoco con un
    risultato diverso da nessun effetto, tirate un dado": a d10 for each leader in the hex fired
    at; a 9 removes him (§5.3.3 replacement at Marker Removal). `present` are the leaders who were
    in the hex when the fire struck (D127): each rolls even if he has since retreated or routed
    with his unit; one already removed (stacked with a unit the fire eliminated, D39) does not.
    Without `present`, the leaders in the hex now."""
    events: list[Event] = []
    for ld in list(st.leaders_at(hex_id) if present is None else present):
        if ld.status != "active":
            continue
        roll = d10(stream, f"leader loss, {ld.name}", ld.side)
        result = tables.leader_loss(roll)
        where = hex_id if ld.hex == hex_id else f"{hex_id} (now in {ld.hex})"
        events.append(Event("leader_loss", ld.side, "TACW §9.11",
                            f"{ld.name} in {where} under {what}: {roll} -> "
                            + ("removed" if result == "removed" else "unhurt"),
                            base=roll, dice=[DieRoll("leader loss", "d10", roll)],
                            table=tables.LEADER_LOSS_TABLE.name, row=tables.LEADER_LOSS_TABLE.row(roll).label,
                            outcome={"leader": ld.id, "result": result, "hex": hex_id}))
        if result == "removed":
            events += morale.remove_leader(st, ld, f"struck down by {what}", "TACW §9.11")
    return events


def resolve_small_arms(sc, st, firer: Unit, shots: list[tuple[str, str]], stream, *,
                       salvo: bool = False, retreat_fire: bool = False, reaction: bool = False,
                       moving_cav: set[str] | None = None) -> list[Event]:
    """Resolve one unit's fire: `shots` are (firing hex, target hex) pairs, one per half of a
    double heavy unit. Column targets break first (§6.3.4); rolls on one target are added and
    applied once (§9.6.2: one unit's fire); Salvo forces the MC (§9.6.3); then leader loss per
    hex with an effect, for the leaders there when it struck (§9.11, D127); cavalry spends a
    pistol (§9.8.2); Salvo sets the marker (§9.4)."""
    moving_cav = moving_cav or set()
    what = f"{firer.called}'s {'Salvo' if salvo else 'pistols' if firer.kind == 'cavalry' else 'fire'}"
    events: list[Event] = []
    if firer.kind == "cavalry":
        firer.pistols -= 1
        events.append(Event("pistol", firer.side, "TACW §9.8.2",
                            f"{firer.called}: " + ("1st Pistol Used" if firer.pistols == 1 else "No Pistols"),
                            outcome={"unit": firer.id, "pistols": firer.pistols}))
    targets: dict[str, Unit] = {}
    for _, to in shots:
        t = enemy_target(st, firer, to)
        if t is not None:
            targets.setdefault(to, t)
    specials = {t.id: t.special_formation for t in targets.values()}
    for t in {t.id: t for t in targets.values()}.values():
        if t.special_formation == "column":
            events += column_attacked(sc, st, t, stream, "musket fire" if firer.kind != "cavalry" else "pistol fire")
    hits: dict[str, int] = {}
    effect_hexes: dict[str, list] = {}     # hex with an effect -> the leaders there when struck
    for frm, to in shots:
        t = targets.get(to)
        if t is None or not t.alive or to not in t.hexes:
            continue
        ev, res = _small_arms_roll(sc, st, firer, frm, to, t, stream, salvo=salvo, retreat_fire=retreat_fire,
                                   vs_moving_cav=t.id in moving_cav, target_special=specials[t.id],
                                   reaction=reaction)
        events.append(ev)
        hits[t.id] = hits.get(t.id, 0) + res.hits
        if not res.miss and to not in effect_hexes:
            effect_hexes[to] = list(st.leaders_at(to))      # before any hit moves them (D127)
    for tid, n in hits.items():
        events += morale.apply_hits(sc, st, st.units[tid], n, stream, source=what,
                                    section="TACW §9.6", salvo=salvo, share=True)
    for h, present in effect_hexes.items():
        events += leader_loss(sc, st, h, stream, what, present)
    if salvo:
        firer.salvo_used = True
    return events


# == planning who fires from where ==============================================================

def plan_shots(sc, st, unit: Unit, target_hexes: list[str], *, front_only: bool = False,
               hexes: list[str] | None = None, facing: int | None = None) -> list[tuple[str, str]]:
    """(firing hex, target hex) pairs for `unit` (optionally at another position, for Advance
    fire), or Illegal naming the rule: range 1 (§9.1.2), front or flank hexes (§9.1.3), Salvo
    front only (§9.4), one roll per half of a double (§9.1.4)."""
    hexes = list(unit.hexes if hexes is None else hexes)
    facing = unit.facing if facing is None else facing
    if unit.special_formation == "hedgehog":
        arcs = unit_arcs(sc, unit)
    else:
        arcs = F.arcs(sc.grid, hexes, facing)
    allowed = set(arcs["front"]) | (set() if front_only else set(arcs["flank"]))
    options: dict[str, list[str]] = {}
    for t in dict.fromkeys(target_hexes):
        if t not in sc.grid:
            raise Illegal(f"{t} is not a hex of this map")
        target = enemy_target(st, unit, t)
        if target is None:
            raise Illegal(f"there is no enemy unit to fire at in {t} (a stacked gun under another "
                          "unit cannot be fired at, §8.3)", "TACW §9.1.1")
        if tables.terrain_fire_modifier(sc.terrain_at(t)) is None:
            raise Illegal(f"{target.called} in {t} is in a {sc.terrain_at(t)}: fire at it is not allowed "
                          "(Terrain table: NA)", "TACW Terrain table")
        if t in arcs["rear"]:
            raise Illegal(f"{t} is one of {unit.called}'s rear hexes: no unit ever fires from its rear",
                          "TACW §9.1.3")
        if t not in arcs["front"] and t not in arcs["flank"]:
            raise Illegal(f"{t} is out of range: infantry and cavalry fire at adjacent hexes only",
                          "TACW §9.1.2")
        if t not in allowed:
            raise Illegal(f"{t} is a flank hex: Salvo fire goes into front hexes only", "TACW §9.4")
        options[t] = [h for h in hexes if sc.grid.adjacent(h, t)]
    ts = list(options)
    if len(ts) == 1:
        return [(h, ts[0]) for h in options[ts[0]]]
    if len(ts) > 2 or len(hexes) < 2:
        raise Illegal(f"{unit.called} fires at one hex per hex it occupies", "TACW §9.1.4")
    for a, b in ((hexes[0], hexes[1]), (hexes[1], hexes[0])):
        if a in options[ts[0]] and b in options[ts[1]]:
            return [(a, ts[0]), (b, ts[1])]
    raise Illegal(f"each half of {unit.called} fires at a hex it touches: {ts[0]} and {ts[1]} "
                  "cannot be shared out that way", "TACW §9.1.4")


def translations(sc, st, unit: Unit, arc: str) -> list[list[str]]:
    """The unit's hexes moved one hex, keeping facing, wholly into its `arc` ("front" for
    Advance fire §9.3.2, "rear" for Retreat fire §9.3.4), onto free, enterable hexes."""
    arcs = F.arcs(sc.grid, unit.hexes, unit.facing)
    out = []
    for d in range(6):
        new = [sc.grid.neighbor(h, d) for h in unit.hexes]
        if None in new or not all(n in arcs[arc] for n in new):
            continue
        if any(st.units_at(n) or tables.terrain_mp(sc.terrain_at(n), unit.kind) is None for n in new):
            continue
        out.append(new)
    return out


def step_unit(sc, st, unit: Unit, new: list[str], stream, why: str, section: str) -> list[Event]:
    """Move a unit one hex keeping its facing (Advance / Retreat fire): terrain formation hits
    for the hex entered and the hexside crossed (§7.3), unless Open Order or Column."""
    old = list(unit.hexes)
    unit.hexes = list(new)
    events = [Event("move", unit.side, section, f"{unit.called} {why}: {' '.join(old)} -> {' '.join(new)}",
                    outcome={"unit": unit.id, "from": old, "to": list(new)})]
    st.last_action.setdefault("items", []).append({"kind": "move", "from": old[0], "to": new[0], "text": why})
    if not tables.movement_formation_hits_apply(unit.special_formation):
        return events
    hit = any(tables.terrain_formation_hit(sc.terrain_at(n), unit.kind) for n in new if n not in old)
    for a, b in zip(old, new):
        side = sc.crossing(a, b)
        hit = hit or (side is not None and tables.terrain_formation_hit(side, unit.kind, hexside=True))
    if hit:
        events += morale.formation_hit(sc, st, unit, stream, "rough terrain entered", "TACW §7.3")
    return events


# == the fire verb (§9.3), Salvo (§9.4) =========================================================

def _hex_words(words: list[str]) -> tuple[list[str], dict[str, str], set[str]]:
    hexes, named, flags = [], {}, set()
    it = iter(words)
    for w in it:
        if w in ("from", "to", "ricochet"):
            named[w] = next(it, "")
        elif w.isdigit() and len(w) == 4:
            hexes.append(w)
        else:
            flags.add(w)
    return hexes, named, flags


def _check_infantry(sc, st, unit: Unit) -> None:
    if unit.kind == "cavalry":
        raise Illegal(f"{unit.called} fires its pistols during a move action: move ... pistol <hex>",
                      "TACW §9.2")
    if unit.kind not in ("heavy", "light"):
        raise Illegal(f"{unit.called} does not fire", "TACW §9")
    reason = cannot_fire(st, unit)
    if reason:
        raise Illegal(reason)


def do_fire(sc, st, side, cmd, stream):
    """`fire <unit> <hex> [<hex>] [skirmish|retreat|advance] [from|to <hex>]` (§9.3); for a gun
    `fire <gun> <hex> [ricochet left|right]` (§9.9, fire/artillery.py)."""
    if len(cmd.args) < 2:
        raise CannotParse("usage: " + rules.VERBS["fire"])
    unit = begin_action(sc, st, side, cmd.args[0], "fire")
    st.last_action = {"items": []}
    targets, named, flags = _hex_words(list(cmd.args[1:]))
    if unit.kind == "artillery":
        from engine.tacw.fire.artillery import fire_gun
        return fire_gun(sc, st, unit, targets, named, flags, stream)
    _check_infantry(sc, st, unit)
    modes = flags & {"skirmish", "retreat", "advance"}
    if flags - modes:                     # every word the command has no room for is named
        extra = " ".join(sorted(flags - modes))
        raise CannotParse(f"'{extra}' is not a hex or a fire mode; usage: " + rules.VERBS["fire"])
    if len(modes) > 1 or not targets:
        raise CannotParse("usage: " + rules.VERBS["fire"])
    mode = modes.pop() if modes else "skirmish"
    limits = tables.order_limits(st.wings[unit.wing].order)
    order = tables.ORDER_NAMES[limits.order]
    if mode == "advance":
        if not limits.advance_fire:
            raise Illegal(f"only units on Charge orders use Advance fire ({order} orders)", "TACW §9.3.2")
        return _advance_fire(sc, st, unit, targets, named.get("from") or named.get("to"), stream)
    if mode == "retreat" and not limits.retreat_fire:
        raise Illegal("Retreat fire is not available on Charge orders", "TACW §9.3.4")
    shots = _only_from(plan_shots(sc, st, unit, targets), named.get("from") if mode == "skirmish" else None)
    step = _retreat_hexes(sc, st, unit, targets, named.get("to") or named.get("from")) if mode == "retreat" else None
    return _fire_and_answer(sc, st, unit, shots, stream, retreat=step)


def _only_from(shots, frm: str | None):
    """`from <hex>`: only that half of a double unit fires (fire is voluntary, §9.1.1)."""
    if frm is None:
        return shots
    shots = [s for s in shots if s[0] == frm]
    if not shots:
        raise Illegal(f"no half of the unit in {frm} can fire at that hex", "TACW §9.1.4")
    return shots


def _retreat_hexes(sc, st, unit: Unit, targets: list[str], wanted: str | None) -> list[str]:
    options = translations(sc, st, unit, "rear")
    if wanted:
        options = [o for o in options if wanted in o]
    if not options:
        raise Illegal(f"{unit.called} has no free rear hex to step back into" + (f" through {wanted}" if wanted else ""),
                      "TACW §9.3.4")
    return max(options, key=lambda o: min(sc.grid.distance(h, t) for h in o for t in targets))


def _fire_and_answer(sc, st, unit: Unit, shots, stream, *, salvo: bool = False,
                     retreat: list[str] | None = None) -> list[Event]:
    """The active unit fires; then the target(s) may answer with Reaction Fire (§9.3.3,
    §9.4, §9.7.1: only the targets), at -3 after Retreat fire (§9.3.4); then the Retreat fire
    step back."""
    targets = [t.id for t in (enemy_target(st, unit, to) for _, to in shots) if t is not None]
    section = "TACW §9.4" if salvo else ("TACW §9.3.4" if retreat else "TACW §9.3.3")
    events = [Event("fire_action", unit.side, section,
                    f"{unit.called} " + ("fires a Salvo" if salvo else "uses Retreat fire" if retreat else "skirmishes"),
                    inputs={"unit": unit.id, "shots": [list(s) for s in shots]})]
    events += resolve_small_arms(sc, st, unit, shots, stream, salvo=salvo, retreat_fire=bool(retreat))
    more, _ = reaction_fire(sc, st, unit, "fire", stream, only=targets, retreat_fire=bool(retreat))
    events += more
    if retreat:
        then = {"kind": "retreat_step", "unit": unit.id, "from": list(unit.hexes), "to": retreat}
        if st.pending:
            st.pending["then"] = then
        else:
            events += continue_after(sc, st, then, stream)
    return events


def _advance_fire(sc, st, unit: Unit, targets: list[str], wanted: str | None, stream) -> list[Event]:
    """§9.3.2: advance one hex straight ahead, take the Reaction Fire first, then fire (no
    reaction to that fire)."""
    options = []
    for new in translations(sc, st, unit, "front"):
        if wanted and wanted not in new:
            continue
        try:
            plan_shots(sc, st, unit, targets, hexes=new)
        except Illegal:
            continue
        options.append(new)
    if not options:
        raise Illegal(f"{unit.called} has no free hex straight ahead from which it could fire at "
                      f"{' '.join(targets)}", "TACW §9.3.2")
    events = [Event("fire_action", unit.side, "TACW §9.3.2", f"{unit.called} uses Advance fire",
                    inputs={"unit": unit.id, "targets": targets})]
    events += step_unit(sc, st, unit, options[0], stream, "advances to fire", "TACW §9.3.2")
    more, _ = reaction_fire(sc, st, unit, "advance_fire", stream, hexes=list(unit.hexes))
    events += more
    then = {"kind": "advance_fire", "unit": unit.id, "hexes": list(unit.hexes), "targets": targets}
    if st.pending:
        st.pending["then"] = then
        return events
    return events + continue_after(sc, st, then, stream)


def continue_after(sc, st, then: dict | None, stream) -> list[Event]:
    """What an interrupted fire action does once the Reaction Fire is over: the Retreat fire
    step back, or the Advance fire shot (only if the unit is still there and not morale
    Broken, and, for the step back, not F-Broken)."""
    if not then:
        return []
    unit = st.units[then["unit"]]
    if then["kind"] == "retreat_step":
        if unit.alive and unit.hexes == then["from"] and unit.morale_state != "broken" \
                and unit.formation != "broken" and not any(st.units_at(h) for h in then["to"]):
            events = step_unit(sc, st, unit, then["to"], stream, "steps back after Retreat fire", "TACW §9.3.4")
            more, _ = reaction_fire(sc, st, unit, "enter", stream, hexes=list(unit.hexes))
            return events + more
        return [Event("fire_action", unit.side, "TACW §9.3.4", f"{unit.called} does not step back")]
    if not unit.alive or unit.hexes != then["hexes"] or unit.morale_state == "broken" or cannot_fire(st, unit):
        return [Event("fire_action", unit.side, "TACW §9.3.2",
                      f"{unit.called} did not come through the Reaction Fire able to fire")]
    live = [t for t in then["targets"] if enemy_target(st, unit, t) is not None]
    if not live:
        return [Event("fire_action", unit.side, "TACW §9.3.2", f"{unit.called}: no target left to fire at")]
    try:
        shots = plan_shots(sc, st, unit, live)
    except Illegal as exc:
        return [Event("fire_action", unit.side, "TACW §9.3.2", f"{unit.called} cannot fire: {exc}")]
    return resolve_small_arms(sc, st, unit, shots, stream)


def do_salvo(sc, st, side, cmd, stream):
    """`salvo <unit> <hex> [<hex>]` (§9.4): heavy infantry, once per turn, front hexes only;
    the target always checks morale (§9.6.3); it triggers Reaction Fire."""
    if len(cmd.args) < 2:
        raise CannotParse("usage: " + rules.VERBS["salvo"])
    unit = begin_action(sc, st, side, cmd.args[0], "fire")
    st.last_action = {"items": []}
    targets, named, flags = _hex_words(list(cmd.args[1:]))
    if flags or named or not targets:
        raise CannotParse("usage: " + rules.VERBS["salvo"])
    if unit.kind != "heavy":
        raise Illegal(f"{unit.called} is not heavy infantry: only heavy infantry fires Salvoes", "TACW §9.4")
    _check_infantry(sc, st, unit)
    if not unit.salvo_allowed:
        raise Illegal(f"the scenario gives {unit.called} no Salvo", "TACW §9.4")
    if unit.salvo_used:
        raise Illegal(f"{unit.called} has already fired its Salvo this turn", "TACW §9.4")
    if not tables.order_limits(st.wings[unit.wing].order).salvo:
        raise Illegal("these orders do not allow Salvo", "TACW §5.6")
    return _fire_and_answer(sc, st, unit, plan_shots(sc, st, unit, targets, front_only=True), stream, salvo=True)


def do_pistol(sc, st, side, cmd, stream):
    raise Illegal("cavalry fires its pistols during its move action, at most once per move: "
                  "move <cav> <hexes...> pistol <hex>", "TACW §9.2")


# == cavalry pistols (§9.2, §9.8) ================================================================

def pistol_fire(sc, st, cav: Unit, target_hex: str, stream, *, during_move: bool = True) -> list[Event]:
    """§9.2 / §9.5.3 / §9.8: a cavalry unit fires one pistol shot at an adjacent enemy in its
    front or flank hexes; shots go 2 -> 1 -> 0 and No Pistols forbids fire. During a move (the
    movement engine calls this, and keeps the one-pistol-per-move-action count of §9.2) the
    target may answer with Reaction Fire (§9.7.1); afterwards the mover checks
    `must_stop(cav)` and `st.pending`. `during_move=False` (interception, §7.5): no reaction.
    Raises Illegal (the whole command is refused) when the shot is not allowed."""
    if cav.kind != "cavalry":
        raise Illegal(f"{cav.called} is not cavalry: only cavalry fires pistols", "TACW §9.2")
    reason = cannot_fire(st, cav)
    if reason:
        raise Illegal(reason)
    shots = plan_shots(sc, st, cav, [target_hex])
    target = enemy_target(st, cav, target_hex)
    st.last_action.setdefault("items", [])
    events = resolve_small_arms(sc, st, cav, shots, stream)
    if during_move:
        more, _ = reaction_fire(sc, st, cav, "fire", stream, only=[target.id])
        events += more
    return events


rules.register("fire", do_fire, "fire <unit> <hex> [<hex>] [skirmish|retreat|advance] [from|to <hex>]; "
               "a gun: fire <gun> <hex> [ricochet left|right] (TACW §9.3, §9.9)")
rules.register("salvo", do_salvo, "salvo <unit> <hex> [<hex>]: heavy infantry Salvo, once a turn (TACW §9.4)")
rules.register("pistol", do_pistol, "pistol: cavalry fires during its move: move ... pistol <hex> (TACW §9.2)")
# Reaction Fire (§9.7) registers `react` and the reaction policy after the verbs above, as before
from engine.tacw.fire.reaction_fire import (ENTRY_TRIGGERS, POLICIES, TRIGGERS, eligible_reactors,  # noqa: E402,F401
                            react_one, reaction_fire, reaction_policy)

from engine.tacw.fire import artillery as artillery  # noqa: E402,F401  (registers turngun; guns fire through `fire`)
