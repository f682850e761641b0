"""The command surface for five rulesets (issue 11; DESIGN: the command surface).

The real command tree is built as the bot builds it (bot/cogs/rulesets.py from each ruleset's
declared verbs, engine/core/verbs.py), with a stand-in declaration for each ruleset still to come
(Lion of the North, the Italian Wars ruleset) as large as TACW's, the largest so
far, and checked against Discord's limits: at most 30 top-level commands (Herald's own budget; Discord
allows 100), 25 subcommands or groups in a command or group, 25 options, descriptions of 1-100
characters, 8,000 characters for one command's names, descriptions and choices."""
from __future__ import annotations

import dataclasses

import discord
import pytest
from discord import app_commands

from bot.cogs.rulesets import add_ruleset_commands, ruleset_group
from engine.core.game import rulesets
from engine.core.verbs import CommandSet, Option, Phase, Verb, problems
from tests.bot.test_schema import NAME_RE

TOP_LEVEL_BUDGET = 30                 # Herald's budget for five rulesets (DESIGN)
MAX_ITEMS = 25                        # subcommands, groups, options or choices in one place
MAX_COMMAND_CHARS = 8000              # one command's names, descriptions and choices, all levels
INFRASTRUCTURE = {"game", "seat", "referee", "turn", "campaign", "scenario", "explain", "odds", "rules",
                  "dice", "undo", "act"}


class StandIn:
    """A ruleset still to come: only its command surface, as large as TACW's."""
    playable = True

    def __init__(self, rid: str, name: str, group: str):
        self.id, self.name = rid, name
        tacw = rulesets()["tacw"].commands
        self.commands = dataclasses.replace(tacw, group=group,
                                            description=f"{name}: stand-in declaration for the tree test")
        self.sides = ("a", "b")


# Lion of the North (issue 15) declares its own verbs: its real group stands in the tree whether or
# not it is offered to players yet (`playable`); the Italian Wars still a stand-in.
STAND_INS = {"lion": rulesets(include_unfinished=True)["lion"],
             "italianwars": StandIn("italianwars", "Italian Wars", "iw")}


def command_chars(d: dict) -> int:
    """Discord's count for the 8,000 limit: name, description, and choice names and values, at
    every level of the command."""
    n = len(d.get("name", "")) + len(d.get("description", ""))
    for c in d.get("choices") or []:
        n += len(c["name"]) + len(str(c["value"]))
    return n + sum(command_chars(o) for o in d.get("options") or [])


def limits(payload: list[dict]) -> list[str]:
    """Every breach of the limits above, named by its command path."""
    out = []
    if len(payload) > TOP_LEVEL_BUDGET:
        out.append(f"{len(payload)} top-level commands > {TOP_LEVEL_BUDGET}")

    def walk(path: str, d: dict) -> None:
        if not NAME_RE.match(d["name"]) or d["name"] != d["name"].lower():
            out.append(f"{path}: bad name")
        if not 1 <= len(d.get("description", "")) <= 100:
            out.append(f"{path}: description of {len(d.get('description', ''))} characters")
        options = d.get("options") or []
        if len(options) > MAX_ITEMS:
            out.append(f"{path}: {len(options)} options, subcommands or groups > {MAX_ITEMS}")
        if len(d.get("choices") or []) > MAX_ITEMS:
            out.append(f"{path}: more than {MAX_ITEMS} choices")
        for o in options:
            walk(f"{path} {o['name']}", o)

    for c in payload:
        walk(f"/{c['name']}", c)
        if command_chars(c) > MAX_COMMAND_CHARS:
            out.append(f"/{c['name']}: {command_chars(c)} characters > {MAX_COMMAND_CHARS}")
    return out


def five_ruleset_tree(bot) -> list[dict]:
    """The bot's real tree plus the stand-ins' groups, serialized as a sync would send it."""
    present = {c.name for c in bot.tree.get_commands()}
    for rs in STAND_INS.values():
        if rs.commands.group not in present:        # a ruleset made playable is in the tree already
            bot.tree.add_command(ruleset_group(rs))
    return [cmd.to_dict(bot.tree) for cmd in bot.tree._get_all_commands()]


async def test_five_rulesets_fit_discords_limits(bot):
    payload = five_ruleset_tree(bot)
    assert limits(payload) == []
    names = {c["name"] for c in payload}
    assert names == INFRASTRUCTURE | {"bc", "tacw", "jdg", "lion", "iw"}
    assert len(payload) <= TOP_LEVEL_BUDGET - 10          # room for a club's rulesets and more


