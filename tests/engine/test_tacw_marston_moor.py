"""TACW Marston Moor (2 July 1644): the scenario file against the book's order of battle, its map,
the validator, the special rules (command rivalry between three Allied Army Commanders, surprise,
the reserve under Prince Rupert, the York contingent's four options and the entry of its units),
the free placements, and a scripted opening of two full turns.

The order of battle below is hard-coded from the digest §7.3 (rules/digests/tacw.md), checked
against the Italian setup ("MARSTON MOOR", rules/tacw.it.txt); it is deliberately not read from
the file under test. Dice in a command are die FACES (1-10): `dice=8` rolls a 7.
"""
from __future__ import annotations

from collections import Counter

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.core.facing import double_facings
from engine.tacw import rules
from engine.tacw.geometry import in_command
from engine.tacw.scenario.schema import SCENARIO_DIR, ScenarioError, load_scenario, parse_scenario
from engine.tacw.battles.special_data import special_of
from engine.tacw.setup import new_state
from engine.tacw.tables import MARSTON_MOOR_AC_TABLE

R, P = "royalist", "parliament"
C, H, L, A = "cavalry", "heavy", "light", "artillery"

# (side, wing, kind, strength, morale, hexes) -- digest §7.3, every counter with a fixed hex
# (the York contingent as option 1 places it; the reserve's wing is Herald's id).
BOOK_FIXED = [
    # Royalist right wing (cavalry), WC Byron
    (R, "r-right", H, 12, 8, ("2307", "2308")), (R, "r-right", C, 4, 7, ("2108",)),
    (R, "r-right", C, 3, 8, ("2202",)), (R, "r-right", C, 2, 7, ("2204",)),
    (R, "r-right", C, 3, 7, ("2206",)), (R, "r-right", C, 2, 7, ("2001",)),
    (R, "r-right", A, 0, None, ("2204",)),
    (R, "r-right", C, 2, 7, ("1802",)), (R, "r-right", C, 3, 7, ("1804",)),
    (R, "r-right", C, 2, 7, ("1806",)), (R, "r-right", C, 4, 8, ("1808",)),
    # Royalist centre, WC Tillier
    *[(R, "r-centre", H, s, 7, (h,)) for s, h in ((5, "2110"), (5, "2112"), (4, "2114"), (5, "2116"),
                                                  (4, "2118"), (4, "2120"), (4, "2122"), (5, "2124"))],
    (R, "r-centre", H, 5, 7, ("1917",)), (R, "r-centre", H, 4, 7, ("1919",)),
    (R, "r-centre", H, 3, 6, ("1921",)), (R, "r-centre", H, 5, 7, ("1923",)),
    # the York contingent, option 1
    (R, "r-centre", H, 5, 7, ("1911",)), (R, "r-centre", H, 5, 6, ("1913",)),
    (R, "r-centre", H, 5, 6, ("1915",)),
    *[(R, "r-centre", H, 4, 5, (h,)) for h in ("1710", "1712", "1714")],
    # the reserve, under Prince Rupert
    (R, "r-reserve", C, 2, 8, ("1515",)), (R, "r-reserve", C, 4, 7, ("1517",)),
    (R, "r-reserve", C, 3, 7, ("1718",)), (R, "r-reserve", C, 2, 6, ("1719",)),
    # Royalist left wing (cavalry), WC Goring
    (R, "r-left", C, 2, 7, ("2125",)), (R, "r-left", C, 2, 7, ("2127",)),
    (R, "r-left", C, 4, 7, ("2229",)), (R, "r-left", C, 3, 7, ("2330",)),
    (R, "r-left", C, 4, 7, ("1926",)), (R, "r-left", C, 4, 7, ("1928",)),
    (R, "r-left", C, 2, 7, ("2130",)),
    # Allied right wing (cavalry), WC T. Fairfax
    *[(P, "p-right", C, 3, 7, (h,)) for h in ("2922", "2923", "2924", "2925", "2926")],
    *[(P, "p-right", L, 2, 5, (h,)) for h in ("2923", "2924", "2925")],
    (P, "p-right", L, 2, 6, ("2927",)),
    *[(P, "p-right", C, 3, 6, (h,)) for h in ("3122", "3123", "3124", "3125")],
    (P, "p-right", C, 4, 6, ("3321",)), (P, "p-right", C, 4, 6, ("3323",)), (P, "p-right", C, 3, 6, ("3325",)),
    # Allied centre, WC Lumsden
    (P, "p-centre", H, 14, 8, ("2908", "2909")), (P, "p-centre", H, 13, 8, ("2911", "2912")),
    (P, "p-centre", H, 10, 8, ("2914", "2915")), (P, "p-centre", H, 12, 7, ("2917", "2918")),
    (P, "p-centre", H, 12, 7, ("2920", "2921")),
    *[(P, "p-centre", H, 10, 6, hs) for hs in (("3109", "3110"), ("3112", "3113"), ("3115", "3116"),
                                               ("3118", "3119"))],
    (P, "p-centre", H, 10, 8, ("3308", "3309")), (P, "p-centre", H, 10, 8, ("3311", "3312")),
    (P, "p-centre", H, 12, 6, ("3314", "3315")), (P, "p-centre", H, 13, 8, ("3317", "3318")),
    (P, "p-centre", H, 10, 6, ("3512", "3513")),
    # Allied left wing (cavalry), WC Cromwell
    (P, "p-left", C, 4, 7, ("2904",)), (P, "p-left", C, 3, 8, ("2905",)), (P, "p-left", C, 3, 8, ("2906",)),
    (P, "p-left", C, 4, 8, ("2907",)), *[(P, "p-left", L, 2, 5, (h,)) for h in ("2905", "2906", "2907")],
    (P, "p-left", L, 2, 6, ("2903",)), (P, "p-left", L, 2, 6, ("2902",)),
    (P, "p-left", C, 4, 7, ("3103",)), (P, "p-left", C, 3, 7, ("3104",)), (P, "p-left", C, 4, 7, ("3105",)),
    (P, "p-left", C, 3, 7, ("3106",)),
    (P, "p-left", C, 4, 7, ("3303",)), (P, "p-left", C, 4, 6, ("3305",)), (P, "p-left", C, 3, 6, ("3307",)),
]
# (side, wing, kind or gun class, strength-morale, count, the book's placement) -- free placements
BOOK_FREE = Counter({
    (R, "r-right", "commanded_shot", (1, 4)): 5, (R, "r-left", "commanded_shot", (1, 4)): 5,
    (R, "r-centre", "commanded_shot", (1, 4)): 4,
    (R, "r-centre", "culverin", None): 1, (R, "r-centre", "saker", None): 3, (R, "r-centre", "3lb", None): 1,
    (P, "p-centre", "culverin", None): 2, (P, "p-centre", "saker", None): 5, (P, "p-centre", "3lb", None): 3,
})
ROYAL_GUN_ROWS = {f"{c}{r:02d}" for c in (21, 22) for r in range(11, 25)}        # 21xx/22xx, xx11-xx24
SCOTS_GUN_ROWS = {f"28{r:02d}" for r in range(8, 23)} | {f"29{r:02d}" for r in range(8, 22)}


