"""The boilerplate of a ruleset object (engine/core/game.py `Ruleset`) whose package follows the
layout of Jours de Gloire, Lion of the North and the Italian Wars:

- `rules`: the dispatcher module (`apply`, `load_action_modules`, `USAGE`);
- `<package>.public`: `public_command(scenario, state, side, text, events)` and
  `view(scenario, state, viewer)`;
- `<package>.<queries_module>`: `answer(scenario, state, side, verb, args)`;
- `<package>.<completions_module>`: `option_completions(scenario, state, side, kind, prefix,
  context, head)`, asked when the side's policies do not answer;
- `<package>.scenario`: `list_scenarios()`, `load_scenario(id)`, `parse_scenario(text, source)`
  and `MAX_SCENARIO_BYTES`;
- `state_class` with `to_dict()` / `from_dict(d)`; pending decisions in `state.pending`
  (engine/core/pending.py).

A ruleset class lists `PackageRuleset` first among its bases and sets `package`, `rules` and
`state_class`; what its game does its own way it defines itself.
"""
from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any

from engine.core.commands import Command
from engine.core.pending import PendingDecision, decision_of, default_answer_of
from engine.core.verbs import policy_completions


class PackageRuleset:
    package: str = ""                           # "engine.lion"
    rules: ModuleType
    state_class: type
    queries_module = "sequence.queries"
    completions_module = "sequence.completions"
    policies: dict = {}

    def _module(self, name: str) -> ModuleType:
        return import_module(f"{self.package}.{name}")

    @property
    def max_scenario_bytes(self) -> int:
        return self._module("scenario").MAX_SCENARIO_BYTES

    def scenarios(self) -> list[tuple[str, str]]:
        mod = self._module("scenario")
        return [(sid, mod.load_scenario(sid).title) for sid in mod.list_scenarios()]

    def load_scenario(self, scenario_id: str):
        return self._module("scenario").load_scenario(scenario_id)

    def parse_scenario(self, text: str, source: str = "<upload>"):
        return self._module("scenario").parse_scenario(text, source)

    @property
    def verbs(self) -> dict[str, str]:
        self.rules.load_action_modules()
        return dict(self.rules.USAGE)

    def apply(self, scenario, state, side: str, command: Command):
        return self.rules.apply(scenario, state, side, command)

    def pending(self, state) -> PendingDecision | None:
        return decision_of(state.pending)

    def default_answer(self, state) -> str | None:
        return default_answer_of(state.pending)

    def state_to_dict(self, state) -> dict:
        return state.to_dict()

    def state_from_dict(self, d: dict) -> Any:
        return self.state_class.from_dict(d)

    def query(self, scenario, state, side: str | None, command: Command) -> str:
        return self._module(self.queries_module).answer(scenario, state, side, command.verb,
                                                         tuple(command.args))

    def public_command(self, scenario, state, side: str | None, text: str, events):
        """One log entry as everyone sees it (engine/core/public.py; the package's public.py
        withholds what is secret)."""
        return self._module("public").public_command(scenario, state, side, text, events)

    def public_state(self, scenario, state, viewer: str | None = None):
        return self._module("public").view(scenario, state, viewer)

    def completions(self, scenario, state, side: str | None, kind: str, prefix: str,
                    context: dict | None = None, head: str = "") -> list[tuple[str, str]]:
        """The side's policies' completions, else the package's options (25 at most)."""
        prefix = (prefix or "").lower()
        mine = (state.policies or {}).get(side, {}) if side else {}
        found = policy_completions(self.policies, mine, kind, prefix, context or {})
        if found is not None:
            return found[:25]
        return self.option_completions(scenario, state, side, kind, prefix, context or {}, head)[:25]

    def option_completions(self, scenario, state, side: str | None, kind: str, prefix: str,
                           context: dict, head: str) -> list[tuple[str, str]]:
        return self._module(self.completions_module).option_completions(scenario, state, side, kind,
                                                                         prefix, context, head)
