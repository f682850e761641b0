"""A turn played from a phone (issue 12): after each posted action the player the game waits on gets
select menus and buttons for the legal next actions, built from the ruleset's declared verbs and
its completions (bot/menus.py, bot/views.py). A whole Battle Cry turn and a whole TACW activation
are played here by clicks alone; stale clicks, other players' clicks and clicks after a restart."""
from __future__ import annotations

import pytest

from bot import views
from bot.cli import DEMO_DIR, read_script
from bot.menus import Menus, line_complete, next_option, offered
from bot.service import GameService
from engine.core.commands import split_side
from engine.core.game import Game, get_ruleset
from tests.bot.conftest import SEED, start_bot
from tests.bot.harness import ALICE, BOB, CAROL, CHANNEL_ID, Driver, click, component_payload, refused


# --- clicking, as a phone would ------------------------------------------------------------------
def items(components: list[dict]) -> list[dict]:
    return [c for row in components for c in row.get("components", [])]


def within_discord_limits(components: list[dict]) -> list[dict]:
    """At most 5 rows; a row holds 5 buttons or 1 select; a select at most 25 options; every
    custom_id, label, value and description at most 100 characters (a button's label 80)."""
    assert len(components) <= 5
    for row in components:
        kinds = [c["type"] for c in row["components"]]
        assert kinds == [3] or (len(kinds) <= 5 and set(kinds) == {2}), kinds
        for c in row["components"]:
            assert len(c["custom_id"]) <= 100, c["custom_id"]
            if c["type"] == 2:
                assert 1 <= len(c["label"]) <= 80
            else:
                assert 1 <= len(c["options"]) <= 25
                for o in c["options"]:
                    assert len(o["label"]) <= 100 and len(o["value"]) <= 100
                    assert len(o.get("description") or "") <= 100
    return components


def menus_of(rest) -> list[dict]:
    """The components of the last message (or edit) of an exchange that carries any."""
    for call in reversed(rest.calls):
        comps = call.data.get("components") if isinstance(call.data, dict) else None
        if comps:
            return within_discord_limits(comps)
    return []


async def choose(d: Driver, components: list[dict], line: str, user: int):
    """Pick `line` in the message's select menu (it must be offered there)."""
    [select] = [c for c in items(components) if c["type"] == 3]
    values = [o["value"] for o in select["options"]]
    assert line in values, (line, values)
    payload = component_payload(select["custom_id"], components, user_id=user, channel_id=d.channel_id)
    payload["data"] = {"custom_id": select["custom_id"], "component_type": 3, "values": [line]}
    from tests.bot.harness import fake_discord_rest
    with fake_discord_rest() as rest:
        assert await click(d.bot, payload) == 1
    return rest


async def press(d: Driver, components: list[dict], prefix: str, line: str, user: int):
    ids = [c["custom_id"] for c in items(components) if c["type"] == 2]
    [cid] = [i for i in ids if i.startswith(prefix) and i.endswith(f":{line}")] or [None]
    assert cid is not None, (prefix, line, ids)
    return await d.click(cid, components, user=user)


async def play_by_clicks(d: Driver, components: list[dict], line: str, user: int):
    """Give `line` by clicks only, from a public message's menus: its quick button when there is
    one, else the verb in its select, each word in the private builder's select, then Send. Every
    partial line must be offered on the way. Returns the exchange of the last click."""
    words = line.split()
    within_discord_limits(components)
    quick = [c["custom_id"] for c in items(components) if c.get("custom_id", "").startswith("herald:go:")]
    if any(q.endswith(f":{line}") for q in quick):
        rest = await press(d, components, "herald:go:", line, user)
        assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []   # menus off the old post
        return rest
    rest = await choose(d, components, words[0], user)
    builder = rest.last
    assert builder.ephemeral, builder.content                   # the builder is the player's alone
    comps = menus_of(rest)
    for n in range(2, len(words) + 1):
        rest = await choose(d, comps, " ".join(words[:n]), user)
        assert rest.calls[-1].kind == "edit_original"           # the same private message, edited
        comps = menus_of(rest)
    rest = await press(d, comps, "herald:send:", line, user)
    assert rest.calls[0].type == 7 and "Sent" in rest.calls[0].data["content"]
    assert not rest.last.ephemeral, rest.last.content
    return rest


async def bc_game(d: Driver):
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="test-skirmish", side="union", seed=SEED)
    await d.game("join", user=BOB, side="confederate")
    rest = await d.game("start", user=ALICE)
    return await d.bot.store.active_game(d.channel_id), rest


