"""Reading a scenario file (built in, or a club's upload): size limit and TOML syntax, with
errors that name the file and the line. Each ruleset validates the fields itself, with
`check_keys` refusing keys it does not know (a typo such as `[[unit]]` or `hexx = ` must not
silently drop data) and `key_line` finding the line of a table or key for the message."""
from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


def read_toml(text: str, source: str, max_bytes: int, error: type[Exception]) -> dict[str, Any]:
    if len(text.encode()) > max_bytes:
        raise error(f"{source}: file larger than {max_bytes // 1024} KiB")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: TOML syntax: {exc}") from None


# -- unknown keys ---------------------------------------------------------------------------

def close_match(key: str, allowed: Iterable[str]) -> str | None:
    """The allowed key `key` is most likely a typo of, or None."""
    found = difflib.get_close_matches(str(key), sorted(allowed), n=1)
    return found[0] if found else None


def line_note(text: str | None, path: str) -> str:
    """' (line N)' for the table or key at `path` ('units[3].hex'), or '' if it is not found."""
    if text is None:
        return ""
    line = key_line(text, path)
    return f" (line {line})" if line else ""


def check_keys(table: Mapping[str, Any], allowed: Iterable[str], where: str,
               error: type[Exception], *, suggest: bool = False, text: str | None = None,
               path: str = "") -> None:
    """Refuse the keys of `table` that are not in `allowed`:
    "<where>: unknown key(s) a, b (known: ...)". With `suggest`, the closest allowed key is
    named ("did you mean 'hex'?"); with `text` (the file) and `path` (the table's place,
    'units[3]', '' for the top level), the line of the first unknown key is added."""
    allowed = set(allowed)
    unknown = sorted(str(k) for k in table if k not in allowed)
    if not unknown:
        return
    known = f"known: {', '.join(sorted(allowed))}"
    if suggest:
        hints = []
        for key in unknown:
            match = close_match(key, allowed)
            if match:
                hints.append(f"'{match}'" + (f" for '{key}'" if len(unknown) > 1 else ""))
        if hints:
            known = f"did you mean {' or '.join(hints)}? {known}"
    at = ""
    if text is not None:
        lines = [n for n in (key_line(text, f"{path}.{k}" if path else k, exact=True)
                             for k in unknown) if n]
        line = min(lines) if lines else key_line(text, path) if path else None
        at = f" (line {line})" if line else ""
    raise error(f"{where}: unknown key(s) {', '.join(unknown)} ({known}){at}")


# -- where a key is written -----------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _read_key(s: str, i: int = 0) -> tuple[list[str], int]:
    """A (dotted, maybe quoted) TOML key at s[i:]: its parts and the index after it."""
    parts: list[str] = []
    while True:
        while i < len(s) and s[i] in " \t":
            i += 1
        if i < len(s) and s[i] in "\"'":
            quote, j = s[i], i + 1
            buf = []
            while j < len(s) and s[j] != quote:
                if quote == '"' and s[j] == "\\" and j + 1 < len(s):
                    j += 1
                buf.append(s[j])
                j += 1
            parts.append("".join(buf))
            i = j + 1
        else:
            m = _BARE_KEY.match(s, i)
            if not m:
                return parts, i
            parts.append(m.group())
            i = m.end()
        while i < len(s) and s[i] in " \t":
            i += 1
        if i < len(s) and s[i] == ".":
            i += 1
            continue
        return parts, i


def _scan_value(s: str, depth: int, open_string: str) -> tuple[int, str]:
    """Bracket depth and open multi-line string delimiter after the text `s` of a value."""
    i = 0
    while i < len(s):
        if open_string:
            end = s.find(open_string, i)
            if end < 0:
                return depth, open_string
            i, open_string = end + 3, ""
            continue
        c = s[i]
        if s.startswith('"""', i) or s.startswith("'''", i):
            open_string, i = s[i:i + 3], i + 3
        elif c in "\"'":
            j = i + 1
            while j < len(s) and s[j] != c:
                j += 2 if c == '"' and s[j] == "\\" else 1
            i = j + 1
        elif c == "#":
            break
        else:
            depth += (c in "[{") - (c in "]}")
            i += 1
    return max(depth, 0), open_string


def key_lines(text: str) -> dict[str, int]:
    """Each table and key of a TOML file and its line (1-based): 'units[3]' is the header of the
    fourth [[units]] (and 'units' the first), 'units[3].hex' its `hex = ` line, 'sides.union'
    the [sides.union] header, 'terrain.woods' a key of [terrain]. Inside a multi-line array
    written one inline table a line, each element and its keys are found at its line; any other
    multi-line value only at its key's line."""
    index: dict[str, int] = {}
    counts: dict[str, int] = {}
    table, array, item = "", "", 0
    depth, open_string = 0, ""
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if open_string or depth:
            if depth == 1 and not open_string and line.startswith("{"):
                index.setdefault(f"{array}[{item}]", n)
                for key in re.findall(r"([A-Za-z_][\w-]*)\s*=", line):
                    index.setdefault(f"{array}[{item}].{key}", n)
                item += 1
            depth, open_string = _scan_value(line, depth, open_string)
            continue
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            double = line.startswith("[[")
            parts, _ = _read_key(line, 2 if double else 1)
            if not parts:
                continue
            out: list[str] = []
            for i, part in enumerate(parts):
                prefix = ".".join(parts[:i + 1])
                last = i == len(parts) - 1
                if last and double:
                    counts[prefix] = counts.get(prefix, 0) + 1
                    index.setdefault(".".join(out + [part]), n)
                    out.append(f"{part}[{counts[prefix] - 1}]")
                else:
                    out.append(f"{part}[{counts[prefix] - 1}]" if counts.get(prefix) and not last
                               else part)
                index.setdefault(".".join(out), n)
            table = ".".join(out)
            continue
        parts, end = _read_key(line)
        if not parts or not line[end:].startswith("="):
            continue
        for i in range(len(parts)):
            index.setdefault(".".join(([table] if table else []) + parts[:i + 1]), n)
        array, item = ".".join(([table] if table else []) + parts), 0
        depth, open_string = _scan_value(line[end + 1:], 0, "")
    return index


