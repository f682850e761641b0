"""Playing Battle Cry through the slash commands: hands, a whole turn with the board PNG,
refusals, idempotency, concurrency, autocomplete and the retreat buttons."""
from __future__ import annotations

import asyncio
import re

from tests.bot.conftest import UNION_HAND
from tests.bot.harness import ALICE, BOB, CAROL, png_size

# ui2 (with General ug1) moved to 0605 battles ci2 (with cg1) in 0604: 4 dice + 1 for the General.
FLAG_DICE = "5,1,1,3,4"      # flag, infantry, infantry, cavalry, artillery: 2 hits, 1 retreat
NO_FLAG_DICE = "1,2,3,4,6"   # 2 infantry + sabres: 3 hits, no flag


async def last_seq(d, game) -> int:
    return await d.bot.store.last_seq(game.id)


async def state(d):
    return (await d.bot.service.load(d.channel_id)).state


async def advance_to_battle(d):
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"})):
        rest = await d.cmd("bc", sub=name, user=ALICE, **opts)
        assert not rest.last.ephemeral, rest.last.content


async def test_hand_is_ephemeral_and_exactly_the_players_cards(d, game):
    st = await state(d)
    assert st.hands["union"] == UNION_HAND
    for user, side in ((ALICE, "union"), (BOB, "confederate")):
        rest = await d.cmd("bc", sub="hand", user=user)
        [msg] = rest.messages()
        assert msg.ephemeral and side.title() in msg.content
        assert re.findall(r"\(`([a-z-]+)`\)", msg.content) == st.hands[side]
    rest = await d.cmd("bc", sub="hand", user=CAROL)
    assert rest.last.ephemeral and "not a player" in rest.last.content


async def test_a_whole_turn_play_order_move_battle_end(d, game):
    rest = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    assert rest.calls[0].kind == "response" and rest.calls[0].type == 5      # deferred first
    [msg] = rest.messages()
    assert not msg.ephemeral and msg.content.startswith("Union plays Attack Centre")
    assert [name for name, _ in msg.files] == ["board.png"]
    assert png_size(msg.files[0][1])[0] > 100
    assert f"<@{ALICE}>" in msg.content and not msg.data["allowed_mentions"].get("users")  # no self-ping
    assert msg.data["allowed_mentions"]["parse"] == []

    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    rest = await d.cmd("bc", sub="move", user=ALICE, unit="ui2", to="0605")
    assert "ui2 (infantry) moves 0606 -> 0605" in rest.last.content

    rest = await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=NO_FLAG_DICE)
    msg = rest.last
    assert not msg.ephemeral and len(msg.files) == 1 and png_size(msg.files[0][1])
    assert "5 dice" in msg.content and "3 hits, 0 flags" in msg.content
    assert all(face in msg.content for face in ("🪖", "🐎", "💣", "⚔️"))       # dice as face emoji
    assert "ci2 loses 3 figures" in msg.content
    assert msg.custom_ids == [f"herald:go:{game.id}:4:end"]      # no retreat to choose: the menus (End)
    assert (await state(d)).pieces["ci2"].figures == 1

    rest = await d.cmd("bc", sub="end", user=ALICE)
    msg = rest.last
    assert "Union ends turn 1" in msg.content
    assert msg.content.count(f"<@{BOB}>") == 1 and [int(u) for u in msg.data["allowed_mentions"]["users"]] == [BOB]
    assert await last_seq(d, game) == 5
    st = await state(d)
    assert st.active == "confederate" and len(st.hands["union"]) == 5


async def test_rejected_actions_are_ephemeral_cite_the_rule_and_store_nothing(d, game):
    before = await last_seq(d, game)
    cases = [
        (BOB, "bc", {"sub": "play", "card": "attack-centre"}, "BC §3.2"),          # not Bob's turn
        (ALICE, "bc", {"sub": "move", "unit": "ui2", "to": "0605"}, "BC §3.2"),    # no card played yet
        (ALICE, "bc", {"sub": "play", "card": "rally"}, "BC §3.1"),                # not in hand
        (ALICE, "act", {"line": "teleport ui2 0101"}, "unknown command"),
    ]
    for user, name, opts, why in cases:
        rest = await d.cmd(name, user=user, **opts)
        [msg] = rest.messages()
        assert msg.ephemeral and why in msg.content, (name, msg.content)
        assert rest.calls[0].type == 4 and not msg.files             # no board, no defer
    assert "BC §" in (await d.cmd("bc", sub="play", user=BOB, card="attack-centre")).last.content
    assert await last_seq(d, game) == before
    assert (await state(d)).hands["union"] == UNION_HAND


