"""/game replay, /game export, /game import, and the board at an earlier point (/game board at: or
turn:): the slash-command face of bot/history.py (issue 5, Club play "History").

`HistoryCommands` is a mixin of GamesCog (bot/cogs/games.py), so its commands are subcommands of
/game; /game board keeps its place in GamesCog and hands `at`/`turn` to `show_board_at`.

Replies: a past board and a replay are public (the channel's view: nothing hidden is drawn, and
the captions are the public view of each entry, engine/core/public.py); the file of an unfinished
battle is sent privately, and only to its referee or to a player once every player has agreed
(bot/history.py EXPORT_RULE: its seed deals every card and die to come), with a public line
saying who took it; a finished battle's file goes to the channel; every refusal is ephemeral.
"""
from __future__ import annotations

import asyncio
import io
import logging

import discord
from discord import app_commands

from engine.core.errors import HeraldError

from .. import history
from ..store import StoreError
from ..render_pool import render_png
from ..views import board_file, clip, refuse, send

log = logging.getLogger(__name__)


def _service(interaction: discord.Interaction):
    return interaction.client.service  # type: ignore[attr-defined]


async def show_board_at(interaction: discord.Interaction, at: int | None, turn: int | None) -> None:
    """/game board at:<#> or turn:<n>: the public board at that point, with what happened then.
    No decision buttons: a past board answers nothing."""
    service = _service(interaction)
    try:
        point = await history.board_at(service, interaction.channel_id, at=at, turn=turn,
                                       ready=lambda: interaction.response.defer(thinking=True))
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        return
    png = await render_png(point.game, None, "full")            # in the render pool (issue 13)
    png = await asyncio.to_thread(_captioned, png, point.caption) if png is not None else None
    kwargs = {"file": f} if (f := board_file(png)) is not None else {}
    await send(interaction, point.caption, quiet=True, **kwargs)


def _past_board(service, point: "history.Point") -> bytes | None:
    """The public board then (viewer None), with the point named under it: an image of an earlier
    board must never pass for the board now. (Blocking; the command draws in the render pool and
    captions with `_captioned`.)"""
    png = service.render(point.game, None, "full")
    return _captioned(png, point.caption) if png is not None else None


def _captioned(png: bytes, caption: str) -> bytes:
    """The board PNG with the point named under it; the bare board if captioning fails."""
    from renders.replay import captioned_png
    try:
        return captioned_png(png, caption)
    except Exception:
        log.exception("caption of a past board failed")
        return png


def _names(interaction: discord.Interaction) -> dict[int, str]:
    """Display names of the people the client knows (the exporter at least); others are named
    after their side in the file."""
    names = {interaction.user.id: interaction.user.display_name}
    guild = interaction.guild
    if guild is not None:
        for member in guild.members:
            names.setdefault(member.id, member.display_name)
    return names


class HistoryCommands:
    """Subcommands of /game for the history of the channel's game. Every refusal is decided
    before the reply is deferred (so it stays private), except an import whose replay fails:
    that reply was deferred privately and the public announcement is a second message."""

    @app_commands.command(name="replay", description="An animated replay (GIF) of the battle, or of one turn")
    @app_commands.describe(turn="Only this turn (from its start to the start of the next); default: the whole battle")
    async def replay(self, interaction: discord.Interaction,
                     turn: app_commands.Range[int, 1, 100000] | None = None) -> None:
        service = _service(interaction)
        shown = []

        async def progress(done: int, total: int) -> None:
            """The deferred reply says how far the drawing is (edited in place, every ~1.5 s)."""
            await interaction.edit_original_response(
                content=f"Drawing the replay: {done} of {total} boards…",
                allowed_mentions=discord.AllowedMentions.none())
            shown.append(done)

        try:
            made = await history.replay(service, interaction.channel_id, turn,
                                        ready=lambda: interaction.response.defer(thinking=True),
                                        progress=progress)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        except Exception:
            log.exception("replay of channel %s failed", interaction.channel_id)
            await refuse(interaction, "the replay could not be drawn (an internal fault)")
            return
        file = discord.File(io.BytesIO(made.replay.gif), filename=made.filename)
        if shown:        # the progress line becomes the replay: one message, not two
            await interaction.edit_original_response(content=clip(made.caption), attachments=[file],
                                                     allowed_mentions=discord.AllowedMentions.none())
            return
        await send(interaction, made.caption, quiet=True, file=file)

    @app_commands.command(name="export", description="This game as a file: herald play --load continues it, /game import loads it")
    async def export(self, interaction: discord.Interaction) -> None:
        """A finished battle's file is posted for all; an unfinished one's goes privately to its
        referee, or to a player once every player has agreed (history.EXPORT_RULE): until then
        the request is a public note of who is still to agree, and the file is never sent."""
        from .club import is_admin, role_ids
        service = _service(interaction)
        try:
            made = await history.export_game(
                service, interaction.channel_id, interaction.user.id, _names(interaction),
                ready=lambda private: interaction.response.defer(thinking=True, ephemeral=private),
                role_ids=sorted(role_ids(interaction.user)), is_admin=is_admin(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        if made.data is None:                      # a consent recorded; others still to agree
            await send(interaction, made.text, quiet=True)
            return
        await send(interaction, made.text, ephemeral=made.hidden, quiet=True,
                   file=discord.File(io.BytesIO(made.data), filename=made.filename))
        if made.notice:                            # who took an unfinished battle's file, for all
            await interaction.followup.send(clip(made.notice), allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="import", description="Load a game file from /game export into this channel, to continue it")
    @app_commands.describe(file="The .json file /game export gave (checked and replayed before anything is stored)")
    async def import_(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        from ..permissions import refuse_if_cannot_post
        if await refuse_if_cannot_post(interaction):         # a game needs Herald able to post here
            return
        service = _service(interaction)
        if file.size > history.MAX_FILE_BYTES:
            await refuse(interaction, f"this game file cannot be loaded: it is {file.size} bytes, over the "
                         f"{history.MAX_FILE_BYTES // 1024} KiB a game file may have")
            return
        # private until the game is stored: a refused file concerns only the one who sent it
        await interaction.response.defer(thinking=True, ephemeral=True)
        try:
            if await service.store.active_game(interaction.channel_id) is not None:
                raise history.ChannelBusy("busy")
            data = await file.read()
            made = await history.import_game(service, interaction.guild_id, interaction.channel_id,
                                             interaction.user.id, data)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        except discord.HTTPException as exc:
            await refuse(interaction, f"the file could not be downloaded from Discord ({exc.status}); try again")
            return
        await send(interaction, f"✅ Game #{made.game.row.id} is imported.", ephemeral=True, quiet=True)
        png = await render_png(made.game, None, "full")            # in the render pool (issue 13)
        kwargs = {"file": f} if (f := board_file(png)) is not None else {}
        await interaction.followup.send(clip(made.text), allowed_mentions=discord.AllowedMentions.none(), **kwargs)
