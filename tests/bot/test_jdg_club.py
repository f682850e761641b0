"""A club plays Marengo (Jours de Gloire, issue 14) on Discord as it plays TACW: through the real
command tree and mocked interactions (tests/bot/harness.py). Alice commands the French, Bob the
Austrians; seed 9, the demo's (bot/demos/jdg--marengo.txt).

The positions are reached as the demo's scripted commander plays them (engine/jdg/autoplay.py,
read from the engine as it stands, so the tests follow the rules' changes): its lines go through
the service (as test_tacw_bot.py creates its games), then the moment under test through the tree:
the menus and their clicks, the decision buttons and the deadline's default answer, the history's
public view of the secret orders (log, /explain, the board at an earlier point, the GIF, the
export), physical dice, undo with consent, export and import, a campaign, /odds."""
from __future__ import annotations

from bot.menus import Menus, offered
from engine.core.game import Game
from tests.bot.harness import ALICE, BOB, CAROL, Driver, public, refused
from tests.bot.test_menus import choose, items, menus_of, path_by_clicks, press, within_discord_limits

SEED = 9
SQUARE_SEED = 4          # a game where Austrian cavalry soon charges French infantry in the open
USERS = {"french": ALICE, "austrian": BOB}


def mirror(policies=(), seed=SEED) -> Game:
    """Marengo (seed 9 unless told) in the engine alone, with the standing policies given first."""
    g = Game.new("jdg", "marengo", seed)
    for side, line in policies:
        g.apply(side, line)
    return g


def autoplay_until(g: Game, done, limit: int = 800) -> list[tuple[str, str]]:
    """The lines engine/jdg/autoplay.py's plain commander gives on `g` until `done(g.state)` holds
    after one of its steps (whose last line is then the one that made it so). The scripted game
    of the demo (bot/demos/jdg--marengo.txt) is written by the same player, but read from the
    engine as it stands, so these tests follow the rules' changes."""
    from engine.jdg.autoplay import play_step
    lines: list[tuple[str, str]] = []
    while not done(g.state):
        out = play_step(g)
        assert out and len(lines) < limit, "the autoplayer found nothing more"
        lines += out
    return lines


def pending_kind(kind: str):
    return lambda st: bool(st.pending) and st.pending["kind"] == kind


async def marengo(d: Driver, lines=(), policies=(), seed=SEED):
    """The same game through the service: Alice French, Bob Austrian, started; the policies
    through the tree (`/jdg policy`), then `lines` through the service."""
    service = d.bot.service
    await service.new_game(1, d.channel_id, ALICE, "jdg", "marengo", seed, side="french")
    await service.join(d.channel_id, BOB, "austrian")
    await service.start(d.channel_id, ALICE)
    for side, line in policies:
        _, kind, value = line.split()
        rest = await d.cmd("jdg", sub="policy", user=USERS[side], kind=kind, value=value)
        assert not rest.last.ephemeral, rest.last.content
    await replay(d, lines)
    return await d.bot.store.active_game(d.channel_id)


async def replay(d: Driver, lines) -> None:
    for side, line in lines:
        await d.bot.service.act(d.channel_id, USERS[side], line)


async def play_by_clicks(d: Driver, components: list[dict], line: str, user: int):
    """Give `line` by clicks only, from a public message's menus (test_menus' walk, where a choice
    may add two words, `face nw`): its quick button when there is one, else the verb in the select,
    then the longest offered choice the line goes through, each in the private builder, then Send."""
    within_discord_limits(components)
    quick = [c["custom_id"] for c in items(components) if c.get("custom_id", "").startswith("herald:go:")]
    if any(q.endswith(f":{line}") for q in quick):
        rest = await press(d, components, "herald:go:", line, user)
        assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []   # menus off the old post
        return rest
    current = line.split()[0]
    rest = await choose(d, components, current, user)
    assert rest.last.ephemeral, rest.last.content                # the builder is the player's alone
    while current != line:
        comps = menus_of(rest)
        [select] = [c for c in items(comps) if c["type"] == 3]
        fits = [o["value"] for o in select["options"]
                if o["value"] == line or line.startswith(o["value"] + " ")]
        assert fits, (current, line, [o["value"] for o in select["options"]])
        current = max(fits, key=len)
        rest = await choose(d, comps, current, user)
        assert rest.calls[-1].kind == "edit_original"            # the same private message, edited
    rest = await press(d, menus_of(rest), "herald:send:", line, user)
    assert rest.calls[0].type == 7 and "Sent" in rest.calls[0].data["content"]
    assert not rest.last.ephemeral, rest.last.content
    return rest


