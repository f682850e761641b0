"""Crash safety (issue 17, "Proof, in the test suite"): a child process (tests/bot/crash_child.py)
plays a scripted multi-game run through the game service, as the bot does (four games at once, two
Battle Cry and two TACW from their demo scripts, two of them ending with a resignation, every
action's board drawn after it is acknowledged); the test kills it with SIGKILL at random points
and starts it again, for SQLite and for PostgreSQL, then lets the last run finish and checks:

- every action the service acknowledged (the child's ``ACK <ch> <seq> <text>``) is in the store;
- each game's log is its script's lines, in order, seq 1..n with no gap and no line twice (each
  with the interaction id of its line), the whole script played, and the resigned games over;
- each game's state as the service loads it (newest keyframe + the commands after it, by a
  service with nothing in memory) has the state hash of a fresh replay of its log from the seed,
  and its newest keyframe equals the replay of the log up to it (`GameService.verify`).

Where the kills land: each kill aims at one phase of an action in turn, adjudication (after the
child's ``BEGIN``: load and rules), the commit (after ``COMMIT``: the store's transaction) or the
rendering (after ``ACK``), waiting for a random number of those markers and then a random delay
drawn from that phase's duration measured so far in this run (seeded `random`). Where each kill
really landed is read afterwards from what the child printed before it died (its output is
flushed line by line, so a SIGKILL loses none of it): for each game its last marker. The test
prints the kills and what was in flight at each.
"""
from __future__ import annotations

import asyncio
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.app import make_service
from bot.history import state_hash
from bot.service import _seed_value
from bot.stores import open_store
from engine.core.commands import dice_faces, parse, split_side
from engine.core.game import Game
from tests.bot import crash_child

CHILD = Path(crash_child.__file__)
# the run's size: lines of each demo script played (kept short: the drawing dominates the time)
LIMITS = {"battlecry": 16, "tacw": 10}
KILLS = 8
SEED = 17
RUN_TIMEOUT = 120.0        # a child that neither finishes nor dies is killed, and the test fails
PHASES = {"BEGIN": "adjudication", "COMMIT": "commit", "ACK": "rendering"}
NEXT = {"BEGIN": "COMMIT", "COMMIT": "ACK", "ACK": "DRAWN"}


class Child:
    """One run of the child: its output lines as they come, with the time each arrived."""

    def __init__(self, target: str, stderr_path: Path):
        self.stderr = stderr_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), target, "--tacw-lines", str(LIMITS["tacw"]),
             "--bc-lines", str(LIMITS["battlecry"])],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True, cwd=str(CHILD.parents[2]))
        self.lines: list[tuple[float, str]] = []
        self.watchdog = threading.Timer(RUN_TIMEOUT, self.kill)
        self.watchdog.start()
        self.timed_out = False

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.timed_out = threading.current_thread() is self.watchdog or self.timed_out
            self.proc.send_signal(signal.SIGKILL)

    def read(self) -> str | None:
        line = self.proc.stdout.readline()
        if not line:
            return None
        self.lines.append((time.perf_counter(), line.rstrip("\n")))
        return self.lines[-1][1]

    def finish(self) -> int:
        """Read what is left (all the child printed before it ended) and wait for it."""
        while self.read() is not None:
            pass
        rc = self.proc.wait()
        self.watchdog.cancel()
        self.stderr.close()
        return rc


def phase_times(runs: list[Child]) -> dict[str, float]:
    """Median seconds from each marker to the next of the same action, over the runs so far."""
    out = {}
    for mark, nxt in NEXT.items():
        spans = []
        for run in runs:
            seen: dict[tuple[str, str], float] = {}
            for t, line in run.lines:
                parts = line.split(" ", 3)
                if parts[0] == mark:
                    seen[(parts[1], parts[2])] = t
                elif parts[0] == nxt and (parts[1], parts[2]) in seen:
                    spans.append(t - seen.pop((parts[1], parts[2])))
        out[mark] = statistics.median(spans) if spans else 0.01
    return out


def in_flight(run: Child) -> dict[str, tuple[str, int]]:
    """For each game with an action in flight when the child died: the phase it was in (its last
    marker) and its seq. A game between two actions is left out."""
    last: dict[str, tuple[str, int]] = {}
    for _, line in run.lines:
        parts = line.split(" ", 3)
        if parts[0] in PHASES or parts[0] == "DRAWN":
            last[parts[1]] = (parts[0], int(parts[2]))
    return {ch: (PHASES[m], seq) for ch, (m, seq) in last.items() if m in PHASES}


def acknowledged(runs: list[Child]) -> set[tuple[int, int, str]]:
    """(channel, seq, text) of every action the children printed as acknowledged."""
    acked = set()
    for run in runs:
        for _, line in run.lines:
            if line.startswith("ACK "):
                _, ch, seq, text = line.split(" ", 3)
                acked.add((int(ch), int(seq), text))
    return acked


def first_begun(run: Child) -> dict[str, int]:
    """The seq each game's first action had in this run: where the store said it stood."""
    out: dict[str, int] = {}
    for _, line in run.lines:
        parts = line.split(" ", 3)
        if parts[0] == "BEGIN":
            out.setdefault(parts[1], int(parts[2]))
    return out


