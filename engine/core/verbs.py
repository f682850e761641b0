"""A ruleset's verbs declared as data (DESIGN: the command surface; principle 5, one command
language).

Each ruleset lists its verbs as `Verb` records: the command-language word, what it does, the
rulebook section, the phase it belongs to, and each option with its completion kind. From that one
declaration:

- the bot builds the ruleset's slash commands (one top-level group per ruleset, subcommand groups
  named after the rulebook's phases when it has more than 25 verbs; bot/cogs/rulesets.py), with
  no bot code of the ruleset's own;
- `line_for` turns the options a player filled in into the line the CLI reads, so a slash command
  and a typed line reach the engine the same way;
- `complete_line` completes a whole line of the command language (the `/act` option): the verb
  first, then each argument from the ruleset's completions;
- the CLI's `help` lists the verbs with their sections.

Nothing here knows a ruleset: a ruleset hands its declaration over as its `commands` attribute.
"""
from __future__ import annotations

import keyword
import re
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Iterable

from .errors import Illegal

WEIGH_CANDIDATES: ContextVar[bool] = ContextVar("weigh_candidates", default=True)
"""Whether a ruleset's completions may spend time weighing each candidate for its label (TACW's
targets carry their exact odds): False while a caller only searches for a line the rules accept
(bot/menus.py), which needs the values, not the labels."""

NAME_RE = re.compile(r"^[a-z0-9_-]{1,32}$")     # Discord's option and command names, lower case
MAX_DESCRIPTION = 100                            # Discord: a description of 1-100 characters
MAX_CHOICE = 100                                 # an autocomplete choice's name and value


@dataclass(frozen=True)
class Option:
    """One argument of a verb, in the order the line takes it.

    kind     the completion kind asked of `ruleset.completions` ("" for free text)
    choices  fixed (label, value) pairs instead of completions
    multi    a space-separated list: it takes every remaining word of the line
    context  names of earlier options the completions may read (e.g. the unit that fires)
    flag     a yes/no option: when set, this word is added to the line (e.g. "alone")
    word     the line takes the value after this word (e.g. "facing NE", "for r-left")
    compact  spaces are dropped from the value ("2905, 2906" -> "2905,2906")
    phrase   the value may be several words (a card's name, "fire and hold"; two hexes of a double
             unit): the handler reads it and refuses any word left over itself (see `extra_words`)
    """
    name: str
    description: str
    kind: str = ""
    required: bool = True
    choices: tuple[tuple[str, str], ...] = ()
    multi: bool = False
    context: tuple[str, ...] = ()
    flag: str = ""
    word: str = ""
    compact: bool = False
    phrase: bool = False

    @property
    def is_flag(self) -> bool:
        return bool(self.flag)

    @property
    def needed(self) -> bool:
        """Must be given: a required option that is not a flag (a flag is always optional)."""
        return self.required and not self.is_flag


@dataclass(frozen=True)
class Verb:
    """One verb of a ruleset's command language.

    reply    "action": applied, answered in public with the board; "query": read-only, answered
             only to the asker (a hand of cards, a list of ids); "secret": applied, answered only
             to the asker with `secret_reply` (a hidden placement), the public log hiding it
    phase    the subcommand group it is listed under when the ruleset needs groups
    dice     the verb may roll: a `dice` option takes the players' own results (physical dice)
    surface  False: the verb is in the command language (and /act) but gets no slash command of
             its own (a step word explained by its usage, a verb another command covers)
    when     the feature of a battle the verb belongs to (a scenario's special rule, e.g. First
             Newbury's "halt"): the CLI's `help` and /act's completion offer it only in a battle
             that has it (the ruleset's `offers(scenario, when)`, `available`); the slash
             commands keep every verb
    """
    name: str
    description: str
    section: str
    options: tuple[Option, ...] = ()
    phase: str = ""
    dice: bool = False
    reply: str = "action"
    secret_reply: str = ""
    surface: bool = True
    when: str = ""

    @property
    def usage(self) -> str:
        parts = [self.name]
        for o in self.options:
            if o.is_flag:
                parts.append(f"[{o.flag}]")
                continue
            word = f"{o.word} " if o.word else ""
            body = f"{word}<{o.name}>" + (" ..." if o.multi else "")
            parts.append(body if o.needed else f"[{body}]")
        if self.dice:
            parts.append("[dice=..]")
        return " ".join(parts)


