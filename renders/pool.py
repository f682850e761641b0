"""Drawing in a pool of processes (issue 13): Pillow holds the GIL while it draws, so render
threads never used more than about 1.3 cores; worker processes draw several boards at once.

A `Job` is plain picklable data: the ruleset id, how to get the scenario (a bundled scenario's
id, or an uploaded scenario's text, parsed once per worker and kept by its hash), the state as
the ruleset's `state_to_dict`, the viewer and the size. A worker returns the PNG bytes of
`renders.board_module(ruleset).render_board` -- the same bytes as drawing in-process (each worker
keeps its own terrain and sprite caches). `draw_job` is the function the workers run, and the
fallback when the pool cannot be used.

`shared_pool()` is the process-wide pool: started lazily at first use ('forkserver' context where
the platform has it, else 'spawn': never a fork of a process with threads and an event loop),
one worker per CPU, shut down at exit. `RenderPool.render(job)` falls back to drawing in the
calling process if the pool is broken (a worker killed, no fork server) and starts a new pool for
the next job. Nothing here knows Discord: bot/render_pool.py builds the jobs from the games.
"""
from __future__ import annotations

import atexit
import collections
import concurrent.futures as cf
import hashlib
import heapq
import itertools
import logging
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

PRELOAD = ("engine.core.game", "renders.tacw", "renders.battlecry")


@dataclass(frozen=True)
class Job:
    """One board to draw, as plain data (see the module docstring)."""
    ruleset_id: str
    state: dict
    scenario_id: str | None = None
    scenario_text: str | None = None
    viewer: str | None = None
    size: str = "full"
    scenario: Any = None            # last resort: the scenario object itself (pickled)


def job_for(ruleset: Any, scenario: Any, state: Any, *, viewer: str | None = None, size: str = "full",
            scenario_text: str | None = None, scenario_id: str | None = None) -> Job:
    """The job drawing `state` of `scenario`: by its text when it was uploaded (`scenario_text`),
    else by the bundled scenario's id when `scenario` is the ruleset's own (as loaded), else the
    scenario object itself."""
    data = ruleset.state_to_dict(state)
    if scenario_text:
        return Job(ruleset.id, data, scenario_text=scenario_text, viewer=viewer, size=size)
    sid = scenario_id or getattr(scenario, "id", None)
    if sid and (scenario_id or _is_bundled(ruleset, scenario)):
        return Job(ruleset.id, data, scenario_id=str(sid), viewer=viewer, size=size)
    return Job(ruleset.id, data, viewer=viewer, size=size, scenario=scenario)


def scenario_ref(ruleset: Any, scenario: Any) -> tuple[str | None, Any]:
    """(bundled scenario id, None) when `scenario` is the ruleset's own as loaded, else (None,
    the scenario object) to be pickled: how a worker gets a scenario it was not given as text."""
    sid = getattr(scenario, "id", None)
    if sid and _is_bundled(ruleset, scenario):
        return str(sid), None
    return None, scenario


def resolve_scenario(ruleset_id: str, scenario_id: str | None, scenario: Any) -> Any:
    """The scenario of a `scenario_ref`, in a worker."""
    if scenario is not None:
        return scenario
    from engine.core.game import rulesets
    return rulesets(include_unfinished=True)[ruleset_id].load_scenario(scenario_id)


def _is_bundled(ruleset: Any, scenario: Any) -> bool:
    try:
        return ruleset.load_scenario(scenario.id) is scenario
    except Exception:
        return False


# --- in the worker ------------------------------------------------------------------------------
_PARSED: dict[tuple[str, str], Any] = {}
_PARSED_MAX = 64
_LOCK = threading.Lock()


def _scenario(rs: Any, job: Job) -> Any:
    if job.scenario is not None:
        return job.scenario
    if job.scenario_text is not None:
        key = (rs.id, hashlib.sha256(job.scenario_text.encode()).hexdigest())
        with _LOCK:
            sc = _PARSED.get(key)
        if sc is None:
            sc = rs.parse_scenario(job.scenario_text, source="upload")
            with _LOCK:
                if len(_PARSED) >= _PARSED_MAX:
                    _PARSED.pop(next(iter(_PARSED)))
                _PARSED[key] = sc
        return sc
    return rs.load_scenario(job.scenario_id)