async def state(d: Driver):
    return (await d.bot.service.load(d.channel_id)).state


# --- 1. a whole activation by clicks alone ----------------------------------------------------------
def test_a_marengo_games_lines_can_each_be_built_by_clicks():
    """At every 5th line of Marengo as the autoplayer plays it (the demo's player), with no
    decision pending, the line's verb is offered in the menus and the whole line is built by their
    choices (as test_menus does for Battle Cry and TACW): assaults (`assault <units> on <hex>`), a
    stack's facing (`... face nw`), forced marches (`... forced`), reinforcements entering (`move
    <unit> <entry hex> ...`) and the strategic initiative's marker (`first <marker>`) included."""
    from engine.jdg.autoplay import play_step
    g, lines = mirror(), []
    while len(lines) < 400:
        lines += play_step(g)
    g = mirror()
    checked, stuck, verbs_seen = 0, [], set()
    for n, (side, line) in enumerate(lines):
        line = line.lower()                         # the menus offer `face nw`
        verb = g.ruleset.commands.verb(line.split()[0])
        if n % 5 == 0 and g.ruleset.pending(g.state) is None and side == g.to_act and offered(verb) \
                and len(line) <= 80:                # longer: left to /act (a button's custom_id)
            checked += 1
            m = Menus(g.ruleset, g.scenario, g.state, side)
            if verb.name not in [c.line for c in m.step("").choices]:
                stuck.append((n, line, "verb not offered"))
            elif (where := path_by_clicks(m, line)) is not None:
                stuck.append((n, line, where))
            verbs_seen.add(verb.name)
        g.apply(side, line)
    assert checked > 50 and stuck == []
    assert {"draw", "initiative", "move", "assault", "resolve", "next"} <= verbs_seen


