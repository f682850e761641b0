"""Infantry assaults [8] and the resolution of every assault and charge on the Assault & Charge
table (JdG Classique).

Commands (the combat step of the activation, [1.D], [2.4]):
- `assault <units...> on <hex>`: infantry of the active formation declares an assault on an
  enemy hex in its frontal hexes [6.1], [8.1]; several units on one hex make one combined
  assault [8.4] (a second declaration on a hex already assaulted joins the first: an enemy unit
  is assaulted once per activation, [8.1] L473). A "Choc" marker With Orders, "Choc/Test"
  Without ([8.2] L479; `Unit.assault`). All assaults are declared before the first is resolved
  ([8.2] L477, HERALD D16).
- `resolve`: resolves every declared assault and charge (charges are declared as cavalry moves,
  combat/charge.py), one after another in the order declared, each through the text's sequence
  (HERALD D53): refusal by cavalry [8.8]; the engagement check of Without-Orders infantry [8.2];
  for charges the square attempt and the recall [9.3] and the counter-charge [9.4]; the
  defending artillery's reaction fire [8.3]; the roll on the Assault & Charge table [8.5], [8.6];
  the results [8.5], [8.9], [10]; the advance [8.7] or, for cavalry, the pursuit [9.5]; the
  breakthrough (10 or more) or the counter-assault (below 0) [8.7]; and, once every pursuit of a
  charge is over, the disorder of every cavalry unit that charged [9.2], [9.5] L670.
- `breakthrough <unit|none>`: the attacker's answer after a 10 or more [8.7] (also `react`).

Decisions owed by the other side stop the resolution in `st.pending` and resume with `react`:
"refuse_assault" [8.8], "square" [9.3], "counter_charge" [9.4], "counter_assault" [8.7]; the
attacker's own: "recall" [9.3], "breakthrough" [8.7], "pursuit" (the voluntary stop, [9.5]).
What remains to resolve lives in `st.combat` (reset at each activation), so a decision answered
later picks the resolution up where it stopped.

Functions for other modules:
  assault_odds_for(sc, st, attackers, target_hex) -> {band key: Fraction}    (/odds, menus)
  combat_modifiers(sc, st, attackers, target_hexes, ...) -> [Modifier]       the DRMs of a combat
  declared(st) -> bool                             assaults or charges wait to be resolved
  resolve_all(sc, st, stream) -> [Event]           resolve them (e.g. when the step is closed)

HERALD readings (DECISIONS.md): D15 (infantry checks engagement at resolution), D16 (declared
assaults are binding), D30 (strengths), D31 (six fronts -1), D39 (a unit attacks every enemy in
its front unless a friend does), D40 (combined assault: one check, best engagement of the top
units), D41-D43 (ratio, cohesion, terrain: each chooser's best), D44 (reaction fire), D45 (results
in the text's order), D46, D47 (artillery alone), D48 (advance), D49 (breakthrough, no chains),
D50 (counter-assault), D51 (refusal), D53 (order of reactions), D54-D57 (charges), D75 (the
other player is asked). Ties the text leaves to the attacker (who advances or pursues among
equals) are settled by Herald in unit-id order (HERALD D90).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable

from engine.core.dice import DiceStream, run_stages
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core import facing as core_facing

from engine.jdg import checks, geometry, rules, tables
from engine.jdg.combat import results
from engine.jdg.combat.results import cohesion, engagement, is_night, name_of  # noqa: F401  (charge.py reads A.*)
from engine.jdg.sequence.command import may_act, unit_with_orders
from engine.jdg.state import JdgState, Unit

SECTION = "JdG [8]"
STAGES = ("start", "refuse", "check", "square", "recall", "counter_charge", "reaction_fire", "roll",
          "effects", "advance", "follow", "end")


# == small helpers =================================================================================

def strength(sc, unit: Unit) -> int:
    return sc.unit(unit.id).strength


def heavy(sc, unit: Unit) -> bool:
    """Heavy cavalry, the counter's "L" [9.2]."""
    return bool(sc.unit(unit.id).heavy)


def enemies_in(st: JdgState, hexes: Iterable[str], side: str) -> list[Unit]:
    out = []
    for h in hexes:
        out += [u for u in st.units_at(h) if u.side != side]
    return out


