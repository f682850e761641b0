"""Lion of the North through the slash commands (issue 15): /lion is built from engine/lion/verbs.py
with no bot code of its own. Breitenfeld 1631, seed 1: Alice commands the Swedes (player A), Bob the
Imperials (player B).

Lion is not offered to players yet (`playable` False): the tests reach it by id, as the bot's tree
will once it is (the `/lion` group added here only when the tree lacks it), and create the game
through the service.

What a club sees: orders naming a unit or a group ("a+b+c") and a manoeuvre, completed from the
table (the units that may move, the group's next neighbour, the enemies in arc and range of the
shooter, in reach of the charger, in contact for a melee); every action answered in public with the
board; refusals private, naming the rule and by how much; `measure` and the lists answered only to
the asker and never logged; /odds of a shot and of a melee exact and private (the last shooter
of a card too: HERALD D110); /explain citing each paragraph with its title; /rules of a
paragraph and of a Herald decision; undo with the opponent's consent."""
from __future__ import annotations

import re

import pytest

from bot.cogs.rulesets import ruleset_group
from engine.core.game import Game, rulesets
from tests.bot.harness import ALICE, BOB, CAROL, public, refused

SEED = 1
USERS = {"swedish": ALICE, "imperial": BOB}
# Breitenfeld, seed 1: the first card is the Swedish move card (5 Cpts); then the Swedish combat
# and rally cards pass, and the Imperial shoot card comes; its `next` brings the end card (a random
# event: a surprise march), then the Imperial move card, the last of turn 1.
OPENING = [("swedish", "move sw-horn1+sw-horn-musk+sw-horn2 advance 10"),
           ("swedish", "move sw-baner3 advance 44 forced"),
           ("swedish", "next")]
CHARGE = [("imperial", "shoot imp-guns1 sw-horn1"),
          ("imperial", "next"),
          ("imperial", "charge imp-papp6 sw-baner3 forced"),     # contact, Banér's Tott horse's front
          ("imperial", "next")]
# turn 2: the end card (the turn goes on), the Imperial shoot and move cards, rallies, then the
# Swedish combat card, where sw-baner3 touches imp-papp6
TO_COMBAT = [("imperial", "next"), ("imperial", "next")]


def lion_ruleset():
    return rulesets(include_unfinished=True)["lion"]


def with_lion(bot):
    """The bot's tree with /lion (the group a playable ruleset gets at start-up)."""
    if not any(c.name == "lion" for c in bot.tree.get_commands()):
        bot.tree.add_command(ruleset_group(lion_ruleset()))
    return bot


@pytest.fixture
def lion(bot):
    return with_lion(bot)


def mirror(lines=(), seed: int = SEED) -> Game:
    g = Game.new("lion", "breitenfeld", seed)
    for side, line in lines:
        g.apply(side, line)
    return g


async def breitenfeld(d, lines=(), seed: int = SEED, physical: bool = False):
    """The battle through the service: Alice Swedish, Bob Imperial, started; then `lines`."""
    service = d.bot.service
    loaded = await service.new_game(1, d.channel_id, ALICE, "lion", "breitenfeld", seed, side="swedish")
    if physical:
        from bot.physical_dice import set_mode
        await set_mode(service, loaded.row.id, "physical")
    await service.join(d.channel_id, BOB, "imperial")
    await service.start(d.channel_id, ALICE)
    for side, line in lines:
        await service.act(d.channel_id, USERS[side], line)
    return await d.bot.store.active_game(d.channel_id)


async def state(d):
    return (await d.bot.service.load(d.channel_id)).state


def values(choices) -> list[str]:
    return [c["value"] for c in choices]


