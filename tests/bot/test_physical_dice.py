"""Physical dice (bot/physical_dice.py) through the slash commands: a game created with
`/game new dice:physical`, the bot asking the roller which dice to roll and for what, `/dice`
entering them (Battle Cry battle dice by face name or number, TACW d10 0-9 as printed), the
command adjudicated as usual and logged with the dice as entered; replays stay exact."""
from __future__ import annotations

import pytest

from bot import physical_dice
from bot.service import GameService
from engine.core.errors import Illegal
from tests.bot.conftest import SEED, start_bot
from tests.bot.harness import ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, Driver, public, refused
from tests.engine.tacw_helpers import Position, scenario_text


async def physical_bc(d: Driver):
    rest = await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union",
                        seed=SEED, dice="physical")
    assert not rest.last.ephemeral and "/dice" in rest.last.content, rest.last.content
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"})):
        rest = await d.cmd("bc", sub=name, user=ALICE, **opts)
        assert not rest.last.ephemeral, rest.last.content
    return await d.bot.store.active_game(d.channel_id)


async def test_game_new_stores_the_dice_mode_and_refuses_an_unknown_one(d):
    rest = await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", dice="loaded")
    refused(rest, "seeded", "physical")
    assert await d.bot.store.active_game(d.channel_id) is None          # nothing stored
    rest = await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish")
    assert "Physical dice" not in public(rest)
    row = await d.bot.store.active_game(d.channel_id)
    assert physical_dice.DICE_OPTION not in row.options and physical_dice.mode_of(row.options) == "seeded"
    assert "Herald rolls" in (await d.cmd("dice", user=ALICE)).last.content
    refused(await d.cmd("dice", user=ALICE, results="5"), "/game new dice:physical")
    await d.game("abandon", user=ALICE)
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", dice="physical")
    row = await d.bot.store.active_game(d.channel_id)
    assert row.options[physical_dice.DICE_OPTION] == "physical"


