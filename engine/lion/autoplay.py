"""A plain, deterministic Lion of the North player: it writes the command lines a simple commander
would give on each card, through the same command language a player types. It is no rule of the
game: Herald uses it to write the demo scripts of Breitenfeld and Lützen and to play whole
battles in the tests. It only reads the position (distances, arcs, the legal targets the engine
lists) and proposes lines; each line is first tried on a copy (`ruleset.apply`, nothing
recorded) and only a line the engine accepted there is played, so its own commands are never
refused (`refusals(game)` counts any that were).

The commander, card by card [3], [13]:
- his move card [4], [5], [6], [12 C]: charges first (cavalry, pikes, Pike & Shot and Tercios in
  good order with an enemy within reach, a disordered enemy first: HERALD D104), then every line
  (units side by side, one unbroken front [4 B], regimental guns with them; the heaviest first)
  wheels toward the nearest enemy and advances (HERALD D101), through its own guns if they stand
  in front but never through horse or foot (D102), a mixed line closing when one member may charge
  (D103); then horse out of reach charges by forced march with the Cpts left (D104), single units
  wheel (at most 45 degrees [5 A]) toward the nearest enemy and advance; shooters stop short of
  contact, at short range; guns deploy when the enemy is in range, pivot to face it [6]; dragoons
  dismount when the enemy or a wood is near [12 C]; the generals ride behind their units so that
  the next moves stay within 40 cm [4 C]; then `next`;
- his shoot card [7]: every unit with a legal target fires at the most damaged, then the
  nearest; a Tercio from each face [12 F];
- his combat card [8]: every melee his units may start;
- a decision [5 D], [8 E], [15]: the offered default (the sunset kept, so battles end);
- the rally card [10], the end card [13] and the contact fire [7 D] are Herald's.
`play_game(game, max_commands, concede_margin)` plays to the end by engine.core.game.autoplay.
"""
from __future__ import annotations

import math

from engine.core.commands import parse
from engine.core.errors import HeraldError
from engine.core.game import Game, autoplay, demo_script, print_demo_script
from engine.core.table.geometry import CONTACT_TOL, angle_between, bearing_to, forward

from engine.lion import checks, tables
from engine.lion.rules import card_kind, card_owner

CHARGERS = ("regular_cavalry", "reiter", "croats", "pike_and_shot", "late_pike_and_shot", "tercio",
            "pikemen")
SHOOTER_STANDOFF = 3.0        # cm short of the enemy a shooter stops (short range is under 5 [7])
MAX_TRIALS = 60               # lines tried on a copy on one move card, at most
_REFUSED: dict[int, list[tuple[str, str, str]]] = {}


# == reading the position (no rule here: the engine's own readers) ================================

def refusals(game: Game) -> list[tuple[str, str, str]]:
    """(side, line, reason) of every line this player sent that the engine refused."""
    return _REFUSED.setdefault(id(game), [])


def _troop(u) -> tables.TroopType:
    return tables.troop(tables.effective_type(u.type, u.mounted))


def _mine(st, side: str) -> list:
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and checks.controller(u) == side]


def _enemies(st, side: str) -> list:
    return [u for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and checks.controller(u) != side]


def _dist(a, b) -> float:
    return checks.base_distance(a, b)


def _nearest(st, side: str, obj) -> tuple[float, object | None]:
    best = min(((_dist(obj, e), e.id, e) for e in _enemies(st, side)), key=lambda t: (t[0], t[1]),
               default=None)
    return (best[0], best[2]) if best else (999.0, None)


def _touching(st, side: str, obj) -> bool:
    return any(_dist(obj, e) <= CONTACT_TOL for e in _enemies(st, side))


def _aim(u, e) -> float:
    """Signed degrees from `u`'s facing to the bearing of `e`'s centre (positive: clockwise)."""
    fx, fy = forward(e.facing)
    depth = checks.footprint(e).depth
    cx, cy = e.x - fx * depth / 2.0, e.y - fy * depth / 2.0
    return angle_between(u.facing, bearing_to(u.x, u.y, cx, cy))


def _allowance(st, u) -> float:
    from engine.lion.movement.move import base_allowance
    return base_allowance(st, u)[0]