def top_combat_unit(units: list[Unit]) -> Unit | None:
    """The top unit of a stack for a check: the highest infantry or cavalry unit when artillery
    sits on top ([8.2] L483, [5.1])."""
    for u in units:
        if u.arm != "artillery":
            return u
    return units[0] if units else None


def facings_toward(sc, hex_id: str, target: str) -> list[int]:
    """The vertices a unit in `hex_id` may face to have `target` in its front [6.1]."""
    g = geometry.grid(sc)
    return [v for v in range(6) if target in core_facing.arcs(g, [hex_id], v)["front"]]


def hexside_between(sc, a: str, b: str) -> str | None:
    """The TET hexside feature between two hexes that matters for assault and movement (the one
    with the largest assault penalty), or None."""
    best = None
    for f in sc.map.features(a, b):
        t = tables.TERRAIN.get(f)
        if t is None or t.kind != "hexside":
            continue
        if best is None or t.assault_drm < tables.TERRAIN[best].assault_drm:
            best = f
    return best


def could_enter(sc, unit: Unit, hex_id: str) -> bool:
    """[8.1] Exc. 2: a unit may not attack a hex it could not enter (terrain or hexside)."""
    if not sc.map.passable(hex_id):
        return False
    if tables.move_cost(unit.arm, sc.map.terrain_at(hex_id)) is None:
        return False
    for f in sc.map.features(unit.hex, hex_id):
        t = tables.TERRAIN.get(f)
        if t is not None and t.kind == "hexside" and t.mp.get(unit.arm, 0) is None:
            roads = [x for x in sc.map.features(unit.hex, hex_id) if x in ("road", "path", "bridge")]
            if not roads:
                return False
    return True


def _policy(st: JdgState, side: str, key: str) -> str:
    return rules.policy(st, side, key)


# == the activation's combats (st.combat) ==========================================================

def combat_state(st: JdgState) -> dict[str, Any]:
    """The combats of the activation under way, reset when another activation begins."""
    act = st.activation
    key = f"{st.turn}:{act.marker if act else ''}:{act.side if act else ''}"
    c = st.combat
    if c.get("key") != key:
        c.clear()
        c.update({"key": key, "queue": [], "current": None, "assaulted": [], "chain": [], "refused": [],
                  "groups": {}, "next_id": 1, "begun": False})
    return c


def declared(st: JdgState) -> bool:
    """Assaults or charges of this activation wait to be resolved (or are being resolved)."""
    if st.activation is None:
        return False
    c = combat_state(st)
    return bool(c["queue"] or c["current"])


def _new_decl(c: dict, side: str, attackers: list[str], targets: list[str], origin: str, **more) -> dict:
    d = {"id": c["next_id"], "side": side, "attackers": list(attackers), "targets": list(targets),
         "origin": origin, "stage": "start", "answers": {}, "counter_charged": False, "recharges": 0,
         "group": None, "log": []}
    d.update(more)
    c["next_id"] += 1
    return d


def add_declaration(sc, st: JdgState, side: str, attackers: list[Unit], target_hex: str,
                    kind: str) -> tuple[dict, bool]:
    """Record an assault or a charge on `target_hex`. One declared on a hex already assaulted
    joins it: an enemy unit is assaulted once per activation [8.1] L473, and the units then
    combine [8.4] (HERALD D40). Returns (the declaration, joined)."""
    c = combat_state(st)
    for d in c["queue"]:
        if target_hex in d["targets"] and d["origin"] == "declared":
            for u in attackers:
                if u.id not in d["attackers"]:
                    d["attackers"].append(u.id)
            if kind == "charge":
                _join_group(c, d, [u for u in attackers if u.arm == "cavalry"])
            return d, True
    d = _new_decl(c, side, [u.id for u in attackers], [target_hex], "declared")
    if kind == "charge":
        _join_group(c, d, [u for u in attackers if u.arm == "cavalry"])
    c["queue"].append(d)
    return d, False


def _join_group(c: dict, d: dict, cavalry: list[Unit]) -> None:
    """The cavalry of one charge, disordered together once its pursuits are over [9.2], [9.5]."""
    if d["group"] is None:
        d["group"] = str(d["id"])
        c["groups"][d["group"]] = []
    for u in cavalry:
        if u.id not in c["groups"][d["group"]]:
            c["groups"][d["group"]].append(u.id)


# == the modifiers [8.6], [9.2]-[9.5], [6.1], [10.2] ================================================

