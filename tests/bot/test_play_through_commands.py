"""Whole battles played through the slash commands (issue 11): the bundled demo games, First Bull
Run (Battle Cry) and Edgehill (TACW), each played to its end once through `/act` alone and once
through the ruleset's own subcommands (`/bc move`, `/tacw actions fire`...), as two players in
one channel. Each ends as the CLI's replay of the same script ends, bit for bit."""
from __future__ import annotations

import pytest

from bot import views
from bot.cli import DEMO_DIR, read_script
from bot.service import GameService
from engine.core.commands import parse, split_side
from engine.core.game import Game, get_ruleset
from engine.core.verbs import Verb
from tests.bot.harness import ALICE, BOB, CHANNEL_ID, Driver

DEMOS = {"battlecry": ("first-bull-run", "battlecry--first-bull-run.txt", {"union": ALICE, "confederate": BOB}),
         "tacw": ("edgehill", "tacw--edgehill.txt", {"royalist": ALICE, "parliament": BOB})}


@pytest.fixture
def scenario_dir():
    """The book's own battles (the bot tests' default is a small test board)."""
    from engine.battlecry import scenario as bc_scenario
    bc_scenario.load_scenario.cache_clear()
    yield bc_scenario.SCENARIO_DIR
    bc_scenario.load_scenario.cache_clear()


def slash_options(verb: Verb, args: tuple[str, ...]) -> dict:
    """The subcommand options that give `args` (the inverse of engine.core.verbs.line_for, for the
    demo scripts' lines): positional options in order, a list taking words up to the next flag,
    keyword or later option's choice, flags and keyword options wherever they stand."""
    flags = {o.flag: o for o in verb.options if o.is_flag}
    keywords = {o.word: o for o in verb.options if o.word}
    positional = [o for o in verb.options if not o.is_flag and not o.word]
    out: dict = {}
    words = list(args)
    i = 0
    for n, option in enumerate(positional):
        later = {v for o in positional[n + 1:] for _, v in o.choices}
        if i >= len(words):
            break
        if option.multi:
            taken = []
            while i < len(words) and words[i] not in flags and words[i] not in keywords and words[i] not in later:
                taken.append(words[i])
                i += 1
            out[option.name] = " ".join(taken)
        else:
            out[option.name] = words[i]
            i += 1
        while i < len(words) and (words[i] in flags or words[i] in keywords):
            if words[i] in flags:
                out[flags[words[i]].name] = True
                i += 1
            else:
                out[keywords[words[i]].name] = words[i + 1]
                i += 2
    assert i == len(words), (verb.name, args, out)
    return out


async def play_demo(bot, monkeypatch, ruleset_id: str, through: str):
    monkeypatch.setattr(GameService, "render", staticmethod(lambda *a, **k: None))   # the rules, not the art
    monkeypatch.setattr(views, "action_view", lambda *a, **k: None)    # nor the menus (tests/bot/test_menus.py)
    scenario, script, users = DEMOS[ruleset_id]
    seed, lines = read_script(DEMO_DIR / script)
    service = bot.service
    first, second = list(users)
    await service.new_game(1, CHANNEL_ID, users[first], ruleset_id, scenario, int(seed), side=first)
    await service.join(CHANNEL_ID, users[second], second)
    await service.start(CHANNEL_ID, users[first])
    rs = get_ruleset(ruleset_id)
    commands = rs.commands
    d = Driver(bot)
    expected = Game.new(ruleset_id, scenario, int(seed))
    for n, raw in enumerate(lines, 1):
        named, line = split_side(raw, rs.sides)
        side = named or expected.to_act
        expected.apply(side, line)
        if through == "act":
            rest = await d.cmd("act", user=users[side], line=line)
        else:
            cmd = parse(line)
            verb = commands.verb(cmd.verb)
            options = slash_options(verb, cmd.args)
            if cmd.dice:
                options["dice"] = ",".join(map(str, cmd.dice))
            path = verb.name if not commands.needs_phases() or not verb.phase else f"{verb.phase} {verb.name}"
            rest = await d.cmd(commands.group, sub=path, user=users[side], **options)
        msg = rest.last
        assert not msg.ephemeral, (n, raw, msg.content)
    loaded = await service.load(CHANNEL_ID, finished_ok=True)
    assert loaded.row.status == "over"
    assert rs.state_to_dict(loaded.state) == rs.state_to_dict(expected.state)
    return loaded, len(lines)


@pytest.mark.parametrize("through", ["act", "subcommands"])
async def test_first_bull_run_played_to_its_end(bot, monkeypatch, through):
    loaded, n = await play_demo(bot, monkeypatch, "battlecry", through)
    assert n > 100 and loaded.state.winner in ("union", "confederate")


@pytest.mark.parametrize("through", ["act", "subcommands"])
async def test_edgehill_played_to_its_end(bot, monkeypatch, through):
    loaded, n = await play_demo(bot, monkeypatch, "tacw", through)
    assert n > 400 and loaded.state.phase == "over"


def test_the_inverse_mapping_reads_flags_keywords_and_lists():
    rs = get_ruleset("tacw")
    fire = rs.commands.verb("fire")
    assert slash_options(fire, ("r1", "2105", "2106", "skirmish")) == {"unit": "r1", "target": "2105 2106",
                                                                       "mode": "skirmish"}
    deploy = rs.commands.verb("deploy")
    assert slash_options(deploy, ("r1", "2905,2906", "facing", "ne")) == {"unit": "r1", "hex": "2905,2906",
                                                                          "facing": "ne"}
    move = get_ruleset("battlecry").commands.verb("move")
    assert slash_options(move, ("ui2", "0605", "0604", "alone")) == {"unit": "ui2", "to": "0605 0604", "alone": True}


async def edgehill(bot) -> Driver:
    """Alice (Royalist) and Bob (Parliament) at Edgehill, seed 5, in the test channel."""
    await bot.service.new_game(1, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await bot.service.join(CHANNEL_ID, BOB, "parliament")
    await bot.service.start(CHANNEL_ID, ALICE)
    return Driver(bot)


async def test_act_completes_the_whole_line_from_the_channels_game(bot):
    d = await edgehill(bot)
    verbs = [c["value"] for c in await d.complete("act", "line", user=ALICE, line="")]
    assert verbs[0] == "activate " and "pass" in verbs
    wings = await d.complete("act", "line", user=ALICE, line="activate r-")
    assert [c["value"] for c in wings] == ["activate r-right", "activate r-centre", "activate r-left"]
    assert all(len(c["name"]) <= 100 and len(c["value"]) <= 100 for c in wings)
    # the script form `side: line` keeps its prefix; another player's wings are not offered
    assert [c["value"] for c in await d.complete("act", "line", user=ALICE, line="royalist: activate r-c")] == \
        ["royalist: activate r-centre"]
    assert [c["value"] for c in await d.complete("act", "line", user=BOB, line="activate ")] == \
        ["activate p-left", "activate p-centre", "activate p-right"]


async def test_a_command_of_another_ruleset_is_refused_and_changes_nothing(bot):
    d = await edgehill(bot)
    service = bot.service
    before = await bot.store.last_seq((await service.game_row(CHANNEL_ID)).id)
    msg = (await d.cmd("bc", sub="play", user=ALICE, card="scout")).last
    assert msg.ephemeral and "This Accursed Civil War" in msg.content and "/tacw" in msg.content
    assert await d.complete("bc", "card", sub="play", user=ALICE, card="") == []
    assert await bot.store.last_seq((await service.game_row(CHANNEL_ID)).id) == before
