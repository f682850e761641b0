"""/explain and /rules through the slash-command handlers (bot/cogs/arbitration.py, bot/arbitration.py).

The games are created through the service and their log is written with the engine and the store
directly (`record`, what GameService.act stores), so these tests depend only on the log, as
/explain does; the replies are recorded by the offline harness."""
from __future__ import annotations

import re
from dataclasses import asdict

import pytest

from bot import arbitration
from engine.core import rulesdoc
from engine.core.commands import parse
from tests.bot.harness import ALICE, BOB, CAROL, CHANNEL_ID, Driver

OTHER_CHANNEL = CHANNEL_ID + 7


async def record(bot, side: str, line: str, channel_id: int = CHANNEL_ID):
    """Apply `line` for `side` and store it as GameService.act does (command, events, state)."""
    row = await bot.store.active_game(channel_id)
    loaded = await bot.service.load_row(row)
    cmd = parse(line)
    state, events = loaded.ruleset.apply(loaded.scenario, loaded.state, side, cmd)
    await bot.store.append_command(row.id, seq=loaded.seq + 1, user_id=None, side=side, text=cmd.text,
                                   dice=[asdict(d) for e in events for d in e.dice],
                                   events=[e.to_dict() for e in events],
                                   state=loaded.ruleset.state_to_dict(state))
    return events


async def new_game(bot, ruleset="battlecry", scenario="test-skirmish", seed="1", sides=("union", "confederate")):
    service = bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, ruleset, scenario, seed, side=sides[0])
    await service.join(CHANNEL_ID, BOB, sides[1])
    await service.start(CHANNEL_ID, ALICE)
    return await bot.store.active_game(CHANNEL_ID)


@pytest.fixture
async def bc(d, scenario_dir):
    """Test Skirmish, seed 1: Alice's Sharp Shooter misses (#1-#3, drawing a card), then Bob's
    Attack Centre: ci2 (with General cg1) battles ui2 (with ug1) two hexes away (#4-#6)."""
    await new_game(d.bot)
    for side, line in (("union", "play sharp-shooter"), ("union", "snipe cg1 dice=1"), ("union", "end"),
                       ("confederate", "play attack-centre"), ("confederate", "order ci2"),
                       ("confederate", "battle ci2 0606 dice=1,5,3,6")):
        await record(d.bot, side, line)
    return d


def text_of(rest) -> str:
    return "\n".join(m.content for m in rest.messages())


# == /explain =====================================================================================

async def test_explain_shows_the_last_adjudication_in_full_to_the_channel(bc):
    rest = await bc.cmd("explain", user=CAROL)                 # a spectator may ask
    [msg] = rest.messages()
    assert not msg.ephemeral and msg.data["allowed_mentions"]["parse"] == []
    text = msg.content
    assert text.startswith("**#6 · Confederate · battle ci2 0606 (dice entered by the players)** — game #1, Battle Cry")
    assert "Battle · BC §4.4 (Battle)" in text
    assert "ci2 (infantry) battles ui2 (infantry) at 0606 with 4 dice" in text
    assert "  Base      3\n" in text                                       # infantry at range 2
    assert "  +1        General cg1 attached  [BC §4.7 (Generals in battle)]" in text
    assert "  Total     4\n" in text
    assert "  Table     BC §4.4.1 battle dice (Battle dice by range), row: infantry, range 2" in text
    dice = re.findall(r"battle die (\d) of 4 \(battlecry-d6\): (\d) (\w+) -> ([\w ]+)", text)
    assert dice == [("1", "1", "infantry", "hit"), ("2", "5", "flag", "retreat"),
                    ("3", "3", "cavalry", "miss"), ("4", "6", "sabres", "hit")]
    assert "  Result    hits 2 · flags 1 · figures lost 2" in text
    assert text.count("```") == 2


