"""The game model every ruleset shares (DESIGN: `apply(state, command) -> (state, events)`).

A `Ruleset` is a pure object: it loads scenarios, creates the first state from a scenario and a
seed, applies one command for one side, and says who must act. A `Game` bundles a scenario, its
seed, the accepted commands and the current state: replaying the commands from the seed gives the
same state, bit for bit (principle 1), which is how the store resumes, undoes and audits games.
"""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol

from .commands import Command, dice_faces, parse
from .dice import PHYSICAL_DICE, DiceStream
from .errors import Illegal
from .events import Event


class Ruleset(Protocol):
    id: str
    name: str
    sides: tuple[str, ...]

    def scenarios(self) -> list[tuple[str, str]]: ...
    def load_scenario(self, scenario_id: str) -> Any: ...
    def parse_scenario(self, text: str, source: str = "<upload>") -> Any: ...
    def new_state(self, scenario: Any, seed: int | str, options: Any = None) -> Any: ...
    # optional: `game_options(scenario) -> [(id, description)]`, the optional rules a game of
    # this scenario may be created with (a list of those ids is the `options` of new_state)
    def apply(self, scenario: Any, state: Any, side: str, command: Command) -> tuple[Any, list[Event]]: ...
    def to_act(self, state: Any) -> str | None: ...
    def status(self, scenario: Any, state: Any, viewer: str | None = None) -> str: ...
    def state_to_dict(self, state: Any) -> dict: ...
    def state_from_dict(self, d: dict) -> Any:
        """The state `d` (from `state_to_dict`, or decoded JSON) describes. The state keeps `d`'s
        lists and dicts rather than copying them (issue 13: a copy was half of loading a TACW
        keyframe), so pass a dict nobody else holds: a freshly decoded one."""
    def completions(self, scenario: Any, state: Any, side: str | None, kind: str, prefix: str,
                    context: dict | None = None) -> list[tuple[str, str]]: ...


_RULESETS: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    _RULESETS[ruleset.id] = ruleset
    return ruleset


def get_ruleset(ruleset_id: str) -> Ruleset:
    _load_builtin()
    try:
        return _RULESETS[ruleset_id]
    except KeyError:
        raise KeyError(f"unknown ruleset '{ruleset_id}' (known: {', '.join(sorted(_RULESETS))})") from None


def rulesets(include_unfinished: bool = False) -> dict[str, Ruleset]:
    """The registered rulesets. A ruleset still being built says `playable = False`; it is
    left out of what players are offered until it is complete."""
    _load_builtin()
    return {k: v for k, v in _RULESETS.items() if include_unfinished or getattr(v, "playable", True)}


ENTRY_POINT_GROUP = "herald.rulesets"
_FOUND: dict[str, Ruleset] | None = None       # the installed rulesets, read once


def _load_builtin() -> None:
    """Find the installed rulesets: every `herald.rulesets` entry point (pyproject.toml lists the
    built-in ones there; a club's ruleset installed as a package adds its own), read once and
    registered on every call, so importing one ruleset first never hides the others. Core names
    no ruleset: it only receives them. A ruleset that fails to load is left out with a warning,
    never taking the others down."""
    global _FOUND
    if _FOUND is None:
        import logging
        from importlib.metadata import entry_points
        found: dict[str, Ruleset] = {}
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            try:
                ruleset = ep.load()
            except Exception:
                logging.getLogger(__name__).warning("ruleset entry point %s (%s) failed to load", ep.name,
                                                    ep.value, exc_info=True)
                continue
            found[ruleset.id] = ruleset
        _FOUND = found
    for rid, ruleset in _FOUND.items():
        _RULESETS.setdefault(rid, ruleset)


def new_state(rs: Ruleset, scenario: Any, seed: int | str, options: Any = None) -> Any:
    """The ruleset's first state, with the game options when there are any."""
    return rs.new_state(scenario, seed, options) if options else rs.new_state(scenario, seed)


def game_options(rs: Ruleset, scenario: Any) -> list[tuple[str, str]]:
    """The optional rules a game of `scenario` may be created with: (id, description)."""
    fn = getattr(rs, "game_options", None)
    return list(fn(scenario)) if fn else []


