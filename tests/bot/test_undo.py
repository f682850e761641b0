"""Undo with consent (bot/undo.py) through the slash commands and its buttons: a player asks to
take back their last action, the opponent accepts or refuses with a button (which survives a
restart); never after a die or a card; refused automatically once anything new happens. The
command stays in the log, marked, and every replay skips it."""
from __future__ import annotations

from bot import undo
from bot.service import GameService
from tests.bot.conftest import SEED, UNION_HAND, start_bot
from tests.bot.harness import ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, Driver, public, refused
from tests.engine.tacw_helpers import Position, scenario_text

NO_FLAG_DICE = "1,2,3,4,6"
TACW_UNITS = [("r1", "royalist", "r-a", "cavalry", ["0705"], "W", {"strength": 4, "morale": 8}),
              ("p1", "parliament", "p-a", "light", ["0605"], "E", {"strength": 3, "morale": 4})]


async def opening(d: Driver, *, dice: str | None = None):
    """Alice (Union) plays Attack Centre, orders ui2 and moves it to 0605 (commands #1-#3)."""
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED,
                 dice=dice)
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"})):
        assert not (await d.cmd("bc", sub=name, user=ALICE, **opts)).last.ephemeral
    return await d.bot.store.active_game(d.channel_id)


async def ask(d: Driver, game, at: int):
    rest = await d.cmd("undo", user=ALICE)
    msg = rest.last
    assert not msg.ephemeral and msg.custom_ids == [f"herald:undo:{game.id}:{at}:yes", f"herald:undo:{game.id}:{at}:no"]
    return msg


async def state(d: Driver):
    return (await d.bot.service.load(d.channel_id)).state


async def test_accepted_undo_takes_the_move_back_and_keeps_it_in_the_log(d):
    game = await opening(d)
    msg = await ask(d, game, 3)
    assert f"<@{ALICE}> (Union) asks to take back #3: ui2 (infantry) moves 0606 -> 0605" in msg.content
    assert f"<@{BOB}>, do you agree?" in msg.content and msg.data["allowed_mentions"]["users"] == [BOB]
    refused(await d.cmd("undo", user=ALICE), "already waiting")

    refused(await d.click(msg.custom_ids[0], msg.components, user=CAROL), "only a player")
    refused(await d.click(msg.custom_ids[0], msg.components, user=ALICE), "your opponent must agree")
    assert (await state(d)).pieces["ui2"].hex == "0605"

    rest = await d.click(msg.custom_ids[0], msg.components, user=BOB)
    assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []     # buttons off
    text = public(rest)
    assert text.startswith("↩️ Union takes back #3 (ui2 (infantry) moves 0606 -> 0605")
    assert f"with Confederate's consent (<@{BOB}>)" in text and "**Union** to act" in text
    assert [name for name, _ in rest.last.files] == ["board.png"]
    st = await state(d)
    assert st.pieces["ui2"].hex == "0606" and st.pieces["ug1"].hex == "0606"

    # the log keeps it, marked; the record of the undo follows it; replays skip both
    store = d.bot.store
    assert [c.seq for c in await store.commands(game.id)] == [1, 2]
    rows = await store.commands(game.id, undone=True)
    assert [(c.seq, c.text, c.undone_by) for c in rows[2:]] == [(3, "move ui2 0605", ALICE), (4, "undo 3", BOB)]
    assert rows[2].undone_at and rows[3].undone_at and rows[3].user_id == ALICE
    assert (await store.latest_snapshot(game.id))[0] == 4
    assert await store.snapshot_before(game.id, 4) == await store.snapshot_before(game.id, 3)  # #3's is gone
    assert await d.bot.service.verify(await store.get_game(game.id))
    log = (await d.game("log", user=CAROL)).last.content
    assert "~~#3 ui2 (infantry) moves 0606 -> 0605" in log and "(taken back)" in log
    assert "\n#4 ↩️ Union takes back #3" in log

    # the game goes on: the next command is #5; a button built before the undo is out of date
    refused(await d.click(msg.custom_ids[0], msg.components, user=BOB), "refused automatically")
    retreat = f"herald:retreat:{game.id}:3:0604"
    row = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Retreat", "custom_id": retreat}]}]
    refused(await d.click(retreat, row, user=BOB), "out of date")
    assert "moves 0606 -> 0605" in public(await d.cmd("bc", sub="move", user=ALICE, unit="ui2", to="0605"))
    assert [c.seq for c in await store.commands(game.id)] == [1, 2, 5]
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.seq == 5 and await d.bot.service.verify(loaded.row)
    assert (await d.bot.service.replay_state(loaded.row)).state_hash() == loaded.state.state_hash()


