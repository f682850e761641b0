"""Issue 12, plain English: every word a player reads (the log's narratives and outcomes, what
/explain shows) is English, while the tables stay transcribed as printed."""
from __future__ import annotations

import functools
import json
import re

from bot.cli import DEMO_DIR, read_script
from engine.core.commands import split_side
from engine.core.game import Game
from engine.tacw import tables_combat as tc

ITALIAN = re.compile(r"\b(mancato|nessun\w*|effetto|esagon[oi]|unità|attaccante|difensore|scoss[oa]|"
                     r"rotta|inseguimento|ritirata|proibito|carica|comandante)\b", re.IGNORECASE)


def test_a_miss_reads_miss_and_the_table_keeps_its_printed_word():
    assert tc.MISS.code == "Mancato" and tc.MISS.label == "Miss"


@functools.lru_cache(maxsize=1)
def edgehill_demo_events() -> tuple:
    """Every event of the bundled Edgehill demo, replayed once for the tests below."""
    seed, lines = read_script(DEMO_DIR / "tacw--edgehill.txt")
    g = Game.new("tacw", "edgehill", seed or 1)
    seen = []
    for line in lines:
        side, text = split_side(line, g.ruleset.sides)
        seen += g.apply(side or g.to_act, text)
    return tuple(seen)


def test_the_edgehill_demo_log_has_no_italian_word():
    seen = edgehill_demo_events()
    fires = [e for e in seen if e.kind == "fire"]
    assert fires and any(e.outcome.get("result") == "Miss" for e in fires)
    for e in seen:
        text = json.dumps({"narrative": e.narrative, "outcome": e.outcome,
                           "modifiers": [m.reason for m in e.modifiers]}, ensure_ascii=False)
        assert not ITALIAN.search(text), text


def test_a_failed_continuation_says_what_finished_means():
    said = [e.narrative for e in edgehill_demo_events()]
    assert not any(re.search(r"\bFinishes\b", n) for n in said)
    assert any("is Finished, the wing acts no more this turn" in n for n in said)


def test_explain_reads_a_result_code_in_words():
    from engine.core.explain import _value
    assert _value("no_effect") == "no effect" and _value("r-musketeers") == "r-musketeers" and _value("ui1") == "ui1"
