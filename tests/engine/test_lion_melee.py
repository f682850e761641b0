"""Melee in Lion of the North [8], [9 A-C], [12 E-G]: engine/lion/melee.

Positions by hand on an empty 180 x 120 table (HERALD D1): the defender faces north (0) with its
front edge on y = 50 (x 48-52 for a 4 cm base, 46-54 for a P&S or Tercio); a front attacker faces
south (180) with its front edge on the same line; a left-flank attacker faces east (90) with its
front edge on x = 48. Dice are supplied in the order the rules roll them: each attacker (its melee
die, then a Tercio's 1d3, a flank 1d3, a general's 1d3), then the defender (its melee die, a second
die, a Tercio's 1d3, a general's 1d3), then the hits' dice (guns [9 B]), then the generals' d8
[9 C]. A d3 is a d6 halved rounded up (HERALD D9): face 1-2 -> 1, 3-4 -> 2, 5-6 -> 3.
"""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.core.table.geometry import CONTACT_TOL
from engine.lion import checks, rules
from engine.lion.scenario import Feature, Scenario
from engine.lion.state import General, LionState, Unit

rules.load_action_modules()
from engine.lion.melee import fight, results  # noqa: E402

SW, IM = "swedish", "imperial"


def scen(*features) -> Scenario:
    return Scenario(id="t", title="test", date="", width=180.0, height=120.0, features=tuple(features),
                    armies={}, units=(), generals=(), camps=(), turn_limit=12, special_rules=())


def area(kind, x0, y0, x1, y1, fid="f1", level=0) -> Feature:
    return Feature(fid, kind, kind.title(), ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), level=level)


def state(*units, generals=(), card="combat_a") -> LionState:
    st = LionState(scenario_id="t", seed=3)
    st.players = {"A": SW, "B": IM}
    st.card, st.step, st.drawn = card, "act", [card]
    for u in units:
        st.units[u.id] = u
    for g in generals:
        st.generals[g.id] = g
    return st


def defender(kind="musketeers", **kw) -> Unit:
    return Unit("d", IM, kind, 50.0, 50.0, 0.0, **kw)


def front(kind="regular_cavalry", uid="a", x=50.0, **kw) -> Unit:
    return Unit(uid, SW, kind, x, 50.0, 180.0, **kw)


def left(kind="regular_cavalry", uid="l", **kw) -> Unit:
    return Unit(uid, SW, kind, 48.0, 49.0, 90.0, **kw)


def melee(sc, st, line, dice, side=SW):
    stream = DiceStream(3, 0, list(dice))
    events = fight.do_fight(sc, st, side, parse(line), stream)
    assert stream.supplied == [], f"dice left over: {stream.supplied}"
    return events


def roll_event(events):
    return next(e for e in events if e.kind == "melee")


def touching(st, a, b) -> bool:
    return checks.base_distance(st.units[a], st.units[b]) <= CONTACT_TOL


# -- win, lose, tie [8 A] ---------------------------------------------------------------------------

def test_attacker_wins_defender_disordered_retreats_cavalry_follows():
    """[8 A] "chi ottiene il valore minore viene disordinato"; [8 E] the loser "deve ritirarsi di 5
    cm, fronte al nemico" and cavalry "deve obbligatoriamente avanzare" (HERALD D93, D94): the
    musketeers (d6 3) lose to the cuirassiers (d10 7), fall back to y = 45 still facing north, and
    the cavalry follows them back into contact."""
    sc, st = scen(), state(defender(), front())
    events = melee(sc, st, "fight d", [7, 3])
    ev = roll_event(events)
    assert [d.die for d in ev.dice] == ["d10", "d6"]
    assert ev.outcome["comparisons"][0]["loser"] == "d"
    d = st.units["d"]
    assert (d.hits, d.x, d.y, d.facing) == (1, 50.0, 45.0, 0.0)
    assert st.units["a"].y < 45.1 and touching(st, "a", "d")
    assert st.units["a"].fought and d.fought