async def test_explain_any_entry_by_number_and_privately(bc):
    rest = await bc.cmd("explain", user=ALICE, entry="2")
    text = text_of(rest)
    assert "**#2 · Union · snipe cg1 (dice entered by the players)**" in text and "Sharp shooter · BC §2.4 card 15 (Sharp Shooter)" in text
    assert "sharp shooter die (battlecry-d6): 1 infantry -> miss" in text
    assert "Result    eliminated none" in text
    rest = await bc.cmd("explain", user=BOB, entry="#5 Confederate: order ci2", private=True)
    [msg] = rest.messages()
    assert msg.ephemeral and "**#5 · Confederate · order ci2**" in msg.content
    assert "No die was rolled and no table consulted" in msg.content
    assert "→ Confederate orders ci2 (infantry)" in msg.content and "(BC §4.1 (Ordering units))" in msg.content


async def test_explain_never_shows_a_hand_or_the_card_drawn(bc):
    """BC §3.1: hands are secret. Alice's `end` drew Call for Reinforcements; Bob holds Probe Left,
    Counter-Attack, Leadership and Attack Right: no explanation names any of them."""
    st = (await bc.bot.service.load(CHANNEL_ID)).state
    assert "call-for-reinforcements" in st.hands["union"]
    hidden = ["call for reinforcements", "call-for-reinforcements", "probe", "counter-attack", "leadership",
              "attack right", "attack-right"]
    for seq in range(1, 7):
        text = text_of(await bc.cmd("explain", user=CAROL, entry=str(seq))).lower()
        assert f"#{seq} ·" in text
        assert not [h for h in hidden if h in text], (seq, text)
    assert "union ends turn 1 (sharp shooter)" in text_of(await bc.cmd("explain", user=CAROL, entry="3")).lower()


async def test_explain_refusals_are_ephemeral_and_say_why(d, scenario_dir):
    rest = await d.cmd("explain", user=ALICE)
    assert rest.last.ephemeral and "no game in this channel" in rest.last.content
    await new_game(d.bot)
    rest = await d.cmd("explain", user=ALICE)
    assert rest.last.ephemeral and "nothing has happened in this game yet" in rest.last.content
    await record(d.bot, "union", "play attack-centre")
    rest = await d.cmd("explain", user=ALICE)
    assert rest.last.ephemeral and "no die has been rolled" in rest.last.content and "(1-1)" in rest.last.content
    rest = await d.cmd("explain", user=ALICE, entry="the last one")
    assert rest.last.ephemeral and "'the last one' is not a log entry" in rest.last.content
    rest = await d.cmd("explain", user=ALICE, entry="99")
    assert rest.last.ephemeral and "no entry #99 (it runs from #1 to #1)" in rest.last.content
    # the first entry itself is fine
    assert not (await d.cmd("explain", user=ALICE, entry="1")).last.ephemeral


async def test_explain_autocomplete_lists_recent_adjudications_newest_first(bc):
    choices = await bc.complete("explain", "entry", user=CAROL, entry="")
    assert [c["value"] for c in choices] == ["6", "2"]
    assert choices[0]["name"].startswith("#6 Confederate: battle ci2 0606 — ci2 (infantry) battles")
    assert all(len(c["name"]) <= 100 for c in choices)
    assert [c["value"] for c in await bc.complete("explain", "entry", user=CAROL, entry="#2")] == ["2"]
    assert [c["value"] for c in await bc.complete("explain", "entry", user=CAROL, entry="snipe")] == ["2"]
    assert await bc.complete("explain", "entry", user=CAROL, entry="9") == []
    other = Driver(bc.bot, channel_id=OTHER_CHANNEL)                    # no game there
    assert await other.complete("explain", "entry", user=CAROL, entry="") == []


