"""Second Newbury's special and optional rules (book, "SECONDA NEWBURY": "Regole speciali" 1-5 and
"Regole opzionali"; digest §7.4, §8, §9.3 R24), played by the [[special_rules]] `kind`s of a
scenario file (schema in `scenario/schema.py`; the extra keys each kind carries are SPECIAL_RULE_PARAMS):

    impregnable_castle   1. Donnington Castle "imprendibile": no unit of the other side may enter
                         its hexes (`side` holds it); the Terrain table's Castle row (Fire and close
                         combat NA, D11) already shields the garrison, which fires normally
    last_occupied_victory_hexes
                         2. a victory hex scores for the side that LAST occupied it (the state
                         keeps the last occupant of each; `side` holds them all at the start)
    bridges              4. a double unit may not occupy a bridge hex (the `hexes` and the boat
                         bridge), and a unit must have the MP to cross completely: a move may
                         not end on a bridge it entered
    boat_bridge          5. `side` (Parliament: Manchester) records secretly on which of the
                         `hexes` (the Lambourn between Shaw and the east edge) the boat bridge
                         lies: `boatbridge <hex>`, once, before or during play. Nobody else sees
                         it (board, status, log) until a unit first crosses on it: it is then
                         revealed and is a bridge on the map for both sides
    detached_forces      Northampton's brigade and Douglas's command: away unless an optional
                         rule brings them; option 1 ("return"): a d10 each time a Royalist wing
                         activates, 0-`roll` and the force returns from its `edge` (D26); option
                         2 ("join"): its units join a wing, without their commander
    battle_length        optional rule 1 (8 turns) and the attack axes' own limits (0 = none)
    attack_axes          optional rule 2, A-C: the wings named start in another area

Shaw House (rule 3, -2 to Fire and close combat) is a Village hex on the map: the Terrain table's
Village row gives exactly -2 to both (D11), so it needs no hook.

The game's own data lives in `state.options[KEY]` (engine scratch, like the suspended move):
the last occupant of each victory hex, the boat bridge's secret hex and whether it is revealed,
and the detached forces still away (their units, leader and wing, to rebuild when they return).

Hooks (each a line or two in the module named): `setup.new_state` -> `setup_state`;
`rules.apply` and `sequence.advance` -> `scenario_view` (turn limit, the boat bridge as terrain,
the attack axes' areas); `sequence.start_activation` -> `note_royalist_activation`;
`sequence.advance` -> `between_commands` (return rolls, the boat bridge revealed, last occupants);
`movement.start_move` -> `check_step` / `check_end`; `movement.drive` -> `after_step`;
`victory.victory_points` -> `last_occupants`; renders/tacw.py -> `scenario_view(public=True)`.

HERALD readings (DECISIONS.md, section "Second Newbury", D101-D110): occupation is judged at the end of
every command and at the end of the battle (a unit only passing through does not occupy; gun
markers never do); the boat bridge may be recorded once and not moved; a returning force enters
at once, as its own wing, on the first free hexes of its entry list, facing into the field, on
the order its rule gives; a roll is made for each Royalist activation begun by `activate` or by a
bypass (not when a bypassed wing resumes, not for a continuation); "no turn limit" is 99 turns.
"""
from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event

from engine.tacw.state import Leader, TacwState, Unit, Wing, label_units

KEY = "_newbury"                      # state.options key (a dict: never an optional rule's effects)
NO_LIMIT = 99                         # "nessun limite di turni": the parser's longest battle
EDGE_NAMES = {"north": "geographic north", "south": "south", "east": "east", "west": "west"}
KINDS = ("impregnable_castle", "last_occupied_victory_hexes", "bridges", "boat_bridge",
         "detached_forces", "battle_length", "attack_axes")
USAGE = {"boatbridge": ("boatbridge <hex>: Parliament records in secret where its boat bridge lies on "
                        "the Lambourn, between Shaw and the east edge, once, before or during play "
                        "(Second Newbury special rule 5)")}


