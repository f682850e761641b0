"""Turn flow (bot/status_message.py, bot/deadlines.py): one status message per game, edited after
every action and posted again if deleted; the player waited on pinged once per wait; turn
deadlines with a reminder before and a referee notice after, on a clock the tests control, that
survive a restart and stop while the referee has paused the game."""
from __future__ import annotations

import itertools
from datetime import timedelta
from types import SimpleNamespace

import discord
import pytest

from bot import club
from bot.deadlines import NOTICES, TURN_SET_AT, due_notices, expire_due, parse_time
from bot.status_message import STATUS_KEY, refresh
from tests.bot.conftest import start_bot
from tests.bot.harness import ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, GUILD_ID, Driver, name_of
from tests.bot.test_club import DAVE, RITA, ROLE, run

FLAG_DICE = "5,1,1,3,4"      # flag, infantry, infantry, cavalry, artillery: 2 hits, 1 retreat
_ids = itertools.count(770000000000000000)


class FakeChannel:
    """What the bot sees of a Discord channel: send, and a partial message to edit (NotFound
    once deleted)."""

    def __init__(self):
        self.messages: dict[int, str] = {}
        self.sent: list[tuple[str, dict]] = []
        self.edits: list[tuple[int, str, dict]] = []

    async def send(self, content, **kw):
        mid = next(_ids)
        self.messages[mid] = content
        self.sent.append((content, kw))
        return SimpleNamespace(id=mid)

    def get_partial_message(self, mid):
        channel = self

        class Partial:
            async def edit(self, content=None, **kw):
                if mid not in channel.messages:
                    raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"),
                                           {"code": 10008, "message": "Unknown Message"})
                channel.messages[mid] = content
                channel.edits.append((mid, content, kw))
        return Partial()

    def status_posts(self) -> list[str]:
        return [c for c, _ in self.sent if c.startswith("📋")]

    def others(self) -> list[tuple[str, dict]]:
        return [(c, kw) for c, kw in self.sent if not c.startswith("📋")]


@pytest.fixture
def channel(d, monkeypatch) -> FakeChannel:
    ch = FakeChannel()
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: ch if cid == CHANNEL_ID else None)
    return ch


def pinged(msg) -> list[int]:
    return [int(u) for u in msg.data["allowed_mentions"].get("users") or []]


async def options(d, game) -> dict:
    return (await d.bot.store.get_game(game.id)).options


# --- the one status message --------------------------------------------------------------------
async def test_one_status_message_is_posted_then_edited_and_posted_again_if_deleted(d, game, channel):
    rest = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    assert not rest.last.ephemeral
    [text] = channel.status_posts()
    assert text.startswith(f"📋 **Game #{game.id} · Battle Cry: Test Skirmish** (turn 1)")
    assert f"▶️ Waiting on **Union** {name_of(ALICE)}: to act" in text and "After command #1" in text
    assert f"**Confederate**: {name_of(BOB)} (all)" in text
    assert channel.sent[0][1]["allowed_mentions"].to_dict() == {"parse": []}             # never a ping
    first = (await options(d, game))[STATUS_KEY]["message_id"]
    assert first in channel.messages

    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    await d.cmd("bc", sub="move", user=ALICE, unit="ui2", to="0605")
    assert len(channel.status_posts()) == 1 and len(channel.edits) == 2       # edited, not reposted
    assert "After command #3" in channel.messages[first]
    assert all(kw["allowed_mentions"].to_dict() == {"parse": []} for _, _, kw in channel.edits)

    del channel.messages[first]                                                # someone deleted it
    rest = await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=FLAG_DICE)
    assert len(channel.status_posts()) == 2
    second = (await options(d, game))[STATUS_KEY]["message_id"]
    assert second != first and second in channel.messages
    assert f"Waiting on **Confederate** {name_of(BOB)}: choose a retreat hex for ci2" in channel.messages[second]

    rest = await d.cmd("turn", sub="status", user=CAROL)                       # anyone may refresh it
    assert rest.last.ephemeral and str(second) in rest.last.content
    assert len(channel.status_posts()) == 2
    rest = await d.cmd("act", user=CAROL, line="end")                          # a refusal edits nothing
    assert rest.last.ephemeral and len(channel.edits) == 3


async def test_without_a_reachable_channel_turn_status_answers_with_the_text(d, game):
    rest = await d.cmd("turn", sub="status", user=CAROL)
    assert rest.last.ephemeral and f"Waiting on **Union** {name_of(ALICE)}" in rest.last.content