@pytest.fixture(scope="module")
def sc():
    return load_scenario("marston-moor")


def text() -> str:
    return (SCENARIO_DIR / "marston-moor.toml").read_text(encoding="utf-8")


def go(sc, st, side, line):
    return rules.apply(sc, st, side, parse(line))


def game(seed=21, options=None):
    """A new game with Herald's suggested free placements accepted (`deploy done` each side)."""
    sc = load_scenario("marston-moor")
    st, events = rules.start(sc, new_state(sc, seed, options=options))
    assert st.phase == "deployment"            # the free placements come first
    for side in (R, P):
        st, ev = go(sc, st, side, "deploy done")
        events += ev
    return sc, st, events


# == the file against the book ====================================================================

def test_file_loads_with_the_books_frame(sc):
    assert (sc.title, sc.date, sc.turns, sc.start_time) == ("Marston Moor", "2 July 1644", 5, "about 7 p.m.")
    assert sc.sides[R].army_commander == "rupert" and sc.leader("rupert").hex == "1515"
    assert sc.sides[R].senior_wc == "goring"
    assert sorted(ld.id for ld in sc.leaders if ld.side == P and ld.role == "ac") == ["f-fairfax", "leven", "manchester"]
    assert sc.leader("cromwell").hex == "2907" and sc.leader("cromwell").special == "cromwell"
    assert sc.leader("rupert").value == -2 and sc.leader("rupert").value_source == "book"
    assert sc.historical_orders == {"r-right": "charge", "r-centre": "receive_charge", "r-left": "receive_charge",
                                    "r-reserve": "receive_charge", "p-right": "charge", "p-centre": "charge",
                                    "p-left": "charge"}
    assert [(b.level, b.min, b.max) for b in sc.victory_bands] == [      # D24's reading
        ("parliament_decisive", 50, None), ("parliament_marginal", 20, 49), ("draw", 0, 19),
        ("royalist_marginal", -20, -1), ("royalist_decisive", None, -21)]
    assert sc.historical_result == "parliament_decisive"
    assert [r.id for r in sc.optional_rules] == ["york-1", "york-2", "york-3", "york-4"]