def section(sc, what: str) -> str:
    return f"TACW {sc.title} {what}"


def rule(sc, kind: str):
    """The scenario's special rule of this kind, or None (also for scenarios of another shape)."""
    for r in getattr(sc, "special_rules", None) or []:
        if getattr(r, "kind", "") == kind:
            return r
    return None


def params(sc, kind: str) -> dict[str, Any] | None:
    r = rule(sc, kind)
    return None if r is None else dict(getattr(r, "params", None) or {})


def _rule_section(sc, kind: str) -> str:
    """"TACW Second Newbury special rule 1": the number the book's text starts with, else the
    rule's name."""
    r = rule(sc, kind)
    if r is None:
        return section(sc, "special rules")
    number = r.text.split(".", 1)[0]
    return section(sc, f"special rule {number}" if number.isdigit() else f"special rule: {r.name}")


def data(st: TacwState) -> dict[str, Any]:
    """This battle's own state (present only in games of a scenario with these rules)."""
    return st.options.get(KEY) or {}


# == validation (scenario_parse: after the scenario is built) ===================================

def check_special_rules(sc) -> None:
    """The extra keys of each kind, against the map, the wings, the units and the optional rules;
    raises ScenarioError naming the rule and the key."""
    from engine.tacw.scenario.schema import ScenarioError
    grid = sc.grid
    units = {u.id: u for u in sc.units}
    wings = {w.id: w for w in sc.wings}
    options = {o.id for o in sc.optional_rules}
    sides = ("royalist", "parliament")
    for r in sc.special_rules:
        if r.kind not in KINDS:
            continue
        p = dict(getattr(r, "params", None) or {})
        where = f"{sc.source} [{sc.id}] special_rules ({r.id})"

        def need(key: str, kind: type):
            if key not in p:
                raise ScenarioError(f"{where}: missing '{key}'")
            if not isinstance(p[key], kind) or (kind is int and isinstance(p[key], bool)):
                raise ScenarioError(f"{where}.{key}: expected {kind.__name__}, got {p[key]!r}")
            return p[key]

        def hexes(key: str, values, terrain: tuple[str, ...] | None = None) -> None:
            if not isinstance(values, list) or not values:
                raise ScenarioError(f"{where}.{key}: give a list of hexes")
            for h in values:
                if not isinstance(h, str) or h not in grid:
                    raise ScenarioError(f"{where}.{key}: {h!r} is not a hex of the map")
                if terrain and sc.terrain_at(h) not in terrain:
                    raise ScenarioError(f"{where}.{key}: {h} is {sc.terrain_at(h)}, not "
                                        f"{' or '.join(terrain)}")

        def option(value, key: str) -> None:
            if value not in options:
                raise ScenarioError(f"{where}.{key}: no optional rule {value!r} "
                                    f"(optional rules: {', '.join(sorted(options)) or 'none'})")

        if "side" in p and p["side"] not in sides:
            raise ScenarioError(f"{where}.side: must be 'royalist' or 'parliament'")
        if r.kind == "impregnable_castle":
            need("side", str)
            hexes("hexes", need("hexes", list), ("castle",))
        elif r.kind == "last_occupied_victory_hexes":
            need("side", str)
            if not sc.victory_hexes:
                raise ScenarioError(f"{where}: the map has no victory_hexes")
        elif r.kind == "bridges":
            hexes("hexes", need("hexes", list), ("bridge",))
        elif r.kind == "boat_bridge":
            need("side", str)
            values = need("hexes", list)
            hexes("hexes", values, ("river",))
            for h in values:
                banks = [n for n in grid.neighbors(h) if not sc.hex_impassable(n)]
                if len(banks) < 2:
                    raise ScenarioError(f"{where}.hexes: {h} has no bank on each side to cross to")
        elif r.kind == "detached_forces":
            for i, f in enumerate(need("forces", list)):
                fw = f"{where}.forces[{i}]"
                if not isinstance(f, dict):
                    raise ScenarioError(f"{fw}: expected a table")
                unknown = set(f) - {"wing", "return_option", "roll", "edge", "edge_name", "facing",
                                    "order", "hexes", "join_option", "join"}
                if unknown:
                    raise ScenarioError(f"{fw}: unknown key(s) {', '.join(sorted(unknown))}")
                wing = wings.get(f.get("wing"))
                if wing is None:
                    raise ScenarioError(f"{fw}.wing: no wing {f.get('wing')!r}")
                if "return_option" in f:
                    option(f["return_option"], "return_option")
                    roll = f.get("roll")
                    if not isinstance(roll, int) or isinstance(roll, bool) or not 0 <= roll <= 9:
                        raise ScenarioError(f"{fw}.roll: the highest d10 that brings it back, 0..9")
                    if f.get("edge") not in ("north", "south", "east", "west"):
                        raise ScenarioError(f"{fw}.edge: north, south, east or west (the sheet's)")
                    if f.get("order") not in ("charge", "make_ready", "receive_charge", "rally"):
                        raise ScenarioError(f"{fw}.order: the order it returns on")
                    from engine.core.facing import vertex_index
                    try:
                        vertex_index(grid, str(f.get("facing", "")))
                    except ValueError:
                        raise ScenarioError(f"{fw}.facing: a vertex E SE SW W NW NE") from None
                    hexes("hexes", f.get("hexes"))
                    edge = f["edge"]
                    for h in f["hexes"]:
                        c, rr = grid.col_row(h)
                        on = {"west": c == 0, "east": c == sc.cols - 1, "north": rr == 0,
                              "south": rr == sc.rows - 1}[edge]
                        if not on or sc.hex_impassable(h):
                            raise ScenarioError(f"{fw}.hexes: {h} is not a land hex of the map's "
                                                f"{edge} edge")
                if "join_option" in f:
                    option(f["join_option"], "join_option")
                    join = wings.get(f.get("join"))
                    if join is None or join.side != wing.side:
                        raise ScenarioError(f"{fw}.join: no {wing.side} wing {f.get('join')!r}")
        elif r.kind == "battle_length":
            for i, lim in enumerate(need("limits", list)):
                if not isinstance(lim, dict) or set(lim) != {"option", "turns"}:
                    raise ScenarioError(f"{where}.limits[{i}]: {{ option, turns }}")
                option(lim["option"], f"limits[{i}].option")
                t = lim["turns"]
                if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t <= NO_LIMIT:
                    raise ScenarioError(f"{where}.limits[{i}].turns: 0 (no limit) .. {NO_LIMIT}")
        elif r.kind == "attack_axes":
            for i, ax in enumerate(need("axes", list)):
                aw = f"{where}.axes[{i}]"
                if not isinstance(ax, dict):
                    raise ScenarioError(f"{aw}: expected a table")
                option(ax.get("option"), "option")
                if ax.get("area") not in sc.deployment_areas:
                    raise ScenarioError(f"{aw}.area: no deployment area {ax.get('area')!r}")
                area = sc.deployment_areas[ax["area"]]
                named = ax.get("wings") or []
                for w in named:
                    if w not in wings or wings[w].side != area.side:
                        raise ScenarioError(f"{aw}.wings: {w!r} is not a {area.side} wing")
                placed = {}
                for j, pl in enumerate(ax.get("placements") or []):
                    pw = f"{aw}.placements[{j}]"
                    u = units.get(pl.get("unit"))
                    if u is None or u.wing not in named:
                        raise ScenarioError(f"{pw}.unit: {pl.get('unit')!r} is not a unit of "
                                            f"{', '.join(named)}")
                    hx = pl.get("hexes") or []
                    if len(hx) != len(u.hexes) or any(h not in area.hexes for h in hx):
                        raise ScenarioError(f"{pw}.hexes: {hx} must be {len(u.hexes)} hex(es) of "
                                            f"area '{area.id}'")
                    placed[u.id] = pl
                missing = [u.id for u in sc.units if u.wing in named and u.id not in placed]
                if missing:
                    raise ScenarioError(f"{aw}.placements: no place for {', '.join(missing)}")


