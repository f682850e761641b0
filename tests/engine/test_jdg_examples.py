"""The worked examples of the Jours de Gloire rulebook (the purple examples and comments of the
printed book; jours-de-gloire.it.txt, the line numbers L<n>), each played on a position built on
the Marengo map through JDG.apply with given dice, asserting the text's outcome.
tests/engine/test_jdg_coverage.py lists the examples and checks that each is played here.

Dice: `dice=` gives die faces 1-based, so a d10 read r (0-9, [0.4]) is supplied as r + 1.
Facing (flat map): 0 E, 1 SE, 2 SW, 3 W, 4 NW, 5 NE. Around 1319 the ground is clear and level.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.jdg import geometry, tables
from engine.jdg.ruleset import JDG
from engine.jdg.scenario import Hexside
from engine.jdg.state import Activation

E, SE, SW, W, NW, NE = range(6)


def marengo(seed=7, options=None):
    """Marengo at the start with every unit taken off the map, to place only the test's."""
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, seed, options)
    for u in st.units.values():
        u.hex, u.status = None, "off_map"
    st.pending = None
    return sc, st


def place(st, uid, hex_id, facing, condition="good"):
    u = st.units.pop(uid)
    u.hex, u.facing, u.condition, u.status = hex_id, facing, condition, "active"
    st.units[uid] = u                              # it enters under the units already there [5.1]
    return u


def activate(st, side, formation, orders="with", step="movement", turn=2):
    """`formation` of `side` activated at `step`, With or Without Orders [2.4]; every other
    formation With Orders and revealed."""
    st.phase, st.turn = "activation", turn
    for f in st.formations.values():
        f.orders, f.revealed = "with", True
    st.formations[formation].orders = orders
    st.activation = Activation(f"{formation}-1", side, [formation], step=step,
                               with_orders=orders == "with")


def run(sc, st, side, line):
    return JDG.apply(sc, st, side, parse(line))


def the(events, kind):
    return next(e for e in events if e.kind == kind)


def mods(event):
    return {m.reason: m.value for m in event.modifiers}


# == [4.1] L211 ================================================================================

def test_4_1_a_4_mp_unit_without_orders_has_2_mp():
    """[4.1] L211: "un'unità con 4 PM di capacità avrà una capacità totale di 2 PM qualora sia
    Senza Ordini". IR 53 (4 MP), its formation Without Orders, moves 2 clear hexes; a third is
    refused; With Orders it goes 4."""
    sc, st = marengo()
    assert next(u for u in sc.units if u.id == "a-ir53").mp == 4
    place(st, "a-ir53", "1319", E)
    activate(st, "austrian", "hadik-kaim", orders="without")
    with pytest.raises(Illegal, match="1 MP, 0 left"):
        run(sc, st, "austrian", "move a-ir53 1419 1519 1619")
    st2, ev = run(sc, st, "austrian", "move a-ir53 1419 1519")
    move = the(ev, "move")
    assert move.outcome["mp_allowance"] == 2 and move.outcome["mp_spent"] == 2
    assert st2.units["a-ir53"].hex == "1519"
    activate(st, "austrian", "hadik-kaim", orders="with")
    st3, ev = run(sc, st, "austrian", "move a-ir53 1419 1519 1619 1719")
    assert the(ev, "move").outcome["mp_allowance"] == 4 and st3.units["a-ir53"].hex == "1719"


# == [8.6] L539: the force ratio ================================================================

def test_8_6_eight_against_three_assaults_at_2_to_1():
    """[8.6] L539: "un'unità di 8 punti forza che attacca un'unità di 3 punti forza assalta con un
    rapporto di 2:1" (8/3 = 2.67, rounded in the defender's favour). The 24e Légère (8, cohesion 7)
    assaults the Mariassy Jäger (3, cohesion 6) in the open: 2:1 +2, cohesion +1, open +1; d10 5
    gives 9, the 5-9 band: the Jäger fall back and check cohesion (d10 3 <= 6, passed)."""
    sc, st = marengo()
    place(st, "f-24e-leg", "1319", E)
    place(st, "a-mariassy", "1419", W)
    activate(st, "french", "chambarlhac")
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=6,4")
    roll = the(ev, "assault")
    assert mods(roll)["force ratio 2:1"] == 2
    assert tables.force_ratio_column(8, 3).label == "2:1"            # 2.67 has no column of its own
    assert roll.outcome["total"] == 5 + 2 + 1 + 1 and roll.outcome["result"] == "fall_back"
    jager = st.units["a-mariassy"]
    assert jager.hex != "1419" and jager.condition == "good"
    step = the(ev, "retreat_step")
    assert step.narrative.startswith(f"Mariassy Jager (a-mariassy) falls back 1419 -> {jager.hex}")
    assert st.units["f-24e-leg"].hex == "1419"                      # it advanced [8.7]


