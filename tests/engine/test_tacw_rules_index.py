"""The TACW rules index (engine/tacw/rules_index.toml), the data behind /rules for This Accursed
Civil War: checked against the book, DECISIONS.md and the tests it cites.

The Italian rulebook is the authority (rules/tacw.it.txt, kept outside the repository in the
shared rules folder: $HERALD_RULES_DIR, else /work/shared/rules). The checks that need its text
are skipped, saying so, on a machine that does not have it; the list of the book's twelve chapters
is also written out here, so that the chapter check runs everywhere.
"""
import re
import tomllib
from pathlib import Path

import pytest

from tests.engine.coverage import book

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "engine" / "tacw" / "rules_index.toml"
DECISIONS = ROOT / "engine" / "tacw" / "DECISIONS.md"
TESTS = ROOT / "tests" / "engine"
BOOK = book("tacw.it.txt")

# The book's chapters, as headed in tacw.it.txt ("1. INTRODUZIONE" ... "12. RECUPERO E RIFORMAZIONE").
CHAPTERS = {
    "1": "INTRODUZIONE", "2": "COMPONENTI E TERMINI", "3": "SEQUENZA DI GIOCO",
    "4": "INIZIATIVA ED ATTIVAZIONE", "5": "COMANDANTI ED ORDINI", "6": "ORIENTAMENTO E FORMAZIONE",
    "7": "MOVIMENTO", "8": "RAGGRUPPAMENTO", "9": "COMBATTIMENTO A FUOCO",
    "10": "COMBATTIMENTO RAVVICINATO", "11": "MORALE", "12": "RECUPERO E RIFORMAZIONE",
}
BATTLES = ["Edgehill", "First Newbury", "Marston Moor", "Second Newbury", "Naseby"]
# The book's unnumbered parts that the index gives an entry of their own.
NAMED_PARTS = ["Glossary", "Victory", "Leader placement", "Terrain table"]
NUMBER = re.compile(r"\d+(\.\d+)*")
SHARED_RUN = 8                      # words in a row that a summary may not share with the book


def _index():
    with INDEX.open("rb") as f:
        return tomllib.load(f)


def _sections():
    return _index()["sections"]


def _book():
    if not BOOK.is_file():
        pytest.skip(f"the Italian rulebook is not on this machine ({BOOK}); set HERALD_RULES_DIR")
    return BOOK.read_text(encoding="utf-8")


def _book_headings(text):
    """Every numbered heading of the rules part of the book (before the victory rules and the
    battles), as "4", "4.4", "4.4.2"."""
    rules = text.split("DETERMINAZIONE DEL VINCITORE")[0]
    found = []
    for line in rules.splitlines():
        m = re.match(r"(\d+)\. ([A-Z][A-Z ’']+)$", line.strip())
        if m:
            found.append(m.group(1))
            continue
        m = re.match(r"(\d+\.\d+(?:\.\d+)?) \S", line)
        if m:
            found.append(m.group(1))
    return found


def _words(text):
    return re.findall(r"\w+", text.lower())


def _test_names(pattern="*.py"):
    names = set()
    for path in TESTS.rglob(pattern):
        if path.resolve() == Path(__file__).resolve():
            continue                # the index's own checks are not examples of a rule
        names.update(re.findall(r"^\s*(?:async\s+)?def (test_\w+)", path.read_text(encoding="utf-8"),
                                re.M))
    return names


# -- the file and its schema ------------------------------------------------------------------------

def test_the_index_parses_and_every_entry_has_the_schema_fields():
    data = _index()
    assert data["ruleset"] == "tacw"
    assert set(data) == {"ruleset", "sections"}
    for s in data["sections"]:
        assert set(s) == {"id", "title", "summary", "decisions", "keywords", "test_prefixes"}, s.get("id")
        assert isinstance(s["id"], str) and s["id"] and "§" not in s["id"]
        assert isinstance(s["title"], str) and s["title"].strip(), s["id"]
        assert all(isinstance(x, str) for x in s["decisions"] + s["keywords"] + s["test_prefixes"])
        assert s["keywords"], f"{s['id']}: no keywords"
        assert all(k == k.lower().strip() and k for k in s["keywords"]), s["id"]
        assert len(set(s["keywords"])) == len(s["keywords"]), f"{s['id']}: repeated keyword"


def test_ids_are_unique():
    ids = [s["id"] for s in _sections()]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_ids_are_book_numbers_battles_or_the_named_parts():
    for s in _sections():
        assert NUMBER.fullmatch(s["id"]) or s["id"] in BATTLES + NAMED_PARTS, s["id"]
    ids = {s["id"] for s in _sections()}
    assert set(BATTLES + NAMED_PARTS) <= ids


def test_numbered_sections_follow_the_books_order():
    numbers = [tuple(int(p) for p in s["id"].split(".")) for s in _sections()
               if NUMBER.fullmatch(s["id"])]
    assert numbers == sorted(numbers)


# -- against the book ---------------------------------------------------------------------------------

def test_every_chapter_of_the_book_is_present():
    ids = {s["id"] for s in _sections()}
    assert set(CHAPTERS) <= ids, sorted(set(CHAPTERS) - ids, key=int)


