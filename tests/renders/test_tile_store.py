"""Terrain tiles on disk (renders/tile_store.py, issue 13): a tile drawn by one worker, or
before a restart, is read back instead of drawn, and a crop cut from tiles read back is the
same picture; a changed drawing or a damaged file never shows an old or broken tile."""
from __future__ import annotations

from pathlib import Path

from engine.core.game import Game
from renders import tacw, tile_store
from renders.tacw_geometry import _packed_tile, _terrain_tile


def _clear_memory() -> None:
    _terrain_tile.cache_clear()
    _packed_tile.cache_clear()


def _first_crop(monkeypatch, folder) -> tuple[Game, bytes]:
    """A Naseby crop drawn with nothing in memory and tiles kept in `folder`."""
    monkeypatch.setenv("HERALD_TILE_CACHE", str(folder))
    tile_store.folder.cache_clear()
    g = _game()
    _clear_memory()
    return g, tacw.render_board(g.scenario, g.state, size="crop")


def _game() -> Game:
    from engine.tacw.autoplay import play_game
    g = Game.new("tacw", "naseby", 5)
    play_game(g, max_commands=40)
    return g


def test_a_crop_drawn_from_tiles_on_disk_is_the_same_picture(monkeypatch, tmp_path):
    try:
        g, first = _first_crop(monkeypatch, tmp_path)
        files = sorted(tmp_path.glob("*.tile"))
        assert files                                   # the tiles it drew are on disk
        _clear_memory()                                # a new worker, or a restart
        drawn = []
        monkeypatch.setattr("renders.tacw_geometry._terrain_view",
                            lambda *a: drawn.append(a) or (_ for _ in ()).throw(AssertionError("drawn")))
        assert tacw.render_board(g.scenario, g.state, size="crop") == first
        assert drawn == []                             # every tile was read back, none drawn
    finally:
        tile_store.folder.cache_clear()


def test_a_damaged_tile_is_drawn_again_and_off_keeps_nothing(monkeypatch, tmp_path):
    try:
        g, first = _first_crop(monkeypatch, tmp_path)
        for f in tmp_path.glob("*.tile"):
            f.write_bytes(f.read_bytes()[:20])         # cut short
        _clear_memory()
        assert tacw.render_board(g.scenario, g.state, size="crop") == first
        monkeypatch.setenv("HERALD_TILE_CACHE", "off")
        tile_store.folder.cache_clear()
        assert tile_store.folder() is None
        tile_store.write("x", (1, 1), b"...")
        assert tile_store.read("x") is None
    finally:
        tile_store.folder.cache_clear()


def test_the_drawing_version_changes_with_the_drawing_code(tmp_path, monkeypatch):
    mine = tile_store.drawing_version("tacw_geometry.py", "tacw_art.py", "common.py")
    assert mine == tile_store.drawing_version("tacw_geometry.py", "tacw_art.py", "common.py")
    assert mine != tile_store.drawing_version("tacw_geometry.py", "tacw_art.py")
    assert len(mine) == 12 and Path(tile_store.__file__).name == "tile_store.py"


def test_idle_workers_draw_the_tiles_not_yet_on_disk_nearest_the_units_first(monkeypatch, tmp_path):
    """Issue 13: when the bot starts, the TACW tiles of the resumed battles at the usual crop
    zoom are queued for idle workers (renders.tacw.idle_tasks), those where units stand first;
    once drawn they are on disk and nothing is left to do. A crop then draws no terrain."""
    from renders.tacw import ZOOMS, idle_tasks
    from renders.tacw_geometry import TILE, _map_geometry, tiles_not_on_disk
    try:
        monkeypatch.setenv("HERALD_TILE_CACHE", str(tmp_path))
        tile_store.folder.cache_clear()
        g = _game()
        _clear_memory()                        # tiles drawn by other tests went to their folders
        geo = _map_geometry(g.scenario.cols, g.scenario.rows, ZOOMS[-1])
        every = -(-geo.width // TILE) * -(-geo.height // TILE)
        tasks = idle_tasks(g.scenario, [g.state])
        tiles = [t for _, (_, group) in tasks for t in group]
        assert {args[0] for _, args in tasks} == {"naseby"} and len(tiles) == every == len(set(tiles))
        unit_hex = next(h for u in g.state.units.values() if u.alive for h in u.hexes)
        x, y = geo.hex_center(unit_hex)
        assert (ZOOMS[-1], int(x) // TILE, int(y) // TILE) in tiles[:len(tiles) // 2]
        for fn, args in tasks[:5]:
            fn(*args)
        assert len(list(tmp_path.glob("*.tile"))) == len(tiles[:10])
        assert len(tiles_not_on_disk(g.scenario, ZOOMS[-1])) == every - 10
        for fn, args in tasks[5:]:
            fn(*args)
        assert idle_tasks(g.scenario, [g.state]) == []
        _clear_memory()
        monkeypatch.setattr("renders.tacw_geometry._terrain_view",
                            lambda *a: (_ for _ in ()).throw(AssertionError("drawn")))
        assert tacw.crop_geometry(g.scenario, g.state).zoom == ZOOMS[-1]
        tacw.render_board(g.scenario, g.state, size="crop")         # every tile read from disk
        monkeypatch.setenv("HERALD_TILE_CACHE", "off")
        tile_store.folder.cache_clear()
        assert tiles_not_on_disk(g.scenario, ZOOMS[-1]) == []       # nothing shared to draw for
    finally:
        tile_store.folder.cache_clear()
        _clear_memory()
