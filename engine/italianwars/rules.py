"""Italian Wars command dispatcher: `apply(scenario, state, side, command) -> (state, events)`.

Pure (DESIGN principle 1): `engine.core.game.run_command` copies the state, the handler runs the
rule on the copy with dice from the recorded stream, and the sequence then walks on by itself
(`sequence.walk.advance`) until a player must act or decide.

How the package is laid out, after the text's headings (cited "IW <heading>", rules_index.toml):

- `sequence/`  Prima della battaglia 1-9 (prebattle.py), Fase di Comando with the interpretation
               of orders (command.py), Azioni: the active player and battle activation, steps
               2a-2h as a state machine (activation.py), Dichiarazioni di carica (charges.py),
               Coesione delle Battaglie (cohesion.py), Fine mossa and Punto di rottura
               (endturn.py), the walk of the turn (walk.py), the private questions (queries.py).
- `movement/`  manoeuvres and movement (2c, 2d), rout and pursuit (3, 4): Herald completion.
- `combat/`    shooting (2e), charge responses and closing (2f, 2g), melee (2h), morale, captain
               risk, reorganisation (5): Herald completion.

Each module registers its verbs here with `register(verb, handler, usage)`; a handler is
`handler(sc, st, side, cmd, stream) -> list[Event]` and raises `Illegal(reason, section)` to refuse
(the state is a copy: a refusal leaves the game untouched). A module that stops the game for a
player's answer sets `st.pending = {"kind", "side", "options", "section", "prompt", "default"}` and
registers the answer's resumer with `register_reaction(kind, resume)`;
`resume(sc, st, side, answer, more, stream) -> list[Event]` is called by the `react` verb.

The steps of an activation (2b-2h) and the phases 3-5 are filled by the later modules: each
registers, per step or phase, `register_step(step, check, run=None)`: `check(sc, st, side) -> bool`
whether `side` has anything to do there (the player then acts and says `pass`), `run(sc, st,
stream) -> list[Event]` what Herald does by itself there (rout moves, reorganisation rolls). A
step with no module registered passes by itself (sequence/activation.py).
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from engine.core.commands import Command
from engine.core.dispatch import dispatch
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import Event
from engine.core.game import import_rule_packages
from engine.core.pending import answer_pending
from engine.core.verbs import concede, set_policy

from engine.italianwars.state import SIDES, IWState  # noqa: F401 (SIDES: read by engine.core.dispatch)
from engine.italianwars.verbs import COMMANDS, POLICIES, QUERIES  # noqa: F401 (COMMANDS: read by engine.core.dispatch)

Handler = Callable[..., list[Event]]

HANDLERS: dict[str, Handler] = {}
USAGE: dict[str, str] = {}
REACTIONS: dict[str, Handler] = {}
STEP_CHECKS: dict[str, list[Callable]] = {}
STEP_RUNS: dict[str, list[Callable]] = {}
STEP_ENDS: dict[str, list[Callable]] = {}
ANY_TIME = {"policy", "resign", *QUERIES}
POLICY_DEFAULTS = {p.key: p.default for p in POLICIES}


def register(verb: str, handler: Handler, usage: str) -> None:
    """A rule module's verb (movement, shooting, melee...): `handler(sc, st, side, cmd, stream)`."""
    HANDLERS[verb] = handler
    USAGE[verb] = usage


def register_reaction(kind: str, resume: Handler) -> None:
    """The resumer of a pending decision of `kind`: `resume(sc, st, side, answer, more, stream)`."""
    REACTIONS[kind] = resume


def register_step(step: str, check: Callable | None = None, run: Callable | None = None,
                  end: Callable | None = None) -> None:
    """A module's part in an activation step ("declare", "manoeuvre", "move", "shoot", "respond",
    "close", "melee") or a phase ("rout", "pursuit", "reorganisation"): `check(sc, st, side) ->
    bool` says whether `side` has anything to do there (the walk waits for his `pass`);
    `run(sc, st, stream) -> list[Event]` is done by Herald when the step or phase begins. A step
    nobody registered passes by itself (IW Sequenza di mossa; HERALD D54). `end(sc, st, stream) ->
    list[Event]` is what Herald does when the acting side ends the step with `pass` (the melees
    still to fight); if it leaves a decision pending, the step ends once it is answered."""
    if end is not None:
        STEP_ENDS.setdefault(step, []).append(end)
    if check is not None:
        STEP_CHECKS.setdefault(step, []).append(check)
    if run is not None:
        STEP_RUNS.setdefault(step, []).append(run)


