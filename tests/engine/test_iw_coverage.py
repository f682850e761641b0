"""Issue 16's bar for the Italian Wars: every section of the text that states a rule has a test
citing it, and the supplement's odds table is printed by a test (test_iw_completion.py).

The sections are the entries of engine/italianwars/rules_index.toml: every heading and paragraph
of the Italian text, its tables ("Tabella 1" .. "Tabella 6"), the steps of the sequence ("Prima
della battaglia 1" .. "9", "Sequenza di mossa 1" .. "6", "Azioni 2a" .. "2i"), Herald's completion,
the army lists and the two battles. A test "cites" a section when its own docstring (not its
module's) names it as the code does: "IW <heading>", e.g. "IW Azioni 2f", "IW Tabella 6",
"IW Sequenza di mossa 3" (the longest heading that matches is the one cited: "IW Azioni 2f" cites
"Azioni 2f", not "Azioni"; the case does not matter); or when the section's `test_prefixes` in the index name it (as /rules
shows them). Run with -s to print each section's count of tests.
"""
from __future__ import annotations

import re
from pathlib import Path

from tests.engine.coverage import ROOT, citing, docstrings_of_tests, index_sections, stale_prefixes

INDEX = ROOT / "engine" / "italianwars" / "rules_index.toml"

# Sections with no rule of their own to test, and why (the text's lines, L<n>).
EXEMPT = {
    "Le regole di gioco": "the untitled text's heading (L1): its rules are the sections below",
    "Scale": "the heading 'Scale' (L18): its rules are the figure, ground and time scales",
    "Tipi di armi": "the heading (L44): its rules are Armi da mischia and Armi da tiro",
    "Il campo di battaglia": "the heading (L171): its rules are Terreno and what follows",
    "Tempo atmosferico ed ora del giorno": "the heading (L228): its rules are Tempo atmosferico, "
                                           "Notte e giorno and Ora del giorno",
    "Attenzione": "a reminder (L307) of rules stated elsewhere: the activation's steps",
}


def _sections() -> list[dict]:
    return index_sections(INDEX)


IDS = [s["id"] for s in _sections()]
# longest first, so "IW Azioni 2f" is read before "IW Azioni"
_CITE = re.compile(r"\bIW\s+(" + "|".join(r"\s+".join(re.escape(w) for w in i.split())
                                           for i in sorted(IDS, key=len, reverse=True)) + r")(?![\w'])", re.IGNORECASE)
_CANON = {i.lower(): i for i in IDS}


def cited(doc: str) -> set[str]:
    """The index ids a test docstring cites ("IW <heading>", the longest heading that fits)."""
    return {_CANON[" ".join(m.split()).lower()] for m in _CITE.findall(doc or "")}


def _tests() -> list[tuple[str, str, str]]:
    return docstrings_of_tests("test_iw_*.py", but=Path(__file__).name)


def test_the_citation_reader():
    """The forms the code and the tests use to cite a section are read as index ids."""
    assert cited("IW Azioni 2f, then IW Azioni; IW Tabella 6 and IW Tabella 1") == \
        {"Azioni 2f", "Azioni", "Tabella 6", "Tabella 1"}
    assert cited("IW Sequenza di mossa 3 (rout); IW Prima della battaglia 9") == \
        {"Sequenza di mossa 3", "Prima della battaglia 9"}
    assert cited("IW Punto di rottura dell'esercito; HERALD D54") == {"Punto di rottura dell'esercito"}
    assert cited("IW Azioni 2z, IW-H 6.2, TIW Ordini") == {"Azioni"}
    assert cited("IW Il Giocatore Attivo") == {"Il giocatore attivo"}
    assert cited("(IW Sequenza di mossa 2, IW\n    Azioni)") == {"Sequenza di mossa 2", "Azioni"}


def test_every_section_with_a_rule_has_a_test_citing_it():
    """Issue 16: every section of the text has a test citing it (EXEMPT: no rule of its own)."""
    found = citing(_tests(), _sections(), cited)
    counts = {sid: len(found.get(sid, [])) for sid in IDS}
    print("\nItalian Wars sections and the tests citing them:")
    for sid in IDS:
        print(f"  IW {sid}: {counts[sid]}" + ("  (exempt: no rule)" if sid in EXEMPT else ""))
    missing = [sid for sid in IDS if sid not in EXEMPT and not counts[sid]]
    assert not missing, f"sections with a rule and no test citing them: {missing}"


def test_the_exempt_sections_are_in_the_index():
    assert set(EXEMPT) <= set(IDS), sorted(set(EXEMPT) - set(IDS))


def test_the_index_test_prefixes_name_tests():
    """Each test_prefixes entry of the index (shown by /rules) finds at least one IW test."""
    stale = stale_prefixes(_tests(), _sections())
    assert not stale, stale
