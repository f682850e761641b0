"""Melee [8], [9 A-D], [12 C], [12 E-G]: the verb `fight`.

    fight <enemy> [with] [<unit>[+<unit>...] ...]     on your combat card [3], [13]

Procedure, after the text:
- Who [8 A], [8 D] (HERALD D88): the attackers are your units touching the enemy (all of them
  that have not fought on this card when none are named); a unit fights one melee per combat
  card, and so does the enemy it attacks, so every unit attacking it attacks together. Guns and
  generals never attack (they defend: artillery d3, a general alone d4). A disordered unit
  already in contact may fight ([9 A] forbids closing, not fighting). A unit in a town is
  attacked only by musketeers, militia and dismounted dragoons [5 B]. A general attached to a
  unit is not attacked alone: attack the unit.
- How many [8 A], [12 E-F] (HERALD D89, tables.ATTACKERS_PER_FACE): one attacker per edge; a P&S
  two on its front and two on its rear (one if a P&S or Tercio is among them); a Tercio two per
  edge.
- The roll [8 A-D], [9 A], [12 C], [12 E-G] (HERALD D90, D91): each side rolls its melee die
  (dismounted dragoons and detached musketeers d4, d6 in cover), one size smaller when
  disordered (checks.disorder_die: the text's "disordered pikes defend with 1d10 instead of
  1d12"); a P&S or Tercio attacked by two units or more adds its second die (1d8, late P&S 1d6,
  one size smaller with its musketeers detached); a Tercio always adds 1d3 ("rolls 1d12, 1d8 and
  1d3" against two); an attacker on a flank or the rear adds 1d3 when the enemy is engaged on two
  different edges (a Tercio has no flanks: only its rear, and only with another edge engaged); a
  general touching his units in the melee and no enemy adds 1d3 to one of them, once per combat
  card; elite +1, untrained -1.
- The result [8 A], [8 C] (HERALD D90): the defender's one total is compared separately with
  each attacker's: the lower is disordered (a hit, melee/results.py), each lost comparison a
  hit. A tie does nothing, except that cavalry, P&S (Tercios) or pikemen attacking uphill, or
  cavalry or pikemen attacking into woods, are disordered (HERALD D19).
- Then [8 E], [9 B-C] (melee/results.py): guns spiked or captured, generals at risk, the loser's
  5 cm retreat facing the enemy, the winner's follow-up.

Other modules call: `fight_targets(sc, st, side)` (completions and the combat card's check),
`attackers_of(sc, st, side, enemy)`, `can_fight(sc, st, side)`, `resolve_melee` (odds, tests).
"""
from __future__ import annotations

import math

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.table.geometry import CONTACT_TOL, centre, contact_edge, distance_floor, reach_radius

from engine.lion import checks, rules, tables
from engine.lion.fire import sight
from engine.lion.fire.sight import fmt, is_general, is_tercio, owner, terrain, troop
from engine.lion.melee import results

USAGE = "fight <enemy> [<unit>+<unit>...]: melee against an enemy your units touch (LdN [8])"
EDGE_ORDER = ("front", "left", "right", "rear")
WIDE = ("pike_and_shot", "late_pike_and_shot", "tercio")


def phase_key(st) -> str:
    """The combat card in play, for "once per phase" [8 A], [8 D]: "turn:card number"."""
    return f"{st.turn}:{len(st.drawn)}"


def edge_of(defender, attacker) -> str | None:
    """The edge of the defender the attacker touches (HERALD D6), or None."""
    return contact_edge(checks.pose(defender), checks.footprint(defender),
                        checks.pose(attacker), checks.footprint(attacker))


def limit_of(defender, edge: str, attackers: list) -> int:
    """How many units may attack this edge [8 A], [12 E-F] (tables.ATTACKERS_PER_FACE)."""
    key = "default" if is_general(defender) else defender.type
    per = tables.ATTACKERS_PER_FACE.get(key, tables.ATTACKERS_PER_FACE["default"])[edge]
    if key in ("pike_and_shot", "late_pike_and_shot") and edge in ("front", "rear"):
        if any(not is_general(a) and a.type in WIDE for a in attackers):
            return 1
    return per