async def test_a_battle_asks_for_battle_dice_and_is_logged_as_entered(d):
    game = await physical_bc(d)
    # ui2 with its General battles ci2: 4 dice + 1 for the General (BC §4.4, §4.7)
    ask = public(await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604"))
    assert f"<@{ALICE}>" in ask and "roll **5 battle dice**" in ask and "battle die 1 of 5" in ask
    assert "flag (f, 5)" in ask and "`/dice results:" in ask
    assert await d.bot.store.last_seq(game.id) == 3                   # nothing recorded yet

    # the game waits for those dice: other commands, other players, are refused
    refused(await d.cmd("bc", sub="end", user=ALICE), "waiting for Union's dice", "battle die 1 of 5")
    refused(await d.cmd("dice", user=BOB, results="flag"), "Union's to roll")
    refused(await d.cmd("dice", user=CAROL, results="flag"), "not a player")

    # part of the roll: Herald asks for the rest
    ask = public(await d.cmd("dice", user=ALICE, results="flag, 1 i"))
    assert "roll **2 battle dice**" in ask and "battle die 4 of 5" in ask
    assert "entered so far: 🚩 flag, 🪖 infantry (1), 🪖 infantry" in ask
    status = (await d.cmd("dice", user=BOB)).last
    assert status.ephemeral and "battle die 4 of 5" in status.content

    # a face no battle die has, or one result too many: refused, nothing kept
    refused(await d.cmd("dice", user=ALICE, results="cavalry 7"), "'7' is not a face of a battle die", "BC §4.4")
    refused(await d.cmd("dice", user=ALICE, results="cav art sabres"),
            "Herald asked for 2 battle dice (battle die 4 of 5) and 3 results were entered", "nothing is recorded")
    assert await d.bot.store.last_seq(game.id) == 3

    rest = await d.cmd("dice", user=ALICE, results="🐎 a")
    text = public(rest)
    assert text.startswith("🎲 Union rolled at the table and entered: 🚩 flag, 🪖 infantry (1), 🪖 infantry, "
                           "🐎 cavalry, 💣 artillery")
    assert "2 hits, 1 flag" in text and "ci2 loses 2 figures" in text
    assert [name for name, _ in rest.last.files] == ["board.png"]
    assert len(rest.last.custom_ids) == 2 and all(c.startswith("herald:retreat:") for c in rest.last.custom_ids)

    rows = await d.bot.store.commands(game.id)
    assert rows[-1].seq == 4 and rows[-1].text == "battle ui2 0604 dice=5,1,1,3,4" and rows[-1].user_id == ALICE
    assert rows[-1].events[0]["kind"] == "dice" and rows[-1].events[0]["inputs"]["faces"] == [5, 1, 1, 3, 4]
    assert [r["face"] for r in rows[-1].dice] == ["flag", "infantry", "infantry", "cavalry", "artillery"]
    log = (await d.game("log", user=CAROL, count=3)).last.content
    assert "#4 🎲 Union rolled at the table and entered: 🚩 flag" in log and "#4 ui2 (infantry) battles" in log
    assert (await d.bot.service.load(d.channel_id)).state.pieces["ci2"].figures == 2
    assert await d.bot.service.verify(await d.bot.store.get_game(game.id))   # replays from the log


async def test_the_waiting_command_survives_a_restart(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    d1 = Driver(bot1)
    game = await physical_bc(d1)
    assert "roll **5 battle dice**" in public(await d1.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604"))
    await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        d2 = Driver(bot2)
        assert "battle die 1 of 5" in (await d2.cmd("dice", user=ALICE)).last.content
        text = public(await d2.cmd("dice", user=ALICE, results="1 2 3 4 6"))      # numbers work too
        assert "entered: 🪖 infantry (1), 🪖 infantry (2), 🐎 cavalry (3), 💣 artillery (4), ⚔️ sabres (6)" in text
        assert (await bot2.store.commands(game.id))[-1].text == "battle ui2 0604 dice=1,2,3,4,6"
    finally:
        await bot2.close()


async def test_cancel_by_the_roller_before_rolling_or_by_the_opponent(d):
    game = await physical_bc(d)
    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")
    text = public(await d.cmd("dice", user=ALICE, results="cancel"))
    assert "withdrawn by its player" in text and "nothing happened" in text
    refused(await d.cmd("dice", user=ALICE, results="cancel"), "no command is waiting")
    refused(await d.cmd("dice", user=ALICE, results="flag"), "no dice are awaited")

    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")
    public(await d.cmd("dice", user=ALICE, results="sabres"))
    refused(await d.cmd("dice", user=ALICE, results="cancel"), "the roll stands")   # already rolling
    assert "cancelled by Confederate" in public(await d.cmd("dice", user=BOB, results="cancel"))
    assert await d.bot.store.last_seq(game.id) == 3
    # the game goes on from where it stood, and the results may also come with the command
    text = public(await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice="1,2,3,4,6"))
    assert "entered: 🪖 infantry (1)" in text and "ci2 loses 3 figures" in text


async def test_a_player_may_resign_while_dice_are_awaited(d):
    game = await physical_bc(d)
    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")
    assert "Confederate resigns" in public(await d.game("resign", user=BOB))
    assert (await d.bot.store.get_game(game.id)).status == "over"
    refused(await d.cmd("dice", user=ALICE, results="flag"), "no game")


def test_how_the_dice_read():
    battle, d10 = physical_dice.BattleDie(), physical_dice.TenSidedDie()
    assert [battle.read(t) for t in ("1", "2", "i", "INF", "cav", "c", "a", "art", "f", "flag", "🚩",
                                       "s", "sabres", "⚔", "6")] == [1, 2, 1, 1, 3, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6]
    for bad in ("0", "7", "x", "-1"):
        with pytest.raises(Illegal, match="not a face of a battle die"):
            battle.read(bad)
    assert [d10.read(t) for t in ("0", "1", "9")] == [1, 2, 10]           # as printed -> 1-based faces
    assert d10.face_text(1) == "0" and d10.face_text(10) == "9"
    for bad in ("10", "-1", "x"):
        with pytest.raises(Illegal, match="0-9"):
            d10.read(bad)
    assert physical_dice.count_of("battle die 2 of 5") == 4 and physical_dice.count_of("morale check") == 1
    # a later ruleset with plain numbered dice needs nothing of its own
    plain = physical_dice.profile_of(type("Later", (), {"id": "lion"})()).die(12)
    assert plain.read("12") == 12 and plain.name == "d12"
    with pytest.raises(Illegal):
        plain.read("13")


# -- TACW: a d10 read 0-9, and a close combat that stops for the defender's retreat choice ------
UNITS = [("r1", "royalist", "r-a", "cavalry", ["0705"], "W", {"strength": 4, "morale": 8}),
         ("p1", "parliament", "p-a", "light", ["0605"], "E", {"strength": 3, "morale": 4})]


async def test_tacw_close_combat_with_a_retreat_choice(d, monkeypatch):
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))   # speed: no boards
    service = d.bot.service
    g = await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "t", 3, side="royalist",
                               scenario_text=scenario_text(UNITS))
    await physical_dice.set_mode(service, g.row.id, "physical")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    for user, line in ((BOB, "policy retreat ask"), (ALICE, "activate r-a"), (ALICE, "close"),
                       (ALICE, "attack r1 0605")):
        public(await d.cmd("act", user=user, line=line))
    ask = public(await d.cmd("act", user=ALICE, line="resolve"))
    assert "roll **1 d10** for `resolve`: close combat, r1 against p1" in ask and "0-9 (0 is zero" in ask
    refused(await d.cmd("dice", user=ALICE, results="10"), "0-9", "TACW")

    # a 0 as printed (the engine's face 1): the defender breaks; Parliament chooses where it goes
    text = public(await d.cmd("dice", user=ALICE, results="0"))
    assert text.startswith("🎲 Royalist rolled at the table and entered: 0")
    assert (await d.bot.store.commands(g.row.id))[-1].text == "resolve dice=1"
    st = (await service.load(CHANNEL_ID)).state
    first = st.pending["options"][-1]
    # the answer replays the whole resolution: it brings the 0 again by itself, asks nothing
    public(await d.cmd("act", user=BOB, line=f"retreat {first}"))
    assert (await d.bot.store.commands(g.row.id))[-1].text == f"retreat {first} dice=1"
    st = (await service.load(CHANNEL_ID)).state
    second = st.pending["options"][-1]
    # the second answer lets the resolution go on: a leader loss roll per leader in the fight
    # (§10.8), each asked of the leader's own side, inside Parliament's `retreat`
    text = public(await d.cmd("act", user=BOB, line=f"retreat {second}"))
    assert "leader loss" in text
    entered, shown, askers = [], [], []
    for printed in "4", "9", "2", "7":
        who = ALICE if f"<@{ALICE}> (Royalist)" in text else BOB
        assert f"<@{who}>" in text and "roll **1 d10** for" in text, text
        askers.append(who)
        other = BOB if who == ALICE else ALICE
        refused(await d.cmd("dice", user=other, results=printed), "to roll")
        text = public(await d.cmd("dice", user=who, results=printed))
        entered.append(printed)
        shown.append(printed + (" (Royalist)" if who == ALICE else ""))
        if "roll **" not in text:
            break
    assert ALICE in askers and BOB in askers            # both sides' leaders rolled, each by its side
    assert text.startswith(f"🎲 Parliament rolled at the table and entered: {', '.join(shown)}")
    rows = await d.bot.store.commands(g.row.id)
    assert (rows[-1].side, rows[-1].user_id) == ("parliament", BOB)     # still Bob's command
    faces = ",".join(str(int(p) + 1) for p in entered)
    assert rows[-1].text == f"retreat {second} dice=1,{faces}"
    assert [r["result"] for r in rows[-1].dice][-len(entered):] == [int(p) for p in entered]   # as entered

    # the same game through the engine with the same dice: the same state
    p = Position(UNITS, seed=3)
    p.go("parliament", "policy retreat ask")
    for line in ("activate r-a", "close", "attack r1 0605", "resolve dice=1"):
        p.go("royalist", line)
    p.go("parliament", f"retreat {first} dice=1")
    p.go("parliament", f"retreat {second} dice=1,{faces}")
    loaded = await service.load(CHANNEL_ID)
    assert loaded.state.state_hash() == p.st.state_hash()
    assert await service.verify(loaded.row)