def test_order_of_battle_is_the_books(sc):
    fixed = [u for u in sc.units if not u.area]
    got = Counter((u.side, u.wing, u.kind, u.strength, None if u.kind == A else u.morale, u.hexes)
                  for u in fixed)
    assert got == Counter(BOOK_FIXED)
    free = Counter((u.side, u.wing, u.light_kind or u.gun_class,
                    (u.strength, u.morale) if u.kind == L else None) for u in sc.units if u.area)
    assert free == BOOK_FREE
    assert sum(u.side == R for u in sc.units) == 59 and sum(u.side == P for u in sc.units) == 56


def test_free_placements_lie_where_the_book_says(sc):
    by_hex: dict[str, list] = {}
    for u in sc.units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    for u in sc.units:
        if not u.area:
            continue
        (h,) = u.hexes
        assert h in sc.deployment_areas[u.area].hexes, u.id
        if u.kind == A:
            assert h in (ROYAL_GUN_ROWS if u.side == R else SCOTS_GUN_ROWS), u.id
        elif u.wing == "r-centre":
            assert h[:2] == "22" and 11 <= int(h[2:]) <= 24, u.id          # row 22xx, 2211-2224
        else:
            assert u.deploy_rule == "stacked_or_adjacent_any"
            others = [o for x in sc.grid.neighbors(h) + [h] for o in by_hex.get(x, []) if o.id != u.id]
            assert others, u.id                  # stacked with or adjacent to another unit
    assert sorted(sc.deployment_areas) == ["p-scots-guns", "r-centre-guns", "r-centre-shot",
                                           "r-left-shot", "r-right-shot"]
    assert set(sc.deployment_areas["r-centre-guns"].hexes) == ROYAL_GUN_ROWS
    assert set(sc.deployment_areas["p-scots-guns"].hexes) == SCOTS_GUN_ROWS


def test_every_unit_on_a_legal_hex(sc):
    named = {h for *_, hexes in BOOK_FIXED for h in hexes} | {"1031"}
    assert named <= set(sc.grid) and (sc.cols, sc.rows) == (36, 31)
    for u in sc.units:
        for h in u.hexes:
            assert h in sc.grid and not sc.hex_impassable(h), u.id
        if len(u.hexes) == 2:
            assert u.kind == H and u.facing in double_facings(sc.grid, *u.hexes), u.id
    by_hex: dict[str, list] = {}
    for u in sc.units:
        for h in u.hexes:
            by_hex.setdefault(h, []).append(u)
    for h, us in by_hex.items():
        kinds = sorted(u.kind for u in us)
        assert len(us) <= 2 and len({u.side for u in us}) == 1, h
        assert len(us) == 1 or kinds == [C, L] or kinds.count(A) == 1, h


def test_map_features(sc):
    """The ditch and hedge along the lane (open at Tockwith), the rye field, Marston glebe,
    Wilstrop Wood, the Allied crest, Tockwith and Long Marston."""
    assert sc.crossing("2305", "2405") == "hedge"             # in front of the right wing
    assert sc.crossing("2215", "2315") == "hedge"             # in front of the centre's shot
    assert sc.crossing("2330", "2430") == "hedge"             # and of the left wing
    assert sc.crossing("2301", "2401") is None                # it dies out near Tockwith
    assert sc.terrain_at("2614") == "ploughed" and sc.terrain_at("2315") == "ploughed"   # rye
    assert sc.terrain_at("1214") == "clear"                    # the moor
    assert sc.terrain_at("2627") == "hedge" and sc.terrain_at("0405") == "wood"
    assert sc.terrain_at("3001") == "village" and sc.terrain_at("3130") == "village"
    assert sc.crossing("3210", "3310") == "slope_up"
    assert {r.name for r in sc.roads} == {"Tockwith - Long Marston lane", "road from York"}


