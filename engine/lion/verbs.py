"""Lion of the North's command surface as data (engine/core/verbs.py), issue 15: every verb of the
command language with its section, the part of the turn it belongs to and its options' completion
kinds. The rule modules register a handler for each (engine/lion/rules.py); `problems()` in
engine/core/verbs.py checks the two agree (tests/engine/test_lion_verbs.py).

The turn is card-driven [3], [13]: the cards are drawn by Herald one at a time (HERALD D7); each
card hands the game to one player, who acts and then says `next`. A move card [4] rolls the Cpts
and lets its owner move units and groups (each move paid in Cpts), then the other side's contact
fire [7 D] runs by itself; a shoot card [7] lets its owner shoot; a combat card [8] lets its owner
start melees; a rally card [10] is rolled by Herald for every disordered unit (nothing to choose);
the end card [13] is a d6 (random events [15]). Fewer than 25 verbs: one `/lion` group, no
subcommand groups (the phases below only order the CLI's `help`).

Units are named by id (`units` lists them); a group [4 B] is its units joined by `+`
("sw-mus1+sw-mus2+sw-mus3"); a manoeuvre is a list of steps read by
engine.core.table.moves.parse_steps: "wheel 30 left advance 12", "about", "pivot 20 right".
"""
from __future__ import annotations

from engine.core.verbs import CommandSet, Option, Phase, PolicyKind, Verb

DICE_HELP = "Your own dice results in order, e.g. 5,1,3 (optional; else Herald rolls)"
DIRECTIONS = (("left", "left"), ("right", "right"))
FACES = (("front", "front"), ("left", "left"), ("right", "right"), ("rear", "rear"))

PHASES = (
    Phase("cards", "The cards: end your actions on a card, answer a decision (LdN [3], [13], [15])"),
    Phase("move", "The move card: units, groups, guns, dragoons, generals (LdN [4]-[6], [12])"),
    Phase("fight", "The shoot and combat cards: fire and melee (LdN [7]-[9], [12])"),
    Phase("info", "Questions answered only to you: units, generals, distances"),
)

POLICIES = (
    PolicyKind("sunset", "sunset", (
        ("keep", "the first sunset stands: the battle ends in 2d6 turns (LdN [15] 2)"),
        ("ignore", "agree to ignore the first sunset if the enemy agrees too (LdN [15] 2)"),
        ("ask", "be asked when the first sunset comes (LdN [15] 2)")), "ask"),
    PolicyKind("reinforcements", "reinforcements", (
        ("auto", "Herald brings back your destroyed bases and places them by your edge (LdN [15] 4)"),
        ("ask", "choose which destroyed bases come back and where (LdN [15] 4)")), "auto"),
    PolicyKind("evade", "evade", (
        ("auto", "your light horse and mounted dragoons evade infantry when they can (LdN [5 D])"),
        ("never", "they never evade: they stand and fight (LdN [5 D])"),
        ("ask", "be asked each time one may evade (LdN [5 D])")), "auto"),
    PolicyKind("contactfire", "contact_fire", (
        ("auto", "your units fire at enemies that came into contact on their front (LdN [7 D])"),
        ("never", "no contact fire (LdN [7 D])")), "auto"),
    PolicyKind("advance", "advance", (
        ("auto", "your victorious infantry advances into the space left by the loser (LdN [8 E])"),
        ("stay", "your victorious infantry stays where it is (LdN [8 E])"),
        ("ask", "be asked after each melee your infantry wins (LdN [8 E])")), "auto"),
)


def _unit(description: str, kind: str, name: str = "unit") -> Option:
    return Option(name, description, kind)


