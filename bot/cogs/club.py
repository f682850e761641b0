"""Club play commands (issue 5): /seat (several players a side, a wing each in TACW), /referee
(appoint, pause, resume, substitute, correct with a logged reason) and /turn (the turn deadline
and the game's status message). Thin: the logic is in bot/club.py, bot/deadlines.py and
bot/status_message.py; refusals are ephemeral, what changes the game is public."""
from __future__ import annotations

import json

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from .. import club
from ..deadlines import MAX_DEADLINE_HOURS, deadline_hours, set_turn_deadline, turn_deadline_text, turn_hours
from ..status_message import refresh_quietly
from ..store import StoreError
from ..views import post_result, refuse, send
from .common import service_of

Choice = app_commands.Choice


def role_ids(user: object) -> set[int]:
    """The user's role ids: the cached roles, and (a guild not in the cache) the ids the
    interaction itself carried."""
    ids = {r.id for r in getattr(user, "roles", None) or []}
    ids |= {int(r) for r in getattr(user, "_roles", None) or ()}
    return ids


def is_admin(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return bool(perms and perms.administrator)


def _powers(interaction: discord.Interaction) -> dict:
    return {"role_ids": role_ids(interaction.user), "is_admin": is_admin(interaction)}


async def _wing_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """Every side's wings that have no player yet."""
    try:
        loaded = await service_of(interaction).load(interaction.channel_id)
    except Exception:
        return []
    taken = {(m.side, m.wing) for m in loaded.members if m.role == "player" and m.wing}
    cur = (current or "").lower()
    out = []
    for side in loaded.ruleset.sides:
        for wid, name in club.wings_of(loaded.ruleset, loaded.scenario, loaded.state, side):
            if (side, wid) not in taken and (cur in wid.lower() or cur in name.lower()):
                out.append(Choice(name=f"{side.title()}: {name}"[:100], value=wid[:100]))
    return out[:25]


async def _side_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    try:
        loaded = await service_of(interaction).load(interaction.channel_id)
    except Exception:
        return []
    cur = (current or "").lower()
    return [Choice(name=s.title(), value=s) for s in loaded.ruleset.sides if s in loaded.seats and cur in s][:25]


async def _path_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    """State paths below what is typed (for a referee only: paths, never values)."""
    service = service_of(interaction)
    try:
        loaded = await service.load(interaction.channel_id, finished_ok=True)
        if not club.is_referee(loaded, interaction.user.id, **_powers(interaction)):
            return []
        data = json.loads(json.dumps(loaded.ruleset.state_to_dict(loaded.state)))
        text = current or ""
        head, _, prefix = text.rpartition(".")
        node = club.lookup(data, head) if head else data
    except Exception:
        return []
    keys = list(node) if isinstance(node, dict) else [str(i) for i in range(len(node))] if isinstance(node, list) else []
    base = f"{head}." if head else ""
    return [Choice(name=f"{base}{k}"[:100], value=f"{base}{k}"[:100]) for k in keys if str(k).startswith(prefix)][:25]


class ClubCog(commands.Cog, name="Club play"):
    """Seats and roles, the referee, turn deadlines and the status message."""

    seat = app_commands.Group(name="seat", description="Share a side: a wing each (TACW), or all of it",
                              guild_only=True)
    referee = app_commands.Group(name="referee", description="The game's referee: appoint, pause, "
                                 "substitute, correct", guild_only=True)
    turn = app_commands.Group(name="turn", description="Turn deadlines and the game's status message",
                              guild_only=True)

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    # -- /seat ------------------------------------------------------------------------------
    @seat.command(name="join-wing", description="Command one wing of a side whose first player is seated (TACW)")
    @app_commands.describe(wing="The wing you will command")
    @app_commands.autocomplete(wing=_wing_autocomplete)
    async def join_wing(self, interaction: discord.Interaction, wing: str) -> None:
        service = service_of(interaction)
        try:
            loaded = await service.load(interaction.channel_id)
            side = next((s for s in loaded.ruleset.sides
                         if wing.strip().lower() in dict(club.wings_of(loaded.ruleset, loaded.scenario,
                                                                        loaded.state, s))), None)
            if side is None:
                known = [w for s in loaded.ruleset.sides
                         for w, _ in club.wings_of(loaded.ruleset, loaded.scenario, loaded.state, s)]
                raise club_refusal(f"'{wing}' is not a wing of this battle"
                                   + (f" ({', '.join(known)})" if known else
                                      f": {loaded.ruleset.name} has no wings (/seat join-side)"))
            loaded = await club.join_side(service, interaction.channel_id, interaction.user.id, side, wing)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        name = club.wing_name(loaded.ruleset, loaded.scenario, loaded.state, side, wing.strip().lower())
        await send(interaction, f"{interaction.user.mention} commands **{name}** of **{side.title()}**: they give "
                   f"its orders; <@{loaded.seats[side]}> keeps the whole side's.", quiet=True)
        await refresh_quietly(self.bot, loaded.row.id)

    @seat.command(name="join-side", description="Play a side with its first player, for all of it")
    @app_commands.describe(side="The side you will share")
    @app_commands.autocomplete(side=_side_autocomplete)
    async def join_side(self, interaction: discord.Interaction, side: str) -> None:
        service = service_of(interaction)
        try:
            loaded = await club.join_side(service, interaction.channel_id, interaction.user.id, side)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        side = side.strip().lower()
        await send(interaction, f"{interaction.user.mention} joins **{side.title()}** with <@{loaded.seats[side]}>: "
                   "either may give its orders; only the first player resigns.", quiet=True)
        await refresh_quietly(self.bot, loaded.row.id)

    @seat.command(name="leave", description="Stop sharing a side (its first player keeps it)")
    async def leave(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        try:
            gone = await club.leave_side(service, interaction.channel_id, interaction.user.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"{interaction.user.mention} leaves **{(gone.side or '').title()}**"
                   + (f" ({gone.wing})" if gone.wing else "") + ".", quiet=True)
        await refresh_quietly(self.bot, gone.game_id)

    @seat.command(name="list", description="Who plays which side and wing, and who referees")
    async def list_seats(self, interaction: discord.Interaction) -> None:
        try:
            text = await club.seat_text(service_of(interaction), interaction.channel_id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, text, quiet=True)

    # -- /referee ---------------------------------------------------------------------------
    @referee.command(name="appoint", description="Make a user this game's referee (creator or admin)")
    @app_commands.describe(user="The referee: never one of the game's players")
    async def appoint(self, interaction: discord.Interaction, user: discord.User) -> None:
        try:
            row = await club.appoint_referee(service_of(interaction), interaction.channel_id, interaction.user.id,
                                             user.id, is_admin(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"⚖️ {user.mention} referees game #{row.id}: they may pause, resume, substitute "
                   "a player and correct the state with a logged reason.")
        await refresh_quietly(self.bot, row.id)

    @referee.command(name="dismiss", description="Remove a referee (creator or admin; or yourself)")
    @app_commands.describe(user="The referee to remove")
    async def dismiss(self, interaction: discord.Interaction, user: discord.User) -> None:
        try:
            row = await club.dismiss_referee(service_of(interaction), interaction.channel_id, interaction.user.id,
                                             user.id, is_admin(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"⚖️ {user.mention} no longer referees game #{row.id}.", quiet=True)
        await refresh_quietly(self.bot, row.id)

    @referee.command(name="role", description="A server role whose members referee this game (creator or admin)")
    @app_commands.describe(role="The role; leave empty to remove it")
    async def role(self, interaction: discord.Interaction, role: discord.Role | None = None) -> None:
        try:
            row = await club.set_referee_role(service_of(interaction), interaction.channel_id, interaction.user.id,
                                              role.id if role else None, is_admin(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        text = (f"⚖️ Members of <@&{role.id}> referee game #{row.id} (unless they play in it)." if role
                else f"⚖️ Game #{row.id} has no referee role any more.")
        await send(interaction, text, quiet=True)
        await refresh_quietly(self.bot, row.id)

    @referee.command(name="pause", description="Pause the game: no action, no deadline, until resumed")
    @app_commands.describe(reason="Why (shown to the players)")
    async def pause(self, interaction: discord.Interaction, reason: str | None = None) -> None:
        try:
            row = await club.pause(service_of(interaction), interaction.channel_id, interaction.user.id,
                                   reason=reason or "", **_powers(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        why = f": {reason.strip()}" if reason and reason.strip() else ""
        await send(interaction, f"⏸️ Game #{row.id} is paused by the referee {interaction.user.mention}{why}. "
                   "No action is accepted and no deadline runs until /referee resume.", quiet=True)
        await refresh_quietly(self.bot, row.id)

    @referee.command(name="resume", description="Resume a paused game; the deadlines' clocks restart")
    async def resume(self, interaction: discord.Interaction) -> None:
        try:
            row = await club.resume(service_of(interaction), interaction.channel_id, interaction.user.id,
                                    **_powers(interaction))
            loaded = await service_of(interaction).load_row(row)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"▶️ Game #{row.id} resumes. {club.waiting_text(loaded)}.")
        await refresh_quietly(self.bot, row.id)

    @referee.command(name="substitute", description="Give a player's seat (and wing) to another user")
    @app_commands.describe(player="The player who leaves", replacement="The user who takes over")
    async def substitute(self, interaction: discord.Interaction, player: discord.User,
                         replacement: discord.User) -> None:
        try:
            moved = await club.substitute(service_of(interaction), interaction.channel_id, interaction.user.id,
                                          player.id, replacement.id, **_powers(interaction))
            loaded = await service_of(interaction).load(interaction.channel_id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        row = loaded.row
        now = club.waiting_text(loaded) if row.status == "active" else ""
        await send(interaction, f"🔁 {replacement.mention} takes over {club.seats_moved_text(loaded, moved)} from "
                   f"{player.mention} (referee {interaction.user.mention})." + (f"\nNow: {now}." if now else ""),
                   allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=[replacement]))
        await refresh_quietly(self.bot, row.id)

    @referee.command(name="correct", description="Correct the state (logged with its reason, replayed exactly)")
    @app_commands.describe(changes="path=value ..., e.g. pieces.ui2.figures=3 (see /referee show)",
                           reason="Why: shown to both players and kept in the log")
    @app_commands.autocomplete(changes=_path_autocomplete)
    async def correct(self, interaction: discord.Interaction, changes: str, reason: str) -> None:
        service = service_of(interaction)
        try:
            result = await club.correct(service, interaction.channel_id, interaction.user.id, changes, reason,
                                        interaction_id=interaction.id, **_powers(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await post_result(interaction, service, result)

    @referee.command(name="show", description="For the referee: a value of the state, by path")
    @app_commands.describe(path="A state path, e.g. pieces or pieces.ui2 (empty: the top)")
    @app_commands.autocomplete(path=_path_autocomplete)
    async def show(self, interaction: discord.Interaction, path: str | None = None) -> None:
        try:
            text = await club.inspect(service_of(interaction), interaction.channel_id, interaction.user.id,
                                      path or "", **_powers(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, text, ephemeral=True, quiet=True)

    # -- /turn ------------------------------------------------------------------------------
    @turn.command(name="deadline", description="Hours a player has to act; a reminder before, the referee told after")
    @app_commands.describe(hours="0-168 hours; 0 turns it off",
                           reminder="Hours before the end to remind the player (default: a quarter; 0: none)")
    async def deadline(self, interaction: discord.Interaction,
                       hours: app_commands.Range[float, 0, MAX_DEADLINE_HOURS],
                       reminder: app_commands.Range[float, 0, MAX_DEADLINE_HOURS] | None = None) -> None:
        try:
            row = await set_turn_deadline(service_of(interaction), interaction.channel_id, interaction.user.id,
                                          hours, reminder, **_powers(interaction))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, turn_deadline_text(row.id, *turn_hours(row.options), deadline_hours(row.options)),
                   quiet=True)
        await refresh_quietly(self.bot, row.id)

    @turn.command(name="status", description="Bring the game's status message up to date (posted again if deleted)")
    async def status(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)    # fetching the channel takes time
        try:
            row = await service.game_row(interaction.channel_id, finished_ok=True)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        message_id = await refresh_quietly(self.bot, row.id)
        if message_id is None:
            from ..permissions import blocked_text
            from ..status_message import status_text
            text = await status_text(service, await service.load_row(row))
            why = blocked_text(self.bot, row.channel_id)      # Herald lacks a permission there
            await send(interaction, f"{why}\n\n{text}" if why else text, ephemeral=True, quiet=True)
            return
        link = f"https://discord.com/channels/{interaction.guild_id}/{row.channel_id}/{message_id}"
        await send(interaction, f"The status message of game #{row.id} is up to date: {link}", ephemeral=True)


def club_refusal(text: str) -> HeraldError:
    from ..service import Refused
    return Refused(text)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ClubCog(bot))
