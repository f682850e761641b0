"""Who may do what (issue 17, "Permissions"): every slash command, tried by every kind of user,
as ONE table with the answer each must get. Run with `-s` to see the table.

Rows: every top-level command and every subcommand of /game, /campaign, /scenario, /seat,
/referee, /turn, plus /dice, /undo, /odds, /explain, /rules, /act, and a few subcommands of each
ruleset's group (/bc, /tacw, /jdg, /lion, /iw), each in a game of its own ruleset.

Columns, the actors (bot/club.py, "Spectators", "A referee"):
- non-player: a member in a channel with no game;
- spectator: a member who holds no seat, in the game's channel;
- other side: the seated player who is not to act, giving the row's command as written (for
  the side to act: its units, its cards);
- out of turn: the same seated player giving the command for his own side (his own units and
  cards) while the other side is to act;
- referee: a user appointed referee of the game (/referee appoint), who does not play;
- admin: a server administrator (harness ADMIN_PERMS) who neither plays nor was appointed;
- to act: the player the game waits on: the control column, so that a refusal elsewhere is
  known to be the actor's and not the command's.

Each cell is "ok" (a public answer), "private" (the answer, or the file it carries, only to the
asker), or "refused: <words>" (a private "❌" refusal naming those words, no file). A refusal
must leave everything as it was: the game's log (last seq), status, options, seats and members,
and no game created in an empty channel. Every cell starts from the same state: a game is used
again only after a refusal that left it untouched; anything else gets a fresh one.

The Battle Cry game is the conftest's test skirmish, in which the Union has played Attack Centre
(so /undo, /explain and /game log have something to show) and still has units to order."""
from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from bot import history, uploads
from tests.bot.conftest import SEED, TEST_SCENARIO
from tests.bot.harness import (ADMIN_PERMS, ALICE, BOB, BOOLEAN, CAROL, GUILD_ID, INTEGER, STRING, SUB,
                               SUB_GROUP, fake_discord_rest, interaction_payload, invoke, option)

DAVE = 500000000000000004        # a server administrator who does not play
RITA = 500000000000000006        # the appointed referee
ERIN = 500000000000000005        # a user named in options (a new referee, a substitute)
ROLE = 600000000000000001

ACTORS = ("non-player", "spectator", "other side", "out of turn", "referee", "admin", "to act")

# Each ruleset's game: scenario, seed, Alice's side, Bob's side, lines played after the start
GAMES = {
    "battlecry": ("test-skirmish", SEED, "union", "confederate", [("union", "play attack-centre"), ("union", "order ui2")]),
    "tacw": ("edgehill", "5", "royalist", "parliament", []),
    "jdg": ("marengo", "1", "french", "austrian", []),
    "lion": ("breitenfeld", "1", "swedish", "imperial", []),
    "italianwars": ("fornovo", "1", "french", "league", []),
}


@dataclass(frozen=True)
class User:            # a User option (type 6), resolved as Discord sends it
    id: int


@dataclass(frozen=True)
class Role:            # a Role option (type 8)
    id: int


@dataclass(frozen=True)
class File:            # an Attachment option (type 11): the bytes come from `make(ctx)`
    make: Callable[["Cell"], bytes]
    name: str = "file.toml"


@dataclass
class Cell:
    """Where and as whom one cell runs."""
    n: int                         # unique in the run
    actor: str
    channel: int
    user: int
    perms: int
    game_id: int | None
    shared: dict[str, Any]         # things made once for the run (the exported game file)


@dataclass
class Row:
    name: str
    sub: str | None
    expect: tuple[str, ...]        # one answer per actor, in ACTORS' order
    opts: dict | Callable[[Cell], dict] = field(default_factory=dict)
    own: dict | None = None        # the out-of-turn actor's options (his own side's); default opts
    ruleset: str = "battlecry"
    setup: Callable[[Any, Cell], Any] | None = None    # run on a fresh game before the cell
    note: str = ""                 # told apart in the printed table

    @property
    def label(self) -> str:
        opts = self.opts if isinstance(self.opts, dict) else {}
        note = self.note or " ".join(f"{k}:{v}" for k, v in opts.items() if isinstance(v, (str, int)))
        return f"/{self.name}" + (f" {self.sub}" if self.sub else "") + (f" {note}" if note else "")


def E(*answers: str) -> tuple[str, ...]:
    assert len(answers) == len(ACTORS), answers
    return answers