def in_cover(sc, obj) -> bool:
    """Dismounted dragoons "al coperto" [12 C] (HERALD D18): in woods, a town, or touching a wall
    or defences."""
    ter = terrain(sc)
    p = sight.poly(obj)
    if {"woods", "town"} & ter.kinds_at(p):
        return True
    return any(f.kind in ("wall", "defences") and f.geometry.distance(p) <= sight.EDGE_DEPTH
               for f in ter.features)


def in_town(sc, obj) -> bool:
    return "town" in terrain(sc).kinds_at(sight.poly(obj))


def fight_problem(sc, st, side: str, u, enemy) -> str:
    """Why `u` may not attack `enemy` now ("" when it may) [8 A], [8 D], [5 B]."""
    name = rules.named(sc, u.id)
    if not u.alive or owner(u) != side:
        return f"{name} is not one of your live units"
    t = troop(u)
    if not t.attacks:
        return f"{name} ({t.name}) never attacks: guns and generals only defend (LdN [8 D])"
    if u.fought:
        return f"{name} has already fought a melee on this card: one melee per unit per phase (LdN [8 A])"
    if edge_of(enemy, u) is None:
        d = checks.base_distance(u, enemy)
        return (f"{name} is not in contact with {rules.named(sc, enemy.id)}: {fmt(d)} cm apart "
                f"(contact is {fmt(CONTACT_TOL)} cm or less, HERALD D3) (LdN [8 A])")
    if not is_general(enemy) and in_town(sc, enemy) and not t.occupies_towns:
        return (f"{rules.named(sc, enemy.id)} is in a town: only musketeers, militia and dismounted dragoons "
                f"attack or defend towns (LdN [5 B])")
    return ""


def attackers_of(sc, st, side: str, enemy) -> list:
    """Every unit of `side` that may attack `enemy` now, in id order. A unit whose cheap lower
    bound of the distance (geometry.distance_floor) is beyond contact is passed over unmeasured:
    fight_problem would find it not in contact [8 A]."""
    pe, fe = checks.pose(enemy), checks.footprint(enemy)
    far = CONTACT_TOL + sight.ROUNDING
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and owner(u) == side
            and distance_floor(checks.pose(u), checks.footprint(u), pe, fe) <= far
            and not fight_problem(sc, st, side, u, enemy)]


def target_problem(sc, st, side: str, enemy) -> str:
    name = rules.named(sc, enemy.id)
    if is_general(enemy):
        if enemy.attached_to:
            return (f"{name} is attached to {rules.named(sc, enemy.attached_to)}: attack the unit, he shares "
                    f"its fate (LdN [9 C])")
        if getattr(enemy, "fought", "") == phase_key(st):
            return (f"{name} has already been attacked on this card: a general alone fights one melee "
                    f"per phase, like a unit (LdN [8 A], HERALD D120)")
        return ""
    if enemy.fought:
        return (f"{name} has already fought a melee on this card: a unit fights one melee per phase, "
                f"so all its attackers attack together (LdN [8 A])")
    return ""


def fight_targets(sc, st, side: str) -> list[str]:
    """The enemies `side` may attack now (ids), for completions and the combat card's check."""
    out = []
    foes = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.alive and owner(u) != side]
    foes += [g for g in sorted(st.generals.values(), key=lambda g: g.id) if g.alive and g.side != side]
    mine = [_disc(u) for u in st.units.values() if u.alive and owner(u) == side]
    far = CONTACT_TOL + sight.ROUNDING
    for e in foes:
        if target_problem(sc, st, side, e):
            continue
        ex, ey, er = _disc(e)
        if not any(math.hypot(ex - x, ey - y) - r - er <= far for x, y, r in mine):
            continue            # nobody of `side` near enough to touch it: attackers_of finds none
        if attackers_of(sc, st, side, e):
            out.append(e.id)
    return out