async def test_an_activation_by_clicks_alone_then_the_next_draw(d):
    """Phase B: the French play their first marker by the slash command; its activation is then
    given by clicks alone, line by line as the autoplayer plays it (the initiative, a fire, moves
    facing as they end, assaults, their resolution, `next` to the end; Bob answers the assault's
    refusal question by its button); then the next marker is drawn by a click, and its board
    carries the menus of the side the game waits on. Only that player may click."""
    g = mirror()
    opening = autoplay_until(g, lambda st: st.phase == "initiative" and st.initiative == "french")
    game = await marengo(d, opening)
    [(_, first)] = autoplay_until(g, lambda st: st.phase != "initiative")
    rest = await d.cmd("jdg", sub="first", user=ALICE, marker=first.split()[1])
    comps = rest.last.components
    assert not rest.last.ephemeral and items(comps)[0]["custom_id"].startswith(f"herald:menu:{game.id}:")
    refused(await choose(d, comps, "move", BOB), "waits on French")
    refused(await choose(d, comps, "move", CAROL), "not a player")
    go = next(c for c in items(comps) if c["custom_id"].startswith("herald:go:"))
    refused(await d.click(go["custom_id"], comps, user=BOB), "waits on French")
    act = g.state.activation
    activation = autoplay_until(g, lambda st: st.activation is not act and not st.pending
                                and st.activation is None)
    verbs, answered = [], 0
    for side, line in activation:
        seq = await d.bot.store.last_seq(game.id)
        loaded = await d.bot.service.load(d.channel_id)
        if loaded.state.pending:                    # the defender's question: its buttons
            assert side == loaded.state.pending["side"]
            msg = rest.last
            answers = answers_of(loaded)
            rest = await d.click(msg.custom_ids[answers.index(line)], msg.components, user=USERS[side])
            answered += 1
        elif len(line) > 80:                        # too long for a button: left to /act
            rest = await d.cmd("act", user=USERS[side], line=line)
        else:
            rest = await play_by_clicks(d, comps, line.lower(), USERS[side])
            verbs.append(line.split()[0])
        assert await d.bot.store.last_seq(game.id) == seq + 1, line
        assert [n for n, _ in rest.last.files] == ["board.png"], line        # a new board posted
        comps = rest.last.components
    assert {"initiative", "fire", "move", "assault", "resolve", "next"} <= set(verbs), verbs
    assert answered >= 1
    assert (await state(d)).state_hash() == g.state.state_hash()        # the same game as the engine's
    # the next marker is drawn by a click too; its board carries the menus of the one to act
    [(side, draw)] = autoplay_until(g, lambda st: st.activation is not None)
    assert draw == "draw"
    rest = await play_by_clicks(d, comps, "draw", USERS[side])
    assert "from the cup" in rest.last.content
    st = await state(d)
    user, other = (ALICE, BOB) if st.activation.side == "french" else (BOB, ALICE)
    comps = rest.last.components
    seq = await d.bot.store.last_seq(game.id)
    assert items(comps)[0]["custom_id"] == f"herald:menu:{game.id}:{seq}"
    refused(await choose(d, comps, "move", other), f"waits on {st.activation.side.title()}")
    rest = await choose(d, comps, "move", user)                    # the builder opens privately
    assert rest.last.ephemeral and "move" in rest.last.content


# --- 2. reactions with buttons, and a deadline's default answer -------------------------------------
def answers_of(game) -> list[str]:
    """The answer lines of the decision pending (a Game or a loaded game)."""
    return [a.line for a in game.ruleset.pending(game.state).answers]


async def asked(d: Driver, rest, side: str, user: int, hint: str):
    """The posted reply to the action that opened a decision: public, with the board, naming the
    side and its player with the `/act` line that answers, and one answer button per answer."""
    msg = rest.last
    text = public(rest)
    assert f"**{side.title()}** <@{user}>" in text and f"`/act {hint}`" in text, text
    assert [n for n, _ in msg.files] == ["board.png"]
    loaded = await d.bot.service.load(d.channel_id)
    assert len(msg.custom_ids) == len(answers_of(loaded))
    assert all(c.startswith(f"herald:answer:{loaded.row.id}:{loaded.seq}:") for c in msg.custom_ids)
    return msg, loaded


async def click_answer(d: Driver, msg, loaded, line: str, user: int, other: int):
    """The answer `line` by its button: the other player's click refused, the player's applied
    (the buttons taken off the question), then the same button stale."""
    cid = msg.custom_ids[answers_of(loaded).index(line)]
    refused(await d.click(cid, msg.components, user=other), loaded.ruleset.pending(loaded.state).side.title())
    refused(await d.click(cid, msg.components, user=CAROL))
    assert await d.bot.store.last_seq(loaded.row.id) == loaded.seq
    rest = await d.click(cid, msg.components, user=user)
    assert rest.calls[0].type == 7 and rest.calls[0].data["components"] == []
    assert (await d.bot.store.commands(loaded.row.id))[-1].text == line
    assert await d.bot.store.last_seq(loaded.row.id) == loaded.seq + 1
    refused(await d.click(cid, msg.components, user=user), "no longer open")
    return rest


