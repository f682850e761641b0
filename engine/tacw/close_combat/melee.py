"""Close combat (TACW §10): designation, reaction attacks, the Close Combat table with every
modifier, results and retreats, formation hits, artillery and light infantry special cases,
cavalry pursuit, advance after combat, leader loss.

Commands (step "close_combat" of the active wing's activation, after `close`):
- `attack <unit> <hex>`: the active player designates an attack by a unit of the active wing
  (several units may attack the same hex, §10.1.4); `attack none` clears the designations.
- `resolve`: the designations are final. The inactive player may then designate reaction
  attacks (§10.2 B): by policy "reaction_attack" of each unit that could attack (its own, its
  wing's or its side's, sequence/policies.py), "never" (the default) or "ask" (a pending decision
  {"kind": "reaction_attack", ...} offering the attacks of the units on "ask", answered with
  `counter <unit> <hex>`, repeatable, and `counter none`). Reaction combats are resolved first,
  then the active player's (§10.2 C), each group in hex-id order (HERALD: "along the line");
  the activation then moves to step "continuation" (`continue` / `stop`).
The designations wait in `st.pending` ({"kind": "close_combat", "side": active player}); it has
no "options", so no buttons are offered for it.

HERALD readings, beyond DECISIONS.md D25-D32:
- Several attackers (§10.1.4, §10.3.1): each modifier that depends on the attacker is taken at
  its most favourable to the defender: the lowest matrix cell among the attackers' kinds;
  momentum only if every attacker has it (and then the smaller bonus); the worst attacker
  formation; the Salvo bonus only if every attacker just fired one; the lowest terrain value
  among the defender's hexes attacked and the hexsides crossed.
- "Has just fired a Salvo" (+1): the unit has its Salvo marker (`unit.salvo_used`), belongs to
  the active wing and used its action in this activation.
- Pistols (§10.3.9): cavalry spends a shot whenever it has one, unless its policy
  "close_combat_pistols" (the unit's, its wing's or its side's) is "keep".
- A morale-Broken unit does not attack (it is in flight, back to the enemy, §10.4.1); light
  infantry stacked with cavalry does not attack (it is ignored in close combat, §8.2.1) but
  shares the cavalry's morale result, formation hit and retreat (§8.2.1).
- The defender's "may advance" follows the defending unit's policy "advance_after_combat" (its
  own, its wing's or its side's): "hold" (the default) or "advance". The attacker's "must" is
  always carried out by the attacker with the highest current morale (ties: the first
  designated); an advancing unit keeps its facing
  (the optional one-hexside turn of §10.4.7 is offered by `policy advance_choice ask`, D93).
- The advance (retreat.advance_after_combat) and pursuit trigger Reaction Fire and then Reaction
  Movement (retreat.reaction_moves: compulsory hedgehog attempts, facing reactions), not from
  the units that retreated (§10.4.9, §10.7); inside close combat a Reaction Fire or Reaction
  Movement policy "ask" is read as "auto", so that the combats resolve in order without a
  decision in the middle.
- With several routed attackers, pursuing cavalry follows the first designated one.
- Naseby's Bard brigade (D28) is the unit marked `no_hedgehog`.
- A hex holding only enemy leaders may be attacked: they are removed at once (§5.3.1).
- Disabled or captured guns are markers: they cannot be attacked and block nothing.
"""
from __future__ import annotations

from engine.core.dice import DiceStream, run_stages
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.facing import central_front_hex

from engine.tacw import rules, tables

from engine.tacw.sequence import choices as choices
from engine.tacw import tables_combat as tc
from engine.tacw.sequence.actions import find_unit
from engine.tacw.geometry import arc_to, unit_arcs
from engine.tacw.morale.checks import d10, eliminate, formation_hit, morale_check, remove_leader
from engine.tacw.sequence.policies import policy, values_in_use
from engine.tacw.close_combat.retreat import (advance_after_combat, companions, inert, live_units_at, reaction_fire, reaction_moves,
                      relocate, retreat_unit)
from engine.tacw.state import Leader, TacwState, Unit


# == who defends, who may attack =================================================================

def defender_in(st: TacwState, hex_id: str, side: str) -> Unit | None:
    """The enemy unit that defends a hex: artillery stacked with another unit is ignored
    (§10.5.2), so is light infantry stacked with cavalry (§8.2.1); artillery alone defends
    (and is captured, §10.5.1)."""
    foes = [u for u in live_units_at(st, hex_id) if u.side != side]
    if not foes:
        return None
    combat = sorted((u for u in foes if u.kind != "artillery"), key=lambda u: (u.kind != "cavalry", u.id))
    return combat[0] if combat else foes[0]


