"""Physical dice (issue 5, Arbitration): the players roll their own dice and type the results in.

A game is created in this mode with `/game new dice:physical` (`games.options["dice"]`; absent or
"seeded" = Herald rolls from the recorded seeded stream). Everything else is adjudicated as usual.

The flow, all through `GameService.act` (one command language, DESIGN principle 5):

1. A player gives a command. It is applied with the engine in physical-dice mode
   (`engine.core.dice.PHYSICAL_DICE`): the first die the command needs that it did not bring
   raises `DiceNeeded` (its purpose and die). Nothing is stored but the question: the command
   waits in `games.options["dice_pending"]` and the bot answers the roller, publicly, which dice
   to roll and for what (purpose, die, how many when the rules roll several at once: "battle die
   1 of 3" -> three battle dice). This is a `DiceRequest`, shown by `views.refuse` as a public
   message rather than a refusal.
2. The roller answers `/dice <results>` (the line `dice <results>`). The results are read as the
   die shows them (a TACW d10 0-9 as printed, a Battle Cry battle die by face name or number),
   checked against the die, converted to the engine's 1-based faces, and the command is applied
   again with every result given so far. More dice needed (a morale check after the fire, the
   battle back...) -> the next question; otherwise the command is committed like any other,
   with its results in its text (`... dice=8,4`), so every replay is exact, and with one
   "dice" event before the adjudication's own events that logs the results as entered.

Decisions (HERALD, DESIGN "physical dice"):
- Each die is rolled by the side it belongs to at the table: the engine names it when it is not
  the commanding side's (`DiceStream.roll(..., roller)`: TACW's reaction fire by the firer, a
  morale check or a retreat-impossible roll by the unit's owner, a leader's loss roll by his
  side, each side its own initiative die). The question pings that side's player; the other
  dice are rolled by the player who gave the command (a player of the same side may enter them
  too, a wing player only for the wing the command concerns, bot/club.py). One purpose is asked
  at a time, each named ("fire, p1 at r1": the reaction fire), so everyone reads each result as
  it is entered. The command stays its giver's (stored as his side's and his, so only he may
  ask to take it back); the log says who entered which result. Battle Cry has no battle back:
  every battle die is the attacker's (BC §4.4).
- While a command waits for dice the game waits: no other command is accepted (its results
  depend on the state the question was asked on), but a player may always resign. `/dice cancel` withdraws the command: by its
  roller before any result is entered, or by any player of another side at any time (a roller
  who went away).
- Too many results: refused, nothing is kept: `/dice` takes at most the dice Herald asked for
  (the dice rolled together for one purpose: "battle die 3 of 5" -> 3), never results for a
  roll not named yet (a TACW fire's reaction fire, a leader loss roll: each is asked in turn,
  so every result is entered knowing what it is for); too few: the next question. Results typed
  with the command itself (`dice=`) are the engine's faces, used in order ("only 2 were needed").
- Hidden draws (card draws and shuffles, DiceStream.randbelow) stay Herald's seeded draws: they
  are hidden information, not dice on the table. So do the rolls made while the game is set up,
  before any command (TACW: the first turn's initiative, §3.1).
- A TACW command that stopped for an owner's choice (retreat hexes, advance choices: HERALD D93)
  is replayed from its start when the choice is answered, with the same dice: the answer carries
  the results already entered for it (the per-ruleset `carried_dice`), and only new dice are
  asked of the one who answers.
- A request for dice ends any open undo request (bot/undo.py): the dice may have been rolled.

Ruleset-specific parts are a `DiceProfile` per ruleset: how each die reads, and which results an
answer carries. A ruleset may publish its own as a `physical_dice` attribute; otherwise one
registered here by ruleset id is used, and a later ruleset with plain numbered dice needs nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from engine.core.commands import Command, dice_faces, parse
from engine.core.dice import PHYSICAL_DICE
from engine.core.errors import CannotParse, DiceNeeded, Illegal
from engine.core.events import Event

from .club import refuse_if_paused
from .errors import NotAllowed, Refused

if TYPE_CHECKING:
    from .service import GameService, LoadedGame
    from .store import GameRow

DICE_OPTION = "dice"                # games.options key: "physical" or absent/"seeded"
PHYSICAL, SEEDED = "physical", "seeded"
MODES = (SEEDED, PHYSICAL)
PENDING = "dice_pending"            # games.options key: the command waiting for its dice
DICE_VERB = "dice"                  # the line `dice <results>` answers the question
ALWAYS = {"resign"}                 # accepted even while a command waits for its dice
SECTION = "Herald physical dice"


class DiceRequest(Refused):
    """Not a refusal: the command waits for dice. `public`: views.refuse posts it for everyone."""
    public = True


# --- how a die reads --------------------------------------------------------------------------
@dataclass(frozen=True)
class DieSpec:
    """A plain numbered die: faces 1..sides, entered as the numbers printed on it."""
    sides: int

    @property
    def name(self) -> str:
        return f"d{self.sides}"

    def plural(self, n: int) -> str:
        return f"{n} {self.name}"

    @property
    def how(self) -> str:
        return f"the number on each die, 1-{self.sides}"

    @property
    def example(self) -> str:
        return "4"

    def read(self, token: str) -> int:
        """The engine's 1-based face for what the player typed; Illegal if it is no face."""
        if not token.isdigit() or not 1 <= int(token) <= self.sides:
            raise Illegal(f"'{token}' is not a face of a {self.name}: enter {self.how}", SECTION)
        return int(token)

    def shown(self, token: str, face: int) -> str:
        """The result as entered, for the log."""
        return token

    def face_text(self, face: int) -> str:
        """How the engine's face `face` reads on the die."""
        return str(face)