# == setup (setup.new_state) ====================================================================

EXCLUSIVE_KEYS = ("return_option", "join_option")


def setup_state(sc, st: TacwState) -> None:
    """A new game's share of these rules: options that exclude each other refused, the detached
    forces away / joined / waiting to return, the attack axis's placement, the victory hexes'
    first holder, the boat bridge unrecorded."""
    if not any(rule(sc, k) for k in KINDS):
        return
    from engine.tacw.scenario.schema import ScenarioError
    chosen = {k for k, v in st.options.items() if not k.startswith("_") and v}
    mine: dict[str, Any] = {}
    # -- the detached forces (Northampton, Douglas)
    forces = (params(sc, "detached_forces") or {}).get("forces", [])
    away: dict[str, Any] = {}
    for f in forces:
        both = [f[k] for k in EXCLUSIVE_KEYS if f.get(k) in chosen]
        if len(both) > 1:
            raise ScenarioError(f"{sc.id}: optional rules {' and '.join(both)} exclude each other")
        wid = f["wing"]
        wing = st.wings.get(wid)
        if wing is None:
            continue
        ids = [u.id for u in st.units.values() if u.wing == wid]
        leader = st.leaders.get(wing.commander)
        if f.get("join_option") in chosen:               # option 2: the units join a wing
            for uid in ids:
                st.units[uid].wing = f["join"]
        elif f.get("return_option") in chosen:           # option 1: away, may return
            away[wid] = {"units": {uid: asdict(st.units[uid]) for uid in ids},
                         "leader": asdict(leader) if leader else None, "wing": asdict(wing)}
            for uid in ids:
                del st.units[uid]
        else:                                            # not in this battle
            for uid in ids:
                del st.units[uid]
        if leader is not None:                           # option 2 joins them without him
            del st.leaders[leader.id]
        del st.wings[wid]
    if away:
        mine["away"] = away
        mine["due"] = False
    if isinstance(st.deployment, dict) and "with" in st.deployment:
        st.deployment["with"] = {lid: uid for lid, uid in st.deployment["with"].items()
                                 if lid in st.leaders and uid in st.units}
    # -- the attack axis
    axes = [ax for ax in (params(sc, "attack_axes") or {}).get("axes", []) if ax["option"] in chosen]
    if len(axes) > 1:
        raise ScenarioError(f"{sc.id}: optional rules {' and '.join(a['option'] for a in axes)} "
                            "exclude each other (one attack axis)")
    if axes:
        from engine.core.facing import vertex_index
        for pl in axes[0]["placements"]:
            u = st.units.get(pl["unit"])
            if u is None:
                continue
            u.hexes = list(pl["hexes"])
            u.facing = vertex_index(sc.grid, pl["facing"])
        for ld in sc.leaders:
            if ld.with_unit and ld.id in st.leaders and ld.with_unit in st.units:
                st.leaders[ld.id].hex = st.units[ld.with_unit].hexes[0]
        mine["axis"] = axes[0]["option"]
    # -- the victory hexes' last occupant
    p = params(sc, "last_occupied_victory_hexes")
    if p is not None:
        mine["last"] = {vh.hex: p["side"] for vh in sc.victory_hexes}
        _track_occupation(sc, st, mine["last"])
    # -- the boat bridge
    if rule(sc, "boat_bridge") is not None:
        mine["boat"] = {"hex": "", "revealed": False}
    st.options[KEY] = mine


