"""The cogs: thin slash-command layers over `bot.service.GameService`.

Each handler builds one line of the command language (the CLI's language) and hands it to
`run_action`; refusals are answered ephemerally, accepted actions with the board and narrative.
"""
from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import discord
from discord import app_commands

from engine.core.errors import HeraldError

from ..service import ActResult, GameService, LoadedGame
from ..store import StoreError
from ..views import post_result, refuse

log = logging.getLogger(__name__)
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
        if getattr(exc, "public", False):         # the game now waits for dice: say so in the status
            from ..status_message import refresh_quietly
            try:
                row = await service.game_row(interaction.channel_id)
            except (HeraldError, StoreError):
                return None
            await refresh_quietly(interaction.client, row.id)
        return None
    await post_result(interaction, service, result)
    return result


def words(*parts: object) -> str:
    """Join non-empty option values into a command line."""
    return " ".join(str(p).strip() for p in parts if p is not None and str(p).strip())


def _choice(name: str, value: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=name[:100], value=value[:100])


# --- completions a ruleset does not offer yet ---------------------------------------------
# ruleset id -> fn(loaded game, side, kind, prefix, context, head) -> choices, or None to leave
# the kind to `ruleset.completions`. A cog registers one while its ruleset's `completions` lacks
# the kinds its options need (bot/cogs/tacw.py); channels of other rulesets are untouched.
LocalCompleter = Callable[[LoadedGame, "str | None", str, str, dict, str], "list[tuple[str, str]] | None"]
LOCAL_COMPLETERS: dict[str, LocalCompleter] = {}


async def _options(interaction: discord.Interaction, kind: str, prefix: str, ctx: dict,
                   head: str) -> list[tuple[str, str]]:
    service = service_of(interaction)
    if LOCAL_COMPLETERS:
        try:
            row = await service.game_row(interaction.channel_id)
        except Exception:
            return []
        local = LOCAL_COMPLETERS.get(row.ruleset)
        if local is not None:
            try:
                loaded = await service.load_row(row)
                found = local(loaded, loaded.side_of(interaction.user.id), kind, prefix, ctx, head)
            except Exception:
                log.debug("no local completions for %s/%s", interaction.channel_id, kind, exc_info=True)
                return []
            if found is not None:
                return found
    return await service.completions(interaction.channel_id, interaction.user.id, kind, prefix, ctx)


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
        options = await _options(interaction, kind, prefix, {k: v for k, v in ctx.items() if v}, head)
        if head:
            return [_choice(f"{head} {value} — {name}", f"{head} {value}") for name, value in options][:25]
        return [_choice(name, value) for name, value in options][:25]

    autocomplete.__name__ = f"complete_{kind}"
    return autocomplete