def check_attack(sc, st: TacwState, attacker: Unit, target_hex: str) -> Unit | None:
    """§10.1: may `attacker` assault `target_hex`? Returns the defending unit (None for a hex
    held by enemy leaders alone); raises Illegal naming the rule otherwise."""
    if not attacker.alive:
        raise Illegal(f"{attacker.called} is no longer on the field", "TACW §10.1")
    if attacker.kind == "artillery":
        raise Illegal("artillery never attacks in close combat", "TACW §10.5")
    if attacker.kind == "wagon":
        raise Illegal("wagons do not fight in close combat", "TACW §10.1 (digest G6)")
    if attacker.morale_state == "broken":
        raise Illegal(f"{attacker.called} is Broken and in flight", "TACW §10.4.1")
    if attacker.kind == "light" and any(u.kind == "cavalry" and u.side == attacker.side
                                        for u in st.units_at(attacker.hexes[0])):
        raise Illegal("light infantry stacked with cavalry is ignored in close combat", "TACW §8.2.1")
    if target_hex not in sc.grid:
        raise Illegal(f"{target_hex} is not a hex of this map")
    if target_hex not in unit_arcs(sc, attacker)["front"]:
        raise Illegal(f"{target_hex} is not one of {attacker.called}'s front hexes", "TACW §10.1.2")
    defender = defender_in(st, target_hex, attacker.side)
    leaders = [ld for ld in st.leaders_at(target_hex) if ld.side != attacker.side]
    if defender is None and not leaders:
        if any(inert(u) for u in st.units_at(target_hex)):
            raise Illegal(f"the guns in {target_hex} are already out of action", "TACW §9.9.9")
        raise Illegal(f"no enemy unit in {target_hex}", "TACW §10.1.2")
    if attacker.is_double:
        centre = central_front_hex(sc.grid, attacker.hexes, attacker.facing)
        held = defender.hexes if defender is not None else [target_hex]
        if centre not in held:
            raise Illegal(f"a double unit attacks only the unit in its central front hex ({centre})",
                          "TACW §10.1.3")
    if defender is not None and defender.kind == "wagon":
        raise Illegal("wagons have no close combat rules", "TACW (digest G6)")
    if tables.terrain_close_combat_modifier(sc.terrain_at(target_hex)) is None:
        raise Illegal(f"{target_hex} ({sc.terrain_at(target_hex)}) cannot be assaulted",
                      "TACW §10.3.1, Terrain table (D11)")
    return defender


# == the modifiers (§10.3) =======================================================================

def _rule(key: str):
    return next(r for r in tc.CLOSE_COMBAT_MODIFIERS if r.key == key)


def participant_leaders(st: TacwState, units: list[Unit]) -> list[Leader]:
    out: list[Leader] = []
    for u in units:
        for h in u.hexes:
            out += [ld for ld in st.leaders_at(h) if ld.side == u.side and ld not in out]
    return sorted(out, key=lambda ld: ld.id)


def _just_fired_salvo(st: TacwState, u: Unit) -> bool:
    act = st.activation
    return bool(u.salvo_used and act is not None and u.wing == act.wing and u.side == act.side
                and u.id in act.acted)


def _momentum(st: TacwState, u: Unit) -> bool:
    act = st.activation
    return (u.kind in tc.MOMENTUM and act is not None and act.straight.get(u.id, 0) >= 2)


def _spends_pistol(st: TacwState, u: Unit) -> bool:
    keep = policy(st, u.side, "close_combat_pistols", unit=u) == "keep"
    return u.kind == "cavalry" and u.pistols > 0 and not keep


def combat_modifiers(sc, st: TacwState, attackers: list[Unit], defender: Unit) -> tuple[list[Modifier], dict]:
    """Every modifier of one close combat roll (§10.3) through `tables_combat`, and the facts
    used later: leaders, momentum, pistols spent."""
    grid = sc.grid
    hedgehog = defender.special_formation == "hedgehog"
    pairs = [(h, dh) for a in attackers for h in a.hexes for dh in defender.hexes if grid.adjacent(h, dh)]
    att_hexes = sorted({h for h, _ in pairs})
    def_hexes = sorted({dh for _, dh in pairs}) or list(defender.hexes)
    kinds = sorted({a.kind for a in attackers})
    matrix_kind = min(kinds, key=lambda k: (tc.matrix_modifier(k, defender.kind, hedgehog), k))
    all_cav = kinds == ["cavalry"]
    # the best leader with each side; under Marston Moor's rivalry an Army Commander counts only
    # for units of his colour (HERALD D120); every leader present still risks §10.8
    from engine.tacw.battles.marston_moor import leader_may_influence
    att_ld = min((ld for ld in participant_leaders(st, attackers) if leader_may_influence(sc, ld, attackers[0])),
                 key=lambda ld: (ld.value, ld.id), default=None)
    def_ld = min((ld for ld in participant_leaders(st, [defender]) if leader_may_influence(sc, ld, defender)),
                 key=lambda ld: (ld.value, ld.id), default=None)
    flank = sum(1 for h in att_hexes if arc_to(sc, defender, h) in ("flank", "rear"))
    pistols = [a for a in attackers if _spends_pistol(st, a)]
    def_pistol = _spends_pistol(st, defender)
    hex_key = min(def_hexes, key=lambda h: (tables.terrain_close_combat_modifier(sc.terrain_at(h)), h))
    crossings = [sc.crossing(h, dh) for h, dh in pairs]
    side_key = min(crossings, key=lambda x: (tables.terrain_close_combat_modifier(x, hexside=True)
                                             if x else 0, x or ""), default=None)
    mods = tc.close_combat_modifiers(
        attacker_kind=matrix_kind, defender_kind=defender.kind,
        attacker_strength=sum(a.remaining_strength for a in attackers),
        defender_strength=defender.remaining_strength,
        attacker_morales=[a.current_morale for a in attackers], defender_morale=defender.current_morale,
        attacker_leader=att_ld.value if att_ld else None, defender_leader=def_ld.value if def_ld else None,
        flank_rear_hexes=flank, attacker_pistols=len(pistols), defender_pistol=def_pistol,
        defender_formation=defender.formation, defender_special=defender.special_formation,
        target_terrain=sc.terrain_at(hex_key), hexside=side_key,
        naseby_bard_vs_cavalry=defender.no_hedgehog and all_cav,
        halve_heavy=all_cav and defender.kind == "heavy")
    for m in mods:
        if m.reason == "attacker's leader":
            m.reason = f"attacker's leader {att_ld.name} (value {att_ld.value}, counted positive)"
        elif m.reason == "defender's leader":
            m.reason = f"defender's leader {def_ld.name} (value {def_ld.value})"
    momentum = all(_momentum(st, a) for a in attackers)
    if momentum:
        value = min(tc.momentum_modifier(a.kind) for a in attackers)
        mods.append(_rule("cavalry_momentum" if value == 2 else "heavy_momentum").modifier())
    worst = min(attackers, key=lambda a: (tc.attacker_state_modifier(a.formation, a.special_formation), a.id))
    form = tc.attacker_state_modifier(worst.formation, worst.special_formation)
    if form:
        mods.append(_rule("attacker_disordered" if form == -1 else "attacker_broken").modifier(
            reason=f"{worst.called} in " + ("Open Order" if worst.special_formation == "open" and
                                          worst.formation == "normal" else f"F-{worst.formation.title()}")
            + " formation"))
    if all(_just_fired_salvo(st, a) for a in attackers):
        mods.append(_rule("attacker_salvo").modifier())
    info = {"attacker_leader": att_ld, "defender_leader": def_ld, "pistols": pistols,
            "defender_pistol": def_pistol, "momentum": momentum and all_cav}
    return mods, info