# == the scenario as this game sees it (turn limit, boat bridge, attack axis) ===================

_VIEWS: dict[tuple, tuple[Any, Any]] = {}


def battle_turns(sc, st: TacwState) -> int:
    """The battle's length: the book's, or the longest the chosen optional rules give (0 = no
    limit = NO_LIMIT turns)."""
    limits = (params(sc, "battle_length") or {}).get("limits", [])
    turns = [lim["turns"] or NO_LIMIT for lim in limits if st.options.get(lim["option"])]
    return max([sc.turns] + turns)


def boat_bridge_hex(st: TacwState, *, secret: bool = False) -> str:
    """The boat bridge's hex: once revealed; with `secret`, also while only its owner knows it."""
    boat = data(st).get("boat") or {}
    if boat.get("revealed") or (secret and boat.get("hex")):
        return boat.get("hex", "")
    return ""


def _owner_sees_boat(sc, st: TacwState, side: str | None, verb: str | None) -> bool:
    """Before it is revealed the boat bridge exists only for its owner's moves: a `move` order,
    or any command while one of his moves waits halfway (it resumes on the bridge)."""
    from engine.tacw.movement.move import SUSPENDED
    owner = (params(sc, "boat_bridge") or {}).get("side")
    suspended = st.options.get(SUSPENDED)
    if suspended and suspended.get("ctx", {}).get("side") == owner:
        return True
    return side == owner and verb == "move"


