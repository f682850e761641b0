"""/game: one game per channel, seats, start, status, log, resign, abandon; threads."""
from __future__ import annotations

from tests.bot.conftest import SEED
from tests.bot.harness import ADMIN_PERMS, ALICE, BOB, CAROL, Driver, name_of


async def new(d: Driver, user=ALICE, **kw):
    opts = {"ruleset": "battlecry", "scenario": "test-skirmish", "seed": SEED, **kw}
    return await d.game("new", user=user, **opts)


async def test_new_then_second_new_is_refused_ephemerally(d):
    rest = await new(d)
    msg = rest.last
    assert not msg.ephemeral and "Test Skirmish" in msg.content and "/game join" in msg.content
    first = await d.bot.store.active_game(d.channel_id)
    assert first.status == "setup" and first.created_by == ALICE and first.seed == SEED

    rest = await new(d, user=BOB)
    assert len(rest.messages()) == 1
    assert rest.last.ephemeral and "one game per channel" in rest.last.content
    assert (await d.bot.store.active_game(d.channel_id)).id == first.id


async def test_unknown_scenario_is_refused_and_nothing_stored(d):
    rest = await new(d, scenario="no-such-battle")
    assert rest.last.ephemeral and "no-such-battle" in rest.last.content
    assert await d.bot.store.active_game(d.channel_id) is None


async def test_join_and_start(d):
    await new(d, side="union")
    rest = await d.game("start", user=ALICE)
    assert rest.last.ephemeral and "confederate" in rest.last.content.lower()

    rest = await d.game("join", user=CAROL, side="union")            # Alice holds it
    assert rest.last.ephemeral and "taken" in rest.last.content
    rest = await d.game("join", user=ALICE, side="confederate")     # one side per user
    assert rest.last.ephemeral and "already command" in rest.last.content
    rest = await d.game("join", user=BOB, side="prussia")
    assert rest.last.ephemeral and "not a side" in rest.last.content

    rest = await d.game("join", user=BOB, side="confederate")
    assert not rest.last.ephemeral and "Confederate" in rest.last.content
    rest = await d.game("start", user=CAROL)                        # neither seated nor creator
    assert rest.last.ephemeral and "seated player" in rest.last.content

    rest = await d.game("start", user=BOB)
    assert rest.calls[0].type == 5                                  # deferred: it renders
    msg = rest.last
    assert not msg.ephemeral and [f[0] for f in msg.files] == ["board.png"]
    assert f"<@{ALICE}>" in msg.content                             # Union plays first
    row = await d.bot.store.active_game(d.channel_id)
    assert row.status == "active"
    rest = await d.game("start", user=BOB)
    assert rest.last.ephemeral and "already started" in rest.last.content


async def test_side_autocomplete_offers_free_sides(d):
    await new(d, side="union")
    choices = await d.complete("game", "side", sub="join", user=BOB, side="")
    assert [c["value"] for c in choices] == ["confederate"]


async def test_scenario_autocomplete_lists_the_rulesets_scenarios(d):
    choices = await d.complete("game", "scenario", sub="new", ruleset="battlecry", scenario="skir")
    assert choices == [{"name": "Test Skirmish", "value": "test-skirmish"}]


async def test_status_board_and_log(d, game):
    rest = await d.game("status", user=CAROL)                       # anyone may look
    msg = rest.last
    assert not msg.ephemeral
    assert "Test Skirmish" in msg.content and "turn 1" in msg.content
    assert "Union" in msg.content and "Cards in hand: Union 5, Confederate 5" in msg.content
    assert f"{name_of(ALICE)}" in msg.content and msg.data["allowed_mentions"]["parse"] == []

    rest = await d.game("board", user=CAROL)
    assert [f[0] for f in rest.last.files] == ["board.png"]

    rest = await d.game("log", user=CAROL)
    assert "No command" in rest.last.content
    await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    await d.cmd("bc", sub="order", user=ALICE, units="ui2")
    rest = await d.game("log", user=CAROL, count=5)
    lines = rest.last.content.splitlines()
    assert lines[0].startswith("#1 Union plays Attack Centre") and "BC §2.4" in lines[0]
    assert lines[1].startswith("#2 ")


async def test_no_game_in_channel(d):
    for sub in ("status", "board", "start", "resign", "log"):
        rest = await d.game(sub, user=ALICE)
        assert rest.last.ephemeral and "no game in this channel" in rest.last.content, sub
    rest = await d.cmd("bc", sub="hand", user=ALICE)
    assert rest.last.ephemeral and "no game" in rest.last.content


async def test_resign_ends_the_game(d, game):
    rest = await d.game("resign", user=CAROL)
    assert rest.last.ephemeral and "not a player" in rest.last.content
    rest = await d.game("resign", user=BOB)
    msg = rest.last
    assert not msg.ephemeral and "Confederate resigns; Union wins" in msg.content and "Battle over" in msg.content
    row = await d.bot.store.get_game(game.id)
    assert row.status == "over" and "Union wins" in row.result
    assert await d.bot.store.active_game(d.channel_id) is None       # the channel is free again
    for sub in ("status", "board", "log"):                            # the ended battle stays readable
        rest = await d.game(sub, user=CAROL)
        assert not rest.last.ephemeral and "no game" not in rest.last.content, sub
    rest = await d.game("status", user=CAROL)
    assert "Union wins" in rest.last.content
    rest = await new(d)
    assert not rest.last.ephemeral


async def test_abandon_is_for_creator_or_admin(d, game):
    rest = await d.game("abandon", user=BOB)
    assert rest.last.ephemeral and "creator" in rest.last.content
    rest = await d.game("abandon", user=CAROL, perms=ADMIN_PERMS)
    assert not rest.last.ephemeral and "abandoned" in rest.last.content
    assert (await d.bot.store.get_game(game.id)).status == "abandoned"

    await new(d, user=BOB)
    rest = await d.game("abandon", user=BOB)                        # the creator
    assert not rest.last.ephemeral


