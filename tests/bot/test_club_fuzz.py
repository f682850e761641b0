"""Nothing a user types may crash the bot or change the game (brief: "Bad input gets a clear,
specific answer"): seeded junk into every free-text option of the club-play and arbitration
commands, by a player, a spectator and a referee. Each answer must be a reply (never Herald's
internal-error text), and a refusal must leave the game's log where it was."""
from __future__ import annotations

import random

from bot.views import INTERNAL
from tests.bot.harness import ADMIN_PERMS, ALICE, BOB, CAROL, CHANNEL_ID, Driver
from tests.bot.test_physical_dice import physical_bc

ALPHABET = "abcxyz019 -=.,;:§#@!?()[]{}'\"\\/*\n\t<>ü☃🎲"
SAMPLES = ["", " ", "0", "-1", "99999", "1e9", "§", "10.4.5", "dice=", "dice=0", "dice=1,2,3,4,5,6,7",
           "battle", "battle ui2 0604", "end", "union: end", "resign", "pieces", "pieces..ci2", "seed=1",
           "pieces.ci2.figures=", "=3", "pieces.ci2.figures=999999999999999999999", "a" * 3000,
           "flag flag flag flag flag flag flag", "cancel", "undo 1", "correct x=1", "\u0000", "%s %d {0}"]

# (command, sub, option name, extra options, who): the free-text options a user can type into
TARGETS = [
    ("explain", None, "entry", {}, CAROL),
    ("rules", None, "query", {}, CAROL),
    ("odds", None, "action", {}, ALICE),
    ("odds", None, "action", {}, CAROL),
    ("dice", None, "results", {}, ALICE),
    ("act", None, "line", {}, ALICE),
    ("referee", "correct", "changes", {"reason": "fuzz"}, CAROL),
    ("referee", "show", "path", {}, CAROL),
    ("turn", "deadline", "hours", {}, ALICE),
    # the ruleset's own subcommands, built from its declared verbs (bot/cogs/rulesets.py)
    ("bc", "play", "card", {}, ALICE),
    ("bc", "order", "units", {}, ALICE),
    ("bc", "move", "to", {"unit": "ui2"}, ALICE),
    ("bc", "battle", "target", {"unit": "ui2", "dice": "1"}, ALICE),
    ("bc", "policy", "value", {"kind": "retreat"}, BOB),
    ("tacw", "actions fire", "target", {"unit": "r1"}, ALICE),    # another ruleset's command
]


def junk(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(SAMPLES)
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))


async def test_junk_in_every_free_text_option_is_answered_and_changes_nothing(d, game):
    rng = random.Random(5)
    store = d.bot.store
    answered = 0
    for name, sub, option, extra, user in TARGETS:
        for _ in range(25):
            text = junk(rng)
            before = await store.last_seq(game.id)
            opts = {option: text, **extra}
            if option == "hours":
                opts = {"hours": rng.choice([-5, 0, 1, 169, 10**6])}
            perms = ADMIN_PERMS if name == "referee" else 0
            rest = await d.cmd(name, sub=sub, user=user, perms=perms, **opts)
            msgs = rest.messages()
            assert msgs, (name, sub, text)                          # always a reply
            assert not any(INTERNAL in (m.content or "") for m in msgs), (name, sub, text, msgs[-1].content)
            last = msgs[-1]
            if last.ephemeral and (last.content or "").startswith("❌"):
                assert await store.last_seq(game.id) == before, (name, sub, text)
            answered += 1
    assert answered == 25 * len(TARGETS)
    # and the game still plays
    rest = await d.cmd("bc", sub="play", user=ALICE, card="attack-centre")
    assert not rest.last.ephemeral, rest.last.content
    assert (await d.game("status", user=BOB)).last.content


async def test_junk_dice_while_a_physical_roll_waits_is_refused_and_the_roll_still_waits(bot):
    d = Driver(bot, CHANNEL_ID + 1)
    game = await physical_bc(d)
    ask = (await d.cmd("bc", sub="battle", user=ALICE, unit="ui2", target="0604")).last.content
    assert "roll **5 battle dice**" in ask
    rng = random.Random(11)
    for _ in range(60):
        text = junk(rng)
        if text.strip().lower() in ("", "cancel"):
            continue
        user = rng.choice([ALICE, BOB, CAROL])
        rest = await d.cmd("dice", user=user, results=text)
        last = rest.last
        assert INTERNAL not in last.content, (text, last.content)
        if last.ephemeral:
            assert last.content.startswith("❌"), (text, last.content)
            assert await bot.store.last_seq(game.id) == 3, text       # refused: nothing recorded
        elif await bot.store.last_seq(game.id) > 3:
            return                                                   # junk that read as five faces: applied
    status = (await d.cmd("dice", user=CAROL)).last.content
    assert "battle die" in status                                    # still waiting for the same roll
