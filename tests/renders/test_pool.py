"""The render pool (renders/pool.py, issue 13) draws in worker processes the same PNG as drawing
in-process, from plain data (ruleset id, scenario id or text, the state as a dict), and still
answers when its workers are gone."""
from __future__ import annotations

import concurrent.futures as cf

import pytest

from engine.core.game import Game
from renders import board_module
from renders.pool import Job, RenderPool, draw_job, job_for


def _game(rid: str, sid: str, lines: int) -> Game:
    import importlib
    g = Game.new(rid, sid, 3)
    importlib.import_module(f"engine.{rid}.autoplay").play_game(g, max_commands=lines)
    return g


@pytest.fixture(scope="module")
def pool():
    p = RenderPool(workers=2)
    yield p
    p.shutdown()


@pytest.mark.parametrize("rid, sid, size", [("tacw", "edgehill", "crop"), ("tacw", "naseby", "full"),
                                            ("battlecry", "first-bull-run", "crop")])
def test_the_pool_draws_the_same_png_as_in_process(pool, rid, sid, size):
    g = _game(rid, sid, 30)
    job = job_for(g.ruleset, g.scenario, g.state, size=size)
    assert job.scenario_id == sid and job.scenario is None      # a bundled scenario goes by its id
    mine = board_module(rid).render_board(g.scenario, g.state, viewer=None, size=size)
    assert pool.render(job) == mine
    assert draw_job(job) == mine


def test_an_uploaded_scenario_goes_as_its_text(pool):
    from engine.tacw.scenario.schema import SCENARIO_DIR
    g = Game.new("tacw", "edgehill", 1)
    text = (SCENARIO_DIR / "edgehill.toml").read_text(encoding="utf-8")
    job = job_for(g.ruleset, g.scenario, g.state, scenario_text=text)
    assert job.scenario_id is None and job.scenario_text == text
    assert pool.render(job) == board_module("tacw").render_board(g.scenario, g.state)


def test_a_broken_pool_draws_in_process_and_starts_again():
    g = Game.new("battlecry", "first-bull-run", 1)
    job = job_for(g.ruleset, g.scenario, g.state)
    p = RenderPool(workers=1)
    try:
        first = p.render(job)
        for proc in list(p._executor()._processes.values()):     # the worker dies
            proc.kill()
            proc.join()
        assert p.render(job) == first            # drawn in-process (or by a new pool)
        assert p.render(job) == first            # and the pool works again
    finally:
        p.shutdown()


def test_a_drawing_that_fails_raises(pool):
    bad = Job("battlecry", {"nonsense": True}, scenario_id="first-bull-run")
    with pytest.raises(Exception):
        pool.render(bad)


def test_a_long_replay_drawn_in_the_pool_is_the_replay_drawn_here(pool):
    """renders/replay.py: the boards of a long replay drawn by the workers, in chunks, give the
    same GIF, byte for byte, as drawing them one after the other in this process; the progress
    callback counts the boards up to all of them."""
    from renders.replay import POOL_MIN_FRAMES, Frame, replay_gif
    g = Game.new("tacw", "edgehill", 3)
    import importlib
    frames = [Frame(g.state, "#0 opening")]
    autoplay = importlib.import_module("engine.tacw.autoplay")
    while len(frames) < POOL_MIN_FRAMES + 5:
        lines = autoplay.play_step(g)
        assert lines
        frames += [Frame(g.state, f"#{len(frames)} {lines[-1][1]}")]
    seen = []
    pooled = replay_gif("tacw", g.scenario, frames, pool=pool, max_bytes=50 << 20,
                        progress=lambda done, total: seen.append((done, total)))
    here = replay_gif("tacw", g.scenario, frames, pool=False, max_bytes=50 << 20)
    assert (pooled.width, pooled.frames, pooled.stride) == (here.width, here.frames, 1)
    assert pooled.gif == here.gif
    assert seen[-1] == (len(frames), len(frames)) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_start_makes_every_worker_draw_the_live_games_first():
    """RenderPool.start (the bot's start, bot/render_pool.warm_workers): every worker exists at
    once, and each runs the initializer that draws the warm boards before its first task (any
    worker answering says it drew the good one); a board that cannot be drawn does not stop a
    worker."""
    g = _game("tacw", "edgehill", 30)
    good = job_for(g.ruleset, g.scenario, g.state, size="crop")
    bad = Job("battlecry", {"nonsense": True}, scenario_id="first-bull-run")
    p = RenderPool(workers=2)
    try:
        ready = [f.result(timeout=120) for f in p.start([good, bad])]
        assert len(p._executor()._processes) == 2              # both workers started by start()
        assert all(warmed == 1 for _, warmed in ready)          # each answer: the good board drawn
        assert p.render(good) == board_module("tacw").render_board(g.scenario, g.state, size="crop")
        again = p.start([good])                  # already running: drawn once, not per worker
        assert len(again) == 1 and again[0].result(timeout=60) == p.render(good)
    finally:
        p.shutdown()


def test_the_initializer_draws_the_warm_boards_into_the_caches():
    import renders.pool as pool_module
    from renders.tacw_geometry import _terrain_tile
    g = _game("tacw", "naseby", 30)
    _terrain_tile.cache_clear()
    before, tiles = pool_module._WARMED, _terrain_tile.cache_info()["misses"]
    pool_module.draw_warm((job_for(g.ruleset, g.scenario, g.state, size="crop"),
                           Job("battlecry", {"nonsense": True}, scenario_id="first-bull-run")))
    assert pool_module._WARMED == before + 1
    assert _terrain_tile.cache_info()["misses"] > tiles          # its terrain tiles were drawn