async def test_face_names_as_players_say_them_and_the_draws_stay_seeded(d):
    """Any case, singular or plural; the card drawn after a battle with entered dice is the one
    Herald's seeded stream deals in a game where Herald rolled the same faces."""
    await physical_bc(d)
    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")
    text = public(await d.cmd("dice", user=ALICE, results="Sabre, INFANTRY; cav Artillery swords"))
    assert "entered: ⚔️ sabres, 🪖 infantry, 🐎 cavalry, 💣 artillery, ⚔️ sabres" in text
    await d.cmd("bc", sub="retreat", user=BOB, hex="0603")
    public(await d.cmd("bc", sub="end", user=ALICE))
    physical = (await d.bot.service.load(d.channel_id)).state
    await d.game("abandon", user=ALICE)

    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"}),
                       ("battle", {"unit": "ui2", "target": "0604", "dice": "6,1,3,4,6"})):
        public(await d.cmd("bc", sub=name, user=ALICE, **opts))
    await d.cmd("bc", sub="retreat", user=BOB, hex="0603")
    public(await d.cmd("bc", sub="end", user=ALICE))
    seeded = (await d.bot.service.load(d.channel_id)).state
    assert physical.hands == seeded.hands and physical.deck == seeded.deck and physical.draws == seeded.draws


