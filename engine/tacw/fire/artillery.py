"""Artillery fire of This Accursed Civil War (TACW §9.9): range and line of sight, the Artillery
Range and Fire tables, ricochet (§9.9.3-9.9.5), artillery Reaction Fire (§9.9.6), formation
hits on guns (§9.9.7), and turning a gun instead of firing (§6.2.3). A gun fires through the
`fire` verb (fire/small_arms.py); this module registers `turngun`.

HERALD decisions:
- §9.10.1 LOS: as the Italian text and the digest say, ENEMY combat units do not block a line
  of sight and FRIENDLY ones do (geometry.line_of_sight delegates here, so there is one rule).
  Blocking terrain in a hex between blocks; a line along a hexside is blocked
  only if both hexes block; a blocking hexside (hedge, slope) crossed between two hexes of the
  line blocks, except the firer's and the target's own sides ("into but not through").
- §9.9.6 / §9.1.3: a gun fires only into its FRONT ARC (the 120-degree cone of its facing
  vertex, `engine.core.facing.in_arc_within(..., "front")`), normal fire as well as reaction:
  §9.9.6 gives artillery a front arc, and §6.2.3 lets a gun turn instead of firing, which only
  matters if its arc is limited. Range: the counter's max_range within the Range table.
- §9.9.1: once per turn (`fired`), normal or reaction; turning instead of firing uses it
  (§6.2.3). A gun under another unit of its stack does not fire (§8.3); a morale Broken gun
  neither fires nor turns (§9.9.8, §11.4.4).
- §9.9.3 ricochet: the line from the gun through the first target, straight on; every unit on
  it (friend or foe, before or beyond the target) at most `ricochet_range` hexes from the gun
  rolls on the Artillery Fire table with its own range and terrain (D20). Beyond the target
  the ball stops after a hex of blocking terrain, or at a blocking hexside. Where the line runs
  along a hexside the firer picks the side once for the whole line (§9.9.5): `ricochet
  left|right`, by default the side with more enemy units (then fewer friends, then left). A
  double unit with both hexes on the line is attacked twice (§9.9.4), the target too.
- §9.9.6 reaction: against a unit that fired at the gun's hex (in range and front arc) or that
  moves, turns, reforms or rallies within its ricochet range in its front arc.
- §9.9.7: a formation hit on a gun is a morale check instead; an "FH + MC" on a gun is one
  check rolled with +1 (two checks at once, by analogy with §9.6.5).
- §8.2.1: a cavalry + light infantry stack is struck through its cavalry; the light infantry
  shares the formation hit and any morale level lost (D90).
"""
from __future__ import annotations

from engine.core import facing as F
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.hexgrid import cube_round

from engine.tacw import rules

from engine.tacw.morale import checks as morale
from engine.tacw import tables_combat as tc
from engine.tacw.sequence.actions import begin_action
from engine.tacw.fire.small_arms import cannot_fire, d10, enemy_target, leader_loss, reaction_fire, top_unit
from engine.tacw.setup import option_modifiers
from engine.tacw.state import TacwState, Unit


# == line of sight (§9.10) =====================================================================

def fire_line_of_sight(sc, st: TacwState, firer: Unit, src: str, dst: str) -> tuple[bool, str]:
    """§9.10: centre to centre. Blocking terrain, or a FRIENDLY combat unit, in a hex between
    blocks (§9.10.1: the line passes through enemy units, not friendly ones); along a hexside
    only if both hexes block (§9.10.3); a blocking hexside crossed between two hexes of the
    line blocks unless it is a side of the firer's or the target's hex (§9.10.2)."""
    friends = {h for u in st.units.values() if u.alive and not u.gun_state and u.side == firer.side
               and u.id != firer.id for h in u.hexes}

    def why(h):
        if h is None:
            return None
        if sc.hex_blocks_los(h):
            return f"{h} ({sc.terrain_at(h).replace('_', ' ')})"
        if h in friends:
            return f"{h} (a friendly unit)"
        return None

    steps = sc.grid.line_steps(src, dst)
    for step in steps:
        reasons = [why(h) for h in step]
        if all(reasons):
            if len(step) == 1:
                return False, f"{reasons[0]} blocks the line of sight (TACW §9.10)"
            return False, (f"the line runs between {reasons[0]} and {reasons[1]}, both blocking "
                           "(TACW §9.10.3)")
    seq = [src] + [s[0] if len(s) == 1 else None for s in steps] + [dst]
    for a, b in zip(seq, seq[1:]):
        if a is None or b is None or a == src or b == dst:
            continue
        if sc.hexside_blocks_los(a, b):
            return False, f"the hexside between {a} and {b} blocks the line of sight (TACW §9.10.2)"
    return True, "clear"


