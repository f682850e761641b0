"""A plain, deterministic Jours de Gloire player: it writes the command lines a simple commander
would give (orders to the formations nearest the enemy, draw, the commander's initiative when
Without Orders, fire at the best target, close with the enemy or hold, squares when cavalry
threatens, assaults and charges at decent odds, resolve, rally, next). It is no rule of the game:
Herald uses it to write the offline demo's Marengo script and to play whole battles in the tests,
every line going through the same engine as a player's. It only proposes lines; the engine
accepts or refuses each one (`try_command`), and a refused line is simply not played.

At Marengo the Austrians attack toward the victory hexes the French hold (Marengo, San Giuliano
Vecchio first), the French hold their ground and strike back at what comes near, and their
reinforcements (Monnier, the Guard, Desaix) march from their entry hexes to the front."""
from __future__ import annotations

import heapq

from engine.core import facing as core_facing
from engine.core.commands import parse
from engine.core.errors import HeraldError
from engine.core.game import Game, autoplay, demo_script, print_demo_script, try_command

from engine.jdg import geometry
from engine.jdg.state import JdgState, Unit

_try = try_command
ATTACKER = "austrian"                     # Marengo: Melas attacks, Bonaparte holds
GOOD_ODDS = 0.5                           # P(defender falls back or breaks) to assault or charge
CHARGE_ODDS = 0.4


# == reading the position (no rule here: distances, paths, odds the engine computes) ==============

def _grid(game: Game):
    return geometry.grid(game.scenario)


def _enemies(st: JdgState, side: str) -> list[Unit]:
    return [u for u in st.units.values() if u.alive and u.side != side]


def _nearest_enemy(game: Game, hex_id: str, side: str) -> tuple[int, Unit | None]:
    g = _grid(game)
    best = min(((g.distance(hex_id, e.hex), e.id, e) for e in _enemies(game.state, side)),
               key=lambda t: (t[0], t[1]), default=None)
    return (best[0], best[2]) if best else (99, None)


def _accepts(game: Game, side: str, line: str) -> bool:
    """Whether the engine would accept `line` now (tried on a copy, nothing recorded)."""
    try:
        game.ruleset.apply(game.scenario, game.state, side, parse(line))
    except HeraldError:
        return False
    return True


def _facing_toward(game: Game, hex_id: str, target: str) -> int:
    g = _grid(game)
    return min(range(6), key=lambda v: (core_facing.relative_bearing(g, [hex_id], v, target), v))


def _vertex(game: Game, v: int) -> str:
    return core_facing.vertex_name(_grid(game), v)


def _step_cost(game: Game, arm: str, side: str, frm: str | None, to: str):
    from engine.jdg.movement.costs import step_cost
    return step_cost(game.scenario, game.state, arm, frm, to, side).mp


def _path(game: Game, arm: str, side: str, start: str, goals: set[str], first_cost=0,
          avoid: set[str] = frozenset()) -> list[tuple[str, float]]:
    """The cheapest path (hex, cumulative MP) from `start` to one of `goals`, never through an
    enemy unit nor a hex of `avoid` (Dijkstra over the engine's step costs)."""
    st = game.state
    g = _grid(game)
    blocked = {u.hex for u in _enemies(st, side)} | set(avoid)
    dist = {start: float(first_cost)}
    prev: dict[str, str | None] = {start: None}
    heap = [(float(first_cost), start)]
    end = None
    while heap:
        d, h = heapq.heappop(heap)
        if d > dist.get(h, 1e9):
            continue
        if h in goals:
            end = h
            break
        for n in sorted(g.neighbors(h)):
            if n in blocked:
                continue
            c = _step_cost(game, arm, side, h, n)
            if c is None:
                continue
            nd = d + float(c)
            if nd < dist.get(n, 1e9):
                dist[n] = nd
                prev[n] = h
                heapq.heappush(heap, (nd, n))
    if end is None:
        return []
    out = []
    node = end
    while node is not None:
        out.append((node, dist[node]))
        node = prev[node]
    return list(reversed(out))


