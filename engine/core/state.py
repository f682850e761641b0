"""What every ruleset's game state shares: a copy for the pure `apply`, a JSON-ready dict for the
store, and the hash that proves a replay gives the same game bit for bit.

Issue 13: `copy` is a tree copy, not `copy.deepcopy`. A state is plain data (dataclasses, dicts,
lists, tuples, sets of str/int/float/bool/None), a tree with no shared parts (the store keeps
it as JSON, which could not keep sharing anyway), so no memo is needed; the copy is about six
times faster than deepcopy, and `apply` makes one per command."""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict
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
    d = getattr(obj, "__dict__", None)
    if d is None or getattr(t, "__slots__", None) or t.__setattr__ is not object.__setattr__:
        return copy.deepcopy(obj)
    out = object.__new__(t)
    out.__dict__.update({k: v if type(v) in _ATOMS else tree_copy(v) for k, v in d.items()})
    return out


class GameState:
    """Mixin for a ruleset's state dataclass (its `from_dict` rebuilds the nested records)."""

    def copy(self):
        return tree_copy(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def state_hash(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()
