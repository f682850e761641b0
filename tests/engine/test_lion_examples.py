"""The worked examples and remarks of the Lion of the North rulebook (lion-of-the-north.it.txt, the
line numbers L<n>), each played through LION.apply with given dice, asserting the text's outcome;
then the audit's fixes (HERALD D120-D124). tests/engine/test_lion_coverage.py lists the examples
and checks that each is played here.

Positions by hand on an empty 180 x 120 table (HERALD D1): a Swedish unit (player A) faces north
(0) with its front edge on y = 50; an enemy touching its front faces south (180) with its front
edge on the same line. Dice: `dice=` gives the faces in the order the rules roll them; a d3 is a
d6 halved rounded up (HERALD D9: face 6 -> 3). A face the die has not is refused, which is how the
"never above" remarks of the text are shown.
"""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.lion import checks, tables
from engine.lion.ruleset import LION
from engine.lion.scenario import ArmySpec, GeneralSpec, Scenario, UnitSpec
from engine.lion.state import Army, General, LionState, Unit

SW, IM = "swedish", "imperial"


def scen(discipline=("trained", "regular"), generals=(), units=()) -> Scenario:
    armies = {SW: ArmySpec(SW, "Swedes", "swedish", discipline[0], "A", "south"),
              IM: ArmySpec(IM, "Imperials", "imperial", discipline[1], "B", "north")}
    return Scenario(id="t", title="test", date="", width=180.0, height=120.0, features=(),
                    armies=armies, units=tuple(units), generals=tuple(generals), camps=(),
                    turn_limit=12, special_rules=())


def state(*units, card="combat_a", deck=None, generals=(), discipline=("trained", "regular")) -> LionState:
    """A state on `card` (its owner acting), the cards in `deck` still to draw this turn. Three
    filler units a side stand far apart so no single loss ends the battle [14 A]."""
    st = LionState(scenario_id="t", seed=11)
    st.players = {"A": SW, "B": IM}
    st.card, st.step, st.drawn = card, "act", [card]
    st.deck = list(deck if deck is not None else [])
    st.armies = {SW: Army(SW, discipline[0]), IM: Army(IM, discipline[1])}
    for i in range(3):
        st.units[f"sw-f{i}"] = Unit(f"sw-f{i}", SW, "pikemen", 10.0 + 6 * i, 5.0, 0.0)
        st.units[f"im-f{i}"] = Unit(f"im-f{i}", IM, "pikemen", 150.0 + 6 * i, 115.0, 180.0)
    for u in units:
        st.units[u.id] = u
    for g in generals:
        st.generals[g.id] = g
    return st


def run(sc, st, side, line):
    return LION.apply(sc, st, side, parse(line))


def the(events, kind):
    return next(e for e in events if e.kind == kind)


def dice_of(event) -> list[str]:
    return [d.die for d in event.dice]


# == [9 A] L98 =======================================================================================

def test_9A_disordered_pikes_defend_with_d10_not_d12():
    """[9 A] L98: "una base disordinata di picchieri si difende con 1d10 invece di 1d12". Swedish
    cuirassiers (d10) attack disordered Imperial pikes: the pikes roll a d10, so an 11 is not a
    face of their die; in good order the same 11 is a d12's face and wins."""
    pikes = Unit("d", IM, "pikemen", 50.0, 50.0, 0.0, hits=1)
    horse = Unit("a", SW, "regular_cavalry", 50.0, 50.0, 180.0)
    sc, st = scen(), state(pikes, horse)
    with pytest.raises(Illegal, match="not a face of a d10"):
        run(sc, st, SW, "fight d dice=5,11")
    after, ev = run(sc, st, SW, "fight d dice=5,10")
    melee = the(ev, "melee")
    assert dice_of(melee) == ["d10", "d10"]
    assert melee.outcome["comparisons"][0]["loser"] == "a"
    good = state(Unit("d", IM, "pikemen", 50.0, 50.0, 0.0), Unit("a", SW, "regular_cavalry", 50.0, 50.0, 180.0))
    _, ev2 = run(sc, good, SW, "fight d dice=10,11")
    assert dice_of(the(ev2, "melee")) == ["d10", "d12"]
    assert the(ev2, "melee").outcome["comparisons"][0]["loser"] == "a"


