"""The Italian Wars command surface as data (engine/core/verbs.py), issue 16: every verb of the
command language with its section, the part of the game it belongs to and its options'
completion kinds. The rule modules register a handler for each (engine/italianwars/rules.py);
`problems()` in engine/core/verbs.py checks the two agree.

Before the battle (IW Prima della battaglia 1-9): `roll` makes the step's dice (personalities,
season, weather and the hour, the attacker's tie); `deploy` and `ambush` write the secret
deployment map; `defences` and `camp` place field defences and the camp (defender first);
`place` puts one battle of the map on the table (alternately, defender first); `order` writes a
battle's order (secret); `bribe` invests Ecu on a battle (secret); `keep` ends a step for a side.
A scenario may fix any of these: the step then passes by itself.

The turn (IW Sequenza di mossa): 1 the command phase: `order` (a new order, secret until its
test) and `bribe`, then `keep`; 2 the actions: `activate` a battle (attacker first, then one
battle each), then in its steps 2b-2h `declare` charges, `manoeuvre`, `move`, `shoot`, `respond`
(the charged side), `melee`; `pass` ends the current step (Herald closes the charges in 2g). Phases 3-6 are Herald's walk.

Exactly 25 verbs: one `/iw` group, no subcommand groups (the phases below only order the CLI's
`help`).
"""
from __future__ import annotations

from engine.core.verbs import CommandSet, Option, Phase, PolicyKind, Verb

DICE_HELP = "Your own d6 results in order, e.g. 5,1,3 (optional; else Herald rolls)"
ORDER_CHOICES = (("Attack (Attaccare)", "attack"), ("Delay (Fermare il nemico)", "delay"),
                 ("Occupy (Occupare)", "occupy"), ("Hold (Tenere)", "hold"),
                 ("Withdraw (Indietreggiare)", "withdraw"), ("March (Marcia)", "march"))
DIRECTIONS = (("obey: -1 a Ecu, the order understood", "obey"),
              ("defy: +1 a Ecu, the order misread", "defy"))

PHASES = (
    Phase("prebattle", "Before the battle: rolls, deployment, camps, orders, bribes (IW Prima della battaglia)"),
    Phase("command", "The command phase: new orders and Ecu (IW Fase di Comando)"),
    Phase("actions", "The actions: activation, charges, manoeuvre, movement (IW Azioni)"),
    Phase("fight", "Shooting, charge responses, contact and melee (IW Azioni 2e-2h)"),
    Phase("decisions", "Answers and standing answers, resigning"),
    Phase("info", "Questions answered only to you: companies, battles, treasury"),
)

POLICIES = (
    PolicyKind("postpone", "postpone", (
        ("fight", "in bad weather, fight at once (IW Tempo cattivo)"),
        ("wait", "in bad weather, wait for it to clear if the enemy agrees (IW Tempo cattivo)"),
        ("ask", "be asked when the weather is bad (IW Tempo cattivo)")), "ask"),
    PolicyKind("dawn", "dawn", (
        ("attack", "as attacker at hour 2, always make the dawn assault (IW Assalto all'alba)"),
        ("normal", "never make the dawn assault (IW Assalto all'alba)"),
        ("ask", "be asked when the hour is 2 (IW Assalto all'alba)")), "ask"),
    PolicyKind("pursue", "pursue", (
        ("always", "a winner that may follow up or pursue always does (IW-H 6.4, 9.2)"),
        ("never", "a winner that may stand always stands (IW-H 6.4, 9.2)"),
        ("ask", "be asked each time a winner may follow up or pursue (IW-H 6.4, 9.2)")), "ask"),
)


def _battle(description: str, kind: str = "own_battle", name: str = "battle") -> Option:
    return Option(name, description, kind)


def _company(description: str, kind: str, name: str = "company") -> Option:
    return Option(name, description, kind)


