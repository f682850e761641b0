"""A plain, deterministic Italian Wars player: it writes the command lines a simple commander would
give, through the same command language a player types. It is no rule of the game: Herald uses it
to write the demo scripts of Fornovo and Ravenna and to play whole battles in the tests. It reads
the position (distances, aims, the targets the engine lists) and proposes lines; each is given
to the engine (`engine.core.game.try_command`): a refused line changes nothing and is not
recorded, and the next proposal is tried.

The commander:
- before the battle (IW Prima della battaglia): rolls what is his to roll, places no field
  defences, places his battles as the map says, writes his orders (ORDERS_PLAN: the attacker's
  battles Attack, the Commander-in-Chief's and the reserve Hold; the defender's Hold, its horse
  Attack), spends no Ecu;
- in the command phase (IW Fase di Comando): keeps his orders, except that a battle on Hold with an
  enemy within HOLD_WAKE UDM of one of its companies from turn 3 on is ordered to Attack;
- in the actions (IW Azioni): activates his battles in id order, the C-in-C's first; declares every
  charge his order obliges or allows on the nearest enemy it may charge (2b); wheels a company more
  than AIM_SLACK degrees off its nearest enemy towards it (2c); advances shock troops to
  STANDOFF UDM of the enemy and shooters to their short range (2d); shoots every company at the
  nearest enemy it may (2e); answers charges by fire, else counter-charges, else stands (2f); lets
  Herald close and fight (2g, 2h);
- a decision: the offered default.
`play_game(game, max_commands)` plays to the end by engine.core.game.autoplay.
"""
from __future__ import annotations

from engine.core.game import Game, autoplay, demo_script, print_demo_script, try_command
from engine.core.table.geometry import angle_between, bearing_to

from engine.italianwars import checks, completion_shooting, rules

STANDOFF = 1.5          # UDM short of the enemy a shock company stops when it cannot yet charge
AIM_SLACK = 20.0        # degrees off its nearest enemy before a company wheels
HOLD_WAKE = 6.0         # UDM: a battle on Hold this close to the enemy is ordered to Attack
MAX_TRIALS = 80         # lines tried on a copy in one step, at most


def refusals(game: Game) -> list[tuple[str, str, str]]:
    """The lines this player sent that the engine refused: none ever stays in the game (a refused
    line changes nothing and is not recorded: `try_command`), so the list is always empty; kept
    for the benches that print it."""
    return []


def _first(game: Game, side: str, lines, out: list[tuple[str, str]]) -> bool:
    """Play the first of `lines` the engine accepts."""
    for n, line in enumerate(lines):
        if n >= MAX_TRIALS:
            return False
        if try_command(game, side, line, out):
            return True
    return False


# == reading the position ==========================================================================

def _mine(st, side: str, battle: str | None = None) -> list:
    return [c for c in sorted(st.companies.values(), key=lambda c: c.id)
            if c.alive and c.side == side and c.status == "active" and (battle is None or c.battle == battle)]


def _enemies(st, side: str) -> list:
    return [c for c in sorted(st.companies.values(), key=lambda c: c.id)
            if c.alive and c.side != side and not c.hidden and c.status != "waiting"]


def _nearest(sc, st, c) -> tuple[float, object | None]:
    best = min(((checks.distance_between(sc, st, c, e), e.id, e) for e in _enemies(st, c.side)),
               key=lambda t: (t[0], t[1]), default=None)
    return (best[0], best[2]) if best else (999.0, None)


def _aim(c, e) -> float:
    return angle_between(c.facing, bearing_to(c.x, c.y, e.x, e.y))


def _short_range(sc, st, c) -> float:
    missile = str(rules.attr(sc, st, c.id, "missile_weapon", "") or "")
    ranges = completion_shooting.RANGES.get(missile)
    return float(ranges[0]) if ranges else 0.0


# == the phases ====================================================================================

ORDERS_PLAN = {"attacker": "attack", "defender": "hold", "cinc": "hold", "horse": "attack"}


def _order_for(sc, st, side: str, b) -> str:
    if "reserve" in b.id:
        return "hold"
    if side == st.attacker:
        return ORDERS_PLAN["attacker"]
    horse = [c for c in st.companies.values() if c.battle == b.id and rules.arm_of(sc, st, c.id) == "cavalry"]
    if len(horse) * 2 >= len([c for c in st.companies.values() if c.battle == b.id]):
        return ORDERS_PLAN["horse"]
    return ORDERS_PLAN["cinc"] if b.cinc else ORDERS_PLAN["defender"]


def _prebattle(game: Game, side: str, out) -> None:
    st, sc = game.state, game.scenario
    if st.step in ("personalities", "weather", "attacker"):
        _first(game, side, ["roll", "pass"], out)
    elif st.step == "deployment":
        _first(game, side, ["pass", "keep"], out)
    elif st.step == "defences":
        lines = ["defences none"] + [f"camp {x},{y}" for x in (22, 10, 35, 5, 40) for y in
                                     ((1, 29) if side == st.attacker else (1, 29))]
        try_command(game, side, lines[0], out)
        _first(game, side, lines[1:] + ["pass", "keep"], out)
    elif st.step == "placement":
        waiting = sorted({c.battle for c in st.companies.values() if c.side == side and c.status == "waiting"})
        _first(game, side, [f"place {b}" for b in waiting] + ["pass"], out)
    elif st.step == "orders":
        for b in sorted(st.battles.values(), key=lambda b: b.id):
            if b.side == side and not b.cinc or (b.side == side and b.cinc):
                try_command(game, side, f"order {b.id} {_order_for(sc, st, side, b)}", out)
        _first(game, side, ["keep"], out)
    else:
        _first(game, side, ["keep", "pass"], out)


