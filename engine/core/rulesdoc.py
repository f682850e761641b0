"""The rules index behind `/rules` (DESIGN principles 3 and 7: a ruling is read with the rulebook
open): per ruleset, one TOML file listing every section of the book with our own concise English
statement of it, the decisions Herald took where the book is unclear, the words players would
type, and how to find the tests that check it.

    ruleset = "battlecry"
    [[sections]]
    id = "4.6"                      # the book's number, without §
    title = "Retreats"
    summary = \"\"\"Our own words, 2-6 sentences.\"\"\"
    decisions = ["retreat direction: ...", "D93"]   # free text, or D-numbers of DECISIONS.md
    keywords = ["retreat", "flag"]
    test_prefixes = ["test_bc_4_6", "retreat"]       # how to find the tests that check it

Optional top-level keys: `cite` (how events cite the book, e.g. "BC" for "BC §4.6"; default from
`CITES` or the ruleset id in capitals) and `test_files` (globs under the repository of the test
files to search; default every test file).

Where the files are: `engine/<ruleset>/rules_index.toml` and `engine/<ruleset>/DECISIONS.md`
(the D-numbered decisions, if the ruleset keeps such a file), unless the ruleset object names
others (`rules_index_path`, `decisions_path` attributes), so a later ruleset is served by adding
its files, with no change here.

Lookup (`RulesIndex.lookup`): by number ("4.6", "§4.6", "BC §4.6 rule 7", "TACW §3.2 D"; the
nearest enclosing section when the exact one is not listed, and the words after the number pick
among its subsections: "BC §7 (Antietam)" finds the Antietam scenario section) or by words
("retreat", "horse artillery"), ranked by how many of the words a section matches and where
(title, keywords, summary).

Tests (`find_tests`): a `test_prefixes` entry starting with `test` matches the test functions
whose names start with it, in every test file searched; any other entry matches test functions
whose names contain it, in the ruleset's own test files (the file name contains the ruleset id),
so a word like "retreat" does not pull in another ruleset's tests. The tests directory is read
when present (a deployed bot may have none: then no tests are shown).

Pure apart from reading these data files (like the scenario loaders); no discord, sqlite, Pillow.
Run `python -m engine.core.rulesdoc <ruleset> <query>` to look a rule up from a shell.
"""
from __future__ import annotations

import fnmatch
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

ENGINE_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = ENGINE_DIR.parent
TESTS_DIR = REPO_DIR / "tests"
INDEX_FILE = "rules_index.toml"
DECISIONS_FILE = "DECISIONS.md"
# A ruleset's own completion of a text that lacks rules (the Italian Wars' movement, shooting,
# melee...): a readable supplement whose "## <CITE>-H <n> — <title>" sections /rules serves beside
# the rulebook's own (issue 16: "a short, readable rules supplement ... shown by /rules").
SUPPLEMENT_FILE = "SUPPLEMENT.md"
SUPPLEMENT_HEAD_RE = re.compile(r"^##\s+([A-Za-z]+-H\s+\d+)\s*[—–-]+\s*(.+?)\s*$")
SUPPLEMENT_CITE_RE = re.compile(r"^([a-z]+-h \d+)(?:\.\d+)?\b")
MAX_INDEX_BYTES = 1024 * 1024

# How the events of each ruleset cite its book ("BC §4.4"); an index may say so itself (`cite`).
CITES = {"battlecry": "BC", "tacw": "TACW"}

SECTION_KEYS = {"id", "title", "summary", "decisions", "keywords", "test_prefixes"}
TOP_KEYS = {"ruleset", "sections", "cite", "test_files", "title", "note", "provenance"}
STOPWORDS = frozenset("""a an the of to in on at and or is are be it its it's for with by from as
what how does do can may i my me we our you your when which who where why if than then that this
these those there rule rules section""".split())
NUMBER_RE = re.compile(r"^(\d+(?:\.\d+)*)\b\s*(.*)$")
D_RE = re.compile(r"^D(\d+)$", re.IGNORECASE)