def _trial(game: Game, side: str, line: str):
    """The events of `line` played on a copy, or None when the engine refuses it."""
    try:
        _, events = game.ruleset.apply(game.scenario, game.state, side, parse(line))
    except HeraldError:
        return None
    return events


def _disorders_friends(game: Game, events, side: str) -> bool:
    """A move that passes through friends disorders them [5 C]: this player avoids it, except
    through his own guns (a line advancing through the battery in front of it, HERALD D102)."""
    for e in events:
        if e.kind == "hit" and "passed through" in (e.narrative or ""):
            u = game.state.units.get((e.outcome or {}).get("unit", ""))
            if u is None or _troop(u).arm != "artillery":
                return True
    return False


def _play(game: Game, side: str, line: str, out: list[tuple[str, str]]) -> bool:
    """Send `line` for real; a refusal is recorded (it should never happen: lines are tried first)."""
    try:
        game.apply(side, line)
    except HeraldError as exc:
        refusals(game).append((side, line, str(exc)))
        return False
    out.append((side, line))
    return True


def _try(game: Game, side: str, line: str, out: list[tuple[str, str]], *, moving: bool = False) -> bool:
    """Try `line` on a copy; play it when accepted (a move that disorders friends is not)."""
    events = _trial(game, side, line)
    if events is None or (moving and _disorders_friends(game, events, side)):
        return False
    return _play(game, side, line, out)


def _on_card(game: Game, side: str, kind: str) -> bool:
    st = game.state
    return (st.phase != "over" and not st.pending and st.step == "act" and card_kind(st.card) == kind
            and card_owner(st) == side)


# == the move card =================================================================================

def _may_move(st, side: str, u) -> bool:
    t = _troop(u)
    return (u.alive and u.side == side and not u.captured_by and not u.moved and not u.looting
            and t.moves and t.move > 0 and not _touching(st, side, u))


def _lines(st, side: str, units: list) -> list[list]:
    """Units side by side: same facing, front edges on one line, each touching the next (a front
    [4 B]); infantry (with guns) apart from cavalry. Longest first."""
    out: list[list] = []
    pool = sorted(units, key=lambda u: (round(u.facing), u.id))
    seen: set[str] = set()
    for u in pool:
        if u.id in seen:
            continue
        fx, fy = forward(u.facing)
        rx, ry = fy, -fx                                   # to the unit's right
        arm = "cavalry" if _troop(u).arm == "cavalry" else "foot"
        mates = [v for v in pool if v.id not in seen and abs(angle_between(u.facing, v.facing)) < 0.5
                 and abs((v.x - u.x) * fx + (v.y - u.y) * fy) < 0.05
                 and ("cavalry" if _troop(v).arm == "cavalry" else "foot") == arm]
        mates.sort(key=lambda v: ((v.x - u.x) * rx + (v.y - u.y) * ry, v.id))
        chains: list[list] = [[mates[0]]]
        for a, b in zip(mates, mates[1:]):
            gap = ((b.x - a.x) * rx + (b.y - a.y) * ry) - (checks.footprint(a).width + checks.footprint(b).width) / 2
            if abs(gap) <= CONTACT_TOL:
                chains[-1].append(b)
            else:
                chains.append([b])
        for c in chains:
            if u in c:
                seen.update(v.id for v in c)
                if len(c) > 1:
                    out.append(c)
    return sorted(out, key=lambda c: (-len(c), c[0].id))


def _standoff(u) -> float:
    """How far short of the enemy a move stops: chargers close (the move meets the enemy at first
    touch [8 A]); shooters and the rest stop at short range [7]."""
    t = _troop(u)
    if u.type in CHARGERS and tables.may_close(u.type, u.hits):
        return 0.0
    return SHOOTER_STANDOFF if t.shoot_die else 6.0


def _line_standoff(chain) -> float:
    """A line closes when any member may charge home (the musketeers beside Swedish horse go in
    with it, HERALD D103); a line of shooters stops at short range."""
    return min(_standoff(u) for u in chain)


def _centre(obj) -> tuple[float, float]:
    fx, fy = forward(obj.facing)
    depth = checks.footprint(obj).depth
    return obj.x - fx * depth / 2.0, obj.y - fy * depth / 2.0