async def test_leave_before_start(d):
    await new(d, side="union")
    rest = await d.game("leave", user=ALICE)
    assert not rest.last.ephemeral and "Union" in rest.last.content
    rest = await d.game("leave", user=ALICE)
    assert rest.last.ephemeral


async def test_games_in_a_thread_and_a_channel_are_separate(bot, d):
    thread = Driver(bot, channel_id=d.channel_id + 1, thread=True)
    await new(d)
    rest = await new(thread)
    assert not rest.last.ephemeral
    a = await bot.store.active_game(d.channel_id)
    b = await bot.store.active_game(thread.channel_id)
    assert a.id != b.id and b.channel_id == thread.channel_id


async def test_book_scenarios_open_in_the_bot(db_path):
    """Without the test scenario directory: the book scenarios are offered and one starts."""
    from engine.core.game import get_ruleset
    from tests.bot.conftest import start_bot
    found = get_ruleset("battlecry").scenarios()
    if not found:
        import pytest
        pytest.skip("no Battle Cry scenario files yet")
    bot = await start_bot(db_path)
    try:
        d = Driver(bot)
        choices = await d.complete("game", "scenario", sub="new", ruleset="battlecry", scenario="")
        assert [c["value"] for c in choices] == [sid for sid, _ in found][:25]
        sid = found[0][0]
        await new(d, scenario=sid, side="union")
        await d.game("join", user=BOB, side="confederate")
        rest = await d.game("start", user=ALICE)
        assert [f[0] for f in rest.last.files] == ["board.png"]
        loaded = await bot.service.load(d.channel_id)
        first = loaded.scenario.first_player
        rest = await d.cmd("bc", sub="hand", user={"union": ALICE, "confederate": BOB}[first])
        assert rest.last.ephemeral and all(f"`{c}`" in rest.last.content for c in loaded.state.hands[first])
    finally:
        await bot.close()


async def test_new_with_optional_rules_completes_checks_stores_and_replays_them(d):
    """/game new options: the scenario's optional rules (TACW digest §8), completed word by
    word, refused when unknown or exclusive (nothing stored), and kept for the game's replay."""
    choices = await d.complete("game", "options", sub="new", ruleset="tacw", scenario="second-newbury",
                               options="eight_turns,ax")
    assert [c["value"] for c in choices] == ["eight-turns,axis-a", "eight-turns,axis-b", "eight-turns,axis-c"]
    rest = await new(d, ruleset="tacw", scenario="second-newbury", options="axis_a,axis_b")
    assert rest.last.ephemeral and "exclude each other" in rest.last.content
    rest = await new(d, ruleset="tacw", scenario="second-newbury", options="no_such_rule")
    assert rest.last.ephemeral and "no optional rule 'no_such_rule'" in rest.last.content
    assert await d.bot.store.active_game(d.channel_id) is None
    rest = await new(d, ruleset="tacw", scenario="second-newbury", options="eight-turns, axis_a")   # either spelling
    assert not rest.last.ephemeral and "Optional rules: eight-turns, axis-a" in rest.last.content
    row = await d.bot.store.active_game(d.channel_id)
    assert row.options["game_options"] == ["eight_turns", "axis_a"]
    loaded = await d.bot.service.load(d.channel_id)
    assert set(loaded.state.options) >= {"eight_turns", "axis_a"}
    replayed = await d.bot.service.replay_state(row)
    assert replayed.state_hash() == loaded.state.state_hash()


async def test_rematch_swaps_the_sides_and_the_pair_is_scored_on_campaign_flags(d, game):
    """BC §6 "Bilanciare gli Scenari": the finished battle again with sides swapped; the pair is
    won on Campaign Flags (winner's flags minus loser's, digest §5.3)."""
    rest = await d.game("rematch", user=ALICE)
    assert rest.last.ephemeral and "follows a finished battle" in rest.last.content    # still playing
    await d.game("resign", user=BOB)                    # game 1: the Union (Alice) wins, 0 - 0 flags
    rest = await d.game("rematch", user=CAROL)
    assert rest.last.ephemeral and "only a player" in rest.last.content
    rest = await d.game("rematch", user=BOB)
    assert not rest.last.ephemeral and "sides swapped" in rest.last.content
    second = await d.bot.store.active_game(d.channel_id)
    assert second.id != game.id and second.status == "active" and second.scenario_id == game.scenario_id
    assert await d.bot.store.seats(second.id) == {"union": BOB, "confederate": ALICE}
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.state.options == {"seats": {"union": str(BOB), "confederate": str(ALICE)}, "leg": 2}
    await d.game("resign", user=BOB)                       # game 2: the Confederates (Alice) win
    rest = await d.game("status", user=CAROL)
    text = rest.last.content                               # two wins by resignation at 0 - 0 flags
    assert f"Campaign Flags: <@{ALICE}> 0, <@{BOB}> 0: the pair is drawn (BC §6)" in text
    # the same pair had Alice taken 3 flags to 1 in the return game (the ruleset's own scoring)
    first = await d.bot.service.load_row(await d.bot.store.get_game(game.id))
    second_state = loaded.state.copy()
    second_state.flags.update({"confederate": 3, "union": 1})
    second_state.winner = "confederate"
    res = loaded.ruleset.balancing_result(loaded.scenario, first.state, second_state, first.seats, loaded.seats)
    assert res == {"campaign_flags": {str(ALICE): 2, str(BOB): 0}, "winner": str(ALICE)}
    rest = await d.game("rematch", user=ALICE)
    assert rest.last.ephemeral and "already the return game" in rest.last.content