def option_name(option_id: str) -> str:
    """How an optional rule is shown and typed, one style for all: lower case, words joined by
    hyphens (`eight-turns`, `york-1`, `series-charge-nearest`)."""
    return str(option_id).strip().lower().replace("_", "-").replace(" ", "-")


def canonical_options(rs: Ruleset, scenario: Any, options: Any) -> Any:
    """The chosen optional rules as the ruleset knows them, whichever spelling was typed
    (`eight-turns`, `eight_turns`, `Eight-Turns`); a word that names none is left as it is, for
    the caller's refusal. Options that are not a list of ids (Battle Cry's seats) are unchanged."""
    if not isinstance(options, (list, tuple)):
        return options
    by_name = {option_name(oid): oid for oid, _ in game_options(rs, scenario)}
    return [by_name.get(option_name(o), o) for o in options]


# Issue 13: a replay of a stored log (`replay_in_place`) keeps none of the states between its
# commands, so its commands change one working state in place instead of copying it each time.
_IN_PLACE: ContextVar[bool] = ContextVar("herald_in_place", default=False)


class NotInPlace(Exception):
    """Raised by a ruleset when a command cannot be applied in place (it stopped for a player's
    choice and must leave the state as it found it): `replay_in_place` starts again with copies."""


def in_place() -> bool:
    """Whether commands are being applied in place (inside `replay_in_place`)."""
    return _IN_PLACE.get()


def replay_in_place(ruleset: Any, scenario: Any, state: Any, lines) -> tuple[Any, list[list[Event]]]:
    """Apply a stored log's `lines` ((side, Command or text), referee corrections included) to a
    copy of `state`, changing that one copy in place: one copy for the whole replay instead of
    one a command. A command that cannot run in place (`NotInPlace`: it stopped for a choice)
    or fails sends the whole replay again the ordinary way, one copy a command, which then
    raises what the log's error is. Returns the final state and each command's events."""
    from .referee import apply_command
    work = state.copy()
    token = _IN_PLACE.set(True)
    try:
        out = []
        for side, cmd in lines:
            work, events = apply_command(ruleset, scenario, work, side, cmd)
            out.append(events)
        return work, out
    except Exception:
        pass
    finally:
        _IN_PLACE.reset(token)
    out = []
    for side, cmd in lines:
        state, events = apply_command(ruleset, scenario, state, side, cmd)
        out.append(events)
    return state, out


def run_command(state: Any, cmd: Command, body: Callable[[Any, DiceStream], list[Event]]) -> tuple[Any, list[Event]]:
    """The frame every ruleset's `apply` shares (DESIGN principle 1): work on a copy of the
    state, draw dice from the recorded stream (the command's own results first), refuse results
    the command did not need, and keep the stream position in the new state. `body(st, stream)`
    runs the rules on the copy and returns the events. The stream carries the copy
    (`stream.working`): a what-if that stops before a die reads the adjudication in progress
    there (engine/core/odds.py). Inside `replay_in_place` the state itself is the working one."""
    st = state if _IN_PLACE.get() else state.copy()
    stream = DiceStream(st.seed, st.draws, list(cmd.dice), strict=PHYSICAL_DICE.get(), working=st)
    events = body(st, stream)
    if stream.supplied and cmd.exact_dice:
        raise Illegal(f"{len(stream.supplied)} supplied die result(s) were not needed by this command")
    st.draws = stream.draws
    return st, events


def try_command(game: "Game", side: str, line: str, out: list[tuple[str, str]]) -> bool:
    """Apply `line` if the rules accept it, recording it in `out` (the autoplayers' step)."""
    from .errors import HeraldError
    try:
        game.apply(side, line)
    except HeraldError:
        return False
    out.append((side, line))
    return True


def autoplay(game: "Game", step: Callable[["Game"], list[tuple[str, str]]],
             max_commands: int = 5000) -> list[tuple[str, str]]:
    """Play `game` on with an autoplayer's `step` (the lines it got accepted, each (side, line))
    until the battle is over, `max_commands` lines, or four steps in a row find nothing legal."""
    script: list[tuple[str, str]] = []
    stalls = 0
    while game.state.phase != "over" and len(script) < max_commands:
        lines = step(game)
        script += lines
        stalls = stalls + 1 if not lines else 0
        if stalls > 3:
            break
    return script


