"""Cavalry charges [9] (JdG Classique): the charge move and the reactions of the charged side.

A charge is declared during the movement step, as the cavalry moves ([9.1] L599, HERALD D14,
D52): `move <unit> <hexes> charge <hex>` (the movement module calls `charge_move`) or
`charge <unit> <hex>` for a charge from where the unit stands (0 hexes moved). It is resolved in
the combat step with the assaults (`resolve`, combat/resolution.py), through these stages of that
sequence (HERALD D53):

- the square attempt of infantry charged in open terrain [9.3] (the defender's policy "square":
  auto / never / ask), one cohesion check per unit (HERALD D54);
- the cavalry recall from a square [9.3]: the attacker's choice, an engagement check, and a fall
  back of 1 hex away from the square, never into an enemy ZoC (HERALD D54);
- the counter-charge by cavalry in good order charged through its front [9.4] (the defender's
  policy "counter_charge": never / ask), an engagement check, +2 for non-heavy cavalry against
  heavy (tables.COUNTER_CHARGE_LIGHT_VS_HEAVY);
- the pursuit [9.5] when the charge empties the defender's hex (instead of the advance and the
  breakthrough, HERALD D49, D56): the pursuer (heavy cavalry first, then cohesion) follows the
  unit pursued until adjacent to it or in an enemy ZoC and charges every enemy in its front in
  terrain it may charge, at -1 more each re-charge; unlimited; a voluntary stop when an enemy
  other than the one pursued stands in its front, or after an eliminated defender ("may").
The end-of-charge disorder of every cavalry unit that charged comes after all pursuits [9.2],
[9.5] L670 (assault._finish).

Functions for other modules:
  charge_move(sc, st, side, unit, steps, target_hex, stream) -> [Event]   (movement/move.py)
  charge_problem(sc, st, unit, target_hex) -> str                          why it may not charge
"""
from __future__ import annotations

from engine.core import facing as core_facing
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.jdg import checks, geometry, rules, tables
from engine.jdg.combat import assault as A
from engine.jdg.state import JdgState, Unit

MAX_HEXES = tables.RULE_NUMBERS["charge_max_hexes"][0]          # [9.1] L599, L605
MAX_HEX_COST = tables.RULE_NUMBERS["charge_max_hex_cost"][0]    # [9.1] L607


# == the charge move [9.1] =========================================================================

def line_of_sight(sc, st: JdgState, a: str, b: str) -> tuple[bool, str]:
    """[9.1] L595, [7.4] (HERALD D36): the fire module's line of sight."""
    if geometry.grid(sc).adjacent(a, b):
        return True, "adjacent"
    from engine.jdg.fire.sight import line_of_sight as los
    return los(sc, st, a, b)


def charge_problem(sc, st: JdgState, unit: Unit, target_hex: str) -> str:
    """What forbids `unit` to declare a charge on `target_hex` before it moves ([9.1], [10.1],
    [12]), or "" (the path is checked as it moves)."""
    name = A.name_of(sc, unit)
    if unit.arm != "cavalry":
        return f"{name} is not cavalry: only cavalry charges (infantry assaults, [8])"
    if A.is_night(sc, st):
        return "no cavalry charges at night [12]"
    if unit.condition != "good":
        return f"{name} is {unit.condition}: only cavalry in good order charges [9.1], [10.1]"
    if unit.charge:
        return f"{name} has already declared a charge"
    if target_hex not in geometry.grid(sc):
        return f"{target_hex} is not a hex of the map"
    if not A.enemies_in(st, [target_hex], unit.side):
        return f"no enemy unit in {target_hex}"
    terrain = A._terrain_key(sc, target_hex)
    if tables.TERRAIN[terrain].no_charge_into:
        return f"cavalry may not charge into {terrain} ({target_hex}) [9.1]"
    ok, why = line_of_sight(sc, st, unit.hex, target_hex)
    if not ok:
        return (f"{target_hex} is not in {name}'s line of sight from {unit.hex} at the start of its move "
                f"({why}) [9.1]")
    return ""