async def test_a_non_player_is_refused(d, game):
    rest = await d.cmd("bc", sub="play", user=CAROL, card="attack-centre")
    assert rest.last.ephemeral and "not a player" in rest.last.content
    rest = await d.cmd("act", user=CAROL, line="end")
    assert rest.last.ephemeral
    assert await last_seq(d, game) == 0


async def test_a_duplicate_interaction_is_applied_once(d, game):
    iid = 987654321987654321
    first = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre", iid=iid)
    assert not first.last.ephemeral
    again = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre", iid=iid)
    assert again.last.ephemeral and "already applied" in again.last.content
    assert await last_seq(d, game) == 1
    [row] = await d.bot.store.commands(game.id)
    assert row.interaction_id == str(iid) and row.text == "play attack-centre"


async def test_concurrent_actions_serialize(d, game):
    # The same player fires two orders at once: whichever runs first, both are adjudicated
    # one after the other on the committed state; no crash, no lost write, seqs contiguous.
    p1 = d.payload("act", user=ALICE, line="play attack-centre")
    p2 = d.payload("act", user=ALICE, line="order ui2")
    from tests.bot.harness import fake_discord_rest, invoke
    with fake_discord_rest() as rest:
        await asyncio.gather(invoke(d.bot, p1), invoke(d.bot, p2))
    msgs = rest.messages()
    assert len(msgs) == 2 and not any("internal error" in m.content for m in msgs)
    rows = await d.bot.store.commands(game.id)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    texts = [r.text for r in rows]
    assert texts in (["play attack-centre", "order ui2"], ["play attack-centre"])
    if len(rows) == 1:       # 'order' ran first and was refused for a rule reason
        assert any(m.ephemeral and "BC §3.2" in m.content for m in msgs)

    # Both players at once: exactly one of two identical plays of a single card wins.
    with fake_discord_rest() as rest:
        await asyncio.gather(*(invoke(d.bot, d.payload("act", user=u, line="end")) for u in (ALICE, BOB)))
    rows2 = await d.bot.store.commands(game.id)
    assert [r.seq for r in rows2] == list(range(1, len(rows2) + 1)) and len(rows2) == len(rows) + 1
    refused = [m for m in rest.messages() if m.ephemeral]
    assert len(refused) == 1 and "BC §3.2" in refused[0].content


async def test_autocomplete_offers_the_hand_and_pieces(d, game):
    choices = await d.complete("bc", "card", sub="play", user=ALICE, card="")
    assert [c["value"] for c in choices] == list(dict.fromkeys(UNION_HAND))
    assert choices[2] == {"name": "Attack Centre", "value": "attack-centre"}
    assert [c["value"] for c in await d.complete("bc", "card", sub="play", user=ALICE, card="attack")] == \
        ["attack-centre", "attack-left"]
    bob = await d.complete("bc", "card", sub="play", user=BOB, card="")
    assert [c["value"] for c in bob] == list(dict.fromkeys((await state(d)).hands["confederate"]))
    assert await d.complete("bc", "card", sub="play", user=CAROL, card="") == []      # no side, no cards

    units = await d.complete("bc", "units", sub="order", user=ALICE, units="ui1 ui")
    assert [c["value"] for c in units] == ["ui1 ui2", "ui1 ui3"]     # ui1 is already in the list
    targets = await d.complete("bc", "target", sub="battle", user=ALICE, target="")
    assert {c["value"] for c in targets} == {"0304", "0604", "1004"}


async def test_retreat_buttons_only_the_defender_may_answer(d, game):
    await advance_to_battle(d)
    rest = await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=FLAG_DICE)
    msg = rest.last
    assert "🚩" in msg.content and "must choose a retreat hex for ci2" in msg.content
    assert msg.content.count(f"<@{BOB}>") == 1
    seq = await last_seq(d, game)
    assert msg.custom_ids == [f"herald:retreat:{game.id}:{seq}:0603", f"herald:retreat:{game.id}:{seq}:0703"]
    components = msg.components

    rest = await d.click(msg.custom_ids[0], components, user=ALICE)      # the attacker
    assert rest.last.ephemeral and "Confederate's to choose (BC §4.6)" in rest.last.content
    rest = await d.click(msg.custom_ids[0], components, user=CAROL)      # a spectator
    assert rest.last.ephemeral and "not a player" in rest.last.content
    assert await last_seq(d, game) == seq

    rest = await d.click(msg.custom_ids[0], components, user=BOB)        # the defender
    assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []   # buttons removed
    answer = rest.last
    assert not answer.ephemeral and "ci2 with General cg1 retreats 0604 -> 0603" in answer.content
    assert png_size(answer.files[0][1]) and f"**Union** to act: <@{ALICE}>" in answer.content
    assert await last_seq(d, game) == seq + 1
    st = await state(d)
    assert st.pending is None and st.pieces["ci2"].hex == "0603"

    rest = await d.click(msg.custom_ids[1], components, user=BOB)        # the other, now stale
    assert rest.last.ephemeral and "out of date" in rest.last.content
    assert await last_seq(d, game) == seq + 1