# --- setups -------------------------------------------------------------------------------------
async def paused(bot, cell: Cell) -> None:
    from bot import club
    if cell.game_id is None:
        return
    await club.pause(bot.service, cell.channel, RITA, reason="a rules question")


async def finished(bot, cell: Cell) -> None:
    if cell.game_id is not None:
        await bot.service.resign(cell.channel, BOB, None)


async def uploaded_by_alice(bot, cell: Cell) -> None:
    rs = bot.service.ruleset_of("battlecry")
    checked = uploads.validate(rs, scenario_file(cell), "club.toml")
    await uploads.save(bot.store, GUILD_ID, checked, ALICE, False)


def scenario_file(cell: Cell) -> bytes:
    return TEST_SCENARIO.replace('id = "test-skirmish"', f'id = "club-{cell.n}"').encode()


NOGAME = "refused: there is no game in this channel"
NOTPLAYER = "refused: you are not a player in this game (only seated players give orders)"
BUSY = "refused: this channel already has a game (one game per channel)"
BC_TURN = "refused: it is Union's turn (BC §3.2)"
TACW_TURN = "refused: Royalist is the phasing player (TACW §3.2)"
LION_TURN = "refused: this needs your move or shoot or combat card"


def organizer(what: str) -> str:
    return f"refused: only the game's creator or a server administrator may {what}"


def referee_only(what: str) -> str:      # the spectator's refusal, then the player's
    return f"refused: only the game's referee (<@{RITA}>) or a server administrator may {what}"


def not_a_player(what: str) -> str:
    return f"refused: a player of this game cannot {what}: that is the referee's"


def same(answer: str) -> tuple[str, ...]:
    """No game for the non-player, `answer` for everyone in the game's channel."""
    return E(NOGAME, *[answer] * (len(ACTORS) - 1))


def referee_power(what: str, answer: str = "ok") -> tuple[str, ...]:
    return E(NOGAME, referee_only(what), not_a_player(what), not_a_player(what), answer, answer,
             not_a_player(what))


def order(other: str, answer: str = "ok") -> tuple[str, ...]:
    """A ruleset's order: the seated players' own, refused to the spectator, referee and admin."""
    return E(NOGAME, NOTPLAYER, other, other, NOTPLAYER, NOTPLAYER, answer)