@dataclass(frozen=True)
class Phase:
    """A subcommand group: the rulebook's name for a part of the turn."""
    name: str
    description: str


@dataclass(frozen=True)
class CommandSet:
    """A ruleset's whole command surface: its slash group, its phases and its verbs."""
    group: str                      # the top-level slash command, e.g. "bc", "tacw"
    description: str
    verbs: tuple[Verb, ...]
    phases: tuple[Phase, ...] = ()
    dice_help: str = "Your own dice results in order, e.g. 5,1,3 (optional; else Herald rolls)"

    def verb(self, name: str) -> Verb | None:
        name = (name or "").lower()
        for v in self.verbs:
            if v.name == name:
                return v
        return None

    @property
    def surface_verbs(self) -> tuple[Verb, ...]:
        return tuple(v for v in self.verbs if v.surface)

    def needs_phases(self) -> bool:
        return len(self.surface_verbs) > 25


def available(verb: Verb, ruleset: Any, scenario: Any) -> bool:
    """Whether the verb belongs to the battle being played: a verb with no `when` always does;
    one with a `when` does when the ruleset `offers(scenario, when)` (a ruleset without `offers`
    offers every verb)."""
    if not verb.when or scenario is None:
        return True
    offers = getattr(ruleset, "offers", None)
    try:
        return bool(offers(scenario, verb.when)) if offers is not None else True
    except Exception:           # a scenario of another shape: offer the verb, its handler refuses
        return True


def slash_description(verb: Verb) -> str:
    """The slash command's description: what the verb does and the section that says so."""
    return f"{verb.description} ({verb.section})"


def command_set(ruleset: Any) -> CommandSet | None:
    """The ruleset's declaration, or None for a ruleset that has none yet."""
    return getattr(ruleset, "commands", None)


# == from options to a line ======================================================================

def _clean(value: Any) -> str:
    return str(value).strip() if value is not None else ""


def line_for(verb: Verb, values: dict[str, Any]) -> str:
    """The command-language line for a verb with its options filled in (the slash command's
    values, by option name); empty options are left out, a flag adds its word when true, a `dice`
    value becomes `dice=..`."""
    words = [verb.name]
    for o in verb.options:
        value = values.get(o.name)
        if o.is_flag:
            if value is True or _clean(value).lower() in ("true", "yes", o.flag):
                words.append(o.flag)
            continue
        text = _clean(value)
        if not text:
            continue
        if o.compact:
            text = text.replace(" ", "")
        words.append(f"{o.word} {text}" if o.word else text)
    dice = _clean(values.get("dice"))
    if verb.dice and dice:
        words.append("dice=" + dice.replace(" ", ""))
    return " ".join(words)


# == refusing words the verb has no room for ======================================================

def extra_words(verb: Verb, args: Iterable[str]) -> list[str]:
    """The words of a command (after its verb, `dice=` aside) that the verb's declaration has no
    room for, in order: more values than it has options, a flag or a `word` option given twice.
    A verb with a `multi` or `phrase` option reads its own words (a path, a
    card's name) and is left to its handler: nothing is reported for it."""
    if any(o.multi or o.phrase for o in verb.options):
        return []
    positional = [o for o in verb.options if not o.is_flag and not o.word]
    flags = {o.flag for o in verb.options if o.is_flag}
    words = {o.word for o in verb.options if o.word}
    used: set[str] = set()
    out: list[str] = []
    rest = list(args)
    while rest:
        w = rest.pop(0)
        if w in flags and w not in used:
            used.add(w)
        elif w in words and w not in used:           # its value follows (the handler asks if not)
            used.add(w)
            if rest:
                rest.pop(0)
        elif positional:
            positional.pop(0)
        else:
            out.append(w)
    return out