# == one combat ==================================================================================

def _item(sc, st: TacwState, attackers: list[Unit], target: str, text: str = "") -> None:
    for a in attackers:
        src = next((h for h in a.hexes if sc.grid.adjacent(h, target)), a.hexes[0] if a.hexes else None)
        st.last_action.setdefault("items", []).append(
            {"kind": "close_combat", "from": src, "to": target, "text": text})


def _apply_result(sc, st: TacwState, unit: Unit, result: str, hexes: int, threat: list[str],
                  code: str, stream: DiceStream) -> list[Event]:
    """§10.4.1-10.4.2: a result with its escalation, shared by stacked light infantry (§8.2.1),
    then the retreat (Broken: flight of 2 hexes; Shaken: orderly, as the table says)."""
    events: list[Event] = []
    new = tc.morale_after_result(unit.morale_state, result)
    note = "" if new == result else f" (a {result.title()} result on a {unit.morale_state.title()} unit, §10.4.2)"
    for c in companions(st, unit):
        c_new = tc.morale_after_result(c.morale_state, result)
        if c_new == "eliminated":
            events += eliminate(sc, st, c, f"shares {unit.called}'s close combat result", "TACW §8.2.1")
        else:
            c.morale_state = c_new
    if new == "eliminated":
        return events + eliminate(sc, st, unit, f"close combat result {code}{note}", "TACW §10.4.1")
    unit.morale_state = new
    events.append(Event("morale", unit.side, "TACW §10.4.1" + (", §10.4.2" if note else ""),
                        f"{unit.called} is {new.title()} (close combat result {code}){note}",
                        outcome={"unit": unit.id, "morale": new}))
    return events + retreat_unit(sc, st, unit, 2 if new == "broken" else hexes, new, stream, threat=threat)


def _retreat_path(events: list[Event], unit_id: str) -> list[list[str]]:
    for e in events:
        if e.kind == "retreat" and e.outcome.get("unit") == unit_id:
            return e.outcome.get("path", [])
    return []


def _eliminate_stack(sc, st: TacwState, unit: Unit, reason: str, section: str) -> list[Event]:
    """Eliminate a unit and the light infantry sharing its fate (§8.2.1)."""
    events: list[Event] = []
    if unit.alive:
        for c in companions(st, unit):
            events += eliminate(sc, st, c, reason, section)
        events += eliminate(sc, st, unit, reason, section)
    return events