async def test_square_asked_of_the_french_and_answered_by_button(d):
    """French policy square ask: when Austrian cavalry charges French infantry in open ground
    [9.3], the charge's resolution stops and asks Alice whether to form square."""
    policies = [("french", "policy square ask")]
    g = mirror(policies, seed=SQUARE_SEED)
    lines = autoplay_until(g, pending_kind("square"))
    *before, (side, trigger) = lines
    game = await marengo(d, before, policies, seed=SQUARE_SEED)
    assert (await state(d)).policies["french"]["square"] == "ask"
    assert side == "austrian" and trigger == "resolve"
    rest = await d.cmd("jdg", sub="resolve", user=BOB)
    msg, loaded = await asked(d, rest, "french", ALICE, "react " + "|".join(
        a.split()[1] for a in answers_of(g)))
    rest = await click_answer(d, msg, loaded, answers_of(loaded)[0], ALICE, BOB)
    assert "square" in public(rest)


async def test_a_refusal_asked_and_its_deadline_answers_with_the_default(d):
    """Austrian policy refuse ask (the book's default too): when the French assault cavalry that
    may refuse [8.8], Bob is asked; nobody answers within the game's deadline (/game deadline),
    and Herald answers with the decision's default, once, through the same act as a player."""
    from datetime import timedelta
    from bot.deadlines import expire_due, parse_time
    policies = [("austrian", "policy refuse ask")]
    g = mirror(policies)
    *before, (side, trigger) = autoplay_until(g, pending_kind("refuse_assault"))
    game = await marengo(d, before, policies)
    assert not (await d.game("deadline", user=ALICE, hours=2)).last.ephemeral
    rest = await d.cmd("act", user=USERS[side], line=trigger)
    msg, loaded = await asked(d, rest, "austrian", BOB, "react refuse|stand")
    default = loaded.ruleset.default_answer(loaded.state)
    assert default in answers_of(loaded)
    start = parse_time((await d.bot.store.last_command(game.id)).created_at)
    status = (await d.game("status", user=CAROL)).last.content
    assert "decision expires" in status and f"`{default}`" in status, status
    assert await expire_due(d.bot.service, start + timedelta(minutes=119)) == []
    [result] = await expire_due(d.bot.service, start + timedelta(minutes=121))
    assert (result.text, result.side, result.seq) == (default, "austrian", loaded.seq + 1)
    cmd = await d.bot.store.last_command(game.id)
    assert cmd.user_id == BOB and cmd.interaction_id == f"deadline:{game.id}:{loaded.seq}"
    assert await expire_due(d.bot.service, start + timedelta(hours=50)) == []
    refused(await d.click(msg.custom_ids[0], msg.components, user=BOB), "no longer open")
    assert await d.bot.service.verify(await d.bot.store.get_game(game.id))


async def test_a_counter_charge_asked_by_button(d):
    """Policy countercharge ask: cavalry charged by cavalry may counter-charge [9.4]: its player
    is asked, and answers by button."""
    policies = [("french", "policy countercharge ask"), ("austrian", "policy countercharge ask")]
    g = mirror(policies)
    *before, (side, trigger) = autoplay_until(g, pending_kind("counter_charge"))
    game = await marengo(d, before, policies)
    rest = await d.cmd("act", user=USERS[side], line=trigger)
    who = g.state.pending["side"]
    other = BOB if who == "french" else ALICE
    msg, loaded = await asked(d, rest, who, USERS[who], "react " + "|".join(a.split()[1] for a in answers_of(g)))
    assert "counter-charge" in msg.content
    rest = await click_answer(d, msg, loaded, answers_of(loaded)[0], USERS[who], other)
    public(rest)


async def test_a_fall_back_hex_asked_by_button(d):
    """Policy retreat ask: a unit made to fall back [10.3] waits for its player's hex, by button."""
    policies = [("french", "policy retreat ask"), ("austrian", "policy retreat ask")]
    g = mirror(policies)
    *before, (side, trigger) = autoplay_until(g, pending_kind("retreat"))
    game = await marengo(d, before, policies)
    rest = await d.cmd("act", user=USERS[side], line=trigger)
    who = g.state.pending["side"]
    other = BOB if who == "french" else ALICE
    hexes = [a.split()[1] for a in answers_of(g)]
    msg, loaded = await asked(d, rest, who, USERS[who], "react " + "|".join(hexes))
    unit = g.state.pending["unit"]                  # the ruleset's prompt names the unit ("for :" before)
    assert f"<@{USERS[who]}>: fall back of " in msg.content and f"({unit})" in msg.content, msg.content
    assert "for :" not in msg.content
    rest = await click_answer(d, msg, loaded, f"react {hexes[0]}", USERS[who], other)
    assert hexes[0] in public(rest)