VERBS = (
    # -- before the battle ---------------------------------------------------------------------------
    Verb("roll", "Roll the pre-battle dice: captains, weather and hour, the attacker's tie",
         "IW Prima della battaglia", phase="prebattle", dice=True),
    Verb("deploy", "Write a battle's place on your secret deployment map (in line)",
         "IW Prima della battaglia 5", (
             _battle("Your battle", "unplaced_battle"),
             Option("at", "Where its centre's front stands: x,y in UDM (within 6 UDM of your edge)", "place_xy",
                    compact=True, context=("battle",)),
             Option("facing", "Its facing, compass degrees (0 north)", "facing", required=False, word="facing")),
         phase="prebattle", reply="secret",
         secret_reply="🔒 Written on your deployment map: {battle} at {at}. It appears when placed."),
    Verb("ambush", "Mark companies in ambush (defender; own half; broken or closed ground)",
         "IW Prima della battaglia 5", (
             Option("companies", "Your companies, e.g. c1 c2 (or none)", "own_company", multi=True),),
         phase="prebattle", reply="secret",
         secret_reply="🔒 Written on your map: in ambush. They stay hidden until seen."),
    Verb("defences", "Place a field defence from x1,y1 to x2,y2 (or none), defender first",
         "IW Prima della battaglia 6", (
             Option("line", "x1,y1 x2,y2 in UDM, or none", "defence_line", multi=True),),
         phase="prebattle"),
    Verb("camp", "Place your camp (1 x 2 UDM) in open ground by your edge, defender first",
         "IW Accampamento", (
             Option("at", "Its centre: x,y in UDM", "camp_xy", compact=True),
             Option("facing", "Its long side's facing, degrees", "facing", required=False, word="facing")),
         phase="prebattle"),
    Verb("place", "Put one battle of your map on the table (alternately, defender first)",
         "IW Prima della battaglia 7", (_battle("Your battle on the map, not yet placed", "mapped_battle"),),
         phase="prebattle"),
    Verb("order", "Write a battle's order (secret until it acts or is tested)", "IW Ordini", (
        _battle("Your battle", "order_battle"),
        Option("order", "The order (Assault and Hesitate are never given)", choices=ORDER_CHOICES),
        Option("objective", "A feature, a place x,y or enemy companies, for the order", "objective",
               required=False, multi=True, context=("battle", "order"))),
         phase="command", reply="secret",
         secret_reply="🔒 Order written for {battle}: {order}. It stays secret until the battle acts or is tested."),
    Verb("bribe", "Spend Ecu, secretly, on a battle's next interpretation test (yours or the enemy's)",
         "IW Tesoro", (
             _battle("A battle, yours or the enemy's", "any_battle"),
             Option("ecu", "How many Ecu (0 takes back a bribe not yet used)", "ecu"),
             Option("direction", "obey (-1 each) or defy (+1 each); yours obey, the enemy's defy by default",
                    required=False, choices=DIRECTIONS)),
         phase="command", reply="secret",
         secret_reply="🔒 {ecu} Ecu on {battle}: spent at its next interpretation test, shown then."),
    Verb("keep", "Done with this step: your orders and bribes stand",
         "IW Fase di Comando", phase="command", dice=True),
    # -- the actions ---------------------------------------------------------------------------------
    Verb("activate", "Try to activate one of your battles (Tabella 6; the C-in-C's always acts)",
         "IW Tabella 6", (_battle("Your battle not yet tried this turn", "activatable"),),
         phase="actions", dice=True),
    Verb("pass", "End the current step of your activation (2b-2h), or the pre-battle step",
         "IW Azioni", phase="actions", dice=True),
    Verb("declare", "Declare a charge: one company on one enemy in sight within its move",
         "IW Dichiarazioni di carica", (
             _company("Your company of the active battle", "charger"),
             Option("target", "The enemy company (or camp-<side>) it charges", "charge_target",
                    context=("company",))), phase="actions"),
    Verb("manoeuvre", "Manoeuvre a company if its order allows: wheel, turn, about, igel, phalanx",
         "IW Azioni 2c", (
             _company("Your company of the active battle", "manoeuvrer"),
             Option("steps", "e.g. wheel 45 left; turn right; about; igel; phalanx c2 c3; break",
                    "manoeuvre", multi=True, context=("company",))), phase="actions", dice=True),
    Verb("move", "Move a company if its order allows (chargers stop 1 UDM short)", "IW Azioni 2d", (
        _company("Your company of the active battle", "mover"),
        Option("steps", "e.g. advance 4; wheel 20 right advance 3; back 2", "movement",
               multi=True, context=("company",))), phase="actions", dice=True),
    Verb("limber", "Limber or unlimber artillery (finished next turn)", "IW Azioni 2a", (
        _company("Your artillery", "gun"),), phase="actions"),
    Verb("shoot", "Shoot with a company at an enemy in range and arc", "IW Azioni 2e", (
        _company("Your company that may shoot", "shooter"),
        Option("target", "An enemy company in range, in arc and in sight", "shoot_target",
               context=("company",))), phase="fight", dice=True),
    Verb("respond", "Respond to a charge: fire, countercharge, face, or stand (evading is compulsory)",
         "IW Azioni 2f", (
             _company("Your charged company", "charged"),
             Option("response", "fire / countercharge / face / stand", "response", context=("company",))),
         phase="fight", dice=True),
    Verb("melee", "Resolve a melee your company is in", "IW Azioni 2h", (
        _company("Your company in contact with the enemy", "fighter"),), phase="fight", dice=True),
    # -- decisions -----------------------------------------------------------------------------------
    Verb("react", "Answer the decision the game waits for", "IW Sequenza di gioco", (
        Option("answer", "One of the offered answers (the buttons list them)", "reaction"),
        Option("more", "Its company or place, when the answer needs one", "reaction_more", required=False,
               multi=True, context=("answer",))), phase="decisions", dice=True),
    Verb("policy", "Your standing answers to decisions", "IW Sequenza di gioco", (
        Option("kind", "What the policy governs", "policy_kind"),
        Option("value", "Your standing answer", "policy_value", context=("kind",))), phase="decisions"),
    Verb("resign", "Concede the battle", "IW Punto di rottura dell'esercito", phase="decisions"),
    # -- information ---------------------------------------------------------------------------------
    Verb("companies", "List companies: ids, places, facing, state (hidden enemies not shown)", "IW Compagnie", (
        Option("side", "Whose companies", required=False, choices=(("Yours", "mine"), ("The enemy's", "enemy"),
                                                                   ("Both sides", "all"))),),
        phase="info", reply="query"),
    Verb("battles", "List the battles: commanders, captains, orders (yours; the enemy's when known)",
         "IW Ordini", phase="info", reply="query"),
    Verb("treasury", "Your Ecu, your bribes not yet used and the sixes you owe (only to you)",
         "IW Tesoro", phase="info", reply="query"),
)

QUERIES = tuple(v.name for v in VERBS if v.reply == "query")
SECRET_VERBS = tuple(v.name for v in VERBS if v.reply == "secret")

COMMANDS = CommandSet("iw", "Italian Wars: orders, Ecu, battles activated, charges, fire and melee",
                      VERBS, PHASES, dice_help=DICE_HELP)