def _pursuit(sc, st: TacwState, pursuers: list[Unit], routed: Unit, momentum: list[str],
             path: list[list[str]], stream: DiceStream) -> tuple[list[Event], set[str]]:
    """§10.7: each winning cavalry unit rolls on the Cavalry Pursuit table (D32)."""
    events: list[Event] = []
    gone: set[str] = set()
    for cav in pursuers:
        if not cav.alive:
            continue
        cromwell = any(ld.special == "cromwell" and ld.side == cav.side and ld.hex is not None
                       and any(sc.grid.distance(ld.hex, h) <= 1 for h in cav.hexes)
                       for ld in st.leaders.values() if ld.status == "active")
        mods = tc.pursuit_modifiers(charge_orders=st.wings[cav.wing].order == "charge",
                                    momentum=cav.id in momentum, cromwell=cromwell)
        plus, gone_already = sum(m.value for m in mods), not routed.alive
        roll = d10(stream, f"cavalry pursuit, {cav.called}", cav.side,
                   reading=lambda r: tc.cavalry_pursuit(r + plus, routed_unit_gone=gone_already))
        total = roll + plus
        result = tc.cavalry_pursuit(total, routed_unit_gone=gone_already)
        text = {"break_contact": "breaks contact", "pursue_eliminate": "pursues and eliminates",
                "pursue_off_map": "pursues off the map"}[result]
        events.append(Event("pursuit", cav.side, "TACW §10.7.2",
                            f"{cav.called} checks pursuit of {routed.called}: {roll}"
                            + "".join(f" {m.value:+d}" for m in mods) + f" = {total} -> {text}",
                            base=roll, modifiers=mods, dice=[DieRoll("cavalry pursuit", "d10", roll)],
                            table="Cavalry Pursuit table", row=tc.PURSUIT_TABLE.row(total).label,
                            outcome={"unit": cav.id, "result": result, "routed": routed.id}))
        if result == "break_contact":
            continue
        gone.add(cav.id)
        if result == "pursue_off_map":
            for ld in participant_leaders(st, [cav]):
                events += remove_leader(st, ld, f"pursued off the map with {cav.called}", "TACW §10.7.2 C")
            events += _eliminate_stack(sc, st, routed, f"pursued off the map by {cav.called}", "TACW §10.7.2 C")
            cav.status, cav.hexes = "off_map", []
            events.append(Event("pursuit", cav.side, "TACW §10.7.2 C",
                                f"{cav.called} pursues off the map: it never returns (no VP)",
                                outcome={"unit": cav.id, "off_map": True}))
            continue
        # pursue and eliminate: along the retreat path into the routed unit's hex (§10.7.2 B)
        steps = path[1:] if path else []
        here = cav.hexes[0]
        trail = [here]
        for hexes in [path[0] if path else routed.hexes] + steps:
            nxt = min(hexes, key=lambda h: (sc.grid.distance(trail[-1], h), h))
            if nxt != trail[-1]:
                trail.append(nxt)
        events += _eliminate_stack(sc, st, routed, f"caught by {cav.called}'s pursuit", "TACW §10.7.2 B")
        events += relocate(sc, st, cav, [trail[-1]], [], "TACW §10.7.2 B", leaders_follow=True)
        events.append(Event("pursuit", cav.side, "TACW §10.7.2 B",
                            f"{cav.called} pursues: " + " -> ".join(trail), outcome={"unit": cav.id, "path": trail}))
        st.last_action.setdefault("items", []).append({"kind": "move", "unit": cav.id, "path": trail})
        events += reaction_fire(sc, st, cav, "advance", stream, trail[1:], exclude=[routed.id])
        events += reaction_moves(sc, st, cav, trail[1:], stream, exclude=[routed.id], before=[here])
    return events, gone


def _advancer(st: TacwState, attackers: list[Unit], start: dict[str, list[str]], gone: set[str]) -> Unit | None:
    """§10.4.6: of several attackers, the one with the highest morale advances; on a tie its
    owner chooses (`policy advance_choice ask`; Herald's choice: the first designated, D74, D93)."""
    ok = [a for a in attackers if a.alive and a.morale_state != "broken" and a.hexes == start[a.id]
          and a.id not in gone]
    if not ok:
        return None
    best = max(a.current_morale for a in ok)
    tied = [a.id for a in ok if a.current_morale == best]
    pick = choices.choose(st, ok[0].side, "advance", tied, "which attacker advances (a tie in morale)",
                          "TACW §10.4.6", labels={i: st.units[i].name for i in tied})
    return st.units[pick]


def _leader_losses(st: TacwState, involved: list[Leader], stream: DiceStream) -> list[Event]:
    """§10.8: after each close combat, a d10 for every leader stacked with a participant who is
    still on the field: removed on a 9 (Leader Loss table)."""
    events: list[Event] = []
    for ld in involved:
        if ld.status != "active":
            continue
        lr = d10(stream, f"leader loss, {ld.name}", ld.side)
        out = tables.leader_loss(lr)
        events.append(Event("leader_loss", ld.side, "TACW §10.8",
                            f"{ld.name} was in the close combat: {lr} -> "
                            + ("removed" if out == "removed" else "no effect"),
                            base=lr, dice=[DieRoll("leader loss", "d10", lr)], table="Leader Loss table",
                            row=tables.LEADER_LOSS_TABLE.row(lr).label, outcome={"leader": ld.id, "result": out}))
        if out == "removed":
            events += remove_leader(st, ld, "lost in close combat", "TACW §10.8")
    return events


def fight(sc, st: TacwState, attackers: list[Unit], defender: Unit, stream: DiceStream) -> list[Event]:
    """Resolve one close combat (§10.2 D-E) of `attackers` against `defender`."""
    events, todo = _fight(sc, st, attackers, defender, stream)
    while todo:
        step, ctx = todo.pop(0)
        more, then = FIGHT_STEPS[step](sc, st, stream, ctx)
        events += more
        todo[:0] = then
    return events


