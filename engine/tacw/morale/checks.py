"""Damage and morale: hits, formation hits, morale checks, elimination (TACW §6.3, §9.6, §11).

Fire, close combat and movement all end here, so each rule is written once. Retreats and rout
moves (which need the map) live in `close_combat/retreat.py`.

`share=True` (passed by fire only: fire/small_arms.py, fire/artillery.py) applies §8.2.1 "a cavalry + light
infantry stack shares all formation and morale hits": each formation hit and each morale level
the cavalry takes is taken by its stacked light infantry too (DECISIONS D90). Close combat
shares them itself (close_combat/melee.py, with `retreat.companions`), so it never passes `share`.
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier

from engine.tacw import readings, tables_combat as tc
from engine.tacw.state import Leader, TacwState, Unit

FORMATION_STEPS = ("normal", "disordered", "broken")


def d10(stream: DiceStream, purpose: str, roller: str | None = None, reading=None) -> int:
    """§2.2: a d10 read 0-9; `reading`: all the rules take from it (engine/tacw/readings.py)."""
    return readings.d10(stream, purpose, roller, reading)


def stacked_leader(st: TacwState, unit: Unit, sc=None) -> Leader | None:
    """§11.2: the value of ONE leader stacked with the unit (the best one present). With the
    scenario: only a leader who may influence the unit (Marston Moor's rivalry: an Army
    Commander helps only units of his colour, HERALD D120)."""
    from engine.tacw.battles.marston_moor import leader_may_influence
    here = [ld for h in unit.hexes for ld in st.leaders_at(h) if ld.side == unit.side
            and (sc is None or leader_may_influence(sc, ld, unit))]
    return min(here, key=lambda ld: ld.value, default=None)


def sharing(st: TacwState, unit: Unit, share: bool) -> list[Unit]:
    """The units that share `unit`'s formation and morale hits (§8.2.1): its stacked light
    infantry when `share` is set and `unit` is cavalry; nobody otherwise."""
    if not share:
        return []
    from engine.tacw.close_combat.retreat import companions
    return companions(st, unit)


def eliminate(sc, st: TacwState, unit: Unit, reason: str, section: str, by: str | None = None) -> list[Event]:
    """Remove a unit (§9.6.1, §10.4). Artillery is never removed: its guns are disabled and stay
    on the map (§9.9.9). Leaders stacked with an eliminated unit are removed (§10.8)."""
    events: list[Event] = []
    if unit.kind == "artillery":
        unit.gun_state = unit.gun_state or "disabled"
        unit.morale_state = "normal"
        return [Event("disabled", unit.side, "TACW §9.9.9", f"{unit.called}'s guns are disabled ({reason})",
                      outcome={"unit": unit.id})]
    hexes = list(unit.hexes)
    unit.status = "eliminated"
    unit.hexes = []
    events.append(Event("eliminated", unit.side, section, f"{unit.called} is eliminated ({reason})",
                        outcome={"unit": unit.id, "hexes": hexes}))
    st.last_action.setdefault("items", []).append({"kind": "eliminated", "hex": hexes[0]})
    for h in hexes:
        if st.units_at(h):
            continue
        for ld in st.leaders_at(h):
            if ld.side == unit.side:
                events += remove_leader(st, ld, f"stacked with {unit.called} when it was eliminated", "TACW §10.8")
    return events


def remove_leader(st: TacwState, ld: Leader, reason: str, section: str) -> list[Event]:
    """§5.3: a removed leader leaves the map; a replacement roll follows in Marker Removal."""
    ld.status = "removed"
    ld.removed_turn = st.turn
    ld.hex = None
    return [Event("leader_removed", ld.side, section, f"{ld.name} is removed ({reason})",
                  outcome={"leader": ld.id})]


def drop_morale(sc, st: TacwState, unit: Unit, stream: DiceStream, levels: int, reason: str,
                section: str, retreat: bool = True, share: bool = False) -> list[Event]:
    """Worsen morale by `levels`: Normal -> Shaken -> Broken -> Eliminated (§11.1, §10.4). A unit
    newly Broken retreats 2 hexes at once (§11.4.3), artillery excepted (§9.9.8). `share`: the
    stacked light infantry loses each level too, without a retreat of its own: it goes where
    its cavalry goes (§8.2.1, D90)."""
    events: list[Event] = []
    mates = sharing(st, unit, share)
    for _ in range(levels):
        flee = False
        if unit.morale_state == "normal":
            unit.morale_state = "shaken"
            events.append(Event("morale", unit.side, section, f"{unit.called} is Shaken ({reason})",
                                outcome={"unit": unit.id, "morale": "shaken"}))
        elif unit.morale_state == "shaken":
            unit.morale_state = "broken"
            events.append(Event("morale", unit.side, section, f"{unit.called} is Broken ({reason})",
                                outcome={"unit": unit.id, "morale": "broken"}))
            flee = retreat and unit.kind != "artillery"
        else:
            events += eliminate(sc, st, unit, reason, section)
        for c in mates:                 # §8.2.1: the same level, before the stack flees together
            if c.alive:
                events += drop_morale(sc, st, c, stream, 1, f"shares {unit.called}'s morale hit: {reason}",
                                      "TACW §8.2.1", retreat=False)
        if flee:
            from engine.tacw.close_combat.retreat import retreat_unit
            events += retreat_unit(sc, st, unit, 2, "broken", stream)
        if not unit.alive:
            break
    return events


def morale_check(sc, st: TacwState, unit: Unit, stream: DiceStream, *, reason: str, section: str,
                 checks: int = 1, extra: list[Modifier] | None = None, share: bool = False) -> list[Event]:
    """§11.2: d10 + one stacked leader's value (+1 per simultaneous MC beyond the first,
    §9.6.5); passed when at most the current morale, else one morale level worse (`share`: the
    stacked light infantry loses it too, §8.2.1; it rolls no check of its own)."""
    if not unit.alive:
        return []
    mods = list(extra or [])
    ld = stacked_leader(st, unit, sc)
    if ld is not None and ld.value:
        mods.append(Modifier(ld.value, f"{ld.name} stacked with the unit", "TACW §11.2"))
    if checks > 1:
        mods.append(Modifier(checks - 1, f"{checks} morale checks at once", "TACW §9.6.5"))
    morale, plus = unit.current_morale, sum(m.value for m in mods)
    roll = d10(stream, f"morale check, {unit.called}", unit.side,
               reading=lambda r: tc.morale_check_passes(r + plus, morale))
    total = roll + plus
    ok = tc.morale_check_passes(total, morale)
    ev = Event("morale_check", unit.side, "TACW §11.2",
               f"{unit.called} checks morale ({reason}): {roll}" + "".join(f" {m.value:+d}" for m in mods)
               + f" = {total} vs morale {morale} -> " + ("passed" if ok else "failed"),
               base=roll, modifiers=mods, dice=[DieRoll("morale check", "d10", roll)],
               table="Morale check", row=f"morale {morale}", outcome={"unit": unit.id, "passed": ok})
    if ok:
        return [ev]
    return [ev] + drop_morale(sc, st, unit, stream, 1, "failed morale check", section, share=share)


def formation_hit(sc, st: TacwState, unit: Unit, stream: DiceStream, reason: str, section: str,
                  n: int = 1, share: bool = False) -> list[Event]:
    """§6.3.1: each formation hit worsens formation one level (Normal -> Disordered -> Broken).
    Artillery takes a morale check instead (§9.9.7); Open Order goes straight to Broken
    (§6.3.3). `share`: the stacked light infantry takes the hit too (§8.2.1), even when the
    cavalry is already F-Broken."""
    if not unit.alive or n <= 0:
        return []
    mates = sharing(st, unit, share)
    events = _formation_hit(sc, st, unit, stream, reason, section, n)
    for c in mates:
        events += formation_hit(sc, st, c, stream, f"shares {unit.called}'s formation hit: {reason}",
                                "TACW §8.2.1", n)
    return events


def _formation_hit(sc, st: TacwState, unit: Unit, stream: DiceStream, reason: str, section: str,
                   n: int) -> list[Event]:
    if unit.kind == "artillery":
        return morale_check(sc, st, unit, stream, reason=f"formation hit on artillery: {reason}",
                            section="TACW §9.9.7", checks=1)
    before = unit.formation
    if unit.special_formation == "open":
        unit.special_formation = ""
        unit.formation = "broken"
    else:
        idx = min(FORMATION_STEPS.index(unit.formation) + n, 2)
        unit.formation = FORMATION_STEPS[idx]
    if unit.formation == before:
        return []
    return [Event("formation", unit.side, section, f"{unit.called}: formation {before} -> {unit.formation} ({reason})",
                  outcome={"unit": unit.id, "formation": unit.formation})]


def apply_hits(sc, st: TacwState, unit: Unit, hits: int, stream: DiceStream, *, source: str,
               section: str, salvo: bool = False, share: bool = False) -> list[Event]:
    """§9.6: hits are casualties; artillery hit is disabled; casualties reaching the printed
    strength eliminate; the casualty threshold makes the unit Shaken for good (§11.5); then the
    morale checks one unit's fire causes (§9.6.2 - §9.6.5), rolled once. `share` (fire at a
    cavalry + light infantry stack, §8.2.1, D90): the light infantry shares the Open Order
    formation hit and a failed check's morale level; the casualties, and the threshold they
    may reach, stay the cavalry's."""
    events: list[Event] = []
    if not unit.alive:
        return events
    if hits and unit.kind == "artillery":
        return eliminate(sc, st, unit, f"hit by {source}", "TACW §9.6.1")
    was_at_threshold = unit.at_threshold
    if hits:
        if unit.special_formation == "open":
            events += formation_hit(sc, st, unit, stream, f"Open Order unit hit by {source}", "TACW §6.3.3",
                                    share=share)
        unit.casualties += hits
        events.append(Event("casualties", unit.side, section,
                            f"{unit.called} takes {hits} casualt{'ies' if hits > 1 else 'y'} "
                            f"({unit.casualties}/{unit.strength})", outcome={"unit": unit.id, "hits": hits}))
        if unit.casualties >= unit.strength:
            return events + eliminate(sc, st, unit, f"casualties reached its strength ({source})", "TACW §9.6.1")
        if not unit.at_threshold and tc.threshold_reached(unit.morale, unit.strength, unit.casualties):
            unit.at_threshold = True
            events.append(Event("threshold", unit.side, "TACW §11.5",
                                f"{unit.called} reaches its casualty threshold: Shaken for good"))
            if unit.morale_state == "normal":
                unit.morale_state = "shaken"
    checks = tc.fire_morale_checks(unit.current_morale, hits, salvo=salvo, at_threshold=was_at_threshold)
    if checks:
        events += morale_check(sc, st, unit, stream, reason=f"hit by {source}" if hits else f"target of {source}",
                               section="TACW §9.6.2", checks=checks, share=share)
    return events
