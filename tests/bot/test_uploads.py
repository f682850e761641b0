"""/scenario upload, list, remove and /game new on an uploaded battle (bot/uploads.py,
bot/cogs/scenarios.py), driven through the slash commands with a real `discord.Attachment`
resolved from the interaction payload; its download (`HTTPClient.get_from_cdn`) is served from
memory. A rejected file must say what is wrong (and on which line) and store nothing."""
from __future__ import annotations

import re

import pytest

from engine.tacw.scenario.schema import SCENARIO_DIR as TACW_DIR
from tests.bot.conftest import TEST_SCENARIO
from tests.bot.harness import (ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, GUILD_ID, STRING, fake_discord_rest,
                               interaction_payload, invoke, next_id, option, png_size)

ATTACHMENT = 11
MY_BATTLE = TEST_SCENARIO.replace('id = "test-skirmish"', 'id = "my-battle"').replace(
    'title = "Test Skirmish"', 'title = "Club Ridge"')


class Cdn:
    """What the attachments' URLs serve; records every download."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.fetched: list[str] = []

    async def get_from_cdn(self, url: str) -> bytes:
        self.fetched.append(url)
        return self.files[url]


@pytest.fixture
def cdn(bot, monkeypatch) -> Cdn:
    c = Cdn()
    monkeypatch.setattr(bot.http, "get_from_cdn", c.get_from_cdn)
    return c


async def upload(d, cdn: Cdn, text: str | bytes, *, ruleset="battlecry", filename="battle.toml",
                 user=ALICE, perms=0, size: int | None = None):
    data = text.encode() if isinstance(text, str) else text
    att = next_id()
    url = f"https://cdn.example/{att}/{filename}"
    cdn.files[url] = data
    payload = interaction_payload("scenario", [option("ruleset", ruleset, STRING), option("file", str(att), ATTACHMENT)],
                                  subcommand="upload", user_id=user, permissions=perms, channel_id=d.channel_id)
    payload["data"]["resolved"] = {"attachments": {str(att): {
        "id": str(att), "filename": filename, "size": len(data) if size is None else size, "url": url,
        "proxy_url": url, "content_type": "application/toml"}}}
    with fake_discord_rest() as rest:
        await invoke(d.bot, payload)
    return rest


async def stored(d) -> list:
    from bot.uploads import listing
    return await listing(d.bot.store, GUILD_ID)


def rejected(rest, *words: str) -> str:
    [msg] = rest.messages()
    assert msg.ephemeral and not msg.files, msg.content
    for w in words:
        assert w in msg.content, msg.content
    return msg.content


async def test_upload_previews_stores_and_is_offered_by_game_new(d, cdn):
    rest = await upload(d, cdn, MY_BATTLE)
    assert rest.calls[0].type == 5 and rest.calls[0].ephemeral    # deferred privately before the download
    msg = rest.last
    assert not msg.ephemeral, msg.content
    assert "**Club Ridge** (`my-battle`, Battle Cry)" in msg.content and "Union 3 units, Confederate 3 units" in msg.content
    assert [f[0] for f in msg.files] == ["board.png"] and png_size(msg.files[0][1])[0] > 500
    [row] = await stored(d)
    assert (row.ruleset, row.scenario_id, row.title, row.uploaded_by) == ("battlecry", "my-battle", "Club Ridge", ALICE)
    assert row.text == MY_BATTLE

    choices = await d.complete("game", "scenario", sub="new", ruleset="battlecry", scenario="club")
    assert choices == [{"name": "Club Ridge (uploaded)", "value": "custom:my-battle"}]

    rest = await d.game("new", user=BOB, ruleset="battlecry", scenario="custom:my-battle", side="union", seed="1")
    assert not rest.last.ephemeral and "Club Ridge" in rest.last.content, rest.last.content
    game = await d.bot.store.active_game(d.channel_id)
    assert (game.scenario_id, game.scenario_text) == ("my-battle", MY_BATTLE)
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.scenario.title == "Club Ridge" and loaded.state.pieces["ui1"].hex == "0306"

    # the plain id works too, and only on the server that uploaded it
    other = d.bot.service
    g2 = await other.new_game(GUILD_ID, CHANNEL_ID + 7, ALICE, "battlecry", "my-battle", "1")
    assert g2.row.scenario_text == MY_BATTLE
    with pytest.raises(Exception, match="my-battle"):
        await other.new_game(GUILD_ID + 1, CHANNEL_ID + 8, ALICE, "battlecry", "my-battle", "1")
    with pytest.raises(Exception, match="no uploaded Battle Cry scenario 'nope'"):
        await other.new_game(GUILD_ID, CHANNEL_ID + 9, ALICE, "battlecry", "custom:nope", "1")


@pytest.mark.parametrize("change, words", [
    # a unit off the board: the field, the rule's words and the line of its `hex =`
    (('hex = "1004"', 'hex = "1404"'), ["units[6].hex", "'1404' is not a hex of the 13x9 board", "(line 46)"]),
    # a unit on Rough, which no unit may enter
    (('woods = ["0705"]', 'woods = ["0705"]\nrough = ["1004"]'), ["units[6]: hex 1004 is Rough", "BC §2.3", "(line 44)"]),
    # TOML syntax: the parser's own line and column
    (('title = "Club Ridge"', 'title = "Club Ridge'), ["TOML syntax", "line 3"]),
    # a field out of range
    (('cards = 5\nhome_edge = "north"', 'cards = 15\nhome_edge = "north"'), ["sides.confederate.cards: 15 is not 1..10",
                                                                            "(line 15)"]),
    # an unknown kind of unit
    (('kind = "general"\nhex = "0604"', 'kind = "dragon"\nhex = "0604"'), ["units[7].kind", "(line 49)"]),
    # the id of a built-in battle (the tests' scenario directory holds test-skirmish only)
    (('id = "my-battle"', 'id = "test-skirmish"'), ["'test-skirmish' is a built-in Battle Cry battle", "(line 2)"]),
    # an id that is not an id
    (('id = "my-battle"', 'id = "My Battle!"'), ["a scenario id is", "(line 2)"]),
])
async def test_a_malformed_file_is_rejected_with_its_line_and_nothing_stored(d, cdn, change, words):
    text = MY_BATTLE.replace(*change, 1)
    assert text != MY_BATTLE
    rest = await upload(d, cdn, text)
    assert rest.calls[0].type == 5 and rest.calls[0].ephemeral    # deferred privately: the refusal stays private
    rejected(rest, "battle.toml", *words)
    assert await stored(d) == []


async def test_size_and_encoding_are_checked_and_nothing_stored(d, cdn):
    rest = await upload(d, cdn, MY_BATTLE, size=200 * 1024)         # declared size: never downloaded
    rejected(rest, "at most 64 KiB")
    assert cdn.fetched == []
    rest = await upload(d, cdn, MY_BATTLE + "# " + "x" * 70_000)    # the real bytes are checked too
    rejected(rest, "at most 64 KiB")
    bad = MY_BATTLE.encode().replace(b"Club Ridge", b"Club \xff Ridge")
    rest = await upload(d, cdn, bad)
    rejected(rest, "line 3", "not UTF-8")
    rest = await upload(d, cdn, b"")
    rejected(rest, "empty")
    rest = await upload(d, cdn, "id = 'x'\n")
    rejected(rest, "missing 'sides'")
    assert await stored(d) == []


async def test_list_replace_and_remove(d, cdn):
    await upload(d, cdn, MY_BATTLE)
    rest = await d.cmd("scenario", sub="list", user=CAROL)
    assert not rest.last.ephemeral and "**Club Ridge** · `my-battle` · battlecry" in rest.last.content

    # another member may not overwrite Alice's file; nothing changes
    rest = await upload(d, cdn, MY_BATTLE.replace("Club Ridge", "Bob's Ridge"), user=BOB)
    rejected(rest, "only they or a server manager")
    assert [s.title for s in await stored(d)] == ["Club Ridge"]
    # Alice replaces her own
    rest = await upload(d, cdn, MY_BATTLE.replace("Club Ridge", "Club Ridge II"))
    assert "replaces the earlier upload" in rest.last.content
    assert [s.title for s in await stored(d)] == ["Club Ridge II"]

    await d.game("new", user=ALICE, ruleset="battlecry", scenario="custom:my-battle", seed="1")
    choices = await d.complete("scenario", "scenario", sub="remove", ruleset="battlecry", scenario="")
    assert choices == [{"name": "Club Ridge II (my-battle)", "value": "my-battle"}]
    rest = await d.cmd("scenario", sub="remove", user=CAROL, ruleset="battlecry", scenario="my-battle")
    rejected(rest, "or a server manager (Manage Server) may remove it")
    rest = await d.cmd("scenario", sub="remove", user=CAROL, perms=ADMIN_PERMS, ruleset="battlecry", scenario="my-battle")
    assert not rest.last.ephemeral and "no longer offered" in rest.last.content
    assert await stored(d) == []
    rest = await d.cmd("scenario", sub="remove", user=ALICE, ruleset="battlecry", scenario="my-battle")
    rejected(rest, "no uploaded battlecry scenario 'my-battle'")
    # the game created from it keeps its copy of the file
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.scenario.title == "Club Ridge II"
    rest = await d.cmd("scenario", sub="list")
    assert "no uploaded scenario" in rest.last.content


async def test_a_tacw_upload_is_validated_by_its_own_ruleset(d, cdn):
    text = (TACW_DIR / "edgehill.toml").read_text(encoding="utf-8").replace('id = "edgehill"', 'id = "club-edgehill"', 1)
    # an error inside the one-line inline tables of `units = [...]` names that unit's line
    first = re.search(r'hexes = \["3103"\]', text)
    line = text[:first.start()].count("\n") + 1
    rest = await upload(d, cdn, text.replace(first.group(0), 'hexes = ["9999"]', 1), ruleset="tacw", filename="eh.toml")
    rejected(rest, "units[0] (Musketeers).hexes", "'9999' is not a hex of the 40x26 map", f"(line {line})")
    assert await stored(d) == []

    rest = await upload(d, cdn, text, ruleset="tacw", filename="eh.toml")
    msg = rest.last
    assert not msg.ephemeral and "(`club-edgehill`, This Accursed Civil War)" in msg.content, msg.content
    assert png_size(msg.files[0][1])[0] > 1000
    # /game new offers the upload's optional rules (those of the Edgehill it copies)
    choices = await d.complete("game", "options", sub="new", ruleset="tacw", scenario="custom:club-edgehill", options="")
    from engine.core.game import game_options, get_ruleset, option_name
    rules = [option_name(oid) for oid, _ in game_options(get_ruleset("tacw"),
                                                         get_ruleset("tacw").load_scenario("edgehill"))]
    assert rules and [c["value"] for c in choices] == rules
    game = await d.bot.service.new_game(GUILD_ID, d.channel_id, ALICE, "tacw", "custom:club-edgehill", 5)
    assert game.row.scenario_id == "club-edgehill" and game.row.scenario_text == text


# --- bundled battles, modified as a club would ---------------------------------------------------------
from pathlib import Path  # noqa: E402

import discord  # noqa: E402

from bot import campaigns  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHILOH = (ROOT / "engine/battlecry/scenarios/shiloh.toml").read_text(encoding="utf-8")
CLUB_SHILOH = SHILOH.replace('id = "shiloh"', 'id = "club-shiloh"', 1).replace('title = "Shiloh"', 'title = "Club Shiloh"', 1)
EDGEHILL = (TACW_DIR / "edgehill.toml").read_text(encoding="utf-8")
# Edgehill cut to one turn: three wings activated and stopped, two passes, and the battle is over
SHORT_EDGEHILL = re.sub(r"^turns = \d+", "turns = 1", EDGEHILL.replace('id = "edgehill"', 'id = "short-edgehill"', 1),
                        count=1, flags=re.M)
ONE_TURN = [("royalist", "activate r-right"), ("royalist", "stop"), ("royalist", "activate r-centre"),
            ("royalist", "stop"), ("royalist", "activate r-left"), ("royalist", "stop"),
            ("parliament", "pass"), ("parliament", "pass")]
MANAGER_PERMS = discord.Permissions(manage_guild=True).value


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


async def complete_on(d, guild_id: int, **opts) -> list[dict]:
    """/game new's scenario autocomplete as seen from the server `guild_id`."""
    payload = d.payload("game", sub="new", focused="scenario", **opts)
    payload["guild_id"] = payload["channel"]["guild_id"] = str(guild_id)
    payload["authorizing_integration_owners"] = {"0": str(guild_id)}
    with fake_discord_rest() as rest:
        await invoke(d.bot, payload)
    [call] = rest.calls
    return call.data["choices"]


