"""Undo with consent (issue 5, Club play): a player takes back their last action, if the
opponent agrees, while nothing new is known since.

The rules (HERALD decisions, DESIGN principle 2 "the event log is the truth"):
- Only the game's last command in force, and only by the player who gave it ("their last
  action": once anyone else has acted, the moment has passed). Never a referee's correction
  (side `referee`, engine/core/referee.py: only another correction changes it), nor a command
  another player gave, even a partner on the same side (a wing player, bot/club.py), nor one
  applied for nobody (a deadline's default answer, user None): each is somebody else's action.
- Never while the referee has paused the game (bot/club.py `paused_text`): neither the request
  nor its acceptance; a refusal or a withdrawal, which change nothing, are still answered.
- Never a command that rolled a die (Herald's or the players' own, bot/physical_dice.py), nor
  one that revealed hidden information: a card drawn or dealt, a shuffle. The test is what the
  asker could not see: where the state has a per-player view (`state.public_view(side)`, DESIGN
  "hidden information"), any change in the part hidden from the asker (the deck, the other hand)
  refuses the undo; without one, any hidden draw (the seeded stream moved: `state.draws`) does.
  So does an event a ruleset names as revealing (TACW: the secret boat bridge placed on the
  map, Second Newbury special rule 5), and a ruleset may add its own check as
  `undo_refusal(scenario, before, after, events) -> reason | None`. What the asker showed of
  their own (the card they played, BC §3.2) does not stop it: the rule is there so that nobody
  takes an action back after learning something new, and the opponent who saw it decides.
- The request waits for one answer from a player of another side: Accept or Refuse buttons
  (`herald:undo:<game>:<seq>:yes|no`, rebuilt from their custom_id after a restart like the other
  decision buttons). The asker may withdraw it with Refuse. It is refused automatically once
  new information exists: any later command (the seq moves on), or a die asked for in a
  physical-dice game (`lapse`). Whatever the command (a slash command of any cog), once it has
  run the cog sweeps the game (`sweep`): a lapsed request's message loses its buttons and says
  it was refused automatically (its id is kept in `games.options["undo_message"]`); a button
  clicked on a message the sweep could not reach (a restart, a button answer) is answered the
  same way, and loses its buttons then. Taking back is one command at a time; a player may ask again for
  the command before (it is then their last action), and the opponent consents again.
- An accepted undo changes no row's text: the command is marked (`commands.undone_at`, and
  `undone_by` = the player who took it back) and a record of the undo is appended at the next
  seq (text `undo <seq>`, events: who asked, who agreed; itself marked, so no replay applies it,
  and its `undone_by` is the player who agreed). The next seq makes every button built before
  the undo stale. In the same transaction the snapshots holding the command's effects are
  dropped and the state without it is stored at the record's seq (bot/store.py record_undo), so
  every replay (`GameService.load_row`, `_replay`, `replay_state`, `verify`) skips the command and
  agrees with the snapshot. `/game log` still shows it, struck through.
"""
from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from engine.core.events import Event

from .club import refuse_if_paused
from .errors import NotAllowed, Refused, StaleChoice
from .physical_dice import needs_dice
from .physical_dice import open_request as dice_request
from .store import CommandRow, DuplicateInteraction

if TYPE_CHECKING:
    from .service import GameService, LoadedGame

log = logging.getLogger(__name__)

REQUEST = "undo_request"          # games.options key: the open request
MESSAGE = "undo_message"          # games.options key: where the request was posted (sweep)
VERB = "undo"                     # the text of the record of an undo: `undo <seq>`
SECTION = "Herald undo with consent"
# events that put hidden information in the open, per ruleset (a ruleset may publish its own
# as `revealing_events`)
REVEALING_EVENTS: dict[str, set[str]] = {"tacw": {"boat_bridge"}}


def install(service: GameService) -> None:
    """Join the service (bot/hooks.py): /game log strikes a command taken back through, and an
    open request lapses when something new becomes known without a command (a die asked for)."""
    service.hooks.log_line = log_line
    service.hooks.on_new_information.subscribe(lapse)