# --- the menus' choices, without Discord ------------------------------------------------------------
def test_the_choices_are_the_legal_ones_from_the_declaration():
    g = Game.new("battlecry", "first-bull-run", 1)
    m = Menus(g.ruleset, g.scenario, g.state, g.to_act)
    assert [c.line for c in m.step("").choices] == ["play"]       # the card phase: nothing else
    cards = m.step("play")
    assert [c.line for c in cards.choices] == [f"play {c}" for c in dict.fromkeys(g.state.hands["union"])]
    assert all(c.ready for c in cards.choices) and not cards.ready
    g.apply("union", "play skirmish-centre")
    m = Menus(g.ruleset, g.scenario, g.state, g.to_act)
    assert [c.line for c in m.step("").choices] == ["order", "end"]
    g.apply("union", "order ui2")
    m = Menus(g.ruleset, g.scenario, g.state, g.to_act)
    assert [c.line for c in m.step("move").choices] == ["move ui2"]     # only the ordered unit
    dest = m.step("move ui2")
    assert dest.choices and all(c.ready for c in dest.choices) and "to" in dest.prompt
    verb = get_ruleset("battlecry").commands.verb("move")
    assert next_option(verb, ["move"]).name == "unit" and not line_complete(verb, ["move", "ui2"])
    assert line_complete(verb, ["move", "ui2", "0605"])


def path_by_clicks(m: Menus, line: str) -> str | None:
    """Build `line` through the menus' choices as a player would (a choice may add two words,
    `face SW`); None when it can be built and sent, else where it got stuck."""
    words = line.split()
    current = words[0]
    while current != line:
        fits = [c.line for c in m.step(current).choices if c.line == line or line.startswith(c.line + " ")]
        if not fits:
            return current
        current = max(fits, key=len)
    return None if m.step(line).ready else f"{line} (no Send)"


@pytest.mark.parametrize("ruleset_id, stride", [("battlecry", 4), ("tacw", 20)])
def test_the_demo_battles_lines_can_each_be_built_by_clicks(ruleset_id, stride):
    """The scripted commanders' lines (bot/demos): at every `stride`-th line, with no decision
    pending, the line's verb is offered and the whole line is built by the menus' choices."""
    scenario, script = {"battlecry": ("first-bull-run", "battlecry--first-bull-run.txt"),
                        "tacw": ("edgehill", "tacw--edgehill.txt")}[ruleset_id]
    seed, lines = read_script(DEMO_DIR / script)
    g = Game.new(ruleset_id, scenario, int(seed))
    checked, stuck = 0, []
    for n, raw in enumerate(lines):
        named, line = split_side(raw, g.ruleset.sides)
        side = named or g.to_act
        verb = g.ruleset.commands.verb(line.split()[0])
        if n % stride == 0 and g.ruleset.pending(g.state) is None and side == g.to_act and offered(verb):
            checked += 1
            where = path_by_clicks(Menus(g.ruleset, g.scenario, g.state, side), line)
            if where is not None:
                stuck.append((n, line, where))
        g.apply(side, line)
    assert checked > 20 and stuck == []


def test_a_line_too_long_for_a_button_is_left_to_act():
    g = Game.new("battlecry", "first-bull-run", 1)
    g.apply("union", "play skirmish-centre")
    g.apply("union", "order ui2")
    m = Menus(g.ruleset, g.scenario, g.state, "union", max_line=len("move ui2"))
    step = m.step("move ui2")
    assert step.choices == [] and step.left_off > 0


class ManyThings:
    """A stand-in ruleset with one verb and forty legal choices (more than a select holds)."""
    from engine.core.verbs import CommandSet, Option, Verb
    commands = CommandSet("stub", "A stand-in", (Verb("pick", "Pick a thing", "§1", (Option("thing", "A thing", "thing"),)),))

    def completions(self, scenario, state, side, kind, prefix, context=None, head=""):
        return [(f"thing number {i}", f"t{i:02}") for i in range(40)] if kind == "thing" else []

    def apply(self, scenario, state, side, command):
        if command.verb != "pick" or len(command.args) != 1:
            raise ValueError("pick one thing")
        return state, []


def test_more_than_25_choices_come_in_pages():
    m = Menus(ManyThings(), None, None, "blue")
    first = m.step("pick")
    assert [c.line for c in first.choices] == [f"pick t{i:02}" for i in range(24)] and first.next_page == 1
    second = m.step("pick", 1)
    assert [c.line for c in second.choices] == [f"pick t{i:02}" for i in range(24, 40)]
    assert second.next_page is None
    content, view = views.step_message(7, 3, first)
    [select] = [i for i in view.children if isinstance(i, views.ActionSelect)]
    assert len(select.item.options) == 25 and select.item.options[-1].value == "…1 pick"
    content, view = views.step_message(7, 3, second)
    assert "page 2" in content


