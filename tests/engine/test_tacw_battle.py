"""A whole scripted Edgehill (fixed seed, the bundled demo script) and seeded autoplayed battles:
every command goes through the engine, the battle ends on its last turn with a victory level,
and the command log replays to the same state."""
from pathlib import Path

import pytest

from bot.cli import DEMO_DIR, read_script, split_side
from engine.core.game import Game
from engine.tacw.autoplay import play_game

SCRIPT = DEMO_DIR / "tacw--edgehill.txt"


def test_scripted_edgehill_runs_to_its_end_and_replays():
    seed, lines = read_script(SCRIPT)
    g = Game.new("tacw", "edgehill", seed)
    running = []
    for line in lines:
        side, text = split_side(line, g.ruleset.sides)
        g.apply(side, text)
        running.append(sum(g.state.vp.values()))
    st = g.state
    # the board shows the running score, as it would stand if the battle ended then
    assert running[0] == 0 and 0 < running[len(running) // 2] and running[-1] == sum(st.vp.values())
    assert st.phase == "over" and st.turn == 9
    assert "victory" in st.result.lower() and st.vp["royalist"] + st.vp["parliament"] > 0
    kinds = {e.kind for r in g.history for e in r.events}
    assert {"initiative", "continuation", "move", "fire", "artillery", "close_combat", "morale_check",
            "retreat", "pursuit", "rout", "leader_replacement", "victory"} <= kinds
    assert any(u.status == "eliminated" for u in st.units.values())
    again = Game.new("tacw", "edgehill", seed)
    for rec in g.history:
        again.apply(rec.side, rec.text)
    assert again.state.state_hash() == st.state_hash()


@pytest.mark.parametrize("seed", [1, 2])
def test_autoplayed_edgehill_battles_end_without_error(seed):
    g = Game.new("tacw", "edgehill", seed)
    play_game(g)
    assert g.state.phase == "over" and g.state.turn == 9