def charge_move(sc, st: JdgState, side: str, unit, steps, target_hex: str, stream: DiceStream) -> list[Event]:
    """[9.1]: declare a charge ("Charge" marker) and make its move: good-order cavalry, the target
    in line of sight at the start, 0-2 hexes each costing at most 2 MP, not into marsh, village,
    town, fortification or castle, never at night [12]; Without Orders, an engagement check
    before moving: on a failure the unit stays put and cannot fight (L599, HERALD D52). The
    target must end adjacent, in one of its 2 frontal hexes [6.1] (the facing is free as it
    moves, L351: Herald turns it toward the target when it is not already)."""
    if isinstance(unit, str):
        unit = rules.unit_of(st, unit, side)
    target_hex = target_hex.lower()
    steps = [str(s).lower() for s in (steps or [])]
    act = st.activation
    name = A.name_of(sc, unit)
    if unit.side != side:
        raise Illegal(f"{unit.id} is not yours", "JdG [0.3]")
    if not A.may_act(st, unit):
        raise Illegal(f"{name} is not of the active formation (or its commander's initiative failed)",
                      "JdG [1] D, [2.4]")
    if act is not None and unit.id in act.moved:
        raise Illegal(f"{name} has already moved this activation: a charge is declared as the unit moves",
                      "JdG [9.1], [4.3]")
    why = charge_problem(sc, st, unit, target_hex)
    if why:
        raise Illegal(why, "JdG [12]" if "night" in why else "JdG [9.1]")
    c = A.combat_state(st)
    if c["begun"]:
        raise Illegal("the combats are being resolved: charges are declared during the movement step",
                      "JdG [9.1], [1] D")
    hex_count = sum(1 for i, s in enumerate(steps) if s != "face" and (i == 0 or steps[i - 1] != "face"))
    if hex_count > MAX_HEXES:
        raise Illegal(f"a unit that moves more than {MAX_HEXES} hexes cannot charge ({hex_count} given)",
                      "JdG [9.1]")
    events: list[Event] = []
    unit.acted = True
    if not A.unit_with_orders(st, unit):
        passed, ev = checks.check(stream, side, A.engagement(sc, unit), f"engagement check of {name} (charge)",
                                  "JdG [9.1], [8.2]", kind="engagement_check")
        ev.inputs = {"unit": unit.id, "target": target_hex}
        events.append(ev)
        if not passed:
            if act is not None and unit.id not in act.moved:
                act.moved.append(unit.id)          # it may not move either ([2.4] L165)
            events.append(Event("charge_failed", side, "JdG [9.1]",
                                f"{name} fails its engagement check: it stays in {unit.hex} and cannot fight",
                                outcome={"unit": unit.id}))
            return events
    start = unit.hex
    if steps:
        from engine.jdg.movement.move import walk
        events += walk(sc, st, unit, steps, stream, max_hexes=MAX_HEXES, max_hex_cost=MAX_HEX_COST,
                       section="JdG [9.1]")
    if act is not None and unit.id not in act.moved:
        act.moved.append(unit.id)
    if not unit.alive:
        return events
    g = geometry.grid(sc)
    if not g.adjacent(unit.hex, target_hex):
        raise Illegal(f"{name} ends its move in {unit.hex}, not adjacent to {target_hex}: the charge must "
                      f"reach it after 1 or 2 hexes", "JdG [9.1]")
    if not tables.can_charge_into(A._terrain_key(sc, target_hex), A.hexside_between(sc, unit.hex, target_hex)):
        raise Illegal(f"{target_hex} costs cavalry more than {MAX_HEX_COST} MP from {unit.hex} (hex + hexside): "
                      "no charge into it", "JdG [9.1]")
    if target_hex not in geometry.frontal_hexes(sc, unit):
        ways = A.facings_toward(sc, unit.hex, target_hex)
        if not ways:
            raise Illegal(f"{target_hex} cannot be brought into {name}'s front", "JdG [6.1]")
        unit.facing = ways[0]
    unit.charge = True
    d, joined = A.add_declaration(sc, st, side, [unit], target_hex, "charge")
    foes = A.enemies_in(st, [target_hex], side)
    moved = f" (moved from {start})" if start != unit.hex else ""
    events.append(Event("charge_declared", side, "JdG [9.1]",
                        f"{name} charges from {unit.hex}{moved} at {target_hex} "
                        f"({', '.join(A.name_of(sc, u) for u in foes)})" + (" (joining the combat there)" if joined else ""),
                        inputs={"unit": unit.id, "target": target_hex, "from": start},
                        outcome={"declaration": d["id"], "joined": joined, "hex": unit.hex}))
    return events