# --- 3. secret orders across the history --------------------------------------------------------------
async def test_the_history_never_shows_an_order_before_its_formations_first_marker(d):
    """Phase A's orders [2.3] stay secret in the log, /explain, the board at an earlier point, the
    GIF replay and its captions, until the formation's first marker is drawn [2.4]; the
    unfinished battle's file (which holds them, and the seed) goes only to the players once all
    agree. The GIF of Marengo renders."""
    import json
    from PIL import Image
    from renders.replay import MAX_BYTES, MAX_WIDTH
    from tests.bot.test_history import file_in, file_of, gif_frames, same_board
    g = mirror()
    orders = autoplay_until(g, lambda st: st.phase != "orders")
    assert [line.split()[0] for _, line in orders] == ["orders", "orders"]
    secret = {f for _, line in orders for f in line.split()[1:]}
    game = await marengo(d, orders)
    from bot.service import board_module
    draw = board_module("jdg").render_board
    after = mirror()
    after.apply(*orders[0])                          # the French orders given, the Austrians' not yet

    def shows_an_order(text: str) -> list[str]:
        return [f for f in secret if f in text.lower()] + [w for w in ("with orders", "without orders")
                                                             if w in text.lower()]
    log = public(await d.game("log", user=CAROL))
    assert log.count("has given its orders") == 2 and shows_an_order(log) == [], log
    for entry in ("1", "2"):
        text = "\n".join(m.content for m in (await d.cmd("explain", user=CAROL, entry=entry)).messages())
        assert shows_an_order(text) == [], text
    rest = await d.game("board", user=CAROL, at=1)
    assert shows_an_order(rest.last.content) == [] and "secret" in rest.last.content, rest.last.content
    # the board then: which side has given its orders, never what they are
    none = mirror()
    none.apply("french", "orders")                   # every French formation Without Orders
    assert after.state.formations[orders[0][1].split()[1]].orders == "with"
    assert draw(after.scenario, after.state) == draw(none.scenario, none.state)
    assert same_board(file_of(rest)[1], draw(after.scenario, after.state))
    # the first activation: its formation's orders are revealed, the others' still not
    more = autoplay_until(g, lambda st: st.activation is not None and st.activation.step != "orders_check"
                          and not st.pending)
    await replay(d, more)
    revealed = {f for f, fm in g.state.formations.items() if fm.revealed}
    assert revealed and revealed < secret | revealed
    still = secret - revealed

    def tells_the_orders_of(text: str) -> list[str]:
        """The unrevealed formations a line gives orders to (a unit may bear its formation's
        name, "Art. Frimont": naming it tells nothing of the orders)."""
        names = {f: g.scenario.formation(f).name.lower() for f in still}
        return [f for f in still for line in text.lower().splitlines()
                if (f in line or names[f] in line) and ("with orders" in line or "without orders" in line)]
    log = public(await d.game("log", user=CAROL, count=25))
    assert tells_the_orders_of(log) == [], log
    assert "with orders" in log.lower() or "without orders" in log.lower()     # the revealed one's
    rest = await d.game("replay", user=CAROL)
    [(name, gif)] = rest.last.files
    assert len(gif) < MAX_BYTES and tells_the_orders_of(rest.last.content) == []
    im, durations = gif_frames(gif)
    assert im.format == "GIF" and 500 <= im.width <= MAX_WIDTH and len(durations) == len(orders + more) + 1
    with Image.open(__import__("io").BytesIO(gif)) as first:
        assert first.size == im.size
    # the unfinished battle's file: never a spectator's; the players' once both agree
    refused(await d.game("export", user=CAROL), "only the game's referee")
    assert not any(m.files for m in (await d.game("export", user=ALICE)).messages())
    rest = await d.game("export", user=BOB)
    assert "hidden information" in rest.messages()[0].content and rest.messages()[0].ephemeral
    doc = json.loads(file_in(rest)[1])
    assert doc["hidden_information"] is True and [c["text"] for c in doc["commands"][:2]] == [l for _, l in orders]


