"""The deployment phase of a battle set up by areas through the slash commands (bot/cogs/tacw.py:
/deploy and /assign, their autocomplete from TacwRuleset.completions): First Newbury, Alice the
Royalists, Bob Parliament. The game is created through the service, as in test_tacw_bot.py."""
from __future__ import annotations

from tests.bot.harness import ALICE, BOB, CAROL, CHANNEL_ID
from tests.bot.test_tacw_bot import accepted, refused, seq, state

SEED = 11
SETUP = "TACW First Newbury setup"


async def newbury(d):
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "first-newbury", SEED, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    return await d.bot.store.active_game(CHANNEL_ID)


async def test_deploy_assign_and_done_through_the_commands(d):
    game = await newbury(d)
    st = await state(d)
    assert st.phase == "deployment" and st.units["r-i-byron"].hexes == ["3202"]

    # refusals: outside the area, another side's unit, a verb of play before turn 1
    text = refused(await d.cmd("tacw", sub="setup deploy", user=ALICE, unit="r-i-byron", hex="2305"), SETUP)
    assert "2305 lies outside I/Byron (Sir John)'s deployment area 'r-right-sandleford'" in text
    refused(await d.cmd("tacw", sub="setup deploy", user=BOB, unit="r-i-byron", hex="3201"), "is not yours")
    refused(await d.cmd("tacw", sub="activation activate", user=ALICE, wing="r-left"), "still deploying")
    assert await seq(d, game) == 0

    # a unit, with its facing; a double unit on two hexes (spaces in the option are dropped)
    text = accepted(await d.cmd("tacw", sub="setup deploy", user=ALICE, unit="r-i-byron", hex="3201", facing="SW"))
    assert "I/Byron (Sir John) deploys at 3201 facing SW (with Sir John Byron)" in text
    assert (await d.bot.store.commands(game.id))[-1].text == "deploy r-i-byron 3201 facing sw"
    accepted(await d.cmd("tacw", sub="setup deploy", user=ALICE, unit="r-vavasour", hex="3001, 3002"))
    st = await state(d)
    assert st.units["r-i-byron"].hexes == ["3201"] and st.units["r-vavasour"].hexes == ["3001", "3002"]
    assert st.leaders["byron"].hex == "3201"

    # a cavalry brigade to the other wing and back
    text = accepted(await d.cmd("tacw", sub="setup assign", user=ALICE, brigade="byron-brigade", wing="r-left"))
    assert "Brigade byron-brigade (I/Byron (Sir John), II/Byron, III/Byron) goes to Royalist left wing" in text
    refused(await d.cmd("tacw", sub="setup deploy", user=ALICE, unit="done"), "the deployment is not complete")
    accepted(await d.cmd("tacw", sub="setup assign", user=ALICE, brigade="byron-brigade", wing="r-right"))

    # Alice is done; Bob may still deploy; then turn 1 begins
    assert "Royalist has deployed" in accepted(await d.cmd("tacw", sub="setup deploy", user=ALICE, unit="done"))
    refused(await d.cmd("tacw", sub="setup deploy", user=ALICE, unit="r-ii-byron", hex="3301"), "Royalist has declared its deployment done")
    assert (await d.bot.store.active_game(CHANNEL_ID)).id == game.id        # not over: Bob to deploy
    text = accepted(await d.cmd("tacw", sub="setup deploy", user=BOB, unit="done"))
    assert "Both armies are deployed: turn 1 begins" in text and "Royalist has the initiative" in text
    st = await state(d)
    assert st.phase == "activation" and st.turn == 1
    refused(await d.cmd("tacw", sub="setup deploy", user=BOB, unit="p-behre", hex="1402"), "there is no deployment phase now")


async def test_deploy_and_assign_autocomplete_read_the_game(d):
    await newbury(d)
    units = await d.complete("tacw", "unit", sub="setup deploy", user=ALICE, unit="")
    assert units[0]["value"] == "done" and units[0]["name"] == "done: my deployment is complete"
    values = [c["value"] for c in units]
    assert "r-culverins" in values and not any(v.startswith("p-") for v in values)
    hexes = [c["value"] for c in await d.complete("tacw", "hex", sub="setup deploy", user=ALICE, unit="r-i-byron", hex="32")]
    assert hexes and all(h.startswith("32") for h in hexes) and "3201" in hexes
    pairs = [c["value"] for c in await d.complete("tacw", "hex", sub="setup deploy", user=ALICE, unit="r-vavasour", hex="3001")]
    assert "3001,3002" in pairs
    faces = [c["value"] for c in await d.complete("tacw", "facing", sub="setup deploy", user=ALICE, unit="r-vavasour",
                                                   hex="3001,3002", facing="")]
    assert faces == ["E", "W"]
    brigades = [c["value"] for c in await d.complete("tacw", "brigade", sub="setup assign", user=ALICE, brigade="")]
    assert sorted(brigades) == sorted(f"{b}-brigade" for b in ("rupert", "byron", "caernarvon",
                                                               "wilmot", "gerard"))
    wings = [c["value"] for c in await d.complete("tacw", "wing", sub="setup assign", user=ALICE, brigade="rupert-brigade", wing="")]
    assert wings == ["r-left", "r-right"]
    bob = [c["value"] for c in await d.complete("tacw", "brigade", sub="setup assign", user=BOB, brigade="harv")]
    assert bob == ["p-harvey"]
    assert await d.complete("tacw", "unit", sub="setup deploy", user=CAROL, unit="") == []


async def test_boatbridge_is_recorded_in_secret_and_halt_and_enter_are_commands(d):
    """Second Newbury rule 5 (D108): /boatbridge answers only its owner; nothing public, and
    neither the log nor the other side's completions give the hex away. /halt (First Newbury
    rule 1) and /enter (Marston Moor, D123) are slash commands of their own."""
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "second-newbury", SEED, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    game = await d.bot.store.active_game(CHANNEL_ID)
    assert [c["value"] for c in await d.complete("tacw", "hex", sub="setup boatbridge", user=BOB, hex="")][:2] == ["3337", "3338"]
    assert await d.complete("tacw", "hex", sub="setup boatbridge", user=ALICE, hex="") == []      # not the Royalist's
    refused(await d.cmd("tacw", sub="setup boatbridge", user=ALICE, hex="3438"), "only Parliament")
    refused(await d.cmd("tacw", sub="setup boatbridge", user=BOB, hex="2011"), "is not a hex of the Lambourn")
    rest = await d.cmd("tacw", sub="setup boatbridge", user=BOB, hex="3438")
    [msg] = rest.messages()
    assert msg.ephemeral and "3438" in msg.content and not msg.files
    assert await seq(d, game) == 1
    log = "\n".join(await service.log(CHANNEL_ID, 25))
    assert "records in secret" in log and "3438" not in log
    rest = await d.cmd("tacw", sub="setup boatbridge", user=BOB)
    [msg] = rest.messages()
    assert msg.ephemeral and "Yours is recorded at 3438" in msg.content
    tacw = {c.name: c for c in d.bot.tree.get_commands()}["tacw"]
    setup = {c.name for c in tacw.get_command("setup").commands}
    assert {"halt", "boatbridge", "deploy", "assign"} <= setup
    assert tacw.get_command("actions").get_command("enter") is not None
