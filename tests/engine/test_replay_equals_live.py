"""Issue 13: the state's representation was made fast (a tree copy with per-class plans instead
of deepcopy, an index of the TACW units' hexes, map answers kept in `grid.memo`); this checks,
after every command of the demo battles and of autoplayed ones, that nothing of it shows:

- the state saved as JSON and read back is the same state, and a game continued from it goes on
  exactly as the live game did (the store's keyframes, bot/store_base.py);
- the log replayed in place (`replay_in_place`, one working state) ends as the live game did,
  with the same events;
- `copy()` equals the original and shares no container with it (`apply` changes only its copy);
- TACW's `units_at` index answers as a scan of every unit would.
"""
from __future__ import annotations

import json

import pytest

from bot.cli import DEMO_DIR, read_script, split_side
from engine.core.game import Game
from engine.core.state import tree_copy

DEMOS = sorted(p.stem for p in DEMO_DIR.glob("*.txt"))
BRANCH_EVERY = 20        # from every 20th state, a game continued from JSON
BRANCH_LENGTH = 8


def _json(rs, state) -> dict:
    return json.loads(json.dumps(rs.state_to_dict(state)))


def _shared_containers(a, b, path="state") -> list[str]:
    """Paths where the copy `b` holds the very same list/dict/object as `a`."""
    out = []
    if isinstance(a, (list, dict)) or hasattr(a, "__dict__"):
        if a is b:
            return [path]
    if isinstance(a, dict):
        for k in a:
            if not k.startswith("_memo_") if isinstance(k, str) else True:
                out += _shared_containers(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            out += _shared_containers(x, y, f"{path}[{i}]")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        for k, v in vars(a).items():
            if not k.startswith("_memo_"):
                out += _shared_containers(v, vars(b)[k], f"{path}.{k}")
    return out


def _check_units_at(state) -> None:
    hexes = {h for u in state.units.values() for h in u.hexes}
    for h in hexes:
        scan = [u.id for u in state.units.values() if u.alive and h in u.hexes]
        assert [u.id for u in state.units_at(h)] == scan, h


def _play(rid: str, sid: str, seed, lines: list[tuple[str, str]]) -> None:
    g = Game.new(rid, sid, seed)
    rs, sc = g.ruleset, g.scenario
    states = [g.state]
    for side, text in lines:
        g.apply(side, text)
        states.append(g.state)
    # the store's replays change one state in place (engine.core.game.replay_in_place)
    replayed = Game.new(rid, sid, seed)
    replayed.replay(lines)
    assert _json(rs, replayed.state) == _json(rs, states[-1]), "the in-place replay went another way"
    assert [[e.to_dict() for e in r.events] for r in replayed.history] == \
        [[e.to_dict() for e in r.events] for r in g.history]
    for i, st in enumerate(states):
        live = _json(rs, st)
        back = rs.state_from_dict(live)
        assert _json(rs, back) == live, f"JSON round trip differs after command {i}"
        twin = st.copy()
        assert _json(rs, twin) == live and not _shared_containers(st, twin), i
        if rid == "tacw":
            _check_units_at(st)
        if i % BRANCH_EVERY == 0 and i < len(lines):
            branch = Game(rs, sc, seed, back)
            for side, text in lines[i:i + BRANCH_LENGTH]:
                branch.apply(side, text)
            assert _json(rs, branch.state) == _json(rs, states[min(i + BRANCH_LENGTH, len(lines))]), (
                f"a game continued from the JSON of state {i} went another way")


@pytest.mark.parametrize("stem", DEMOS)
def test_every_demo_state_replays_from_json_and_copies_cleanly(stem):
    rid, sid = stem.split("--", 1)
    seed, lines = read_script(DEMO_DIR / f"{stem}.txt")
    g = Game.new(rid, sid, seed)
    _play(rid, sid, seed, [split_side(line, g.ruleset.sides) for line in lines])


@pytest.mark.parametrize("sid", ["marston-moor", "naseby", "second-newbury", "first-newbury"])
def test_autoplayed_tacw_battles_replay_from_json(sid):
    from engine.tacw.autoplay import play_game
    g = Game.new("tacw", sid, 11)
    lines = play_game(g, max_commands=160)
    assert len(lines) > 100
    _play("tacw", sid, 11, lines)


def test_a_tree_copy_shares_nothing_mutable():
    from dataclasses import dataclass, field

    @dataclass
    class Leaf:
        name: str
        tags: list[str] = field(default_factory=list)
        extra: dict = field(default_factory=dict)

    x = {"a": [Leaf("p", ["t"], {"k": [1, 2]})], "b": (1, [2]), "c": {"s"}}
    y = tree_copy(x)
    assert y == x
    y["a"][0].tags.append("u")
    y["a"][0].extra["k"].append(3)
    y["b"][1].append(9)
    assert x == {"a": [Leaf("p", ["t"], {"k": [1, 2]})], "b": (1, [2]), "c": {"s"}}


def test_an_autoplayed_marengo_replays_from_json():
    """Jours de Gloire too: an autoplayed Marengo (engine/jdg/autoplay.py), every state after every
    command through JSON, the in-place replay and copy."""
    from engine.jdg.autoplay import play_game
    g = Game.new("jdg", "marengo", 11)
    lines = play_game(g, max_commands=200)
    assert len(lines) >= 200
    _play("jdg", "marengo", 11, lines)
