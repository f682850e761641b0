"""This Accursed Civil War through the slash commands (bot/cogs/tacw.py and the verbs it shares
with Battle Cry: /move, /rally, /policy): Edgehill with seed 5, where the Royalists have the
initiative and all three of their wings are on Charge, Parliament's on Receive Charge.

TACW is not offered by /game new yet (`TacwRuleset.playable = False`), so the games are created
through the service, as in test_decisions.py."""
from __future__ import annotations

from engine.tacw.scenario.schema import SCENARIO_DIR
from tests.bot.harness import ALICE, BOB, CAROL, CHANNEL_ID, Driver, png_size
from tests.bot.test_schema import tree_payload, validate_payload

SEED = 5
BC_CHANNEL = CHANNEL_ID + 1


async def tacw_game(d, scenario_text: str | None = None):
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", SEED, side="royalist",
                           scenario_text=scenario_text)
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    return await d.bot.store.active_game(CHANNEL_ID)


async def bc_game(bot):
    service = bot.service
    await service.new_game(1, BC_CHANNEL, ALICE, "battlecry", "test-skirmish", "1", side="union")
    await service.join(BC_CHANNEL, BOB, "confederate")
    await service.start(BC_CHANNEL, ALICE)
    return Driver(bot, channel_id=BC_CHANNEL)


async def state(d):
    return (await d.bot.service.load(d.channel_id)).state


async def seq(d, game) -> int:
    return await d.bot.store.last_seq(game.id)


def accepted(rest) -> str:
    msg = rest.last
    assert not msg.ephemeral, msg.content
    assert [name for name, _ in msg.files] == ["board.png"] and png_size(msg.files[0][1])[0] > 100
    return msg.content


def refused(rest, section: str) -> str:
    [msg] = rest.messages()
    assert msg.ephemeral and not msg.files, msg.content
    assert section in msg.content, msg.content
    return msg.content


