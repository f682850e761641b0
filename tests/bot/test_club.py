"""Club play, seats and roles (bot/club.py, bot/cogs/club.py): several players a side (a wing
each in TACW), spectators, the referee (a user or a server role) who pauses, resumes,
substitutes and corrects the state with a logged reason that replays exactly; /game list.
Everything is driven through the slash-command handlers with recorded replies."""
from __future__ import annotations

from bot import club, server_view
from engine.core.game import Game
from engine.core.referee import REFEREE, correction_line, parse_correction
from engine.core.commands import parse
from tests.bot.conftest import SEED
from tests.bot.harness import (ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, GUILD_ID, Driver,
                               fake_discord_rest, invoke, name_of)

DAVE = 500000000000000004        # a second player
ERIN = 500000000000000005        # a substitute
RITA = 500000000000000006        # the referee
SAM = 500000000000000007         # holds the referee role
ROLE = 600000000000000001


def _user(uid: int) -> dict:
    return {"id": str(uid), "username": f"user{uid % 1000}", "discriminator": "0", "avatar": None,
            "global_name": None}


async def run(d: Driver, name: str, sub: str | None = None, *, user: int, users: dict | None = None,
              role_opts: dict | None = None, member_roles: tuple = (), perms: int = 0, **opts):
    """A slash command with User/Role options (resolved as Discord sends them) and the caller's
    roles in the member payload."""
    payload = d.payload(name, user=user, sub=sub, perms=perms, **opts)
    target = payload["data"]["options"][0]["options"] if sub else payload["data"]["options"]
    resolved: dict = {"users": {}, "roles": {}}
    for key, uid in (users or {}).items():
        target.append({"name": key, "type": 6, "value": str(uid)})
        resolved["users"][str(uid)] = _user(uid)
    for key, rid in (role_opts or {}).items():
        target.append({"name": key, "type": 8, "value": str(rid)})
        resolved["roles"][str(rid)] = {"id": str(rid), "name": "Referees", "color": 0, "hoist": False,
                                       "position": 1, "permissions": "0", "managed": False,
                                       "mentionable": True, "flags": 0}
    payload["data"]["resolved"] = resolved
    payload["member"]["roles"] = [str(r) for r in member_roles]
    with fake_discord_rest() as rest:
        await invoke(d.bot, payload)
    return rest


async def seq_of(d: Driver, game) -> int:
    return await d.bot.store.last_seq(game.id)


