"""The first state of a Lion of the North game from its battle file ([2], [3], [4], [12 A]).

Units on the table at their places and facings (a unit arriving later waits off the table),
generals, camps, each army's discipline [4 E], the players' letters of the cards [3] (the
scenario's player A and B), the full deck not yet drawn [3], [13], and the battle's special rules
that set the weather at the start (a "fog" battle starts in limited visibility [15] 1). Optional
rules are game options, read by the rules modules with `has_option(st, id)`.
"""
from __future__ import annotations

from engine.core.errors import Illegal
from engine.core.table.geometry import norm_angle, rnd
from engine.lion import tables
from engine.lion.state import Army, Camp, General, LionState, Unit

# The optional rules a game may be created with: (id, what it does).
OPTIONAL_RULES = (
    ("large-armies", ("Large armies: three commands (a centre with the reserves and two wings); "
                     "the commander-in-chief rolls the army's Cpt die, each wing general one die "
                     "lower: trained d6, regular d4, irregular d3 (LdN [4 E])")),
)


def has_option(st: LionState, option_id: str) -> bool:
    return option_id in (st.options.get("rules") or [])


def general_role(sc, general_id: str, options=None) -> str:
    """The role a scenario's general plays in a game [4 E], [11 B] (HERALD D20): the
    commander-in-chief stays "cinc"; a general the battle names as a wing ("wing") commands a wing
    under the large-army rule and is a sub-commander ("sub") without it; a sub-commander stays one."""
    g = sc.general(general_id)
    if g.role == "wing" and "large-armies" not in (options or []):
        return "sub"
    return g.role


def commander_of(sc, st: LionState, unit_id: str) -> str:
    """The general whose command a unit is in (the scenario's `command`, else the
    commander-in-chief's) [4 E]; the large-army rule measures its 40 cm [4 C] to him."""
    u = sc.unit(unit_id)
    if u.command:
        return u.command
    return next(g.id for g in sc.generals if g.side == u.side and g.role == "cinc")


def cpt_die_of(sc, st: LionState, general_id: str) -> int:
    """The Cpt die a general rolls [4 E] L58-60: the C-in-C his army's (or his own discipline's),
    a wing general of the large-army rule one level lower (d6 / d4 / d3)."""
    g = st.generals[general_id]
    spec = sc.general(general_id)
    return tables.cpt_die(sc.discipline_of(spec), g.role)


def new_state(sc, seed: int | str, options=None) -> LionState:
    """A LionState ready for `rules.start`: every unit, general and camp of the scenario at its
    place, the armies' disciplines, the deck full [3]."""
    chosen = list(options or [])
    known = {oid for oid, _ in OPTIONAL_RULES}
    bad = [o for o in chosen if o not in known]
    if bad:
        raise Illegal(f"unknown optional rule(s) {', '.join(bad)}; known: {', '.join(sorted(known))}",
                      "LdN optional rules")
    if "large-armies" in chosen:
        for side in sorted(sc.armies):
            wings = [g.id for g in sc.generals if g.side == side and g.role == "wing"]
            if len(wings) > 2:
                raise Illegal(f"the large-army rule gives an army three commands (a centre and "
                              f"two wings); the {side} army names {len(wings)} wing generals: "
                              f"{', '.join(wings)}", "LdN [4 E]")
    st = LionState(scenario_id=sc.id, seed=seed, options={"rules": chosen})
    st.players = {"A": sc.player("A"), "B": sc.player("B")}
    for u in sc.units:
        st.units[u.id] = Unit(
            id=u.id, side=u.side, type=u.type, x=rnd(u.x), y=rnd(u.y), facing=norm_angle(u.facing),
            quality=u.quality, status="waiting" if u.arrives else "active",
            mounted=u.mounted if u.type == "dragoons" else True, deployed=u.deployed)
    for u in sc.units:                              # [12 G] the parent shoots and fights a die lower
        parent = getattr(u, "detached_from", "")
        if parent and parent in st.units:
            st.units[parent].detached_musketeers = True
    for g in sc.generals:
        st.generals[g.id] = General(id=g.id, side=g.side, role=general_role(sc, g.id, chosen),
                                    x=rnd(g.x), y=rnd(g.y), facing=norm_angle(g.facing),
                                    status="waiting" if getattr(g, "arrives", "") else "active")
    for c in sc.camps:
        st.camps[c.side] = Camp(side=c.side, x=rnd(c.x), y=rnd(c.y), facing=norm_angle(c.facing))
    for side in sorted(sc.armies):
        st.armies[side] = Army(side=side, discipline=sc.armies[side].discipline)
    if sc.has_rule("fog"):
        st.weather["visibility"] = True             # [15] 1 from the start (the battle's rule)
    return st
