"""The first state of an Italian Wars game from its battle file, at the start of the pre-battle
sequence ("Prima della battaglia" L242-274).

Companies at their places and facings (HERALD D1), each with its bases, its captain's personality
when the battle fixes it ("" until rolled on Tabella 2), its skirmisher screen and its starting
formation (igel, phalanx); ambushes hidden; battles under their commanders' companies, the
Commander-in-Chief's marked; each army's strength (Tabella 1 plus the camp's 3, "Punto di rottura
dell'esercito") and its treasury when the battle fixes it (else 0 until rolled: 1d6, "Tesoro"
L95); the season, weather and day clock the battle fixes ("" / 0 until rolled: Tabelle 3-4, "Ora
del giorno"). No die is drawn here: the pre-battle sequence (engine/italianwars/sequence/
prebattle.py) rolls what is left to roll, in the text's order. Optional rules are game options,
read by the rules modules with `has_option(st, id)`.
"""
from __future__ import annotations

from engine.core.errors import Illegal
from engine.core.table.geometry import norm_angle, rnd
from engine.italianwars import tables
from engine.italianwars.state import Army, Battle, Company, IWState

# The optional rules a game may be created with: (id, what it does).
OPTIONAL_RULES = (
    ("roll-weather", "Season, weather and the time of day are rolled (Tabelle 3 and 4, 2d6 for "
                     "the day clock) even where the battle fixes them (IW Prima della battaglia 3)"),
    ("roll-attacker", "The attacker is found by the text's count of Rash captains (1d6 on a tie) "
                      "even where the battle names one (IW Prima della battaglia 4)"),
    ("free-deployment", "The players draw their deployment secretly and place their battles in "
                        "turn, the defender first, within 6 UDM of their edge, instead of the "
                        "battle's own placement (IW Prima della battaglia 5-7)"),
)


def has_option(st: IWState, option_id: str) -> bool:
    return option_id in (st.options.get("rules") or [])


def army_strength(sc, side: str) -> int:
    """An army's strength [Punto di rottura dell'esercito] L124, [Accampamento] L240: the command
    points of its companies (Tabella 1) and 3 for its camp."""
    return tables.army_strength((c.morale for c in sc.companies_of(side)),
                                camp=any(cp.side == side for cp in sc.camps))


def new_state(sc, seed: int | str, options=None) -> IWState:
    """An IWState at the start of the pre-battle sequence (phase "prebattle", step
    "personalities"): every company, battle and army of the scenario `sc`, nothing rolled."""
    chosen = list(options or [])
    known = {oid for oid, _ in OPTIONAL_RULES}
    bad = [o for o in chosen if o not in known]
    if bad:
        raise Illegal(f"unknown optional rule(s) {', '.join(bad)}; known: {', '.join(sorted(known))}",
                      "IW optional rules")
    st = IWState(scenario_id=sc.id, seed=seed, options={"rules": chosen})
    rolled = "roll-weather" in chosen
    st.season = "" if rolled else sc.season
    st.weather = "" if rolled else sc.weather
    st.clock = 0 if rolled else sc.clock_start
    st.attacker = "" if "roll-attacker" in chosen else sc.attacker()
    st.phase, st.step = "prebattle", "personalities"
    for c in sc.companies:
        formation = c.formation if c.formation == "igel" or c.formation.startswith("phalanx:") else ""
        st.companies[c.id] = Company(
            id=c.id, side=c.side, battle=c.battle, x=rnd(c.x), y=rnd(c.y),
            facing=norm_angle(c.facing), bases=c.bases,
            captain=tables.SWISS_PERSONALITY if not tables.rolls_personality(c.morale, c.nation)
            else c.captain,
            hidden=c.ambush, formation=formation, screen=c.screen)
    for b in sc.battles:
        st.battles[b.id] = Battle(id=b.id, side=b.side, commander=b.commander, cinc=b.cinc)
    for side in sorted(sc.armies):
        fixed = sc.ecu_fixed(side)
        st.armies[side] = Army(side=side, ecu=fixed if fixed is not None else 0,
                               strength=army_strength(sc, side))
    st.secrets = {side: {} for side in sorted(sc.armies)}
    return st
