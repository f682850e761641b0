"""Pillow drawings: a state -> PNG (hex maps, open tables, counters, overlays). Never a rule.

`board_module(ruleset_id)` finds a ruleset's drawing: the module its ruleset object names as
`renderer` (a club's ruleset installed as a package brings its own), else `renders.<ruleset id>`
for Herald's own. A ruleset without a drawing is played with text only."""
from __future__ import annotations

import importlib
from types import ModuleType


def board_module(ruleset_id: str) -> ModuleType:
    """The module with `render_board(scenario, state, viewer=, size=)` for a ruleset; ImportError
    when it has none."""
    from engine.core.game import rulesets
    ruleset = rulesets(include_unfinished=True).get(ruleset_id)
    name = getattr(ruleset, "renderer", None) or f"renders.{ruleset_id}"
    return importlib.import_module(name)