def test_9A_fire_may_be_ineffective_a_d6_never_reaches_7():
    """[9 A] L98: "(notare che ciò implica il fatto che il fuoco può risultare, in alcuni casi,
    inefficiente)"; [7 B] L78, [TIRO] L254-255: long range needs 7. Disordered musketeers shoot a
    d6 instead of a d8: at 12 cm their best, 6, misses and the narrative says the die cannot reach
    7; a 7 is no face of it. In good order a d8's 7 hits."""
    shooter = Unit("s", SW, "musketeers", 50.0, 50.0, 0.0, hits=1)
    target = Unit("t", IM, "musketeers", 50.0, 62.0, 180.0)
    sc, st = scen(), state(shooter, target, card="shoot_a")
    with pytest.raises(Illegal, match="not a face of a d6"):
        run(sc, st, SW, "shoot s t dice=7")
    after, ev = run(sc, st, SW, "shoot s t dice=6")
    shot = the(ev, "shoot")
    assert shot.inputs["die"] == 6 and shot.inputs["band"] == "long" and not shot.outcome["hit"]
    assert "cannot reach 7" in shot.narrative
    assert after.units["t"].hits == 0
    st2 = state(Unit("s", SW, "musketeers", 50.0, 50.0, 0.0), Unit("t", IM, "musketeers", 50.0, 62.0, 180.0),
                card="shoot_a")
    after2, ev2 = run(sc, st2, SW, "shoot s t dice=7")
    assert the(ev2, "shoot").outcome["hit"] and after2.units["t"].hits == 1


# == [12 E] L120-122, [12 F] L124 =====================================================================

def test_12F_tercio_against_two_units_rolls_d12_d8_and_d3():
    """[12 F] L124: "un tercio che combatte contro 2 unità nemiche lancia 1d12, 1d8 ed 1d3". Two
    Swedish cavalry units on the Tercio's front (two a side may attack it): each rolls its d10;
    the Tercio rolls d12 8 + d8 4 + d3 3 (a d6 of 6) = 15, compared separately with each."""
    tercio = Unit("d", IM, "tercio", 50.0, 50.0, 0.0)
    a1 = Unit("a1", SW, "regular_cavalry", 48.0, 50.0, 180.0)
    a2 = Unit("a2", SW, "regular_cavalry", 52.0, 50.0, 180.0)
    sc, st = scen(), state(tercio, a1, a2)
    after, ev = run(sc, st, SW, "fight d dice=10,9,8,4,6")
    melee = the(ev, "melee")
    assert dice_of(melee) == ["d10", "d10", "d12", "d8", "d3"]
    assert melee.outcome["defence"] == 15
    assert [c["loser"] for c in melee.outcome["comparisons"]] == ["a1", "a2"]


def test_12E_pike_and_shot_rolls_d12_alone_and_adds_d8_against_two():
    """[12 E] L120: "Se l'unità è attaccata da una sola unità nemica lancia 1d12, se attaccata da
    due, aggiunge 1d8". One cavalry unit on the P&S's front: d10 against d12; two: d10, d10
    against d12 + d8."""
    sc = scen()
    ps = Unit("d", IM, "pike_and_shot", 50.0, 50.0, 0.0)
    st = state(ps, Unit("a1", SW, "regular_cavalry", 48.0, 50.0, 180.0))
    _, ev = run(sc, st, SW, "fight d dice=5,6")
    assert dice_of(the(ev, "melee")) == ["d10", "d12"]
    st2 = state(Unit("d", IM, "pike_and_shot", 50.0, 50.0, 0.0),
                Unit("a1", SW, "regular_cavalry", 48.0, 50.0, 180.0),
                Unit("a2", SW, "regular_cavalry", 52.0, 50.0, 180.0))
    _, ev2 = run(sc, st2, SW, "fight d dice=5,5,6,2")
    melee = the(ev2, "melee")
    assert dice_of(melee) == ["d10", "d10", "d12", "d8"] and melee.outcome["defence"] == 8