def test_short_tasks_go_before_long_ones_that_came_a_little_earlier():
    """The pool's own queue (issue 13): with its one worker busy, a task of a kind measured
    as short is handed over before one of a long kind queued just before it; a long task that
    has waited longer than URGENCY times the difference goes first."""
    import time
    from renders import pool as pool_module
    p = RenderPool(workers=1)
    try:
        p.start().pop().result(timeout=60)               # the worker exists
        p.costs.update({"long": 0.5, "short": 0.02})
        busy = p.submit_call(time.sleep, 0.6)           # the worker is taken
        long_ = p.submit_call(time.time, kind="long")
        short = p.submit_call(time.time, kind="short")
        busy.result(timeout=30)
        assert short.result(timeout=30) < long_.result(timeout=30)      # short ran first
        # a long task queued more than URGENCY x (0.1 - 0.02) = 0.32 s before a short one goes first
        p.costs.update({"long2": 0.1, "short2": 0.02})
        busy = p.submit_call(time.sleep, 0.8)
        waited = p.submit_call(time.time, kind="long2")
        time.sleep(0.45)
        later = p.submit_call(time.time, kind="short2")
        busy.result(timeout=30)
        assert waited.result(timeout=30) < later.result(timeout=30)
        assert p.costs["short"] < 0.5 and p._in_flight == 0 and not p._queue
    finally:
        p.shutdown()



def _start_then_sleep(seconds: float) -> float:
    """A task for the workers: when it started (monotonic, the same clock across processes on
    one machine), after sleeping `seconds`."""
    import time
    started = time.monotonic()
    time.sleep(seconds)
    return started


def test_idle_tasks_wait_for_a_quiet_pool_and_leave_a_worker_free(monkeypatch):
    """Work drawn ahead (`submit_call(idle=True)`, issue 13) starts only once no board has been
    asked for in QUIET seconds, goes after every board that waits, and with two workers never
    takes the second one: a board that comes meanwhile starts at once. A pool shut down drops
    the work ahead instead of starting again for it."""
    import time
    from renders import pool as pool_module
    monkeypatch.setattr(pool_module, "QUIET", 0.8)
    p = RenderPool(workers=2)
    try:
        for f in p.start():
            f.result(timeout=60)                              # both workers exist
        for f in [p.submit_call(_start_then_sleep, 0.1) for _ in range(2)]:
            f.result(timeout=60)                              # ... and have imported this module
        asked = p._asked
        ahead = [p.submit_call(_start_then_sleep, 0.6, idle=True) for _ in range(3)]
        assert ahead[0].result(timeout=30) >= asked + 0.8     # not before the pool was quiet
        while p._in_flight == 0:                              # the second one, once the first ends
            time.sleep(0.01)
        assert (p._in_flight, len(p._idle)) == (1, 1)         # one worker on work ahead, one free
        asked = time.monotonic()
        assert p.submit_call(_start_then_sleep, 0).result(timeout=30) - asked < 0.3   # not 0.6
        busy = [p.submit_call(_start_then_sleep, 0.4) for _ in range(3)]
        asked = p._asked
        boards = [f.result(timeout=30) for f in busy]
        last = ahead[2].result(timeout=30)
        assert last >= max(boards) + 0.4 - 0.05 and last >= asked + 0.8    # after them, and quiet
        stopped = [p.submit_call(_start_then_sleep, 0.5), p.submit_call(_start_then_sleep, 0, idle=True)]
    finally:
        p.shutdown()
    assert stopped[1].cancelled() and not p._idle and p._timer is None


def test_an_exact_what_if_worked_out_in_a_process_of_its_own_is_the_one_worked_out_here():
    """/odds's exact follow-up (bot/cogs/odds.py, issue 13) runs the whole what-if tree in a
    process of its own (`run_alone`, a new one each time: its memory goes back to the system):
    the same answer as in this process, and the rules' refusal comes back as the same error."""
    import os
    from engine.core.errors import HeraldError
    from engine.core.odds import what_if
    from renders.pool import run_alone, what_if_job
    from bot.cli import DEMO_DIR, read_script, split_side
    seed, lines = read_script(DEMO_DIR / "tacw--edgehill.txt")
    g = Game.new("tacw", "edgehill", seed)
    at = next(i for i, x in enumerate(lines) if " attack " in x)     # the demo's first attack
    for x in lines[:at]:
        g.apply(*split_side(x, g.ruleset.sides))
    side, line = split_side(lines[at], g.ruleset.sides)
    here = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None)
    job = job_for(g.ruleset, g.scenario, g.state)
    there = run_alone(what_if_job, job, side, line, 60.0).result(timeout=120)
    assert [(o.label, o.probability) for o in there.outcomes] == [(o.label, o.probability) for o in here.outcomes]
    assert there.horizon is None and there.text() == here.text() and len(here.outcomes) > 1
    with pytest.raises(HeraldError, match="cannot be asked"):
        run_alone(what_if_job, job, side, "zzz", 60.0).result(timeout=120)
    pids = {run_alone(os.getpid).result(timeout=60) for _ in range(2)}
    assert len(pids) == 2 and os.getpid() not in pids


def test_the_progress_of_an_exact_what_if_is_written_whole_to_its_file(tmp_path):
    """renders.pool.progress_writer: what the cog reads while /odds's exact answer is worked
    out (the share of the chances, 0 to 1), replaced whole each time; no file, no writer."""
    from renders.pool import progress_writer
    path = tmp_path / "odds.progress"
    write = progress_writer(str(path))
    write(0.125)
    assert path.read_text() == "0.1250"
    write(2 / 3)
    assert float(path.read_text()) == pytest.approx(2 / 3, abs=1e-4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odds.progress"]    # no part file left
    assert progress_writer(None) is None
    progress_writer(str(tmp_path / "gone" / "x"))(0.5)        # a folder gone: the report is lost, no error