# --- 4. physical dice, undo with consent, export and import, a campaign, /odds -------------------------
async def physical_marengo(d: Driver):
    """/game new ... dice:physical through the tree; orders as the autoplayer gives them."""
    rest = await d.game("new", user=ALICE, ruleset="jdg", scenario="marengo", side="french", seed=str(SEED),
                        dice="physical")
    assert "/dice" in public(rest)
    public(await d.game("join", user=BOB, side="austrian"))
    public(await d.game("start", user=ALICE))
    return await d.bot.store.active_game(d.channel_id)


def rolls(rec) -> list[str]:
    """The d10s a command of the engine's game rolled, as printed (0-9, JdG [0.4]), in order."""
    return [str(r.result) for e in rec.events for r in e.dice]


async def enter_dice(d: Driver, rest, results) -> tuple[object, list[int]]:
    """Enter `results` one at a time, each by the player Herald asks for it; the askers in turn."""
    askers = []
    for face in results:
        ask = public(rest)
        [who] = [u for u in (ALICE, BOB) if f"<@{u}> (" in ask and "roll **1 d10**" in ask] or [None]
        assert who is not None, ask
        other = BOB if who == ALICE else ALICE
        refused(await d.cmd("dice", user=other, results=face), "to roll")
        rest = await d.cmd("dice", user=who, results=face)
        askers.append(who)
    return rest, askers


async def test_physical_dice_initiative_fire_undo_export_import(d, monkeypatch):
    """`/game new ... dice:physical`: the strategic initiative's d10s asked of each side in turn,
    read 0-9 as printed [0.4]; the activation's rolls (the commander's initiative, the fire)
    asked of the French; a move taken back with Bob's consent, a roll never; `/game export` then
    `/game import` gives the same game. The dice entered are the seeded game's, so the game is the
    engine's own (`mirror`) bit for bit."""
    from tests.bot.test_history import OTHER_CHANNEL, file_in, import_file
    game = await physical_marengo(d)
    g = mirror()
    french, austrian = autoplay_until(g, lambda st: st.phase != "orders")
    assert ephemeral_reply(await d.cmd("jdg", sub="orders", user=ALICE, formations=french[1].split(" ", 1)[1]))
    rest = await d.cmd("jdg", sub="orders", user=BOB, formations=austrian[1].split(" ", 1)[1])
    ask = public(rest)                              # the strategic initiative [3]: each side its d10
    assert f"<@{ALICE}> (French), roll **1 d10**" in ask and "strategic initiative, French" in ask
    assert "0-9" in ask and austrian[1].split()[1] not in ask         # no word of the secret orders
    refused(await d.cmd("dice", user=BOB, results="3"), "French's to roll")
    refused(await d.cmd("dice", user=ALICE, results="10"), "0-9", "JdG [0.4]")
    rest, askers = await enter_dice(d, rest, rolls(g.history[-1]))
    assert askers == [ALICE, BOB] and "strategic initiative" in public(rest)
    assert austrian[1].split()[1] not in public(await d.game("log", user=CAROL))
    refused(await d.cmd("undo", user=BOB), "#2")                      # a roll and a secret: never
    # the first activation, line by line as the autoplayer gives it, each roll asked and entered
    from engine.jdg.autoplay import play_step
    done = len(g.history)
    autoplay_until(g, lambda st: st.activation is not None)          # `first <marker>`
    play_step(g)                                                    # its activation, to a decision
    rolled, undone = {}, False
    for rec in g.history[done:]:
        rest = await d.cmd("act", user=USERS[rec.side], line=rec.text)
        if rolls(rec):
            rest, askers = await enter_dice(d, rest, rolls(rec))
            rolled.setdefault(rec.text.split()[0], askers)
            if rec.text == "initiative":
                refused(await d.cmd("undo", user=ALICE), "rolled dice", "never taken back")
        assert not rest.last.ephemeral, rest.last.content
        if rec.text.startswith("move ") and not undone:  # no die: taken back with consent, given again
            seq = await d.bot.store.last_seq(game.id)
            msg = (await d.cmd("undo", user=ALICE)).last
            assert f"asks to take back #{seq}" in msg.content and f"<@{BOB}>" in msg.content
            refused(await d.click(msg.custom_ids[0], msg.components, user=ALICE), "your opponent must agree")
            assert "takes back" in public(await d.click(msg.custom_ids[0], msg.components, user=BOB))
            public(await d.cmd("act", user=ALICE, line=rec.text))
            undone = True
    assert rolled.get("initiative") == [ALICE] and rolled["fire"][0] == ALICE and undone, rolled
    loaded = await d.bot.service.load(d.channel_id)
    from engine.jdg.public import view_dict                         # the engine's game, but the
    assert view_dict(loaded.state, "french") == view_dict(g.state, "french")   # count of seeded draws
    assert await d.bot.service.verify(loaded.row)
    # export (both players agree: the file holds the seed and the secret orders), then import
    await d.game("export", user=ALICE)
    data = file_in(await d.game("export", user=BOB))[1]
    there = Driver(d.bot, OTHER_CHANNEL)
    rest = await import_file(there, monkeypatch, data)
    assert "replayed from the seed and verified" in rest.last.content
    copy = await d.bot.service.load(OTHER_CHANNEL)
    assert copy.state.state_hash() == loaded.state.state_hash()        # the undone move left out
    assert copy.seq == len(await d.bot.store.commands(game.id)) == loaded.seq - 2