async def test_a_move_card_by_slash_commands_groups_and_refusals(d, lion):
    """[4], [4 B], [4 D], [5 A]: the Swedish move card: a group of three (completed one neighbour
    at a time) advances 10 cm; a wheel over 45 degrees is refused naming the rule and by how much,
    the Imperial player is refused on the Swedish card, nothing is stored by either; a forced march;
    `next` draws on to the Imperial shoot card, posted with the board."""
    game = await breitenfeld(d)
    st = await state(d)
    assert st.card == "move_a" and st.armies["swedish"].cpts == 5
    # the movers, then the group's next unit: only those touching the last one named [4 B]
    movers = values(await d.complete("lion", "units", sub="move", user=ALICE, units="sw-horn"))
    assert {"sw-horn1", "sw-horn-musk", "sw-horn2", "sw-horn3"} <= set(movers)
    assert not any(v.startswith("imp-") for v in movers)
    group = values(await d.complete("lion", "units", sub="move", user=ALICE, units="sw-horn1+"))
    assert group == ["sw-horn1+sw-horn-musk"], group
    steps = values(await d.complete("lion", "steps", sub="move", user=ALICE, units="sw-horn1", steps="wheel 30 "))
    assert steps == ["wheel 30 left", "wheel 30 right"]
    # refusals: private, the rule and the amount, nothing stored
    text = refused(await d.cmd("lion", sub="move", user=ALICE, units="sw-horn3", steps="wheel 52 left"),
                   "LdN [5 A]")
    assert "52" in text and "45" in text, text
    refused(await d.cmd("lion", sub="move", user=BOB, units="imp-papp1", steps="advance 10"), "LdN [3]")
    assert await d.bot.store.last_seq(game.id) == 0
    # the group moves: public, with the board
    rest = await d.cmd("lion", sub="move", user=ALICE, units="sw-horn1+sw-horn-musk+sw-horn2", steps="advance 10")
    text = public(rest)
    assert "move 10 cm" in text and [n for n, _ in rest.last.files] == ["board.png"], text
    st = await state(d)
    assert [st.units[u].y for u in ("sw-horn1", "sw-horn-musk", "sw-horn2", "sw-horn3")] == [35, 35, 35, 25]
    assert st.armies["swedish"].cpts == 4
    assert "44 cm" in public(await d.cmd("lion", sub="move", user=ALICE, units="sw-baner3",
                                         steps="advance 44", forced=True))
    rest = await d.cmd("lion", sub="next", user=ALICE)
    assert "Imperial shoot card" in public(rest)
    assert (await state(d)).state_hash() == mirror(OPENING).state.state_hash()


