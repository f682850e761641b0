"""The owner's choices inside a resolution (TACW §10.4, §10.4.6-§10.4.8, §12.4; HERALD D74, D93).

The rules leave several small choices to a unit's owner in the middle of a resolution that may
involve the other player's dice: where a unit retreats (§10.4; after a fire, a morale check, a
close combat or in the Rout Phase, §12.4), which of several tied attackers advances (§10.4.6),
which vacated hex a single unit advances into, which flank of a double wheels into one vacated
hex (§10.4.8), and the optional one-hexside turn of a single unit that advances (§10.4.7).

Herald makes each of them by a fixed, documented rule (the first option offered) unless the
owner set the policy that covers it to "ask":

    policy retreat ask          every retreat and rout hex (default auto)
    policy advance_choice ask   who advances on a tie, into which hex, which flank, the turn

An answer may name several options at once, used in order while they fit (`retreat 2321 2421
2522` answers a rout hex by hex); the first must be one of the options offered now.

Then the command that led to the choice stops before anything happens: the state and the dice
stream stay where they were, and the owner is asked (a pending decision). The answer replays
the same command from the same state, with the same dice, and the answers given so far; a
later choice in the same resolution stops it again. A command is therefore always all or
nothing, the log shows each resolution once, and answering with Herald's first option gives
exactly the game the automatic policy gives (DESIGN principle 1).

`choose` is what a rule calls. The frame (`rules.apply`) opens the replay record, turns
`NeedChoice` into a pending decision, and replays the command on the answer.
"""
from __future__ import annotations

from engine.tacw.state import TacwState, Unit

# The decision kinds: which policy covers each, and the verb that answers it.
POLICY_OF = {"retreat": "retreat", "advance": "advance_choice"}
ANSWER_VERB = {"retreat": "retreat", "advance": "choose"}
REPLAY_KEY = "_choices"


class NeedChoice(Exception):
    """A rule needs its owner's answer and no recorded answer covers it."""

    def __init__(self, kind: str, side: str, options: list[str], prompt: str, section: str,
                 unit: Unit | None = None, labels: dict[str, str] | None = None,
                 answered: list[str] | None = None):
        super().__init__(prompt)
        self.answered = list(answered or [])
        self.kind, self.side, self.options, self.prompt, self.section = kind, side, options, prompt, section
        self.unit_id = unit.id if unit is not None else None
        self.labels = labels or {}


def begin(st: TacwState, answers: list[str] | None) -> None:
    st.options[REPLAY_KEY] = {"answers": list(answers or []), "used": 0}


def end(st: TacwState) -> None:
    st.options.pop(REPLAY_KEY, None)


def choose(st: TacwState, side: str, kind: str, options: list[str], prompt: str, section: str,
           unit: Unit | None = None, labels: dict[str, str] | None = None) -> str:
    """The owner's choice among `options` (Herald's own first). Without an "ask" policy, or
    with a single option, or outside a command frame (a rule called directly), the first option
    stands; with "ask", the next recorded answer is used, and without one the command stops to
    ask (NeedChoice)."""
    from engine.tacw.sequence.policies import policy
    if len(options) < 2:
        return options[0]
    replay = st.options.get(REPLAY_KEY)
    if replay is None or policy(st, side, POLICY_OF[kind], "auto", unit=unit) != "ask":
        return options[0]
    if replay["used"] < len(replay["answers"]):
        answer = replay["answers"][replay["used"]]
        if answer in options:
            replay["used"] += 1
            return answer
    # ask; answers given ahead that do not fit this choice are dropped (`retreat a b c` answers
    # the next choices in order while they fit)
    raise NeedChoice(kind, side, options, prompt, section, unit, labels,
                     answered=replay["answers"][:replay["used"]])