async def test_explain_keeps_the_secret_boat_bridge(d):
    """Second Newbury special rule 5 (D108): Parliament's boat bridge hex stays out of /explain,
    its autocomplete and its refusals until a unit reveals it."""
    await new_game(d.bot, "tacw", "second-newbury", "11", ("royalist", "parliament"))
    await record(d.bot, "parliament", "boatbridge 3438")
    assert (await d.bot.store.commands((await d.bot.store.active_game(CHANNEL_ID)).id))[-1].text == "boatbridge 3438"
    seen = []
    rest = await d.cmd("explain", user=ALICE, entry="1")
    seen.append(text_of(rest))
    assert "**#1 · Parliament · boatbridge (secret)**" in seen[-1] and "records in secret" in seen[-1]
    seen.append(text_of(await d.cmd("explain", user=ALICE)))             # no dice yet: refused
    seen.append(str(await d.complete("explain", "entry", user=ALICE, entry="")))
    seen.append(str(await d.complete("explain", "entry", user=ALICE, entry="3438")))
    assert all("3438" not in s for s in seen), seen


async def test_explain_a_tacw_roll_with_its_modifiers_and_table(d):
    """Edgehill, seed 5: Rupert's wing tries an order change with a supplied die (face 1 reads 0)."""
    await new_game(d.bot, "tacw", "edgehill", "5", ("royalist", "parliament"))
    await record(d.bot, "royalist", "activate r-right")
    await record(d.bot, "royalist", "change make_ready dice=1")
    text = text_of(await d.cmd("explain", user=BOB))
    assert "**#2 · Royalist · change make_ready (dice entered by the players)**" in text and "This Accursed Civil War" in text
    assert "  Roll      0  (" in text and "d10)" in text                      # the die is the base
    mods = re.findall(r"\n  ([+-]\d+) +(.+?)  \[(TACW §[^\]]+)\]", text)
    assert mods and all(section.startswith("TACW §") for _, _, section in mods)
    total = 0 + sum(int(v) for v, _, _ in mods)
    assert f"\n  Total     {total}\n" in text and "\n  Table     " in text and "\n  Result    " in text
    index = rulesdoc.load_index("tacw")
    if index is not None and index.title_of(mods[0][2].split(" (")[0]):  # titles from the TACW index
        assert re.search(r"\[TACW §[\d.]+[^\]]* \(.+\)\]", text)


# == /rules =======================================================================================

async def test_rules_by_number_in_the_channels_ruleset(bc):
    rest = await bc.cmd("rules", user=CAROL, query="§4.6")
    text = text_of(rest)
    assert not rest.messages()[0].ephemeral
    assert text.startswith("**BC §4.6 — Retreats** (Battle Cry)")
    assert "retreats one hex for each Flag rolled" in text                          # our summary
    assert "Herald's decisions where the book is unclear:" in text and "toward the owner's own edge" in text
    assert "`tests/engine/test_battlecry_combat.py::test_bc_4_6_faq_last_row_retreat_eliminates`" in text
    assert "§4.6 rule 7 — A retreat that cannot be made" in text
    assert all(len(m.content) <= 2000 for m in rest.messages())
    text = text_of(await bc.cmd("rules", user=CAROL, query="BC §2.4 card 14"))
    assert text.startswith("**BC §2.4 card 14 — Rally**") and "one die for every command card" in text


async def test_rules_by_words_and_for_another_ruleset(bc):
    text = text_of(await bc.cmd("rules", user=ALICE, query="horse artillery", private=True))
    assert "Horse artillery" in text or "horse artillery" in text
    assert "**Other matches:**" in text and "Scenario 14: New Market" in text
    rest = await bc.cmd("rules", user=ALICE, query="zeppelin")
    assert rest.last.ephemeral and "nothing in the Battle Cry rules index matches 'zeppelin'" in rest.last.content
    # the ruleset option searches other rules than the channel's game
    rest = await bc.cmd("rules", user=ALICE, query="9.4", ruleset="tacw")
    if rulesdoc.load_index("tacw") is None:
        assert rest.last.ephemeral and "has no rules index yet" in rest.last.content
    else:
        assert text_of(rest).startswith("**TACW §9.4")