def _line_order(st, side: str, chain) -> str | None:
    """The steps of a line [4 B], [5 A] (HERALD D101): a wheel toward the nearest enemy (what the
    allowance and the turn's 45 degrees allow: a block wheels on its outer corner, its frontage
    times the angle), then an advance on, stopping short by the line's standoff."""
    allow = min(_allowance(st, u) for u in chain)
    foes = _enemies(st, side)
    if not foes:
        return None
    gap, _, e = min(((min(_dist(u, f) for u in chain), f.id, f) for f in foes), key=lambda t: (t[0], t[1]))
    cx = sum(u.x for u in chain) / len(chain)
    cy = sum(u.y for u in chain) / len(chain)
    ex, ey = _centre(e)
    facing = chain[0].facing
    aim = angle_between(facing, bearing_to(cx, cy, ex, ey))
    if abs(aim) > 110:
        return None                                     # the enemy is behind: single units turn
    width = sum(checks.footprint(u).width for u in chain)
    left = max(0.0, tables.MAX_TURN - max(u.turned or 0.0 for u in chain))
    turn = min(abs(aim), left, math.degrees(0.5 * allow / width))
    if abs(aim) < 12 or turn < 4 or gap < 6 or any(_troop(u).arm == "artillery" for u in chain):
        turn = 0.0
    turn = math.floor(turn)
    arc = width * math.radians(turn)
    amount = min(allow - (arc + 0.2 if turn else 0.0), gap - _line_standoff(chain))
    rot = f"wheel {turn:.0f} {'right' if aim >= 0 else 'left'} " if turn else ""
    if amount < 1.0:
        return rot.strip() or None
    return f"{rot}advance {amount:.1f}"


def _blocked(st, side: str, chain, amount: float) -> set[str]:
    """The members whose straight advance of `amount` cm would pass through a friend that is not a
    gun [5 C]."""
    from shapely import affinity
    from engine.core.table.geometry import base_polygon
    ids = {u.id for u in chain}
    friends = [base_polygon(checks.pose(f), checks.footprint(f)) for f in _mine(st, side)
               if f.id not in ids and _troop(f).arm != "artillery"]
    out = set()
    for u in chain:
        poly = base_polygon(checks.pose(u), checks.footprint(u))
        fx, fy = forward(u.facing)
        swept = poly.union(affinity.translate(poly, fx * amount, fy * amount)).convex_hull
        if any(swept.intersection(f).area > 0.01 for f in friends):
            out.add(u.id)
    return out


def _runs(chain, bad: set[str]) -> list[list]:
    runs, cur = [], []
    for u in chain:
        if u.id in bad:
            if cur:
                runs.append(cur)
            cur = []
        else:
            cur.append(u)
    if cur:
        runs.append(cur)
    return runs


def _advance_lines(game: Game, side: str, out, budget: list[int]) -> None:
    """Every line wheels toward the nearest enemy and advances while Cpts last (HERALD D101); a
    line blocked by friends ahead (a second line behind the first) sends on the members whose way
    is clear and closes the others up behind them."""
    st = game.state
    movers = [u for u in _mine(st, side) if _may_move(st, side, u)
              and (_troop(u).arm != "artillery" or _troop(u).gun == "regimental")]
    queue = [c for c in _lines(st, side, movers) if any(_troop(u).arm != "artillery" for u in c)]
    queue.sort(key=lambda c: (-sum(checks.unit_weight(game.scenario, u) for u in c),
                              min(_nearest(st, side, u)[0] for u in c), c[0].id))
    while queue:
        chain = queue.pop(0)
        if not _on_card(game, side, "move") or budget[0] <= 0 or game.state.armies[side].cpts <= 0:
            return
        st = game.state
        chain = [st.units[u.id] for u in chain]
        if any(not _may_move(st, side, u) for u in chain):
            continue
        steps = _line_order(st, side, chain)
        if steps is None:
            continue
        name = "+".join(u.id for u in chain)
        budget[0] -= 1
        if _try(game, side, f"move {name} {steps}", out, moving=True):
            continue
        words = steps.split()
        amount = float(words[-1]) if "advance" in words else 0.0
        if amount >= 2.0 and "wheel" not in words:
            bad = _blocked(st, side, chain, amount)
            if bad and len(bad) < len(chain):
                queue[:0] = [r for r in _runs(chain, bad) if len(r) > 1]
                continue
        for frac in (0.6, 0.3):
            cm = amount * frac
            if cm < 1.0 or budget[0] <= 0:
                break
            budget[0] -= 1
            line = " ".join(words[:-1] + [f"{cm:.1f}"])
            if _try(game, side, f"move {name} {line}", out, moving=True):
                break


