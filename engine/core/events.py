"""Events: the plain records every adjudication produces (DESIGN: 'Every roll explains itself').

The bot's narrative, `/explain`, the JSON log and the tests all read these same records.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class DieRoll:
    purpose: str          # e.g. "battle die 2 of 3"
    die: str              # e.g. "battlecry-d6"
    result: int           # the face number drawn
    face: str = ""        # the face's name (e.g. "sabres")
    effect: str = ""      # what it did (e.g. "hit", "retreat", "miss")


@dataclass
class Modifier:
    value: int
    reason: str
    section: str


@dataclass
class Event:
    kind: str                         # e.g. "battle", "move", "card", "retreat"
    actor: str                        # the side (or piece) acting
    section: str                      # the rule section applied, e.g. "BC 4.4"
    narrative: str                    # one line for people
    inputs: dict[str, Any] = field(default_factory=dict)
    base: int | None = None           # base number (dice count, target number...)
    modifiers: list[Modifier] = field(default_factory=list)
    dice: list[DieRoll] = field(default_factory=list)
    table: str | None = None
    row: str | None = None
    outcome: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Event":
        d = dict(d)
        d["modifiers"] = [Modifier(**m) for m in d.get("modifiers", [])]
        d["dice"] = [DieRoll(**r) for r in d.get("dice", [])]
        return cls(**d)

    def explain(self) -> str:
        """The full calculation, readable with the rulebook open."""
        lines = [f"[{self.section}] {self.narrative}"]
        if self.base is not None:
            lines.append(f"  base: {self.base}" + (f" ({self.table}, {self.row})" if self.table else ""))
        for m in self.modifiers:
            lines.append(f"  {m.value:+d}  {m.reason} ({m.section})")
        if self.modifiers and self.base is not None:
            lines.append(f"  = {self.base + sum(m.value for m in self.modifiers)}")
        for d in self.dice:
            lines.append(f"  die: {d.purpose}: {d.result}" + (f" [{d.face}]" if d.face else "")
                         + (f" -> {d.effect}" if d.effect else ""))
        for k, v in self.outcome.items():
            lines.append(f"  {k}: {v}")
        return "\n".join(lines)
