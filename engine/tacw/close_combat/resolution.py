"""Close combat (TACW §10), one combat up to its formation hits: the modifiers of the roll
(§10.3), the Close Combat table and its results with their escalation and retreats (§10.2 D-E,
§10.4.1-10.4.2), artillery (§10.5) and light infantry (§10.6) assaulted alone, and which attacker
advances (§10.4.6). What follows the formation hits (pursuit, advance, leader losses) is in
close_combat/aftermath.py; designation and the close combat step in close_combat/melee.py, whose
docstring gives the HERALD readings.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier

from engine.tacw import tables

from engine.tacw.sequence import choices as choices
from engine.tacw import tables_combat as tc
from engine.tacw.geometry import arc_to
from engine.tacw.morale.checks import d10, eliminate, formation_hit, morale_check
from engine.tacw.sequence.policies import policy
from engine.tacw.close_combat.retreat import advance_after_combat, companions, live_units_at, retreat_unit
from engine.tacw.state import Leader, TacwState, Unit


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
