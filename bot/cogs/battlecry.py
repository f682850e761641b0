"""Battle Cry slash commands: one per verb of the command language (engine/battlecry/rules.py
VERBS), plus /hand and the universal /act. Each builds the same line the CLI reads.

/move, /rally and /policy serve every ruleset with that verb (TACW too, bot/cogs/tacw.py): their
autocomplete follows the channel's game, and /policy builds `policy <kind> <value>` with the
kinds of the channel's ruleset (bot/cogs/__init__.py POLICIES)."""
from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from ..store import StoreError
from ..views import refuse, send
from . import complete, complete_policy_kind, complete_policy_value, run_action, service_of, words

Choice = app_commands.Choice
SECTIONS = [Choice(name="Left", value="left"), Choice(name="Centre", value="centre"),
            Choice(name="Right", value="right")]
KINDS = [Choice(name="Infantry", value="infantry"), Choice(name="Cavalry", value="cavalry"),
         Choice(name="Artillery", value="artillery")]
DICE = "Physical dice results in order, e.g. 5,1,3 (optional; else Herald rolls)"


def _dice(dice: str | None) -> str | None:
    return f"dice={dice.replace(' ', '')}" if dice and dice.strip() else None


class BattleCryCog(commands.Cog, name="Battle Cry"):
    """Orders for a Battle Cry game (BC §3.2: play a card, order, move, battle, end)."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @app_commands.command(name="hand", description="See your command cards (only you see them)")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction) -> None:
        try:
            text = await service_of(interaction).hand(interaction.channel_id, interaction.user.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, text, ephemeral=True)

    @app_commands.command(name="play", description="Play a command card from your hand (BC §3.2 step 1)")
    @app_commands.guild_only()
    @app_commands.describe(card="The card to play", section="Section, for Fire and Hold or Force March")
    @app_commands.autocomplete(card=complete("card"))
    @app_commands.choices(section=SECTIONS)
    async def play(self, interaction: discord.Interaction, card: str, section: str | None = None) -> None:
        await run_action(interaction, words("play", card, section))

    @app_commands.command(name="order", description="Order units or Generals under your card (BC §4.1)")
    @app_commands.guild_only()
    @app_commands.describe(units="Pieces to order, space-separated ids or hexes, e.g. ui1 ui2")
    @app_commands.autocomplete(units=complete("piece", multi=True))
    async def order(self, interaction: discord.Interaction, units: str) -> None:
        await run_action(interaction, words("order", units))

    @app_commands.command(name="move", description="Move a unit along a path (BC §4.2, TACW §7)")
    @app_commands.guild_only()
    @app_commands.describe(unit="The piece to move",
                           to="Destination hex or path of steps, e.g. 0605 0604, or TACW 2105 face W 2205",
                           leave_general="BC: leave the attached General behind; TACW: move without the stacked unit")
    @app_commands.autocomplete(unit=complete("piece"), to=complete("destination", multi=True, context=("unit",)))
    async def move(self, interaction: discord.Interaction, unit: str, to: str, leave_general: bool = False) -> None:
        await run_action(interaction, words("move", unit, to, "alone" if leave_general else None))

    @app_commands.command(name="battle", description="Battle an enemy unit or General (BC §4.4)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your ordered unit", target="The enemy's hex", dice=DICE)
    @app_commands.autocomplete(unit=complete("battler"), target=complete("target", context=("unit",)))
    async def battle(self, interaction: discord.Interaction, unit: str, target: str, dice: str | None = None) -> None:
        await run_action(interaction, words("battle", unit, target, _dice(dice)))

    @app_commands.command(name="retreat", description="Choose the next retreat hex when asked (BC §4.6)")
    @app_commands.guild_only()
    @app_commands.describe(hex="One of the offered retreat hexes")
    @app_commands.autocomplete(hex=complete("retreat"))
    async def retreat(self, interaction: discord.Interaction, hex: str) -> None:
        await run_action(interaction, words("retreat", hex))

    @app_commands.command(name="end", description="End your turn: discard the card and draw (BC §3.2 step 6)")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        await run_action(interaction, "end")

    @app_commands.command(name="discard", description="Discard a card when none can be used, and draw (BC §3.2)")
    @app_commands.guild_only()
    @app_commands.describe(card="The card to discard")
    @app_commands.autocomplete(card=complete("card"))
    async def discard(self, interaction: discord.Interaction, card: str) -> None:
        await run_action(interaction, words("discard", card))

    @app_commands.command(name="rally", description="Rally a unit: BC §2.4 card, TACW §12.2 action")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit with losses (TACW: Shaken or Broken, of the active wing)",
                           dice="Physical dice in order, e.g. 5,1,3 (TACW d10 faces 1-10 read 0-9); else Herald rolls")
    @app_commands.autocomplete(unit=complete("unit"))
    async def rally(self, interaction: discord.Interaction, unit: str, dice: str | None = None) -> None:
        await run_action(interaction, words("rally", unit, _dice(dice)))

    @app_commands.command(name="snipe", description="Carry out Sharp Shooter on an enemy General (BC §2.4)")
    @app_commands.guild_only()
    @app_commands.describe(general="The enemy General", dice=DICE)
    @app_commands.autocomplete(general=complete("general"))
    async def snipe(self, interaction: discord.Interaction, general: str, dice: str | None = None) -> None:
        await run_action(interaction, words("snipe", general, _dice(dice)))

    @app_commands.command(name="reinforce", description="Roll for Call for Reinforcements (BC §2.4)")
    @app_commands.guild_only()
    @app_commands.describe(dice=DICE)
    async def reinforce(self, interaction: discord.Interaction, dice: str | None = None) -> None:
        await run_action(interaction, words("reinforce", _dice(dice)))

    @app_commands.command(name="place", description="Place the reinforcement you rolled (BC §2.4)")
    @app_commands.guild_only()
    @app_commands.describe(hex="An empty hex on your own edge", kind="Unit type, when the roll lets you choose")
    @app_commands.autocomplete(hex=complete("hex"))
    @app_commands.choices(kind=KINDS)
    async def place(self, interaction: discord.Interaction, hex: str, kind: str | None = None) -> None:
        await run_action(interaction, words("place", hex, kind))

    @app_commands.command(name="fieldworks", description="Construct Field-Works with one or two units (BC §2.4)")
    @app_commands.guild_only()
    @app_commands.describe(units="One or two of your units, space-separated")
    @app_commands.autocomplete(units=complete("unit", multi=True))
    async def fieldworks(self, interaction: discord.Interaction, units: str) -> None:
        await run_action(interaction, words("fieldworks", units))

    @app_commands.command(name="supply", description="Short of Supplies: a unit falls back to a hex (BC §2.4)")
    @app_commands.guild_only()
    @app_commands.describe(unit="The unit (yours or the enemy's) id or hex", hex="The empty hex it falls back to")
    @app_commands.autocomplete(unit=complete("anyunit"), hex=complete("supply", context=("unit",)))
    async def supply(self, interaction: discord.Interaction, unit: str, hex: str) -> None:
        await run_action(interaction, words("supply", unit, hex))

    @app_commands.command(name="policy", description="Answer a kind of decision automatically, or be asked")
    @app_commands.guild_only()
    @app_commands.describe(kind="The decision: BC retreat; TACW bypass, reaction, reaction_move, intercept...",
                           value="How to answer it, e.g. retreat: auto or ask",
                           scope="TACW: only for this wing or unit of yours (optional)")
    @app_commands.autocomplete(kind=complete_policy_kind, value=complete_policy_value)
    async def policy(self, interaction: discord.Interaction, kind: str, value: str,
                     scope: str | None = None) -> None:
        await run_action(interaction, words("policy", kind, value, f"for {scope}" if scope else None))

    @app_commands.command(name="act", description="Give any command in Herald's command language, as the CLI does")
    @app_commands.guild_only()
    @app_commands.describe(line="e.g. 'play attack-centre', 'move ui2 0605', 'battle ui2 0604 dice=5,1,3'")
    async def act(self, interaction: discord.Interaction, line: str) -> None:
        await run_action(interaction, line)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(BattleCryCog(bot))
