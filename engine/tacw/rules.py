"""TACW command dispatcher: `apply(scenario, state, side, command) -> (state, events)`.

Pure: the given state is copied, the command runs on the copy, and the sequence of play then
walks on by itself until a player must decide (DESIGN: pending decisions)."""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.game import NotInPlace, in_place, run_command
from engine.core.verbs import refuse_extra_words

from engine.tacw import victory

from engine.tacw.sequence import choices as choices

from engine.tacw.sequence import policies as policies

from engine.tacw.sequence import activation as sequence
from engine.tacw.state import SIDES, TacwState
from engine.tacw.verbs import COMMANDS

VERBS = {
    "activate": "activate <wing>: activate a wing of the tier precedence calls (TACW §3.2, §4.2)",
    "pass": "pass: do not activate a wing now (TACW §3.2 glossary)",
    "bypass": "bypass <wing> | bypass none: answer a bypass window (TACW §4.4)",
    "change": "change <order>: try to change the active wing's orders, before any unit acts (TACW §5.7)",
    "close": "close: end the wing's actions and go to close combat (TACW §3.2 C-D)",
    "continue": "continue: try to activate the wing again (TACW §4.3)",
    "stop": "stop: end the wing's activation (TACW §3.2 F)",
    "policy": ("policy bypass never|ask: answer bypass windows automatically or be asked; any policy "
               "may be set for one wing or unit: policy <kind> <value> for <wing|unit>, and dropped: "
               "policy <kind> clear [for <wing|unit>]; policy show [for <wing|unit>]"),
    "resign": "resign: concede the battle",
}


def _need_phase_player(st: TacwState, side: str) -> None:
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}", "TACW Victory Determination")
    if st.pending and st.pending["side"] != side:
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")


def _need_active(st: TacwState, side: str, steps: tuple[str, ...]) -> None:
    act = st.activation
    if act is None or act.side != side:
        from engine.tacw.ids import no_active_wing
        raise Illegal(no_active_wing(st, side), "TACW §3.2")
    if st.pending and not (st.pending.get("kind") == "close_combat" and st.pending["side"] == side):
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step not in steps:
        raise Illegal(f"not now: the activation is at step '{act.step}'", "TACW §3.2")


def do_activate(sc, st, side, cmd, stream):
    if not cmd.args:
        raise CannotParse("usage: " + VERBS["activate"])
    return sequence.activate(st, side, cmd.args[0])


def do_pass(sc, st, side, cmd, stream):
    return sequence.pass_turn(sc, st, side, stream)


def do_bypass(sc, st, side, cmd, stream):
    if not cmd.args:
        raise CannotParse("usage: " + VERBS["bypass"])
    wing = None if cmd.args[0] in ("none", "no") else cmd.args[0]
    return sequence.attempt_bypass(sc, st, side, wing, stream)


def do_change(sc, st, side, cmd, stream):
    if not cmd.args:
        raise CannotParse("usage: " + VERBS["change"])
    _need_active(st, side, ("order_change", "actions"))
    order = cmd.args[0].replace("-", "_")
    return sequence.change_order(sc, st, side, order, stream)


def do_close(sc, st, side, cmd, stream):
    _need_active(st, side, ("order_change", "actions"))
    st.activation.step = "close_combat"
    return [Event("step", side, "TACW §3.2 D", f"{st.wings[st.activation.wing].name}: close combat step")]


def _close_combat_first(sc, st, stream) -> tuple[list[Event], bool]:
    """§3.2 D comes before E and F: continuing or stopping first resolves the close combat
    step (the designated attacks, and the inactive player's reaction attacks by his policy).
    Returns the events and whether a decision now waits (then nothing more happens)."""
    if st.activation.step == "continuation":
        return [], False
    from engine.tacw.close_combat import melee as melee
    attacks = melee.designations(st)
    if st.pending and st.pending.get("kind") == "close_combat":
        st.pending = None
    if not attacks and not melee.reaction_options(sc, st, [], []):
        st.activation.step = "continuation"       # nobody can fight: nothing to say
        return [], False
    st.activation.step = "close_combat"
    events = melee.close_combat_step(sc, st, stream, attacks)
    return events, bool(st.pending) or st.activation is None


def do_continue(sc, st, side, cmd, stream):
    _need_active(st, side, ("order_change", "actions", "close_combat", "continuation"))
    events, waiting = _close_combat_first(sc, st, stream)
    if waiting or st.phase == "over":
        return events
    return events + sequence.attempt_continuation(sc, st, side, stream)


