"""A club plays Breitenfeld (Lion of the North, issue 15) on Discord as it plays the other rulesets:
through the real command tree and mocked interactions (tests/bot/harness.py). Alice commands the
Swedes, Bob the Imperials; the positions are reached by the lines of test_lion_bot.py through the
service, then the moment under test through the tree: a decision asked with buttons and answered
once (the first sunset [15] 2, which both players must agree to ignore), stale and other players'
clicks refused, a deadline's default answer given once; physical dice with the right die for each
troop type (HERALD D9: a d3 is a d6 halved); export then import; a campaign of two battles scored
by the ruleset's campaign_score; resignation."""
from __future__ import annotations

from datetime import timedelta

import pytest

from engine.core.dice import DiceStream
from engine.core.errors import DiceNeeded
from tests.bot.harness import ALICE, BOB, CAROL, Driver, public, refused
from tests.bot.test_jdg_club import answers_of, asked, click_answer
from tests.bot.test_lion_bot import OPENING, USERS, breitenfeld, mirror, state, with_lion

SUNSET_SEED = 19        # the end card's random event on turn 1 is the first sunset [15] 2


@pytest.fixture
def lion(bot):
    return with_lion(bot)


def until_pending(g, kind: str) -> list[tuple[str, str]]:
    """`next` by whoever acts until a decision of `kind` waits (each card passes untouched)."""
    lines = []
    while not (g.state.pending and g.state.pending["kind"] == kind):
        assert len(lines) < 40 and not g.state.pending
        lines.append((g.to_act, "next"))
        g.apply(*lines[-1])
    return lines


async def test_the_first_sunset_asked_of_both_by_buttons(d, lion):
    """[15] 2 "il primo tramonto ... si può ignorare, se entrambi i giocatori sono d'accordo": the
    Swedes are asked by buttons; Bob's and a spectator's clicks refused; Alice's answer applied
    once, the same button then stale; the Imperials are asked in turn and answer by button."""
    g = mirror(seed=SUNSET_SEED)
    *before, trigger = until_pending(g, "sunset")
    await breitenfeld(d, before, seed=SUNSET_SEED)
    rest = await d.cmd("act", user=USERS[trigger[0]], line=trigger[1])
    msg, loaded = await asked(d, rest, "swedish", ALICE, "react ignore|keep")
    assert answers_of(loaded) == ["react ignore", "react keep"]
    assert "sunset" in msg.content
    rest = await click_answer(d, msg, loaded, "react ignore", ALICE, BOB)
    msg, loaded = await asked(d, rest, "imperial", BOB, "react ignore|keep")
    rest = await click_answer(d, msg, loaded, "react ignore", BOB, ALICE)
    st = await state(d)
    assert not st.pending and "sunset_turns" not in st.weather, st.weather
    g.apply("swedish", "react ignore")
    g.apply("imperial", "react ignore")
    assert st.state_hash() == g.state.state_hash()


async def test_a_deadline_answers_the_sunset_with_its_default_once(d, lion):
    """Nobody answers within the game's deadline (/game deadline): Herald answers with the
    decision's default (`keep`: the sunset stands), once, through the same act as a player."""
    from bot.deadlines import expire_due, parse_time
    g = mirror(seed=SUNSET_SEED)
    *before, trigger = until_pending(g, "sunset")
    game = await breitenfeld(d, before, seed=SUNSET_SEED)
    assert not (await d.game("deadline", user=ALICE, hours=2)).last.ephemeral
    rest = await d.cmd("act", user=USERS[trigger[0]], line=trigger[1])
    msg, loaded = await asked(d, rest, "swedish", ALICE, "react ignore|keep")
    default = loaded.ruleset.default_answer(loaded.state)
    assert default == "react keep"
    start = parse_time((await d.bot.store.last_command(game.id)).created_at)
    assert await expire_due(d.bot.service, start + timedelta(minutes=119)) == []
    [result] = await expire_due(d.bot.service, start + timedelta(minutes=121))
    assert (result.text, result.side, result.seq) == (default, "swedish", loaded.seq + 1)
    assert await expire_due(d.bot.service, start + timedelta(hours=50)) == []
    refused(await d.click(msg.custom_ids[0], msg.components, user=ALICE), "no longer open")
    st = await state(d)
    assert not st.pending and st.weather.get("sunset_turns"), st.weather      # the sunset stands
    assert await d.bot.service.verify(await d.bot.store.get_game(game.id))