def test_12E_late_pike_and_shot_shoots_d10_and_fights_d10_plus_d6():
    """[12 E] L122: "l'unità "spara" con 1d10 e combatte con 1d10 più 1 eventuale d6, se attaccata
    da una seconda unità nemica". A late P&S shoots a d10 (a 10 is its face; 9 at 12 cm hits at
    long range) and, attacked by two, fights d10 + d6."""
    sc = scen()
    st = state(Unit("s", SW, "late_pike_and_shot", 50.0, 50.0, 0.0), Unit("t", IM, "musketeers", 50.0, 62.0, 180.0),
               card="shoot_a")
    after, ev = run(sc, st, SW, "shoot s t dice=10")
    assert the(ev, "shoot").inputs["die"] == 10 and after.units["t"].hits == 1
    st2 = state(Unit("d", IM, "late_pike_and_shot", 50.0, 50.0, 0.0),
                Unit("a1", SW, "regular_cavalry", 48.0, 50.0, 180.0),
                Unit("a2", SW, "regular_cavalry", 52.0, 50.0, 180.0))
    _, ev2 = run(sc, st2, SW, "fight d dice=5,5,10,6")
    melee = the(ev2, "melee")
    assert dice_of(melee) == ["d10", "d10", "d10", "d6"] and melee.outcome["defence"] == 16


# == [7 D] L81 ==========================================================================================

def test_7D_a_base_fires_twice_in_one_turn():
    """[7 D] L81: "alcune basette potranno sparare due volte durante lo stesso turno". Swedish
    musketeers shoot on their shoot card (d8 3 at 12 cm: a miss), which then passes; on the
    Imperial move card the cuirassiers (Cpts d6 4) charge their front; after the Imperial `next` the musketeers fire again
    at them, the contact fire at short range (d8 5: a hit) [3], [13]."""
    s = Unit("s", SW, "musketeers", 50.0, 50.0, 0.0)
    c = Unit("c", IM, "regular_cavalry", 50.0, 62.0, 180.0)
    wallenstein = General("w", IM, "cinc", 60.0, 70.0, 180.0)
    sc, st = scen(), state(s, c, card="shoot_a", deck=["move_b"], generals=[wallenstein])
    st, ev = run(sc, st, SW, "shoot s c dice=3,4")       # nothing else to shoot: the card passes
    assert not the(ev, "shoot").outcome["hit"] and st.units["s"].shot
    assert st.card == "move_b" and st.armies[IM].cpts == 4
    st, ev = run(sc, st, IM, "charge c s")
    assert st.units["s"].contacted_by == ["c"]
    st, ev = run(sc, st, IM, "next dice=5")
    fire = the(ev, "shoot")
    assert fire.inputs["contact"] and fire.inputs["band"] == "short" and fire.outcome["hit"]
    assert fire.inputs["shooter"] == "s"


# == [11 A] L110 ========================================================================================

def test_11A_forty_percent_rounded_up():
    """[11 A] L110: "il 40% (arrotondato per eccesso) del numero totale delle sue unità". The
    Swedes have 6 units (the 3 fillers and 3 musketeers): 40% is 2.4, rounded up 3. Two lost do
    not demoralise them; the third, shot down by the Imperials, does (HERALD D22, D56)."""
    gone = [Unit(f"x{i}", SW, "musketeers", 100.0 + 6 * i, 20.0, 0.0, status="destroyed") for i in range(2)]
    victim = Unit("v", SW, "musketeers", 50.0, 50.0, 0.0, hits=1)
    im = Unit("i", IM, "musketeers", 50.0, 53.0, 180.0)
    sc, st = scen(), state(victim, im, *gone, card="shoot_b")
    st.units.pop("sw-f2")                              # 2 fillers, the victim, 2 destroyed, sw-x: 6
    st.units["sw-x"] = Unit("sw-x", SW, "pikemen", 30.0, 5.0, 0.0)
    lo = checks.weighted_losses(sc, st, SW)
    assert (lo["total"], lo["demoralisation"], lo["demoralised_at"]) == (6, 2, 3)
    assert not st.armies[SW].demoralised
    after, ev = run(sc, st, IM, "shoot i v dice=5")
    assert after.units["v"].status == "destroyed"
    assert after.armies[SW].demoralised and the(ev, "demoralised").outcome["threshold"] == 3
    assert after.phase != "over"                       # 3 of 6 is not the 60% (4) of [14 A]


