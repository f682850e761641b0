"""/odds through the slash command (bot/cogs/odds.py): the exact what-if, answered only to the
asker, never committed, refused for spectators, for the player not to act and for anything that
would reveal hidden information; Battle Cry and TACW."""
from __future__ import annotations

import re
from fractions import Fraction

from engine.core.odds import what_if
from tests.bot.harness import ALICE, BOB, CAROL
from tests.bot.test_play import advance_to_battle
from tests.bot.test_tacw_bot import seq, state, tacw_game


def outcomes(text: str, section: int = 0) -> dict[str, Fraction]:
    """The lines of an answer's outcomes (section 0) or effects (1): '`  6.2%` (1/16) label'."""
    text = text.split("**Each effect")[section] if section or "**Each effect" in text else text
    out = {}
    for m in re.finditer(r"^`\s*[<>]?[\d.]+%` (?:\((\d+)/(\d+)\) )?(.+)$", text, re.M):
        out[m.group(3)] = Fraction(int(m.group(1)), int(m.group(2))) if m.group(1) else Fraction(1)
    return out


async def test_bc_odds_of_a_battle_are_exact_private_and_commit_nothing(d, game):
    await advance_to_battle(d)                       # ui2 (General ug1 attached) next to ci2 in 0604
    before = await d.bot.store.last_seq(game.id)
    snapshot = (await d.bot.service.load(d.channel_id)).state.state_hash()
    rest = await d.cmd("odds", user=ALICE, action="battle ui2 0604")
    assert rest.calls[0].kind == "response" and rest.calls[0].type == 5           # deferred first
    [msg] = rest.messages()
    assert msg.ephemeral and not msg.files, msg.content
    text = msg.content
    assert "What if Union: `battle ui2 0604`" in text and "exact odds, nothing committed" in text
    assert "infantry, range 1, 4 dice" in text and "General ug1 attached (BC §4.7)" in text and "= 5 dice" in text
    # the same numbers as the engine's what-if, outcome by outcome and effect by effect
    loaded = await d.bot.service.load(d.channel_id)
    engine = what_if(loaded.ruleset, loaded.scenario, loaded.state, "union", "battle ui2 0604")
    shown, effects = outcomes(text), outcomes(text, 1)
    assert len(shown) >= 8 and all(shown[o.label] == o.probability for o in engine.outcomes if o.label in shown)
    assert effects == {o.label: o.probability for o in engine.effects() if o.label in effects}
    # ci2 (4 figures) is eliminated by 4 or 5 hits of 5 dice (Infantry, Sabres: 3 faces of 6),
    # and 4 hits leave a fifth die: a Flag makes the General retreat alone (BC §4.6 rule 6)
    hit = Fraction(1, 2)
    assert effects["ci2 (infantry) eliminated"] == 5 * hit ** 4 * (1 - hit) + hit ** 5
    assert len(text) <= 2000
    assert await d.bot.store.last_seq(game.id) == before
    assert loaded.state.state_hash() == snapshot


async def test_bc_odds_refusals_spectator_wrong_turn_hidden_card(d, game):
    await advance_to_battle(d)
    before = await d.bot.store.last_seq(game.id)
    for user, action, words in ((CAROL, "battle ui2 0604", "only a seated player"),
                                (BOB, "battle ci2 0605", "Union's turn"),
                                (ALICE, "end", "cannot be asked"),
                                (ALICE, "battle ui2 0604 dice=1,1,1,1,1", "leave out dice=")):
        rest = await d.cmd("odds", user=user, action=action)
        [msg] = rest.messages()
        assert msg.ephemeral and words in msg.content, msg.content
    assert await d.bot.store.last_seq(game.id) == before


async def test_odds_autocomplete_offers_the_rulesets_askable_verbs(d, game):
    choices = await d.complete("odds", "action", user=ALICE, action="ba")
    assert [c["value"] for c in choices] == ["battle"] and "BC §4.4" in choices[0]["name"]
    typed = await d.complete("odds", "action", user=ALICE, action="battle ui2 0604")
    assert [c["value"] for c in typed] == ["battle ui2 0604"]