def do_stop(sc, st, side, cmd, stream):
    _need_active(st, side, ("order_change", "actions", "close_combat", "continuation"))
    events, waiting = _close_combat_first(sc, st, stream)
    if waiting or st.phase == "over":
        return events
    return events + sequence.end_activation(sc, st, stream)


# The standing policies that answer interrupts, with the default each starts at (DESIGN:
# pending decisions; TACW §4.4, §7.4, §7.5, §9.7, §10.2, §10.3, §10.4). Scoped policies (for a
# wing or a unit) and the one lookup every rule uses are in sequence/policies.py.
POLICY_DEFAULTS = policies.POLICY_DEFAULTS


def policy_summary(st: TacwState, side: str) -> str:
    return policies.summary(st, side)


def do_policy(sc, st, side, cmd, stream):
    if cmd.args == ("show",):
        return [Event("policy", side, "DESIGN pending decisions",
                      f"{side.title()}'s standing policies: {policy_summary(st, side)}")]
    if len(cmd.args) >= 2 and cmd.args[0] == "retreat" and cmd.args[1] in ("auto", "ask"):
        st.policies.setdefault(side, {})["retreat"] = cmd.args[1]
        return [Event("policy", side, "TACW §10.4, §12.4", f"{side.title()} will "
                      + ("choose each retreat and rout hex" if cmd.args[1] == "ask"
                         else "let Herald choose retreat and rout hexes"))]
    if len(cmd.args) >= 2 and cmd.args[0] == "advance_choice" and cmd.args[1] in ("auto", "ask"):
        st.policies.setdefault(side, {})["advance_choice"] = cmd.args[1]
        return [Event("policy", side, "TACW §10.4.6-§10.4.8", f"{side.title()} will "
                      + ("choose who advances after a close combat, where, and its turn" if cmd.args[1] == "ask"
                         else "let Herald choose who advances and where"))]
    if len(cmd.args) < 2 or cmd.args[0] != "bypass" or cmd.args[1] not in ("never", "ask"):
        raise CannotParse("usage: " + VERBS["policy"])
    st.policies.setdefault(side, {})["bypass"] = cmd.args[1]
    return [Event("policy", side, "DESIGN pending decisions",
                  f"{side.title()} will {'never attempt bypasses' if cmd.args[1] == 'never' else 'be asked at each bypass window'}")]


def _answer_choice(sc, state: TacwState, side: str, cmd: Command) -> tuple[TacwState, list[Event]]:
    """§10.4, §10.4.6-§10.4.8, §12.4: the owner answers a choice (`retreat <hex>` or
    `choose <option>`); the command that stopped to ask is replayed from the same state with the
    same dice and every answer given so far (sequence/choices.py, HERALD D93)."""
    p = state.pending
    section = (p or {}).get("section", "TACW §10.4")
    if not p or "replay" not in p or choices.ANSWER_VERB.get(p["kind"]) != cmd.verb:
        what = "retreat choice" if cmd.verb == "retreat" else "choice"
        raise Illegal(f"no {what} is waiting", section)
    if p["side"] != side:
        raise Illegal(f"the {'retreat' if p['kind'] == 'retreat' else 'choice'} is "
                      f"{p['side'].title()}'s to choose", section)
    canonical = {o.lower(): o for o in p["options"]}
    if not cmd.args or cmd.args[0].lower() not in canonical:
        raise Illegal(f"{cmd.verb} one of: {', '.join(p['options'])}", section)
    answer = canonical[cmd.args[0].lower()]
    r = p["replay"]
    before = state.copy()
    before.pending = r["pending_before"]
    again = Command(r["verb"], tuple(r["args"]), cmd.dice, cmd.exact_dice)
    return apply(sc, before, r["side"], again, list(r["answers"]) + [answer] + list(cmd.args[1:]))


def _ask_choice(state: TacwState, side: str, cmd: Command, answers: list[str] | None,
                need: "choices.NeedChoice") -> tuple[TacwState, list[Event]]:
    """The command stopped for an owner's choice: nothing of it happened; the state only records
    the question and how to replay the command once it is answered (sequence/choices.py)."""
    st = state.copy()
    st.pending = {"kind": need.kind, "side": need.side, "unit": need.unit_id, "options": need.options,
                  "labels": need.labels, "prompt": need.prompt, "section": need.section,
                  "answers": need.answered,
                  "replay": {"side": side, "verb": cmd.verb, "args": list(cmd.args),
                             "answers": need.answered, "pending_before": state.pending}}
    verb = choices.ANSWER_VERB[need.kind]
    return st, [Event(f"{need.kind}_choice", need.side, need.section,
                      f"{need.side.title()} chooses {need.prompt}: `{verb}` "
                      + " | ".join(need.options), outcome={"unit": need.unit_id, "options": need.options})]