# == [4 E] L60 ===========================================================================================

def large_army(discipline="trained"):
    gens = [GeneralSpec("gus", SW, "Gustavus", "cinc", 90.0, 30.0, 0.0),
            GeneralSpec("horn", SW, "Horn", "wing", 30.0, 30.0, 0.0),
            GeneralSpec("baner", SW, "Baner", "wing", 150.0, 30.0, 0.0),
            GeneralSpec("tilly", IM, "Tilly", "cinc", 90.0, 100.0, 180.0)]
    specs = [UnitSpec("h1", SW, "Horn's horse", "regular_cavalry", 30.0, 40.0, 0.0, command="horn"),
             UnitSpec("c1", SW, "Centre foot", "musketeers", 90.0, 40.0, 0.0)]
    sc = scen((discipline, "regular"), generals=gens, units=specs)
    st = state(Unit("h1", SW, "regular_cavalry", 30.0, 40.0, 0.0), Unit("c1", SW, "musketeers", 90.0, 40.0, 0.0),
               card="shoot_a", deck=["move_a"],
               generals=[General(g.id, g.side, g.role, g.x, g.y, g.facing) for g in gens],
               discipline=(discipline, "regular"))
    st.options = {"rules": ["large-armies"]}
    return sc, st


def test_4E_wing_generals_roll_one_die_lower_and_units_pay_from_their_command():
    """[4 E] L60: the C-in-C "lancerà il dado corrispondente al tipo di esercito, mentre i generali
    delle ali avranno a disposizione un Dado pari ad un livello inferiore ... (esercito addestrato
    D6, esercito regolare D4, esercito irregolare D3)". A trained army under the large-army rule:
    Gustavus d8 8, the wings d6 (a 7 is no face of theirs); Horn's horse pays from Horn's pool,
    the centre's foot from Gustavus's (HERALD D121)."""
    sc, st = large_army()
    with pytest.raises(Illegal, match="not a face of a d6"):
        run(sc, st, SW, "next dice=8,7,6")
    st, ev = run(sc, st, SW, "next dice=8,2,1")
    cpts = the(ev, "cpts")
    assert dice_of(cpts) == ["d8", "d6", "d6"]
    assert st.armies[SW].pools == {"gus": 8, "baner": 2, "horn": 1} and st.armies[SW].cpts == 11
    st, ev = run(sc, st, SW, "move h1 advance 5")
    assert st.armies[SW].pools["horn"] == 0 and the(ev, "cpts_spent").outcome["pool"] == "horn"
    st, ev = run(sc, st, SW, "move c1 advance 5")
    assert st.armies[SW].pools["gus"] == 7
    assert [tables.cpt_die(d, "wing") for d in ("trained", "regular", "irregular")] == [6, 4, 3]
    assert [tables.cpt_die(d) for d in ("trained", "regular", "irregular")] == [8, 6, 4]