def combat_modifiers(sc, st: JdgState, attackers: list[Unit], target_hexes: list[str], *,
                     counter_charged: bool = False, recharges: int = 0) -> list[Modifier]:
    """Every DRM of one assault or charge, from tables.assault_modifiers: force ratio [8.6]
    (artillery never counts [8.9], nor the attacker's disordered units [5.1], HERALD D30),
    cohesion difference (the highest on each side, face up, HERALD D42), the charge DRMs [9.2]
    (none positive against a square, -2 instead [9.3]; none after a counter-charge [9.4]),
    pursuit re-charges -1 each [9.5], a routed defender +2 [10.2], a flank attack [6.1], a
    six-front attacker -1 [6.1] (HERALD D31), terrain (HERALD D43: several attackers' hexes, the
    attacker's choice against open terrain, else the defender's; several defenders' hexes, the
    defender's choice) -- each chooser takes his best."""
    side = attackers[0].side
    fighting = [u for u in attackers if u.arm != "artillery" and u.condition == "good"]
    defenders = [u for u in enemies_in(st, target_hexes, side) if u.arm != "artillery"]
    a_str = sum(strength(sc, u) for u in fighting)
    d_str = sum(strength(sc, u) for u in defenders)
    a_coh = max(cohesion(sc, u) for u in fighting)
    d_coh = max(cohesion(sc, u) for u in defenders)
    cav = [u for u in fighting if u.arm == "cavalry"]
    charge = ("heavy" if any(heavy(sc, u) for u in cav) else "cavalry") if cav else None
    square = any(u.square for u in defenders)
    routed = all(u.condition == "routed" for u in defenders)
    six = any(geometry.six_fronts(sc, u) for u in fighting)
    best: list[Modifier] | None = None
    choices: list[tuple[int, list[Modifier]]] = []
    for th in target_hexes:
        here = [u for u in defenders if u.hex == th]
        if not here:
            continue
        top = here[0]
        types = sorted({u.arm for u in st.units_at(th) if u.side != side})
        no_flank = square or routed or geometry.six_fronts(sc, top) or top.condition == "routed"
        flank = (not no_flank) and any(geometry.is_flank_attack(sc, top, u.hex)
                                       for u in fighting if geometry.grid(sc).adjacent(u.hex, th))
        per_attacker_hex = []
        for ah in sorted({u.hex for u in fighting if geometry.grid(sc).adjacent(u.hex, th)}):
            mods = tables.assault_modifiers(
                attacker_strength=a_str, defender_strength=d_str, attacker_cohesion=a_coh,
                defender_cohesion=d_coh, defender_terrain=_terrain_key(sc, th), defender_types=types,
                hexside=hexside_between(sc, ah, th), attacker_uphill=sc.map.level(ah) < sc.map.level(th),
                attacker_terrain=_terrain_key(sc, ah), charge=charge, square=square and charge is not None,
                counter_charged=counter_charged, routed_defender=routed, flank=flank,
                six_front_off_front=six, pursuit_recharges=recharges)
            per_attacker_hex.append((sum(m.value for m in mods), mods))
        if not per_attacker_hex:
            continue
        open_ground = tables.TERRAIN[_terrain_key(sc, th)].open_terrain
        pick = max(per_attacker_hex, key=lambda x: x[0]) if open_ground else min(per_attacker_hex, key=lambda x: x[0])
        choices.append(pick)
    if not choices:
        raise Illegal("no defender to assault", "JdG [8.1]")
    best = min(choices, key=lambda x: x[0])[1]
    return best


def _terrain_key(sc, hex_id: str) -> str:
    t = sc.map.terrain_at(hex_id)
    return t if t in tables.TERRAIN else "clear"


def assault_odds_for(sc, st: JdgState, attackers, target_hex: str) -> dict[str, Fraction]:
    """The chances of each band of the Assault & Charge table [8.5] for these attackers (ids or
    units) on `target_hex`, with the real DRMs (`combat_modifiers`); artillery alone in the hex
    is eliminated without a roll ([8.5] L534, [8.9]): {"artillery_eliminated": 1}."""
    units = [a if isinstance(a, Unit) else st.units[a] for a in attackers]
    units = [u for u in units if u.alive]
    if not units:
        raise Illegal("no attacking unit", "JdG [8.1]")
    foes = enemies_in(st, [target_hex], units[0].side)
    if foes and all(u.arm == "artillery" for u in foes):
        return {"artillery_eliminated": Fraction(1)}
    mods = combat_modifiers(sc, st, units, [target_hex])
    return tables.assault_odds(sum(m.value for m in mods))