async def test_refused_or_withdrawn_the_action_stands(d):
    game = await opening(d)
    msg = await ask(d, game, 3)
    rest = await d.click(msg.custom_ids[1], msg.components, user=BOB)
    assert rest.calls[0].type == 7 and "Confederate" in public(rest) and "#3 stands" in rest.last.content
    assert (await state(d)).pieces["ui2"].hex == "0605" and await d.bot.store.last_seq(game.id) == 3
    refused(await d.click(msg.custom_ids[0], msg.components, user=BOB), "no longer open")

    msg = await ask(d, game, 3)                                   # asked again, then withdrawn
    assert "withdraws" in public(await d.click(msg.custom_ids[1], msg.components, user=ALICE))
    assert undo.REQUEST not in (await d.bot.store.get_game(game.id)).options


async def test_never_after_a_die_or_a_card_and_only_your_own_last_action(d):
    refused(await d.cmd("undo", user=ALICE), "no game")
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    await d.game("join", user=BOB, side="confederate")
    refused(await d.cmd("undo", user=ALICE), "in progress")
    await d.game("start", user=ALICE)
    refused(await d.cmd("undo", user=ALICE), "nothing has been played")
    for name, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"})):
        await d.cmd("bc", sub=name, user=ALICE, **opts)
    refused(await d.cmd("undo", user=BOB), "the last action (#3) is Union's")
    refused(await d.cmd("undo", user=CAROL), "only a player")
    await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice=NO_FLAG_DICE)
    refused(await d.cmd("undo", user=ALICE), "#4 rolled dice", "never taken back")
    await d.cmd("bc", sub="end", user=ALICE)                                # draws a card
    refused(await d.cmd("undo", user=ALICE), "#5 revealed hidden information")
    game = await d.bot.store.active_game(d.channel_id)
    assert [c.undone_at for c in await d.bot.store.commands(game.id, undone=True)] == [None] * 5


async def test_a_card_played_may_be_taken_back(d):
    """The card was the asker's own to show: nothing new was learnt (bot/undo.py)."""
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    await d.cmd("bc", sub="play", user=ALICE, card="sharp-shooter")
    game = await d.bot.store.active_game(d.channel_id)
    msg = await ask(d, game, 1)
    assert "Union plays Sharp Shooter" in msg.content
    await d.click(msg.custom_ids[0], msg.components, user=BOB)
    st = await state(d)
    assert st.hands["union"] == UNION_HAND and st.current.card is None


async def test_refused_automatically_by_a_later_command(d):
    game = await opening(d)
    msg = await ask(d, game, 3)
    assert "Union orders" not in public(await d.cmd("bc", sub="end", user=ALICE))   # new information: a card drawn
    rest = await d.click(msg.custom_ids[0], msg.components, user=BOB)
    assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []
    refused(rest, "refused automatically", "new information")
    assert undo.REQUEST not in (await d.bot.store.get_game(game.id)).options
    assert (await state(d)).pieces["ui2"].hex == "0605"


async def test_the_buttons_survive_a_restart(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    game = await opening(Driver(bot1))
    msg = await ask(Driver(bot1), game, 3)
    await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        rest = await Driver(bot2).click(msg.custom_ids[0], msg.components, user=BOB)
        assert "Union takes back #3" in public(rest)
        assert (await bot2.service.load(CHANNEL_ID)).state.pieces["ui2"].hex == "0606"
    finally:
        await bot2.close()


async def test_one_at_a_time_back_to_the_order(d):
    game = await opening(d)
    msg = await ask(d, game, 3)
    await d.click(msg.custom_ids[0], msg.components, user=BOB)
    msg = await ask(d, game, 4)                                    # #2 is now Alice's last action
    assert "take back #2: Union orders ui2" in msg.content
    await d.click(msg.custom_ids[0], msg.components, user=BOB)
    loaded = await d.bot.service.load(d.channel_id)
    assert loaded.seq == 5 and [c.seq for c in await d.bot.store.commands(game.id)] == [1]
    assert loaded.state.current.ordered == [] and loaded.state.current.card == "attack-centre"
    assert (await d.bot.store.latest_snapshot(game.id))[0] == 5
    assert await d.bot.store.snapshot_before(game.id, 5) == await d.bot.store.snapshot_before(game.id, 2)
    assert await d.bot.service.verify(loaded.row)
    assert "Union orders ui2" in public(await d.cmd("bc", sub="order", user=ALICE, units="ui2"))


async def test_a_request_for_dice_ends_the_request(d):
    game = await opening(d, dice="physical")
    msg = await ask(d, game, 3)
    assert "roll **5 battle dice**" in public(await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604"))
    refused(await d.click(msg.custom_ids[0], msg.components, user=BOB), "no longer open")
    refused(await d.cmd("undo", user=ALICE), "waiting for dice")
    assert (await state(d)).pieces["ui2"].hex == "0605"


async def test_tacw_activation_taken_back(d, monkeypatch):
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))   # speed: no boards
    units = TACW_UNITS
    service = d.bot.service
    g = await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "t", 3, side="royalist",
                               scenario_text=scenario_text(units))
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    before = (await state(d)).state_hash()
    assert "Royalist activates r-a" in public(await d.cmd("act", user=ALICE, line="activate r-a"))
    msg = await ask(d, g.row, 1)
    assert "Royalist activates r-a" in msg.content
    assert "Royalist takes back #1" in public(await d.click(msg.custom_ids[0], msg.components, user=BOB))
    st = await state(d)
    assert st.activation is None and st.state_hash() == before == Position(units, seed=3).st.state_hash()
    # a die rolled: never taken back (the order change roll, TACW §5.7)
    public(await d.cmd("act", user=ALICE, line="activate r-a"))
    public(await d.cmd("act", user=ALICE, line="change make_ready dice=1"))
    refused(await d.cmd("undo", user=ALICE), "#4 rolled dice")
    assert await service.verify(await d.bot.store.get_game(g.row.id))


