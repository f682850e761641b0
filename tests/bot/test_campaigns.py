"""/campaign new, add, standings, list (bot/campaigns.py, bot/cogs/campaign.py): results recorded
when a campaign game ends, standings per player and side as text and PNG, Battle Cry's
Campaign Flags (BC §6, digest §5.3) and TACW's victory levels (engine/tacw/ruleset.py)."""
from __future__ import annotations

import pytest

from bot import campaigns
from engine.core.commands import parse
from engine.core.game import Game, get_ruleset
from tests.bot.conftest import TEST_SCENARIO
from tests.bot.harness import (ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, GUILD_ID, Driver, fake_discord_rest, public, refused,
                               interaction_payload, invoke, option, png_size, name_of)

# test-skirmish without its Generals, won by the first flag: ui2 moves to 0605 and its four
# infantry hits (dice=1,1,1,1) eliminate ci2 in 0604 (tests/bot/test_play.py: 1-2 infantry).
FLAG_RACE = (TEST_SCENARIO.replace('id = "test-skirmish"', 'id = "flag-race"')
             .replace('title = "Test Skirmish"', 'title = "Flag Race"').replace("flags_to_win = 4", "flags_to_win = 1")
             .replace('[[units]]\nside = "union"\nkind = "general"\nhex = "0606"\n', "")
             .replace('[[units]]\nside = "confederate"\nkind = "general"\nhex = "0604"\n', ""))
WINNING_TURN = ("play attack-centre", "order ui2", "move ui2 0605", "battle ui2 0604 dice=1,1,1,1")


@pytest.fixture(autouse=True)
def flag_race(scenario_dir):
    (scenario_dir / "flag-race.toml").write_text(FLAG_RACE, encoding="utf-8")


async def started(bot, channel: int, union: int, confederate: int, scenario: str = "flag-race"):
    service = bot.service
    await service.new_game(GUILD_ID, channel, union, "battlecry", scenario, "1", side="union")
    await service.join(channel, confederate, "confederate")
    await service.start(channel, union)
    return await bot.store.active_game(channel)


async def union_wins(bot, channel: int, union: int):
    for line in WINNING_TURN:
        result = await bot.service.act(channel, union, line)
    assert result.over and "Union wins with 1 flags" in result.result
    return result


async def rows(bot, campaign_id: int):
    return [(r.game_id, r.side, r.user_id, r.outcome, r.score) for r in await campaigns.results(bot.store, campaign_id)]


async def new_campaign(d, user: int, name: str, ruleset: str | None = None, perms: int = 0):
    """/campaign new (its `name` option cannot go through Driver.cmd's keywords)."""
    opts = [option("name", name)] + ([option("ruleset", ruleset)] if ruleset else [])
    with fake_discord_rest() as rest:
        await invoke(d.bot, interaction_payload("campaign", opts, subcommand="new", user_id=user,
                                                permissions=perms, channel_id=d.channel_id))
    return rest


# --- the rules --------------------------------------------------------------------------------------
def test_battle_cry_campaign_flags_are_the_winners_flags_minus_the_losers():
    """BC §6 / digest §5.3: the winner gains his flags - the opponent's; the loser gains none."""
    rs = get_ruleset("battlecry")
    g = Game.new("battlecry", "flag-race", 1, scenario=rs.parse_scenario(FLAG_RACE))
    st = g.state.copy()
    st.flags, st.winner, st.phase = {"union": 2, "confederate": 6}, "confederate", "over"
    score = rs.campaign_score(g.scenario, st)
    assert score["confederate"][:2] == ("win", 4) and score["union"][:2] == ("loss", 0)
    assert score["confederate"][2]["tiebreak"] == 4 and score["union"][2]["tiebreak"] == -4
    st.winner = None                                             # no winner: nobody gains
    assert {s: v[:2] for s, v in rs.campaign_score(g.scenario, st).items()} == {"union": ("draw", 0),
                                                                                "confederate": ("draw", 0)}


