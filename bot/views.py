"""What the bot shows: the reply to an accepted action, refusals, and the pending-decision buttons.

Replies follow one pattern (DESIGN): after every accepted action ONE public message with the board
PNG, the events' narratives (dice already drawn as face emoji by the engine) and whose turn it
is, mentioning the player who must act once. Every refusal is ephemeral and says which rule (or
which seat/status check) forbids it.

Retreat choices are `discord.ui.DynamicItem` buttons whose custom_id carries the game id, the
seq they were built against and the hex, so they keep working after a restart (the client
registers the class with `add_dynamic_items`); a click runs `retreat <hex>` through the same
`GameService.act` as the slash command, as the clicking user.
"""
from __future__ import annotations

import asyncio
import io
import logging
import re
from typing import Any

import discord

from engine.core.errors import HeraldError

from .names import remember as remember_name
from .replies import INTERNAL, MAX_CONTENT, MENTIONS, clip, refusal_text, refuse, send  # noqa: F401
from .service import ActResult, GameService, LoadedGame, Pending, pending_of
from .store import StoreError

log = logging.getLogger(__name__)

# the replies' plumbing (send, refuse, clip...) lives in bot/replies.py, a leaf that
# bot/permissions.py uses too; the cogs still import it from here


# --- words -----------------------------------------------------------------------------------
def mention(user_id: int | tuple[int, ...] | None) -> str:
    """A user's mention (several: a shared side), or the free seat."""
    if isinstance(user_id, tuple):
        return " ".join(f"<@{u}>" for u in user_id) or mention(None)
    return f"<@{user_id}>" if user_id else "(free seat: /game join)"


def turn_line(game: ActResult | LoadedGame, pending: Pending | None) -> str:
    state = game.state
    side = game.to_act_side
    if side is None:
        return f"🏁 **Battle over**: {getattr(state, 'result', '') or 'the game has ended'}"
    from .club import waiting_on
    waiting = waiting_on(game.ruleset, game.scenario, state, game.seats, getattr(game, "members", ()))
    user = waiting.users if waiting is not None and waiting.users else game.seats.get(side)
    if pending is not None and pending.kind != "retreat" and pending.prompt:
        return f"**{side.title()}** {mention(user)}: {pending.prompt} (buttons below, or /{pending.verb})"
    if pending is not None:
        return (f"**{side.title()}** {mention(user)} must choose a {pending.kind} hex for {pending.piece}: "
                f"{', '.join(pending.options)} (buttons below, or /{pending.verb})")
    what = waiting.what if waiting is not None and waiting.kind == "turn" else "to act"   # with its wing
    return f"**{side.title()}** {what}: {mention(user)}"


def quiet_turn(game: LoadedGame) -> str:
    """Whose turn, without a mention."""
    side = game.to_act_side
    if side is None:
        return f"Battle over: {getattr(game.state, 'result', '') or 'the game has ended'}"
    pending = pending_of(game.state, game.ruleset)
    if pending is not None and pending.kind != "retreat" and pending.prompt:
        return f"**{side.title()}**: {pending.prompt}."
    if pending is not None:
        return f"**{side.title()}** must choose a {pending.kind} hex for {pending.piece}."
    return f"**{side.title()}** to act."


def result_text(result: ActResult) -> str:
    """Narratives, then whose turn: fits one Discord message, the last line always kept."""
    tail = turn_line(result, result.pending)
    lines = [e.narrative for e in result.events]
    body = "\n".join(lines)
    room = MAX_CONTENT - len(tail) - 1
    if len(body) > room:
        keep: list[str] = []
        used = 60
        for line in lines:
            if used + len(line) + 1 > room:
                break
            keep.append(line)
            used += len(line) + 1
        body = "\n".join(keep) + f"\n… {len(lines) - len(keep)} more event(s): see /game log"
    return f"{body}\n{tail}" if body else tail


def board_file(png: bytes | None) -> discord.File | None:
    return discord.File(io.BytesIO(png), filename="board.png") if png else None


async def post_result(interaction: discord.Interaction, service: GameService, result: ActResult) -> None:
    """The ONE public message after an accepted action: board, narrative, who acts next."""
    if result.duplicate:
        await send(interaction, f"This action was already applied (#{result.seq} `{result.text}`); "
                   "nothing new happened.", ephemeral=True)
        return
    if not interaction.response.is_done():
        await interaction.response.defer(thinking=True)
    from .status_message import refresh_quietly, with_pings
    kwargs = await result_message_parts(service, result, actor=interaction.user.id)
    await send(interaction, with_pings(result_text(result), kwargs), **kwargs)
    await refresh_quietly(interaction.client, result.game_id)      # the game's one status message
    from .permissions import tell_actor
    await tell_actor(interaction)       # privately, if Herald could not post there as itself
    from .undo import sweep
    await sweep(interaction.client, result.game_id)     # an undo request lapses on new information


async def result_message_parts(service: GameService, result: ActResult, actor: int | None = None) -> dict[str, Any]:
    """The board file, the decision buttons and the mentions of a result's public message
    (a reply to the action, or a deadline's post in the channel). `actor` is never pinged."""
    png = await asyncio.to_thread(service.render, result)
    kwargs: dict[str, Any] = {}
    if (f := board_file(png)) is not None:
        kwargs["file"] = f
    if (view := pending_view(result)) is not None:
        kwargs["view"] = view
    # Whoever the game waits on is named every time, but pinged once per wait (bot/status_message.py).
    from .status_message import mention_kwargs, pings_for
    kwargs["allowed_mentions"] = mention_kwargs(await pings_for(service, result, actor))
    return kwargs


