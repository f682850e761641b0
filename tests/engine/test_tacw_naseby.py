"""TACW Naseby (14 June 1645): the scenario file against the book's order of battle, its map, the
validator, the special rules (the Bard brigade without pikes, the red wagon, Okey's independent
dragoons, the optional Royalist guns, the King's Lifeguard printed in one hex) and a scripted
opening of two full turns.

The order of battle below is hard-coded from the digest §7.5 (rules/digests/tacw.md), checked
against the Italian setup ("NASEBY", rules/tacw.it.txt); it is deliberately not read from the
file under test. Dice in a command are die FACES (1-10): `dice=8` rolls a 7.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.core.facing import double_facings
from engine.tacw import rules, victory
from engine.tacw.close_combat import resolution as resolution
from engine.tacw.geometry import in_command
from engine.tacw.scenario.schema import SCENARIO_DIR, ScenarioError, load_scenario, parse_scenario
from engine.tacw.battles.special_data import special_of
from engine.tacw.setup import new_state

R, P = "royalist", "parliament"
C, H, L, A, W = "cavalry", "heavy", "light", "artillery", "wagon"

# (side, wing, kind, strength, morale, hexes) -- digest §7.5, every counter.
BOOK_OOB = [
    # Royalist right wing (cavalry), WC Rupert
    (R, "r-right", C, 3, 8, ("2006",)), (R, "r-right", C, 2, 8, ("2008",)),
    (R, "r-right", C, 2, 8, ("2010",)), (R, "r-right", C, 3, 8, ("2012",)),
    (R, "r-right", L, 1, 4, ("2007",)), (R, "r-right", L, 1, 4, ("2009",)),
    (R, "r-right", C, 3, 8, ("1806",)), (R, "r-right", C, 3, 7, ("1808",)),
    (R, "r-right", C, 3, 7, ("1810",)),
    # Royalist centre, WC Astley (with the reserve)
    (R, "r-centre", H, 8, 8, ("2013", "2014")), (R, "r-centre", H, 9, 8, ("2016", "2017")),
    (R, "r-centre", H, 10, 8, ("2019", "2020")),
    (R, "r-centre", C, 3, 7, ("1916",)), (R, "r-centre", C, 3, 7, ("1917",)),
    (R, "r-centre", C, 3, 7, ("1918",)),
    (R, "r-centre", H, 4, 7, ("1814",)), (R, "r-centre", H, 4, 7, ("1816",)),
    (R, "r-centre", H, 4, 7, ("1818",)),
    (R, "r-centre", C, 2, 8, ("1516",)), (R, "r-centre", H, 7, 8, ("1516", "1517")),
    (R, "r-centre", C, 3, 7, ("1519",)), (R, "r-centre", C, 3, 7, ("1520",)),
    # Royalist left wing (cavalry), WC Langdale
    (R, "r-left", C, 3, 7, ("2021",)), (R, "r-left", C, 3, 7, ("2022",)),
    (R, "r-left", C, 3, 7, ("2023",)), (R, "r-left", L, 1, 4, ("1922",)),
    (R, "r-left", L, 1, 4, ("1923",)), (R, "r-left", C, 3, 7, ("1822",)),
    (R, "r-left", C, 2, 6, ("1823",)),
    # Parliament right wing (cavalry), WC Cromwell
    *[(P, "p-right", C, 3, m, (h,)) for h, m in (("2920", 7), ("2921", 7), ("2922", 7), ("2923", 8),
                                                  ("2924", 8), ("3026", 7), ("3120", 7), ("3121", 7),
                                                  ("3122", 7), ("3322", 7))],
    (P, "p-right", C, 2, 6, ("3123",)), (P, "p-right", C, 2, 6, ("3321",)),
    # Parliament centre, WC Skippon
    *[(P, "p-centre", L, 1, 4, (h,)) for h in ("2611", "2613", "2615", "3915")],
    *[(P, "p-centre", A, 0, None, (h,)) for h in ("2814", "2818", "2812", "2816")],
    (P, "p-centre", H, 10, 7, ("2910", "2911")), (P, "p-centre", H, 10, 6, ("2912", "2913")),
    (P, "p-centre", H, 10, 6, ("2914", "2915")), (P, "p-centre", H, 7, 6, ("2916", "2917")),
    (P, "p-centre", H, 8, 7, ("2918", "2919")), (P, "p-centre", H, 5, 6, ("3112",)),
    (P, "p-centre", H, 8, 7, ("3115", "3116")), (P, "p-centre", H, 10, 6, ("3118", "3119")),
    (P, "p-centre", H, 4, 6, ("3314",)), (P, "p-centre", W, 1, 4, ("3915",)),
    # Parliament left wing (cavalry), WC Ireton
    *[(P, "p-left", C, 3, 7, (h,)) for h in ("2902", "2903", "2905", "2906", "2908", "2909",
                                             "3104", "3105", "3107", "3108")],
    # Independent: Okey's dragoons behind the Sulby hedges
    *[(P, "p-okey", L, 2, 6, (h,)) for h in ("2501", "2401", "2301")],
]
OPTIONAL_GUNS = [(R, "r-centre", A, 0, None, ("2015",)), (R, "r-centre", A, 0, None, ("2018",))]


@pytest.fixture(scope="module")
def sc():
    return load_scenario("naseby")


def text() -> str:
    return (SCENARIO_DIR / "naseby.toml").read_text(encoding="utf-8")


def game(seed=11, **kw):
    sc = load_scenario("naseby")
    st, events = rules.start(sc, new_state(sc, seed, **kw))
    return sc, st, events


def go(sc, st, side, line):
    return rules.apply(sc, st, side, parse(line))


# == the file against the book ====================================================================

def test_file_loads_with_the_books_frame(sc):
    assert (sc.title, sc.date, sc.turns, sc.start_time) == ("Naseby", "14 June 1645", 15, "about 10 a.m.")
    assert sc.sides[R].army_commander == "charles" and sc.sides[R].senior_wc == "rupert"
    assert sc.sides[P].army_commander == "fairfax" and sc.sides[P].senior_wc == "cromwell"
    assert sc.edges == {R: "west", P: "east"}
    assert [(b.level, b.min, b.max) for b in sc.victory_bands] == [
        ("parliament_decisive", 60, None), ("parliament_marginal", 30, 59), ("draw", 10, 29),
        ("royalist_marginal", -19, 9), ("royalist_decisive", None, -20)]
    assert sc.historical_result == "parliament_decisive"
    assert sc.historical_orders == {"r-right": "charge", "r-centre": "charge", "r-left": "receive_charge",
                                    "p-right": "make_ready", "p-centre": "receive_charge",
                                    "p-left": "make_ready", "p-okey": "receive_charge"}
    assert sc.leader("rupert").value == -2 and sc.leader("rupert").value_source == "book"
    assert all(ld.value_source == "herald" for ld in sc.leaders if ld.id != "rupert")
    assert sc.leader("charles").special == "king" and sc.leader("cromwell").special == "cromwell"


def test_order_of_battle_is_the_books(sc):
    got = Counter((u.side, u.wing, u.kind, u.strength, None if u.kind == A else u.morale, u.hexes)
                  for u in sc.units)
    assert got == Counter(BOOK_OOB + OPTIONAL_GUNS)


def test_the_map_holds_every_hex_the_book_names(sc):
    named = {h for *_, hexes in BOOK_OOB + OPTIONAL_GUNS for h in hexes}
    assert named <= set(sc.grid)
    assert (sc.cols, sc.rows) == (40, 26)


def test_every_unit_on_a_legal_hex(sc):
    for u in sc.units:
        for h in u.hexes:
            assert h in sc.grid and not sc.hex_impassable(h), u.id
        if len(u.hexes) == 2:
            assert u.kind == H and sc.grid.adjacent(*u.hexes)
            assert u.facing in double_facings(sc.grid, *u.hexes), u.id
    by_hex: dict[str, list] = {}
    for u in sc.units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    crowded = {h: sorted(u.kind for u in us) for h, us in by_hex.items() if len(us) > 1}
    # the only stacks: the book's two (the wagon with its guard; the King's Lifeguard in 1516)
    assert crowded == {"3915": [L, W], "1516": [C, H]}


def test_map_features(sc):
    """Herald's map after the ground: Dust Hill's and Mill Hill's crests with Broadmoor between,
    the Sulby hedges in front of Okey's dragoons, the warren on Parliament's right."""
    assert sc.crossing("1806", "1706") == "slope_up" and sc.crossing("1706", "1806") == "slope_down"
    assert sc.crossing("2710", "2810") == "slope_up"            # up Mill Hill to the guns' crest
    assert sc.crossing("2401", "2402") == "hedge" and sc.crossing("2301", "2302") == "hedge"
    assert sc.hexside_blocks_los("2401", "2402")
    assert all(sc.terrain_at(f"{c}14") == "clear" for c in range(22, 27))     # Broadmoor
    assert sc.terrain_at("2626") == "thicket" and sc.terrain_at("4015") == "village"
    assert {lb.text for lb in sc.labels} >= {"Dust Hill", "Mill Hill", "Broadmoor", "Sulby hedges", "Naseby"}


def test_everyone_starts_in_command_but_the_baggage(sc):
    _, st, _ = game()
    out = sorted(u.id for u in st.units.values() if u.alive and not in_command(sc, st, u))
    assert out == ["p-baggage-guard", "p-red-wagon"]


# == the validator refuses broken copies =========================================================

@pytest.mark.parametrize("old, new, message", [
    ('hexes = ["3026"]', 'hexes = ["3027"]', "is not a hex of the 40x26 map"),
    ('[[special.setup_stacks]]\nhex = "1516"', '[[special.setup_stacks]]\nhex = "1517"',
     "does not stand in 1517"),
    ('[[special.setup_stacks]]\nhex = "1516"\nunit = "r-kings-lg"\nreason', 'reasonx', "unknown key"),
    ('hexes = ["3322"]', 'hexes = ["3915"]', "a wagon stands alone or with ONE friendly"),
    ('hexes = ["2812"]', 'hexes = ["3915"]', "a wagon stands alone or with ONE friendly"),
    ('option = "royalist-artillery"', 'option = "royalist-guns"', "no optional rule 'royalist-guns'"),
    ('unit = "p-red-wagon"', 'unit = "p-baggage-guard"', "is a light, not a wagon"),
    ('capture_vp = 10', 'capture_vp = 500', "is not 0..100"),
])
def test_validator_refuses_a_broken_copy(old, new, message):
    src = text()
    assert old in src
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(src.replace(old, new, 1), "naseby-copy.toml")
    assert message in str(exc.value)


def test_without_its_exception_1516_is_overstacked():
    src = text()
    start = src.index("[[special.setup_stacks]]")
    end = src.index("\n[provenance]\n") + 1
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(src[:start] + src[end:], "naseby-copy.toml")
    assert "hex 1516" in str(exc.value) and "(§8)" in str(exc.value)


# == the Bard brigade has no pikes (special rule) ================================================

def test_the_bard_brigade_may_not_form_hedgehog(sc):
    assert sorted(u.id for u in sc.units if u.no_hedgehog) == ["r-i-bard", "r-ii-bard"]
    _, st, _ = game()
    st, _ = go(sc, st, R, "activate r-centre")
    with pytest.raises(Illegal) as exc:
        go(sc, st, R, "hedgehog r-ii-bard")
    assert "may not form a hedgehog (scenario rule)" in str(exc.value) and "§6.3.2" in str(exc.value)
    with pytest.raises(Illegal) as exc:        # Page (4-7) is refused by his Charge orders instead
        go(sc, st, R, "hedgehog r-page")
    assert "scenario rule" not in str(exc.value)


def _cavalry_attacks_bard_and_page(sc):
    """Parliament horse (on Charge, free orders) attacks II/Bard (1816) from 1916 and Page (1814)
    from 1914: the same 4-7 single heavy units, on the same clear ground, from the front."""
    orders = {"p-right": "charge", "p-left": "charge", "p-centre": "charge",
              "r-right": "make_ready", "r-centre": "make_ready"}
    _, st, _ = game(seed=5, orders=orders)
    for side in (R, P):
        st.policies.setdefault(side, {})["reaction_fire"] = "never"
    assert st.initiative == P
    st, _ = go(sc, st, P, "activate p-right")
    for uid in ("r-i-howard", "r-ii-howard", "r-iii-howard"):
        st.units[uid].status, st.units[uid].hexes = "eliminated", []
    st.units["p-i-11"].hexes, st.units["p-ii-11"].hexes = ["1916"], ["1914"]
    st.units["p-i-11"].facing = st.units["p-ii-11"].facing = 3          # West
    st, _ = go(sc, st, P, "close")
    st, _ = go(sc, st, P, "attack p-i-11 1816")
    st, _ = go(sc, st, P, "attack p-ii-11 1814")
    st, events = go(sc, st, P, "resolve")
    return st, [e for e in events if e.kind == "close_combat" and e.dice]


def test_bard_minus_one_when_attacked_by_cavalry(sc):
    """D28: the -1 is a penalty to Bard: the attacking cavalry adds +1 (resolution.py already keys the
    modifier on the scenario's `no_hedgehog` mark, tables_combat `naseby_bard_vs_cavalry`)."""
    _, st, _ = game()
    cav, bard, page = st.units["p-i-11"], st.units["r-ii-bard"], st.units["r-page"]
    mods_bard, _ = resolution.combat_modifiers(sc, st, [cav], bard)
    mods_page, _ = resolution.combat_modifiers(sc, st, [cav], page)
    extra = [m for m in mods_bard if "Bard" in m.reason]
    assert [(m.value, m.section) for m in extra] == [(+1, "TACW Naseby special rule")]
    assert sum(m.value for m in mods_bard) == sum(m.value for m in mods_page) + 1
    # through the engine: the two combats differ by that modifier alone
    st, rolls = _cavalry_attacks_bard_and_page(sc)
    assert len(rolls) == 2
    by_target = {("bard" if any("Bard" in m.reason for m in e.modifiers) else "page"): e for e in rolls}
    assert set(by_target) == {"bard", "page"}
    assert sorted((m.reason, m.value) for m in by_target["bard"].modifiers if "Bard" not in m.reason) == \
        sorted((m.reason, m.value) for m in by_target["page"].modifiers)


def test_bard_takes_no_penalty_from_infantry(sc):
    _, st, _ = game()
    foot = st.units["p-pride-i-4th"]
    mods, _ = resolution.combat_modifiers(sc, st, [foot], st.units["r-ii-bard"])
    assert not [m for m in mods if "Bard" in m.reason]


# == the red wagon (HERALD: stacking, capture, VP) ================================================

def _wagon_game(**kw):
    sc, st, _ = game(**kw)
    st.units["p-baggage-guard"].hexes = ["3913"]            # the guard has walked off
    st.units["r-rupert"].hexes = ["3815"]                  # Rupert's horse next to the wagon
    st.leaders["rupert"].hex = "3815"
    return sc, st


def test_wagon_moves_two_mp_and_stacks_with_its_guard(sc):
    assert special_of(sc).wagons[0].unit == "p-red-wagon"
    _, st, _ = game()
    assert {u.id for u in st.units_at("3915")} == {"p-red-wagon", "p-baggage-guard"}
    for side, line in ((R, "activate r-right"), (R, "stop"), (R, "activate r-centre"), (R, "stop"),
                       (P, "activate p-right"), (P, "stop"), (P, "activate p-left"), (P, "stop"),
                       (R, "activate r-left"), (R, "stop"), (P, "activate p-centre")):
        st, _ = go(sc, st, side, line)
    st, events = go(sc, st, P, "move p-red-wagon 3815")
    assert st.units["p-red-wagon"].hexes == ["3815"] and "1 of 2 MP" in events[0].narrative
    assert [u.id for u in st.units_at("3915")] == ["p-baggage-guard"]


@pytest.mark.parametrize("options, vp", [(None, 0), (["red-wagon-prize"], 10)])
def test_unguarded_wagon_next_to_the_enemy_is_captured_at_the_end_of_the_activation(sc, options, vp):
    """The book gives the wagon a hex ("1 x Vagone rosso in 3915") and no victory points: its
    10 VP are the optional rule red-wagon-prize, off by default (D115)."""
    sc, st = _wagon_game(options=options)
    st, _ = go(sc, st, R, "activate r-right")
    assert st.units["p-red-wagon"].alive                   # not during the activation
    st, events = go(sc, st, R, "stop")
    (ev,) = [e for e in events if e.kind == "wagon_captured"]
    assert ev.actor == R and "HERALD" in ev.section and ev.outcome["vp"] == vp
    assert ("10 VP to the Royalist" in ev.narrative) == bool(vp)
    wagon = st.units["p-red-wagon"]
    assert (wagon.status, wagon.captured_by, wagon.hexes) == ("eliminated", R, [])
    assert victory.victory_points(sc, st)[R] == ({"wagons captured": 10} if vp else {})
    assert st.vp == {R: vp, P: 0}


def test_the_wagon_prize_is_an_optional_rule_off_by_default(sc):
    from engine.core.game import game_options, get_ruleset
    assert "red-wagon-prize" in [oid for oid, _ in game_options(get_ruleset("tacw"), sc)]
    assert special_of(sc).wagons[0].vp_option == "red-wagon-prize"
    assert "red-wagon-prize" not in game()[1].options


def test_guarded_or_safe_wagon_is_not_captured(sc):
    sc, st = _wagon_game()
    st.units["p-baggage-guard"].hexes = ["3915"]           # the guard is back with it
    st.units["r-rupert"].hexes = ["3814"]
    st, _ = go(sc, st, R, "activate r-right")
    st, events = go(sc, st, R, "stop")
    assert st.units["p-red-wagon"].alive and not [e for e in events if e.kind == "wagon_captured"]
    sc, st = _wagon_game()
    st.units["r-rupert"].morale_state = "broken"           # a Broken unit takes nothing
    st, _ = go(sc, st, R, "activate r-right")
    st, events = go(sc, st, R, "stop")
    assert st.units["p-red-wagon"].alive and victory.victory_points(sc, st)[R] == {}


def test_wagon_neither_fights_nor_is_assaulted(sc):
    sc, st = _wagon_game()
    st.units["r-rupert"].facing = 0                          # East: 3915 in its front
    st, _ = go(sc, st, R, "activate r-right")
    st, _ = go(sc, st, R, "close")
    with pytest.raises(Illegal) as exc:
        go(sc, st, R, "attack r-rupert 3915")
    assert "wagons" in str(exc.value)


# == Okey's independent command ===================================================================

def test_okey_activates_as_a_wing_of_his_own_on_receive_charge(sc):
    w = sc.wing("p-okey")
    assert (w.commander, w.cavalry, w.historical_order) == ("okey", False, "receive_charge")
    assert [u.id for u in sc.wing_units("p-okey")] == ["p-okey-dragoons-1", "p-okey-dragoons-2",
                                                      "p-okey-dragoons-3"]
    assert all(u.light_kind == "dragoons" for u in sc.wing_units("p-okey"))
    assert sc.leader("okey").role == "wc" and sc.leader("okey").value == 0


# == the optional Royalist guns ===================================================================

def test_optional_royalist_guns_only_when_chosen(sc):
    _, st, _ = game()
    assert "r-falcons-1" not in st.units and "r-falcons-2" not in st.units
    _, st, _ = game(options=["royalist-artillery"])
    guns = [st.units["r-falcons-1"], st.units["r-falcons-2"]]
    assert [(u.hexes, u.gun_class, u.wing) for u in guns] == [(["2015"], "3lb", "r-centre"),
                                                             (["2018"], "3lb", "r-centre")]
    assert "royalist-artillery" in st.options


# == a scripted opening: two full turns ===========================================================

OPENING = [
    # turn 1: the Royalists have the initiative (two wings on Charge to none)
    (R, "activate r-right"), (R, "move r-rupert 2106 2206 2306 2406"), (R, "stop"),
    (R, "activate r-centre"), (R, "move r-newark-i 1619 1719"), (R, "stop"),
    (P, "activate p-right"), (P, "stop"), (P, "activate p-left"), (P, "stop"),
    (R, "activate r-left"), (R, "stop"),
    (P, "activate p-centre"), (P, "move p-red-wagon 3815"), (P, "stop"),
    (P, "activate p-okey"), (P, "stop"),
    # turn 2
    (R, "activate r-right"), (R, "move r-queens 2110 2210 2310"), (R, "continue dice=1"),
    (R, "move r-i-maurice 2112 2212"), (R, "stop"),
    (R, "activate r-centre"), (R, "stop"),
    (P, "activate p-left"), (P, "move p-i-2 2802 2702"), (P, "stop"),
    (P, "activate p-right"), (P, "stop"),
    (R, "activate r-left"), (R, "stop"),
    (P, "activate p-okey"), (P, "stop"),
    (P, "activate p-centre"), (P, "stop"),
]


def test_scripted_opening_two_full_turns():
    sc, st, events = game(seed=11)
    assert [e.kind for e in events] == ["initiative"] and st.initiative == R
    log = list(events)
    for side, line in OPENING:
        st, events = go(sc, st, side, line)
        log += events
    assert (st.turn, st.phase, st.initiative) == (3, "activation", R)
    assert [e.narrative for e in log if e.kind == "initiative"] == [
        f"Turn {t}: Royalist has the initiative (more wings on Charge (2 to 0))" for t in (1, 2, 3)]
    u = st.units
    assert (u["r-rupert"].hexes, u["r-newark-i"].hexes, u["r-queens"].hexes) == (["2406"], ["1719"], ["2310"])
    assert (u["r-i-maurice"].hexes, u["p-i-2"].hexes, u["p-red-wagon"].hexes) == (["2212"], ["2702"], ["3815"])
    # down Mill Hill's slope (27|28): a formation hit (§7.3.1, Terrain table "+1*")
    assert u["p-i-2"].formation == "disordered"
    (down,) = [e for e in log if e.kind == "move" and e.narrative.startswith("I/2")]
    assert "slope down" in down.narrative
    (cont,) = [e for e in log if e.kind == "continuation"]
    assert cont.outcome["success"] and cont.base == 0 and (-1, "cavalry wing") in [(m.value, m.reason) for m in cont.modifiers]
    assert not [m for m in cont.modifiers if "surprise" in m.reason]       # no Naseby surprise
    assert st.units["p-red-wagon"].alive and not [e for e in log if e.kind == "wagon_captured"]
    assert all(w.order == sc.wing(w.id).historical_order for w in st.wings.values())
    # the log replays to the same state
    again = game(seed=11)[1]
    for side, line in OPENING:
        again, _ = go(sc, again, side, line)
    assert again.state_hash() == st.state_hash()


def test_a_lone_wagon_is_no_target_and_stacks_only_with_one_single_hex_unit(sc):
    """HERALD D115: never fired at (fire.combat_units_at); it stacks like a gun with one
    single-hex foot or horse unit (stacking.stack_problem / final_stack_problem)."""
    from engine.tacw.fire.small_arms import enemy_target
    from engine.tacw.movement.stacking import final_stack_problem, stack_problem
    sc, st = _wagon_game()
    rupert = st.units["r-rupert"]
    assert enemy_target(st, rupert, "3915") is None                   # the lone wagon
    st.units["p-baggage-guard"].hexes = ["3915"]
    assert enemy_target(st, rupert, "3915").id == "p-baggage-guard"   # its guard is the target
    st.units["p-baggage-guard"].hexes = ["3913"]
    horse = next(u for u in st.units.values() if u.side == P and u.kind == C and u.alive)
    assert stack_problem(st, [horse], "3915") == (None, None)
    double = next(u for u in st.units.values() if u.side == P and u.is_double)
    assert "wagon" in stack_problem(st, [double], "3915")[0]
    st.units["p-baggage-guard"].hexes = ["3915"]
    assert "wagon" in stack_problem(st, [horse], "3915")[0]           # the guard already there
    horse.hexes = ["3915"]
    assert "wagon" in final_stack_problem(st, "3915")