@dataclass(frozen=True)
class TenSidedDie(DieSpec):
    """A d10 read 0-9 as printed, 0 being zero (DESIGN dice table; TACW DECISIONS D1: the tables
    are read with 0-9 and no natural result is special). The engine's faces are 1-10:
    face = printed + 1 (engine/tacw: `stream.roll(10) - 1`)."""
    sides: int = 10

    @property
    def how(self) -> str:
        return "the number printed on each die, 0-9 (0 is zero, not ten)"

    @property
    def example(self) -> str:
        return "7"

    def read(self, token: str) -> int:
        if not token.isdigit() or not 0 <= int(token) <= 9:
            raise Illegal(f"'{token}' is not a face of a d10 as printed: enter {self.how}",
                          "TACW dice (DECISIONS D1)")
        return int(token) + 1

    def face_text(self, face: int) -> str:
        return str(face - 1)


@dataclass(frozen=True)
class ZeroToNineD10(TenSidedDie):
    """The d10 of a ruleset that declares `d10_reads_zero = "<its rule>"` (Jours de Gloire [0.4]:
    its engine reads `stream.roll(10) - 1`): read 0-9 as printed, refused citing that rule."""
    rule: str = ""

    def read(self, token: str) -> int:
        if not token.isdigit() or not 0 <= int(token) <= 9:
            raise Illegal(f"'{token}' is not a face of a d10 as printed: enter {self.how}", self.rule)
        return int(token) + 1