ROWS: list[Row] = [
    # /game ---------------------------------------------------------------------------------------
    Row("game", "new", E("ok", BUSY, BUSY, BUSY, BUSY, BUSY, BUSY),
        {"ruleset": "battlecry", "scenario": "test-skirmish", "side": "union"}),
    Row("game", "rematch", E(*["refused: a return game follows a finished battle in this channel"] * 7)),
    Row("game", "rematch", E("refused: a return game follows a finished battle in this channel",
                             "refused: only a player of the finished battle or its creator", "ok", "ok",
                             *["refused: only a player of the finished battle or its creator"] * 2, "ok"),
        setup=finished, note="(over)"),
    Row("game", "join", same("refused: the battle has started: every side is held"), {"side": "confederate"}),
    Row("game", "leave", same("refused: the battle has started: a player leaves it with /game resign")),
    Row("game", "start", same("refused: the game has already started")),
    Row("game", "board", same("ok")),
    Row("game", "status", same("ok")),
    Row("game", "deadline", E(NOGAME, "refused: only a player, the game's creator", "ok", "ok", "ok", "ok", "ok"),
        {"hours": 12}),
    Row("game", "list", E(*["ok"] * 7)),
    Row("game", "log", same("ok")),
    Row("game", "resign", E(NOGAME, NOTPLAYER, "ok", "ok", NOTPLAYER, NOTPLAYER, "ok")),
    Row("game", "abandon", E(NOGAME, *[organizer("abandon it")] * 4, "ok", "ok")),
    Row("game", "replay", same("ok")),
    Row("game", "export", E(NOGAME, "refused: only the game's referee, or its players once they all agree",
                            "ok", "ok", "private", "private", "ok")),     # a player's consent is public
    Row("game", "import", E("ok", BUSY, BUSY, BUSY, BUSY, BUSY, BUSY),
        {"file": File(lambda c: c.shared["export"], "game.json")}),
    # the club's commands ---------------------------------------------------------------------------
    Row("act", None, order(BC_TURN), {"line": "order ug1"}, own={"line": "order ci2"}),
    Row("dice", None, same("private")),
    Row("dice", None, same("refused: Herald rolls the dice in this game"), {"results": "1 2"}),
    Row("undo", None, E(NOGAME, "refused: only a player of this game may take back an action",
                        *["refused: a player takes back only their own last action"] * 2,
                        *["refused: only a player of this game may take back an action"] * 2, "ok")),
    Row("odds", None, E(NOGAME, "refused: only a seated player may ask the odds", BC_TURN, BC_TURN,
                        *["refused: only a seated player may ask the odds"] * 2, "private"),
        {"action": "battle ui2 0604"}, own={"action": "battle ci2 0606"}),
    Row("explain", None, same("ok"), {"entry": "1"}),
    Row("rules", None, E("refused: this channel has no game: say which rules to search", *["ok"] * 6),
        {"query": "retreat"}),
    Row("campaign", "new", E(*["ok"] * 7), lambda c: {"name": f"Season {c.n}"}),
    Row("campaign", "add", E(NOGAME, "refused: only the campaign's creator, a server administrator, or a player",
                             "ok", "ok", "refused: only the campaign's creator, a server administrator, or a player",
                             "ok", "ok"), {"campaign": "Club"}),
    Row("campaign", "standings", E(*["ok"] * 7), {"campaign": "Club"}),
    Row("campaign", "list", E(*["ok"] * 7)),
    Row("scenario", "upload", E(*["ok"] * 7), {"ruleset": "battlecry", "file": File(scenario_file)}),
    Row("scenario", "list", E(*["ok"] * 7)),
    Row("scenario", "remove", E(*[f"refused: only <@{ALICE}>, who uploaded it, or a server manager"] * 5, "ok", "ok"),
        lambda c: {"ruleset": "battlecry", "scenario": f"club-{c.n}"}, setup=uploaded_by_alice),
    Row("seat", "join-side", E(NOGAME, "ok", *["refused: already commands side 'confederate'"] * 2,
                               "refused: is already a referee in this game", "ok",
                               "refused: already commands side 'union'"), {"side": "union"}),
    Row("seat", "join-wing", E(NOGAME, "ok", *["refused: already commands side 'parliament'"] * 2,
                               "refused: is already a referee in this game", "ok",
                               "refused: already commands side 'royalist'"), {"wing": "r-centre"}, ruleset="tacw"),
    Row("seat", "leave", same("refused: you do not share a side in this game")),
    Row("seat", "list", same("ok")),
    Row("referee", "appoint", E(NOGAME, *[organizer("appoint its referee")] * 4, "ok", "ok"), {"user": User(ERIN)}),
    Row("referee", "dismiss", E(NOGAME, *[organizer("dismiss its referee")] * 3, "ok", "ok", "ok"),
        {"user": User(RITA)}),                                  # the referee dismisses themself
    Row("referee", "role", E(NOGAME, *[organizer("name its referee role")] * 4, "ok", "ok"), {"role": Role(ROLE)}),
    Row("referee", "pause", referee_power("pause the game"), {"reason": "a rules question"}),
    Row("referee", "resume", referee_power("resume the game"), setup=paused),
    Row("referee", "substitute", referee_power("substitute a player"),
        {"player": User(BOB), "replacement": User(ERIN)}),
    Row("referee", "correct", referee_power("correct the state"),
        {"changes": "pieces.ui2.figures=3", "reason": "a misplaced figure"}),
    Row("referee", "show", referee_power("inspect the state", "private"), {"path": "pieces"}),
    Row("turn", "deadline", E(NOGAME, "refused: only a player, the game's creator, its referee or a server "
                              "administrator may set its turn deadline", *["ok"] * 5), {"hours": 12}),
    Row("turn", "status", same("private")),
    # the rulesets' own groups, each in a game of its ruleset ------------------------------------------
    Row("bc", "hand", E(NOGAME, *["refused: you are not a player in this game, so you hold no cards"],
                        "private", "private", *["refused: you are not a player in this game, so you hold no cards"] * 2,
                        "private")),
    Row("bc", "units", same("private")),
    Row("bc", "play", order(BC_TURN, "refused: you have already played a card this turn"), {"card": "attack-left"}),
    Row("bc", "order", order(BC_TURN), {"units": "ug1"}, own={"units": "ci2"}),
    Row("bc", "end", order(BC_TURN)),
    Row("bc", "policy", order("ok"), {"kind": "retreat", "value": "auto"}),     # a side's own, at any time
    Row("tacw", "info units", same("private"), ruleset="tacw"),
    Row("tacw", "activation activate", order(TACW_TURN), {"wing": "r-right"}, own={"wing": "p-left"},
        ruleset="tacw"),
    Row("jdg", "units", same("private"), ruleset="jdg"),
    Row("jdg", "orders", E(NOGAME, NOTPLAYER, "refused: watrin (Watrin (Lannes)) is not your formation", "private",
                           NOTPLAYER, NOTPLAYER, "private"),          # secret orders: both sides write them
        {"formations": "watrin"}, own={"formations": "ott"}, ruleset="jdg"),
    Row("lion", "generals", same("private"), ruleset="lion"),
    Row("lion", "next", order(LION_TURN), ruleset="lion"),
    Row("iw", "battles", same("private"), ruleset="italianwars"),
    Row("iw", "roll", order("ok"), ruleset="italianwars"),    # the pre-battle dice roll for both sides
]


