"""Free setups: the deployment phase before turn 1 (the scenarios' "Piazzamento" by areas:
First Newbury; any battle whose file gives a unit or leader an `area`, or a cavalry pool).

The scenario file (schema in `scenario/schema.py`) gives each redeployable unit an `area` whose hexes
its suggested placement lies in, the book's extra constraints (`deploy_rule`), and the cavalry
pools (`brigade`, `wing_choices`). The game then starts in the "deployment" phase, before turn
1's Initiative Phase (§3.1), and both players, in either order, give:

    deploy <unit> <hex>[,<hex2>] [facing <vertex>]   a unit (two hexes for a double unit)
    deploy <leader> <hex>                             a leader
    assign <brigade> <wing>                           a cavalry-pool brigade to one of its wings
    deploy done                                       this side's deployment is complete

When both sides are done, turn 1 begins with its Initiative Phase. A game that accepts Herald's
suggested setup simply plays `deploy done` for each side.

Every placement is checked and refused with the rule: the map (on the map, no river, §5.7; a
double unit on two adjacent hexes facing across its line, §6.1), the unit's deployment area
(the book's setup words), its deploy rule, and setup stacking (§8, `setup_stack_problem`).
`deploy done` checks the whole side again: areas (an `assign` may have moved a unit to a wing
with another area), every deploy rule (`in_command`: at the end of deployment), every wing with
a unit, and each leader's place ("Piazzamento dei comandanti": the AC with a friendly unit, a WC
with a unit of his wing, unless the file gives him an area).

HERALD readings (DECISIONS.md D94-D98):
- a leader placed `with_unit` follows that unit when it is redeployed, and may be redeployed
  himself onto another eligible unit; a leader with a fixed `hex` and no area stays put;
- a pool unit assigned to a wing deploys in the area tagged with that wing (`wing` key of an
  area), or else in its own `area`;
- "stacked_or_adjacent_infantry" (Second Newbury, "una Brigata di fanteria") asks for a heavy
  infantry unit; "in_command_of:<unit>" is one command link (§5.4.2: 2 hexes infantry, 3 cavalry,
  clear of enemy units and impassable terrain) from the unit to the named one.
"""
from __future__ import annotations

from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.facing import double_facings, vertex_index, vertex_name

from engine.tacw.geometry import _path_clear, command_reach, in_command
from engine.tacw.scenario.schema import DeploymentArea, Scenario
from engine.tacw.scenario.parse import setup_stack_problem
from engine.tacw.state import SIDES, TacwState, Unit

PHASE = "deployment"
LEADER_PLACEMENT = "TACW Piazzamento dei comandanti"


def section(sc: Scenario) -> str:
    """The rule a placement cites: the battle's setup in the book."""
    return f"TACW {sc.title} setup"


# -- starting the phase ---------------------------------------------------------------------

def begin(sc: Scenario, st: TacwState) -> None:
    """Put a new game of a free-setup scenario in the deployment phase (setup.new_state)."""
    st.phase = PHASE
    st.phasing = ""
    st.deployment = {"done": [], "with": {ld.id: ld.with_unit for ld in sc.leaders
                                          if ld.with_unit and not ld.area}}


def deploying(st: TacwState) -> list[str]:
    """The sides still deploying (in SIDES order); [] outside the deployment phase."""
    if st.phase != PHASE:
        return []
    done = st.deployment.get("done", [])
    return [s for s in SIDES if s not in done]


# -- areas, pools, leaders ------------------------------------------------------------------

def unit_area(sc: Scenario, st: TacwState, uid: str) -> DeploymentArea | None:
    """The area unit `uid` deploys in now: for a pool unit, the area tagged with its current
    wing if the file has one (HERALD D95), else the unit's own `area`; None: a fixed unit."""
    setup = sc.unit(uid)
    if setup.wing_choices:
        wing = st.units[uid].wing
        for a in sc.deployment_areas.values():
            if a.wing == wing and a.side == setup.side:
                return a
    return sc.deployment_areas.get(setup.area) if setup.area else None


def legal_hexes(sc: Scenario, st: TacwState, uid: str) -> set[str] | None:
    """The hexes unit `uid` may stand in (its area, narrowed by its own `near`); None when its
    setup is fixed (no area)."""
    area = unit_area(sc, st, uid)
    near = sc.unit(uid).near
    if area is None and near is None:
        return None
    legal = set(area.hexes) if area is not None else {
        h for h in sc.grid if not sc.hex_impassable(h)}          # a `near` alone (D95)
    if near:
        legal = {h for h in legal if sc.grid.distance(h, near[0]) <= near[1]}
    return legal


