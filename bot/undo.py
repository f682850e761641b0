"""Undo with consent (issue 5, Club play): a player takes back their last action, if the
opponent agrees, while nothing new is known since.

The rules (HERALD decisions, DESIGN principle 2 "the event log is the truth"):
- Only the game's last command in force, and only by a player of the side that gave it
  ("their last action": once the opponent has acted, the moment has passed).
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
  physical-dice game (`lapse`). Taking back is one command at a time; a player may ask again for
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
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from engine.core.events import Event

from .service import NotAllowed, Refused, StaleChoice
from .store import CommandRow, DuplicateInteraction

if TYPE_CHECKING:
    from .service import GameService, LoadedGame

REQUEST = "undo_request"          # games.options key: the open request
VERB = "undo"                     # the text of the record of an undo: `undo <seq>`
SECTION = "Herald undo with consent"
# events that put hidden information in the open, per ruleset (a ruleset may publish its own
# as `revealing_events`)
REVEALING_EVENTS: dict[str, set[str]] = {"tacw": {"boat_bridge"}}


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


async def takeable(service: GameService, loaded: LoadedGame, side: str) -> tuple[CommandRow, Any]:
    """The command `side` may take back and the state without it, or Refused saying why."""
    from .physical_dice import needs_dice, open_request as dice_request
    if loaded.row.status != "active":
        raise Refused("only a game in progress has actions to take back")
    if dice_request(loaded) is not None:
        raise Refused("a command is waiting for dice: the roll cannot be taken back (/dice)")
    live = await service.store.commands(loaded.row.id)
    if not live:
        raise Refused("nothing has been played yet")
    target = live[-1]
    if target.side != side:
        raise Refused(f"the last action (#{target.seq}) is {str(target.side or 'nobody').title()}'s: "
                      "a player takes back only their own last action, before anything else happens")
    if target.dice or any(e.get("dice") for e in target.events):
        raise Refused(f"#{target.seq} rolled dice ({what_it_did(target)}): a roll is never taken back")
    before = await state_before(service, loaded, target.seq)
    if needs_dice(loaded.ruleset, loaded.scenario, before, side, target.text):
        raise Refused(f"#{target.seq} rolled dice ({what_it_did(target)}): a roll is never taken back")
    if hidden_from(before, side) != hidden_from(loaded.state, side):
        raise Refused(f"#{target.seq} revealed hidden information (a card drawn or dealt, a shuffle): "
                      "it cannot be taken back")
    rs = loaded.ruleset
    revealing = getattr(rs, "revealing_events", None) or REVEALING_EVENTS.get(rs.id, set())
    shown = [e for e in target.events if e.get("kind") in revealing]
    if shown:
        raise Refused(f"#{target.seq} revealed hidden information ({shown[0].get('narrative', '')}): "
                      "it cannot be taken back")
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
        target, _ = await takeable(service, loaded, side)
        req = {"game": loaded.row.id, "seq": target.seq, "at": loaded.seq, "side": side, "user": user_id,
               "requested_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        await service.store.set_options(loaded.row.id, **{REQUEST: req})
        return loaded, req, target


def opponents(loaded: LoadedGame, side: str) -> list[int]:
    return [u for s, u in loaded.seats.items() if s != side]


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
                await service.store.set_options(row.id, **{REQUEST: None})
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
            await service.store.set_options(row.id, **{REQUEST: None})
            return f"↩️ {side.title()} withdraws the request: #{req['seq']} stands.", None
        if not accept:
            await service.store.set_options(row.id, **{REQUEST: None})
            return (f"↩️ {side.title()} (<@{user_id}>) refuses: #{req['seq']} stands "
                    f"({req['side'].title()}'s action is not taken back).", None)
        target, before = await takeable(service, loaded, req["side"])
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
        await service.store.set_options(row.id, **{REQUEST: None})
        return text + ".", await service.load_row(await service.store.get_game(row.id))
