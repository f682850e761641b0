"""The game service: everything the cogs share, with no Discord in it.

Data flows one way (DESIGN): a slash command gives a line of the command language ->
`GameService.act` loads the channel's game, checks the player's seat, parses the line, lets the
ruleset apply it, and has the store record the command, its events and the new state in one
transaction -> the cog renders the committed state and replies.

Concurrency and idempotency (notes/anchors.md §5): load -> check -> apply -> commit runs under the
store's per-game lock, so two players acting at once are serialized and neither write is lost; a
Discord interaction id is stored with its command, so a retried interaction is applied once;
answers to a pending decision (the retreat buttons) carry the seq they were built against and are
refused once the game has moved on. Rendering happens after the lock is released, from the
committed state, and is slow CPU work: async callers run `render` in `asyncio.to_thread`.

Several processes on one PostgreSQL (issue 17): the store's `game_lock` is there the in-process
lock followed by the game's advisory lock (bot/store_pg.py `lock_game`; a no-op on SQLite, one
process), so a second process acting on the game waits, then loads what the first committed. The
cache of live states below is per process and never trusted blindly: every `load_row`, under the
lock, reads the store's last seq and drops a cached state whose seq is not it (another process
wrote the game). A pending decision is thus answered once: the second answer finds it gone.

Every refusal raises a `HeraldError` (the engine's, or `Refused` from bot/errors.py) or a
`StoreError`, whose text says why; nothing is stored in either case.

Layers (DESIGN "Layers, one way"): the service imports the engine, the store and the leaves of
bot/ (errors, options, hooks, names), never a club feature. Seats shared by several players, the
players' own dice, undo, uploaded scenarios, deadlines and campaigns join through `self.hooks`
(bot/hooks.py), each from its own `install(service)`; bot/app.py `make_service` assembles them.
A service built bare (`GameService(store)`) plays with one player per side and Herald's dice.
"""
from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from engine.core.commands import Command, dice_faces, parse, split_side
from engine.core.events import Event
from engine.core.game import (Ruleset, canonical_options, game_options, get_ruleset, new_state, option_name,
                              replay_in_place, rulesets)

from .errors import NoGame, NotAllowed, Refused, StaleChoice
from .hooks import Hooks
from .names import label
from .options import (DEADLINE_OPTION, DEADLINE_SET_AT, GAME_OPTIONS, MAX_DEADLINE_HOURS, REMATCH_OF,
                      SNAPSHOT_REPAIRED, STARTED_AT)
from .shards import owned_games
from .store import DuplicateInteraction, GameRow, Store
from .store_base import decode_state, encode_state, is_keyframe
from renders import board_module

log = logging.getLogger(__name__)

__all__ = ["GAME_OPTIONS", "REMATCH_OF", "SNAPSHOT_REPAIRED", "NoGame", "NotAllowed", "Refused",
           "StaleChoice", "ActResult", "GameService", "LoadedGame", "Pending", "pending_of"]


# --- results ----------------------------------------------------------------------------------
@dataclass
class LoadedGame:
    """A game as stored: its row, its rules, its scenario, its current state and seats."""
    row: GameRow
    ruleset: Ruleset
    scenario: Any
    state: Any
    seats: dict[str, int]
    seq: int
    members: list = field(default_factory=list)    # store.MemberRow: more players, referees (bot/club.py)

    @property
    def to_act_side(self) -> str | None:
        return self.ruleset.to_act(self.state)

    @property
    def to_act_user(self) -> int | None:
        side = self.to_act_side
        return self.seats.get(side) if side else None

    def side_of(self, user_id: int) -> str | None:
        """The side the user plays: their seat, or the side they share (bot/club.py)."""
        return next((s for s, u in self.seats.items() if u == user_id), None) or next(
            (m.side for m in self.members if m.user_id == user_id and m.role == "player"), None)


@dataclass
class Pending:
    """A decision the rules hand to a player mid-action (DESIGN: pending decisions)."""
    kind: str                  # "retreat"
    side: str
    piece: str
    options: list[str]
    verb: str = "retreat"      # the command that answers it: "<verb> <option>"
    answers: tuple = ()        # engine.core.pending.Answer: label + the line that answers
    prompt: str = ""


@dataclass
class ActResult:
    """What one accepted command did, for the reply."""
    game_id: int
    seq: int
    side: str
    text: str
    events: list[Event]
    ruleset: Ruleset
    scenario: Any
    state: Any
    seats: dict[str, int]
    to_act_side: str | None
    to_act_user: int | None
    over: bool
    result: str = ""
    pending: Pending | None = None
    duplicate: bool = False    # the interaction had already been applied; nothing new happened
    png: bytes | None = field(default=None, repr=False)
    members: list = field(default_factory=list)    # store.MemberRow: shared sides, wings (bot/club.py)


