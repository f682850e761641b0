"""The roll on the Assault & Charge table and its results (JdG Classique [8.5], [8.6], [8.9],
[10]): a stage of every assault and charge resolved (combat/resolution.py) rolls d10 + the
modifiers [8.6] (combat/assault.py `combat_modifiers`), artillery alone in a hex is eliminated
without a roll ([8.5] L534, [8.9]), and the band's results on both sides are queued in the
text's order and applied one by one: fall back [10.3], disorder and cohesion checks [8.5], [10],
stacked artillery [8.9].

HERALD readings (DECISIONS.md): D45 (results in the text's order), D46, D47 (artillery alone).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event

from engine.jdg import checks, tables
from engine.jdg.combat import results
from engine.jdg.combat.assault import _attackers, _is_charge, combat_modifiers, combat_state, enemies_in
from engine.jdg.combat.results import name_of
from engine.jdg.state import JdgState, Unit


# -- the roll and its results [8.5], [8.6], [8.9], [10] ------------------------------------------------

def _stage_roll(sc, st, cur, stream) -> list[Event]:
    """[8.5]: d10 + every modifier on the Assault & Charge table; the band's effects on both sides
    are queued in the text's order (HERALD D45) and applied by the next stage. Artillery alone in
    a hex is eliminated without a roll ([8.5] L534, [8.9], HERALD D47)."""
    side = cur["side"]
    att = _attackers(st, cur)
    fight_hexes = [h for h in cur["targets"]
                   if any(u.arm != "artillery" for u in enemies_in(st, [h], side))]
    gun_hexes = [h for h in cur["targets"] if h not in fight_hexes and enemies_in(st, [h], side)]
    events: list[Event] = []
    cur["vacated"], cur["pursued"], cur["attacker_fell_back"] = [], [], []
    cur["before"] = {h: [u.id for u in enemies_in(st, [h], side)] for h in fight_hexes + gun_hexes}
    cur["fight_hexes"] = fight_hexes
    _mark_fought(st, att)
    charged = combat_state(st).setdefault("charged", [])
    charged += [a.id for a in att if a.arm == "cavalry" and a.id not in charged]
    if not fight_hexes:
        cur["result"] = "artillery_overrun"
        cur["effects"] = [{"op": "eliminate", "unit": u.id,
                           "cause": f"artillery alone in {u.hex}, assaulted by "
                                    f"{', '.join(name_of(sc, a) for a in att)} (HERALD D47)"}
                          for u in enemies_in(st, gun_hexes, side)]
        events.append(Event("assault", side, "JdG [8.5], [8.9]",
                            f"{', '.join(name_of(sc, a) for a in att)} assault artillery alone in "
                            f"{', '.join(gun_hexes)}: it is eliminated, no roll (HERALD D47)",
                            inputs={"attackers": [a.id for a in att], "targets": gun_hexes, "combat": cur["id"]},
                            outcome={"result": "artillery_overrun"}))
        return events
    mods = combat_modifiers(sc, st, att, fight_hexes, counter_charged=cur["counter_charged"],
                            recharges=cur["recharges"])
    # only the band is read (the die and the total are recorded for people): a what-if tries one
    # result per band (issue 13)
    die = checks.d10(stream, "Assault & Charge table", roller=side,
                     reads=checks.table_reads(tables.ASSAULT_BANDS, sum(m.value for m in mods)))
    total = die + sum(m.value for m in mods)
    band = tables.assault_result(total)
    defenders = enemies_in(st, fight_hexes, side)
    what = "charge" if _is_charge(st, cur) else "assault"
    if cur["origin"] == "breakthrough":
        what = "breakthrough assault"
    elif cur["origin"] == "counter_assault":
        what = "counter-" + what
    elif cur["origin"] == "pursuit":
        what = f"pursuit re-charge {cur['recharges']}"
    # each modifier named, as the fire narratives do [8.6] (it read "d10 3 -1 -1 +1 = 2")
    narrative = (f"{what[0].upper() + what[1:]} by {', '.join(name_of(sc, a) for a in att)} on "
                 f"{', '.join(fight_hexes)} ({', '.join(name_of(sc, d) for d in defenders)}): d10 {die}"
                 + "".join(f" {m.value:+d} {m.reason}" for m in mods) + f" = {total}: {band.label}, {band.result}")
    events.append(Event("assault", side, "JdG [8.5], [8.6]" + (", [9.2]" if _is_charge(st, cur) else ""),
                        narrative, inputs={"attackers": [a.id for a in att], "targets": fight_hexes,
                                           "combat": cur["id"], "origin": cur["origin"]},
                        base=0, modifiers=mods,
                        dice=[DieRoll("Assault & Charge table", "d10", die, effect=band.key)],
                        table="Assault & Charge table", row=band.label,
                        outcome={"total": total, "result": band.key, "combat": cur["id"]}))
    cur["result"] = band.key
    cur["die"], cur["total"] = die, total
    att_hexes = sorted({a.hex for a in att})
    effects: list[dict] = []
    if band.key in ("breakthrough", "fall_back"):
        # 10+: falls back, then disordered; 5-9: falls back, then checks cohesion [8.5] L524-526;
        # stacked artillery falls back and checks cohesion [8.9] L585 (HERALD D45, D47)
        for u in defenders:
            effects.append({"op": "fall_back", "unit": u.id, "away": att_hexes, "defender": True})
            if band.key == "breakthrough" and u.arm != "artillery":
                effects.append({"op": "disorder", "unit": u.id, "away": att_hexes,
                                "cause": f"{what} result 10 or more"})
            else:
                effects.append({"op": "check", "unit": u.id, "away": att_hexes, "then": "disorder"})
        for u in enemies_in(st, gun_hexes, side):
            effects.append({"op": "eliminate", "unit": u.id,
                            "cause": "artillery alone, the combat on the other hex succeeded (HERALD D47)"})
    else:
        # 0-4 and below 0 [8.5] L528-530: every unit of the attacking hexes is disordered, then
        # checks cohesion and falls back on a failure; stacked artillery is disordered and falls
        # back only if the whole stack does ([8.9] L583)
        for h in att_hexes:
            stack = [u for u in st.units_at(h) if u.side == side]
            men = [u.id for u in stack if u.arm != "artillery"]
            for uid in men:
                effects.append({"op": "beaten", "unit": uid, "away": fight_hexes})
            for u in stack:
                if u.arm == "artillery":
                    effects.append({"op": "beaten_guns", "unit": u.id, "away": fight_hexes, "hex": h,
                                    "men": men})
    cur["effects"] = effects
    return events


def _stage_effects(sc, st, cur, stream) -> list[Event]:
    """Apply the queued results one by one [8.5], [8.9], [10]; a fall back whose owner is asked
    for the hex (combat/retreat.py) stops here and the rest follows his answer."""
    events: list[Event] = []
    side = cur["side"]
    effects = cur.setdefault("effects", [])
    while effects and not st.pending:
        events += _apply_effect(sc, st, cur, effects.pop(0), stream)
    if effects or st.pending:
        return events
    for h, ids in cur.get("before", {}).items():
        if ids and not enemies_in(st, [h], side) and h not in cur["vacated"]:
            cur["vacated"].append(h)
    cur["pursued"] = [i for i in cur["pursued"] if st.units[i].alive]
    return events


def _apply_effect(sc, st: JdgState, cur: dict, e: dict, stream) -> list[Event]:
    """One queued result of a combat [8.5], [8.9], [10] (`_stage_effects`); a result that leads
    to another puts it first in the queue."""
    events: list[Event] = []
    effects = cur["effects"]
    u = st.units[e["unit"]]
    if not u.alive:
        return events
    op = e["op"]
    if op == "eliminate":
        events += results.eliminate(sc, st, u, stream, "JdG [8.5], [8.9]", e["cause"])
    elif op == "fall_back":
        start = u.hex
        events += fall_back(sc, st, u, stream, "JdG [8.5]", e["away"])
        if u.alive and u.hex != start and u.id not in cur["pursued"]:
            cur["pursued"].append(u.id)
    elif op == "disorder":
        events += results.disorder(sc, st, u, stream, "JdG [8.5]", e["cause"], away_from=e["away"])
    elif op == "check":
        ok, evs = results.cohesion_check(sc, st, u, stream, "cohesion check",
                                            "JdG [8.5]" + (", [8.9]" if u.arm == "artillery" else ""))
        events += evs
        if not ok and u.alive:
            effects.insert(0, {"op": "disorder", "unit": u.id, "away": e["away"],
                               "cause": "failed cohesion check"})
    elif op == "beaten":
        was = u.condition
        events += results.disorder(sc, st, u, stream, "JdG [8.5]", "assault result below 5",
                                      away_from=e["away"])
        if u.id not in cur["attacker_fell_back"] and u.condition == "routed" and was != "routed":
            cur["attacker_fell_back"].append(u.id)       # its rout retreat (HERALD D45, D46)
            return events
        if u.alive:
            effects.insert(0, {"op": "beaten_check", "unit": u.id, "away": e["away"], "hex": u.hex})
    elif op == "beaten_check":
        ok, evs = results.cohesion_check(sc, st, u, stream, "cohesion check", "JdG [8.5]")
        events += evs
        if not ok and u.alive and u.hex == e["hex"]:
            cur["attacker_fell_back"].append(u.id)
            events += fall_back(sc, st, u, stream, "JdG [8.5]", e["away"])
    elif op == "beaten_guns":
        events += results.disorder(sc, st, u, stream, "JdG [8.9]", "stacked with a beaten attacker",
                                      away_from=e["away"])
        men = [st.units[m] for m in e["men"]]
        if u.alive and men and all(m.hex != e["hex"] for m in men):
            events += fall_back(sc, st, u, stream, "JdG [8.9]", e["away"])
    return events


def _mark_fought(st: JdgState, att: list[Unit]) -> None:
    act = st.activation
    for a in att:
        a.acted = True
        if act is not None and a.side == act.side and a.id not in act.fought:
            act.fought.append(a.id)


def fall_back(sc, st: JdgState, unit: Unit, stream: DiceStream, section: str, away_from) -> list[Event]:
    """Falling back 1 hex away from the enemy that caused it [10.3] (combat/retreat.py)."""
    if not unit.alive:
        return []
    from engine.jdg.combat import retreat
    return retreat.fall_back(sc, st, unit, stream, section, away_from=away_from)