# --- one ping per wait -------------------------------------------------------------------------
async def test_the_player_waited_on_is_pinged_once_per_wait(d, game, channel):
    await d.cmd("seat", sub="join-side", user=CAROL, side="union")
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"})):
        rest = await d.cmd("bc", sub=name, user=ALICE if name != "order" else CAROL, **opts)
        assert not rest.last.ephemeral and pinged(rest.last) == []            # Union is at the table

    rest = await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=FLAG_DICE)
    assert pinged(rest.last) == [BOB]                                         # Bob's retreat decision
    buttons = rest.last
    rest = await d.game("status", user=BOB)
    assert pinged(rest.last) == []
    rest = await d.click(buttons.custom_ids[0], buttons.components, user=BOB)
    msg = rest.last
    assert sorted(pinged(msg)) == sorted([ALICE, CAROL])                      # back to Union, both
    assert msg.content.count(f"<@{CAROL}>") == 1 and f"**Union** to act: <@{ALICE}> <@{CAROL}>" in msg.content
    rest = await d.cmd("bc", sub="end", user=CAROL)
    assert pinged(rest.last) == [BOB] and rest.last.content.count(f"<@{BOB}>") == 1
    rest = await d.cmd("act", user=BOB, line="policy retreat auto")           # Bob acts: no ping
    assert pinged(rest.last) == []
    assert (await options(d, game))["turn_flow"]["pinged"].startswith("confederate:")


async def test_a_wing_player_is_pinged_when_their_wing_is_activated(d, channel):
    from tests.bot.test_club import tacw_game
    await tacw_game(d)
    await d.cmd("seat", sub="join-wing", user=DAVE, wing="r-centre")
    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")
    assert not rest.last.ephemeral and pinged(rest.last) == [DAVE]
    assert f"<@{DAVE}>" in rest.last.content
    status = channel.messages[(await d.bot.store.active_game(CHANNEL_ID)).options[STATUS_KEY]["message_id"]]
    assert f"Waiting on **Royalist** {name_of(DAVE)}: to act (Royalist centre)" in status
    assert f"{name_of(DAVE)} (Royalist centre)" in status
    # the reply names the wing's player and his wing, not the side's first player
    assert f"**Royalist** to act (Royalist centre): <@{DAVE}>" in rest.last.content
    assert f"<@{ALICE}>" not in rest.last.content and "🔔" not in rest.last.content

    rest = await d.cmd("tacw", sub="activation change", user=DAVE, order="make_ready", dice="1")   # Dave's turn goes on: no ping
    assert not rest.last.ephemeral and pinged(rest.last) == [] and "🔔" not in rest.last.content
    rest = await d.cmd("tacw", sub="activation stop", user=DAVE)                     # the next wing is the Army Commander's
    assert not rest.last.ephemeral and pinged(rest.last) == [ALICE]
    status = channel.messages[(await d.bot.store.active_game(CHANNEL_ID)).options[STATUS_KEY]["message_id"]]
    assert f"Waiting on **Royalist** {name_of(ALICE)}: to act" in status
    assert len(channel.status_posts()) == 1                  # one message, edited


async def test_a_bypass_decision_pings_the_other_sides_commander_not_its_wing_players(d, channel):
    from tests.bot.test_club import ERIN, tacw_game
    await tacw_game(d)
    await d.cmd("seat", sub="join-wing", user=ERIN, wing="p-left")
    await d.cmd("act", user=BOB, line="policy bypass ask")
    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")
    assert pinged(rest.last) == [BOB]
    status = channel.messages[(await d.bot.store.active_game(CHANNEL_ID)).options[STATUS_KEY]["message_id"]]
    assert f"Waiting on **Parliament** {name_of(BOB)}: Parliament may attempt a bypass" in status
    rest = await d.cmd("act", user=ERIN, line="bypass none")                 # the side's answer: Bob's
    assert rest.last.ephemeral and "whole of Parliament" in rest.last.content


