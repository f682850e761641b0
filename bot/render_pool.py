"""The board PNG of a game, drawn in the render pool's worker processes (renders/pool.py, issue 13)
instead of a thread of the bot's process: Pillow holds the GIL while it draws, so threads drew
one board at a time; the pool draws as many as there are cores, and the event loop stays free.

`render_png(game, viewer, size)` takes what `GameService.render` takes (a LoadedGame or an
ActResult) and returns the same bytes, or None when the ruleset has no drawing or it failed (the
action is committed either way). The job sent to a worker is plain data: the ruleset id, the
state as `ruleset.state_to_dict`, and the scenario as its bundled id or, for an uploaded one, its
text (the row's `scenario_text`; an ActResult carries no row, so it is read from the store once per
scenario object, which the service keeps per game). If the pool cannot draw, the board is drawn in a thread as before.
"""
from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

log = logging.getLogger(__name__)

# the scenario object an ActResult carries (the service keeps one per game) -> its uploaded text,
# or None for a bundled scenario: read from the store once per scenario object
_TEXTS: "weakref.WeakKeyDictionary[Any, str | None]" = weakref.WeakKeyDictionary()
_NOT_READ = object()
_BY_OBJECT: set[tuple[str, str]] = set()   # (ruleset, scenario id) the workers could not load by id

# tests (and a bot that wants threads only) may turn the pool off
USE_POOL = True


def _size_of(game: Any, size: str | None) -> str:
    if size is not None:
        return size
    from .service import ActResult
    return getattr(game.ruleset, "action_view", "full") if isinstance(game, ActResult) else "full"


def _game_id(game: Any) -> int | None:
    row = getattr(game, "row", None)
    return getattr(row, "id", None) if row is not None else getattr(game, "game_id", None)


async def _scenario_source(game: Any, store: Any) -> tuple[str | None, str | None] | None:
    """(scenario text, scenario id) of the game's row, or None when it cannot be told."""
    row = getattr(game, "row", None)
    if row is not None:
        return getattr(row, "scenario_text", None), getattr(row, "scenario_id", None)
    gid = _game_id(game)
    if gid is None:
        return None
    try:
        text = _TEXTS.get(game.scenario, _NOT_READ)
    except TypeError:                     # a scenario that cannot be weakly referenced
        text = _NOT_READ
    if text is _NOT_READ:
        if store is None:
            return None
        row = await store.get_game(gid)
        if row is None:
            return None
        text = row.scenario_text or None
        try:
            _TEXTS[game.scenario] = text
        except TypeError:
            pass
    return text, None


async def _job_of(game: Any, viewer: str | None, size: str, store: Any) -> Any:
    """The pool's job drawing `game`: its scenario as uploaded text, as its bundled id, or as
    the object itself when the workers could not load it by id before (`_BY_OBJECT`)."""
    from renders.pool import Job, job_for
    source = await _scenario_source(game, store)
    text, sid = source if source is not None else (None, None)
    job = job_for(game.ruleset, game.scenario, game.state, viewer=viewer, size=size,
                  scenario_text=text, scenario_id=None if text else sid)
    if job.scenario_id and (job.ruleset_id, job.scenario_id) in _BY_OBJECT:
        job = Job(job.ruleset_id, job.state, viewer=viewer, size=size, scenario=game.scenario)
    return job


async def render_png(game: Any, viewer: str | None = None, size: str | None = None, *,
                     store: Any = None) -> bytes | None:
    """The board PNG of `game` (a LoadedGame or an ActResult), drawn in the render pool; `store`
    (the service's) lets an ActResult's uploaded scenario be read once. None if the ruleset has
    no drawing or the drawing failed."""
    from .service import GameService
    size = _size_of(game, size)
    try:
        from renders import board_module
        board_module(game.ruleset.id)
    except Exception:
        return None                       # no drawing for this ruleset: text only
    if not USE_POOL:
        return await asyncio.to_thread(GameService.render, game, viewer, size)
    job = None
    try:
        from renders.pool import shared_pool
        job = await _job_of(game, viewer, size, store)
        return await asyncio.wrap_future(shared_pool().submit(job))
    except Exception as exc:
        # e.g. a scenario the workers cannot load by its id (a scenario directory only this
        # process sees): it goes as the object from now on; this board is drawn here, where a
        # drawing that really fails is logged (GameService.render)
        if job is not None and job.scenario_id:
            _BY_OBJECT.add((job.ruleset_id, job.scenario_id))
        log.debug("pooled render failed for %s (%r); drawing in a thread", game.ruleset.id, exc)
        return await asyncio.to_thread(GameService.render, game, viewer, size)


WARM_GAMES = 64      # the live games whose boards each render worker draws when the bot starts


async def warm_workers(games: list[Any], *, store: Any = None) -> list:
    """Start the render pool with every worker drawing the action view of `games` (LoadedGames:
    the games just resumed, at most WARM_GAMES), so the first boards after a start cost what
    later ones do (`renders.pool.RenderPool.start`; issue 13: with 50 live games the replies
    queued for the first 20-25 s behind cold workers). Returns the workers' futures, done when
    each is ready (the bot does not wait; the load bench does); with the pool already running,
    each board is drawn once by whichever worker is free. Nothing when the pool is off."""
    if not USE_POOL or not games:
        return []
    from renders import board_module
    from renders.pool import shared_pool
    jobs = []
    for game in games[:WARM_GAMES]:
        try:
            board_module(game.ruleset.id)
            jobs.append(await _job_of(game, None, getattr(game.ruleset, "action_view", "full"), store))
        except Exception:            # no drawing for this ruleset, or a job that cannot be made
            continue
    if not jobs:
        return []
    pool = shared_pool()
    ready = await asyncio.to_thread(pool.start, jobs)
    for fn, args in await asyncio.to_thread(_idle_tasks, games[:WARM_GAMES]):
        pool.submit_call(fn, *args, kind="idle", idle=True)
    return ready


def _idle_tasks(games: list[Any]) -> list[tuple[Any, tuple]]:
    """What the resumed games' drawing modules would draw ahead while the workers are idle (an
    optional `idle_tasks(scenario, states)` of the ruleset's renderer: TACW's terrain tiles),
    once per scenario. Pure CPU (it looks for tiles on disk): run off the event loop."""
    from renders import board_module
    by_scenario: dict[tuple[str, int], list[Any]] = {}
    for game in games:
        by_scenario.setdefault((game.ruleset.id, id(game.scenario)), []).append(game)
    tasks: list[tuple[Any, tuple]] = []
    for (rid, _), same in by_scenario.items():
        try:
            make = getattr(board_module(rid), "idle_tasks", None)
            if make is not None:
                tasks += make(same[0].scenario, [g.state for g in same])
        except Exception:              # work ahead is never worth a failed start
            log.exception("no work ahead for %s", rid)
    return tasks