def script_text(game: "Game", title: str, writer: str, lines: list[tuple[str, str]]) -> str:
    """A replayable script file (the CLI's and the demo's format) for an autoplayed game."""
    head = [f"# Herald demo: {game.scenario.title}, {title}",
            f"# Written by {writer} and replayed by `herald demo`; every line is an",
            "# ordinary command, as a player would type it (side: command).",
            f"# seed: {game.seed}"]
    return "\n".join(head + [f"{side}: {line}" for side, line in lines]) + "\n"


def demo_script(ruleset_id: str, scenario_id: str, seed: int, play: Callable[["Game"], list[tuple[str, str]]],
                writer: str, players: str = "commanders") -> str:
    """The text of a demo script (bot/demos/<ruleset>--<battle>.txt): a new game of `scenario_id`
    with `seed` played to its end by an autoplayer's `play(game)`; `writer` its module."""
    game = Game.new(ruleset_id, scenario_id, seed)
    return script_text(game, f"played to the end by two scripted {players}.", writer, play(game))


def print_demo_script(write: Callable[[str, int], str], argv: list[str]) -> None:
    """`python -m engine.<ruleset>.autoplay <battle> <seed>`: print `write(battle, seed)`."""
    import sys
    sys.stdout.write(write(argv[1], int(argv[2])))


@dataclass
class Record:
    """One accepted command: who gave it, the line, the dice it consumed, the events."""
    side: str
    text: str
    events: list[Event]
    dice: tuple[int, ...] = ()


@dataclass
class Game:
    ruleset: Ruleset
    scenario: Any
    seed: int | str
    state: Any
    history: list[Record] = field(default_factory=list)
    options: Any = None               # the game options chosen at creation (optional rules)

    @classmethod
    def new(cls, ruleset_id: str, scenario_id: str, seed: int | str, scenario: Any = None,
            options: Any = None) -> "Game":
        """A new game; `options` are the game options chosen at creation (optional rules)."""
        rs = get_ruleset(ruleset_id)
        sc = scenario if scenario is not None else rs.load_scenario(scenario_id)
        options = canonical_options(rs, sc, options)
        return cls(rs, sc, seed, new_state(rs, sc, seed, options), options=options)

    def apply(self, side: str, line: str | Command, dice_queue: list[int] | None = None) -> list[Event]:
        """Apply one command; on any HeraldError the game is untouched.

        `dice_queue` (the CLI's --dice, or a club's physical dice) is drawn from in order; the
        results this command used are removed from it and recorded with the command, so the
        game replays exactly."""
        cmd = parse(line, dice_faces(self.ruleset)) if isinstance(line, str) else line
        if dice_queue and not cmd.dice:
            cmd = replace(cmd, dice=tuple(dice_queue), exact_dice=False)
        from .referee import apply_command     # a referee's correction replays too
        new_state, events = apply_command(self.ruleset, self.scenario, self.state, side, cmd)
        used = sum(len(e.dice) for e in events) if not cmd.exact_dice else len(cmd.dice)
        used = min(used, len(cmd.dice))
        if not cmd.exact_dice:
            del dice_queue[:used]
            cmd = replace(cmd, dice=cmd.dice[:used], exact_dice=True)
        self.state = new_state
        self.history.append(Record(side, cmd.text, events, cmd.dice))
        return events

    def replay(self, records: list[tuple[str, str]]) -> None:
        """Apply a trusted script (the CLI's --load, the demos): in place, one copy in all."""
        cmds = [(side, parse(text, dice_faces(self.ruleset))) for side, text in records]
        self.state, events = replay_in_place(self.ruleset, self.scenario, self.state, cmds)
        for (side, cmd), evs in zip(cmds, events):
            self.history.append(Record(side, cmd.text, evs, cmd.dice))

    @property
    def to_act(self) -> str | None:
        return self.ruleset.to_act(self.state)


def import_rule_packages(base: str, packages) -> None:
    """Import every module of a ruleset's rule packages (`base`.`package`.*, in name order, "_"
    modules aside), so each registers its verbs; a package not written yet is skipped."""
    import importlib
    import pkgutil
    for pkg_name in packages:
        full = f"{base}.{pkg_name}"
        try:
            pkg = importlib.import_module(full)
        except ModuleNotFoundError as e:
            if e.name == full:
                continue
            raise
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{full}.{info.name}")
