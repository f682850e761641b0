"""Whole games of Marengo (issue 14): the bundled demo script replayed strictly to its result, and
seeded games autoplayed to their end (engine/jdg/autoplay.py), with the engine's invariants
checked after every command: no unit on an impassable hex, the stacking limits [5.1], routed
units never in square, eliminated units off the map, the cup never
yielding its last marker [2.2], and the turn's phases in their order [1] A-F."""
from __future__ import annotations

import pytest

from bot.cli import DEMO_DIR, read_script, split_side
from engine.core.game import Game
from engine.jdg.autoplay import play_game, play_step
from engine.jdg.movement.stacking import stack_problem
from engine.jdg.state import PHASES

SCRIPT = DEMO_DIR / "jdg--marengo.txt"


def invariants(game: Game, before=None) -> None:
    """The state after a command breaks none of the rules' standing limits."""
    sc, st = game.scenario, game.state
    stacks: dict[str, list] = {}
    for u in st.units.values():
        if u.status == "eliminated":
            assert u.hex is None, f"{u.id} eliminated but on the map in {u.hex}"
        if u.status in ("waiting", "entering", "off_map"):
            assert u.hex is None, f"{u.id} {u.status} but in {u.hex}"
        if not u.alive:
            continue
        assert sc.map.passable(u.hex), f"{u.id} stands on impassable {u.hex} ({sc.map.terrain_at(u.hex)}) [4.3]"
        assert u.condition in ("good", "disordered", "routed"), u.condition
        if u.condition == "routed":
            assert not u.square, f"routed {u.id} still in square [4.2], [10.2]"
        stacks.setdefault(u.hex, []).append(u)
    for h, units in sorted(stacks.items()):
        # HERALD D91: a routed unit rallied beside another routed unit stands with it until one
        # of them moves; each group of the stack keeps its own limits
        for group in ([u for u in units if u.condition == "routed"], [u for u in units if u.condition != "routed"]):
            if len(group) == 2 and "formation" in stack_problem(sc, group):
                continue              # two routed units of two formations rallied where they stood (D91)
            assert not stack_problem(sc, group), f"{h}: {stack_problem(sc, group)} [5.1]"
        assert len({u.side for u in units}) == 1, f"{h}: both sides in one hex [5.1]"
    if st.phase == "activation" and st.activation is None and not st.pending:
        assert len(st.cup) >= 2, "phase D goes on with one marker left in the cup [2.2]"
    for c in st.commanders.values():
        if c.status == "active" and c.hex is not None:
            assert not any(u.side != c.side for u in st.units_at(c.hex)), f"{c.id} shares a hex with the enemy"
    if before is not None:
        turn0, phase0 = before
        assert (st.turn, PHASES.index(st.phase)) >= (turn0, PHASES.index(phase0)) or st.phase == "over", \
            f"the phases went back: turn {turn0} {phase0} -> turn {st.turn} {st.phase} [1]"
        assert st.turn - turn0 <= 1, "a command skipped a whole turn"


def autoplay_checked(seed: int, max_commands: int = 5000) -> tuple[Game, list[tuple[str, str]]]:
    """A whole game autoplayed, the invariants checked after every command."""
    game = Game.new("jdg", "marengo", seed)
    invariants(game)
    script: list[tuple[str, str]] = []
    stalls = 0
    while game.state.phase != "over" and len(script) < max_commands:
        before = (game.state.turn, game.state.phase)
        n = len(game.history)
        lines = play_step(game)
        assert len(game.history) - n == len(lines)
        invariants(game, before)
        script += lines
        stalls = stalls + 1 if not lines else 0
        assert stalls <= 3, f"the autoplayer is stuck: turn {game.state.turn} {game.state.phase}, " \
                            f"to act {game.to_act}, pending {game.state.pending}"
    return game, script


def test_the_demo_script_replays_strictly_to_its_result():
    """The bundled Marengo demo (bot/demos/jdg--marengo.txt, written by engine/jdg/autoplay.py):
    every line is accepted, the invariants hold after each, and the battle ends with its result
    [13]: the Austrians, 20 VP behind at their orders of turn 4, concede, after fire [7],
    assaults [8], charges, counter-charges, recalls and pursuits [9], counter-assaults [8.7],
    squares [4.2], rallies [11], the rout phase [1.E] and the Austrian reinforcements [5.2]."""
    seed, lines = read_script(SCRIPT)
    game = Game.new("jdg", "marengo", seed)
    for line in lines:
        before = (game.state.turn, game.state.phase)
        side, text = split_side(line, game.ruleset.sides)
        game.apply(side, text)                       # a refusal raises: the script is strict
        invariants(game, before)
    st = game.state
    assert st.phase == "over" and st.winner == "french" and st.result == "Austrian resigns; French wins"
    assert st.vp["french"] - st.vp["austrian"] >= 20 and st.turn == 4
    kinds = {e.kind for r in game.history for e in r.events}
    assert {"fire", "assault", "charge_declared", "pursuit", "counter_assault", "counter_charge", "recall",
            "rally", "square", "rout_move", "reinforcements", "commander_initiative", "strategic_initiative",
            "resign"} <= kinds
    again = Game.new("jdg", "marengo", seed)
    again.replay([split_side(line, again.ruleset.sides) for line in lines])
    assert again.state.to_dict() == st.to_dict()


@pytest.mark.parametrize("seed", [3, 4])
def test_autoplayed_marengo_games_end_without_an_engine_error(seed):
    """Whole games autoplayed to their end [13]: a crash is a failure, a refused line is not; the
    invariants hold after every command. Seed 4 plays all 10 turns, the night turns 9-10 [12] and
    Desaix's arrival on turn 7 [5.2] included, to a result on points."""
    game, script = autoplay_checked(seed)
    st = game.state
    assert st.phase == "over" and st.result
    if seed == 4:
        assert st.turn == 10 and "End of the last turn" in st.result
        kinds = {e.kind for r in game.history for e in r.events}
        assert {"zach", "commander_leaves", "rout_move", "pursuit"} <= kinds
        assert any(u.formation == "boudet" and u.alive for u in st.units.values())