def is_record(c: CommandRow) -> bool:
    """Whether a log row is the record of an undo (not a command that was taken back)."""
    return bool(c.undone_at) and c.text.split(" ", 1)[0] == VERB


def log_line(c: CommandRow, line: str) -> str:
    """A `/game log` line: a command taken back is shown struck through."""
    if not c.undone_at or is_record(c):
        return line
    return f"~~{line}~~ (taken back)"


def what_it_did(c: CommandRow) -> str:
    """The command as the channel saw it: its public narratives (never its text, which may hold
    a secret, e.g. TACW's `boatbridge <hex>`)."""
    lines = [str(e.get("narrative", "")) for e in c.events if e.get("narrative")]
    return "; ".join(lines) or "(no public effect)"


def open_request(loaded: LoadedGame) -> dict | None:
    """The undo request still open: asked on the game as it stands."""
    p = loaded.row.options.get(REQUEST)
    if isinstance(p, dict) and p.get("game") == loaded.row.id and p.get("at") == loaded.seq:
        return p
    return None


async def lapse(service: GameService, game_id: int, why: str = "") -> None:
    """New information: an open undo request is refused (bot/physical_dice.py, a die asked for)."""
    row = await service.store.get_game(game_id)
    if row is not None and REQUEST in row.options:
        await service.store.set_options(game_id, **{REQUEST: None})


def headline(c: CommandRow, limit: int = 120) -> str:
    """The command's first public narrative (after the players' dice entry), clipped: for a
    refusal, which need not retell the whole adjudication."""
    lines = [str(e.get("narrative", "")) for e in c.events if e.get("narrative") and e.get("kind") != "dice"]
    text = lines[0] if lines else what_it_did(c)
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def remember_message(service: GameService, game_id: int, at: int, channel_id: int,
                           message_id: int) -> None:
    """Where the request asked at `at` was posted, for `sweep` (only while it is still open)."""
    row = await service.store.get_game(game_id)
    req = row.options.get(REQUEST) if row is not None else None
    if isinstance(req, dict) and req.get("at") == at:
        await service.store.set_options(game_id, **{MESSAGE: {"at": at, "channel_id": channel_id,
                                                              "message_id": message_id}})


def lapsed_text(req: dict | None, now_at: int | None) -> str:
    """What a lapsed request's message says once its buttons are gone."""
    what = (f"{str(req.get('side', '')).title()}'s request to take back #{req.get('seq')}"
            if isinstance(req, dict) else "This undo request")
    since = f" (now at #{now_at})" if now_at is not None else ""
    return (f"↩️ {what} was refused automatically: the game has moved on{since}, so there is new "
            "information. The action stands.")


async def sweep(bot: Any, game_id: int) -> bool:
    """After any command: if the game's undo request lapsed (a later command, dice asked for),
    forget it and take the buttons off its message. Returns whether a request was closed. Never
    raises (it follows an action already answered)."""
    service: GameService = bot.service
    if getattr(service.store, "closed", False):
        return False                        # shutting down: a click on the lapsed request is still refused
    try:
        row = await service.store.get_game(game_id)
        if row is None or (MESSAGE not in row.options and REQUEST not in row.options):
            return False
        async with service.store.game_lock(game_id):      # read again: one sweep closes it
            row = await service.store.get_game(game_id)
            where, req = row.options.get(MESSAGE), row.options.get(REQUEST)
            if not isinstance(where, dict) and not isinstance(req, dict):
                return False
            loaded = await service.load_row(row)
            if open_request(loaded) is not None:
                return False                # still open: nothing new happened
            await service.store.set_options(game_id, **{REQUEST: None, MESSAGE: None})
        if isinstance(where, dict) and where.get("message_id"):
            channel = bot.get_channel(int(where["channel_id"]))
            if channel is None:
                channel = bot.get_partial_messageable(int(where["channel_id"]))
            await channel.get_partial_message(int(where["message_id"])).edit(
                content=lapsed_text(req, loaded.seq), view=None)
        return True
    except Exception:
        log.warning("game %s: the lapsed undo request could not be closed", game_id, exc_info=True)
        return False