def policy(st: IWState, side: str, key: str) -> str:
    """A side's standing answer (verbs.POLICIES), or its default."""
    return (st.policies.get(side) or {}).get(key, POLICY_DEFAULTS.get(key, "ask"))


def table(names: tuple[str, ...] | str, default: Any) -> Any:
    """A table of the text from engine/italianwars/tables.py (the DATA helper's transcription), by
    its first name found among `names`; `default` (the same table as this module reads the text)
    while tables.py lacks it."""
    try:
        from engine.italianwars import tables as T
    except ModuleNotFoundError:
        return default
    for n in ((names,) if isinstance(names, str) else names):
        v = getattr(T, n, None)
        if v is not None:
            return v
    return default


# -- the scenario's printed values, read the same way everywhere -------------------------------------

def company_spec(sc, cid: str):
    """The scenario's record of a company (name, morale class, troop kind, role, nation...), or
    None (a state made by hand in a test)."""
    if sc is None:
        return None
    for name in ("company", "unit"):
        fn = getattr(sc, name, None)
        if callable(fn):
            try:
                found = fn(cid)
            except Exception:
                found = None
            if found is not None:
                return found
    comps = getattr(sc, "companies", None)
    if isinstance(comps, dict):
        return comps.get(cid)
    for c in comps or ():
        if getattr(c, "id", None) == cid:
            return c
    return None


def attr(sc, st: IWState, cid: str, key: str, default: Any = "") -> Any:
    """A company's printed attribute: a test's state may carry it in `st.options["specs"]`
    ({company: {key: value}}), else the scenario's record (its first name among the synonyms
    below), else `default`."""
    over = ((st.options or {}).get("specs") or {}).get(cid) if st is not None else None
    if over and key in over:
        return over[key]
    spec = company_spec(sc, cid)
    if spec is None:
        return default
    for k in SYNONYMS.get(key, (key,)):
        v = spec.get(k) if isinstance(spec, dict) else getattr(spec, k, None)
        if v not in (None, ""):
            return v
    return default


SYNONYMS = {
    "morale": ("morale", "morale_class", "quality"),
    "arm": ("arm", "kind", "troop", "branch"),          # cavalry / infantry / artillery
    "role": ("role", "troop_type", "type"),             # shooting / shock / skirmishers
    "nation": ("nation", "nationality", "contingent"),
    "name": ("name",),
}


def morale_of(sc, st: IWState, cid: str) -> str:
    return str(attr(sc, st, cid, "morale", "mercenaries")).lower()


def arm_of(sc, st: IWState, cid: str) -> str:
    """"cavalry", "infantry" or "artillery" (skirmishers are infantry or cavalry by their arm)."""
    a = str(attr(sc, st, cid, "arm", "infantry")).lower()
    if a.startswith("cav") or a in ("mounted", "horse"):
        return "cavalry"
    if a.startswith("art") or a in ("guns", "gun", "war_carts", "carts"):
        return "artillery"
    return "infantry"


def role_of(sc, st: IWState, cid: str) -> str:
    """"shooting", "shock" or "skirmishers" (IW Tipi di truppe); artillery counts as shooting."""
    r = str(attr(sc, st, cid, "role", "")).lower()
    if r.startswith("skirm"):
        return "skirmishers"
    if r.startswith("shoot") or r in ("missile", "shot"):
        return "shooting"
    if arm_of(sc, st, cid) == "artillery":
        return "shooting"
    return "shock" if r in ("", "shock", "melee") or r.startswith("shock") else r