@dataclass(frozen=True)
class BattleDie(DieSpec):
    """A Battle Cry battle die (BC §1 components, §4.4): six faces, infantry twice, cavalry,
    artillery, flag, crossed sabres. Entered by face name (or its first letter or emoji) or by the
    engine's number, 1-2 infantry, 3 cavalry, 4 artillery, 5 flag, 6 sabres (the numbers the
    `dice=` word has always taken, engine/battlecry/tables.py DIE_FACES)."""
    sides: int = 6

    @property
    def name(self) -> str:
        return "battle die"

    def plural(self, n: int) -> str:
        return f"{n} battle {'die' if n == 1 else 'dice'}"

    @property
    def how(self) -> str:
        return ("each face's name, letter or number: infantry (i, 1 or 2), cavalry (c, 3), "
                "artillery (a, 4), flag (f, 5), sabres (s, 6)")

    @property
    def example(self) -> str:
        return "flag sabres infantry"

    @staticmethod
    def _tables():
        from engine.battlecry import tables
        return tables

    def read(self, token: str) -> int:
        t = self._tables()
        word = token.lower()
        if word.isdigit() and 1 <= int(word) <= 6:
            return int(word)
        names = dict(t.DIE_FACE_WORDS)          # the names `dice=` reads too
        names.update({sym.replace("\ufe0f", ""): names[name] for name, sym in t.FACE_SYMBOLS.items()})
        if word in names:
            return names[word]
        raise Illegal(f"'{token}' is not a face of a battle die: enter {self.how}", "BC §4.4")

    def shown(self, token: str, face: int) -> str:
        t = self._tables()
        name = t.DIE_FACES[face]
        return f"{t.FACE_SYMBOLS[name]} {name}" + (f" ({token})" if token.isdigit() else "")

    def face_text(self, face: int) -> str:
        return self.shown(str(face), face) if face in self._tables().DIE_FACES else str(face)


# --- per ruleset --------------------------------------------------------------------------------
class DiceProfile:
    """What a ruleset's dice look like at the table. The default serves any ruleset whose dice
    are numbered 1..N and whose commands never replay an earlier one."""

    def die(self, sides: int) -> DieSpec:
        return DieSpec(sides or 6)

    async def carried_dice(self, service: GameService, loaded: LoadedGame, cmd: Command) -> list[int]:
        """Results already entered that `cmd` must bring again (it replays an earlier command)."""
        return []


class BattleCryDice(DiceProfile):
    def die(self, sides: int) -> DieSpec:
        return BattleDie() if sides in (6, 0) else DieSpec(sides)


class TacwDice(DiceProfile):
    def die(self, sides: int) -> DieSpec:
        return TenSidedDie() if sides in (10, 0) else DieSpec(sides)

    async def carried_dice(self, service: GameService, loaded: LoadedGame, cmd: Command) -> list[int]:
        """TACW HERALD D93 (engine/tacw/rules.py `_answer_choice`): answering an owner's choice
        replays the stopped command from its start, so it rolls the same dice again: the results
        entered for that command (and for any answer before this one, which carried them too)."""
        from engine.tacw.rules import CHOICE_VERBS
        pending = getattr(loaded.state, "pending", None) or {}
        replay = pending.get("replay")
        if not replay or cmd.verb not in CHOICE_VERBS:
            return []
        for c in reversed(await service.store.commands(loaded.row.id)):
            done = parse(c.text)
            if done.verb == replay.get("verb") or done.verb in CHOICE_VERBS:
                return list(done.dice)
        return []


class ZeroToNineDice(DiceProfile):
    """A ruleset whose d10 is read 0-9 as printed, by its own declaration (`d10_reads_zero`, the
    rule that says so): no code of its own here."""

    def __init__(self, rule: str):
        self.rule = rule

    def die(self, sides: int) -> DieSpec:
        return ZeroToNineD10(rule=self.rule) if sides in (10, 0) else DieSpec(sides)


PROFILES: dict[str, DiceProfile] = {"battlecry": BattleCryDice(), "tacw": TacwDice()}
DEFAULT = DiceProfile()


def profile_of(ruleset: Any) -> DiceProfile:
    """The ruleset's dice at the table: its own `physical_dice`, Herald's first two rulesets'
    profiles, a d10 read 0-9 when the ruleset declares it (`d10_reads_zero`), else numbered 1..N."""
    own = getattr(ruleset, "physical_dice", None) or PROFILES.get(getattr(ruleset, "id", ""))
    if own is not None:
        return own
    rule = getattr(ruleset, "d10_reads_zero", "")
    return ZeroToNineDice(rule) if rule else DEFAULT


# --- the game's mode and its open question ------------------------------------------------------
def mode_of(options: dict[str, Any] | None) -> str:
    return PHYSICAL if (options or {}).get(DICE_OPTION) == PHYSICAL else SEEDED


def involved(row: GameRow) -> bool:
    """Whether `GameService.act` must go through this module for the game."""
    return mode_of(row.options) == PHYSICAL


