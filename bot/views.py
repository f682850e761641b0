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
from engine.core.pending import answer_hint

from .names import remember as remember_name
from .replies import INTERNAL, MAX_CONTENT, MENTIONS, clip, refusal_text, refuse, send  # noqa: F401
from .club import paused_text
from .errors import NotAllowed, Refused, StaleChoice
from .options import PAUSED
from .menus import Menus, Step
from .render_pool import render_png
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
    how = f"buttons below, or `/act {answer_hint(pending.answers)}`" if pending is not None and pending.answers \
        else f"buttons below, or /act {pending.verb}" if pending is not None else ""
    if pending is not None and pending.prompt and (pending.kind != "retreat" or not pending.piece):
        return f"**{side.title()}** {mention(user)}: {pending.prompt} ({how})"   # the ruleset's words (bot/club.py too)
    if pending is not None:
        return (f"**{side.title()}** {mention(user)} must choose a {pending.kind} hex for {pending.piece}: "
                f"{', '.join(pending.options)} ({how})")
    what = waiting.what if waiting is not None and waiting.kind == "turn" else "to act"   # with its wing
    return f"**{side.title()}** {what}: {mention(user)}"


def quiet_turn(game: LoadedGame) -> str:
    """Whose turn, without a mention."""
    side = game.to_act_side
    if side is None:
        return f"Battle over: {getattr(game.state, 'result', '') or 'the game has ended'}"
    pending = pending_of(game.state, game.ruleset)
    if pending is not None and pending.prompt and (pending.kind != "retreat" or not pending.piece):
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
    png = await render_png(result, store=service.store)     # in the render pool (issue 13)
    kwargs: dict[str, Any] = {}
    if (f := board_file(png)) is not None:
        kwargs["file"] = f
    if (view := pending_view(result)) is not None:
        kwargs["view"] = view
    elif not result.over and result.to_act_side is not None:       # the legal next actions
        view = await asyncio.to_thread(action_view, result.game_id, result.seq, result.ruleset,
                                       result.scenario, result.state, result.to_act_side)
        if view is not None:
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
    png = await render_png(loaded)                          # in the render pool (issue 13)
    kwargs: dict[str, Any] = {}
    if (f := board_file(png)) is not None:
        kwargs["file"] = f
    pending = pending_of(loaded.state, loaded.ruleset)
    if pending is not None and loaded.row.status == "active":
        kwargs["view"] = decision_view(loaded.row.id, loaded.seq, pending)
    elif loaded.row.status == "active" and loaded.to_act_side is not None:
        view = await asyncio.to_thread(action_view, loaded.row.id, loaded.seq, loaded.ruleset,
                                       loaded.scenario, loaded.state, loaded.to_act_side)
        if view is not None:
            kwargs["view"] = view
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


# --- the action menus: the legal next actions, built by clicks (bot/menus.py) -------------------
# The public message after an action carries a select of the verbs the side to act may use now
# (custom_id herald:menu:<game>:<seq>) and a button for each verb that needs no more words
# (herald:go:<game>:<seq>:<line>). Choosing a verb opens a private message that builds the line one
# option at a time: a select of what may come next (herald:step:<game>:<seq>; each option's value is
# the whole line so far), a Send button (herald:send:<game>:<seq>:<line>) once the rules accept
# the line, and Back (herald:back:<game>:<seq>:<line>). Everything is in the custom_id and the
# values, so the menus survive a restart; a click is refused once the game has moved on (its seq),
# and by anyone but the player the game waits on. Send runs the line through `GameService.act`,
# as /act does, and posts the result in public with new menus.
MENU_PREFIX = "herald:send:"


def _max_line(game_id: int, seq: int) -> int:
    """The longest line a button's custom_id can carry (Discord: 100 characters)."""
    return 100 - len(f"{MENU_PREFIX}{game_id}:{seq}:")


def _menus(game_id: int, seq: int, ruleset: Any, scenario: Any, state: Any, side: str, may: Any = None) -> Menus:
    return Menus(ruleset, scenario, state, side, max_line=_max_line(game_id, seq), may=may)


def _may(service: GameService, loaded: LoadedGame, user_id: int):
    """Whether `user_id` may give a line (the service's acting_side: a wing's player only for his
    wing, nobody while the referee has paused the game), for the menus one player opens."""
    resolve = service.hooks.acting_side
    if resolve is None:
        return None

    def may(line: str) -> bool:
        try:
            resolve(loaded, user_id, line)
        except (HeraldError, StoreError):
            return False
        return True
    return may