def test_tacw_scores_the_victory_level_with_the_vp_difference_as_tiebreak():
    from engine.tacw import victory
    rs = get_ruleset("tacw")
    g = Game.new("tacw", "edgehill", 5)
    st = g.state.copy()
    royal_foot = next(u for u in st.units.values() if u.side == "royalist" and u.kind == "heavy")
    royal_foot.status = "eliminated"                             # VP for Parliament
    victory.end_of_battle(g.scenario, st)
    diff = st.vp["parliament"] - st.vp["royalist"]
    assert diff > 0 and st.winner == "parliament" and "Parliament marginal victory" in st.result   # Edgehill: -9..10
    score = rs.campaign_score(g.scenario, st)
    assert score["parliament"][:2] == ("win", 3) and score["royalist"][:2] == ("loss", 1)
    assert score["parliament"][2]["tiebreak"] == diff and score["royalist"][2]["tiebreak"] == -diff
    resigned, _ = rs.apply(g.scenario, g.state, "parliament", parse("resign"))
    score = rs.campaign_score(g.scenario, resigned)              # a resignation concedes a decisive victory
    assert score["royalist"][:2] == ("win", 4) and score["parliament"][:2] == ("loss", 0)
    assert score["royalist"][2]["level"] == "Royalist decisive victory (resignation)"


# --- through the bot --------------------------------------------------------------------------------
async def test_a_battle_cry_campaign_records_each_battle_and_ranks_by_campaign_flags(d, bot):
    rest = await new_campaign(d, ALICE, "Autumn 1862", "battlecry")
    assert "Campaign **Autumn 1862** is open for **Battle Cry** games" in public(rest)
    assert "Campaign Flags" in rest.last.content
    rest = await new_campaign(d, BOB, "autumn  1862")
    refused(rest, "already has a campaign named 'autumn 1862'")

    # battle 1, in this channel, through the slash commands: Alice (Union) beats Bob
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="flag-race", side="union", seed="1")
    await d.game("join", user=BOB, side="confederate")
    choices = await d.complete("campaign", "campaign", sub="add", user=BOB, campaign="autumn")
    assert choices == [{"name": "Autumn 1862 (battlecry)", "value": "Autumn 1862"}]
    rest = await d.cmd("campaign", sub="add", user=BOB, campaign="autumn 1862")      # a player of the game
    assert "counts in campaign **Autumn 1862**" in public(rest) and "recorded when the battle ends" in rest.last.content
    game1 = await bot.store.active_game(d.channel_id)
    await d.game("start", user=ALICE)
    for verb, opts in (("play", {"card": "attack-centre"}), ("order", {"units": "ui2"}),
                       ("move", {"unit": "ui2", "to": "0605"})):
        public(await d.cmd("bc", sub=verb, user=ALICE, **opts))
    rest = await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604", dice="1,1,1,1")
    assert "Union wins with 1 flags" in public(rest)
    c = await campaigns.find_campaign(bot.store, GUILD_ID, "AUTUMN 1862")
    assert await rows(bot, c.id) == [(game1.id, "confederate", BOB, "loss", 0), (game1.id, "union", ALICE, "win", 1)]

    # battle 2 elsewhere, sides swapped: Bob wins; added by its number from this channel
    g2 = await started(bot, CHANNEL_ID + 1, BOB, ALICE)
    rest = await d.cmd("campaign", sub="add", user=ALICE, campaign="Autumn 1862", game=g2.id)
    assert f"Game #{g2.id} (Flag Race)" in public(rest)
    await union_wins(bot, CHANNEL_ID + 1, BOB)
    rest = await d.cmd("campaign", sub="standings", user=CAROL)       # anyone may read; default: this channel's
    assert rest.calls[0].type == 5
    text = public(rest)
    assert rest.last.data["allowed_mentions"]["parse"] == []          # names shown, nobody pinged
    assert "**Campaign 'Autumn 1862'** · Battle Cry · 2 battle(s) recorded" in text
    assert f"1. {name_of(ALICE)} · 2 played: 1 W 0 D 1 L · **1** Campaign Flags (flag difference +0)" in text
    assert f"1. {name_of(BOB)} · 2 played: 1 W 0 D 1 L · **1** Campaign Flags (flag difference +0)" in text
    assert "1. Union · 2 played: 2 W 0 D 0 L · **2** Campaign Flags (flag difference +2)" in text
    assert "2. Confederate · 2 played: 0 W 0 D 2 L · **0** Campaign Flags (flag difference -2)" in text
    assert "Level at the top on 1 Campaign Flags." in text and "2 played so far" in text     # BC §6: 3 battles or more
    [(name, png)] = rest.last.files
    assert name == "standings.png" and png_size(png)[0] > 400

    # battle 3: Bob resigns at 0 - 0 flags. HERALD (rules.end_report): a resignation concedes the
    # battle's victory flags, so Alice gains 1 - 0 = 1 Campaign Flag, not 0 (BC §6)
    g3 = await started(bot, CHANNEL_ID + 2, ALICE, BOB)
    await campaigns.add_game(bot.service, GUILD_ID, "Autumn 1862", ALICE, game_id=g3.id)
    result = await bot.service.act(CHANNEL_ID + 2, BOB, "resign")
    assert "Union gains 1 Campaign Flag (1 - 0, BC §6 Campaign; a resignation concedes" in result.result
    assert await rows(bot, c.id) == [
        (game1.id, "confederate", BOB, "loss", 0), (game1.id, "union", ALICE, "win", 1),
        (g2.id, "confederate", ALICE, "loss", 0), (g2.id, "union", BOB, "win", 1),
        (g3.id, "confederate", BOB, "loss", 0), (g3.id, "union", ALICE, "win", 1)]
    rest = await d.cmd("campaign", sub="standings", campaign="autumn 1862")
    assert f"#{g3.id} Flag Race: Union {name_of(ALICE)} win 1 · Confederate {name_of(BOB)} loss 0" in rest.last.content

    # a fourth battle, in progress, then won: Alice leads on Campaign Flags
    g4 = await started(bot, CHANNEL_ID + 3, ALICE, BOB)
    await campaigns.add_game(bot.service, GUILD_ID, "Autumn 1862", BOB, game_id=g4.id)
    rest = await d.cmd("campaign", sub="standings", campaign="autumn 1862")
    assert f"#{g4.id}" in rest.last.content and "1 in progress" in rest.last.content
    await union_wins(bot, CHANNEL_ID + 3, ALICE)
    rest = await d.cmd("campaign", sub="standings", campaign="autumn 1862")
    assert f"{name_of(ALICE)} leads with 3 Campaign Flags." in rest.last.content
    assert "in progress" not in rest.last.content