def install(service: GameService) -> None:
    """Join the service (bot/hooks.py): in a physical-dice game the rules are applied here
    (`rules_step`), asking the players for their dice."""
    service.hooks.rules_steps.append(rules_step)


async def rules_step(service: GameService, loaded: LoadedGame, side: str, user_id: int,
                     cmd: Command) -> tuple[str, int, Command, Any, list[Event]] | None:
    """`GameService.act`'s rules step for this game, or None when Herald rolls its dice."""
    if not involved(loaded.row):
        return None
    return await apply_physical(service, loaded, side, user_id, cmd)


def check_mode(mode: str | None) -> str:
    """A dice mode as `/game new dice:` gives it, checked before anything is stored."""
    mode = (mode or SEEDED).strip().lower()
    if mode not in MODES:
        raise Refused(f"the dice are '{SEEDED}' (Herald rolls) or '{PHYSICAL}' (the players roll "
                      f"and enter the results), not '{mode}'")
    return mode


def mode_note(mode: str) -> str:
    """The line /game new adds for a physical-dice game."""
    if mode != PHYSICAL:
        return ""
    return ("\n🎲 Physical dice: you roll your own. When an action needs dice Herald says which to "
            "roll and for what; enter the results with /dice.")


async def set_mode(service: GameService, game_id: int, mode: str | None) -> str:
    """Set a new game's dice mode (before it starts: `/game new dice:`)."""
    mode = check_mode(mode)
    row = await service.store.get_game(game_id)
    if row is None or row.status != "setup":
        raise Refused("the dice are chosen when the game is created (/game new dice:)")
    await service.store.set_options(game_id, **{DICE_OPTION: PHYSICAL if mode == PHYSICAL else None})
    return mode


def open_request(loaded: LoadedGame) -> dict | None:
    """The command waiting for dice, if it was asked on the game as it stands (a request from an
    earlier moment is void)."""
    p = loaded.row.options.get(PENDING)
    if isinstance(p, dict) and p.get("game") == loaded.row.id and p.get("seq") == loaded.seq:
        return p
    return None


def count_of(purpose: str) -> int:
    """How many dice are rolled together, when the purpose says so ("battle die 2 of 5" -> 4
    still to roll); otherwise one."""
    m = re.search(r"\b(\d+) of (\d+)\b", purpose)
    if m and 1 <= int(m[1]) <= int(m[2]):
        return int(m[2]) - int(m[1]) + 1
    return 1


def ask_text(request: dict, profile: DiceProfile) -> str:
    """What to roll, for what, and how to enter it."""
    ask = request["ask"]
    spec = profile.die(ask["sides"])
    roller, uid = asked_of(request)
    who = f"<@{uid}>" if uid else "(free seat)"
    done = len(request.get("entered") or [])
    so_far = f" (entered so far: {', '.join(request['entered'])})" if done else ""
    inside = f" {request['side'].title()}'s" if roller != request["side"] else ""
    return (f"🎲 {who} ({roller.title()}), roll **{spec.plural(ask['count'])}** for{inside} "
            f"`{request['verb']}`: {ask['purpose']}{so_far}.\n"
            f"Enter {'it' if ask['count'] == 1 else 'them'} with `/dice results:` as {spec.how}, "
            f"e.g. `/dice results: {spec.example if ask['count'] > 1 else spec.example.split()[0]}`.")


def _strict(loaded: LoadedGame, side: str, cmd: Command) -> tuple[Any, list[Event]]:
    token = PHYSICAL_DICE.set(True)
    try:
        return loaded.ruleset.apply(loaded.scenario, loaded.state, side, cmd)
    finally:
        PHYSICAL_DICE.reset(token)


def needs_dice(ruleset: Any, scenario: Any, state: Any, side: str, line: str) -> bool:
    """Whether the command `line` rolls (or rolled) a die from `state`: it carries results, or
    given none it asks for one. This sees a roll that left no trace in the events, as when a
    TACW resolution rolled, then stopped for the owner's choice (HERALD D93: replayed later)."""
    cmd = parse(line, dice_faces(ruleset))
    if cmd.dice:
        return True
    token = PHYSICAL_DICE.set(True)
    try:
        ruleset.apply(scenario, state, side, cmd)
    except DiceNeeded:
        return True
    except Exception:           # refused now: it did not roll here either
        return False
    finally:
        PHYSICAL_DICE.reset(token)
    return False