async def state_before(service: GameService, loaded: LoadedGame, seq: int) -> Any:
    """The game as it stood before command `seq`: the newest snapshot older than it, plus the
    commands in force between."""
    rs, sc, row = loaded.ruleset, loaded.scenario, loaded.row
    snap = await service.store.snapshot_before(row.id, seq)
    if snap is not None:
        base, state = snap[0], rs.state_from_dict(snap[1])
    else:
        base, state = 0, service._first_state(rs, sc, row)
    live = [c for c in await service.store.commands(row.id) if c.seq < seq]
    state, _ = service._replay(rs, sc, state, live, after=base)
    return state


def hidden_from(state: Any, side: str) -> Any:
    """The part of `state` the player of `side` cannot see (JSON-normalized), to compare."""
    view = getattr(state, "public_view", None)
    if view is None or not hasattr(state, "to_dict"):
        return getattr(state, "draws", None)
    full = json.loads(json.dumps(state.to_dict(), default=str))
    seen = json.loads(json.dumps(view(side), default=str))

    def walk(f: Any, v: Any, path: tuple, out: dict) -> dict:
        if f == v:
            return out
        if isinstance(f, dict) and isinstance(v, dict):
            for k, sub in f.items():
                if k in v:
                    walk(sub, v[k], path + (k,), out)
                else:
                    out[path + (k,)] = sub
            return out
        out[path] = f
        return out

    return walk(full, seen, (), {})


async def takeable(service: GameService, loaded: LoadedGame, side: str,
                   user_id: int | None = None) -> tuple[CommandRow, Any]:
    """The command the player `user_id` of `side` may take back and the state without it, or
    Refused saying why."""
    from engine.core.referee import is_correction

    if loaded.row.status != "active":
        raise Refused("only a game in progress has actions to take back")
    refuse_if_paused(loaded.row, "taking an action back")
    if dice_request(loaded) is not None:
        raise Refused("a command is waiting for dice: the roll cannot be taken back (/dice)")
    live = await service.store.commands(loaded.row.id)
    if not live:
        raise Refused("nothing has been played yet")
    target = live[-1]
    if is_correction(target.side):
        raise Refused(f"the last entry (#{target.seq}) is a referee's correction: a player never takes "
                      "it back (only the referee changes it, with another correction)")
    if target.side != side:
        raise Refused(f"the last action (#{target.seq}) is {str(target.side or 'nobody').title()}'s: "
                      "a player takes back only their own last action, before anything else happens")
    if user_id is not None and target.user_id != user_id:
        by = f"<@{target.user_id}>" if target.user_id else "Herald (a default answer)"
        raise Refused(f"the last action (#{target.seq}) was given by {by}, not by you: a player takes "
                      "back only their own last action")
    if target.dice or any(e.get("dice") for e in target.events):
        raise Refused(f"#{target.seq} rolled dice ({headline(target)}): a roll is never taken back")
    before = await state_before(service, loaded, target.seq)
    if needs_dice(loaded.ruleset, loaded.scenario, before, side, target.text):
        raise Refused(f"#{target.seq} rolled dice ({headline(target)}): a roll is never taken back")
    if hidden_from(before, side) != hidden_from(loaded.state, side):
        raise Refused(f"#{target.seq} revealed hidden information (a card drawn or dealt, a shuffle): "
                      "it cannot be taken back")
    rs = loaded.ruleset
    revealing = getattr(rs, "revealing_events", None) or REVEALING_EVENTS.get(rs.id, set())
    shown = [e for e in target.events if e.get("kind") in revealing]
    if shown:
        raise Refused(f"#{target.seq} concerns hidden information ({headline(target)}): a secret "
                      "recorded or revealed is never taken back (TACW Second Newbury special rule 5: "
                      "its line would show once the secret no longer stands)")
    veto = getattr(rs, "undo_refusal", None)
    reason = veto(loaded.scenario, before, loaded.state, target.events) if veto is not None else None
    if reason:
        raise Refused(f"#{target.seq} cannot be taken back: {reason}")
    return target, before


