"""What the rulesets' coverage tests share (test_jdg_coverage, test_lion_coverage,
test_iw_coverage): reading test docstrings, the rules indexes and the rulebooks' lines. Each
ruleset keeps its own citation reader (`cited`): the three texts are numbered differently."""
from __future__ import annotations

import ast
import os
import re
import tomllib
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "engine"
# the rulebooks live beside the repository (../shared/rules), unless HERALD_RULES_DIR says where
RULES_DIR = Path(os.environ.get("HERALD_RULES_DIR", ROOT.parent / "shared" / "rules"))


def book(name: str) -> Path:
    return RULES_DIR / name


def docstrings_of_tests(pattern: str, but: str = "") -> list[tuple[str, str, str]]:
    """(file, test name, docstring) of every test function of the files `pattern` matches in
    tests/engine (`but`, the coverage test itself, aside: its docstrings quote citations)."""
    found = []
    for path in sorted(TESTS.glob(pattern)):
        if path.name == but:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                found.append((path.name, node.name, ast.get_docstring(node) or ""))
    return found


def index_sections(index: Path) -> list[dict]:
    with index.open("rb") as f:
        return tomllib.load(f)["sections"]


def citing(tests: list[tuple[str, str, str]], sections: list[dict],
           cited: Callable[[str], set[str]]) -> dict[str, list[str]]:
    """{paragraph id: ["file::test", ...]} from the docstrings and the index's test_prefixes."""
    out: dict[str, list[str]] = {}
    for file, name, doc in tests:
        for pid in cited(doc):
            out.setdefault(pid, []).append(f"{file}::{name}")
    for s in sections:
        for prefix in s.get("test_prefixes", []):
            for file, name, _ in tests:
                if name.startswith(prefix) and f"{file}::{name}" not in out.get(s["id"], []):
                    out.setdefault(s["id"], []).append(f"{file}::{name}")
    return out


def stale_prefixes(tests: list[tuple[str, str, str]], sections: list[dict]) -> list[tuple[str, str]]:
    """The index's test_prefixes that name no test (shown by /rules: they must stay true)."""
    names = [name for _, name, _ in tests]
    return [(s["id"], p) for s in sections for p in s.get("test_prefixes", [])
            if p.startswith("test") and not any(n.startswith(p) for n in names)]


def lines_cited(doc: str) -> set[int]:
    """The book lines a docstring names: "L98", "L120-122", "L46-L48"."""
    out: set[int] = set()
    for first, last in re.findall(r"\bL(\d+)(?:-L?(\d+))?\b", doc):
        out.update(range(int(first), int(last or first) + 1))
    return out
