"""The die and the checks of Jours de Gloire [0.3], [0.4].

One ten-sided die read 0-9 ("Lo '0' viene considerato come zero, e non dieci", [0.4]). Every
check (cohesion CC, engagement CI, initiative, square, rally) passes when the die plus its
modifiers is at most the value checked against ([0.3]); a positive modifier on a check is a
penalty. Each check returns its Event, which explains itself (DESIGN principle 3).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier


def d10(stream: DiceStream, purpose: str, roller: str | None = None) -> int:
    """[0.4]: one d10 read 0-9; `roller` is the side whose die it is when not the commanding
    side's (a defender's check, a reaction), for physical dice (engine.core.dice.DiceStream)."""
    return stream.roll(10, purpose, roller) - 1


def check(stream: DiceStream, actor: str, value: int, what: str, section: str,
          modifiers: list[Modifier] | None = None, roller: str | None = None,
          kind: str = "check") -> tuple[bool, Event]:
    """A check [0.3]: d10 + modifiers <= `value` passes. `what` names it for people
    ("cohesion check of 24e Leg."). Returns (passed, the event)."""
    modifiers = list(modifiers or [])
    die = d10(stream, what, roller)
    total = die + sum(m.value for m in modifiers)
    passed = total <= value
    mods = "".join(f" {m.value:+d}" for m in modifiers)
    narrative = (f"{what}: d10 {die}{mods} = {total} against {value}: "
                 + ("passed" if passed else "failed"))
    return passed, Event(kind, actor, section, narrative, base=value, modifiers=modifiers,
                         dice=[DieRoll(what, "d10", die, effect="passed" if passed else "failed")],
                         table="check: d10 + DRM <= value", outcome={"passed": passed, "total": total})