def gun_reach(sc, gun: Unit, hex_id: str) -> str | None:
    """Why `hex_id` is out of the gun's range or front arc (None: it is within both)."""
    d = min(sc.grid.distance(h, hex_id) for h in gun.hexes)
    if d < 1:
        return "a gun does not fire at its own hex"
    if d > gun.max_range or tc.artillery_range_modifier(gun.gun_class, d) is None:
        return f"{hex_id} is {d} hexes away, beyond {gun.called}'s range of {gun.max_range} (TACW §9.9.2)"
    if not F.in_arc_within(sc.grid, gun.hexes, gun.facing, hex_id, "front", gun.max_range):
        return f"{hex_id} is outside {gun.called}'s front arc: guns fire into their front arc (TACW §9.9.6)"
    return None


def reaction_target_hex(sc, st, gun: Unit, trig: Unit, hexes: list[str], *, fired_at: bool) -> str | None:
    """§9.9.6: the hex of `trig` this gun may answer, nearest first, or None."""
    src = gun.hexes[0]
    for h in sorted(hexes, key=lambda h: (sc.grid.distance(src, h), h)):
        if top_unit(st, h) is not trig or gun_reach(sc, gun, h) or tc.terrain_fire_modifier(sc.terrain_at(h)) is None:
            continue
        if not fired_at and sc.grid.distance(src, h) > gun.ricochet_range:
            continue
        if fire_line_of_sight(sc, st, gun, src, h)[0]:
            return h
    return None


# == ricochet geometry (§9.9.3-9.9.5) ===========================================================

def _side_of(sc, src: str, dst: str, h: str) -> str:
    (ax, ay), (bx, by), (hx, hy) = sc.grid.center(src), sc.grid.center(dst), sc.grid.center(h)
    cross = (bx - ax) * (hy - ay) - (by - ay) * (hx - ax)      # screen y grows downward
    return "right" if cross > 0 else "left"


def ricochet_steps(sc, src: str, dst: str, length: int) -> list[tuple[str | None, ...]]:
    """The hexes of the straight line from `src` through `dst`, one step per hex of distance,
    out to `length` hexes from `src` (beyond `dst` if longer): a 2-tuple where the line runs
    along the side between two hexes (cube-coordinate interpolation, nudged both ways)."""
    g = sc.grid
    a, b = g.cube(src), g.cube(dst)
    n = g.distance(src, dst)
    eps = 1e-6
    out = []
    for k in range(1, length + 1):
        t = k / n
        x, y, z = (a[i] + (b[i] - a[i]) * t for i in range(3))
        h1, h2 = cube_round(x + eps, y + eps, z - 2 * eps), cube_round(x - eps, y - eps, z + 2 * eps)
        out.append((g.hex_id(h1),) if h1 == h2 else (g.hex_id(h1), g.hex_id(h2)))
    return out


def ricochet_path(sc, st, gun: Unit, dst: str, choice: str | None) -> tuple[list[str], str | None]:
    """The hexes the shot passes over, in order, within the ricochet range (or up to the target
    if that is farther), and the side chosen along hexsides (§9.9.5)."""
    src = gun.hexes[0]
    length = max(gun.ricochet_range, sc.grid.distance(src, dst))
    steps = ricochet_steps(sc, src, dst, length)
    pairs = [s for s in steps if len(s) == 2]
    if pairs and choice is None:
        def score(side):
            hexes = [h for s in pairs for h in s if h and _side_of(sc, src, dst, h) == side]
            units = [u for h in hexes for u in [top_unit(st, h)] if u is not None]
            return (sum(u.side != gun.side for u in units), -sum(u.side == gun.side for u in units))
        choice = "right" if score("right") > score("left") else "left"
    path: list[str] = []
    for k, s in enumerate(steps, start=1):
        h = s[0] if len(s) == 1 else next((x for x in s if x and _side_of(sc, src, dst, x) == choice), None)
        if h is None:
            break
        beyond = k > sc.grid.distance(src, dst)
        prev = path[-1] if path else src
        if beyond and sc.grid.adjacent(prev, h) and sc.hexside_blocks_los(prev, h):
            break
        path.append(h)
        if beyond and sc.hex_blocks_los(h):
            break
    return path, (choice if pairs else None)


