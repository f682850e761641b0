"""/game replay says how far the drawing is (issue 13): the deferred reply is edited in place with
"Drawing the replay: n of N boards…" while the GIF is drawn, and then becomes the replay itself
(one message). And the board after an action, drawn in the render pool (bot/render_pool.py), is
the same PNG as the service's own drawing."""
from __future__ import annotations

import io
import time

from PIL import Image

from bot import history
from bot.render_pool import render_png
from tests.bot.harness import ALICE, CAROL, CHANNEL_ID
from tests.bot.test_history import play_turn_1


async def test_the_replay_reports_its_progress_then_posts_the_gif(d, game, monkeypatch):
    import renders.replay as replay_mod
    await play_turn_1(d)
    real = replay_mod.replay_gif
    reported = []

    def slow_gif(ruleset_id, scenario, frames, *, progress=None, **kw):
        """The real GIF, drawn slowly enough for two reports: 3 of 6 boards, then 6 of 6."""
        for done in (3, len(frames)):
            progress(done, len(frames))
            reported.append(done)
            time.sleep(0.25)
        return real(ruleset_id, scenario, frames, **kw)

    monkeypatch.setattr(replay_mod, "replay_gif", slow_gif)
    monkeypatch.setattr(history, "PROGRESS_EVERY", 0.1)
    rest = await d.game("replay", user=CAROL)
    kinds = [c.kind for c in rest.calls]
    assert rest.calls[0].type == 5 and kinds[0] == "response"          # deferred first
    edits = [c for c in rest.calls if c.kind == "edit_original"]
    texts = [c.payload.get("content") for c in edits[:-1]]
    assert "Drawing the replay: 3 of 6 boards…" in texts
    assert "Drawing the replay: 6 of 6 boards…" in texts
    assert all(t.startswith("Drawing the replay: ") for t in texts)
    final = edits[-1]                                                    # the reply becomes the replay
    [(name, gif)] = final.files
    assert name.endswith("-replay.gif") and "the battle, log entries #0 to #5" in final.payload["content"]
    im = Image.open(io.BytesIO(gif))
    assert im.format == "GIF" and im.n_frames == 6
    assert "followup" not in kinds                                      # one message, not two
    assert reported == [3, 6]


async def test_a_quick_replay_is_one_reply_without_progress(d, game, monkeypatch):
    await play_turn_1(d)
    monkeypatch.setattr(history, "PROGRESS_EVERY", 30)
    rest = await d.game("replay")
    assert not [c for c in rest.calls if c.kind == "edit_original"]
    [(name, _)] = rest.last.files
    assert name.endswith("-replay.gif")


async def test_the_pooled_board_is_the_services_board(d, caplog):
    """TACW (a bundled scenario, sent by id; then an uploaded one, sent as its text): the pool's
    PNG after an action and of the whole map is the service's own, drawn in a worker."""
    from engine.tacw.scenario.schema import SCENARIO_DIR
    from tests.bot.test_tacw_bot import tacw_game
    service = d.bot.service
    text = (SCENARIO_DIR / "edgehill.toml").read_text(encoding="utf-8").replace(
        'title = "Edgehill"', 'title = "Edgehill (club copy)"')
    for scenario_text in (None, text):
        await tacw_game(d, scenario_text)
        loaded = await service.load(CHANNEL_ID)
        assert (loaded.row.scenario_text is not None) == (scenario_text is not None)
        with caplog.at_level("DEBUG", logger="bot.render_pool"):
            assert await render_png(loaded) == service.render(loaded)
            result = await service.act(CHANNEL_ID, ALICE, "activate r-right")
            assert await render_png(result, store=service.store) == service.render(result)
        assert not [r for r in caplog.records if r.name == "bot.render_pool"]    # no fallback
        await service.abandon(CHANNEL_ID, ALICE, True)
