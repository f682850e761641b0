"""Every ruleset's slash commands, built from the verbs it declares as data (engine/core/verbs.py;
DESIGN: the command surface). No ruleset has bot code of its own.

- One top-level group per ruleset (`/bc`, `/tacw`, ...). A ruleset with more than 25 verbs lists
  them in subcommand groups named after its phases (`/tacw actions fire`).
- Each subcommand's options are the verb's options: a yes/no for a flag, fixed choices, or
  autocomplete from the ruleset's completions (with the options already typed as context).
- The callback turns the options into the same line the CLI reads (`line_for`) and hands it to
  `run_action`: an action is answered in public with the board, a query only to the asker, a
  secret is applied and confirmed only to its giver.
- `/act` takes any line of the command language of the channel's game, and completes the whole
  line: the verb first, then each argument (`complete_line`).

A command of one ruleset used in a channel that plays another is refused, naming both.
"""
from __future__ import annotations

import asyncio
import inspect
import logging

import discord
from discord import app_commands

from engine.core.commands import parse, split_side
from engine.core.errors import HeraldError
from engine.core.game import rulesets
from engine.core.verbs import (CommandSet, Option, Verb, available, command_set, complete_line, line_for,
                               slash_description)

from ..store import StoreError
from ..views import refuse, send
from .common import run_action, service_of

log = logging.getLogger(__name__)
Choice = app_commands.Choice


# == the channel's game, for completions and checks ============================================

async def _channel_game(interaction: discord.Interaction):
    """The channel's loaded game, or None (no game, or one that cannot be read now)."""
    try:
        return await service_of(interaction).load(interaction.channel_id)
    except Exception:
        return None


def _completer(loaded, side):
    rs = loaded.ruleset

    def complete(kind: str, prefix: str, context: dict, head: str = ""):
        return rs.completions(loaded.scenario, loaded.state, side, kind, prefix, context, head)
    return complete


def _choices(pairs) -> list[Choice[str]]:
    return [Choice(name=str(n)[:100] or "…", value=str(v)[:100]) for n, v in pairs][:25]


def option_autocomplete(ruleset_id: str, option: Option):
    """An autocomplete callback for one declared option, reading the channel's game."""

    async def autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        loaded = await _channel_game(interaction)
        if loaded is None or loaded.ruleset.id != ruleset_id:
            return []
        head, prefix = "", current or ""
        if option.multi and " " in prefix:
            head, prefix = prefix.rsplit(" ", 1)
            head = head.strip()
        context = {}
        for name in option.context:
            value = getattr(interaction.namespace, name, None)
            if value not in (None, ""):
                context[name] = str(value)
        try:
            side = loaded.side_of(interaction.user.id)
            # off the event loop: a completion may weigh its candidates (TACW's targets carry
            # their exact odds, up to about a second for a gun's 25 targets)
            found = await asyncio.to_thread(_completer(loaded, side), option.kind, prefix, context, head)
        except Exception:
            log.debug("no completions for %s %s", ruleset_id, option.kind, exc_info=True)
            return []
        if head:
            return _choices((f"{head} {v} — {n}", f"{head} {v}") for n, v in found)
        return _choices(found)

    autocomplete.__name__ = f"complete_{option.kind or option.name}"
    return autocomplete


async def refuse_other_ruleset(interaction: discord.Interaction, ruleset) -> bool:
    """True (and a refusal sent) when the channel's game is not of `ruleset`."""
    try:
        row = await service_of(interaction).game_row(interaction.channel_id)
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        return True
    if row.ruleset != ruleset.id:
        other = rulesets(include_unfinished=True).get(row.ruleset)
        other_name = other.name if other is not None else row.ruleset
        theirs = command_set(other) if other is not None else None
        hint = f" Use /{theirs.group} or /act." if theirs is not None else " Use /act."
        await refuse(interaction, f"this channel's game is {other_name}; /{command_set(ruleset).group} "
                                  f"commands are for {ruleset.name}.{hint}")
        return True
    return False


async def answer_query(interaction: discord.Interaction, line: str) -> None:
    """A read-only verb (a hand of cards, a list of ids): answered only to the asker."""
    service = service_of(interaction)
    try:
        loaded = await service.load(interaction.channel_id, finished_ok=True)
        side = loaded.side_of(interaction.user.id)
        text = loaded.ruleset.query(loaded.scenario, loaded.state, side, parse(line))
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        return
    await send(interaction, text, ephemeral=True)


async def apply_secret(interaction: discord.Interaction, verb: Verb, line: str, values: dict) -> None:
    """A hidden act (Second Newbury's boat bridge): applied, and confirmed only to its giver; the
    public log shows what the ruleset's public view allows (engine/core/public.py)."""
    try:
        await service_of(interaction).act(interaction.channel_id, interaction.user.id, line, interaction.id)
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        return
    if not values:                    # from /act: the options are the line's words, in order
        head, sep, rest = line.partition(":")           # accepted: a `side:` prefix names a side
        args = parse(rest if sep and " " not in head.strip() else line).args
        values = dict(zip((o.name for o in verb.options if not o.is_flag and not o.word), args))
    filled = {o.name: "" for o in verb.options}
    filled.update({k: str(v).strip() for k, v in values.items() if v is not None})
    try:
        text = verb.secret_reply.format(**filled)
    except (KeyError, IndexError, ValueError):
        text = ""
    await send(interaction, text or f"🔒 Recorded in secret: `{line}`", ephemeral=True, quiet=True)