def scenario_view(sc, st: TacwState, side: str | None = None, verb: str | None = None, *,
                  public: bool = False):
    """The scenario as this game plays it: the turn limit of its optional rules, the revealed
    boat bridge as a Bridge hex (and, for its owner's own moves, the secret one), the attack
    axis's deployment area for the wings it moves, and only the deployment areas in use (so the
    board shades no area of an option not chosen). The same scenario object when nothing
    changes."""
    if not any(rule(sc, k) for k in KINDS) or getattr(sc, "_newbury_base", None) is not None:
        return sc
    turns = battle_turns(sc, st)
    boat = boat_bridge_hex(st)
    if not boat and not public and _owner_sees_boat(sc, st, side, verb):
        boat = boat_bridge_hex(st, secret=True)
    axis = data(st).get("axis", "")
    used = frozenset(u_area for u_area in (_unit_area(sc, uid, axis) for uid in st.units) if u_area)
    key = (id(sc), turns, boat, axis, used, boat_bridge_hex(st) == boat and bool(boat))
    hit = _VIEWS.get(key)
    if hit is not None and hit[0] is sc:
        return hit[1]
    changes: dict[str, Any] = {}
    if turns != sc.turns:
        changes["turns"] = turns
    if boat:
        changes["terrain"] = {**sc.terrain, boat: "bridge"}
        if boat_bridge_hex(st) == boat and hasattr(sc, "labels"):
            from engine.tacw.scenario.schema import MapLabel
            changes["labels"] = list(sc.labels) + [MapLabel(boat, "boat bridge")]
    if axis:
        ax = next(a for a in params(sc, "attack_axes")["axes"] if a["option"] == axis)
        changes["units"] = [replace(u, area=ax["area"]) if u.wing in ax["wings"] else u
                            for u in sc.units]
    areas = getattr(sc, "deployment_areas", None)
    if areas and set(areas) != used:
        changes["deployment_areas"] = {k: a for k, a in areas.items() if k in used}
    view = replace(sc, **changes) if changes else sc
    if view is not sc:
        view._newbury_base = sc
    if len(_VIEWS) > 64:
        _VIEWS.clear()
    _VIEWS[key] = (sc, view)
    return view


def _unit_area(sc, uid: str, axis: str) -> str:
    try:
        u = sc.unit(uid)
    except KeyError:
        return ""
    if axis:
        ax = next(a for a in params(sc, "attack_axes")["axes"] if a["option"] == axis)
        if u.wing in ax["wings"]:
            return ax["area"]
    return getattr(u, "area", "")


# == special rule 1, 4: moves (movement.start_move, movement.drive) =============================

