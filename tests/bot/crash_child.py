"""The child process of the crash-safety test (tests/bot/test_crash_safety.py, issue 17).

    python tests/bot/crash_child.py TARGET [--tacw-lines N] [--bc-lines N]

TARGET is an SQLite file's path or a ``postgresql://`` URL (`bot.stores.open_store`). The child
builds Herald's game service as the bot does (`bot.app.make_service`, every club feature), resumes
the active games as the bot does at start (`resume_all`), and plays a scripted multi-game run:
four games, two of Battle Cry (First Bull Run) and two of TACW (Edgehill) from their demo scripts
in bot/demos/, each in a channel of its own and all four at once (one asyncio task each, as four
channels of a server would be), every action drawn after it is acknowledged, as the bot replies
with the board. Each game starts (or continues) where the store says it stands: its setup is
finished if a kill interrupted it, and its script resumes at the line after its last stored
command, so a child killed and started again plays the same run to its end.

It prints, one line each, flushed at once (a SIGKILL loses nothing already printed):
    READY                        the store is open and the games resumed; the run begins
    BEGIN <ch> <seq>             an action is handed to the service (load, rules)
    COMMIT <ch> <seq>            the service calls the store's commit for it
    ACK <ch> <seq> <text>        the service acknowledged it (`act` returned without error)
    DRAWN <ch> <seq> <bytes>     its board is drawn (the rendering after the acknowledgement)
    DONE                         every game played its script
The phase an action was in when the child was killed is its last line: BEGIN (adjudication),
COMMIT (the commit), ACK (the rendering).
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot import render_pool
from bot.app import make_service
from bot.cli import DEMO_DIR, read_script
from bot.stores import open_store
from engine.core.commands import split_side

GUILD = 1
# channel -> (demo script, whether its first side resigns after the lines played: the battle
# ends, and its status is set after the command's commit); two games of each, played at once
GAMES = {101: ("battlecry--first-bull-run", True), 102: ("tacw--edgehill", True),
         103: ("battlecry--first-bull-run", False), 104: ("tacw--edgehill", False)}


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def script(channel: int, limits: dict[str, int]) -> tuple[str, str, str, list[str]]:
    """(ruleset, scenario, seed, lines) of the channel's game: its demo script cut to the limit,
    and the first side's `resign` after it when the game ends so. The test reads it too."""
    stem, resigns = GAMES[channel]
    ruleset, scenario = stem.split("--", 1)
    seed, lines = read_script(DEMO_DIR / f"{stem}.txt")
    lines = lines[:limits.get(ruleset) or len(lines)]
    if resigns:
        lines.append(lines[0].split(":", 1)[0] + ": resign")
    return ruleset, scenario, seed or "1", lines


def users(service, ruleset: str, channel: int) -> dict[str, int]:
    """The two players of the channel's game, one a side."""
    return {side: channel * 10 + k for k, side in enumerate(service.ruleset_of(ruleset).sides, 1)}


async def set_up(service, channel: int, limits: dict[str, int]):
    """The channel's game, created, seated and started if it is not yet (a kill may have cut its
    setup anywhere); returns its row."""
    store = service.store
    ruleset, scenario, seed, _ = script(channel, limits)
    seats = users(service, ruleset, channel)
    first = next(iter(seats))
    row = await store.latest_game(channel)
    if row is None:
        await service.new_game(GUILD, channel, seats[first], ruleset, scenario, seed, side=first)
        row = await store.latest_game(channel)
    if row.status == "setup":
        taken = await store.seats(row.id)
        for side, uid in seats.items():
            if side not in taken:
                await service.join(channel, uid, side)
        await service.start(channel, seats[first])
        row = await store.get_game(row.id)
    return row


async def play(service, channel: int, game_id: int, limits: dict[str, int]) -> None:
    """The channel's script from the line after its last stored command to its end."""
    ruleset, _, _, lines = script(channel, limits)
    seats = users(service, ruleset, channel)
    sides = service.ruleset_of(ruleset).sides
    done = await service.store.last_seq(game_id)
    for seq in range(done + 1, len(lines) + 1):
        side, text = split_side(lines[seq - 1], sides)
        emit(f"BEGIN {channel} {seq}")
        result = await service.act(channel, seats[side], text, interaction_id=f"crash-{channel}-{seq}")
        emit(f"ACK {channel} {result.seq} {result.text}")
        png = await render_pool.render_png(result, store=service.store)
        emit(f"DRAWN {channel} {result.seq} {len(png or b'')}")


async def run(target: str, limits: dict[str, int]) -> None:
    store = await open_store(target)
    channel_of: dict[int, int] = {}
    commit = store.append_command

    async def marked_commit(game_id, *args, **kwargs):
        emit(f"COMMIT {channel_of.get(game_id, 0)} {kwargs.get('seq')}")
        return await commit(game_id, *args, **kwargs)
    store.append_command = marked_commit
    try:
        service = make_service(store)
        await service.resume_all(verify=False)        # as the bot does at start (bot/client.py)
        for channel in GAMES:
            channel_of[(await set_up(service, channel, limits)).id] = channel
        emit("READY")
        await asyncio.gather(*(play(service, ch, gid, limits) for gid, ch in channel_of.items()))
        emit("DONE")
    finally:
        await store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target", help="an SQLite file's path or a postgresql:// URL")
    ap.add_argument("--tacw-lines", type=int, default=0, help="play the first N lines of Edgehill (0: all)")
    ap.add_argument("--bc-lines", type=int, default=0, help="play the first N lines of First Bull Run (0: all)")
    ap.add_argument("--pool", action="store_true",
                    help="draw in the render pool's processes (default: a thread of this process, "
                         "so a SIGKILL of this process leaves no drawing process behind)")
    args = ap.parse_args()
    render_pool.USE_POOL = args.pool
    asyncio.run(run(args.target, {"tacw": args.tacw_lines, "battlecry": args.bc_lines}))


if __name__ == "__main__":
    main()