async def test_a_modified_bundled_battle_cry_battle_is_previewed_offered_here_only_and_playable(d, cdn):
    rest = await upload(d, cdn, CLUB_SHILOH, filename="shiloh.toml")
    msg = rest.last
    assert not msg.ephemeral and "**Club Shiloh** (`club-shiloh`, Battle Cry)" in msg.content, msg.content
    [(name, png)] = msg.files
    assert name == "board.png" and png_size(png)[0] > 500

    here = await complete_on(d, GUILD_ID, ruleset="battlecry", scenario="shiloh")
    assert {"name": "Club Shiloh (uploaded)", "value": "custom:club-shiloh"} in here
    elsewhere = await complete_on(d, GUILD_ID + 1, ruleset="battlecry", scenario="shiloh")
    assert all(c["value"] != "custom:club-shiloh" for c in elsewhere)

    await d.game("new", user=ALICE, ruleset="battlecry", scenario="custom:club-shiloh", side="union", seed="3")
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.row.scenario_id == "club-shiloh" and loaded.scenario.title == "Club Shiloh"
    first = loaded.to_act_side
    user = ALICE if first == "union" else BOB
    for card in loaded.state.hands[first]:                          # the first card of the hand that can be played
        rest = await d.cmd("bc", sub="play", user=user, card=card)
        if not rest.last.ephemeral:
            break
    assert not rest.last.ephemeral, rest.last.content
    assert await d.bot.store.last_seq(loaded.row.id) == 1
    assert [f[0] for f in rest.last.files] == ["board.png"]