# == the goals of a simple commander ===============================================================

def _victory_goals(game: Game, side: str) -> list[str]:
    """The victory hexes the enemy holds (Marengo: what the Austrians march on)."""
    return [vh.hex for vh in game.scenario.victory.hexes if game.state.holders.get(vh.hex, vh.holder) != side]


def _goal(game: Game, u: Unit, where: str) -> tuple[str | None, int]:
    """Where `u` heads and how close it stops: the attacker marches on the nearest victory hex
    the enemy holds, turning on any enemy within 3 hexes; the defender holds, closing only with
    an enemy within 4 hexes and bringing up units far behind the front."""
    g = _grid(game)
    d, enemy = _nearest_enemy(game, where, u.side)
    if enemy is None:
        return None, 0
    if u.side == ATTACKER:
        if d <= 3:
            return enemy.hex, 1
        goals = _victory_goals(game, u.side)
        if goals:
            return min(goals, key=lambda h: (g.distance(where, h), h)), 0
        return enemy.hex, 1
    if d <= 4:
        return enemy.hex, 1
    if d <= 6:
        return None, 0
    return enemy.hex, 4


# == the moves =====================================================================================

def _try_path(game: Game, side: str, u: Unit, words: list[str], target: str | None,
              out: list[tuple[str, str]], forced: bool = False) -> bool:
    """Try the longest prefix of the path the engine accepts, turned toward `target` at the end."""
    for n in range(len(words), 0, -1):
        steps = words[:n]
        end = steps[-1]
        tail = []
        if target and target != end:
            tail = ["face", _vertex(game, _facing_toward(game, end, target))]
        for extra in ([tail, []] if tail else [[]]):
            line = f"move {u.id} " + " ".join(steps + extra) + (" forced" if forced else "")
            if _try(game, side, line, out):
                return True
    return False


def _advance(game: Game, side: str, u: Unit, out: list[tuple[str, str]]) -> None:
    """Move `u` toward its goal, as far as the engine accepts."""
    from engine.jdg.movement import reinforcements as rf
    g = _grid(game)
    st = game.state
    entering = u.hex is None
    if entering:
        entries = list(rf.entry_hexes(game.scenario, u))
        starts = [h for h in entries if not any(x.side != side for x in st.units_at(h))]
        if not starts:
            return
        where = starts[0]
    else:
        where = u.hex
    target, stop = _goal(game, u, where)
    if target is None:
        if entering:
            _try(game, side, f"move {u.id} {where}", out)
        return
    if not entering and g.distance(where, target) <= max(stop, 0) and stop > 0:
        want = _facing_toward(game, where, target)
        if want != u.facing and stop == 1 and any(x.side != side for x in st.units_at(target)):
            _try(game, side, f"move {u.id} face {_vertex(game, want)}", out)
        return
    if stop <= 0:
        goals = {target}
    else:
        goals = {h for h in g.within(target, stop) if g.distance(h, target) == stop} or {target}
    first = _step_cost(game, u.arm, side, None, where) if entering else 0
    if first is None:
        return
    path = _path(game, u.arm, side, where, goals, first)
    if not path:
        return
    words = [h for h, _ in path] if entering else [h for h, _ in path[1:]]
    if not words:
        return
    far = _nearest_enemy(game, where, side)[0] > 7
    if far and _try_path(game, side, u, words[:14], target, out, forced=True):
        return
    _try_path(game, side, u, words[:8], target, out)