def brigades(sc: Scenario, side: str | None = None) -> dict[str, list[str]]:
    """Cavalry pools: brigade id -> its unit ids (a pool unit without a brigade is its own)."""
    out: dict[str, list[str]] = {}
    for u in sc.units:
        if u.wing_choices and (side is None or u.side == side):
            out.setdefault(u.brigade or u.id, []).append(u.id)
    return out


def _brigade_of(sc: Scenario, uid: str) -> str:
    u = sc.unit(uid)
    return u.brigade or u.id


def _leader_target_units(st: TacwState, ld, hex_id: str) -> list[Unit]:
    """The units in `hex_id` a leader may be placed with (Piazzamento dei comandanti): any
    friendly unit for the Army Commander, a unit of his wing for a Wing Commander."""
    return [u for u in st.units_at(hex_id) if u.side == ld.side
            and (ld.role == "ac" or u.wing == ld.wing)]


# -- the checks ----------------------------------------------------------------------------

def _area_words(area: DeploymentArea | None, near: tuple[str, int] | None = None) -> str:
    if area is None:
        return (f"(within {near[1]} hex{'es' if near[1] != 1 else ''} of {near[0]})" if near
                else "(none)")
    return f"'{area.id}'" + (f" ({area.text})" if area.text else "")


def _map_problem(sc: Scenario, u: Unit, hexes: list[str], facing: int) -> tuple[str, str] | None:
    grid = sc.grid
    for h in hexes:
        if h not in grid:
            return f"{h} is not a hex of the {sc.cols}x{sc.rows} map", "TACW §2.1"
        if sc.hex_impassable(h):
            return f"{h} is {sc.terrain_at(h)}, where no unit may stand", "TACW §5.7"
    want = 2 if u.is_double else 1
    if len(hexes) != want:
        return (f"{u.called} stands in {want} hex{'es' if want == 2 else ''}"
                + (" (a double unit: two adjacent hexes, e.g. 2905,2906)" if want == 2 else ""),
                "TACW §2.1.2")
    if want == 2:
        if hexes[0] == hexes[1] or not grid.adjacent(hexes[0], hexes[1]):
            return f"{hexes[0]} and {hexes[1]} are not two adjacent hexes", "TACW §2.1.2"
        allowed = double_facings(grid, hexes[0], hexes[1])
        if facing not in allowed:
            names = " or ".join(vertex_name(grid, v) for v in allowed)
            return (f"a double unit on {hexes[0]} & {hexes[1]} faces across its line ({names}), "
                    f"not {vertex_name(grid, facing)}", "TACW §6.1")
    return None


def _stack_problem(st: TacwState, u: Unit) -> str | None:
    """§8 in each hex the unit now stands in (st already holds the unit there)."""
    for h in u.hexes:
        problem = setup_stack_problem(st.units_at(h))
        if problem:
            return f"hex {h} {problem}"
        enemy = [ld.name for ld in st.leaders_at(h) if ld.side != u.side]
        if enemy:
            return f"hex {h} holds the enemy leader {enemy[0]}"
    return None


def rule_problem(sc: Scenario, st: TacwState, u: Unit, at_end: bool) -> str | None:
    """The unit's deploy rule, as the book words it; `in_command` is judged only at the end of
    deployment (`at_end`)."""
    rule = sc.unit(u.id).deploy_rule
    if not rule:
        return None
    grid = sc.grid
    friends = [o for o in st.units.values() if o.alive and o.side == u.side and o.id != u.id]

    def near_to(o: Unit) -> bool:
        return any(h == k or grid.adjacent(h, k) for h in u.hexes for k in o.hexes)

    if rule == "stacked_or_adjacent_any":
        if not any(near_to(o) for o in friends):
            return f"{u.called} must be stacked with or adjacent to another friendly unit"
    elif rule == "stacked_or_adjacent_infantry":
        if not any(near_to(o) for o in friends if o.kind == "heavy"):
            return (f"{u.called} must be stacked with or adjacent to an infantry brigade "
                    "(heavy infantry)")
    elif rule.startswith("in_command_of:"):
        other = st.units.get(rule.split(":", 1)[1])
        reach = command_reach(u)
        if other is None or not other.alive or not any(
                grid.distance(h, k) <= reach and _path_clear(sc, st, h, k, u.side)
                for h in u.hexes for k in other.hexes):
            name = other.name if other is not None else rule.split(":", 1)[1]
            return (f"{u.called} must be within command range of {name} ({reach} hexes, "
                    "§5.4.2)")
    elif rule == "in_command" and at_end and not in_command(sc, st, u):
        return (f"{u.called} must be within command range of its Wing Commander at the end of "
                "deployment (§5.4)")
    return None