async def post_board(interaction: discord.Interaction, service: GameService, loaded: LoadedGame,
                     text: str, *, quiet: bool = False) -> None:
    """A public board picture with a caption (/game start, /game board)."""
    if not interaction.response.is_done():
        await interaction.response.defer(thinking=True)
    png = await asyncio.to_thread(service.render, loaded)
    kwargs: dict[str, Any] = {}
    if (f := board_file(png)) is not None:
        kwargs["file"] = f
    pending = pending_of(loaded.state, loaded.ruleset)
    if pending is not None and loaded.row.status == "active":
        kwargs["view"] = decision_view(loaded.row.id, loaded.seq, pending)
    await send(interaction, text, quiet=quiet, **kwargs)
    from .status_message import refresh_quietly
    await refresh_quietly(interaction.client, loaded.row.id)      # the game's one status message


# --- the pending-decision buttons ------------------------------------------------------------
class RetreatButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"herald:retreat:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<hex>[0-9a-z]{1,16})"):
    """One legal retreat hex. custom_id = herald:retreat:<game id>:<seq>:<hex> (<= 100 chars)."""

    def __init__(self, game_id: int, seq: int, hex_id: str):
        self.game_id, self.seq, self.hex = game_id, seq, hex_id
        super().__init__(discord.ui.Button(
            label=f"Retreat to {hex_id}", style=discord.ButtonStyle.primary,
            custom_id=f"herald:retreat:{game_id}:{seq}:{hex_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str], /) -> "RetreatButton":
        return cls(int(match["game"]), int(match["seq"]), match["hex"])

    async def callback(self, interaction: discord.Interaction) -> None:
        service: GameService = interaction.client.service  # type: ignore[attr-defined]
        await remember_name(service.store, interaction)     # the player's name, if it changed
        try:
            result = await service.act(interaction.channel_id, interaction.user.id, f"retreat {self.hex}",
                                       interaction.id, expect_game=self.game_id, expect_seq=self.seq)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        except Exception:
            log.exception("retreat button %s failed", self.custom_id)
            await refuse(interaction, INTERNAL)
            return
        try:
            if not result.duplicate:     # the choice is made: take the buttons off the old message
                await interaction.response.edit_message(view=None)
            await post_result(interaction, service, result)
        except Exception:
            log.exception("could not post the retreat result of game %s", self.game_id)


def retreat_view(game_id: int, seq: int, pending: Pending) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for hex_id in pending.options[:25]:
        view.add_item(RetreatButton(game_id, seq, hex_id))
    return view


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button],
                   template=r"herald:answer:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<index>[0-9]{1,2})"):
    """One answer of any other pending decision (TACW bypass, reactions...). The custom_id
    carries game, seq and the answer's index; the answer's command line is read again from the
    stored game at click time, so the button survives a restart and can never act on a newer
    state (a stale seq is refused)."""

    def __init__(self, game_id: int, seq: int, index: int, label: str = "Answer"):
        self.game_id, self.seq, self.index = game_id, seq, index
        super().__init__(discord.ui.Button(
            label=label[:80], style=discord.ButtonStyle.secondary if label == "No" else discord.ButtonStyle.primary,
            custom_id=f"herald:answer:{game_id}:{seq}:{index}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str], /) -> "AnswerButton":
        return cls(int(match["game"]), int(match["seq"]), int(match["index"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        service: GameService = interaction.client.service  # type: ignore[attr-defined]
        await remember_name(service.store, interaction)     # the player's name, if it changed
        try:
            result = await service.applied(interaction.id)      # a click delivered again
            if result is None:
                loaded = await service.load(interaction.channel_id)
                pending = pending_of(loaded.state, loaded.ruleset)
                if pending is None or loaded.seq != self.seq or not 0 <= self.index < len(pending.answers):
                    raise HeraldError("this choice is no longer open: the game has moved on")
                line = pending.answers[self.index].line
                result = await service.act(interaction.channel_id, interaction.user.id, line,
                                           interaction.id, expect_game=self.game_id, expect_seq=self.seq)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        except Exception:
            log.exception("answer button %s failed", self.custom_id)
            await refuse(interaction, INTERNAL)
            return
        try:
            if not result.duplicate:
                await interaction.response.edit_message(view=None)
            await post_result(interaction, service, result)
        except Exception:
            log.exception("could not post the answer result of game %s", self.game_id)


def decision_view(game_id: int, seq: int, pending: Pending) -> discord.ui.View:
    """Buttons for a pending decision: retreat hexes (Battle Cry) or the typed answers."""
    if not pending.answers or (pending.verb == "retreat"
                               and all(re.fullmatch(r"[0-9a-z]{1,16}", o) for o in pending.options)):
        return retreat_view(game_id, seq, pending)
    view = discord.ui.View(timeout=None)
    for i, answer in enumerate(pending.answers[:25]):
        view.add_item(AnswerButton(game_id, seq, i, answer.label))
    return view


def pending_view(result: ActResult) -> discord.ui.View | None:
    if result.pending is None or result.over:
        return None
    return decision_view(result.game_id, result.seq, result.pending)


DYNAMIC_ITEMS = (RetreatButton, AnswerButton)