# --- running a cell ---------------------------------------------------------------------------------
def payload_for(row: Row, cell: Cell, opts: dict) -> dict:
    plain = [option(k, v, BOOLEAN if isinstance(v, bool) else INTEGER if isinstance(v, int) else STRING)
             for k, v in opts.items() if not isinstance(v, (User, Role, File))]
    payload = interaction_payload(row.name, plain, subcommand=row.sub, user_id=cell.user,
                                  permissions=cell.perms, channel_id=cell.channel)
    target = payload["data"]["options"]
    while target and target[0]["type"] in (SUB, SUB_GROUP):     # down to the subcommand's options
        target = target[0]["options"]
    resolved: dict = {"users": {}, "roles": {}, "attachments": {}}
    for key, v in opts.items():
        if isinstance(v, User):
            target.append({"name": key, "type": 6, "value": str(v.id)})
            resolved["users"][str(v.id)] = {"id": str(v.id), "username": f"user{v.id % 1000}",
                                            "discriminator": "0", "avatar": None, "global_name": None}
        elif isinstance(v, Role):
            target.append({"name": key, "type": 8, "value": str(v.id)})
            resolved["roles"][str(v.id)] = {"id": str(v.id), "name": "Referees", "color": 0, "hoist": False,
                                            "position": 1, "permissions": "0", "managed": False,
                                            "mentionable": True, "flags": 0}
        elif isinstance(v, File):
            data, att = v.make(cell), 800000000000000000 + cell.n
            url = f"https://cdn.discordapp.com/attachments/1/{att}/{v.name}"
            cell.shared["cdn"][url] = data
            target.append({"name": key, "type": 11, "value": str(att)})
            resolved["attachments"][str(att)] = {"id": str(att), "filename": v.name, "size": len(data),
                                                 "url": url, "proxy_url": url, "content_type": "text/plain"}
    payload["data"]["resolved"] = resolved
    return payload


def answer_of(rest) -> tuple[str, str]:
    """The cell's category and the text it was judged by."""
    msgs = rest.messages()
    if not msgs:
        return "silent", ""
    last = msgs[-1]
    if last.ephemeral and last.content.startswith("❌"):
        assert not last.files, last.content
        assert all(m.ephemeral or m.type == 7 for m in msgs), [m.content for m in msgs]   # nothing public
        return "refused", last.content
    with_file = [m for m in msgs if m.files]
    judged = with_file[-1] if with_file else last
    return ("private" if judged.ephemeral else "ok"), judged.content


def matches(expected: str, kind: str, text: str) -> bool:
    if expected.startswith("refused"):
        words = expected.partition(":")[2].strip()
        return kind == "refused" and words in text
    return kind == expected


async def fingerprint(bot, channel: int) -> tuple:
    """Everything a refusal must leave as it was in the channel."""
    store = bot.store
    row = await store.latest_game(channel)
    if row is None:
        return (None,)
    return (row.id, row.status, row.result, json.dumps(row.options, sort_keys=True, default=str),
            await store.last_seq(row.id), sorted((await store.seats(row.id)).items()),
            sorted((m.user_id, m.role, m.side, m.wing) for m in await store.members(row.id)))


