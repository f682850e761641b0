"""Referee corrections: the state put right by a club's referee, as a command in the log.

A club's referee may correct the state (a counter forgotten on the table, a misread hex) with a
logged reason (issue 5, Club play: "correct the state with a logged reason"). The event log is
the truth (DESIGN principle 2), so a correction is not an edit of a snapshot: it is a command of
the special side ``referee``, stored in the log like any other and applied again by every replay,
so a game with corrections replays bit for bit (principle 1).

A correction is a generic *state patch*: ``path = value`` pairs over the state's JSON form
(``ruleset.state_to_dict``), e.g. ``pieces.ui2.figures = 3`` (Battle Cry) or
``units.r-foot-1.morale_state = shaken`` (TACW), applied to that dict and read back with
``ruleset.state_from_dict``. Any ruleset that stores its state as JSON is served unchanged; a
ruleset may refine this with two optional hooks, looked up with getattr:

- ``apply_correction(scenario, state, changes, reason) -> (state, events)``: its own semantics;
- ``check_correction(scenario, before, after) -> None``: refuse a patched state that breaks an
  invariant (raise ``Illegal``).

Herald decisions (no rulebook covers a referee):
- The dice stream and the game's identity (``seed``, ``draws``, ``scenario_id``) are never
  corrected: the recorded dice must stay the dice the log explains.
- A value keeps the type it had (a number stays a number, a list a list; None may become a value
  and a value None); the referee's words are read by the old value's type (`coerce`).
- A new key may be added to a mapping only if the state still reads back with it (a record's
  fields are fixed, a hand or a policy table is open).

The command line is ``correct <path>=<value>... reason=<text>``, where values are JSON and both
values and the reason are %-escaped (`escape`), so the line survives the command parser
(lower-casing, shlex, '#' comments) and replays exactly.
"""
from __future__ import annotations

import json
from typing import Any

from .commands import Command, parse
from .errors import CannotParse, Illegal
from .events import Event

REFEREE = "referee"            # the side of a correction in the log
VERB = "correct"
SECTION = "Herald referee"     # no rulebook section: a club's ruling, logged with its reason
PROTECTED = ("seed", "draws", "scenario_id")
MAX_CHANGES = 10
MAX_REASON = 300

_SAFE = set("abcdefghijklmnopqrstuvwxyz0123456789-_.,:[]{}+")


def escape(text: str) -> str:
    """%-escape everything but lower-case letters, digits and JSON punctuation (so upper case,
    spaces, quotes and '#' survive `parse`)."""
    out = []
    for ch in text:
        if ch in _SAFE:
            out.append(ch)
        else:
            out.extend(f"%{b:02x}" for b in ch.encode("utf-8"))
    return "".join(out)


def unescape(text: str) -> str:
    raw = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%" and _is_hex(text[i + 1:i + 3]):
            raw.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            raw.extend(text[i].encode("utf-8"))
            i += 1
    return raw.decode("utf-8", errors="replace")


def _is_hex(s: str) -> bool:
    return len(s) == 2 and all(c in "0123456789abcdefABCDEF" for c in s)


def is_correction(side: str | None) -> bool:
    return side == REFEREE


def correction_line(changes: list[tuple[str, Any]], reason: str) -> str:
    """The command line of a correction: `correct <path>=<json>... reason=<text>`."""
    if not changes:
        raise CannotParse("a correction needs at least one path=value")
    words = [VERB] + [f"{escape(path)}={escape(json.dumps(value, separators=(',', ':')))}"
                      for path, value in changes]
    return " ".join(words + [f"reason={escape(reason.strip())}"])


def parse_correction(cmd: Command) -> tuple[list[tuple[str, Any]], str]:
    """The (path, value) pairs and the reason of a correction command."""
    if cmd.verb != VERB:
        raise CannotParse(f"a referee correction is `{VERB} <path>=<value>... reason=<text>`")
    changes: list[tuple[str, Any]] = []
    reason = ""
    for word in cmd.args:
        key, sep, value = word.partition("=")
        if not sep:
            raise CannotParse(f"'{word}' is not path=value")
        if key == "reason":
            reason = unescape(value)
            continue
        try:
            changes.append((unescape(key), json.loads(unescape(value))))
        except ValueError:
            raise CannotParse(f"the value of {unescape(key)} is not JSON: {unescape(value)}") from None
    return changes, reason