async def request(service: GameService, channel_id: int, user_id: int) -> tuple[LoadedGame, dict, CommandRow]:
    """`/undo`: ask to take back the user's last action. Returns the game, the stored request and
    the command."""
    row = await service.game_row(channel_id)
    async with service.store.game_lock(row.id):
        loaded = await service.load_row(await service.game_row(channel_id))
        side = loaded.side_of(user_id)
        if side is None:
            raise NotAllowed("only a player of this game may take back an action")
        if open_request(loaded) is not None:
            raise Refused("an undo request is already waiting for an answer")
        target, _ = await takeable(service, loaded, side, user_id)
        req = {"game": loaded.row.id, "seq": target.seq, "at": loaded.seq, "side": side, "user": user_id,
               "requested_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        await service.store.set_options(loaded.row.id, **{REQUEST: req})
        return loaded, req, target


def opponents(loaded: LoadedGame, side: str) -> list[int]:
    """The players who may answer: every seated player and side member of another side."""
    users = [u for s, u in loaded.seats.items() if s != side and u]
    users += [m.user_id for m in loaded.members if m.role == "player" and m.side != side]
    return list(dict.fromkeys(users))


async def answer(service: GameService, channel_id: int, user_id: int, game_id: int, at: int,
                 accept: bool, interaction_id: str | int | None = None) -> tuple[str, LoadedGame | None]:
    """A click on Accept or Refuse. Returns the message for the channel and, when the command was
    taken back, the game as it now stands (None otherwise)."""
    iid = str(interaction_id) if interaction_id is not None else None
    row = await service.game_row(channel_id)
    if row.id != game_id:
        raise StaleChoice("this undo request belongs to an earlier game in this channel")
    async with service.store.game_lock(row.id):
        if iid is not None and await service.store.has_interaction(iid):
            raise Refused("this answer was already applied; nothing new happened")
        loaded = await service.load_row(await service.game_row(channel_id))
        stored = loaded.row.options.get(REQUEST)
        if loaded.seq != at:
            if isinstance(stored, dict) and stored.get("at") == at:
                await service.store.set_options(row.id, **{REQUEST: None, MESSAGE: None})
            raise StaleChoice(f"the undo request was refused automatically: the game has moved on "
                              f"since it was asked (now at #{loaded.seq}), so there is new information")
        req = open_request(loaded)
        if req is None:
            raise StaleChoice("this undo request is no longer open (it was answered, or lapsed)")
        side = loaded.side_of(user_id)
        if side is None:
            raise NotAllowed("only a player of this game may answer an undo request")
        if side == req["side"]:
            if accept:
                raise NotAllowed("your opponent must agree to take an action back")
            await service.store.set_options(row.id, **{REQUEST: None, MESSAGE: None})
            return f"↩️ {side.title()} withdraws the request: #{req['seq']} stands.", None
        if not accept:
            await service.store.set_options(row.id, **{REQUEST: None, MESSAGE: None})
            return (f"↩️ {side.title()} (<@{user_id}>) refuses: #{req['seq']} stands "
                    f"({req['side'].title()}'s action is not taken back).", None)
        refuse_if_paused(loaded.row, "taking an action back")
        target, before = await takeable(service, loaded, req["side"], req["user"])
        if target.seq != req["seq"]:
            raise StaleChoice("this undo request is no longer open: the last action changed")
        text = (f"↩️ {req['side'].title()} takes back #{target.seq} ({what_it_did(target)}), "
                f"with {side.title()}'s consent (<@{user_id}>)")
        event = Event("undo", req["side"], SECTION, text,
                      inputs={"undone": target.seq, "asked_by": req["user"], "agreed_by": user_id})
        try:
            await service.store.record_undo(
                row.id, target.seq, seq=loaded.seq + 1, user_id=req["user"], side=req["side"],
                text=f"{VERB} {target.seq}", events=[event.to_dict()],
                state=loaded.ruleset.state_to_dict(before), undone_by=req["user"], consent_by=user_id,
                interaction_id=iid)
        except DuplicateInteraction:
            raise Refused("this answer was already applied; nothing new happened") from None
        await service.store.set_options(row.id, **{REQUEST: None, MESSAGE: None})
        return text + ".", await service.load_row(await service.store.get_game(row.id))