def _fight(sc, st: TacwState, attackers: list[Unit], defender: Unit,
           stream: DiceStream) -> tuple[list[Event], list[tuple[str, dict]]]:
    """The combat up to its formation hits (§10.2 D-E), and what follows it as stages (step
    name, plain data: ids, hexes): the pursuit (§10.7), the advance (§10.4.6) and the leader
    losses (§10.8), each reading the state alone (a what-if resumes there, run_stages)."""
    side = attackers[0].side
    target = next((h for h in defender.hexes if any(sc.grid.adjacent(h, x) for a in attackers for x in a.hexes)),
                  defender.hexes[0])
    names = " and ".join(a.called for a in attackers)
    start = {a.id: list(a.hexes) for a in attackers}
    def_start = list(defender.hexes)
    involved = participant_leaders(st, attackers) + participant_leaders(st, [defender])
    losses = ("leader_losses", {"involved": [ld.id for ld in involved]})
    # §10.5.1: artillery alone is captured; §10.6: one-SP light infantry alone is eliminated.
    if defender.kind == "artillery":
        defender.gun_state, defender.captured_by = "captured", side
        _item(sc, st, attackers, target, "captured")
        events = [Event("captured", side, "TACW §10.5.1", f"{names} capture {defender.called}'s guns in {target}",
                        outcome={"unit": defender.id, "by": side})]
        mover = _advancer(st, attackers, start, set())
        events += advance_after_combat(sc, st, mover, def_start, stream) if mover else []
        return events, [losses]
    lone = [u for u in live_units_at(st, target) if u.id != defender.id]
    if defender.kind == "light" and defender.remaining_strength == 1 and not lone and \
            not all(a.kind == "light" and a.remaining_strength == 1 for a in attackers):
        _item(sc, st, attackers, target, "DE")
        events = eliminate(sc, st, defender, f"a 1-SP light infantry unit alone, assaulted by {names}", "TACW §10.6")
        mover = _advancer(st, attackers, start, set())
        events += advance_after_combat(sc, st, mover, def_start, stream) if mover else []
        return events, [losses]
    events: list[Event] = []
    if defender.special_formation == "column":        # §6.3.4: F-Broken and an MC first
        defender.special_formation, defender.formation = "", "broken"
        events.append(Event("formation", defender.side, "TACW §6.3.4",
                            f"{defender.called} is assaulted in column: F-Broken", outcome={"unit": defender.id}))
        events += morale_check(sc, st, defender, stream, reason="assaulted in column", section="TACW §6.3.4")
        if not defender.alive or defender.hexes != def_start:
            return events + [Event("close_combat", side, "TACW §6.3.4",
                                   f"{names}'s assault finds no one in {target}")], []
    mods, info = combat_modifiers(sc, st, attackers, defender)
    for a in info["pistols"]:
        a.pistols -= 1
    if info["defender_pistol"]:
        defender.pistols -= 1
    plus = sum(m.value for m in mods)
    roll = d10(stream, f"close combat, {names} against {defender.called}", attackers[0].side,
               reading=lambda r: tc.close_combat(r + plus))     # `total` is read only through it
    total = roll + plus
    res = tc.close_combat(total)
    row = tc.CLOSE_COMBAT_TABLE.row(total).label
    _item(sc, st, attackers, target, res.code)
    events.append(Event("close_combat", side, "TACW §10.2",
                        f"{names} assault {defender.called} in {target}: {roll}"
                        + "".join(f" {m.value:+d}" for m in mods) + f" = {total} -> {res.code}: {res.text}",
                        inputs={"attackers": [a.id for a in attackers], "defender": defender.id, "hex": target},
                        base=roll, modifiers=mods, dice=[DieRoll("close combat", "d10", roll)],
                        table="Close Combat table", row=row,
                        outcome={"result": res.code, "total": total, "winner": res.winner}))
    threat_att = [h for a in attackers for h in a.hexes]
    if res.attacker:
        for a in attackers:
            events += _apply_result(sc, st, a, res.attacker, res.attacker_retreat, list(def_start), res.code, stream)
    if res.defender:
        events += _apply_result(sc, st, defender, res.defender, res.defender_retreat, threat_att, res.code, stream)
    if res.winner == "attacker":                      # §10.5.2: stacked guns are lost with the hex
        for g in (u for h in def_start for u in st.units_at(h)):
            if g.kind == "artillery" and g.side == defender.side and not g.gun_state:
                g.gun_state, g.captured_by = "captured", side
                events.append(Event("captured", side, "TACW §10.5.2",
                                    f"{g.called}'s guns are captured: the unit stacked with them lost",
                                    outcome={"unit": g.id, "by": side}))
    for u in attackers + [defender]:                  # §10.2 E
        for x in [u] + companions(st, u):
            events += formation_hit(sc, st, x, stream, "close combat", "TACW §10.2 E")
    ctx = {"attackers": [a.id for a in attackers], "defender": defender.id, "start": start,
           "def_start": def_start, "total": total, "momentum": bool(info["momentum"]), "gone": [],
           "path": None, "involved": losses[1]["involved"]}
    if res.check_pursuit:
        if res.winner == "attacker":
            ctx["path"] = _retreat_path(events, defender.id)
        else:
            ctx["path"] = _retreat_path(events, attackers[0].id) or [start[attackers[0].id]]
        return events, [("pursuit", ctx)]
    return events, [("advance", ctx)]


