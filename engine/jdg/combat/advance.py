"""After the table [8.7], [9.5], stages of the assault resolution (combat/resolution.py): the
winner's advance, breakthrough after a 10 or more, the defender's counter-assault after a result
below 0, and the cavalry's pursuit (HERALD D48-D50, D55-D57, D90)."""
from __future__ import annotations


from engine.core.events import Event
from engine.core import facing as core_facing

from engine.jdg import geometry, tables
from engine.jdg.combat import assault as A
from engine.jdg.combat import results
from engine.jdg.state import JdgState, Unit


# -- advance after assault [8.7] and pursuit [9.5] ---------------------------------------------------

def advancer(sc, st: JdgState, cur: dict) -> list[Unit]:
    """[8.7] L551-567: the attacking unit with the highest cohesion advances, with its stack's
    attackers; cavalry first whatever its cohesion (Exc. 1); artillery never (L553); ties: the
    attacker's choice, here unit-id order (HERALD D90)."""
    att = [u for u in A._attackers(st, cur) if u.arm != "artillery" and u.condition != "routed"]
    if not att:
        return []
    best = sorted(att, key=lambda u: (u.arm != "cavalry", -A.cohesion(sc, u), u.id))[0]
    return [u for u in att if u.hex == best.hex]


def advance_into(sc, st, cur, hex_id: str, stream, refused: bool = False) -> list[Event]:
    """Move the advancing unit (or stack) into the emptied hex [8.7], keeping its facing (the 60°
    turn is allowed, not required); terrain that disorders does ([8.7] L555, D48). Stacked
    artillery follows only after a refusal ([8.8] L573)."""
    movers = advancer(sc, st, cur)
    if not movers or st.units_at(hex_id):
        return []
    start = movers[0].hex
    if not geometry.grid(sc).adjacent(start, hex_id):
        return []
    if refused:
        movers += [u for u in st.units_at(start) if u.arm == "artillery" and u.side == cur["side"]]
    for u in movers:
        u.hex = hex_id
    events = [Event("advance", cur["side"], "JdG [8.7]" + (", [8.8]" if refused else ""),
                    f"{', '.join(A.name_of(sc, u) for u in movers)} {A._verb(movers, 'advance')} "
                    f"from {start} into {hex_id}",
                    inputs={"from": start}, outcome={"units": [u.id for u in movers], "to": hex_id})]
    for f in sc.map.features(start, hex_id):
        t = tables.TERRAIN.get(f)
        for u in movers:
            if t is not None and u.arm in t.disorders and u.alive:
                events += results.disorder(sc, st, u, stream, "JdG [8.7]", f"advancing across the {f}")
    cur["advanced"] = [u.id for u in movers]
    return events


def stage_advance(sc, st, cur, stream) -> list[Event]:
    if not cur.get("vacated"):
        return []
    if A._is_charge(st, cur):
        from engine.jdg.combat import charge
        return charge.stage_pursuit(sc, st, cur, stream)
    att = advancer(sc, st, cur)
    if not att:
        return []
    for h in cur["vacated"]:
        if geometry.grid(sc).adjacent(att[0].hex, h):
            return advance_into(sc, st, cur, h, stream)
    return []


# -- breakthrough and counter-assault [8.7] ---------------------------------------------------------

def breakthrough_targets(sc, st: JdgState, units: list[Unit]) -> list[str]:
    """[8.7] L561: every enemy hex in the advanced unit's frontal hexes, but never a unit that has
    already suffered a breakthrough or counter-assault this activation (no chains, L559)."""
    c = A.combat_state(st)
    side = units[0].side
    out = []
    for h in sorted(geometry.frontal_hexes(sc, units[0])):
        foes = A.enemies_in(st, [h], side)
        if foes and not any(f.id in c["chain"] for f in foes) and A.could_enter(sc, units[0], h):
            out.append(h)
    return out


def counter_assault_options(sc, st: JdgState, cur: dict, origins: dict[str, str] | None = None) -> dict[str, str]:
    """[8.7] L563, HERALD D50: the defender able to assault (good order, not square, not
    artillery) may assault any one unit of the active player in its frontal hexes, from where it
    stands or after advancing one hex into an empty frontal hex without turning. Returns
    {enemy unit id: the hex it strikes from}; `origins`, when given, receives {enemy unit id: the
    defender's hex whose stack strikes} (an assault on two hexes has two stacks)."""
    c = A.combat_state(st)
    side = cur["side"]
    g = geometry.grid(sc)
    out: dict[str, str] = {}
    for h in cur["targets"]:
        stack = [u for u in st.units_at(h) if u.side != side and u.arm != "artillery"
                 and u.condition == "good" and not u.square]
        if not stack:
            continue
        top = stack[0]
        spots = [h] + [x for x in sorted(geometry.frontal_hexes(sc, top)) if not st.units_at(x)
                       and A.could_enter(sc, top, x)]
        for spot in spots:
            for x in sorted(core_facing.arcs(g, [spot], top.facing)["front"]) if spot != h else sorted(
                    geometry.frontal_hexes(sc, top)):
                for e in st.units_at(x):
                    if e.side == side and e.id not in c["chain"] and e.id not in out:
                        if top.arm == "cavalry" and not tables.can_charge_into(A._terrain_key(sc, x),
                                                                               A.hexside_between(sc, spot, x)):
                            continue
                        out[e.id] = spot
                        if origins is not None:
                            origins[e.id] = h
    return out