async def test_refusals_store_nothing(d, bot, game):
    rest = await d.cmd("campaign", sub="add", user=ALICE, campaign="Nope")
    refused(rest, "no campaign 'Nope'", "/campaign new")
    public(await new_campaign(d, CAROL, "Civil War", "tacw"))
    public(await new_campaign(d, CAROL, "Open"))
    rest = await d.cmd("campaign", sub="add", user=ALICE, campaign="Civil War")
    refused(rest, "campaign 'Civil War' is for This Accursed Civil War games", f"game #{game.id} is Battle Cry")
    rest = await new_campaign(d, ALICE, "x" * 61)
    refused(rest, "at most 60 characters")
    open_ = await campaigns.find_campaign(bot.store, GUILD_ID, "open")
    # Carol neither plays this game nor created it, nor the campaign's creator here: refused...
    other = await campaigns.create_campaign(bot.service, GUILD_ID, "Bob's", None, BOB)
    rest = await d.cmd("campaign", sub="add", user=CAROL, campaign="Bob's")
    refused(rest, "only the campaign's creator, a server administrator, or a player")
    rest = await d.cmd("campaign", sub="add", user=CAROL, campaign="Bob's", game=game.id + 100)
    refused(rest, f"no game #{game.id + 100}")
    assert await campaigns.game_ids(bot.store, other.id) == []
    # ...but an administrator, or the campaign's creator, may
    public(await d.cmd("campaign", sub="add", user=CAROL, perms=ADMIN_PERMS, campaign="Bob's"))
    public(await d.cmd("campaign", sub="add", user=CAROL, campaign="Open"))
    rest = await d.cmd("campaign", sub="add", user=ALICE, campaign="Open")
    refused(rest, f"game #{game.id} is already in campaign 'Open'")
    assert await campaigns.game_ids(bot.store, open_.id) == [game.id]

    # several campaigns and none named: which one? (this channel's game is in two)
    other_channel = Driver(bot, channel_id=CHANNEL_ID + 5)
    rest = await other_channel.cmd("campaign", sub="standings")
    refused(rest, "which campaign?", "Bob's, Civil War, Open")
    rest = await d.cmd("campaign", sub="standings", campaign="Open")
    assert "No battle of this campaign has ended yet." in public(rest) and rest.last.files == []
    rest = await d.cmd("campaign", sub="list")
    assert "**Civil War** · tacw · 0 game(s)" in public(rest) and "**Open** · any ruleset · 1 game(s)" in rest.last.content

    await d.game("abandon", user=ALICE)
    rest = await d.cmd("campaign", sub="add", user=ALICE, perms=ADMIN_PERMS, campaign="Civil War", game=game.id)
    refused(rest, "was abandoned")