def test_everyone_starts_in_command(sc):
    _, st, _ = game()
    assert [u.id for u in st.units.values() if u.alive and not in_command(sc, st, u)] == []


# == the validator refuses broken copies =========================================================

@pytest.mark.parametrize("old, new, message", [
    ('hexes = ["3325"]', 'hexes = ["3332"]', "is not a hex of the 36x31 map"),
    ('  { rolls = "9", army_commander = "" },\n', '', "the rows must end at 9"),
    ('{ rolls = "7-8", army_commander = "leven" }', '{ rolls = "7-8", army_commander = "cromwell" }',
     "'cromwell' is not one of the army_commanders"),
    ('army_commanders = ["leven", "manchester", "f-fairfax"]', 'army_commanders = ["leven", "manchester"]',
     "'f-fairfax' is not one of the army_commanders (leven, manchester)"),
    ('"p-reserve",', '', "'p-reserve' has no colour"),
    ('"leven", "lumsden"', '"leven", "lumsden", "r-warren"', "'r-warren' is not a parliament unit or leader"),
    ('ac_wings = ["r-reserve"]', 'ac_wings = []', "'rupert' must be a royalist wing commander"),
    ('hex = "1031"', 'hex = "1032"', "'1032' is not a hex of the 36x31 map"),
    ('default = "york-1"', 'default = "york-5"', "a default among them"),
    ('option = "york-3"\nunits = ["r-york-i"', 'option = "york-9"\nunits = ["r-york-i"', "no optional rule 'york-9'"),
    ('value = -1\nreason', 'value = 0\nreason', "is not -3..3 (and not 0)"),
    ('hexes = ["2212"]', 'hexes = ["2312"]', "outside its area 'r-centre-shot'"),
])
def test_validator_refuses_a_broken_copy(old, new, message):
    src = text()
    assert old in src, old
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(src.replace(old, new, 1), "marston-copy.toml")
    assert message in str(exc.value)


def test_several_army_commanders_only_with_a_rivalry_naming_them_all():
    src = text().replace('army_commanders = ["leven", "manchester", "f-fairfax"]',
                         'army_commanders = ["leven", "manchester"]')
    src = src.replace('army_commander = "f-fairfax"', 'army_commander = ""')
    src = src.replace(', f-fairfax = "t-fairfax" }', ' }')
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(src, "marston-copy.toml")
    assert "parliament needs exactly one army commander (role \"ac\"), has 3" in str(exc.value)


# == special rule 1: command rivalry ==============================================================

@pytest.mark.parametrize("face, expect", [(1, "manchester"), (4, "manchester"), (5, "f-fairfax"),
                                          (7, "f-fairfax"), (8, "leven"), (9, "leven"), (10, "")])
def test_rivalry_roll_table_rows(face, expect):
    sc, st, _ = game()
    st, events = go(sc, st, P, f"activate p-centre dice={face}")
    (ev,) = [e for e in events if e.kind == "command_rivalry"]
    roll = face - 1
    assert ev.section == "TACW Marston Moor special rule 1" and ev.table == "Marston Moor command rivalry"
    assert [(d.purpose, d.die, d.result) for d in ev.dice] == [("command rivalry", "d10", roll)]
    assert ev.row == {0: "0-3", 3: "0-3", 4: "4-6", 6: "4-6", 7: "7-8", 8: "7-8", 9: "9"}[roll]
    assert ev.outcome["army_commander"] == expect
    # the scenario's table is the book's (tables.MARSTON_MOOR_AC_TABLE)
    assert MARSTON_MOOR_AC_TABLE.lookup(roll).replace("_", "-").replace("none", "") == expect
    if expect:
        assert sc.leader(expect).name in ev.narrative
    else:
        assert "no Army Commander acts" in ev.narrative


