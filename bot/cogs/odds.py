"""/odds: the exact what-if (issue 5, Arbitration; engine/core/odds.py decides everything).

`/odds action:<command line>` runs the action the player is considering (a Battle Cry battle,
Rally, Sharp Shooter; a TACW fire, Salvo, assault, order change, continuation, bypass, rally,
reform, interception, move...) WITHOUT committing it, for the asker's own side, and answers with
the exact probability of each outcome and the same modifier breakdown as the real adjudication.

The answer is ephemeral: it is the asker's plan, and it may use the asker's own hand (Battle
Cry's Rally rolls one die per card in it). The engine refuses any what-if that would draw hidden
randomness (a card, a shuffle) or depend on what the asker does not know (the secret boat
bridge); spectators, who command nothing, are refused. The enumeration runs in a worker thread
(it may take a second or two) after the interaction is deferred, so Discord's 3-second limit
never bites and the bot keeps answering the other channels.

Quick, then exact (issue 13). The first answer comes within about a second: the whole tree when
it fits QUICK_BUDGET, else each sequence of dice followed down to a floor of chance, or cut at a
horizon (which the answer says). A cut answer then
says the exact one is being worked out, and the whole tree is enumerated in a process of its own
(renders.pool.run_alone: the bot's process keeps its CPU, the render workers keep drawing, and
the memory of the positions kept goes back to the system), one such at a time, up to EXACT_LIMIT
seconds; meanwhile the reply says every few seconds what share of the chances is worked out,
and it is edited in place with the exact answer; when the whole tree needs more than EXACT_LIMIT,
with the deepest answer worked out in that time (each sequence of dice followed down to a floor
of chance far below the first one's, the chance that more follow stated: engine.core.odds
`deepen`), or, should not even that finish, it says the first answer stands.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import weakref
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError
from engine.core.odds import EXACT_LIMIT, QUICK_BUDGET, QUICK_FALLBACK, Odds, rules_for, what_if

from ..service import NotAllowed
from ..store import StoreError
from ..views import MAX_CONTENT, refuse, send
from .common import service_of


def odds_text(odds: Odds, limit: int = MAX_CONTENT) -> str:
    """The answer, with as many outcomes as one message holds (the rarest summed up)."""
    for shown, effects in ((20, 10), (15, 8), (12, 6), (10, 5), (8, 4), (6, 3), (4, 2), (3, 0)):
        text = odds.text(limit=shown, effects=effects)
        if len(text) <= limit:
            return text
    return text[: limit - 1] + "…"


log = logging.getLogger(__name__)

WORKING = ("\n*To answer at once this stops short of the rarest dice: the exact answer, every die "
           "enumerated, is being worked out{so_far} and will replace this one.*")
MOVED_ON = ("\n*Worked out for the position when you asked: {n} command{s} given since.*")
DEEPEST = ("\n*The whole tree needs more work than Herald gives one question ({limit:.0f} s): "
           "this answer replaces the first one, worked out as deep as that allowed.*")
GAVE_UP = ("\n*The exact answer needs more work than Herald gives one question ({why}): the answer "
           "above, cut short, stands.*")


def with_note(odds: Odds, note: str) -> str:
    """The answer with as many outcomes as leave room in one message for `note` after it."""
    return odds_text(odds, MAX_CONTENT - len(note)) + note


async def compute(service, channel_id: int, user_id: int, line: str) -> tuple[Odds, Any, str]:
    """Load the channel's game, find the asker's side, enumerate in a worker thread within the
    quick budget: (the answer, the game, the side)."""
    loaded = await service.load(channel_id)
    side = loaded.side_of(user_id)
    if side is None:
        raise NotAllowed("only a seated player may ask the odds of their own action "
                         "(spectators see the board and the log)")
    odds = await asyncio.to_thread(what_if, loaded.ruleset, loaded.scenario, loaded.state, side, line,
                                   budget=QUICK_BUDGET, fallback=QUICK_FALLBACK)
    return odds, loaded, side


_EXACT_TURN: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]" = weakref.WeakKeyDictionary()


async def exact(service, loaded: Any, side: str, line: str, progress_file: str | None = None) -> Odds:
    """The whole tree of a what-if whose quick answer was cut: in a process of its own
    (renders.pool.run_alone; in a thread when the render pool is off), one at a time, up to
    EXACT_LIMIT seconds of work, the share of the chances worked out written to
    `progress_file` as it goes."""
    from .. import render_pool
    from renders.pool import run_alone, what_if_job
    turn = _EXACT_TURN.setdefault(asyncio.get_running_loop(), asyncio.Semaphore(1))   # one at a time
    async with turn:
        job = await render_pool._job_of(loaded, None, "full", service.store)
        task = (what_if_job, job, side, line, EXACT_LIMIT, progress_file)
        if not render_pool.USE_POOL:
            return await asyncio.to_thread(*task)
        return await asyncio.wrap_future(run_alone(*task))


PROGRESS_EDIT_S = 3.0      # seconds between two edits of the reply while the exact answer is worked out


async def show_progress(interaction: discord.Interaction, first: Odds, path: str) -> None:
    """Edit the reply with the share of the chances worked out (read from `path`), every
    PROGRESS_EDIT_S seconds while it changes; cancelled when the exact answer comes."""
    shown = None
    while True:
        await asyncio.sleep(PROGRESS_EDIT_S)
        try:
            with open(path, encoding="utf-8") as f:
                share = float(f.read() or 0)
        except (OSError, ValueError):
            continue
        pct = f"{min(share, 0.999) * 100:.0f}%"
        if pct == shown:
            continue
        shown = pct
        try:
            await interaction.edit_original_response(
                content=with_note(first, WORKING.format(so_far=f" ({pct} of the chances so far)")),
                allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            return


async def complete_action(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The verbs the channel's ruleset answers, with what each asks; then the typed line."""
    try:
        loaded = await service_of(interaction).load(interaction.channel_id)
        askable = getattr(rules_for(loaded.ruleset), "ASKABLE", {}) or {}
    except Exception:
        return []
    cur = (current or "").strip()
    if " " in cur:
        return [app_commands.Choice(name=cur[:100], value=cur[:100])]
    return [app_commands.Choice(name=f"{verb}: {text}"[:100], value=verb)
            for verb, text in sorted(askable.items()) if verb.startswith(cur.lower())][:25]