def _disc(obj) -> tuple[float, float, float]:
    """A base's centre and half diagonal: every point of it lies within that circle."""
    p, f = checks.pose(obj), checks.footprint(obj)
    x, y = centre(p, f)
    return x, y, reach_radius(f)


def can_fight(sc, st, side: str) -> bool:
    return bool(fight_targets(sc, st, side))


# -- the dice ------------------------------------------------------------------------------------------

def supporting_general(sc, st, unit, used: set[str]):
    """[8 D] a live general of the unit's side touching it and touching no enemy, who has not
    given his 1d3 on this combat card (HERALD D91)."""
    side = owner(unit)
    key = phase_key(st)
    for g in sorted(st.generals.values(), key=lambda g: g.id):
        if not g.alive or g.side != side or g.id in used or g.supported == key:
            continue
        if g.attached_to != unit.id and checks.base_distance(g, unit) > CONTACT_TOL:
            continue
        if results.enemies_touching(st, g):
            continue
        return g
    return None


def side_dice(sc, st, obj, *, attackers: int = 1, flank: bool = False, used_generals: set[str],
              role: str) -> dict:
    """One combatant's dice and modifiers [8 A-D], [9 A], [12 C], [12 E-G], decided before any
    die is rolled (none depends on another's value): its melee die (in cover, disordered), a
    P&S's or Tercio's second die, a Tercio's 1d3, a flank attack's 1d3, a supporting general's
    1d3 (given now: he is used for this card), its quality. `plan`: (sides, purpose) of each
    die, in the order rolled."""
    name = rules.named(sc, obj.id)
    t = troop(obj)
    notes: list[dict] = []
    if is_general(obj):
        die = t.melee_die
        notes.append({"reason": "a general defends with 1d4", "section": "LdN [8 D]"})
    else:
        die = t.melee_die
        if t.melee_die_cover and in_cover(sc, obj):
            die = t.melee_die_cover
            notes.append({"reason": f"{t.name} in cover: d{die}", "section": "LdN [12 C], [12 G]"})
        die, dmods = checks.disorder_die(obj, sc, die)
        for m in dmods:
            notes.append({"reason": m.reason, "section": m.section, "steps": -m.value})
    d2 = 0
    if not is_general(obj) and t.second_die and attackers >= 2:
        d2 = t.second_die
        if obj.detached_musketeers:
            d2 = tables.step_down(d2)
    tercio = not is_general(obj) and obj.type == "tercio"
    general = None if is_general(obj) else supporting_general(sc, st, obj, used_generals)
    q = None if is_general(obj) else checks.quality_modifier(sc, obj)
    plan = [(die, f"melee die of {name}")]
    if d2:
        plan.append((d2, f"second die of {name} (attacked by two)"))
    if tercio:
        plan.append((tables.TERCIO_DIE, f"Tercio's 1d3 of {name}"))
    if flank:
        plan.append((tables.FLANK_DIE, f"flank attack 1d3 of {name}"))
    if general is not None:
        plan.append((tables.GENERAL_SUPPORT_DIE, f"1d3 of {rules.named(sc, general.id)} with {name}"))
        used_generals.add(general.id)
        general.supported = phase_key(st)
    return {"obj": obj, "name": name, "role": role, "die": die, "d2": d2, "tercio": tercio, "flank": flank,
            "general": general, "q": q, "notes": notes, "plan": plan}


