"""Issue 15's bar for Lion of the North: every section and lettered paragraph of the rulebook that
states a rule has a test citing it, and every worked example and remark of the text is played by a
test.

The paragraphs are the entries of engine/lion/rules_index.toml (one per section 1-15 and lettered
paragraph of the Italian text, each random event "15 1".."15 6", the summary sheet, the troop
chart, the TIRO grid, the printed cards and Herald's battles). A test "cites" a paragraph when its
own docstring (not its module's) names it:

- in brackets, alone or in a list: "[8 C]", "[7 B], [9 A]", "[8 C] L92", "LdN [8 E]";
- a range of letters: "[12 E-F]" cites 12 E and 12 F, "[9 A-C]" 9 A, 9 B and 9 C;
- a random event: "[15] 3", "[15] 5-6", "[15 3]";
- a named part: "[Tabella riassuntiva]", "[Tabella delle truppe]", "[TIRO]", "[Carte]",
  "[Battles]";

or when the paragraph's `test_prefixes` in the index name it (as /rules shows them).

A paragraph without a rule of its own (a section heading whose text is all in its lettered
paragraphs, the introduction) is listed in EXEMPT with the reason. Run with -s to print each
paragraph's count of tests.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.engine.coverage import book, citing, index_sections, lines_cited, docstrings_of_tests

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "engine" / "lion" / "rules_index.toml"
BOOK = book("lion-of-the-north.it.txt")

# Paragraphs with no rule to test, and why (the text's line numbers, L<n>).
EXEMPT = {
    "1": "the introduction (L18-24): the edition's history and the reviser's notes, no rule",
    "5": "the heading 'Movimenti della fanteria, cavalleria e generali' (L62): its rules are 5 A-D",
    "6": "the heading 'Movimento dell'artiglieria' (L69): its rules are 6 A-C",
    "7": "the heading 'Tiro' (L75): its rules are 7 A-G",
    "8": "the heading 'Mischie' (L88): its rules are 8 A-E",
    "9": "the heading 'Unità disordinate' (L96): its rules are 9 A-C",
    "10": "the heading 'Riorganizzazione' (L103): its rule is 10 A",
    "11": "the heading 'Demoralizzazione' (L108): its rules are 11 A-C",
    "12": "the heading 'Regole speciali' (L114): its rules are 12 A-G",
    "14": "the heading 'Condizioni di vittoria' (L149): its rules are 14 A-B",
    "4": "the heading 'Comando' (L46): its rules are 4 A-E",
}

# The worked examples and remarks of the text: (paragraph, line, words of the example). Each is
# played by a test of tests/engine/test_lion_examples.py whose docstring cites the paragraph and
# the line ("L98", or a range "L120-122" that holds it).
EXAMPLES = [
    ("9 A", 98, "una base disordinata di picchieri si difende con 1d10 invece di 1d12"),
    ("9 A", 98, "notare che ciò implica il fatto che il fuoco può risultare, in alcuni casi, inefficiente"),
    ("12 F", 124, "un tercio che combatte contro 2 unità nemiche lancia 1d12, 1d8 ed 1d3"),
    ("12 E", 120, "Se l'unità è attaccata da una sola unità nemica lancia 1d12, se attaccata da due, aggiunge 1d8"),
    ("12 E", 122, "l'unità \"spara\" con 1d10 e combatte con 1d10 più 1 eventuale d6"),
    ("7 D", 81, "alcune basette potranno sparare due volte durante lo stesso turno"),
    ("11 A", 110, "40% (arrotondato per eccesso)"),
    ("4 E", 60, "esercito addestrato D6, esercito regolare D4, esercito irregolare D3"),
    ("12 A", 116, "contano come 2 basette se l'esercito è addestrato, 3 se regolare, 5 se irregolare"),
    ("5 C", 66, "nessun'unità viene distrutta da unità amiche che le interpenetrano"),
    ("4 D", 54, "Non sono permessi né movimenti a velocità tripla, né marce forzate per gruppi di unità"),
]

BRACKETS = re.compile(r"\[([^\]]+)\](?:\s*(\d(?:-\d)?)(?!\d))?")
PARA = re.compile(r"^(?:LdN\s+)?(\d{1,2})(?:\s+([A-G])(?:-([A-G]))?)?(?:\s+(\d)(?:-(\d))?)?$")
NAMED = {"tabella riassuntiva": "Tabella riassuntiva", "tabella delle truppe": "Tabella delle truppe",
         "troop chart": "Tabella delle truppe", "tiro": "TIRO", "carte": "Carte", "battles": "Battles"}


def cited(doc: str) -> set[str]:
    """The index ids a test docstring cites (see the module docstring)."""
    out: set[str] = set()
    for group, event in BRACKETS.findall(doc):
        parts = [p.strip() for p in group.split(",")]
        for k, part in enumerate(parts):
            name = NAMED.get(part.lower().removeprefix("ldn ").strip())
            if name:
                out.add(name)
                continue
            m = PARA.match(part)
            if not m:
                continue
            sec, a, b, e1, e2 = m.groups()
            if a:
                for letter in "ABCDEFG"["ABCDEFG".index(a):"ABCDEFG".index(b or a) + 1]:
                    out.add(f"{sec} {letter}")
            elif e1:
                out.update(f"{sec} {n}" for n in range(int(e1), int(e2 or e1) + 1))
            elif sec == "15" and event and k == len(parts) - 1:
                lo, _, hi = event.partition("-")
                out.update(f"15 {n}" for n in range(int(lo), int(hi or lo) + 1))
            else:
                out.add(sec)
    return out


def _tests() -> list[tuple[str, str, str]]:
    return docstrings_of_tests("test_lion_*.py", but=Path(__file__).name)


def _sections() -> list[dict]:
    return index_sections(INDEX)


def _citing() -> dict[str, list[str]]:
    """{paragraph id: ["file::test", ...]} from docstrings and the index's test_prefixes."""
    return citing(_tests(), _sections(), cited)


