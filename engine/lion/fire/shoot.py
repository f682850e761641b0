"""Shooting [7], [12 D-G], [9 C], [15] 1, 5, 6: the verb `shoot` and the contact fire [7 D].

    shoot <unit> <target> [from <face>]     on your shoot card [3], [13]

Procedure, after the text:
- Who [7], HERALD D80: a live unit of yours (a gun you captured works for you [9 B]) with a
  shooting die on the troop chart, once per shoot card; a Tercio once from each face, each face at
  a different enemy [12 F]; light and medium guns only deployed [6 A]; nobody in heavy rain
  [15] 6. A unit that moved may shoot; a unit in contact may shoot.
- At whom [7 A], [9 C] (fire/sight.py, HERALD D81-D82, D86): an enemy unit, or an enemy general
  more than 10 cm from every unit of his own side, in range, in the arc of the face, in sight
  (mortars see over everything [12 D]); in limited visibility only at short range [15] 1.
- The die [7 B], [9 A], [12 E-G], [15] 5 (HERALD D83): the type's shooting die, one size smaller
  for each of: disorder (a P&S from its first hit, a Tercio from its second), light rain, a
  Tercio's side or rear face, a P&S that detached its musketeers; never below a d3. Elite +1,
  untrained -1. Artillery (not mortars) firing at a base in contact with it adds 1d3 (canister
  [7 F]); medium and heavy guns firing at a Tercio add 1, not with canister [7 G].
- The hit [7 B], [TIRO]: the total at least the band's threshold (small arms 5/6/7, artillery
  6/8/10; mortars always long [12 D]). A d6 can never reach 7 (the text's own remark, [9 A]).
- A gun's natural 1 [7 E] (HERALD D84): another d6, a 1 and the gun explodes and is removed.
- Cover [7 C] (HERALD D18, D85): a target in woods, a town, or behind a wall or defences rolls a
  d6 (its quality counts, HERALD D17): 5-6 and it is not disordered; no save against mortars
  [12 D].
- Effect [9 A]: checks.hit (a second hit destroys; P&S three, Tercio four [12 E-F]); a general
  hit rolls 1d8 on the fire table [9 C]: 1-5 nothing, 6-7 wounded (a second wound kills), 8
  killed.

Contact fire [7 D], [3] cards 7-8 (HERALD D87): `contact_fire_step(sc, st, side, stream)`, called
by the card sequence after the enemy's move card: every unit of `side` that an enemy touched on
its front this turn (`Unit.contacted_by`; a Tercio on any face) fires once at the first of them
(a Tercio once per face), at short range, guns with canister, unless it is touched by an enemy on
a flank or the rear (Tercios excepted); one event each. A side's policy "contact_fire" set to
"never" skips it; anything else fires.

Other modules call: `contact_fire_step`, `legal_targets` (fire/sight.py, for completions),
`can_shoot(sc, st, side)` (the shoot card's check), `resolve_shot` (odds, tests).
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.table.geometry import contact_edge

from engine.lion import checks, rules, tables
from engine.lion.fire import sight
from engine.lion.fire.sight import fmt, is_general, is_tercio, owner, troop

USAGE = "shoot <unit> <target> [from <face>]: fire at an enemy in range, arc and sight (LdN [7])"
P_AND_S = ("pike_and_shot", "late_pike_and_shot", "tercio")


# -- finding the pieces named -----------------------------------------------------------------------

def own_shooter(sc, st, side: str, word: str):
    """A live unit working for `side` (its own, or a gun it captured [9 B])."""
    u = st.units.get(word) or st.units.get((word or "").lower())
    if u is not None and u.alive and checks.controller(u) == side:
        return u
    if u is not None and u.alive and u.side == side:
        raise Illegal(f"{rules.named(sc, u.id)} was captured by {u.captured_by.title()}: it works for "
                      f"them now", "LdN [9 B]")
    return rules.unit_of(sc, st, side, word)


def enemy_target(sc, st, side: str, word: str):
    """A live enemy unit (or a gun of yours the enemy captured) or an enemy general."""
    w = (word or "").lower()
    g = st.generals.get(word) or st.generals.get(w)
    if g is not None:
        if not g.alive:
            raise Illegal(f"{rules.named(sc, g.id)} is dead", "LdN [9 C]")
        if g.side == side:
            raise Illegal(f"{rules.named(sc, g.id)} is your own general", "LdN [7]")
        return g
    u = st.units.get(word) or st.units.get(w)
    if u is not None and u.alive and checks.controller(u) != side:
        return u
    return rules.enemy_of(sc, st, side, word)


# -- the die ----------------------------------------------------------------------------------------

def shooting_die(sc, st, u, face: str = "front") -> tuple[int, list[dict]]:
    """The die `u` shoots with and each size it lost, with its reason and rule (HERALD D83):
    disorder [9 A] (P&S from the first hit [12 E], Tercio from the second [12 F]; a looter
    [12 A]), light rain [15] 5, a Tercio's side or rear [12 F], detached musketeers [12 G]."""
    base = troop(u).shoot_die
    steps: list[dict] = []
    n, why, section = checks.disorder_steps(u)
    if n:
        steps.append({"steps": n, "reason": why, "section": section})
    if st.weather.get("rain") == "light":
        steps.append({"steps": 1, "reason": "light rain: firearms one die smaller", "section": "LdN [15] 5"})
    if is_tercio(u) and face != "front":
        steps.append({"steps": 1, "reason": f"a Tercio firing from its {face}: one die smaller",
                      "section": "LdN [12 F]"})
    if u.detached_musketeers and u.type in P_AND_S:
        steps.append({"steps": 1, "reason": "its musketeers are detached: one die smaller",
                      "section": "LdN [12 G]"})
    total = sum(s["steps"] for s in steps)
    return tables.step_down(base, total), steps