async def test_the_limits_test_can_fail():
    """Each limit, breached on purpose, is reported."""
    big = [{"name": f"c{i}", "description": "x", "options": []} for i in range(31)]
    assert any("top-level" in p for p in limits(big))
    many = [{"name": "g", "description": "x",
             "options": [{"name": f"s{i}", "description": "x", "type": 1} for i in range(26)]}]
    assert any("26 options, subcommands or groups" in p for p in limits(many))
    wordy = [{"name": "w", "description": "y" * 101}]
    assert limits(wordy) == ["/w: description of 101 characters"]
    heavy = [{"name": "h", "description": "x",
              "options": [{"name": f"p{g}", "description": "x", "type": 2,
                           "options": [{"name": f"q{i}", "description": "d" * 100, "type": 1} for i in range(20)]}
                          for g in range(5)]}]
    assert [p for p in limits(heavy) if "characters" in p] == ["/h: 10267 characters > 8000"]


async def test_a_ruleset_of_more_than_25_verbs_is_grouped_by_phase(bot):
    payload = {c["name"]: c for c in (cmd.to_dict(bot.tree) for cmd in bot.tree._get_all_commands())}
    tacw = {o["name"]: o for o in payload["tacw"]["options"]}
    assert set(tacw) == {"activation", "actions", "combat", "reactions", "setup", "info", "policy"}
    assert all(tacw[p]["type"] == 2 for p in ("activation", "actions", "combat", "reactions", "setup"))
    fire = {o["name"]: o for o in tacw["actions"]["options"]}["fire"]
    opts = {o["name"]: o for o in fire["options"]}
    assert opts["unit"]["required"] and opts["unit"]["autocomplete"]
    assert [c["value"] for c in opts["mode"]["choices"]] == ["skirmish", "retreat", "advance"]
    assert not opts["dice"]["required"]
    bc = {o["name"]: o for o in payload["bc"]["options"]}     # Battle Cry: 15 verbs, no groups
    assert all(o["type"] == 1 for o in bc.values()) and "play" in bc and "hand" in bc
    move = {o["name"]: o for o in bc["move"]["options"]}
    assert move["alone"]["type"] == 5 and not move["alone"]["required"]


def test_every_engine_verb_is_declared_and_every_declared_verb_is_handled():
    """The declaration is the engine's command language: nothing missing, nothing invented."""
    import engine.battlecry.rules as bc_rules
    import engine.tacw.rules as tacw_rules
    tacw_rules.load_action_modules()
    rs = rulesets()
    assert problems(rs["tacw"].commands, set(tacw_rules.HANDLERS) | set(tacw_rules.CHOICE_VERBS)
                    | {"units", "wings", "leaders"}) == []
    assert problems(rs["battlecry"].commands, set(bc_rules.VERBS) | {"hand", "units"}) == []
    import engine.jdg.rules as jdg_rules
    jdg_rules.load_action_modules()
    assert problems(rs["jdg"].commands, set(jdg_rules.HANDLERS)) == []
    import engine.lion.rules as lion_rules
    lion_rules.load_action_modules()
    lion = rulesets(include_unfinished=True)["lion"]
    assert problems(lion.commands, set(lion_rules.HANDLERS)) == []


async def test_lion_of_the_norths_group_is_its_declaration(bot):
    """Issue 15: /lion is built from engine/lion/verbs.py alone: at most 25 subcommands, no
    phase groups, descriptions within 100 characters, the units, groups and targets completed
    from the game, the Tercio's face and the directions as fixed choices."""
    payload = {c["name"]: c for c in five_ruleset_tree(bot)}
    lion = payload["lion"]
    subs = {o["name"]: o for o in lion["options"]}
    assert all(o["type"] == 1 for o in subs.values()) and len(subs) <= 25
    assert {"next", "move", "charge", "shoot", "fight", "react", "measure", "units", "resign"} <= set(subs)
    assert "done" not in subs                       # an alias of next, for the CLI and /act only
    opts = {v: {o["name"]: o for o in subs[v]["options"]} for v in ("move", "shoot", "fight", "charge", "measure")}
    assert opts["move"]["units"]["autocomplete"] and opts["move"]["steps"]["autocomplete"]
    assert opts["move"]["forced"]["type"] == 5 and not opts["move"]["forced"]["required"]
    assert opts["shoot"]["target"]["autocomplete"]
    assert [c["value"] for c in opts["shoot"]["face"]["choices"]] == ["front", "left", "right", "rear"]
    assert opts["fight"]["target"]["autocomplete"] and not opts["fight"]["units"]["required"]
    assert opts["charge"]["target"]["autocomplete"]
    assert opts["measure"]["base"]["autocomplete"] and opts["measure"]["to"]["autocomplete"]
    assert limits([lion]) == []


def test_declaration_problems_are_found():
    bad = CommandSet("BC!", "x", (
        Verb("fire", "y" * 101, "", (Option("a", "x", required=False), Option("b", "x", context=("c",)),
                                     Option("from", "x", required=False))),
        Verb("fire", "ok", "§1")))
    found = problems(bad, {"fire", "move"})
    assert "group name 'BC!'" in found
    assert "/BC! fire: description of 101 characters" in found
    assert "/BC! fire: no rule section" in found
    assert "/BC! fire b: required after optional" in found
    assert "/BC! fire b: context 'c' is not an option" in found
    assert "/BC! fire from: an option's name is a Python keyword or no identifier (the slash command's parameter)" in found
    assert "/BC!: a verb declared twice" in found
    assert "/BC!: the engine handles 'move' but it is not declared" in found