def test_attacker_loses_and_retreats_infantry_follows_by_policy():
    """[8 A], [8 E]: the cuirassiers (2) lose to the musketeers (5) and back 5 cm, facing them;
    the winning infantry "può decidere di avanzare": with the policy advance stay it stays."""
    sc, st = scen(), state(defender(), front())
    st.policies[IM] = {"advance": "stay"}
    melee(sc, st, "fight d", [2, 5])
    a = st.units["a"]
    assert (a.hits, a.x, a.y, a.facing) == (1, 50.0, 55.0, 180.0)
    assert st.units["d"].y == 50.0 and not touching(st, "a", "d")


def test_infantry_winner_advances_by_default_policy_auto():
    """[8 E], HERALD D94: with the policy advance auto the musketeers advance into contact again."""
    sc, st = scen(), state(defender(), front())
    st.policies[IM] = {"advance": "auto"}
    melee(sc, st, "fight d", [2, 5])
    assert st.units["d"].y > 54.9 and touching(st, "a", "d")


def test_infantry_follow_up_asked():
    """[8 E] the infantry's choice, policy ask: a decision `react advance|stay` for its side."""
    sc, st = scen(), state(defender(), front())
    st.policies[IM] = {"advance": "ask"}
    melee(sc, st, "fight d", [2, 5])
    p = st.pending
    assert p["kind"] == "advance" and p["side"] == IM and p["options"] == ["advance", "stay"]
    events = rules.REACTIONS["advance"](sc, st, IM, "advance", [], DiceStream(3, 0, []))
    assert st.pending is None and touching(st, "a", "d")
    assert any(e.kind == "follow_up" for e in events)


def test_tie_no_effect():
    """[8 A] "Una parità indica che non ci sono stati effetti sulle unità"."""
    sc, st = scen(), state(defender(), front())
    melee(sc, st, "fight d", [4, 4])
    assert st.units["d"].hits == 0 and st.units["a"].hits == 0
    assert (st.units["a"].y, st.units["d"].y) == (50.0, 50.0)


def test_tie_cavalry_attacking_uphill_is_disordered():
    """[8 B] "Se Cavallerie, P&S o Picchieri attaccano in salita e pareggiano una mischia, sono
    considerate disordinate" (HERALD D19): the defender on a hill, the cavalry below."""
    sc, st = scen(area("hill", 40, 40, 60, 50.5, level=1)), state(defender(), front())
    ev = roll_event(melee(sc, st, "fight d", [4, 4]))
    assert ev.outcome["comparisons"][0]["tie_rule"] == "attacking uphill"
    assert st.units["a"].hits == 1 and st.units["d"].hits == 0


def test_tie_musketeers_uphill_no_effect_cavalry_into_woods_disordered():
    """HERALD D19: musketeers are not in [8 B]'s list (a tie uphill does nothing); the summary's
    "Cavallerie o Picchieri in attacco in boschi": cavalry tying against a unit in woods lose."""
    sc, st = scen(area("hill", 40, 40, 60, 50.5, level=1)), state(defender(), front("musketeers"))
    melee(sc, st, "fight d", [4, 4])
    assert st.units["a"].hits == 0
    sc, st = scen(area("woods", 40, 40, 60, 50)), state(defender(), front())
    melee(sc, st, "fight d", [4, 4])
    assert st.units["a"].hits == 1


# -- the dice [9 A], [12 E-F], [8 C-D] ---------------------------------------------------------------------

def test_disordered_pikes_defend_with_d10():
    """[9 A] "ad es. una base disordinata di picchieri si difende con 1d10 invece di 1d12"."""
    sc, st = scen(), state(defender("pikemen", hits=1), front("musketeers"))
    ev = roll_event(melee(sc, st, "fight d", [3, 10]))
    assert [d.die for d in ev.dice] == ["d6", "d10"]
    assert ev.inputs["defender"]["die"] == 10