# == declaring an assault [8.1], [8.2], [8.4] =======================================================

def check_attacker(sc, st: JdgState, unit: Unit, target_hex: str) -> None:
    """May `unit` assault `target_hex`? [8.1], [6.1]; raises Illegal with the reason."""
    name = name_of(sc, unit)
    if unit.arm == "artillery":
        raise Illegal(f"{name} is artillery: artillery never assaults", "JdG [8.1], [8.9]")
    if unit.arm == "cavalry":
        raise Illegal(f"{name} is cavalry: cavalry assaults only by charging; declare the charge as it "
                      f"moves (`move {unit.id} <hexes> charge <hex>` or `charge {unit.id} <hex>`)", "JdG [8.1], [9.1]")
    if not may_act(st, unit):
        raise Illegal(f"{name} is not of the active formation (or its commander's initiative failed)",
                      "JdG [1] D, [2.4]")
    if unit.condition != "good":
        raise Illegal(f"{name} is {unit.condition}: disordered and routed units may not assault",
                      "JdG [8.1], [10.1], [10.2]")
    if unit.square:
        raise Illegal(f"{name} is in square: units in square may not assault", "JdG [8.1]")
    if unit.assault:
        raise Illegal(f"{name} has already declared its assault", "JdG [8.2]")
    if not geometry.grid(sc).adjacent(unit.hex, target_hex):
        raise Illegal(f"{target_hex} is not adjacent to {name} ({unit.hex})", "JdG [8.1], [6.1]")
    if target_hex not in geometry.frontal_hexes(sc, unit):
        raise Illegal(f"{target_hex} is not one of {name}'s frontal hexes "
                      f"({', '.join(geometry.frontal_hexes(sc, unit))}): a unit assaults only through them",
                      "JdG [6.1], [8.1]")
    if not could_enter(sc, unit, target_hex):
        raise Illegal(f"{name} could not enter {target_hex}: a unit may not assault a hex it could not enter",
                      "JdG [8.1] Exc. 2")