@pytest.mark.parametrize("name, text, words", [
    ("not TOML at all", "Battle of the Club\nUnion: 3 infantry\n", ["club.toml", "TOML syntax", "line 1"]),
    ("a binary file", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["club.toml", "line 1", "not UTF-8"]),
    ("a TOML syntax error", CLUB_SHILOH.replace('title = "Club Shiloh"', 'title = "Club Shiloh', 1),
     ["TOML syntax", f"line {line_of(CLUB_SHILOH, 'title = ')}"]),
    ("a unit off the board", CLUB_SHILOH.replace('hex = "0304"\nname = "Sherman\'s division"',
                                                 'hex = "1410"\nname = "Sherman\'s division"', 1),
     ["units[0].hex", "'1410' is not a hex of the 13x9 board", f"(line {line_of(CLUB_SHILOH, 'hex = ')})"]),
    ("an unknown unit type", CLUB_SHILOH.replace('kind = "infantry"', 'kind = "zeppelin"', 1),
     ["units[0].kind", "must be one of infantry, cavalry, artillery, general",
      f"(line {line_of(CLUB_SHILOH, 'kind = ')})"]),
    ("a built-in battle's id", MY_BATTLE.replace('id = "my-battle"', 'id = "test-skirmish"'),
     ["'test-skirmish' is a built-in Battle Cry battle", "(line 2)"]),
])
async def test_each_bad_battle_cry_file_says_what_and_where_and_stores_nothing(d, cdn, name, text, words):
    rest = await upload(d, cdn, text, filename="club.toml")
    rejected(rest, *words)
    assert await stored(d) == []
    assert await complete_on(d, GUILD_ID, ruleset="battlecry", scenario="club") == []