def test_tercio_against_two_rolls_d12_d8_and_d3():
    """[12 F] "un tercio che combatte contro 2 unità nemiche lancia 1d12, 1d8 ed 1d3" (HERALD D90:
    one total, 6 + 3 + 1 = 10, compared with each attacker): both cuirassiers (5) lose."""
    sc, st = scen(), state(defender("tercio"), front(uid="a1", x=48.0), front(uid="a2", x=52.0))
    st.policies[IM] = {"advance": "stay"}
    ev = roll_event(melee(sc, st, "fight d", [5, 5, 6, 3, 2]))
    assert [d.die for d in ev.dice] == ["d10", "d10", "d12", "d8", "d3"]
    assert ev.outcome["defence"] == 10
    assert [c["loser"] for c in ev.outcome["comparisons"]] == ["a1", "a2"]
    assert st.units["a1"].hits == 1 and st.units["a2"].hits == 1


def test_tercio_attacking_adds_d3():
    """[12 F] "Un Tercio in combattimento aggiunge sempre 1d3": d12 4 + d3 (face 6 -> 3) = 7
    beats the musketeers' 6."""
    sc, st = scen(), state(defender(), front("tercio"))
    ev = roll_event(melee(sc, st, "fight d", [4, 6, 6]))
    assert [d.die for d in ev.dice] == ["d12", "d3", "d6"]
    assert ev.outcome["comparisons"][0]["attack"] == 7 and st.units["d"].hits == 1


def test_pike_and_shot_attacked_by_a_second_unit_adds_d8():
    """[12 E] "Se l'unità è attaccata da una sola unità nemica lancia 1d12, se attaccata da due,
    aggiunge 1d8": two musketeers on its front, d12 2 + d8 2 = 4 beats both (3)."""
    sc, st = scen(), state(defender("pike_and_shot"), front("musketeers", "a1", 48.0),
                           front("musketeers", "a2", 52.0))
    st.policies[IM] = {"advance": "stay"}
    ev = roll_event(melee(sc, st, "fight d", [3, 3, 2, 2]))
    assert [d.die for d in ev.dice] == ["d6", "d6", "d12", "d8"]
    assert ev.outcome["defence"] == 4 and st.units["d"].hits == 0


def test_late_pike_and_shot_second_die_d6_and_one_attacker_no_second_die():
    """[12 E] late P&S "combatte con 1d10 più 1 eventuale d6, se attaccata da una seconda unità";
    against one attacker no second die."""
    sc, st = scen(), state(defender("late_pike_and_shot"), front("musketeers", "a1", 48.0),
                           front("musketeers", "a2", 52.0))
    st.policies[IM] = {"advance": "stay"}
    ev = roll_event(melee(sc, st, "fight d", [1, 1, 5, 5]))
    assert [d.die for d in ev.dice] == ["d6", "d6", "d10", "d6"]
    sc, st = scen(), state(defender("late_pike_and_shot"), front("musketeers", "a1", 48.0))
    ev = roll_event(melee(sc, st, "fight d", [1, 5]))
    assert [d.die for d in ev.dice] == ["d6", "d10"]


def test_flank_attack_d3_and_separate_comparisons():
    """[8 C] engaged on two sides at once: the flank attacker adds 1d3; "L'unità presa sul fianco
    lancia un solo dado che confronta, separatamente, con i dadi degli avversari": the musketeers'
    5 beats the front musketeers' 3 and loses to the flank cavalry's 4 + 3 = 7 (HERALD D90)."""
    sc, st = scen(), state(defender(), front("musketeers"), left())
    st.policies[IM] = {"advance": "stay"}
    ev = roll_event(melee(sc, st, "fight d", [3, 4, 5, 5]))
    comps = {c["attacker"]: c for c in ev.outcome["comparisons"]}
    assert comps["a"]["flank"] is False and comps["l"]["flank"] is True
    assert (comps["a"]["attack"], comps["l"]["attack"], ev.outcome["defence"]) == (3, 7, 5)
    assert comps["a"]["loser"] == "a" and comps["l"]["loser"] == "d"
    assert st.units["a"].hits == 1 and st.units["d"].hits == 1
    # the defender retreats 5 cm facing its victor on its left: it now faces west (270) and stands
    # 5 cm east of the cavalry's front edge (x = 48 + 5)
    d = st.units["d"]
    assert d.facing == 270.0 and d.x == 53.0