# --- paths over the state's JSON form --------------------------------------------------------
def split_path(path: str) -> list[str]:
    parts = [p for p in path.strip().split(".")]
    if not path.strip() or any(not p for p in parts):
        raise Illegal(f"'{path}' is not a state path (words separated by dots, e.g. pieces.ui2.figures)",
                      SECTION)
    if parts[0] in PROTECTED:
        raise Illegal(f"'{parts[0]}' is the game's dice stream or identity and is never corrected "
                      "(the recorded dice must stay the dice the log explains)", SECTION)
    return parts


def _step(node: Any, key: str, path: str) -> Any:
    if isinstance(node, dict):
        if key not in node:
            raise Illegal(f"{path}: no '{key}' here (there is: {', '.join(map(str, list(node)[:20]))})", SECTION)
        return node[key]
    if isinstance(node, list):
        try:
            return node[int(key)]
        except (ValueError, IndexError):
            raise Illegal(f"{path}: '{key}' is not an index of this list of {len(node)}", SECTION) from None
    raise Illegal(f"{path}: '{key}' is below a plain value", SECTION)


def lookup(data: dict, path: str) -> Any:
    """The value at `path` in a state dict; Illegal if there is none."""
    node: Any = data
    for key in split_path(path):
        node = _step(node, key, path)
    return node


_MISSING = object()


def _set(data: dict, path: str, value: Any) -> Any:
    """Set `path` to `value` (type-checked); returns the old value (_MISSING for a new key)."""
    parts = split_path(path)
    node: Any = data
    for key in parts[:-1]:
        node = _step(node, key, path)
    last = parts[-1]
    if isinstance(node, dict):
        old = node.get(last, _MISSING)
    elif isinstance(node, list):
        old = _step(node, last, path)
    else:
        raise Illegal(f"{path}: '{last}' is below a plain value", SECTION)
    if old is not _MISSING and old is not None and value is not None and not _same_type(old, value):
        raise Illegal(f"{path} holds {_type_name(old)} ({json.dumps(old)[:60]}), not {_type_name(value)}", SECTION)
    if isinstance(node, dict):
        node[last] = value
    else:
        node[int(last)] = value
    return old


def _same_type(old: Any, new: Any) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, (int, float)) and isinstance(new, (int, float)):
        return isinstance(new, int) or isinstance(old, float)
    return type(old) is type(new)


def _type_name(v: Any) -> str:
    return {bool: "true/false", int: "a whole number", float: "a number", str: "a word",
            list: "a list", dict: "a mapping"}.get(type(v), type(v).__name__)


def coerce(data: dict, path: str, word: str) -> Any:
    """The referee's word for `path` read by the type of the value there now: `3` for a number,
    `shaken` for a word, `0405,0506` for a list of words, `true`/`false`, `null`; JSON
    (`"0405"`, `[1,2]`, `{...}`) always works, and `int:3` is a number where the value is null."""
    word = word.strip()
    if word.lower().startswith("int:"):
        try:
            return int(word[4:])
        except ValueError:
            raise Illegal(f"{path}: '{word[4:]}' is not a whole number", SECTION) from None
    try:
        old = lookup(data, path)
    except Illegal:
        old = None                  # a new key: JSON, else a word
    if word[:1] in ('"', "[", "{"):
        try:
            return json.loads(word)
        except ValueError:
            raise Illegal(f"{path}: {word} is not valid JSON", SECTION) from None
    low = word.lower()
    if low in ("null", "none"):
        return None
    if isinstance(old, bool):
        if low in ("true", "yes", "1"):
            return True
        if low in ("false", "no", "0"):
            return False
        raise Illegal(f"{path} is true or false, not '{word}'", SECTION)
    if isinstance(old, int):
        try:
            return int(word)
        except ValueError:
            raise Illegal(f"{path} is a whole number, not '{word}'", SECTION) from None
    if isinstance(old, float):
        try:
            return float(word)
        except ValueError:
            raise Illegal(f"{path} is a number, not '{word}'", SECTION) from None
    if isinstance(old, list):
        items = [w.strip() for w in word.split(",") if w.strip()] if word not in ("-", "") else []
        kind = next((type(x) for x in old), str)
        try:
            return [kind(x) if kind in (int, float) else x for x in items]
        except ValueError:
            raise Illegal(f"{path} is a list of numbers, not '{word}'", SECTION) from None
    if isinstance(old, dict):
        raise Illegal(f"{path} is a mapping: correct one of its entries ({path}.<key>) or give JSON", SECTION)
    if old is None and low in ("true", "false"):
        return low == "true"
    return word          # where the value is null, a plain word is a word (hexes are "0405")


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


