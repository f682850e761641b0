"""A plain, deterministic TACW player: it writes the command lines a simple commander would
give (activate the next wing, close with the enemy, fire, charge home, stop). It is no rule of
the game: Herald uses it to write the offline demo's Edgehill script and to play whole battles in
the tests, every line going through the same engine as a player's."""
from __future__ import annotations

from engine.core import facing as F
from engine.core.game import Game, autoplay, demo_script, print_demo_script, try_command

from engine.tacw.geometry import unit_arcs
from engine.tacw.state import TacwState, Unit


_try = try_command


def _enemies(st: TacwState, side: str) -> list[Unit]:
    return [u for u in st.units.values() if u.alive and u.side != side and not u.gun_state]


def _dist(game: Game, u: Unit, e: Unit) -> int:
    g = game.scenario.grid
    return min(g.distance(a, b) for a in u.hexes for b in e.hexes)


def _nearest(game: Game, u: Unit) -> Unit | None:
    foes = _enemies(game.state, u.side)
    return min(foes, key=lambda e: (_dist(game, u, e), e.id), default=None)


def _facing_toward(game: Game, u: Unit, target: str) -> int:
    g = game.scenario.grid
    best = min(range(6), key=lambda v: F.relative_bearing(g, u.hexes, v, target))
    if u.is_double:
        allowed = F.double_facings(g, u.hexes[0], u.hexes[1])
        best = min(allowed, key=lambda v: F.relative_bearing(g, u.hexes, v, target))
    return best


def _advance(game: Game, side: str, u: Unit, out: list[tuple[str, str]]) -> None:
    """Move toward the nearest enemy: turn to face it if needed, then step into the front hex
    nearest to it, as far as the engine accepts (longest accepted path wins)."""
    g = game.scenario.grid
    enemy = _nearest(game, u)
    if enemy is None or _dist(game, u, enemy) <= 1:
        return
    target = min(enemy.hexes, key=lambda h: min(g.distance(h, x) for x in u.hexes))
    words: list[str] = []
    want = _facing_toward(game, u, target)
    if want != u.facing and not u.is_double:
        words += ["face", F.vertex_name(g, want)]
    hexes, facing = list(u.hexes), want if not u.is_double else u.facing
    for _ in range(8):
        arcs = F.arcs(g, hexes, facing)
        fronts = [h for h in arcs["front"] if not game.state.units_at(h)]
        if not fronts:
            break
        if u.is_double:
            centre = F.central_front_hex(g, hexes, facing)
            fronts = [h for h in fronts if h != centre]
            if not fronts:
                break
        step = min(fronts, key=lambda h: (g.distance(h, target), h))
        if g.distance(step, target) >= min(g.distance(h, target) for h in hexes):
            break
        words.append(step)
        if u.is_double:
            centre = F.central_front_hex(g, hexes, facing)
            hexes = [step, centre] if centre else [step]
            if len(hexes) == 2 and not g.adjacent(*hexes):
                break
        else:
            hexes = [step]
        if g.distance(step, target) <= 1:
            break
    if not u.is_double and words and words[-1] not in ("face",) and g.distance(hexes[0], target) <= 1:
        end_facing = min(range(6), key=lambda v: F.relative_bearing(g, hexes, v, target))
        if F.arc_of(g, hexes, facing, target) != "front":
            words += ["face", F.vertex_name(g, end_facing)]
    while words:
        if _try(game, side, f"move {u.id} " + " ".join(words), out):
            return
        words.pop()
        if words and words[-1] == "face":
            words.pop()


def _fire(game: Game, side: str, u: Unit, out: list[tuple[str, str]]) -> None:
    st = game.state
    g = game.scenario.grid
    foes = sorted(_enemies(st, side), key=lambda e: (_dist(game, u, e), e.id))
    for e in foes[:4]:
        if u.kind != "artillery" and _dist(game, u, e) > 1:
            break
        target = min(e.hexes, key=lambda h: min(g.distance(h, x) for x in u.hexes))
        if _try(game, side, f"fire {u.id} {target}", out):
            return