# --- turn deadlines ----------------------------------------------------------------------------
async def test_turn_deadline_reminder_then_referee_notice_once_each(d, game, channel):
    rest = await d.cmd("turn", sub="deadline", user=CAROL, hours=4)           # a spectator
    assert rest.last.ephemeral and "may set its turn deadline" in rest.last.content
    rest = await d.cmd("turn", sub="deadline", user=BOB, hours=4, reminder=4)
    assert rest.last.ephemeral and "reminder comes before" in rest.last.content
    rest = await d.cmd("turn", sub="deadline", user=BOB, hours=4)
    assert not rest.last.ephemeral and "turn deadline **4 h**, a reminder 1 h before" in rest.last.content
    assert "Herald never moves for a side that has not acted: the game waits." in rest.last.content
    assert "it waits too, as no decision deadline is set" in rest.last.content
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    await run(d, "referee", "role", user=ALICE, role_opts={"role": ROLE})
    t0 = parse_time((await options(d, game))[TURN_SET_AT])
    status = channel.messages[(await options(d, game))[STATUS_KEY]["message_id"]]
    assert f"⏰ Turn deadline (4 h): <t:{int((t0 + timedelta(hours=4)).timestamp())}:R>" in status

    assert await d.bot.turn_timers(t0 + timedelta(hours=2, minutes=59)) == []
    [reminder] = await d.bot.turn_timers(t0 + timedelta(hours=3, minutes=1))
    assert reminder.kind == "reminder" and reminder.wait.users == (ALICE,)
    text, kw = channel.others()[-1]
    assert text.startswith(f"⏰ <@{ALICE}>: game #{game.id} waits on **Union**")
    assert [u.id for u in kw["allowed_mentions"].users] == [ALICE]
    assert await d.bot.turn_timers(t0 + timedelta(hours=3, minutes=30)) == []

    [notice] = await d.bot.turn_timers(t0 + timedelta(hours=4, minutes=1))
    assert notice.kind == "overdue"
    text, kw = channel.others()[-1]
    assert f"**Union** <@{ALICE}> has not acted within the turn deadline (4 h" in text
    assert "Herald never moves for a side: the game waits." in text and "decision" not in text
    assert f"Referee <@{RITA}> <@&{ROLE}>" in text and "/referee substitute" in text
    am = kw["allowed_mentions"]
    assert [u.id for u in am.users] == [RITA] and [r.id for r in am.roles] == [ROLE]
    assert await d.bot.turn_timers(t0 + timedelta(hours=40)) == []
    assert len(channel.others()) == 2

    rest = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")               # a new wait begins
    last = parse_time((await d.bot.store.last_command(game.id)).created_at)
    assert await d.bot.turn_timers(last + timedelta(hours=2)) == []
    [again] = await d.bot.turn_timers(last + timedelta(hours=3, minutes=1))
    assert again.kind == "reminder" and again.wait.seq == 1

    rest = await d.cmd("turn", sub="deadline", user=RITA, hours=0)            # the referee turns it off
    assert "no turn deadline" in rest.last.content
    assert await d.bot.turn_timers(last + timedelta(days=30)) == []


async def test_without_a_referee_the_creator_is_told(d, game, channel):
    await d.cmd("turn", sub="deadline", user=ALICE, hours=2, reminder=0)
    t0 = parse_time((await options(d, game))[TURN_SET_AT])
    [notice] = await d.bot.turn_timers(t0 + timedelta(hours=2, minutes=1))   # no reminder first
    text, kw = channel.others()[-1]
    assert notice.kind == "overdue" and "no referee" in text and f"<@{ALICE}>" in text
    assert [u.id for u in kw["allowed_mentions"].users] == [ALICE]


async def test_turn_timers_survive_a_restart(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    try:
        d1 = Driver(bot1)
        await d1.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed="1")
        await d1.game("join", user=BOB, side="confederate")
        await d1.game("start", user=ALICE)
        await d1.cmd("turn", sub="deadline", user=ALICE, hours=8)
        game = await bot1.store.active_game(CHANNEL_ID)
        t0 = parse_time(game.options[TURN_SET_AT])
        [first] = await due_notices(bot1.service, t0 + timedelta(hours=6, minutes=1))
        assert first.kind == "reminder"
    finally:
        await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        assert await due_notices(bot2.service, t0 + timedelta(hours=7)) == []       # sent already
        [late] = await due_notices(bot2.service, t0 + timedelta(hours=8, minutes=1))
        assert late.kind == "overdue" and late.wait.started == t0
        assert (await bot2.store.get_game(game.id)).options[NOTICES]["noticed"] == late.wait.key
        assert await due_notices(bot2.service, t0 + timedelta(hours=9)) == []
    finally:
        await bot2.close()