async def test_shoot_measure_odds_explain_and_the_lists(d, lion):
    """[7 A], [7 B], [1]: on the Imperial shoot card the shooters and their targets are offered in
    arc and range, nearest first; `measure` answers the distance, the arc, the sight and the range
    band only to the asker and logs nothing; /odds of the shot is exact and private; the shot is
    public, and /explain cites each paragraph with its title."""
    game = await breitenfeld(d, OPENING)
    shooters = values(await d.complete("lion", "unit", sub="shoot", user=BOB, unit=""))
    assert {"imp-guns1", "imp-guns2", "imp-guns3"} <= set(shooters)
    assert "imp-ter-tilly" not in shooters and "imp-papp1" not in shooters      # nothing in range / no fire
    targets = await d.complete("lion", "target", sub="shoot", user=BOB, unit="imp-guns1", target="")
    assert values(targets)[0] == "sw-horn1" and "55 cm, long range" in targets[0]["name"]
    g = mirror(OPENING)
    from engine.lion.fire.sight import legal_targets
    assert set(values(targets)) <= {t for t, _ in legal_targets(g.scenario, g.state, g.state.units["imp-guns1"])}
    # measure: private, exact, nothing stored
    seq = await d.bot.store.last_seq(game.id)
    msg = (await d.cmd("lion", sub="measure", user=CAROL, base="imp-guns1", to="sw-horn1")).last
    assert msg.ephemeral and "**55 cm**" in msg.content and "arc (30 degrees a side): yes" in msg.content
    assert "line of sight from its front: clear" in msg.content and "long range, hits on 10+ with d12" in msg.content
    msg = (await d.cmd("lion", sub="measure", user=ALICE, base="sw-horn1", to="imp-furst1")).last
    assert msg.ephemeral and "cm** between the nearest points" in msg.content and "its fire" not in msg.content
    text = refused(await d.cmd("lion", sub="measure", user=ALICE, base="sw-horn1", to="nobody"), "LdN [1]")
    assert "not a base on the table" in text
    for sub, kw in (("units", {"side": "all"}), ("units", {"side": "mine"}), ("generals", {})):
        msg = (await d.cmd("lion", sub=sub, user=BOB, **kw)).last
        assert msg.ephemeral and 0 < len(msg.content) <= 2000, (sub, len(msg.content))
    assert await d.bot.store.last_seq(game.id) == seq
    assert "measure" not in public(await d.game("log", user=CAROL))
    # /odds: the d12 at long range, 10+ to hit, and the gun's explosion test on a 1 (d6 1)
    rest = await d.cmd("odds", user=BOB, action="shoot imp-guns1 sw-horn1")
    [msg] = rest.messages()
    assert msg.ephemeral and "d12 at 55 cm, long range, 10 or more to hit" in msg.content, msg.content
    assert "(1/4) Horn's horse (East Gothland) (sw-horn1): 1 hit" in msg.content
    assert "(1/72) Heavy battery (right) (imp-guns1): destroyed" in msg.content
    refused(await d.cmd("odds", user=CAROL, action="shoot imp-guns1 sw-horn1"))
    assert await d.bot.store.last_seq(game.id) == seq
    # the shot, in public; /explain names the paragraphs and their titles
    rest = await d.cmd("lion", sub="shoot", user=BOB, unit="imp-guns1", target="sw-horn1")
    assert "imp-guns1" in public(rest) and [n for n, _ in rest.last.files] == ["board.png"]
    explain = "\n".join(m.content for m in (await d.cmd("explain", user=CAROL)).messages())
    assert re.search(r"LdN \[7 [AB]\] \([A-Z]", explain), explain
    assert "d12" in explain


async def test_the_last_shot_of_a_card_is_asked_like_any_other(d, lion):
    """HERALD D110: /odds stops once the action is done: the shot after which the card would pass
    (its owner having no other shooter) draws no card and is answered."""
    game = await breitenfeld(d, OPENING)
    g = mirror(OPENING)
    # every Imperial shooter but one fires first
    from engine.lion.sequence.completions import option_completions
    shooters = [v for _, v in option_completions(g.scenario, g.state, "imperial", "shooter", "", {})]
    last, firing = shooters[-1], shooters[:-1]
    for u in firing:
        target = option_completions(g.scenario, g.state, "imperial", "shoot_target", "", {"unit": u})[0][1]
        g.apply("imperial", f"shoot {u} {target}")
        await d.bot.service.act(d.channel_id, BOB, f"shoot {u} {target}")
        if g.state.card != "shoot_b":
            pytest.skip("the card passed before the last shooter")      # not with seed 1
    target = option_completions(g.scenario, g.state, "imperial", "shoot_target", "", {"unit": last})[0][1]
    seq = await d.bot.store.last_seq(game.id)
    rest = await d.cmd("odds", user=BOB, action=f"shoot {last} {target}")
    [msg] = rest.messages()
    assert msg.ephemeral and "%" in msg.content and "hidden" not in msg.content, msg.content
    assert await d.bot.store.last_seq(game.id) == seq and (await state(d)).card == "shoot_b"
    g.apply("imperial", f"shoot {last} {target}")
    assert g.state.card != "shoot_b"                 # the real shot does pass the card and draw