def test_single_flank_attacker_gets_no_d3():
    """[8 C] "attaccata sul fianco ... se è in mischia contemporaneamente con unità nemiche su due
    diversi lati": one attacker on the flank alone is no flank attack."""
    sc, st = scen(), state(defender(), left())
    ev = roll_event(melee(sc, st, "fight d", [4, 5]))
    assert [d.die for d in ev.dice] == ["d10", "d6"] and not ev.outcome["comparisons"][0]["flank"]


def test_flanked_defender_losing_twice_is_destroyed():
    """HERALD D90: each lost comparison is a hit: 7 and 5 + 2 against 2, two hits destroy [9 A]."""
    sc, st = scen(), state(defender(), front(), left())
    melee(sc, st, "fight d", [7, 5, 3, 2])
    assert st.units["d"].status == "destroyed"


def test_tercio_has_no_flanks_only_a_rear():
    """[12 F] "Un Tercio non ha fianchi ma ha un retro": attacked front and side, nobody adds
    the flank 1d3."""
    t = defender("tercio")
    side_attacker = Unit("l", SW, "regular_cavalry", 46.0, 48.0, 90.0)
    sc, st = scen(), state(t, front(), side_attacker)
    st.policies[IM] = {"advance": "stay"}
    ev = roll_event(melee(sc, st, "fight d", [5, 5, 6, 3, 1]))
    assert not any(c["flank"] for c in ev.outcome["comparisons"])
    assert [d.die for d in ev.dice] == ["d10", "d10", "d12", "d8", "d3"]


def test_supporting_general_adds_d3_once_per_card():
    """[8 D] "Generali che non sono a contatto con nemici, ma sono in contatto con proprie basette in
    mischia ... aggiungere il risultato di 1d3 ... solo una volta per fase di mischia"."""
    gen = General("g", SW, "cinc", 50.0, 53.0, 180.0, attached_to="a")   # against the rear of a
    sc, st = scen(), state(defender(), front(), generals=[gen])
    ev = roll_event(melee(sc, st, "fight d", [4, 5, 5]))
    assert [d.die for d in ev.dice] == ["d10", "d3", "d6"]
    assert ev.outcome["comparisons"][0]["attack"] == 7 and st.generals["g"].supported
    # a second melee on the same card: no die from him
    st.units["d2"] = Unit("d2", IM, "musketeers", 80.0, 50.0, 0.0)
    st.units["b"] = Unit("b", SW, "regular_cavalry", 80.0, 50.0, 180.0)
    st.generals["g"].x, st.generals["g"].y, st.generals["g"].attached_to = 80.0, 53.0, "b"
    ev = roll_event(melee(sc, st, "fight d2", [4, 5]))
    assert [d.die for d in ev.dice] == ["d10", "d6"]


def test_elite_and_untrained():
    """[Tabella delle truppe]: elite +1, untrained -1 on the melee total."""
    sc, st = scen(), state(defender(quality="untrained"), front(quality="elite"))
    ev = roll_event(melee(sc, st, "fight d", [4, 5]))
    c = ev.outcome["comparisons"][0]
    assert (c["attack"], c["defence"], c["loser"]) == (5, 4, "d")


def test_dismounted_dragoons_d4_open_d6_in_cover():
    """[12 C] "I Dragoni smontati combattono con 1d4 se all'aperto o con 1d6 se in copertura"."""
    sc, st = scen(), state(defender("dragoons", mounted=False), front("musketeers"))
    assert [d.die for d in roll_event(melee(sc, st, "fight d", [1, 4])).dice] == ["d6", "d4"]
    sc, st = scen(area("town", 40, 40, 60, 50)), state(defender("dragoons", mounted=False), front("musketeers"))
    assert [d.die for d in roll_event(melee(sc, st, "fight d", [1, 6])).dice] == ["d6", "d6"]


# -- hits [9 A], [12 E-F] ---------------------------------------------------------------------------

def test_second_hit_destroys_and_cavalry_follows_five():
    """[9 A] "Se una basetta già disordinata viene disordinata nuovamente ... essa è distrutta";
    the cavalry then advances 5 cm into the space left (HERALD D94)."""
    sc, st = scen(), state(defender(hits=1), front())
    melee(sc, st, "fight d", [7, 3])
    assert st.units["d"].status == "destroyed" and st.units["a"].y == 45.0


