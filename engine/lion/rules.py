"""Lion of the North command dispatcher: `apply(scenario, state, side, command) -> (state, events)`.

Pure (DESIGN principle 1): `engine.core.game.run_command` copies the state, the handler runs the
rule on the copy with dice from the recorded stream, and the card sequence then walks on by
itself (`sequence.cards.advance`) until a player must act or decide.

How the package is laid out, after the rulebook's sections (the text's own numbers, 1-15):

- `sequence/`  the cards [3], [13] (cards.py), command and Cpts [4] (command.py), random events
               [15] (events.py), rally [10] (rally.py), camps [12 A] (camps.py), demoralisation
               [11] and victory [14] (victory.py), the questions (queries.py).
- `movement/`  moves of units, groups, generals and guns [4]-[6], terrain [5 B], dragoons [12 C].
- `fire/`      shooting [7], contact fire [7 D], generals under fire [9 C].
- `melee/`     melee [8], disorder and capture [9 A-B], generals in melee [9 C].

Each module registers its verbs here with `register(verb, handler, usage)`; a handler is
`handler(sc, st, side, cmd, stream) -> list[Event]` and raises `Illegal(reason, section)` to refuse
(the state is a copy: a refusal leaves the game untouched). A handler first checks the card with
`need_card(st, side, ("move",))` and reads its units with `unit_of` / `enemy_of`. A module that
stops the game for a player's answer sets `st.pending = {"kind", "side", "options", "section",
"prompt", "default"}` and registers the answer's resumer with `register_reaction(kind, resume)`;
`resume(sc, st, side, answer, more, stream) -> list[Event]` is called by the `react` verb.

A card whose owner has nothing to do is played by Herald: a module may register, per card kind,
`register_card_check(kind, fn)` with `fn(sc, st, side) -> bool` (whether `side` has anything to do
on that card); when every check of the kind says no, the card passes by itself (HERALD D43).
"""
from __future__ import annotations

import sys
from typing import Callable

from engine.core.commands import Command
from engine.core.dispatch import dispatch
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.events import Event
from engine.core.game import import_rule_packages
from engine.core.pending import answer_pending
from engine.core.verbs import concede, set_policy

from engine.lion.state import SIDES, LionState  # noqa: F401 (SIDES: read by engine.core.dispatch)
from engine.lion.verbs import COMMANDS, POLICIES, QUERIES  # noqa: F401 (COMMANDS: read by engine.core.dispatch)

Handler = Callable[..., list[Event]]

HANDLERS: dict[str, Handler] = {}
USAGE: dict[str, str] = {}
REACTIONS: dict[str, Handler] = {}
CARD_CHECKS: dict[str, list[Callable]] = {}
ANY_TIME = {"policy", "resign", *QUERIES}
POLICY_DEFAULTS = {p.key: p.default for p in POLICIES}

# the nine cards [13]: kind and letter of the player it names
CARD_KINDS = {"move": "move", "shoot": "shoot", "combat": "combat", "rally": "rally", "end": "end"}
CARD_TEXT = {
    "move": "rolls for Cpts and moves; the other player then fires at units that came into contact (LdN [3], [4], [7 D])",
    "shoot": "shoots (LdN [7])",
    "combat": "begins the melees (LdN [8])",
    "rally": "tries to rally (LdN [10])",
    "end": "the end card: d6 1-4 the turn goes on, 5 a random event, 6 the turn ends (LdN [13])",
}


def register(verb: str, handler: Handler, usage: str) -> None:
    """A rule module's verb (movement, fire, melee...): `handler(sc, st, side, cmd, stream)`."""
    HANDLERS[verb] = handler
    USAGE[verb] = usage


def register_reaction(kind: str, resume: Handler) -> None:
    """The resumer of a pending decision of `kind`: `resume(sc, st, side, answer, more, stream)`."""
    REACTIONS[kind] = resume


def register_card_check(kind: str, check: Callable) -> None:
    """`check(sc, st, side) -> bool`: whether `side` has anything to do on its card of `kind`
    ("shoot", "combat", "move"); a card where every check says no passes by itself (HERALD D43)."""
    CARD_CHECKS.setdefault(kind, []).append(check)


