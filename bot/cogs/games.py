"""/game: create, join, start, show and end the channel's game (one game per channel or thread)."""
from __future__ import annotations

from datetime import datetime, timezone

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError
from engine.core.game import rulesets

from ..errors import Refused
from ..deadlines import MAX_DEADLINE_HOURS, deadline_hours, deadline_set_text
from ..permissions import refuse_if_cannot_post
from ..status_message import refresh_quietly
from ..store import StoreError
from ..views import post_board, post_result, quiet_turn, refuse, send, turn_line
from .common import service_of
from .history import HistoryCommands, show_board_at   # /game replay, export, import; board at:

RULESET_CHOICES = [app_commands.Choice(name=rs.name, value=rid) for rid, rs in sorted(rulesets().items())]


async def _scenario_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    rid = getattr(interaction.namespace, "ruleset", None) or "battlecry"
    try:
        rs = service_of(interaction).ruleset_of(str(rid))
        found = rs.scenarios()
        from ..uploads import choices as uploaded       # this server's own (bot/uploads.py)
        found = found + [(sid, f"{title} (uploaded)") for sid, title in
                         await uploaded(service_of(interaction).store, interaction.guild_id, rs.id)]
    except Exception:
        return []
    cur = (current or "").lower()
    return [app_commands.Choice(name=title[:100], value=sid[:100]) for sid, title in found
            if cur in sid.lower() or cur in title.lower()][:25]


async def _options_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """/game new options: the chosen scenario's optional rules, completing the last of a
    comma-separated list (the words already typed are kept)."""
    from engine.core.game import game_options, option_name
    rid = getattr(interaction.namespace, "ruleset", None) or "battlecry"
    sid = getattr(interaction.namespace, "scenario", None)
    try:
        rs = service_of(interaction).ruleset_of(str(rid))
        from ..uploads import custom_text               # a scenario this server uploaded
        text = await custom_text(service_of(interaction).store, interaction.guild_id, rs, str(sid))
        known = game_options(rs, rs.parse_scenario(text) if text else rs.load_scenario(str(sid)))
    except Exception:
        return []
    typed = [w.strip() for w in (current or "").split(",")]
    done, last = [w for w in typed[:-1] if w], typed[-1].lower()
    head = ",".join([option_name(w) for w in done] + [""]) if done else ""
    known = [(option_name(oid), text) for oid, text in known]         # one style: eight-turns, york-1
    done_names = {option_name(w) for w in done}
    return [app_commands.Choice(name=f"{head}{oid}: {text}"[:100], value=f"{head}{oid}"[:100])
            for oid, text in known if oid not in done_names and (option_name(last) in oid or last in text.lower())][:25]


async def _side_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    service = service_of(interaction)
    rid = getattr(interaction.namespace, "ruleset", None)
    try:
        if rid:                                   # /game new: the chosen ruleset's sides
            sides, taken = service.ruleset_of(str(rid)).sides, {}
        else:                                     # /game join: the free sides of this game
            loaded = await service.load(interaction.channel_id)
            sides, taken = loaded.ruleset.sides, loaded.seats
    except Exception:
        return []
    cur = (current or "").lower()
    return [app_commands.Choice(name=s.title(), value=s) for s in sides if s not in taken and cur in s][:25]