def _lead(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    """Bring the Wing Commander up to the wing's leading unit, so the wing stays in command
    (§5.4) as it advances."""
    st = game.state
    g = game.scenario.grid
    wing = st.wings[st.activation.wing]
    wc = st.leaders.get(wing.commander)
    units = [u for u in st.wing_units(wing.id) if u.kind != "artillery"]
    if wc is None or wc.hex is None or not units:
        return
    lead = min(units, key=lambda u: (min((_dist(game, u, e) for e in _enemies(st, side)), default=99), u.id))
    goal = lead.hexes[0]
    if g.distance(wc.hex, goal) <= 1:
        return
    blocked = {h for e in _enemies(st, side) for h in e.hexes}
    prev = {wc.hex: None}
    frontier = [wc.hex]
    while frontier and goal not in prev:
        nxt = []
        for h in frontier:
            for n in g.neighbors(h):
                if n not in prev and n not in blocked:
                    prev[n] = h
                    nxt.append(n)
        frontier = nxt
    if goal not in prev:
        return
    path, node = [], goal
    while node != wc.hex:
        path.append(node)
        node = prev[node]
    path = list(reversed(path))[:8]
    while path:
        if _try(game, side, f"leader {wc.id} move " + " ".join(path), out):
            return
        path.pop()


def play_activation(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    st = game.state
    act = st.activation
    if act is None:
        return
    if act.number == 1:
        _lead(game, side, out)
    for uid in sorted(u.id for u in st.wing_units(act.wing)):
        u = game.state.units.get(uid)
        if u is None or not u.alive or game.state.pending or game.state.activation is None:
            continue
        if u.kind == "artillery":
            _fire(game, side, u, out)
            continue
        enemy = _nearest(game, u)
        if enemy is not None and _dist(game, u, enemy) <= 1:
            _fire(game, side, u, out)
        else:
            _advance(game, side, u, out)
    if game.state.pending or game.state.activation is None:
        return
    if not _try(game, side, "close", out):
        return
    for u in sorted(game.state.wing_units(game.state.activation.wing), key=lambda u: u.id):
        if u.kind == "artillery" or not u.alive:
            continue
        front = unit_arcs(game.scenario, u)["front"]
        for h in front:
            foes = [e for e in game.state.units_at(h) if e.side != side]
            if foes and _try(game, side, f"attack {u.id} {h}", out):
                break
    _try(game, side, "resolve", out)
    act = game.state.activation
    if act is not None and not game.state.pending:
        wing = game.state.wings[act.wing]
        if not (wing.order == "charge" and act.number == 1 and _try(game, side, "continue", out)):
            if game.state.activation is not None and not game.state.pending:
                _try(game, side, "stop", out)


def play_step(game: Game) -> list[tuple[str, str]]:
    """One decision for whoever the rules wait on."""
    out: list[tuple[str, str]] = []
    st = game.state
    side = game.to_act
    if side is None:
        return out
    if st.phase == "deployment":          # a battle set up by areas: keep Herald's suggested setup
        _try(game, side, "deploy done", out)
        return out
    if st.pending:
        verb = {"bypass": "bypass", "reaction_fire": "react", "reaction_move": "react_move",
                "reaction_attack": "counter", "intercept": "intercept"}.get(st.pending["kind"], st.pending["kind"])
        if not _try(game, side, f"{verb} none", out):
            _try(game, side, "resume", out)
        return out
    if st.activation is None:
        for w in sorted(w.id for w in st.wings.values() if w.side == side):
            if _try(game, side, f"activate {w}", out):
                break
        else:
            _try(game, side, "pass", out)
        return out
    play_activation(game, side, out)
    if not out:
        _try(game, side, "stop", out)
    return out


def play_game(game: Game, max_commands: int = 5000) -> list[tuple[str, str]]:
    """The whole battle (or `max_commands` lines) by `play_step` (engine.core.game.autoplay)."""
    return autoplay(game, play_step, max_commands)


def write_script(scenario_id: str, seed: int) -> str:
    """`python -m engine.tacw.autoplay edgehill 3` prints the demo script."""
    return demo_script("tacw", scenario_id, seed, play_game, "engine.tacw.autoplay")


if __name__ == "__main__":
    import sys
    print_demo_script(write_script, sys.argv)
