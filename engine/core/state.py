"""What every ruleset's game state shares: a copy for the pure `apply`, a JSON-ready dict for the
store, and the hash that proves a replay gives the same game bit for bit.

Issue 13: `copy` is a tree copy, not `copy.deepcopy`. A state is plain data (dataclasses, dicts,
lists, tuples, sets of str/int/float/bool/None), a tree with no shared parts (the store keeps
it as JSON, which could not keep sharing anyway), so no memo is needed; the copy is about six
times faster than deepcopy, and `apply` makes one per command."""
from __future__ import annotations

import copy
import re
import hashlib
import json
from dataclasses import _FIELD, asdict, fields, is_dataclass
from typing import Any

_ATOMS = frozenset((str, int, float, bool, type(None)))


def tree_copy(obj: Any) -> Any:
    """A copy of plain data with nothing shared but the immutable leaves. A dataclass (or any
    object with a `__dict__`) is copied field by field without calling its `__init__`; anything
    else unknown goes through `copy.deepcopy`."""
    t = type(obj)
    if t in _ATOMS:
        return obj
    if t is dict:
        return {k: v if type(v) in _ATOMS else tree_copy(v) for k, v in obj.items()}
    if t is list:
        return [v if type(v) in _ATOMS else tree_copy(v) for v in obj]
    if t is tuple:
        return tuple(v if type(v) in _ATOMS else tree_copy(v) for v in obj)
    if t is set or t is frozenset:
        return t(obj)                       # of atoms: a state's sets hold ids
    plan = _PLANS.get(t)
    if plan is None:
        plan = _PLANS[t] = _plan(t)
    if plan is False:
        return copy.deepcopy(obj)
    fields, shallow, size, names = plan
    d = obj.__dict__
    nd = d.copy()
    for k in fields:                    # only the fields that may hold containers
        v = nd[k]
        tv = type(v)
        if tv in _ATOMS:
            continue
        if k in shallow and (tv is list or tv is dict):
            nd[k] = v.copy()            # declared list/dict of atoms (`list[str]`)
        else:
            nd[k] = tree_copy(v)
    if len(nd) != size:                 # attributes set beside the fields: check them
        for k in nd.keys() - names:     # (the copy: another thread may add a cache to the original)
            if k.startswith("_memo_"):
                del nd[k]               # a cache of the original's (a ruleset's index): dropped
            elif type(nd[k]) not in _ATOMS:
                nd[k] = tree_copy(nd[k])
    out = object.__new__(t)
    out.__dict__ = nd
    return out


_PLANS: dict[type, Any] = {}
_ATOM_NAMES = frozenset(("str", "int", "float", "bool", "None"))


def _plan(t: type) -> Any:
    """How `tree_copy` copies instances of `t`: a dataclass's fields whose declared type is not
    a plain atom (`str`, `int | None`, ...), and its field count; False to use deepcopy.
    Attributes named `_memo_...` are a ruleset's caches: never copied."""
    if not is_dataclass(t) or getattr(t, "__slots__", None):
        return False
    if t.__setattr__ is not object.__setattr__ and not getattr(t, "_plain_copy", False):
        return False                    # a class whose __setattr__ does more than watch
    fs = [f for f in fields(t) if f._field_type is _FIELD]      # ClassVars are not fields
    containers = tuple(f.name for f in fs
                       if not (isinstance(f.type, str)
                               and {p.strip() for p in f.type.split("|")} <= _ATOM_NAMES)
                       and f.type not in _ATOMS)
    shallow = frozenset(f.name for f in fs if isinstance(f.type, str) and _OF_ATOMS.match(f.type.replace(" ", "")))
    return containers, shallow, len(fs), frozenset(f.name for f in fs)


# `list[str]`, `dict[str, int]`, `list[int] | None`...: a container of atoms, copied shallow
_OF_ATOMS = re.compile(r"^(list|dict)\[(str|int|float|bool)(,(str|int|float|bool))?\](\|None)?$")


def plain(obj: Any) -> Any:
    """`dataclasses.asdict` for a state's plain data, the same output (dataclasses as dicts of
    their fields, lists, tuples and dicts rebuilt, atoms as they are) about five times faster:
    the store and the render pool read a state this way after every command (issue 13)."""
    t = type(obj)
    if t in _ATOMS:
        return obj
    if t is dict:
        return {k if type(k) in _ATOMS else plain(k): v if type(v) in _ATOMS else plain(v)
                for k, v in obj.items()}
    if t is list:
        return [v if type(v) in _ATOMS else plain(v) for v in obj]
    if t is tuple:
        return tuple(v if type(v) in _ATOMS else plain(v) for v in obj)
    names = _FIELD_NAMES.get(t)
    if names is None:
        if not is_dataclass(t):
            return copy.deepcopy(obj)
        names = _FIELD_NAMES[t] = tuple(f.name for f in fields(t))
    d = obj.__dict__
    return {k: v if type(v) in _ATOMS else plain(v) for k in names for v in (d[k],)}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


class GameState:
    """Mixin for a ruleset's state dataclass (its `from_dict` rebuilds the nested records)."""

    def copy(self):
        return tree_copy(self)

    def to_dict(self) -> dict[str, Any]:
        return plain(self)

    def state_hash(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()
