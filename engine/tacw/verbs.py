"""This Accursed Civil War's command surface as data (engine/core/verbs.py): every verb of the
command language (rules.py `VERBS` and the verbs the rule modules register) with its section,
the phase of the turn it belongs to, and its options' completion kinds (completions.py).

TACW has more than 25 verbs, so `/tacw` groups them by the parts of the sequence of play (§3.2):
activation (A, B, E, F), actions (C), combat (D), the inactive side's reactions, and setup (the
deployment phase and the battles' own rules); `policy` stands alone."""
from __future__ import annotations

from engine.core.verbs import CommandSet, Option, Phase, PolicyKind, Verb

D10 = "Your d10 faces, e.g. 4,1 (1 reads 0); optional"
ORDERS = (("Charge", "charge"), ("Make Ready", "make_ready"), ("Receive Charge", "receive_charge"),
          ("Rally", "rally"))
FIRE_MODES = (("Skirmish (default)", "skirmish"), ("Retreat fire", "retreat"),
              ("Advance fire (Charge orders)", "advance"))
SIDES_LR = (("Left", "left"), ("Right", "right"))
REFORMS = (("Take Open Order", "open"), ("Leave Open Order", "normal"), ("Leave column", "column-exit"),
           ("Leave hedgehog", "hedgehog-exit"), ("Reload pistols", "reload"))
LEADER_ACTIONS = (("Move (8 MP)", "move"), ("Rally a unit (Army Commander)", "rally"),
                  ("Reform a unit (Army Commander)", "reform"))

PHASES = (
    Phase("activation", "Activate a wing, bypass, change orders, continue or stop (TACW §3.2 A-B, E-F, §4)"),
    Phase("actions", "The active wing's unit and leader actions (TACW §3.2 C, §5-§9, §12)"),
    Phase("combat", "Close combat: designate, resolve, retreat and advance (TACW §3.2 D, §10)"),
    Phase("reactions", "The inactive side's answers: fire, movement, interception (TACW §7.4, §7.5, §9.7)"),
    Phase("setup", "The deployment phase and the battles' own special rules"),
    Phase("info", "Ids, answered only to you: units, wings, leaders"),
)
SIDE_FILTER = (("Royalist", "royalist"), ("Parliament", "parliament"), ("Both sides", "all"))

POLICIES = (
    PolicyKind("bypass", "bypass", (("never", "never attempt a bypass (TACW §4.4)"),
                                    ("ask", "be asked at each bypass window (TACW §4.4)")), "never"),
    PolicyKind("reaction", "reaction_fire", (
        ("auto", "every eligible unit fires in reaction (TACW §9.7)"),
        ("salvo", "as auto, heavy infantry with a Salvo (TACW §9.4, §9.7)"),
        ("never", "no Reaction Fire (TACW §9.7)"),
        ("ask", "be asked which units react (TACW §9.7)")), "auto"),
    PolicyKind("reaction_move", "reaction_move", (
        ("never", "no optional reaction movement (TACW §7.4)"),
        ("auto", "face a mover reaching your flank or rear (TACW §7.4.2)"),
        ("ask", "be asked how to react (TACW §7.4)")), "never"),
    PolicyKind("intercept", "intercept", (
        ("never", "no cavalry interception (TACW §7.5)"),
        ("auto", "eligible cavalry tries to intercept (TACW §7.5)"),
        ("ask", "be asked at each hex (TACW §7.5)")), "never"),
    PolicyKind("counter", "reaction_attack", (
        ("never", "no reaction attacks (TACW §10.2 B)"),
        ("ask", "be asked to designate reaction attacks (TACW §10.2 B)")), "never"),
    PolicyKind("advance", "advance_after_combat", (
        ("hold", "a defender holds after combat (TACW §10.4.6)"),
        ("advance", "a defender advances when it may (TACW §10.4.6)")), "hold"),
    PolicyKind("pistols", "close_combat_pistols", (
        ("spend", "cavalry spends a pistol in close combat (TACW §10.3.9)"),
        ("keep", "cavalry keeps its pistols (TACW §10.3.9)")), "spend"),
    PolicyKind("retreat", "retreat", (
        ("auto", "Herald picks retreat and rout hexes (TACW §10.4, §12.4)"),
        ("ask", "buttons ask you for each retreat and rout hex (TACW §10.4, §12.4)")), "auto"),
    PolicyKind("advance_choice", "advance_choice", (
        ("auto", "Herald picks who advances after combat, where, and keeps its facing (TACW §10.4.6-8)"),
        ("ask", "buttons ask who advances on a tie, where, which flank wheels, the turn (TACW §10.4.6-8)")),
        "auto"),
)