def _charge(game: Game, side: str, u: Unit, out: list[tuple[str, str]]) -> bool:
    """Good-order cavalry charges an enemy within 3 hexes when the odds (as it stands) are decent:
    `charge` from where it is, or `move ... charge <hex>` after 1-2 hexes."""
    from engine.jdg.combat.assault import assault_odds_for
    g = _grid(game)
    st = game.state
    foes = sorted({e.hex for e in _enemies(st, side) if g.distance(u.hex, e.hex) <= 3},
                  key=lambda h: (g.distance(u.hex, h), h))
    for target in foes:
        try:
            odds = assault_odds_for(game.scenario, st, [u], target)
        except HeraldError:
            continue
        good = float(odds.get("fall_back", 0) + odds.get("breakthrough", 0) + odds.get("artillery_eliminated", 0))
        if good < CHARGE_ODDS:
            continue
        if g.distance(u.hex, target) == 1 and _try(game, side, f"charge {u.id} {target}", out):
            return True
        for n1 in sorted(g.neighbors(u.hex)):
            if st.units_at(n1):
                continue
            if g.distance(n1, target) == 1 and _try(game, side, f"move {u.id} {n1} charge {target}", out):
                return True
            for n2 in sorted(g.neighbors(n1)):
                if n2 != u.hex and not st.units_at(n2) and g.distance(n2, target) == 1 \
                        and _try(game, side, f"move {u.id} {n1} {n2} charge {target}", out):
                    return True
    return False


def _square(game: Game, side: str, u: Unit, out: list[tuple[str, str]]) -> bool:
    """Infantry with enemy cavalry within 3 hexes forms square (and leaves it when none is near)."""
    g = _grid(game)
    near_cav = [e for e in _enemies(game.state, side) if e.arm == "cavalry" and e.condition == "good"
                and g.distance(u.hex, e.hex) <= 3]
    if u.square:
        return not near_cav and _try(game, side, f"square {u.id}", out)
    near_inf = [e for e in _enemies(game.state, side) if e.arm == "infantry" and g.distance(u.hex, e.hex) <= 2]
    if near_cav and not near_inf:
        return _try(game, side, f"square {u.id}", out)
    return False


def _fire(game: Game, side: str, u: Unit, out: list[tuple[str, str]]) -> bool:
    """Artillery fires at the enemy hex where the engine's odds are best."""
    from engine.jdg.fire.artillery import fire_odds_for
    g = _grid(game)
    st = game.state
    top = max(game.scenario.unit(u.id).max_range, 1)
    scored = []
    for h in sorted({e.hex for e in _enemies(st, side) if g.distance(u.hex, e.hex) <= top}):
        try:
            odds = fire_odds_for(game.scenario, st, u.id, h)
        except HeraldError:
            continue
        value = float(odds.get("rout", 0)) * 3 + float(odds.get("disorder", 0)) * 2 + float(odds.get("check", 0))
        scored.append((-value, h))
    for _, h in sorted(scored):
        if _try(game, side, f"fire {u.id} {h}", out):
            return True
    return False


def _assaults(game: Game, side: str, units: list[Unit], out: list[tuple[str, str]]) -> None:
    """Infantry in good order assaults an enemy hex in its front when the odds are decent, joined
    with the other units that have it in front."""
    from engine.jdg.combat.assault import assault_odds_for
    st = game.state
    targets: dict[str, list[str]] = {}
    for u in units:
        if u.arm != "infantry" or u.condition != "good" or u.square or not u.alive:
            continue
        for h in geometry.frontal_hexes(game.scenario, u):
            if any(x.side != side for x in st.units_at(h)):
                targets.setdefault(h, []).append(u.id)
    for h in sorted(targets):
        ids = [i for i in targets[h] if not st.units[i].assault]
        if not ids:
            continue
        try:
            odds = assault_odds_for(game.scenario, game.state, ids, h)
        except HeraldError:
            continue
        good = float(odds.get("fall_back", 0) + odds.get("breakthrough", 0) + odds.get("artillery_eliminated", 0))
        if good < GOOD_ODDS:
            continue
        if not _try(game, side, f"assault {' '.join(ids)} on {h}", out):
            for i in ids:
                if _try(game, side, f"assault {i} on {h}", out):
                    break
        st = game.state


