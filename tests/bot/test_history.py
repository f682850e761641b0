"""History (issue 5, Club play): /game board at:/turn:, /game replay, /game export, /game import
and `herald play --load`, driven through the slash-command handlers with recorded replies."""
from __future__ import annotations

import io
import json

import pytest
from PIL import Image, ImageChops, ImageSequence

from bot import history
from bot.cli import main as cli_main
from engine.core.game import Game
from renders.battlecry import render_board
from renders.replay import LAST_HOLD_MS, MAX_BYTES, MAX_WIDTH
from tests.bot.conftest import SEED, UNION_HAND
from tests.bot.harness import (ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, Driver, fake_discord_rest, interaction_payload,
                               invoke, next_id, option)

NO_FLAG_DICE = "1,2,3,4,6"          # ui2 battles ci2: 3 hits, no flag (tests/bot/test_play.py)
TURN_1 = [("union", "play attack-centre"), ("union", "order ui2"), ("union", "move ui2 0605"),
          ("union", f"battle ui2 0604 dice={NO_FLAG_DICE}"), ("union", "end")]
OTHER_CHANNEL = CHANNEL_ID + 1


async def play_turn_1(d) -> None:
    for _, line in TURN_1:
        rest = await d.cmd("act", user=ALICE, line=line)
        assert not rest.last.ephemeral, rest.last.content


def engine_states() -> list:
    """The same game in the engine alone: the state after each command of TURN_1 (index 0: the
    opening)."""
    g = Game.new("battlecry", "test-skirmish", int(SEED))
    states = [g.state]
    for side, line in TURN_1:
        g.apply(side, line)
        states.append(g.state)
    return states


def file_of(rest) -> tuple[str, bytes]:
    [(name, data)] = rest.last.files
    return name, data


def assert_refused(rest, words: str) -> None:
    msg = rest.last
    assert msg.ephemeral and msg.content.startswith("❌") and words in msg.content, msg.content
    assert not msg.files


