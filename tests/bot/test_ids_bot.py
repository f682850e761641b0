"""Every id discoverable (issue 12), through the slash commands and the CLI: `units`, `wings`,
`leaders` (TACW, /tacw info ...) and `units` (Battle Cry, /bc units) answered only to the asker,
from /act too; and the reply to an action that leaves the game waiting on the other side names the
command that answers it, on Discord and in the CLI."""
from __future__ import annotations

import io

from bot import cli
from engine.core.game import Game
from tests.bot.harness import ALICE, BOB, CAROL
from tests.bot.test_tacw_bot import bc_game, seq, tacw_game


def private(rest) -> str:
    """The one answer of an exchange: private, no file, nothing posted in the channel."""
    [msg] = rest.messages()
    assert msg.ephemeral and not msg.files, msg.content
    assert not msg.content.startswith("❌"), msg.content
    return msg.content


async def test_tacw_units_wings_leaders_are_private_answers_from_act_and_the_subcommands(d):
    game = await tacw_game(d)
    before = await seq(d, game)
    text = private(await d.cmd("act", user=ALICE, line="units"))
    assert "`r-rupert` Rupert (cavalry) 3107 faces W" in text and "p-fielding" not in text
    text = private(await d.cmd("tacw", sub="info units", user=BOB, filter="r-right"))
    assert text.startswith("**r-right** Royalist right wing (cavalry) · Charge orders · Prince Rupert (`rupert`)")
    text = private(await d.cmd("tacw", sub="info wings", user=ALICE, side="royalist"))
    assert "`r-right` Royalist right wing (cavalry): Charge orders" in text and "▶ may activate now" in text
    text = private(await d.cmd("tacw", sub="info leaders", user=CAROL))          # a spectator asks too
    assert "`fielding` Lord Fielding: Wing Commander of p-right" in text
    assert await seq(d, game) == before                                           # nothing was applied
    [msg] = (await d.cmd("act", user=ALICE, line="units nowhere")).messages()
    assert msg.ephemeral and "'nowhere' is not a side, a wing, a unit or a hex" in msg.content


async def test_tacw_units_filter_completes_sides_and_wings(d):
    await tacw_game(d)
    values = [c["value"] for c in await d.complete("tacw", "filter", sub="info units", user=ALICE, filter="")]
    assert values[:3] == ["royalist", "parliament", "all"] and "r-right" in values and "p-left" in values


async def test_battle_cry_units_is_a_private_answer(bot):
    d = await bc_game(bot)
    text = private(await d.cmd("bc", sub="units", user=ALICE))
    assert text.startswith("__Union__:") and "`ui1`" in text and "`ci1`" not in text
    text = private(await d.cmd("act", user=BOB, line="units all"))
    assert "__Union__" in text and "__Confederate__" in text


async def test_the_reply_to_an_activation_names_the_bypass_answer(d):
    await tacw_game(d)
    await d.cmd("act", user=BOB, line="policy bypass ask")
    rest = await d.cmd("act", user=ALICE, line="activate r-right")
    msg = rest.last
    assert not msg.ephemeral
    assert "may attempt a bypass (buttons below, or `/act bypass p-left|p-centre|p-right|none`)" in msg.content
    [msg] = (await d.cmd("act", user=BOB, line="move p-fielding 2020")).messages()
    assert msg.ephemeral and "Answer: `bypass p-left|p-centre|p-right|none`" in msg.content


def test_cli_script_and_hotseat_answer_units_and_say_who_must_answer():
    g = Game.new("tacw", "edgehill", 5)
    out = io.StringIO()
    session = cli.Session(g, None, render=False, echo=out)
    assert session.step("units r-left") and g.history == []          # a question: answered, nothing applied
    assert "**r-left** Royalist left wing (cavalry) · Charge orders · Lord Wilmot (`wilmot`)" in out.getvalue()
    session.step("parliament: policy bypass ask")
    session.step("royalist: activate r-right")
    assert ("  ⏳ Waiting for Parliament: may attempt a bypass (TACW §4.4). "
            "Answer: `bypass p-left|p-centre|p-right|none`") in out.getvalue()
    out.truncate(0)
    cli.hotseat(session, stdin=io.StringIO("leaders parliament\nwings\nquit\n"))
    text = out.getvalue()
    assert "[parliament] > " in text and "`essex` Robert Devereux, Earl of Essex: Army Commander" in text
    assert "`r-right` Royalist right wing (cavalry): Charge orders" in text and "**active now**" in text
    assert len(g.history) == 2


def test_cli_battle_cry_units_in_the_hotseat():
    g = Game.new("battlecry", "first-bull-run", 1)
    out = io.StringIO()
    cli.hotseat(cli.Session(g, None, render=False, echo=out), stdin=io.StringIO("units\nquit\n"))
    assert "`ui1` Burnside's brigade (infantry) 0503" in out.getvalue() and g.history == []


async def test_act_offers_the_awaited_answer_first(d):
    """The /act completion puts the verb the game waits for ahead of the rest (it read a missing
    attribute of the pending answers before)."""
    await tacw_game(d)
    await d.cmd("act", user=BOB, line="policy bypass ask")
    await d.cmd("act", user=ALICE, line="activate r-right")
    verbs = [c["value"] for c in await d.complete("act", "line", user=BOB, line="")]
    assert verbs[0] == "bypass "