async def test_a_finished_game_counts_when_added_and_missed_ends_are_caught_up(d, bot):
    g1 = await started(bot, CHANNEL_ID, ALICE, BOB)
    await union_wins(bot, CHANNEL_ID, ALICE)                       # over before any campaign holds it
    public(await new_campaign(d, ALICE, "Late"))
    rest = await d.cmd("campaign", sub="add", user=BOB, campaign="Late")   # the channel's finished game
    assert "The battle is over: its result is recorded (Union win 1 · Confederate loss 0)" in public(rest)
    c = await campaigns.find_campaign(bot.store, GUILD_ID, "Late")
    assert len(await rows(bot, c.id)) == 2

    # a game ended by some other path than GameService.act (no hook ran): the standings record it
    g2 = await started(bot, CHANNEL_ID + 1, BOB, ALICE)
    await campaigns.add_game(bot.service, GUILD_ID, "Late", BOB, game_id=g2.id)
    service = bot.service
    for line in WINNING_TURN[:-1]:
        await service.act(CHANNEL_ID + 1, BOB, line)
    await bot.store.set_status(g2.id, "over", "ended by a referee")
    assert await campaigns.record_game(service, g1.id) == []      # idempotent: nothing twice
    rest = await d.cmd("campaign", sub="standings")                 # this channel's game's campaign
    assert "2 battle(s) recorded" in public(rest)
    assert (g2.id, "union", BOB, "draw", 0) in await rows(bot, c.id)

    # a crash between the last command and the status update: the restart's resume_all ends the
    # game, and its hook records it
    g3 = await started(bot, CHANNEL_ID + 2, ALICE, BOB)
    await campaigns.add_game(bot.service, GUILD_ID, "Late", ALICE, game_id=g3.id)
    for line in WINNING_TURN[:-1]:
        await service.act(CHANNEL_ID + 2, ALICE, line)
    loaded = await service.load(CHANNEL_ID + 2)
    state, events = loaded.ruleset.apply(loaded.scenario, loaded.state, "union", parse(WINNING_TURN[-1]))
    await bot.store.append_command(g3.id, seq=loaded.seq + 1, user_id=ALICE, side="union", text=WINNING_TURN[-1],
                                   dice=[], events=[e.to_dict() for e in events], state=loaded.ruleset.state_to_dict(state))
    assert (await bot.store.get_game(g3.id)).status == "active"
    await service.resume_all()
    assert (await bot.store.get_game(g3.id)).status == "over"
    assert {r[1:] for r in await rows(bot, c.id) if r[0] == g3.id} == {("union", ALICE, "win", 1),
                                                                       ("confederate", BOB, "loss", 0)}


async def test_a_shared_side_credits_each_of_its_players(d, bot):
    g1 = await started(bot, CHANNEL_ID, ALICE, BOB)
    await bot.store.add_member(g1.id, CAROL, "player", "union")      # Carol shares the Union (bot/club.py)
    await campaigns.create_campaign(bot.service, GUILD_ID, "Team", "battlecry", ALICE)
    await campaigns.add_game(bot.service, GUILD_ID, "Team", ALICE, game_id=g1.id)
    await union_wins(bot, CHANNEL_ID, ALICE)
    rest = await d.cmd("campaign", sub="standings", campaign="Team")
    text = public(rest)
    assert f"<@{ALICE}> · 1 played: 1 W 0 D 0 L · **1** Campaign Flags" in text
    assert f"<@{CAROL}> · 1 played: 1 W 0 D 0 L · **1** Campaign Flags" in text
    assert f"Union <@{ALICE}> <@{CAROL}> win 1" in text
    assert "A campaign is at least 3 battles (BC §6): 1 played so far." in text