class RulesIndexError(ValueError):
    """A rules index file that cannot be used; the message names the file and the entry."""


# == what a player reads =======================================================================
# The index and DECISIONS.md are written for the maintainers too: they cite the digest of the
# book ("digest §8 item 9", "digest R18"), line numbers of the transcribed text ("L904-930"), and
# files ("supplements.md §2.3", "`close_combat/melee.py`", "*Files: ...*"). A player has none of
# these: an answer cites the rulebook's sections and Herald's decisions only.

INTERNAL_RE = re.compile(r"digest|supplements|\bL\d{2,4}\b|[\w/-]+\.(?:py|md|txt|toml|json)\b|\bengine/|\btests/")
_FILES_RE = re.compile(r"\*?\bFiles?:[^*]*(?:\*|$)")
_PAREN_RE = re.compile(r"\s*\(([^()]*)\)")
_SENTENCE_RE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"”’)]))\s+(?=[A-Z(\"“*'])")


def for_players(text: str) -> str:
    """`text` without what only a maintainer has: references to the digest, to line numbers
    and to files are dropped from parentheses (an emptied parenthesis goes), and a sentence
    that still names one is left out; the rest is kept word for word."""
    t = _FILES_RE.sub("", str(text))

    def paren(m: re.Match) -> str:
        inner = m.group(1)
        if not INTERNAL_RE.search(inner):
            return m.group(0)
        keep = [p.strip() for p in re.split(r"[;,]", inner) if p.strip() and not INTERNAL_RE.search(p)]
        return f" ({', '.join(keep)})" if keep else ""

    t = _PAREN_RE.sub(paren, t)
    t = re.sub(r"\*+", "", t)
    sentences = [s for s in _SENTENCE_RE.split(" ".join(t.split())) if s and not INTERNAL_RE.search(s)]
    out = " ".join(sentences)
    out = re.sub(r"\s+([.,;:])", r"\1", out)
    return re.sub(r"\(\s*\)", "", out).strip()


def whole_sentences(text: str, limit: int) -> tuple[str, bool]:
    """The first sentences of `text` up to `limit` characters (at least one), never ending on a
    colon (the sentence that introduces a list takes the next one with it); and whether any
    sentence was left out."""
    sentences = _SENTENCE_RE.split(text.strip())
    out = ""
    for i, s in enumerate(sentences):
        if out and len(out) + 1 + len(s) > limit and not out.rstrip().endswith(":"):
            return out, True
        out = f"{out} {s}".strip()
    return out, False


# == the data ==================================================================================

@dataclass(frozen=True)
class Section:
    id: str
    title: str
    summary: str
    decisions: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    test_prefixes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return norm_id(self.id)


@dataclass(frozen=True)
class Match:
    section: Section
    score: float
    how: str            # "number", "nearest", "words"


@dataclass
class Decision:
    id: str             # "D108"
    title: str
    text: str           # the whole paragraph

    def short(self, limit: int = 400) -> str:
        """The title and the decision in whole sentences, for a player (`for_players`): all of
        it when short, else its first sentences and where to read the rest (`/rules D61`)."""
        title = for_players(self.title).rstrip(".:")
        body, cut = whole_sentences(for_players(self.text), limit)
        out = f"{self.id} — {title}" + (f": {body}" if body else "")
        return out + (f" (the whole decision: /rules {self.id})" if cut else "")

    def full(self) -> str:
        return f"{self.id} — {for_players(self.title).rstrip('.:')}: {for_players(self.text)}"