def test_8_6_five_against_six_assaults_at_1_to_1_5():
    """[8.6] L539: "Se 5 punti forza avessero attaccato 6 punti forza, il rapporto sarebbe di
    1:1.5" (5/6 rounded in the defender's favour). The Banal battalion (5, cohesion 5) assaults
    the 72e (6, cohesion 7) in the open: 1:1.5 -1, cohesion -2, open +1; d10 9 gives 7, the 5-9
    band: the 72e falls back and checks (d10 8 > 7, failed: disordered)."""
    sc, st = marengo()
    place(st, "a-banal", "1319", E)
    place(st, "f-72e", "1419", W)
    activate(st, "austrian", "oreilly")
    st, _ = run(sc, st, "austrian", "assault a-banal on 1419")
    st, ev = run(sc, st, "austrian", "resolve dice=10,9")
    roll = the(ev, "assault")
    assert mods(roll)["force ratio 1:1.5"] == -1
    assert mods(roll)["cohesion 5 vs 7"] == -2
    assert roll.outcome["total"] == 9 - 1 - 2 + 1 and roll.outcome["result"] == "fall_back"
    assert st.units["f-72e"].hex != "1419" and st.units["f-72e"].condition == "disordered"


# == [8.5] L534: a second disorder routs ========================================================

def test_8_5_a_second_disorder_routs_the_defender():
    """[8.5] L534: the results bring "ogni altro effetto eventualmente indotto (ad esempio, rotta
    conseguente ad un secondo risultato di disordine)". The 24e Légère assaults IR 53, already
    disordered: 8 on 7 is 1:1 0, cohesion 7 vs its reduced 3 +4 (HERALD D2), open +1; d10 5
    gives 10: the defender falls back and is disordered a second time, so it routs and retreats
    2 more hexes ([10.2] L708, HERALD D45): 3 hexes from 1419 in all."""
    sc, st = marengo()
    place(st, "f-24e-leg", "1319", E)
    place(st, "a-ir53", "1419", W, condition="disordered")
    activate(st, "french", "chambarlhac")
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=6")
    roll = the(ev, "assault")
    assert roll.outcome["total"] == 10 and roll.outcome["result"] == "breakthrough"
    ir53 = st.units["a-ir53"]
    assert ir53.condition == "routed" and ir53.alive
    assert geometry.distance(sc, ir53.hex, "1419") == 3
    assert any(e.kind == "routed" for e in ev)


# == [8.7] L555: advancing across a steep slope ==================================================

def test_8_7_infantry_advancing_across_a_steep_slope_is_disordered():
    """[8.7] L555: an advance "dentro o attraverso un esagono che la disorganizzerebbe (ad
    esempio, fanteria attraverso un pendio ripido)" disorders the unit. A steep slope is drawn
    between 1319 and 1419 (1419 one level up: no Marengo hexside is one). 24e Légère on the
    Mariassy Jäger: 2:1 +2, cohesion +1, open +1, uphill across the steep slope -2 (HERALD,
    tables.UPHILL_ASSAULT); d10 8 gives 10: the Jäger fall back disordered, the 24e advances
    into 1419 and is disordered by the slope."""
    sc, st = marengo()
    slope = Hexside("1319", "E", "1419", "steep_slope")
    key = frozenset(("1319", "1419"))
    sides = {**sc.map.hexsides, key: sc.map.hexsides.get(key, ()) + (slope,)}
    sc = replace(sc, map=replace(sc.map, hexsides=sides, elevation={**sc.map.elevation, "1419": 1}))
    place(st, "f-24e-leg", "1319", E)
    place(st, "a-mariassy", "1419", W)
    activate(st, "french", "chambarlhac")
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=9")
    roll = the(ev, "assault")
    assert mods(roll)["attacking uphill across a steep slope"] == -2
    assert roll.outcome["total"] == 8 + 2 + 1 + 1 - 2 and roll.outcome["result"] == "breakthrough"
    leg = st.units["f-24e-leg"]
    assert leg.hex == "1419" and leg.condition == "disordered"
    assert any(e.kind == "disordered" and e.section.startswith("JdG [8.7]") for e in ev)


# == [8.8] L575: refusing into an enemy ZoC =====================================================

