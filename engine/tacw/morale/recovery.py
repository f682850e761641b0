"""Rally and Reform (TACW §12.1-12.3), with the formation changes Reform also buys (§6.3.2
hedgehog, §6.3.3 Open Order, §6.3.4 column, §6.4) and pistol reloading (§9.8.4).

Commands (actions of the active wing, §12.2.1; `actions.begin_action` checks the wing, the
one-action rule and the orders, §5.6 / D5):
- `rally <unit>`: automatic (+1 morale level) when stacked with its Wing Commander; otherwise a
  morale check, with the WC's value if he is adjacent: passed +1 level, failed -1 level (a
  Broken unit that fails is eliminated; a Shaken one goes Broken and flees 2 hexes, §11.4.3).
  A unit at its casualty threshold never rises above Shaken (§11.5.2, §12.2.4).
- `reform <unit> [open|normal|column-exit|hedgehog-exit|reload]`: one Reform action. Without a
  word: one formation level back (§6.4), else the first hedgehog step, else a pistol reload.
  `open` enters Open Order (from Normal formation), `normal` leaves it (§6.3.3); `column-exit`
  leaves column, infantry F-Broken, cavalry F-Disordered (§6.3.4); `hedgehog-exit` takes the
  marker off and leaves the unit F-Broken, two more Reforms bring it to Normal (§6.3.2);
  `reload` turns No Pistols into 1st Pistol Used, or removes 1st Pistol Used (§9.8.4).
- `leader <ac> rally <unit>` / `leader <ac> reform <unit> [...]`: the Army Commander's one
  action of this activation (§5.1.2, §12.3), on a unit of any wing, whatever its orders or
  whether its wing has Finished: stacked with him or adjacent to him; his rally is automatic
  when stacked, a morale check with his value when adjacent. Marks `st.activation.ac_acted`.
Both trigger Reaction Fire when the unit is next to an enemy unit (§12.2.2, §9.7).

HERALD readings: the AC's reform or rally does not use the unit's own action; it happens in
step C (it closes the order-change step); only one leader modifies the morale check (§11.2):
a leader stacked with the unit takes precedence over the adjacent WC or AC.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event, Modifier

from engine.tacw import rules
from engine.tacw.sequence.actions import begin_action, find_unit
from engine.tacw.morale.checks import morale_check, stacked_leader
from engine.tacw.close_combat.retreat import inert, reaction_fire
from engine.tacw.state import Leader, TacwState, Unit

REFORM_OPTIONS = ("open", "normal", "column-exit", "hedgehog-exit", "reload")
LEVELS = ("normal", "disordered", "broken")


def _next_to_enemy(sc, st: TacwState, unit: Unit) -> bool:
    return any(sc.grid.distance(h, x) <= 1 for u in st.units.values()
               if u.alive and u.side != unit.side and not inert(u) for x in u.hexes for h in unit.hexes)


def _near(sc, ld: Leader | None, unit: Unit) -> str:
    """"stacked", "adjacent" or "" for a leader and a unit."""
    if ld is None or ld.status != "active" or ld.hex is None:
        return ""
    if ld.hex in unit.hexes:
        return "stacked"
    return "adjacent" if any(sc.grid.adjacent(ld.hex, h) for h in unit.hexes) else ""


# == Reform ======================================================================================

def reform_plan(unit: Unit, option: str | None) -> tuple[str, str, dict]:
    """What one Reform action does to `unit`: (option, description, changes); raises Illegal
    when there is nothing to do. Nothing is changed here."""
    if unit.kind in ("artillery", "wagon"):
        raise Illegal(f"{unit.called} has no formation to reform", "TACW §12.2.3")
    if option is None:
        if unit.formation != "normal":
            option = "formation"
        elif unit.special_formation == "hedgehog":
            option = "hedgehog-exit"
        elif unit.kind == "cavalry" and unit.pistols < unit.max_pistols:
            option = "reload"
        else:
            raise Illegal(f"{unit.called} is in good order: say what to reform ({', '.join(REFORM_OPTIONS)})",
                          "TACW §12.2.3")
    if option == "formation":
        better = LEVELS[LEVELS.index(unit.formation) - 1]
        return option, f"formation {unit.formation} -> {better}", {"formation": better}
    if option == "open":
        if unit.special_formation == "open":
            raise Illegal(f"{unit.called} is already in Open Order", "TACW §6.3.3")
        if unit.special_formation or unit.formation != "normal":
            raise Illegal("only a unit in Normal formation may take Open Order", "TACW §6.3.3")
        return option, "takes Open Order", {"special_formation": "open"}
    if option == "normal":
        if unit.special_formation != "open":
            raise Illegal(f"{unit.called} is not in Open Order", "TACW §6.3.3")
        return option, "leaves Open Order", {"special_formation": ""}
    if option == "column-exit":
        if unit.special_formation != "column":
            raise Illegal(f"{unit.called} is not in column", "TACW §6.3.4")
        to = "disordered" if unit.kind == "cavalry" else "broken"
        to = LEVELS[max(LEVELS.index(to), LEVELS.index(unit.formation))]
        return option, f"leaves column: F-{to.title()}", {"special_formation": "", "formation": to}
    if option == "hedgehog-exit":
        if unit.special_formation != "hedgehog":
            raise Illegal(f"{unit.called} is not in hedgehog", "TACW §6.3.2")
        return option, "takes the hedgehog marker off: F-Broken", {"special_formation": "", "formation": "broken"}
    if option == "reload":
        if unit.kind != "cavalry":
            raise Illegal("only cavalry carries pistols", "TACW §9.8")
        if unit.pistols >= unit.max_pistols:
            raise Illegal(f"{unit.called} has all its pistol shots ({unit.max_pistols})", "TACW §9.8.4")
        what = "No Pistols -> 1st Pistol Used" if unit.pistols == 0 else "1st Pistol Used removed"
        return option, f"reloads ({what})", {"pistols": unit.pistols + 1}
    raise CannotParse(f"reform what? {', '.join(REFORM_OPTIONS)} (not '{option}')")


def reform(sc, st: TacwState, unit: Unit, option: str | None, stream: DiceStream, by: str,
           section: str) -> list[Event]:
    option, text, changes = reform_plan(unit, option)
    for k, v in changes.items():
        setattr(unit, k, v)
    sec = {"formation": "TACW §6.4, §12.2.3", "open": "TACW §6.3.3", "normal": "TACW §6.3.3",
           "column-exit": "TACW §6.3.4", "hedgehog-exit": "TACW §6.3.2", "reload": "TACW §9.8.4"}[option]
    events = [Event("reform", unit.side, f"{sec}; {section}", f"{unit.called} reforms{by}: {text}",
                    outcome={"unit": unit.id, "option": option, **changes})]
    if _next_to_enemy(sc, st, unit):
        events += reaction_fire(sc, st, unit, "reform", stream, list(unit.hexes), ask=True)
    return events


# == Rally =======================================================================================

def rally_check(unit: Unit) -> None:
    if unit.morale_state == "normal":
        raise Illegal(f"{unit.called} is neither Shaken nor Broken", "TACW §12.2.4")
    if unit.morale_state == "shaken" and unit.at_threshold:
        raise Illegal(f"{unit.called} is at its casualty threshold: never better than Shaken", "TACW §11.5.2")


def _improve(unit: Unit) -> str:
    unit.morale_state = "shaken" if unit.morale_state == "broken" or unit.at_threshold else "normal"
    return unit.morale_state


def rally(sc, st: TacwState, unit: Unit, leader: Leader | None, stream: DiceStream, section: str,
          by: str) -> list[Event]:
    """§12.2.5 / §12.3.3: automatic with `leader` stacked, else an MC (his value if adjacent)."""
    rally_check(unit)
    before = unit.morale_state
    where = _near(sc, leader, unit)
    if where == "stacked":
        after = _improve(unit)
        events = [Event("rally", unit.side, section, f"{unit.called} rallies{by} with {leader.name} "
                        f"stacked: {before} -> {after} (automatic)", outcome={"unit": unit.id, "morale": after})]
    else:
        extra = []
        if where == "adjacent" and leader.value and stacked_leader(st, unit, sc) is None:
            extra.append(Modifier(leader.value, f"{leader.name} adjacent", section))
        events = morale_check(sc, st, unit, stream, reason=f"rally attempt{by}", section=section, extra=extra)
        if events and events[0].outcome.get("passed"):
            after = _improve(unit)
            events.append(Event("rally", unit.side, section, f"{unit.called} rallies: {before} -> {after}",
                                outcome={"unit": unit.id, "morale": after}))
        else:
            after = unit.morale_state if unit.alive else "eliminated"
            events.append(Event("rally", unit.side, section, f"{unit.called} fails to rally: {before} -> {after}",
                                outcome={"unit": unit.id, "morale": after}))
    if unit.alive and _next_to_enemy(sc, st, unit):
        events += reaction_fire(sc, st, unit, "rally", stream, list(unit.hexes), ask=True)
    return events


# == the commands ================================================================================

def _wc(st: TacwState, unit: Unit) -> Leader | None:
    wing = st.wings.get(unit.wing)
    ld = st.leaders.get(wing.commander) if wing else None
    return ld if ld is not None and ld.status == "active" else None


def do_rally(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    if len(cmd.args) != 1:
        raise CannotParse("usage: " + rules.VERBS["rally"])
    rally_check(find_unit(st, cmd.args[0]))
    unit = begin_action(sc, st, side, cmd.args[0], "rally")
    return rally(sc, st, unit, _wc(st, unit), stream, "TACW §12.2.5", "")


def check_out_of_command_reform(sc, st: TacwState, unit: Unit) -> None:
    """§5.4.3: an out-of-command unit "non può Riformarsi se non può muovere in modo da porsi in
    comando o più vicina ad essere in comando", unless the Army Commander is stacked with or
    adjacent to it. HERALD (digest R8): read as "unless", the only reading that fits the first
    bullet ("it must move so as to come into command"): a unit out of command that could step
    closer to command must do that instead; it may Reform when no step can bring it closer.
    Herald judges "could step closer" on the map alone: some hex adjacent to the unit that it
    could enter (on the map, passable, free of units, not adjacent to an enemy, §5.4.3) is nearer
    its Wing Commander or an in-command unit of its wing than the unit is now."""
    from engine.tacw.geometry import adjacent_to_enemy, command_distance, in_command
    from engine.tacw import tables
    if in_command(sc, st, unit) or _near(sc, st.army_commander(unit.side), unit):
        return
    now = command_distance(sc, st, unit, unit.hexes)
    if now is None:
        return                                     # no Wing Commander on the map: no way back
    occupied = {h for u in st.units.values() if u.alive for h in u.hexes}
    for h in sorted({n for x in unit.hexes for n in sc.grid.neighbors(x)} - set(unit.hexes)):
        if (h in occupied or sc.hex_impassable(h)
                or tables.terrain_mp(sc.terrain_at(h), unit.kind) is None
                or adjacent_to_enemy(sc, st, [h], unit.side)):
            continue
        d = command_distance(sc, st, unit, [h])
        if d is not None and d < now:
            raise Illegal(f"{unit.called} is out of command and could move closer to command (into {h}): "
                          "it must do that rather than Reform, unless the Army Commander is with or "
                          "next to it", "TACW §5.4.3 (digest R8)")


def do_reform(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    if len(cmd.args) not in (1, 2):
        raise CannotParse("usage: " + rules.VERBS["reform"])
    option = cmd.args[1] if len(cmd.args) == 2 else None
    reform_plan(find_unit(st, cmd.args[0]), option)
    unit = begin_action(sc, st, side, cmd.args[0], "reform")
    check_out_of_command_reform(sc, st, unit)
    return reform(sc, st, unit, option, stream, "", "TACW §12.2.3")


def _army_commander(st: TacwState, side: str, word: str) -> Leader:
    ld = st.army_commander(side) if word == "ac" else st.leaders.get(word)
    if ld is None or ld.side != side:
        from engine.tacw.ids import unknown_leader
        raise Illegal(unknown_leader(st, word, side), "TACW §5.1")
    if ld.role != "ac":
        raise Illegal(f"{ld.name} is a Wing Commander: only the Army Commander rallies or reforms "
                      "as his own action", "TACW §5.1.2, §5.2.2")
    if ld.status != "active" or ld.hex is None:
        raise Illegal(f"{ld.name} is not on the field", "TACW §5.3")
    return ld


def ac_action(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """§5.1.2, §12.3: `leader <ac> rally <unit>` / `leader <ac> reform <unit> [option]`."""
    if len(cmd.args) < 3 or (cmd.args[1] == "rally" and len(cmd.args) != 3) or len(cmd.args) > 4:
        raise CannotParse("usage: " + USAGE)
    ac = _army_commander(st, side, cmd.args[0])
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("the Army Commander acts when a wing of his army is activated", "TACW §5.1.1")
    if st.pending:
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step not in ("order_change", "actions"):
        raise Illegal("leader actions come before close combat (step C)", "TACW §3.2")
    if act.ac_acted:
        raise Illegal(f"{ac.name} has already taken his action in this activation", "TACW §5.1.2")
    unit = find_unit(st, cmd.args[2], side)
    if unit.side != side:
        raise Illegal(f"{unit.called} is not yours", "TACW §12.3")
    if not _near(sc, ac, unit):
        raise Illegal(f"{unit.called} is neither stacked with nor adjacent to {ac.name}", "TACW §12.3.2")
    if cmd.args[1] == "rally":
        rally_check(unit)
    else:
        reform_plan(unit, cmd.args[3] if len(cmd.args) == 4 else None)
    act.ac_acted = True
    act.step = "actions"
    by = f" (Army Commander {ac.name})"
    if cmd.args[1] == "rally":
        return rally(sc, st, unit, ac, stream, "TACW §12.3.3", by)
    return reform(sc, st, unit, cmd.args[3] if len(cmd.args) == 4 else None, stream, by, "TACW §12.3.2")


_previous_leader = rules.HANDLERS.get("leader")
_previous_usage = rules.VERBS.get("leader", "")
USAGE = ("leader <ac> rally <unit> | leader <ac> reform <unit> [open|normal|column-exit|"
         "hedgehog-exit|reload]: the Army Commander's action (TACW §5.1.2, §12.3)")


def do_leader(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """AC rally/reform here; any other leader command goes to the verb registered before
    (leader movement: movement.do_leader, leaders.move_leader)."""
    if len(cmd.args) >= 2 and cmd.args[1] in ("rally", "reform"):
        return ac_action(sc, st, side, cmd, stream)
    if _previous_leader is not None and _previous_leader is not do_leader:
        return _previous_leader(sc, st, side, cmd, stream)
    raise CannotParse("usage: " + USAGE)


rules.register("rally", do_rally, "rally <unit>: Rally action: automatic with the Wing Commander "
               "stacked, else a morale check (TACW §12.2.4-12.2.5)")
rules.register("reform", do_reform, "reform <unit> [open|normal|column-exit|hedgehog-exit|reload]: "
               "Reform action (TACW §12.2.3, §6.3-6.4, §9.8.4)")
rules.register("leader", do_leader, USAGE + (f"; {_previous_usage}" if _previous_usage else ""))