async def test_tacw_a_roll_hidden_in_a_stopped_resolution_is_never_taken_back(d, monkeypatch):
    """With seed 5 the close combat roll breaks the defender, who chooses where to retreat: the
    resolution stops (HERALD D93) and its events hold no die, but it rolled one, and the choice
    tells the result: taking it back would let the attacker know his next roll."""
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))
    service = d.bot.service
    g = await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "t", 5, side="royalist",
                               scenario_text=scenario_text(TACW_UNITS))
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    for user, line in ((BOB, "policy retreat ask"), (ALICE, "activate r-a"), (ALICE, "close"),
                       (ALICE, "attack r1 0605"), (ALICE, "resolve")):
        public(await d.cmd("act", user=user, line=line))
    last = (await d.bot.store.commands(g.row.id))[-1]
    assert last.text == "resolve" and last.dice == [] and (await state(d)).pending["kind"] == "retreat"
    refused(await d.cmd("undo", user=ALICE), "#5 rolled dice")


# -- the referee, partners, lapses posted, secrets ------------------------------------------------
DAVE = 500000000000000004          # shares the Union side with Alice (/seat join-side)


class FakeChannel:
    """What undo.sweep sees of the channel: partial messages to edit (and the status message)."""

    def __init__(self):
        self.edits: list[tuple[int, dict]] = []

    async def send(self, content=None, **kw):
        from types import SimpleNamespace
        return SimpleNamespace(id=770000000000000000)

    def get_partial_message(self, mid):
        channel = self

        class Partial:
            async def edit(self, **kw):
                channel.edits.append((mid, kw))
        return Partial()


async def settle(until=None) -> None:
    """Let the listeners dispatched after a slash command run (client.dispatch makes tasks):
    until `until()` holds, or for a while."""
    import asyncio
    for _ in range(100 if until else 20):
        if until is not None and until():
            return
        await asyncio.sleep(0.01)


async def test_no_undo_while_the_referee_has_paused_the_game(d):
    game = await opening(d)
    referee = {"user": CAROL, "perms": ADMIN_PERMS}                 # an administrator who does not play
    public(await d.cmd("referee", sub="pause", reason="a question on the rules", **referee))
    refused(await d.cmd("undo", user=ALICE), "taking an action back waits", "paused by the referee",
            "a question on the rules")
    assert undo.REQUEST not in (await d.bot.store.get_game(game.id)).options
    public(await d.cmd("referee", sub="resume", **referee))
    msg = await ask(d, game, 3)
    public(await d.cmd("referee", sub="pause", **referee))          # paused while the request waits
    refused(await d.click(msg.custom_ids[0], msg.components, user=BOB), "paused by the referee")
    assert (await state(d)).pieces["ui2"].hex == "0605" and await d.bot.store.last_seq(game.id) == 3
    public(await d.cmd("referee", sub="resume", **referee))          # the request is still open
    assert "Union takes back #3" in public(await d.click(msg.custom_ids[0], msg.components, user=BOB))
    assert (await state(d)).pieces["ui2"].hex == "0606"