async def test_a_tacw_campaign_scores_victory_levels(d, bot):
    service = bot.service
    await service.new_game(GUILD_ID, CHANNEL_ID, ALICE, "tacw", "edgehill", 5, side="royalist")
    await service.join(CHANNEL_ID, BOB, "parliament")
    await service.start(CHANNEL_ID, ALICE)
    public(await new_campaign(d, ALICE, "Civil War", "tacw"))
    public(await d.cmd("campaign", sub="add", user=ALICE, campaign="Civil War"))
    rest = await d.game("resign", user=BOB)
    assert "Parliament resigns" in public(rest)
    rest = await d.cmd("campaign", sub="standings")
    text = public(rest)
    assert "· This Accursed Civil War ·" in text and "victory level points" in text
    assert f"1. {name_of(ALICE)} · 1 played: 1 W 0 D 0 L · **4** victory level points (VP difference +0)" in text
    assert f"2. {name_of(BOB)} · 1 played: 0 W 0 D 1 L · **0** victory level points" in text
    assert "(Royalist decisive victory (resignation))" in text
    assert png_size(rest.last.files[0][1])[0] > 400

    # a campaign of any ruleset holds the same game too, scored by the game's own ruleset
    public(await new_campaign(d, BOB, "Open"))
    rest = await d.cmd("campaign", sub="add", user=BOB, campaign="Open")
    assert "its result is recorded (Royalist win 4 · Parliament loss 0)" in public(rest)
    text = public(await d.cmd("campaign", sub="standings", campaign="open"))
    assert "· any ruleset ·" in text and "each game is scored by its own ruleset's campaign rule" in text
    assert f"1. {name_of(ALICE)} · 1 played: 1 W 0 D 0 L · **4** score (difference +0)" in text


async def end_by_flags(bot, channel: int, union_flags: int, confederate_flags: int, loser: int):
    """A referee sets the captured flags (bot/club.py `correct`, logged), then `loser` resigns:
    the battle ends with those flags on the board (BC §6)."""
    from bot import club
    await club.correct(bot.service, channel, CAROL, f"flags.union={union_flags} flags.confederate={confederate_flags}",
                       "flags as on the club table", is_admin=True)
    result = await bot.service.act(channel, loser, "resign")
    assert result.over
    return result


async def test_a_balancing_pair_scores_each_player_across_swapped_sides(d, bot):
    """BC §6 "Bilanciare gli Scenari" (battle-cry.it.txt p. 11; digest §6): the players play the
    scenario again with sides swapped; the winner has the most Campaign Flags over both battles,
    each battle's winner gaining his flags minus his opponent's ("Giocare una Campagna").
    Worked case: game 1, Alice (Union) beats Bob 5-2 and gains 3 Campaign Flags; the return game
    (/game rematch: Bob Union, Alice Confederate), Bob beats Alice 4-3 and gains 1. One win each;
    Alice wins the pair 3 to 1. Counted per side the Union would hold all 4, so the table must
    credit the player who held the side in each game."""
    public(await new_campaign(d, ALICE, "Pair", "battlecry"))
    g1 = await started(bot, CHANNEL_ID, ALICE, BOB)
    public(await d.cmd("campaign", sub="add", user=ALICE, campaign="Pair"))
    await end_by_flags(bot, CHANNEL_ID, 5, 2, loser=BOB)

    rest = await d.game("rematch", user=BOB)                         # the return game, in the same channel
    public(rest)
    g2 = await bot.store.active_game(CHANNEL_ID)
    assert g2.id != g1.id and await bot.store.seats(g2.id) == {"union": BOB, "confederate": ALICE}
    c = await campaigns.find_campaign(bot.store, GUILD_ID, "Pair")
    await end_by_flags(bot, CHANNEL_ID, 4, 3, loser=ALICE)           # ends: the return game joins the campaign
    assert await campaigns.game_ids(bot.store, c.id) == [g1.id, g2.id]
    assert await rows(bot, c.id) == [(g1.id, "confederate", BOB, "loss", 0), (g1.id, "union", ALICE, "win", 3),
                                     (g2.id, "confederate", ALICE, "loss", 0), (g2.id, "union", BOB, "win", 1)]

    text = public(await d.cmd("campaign", sub="standings", campaign="Pair"))
    assert f"1. {name_of(ALICE)} · 2 played: 1 W 0 D 1 L · **3** Campaign Flags (flag difference +2)" in text
    assert f"2. {name_of(BOB)} · 2 played: 1 W 0 D 1 L · **1** Campaign Flags (flag difference -2)" in text
    assert "1. Union · 2 played: 2 W 0 D 0 L · **4** Campaign Flags" in text
    assert f"{name_of(ALICE)} leads with 3 Campaign Flags." in text
    assert "A campaign is at least 3 battles (BC §6): 2 played so far." in text
    # the same verdict as the engine's own pair arithmetic (engine/battlecry/campaign.py pair_result)
    pair = await bot.service.balancing_line(await bot.service.load(CHANNEL_ID, finished_ok=True))
    assert f"<@{ALICE}> 3, <@{BOB}> 1: <@{ALICE}> wins the pair" in pair