@dataclass
class RulesIndex:
    ruleset: str
    sections: list[Section]
    source: str = "<index>"
    cite: str = ""
    test_files: tuple[str, ...] = ()
    unknown_keys: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cite = self.cite or CITES.get(self.ruleset, self.ruleset.upper())
        self._by_key = {s.key: s for s in self.sections}

    def get(self, section_id: str) -> Section | None:
        return self._by_key.get(norm_id(section_id))

    # -- lookup ---------------------------------------------------------------------------------
    def lookup(self, query: str, limit: int = 6) -> list[Match]:
        """The sections a player means by `query`, best first (empty: nothing matches)."""
        text = strip_citation(query, self.cite, self.ruleset)
        if not text:
            return []
        exact = self._by_key.get(norm_id(text))
        if exact is not None:
            return [Match(exact, 100.0, "number" if NUMBER_RE.match(text) else "words")]
        m = NUMBER_RE.match(text)
        if m:
            found = self._by_number(m.group(1), m.group(2))
            if found is not None:
                return [found]
            if not tokens(m.group(2)):     # a bare number the book does not have
                return []
        return self._by_words(text, limit)

    def _by_number(self, number: str, rest: str) -> Match | None:
        words = tokens(rest)
        parts = number.split(".")
        while parts:
            num = ".".join(parts)
            # the longest "number + following words" that is an id ("4.6 rule 7", "2.4 card 5")
            rest_words = rest.split()
            for n in range(len(rest_words), 0, -1):
                sec = self._by_key.get(norm_id(f"{num} {' '.join(rest_words[:n])}"))
                if sec is not None:
                    return Match(sec, 90.0, "number" if num == number else "nearest")
            family = [s for s in self.sections if s.key == num or s.key.startswith(num + " ")
                      or s.key.startswith(num + ".")]
            if words and family:       # "7 (antietam)": the words choose among the subsections
                ranked = _rank(family, words, " ".join(words))
                if ranked:
                    return Match(ranked[0][1], 80.0, "number" if num == number else "nearest")
            sec = self._by_key.get(num)
            if sec is not None:
                return Match(sec, 70.0, "number" if num == number and not words else "nearest")
            parts.pop()
        return None

    def _by_words(self, text: str, limit: int) -> list[Match]:
        words = tokens(text)
        if not words:
            return []
        ranked = _rank(self.sections, words, " ".join(words))
        return [Match(sec, score, "words") for score, sec in ranked[:limit]]

    def section_for(self, citation: str) -> Section | None:
        """The section an event's citation names ("BC §2.4 card 5", "TACW §10.4.7"), if listed."""
        if not citation:
            return None
        text = strip_citation(citation, self.cite, self.ruleset)
        sup = SUPPLEMENT_CITE_RE.match(text or "")
        if sup and sup.group(1) in self._by_key:        # "IW-H 6.2; Herald completion" -> IW-H 6
            return self._by_key[sup.group(1)]
        if text and not NUMBER_RE.match(text) and norm_id(text) not in self._by_key:
            # a section named by a heading, not a number ("IW Tabella 6", "LdN [TIRO]"): the
            # ruleset's cite prefix before a known id
            for head in {self.cite.lower(), self.ruleset.lower()} - {""}:
                if text.startswith(head + " ") and norm_id(text[len(head) + 1:]) in self._by_key:
                    return self._by_key[norm_id(text[len(head) + 1:])]
        if not text or not NUMBER_RE.match(text) and norm_id(text) not in self._by_key:
            return None
        found = self.lookup(citation, limit=1)
        return found[0].section if found and found[0].how != "words" else None

    def title_of(self, citation: str) -> str | None:
        sec = self.section_for(citation)
        return sec.title if sec is not None else None

    def children(self, section: Section) -> list[Section]:
        """The sections listed directly under `section` ("4.6" -> "4.6 rule 7", "4.4" -> "4.4.1")."""
        k = section.key
        return [s for s in self.sections if s is not section
                and (s.key.startswith(k + " ") or (s.key.startswith(k + ".") and "." not in s.key[len(k) + 1:]
                                                   and " " not in s.key[len(k) + 1:]))]

    def complete(self, prefix: str, limit: int = 25) -> list[Section]:
        """Autocomplete: sections whose number starts with the typed text, else word matches."""
        text = strip_citation(prefix or "", self.cite, self.ruleset)
        if not text:
            return self.sections[:limit]
        key = norm_id(text)
        starts = [s for s in self.sections if s.key.startswith(key)]
        if starts:
            return starts[:limit]
        return [m.section for m in self._by_words(text, limit)]


