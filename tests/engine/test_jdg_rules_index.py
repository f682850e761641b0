"""The Jours de Gloire rules index (engine/jdg/rules_index.toml), the data behind /rules for JdG:
checked against the book and engine/jdg/DECISIONS.md.

The Italian rulebook is the authority (jours-de-gloire.it.txt, kept outside the repository in the
shared rules folder: $HERALD_RULES_DIR, else /work/shared/rules). The check that needs its text is
skipped, saying so, on a machine that does not have it.

The book has three numbered parts: the basic rules ("I. Regole base.", paragraphs 0 to 13), the
optional rules ("II. Regole opzionali.", numbered after the basic rule they change; index ids
"II.<n>") and the Marengo 1800 rules ("D. Regole per Marengo 1800.", with its errata; ids
"D.<n>").
"""
import re
import tomllib
from pathlib import Path

import pytest

from tests.engine.coverage import book

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "engine" / "jdg" / "rules_index.toml"
DECISIONS = ROOT / "engine" / "jdg" / "DECISIONS.md"
BOOK = book("jours-de-gloire.it.txt")

# A paragraph heading: "8.5. Risultati dell’assalto.", "2.1. Indicatori di attivazione (IA)".
# Short lines only: the numbered steps of the turn sequence ("1. I giocatori tirano ...") are
# sentences, not headings.
HEADING = re.compile(r"(\d+(?:\.\d+)*)\.\s+\S.{0,60}$")
OPTIONAL_START = "II. Regole opzionali"
MARENGO_START = "D. Regole per Marengo"
FIELDS = {"id", "title", "summary", "decisions", "keywords", "test_prefixes"}
D_ENTRY = re.compile(r"^\*\*(D\d+) — (.*?)\*\*", re.M | re.S)


def _index():
    with INDEX.open("rb") as f:
        return tomllib.load(f)


def _sections():
    return _index()["sections"]


def _ids():
    return {s["id"] for s in _sections()}


def _book():
    if not BOOK.is_file():
        pytest.skip(f"the Italian rulebook is not on this machine ({BOOK}); set HERALD_RULES_DIR")
    return BOOK.read_text(encoding="utf-8")


def _book_headings(text):
    """Every numbered paragraph heading of the book, as index ids: "8.5" in the basic rules,
    "II.8.3" in the optional rules, "D.2.1" in the Marengo rules (errata included)."""
    found = []
    prefix = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(OPTIONAL_START):
            prefix = "II."
            continue
        if stripped.startswith(MARENGO_START):
            prefix = "D."
            continue
        m = HEADING.match(stripped)
        if m:
            found.append(prefix + m.group(1))
    return found


def _decisions():
    """{"D1": [cited section ids], ...} from the bold header of each DECISIONS.md entry."""
    text = DECISIONS.read_text(encoding="utf-8")
    entries = {}
    for m in D_ENTRY.finditer(text):
        cited = []
        for group in re.findall(r"\[([^\]]+)\]", m.group(2)):
            cited.extend(part.strip() for part in group.split(","))
        entries[m.group(1)] = cited
    return entries


def test_index_is_the_jdg_ruleset():
    assert _index()["ruleset"] == "jdg"


def test_every_entry_has_the_fields_and_a_summary():
    for s in _sections():
        assert set(s) == FIELDS, s.get("id")
        assert s["title"].strip() and s["summary"].strip(), s["id"]
        assert s["keywords"], s["id"]
        assert all(isinstance(k, str) and k for k in s["keywords"]), s["id"]
        assert isinstance(s["test_prefixes"], list), s["id"]


def test_ids_are_unique():
    ids = [s["id"] for s in _sections()]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, dupes


def test_the_heading_reader_finds_the_three_parts():
    headings = _book_headings(_book())
    assert "0" in headings and "13" in headings and "9.5" in headings
    assert {"II.1", "II.2.3", "II.7", "II.8.3", "II.11"} <= set(headings)
    assert {"D.0.1", "D.2.1", "D.8.6", "D.4.4"} <= set(headings)
    # the numbered steps of the turn sequence are not headings
    assert headings.count("1") == 1 and headings.count("3") == 1


def test_every_paragraph_of_the_book_has_an_entry():
    ids = _ids()
    missing = [h for h in _book_headings(_book()) if h not in ids]
    assert not missing, f"paragraphs of the book with no index entry: {missing}"


def test_every_cited_decision_exists():
    known = set(_decisions())
    for s in _sections():
        for d in s["decisions"]:
            assert re.fullmatch(r"D\d+", d), (s["id"], d)
            assert d in known, f"{s['id']} cites {d}, which DECISIONS.md does not have"


def test_decisions_are_numbered_in_order():
    numbers = [int(d[1:]) for d in _decisions()]
    assert numbers == list(range(1, len(numbers) + 1))


def test_every_decision_cites_a_section_of_the_index():
    ids = _ids()
    for d, cited in _decisions().items():
        assert cited, f"{d} names no section"
        assert any(c in ids for c in cited), f"{d} cites {cited}, none of them in the index"


def test_every_decision_is_reachable_from_the_index():
    cited = {d for s in _sections() for d in s["decisions"]}
    unreached = sorted(set(_decisions()) - cited, key=lambda d: int(d[1:]))
    assert not unreached, f"decisions no index entry points to: {unreached}"


def test_every_digest_ambiguity_is_mapped():
    """The table at the end of DECISIONS.md settles each of the digest's 38 §9 items."""
    text = DECISIONS.read_text(encoding="utf-8")
    known = set(_decisions())
    rows = dict(re.findall(r"^\| (A\d+) \|[^|]*\|([^\n]*)\|$", text, re.M))
    assert sorted(rows, key=lambda a: int(a[1:])) == [f"A{i}" for i in range(1, 39)]
    for item, where in rows.items():
        cited = re.findall(r"D\d+", where)
        assert cited and set(cited) <= known, (item, where)


def test_rules_command_reads_the_index_and_the_decisions():
    """/rules (engine/core/rulesdoc.py) parses both files with nothing to report."""
    from engine.core import rulesdoc

    index = rulesdoc.parse_index(INDEX.read_text(encoding="utf-8"), str(INDEX), "jdg")
    decisions = rulesdoc.parse_decisions(DECISIONS.read_text(encoding="utf-8"))
    assert set(decisions) == set(_decisions())
    assert rulesdoc.validate(index, decisions) == []