async def test_rules_without_a_game_needs_a_ruleset(d):
    rest = await d.cmd("rules", user=CAROL, query="4.6")
    assert rest.last.ephemeral and "this channel has no game" in rest.last.content and "battlecry" in rest.last.content
    rest = await d.cmd("rules", user=CAROL, query="line of sight", ruleset="battlecry")
    assert text_of(rest).startswith("**BC §4.4.2 — Line of sight**")


async def test_rules_autocomplete_follows_the_channel_or_the_ruleset_option(bc):
    choices = await bc.complete("rules", "query", user=CAROL, query="4.4")
    assert [c["value"] for c in choices] == ["4.4", "4.4.1", "4.4.2", "4.4.3"]
    assert choices[0]["name"] == "§4.4 Battle"
    assert [c["value"] for c in await bc.complete("rules", "query", user=CAROL, query="sharp")][0] == "2.4 card 15"
    tacw = await bc.complete("rules", "query", user=CAROL, query="9.4", ruleset="tacw")
    if rulesdoc.load_index("tacw") is not None:
        assert tacw and all(c["value"].startswith("9.4") for c in tacw)
    else:
        assert tacw == []
    other = Driver(bc.bot, channel_id=OTHER_CHANNEL)
    assert await other.complete("rules", "query", user=CAROL, query="4.4") == []


async def test_rules_for_a_ruleset_without_an_index_says_so(bc, monkeypatch, tmp_path):
    """A ruleset whose index is not written yet (the TACW one was written in parallel)."""
    monkeypatch.setattr(rulesdoc, "ruleset_dir", lambda rid: tmp_path / rid)
    rest = await bc.cmd("rules", user=CAROL, query="4.6")
    assert rest.last.ephemeral and "Battle Cry has no rules index yet" in rest.last.content
    assert await bc.complete("rules", "query", user=CAROL, query="4") == []
    # /explain still works, only without section titles
    text = text_of(await bc.cmd("explain", user=CAROL))
    assert "Battle · BC §4.4\n" in text and "[BC §4.7]" in text


# == packing long answers =========================================================================

def test_pack_keeps_blocks_whole_and_code_fences_closed():
    code = "```\n" + "\n".join(f"line {i} " + "x" * 60 for i in range(80)) + "\n```"
    blocks = ["**#9 · Union · resolve**", code, "→ something followed"]
    messages = arbitration.pack(blocks, limit=1990)
    assert len(messages) >= 3 and all(len(m) <= 1990 for m in messages)
    assert all(m.count("```") % 2 == 0 for m in messages)
    assert messages[0].startswith("**#9 · Union · resolve**\n```")
    assert messages[-1].endswith("→ something followed")
    joined = "".join(messages)
    assert all(f"line {i} " in joined for i in range(80))
    assert arbitration.pack(["a", "b"]) == ["a\nb"]
    assert arbitration.plain(blocks).startswith("#9 · Union · resolve\nline 0 ")


async def test_an_entry_taken_back_stays_explainable_and_marked(bc):
    """Undo with consent keeps the undone command in the log (migration 2: commands.undone_at):
    /explain still shows it, marked, and the default skips it."""
    game = await bc.bot.store.active_game(CHANNEL_ID)
    async with bc.bot.store._transaction() as db:
        await db.execute("UPDATE commands SET undone_at = '2024-01-01T00:00:00+00:00', undone_by = ? "
                         "WHERE game_id = ? AND seq = 6", (BOB, game.id))
    text = text_of(await bc.cmd("explain", user=CAROL, entry="6"))
    assert "**#6 · Confederate · battle ci2 0606 (dice entered by the players) (undone)**" in text
    assert "taken back (undone)" in text and "Total     4" in text
    assert text_of(await bc.cmd("explain", user=CAROL)).startswith("**#2 · Union · snipe cg1 (dice entered by the players)**")
    choices = await bc.complete("explain", "entry", user=CAROL, entry="")
    assert [c["value"] for c in choices] == ["6", "2"] and "(undone)" in choices[0]["name"]


