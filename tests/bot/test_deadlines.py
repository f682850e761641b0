"""Decision deadlines (bot/deadlines.py): a pending decision left unanswered past the game's
deadline is answered by the player's default policy, once, through the same `GameService.act`
as a player; the clock is injected (`expire_due(service, now)`), the decision's start is the
stored command that opened it, so the timers survive a restart."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from bot.deadlines import DEADLINE_OPTION, expire_due, parse_time
from bot.service import NotAllowed, Refused
from tests.bot.conftest import start_bot
from tests.bot.harness import ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, Driver


async def tacw_game(d: Driver, deadline: int | None = 1):
    """Edgehill: Alice the Royalists (to act first), Bob Parliament; optionally a deadline set
    with /game deadline by Alice."""
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    if deadline is not None:
        rest = await d.game("deadline", user=ALICE, hours=deadline)
        assert not rest.last.ephemeral, rest.last.content
    return await d.bot.store.active_game(CHANNEL_ID)


async def open_bypass_window(d: Driver, game) -> tuple[int, datetime]:
    """Parliament asks to be asked; the Royalist activation opens a bypass window for Bob.
    Returns the seq the decision was opened at and its start (the command's created_at)."""
    rest = await d.cmd("act", user=BOB, line="policy bypass ask")
    assert not rest.last.ephemeral, rest.last.content
    rest = await d.cmd("act", user=ALICE, line="activate r-centre")
    assert "Parliament may attempt a bypass" in rest.last.content
    last = await d.bot.store.last_command(game.id)
    loaded = await d.bot.service.load(CHANNEL_ID)
    assert loaded.ruleset.pending(loaded.state).kind == "bypass" and loaded.seq == last.seq
    return last.seq, parse_time(last.created_at)


async def test_an_expired_bypass_window_gets_the_default_policy_once(d):
    game = await tacw_game(d)
    assert (await d.bot.store.get_game(game.id)).options[DEADLINE_OPTION] == 1
    seq, start = await open_bypass_window(d, game)
    service = d.bot.service

    assert await expire_due(service, start + timedelta(minutes=30)) == []
    assert await d.bot.store.last_seq(game.id) == seq

    [result] = await expire_due(service, start + timedelta(minutes=61))
    assert (result.text, result.side, result.seq) == ("bypass none", "parliament", seq + 1)
    assert result.pending is None and result.to_act_side == "royalist" and not result.duplicate
    loaded = await service.load(CHANNEL_ID)
    assert loaded.ruleset.pending(loaded.state) is None
    assert loaded.state.activation is not None and loaded.state.activation.side == "royalist"
    cmd = await d.bot.store.last_command(game.id)
    assert (cmd.seq, cmd.text, cmd.user_id, cmd.side) == (seq + 1, "bypass none", BOB, "parliament")
    assert cmd.interaction_id == f"deadline:{game.id}:{seq}"

    assert await expire_due(service, start + timedelta(minutes=61)) == []
    assert await expire_due(service, start + timedelta(hours=500)) == []
    assert await d.bot.store.last_seq(game.id) == seq + 1
    assert await service.verify(await d.bot.store.get_game(game.id))   # replays like any command


async def test_a_decision_answered_in_time_is_left_alone(d):
    game = await tacw_game(d)
    seq, start = await open_bypass_window(d, game)
    rest = await d.cmd("act", user=BOB, line="bypass none")
    assert not rest.last.ephemeral, rest.last.content
    assert await expire_due(d.bot.service, start + timedelta(hours=2)) == []
    assert await d.bot.store.last_seq(game.id) == seq + 1


async def test_deadline_zero_or_unset_never_expires(d):
    game = await tacw_game(d, deadline=None)                 # never set
    seq, start = await open_bypass_window(d, game)
    assert await expire_due(d.bot.service, start + timedelta(hours=1000)) == []
    rest = await d.game("deadline", user=BOB, hours=3)
    assert "3 h" in rest.last.content
    rest = await d.game("deadline", user=BOB, hours=0)       # 0 turns it off
    assert not rest.last.ephemeral and "no decision deadline" in rest.last.content
    assert (await d.bot.store.get_game(game.id)).options[DEADLINE_OPTION] == 0
    assert await expire_due(d.bot.service, start + timedelta(hours=1000)) == []
    assert await d.bot.store.last_seq(game.id) == seq


async def test_a_game_without_a_pending_decision_is_untouched(d):
    game = await tacw_game(d)
    seq = await d.bot.store.last_seq(game.id)
    far = datetime.now(timezone.utc) + timedelta(days=30)
    assert await expire_due(d.bot.service, far) == []
    assert await d.bot.store.last_seq(game.id) == seq


async def test_a_deadline_set_while_a_decision_is_open_counts_from_then(d):
    game = await tacw_game(d, deadline=None)
    seq, start = await open_bypass_window(d, game)
    set_at = start + timedelta(hours=5)                      # the window has been open 5 h already
    await d.bot.service.set_deadline(CHANNEL_ID, ALICE, 1, now=set_at)
    assert await expire_due(d.bot.service, set_at + timedelta(minutes=30)) == []
    [result] = await expire_due(d.bot.service, set_at + timedelta(minutes=61))
    assert result.text == "bypass none"


async def test_only_players_the_creator_or_an_admin_set_the_deadline(d):
    game = await tacw_game(d, deadline=None)
    rest = await d.game("deadline", user=CAROL, hours=2)                   # a spectator
    assert rest.last.ephemeral and "may set its deadline" in rest.last.content
    assert DEADLINE_OPTION not in (await d.bot.store.get_game(game.id)).options
    rest = await d.game("deadline", user=CAROL, hours=2, perms=ADMIN_PERMS)  # an administrator
    assert not rest.last.ephemeral and "2 h" in rest.last.content
    rest = await d.game("deadline", user=BOB, hours=24)                    # a seated player
    assert not rest.last.ephemeral and "24 h" in rest.last.content
    assert (await d.bot.store.get_game(game.id)).options[DEADLINE_OPTION] == 24
    with pytest.raises(NotAllowed):
        await d.bot.service.set_deadline(CHANNEL_ID, CAROL, 1)
    with pytest.raises(Refused):
        await d.bot.service.set_deadline(CHANNEL_ID, ALICE, 169)
    with pytest.raises(Refused):
        await d.bot.service.set_deadline(CHANNEL_ID, ALICE, -1)
    rest = await d.game("deadline", user=ALICE, hours=1.5)                 # fractions of an hour
    assert "1.5 h" in rest.last.content
    await d.cmd("seat", sub="join-wing", user=CAROL, wing="p-left")      # a wing player is a player
    rest = await d.game("deadline", user=CAROL, hours=3)
    assert not rest.last.ephemeral and "3 h" in rest.last.content
    assert (await d.bot.store.get_game(game.id)).options[DEADLINE_OPTION] == 3


async def test_status_shows_the_deadline_and_when_the_decision_expires(d):
    game = await tacw_game(d)
    rest = await d.game("status", user=CAROL)
    assert "Decision deadline: 1 h" in rest.last.content and "expires" not in rest.last.content
    seq, start = await open_bypass_window(d, game)
    rest = await d.game("status", user=CAROL)
    unix = int((start + timedelta(hours=1)).timestamp())
    assert f"Parliament's bypass decision expires <t:{unix}:R>" in rest.last.content
    assert "`bypass none`" in rest.last.content


async def test_timers_survive_a_restart(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    try:
        d1 = Driver(bot1)
        game = await tacw_game(d1)
        seq, start = await open_bypass_window(d1, game)
    finally:
        await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        assert await expire_due(bot2.service, start + timedelta(minutes=59)) == []
        [result] = await expire_due(bot2.service, start + timedelta(minutes=61))
        assert result.text == "bypass none" and result.seq == seq + 1
        assert await expire_due(bot2.service, start + timedelta(minutes=62)) == []
    finally:
        await bot2.close()


class FakeChannel:
    def __init__(self):
        self.sent: list[tuple[str, dict]] = []

    async def send(self, content, **kw):
        self.sent.append((content, kw))


async def test_the_bot_posts_each_default_answer_in_the_games_channel(d, monkeypatch):
    assert not d.bot.deadline_loop.is_running()              # the background task is not for tests
    game = await tacw_game(d)
    seq, start = await open_bypass_window(d, game)
    channel = FakeChannel()
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: channel if cid == CHANNEL_ID else None)
    [result] = await d.bot.expire_deadlines(start + timedelta(hours=2))
    [(content, kw)] = [m for m in channel.sent if not m[0].startswith("📋")]   # + the status message
    assert "**Parliament** did not answer within 1 h" in content and "`bypass none`" in content
    assert "does not attempt a bypass" in content and f"<@{ALICE}>" in content
    assert kw["file"].filename == "board.png"
    assert await d.bot.expire_deadlines(start + timedelta(hours=3)) == []
    assert len([m for m in channel.sent if not m[0].startswith("📋")]) == 1


async def test_an_unknown_channel_is_logged_and_the_answer_still_applies(d, monkeypatch, caplog):
    game = await tacw_game(d)
    seq, start = await open_bypass_window(d, game)
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: None)
    [result] = await d.bot.expire_deadlines(start + timedelta(hours=2))
    assert "channel is unknown" in caplog.text
    assert await d.bot.store.last_seq(game.id) == seq + 1