def _fight_pursuit(sc, st: TacwState, stream: DiceStream, ctx: dict) -> tuple[list[Event], list]:
    """§10.7: the winner's cavalry checks pursuit of the routed loser."""
    events: list[Event] = []
    attackers = [st.units[i] for i in ctx["attackers"]]
    defender = st.units[ctx["defender"]]
    start, def_start, res = ctx["start"], ctx["def_start"], tc.close_combat(ctx["total"])
    if res.winner == "attacker":
        pursuers = [a for a in attackers if a.kind == "cavalry" and a.alive and a.hexes == start[a.id]]
        routed, path = defender, ctx["path"]
    else:
        in_place = defender.alive and defender.hexes == def_start
        pursuers = [defender] if defender.kind == "cavalry" and in_place else []
        routed = attackers[0]
        path = ctx["path"]
    if pursuers and routed.kind == "light":
        events.append(Event("pursuit", attackers[0].side, "TACW §10.7.1",
                            f"{routed.called} is light infantry: no pursuit, a normal advance"))
    elif pursuers:
        momentum = [a.id for a in attackers] if ctx["momentum"] else []
        more, gone = _pursuit(sc, st, pursuers, routed, momentum, path or [def_start], stream)
        events += more
        ctx["gone"] = sorted(gone)
    return events, [("advance", ctx)]


def _fight_advance(sc, st: TacwState, stream: DiceStream, ctx: dict) -> tuple[list[Event], list]:
    """§10.4.6: the winner's advance after combat."""
    events: list[Event] = []
    attackers = [st.units[i] for i in ctx["attackers"]]
    defender = st.units[ctx["defender"]]
    start, def_start, res = ctx["start"], ctx["def_start"], tc.close_combat(ctx["total"])
    gone = set(ctx["gone"])
    retreated = [u.id for u in attackers + [defender] if u.alive and
                 u.hexes != (start.get(u.id) or def_start)]
    if res.winner == "attacker" and res.advance == "must":
        vacated = [h for h in def_start if not live_units_at(st, h)]
        mover = _advancer(st, attackers, start, gone)
        if mover and vacated:
            events += advance_after_combat(sc, st, mover, vacated, stream, retreated)
    elif res.winner == "defender" and res.advance == "may" and defender.alive and defender.hexes == def_start \
            and policy(st, defender.side, "advance_after_combat", unit=defender) == "advance":
        vacated = [h for a in attackers for h in start[a.id] if not live_units_at(st, h)]
        if vacated:
            events += advance_after_combat(sc, st, defender, vacated, stream, retreated, "TACW §10.4.6 (may)")
    return events, [("leader_losses", {"involved": ctx["involved"], "record": ctx.get("record")})]


def _fight_leader_losses(sc, st: TacwState, stream: DiceStream, ctx: dict) -> tuple[list[Event], list]:
    return _leader_losses(st, [st.leaders[i] for i in ctx["involved"]], stream), []


FIGHT_STEPS = {"pursuit": _fight_pursuit, "advance": _fight_advance, "leader_losses": _fight_leader_losses}


def immediate_close_combat(sc, st: TacwState, attacker: Unit, defender_hex: str,
                           stream: DiceStream) -> list[Event]:
    """§7.5 (cavalry interception, step 4): one close combat resolved at once. When the
    combat is not allowed (the hex not in the attacker's front, a castle...), nothing happens
    but an event saying why: the move that called it goes on."""
    try:
        defender = check_attack(sc, st, attacker, defender_hex)
    except Illegal as exc:
        return [Event("close_combat", attacker.side, exc.section or "TACW §10.1",
                      f"{attacker.called} cannot assault {defender_hex}: {exc.reason}",
                      outcome={"unit": attacker.id, "hex": defender_hex, "refused": True})]
    if defender is None:
        return _assault_leaders(st, attacker, defender_hex)
    return fight(sc, st, [attacker], defender, stream)


def _assault_leaders(st: TacwState, attacker: Unit, hex_id: str) -> list[Event]:
    events: list[Event] = []
    for ld in st.leaders_at(hex_id):
        if ld.side != attacker.side:
            events += remove_leader(st, ld, f"assaulted alone in {hex_id} by {attacker.called}", "TACW §5.3.1")
    return events


# == designation and the close combat step (§10.1-10.2) ==========================================

def designations(st: TacwState) -> list[dict]:
    """The active player's close combat designations waiting in `st.pending` (§10.2 A)."""
    p = st.pending
    return [dict(a, attackers=list(a["attackers"])) for a in p["attacks"]] \
        if p and p.get("kind") == "close_combat" else []


def _designate(sc, st: TacwState, side: str, unit_word: str, hex_word: str, combats: list[dict],
               taken: set[str]) -> tuple[Unit, Unit | None]:
    unit = find_unit(st, unit_word, side)
    if unit.side != side:
        raise Illegal(f"{unit.called} is not yours", "TACW §10.1.2")
    if unit.id in taken:
        raise Illegal(f"{unit.called} already attacks this activation: one hex per unit", "TACW §10.1.4")
    defender = check_attack(sc, st, unit, hex_word)
    key = defender.id if defender is not None else f"leaders@{hex_word}"
    for c in combats:
        if c["defender"] == key:
            c["attackers"].append(unit.id)
            break
    else:
        combats.append({"defender": key, "hex": hex_word, "side": side, "attackers": [unit.id]})
    return unit, defender


