"""Issue 17, property tests (Hypothesis) through the bot: uploaded scenario files and slash
command options, driven through the offline harness (real discord.py command tree, mocked
interactions). The engine's own properties are in tests/engine/test_properties.py.

- An uploaded file (a mutation of a bundled battle of any ruleset) always gets an answer that is
  not Herald's internal error; a refused file stores nothing.
- A ruleset's slash subcommand (`/bc ...`, `/tacw actions ...`) with each option drawn from real
  ids, numbers and junk, by a player, the other side or a spectator, always gets an answer that
  is not the internal error; a refusal leaves the game's log where it was, an accepted command
  adds one entry, and the stored game always replays to its snapshot.

Hypothesis drives a synchronous test; the bot lives on its own event loop for the whole test (a
bot a example would cost a second each). Derandomized, no example database.
"""
from __future__ import annotations

import asyncio
from contextlib import contextmanager

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as hs

from bot.replies import INTERNAL
from engine.core.game import get_ruleset
from engine.core.verbs import command_set
from tests.bot.conftest import start_bot
from tests.bot.harness import ALICE, BOB, CAROL, Driver
from tests.bot.test_uploads import Cdn, stored, upload
from tests.engine.test_properties import JUNK_WORD, NUMBERS, _bundled, _mutated

PROPS = {"deadline": None, "derandomize": True, "database": None,
         "suppress_health_check": list(HealthCheck)}
UPLOADS = [("battlecry", "first-bull-run"), ("tacw", "edgehill"), ("jdg", "marengo"),
           ("lion", "lutzen"), ("italianwars", "fornovo")]
GAMES = [("battlecry", "first-bull-run", "union", "confederate"),
         ("tacw", "edgehill", "royalist", "parliament")]


@contextmanager
def running_bot(path: str):
    """A bot on a SQLite file, on an event loop of its own; yields (loop, bot)."""
    loop = asyncio.new_event_loop()
    bot = loop.run_until_complete(start_bot(path))
    try:
        yield loop, bot
    finally:
        loop.run_until_complete(bot.close())
        loop.close()


def _answered(rest, what) -> object:
    msgs = rest.messages()
    assert msgs, f"no answer to {what}"
    assert not any(INTERNAL in (m.content or "") for m in msgs), (what, msgs[-1].content)
    return msgs[-1]


def test_uploaded_files_are_answered_and_a_refusal_stores_nothing(tmp_path):
    with running_bot(str(tmp_path / "herald.db")) as (loop, bot):
        d = Driver(bot)
        cdn = Cdn()
        bot.http.get_from_cdn = cdn.get_from_cdn
        files = hs.sampled_from(UPLOADS).flatmap(       # a club's own id: not refused as built-in
            lambda case: hs.tuples(hs.just(case[0]), _mutated(_bundled(*case).replace(
                f'id = "{case[1]}"', f'id = "club-{case[1]}"', 1))))

        @settings(max_examples=20, **PROPS)
        @given(upload_case=files)
        def run(upload_case):
            rid, text = upload_case
            before = loop.run_until_complete(stored(d))
            rest = loop.run_until_complete(upload(d, cdn, text, ruleset=rid, filename="mine.toml"))
            last = _answered(rest, f"an upload for {rid}")
            after = loop.run_until_complete(stored(d))
            if last.ephemeral and not last.files:          # a refusal
                assert after == before, last.content
        run()


def _sub_and_options(draw, rid: str, state_ids: list[str]):
    """A surface verb of the ruleset as its slash subcommand, with options drawn from real ids,
    numbers and junk (what a player may type into each field)."""
    commands = command_set(get_ruleset(rid))
    verb = draw(hs.sampled_from([v for v in commands.surface_verbs if v.name != "resign"]))
    sub = f"{verb.phase} {verb.name}" if commands.needs_phases() and verb.phase else verb.name
    opts: dict[str, object] = {}
    for o in verb.options:
        if o.is_flag:
            if draw(hs.booleans()):
                opts[o.name] = True
            continue
        if not o.needed and draw(hs.booleans()):
            continue
        values = [v for _, v in o.choices] or state_ids
        opts[o.name] = draw(hs.one_of(hs.sampled_from(values), NUMBERS.map(str), JUNK_WORD))
    if verb.dice and draw(hs.integers(0, 3)) == 0:
        opts["dice"] = draw(hs.one_of(JUNK_WORD, hs.lists(hs.integers(-1, 12), max_size=5).map(
            lambda xs: ",".join(map(str, xs)))))
    return commands.group, sub, opts


def test_slash_options_are_answered_and_a_refusal_changes_nothing(tmp_path):
    with running_bot(str(tmp_path / "herald.db")) as (loop, bot):
        games = {}
        for n, (rid, sid, first, second) in enumerate(GAMES):
            d = Driver(bot, channel_id=7000 + n)
            for sub, kw in (("new", {"user": ALICE, "ruleset": rid, "scenario": sid, "side": first, "seed": "3"}),
                            ("join", {"user": BOB, "side": second}), ("start", {"user": ALICE})):
                rest = loop.run_until_complete(d.game(sub, **kw))
                assert not rest.last.ephemeral, rest.last.content
            row = loop.run_until_complete(bot.store.active_game(d.channel_id))
            state = loop.run_until_complete(bot.service.load(d.channel_id)).state
            ids = sorted({k for v in get_ruleset(rid).state_to_dict(state).values() if isinstance(v, dict)
                          for k in v if isinstance(k, str)})      # units, leaders, wings, hands...
            games[rid] = (d, row.id, ids)

        @settings(max_examples=30, **PROPS)
        @given(data=hs.data())
        def run(data):
            rid = data.draw(hs.sampled_from([g[0] for g in GAMES]))
            d, game_id, ids = games[rid]
            group, sub, opts = _sub_and_options(data.draw, rid, ids)
            user = data.draw(hs.sampled_from([ALICE, ALICE, BOB, CAROL]))
            note(f"/{group} {sub} {opts} by {user}")
            before = loop.run_until_complete(bot.store.last_seq(game_id))
            rest = loop.run_until_complete(d.cmd(group, sub=sub, user=user, **opts))
            last = _answered(rest, f"/{group} {sub} {opts}")
            after = loop.run_until_complete(bot.store.last_seq(game_id))
            if last.ephemeral and (last.content or "").startswith("❌"):
                assert after == before, (sub, opts, last.content)
            else:
                assert after in (before, before + 1), (sub, opts, last.content)
        run()
