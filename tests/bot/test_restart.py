"""A restarted bot (a new client on the same SQLite file) resumes every game: status, actions and
even the retreat buttons posted before the restart keep working."""
from __future__ import annotations

import json
import sqlite3
import threading

from bot import store_base
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


async def _played(db_path, lines=("play attack-centre", "order ui2", "move ui2 0605")):
    """A game with a few commands, its bot closed: (game row, the state as played, as JSON)."""
    bot = await start_bot(db_path)
    try:
        game = await _started(Driver(bot))
        for line in lines:
            result = await bot.service.act(game.channel_id, ALICE, line)
        return game, json.loads(json.dumps(result.ruleset.state_to_dict(result.state)))
    finally:
        await bot.close()


def _counting_apply(monkeypatch):
    """Count the rules' apply calls made on the event loop's thread and in other threads."""
    from engine.core.game import get_ruleset
    rs = get_ruleset("battlecry")
    calls = {"loop": 0, "threads": 0}
    original = rs.apply

    def apply(*args, **kwargs):
        calls["loop" if threading.current_thread() is threading.main_thread() else "threads"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(rs, "apply", apply)
    return calls


async def test_a_restart_loads_each_game_from_its_snapshot_and_replays_only_in_the_background(
        db_path, scenario_dir, monkeypatch):
    """Issue 11: resume_all replays nothing on the event loop (before login); the check of each
    snapshot against the log replays from the seed in a thread, after. (A snapshot after every
    command here, SNAPSHOT_EVERY = 1, so the game's three commands end on one.)"""
    monkeypatch.setattr(store_base, "SNAPSHOT_EVERY", 1)
    game, played = await _played(db_path)
    calls = _counting_apply(monkeypatch)
    bot = await start_bot(db_path)                 # setup_hook -> resume_all
    try:
        assert calls == {"loop": 0, "threads": 0}
        loaded = await bot.service.load_row(await bot.store.get_game(game.id))
        assert loaded.seq == 3 and loaded.ruleset.state_to_dict(loaded.state) == played
        await bot.service.background_done()
        assert calls == {"loop": 0, "threads": 3}    # the three commands, replayed off the loop
        assert "snapshot_repaired" not in (await bot.store.get_game(game.id)).options
    finally:
        await bot.close()


async def test_a_corrupted_snapshot_is_found_by_the_background_check_and_rebuilt_from_the_log(
        db_path, scenario_dir, caplog, monkeypatch):
    monkeypatch.setattr(store_base, "SNAPSHOT_EVERY", 1)       # a snapshot after every command
    game, played = await _played(db_path)
    with sqlite3.connect(db_path) as db:            # a bad cache: ui2 elsewhere than the log says
        state = store_base.decode_state(db.execute("SELECT state FROM snapshots WHERE game_id = ? AND seq = 3",
                                                   (game.id,)).fetchone()[0])
        state["pieces"]["ui2"]["hex"] = "0906"
        db.execute("UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = 3",
                   (store_base.encode_state(state), game.id))
    bot = await start_bot(db_path)
    try:
        await bot.service.background_done()
        assert any(r.levelname == "WARNING" and f"game {game.id}: the snapshot at #3 differs" in r.getMessage()
                   for r in caplog.records)
        assert (await bot.store.latest_snapshot(game.id)) == (3, played)      # rebuilt from the log
        assert (await bot.store.get_game(game.id)).options["snapshot_repaired"]["seq"] == 3
        loaded = await bot.service.load(game.channel_id)
        assert loaded.state.pieces["ui2"].hex == "0605" and await bot.service.verify(loaded.row)
        assert await bot.service.check_snapshot(game.id)                      # sound now
        result = await bot.service.act(game.channel_id, ALICE, "battle ui2 0604 dice=5,1,1,3,4")
        assert result.seq == 4 and "retreat" in (result.pending.kind if result.pending else "")
    finally:
        await bot.close()


async def test_a_real_start_warms_the_render_workers_with_the_resumed_games(db_path, scenario_dir, monkeypatch):
    """A bot with a token (not the offline harness) starts its render workers while it logs in,
    each drawing the action view of every resumed game (bot/render_pool.warm_workers, issue 13),
    and keeps no reference to those games afterwards."""
    import bot.client as client_module
    import bot.render_pool as render_pool
    bot1 = await start_bot(db_path)
    d1 = Driver(bot1)
    game = await _started(d1)
    await bot1.close()

    started: list = []

    class FakePool:
        def start(self, jobs):
            started.extend(jobs)
            return []

    monkeypatch.setattr("renders.pool.shared_pool", lambda: FakePool())
    monkeypatch.setattr(client_module, "settle_memory", lambda: None)
    monkeypatch.setattr(render_pool, "USE_POOL", True)
    # no scenario the workers failed to load by id earlier in the session (render_pool._BY_OBJECT)
    monkeypatch.setattr(render_pool, "_BY_OBJECT", set())
    bot2 = client_module.make_client(db_path, deadlines=False)
    try:
        await bot2._async_setup_hook()
        from tests.bot.harness import fake_login
        fake_login(bot2)
        bot2.http.token = "a token"                 # what login() leaves: a real bot
        await bot2.setup_hook()
        assert [(j.ruleset_id, j.scenario_id, j.size) for j in started] == [
            ("battlecry", "test-skirmish", getattr(bot2.service.ruleset_of("battlecry"), "action_view", "full"))]
        live = await bot2.service.load(d1.channel_id)
        assert started[0].state == live.ruleset.state_to_dict(live.state)
        assert bot2.service.resumed_games == []
        assert live.row.id == game.id
    finally:
        bot2.http.token = None
        await bot2.service.background_done()
        await bot2.close()


async def test_the_start_queues_the_resumed_battles_terrain_for_idle_workers(monkeypatch, tmp_path):
    """Besides each resumed game's board, warm_workers queues as idle work (renders.pool
    `idle`) what the games' renderers draw ahead: the TACW tiles not yet on disk, once per
    battle whatever the number of its games; none for a ruleset that has nothing to draw ahead."""
    from types import SimpleNamespace
    import bot.render_pool as render_pool
    from engine.core.game import Game
    from renders import tile_store
    monkeypatch.setenv("HERALD_TILE_CACHE", str(tmp_path))
    tile_store.folder.cache_clear()
    games = []
    for rid, sid in (("tacw", "edgehill"), ("tacw", "edgehill"), ("battlecry", "first-bull-run")):
        g = Game.new(rid, sid, 1)
        games.append(SimpleNamespace(ruleset=g.ruleset, scenario=g.scenario, state=g.state,
                                     row=SimpleNamespace(id=len(games) + 1, scenario_text=None, scenario_id=sid)))
    started, idle = [], []

    class FakePool:
        def start(self, jobs):
            started.extend(jobs)
            return []

        def submit_call(self, fn, *args, kind=None, **kw):
            idle.append((fn.__name__, args, kind, kw))

    monkeypatch.setattr("renders.pool.shared_pool", lambda: FakePool())
    monkeypatch.setattr(render_pool, "USE_POOL", True)
    try:
        await render_pool.warm_workers(games)
    finally:
        tile_store.folder.cache_clear()
    assert len(started) == 3
    assert idle and {(name, args[0], kind, tuple(kw.items())) for name, args, kind, kw in idle} == {
        ("draw_tiles", "edgehill", "idle", (("idle", True),))}
    tiles = [t for _, (_, group), _, _ in idle for t in group]
    assert len(tiles) == len(set(tiles))           # Edgehill's tiles once, for its two games