def _charges(game: Game, side: str, out, budget: list[int], forced_too: bool = False) -> None:
    """Every unit that may charge home goes in [8 A] (HERALD D104): at a disordered enemy first (a
    second hit destroys it [9 A]), then the nearest; cavalry out of reach by a forced march [4 D]
    when the Cpts allow."""
    st = game.state
    for u in _mine(st, side):
        if not _on_card(game, side, "move") or budget[0] <= 0 or game.state.armies[side].cpts <= 0:
            return
        st = game.state
        u = st.units[u.id]
        if u.type not in CHARGERS or not _may_move(st, side, u) or not tables.may_close(u.type, u.hits):
            continue
        reach = _allowance(st, u)
        far = reach * (tables.FORCED_MARCH_FACTOR if forced_too and _troop(u).arm == "cavalry" else 1)
        foes = sorted((_dist(u, e) > reach, e.hits == 0, round(_dist(u, e), 1), e.id)
                      for e in _enemies(st, side) if _dist(u, e) <= far and abs(_aim(u, e)) <= 60)
        for forced, _, _, eid in foes[:3]:
            if forced and game.state.armies[side].cpts < 2:
                continue
            budget[0] -= 1
            if _try(game, side, f"charge {u.id} {eid}" + (" forced" if forced else ""), out, moving=True):
                break


def _single(game: Game, side: str, u, out, budget: list[int]) -> None:
    st = game.state
    d, e = _nearest(st, side, u)
    if e is None:
        return
    t = _troop(u)
    aim = _aim(u, e)
    left = max(0.0, tables.MAX_TURN - (u.turned or 0.0))
    turn = min(abs(aim), left)
    way = "right" if aim >= 0 else "left"
    allow = _allowance(st, u)
    # far from the enemy with Cpts to spare: a forced march, double speed for 1 Cpt more [4 D]
    forced = t.arm != "artillery" and d > 2 * allow + 6 and st.armies[side].cpts >= 4
    if forced:
        allow *= tables.FORCED_MARCH_FACTOR
    width = checks.footprint(u).width
    if t.arm == "artillery":
        turn = min(abs(aim), tables.ARTILLERY_PIVOT_MAX)
        rot = f"pivot {turn:.0f} {way} " if turn >= 5 else ""
        arc = 0.0
    else:
        rot = f"wheel {turn:.0f} {way} " if turn >= 5 else ""
        arc = width * math.radians(turn) if rot else 0.0
    amount = min(allow - arc - 0.2, d - _standoff(u))
    tries = []
    if amount >= 1.0:
        flag = " forced" if forced else ""
        tries += [f"move {u.id} {rot}advance {amount:.1f}{flag}", f"move {u.id} {rot}advance {amount * 0.5:.1f}{flag}"]
    if rot:
        tries.append(f"move {u.id} {rot.strip()}")
    for line in tries:
        if budget[0] <= 0:
            return
        budget[0] -= 1
        if _try(game, side, line, out, moving=True):
            return


