"""The Italian Wars through the slash commands (issue 16): /iw is built from
engine/italianwars/verbs.py with no bot code of its own. Fornovo 1495, seed 3: Alice commands the
French (player A), Bob the League (player B).

What a club sees: the written orders and the Ecu go to the bot privately (the reply only to the
writer, the channel and the log reading "(secret)"), and are revealed by the rules' own
timing: an order when its battle acts, a bribe at the interpretation test it changes; /explain
and the replay never show them early; the treasury only to its owner; the activation's die with
Tabella 6's minimum; /rules of a section, of the supplement and of a Herald decision."""
from __future__ import annotations

import pytest

from bot.cogs.rulesets import ruleset_group
from engine.core.game import Game, rulesets
from tests.bot.harness import ALICE, BOB, CAROL, public, refused

SEED = 3
USERS = {"french": ALICE, "league": BOB}
# Fornovo, seed 3: the scenario fixes the captains, weather, hour, attacker (the League) and the
# battles' places; the League rolls what is left, then both write their orders
ORDERS = [("league", "roll"),
          ("league", "order caiazzo attack"), ("league", "order fortebraccio attack"),
          ("league", "order gonzaga attack"), ("league", "order reserve hold"),
          ("league", "order stradiots attack"), ("league", "keep"),
          ("french", "order bataille hold"), ("french", "order rearguard hold"),
          ("french", "order vanguard hold"), ("french", "keep")]


def iw_ruleset():
    return rulesets(include_unfinished=True)["italianwars"]


def group_name() -> str:
    return ruleset_group(iw_ruleset()).name


def with_iw(bot):
    """The bot's tree with /iw (the group a playable ruleset gets at start-up)."""
    name = group_name()
    if not any(c.name == name for c in bot.tree.get_commands()):
        bot.tree.add_command(ruleset_group(iw_ruleset()))
    return bot


@pytest.fixture
def iw(bot):
    return with_iw(bot)


def mirror(lines=(), seed: int = SEED) -> Game:
    g = Game.new("italianwars", "fornovo", seed)
    for side, line in lines:
        g.apply(side, line)
    return g


async def fornovo(d, lines=(), seed: int = SEED):
    """The battle through the service: Alice French, Bob the League, started; then `lines`."""
    service = d.bot.service
    await service.new_game(1, d.channel_id, ALICE, "italianwars", "fornovo", seed, side="french")
    await service.join(d.channel_id, BOB, "league")
    await service.start(d.channel_id, ALICE)
    for side, line in lines:
        await service.act(d.channel_id, USERS[side], line)
    return await d.bot.store.active_game(d.channel_id)


async def state(d):
    return (await d.bot.service.load(d.channel_id)).state


def values(choices) -> list[str]:
    return [c["value"] for c in choices]


async def test_orders_are_written_privately_and_revealed_when_the_battle_acts(d, iw):
    """IW Ordini, IW Prima della battaglia 8 (HERALD D4): Bob's written orders are answered only to
    him; the channel, the log and /explain read "(secret)"; Alice may not write the
    League's orders; the order is revealed when Gonzaga's battle acts (IW Attivazione delle
    Battaglie: the Commander-in-Chief's battle activates without a die)."""
    name = group_name()
    game = await fornovo(d, ORDERS[:1])
    rest = await d.cmd(name, sub="order", user=BOB, battle="gonzaga", order="attack")
    msg = rest.last
    assert msg.ephemeral and "Order written for gonzaga: attack" in msg.content, msg.content
    assert not [m for m in rest.messages() if not m.ephemeral and "attack" in (m.content or "").lower()]
    refused(await d.cmd(name, sub="order", user=ALICE, battle="gonzaga", order="hold"), "IW")
    log = public(await d.game("log", user=CAROL, count=2))
    assert "writes a battle's order (secret)" in log and "attack" not in log.lower().replace("attacker", ""), log
    explain = "\n".join(m.content for m in (await d.cmd("explain", user=ALICE)).messages())
    assert "attack" not in explain.lower().replace("attacker", ""), explain
    for side, line in [x for x in ORDERS[1:] if "gonzaga" not in x[1]]:
        await d.bot.service.act(d.channel_id, USERS[side], line)
    st = await state(d)
    assert st.phase == "prebattle" and st.step == "bribery"
    # no Ecu spent: both keep, the battle begins, the League (the attacker) activates first
    await d.cmd(name, sub="keep", user=BOB)
    rest = await d.cmd(name, sub="keep", user=ALICE)
    assert "The battle begins" in public(rest)
    rest = await d.cmd(name, sub="activate", user=BOB, battle="gonzaga")
    text = public(rest)
    assert "activates without a test" in text and "acts on its order: Attack" in text, text
    log = public(await d.game("log", user=CAROL, count=4))
    assert "(gonzaga) acts on its order: Attack" in log and "caiazzo) acts" not in log, log
    same = [ORDERS[0], ("league", "order gonzaga attack")] + [x for x in ORDERS[1:] if "gonzaga" not in x[1]]
    assert (await state(d)).state_hash() == mirror(same + [("league", "keep"), ("french", "keep"),
                                                           ("league", "activate gonzaga")]).state.state_hash()
    assert game is not None


