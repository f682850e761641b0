"""Club play: seats and roles, who the game waits on, the referee, and the server's games.

No Discord here (the cog, bot/cogs/club.py, passes ids, role ids and the time in). Issue 5,
"Seats and roles" and "Server view":

- **Several players a side.** The `seats` table keeps each side's *first player*, who may act for
  all of it; more players join a side in the `members` table (migration 2), each either for the
  whole side (``wing`` NULL: Battle Cry, or any ruleset without wings) or for one wing (TACW: "a
  wing each"). A wing player may give only the commands that concern their wing: the ruleset
  says which wings a command concerns (`command_wings`), and a command that concerns none (a
  pass, a resignation, a side-wide policy) is the first player's (HERALD: the Army Commander's).
- **The server view**, `/game list` (bot/server_view.py, above this module and the deadlines):
  the server's games in setup or play, newest first, each with its channel, battle, turn, who is
  to move (paused or not) and its turn deadline, then the latest finished games with their
  results; it fits one message and counts what it leaves out.
- **Spectators** are everyone else: they see the boards, status and logs (public), never a
  hand (ephemeral, players only), and cannot act.
- **A referee**, optional: users appointed to the game (`members` role 'referee') or anyone with
  the server role named in the game's options (``referee_role``). HERALD decisions: a player of
  the game is never its referee (a referee rules impartially); a server administrator holds the
  referee's powers in any game they do not play (they could appoint themselves anyway). The
  game's creator appoints and dismisses referees (and names the referee role) but, without an
  appointment, holds no referee power: a creator who does not play appoints themselves; a
  creator who plays asks someone else (or an administrator) to referee. The
  referee may pause and resume the game (no action is accepted while it is paused, and the
  deadlines stop: their clocks restart on resume), substitute a player (hand their seat to
  another user), and correct the state with a logged reason: a command of the side ``referee``
  in the log (engine/core/referee.py), so replays stay exact.

Per-ruleset seat questions are answered by the ruleset object itself when it has the method, else
by a module ``engine.<ruleset id>.seats`` (engine/tacw/seats.py), looked up with getattr; a
ruleset with neither has no wings, and its extra players act for their whole side.
"""
from __future__ import annotations

import importlib
import json
import shlex
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable

from engine.core.commands import Command, dice_faces, parse, split_side
from engine.core.errors import Illegal
from engine.core.pending import answer_hint
from engine.core.referee import (REFEREE, SECTION, apply_correction, coerce, correction_line,
                                 lookup)

from .errors import NotAllowed, Refused
from .names import label
from .options import CLOCK_RESTARTED, PAUSED
from .service import ActResult, pending_of
from .store import GameRow, MemberRow, SeatTaken

if TYPE_CHECKING:
    from .service import GameService, LoadedGame

REFEREE_ROLE = "referee_role"      # games.options: the server role whose members referee it
# PAUSED ({"by", "at", "reason"} while paused) and CLOCK_RESTARTED (waits count from here: a
# resume, a substitution) are games.options keys of bot/options.py, read by bot/deadlines.py too


def install(service: GameService) -> None:
    """Join the service (bot/hooks.py): who a line is given for, seats shared by several players,
    wings, the referee's pause."""
    service.hooks.acting_side = acting_side


