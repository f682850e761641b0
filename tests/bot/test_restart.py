"""A restarted bot (a new client on the same SQLite file) resumes every game: status, actions and
even the retreat buttons posted before the restart keep working."""
from __future__ import annotations

from engine.core.commands import parse
from tests.bot.conftest import SEED, start_bot
from tests.bot.harness import ALICE, BOB, Driver

FLAG_DICE = "5,1,1,3,4"


async def _started(d: Driver):
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    return await d.bot.store.active_game(d.channel_id)


async def test_new_client_on_the_same_db_continues_the_game(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    d1 = Driver(bot1)
    game = await _started(d1)
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"}),
                       ("battle", {"unit": "ui2", "target": "0604", "dice": FLAG_DICE})):
        rest = await d1.cmd("bc", sub=name, user=ALICE, **opts)
        assert not rest.last.ephemeral, rest.last.content
    buttons = rest.last
    assert len(buttons.custom_ids) == 2
    await bot1.close()

    bot2 = await start_bot(db_path)
    try:
        d2 = Driver(bot2)
        rest = await d2.game("status", user=BOB)
        msg = rest.last
        assert not msg.ephemeral and f"Game #{game.id}" in msg.content
        assert "Waiting for **Confederate**: retreat ci2" in msg.content

        # the button posted by the old process answers through the new one
        rest = await d2.click(buttons.custom_ids[1], buttons.components, user=BOB)
        assert "retreats 0604 -> 0703" in rest.last.content
        rest = await d2.cmd("bc", sub="end", user=ALICE)
        assert not rest.last.ephemeral and "Union ends turn 1" in rest.last.content
        assert await bot2.store.last_seq(game.id) == 6
        row = await bot2.store.get_game(game.id)
        assert await bot2.service.verify(row)          # snapshot == replay of the log from the seed
        st = (await bot2.service.load(d2.channel_id)).state
        assert st.active == "confederate" and st.pieces["ci2"].hex == "0703"
    finally:
        await bot2.close()


async def test_restart_closes_a_game_that_ended_before_its_status_was_saved(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    game = await _started(Driver(bot1))
    # simulate a crash between the command's transaction and the status update
    loaded = await bot1.service.load(game.channel_id)
    st, events = loaded.ruleset.apply(loaded.scenario, loaded.state, "confederate", parse("resign"))
    await bot1.store.append_command(game.id, seq=1, user_id=BOB, side="confederate", text="resign", dice=[],
                                    events=[e.to_dict() for e in events], state=loaded.ruleset.state_to_dict(st))
    assert (await bot1.store.get_game(game.id)).status == "active"
    await bot1.close()

    bot2 = await start_bot(db_path)
    try:
        row = await bot2.store.get_game(game.id)
        assert row.status == "over" and "Union wins" in row.result
    finally:
        await bot2.close()