def refuse_extra_words(commands: CommandSet | None, verb_name: str, args: Iterable[str],
                       section: str = "") -> None:
    """Refuse a command with words its verb has no room for, naming them and the verb's usage
    (`end 0105 banana`, `activate r-centre x y`): nothing of the command happens. `section`
    defaults to the verb's own rule section."""
    verb = commands.verb(verb_name) if commands is not None else None
    if verb is None:
        return
    extra = extra_words(verb, args)
    if extra:
        refuse_words(verb, extra, section)


def refuse_words(verb: Verb, extra: Iterable[str], section: str = "") -> None:
    """Raise the refusal of words left over by a verb (`extra_words`, or a handler that reads a
    phrase itself): "the word 'banana' is not part of the command: usage: end (BC §3.2 step 6)"."""
    extra = list(extra)
    if not extra:
        return
    quoted = " ".join(extra)
    what = "word" if len(extra) == 1 else "words"
    raise Illegal(f"the {what} '{quoted}' {'is' if len(extra) == 1 else 'are'} not part of the command: "
                  f"usage: {verb.usage}", section or verb.section)


# == completing a whole line (/act) ==============================================================

Completer = Any      # fn(kind, prefix, context, head) -> [(label, value)]


def _choice(label: str, value: str) -> tuple[str, str]:
    return label[:MAX_CHOICE], value[:MAX_CHOICE]


def _filter(pairs: Iterable[tuple[str, str]], prefix: str) -> list[tuple[str, str]]:
    p = prefix.lower()
    return [(n, v) for n, v in pairs if not p or v.lower().startswith(p) or p in n.lower()]


def option_candidates(option: Option, complete: Completer, prefix: str, context: dict,
                      head: str = "") -> list[tuple[str, str]]:
    """What may fill `option` now: its fixed choices, or the ruleset's completions of its kind."""
    if option.choices:
        return _filter(option.choices, prefix)
    if not option.kind:
        return []
    try:
        return list(complete(option.kind, prefix, context, head))
    except Exception:            # a completion never breaks typing
        return []


def _verb_label(verb: Verb) -> str:
    return f"{verb.usage} — {verb.description} ({verb.section})"


