"""Issue 14's bar for Jours de Gloire: every paragraph of the rulebook that states a rule has a test
citing it, and every worked example of the text is played by a test.

The paragraphs are the entries of engine/jdg/rules_index.toml (one per numbered paragraph of the
Italian rulebook, checked against the book by test_jdg_rules_index.py). A test "cites" a paragraph
when its own docstring (not its module's) names it:

- in brackets, alone or in a list: "[8.6]", "[8.5, 8.7]", "[10.3] L750"; the turn sequence's
  phases "[1.D]", "[1.D.3]" cite [1];
- an optional rule (section II): "[II.8.3]", or "optional [8.3]", "Optional 11 L890";
- a Marengo rule (section D): "[D.2.1]", or "Marengo D 2.1", "Marengo 4.3 (L945)",
  "Marengo errata 4.4";

or when the paragraph's `test_prefixes` in the index name it (as /rules shows them).

A paragraph without a rule of its own (a chapter heading with no text, the list of abbreviations)
is listed in EXEMPT with the reason. Run with -s to print each paragraph's count of tests.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.engine.coverage import book, citing, index_sections, lines_cited, docstrings_of_tests

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "engine" / "jdg" / "rules_index.toml"
TESTS = ROOT / "tests" / "engine"
BOOK = book("jours-de-gloire.it.txt")

# Paragraphs with no rule to test, and why (the book's line numbers, L<n>).
EXEMPT = {
    "0.5": "the list of abbreviations (IA, PM, CC, CI, ZoC, LdV, MD), L78-94: no rule",
    "2": "the chapter heading 'Ordini e Attivazione' (L115), no text: its rules are 2.1-2.5",
    "4": "the chapter heading 'Movimento' (L203), no text: its rules are 4.1-4.4",
    "5": "the chapter heading 'Densità delle unità e rinforzi' (L281), no text: 5.1-5.2",
    "6": "the chapter heading 'Orientamento e ZoC' (L337), no text: 6.1-6.2",
    "7": "the chapter heading 'Fuoco di artiglieria' (L383), no text: 7.1-7.6 (a test's "
         "'[7]' is the optional rule II.7)",
    "8": "the chapter's introduction (L469): an infantry assault is close fire and bayonet, a "
         "cavalry assault is called a charge: names only, the rules are 8.1-8.9",
    "9": "the chapter heading 'Carica di cavalleria' (L605), no text: 9.1-9.5",
}

# Optional rules whose tests another piece of work is writing (tests/engine/test_jdg_optional.py):
# tolerated without a citing test only while that file does not exist.
PENDING_FILE = TESTS / "test_jdg_optional.py"
PENDING = {
    "II.1": "the reserve activation phase D bis (engine/jdg/sequence/reserve.py, in progress)",
    "II.2.3": "orders by tactical groups (engine/jdg/sequence/groups.py, in progress)",
}

# The worked examples of the text (purple in the printed book): (paragraph, book line, words of
# the example). Each is played by a test of tests/engine/test_jdg_examples.py (or the file
# EXAMPLE_FILES names) whose docstring cites the paragraph and the line: "L<line>" or a range
# "L<first>-<last>" that holds it.
EXAMPLES = [
    ("4.1", 211, "un’unità con 4 PM di capacità avrà una capacità totale di 2 PM"),
    ("8.6", 539, "un’unità di 8 punti forza che attacca un’unità di 3 punti forza assalta con un rapporto di 2:1"),
    ("8.6", 539, "Se 5 punti forza avessero attaccato 6 punti forza, il rapposto sarebbe di 1:1.5"),
    ("8.5", 534, "rotta conseguente ad un secondo risultato di disordine"),
    ("8.7", 555, "ad esempio, fanteria attraverso un pendio ripido"),
    ("8.8", 575, "Esempio: indietreggiare in una ZoC nemica comporta  una disorganizzazione supplementare"),
    ("10.3", 750, "Quindi, un’unità in rotta che si ritira in una ZoC frontale nemica è eliminata"),
    ("II.8.3", 878, "è impossibile ottenere un risultato di 9 col dado"),
    ("II.2.3", 855, "Un ordine solo sarà sufficiente per avere tutte le unità Con Ordini"),
    ("II.2.3", 857, "Se il giocatore francese vuole avere entrambi Con Ordini, dovrà spendere due ordini"),
]
# The optional rule 2.3's examples (Mortier's formation) are played with that rule's tests.
EXAMPLE_FILES = {"II.2.3": "test_jdg_optional.py"}

BRACKETS = re.compile(r"\[([^\]]+)\]")
NUMBER = re.compile(r"((?:II|D)(?:\.\d+)*|\d+(?:\.\d+)*)(?!\w)")
OPTIONAL = re.compile(r"\b[Oo]ptional (?:rule )?\[?(\d+(?:\.\d+)*)")
MARENGO = re.compile(r"\bMarengo (?:D |errata )\[?(\d+(?:\.\d+)*)|\bMarengo (\d+\.\d+)\b")


def cited(doc: str) -> set[str]:
    """The index ids a test docstring cites (see the module docstring)."""
    out = {f"II.{n}" for n in OPTIONAL.findall(doc)}
    out |= {f"D.{a or b}" for a, b in MARENGO.findall(doc)}
    doc = MARENGO.sub("", OPTIONAL.sub("", doc))          # "optional [8.3]" is not [8.3]
    for group in BRACKETS.findall(doc):
        for part in group.split(","):
            m = NUMBER.match(part.strip())
            if m:
                out.add(m.group(1))
    return out


def _tests() -> list[tuple[str, str, str]]:
    return docstrings_of_tests("test_jdg_*.py", but=Path(__file__).name)


def _sections() -> list[dict]:
    return index_sections(INDEX)


def _citing() -> dict[str, list[str]]:
    """{paragraph id: ["file::test", ...]} from docstrings and the index's test_prefixes."""
    return citing(_tests(), _sections(), cited)