@pytest.mark.parametrize("kind,hits,alive", [("pike_and_shot", 1, True), ("pike_and_shot", 2, False),
                                             ("tercio", 2, True), ("tercio", 3, False)])
def test_pike_and_shot_needs_three_tercio_four(kind, hits, alive):
    """[12 E] "Per eliminare un'unità di P&S è necessario infliggere 3 centri"; [12 F] a Tercio
    "quattro centri"."""
    sc, st = scen(), state(defender(kind, hits=hits), front())
    st.policies[IM] = {"advance": "stay"}
    dice = [10, 1] if kind == "pike_and_shot" else [10, 1, 1]
    melee(sc, st, "fight d", dice)
    assert st.units["d"].alive is alive and st.units["d"].hits == hits + 1


# -- guns [9 B], [8 D] -----------------------------------------------------------------------------

def test_gun_first_hit_disorders_and_does_not_retreat():
    """[9 B] the guns follow [9 A] at the first hit; HERALD D93 they do not retreat."""
    sc, st = scen(), state(defender("medium_guns", deployed=True), front())
    melee(sc, st, "fight d", [5, 1])
    d = st.units["d"]
    assert d.hits == 1 and (d.x, d.y) == (50.0, 50.0)


@pytest.mark.parametrize("d6,result", [(3, "spiked"), (4, "captured")])
def test_disordered_gun_beaten_again_spiked_or_captured(d6, result):
    """[9 B] "se l'artiglieria già disordinata viene disordinata nuovamente nel corso di una mischia,
    lanciare 1d6: 1-3 i cannoni sono inchiodati, cioè distrutti; 4-6: i pezzi sono catturati"."""
    sc, st = scen(), state(defender("medium_guns", deployed=True, hits=1), front())
    melee(sc, st, "fight d", [5, 1, d6])
    d = st.units["d"]
    if result == "spiked":
        assert d.status == "destroyed"
    else:
        assert d.alive and d.captured_by == SW and d.hits == 0 and (d.x, d.y) == (50.0, 50.0)


def test_guns_and_generals_never_attack():
    """[8 D] "Generali (ed Artiglieria) non possono mai entrare in mischia volontariamente"."""
    gun = Unit("a", SW, "regimental_guns", 50.0, 50.0, 180.0)
    sc, st = scen(), state(defender(), gun)
    with pytest.raises(Illegal, match="never attacks"):
        melee(sc, st, "fight d a", [])


# -- generals [9 C] -----------------------------------------------------------------------------------

@pytest.mark.parametrize("d8,result", [(2, "no_effect"), (3, "wounded"), (5, "wounded"), (6, "killed"), (8, "killed")])
def test_general_with_a_losing_unit(d8, result):
    """[9 C] "1d8. Un risultato di 1-2 significa 'Nessun effetto' ed il Generale si ritira ... 3-5
    ... Ferito ... 6-8 ... ucciso": the general attached to the beaten musketeers (he gave them his
    1d3 [8 D]: 3 + 1 = 4 against 7) rolls."""
    gen = General("g", IM, "sub", 50.0, 48.0, 0.0, attached_to="d")      # at the rear of d
    sc, st = scen(), state(defender(), front(), generals=[gen])
    events = melee(sc, st, "fight d", [7, 3, 1, d8])
    risk = next(e for e in events if e.kind == "general_risk")
    assert risk.outcome["result"] == result
    g = st.generals["g"]
    assert g.alive == (result != "killed") and g.wounded == (result == "wounded")
    if result == "no_effect":           # carried back with his unit's retreat (HERALD D96)
        assert g.y == 43.0


def test_lone_general_attacked_defends_d4_and_withdraws():
    """[8 D] generals "Possono solo difendersi con 1d4"; [9 C] beaten alone, 1-2: he withdraws 5 cm."""
    gen = General("g", IM, "sub", 50.0, 50.0, 0.0)
    sc, st = scen(), state(front(), generals=[gen])
    events = melee(sc, st, "fight g", [5, 3, 1])
    assert [d.die for d in roll_event(events).dice] == ["d10", "d4"]
    g = st.generals["g"]
    assert g.alive and g.y == 45.0