def test_4E_a_wing_pool_spent_refuses_the_wing_but_not_the_centre():
    """[4 E], [4 C] (HERALD D121): Horn's command rolled 1 (d6), so his second unit cannot move on
    Gustavus's Cpts; an irregular army's wing rolls a d3 (a d6's 6 read 3)."""
    sc, st = large_army()
    st.units["h2"] = Unit("h2", SW, "regular_cavalry", 34.0, 40.0, 0.0)
    sc = scen(("trained", "regular"), generals=sc.generals,
              units=list(sc.units) + [UnitSpec("h2", SW, "Horn's second", "regular_cavalry", 34.0, 40.0, 0.0,
                                               command="horn")])
    st, _ = run(sc, st, SW, "next dice=8,6,1")
    st, _ = run(sc, st, SW, "move h1 advance 2")
    with pytest.raises(Illegal, match="0 left in horn's command"):
        run(sc, st, SW, "move h2 advance 2")
    sc3, st3 = large_army("irregular")
    st3, ev = run(sc3, st3, SW, "next dice=4,6,6")
    assert dice_of(the(ev, "cpts")) == ["d4", "d3", "d3"] and st3.armies[SW].pools == {"gus": 4, "baner": 3, "horn": 3}


# == [12 A] L116 ==========================================================================================

def test_12A_a_captured_camp_counts_2_3_or_5():
    """[12 A] L116: the camp "al momento della loro cattura ... contano come 2 basette se
    l'esercito è addestrato, 3 se regolare, 5 se irregolare". Imperial cuirassiers ride into the
    ungarrisoned Swedish (trained) camp: it is captured and counts 2 in the Swedish losses, for
    demoralisation and victory; they loot it [12 A]."""
    from engine.lion.state import Camp
    c = Unit("c", IM, "regular_cavalry", 50.0, 30.0, 180.0)
    sc, st = scen(), state(c, card="move_b", generals=[General("w", IM, "cinc", 60.0, 40.0, 180.0)])
    st.camps[SW] = Camp(SW, 50.0, 15.0, 180.0)          # front edge y 15, body y 15-21
    st.armies[IM].cpts = st.armies[IM].cpts_rolled = 3
    after, ev = run(sc, st, IM, "move c advance 12")
    assert after.camps[SW].captured_by == IM and after.units["c"].looting
    lo = checks.weighted_losses(sc, after, SW)
    assert lo["demoralisation"] == 2 and lo["victory"] == 2
    assert [checks.camp_value(d) for d in ("trained", "regular", "irregular")] == [2, 3, 5]


# == [5 C] L66, [4 D] L54 =================================================================================

def test_5C_friends_passed_through_are_disordered_never_destroyed():
    """[5 C] L66: "E' possibile interpenetrare basette amiche disordinandole: nessun'unità viene
    distrutta da unità amiche che le interpenetrano". Swedish cuirassiers ride 12 cm through a
    musketeer in good order (now disordered) and a disordered one (still alive, still 1 hit)."""
    horse = Unit("h", SW, "regular_cavalry", 50.0, 40.0, 0.0)
    good = Unit("m1", SW, "musketeers", 50.0, 44.0, 0.0)
    shaken = Unit("m2", SW, "musketeers", 50.0, 48.0, 0.0, hits=1)
    sc, st = scen(), state(horse, good, shaken, card="move_a", generals=[General("g", SW, "cinc", 70.0, 30.0, 0.0)])
    st.armies[SW].cpts = st.armies[SW].cpts_rolled = 2
    after, ev = run(sc, st, SW, "move h advance 12")
    assert after.units["m1"].hits == 1 and after.units["m2"].hits == 1
    assert after.units["m2"].alive and after.units["h"].y == 52.0


def test_4D_no_triple_speed_and_no_forced_march_for_groups():
    """[4 D] L54: "Non sono permessi né movimenti a velocità tripla, né marce forzate per gruppi di
    unità"; a single unit's forced march doubles its move for 1 Cpt more (musketeers 20 cm for
    2 Cpts)."""
    a = Unit("a", SW, "musketeers", 50.0, 40.0, 0.0)
    b = Unit("b", SW, "musketeers", 54.0, 40.0, 0.0)
    sc, st = scen(), state(a, b, card="move_a", generals=[General("g", SW, "cinc", 70.0, 30.0, 0.0)])
    st.armies[SW].cpts = st.armies[SW].cpts_rolled = 4
    with pytest.raises(Illegal, match="never a group"):
        run(sc, st, SW, "move a+b advance 12 forced")
    with pytest.raises(Illegal, match="no triple speed"):
        run(sc, st, SW, "move a advance 25 triple")
    after, ev = run(sc, st, SW, "move a advance 20 forced")
    assert after.units["a"].y == 60.0 and after.armies[SW].cpts == 2


