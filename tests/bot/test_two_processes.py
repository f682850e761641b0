"""Several Herald processes on one PostgreSQL (issue 17, "Several processes at once").

Two OS processes (tests/bot/two_process_child.py), each with its own game service, store and
cache, act at once on the same games (every line sent by both, with the same interaction id) and
on games of their own (some lines sent twice at once): no acknowledged action is lost or applied
twice, and every game's state equals the replay of its log. Then, with two services on two stores
of one database in this process (two processes as far as the database can tell: each has its own
connections, in-process locks and cache): a pending decision answered from both at once is
answered once, the second answer refused as stale; a decision deadline and a turn reminder seen
due by both loops fire once. All on the session's pgserver (tests/bot/pg.py)."""
from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path

import pytest

from bot.app import make_service
from bot.cli import DEMO_DIR, read_script
from bot.deadlines import due_notices, expire_due, parse_time, set_turn_deadline
from bot.errors import StaleChoice
from bot.store_pg import PgStore

CHILD = Path(__file__).with_name("two_process_child.py")
GUILD = 1

# (channel, demo, lines, prefix, twice): the shared games carry the same prefix in both plans
SHARED = [(501, "battlecry--first-bull-run", 40, "s501", False), (502, "tacw--edgehill", 40, "s502", False)]
OWN = {"a": [(601, "battlecry--first-bull-run", 30, "a601", True)],
       "b": [(602, "tacw--edgehill", 30, "b602", True)]}


def users(service, ruleset: str, channel: int) -> dict[str, int]:
    return {side: channel * 10 + k for k, side in enumerate(service.ruleset_of(ruleset).sides, 1)}


async def start_game(service, channel: int, demo: str) -> int:
    """The demo's game in the channel, seated (a player a side) and started; its id."""
    ruleset, scenario = demo.split("--", 1)
    seed, _ = read_script(DEMO_DIR / f"{demo}.txt")
    seats = users(service, ruleset, channel)
    first = next(iter(seats))
    loaded = await service.new_game(GUILD, channel, seats[first], ruleset, scenario, seed or "1", side=first)
    for side, uid in seats.items():
        if side != first:
            await service.join(channel, uid, side)
    await service.start(channel, seats[first])
    return loaded.row.id