def stage_follow(sc, st, cur, stream) -> list[Event]:
    """After the roll: the attacker's breakthrough on 10 or more (infantry; cavalry pursues
    instead, HERALD D49), the defender's counter-assault below 0 (HERALD D50), or, after a
    successful counter-charge, the charged cavalry's pursuit of an attacker that fell back or
    routed ([9.4] L655, [9.5] L672-676, HERALD D57)."""
    c = A.combat_state(st)
    res = cur.get("result")
    events: list[Event] = []
    if res == "breakthrough" and cur["origin"] == "declared" and not A._is_charge(st, cur) and cur.get("advanced"):
        movers = [st.units[i] for i in cur["advanced"] if st.units[i].alive and st.units[i].condition == "good"
                  and st.units[i].arm != "artillery"]
        if not movers:
            return []
        targets = breakthrough_targets(sc, st, movers)
        if not targets:
            return []
        ans = cur["answers"].get("breakthrough")
        if ans is None:
            A._ask(st, cur, "breakthrough", cur["side"], [movers[0].id, "none"],
                 f"{A.name_of(sc, movers[0])} may break through: assault again every enemy in its front "
                 f"({', '.join(targets)}) without an engagement check (`breakthrough {movers[0].id}` or "
                 f"`breakthrough none`)", "JdG [8.7]", "breakthrough",
                 labels={movers[0].id: f"Break through with {A.name_of(sc, movers[0])}", "none": "No"},
                 default="none")
            return []
        if ans == "none":
            return []
        new = A._new_decl(c, cur["side"], [u.id for u in movers], targets, "breakthrough")
        for u in A.enemies_in(st, targets, cur["side"]):
            c["chain"].append(u.id)
        c["queue"].insert(0, new)
        events.append(Event("breakthrough", cur["side"], "JdG [8.7]",
                            f"{', '.join(A.name_of(sc, u) for u in movers)} break through against "
                            f"{', '.join(targets)}", outcome={"combat": new["id"], "targets": targets}))
        return events
    grant = res == "repulse" and cur["origin"] in ("declared", "pursuit")
    pursue = (cur["counter_charged"] and cur.get("attacker_fell_back")
              and any(u.arm == "cavalry" for u in A.enemies_in(st, cur["targets"], cur["side"])))
    if not (grant or pursue):
        return []
    origins: dict[str, str] = {}
    opts = counter_assault_options(sc, st, cur, origins)
    if not opts:
        return []
    defside = st.other(cur["side"])
    ans = cur["answers"].get("counter_assault")
    if ans is None:
        what = "counter-assault" if grant else "pursue (after its counter-charge)"
        A._ask(st, cur, "counter_assault", defside, sorted(opts) + ["none"],
             f"the defender may {what}: name the enemy unit to attack, or none", "JdG [8.7]" if grant else
             "JdG [9.4], [9.5]", "counter_assault",
             labels={**{o: f"Attack {A.name_of(sc, st.units[o])} ({st.units[o].hex})" for o in opts}, "none": "No"},
             default="none")
        return []
    if ans == "none" or ans not in opts:
        return []
    spot = opts[ans]
    target_unit = st.units[ans]
    home = cur["targets"][0]
    # the stack of the hex the option was found from, not the first target's (an assault on two
    # hexes: the other stack may not advance into a friendly hex, [5.1], D50)
    stack = [u for u in st.units_at(origins[ans]) if u.side == defside and u.arm != "artillery"
             and u.condition == "good" and not u.square]
    if spot != stack[0].hex:
        start = stack[0].hex
        for u in stack:
            u.hex = spot
        events.append(Event("advance", defside, "JdG [8.7]",
                            f"{', '.join(A.name_of(sc, u) for u in stack)} {A._verb(stack, 'advance')} "
                            f"from {start} to {spot} "
                            "without turning", outcome={"units": [u.id for u in stack], "to": spot}))
    new = A._new_decl(c, defside, [u.id for u in stack], [target_unit.hex], "counter_assault")
    if any(u.arm == "cavalry" for u in stack):
        A._join_group(c, new, [u for u in stack if u.arm == "cavalry"])
    for u in st.units_at(target_unit.hex):
        c["chain"].append(u.id)
    c["queue"].insert(0, new)
    events.append(Event("counter_assault", defside, "JdG [8.7]" if grant else "JdG [9.4], [9.5]",
                        f"{', '.join(A.name_of(sc, u) for u in stack)} "
                        f"{'counter-assault' if grant else 'pursue and charge'} {A.name_of(sc, target_unit)} in "
                        f"{target_unit.hex}", outcome={"combat": new["id"], "target": target_unit.hex}))
    _ = home
    return events