class OddsCog(commands.Cog, name="Odds"):
    """What-ifs: the exact odds of an action before it is given."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @app_commands.command(name="odds",
                          description="Exact odds of an action you are considering (nothing is committed)")
    @app_commands.guild_only()
    @app_commands.describe(action="The command you are considering, as /act takes it: "
                                  "e.g. 'battle ui2 0604', 'fire r1 0605', 'attack r2 2020', 'continue'")
    @app_commands.autocomplete(action=complete_action)
    async def odds(self, interaction: discord.Interaction, action: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        service = service_of(interaction)
        try:
            first, loaded, side = await compute(service, interaction.channel_id, interaction.user.id, action)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        if first.exact:
            await send(interaction, odds_text(first), ephemeral=True, quiet=True)
            return
        none = discord.AllowedMentions.none()
        await interaction.edit_original_response(content=with_note(first, WORKING.format(so_far="")),
                                                 allowed_mentions=none)
        fd, path = tempfile.mkstemp(prefix="herald-odds-", suffix=".progress")
        os.close(fd)
        shown = asyncio.create_task(show_progress(interaction, first, path))
        try:
            whole = await exact(service, loaded, side, action, path)
            since = await service.store.last_seq(loaded.row.id) - loaded.seq
            # the game may have gone on while the exact answer was worked out
            note = DEEPEST.format(limit=EXACT_LIMIT) if not whole.exact else ""
            if since > 0:
                note += MOVED_ON.format(n=since, s="s" if since != 1 else "")
            text = with_note(whole, note)
        except HeraldError as exc:            # too many die sequences even for the long run
            text = with_note(first, GAVE_UP.format(why=str(exc)[:200]))
        except Exception:
            log.exception("the exact odds of %r in channel %s failed", action, interaction.channel_id)
            text = with_note(first, GAVE_UP.format(why="an internal fault"))
        finally:
            shown.cancel()                    # and done before the last edit: none comes after it
            await asyncio.gather(shown, return_exceptions=True)
            for leftover in (path, f"{path}.part"):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
        try:
            await interaction.edit_original_response(content=text, allowed_mentions=none)
        except discord.HTTPException:         # the reply is gone (dismissed, or its 15 minutes over)
            log.info("the exact odds of %r could not replace the first answer", action)