async def test_a_new_ruleset_needs_no_bot_code():
    """A ruleset that only declares its verbs gets its group, subcommands, options and choices."""
    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))

    class Club:
        id, name, sides, playable = "club", "A club's game", ("red", "blue"), True
        commands = CommandSet("club", "A club's own ruleset", tuple(
            Verb(f"verb{i}", f"Verb {i}", f"§{i}", (Option("unit", "A unit", "unit"),
                                                      Option("how", "How", required=False,
                                                             choices=(("Fast", "fast"), ("Slow", "slow")))),
                 phase="one" if i < 20 else "two", dice=True) for i in range(30)),
            phases=(Phase("one", "Phase one"), Phase("two", "Phase two")))

    assert add_ruleset_commands(tree, {"club": Club()}) == ["club"]
    [club] = [c.to_dict(tree) for c in tree._get_all_commands() if c.name == "club"]
    assert [o["name"] for o in club["options"]] == ["one", "two"]
    verb0 = club["options"][0]["options"][0]
    assert [o["name"] for o in verb0["options"]] == ["unit", "how", "dice"]
    assert limits([club]) == []


@pytest.mark.parametrize("rid", ["jdg", "lion", "italianwars"])
def test_a_new_ruleset_has_no_code_in_bot_or_the_shared_renderers(rid):
    """Issues 14, 15, 16 and DESIGN: a new ruleset is a package under engine/ with its own drawing
    (renders/<id>*.py); the bot and the renderers' shared modules never name it (only its demo
    scripts live in bot/demos)."""
    from pathlib import Path
    root = Path(__file__).parents[2]
    named = [str(p.relative_to(root)) for folder in ("bot", "renders") for p in (root / folder).rglob("*.py")
             if not p.name.startswith(rid) and any(w in p.read_text(encoding="utf-8").lower()
                                                   for w in (f"engine.{rid}", f'"{rid}"', f"'{rid}'"))]
    assert named == []


@pytest.mark.parametrize("group", ["bc", "tacw", "jdg"])
def test_each_verb_builds_the_line_the_cli_reads(group):
    from engine.core.verbs import line_for
    cs = {rs.commands.group: rs.commands for rs in rulesets().values()}[group]
    if group == "bc":
        assert line_for(cs.verb("move"), {"unit": "ui2", "to": "0605 0604", "alone": True}) == "move ui2 0605 0604 alone"
        assert line_for(cs.verb("battle"), {"unit": "ui2", "target": "0604", "dice": "5, 1,3"}) == \
            "battle ui2 0604 dice=5,1,3"
    elif group == "jdg":             # the words of engine/jdg/verbs.py, as the CLI reads them
        assert line_for(cs.verb("fire"), {"unit": "a-art-hadik", "target": "1516", "second": "a-art-kaim",
                                          "face": "E", "dice": "3"}) == "fire a-art-hadik 1516 with a-art-kaim face E dice=3"
        assert line_for(cs.verb("assault"), {"units": "f-44e f-101e", "target": "0309"}) == \
            "assault f-44e f-101e on 0309"
        assert line_for(cs.verb("move"), {"unit": "f-40e", "steps": "1910 face w", "forced": True}) == \
            "move f-40e 1910 face w forced"
        assert line_for(cs.verb("rally"), {"unit": "f-44e", "face": "NE"}) == "rally f-44e face NE"
    else:
        assert line_for(cs.verb("deploy"), {"unit": "r1", "hex": "2905, 2906", "facing": "NE"}) == \
            "deploy r1 2905,2906 facing NE"
        assert line_for(cs.verb("fire"), {"unit": "r1", "target": "2105", "mode": "retreat", "step": "to 2004",
                                          "ricochet": None, "dice": None}) == "fire r1 2105 retreat to 2004"
        assert line_for(cs.verb("intercept"), {"cavalry": "p3", "nopistol": True, "nocombat": False}) == \
            "intercept p3 nopistol"
        assert line_for(cs.verb("policy"), {"kind": "reaction", "value": "never", "scope": "r-left"}) == \
            "policy reaction never for r-left"


def test_a_rulesets_own_drawing_is_found_by_its_renderer_attribute(monkeypatch):
    """A club's ruleset names the module that draws it; Herald's own are renders/<id>.py."""
    import sys
    import types

    import engine.core.game as g
    from renders import board_module

    drawing = types.ModuleType("club_package.drawing")
    drawing.render_board = lambda scenario, state, viewer=None, size="full": b"PNG"
    monkeypatch.setitem(sys.modules, "club_package.drawing", drawing)

    class Club:
        id, name, sides, renderer = "club", "A club's game", ("red", "blue"), "club_package.drawing"

    monkeypatch.setitem(g._RULESETS, "club", Club())
    assert board_module("club").render_board(None, None) == b"PNG"
    assert board_module("tacw").__name__ == "renders.tacw"