def complete_line(commands: CommandSet, line: str, complete: Completer, *,
                  first: Iterable[str] = (), limit: int = 25,
                  offered: Any = None) -> list[tuple[str, str]]:
    """Completions of a whole line of the command language: (label, full line) pairs.

    The verb first (those in `first`, e.g. the answer the game waits for, ahead of the rest),
    then the verb's options in order, each from the ruleset's completions with the options already
    typed as context; a multi-word option completes its last word; once the required options are
    given, the optional words (flags, `facing ...`, `dice=`) are offered. `offered(verb)`: whether
    a verb is offered as the first word (`available` in the battle being played)."""
    text = line or ""
    words = text.split()
    partial = "" if (not words or text.endswith(" ")) else words.pop()
    if not words:                                   # the verb itself
        order = list(dict.fromkeys([*first, *(v.name for v in commands.verbs)]))
        out = []
        for name in order:
            v = commands.verb(name)
            if v is not None and v.name.startswith(partial.lower()) and (offered is None or offered(v)):
                out.append(_choice(_verb_label(v), v.name + (" " if v.options or v.dice else "")))
        return out[:limit]
    verb = commands.verb(words[0])
    if verb is None:
        return [_choice(f"⚠ '{words[0]}' is not a {commands.group} command; clear the line to see them",
                        text.strip())]
    done = " ".join(words)
    context: dict[str, str] = {}
    positional = [o for o in verb.options if not o.is_flag and not o.word]
    extras = [o for o in verb.options if o.is_flag or o.word]
    rest = words[1:]
    current: Option | None = None
    head_words: list[str] = []
    i = 0
    pending_word: Option | None = None
    for o in positional:
        if i >= len(rest):
            current = o
            break
        if o.multi:
            head_words = rest[i:]
            keys = {x.word for x in extras if x.word}
            cut = next((k for k, w in enumerate(head_words) if w in keys), None)
            if cut is not None:             # the list ends at a later option's word (`assault a b on 0309`)
                head_words = head_words[:cut]
                context[o.name] = " ".join(head_words)
                i += cut
                break
            i = len(rest)
            current = o
            break
        context[o.name] = rest[i]
        i += 1
    tail = rest[i:]
    for o in extras:                               # words typed after the positional options
        if o.word and tail and tail[-1] == o.word:
            pending_word = o
    used = {w for w in tail} | set(head_words)
    out: list[tuple[str, str]] = []

    def add(label: str, value: str) -> None:
        out.append(_choice(f"{done} {value} — {label}" if label != value else f"{done} {value}",
                           f"{done} {value}"))

    if pending_word is not None:
        for label, value in option_candidates(pending_word, complete, partial, context):
            add(label, value)
        return out[:limit]
    if current is not None:
        head = " ".join(head_words)
        for label, value in option_candidates(current, complete, partial, context, head):
            add(label, value)
        if current.multi and head_words:           # a list may stop here: what may follow it
            current = None
        elif current.needed:
            if not out:
                out.append(_choice(f"{done} <{current.name}>: {current.description}", f"{done} {partial}".strip()))
            return out[:limit]
    for o in extras:                               # the optional words
        if o.is_flag and o.flag not in used and o.flag.startswith(partial.lower()):
            add(o.description, o.flag)
        elif o.word and o.word not in used and o.word.startswith(partial.lower()):
            add(o.description, o.word)
    if verb.dice and not any(w.startswith("dice=") for w in rest) and "dice=".startswith(partial.lower()[:5]):
        add(commands.dice_help, "dice=")
    return out[:limit]


# == checks a ruleset's declaration passes (used by its tests and the tree test) ================

def problems(commands: CommandSet, handled: Iterable[str] = ()) -> list[str]:
    """What is wrong with a declaration for Discord and for the engine: names, lengths, phases,
    and (given the verbs the engine handles) a verb declared but not handled or the reverse."""
    out: list[str] = []
    if not NAME_RE.match(commands.group):
        out.append(f"group name '{commands.group}'")
    if not 1 <= len(commands.description) <= MAX_DESCRIPTION:
        out.append(f"/{commands.group}: description of {len(commands.description)} characters")
    names = [v.name for v in commands.verbs]
    if len(set(names)) != len(names):
        out.append(f"/{commands.group}: a verb declared twice")
    phases = {p.name for p in commands.phases}
    for p in commands.phases:
        if not NAME_RE.match(p.name) or not 1 <= len(p.description) <= MAX_DESCRIPTION:
            out.append(f"/{commands.group} {p.name}: bad phase name or description")
    for v in commands.verbs:
        where = f"/{commands.group} {v.name}"
        if not NAME_RE.match(v.name):
            out.append(f"{where}: bad name")
        if not 1 <= len(v.description) <= MAX_DESCRIPTION:
            out.append(f"{where}: description of {len(v.description)} characters")
        elif v.surface and len(slash_description(v)) > MAX_DESCRIPTION:
            out.append(f"{where}: description with its section is {len(slash_description(v))} characters")
        if not v.section:
            out.append(f"{where}: no rule section")
        if commands.needs_phases() and v.surface and v.phase not in phases and v.phase != "":
            out.append(f"{where}: unknown phase '{v.phase}'")
        if v.reply not in ("action", "query", "secret"):
            out.append(f"{where}: reply '{v.reply}'")
        seen_optional = False
        onames = [o.name for o in v.options] + (["dice"] if v.dice else [])
        if len(set(onames)) != len(onames):
            out.append(f"{where}: an option declared twice")
        if len(onames) > 25:
            out.append(f"{where}: {len(onames)} options")
        for o in v.options:
            if not NAME_RE.match(o.name) or not 1 <= len(o.description) <= MAX_DESCRIPTION:
                out.append(f"{where} {o.name}: bad option name or description")
            elif not o.name.isidentifier() or keyword.iskeyword(o.name):
                out.append(f"{where} {o.name}: an option's name is a Python keyword or no identifier "
                           "(the slash command's parameter)")
            if o.needed and seen_optional:
                out.append(f"{where} {o.name}: required after optional")
            if not o.needed:
                seen_optional = True
            if len(o.choices) > 25:
                out.append(f"{where} {o.name}: more than 25 choices")
            for c in o.context:
                if c not in onames:
                    out.append(f"{where} {o.name}: context '{c}' is not an option")
    handled = set(handled)
    if handled:
        for name in sorted(handled - set(names)):
            out.append(f"/{commands.group}: the engine handles '{name}' but it is not declared")
        for name in sorted(set(names) - handled):
            out.append(f"/{commands.group}: '{name}' is declared but the engine does not handle it")
    return out


