"""What every ruleset's game state shares: a deep copy for the pure `apply`, a JSON-ready
dict for the store, and the hash that proves a replay gives the same game bit for bit."""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import asdict
from typing import Any


class GameState:
    """Mixin for a ruleset's state dataclass (its `from_dict` rebuilds the nested records)."""

    def copy(self):
        return copy.deepcopy(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def state_hash(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()