async def test_the_treasury_and_bribes_only_to_their_owner(d, iw):
    """IW Tesoro, IW Prima della battaglia 9 (HERALD D53, D65): each side's 1d6 Ecu are told only
    to it; a bribe is answered privately and the log reads "(secret)"; Alice cannot spend more than
    she has; Ecu have no effect on a battle led by Gentlemen (IW Interpretazione degli ordini: every
    French battle at Fornovo); the treasury query answers only to the asker and is never logged."""
    name = group_name()
    game = await fornovo(d, ORDERS)
    st = await state(d)
    ecu = st.armies["french"].ecu
    assert 1 <= ecu <= 6
    msg = (await d.cmd(name, sub="treasury", user=ALICE)).last
    assert msg.ephemeral and f"{ecu} Ecu" in msg.content, msg.content
    seq = await d.bot.store.last_seq(game.id)
    text = refused(await d.cmd(name, sub="bribe", user=ALICE, battle="caiazzo", ecu=str(ecu + 1)), "IW Tesoro")
    assert str(ecu) in text
    text = refused(await d.cmd(name, sub="bribe", user=BOB, battle="rearguard", ecu="1"),
                   "IW Interpretazione degli ordini")
    assert "Gentlemen" in text
    assert await d.bot.store.last_seq(game.id) == seq
    rest = await d.cmd(name, sub="bribe", user=ALICE, battle="caiazzo", ecu="1")
    assert rest.last.ephemeral and "1 Ecu on caiazzo" in rest.last.content, rest.last.content
    log = public(await d.game("log", user=CAROL, count=1))
    assert "spends Ecu in secret" in log and "caiazzo" not in log, log
    assert (await state(d)).armies["french"].ecu == ecu - 1
    assert "treasury" not in public(await d.game("log", user=CAROL, count=25)).lower().replace("rolls its treasury", "")


async def test_a_failed_activation_passes_the_hand_with_its_die(d, iw):
    """IW Tabella 6, IW Il Giocatore Attivo: a battle that is not the C-in-C's rolls its d6 against
    its commander's class (the event names the minimum and the die); the French player is refused
    while it is the League's turn to activate; once a battle has tried, it may not again."""
    name = group_name()
    await fornovo(d, ORDERS + [("league", "keep"), ("french", "keep")])
    refused(await d.cmd(name, sub="activate", user=ALICE, battle="bataille"), "IW Il Giocatore Attivo")
    rest = await d.cmd(name, sub="activate", user=BOB, battle="caiazzo")
    text = public(rest)
    assert "needs" in text and "d6" in text, text
    refused(await d.cmd(name, sub="activate", user=BOB, battle="caiazzo"))


async def test_rules_of_a_section_the_supplement_and_a_decision(d, iw):
    """/rules in an Italian Wars channel answers a section of the text (IW Tabella 6) with its
    title, a rule of Herald's completion (IW-H 6, the Melee table, shown from SUPPLEMENT.md) and a
    Herald decision (D58)."""
    await fornovo(d)
    text = (await d.cmd("rules", user=CAROL, query="Tabella 6")).last.content
    assert "Table 6: battle activation" in text and "Rash commander +1" in text, text
    rest = await d.cmd("rules", user=CAROL, query="IW-H 6")
    text = "\n".join(m.content for m in rest.messages())
    assert "IW-H 6" in text and "IW-H 6 — Melee (Herald completion)" in text and "Doppelsöldner" in text, text
    assert all(len(m.content) <= 2000 for m in rest.messages())
    text = (await d.cmd("rules", user=CAROL, query="D58")).last.content
    assert "D58" in text and "Charges by order" in text, text