def _guns_and_dragoons(game: Game, side: str, out, budget: list[int]) -> None:
    """Guns deploy when the enemy is in range and pivot to face it [6 A], [6 C]; dragoons
    dismount when the enemy or a wood is near, mount when neither is [12 C]."""
    st = game.state
    for u in _mine(st, side):
        if not _on_card(game, side, "move") or budget[0] <= 0:
            return
        st = game.state
        u = st.units[u.id]
        if not u.alive or u.moved:
            continue
        t = _troop(u)
        d, e = _nearest(st, side, u)
        if e is None:
            return
        if t.arm == "artillery" and t.gun in ("light", "medium") and not u.deployed and not u.status_changed \
                and d <= t.max_range * 0.8:
            budget[0] -= 1
            if _try(game, side, f"deploy {u.id}", out):
                continue
        if t.arm == "artillery" and (u.deployed or t.move == 0) and abs(_aim(u, e)) > 25 \
                and d <= t.max_range:
            aim = _aim(u, e)
            budget[0] -= 1
            _try(game, side, f"pivot {u.id} {min(45, round(abs(aim)))} {'right' if aim > 0 else 'left'}", out)
            continue
        if u.type == "dragoons" and not _touching(st, side, u):
            near_wood = _near_cover(game, u)
            if u.mounted and (d <= 12 or near_wood):
                budget[0] -= 1
                _try(game, side, f"dismount {u.id}", out)
            elif not u.mounted and d > 30 and not near_wood:
                budget[0] -= 1
                _try(game, side, f"mount {u.id}", out)


def _near_cover(game: Game, u) -> bool:
    from shapely.geometry import Point
    for f in getattr(game.scenario, "features", ()) or ():
        if getattr(f, "kind", "") not in ("woods", "town"):
            continue
        try:
            from shapely.geometry import Polygon
            if Polygon(f.points).distance(Point(u.x, u.y)) <= 3.0:
                return True
        except Exception:
            continue
    return False


def _generals(game: Game, side: str, out) -> None:
    """Each general rides toward the units he stands nearest to, a few cm behind their centre,
    so that their next moves stay within 40 cm [4 C]; never into contact (he may not [8 D])."""
    st = game.state
    gens = [g for g in sorted(st.generals.values(), key=lambda g: g.id) if g.alive and g.side == side]
    mine = [u for u in _mine(st, side) if _troop(u).arm != "artillery"]
    if not gens or not mine:
        return
    flock: dict[str, list] = {g.id: [] for g in gens}
    for u in mine:
        g = min(gens, key=lambda g: (math.hypot(g.x - u.x, g.y - u.y), g.id))
        flock[g.id].append(u)
    for g in gens:
        st = game.state
        g = st.generals[g.id]
        if g.moved or g.attached_to or not _on_card(game, side, "move"):
            continue
        units = flock[g.id] or mine
        cx = sum(u.x for u in units) / len(units)
        cy = sum(u.y for u in units) / len(units)
        fx, fy = forward(sum(u.facing for u in units[:1]))
        tx, ty = cx - fx * 8.0, cy - fy * 8.0
        d = math.hypot(tx - g.x, ty - g.y)
        if d < 3.0:
            continue
        aim = angle_between(g.facing, bearing_to(g.x, g.y, tx, ty))
        if abs(aim) > 90:
            continue                                   # behind him: he waits for his units
        turn = min(abs(aim), tables.MAX_TURN)
        rot = f"wheel {turn:.0f} {'right' if aim >= 0 else 'left'} " if turn >= 5 else ""
        allow = tables.WOUNDED_GENERAL_MOVE if g.wounded else _troop_general().move
        cm = min(d, allow - 2 * math.radians(turn) - 0.2)
        for amount in (cm, cm * 0.5):
            if amount < 1.0:
                break
            if _try(game, side, f"general {g.id} {rot}advance {amount:.1f}", out):
                break


def _troop_general() -> tables.TroopType:
    return tables.TROOPS["general"]


