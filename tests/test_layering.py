"""The layers, one way (DESIGN "Layers, one way"; issue 11), read from the source with `ast`.

    bot/cogs (Discord)  ->  bot service  ->  engine (rules)  +  store
                                |  hooks (bot/hooks.py)
                      club features beside the service
    renders/ draws committed states; engine/core knows no ruleset (they register).

Every import statement counts: at the top of a module, under `if TYPE_CHECKING:`, inside a
function; absolute or relative (resolved to the full module name). `from package import name`
is an import of the submodule `package.name` when there is one, else of `package`.

Checked here:
- engine/core imports no ruleset (engine.battlecry, engine.tacw, or any engine.<x> but core);
- engine/ imports none of bot, renders, discord, sqlite3, aiosqlite, PIL;
- renders/ imports nothing of bot;
- no two modules of bot/ (bot/cogs included) import each other in a circle, however long.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "engine", "renders")


# --- reading the imports ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Import:
    source: str          # the importing module
    target: str          # the imported module, fully named
    path: str            # the importing file, relative to the root
    line: int

    def where(self) -> str:
        return f"{self.path}:{self.line}"


def modules_under(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package) for every .py file of the packages."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found[".".join(parts)] = (path, is_package)
    return found


def imports_of(root: Path, name: str, path: Path, is_package: bool, known: Mapping[str, object]) -> list[Import]:
    """Every import in the module's source, its target resolved to a full module name."""
    here = name if is_package else name.rpartition(".")[0]
    rel = str(path.relative_to(root))
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.append(Import(name, alias.name, rel, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                if node.level - 1 > len(base) - 1:
                    raise AssertionError(f"{rel}:{node.lineno}: a relative import above the top package")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                out.append(Import(name, sub if sub in known else module, rel, node.lineno))
    return out


def all_imports(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> list[Import]:
    known = modules_under(root, packages)
    return [imp for name, (path, is_package) in known.items()
            for imp in imports_of(root, name, path, is_package, known)]


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


# --- circles ----------------------------------------------------------------------------------------
def graph_of(imports: Iterable[Import], nodes: Iterable[str]) -> dict[str, dict[str, Import]]:
    """module -> {module it imports: the first such import}, among `nodes` only."""
    nodes = set(nodes)
    graph: dict[str, dict[str, Import]] = {n: {} for n in sorted(nodes)}
    for imp in imports:
        if imp.source in nodes and imp.target in nodes and imp.target != imp.source:
            graph[imp.source].setdefault(imp.target, imp)
    return graph


def find_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """One circle per knot of modules that import each other (a strongly connected component of
    more than one module), as the path [a, b, ..., a]; [] when the graph has none."""
    return [_circle_in(graph, set(knot)) for knot in find_knots(graph)]


def find_knots(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (each sorted)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:          # Tarjan's algorithm, iterative
        nonlocal counter
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def _circle_in(graph: Mapping[str, Iterable[str]], group: set[str]) -> list[str]:
    """A shortest circle through the group's first module, staying inside the group."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return paths[node] + [start]
            if nxt in group and nxt not in paths:
                paths[nxt] = paths[node] + [nxt]
                queue.append(nxt)
    raise AssertionError(f"no circle in {sorted(group)}")       # a component always has one


def describe(circle: list[str], graph: Mapping[str, Mapping[str, Import]],
             knot: Iterable[str] = ()) -> str:
    """The circle module by module, each import with its file and line; then the other modules
    caught in the same knot, if any."""
    steps = [f"{a} imports {b} ({graph[a][b].where()})" for a, b in zip(circle, circle[1:])]
    others = sorted(set(knot) - set(circle))
    tail = f"\n    the same knot holds {', '.join(others)}" if others else ""
    return " -> ".join(circle) + "\n    " + "\n    ".join(steps) + tail


# --- the rules --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


def _broken(imports: Iterable[Import], source: str, forbidden) -> list[str]:
    return [f"{imp.where()}: {imp.source} imports {imp.target}"
            for imp in imports if within(imp.source, source) and forbidden(imp.target)]


def test_engine_core_imports_no_ruleset(imports):
    """Core only receives the rulesets (they register); it never names one (issue 11)."""
    bad = _broken(imports, "engine.core",
                  lambda t: within(t, "engine") and t != "engine" and not within(t, "engine.core"))
    assert not bad, "engine/core imports a ruleset:\n" + "\n".join(bad)


@pytest.mark.parametrize("outside", ["bot", "renders", "discord", "sqlite3", "aiosqlite", "PIL"])
def test_the_engine_imports_no_bot_renderer_discord_database_or_pillow(imports, outside):
    """The engine is pure Python with no I/O (DESIGN)."""
    bad = _broken(imports, "engine", lambda t: within(t, outside))
    assert not bad, f"engine/ imports {outside}:\n" + "\n".join(bad)


def test_the_renderer_imports_nothing_of_the_bot(imports):
    bad = _broken(imports, "renders", lambda t: within(t, "bot"))
    assert not bad, "renders/ imports bot/:\n" + "\n".join(bad)


def test_no_modules_of_the_bot_import_each_other_in_a_circle(imports):
    graph = graph_of(imports, modules_under(ROOT, ["bot"]))
    knots = find_knots(graph)
    assert not knots, ("modules of bot/ import each other in a circle (DESIGN 'Layers, one way': "
                       "cogs -> service -> engine and store, features beside the service through "
                       "its hooks):\n" + "\n".join(describe(_circle_in(graph, set(k)), graph, k) for k in knots))


# --- the checker checks ------------------------------------------------------------------------------
def test_the_cycle_finder_names_each_circle_module_by_module():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"},
             "x": {"y"}, "y": {"x"}, "z": {"z"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"], ["x", "y", "x"]]
    assert find_knots(graph) == [["a", "b", "c"], ["x", "y"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a", "c"}}) == []
    assert find_cycles({}) == []
    long = {str(i): {str(i + 1)} for i in range(3000)} | {"3000": {"0"}}      # no recursion limit
    assert len(find_cycles(long)[0]) == 3002


def test_imports_inside_functions_relative_and_type_only_are_read(tmp_path):
    """A circle closed by an import inside a function, relative and two levels up, is found; an
    import of a submodule by `from package import name` points at the submodule."""
    pkg = tmp_path / "bot"
    (pkg / "cogs").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "service.py").write_text("from .store import Store\n\ndef act():\n    from .club import acting_side\n")
    (pkg / "store.py").write_text("import sqlite3\n")
    (pkg / "club.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                 "    from bot import service\n")
    (pkg / "cogs" / "__init__.py").write_text("")
    (pkg / "cogs" / "games.py").write_text("from .. import club\nfrom ..service import act\n"
                                           "from . import helpers\n")
    (pkg / "cogs" / "helpers.py").write_text("")
    found = {(i.source, i.target, i.line) for i in all_imports(tmp_path, ["bot"])}
    assert {("bot.service", "bot.store", 1), ("bot.service", "bot.club", 4), ("bot.store", "sqlite3", 1),
            ("bot.club", "bot.service", 3), ("bot.cogs.games", "bot.club", 1),
            ("bot.cogs.games", "bot.service", 2), ("bot.cogs.games", "bot.cogs.helpers", 3)} <= found
    graph = graph_of(all_imports(tmp_path, ["bot"]), modules_under(tmp_path, ["bot"]))
    [circle] = find_cycles(graph)
    assert circle == ["bot.club", "bot.service", "bot.club"]
    text = describe(circle, graph, ["bot.club", "bot.service", "bot.elsewhere"])
    assert "bot.club imports bot.service (bot/club.py:3)" in text
    assert "bot.service imports bot.club (bot/service.py:4)" in text
    assert text.startswith("bot.club -> bot.service -> bot.club") and "knot holds bot.elsewhere" in text


def test_the_rules_catch_a_ruleset_in_core_and_io_in_the_engine(tmp_path):
    """The checks above bite: core naming a ruleset (even from inside a function), the engine
    opening a database, the renderer reaching into the bot."""
    for d in ("engine/core", "engine/tacw", "renders", "bot"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "__init__.py").write_text("")
    (tmp_path / "engine" / "core" / "game.py").write_text("def builtin():\n    from ..tacw import ruleset\n")
    (tmp_path / "engine" / "tacw" / "ruleset.py").write_text("import sqlite3\nfrom engine.core import game\n")
    (tmp_path / "renders" / "board.py").write_text("from bot.store import Store\n")
    (tmp_path / "bot" / "store.py").write_text("")
    found = all_imports(tmp_path)
    core = _broken(found, "engine.core", lambda t: within(t, "engine") and not within(t, "engine.core"))
    assert core == ["engine/core/game.py:2: engine.core.game imports engine.tacw.ruleset"]
    assert _broken(found, "engine", lambda t: within(t, "sqlite3")) == [
        "engine/tacw/ruleset.py:1: engine.tacw.ruleset imports sqlite3"]
    assert _broken(found, "renders", lambda t: within(t, "bot")) == ["renders/board.py:1: renders.board imports bot.store"]