def do_attack(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("only the active wing's units attack now; answer reaction attacks with `counter`",
                      "TACW §10.1.2")
    if st.pending and st.pending.get("kind") != "close_combat":
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step != "close_combat":
        raise Illegal("close combat comes after all other actions: use `close` first", "TACW §10.1.1")
    if cmd.args[:1] == ("none",):
        st.pending = None
        return [Event("designate", side, "TACW §10.2 A", "All close combat designations are withdrawn")]
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + rules.VERBS["attack"])
    combats = designations(st)
    taken = {i for c in combats for i in c["attackers"]}
    unit, defender = _designate(sc, st, side, cmd.args[0], cmd.args[1], combats, taken)
    if unit.wing != act.wing:
        raise Illegal(f"{unit.called} is not in the active wing", "TACW §10.1.2")
    st.pending = {"kind": "close_combat", "side": side, "wing": act.wing, "attacks": combats}
    what = defender.name if defender is not None else "the leaders"
    return [Event("designate", side, "TACW §10.2 A", f"{unit.called} will assault {what} in {cmd.args[1]}",
                  outcome={"unit": unit.id, "hex": cmd.args[1]})]


def reaction_options(sc, st: TacwState, attacks: list[dict], counters: list[dict],
                     asked: bool = False) -> list[str]:
    """§10.1.2, §10.2 B: "<unit> <hex>" for every reaction attack the inactive player may
    still designate: his units not designated as defenders, against units of the active wing
    (`asked`: only those of units whose policy asks, read before their options)."""
    act = st.activation
    defenders = {c["defender"] for c in attacks}
    taken = {i for c in counters for i in c["attackers"]}
    out = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if not u.alive or u.side == act.side or u.id in defenders or u.id in taken:
            continue
        if asked and policy(st, u.side, "reaction_attack", unit=u.id) != "ask":
            continue
        for h in sorted(unit_arcs(sc, u)["front"]):
            try:
                d = check_attack(sc, st, u, h)
            except Illegal:
                continue
            if d is not None and d.wing == act.wing and d.side == act.side:
                out.append(f"{u.id} {h}")
    return out


def asked_reaction_options(sc, st: TacwState, attacks: list[dict], counters: list[dict]) -> list[str]:
    """The reaction attacks offered to the inactive player: those of the units whose own
    "reaction_attack" policy (the unit's, its wing's or the side's, sequence/policies.py) is "ask"."""
    inactive = st.other(st.activation.side)
    if "ask" not in values_in_use(st, inactive, "reaction_attack"):
        return []               # no unit's policy asks (the default, "never"): none is offered
    return reaction_options(sc, st, attacks, counters, asked=True)


