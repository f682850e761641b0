"""A club plays Fornovo (the Italian Wars, issue 16) on Discord as it plays the other rulesets:
through the real command tree and mocked interactions (tests/bot/harness.py). Alice commands the
French, Bob the League; the positions are reached by the lines of test_iw_bot.py through the
service, then the moment under test through the tree: physical dice asked of the side that rolls
them (an activation die, Tabella 6), the treasury never asked (a hidden draw, HERALD D67), then
export and import; a campaign of two battles scored by the ruleset's campaign_score; the
activation played from the posted board's menus alone."""
from __future__ import annotations

import pytest

from tests.bot.harness import ALICE, BOB, CAROL, Driver, public, refused
from tests.bot.test_iw_bot import ORDERS, USERS, fornovo, group_name, mirror, state, with_iw
from tests.bot.test_lion_club import physical_apply


@pytest.fixture
def iw(bot):
    return with_iw(bot)


OPENING = ORDERS + [("league", "keep"), ("french", "keep")]


async def test_physical_dice_ask_the_roller_and_never_the_treasury_then_export_and_import(d, iw, monkeypatch):
    """Physical dice (IW Tabella 6, IW Tesoro, HERALD D67): the League's pre-battle roll and each
    activation die are asked of the side whose battle rolls, a d6, and a face a d6 lacks is
    refused; the treasuries are drawn by Herald unseen (no /dice asks for them); the game is the
    engine's in physical mode bit for bit. Then `/game export` (both players agree) and `/game
    import` give the same game."""
    from bot.physical_dice import set_mode
    from engine.core.game import Game
    from tests.bot.test_history import OTHER_CHANNEL, file_in, import_file
    from tests.bot.test_lion_club import enter
    g = Game.new("italianwars", "fornovo", 3)
    service = d.bot.service
    loaded = await service.new_game(1, d.channel_id, ALICE, "italianwars", "fornovo", 3, side="french")
    await set_mode(service, loaded.row.id, "physical")
    await service.join(d.channel_id, BOB, "league")
    await service.start(d.channel_id, ALICE)
    seen = []
    for side, line in OPENING + [("league", "activate caiazzo")]:
        asks = physical_apply(g, side, line)
        rest = await d.cmd("act", user=USERS[side], line=line)
        if asks and not seen:
            refused(await d.cmd("dice", user=USERS[asks[0][1]], results="7"), "not a face of a d6")
        if asks:
            rest, asked_of = await enter(d, rest, asks, [2] * len(asks), USERS)
            seen += [(line,) + a for a in asked_of]
        assert rest.last.ephemeral == line.startswith("order "), rest.last.content    # written orders: private
    assert all(die == "d6" for _, _, die, _ in seen), seen
    assert not any("treasury" in purpose for *_, purpose in seen), seen
    activation = [s for s in seen if s[0] == "activate caiazzo"]
    assert activation and activation[0][1] == BOB, seen
    loaded = await service.load(d.channel_id)
    assert loaded.state.state_hash() == g.state.state_hash()
    assert await service.verify(loaded.row)
    await d.game("export", user=ALICE)
    data = file_in(await d.game("export", user=BOB))[1]
    there = Driver(d.bot, OTHER_CHANNEL)
    rest = await import_file(there, monkeypatch, data)
    assert "replayed from the seed and verified" in rest.last.content, rest.last.content
    copy = await service.load(OTHER_CHANNEL)
    assert copy.state.state_hash() == loaded.state.state_hash()


async def test_a_campaign_of_two_battles_and_a_resignation(d, bot, iw):
    """IW Punto di rottura dell'esercito (HERALD D62): two Fornovo games in a campaign, scored by
    engine/italianwars/ruleset.py campaign_score: the French resign the first (4-0 to the League),
    the League the second with Alice commanding it (4-0 to Bob's French)."""
    from bot import campaigns
    from tests.bot.test_campaigns import new_campaign, rows
    public(await new_campaign(d, ALICE, "Taro 1495", "italianwars"))
    first = await fornovo(d, ORDERS[:3])
    public(await d.cmd("campaign", sub="add", user=BOB, campaign="Taro 1495"))
    assert "resigns" in public(await d.game("resign", user=ALICE))
    service = d.bot.service
    await service.new_game(1, d.channel_id, BOB, "italianwars", "fornovo", 2, side="french")
    await service.join(d.channel_id, ALICE, "league")
    await service.start(d.channel_id, BOB)
    second = await d.bot.store.active_game(d.channel_id)
    public(await d.cmd("campaign", sub="add", user=ALICE, campaign="Taro 1495"))
    assert "resigns" in public(await d.cmd(group_name(), sub="resign", user=ALICE))
    c = await campaigns.find_campaign(bot.store, 222222222222222222, "taro 1495")
    result = sorted(await rows(bot, c.id))
    assert result == [(first.id, "french", ALICE, "loss", 0), (first.id, "league", BOB, "win", 4),
                      (second.id, "french", BOB, "win", 4), (second.id, "league", ALICE, "loss", 0)], result
    standings = public(await d.cmd("campaign", sub="standings", user=CAROL, campaign="Taro 1495"))
    assert "Taro 1495" in standings and "campaign points" in standings, standings


async def test_an_activation_by_clicks_alone(d, iw):
    """IW Il Giocatore Attivo, IW Tabella 6: the League's first activation played from the posted
    board's menus alone (the battle chosen among the battles not yet tried); Alice may not click for
    the League; the game is the engine's own."""
    from tests.bot.test_jdg_club import play_by_clicks
    from tests.bot.test_menus import choose
    g = mirror(OPENING)
    assert g.to_act == "league" and g.state.phase == "actions"
    game = await fornovo(d, OPENING)
    rest = await d.game("board", user=BOB)
    comps = rest.last.components
    refused(await choose(d, comps, "activate", ALICE), "League")
    seq = await d.bot.store.last_seq(game.id)
    rest = await play_by_clicks(d, comps, "activate caiazzo", BOB)
    assert await d.bot.store.last_seq(game.id) == seq + 1
    g.apply("league", "activate caiazzo")
    assert (await state(d)).state_hash() == g.state.state_hash()