async def tacw_game(d: Driver):
    service = d.bot.service
    await service.new_game(GUILD_ID, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    return await d.bot.store.active_game(CHANNEL_ID)


# --- several players a side, spectators --------------------------------------------------------
async def test_a_second_player_shares_a_battle_cry_side_and_a_spectator_cannot_act(d, game):
    rest = await d.cmd("seat", sub="join-side", user=CAROL, side="union")
    assert not rest.last.ephemeral and "joins **Union**" in rest.last.content

    rest = await d.cmd("bc", sub="hand", user=CAROL)                      # the side's cards: hers too
    assert rest.last.ephemeral and "Union" in rest.last.content
    rest = await d.cmd("bc", sub="play", user=CAROL, card="attack-centre")
    assert not rest.last.ephemeral and rest.last.content.startswith("Union plays Attack Centre")
    cmd = await d.bot.store.last_command(game.id)
    assert (cmd.user_id, cmd.side) == (CAROL, "union")

    rest = await d.cmd("game", sub="resign", user=CAROL)          # the first player's alone
    assert rest.last.ephemeral and "only the side's first player" in rest.last.content
    rest = await d.cmd("seat", sub="join-wing", user=CAROL, wing="left")
    assert rest.last.ephemeral

    for user in (DAVE,):                                          # a spectator
        rest = await d.cmd("bc", sub="order", user=user, units="ui2")
        assert rest.last.ephemeral and "not a player" in rest.last.content and "spectators" in rest.last.content
        rest = await d.cmd("bc", sub="hand", user=user)
        assert rest.last.ephemeral and "not a player" in rest.last.content
        rest = await d.game("status", user=user)                  # but sees the game
        assert not rest.last.ephemeral and "Test Skirmish" in rest.last.content
        rest = await d.game("log", user=user)                     # the log
        assert not rest.last.ephemeral and "Union plays Attack Centre" in rest.last.content
        rest = await d.game("board", user=user)                   # and the board
        assert not rest.last.ephemeral and [f[0] for f in rest.last.files] == ["board.png"]
    assert await seq_of(d, game) == 1

    rest = await d.cmd("seat", sub="join-side", user=CAROL, side="confederate")
    assert rest.last.ephemeral and "already a player" in rest.last.content
    rest = await d.game("join", user=CAROL, side="confederate")   # no seat on the other side either
    assert rest.last.ephemeral
    rest = await d.cmd("seat", sub="list", user=DAVE)
    assert f"**Union**: {name_of(ALICE)} (all), {name_of(CAROL)} (all)" in rest.last.content
    assert "spectator" in rest.last.content

    rest = await d.cmd("seat", sub="leave", user=CAROL)
    assert not rest.last.ephemeral and "leaves **Union**" in rest.last.content
    rest = await d.cmd("bc", sub="order", user=CAROL, units="ui2")
    assert rest.last.ephemeral and "not a player" in rest.last.content


async def test_tacw_wing_players_act_only_for_their_own_wing(d):
    game = await tacw_game(d)
    choices = await d.complete("seat", "wing", sub="join-wing", user=DAVE, wing="")
    assert {c["value"] for c in choices} == {"r-right", "r-centre", "r-left", "p-left", "p-centre", "p-right"}

    rest = await d.cmd("seat", sub="join-wing", user=DAVE, wing="r-centre")
    assert not rest.last.ephemeral and "**Royalist centre** of **Royalist**" in rest.last.content
    rest = await d.cmd("seat", sub="join-wing", user=ERIN, wing="r-centre")
    assert rest.last.ephemeral and "already has its player" in rest.last.content
    rest = await d.cmd("seat", sub="join-wing", user=ERIN, wing="r-left")
    assert not rest.last.ephemeral
    rest = await d.cmd("seat", sub="join-wing", user=CAROL, wing="no-such-wing")
    assert rest.last.ephemeral and "not a wing" in rest.last.content
    choices = await d.complete("seat", "wing", sub="join-wing", user=CAROL, wing="r-")
    assert [c["value"] for c in choices] == ["r-right"]              # the free one

    before = await seq_of(d, game)
    rest = await d.cmd("tacw", sub="activation pass", user=DAVE)                          # the whole side's: Alice's
    assert rest.last.ephemeral and "whole of Royalist" in rest.last.content and f"<@{ALICE}>" in rest.last.content
    rest = await d.cmd("tacw", sub="activation activate", user=DAVE, wing="r-left")       # Erin's wing
    assert rest.last.ephemeral and "you command Royalist centre" in rest.last.content
    assert "Royalist left wing (cavalry)" in rest.last.content
    assert await seq_of(d, game) == before

    rest = await d.cmd("tacw", sub="activation activate", user=DAVE, wing="r-centre")     # his own
    assert not rest.last.ephemeral, rest.last.content
    state = (await d.bot.service.load(CHANNEL_ID)).state
    assert state.activation.wing == "r-centre"
    rest = await d.cmd("tacw", sub="activation stop", user=ERIN)                          # the active wing is Dave's
    assert rest.last.ephemeral and "concerns Royalist centre" in rest.last.content
    rest = await d.cmd("tacw", sub="activation stop", user=BOB)                           # the rules still decide
    assert rest.last.ephemeral and "TACW" in rest.last.content
    rest = await d.cmd("tacw", sub="activation stop", user=ALICE)                         # the first player acts for all
    assert not rest.last.ephemeral, rest.last.content
    assert (await d.bot.store.last_command(game.id)).user_id == ALICE


# --- the referee -------------------------------------------------------------------------------
async def test_referee_appointment_and_who_may_pause(d, game):
    rest = await run(d, "referee", "appoint", user=BOB, users={"user": RITA})
    assert rest.last.ephemeral and "creator or a server administrator" in rest.last.content
    rest = await run(d, "referee", "appoint", user=ALICE, users={"user": BOB})   # a player: never
    assert rest.last.ephemeral and "already commands side" in rest.last.content
    rest = await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    assert not rest.last.ephemeral and f"<@{RITA}> referees game #{game.id}" in rest.last.content

    rest = await run(d, "referee", "pause", user=BOB, reason="tea")             # a player
    assert rest.last.ephemeral and "cannot pause the game" in rest.last.content
    rest = await run(d, "referee", "pause", user=SAM, reason="tea")             # nobody yet
    assert rest.last.ephemeral and f"<@{RITA}>" in rest.last.content
    rest = await run(d, "referee", "role", user=ALICE, role_opts={"role": ROLE})
    assert not rest.last.ephemeral and f"<@&{ROLE}>" in rest.last.content
    rest = await run(d, "referee", "pause", user=SAM, reason="tea", member_roles=(ROLE,))
    assert not rest.last.ephemeral and "paused" in rest.last.content
    rest = await run(d, "referee", "resume", user=CAROL, perms=ADMIN_PERMS)      # an administrator
    assert not rest.last.ephemeral and "resumes" in rest.last.content
    rest = await run(d, "referee", "role", user=ALICE)                          # role removed
    assert "no referee role" in rest.last.content
    rest = await run(d, "referee", "pause", user=SAM, member_roles=(ROLE,))
    assert rest.last.ephemeral
    rest = await run(d, "referee", "dismiss", user=RITA, users={"user": RITA})  # steps down
    assert "no longer referees" in rest.last.content
    rest = await run(d, "referee", "pause", user=RITA)
    assert rest.last.ephemeral


async def test_a_paused_game_accepts_no_action_until_resumed(d, game):
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    rest = await run(d, "referee", "pause", user=RITA, reason="Bob is travelling")
    assert not rest.last.ephemeral and "Bob is travelling" in rest.last.content
    rest = await run(d, "referee", "pause", user=RITA)
    assert rest.last.ephemeral and "already paused" in rest.last.content
    for user, name, opts in ((ALICE, "bc", {"sub": "play", "card": "attack-centre"}), (BOB, "act", {"line": "policy retreat ask"}),
                             (ALICE, "game", {"sub": "resign"})):
        rest = await d.cmd(name, user=user, **opts)
        assert rest.last.ephemeral and "paused by the referee" in rest.last.content and "Bob is travelling" in rest.last.content
    assert await seq_of(d, game) == 0
    rest = await d.cmd("seat", sub="list", user=CAROL)
    assert "paused" in rest.last.content

    rest = await run(d, "referee", "resume", user=RITA)
    assert not rest.last.ephemeral and f"**Union** <@{ALICE}>: to act" in rest.last.content
    rest = await run(d, "referee", "resume", user=RITA)
    assert rest.last.ephemeral and "not paused" in rest.last.content
    rest = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    assert not rest.last.ephemeral
    assert await seq_of(d, game) == 1


async def test_the_referee_substitutes_a_player(d, game):
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    rest = await run(d, "referee", "substitute", user=ALICE, users={"player": BOB, "replacement": ERIN})
    assert rest.last.ephemeral                                    # a player may not
    rest = await run(d, "referee", "substitute", user=RITA, users={"player": CAROL, "replacement": ERIN})
    assert rest.last.ephemeral and "holds no seat" in rest.last.content
    rest = await run(d, "referee", "substitute", user=RITA, users={"player": BOB, "replacement": ALICE})
    assert rest.last.ephemeral and "already commands side" in rest.last.content
    rest = await run(d, "referee", "substitute", user=RITA, users={"player": BOB, "replacement": ERIN})
    msg = rest.last
    assert not msg.ephemeral and f"<@{ERIN}> takes over **Confederate** from <@{BOB}>" in msg.content
    assert f"Now: **Union** <@{ALICE}>: to act." in msg.content
    assert [int(u) for u in msg.data["allowed_mentions"]["users"]] == [ERIN]
    assert await d.bot.store.seats(game.id) == {"union": ALICE, "confederate": ERIN}

    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    rest = await d.cmd("bc", sub="end", user=ALICE)
    assert f"<@{ERIN}>" in rest.last.content
    rest = await d.cmd("bc", sub="hand", user=BOB)
    assert rest.last.ephemeral and "not a player" in rest.last.content
    rest = await d.cmd("bc", sub="hand", user=ERIN)
    assert "Confederate" in rest.last.content


async def test_a_correction_is_logged_with_its_reason_and_replays_exactly(d, game):
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    before = await seq_of(d, game)
    bad = [(ALICE, "pieces.ci2.figures=2", "misread", "referee"),         # a player
           (RITA, "pieces.ci2.figures=two", "misread", "whole number"),
           (RITA, "pieces.ci2.strength=2", "misread", "no 'strength' here"),
           (RITA, "pieces.ci2.figures=2", "   ", "reason"),
           (RITA, "seed=3", "luck", "dice stream"),
           (RITA, "draws=0", "luck", "dice stream"),
           (RITA, "pieces.ci2.figures", "misread", "path=value"),
           (RITA, "flags.union=[1]", "x", "not a list"),
           (RITA, "pieces.ci2.figures=4", "checking", "already holds pieces.ci2.figures = 4")]
    for user, changes, reason, why in bad:
        rest = await run(d, "referee", "correct", user=user, changes=changes, reason=reason)
        assert rest.last.ephemeral and why in rest.last.content, (changes, rest.last.content)
    assert await seq_of(d, game) == before

    rest = await run(d, "referee", "correct", user=RITA,
                     changes="pieces.ci2.figures=2 flags.confederate=1",
                     reason="Figures removed by mistake #3")
    msg = rest.last
    assert not msg.ephemeral and [f[0] for f in msg.files] == ["board.png"]
    assert "Referee correction: pieces.ci2.figures: 4 → 2; flags.confederate: 0 → 1" in msg.content
    assert "Reason: Figures removed by mistake #3" in msg.content
    loaded = await d.bot.service.load(CHANNEL_ID)
    assert loaded.state.pieces["ci2"].figures == 2 and loaded.state.flags["confederate"] == 1
    cmd = await d.bot.store.last_command(game.id)
    assert (cmd.side, cmd.user_id, cmd.seq) == (REFEREE, RITA, before + 1) and cmd.text.startswith("correct ")
    assert parse_correction(parse(cmd.text)) == ([("pieces.ci2.figures", 2), ("flags.confederate", 1)],
                                                 "Figures removed by mistake #3")
    rest = await d.game("log", user=CAROL)
    assert "Referee correction" in rest.last.content and "(Herald referee)" in rest.last.content

    # the game goes on, and the log (seed + commands, the correction among them) replays bit for bit
    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    row = await d.bot.store.get_game(game.id)
    assert await d.bot.service.verify(row)
    replay = Game.new("battlecry", "test-skirmish", int(SEED))
    for c in await d.bot.store.commands(game.id):
        replay.apply(c.side, c.text)
    assert replay.state.state_hash() == (await d.bot.service.load(CHANNEL_ID)).state.state_hash()

    rest = await run(d, "referee", "show", user=RITA, path="pieces.ci2.figures")
    assert rest.last.ephemeral and "`pieces.ci2.figures` = `2`" in rest.last.content
    rest = await run(d, "referee", "show", user=BOB, path="hands")
    assert rest.last.ephemeral and "cannot inspect" in rest.last.content
    choices = await d.complete("referee", "path", sub="show", user=RITA, path="pieces.ci")
    assert "pieces.ci2" in [c["value"] for c in choices]
    assert await d.complete("referee", "path", sub="show", user=BOB, path="hands.") == []


async def test_a_tacw_correction_replays_after_a_restart(db_path, scenario_dir):
    from tests.bot.conftest import start_bot
    bot1 = await start_bot(db_path)
    try:
        d = Driver(bot1)
        game = await tacw_game(d)
        await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
        unit = next(u for u in (await bot1.service.load(CHANNEL_ID)).state.units.values() if u.side == "parliament")
        rest = await run(d, "referee", "correct", user=RITA,
                         changes=f"units.{unit.id}.morale_state=shaken units.{unit.id}.casualties=1",
                         reason="a Shaken marker forgotten on turn 1")
        assert not rest.last.ephemeral, rest.last.content
        rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")
        assert not rest.last.ephemeral, rest.last.content
    finally:
        await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        row = await bot2.store.get_game(game.id)
        assert await bot2.service.verify(row)
        state = await bot2.service.replay_state(row)
        assert state.units[unit.id].morale_state == "shaken" and state.units[unit.id].casualties == 1
        assert state.activation.wing == "r-centre"
    finally:
        await bot2.close()


def test_a_correction_line_survives_the_command_parser():
    line = correction_line([("units.x.name", "Rupert's \"Horse\" #1"), ("hands.union", ["a", "B"])],
                           "It's the 2nd time: #oops")
    cmd = parse(line)
    assert cmd.text == line
    assert parse_correction(parse(cmd.text)) == (
        [("units.x.name", "Rupert's \"Horse\" #1"), ("hands.union", ["a", "B"])], "It's the 2nd time: #oops")


# --- the server view ---------------------------------------------------------------------------
async def test_game_list_shows_the_servers_games_channels_and_who_is_to_move(d, game):
    service = d.bot.service
    await service.new_game(GUILD_ID, CHANNEL_ID + 1, CAROL, "tacw", "edgehill", 5, side="royalist")
    await service.new_game(GUILD_ID + 1, CHANNEL_ID + 2, CAROL, "battlecry", "test-skirmish", 1)  # elsewhere
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    await d.cmd("bc", sub="end", user=ALICE)

    rest = await d.game("list", user=DAVE)
    msg = rest.last
    assert not msg.ephemeral and msg.data["allowed_mentions"]["parse"] == []     # nobody pinged
    lines = msg.content.splitlines()
    assert lines[0] == "**2 game(s) in setup or play on this server**"
    mine = next(line for line in lines if line.startswith(f"#{game.id} "))
    assert f"<#{CHANNEL_ID}>" in mine and "Battle Cry" in mine and f"**Confederate** {name_of(BOB)}: to act" in mine
    theirs = next(line for line in lines if f"<#{CHANNEL_ID + 1}>" in line)
    assert "This Accursed Civil War" in theirs and "free Parliament" in theirs
    assert f"<#{CHANNEL_ID + 2}>" not in msg.content

    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    await run(d, "referee", "pause", user=RITA)
    rest = await d.game("list", user=DAVE)
    mine = next(line for line in rest.last.content.splitlines() if line.startswith(f"#{game.id} "))
    assert f"⏸️ paused by the referee · **Confederate** {name_of(BOB)}: to act" in mine    # and who is next


async def test_game_list_with_deadlines_finished_games_and_none(d, game):
    service = d.bot.service
    rest = await d.game("list", user=DAVE)
    assert "Recently finished" not in rest.last.content and "⏰" not in rest.last.content
    await d.cmd("turn", sub="deadline", user=ALICE, hours=6)
    rest = await d.game("list", user=DAVE)
    assert "· ⏰ due <t:" in rest.last.content

    other = Driver(d.bot, channel_id=CHANNEL_ID + 1)                 # a second battle, then it ends
    await service.new_game(GUILD_ID, CHANNEL_ID + 1, CAROL, "battlecry", "test-skirmish", 1, side="union")
    await service.join(CHANNEL_ID + 1, DAVE, "confederate")
    await service.start(CHANNEL_ID + 1, CAROL)
    rest = await other.game("resign", user=DAVE)
    assert not rest.last.ephemeral, rest.last.content
    rest = await d.game("list", user=ERIN)
    text = rest.last.content
    live, _, done = text.partition("**Recently finished**")
    assert live.splitlines()[0] == "**1 game(s) in setup or play on this server**"
    assert f"<#{CHANNEL_ID + 1}>" not in live and f"<#{CHANNEL_ID}>" in live
    assert f"<#{CHANNEL_ID + 1}> · Battle Cry: Test Skirmish · 🏁 " in done and "Union wins" in done

    await d.game("abandon", user=ALICE)                              # nothing live any more
    rest = await d.game("list", user=ERIN)
    assert rest.last.content.startswith("No game in setup or play on this server: start one with /game new.")
    assert "Recently finished" in rest.last.content

    empty = Driver(d.bot)
    payload = empty.payload("game", sub="list", user=ERIN)
    payload["guild_id"] = str(GUILD_ID + 7)                          # another server: nothing at all
    with fake_discord_rest() as rest:
        await invoke(d.bot, payload)
    assert rest.last.content == "No game on this server yet: start one with /game new in a channel."
    assert await server_view.game_list(service, None) == "/game list shows a server's games: use it in a server channel."


async def test_game_list_fits_one_message_with_many_games(d):
    service = d.bot.service
    for i in range(30):
        await service.new_game(GUILD_ID, CHANNEL_ID + 100 + i, ALICE, "tacw", "edgehill", 5, side="royalist")
        await service.join(CHANNEL_ID + 100 + i, BOB, "parliament")
        await service.start(CHANNEL_ID + 100 + i, ALICE)
    rest = await d.game("list", user=CAROL)
    text = rest.last.content
    assert len(text) <= 2000 and not text.endswith("…")
    assert text.splitlines()[0] == "**30 game(s) in setup or play on this server**"
    shown = sum(1 for line in text.splitlines() if line.startswith("#"))
    assert 0 < shown < 30 and f"… and {30 - shown} more" in text


# --- who the game waits on, bad input ----------------------------------------------------------
async def test_a_tacw_retreat_waits_on_the_units_wing_player_and_names_the_unit(d):
    await tacw_game(d)
    await d.cmd("seat", sub="join-wing", user=DAVE, wing="r-centre")
    loaded = await d.bot.service.load(CHANNEL_ID)
    st = loaded.ruleset.state_from_dict(loaded.ruleset.state_to_dict(loaded.state))
    st.pending = {"kind": "retreat", "side": "royalist", "unit": "r-gerard", "options": ["3008"]}
    w = club.waiting_on(loaded.ruleset, loaded.scenario, st, loaded.seats, loaded.members)
    assert (w.side, w.users, w.wing, w.kind) == ("royalist", (DAVE,), "r-centre", "retreat")
    assert "Gerard" in w.what and "for :" not in w.what and "retreats (Royalist centre)" in w.what
    assert w.what.endswith("answer with the buttons or `/act retreat 3008`")     # the command that answers
    st.pending = {"kind": "bypass", "side": "royalist", "options": ["r-left", "none"]}   # a side's decision
    w = club.waiting_on(loaded.ruleset, loaded.scenario, st, loaded.seats, loaded.members)
    assert (w.users, w.wing, w.what) == ((ALICE,), None, "Royalist may attempt a bypass; answer with the buttons or `/act bypass r-left|none`")


async def test_bad_referee_requests_get_clear_answers_and_leave_the_game_untouched(d, game):
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")

    async def snapshot():
        row = await d.bot.store.get_game(game.id)
        return (await seq_of(d, game), row.status, row.options.get("paused"), await d.bot.store.seats(game.id),
                await d.bot.store.members(game.id))

    before = await snapshot()
    cases = [
        (dict(name="referee", sub="substitute", user=RITA, users={"player": CAROL, "replacement": ERIN}),
         f"<@{CAROL}> holds no seat in game #{game.id}"),
        (dict(name="referee", sub="substitute", user=RITA, users={"player": BOB, "replacement": RITA}),
         "cannot take a seat in the game they referee"),
        (dict(name="referee", sub="substitute", user=CAROL, users={"player": BOB, "replacement": ERIN}),
         f"only the game's referee (<@{RITA}>) or a server administrator may substitute a player"),
        (dict(name="referee", sub="resume", user=RITA), "the game is not paused"),
        (dict(name="referee", sub="pause", user=BOB), "a player of this game cannot pause the game"),
        (dict(name="referee", sub="pause", user=CAROL), "may pause the game"),
        (dict(name="referee", sub="correct", user=RITA, changes="pieces.ci2.figures=2", reason=" "),
         "a correction needs its reason"),
        (dict(name="referee", sub="correct", user=CAROL, changes="pieces.ci2.figures=2", reason="x"),
         "may correct the state"),
        (dict(name="referee", sub="appoint", user=BOB, users={"user": ERIN}),
         "only the game's creator or a server administrator may appoint its referee"),
        (dict(name="referee", sub="dismiss", user=ALICE, users={"user": ERIN}), f"<@{ERIN}> is not a referee"),
        (dict(name="seat", sub="join-side", user=ERIN, side="prussia"), "'prussia' is not a side of Battle Cry"),
        (dict(name="seat", sub="leave", user=ERIN), "you do not share a side"),
    ]
    for kw, why in cases:
        name, sub, user = kw.pop("name"), kw.pop("sub"), kw.pop("user")
        rest = await run(d, name, sub, user=user, **kw)
        msg = rest.last
        assert msg.ephemeral and why in msg.content and "internal error" not in msg.content, (name, sub, msg.content)
        assert await snapshot() == before, (name, sub)

    await run(d, "referee", "pause", user=RITA, reason="a dispute")
    rest = await run(d, "referee", "pause", user=RITA)
    assert rest.last.ephemeral and "already paused" in rest.last.content
    for user, line in ((ALICE, "end"), (CAROL, "end"), (BOB, "policy retreat auto")):
        rest = await d.cmd("act", user=user, line=line)
        assert rest.last.ephemeral and ("paused by the referee" in rest.last.content
                                        or "not a player" in rest.last.content), rest.last.content
    assert (await snapshot())[0] == before[0]


async def test_a_tacw_wing_substitution_names_the_wing(d):
    await tacw_game(d)
    await d.cmd("seat", sub="join-wing", user=DAVE, wing="r-centre")
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    rest = await run(d, "referee", "substitute", user=RITA, users={"player": DAVE, "replacement": ERIN})
    assert not rest.last.ephemeral
    assert f"<@{ERIN}> takes over **Royalist** (Royalist centre) from <@{DAVE}>" in rest.last.content
    rest = await d.cmd("tacw", sub="activation activate", user=ERIN, wing="r-centre")           # Erin commands it now
    assert not rest.last.ephemeral, rest.last.content
    rest = await d.cmd("tacw", sub="activation stop", user=DAVE)
    assert rest.last.ephemeral and "not a player" in rest.last.content


async def test_act_takes_a_script_line_with_the_players_own_side(d, game):
    """One command language (DESIGN 5): `/act union: play ...` as the CLI's script line reads it;
    another side's prefix is refused and changes nothing."""
    before = await seq_of(d, game)
    rest = await d.cmd("act", user=ALICE, line="confederate: play attack-centre")
    assert rest.last.ephemeral and "the line is Confederate's" in rest.last.content and "you play Union" in rest.last.content
    assert await seq_of(d, game) == before
    rest = await d.cmd("act", user=ALICE, line="Union: play attack-centre")
    assert not rest.last.ephemeral, rest.last.content
    assert await seq_of(d, game) == before + 1