def do_resolve(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("the active player resolves close combat", "TACW §10.2")
    if st.pending and st.pending.get("kind") != "close_combat":
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step != "close_combat":
        raise Illegal("close combat comes after all other actions: use `close` first", "TACW §10.1.1")
    attacks = designations(st)
    st.pending = None
    return close_combat_step(sc, st, stream, attacks)


def close_combat_step(sc, st: TacwState, stream: DiceStream, attacks: list[dict]) -> list[Event]:
    """§10.2 B-C: offer reaction attacks (by policy), then resolve everything."""
    inactive = st.other(st.activation.side)
    options = asked_reaction_options(sc, st, attacks, [])
    if options:
        st.pending = {"kind": "reaction_attack", "side": inactive, "verb": "counter",
                      "options": options + ["none"], "attacks": attacks, "counters": []}
        return [Event("reaction_window", inactive, "TACW §10.2 B",
                      f"{inactive.title()} may designate reaction attacks: {', '.join(options)}",
                      outcome={"options": options})]
    return resolve_all(sc, st, stream, attacks, [])


def do_counter(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    pend = st.pending
    if not pend or pend.get("kind") != "reaction_attack" or pend["side"] != side:
        raise Illegal("no reaction attack decision is waiting for you", "TACW §10.2 B")
    attacks = [dict(a, attackers=list(a["attackers"])) for a in pend["attacks"]]
    counters = [dict(c, attackers=list(c["attackers"])) for c in pend["counters"]]
    if cmd.args[:1] in (("none",), ("no",)):
        return resolve_all(sc, st, stream, attacks, counters)
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + rules.VERBS["counter"])
    unit = find_unit(st, cmd.args[0], side)
    taken = {i for c in counters for i in c["attackers"]}
    if f"{unit.id} {cmd.args[1]}" not in asked_reaction_options(sc, st, attacks, counters):
        if f"{unit.id} {cmd.args[1]}" in reaction_options(sc, st, attacks, counters):
            raise Illegal(f"{unit.called}'s standing policy is never to attack in reaction "
                          f"(policy counter ask for {unit.id} to offer it)", "TACW §10.2 B")
        if unit.side != side:
            raise Illegal(f"{unit.called} is not yours", "TACW §10.1.2")
        if any(c["defender"] == unit.id for c in attacks):
            raise Illegal(f"{unit.called} is designated as a defender and may not attack", "TACW §10.2 B")
        if unit.id in taken:
            raise Illegal(f"{unit.called} already attacks", "TACW §10.1.4")
        check_attack(sc, st, unit, cmd.args[1])          # raises with the rule if illegal
        raise Illegal("reaction attacks target units of the active wing", "TACW §10.1.2")
    taken = {i for c in counters for i in c["attackers"]}
    unit, defender = _designate(sc, st, side, cmd.args[0], cmd.args[1], counters, taken)
    ev = Event("designate", side, "TACW §10.2 B",
               f"{unit.called} will make a reaction attack on {defender.called} in {cmd.args[1]}",
               outcome={"unit": unit.id, "hex": cmd.args[1]})
    left = asked_reaction_options(sc, st, attacks, counters)
    if not left:
        return [ev] + resolve_all(sc, st, stream, attacks, counters)
    st.pending = dict(pend, options=left + ["none"], counters=counters)
    return [ev]


def _hex_order(c: dict) -> tuple:
    return (c["hex"], c["defender"])


def resolve_all(sc, st: TacwState, stream: DiceStream, attacks: list[dict], counters: list[dict]) -> list[Event]:
    """§10.2 C: the inactive player's reaction combats first, then the active player's, each
    along the line (HERALD: in hex-id order); then the activation moves to its continuation.
    An owner's choice inside it (a retreat hex, §10.4; an advance, §10.4.6-§10.4.8) stops the
    whole command and replays it on the answer (sequence/choices.py, HERALD D93)."""
    return _resolve_all(sc, st, stream, attacks, counters)


def _resolve_all(sc, st: TacwState, stream: DiceStream, attacks: list[dict], counters: list[dict]) -> list[Event]:
    st.pending = None
    st.last_action = {"items": []}

    def combat(c: dict) -> tuple[list[Event], list]:
        # where this combat's record begins: engine scratch (`_memo_`: never copied nor saved),
        # read by `/odds` only (engine/tacw/odds.py `state_key`: the earlier combats' records
        # are left out of its merge key)
        record = len(st.last_action["items"])
        st._memo_combat_record = (st.last_action["items"], record)
        events, todo = _resolve_designated(sc, st, c, stream)
        for _, ctx in todo:
            ctx["record"] = record
        return events, todo

    def part(f):
        def step(ctx: dict) -> tuple[list[Event], list]:
            # the mark again: a what-if resuming here works on a copy, which has no scratch
            st._memo_combat_record = (st.last_action["items"], ctx["record"])
            return f(sc, st, stream, ctx)
        return step

    steps = {"combat": combat}
    steps.update({name: part(f) for name, f in FIGHT_STEPS.items()})
    # each combat, and each part of it after its formation hits, reads the state alone (units
    # and leaders looked up by id): a what-if resumes there from the state the earlier ones
    # left for the same dice (engine/core/dice.py run_stages)
    events: list[Event] = run_stages(stream, "close combats", steps, [
        ("combat", c) for c in sorted(counters, key=_hex_order) + sorted(attacks, key=_hex_order)])
    st.activation.step = "continuation"
    wing = st.wings[st.activation.wing]
    events.append(Event("step", st.activation.side, "TACW §3.2 E",
                        f"{wing.name}: close combat over; `continue` or `stop`"))
    return events


def _resolve_designated(sc, st: TacwState, c: dict, stream: DiceStream) -> tuple[list[Event], list]:
    """One designated combat (§10.2 C), up to its formation hits; and the stages that follow."""
    hex_id = c["hex"]
    if c["defender"].startswith("leaders@"):
        att = [st.units[i] for i in c["attackers"] if st.units[i].alive]
        return (_assault_leaders(st, att[0], hex_id) if att else []), []
    defender = st.units[c["defender"]]
    fit: list[Unit] = []
    dropped: list[str] = []
    for uid in c["attackers"]:
        u = st.units[uid]
        try:
            ok = defender.alive and check_attack(sc, st, u, hex_id) is defender
        except Illegal:
            ok = False
        (fit.append(u) if ok else dropped.append(u.called))
    events = []
    if dropped:
        events.append(Event("close_combat", c["side"], "TACW §10.1",
                            f"{', '.join(dropped)} can no longer assault {hex_id}: attack cancelled"))
    if not fit:
        return events, []
    more, todo = _fight(sc, st, fit, defender, stream)
    return events + more, todo


POLICIES = {"counter": ("reaction_attack", ("never", "ask")),
            "advance": ("advance_after_combat", ("hold", "advance")),
            "pistols": ("close_combat_pistols", ("spend", "keep"))}
_policy_before = rules.HANDLERS["policy"]


def do_policy(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`policy counter never|ask` (reaction attacks, §10.2 B), `policy advance hold|advance`
    (the defender's optional advance, §10.4.6), `policy pistols spend|keep` (§10.3.9); other
    policies go to the verb registered before."""
    if not cmd.args or cmd.args[0] not in POLICIES:
        return _policy_before(sc, st, side, cmd, stream)
    key, values = POLICIES[cmd.args[0]]
    if len(cmd.args) < 2 or cmd.args[1] not in values:
        raise CannotParse(f"usage: policy {cmd.args[0]} {'|'.join(values)}")
    st.policies.setdefault(side, {})[key] = cmd.args[1]
    return [Event("policy", side, "DESIGN pending decisions", f"{side.title()}'s {key} policy: {cmd.args[1]}")]


rules.register("policy", do_policy, rules.VERBS["policy"] + "; policy counter never|ask, policy advance "
               "hold|advance, policy pistols spend|keep (TACW §10)")
rules.register("attack", do_attack, "attack <unit> <hex> | attack none: designate a close combat "
               "(active wing, close combat step; several units may attack one hex) (TACW §10.1-10.2)")
rules.register("resolve", do_resolve, "resolve: resolve the close combats (reaction attacks first), "
               "then continue or stop (TACW §10.2)")
rules.register("counter", do_counter, "counter <unit> <hex> | counter none: designate a reaction "
               "attack on a unit of the active wing (TACW §10.2 B)")