def _leader_problem(sc: Scenario, st: TacwState, lid: str) -> str | None:
    ld = st.leaders[lid]
    setup = sc.leader(lid)
    if ld.status != "active" or ld.hex is None:
        return None
    if setup.area:
        area = sc.deployment_areas[setup.area]
        if ld.hex not in area.hexes:
            return f"{ld.name} at {ld.hex} is outside his deployment area {_area_words(area)}"
        return None
    with_unit = st.deployment.get("with", {}).get(lid)
    if with_unit is None:
        return None
    u = st.units.get(with_unit)
    if u is None or ld.hex not in u.hexes or not _leader_target_units(st, ld, ld.hex):
        whom = "a friendly unit" if ld.role == "ac" else f"a unit of his wing ({ld.wing})"
        return f"{ld.name} must stand with {whom}"
    return None


def side_problems(sc: Scenario, st: TacwState, side: str) -> list[str]:
    """Everything `deploy done` checks for one side (empty: the side may be done)."""
    out: list[str] = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.side != side or not u.alive:
            continue
        legal = legal_hexes(sc, st, u.id)
        if legal is not None and not set(u.hexes) <= legal:
            out.append(f"{u.called} at {'&'.join(u.hexes)} is outside its deployment area "
                       f"{_area_words(unit_area(sc, st, u.id), sc.unit(u.id).near)}")
        problem = rule_problem(sc, st, u, at_end=True)
        if problem:
            out.append(problem)
    for w in st.wings.values():
        if w.side == side and not st.wing_units(w.id):
            out.append(f"{w.name} has no unit: its commander is placed with a unit of his wing")
    for lid in sorted(st.leaders):
        if st.leaders[lid].side == side:
            problem = _leader_problem(sc, st, lid)
            if problem:
                out.append(problem)
    return out


def summary(sc: Scenario, st: TacwState, side: str, limit: int = 6) -> list[str]:
    """What a side still deploying reads in the status: its deployment areas (id, where, how
    many of its units deploy there) and what is left before `deploy done` is accepted."""
    counts: dict[str, int] = {}
    for u in st.units.values():
        if u.side == side and u.alive:
            area = unit_area(sc, st, u.id)
            if area is not None:
                counts[area.id] = counts.get(area.id, 0) + 1
    # the book's words for an area are Italian: the id, its units and its hexes say it in English
    areas = [f"`{a.id}` ({counts[a.id]} unit{'s' if counts[a.id] != 1 else ''}, {len(a.hexes)} hexes)"
             for a in sc.deployment_areas.values() if a.side == side and counts.get(a.id)]
    lines = [f"{side.title()} deployment areas: " + "; ".join(areas)] if areas else []
    left = side_problems(sc, st, side)
    more = f"; and {len(left) - limit} more" if len(left) > limit else ""
    lines.append(f"{side.title()} left to deploy: " + ("; ".join(left[:limit]) + more if left else
                                                       "nothing, every unit stands in its area (`deploy <unit> "
                                                       "<hex>` moves one; `deploy done` ends your deployment)"))
    return lines


def suggested_setup_problem(sc: Scenario) -> str | None:
    """The file's suggested setup against every deployment check (the scenario validator):
    `deploy done` must accept it as it stands."""
    from engine.tacw.setup import new_state
    st = new_state(sc, 0, orders={w.id: w.historical_order or "receive_charge" for w in sc.wings})
    for side in SIDES:
        problems = side_problems(sc, st, side)
        if problems:
            return problems[0]
    return None


# -- the commands ----------------------------------------------------------------------------

USAGE = {
    "deploy": ("deploy <unit> <hex>[,<hex2>] [facing <vertex>] | deploy <leader> <hex> | "
               "deploy done: place a unit or leader in its deployment area, or end your "
               "deployment (scenario setup; §8 stacking)"),
    "assign": "assign <brigade> <wing>: send a cavalry-pool brigade to one of its wings (scenario setup)",
}