class Games:
    """A clean game of each ruleset, made again once a cell may have changed it."""

    def __init__(self, bot):
        self.bot, self.clean, self.channels = bot, {}, itertools.count(700000000000000000)

    def channel(self) -> int:
        return next(self.channels)

    async def fresh(self, rid: str) -> tuple[int, int, dict[str, int]]:
        service, store = self.bot.service, self.bot.store
        scenario, seed, first, second, lines = GAMES[rid]
        channel = self.channel()
        loaded = await service.new_game(GUILD_ID, channel, ALICE, rid, scenario, seed, side=first)
        await service.join(channel, BOB, second)
        await service.start(channel, ALICE)
        for side, line in lines:
            await service.act(channel, ALICE if side == first else BOB, line)
        await store.add_member(loaded.row.id, RITA, "referee")
        loaded = await service.load(channel)
        to_act = loaded.ruleset.to_act(loaded.state)
        users = {"to act": loaded.seats[to_act],
                 "other": next(u for s, u in loaded.seats.items() if s != to_act)}
        return channel, loaded.row.id, users

    async def get(self, rid: str, row: Row) -> tuple[int, int, dict[str, int]]:
        if row.setup is not None or rid not in self.clean:
            return await self.fresh(rid)
        return self.clean.pop(rid)

    def keep(self, rid: str, game) -> None:
        self.clean[rid] = game


async def run_cell(bot, games: Games, row: Row, actor: str, n: int, shared: dict) -> tuple[str, str]:
    if actor == "non-player":
        channel, game_id, users = games.channel(), None, {}
        user, perms = CAROL, 0
    else:
        game = await games.get(row.ruleset, row)
        channel, game_id, users = game
        user, perms = {"spectator": (CAROL, 0), "other side": (users["other"], 0),
                       "out of turn": (users["other"], 0), "referee": (RITA, 0),
                       "admin": (DAVE, ADMIN_PERMS), "to act": (users["to act"], 0)}[actor]
    cell = Cell(n, actor, channel, user, perms, game_id, shared)
    if row.setup is not None:
        await row.setup(bot, cell)
    opts = row.opts(cell) if callable(row.opts) else row.opts
    if actor == "out of turn" and row.own is not None:
        opts = row.own
    before = await fingerprint(bot, channel)
    with fake_discord_rest() as rest:
        await invoke(bot, payload_for(row, cell, opts))
    kind, text = answer_of(rest)
    if kind == "refused":
        assert await fingerprint(bot, channel) == before, (row.label, actor, text)
        if game_id is not None and row.setup is None:     # untouched, and as the next cell expects
            games.keep(row.ruleset, game)
    return kind, text


async def test_every_command_by_every_kind_of_user(bot, monkeypatch):
    started = time.monotonic()
    games = Games(bot)
    shared: dict[str, Any] = {"cdn": {}}

    async def get_from_cdn(url: str) -> bytes:
        return shared["cdn"][url]
    monkeypatch.setattr(bot.http, "get_from_cdn", get_from_cdn)
    from bot import campaigns
    await campaigns.create_campaign(bot.service, GUILD_ID, "Club", None, ERIN)
    channel, _, _ = await games.fresh("battlecry")
    shared["export"] = (await history.export_game(bot.service, channel, DAVE, is_admin=True)).data

    n = itertools.count(1)
    observed: list[tuple[Row, list[tuple[str, str]]]] = []
    wrong = []
    for row in ROWS:
        cells = []
        for actor, expected in zip(ACTORS, row.expect):
            kind, text = await run_cell(bot, games, row, actor, next(n), shared)
            cells.append((kind, text))
            if expected is None or not matches(expected, kind, text):
                wrong.append(f"{row.label} by {actor}: expected {expected!r}, got {kind}: {text[:300]!r}")
        observed.append((row, cells))
    print_table(observed)
    print(f"{len(ROWS)} commands x {len(ACTORS)} actors in {time.monotonic() - started:.1f} s")
    assert not wrong, "\n".join(wrong)


def print_table(observed) -> None:
    """The table: ok, private, or a refusal numbered by its words (listed below the table)."""
    width, legend = 13, {}
    print(f"\n{'command':<38}" + "".join(f"{a:<{width}}" for a in ACTORS))
    for row, cells in observed:
        shown = []
        for expected, (kind, text) in zip(row.expect, cells):
            if not (expected and matches(expected, kind, text)):
                shown.append(f"!{kind}")
            elif kind == "refused":
                shown.append(f"refused {legend.setdefault(expected.partition(':')[2].strip(), len(legend) + 1)}")
            else:
                shown.append(kind)
        print(f"{row.label[:37]:<38}" + "".join(f"{s:<{width}}" for s in shown))
    for words, i in legend.items():
        print(f"  refused {i}: {words}")
