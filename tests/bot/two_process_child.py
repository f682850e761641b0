"""A child process of tests/bot/test_two_processes.py (issue 17): one Herald game service on a
PostgreSQL database that another such process uses at the same time.

    python tests/bot/two_process_child.py POSTGRES_URL PLAN_JSON

PLAN_JSON lists the games to play, each ``{"channel", "game", "ruleset", "demo", "lines",
"prefix", "twice"}``: the game (created and started by the test) is played from its demo script
(bot/demos/<demo>.txt), its first ``lines`` lines, line i with the interaction id
``<prefix>-<i>``. Two processes given the same game and prefix race on every line with the same
interaction id: whichever commits it first applies it, the other gets the duplicate's answer. A
process takes line i+1 only once line i is stored (its own `act` of line i returned), so every
line is legal when it is applied. With ``twice``, every fifth line is sent twice at once from this
process too (a double click). All the games are played at once, a task each.

It prints, flushed, one line each:
    READY                      the store is open; it waits for a line on stdin to begin
    ACK <game> <i> <seq> <dup> line i acknowledged: stored at seq, dup 1 if a duplicate's answer
    HASH <game> <sha256>       the game's state as this process loads it once it is done
    ERR <game> <i> <message>   an action refused or failed (the test fails on it)
    DONE
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.app import make_service  # noqa: E402
from bot.cli import DEMO_DIR, read_script  # noqa: E402
from bot.stores import open_store  # noqa: E402
from engine.core.commands import split_side  # noqa: E402


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def state_hash(loaded) -> str:
    data = json.dumps(loaded.ruleset.state_to_dict(loaded.state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode()).hexdigest()


async def play(service, game: dict) -> None:
    _, lines = read_script(DEMO_DIR / f"{game['demo']}.txt")
    rs = service.ruleset_of(game["ruleset"])
    users = {side: game["channel"] * 10 + k for k, side in enumerate(rs.sides, 1)}
    for i, line in enumerate(lines[:game["lines"]], 1):
        side, text = split_side(line, rs.sides)
        iid = f"{game['prefix']}-{i}"
        copies = 2 if game.get("twice") and i % 5 == 0 else 1
        try:
            results = await asyncio.gather(*(service.act(game["channel"], users[side], text, interaction_id=iid)
                                             for _ in range(copies)))
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
            emit(f"ERR {game['game']} {i} {type(exc).__name__}: {exc}")
            return
        for result in results:
            emit(f"ACK {game['game']} {i} {result.seq} {int(result.duplicate)}")
    loaded = await service.load_row(await service.store.get_game(game["game"]))
    emit(f"HASH {game['game']} {state_hash(loaded)}")


async def run(url: str, plan: list[dict]) -> None:
    store = await open_store(url)
    try:
        service = make_service(store)
        emit("READY")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)   # the start
        await asyncio.gather(*(play(service, game) for game in plan))
        emit("DONE")
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1], json.loads(sys.argv[2])))