def _need_deploying(sc: Scenario, st: TacwState, side: str) -> None:
    if st.phase != PHASE:
        raise Illegal("there is no deployment phase now: the armies are deployed", section(sc))
    if side not in deploying(st):
        raise Illegal(f"{side.title()} has declared its deployment done", section(sc))


def _parse_hexes(word: str) -> list[str]:
    return [h for h in word.replace(";", ",").split(",") if h]


def deploy_unit(sc: Scenario, st: TacwState, side: str, u: Unit, hexes: list[str],
                facing_word: str | None) -> list[Event]:
    sec = section(sc)
    if u.side != side:
        raise Illegal(f"{u.called} is not yours", sec)
    legal = legal_hexes(sc, st, u.id)
    if legal is None:
        raise Illegal(f"{u.called} has a fixed setup hex ({'&'.join(u.hexes)}): it has no "
                      "deployment area", sec)
    grid = sc.grid
    if facing_word is not None:
        try:
            facing = vertex_index(grid, facing_word)
        except ValueError:
            raise Illegal(f"'{facing_word}' is not a vertex (E SE SW W NW NE)", "TACW §6.1") from None
    else:
        facing = u.facing
        if len(hexes) == 2 and all(h in grid for h in hexes) and grid.adjacent(*hexes) \
                and facing not in double_facings(grid, *hexes):
            # keep the facing as near as it can be to the old one (across the new line)
            facing = min(double_facings(grid, *hexes), key=lambda v: (min((v - u.facing) % 6,
                                                                          (u.facing - v) % 6), v))
    bad = _map_problem(sc, u, hexes, facing)
    if bad:
        raise Illegal(*bad)
    outside = [h for h in hexes if h not in legal]
    if outside:
        raise Illegal(f"{' and '.join(outside)} {'lies' if len(outside) == 1 else 'lie'} outside "
                      f"{u.called}'s deployment area "
                      f"{_area_words(unit_area(sc, st, u.id), sc.unit(u.id).near)}", sec)
    old = list(u.hexes)
    u.hexes, u.facing = list(hexes), facing
    problem = _stack_problem(st, u)
    if problem:
        raise Illegal(problem, "TACW §8")
    problem = rule_problem(sc, st, u, at_end=False)
    if problem:
        raise Illegal(problem, sec)
    followers = [lid for lid, uid in st.deployment.get("with", {}).items() if uid == u.id]
    for lid in followers:
        st.leaders[lid].hex = u.hexes[0]
    st.last_action = {"items": [{"kind": "deploy", "piece": u.id, "from": old[0], "to": u.hexes[0]}]}
    where = "&".join(u.hexes)
    return [Event("deploy", side, sec, f"{u.called} deploys at {where} facing {vertex_name(grid, facing)}"
                  + (f" (with {', '.join(st.leaders[lid].name for lid in followers)})" if followers else ""),
                  outcome={"unit": u.id, "hexes": list(u.hexes), "facing": facing, "from": old})]


def deploy_leader(sc: Scenario, st: TacwState, side: str, lid: str, hex_id: str) -> list[Event]:
    sec = section(sc)
    ld = st.leaders[lid]
    setup = sc.leader(lid)
    if ld.side != side:
        raise Illegal(f"{ld.name} is not yours", sec)
    if hex_id not in sc.grid:
        raise Illegal(f"{hex_id} is not a hex of the {sc.cols}x{sc.rows} map", "TACW §2.1")
    if sc.hex_impassable(hex_id):
        raise Illegal(f"{hex_id} is {sc.terrain_at(hex_id)}, where no one may stand", "TACW §5.7")
    if any(u.side != side for u in st.units_at(hex_id)):
        raise Illegal(f"{hex_id} holds an enemy unit", "TACW §5.3.1")
    with_map = st.deployment.setdefault("with", {})
    if setup.area:
        area = sc.deployment_areas[setup.area]
        if hex_id not in area.hexes:
            raise Illegal(f"{hex_id} is outside {ld.name}'s deployment area {_area_words(area)}", sec)
        ld.hex = hex_id
        text = f"{ld.name} deploys at {hex_id}"
    elif lid in with_map:
        mates = _leader_target_units(st, ld, hex_id)
        if not mates:
            whom = "a friendly unit" if ld.role == "ac" else f"a unit of his wing ({ld.wing})"
            raise Illegal(f"{ld.name} is placed with {whom}; {hex_id} holds none",
                          LEADER_PLACEMENT)
        mate = sorted(mates, key=lambda u: (u.kind == "artillery", u.id))[0]
        with_map[lid] = mate.id
        ld.hex = hex_id
        text = f"{ld.name} deploys with {mate.called} at {hex_id}"
    else:
        raise Illegal(f"{ld.name}'s place is fixed ({ld.hex}): he has no deployment area", sec)
    return [Event("deploy", side, sec, text, outcome={"leader": lid, "hex": hex_id})]