async def test_a_paused_game_stops_every_clock_and_resume_restarts_them(d, game, channel):
    service = d.bot.service
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    await d.cmd("turn", sub="deadline", user=ALICE, hours=4)
    await d.game("deadline", user=ALICE, hours=1)                                # decision deadline
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    await d.cmd("bc", sub="move", user=ALICE, unit="ui2", to="0605")
    buttons = (await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=FLAG_DICE)).last  # Bob's retreat
    opened = parse_time((await d.bot.store.last_command(game.id)).created_at)
    seq = await d.bot.store.last_seq(game.id)

    paused_at = opened + timedelta(minutes=10)
    await club.pause(service, CHANNEL_ID, RITA, reason="holiday", now=paused_at)
    mid = await refresh(d.bot, game.id)
    assert mid == (await options(d, game))[STATUS_KEY]["message_id"]
    status = channel.messages[mid]
    assert f"⏸️ The game is paused by the referee <@{RITA}>: holiday." in status and "⏰" not in status
    far = opened + timedelta(days=10)
    assert await expire_due(service, far) == []                                  # no default answer
    assert await due_notices(service, far) == []                                 # no reminder, no notice
    assert await d.bot.store.last_seq(game.id) == seq
    rest = await d.click(buttons.custom_ids[0], buttons.components, user=BOB)
    assert rest.last.ephemeral and "paused" in rest.last.content

    resumed = opened + timedelta(days=3)
    await club.resume(service, CHANNEL_ID, RITA, now=resumed)
    assert await expire_due(service, resumed + timedelta(minutes=59)) == []
    assert await due_notices(service, resumed + timedelta(hours=2, minutes=59)) == []
    [reminder] = await due_notices(service, resumed + timedelta(hours=3, minutes=1))
    assert reminder.kind == "reminder" and reminder.wait.users == (BOB,)
    [answer] = await expire_due(service, resumed + timedelta(minutes=61))       # the decision deadline
    assert answer.side == "confederate" and answer.seq == seq + 1


async def test_an_admin_or_referee_may_set_the_turn_deadline(d, game):
    rest = await d.cmd("turn", sub="deadline", user=CAROL, hours=12, perms=ADMIN_PERMS)
    assert not rest.last.ephemeral and "**12 h**, a reminder 3 h before" in rest.last.content
    rest = await d.cmd("turn", sub="deadline", user=CAROL, hours=12.5, reminder=0.5, perms=ADMIN_PERMS)
    assert "**12.5 h**, a reminder 30 min before" in rest.last.content
    row = await d.bot.store.get_game(game.id)
    assert row.options["turn_deadline_hours"] == 12.5 and row.options["turn_reminder_hours"] == 0.5
    await d.bot.service.new_game(GUILD_ID, CHANNEL_ID + 9, ALICE, "battlecry", "test-skirmish", 1)
    other = Driver(d.bot, channel_id=CHANNEL_ID + 9)
    rest = await other.cmd("turn", sub="deadline", user=ALICE, hours=3)        # setup: the creator
    assert not rest.last.ephemeral


# --- at the deadline: a decision, or a turn ------------------------------------------------------
async def _bypass_pending(d):
    from tests.bot.test_club import tacw_game
    game = await tacw_game(d)
    await run(d, "referee", "appoint", user=ALICE, users={"user": RITA})
    await d.cmd("act", user=BOB, line="policy bypass ask")
    return game


async def _clock_start(d, game):
    opts = await options(d, game)
    last = parse_time((await d.bot.store.last_command(game.id)).created_at)
    return max(t for t in (last, parse_time(opts.get(TURN_SET_AT))) if t is not None)


async def test_an_overdue_decision_says_the_decision_deadline_will_answer_it(d, channel):
    game = await _bypass_pending(d)
    rest = await d.game("deadline", user=ALICE, hours=6)
    rest = await d.cmd("turn", sub="deadline", user=ALICE, hours=4)
    assert "the decision deadline (6 h, /game deadline) answers it with the player's default policy" in rest.last.content
    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")       # Bob's bypass window opens
    t0 = await _clock_start(d, game)
    [reminder] = await d.bot.turn_timers(t0 + timedelta(hours=3, minutes=1))
    text, kw = channel.others()[-1]
    assert reminder.kind == "reminder" and reminder.wait.kind == "bypass"
    assert text.startswith(f"⏰ <@{BOB}>: game #{game.id} waits on **Parliament** (Parliament may attempt a bypass; "
                           "answer with the buttons or `/act bypass ")       # the command that answers it
    expires = int((t0 + timedelta(hours=6)).timestamp())
    assert f"the decision deadline answers `bypass none` for them <t:{expires}:R>" in text
    [late] = await d.bot.turn_timers(t0 + timedelta(hours=4, minutes=1))
    text, kw = channel.others()[-1]
    assert f"**Parliament** <@{BOB}> has not answered within the turn deadline (4 h" in text
    assert f"answers `bypass none` for them <t:{expires}:R>" in text and f"Referee <@{RITA}>" in text
    assert "never moves" not in text

    [answer] = await d.bot.expire_deadlines(t0 + timedelta(hours=6, minutes=1))   # and it does
    assert (answer.text, answer.side) == ("bypass none", "parliament")
    posted, kw = channel.others()[-1]
    assert "did not answer within 6 h" in posted and "`bypass none`" in posted