async def test_retreat_by_slash_command_and_autocomplete(d, game):
    await advance_to_battle(d)
    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=FLAG_DICE)
    choices = await d.complete("bc", "hex", sub="retreat", user=BOB, hex="")
    assert [c["value"] for c in choices] == ["0603", "0703"]
    rest = await d.cmd("bc", sub="retreat", user=BOB, hex="0905")
    assert rest.last.ephemeral and "BC §4.6" in rest.last.content
    rest = await d.cmd("bc", sub="retreat", user=BOB, hex="0703")
    assert not rest.last.ephemeral and "-> 0703" in rest.last.content


async def test_unexpected_errors_are_caught_and_reported(d, game, monkeypatch, caplog):
    async def boom(*a, **kw):
        raise RuntimeError("kaboom")
    monkeypatch.setattr(d.bot.service, "act", boom)
    rest = await d.cmd("bc", sub="end", user=ALICE)
    [msg] = rest.messages()
    assert msg.ephemeral and msg.content == "❌ internal error, the game is untouched"
    assert "kaboom" in caplog.text
    monkeypatch.undo()
    # an engine ValueError (a die face out of range) is not a HeraldError: still no crash
    await advance_to_battle(d)
    before = await last_seq(d, game)
    rest = await d.cmd("act", user=ALICE, line="battle ui2 0604 dice=9,9,9,9,9")
    assert rest.last.ephemeral and await last_seq(d, game) == before


async def test_a_complete_game_through_slash_commands(d, game):
    """Both players give every order with /act (lines written by the engine's autoplayer on a
    mirror game with the same seed) until the battle is won: the bot adjudicates identically."""
    from engine.battlecry.autoplay import play_turn
    from engine.core.game import Game
    loaded = await d.bot.service.load(d.channel_id)
    mirror = Game(loaded.ruleset, loaded.scenario, game.seed, loaded.state)
    users = {"union": ALICE, "confederate": BOB}
    sent = 0
    while mirror.to_act is not None and sent < 600:
        side = mirror.to_act
        lines = play_turn(mirror, side)
        assert lines, f"autoplayer stuck for {side}"
        for who, line in lines:
            rest = await d.cmd("act", user=users[who], line=line)
            assert not rest.last.ephemeral, (line, rest.last.content)
            sent += 1
    assert mirror.to_act is None, "the battle did not end"
    assert "Battle over" in rest.last.content and mirror.state.result in rest.last.content
    row = await d.bot.store.get_game(game.id)
    assert row.status == "over" and row.result == mirror.state.result
    assert await d.bot.store.last_seq(game.id) == sent
    assert await d.bot.service.verify(row)
    rest = await d.cmd("act", user=ALICE, line="end")
    assert rest.last.ephemeral and "no game" in rest.last.content


async def test_target_autocomplete_uses_the_chosen_unit(d, game):
    await d.cmd("bc", sub="play", user=ALICE, card="skirmish-centre")
    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    choices = await d.complete("bc", "target", sub="battle", user=ALICE, unit="ui2", target="")
    assert choices[0]["value"] == "0604" and "range 2" in choices[0]["name"] and "dice" in choices[0]["name"]
    units = await d.complete("bc", "unit", sub="battle", user=ALICE, unit="")
    assert [c["value"] for c in units] == ["ui2"]


async def test_an_interaction_delivered_again_after_its_game_ended_is_already_applied(d, game):
    """Issue 11: a game-ending interaction delivered again, and one from the channel's earlier
    game delivered again in the next game, are both answered "already applied"."""
    played, resigned = 987654321987650001, 987654321987650002
    assert not (await d.cmd("act", user=ALICE, line="play attack-centre", iid=played)).last.ephemeral
    assert not (await d.game("resign", user=BOB, iid=resigned)).last.ephemeral
    rest = await d.game("resign", user=BOB, iid=resigned)
    assert rest.last.ephemeral and "already applied" in rest.last.content, rest.last.content
    assert "#2 `resign`" in rest.last.content

    rest = await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed="2")
    assert not rest.last.ephemeral, rest.last.content
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    second = await d.bot.store.active_game(d.channel_id)
    for again in (d.cmd("act", user=ALICE, line="play attack-centre", iid=played),
                  d.cmd("act", user=ALICE, line="order ui2", iid=played),
                  d.game("resign", user=BOB, iid=resigned)):
        rest = await again
        assert rest.last.ephemeral and "already applied" in rest.last.content, rest.last.content
        assert "internal error" not in rest.last.content
    assert await last_seq(d, second) == 0 and (await d.bot.store.get_game(second.id)).status == "active"