def nation_of(sc, st: IWState, cid: str) -> str:
    return str(attr(sc, st, cid, "nation", "")).lower()


def display_name(sc, cid: str) -> str:
    spec = company_spec(sc, cid)
    if spec is None:
        return cid
    name = spec.get("name") if isinstance(spec, dict) else getattr(spec, "name", "")
    return name or cid


def named(sc, cid: str) -> str:
    """"Name (id)" for narratives."""
    name = display_name(sc, cid)
    return f"{name} ({cid})" if name != cid else cid


def battle_name(sc, st: IWState, bid: str) -> str:
    """A battle's name from the scenario, "Name (id)", or its id."""
    for b in (getattr(sc, "battles", None) or ()) if sc is not None else ():
        b = sc.battles[b] if isinstance(sc.battles, dict) else b
        if getattr(b, "id", None) == bid and getattr(b, "name", ""):
            return f"{b.name} ({bid})"
    return bid


# -- guards every handler shares --------------------------------------------------------------------

def need_not_over(st: IWState) -> None:
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}", "IW Punto di rottura dell'esercito")


def need_no_pending(st: IWState, side: str) -> None:
    """Nothing else may happen while a decision is owed (DESIGN: pending decisions)."""
    p = st.pending
    if p:
        raise Illegal(f"waiting for {p['side'].title()}: {p.get('prompt', p['kind'].replace('_', ' '))} "
                      f"(answer with `react {'|'.join(p.get('options', []))}`)", p.get("section", "IW Sequenza di gioco"))


def need_phase(st: IWState, phase: str, what: str, section: str, step: str | None = None) -> None:
    """The game is in `phase` (and pre-battle `step`), else a refusal saying where it stands."""
    need_not_over(st)
    if st.phase != phase or (step is not None and st.step != step):
        raise Illegal(f"{what} only {describe_place(phase, step)}: now {describe_place(st.phase, st.step)}", section)


PLACE_TEXT = {
    "prebattle": "before the battle", "command": "in the command phase (1)", "actions": "in the actions phase (2)",
    "rout": "in the rout phase (3)", "pursuit": "in the pursuit phase (4)",
    "reorganisation": "in the reorganisation phase (5)", "end": "at the end of the turn (6)", "over": "after the battle",
}
STEP_TEXT = {
    "personalities": "step 2, the captains' personalities", "weather": "step 3, season, weather and time of day",
    "attacker": "step 4, attacker and defender", "deployment": "step 5, the secret deployment map",
    "defences": "step 6, field defences and camps", "placement": "step 7, placing the battles",
    "orders": "step 8, the written orders", "bribery": "step 9, bribery", "done": "the pre-battle steps done",
}


def describe_place(phase: str, step: str | None = None) -> str:
    text = PLACE_TEXT.get(phase, phase)
    if phase == "prebattle" and step:
        text += f", {STEP_TEXT.get(step, step)}"
    return text


def battle_of(sc, st: IWState, side: str, word: str, own: bool = True):
    """One of `side`'s battles (own) or the enemy's, by id (case-insensitive), or Illegal naming
    the valid ids."""
    from engine.core.ids import unknown
    b = st.battles.get(word) or st.battles.get((word or "").lower())
    if b is None:
        pool = [x for x in st.battles.values() if (x.side == side) == own]
        raise Illegal(unknown(word, "one of your battles" if own else "an enemy battle",
                              [(x.id, battle_name(sc, st, x.id)) for x in sorted(pool, key=lambda x: x.id)],
                              query="battles"), "IW Organizzazione dell'esercito")
    if own and b.side != side:
        raise Illegal(f"{battle_name(sc, st, b.id)} is not yours: it is {b.side.title()}'s",
                      "IW Organizzazione dell'esercito")
    return b


def any_battle(sc, st: IWState, word: str):
    """Any battle by id (a bribe may go on either side's)."""
    from engine.core.ids import unknown
    b = st.battles.get(word) or st.battles.get((word or "").lower())
    if b is None:
        raise Illegal(unknown(word, "a battle", [(x.id, battle_name(sc, st, x.id)) for x in
                                                 sorted(st.battles.values(), key=lambda x: x.id)],
                              query="battles"), "IW Organizzazione dell'esercito")
    return b