async def test_a_charge_then_a_melee_with_its_odds(d, lion):
    """[5], [8 A], [8 B]: the charge's targets are the enemies within reach (forced march beyond
    the move); the charger stops in contact; on the Swedish combat card the melee's target is the
    enemy touched, its /odds exact and private, and the melee public."""
    game = await breitenfeld(d, OPENING + CHARGE[:2])
    reach = await d.complete("lion", "target", sub="charge", user=BOB, unit="imp-papp6", target="")
    assert values(reach) == ["sw-baner3"] and "(forced march)" in reach[0]["name"]
    assert values(await d.complete("lion", "target", sub="charge", user=BOB, unit="imp-ter-tilly", target="")) == []
    rest = await d.cmd("lion", sub="charge", user=BOB, unit="imp-papp6", target="sw-baner3", forced=True)
    assert "stops in contact" in public(rest)
    await d.bot.service.act(d.channel_id, BOB, "next")
    for side, line in TO_COMBAT:
        await d.bot.service.act(d.channel_id, USERS[side], line)
    st = await state(d)
    assert st.card == "combat_a", st.card
    assert values(await d.complete("lion", "target", sub="fight", user=ALICE, target="")) == ["imp-papp6"]
    seq = await d.bot.store.last_seq(game.id)
    [msg] = (await d.cmd("odds", user=ALICE, action="fight imp-papp6")).messages()
    assert msg.ephemeral and "%" in msg.content, msg.content
    assert await d.bot.store.last_seq(game.id) == seq
    rest = await d.cmd("lion", sub="fight", user=ALICE, target="imp-papp6")
    text = public(rest)
    assert "imp-papp6" in text and [n for n, _ in rest.last.files] == ["board.png"], text
    g = mirror(OPENING + CHARGE + TO_COMBAT + [("swedish", "fight imp-papp6")])
    assert (await state(d)).state_hash() == g.state.state_hash()


async def test_rules_of_a_paragraph_and_of_a_decision(d, lion):
    """/rules in a Lion channel: a paragraph by number with its title, and a Herald decision."""
    await breitenfeld(d)
    text = (await d.cmd("rules", user=CAROL, query="8 C")).last.content
    assert "8 C" in text and "Flank" in text, text
    text = (await d.cmd("rules", user=CAROL, query="D110")).last.content
    assert "D110" in text and "what-if" in text, text


async def test_a_move_taken_back_with_consent(d, lion):
    """Undo (bot/undo.py): a move without dice is taken back with the opponent's consent; a `next`
    that drew a card never (the card's order is hidden, HERALD D7)."""
    game = await breitenfeld(d, OPENING[:1])
    msg = (await d.cmd("undo", user=ALICE)).last
    assert "asks to take back #1" in msg.content and f"<@{BOB}>" in msg.content
    refused(await d.click(msg.custom_ids[0], msg.components, user=ALICE), "your opponent must agree")
    assert "takes back" in public(await d.click(msg.custom_ids[0], msg.components, user=BOB))
    assert (await state(d)).units["sw-horn1"].y == 25
    for side, line in OPENING:
        await d.bot.service.act(d.channel_id, USERS[side], line)
    seq = await d.bot.store.last_seq(game.id)
    refused(await d.cmd("undo", user=ALICE), "revealed hidden information")
    assert await d.bot.store.last_seq(game.id) == seq


async def test_policies_and_the_contact_fire_key(d, lion):
    """`/lion policy contactfire never` sets the key the fire module reads ([7 D],
    engine/lion/fire/shoot.py contact_policy): the contact fire step is skipped."""
    await breitenfeld(d)
    kinds = values(await d.complete("lion", "kind", sub="policy", user=BOB, kind=""))
    assert {"sunset", "reinforcements", "evade", "contactfire", "advance"} == set(kinds)
    rest = await d.cmd("lion", sub="policy", user=BOB, kind="contactfire", value="never")
    assert "contactfire never" in public(rest)
    st = await state(d)
    from engine.lion.fire.shoot import contact_policy
    assert contact_policy(st, "imperial") == "never" and contact_policy(st, "swedish") == "auto"
