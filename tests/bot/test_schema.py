"""The slash-command schema, serialized offline exactly as CommandTree.sync() would send it, checked
against Discord's limits (ported from notes/discord-testing/slash/test_d_schema.py): discord.py
does not reject over-long descriptions, Discord would fail the whole sync with a 400."""
from __future__ import annotations

import re
from unittest.mock import AsyncMock

from discord import app_commands

# Discord limits (https://discord.com/developers/docs/interactions/application-commands)
NAME_RE = re.compile(r"^[-_'\w]{1,32}$")          # approx. of Discord's \p{L}\p{N} regex
SUB_TYPES = {1, 2}                                 # SUB_COMMAND, SUB_COMMAND_GROUP


def _check_options(path: str, options: list[dict], problems: list[str]) -> int:
    chars = 0
    if len(options) > 25:
        problems.append(f"{path}: {len(options)} options > 25")
    seen_optional = False
    for o in options:
        p = f"{path} {o['name']}"
        chars += len(o["name"]) + len(o.get("description", ""))
        if not NAME_RE.match(o["name"]) or o["name"] != o["name"].lower():
            problems.append(f"{p}: bad option name")
        if not 1 <= len(o.get("description", "")) <= 100:
            problems.append(f"{p}: description length {len(o.get('description', ''))} not in 1..100")
        if o.get("description") == "\u2026":   # discord.py's placeholder for undescribed params
            problems.append(f"{p}: missing @app_commands.describe(...)")
        if o["type"] in SUB_TYPES:
            chars += _check_options(p, o.get("options", []), problems)
            continue
        if o.get("required"):
            if seen_optional:
                problems.append(f"{p}: required option after optional one")
        else:
            seen_optional = True
        choices = o.get("choices") or []
        if len(choices) > 25:
            problems.append(f"{p}: {len(choices)} choices > 25")
        if choices and o.get("autocomplete"):
            problems.append(f"{p}: choices and autocomplete are mutually exclusive")
        for c in choices:
            chars += len(c["name"]) + len(str(c["value"]))
            if not 1 <= len(c["name"]) <= 100:
                problems.append(f"{p}: choice name {c['name']!r} length")
    return chars


def validate_payload(payload: list[dict]) -> list[str]:
    problems: list[str] = []
    names = [c["name"] for c in payload]
    if len(set(names)) != len(names):
        problems.append("duplicate top-level command names")
    if sum(1 for c in payload if c.get("type", 1) == 1) > 100:
        problems.append("more than 100 chat-input commands")
    for c in payload:
        if c.get("type", 1) != 1:          # context menus: name only, 1..32, no description
            continue
        if not NAME_RE.match(c["name"]) or c["name"] != c["name"].lower():
            problems.append(f"/{c['name']}: bad name")
        if not 1 <= len(c["description"]) <= 100:
            problems.append(f"/{c['name']}: description length {len(c['description'])}")
        total = len(c["name"]) + len(c["description"]) + _check_options(f"/{c['name']}", c.get("options", []), problems)
        if total > 8000:               # Discord: names, descriptions and values of one command
            problems.append(f"/{c['name']}: {total} characters > 8000")
    return problems


def tree_payload(tree: app_commands.CommandTree, guild=None) -> list[dict]:
    return [cmd.to_dict(tree) for cmd in tree._get_all_commands(guild=guild)]


EXPECTED = {"game", "act",
            "bc", "tacw", "jdg", "lion", "iw"}   # one group per ruleset, built from its declared verbs (bot/cogs/rulesets.py)
EXPECTED |= {"explain", "rules"}      # arbitration (bot/cogs/arbitration.py)
EXPECTED |= {"dice", "undo"}          # physical dice, undo with consent (bot/cogs/club_actions.py)
EXPECTED |= {"seat", "referee", "turn"}   # seats and roles, turn flow (bot/cogs/club.py)
EXPECTED |= {"campaign", "scenario"}   # campaigns, uploaded scenarios (bot/cogs/campaign.py, scenarios.py)
EXPECTED |= {"odds"}                  # the exact what-if (bot/cogs/odds.py)


async def test_schema_is_valid(bot):
    payload = tree_payload(bot.tree)
    assert validate_payload(payload) == []
    by_name = {c["name"]: c for c in payload}
    assert set(by_name) == EXPECTED
    game = {o["name"]: o for o in by_name["game"]["options"]}
    assert set(game) == {"new", "join", "leave", "start", "board", "status", "log", "resign", "abandon", "deadline", "rematch",
                         "list",   # the server view (bot/club.py)
                         "replay", "export", "import"}   # history (bot/cogs/history.py)
    assert all(o["type"] == 1 for o in game.values())
    new = {o["name"]: o for o in game["new"]["options"]}
    assert [c["value"] for c in new["ruleset"]["choices"]] == ["battlecry", "italianwars", "jdg", "lion", "tacw"]
    assert new["scenario"]["autocomplete"] is True and new["seed"]["required"] is False
    bc = {o["name"]: o for o in by_name["bc"]["options"]}
    play = {o["name"]: o for o in bc["play"]["options"]}
    assert play["card"]["autocomplete"] and [c["value"] for c in play["section"]["choices"]] == \
        ["left", "centre", "right"]
    move = {o["name"]: o for o in bc["move"]["options"]}
    assert move["alone"]["type"] == 5 and not move["alone"]["required"]
    # one game per channel: the commands only make sense in a server
    assert all(c.get("contexts") in (None, [0]) for c in payload)
    assert all(c.get("dm_permission") is False for c in payload)


async def test_validator_catches_problems():
    import discord
    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))

    @tree.command(name="bad", description="x" * 101)
    async def bad(interaction, a: int):  # noqa: ARG001
        ...
    problems = validate_payload(tree_payload(tree))
    assert "/bad: description length 101" in problems
    assert "/bad a: missing @app_commands.describe(...)" in problems


async def test_sync_with_fake_http(bot):
    """`herald sync` (bot/sync.py) registers this payload; tests/bot/test_server_ready.py drives it."""
    def echo(app_id, payload):
        return [{**c, "id": str(1000 + i), "application_id": str(app_id), "version": "1"}
                for i, c in enumerate(payload)]
    bot.http.bulk_upsert_global_commands = AsyncMock(side_effect=echo)
    synced = await bot.sync_tree()
    sent = bot.http.bulk_upsert_global_commands.await_args.kwargs["payload"]
    assert {c["name"] for c in sent} == EXPECTED == {c.name for c in synced}
    assert validate_payload(sent) == []
