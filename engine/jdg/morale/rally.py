"""Rally ("recupero del morale") of Jours de Gloire [11], with the night rules [12] and the
demoralised formations of optional rule 11.

Verb (registered at import):
  rally <unit>     [11]: a disordered or routed unit of the active formation, at the end of its
                   activation (the rally step, [1.D]); d10 (+1 routed; -3 instead at night [12])
                   <= its reduced cohesion.

Functions the sequence calls:
  night_auto_rally(sc, st, formations) -> events   [12] L804: at the end of a night activation,
                   the formation's disordered units that took no action and are not adjacent to
                   an enemy rally without a roll.

HERALD decisions (DECISIONS.md):
- D62: who may rally: disordered units that neither moved, fired nor assaulted this activation
  (Unit.acted), and routed units (the text sets them no such condition); never a unit adjacent to
  an enemy unit (L776); whatever the formation's orders, even after a failed commander initiative.
  One attempt per unit and activation ("potrà tentare un nuovo recupero ... alla prossima
  attivazione", L786).
- D63: at night a routed unit's whole modifier is -3 (not +1, and not the +2 of every CC); a
  disordered unit that took no action rallies without a roll.
- D69: a unit of a demoralised formation never returns to good order: its rally from disorder
  fails automatically (Herald refuses the command, which could not succeed); from rout it reaches
  disordered.
- A rallied unit "la si orienta a piacere" (L782, L784): `rally <unit> face <vertex>` turns it
  when it rallies; without `face` it keeps its facing.
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event

from engine.core import facing as core_facing
from engine.jdg import checks, geometry, rules, tables
from engine.jdg.combat import results
from engine.jdg.state import JdgState, Unit


def _demoralised(st: JdgState, unit: Unit) -> bool:
    f = st.formations.get(unit.formation)
    return unit.demoralised or bool(f and f.demoralised)


def refusal(sc, st: JdgState, unit: Unit) -> str:
    """Why `unit` may not try to rally now [11], or "" (the active formation is the caller's)."""
    name = results.name_of(sc, unit)
    if unit.condition == "good":
        return f"{name} is in good order: only disordered or routed units rally [11]"
    if unit.condition == "disordered" and unit.acted:
        return f"{name} moved, fired or fought this activation: a disordered unit rallies only if it did none (HERALD D62)"
    act = st.activation
    if act is not None and unit.id in act.rallied:
        return f"{name} has already tried to rally this activation: it may try again at its next activation [11]"
    enemies = geometry.adjacent_enemies(sc, st, unit)
    if enemies:
        return (f"{name} is adjacent to the enemy ({', '.join(sorted(u.id for u in enemies))}): "
                f"units next to enemy units cannot rally [11]")
    if unit.condition == "disordered" and _demoralised(st, unit):
        return f"{name}'s formation is demoralised: it can never return to good order (optional rule 11, HERALD D69)"
    return ""


def rally(sc, st: JdgState, unit: Unit, stream: DiceStream) -> list[Event]:
    """[11]: d10, +1 if routed (-3 instead at night [12] L806), <= the reduced cohesion (the back
    of the counter, L780): a disordered unit returns to good order, a routed one loses its rout
    marker and stays disordered (L782-L784); otherwise nothing changes (L786). At night a
    disordered unit rallies without a roll (L804, D63)."""
    name = results.name_of(sc, unit)
    night = results.is_night(sc, st)
    routed = unit.condition == "routed"
    value = sc.unit(unit.id).cohesion_back
    if st.activation is not None:
        st.activation.rallied.append(unit.id)
    if night and not routed:
        unit.condition = "good"
        return [Event("rally", unit.side, "JdG [12]",
                      f"night: {name}, disordered, took no action and is not next to the enemy: it rallies "
                      f"without a roll and is in good order", inputs={"unit": unit.id},
                      outcome={"unit": unit.id, "rallied": True, "condition": "good", "automatic": True})]
    mods = []
    if routed:
        mods.append((tables.RALLY_ROUTED_NIGHT if night else tables.RALLY_ROUTED).modifier())
    # read pass or fail (tables.rally_check): a what-if tries one of each (issue 13)
    die = checks.d10(stream, f"rally of {name}", reads=(value - sum(m.value for m in mods) + 1,))
    total = die + sum(m.value for m in mods)
    passed = tables.rally_check(die, value, routed=routed, night=night)
    before = unit.condition
    if passed:
        unit.condition = "disordered" if routed else "good"
        unit.rout_halted = False
    mtxt = "".join(f" {m.value:+d}" for m in mods)
    outcome = ("rallies: " + ("the rout marker is removed, it stays disordered" if routed else "back in good order")
               if passed else f"fails: it stays {before}")
    return [Event("rally", unit.side, "JdG [11]" + (", [12]" if night and routed else ""),
                  f"rally of {name} ({before}): d10 {die}{mtxt} = {total} against reduced cohesion {value}: {outcome}",
                  inputs={"unit": unit.id, "condition": before, "night": night}, base=value, modifiers=mods,
                  dice=[DieRoll(f"rally of {name}", "d10", die, effect="passed" if passed else "failed")],
                  table="rally: d10 (+1 routed; -3 at night) <= reduced cohesion", row=before,
                  outcome={"unit": unit.id, "rallied": passed, "condition": unit.condition, "total": total})]


def do_rally(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`rally <unit>` [11]: a disordered or routed unit of the active formation, in the rally step
    of its activation ([1.D], the last step: rallying closes fire, movement and combat)."""
    if not cmd.args:
        raise CannotParse("usage: " + rules.USAGE["rally"])
    rules.need_active(st, side)
    unit = rules.unit_of(st, cmd.args[0], side)
    act = st.activation
    if unit.formation not in act.formations or (getattr(act, "arm", "") and unit.arm != act.arm):
        raise Illegal(f"{results.name_of(sc, unit)} is not of the active formation "
                      f"({', '.join(act.formations)}): only its units rally now", "JdG [11], [1] D")
    if act.reserve:
        raise Illegal("a formation activated in reserve (phase D bis) cannot rally", "JdG opt. [1]; HERALD D65")
    why = refusal(sc, st, unit)
    if why:
        raise Illegal(why, "JdG [11]")
    face = _facing_word(sc, cmd.args[1:])
    rules.enter_step(st, "rally", sc=sc)
    events = rally(sc, st, unit, stream)
    if face is not None and events and events[-1].outcome.get("rallied") and unit.facing != face:
        unit.facing = face
        events.append(Event("face", side, "JdG [11], [6.1]",
                            f"{results.name_of(sc, unit)}, rallied, faces {core_facing.vertex_name(geometry.grid(sc), face)}"
                            " (a rallied unit faces as its owner likes)", outcome={"unit": unit.id, "facing": face}))
    return events


def _facing_word(sc, words) -> int | None:
    """`face <vertex>` after the unit: the facing a rallied unit takes ([11] L782-L784: "la si
    orienta a piacere"; [6.1])."""
    words = list(words)
    if not words:
        return None
    if len(words) != 2 or words[0] != "face":
        raise CannotParse("usage: rally <unit> [face <vertex>]")
    try:
        return core_facing.vertex_index(geometry.grid(sc), words[1])
    except ValueError:
        names = core_facing.VERTEX_NAMES[geometry.grid(sc).orientation]
        raise Illegal(f"'{words[1]}' is not a vertex: {', '.join(names)}", "JdG [6.1]") from None


def _night_rally_at_activation_end(sc, st: JdgState, side: str, stream) -> list[Event]:
    """[12] L804, HERALD D63: when a night activation ends, its disordered units that took no
    action and are not next to an enemy rally without a roll."""
    if st.activation is None:
        return []
    return night_auto_rally(sc, st, list(st.activation.formations))


def night_auto_rally(sc, st: JdgState, formations) -> list[Event]:
    """[12] L804: at night the disordered units of the formations that took no action and are not
    adjacent to an enemy unit rally without a roll (the sequence calls it at the activation's end;
    a demoralised formation's units cannot return to good order, D69)."""
    if not results.is_night(sc, st):
        return []
    events = []
    for fid in formations:
        for unit in st.formation_units(fid):
            if unit.condition != "disordered" or unit.acted or _demoralised(st, unit):
                continue
            if st.activation is not None and unit.id in st.activation.rallied:
                continue
            if geometry.adjacent_enemies(sc, st, unit):
                continue
            events += rally(sc, st, unit, None)
    return events


rules.register("rally", do_rally, "rally <unit> [face <vertex>]: rally a disordered or routed unit of the active formation (JdG [11])")

from engine.jdg.sequence import activation as _activation  # noqa: E402
_activation.on_step_end("rally", _night_rally_at_activation_end)