def side_roll(sc, st, side: dict, values: list[int], dice: list[DieRoll]) -> dict:
    """One combatant's roll once its dice are rolled (`side_dice`'s plan): the dice, the
    modifiers and the total [8 A-D]."""
    obj, name, notes, q, general = side["obj"], side["name"], side["notes"], side["q"], side["general"]
    parts: list[str] = []
    mods: list[Modifier] = []
    it = iter(values)
    value = next(it)
    parts.append(f"d{side['die']} {value}" + (f" ({'; '.join(n['reason'] for n in notes)})" if notes else ""))
    total = value
    if side["d2"]:
        v2 = next(it)
        parts.append(f"+ d{side['d2']} {v2} (attacked by two)")
        total += v2
    if side["tercio"]:
        v3 = next(it)
        parts.append(f"+ d3 {v3} (Tercio)")
        total += v3
    if side["flank"]:
        vf = next(it)
        parts.append(f"+ d3 {vf} (flank)")
        total += vf
    if general is not None:
        vg = next(it)
        parts.append(f"+ d3 {vg} ({rules.named(sc, general.id)})")
        total += vg
    if q is not None:
        mods.append(Modifier(q.value, f"{name}: {q.reason}", q.section))
        parts.append(f"{q.value:+d} ({q.reason.split(':')[0]})")
        total += q.value
    return {"id": obj.id, "role": side["role"], "die": side["die"], "dice": list(dice), "parts": parts,
            "total": total, "modifiers": mods, "notes": notes, "general": general.id if general else ""}


def roll_sides(sc, st, sides: list[dict], stream: DiceStream, rollers: list[str | None]) -> list[dict]:
    """Roll the melee [8 A], [8 C]: the attackers' dice, then the defender's (the last of
    `sides`), each side's added into one total and compared with the defender's.

    What the rules read of these dice (issue 13): only how each attack total compares with the
    defence total (lower, tie or higher: [8 A] "chi ottiene il valore minore viene
    disordinato", [8 C] each attacker compared separately); no single face does anything of its
    own (the gun explosion's natural 1 is a shot's, [7 E], HERALD D84). So the rolls are made
    with checks.roll_totals, reading that comparison: a what-if tries each comparison once,
    weighted by its number of dice sequences. The totals themselves are written only for
    people (the melee's event, st.last_action for the picture: no rule of a melee, no summary
    reads them)."""
    *qa, qd = [s["q"].value if s["q"] is not None else 0 for s in sides]

    def compared(totals: tuple[int, ...]) -> tuple[int, ...]:
        """Each attack total against the defence total (the last): 1 higher, 0 tie, -1 lower."""
        d = totals[-1] + qd
        return tuple([(a + q > d) - (a + q < d) for a, q in zip(totals, qa)])

    rolled = checks.roll_totals(stream, [s["plan"] for s in sides], compared, rollers)
    return [side_roll(sc, st, s, values, records) for s, (values, records) in zip(sides, rolled)]


def tie_loses(sc, st, attacker, defender) -> str:
    """[8 B], [Tabella riassuntiva] (HERALD D19): why a tie disorders this attacker ("" if not)."""
    t = troop(attacker)
    ter = terrain(sc)
    ca = centre(checks.pose(attacker), checks.footprint(attacker))
    cd = centre(checks.pose(defender), checks.footprint(defender))
    uphill_type = t.arm == "cavalry" or attacker.type in tables.TIE_UPHILL_TYPES
    if uphill_type and ter.height_at(ca) < ter.height_at(cd):
        return "attacking uphill"
    woods_type = t.arm == "cavalry" or attacker.type in tables.TIE_WOODS_TYPES
    if woods_type and ter.in_woods(sight.poly(defender)):
        return "attacking into woods"
    return ""


# -- the melee ---------------------------------------------------------------------------------------

