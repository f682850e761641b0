"""The cogs: thin slash-command layers over `bot.service.GameService`.

Each handler builds one line of the command language (the CLI's language) and hands it to
`run_action`; refusals are answered ephemerally, accepted actions with the board and narrative.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord
from discord import app_commands

from engine.core.errors import HeraldError

from ..service import ActResult, GameService
from ..store import StoreError
from ..views import post_result, refuse

Autocomplete = Callable[[discord.Interaction, str], Awaitable[list[app_commands.Choice[str]]]]


def service_of(interaction: discord.Interaction) -> GameService:
    return interaction.client.service  # type: ignore[attr-defined]


async def run_action(interaction: discord.Interaction, line: str) -> ActResult | None:
    """Apply `line` for the user's side; reply once (public board, or ephemeral refusal)."""
    service = service_of(interaction)
    try:
        result = await service.act(interaction.channel_id, interaction.user.id, line, interaction.id)
    except (HeraldError, StoreError) as exc:
        await refuse(interaction, exc)
        return None
    await post_result(interaction, service, result)
    return result


def words(*parts: object) -> str:
    """Join non-empty option values into a command line."""
    return " ".join(str(p).strip() for p in parts if p is not None and str(p).strip())


def _choice(name: str, value: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=name[:100], value=value[:100])


def complete(kind: str, *, multi: bool = False, context: tuple[str, ...] = ()) -> Autocomplete:
    """An autocomplete callback offering the ruleset's `kind` completions for the user's side.
    With `multi`, the option is a space-separated list and the last word is completed;
    `context` names options already typed that the ruleset may use (e.g. the unit that fires)."""

    async def autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        head, prefix = "", current or ""
        if multi and " " in prefix:
            head, prefix = prefix.rsplit(" ", 1)
            head = head.strip()
        ctx = {name: getattr(interaction.namespace, name, None) for name in context}
        options = await service_of(interaction).completions(interaction.channel_id, interaction.user.id,
                                                            kind, prefix, {k: v for k, v in ctx.items() if v})
        if head:
            return [_choice(f"{head} {value} — {name}", f"{head} {value}") for name, value in options][:25]
        return [_choice(name, value) for name, value in options][:25]

    autocomplete.__name__ = f"complete_{kind}"
    return autocomplete


async def setup(bot) -> None:
    """Extension entry point: add every cog."""
    from .battlecry import BattleCryCog
    from .games import GamesCog
    await bot.add_cog(GamesCog(bot))
    await bot.add_cog(BattleCryCog(bot))