async def test_a_referee_correction_or_a_partners_action_is_never_taken_back(d, monkeypatch):
    ch = FakeChannel()
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: ch if cid == CHANNEL_ID else None)
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    await d.game("join", user=BOB, side="confederate")
    await d.game("start", user=ALICE)
    game = await d.bot.store.active_game(d.channel_id)
    public(await d.cmd("seat", sub="join-side", user=DAVE, side="union"))   # Dave shares Union with Alice
    public(await d.cmd("bc", sub="play", user=ALICE, card="attack-centre"))
    public(await d.cmd("bc", sub="order", user=ALICE, units="ui2"))
    public(await d.cmd("bc", sub="move", user=DAVE, unit="ui2", to="0605"))
    # Alice may not take back her partner's move; Dave may, with the other side's consent
    refused(await d.cmd("undo", user=ALICE), f"#3) was given by <@{DAVE}>", "only their own")
    rest = await d.cmd("undo", user=DAVE)
    assert "asks to take back #3" in public(rest) and rest.last.data["allowed_mentions"]["users"] == [BOB]
    msg = rest.last
    refused(await d.click(msg.custom_ids[0], msg.components, user=ALICE), "opponent must agree")

    rest = await d.cmd("referee", sub="correct", user=CAROL, perms=ADMIN_PERMS,
                       changes="pieces.ci2.figures=3", reason="a figure was lost in the post")
    assert "Referee correction" in public(rest)
    # the correction is new information: the request's message loses its buttons at once
    await settle(lambda: any(mid != 770000000000000000 for mid, _ in ch.edits))
    [(mid, kw)] = [(m, k) for m, k in ch.edits if m != 770000000000000000]
    assert kw["view"] is None and "request to take back #3 was refused automatically" in kw["content"]
    assert undo.REQUEST not in (await d.bot.store.get_game(game.id)).options
    refused(await d.click(msg.custom_ids[0], msg.components, user=BOB), "refused automatically")
    for user in (ALICE, DAVE):
        refused(await d.cmd("undo", user=user), "#4) is a referee's correction", "only the referee")
    st = await state(d)
    assert st.pieces["ci2"].figures == 3 and st.pieces["ui2"].hex == "0605"
    assert [c.undone_at for c in await d.bot.store.commands(game.id, undone=True)] == [None] * 4


async def test_a_request_lapsed_by_dice_asked_for_loses_its_buttons(d, monkeypatch):
    ch = FakeChannel()
    monkeypatch.setattr(d.bot, "get_channel", lambda cid: ch if cid == CHANNEL_ID else None)
    game = await opening(d, dice="physical")
    msg = await ask(d, game, 3)
    await settle()
    assert not [m for m, _ in ch.edits if m != 770000000000000000]    # the /undo itself lapses nothing
    assert "roll **5 battle dice**" in public(await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604"))
    await settle(lambda: any(m != 770000000000000000 for m, _ in ch.edits))
    [(_, kw)] = [(m, k) for m, k in ch.edits if m != 770000000000000000]
    assert kw["view"] is None and "refused automatically" in kw["content"] and "The action stands" in kw["content"]
    options = (await d.bot.store.get_game(game.id)).options
    assert undo.REQUEST not in options and undo.MESSAGE not in options


async def test_a_secret_boat_bridge_recorded_or_revealed_is_never_taken_back(d, monkeypatch):
    """TACW Second Newbury special rule 5: Parliament records its boat bridge in secret; a unit
    crossing on it places it on the map for both sides."""
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "second-newbury", 7, side="parliament")
    await service.join(CHANNEL_ID, BOB, "royalist")
    await service.start(CHANNEL_ID, ALICE)
    secret = (await d.cmd("act", user=ALICE, line="boatbridge 3338")).last     # a secret: only its giver sees it
    assert secret.ephemeral and "3338" in secret.content
    text = refused(await d.cmd("undo", user=ALICE), "#1 concerns hidden information", "never taken back")
    assert "3338" not in text
    public(await d.cmd("act", user=BOB, line="deploy done"))
    public(await d.cmd("act", user=ALICE, line="deploy done"))
    public(await d.cmd("act", user=ALICE, line="activate p-manchester"))
    assert "asks to take back #4" in public(await d.cmd("undo", user=ALICE))    # nothing secret in it
    assert "placed on the map at 3338" in public(
        await d.cmd("act", user=ALICE, line="move p-thorpe 3340 3339 3338 face ne 3437"))
    refused(await d.cmd("undo", user=ALICE), "#5 concerns hidden information", "boat bridge is placed")


async def test_a_request_lapsed_before_a_restart_is_refused_after_it(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    game = await opening(Driver(bot1))
    msg = await ask(Driver(bot1), game, 3)
    public(await Driver(bot1).cmd("bc", sub="end", user=ALICE))              # a card drawn: new information
    await bot1.close()
    bot2 = await start_bot(db_path)
    try:
        rest = await Driver(bot2).click(msg.custom_ids[0], msg.components, user=BOB)
        assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []     # buttons off
        refused(rest, "refused automatically", "new information")
        assert (await bot2.service.load(CHANNEL_ID)).state.pieces["ui2"].hex == "0605"
    finally:
        await bot2.close()