def resolve_melee(sc, st, side: str, defender, attackers: list, stream: DiceStream) -> list[Event]:
    """Roll the melee of `attackers` (side `side`) on `defender` and apply the results [8], [9]."""
    dside = owner(defender)
    dname = rules.named(sc, defender.id)
    edges = {a.id: edge_of(defender, a) for a in attackers}
    engaged = {edges[a.id] for a in attackers}
    if is_general(defender):
        flanked: set[str] = set()
    elif is_tercio(defender):
        flanked = {a.id for a in attackers if edges[a.id] == "rear" and len(engaged) >= 2}
    else:
        flanked = {a.id for a in attackers if edges[a.id] != "front" and len(engaged) >= 2}
    used: set[str] = set()
    sides = [side_dice(sc, st, a, flank=a.id in flanked, used_generals=used, role="attacker") for a in attackers]
    sides.append(side_dice(sc, st, defender, attackers=len(attackers), used_generals=used, role="defender"))
    *rolls, drow = roll_sides(sc, st, sides, stream, [None] * len(attackers) + [dside])
    dtotal = drow["total"]
    comparisons = []
    for a, r in zip(attackers, rolls):
        atotal = r["total"]
        if atotal > dtotal:
            loser, why = defender.id, ""
        elif atotal < dtotal:
            loser, why = a.id, ""
        else:
            why = tie_loses(sc, st, a, defender)
            loser = a.id if why else ""
        comparisons.append({"attacker": a.id, "edge": edges[a.id], "attack": atotal, "defence": dtotal,
                            "loser": loser, "tie": atotal == dtotal, "tie_rule": why,
                            "flank": a.id in flanked})
    # the event of the roll
    dice = [d for r in rolls for d in r["dice"]] + drow["dice"]
    mods = [m for r in rolls for m in r["modifiers"]] + drow["modifiers"]
    lines = []
    for a, r, c in zip(attackers, rolls, comparisons):
        aname = rules.named(sc, a.id)
        vs = (f"{aname} on its {c['edge']}{' (flank attack)' if c['flank'] else ''}: {' '.join(r['parts'])} = "
              f"{r['total']} against {dtotal}: ")
        if c["loser"] == defender.id:
            vs += f"{dname} loses"
        elif c["loser"] == a.id and c["tie"]:
            vs += f"tie, {aname} loses ({c['tie_rule']})"
        elif c["loser"] == a.id:
            vs += f"{aname} loses"
        else:
            vs += "tie, no effect"
        lines.append(vs)
    narrative = (f"Melee: {dname} ({' '.join(drow['parts'])} = {dtotal}) attacked by "
                 + "; ".join(lines))
    outcome = {"defender": defender.id, "attackers": [a.id for a in attackers], "defence": dtotal,
               "comparisons": comparisons}
    events = [Event("melee", side, "LdN [8 A], [8 C]", narrative,
                    inputs={"defender": _plain(drow), "attackers": [_plain(r) for r in rolls], "edges": edges,
                            "flank": sorted(flanked)},
                    modifiers=mods, dice=dice, table="melee: the lower total is disordered",
                    row="; ".join(f"{c['attack']} v {c['defence']}" for c in comparisons), outcome=outcome)]
    # mark who fought [8 A]
    for a in attackers:
        a.fought = True
    if not is_general(defender):
        defender.fought = True
    else:
        defender.fought = phase_key(st)     # a lone general: once per combat card (HERALD D120)
    st.last_action = {"kind": "melee", "defender": defender.id, "attackers": [a.id for a in attackers],
                      "edges": edges, "comparisons": comparisons}
    events += apply_results(sc, st, side, defender, attackers, comparisons, stream)
    return events


def _plain(r: dict) -> dict:
    """A roll's record for the event's inputs (plain data)."""
    out = {k: v for k, v in r.items() if k not in ("dice", "modifiers")}
    out["modifiers"] = [f"{m.value:+d} {m.reason}" for m in r["modifiers"]]
    return out


