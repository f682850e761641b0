"""The die and the checks of Jours de Gloire [0.3], [0.4].

One ten-sided die read 0-9 ("Lo '0' viene considerato come zero, e non dieci", [0.4]). Every
check (cohesion CC, engagement CI, initiative, square, rally) passes when the die plus its
modifiers is at most the value checked against ([0.3]); a positive modifier on a check is a
penalty. Each check returns its Event, which explains itself (DESIGN principle 3).
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event, Modifier


def d10(stream: DiceStream, purpose: str, roller: str | None = None, reads: tuple[int, ...] | None = None) -> int:
    """[0.4]: one d10 read 0-9; `roller` is the side whose die it is when not the commanding
    side's (a defender's check, a reaction), for physical dice (engine.core.dice.DiceStream).
    `reads`: the lowest result (0-9) of each band of results the rules read alike but the
    first, e.g. (6,) for a check passed on 0-5 (`check`), for the exact what-if (issue 13: it
    tries one result per band; engine.core.dice.DiceStream.roll's `bands`)."""
    bands = None if reads is None else tuple(reads)     # result r is face r + 1: a band ends at face r
    return stream.roll(10, purpose, roller, bands=bands) - 1


def table_reads(bands, drm: int) -> tuple[int, ...]:
    """The lowest die (0-9) of each band of a d10 result table but the first, for d10 + `drm`
    (tables.Band: contiguous, open-ended): `d10`'s `reads` where only the band is read."""
    return tuple(b.low - drm for b in bands if b.low is not None)


def check(stream: DiceStream, actor: str, value: int, what: str, section: str,
          modifiers: list[Modifier] | None = None, roller: str | None = None,
          kind: str = "check") -> tuple[bool, Event]:
    """A check [0.3]: d10 + modifiers <= `value` passes. `what` names it for people
    ("cohesion check of 24e Leg."). Returns (passed, the event)."""
    modifiers = list(modifiers or [])
    # only pass or fail is read: the results 0..value - DRM pass, the rest fail (a what-if tries
    # one of each, issue 13)
    die = d10(stream, what, roller, reads=(value - sum(m.value for m in modifiers) + 1,))
    total = die + sum(m.value for m in modifiers)
    passed = total <= value
    mods = "".join(f" {m.value:+d}" for m in modifiers)
    narrative = (f"{what}: d10 {die}{mods} = {total} against {value}: "
                 + ("passed" if passed else "failed"))
    return passed, Event(kind, actor, section, narrative, base=value, modifiers=modifiers,
                         dice=[DieRoll(what, "d10", die, effect="passed" if passed else "failed")],
                         table="check: d10 + DRM <= value", outcome={"passed": passed, "total": total})