def _options(choices) -> list[discord.SelectOption]:
    return [discord.SelectOption(label=c.label[:100] or c.line[:100], value=c.line[:100],
                                 description=(c.description[:100] or None)) for c in choices]


class ActionSelect(discord.ui.DynamicItem[discord.ui.Select],
                   template=r"herald:(?P<where>menu|step):(?P<game>[0-9]+):(?P<seq>[0-9]+)"):
    """A select of what may come next: the verbs (`menu`, on the public message) or the next word
    of a line being built (`step`, on the player's private message). Each option's value is the
    whole line once chosen."""

    def __init__(self, where: str, game_id: int, seq: int, options: list[discord.SelectOption] | None = None,
                 placeholder: str = "Choose…"):
        self.where, self.game_id, self.seq = where, game_id, seq
        super().__init__(discord.ui.Select(custom_id=f"herald:{where}:{game_id}:{seq}", placeholder=placeholder[:150],
                                           options=list(options or [])))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str], /) -> "ActionSelect":
        return cls(match["where"], int(match["game"]), int(match["seq"]), list(getattr(item, "options", [])))

    async def callback(self, interaction: discord.Interaction) -> None:
        values = (interaction.data or {}).get("values") or []
        line = str(values[0]) if values else ""
        page = 0
        if (more := re.fullmatch(r"…([0-9]{1,3}) ?(.*)", line)) is not None:      # "more choices"
            page, line = int(more[1]), more[2]
        await show_step(interaction, self.game_id, self.seq, line, edit=self.where == "step", page=page)


class LineButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=r"herald:(?P<what>go|send|back):(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<line>[^\n]{0,90})"):
    """`go` (public) and `send` (private) apply the line in the custom_id; `back` shows the
    private builder again at that line."""

    def __init__(self, what: str, game_id: int, seq: int, line: str, label: str = ""):
        self.what, self.game_id, self.seq, self.line = what, game_id, seq, line
        style = {"go": discord.ButtonStyle.secondary, "send": discord.ButtonStyle.success}.get(
            what, discord.ButtonStyle.secondary)
        super().__init__(discord.ui.Button(label=(label or line or "Back")[:80], style=style,
                                           custom_id=f"herald:{what}:{game_id}:{seq}:{line}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str], /) -> "LineButton":
        return cls(match["what"], int(match["game"]), int(match["seq"]), match["line"])

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.what == "back":
            await show_step(interaction, self.game_id, self.seq, self.line, edit=True)
        else:
            await send_line(interaction, self.game_id, self.seq, self.line, edit_public=self.what == "go")


def action_view(game_id: int, seq: int, ruleset: Any, scenario: Any, state: Any, side: str) -> discord.ui.View | None:
    """The public menus of the side to act: a select of the verbs that need more words, a
    button for each that needs none (at most five). Blocking (the rules try each offer): call
    through asyncio.to_thread. None when the ruleset declares no verbs or nothing is offered."""
    try:
        step = _menus(game_id, seq, ruleset, scenario, state, side).step("")
    except Exception:
        log.exception("no action menus for game %s", game_id)
        return None
    limit = _max_line(game_id, seq)
    quick = [c for c in step.choices if c.ready and len(c.line) <= limit][:5]
    rest = [c for c in step.choices if c not in quick]
    if not quick and not rest:
        return None
    view = discord.ui.View(timeout=None)
    if rest:
        view.add_item(ActionSelect("menu", game_id, seq, _options(rest), f"{side.title()}: choose an action…"))
    for c in quick:
        view.add_item(LineButton("go", game_id, seq, c.line, c.line.capitalize()))
    return view


def step_message(game_id: int, seq: int, step: Step) -> tuple[str, discord.ui.View | None]:
    """The private builder's text and components for one step."""
    head = f"`{step.line}`: {step.prompt}" if step.line else f"Choose an action ({step.prompt})."
    if step.page:
        head += f" (page {step.page + 1})"
    lines = [head]
    if step.line and not step.choices and not step.ready:
        lines.append("Nothing the rules accept follows here: go Back, or type the line with /act.")
    elif step.ready:
        lines.append(f"**Send** applies `{step.line}`.")
    if step.left_off:
        lines.append(f"{step.left_off} choice(s) too long for a button: type the line with /act.")
    view = discord.ui.View(timeout=None)
    if step.choices:
        options = _options(step.choices)
        more = f"…{step.next_page} {step.line}".strip()
        if step.next_page is not None and len(more) <= 100:
            options.append(discord.SelectOption(label="More choices…", value=more,
                                                description=f"page {step.next_page + 1}"))
        view.add_item(ActionSelect("step", game_id, seq, options,
                                   "Choose…" if step.line else "Choose an action…"))
    if step.ready and len(step.line) <= _max_line(game_id, seq):
        view.add_item(LineButton("send", game_id, seq, step.line, f"Send: {step.line}"))
    if step.line:
        back = " ".join(step.line.split()[:-1])
        view.add_item(LineButton("back", game_id, seq, back, "Back"))
    return "\n".join(lines), (view if view.children else None)


async def _waiting_game(interaction: discord.Interaction, service: GameService, game_id: int, seq: int) -> LoadedGame:
    """The channel's game, if the menu clicked is its latest and the clicker is the player it waits on."""
    row = await service.game_row(interaction.channel_id)
    if row.id != game_id:
        raise StaleChoice("this menu belongs to an earlier game in this channel")
    if row.status != "active":
        raise Refused("the game is not in play")
    loaded = await service.load_row(row)
    if loaded.seq != seq:
        raise StaleChoice("this menu is out of date: the game has moved on since it was posted "
                          "(use the menus of the latest message, or /act)")
    side = loaded.to_act_side
    mine = loaded.side_of(interaction.user.id)
    if side is None:
        raise Refused("the battle is over")
    if mine is None:
        raise NotAllowed("only the player the game waits on may use these menus; you are not a player "
                         "in this game")
    if mine != side:
        raise NotAllowed(f"the game waits on {side.title()}, not on you: these menus are theirs")
    if loaded.row.options.get(PAUSED):      # the referee's pause: nothing to build (bot/club.py)
        raise Refused(paused_text(loaded.row) or "the game is paused by the referee")
    return loaded


async def show_step(interaction: discord.Interaction, game_id: int, seq: int, line: str, *, edit: bool,
                    page: int = 0) -> None:
    """Show the builder at `line`: on the player's private message (`edit`), or in a new one."""
    service: GameService = interaction.client.service  # type: ignore[attr-defined]
    await remember_name(service.store, interaction)
    try:
        loaded = await _waiting_game(interaction, service, game_id, seq)
        if edit:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        step = await asyncio.to_thread(_menus(game_id, seq, loaded.ruleset, loaded.scenario, loaded.state,
                                              loaded.to_act_side, _may(service, loaded, interaction.user.id)).step,
                                       line, page)
        content, view = step_message(game_id, seq, step)
        if edit:
            await interaction.edit_original_response(content=content, view=view)
        else:
            await interaction.followup.send(content, ephemeral=True, **({"view": view} if view else {}))
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
    except Exception:
        log.exception("menu %s:%s at %r failed", game_id, seq, line)
        await refuse(interaction, INTERNAL)


async def send_line(interaction: discord.Interaction, game_id: int, seq: int, line: str, *, edit_public: bool) -> None:
    """Apply the line built by clicks, as /act would; the result in public with new menus."""
    service: GameService = interaction.client.service  # type: ignore[attr-defined]
    await remember_name(service.store, interaction)
    try:
        result = await service.applied(interaction.id)          # a click delivered again
        if result is None:
            await _waiting_game(interaction, service, game_id, seq)
            result = await service.act(interaction.channel_id, interaction.user.id, line, interaction.id,
                                       expect_game=game_id, expect_seq=seq)
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        if getattr(exc, "public", False):         # the game now waits for dice: say so in the status
            from .status_message import refresh_quietly
            await refresh_quietly(interaction.client, game_id)
        return
    except Exception:
        log.exception("menu line %r of game %s failed", line, game_id)
        await refuse(interaction, INTERNAL)
        return
    try:
        if not result.duplicate:          # done: the menus come off the message clicked
            if edit_public:
                await interaction.response.edit_message(view=None)
            else:
                await interaction.response.edit_message(content=f"Sent `{line}`.", view=None)
        await post_result(interaction, service, result)
    except Exception:
        log.exception("could not post the result of menu line %r of game %s", line, game_id)


DYNAMIC_ITEMS = (RetreatButton, AnswerButton, ActionSelect, LineButton)