async def test_an_overdue_decision_without_a_decision_deadline_waits_and_says_so(d, channel):
    game = await _bypass_pending(d)
    await d.cmd("turn", sub="deadline", user=ALICE, hours=2, reminder=0)
    await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")
    t0 = await _clock_start(d, game)
    [late] = await d.bot.turn_timers(t0 + timedelta(hours=2, minutes=1))
    text, _ = channel.others()[-1]
    assert late.kind == "overdue" and "has not answered within the turn deadline (2 h" in text
    assert ("No decision deadline is set (/game deadline), so the decision waits for them "
            "(their default policy would answer `bypass none`).") in text
    assert await d.bot.expire_deadlines(t0 + timedelta(days=5)) == []          # nothing answers for Bob
    loaded = await d.bot.service.load(CHANNEL_ID)
    assert loaded.ruleset.pending(loaded.state).kind == "bypass"


async def test_an_abandoned_game_says_so_in_its_status_message(d, game, channel):
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    mid = (await options(d, game))[STATUS_KEY]["message_id"]
    assert "Waiting on **Union**" in channel.messages[mid]
    rest = await d.game("abandon", user=ALICE)
    assert not rest.last.ephemeral
    assert "🛑 Abandoned" in channel.messages[mid] and "Waiting on" not in channel.messages[mid]
    assert len(channel.status_posts()) == 1


async def test_setting_the_decision_deadline_updates_the_status_message(d, game, channel):
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    mid = (await options(d, game))[STATUS_KEY]["message_id"]
    assert "Decision deadline" not in channel.messages[mid]
    await d.game("deadline", user=ALICE, hours=12)
    assert "⏰ Decision deadline: 12 h" in channel.messages[mid]


async def test_after_a_restart_the_same_status_message_is_edited_and_nobody_is_pinged_twice(db_path, scenario_dir,
                                                                                             monkeypatch):
    ch = FakeChannel()
    bot1 = await start_bot(db_path)
    try:
        monkeypatch.setattr(bot1, "get_channel", lambda cid: ch if cid == CHANNEL_ID else None)
        d1 = Driver(bot1)
        await d1.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed="1")
        await d1.game("join", user=BOB, side="confederate")
        await d1.game("start", user=ALICE)
        await d1.cmd("bc", sub="play", user=ALICE, card="attack-centre")
        await d1.cmd("bc", sub="order", user=ALICE, units="ui2")
        await d1.cmd("bc", sub="move", user=ALICE, unit="ui2", to="0605")
        rest = await d1.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=FLAG_DICE)
        assert pinged(rest.last) == [BOB]
        game = await bot1.store.active_game(CHANNEL_ID)
        mid = game.options[STATUS_KEY]["message_id"]
    finally:
        await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        monkeypatch.setattr(bot2, "get_channel", lambda cid: ch if cid == CHANNEL_ID else None)
        d2 = Driver(bot2)
        rest = await d2.cmd("act", user=ALICE, line="policy retreat ask")   # still Bob's retreat
        assert not rest.last.ephemeral and pinged(rest.last) == []          # pinged before the restart
        assert len(ch.status_posts()) == 1 and ch.edits[-1][0] == mid       # the same message, edited
        assert f"Waiting on **Confederate** {name_of(BOB)}: choose a retreat hex for ci2" in ch.messages[mid]
    finally:
        await bot2.close()


async def test_the_status_message_shows_a_roll_and_an_undo_request_waiting(d, channel):
    """The game waits for more than its engine's next move: dice being rolled at the table
    (bot/physical_dice.py) and an undo request waiting for the other side (bot/undo.py)."""
    from tests.bot.test_physical_dice import physical_bc
    game = await physical_bc(d)
    def status() -> str:
        return next(c for c in channel.messages.values() if c.startswith("📋"))
    assert "🎲" not in status()
    ask = (await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")).last.content
    assert "roll **5 battle dice**" in ask
    assert (f"🎲 Waiting for dice: <@{ALICE}> (Union) rolls for Union's `battle`: battle die 1 of 5 (/dice)"
            in status())
    await d.cmd("dice", user=ALICE, results="cancel")
    rest = await d.cmd("undo", user=ALICE)                  # the move (#3) may be taken back
    assert not rest.last.ephemeral, rest.last.content
    assert "🎲" not in status()
    assert f"↩️ Union (<@{ALICE}>) asks to take back #3: waiting for the other side's answer" in status()
    msg = rest.last
    await d.click(msg.custom_ids[1], msg.components, user=BOB)          # Bob refuses
    assert "↩️" not in status() and len(channel.status_posts()) == 1    # one message, edited