def _record_of(rs: Ruleset, state: Any, events: list[Event], seq: int,
               cost_ms: float = 0.0) -> tuple[list, list, bytes | None]:
    """What the store keeps of an applied command: its dice, its events, and the state after it
    when `seq` is a keyframe (bot/store_base.py: every few commands, or once the commands since
    the last one cost `cost_ms` to apply), encoded. Pure CPU: run off the event loop."""
    dice = [asdict(d) for e in events for d in e.dice]
    blob = encode_state(rs.state_to_dict(state)) if is_keyframe(seq, cost_ms) else None
    return dice, [e.to_dict() for e in events], blob


def _timed_apply(rs: Ruleset, scenario: Any, state: Any, side: str, cmd: Any) -> tuple[Any, list, float]:
    """`rs.apply`, and the milliseconds of this thread's CPU it took (a keyframe's cost)."""
    t0 = time.thread_time()
    new, events = rs.apply(scenario, state, side, cmd)
    return new, events, (time.thread_time() - t0) * 1000


def _new_seed(seed: int | str | None) -> str:
    """A new game's seed: the one asked for, else a fresh random one (stored as text)."""
    return str(seed if seed is not None else random.SystemRandom().randrange(1, 2**31))


def _check_first_state(rs: Ruleset, sc: Any, seed: int | str, options: list[str] | None) -> None:
    """Build the game's first state before anything is stored: the rules check the scenario and
    the combination of optional rules, and a ValueError becomes a refusal naming the problem."""
    try:
        new_state(rs, sc, _seed_value(seed), options)
    except ValueError as exc:
        raise Refused(str(exc)) from None


def _seed_value(seed: str | int) -> int | str:
    """The store keeps seeds as text; the engine draws the same dice from '7' and 7, but the
    state records the seed, so numeric seeds go back to int for bit-identical replays."""
    text = str(seed)
    try:
        return int(text)
    except ValueError:
        return text


def pending_of(state: Any, ruleset: Ruleset | None = None) -> Pending | None:
    """The decision the game waits on, as the ruleset describes it (its typed
    `PendingDecision`, answered by command lines), or None."""
    typed = ruleset.pending(state) if ruleset is not None and hasattr(ruleset, "pending") else None
    if typed is not None:
        verb = typed.answers[0].line.split()[0] if typed.answers else typed.kind
        options = ([a.line.split(" ", 1)[1] for a in typed.answers] if typed.kind == "retreat"
                   else [a.label for a in typed.answers])
        piece = str((getattr(state, "pending", None) or {}).get("piece", ""))
        return Pending(typed.kind, typed.side, piece, options, verb, typed.answers, typed.prompt)
    p = getattr(state, "pending", None)
    if not p or not p.get("options"):
        return None
    return Pending(p.get("kind", "retreat"), p["side"], str(p.get("piece", "")),
                   list(p["options"]), p.get("kind", "retreat"))


def seat_side(loaded: LoadedGame, user_id: int, line: str) -> tuple[str, Command]:
    """The side a line is given for, with no club feature installed: the user's own side (the
    side named by a script line's `side:` must be it), parsed. bot/club.py replaces it."""
    side = loaded.side_of(user_id)
    if side is None:
        raise NotAllowed("you are not a player in this game (only seated players give orders)")
    named, line = split_side(line, loaded.ruleset.sides)
    if named is not None and named != side:
        raise NotAllowed(f"the line is {named.title()}'s (`{named}:`), and you play {side.title()}")
    return side, parse(line, dice_faces(loaded.ruleset))