async def test_a_long_explanation_sends_its_start_and_the_whole_as_a_file(bc, monkeypatch):
    monkeypatch.setattr(arbitration, "MESSAGE_LIMIT", 400)
    monkeypatch.setattr(arbitration, "MAX_MESSAGES", 2)
    rest = await bc.cmd("explain", user=CAROL)
    first, last = rest.messages()
    assert len(first.content) <= 400 and first.content.startswith("**#6 · Confederate")
    assert "the whole explanation is in explain-6.txt" in last.content
    [(name, data)] = last.files
    whole = data.decode("utf-8")
    assert name == "explain-6.txt" and "```" not in whole and "**" not in whole
    assert whole.startswith("#6 · Confederate · battle ci2 0606") and "Result    hits 2 · flags 1" in whole


# == a TACW fire and close combat, explained and checked against the rulebook =====================

TACW_UNITS = [("r1", "royalist", "r-a", "heavy", ["0505"], "E"), ("p1", "parliament", "p-a", "heavy", ["0605"], "W"),
              ("r2", "royalist", "r-a", "cavalry", ["0704"], "SE", {"strength": 4, "morale": 8}),
              ("p2", "parliament", "p-a", "light", ["0705"], "NW", {"strength": 3, "morale": 4})]


async def tacw_fight(d, monkeypatch):
    """Seed 3: r1 fires at p1 (#2), then r2's cavalry assaults p2's light infantry (#3-#5),
    through the bot's own /act, as players would."""
    from bot.service import GameService
    from tests.engine.tacw_helpers import scenario_text
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))   # speed: no boards
    service = d.bot.service
    await service.new_game(1, CHANNEL_ID, ALICE, "tacw", "t", 3, side="royalist",
                           scenario_text=scenario_text(TACW_UNITS))
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    for line in ("activate r-a", "fire r1 0605", "close", "attack r2 0705", "resolve"):
        rest = await d.cmd("act", user=ALICE, line=line)
        assert not rest.last.ephemeral, rest.last.content


async def test_explain_a_tacw_fire_by_number_against_the_musket_fire_table(d, monkeypatch):
    """TACW §9.5.1 and the Musket Fire table (9.0): the front column gives 1 hit on 3-8; the
    reaction fire (§9.3.3 Skirmish: the target answers) is -1 per casualty of the firer, and 2
    reads Mancato, shown as Miss; §9.11: a leader in a hex fired on with an effect rolls, only 9 removes."""
    await tacw_fight(d, monkeypatch)
    text = text_of(await d.cmd("explain", user=CAROL, entry="2"))
    assert text.startswith("**#2 · Royalist · fire r1 0605** — game #1, This Accursed Civil War")
    assert "→ r1 skirmishes (TACW §9.3.3 (Skirmish))" in text
    fire, leader_ac, leader_wc, reaction = re.findall(r"```\n(.*?)\n```", text, re.S)
    assert fire.startswith("Fire · TACW §9.5.1 (Heavy infantry fire)")
    assert "  Roll      3  (fire, r1, d10)" in fire and "Total" not in fire           # no modifier
    assert "  Table     Musket Fire table, Fronte (front), row: 3" in fire
    assert "  Result    result 1 · hits 1" in fire
    assert "→ p1 takes 1 casualty (1/4) (TACW §9.6 (Fire results))" in text
    for block, leader in ((leader_ac, "p-ac"), (leader_wc, "p-wc")):
        assert block.startswith("Leader loss · TACW §9.11 (Leader loss from fire)")
        assert "  Table     Leader Loss table, row: 0-8" in block and f"leader {leader} · result no effect" in block
    assert "fires in reaction at r1" in reaction and "  Roll      3  (fire, p1, d10)" in reaction
    assert "  -1        1 casualties (-1 each)  [TACW §9.5.1 (Heavy infantry fire)]" in reaction
    assert "  Total     2\n" in reaction and "row: 2" in reaction and "result Miss · hits 0" in reaction