def apply_results(sc, st, side: str, defender, attackers: list, comparisons: list[dict],
                  stream: DiceStream) -> list[Event]:
    """The hits, generals at risk, retreats and follow-ups of one melee [8 E], [9 A-C]."""
    events: list[Event] = []
    dside = owner(defender)
    by_id = {a.id: a for a in attackers}
    lost_to = [by_id[c["attacker"]] for c in sorted(comparisons, key=lambda c: EDGE_ORDER.index(c["edge"]))
               if c["loser"] == defender.id]
    losing_attackers = [by_id[c["attacker"]] for c in comparisons if c["loser"] == c["attacker"]]
    # which winner each loser touched with its front, before anything moves (HERALD D94)
    front_of = {}
    if lost_to:
        w = lost_to[0]
        front_of[defender.id] = edge_of(w, defender) == "front"
    for a in losing_attackers:
        front_of[a.id] = (not is_general(defender)) and edge_of(defender, a) == "front"
    # hits [9 A-B]; a lone general's risk [9 C]
    general_losers = []
    if lost_to:
        if is_general(defender):
            general_losers.append((defender, lost_to[0]))
        else:
            for w in lost_to:
                if not defender.alive or defender.captured_by == side:
                    break
                events += results.apply_loss(sc, st, defender, side, stream, f"lost the melee to {rules.named(sc, w.id)}")
    for a in losing_attackers:
        events += results.apply_loss(sc, st, a, dside, stream, f"lost the melee to {rules.named(sc, defender.id)}")
    # retreats [8 E]
    # (the attackers first, from the defender where it stood; then the defender from its victor)
    retreats: dict[str, dict] = {}
    for a in losing_attackers:
        if a.alive and owner(a) == side:
            got, info = results.retreat(sc, st, a, defender)
            events += got
            retreats[a.id] = info
    if lost_to and not is_general(defender) and defender.alive and owner(defender) == dside:
        got, info = results.retreat(sc, st, defender, lost_to[0])
        events += got
        retreats[defender.id] = info
    # generals at risk [9 C]
    for g, w in general_losers:
        away = _away_from(w, g)
        events += results.general_risk(sc, st, g, "melee", stream, f"lost the melee to {rules.named(sc, w.id)}", away)
    for loser in ([defender] if lost_to and not is_general(defender) else []) + losing_attackers:
        info = retreats.get(loser.id, {})
        w = lost_to[0] if loser is defender else defender
        for g in results.generals_with(st, loser) if loser.alive else _generals_of_dead(st, loser):
            carried = g.id in (info.get("carried") or [])
            away = info.get("away") or _away_from(w, g)
            events += results.general_risk(sc, st, g, "melee", stream,
                                           f"with {rules.named(sc, loser.id)}, which lost the melee", away, carried)
    # follow-ups [8 E] (HERALD D94)
    queue = []
    if lost_to:
        w = lost_to[0]
        loser_gone = not defender.alive
        if front_of.get(defender.id) and _may_follow(st, w, defender):
            moved = tables.RETREAT_DISTANCE if loser_gone else retreats.get(defender.id, {}).get("moved", 0.0)
            if not is_general(defender) and defender.alive and defender.captured_by == side:
                moved = 0.0
            if is_general(defender):
                moved = 0.0
            if moved > 0:
                queue.append({"unit": w.id, "distance": moved, "loser": defender.id})
    if losing_attackers and not is_general(defender) and defender.alive and owner(defender) == dside:
        fronts = [a for a in losing_attackers if front_of.get(a.id)]
        if fronts:
            a = fronts[0]
            if _may_follow(st, defender, a, ignore={x.id for x in losing_attackers}):
                moved = tables.RETREAT_DISTANCE if not a.alive else retreats.get(a.id, {}).get("moved", 0.0)
                if a.alive and a.captured_by:
                    moved = 0.0
                if moved > 0:
                    queue.append({"unit": defender.id, "distance": moved, "loser": a.id})
    if queue:
        events += results.run_follow_ups(sc, st, queue, stream)
    return events


def _generals_of_dead(st, unit) -> list:
    """Generals who were with a unit just destroyed (checks.hit detached them): those of its side
    still touching where it stood."""
    return [g for g in sorted(st.generals.values(), key=lambda g: g.id)
            if g.alive and g.side == unit.side and checks.base_distance(g, unit) <= CONTACT_TOL]