async def test_tacw_odds_of_an_order_change_and_a_continuation(d):
    game = await tacw_game(d)
    await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-right")
    before = await seq(d, game)
    rest = await d.cmd("odds", user=ALICE, action="change make_ready")
    [msg] = rest.messages()
    assert msg.ephemeral, msg.content
    assert "[TACW §5.7] Order Change table" in msg.content and "(TACW §5.7.3)" in msg.content
    shown = outcomes(msg.content)
    assert set(shown) <= {"Royalist right wing (cavalry) now on Make Ready", "no effect"} and sum(shown.values()) == 1
    assert all((10 * p).denominator == 1 for p in shown.values())             # one d10
    assert await seq(d, game) == before and (await state(d)).wings["r-right"].order == "charge"
    # a continuation (§4.3): again or the end of the activation, with the modifiers of the table
    rest = await d.cmd("odds", user=ALICE, action="continue")
    [msg] = rest.messages()
    assert msg.ephemeral and "[TACW §4.3] Continuation table" in msg.content
    assert "-2  Wing Commander Prince Rupert (TACW §4.3.3)" in msg.content
    shown = outcomes(msg.content)
    again = shown["Royalist right wing (cavalry) activates again"]
    assert again + shown["Prince Rupert is Finished (his wing acts no more this turn); Royalist right wing (cavalry)'s "
                         "activation ends"] == 1
    assert 0 < again < 1 and (10 * again).denominator == 1
    assert await seq(d, game) == before and (await state(d)).activation.number == 1
    # Parliament is not active: the rules' own refusal, privately
    rest = await d.cmd("odds", user=BOB, action="change make_ready")
    [msg] = rest.messages()
    assert msg.ephemeral and "TACW" in msg.content and "What if" not in msg.content


