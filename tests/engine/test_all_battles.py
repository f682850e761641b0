"""Every battle of every playable ruleset (issue 4): the scenario file loads, every unit stands
on a legal hex of its map (on an open table, inside the table), a new game starts, and seeded
autoplay gets well into the battle without an error. Each battle's own scripted opening lives in
its ruleset's test files."""
from __future__ import annotations

import importlib

import pytest

from engine.core.game import Game, rulesets

BATTLES = [(rid, sid) for rid, rs in sorted(rulesets().items()) for sid, _ in rs.scenarios()]


def test_the_books_battles_are_all_offered():
    ids = {rid: {s for r, s in BATTLES if r == rid} for rid in rulesets()}
    assert len(ids["battlecry"]) == 15, sorted(ids["battlecry"])       # BC §7: fifteen scenarios
    assert ids["tacw"] == {"edgehill", "first-newbury", "marston-moor", "second-newbury", "naseby"}
    assert ids["italianwars"] == {"fornovo", "ravenna"}               # issue 16: two ready battles


def _unit_hexes(rid: str, sc) -> list[tuple[str, str]]:
    if rid == "battlecry":
        return [(u.id, u.hex) for u in sc.units]
    if rid == "jdg":                      # reinforcements have no hex until they enter [5.2]
        return [(u.id, u.hex) for u in sc.units if u.hex]
    if rid == "lion":                     # an open table: the centre of each base's front edge
        return [(u.id, (u.x, u.y)) for u in sc.units]
    if rid == "italianwars":              # an open table in UDM: the centre of each company's front edge
        return [(c.id, (c.x, c.y)) for c in sc.companies]
    return [(u.id, h) for u in sc.units for h in u.hexes]


def _legal(rid: str, sc, h: str) -> bool:
    if rid == "battlecry":
        return h in sc.grid and not sc.terrain_at(h).impassable
    if rid == "jdg":
        return h in sc.map.grid and sc.map.passable(h)
    if rid == "lion":                     # the loader refuses overlaps, water and the wrong terrain
        return 0 <= h[0] <= sc.width and 0 <= h[1] <= sc.height
    if rid == "italianwars":              # the loader refuses overlaps and impassable ground (HERALD D26)
        return 0 <= h[0] <= sc.width and 0 <= h[1] <= sc.height
    return h in sc.grid and not sc.hex_impassable(h)


@pytest.mark.parametrize("rid,sid", BATTLES)
def test_every_unit_sits_on_a_legal_hex_and_the_battle_plays(rid, sid):
    rs = rulesets()[rid]
    sc = rs.load_scenario(sid)
    placed = _unit_hexes(rid, sc)
    assert placed, "a battle without units"
    bad = [(uid, h) for uid, h in placed if not _legal(rid, sc, h)]
    assert not bad, f"units off the map or on impassable ground: {bad}"
    game = Game.new(rid, sid, 11)
    assert game.to_act in rs.sides
    autoplay = importlib.import_module(f"engine.{rid}.autoplay")
    lines = autoplay.play_game(game, max_commands=120)
    assert len(lines) >= 40, "autoplay stalled early"
    assert len(game.history) == len(lines)