def _command(game: Game, side: str, out) -> None:
    st, sc = game.state, game.scenario
    if st.turn >= 3:
        for b in sorted(st.battles.values(), key=lambda b: b.id):
            if b.side != side or b.order != "hold" or not b.revealed:
                continue
            near = min((_nearest(sc, st, c)[0] for c in _mine(st, side, b.id)), default=999.0)
            if near <= HOLD_WAKE:
                try_command(game, side, f"order {b.id} attack", out)
    _first(game, side, ["keep"], out)


def _activate(game: Game, side: str, out) -> None:
    from engine.italianwars.sequence.activation import untried
    battles = sorted(untried(game.state, side), key=lambda b: (not b.cinc, b.id))
    _first(game, side, [f"activate {b.id}" for b in battles], out)


def _declare(game: Game, side: str, out) -> None:
    from engine.italianwars.sequence.charges import legal_targets
    st, sc = game.state, game.scenario
    bid = st.activation["battle"]
    for c in _mine(st, side, bid):
        if c.charge:
            continue
        targets = sorted(legal_targets(sc, st, c), key=lambda t: (
            checks.distance_between(sc, st, c, st.companies[t]) if t in st.companies else 99.0, t))
        _first(game, side, [f"declare {c.id} {t}" for t in targets], out)
        st = game.state


def _manoeuvre(game: Game, side: str, out) -> None:
    st, sc = game.state, game.scenario
    for c in _mine(st, side, st.activation["battle"]):
        if c.charge:
            continue
        d, e = _nearest(sc, st, c)
        if e is None:
            continue
        aim = _aim(c, e)
        if abs(aim) <= AIM_SLACK:
            continue
        way = "right" if aim > 0 else "left"
        degrees = [a for a in (min(90, round(abs(aim))), 45, 30, 15) if a <= max(15, abs(aim))]
        _first(game, side, [f"manoeuvre {c.id} wheel {a} {way}" for a in degrees], out)
        st = game.state


def _move(game: Game, side: str, out) -> None:
    st, sc = game.state, game.scenario
    for c in _mine(st, side, st.activation["battle"]):
        if c.charge or c.moved:
            continue
        d, e = _nearest(sc, st, c)
        if e is None:
            continue
        role = rules.role_of(sc, st, c.id)
        stop = _short_range(sc, st, c) if role in ("shooting", "skirmishers") else STANDOFF
        want = round(d - max(stop, 1.05), 1)
        if want < 0.5:
            continue
        tries = [want, round(want / 2, 1), 4.0, 2.0, 1.0]
        _first(game, side, [f"move {c.id} advance {t:g}" for t in tries if 0.5 <= t <= want], out)
        st = game.state


def _shoot(game: Game, side: str, out) -> None:
    st, sc = game.state, game.scenario
    for c in [c for c in st.companies.values() if c.side == side and c.alive and not c.shot]:
        foes = sorted(_enemies(st, side), key=lambda e: (checks.distance_between(sc, st, c, e), e.id))
        _first(game, side, [f"shoot {c.id} {e.id}" for e in foes[:6]], out)
        st = game.state


def _respond(game: Game, side: str, out) -> None:
    st = game.state
    charged = sorted({c.charge.get("target") for c in st.companies.values()
                      if c.charge and c.side != side and c.alive})
    for cid in charged:
        if cid in st.companies and st.companies[cid].side == side:
            _first(game, side, [f"respond {cid} {r}" for r in ("fire", "countercharge", "face", "stand")], out)


STEPS = {"declare": _declare, "manoeuvre": _manoeuvre, "move": _move, "shoot": _shoot, "respond": _respond}


def play_step(game: Game) -> list[tuple[str, str]]:
    """The lines of one decision point of the side to act."""
    st = game.state
    side = game.to_act
    out: list[tuple[str, str]] = []
    if side is None or st.phase == "over":
        return out
    if st.pending:
        default = game.ruleset.default_answer(st)
        _first(game, side, [f"react {default}"] if default else [], out) or _first(
            game, side, [f"react {o}" for o in st.pending.get("options", [])], out)
        return out
    if st.phase == "prebattle":
        _prebattle(game, side, out)
    elif st.phase == "command":
        _command(game, side, out)
    elif st.phase == "actions":
        act = st.activation or {}
        if not act.get("battle"):
            _activate(game, side, out)
        else:
            fn = STEPS.get(act["step"])
            if fn is not None:
                fn(game, side, out)
            now = game.state.activation or {}
            if (game.state.phase == "actions" and now.get("battle") == act["battle"]
                    and now.get("step") == act["step"] and game.to_act == side and not game.state.pending):
                _first(game, side, ["pass"], out)
    if not out:
        _first(game, side, ["pass", "keep"], out)
    return out


def play_game(game: Game, max_commands: int = 5000) -> list[tuple[str, str]]:
    """The whole battle (or `max_commands` lines) by `play_step` (engine.core.game.autoplay)."""
    return autoplay(game, play_step, max_commands)


def write_script(scenario_id: str, seed: int) -> str:
    """`python -m engine.italianwars.autoplay fornovo 3` prints a demo script."""
    return demo_script("italianwars", scenario_id, seed, play_game, "engine.italianwars.autoplay")


if __name__ == "__main__":
    import sys
    print_demo_script(write_script, sys.argv)