def do_assault(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`assault <units...> on <hex>` [8.1], [8.2], [8.4]."""
    rules.need_active(st, side)
    args = list(cmd.args)
    if "on" not in args:
        raise CannotParse("usage: assault <units...> on <hex>")
    i = args.index("on")
    tokens, rest = args[:i], args[i + 1:]
    if not tokens or len(rest) != 1:
        raise CannotParse("usage: assault <units...> on <hex>")
    target = rest[0]
    if target not in geometry.grid(sc):
        raise Illegal(f"{target} is not a hex of the map", "JdG [8.1]")
    rules.enter_step(st, "combat", sc=sc)
    c = combat_state(st)
    if c["begun"]:
        raise Illegal("the assaults are being resolved: every assault is declared before the first "
                      "engagement check (HERALD D16)", "JdG [8.2]")
    foes = enemies_in(st, [target], side)
    if not foes:
        raise Illegal(f"no enemy unit in {target}", "JdG [8.1]")
    done = [u for u in foes if u.id in c["assaulted"]]
    if done:
        raise Illegal(f"{name_of(sc, done[0])} has already been assaulted this activation", "JdG [8.1]")
    units: list[Unit] = []
    for tok in tokens:
        if tok in geometry.grid(sc) and tok not in st.units:
            here = [u for u in st.units_at(tok) if u.side == side and u.arm == "infantry"]
            if not here:
                raise Illegal(f"none of your infantry in {tok}", "JdG [8.1]")
            picked = here
        else:
            picked = [rules.unit_of(st, tok, side)]
        for u in picked:
            if u.id not in [x.id for x in units]:
                units.append(u)
    for u in units:
        check_attacker(sc, st, u, target)
    events = []
    for u in units:
        u.assault = "choc" if unit_with_orders(st, u) else "choc_test"
    d, joined = add_declaration(sc, st, side, units, target, "assault")
    names = ", ".join(f"{name_of(sc, u)} ({'Choc' if u.assault == 'choc' else 'Choc/Test'})" for u in units)
    foes_txt = ", ".join(name_of(sc, u) for u in foes)
    events.append(Event("assault_declared", side, "JdG [8.2]" + (", [8.4]" if joined or len(units) > 1 else ""),
                        f"{names} {'join the assault on' if joined else 'will assault'} {target} ({foes_txt})",
                        inputs={"attackers": [u.id for u in units], "target": target},
                        outcome={"declaration": d["id"], "joined": joined,
                                 "markers": {u.id: u.assault for u in units}}))
    return events


# == resolving [8.5] ===============================================================================

def do_resolve(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`resolve`: every declared assault and charge, in turn [8.4], [8.5]."""
    rules.need_active(st, side)
    rules.enter_step(st, "combat", sc=sc)
    if not declared(st):
        raise Illegal("no assault or charge has been declared: `assault <units> on <hex>`, or a cavalry "
                      "`move <unit> <hexes> charge <hex>`", "JdG [8.2], [9.1]")
    return resolve_all(sc, st, stream)


def resolve_all(sc, st: JdgState, stream: DiceStream, staged: bool = True) -> list[Event]:
    """Resolve what is declared, until done or until a player owes a decision (st.pending).
    Every stage may be entered again after a decision: it keeps what it has done in the
    combat's record. A fall back whose owner is asked for the hex (combat/retreat.py) carries
    the continuation "jdg_combat" back here.

    The resolution runs as stages (engine.core.dice.run_stages, issue 13): each step of the
    loop below (a stage of the current combat, or one of its queued results) reads only the
    working state, where the combats' record keeps all that is left to do, so a what-if resumes
    at the step it has reached for the same dice instead of replaying the combats before it.
    Not `staged` for a caller that holds parts of the state across the call (a resumed step
    restores the working state's contents, not its parts)."""
    combat_state(st)["begun"] = True
    if staged and stream.working is st and not _TICKING[0]:
        _TICKING[0] += 1
        try:
            events = run_stages(stream, "jdg_combat", {"step": lambda n: _resolve_step(sc, st, stream, n)},
                                [("step", 0)])
        finally:
            _TICKING[0] -= 1
    else:
        events, n = [], 0
        while True:
            more, then = _resolve_step(sc, st, stream, n)
            events += more
            if not then:
                break
            n = then[0][1]
    c = combat_state(st)
    if st.pending and st.pending.get("kind") == "retreat" and "continue" not in st.pending:
        st.pending["continue"] = {"kind": "jdg_combat"}
    if not st.pending and not c["queue"] and c["current"] is None and not c.get("closing"):
        for u in st.units.values():
            u.assault = ""
    return events


_TICKING = [0]            # > 0 while resolve_all runs its stages (they are never nested)


def _resolve_step(sc, st: JdgState, stream: DiceStream, guard: int) -> tuple[list[Event], list]:
    """One step of `resolve_all`: (its events, the next step or none). `guard` counts the steps
    but the queued results (the loop's own count)."""
    if st.pending:
        return [], []
    if guard + 1 > 1000:
        raise AssertionError("the combat resolution does not end")
    c = combat_state(st)
    nxt = [("step", guard + 1)]
    if c.get("closing"):
        return _close_groups(sc, st, stream), nxt
    cur = c["current"]
    if cur is None:
        if not c["queue"]:
            return [], []
        cur = c["current"] = c["queue"].pop(0)
    stage = cur["stage"]
    if stage == "done":
        c["current"] = None
        return _finish(sc, st, cur, stream), nxt
    if stage == "effects" and cur.get("effects"):      # one queued result a step
        events = _apply_effect(sc, st, cur, cur["effects"].pop(0), stream)
        return events, ([] if st.pending else [("step", guard)])
    events = STAGE_FUNCS[stage](sc, st, cur, stream)
    if st.pending:
        return events, []
    if cur["stage"] == stage:           # the stage did its work: the next one
        i = STAGES.index(stage) + 1
        cur["stage"] = STAGES[i] if i < len(STAGES) else "done"
    return events, nxt


def _continue(sc, st: JdgState, data: dict, stream: DiceStream) -> list[Event]:
    """combat/retreat.py's continuation once a fall back the owner was asked about is over."""
    return resolve_all(sc, st, stream)


def _cancel(cur: dict, why: str) -> None:
    cur["stage"] = "done"
    cur["cancelled"] = why


def _attackers(st: JdgState, cur: dict) -> list[Unit]:
    return [st.units[a] for a in cur["attackers"] if st.units[a].alive]


def _is_charge(st: JdgState, cur: dict) -> bool:
    return any(u.arm == "cavalry" for u in _attackers(st, cur))


def _verb(units, verb: str) -> str:
    """'advances' for one unit, 'advance' for several."""
    return verb if len(units) > 1 else verb + "s"


def _ask(st: JdgState, cur: dict, kind: str, side: str, options: list[str], prompt: str, section: str,
         key: str, labels: dict | None = None, default: str | None = None) -> None:
    st.pending = {"kind": kind, "side": side, "options": options, "prompt": prompt, "section": section,
                  "key": key, "combat": cur["id"], "labels": labels or {},
                  "default": default or options[-1]}


def _stage_start(sc, st, cur, stream) -> list[Event]:
    """The attackers still able to attack ([8.1] Exc. 1) and the obligation to attack every enemy
    in the front ([8.1] L473, HERALD D39), for declared infantry assaults."""
    c = combat_state(st)
    side = cur["side"]
    alive = [u for u in _attackers(st, cur) if u.condition == "good" and not u.square]
    cur["attackers"] = [u.id for u in alive]
    if not alive:
        _cancel(cur, "no attacker is able to attack")
        return [Event("assault_cancelled", side, "JdG [8.1]",
                      f"combat {cur['id']} on {', '.join(cur['targets'])}: no attacker is left in good order")]
    events = []
    if cur["origin"] in ("declared", "breakthrough"):
        others = set()
        for d in c["queue"]:
            others.update(d["targets"])
        for u in alive:
            if u.arm != "infantry":
                continue
            front = geometry.normal_front(sc, u) if geometry.six_fronts(sc, u) else geometry.frontal_hexes(sc, u)
            for h in sorted(front):
                foes = enemies_in(st, [h], side)
                if not foes or h in cur["targets"] or h in others:
                    continue
                if cur["origin"] == "declared" and all(f.id in c["assaulted"] for f in foes):
                    continue
                if not could_enter(sc, u, h):
                    continue
                cur["targets"].append(h)
                events.append(Event("assault_extended", side, "JdG [8.1]",
                                    f"{name_of(sc, u)} must also attack {h} ({', '.join(name_of(sc, f) for f in foes)}): "
                                    "an assaulting unit attacks every enemy in its frontal hexes that no friend "
                                    "attacks (HERALD D39)", outcome={"combat": cur["id"], "added": h}))
    cur["targets"] = [h for h in cur["targets"] if enemies_in(st, [h], side)]
    if not cur["targets"]:
        _cancel(cur, "no enemy left")
        return events + [Event("assault_cancelled", side, "JdG [8.1]",
                               f"combat {cur['id']}: no enemy is left in the hex attacked")]
    if cur["origin"] != "pursuit":
        for u in enemies_in(st, cur["targets"], side):
            if u.id not in c["assaulted"]:
                c["assaulted"].append(u.id)
    cur["defenders_at_start"] = {h: [u.id for u in enemies_in(st, [h], side)] for h in cur["targets"]}
    return events


# -- refusal [8.8]: combat/refusal.py ------------------------------------------------------------

def _stage_refuse(sc, st, cur, stream):
    from engine.jdg.combat import refusal
    return refusal.stage_refuse(sc, st, cur, stream)


# -- engagement check [8.2], [8.4] ------------------------------------------------------------------

def _stage_check(sc, st, cur, stream) -> list[Event]:
    """[8.2] L481-485, [8.4] L500: Without Orders, one engagement check at resolution (HERALD D15)
    for the combined assault, with the best engagement value among the top units of the attacking
    stacks (HERALD D40); a failure stops every Without-Orders unit of it; With-Orders units attack
    alone. Breakthroughs, counter-assaults and pursuits need none ([8.7] L561, [9.5] L668);
    cavalry checked before its charge move ([9.1] L599)."""
    if cur["origin"] != "declared":
        return []
    att = _attackers(st, cur)
    need = [u for u in att if u.arm == "infantry" and u.assault == "choc_test"]
    if not need:
        return []
    tops = []
    for h in sorted({u.hex for u in need}):
        stack = [u for u in st.units_at(h) if u.id in cur["attackers"] and u.arm != "artillery"]
        top = stack[0] if stack else None
        if top is not None and top in need:
            tops.append(top)
    if not tops:
        tops = need
    best = max(tops, key=lambda u: (engagement(sc, u), u.id))
    passed, ev = checks.check(stream, cur["side"], engagement(sc, best),
                              f"engagement check of {name_of(sc, best)} (Choc/Test)", "JdG [8.2], [8.4]",
                              roller=cur["side"], kind="engagement_check")
    ev.inputs = {"unit": best.id, "for": [u.id for u in need], "combat": cur["id"]}
    events = [ev]
    if not passed:
        cur["attackers"] = [a for a in cur["attackers"] if st.units[a] not in need]
        cur["check_failed"] = True
        for u in need:
            u.acted = True
        if not cur["attackers"]:
            _cancel(cur, "the engagement check failed")
            events.append(Event("assault_cancelled", cur["side"], "JdG [8.2]",
                                f"{', '.join(name_of(sc, u) for u in need)} do not assault "
                                f"{', '.join(cur['targets'])}: the engagement check failed"))
        else:
            events.append(Event("assault_reduced", cur["side"], "JdG [8.2], [8.4]",
                                f"{', '.join(name_of(sc, u) for u in need)} stay back (engagement failed); "
                                f"the units With Orders attack alone (HERALD D40)"))
    return events


# -- charge reactions (combat/charge.py) -------------------------------------------------------------

def _stage_square(sc, st, cur, stream):
    from engine.jdg.combat import charge
    return charge.stage_square(sc, st, cur, stream)


def _stage_recall(sc, st, cur, stream):
    from engine.jdg.combat import charge
    return charge.stage_recall(sc, st, cur, stream)


def _stage_counter_charge(sc, st, cur, stream):
    from engine.jdg.combat import charge
    return charge.stage_counter_charge(sc, st, cur, stream)


# -- reaction fire [8.3] ----------------------------------------------------------------------------

def _stage_reaction_fire(sc, st, cur, stream) -> list[Event]:
    """[8.3]: the defending artillery fires at one attacker in its frontal hexes, after any
    engagement check and before resolution (HERALD D44), by the defender's policy
    "reaction_fire" (fire/reaction.py); a unit it disorders does not attack (L493)."""
    from engine.jdg.fire.reaction import reaction_fire as fire, reaction_fire_options as options
    events: list[Event] = []
    for h in list(cur["targets"]):
        key = f"fire:{h}"
        if key in cur["answers"]:
            continue
        cur["answers"][key] = "done"
        att = _attackers(st, cur)
        if not att or not options(sc, st, h, att):
            continue
        events += fire(sc, st, h, att, stream, then="combat_continue", then_side=cur["side"])
        if st.pending:
            return events
    stopped = [u for u in _attackers(st, cur) if u.condition != "good"]
    gone = [a for a in cur["attackers"] if not st.units[a].alive]
    if stopped or gone:
        cur["attackers"] = [u.id for u in _attackers(st, cur) if u.condition == "good"]
        if stopped:
            events.append(Event("assault_reduced", cur["side"], "JdG [8.3]",
                                f"{', '.join(name_of(sc, u) for u in stopped)} disordered by reaction fire: "
                                "no longer attacks"))
        if not cur["attackers"]:
            _cancel(cur, "every attacker was stopped by reaction fire")
    return events


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


# -- advance, breakthrough, counter-assault and pursuit [8.7], [9.5]: combat/advance.py -------------

def _stage_advance(sc, st, cur, stream):
    from engine.jdg.combat import advance
    return advance.stage_advance(sc, st, cur, stream)


def _stage_follow(sc, st, cur, stream):
    from engine.jdg.combat import advance
    return advance.stage_follow(sc, st, cur, stream)


def _stage_end(sc, st, cur, stream) -> list[Event]:
    return []


def _finish(sc, st: JdgState, cur: dict, stream) -> list[Event]:
    """A combat is over. Once no combat of its charge remains (pursuits included), every cavalry
    unit that took part is disordered, besides any result ([9.2] L619, [9.5] L670, HERALD D55);
    not one whose charge was refused or recalled, which never reached the table (HERALD D51, D54)."""
    c = combat_state(st)
    g = cur.get("group")
    if not g or g not in c["groups"]:
        return []
    if any(d.get("group") == g for d in c["queue"]):
        return []
    c.setdefault("closing", []).append(g)
    return []


def _close_groups(sc, st: JdgState, stream) -> list[Event]:
    c = combat_state(st)
    events: list[Event] = []
    while c.get("closing") and not st.pending:
        g = c["closing"][0]
        members = c["groups"].get(g, [])
        if not members:
            c["closing"].pop(0)
            c["groups"].pop(g, None)
            continue
        uid = members.pop(0)
        u = st.units[uid]
        u.charge = False
        if u.alive and uid in c.get("charged", []):
            events += results.disorder(sc, st, u, stream, "JdG [9.2], [9.5]",
                                          "the end of its charge, after every pursuit (HERALD D55)")
    return events


STAGE_FUNCS = {
    "start": _stage_start, "refuse": _stage_refuse, "check": _stage_check, "square": _stage_square,
    "recall": _stage_recall, "counter_charge": _stage_counter_charge, "reaction_fire": _stage_reaction_fire,
    "roll": _stage_roll, "effects": _stage_effects, "advance": _stage_advance, "follow": _stage_follow, "end": _stage_end,
}


# == the answers [8.7], [8.8], [8.3] ================================================================

def _current_for(st: JdgState) -> dict:
    c = combat_state(st)
    cur = c["current"]
    if cur is None or st.pending is None or st.pending.get("combat") != cur["id"]:
        raise Illegal("no combat is waiting for this answer", "JdG [8]")
    return cur


def resume_simple(sc, st, side, answer, more, stream) -> list[Event]:
    """An answer that is one of the offered options (breakthrough, counter-assault, reaction
    fire, square, recall, counter-charge, pursuit)."""
    cur = _current_for(st)
    if more:
        raise Illegal(f"`react {answer}` takes nothing more", st.pending.get("section", SECTION))
    cur["answers"][st.pending["key"]] = answer
    st.pending = None
    return resolve_all(sc, st, stream)


def do_breakthrough(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`breakthrough <unit|none>` [8.7]: the attacker's answer after a 10 or more."""
    p = st.pending
    if not p or p.get("kind") != "breakthrough" or p["side"] != side:
        raise Illegal("no breakthrough is offered: it follows an assault result of 10 or more", "JdG [8.7]")
    if len(cmd.args) != 1:
        raise CannotParse("usage: breakthrough <unit|none>")
    answer = cmd.args[0].lower()
    if answer not in p["options"]:
        raise Illegal(f"answer one of: {', '.join(p['options'])}", "JdG [8.7]")
    return resume_simple(sc, st, side, answer, [], stream)


rules.register("assault", do_assault, "assault <units...> on <hex>: infantry assault (JdG [8.1], [8.2], [8.4])")
rules.register("resolve", do_resolve, "resolve: resolve the declared assaults and charges (JdG [8.5], [9.2])")
rules.register("breakthrough", do_breakthrough, "breakthrough <unit|none>: after a 10 or more (JdG [8.7])")
from engine.jdg.combat import refusal as _refusal  # noqa: E402,F401  (registers "refuse_assault")
for _kind in ("breakthrough", "counter_assault", "square", "recall", "counter_charge", "pursuit"):
    rules.register_reaction(_kind, resume_simple)
rules.register_reaction("combat_continue", lambda sc, st, side, answer, more, stream: resolve_all(sc, st, stream))
from engine.jdg.combat import retreat as _retreat  # noqa: E402
_retreat.register_continuation("jdg_combat", _continue)

from engine.jdg.combat import charge  # noqa: E402,F401  (registers `charge`)


def _resolve_first(sc, st: JdgState) -> str:
    """[8.5], HERALD D16: declared assaults and charges are binding; the step does not end before
    they are resolved."""
    if declared(st):
        return "the declared assaults and charges are binding: `resolve` them first (or `next`)"
    return ""


def _combat_step_end(sc, st: JdgState, side: str, stream) -> list[Event]:
    """`next` at the assault and charge step resolves what is declared (HERALD D16). Not in
    resumable stages: `next` (sequence/activation.py) holds the activation across this hook."""
    return resolve_all(sc, st, stream, staged=False) if declared(st) else []


rules.register_step_guard("combat", _resolve_first)
from engine.jdg.sequence import activation as _activation  # noqa: E402
_activation.on_step_end("combat", _combat_step_end)