def castle_hexes(sc, side: str) -> set[str]:
    """Hexes of an impregnable castle the units of `side` may not enter (rule 1)."""
    p = params(sc, "impregnable_castle")
    if p is None or p["side"] == side:
        return set()
    return set(p["hexes"])


def bridge_hexes(sc) -> set[str]:
    """Rule 4's bridges: every Bridge hex of the map as this game sees it (the boat bridge too,
    once it is on the map)."""
    if rule(sc, "bridges") is None:
        return set()
    return {h for h, t in sc.terrain.items() if t == "bridge"}


def closed_hexes(sc, unit: Unit) -> set[str]:
    """Hexes rules 1 and 4 close to `unit` whatever moves it: the enemy's castle, and for a double
    unit the bridges. HERALD: the rules say "enter" and "occupy" without naming the kind of move,
    so retreats, routs and advances after combat (close_combat/retreat.py) respect them as ordinary moves do;
    a retreat or rout that finds no other hex is blocked (§10.4.5, §12.4.2)."""
    closed = castle_hexes(sc, unit.side)
    if unit.is_double:
        closed = closed | bridge_hexes(sc)
    return closed


def check_step(sc, sim: TacwState, unit: Unit, before: list[str]) -> None:
    """One step of a move, on the dry run: rule 1 (no enemy unit enters the castle) and rule 4
    (a double unit may not occupy a bridge hex)."""
    entered = [h for h in unit.hexes if h not in before]
    if not entered:
        return
    castle = castle_hexes(sc, unit.side) & set(entered)
    if castle:
        raise Illegal(f"{unit.called} may not enter {', '.join(sorted(castle))}: Donnington Castle is "
                      "impregnable and cannot be entered or captured by the enemy",
                      _rule_section(sc, "impregnable_castle"))
    if unit.is_double:
        on = bridge_hexes(sc) & set(unit.hexes)
        if on:
            raise Illegal(f"{unit.called} is a double unit: it may not occupy the bridge hex "
                          f"{', '.join(sorted(on))}", _rule_section(sc, "bridges"))


def check_end(sc, sim: TacwState, ctx: dict) -> None:
    """Rule 4, "it must have enough movement to cross to the other side": a move may not end on
    a bridge hex it entered (HERALD: a unit halted there by the enemy stays where it is)."""
    u = sim.units[ctx["unit"]]
    on = bridge_hexes(sc) & set(u.hexes) - set(ctx["start_hexes"])
    if on:
        raise Illegal(f"{u.called} would stop on the bridge {', '.join(sorted(on))}: a unit must have "
                      "the MP to cross the bridge completely", _rule_section(sc, "bridges"))


def after_step(sc, st: TacwState, ctx: dict) -> list[Event]:
    """The live walk of a move: a unit entering the secret boat bridge reveals it (rule 5)."""
    u = st.units.get(ctx["unit"])
    return _reveal_if_used(sc, st, [u] if u is not None else [], crossing=True)


def _reveal_if_used(sc, st: TacwState, units: list[Unit], crossing: bool = False) -> list[Event]:
    boat = data(st).get("boat")
    if not boat or boat.get("revealed") or not boat.get("hex"):
        return []
    users = [u for u in units if u is not None and u.alive and boat["hex"] in u.hexes]
    if not users:
        return []
    boat["revealed"] = True
    u = users[0]
    return [Event("boat_bridge", u.side, _rule_section(sc, "boat_bridge"),
                  f"The boat bridge is placed on the map at {boat['hex']}: {u.called} "
                  f"{'crosses the Lambourn on it' if crossing else 'stands on it'}; it is a bridge "
                  "for both sides from now on", outcome={"hex": boat["hex"], "unit": u.id})]


