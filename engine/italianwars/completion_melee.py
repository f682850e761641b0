"""The Italian Wars, Herald's completion: melee (SUPPLEMENT.md IW-H 6).

IW-H 6.1 the Doppelsöldner, 6.2 the Melee table (column -> casualty points for one d6), 6.3 the
column's modifiers (size and phalanx, lances, impetus, pikes, side arms, armour and polearms,
disorder, flank, cover, war carts, sworn enemies), 6.4 the loser's test, push back and broken
through, and one round resolved with the dice from the caller (`resolve_melee`, with the flank
test of IW Risposte obbligatorie, captain risk IW-H 8 and the tests of IW-H 7). Every value is
HERALD's (HERALD D6), labelled with its rule; see completion.py for how the completion is read and
cited.

Pure: standard library and engine.core.events only; no randomness (dice come from the caller).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.core.events import Modifier
from engine.italianwars.completion import (ARMOUR_SHIFT, COVER_SHIFT, SIZES, Profile, Roll, _lighter,
                                           captain_falls, captain_fate, clamp, mod,
                                           morale_modifiers, morale_outcome, sworn_enemies)


# == IW-H 6 the Melee table =========================================================================

MELEE_TABLE = {      # IW-H 6.2: column -> casualty points inflicted for d6 = 1..6
    0: (0, 0, 0, 0, 0, 1),
    1: (0, 0, 0, 0, 1, 1),
    2: (0, 0, 0, 1, 1, 2),
    3: (0, 0, 1, 1, 2, 2),
    4: (0, 1, 1, 2, 2, 3),
    5: (1, 1, 2, 2, 3, 3),
    6: (1, 2, 2, 3, 3, 4),
    7: (1, 2, 3, 3, 4, 4),
    8: (2, 2, 3, 4, 4, 5),
    9: (2, 3, 3, 4, 5, 5),
    10: (2, 3, 4, 4, 5, 6),
}


def melee_points(column: int, die: int) -> int:
    """IW-H 6.2: the casualty points a company inflicts in a round of melee."""
    return MELEE_TABLE[clamp(column)][die - 1]


# == IW-H 6 melee ======================================================================================

@dataclass(frozen=True)
class Side:
    """One side of a melee: its company and what it did this round."""
    company: Profile
    charging: bool = False            # charged (or counter-charged) into this melee this turn
    flanked: bool = False             # the enemy fights it on its flank or rear
    first_round: bool = True          # the round in which contact was made


LANCE_CHARGE = 2                      # IW-H 6.3
LANCE_VS_PIKE = 1                     # IW-H 6.3: against pikes in good order, frontally
CHARGE_IMPETUS = 1                    # IW-H 6.3: any other company that charged
PIKE_VS_HORSE, PIKE_VS_FOOT = 2, 1    # IW-H 6.3: pikes in good order, fighting to the front
SIDE_ARMS = -1                        # IW-H 6.3
DISORDER, PIKE_DISORDER = -1, -2      # IW-H 6.3: and disordered pikes lose their pike bonus
FLANKED = -2                          # IW-H 6.3
SWORN = 1                             # IW-H 6.3: both sides; a bloodier fight
WAR_CART_VS_HORSE = -2                # IW-H 6.3
DOPPEL_AT = 5                         # IW-H 6.1: d6 5+ disorders the enemy
BROKEN_THROUGH_MARGIN = 3             # IW-H 6.4


def effective_weapon(side: Side) -> str:
    """IW Tipi di armi: lancers who did not charge, rallied troops, shooting troops and
    skirmishers fight with side arms."""
    c = side.company
    if c.side_arms_only or c.role in ("shooting", "skirmishers") and not c.mixed:
        return "side_arms"
    if c.weapon == "lance" and not (side.charging and side.first_round):
        return "side_arms"
    return c.weapon


def _pike_ready(side: Side) -> bool:
    c = side.company
    return effective_weapon(side) == "pike" and not c.disordered and (not side.flanked or c.igel)


def melee_column(me: Side, enemy: Side) -> tuple[int, list[Modifier]]:
    """IW-H 6.3: the column `me` reads on the Melee table against `enemy` (not held to 0..10)."""
    c, e = me.company, enemy.company
    mods: list[Modifier] = []
    flanked = me.flanked and not c.igel
    weapon = effective_weapon(me)
    # size: the larger gets +1 a size step; a phalanx always counts one step larger (IW Falange)
    if not flanked:
        mine, theirs = SIZES.index(c.melee_size()), SIZES.index(e.melee_size())
        if c.phalanx:
            mine = max(mine, theirs + 1)
        if mine > theirs:
            mods.append(mod(mine - theirs, "larger than the enemy" + (" (phalanx)" if c.phalanx else ""), "6.3"))
    # weapon
    if weapon == "lance":
        pike_front = _pike_ready(enemy) and not enemy.flanked
        bonus = LANCE_VS_PIKE if pike_front else LANCE_CHARGE
        mods.append(mod(bonus, "lances charging" + (" into pikes in good order" if pike_front else ""), "6.3"))
    elif me.charging and me.first_round:
        mods.append(mod(CHARGE_IMPETUS, "charged", "6.3"))
    if weapon == "pike" and _pike_ready(me):
        v = PIKE_VS_HORSE if e.kind == "cavalry" else PIKE_VS_FOOT
        mods.append(mod(v, "pikes in good order against " + ("horse" if e.kind == "cavalry" else "foot"), "6.3"))
    if weapon == "side_arms":
        mods.append(mod(SIDE_ARMS, "side arms" + (" (lancers who did not charge)" if c.weapon == "lance" else ""), "6.3"))
    # the enemy's armour (polearms bite one class through)
    armour = e.armour_class(frontal=not enemy.flanked or e.igel)
    if weapon == "polearm":
        armour = _lighter(armour, 1)
    if ARMOUR_SHIFT[armour]:
        mods.append(mod(ARMOUR_SHIFT[armour], f"enemy {armour}" + (" (polearms)" if weapon == "polearm" else ""), "6.3"))
    if c.disordered:
        pike = c.weapon == "pike" and weapon == "pike"
        mods.append(mod(PIKE_DISORDER if pike else DISORDER, "disordered pikes" if pike else "disordered", "6.3"))
    if flanked:
        mods.append(mod(FLANKED, "fighting an enemy on its flank or rear", "6.3"))
    if COVER_SHIFT[e.cover]:
        mods.append(mod(COVER_SHIFT[e.cover], "enemy behind field defences or in a built-up area"
                        if e.cover == "defences" else "enemy in cover", "6.3"))
    if e.missile == "war_cart" and c.kind == "cavalry":
        mods.append(mod(WAR_CART_VS_HORSE, "horse against war carts", "6.3"))
    if sworn_enemies(c, e):
        mods.append(mod(SWORN, "sworn enemies", "6.3"))
    return c.melee + sum(m.value for m in mods), mods


def may_use_doppelsoldner(me: Side, enemy: Side) -> bool:
    """IW-H 6.1: before the first round, from the front, in good order, against foot in good order."""
    return (me.company.doppelsoldner and me.first_round and not me.flanked and not me.company.disordered
            and enemy.company.kind == "infantry" and not enemy.company.disordered)


@dataclass
class MeleeResult:
    doppel: dict[str, bool] = field(default_factory=dict)     # "a"/"b": its Doppelsöldner disordered the enemy
    flank_test: str = ""                                         # the flanked side's test at 2f (IW Risposte obbligatorie)
    columns: dict[str, int] = field(default_factory=dict)
    modifiers: dict[str, list[Modifier]] = field(default_factory=dict)
    dice: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)        # points each side LOST
    winner: str = ""                                             # "a" / "b" / "" (drawn: the melee goes on)
    broken_through: bool = False
    captains: dict[str, str] = field(default_factory=dict)      # "a"/"b": "" / killed / captured
    morale: str = ""                                             # the loser's test: pass / disorder / rout
    captain_tests: dict[str, str] = field(default_factory=dict)  # "a"/"b": the test of a side whose captain
                                                                 # fell and that had no other (IW-H 7.1)
    outcome: dict[str, str] = field(default_factory=dict)      # "a"/"b": held / drawn / won / pushed back /
                                                                 # disordered / routed / destroyed


def resolve_melee(a: Side, b: Side, roll: Roll) -> MeleeResult:
    """IW-H 6: one round of melee between `a` and `b` (a usually the charger).

    Order: the flanked company's compulsory morale test if it was charged in flank or rear this
    turn (IW Risposte obbligatorie; IW-H 7); Doppelsöldner (6.1); each side's d6 on the Melee
    table (6.2, 6.3); casualties; captain risk (IW-H 8); the loser's morale test, push back,
    broken through, rout (6.4)."""
    res = MeleeResult()
    sides = {"a": a, "b": b}
    # 2f: a company charged in flank or rear tests first (its captain is not at risk yet)
    for k in ("a", "b"):
        s, o = sides[k], sides["b" if k == "a" else "a"]
        if s.flanked and s.first_round and o.charging and not s.company.igel:
            mm = morale_modifiers(s.company, flank=True)
            m = sum(x.value for x in mm)
            c = s.company
            die = roll("flank morale", lambda f, c=c, m=m: morale_outcome(c.morale, m, f, c.disordered))
            res.flank_test = morale_outcome(c.morale, m, die, c.disordered)
            if res.flank_test == "rout":
                res.winner = "b" if k == "a" else "a"
                res.outcome = {k: "routed", res.winner: "won"}
                res.points = {"a": 0, "b": 0}
                return res
            if res.flank_test == "disorder":
                sides[k] = replace(s, company=replace(c, disordered=True, phalanx=False))
    # 6.1 Doppelsöldner, just before close combat
    for k in ("a", "b"):
        s, o = sides[k], sides["b" if k == "a" else "a"]
        if may_use_doppelsoldner(s, o):
            hit = roll("Doppelsöldner", lambda f: f >= DOPPEL_AT) >= DOPPEL_AT
            res.doppel[k] = hit
    for k, hit in res.doppel.items():
        if hit:
            ok = "b" if k == "a" else "a"
            o = sides[ok]
            sides[ok] = replace(o, company=replace(o.company, disordered=True, phalanx=False))
    a, b = sides["a"], sides["b"]
    ca, ma = melee_column(a, b)
    cb, mb = melee_column(b, a)
    res.columns, res.modifiers = {"a": ca, "b": cb}, {"a": ma, "b": mb}
    da = roll("melee a", lambda f, c=clamp(ca): MELEE_TABLE[c][f - 1])
    db = roll("melee b", lambda f, c=clamp(cb): MELEE_TABLE[c][f - 1])
    res.dice = {"a": da, "b": db}
    lost = {"a": melee_points(cb, db), "b": melee_points(ca, da)}
    res.points = lost
    left = {k: sides[k].company.full_points - sides[k].company.points_lost - lost[k] for k in ("a", "b")}
    if lost["a"] != lost["b"]:
        res.winner = "a" if lost["b"] > lost["a"] else "b"
    loser = {"a": "b", "b": "a"}.get(res.winner, "")
    margin = abs(lost["a"] - lost["b"])
    # IW-H 8: captain risk for both companies
    fell = {}
    for k in ("a", "b"):
        sit = "melee_lost" if k == loser else "melee"
        f1 = roll(f"captain risk {k}", lambda f, sit=sit: captain_falls(sit, f))
        res.captains[k] = ""
        if captain_falls(sit, f1):
            f2 = roll(f"captain fate {k}", lambda f: captain_fate("melee", f))
            res.captains[k] = captain_fate("melee", f2)
        fell[k] = bool(res.captains[k])
    for k in ("a", "b"):
        if left[k] <= 0:
            res.outcome[k] = "destroyed"

    def captain_tests() -> MeleeResult:
        """IW-H 7.1: a side whose captain fell and that takes no other test (the winner, or both
        in a drawn round) tests at -1 (IW-H 8.2), after the loser's test."""
        for k in ("a", "b"):
            if not fell[k] or k == loser or res.outcome.get(k) == "destroyed":
                continue
            c = sides[k].company
            mm = morale_modifiers(c, captain_fell=True, points_after=left[k])
            m = sum(x.value for x in mm)
            die = roll(f"captain morale {k}", lambda f, c=c, m=m: morale_outcome(c.morale, m, f, c.disordered))
            res.captain_tests[k] = morale_outcome(c.morale, m, die, c.disordered)
            if res.captain_tests[k] == "rout":
                res.outcome[k] = "routed"
            elif res.captain_tests[k] == "disorder":
                res.outcome[k] = f"{res.outcome.get(k, 'drawn')}, disordered"
        return res

    if not res.winner:
        for k in ("a", "b"):
            res.outcome.setdefault(k, "drawn")
        return captain_tests()
    res.outcome.setdefault(res.winner, "won")
    if res.outcome.get(loser) == "destroyed":
        return captain_tests()
    lc = sides[loser].company
    if margin >= BROKEN_THROUGH_MARGIN:
        res.broken_through = True
        lc = replace(lc, disordered=True, phalanx=False)
    mm = morale_modifiers(lc, margin=margin, flank=sides[loser].flanked, captain_fell=fell[loser],
                          points_after=left[loser])
    m = sum(x.value for x in mm)
    die = roll("morale", lambda f: morale_outcome(lc.morale, m, f, lc.disordered))
    res.morale = morale_outcome(lc.morale, m, die, lc.disordered)
    res.outcome[loser] = {"pass": "disordered, pushed back" if res.broken_through else "pushed back",
                          "disorder": "disordered, pushed back", "rout": "routed"}[res.morale]
    return captain_tests()