def test_the_citation_reader():
    """The forms the Lion tests use to cite a paragraph are read as index ids."""
    assert cited("[8 C] L92; LdN [8 E], and [7 B], [9 A]") == {"8 C", "8 E", "7 B", "9 A"}
    assert cited("[12 E-F] and [9 A-C]") == {"12 E", "12 F", "9 A", "9 B", "9 C"}
    assert cited("[15] 3; the rain [15] 5-6; [15 1]") == {"15 3", "15 5", "15 6", "15 1"}
    assert cited("[15]: the table") == {"15"}
    assert cited("[Tabella riassuntiva], [TIRO] and [Tabella delle truppe]") == \
        {"Tabella riassuntiva", "TIRO", "Tabella delle truppe"}
    assert cited("[4 B], HERALD D69; [3], [13]") == {"4 B", "3", "13"}
    assert cited("st.units[uid], a list[0], [x]") == {"0"}


def test_every_paragraph_with_a_rule_has_a_test_citing_it():
    """Issue 15: every section of the rulebook has a test citing it (EXEMPT: no rule)."""
    citing = _citing()
    ids = [s["id"] for s in _sections()]
    counts = {pid: len(citing.get(pid, [])) for pid in ids}
    print("\nLion of the North paragraphs and the tests citing them:")
    for pid in ids:
        print(f"  [{pid}] {counts[pid]}" + ("  (exempt: no rule)" if pid in EXEMPT else ""))
    missing = [pid for pid in ids if pid not in EXEMPT and not counts[pid]]
    assert not missing, f"paragraphs with a rule and no test citing them: {missing}"


def test_the_exempt_paragraphs_are_in_the_index():
    ids = {s["id"] for s in _sections()}
    assert set(EXEMPT) <= ids, sorted(set(EXEMPT) - ids)


def test_every_citation_names_a_paragraph_of_the_index():
    """A test citing "[8 F]" or "[16]" cites nothing the book has: a typo to fix ("[0]", a list
    index in a docstring's code, aside)."""
    ids = {s["id"] for s in _sections()}
    wrong = sorted((pid, who) for pid, tests in _citing().items()
                   if pid not in ids and pid != "0" for who in tests)
    assert not wrong, wrong


def test_the_index_test_prefixes_name_tests():
    """Each test_prefixes entry of the index (shown by /rules) finds at least one Lion test."""
    names = [name for _, name, _ in _tests()]
    stale = [(s["id"], p) for s in _sections() for p in s.get("test_prefixes", [])
             if p.startswith("test") and not any(n.startswith(p) for n in names)]
    assert not stale, stale


def test_the_examples_are_the_texts():
    """Each listed example is on its line of the book."""
    if not BOOK.is_file():
        pytest.skip(f"the Italian rulebook is not on this machine ({BOOK}); set HERALD_RULES_DIR")
    lines = BOOK.read_text(encoding="utf-8").splitlines()
    for pid, line, words in EXAMPLES:
        assert words in lines[line - 1], (pid, line, words)


def test_the_line_reader():
    assert lines_cited("[9 A] L98; L120-122 and L46-L48, not L5x") == {98, 120, 121, 122, 46, 47, 48}


def test_every_worked_example_is_played_by_a_test():
    """Each example of EXAMPLES is played by a test of test_lion_examples.py citing its
    paragraph and its line."""
    tests = _tests()
    missing = [(pid, line) for pid, line, _ in EXAMPLES
               if not any(file == "test_lion_examples.py" and pid in cited(doc) and line in lines_cited(doc)
                          for file, _, doc in tests)]
    assert not missing, f"worked examples with no test: {missing}"