# == one gun's shot ===============================================================================

def _gun_roll(sc, st, gun: Unit, h: str, prev: str, victim: Unit, stream, *, reaction: bool,
              moving: bool, ricochet: bool) -> list[Event]:
    rng = sc.grid.distance(gun.hexes[0], h)
    side = sc.crossing(prev, h) if sc.grid.adjacent(prev, h) else None
    try:
        mods = tc.artillery_fire_modifiers(gun.gun_class, rng, shaken=gun.morale_state == "shaken",
                                           target_special=victim.special_formation,
                                           reaction_vs_moving_cavalry=moving,
                                           target_terrain=sc.terrain_at(h), hexside=side)
    except ValueError as exc:
        return [Event("fire", gun.side, "TACW §9.9.3", f"{victim.called} in {h} is not affected: {exc}")]
    mods += [Modifier(v, why, "TACW scenario optional rule") for v, why in option_modifiers(st, gun, "fire_modifier")]
    section = "TACW §9.9.3" if ricochet else "TACW §9.9.2"
    table, plus = tc.ARTILLERY_FIRE_TABLE[gun.gun_class], sum(m.value for m in mods)
    roll = d10(stream, f"artillery fire, {gun.called} at {victim.called}", gun.side,
               reading=lambda r: table.row(r + plus).result)
    total = roll + plus
    row = table.row(total)
    res = row.result
    what = "ricochets onto" if ricochet else "fires in reaction at" if reaction else "fires at"
    events = [Event("fire", gun.side, section,
                    f"{gun.called} ({gun.hexes[0]}) {what} {victim.called} ({h}, range {rng}): {roll}"
                    + "".join(f" {m.value:+d}" for m in mods) + f" = {total} -> {res.label}",
                    inputs={"firer": gun.id, "target": victim.id, "from": gun.hexes[0], "to": h,
                            "range": rng, "ricochet": ricochet, "reaction": reaction},
                    base=roll, modifiers=mods, dice=[DieRoll(f"artillery fire, {gun.called}", "d10", roll)],
                    table=table.name, row=row.label, outcome={"result": res.label})]
    st.last_action.setdefault("items", []).append({"kind": "fire", "from": gun.hexes[0], "to": h, "text": res.label})
    source = f"{gun.called}'s {'ricochet' if ricochet else 'artillery fire'}"
    present = list(st.leaders_at(h))         # §9.11: the leaders there when it struck (D127)
    if res.formation_hit and victim.kind == "artillery":
        events += morale.morale_check(sc, st, victim, stream, reason=f"{res.label} from {source}",
                                      section="TACW §9.9.7", checks=2 if res.morale_check else 1)
    elif res.formation_hit:                 # shared by stacked light infantry (§8.2.1, D90)
        events += morale.formation_hit(sc, st, victim, stream, source, section, share=True)
        if res.morale_check:
            events += morale.morale_check(sc, st, victim, stream, reason=f"FH + MC from {source}",
                                          section=section, share=True)
    if not res.miss:
        events += leader_loss(sc, st, h, stream, source, present)
    return events


def resolve_gun(sc, st, gun: Unit, target_hex: str, stream, *, reaction: bool = False,
                moving_cav: set[str] | None = None, choice: str | None = None) -> list[Event]:
    """§9.9.2-9.9.5: the gun fires at the top enemy unit in `target_hex` and flips to fired;
    every other unit on the ricochet line rolls too (friends included)."""
    moving_cav = moving_cav or set()
    target = enemy_target(st, gun, target_hex)
    gun.fired = True
    path, chosen = ricochet_path(sc, st, gun, target_hex, choice)
    events = [Event("artillery", gun.side, "TACW §9.9.3",
                    f"{gun.called} fires at {target.called} in {target_hex}; ricochet line "
                    f"{' '.join(path)}" + (f" (the {chosen} side along hexsides)" if chosen else ""),
                    inputs={"gun": gun.id, "target": target.id, "line": path, "side": chosen})]
    events += _gun_roll(sc, st, gun, target_hex, _prev(path, target_hex, gun), target, stream,
                        reaction=reaction, moving=target.id in moving_cav, ricochet=False)
    src = gun.hexes[0]
    for h in path:
        if h == target_hex or sc.grid.distance(src, h) > gun.ricochet_range:
            continue
        victim = top_unit(st, h)
        if victim is None or victim.id == gun.id:
            continue
        events += _gun_roll(sc, st, gun, h, _prev(path, h, gun), victim, stream, reaction=reaction,
                            moving=victim.id in moving_cav, ricochet=True)
    return events