# --- Battle Cry: a whole turn by clicks -------------------------------------------------------------
async def test_a_whole_battle_cry_turn_by_clicks_alone(d):
    game, rest = await bc_game(d)
    comps = rest.last.components            # the board posted by /game start carries the menus
    assert items(comps)[0]["custom_id"] == f"herald:menu:{game.id}:0"
    # Bob is not the one the game waits on, Carol plays no side: private refusals, nothing changes
    refused(await choose(d, comps, "play", BOB), "waits on Union")
    refused(await choose(d, comps, "play", CAROL), "not a player")
    for line in ("play attack-centre", "order ui2", "move ui2 0605"):
        rest = await play_by_clicks(d, comps, line, ALICE)
        comps = rest.last.components
    # the battle's targets carry the dice each would get (BC completions)
    rest = await choose(d, comps, "battle", ALICE)
    rest = await choose(d, menus_of(rest), "battle ui2", ALICE)
    [select] = [c for c in items(menus_of(rest)) if c["type"] == 3]
    labels = {o["value"]: o["label"] for o in select["options"]}
    assert "dice" in labels["battle ui2 0604"], labels
    rest = await play_by_clicks(d, comps, "battle ui2 0604", ALICE)
    assert "ui2" in rest.last.content and "dice" in rest.last.content
    comps = rest.last.components
    st = (await d.bot.service.load(d.channel_id)).state
    if st.pending:                          # a flag: Bob answers by the retreat buttons
        cid = [c["custom_id"] for c in items(comps) if c["custom_id"].startswith("herald:retreat:")][0]
        rest = await d.click(cid, comps, user=BOB)
        comps = rest.last.components
    rest = await play_by_clicks(d, comps, "end", ALICE)
    assert "Union ends turn 1" in rest.last.content
    assert f"<@{BOB}>" in rest.last.content
    st = (await d.bot.service.load(d.channel_id)).state
    assert st.active == "confederate"
    # Bob's menus now: the card phase again, his cards
    rest = await choose(d, rest.last.components, "play", BOB)
    assert {o["value"] for o in items(menus_of(rest))[0]["options"]} == {f"play {c}" for c in st.hands["confederate"]}


async def test_a_stale_menu_is_refused_and_changes_nothing(d):
    game, rest = await bc_game(d)
    old = rest.last.components
    await play_by_clicks(d, old, "play attack-centre", ALICE)
    seq = await d.bot.store.last_seq(game.id)
    refused(await choose(d, old, "play", ALICE), "out of date")
    # a builder opened before the game moved on: its Send is refused too
    rest = await choose(d, (await d.game("board", user=ALICE)).last.components, "order", ALICE)
    builder = menus_of(rest)
    rest = await choose(d, builder, "order ui2", ALICE)
    send = menus_of(rest)
    assert not (await d.cmd("act", user=ALICE, line="order ui2")).last.ephemeral    # typed meanwhile
    refused(await press(d, send, "herald:send:", "order ui2", ALICE), "out of date")
    assert await d.bot.store.last_seq(game.id) == seq + 1
    # Back walks up the line, to the verbs
    rest = await press(d, builder, "herald:back:", "", ALICE)
    refused(rest, "out of date")


async def test_a_refused_line_is_private_and_changes_nothing(d):
    game, rest = await bc_game(d)
    comps = rest.last.components
    rest = await play_by_clicks(d, comps, "play attack-centre", ALICE)
    # a Send button built by hand for a line the rules refuse: the refusal names the rule
    seq = await d.bot.store.last_seq(game.id)
    cid = f"herald:send:{game.id}:{seq}:move ui2 0605"
    button = [{"type": 1, "components": [{"type": 2, "style": 3, "label": "Send", "custom_id": cid}]}]
    refused(await d.click(cid, button, user=ALICE))
    assert await d.bot.store.last_seq(game.id) == seq


# --- TACW: a whole activation by clicks -------------------------------------------------------------
async def test_a_whole_tacw_activation_by_clicks_alone(bot, monkeypatch):
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))   # the rules, not the art
    await bot.service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await bot.service.join(CHANNEL_ID, BOB, "parliament")
    await bot.service.start(CHANNEL_ID, ALICE)
    d = Driver(bot)
    rest = await d.game("board", user=ALICE)
    comps = rest.last.components
    for line in ("activate r-centre", "move r-belasyse 3209", "fire r-culverins 1810", "close", "resolve",
                 "stop"):
        rest = await play_by_clicks(d, comps, line, ALICE)
        comps = rest.last.components
    assert "Royalist centre ends its activation" in rest.last.content
    loaded = await bot.service.load(CHANNEL_ID)
    assert loaded.seq == 6 and "3209" in loaded.state.units["r-belasyse"].hexes
    # the next activation's menus, for whoever precedence names (here the Royalist again)
    user = {"royalist": ALICE, "parliament": BOB}[loaded.to_act_side]
    [select] = [c for c in items(comps) if c["type"] == 3]
    assert select["custom_id"] == f"herald:menu:{loaded.row.id}:6"
    rest = await choose(d, comps, "activate", user)
    wings = [o["value"] for o in items(menus_of(rest))[0]["options"]]
    assert wings and "activate r-centre" not in wings, wings


