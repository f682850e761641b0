"""Jours de Gloire through the slash commands (issue 14): /jdg is built from engine/jdg/verbs.py
with no bot code of its own. Marengo, seed 1: Alice commands the French, Bob the Austrians.

What a club sees: the secret orders of phase A [2.3] are answered privately and never appear in
the channel, the log, /explain or the board until the formation's first marker is drawn [2.4];
chit draws are public, logged and drawn on the board [1.D]; a refusal names the paragraph that
forbids it and stores nothing; the ids questions answer only the asker."""
from __future__ import annotations

from tests.bot.harness import ALICE, BOB, png_size, public, refused

SEED = "1"


async def marengo(d):
    public(await d.game("new", user=ALICE, ruleset="jdg", scenario="marengo", side="french", seed=SEED))
    public(await d.game("join", user=BOB, side="austrian"))
    rest = await d.game("start", user=ALICE)
    assert [n for n, _ in rest.last.files] == ["board.png"]
    return await d.bot.store.active_game(d.channel_id)


async def state(d):
    return (await d.bot.service.load(d.channel_id)).state


async def test_secret_orders_are_private_until_the_first_marker_is_drawn(d):
    game = await marengo(d)
    # [2.3]: an order for a formation with no unit in Bonaparte's radius is refused, nothing stored
    text = refused(await d.cmd("jdg", sub="orders", user=ALICE, formations="gardanne"), "JdG [2.3]")
    assert "command radius" in text
    assert await d.bot.store.last_seq(game.id) == 0
    rest = await d.cmd("jdg", sub="orders", user=ALICE, formations="watrin")
    [msg] = rest.messages()
    assert msg.ephemeral and "hidden" in msg.content and not msg.files
    [msg] = (await d.cmd("jdg", sub="orders", user=BOB, formations="ott hadik-kaim frimont")).messages()
    assert msg.ephemeral
    st = await state(d)
    assert st.formations["watrin"].orders == "with" and not st.formations["watrin"].revealed
    # the log and /explain show the command as secret, never its formations
    log = public(await d.game("log", user=BOB))
    assert "watrin" not in log and "secret" in log
    explain = "\n".join(m.content for m in (await d.cmd("explain", user=BOB)).messages())
    assert "watrin" not in explain.lower()
    # the other side's /jdg formations shows no order before the reveal [2.4]
    answer = (await d.cmd("jdg", sub="formations", user=BOB)).last
    assert answer.ephemeral
    watrin = next(line for line in answer.content.splitlines() if line.startswith("`watrin`"))
    assert "With Orders" not in watrin and "Without Orders" not in watrin
    mine = (await d.cmd("jdg", sub="formations", user=ALICE)).last.content
    assert "With Orders" in next(line for line in mine.splitlines() if line.startswith("`watrin`"))


async def test_initiative_draws_are_public_and_refusals_name_the_rule(d):
    game = await marengo(d)
    await d.cmd("jdg", sub="orders", user=ALICE, formations="watrin")
    await d.cmd("jdg", sub="orders", user=BOB, formations="ott")
    st = await state(d)
    assert st.phase == "initiative" and st.initiative == "austrian"      # seed 1's rolls [3]
    refused(await d.cmd("jdg", sub="first", user=ALICE, marker="none"), "JdG")
    rest = await d.cmd("jdg", sub="first", user=BOB, marker="none")
    assert "Phase C" in public(rest)
    before = await d.bot.store.last_seq(game.id)
    refused(await d.cmd("jdg", sub="draw", user=ALICE), "JdG")           # the Austrians draw first (D79)
    assert await d.bot.store.last_seq(game.id) == before
    rest = await d.cmd("jdg", sub="draw", user=BOB)
    text = public(rest)
    assert "draws" in text and "from the cup" in text
    assert [n for n, _ in rest.last.files] == ["board.png"] and png_size(rest.last.files[0][1])[0] >= 550
    st = await state(d)
    assert st.activation is not None and st.activation.side == "austrian"
    drawn = st.activation.marker
    assert drawn in st.set_aside and drawn not in st.cup
    # ids: answered only to the asker, under Discord's 2,000 characters
    for sub in ("units", "cup", "formations"):
        msg = (await d.cmd("jdg", sub=sub, user=BOB)).last
        assert msg.ephemeral and 0 < len(msg.content) <= 2000, sub


async def test_jdg_rules_answer_from_the_book_and_decisions(d):
    text = public(await d.cmd("rules", user=ALICE, ruleset="jdg", query="square"))
    assert "4.2" in text and "open terrain" in text and "D24" in text