def state_hash(loaded) -> str:
    data = json.dumps(loaded.ruleset.state_to_dict(loaded.state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode()).hexdigest()


async def test_two_processes_on_one_postgresql_lose_nothing_and_apply_nothing_twice(pg_url):
    store = await PgStore.open(pg_url)
    try:
        service = make_service(store)
        plans: dict[str, list[dict]] = {"a": [], "b": []}
        expected: dict[int, tuple[int, str]] = {}            # game -> (lines, prefix)
        for name in plans:
            for channel, demo, lines, prefix, twice in SHARED + OWN[name]:
                game = next((g["game"] for p in plans.values() for g in p if g["channel"] == channel), None)
                if game is None:
                    game = await start_game(service, channel, demo)
                plans[name].append({"channel": channel, "game": game, "ruleset": demo.split("--")[0],
                                    "demo": demo, "lines": lines, "prefix": prefix, "twice": twice})
                expected[game] = (lines, prefix)
    finally:
        await store.close()

    children = {name: subprocess.Popen([sys.executable, str(CHILD), pg_url, json.dumps(plan)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True) for name, plan in plans.items()}
    out: dict[str, list[str]] = {}
    try:
        for name, child in children.items():
            assert child.stdout.readline().strip() == "READY", child.stderr.read()
        for child in children.values():            # both begin at once
            child.stdin.write("go\n")
            child.stdin.flush()
        for name, child in children.items():
            stdout, stderr = child.communicate(timeout=120)
            assert child.returncode == 0, stderr[-3000:]
            out[name] = stdout.splitlines()
    finally:
        for child in children.values():
            if child.poll() is None:
                child.kill()
                child.wait()

    errors = [line for lines in out.values() for line in lines if line.startswith("ERR")]
    assert errors == []
    assert all(lines[-1] == "DONE" for lines in out.values())
    applied: Counter = Counter()                            # (game, line) -> applications acknowledged
    acked: dict[str, set] = defaultdict(set)
    by_process: dict[str, Counter] = defaultdict(Counter)
    duplicates: Counter = Counter()                         # (game, line) -> answered as already applied
    hashes: dict[int, set] = defaultdict(set)
    for name, lines in out.items():
        for line in lines:
            kind, *rest = line.split()
            if kind == "ACK":
                game, i, seq, dup = map(int, rest)
                assert seq == i, line                      # line i of the script is the game's command i
                acked[name].add((game, i))
                if not dup:
                    applied[game, i] += 1
                    by_process[name][game] += 1
                else:
                    duplicates[game, i] += 1
            elif kind == "HASH":
                hashes[int(rest[0])].add(rest[1])
    # every line of every game acknowledged by each process that played it, applied exactly once
    for name, plan in plans.items():
        assert acked[name] == {(g["game"], i) for g in plan for i in range(1, g["lines"] + 1)}
    assert applied == Counter({(game, i): 1 for game, (n, _) in expected.items() for i in range(1, n + 1)})
    # every shared line was sent by both processes: one applied it, the other was answered that it
    # was (which process wins each race is the scheduler's: under load one may win them all)
    shared = [g["game"] for g in plans["a"][:len(SHARED)]]
    for game in shared:
        n = expected[game][0]
        assert all(duplicates[game, i] == 1 for i in range(1, n + 1)), (game, duplicates)
    print("shared lines applied by each process:",
          {name: sum(by_process[name][g] for g in shared) for name in plans})

    store = await PgStore.open(pg_url)
    try:
        fresh = make_service(store)                      # no cache: snapshots and the log only
        for game, (n, prefix) in expected.items():
            commands = await store.commands(game, undone=True)
            assert [(c.seq, c.interaction_id) for c in commands] == [(i, f"{prefix}-{i}") for i in range(1, n + 1)]
            row = await store.get_game(game)
            assert await fresh.verify(row)               # snapshot + log == the whole log replayed
            replayed = await fresh.replay_state(row)
            loaded = await fresh.load_row(row)
            assert state_hash(loaded) == state_hash(type(loaded)(row, loaded.ruleset, loaded.scenario, replayed,
                                                                 loaded.seats, loaded.seq))
            assert hashes[game] == {state_hash(loaded)}   # what each process ended with, too
    finally:
        await store.close()


# -- two services, two stores, one database ---------------------------------------------------

ALICE, BOB = 11, 12
CHANNEL = 700


@pytest.fixture
async def two(pg_url):
    """Two services, each on a store of its own on one database."""
    stores = [await PgStore.open(pg_url), await PgStore.open(pg_url)]
    yield [make_service(s) for s in stores]
    for s in stores:
        await s.close()


async def bypass_window(service) -> tuple[int, int]:
    """Edgehill with a decision deadline of 1 h: Parliament (Bob) asks to be asked, the Royalist
    activation opens a bypass window for him. Returns (game, the seq it opened at)."""
    await service.new_game(GUILD, CHANNEL, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(CHANNEL, BOB, "parliament")
    await service.start(CHANNEL, ALICE)
    await service.set_deadline(CHANNEL, ALICE, 1)
    await service.act(CHANNEL, BOB, "policy bypass ask", "i-1")
    result = await service.act(CHANNEL, ALICE, "activate r-centre", "i-2")
    assert result.pending is not None and result.pending.kind == "bypass"
    return result.game_id, result.seq


async def test_a_pending_decision_answered_from_two_processes_at_once_is_answered_once(two):
    a, b = two
    game, seq = await bypass_window(a)
    assert (await b.load(CHANNEL)).seq == seq               # b's cache holds the open decision too
    commit = a.store.append_command

    async def slow_commit(*args, **kwargs):                 # a is between load and commit when b acts
        await asyncio.sleep(0.3)
        return await commit(*args, **kwargs)
    a.store.append_command = slow_commit
    got = await asyncio.gather(a.act(CHANNEL, BOB, "bypass none", "click-a", expect_seq=seq),
                               b.act(CHANNEL, BOB, "bypass none", "click-b", expect_seq=seq),
                               return_exceptions=True)
    assert sorted(type(r).__name__ for r in got) == ["ActResult", "StaleChoice"], got
    done = next(r for r in got if not isinstance(r, Exception))
    assert (done.seq, done.text, done.duplicate) == (seq + 1, "bypass none", False)
    a.store.append_command = commit
    assert [c.text for c in await a.store.commands(game, after=seq)] == ["bypass none"]
    for service in (a, b):                                   # both now hold the answered state
        loaded = await service.load(CHANNEL)
        assert loaded.seq == seq + 1 and loaded.ruleset.pending(loaded.state) is None
    with pytest.raises(StaleChoice):                         # a late third click
        await b.act(CHANNEL, BOB, "bypass none", "click-c", expect_seq=seq)
    assert await a.verify(await a.store.get_game(game))


async def test_a_due_deadline_and_a_due_reminder_fire_once_from_two_processes_loops(two):
    a, b = two
    game, seq = await bypass_window(a)
    await b.load(CHANNEL)
    start = parse_time((await a.store.last_command(game)).created_at)
    due = start + timedelta(minutes=61)
    results = await asyncio.gather(expire_due(a, due), expire_due(b, due), expire_due(a, due), expire_due(b, due))
    assert [len(r) for r in results].count(1) == 1 and sum(map(len, results)) == 1
    assert [c.text for c in await a.store.commands(game, after=seq)] == ["bypass none"]
    assert await a.store.last_seq(game) == seq + 1

    # a turn deadline of 2 h with a reminder 1 h before its end: both loops see each due at once
    await set_turn_deadline(a, CHANNEL, ALICE, 2, 1, now=due)
    notices = await asyncio.gather(due_notices(a, due + timedelta(hours=1, minutes=1)),
                                   due_notices(b, due + timedelta(hours=1, minutes=1)))
    assert [n.kind for batch in notices for n in batch] == ["reminder"]
    notices = await asyncio.gather(due_notices(b, due + timedelta(hours=3)), due_notices(a, due + timedelta(hours=3)))
    assert [n.kind for batch in notices for n in batch] == ["overdue"]
    assert await a.store._rows("SELECT kind FROM claims WHERE game_id = ? ORDER BY kind", (game,)) == \
        [("decision",), ("overdue",), ("reminder",)]


async def test_a_firing_claimed_by_another_process_is_left_to_it_until_its_lease_ends(two):
    """The claim is what decides: a decision or a reminder another process has claimed (and is
    firing) is not fired here; a decision's claim left by a process that died is taken over
    once its lease has passed."""
    a, b = two
    game, seq = await bypass_window(a)
    due = parse_time((await a.store.last_command(game)).created_at) + timedelta(minutes=61)
    assert await a.store.claim(game, "decision", str(seq), "other-process")
    assert await expire_due(b, due) == []
    assert await b.store.last_seq(game) == seq
    await b.store._rows("UPDATE claims SET claimed_at = '2000-01-01T00:00:00+00:00' WHERE game_id = ?", (game,))
    [result] = await expire_due(b, due)
    assert (result.seq, result.text) == (seq + 1, "bypass none")

    await set_turn_deadline(a, CHANNEL, ALICE, 2, 1, now=due)
    wait_started = parse_time((await a.store.last_command(game)).created_at)
    later = due + timedelta(hours=1, minutes=1)
    loaded = await a.load(CHANNEL)
    key = f"{seq + 1}:{loaded.to_act_side}:{ALICE}@{max(wait_started, due).isoformat()}"
    assert await a.store.claim(game, "reminder", key, "other-process")
    assert await due_notices(b, later) == []
    assert [n.kind for n in await due_notices(b, due + timedelta(hours=3))] == ["overdue"]
