"""GameService without Discord: custom scenarios, loading by replay, permissions, idempotency."""
from __future__ import annotations

import sqlite3

import pytest
import pytest_asyncio

from bot.app import make_service
from bot.service import GameService, NoGame, NotAllowed, Refused, StaleChoice
from bot.store import ChannelBusy, Store
from engine.core.errors import Illegal
from tests.bot.conftest import TEST_SCENARIO
from tests.bot.harness import png_size

CH, GUILD, A, B, C = 10, 20, 1, 2, 3


@pytest_asyncio.fixture
async def service(db_path):
    store = await Store.open(db_path)
    yield make_service(store)          # the service and its club features (bot/app.py)
    await store.close()


async def _custom_game(service: GameService, seed="1"):
    await service.new_game(GUILD, CH, A, "battlecry", "custom", seed, scenario_text=TEST_SCENARIO, side="union")
    await service.join(CH, B, "confederate")
    return await service.start(CH, A)


async def test_custom_scenario_game_is_stored_with_its_text(service, db_path):
    loaded = await _custom_game(service)
    assert loaded.row.scenario_text == TEST_SCENARIO and loaded.row.scenario_id == "test-skirmish"
    await service.act(CH, A, "play attack-centre")
    # a fresh service (another process) parses the stored text again
    other = make_service(service.store)
    again = await other.load(CH)
    assert again.scenario.title == "Test Skirmish" and again.seq == 1
    assert again.state.current.card == "attack-centre"


async def test_bad_scenarios_and_rulesets_are_refused(service):
    with pytest.raises(Refused, match="missing 'sides'"):
        await service.new_game(GUILD, CH, A, "battlecry", "custom", scenario_text='id = "x"\n')
    with pytest.raises(Refused, match="unknown ruleset"):
        await service.new_game(GUILD, CH, A, "chess", "x")
    with pytest.raises(NoGame):
        await service.load(CH)


async def test_one_game_per_channel(service):
    await _custom_game(service)
    with pytest.raises(ChannelBusy):
        await service.new_game(GUILD, CH, C, "battlecry", "custom", scenario_text=TEST_SCENARIO)


async def test_permissions_and_status(service):
    await service.new_game(GUILD, CH, A, "battlecry", "custom", "1", scenario_text=TEST_SCENARIO, side="union")
    with pytest.raises(Refused, match="not started"):
        await service.act(CH, A, "play attack-centre")
    await service.join(CH, B, "confederate")
    await service.start(CH, B)
    with pytest.raises(NotAllowed):
        await service.act(CH, C, "play attack-centre")
    with pytest.raises(Illegal, match="BC §3.2"):
        await service.act(CH, B, "play attack-centre")
    with pytest.raises(NotAllowed):
        await service.abandon(CH, B, is_admin=False)
    assert await service.store.last_seq((await service.load(CH)).row.id) == 0


async def test_interaction_applied_once_and_stale_choices(service):
    loaded = await _custom_game(service)
    r1 = await service.act(CH, A, "play attack-centre", interaction_id=42)
    r2 = await service.act(CH, A, "play attack-centre", interaction_id=42)
    assert not r1.duplicate and r2.duplicate and r2.seq == r1.seq == 1
    assert [e.narrative for e in r2.events] == [e.narrative for e in r1.events]
    with pytest.raises(StaleChoice):
        await service.act(CH, A, "order ui2", expect_seq=0)
    with pytest.raises(StaleChoice):
        await service.act(CH, A, "order ui2", expect_game=loaded.row.id + 1)
    assert (await service.act(CH, A, "order ui2", expect_seq=1)).seq == 2


async def test_load_replays_the_log_when_snapshots_are_missing(service, db_path):
    loaded = await _custom_game(service)
    for line in ("play attack-centre", "order ui2", "move ui2 0605", "battle ui2 0604 dice=1,2,3,4,6", "end"):
        result = await service.act(CH, A, line)
    expected = result.ruleset.state_to_dict(result.state)
    assert await service.verify(loaded.row)
    assert result.ruleset.state_to_dict(await service.replay_state(loaded.row)) == expected

    with sqlite3.connect(db_path) as db:           # the snapshots are only a cache
        db.execute("DELETE FROM snapshots WHERE seq > 2")
    again = await make_service(service.store).load(CH)     # a fresh service: no live state held
    assert again.seq == 5 and again.ruleset.state_to_dict(again.state) == expected
    with sqlite3.connect(db_path) as db:
        db.execute("DELETE FROM snapshots")
    again = await make_service(service.store).load(CH)
    assert again.seq == 5 and again.ruleset.state_to_dict(again.state) == expected


async def test_log_status_hand_and_render(service):
    await _custom_game(service)
    await service.act(CH, A, "play attack-centre")
    assert (await service.log(CH, 5)) == ["#1 Union plays Attack Centre (BC §2.4)"]
    _, text = await service.status(CH)
    assert "Card in play: Attack Centre" in text and "<@1>" in text
    assert "Sharp Shooter" in await service.hand(CH, A)
    with pytest.raises(NotAllowed):
        await service.hand(CH, C)
    png = service.render(await service.load(CH))
    assert png is not None and png_size(png)[0] > 100