def do_resign(sc, st, side, cmd, stream):
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}")
    st.winner = st.other(side)
    st.result = f"{side.title()} resigns; {st.winner.title()} wins"
    st.phase = "over"
    st.pending = None
    return [Event("resign", side, "TACW", st.result)]


HANDLERS = {"activate": do_activate, "pass": do_pass, "bypass": do_bypass, "change": do_change,
            "close": do_close, "continue": do_continue, "stop": do_stop, "policy": do_policy,
            "resign": do_resign}
ANY_TIME = {"policy", "resign", "bypass"}
DEPLOYMENT_VERBS = {"deploy", "assign"}     # the deployment phase (sequence/deployment.py)
CHOICE_VERBS = {"retreat": "retreat <hex> [<hex>...]: answer where your unit retreats or routs, hex by hex "
                           "(TACW §10.4, §12.4)",
                "choose": "choose <option>: answer an advance choice (TACW §10.4.6-§10.4.8)"}
VERBS.update(CHOICE_VERBS)


def register(verb: str, handler, usage: str) -> None:
    """Unit actions (move, fire, close combat...) live in their own modules and register here."""
    HANDLERS[verb] = handler
    VERBS[verb] = usage


ACTION_MODULES = ("movement.move", "fire.small_arms", "close_combat.melee", "morale.recovery",
                  "sequence.deployment", "battles.first_newbury", "battles.marston_moor")
_loaded = False


def load_action_modules() -> None:
    """The unit actions live in their own modules, each registering its verbs here."""
    global _loaded
    if _loaded:
        return
    import importlib
    for name in ACTION_MODULES:
        try:
            importlib.import_module(f"engine.tacw.{name}")
        except ModuleNotFoundError as exc:      # a module not written yet
            if exc.name != f"engine.tacw.{name}":
                raise
    _loaded = True


def apply(sc, state: TacwState, side: str, cmd: Command,
          answers: list[str] | None = None) -> tuple[TacwState, list[Event]]:
    """Apply one command; `answers` are the owner's choices already given for it (sequence/choices.py)."""
    load_action_modules()
    from engine.tacw.battles.second_newbury import scenario_view    # Second Newbury: the boat bridge, turn limit, axes
    sc = scenario_view(sc, state, side, cmd.verb)
    if side not in SIDES:
        raise Illegal(f"'{side}' is not a side of this battle (royalist, parliament)")
    refuse_extra_words(COMMANDS, cmd.verb, cmd.args)     # `activate r-centre x y`: every word is read
    if cmd.verb in CHOICE_VERBS:
        return _answer_choice(sc, state, side, cmd)
    handler = HANDLERS.get(cmd.verb)
    if handler is None:
        raise CannotParse(f"unknown command '{cmd.verb}'; TACW commands: {', '.join(HANDLERS)}")
    if cmd.verb not in ANY_TIME:
        _need_phase_player(state, side)
    if state.phase == "deployment" and cmd.verb not in DEPLOYMENT_VERBS | ANY_TIME:
        raise Illegal("the armies are still deploying: deploy, assign or deploy done first "
                      "(turn 1 begins when both sides are done)", f"TACW {sc.title} setup")

    def body(st: TacwState, stream: DiceStream) -> list[Event]:
        choices.begin(st, answers)
        try:
            if cmd.verb == "policy":          # the scope of a policy is handled in one place
                events = policies.command(sc, st, side, cmd, handler, stream)
            else:
                events = handler(sc, st, side, cmd, stream)
            if st.phase != "over":
                events += sequence.advance(sc, st, stream)
                # the running score, as it would stand if the battle ended now (shown on the board)
                st.vp = {s: sum(v.values()) for s, v in victory.victory_points(sc, st).items()}
        finally:
            choices.end(st)
        return events

    try:
        return run_command(state, cmd, body)
    except choices.NeedChoice as need:
        if in_place():          # the state is half changed: the replay starts again with copies
            raise NotInPlace(cmd.text) from need
        return _ask_choice(state, side, cmd, answers, need)


def start(sc, st: TacwState) -> tuple[TacwState, list[Event]]:
    """Walk the opening of the battle (initiative) right after setup."""
    st = st.copy()
    stream = DiceStream(st.seed, st.draws)
    events = sequence.advance(sc, st, stream)
    st.draws = stream.draws
    return st, events