def test_only_the_activated_army_commander_acts(sc):
    sc, st, _ = game()
    st, _ = go(sc, st, P, "activate p-centre dice=8")                 # 7: Leven
    for who in ("manchester", "f-fairfax"):
        with pytest.raises(Illegal) as exc:
            go(sc, st, P, f"leader {who} move 3314")
        assert "activated Alexander Leslie, Earl of Leven" in str(exc.value)
    st2, events = go(sc, st, P, "leader ac move 3114")                 # `ac` names the active one
    assert st2.leaders["leven"].hex == "3114" and events[0].kind == "leader_move"
    sc, st, _ = game()
    st, _ = go(sc, st, P, "activate p-centre dice=10")                # 9: none
    for who in ("leven", "manchester", "f-fairfax", "ac"):
        with pytest.raises(Illegal) as exc:
            go(sc, st, P, f"leader {who} move 3214")
        assert "no Army Commander" in str(exc.value)
    # the rivalry is the Allies' only: Rupert acts as usual in a Royalist activation
    st = game()[1]
    for line in ("activate p-left", "stop"):
        st, _ = go(sc, st, P, line)
    st, _ = go(sc, st, R, "activate r-right")
    st, events = go(sc, st, R, "leader rupert move 1614")
    assert st.leaders["rupert"].hex == "1614"
    assert not [e for e in events if e.kind == "command_rivalry"]


def test_an_army_commander_influences_only_units_of_his_colour(sc):
    colours = special_of(sc).rivalry.colours
    assert colours["manchester"] == colours["f-fairfax"] == "red" and colours["leven"] == "green"
    assert colours["p-v-lumsden"] == "green" and colours["p-manchester-foot"] == "red"
    sc, st, _ = game()
    st, _ = go(sc, st, P, "activate p-centre dice=1")                 # 0: Manchester (red)
    st.leaders["manchester"].hex = "3316"                             # between V/Lumsden and his foot
    st.units["p-v-lumsden"].formation = st.units["p-manchester-foot"].formation = "disordered"
    with pytest.raises(Illegal) as exc:
        go(sc, st, P, "leader manchester reform p-v-lumsden")
    assert "influences only units of his colour" in str(exc.value) and "green" in str(exc.value)
    st, events = go(sc, st, P, "leader ac reform p-manchester-foot")
    assert st.units["p-manchester-foot"].formation == "normal"
    assert any("Manchester" in e.narrative for e in events)


@pytest.mark.parametrize("face, wing, ac, spot, lends", [
    (8, "p-centre", "leven", "3113", True),         # Leven (green) next to Lumsden (green)
    (1, "p-centre", "manchester", "3113", False),   # Manchester (red): not for Lumsden's wing
    (1, "p-left", "manchester", "3007", True),      # Manchester next to Cromwell (red), both red
    (5, "p-left", "leven", "3007", False),          # F. Fairfax activated: Leven beside Cromwell lends nothing
])
def test_an_army_commander_lends_his_value_only_when_activated_and_of_the_wc_colour(face, wing, ac, spot, lends):
    sc, st, _ = game()
    st.leaders[ac].hex = spot
    st.leaders[ac].value = -1          # so that a lent value shows (Manchester's is 0)
    st, _ = go(sc, st, P, f"activate {wing} dice={face}")
    st, events = go(sc, st, P, "continue dice=9")
    (ev,) = [e for e in events if e.kind == "continuation"]
    acs = [m for m in ev.modifiers if m.reason.startswith("Army Commander")]
    assert bool(acs) == lends
    if lends:
        assert acs[0].value == -1 and sc.leader(ac).name in acs[0].reason


# == special rule 2: surprise =====================================================================

def test_surprise_on_turn_one_only():
    sc, st, _ = game()
    st, _ = go(sc, st, P, "activate p-left dice=8")
    st, events = go(sc, st, P, "continue dice=7")                      # a 6
    (ev,) = [e for e in events if e.kind == "continuation"]
    assert ("Allied surprise on turn 1 (Marston Moor special rule 2)", -1) in [(m.reason, m.value) for m in ev.modifiers]
    assert ev.base == 6 and ev.outcome["success"]                      # 6 -1 -1 -1 = 3: just enough
    # the Royalists have no surprise
    st, _ = go(sc, st, P, "stop")
    st, _ = go(sc, st, R, "activate r-right")
    st, events = go(sc, st, R, "continue dice=1")
    (ev,) = [e for e in events if e.kind == "continuation"]
    assert not [m for m in ev.modifiers if "surprise" in m.reason]


def test_surprise_helps_an_allied_bypass_on_turn_one():
    sc, st, _ = game()
    st.policies.setdefault(P, {})["bypass"] = "ask"
    st, _ = go(sc, st, P, "activate p-left dice=10")
    st, _ = go(sc, st, P, "stop")
    st, _ = go(sc, st, R, "activate r-right")
    assert st.pending["kind"] == "bypass" and st.pending["side"] == P
    st, events = go(sc, st, P, "bypass p-centre dice=5")
    (ev,) = [e for e in events if e.kind == "bypass" and e.dice]
    assert ("Allied surprise on turn 1 (Marston Moor special rule 2)", -1) in [(m.reason, m.value) for m in ev.modifiers]


