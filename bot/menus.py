"""What the action menus offer (issue 12, "a turn played from a phone"): the legal next actions of
the side the game waits on, built from the ruleset's declared verbs (engine/core/verbs.py) and its
completions, the same ones that complete `/act` and the slash options. No Discord here: bot/views.py
turns a `Step` into select menus and buttons.

A line of the command language is built one word at a time: the verb, then each option from
`complete_line`'s candidates. Completions are cheap but loose (Battle Cry offers every unit to
`move`, ordered or not), so a choice is offered only when some line through it is accepted by the
rules: a complete line is tried with `ruleset.apply` on the committed state (a pure function: the
state is copied, the dice come from the recorded stream and the result is thrown away), and an
incomplete one is searched depth-first for one accepted completion, within a budget of tries
(`SEARCH_TRIES` each). A choice is offered once a line through it was accepted; the choices of a
step left unsearched when the step's own budget (`STEP_TRIES`) is spent are offered as they are
(the rules refuse a bad one privately at worst).

Which verbs: those with a slash command of their own (`surface`), applied in public (`reply`
"action"), that are not standing policies. Answers to a pending decision keep their own buttons
(bot/views.py `decision_view`), so menus are built only while no decision waits.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core.commands import parse
from engine.core.verbs import (WEIGH_CANDIDATES, CommandSet, Option, Verb, available, command_set,
                               complete_line)

MAX_CHOICES = 25            # Discord: options of a select menu
PAGE = 24                   # choices on a page when more follow (the 25th option: "more choices")
MAX_CANDIDATES = 100        # the ruleset's completions asked for one word
VERB_TRIES = 120            # rule checks to find one accepted line through a verb
SEARCH_TRIES = 30           # rule checks to find one accepted line through a choice
STEP_TRIES = 500            # rule checks for all the choices of one step
QUICK_WIDTH = 12            # complete next lines tried first, before looking deeper
PROBE_DEPTH, PROBE_WIDTH = 2, 4     # how far a list the rules refused so far is looked down


@dataclass(frozen=True)
class Choice:
    label: str              # what the player reads (<= 100 characters)
    line: str               # the whole line once chosen
    ready: bool             # that line may be sent as it is
    description: str = ""


@dataclass
class Step:
    """One step of building a line: the line so far, what may come next, whether it may be sent."""
    line: str
    verb: Verb | None
    choices: list[Choice] = field(default_factory=list)
    ready: bool = False       # the line as it stands is accepted by the rules
    prompt: str = ""          # what to choose next
    left_off: int = 0         # choices not offered (a line too long for a button)
    page: int = 0
    next_page: int | None = None    # more choices follow, on this page


def _positional(verb: Verb) -> list[Option]:
    return [o for o in verb.options if not o.is_flag and not o.word]


def _keyword_at(verb: Verb, rest: list[str]) -> int | None:
    """Where the first `word` option's keyword stands among the words after the verb (a list
    option ends there: `assault f-44e f-101e on 0309`), or None."""
    keys = {o.word for o in verb.options if o.word}
    return next((k for k, w in enumerate(rest) if w in keys), None)


def next_option(verb: Verb, words: list[str]) -> Option | None:
    """The option the next word fills (None once the positional options are given)."""
    rest = words[1:]
    if rest and any(o.word == rest[-1] for o in verb.options if o.word):
        return next(o for o in verb.options if o.word == rest[-1])
    if _keyword_at(verb, rest) is not None:      # past the positional options
        return None
    i = 0
    for o in _positional(verb):
        if o.multi:
            return o
        if i >= len(rest):
            return o
        i += 1
    return None


def line_complete(verb: Verb, words: list[str]) -> bool:
    """Every needed option of the verb has its word(s), and no keyword waits for its value."""
    rest = words[1:]
    if rest and any(o.word == rest[-1] for o in verb.options if o.word):
        return False
    if any(o.word and o.needed and o.word not in rest for o in verb.options):
        return False                            # a needed `word` option (`on <hex>`) is missing
    cut = _keyword_at(verb, rest)
    rest = rest if cut is None else rest[:cut]
    i = 0
    for o in _positional(verb):
        if o.multi:
            return bool(rest[i:]) or not o.needed
        if i >= len(rest):
            return not o.needed
        i += 1
    return True


def offered(verb: Verb) -> bool:
    """A verb the menus may offer: a public action with its own command, not a standing policy."""
    return (verb.surface and verb.reply == "action"
            and not any(o.kind.startswith("policy") for o in verb.options))


class Menus:
    """The menus of one side on one committed state."""

    def __init__(self, ruleset: Any, scenario: Any, state: Any, side: str, max_line: int = 100,
                 may: Any = None):
        """`may(line)`: whether the player who opened the menus may give `line` (a wing's own
        player only for his wing: the service's `acting_side`); None for the side's menus."""
        self.ruleset, self.scenario, self.state, self.side = ruleset, scenario, state, side
        self.may = may
        self.commands: CommandSet | None = command_set(ruleset)
        self.max_line = max_line
        self._legal: dict[str, bool] = {}
        self._candidates: dict[tuple[str, bool], list[tuple[str, str]]] = {}

    # -- the ruleset's answers ----------------------------------------------------------------
    def complete(self, kind: str, prefix: str, context: dict, head: str = "") -> list[tuple[str, str]]:
        return self.ruleset.completions(self.scenario, self.state, self.side, kind, prefix, context, head)

    def legal(self, line: str) -> bool:
        """Whether the rules accept `line` now (tried on a copy; nothing is kept)."""
        if line not in self._legal:
            try:
                if self.may is not None and not self.may(line):
                    raise PermissionError(line)
                self.ruleset.apply(self.scenario, self.state, self.side, parse(line))
                self._legal[line] = True
            except Exception:            # a refusal, or a line the rules cannot read
                self._legal[line] = False
        return self._legal[line]

    def verb_of(self, line: str) -> Verb | None:
        words = line.split()
        return self.commands.verb(words[0]) if words and self.commands is not None else None

    def complete_now(self, line: str) -> bool:
        verb = self.verb_of(line)
        return verb is not None and line_complete(verb, line.split())

    def candidates(self, line: str) -> list[tuple[str, str]]:
        """(label, next line) for each word `complete_line` offers after `line`; no placeholders,
        no `dice=` (Herald rolls; the players' own dice are typed)."""
        if self.commands is None:
            return []
        line = line.strip()
        key = (line, WEIGH_CANDIDATES.get())     # labels weighed (odds) only for what is shown
        if key in self._candidates:
            return self._candidates[key]
        out = []
        for label, full in complete_line(self.commands, line + " ", self.complete, limit=MAX_CANDIDATES):
            full = full.strip()
            if full == line or not full.startswith(line + " ") or full.endswith("dice="):
                continue
            word = full[len(line) + 1:]
            label = label[len(line) + 1:] if label.startswith(line + " ") else label
            said = label.split(" — ", 1)
            if len(said) == 2 and said[1].startswith(word):      # "ui1 — ui1 (Burnside) in 0503"
                label = said[1]
            out.append((label or word, full))
        seen: set[str] = set()                  # one choice per line (a select's values are unique)
        self._candidates[key] = [(n, f) for n, f in out if not (f in seen or seen.add(f))]
        return self._candidates[key]

    def tried(self, line: str, budget: list[int]) -> bool:
        """`legal`, counting a new check against the budget."""
        if line not in self._legal:
            budget[0] -= 1
        return self.legal(line)

    def viable(self, line: str, budget: list[int]) -> bool | None:
        """Whether some line through `line` is accepted: True, False, or None (out of budget).
        Each rule check and each list of candidates costs one from `budget`. A search: the
        completions are asked for their values only, not to weigh their labels."""
        token = WEIGH_CANDIDATES.set(False)
        try:
            return self._viable(line, budget)
        finally:
            WEIGH_CANDIDATES.reset(token)

    def viable_any(self, line: str, tries: int) -> bool | None:
        """`viable`, the budget shared among the next words: a first word that leads nowhere (a
        unit that may not move at all) does not spend the search of the others."""
        token = WEIGH_CANDIDATES.set(False)
        try:
            nexts = [full for _, full in self.candidates(line)]
        finally:
            WEIGH_CANDIDATES.reset(token)
        if self.complete_now(line) or len(nexts) < 2:
            return self.viable(line, [tries])
        share, unknown = max(SEARCH_TRIES // 2, tries // len(nexts)), False
        for full in nexts:
            if tries <= 0:
                return None
            mine = [min(share, tries)]
            given = mine[0]
            found = self.viable(full, mine)
            tries -= given - mine[0]
            if found:
                return True
            unknown = unknown or found is None
        return None if unknown else False

    def _viable(self, line: str, budget: list[int]) -> bool | None:
        if self.complete_now(line):
            if self.tried(line, budget):
                return True
            if not self._may_mend(line):         # a list refused so far: a short look further
                return self._probe(line, budget, PROBE_DEPTH)
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        nexts = [full for _, full in self.candidates(line)]
        for full in nexts[:QUICK_WIDTH]:         # the quick way: a complete next line accepted
            if budget[0] <= 0:
                return None
            if self.complete_now(full) and self.tried(full, budget):
                return True
        for full in nexts:                       # a first look one word further down each
            if budget[0] <= 0:
                return None
            if self.complete_now(full):
                continue
            budget[0] -= 1
            probe = next((f for _, f in self.candidates(full) if self.complete_now(f)), None)
            if probe is not None and self.tried(probe, budget):
                return True
        unknown = False
        for full in nexts:                       # then deeper (an optional word may make it good)
            if budget[0] <= 0:
                return None
            found = self._viable(full, budget)
            if found:
                return True
            unknown = unknown or found is None
        return None if unknown else False

    def _probe(self, line: str, budget: list[int], depth: int) -> bool:
        """A narrow look down a list the rules refused so far (a TACW path that turns before it
        moves): the first few next words, and below the first two of them; at the first level also
        the words that may mend the list as it stands (`_mends`)."""
        if depth <= 0 or budget[0] <= 0:
            return False
        budget[0] -= 1
        nexts = [full for _, full in self.candidates(line)]
        menders = [f for f in nexts[PROBE_WIDTH:] if self._mends(line, f)] if depth == PROBE_DEPTH else []
        nexts = nexts[:PROBE_WIDTH] + menders
        for full in nexts:
            if budget[0] <= 0:
                return False
            if self.complete_now(full) and self.tried(full, budget):
                return True
        return any(self._probe(full, budget, depth - 1) for full in nexts[:2])

    def _mends(self, line: str, full: str) -> bool:
        """Whether the next words `full` adds to a refused list may mend it rather than lengthen it:
        a flag of the verb (JdG's `forced`) or a word with its value (`face nw`, a stack's facing)."""
        added = full.split()[len(line.split()):]
        verb = self.verb_of(line)
        flags = {o.flag for o in verb.options if o.flag} if verb is not None else set()
        return len(added) > 1 or (len(added) == 1 and added[0] in flags)

    def _may_mend(self, line: str) -> bool:
        """Whether more words may make a refused complete line good: an optional word may (Battle
        Cry's Fire and Hold needs its section), more words of a list already begun may not."""
        verb = self.verb_of(line)
        words = line.split()
        option = next_option(verb, words) if verb is not None else None
        return not (option is not None and option.multi and self._list_begun(verb, words))

    @staticmethod
    def _list_begun(verb: Verb, words: list[str]) -> bool:
        """The verb's list option already holds a word."""
        before = 0
        for o in _positional(verb):
            if o.multi:
                return len(words) - 1 > before
            before += 1
        return False

    # -- what the player sees -------------------------------------------------------------------
    def verbs(self) -> list[Choice]:
        """The verbs the side may use now, each with a line through it the rules accept."""
        if self.commands is None:
            return []
        out = []
        for verb in self.commands.verbs:
            if not offered(verb) or not available(verb, self.ruleset, self.scenario):
                continue                         # not an action, or not of this battle
            ready = line_complete(verb, [verb.name])
            if ready and self.legal(verb.name):
                ok: bool | None = True
            else:
                ok = self.viable_any(verb.name, VERB_TRIES)
            if ok:
                out.append(Choice(f"{verb.name} — {verb.description}"[:100], verb.name,
                                  ready and self.legal(verb.name), verb.section[:100]))
        return out

    def step(self, line: str, page: int = 0) -> Step:
        """The choices after `line` (the verbs when it is empty), and whether it may be sent;
        more than 25 choices come in pages of 24, each with the number of the next."""
        line = " ".join(line.split())
        if not line:
            choices = self.verbs()
            return Step("", None, choices[:MAX_CHOICES], False, "choose an action",
                        max(0, len(choices) - MAX_CHOICES))
        verb = self.verb_of(line)
        if verb is None:
            return Step(line, None, [], False, "not a command of this game: use /act")
        words = line.split()
        ready = line_complete(verb, words) and self.legal(line)
        option = next_option(verb, words)
        if option is not None:
            prompt = f"choose {option.name}: {option.description}"
        else:
            prompt = "add an optional word, or send" if ready else "send"
        budget = [STEP_TRIES]
        choices, left = [], 0
        start = page * PAGE
        for label, full in self.candidates(line):
            if len(choices) > start + MAX_CHOICES:
                break                              # enough to know another page follows
            if len(full) > self.max_line:
                left += 1
                continue
            if budget[0] > 0:                   # searched: offered once a line through it is accepted
                mine = [min(SEARCH_TRIES, budget[0])]
                given = mine[0]
                ok: bool | None = bool(self.viable(full, mine))
                budget[0] -= given - mine[0]
            else:
                ok = None                         # not searched: offered, the rules judge it
            if ok is False:
                continue
            choices.append(Choice(label[:100], full, self._legal.get(full, False), full[:100]))
        if len(choices) - start > MAX_CHOICES:    # a page of 24 and "more choices"
            return Step(line, verb, choices[start:start + PAGE], ready, prompt, left, page, page + 1)
        return Step(line, verb, choices[start:], ready, prompt, left, page)