def _read(spec: DieSpec, words: tuple[str, ...]) -> tuple[list[int], list[str]]:
    tokens = [w.replace("\ufe0f", "") for w in re.split(r"[\s,;]+", " ".join(words)) if w.strip(" ,;")]
    if not tokens:
        raise CannotParse(f"usage: /dice results: <the results>, as {spec.how}")
    faces = [spec.read(t) for t in tokens]
    return faces, [spec.shown(t, f) for t, f in zip(tokens, faces)]


# --- the rules step ------------------------------------------------------------------------------
async def apply_physical(service: GameService, loaded: LoadedGame, side: str, user_id: int,
                         cmd: Command) -> tuple[str, int, Command, Any, list[Event]]:
    """`GameService.act`'s rules step for a physical-dice game (under the game lock): returns the
    side and user the command is stored as (its giver's, also when the other side entered the
    last die), the command to store, the new state and the events, or raises (nothing stored; a
    `DiceRequest` when the command waits for dice)."""
    profile = profile_of(loaded.ruleset)
    request = open_request(loaded)
    if cmd.verb == DICE_VERB:
        if request is None:
            raise Refused("no dice are awaited in this game: give your command, and Herald asks for "
                          "dice when it needs them")
        roller, who = asked_of(request)
        if side != roller:
            raise NotAllowed(f"these dice are {roller.title()}'s to roll"
                             + (f" (<@{who}>)" if who else "") + f": {request['ask']['purpose']}")
        spec = profile.die(request["ask"]["sides"])
        faces, shown = _read(spec, cmd.args)
        asked = int(request["ask"].get("count") or 1)
        if len(faces) > asked:      # never spill into a roll Herald has not named yet
            raise Illegal(f"Herald asked for {spec.plural(asked)} ({request['ask']['purpose']}) and "
                          f"{len(faces)} results were entered: nothing is recorded. Enter "
                          f"{'it' if asked == 1 else f'at most {asked}'}; Herald then says what the "
                          "next roll is for", SECTION)
        if roller != request["side"]:          # the other side's die, inside the giver's command
            shown = [f"{x} ({roller.title()})" for x in shown]
        full = Command(request["verb"], tuple(request["args"]), tuple(request["dice"]) + tuple(faces))
        return await _run(service, loaded, request["side"], request["user"], full, request["entered"] + shown,
                          carried=request.get("carried", 0), before=len(request["dice"]))
    if request is not None and cmd.verb not in ALWAYS:
        raise Refused(f"waiting for {request['side'].title()}'s dice (<@{request['user']}>) for "
                      f"`{request['verb']}`: {request['ask']['purpose']}; /dice to enter them "
                      "(or /dice cancel)")
    carried = await profile.carried_dice(service, loaded, cmd)
    full = replace(cmd, dice=tuple(carried) + tuple(cmd.dice))
    # results typed with the command itself (`dice=`: the engine's faces), shown as the die reads
    inline = [profile.die(0).face_text(face) for face in cmd.dice]
    return await _run(service, loaded, side, user_id, full, inline, carried=len(carried), before=len(full.dice))


def asked_of(request: dict) -> tuple[str, int | None]:
    """The side whose die a request asks for, and the user asked (the command's giver for his
    own side's dice; None for a free seat). A request stored before rollers existed is the
    giver's."""
    roller = request.get("roller") or request["side"]
    return roller, request.get("roller_user", request["user"]) if roller != request["side"] else request["user"]


def roller_user(loaded: LoadedGame, roller: str, side: str, user_id: int) -> int | None:
    """Who is asked for a die of `roller`: the command's giver for his own side's dice, else the
    roller side's first player."""
    return user_id if roller == side else loaded.seats.get(roller)