# == the reserve under Prince Rupert (digest G4) ==================================================

def test_the_reserve_is_commanded_by_rupert_himself(sc):
    assert special_of(sc).ac_wings == ("r-reserve",) and sc.wing("r-reserve").commander == "rupert"
    sc, st, _ = game()
    for side, line in ((P, "activate p-left dice=10"), (P, "stop"), (R, "activate r-right"), (R, "stop"),
                       (P, "activate p-centre dice=10"), (P, "stop"), (P, "activate p-right dice=10"),
                       (P, "stop")):
        st, _ = go(sc, st, side, line)
    st, _ = go(sc, st, R, "activate r-reserve")
    st, _ = go(sc, st, R, "leader rupert move 1614")                  # his one AC action
    with pytest.raises(Illegal):
        go(sc, st, R, "leader rupert move 1613")
    st.leaders["rupert"].hex = "1515"
    st, events = go(sc, st, R, "continue dice=1")
    (ev,) = [e for e in events if e.kind == "continuation"]
    # his value counts once, as the reserve's commander; no surprise for the Royalists
    assert sorted((m.value, m.reason) for m in ev.modifiers) == [
        (-2, "Wing Commander Prince Rupert"), (-1, "cavalry wing")]


# == the York contingent (options 1-4) and entering at 1031 =======================================

def test_york_options(sc):
    york = ["r-york-i", "r-york-ii", "r-york-iii"]
    white = ["r-whitecoats-i", "r-whitecoats-ii", "r-whitecoats-iii"]
    status = lambda st, ids: [st.units[u].status if u in st.units else None for u in ids]  # noqa: E731
    st = new_state(sc, 1)
    assert "york-1" in st.options and status(st, york + white) == ["active"] * 6
    assert st.units["r-york-ii"].hexes == ["1712"]
    st = new_state(sc, 1, options=["york-2"])
    assert status(st, white) == ["active"] * 3 and status(st, york) == ["waiting"] * 3
    assert all(st.units[u].hexes == [] for u in york)
    st = new_state(sc, 1, options=["york-3"])
    assert status(st, white) == ["waiting"] * 3 and status(st, york) == [None] * 3
    st = new_state(sc, 1, options=["york-4"])
    assert status(st, york + white) == [None] * 6
    with pytest.raises(ScenarioError) as exc:
        new_state(sc, 1, options=["york-2", "york-3"])
    assert "choose one of york-1, york-2, york-3, york-4" in str(exc.value)


def _to_royal_centre(sc, st):
    for side, line in ((P, "activate p-left dice=10"), (P, "stop"), (R, "activate r-right"), (R, "stop"),
                       (P, "activate p-centre dice=10"), (P, "stop"), (P, "activate p-right dice=10"),
                       (P, "stop"), (R, "activate r-centre")):
        st, _ = go(sc, st, side, line)
    return st


def test_york_units_enter_at_1031_in_their_wings_activation():
    sc, st, _ = game(options=["york-2"])
    with pytest.raises(Illegal) as exc:
        go(sc, st, P, "enter r-york-i")
    assert "not one of your units" in str(exc.value)
    st, _ = go(sc, st, P, "activate p-left dice=10")
    st, _ = go(sc, st, P, "stop")
    st, _ = go(sc, st, R, "activate r-right")
    with pytest.raises(Illegal) as exc:
        go(sc, st, R, "enter r-york-i")
    assert "activation of its own wing (Royalist centre)" in str(exc.value)
    st, _ = go(sc, st, R, "stop")
    for line in ("activate p-centre dice=10", "stop", "activate p-right dice=10", "stop"):
        st, _ = go(sc, st, P, line)
    st, _ = go(sc, st, R, "activate r-centre")
    with pytest.raises(Illegal) as exc:
        go(sc, st, R, "enter r-whitecoats-i")
    assert "is not waiting to enter the map" in str(exc.value)
    st, events = go(sc, st, R, "enter r-york-i 1030")
    assert [e.kind for e in events][:2] == ["enter", "move"] and "1031" in events[0].narrative
    assert st.units["r-york-i"].hexes == ["1030"] and st.units["r-york-i"].status == "active"
    assert "r-york-i" in st.activation.acted                           # entering was its action
    st, events = go(sc, st, R, "enter r-york-ii")                      # entering alone, no steps
    assert st.units["r-york-ii"].hexes == ["1031"]
    with pytest.raises(Illegal) as exc:
        go(sc, st, R, "enter r-york-iii")
    assert "1031 holds York II" in str(exc.value)