async def test_tacw_fire_targets_and_unit_labels(bot):
    await bot.service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await bot.service.join(CHANNEL_ID, BOB, "parliament")
    await bot.service.start(CHANNEL_ID, ALICE)
    await bot.service.act(CHANNEL_ID, ALICE, "activate r-centre")
    loaded = await bot.service.load(CHANNEL_ID)
    m = Menus(loaded.ruleset, loaded.scenario, loaded.state, "royalist")
    assert "fire" in [c.line for c in m.step("").choices]
    guns = m.step("fire")
    assert [c.line for c in guns.choices] == ["fire r-culverins", "fire r-sakers"]
    assert "Culverins" in guns.choices[0].label and "fire" in guns.prompt or "unit" in guns.prompt
    targets = m.step("fire r-culverins").choices
    assert any(c.line == "fire r-culverins 1810" and "12 hexes" in c.label for c in targets)
    assert all(len(c.label) <= 100 and len(c.line) <= 100 for c in targets)


# --- a restart -------------------------------------------------------------------------------------
async def test_menus_posted_before_a_restart_work_after_it(db_path, scenario_dir):
    bot1 = await start_bot(db_path)
    d1 = Driver(bot1)
    game, rest = await bc_game(d1)
    comps = rest.last.components
    rest = await choose(d1, comps, "play", ALICE)
    builder = menus_of(rest)
    await bot1.close()

    bot2 = await start_bot(db_path)
    try:
        d2 = Driver(bot2)
        rest = await choose(d2, builder, "play attack-centre", ALICE)    # the private builder
        rest = await press(d2, menus_of(rest), "herald:send:", "play attack-centre", ALICE)
        assert "Union plays Attack Centre" in rest.last.content
        assert await bot2.store.last_seq(game.id) == 1
    finally:
        await bot2.close()


# --- physical dice ---------------------------------------------------------------------------------
async def test_with_physical_dice_a_clicked_battle_asks_for_the_dice_in_public(d):
    from tests.bot.test_physical_dice import physical_bc
    game = await physical_bc(d)
    rest = await d.game("board", user=ALICE)
    rest = await choose(d, rest.last.components, "battle", ALICE)
    rest = await choose(d, menus_of(rest), "battle ui2", ALICE)
    rest = await choose(d, menus_of(rest), "battle ui2 0604", ALICE)
    rest = await press(d, menus_of(rest), "herald:send:", "battle ui2 0604", ALICE)
    ask = rest.last
    assert not ask.ephemeral and "roll **5 battle dice**" in ask.content, ask.content
    assert await d.bot.store.last_seq(game.id) == 3                   # nothing recorded until /dice


async def test_a_wing_players_menus_offer_his_wing_only_and_a_paused_game_none(bot, monkeypatch):
    """The builder one player opens offers only the lines he may give (a wing's own player: his
    wing; bot/club.py acting_side), and nothing while the referee has paused the game."""
    from tests.bot.harness import ADMIN_PERMS
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))
    dave, rita = 500000000000000004, 500000000000000009
    await bot.service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await bot.service.join(CHANNEL_ID, BOB, "parliament")
    await bot.service.start(CHANNEL_ID, ALICE)
    d = Driver(bot)
    assert not (await d.cmd("seat", sub="join-wing", user=dave, wing="r-centre")).last.ephemeral
    comps = (await d.game("board", user=ALICE)).last.components
    wings = [o["value"] for o in items(menus_of(await choose(d, comps, "activate", dave)))[0]["options"]]
    assert wings == ["activate r-centre"]
    alice = [o["value"] for o in items(menus_of(await choose(d, comps, "activate", ALICE)))[0]["options"]]
    assert {"activate r-right", "activate r-centre", "activate r-left"} <= set(alice)
    rest = await d.cmd("referee", sub="pause", user=rita, perms=ADMIN_PERMS, reason="a rules question")
    assert not rest.last.ephemeral, rest.last.content            # a server administrator who does not play
    rest = await choose(d, comps, "activate", ALICE)
    assert rest.last.ephemeral and "paused" in rest.last.content and "a rules question" in rest.last.content