def norm_id(text: str) -> str:
    return " ".join(str(text).lower().replace("§", " ").split())


def strip_citation(text: str, cite: str = "", ruleset: str = "") -> str:
    """'BC §7 (Antietam: no retreat)' -> '7 antietam: no retreat'; '§4.6' -> '4.6';
    'JdG [8.6]' -> '8.6' (the bracketed paragraphs of Jours de Gloire and Lion of the North)."""
    t = " ".join(str(text).replace("[", " ").replace("]", " ").split())
    if "§" in t:
        t = t.split("§", 1)[1]
    else:
        low = t.lower()
        for head in {cite.lower(), ruleset.lower()} - {""}:
            if low.startswith(head + " ") and NUMBER_RE.match(low[len(head):].strip()):
                t = t[len(head):]
                break
    t = t.replace("(", " ").replace(")", " ")
    return " ".join(t.split()).strip(" .,;:").lower()


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def tokens(text: str) -> list[str]:
    """Lower-case words of a query or a field, stop words dropped, plurals folded."""
    out = []
    for w in re.findall(r"[a-z0-9à-ù]+(?:[.'-][a-z0-9à-ù]+)*", str(text).lower()):
        if w in STOPWORDS:
            continue
        out.append(_stem(w))
    return out


def _rank(sections: Iterable[Section], words: list[str], phrase: str) -> list[tuple[float, Section]]:
    """Score each section by the query words: coverage first (how many distinct words match),
    then where they match (title and keywords weigh more than the summary)."""
    wanted = list(dict.fromkeys(words))
    out = []
    for order, sec in enumerate(sections):
        title = set(tokens(sec.title))
        ident = set(tokens(sec.id.replace(".", " ")))
        keys = [tokens(k) for k in sec.keywords]
        key_words = {w for k in keys for w in k}
        summary = set(tokens(sec.summary))
        decisions = set(tokens(" ".join(sec.decisions)))
        score, covered = 0.0, 0
        for w in wanted:
            hit = 0.0
            if w in title:
                hit += 3
            if w in key_words:
                hit += 3
            if w in ident:
                hit += 2
            if w in summary:
                hit += 1
            if w in decisions:
                hit += 0.5
            if hit:
                covered += 1
                score += hit
        if not covered:
            continue
        if len(wanted) > 1:
            joined = " ".join(wanted)
            if joined in " ".join(tokens(sec.title)) or any(" ".join(k) == joined for k in keys):
                score += 6
            elif any(joined in " ".join(k) for k in keys):
                score += 4
        elif any(k == wanted for k in keys) or tokens(sec.title) == wanted:
            score += 5           # the section's own word: Retreat (§10.4) before Retreat Fire
        out.append((covered * 100 + score - order * 1e-4, sec))
    out.sort(key=lambda p: -p[0])
    return out


# == loading and validation ====================================================================