# --- applying ---------------------------------------------------------------------------------
def apply_correction(ruleset: Any, scenario: Any, state: Any, cmd: Command,
                     reason_text: str | None = None) -> tuple[Any, list[Event]]:
    """Apply a correction command to `state`: pure, all or nothing (Illegal leaves it untouched).
    `reason_text` overrides the reason read from the line (the stored narrative keeps the
    referee's own capitals; a replay needs only the state)."""
    changes, reason = parse_correction(cmd)
    reason = reason_text if reason_text is not None else reason
    if not changes:
        raise Illegal("a correction changes at least one value (path=value)", SECTION)
    if len(changes) > MAX_CHANGES:
        raise Illegal(f"at most {MAX_CHANGES} values per correction", SECTION)
    if not reason.strip():
        raise Illegal("a correction needs its reason (it is logged for both players)", SECTION)
    own = getattr(ruleset, "apply_correction", None)
    if own is not None:
        return own(scenario, state, changes, reason)
    data = _plain(ruleset.state_to_dict(state))
    before: dict[str, Any] = {}
    added: list[str] = []
    for path, value in changes:
        old = _set(data, path, _plain(value))
        before[path] = None if old is _MISSING else old
        if old is _MISSING:
            added.append(path)
    try:
        new = ruleset.state_from_dict(data)
        kept = _plain(ruleset.state_to_dict(new)) == data
    except (TypeError, KeyError, ValueError, AttributeError) as exc:
        new, kept, why = None, False, str(exc)
    else:
        why = "the state does not keep these values"
    if not kept:
        if added:                      # most likely a misspelt field: say what is there
            path = added[0]
            parent, _, key = path.rpartition(".")
            there = lookup(_plain(ruleset.state_to_dict(state)), parent) if parent else {}
            raise Illegal(f"{path}: no '{key}' here (there is: {', '.join(map(str, list(there)[:20]))})", SECTION)
        raise Illegal(f"the corrected state does not hold together: {why}", SECTION)
    if not added and all(before[p] == _plain(v) for p, v in changes):
        raise Illegal("the state already holds " + ", ".join(f"{p} = {json.dumps(before[p])}" for p, _ in changes)
                      + ": a correction must change something (/referee show reads a value)", SECTION)
    check = getattr(ruleset, "check_correction", None)
    if check is not None:
        check(scenario, state, new)
    shown = "; ".join(f"{p}: {json.dumps(before[p])} → {json.dumps(_plain(v))}" for p, v in changes)
    event = Event("correction", REFEREE, SECTION, f"⚖️ Referee correction: {shown}. Reason: {reason}",
                  inputs={"changes": {p: _plain(v) for p, v in changes}, "reason": reason},
                  outcome={"before": before})
    return new, [event]


def apply_command(ruleset: Any, scenario: Any, state: Any, side: str | None, cmd: Command | str
                  ) -> tuple[Any, list[Event]]:
    """Apply one logged command: a referee correction here, anything else by the ruleset. Every
    replay of a log goes through this (the store's and the CLI's), so corrections replay too."""
    cmd = parse(cmd) if isinstance(cmd, str) else cmd
    if is_correction(side):
        return apply_correction(ruleset, scenario, state, cmd)
    return ruleset.apply(scenario, state, side, cmd)