def what_if_job(job: Job, side: str, line: str, time_limit: float, progress_file: str | None = None) -> Any:
    """The whole what-if tree of `line` for `side` in the job's game (engine.core.odds, no
    budget, up to `time_limit` seconds, else the deepest answer finished: `deepen`): /odds's
    long answer after a first one cut short, worked out in a process of its own (`run_alone`)
    so the bot's process keeps answering and the render workers keep drawing (bot/cogs/odds.py).
    The share of the chances worked out so far is written to `progress_file` (`progress_writer`)
    as it goes."""
    from engine.core.game import rulesets
    from engine.core.odds import what_if
    rs = rulesets(include_unfinished=True)[job.ruleset_id]
    return what_if(rs, _scenario(rs, job), rs.state_from_dict(job.state), side, line,
                   budget=None, time_limit=time_limit, progress=progress_writer(progress_file), deepen=True)


def progress_writer(path: str | None) -> Any:
    """A what-if's `progress` that writes the share it is told (0 to 1) into the file `path`,
    whole or not at all (None: no report)."""
    if path is None:
        return None

    def write(share: float) -> None:
        tmp = f"{path}.part"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(f"{share:.4f}")
            os.replace(tmp, path)
        except OSError:                     # a report lost only delays the next one
            pass
    return write


def draw_job(job: Job) -> bytes:
    """The PNG of a job (run in a worker, or in-process as the fallback)."""
    from engine.core.game import rulesets
    from renders import board_module
    rs = rulesets(include_unfinished=True)[job.ruleset_id]
    scenario = _scenario(rs, job)
    state = rs.state_from_dict(job.state)
    return board_module(rs.id).render_board(scenario, state, viewer=job.viewer, size=job.size)


WORKER_NICENESS = 5     # below the bot's own process: its event loop answers first


def _step_back() -> None:
    """Run behind the bot's own process (`WORKER_NICENESS`)."""
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):          # pragma: no cover - no nice() here
        pass


def _warm(jobs: tuple = ()) -> None:
    """Worker initializer: import the engine and the renderers before the first job, and step
    back behind the bot's process (`WORKER_NICENESS`): when the cores are all busy, the event
    loop (every reply, every button) runs before a board is drawn. Then draw `jobs` and throw
    the pictures away (`RenderPool.start`): each worker's terrain tiles, sprites and labels for
    the live games are drawn before their players' next action needs them."""
    import importlib
    _step_back()
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:          # pragma: no cover - a missing module only costs the first job
            pass
    draw_warm(jobs)


def draw_warm(jobs: tuple) -> None:
    """Draw `jobs` and keep only what the caches keep (a worker's start, `_warm`)."""
    global _WARMED
    for job in jobs:
        try:
            draw_job(job)
            _WARMED += 1
        except Exception:          # a board that cannot be drawn is drawn (and fails) when asked
            pass


_WARMED = 0     # the boards this worker drew when it started


def _ready() -> tuple[int, int]:
    """A task that only makes a worker exist (`RenderPool.start`): its pid and the boards it
    drew when it started."""
    return os.getpid(), _WARMED


# --- the pool -----------------------------------------------------------------------------------
def _settle(f: cf.Future, result: Any = None, exc: BaseException | None = None) -> None:
    """Give a future its outcome unless it already has one (cancelled by its caller)."""
    try:
        if exc is not None:
            f.set_exception(exc)
        else:
            f.set_result(result)
    except cf.InvalidStateError:
        pass


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


DEFAULT_COST = 0.1      # seconds: a kind of task not measured yet
URGENCY = 4.0           # a task's place in the queue: its arrival + URGENCY x its kind's cost
COST_WEIGHT = 0.2       # each measurement's weight in its kind's running cost
QUIET = 1.0             # seconds with no task asked for before work ahead (an idle task) starts


