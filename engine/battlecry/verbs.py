"""Battle Cry's command surface as data (engine/core/verbs.py): each verb of the command language
(rules.py `VERBS`) with its rule section and its options' completion kinds. The bot builds `/bc`
from it; `/act` completes a whole line from it; the CLI's `help` lists it."""
from __future__ import annotations

from engine.core.verbs import CommandSet, Option, PolicyKind, Verb

SECTIONS = (("Left", "left"), ("Centre", "centre"), ("Right", "right"))
KINDS = (("Infantry", "infantry"), ("Cavalry", "cavalry"), ("Artillery", "artillery"))

POLICIES = (
    PolicyKind("retreat", "retreat", (("auto", "Herald picks your retreat hexes (BC §4.6)"),
                                      ("ask", "buttons ask you for each retreat hex (BC §4.6)")), "ask"),
)

VERBS = (
    Verb("hand", "See your command cards (only you see them)", "BC §3.1", reply="query"),
    Verb("units", "Units and Generals: id, hex, figures, section", "BC §2.1", (
        Option("filter", "A side, a section, a piece or a hex; default: your side", "units_filter",
               required=False),), reply="query"),
    Verb("play", "Play a command card from your hand", "BC §3.2 step 1", (
        Option("card", "The card to play", "card", phrase=True),
        Option("section", "Section, for Fire and Hold or Force March", required=False, choices=SECTIONS))),
    Verb("order", "Order units or Generals under your card", "BC §4.1", (
        Option("units", "Pieces to order, space-separated ids or hexes, e.g. ui1 ui2", "piece", multi=True),)),
    Verb("move", "Move a unit to a hex or along a path", "BC §4.2", (
        Option("unit", "The piece to move", "piece"),
        Option("to", "Destination hex or path, e.g. 0605 0604", "destination", multi=True, context=("unit",)),
        Option("alone", "Leave the attached General behind", flag="alone"))),
    Verb("battle", "Battle an enemy unit or lone General", "BC §4.4", (
        Option("unit", "Your ordered unit", "battler"),
        Option("target", "The enemy's hex or piece", "target", context=("unit",))), dice=True),
    Verb("retreat", "Choose the next retreat hex when asked", "BC §4.6", (
        Option("hex", "One of the offered retreat hexes", "retreat"),)),
    Verb("end", "End your turn: discard the card and draw", "BC §3.2 step 6"),
    Verb("discard", "Discard a card when none can be used, and draw", "BC §3.2", (
        Option("card", "The card to discard", "card", phrase=True),)),
    Verb("rally", "Carry out Rally on a unit with losses", "BC §2.4 card 14", (
        Option("unit", "Your unit with losses", "unit"),), dice=True),
    Verb("snipe", "Carry out Sharp Shooter on an enemy General", "BC §2.4 card 15", (
        Option("general", "The enemy General", "general"),), dice=True),
    Verb("reinforce", "Roll for Call for Reinforcements", "BC §2.4 card 5", dice=True),
    Verb("place", "Place the reinforcement you rolled", "BC §2.4 card 5", (
        Option("hex", "An empty hex on your own edge", "hex"),
        Option("kind", "Unit type, when the roll lets you choose", required=False, choices=KINDS))),
    Verb("fieldworks", "Construct Field-Works with one or two units", "BC §2.4 card 6", (
        Option("units", "One or two of your units, space-separated", "unit", multi=True),)),
    Verb("supply", "Short of Supplies: a unit falls back to a hex", "BC §2.4 card 16", (
        Option("unit", "The unit (yours or the enemy's), id or hex", "anyunit"),
        Option("hex", "The empty hex it falls back to", "supply", context=("unit",)))),
    Verb("policy", "Answer a kind of decision automatically, or be asked", "BC §4.6", (
        Option("kind", "The decision, e.g. retreat", "policy_kind"),
        Option("value", "How to answer it, e.g. auto or ask", "policy_value", context=("kind",)))),
    Verb("resign", "Concede the battle (also /game resign)", "BC §6", surface=False),
)

COMMANDS = CommandSet(
    group="bc", description="Battle Cry: play a card, order, move, battle (BC §3.2)", verbs=VERBS,
    dice_help="Battle Cry dice in order, by face 1-6 (e.g. 5,1,3); else Herald rolls")