def do_charge(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`charge <unit> <hex>`: a charge declared without moving (0 hexes, HERALD D52) [9.1]."""
    rules.need_active(st, side)
    if len(cmd.args) != 2:
        raise CannotParse("usage: charge <unit> <hex> (or `move <unit> <hexes> charge <hex>`)")
    rules.enter_step(st, "movement", "JdG [9.1], [1] D", sc=sc)
    unit = rules.unit_of(st, cmd.args[0], side)
    return charge_move(sc, st, side, unit, [], cmd.args[1], stream)


# == the square [9.3] ==============================================================================

def square_candidates(sc, st: JdgState, cur: dict, hex_id: str) -> list[Unit]:
    """[9.3] L623: infantry in open terrain, charged, neither disordered nor routed, may try to
    form square (even in an enemy ZoC); artillery with it follows. Returns the infantry."""
    foes = A.enemies_in(st, [hex_id], cur["side"])
    men = [u for u in foes if u.arm == "infantry"]
    if not men or any(u.square for u in foes) or any(u.arm == "cavalry" for u in foes):
        return []
    if any(u.condition != "good" for u in men):
        return []
    if not tables.TERRAIN[A._terrain_key(sc, hex_id)].open_terrain:
        return []
    return men


def stage_square(sc, st: JdgState, cur: dict, stream: DiceStream) -> list[Event]:
    """[9.3] L621-627: each unit of the stack checks against its cohesion (HERALD D54, one roll a
    unit; the night's +2, [12]): all pass, the stack forms square; any failure, no square and
    the units that failed are disordered."""
    if not A._is_charge(st, cur):
        return []
    defside = st.other(cur["side"])
    events: list[Event] = []
    for h in list(cur["targets"]):
        men = square_candidates(sc, st, cur, h)
        key = f"square:{h}"
        if not men or key in cur["answers"]:
            continue
        pol = A._policy(st, defside, "square")
        if pol == "ask":
            A._ask(st, cur, "square", defside, ["square", "no"],
                   f"{', '.join(A.name_of(sc, u) for u in men)} in {h}, charged, may try to form square",
                   "JdG [9.3]", key, labels={"square": "Form square", "no": "Stay in line"}, default="square")
            return events
        cur["answers"][key] = "square" if pol == "auto" else "no"
    for h in list(cur["targets"]):
        key = f"square:{h}"
        if cur["answers"].get(key) != "square":
            continue
        cur["answers"][key] = "tried"
        men = square_candidates(sc, st, cur, h)
        if not men:
            continue
        cohesions = {u.id: A.cohesion(sc, u) for u in men}
        night = A.is_night(sc, st)
        extra = tables.NIGHT_COHESION_DRM.value if night else 0
        # each roll is read pass or fail (tables.square_attempt): a what-if tries one of each (issue 13)
        rolls = {u.id: checks.d10(stream, f"square attempt of {A.name_of(sc, u)}", roller=defside,
                                  reads=(cohesions[u.id] - extra + 1,)) for u in men}
        formed, failed = tables.square_attempt(rolls, cohesions, night=night)
        from engine.core.events import DieRoll
        detail = "; ".join(f"{A.name_of(sc, u)} d10 {rolls[u.id]}{' +2 night' if night else ''} vs {cohesions[u.id]}"
                           for u in men)
        events.append(Event("square_attempt", defside, "JdG [9.3]",
                            f"square attempt in {h}: {detail}: "
                            + ("square formed" if formed else f"no square; {', '.join(failed)} disordered"),
                            inputs={"hex": h, "cohesions": cohesions},
                            modifiers=[tables.NIGHT_COHESION_DRM.modifier()] if night else [],
                            dice=[DieRoll(f"square attempt of {uid}", "d10", r,
                                          effect="failed" if uid in failed else "passed") for uid, r in rolls.items()],
                            table="square attempt: d10 <= cohesion of every unit", outcome={"formed": formed,
                                                                                           "disordered": failed}))
        if formed:
            for u in A.enemies_in(st, [h], cur["side"]):
                u.square = True
        else:
            for uid in failed:
                u = st.units[uid]
                events += A.results.disorder(sc, st, u, stream, "JdG [9.3]", "failed its square attempt")
                if st.pending:
                    return events
    return events


# == the recall [9.3] ===============================================================================

def recall_hexes(sc, st: JdgState, stack: list[Unit], square_hex: str) -> list[str]:
    """[9.3] L639: 1 hex back from the target square, never into an enemy ZoC (HERALD D54)."""
    g = geometry.grid(sc)
    here = stack[0].hex
    out = []
    for n in sorted(g.neighbors(here)):
        if g.distance(n, square_hex) <= g.distance(here, square_hex):
            continue
        if not sc.map.passable(n) or st.units_at(n):
            continue
        if tables.move_cost("cavalry", A._terrain_key(sc, n), A.hexside_between(sc, here, n)) is None:
            continue
        if geometry.enemy_zoc(sc, st, n, stack[0].side):
            continue
        out.append(n)
    return out


def _square_hex(st: JdgState, cur: dict) -> str | None:
    for h in cur["targets"]:
        if any(u.square for u in A.enemies_in(st, [h], cur["side"])):
            return h
    return None


def stage_recall(sc, st: JdgState, cur: dict, stream: DiceStream) -> list[Event]:
    """[9.3] L635-643: the target in square, the charging player may try to recall each cavalry
    unit or stack: an engagement check (top unit for a stack); success, it falls back 1 hex away
    from the square, facing as it likes, never into an enemy ZoC, and does not charge; failure, it
    must charge. With no such hex the recall cannot be made (HERALD D54)."""
    sq = _square_hex(st, cur)
    if sq is None or not A._is_charge(st, cur):
        return []
    events: list[Event] = []
    cav = [u for u in A._attackers(st, cur) if u.arm == "cavalry"]
    for h in sorted({u.hex for u in cav}):
        stack = [u for u in cav if u.hex == h]
        key = f"recall:{h}"
        if key in cur["answers"] or not recall_hexes(sc, st, stack, sq):
            continue
        A._ask(st, cur, "recall", cur["side"], ["recall", "charge"],
               f"the target in {sq} is in square: try to recall {', '.join(A.name_of(sc, u) for u in stack)} "
               f"(an engagement check), or charge it", "JdG [9.3]", key,
               labels={"recall": "Try to recall", "charge": "Charge the square"}, default="recall")
        return events
    for h in sorted({u.hex for u in cav}):
        key = f"recall:{h}"
        if cur["answers"].get(key) != "recall":
            continue
        cur["answers"][key] = "tried"
        stack = [u for u in cav if u.hex == h]
        top = A.top_combat_unit(st.units_at(h)) if A.top_combat_unit(st.units_at(h)) in stack else stack[0]
        passed, ev = checks.check(stream, cur["side"], A.engagement(sc, top),
                                  f"recall: engagement check of {A.name_of(sc, top)}", "JdG [9.3]",
                                  roller=cur["side"], kind="engagement_check")
        events.append(ev)
        if not passed:
            events.append(Event("recall_failed", cur["side"], "JdG [9.3]",
                                f"{', '.join(A.name_of(sc, u) for u in stack)} cannot be recalled: they must charge"))
            continue
        to = recall_hexes(sc, st, stack, sq)[0]
        for u in stack:
            u.hex = to
            u.charge = False
        cur["attackers"] = [a for a in cur["attackers"] if st.units[a] not in stack]
        events.append(Event("recall", cur["side"], "JdG [9.3]",
                            f"{', '.join(A.name_of(sc, u) for u in stack)} are recalled and fall back from {h} to {to}",
                            outcome={"units": [u.id for u in stack], "to": to}))
    if not cur["attackers"]:
        A._cancel(cur, "every charging unit was recalled")
    return events


# == the counter-charge [9.4] =======================================================================

def counter_charge_candidates(sc, st: JdgState, cur: dict, hex_id: str) -> list[Unit]:
    """[9.4] L647: cavalry neither disordered nor routed, charged through its frontal hexes."""
    foes = A.enemies_in(st, [hex_id], cur["side"])
    if not foes or any(u.arm != "cavalry" or u.condition != "good" for u in foes):
        return []
    front = set(geometry.frontal_hexes(sc, foes[0]))
    cav = [u for u in A._attackers(st, cur) if u.arm == "cavalry" and geometry.grid(sc).adjacent(u.hex, hex_id)]
    if not cav or any(u.hex not in front for u in cav):
        return []
    return foes


def stage_counter_charge(sc, st: JdgState, cur: dict, stream: DiceStream) -> list[Event]:
    """[9.4] L645-654: an engagement check of the top unit, +2 if non-heavy cavalry counter-charges
    heavy cavalry; success: the charge is resolved without its positive charge modifiers."""
    if not A._is_charge(st, cur):
        return []
    defside = st.other(cur["side"])
    events: list[Event] = []
    for h in list(cur["targets"]):
        foes = counter_charge_candidates(sc, st, cur, h)
        key = f"counter_charge:{h}"
        if not foes or key in cur["answers"]:
            continue
        if A._policy(st, defside, "counter_charge") == "never":
            cur["answers"][key] = "no"
            continue
        A._ask(st, cur, "counter_charge", defside, ["counter_charge", "no"],
               f"{', '.join(A.name_of(sc, u) for u in foes)} in {h}, charged, may counter-charge "
               "(an engagement check)", "JdG [9.4]", key,
               labels={"counter_charge": "Counter-charge", "no": "No"}, default="no")
        return events
    for h in list(cur["targets"]):
        key = f"counter_charge:{h}"
        if cur["answers"].get(key) != "counter_charge":
            continue
        cur["answers"][key] = "tried"
        foes = counter_charge_candidates(sc, st, cur, h)
        if not foes:
            continue
        top = foes[0]
        heavy_attack = any(A.heavy(sc, u) for u in A._attackers(st, cur) if u.arm == "cavalry")
        mods = [tables.COUNTER_CHARGE_LIGHT_VS_HEAVY.modifier()] if heavy_attack and not A.heavy(sc, top) else []
        passed, ev = checks.check(stream, defside, A.engagement(sc, top),
                                  f"counter-charge: engagement check of {A.name_of(sc, top)}", "JdG [9.4]", mods,
                                  roller=defside, kind="engagement_check")
        events.append(ev)
        if passed:
            cur["counter_charged"] = True
            cur.setdefault("counter_chargers", []).extend(u.id for u in foes)
            events.append(Event("counter_charge", defside, "JdG [9.4]",
                                f"{', '.join(A.name_of(sc, u) for u in foes)} counter-charge: the charge loses its "
                                "positive charge modifiers", outcome={"hex": h}))
    return events


# == the pursuit [9.5] ================================================================================

def pursuer_stack(sc, st: JdgState, cur: dict) -> list[Unit]:
    """[9.5] L664-666: the unit with the highest cohesion, or its stack; heavy cavalry first; the
    attacker's choice on a tie (HERALD D90: unit-id order); never two stacks."""
    cav = [u for u in A._attackers(st, cur) if u.arm == "cavalry" and u.alive and u.condition != "routed"]
    if not cav:
        return []
    best = sorted(cav, key=lambda u: (not A.heavy(sc, u), -A.cohesion(sc, u), u.id))[0]
    return [u for u in cav if u.hex == best.hex]


def _hex_ok(sc, st: JdgState, frm: str, to: str, side: str) -> bool:
    """[9.5] L668: a hex impassable to cavalry or costing more than 2 MP stops the pursuit."""
    if not sc.map.passable(to) or st.units_at(to):
        return False
    cost = tables.move_cost("cavalry", A._terrain_key(sc, to), A.hexside_between(sc, frm, to))
    return cost is not None and cost <= MAX_HEX_COST


def _best_facing(sc, st: JdgState, hex_id: str, facing: int, turns: int, side: str,
                 aim: list[str]) -> int:
    """The facing within `turns` vertices that puts the most of `aim` (then of any enemy) in
    front; the present one on a tie."""
    g = geometry.grid(sc)
    best, score = facing, None
    for k in range(0, min(turns, 3) + 1):
        for v in sorted({(facing + k) % 6, (facing - k) % 6}):
            front = core_facing.arcs(g, [hex_id], v)["front"]
            s = (sum(1 for h in front if h in aim),
                 sum(1 for h in front if A.enemies_in(st, [h], side)), -k)
            if score is None or s > score:
                best, score = v, s
    return best


def charge_targets(sc, st: JdgState, stack: list[Unit]) -> list[str]:
    """[9.5] L668: the enemy hexes in the pursuer's front in terrain it may charge."""
    u = stack[0]
    out = []
    for h in sorted(geometry.frontal_hexes(sc, u)):
        if A.enemies_in(st, [h], u.side) and tables.can_charge_into(A._terrain_key(sc, h),
                                                                   A.hexside_between(sc, u.hex, h)):
            out.append(h)
    return out


def stage_pursuit(sc, st: JdgState, cur: dict, stream: DiceStream) -> list[Event]:
    """[9.5] L656-670 (HERALD D56): mandatory when the charge empties the defender's hex. Against
    a unit that fell back or routed, the pursuer follows it until adjacent to it or in an enemy
    ZoC, turning 60° a hex, and must charge every enemy in its front in chargeable terrain (a
    voluntary stop only when one of them is not the unit pursued). Against an eliminated
    defender, it enters the hex, may turn 60° and may charge on. Each re-charge -1 more."""
    c = A.combat_state(st)
    side = cur["side"]
    events: list[Event] = []
    if not cur.get("pursuit_moved"):
        cur["pursuit_moved"] = True
        stack = pursuer_stack(sc, st, cur)
        g = geometry.grid(sc)
        if not stack:
            return events
        vac = [h for h in cur["vacated"] if g.adjacent(stack[0].hex, h) and not st.units_at(h)]
        if not vac:
            return events
        path = [vac[0]]
        start = stack[0].hex
        for u in stack:
            u.hex = vac[0]
        pursued = [st.units[i] for i in cur.get("pursued", []) if st.units[i].alive]
        aims = [p.hex for p in pursued]
        if pursued:
            here = vac[0]
            for _ in range(12):
                if any(g.adjacent(here, a) for a in aims) or geometry.enemy_zoc(sc, st, here, side):
                    break
                options = [n for n in g.neighbors(here) if _hex_ok(sc, st, here, n, side)]
                options = [n for n in options if min(g.distance(n, a) for a in aims) < min(g.distance(here, a)
                                                                                          for a in aims)]
                if not options:
                    break
                nxt = sorted(options, key=lambda n: (min(g.distance(n, a) for a in aims), n))[0]
                for u in stack:
                    u.hex = nxt
                here = nxt
                path.append(nxt)
            turns = len(path)
        else:
            turns = 1
        facing = _best_facing(sc, st, stack[0].hex, stack[0].facing, turns, side, aims)
        for u in stack:
            u.facing = facing
        cur["pursuers"] = [u.id for u in stack]
        cur["pursuit_aims"] = [p.id for p in pursued]
        events.append(Event("pursuit", side, "JdG [9.5]",
                            f"{', '.join(A.name_of(sc, u) for u in stack)} pursue from {start}: "
                            + " -> ".join(path) + f", facing {core_facing.vertex_name(g, facing)}",
                            inputs={"from": start, "pursued": [p.id for p in pursued]},
                            outcome={"path": path, "hex": stack[0].hex, "facing": facing}))
    stack = [st.units[i] for i in cur.get("pursuers", []) if st.units[i].alive and st.units[i].condition == "good"]
    if not stack:
        return events
    targets = charge_targets(sc, st, stack)
    if not targets:
        return events
    aims = [st.units[i] for i in cur.get("pursuit_aims", []) if st.units[i].alive]
    aim_hexes = {a.hex for a in aims}
    others = [h for h in targets if h not in aim_hexes]
    may_stop = (not aims) or bool(others)
    if may_stop:
        ans = cur["answers"].get("pursuit")
        if ans is None:
            why = ("the defender is eliminated: the pursuer may charge on" if not aims else
                   "an enemy other than the unit pursued stands in its front: the pursuit may stop")
            A._ask(st, cur, "pursuit", side, ["charge", "stop"],
                   f"{', '.join(A.name_of(sc, u) for u in stack)} in {stack[0].hex}: {why} "
                   f"(charge {', '.join(targets)} at -{cur['recharges'] + 1}, or stop)", "JdG [9.5]", "pursuit",
                   labels={"charge": "Charge again", "stop": "Stop the pursuit"}, default="stop")
            return events
        if ans == "stop":
            events.append(Event("pursuit_stopped", side, "JdG [9.5]",
                                f"{', '.join(A.name_of(sc, u) for u in stack)} stop their pursuit in {stack[0].hex}"))
            return events
    new = A._new_decl(c, side, [u.id for u in stack], targets, "pursuit", recharges=cur["recharges"] + 1,
                      group=cur.get("group"))
    if new["group"] is None:
        A._join_group(c, new, stack)
    c["queue"].insert(0, new)
    events.append(Event("recharge", side, "JdG [9.5]",
                        f"{', '.join(A.name_of(sc, u) for u in stack)} charge again in pursuit: "
                        f"{', '.join(targets)} (-{new['recharges']})",
                        outcome={"combat": new["id"], "targets": targets, "recharges": new["recharges"]}))
    return events


rules.register("charge", do_charge, "charge <unit> <hex>: cavalry charges from where it stands (JdG [9.1])")
