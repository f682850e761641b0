"""The commander-in-chief's move [2.5].

    commander <hex> <hex> ...

[2.5] L189: the commander-in-chief moves once a turn, up to 7 MP (tables `cinc_mp`), during the
activation of any of his formations, never by forced march; his counter is then flipped
(`Commander.moved`; the sequence clears it at the end of the turn). He may not enter an enemy ZoC
alone. HERALD D18: he pays the cavalry costs of the TET, roads included, and moves in the movement
step (D14).

HERALD D89: ZoC stops and the cost of leaving a ZoC [6.2] are rules for combat units ("un’unità");
the commander-in-chief is a counter of another kind (not counted in stacking, [5.1] L259), and
[2.5] gives him one ZoC rule only: he may enter a hex in an enemy ZoC only where a friendly combat
unit stands, and he is not stopped there. He may not enter a hex held by an enemy unit [5.1] L281
(nor the enemy chief's, D19), and pays no +1 to pass through friends (a stacking cost [4.4]).
"""
from __future__ import annotations

from fractions import Fraction

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.jdg import geometry, rules, tables
from engine.jdg.combat.results import name_of
from engine.jdg.movement.costs import fmt_mp, step_cost
from engine.jdg.sequence import command as chiefs
from engine.jdg.state import JdgState

USAGE = "commander <hex> <hex> ...: move your commander-in-chief once a turn, up to 7 MP (JdG [2.5])"
ARM = "cavalry"          # HERALD D18: he pays the cavalry costs


def do_commander(sc, st: JdgState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """[2.5]: the commander-in-chief's once-a-turn move of up to 7 MP (HERALD D18, D89)."""
    rules.need_active(st, side)
    words = [w.upper() for w in cmd.args]
    if not words:
        raise CannotParse("usage: " + USAGE)
    if "FORCED" in words:
        raise Illegal("a commander-in-chief never force-marches", "JdG [2.5]")
    ch = chiefs.chief(sc, st, side)
    c = ch.commander
    if c is None or c.hex is None:
        raise Illegal(f"{side.title()} has no commander-in-chief on the map", "JdG [2.5]")
    if c.moved:
        raise Illegal(f"{ch.name} has already moved this turn: once a turn", "JdG [2.5]")
    rules.enter_step(st, "movement", sc=sc)
    grid = geometry.grid(sc)
    limit = Fraction(tables.RULE_NUMBERS["cinc_mp"][0])
    cur, spent, steps = c.hex, Fraction(0), []
    for b in words:
        if b not in grid:
            raise CannotParse(f"'{b}' is not a hex of the map")
        where = f"{b}: "
        if not grid.adjacent(cur, b):
            raise Illegal(f"{where}not adjacent to {cur}: a move is a path of adjacent hexes", "JdG [4.4]")
        here = st.units_at(b)
        if any(u.side != side for u in here) or any(
                o.hex == b and o.side != side and o.status == "active" for o in st.commanders.values()):
            raise Illegal(f"{where}the enemy holds it", "JdG [2.5], [5.1]")
        zoc = geometry.enemy_zoc(sc, st, b, side)
        if zoc and not any(u.side == side for u in here):
            raise Illegal(f"{where}in the ZoC of {name_of(sc, zoc[0])}: a commander-in-chief never enters "
                          "an enemy ZoC alone", "JdG [2.5]")
        cost = step_cost(sc, st, ARM, cur, b, side)
        if cost.mp is None:
            raise Illegal(f"{where}{cost.how}", "JdG [4.3]")
        if spent + cost.mp > limit:
            raise Illegal(f"{b} costs {fmt_mp(cost.mp)} MP, {fmt_mp(limit - spent)} left of his "
                          f"{fmt_mp(limit)} ({cost.how})", "JdG [2.5], [4.3]")
        spent += cost.mp
        steps.append({"hex": b, "mp": float(cost.mp), "how": cost.how})
        cur = b
    start = c.hex
    c.hex = cur
    c.moved = True
    st.activation.commander_moved = True
    route = "-".join([start] + [s["hex"] for s in steps])
    return [Event("commander_move", side, "JdG [2.5]",
                  f"{ch.name} rides {route}: {fmt_mp(spent)} of {fmt_mp(limit)} MP (once a turn)",
                  inputs={"commander": c.id, "from": start},
                  outcome={"commander": c.id, "path": [start] + [s["hex"] for s in steps],
                           "steps": steps, "mp_spent": float(spent), "moved": True})]


def commander_contact(sc, st: JdgState) -> list[Event]:
    """[2.5] L193 (HERALD D19): a commander-in-chief an enemy combat unit comes into contact with
    (adjacent to him, or in his hex after an advance or a pursuit) falls back at once 1 or 2 hexes,
    through enemy ZoC if need be: alone he must, with friendly units he may (Herald keeps him
    there). Herald picks the hex (HERALD D92): with friendly units and out of contact first, then
    out of contact, then farthest from the enemy; he is eliminated when every way back crosses
    enemy units (L195), and his army is then Without Orders for good (D19)."""
    events: list[Event] = []
    grid = geometry.grid(sc)
    for cid in sorted(st.commanders):
        c = st.commanders[cid]
        if c.status != "active" or c.hex is None:
            continue
        enemies = [u for u in st.units.values() if u.alive and u.side != c.side and u.arm != "artillery"
                   and (u.hex == c.hex or grid.distance(u.hex, c.hex) <= 1)]
        friends = [u for u in st.units_at(c.hex) if u.side == c.side]
        if not enemies or (friends and not any(u.hex == c.hex for u in enemies)):
            continue
        held = {u.hex for u in st.units.values() if u.alive and u.side != c.side}

        def contact(h: str) -> bool:
            return any(u.alive and u.side != c.side and u.arm != "artillery" and grid.distance(u.hex, h) <= 1
                       for u in st.units.values())

        reach: dict[str, str] = {}
        for n1 in sorted(grid.neighbors(c.hex)):
            if n1 in held or not sc.map.passable(n1):
                continue
            reach.setdefault(n1, n1)
            for n2 in sorted(grid.neighbors(n1)):
                if n2 != c.hex and n2 not in held and sc.map.passable(n2):
                    reach.setdefault(n2, f"{n1}-{n2}")
        name = chiefs.commander_values(sc, cid)[0]
        if not reach:
            c.status, c.hex = "eliminated", None
            events.append(Event("commander_eliminated", c.side, "JdG [2.5]",
                                f"{name} is caught by {name_of(sc, enemies[0])}: every way back crosses enemy "
                                f"units and he is lost; all {c.side.title()} formations are Without Orders "
                                "for the rest of the battle", outcome={"commander": cid}))
            continue

        def rank(h: str):
            near = min(grid.distance(h, u.hex) for u in enemies)
            has_friends = any(u.side == c.side for u in st.units_at(h))
            return (contact(h), not has_friends, -near, h)

        dest = min(reach, key=rank)
        start, c.hex = c.hex, dest
        events.append(Event("commander_falls_back", c.side, "JdG [2.5]",
                            f"{name}, in contact with {name_of(sc, enemies[0])}, falls back {start}-{reach[dest]} "
                            "(HERALD D19, D92)", outcome={"commander": cid, "from": start, "to": dest}))
    return events


rules.register("commander", do_commander, USAGE)
