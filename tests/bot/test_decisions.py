"""Pending decisions of any kind through the bot: a TACW bypass window answered with the typed
answer buttons (custom_id herald:answer:<game>:<seq>:<index>), which survive a restart because
the answer's command is read again from the stored game."""
from tests.bot.harness import ALICE, BOB, CAROL, CHANNEL_ID


async def tacw_game(d):
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    return await d.bot.store.active_game(CHANNEL_ID)


async def test_bypass_window_offers_answer_buttons_and_only_the_inactive_player_answers(d):
    game = await tacw_game(d)
    rest = await d.cmd("act", user=BOB, line="policy bypass ask")
    assert not rest.last.ephemeral
    rest = await d.cmd("act", user=ALICE, line="activate r-centre")
    msg = rest.last
    seq = await d.bot.store.last_seq(game.id)
    assert msg.custom_ids[:1] == [f"herald:answer:{game.id}:{seq}:0"]
    assert msg.custom_ids[-1] == f"herald:answer:{game.id}:{seq}:{len(msg.custom_ids) - 1}"
    assert "Parliament may attempt a bypass" in msg.content
    labels = [c["label"] for row in msg.components for c in row["components"]]
    assert labels[-1] == "No" and any("Parliament left wing" in lb for lb in labels)

    rest = await d.click(msg.custom_ids[-1], msg.components, user=ALICE)      # not Alice's choice
    assert rest.last.ephemeral and "Parliament" in rest.last.content
    rest = await d.click(msg.custom_ids[-1], msg.components, user=CAROL)      # a spectator
    assert rest.last.ephemeral
    assert await d.bot.store.last_seq(game.id) == seq

    rest = await d.click(msg.custom_ids[-1], msg.components, user=BOB)        # "No"
    assert rest.calls[0].data["components"] == []                             # buttons taken off
    assert "does not attempt a bypass" in rest.last.content
    assert await d.bot.store.last_seq(game.id) == seq + 1
    rest = await d.click(msg.custom_ids[0], msg.components, user=BOB)         # now stale
    assert rest.last.ephemeral and await d.bot.store.last_seq(game.id) == seq + 1