# == the audit's fixes ======================================================================================

def test_8A_a_lone_general_is_attacked_once_per_combat_card():
    """[8 A] L90 "Un'unità può combattere una mischia solo una volta per fase", [8 D], [9 C]
    (HERALD D120): Tilly alone, attacked on his front by cuirassiers who lose (d10 1 against his
    d4 4), cannot be attacked again on the same card by the horse on his left."""
    tilly = General("t", IM, "cinc", 100.0, 50.0, 0.0)
    a = Unit("a", SW, "regular_cavalry", 100.0, 50.0, 180.0)
    b = Unit("b", SW, "regular_cavalry", 99.0, 49.0, 90.0)
    other = Unit("o", IM, "musketeers", 140.0, 50.0, 0.0)         # a melee still to fight: the card stays
    c = Unit("c", SW, "regular_cavalry", 140.0, 50.0, 180.0)
    sc, st = scen(), state(a, b, other, c, generals=[tilly])
    after, ev = run(sc, st, SW, "fight t a dice=1,4")
    assert the(ev, "melee").outcome["comparisons"][0]["loser"] == "a"
    with pytest.raises(Illegal, match="already been attacked on this card"):
        run(sc, after, SW, "fight t b")


def test_10A_a_tercio_rallies_one_level_at_a_time():
    """[12 F] L124 "Un Tercio recupera, al massimo, un fattore di disordine per volta", [10 A]
    (HERALD D21): on the Swedish rally card a Tercio with 2 hits rolls d8 8 and keeps 1 hit; a
    musketeer unit rallying on the same card is in good order again."""
    t = Unit("t", SW, "tercio", 50.0, 30.0, 0.0, hits=2)
    m = Unit("m", SW, "musketeers", 90.0, 30.0, 0.0, hits=1)
    sc, st = scen(), state(t, m, card="shoot_a", deck=["rally_a"])
    after, ev = run(sc, st, SW, "next dice=6,8")
    rallies = {e.outcome["unit"]: e.outcome for e in ev if e.kind == "rally" and e.outcome}
    assert rallies["t"]["hits"] == 1 and rallies["t"]["rallied"]
    assert rallies["m"]["hits"] == 0


def test_generals_arrive_with_their_units_at_lutzen():
    """[11 B], [4] (HERALD D122): Pappenheim waits off the table, counting in the Imperial total,
    and arrives at the start of turn 3 with his cuirassiers."""
    from engine.lion.scenario import load_scenario
    from engine.lion.sequence import events as random_events
    from engine.lion.setup import new_state
    sc = load_scenario("lutzen")
    st = new_state(sc, 3)
    g = st.generals["pappenheim"]
    assert g.status == "waiting" and not g.alive
    total = checks.weighted_losses(sc, st, IM)["total"]
    st.turn = 2
    assert not random_events.general_arrivals(sc, st)
    st.turn = 3
    ev = random_events.arrivals(sc, st)
    assert st.generals["pappenheim"].alive and st.units["imp-papp1"].alive
    assert any(e.outcome.get("general") == "pappenheim" for e in ev if e.outcome)
    assert checks.weighted_losses(sc, st, IM)["total"] == total