class GameService:
    """Orchestration shared by the cogs: games, seats, actions, logs, renders."""

    def __init__(self, store: Store):
        self.store = store
        self.hooks = Hooks()                     # the club features' events and extension points
        self._scenarios: dict[int, Any] = {}     # game id -> parsed custom scenario
        self._background: set[asyncio.Task] = set()     # snapshot checks (verify_in_background)
        self.shards = None      # bot/shards.py: the shards this process runs (None: every guild)
        # issue 13: the live games' current states, newest use last: (row key, store changes,
        # seq, state). A state is never changed in place (`apply` returns a new one), so one
        # held here stays what the log makes it while the store has not written that game.
        self._live: OrderedDict[int, tuple[tuple, int, int, Any]] = OrderedDict()
        self.resumed_games: list[LoadedGame] = []   # resume_all's, until the bot warms its workers
        # ms the commands applied since each game's last keyframe took (bot/store_base.py: a
        # keyframe once they reach KEYFRAME_COST_MS); unknown after a restart: 0
        self._since_keyframe: dict[int, float] = {}

    # -- lookup ---------------------------------------------------------------------------
    @staticmethod
    def ruleset_of(ruleset_id: str) -> Ruleset:
        try:
            return get_ruleset(ruleset_id)
        except KeyError as exc:
            raise Refused(str(exc.args[0])) from None

    @staticmethod
    def ruleset_ids() -> list[str]:
        return sorted(rulesets())

    async def game_row(self, channel_id: int, finished_ok: bool = False) -> GameRow:
        """The channel's live game; with `finished_ok`, the last finished one will do too
        (to show the final board, status and log of a battle that has ended)."""
        row = await self.store.active_game(channel_id)
        if row is None and finished_ok:
            row = await self.store.latest_game(channel_id)
        if row is None:
            raise NoGame("there is no game in this channel; start one with /game new")
        return row

    def scenario_of(self, row: GameRow, ruleset: Ruleset | None = None) -> Any:
        rs = ruleset or self.ruleset_of(row.ruleset)
        if row.scenario_text:
            sc = self._scenarios.get(row.id)
            if sc is None:
                sc = rs.parse_scenario(row.scenario_text, source=f"game {row.id}")
                self._scenarios[row.id] = sc
            return sc
        return rs.load_scenario(row.scenario_id)

    async def load(self, channel_id: int, finished_ok: bool = False) -> LoadedGame:
        """The channel's live game: from its latest snapshot, plus any later commands."""
        return await self.load_row(await self.game_row(channel_id, finished_ok))

    async def load_row(self, row: GameRow) -> LoadedGame:
        """The game's current state: from the cache of live games while the store has not
        written it since; else its newest snapshot (a keyframe, bot/store_base.py) plus the
        commands after it, decoded and replayed off the event loop (`_rebuild`)."""
        rs = self.ruleset_of(row.ruleset)
        sc = self.scenario_of(row, rs)
        last = await self.store.last_seq(row.id)       # the store's, not ours: another process may
        state, seq = self._cached(row, last)            # have written the game (issue 17)
        if state is None:
            changes = self.store.changes(row.id)
            snap = await self.store.latest_snapshot_raw(row.id)
            base = snap[0] if snap is not None else 0
            lines = await self.store.replay_lines(row.id, after=base)
            state, seq = await asyncio.to_thread(self._rebuild, rs, sc, row, snap, lines)
            seq = max(seq, last)        # the log may end with commands taken back (bot/undo.py)
            self._remember(row, changes, seq, state)
        return LoadedGame(row, rs, sc, state, await self.store.seats(row.id), seq,
                          await self.store.members(row.id))

    LIVE_GAMES = 100        # states kept in memory (about 0.2 MB each for a TACW battle)

    @staticmethod
    def _row_key(row: GameRow) -> tuple:
        return (row.ruleset, row.scenario_id, str(row.seed), row.created_at)

    def _cached(self, row: GameRow, last: int) -> tuple[Any, int]:
        got = self._live.get(row.id)
        if got is None:
            return None, 0
        key, changes, seq, state = got
        if key != self._row_key(row) or changes != self.store.changes(row.id) or seq != last:
            del self._live[row.id]
            return None, 0
        self._live.move_to_end(row.id)
        return state, seq

    def _remember(self, row: GameRow, changes: int, seq: int, state: Any) -> None:
        """Keep `state` as the game's current one, as of the store's `changes` count."""
        self._live[row.id] = (self._row_key(row), changes, seq, state)
        self._live.move_to_end(row.id)
        while len(self._live) > self.LIVE_GAMES:
            self._live.popitem(last=False)

    @classmethod
    def _rebuild(cls, rs: Ruleset, sc: Any, row: GameRow, snap: tuple[int, Any] | None,
                 lines: list[tuple[int, str | None, str]]) -> tuple[Any, int]:
        """The state from a snapshot blob (or the seed) and the commands after it. Pure CPU:
        run through asyncio.to_thread."""
        if snap is not None:
            state, seq = rs.state_from_dict(decode_state(snap[1])), snap[0]
        else:
            state, seq = cls._first_state(rs, sc, row), 0
        if lines:       # in place: the states between are not kept (+ referee corrections)
            state, _ = replay_in_place(rs, sc, state, [(side, parse(text)) for _, side, text in lines])
            seq = lines[-1][0]
        return state, seq

    @staticmethod
    def _first_state(rs: Ruleset, sc: Any, row: GameRow) -> Any:
        """The state the game began from: its seed and the game options chosen at creation."""
        return new_state(rs, sc, _seed_value(row.seed), row.options.get(GAME_OPTIONS))

    @staticmethod
    def _replay(rs: Ruleset, sc: Any, state: Any, commands: list, after: int = 0) -> tuple[Any, int]:
        live = [c for c in commands if c.seq > after and not getattr(c, "undone_at", None)]  # bot/undo.py
        if not live:
            return state, after
        state, _ = replay_in_place(rs, sc, state, [(c.side, parse(c.text)) for c in live])  # + corrections
        return state, live[-1].seq

    async def replay_state(self, row: GameRow) -> Any:
        """The state rebuilt from the seed and the whole command log (restart / audit check)."""
        rs = self.ruleset_of(row.ruleset)
        sc = self.scenario_of(row, rs)
        commands = await self.store.commands(row.id)
        state, _ = await asyncio.to_thread(self._replay, rs, sc, self._first_state(rs, sc, row), commands)
        return state

    async def verify(self, row: GameRow) -> bool:
        """Whether the game as the service holds it (its cached state, or its newest snapshot
        plus the commands after it) equals a replay of the whole log from the seed, and its
        newest snapshot equals the replay of the log up to it."""
        rs = self.ruleset_of(row.ruleset)
        live = (await self.load_row(row)).state
        replayed = await self.replay_state(row)
        same = await asyncio.to_thread(
            lambda: json.loads(json.dumps(rs.state_to_dict(live))) == json.loads(json.dumps(rs.state_to_dict(replayed))))
        return same and await self.check_snapshot(row.id, repair=False)

    async def resume_all(self, *, verify: bool = True) -> list[int]:
        """On start-up, before login: load every active game from its latest snapshot (no replay
        from the seed: a late Edgehill replays in seconds, fifty games in minutes) and close those
        whose battle already ended (a crash between the last command and the status update).
        Then, in the background and off the event loop, check each snapshot against a replay of
        its log (`verify_in_background`). Returns the ids resumed; the games themselves are kept
        in `resumed_games` for the bot to warm its render workers with (then dropped)."""
        rows = []
        self.resumed_games = []
        for row in await owned_games(self):        # only the guilds of this process's shards
            try:
                loaded = await self.load_row(row)
                if loaded.to_act_side is None:
                    await self.store.set_status(row.id, "over", getattr(loaded.state, "result", "") or None)
                    await self.game_over(row.id)
                else:
                    self.resumed_games.append(loaded)
                rows.append(row)
            except Exception:  # one broken game must not stop the bot
                log.exception("game %s could not be resumed", row.id)
        if verify and rows:
            self.verify_in_background([r.id for r in rows])
        return [r.id for r in rows]

    # -- the snapshots, checked against the log (the truth) ------------------------------------
    def verify_in_background(self, game_ids: list[int]) -> asyncio.Task:
        """Check the games' snapshots one after another in a background task, each replay in a
        thread (`check_snapshot`); `background_done` waits for it."""
        task = asyncio.get_running_loop().create_task(self._verify_games(list(game_ids)))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def background_done(self) -> None:
        """Wait for the background checks started so far (tests; a clean stop)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    async def _verify_games(self, game_ids: list[int]) -> None:
        for game_id in game_ids:
            if getattr(self.store, "closed", False):
                return                      # shutting down: the next start checks again
            try:
                await self.check_snapshot(game_id)
            except Exception:
                if getattr(self.store, "closed", False):
                    return
                log.exception("game %s: its snapshot could not be checked against its log", game_id)

    @staticmethod
    def _replayed(rs: Ruleset, sc: Any, row: GameRow, commands: list) -> tuple[dict, int]:
        """The state (as JSON sees it) after replaying `commands` from the game's seed, and the
        seq reached. Blocking, pure CPU: run it through asyncio.to_thread."""
        state, seq = GameService._replay(rs, sc, GameService._first_state(rs, sc, row), commands)
        return json.loads(json.dumps(rs.state_to_dict(state))), seq

    async def check_snapshot(self, game_id: int, *, repair: bool = True) -> bool:
        """Whether the game's latest snapshot equals a replay from the seed of the commands in
        force up to it; the replay runs in a thread, off the event loop. When they differ: a
        WARNING, and (`repair`) the snapshot is rebuilt from the log, which is the truth
        (DESIGN principle 2): under the game lock, the whole log is replayed again and stored as
        the snapshot at its last seq, the snapshots from the bad one on dropped, and the repair
        noted in the game's options (`SNAPSHOT_REPAIRED`)."""
        row = await self.store.get_game(game_id)
        snap = await self.store.latest_snapshot(game_id)
        if row is None or snap is None:
            return True                     # nothing cached: every load replays the log anyway
        rs = self.ruleset_of(row.ruleset)
        sc = self.scenario_of(row, rs)
        commands = [c for c in await self.store.commands(game_id) if c.seq <= snap[0]]
        replayed, _ = await asyncio.to_thread(self._replayed, rs, sc, row, commands)
        if replayed == snap[1]:
            return True
        log.warning("game %s: the snapshot at #%s differs from a replay of its log from the seed; "
                    "%s", game_id, snap[0], "rebuilding it from the log" if repair else "not repaired")
        if repair:
            await self._repair_snapshot(row, rs, sc, snap[0])
        return False

    async def _repair_snapshot(self, row: GameRow, rs: Ruleset, sc: Any, bad_seq: int) -> None:
        async with self.store.game_lock(row.id):
            commands = await self.store.commands(row.id)
            last = await self.store.last_seq(row.id)
            state, _ = await asyncio.to_thread(self._replayed, rs, sc, row, commands)
            await self.store.replace_snapshots(row.id, bad_seq, last, state)
            await self.store.set_options(row.id, **{SNAPSHOT_REPAIRED: {
                "seq": bad_seq, "rebuilt_at": last,
                "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}})
        log.warning("game %s: snapshot rebuilt from the log at #%s", row.id, last)

    async def game_over(self, game_id: int) -> None:
        """A game's status just became "over": tell the features (`hooks.on_game_ended`;
        campaigns record its result). Never raises: the battle's end is already committed."""
        await self.hooks.on_game_ended.emit(self, game_id)

    # -- setup ----------------------------------------------------------------------------
    async def new_game(self, guild_id: int | None, channel_id: int, user_id: int, ruleset_id: str,
                       scenario_id: str, seed: int | str | None = None, *,
                       scenario_text: str | None = None, side: str | None = None,
                       options: list[str] | None = None) -> LoadedGame:
        """Create the channel's game in 'setup' (ChannelBusy if it has one); optionally seat
        the creator. The scenario and the game options (the scenario's optional rules, by id)
        are checked before anything is stored."""
        rs = self.ruleset_of(ruleset_id)
        for source in self.hooks.scenario_sources if not scenario_text else ():
            scenario_text = await source(self.store, guild_id, rs, scenario_id)   # e.g. bot/uploads.py
            if scenario_text:
                break
        try:
            sc = rs.parse_scenario(scenario_text, source="upload") if scenario_text else rs.load_scenario(scenario_id)
        except ValueError as exc:          # ScenarioError: the message names what is wrong
            raise Refused(str(exc)) from None
        if scenario_text:
            scenario_id = getattr(sc, "id", scenario_id) or "custom"
        if side is not None and side not in rs.sides:
            raise Refused(f"'{side}' is not a side of {rs.name} ({', '.join(rs.sides)})")
        seed = _new_seed(seed)
        options = canonical_options(rs, sc, [o.strip() for o in options or [] if o and o.strip()])
        if options:
            known = dict(game_options(rs, sc))
            unknown = [o for o in options if o not in known]
            if unknown:
                raise Refused(f"{getattr(sc, 'title', scenario_id)} has no optional rule "
                              f"{', '.join(repr(o) for o in unknown)} (it has: "
                              f"{', '.join(option_name(k) for k in known) or 'none'})")
            _check_first_state(rs, sc, seed, options)
        game_id = await self.store.create_game(guild_id, channel_id, rs.id, scenario_id, seed, user_id,
                                               scenario_text=scenario_text,
                                               options={GAME_OPTIONS: options} if options else None)
        if side is not None:
            await self.store.take_seat(game_id, side, user_id)
        row = await self.store.get_game(game_id)
        return await self.load_row(row)

    async def rematch(self, guild_id: int | None, channel_id: int, user_id: int,
                      seed: int | str | None = None) -> LoadedGame:
        """The return game of the channel's finished battle: the same scenario and options, each
        player on the other side (Battle Cry §6 "Bilanciare gli Scenari": play twice with sides
        swapped; the pair is won on Campaign Flags). It starts at once."""
        prev = await self.store.latest_game(channel_id)
        if prev is None or prev.status != "over":
            raise Refused("a return game follows a finished battle in this channel (BC §6 Balancing)")
        if prev.options.get(REMATCH_OF):
            raise Refused("this battle was already the return game: a balancing pair is two games (BC §6)")
        seats = await self.store.seats(prev.id)
        if user_id not in seats.values() and user_id != prev.created_by:
            raise NotAllowed("only a player of the finished battle or its creator may ask for the return game")
        rs = self.ruleset_of(prev.ruleset)
        if len(rs.sides) != 2 or set(seats) != set(rs.sides):
            raise Refused("a return game swaps two players: both sides needed one")
        a, b = rs.sides
        swapped = {a: seats[b], b: seats[a]}
        options = prev.options.get(GAME_OPTIONS)
        if hasattr(rs, "balancing_options"):
            options = rs.balancing_options(swapped, 2)
        sc = self.scenario_of(prev, rs)
        seed = _new_seed(seed)
        _check_first_state(rs, sc, seed, options)
        game_id = await self.store.create_game(guild_id, channel_id, rs.id, prev.scenario_id, seed, user_id,
                                               scenario_text=prev.scenario_text,
                                               options={GAME_OPTIONS: options, REMATCH_OF: prev.id})
        for side, uid in swapped.items():
            await self.store.take_seat(game_id, side, uid)
        await self.store.set_status(game_id, "active")
        return await self.load_row(await self.store.get_game(game_id))

    async def balancing_line(self, loaded: LoadedGame) -> str:
        """For a finished return game: the pair's result (BC §6 Balancing), or ""."""
        first_id = loaded.row.options.get(REMATCH_OF)
        fn = getattr(loaded.ruleset, "balancing_result", None)
        if not first_id or fn is None or loaded.row.status != "over":
            return ""
        first = await self.load_row(await self.store.get_game(first_id))
        res = fn(loaded.scenario, first.state, loaded.state, first.seats, loaded.seats)
        score = ", ".join(f"<@{u}> {n}" for u, n in res["campaign_flags"].items())
        who = f"<@{res['winner']}> wins the pair" if res["winner"] else "the pair is drawn"
        return f"Balancing pair (games #{first_id} and #{loaded.row.id}), Campaign Flags: {score}: {who} (BC §6)."

    async def join(self, channel_id: int, user_id: int, side: str) -> LoadedGame:
        row = await self.game_row(channel_id)
        rs = self.ruleset_of(row.ruleset)
        side = side.lower().strip()
        if side not in rs.sides:
            raise Refused(f"'{side}' is not a side of {rs.name} ({', '.join(rs.sides)})")
        await self.store.take_seat(row.id, side, user_id)   # SeatTaken says why not
        return await self.load_row(row)

    async def leave(self, channel_id: int, user_id: int) -> str:
        row = await self.game_row(channel_id)
        if row.status != "setup":
            raise Refused("the battle has started: a player leaves it with /game resign")
        side = await self.store.leave_seat(row.id, user_id)
        if side is None:
            raise NotAllowed("you hold no side in this game")
        return side

    async def start(self, channel_id: int, user_id: int) -> LoadedGame:
        """Setup -> active, once every side is seated; by a seated player or the creator."""
        row = await self.game_row(channel_id)
        async with self.store.game_lock(row.id):
            row = await self.game_row(channel_id)
            if row.status != "setup":
                raise Refused("the game has already started")
            loaded = await self.load_row(row)
            empty = [s for s in loaded.ruleset.sides if s not in loaded.seats]
            if empty:
                raise Refused(f"every side needs a player first; free: {', '.join(empty)} (/game join)")
            if user_id not in loaded.seats.values() and user_id != row.created_by:
                raise NotAllowed("only a seated player or the game's creator may start it")
            await self.store.set_status(row.id, "active")
            await self.store.set_options(row.id, **{STARTED_AT: datetime.now(timezone.utc).isoformat(timespec="seconds")})
            loaded.row = await self.store.get_game(row.id)
            return loaded

    async def set_deadline(self, channel_id: int, user_id: int, hours: float, is_admin: bool = False,
                           now: datetime | None = None) -> GameRow:
        """Set the channel's game's decision deadline (bot/deadlines.py), in hours; 0 = none.
        By the creator, a seated player, the game's referee (the cog passes `is_admin`) or an
        administrator. A decision already open counts
        from `now` (default: the current time)."""
        row = await self.game_row(channel_id)
        seats = await self.store.seats(row.id)
        sharing = any(m.user_id == user_id and m.role == "player" for m in await self.store.members(row.id))
        if user_id != row.created_by and user_id not in seats.values() and not sharing and not is_admin:
            raise NotAllowed("only a player, the game's creator, its referee or a server administrator may set its "
                             "deadline")
        try:
            hours = float(hours)
        except (TypeError, ValueError):
            raise Refused("the deadline is a number of hours, 0 to turn it off") from None
        if not 0 <= hours <= MAX_DEADLINE_HOURS:        # NaN fails this too
            raise Refused(f"a decision deadline is 0 (off) to {MAX_DEADLINE_HOURS} hours")
        value: float | int = int(hours) if hours.is_integer() else round(hours, 2)
        when = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
        async with self.store.game_lock(row.id):
            await self.store.set_options(row.id, **{DEADLINE_OPTION: value,
                                                    DEADLINE_SET_AT: when if value else None})
        return await self.store.get_game(row.id)

    async def abandon(self, channel_id: int, user_id: int, is_admin: bool) -> GameRow:
        row = await self.game_row(channel_id)
        if user_id != row.created_by and not is_admin:
            raise NotAllowed("only the game's creator or a server administrator may abandon it")
        async with self.store.game_lock(row.id):
            await self.store.set_status(row.id, "abandoned", "abandoned")
        self._scenarios.pop(row.id, None)
        return row

    # -- play -----------------------------------------------------------------------------
    async def act(self, channel_id: int, user_id: int, line: str, interaction_id: str | int | None = None,
                  *, expect_game: int | None = None, expect_seq: int | None = None) -> ActResult:
        """Apply one line of the command language for the user's side, all or nothing."""
        iid = str(interaction_id) if interaction_id is not None else None
        if iid is not None and (done := await self.applied(iid)) is not None:
            return done             # delivered again, even after its game ended
        row = await self.game_row(channel_id)
        if expect_game is not None and row.id != expect_game:
            raise StaleChoice("this choice belongs to an earlier game in this channel")
        async with self.store.game_lock(row.id):
            if iid is not None and (done := await self.applied(iid)) is not None:
                return done         # the same interaction, applied while we waited for the lock
            row = await self.game_row(channel_id)       # it may have ended while we waited
            if row.status != "active":
                raise Refused("the game has not started yet; /game start once both sides are seated")
            loaded = await self.load_row(row)
            if expect_seq is not None and loaded.seq != expect_seq:
                raise StaleChoice("this choice is out of date: the game has moved on since it was offered")
            resolve = self.hooks.acting_side or seat_side    # bot/club.py: shared sides, wings, pause
            side, cmd = resolve(loaded, user_id, line)
            took = 0.0
            for step in self.hooks.rules_steps:              # bot/physical_dice.py: the players' dice
                done = await step(self, loaded, side, user_id, cmd)
                if done is not None:
                    side, user_id, cmd, state, events = done
                    break
            else:       # the rules, off the event loop
                state, events, took = await asyncio.to_thread(
                    _timed_apply, loaded.ruleset, loaded.scenario, loaded.state, side, cmd)
            seq = loaded.seq + 1
            cost = self._since_keyframe.get(row.id, 0.0) + took
            dice, event_dicts, blob = await asyncio.to_thread(_record_of, loaded.ruleset, state, events, seq, cost)
            changes = self.store.changes(row.id)
            try:
                await self.store.append_command(
                    row.id, seq=seq, user_id=user_id, side=side, text=cmd.text,
                    dice=dice, events=event_dicts, state=blob, interaction_id=iid)
            except DuplicateInteraction:
                done = await self.applied(iid)
                if done is None:
                    raise Refused("this action was already applied; nothing new happened") from None
                return done
            self._since_keyframe[row.id] = 0.0 if blob is not None else cost
            if self.store.changes(row.id) == changes + 1:      # nothing else wrote the game meanwhile
                self._remember(row, changes + 1, seq, state)
            to_act = loaded.ruleset.to_act(state)
            result = str(getattr(state, "result", "") or "")
            if to_act is None:
                await self.store.set_status(row.id, "over", result or "over")
            done = ActResult(row.id, seq, side, cmd.text, events, loaded.ruleset, loaded.scenario, state,
                             loaded.seats, to_act, loaded.seats.get(to_act) if to_act else None,
                             to_act is None, result, pending_of(state, loaded.ruleset), members=loaded.members)
            await self.applied_hooks(done, pending_of(loaded.state, loaded.ruleset))
            return done

    async def applied_hooks(self, result: ActResult, before: Pending | None = None) -> None:
        """Tell the features a command was stored (`result`; `before`: the decision pending when
        it was given): command applied, decision answered, decision opened, game ended."""
        await self.hooks.on_command_applied.emit(self, result)
        if before is not None:
            await self.hooks.on_decision_answered.emit(self, result)
        if result.pending is not None and not result.over:
            await self.hooks.on_decision_opened.emit(self, result)
        if result.over:
            await self.game_over(result.game_id)

    async def applied(self, interaction_id: str | int) -> ActResult | None:
        """The answer for an interaction already applied (a retry, a double click, a delivery
        again), or None if it was not: the stored command's events and its game as it stands,
        in whichever game of the channel it was applied (an earlier, finished one too)."""
        rec = await self.store.command_by_interaction(str(interaction_id))
        if rec is None:
            return None
        loaded = await self.load_row(await self.store.get_game(rec.game_id))
        to_act = loaded.to_act_side
        return ActResult(rec.game_id, rec.seq, rec.side or "", rec.text, [Event.from_dict(e) for e in rec.events],
                         loaded.ruleset, loaded.scenario, loaded.state, loaded.seats, to_act,
                         loaded.to_act_user, to_act is None, str(getattr(loaded.state, "result", "") or ""),
                         pending_of(loaded.state, loaded.ruleset), duplicate=True, members=loaded.members)

    async def resign(self, channel_id: int, user_id: int, interaction_id: str | int | None = None) -> ActResult:
        return await self.act(channel_id, user_id, "resign", interaction_id)

    # -- reading --------------------------------------------------------------------------
    async def hand(self, channel_id: int, user_id: int) -> str:
        """The user's own hand, for an ephemeral reply."""
        loaded = await self.load(channel_id)
        side = loaded.side_of(user_id)
        if side is None:
            raise NotAllowed("you are not a player in this game, so you hold no cards")
        hand_text = getattr(loaded.ruleset, "hand_text", None)
        if hand_text is None:
            raise Refused(f"{loaded.ruleset.name} has no hand of cards")
        return hand_text(loaded.state, side, loaded.scenario)

    async def status(self, channel_id: int) -> tuple[LoadedGame, str]:
        loaded = await self.load(channel_id, finished_ok=True)
        rs, row = loaded.ruleset, loaded.row
        names = await self.store.display_names(row.guild_id, list(loaded.seats.values()))   # bot/names.py
        seats = " · ".join(f"{s.title()}: " + (label(loaded.seats[s], names) if s in loaded.seats else "_free_")
                           for s in rs.sides)
        head = f"Game #{row.id} · {rs.name} · {row.status} · {seats}"
        tail = ""
        if row.status in ("setup", "active"):
            for lines in self.hooks.status_lines:        # bot/deadlines.py: the decision deadline
                tail += "".join("\n" + line for line in await lines(self, loaded))
        if row.status == "setup":
            return loaded, head + "\nWaiting to start: /game join a side, then /game start." + tail
        pair = await self.balancing_line(loaded)
        return loaded, head + "\n" + rs.status(loaded.scenario, loaded.state) + tail + (f"\n{pair}" if pair else "")

    async def log(self, channel_id: int, n: int = 10) -> list[str]:
        """The last `n` events' narratives, oldest first, each with its command's seq."""
        row = await self.game_row(channel_id, finished_ok=True)
        lines: list[str] = []
        for c in await self.store.commands(row.id, undone=True):   # taken back: bot/undo.py strikes them
            for e in c.events:
                section = e.get("section") or ""
                lines.append(self.hooks.log_line(c, f"#{c.seq} {e.get('narrative', '')}" + (f" ({section})" if section else "")))
        return lines[-n:] if n > 0 else []

    # -- pictures -------------------------------------------------------------------------
    @staticmethod
    def render(game: LoadedGame | ActResult, viewer: str | None = None, size: str | None = None) -> bytes | None:
        """The board PNG (public view), or None if this ruleset has no renderer or it failed:
        the action is committed either way. Blocking: call through asyncio.to_thread.
        After an action a ruleset with a wide map (`action_view = "crop"`, TACW) shows the area
        of the action, readable on a phone; /game board shows the whole field."""
        if size is None:
            size = getattr(game.ruleset, "action_view", "full") if isinstance(game, ActResult) else "full"
        try:
            module = board_module(game.ruleset.id)
            return module.render_board(game.scenario, game.state, viewer=viewer, size=size)
        except Exception:
            log.exception("render failed for %s", game.ruleset.id)
            return None