async def test_dice_wait_while_the_referee_has_paused_the_game(d):
    game = await physical_bc(d)
    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")
    referee = {"user": CAROL, "perms": ADMIN_PERMS}
    public(await d.cmd("referee", sub="pause", reason="tea", **referee))
    refused(await d.cmd("dice", user=ALICE, results="flag"), "paused by the referee")
    refused(await d.cmd("dice", user=BOB, results="cancel"), "paused by the referee")
    public(await d.cmd("referee", sub="resume", **referee))
    assert "battle die 1 of 5" in (await d.cmd("dice", user=ALICE)).last.content      # still waiting
    assert await d.bot.store.last_seq(game.id) == 3


FIRE_UNITS = [("r1", "royalist", "r-a", "heavy", ["0705"], "W", {"strength": 4, "morale": 7}),
              ("p1", "parliament", "p-a", "heavy", ["0605"], "E", {"strength": 4, "morale": 7})]


async def test_tacw_fire_asks_each_d10_in_turn_read_0_to_9(d, monkeypatch):
    """Royalist r1 fires at p1, which fires back in reaction; then the leader loss rolls for the
    two Royalist leaders under that fire (TACW §9.5, §9.11): one d10 asked at a time, by name."""
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))
    service = d.bot.service
    g = await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "t", 3, side="royalist",
                               scenario_text=scenario_text(FIRE_UNITS, orders={"r-a": "make_ready",
                                                                               "p-a": "make_ready"}))
    await physical_dice.set_mode(service, g.row.id, "physical")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    public(await d.cmd("act", user=ALICE, line="activate r-a"))
    ask = public(await d.cmd("tacw", sub="actions fire", user=ALICE, unit="r1", target="0605"))
    assert f"<@{ALICE}> (Royalist), roll **1 d10** for `fire`: fire, r1 at p1." in ask
    assert "0-9 (0 is zero, not ten)" in ask and "Enter it with" in ask
    refused(await d.cmd("dice", user=ALICE, results="10"), "'10' is not a face of a d10", "0-9")
    refused(await d.cmd("dice", user=ALICE, results="0 5"), "asked for 1 d10 (fire, r1 at p1)",
            "2 results were entered")
    refused(await d.cmd("dice", user=BOB, results="5"), "Royalist's to roll")
    refused(await d.cmd("dice", user=CAROL, results="5"), "not a player")
    assert await d.bot.store.last_seq(g.row.id) == 1

    # p1's reaction fire is Parliament's die: Bob is asked for it, inside Royalist's `fire`
    ask = public(await d.cmd("dice", user=ALICE, results="0"))
    assert f"🎲 <@{BOB}> (Parliament), roll **1 d10** for Royalist's `fire`: fire, p1 at r1 (entered so far: 0)" in ask
    refused(await d.cmd("dice", user=ALICE, results="5"), "Parliament's to roll", f"<@{BOB}>", "fire, p1 at r1")
    # the Royalist leaders' loss rolls are Royalist dice again
    ask = public(await d.cmd("dice", user=BOB, results="5"))
    assert f"<@{ALICE}> (Royalist)" in ask and "leader loss, r-ac (entered so far: 0, 5 (Parliament))" in ask
    refused(await d.cmd("dice", user=BOB, results="0"), "Royalist's to roll")
    assert "leader loss, r-wc" in public(await d.cmd("dice", user=ALICE, results="0"))
    text = public(await d.cmd("dice", user=ALICE, results="7"))
    assert text.startswith("🎲 Royalist rolled at the table and entered: 0, 5 (Parliament), 0, 7")
    assert "fires at p1 (0605): 0 = 0 -> Miss" in text and "fires in reaction at r1 (0705): 5 = 5 -> 1 hit" in text
    [row] = (await d.bot.store.commands(g.row.id))[-1:]
    assert row.text == "fire r1 0605 dice=1,6,1,8" and [r["result"] for r in row.dice] == [0, 5, 0, 7]
    loaded = await service.load(CHANNEL_ID)
    assert await service.verify(loaded.row)
    refused(await d.cmd("undo", user=ALICE), "#2 rolled dice", "never taken back")