async def test_a_tacw_file_with_a_duplicate_unit_id_is_rejected_with_its_line(d, cdn):
    text = SHORT_EDGEHILL.replace('id = "r-culverins"', 'id = "r-byron-horse"', 1)
    rest = await upload(d, cdn, text, ruleset="tacw", filename="eh.toml")
    rejected(rest, "eh.toml", "'r-byron-horse' is used twice", f"(line {line_of(text, '12 lb Culverins')})")
    rest = await upload(d, cdn, SHORT_EDGEHILL.replace('kind = "cavalry"', 'kind = "zeppelin"', 1),
                        ruleset="tacw", filename="eh.toml")
    rejected(rest, ".kind: must be one of cavalry, heavy, light, artillery, wagon, got 'zeppelin'")
    fetched = len(cdn.fetched)
    rest = await upload(d, cdn, SHORT_EDGEHILL, ruleset="tacw", filename="eh.toml", size=10 * 1024 * 1024)
    rejected(rest, "eh.toml is 10241 KiB", "at most")
    assert len(cdn.fetched) == fetched                               # too large: never downloaded
    assert await stored(d) == []


async def test_a_server_manager_may_remove_or_replace_anyones_upload(d, cdn):
    await upload(d, cdn, MY_BATTLE, user=ALICE)
    rest = await upload(d, cdn, MY_BATTLE.replace("Club Ridge", "Bob's Ridge"), user=BOB, perms=MANAGER_PERMS)
    assert not rest.last.ephemeral and "replaces the earlier upload" in rest.last.content
    assert [(s.title, s.uploaded_by) for s in await stored(d)] == [("Bob's Ridge", BOB)]
    rest = await d.cmd("scenario", sub="remove", user=ALICE, ruleset="battlecry", scenario="my-battle")
    rejected(rest, "or a server manager")                            # Alice's file is Bob's now
    assert len(await stored(d)) == 1
    rest = await d.cmd("scenario", sub="remove", user=CAROL, perms=MANAGER_PERMS, ruleset="battlecry",
                       scenario="custom:my-battle")
    assert "no longer offered" in rest.last.content and await stored(d) == []