# == building the commands ========================================================================

def _parameter(option: Option) -> inspect.Parameter:
    annotation = bool if option.is_flag else str
    default = inspect.Parameter.empty if option.needed else (False if option.is_flag else None)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation if option.needed or option.is_flag else annotation | None)


def verb_command(ruleset, commands: CommandSet, verb: Verb) -> app_commands.Command:
    """The slash subcommand for one declared verb."""

    async def callback(interaction: discord.Interaction, **values) -> None:
        if await refuse_other_ruleset(interaction, ruleset):
            return
        line = line_for(verb, values)
        if verb.reply == "query":
            await answer_query(interaction, line)
        elif verb.reply == "secret":
            await apply_secret(interaction, verb, line, values)
        else:
            await run_action(interaction, line)

    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=discord.Interaction)]
    params += [_parameter(o) for o in verb.options]
    descriptions = {o.name: o.description for o in verb.options}
    if verb.dice:
        params.append(inspect.Parameter("dice", inspect.Parameter.KEYWORD_ONLY, default=None,
                                        annotation=str | None))
        descriptions["dice"] = commands.dice_help[:100]
    callback.__signature__ = inspect.Signature(params)
    callback.__name__ = callback.__qualname__ = f"{commands.group}_{verb.name}"
    if descriptions:
        app_commands.describe(**descriptions)(callback)
    fixed = {o.name: [Choice(name=n, value=v) for n, v in o.choices] for o in verb.options if o.choices}
    if fixed:
        app_commands.choices(**fixed)(callback)
    completing = {o.name: option_autocomplete(ruleset.id, o) for o in verb.options
                  if o.kind and not o.choices and not o.is_flag}
    if completing:
        app_commands.autocomplete(**completing)(callback)
    description = slash_description(verb)
    if len(description) > 100:         # refused by the declaration's own checks (verbs.problems)
        description = verb.description
    return app_commands.Command(name=verb.name, description=description[:100], callback=callback)


def ruleset_group(ruleset) -> app_commands.Group | None:
    """`/<group>` for a ruleset, from its declaration; None for a ruleset that declares none."""
    commands = command_set(ruleset)
    if commands is None:
        return None
    group = app_commands.Group(name=commands.group, description=commands.description[:100], guild_only=True)
    phases = {}
    if commands.needs_phases():
        for phase in commands.phases:
            phases[phase.name] = app_commands.Group(name=phase.name, description=phase.description[:100],
                                                    parent=group)
    for verb in commands.surface_verbs:
        parent = phases.get(verb.phase, group)
        parent.add_command(verb_command(ruleset, commands, verb))
    return group


# == /act: any line, with the whole line completed ===============================================

async def complete_act_line(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    loaded = await _channel_game(interaction)
    if loaded is None:
        return []
    commands = command_set(loaded.ruleset)
    if commands is None:
        return []
    side = loaded.side_of(interaction.user.id)
    try:
        named, line = split_side(current or "", loaded.ruleset.sides)
    except HeraldError as exc:          # `napoleon: end`: say why nothing completes
        return _choices([(f"⚠ {exc}", current or "")])
    if (current or "").endswith(" ") and line:
        line += " "                     # a finished word: complete the next argument
    prefix = f"{named}: " if named else ""
    first = []
    pending = getattr(loaded.ruleset, "pending", None)
    decision = pending(loaded.state) if pending else None
    if decision is not None and decision.side == side:
        first = [a.line.split()[0] for a in decision.answers]
    try:
        found = await asyncio.to_thread(            # off the event loop, as each option's completion
            complete_line, commands, line, _completer(loaded, side), first=first,
            offered=lambda v: available(v, loaded.ruleset, loaded.scenario))
    except Exception:
        log.debug("no line completions", exc_info=True)
        return []
    return _choices((n, prefix + v) for n, v in found)


async def act(interaction: discord.Interaction, line: str) -> None:
    """Any line of the command language; a query or a secret verb is answered only to the asker."""
    loaded = await _channel_game(interaction)
    commands = command_set(loaded.ruleset) if loaded is not None else None
    if commands is not None:
        try:
            _, text = split_side(line, loaded.ruleset.sides)
            verb = commands.verb(parse(text).verb)
        except HeraldError:
            verb = None
        if verb is not None and verb.reply == "query":
            await answer_query(interaction, text)
            return
        if verb is not None and verb.reply == "secret":
            await apply_secret(interaction, verb, line, {})
            return
    await run_action(interaction, line)


def act_command() -> app_commands.Command:
    """`/act`: any line, with the whole line completed from the channel's game."""
    async def callback(interaction: discord.Interaction, line: str) -> None:
        await act(interaction, line)

    app_commands.describe(line="Start typing: the verb, then each argument is offered (e.g. move ui2 0605)")(callback)
    app_commands.autocomplete(line=complete_act_line)(callback)
    app_commands.guild_only()(callback)
    return app_commands.Command(name="act", description="Give any command of the channel's game, as the CLI does",
                                callback=callback)


def add_ruleset_commands(tree: app_commands.CommandTree, include: dict | None = None) -> list[str]:
    """Add `/act` and one group per ruleset to the tree; the names of the groups added."""
    tree.add_command(act_command())
    added = []
    for ruleset in (include if include is not None else rulesets()).values():
        group = ruleset_group(ruleset)
        if group is not None:
            tree.add_command(group)
            added.append(group.name)
    return added