def _strings(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: must be a list of strings")
        return ()
    return tuple(v.strip() for v in value if v.strip())


def parse_index(text: str, source: str = "<index>", ruleset: str | None = None) -> RulesIndex:
    """Read an index file; RulesIndexError names every problem (file, section number or
    position). Unknown keys are kept in `unknown_keys` for `validate` to report."""
    if len(text.encode()) > MAX_INDEX_BYTES:
        raise RulesIndexError(f"{source}: larger than {MAX_INDEX_BYTES // 1024} KiB")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesIndexError(f"{source}: TOML syntax: {exc}") from None
    problems: list[str] = []
    rid = data.get("ruleset")
    if not isinstance(rid, str) or not rid:
        problems.append("`ruleset` (the ruleset id) is missing")
        rid = ruleset or "?"
    elif ruleset is not None and rid != ruleset:
        problems.append(f"`ruleset` is '{rid}', expected '{ruleset}'")
    unknown = [f"top-level key `{k}`" for k in data if k not in TOP_KEYS]
    raw = data.get("sections")
    if not isinstance(raw, list) or not raw:
        problems.append("no [[sections]]")
        raw = []
    sections: list[Section] = []
    seen: dict[str, str] = {}
    for i, s in enumerate(raw, 1):
        if not isinstance(s, dict):
            problems.append(f"section #{i}: not a table")
            continue
        sid = s.get("id")
        where = f"section '{sid}'" if isinstance(sid, str) and sid.strip() else f"section #{i}"
        if not isinstance(sid, str) or not sid.strip():
            problems.append(f"{where}: `id` missing (the book's number, without §)")
            continue
        if "§" in sid:
            problems.append(f"{where}: write the id without §")
        if norm_id(sid) in seen:
            problems.append(f"{where}: id used twice")
        seen[norm_id(sid)] = sid
        for k in ("title", "summary"):
            if not isinstance(s.get(k), str) or not s.get(k, "").strip():
                problems.append(f"{where}: `{k}` missing or empty")
        unknown += [f"{where}: key `{k}`" for k in s if k not in SECTION_KEYS]
        sections.append(Section(
            id=sid.strip(), title=str(s.get("title", "")).strip(), summary=" ".join(str(s.get("summary", "")).split()),
            decisions=_strings(s.get("decisions"), f"{where} decisions", problems),
            keywords=_strings(s.get("keywords"), f"{where} keywords", problems),
            test_prefixes=_strings(s.get("test_prefixes"), f"{where} test_prefixes", problems)))
    cite = data.get("cite", "")
    test_files = _strings(data.get("test_files"), "test_files", problems)
    if problems:
        raise RulesIndexError(f"{source}: " + "; ".join(problems))
    return RulesIndex(rid, sections, source, str(cite or ""), test_files, unknown)


def validate(index: RulesIndex, decisions: dict[str, Decision] | None = None,
             tests: list["TestRef"] | None = None) -> list[str]:
    """Deeper checks than parsing: unknown keys, D-numbers that DECISIONS.md lacks, test
    prefixes that match no test (when the tests are given). Empty = fine."""
    problems = [f"{index.source}: unknown {k}" for k in index.unknown_keys]
    for s in index.sections:
        for d in s.decisions:
            if D_RE.match(d) and decisions is not None and d.upper() not in decisions:
                problems.append(f"section '{s.id}': {d} is not in DECISIONS.md")
        if tests is not None:
            for p in s.test_prefixes:
                if not match_tests([p], tests, index.ruleset):
                    problems.append(f"section '{s.id}': test prefix '{p}' matches no test")
    return problems


def ruleset_dir(ruleset_id: str) -> Path:
    return ENGINE_DIR / ruleset_id


def index_path(ruleset_id: str, ruleset: Any = None) -> Path:
    custom = getattr(ruleset, "rules_index_path", None) if ruleset is not None else None
    return Path(custom) if custom else ruleset_dir(ruleset_id) / INDEX_FILE


def decisions_path(ruleset_id: str, ruleset: Any = None) -> Path:
    custom = getattr(ruleset, "decisions_path", None) if ruleset is not None else None
    return Path(custom) if custom else ruleset_dir(ruleset_id) / DECISIONS_FILE


_INDEX_CACHE: dict[Path, tuple[float, RulesIndex]] = {}
_DECISION_CACHE: dict[Path, tuple[float, dict[str, Decision]]] = {}


def supplement_sections(text: str) -> list[Section]:
    """The sections of a completion supplement: each "## IW-H 6 — Melee" heading and its text up
    to the next heading (a table's rows kept as lines of cells; generated-block markers and the
    italic "Completes:" line dropped), titled "IW-H 6 — <title> (Herald completion)"."""
    out: list[Section] = []
    head: tuple[str, str] | None = None
    body: list[str] = []
    in_completes = False

    def close() -> None:
        if head is not None:
            summary = " ".join(line for line in body if line).strip()
            out.append(Section(head[0], f"{head[0]} — {head[1]} (Herald completion)", summary,
                               keywords=("herald completion", "supplement")))

    for line in text.splitlines():
        m = SUPPLEMENT_HEAD_RE.match(line)
        if m:
            close()
            head, body = (" ".join(m.group(1).split()), m.group(2).strip()), []
            continue
        if line.startswith("#"):
            close()
            head, body = None, []
            continue
        t = line.strip()
        if t.startswith("*Completes:"):
            in_completes = not t.endswith("*") or t == "*Completes:"
            continue
        if in_completes:
            in_completes = not t.endswith("*")
            continue
        if head is None or not t or t.startswith("<!--"):
            continue
        if t.startswith("|"):
            cells = [c.strip() for c in t.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            t = " · ".join(c for c in cells if c) + ";"
        body.append(t)
    close()
    return out


def load_index(ruleset_id: str, ruleset: Any = None, path: Path | None = None) -> RulesIndex | None:
    """The ruleset's index, or None while it has none. Re-read when the file changes (an index
    written after the bot started is served without a restart). RulesIndexError if broken."""
    p = path or index_path(ruleset_id, ruleset)
    try:
        mtime = p.stat().st_mtime
    except OSError:
        return None
    hit = _INDEX_CACHE.get(p)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    try:
        shown = p.resolve().relative_to(REPO_DIR).as_posix()     # engine/battlecry/rules_index.toml
    except ValueError:
        shown = str(p)
    idx = parse_index(p.read_text(encoding="utf-8"), shown, ruleset=ruleset_id)
    supplement = p.parent / SUPPLEMENT_FILE
    if supplement.is_file():
        extra = [sec for sec in supplement_sections(supplement.read_text(encoding="utf-8")) if idx.get(sec.id) is None]
        idx = RulesIndex(idx.ruleset, idx.sections + extra, idx.source, idx.cite, idx.test_files, idx.unknown_keys)
    _INDEX_CACHE[p] = (mtime, idx)
    return idx


DECISION_RE = re.compile(r"^\*\*(D\d+)\s*[—–-]+\s*(.+?)\*\*\s*(.*)$", re.DOTALL)


def parse_decisions(text: str) -> dict[str, Decision]:
    """`**D108 — The boat bridge (special rule 5).** Parliament records ...` paragraphs (the
    bold title may run over several lines). A decision runs on to the next decision or heading,
    so the table or list its first paragraph introduces ("... in order:") is part of it; a
    table's rows read "item: value; ..."."""
    out: dict[str, Decision] = {}
    paragraphs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("#"):
            paragraphs += [["#"], []]              # a heading ends the decision before it
        elif not line.strip():
            paragraphs.append([])
        elif line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):    # not the |---| rule
                paragraphs[-1].append(": ".join(c for c in cells if c) + ";")
        else:
            paragraphs[-1].append(line.strip())
    current: str | None = None
    for para in paragraphs:
        if para == ["#"]:
            current = None
            continue
        joined = " ".join(para)
        m = DECISION_RE.match(joined)
        if m:
            title = " ".join(m.group(2).split()).rstrip(".").strip()
            current = m.group(1).upper()
            out[current] = Decision(current, title, " ".join(m.group(3).split()))
        elif current is not None and joined:
            d = out[current]
            d.text = f"{d.text} {' '.join(joined.split())}".strip()
    return out


def load_decisions(ruleset_id: str, ruleset: Any = None) -> dict[str, Decision]:
    p = decisions_path(ruleset_id, ruleset)
    try:
        mtime = p.stat().st_mtime
    except OSError:
        return {}
    hit = _DECISION_CACHE.get(p)
    if hit is None or hit[0] != mtime:
        hit = (mtime, parse_decisions(p.read_text(encoding="utf-8")))
        _DECISION_CACHE[p] = hit
    return hit[1]


def describe_decision(entry: str, catalogue: dict[str, Decision]) -> str:
    """A decision line: a D-number is expanded from DECISIONS.md; free text is kept."""
    m = D_RE.match(entry.strip())
    if m and entry.strip().upper() in catalogue:
        return catalogue[entry.strip().upper()].short()
    return for_players(entry)


# == the tests that check a section ============================================================

@dataclass(frozen=True)
class TestRef:
    __test__ = False      # not a pytest class
    path: str             # relative to the repository, e.g. tests/engine/test_battlecry_combat.py
    name: str
    doc: str = ""         # the first sentence of its docstring

    @property
    def node(self) -> str:
        return f"{self.path}::{self.name}"


_TEST_FILE_CACHE: dict[Path, tuple[float, list[TestRef]]] = {}


TEST_DEF_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(test\w*)[ \t]*\(", re.MULTILINE)
SIGNATURE_END_RE = re.compile(r"\)[^\n:]*(?:->[^\n]*)?:[ \t]*(?:#[^\n]*)?\n")


def _first_sentence(doc: str, limit: int = 160) -> str:
    para = " ".join(doc.strip().split("\n\n", 1)[0].split())
    end = re.search(r"[.!?](?=\s|$)", para)
    out = para[: end.end()] if end else para
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


def _tests_in(path: Path, rel: str) -> list[TestRef]:
    """The test functions of one file with the first line of their docstrings (read with
    regular expressions: parsing every test file with `ast` takes seconds)."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return []
    hit = _TEST_FILE_CACHE.get(path)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    refs: list[TestRef] = []
    for m in TEST_DEF_RE.finditer(text):
        doc = ""
        end = SIGNATURE_END_RE.search(text, m.end())
        if end is not None:
            body = text[end.end():].lstrip()
            for quote in ('"""', "'''"):
                if body.startswith(quote):
                    doc = _first_sentence(body[3:].split(quote, 1)[0])
        refs.append(TestRef(rel, m.group(1), doc))
    _TEST_FILE_CACHE[path] = (mtime, refs)
    return refs


def scan_tests(root: Path | None = None, globs: Iterable[str] = ()) -> list[TestRef]:
    """Every test function of the repository's test files (none when there is no tests
    directory, as in a deployed bot). `globs` (relative to the repository) narrow the files."""
    tests_dir = Path(root) if root is not None else TESTS_DIR
    if not tests_dir.is_dir():
        return []
    repo = tests_dir.parent
    pats = list(globs)
    out: list[TestRef] = []
    for f in sorted(tests_dir.rglob("test_*.py")):
        rel = f.relative_to(repo).as_posix()
        if pats and not any(fnmatch.fnmatch(rel, p) for p in pats):
            continue
        out += _tests_in(f, rel)
    return out


def match_tests(prefixes: Iterable[str], tests: list[TestRef], ruleset_id: str) -> list[TestRef]:
    """The tests a section's `test_prefixes` name (see the module docstring)."""
    out: list[TestRef] = []
    seen: set[tuple[str, str]] = set()
    for p in prefixes:
        p = p.strip()
        if not p:
            continue
        word = p.lower()
        for t in tests:
            if p.startswith("test"):
                ok = t.name.startswith(p)
            else:
                ok = word in t.name.lower() and ruleset_id in t.path.rsplit("/", 1)[-1]
            if ok and (t.path, t.name) not in seen:
                seen.add((t.path, t.name))
                out.append(t)
    return out


def find_tests(index: RulesIndex, section: Section, root: Path | None = None) -> list[TestRef]:
    return match_tests(section.test_prefixes, scan_tests(root, index.test_files), index.ruleset)


# == the answer, as text =======================================================================

def format_section(index: RulesIndex, section: Section, *, decisions: dict[str, Decision] | None = None,
                   tests: list[TestRef] | None = None, ruleset_name: str = "", max_tests: int = 8,
                   markdown: bool = True) -> str:
    """One section as `/rules` shows it: number and title, our summary, Herald's decisions,
    the tests that check it, and the sections listed under it."""
    b = (lambda s: f"**{s}**") if markdown else (lambda s: s)
    head = f"{index.cite} §{section.id} — {section.title}" if _numbered(section.id) else \
        f"{index.cite}: {section.title}"
    lines = [b(head) + (f" ({ruleset_name})" if ruleset_name else ""), for_players(section.summary)]
    if section.decisions:
        lines.append(b("Herald's decisions where the book is unclear:"))
        lines += [f"• {text}" for text in (describe_decision(d, decisions or {}) for d in section.decisions) if text]
    if tests:
        lines.append(b("Checked by the tests:"))
        for t in tests[:max_tests]:
            code = f"`{t.node}`" if markdown else t.node
            lines.append(f"• {code}" + (f": {t.doc}" if t.doc else ""))
        if len(tests) > max_tests:
            lines.append(f"• … and {len(tests) - max_tests} more")
    kids = index.children(section)
    if kids:
        lines.append(b("See also:") + " " + "; ".join(_name(k) for k in kids[:12]) + (" …" if len(kids) > 12 else ""))
    return "\n".join(lines)


def _numbered(section_id: str) -> bool:
    return bool(NUMBER_RE.match(section_id))


def _name(section: Section) -> str:
    """'§4.6 rule 7 — A retreat that cannot be made'; a battle's section by its title alone."""
    return f"§{section.id} — {section.title}" if _numbered(section.id) else section.title


def answer(ruleset_id: str, query: str, *, ruleset: Any = None, tests_root: Path | None = None,
           markdown: bool = True) -> str:
    """The whole `/rules` answer as text (also the CLI's): the best section in full, then the
    other matches by number and title. Raises RulesIndexError / LookupError with a clear text."""
    index = load_index(ruleset_id, ruleset)
    name = getattr(ruleset, "name", "") if ruleset is not None else ""
    if index is None:
        raise LookupError(f"{name or ruleset_id} has no rules index yet")
    decision = D_RE.match(query.strip())
    if decision:                     # `/rules D61`: one of Herald's decisions, whole
        catalogue = load_decisions(ruleset_id, ruleset)
        d = catalogue.get(query.strip().upper())
        if d is None:
            raise LookupError(f"{name or ruleset_id} has no decision {query.strip().upper()}")
        cited = [s for s in index.sections if any(x.strip().upper() == d.id for x in s.decisions)]
        b = (lambda s: f"**{s}**") if markdown else (lambda s: s)
        text = b(f"Herald's decision {d.id}") + (f" ({name})" if name else "") + "\n" + d.full()
        if cited:
            text += "\n" + b("Where the book says it:") + " " + "; ".join(_name(s) for s in cited)
        return text
    found = index.lookup(query)
    if not found:
        raise LookupError(f"nothing in the {name or ruleset_id} rules index matches '{query}': try a section "
                          "number like 4.6, or a word such as 'retreat'")
    best = found[0]
    text = format_section(index, best.section, decisions=load_decisions(ruleset_id, ruleset),
                          tests=find_tests(index, best.section, tests_root), ruleset_name=name,
                          markdown=markdown)
    if best.how == "nearest":
        text = f"(no section '{query.strip()}' is listed; the nearest is below)\n" + text
    shown = set(index.children(best.section))
    others = [m.section for m in found[1:] if m.section not in shown]
    if others:
        text += "\n" + ("**Other matches:** " if markdown else "Other matches: ") + "; ".join(_name(s) for s in others)
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print("usage: python -m engine.core.rulesdoc <ruleset> <section number or words>", file=sys.stderr)
        return 2
    try:
        print(answer(args[0], " ".join(args[1:]), markdown=False))
    except (LookupError, RulesIndexError) as exc:
        print(f"! {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
