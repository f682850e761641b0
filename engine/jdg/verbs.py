"""Jours de Gloire's command surface as data (engine/core/verbs.py), issue 14: every verb of the
command language with its paragraph, the part of the turn it belongs to ([1] A-F) and its
options' completion kinds. The rules (to come) register a handler for each; `problems()` in
engine/core/verbs.py checks the two agree once they exist.

The turn [1]: A orders (secret), B strategic initiative, C the markers in the cup, D the
activations (fire, movement, assault and charge, rally, in that strict order [1.D, 2.4]), E rout,
F end of turn. `/jdg` groups the verbs by those parts; the defender's answers (reaction fire,
square, refusing an assault, recall, counter-charge, pursuit) are `reactions`, which buttons and
standing policies also give, as in TACW.
"""
from __future__ import annotations

from engine.core.verbs import CommandSet, Option, Phase, PolicyKind, Verb

D10 = "Your d10 results, e.g. 4,0 (0 is zero, [0.4]); optional"
ORDER_CHOICE = (("With Orders", "with"), ("Without Orders", "without"))

PHASES = (
    Phase("orders", "Orders, strategic initiative and the cup (JdG [1] A-C, [2.3], [3])"),
    Phase("activation", "Draw a marker, the commander's initiative, end a step (JdG [1] D, [2.4])"),
    Phase("actions", "The active formation: fire, move, square, assault, charge, rally (JdG [4]-[9], [11])"),
    Phase("reactions", "The defender's answers: fire, square, refuse, recall, counter-charge (JdG [7.6]-[9.5])"),
    Phase("info", "Ids, answered only to you: units, formations, the cup"),
)

POLICIES = (
    PolicyKind("reaction", "reaction_fire", (
        ("auto", "defending artillery fires in reaction when it may (JdG [8.3])"),
        ("never", "no reaction fire (JdG [8.3])"),
        ("ask", "be asked (JdG [8.3])")), "auto"),
    PolicyKind("counterbattery", "counter_battery", (
        ("auto", "artillery fired on fires back when it may (JdG [7.6])"),
        ("never", "no counter-battery fire (JdG [7.6])"),
        ("ask", "be asked (JdG [7.6])")), "auto"),
    PolicyKind("square", "square", (
        ("auto", "infantry charged in open ground tries to form square (JdG [9.3])"),
        ("never", "never form square against a charge (JdG [9.3])"),
        ("ask", "be asked (JdG [9.3])")), "auto"),
    PolicyKind("refuse", "refuse_assault", (
        ("never", "cavalry never refuses an assault (JdG [8.8])"),
        ("ask", "be asked when cavalry may refuse (JdG [8.8])")), "ask"),
    PolicyKind("countercharge", "counter_charge", (
        ("never", "no cavalry counter-charge (JdG [9.4])"),
        ("ask", "be asked when cavalry may counter-charge (JdG [9.4])")), "ask"),
    PolicyKind("retreat", "retreat", (
        ("auto", "Herald picks fall-back and retreat hexes (JdG [10.3])"),
        ("ask", "buttons ask you for each fall-back and retreat hex (JdG [10.3])")), "auto"),
)


def _unit(description: str, kind: str) -> Option:
    return Option("unit", description, kind)


