"""What shooting, melee and morale share: the dice completion.py asks for, casualties and bases
(IW Compagnie; IW-H 1.3), rout (IW-H 7.2, 9), the end of a melee's contacts and the screen put
back (IW Schermi di Schermagliatori), Hesitate turned to Withdraw (IW Esitare)."""
from __future__ import annotations

from collections.abc import Callable

from engine.core.events import DieRoll, Event

from engine.italianwars import checks, rules, tables
from engine.italianwars.state import IWState

S_COMPANIES = "IW Compagnie"
S_HESITATE = "IW Esitare"


def _six_apart(key: Callable) -> Callable:
    return lambda f: ("six",) if f == 6 else key(f)


class Dice:
    """completion.py's `roll(purpose, key) -> face`, drawn from the game's stream with
    `checks.d6` (so the sacrificed sixes are paid, HERALD D50) for the side whose die it is
    (`owner(purpose, key)`, or always `side`); every DieRoll is kept for the Event and every face
    by its purpose. `key` only serves the odds (and `owner`)."""

    def __init__(self, st: IWState, stream, side: str | None = None,
                 owner: Callable[[str, Callable | None], str] | None = None, label: str = ""):
        self.st, self.stream, self.side, self.owner, self.label = st, stream, side, owner, label
        self.dice: list[DieRoll] = []
        self.faces: dict[str, int] = {}

    def __call__(self, purpose: str, key: Callable | None = None) -> int:
        side = self.owner(purpose, key) if self.owner else self.side
        army = self.st.armies.get(side) if side else None
        if key is not None and army is not None and army.sixes_owed > 0:
            key = _six_apart(key)           # a natural 6 is rolled again while sixes are owed (D50)
        token = checks.FACE_KEY.set(key)
        try:
            value, dice = checks.d6(self.st, self.stream, side, f"{self.label}{purpose}")
        finally:
            checks.FACE_KEY.reset(token)
        self.dice += dice
        self.faces[purpose] = value
        return value

    def mark(self, purpose: str, effect: str) -> None:
        """Say what the die of `purpose` did (the last die drawn for it)."""
        for d in reversed(self.dice):
            if d.purpose.startswith(f"{self.label}{purpose}"):
                d.effect = d.effect or effect
                return


def start_bases(sc, st: IWState, c) -> int:
    """The bases a company began the battle with: `Company.start_bases`, else the scenario's
    printed bases, else those it has (and remembered from its first loss on)."""
    if not c.start_bases:
        c.start_bases = int(rules.attr(sc, st, c.id, "bases", 0) or 0) or c.bases
    return c.start_bases


def base_points(sc, st: IWState, c) -> int:
    """IW Compagnie: a base of horse is 3 points, of foot or guns 2."""
    return tables.BASE_POINTS[rules.arm_of(sc, st, c.id)]


def apply_points(sc, st: IWState, c, points: int) -> dict:
    """IW Compagnie, IW-H 1.3 (HERALD D14): the company loses `points`; a base goes when all its
    points are lost (2 foot and guns, 3 horse); at 0 points left it is destroyed. Returns what
    happened ({"bases_before", "bases", "destroyed", "points_lost"})."""
    start = start_bases(sc, st, c)
    before = c.bases
    c.points_lost += max(0, points)
    arm = rules.arm_of(sc, st, c.id)
    c.bases = tables.bases_left(arm, start, c.points_lost)
    destroyed = c.points_lost >= start * tables.BASE_POINTS[arm]
    if destroyed:
        destroy(st, c)
    return {"bases_before": before, "bases": c.bases, "destroyed": destroyed, "points_lost": c.points_lost}


def loss_text(sc, c, points: int, out: dict) -> str:
    """"loses 3 points (a base removed, 1 left)" for a narrative."""
    text = f"loses {points} point{'s' if points != 1 else ''}"
    gone = out["bases_before"] - out["bases"]
    if out["destroyed"]:
        return text + f": {rules.named(sc, c.id)} is destroyed"
    if gone:
        text += f" ({gone} base{'s' if gone > 1 else ''} removed, {out['bases']} left)"
    return text


def destroy(st: IWState, c) -> None:
    """A company reduced to nothing (or taken): off the table's count as destroyed."""
    c.status = "destroyed"
    c.bases = 0
    c.pursuing = ""
    end_contacts(st, c)


def end_contacts(st: IWState, c, only: str | None = None) -> None:
    """The company's melee contacts end (with `only` that enemy, or all), both ways; a parent no
    longer in melee gets its skirmisher screen back (IW Schermi di Schermagliatori)."""
    for eid in list(c.melee_with):
        if only is not None and eid != only:
            continue
        c.melee_with.remove(eid)
        e = st.companies.get(eid)
        if e is not None and c.id in e.melee_with:
            e.melee_with.remove(c.id)
            if not e.melee_with:
                e.screen_removed = False
    if not c.melee_with:
        c.screen_removed = False


def in_contact(st: IWState, a, b) -> None:
    """`a` and `b` are in melee (both ways); a parent's screen leaves the table meanwhile."""
    if b.id not in a.melee_with:
        a.melee_with.append(b.id)
    if a.id not in b.melee_with:
        b.melee_with.append(a.id)
    for c in (a, b):
        c.in_melee = True
        if c.screen:
            c.screen_removed = True


def set_routing(st: IWState, c) -> None:
    """IW-H 7.2, 9.1: the company routs: it leaves its melees, is disordered ("Stanno fuggendo",
    IW Disordine), breaks any formation and gives up its charge; phase 3 moves it."""
    c.status = "routing"
    c.disordered = True
    c.reorganising = 0
    c.pursuing = ""
    c.formation = ""
    if c.charge:
        c.charge = {**c.charge, "failed": "routed"}
    end_contacts(st, c)


def disorder(c) -> None:
    """IW Disordine: the company is disordered (its recovery count starts again)."""
    c.disordered = True
    c.reorganising = 0


def hesitate_to_withdraw(sc, st: IWState, c, why: str) -> list[Event]:
    """IW Esitare: "Se le truppe sono caricate o fatte segno di fuoco, l'ordine verrà trasformato
    automaticamente in Indietreggiare"."""
    b = st.battles.get(c.battle)
    if b is None or b.order != "hesitate":
        return []
    b.order, b.revealed = "withdraw", True
    return [Event("order_changed", b.side, S_HESITATE,
                  f"{rules.battle_name(sc, st, b.id)} was hesitating and {rules.named(sc, c.id)} is {why}: "
                  "its order becomes Withdraw", outcome={"battle": b.id, "order": "withdraw"})]


def dice_text(value: int, mods) -> str:
    """"d6 4 -1 +1 = 4" for a narrative."""
    total = value + sum(m.value for m in mods)
    return f"d6 {value}" + "".join(f" {m.value:+d}" for m in mods if m.value) + f" = {total}"