def test_an_enemy_next_to_the_entry_hex_cuts_the_road():
    sc, st, _ = game(options=["york-3"])
    st = _to_royal_centre(sc, st)
    st.units["p-balgonie"].hexes = ["1030"]
    with pytest.raises(Illegal) as exc:
        go(sc, st, R, "enter r-whitecoats-i")
    assert "the road is cut" in str(exc.value)


# == a scripted opening: two full turns ===========================================================

OPENING = [
    (P, "activate p-left"), (P, "move p-i-manchester 2804 2704 2604 2504"),
    (P, "move p-iii-ironsides 2805 2705 2605"), (P, "continue dice=7"), (P, "stop"),
    (R, "activate r-right"), (R, "move r-urry 2305"), (R, "stop"),
    (P, "activate p-centre"), (P, "fire p-culverins-1 2215"), (P, "fire p-sakers-3 2213"), (P, "stop"),
    (P, "activate p-right"), (P, "stop"),
    (R, "activate r-centre"), (R, "enter r-york-i 1030"), (R, "stop"),
    (R, "activate r-reserve"), (R, "leader rupert move 1614"), (R, "stop"),
    (R, "activate r-left"), (R, "stop"),
    # turn 2: the same die fails a continuation without the surprise
    (P, "activate p-left"), (P, "continue dice=7"),
    (R, "activate r-right"), (R, "stop"),
    (P, "activate p-centre"), (P, "stop"), (P, "activate p-right"), (P, "stop"),
    (R, "activate r-centre"), (R, "move r-york-i 1029"), (R, "enter r-york-ii 1030"), (R, "stop"),
    (R, "activate r-reserve"), (R, "stop"), (R, "activate r-left"), (R, "stop"),
]


def test_scripted_opening_two_full_turns():
    sc, st, log = game(seed=21, options=["york-2"])
    for side, line in OPENING:
        st, events = go(sc, st, side, line)
        log += events
    assert (st.turn, st.phase, st.initiative) == (3, "activation", P)
    assert [e.narrative for e in log if e.kind == "initiative"] == [
        f"Turn {t}: Parliament has the initiative (more wings on Charge (1 to 3))" for t in (1, 2, 3)]
    # one rivalry roll per Allied activation, the turn-1 continuation included
    rivalry = [e.outcome["army_commander"] for e in log if e.kind == "command_rivalry"]
    assert rivalry == ["", "f-fairfax", "manchester", "leven", "f-fairfax", "", "manchester"]
    conts = [e for e in log if e.kind == "continuation"]
    assert [(e.base, sum(m.value for m in e.modifiers), e.outcome["success"]) for e in conts] == \
        [(6, -3, True), (6, -2, False)]
    assert st.leaders["cromwell"].finished is False                    # Finished markers come off
    u = st.units
    assert (u["p-i-manchester"].hexes, u["p-iii-ironsides"].hexes, u["r-urry"].hexes) == (["2504"], ["2605"], ["2305"])
    assert u["p-scots-shot-left-1"].hexes == ["2605"]                  # the stacked shot went along
    assert (u["r-york-i"].hexes, u["r-york-ii"].hexes, u["r-york-iii"].status) == (["1029"], ["1030"], "waiting")
    assert st.leaders["rupert"].hex == "1614"
    # the counter-battery fire of the Scots guns across the ditch (their targets stand on it)
    shots = [e.narrative for e in log if e.kind == "fire" and "fires at" in e.narrative]
    assert [n.split(":")[0] for n in shots if "in reaction" not in n] == [
        "12 lb Culverins (p-culverins-1) (2813) fires at 12 lb Culverins (r-culverins) (2215, range 6)",
        "4-8 lb Sakers (p-sakers-3) (2814) fires at 4-8 lb Sakers (r-sakers-1) (2213, range 6)"]
    assert u["r-sakers-1"].morale_state == "shaken" and u["r-culverins"].morale_state == "normal"
    again = game(seed=21, options=["york-2"])[1]
    for side, line in OPENING:
        again, _ = go(sc, again, side, line)
    assert again.state_hash() == st.state_hash()


