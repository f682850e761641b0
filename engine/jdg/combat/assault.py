"""Infantry assaults [8]: declaring them [8.1], [8.2], [8.4] and the modifiers of the Assault &
Charge table [8.6] (JdG Classique), with the record of the activation's combats (`st.combat`) that
the declarations fill and the resolution reads.

Commands (the combat step of the activation, [1.D], [2.4]):
- `assault <units...> on <hex>`: infantry of the active formation declares an assault on an
  enemy hex in its frontal hexes [6.1], [8.1]; several units on one hex make one combined
  assault [8.4] (a second declaration on a hex already assaulted joins the first: an enemy unit
  is assaulted once per activation, [8.1] L473). A "Choc" marker With Orders, "Choc/Test"
  Without ([8.2] L479; `Unit.assault`). All assaults are declared before the first is resolved
  ([8.2] L477, HERALD D16).

The resolution of every declared assault and charge [8.5] (`resolve`, the answers, the
`breakthrough` verb [8.7]) is in combat/resolution.py, the roll on the Assault & Charge table
and its results [8.5], [8.9], [10] in combat/assault_table.py; charges [9] are declared as
cavalry moves (combat/charge.py). What remains to resolve lives in `st.combat` (reset at each
activation, `combat_state`), so a decision answered later picks the resolution up where it
stopped.

Functions for other modules:
  assault_odds_for(sc, st, attackers, target_hex) -> {band key: Fraction}    (/odds, menus)
  combat_modifiers(sc, st, attackers, target_hexes, ...) -> [Modifier]       the DRMs of a combat
  declared(st) -> bool                             assaults or charges wait to be resolved
  add_declaration(sc, st, side, attackers, target_hex, kind)   an assault or a charge declared
  (combat/resolution.py: resolve_all(sc, st, stream) -> [Event], resolve them)

HERALD readings (DECISIONS.md): D16 (declared assaults are binding), D30 (strengths), D31 (six
fronts -1), D40 (combined assault), D41-D43 (ratio, cohesion, terrain: each chooser's best),
D47 (artillery alone).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event, Modifier
from engine.core import facing as core_facing

from engine.jdg import geometry, rules, tables
from engine.jdg.combat import results  # noqa: F401  (charge.py reads A.results)
from engine.jdg.combat.results import cohesion, engagement, is_night, name_of  # noqa: F401  (charge.py reads A.*)
from engine.jdg.sequence.command import may_act, unit_with_orders
from engine.jdg.state import JdgState, Unit

SECTION = "JdG [8]"


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


rules.register("assault", do_assault, "assault <units...> on <hex>: infantry assault (JdG [8.1], [8.2], [8.4])")