# -- one shot -----------------------------------------------------------------------------------------

def resolve_shot(sc, st, side: str, shooter, target, geo: dict, stream: DiceStream, *,
                 contact: bool = False, roller: str | None = None) -> list[Event]:
    """Roll one shot of `shooter` at `target` (geometry checked: `geo` from sight.check_target)
    and apply it [7 B-G], [9 A], [9 C], [12 D]. Returns the events."""
    t = troop(shooter)
    face = geo["face"]
    sname, tname = rules.named(sc, shooter.id), rules.named(sc, target.id)
    base = t.shoot_die
    die, steps = shooting_die(sc, st, shooter, face)
    mods: list[Modifier] = []
    q = checks.quality_modifier(sc, shooter)
    if q is not None:
        mods.append(q)
    value, dr = checks.roll(stream, die, f"shooting die of {sname}", roller)
    dice = [dr]
    canister = 0
    mortar = t.gun == "mortar"
    in_contact = sight.touching(shooter, target)
    if t.arm == "artillery" and not mortar and in_contact:
        canister, cr = checks.roll(stream, tables.CANISTER_DIE, f"canister of {sname} (+1d3)", roller)
        cr.effect = f"+{canister}"
        dice.append(cr)
    if t.gun in tables.DEEP_TARGET_GUNS and not is_general(target) and target.type == "tercio" and not canister:
        mods.append(Modifier(tables.DEEP_TARGET_BONUS, "medium or heavy guns at a Tercio (deep target)", "LdN [7 G]"))
    total = value + canister + sum(m.value for m in mods)
    need = geo["threshold"]
    hit = total >= need
    dr.effect = "hit" if hit else "miss"
    band = geo["band"]
    fire_class = tables.fire_class(t.arm)
    parts = [f"d{die} {value}"] + ([f"canister d3 {canister}"] if canister else []) + \
            [f"{m.value:+d} {m.reason}" for m in mods]
    shrunk = f" (d{base} one size smaller: {'; '.join(s['reason'] for s in steps)})" if steps else ""
    what = "Contact fire" if contact else "Shot"
    narrative = (f"{what}: {sname} at {tname}, {fmt(geo['distance'])} cm, {band} range"
                 + (" (mortars always long)" if mortar else "") + f": {' '.join(parts)} = {total}"
                 + f" against {need}: " + ("hit" if hit else "miss") + shrunk)
    best = die + sum(m.value for m in mods) + (tables.CANISTER_DIE if canister else 0)
    if not hit and best < need:
        narrative += f" (a d{die} cannot reach {need} [9 A])"
    events = [Event("shoot", owner(shooter), "LdN [7 B]", narrative,
                    inputs={"shooter": shooter.id, "target": target.id, "face": face,
                            "distance": geo["distance"], "band": band, "die": die, "base_die": base,
                            "die_steps": steps, "contact": contact, "canister": bool(canister)},
                    modifiers=mods, dice=dice, table=f"TIRO ({fire_class.replace('_', ' ')})",
                    row=f"{band}: {need} or more", outcome={"hit": hit, "total": total, "natural": value,
                                                              "threshold": need})]
    # mark the shot (HERALD D80)
    if not contact:
        if is_tercio(shooter):
            if len(shooter.shot_at) != len(shooter.shot_faces):
                shooter.shot_at = [""] * len(shooter.shot_faces)
            shooter.shot_faces.append(face)
            shooter.shot_at.append(target.id)
        shooter.shot = True
    st.last_action = {"kind": "shoot", "shooter": shooter.id, "target": target.id, "distance": geo["distance"],
                      "band": band, "arc": True, "face": face, "contact": contact, "hit": hit,
                      "from": [shooter.x, shooter.y], "to": [target.x, target.y]}
    # the gun explodes [7 E] (HERALD D84: the natural 1)
    if t.arm == "artillery" and value == 1:
        boom, br = checks.roll(stream, tables.GUN_EXPLOSION[1], f"explosion test of {sname}", roller)
        exploded = boom == tables.GUN_EXPLOSION[2]
        br.effect = "the gun explodes" if exploded else "no explosion"
        if exploded:
            shooter.status = "destroyed"
            for g in st.generals.values():
                if g.attached_to == shooter.id:
                    g.attached_to = ""
        events.append(Event("explosion", owner(shooter), "LdN [7 E]",
                            f"{sname} rolled a natural 1: d6 {boom}: "
                            + ("the gun explodes and is removed" if exploded else "it holds"),
                            dice=[br], table="gun explosion: natural 1, then d6 1 = removed", row=str(boom),
                            outcome={"unit": shooter.id, "exploded": exploded}))
    if not hit:
        return events
    # cover [7 C], not against mortars [12 D]
    why = sight.cover(sc, st, shooter, target, face)
    if why and mortar:
        events.append(Event("cover", target.side, "LdN [12 D]",
                            f"{tname} is {why}, but no saving throw against mortars", outcome={"saved": False}))
    elif why:
        tside = owner(target)
        save, sr = checks.roll(stream, tables.COVER_SAVE[0], f"cover save of {tname}", tside)
        smods = []
        if not is_general(target):
            tq = checks.quality_modifier(sc, target)
            if tq is not None:
                smods.append(tq)
        stotal = save + sum(m.value for m in smods)
        saved = stotal >= tables.COVER_SAVE[1]
        sr.effect = "saved" if saved else "not saved"
        events.append(Event("cover", tside, "LdN [7 C]",
                            f"{tname} is {why}: cover save d6 {save}"
                            + "".join(f" {m.value:+d}" for m in smods)
                            + f" = {stotal}: " + ("5-6, not disordered" if saved else "1-4, the hit stands"),
                            modifiers=smods, dice=[sr], table="cover save: d6, 5-6 not disordered",
                            row=str(stotal), outcome={"saved": saved, "total": stotal}))
        if saved:
            return events
    if is_general(target):
        from engine.lion.melee.results import general_risk
        events += general_risk(sc, st, target, "fire", stream, f"hit by {sname}'s fire")
        return events
    events.append(checks.hit(sc, st, target, f"shot by {sname}", "LdN [7 B], [9 A]"))
    return events