def policy(st: LionState, side: str, key: str) -> str:
    """A side's standing answer (verbs.POLICIES), or its default."""
    return (st.policies.get(side) or {}).get(key, POLICY_DEFAULTS.get(key, "ask"))


# -- the cards ------------------------------------------------------------------------------------

def card_kind(card: str) -> str:
    """"move_a" -> "move"; "end" -> "end"; "" -> ""."""
    return card.split("_")[0] if card else ""


def card_letter(card: str) -> str:
    """"move_a" -> "A"; the end card names no player: ""."""
    return card.split("_")[1].upper() if "_" in card else ""


def side_of_letter(st: LionState, letter: str) -> str:
    """The side playing as player `letter` ("A"/"B") [3]: the scenario's player A (st.players, set
    by `start`); a state made without it takes the sides' order (HERALD D40)."""
    if not letter:
        return ""
    if st.players.get(letter):
        return st.players[letter]
    return SIDES[0] if letter == "A" else SIDES[1]


def letter_of_side(st: LionState, side: str) -> str:
    return "A" if side_of_letter(st, "A") == side else "B"


def card_owner(st: LionState, card: str | None = None) -> str:
    """The side a card names ("" for the end card)."""
    return side_of_letter(st, card_letter(st.card if card is None else card))


def card_name(st: LionState, card: str | None = None) -> str:
    """For people: "Swedish move card (player A)", "end card"."""
    card = st.card if card is None else card
    if not card:
        return "no card"
    if card == "end":
        return "end card"
    return f"{card_owner(st, card).title()} {card_kind(card)} card (player {card_letter(card)})"


# -- guards every handler shares --------------------------------------------------------------------

def need_not_over(st: LionState) -> None:
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}", "LdN [14]")


def need_no_pending(st: LionState, side: str) -> None:
    """Nothing else may happen while a decision is owed (DESIGN: pending decisions)."""
    p = st.pending
    if p:
        who = p["side"].title()
        raise Illegal(f"waiting for {who}: {p.get('prompt', p['kind'].replace('_', ' '))} "
                      f"(answer with `react {'|'.join(p.get('options', []))}`)", p.get("section", "LdN [3]"))


def need_card(st: LionState, side: str, kinds: tuple[str, ...], sc=None) -> None:
    """The current card is one of `kinds` ("move", "shoot", "combat", "rally") and names `side`,
    and its owner is acting on it (not its contact fire step) [3], [13]."""
    need_not_over(st)
    need_no_pending(st, side)
    what = " or ".join(kinds)
    kind, owner = card_kind(st.card), card_owner(st)
    if kind not in kinds or owner != side or st.step != "act":
        if not st.card or st.step == "draw":
            now = "no card is in play"
        elif st.step == "contact_fire":
            now = f"{card_name(st)}: the contact fire step [7 D] is under way"
        else:
            now = f"the current card is the {card_name(st)}"
        raise Illegal(f"this needs your {what} card: {now}", "LdN [3], [13]")


def need_step(st: LionState, step: str, side: str) -> None:
    """The card is at `step` ("act", "contact_fire") for `side` (the contact fire step belongs to
    the player the move card does not name, [3] cards 7-8)."""
    if st.step != step:
        raise Illegal(f"the {card_name(st)} is not at its {step.replace('_', ' ')} step", "LdN [3]")


def _pairs(sc, items) -> list[tuple[str, str]]:
    return [(x.id, display_name(sc, x.id)) for x in items]


def display_name(sc, uid: str) -> str:
    """A unit's or general's name from the scenario (its id when it has none)."""
    if sc is None:
        return uid
    try:
        spec = sc.unit(uid)
    except Exception:
        spec = None
    if spec is None:
        for g in getattr(sc, "generals", ()) or ():
            if g.id == uid:
                spec = g
                break
    return getattr(spec, "name", "") or uid


def named(sc, uid: str) -> str:
    """"Name (id)" for narratives."""
    name = display_name(sc, uid)
    return f"{name} ({uid})" if name != uid else uid


def unit_of(sc, st: LionState, side: str, word: str):
    """One of `side`'s live units by id (case-insensitive), or Illegal naming the valid ids."""
    from engine.core.ids import unknown
    u = st.units.get(word) or st.units.get((word or "").lower())
    if u is None or not u.alive:
        mine = [x for x in st.units.values() if x.alive and x.side == side]
        raise Illegal(unknown(word, "one of your units", _pairs(sc, mine), query="units"), "LdN [2]")
    if u.side != side:
        raise Illegal(f"{named(sc, u.id)} is not yours: it is {u.side.title()}'s", "LdN [2]")
    return u


