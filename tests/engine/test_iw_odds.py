"""/odds in the Italian Wars (engine/italianwars/odds.py): the what-if runs the game's own code with
every d6 enumerated, so its answer for a shot and a melee round is the supplement's own
(completion_odds.shot_odds, melee_odds: IW-H 16), and an activation's is Tabella 6's."""
from __future__ import annotations

from fractions import Fraction

import pytest

from engine.core.errors import HeraldError
from engine.core.odds import what_if
from engine.italianwars import completion_melee, completion_odds
from engine.italianwars.profiles import profile_of
from engine.italianwars.ruleset import ITALIANWARS as IW
from tests.engine.test_iw_combat import melee_state, shooting_state
from tests.engine.test_iw_sequence import make_state


def by_label(odds) -> dict[str, Fraction]:
    return {o.label: o.probability for o in odds.outcomes}


def test_the_odds_of_a_shot_are_the_supplements():
    """IW Azioni 2e, IW-H 5, IW-H 16: Accurate arquebus at 1.5 UDM (short range) on protected
    mercenary foot, column 6: the what-if's chance of each loss equals completion_odds.shot_odds's,
    and the breakdown names the table's column."""
    st = shooting_state()
    odds = what_if(IW, None, st, "french", "shoot fb0c0 lb0c0")
    shooter, target = profile_of(None, st, st.companies["fb0c0"]), profile_of(None, st, st.companies["lb0c0"])
    exact = completion_odds.shot_odds(shooter, target, "short")
    assert sum(o.probability for o in odds.outcomes) == 1
    lost: dict[int, Fraction] = {}
    for o in odds.outcomes:
        part = next((p for p in o.label.split("; ") if "Venetian" in p or "lb0c0" in p), "")
        n = 0
        if "loses" in part:
            n = int(part.split("loses ")[1].split(" point")[0])
        if "destroyed" in part:
            n = target.full_points - target.points_lost
        lost[n] = lost.get(n, Fraction(0)) + o.probability
    assert lost == {k: v for k, v in exact.points.items() if v}, (lost, exact.points)
    assert any("column 6" in line or "Shooting" in line for line in odds.breakdown), odds.breakdown


def test_the_odds_of_a_melee_round_and_its_decision():
    """IW Azioni 2h, IW-H 6: the what-if of `melee fb0c0` (Valiant pike against Unreliable side
    arms) wins, draws and loses as completion_odds.melee_odds says; a winner's choice to pursue is
    answered by the offered default and the answer says so."""
    st = melee_state()
    odds = what_if(IW, None, st, "french", "melee fb0c0")
    assert sum(o.probability for o in odds.outcomes) == 1
    a = completion_melee.Side(profile_of(None, st, st.companies["fb0c0"]))
    b = completion_melee.Side(profile_of(None, st, st.companies["lb0c0"]))
    exact = completion_odds.melee_odds(a, b)
    routs = sum((o.probability for o in odds.outcomes if "lb0c0" in o.label and "routing" in o.label.split("lb0c0")[1].split(";")[0]),
                Fraction(0))
    assert routs == exact.p("b", "routed") > 0, (routs, exact.outcome["b"])
    assert any("assumes French answers" in n for n in odds.notes), odds.notes


def test_the_odds_of_an_activation_follow_tabella_6():
    """IW Tabella 6: a Mercenaries commander needs 4; Rash +1: 4, 5, 6 and 3 (3 + 1) pass: 2/3."""
    st = make_state({"fb1c0": {"captain": "rash"}})
    odds = by_label(what_if(IW, None, st, "french", "activate fb1"))
    assert odds == {"fb1: activated": Fraction(2, 3), "fb1: fails": Fraction(1, 3)}, odds


def test_what_cannot_be_asked():
    """/odds answers activate, shoot and melee; never a move (no die) nor an enemy's secret
    activation (IW Ordini)."""
    st = shooting_state()
    with pytest.raises(HeraldError, match="cannot be asked"):
        what_if(IW, None, st, "french", "move fb0c1 advance 1")
    st = make_state()
    st.battles["lb1"].revealed = False
    with pytest.raises(HeraldError, match="secret"):
        what_if(IW, None, st, "french", "activate lb1")