def key_line(text: str, path: str, exact: bool = False) -> int | None:
    """The line of `path` ('units[3].hex'); unless `exact`, of the nearest enclosing table or
    key that is found ('units[3]', then 'units'). None if nothing is."""
    index = key_lines(text)
    steps = path.split(".") if path else []
    while steps:
        hit = index.get(".".join(steps))
        if hit is not None or exact:
            return hit
        last = steps[-1]
        if last.endswith("]") and "[" in last:
            steps[-1] = last[:last.index("[")]
        else:
            steps.pop()
    return None


# -- field readers and the bundled battles ---------------------------------------------------

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
NUMBER = (int, float)          # a TOML integer or float, read as a float (open-table positions)


def type_name(kind: type | tuple) -> str:
    if isinstance(kind, tuple):
        return "a number"
    return {"str": "a string", "int": "an integer", "bool": "true/false", "list": "a list",
            "dict": "a table"}.get(kind.__name__, kind.__name__)


class FieldReader:
    """Field readers for a scenario's TOML that name the place (and line) of what is wrong, for a
    ruleset's `error` class (its ScenarioError). `where` is what a person reads ("units[3]"),
    `path` the TOML path `key_line` finds the line of."""

    def __init__(self, text: str, source: str, error: type[Exception]):
        self.text, self.source, self.error = text, source, error

    def fail(self, where: str, msg: str, path: str = "") -> Exception:
        return self.error(f"{where}: {msg}" + (line_note(self.text, path) if path else ""))

    def keys(self, table: dict, allowed: Iterable[str], where: str, path: str) -> None:
        check_keys(table, allowed, where, self.error, suggest=True, text=self.text, path=path)

    def check(self, value: Any, kind: type | tuple, where: str, path: str) -> Any:
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise self.fail(where, f"expected {type_name(kind)}, got {value!r}", path)
        if kind is NUMBER:
            if value != value or value in (float("inf"), float("-inf")):
                raise self.fail(where, f"expected a finite number, got {value!r}", path)
            return float(value)
        return value

    def need(self, d: dict, key: str, kind, where: str, path: str) -> Any:
        if key not in d:
            raise self.fail(where, f"missing '{key}'", path)
        return self.check(d[key], kind, f"{where}.{key}", f"{path}.{key}" if path else key)

    def opt(self, d: dict, key: str, kind, where: str, path: str, default: Any) -> Any:
        if key not in d:
            return default
        return self.check(d[key], kind, f"{where}.{key}", f"{path}.{key}" if path else key)

    def int_in(self, d: dict, key: str, lo: int, hi: int, where: str, path: str,
               default: int | None = None) -> int:
        v = (self.need(d, key, int, where, path) if default is None
             else self.opt(d, key, int, where, path, default))
        if not lo <= v <= hi:
            raise self.fail(f"{where}.{key}", f"{v} is not {lo}..{hi}", f"{path}.{key}")
        return v

    def ident(self, value: Any, where: str, path: str) -> str:
        if not isinstance(value, str) or not ID_RE.match(value):
            raise self.fail(where, f"{value!r} is not an id (lower-case letters, digits, '-' "
                            "and '_', up to 40 characters)", path)
        return value

    def one_of(self, value: Any, allowed, where: str, path: str) -> str:
        if value not in allowed:
            match = close_match(str(value), allowed)
            hint = f" (did you mean '{match}'?)" if match else ""
            raise self.fail(where, f"{value!r} is not one of {', '.join(allowed)}{hint}", path)
        return value

    def tables(self, d: dict, key: str, where: str, required: bool = True) -> list[dict]:
        if key not in d and not required:
            return []
        items = self.need(d, key, list, where, key)
        for i, item in enumerate(items):
            self.check(item, dict, f"{where} {key}[{i}]", f"{key}[{i}]")
        return items

    def entries(self, data: dict, key: str, where: str, keys, required: bool = True,
                by_id: bool = True) -> Iterator[tuple[int, dict, str, str]]:
        """(i, table, where, path) of each `[[key]]` table, its keys checked: `where` names it
        "<where> key[i]" (and its id when `by_id`), `path` is "key[i]"."""
        for i, item in enumerate(self.tables(data, key, where, required)):
            path = f"{key}[{i}]"
            w = f"{where} {key}[{i}]" + (named(item) if by_id else "")
            self.keys(item, keys, w, path)
            yield i, item, w, path


def named(table: dict) -> str:
    """' (<id>)' for a table with a string id, to name it in a message."""
    return f" ({table['id']})" if isinstance(table.get("id"), str) else ""


def bundled_ids(directory) -> list[str]:
    """The battles shipped in a ruleset's `scenarios/` folder (file names without .toml)."""
    return sorted(p.stem for p in directory.glob("*.toml"))


def read_bundled(directory, scenario_id: str, game: str, error: type[Exception]) -> tuple[str, str]:
    """The text and file name of a bundled battle, or `error` naming the known ones."""
    if not ID_RE.match(scenario_id or ""):
        raise error(f"no {game} scenario {scenario_id!r}")
    path = directory / f"{scenario_id}.toml"
    if not path.exists():
        raise error(f"no {game} scenario '{scenario_id}' (known: {', '.join(bundled_ids(directory)) or 'none'})")
    return path.read_text(encoding="utf-8"), path.name