def scrub_secret(st: TacwState, ev: Event) -> None:
    """A move that was halted before the secret boat bridge must not name it (rule 5)."""
    secret = (data(st).get("boat") or {})
    if not secret.get("hex") or secret.get("revealed"):
        return
    left = ev.outcome.get("unwalked")
    if left:
        ev.outcome["unwalked"] = ["(secret)" if secret["hex"] in str(s) else s for s in left]
    if secret["hex"] in ev.narrative:
        ev.narrative = ev.narrative.replace(secret["hex"], "a river hex")


# == special rule 5: `boatbridge <hex>` =========================================================

def do_boatbridge(sc, st: TacwState, side: str, cmd, stream) -> list[Event]:
    p = params(sc, "boat_bridge")
    if p is None:
        raise Illegal(f"{sc.title} has no boat bridge", "TACW scenario special rules")
    sec = _rule_section(sc, "boat_bridge")
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}", sec)
    if side != p["side"]:
        raise Illegal(f"only {p['side'].title()} (Manchester) has the boat bridge", sec)
    boat = data(st).setdefault("boat", {"hex": "", "revealed": False})
    if not cmd.args:
        mine = f" Yours is recorded at {boat['hex']}." if boat.get("hex") else ""
        raise CannotParse("usage: " + USAGE["boatbridge"] + mine)
    if boat.get("hex"):
        raise Illegal(f"the boat bridge is already recorded (at {boat['hex']}"
                      f"{', on the map' if boat.get('revealed') else ', secretly'}): it is recorded "
                      "once", sec)
    where = cmd.args[0]
    if where not in p["hexes"]:
        raise Illegal(f"{where} is not a hex of the Lambourn between Shaw and the east edge where "
                      f"a boat bridge may lie ({', '.join(p['hexes'])})", sec)
    boat["hex"] = where
    st.options[KEY] = {**data(st), "boat": boat}
    return [Event("boat_bridge", side, sec, "Manchester records in secret where the boat bridge "
                  "lies on the Lambourn, between Shaw and the east edge: it appears on the map "
                  "when a unit first crosses on it")]


# == optional rules: Northampton and Douglas return (D26, digest R24) ===========================

def note_royalist_activation(st: TacwState, wing: Wing) -> None:
    """sequence.start_activation: a Royalist wing activates; a return roll is due if a force is
    still away (rolled by `between_commands`, which has the dice)."""
    mine = st.options.get(KEY)
    if mine and mine.get("away") and wing.side == "royalist":
        mine["due"] = True