async def _run(service: GameService, loaded: LoadedGame, side: str, user_id: int, full: Command,
               entered: list[str], *, carried: int, before: int) -> tuple[str, int, Command, Any, list[Event]]:
    try:
        state, events = _strict(loaded, side, full)
    except DiceNeeded as need:
        roller = need.roller if need.roller in loaded.ruleset.sides else side
        request = {"game": loaded.row.id, "seq": loaded.seq, "side": side, "user": user_id,
                   "roller": roller, "roller_user": roller_user(loaded, roller, side, user_id),
                   "verb": full.verb, "args": list(full.args), "dice": list(full.dice),
                   "entered": entered, "carried": carried,
                   "ask": {"purpose": need.purpose, "sides": need.sides, "count": count_of(need.purpose)},
                   "asked_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        await service.store.set_options(loaded.row.id, **{PENDING: request})
        # new information: an undo request open on this game lapses (bot/undo.py subscribes)
        await service.hooks.on_new_information.emit(service, loaded.row.id, "dice were asked for")
        raise DiceRequest(ask_text(request, profile_of(loaded.ruleset))) from None
    except Illegal:
        _too_many(loaded, side, full, before)
        raise
    if len(full.dice) > carried:
        events = [entered_event(side, user_id, entered, list(full.dice[carried:]))] + events
    return side, user_id, full, state, events


def _too_many(loaded: LoadedGame, side: str, full: Command, before: int) -> None:
    """A refusal may mean more results were entered than the command rolls: say how many it
    needed (the shortest run of them that completes it), or return to let the refusal stand."""
    for n in range(before + 1, len(full.dice)):
        try:
            _strict(loaded, side, replace(full, dice=full.dice[:n]))
        except DiceNeeded:
            continue
        except Exception:
            return
        raise Illegal(f"{len(full.dice) - before} result(s) entered, but only {n - before} "
                      f"{'was' if n - before == 1 else 'were'} needed: nothing is recorded, enter "
                      "the right number of results", SECTION)


def entered_event(side: str, user_id: int, entered: list[str], faces: list[int]) -> Event:
    """The log line of the results as the players entered them (before the adjudication)."""
    return Event("dice", side, SECTION,
                 f"🎲 {side.title()} rolled at the table and entered: {', '.join(entered) or '-'}",
                 inputs={"entered": entered, "faces": faces, "roller": user_id})


# --- outside act ----------------------------------------------------------------------------------
async def cancel(service: GameService, channel_id: int, user_id: int) -> str:
    """`/dice cancel`: withdraw the command waiting for dice (see the module's decisions)."""
    row = await service.game_row(channel_id)
    async with service.store.game_lock(row.id):
        loaded = await service.load_row(await service.game_row(channel_id))
        request = open_request(loaded)
        if request is None:
            raise Refused("no command is waiting for dice in this game")
        side = loaded.side_of(user_id)
        if side is None:
            raise NotAllowed("only a player of this game may withdraw a command waiting for dice")
        refuse_if_paused(loaded.row)
        if side == request["side"] and len(request["dice"]) > request.get("carried", 0):
            raise Refused(f"results were already entered for `{request['verb']}` "
                          f"({', '.join(request['entered'])}): the roll stands, finish it with /dice")
        await service.store.set_options(loaded.row.id, **{PENDING: None})
    who = "withdrawn by its player" if side == request["side"] else f"cancelled by {side.title()}"
    return (f"🎲 {request['side'].title()}'s `{request['verb']}` is {who}: nothing happened, "
            "the game goes on from where it stood.")


async def status(service: GameService, channel_id: int) -> str:
    """`/dice` without results: what the game waits for."""
    loaded = await service.load(channel_id)
    if mode_of(loaded.row.options) != PHYSICAL:
        return ("Herald rolls the dice in this game (seeded, recorded). Physical dice are chosen "
                "when a game is created: /game new dice:physical.")
    request = open_request(loaded)
    if request is None:
        return "🎲 Physical dice: no command is waiting for dice. Herald asks when one needs them."
    return ask_text(request, profile_of(loaded.ruleset))