def play_move_card(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """The move card [4]: charges, lines, guns and dragoons, single units, generals, `next`."""
    budget = [MAX_TRIALS]
    _charges(game, side, out, budget)
    _advance_lines(game, side, out, budget)
    _charges(game, side, out, budget, forced_too=True)
    _guns_and_dragoons(game, side, out, budget)
    st = game.state
    order = sorted((u for u in _mine(st, side) if _may_move(st, side, u)),
                   key=lambda u: (_nearest(st, side, u)[0], u.id))
    for u in order:
        if not _on_card(game, side, "move") or budget[0] <= 0 or game.state.armies[side].cpts <= 0:
            break
        u = game.state.units[u.id]
        if not _may_move(game.state, side, u):
            continue
        if _troop(u).arm == "artillery" and (u.deployed or _troop(u).gun not in ("regimental", "light", "medium")):
            continue
        _single(game, side, u, out, budget)
    if _on_card(game, side, "move"):
        _generals(game, side, out)
    if _on_card(game, side, "move"):
        _play(game, side, "next", out)


# == the shoot and combat cards ====================================================================

def play_shoot_card(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """[7] every unit with a legal target fires, in id order: at the most damaged enemy, then the
    nearest (a Tercio once from each face that has one [12 F])."""
    from engine.lion.fire.sight import legal_targets
    for uid in [u.id for u in _mine(game.state, side) if _troop(u).shoot_die]:
        for _ in range(4):
            if not _on_card(game, side, "shoot"):
                return
            st = game.state
            u = st.units[uid]
            if not u.alive:
                break
            targets = legal_targets(game.scenario, st, u)
            if not targets:
                break

            def score(t):
                tid, face = t
                x = st.units.get(tid) or st.generals.get(tid)
                return (-getattr(x, "hits", 0), hasattr(x, "role"), _dist(u, x), tid, face)
            tid, face = min(targets, key=score)
            line = f"shoot {u.id} {tid}" + (f" from {face}" if face != "front" else "")
            if not _play(game, side, line, out):
                break
    if _on_card(game, side, "shoot"):
        _play(game, side, "next", out)        # always legal on one's own card


def play_combat_card(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """[8] every melee the side may start, each enemy with all the units touching it."""
    from engine.lion.melee.fight import fight_targets
    for _ in range(60):
        if not _on_card(game, side, "combat"):
            return
        targets = fight_targets(game.scenario, game.state, side)
        if not targets:
            break
        if not _try(game, side, f"fight {targets[0]}", out):
            break
    if _on_card(game, side, "combat"):
        _play(game, side, "next", out)


def answer(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """A decision: the offered default, else the first answer the engine takes."""
    p = game.state.pending
    options = list(p.get("options") or [])
    if p.get("kind") == "sunset" and "keep" in options:
        options.remove("keep")
        options.insert(0, "keep")
    elif p.get("default") in options:
        options.remove(p["default"])
        options.insert(0, p["default"])
    for o in options:
        if _try(game, side, f"react {o}", out):
            return


def play_step(game: Game) -> list[tuple[str, str]]:
    """One turn of whoever the rules wait on."""
    out: list[tuple[str, str]] = []
    st = game.state
    side = game.to_act
    if side is None or st.phase == "over":
        return out
    if st.pending:
        answer(game, side, out)
        return out
    kind = card_kind(st.card)
    if kind == "move":
        play_move_card(game, side, out)
    elif kind == "shoot":
        play_shoot_card(game, side, out)
    elif kind == "combat":
        play_combat_card(game, side, out)
    if not out:
        _try(game, side, "next", out)
    return out


def concedes(game: Game, side: str, margin: int, from_turn: int = 4) -> bool:
    """A simple commander's choice, no rule: at his own move card from turn `from_turn` on, he
    concedes when his weighted losses [11 B-C] exceed the enemy's by `margin` or more."""
    st = game.state
    if st.turn < from_turn or not _on_card(game, side, "move"):
        return False
    lost = {s: checks.weighted_losses(game.scenario, st, s)["victory"] for s in st.armies}
    return lost[side] - lost[st.other(side)] >= margin


def play_game(game: Game, max_commands: int = 5000, concede_margin: int | None = None) -> list[tuple[str, str]]:
    """The whole battle (or `max_commands` lines) by `play_step` (engine.core.game.autoplay); with
    `concede_margin`, a side that far behind at its move card concedes."""
    def step(g: Game) -> list[tuple[str, str]]:
        side = g.to_act
        if concede_margin is not None and side is not None and concedes(g, side, concede_margin):
            out: list[tuple[str, str]] = []
            _try(g, side, "resign", out)
            return out
        return play_step(g)
    return autoplay(game, step, max_commands)


def write_script(scenario_id: str, seed: int) -> str:
    """`python -m engine.lion.autoplay breitenfeld 3` prints a demo script."""
    return demo_script("lion", scenario_id, seed, play_game, "engine.lion.autoplay")


if __name__ == "__main__":
    import sys
    print_demo_script(write_script, sys.argv)