def ephemeral_reply(rest) -> bool:
    return all(m.ephemeral for m in rest.messages())


async def test_a_campaign_scores_marengo_and_odds_answer_privately(d, bot):
    """A campaign game of Marengo scored by engine/jdg/ruleset.py campaign_score (a resignation
    4-0, HERALD [13]); /odds of a fire answered only to the asker, nothing committed."""
    from bot import campaigns
    from tests.bot.test_campaigns import new_campaign, rows
    public(await new_campaign(d, ALICE, "Italy 1800", "jdg"))
    g = mirror()
    lines = autoplay_until(g, lambda st: st.activation is not None and st.activation.step == "fire"
                           and not st.pending)
    game = await marengo(d, lines)
    public(await d.cmd("campaign", sub="add", user=BOB, campaign="Italy 1800"))
    # /odds: an artillery fire of the active formation, exact, private, nothing stored
    from engine.jdg.completions import option_completions
    side = g.state.activation.side
    user = USERS[side]
    firer = next(v for _, v in option_completions(g.scenario, g.state, side, "firer", "", {}))
    target = next(v for _, v in option_completions(g.scenario, g.state, side, "fire_target", "", {"unit": firer}))
    seq = await d.bot.store.last_seq(game.id)
    rest = await d.cmd("odds", user=user, action=f"fire {firer} {target}")
    assert all(m.ephemeral for m in rest.messages()) and "%" in rest.last.content, rest.last.content
    assert f"fire {firer} {target}" in rest.last.content
    refused(await d.cmd("odds", user=CAROL, action=f"fire {firer} {target}"))
    assert await d.bot.store.last_seq(game.id) == seq
    # the French resign: the campaign records Marengo, scored 4-0
    assert "resigns" in public(await d.game("resign", user=ALICE))
    c = await campaigns.find_campaign(bot.store, 222222222222222222, "italy 1800")
    result = sorted(await rows(bot, c.id), key=lambda r: r[1])
    assert result == [(game.id, "austrian", BOB, "win", 4), (game.id, "french", ALICE, "loss", 0)], result
    standings = public(await d.cmd("campaign", sub="standings", user=CAROL, campaign="Italy 1800"))
    assert "Italy 1800" in standings