async def test_an_uploaded_tacw_battle_plays_to_its_end_and_counts_in_a_campaign(d, cdn):
    """TACW Victory Determination at the end of the last turn: the level on the scenario's
    schedule (Edgehill: a difference of -9..10 is a Parliament marginal victory) is recorded
    automatically (engine/tacw/ruleset.py campaign_score: marginal victory 3, marginal defeat 1)."""
    rest = await upload(d, cdn, SHORT_EDGEHILL, ruleset="tacw", filename="short.toml")
    assert not rest.last.ephemeral and "short-edgehill" in rest.last.content, rest.last.content
    service = d.bot.service
    await service.new_game(GUILD_ID, CHANNEL_ID, ALICE, "tacw", "custom:short-edgehill", 5, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    c = await campaigns.create_campaign(service, GUILD_ID, "Civil War", "tacw", ALICE)
    await campaigns.add_game(service, GUILD_ID, "Civil War", ALICE, channel_id=CHANNEL_ID)
    who = {"royalist": ALICE, "parliament": BOB}
    for side, line in ONE_TURN:
        result = await service.act(CHANNEL_ID, who[side], line)
    assert result.over and "Parliament marginal victory" in result.result
    row = await d.bot.store.latest_game(CHANNEL_ID)
    assert row.status == "over"
    recorded = {(r.side, r.user_id, r.outcome, r.score, r.detail["level"])
                for r in await campaigns.results(d.bot.store, c.id)}
    assert recorded == {("parliament", BOB, "win", 3, "Parliament marginal victory"),
                        ("royalist", ALICE, "loss", 1, "Parliament marginal victory")}