class RenderPool:
    """A lazily started process pool that draws `Job`s; falls back to drawing in-process.

    Its own queue, not the executor's first come, first served (issue 13): at most one task per
    worker is handed to the executor, and the next is the waiting task whose arrival plus
    URGENCY times its kind's cost is earliest. A kind is a job's ruleset and size (or a
    function's name), its cost the running mean of the seconds its tasks took. A Battle Cry board
    (~25 ms) therefore goes before a TACW crop (~60 ms) that came up to ~140 ms earlier, and both
    before the chunks of a replay GIF (seconds each) -- a wait in proportion to the work, so the
    short replies no longer queue behind long drawings, and nothing waits for ever.

    Idle tasks (`submit_call(idle=True)`: terrain tiles drawn ahead, `bot.render_pool.
    warm_workers`) wait in a queue of their own, first in, first out, and one is handed over
    only when the pool has been quiet for QUIET seconds (no other task asked for) and fewer than
    `workers - 1` tasks are in flight: with two workers, one stays free for the next board. Not
    merely when a worker is free: on two cores, tiles drawn ahead between the boards of 20
    actions a second took the CPU the boards needed (TACW p95 325 ms instead of 183)."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1
        self._pool: cf.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self.fallbacks = 0
        self._queue: list = []            # heap of (place, seq, kind, fn, args, future)
        self._idle: collections.deque = collections.deque()   # (kind, fn, args, future)
        self._asked = time.monotonic()      # when the last task other than an idle one came
        self._timer: threading.Timer | None = None
        self._seq = itertools.count()
        self._in_flight = 0
        self._queue_lock = threading.Lock()
        self.costs: dict[Any, float] = {}   # kind -> seconds (running mean)

    def _executor(self, warm: tuple = ()) -> cf.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = cf.ProcessPoolExecutor(self.workers, mp_context=_context(),
                                                    initializer=_warm, initargs=(warm,))
            return self._pool

    def start(self, warm: list[Job] | tuple = ()) -> list[cf.Future]:
        """Start the workers now rather than at the first board, each drawing `warm` first (the
        live games' action views when the bot starts: issue 13, a cold worker drew the first
        boards of each battle at 3-4 times the cost, and the first 20 s of replies queued behind
        them). Returns a future per worker, done when it is ready; with the pool already running,
        the boards are only drawn once each, by whichever worker is free."""
        warm = tuple(warm)
        with self._lock:
            running = self._pool is not None
        if running:
            return [self.submit(job) for job in warm]
        try:
            pool = self._executor(warm)
            # no worker is idle yet, so each task starts a worker of its own
            return [pool.submit(_ready) for _ in range(self.workers)]
        except Exception:
            log.exception("render pool unavailable; boards will be drawn in-process")
            return []

    def _reset(self, broken: cf.ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
        try:
            broken.shutdown(wait=False, cancel_futures=True)
        except Exception:          # pragma: no cover
            pass

    def submit(self, job: Job) -> cf.Future:
        """A future of the job's PNG bytes. A broken pool is replaced and the job drawn in this
        process (in a thread): the caller always gets its picture."""
        return self.submit_call(draw_job, job, kind=(job.ruleset_id, job.size))

    def submit_call(self, fn: Any, *args: Any, kind: Any = None, idle: bool = False) -> cf.Future:
        """A future of `fn(*args)` run in a worker (`fn` a module-level function, the arguments
        picklable); run in this process, in a thread, if the pool is broken. Queued in this
        pool's order (see the class); `kind` names its cost (default: the function's name).
        An `idle` task runs only once no other task has been asked for in QUIET seconds, with a
        worker left free, and is cancelled rather than run in this process when the pool is
        broken."""
        kind = kind if kind is not None else getattr(fn, "__name__", repr(fn))
        outer: cf.Future = cf.Future()
        with self._queue_lock:
            if idle:
                self._idle.append((kind, fn, args, outer))
            else:
                self._asked = now = time.monotonic()
                place = now + URGENCY * self.costs.get(kind, DEFAULT_COST)
                heapq.heappush(self._queue, (place, next(self._seq), kind, fn, args, outer))
        self._pump()
        return outer

    def _pump(self) -> None:
        """Hand the executor the next waiting tasks while a worker has none (an idle task only
        once the pool has been quiet, and while another worker stays free)."""
        while True:
            with self._queue_lock:
                if self._in_flight >= self.workers:
                    return
                if self._queue:
                    _, _, kind, fn, args, outer = heapq.heappop(self._queue)
                    idle = False
                elif self._idle and self._in_flight < max(1, self.workers - 1):
                    wait = self._asked + QUIET - time.monotonic()
                    if wait > 0:
                        self._pump_later(wait)
                        return
                    kind, fn, args, outer = self._idle.popleft()
                    idle = True
                else:
                    return
                if outer.done():              # cancelled while it waited
                    continue
                self._in_flight += 1
            self._dispatch(kind, fn, args, outer, idle)

    def _pump_later(self, wait: float) -> None:
        """Look at the idle queue again in `wait` seconds (called holding the queue's lock)."""
        if self._timer is not None:
            return

        def again() -> None:
            with self._queue_lock:
                self._timer = None
            self._pump()
        self._timer = threading.Timer(wait + 0.01, again)
        self._timer.daemon = True
        self._timer.start()

    def _finished(self, kind: Any, took: float | None) -> None:
        with self._queue_lock:
            self._in_flight -= 1
            if took is not None:
                old = self.costs.get(kind)
                self.costs[kind] = took if old is None else old + COST_WEIGHT * (took - old)
        self._pump()

    def _dispatch(self, kind: Any, fn: Any, args: tuple, outer: cf.Future, idle: bool = False) -> None:
        started = time.monotonic()
        released = threading.Event()

        def release(took: float | None) -> None:
            if not released.is_set():
                released.set()
                self._finished(kind, took)

        def in_process() -> None:
            """No worker can take it: drawn in this process, in a thread, but work ahead (an
            idle task) is dropped, not worth a thread of the bot's."""
            if idle:
                outer.cancel()
                release(None)
                return
            self._chain(self._fallback(fn, *args), outer)
            outer.add_done_callback(lambda f: release(None))

        try:
            pool = self._executor()
            inner = pool.submit(fn, *args)
        except Exception:
            if not idle:
                log.exception("render pool unavailable; drawing in-process")
            in_process()
            return

        def done(f: cf.Future) -> None:
            if outer.done():                  # cancelled by the caller
                release(None)
                return
            try:
                result = f.result()
            except cf.CancelledError:
                outer.cancel()
                release(None)
                return
            except cf.process.BrokenProcessPool:
                self._reset(pool)
                if not idle:
                    log.warning("render pool broken; drawing in-process and restarting it")
                in_process()
                return
            except BaseException as exc:      # the drawing itself failed: no retry
                release(time.monotonic() - started)
                _settle(outer, exc=exc)
                return
            release(time.monotonic() - started)
            _settle(outer, result=result)

        inner.add_done_callback(done)
        # cancelling the caller's future cancels the task if no worker has started it
        outer.add_done_callback(lambda f: inner.cancel() if f.cancelled() else None)

    @staticmethod
    def _chain(src: cf.Future, dst: cf.Future) -> None:
        def copy(f: cf.Future) -> None:
            exc = f.exception()
            if exc is not None:
                _settle(dst, exc=exc)
            else:
                _settle(dst, result=f.result())
        src.add_done_callback(copy)

    def _fallback(self, fn: Any, *args: Any) -> cf.Future:
        self.fallbacks += 1
        f: cf.Future = cf.Future()

        def run() -> None:
            try:
                f.set_result(fn(*args))
            except BaseException as exc:
                f.set_exception(exc)
        threading.Thread(target=run, name="render-fallback", daemon=True).start()
        return f

    def render(self, job: Job) -> bytes:
        """The job's PNG, blocking."""
        return self.submit(job).result()

    def map(self, fn: Any, items: list, chunksize: int = 1) -> list:
        """`fn` (a picklable module-level function) over `items` in the workers, in order; in
        this process if the pool is broken."""
        try:
            return list(self._executor().map(fn, items, chunksize=chunksize))
        except cf.process.BrokenProcessPool:
            log.warning("render pool broken; working in-process")
            if self._pool is not None:
                self._reset(self._pool)
            return [fn(x) for x in items]

    def shutdown(self, wait: bool = True) -> None:
        with self._queue_lock:                # work ahead is dropped, not started again
            idle, self._idle = self._idle, collections.deque()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        for *_, outer in idle:
            outer.cancel()
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)