def _unit(description: str, kind: str) -> Option:
    return Option("unit", description, kind)


VERBS = (
    # -- activation (§3.2 A-B, E-F; §4; §5.7) ---------------------------------------------------
    Verb("activate", "Activate one of your wings, as precedence allows", "TACW §3.2, §4.2", (
        Option("wing", "Your wing; ▶ marks those precedence lets you activate now (TACW §4.2)", "activate"),),
        phase="activation"),
    Verb("pass", "Pass instead of activating a wing (never on Charge, §5.6.1)", "TACW §3.2", phase="activation"),
    Verb("bypass", "Answer a bypass window: pre-empt with a wing, or none", "TACW §4.4", (
        Option("wing", "Your wing that tries the bypass, or none", "bypass"),), phase="activation", dice=True),
    Verb("change", "Try to change the active wing's orders, before any unit acts", "TACW §5.7", (
        Option("order", "The new orders (Order Change table, TACW §5.7)", choices=ORDERS),),
        phase="activation", dice=True),
    Verb("close", "End the wing's unit actions and go to close combat", "TACW §3.2 C-D", phase="activation"),
    Verb("continue", "Try to activate the wing again (continuation)", "TACW §4.3", phase="activation", dice=True),
    Verb("stop", "End the wing's activation", "TACW §3.2 F", phase="activation"),
    # -- unit and leader actions (§3.2 C) ---------------------------------------------------------
    Verb("move", "Move a unit along a path of steps", "TACW §7", (
        _unit("Your unit of the active wing that has not acted", "mover"),
        Option("steps", "Steps, e.g. 2105 face W 2205 (front hex, face, about, wheel, back...)",
               "destination", multi=True, context=("unit",)),
        Option("alone", "Move without the unit stacked with it", flag="alone")), phase="actions", dice=True),
    Verb("face", "Turn a unit; a gun turns instead of firing", "TACW §6.2, §6.2.3", (
        _unit("Your unit of the active wing that has not acted", "actor"),
        Option("vertex", "The vertex to face: E SE SW W NW NE (TACW §6.1)", "vertex", context=("unit",))),
        phase="actions", dice=True),
    Verb("turngun", "Turn a gun instead of firing (as face)", "TACW §6.2.3", (
        Option("gun", "Your gun of the active wing", "gun"),
        Option("vertex", "The vertex to face (TACW §6.1)", "vertex", context=("gun",))), surface=False),
    Verb("hedgehog", "Heavy infantry forms a hedgehog for 4 MP", "TACW §6.3.2", (
        _unit("Your heavy infantry of the active wing", "heavy"),), phase="actions", dice=True),
    Verb("fire", "Fire at an adjacent enemy, or a gun at range", "TACW §9.3, §9.9", (
        _unit("Your unit of the active wing that has not acted", "firer"),
        Option("target", "Enemy hex (a double unit may name two, one per half) (TACW §9.1)",
               "fire_target", multi=True, context=("unit",)),
        Option("mode", "Infantry: Skirmish, Retreat or Advance fire (TACW §9.3)", required=False,
               choices=FIRE_MODES),
        Option("step", "Retreat fire: to <rear hex>; Advance/Skirmish: from <front hex> (§9.3)", "fire_step",
               required=False, context=("unit", "mode")),
        Option("ricochet", "Guns: the side of a hexside the ricochet line follows (TACW §9.9.5)",
               required=False, choices=SIDES_LR, word="ricochet")), phase="actions", dice=True),
    Verb("salvo", "Heavy infantry Salvo into front hexes, once a turn", "TACW §9.4", (
        _unit("Your heavy infantry of the active wing that has not acted", "salvo_unit"),
        Option("target", "Enemy hex in front (a double unit may name two) (TACW §9.4)", "salvo_target",
               multi=True, context=("unit",))), phase="actions", dice=True),
    Verb("pistol", "Cavalry fires its pistols during a move: move ... pistol <hex>", "TACW §9.2", (
        Option("hex", "Give it as a step of move: move <cav> ... pistol <hex>", required=False, phrase=True),),
        surface=False),
    Verb("rally", "Rally a Shaken or Broken unit", "TACW §12.2.4-12.2.5", (
        _unit("Your Shaken or Broken unit of the active wing", "rallier"),), phase="actions", dice=True),
    Verb("reform", "Reform: formation, hedgehog, Open Order, column, pistols", "TACW §12.2.3", (
        _unit("Your unit of the active wing that has not acted", "reformer"),
        Option("how", "What to reform; default: one formation level, then hedgehog, then pistols",
               required=False, choices=REFORMS)), phase="actions", dice=True),
    Verb("leader", "A leader moves 8 MP, or the Army Commander rallies or reforms", "TACW §5.1.2, §12.3", (
        Option("leader", "Your Army or Wing Commander (TACW §5)", "leader"),
        Option("action", "Move (TACW §5.1.2, §5.2.2), or the Army Commander's rally/reform (§12.3)",
               choices=LEADER_ACTIONS),
        Option("target", "Move: hexes one by one, e.g. 1812 1813; rally/reform: the unit", "leader_target",
               multi=True, context=("leader", "action")),
        Option("how", "Reform only: what to reform (TACW §12.2.3)", required=False, choices=REFORMS)),
        phase="actions", dice=True),
    Verb("resume", "Continue your move halted by an interrupt, once it is answered", "TACW §7.4.1",
         phase="actions", dice=True),
    Verb("enter", "A waiting unit enters at its entry hex, and may move on",
         "Marston Moor special rules", (
             Option("unit", "Your unit waiting to enter (Marston Moor's York contingent)", "enter_unit"),
             Option("steps", "Optional: the steps of its move from the entry hex, as for move", required=False,
                    multi=True)), phase="actions", dice=True, when="reinforcements"),
    # -- close combat (§3.2 D, §10) ---------------------------------------------------------------
    Verb("attack", "Designate a close combat, in the close combat step", "TACW §10.1-10.2", (
        Option("unit", "Your unit of the active wing, or none to withdraw every designation", "attacker"),
        Option("target", "The enemy hex, a front hex of the unit (TACW §10.1.2)", "attack_target",
               required=False, context=("unit",))), phase="combat"),
    Verb("resolve", "Resolve the designated close combats", "TACW §10.2", phase="combat", dice=True),
    Verb("counter", "Designate a reaction attack on the active wing, or none", "TACW §10.2 B", (
        Option("unit", "Your unit that attacks in reaction, or none to let the combats begin", "counter_unit"),
        Option("target", "The enemy hex it attacks (TACW §10.2 B)", "counter_target", required=False,
               context=("unit",))), phase="combat", dice=True),
    Verb("retreat", "Answer where your unit retreats or routs, hex by hex", "TACW §10.4, §12.4", (
        Option("hexes", "The offered hex, or several in order", "choice", multi=True),), phase="combat"),
    Verb("choose", "Answer an advance choice: who advances, where, which flank", "TACW §10.4.6-§10.4.8", (
        Option("option", "One of the offered options, or several in order", "choice", multi=True),),
        phase="combat"),
    # -- the inactive side's answers (§7.4, §7.5, §9.7) -------------------------------------------
    Verb("react", "Answer Reaction Fire: which units fire, all, or none", "TACW §9.7", (
        Option("units", "Your units that fire, space-separated, or all, or none (TACW §9.7)", "reactor",
               multi=True),
        Option("salvo", "Heavy infantry fire a Salvo (TACW §9.4)", flag="salvo")), phase="reactions", dice=True),
    Verb("react_move", "Answer reaction movement: face, hedgehog, retreat, or none", "TACW §7.4", (
        Option("unit", "Your unit that reacts, or none (TACW §7.4)", "react_unit"),
        Option("reaction", "e.g. face NW, wheel 1805, hedgehog, retreat 2005 2006 (TACW §7.4.2-7.4.4)",
               "react_how", required=False, multi=True, context=("unit",))), phase="reactions", dice=True),
    Verb("intercept", "Answer a cavalry interception decision", "TACW §7.5", (
        Option("cavalry", "Your cavalry that tries; none: not at this hex; pass: not this move", "interceptor"),
        Option("hex", "Where the interceptor ends (optional) (TACW §7.5.2)", "hex", required=False),
        Option("nopistol", "Do not fire a pistol (TACW §7.5.3)", flag="nopistol"),
        Option("nocombat", "Do not attack after intercepting (TACW §7.5.3)", flag="nocombat")),
        phase="reactions", dice=True),
    # -- setup: deployment and the battles' own rules ---------------------------------------------
    Verb("deploy", "Deployment phase: place a unit or leader in its area, or say done", "scenario setup, §8", (
        Option("unit", "Your unit or leader to place, or done when your deployment is complete", "deploy_unit"),
        Option("hex", "Its hex; a double unit: two adjacent hexes, e.g. 2905,2906", "deploy_hex",
               required=False, context=("unit",), compact=True, phrase=True),
        Option("facing", "The vertex it faces: E SE SW W NW NE (TACW §6.1); default: as now", "deploy_facing",
               required=False, context=("unit", "hex"), word="facing")), phase="setup", when="free_setup"),
    Verb("assign", "Deployment phase: send a cavalry-pool brigade to one of its wings", "scenario setup", (
        Option("brigade", "Your cavalry-pool brigade (it goes to one wing as a whole)", "brigade"),
        Option("wing", "The wing it joins", "pool_wing", context=("brigade",))), phase="setup",
        when="free_setup"),
    Verb("halt", "First Newbury: the Royalist declares a 4-turn Halt", "First Newbury special rule 1",
         phase="setup", when="halt"),
    Verb("boatbridge", "Second Newbury: record in secret where the boat bridge lies", "Second Newbury special rule 5", (
        Option("hex", "A Lambourn hex between Shaw and the east edge; leave empty to be reminded", "boat_hex",
               required=False),), phase="setup", reply="secret",
        secret_reply="🔒 Recorded in secret: the boat bridge lies at {hex}. It appears on the map when one of "
                     "your units first crosses on it (Second Newbury special rule 5).", when="boat_bridge"),
    # -- questions: every id discoverable (ids.py) ------------------------------------------------
    Verb("units", "Units: id, hex, facing, state, wing orders", "TACW §2.1, §6", (
        Option("filter", "A side, a wing, a unit or a hex; default: your side", "units_filter",
               required=False),), phase="info", reply="query"),
    Verb("wings", "Wings: id, orders, commander, may it activate", "TACW §4.2, §5.5", (
        Option("side", "Default: both sides", required=False, choices=SIDE_FILTER),), phase="info",
        reply="query"),
    Verb("leaders", "Leaders: id, role, hex, status", "TACW §5", (
        Option("side", "Default: both sides", required=False, choices=SIDE_FILTER),), phase="info",
        reply="query"),
    # -- any time ----------------------------------------------------------------------------------
    Verb("policy", "Answer a kind of decision automatically, or be asked", "TACW §4.4, §7.4, §9.7, §10", (
        Option("kind", "The decision: bypass, reaction, reaction_move, intercept, counter...", "policy_kind"),
        Option("value", "How to answer it (or clear); kind show lists your policies", "policy_value",
               required=False, context=("kind",)),
        Option("scope", "Only for this wing or unit of yours (optional)", "policy_scope", required=False,
               word="for"))),
    Verb("resign", "Concede the battle (also /game resign)", "TACW Victory Determination", surface=False),
)

COMMANDS = CommandSet(
    group="tacw", description="This Accursed Civil War: activate wings, act, close combat (TACW §3.2)",
    verbs=VERBS, phases=PHASES, dice_help=D10)