def test_8_8_cavalry_refusing_into_an_enemy_frontal_zoc_is_disordered():
    """[8.8] L575: "Esempio: indietreggiare in una ZoC nemica comporta una disorganizzazione
    supplementare (cfr. 10.3.)". The Bussy chasseurs (good order) refuse the 24e Légère's assault
    and fall back one hex to 1520, a frontal hex of the 96e (1521, facing NE): one disorder. HERALD
    D32 reads the rule of 10.3 (L750): only an enemy's frontal hexes disorder, so falling back to
    1420, in the 96e's flank ZoC, leaves them in good order."""
    sc, st = marengo()
    place(st, "f-24e-leg", "1319", E)
    place(st, "f-96e", "1521", NE)
    place(st, "a-bussy-ch", "1419", W)
    activate(st, "french", "chambarlhac")
    front = geometry.frontal_hexes(sc, st.units["f-96e"])
    assert "1520" in front and "1420" not in front
    assert "1420" in geometry.grid(sc).neighbors("1521")           # a flank ZoC hex of the 96e
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, _ = run(sc, st, "french", "resolve")
    assert st.pending["kind"] == "refuse_assault" and st.pending["side"] == "austrian"
    into_front, ev = run(sc, st, "austrian", "react refuse 1520")
    bussy = into_front.units["a-bussy-ch"]
    assert bussy.hex == "1520" and bussy.condition == "disordered"
    assert "assault" not in [e.kind for e in ev]
    assert into_front.units["f-24e-leg"].hex == "1419"              # the infantry advances [8.8]
    into_flank, _ = run(sc, st, "austrian", "react refuse 1420")
    assert into_flank.units["a-bussy-ch"].hex == "1420"
    assert into_flank.units["a-bussy-ch"].condition == "good"


# == [10.3] L750: a routed unit retreating into a frontal ZoC ======================================

def test_10_3_a_routed_unit_retreating_into_an_enemy_front_is_eliminated():
    """[10.3] L750: "Quindi, un'unità in rotta che si ritira in una ZoC frontale nemica è
    eliminata". IR 53, already disordered, is assaulted by the 24e Légère from 1319; d10 5 gives
    10 (1:1 0, cohesion 7 vs its reduced 3 +4, open +1): it falls back to 1520 and its second
    disorder routs it ([8.5] L534); its 2-hex retreat [10.2] enters 1620, a frontal hex of the 96e
    (1721, facing W): the extra disorder eliminates the routed unit. The Austrian player answers
    each step of the path (policy "ask", engine/jdg/combat/retreat.py)."""
    sc, st = marengo()
    place(st, "f-24e-leg", "1319", E)
    place(st, "f-96e", "1721", W)
    place(st, "a-ir53", "1419", W, condition="disordered")
    activate(st, "french", "chambarlhac")
    st.policies["austrian"] = {"retreat": "ask"}
    assert "1620" in geometry.frontal_hexes(sc, st.units["f-96e"])
    st, _ = run(sc, st, "french", "assault f-24e-leg on 1419")
    st, ev = run(sc, st, "french", "resolve dice=6")
    assert the(ev, "assault").outcome["total"] == 10
    while st.pending and st.pending["kind"] == "retreat":
        options = st.pending["options"]
        step = next(h for h in ("1520", "1620") if h in options)
        st, ev = run(sc, st, "austrian", f"react {step}")
    ir53 = st.units["a-ir53"]
    assert ir53.status == "eliminated" and not ir53.alive


# == optional [8.3] L878: line infantry under 7 never reaches 9 =====================================

def test_II_8_3_line_infantry_under_7_fires_in_reaction_in_vain():
    """Optional [8.3] L878: "è inutile effettuare fuoco di reazione con fanteria di linea di
    coesione o di forza inferiore a 7: è impossibile ottenere un risultato di 9 col dado". No
    Marengo line battalion is under 7 in both, so the 96e Ligne (line, cohesion 6) is given a
    counter of strength 6: assaulted by IR 53, it fires in reaction (option 'line-infantry-fire')
    with its best die, 9: line -1 and no +1 give 8, below the Fire Table's first band (9, [7.5]),
    so nothing happens; the same die from the real 96e (strength 9: +1) reaches 9."""
    def assaulted(strength):
        sc, st = marengo(options=["line-infantry-fire"])
        units = tuple(replace(u, strength=strength) if u.id == "f-96e" else u for u in sc.units)
        sc = replace(sc, units=units)
        place(st, "a-ir53", "1319", E)
        place(st, "f-96e", "1419", W)
        activate(st, "austrian", "hadik-kaim")
        st, _ = run(sc, st, "austrian", "assault a-ir53 on 1419")
        return sc, st
    sc, st = assaulted(6)
    st, ev = run(sc, st, "austrian", "resolve dice=10,5,3")       # fire 9; assault 4 +1 open; CC 2
    shot = the(ev, "fire")
    assert shot.outcome["total"] == 9 - 1 and shot.outcome["result"] == "none"
    assert not any(e.kind == "cohesion_check" and e.outcome["unit"] == "a-ir53" for e in ev)
    assert st.units["a-ir53"].condition == "good" and st.units["a-ir53"].hex == "1419"
    sc, st = assaulted(9)
    st, ev = run(sc, st, "austrian", "resolve dice=10,1,10,1")    # fire 9; CC 0; assault 9; CC 0
    shot = the(ev, "fire")
    assert shot.outcome["total"] == 9 and shot.outcome["result"] == "check"
