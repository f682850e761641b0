"""Shooting in Lion of the North [7], [9 A], [9 C], [12 D-G], [15]: engine/lion/fire.

Positions are built by hand on an empty 180 x 120 table (HERALD D1): a shooter facing north
(0) with its front edge on y = 50, its target facing south (180) with its front edge on
y = 50 + d, so the range from the shooter's front edge to the target's nearest point is d cm
(HERALD D3). Dice are given with a DiceStream's `supplied` results, in the order the rules roll
them; every test checks that all of them were used.
"""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.lion import rules
from engine.lion.scenario import Feature, Scenario
from engine.lion.state import General, LionState, Unit

rules.load_action_modules()
from engine.lion.fire import shoot  # noqa: E402
from engine.lion.fire import sight  # noqa: E402

SW, IM = "swedish", "imperial"


def scen(*features) -> Scenario:
    return Scenario(id="t", title="test", date="", width=180.0, height=120.0, features=tuple(features),
                    armies={}, units=(), generals=(), camps=(), turn_limit=12, special_rules=())


def woods(x0, y0, x1, y1, fid="w1") -> Feature:
    return Feature(fid, "woods", "Wood", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def state(*units, card="shoot_a", generals=()) -> LionState:
    st = LionState(scenario_id="t", seed=7)
    st.players = {"A": SW, "B": IM}
    st.card, st.step, st.drawn = card, "act", [card]
    for u in units:
        st.units[u.id] = u
    for g in generals:
        st.generals[g.id] = g
    return st


def shooter(kind="musketeers", **kw) -> Unit:
    return Unit("s", SW, kind, 50.0, 50.0, 0.0, **kw)


def target(d: float, kind="musketeers", uid="t", x=50.0, **kw) -> Unit:
    return Unit(uid, IM, kind, x, 50.0 + d, 180.0, **kw)


def fire(sc, st, line, dice):
    stream = DiceStream(7, 0, list(dice))
    events = shoot.do_shoot(sc, st, SW, parse(line), stream)
    assert stream.supplied == [], f"dice left over: {stream.supplied}"
    return events


def shot_event(events):
    return next(e for e in events if e.kind == "shoot")


# -- the TIRO grid [7 B], [Tabella riassuntiva], [TIRO] --------------------------------------------

SMALL_ARMS = [(3.0, "short", 5), (5.0, "normal", 6), (7.0, "normal", 6), (10.0, "normal", 6),
              (10.01, "long", 7), (12.0, "long", 7)]
ARTILLERY = [(10.0, "short", 6), (15.0, "normal", 8), (30.0, "normal", 8), (45.0, "normal", 8),
             (46.0, "long", 10), (55.0, "long", 10)]


@pytest.mark.parametrize("d,band,need", SMALL_ARMS)
def test_small_arms_threshold_hits_at_the_value(d, band, need):
    """[7 B] "Se il risultato del dado è maggiore o uguale al valore relativo al range, il bersaglio
    è disordinato": musketeers (d8) hit on the threshold of the band (HERALD D10 boundaries)."""
    sc, st = scen(), state(shooter(), target(d))
    ev = shot_event(fire(sc, st, "shoot s t", [need]))
    assert ev.inputs["band"] == band and ev.outcome["threshold"] == need
    assert ev.outcome["hit"] is True
    assert st.units["t"].hits == 1


@pytest.mark.parametrize("d,band,need", SMALL_ARMS)
def test_small_arms_one_below_the_threshold_misses(d, band, need):
    """[7 B], [TIRO]: one below the band's minimum is a miss."""
    sc, st = scen(), state(shooter(), target(d))
    ev = shot_event(fire(sc, st, "shoot s t", [need - 1]))
    assert ev.outcome["hit"] is False and st.units["t"].hits == 0


@pytest.mark.parametrize("d,band,need", ARTILLERY)
def test_artillery_thresholds(d, band, need):
    """[Tabella riassuntiva] artillery: short < 15 cm 6, normal 15-45 8, long > 45 10 (medium guns,
    d10, 60 cm, deployed [6 A]): the threshold hits, one below misses."""
    for roll, hit in ((need, True), (need - 1, False)):
        sc, st = scen(), state(shooter("medium_guns", deployed=True), target(d))
        ev = shot_event(fire(sc, st, "shoot s t", [roll]))
        assert ev.inputs["band"] == band and ev.outcome["threshold"] == need
        assert ev.outcome["hit"] is hit
        assert st.units["t"].hits == (1 if hit else 0)


def test_heavy_guns_unlimited_range_long_band():
    """Heavy guns: d12, "Illimitata" range [Tabella riassuntiva]: 100 cm is long, 10 hits."""
    sc, st = scen(), state(shooter("heavy_guns"), target(60.0))
    st.units["t"].y = 150.0 - 40.0      # 60 cm
    ev = shot_event(fire(sc, st, "shoot s t", [10]))
    assert ev.inputs["band"] == "long" and ev.outcome["hit"]


def test_d6_can_never_reach_seven():
    """[9 A] "(notare che ciò implica il fatto che il fuoco può risultare, in alcuni casi,
    inefficiente)": disordered musketeers shoot a d6 (d8 one size smaller) and a 6 at long range
    misses; the narrative says the die cannot reach 7."""
    sc, st = scen(), state(shooter(hits=1), target(12.0))
    ev = shot_event(fire(sc, st, "shoot s t", [6]))
    assert ev.inputs["die"] == 6 and ev.outcome["hit"] is False
    assert "cannot reach 7" in ev.narrative


def test_elite_adds_one_untrained_subtracts_one():
    """[Tabella delle truppe] "Unità d'Elitè sommano sempre 1 al dado. Unità non addestrate
    sottraggono sempre 1 al dado": elite 5 + 1 hits at normal range (6); untrained 6 - 1 misses."""
    sc, st = scen(), state(shooter(quality="elite"), target(7.0))
    assert shot_event(fire(sc, st, "shoot s t", [5])).outcome["hit"] is True
    sc, st = scen(), state(shooter(quality="untrained"), target(7.0))
    assert shot_event(fire(sc, st, "shoot s t", [6])).outcome["hit"] is False


def test_mortar_always_long_range():
    """[12 D] "sparano sempre a distanza lunga": a mortar at 10 cm uses the long threshold 10."""
    sc, st = scen(), state(shooter("mortar"), target(10.0))
    ev = shot_event(fire(sc, st, "shoot s t", [9]))
    assert ev.inputs["band"] == "long" and ev.outcome["threshold"] == 10 and not ev.outcome["hit"]


# -- the die step-downs [9 A], [12 E-G], [15] 5 --------------------------------------------------------

def test_light_rain_and_disorder_each_step_down():
    """[15] 5 light rain "1 dado minore" and [9 A] disorder: a disordered musket in light rain shoots
    a d4 (d8 -> d6 -> d4)."""
    sc, st = scen(), state(shooter(hits=1), target(3.0))
    st.weather["rain"] = "light"
    ev = shot_event(fire(sc, st, "shoot s t", [4]))
    assert ev.inputs["die"] == 4 and len(ev.inputs["die_steps"]) == 2 and not ev.outcome["hit"]


def test_pike_and_shot_after_first_hit_and_detached_musketeers():
    """[12 E] P&S "dopo il primo livello di disorganizzazione ... un dado di livello inferiore";
    [12 G] detached musketeers: one more (d8 -> d6 -> d4)."""
    sc, st = scen(), state(shooter("pike_and_shot", hits=1, detached_musketeers=True), target(3.0))
    ev = shot_event(fire(sc, st, "shoot s t", [4]))
    assert ev.inputs["die"] == 4


def test_tercio_one_hit_does_not_step_down():
    """[12 F] a Tercio "quando ha subito 2 centri lancia un dado di livello inferiore": one hit
    leaves its d8."""
    sc, st = scen(), state(shooter("tercio", hits=1), target(3.0))
    assert shot_event(fire(sc, st, "shoot s t", [8])).inputs["die"] == 8


def test_tercio_fires_from_its_side_one_die_lower_at_a_different_enemy():
    """[12 F] "possono sparare anche sui lati e sul retro ad unità nemiche diverse, ma con un dado
    minore": from its right face a d6; the same enemy again from another face is refused."""
    tercio = shooter("tercio")                       # front edge y = 50, x 46..54, depth 4
    east = Unit("t", IM, "musketeers", 57.0, 48.0, 270.0)   # 3 cm east of the right face
    sc, st = scen(), state(tercio, east)
    ev = shot_event(fire(sc, st, "shoot s t", [6]))
    assert ev.inputs["face"] == "right" and ev.inputs["die"] == 6 and ev.outcome["hit"]
    assert st.units["s"].shot_faces == ["right"]
    with pytest.raises(Illegal, match="different enemy|already fired"):
        fire(sc, st, "shoot s t from right", [6])


def test_one_shot_per_card():
    """HERALD D80: one shot per unit per shoot card."""
    sc, st = scen(), state(shooter(), target(3.0), target(3.0, uid="t2", x=56.0))
    fire(sc, st, "shoot s t", [1])
    with pytest.raises(Illegal, match="already shot"):
        fire(sc, st, "shoot s t2", [8])


# -- canister, deep target, explosion [7 E-G] ----------------------------------------------------------

def test_canister_adds_a_d3_at_a_base_in_contact():
    """[7 F] "Quando basette d'Artiglieria (eccetto Mortai) sparano contro basette a contatto,
    aggiungere il risultato di 1d3": 4 + d3 (a d6 face 3 halved up = 2) = 6 hits at short range."""
    sc, st = scen(), state(shooter("regimental_guns"), target(0.0))
    ev = shot_event(fire(sc, st, "shoot s t", [4, 3]))
    assert ev.inputs["canister"] and ev.outcome["total"] == 6 and ev.outcome["hit"]
    assert [d.die for d in ev.dice] == ["d10", "d3"]


def test_no_canister_for_mortars():
    """[7 F] "(eccetto Mortai)": a mortar at a base in contact rolls its d12 alone."""
    sc, st = scen(), state(shooter("mortar"), target(0.0))
    ev = shot_event(fire(sc, st, "shoot s t", [10]))
    assert not ev.inputs["canister"] and [d.die for d in ev.dice] == ["d12"]


def test_deep_target_plus_one_for_medium_guns_at_a_tercio():
    """[7 G] "Artiglierie Medie e pesanti che tirano contro Tercios (non a mitraglia) aggiungono
    1": 7 + 1 = 8 hits at normal range (30 cm)."""
    sc, st = scen(), state(shooter("medium_guns", deployed=True), target(30.0, kind="tercio"))
    ev = shot_event(fire(sc, st, "shoot s t", [7]))
    assert [m.value for m in ev.modifiers] == [1] and ev.outcome["hit"]
    assert st.units["t"].hits == 1 and st.units["t"].alive


def test_gun_explodes_on_a_natural_one_then_a_one():
    """[7 E] "Quando una basetta d'artiglieria ottiene un '1' al dado, lancia un altro d6. Se il
    risultato è un altro '1', il cannone esplose, ed è rimosso dal gioco" (HERALD D84)."""
    sc, st = scen(), state(shooter("medium_guns", deployed=True), target(30.0))
    events = fire(sc, st, "shoot s t", [1, 1])
    boom = next(e for e in events if e.kind == "explosion")
    assert boom.outcome["exploded"] and st.units["s"].status == "destroyed"


def test_gun_natural_one_then_two_holds_even_elite():
    """[7 E], HERALD D84: the natural 1 tests even for an elite gun (1 + 1); a 2 on the d6 holds."""
    sc, st = scen(), state(shooter("medium_guns", deployed=True, quality="elite"), target(30.0))
    events = fire(sc, st, "shoot s t", [1, 2])
    assert not next(e for e in events if e.kind == "explosion").outcome["exploded"]
    assert st.units["s"].alive


def test_limbered_light_gun_refused():
    """[6 A] light and medium guns "possono sparare solo se piazzati"."""
    sc, st = scen(), state(shooter("light_guns", deployed=False), target(10.0))
    with pytest.raises(Illegal, match="limbered"):
        fire(sc, st, "shoot s t", [])


# -- cover [7 C], mortars [12 D] -------------------------------------------------------------------------

def test_cover_save_five_or_six_saves():
    """[7 C] "Bersagli in copertura (all'interno di boschi ...) che vengono colpiti, lanciano 1 d6:
    con 5 e 6 non vengono disordinati": the target at a wood's edge, hit, saves on a 5 and not on
    a 4."""
    wood = woods(40, 53.5, 60, 70)           # the target (front y = 53, back 55) half inside
    sc, st = scen(wood), state(shooter(), target(3.0))
    events = fire(sc, st, "shoot s t", [5, 5])
    assert next(e for e in events if e.kind == "cover").outcome["saved"] and st.units["t"].hits == 0
    sc, st = scen(wood), state(shooter(), target(3.0))
    events = fire(sc, st, "shoot s t", [5, 4])
    assert not next(e for e in events if e.kind == "cover").outcome["saved"] and st.units["t"].hits == 1


def test_no_save_against_mortars():
    """[12 D] "Le unità colpite dal fuoco dei mortai non possono effettuare tiri di salvataggio":
    the same target in the woods, hit by a mortar, rolls no d6 and is disordered."""
    sc, st = scen(woods(40, 53.5, 60, 70)), state(shooter("mortar"), target(3.0))
    events = fire(sc, st, "shoot s t", [10])
    assert st.units["t"].hits == 1
    cover = next(e for e in events if e.kind == "cover")
    assert not cover.dice and "no saving throw" in cover.narrative


def test_behind_a_wall_is_cover():
    """[7 C] "dietro muri o difese" (HERALD D85): a wall just in front of the target covers it."""
    wall = Feature("wa", "wall", "Wall", ((40.0, 52.4), (60.0, 52.4)), width=0.6)
    sc, st = scen(wall), state(shooter(), target(3.0))
    events = fire(sc, st, "shoot s t", [5, 6])
    assert next(e for e in events if e.kind == "cover").outcome["saved"]


# -- arc, range, sight [7 A] ---------------------------------------------------------------------------

def test_out_of_range_refused_by_how_much():
    """[7 A], [Tabella riassuntiva] musketeers' maximum range 15 cm: 16 cm is refused naming both."""
    sc, st = scen(), state(shooter(), target(16.0))
    with pytest.raises(Illegal, match="16 cm .* beyond its 15 cm"):
        fire(sc, st, "shoot s t", [])


def test_out_of_arc_refused():
    """[7 A] "L'angolo di tiro è di 30° per lato" (HERALD D5): 8 cm ahead the ray from the front
    corner (52, 50) is at x = 52 + 8 tan 30 = 56.62; a target whose west edge is at 58 (10 cm away,
    in range) is outside the arc and refused."""
    sc, st = scen(), state(shooter(), target(8.0, x=60.0))
    with pytest.raises(Illegal, match="not in the arc"):
        fire(sc, st, "shoot s t", [])


def test_in_arc_at_the_edge_of_the_ray():
    """HERALD D5: the ray leaves the front corner (52, 50) at 30 degrees: at 10 cm ahead it is
    5.77 cm further east; a target whose west edge is at 57 cm (5 cm past the corner) is in arc,
    at sqrt(5^2 + 10^2) = 11.18 cm: long range, 7 to hit."""
    sc, st = scen(), state(shooter(), target(10.0, x=59.0))
    ev = shot_event(fire(sc, st, "shoot s t", [7]))
    assert ev.inputs["distance"] == 11.18 and ev.inputs["band"] == "long" and ev.outcome["hit"]


def test_troops_block_the_line_of_sight():
    """[7 A] "Non è possibile tirare attraverso ... altre truppe": a friendly unit across the whole
    line blocks, and the refusal names it; a mortar fires over it [12 D]."""
    screen = Unit("f", SW, "pike_and_shot", 50.0, 54.0, 0.0)
    sc, st = scen(), state(shooter(), target(8.0), screen)
    with pytest.raises(Illegal, match="cannot see .*f blocks"):
        fire(sc, st, "shoot s t", [])
    st.units["s"].type = "mortar"
    assert shot_event(fire(sc, st, "shoot s t", [10])).outcome["hit"]


def test_woods_between_block():
    """[7 A] no shooting through woods: a wood strip between them blocks, named."""
    sc, st = scen(woods(30, 53, 70, 55)), state(shooter(), target(8.0))
    with pytest.raises(Illegal, match="woods Wood blocks"):
        fire(sc, st, "shoot s t", [])


def test_only_a_wood_edge_base_is_shot_at():
    """[7 A] "Solo le basette che si trovano sul bordo di un bosco ... possono essere colpite": a
    target deep in the woods is refused; at the edge it may be shot (HERALD D81)."""
    sc, st = scen(woods(30, 52, 70, 90)), state(shooter(), target(8.0))
    with pytest.raises(Illegal, match="inside the woods, not at their edge"):
        fire(sc, st, "shoot s t", [])
    sc, st = scen(woods(30, 58.5, 70, 90)), state(shooter(), target(8.0))
    assert shot_event(fire(sc, st, "shoot s t", [6, 1])).outcome["hit"]


def test_heavy_rain_no_fire_and_limited_visibility_short_only():
    """[15] 6 heavy rain "le armi da fuoco non sparano"; [15] 1 limited visibility "Consentito solo
    il tiro a distanza breve": a normal-range shot refused, a short one allowed."""
    sc, st = scen(), state(shooter(), target(3.0))
    st.weather["rain"] = "heavy"
    with pytest.raises(Illegal, match="heavy rain"):
        fire(sc, st, "shoot s t", [])
    sc, st = scen(), state(shooter(), target(7.0))
    st.weather["visibility"] = True
    with pytest.raises(Illegal, match="limited visibility"):
        fire(sc, st, "shoot s t", [])
    st.units["t"].y = 53.0
    assert shot_event(fire(sc, st, "shoot s t", [5])).outcome["hit"]


def test_not_on_the_shoot_card():
    """[3], [13]: shooting needs the side's shoot card."""
    sc, st = scen(), state(shooter(), target(3.0), card="move_a")
    with pytest.raises(Illegal, match="shoot card"):
        fire(sc, st, "shoot s t", [])


# -- generals as targets [9 C] ------------------------------------------------------------------------

def lone_general(d: float = 7.0, **kw) -> General:
    return General("g", IM, "sub", 50.0, 50.0 + d, 180.0, **kw)


def test_general_near_his_units_cannot_be_shot():
    """[9 C] "Un generale può essere soggetto al tiro nemico se dista più di 10 cm da un'unità
    amica": 4 cm from an imperial unit, refused with the distance."""
    sc = scen()
    st = state(shooter(), Unit("i", IM, "musketeers", 50.0, 61.0, 180.0), generals=[lone_general()])
    with pytest.raises(Illegal, match="2 cm from a unit of his own"):
        fire(sc, st, "shoot s g", [])


@pytest.mark.parametrize("d8,result", [(5, "no_effect"), (6, "wounded"), (7, "wounded"), (8, "killed")])
def test_general_hit_rolls_the_fire_table(d8, result):
    """[9 C] "se colpito, lanciare 1d8: 1-5 = nessun effetto, 6-7 = ferito, 8 = ucciso"."""
    sc, st = scen(), state(shooter(), generals=[lone_general()])
    events = fire(sc, st, "shoot s g", [6, d8])
    risk = next(e for e in events if e.kind == "general_risk")
    assert risk.outcome["result"] == result
    g = st.generals["g"]
    assert g.wounded == (result == "wounded") and g.alive == (result != "killed")


def test_wounded_general_wounded_again_is_killed():
    """[9 C] "(e se ferito nuovamente sarà ucciso)"."""
    sc, st = scen(), state(shooter(), generals=[lone_general(wounded=True)])
    fire(sc, st, "shoot s g", [6, 6])
    assert st.generals["g"].status == "killed"


# -- hits [9 A], [12 E-F] -----------------------------------------------------------------------------

def test_second_hit_destroys():
    """[9 A] "Se una basetta già disordinata viene disordinata nuovamente dal fuoco ... essa è
    distrutta"."""
    sc, st = scen(), state(shooter(), target(3.0, hits=1))
    fire(sc, st, "shoot s t", [5])
    assert st.units["t"].status == "destroyed"


# -- contact fire [7 D] ------------------------------------------------------------------------------

def contact_state(edge_front=True, kind="musketeers", policy=None):
    """An imperial cuirassier that came into contact with the Swedish unit's front this turn."""
    me = shooter(kind)
    if edge_front:
        cav = Unit("c", IM, "regular_cavalry", 50.0, 50.0, 180.0)
    else:   # against the left flank (x = 48), facing east
        cav = Unit("c", IM, "regular_cavalry", 48.0, 49.0, 90.0)
    me.contacted_by = ["c"]
    st = state(me, cav, card="move_b")
    st.step = "contact_fire"
    if policy:
        st.policies[SW] = {"contact_fire": policy}
    return scen(), st


def test_contact_fire_at_a_unit_on_the_front():
    """[7 D] "possono sparare solo le unità che hanno basette nemiche che sono entrate a contatto in
    questo turno": at short range (5), automatically (HERALD D87); not the unit's card shot."""
    sc, st = contact_state()
    stream = DiceStream(7, 0, [5])
    events = shoot.contact_fire_step(sc, st, SW, stream)
    assert stream.supplied == []
    ev = shot_event(events)
    assert ev.inputs["contact"] and ev.inputs["band"] == "short" and ev.outcome["hit"]
    assert st.units["c"].hits == 1 and st.units["s"].shot is False


def test_contact_fire_guns_fire_canister():
    """[7 F] with [7 D]: a gun fires canister at the unit that contacted it."""
    sc, st = contact_state(kind="regimental_guns")
    st.units["s"].type = "regimental_guns"
    st.units["c"].y = 50.0
    stream = DiceStream(7, 0, [3, 6])
    ev = shot_event(shoot.contact_fire_step(sc, st, SW, stream))
    assert ev.inputs["canister"] and ev.outcome["total"] == 6 and ev.outcome["hit"]


def test_contact_fire_not_when_attacked_in_flank():
    """[7 D] "Unità attaccate sul fianco o sul retro non possono sparare (con l'eccezione dei
    tercios)": no die, one event with the reason."""
    sc, st = contact_state(edge_front=False)
    stream = DiceStream(7, 0, [])
    events = shoot.contact_fire_step(sc, st, SW, stream)
    assert len(events) == 1 and "cannot fire" in events[0].narrative and not events[0].dice


def test_contact_fire_policy_never():
    """HERALD D87: the policy contact_fire never skips the step."""
    sc, st = contact_state(policy="never")
    events = shoot.contact_fire_step(sc, st, SW, DiceStream(7, 0, []))
    assert st.units["c"].hits == 0 and "does not fire" in events[0].narrative


def test_legal_targets_lists_what_may_be_shot():
    """[7 A]: the completions' list holds the target in range and arc, not the one behind."""
    sc, st = scen(), state(shooter(), target(3.0), target(3.0, uid="far", x=120.0))
    assert sight.legal_targets(sc, st, st.units["s"]) == [("t", "front")]
    assert shoot.can_shoot(sc, st, SW) is True


def test_odds_of_a_shot_exact():
    """HERALD D99, engine/lion/odds.py: /odds enumerates the d8: 6, 7 or 8 hits at normal range,
    3/8 exactly (a second shooter keeps the card in play, so nothing is drawn)."""
    from fractions import Fraction

    from engine.core.odds import what_if
    from engine.lion.ruleset import LionRuleset
    other = Unit("s2", SW, "musketeers", 100.0, 50.0, 0.0)
    far = Unit("t2", IM, "musketeers", 100.0, 53.0, 180.0)
    sc, st = scen(), state(shooter(), target(7.0), other, far)
    odds = what_if(LionRuleset(), sc, st, SW, "shoot s t")
    assert odds.probability("t: 1 hit") == Fraction(3, 8)
    assert st.units["t"].hits == 0          # nothing committed


def test_odds_of_canister_count_a_d3_as_three_faces():
    """HERALD D9, D99: the canister d3 is a d6 halved; enumerated as three faces of weight 2, the
    chances stay exact: a regimental gun's d10 + d3 >= 6 at contact: 1 - P(total <= 5) = 1 - 9/30."""
    from fractions import Fraction

    from engine.core.odds import what_if
    from engine.lion.ruleset import LionRuleset
    other = Unit("s2", SW, "musketeers", 100.0, 50.0, 0.0)
    far = Unit("t2", IM, "musketeers", 100.0, 53.0, 180.0)
    sc, st = scen(), state(shooter("regimental_guns"), target(0.0), other, far)
    odds = what_if(LionRuleset(), sc, st, SW, "shoot s t")
    # totals <= 5: d10 1-4 with d3 1 (4), d10 1-3 with d3 2 (3), d10 1-2 with d3 3 (2): 9 of 30;
    # the natural 1 (3 of 30) then tests the explosion: 1/10 * 1/6 of the guns blow up
    assert odds.probability("t: 1 hit") == 1 - Fraction(9, 30)
    assert odds.probability("s: destroyed") == Fraction(1, 60)


def test_shoot_through_the_dispatcher_on_breitenfeld():
    """[7 B], [3]: `shoot <unit> <target> dice=6` through rules.apply on the Breitenfeld battle (a
    Swedish musket 7 cm from Isolani's Croats, placed by hand): normal range, 6 hits, in the new
    state only (apply works on a copy)."""
    from engine.lion.scenario import load_scenario
    from engine.lion.setup import new_state
    sc = load_scenario("breitenfeld")
    st = new_state(sc, 5)
    side = sc.player("A")
    m = next(u for u in sorted(st.units.values(), key=lambda u: u.id) if u.side == side and u.type == "musketeers")
    e = st.units["imp-croat1"]
    e.x, e.y, e.facing = m.x, m.y + 7.0 if m.facing == 0 else m.y - 7.0, (m.facing + 180.0) % 360.0
    st.card, st.step, st.drawn = "shoot_a", "act", ["shoot_a"]
    st.deck.remove("shoot_a")
    after, events = rules.apply(sc, st, side, parse(f"shoot {m.id} imp-croat1 dice=6"))
    assert events[0].kind == "shoot" and events[0].outcome["hit"] and events[0].inputs["band"] == "normal"
    assert after.units["imp-croat1"].hits == 1 and st.units["imp-croat1"].hits == 0
