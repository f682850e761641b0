"""Lion of the North's command surface (engine/lion/verbs.py, issue 15): the declaration agrees
with the handlers the rule modules register (engine/core/verbs.py `problems`), fits Discord, and
builds the lines the CLI reads."""
from __future__ import annotations

from engine.core.game import get_ruleset, rulesets
from engine.core.verbs import line_for, problems
from engine.lion import rules
from engine.lion.verbs import COMMANDS, POLICIES, QUERIES

def test_declaration_agrees_with_the_handlers():
    """Every handled verb is declared and every declared verb is handled (the sequence, movement,
    fire and melee modules all registered)."""
    rules.load_action_modules()
    assert problems(COMMANDS, set(rules.HANDLERS)) == []


def test_fits_discord_without_subcommand_groups():
    """Under 25 slash subcommands: one /lion group, no phase groups (Discord's limit)."""
    assert len(COMMANDS.surface_verbs) <= 25 and not COMMANDS.needs_phases()
    assert problems(COMMANDS) == []
    assert all(v.section.startswith("LdN") for v in COMMANDS.verbs)


def test_questions_are_private_and_allowed_at_any_time():
    """units, generals, measure are queries: answered only to the asker, never applied."""
    assert set(QUERIES) == {"units", "generals", "measure"}
    assert set(QUERIES) <= rules.ANY_TIME


def test_policies_declared_have_defaults():
    assert {p.kind for p in POLICIES} >= {"sunset", "reinforcements", "evade", "contactfire", "advance"}
    for p in POLICIES:
        assert p.default in [v for v, _ in p.values]
        assert rules.POLICY_DEFAULTS[p.key] == p.default


def test_each_verb_builds_the_line_the_cli_reads():
    """A slash command's options become the command language's line (a group, a flag)."""
    assert line_for(COMMANDS.verb("move"), {"units": "sw-mus1+sw-mus2", "steps": "wheel 30 left advance 12",
                                            "forced": False}) == "move sw-mus1+sw-mus2 wheel 30 left advance 12"
    assert line_for(COMMANDS.verb("move"), {"units": "sw-mus1", "steps": "advance 20", "forced": True,
                                            "dice": "3"}) == "move sw-mus1 advance 20 forced dice=3"
    assert line_for(COMMANDS.verb("shoot"), {"unit": "im-ter1", "target": "sw-mus1", "face": "left"}) == \
        "shoot im-ter1 sw-mus1 from left"
    assert line_for(COMMANDS.verb("fight"), {"target": "im-pk1", "units": "sw-ps1 sw-cav1"}) == \
        "fight im-pk1 sw-ps1 sw-cav1"
    assert line_for(COMMANDS.verb("measure"), {"base": "sw-mus1", "to": "camp-imperial"}) == \
        "measure sw-mus1 camp-imperial"


def test_the_ruleset_is_registered_and_offered_to_players():
    """pyproject.toml's herald.rulesets entry point finds it, and now that every part of the turn
    is in (cards [3], command [4], movement [5]-[6], fire [7], melee [8]-[9], rally [10], victory
    [11], [14]) it is among the rulesets players are offered."""
    rs = get_ruleset("lion")
    assert rs.commands is COMMANDS and rs.name == "Lion of the North"
    assert rs.playable is True
    assert "lion" in rulesets(include_unfinished=True) and "lion" in rulesets()