@dataclass(frozen=True)
class PolicyKind:
    """A standing answer a side may set (DESIGN: pending decisions): `policy <kind> <value>`."""
    kind: str
    key: str                                   # the key in state.policies
    values: tuple[tuple[str, str], ...]        # (value, what it does)
    default: str


def policy_completions(policies: Iterable[PolicyKind], mine: dict, kind: str, prefix: str,
                       context: dict) -> list[tuple[str, str]] | None:
    """The `policy_kind` and `policy_value` completions every ruleset shares: the kinds with the
    side's current setting, then the chosen kind's values with what each does. None for any other
    completion kind."""
    prefix = (prefix or "").lower().strip()
    table = {p.kind: p for p in policies}
    if kind == "policy_kind":
        return [(f"{p.kind}: {'|'.join(v for v, _ in p.values)} (now {mine.get(p.key, p.default)})", p.kind)
                for p in table.values() if prefix in p.kind]
    if kind == "policy_value":
        p = table.get(str(context.get("kind", "")).lower().strip())
        if p is None:
            return []
        return [(f"{v}: {text}", v) for v, text in p.values if prefix in v]
    return None



def set_policy(policies: Iterable[PolicyKind], st: Any, side: str, args: list[str]) -> Any:
    """The `policy` verb of a ruleset whose standing answers are declared PolicyKinds: `policy
    show` lists the side's answers, `policy <kind> <value>` sets one in `st.policies`. Returns the
    event; a wrong kind or value is refused naming the allowed ones."""
    from .errors import CannotParse, Illegal
    from .events import Event
    section = "DESIGN pending decisions"
    policies = tuple(policies)
    kinds = {p.kind: p for p in policies}
    if not args or args[0] == "show":
        mine = st.policies.get(side, {})
        text = ", ".join(f"{p.kind} {mine.get(p.key, p.default)}" for p in policies)
        return Event("policy", side, section, f"{side.title()}'s standing answers: {text}")
    kind = kinds.get(args[0].lower())
    if kind is None or len(args) < 2:
        raise CannotParse("usage: policy <kind> <value>; kinds: " + ", ".join(kinds))
    value = args[1].lower()
    allowed = [v for v, _ in kind.values]
    if value not in allowed:
        raise Illegal(f"policy {kind.kind}: one of {', '.join(allowed)}", section)
    st.policies.setdefault(side, {})[kind.key] = value
    return Event("policy", side, section, f"{side.title()}: policy {kind.kind} {value}: {dict(kind.values)[value]}")


def concede(st: Any, side: str, section: str) -> Any:
    """`resign`: `side` concedes; the other side wins and the battle is over (no decision stays
    owed). The Event for the log, citing `section`."""
    from .events import Event
    st.winner = st.other(side)
    st.result = f"{side.title()} resigns; {st.winner.title()} wins"
    st.phase = "over"
    st.pending = None
    return Event("resign", side, section, st.result, outcome={"winner": st.winner})