def _now_text(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")


# --- the ruleset's seat questions ------------------------------------------------------------
def seats_module(ruleset: Any) -> Any:
    """The ruleset's seat module (``engine.<id>.seats``), or None when it has none."""
    name = f"engine.{ruleset.id}.seats"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def _hook(ruleset: Any, name: str):
    fn = getattr(ruleset, name, None)
    if fn is None:
        fn = getattr(seats_module(ruleset), name, None)
    return fn


def wings_of(ruleset: Any, scenario: Any, state: Any, side: str) -> list[tuple[str, str]]:
    """The side's wings as (id, name); empty when the ruleset has none."""
    fn = _hook(ruleset, "wings")
    return list(fn(scenario, state, side)) if fn is not None else []


def wing_name(ruleset: Any, scenario: Any, state: Any, side: str | None, wing: str | None) -> str:
    if not wing or not side:
        return ""
    return dict(wings_of(ruleset, scenario, state, side)).get(wing, wing)


def command_wings(ruleset: Any, scenario: Any, state: Any, side: str, cmd: Command) -> set[str]:
    """The side's wings the command concerns; empty: the whole side's command."""
    fn = _hook(ruleset, "command_wings")
    return set(fn(scenario, state, side, cmd)) if fn is not None else set()


def waiting_wing(ruleset: Any, state: Any, side: str) -> str | None:
    fn = _hook(ruleset, "waiting_wing")
    return fn(state, side) if fn is not None else None


# --- who the game waits on -------------------------------------------------------------------
@dataclass(frozen=True)
class Waiting:
    """Whom the game waits on: a side, the users to mention, what they must do."""
    side: str
    users: tuple[int, ...]
    wing: str | None
    kind: str                  # "turn", or the pending decision's kind
    what: str

    @property
    def key(self) -> str:
        """Stable while the same people are asked the same thing (bot/status_message.py)."""
        return f"{self.side}:{self.wing or ''}:{self.kind}:{','.join(map(str, self.users))}"


def waiting_on(ruleset: Any, scenario: Any, state: Any, seats: dict[str, int],
               members: Iterable[MemberRow]) -> Waiting | None:
    """Who must act now, or None when the battle is over. The wing's own player when the game
    waits on one wing that has one; else the side's first player and its players for all."""
    side = ruleset.to_act(state)
    if side is None:
        return None
    members = [m for m in members if m.role == "player" and m.side == side]
    wing = waiting_wing(ruleset, state, side)
    wing_players = [m.user_id for m in members if wing and m.wing == wing]
    if wing_players:
        users = wing_players
    else:
        users = ([seats[side]] if side in seats else []) + [m.user_id for m in members if m.wing is None]
    pending = pending_of(state, ruleset)
    if pending is None:
        kind, what = "turn", "to act"
    elif pending.kind == "retreat" and pending.piece:          # Battle Cry: the piece and its hexes
        kind, what = pending.kind, f"choose a retreat hex for {pending.piece}: {', '.join(pending.options)}"
    else:                                   # the ruleset's own words (a TACW retreat names its unit)
        kind, what = pending.kind, pending.prompt or f"answer the {pending.kind.replace('_', ' ')} decision"
    if wing:
        what += f" ({wing_name(ruleset, scenario, state, side, wing)})"
    if pending is not None and pending.answers:            # the command that answers it (issue 12)
        what += f"; answer with the buttons or `/act {answer_hint(pending.answers)}`"
    return Waiting(side, tuple(users), wing, kind, what)


def loaded_waiting(loaded: LoadedGame) -> Waiting | None:
    if loaded.row.status != "active":
        return None
    return waiting_on(loaded.ruleset, loaded.scenario, loaded.state, loaded.seats, loaded.members)


# --- who may act -----------------------------------------------------------------------------
def player_member(loaded: LoadedGame, user_id: int) -> MemberRow | None:
    return next((m for m in loaded.members if m.user_id == user_id and m.role == "player"), None)


def paused_text(row: GameRow) -> str | None:
    p = row.options.get(PAUSED)
    if not p:
        return None
    why = f": {p['reason']}" if p.get("reason") else ""
    return f"the game is paused by the referee <@{p.get('by')}>{why}. No action is accepted until /referee resume"


def refuse_if_paused(row: GameRow, doing: str = "") -> None:
    """Refused, saying who paused the game and why, while the referee has paused it; `doing`
    names what waits ("taking an action back waits: the game is paused ...")."""
    paused = paused_text(row)
    if paused:
        raise Refused(f"{doing} waits: {paused}" if doing else paused)


def acting_side(loaded: LoadedGame, user_id: int, line: str) -> tuple[str, Command]:
    """The side the user acts for with `line`, and the parsed command; refuses (NotAllowed,
    Refused) a spectator, any action while the game is paused, and a wing player's command
    for another wing or for the whole side. Called by `GameService.act` under the game lock."""
    side = loaded.side_of(user_id)
    if side is None:
        raise NotAllowed("you are not a player in this game (only seated players give orders); "
                         "spectators see the board, status and log")
    refuse_if_paused(loaded.row)
    named, line = split_side(line, loaded.ruleset.sides)     # a script line, `side: command`
    if named is not None and named != side:
        raise NotAllowed(f"the line is {named.title()}'s (`{named}:`), and you play {side.title()}")
    cmd = parse(line, dice_faces(loaded.ruleset))
    if loaded.seats.get(side) == user_id:
        return side, cmd                        # the side's first player acts for all of it
    member = player_member(loaded, user_id)
    first = loaded.seats.get(side)
    boss = f"the side's first player (<@{first}>)" if first else "the side's first player"
    if cmd.verb == "resign":
        raise NotAllowed(f"only {boss} may resign the battle for {side.title()}")
    if member is None or member.wing is None:
        return side, cmd
    rs, sc, st = loaded.ruleset, loaded.scenario, loaded.state
    concerned = command_wings(rs, sc, st, side, cmd)
    mine = wing_name(rs, sc, st, side, member.wing)
    if not concerned:
        raise NotAllowed(f"`{cmd.verb}` is for the whole of {side.title()}: it is {boss}'s to give; "
                         f"you command {mine}")
    others = sorted(concerned - {member.wing})
    if others:
        names = ", ".join(wing_name(rs, sc, st, side, w) for w in others)
        raise NotAllowed(f"you command {mine}; this command concerns {names} (its player, or {boss})")
    return side, cmd


# --- referees --------------------------------------------------------------------------------
def referee_ids(members: Iterable[MemberRow]) -> list[int]:
    return [m.user_id for m in members if m.role == "referee"]


def referee_role(row: GameRow) -> int | None:
    value = row.options.get(REFEREE_ROLE)
    return int(value) if value else None


def is_player(loaded: LoadedGame, user_id: int) -> bool:
    return loaded.side_of(user_id) is not None


def is_referee(loaded: LoadedGame, user_id: int, role_ids: Iterable[int] = (), is_admin: bool = False) -> bool:
    """A referee of this game (module docstring: never one of its players)."""
    if is_player(loaded, user_id):
        return False
    role = referee_role(loaded.row)
    return (user_id in referee_ids(loaded.members) or (role is not None and role in set(role_ids))
            or is_admin)


def _need_referee(loaded: LoadedGame, user_id: int, role_ids: Iterable[int], is_admin: bool, what: str) -> None:
    if is_player(loaded, user_id):
        raise NotAllowed(f"a player of this game cannot {what}: that is the referee's (/referee appoint)")
    if not is_referee(loaded, user_id, role_ids, is_admin):
        role = referee_role(loaded.row)
        who = ", ".join([f"<@{u}>" for u in referee_ids(loaded.members)] + ([f"<@&{role}>"] if role else []))
        raise NotAllowed(f"only the game's referee ({who or 'none appointed: /referee appoint'}) "
                         f"or a server administrator may {what}")


def _need_organizer(row: GameRow, user_id: int, is_admin: bool, what: str) -> None:
    if user_id != row.created_by and not is_admin:
        raise NotAllowed(f"only the game's creator or a server administrator may {what}")


async def appoint_referee(service: GameService, channel_id: int, actor: int, target: int,
                          is_admin: bool = False) -> GameRow:
    row = await service.game_row(channel_id)
    _need_organizer(row, actor, is_admin, "appoint its referee")
    await service.store.add_member(row.id, target, "referee")     # SeatTaken: a player cannot
    return row


async def dismiss_referee(service: GameService, channel_id: int, actor: int, target: int,
                          is_admin: bool = False) -> GameRow:
    row = await service.game_row(channel_id)
    if actor != target:
        _need_organizer(row, actor, is_admin, "dismiss its referee")
    if await service.store.remove_member(row.id, target, "referee") is None:
        raise Refused(f"<@{target}> is not a referee of game #{row.id}")
    return row


async def set_referee_role(service: GameService, channel_id: int, actor: int, role_id: int | None,
                           is_admin: bool = False) -> GameRow:
    row = await service.game_row(channel_id)
    _need_organizer(row, actor, is_admin, "name its referee role")
    async with service.store.game_lock(row.id):
        await service.store.set_options(row.id, **{REFEREE_ROLE: str(role_id) if role_id else None})
    return await service.store.get_game(row.id)


async def _active_loaded(service: GameService, channel_id: int) -> LoadedGame:
    loaded = await service.load(channel_id)
    if loaded.row.status != "active":
        raise Refused("the game has not started yet (/game start)")
    return loaded


async def pause(service: GameService, channel_id: int, user_id: int, role_ids: Iterable[int] = (),
                reason: str = "", is_admin: bool = False, now: datetime | None = None) -> GameRow:
    """The referee stops the game: no action is accepted and no deadline runs until resumed."""
    row = await service.game_row(channel_id)
    async with service.store.game_lock(row.id):
        loaded = await _active_loaded(service, channel_id)
        _need_referee(loaded, user_id, role_ids, is_admin, "pause the game")
        if loaded.row.options.get(PAUSED):
            raise Refused("the game is already paused (/referee resume)")
        await service.store.set_options(row.id, **{PAUSED: {"by": user_id, "at": _now_text(now),
                                                            "reason": reason.strip()[:300]}})
    return await service.store.get_game(row.id)


async def resume(service: GameService, channel_id: int, user_id: int, role_ids: Iterable[int] = (),
                 is_admin: bool = False, now: datetime | None = None) -> GameRow:
    """The game goes on; every deadline's clock restarts now (bot/deadlines.py)."""
    row = await service.game_row(channel_id)
    async with service.store.game_lock(row.id):
        loaded = await _active_loaded(service, channel_id)
        _need_referee(loaded, user_id, role_ids, is_admin, "resume the game")
        if not loaded.row.options.get(PAUSED):
            raise Refused("the game is not paused")
        await service.store.set_options(row.id, **{PAUSED: None, CLOCK_RESTARTED: _now_text(now)})
    return await service.store.get_game(row.id)


async def substitute(service: GameService, channel_id: int, user_id: int, old_user: int, new_user: int,
                     role_ids: Iterable[int] = (), is_admin: bool = False,
                     now: datetime | None = None) -> list[str]:
    """Give `old_user`'s seat (and wing) to `new_user`; the waits restart for the newcomer.
    Returns what changed hands ('union', 'royalist/r-left')."""
    row = await service.game_row(channel_id)
    async with service.store.game_lock(row.id):
        loaded = await service.load_row(row)
        _need_referee(loaded, user_id, role_ids, is_admin, "substitute a player")
        if new_user == user_id:
            raise Refused("the referee cannot take a seat in the game they referee")
        moved = await service.store.substitute(row.id, old_user, new_user)   # SeatTaken says why not
        if not moved:
            raise Refused(f"<@{old_user}> holds no seat in game #{row.id}")
        await service.store.set_options(row.id, **{CLOCK_RESTARTED: _now_text(now)})
    return moved


def parse_changes(data: dict, text: str) -> list[tuple[str, Any]]:
    """`path=value path=value ...` (quote a value with spaces) into typed changes."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise Illegal(f"cannot read the changes: {exc}", SECTION) from None
    changes = []
    for word in words:
        path, sep, value = word.partition("=")
        if not sep or not path.strip():
            raise Illegal(f"'{word}' is not path=value (e.g. pieces.ui2.figures=3)", SECTION)
        changes.append((path.strip(), coerce(data, path.strip(), value)))
    return changes


async def correct(service: GameService, channel_id: int, user_id: int, changes_text: str, reason: str,
                  role_ids: Iterable[int] = (), is_admin: bool = False,
                  interaction_id: str | int | None = None) -> ActResult:
    """The referee's correction: a `referee` command in the log (engine/core/referee.py), stored,
    replayed and shown like any other; all or nothing."""
    iid = str(interaction_id) if interaction_id is not None else None
    row = await service.game_row(channel_id)
    async with service.store.game_lock(row.id):
        loaded = await _active_loaded(service, channel_id)
        _need_referee(loaded, user_id, role_ids, is_admin, "correct the state")
        if iid is not None and await service.store.has_interaction(iid):
            raise Refused("this correction was already applied")
        if not reason or not reason.strip():
            raise Refused("a correction needs its reason: it is logged for both players")
        rs = loaded.ruleset
        data = json.loads(json.dumps(rs.state_to_dict(loaded.state)))
        changes = parse_changes(data, changes_text)
        cmd = parse(correction_line(changes, reason))
        state, events = apply_correction(rs, loaded.scenario, loaded.state, cmd, reason_text=reason.strip())
        seq = loaded.seq + 1
        await service.store.append_command(
            row.id, seq=seq, user_id=user_id, side=REFEREE, text=cmd.text, dice=[],
            events=[e.to_dict() for e in events], state=rs.state_to_dict(state), interaction_id=iid)
        to_act = rs.to_act(state)
        result = str(getattr(state, "result", "") or "")
        if to_act is None:
            await service.store.set_status(row.id, "over", result or "over")
        done = ActResult(row.id, seq, REFEREE, cmd.text, events, rs, loaded.scenario, state, loaded.seats,
                         to_act, loaded.seats.get(to_act) if to_act else None, to_act is None, result,
                         pending_of(state, rs), members=loaded.members)
        await service.applied_hooks(done, pending_of(loaded.state, rs))   # a game it ended: campaigns...
        return done


async def inspect(service: GameService, channel_id: int, user_id: int, path: str,
                  role_ids: Iterable[int] = (), is_admin: bool = False) -> str:
    """For the referee (ephemeral): the value at a state path, or the keys there."""
    loaded = await service.load(channel_id, finished_ok=True)
    _need_referee(loaded, user_id, role_ids, is_admin, "inspect the state")
    data = json.loads(json.dumps(loaded.ruleset.state_to_dict(loaded.state)))
    value = lookup(data, path) if path and path.strip() else data
    if isinstance(value, dict):
        keys = ", ".join(f"`{k}`" for k in list(value)[:60])
        return f"`{path or '(state)'}` holds: {keys}" + (" …" if len(value) > 60 else "")
    return f"`{path}` = `{json.dumps(value, ensure_ascii=False)[:1800]}`"


# --- more players on a side ------------------------------------------------------------------
async def join_side(service: GameService, channel_id: int, user_id: int, side: str,
                    wing: str | None = None) -> LoadedGame:
    """Join a side whose first player is seated: for one wing, or (no wing) for all of it."""
    row = await service.game_row(channel_id)
    loaded = await service.load_row(row)
    rs = loaded.ruleset
    side = (side or "").lower().strip()
    if side not in rs.sides:
        raise Refused(f"'{side}' is not a side of {rs.name} ({', '.join(rs.sides)})")
    if side not in loaded.seats:
        raise Refused(f"{side.title()} has no first player yet: take it with /game join")
    if wing:
        wing = wing.strip().lower()
        known = dict(wings_of(rs, loaded.scenario, loaded.state, side))
        if not known:
            raise Refused(f"{rs.name} has no wings: join {side.title()} for the whole side (/seat join-side)")
        if wing not in known:
            raise Refused(f"'{wing}' is not a wing of {side.title()} ({', '.join(known)})")
    try:
        await service.store.add_member(row.id, user_id, "player", side, wing or None)
    except SeatTaken as exc:
        raise Refused(str(exc)) from None
    return await service.load_row(row)


async def leave_side(service: GameService, channel_id: int, user_id: int) -> MemberRow:
    """A player who shares a side leaves it (at any time: the first player still holds the side)."""
    row = await service.game_row(channel_id)
    gone = await service.store.remove_member(row.id, user_id, "player")
    if gone is None:
        raise NotAllowed("you do not share a side in this game (a side's first player leaves with "
                         "/game leave before the start, or /game resign)")
    return gone


# --- words -----------------------------------------------------------------------------------
async def player_names(service: GameService, loaded: LoadedGame) -> dict[int, str]:
    """The names of the game's players and referees as the store knows them (bot/names.py)."""
    return await service.store.display_names(loaded.row.guild_id,
                                             [*loaded.seats.values(), *(m.user_id for m in loaded.members)])


def roster_lines(loaded: LoadedGame, names: dict[int, str] | None = None) -> list[str]:
    """Each side's players, then the referees, by name (`names`, else their mentions); public,
    without pings."""
    rs, sc, st = loaded.ruleset, loaded.scenario, loaded.state
    lines = []
    for side in rs.sides:
        first = loaded.seats.get(side)
        who = [f"{label(first, names)} (all)" if first else "_free: /game join_"]
        for m in loaded.members:
            if m.role == "player" and m.side == side:
                who.append(f"{label(m.user_id, names)} ({wing_name(rs, sc, st, side, m.wing) if m.wing else 'all'})")
        lines.append(f"**{side.title()}**: " + ", ".join(who))
    refs = [label(u, names) for u in referee_ids(loaded.members)]
    role = referee_role(loaded.row)
    if role:
        refs.append(f"<@&{role}>")
    lines.append("**Referee**: " + (", ".join(refs) if refs else "none (/referee appoint)"))
    return lines


async def seat_text(service: GameService, channel_id: int) -> str:
    loaded = await service.load(channel_id, finished_ok=True)
    lines = [f"Game #{loaded.row.id} · {loaded.ruleset.name} · seats"] + roster_lines(
        loaded, await player_names(service, loaded))
    wings = [f"{s.title()}: " + ", ".join(f"`{w}` {n}" for w, n in wings_of(loaded.ruleset, loaded.scenario,
                                                                         loaded.state, s))
             for s in loaded.ruleset.sides if wings_of(loaded.ruleset, loaded.scenario, loaded.state, s)]
    if wings:
        lines.append("Wings (/seat join-wing): " + " · ".join(wings))
    lines.append("Everyone else is a spectator: boards, status and log, no orders.")
    if paused_text(loaded.row):
        lines.append(f"⏸️ {paused_text(loaded.row)}")
    return "\n".join(lines)


def waiting_text(loaded: LoadedGame, names: dict[int, str] | None = None) -> str:
    """'**Union** <@1>: to act', '⏸️ paused by the referee · **Union** <@1>: to act',
    'setting up: free Confederate (/game join)', '🏁 over: Union wins'."""
    row = loaded.row
    if row.status == "setup":
        free = [s.title() for s in loaded.ruleset.sides if s not in loaded.seats]
        return "setting up: " + (f"free {', '.join(free)} (/game join)" if free else "ready for /game start")
    w = loaded_waiting(loaded)
    if w is None:
        return f"🏁 over: {row.result or getattr(loaded.state, 'result', '') or 'the battle has ended'}"
    who = " ".join(label(u, names) for u in w.users) or "(free seat)"
    text = f"**{w.side.title()}** {who}: {w.what}"
    return f"⏸️ paused by the referee · {text}" if row.options.get(PAUSED) else text


def seats_moved_text(loaded: LoadedGame, moved: list[str]) -> str:
    """'Royalist (Royalist centre)' for the store's 'royalist/r-centre'."""
    out = []
    for item in moved:
        side, _, wing = item.partition("/")
        name = wing_name(loaded.ruleset, loaded.scenario, loaded.state, side, wing) if wing else ""
        out.append(f"**{side.title()}**" + (f" ({name})" if name else ""))
    return ", ".join(out)