def _roll_returns(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    mine = data(st)
    away = mine.get("away") or {}
    if not mine.get("due") or not away:
        return []
    mine["due"] = False
    forces = {f["wing"]: f for f in (params(sc, "detached_forces") or {}).get("forces", [])}
    sec = section(sc, "optional rule: Northampton and Douglas, option 1 (D26)")
    events: list[Event] = []
    rolled = [w for w in away if not away[w].get("returned")]
    waiting = [w for w in away if away[w].get("returned")]
    for wid in waiting:                      # came back earlier but could not enter: try again
        events += _enter(sc, st, wid, forces[wid], sec)
    if not rolled:
        return events
    from engine.tacw.sequence.activation import d10
    roll = d10(stream, "return roll")
    names = {w: away[w]["wing"]["name"] for w in rolled}
    back = [w for w in rolled if roll <= forces[w]["roll"]]
    parts = [f"{names[w]} 0-{forces[w]['roll']}" for w in rolled]
    text = (f"A Royalist wing activates: return roll for {', '.join(parts)}: {roll} -> "
            + ("; ".join(f"{names[w]} returns from the {_edge_words(forces[w])}" for w in back)
               or "nobody returns yet"))
    stay = [names[w] for w in rolled if w not in back]
    if back and stay:
        text += f"; {', '.join(stay)} stays away"
    events.append(Event("return_roll", "royalist", sec, text, base=roll,
                        dice=[DieRoll("return roll", "d10", roll)],
                        table="Return roll (one d10 for every force still away, D26)",
                        row=", ".join(parts), outcome={"roll": roll, "returns": back}))
    for wid in back:
        away[wid]["returned"] = True
        events += _enter(sc, st, wid, forces[wid], sec)
    return events


def _edge_words(force: dict) -> str:
    """The book's name for the edge (`edge_name`), and the sheet's edge the engine uses."""
    if force.get("edge_name"):
        return f"{force['edge_name']} edge (the map's {force['edge']} edge)"
    return f"{force['edge']} edge"


def _enter(sc, st: TacwState, wid: str, force: dict, sec: str) -> list[Event]:
    """HERALD (R24): the force enters at once on the first free hexes of its entry list (no unit
    there), facing into the field, as its own wing under its own commander."""
    from engine.core.facing import vertex_index
    mine = data(st)
    stored = mine["away"][wid]
    free = [h for h in force["hexes"] if not st.units_at(h)]
    units = [Unit(**d) for d in stored["units"].values()]
    if len(free) < len(units):
        return [Event("return", "royalist", sec, f"{stored['wing']['name']} cannot enter yet: its "
                      f"entry hexes ({', '.join(force['hexes'])}) are taken; it tries again when a "
                      "Royalist wing next activates", outcome={"wing": wid, "entered": False})]
    facing = vertex_index(sc.grid, force["facing"])
    for u, h in zip(units, free):
        u.hexes, u.facing, u.status = [h], facing, "active"
        st.units[u.id] = u
    label_units(st)                                 # issue 12: names shared with the newcomers
    placed = [f"{u.called} {u.hexes[0]}" for u in units]
    wing = Wing(**stored["wing"])
    wing.order = force["order"]
    wing.done = wing.bypassed = False
    wing.activations = 0
    st.wings[wid] = wing
    if stored.get("leader"):
        ld = Leader(**stored["leader"])
        ld.hex = units[0].hexes[0]
        st.leaders[ld.id] = ld
    del mine["away"][wid]
    if not mine["away"]:
        mine.pop("away")
        mine.pop("due", None)
    return [Event("return", "royalist", sec,
                  f"{wing.name} enters from the {_edge_words(force)} ({', '.join(placed)}), facing "
                  f"{force['facing']}, on {wing.order.replace('_', ' ').title()} orders; its wing may "
                  "activate from now on", outcome={"wing": wid, "entered": True,
                                                   "hexes": [u.hexes[0] for u in units]})]


# == special rule 2: the last occupant of each victory hex =====================================

def _occupant(st: TacwState, hex_id: str) -> str:
    sides = {u.side for u in st.units_at(hex_id) if not u.gun_state}
    return sides.pop() if len(sides) == 1 else ""


def _track_occupation(sc, st: TacwState, last: dict[str, str]) -> None:
    for h in last:
        side = _occupant(st, h)
        if side:
            last[h] = side


def last_occupants(sc, st: TacwState) -> dict[str, str] | None:
    """victory.victory_points: each victory hex's last occupant (the record, updated with who
    stands there now); None when the scenario scores victory hexes as held at the end."""
    if rule(sc, "last_occupied_victory_hexes") is None:
        return None
    last = dict(data(st).get("last") or {})
    _track_occupation(sc, st, last)
    return last


# == after every command (sequence.advance) =====================================================

def between_commands(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """What these rules do between commands: the return roll of a Royalist activation, the boat
    bridge revealed by a unit standing on it (a retreat, a halted move), the victory hexes'
    occupants recorded."""
    mine = st.options.get(KEY)
    if not mine:
        return []
    events = _roll_returns(sc, st, stream)
    events += _reveal_if_used(sc, st, list(st.units.values()))
    if "last" in mine:
        _track_occupation(sc, st, mine["last"])
    return events


def _register() -> None:
    from engine.tacw import rules
    rules.register("boatbridge", do_boatbridge, USAGE["boatbridge"])
    rules.ANY_TIME.add("boatbridge")     # a secret record: also while deploying (rules.apply)


_register()
