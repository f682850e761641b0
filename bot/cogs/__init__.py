"""The cogs: thin slash-command layers over `bot.service.GameService`.

Each handler builds one line of the command language (the CLI's language) and hands it to
`run_action`; refusals are answered ephemerally, accepted actions with the board and narrative.
The rulesets' own commands are built from the verbs each declares (bot/cogs/rulesets.py).
"""
from __future__ import annotations


async def setup(bot) -> None:
    """Extension entry point: add every cog."""
    from .games import GamesCog
    from .rulesets import add_ruleset_commands   # /act and one group per ruleset, from its verbs
    await bot.add_cog(GamesCog(bot))
    add_ruleset_commands(bot.tree)
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