def enemy_of(sc, st: LionState, side: str, word: str):
    """One of the enemy's live units by id, or Illegal naming the valid ids."""
    from engine.core.ids import unknown
    u = st.units.get(word) or st.units.get((word or "").lower())
    if u is None or not u.alive:
        theirs = [x for x in st.units.values() if x.alive and x.side != side]
        raise Illegal(unknown(word, "an enemy unit on the table", _pairs(sc, theirs), query="units enemy"),
                      "LdN [2]")
    if u.side == side:
        raise Illegal(f"{named(sc, u.id)} is one of your own units", "LdN [2]")
    return u


def general_of(sc, st: LionState, side: str, word: str):
    """One of `side`'s live generals by id, or Illegal naming the valid ids."""
    from engine.core.ids import unknown
    g = st.generals.get(word) or st.generals.get((word or "").lower())
    if g is None or not g.alive or g.side != side:
        mine = [x for x in st.generals.values() if x.alive and x.side == side]
        raise Illegal(unknown(word, "one of your generals", _pairs(sc, mine), query="generals"), "LdN [4]")
    return g


# -- the answers to pending decisions ---------------------------------------------------------------

def do_react(sc, st: LionState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    resume, answer, more = answer_pending(st.pending, side, list(cmd.args), REACTIONS, "LdN [3]")
    return resume(sc, st, side, answer, more, stream)


def do_policy(sc, st: LionState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    return [set_policy(POLICIES, st, side, list(cmd.args))]


def do_resign(sc, st: LionState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    need_not_over(st)
    return [concede(st, side, "LdN [14]")]


register("react", do_react, "react <answer> [more]: answer the decision the game waits for (LdN [8 E], [15])")
register("policy", do_policy, "policy <kind> <value>: your standing answers to decisions")
register("resign", do_resign, "resign: concede the battle (LdN [14])")

ACTION_PACKAGES = ("sequence", "movement", "fire", "melee")
_loaded = False


def load_action_modules() -> None:
    """Each rule module registers its verbs when imported: every module of the packages
    sequence/, movement/, fire/ and melee/ (a package not written yet is skipped)."""
    global _loaded
    if _loaded:
        return
    import_rule_packages("engine.lion", ACTION_PACKAGES)
    _loaded = True


def advance(sc, st: LionState, stream: DiceStream) -> list[Event]:
    """Walk the card sequence on by itself (sequence/cards.py) once a command is done."""
    from engine.lion.sequence.cards import advance as walk
    return walk(sc, st, stream)


def apply(sc, state: LionState, side: str, cmd: Command) -> tuple[LionState, list[Event]]:
    """The dispatcher every open-table ruleset shares (engine.core.dispatch): the verb's handler
    on a copy of the state, then the sequence walks on by itself."""
    return dispatch(sc, state, side, cmd, sys.modules[__name__], name="Lion of the North", section="LdN [3]",
                    kept=("last_action",))


def start(sc, st: LionState) -> tuple[LionState, list[Event]]:
    """Walk the opening of the battle right after setup: the players' letters [3] from the
    scenario (HERALD D40), then the first card is drawn."""
    load_action_modules()
    st = st.copy()
    if not st.players:
        st.players = players_of(sc)
    stream = DiceStream(st.seed, st.draws)
    events = advance(sc, st, stream)
    st.draws = stream.draws
    return st, events


def players_of(sc) -> dict[str, str]:
    """{"A": side, "B": side} from the scenario's armies (ArmySpec.player), else the sides' order."""
    out: dict[str, str] = {}
    try:
        for letter in ("A", "B"):
            out[letter] = sc.player(letter)
    except Exception:
        out = {}
        for side, army in sorted((getattr(sc, "armies", {}) or {}).items()):
            letter = getattr(army, "player", "")
            if letter in ("A", "B"):
                out[letter] = side
    if set(out) != {"A", "B"}:
        out = {"A": SIDES[0], "B": SIDES[1]}
    return out