# -- who and how many [8 A], [12 E], [5 B] -------------------------------------------------------------

def test_one_attacker_per_edge():
    """[8 A] "può essere attaccata fino a 4 unità nemiche per fase, una per lato della basetta"."""
    sc, st = scen(), state(defender(), front(uid="a1", x=47.0), front(uid="a2", x=51.5))
    with pytest.raises(Illegal, match="at most 1"):
        melee(sc, st, "fight d", [])


def test_pike_and_shot_front_one_wide_attacker_only():
    """[12 E] "P&S possono essere attaccate frontalmente ... da due unità nemiche di fronte normale o
    da 1 di P&S o Tercio": a P&S and a cavalry unit on its front are refused."""
    sc, st = scen(), state(defender("pike_and_shot"), front("pike_and_shot", "a1", 47.0),
                           front(uid="a2", x=53.0))
    with pytest.raises(Illegal, match="at most 1"):
        melee(sc, st, "fight d", [])


def test_one_melee_per_phase():
    """[8 A] "Un' unità può combattere una mischia solo una volta per fase"."""
    sc, st = scen(), state(defender(), front())
    melee(sc, st, "fight d", [4, 4])
    with pytest.raises(Illegal, match="already fought"):
        melee(sc, st, "fight d", [4, 4])


def test_only_town_troops_attack_a_town():
    """[5 B] "Nessun'altra unità può attaccare o difendere centri abitati"."""
    sc, st = scen(area("town", 40, 40, 60, 50)), state(defender(), front())
    with pytest.raises(Illegal, match="town"):
        melee(sc, st, "fight d", [])


def test_not_in_contact_refused_and_card_needed():
    """[8 A] only units in contact fight; [3] only on the side's combat card."""
    far = Unit("a", SW, "regular_cavalry", 50.0, 53.0, 180.0)
    sc, st = scen(), state(defender(), far)
    with pytest.raises(Illegal, match="none of your units is in contact"):
        melee(sc, st, "fight d", [])
    sc, st = scen(), state(defender(), front(), card="shoot_a")
    with pytest.raises(Illegal, match="combat card"):
        melee(sc, st, "fight d", [])


def test_blocked_retreat_is_shorter():
    """HERALD D93: a friend 2 cm behind the loser stops its retreat there; it loses nothing more."""
    friend = Unit("f", IM, "musketeers", 50.0, 46.0, 0.0)        # its front edge at y = 46
    sc, st = scen(), state(defender(), front(), friend)
    events = melee(sc, st, "fight d", [7, 3])
    r = next(e for e in events if e.kind == "retreat")
    assert 1.9 < r.outcome["moved"] < 2.0 and st.units["d"].hits == 1 and st.units["f"].hits == 0


def test_fight_targets_for_completions():
    """[8 A]: the enemies the side may attack now."""
    sc, st = scen(), state(defender(), front())
    assert fight.fight_targets(sc, st, SW) == ["d"] and fight.can_fight(sc, st, SW)
    assert results.follow_up_choice(sc, st, st.units["a"]) == "must"


def test_odds_of_a_melee_exact():
    """HERALD D99, engine/lion/odds.py: a cuirassier's d10 against musketeers' d6: the attacker
    wins 39/60, ties 6/60, loses 15/60 (a second melee keeps the combat card in play)."""
    from fractions import Fraction

    from engine.core.odds import what_if
    from engine.lion.ruleset import LionRuleset
    sc = scen()
    st = state(defender(), front(), Unit("d2", IM, "musketeers", 100.0, 50.0, 0.0),
               Unit("b", SW, "reiter", 100.0, 50.0, 180.0))
    odds = what_if(LionRuleset(), sc, st, SW, "fight d")
    assert odds.probability("d: 1 hit") == Fraction(13, 20)
    assert odds.probability("a: 1 hit") == Fraction(1, 4)
    assert odds.probability("no effect") == Fraction(1, 10)