# --- standing policies (DESIGN: pending decisions), one /policy for every ruleset ---------------
# ruleset id -> policy kind -> (key in state.policies, the values with what each does, default).
# A ruleset may publish its own as a `policies` attribute of the same shape.
POLICIES: dict[str, dict[str, tuple[str, dict[str, str], str]]] = {
    "battlecry": {
        "retreat": ("retreat", {"auto": "Herald picks your retreat hexes (BC §4.6)",
                                "ask": "buttons ask you for each retreat hex (BC §4.6)"}, "ask"),
    },
    "tacw": {
        "bypass": ("bypass", {"never": "never attempt a bypass (TACW §4.4)",
                              "ask": "be asked at each bypass window (TACW §4.4)"}, "never"),
        "reaction": ("reaction_fire", {"auto": "every eligible unit fires in reaction (TACW §9.7)",
                                       "salvo": "as auto, heavy infantry with a Salvo (TACW §9.4, §9.7)",
                                       "never": "no Reaction Fire (TACW §9.7)",
                                       "ask": "be asked which units react (TACW §9.7)"}, "auto"),
        "reaction_move": ("reaction_move", {"never": "no optional reaction movement (TACW §7.4)",
                                            "auto": "face a mover reaching your flank or rear (TACW §7.4.2)",
                                            "ask": "be asked how to react (TACW §7.4)"}, "never"),
        "intercept": ("intercept", {"never": "no cavalry interception (TACW §7.5)",
                                    "auto": "eligible cavalry tries to intercept (TACW §7.5)",
                                    "ask": "be asked at each hex (TACW §7.5)"}, "never"),
        "counter": ("reaction_attack", {"never": "no reaction attacks (TACW §10.2 B)",
                                        "ask": "be asked to designate reaction attacks (TACW §10.2 B)"}, "never"),
        "advance": ("advance_after_combat", {"hold": "a defender holds after combat (TACW §10.4.6)",
                                             "advance": "a defender advances when it may (TACW §10.4.6)"}, "hold"),
        "pistols": ("close_combat_pistols", {"spend": "cavalry spends a pistol in close combat (TACW §10.3.9)",
                                             "keep": "cavalry keeps its pistols (TACW §10.3.9)"}, "spend"),
        "retreat": ("retreat", {"auto": "Herald picks retreat and rout hexes (TACW §10.4, §12.4)",
                                "ask": "buttons ask you for each retreat and rout hex (TACW §10.4, §12.4)"}, "auto"),
        "advance_choice": ("advance_choice", {
            "auto": "Herald picks who advances after combat, where, and keeps its facing (TACW §10.4.6-§10.4.8)",
            "ask": "buttons ask who advances on a tie, into which hex, which flank wheels, and the one-hexside "
                   "turn (TACW §10.4.6-§10.4.8)"}, "auto"),
    },
}


def policies_of(ruleset) -> dict[str, tuple[str, dict[str, str], str]]:
    return getattr(ruleset, "policies", None) or POLICIES.get(ruleset.id, {})


async def _policy_game(interaction: discord.Interaction):
    try:
        loaded = await service_of(interaction).load(interaction.channel_id)
    except Exception:
        return None, {}
    return loaded, policies_of(loaded.ruleset)


async def complete_policy_kind(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The channel's ruleset's policy kinds, each with the user's current setting."""
    loaded, table = await _policy_game(interaction)
    if loaded is None:
        return []
    side = loaded.side_of(interaction.user.id)
    mine = (getattr(loaded.state, "policies", None) or {}).get(side, {}) if side else {}
    cur = (current or "").lower().strip()
    return [_choice(f"{kind}: {'|'.join(values)} (now {mine.get(key, default)})", kind)
            for kind, (key, values, default) in table.items() if cur in kind][:25]


async def complete_policy_value(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The values of the policy kind already typed, with what each does."""
    loaded, table = await _policy_game(interaction)
    entry = table.get(str(getattr(interaction.namespace, "kind", None) or "").lower().strip())
    if entry is None:
        return []
    cur = (current or "").lower().strip()
    return [_choice(f"{value}: {text}", value) for value, text in entry[1].items() if cur in value][:25]


async def setup(bot) -> None:
    """Extension entry point: add every cog."""
    from .battlecry import BattleCryCog
    from .games import GamesCog
    from .tacw import TacwCog
    await bot.add_cog(GamesCog(bot))
    await bot.add_cog(BattleCryCog(bot))
    await bot.add_cog(TacwCog(bot))
    from .club_actions import ClubActionsCog   # /dice (physical dice) and /undo (with consent)
    await bot.add_cog(ClubActionsCog(bot))
    from .campaign import CampaignCog          # club campaigns (bot/campaigns.py)
    from .scenarios import ScenariosCog        # a server's uploaded scenarios (bot/uploads.py)
    await bot.add_cog(CampaignCog(bot))
    await bot.add_cog(ScenariosCog(bot))
    from .arbitration import ArbitrationCog    # /explain and /rules (bot/arbitration.py)
    await bot.add_cog(ArbitrationCog(bot))
    from .club import ClubCog                  # /seat, /referee, /turn (bot/club.py)
    await bot.add_cog(ClubCog(bot))
    from .odds import OddsCog                  # /odds: the exact what-if (engine/core/odds.py)
    await bot.add_cog(OddsCog(bot))