def deploy_done(sc: Scenario, st: TacwState, side: str) -> list[Event]:
    problems = side_problems(sc, st, side)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise Illegal(f"the deployment is not complete: {problems[0]}{more}", section(sc))
    st.deployment.setdefault("done", []).append(side)
    events = [Event("deploy_done", side, section(sc), f"{side.title()} has deployed")]
    if not deploying(st):
        st.deployment = {}
        st.phase = "initiative"
        st.last_action = {}
        events.append(Event("deploy_done", "both", section(sc),
                            "Both armies are deployed: turn 1 begins (TACW §3.1)"))
    return events


def assign(sc: Scenario, st: TacwState, side: str, word: str, wing_id: str) -> list[Event]:
    sec = section(sc)
    pools = brigades(sc)
    if word not in pools:
        if word in st.units and sc.unit(word).wing_choices:
            brigade = _brigade_of(sc, word)
            raise Illegal(f"{st.units[word].called} belongs to brigade '{brigade}' "
                          f"({', '.join(pools[brigade])}): a brigade goes to one wing as a whole; "
                          f"assign {brigade} <wing>", sec)
        known = ", ".join(b for b, ids in pools.items() if sc.unit(ids[0]).side == side)
        raise Illegal(f"'{word}' is not a cavalry-pool brigade (yours: {known or 'none'})", sec)
    ids = pools[word]
    setup = sc.unit(ids[0])
    if setup.side != side:
        raise Illegal(f"brigade '{word}' is not yours", sec)
    if wing_id not in setup.wing_choices:
        raise Illegal(f"brigade '{word}' may go to {', '.join(setup.wing_choices)}, not '{wing_id}'", sec)
    for uid in ids:
        st.units[uid].wing = wing_id
    outside = [st.units[uid].name for uid in ids
               if not set(st.units[uid].hexes) <= (legal_hexes(sc, st, uid) or set(st.units[uid].hexes))]
    text = (f"Brigade {word} ({', '.join(st.units[uid].called for uid in ids)}) goes to "
            f"{st.wings[wing_id].name}")
    if outside:
        area = unit_area(sc, st, ids[0])
        text += (f"; redeploy {', '.join(outside)} inside {_area_words(area)} before "
                 "`deploy done`") if area else ""
    return [Event("assign", side, sec, text, outcome={"brigade": word, "wing": wing_id, "units": ids})]


def do_deploy(sc, st, side, cmd, stream):
    if cmd.args[:1] == ("done",) and len(cmd.args) == 1:
        _need_deploying(sc, st, side)
        return deploy_done(sc, st, side)
    if len(cmd.args) < 2:
        raise CannotParse("usage: " + USAGE["deploy"])
    _need_deploying(sc, st, side)
    who, hexes, rest = cmd.args[0], _parse_hexes(cmd.args[1]), list(cmd.args[2:])
    if rest and "," not in cmd.args[1] and rest[0] in sc.grid:
        hexes.append(rest.pop(0))                      # "deploy x 2905 2906 [facing w]" also reads
    facing_word = None
    if rest:
        if len(rest) != 2 or rest[0] not in ("facing", "face"):
            raise CannotParse("usage: " + USAGE["deploy"])
        facing_word = rest[1]
    if who in st.leaders:
        if len(hexes) != 1 or facing_word is not None:
            raise CannotParse("a leader deploys to one hex: deploy <leader> <hex>")
        return deploy_leader(sc, st, side, who, hexes[0])
    u = st.units.get(who)
    if u is None or not u.alive:
        from engine.core.ids import unknown
        pairs = [(x.id, x.name) for x in st.units.values() if x.side == side and x.alive] + [
            (ld.id, ld.name) for ld in st.leaders.values() if ld.side == side]
        raise Illegal(unknown(who, "one of your units or leaders", pairs, query="units"), section(sc))
    return deploy_unit(sc, st, side, u, hexes, facing_word)