async def test_explain_a_tacw_close_combat_against_the_close_combat_table(d, monkeypatch):
    """TACW §10.3: morale 8 against 4 is +4 (§10.3.3); the Matrix gives cavalry against light
    infantry +2 (§10.3.8); a cavalry attacker spending a pistol shot +1 (§10.3.9); strength 4
    against 3 is under 2:1, no modifier (§10.3.4). 8 + 7 = 15 is on the '>9' row: the defender
    is eliminated and the attacker must advance (Close Combat table); both take a formation hit
    (§10.2 E). Then what the result did, in order, down to the morale check it caused."""
    await tacw_fight(d, monkeypatch)
    rest = await d.cmd("explain", user=CAROL)                        # the last adjudication: #5
    assert all(len(m.content) <= 2000 for m in rest.messages())
    text = text_of(rest)
    assert text.startswith("**#5 · Royalist · resolve**")
    assert "Close combat · TACW §10.2 (Close combat procedure)" in text
    assert "  Roll      8  (close combat, d10)" in text
    mods = re.findall(r"\n  ([+-]\d+) +(.+?)  \[(TACW §[\d.]+)", text.split("Morale check")[0])
    assert mods == [("+4", "morale 8 against 4", "TACW §10.3.3"),
                    ("+2", "Close Combat Matrix: cavalry against light", "TACW §10.3.8"),
                    ("+1", "per attacking cavalry unit that spent a pistol shot", "TACW §10.3.9")]
    assert "  Total     15\n" in text and "  Table     Close Combat table, row: ≥9" in text
    assert "  Result    result DE · total 15 · winner attacker" in text
    after = text.split("winner attacker")[1]
    order = ["→ p2 is eliminated", "→ r2: formation normal -> disordered", "→ r2 advances into 0705",
             "Morale check · TACW §11.2", "→ p1 forms a hedgehog"]
    assert [after.index(s) for s in order] == sorted(after.index(s) for s in order)


async def test_explain_bad_entries_and_no_game_are_clear_refusals(d, monkeypatch):
    other = Driver(d.bot, channel_id=OTHER_CHANNEL)
    rest = await other.cmd("explain", user=CAROL, entry="3")
    assert rest.last.ephemeral and "no game in this channel" in rest.last.content
    await tacw_fight(d, monkeypatch)
    for entry, words in (("99999", "no entry #99999 (it runs from #1 to #5)"),
                         ("-3", "'-3' is not a log entry"), ("two", "'two' is not a log entry")):
        rest = await d.cmd("explain", user=CAROL, entry=entry)
        [msg] = rest.messages()
        assert msg.ephemeral and words in msg.content, msg.content


async def test_rules_empty_or_unknown_queries_answer_helpfully(bc):
    for query, words in (("   ", "give a section number (4.6, §4.6) or words"),
                         ("99.9", "nothing in the Battle Cry rules index matches '99.9': try a section number"),
                         ("§", "nothing in the Battle Cry rules index matches")):
        rest = await bc.cmd("rules", user=CAROL, query=query)
        [msg] = rest.messages()
        assert msg.ephemeral and words in msg.content, msg.content


def test_every_rules_answer_of_both_rulesets_fits_discords_messages():
    """Every section of both indexes, as /rules answers it: each message at most 2000
    characters (the longest, a TACW battle's special rules, goes out in several), nothing lost."""
    from engine.core.game import get_ruleset
    split = 0
    for rid in ("battlecry", "tacw"):
        rs = get_ruleset(rid)
        index = rulesdoc.load_index(rid, rs)
        for s in index.sections:
            text = arbitration.rules_text(rs, s.id)
            messages = arbitration.pack([text])
            assert all(len(m) <= 2000 for m in messages), (rid, s.id)
            assert "\n".join(messages) == text
            split += len(messages) > 1
    assert split >= 1                          # the long ones were really split