VERBS = (
    # -- the cards -----------------------------------------------------------------------------------
    Verb("next", "End your actions on the current card; Herald draws the next card",
         "LdN [3], [13]", phase="cards", dice=True),
    Verb("done", "Same as next: end your actions on the current card", "LdN [3], [13]",
         phase="cards", dice=True, surface=False),
    # -- the move card -------------------------------------------------------------------------------
    Verb("move", "Move a unit or a group (a+b+c): wheel up to 45 first, then advance", "LdN [4], [5]", (
        Option("units", "Your unit, or a group joined by + with one unbroken front (LdN [4 B])", "mover"),
        Option("steps", "e.g. wheel 30 left advance 12; back 5 (then forced or triple)",
               "manoeuvre", multi=True, context=("units",)),
        Option("forced", "Forced march: one unit alone at double speed for 1 Cpt more (LdN [4 D])",
               flag="forced"),
        Option("triple", "Surprise march: one unit alone at triple speed (LdN [15] 3)",
               flag="triple")), phase="move", dice=True),
    Verb("charge", "Move a unit into contact with a named enemy (it stops at first touch)",
         "LdN [5], [8 A]", (
             _unit("Your good-order unit that may close with the enemy (LdN [9 A])", "charger"),
             Option("target", "The enemy unit it moves to contact", "charge_target", context=("unit",)),
             Option("forced", "Forced march: double speed for 1 Cpt more (LdN [4 D])", flag="forced")),
         phase="move", dice=True),
    Verb("about", "About face (dietro front): 1 Cpt, counts as the unit's move", "LdN [5 D], [6 C]", (
        _unit("Your unit or gun", "about_unit"),
        Option("steps", "Light horse, dragoons, musketeers: the half move after it, e.g. advance 5",
               "manoeuvre", required=False, multi=True, context=("unit",))), phase="move", dice=True),
    Verb("pivot", "Turn a gun on the spot, up to 45 degrees (1 Cpt)", "LdN [6 C]", (
        _unit("Your artillery", "gun"),
        Option("degrees", "Degrees, at most 45", ""),
        Option("direction", "Which way", choices=DIRECTIONS)), phase="move", dice=True),
    Verb("limber", "Limber a deployed light or medium gun (once a battle)", "LdN [6 A]", (
        _unit("Your deployed light or medium gun", "deployed_gun"),), phase="move"),
    Verb("deploy", "Deploy a limbered light or medium gun (once a battle)", "LdN [6 A]", (
        _unit("Your limbered light or medium gun", "limbered_gun"),), phase="move"),
    Verb("mount", "Mount dismounted dragoons (no Cpt; they do not move this turn)", "LdN [12 C]", (
        _unit("Your dismounted dragoons, not in contact", "dismounted"),), phase="move"),
    Verb("dismount", "Dismount dragoons (no Cpt; they do not move this turn)", "LdN [12 C]", (
        _unit("Your mounted dragoons, not in contact", "mounted"),), phase="move"),
    Verb("general", "Move a general (free), or attach him to a unit: attach <unit> / detach",
         "LdN [4 A], [5], [8 D]", (
             Option("general", "Your general", "own_general"),
             Option("steps", "e.g. wheel 20 right advance 15; attach sw-mus1; detach",
                    "general_move", multi=True, context=("general",))), phase="move"),
    Verb("leave", "Looters try to leave the enemy camp: d6 4-6 (+1 with a general)", "LdN [12 A]", (
        _unit("Your unit looting an enemy camp", "looter"),), phase="move", dice=True),
    # -- the shoot and combat cards ------------------------------------------------------------------
    Verb("shoot", "Fire at an enemy in range, in arc and in sight", "LdN [7]", (
        _unit("Your unit or gun that may fire on this card", "shooter"),
        Option("target", "An enemy in its arc of fire and in range (LdN [7 A])", "shoot_target",
               context=("unit",)),
        Option("face", "A Tercio's face firing, front by default (LdN [12 F])", "", required=False,
               word="from", choices=FACES)), phase="fight", dice=True),
    Verb("fight", "Start a melee against an enemy your units touch", "LdN [8]", (
        Option("target", "The enemy unit in contact", "fight_target"),
        Option("units", "Your units in contact that fight it (all of them if left out)", "fighter",
               required=False, multi=True, context=("target",))), phase="fight", dice=True),
    # -- decisions -----------------------------------------------------------------------------------
    Verb("react", "Answer the decision the game waits for", "LdN [8 E], [15]", (
        Option("answer", "One of the offered answers (the buttons list them)", "reaction"),
        Option("more", "Its unit or place, when the answer needs one", "reaction_more", required=False,
               multi=True, context=("answer",))), phase="cards", dice=True),
    Verb("policy", "Your standing answers to decisions (shown with /lion policy)", "LdN [8 E], [15]", (
        Option("kind", "What the policy governs", "policy_kind"),
        Option("value", "Your standing answer", "policy_value", context=("kind",))), phase="cards"),
    Verb("resign", "Concede the battle", "LdN [14]", phase="cards"),
    # -- information ---------------------------------------------------------------------------------
    Verb("units", "List units with their ids, places, facing and state", "LdN [2]", (
        Option("side", "Whose units", required=False, choices=(("Yours", "mine"), ("The enemy's", "enemy"),
                                                              ("Both sides", "all"))),),
        phase="info", reply="query"),
    Verb("generals", "List the generals: places, attached, wounded", "LdN [4], [9 C]",
         phase="info", reply="query"),
    Verb("measure", "Distance between two bases, and whether the first sees the second in arc",
         "LdN [1], [7 A]", (
             Option("base", "A unit, general or camp (camp-<side>)", "base"),
             Option("to", "Another unit, general or camp", "base", context=("base",))),
         phase="info", reply="query"),
)

QUERIES = tuple(v.name for v in VERBS if v.reply == "query")

COMMANDS = CommandSet("lion", "Lion of the North: cards, Cpts, moves, fire and melee",
                      VERBS, PHASES, dice_help=DICE_HELP)