def _prev(path: list[str], h: str, gun: Unit) -> str:
    i = path.index(h) if h in path else -1
    return path[i - 1] if i > 0 else gun.hexes[0]


def fire_gun(sc, st, gun: Unit, targets: list[str], named: dict, flags: set, stream) -> list[Event]:
    """`fire <gun> <hex> [ricochet left|right]` (§9.9): after `begin_action`."""
    extra = sorted(flags) + sorted(f"{w} {named[w]}".strip() for w in set(named) - {"ricochet"}) + targets[1:]
    if extra:                             # every word the command has no room for is named
        raise CannotParse(f"'{' '.join(extra)}': a gun fires at one hex; usage: fire <gun> <hex> "
                          "[ricochet left|right] (TACW §9.9)")
    if len(targets) != 1:
        raise CannotParse("usage: fire <gun> <hex> [ricochet left|right] (TACW §9.9)")
    choice = named.get("ricochet")
    if choice is not None and choice not in ("left", "right"):
        raise CannotParse("ricochet takes left or right (TACW §9.9.5)")
    reason = cannot_fire(st, gun)
    if reason:
        raise Illegal(reason)
    t = targets[0]
    if t not in sc.grid:
        raise Illegal(f"{t} is not a hex of this map")
    target = enemy_target(st, gun, t)
    if target is None:
        raise Illegal(f"there is no enemy unit to fire at in {t}", "TACW §9.1.1")
    if tc.terrain_fire_modifier(sc.terrain_at(t)) is None:
        raise Illegal(f"{target.called} is in a {sc.terrain_at(t)}: fire at it is not allowed (Terrain table: NA)")
    reason = gun_reach(sc, gun, t)
    if reason:
        raise Illegal(reason)
    clear, why = fire_line_of_sight(sc, st, gun, gun.hexes[0], t)
    if not clear:
        raise Illegal(f"{gun.called} has no line of sight to {t}: {why}")
    events = resolve_gun(sc, st, gun, t, stream, choice=choice)
    if target.alive:
        more, _ = reaction_fire(sc, st, gun, "fire", stream, only=[target.id])
        events += more
    return events


def do_turngun(sc, st, side, cmd, stream):
    """`turngun <gun> <vertex>` (§6.2.3): a gun changes facing instead of firing this turn;
    turning near the enemy triggers Reaction Fire (§6.2.4). Vertex: 0-5 or a name (E, SE...)."""
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + rules.VERBS["turngun"])
    gun = begin_action(sc, st, side, cmd.args[0], "fire")
    st.last_action = {"items": []}
    if gun.kind != "artillery":
        raise Illegal(f"{gun.called} is not artillery: other units turn with `face`", "TACW §6.2")
    word = cmd.args[1]
    try:
        vertex = int(word) if word.isdigit() else F.vertex_index(sc.grid, word)
    except ValueError:
        raise CannotParse(f"'{word}' is not a vertex (0-5 or E, SE, SW, W, NW, NE)") from None
    if not 0 <= vertex <= 5:
        raise CannotParse(f"'{word}' is not a vertex (0-5)")
    if gun.gun_state:
        raise Illegal(f"{gun.called}'s guns are {gun.gun_state}", "TACW §9.9.9")
    if gun.morale_state == "broken":
        raise Illegal(f"{gun.called} is morale Broken and cannot change facing", "TACW §9.9.8")
    if gun.fired:
        raise Illegal(f"{gun.called} has already fired or turned this turn", "TACW §6.2.3")
    if vertex == gun.facing:
        raise Illegal(f"{gun.called} already faces {F.vertex_name(sc.grid, vertex)}")
    old = gun.facing
    gun.facing, gun.fired = vertex, True
    events = [Event("face", gun.side, "TACW §6.2.3",
                    f"{gun.called} turns from {F.vertex_name(sc.grid, old)} to {F.vertex_name(sc.grid, vertex)} "
                    "instead of firing", outcome={"unit": gun.id, "facing": vertex})]
    more, _ = reaction_fire(sc, st, gun, "face", stream)
    return events + more


rules.register("turngun", do_turngun, "turngun <gun> <vertex>: turn a gun instead of firing (TACW §6.2.3)")