def _away_from(winner, obj) -> tuple[float, float]:
    """The unit vector from the winner's centre to `obj`'s (a general's withdrawal)."""
    wx, wy = centre(checks.pose(winner), checks.footprint(winner))
    ox, oy = centre(checks.pose(obj), checks.footprint(obj))
    dx, dy = ox - wx, oy - wy
    n = (dx * dx + dy * dy) ** 0.5
    if n == 0:
        from engine.core.table.geometry import forward
        fx, fy = forward(winner.facing)
        return fx, fy
    return dx / n, dy / n


def _may_follow(st, winner, loser, ignore: set[str] | None = None) -> bool:
    """HERALD D94: a live unit that moves (no guns, no generals), touching no enemy but the loser
    (and the `ignore`d losers)."""
    if is_general(winner) or not winner.alive:
        return False
    t = troop(winner)
    if t.arm == "artillery" or not t.moves:
        return False
    skip = {loser.id} | (ignore or set())
    return not [e for e in results.enemies_touching(st, winner) if e.id not in skip]


# -- the verb ------------------------------------------------------------------------------------------

def read_words(sc, st, side: str, args: tuple[str, ...]):
    if not args:
        raise CannotParse("usage: " + USAGE)
    words = list(args)
    enemy_word, rest = words[0], words[1:]
    if rest and rest[0] == "with":
        rest = rest[1:]
    names = [n for w in rest for n in w.split("+") if n]
    return enemy_word, names


def find_enemy(sc, st, side: str, word: str):
    w = (word or "").lower()
    g = st.generals.get(word) or st.generals.get(w)
    if g is not None and g.alive and g.side != side:
        return g
    u = st.units.get(word) or st.units.get(w)
    if u is not None and u.alive and owner(u) != side:
        return u
    return rules.enemy_of(sc, st, side, word)


def do_fight(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`fight <enemy> [units]` on `side`'s combat card [8], [3], [13]."""
    rules.need_card(st, side, ("combat",))
    enemy_word, names = read_words(sc, st, side, cmd.args)
    enemy = find_enemy(sc, st, side, enemy_word)
    problem = target_problem(sc, st, side, enemy)
    if problem:
        raise Illegal(problem)
    if names:
        attackers = []
        for n in names:
            u = st.units.get(n) or st.units.get(n.lower())
            if u is None or not u.alive or owner(u) != side:
                u = rules.unit_of(sc, st, side, n)
            why = fight_problem(sc, st, side, u, enemy)
            if why:
                raise Illegal(why)
            if u not in attackers:
                attackers.append(u)
    else:
        attackers = attackers_of(sc, st, side, enemy)
        if not attackers:
            touching = [u for u in sorted(st.units.values(), key=lambda u: u.id)
                        if u.alive and owner(u) == side and edge_of(enemy, u) is not None]
            if touching:
                raise Illegal(fight_problem(sc, st, side, touching[0], enemy))
            raise Illegal(f"none of your units is in contact with {rules.named(sc, enemy.id)}", "LdN [8 A]")
    by_edge: dict[str, list] = {}
    for a in attackers:
        by_edge.setdefault(edge_of(enemy, a), []).append(a)
    for edge in EDGE_ORDER:
        group = by_edge.get(edge, [])
        limit = limit_of(enemy, edge, group)
        if len(group) > limit:
            names_ = ", ".join(rules.named(sc, a.id) for a in group)
            raise Illegal(f"{len(group)} units attack the {edge} of {rules.named(sc, enemy.id)} ({names_}): at most "
                          f"{limit} there; name the attackers after the enemy", "LdN [8 A], [12 E-F]")
    return resolve_melee(sc, st, side, enemy, attackers, stream)


rules.register("fight", do_fight, USAGE)
if hasattr(rules, "register_card_check"):
    rules.register_card_check("combat", can_fight)