async def test_an_interaction_of_an_earlier_game_of_the_channel_is_already_applied(service):
    """Issue 11: the id was applied in the channel's previous game (has_interaction sees every
    game): the answer is that game's stored result, not a crash (StopIteration)."""
    first = await _custom_game(service)
    played = await service.act(CH, A, "play attack-centre", interaction_id=42)
    ended = await service.act(CH, B, "resign", interaction_id=43)
    assert ended.over and not ended.duplicate
    # the game-ending interaction delivered again: "already applied", not "no game in this channel"
    again = await service.act(CH, B, "resign", interaction_id=43)
    assert again.duplicate and again.game_id == first.row.id and again.seq == 2 and again.over
    assert [e.narrative for e in again.events] == [e.narrative for e in ended.events]

    second = await _custom_game(service, seed="2")
    assert second.row.id != first.row.id
    again = await service.act(CH, A, "play attack-centre", interaction_id=42)
    assert again.duplicate and again.game_id == first.row.id and again.seq == played.seq == 1
    assert again.text == "play attack-centre"
    assert (await service.act(CH, A, "resign", interaction_id=43)).game_id == first.row.id
    # a button built for the earlier game, clicked again: its answer, not a stale choice
    assert (await service.act(CH, A, "play attack-centre", interaction_id=42,
                              expect_game=first.row.id)).duplicate
    assert await service.store.last_seq(second.row.id) == 0      # nothing applied to the new game
    assert await service.applied(44) is None


# --- the hooks (bot/hooks.py) and the assembly (bot/app.py) ----------------------------------------
async def test_make_service_installs_each_club_feature_once_on_the_services_hooks(service):
    from bot import campaigns, club, physical_dice, undo, uploads
    from bot.app import install_features
    hooks = service.hooks
    assert hooks.installed == ["bot.club", "bot.deadlines", "bot.physical_dice", "bot.undo", "bot.uploads",
                               "bot.campaigns"]
    install_features(service)                      # once each
    assert len(hooks.installed) == 6 and hooks.rules_steps == [physical_dice.rules_step]
    assert hooks.acting_side is club.acting_side and hooks.log_line is undo.log_line
    assert hooks.scenario_sources == [uploads.custom_text] and len(hooks.status_lines) == 1
    assert hooks.on_game_ended.subscribers == [campaigns._game_ended]
    assert hooks.on_new_information.subscribers == [undo.lapse]


async def test_the_service_tells_its_subscribers_what_each_command_did(service, caplog):
    seen = []

    def recorder(name):
        async def record(svc, what, *rest):
            assert svc is service
            seen.append((name, what.seq if hasattr(what, "seq") else what))
        return record

    for name in ("on_command_applied", "on_decision_opened", "on_decision_answered", "on_game_ended"):
        getattr(service.hooks, name).subscribe(recorder(name))

    async def broken(svc, result):
        raise RuntimeError("a subscriber's bug")
    service.hooks.on_command_applied.subscribe(broken)      # logged; the action stands

    loaded = await _custom_game(service)
    for line in ("play attack-centre", "order ui2", "move ui2 0605"):
        await service.act(CH, A, line)
    battle = await service.act(CH, A, "battle ui2 0604 dice=5,1,1,3,4")      # Confederate must retreat
    assert battle.pending is not None and battle.pending.side == "confederate"
    answer = await service.act(CH, B, battle.pending.answers[0].line)
    assert answer.pending is None
    over = await service.act(CH, B, "resign")
    assert over.over
    assert seen == [("on_command_applied", 1), ("on_command_applied", 2), ("on_command_applied", 3),
                    ("on_command_applied", 4), ("on_decision_opened", 4),
                    ("on_command_applied", 5), ("on_decision_answered", 5),
                    ("on_command_applied", 6), ("on_game_ended", loaded.row.id)]
    assert sum("on_command_applied: subscriber" in r.getMessage() and "broken" in r.getMessage()
               for r in caplog.records if r.levelname == "ERROR") == 6
    assert await service.store.last_seq(loaded.row.id) == 6


async def test_a_service_without_its_club_features_plays_one_player_a_side(db_path):
    """GameService(store) alone (no bot/app.py): seats only, Herald's dice, the log as stored."""
    store = await Store.open(db_path)
    try:
        bare = GameService(store)
        assert bare.hooks.installed == [] and bare.hooks.acting_side is None
        await _custom_game(bare)
        assert (await bare.act(CH, A, "union: play attack-centre")).seq == 1
        with pytest.raises(NotAllowed, match="not a player"):
            await bare.act(CH, C, "order ui2")
        with pytest.raises(NotAllowed, match="Confederate's"):
            await bare.act(CH, A, "confederate: order ci2")
        assert await bare.log(CH, 5) == ["#1 Union plays Attack Centre (BC §2.4)"]
        assert (await bare.act(CH, B, "resign")).over             # no campaign to tell: nothing breaks
    finally:
        await store.close()