def company_of(sc, st: IWState, side: str, word: str):
    """One of `side`'s companies on the table by id, or Illegal naming the valid ids."""
    from engine.core.ids import unknown
    c = st.companies.get(word) or st.companies.get((word or "").lower())
    if c is None or not c.alive:
        mine = [x for x in sorted(st.companies.values(), key=lambda x: x.id) if x.alive and x.side == side]
        raise Illegal(unknown(word, "one of your companies", [(x.id, display_name(sc, x.id)) for x in mine],
                              query="companies"), "IW Compagnie")
    if c.side != side:
        raise Illegal(f"{named(sc, c.id)} is not yours: it is {c.side.title()}'s", "IW Compagnie")
    return c


def enemy_company(sc, st: IWState, side: str, word: str, seen_by: str | None = None):
    """An enemy company on the table by id (a hidden one is unknown to `side`)."""
    from engine.core.ids import unknown
    c = st.companies.get(word) or st.companies.get((word or "").lower())
    if c is None or not c.alive or (c.side != side and c.hidden):
        theirs = [x for x in sorted(st.companies.values(), key=lambda x: x.id)
                  if x.alive and x.side != side and not x.hidden]
        raise Illegal(unknown(word, "an enemy company in sight", [(x.id, display_name(sc, x.id)) for x in theirs],
                              query="companies enemy"), "IW Compagnie")
    if c.side == side:
        raise Illegal(f"{named(sc, c.id)} is one of your own companies", "IW Compagnie")
    return c


# -- the answers to pending decisions ---------------------------------------------------------------

def do_react(sc, st: IWState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    resume, answer, more = answer_pending(st.pending, side, list(cmd.args), REACTIONS, "IW Sequenza di gioco")
    return resume(sc, st, side, answer, more, stream)


def do_policy(sc, st: IWState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    return [set_policy(POLICIES, st, side, list(cmd.args))]


def do_resign(sc, st: IWState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    need_not_over(st)
    return [concede(st, side, "IW Punto di rottura dell'esercito")]


register("react", do_react, "react <answer> [more]: answer the decision the game waits for")
register("policy", do_policy, "policy <kind> <value>: your standing answers to decisions")
register("resign", do_resign, "resign: concede the battle")

ACTION_PACKAGES = ("sequence", "movement", "combat")
_loaded = False


def load_action_modules() -> None:
    """Each rule module registers its verbs when imported: every module of the packages
    sequence/, movement/ and combat/ (a package not written yet is skipped)."""
    global _loaded
    if _loaded:
        return
    import_rule_packages("engine.italianwars", ACTION_PACKAGES)
    _loaded = True


def advance(sc, st: IWState, stream: DiceStream) -> list[Event]:
    """Walk the sequence on by itself (sequence/walk.py) once a command is done."""
    from engine.italianwars.sequence.walk import advance as walk
    return walk(sc, st, stream)


def apply(sc, state: IWState, side: str, cmd: Command) -> tuple[IWState, list[Event]]:
    """The dispatcher every open-table ruleset shares (engine.core.dispatch): the verb's handler
    on a copy of the state, then the sequence walks on by itself."""
    # in a what-if (/odds) the answer is about the action asked, not the steps and phases Herald
    # plays after it (engine/italianwars/odds.py): the sequence does not walk on there
    return dispatch(sc, state, side, cmd, sys.modules[__name__], name="Italian Wars", section="IW Sequenza di gioco",
                    kept=("last_action", "activation"), walk_in_what_if=False)


def start(sc, st: IWState) -> tuple[IWState, list[Event]]:
    """Walk the opening right after setup: the pre-battle steps a scenario fixes pass by
    themselves; the first one needing a player stops the walk."""
    load_action_modules()
    st = st.copy()
    stream = DiceStream(st.seed, st.draws)
    events = advance(sc, st, stream)
    st.draws = stream.draws
    return st, events