_ALONE: cf.ProcessPoolExecutor | None = None
_ALONE_LOCK = threading.Lock()


def run_alone(fn: Any, *args: Any) -> cf.Future:
    """`fn(*args)` in a process started for it and ended after it, behind the bot's process
    like the render workers: long work (the exact /odds, up to minutes and hundreds of MiB of
    positions kept) that should neither hold a render worker nor leave its memory in one. A
    broken process is replaced at the next call."""
    global _ALONE
    with _ALONE_LOCK:
        if _ALONE is None:
            _ALONE = cf.ProcessPoolExecutor(1, mp_context=_context(), initializer=_step_back,
                                            max_tasks_per_child=1)
            atexit.register(shutdown_shared)
        pool = _ALONE
    try:
        return pool.submit(fn, *args)
    except cf.process.BrokenProcessPool:
        with _ALONE_LOCK:
            if _ALONE is pool:
                _ALONE = None
        pool.shutdown(wait=False, cancel_futures=True)
        return run_alone(fn, *args)


_SHARED: RenderPool | None = None
_SHARED_LOCK = threading.Lock()


def shared_pool() -> RenderPool:
    """The process-wide pool (started at its first job, shut down at exit)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = RenderPool()
            atexit.register(shutdown_shared)
        return _SHARED


def shutdown_shared() -> None:
    global _SHARED, _ALONE
    with _SHARED_LOCK:
        pool, _SHARED = _SHARED, None
    if pool is not None:
        pool.shutdown(wait=True)
    with _ALONE_LOCK:
        alone, _ALONE = _ALONE, None
    if alone is not None:          # an exact /odds under way is not worth waiting for at exit
        for proc in list((getattr(alone, "_processes", None) or {}).values()):
            proc.terminate()
        alone.shutdown(wait=False, cancel_futures=True)
