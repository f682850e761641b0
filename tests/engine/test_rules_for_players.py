"""Issue 12: `/rules` answers cite the rulebook's sections and Herald's decisions only, whole:
no digest, no line numbers, no file a player does not have; no decision cut mid-sentence or
ending on a colon; `rules retreat` finds Retreat (§10.4) before Retreat Fire."""
from __future__ import annotations

import re

import pytest

from engine.core import rulesdoc

INTERNAL = re.compile(r"digest|supplements|\bL\d{3,4}\b|\b[\w/-]+\.(?:md|py|txt|toml)\b")


def _body(text: str) -> str:
    """The answer less its list of tests (the tests are named by their files on purpose)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("• tests/"))


@pytest.mark.parametrize("ruleset", ["battlecry", "tacw"])
def test_no_answer_names_the_digest_a_line_or_a_file(ruleset):
    index = rulesdoc.load_index(ruleset)
    decisions = rulesdoc.load_decisions(ruleset)
    for section in index.sections:
        text = _body(rulesdoc.format_section(index, section, decisions=decisions, markdown=False))
        assert not INTERNAL.search(text), (section.id, INTERNAL.search(text).group(0))
        for entry in section.decisions:
            line = rulesdoc.describe_decision(entry, decisions)
            assert line and not line.endswith((":", "…", ",")), (section.id, line[-60:])
    for d in decisions.values():
        assert not INTERNAL.search(d.full()), (d.id, INTERNAL.search(d.full()).group(0))


def test_the_cleaner_keeps_the_words_and_drops_the_references():
    f = rulesdoc.for_players
    assert f("A lone General must make his whole retreat (official FAQ, supplements.md §2.3).") == \
        "A lone General must make his whole retreat (official FAQ)."
    assert f("Rough stays impassable (digest §8 item 6). Next.") == "Rough stays impassable. Next."
    assert f("The schedule (L904-930; digest A7) reads. *Files: `victory.py`.*") == "The schedule reads."
    assert f("Played by `battles/naseby.py`. The wagon scores nothing.") == "The wagon scores nothing."


def test_a_decision_is_found_whole_by_its_number():
    text = rulesdoc.answer("tacw", "D22", markdown=False)
    assert text.startswith("Herald's decision D22") and "King Charles eliminated: 50" in text
    assert not INTERNAL.search(text)
    with pytest.raises(LookupError, match="no decision D999"):
        rulesdoc.answer("tacw", "D999")


def test_retreat_finds_the_close_combat_retreats_before_retreat_fire():
    found = rulesdoc.load_index("tacw").lookup("retreat")
    ids = [m.section.id for m in found]
    assert ids[0].startswith("10.4") and ids.index("9.3.4") > 0