def test_the_citation_reader():
    """The forms the JdG tests use to cite a paragraph are read as index ids."""
    assert cited("[8.5] L526: 5-9, the defender falls back; [8.7] advances") == {"8.5", "8.7"}
    assert cited("[6.2, 8.8, 10.3] and [1.D.3], [10.3] L750") == {"6.2", "8.8", "10.3", "1"}
    assert cited("Optional 11 L890 (HERALD D69); optional [8.3]; [II.2.3]") == {"II.11", "II.8.3", "II.2.3"}
    assert cited("Marengo D 2.1; Marengo 4.3 (L945); Marengo errata 4.4; [D.8.6]") == \
        {"D.2.1", "D.4.3", "D.4.4", "D.8.6"}
    assert cited("the night turns (Marengo 9 and 10)") == set()
    assert cited("a list [0] and st.units[uid]") == {"0"}
    assert cited("[II] L820 and [D] L899") == {"II", "D"}
    assert cited("[Dx], [II3], [idx]") == set()


def test_every_paragraph_with_a_rule_has_a_test_citing_it():
    """Issue 14: every section of the rulebook has a test citing it (EXEMPT: no rule)."""
    citing = _citing()
    ids = [s["id"] for s in _sections()]
    counts = {pid: len(citing.get(pid, [])) for pid in ids}
    print("\nJdG paragraphs and the tests citing them:")
    for pid in ids:
        print(f"  [{pid}] {counts[pid]}" + ("  (exempt: no rule)" if pid in EXEMPT else ""))
    pending = set() if PENDING_FILE.is_file() else set(PENDING)
    missing = [pid for pid in ids if pid not in EXEMPT and pid not in pending and not counts[pid]]
    assert not missing, f"paragraphs with a rule and no test citing them: {missing}"


def test_the_exempt_paragraphs_are_in_the_index():
    ids = {s["id"] for s in _sections()}
    assert set(EXEMPT) <= ids and set(PENDING) <= ids, sorted((set(EXEMPT) | set(PENDING)) - ids)


def test_every_citation_names_a_paragraph_of_the_index():
    """A test citing "[8.10]" or "Marengo 3.2" cites nothing the book has: a typo to fix."""
    ids = {s["id"] for s in _sections()}
    wrong = sorted((pid, who) for pid, tests in _citing().items() if pid not in ids for who in tests)
    assert not wrong, wrong


def test_the_index_test_prefixes_name_tests():
    """Each test_prefixes entry of the index (shown by /rules) finds at least one JdG test."""
    names = [name for _, name, _ in _tests()]
    stale = [(s["id"], p) for s in _sections() for p in s["test_prefixes"]
             if p.startswith("test") and not any(n.startswith(p) for n in names)]
    assert not stale, stale


def test_the_examples_are_the_texts():
    """Each listed example is on its line of the book, under its paragraph."""
    if not BOOK.is_file():
        pytest.skip(f"the Italian rulebook is not on this machine ({BOOK}); set HERALD_RULES_DIR")
    lines = BOOK.read_text(encoding="utf-8").splitlines()
    for pid, line, words in EXAMPLES:
        assert words in lines[line - 1], (pid, line, words)


def test_the_line_reader():
    assert lines_cited("[8.6] L539; L855-859 and L46-L48, not L5x") == {539, 855, 856, 857, 858, 859, 46, 47, 48}


def test_every_worked_example_is_played_by_a_test():
    """Each example of EXAMPLES is played by a test citing its paragraph and its line."""
    tests = _tests()
    missing = []
    for pid, line, _ in EXAMPLES:
        where = EXAMPLE_FILES.get(pid, "test_jdg_examples.py")
        if where == PENDING_FILE.name and not PENDING_FILE.is_file():
            continue                       # that rule's tests are still being written (PENDING)
        if not any(file == where and pid in cited(doc) and line in lines_cited(doc) for file, _, doc in tests):
            missing.append((pid, line, where))
    assert not missing, f"worked examples with no test: {missing}"