def killed_run(target: str, rng: random.Random, k: int, done: list[Child], err: Path) -> Child:
    """Start the child, wait for a random marker of the phase this kill aims at, then a random
    part of that phase's measured duration, and SIGKILL it."""
    mark = list(PHASES)[k % len(PHASES)]
    skip = rng.randint(0, 6)
    delay = rng.uniform(0.0, phase_times(done)[mark])
    child = Child(target, err)
    ready = False
    while (line := child.read()) is not None:
        ready = ready or line == "READY"
        if ready and line.split(" ", 1)[0] == mark:
            if skip == 0:
                time.sleep(delay)
                child.kill()
                break
            skip -= 1
    return child


async def check_store(target: str, acked: set[tuple[int, int, str]], final: bool) -> tuple[int, int]:
    """The checks of the module's docstring, on the store as a kill left it (`final` False: each
    log a prefix of its script) or as the last run left it (`final`: the whole script, the
    resigned games over); returns (commands stored, games)."""
    store = await open_store(target)
    try:
        service = make_service(store)          # nothing in memory: every load from the store
        stored = 0
        for channel in crash_child.GAMES:
            ruleset, scenario, seed, lines = crash_child.script(channel, LIMITS)
            row = await store.latest_game(channel)
            assert row is not None, f"channel {channel}: no game stored"
            rs = service.ruleset_of(ruleset)
            log = await store.commands(row.id, undone=True)
            assert [c.seq for c in log] == list(range(1, len(log) + 1)), \
                f"channel {channel}: the log's seqs have a gap or a repeat: {[c.seq for c in log]}"
            expected = []
            for line in lines:
                side, text = split_side(line, rs.sides)
                expected.append((side, parse(text, dice_faces(rs)).text))
            if final:
                assert len(log) == len(expected), f"channel {channel}: {len(log)} of {len(expected)} lines played"
            assert [(c.side, c.text) for c in log] == expected[:len(log)], \
                f"channel {channel}: its log is not its script's lines in order"
            assert [c.interaction_id for c in log] == [f"crash-{channel}-{c.seq}" for c in log]
            resigned = crash_child.GAMES[channel][1]
            if final:
                assert row.status == ("over" if resigned else "active"), (channel, row.status)

            loaded = await service.load_row(row)
            fresh = Game.new(ruleset, scenario, _seed_value(seed))
            fresh.replay([(c.side, c.text) for c in log])
            assert loaded.seq == len(log)
            assert state_hash(rs, loaded.state) == state_hash(rs, fresh.state), \
                f"channel {channel}: the stored state differs from the replay of its log"
            assert await service.verify(row), f"channel {channel}: a keyframe differs from the log's replay"
            stored += len(log)

            texts = {c.seq: c.text for c in log}
            for ch, seq, text in acked:
                if ch == channel:
                    assert texts.get(seq) == text, f"acknowledged {ch} #{seq} {text!r} is not stored"
        return stored, len(crash_child.GAMES)
    finally:
        await store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_killed_at_random_points_loses_no_acknowledged_action(kind, tmp_path, request):
    if kind == "sqlite":
        target = str(tmp_path / "herald.db")
    else:
        target = request.getfixturevalue("pg_url")       # a fresh schema on the session's server
    err = tmp_path / "child-stderr.txt"
    rng = random.Random(SEED)
    started = time.perf_counter()
    runs: list[Child] = []
    landed: list[dict[str, str]] = []
    for k in range(KILLS):
        child = killed_run(target, rng, k, runs, err)
        rc = child.finish()
        assert not child.timed_out, f"the child hung:\n{err.read_text()[-3000:]}"
        runs.append(child)
        if rc == 0:          # it finished before the kill: nothing left to interrupt
            break
        assert rc == -signal.SIGKILL, f"the child failed (exit {rc}):\n{err.read_text()[-3000:]}"
        landed.append(in_flight(child))
        # the store as the kill left it, before any restart: what was answered is there already
        asyncio.run(check_store(target, acknowledged(runs), final=False))
    last = Child(target, err)
    rc = last.finish()
    runs.append(last)
    assert rc == 0 and last.lines and last.lines[-1][1] == "DONE", \
        f"the last run did not finish (exit {rc}):\n{err.read_text()[-3000:]}"

    acked = acknowledged(runs)
    stored, games = asyncio.run(check_store(target, acked, final=True))

    # the actions cut in their commit: kept (the next run went on after them) or rolled back
    # (the next run played them again)
    kept = lost = 0
    for i, kill in enumerate(landed):
        resumed = first_begun(runs[i + 1])
        for ch, (phase, seq) in kill.items():
            if phase == "commit":
                kept, lost = (kept + 1, lost) if resumed.get(ch, seq + 1) > seq else (kept, lost + 1)
    phases = Counter(p for kill in landed for p, _ in kill.values())
    busy = sum(1 for kill in landed if kill)
    print(f"\n{kind}: {len(landed)} kills, {busy} with actions in flight; the actions cut: "
          f"{phases['adjudication']} in adjudication, {phases['commit']} in the commit ({kept} of them "
          f"stored, {lost} rolled back), {phases['rendering']} in the rendering; {len(runs)} runs, "
          f"{len(acked)} actions acknowledged, {stored} stored in {games} games, each state equal "
          f"to its log's replay; {time.perf_counter() - started:.1f} s")
    assert len(landed) >= KILLS - 2, "the run ended before most kills: make it longer"
    assert busy >= len(landed) - 1, "the kills should land with actions in flight"
    # where the kills land depends on timing; over the kills, some cut an action before its
    # answer (adjudication or commit) and some in its drawing
    assert phases["adjudication"] + phases["commit"] and phases["rendering"], phases