def test_a_stacked_army_commander_counts_in_a_morale_check_only_for_his_colour(sc):
    """HERALD D120 through morale.stacked_leader: Manchester (red) adds nothing to a green unit."""
    from engine.tacw.morale.checks import stacked_leader
    sc, st, _ = game()
    green, red = st.units["p-v-lumsden"], st.units["p-manchester-foot"]
    st.leaders["manchester"].hex = green.hexes[0]
    assert stacked_leader(st, green) is not None                         # without the scenario: anyone
    assert stacked_leader(st, green, sc) is None
    st.leaders["manchester"].hex = red.hexes[0]
    assert stacked_leader(st, red, sc).id == "manchester"


def test_a_fallen_allied_army_commander_is_replaced_by_his_own_senior_wing_commander(sc):
    """The book names a senior WC per Allied AC (Lumsden for Leven, Cromwell for Manchester,
    T. Fairfax for F. Fairfax); §5.3.5 as Herald reads it (R7) puts him in the AC's place."""
    from engine.tacw.sequence import endturn as endturn
    from engine.tacw.battles.marston_moor import senior_wc_of
    assert [senior_wc_of(sc, sc.leader(a)) for a in ("leven", "manchester", "f-fairfax", "rupert")] == \
        ["lumsden", "cromwell", "t-fairfax", "goring"]
    sc, st, _ = game()
    st.leaders["manchester"].status = "dead"
    events = endturn._promote_senior_wc(sc, st, st.leaders["manchester"])
    assert "Cromwell" in events[0].narrative and st.leaders["cromwell"].role == "ac"
    assert st.leaders["lumsden"].role == "wc"


@pytest.mark.parametrize("wc, chain", [("tillier", ["Newcastle", "Eythin"]),
                                       ("lumsden", ["Crawford", "Baillie", "Hamilton"])])
def test_5_3_5_the_books_replacement_chains_keep_every_name(wc, chain):
    """"CA: SgtMaj.Gen. Henry Tillier. CA di rimpiazzo: Newcastle, Eythin"; "CA: Lumsden
    (rimpiazzi Crawford, Baillie, poi Hamilton)": each replacement who falls is replaced by the
    next name, and only after the last comes a generic leader (D119)."""
    from engine.core.dice import DiceStream
    from engine.tacw.sequence.endturn import marker_removal
    sc, st, _ = game()
    wing = st.leaders[wc].wing
    names = []
    for _ in range(len(chain) + 1):
        ld = st.leaders[st.wings[wing].commander]
        ld.status, ld.removed_turn, ld.hex = "removed", st.turn, None
        marker_removal(sc, st, DiceStream(st.seed, st.draws, [6]))      # a roll of 5: eliminated
        new = st.leaders[st.wings[wing].commander]
        names.append(new.name)
        assert new.role == "wc" and new.wing == wing and new.status == "active"
    assert names[:-1] == chain and st.leaders[st.wings[wing].commander].generic


def test_the_senior_wc_who_took_a_fallen_acs_place_answers_to_his_row_of_the_rivalry_table():
    """D120: Manchester falls and Cromwell, his senior WC, takes his place (§5.3.5); a roll of
    0-3 ("Manchester") then activates Cromwell, who acts and influences red units as Manchester
    did, instead of leaving the Allies with no Army Commander for good on that row."""
    from engine.tacw.sequence import endturn as endturn
    from engine.tacw.battles.marston_moor import activated_ac
    sc, st, _ = game()
    st.leaders["manchester"].status, st.leaders["manchester"].hex = "dead", None
    endturn._promote_senior_wc(sc, st, st.leaders["manchester"])
    st, events = go(sc, st, P, "activate p-centre dice=1")                  # 0: Manchester's row
    (ev,) = [e for e in events if e.kind == "command_rivalry"]
    assert ev.outcome["army_commander"] == "manchester"
    assert "Oliver Cromwell is the Army Commander who acts in the Earl of Manchester's place" in ev.narrative
    assert activated_ac(sc, st, P) == (True, st.leaders["cromwell"])
    hex_now = st.leaders["cromwell"].hex
    nxt = next(h for h in sc.grid.neighbors(hex_now) if not st.units_at(h))
    st, _ = go(sc, st, P, f"leader ac move {nxt}")
    assert st.leaders["cromwell"].hex == nxt