def test_the_chapter_list_is_the_books():
    text = _book()
    chapters = {h for h in _book_headings(text) if "." not in h}
    assert chapters == set(CHAPTERS)
    for number, title in CHAPTERS.items():
        assert f"\n{number}. {title}\n" in text


def test_every_numbered_section_and_subsection_of_the_book_is_present_and_no_other():
    headings = _book_headings(_book())
    assert len(headings) > 200 and len(headings) == len(set(headings))
    assert {"4.4.4", "9.9.9", "10.4.10", "12.4.3"} <= set(headings)
    numbered = {s["id"] for s in _sections() if NUMBER.fullmatch(s["id"])}
    assert set(headings) - numbered == set(), "missing from the index"
    assert numbered - set(headings) == set(), "not a heading of the book"


def test_summaries_are_our_own_words_not_the_books():
    book = _words(_book())
    runs = {tuple(book[i:i + SHARED_RUN]) for i in range(len(book) - SHARED_RUN + 1)}
    for s in _sections():
        words = _words(s["summary"])
        shared = [" ".join(words[i:i + SHARED_RUN]) for i in range(len(words) - SHARED_RUN + 1)
                  if tuple(words[i:i + SHARED_RUN]) in runs]
        assert not shared, f"{s['id']} shares with the book: {shared[0]!r}"


def test_the_copy_check_would_catch_a_pasted_sentence():
    """The check above is not vacuous: a sentence of the book, lowercased, is caught."""
    book = _words(_book())
    runs = {tuple(book[i:i + SHARED_RUN]) for i in range(len(book) - SHARED_RUN + 1)}
    pasted = _words("Un'unità può usare il fuoco di Salva una sola volta per turno e solo negli "
                    "esagoni frontali.")
    assert any(tuple(pasted[i:i + SHARED_RUN]) in runs for i in range(len(pasted) - SHARED_RUN + 1))


# -- the summaries ------------------------------------------------------------------------------------

def test_summaries_are_two_to_six_sentences_on_one_line():
    for s in _sections():
        text = s["summary"]
        assert "\n" not in text and "  " not in text and text == text.strip(), s["id"]
        assert text[-1] in ".)", s["id"]
        sentences = [x for x in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9(\"])", text) if x]
        assert 2 <= len(sentences) <= 6, f"{s['id']}: {len(sentences)} sentences"


def test_the_errata_are_stated_where_they_change_the_rule():
    """GMT's errata of 10 May 2002 (supplements.md §3.1) override the Italian text."""
    by_id = {s["id"]: s["summary"] for s in _sections()}
    assert "one hex closer" in by_id["5.6.1"] and "errata" in by_id["5.6.1"]
    assert "not next to an enemy" in by_id["5.6.3"]
    assert "F-Disordered for fire and close combat" in by_id["6.3.3"]
    assert "never takes one at a hedge" in by_id["Terrain table"]


# -- decisions and tests cited --------------------------------------------------------------------------

def test_every_decision_cited_exists_in_decisions_md():
    known = set(re.findall(r"\*\*(D\d+) —", DECISIONS.read_text(encoding="utf-8")))
    assert {"D1", "D60", "D124"} <= known
    for s in _sections():
        assert len(set(s["decisions"])) == len(s["decisions"]), s["id"]
        for d in s["decisions"]:
            assert re.fullmatch(r"D\d+", d) and d in known, f"{s['id']}: {d}"


def test_decisions_are_cited_in_numeric_order():
    for s in _sections():
        numbers = [int(d[1:]) for d in s["decisions"]]
        assert numbers == sorted(numbers), s["id"]


def test_every_decision_of_decisions_md_is_cited_somewhere():
    """Every recorded decision concerns some rule, so /rules must be able to show it."""
    known = set(re.findall(r"\*\*(D\d+) —", DECISIONS.read_text(encoding="utf-8")))
    cited = {d for s in _sections() for d in s["decisions"]}
    assert known - cited == set()


def test_every_test_prefix_names_a_test_in_tests_engine():
    names = _test_names()
    assert "test_9_4_salvo_only_into_front_hexes" in names
    for s in _sections():
        assert len(set(s["test_prefixes"])) == len(s["test_prefixes"]), s["id"]
        for prefix in s["test_prefixes"]:
            assert prefix.startswith("test_"), f"{s['id']}: {prefix}"
            assert any(n.startswith(prefix) for n in names), f"{s['id']}: no test {prefix}*"


def test_numbered_test_names_point_at_their_section():
    """A TACW rules test named after a section (test_9_4_..., test_tacw_5_4_3_..., in the
    test_tacw_*.py files) is cited by that section or by one of its subsections, so /rules shows
    it. (Other files, such as the cross-ruleset odds tests, are cited where they help.)"""
    names = _test_names("test_tacw_*.py")
    prefixes = {s["id"]: s["test_prefixes"] for s in _sections()}
    for name in sorted(names):
        m = re.match(r"test_(?:tacw_)?(\d+(?:_\d+){1,2})_", name)
        if not m or m.group(1).split("_")[0] not in CHAPTERS:
            continue
        number = m.group(1).replace("_", ".")
        if number not in prefixes:
            continue            # not a section number of the book: another test checks that
        cited = [sid for sid, ps in prefixes.items()
                 if any(name.startswith(p) for p in ps)]
        assert number in cited or any(c.startswith(number + ".") for c in cited), \
            f"{name} is not cited by §{number}"