async def test_an_abandoned_game_never_counts(d, bot):
    """HERALD (bot/campaigns.py): /game abandon cancels, it is not a result."""
    public(await new_campaign(d, ALICE, "Season"))
    g1 = await started(bot, CHANNEL_ID, ALICE, BOB)
    public(await d.cmd("campaign", sub="add", user=BOB, campaign="Season"))
    public(await d.game("abandon", user=ALICE))
    c = await campaigns.find_campaign(bot.store, GUILD_ID, "Season")
    assert await campaigns.record_game(bot.service, g1.id) == [] and await rows(bot, c.id) == []
    text = public(await d.cmd("campaign", sub="standings", campaign="Season"))
    assert f"abandoned, not counted: #{g1.id}" in text and "No battle of this campaign has ended yet." in text
    assert "in progress" not in text


async def test_standings_name_the_players_as_they_show_on_the_server_without_the_member_cache(d, bot, monkeypatch):
    """Issue 11: without the members intent the member cache is empty; the standings text and
    picture name each player as their own commands showed them (bot/names.py), and a name
    changed since is taken up by the next command."""
    drawn = []

    def render_standings(title, subtitle, sections):
        drawn.append(sections)
        return b"\x89PNG fake"

    import renders.standings
    monkeypatch.setattr(renders.standings, "render_standings", render_standings)
    await new_campaign(d, ALICE, "Names")
    await d.game("new", user=ALICE, ruleset="battlecry", scenario="flag-race", side="union", seed="1")
    await d.game("join", user=BOB, side="confederate")
    await d.cmd("campaign", sub="add", user=ALICE, campaign="Names")
    await d.game("start", user=ALICE)
    for line in WINNING_TURN:
        public(await d.cmd("act", user=ALICE, line=line))
    assert bot.get_guild(GUILD_ID) is None and bot.get_user(ALICE) is None and bot.get_user(BOB) is None

    text = public(await d.cmd("campaign", sub="standings", user=CAROL, campaign="Names"))
    assert f"1. {name_of(ALICE)} · 1 played: 1 W 0 D 0 L" in text and f"2. {name_of(BOB)} · 1 played" in text
    assert f"Union {name_of(ALICE)} win 1 · Confederate {name_of(BOB)} loss 0" in text
    assert "<@" not in text and "player …" not in text
    players = drawn[-1][0][2]
    assert [row[1] for row in players] == [name_of(ALICE), name_of(BOB)]

    # Bob takes a server nickname (with markdown in it): his next command keeps it
    payload = d.payload("campaign", sub="list", user=BOB)
    payload["member"]["nick"] = "*Stonewall* Bob"
    with fake_discord_rest():
        await invoke(bot, payload)
    text = public(await d.cmd("campaign", sub="standings", user=CAROL, campaign="Names"))
    assert "2. \\*Stonewall\\* Bob · 1 played" in text           # shown as typed, not as markdown
    assert [row[1] for row in drawn[-1][0][2]] == [name_of(ALICE), "*Stonewall* Bob"]
    standings = await campaigns.standings(bot.service, await campaigns.find_campaign(bot.store, GUILD_ID, "Names"))
    assert campaigns.standings_table(standings)["sections"][0][2][1][1] == "*Stonewall* Bob"