def physical_apply(g, side: str, line: str, face: int = 2) -> list[tuple[int, str, str]]:
    """`line` applied to the engine's game `g` as a physical-dice game applies it
    (engine.core.dice.PHYSICAL_DICE): each die the stream asks for is given `face` (the first die
    of 12 or more sides: its top face), until the command needs no more; (sides, roller, purpose)
    of each die asked, in order. Hidden draws stay seeded, so the bot's game is this one."""
    from engine.core.dice import PHYSICAL_DICE
    faces, asks = [], []
    while True:
        token = PHYSICAL_DICE.set(True)
        try:
            g.apply(side, line + (f" dice={','.join(map(str, faces))}" if faces else ""))
            return asks
        except DiceNeeded as exc:
            asks.append((exc.sides, exc.roller or side, exc.purpose))
            faces.append(exc.sides if exc.sides >= 12 and len(faces) == 0 else min(face, exc.sides))
        finally:
            PHYSICAL_DICE.reset(token)


async def enter(d, rest, asks, faces, users=None) -> list[tuple[int, str]]:
    """Enter each die as Herald asks for it, by the player it names (`users`: side -> player,
    Breitenfeld's by default); (asker, die) in order."""
    users = users or USERS
    asked_of = []
    for (sides, roller, purpose), face in zip(asks, faces):
        ask = public(rest)
        who = users[roller]
        other = BOB if who == ALICE else ALICE
        assert f"<@{who}> (" in ask and f"roll **1 d{sides}**" in ask, (sides, roller, ask)
        refused(await d.cmd("dice", user=other, results=str(face)), "to roll")
        rest = await d.cmd("dice", user=who, results=str(face))
        asked_of.append((who, f"d{sides}", purpose))
    return rest, asked_of


async def test_physical_dice_ask_each_troop_types_die_then_export_and_import(d, lion, monkeypatch):
    """Physical dice: every die the stream asks for is asked of the side it belongs to, with its
    size: the heavy gun's d12 [Tabella riassuntiva], the end card's d6 [13], the Cpts' die of the
    move card's owner [4 A] (the army's discipline's die); a face the die does not have is refused
    (a d12 has no 13); the game is the engine's in physical mode bit for bit (the hidden card draws
    stay Herald's). Then `/game export` (both players agree) and `/game import` give the same game."""
    from engine.core.game import Game
    from tests.bot.test_history import OTHER_CHANNEL, file_in, import_file
    g = Game.new("lion", "breitenfeld", 1)
    await breitenfeld(d, physical=True)
    seen = []
    todo = OPENING + [("imperial", "shoot imp-guns1 sw-horn1")]       # then `next` by whoever acts
    for _ in range(10):
        side, line = todo.pop(0) if todo else (g.to_act, "next")
        asks = physical_apply(g, side, line)
        faces = [a[0] if a[0] >= 12 and i == 0 else min(2, a[0]) for i, a in enumerate(asks)]
        rest = await d.cmd("act", user=USERS[side], line=line)
        if asks and not seen:
            refused(await d.cmd("dice", user=BOB, results="13"), "not a face of a d12")
        if asks:
            rest, asked_of = await enter(d, rest, asks, faces)
            seen += [(line.split()[0],) + a for a in asked_of]
        assert not rest.last.ephemeral, rest.last.content
        if g.state.pending or g.state.phase == "over":
            break
    assert seen[0][:3] == ("shoot", BOB, "d12"), seen
    assert all(die in ("d4", "d6", "d8", "d10", "d12") for _, _, die, _ in seen), seen
    cpts = [(who, purpose) for _, who, _, purpose in seen if purpose.endswith(" Cpts")]
    assert cpts and all(purpose.startswith(("Swedish" if who == ALICE else "Imperial")) for who, purpose in cpts), cpts
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.state.state_hash() == g.state.state_hash()
    assert await d.bot.service.verify(loaded.row)
    # export (both players agree: the file holds the seed), then import elsewhere
    await d.game("export", user=ALICE)
    data = file_in(await d.game("export", user=BOB))[1]
    there = Driver(d.bot, OTHER_CHANNEL)
    rest = await import_file(there, monkeypatch, data)
    assert "replayed from the seed and verified" in rest.last.content, rest.last.content
    copy = await d.bot.service.load(OTHER_CHANNEL)
    assert copy.state.state_hash() == loaded.state.state_hash()