# --- the board at an earlier point ------------------------------------------------------------
def rgb(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def same_board(png: bytes, board: bytes, tolerance: int = 40) -> bool:
    """`png` (a past board with its caption band) shows `board` above the band: the same pixels
    up to the PNG palette's rounding."""
    a, b = rgb(png), rgb(board)
    if a.width != b.width or a.height <= b.height:
        return False
    diff = ImageChops.difference(a.crop((0, 0, b.width, b.height)), b).convert("L")
    return diff.point(lambda v: 255 if v > tolerance else 0).getbbox() is None


def caption_band(png: bytes, board: bytes) -> Image.Image:
    a = rgb(png)
    return a.crop((0, rgb(board).height, a.width, a.height))


async def test_board_at_an_entry_or_a_turn_is_the_public_board_then(d, game):
    await play_turn_1(d)
    states = engine_states()
    sc = (await d.bot.service.load(d.channel_id)).scenario
    bands = set()
    for opts, index in (({"at": 0}, 0), ({"at": 3}, 3), ({"turn": 1}, 0), ({"turn": 2}, 5)):
        rest = await d.game("board", user=CAROL, **opts)          # a spectator may look back
        msg = rest.last
        assert not msg.ephemeral and msg.components == [], msg.content
        [(name, png)] = msg.files
        # the channel's view of the state then (viewer None: no hand is drawn)...
        public, union = render_board(sc, states[index]), render_board(sc, states[index], viewer="union")
        assert name == "board.png" and same_board(png, public) and not same_board(png, union)
        # ...with a caption band under it naming the point: text drawn, different per point
        band = caption_band(png, public)
        assert band.height >= 30 and band.convert("L").point(lambda v: 255 if v > 200 else 0).getbbox()
        bands.add(band.tobytes())
    assert len(bands) == 4
    rest = await d.game("board", at=3)
    assert "after log entry #3 (of #5)" in rest.last.content
    assert "#3 · Union: ui2 (infantry) moves 0606 -> 0605" in rest.last.content
    rest = await d.game("board", turn=2)
    assert "at the start of turn 2" in rest.last.content and "Union ends turn 1" in rest.last.content
    rest = await d.game("board", at=0)
    assert "#0 · Test Skirmish: the opening board" in rest.last.content
    # captions are the public narratives: no card of a hand, no command line
    assert not any(card in rest.last.content for card in UNION_HAND)


async def test_captions_are_the_rulesets_public_view_of_each_command(d, game, monkeypatch):
    """bot/history.py reads every entry through engine/core/public.py, the one public view
    (/explain reads the same): a ruleset's own `public_command` decides what a caption shows."""
    from engine.core.public import PublicCommand
    await play_turn_1(d)
    rs = d.bot.service.ruleset_of("battlecry")
    seen = []

    def public_command(scenario, state, side, text, events):
        seen.append(text)
        return PublicCommand("withheld", [])
    monkeypatch.setattr(rs, "public_command", public_command, raising=False)
    rest = await d.game("board", at=3)
    assert "#3 · Union: (no public effect)" in rest.last.content and "moves 0606" not in rest.last.content
    assert "move ui2 0605" in seen


async def test_board_at_refusals_are_private_and_come_before_any_work(d, game):
    await play_turn_1(d)
    cases = [({"at": 6}, "log entries #0 (the opening board) to #5"),
             ({"turn": 3}, "has turns 1 to 2 so far"),
             ({"at": 1, "turn": 1}, "give one point of the game")]
    for opts, words in cases:
        rest = await d.game("board", **opts)
        assert_refused(rest, words)
        assert rest.calls[0].kind == "response" and rest.calls[0].ephemeral   # not deferred publicly
    rest = await Driver(d.bot, OTHER_CHANNEL).game("board", at=0)
    assert_refused(rest, "there is no game in this channel")


# --- the replay -------------------------------------------------------------------------------
def gif_frames(data: bytes) -> tuple[Image.Image, list[int]]:
    im = Image.open(io.BytesIO(data))
    durations = [f.info["duration"] for f in ImageSequence.Iterator(im)]
    return im, durations


async def test_replay_of_the_battle_and_of_one_turn(d, game):
    await play_turn_1(d)
    rest = await d.game("replay", user=CAROL)
    assert rest.calls[0].type == 5                                  # deferred: drawing takes time
    msg = rest.last
    assert not msg.ephemeral
    [(name, gif)] = msg.files
    assert name == f"game{game.id}-replay.gif" and len(gif) < MAX_BYTES
    im, durations = gif_frames(gif)
    assert im.format == "GIF" and im.width <= MAX_WIDTH
    assert len(durations) == 6                                      # the opening and 5 actions
    assert durations[-1] >= LAST_HOLD_MS and len(set(durations[:-1])) == 1
    assert "the battle, log entries #0 to #5, 5 action(s)" in msg.content
    # one turn: from its start to the start of the next
    rest = await d.game("replay", turn=1)
    _, durations = gif_frames(file_of(rest)[1])
    assert len(durations) == 6 and "turn 1, log entries #0 to #5" in rest.last.content
    # turn 2 has begun but holds no action: nothing to animate, said before any work
    rest = await d.game("replay", turn=2)
    assert_refused(rest, "turn 2 has no action yet: nothing to replay (/game board turn:2")
    assert rest.calls[0].kind == "response" and rest.calls[0].ephemeral
    # drawn once: the same log gives the same file from the cache
    again = await d.game("replay")
    assert file_of(again)[1] == gif
    assert_refused(await d.game("replay", turn=4), "has turns 1 to 2 so far")


async def test_replay_draws_only_public_boards_and_refuses_an_empty_log(d, game, monkeypatch):
    import renders.battlecry as bc_render
    assert_refused(await d.game("replay"), "has no action in its log yet: nothing to replay")
    assert_refused(await Driver(d.bot, OTHER_CHANNEL).game("replay"), "there is no game in this channel")
    await play_turn_1(d)
    viewers = []
    real = bc_render.render_board_image

    def spy(scenario, state, *, viewer=None, size="full"):
        viewers.append(viewer)
        return real(scenario, state, viewer=viewer, size=size)
    monkeypatch.setattr(bc_render, "render_board_image", spy)
    rest = await d.game("replay")
    assert rest.last.files and len(viewers) == 6 and set(viewers) == {None}     # no hand ever drawn


# --- export -----------------------------------------------------------------------------------
def file_in(rest) -> tuple[str, bytes]:
    """The one file among the replies (an unfinished battle's export is followed by a public line)."""
    [(name, data)] = [f for m in rest.messages() for f in m.files]
    return name, data


async def test_an_unfinished_battle_is_exported_only_with_every_players_consent(d, game):
    await play_turn_1(d)
    # a spectator: never, whoever else agrees
    assert_refused(await d.game("export", user=CAROL), "only the game's referee, or its players once they all agree")
    # the first player's request is a public note and no file
    rest = await d.game("export", user=ALICE)
    [note] = rest.messages()
    assert not note.ephemeral and not note.files
    assert "Still to agree: <@%d>" % BOB in note.content and "hidden information" in note.content
    assert (await d.bot.store.get_game(game.id)).options["export_consent"] == [ALICE]
    # the last one's consent completes it: the file, privately, and a public line saying so
    rest = await d.game("export", user=BOB)
    assert rest.calls[0].type == 5 and rest.calls[0].ephemeral      # deferred privately
    private, public = rest.messages()
    assert private.ephemeral and "hidden information" in private.content and "herald play --load" in private.content
    assert "with the agreement of every player" in private.content
    assert not public.ephemeral and not public.files and f"<@{BOB}> took the file of game #{game.id}" in public.content
    name, data = file_in(rest)
    assert name == f"herald-game{game.id}-test-skirmish-5.json"
    doc = json.loads(data)
    assert doc["format"] == "herald-game" and doc["version"] == 1
    assert (doc["ruleset"], doc["scenario"], doc["seed"], doc["options"]) == ("battlecry", "test-skirmish", 1, [])
    assert doc["hidden_information"] is True and doc["status"] == "active" and doc["dice"] == "seeded"
    assert [(c["side"], c["text"]) for c in doc["commands"]] == TURN_1
    assert [d_["result"] for d_ in doc["commands"][3]["dice"]] == [1, 2, 3, 4, 6]
    # names only, as each player shows on the server (kept from their commands, bot/names.py;
    # a player Herald never saw is named by side); no Discord id anywhere
    assert doc["seats"] == {"confederate": ["User 2"], "union": ["User 1"]}
    assert str(ALICE) not in data.decode() and str(BOB) not in data.decode()
    loaded = await d.bot.service.load(d.channel_id)
    assert doc["state_hash"] == loaded.state.state_hash()
    # both have agreed: the first may have it too; who took it is kept with the game
    assert file_in(await d.game("export", user=ALICE))[0] == name
    taken = (await d.bot.store.get_game(game.id)).options["exported_unfinished"]
    assert [(t["by"], t["as"]) for t in taken] == [(BOB, "consent"), (ALICE, "consent")]
    # still never a spectator's
    assert_refused(await d.game("export", user=CAROL), "only the game's referee")


async def test_the_referee_may_have_an_unfinished_battles_file(d, game):
    await play_turn_1(d)
    referee = CAROL + 100
    await d.bot.store.add_member(game.id, referee, "referee")
    rest = await d.game("export", user=referee)
    private, public = rest.messages()
    assert private.ephemeral and "as its referee" in private.content and file_in(rest)
    assert f"<@{referee}> took the file" in public.content and "as its referee" in public.content
    # a server administrator who does not play holds the referee's powers (bot/club.py)...
    assert file_in(await d.game("export", user=CAROL, perms=ADMIN_PERMS))
    # ...but an administrator who plays is a player like the others: consent first
    rest = await d.game("export", user=ALICE, perms=ADMIN_PERMS)
    assert not any(m.files for m in rest.messages()) and "Still to agree" in rest.last.content


async def test_no_file_while_a_side_has_no_player(d):
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    assert_refused(await d.game("export", user=ALICE), "Confederate has no player yet")


async def test_export_of_a_finished_battle_is_for_everyone(d, game):
    await play_turn_1(d)
    await d.game("resign", user=BOB)
    rest = await d.game("export", user=CAROL)
    [msg] = rest.messages()
    assert not msg.ephemeral and "hidden information" not in msg.content
    doc = json.loads(file_of(rest)[1])
    assert doc["hidden_information"] is False and doc["status"] == "over" and len(doc["commands"]) == 6


# --- import -----------------------------------------------------------------------------------
def attach(bot, monkeypatch, files: dict[str, bytes]) -> None:
    """Discord's CDN, offline: an attachment's URL gives these bytes."""
    async def get_from_cdn(url: str) -> bytes:
        return files[url]
    monkeypatch.setattr(bot.http, "get_from_cdn", get_from_cdn)


async def import_file(d, monkeypatch, data: bytes, *, user: int = CAROL, size: int | None = None):
    """/game import with `data` as the attached file."""
    att = next_id()
    url = f"https://cdn.discordapp.com/attachments/1/{att}/game.json"
    attach(d.bot, monkeypatch, {url: data})
    payload = interaction_payload("game", [option("file", str(att), 11)], subcommand="import",
                                  user_id=user, channel_id=d.channel_id)
    payload["data"]["resolved"] = {"attachments": {str(att): {
        "id": str(att), "filename": "game.json", "size": len(data) if size is None else size, "url": url,
        "proxy_url": url, "content_type": "application/json"}}}
    with fake_discord_rest() as rest:
        await invoke(d.bot, payload)
    return rest


async def exported(d) -> bytes:
    """The unfinished battle's file: both players agree (ALICE first, BOB gets it)."""
    await d.game("export", user=ALICE)
    return file_in(await d.game("export", user=BOB))[1]


async def test_import_replays_verifies_and_the_battle_continues(d, game, monkeypatch):
    await play_turn_1(d)
    data = await exported(d)
    there = Driver(d.bot, OTHER_CHANNEL)
    rest = await import_file(there, monkeypatch, data)
    ack, announce = rest.messages()[-2:]
    assert ack.ephemeral and "is imported" in ack.content
    assert not announce.ephemeral and "5 command(s) replayed from the seed and verified" in announce.content
    assert "/game join" in announce.content and [n for n, _ in announce.files] == ["board.png"]
    row = await d.bot.store.active_game(OTHER_CHANNEL)
    assert row.status == "setup" and row.seed == "1" and row.created_by == CAROL
    here, copy = await d.bot.service.load(d.channel_id), await d.bot.service.load(OTHER_CHANNEL)
    assert copy.seq == 5 and copy.state.state_hash() == here.state.state_hash()
    assert await d.bot.service.verify(row)
    # the history is the same history
    a, b = await d.game("board", at=3), await there.game("board", at=3)
    board = render_board(here.scenario, engine_states()[3])
    assert same_board(file_of(a)[1], board) and same_board(file_of(b)[1], board)
    assert a.last.content.split(",", 1)[1] == b.last.content.split(",", 1)[1]     # but the game's number
    # the sides are free: players take them and play on, with the same dice to come
    await there.game("join", user=BOB, side="confederate")
    await there.game("join", user=CAROL, side="union")
    await there.game("start", user=CAROL)
    card = here.state.hands["confederate"][0]
    for driver in (d, there):
        rest = await driver.cmd("act", user=BOB, line=f"play {card}")
        assert not rest.last.ephemeral, rest.last.content
    here, copy = await d.bot.service.load(d.channel_id), await d.bot.service.load(OTHER_CHANNEL)
    assert copy.state.state_hash() == here.state.state_hash()


async def test_a_finished_battle_is_imported_over(d, game, monkeypatch):
    await play_turn_1(d)
    await d.game("resign", user=BOB)
    data = file_of(await d.game("export", user=CAROL))[1]
    there = Driver(d.bot, OTHER_CHANNEL)
    rest = await import_file(there, monkeypatch, data)
    assert "The battle is over" in rest.last.content
    row = await d.bot.store.latest_game(OTHER_CHANNEL)
    assert row.status == "over" and await d.bot.store.active_game(OTHER_CHANNEL) is None


def tampered(data: bytes, change) -> bytes:
    doc = json.loads(data)
    change(doc)
    return json.dumps(doc).encode()


async def test_a_bad_file_is_refused_privately_and_nothing_is_stored(d, game, monkeypatch):
    await play_turn_1(d)
    good = await exported(d)
    there = Driver(d.bot, OTHER_CHANNEL)

    def set_roll(doc):
        doc["commands"][3]["dice"][0]["result"] = 6

    def bad_line(doc):
        doc["commands"][2]["text"] = "move ui2 0101"

    def extra_line(doc):
        doc["commands"].append({"seq": 6, "side": "union", "text": "end", "dice": []})

    cases = [
        (b"{not json", "it is not JSON (line 1"),
        (b"[1, 2]", "it is not a JSON object"),
        (tampered(good, lambda doc: doc.pop("seed")), "'seed' is missing"),
        (tampered(good, lambda doc: doc.update(ruleset="chess")), "unknown ruleset 'chess'"),
        (tampered(good, lambda doc: doc.update(scenario="../../etc/passwd")), "is not a scenario id"),
        (tampered(good, lambda doc: doc.update(options=["no-such-rule"])), "has no optional rule 'no-such-rule'"),
        (tampered(good, set_roll), "command 4 (union: battle ui2 0604 dice=1,2,3,4,6) rolls [1, 2, 3, 4, 6] "
                                   "on replay but the file records [6, 2, 3, 4, 6]"),
        (tampered(good, bad_line), "command 3 (union: move ui2 0101) is refused by the rules on replay"),
        (tampered(good, extra_line), "command 6 (union: end) is refused by the rules on replay"),
        (tampered(good, lambda doc: doc.update(state_hash="0" * 64)), "state_hash differs"),
    ]
    for data, words in cases:
        rest = await import_file(there, monkeypatch, data)
        assert rest.calls[0].type == 5 and rest.calls[0].ephemeral          # private from the start
        assert_refused(rest, words)
        assert len(rest.messages()) == 1                                   # no public message
    assert await d.bot.store.latest_game(OTHER_CHANNEL) is None             # nothing stored
    # too large: refused before it is downloaded
    rest = await import_file(there, monkeypatch, good, size=history.MAX_FILE_BYTES + 1)
    assert_refused(rest, "over the 4096 KiB")
    # the channel must be free
    rest = await import_file(d, monkeypatch, good)
    assert_refused(rest, "this channel already has a game")
    assert await d.bot.store.latest_game(OTHER_CHANNEL) is None


# --- the CLI ----------------------------------------------------------------------------------
async def test_the_cli_loads_an_export_and_continues_it(d, game, tmp_path, capsys):
    await play_turn_1(d)
    path = tmp_path / "game.json"
    path.write_bytes(await exported(d))
    card = (await d.bot.service.load(d.channel_id)).state.hands["confederate"][0]
    script = tmp_path / "more.txt"
    script.write_text(f"confederate: play {card}\n", encoding="utf-8")
    out = tmp_path / "out"
    assert cli_main(["play", "--load", str(path), "--script", str(script), "--no-render", "--out", str(out)]) == 0
    log = json.loads((out / "log.json").read_text(encoding="utf-8"))
    assert len(log["commands"]) == 6 and log["commands"][-1]["text"] == f"play {card}"
    await d.cmd("act", user=BOB, line=f"play {card}")
    assert log["state_hash"] == (await d.bot.service.load(d.channel_id)).state.state_hash()
    # the CLI's own log loads again (the same keys; its end hash is the check)
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert cli_main(["play", "--load", str(out / "log.json"), "--script", str(tmp_path / "empty.txt"),
                     "--no-render", "--out", str(tmp_path / "out2")]) == 0
    assert json.loads((tmp_path / "out2" / "log.json").read_text(encoding="utf-8"))["state_hash"] == log["state_hash"]
    # a bad file is a clear refusal, not a traceback
    path.write_bytes(tampered(path.read_bytes(), lambda doc: doc.update(state_hash="0" * 64)))
    assert cli_main(["play", "--load", str(path), "--no-render", "--out", str(out)]) == 2
    assert "state_hash differs" in capsys.readouterr().err
    assert cli_main(["play", "battlecry", "--load", str(path)]) == 2


# --- hidden information in TACW: the secret boat bridge -----------------------------------------
@pytest.mark.parametrize("seed", ["7"])
async def test_the_secret_boat_bridge_is_never_drawn_before_it_is_revealed(d, seed):
    """Second Newbury special rule 5 (TACW HERALD D108): the board after the secret record is the
    board before it; the record's command line stays out of every caption."""
    from tests.bot.harness import ALICE as P_USER, BOB as R_USER
    rest = await d.game("new", user=P_USER, ruleset="tacw", scenario="second-newbury", side="parliament",
                        seed=seed, options="northampton_return,douglas_return")
    assert not rest.last.ephemeral, rest.last.content
    await d.game("join", user=R_USER, side="royalist")
    await d.game("start", user=P_USER)
    for user, line in ((P_USER, "boatbridge 3338"), (R_USER, "deploy done"), (P_USER, "deploy done")):
        rest = await d.cmd("act", user=user, line=line)
        assert rest.messages(), line
    loaded = await d.bot.service.load(d.channel_id)
    from renders.tacw import render_board as tacw_board
    g = Game.new("tacw", "second-newbury", 7, options=["northampton_return", "douglas_return"])
    opening = tacw_board(loaded.scenario, g.state)
    g.apply("parliament", "boatbridge 3338")
    recorded = tacw_board(loaded.scenario, g.state)
    assert recorded == opening                          # the renderer draws no secret bridge
    before, after = await d.game("board", at=0), await d.game("board", at=1)
    assert same_board(file_of(before)[1], opening) and same_board(file_of(after)[1], opening)
    assert "3338" not in after.last.content and "boatbridge" not in after.last.content
    assert "records in secret" in after.last.content
    # nor the replay: its captions are the same public view
    rest = await d.game("replay")
    assert rest.last.files and "3338" not in rest.last.content
    # the export of the unfinished battle holds the secret: consent of both first
    rest = await d.game("export", user=P_USER)
    assert not any(m.files for m in rest.messages())
    rest = await d.game("export", user=R_USER)
    assert "hidden information" in rest.messages()[0].content and rest.messages()[0].ephemeral
    assert any(c["text"] == "boatbridge 3338" for c in json.loads(file_in(rest)[1])["commands"])