def do_assign(sc, st, side, cmd, stream):
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + USAGE["assign"])
    _need_deploying(sc, st, side)
    return assign(sc, st, side, cmd.args[0], cmd.args[1])


# -- completions for the bot's options (TacwRuleset.completions) -----------------------------

def completions(sc: Scenario, st: TacwState, side: str | None, kind: str,
                context: dict) -> list[tuple[str, str]]:
    """(name shown, value) pairs for the deployment options: `deploy_unit` (your redeployable
    units and leaders, and "done"), `deploy_hex` (where the unit or leader in `context` may
    go: its area, less the hexes stacking forbids), `deploy_facing`, `brigade` (your cavalry
    pools) and `pool_wing` (the wings the brigade in `context` may join)."""
    if side is None or side not in deploying(st):
        return []
    ctx = {k: str(v).strip().lower() for k, v in context.items() if v}
    grid = sc.grid
    if kind == "deploy_unit":
        problems = side_problems(sc, st, side)
        out = [("done: my deployment is complete" if not problems else
                f"done (not yet: {problems[0]})", "done")]
        for u in sorted(st.units.values(), key=lambda u: u.id):
            if u.side == side and u.alive and legal_hexes(sc, st, u.id) is not None:
                out.append((f"{u.called} ({u.kind}) {'&'.join(u.hexes)} facing "
                            f"{vertex_name(grid, u.facing)}", u.id))
        for lid, ld in sorted(st.leaders.items()):
            if ld.side == side and (sc.leader(lid).area or lid in st.deployment.get("with", {})):
                out.append((f"{ld.name} ({'Army' if ld.role == 'ac' else 'Wing'} Commander) {ld.hex}", lid))
        return out
    if kind in ("deploy_hex", "deploy_facing"):
        who = ctx.get("unit", "")
        if who in st.leaders and kind == "deploy_hex":
            ld = st.leaders[who]
            if ld.side != side:
                return []
            if sc.leader(who).area:
                hexes = sorted(sc.deployment_areas[sc.leader(who).area].hexes)
            else:
                hexes = sorted({h for u in st.units.values() if u.alive
                                for h in u.hexes if _leader_target_units(st, ld, h)})
            return [(f"{h} {', '.join(u.name for u in st.units_at(h)) or sc.terrain_at(h)}", h)
                    for h in hexes]
        u = st.units.get(who)
        if u is None or u.side != side:
            return []
        if kind == "deploy_facing":
            hexes = _parse_hexes(ctx.get("hex", ""))
            if u.is_double and len(hexes) == 2 and all(h in grid for h in hexes) \
                    and grid.adjacent(*hexes):
                return [(vertex_name(grid, v), vertex_name(grid, v)) for v in double_facings(grid, *hexes)]
            return [(vertex_name(grid, v) + (" (now)" if v == u.facing else ""), vertex_name(grid, v))
                    for v in range(6)]
        legal = legal_hexes(sc, st, u.id) or set()

        def free(h: str) -> bool:
            others = [o for o in st.units_at(h) if o.id != u.id]
            if not others:
                return True
            mover = type("Mover", (), {"side": u.side, "kind": u.kind, "facing": others[0].facing,
                                       "name": u.name, "called": u.called, "id": u.id})()
            return setup_stack_problem(others + [mover]) is None

        ok = sorted(h for h in legal if free(h))
        if not u.is_double:
            return [(f"{h} {sc.terrain_at(h)}", h) for h in ok]
        pairs = [(a, b) for a in ok for b in grid.neighbors(a) if b in ok and a < b]
        return [(f"{a},{b}", f"{a},{b}") for a, b in pairs]
    if kind == "brigade":
        out = []
        for b, ids in brigades(sc, side).items():
            w = st.units[ids[0]].wing
            out.append((f"{b}: {', '.join(st.units[i].name for i in ids)} -> {st.wings[w].name}", b))
        return out
    if kind == "pool_wing":
        ids = brigades(sc, side).get(ctx.get("brigade", ""))
        if not ids:
            return []
        return [(st.wings[w].name, w) for w in sc.unit(ids[0]).wing_choices]
    return []


def _register() -> None:
    from engine.tacw.rules import register
    register("deploy", do_deploy, USAGE["deploy"])
    register("assign", do_assign, USAGE["assign"])


_register()