@app_commands.guild_only()
class GamesCog(HistoryCommands, commands.GroupCog, group_name="game", group_description="Create, join and manage this channel's game"):
    def __init__(self, bot: commands.Bot):
        self.bot = bot
        super().__init__()

    @app_commands.command(name="new", description="Set up a new game in this channel (one game per channel)")
    @app_commands.describe(ruleset="The rule system", scenario="The battle to fight",
                           side="Take this side yourself (optional)",
                           seed="Dice seed, to replay a game exactly (optional)",
                           options="The battle's optional rules to play with, comma separated (optional)",
                           dice="Who rolls: Herald (seeded, the default) or the players, entering results with /dice")
    @app_commands.choices(ruleset=RULESET_CHOICES, dice=[
        app_commands.Choice(name="Herald rolls (seeded, recorded)", value="seeded"),
        app_commands.Choice(name="Physical: the players roll and enter the results", value="physical")])
    @app_commands.autocomplete(scenario=_scenario_autocomplete, side=_side_autocomplete,
                               options=_options_autocomplete)
    async def new(self, interaction: discord.Interaction, ruleset: str, scenario: str,
                  side: str | None = None, seed: str | None = None, options: str | None = None,
                  dice: str | None = None) -> None:
        if await refuse_if_cannot_post(interaction):        # the permissions Herald needs here
            return
        service = service_of(interaction)
        chosen = [o.strip() for o in (options or "").split(",") if o.strip()]
        try:
            from ..physical_dice import check_mode, mode_note, set_mode     # who rolls
            mode = check_mode(dice)
            loaded = await service.new_game(interaction.guild_id, interaction.channel_id, interaction.user.id,
                                            ruleset, scenario, seed, side=side, options=chosen)
            if mode != "seeded":
                await set_mode(service, loaded.row.id, mode)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        rs, sc = loaded.ruleset, loaded.scenario
        seated = f" {interaction.user.mention} takes {side.title()}." if side else ""
        from engine.core.game import option_name
        rules = f"\nOptional rules: {', '.join(option_name(o) for o in chosen)}." if chosen else ""
        rules += mode_note(mode)
        await send(interaction, f"New game #{loaded.row.id}: **{rs.name}**, {getattr(sc, 'title', loaded.row.scenario_id)}."
                   f"{seated}{rules}\nSides: {', '.join(s.title() for s in rs.sides)}. "
                   "Take one with /game join, then /game start.")

    @app_commands.command(name="rematch",
                          description="Play the finished battle again with sides swapped (BC §6 Balancing)")
    @app_commands.describe(seed="Dice seed, to replay a game exactly (optional)")
    async def rematch(self, interaction: discord.Interaction, seed: str | None = None) -> None:
        if await refuse_if_cannot_post(interaction):
            return
        service = service_of(interaction)
        try:
            loaded = await service.rematch(interaction.guild_id, interaction.channel_id, interaction.user.id, seed)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        rs, sc = loaded.ruleset, loaded.scenario
        seats = ", ".join(f"<@{loaded.seats[s]}> {s.title()}" for s in rs.sides)
        await send(interaction, f"Return game #{loaded.row.id}: **{rs.name}**, {getattr(sc, 'title', loaded.row.scenario_id)}, "
                   f"sides swapped: {seats}. The battle begins; the pair is scored when it ends (/game status).")
        await refresh_quietly(self.bot, loaded.row.id)     # the new game's status message

    @app_commands.command(name="join", description="Take a side in this channel's game")
    @app_commands.describe(side="The side you will command")
    @app_commands.autocomplete(side=_side_autocomplete)
    async def join(self, interaction: discord.Interaction, side: str) -> None:
        service = service_of(interaction)
        try:
            if (await service.game_row(interaction.channel_id)).status != "setup":    # every side is held
                raise Refused("the battle has started: every side is held (share one with /seat join-side)")
            loaded = await service.join(interaction.channel_id, interaction.user.id, side)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        free = [s.title() for s in loaded.ruleset.sides if s not in loaded.seats]
        await send(interaction, f"{interaction.user.mention} commands **{side.strip().title()}**."
                   + (f" Still free: {', '.join(free)}." if free else " All sides are taken: /game start."))

    @app_commands.command(name="leave", description="Give up your side before the game starts")
    async def leave(self, interaction: discord.Interaction) -> None:
        try:
            side = await service_of(interaction).leave(interaction.channel_id, interaction.user.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"{interaction.user.mention} leaves **{side.title()}**.")

    @app_commands.command(name="start", description="Start the battle once every side has a player")
    async def start(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        try:
            loaded = await service.start(interaction.channel_id, interaction.user.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        title = getattr(loaded.scenario, "title", loaded.row.scenario_id)
        await post_board(interaction, service, loaded,
                         f"**{title}** begins.\n{turn_line(loaded, None)}")

    @app_commands.command(name="board", description="Show the board of this channel's game")
    @app_commands.describe(at="The board after this log entry (#0: the opening board; /game log numbers them)",
                           turn="The board at the start of this turn")
    async def board(self, interaction: discord.Interaction, at: app_commands.Range[int, 0, 1000000] | None = None,
                    turn: app_commands.Range[int, 1, 100000] | None = None) -> None:
        if at is not None or turn is not None:          # an earlier point (bot/cogs/history.py)
            await show_board_at(interaction, at, turn)
            return
        service = service_of(interaction)
        try:
            loaded = await service.load(interaction.channel_id, finished_ok=True)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        caption = f"Game #{loaded.row.id} after {loaded.seq} command(s). {quiet_turn(loaded)}"
        await post_board(interaction, service, loaded, caption, quiet=True)

    @app_commands.command(name="status", description="Whose turn, cards, flags and what is pending")
    async def status(self, interaction: discord.Interaction) -> None:
        try:
            _, text = await service_of(interaction).status(interaction.channel_id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, text, quiet=True)

    @app_commands.command(name="deadline",
                          description="Hours a player has to answer a pending decision before their default policy does")
    @app_commands.describe(hours="0-168 hours; 0 turns the deadline off")
    async def deadline(self, interaction: discord.Interaction,
                       hours: app_commands.Range[float, 0, MAX_DEADLINE_HOURS]) -> None:
        from .club import is_admin, role_ids
        service = service_of(interaction)
        try:
            powers = is_admin(interaction)                 # an administrator, or the game's referee
            if not powers:
                from ..club import is_referee
                powers = is_referee(await service.load(interaction.channel_id), interaction.user.id,
                                    role_ids(interaction.user))
            row = await service.set_deadline(interaction.channel_id, interaction.user.id, hours, powers)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, deadline_set_text(row.id, deadline_hours(row.options)), quiet=True)
        await refresh_quietly(self.bot, row.id)            # the status message shows the deadline

    @app_commands.command(name="list", description="This server's games, their channels and who is to move")
    async def list_games(self, interaction: discord.Interaction) -> None:
        from ..server_view import game_list   # bot/server_view.py: the server view
        try:
            text = await game_list(service_of(interaction), interaction.guild_id, now=datetime.now(timezone.utc))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, text, quiet=True)

    @app_commands.command(name="log", description="The latest adjudications, with their rule sections")
    @app_commands.describe(count="How many events to show (1-25, default 10)")
    async def log(self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 25] = 10) -> None:
        try:
            lines = await service_of(interaction).log(interaction.channel_id, max(1, min(25, count)))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, "\n".join(lines) if lines else "No command has been given yet.")

    @app_commands.command(name="resign", description="Concede the battle to your opponent")
    async def resign(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        try:
            result = await service.resign(interaction.channel_id, interaction.user.id, interaction.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await post_result(interaction, service, result)

    @app_commands.command(name="abandon", description="End this channel's game without a result (creator or admin)")
    async def abandon(self, interaction: discord.Interaction) -> None:
        perms = interaction.permissions
        try:
            row = await service_of(interaction).abandon(interaction.channel_id, interaction.user.id,
                                                        bool(perms and perms.administrator))
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"Game #{row.id} is abandoned by {interaction.user.mention}; "
                   "the channel is free for /game new.")
        await refresh_quietly(self.bot, row.id)            # the status message says so


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GamesCog(bot))
