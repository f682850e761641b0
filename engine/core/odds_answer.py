"""The answer of `/odds` (engine/core/odds.py): each outcome with its exact chance, the effects
alone, where the enumeration was cut short, and the text people read. Pure."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction


# == the result ==================================================================================

@dataclass
class Outcome:
    label: str                 # the ruleset's summary of what happened
    probability: Fraction
    leaves: int = 0            # the adjudications that gave it (a position merged or a face
                               # skipped counts those of the one it stands for)

    @property
    def percent(self) -> str:
        return _percent(self.probability)


@dataclass
class Odds:
    ruleset: str
    side: str
    line: str                          # the command asked about (the first one)
    outcomes: list[Outcome]            # most likely first
    leaves: int                        # adjudications run (merged positions and skipped faces
                                       # need none)
    dice: list[str]                    # the kinds of dice the action rolls, in order
    breakdown: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)   # the commands simulated, in order
    horizon: int | None = None         # dice enumerated before the outcome is read, if cut short
    unresolved: Fraction = Fraction(0)  # ... and the chance that more dice follow them (the
                                       # outcomes read at the horizon, named after 'then')
    floor: float | None = None         # or: each sequence of dice followed until rarer than this

    @property
    def exact(self) -> bool:
        """Every die enumerated: no horizon, no floor cut it short."""
        return self.horizon is None and self.floor is None

    def probability(self, label_part: str) -> Fraction:
        """The probability of the outcomes whose label contains `label_part`."""
        return sum((o.probability for o in self.outcomes if label_part in o.label), Fraction(0))

    def effects(self) -> list[Outcome]:
        """Each part of the outcomes ("; "-separated) with the chance it happens at all, in
        whatever outcome: the marginal view ("ci2 eliminated: 19%")."""
        parts: dict[str, list] = {}
        for o in self.outcomes:
            for part in dict.fromkeys(o.label.split("; ")):
                entry = parts.setdefault(part, [Fraction(0), 0])
                entry[0] += o.probability
                entry[1] += o.leaves
        return sorted((Outcome(k, v[0], v[1]) for k, v in parts.items()), key=lambda o: (-o.probability, o.label))

    def text(self, limit: int = 20, effects: int = 10) -> str:
        """The answer for people: the calculation, then each outcome with its exact chance, then
        each effect alone. `limit` and `effects` cap the lines (the rarest are summed up)."""
        head = f"**What if {self.side.title()}: `{self.line}`**"
        if len(self.steps) > 1:
            head += " (simulated: " + " → ".join(f"`{s}`" for s in self.steps) + ")"
        lines = [head + (" — exact odds, nothing committed" if self.exact else
                         " — exact odds as far as they go (below), nothing committed")]
        lines += self.breakdown
        if self.dice:
            more = f"; and {len(self.dice) - 6} more" if len(self.dice) > 6 else ""
            lines.append("Dice: " + "; ".join(self.dice[:6]) + more)
        else:
            lines.append("No die decides it: the outcome is certain.")
        if not self.exact:
            cut = (f"the first {self.horizon} {'die is' if self.horizon == 1 else 'dice are'} enumerated"
                   if self.horizon is not None else
                   f"each sequence of dice is followed until it is rarer than 1 in {round(1 / self.floor):,}")
            lines.append(f"Too many dice follow to enumerate them all: {cut}; in {_percent(self.unresolved)} "
                         "of the chances more follow, and those outcomes are the position when the next die "
                         "would be rolled (named after 'then').")
        lines.append("**Outcomes**")
        lines += _lines(self.outcomes, limit, "rarer outcomes")
        parts = self.effects()
        if effects and len(self.outcomes) > 4 and any("; " in o.label for o in self.outcomes):
            lines.append("**Each effect, in any outcome**")
            lines += _lines(parts, effects, "rarer effects", rest=False)
        lines += [f"Note: {n}" for n in self.notes]
        return "\n".join(lines)


def _lines(items: list[Outcome], limit: int, rarer: str, rest: bool = True) -> list[str]:
    out = []
    for o in items[:limit]:
        frac = "" if o.probability in (0, 1) else f" ({o.probability.numerator}/{o.probability.denominator})"
        out.append(f"`{o.percent:>6}`{frac} {o.label}")
    if len(items) > limit:
        if rest:
            p = sum((o.probability for o in items[limit:]), Fraction(0))
            out.append(f"`{_percent(p):>6}` {len(items) - limit} {rarer}")
        else:
            out.append(f"… {len(items) - limit} {rarer}")
    return out


def _percent(p: Fraction) -> str:
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    v = float(p) * 100
    if v < 0.1:
        return "<0.1%"
    if v > 99.9:
        return ">99.9%"
    return f"{v:.1f}%"