def test_cli_odds_replays_a_script_then_answers_the_what_if(tmp_path, capsys):
    from bot.cli import main
    script = tmp_path / "edgehill.txt"
    script.write_text("# seed: 3\nroyalist: activate r-centre\nroyalist: leader astley move 3111 3110 3109\n",
                      encoding="utf-8")
    assert main(["odds", "tacw", "edgehill", "fire r-culverins 1810", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert "What if Royalist: `fire r-culverins 1810`" in out and "Artillery Fire table" in out
    assert "(TACW §9.9.2)" in out and "%" in out
    assert main(["odds", "tacw", "edgehill", "end", "--script", str(script)]) == 1
    assert "cannot be asked" in capsys.readouterr().out


async def test_tacw_odds_of_a_fire_and_an_attack_by_hand(d, monkeypatch):
    """Through /odds as a player asks, checked by hand against the tables:
    - fire (TACW §9.5.1, Musket Fire table, front column): the firer's d10 gives 1 hit on 3-8 and
      2 on 9 (no modifier), so p1 loses SP with 7/10, whatever happens after;
    - continuation (§4.3, Continuation table, Charge 0-3): r-wc's -1 and +1 for a WC next to the
      enemy leave 0, so rolls 0-3 succeed: 4/10;
    - attack (§10.2, the step resolved): +7 (morale +4, Matrix +2, pistol +1) means any roll of
      2 or more reaches 9: defender eliminated (8/10), 0-1 reads 7-8: Broken (2/10)."""
    from bot.service import GameService
    from tests.engine.tacw_helpers import scenario_text
    from tests.bot.test_arbitration import TACW_UNITS
    from tests.bot.harness import CHANNEL_ID
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "t", 3, side="royalist",
                           scenario_text=scenario_text(TACW_UNITS))
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    await d.cmd("act", user=ALICE, line="activate r-a")
    game = await d.bot.store.active_game(CHANNEL_ID)
    before = await seq(d, game)

    [msg] = (await d.cmd("odds", user=ALICE, action="fire r1 0605")).messages()
    assert msg.ephemeral and len(msg.content) <= 2000 and "[TACW §9.5.1] Musket Fire table, Fronte (front)" in msg.content
    effects = outcomes(msg.content, 1)
    assert sum(p for label, p in effects.items() if label.startswith("p1: -")) == Fraction(7, 10)
    assert effects["p1: -1 SP"] == Fraction(6, 10)

    [msg] = (await d.cmd("odds", user=ALICE, action="continue")).messages()
    assert "-1  Wing Commander r-wc (TACW §4.3.3)" in msg.content
    assert outcomes(msg.content)["r-a activates again"] == Fraction(4, 10)

    await d.cmd("act", user=ALICE, line="close")
    [msg] = (await d.cmd("odds", user=ALICE, action="attack r2 0705")).messages()
    text = msg.content
    assert "(simulated: `attack r2 0705` → `resolve`)" in text and "[TACW §10.2] Close Combat table" in text
    assert "+4  morale 8 against 4 (TACW §10.3.3)" in text and "+2  Close Combat Matrix" in text
    shown = outcomes(text)
    assert sum(shown.values()) == 1
    assert sum(p for label, p in shown.items() if "p2: eliminated" in label) == Fraction(8, 10)
    assert sum(p for label, p in shown.items() if "p2: Broken" in label) == Fraction(2, 10)
    assert await seq(d, game) == before + 1          # only the `close` given: nothing else committed
    assert "r2" in (await state(d)).units and (await state(d)).units["p2"].alive


async def test_odds_bad_input_and_no_game_are_clear_refusals(d, game):
    from tests.bot.harness import Driver
    for action, words in (("   ", "say which action you are considering"),
                          ("zzz qq", "`zzz` cannot be asked"),
                          ("battle ui2", "usage: battle <unit>"),
                          ("battle zz9 9999", "is not a piece id")):
        [msg] = (await d.cmd("odds", user=ALICE, action=action)).messages()
        assert msg.ephemeral and words in msg.content and "What if" not in msg.content, (action, msg.content)
        assert "issue 5" not in msg.content
    other = Driver(d.bot, channel_id=d.channel_id + 99)
    [msg] = (await other.cmd("odds", user=ALICE, action="battle ui2 0604")).messages()
    assert msg.ephemeral and "no game in this channel" in msg.content


def cut_at_first(monkeypatch) -> None:
    """Any tree with dice is cut in the first answer: no quick budget for the whole tree, and no
    floor of chance fits either (engine.core.odds `floored`), so it is cut at a horizon."""
    import bot.cogs.odds as odds_cog
    import engine.core.odds as core
    monkeypatch.setattr(odds_cog, "QUICK_BUDGET", 0.0)
    monkeypatch.setattr(core._Runner, "floored", lambda self, *args, **kw: None)


async def test_a_cut_answer_comes_at_once_then_the_exact_one_replaces_it(d, game, monkeypatch):
    """Issue 13: /odds answers within about a second; when that first answer had to be cut at a
    horizon it says so and that the exact one is coming, and the same reply is then edited with
    the whole tree's answer -- the engine's exact what-if, outcome by outcome. When even the
    long run cannot finish, the reply says the first answer stands. Nothing is committed."""
    import bot.cogs.odds as odds_cog
    await advance_to_battle(d)
    before = await d.bot.store.last_seq(game.id)
    cut_at_first(monkeypatch)
    rest = await d.cmd("odds", user=ALICE, action="battle ui2 0604")
    assert [c.kind for c in rest.calls] == ["response", "edit_original", "edit_original"]
    assert rest.calls[0].ephemeral                            # the deferred reply: private
    first, final = rest.calls[1].content, rest.calls[2].content
    assert "Too many dice follow to enumerate them all" in first and "is being worked out" in first
    assert len(first) <= 2000 and len(final) <= 2000
    assert "Too many dice" not in final and "worked out" not in final
    loaded = await d.bot.service.load(d.channel_id)
    engine = what_if(loaded.ruleset, loaded.scenario, loaded.state, "union", "battle ui2 0604")
    assert engine.horizon is None
    assert outcomes(final, 1) == {o.label: o.probability for o in engine.effects() if o.label in outcomes(final, 1)}
    assert len(outcomes(final, 1)) >= 5

    monkeypatch.setattr(odds_cog, "EXACT_LIMIT", 0.0)         # the long run cannot finish either
    rest = await d.cmd("odds", user=ALICE, action="battle ui2 0604")
    final = rest.calls[-1].content
    assert "Too many dice follow" in final and "cut short, stands" in final and len(final) <= 2000
    assert await d.bot.store.last_seq(game.id) == before


async def test_when_the_whole_tree_needs_more_time_the_deepest_answer_replaces_the_first(d, game, monkeypatch):
    """Issue 13: the long run that cannot finish the whole tree in EXACT_LIMIT still replaces the
    first answer with the deepest one it finished (engine.core.odds `deepen`, its own tests in
    tests/engine/test_jdg_odds.py; here one cut at two dice stands for it), which says where it
    stops, the chance that more dice follow, and why it stops there."""
    import engine.core.odds as core
    import bot.cogs.odds as odds_cog
    import bot.render_pool as render_pool
    await advance_to_battle(d)
    monkeypatch.setattr(render_pool, "USE_POOL", False)       # in a thread: the patch below holds
    loaded = await d.bot.service.load(d.channel_id)
    at_two = what_if(loaded.ruleset, loaded.scenario, loaded.state, "union", "battle ui2 0604", horizon=2)
    assert not at_two.exact and at_two.unresolved == 1          # the five dice are one roll
    asked = []

    def out_of_time(self, max_leaves, time_limit, progress=None):
        asked.append(time_limit)
        return self.enumerate(2, max_leaves, time_limit)

    monkeypatch.setattr(core._Runner, "deepen", out_of_time)
    cut_at_first(monkeypatch)
    rest = await d.cmd("odds", user=ALICE, action="battle ui2 0604")
    final = rest.calls[-1].content
    assert asked == [odds_cog.EXACT_LIMIT]
    assert "the first 2 dice are enumerated; in 100% of the chances more follow" in final
    assert final.endswith(odds_cog.DEEPEST.format(limit=odds_cog.EXACT_LIMIT)) and len(final) <= 2000
    assert outcomes(final) == {o.label: o.probability for o in at_two.outcomes}


async def test_the_exact_follow_up_runs_in_a_process_of_its_own_when_the_pool_is_on(d, game, monkeypatch):
    """The whole tree after a cut answer is worked out off the bot's process and off the render
    workers: handed to renders.pool.run_alone (what_if_job) with the game as a job."""
    import concurrent.futures as cf
    import bot.cogs.odds as odds_cog
    import bot.render_pool as render_pool
    from renders.pool import what_if_job
    handed = []

    def inline(fn, *args):
        handed.append((fn, args[1:]))
        f = cf.Future()
        f.set_result(fn(*args))
        return f

    await advance_to_battle(d)
    cut_at_first(monkeypatch)
    monkeypatch.setattr(render_pool, "USE_POOL", True)
    monkeypatch.setattr("renders.pool.run_alone", inline)
    rest = await d.cmd("odds", user=ALICE, action="battle ui2 0604")
    [(fn, args)] = handed
    assert fn is what_if_job and args[:3] == ("union", "battle ui2 0604", odds_cog.EXACT_LIMIT)
    assert args[3].endswith(".progress")                 # where it writes how far it is
    assert "worked out" in rest.calls[1].content and "Too many dice" not in rest.calls[-1].content


async def test_an_exact_answer_that_comes_after_a_move_says_the_game_went_on(d, game, monkeypatch):
    """The exact answer replaces the first one even if the game went on meanwhile, and then says
    it is the answer for the position when it was asked."""
    import bot.cogs.odds as odds_cog
    await advance_to_battle(d)
    real = odds_cog.exact

    async def slow_exact(service, loaded, side, line, progress_file=None):
        await service.act(d.channel_id, ALICE, "battle ui2 0604")      # given while it works
        return await real(service, loaded, side, line, progress_file)

    cut_at_first(monkeypatch)
    monkeypatch.setattr(odds_cog, "exact", slow_exact)
    final = (await d.cmd("odds", user=ALICE, action="battle ui2 0604")).calls[-1].content
    assert final.endswith("*Worked out for the position when you asked: 1 command given since.*")
    assert "Too many dice" not in final and len(final) <= 2000


async def test_while_the_exact_answer_is_worked_out_the_reply_says_how_far_it_is(d, game, monkeypatch):
    """The reply shows the share of the chances worked out (written by the exact run to a file
    the cog reads every PROGRESS_EDIT_S), then the exact answer; the file is gone afterwards."""
    import asyncio
    import os
    import bot.cogs.odds as odds_cog
    await advance_to_battle(d)
    real = odds_cog.exact
    files = []

    async def slow_exact(service, loaded, side, line, progress_file=None):
        files.append(progress_file)
        for share in (0.25, 0.625):
            with open(progress_file, "w") as f:
                f.write(str(share))
            await asyncio.sleep(0.2)
        return await real(service, loaded, side, line)

    cut_at_first(monkeypatch)
    monkeypatch.setattr(odds_cog, "PROGRESS_EDIT_S", 0.05)
    monkeypatch.setattr(odds_cog, "exact", slow_exact)
    rest = await d.cmd("odds", user=ALICE, action="battle ui2 0604")
    texts = [c.content for c in rest.calls if c.kind == "edit_original"]
    assert any("(25% of the chances so far)" in t for t in texts), texts
    assert any("(62% of the chances so far)" in t for t in texts) or any("(63% of" in t for t in texts)
    assert all(len(t) <= 2000 for t in texts)
    assert "of the chances so far" not in texts[-1] and "Too many dice" not in texts[-1]
    assert files and not os.path.exists(files[0])