# -- the verb ---------------------------------------------------------------------------------------

def read_words(args: tuple[str, ...]) -> tuple[str, str, str]:
    words = [a for a in args]
    if len(words) < 2:
        raise CannotParse("usage: " + USAGE)
    unit, target, rest = words[0], words[1], words[2:]
    face = ""
    if rest and rest[0] == "from":
        rest = rest[1:]
        if not rest:
            raise CannotParse("from needs a face: front, left, right or rear (LdN [12 F])")
    if rest:
        face = rest[0]
        rest = rest[1:]
    if rest:
        raise CannotParse(f"the words '{' '.join(rest)}' are not part of the command: usage: {USAGE}")
    return unit, target, face


def do_shoot(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`shoot <unit> <target> [from <face>]` on `side`'s shoot card [7], [3], [13]."""
    rules.need_card(st, side, ("shoot",))
    uword, tword, fword = read_words(cmd.args)
    shooter = own_shooter(sc, st, side, uword)
    target = enemy_target(sc, st, side, tword)
    problem = sight.shooter_problem(sc, st, shooter)
    if problem:
        raise Illegal(*problem)
    face = sight.choose_face(sc, st, shooter, target, fword)
    sname = rules.named(sc, shooter.id)
    if is_tercio(shooter):
        if face in shooter.shot_faces:
            raise Illegal(f"{sname} already fired from its {face} this turn: a Tercio fires once from "
                          f"each face (HERALD D80)", "LdN [12 F]")
        if len(shooter.shot_at) == len(shooter.shot_faces) and target.id in shooter.shot_at:
            raise Illegal(f"{sname} already fired at {rules.named(sc, target.id)} from another face: each "
                          f"face fires at a different enemy", "LdN [12 F]")
    elif shooter.shot:
        raise Illegal(f"{sname} has already shot on this card: one shot per unit (HERALD D80)", "LdN [7]")
    geo = sight.check_target(sc, st, shooter, target, face)
    return resolve_shot(sc, st, side, shooter, target, geo, stream)


def can_shoot(sc, st, side: str) -> bool:
    """The shoot card's check (rules.register_card_check): whether any unit of `side` has a
    legal target now (the search stops at the first: sight.iter_targets)."""
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive and checks.controller(u) == side and troop(u).shoot_die:
            if next(sight.iter_targets(sc, st, u), None) is not None:
                return True
    return False


legal_targets = sight.legal_targets


# -- contact fire [7 D] -------------------------------------------------------------------------------

def contact_policy(st, side: str) -> str:
    """The firing side's policy "contact_fire": "never" skips the step; anything else (auto, the
    default) fires (HERALD D87)."""
    value = (st.policies.get(side) or {}).get("contact_fire")
    if value is None:
        value = rules.POLICY_DEFAULTS.get("contact_fire", "auto")
    return "never" if value == "never" else "auto"


def contact_shots(sc, st, u) -> tuple[list[tuple[str, object]], str]:
    """The shots `u` fires in the contact fire step [7 D]: (face, enemy) pairs, or the reason it
    does not fire ("" when it has nothing to fire at)."""
    side = checks.controller(u)
    if sight.shooter_problem(sc, st, u):
        return [], ""
    pu, fu = checks.pose(u), checks.footprint(u)
    flank = []
    touching: dict[str, str] = {}
    for e in sorted(st.units.values(), key=lambda x: x.id):
        if not e.alive or checks.controller(e) == side:
            continue
        edge = contact_edge(pu, fu, checks.pose(e), checks.footprint(e))
        if edge is None:
            continue
        touching[e.id] = edge
        if edge != "front":
            flank.append((e.id, edge))
    if flank and not is_tercio(u):
        eid, edge = flank[0]
        return [], (f"{rules.named(sc, u.id)} is attacked on its {edge} by {rules.named(sc, eid)}: units "
                    f"attacked in flank or rear cannot fire (Tercios excepted)")
    shots: list[tuple[str, object]] = []
    faces_used: set[str] = set()
    for eid in u.contacted_by:
        e = st.units.get(eid)
        if e is None or not e.alive or eid not in touching:
            continue
        face = touching[eid]
        if face != "front" and not is_tercio(u):
            continue
        if face in faces_used:
            continue
        faces_used.add(face)
        shots.append((face, e))
    return shots, ""


def contact_fire_step(sc, st, side: str, stream: DiceStream) -> list[Event]:
    """[7 D], [3] cards 7-8: `side` (the player the move card does not name) fires with every
    unit enemy bases came into contact with this turn, at them (HERALD D87); one event per shot,
    and one for a unit that may not fire because it is attacked in flank or rear."""
    events: list[Event] = []
    if contact_policy(st, side) == "never":
        return [Event("contact_fire", side, "LdN [7 D]",
                      f"{side.title()} does not fire at the units that came into contact (policy contact_fire never)")]
    shots_log = []
    for u in sorted(st.units.values(), key=lambda x: x.id):
        if not u.alive or checks.controller(u) != side or not u.contacted_by:
            continue
        if not troop(u).shoot_die:
            continue
        if st.weather.get("rain") == "heavy":
            events.append(Event("contact_fire", side, "LdN [15] 6",
                                f"{rules.named(sc, u.id)} does not fire: heavy rain, firearms do not fire"))
            continue
        shots, why = contact_shots(sc, st, u)
        if why:
            events.append(Event("contact_fire", side, "LdN [7 D]", why + ".", outcome={"unit": u.id, "fired": False}))
            continue
        problem = sight.shooter_problem(sc, st, u)
        if problem:
            continue
        for face, e in shots:
            if not u.alive or not e.alive:
                continue
            try:
                geo = sight.check_target(sc, st, u, e, face, contact=True)
            except Illegal as exc:
                events.append(Event("contact_fire", side, exc.section or "LdN [7 D]",
                                    f"{rules.named(sc, u.id)} does not fire at {rules.named(sc, e.id)}: {exc.reason}",
                                    outcome={"unit": u.id, "fired": False}))
                continue
            got = resolve_shot(sc, st, side, u, e, geo, stream, contact=True, roller=side)
            got[0].section = "LdN [7 D], [7 B]"
            events += got
            shots_log.append(dict(st.last_action))
    if shots_log:
        st.last_action = {"kind": "contact_fire", "side": side, "shots": shots_log}
    return events


rules.register("shoot", do_shoot, USAGE)
if hasattr(rules, "register_card_check"):
    rules.register_card_check("shoot", can_shoot)