def opening_lines() -> list[tuple[str, str]]:
    """Fornovo, seed 3, to the King's battle's first charges (tests/bot/data/iw-fornovo-seed3-opening.txt,
    written by engine.italianwars.autoplay)."""
    from pathlib import Path
    path = Path(__file__).parent / "data" / "iw-fornovo-seed3-opening.txt"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            side, text = line.split(":", 1)
            out.append((side.strip(), text.strip()))
    return out


async def test_charges_countercharges_a_melee_and_a_shot_with_their_odds(d, iw):
    """IW Azioni 2b, 2f, 2h, 2e, IW-H 6, IW-H 5: at Fornovo (the demo's line, seed 3) the King's
    battle declares its gendarmes' charges, completed from the enemies within their move; the
    League counter-charges (the responses offered to it); at 2h /odds of `melee b_gendarmes` is
    exact and private, the melee is fought at Alice's choice of order and posted with the board,
    /explain titles the supplement's rules; later /odds of the rearguard's archers' shot."""
    name = group_name()
    lines = opening_lines()
    start = lines.index(("french", "declare b_gendarmes g_lances2"))
    game = await fornovo(d, lines[:start], seed=SEED)
    targets = values(await d.complete(name, "target", sub="declare", user=ALICE, company="b_gendarmes", target=""))
    assert "g_lances2" in targets and not any(t.startswith(("b_", "r_", "v_")) for t in targets), targets
    for _, line in lines[start:start + 3]:
        _, cid, target = line.split()
        rest = await d.cmd(name, sub="declare", user=ALICE, company=cid, target=target)
        assert "charge" in public(rest).lower(), public(rest)
    for side, line in lines[start + 3:start + 5]:
        await d.bot.service.act(d.channel_id, USERS[side], line)
    lines += [("league", "respond g_lances countercharge"), ("league", "respond g_lances2 countercharge"),
              ("league", "respond gonzaga_lances countercharge")]
    offered = values(await d.complete(name, "response", sub="respond", user=BOB, company="g_lances2", response=""))
    assert "countercharge" in offered and "stand" in offered, offered
    for _, line in lines[start + 5:start + 8]:
        _, cid, how = line.split()
        await d.cmd(name, sub="respond", user=BOB, company=cid, response=how)
    st = await state(d)
    assert st.activation["step"] == "melee" and st.companies["b_gendarmes"].melee_with == ["g_lances2"]
    seq = await d.bot.store.last_seq(game.id)
    asked = await d.cmd("odds", user=ALICE, action="melee b_gendarmes")
    msg = asked.last              # the answer, or (cut at first: issue 13) the exact one edited in
    assert asked.calls[0].ephemeral and "exact odds" in msg.content and "IW-H 6.2" in msg.content, msg.content
    assert "Cut at a horizon" not in msg.content and "Too many dice" not in msg.content
    assert await d.bot.store.last_seq(game.id) == seq
    rest = await d.cmd(name, sub="melee", user=ALICE, company="b_gendarmes")
    text = public(rest)
    assert "b_gendarmes" in text and "g_lances2" in text and [n for n, _ in rest.last.files] == ["board.png"], text
    explain = "\n".join(m.content for m in (await d.cmd("explain", user=CAROL)).messages())
    assert "IW-H 6" in explain and "Melee (Herald completion)" in explain, explain
    g = mirror(lines[:start + 8])
    g.apply("french", "melee b_gendarmes")
    assert (await state(d)).state_hash() == g.state.state_hash()
    # the rest of the melees (the King falls and his gendarmes rout), the Milanese fail to activate,
    # and the rearguard's archers shoot: the shot's odds, private and exact
    for side, line in [("french", "pass"), ("league", "activate caiazzo"), ("french", "activate rearguard")]:
        await d.bot.service.act(d.channel_id, USERS[side], line)
    msg = (await d.cmd("odds", user=ALICE, action="shoot r_archers g_provisionati")).last
    assert msg.ephemeral and "exact odds" in msg.content and "Shooting table" in msg.content, msg.content
    rest = await d.cmd(name, sub="shoot", user=ALICE, company="r_archers", target="g_provisionati")
    assert "r_archers" in public(rest), public(rest)