def test_12G_a_battle_detaches_musketeers_from_a_pike_and_shot():
    """[12 G] L125 "unità di P&S, prima della partita, possono distaccare ciascuna fino ad un'unità
    di moschettieri" (HERALD D123): a battle's detached musketeers name their P&S, which starts
    shooting a die lower (d8 -> d6); a second detachment from it is refused."""
    from engine.lion.scenario import ScenarioError, load_scenario, parse_scenario
    from engine.lion.setup import new_state
    from pathlib import Path
    import engine.lion.scenario as scmod
    base = load_scenario("breitenfeld")
    ps = next(u for u in base.units if u.type == "pike_and_shot")
    text = (Path(scmod.__file__).parent / "scenarios" / "breitenfeld.toml").read_text(encoding="utf-8")

    def detachment(uid, x):
        return (f'\n[[units]]\nid = "{uid}"\nside = "{ps.side}"\nname = "Commanded shot"\n'
                f'type = "detached_musketeers"\nx = {x}\ny = {ps.y - 6 if ps.facing == 0 else ps.y + 6}\n'
                f'facing = {ps.facing:g}\ndetached_from = "{ps.id}"\n')
    sc = parse_scenario(text + detachment("det1", ps.x), "test")
    st = new_state(sc, 3)
    assert st.units[ps.id].detached_musketeers and not any(
        u.detached_musketeers for u in st.units.values() if u.id != ps.id)
    from engine.lion.fire.shoot import shooting_die
    assert shooting_die(sc, st, st.units[ps.id])[0] == 6
    with pytest.raises(ScenarioError, match="detached det1 already"):
        parse_scenario(text + detachment("det1", ps.x) + detachment("det2", ps.x + 5), "test")


def test_12A_looters_leave_on_4_6_a_general_adds_1():
    """[12 A] L116 "devono lanciare un d6 ...: con 1,2,3 le unità rimangono all'interno
    dell'accampamento e sono considerate come disordinate. La presenza di un generale con l'unità
    somma 1 al risultato del dado" (HERALD D54): a 3 alone stays (and may not move on the card); a
    3 with a general attached is 4 and leaves."""
    from engine.lion.state import Camp
    def looting(with_general):
        u = Unit("c", IM, "regular_cavalry", 50.0, 15.0, 180.0, looting=True)
        gens = [General("w", IM, "cinc", 50.0, 18.02, 180.0, attached_to="c" if with_general else "")]
        sc, st = scen(), state(u, card="move_b", generals=gens)
        st.camps[SW] = Camp(SW, 50.0, 15.0, 180.0, captured_by=IM, looters=["c"])
        st.armies[IM].cpts = st.armies[IM].cpts_rolled = 3
        return sc, st
    sc, st = looting(False)
    after, ev = run(sc, st, IM, "leave c dice=3")
    assert after.units["c"].looting and not the(ev, "leave_camp").outcome["left"]
    sc, st = looting(True)
    after, ev = run(sc, st, IM, "leave c dice=3")
    assert not after.units["c"].looting and the(ev, "leave_camp").outcome["total"] == 4


def test_11A_a_demoralised_army_pays_one_cpt_straight_to_its_own_edge():
    """[11 A] L110 "muovere un'unità od un gruppo di unità 'costa' 2 Cpts ... Tuttavia, se l'unità
    o il gruppo di unità muove direttamente verso il proprio bordo tavolo, senza terminare a
    contatto con unità nemiche, ciò 'costa' solo 1 Cpt" (HERALD D70): demoralised Swedes (home
    edge south) pay 1 for musketeers facing south that advance 5, 2 for musketeers advancing north,
    3 for those 45 cm from their general."""
    back = Unit("b", SW, "musketeers", 50.0, 40.0, 180.0)
    fwd = Unit("f", SW, "musketeers", 70.0, 40.0, 0.0)
    far = Unit("x", SW, "musketeers", 140.0, 40.0, 0.0)
    sc, st = scen(), state(back, fwd, far, card="move_a", generals=[General("g", SW, "cinc", 60.0, 30.0, 0.0)])
    st.armies[SW].demoralised = True
    st.armies[SW].cpts = st.armies[SW].cpts_rolled = 6
    st, ev = run(sc, st, SW, "move b advance 5")
    assert the(ev, "cpts_spent").outcome["cost"] == 1
    st, ev = run(sc, st, SW, "move f advance 5")
    assert the(ev, "cpts_spent").outcome["cost"] == 2
    st, ev = run(sc, st, SW, "move x advance 5")
    assert the(ev, "cpts_spent").outcome["cost"] == 3 and st.armies[SW].cpts == 0