VERBS = (
    # -- A-C: orders, strategic initiative, the cup ------------------------------------------------
    Verb("orders", "Give your formations their secret orders for the turn (the rest: Without)",
         "JdG [1] A, [2.3]", (
             Option("formations", "Formations With Orders: up to your chief's potential, a unit in his radius (JdG [2.3])",
                    "order_formation", multi=True, required=False),),
         phase="orders", reply="secret",
         secret_reply="Your orders are given; they stay hidden until each formation's first marker is drawn."),
    Verb("combined", "Put a combined marker (IAC) in the cup, secretly, before the initiative roll",
         "JdG [2.1], Marengo D", (
             Option("marker", "Your combined marker (e.g. Grande charge, Marmont)", "combined_marker"),),
         phase="orders", reply="secret", when="combined_markers",
         secret_reply="Your combined marker goes into the cup at phase C; it is shown when drawn."),
    Verb("first", "With the strategic initiative: play one of your markers first, or none",
         "JdG [3] B.2", (
             Option("marker", "Your formation's marker (or a combined one), or none for a random draw",
                    "first_marker"),), phase="orders"),
    # -- D: activations -----------------------------------------------------------------------------
    Verb("draw", "Draw a marker from the cup: its formation activates", "JdG [1] D, [2.2]",
         phase="activation"),
    Verb("initiative", "Without Orders: its commander tries, d10 - your chief's modifier <= his initiative",
         "JdG [2.4]", phase="activation", dice=True),
    Verb("next", "End the current step (fire, movement, combat, rally), or the activation",
         "JdG [1] D.3, [2.4]", phase="activation"),
    Verb("reserve", "Phase D bis: activate one formation in reserve, Without Orders, or none",
         "JdG [1] D bis, opt. 1", (
             Option("formation", "Your formation: its IA in the cup this turn, a unit in your chief's radius",
                    "reserve_formation"),), phase="activation", dice=True),
    Verb("fire", "Artillery of the active formation fires at a hex in range and sight", "JdG [7]", (
        _unit("Your good-order artillery of the active formation", "firer"),
        Option("target", "Enemy hex through a frontal hex, in range and line of sight (JdG [7.3], [7.4])",
               "fire_target", context=("unit",)),
        Option("second", "A second artillery unit of the same formation in the hex: combined, +2 (JdG [7.1])",
               "combine_with", required=False, word="with", context=("unit",)),
        Option("face", "Turn up to 60 degrees before firing (JdG [7.2])", "vertex", required=False,
               word="face", context=("unit",))), phase="actions", dice=True),
    Verb("move", "Move a unit along a path of hexes, turning as it goes (facing is free)", "JdG [4]", (
        _unit("Your unit of the active formation", "mover"),
        Option("steps", "Hexes one by one, face <vertex> to turn; charge <hex> ends a cavalry move (JdG [4.3])",
               "destination", multi=True, context=("unit",)),
        Option("forced", "Forced march: double MP, With Orders, never within 5 hexes of the enemy (JdG [4.1])",
               flag="forced")), phase="actions", dice=True),
    Verb("square", "Form square (all its MP, open ground) or leave it (1 MP)", "JdG [4.2]", (
        _unit("Your infantry (and the artillery with it) of the active formation", "square_unit"),),
        phase="actions", dice=True),
    Verb("commander", "Move your commander-in-chief once a turn, up to 7 MP", "JdG [2.5]", (
        Option("path", "Hexes one by one (never into an enemy ZoC alone)", "commander_path", multi=True),),
        phase="actions"),
    Verb("assault", "Declare an infantry assault on a frontal hex (Choc; Choc/Test Without Orders)",
         "JdG [8.1]-[8.4]", (
             Option("units", "Your attacking units (or hexes), joined in one assault if adjacent (JdG [8.4])",
                    "attacker", multi=True),
             Option("target", "The enemy hex in their front", "assault_target", word="on",
                    context=("units",))), phase="actions", dice=True),
    Verb("charge", "Cavalry moves 1-2 hexes and charges a hex it saw at the start",
         "JdG [9]", (
             _unit("Your good-order cavalry that has declared its charge", "charger"),
             Option("target", "The enemy hex in its front", "charge_target", context=("unit",))),
         phase="actions", dice=True),
    Verb("resolve", "Resolve the declared assaults and charges, one after another", "JdG [8.5], [9.2]",
         phase="actions", dice=True),
    Verb("breakthrough", "After a 10 or more: advance and assault again, or none", "JdG [8.7]", (
        Option("unit", "The attacking unit (or stack) that breaks through, or none", "breakthrough"),),
        phase="actions", dice=True),
    Verb("rally", "Rally a unit that did nothing else this activation: d10 <= its reduced cohesion",
         "JdG [11]", (
             _unit("Your disordered or routed unit of the active formation", "rallier"),
             Option("face", "Its new facing if it rallies: it faces as you like (JdG [11])", "vertex",
                    required=False, word="face", context=("unit",))),
         phase="actions", dice=True),
    # -- the defender's answers -------------------------------------------------------------------
    Verb("react", "Answer a reaction: fire, square, refuse, recall, counter-charge, pursue",
         "JdG [7.6]-[9.5]", (
             Option("answer", "One of the offered answers (the buttons list them)", "reaction"),
             Option("more", "Its hex or unit, when the answer needs one", "reaction_more", required=False,
                    multi=True, context=("answer",))), phase="reactions", dice=True),
    Verb("retreat", "Choose the hex your unit falls back or retreats to", "JdG [10.3], [10.4]", (
        Option("hex", "One of the offered hexes", "retreat_hex"),), phase="reactions", dice=True),
    Verb("policy", "Your standing answers to reactions (shown with /jdg policy)", "JdG [7.6]-[9.5]", (
        Option("kind", "What the policy governs", "policy_kind"),
        Option("value", "Your standing answer", "policy_value", context=("kind",))), phase="reactions"),
    # -- information -------------------------------------------------------------------------------
    Verb("units", "List units with their ids, values and state", "JdG [0.3]", (
        Option("side", "Whose units", required=False, choices=(("French", "french"), ("Austrian", "austrian"),
                                                              ("Both sides", "all"))),),
        phase="info", reply="query"),
    Verb("formations", "List formations: orders (yours; the enemy's once revealed), markers drawn",
         "JdG [2.1]-[2.4]", phase="info", reply="query"),
    Verb("cup", "The markers in the cup and set aside (counts; secret ones unnamed)", "JdG [1] C-D",
         phase="info", reply="query"),
    Verb("resign", "Concede the battle", "JdG [13]", phase="activation"),
)

COMMANDS = CommandSet("jdg", "Jours de Gloire: orders, activations, fire, assaults and charges",
                      VERBS, PHASES)