def test_a_d3_is_asked_as_a_d6_halved():
    """HERALD D9: a d3 is a d6 rolled and halved, rounded up: the engine asks the stream for a d6
    (so a club rolls a d6), names the d3 in the purpose, and reads 5 as 3."""
    from engine.lion import checks
    try:
        checks.roll(DiceStream("s", 0, strict=True), 3, "flank attack 1d3 of sw-hall")
    except DiceNeeded as exc:
        assert exc.sides == 6 and "d3: a d6 halved" in exc.purpose, (exc.sides, exc.purpose)
    else:
        raise AssertionError("a strict stream gave a d3 without asking")
    value, roll = checks.roll(DiceStream("s", 0, supplied=[5], strict=True), 3, "flank attack 1d3 of sw-hall")
    assert (value, roll.die, roll.face) == (3, "d3", "d6 5")
    from bot.physical_dice import profile_of
    from engine.core.game import get_ruleset
    assert profile_of(get_ruleset("lion")).die(6).read("6") == 6


async def test_a_campaign_of_two_battles_and_a_resignation(d, bot, lion):
    """Two Breitenfeld games in a campaign, scored by engine/lion/ruleset.py campaign_score
    ([14], HERALD D57): the Swedes resign the first (4-0 to the Imperials), the Imperials the
    second, with Alice commanding them (4-0 to Bob's Swedes): 4 points each."""
    from bot import campaigns
    from tests.bot.test_campaigns import new_campaign, rows
    public(await new_campaign(d, ALICE, "Saxony 1631", "lion"))
    first = await breitenfeld(d, OPENING)
    public(await d.cmd("campaign", sub="add", user=BOB, campaign="Saxony 1631"))
    assert "resigns" in public(await d.game("resign", user=ALICE))
    service = d.bot.service
    await service.new_game(1, d.channel_id, BOB, "lion", "breitenfeld", 2, side="swedish")
    await service.join(d.channel_id, ALICE, "imperial")
    await service.start(d.channel_id, BOB)
    second = await d.bot.store.active_game(d.channel_id)
    public(await d.cmd("campaign", sub="add", user=ALICE, campaign="Saxony 1631"))
    assert "resigns" in public(await d.cmd("lion", sub="resign", user=ALICE))
    c = await campaigns.find_campaign(bot.store, 222222222222222222, "saxony 1631")
    result = sorted(await rows(bot, c.id))
    assert result == [(first.id, "imperial", BOB, "win", 4), (first.id, "swedish", ALICE, "loss", 0),
                      (second.id, "imperial", ALICE, "loss", 0), (second.id, "swedish", BOB, "win", 4)], result
    standings = public(await d.cmd("campaign", sub="standings", user=CAROL, campaign="Saxony 1631"))
    assert "Saxony 1631" in standings and "campaign points" in standings, standings


def clickable_moves(g, side: str, wanted: int = 2) -> list[str]:
    """Lines the menus build on the current move card, each legal in the engine: a unit the menus
    offer, then the first manoeuvre and distance they offer for it (`advance 22`, `wheel 15 left`)."""
    from bot.menus import Menus
    from engine.core.errors import HeraldError
    lines = []
    for unit in [c.line for c in Menus(g.ruleset, g.scenario, g.state, side).step("move").choices]:
        for how in ("advance", "wheel"):
            step = Menus(g.ruleset, g.scenario, g.state, side).step(f"{unit} {how}")
            for choice in [c.line for c in step.choices]:
                line = choice if how == "advance" else f"{choice} left"
                try:
                    g.apply(side, line)
                except HeraldError:
                    continue
                lines.append(line)
                break
            if len(lines) >= wanted or (lines and lines[-1].startswith(unit + " ")):
                break
        if len(lines) >= wanted:
            return lines
    return lines


async def test_a_move_card_by_clicks_alone(d, lion):
    """[4], [5]: the Swedes' first move card played from the posted board's menus alone: the
    unit, the manoeuvre and the distance each chosen among the menus' offers (a unit's whole or half
    move, a 15-degree wheel [5 A]), sent from the private builder; then `next` by its quick button.
    Bob may not click for the Swedes; the game is the engine's own."""
    from tests.bot.test_jdg_club import play_by_clicks
    from tests.bot.test_menus import choose
    g = mirror()
    assert g.state.card == "move_a" and g.to_act == "swedish"
    game = await breitenfeld(d)
    rest = await d.game("board", user=ALICE)
    comps = rest.last.components
    refused(await choose(d, comps, "move", BOB), "waits on Swedish")
    lines = clickable_moves(g, "swedish")
    assert len(lines) == 2, lines
    for line in lines:
        seq = await d.bot.store.last_seq(game.id)
        rest = await play_by_clicks(d, comps, line, ALICE)
        assert await d.bot.store.last_seq(game.id) == seq + 1, line
        comps = rest.last.components
    rest = await play_by_clicks(d, comps, "next", ALICE)
    g.apply("swedish", "next")
    st = await state(d)
    assert st.state_hash() == g.state.state_hash()
    assert all(st.units[line.split()[1]].moved for line in lines)      # one move a card each (D8)