def _commander(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """Bring the commander-in-chief up behind the front (never within 2 hexes of the enemy), so
    the formations nearest the enemy stay within his radius for their orders."""
    from engine.jdg.sequence.command import chief
    st = game.state
    g = _grid(game)
    ch = chief(game.scenario, st, side)
    if ch.commander is None or ch.hex is None or ch.commander.moved:
        return
    mine = [u for u in st.units.values() if u.alive and u.side == side]
    if not mine:
        return
    front = min(mine, key=lambda u: (_nearest_enemy(game, u.hex, side)[0], u.id))
    if g.distance(ch.hex, front.hex) <= 4:
        return
    danger = {h for e in _enemies(st, side) for h in g.within(e.hex, 2)}
    goals = {h for h in g.within(front.hex, 3) if g.distance(h, front.hex) == 3 and h not in danger}
    path = _path(game, "cavalry", side, ch.hex, goals, avoid=danger)
    words = [h for h, c in path[1:] if c <= 7]
    while words:
        if _try(game, side, "commander " + " ".join(words), out):
            return
        words.pop()


# == the turn ======================================================================================

def _orders(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """Phase A: With Orders to the formations nearest the enemy, as many as the engine accepts;
    sometimes a combined marker (the French Grande charge on turn 4, Marmont on turn 6)."""
    st = game.state
    sc = game.scenario
    if side == "french" and st.turn in (4, 6):
        _try(game, side, f"combined {'grande-charge' if st.turn == 4 else 'marmont'}", out)

    def reach(fid: str) -> int:
        units = st.formation_units(fid)
        return min((_nearest_enemy(game, u.hex, side)[0] for u in units), default=99)

    ranked = sorted((f.id for f in sc.formations if f.side == side and st.formation_units(f.id)),
                    key=lambda f: (reach(f), f))
    chosen: list[str] = []
    for fid in ranked:
        if _accepts(game, side, "orders " + " ".join(chosen + [fid])):
            chosen.append(fid)
    if not _try(game, side, "orders " + " ".join(chosen) if chosen else "orders none", out):
        _try(game, side, "orders none", out)


def _first(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """Phase B: the initiative winner starts with the formation nearest the enemy."""
    st = game.state
    from engine.jdg.sequence.initiative import pick_candidates
    cands = pick_candidates(game.scenario, st, side)

    def reach(mid: str) -> tuple[int, str]:
        fid = st.markers[mid].formation
        units = st.formation_units(fid) if fid else []
        return (min((_nearest_enemy(game, u.hex, side)[0] for u in units), default=50), mid)

    for mid in sorted(cands, key=reach)[:3]:
        if _try(game, side, f"first {mid}", out):
            return
    _try(game, side, "first none", out)


def _answer(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """A pending decision: the retreat hex offered first; a breakthrough, a counter-assault or a
    pursuit taken; any other the engine's default answer."""
    p = game.state.pending
    options = list(p.get("options") or [])
    kind = p["kind"]
    if kind == "retreat":
        for o in options:
            if _try(game, side, f"retreat {o}", out):
                return
    if kind == "breakthrough":
        for o in options:
            if _try(game, side, f"breakthrough {o}", out):
                return
    if kind in ("counter_assault", "pursuit", "counter_charge"):
        for o in options:
            if o not in ("none", "no") and _try(game, side, f"react {o}", out):
                return
    default = p.get("default")
    for o in ([default] if default else []) + options:
        if _try(game, side, f"react {o}", out):
            return


def play_activation(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """The active formation's actions, step by step: initiative, fire, movement (commander,
    squares, charges, moves), assaults, resolve, rally, then `next` to the end."""
    from engine.jdg.sequence.command import may_act
    st = game.state
    act = st.activation

    def acting() -> list[Unit]:
        s = game.state
        return [u for u in s.units.values() if s.activation is not None and may_act(s, u)
                and u.condition != "routed"]

    def still() -> bool:
        return game.state.activation is not None and not game.state.pending and game.state.activation is act

    if act.step == "orders_check" and not act.with_orders:
        _try(game, side, "initiative", out)
        act = game.state.activation
        if not still():
            return
    if act.step in ("orders_check", "fire"):
        for u in [u for u in acting() if u.arm == "artillery" and u.condition == "good" and u.hex]:
            if not still():
                return
            _fire(game, side, u, out)
        act = game.state.activation
    if not still():
        return
    if act.step in ("orders_check", "fire", "movement"):
        _commander(game, side, out)
        act = game.state.activation
        for uid in [u.id for u in acting()]:
            if not still():
                return
            u = game.state.units[uid]
            if uid in act.moved or u.condition != "good" and u.hex is not None \
                    and _nearest_enemy(game, u.hex, side)[0] > 1:
                continue
            if u.hex is not None and u.arm == "infantry" and _square(game, side, u, out):
                continue
            if u.hex is not None and u.arm == "cavalry" and u.condition == "good" and _charge(game, side, u, out):
                continue
            if not still():
                return
            if u.hex is not None and u.square:
                continue
            _advance(game, side, u, out)
            act = game.state.activation
    if not still():
        return
    if act.step in ("orders_check", "fire", "movement", "combat"):
        _assaults(game, side, acting(), out)
        if game.state.combat and still():
            _try(game, side, "resolve", out)
    if not still():
        return
    for u in list(game.state.units.values()):
        if not still():
            return
        if u.alive and u.condition != "good" and u.formation in act.formations and not u.acted:
            _try(game, side, f"rally {u.id}", out)
    for _ in range(6):
        if not still():
            return
        if not _try(game, side, "next", out):
            _try(game, side, "resolve", out)
            if not _try(game, side, "next", out):
                return


def play_step(game: Game) -> list[tuple[str, str]]:
    """One decision for whoever the rules wait on."""
    out: list[tuple[str, str]] = []
    st = game.state
    side = game.to_act
    if side is None:
        return out
    if st.pending:
        _answer(game, side, out)
    elif st.phase == "orders":
        _orders(game, side, out)
    elif st.phase == "initiative":
        _first(game, side, out)
    elif st.phase == "reserve" and st.activation is None:
        _try(game, side, "reserve none", out)       # phase D bis (optional 1): no reserve
    elif st.activation is None:
        _try(game, side, "draw", out)
    else:
        play_activation(game, side, out)
        if not out:
            _try(game, side, "next", out)
    return out


def concedes(game: Game, side: str, margin: int, from_turn: int = 3) -> bool:
    """A simple commander's choice, no rule: at his orders from turn `from_turn` on, he concedes
    when his side trails by `margin` victory points or more ([13]: the score as it stands)."""
    st = game.state
    return (st.phase == "orders" and st.turn >= from_turn and side not in st.orders_done
            and st.vp.get(st.other(side), 0) - st.vp.get(side, 0) >= margin)


def play_game(game: Game, max_commands: int = 5000, concede_margin: int | None = None) -> list[tuple[str, str]]:
    """The whole battle (or `max_commands` lines) by `play_step` (engine.core.game.autoplay); with
    `concede_margin`, a side that far behind at its orders concedes (the demo's short game)."""
    def step(g: Game) -> list[tuple[str, str]]:
        side = g.to_act
        if concede_margin is not None and side is not None and concedes(g, side, concede_margin):
            out: list[tuple[str, str]] = []
            _try(g, side, "resign", out)
            return out
        return play_step(g)
    return autoplay(game, step, max_commands)


DEMO_CONCEDE_MARGIN = 20


def write_script(scenario_id: str, seed: int) -> str:
    """`python -m engine.jdg.autoplay marengo 6` prints the demo script: two scripted commanders,
    the one 20 VP or more behind at his orders from turn 3 on conceding."""
    return demo_script("jdg", scenario_id, seed, lambda g: play_game(g, concede_margin=DEMO_CONCEDE_MARGIN),
                       "engine.jdg.autoplay")


if __name__ == "__main__":
    import sys
    print_demo_script(write_script, sys.argv)
