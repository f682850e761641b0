"""History (issue 5, Club play): the board at any earlier point of a game, an animated replay of
the battle or of one turn, and a game as a file: exported, continued offline by the CLI
(`herald play --load FILE`), imported into a free channel.

Nothing here talks to Discord (bot/cogs/history.py is the slash-command face) and nothing decides
a rule. Every earlier state is the game replayed from its seed through its command log (DESIGN
principle 1), one command at a time through `GameService._replay`, the path that resumes a game,
so an undone command (migration 2: `commands.undone_at`) is passed over exactly as the game
passes over it; it keeps its log number, showing the board as it stood.

Points of a game
  at:<seq>    the board after log entry #seq as /game log numbers them (#0: the opening board).
  turn:<n>    the board at the start of turn n: the first state whose turn number is n. The number
              is the ruleset's `turn_of(state)` when it has one, else `state.turn` (Battle Cry: a
              player turn, BC §3.2; TACW: a Game Turn, TACW §3). `/game replay turn:n` runs from
              there to the start of turn n + 1 (the action that ends turn n included).
Hidden information: every board is drawn for the channel (viewer None: Battle Cry hands are
counted, never drawn; TACW's secret boat bridge is river until revealed), and each entry is
captioned with its events' narratives as the ruleset's public view of the command gives them
(engine/core/public.py `public_command`, the one function /explain uses too), with the secrets
as they stand now. Command lines are never shown. The GIF replay uses the same boards and
captions. A replay needs at least one action (an empty log, or a turn just begun, is refused).

Who gets a file (EXPORT_RULE): a finished battle's, anyone (posted in the channel). An
unfinished battle's file holds hidden information (the seed deals every card and every die
still to come, the log any secret record), so it goes only, privately, to the game's referee
(bot/club.py `is_referee`: appointed, of the referee role, or a server administrator who does
not play), or to a player once every player of every side has agreed by running /game export
(their consents are kept in the game's options: `export_consent`; every side must have a
player). Each such hand-over is said in the channel and kept in `exported_unfinished`. Anyone
else is refused, with the reason.

The file (`FORMAT`, version 1) is JSON:
  format, version, exported_at, game (its id), title, ruleset, ruleset_name, scenario,
  scenario_text (an uploaded scenario's text, else null), seed, options (the game options chosen
  at creation, any Discord id in them replaced by the player's name), seats ({side: [names]}:
  names only), status, result, hidden_information (true while the battle is unfinished: the seed
  deals every hand and every die still to come, and the log holds any secret record),
  commands [{seq, side, text, dice}] (dice: the rolls recorded with the command, as the store
  keeps them), state_hash (of the final state).
Loading it (the bot's import, the CLI's --load) replays it from the seed and refuses it unless
every command is legal, every command rolls exactly the recorded dice and the final state has the
recorded hash. The CLI's own log.json (bot/cli.py `Session.write_log`) has the same keys and
loads the same way.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import weakref
from collections import OrderedDict
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping, Sequence

from engine.core.commands import parse
from engine.core.errors import HeraldError
from engine.core.game import Game, Ruleset, game_options, get_ruleset, new_state
from engine.core.public import public_command
from engine.core.referee import REFEREE

from .service import GAME_OPTIONS, GameService, LoadedGame, NotAllowed, Refused, _seed_value
from .store import ChannelBusy, GameRow

log = logging.getLogger(__name__)

FORMAT = "herald-game"
VERSION = 1
MAX_FILE_BYTES = 4 * 1024 * 1024       # an exported Edgehill (~420 commands) is ~150 KB
MAX_COMMANDS = 5000
MAX_LINE = 500
MAX_SCENARIO_TEXT = 512 * 1024
IMPORTED = "imported"                  # games.options key: where an imported game came from
_SCENARIO_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


# --- the game's points ------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """The game after one log entry (seq 0: the opening board)."""
    seq: int
    side: str | None
    state: Any
    turn: int | None
    narratives: tuple[str, ...] = ()
    undone: bool = False        # a command taken back (bot/undo.py): the board stands as before it

    def caption(self, title: str = "") -> str:
        """One public line: turn, log number, side and what happened (never the command line)."""
        turn = f"Turn {self.turn} · " if self.turn is not None else ""
        if self.seq == 0:
            return f"{turn}#0 · {title or 'the battle'}: the opening board"
        what = " · ".join(n for n in self.narratives if n) or "(no public effect)"
        if self.undone:
            what += " (taken back: the board stands as before it)"
        side = f"{self.side.title()}: " if self.side else ""
        return f"{turn}#{self.seq} · {side}{what}"


def turn_of(rs: Ruleset, state: Any) -> int | None:
    """The state's turn number: the ruleset's `turn_of(state)` if it has one, else `state.turn`."""
    fn = getattr(rs, "turn_of", None)
    value = fn(state) if fn is not None else getattr(state, "turn", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _undone(command: Any) -> bool:
    """Not in force: taken back, or the record of an undo (bot/undo.py); replays pass over it."""
    return bool(getattr(command, "undone_at", None))


def _taken_back(command: Any) -> bool:
    from .undo import is_record
    return _undone(command) and not is_record(command)


def public_narratives(rs: Ruleset, sc: Any, now: Any, command: Any) -> tuple[str, ...]:
    """What everyone may read of a log entry: its events' narratives in the ruleset's public view
    (engine/core/public.py) as the game stands `now`; never the command line."""
    events = [e for e in (command.events or []) if isinstance(e, dict)]
    return public_command(rs, sc, now, command.side, command.text, events).narratives


def replay_steps(rs: Ruleset, sc: Any, first: Any, commands: Sequence[Any],
                 stop: Callable[[Step], bool] | None = None, now: Any = None) -> list[Step]:
    """Step 0 and the step after each command (store `CommandRow`s, in seq order), until `stop`
    says so. The captions are the public view with the secrets as they stand in `now` (the
    game's current state; by default the last state replayed). Blocking: the bot calls it
    through `asyncio.to_thread`."""
    steps = [Step(0, None, first, turn_of(rs, first))]
    if stop is not None and stop(steps[0]):
        return steps
    state = first
    raw = []
    for c in commands:
        if not _undone(c):
            state, _ = GameService._replay(rs, sc, state, [c])
        raw.append(c)
        steps.append(Step(c.seq, c.side, state, turn_of(rs, state), (), _taken_back(c)))
        if stop is not None and stop(steps[-1]):
            break
    now = state if now is None else now
    return [steps[0]] + [replace(s, narratives=public_narratives(rs, sc, now, c))
                         for s, c in zip(steps[1:], raw)]


@dataclass
class Point:
    """A past moment of a channel's game, ready to draw: `game` holds its state then."""
    game: LoadedGame
    step: Step
    caption: str
    last_seq: int


async def _game_parts(service: GameService, channel_id: int):
    """The channel's game (or its last finished one) and its whole log, commands taken back and
    the records of undos included (bot/undo.py): /game log numbers them all."""
    row = await service.game_row(channel_id, finished_ok=True)
    rs = service.ruleset_of(row.ruleset)
    sc = service.scenario_of(row, rs)
    return row, rs, sc, await service.store.commands(row.id, undone=True)


def _title(sc: Any, row: GameRow) -> str:
    return str(getattr(sc, "title", "") or row.scenario_id)


Ready = Callable[[], Awaitable[Any]] | None


async def _check_turn(service: GameService, row: GameRow, rs: Ruleset, sc: Any, turn: int,
                      now: Any) -> None:
    """Refuse a turn the game has not reached (turns only go up: from the opening board's turn
    to the current one), before any replay."""
    first = turn_of(rs, GameService._first_state(rs, sc, row))
    current = turn_of(rs, now)
    if first is None or current is None:
        raise Refused("this ruleset's states carry no turn number: pick a log entry with at:<#>")
    if not first <= turn <= current:
        raise Refused(f"game #{row.id} has turns {first} to {current} so far (/game status): pick one of those")


async def _turn_has_begun_now(service: GameService, row: GameRow, rs: Ruleset, sc: Any,
                              commands: Sequence[Any]) -> bool:
    """True when the game's current turn began with its last command in force (or the game has
    none): the turn has no action yet. Reads the snapshot before that command, not the log."""
    live = [c for c in commands if not _undone(c)]
    if not live:
        return True
    last = live[-1]
    snap = await service.store.snapshot_before(row.id, last.seq)
    base, state = (snap[0], rs.state_from_dict(snap[1])) if snap else (0, GameService._first_state(rs, sc, row))
    before, _ = GameService._replay(rs, sc, state, [c for c in live[:-1] if c.seq > base])
    after, _ = GameService._replay(rs, sc, before, [last])
    return turn_of(rs, before) != turn_of(rs, after)


async def board_at(service: GameService, channel_id: int, *, at: int | None = None,
                   turn: int | None = None, ready: Ready = None) -> Point:
    """The channel's game (or its last finished one) after log entry `at`, or at the start of
    `turn`. Every refusal (both or neither given, out of range) comes before `ready()` is
    awaited (the cog defers its reply there) and before the replay, which takes seconds.
    The board is the channel's view (the caller draws it for viewer None) and the caption the
    public view of the entry (engine/core/public.py) with the secrets as they stand now."""
    if (at is None) == (turn is None):
        raise Refused("give one point of the game: at:<log entry> (#0 is the opening board) or turn:<n>")
    row, rs, sc, commands = await _game_parts(service, channel_id)
    last = commands[-1].seq if commands else 0
    if at is not None and not 0 <= at <= last:
        raise Refused(f"game #{row.id} has log entries #0 (the opening board) to #{last} (/game log)")
    now = (await service.load_row(row)).state
    if turn is not None:
        await _check_turn(service, row, rs, sc, turn, now)
    if ready is not None:
        await ready()
    first = GameService._first_state(rs, sc, row)
    if at is not None:
        stop = (lambda s: s.seq >= at)
    else:
        stop = (lambda s: s.turn is not None and s.turn >= turn)
    steps = await asyncio.to_thread(replay_steps, rs, sc, first, commands, stop, now)
    step = steps[-1]
    game = LoadedGame(row, rs, sc, step.state, await service.store.seats(row.id), step.seq)
    where = f"at the start of turn {step.turn}" if turn is not None else f"after log entry #{step.seq}"
    head = f"Game #{row.id}, {_title(sc, row)}, {where} (of #{last}); the public board."
    return Point(game, step, f"{head}\n{step.caption(_title(sc, row))}", last)


# --- the animated replay ----------------------------------------------------------------------
@dataclass
class ReplayResult:
    replay: Any                 # renders.replay.Replay
    caption: str
    filename: str


_CACHE: "weakref.WeakKeyDictionary[GameService, OrderedDict]" = weakref.WeakKeyDictionary()
_LOCKS: "weakref.WeakKeyDictionary[GameService, asyncio.Lock]" = weakref.WeakKeyDictionary()
CACHE_SIZE = 4


PROGRESS_EVERY = 1.5        # seconds between two progress reports while a replay is drawn
Progress = Callable[[int, int], Awaitable[Any]] | None


async def replay(service: GameService, channel_id: int, turn: int | None = None,
                 ready: Ready = None, progress: Progress = None) -> ReplayResult:
    """The GIF of the whole battle so far, or of one turn. Refusals come before `ready()`. One
    replay is drawn at a time (CPU work of seconds); the last few are kept, keyed by the log
    they show. While it is drawn, `progress(done, total)` is awaited every PROGRESS_EVERY
    seconds with the boards done so far (the cog edits its reply with it)."""
    from renders.replay import MAX_BYTES, Frame, replay_gif

    row, rs, sc, commands = await _game_parts(service, channel_id)
    if not commands:
        raise Refused(f"game #{row.id} has no action in its log yet: nothing to replay (/game board "
                      "shows the opening board)")
    now = (await service.load_row(row)).state
    if turn is not None:
        await _check_turn(service, row, rs, sc, turn, now)
        if turn == turn_of(rs, now) and await _turn_has_begun_now(service, row, rs, sc, commands):
            raise Refused(f"turn {turn} has no action yet: nothing to replay (/game board turn:{turn} "
                          "shows its board)")
    if ready is not None:
        await ready()
    key = (row.id, turn, tuple((c.seq, _undone(c)) for c in commands))
    lock = _LOCKS.setdefault(service, asyncio.Lock())
    async with lock:
        cache = _CACHE.setdefault(service, OrderedDict())
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        first = GameService._first_state(rs, sc, row)
        stop = (lambda s: s.turn is not None and s.turn > turn) if turn is not None else None
        steps = await asyncio.to_thread(replay_steps, rs, sc, first, commands, stop)
        if turn is not None:
            start = next((i for i, s in enumerate(steps) if s.turn is not None and s.turn >= turn), None)
            if start is None:
                raise Refused(f"game #{row.id} has not reached turn {turn}")
            steps = steps[start:]
        title = _title(sc, row)
        frames = [Frame(s.state, s.caption(title)) for s in steps]
        made = await _drawn_with_progress(rs.id, sc, frames, progress)
        what = f"turn {turn}" if turn is not None else "the battle"
        span = f"#{steps[0].seq} to #{steps[-1].seq}"
        kept = (f"; one action in {made.stride} is shown (the file must stay under "
                f"{MAX_BYTES / 2**20:.1f} MiB to post on any server)"
                if made.stride > 1 else "")
        caption = (f"Replay of game #{row.id}, {title}: {what}, log entries {span}, "
                   f"{len(steps) - 1} action(s), {made.frame_ms / 1000:.2f} s each{kept}.")
        suffix = f"-turn{turn}" if turn is not None else ""
        result = ReplayResult(made, caption, f"game{row.id}{suffix}-replay.gif")
        cache[key] = result
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
        return result


async def _drawn_with_progress(ruleset_id: str, sc: Any, frames: list, progress: Progress) -> Any:
    """`replay_gif` in a thread (its boards in the render pool), with `progress` awaited on the
    event loop every PROGRESS_EVERY seconds while it runs: the worker thread only writes a
    counter, the loop reads it (no call into the loop from the thread)."""
    from renders.replay import replay_gif
    seen = {"done": 0, "total": len(frames)}

    def counted(done: int, total: int) -> None:           # called in the drawing thread
        seen["done"], seen["total"] = done, total

    task = asyncio.ensure_future(asyncio.to_thread(replay_gif, ruleset_id, sc, frames, progress=counted))
    reported = None
    while True:
        finished, _ = await asyncio.wait({task}, timeout=PROGRESS_EVERY)
        if finished:
            return task.result()
        now = (seen["done"], seen["total"])
        if progress is not None and now != reported:
            reported = now
            try:
                await progress(*now)
            except Exception:            # a failed edit never stops the drawing
                log.warning("replay progress report failed", exc_info=True)


# --- the file ---------------------------------------------------------------------------------
def state_hash(rs: Ruleset, state: Any) -> str:
    """The state's hash (GameState.state_hash; else the same recipe on `rs.state_to_dict`)."""
    fn = getattr(state, "state_hash", None)
    if callable(fn):
        return fn()
    blob = json.dumps(rs.state_to_dict(state), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _names_for_ids(value: Any, names: Mapping[str, str]) -> Any:
    """`value` with every string (or number) equal to a player's Discord id replaced by the
    player's name (a return game's options name its players: BC §6 Balancing)."""
    if isinstance(value, dict):
        return {k: _names_for_ids(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_names_for_ids(v, names) for v in value]
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) in names:
        return names[str(value)]
    return value


@dataclass
class Checked:
    """A file replayed and verified: the engine game at its end and the state after each command."""
    doc: dict
    game: Game
    states: list[Any]
    scenario_id: str
    scenario_text: str | None

    @property
    def over(self) -> bool:
        return self.game.to_act is None


def _refuse(text: str) -> Refused:
    return Refused(f"this game file cannot be loaded: {text}")


def parse_document(data: bytes | str) -> dict:
    """The file's JSON, its shape checked (not yet replayed): Refused names what is wrong."""
    if len(data) > MAX_FILE_BYTES:
        raise _refuse(f"it is {len(data)} bytes, over the {MAX_FILE_BYTES // 1024} KiB a game file may have")
    try:
        doc = json.loads(data)
    except UnicodeDecodeError:
        raise _refuse("it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise _refuse(f"it is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(doc, dict):
        raise _refuse("it is not a JSON object (a file from /game export is)")
    if doc.get("format", FORMAT) != FORMAT:
        raise _refuse(f"its format is {doc.get('format')!r}, not {FORMAT!r}")
    version = doc.get("version", VERSION)
    if not isinstance(version, int) or version > VERSION:
        raise _refuse(f"its version {version!r} is newer than this Herald reads ({VERSION})")
    for key, kinds in (("ruleset", str), ("scenario", str), ("seed", (str, int)), ("commands", list)):
        if not isinstance(doc.get(key), kinds) or isinstance(doc.get(key), bool):
            raise _refuse(f"'{key}' is missing or is not a {'list' if kinds is list else 'text'}")
    text = doc.get("scenario_text")
    if text is not None and (not isinstance(text, str) or len(text) > MAX_SCENARIO_TEXT):
        raise _refuse(f"'scenario_text' must be the scenario file's text (at most {MAX_SCENARIO_TEXT // 1024} KiB)")
    if text is None and not _SCENARIO_ID.match(doc["scenario"]):
        raise _refuse(f"'{doc['scenario'][:40]}' is not a scenario id")
    options = doc.get("options")
    if options is not None and not isinstance(options, (list, dict)):
        raise _refuse("'options' must be a list of optional rules (or the game options object)")
    if isinstance(options, list) and not all(isinstance(o, str) for o in options):
        raise _refuse("'options' must list optional rules by id")
    if len(doc["commands"]) > MAX_COMMANDS:
        raise _refuse(f"it has {len(doc['commands'])} commands, over the {MAX_COMMANDS} a file may have")
    for i, c in enumerate(doc["commands"], 1):
        if not isinstance(c, dict) or not isinstance(c.get("side"), str) or not isinstance(c.get("text"), str):
            raise _refuse(f"command {i} needs a 'side' and a 'text'")
        if len(c["text"]) > MAX_LINE:
            raise _refuse(f"command {i} is longer than {MAX_LINE} characters")
        if not isinstance(c.get("dice", []), list):
            raise _refuse(f"command {i}: 'dice' must be a list")
    if doc.get("state_hash") is not None and not isinstance(doc["state_hash"], str):
        raise _refuse("'state_hash' must be text")
    return doc


def _scenario(rs: Ruleset, doc: dict) -> Any:
    try:
        if doc.get("scenario_text"):
            return rs.parse_scenario(doc["scenario_text"], source="the file's scenario_text")
        return rs.load_scenario(doc["scenario"])
    except ValueError as exc:            # ScenarioError names what is wrong
        raise _refuse(str(exc)) from None


def _check_options(rs: Ruleset, sc: Any, options: Any) -> None:
    if isinstance(options, list):
        known = dict(game_options(rs, sc))
        unknown = [o for o in options if o not in known]
        if unknown:
            raise _refuse(f"{getattr(sc, 'title', 'the scenario')} has no optional rule "
                          f"{', '.join(repr(o) for o in unknown)} (it has: {', '.join(known) or 'none'})")


def _recorded_results(dice: list) -> list:
    """The die results a command recorded (a file from /game export lists its rolls as the
    store keeps them: purpose, die, result...)."""
    return [d.get("result") if isinstance(d, dict) else d for d in dice]


def replay_document(doc: dict, *, seed: Any = None, check_hash: bool = True) -> Checked:
    """Replay a parsed file from its seed; Refused unless every command is legal, rolls the
    recorded dice, and the end state has the recorded hash. Blocking (seconds for a long game)."""
    try:
        rs = get_ruleset(doc["ruleset"])
    except KeyError as exc:
        raise _refuse(str(exc.args[0])) from None
    sc = _scenario(rs, doc)
    options = doc.get("options") or None
    _check_options(rs, sc, options)
    seed = doc["seed"] if seed is None else seed
    try:
        first = new_state(rs, sc, seed, options)
    except ValueError as exc:
        raise _refuse(str(exc)) from None
    game = Game(rs, sc, seed, first, options=options)
    # an exported file records each command's rolls; the CLI's log.json records instead the
    # results a command was given, which its text carries (dice=...): its end hash is the check
    rolls_recorded = doc.get("format") == FORMAT
    states = []
    for i, c in enumerate(doc["commands"], 1):
        side, text = c["side"].strip().lower(), c["text"]
        where = f"command {i} ({side}: {text})"
        if side not in rs.sides and side != REFEREE:
            raise _refuse(f"{where}: '{side}' is not a side of {rs.name} ({', '.join(rs.sides)}) "
                          f"nor the {REFEREE}")
        try:
            events = game.apply(side, parse(text))
        except HeraldError as exc:
            raise _refuse(f"{where} is refused by the rules on replay: {exc}") from None
        drawn = [d.result for e in events for d in e.dice]
        recorded = _recorded_results(c.get("dice") or [])
        if rolls_recorded and recorded != drawn:
            raise _refuse(f"{where} rolls {drawn} on replay but the file records {recorded}: the file "
                          "was edited, or written by a different version of Herald's rules")
        states.append(game.state)
    expected = doc.get("state_hash")
    if check_hash and expected and state_hash(rs, game.state) != expected:
        raise _refuse("the replayed game does not end in the recorded state (state_hash differs): the "
                      "file was edited, or written by a different version of Herald's rules")
    text = doc.get("scenario_text") or None
    scenario_id = str(getattr(sc, "id", "") or doc["scenario"]) if text else doc["scenario"]
    return Checked(doc, game, states, scenario_id, text)


def load_game(source: str | Path | bytes) -> Game:
    """The CLI's `herald play --load FILE`: the game of an exported file (or of the CLI's own
    log.json; given as its path or its bytes), replayed and verified, ready to continue.
    Refused (a HeraldError) names what is wrong with the file."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    return replay_document(parse_document(data)).game


@dataclass
class Export:
    filename: str | None         # None: no file yet (a consent recorded, others still to give theirs)
    data: bytes | None
    text: str
    hidden: bool                 # the file holds hidden information: send it privately
    commands: int = 0
    notice: str = ""             # the public line saying who took an unfinished battle's file


EXPORT_CONSENT = "export_consent"      # games.options: players who agreed to export the unfinished game
EXPORTED = "exported_unfinished"       # games.options: who took the file of the unfinished game, when

EXPORT_RULE = ("An unfinished battle's file holds hidden information (the seed deals every card and "
               "every die still to come; the log holds any secret record), so before the end it goes "
               "only to the game's referee, or to its players once every one of them has agreed (each "
               "runs /game export). A finished battle's file is open to all.")

HIDDEN_WARNING = ("⚠️ The battle is not over, so this file holds **hidden information**: its seed "
                  "deals every card and every die still to come, and its log holds any secret "
                  "record (such as a hidden placement). Keep it to yourself until the battle ends.")


async def _players(service: GameService, row: GameRow) -> dict[str, list[int]]:
    """side -> its players' ids: the seat first, then those who share the side (bot/club.py)."""
    players = {side: [uid] for side, uid in (await service.store.seats(row.id)).items()}
    members = getattr(service.store, "members", None)
    for m in (await members(row.id) if members is not None else []):
        if m.role == "player" and m.side:
            players.setdefault(m.side, []).append(m.user_id)
    return players


async def _may_export_unfinished(service: GameService, row: GameRow, rs: Ruleset, user_id: int,
                                 players: dict[str, list[int]], role_ids: Sequence[int],
                                 is_admin: bool) -> tuple[str | None, str]:
    """Who may take an unfinished battle's file (EXPORT_RULE). Returns (how, "") when allowed
    ("referee" or "consent"), or (None, the public note of a consent still waiting on others).
    Raises NotAllowed for anyone else.

    - the game's referee (bot/club.py `is_referee`: appointed, of the referee role, or a server
      administrator who does not play it): impartial, may have it;
    - a player: only once every player of every side has agreed, each by running /game export
      (their consents are kept in the game's options until the battle ends; a player who joins
      later has not agreed, so the file waits on them too). Every side must be held: a file taken
      by a lone player would show an opponent who joins later nothing of the dice known to him;
    - anyone else (a spectator, the creator who does not play): refused."""
    from .club import is_referee
    loaded = await service.load_row(row)
    if is_referee(loaded, user_id, role_ids, is_admin):
        return "referee", ""
    everyone = {uid for ids in players.values() for uid in ids}
    if user_id not in everyone:
        raise NotAllowed("only the game's referee, or its players once they all agree, may export a "
                         f"battle that is not over. {EXPORT_RULE}")
    empty = [s for s in rs.sides if not players.get(s)]
    if empty:
        raise NotAllowed(f"{', '.join(s.title() for s in empty)} has no player yet: a battle that is not "
                         f"over is exported only with the agreement of every side's players. {EXPORT_RULE}")
    agreed = {int(u) for u in (row.options.get(EXPORT_CONSENT) or []) if str(u).isdigit()} & everyone
    if user_id not in agreed:
        agreed.add(user_id)
        await service.store.set_options(row.id, **{EXPORT_CONSENT: sorted(agreed)})
    missing = sorted(everyone - agreed)
    if not missing:
        return "consent", ""
    note = (f"📁 <@{user_id}> asks for the file of game #{row.id} (/game export) and agrees to its "
            f"players having it. The battle is not over: the file holds hidden information, so it is "
            f"given only once every player agrees. Still to agree: {', '.join(f'<@{u}>' for u in missing)} "
            "(each runs /game export; nobody gets the file until all have).")
    return None, note


async def export_game(service: GameService, channel_id: int, user_id: int,
                      names: Mapping[int, str] | None = None,
                      ready: Callable[[bool], Awaitable[Any]] | None = None, *,
                      role_ids: Sequence[int] = (), is_admin: bool = False) -> Export:
    """The channel's game (or its last finished one) as a file, by EXPORT_RULE: a finished
    battle's to anyone; an unfinished one's privately to its referee, or to a player once every
    player has agreed (until then: an Export with no file and a public note of who is still to
    agree). `ready(private)` is awaited once the request is allowed, before the replay."""
    row, rs, sc, _ = await _game_parts(service, channel_id)
    players = await _players(service, row)
    unfinished = row.status in ("setup", "active")
    how = None
    if unfinished:
        how, note = await _may_export_unfinished(service, row, rs, user_id, players, role_ids, is_admin)
        if how is None:
            return Export(None, None, note, False)
    if ready is not None:
        await ready(unfinished)
    # players by name: as the store knows them on the server (bot/names.py), else as given
    stored = await service.store.display_names(row.guild_id, [u for ids in players.values() for u in ids])
    names = {**(names or {}), **stored}
    by_id = {str(uid): names.get(uid) or f"{side.title()} player" for side, ids in players.items() for uid in ids}
    live = await service.store.commands(row.id)          # the commands in force
    from .physical_dice import mode_of
    doc = {
        "format": FORMAT, "version": VERSION,
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "game": row.id, "title": _title(sc, row),
        "ruleset": rs.id, "ruleset_name": rs.name,
        "scenario": row.scenario_id, "scenario_text": row.scenario_text,
        "seed": _seed_value(row.seed),
        "options": _names_for_ids(row.options.get(GAME_OPTIONS) or [], by_id),
        "seats": {side: [by_id[str(uid)] for uid in ids] for side, ids in players.items()},
        "dice": mode_of(row.options),
        "status": row.status, "result": row.result,
        "hidden_information": unfinished,
        "commands": [{"seq": i, "side": c.side, "text": c.text, "dice": c.dice}
                     for i, c in enumerate(live, 1)],
    }
    try:       # the file must load: replay it as the importer will, and record its end state
        checked = await asyncio.to_thread(replay_document, doc)
    except Refused:
        log.exception("game %s does not replay from its own export", row.id)
        raise Refused("this game's log does not replay from its seed (an internal fault): it cannot be "
                      "exported") from None
    doc["state_hash"] = state_hash(rs, checked.game.state)
    data = json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8")
    filename = f"herald-game{row.id}-{row.scenario_id}-{len(live)}.json"
    state = "unfinished" if unfinished else "finished"
    text = (f"Game #{row.id}, {_title(sc, row)} ({rs.name}, {state}): {len(live)} command(s) and the seed "
            f"in one file. `herald play --load {filename}` continues it offline; /game import loads "
            "it into a free channel.")
    notice = ""
    if unfinished:
        why = "as its referee" if how == "referee" else "with the agreement of every player"
        text += f"\n{HIDDEN_WARNING}\nYou have it {why}. {EXPORT_RULE}"
        notice = (f"📁 <@{user_id}> took the file of game #{row.id} (unfinished, after log entry "
                  f"#{live[-1].seq if live else 0}) {why}.")
        taken = list(row.options.get(EXPORTED) or [])[-19:]
        taken.append({"by": user_id, "as": how, "commands": len(live),
                      "at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
        await service.store.set_options(row.id, **{EXPORTED: taken})
    return Export(filename, data, text, unfinished, len(live), notice)


@dataclass
class Imported:
    game: LoadedGame
    commands: int
    seats: dict = field(default_factory=dict)
    text: str = ""


async def import_game(service: GameService, guild_id: int | None, channel_id: int, user_id: int,
                      data: bytes | str) -> Imported:
    """A game file into this channel: checked, replayed and verified before anything is stored
    (the channel must have no game in setup or play). An unfinished battle comes in in setup,
    its sides free (/game join, /game start continue it); a finished one comes in over."""
    if await service.store.active_game(channel_id) is not None:
        raise ChannelBusy(f"channel {channel_id} already has a game in progress")
    doc = parse_document(data)
    checked = await asyncio.to_thread(replay_document, doc)
    seed = _seed_value(str(doc["seed"]))
    if seed != doc["seed"]:      # a CLI log's "7": the bot replays 7 (same dice, other state hash)
        checked = await asyncio.to_thread(replay_document, doc, seed=seed, check_hash=False)
    game = checked.game
    rs = game.ruleset
    seats = {str(s): [str(n)[:100] for n in v] if isinstance(v, list) else [str(v)[:100]]
             for s, v in (doc.get("seats") or {}).items() if s in rs.sides} if isinstance(doc.get("seats"), dict) else {}
    origin = {"game": doc.get("game"), "exported_at": doc.get("exported_at"), "seats": seats}
    options: dict[str, Any] = {IMPORTED: origin}
    if game.options:
        options[GAME_OPTIONS] = game.options
    from .physical_dice import DICE_OPTION, PHYSICAL, check_mode
    if check_mode(str(doc.get("dice") or "seeded")) == PHYSICAL:     # the players roll their dice
        options[DICE_OPTION] = PHYSICAL
    game_id = await service.store.create_game(guild_id, channel_id, rs.id, checked.scenario_id, str(seed),
                                              user_id, scenario_text=checked.scenario_text, options=options)
    try:
        for seq, (record, state) in enumerate(zip(game.history, checked.states), 1):
            await service.store.append_command(
                game_id, seq=seq, user_id=None, side=record.side, text=record.text,
                dice=[asdict(d) for e in record.events for d in e.dice],
                events=[e.to_dict() for e in record.events], state=rs.state_to_dict(state))
        if checked.over:
            await service.store.set_status(game_id, "over", str(getattr(game.state, "result", "") or "over"))
    except Exception:
        log.exception("import into game %s failed half-way; the game is abandoned", game_id)
        await service.store.set_status(game_id, "abandoned", "import failed")
        raise Refused("the game could not be stored (an internal fault); nothing is left in this channel") from None
    loaded = await service.load_row(await service.store.get_game(game_id))
    held = " · ".join(f"{s.title()}: {', '.join(n)}" for s, n in seats.items())
    title = getattr(game.scenario, "title", checked.scenario_id)
    head = (f"Game #{game_id} imported: **{rs.name}**, {title}, {len(game.history)} command(s) replayed "
            "from the seed and verified (every die and the final state match the file).")
    if held:
        head += f"\nIn the file, the sides were held by {held}."
    if checked.over:
        tail = f"The battle is over: {getattr(game.state, 'result', '')}. /game board, /game replay and /game log show it."
    else:
        tail = ("The battle continues from where it stopped: take a side with /game join, then /game start.\n"
                f"⚠️ <@{user_id}> brought the file, so knows its seed: every card and die still to come. "
                "Play on with that known to all, or not at all.")
    return Imported(loaded, len(game.history), seats, f"{head}\n{tail}")