async def test_a_royalist_activation_orders_move_fire_stop_then_parliament(d):
    game = await tacw_game(d)
    assert (await state(d)).phasing == "royalist"

    rest = await d.cmd("tacw", sub="activation activate", user=BOB, wing="p-left")            # not Parliament's turn
    refused(rest, "TACW §3.2")
    assert await seq(d, game) == 0

    assert "Royalist activates Royalist right wing" in accepted(await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-right"))

    # step B: the order change, with a physical die (face 1 reads 0: 0 - 2 for Rupert <= 3)
    text = accepted(await d.cmd("tacw", sub="activation change", user=ALICE, order="make_ready", dice="1"))
    assert "tries Charge -> Make Ready: 0" in text and "now on Make Ready" in text
    assert (await d.bot.store.commands(game.id))[-1].text == "change make_ready dice=1"
    assert (await state(d)).wings["r-right"].order == "make_ready"

    # a cavalry unit of the right wing goes two hexes west along its path (TACW §7)
    rest = await d.cmd("tacw", sub="actions move", user=ALICE, unit="r-rupert", steps="3007 2907")
    assert "Rupert: 3007 (1 MP), 2907 (1 MP); 2 of 8 MP" in accepted(rest)
    assert (await state(d)).units["r-rupert"].hexes == ["2907"]

    # fire at a hex that is not adjacent: refused with the rule, nothing stored
    before = await seq(d, game)
    refused(await d.cmd("tacw", sub="actions fire", user=ALICE, unit="r-musketeers", target="2004"), "TACW §9.1.2")
    refused(await d.cmd("tacw", sub="actions fire", user=BOB, unit="p-commanded-shot-4", target="3103"), "TACW §3.2")
    assert await seq(d, game) == before

    accepted(await d.cmd("tacw", sub="actions face", user=ALICE, unit="r-prince-of-wales", vertex="NW"))
    assert "ends its activation" in accepted(await d.cmd("tacw", sub="activation stop", user=ALICE))
    st = await state(d)
    assert st.activation is None and st.wings["r-right"].done and st.phasing == "royalist"

    # the Royalist Charge wings go first (TACW §4.2); then Parliament's turn comes
    for wing in ("r-centre", "r-left"):
        accepted(await d.cmd("tacw", sub="activation activate", user=ALICE, wing=wing))
        refused(await d.cmd("tacw", sub="activation pass", user=BOB), "TACW §3.2")
        accepted(await d.cmd("tacw", sub="activation stop", user=ALICE))
    text = accepted(await d.cmd("tacw", sub="activation activate", user=BOB, wing="p-left"))
    assert "Parliament activates Parliament left wing" in text
    assert (await state(d)).activation.wing == "p-left"


async def test_an_out_of_precedence_wing_is_refused_ephemerally(d):
    """Edgehill with free orders: the Royalist left wing on Make Ready waits for the Charge wings."""
    text = (SCENARIO_DIR / "edgehill.toml").read_text(encoding="utf-8")
    assert text.count('r-left = "charge"') == 1
    game = await tacw_game(d, text.replace('r-left = "charge"', 'r-left = "make_ready"'))
    choices = await d.complete("tacw", "wing", sub="activation activate", user=ALICE, wing="")
    assert [c["value"] for c in choices] == ["r-right", "r-centre", "r-left"]
    assert [c["name"].startswith("▶") for c in choices] == [True, True, False]
    assert "higher orders first" in choices[2]["name"]

    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-left")
    assert "Charge activate first: r-right, r-centre" in refused(rest, "TACW §4.2")
    assert await seq(d, game) == 0
    accepted(await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre"))


async def test_activate_autocomplete_lists_the_users_own_wings(d):
    await tacw_game(d)
    alice = await d.complete("tacw", "wing", sub="activation activate", user=ALICE, wing="")
    assert [c["value"] for c in alice] == ["r-right", "r-centre", "r-left"]
    assert all(c["name"].startswith("▶") and "may activate now" in c["name"] for c in alice)
    bob = await d.complete("tacw", "wing", sub="activation activate", user=BOB, wing="")
    assert [c["value"] for c in bob] == ["p-left", "p-centre", "p-right"]
    assert not any(c["name"].startswith("▶") for c in bob)
    assert [c["value"] for c in await d.complete("tacw", "wing", sub="activation activate", user=ALICE, wing="cen")] == ["r-centre"]
    assert await d.complete("tacw", "wing", sub="activation activate", user=CAROL, wing="") == []


async def test_unit_path_and_target_autocomplete_read_the_game(d):
    await tacw_game(d)
    assert await d.complete("tacw", "unit", sub="actions move", user=ALICE, unit="") == []       # no active wing yet
    await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-right")
    units = [c["value"] for c in await d.complete("tacw", "unit", sub="actions move", user=ALICE, unit="")]
    assert "r-rupert" in units and "r-musketeers" in units and "r-gerard" not in units
    firers = [c["value"] for c in await d.complete("tacw", "unit", sub="actions fire", user=ALICE, unit="")]
    assert "r-musketeers" in firers and "r-rupert" not in firers         # cavalry fires on the move
    assert await d.complete("tacw", "unit", sub="actions reform", user=ALICE, unit="") == []   # not on Charge (§5.6)

    steps = {c["value"]: c["name"] for c in await d.complete("tacw", "steps", sub="actions move", user=ALICE, unit="r-rupert", steps="")}
    assert {"3007", "3006", "face NW", "about"} <= set(steps) and "face W" not in steps
    assert steps["3007"].startswith("3007: 1 of 8 MP")
    nxt = [c["value"] for c in await d.complete("tacw", "steps", sub="actions move", user=ALICE, unit="r-rupert", steps="3007 ")]
    assert "3007 2907" in nxt and "3007 face SW" in nxt
    [bad] = await d.complete("tacw", "steps", sub="actions move", user=ALICE, unit="r-rupert", steps="3107 ")
    assert "TACW §7.1.1" in bad["name"]

    assert await d.complete("tacw", "target", sub="actions fire", user=ALICE, unit="r-musketeers", target="") == []
    guns = [c["value"] for c in await d.complete("tacw", "target", sub="actions fire", user=ALICE, unit="r-culverins", target="18")]
    assert guns and all(h.startswith("18") for h in guns)
    vertices = [c["value"] for c in await d.complete("tacw", "vertex", sub="actions face", user=ALICE, unit="r-rupert", vertex="")]
    assert vertices == ["E", "SE", "SW", "NW", "NE"]

    leaders = [c["value"] for c in await d.complete("tacw", "leader", sub="actions leader", user=ALICE, leader="")]
    assert leaders == ["charles", "rupert", "astley", "wilmot"]
    hexes = [c["value"] for c in await d.complete("tacw", "target", sub="actions leader", user=ALICE, leader="rupert",
                                                  action="move", target="")]
    assert "3007" in hexes
    text = accepted(await d.cmd("tacw", sub="actions leader", user=ALICE, leader="rupert", action="move", target="3007 2907"))
    assert "Prince Rupert moves 3107" in text


async def test_bypass_window_answered_with_the_slash_command(d):
    game = await tacw_game(d)
    accepted(await d.cmd("tacw", sub="policy", user=BOB, kind="bypass", value="ask"))
    assert (await state(d)).policies["parliament"]["bypass"] == "ask"
    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")
    assert "Parliament may attempt a bypass" in accepted(rest)
    choices = [c["value"] for c in await d.complete("tacw", "wing", sub="activation bypass", user=BOB, wing="")]
    assert choices == ["p-left", "p-centre", "p-right", "none"]
    refused(await d.cmd("tacw", sub="activation bypass", user=ALICE, wing="none"), "TACW")
    n = await seq(d, game)
    assert "does not attempt a bypass" in accepted(await d.cmd("tacw", sub="activation bypass", user=BOB, wing="none"))
    assert await seq(d, game) == n + 1


async def test_policy_kinds_follow_the_channels_ruleset(bot, d):
    await tacw_game(d)
    bc = await bc_game(bot)

    bc_kinds = await bc.complete("bc", "kind", sub="policy", user=ALICE, kind="")
    assert [c["value"] for c in bc_kinds] == ["retreat"] and "(now ask)" in bc_kinds[0]["name"]
    tacw_kinds = [c["value"] for c in await d.complete("tacw", "kind", sub="policy", user=BOB, kind="")]
    assert {"bypass", "reaction", "reaction_move", "intercept", "counter"} <= set(tacw_kinds)
    assert "retreat" in tacw_kinds and "bypass" in tacw_kinds

    assert [c["value"] for c in await bc.complete("bc", "value", sub="policy", user=ALICE, kind="retreat", value="")] == \
        ["auto", "ask"]
    assert [c["value"] for c in await d.complete("tacw", "value", sub="policy", user=BOB, kind="reaction", value="")] == \
        ["auto", "salvo", "never", "ask"]

    rest = await bc.cmd("bc", sub="policy", user=ALICE, kind="retreat", value="auto")
    assert not rest.last.ephemeral
    assert (await bot.service.load(BC_CHANNEL)).state.policies["union"]["retreat"] == "auto"
    accepted(await d.cmd("tacw", sub="policy", user=BOB, kind="intercept", value="ask"))
    assert (await state(d)).policies["parliament"]["intercept"] == "ask"
    rest = await d.cmd("tacw", sub="policy", user=BOB, kind="retreat", value="ask")        # TACW §10.4 too
    assert not rest.last.ephemeral
    assert (await state(d)).policies["parliament"]["retreat"] == "ask"
    rest = await d.cmd("tacw", sub="policy", user=BOB, kind="retreat", value="sometimes")  # no such value
    assert rest.last.ephemeral and "usage: policy" in rest.last.content


async def test_tacw_commands_are_valid_guild_only_and_cite_their_section(bot):
    """/tacw, built from engine/tacw/verbs.py: one guild-only group, subcommand groups after the
    sequence of play (§3.2), each verb citing its section."""
    payload = tree_payload(bot.tree)
    assert validate_payload(payload) == []
    by_name = {c["name"]: c for c in payload}
    tacw = by_name["tacw"]
    assert tacw.get("dm_permission") is False and tacw.get("contexts") in (None, [0])
    groups = {o["name"]: {s["name"]: s for s in o.get("options", [])} for o in tacw["options"] if o["type"] == 2}
    assert set(groups["activation"]) == {"activate", "pass", "bypass", "change", "close", "continue", "stop"}
    assert {"move", "face", "fire", "salvo", "rally", "reform", "leader"} <= set(groups["actions"])
    assert set(groups["combat"]) == {"attack", "resolve", "counter", "retreat", "choose"}
    assert set(groups["reactions"]) == {"react", "react_move", "intercept"}
    for group in groups.values():
        for name, cmd in group.items():
            assert "§" in cmd["description"] or "special rule" in cmd["description"] or \
                "setup" in cmd["description"], name
    change = {o["name"]: o for o in groups["activation"]["change"]["options"]}
    assert [c["value"] for c in change["order"]["choices"]] == ["charge", "make_ready", "receive_charge", "rally"]
    policy = {o["name"]: o for o in tacw["options"]}["policy"]
    options = {o["name"]: o for o in policy["options"]}
    assert options["kind"]["autocomplete"] and options["value"]["autocomplete"]
    assert groups["activation"]["activate"]["options"][0]["autocomplete"] is True


async def test_action_replies_crop_to_the_action_and_the_board_command_shows_the_whole_field(d):
    from tests.bot.harness import png_size
    service = d.bot.service
    await service.new_game(1, d.channel_id, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(d.channel_id, BOB, "parliament")
    await service.start(d.channel_id, ALICE)
    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-right")
    rest = await d.cmd("tacw", sub="actions move", user=ALICE, unit="r-rupert", steps="3007 2907")
    crop = png_size(rest.last.files[0][1])
    rest = await d.game("board", user=BOB)
    full = png_size(rest.last.files[0][1])
    assert crop[0] * crop[1] < full[0] * full[1] and full[0] > 1500


async def test_policy_scoped_to_one_wing_through_the_slash_command(d):
    service = d.bot.service
    await service.new_game(1, d.channel_id, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(d.channel_id, BOB, "parliament")
    await service.start(d.channel_id, ALICE)
    rest = await d.cmd("tacw", sub="policy", user=BOB, kind="bypass", value="ask", scope="p-left")
    assert not rest.last.ephemeral
    rest = await d.cmd("tacw", sub="policy", user=BOB, kind="bypass", value="ask", scope="r-right")
    assert rest.last.ephemeral and "not" in rest.last.content
    rest = await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-centre")
    labels = [c["label"] for row in rest.last.components for c in row["components"]]
    assert labels[-1] == "No" and len(labels) == 2 and "Parliament left wing" in labels[0]
