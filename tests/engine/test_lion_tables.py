"""Lion of the North tables (engine/lion/tables.py) against the Italian text: the troop chart row
by row, the summary lists, basing, the die ladder, the TIRO grid and its band boundaries (HERALD
L10), Cpt dice and costs, rally, generals' risk, weights, camps, hits, the cards and the random
events. The values expected here are typed from the text (rules/lion-of-the-north.it.txt, the line
in each comment); where the shared rules folder is present the chart and the cards are also read
from the file itself."""
from __future__ import annotations

import math
import re

import pytest

from tests.engine.coverage import book

from engine.lion import state as S
from engine.lion import tables as T

BOOK = book("lion-of-the-north.it.txt")
INF = math.inf

# The troop chart L233-248, as printed: key, melee die, shooting die (0 "-"), max range (0 "-"),
# move (0 "-"), may attack voluntarily, may move.
CHART = [
    ("general", "Generali", 4, 0, 0, 24, False, True),                 # L233
    ("militia", "Milizia", 4, 0, 0, 8, True, True),                     # L234
    ("musketeers", "Moschettieri", 6, 8, 15, 10, True, True),           # L235
    ("pike_and_shot", "Pike & Shot", 12, 8, 15, 8, True, True),         # L236
    ("pikemen", "Picchieri", 12, 0, 0, 8, True, True),                  # L237
    ("reiter", "Reiter", 8, 6, 5, 22, True, True),                      # L238
    ("regular_cavalry", "Cavalleria Regolare", 10, 0, 0, 22, True, True),  # L239
    ("dragoons", "Dragoni & Arch. a cavallo", 6, 6, 5, 20, True, True),    # L240
    ("mounted_arquebusiers", "Dragoni & Arch. a cavallo", 6, 6, 5, 20, True, True),  # L240
    ("dismounted_dragoons", "Dragoni smontati", 4, 8, 15, 15, True, True),  # L241 (d4/d6)
    ("croats", "Croati", 6, 0, 0, 24, True, True),                      # L242
    ("organ_guns", "Cannoni ad Organo", 3, 8, 15, 0, False, False),     # L243
    ("regimental_guns", "Cannoni Reggimentali", 3, 10, 30, 8, False, True),  # L244
    ("light_guns", "Cannoni Leggeri", 3, 10, 30, 8, False, True),       # L245
    ("medium_guns", "Cannoni Medio", 3, 10, 60, 8, False, True),        # L246
    ("heavy_guns", "Cannoni Pesanti", 3, 12, INF, 0, False, False),     # L247 ("12", illimitata)
    ("mortar", "Mortaio", 3, 12, 60, 0, False, False),                  # L248
]


@pytest.mark.parametrize("key, italian, melee, shoot, reach, move, attacks, moves", CHART,
                         ids=[r[0] for r in CHART])
def test_troop_chart_row(key, italian, melee, shoot, reach, move, attacks, moves):
    """[Tabella delle truppe] L232-248: every row's melee die, shooting die, maximum range, move
    and the notes "Non possono attaccare volontariamente" / "non possono muovere"."""
    t = T.TROOPS[key]
    assert (t.melee_die, t.shoot_die, t.max_range, t.move) == (melee, shoot, reach, move)
    assert (t.attacks, t.moves) == (attacks, moves)


def test_dismounted_dragoons_fight_d4_in_the_open_d6_in_cover():
    """[12 C] L118 "combattono con 1d4 se all'aperto o con 1d6 se in copertura"; chart L241 "d4/d6"."""
    t = T.TROOPS["dismounted_dragoons"]
    assert (t.melee_die, t.melee_die_cover) == (4, 6)
    assert T.effective_type("dragoons", mounted=False) == "dismounted_dragoons"
    assert T.effective_type("dragoons", mounted=True) == "dragoons"
    assert T.effective_type("reiter", mounted=False) == "reiter"
    assert T.footprint("dragoons", mounted=False) == T.BASES["infantry"]
    assert T.footprint("dragoons") == T.BASES["cavalry"]


def test_late_pike_and_shot_from_the_summary_and_12E():
    """[12 E] L122 "l'unità 'spara' con 1d10 e combatte con 1d10 più 1 eventuale d6"; L182 and L191
    list "Tardi P&S" under d10 (HERALD D13); an ordinary P&S adds 1d8 for a second attacker."""
    late, ps = T.TROOPS["late_pike_and_shot"], T.TROOPS["pike_and_shot"]
    assert (late.shoot_die, late.melee_die, late.second_die) == (10, 10, 6)
    assert ps.second_die == 8
    assert (late.max_range, late.move, late.weight, late.footprint) == (15, 8, 2, ps.footprint)


def test_tercio_is_two_pike_and_shot():
    """[12 F] L124: two P&S one behind the other, the P&S dice, 4 hits; [11 C] counts as 3."""
    t, ps = T.TROOPS["tercio"], T.TROOPS["pike_and_shot"]
    assert (t.melee_die, t.shoot_die, t.max_range, t.move) == (ps.melee_die, ps.shoot_die, 15, 8)
    assert t.footprint == T.Size(8.0, 4.0)
    assert (t.weight, T.hits_to_destroy("tercio")) == (3, 4)


def _chart_rows_of_book() -> dict[str, list[str]]:
    rows = {}
    lines = BOOK.read_text(encoding="utf-8").splitlines()
    for line in lines[231:248]:                     # L232-248
        cells = line.split("\t")
        rows[cells[0].strip()] = [c.strip() for c in cells[1:]]
    return rows


def _die(cell: str) -> int:
    cell = cell.replace(" ", "")
    if cell in ("-", ""):
        return 0
    return int(cell.split("/")[0].lstrip("d"))


def _cm(cell: str) -> float:
    cell = cell.replace(" ", "")
    if cell == "illimitata":
        return INF
    return 0 if cell in ("-", "") else float(cell.removesuffix("cm"))


@pytest.mark.skipif(not BOOK.exists(), reason="the rules folder is not here")
def test_troop_chart_read_from_the_book():
    """[Tabella delle truppe] L232-248 read from the file itself: every row of the text is a
    TROOPS entry with the same dice, range and move."""
    rows = _chart_rows_of_book()
    assert len(rows) == 17 and rows.pop("Tipo")[0] == "Dadi di mischia"
    for key, italian, *_ in CHART:
        cells = rows[italian]
        t = T.TROOPS[key]
        assert (_die(cells[0]), _die(cells[1]), _cm(cells[2]), _cm(cells[3])) == \
            (t.melee_die, t.shoot_die, t.max_range, t.move), key


# What the summary lists leave out and the chart gives: L173 "20cm Dragoni" does not name the
# mounted arquebusiers (chart L240: 20 cm), L197 the 15 cm list does not name dismounted dragoons
# (chart L241: 15 cm).
SUMMARY_OMITS = {("move", "mounted_arquebusiers"), ("max_range", "dismounted_dragoons")}


def test_summary_lists_agree_with_the_chart():
    """[Tabella riassuntiva] L169-200: each movement, shooting-die, melee-die and range list names
    types whose chart value is that value, and every chart type with a value is in its list."""
    for table, field in ((T.SUMMARY_MOVE, "move"), (T.SUMMARY_SHOOT, "shoot_die"),
                         (T.SUMMARY_MELEE, "melee_die"), (T.SUMMARY_RANGE, "max_range")):
        listed = {}
        for value, keys in table.items():
            for k in keys:
                assert getattr(T.TROOPS[k], field) == value, (field, k)
                listed[k] = value
        for key, *_ in CHART:
            v = getattr(T.TROOPS[key], field)
            if v and (field, key) not in SUMMARY_OMITS:
                assert listed.get(key) == v, (field, key)
    for field, key in SUMMARY_OMITS:                    # the chart alone gives them
        assert all(key not in keys for keys in {"move": T.SUMMARY_MOVE,
                                                "max_range": T.SUMMARY_RANGE}[field].values())


def test_mounted_and_immobile_guns_in_the_move_list():
    """L176 "Cannoni mobili (tutti i calibri)" 8 cm: regimental, light and medium guns; organ,
    heavy guns and mortars never move (chart L243, L247-248; [6 B] L72; HERALD D11)."""
    assert set(T.SUMMARY_MOVE[8]) >= {"regimental_guns", "light_guns", "medium_guns"}
    for k in ("organ_guns", "heavy_guns", "mortar"):
        assert not T.TROOPS[k].moves and T.TROOPS[k].move == 0 and T.TROOPS[k].arm == "artillery"


@pytest.mark.parametrize("key, size", [
    ("musketeers", (4, 2)), ("militia", (4, 2)), ("pikemen", (4, 2)),      # L30 40 x 20 mm
    ("reiter", (4, 3)), ("croats", (4, 3)), ("regular_cavalry", (4, 3)),    # L31 40 x 30 mm
    ("dragoons", (4, 3)), ("mounted_arquebusiers", (4, 3)),
    ("medium_guns", (3, 3.5)), ("mortar", (3, 3.5)),                        # L32 30 x 35 mm
    ("general", (2, 2)),                                                    # L33 20 x 20 mm
    ("pike_and_shot", (8, 2)), ("late_pike_and_shot", (8, 2)),              # L29 80 x 20 mm
    ("tercio", (8, 4)), ("dismounted_dragoons", (4, 2)),                    # L38, HERALD D2
])
def test_basing(key, size):
    """[2] L28-34 (mm to cm) and HERALD D2: one rectangle per unit."""
    fp = T.TROOPS[key].footprint
    assert (fp.width, fp.depth) == size
    assert T.CAMP_SIZE == T.Size(9.0, 6.0)                                  # L34 90 x 60 mm


def test_die_ladder_and_step_down():
    """[9 A] L98: a disordered unit rolls one die lower, "ad es. una base disordinata di picchieri
    si difende con 1d10 invece di 1d12 - ma mai con un dado minore di 1d3"."""
    assert T.DIE_LADDER == (3, 4, 6, 8, 10, 12)
    assert T.step_down(12) == 10
    assert [T.step_down(d) for d in (10, 8, 6, 4, 3)] == [8, 6, 4, 3, 3]
    assert T.step_down(8, 2) == 4 and T.step_down(6, 5) == 3 and T.step_down(8, 0) == 8
    assert T.step_down(0) == 0                        # no shooting die stays none
    with pytest.raises(ValueError):
        T.step_down(5)


@pytest.mark.parametrize("arm, distance, band", [
    ("infantry", 0, "short"), ("infantry", 4.99, "short"), ("infantry", 5, "normal"),
    ("cavalry", 7.5, "normal"), ("infantry", 10, "normal"), ("infantry", 10.01, "long"),
    ("infantry", 10.5, "long"), ("infantry", 15, "long"),
    ("artillery", 14.99, "short"), ("artillery", 15, "normal"), ("artillery", 45, "normal"),
    ("artillery", 45.01, "long"), ("artillery", 45.5, "long"), ("artillery", 170, "long"),
])
def test_range_bands(arm, distance, band):
    """[Tabella riassuntiva] L206 "Corta, meno di 5 cm.; Normale, tra 5 e 10 cm.; Lunga, 11cm o
    più", L210 artillery 15 / 45 / 46, and the grid [TIRO] L254-256 "0 5 >10", "0 15 >45": the
    gaps 10-11 and 45-46 are long (HERALD D10)."""
    assert T.band(arm, distance) == band


def test_tiro_thresholds():
    """[TIRO] L255, L257 and L204, L208: small arms 5 / 6 / 7, artillery 6 / 8 / 10; [7 B] L78 "maggiore
    o uguale"."""
    assert [T.threshold("infantry", b) for b in T.BANDS] == [5, 6, 7]
    assert [T.threshold("cavalry", b) for b in T.BANDS] == [5, 6, 7]
    assert [T.threshold("artillery", b) for b in T.BANDS] == [6, 8, 10]


def test_organ_guns_and_mortars_bands():
    """HERALD D11: organ guns use the artillery bands (short below 15 cm, so within their whole
    range but its last point); [12 D] L119 mortars "sparano sempre a distanza lunga" (HERALD D12)."""
    assert T.shooting_band("organ_guns", 14) == "short"
    assert T.shooting_band("organ_guns", 15) == "normal"
    assert T.threshold(T.TROOPS["organ_guns"].arm, "short") == 6
    assert T.shooting_band("mortar", 3) == "long" and T.shooting_band("mortar", 59) == "long"
    assert T.shooting_band("musketeers", 3) == "short"


def test_range_limits():
    """[7 A] L77 and "Gittata Massima" L194-200: 5 / 15 / 30 / 60 cm, heavy guns unlimited."""
    assert T.in_range("reiter", 5) and not T.in_range("reiter", 5.01)
    assert T.in_range("musketeers", 15) and not T.in_range("musketeers", 15.01)
    assert T.in_range("light_guns", 30) and not T.in_range("light_guns", 30.5)
    assert T.in_range("heavy_guns", 216.33)
    assert not T.in_range("pikemen", 1) and not T.in_range("regular_cavalry", 0)


def test_shooting_additions():
    """[7 C] L79 cover save 5-6 on a d6; [7 F] L83 canister +1d3; [7 G] L84 +1 for medium and heavy
    guns at a Tercio; [7 E] L82 a "1", then another "1" on a d6; [7 A] L77 30 degrees a side."""
    assert T.COVER_SAVE == (6, 5)
    assert T.CANISTER_DIE == 3 and T.DEEP_TARGET_BONUS == 1
    assert T.DEEP_TARGET_GUNS == ("medium", "heavy")
    assert T.GUN_EXPLOSION == (1, 6, 1)
    assert T.ARC_HALF_ANGLE == 30.0
    assert T.GENERAL_EXPOSED == 10.0


def test_cpt_dice():
    """[4 E] L58 and L202: trained d8, regular d6, irregular d4; L60 wing generals one level lower:
    d6, d4, d3."""
    assert T.CPT_DICE == {"trained": 8, "regular": 6, "irregular": 4}
    assert [T.cpt_die(d, "wing") for d in ("trained", "regular", "irregular")] == [6, 4, 3]
    assert [T.cpt_die(d) for d in ("trained", "regular", "irregular")] == [8, 6, 4]


@pytest.mark.parametrize("kw, cost", [
    ({}, 1),                                                          # [4 C] L52
    ({"general_away": True}, 2),                                      # [4 C] L52
    ({"forced": True}, 2),                                            # [4 D] L54
    ({"general_away": True, "forced": True}, 3),
    ({"demoralised": True}, 2),                                       # [11 A] L110
    ({"demoralised": True, "general_away": True}, 3),                 # [11 A] L110
    ({"demoralised": True, "general_away": True, "to_own_edge": True}, 1),   # [11 A] L110
    ({"demoralised": True, "to_own_edge": True}, 1),
])
def test_cpt_costs(kw, cost):
    """[4 C-D], [11 A]: what a move of a unit or group costs."""
    assert T.move_cost(**kw) == cost


def test_free_and_fixed_costs():
    """[4 A] L48 the general moves free; [5 D] L67 about-face 1; [6 C] L73 artillery pivot 1;
    [12 C] L118 mounting and dismounting free; [4 C] L52 the 40 cm."""
    c = T.CPT_COSTS
    assert (c["general"], c["about_face"], c["artillery_pivot"], c["dragoons_mount"]) == (0, 1, 1, 0)
    assert T.COMMAND_RADIUS == 40.0
    assert T.MAX_TURN == 45.0 and T.ARTILLERY_PIVOT_MAX == 45.0


def test_rally():
    """[10 A] L105 and L230: 1d8, trained 5-8, regular 6-8, irregular 7-8; +1d3 with a general;
    -1 with an enemy within 10 cm (L106); [11 A] -1 demoralised; [12 F] a Tercio one level."""
    assert T.RALLY_DIE == 8
    assert T.RALLY_TARGET == {"trained": 5, "regular": 6, "irregular": 7}
    assert (T.RALLY_GENERAL_DIE, T.RALLY_ENEMY_NEAR, T.RALLY_PENALTY, T.DEMORALISED_RALLY) == (3, 10.0, -1, -1)
    assert T.rally_levels("tercio", 3) == 1
    assert T.rally_levels("pike_and_shot", 2) == 2          # HERALD D21
    assert T.rally_levels("musketeers", 1) == 1


@pytest.mark.parametrize("table, expected", [
    (T.GENERAL_RISK_MELEE, ["no_effect"] * 2 + ["wounded"] * 3 + ["killed"] * 3),   # [9 C] L101, L226
    (T.GENERAL_RISK_FIRE, ["no_effect"] * 5 + ["wounded"] * 2 + ["killed"]),        # [9 C] L101, L228
])
def test_general_risk(table, expected):
    """[9 C]: in a lost melee 1-2 no effect (withdraws 5 cm), 3-5 wounded, 6-8 killed; under fire
    1-5 no effect, 6-7 wounded, 8 killed."""
    assert [T.general_risk(table, r).result for r in range(1, 9)] == expected
    with pytest.raises(ValueError):
        T.general_risk(table, 9)
    assert T.GENERAL_WITHDRAW == 5.0 and T.WOUNDED_GENERAL_MOVE == 10.0


def test_weights():
    """[11 B] L111 C-in-C 2, sub-commander 1; [11 C] L112 P&S 2, Tercio 3; others 1."""
    assert T.weight("general", "cinc") == 2 and T.weight("general", "sub") == 1
    assert T.weight("general", "wing") == 1
    assert T.weight("pike_and_shot") == 2 and T.weight("late_pike_and_shot") == 2
    assert T.weight("tercio") == 3
    assert all(T.weight(k) == 1 for k in ("musketeers", "reiter", "heavy_guns", "croats", "militia"))
    assert T.WEIGHTS["cinc"] == 2 and T.WEIGHTS["tercio"] == 3


def test_camp_values():
    """[12 A] L116: a captured camp counts as 2 bases (trained), 3 (regular), 5 (irregular); a looter
    leaves on 4-6, +1 with a general."""
    assert T.CAMP_VALUE == {"trained": 2, "regular": 3, "irregular": 5}
    assert T.LOOT_EXIT == {"die": 6, "stay": (1, 3), "general_bonus": 1}


def test_percentages_round_up():
    """[11 A] L110 "il 40% (arrotondato per eccesso)"; [14 A] L151 60% (HERALD D22)."""
    assert T.demoralisation_threshold(31) == 13           # 12.4 up
    assert T.demoralisation_threshold(30) == 12           # exact
    assert T.demoralisation_threshold(41) == 17           # 16.4 up
    assert T.victory_threshold(31) == 19                  # 18.6 up
    assert T.victory_threshold(40) == 24


@pytest.mark.parametrize("lost, total, level", [
    (0, 40, "decisive"), (11, 40, "decisive"), (12, 40, "partial"), (16, 40, "partial"),
    (17, 40, "pyrrhic"), (29, 100, "decisive"), (30, 100, "partial"), (41, 100, "pyrrhic"),
])
def test_victory_levels(lost, total, level):
    """[14 A] L151: the winner's losses under 30% decisive, 30-40% partial, over 40% Pyrrhic."""
    assert T.victory_level(lost, total) == level


@pytest.mark.parametrize("key, hits, destroy, steps, may_close", [
    ("musketeers", 0, 2, 0, True), ("musketeers", 1, 2, 1, False),             # [9 A] L98
    ("pike_and_shot", 1, 3, 1, True), ("pike_and_shot", 2, 3, 1, False),      # [12 E] L122
    ("late_pike_and_shot", 1, 3, 1, True),
    ("tercio", 1, 4, 0, True), ("tercio", 2, 4, 1, True), ("tercio", 3, 4, 1, False),   # [12 F] L124
    ("medium_guns", 1, 2, 1, False),                                              # [9 B] L100
])
def test_hits(key, hits, destroy, steps, may_close):
    """[9 A] a second hit destroys; [12 E] P&S three, a die lower after the first, no contact after
    the second; [12 F] Tercio four, a die lower after the second, no contact after the third."""
    assert T.hits_to_destroy(key) == destroy
    assert T.disorder_steps(key, hits) == steps
    assert T.may_close(key, hits) is may_close


def test_attackers_per_face():
    """[8 A] L90 one a side, P&S two on the front and two on the rear; [12 F] L124 a Tercio two a side."""
    assert T.ATTACKERS_PER_FACE["default"] == {"front": 1, "rear": 1, "left": 1, "right": 1}
    assert T.ATTACKERS_PER_FACE["pike_and_shot"]["front"] == 2
    assert T.ATTACKERS_PER_FACE["pike_and_shot"]["left"] == 1
    assert set(T.ATTACKERS_PER_FACE["tercio"].values()) == {2}


def test_quality():
    """[Tabella delle truppe] L250: elite +1, untrained -1 (HERALD D17)."""
    assert T.QUALITY_MODIFIER == {"": 0, "elite": 1, "untrained": -1}


def test_about_face_and_evasion():
    """[5 D] L67 (HERALD D29): light horse, dragoons and musketeers half a move; other cavalry stay;
    pikes and P&S stay disordered; Croats, arquebusiers and mounted dragoons evade."""
    tt = T.TROOPS
    assert {k for k, t in tt.items() if t.about_face == "half_move"} == {
        "croats", "dragoons", "mounted_arquebusiers", "musketeers", "dismounted_dragoons",
        "detached_musketeers"}
    assert {k for k, t in tt.items() if t.about_face == "stay_disordered"} == {
        "pikemen", "pike_and_shot", "late_pike_and_shot", "tercio"}
    assert tt["reiter"].about_face == tt["regular_cavalry"].about_face == "stay"
    assert {k for k, t in tt.items() if t.evades} == {"croats", "mounted_arquebusiers", "dragoons"}


def test_towns_and_marshes():
    """[5 B] L65 "Solo moschettieri, milizie e dragoni smontati possono occupare centri abitati";
    "Solo fanterie e generali possono attraversare paludi"."""
    assert set(T.TOWN_OCCUPANTS) == {"musketeers", "militia", "dismounted_dragoons", "detached_musketeers"}
    marsh = {k for k, t in T.TROOPS.items() if t.enters_marsh}
    assert marsh == {k for k, t in T.TROOPS.items() if t.arm in ("infantry", "general")}


def test_nine_cards():
    """[13] L129-147: nine cards, one each: combat, rally, shoot and move for A and B, and the end
    card; their ids are the state's deck."""
    assert len(T.CARDS) == 9 and set(T.CARDS) == set(S.CARDS)
    assert sorted((c.kind, c.player) for c in T.CARDS.values()) == sorted(
        [(k, p) for k in ("combat", "rally", "shoot", "move") for p in "AB"] + [("end", "")])


@pytest.mark.skipif(not BOOK.exists(), reason="the rules folder is not here")
def test_card_texts_are_the_books():
    """[13] L131-147: the card texts are the text's words (spacing aside)."""
    book = " ".join(BOOK.read_text(encoding="utf-8").split())
    for c in T.CARDS.values():
        assert " ".join(c.text.split()) in book, c.id


@pytest.mark.parametrize("roll, result", [(1, "continue"), (4, "continue"), (5, "event"),
                                          (6, "end_turn")])
def test_end_card(roll, result):
    """[13] L147: 1-4 the turn goes on, 5 a random event, 6 the turn ends."""
    assert T.end_card_result(roll) == result


def test_random_events():
    """[15] L160-165: 1 limited visibility (clears on 4-6), 2 sunset (2d6 turns), 3 surprise march
    (1d4 units, triple speed, this turn or the next), 4 reinforcements (1d4 bases within 10 cm of
    the own edge, no artillery or generals), 5 light rain and 6 heavy rain for two moves (HERALD D23)."""
    keys = [T.random_event(r).key for r in range(1, 7)]
    assert keys == ["limited_visibility", "sunset", "surprise_march", "reinforcements",
                    "light_rain", "heavy_rain"]
    assert T.VISIBILITY_CLEARS == (4, 6) and T.SUNSET_DICE == (2, 6)
    assert T.SURPRISE_MARCH_FACTOR == 3 and T.EVENT_UNITS_DIE == 4
    assert T.REINFORCEMENT_ZONE == 10.0
    assert set(T.REINFORCEMENT_EXCLUDED_ARMS) == {"artillery", "general"}
    assert T.random_event(5).turns == T.random_event(6).turns == T.random_event(3).turns == 2
    with pytest.raises(ValueError):
        T.random_event(7)


def test_every_troop_row_cites_its_line():
    """DESIGN principle 4: each row names the line it was read from."""
    for key, t in T.TROOPS.items():
        assert t.line and t.italian, key
        assert t.arm in ("infantry", "cavalry", "artillery", "general"), key


def test_rules_index_covers_the_text():
    """engine/lion/rules_index.toml (read by /rules through engine/core/rulesdoc.py): an entry for
    sections 1-15, every lettered paragraph, the six events, the summary sheet, the troop chart,
    the TIRO grid and the cards; it validates (its test prefixes name real tests); a citation like
    "LdN 7 B" finds its paragraph."""
    from engine.core import rulesdoc as R
    idx = R.load_index("lion")
    ids = {s.id for s in idx.sections}
    letters = {"4": "ABCDE", "5": "ABCD", "6": "ABC", "7": "ABCDEFG", "8": "ABCDE", "9": "ABC",
               "10": "A", "11": "ABC", "12": "ABCDEFG", "14": "AB"}
    expected = {str(n) for n in range(1, 16)} | {f"{n} {c}" for n, cs in letters.items() for c in cs}
    expected |= {f"15 {n}" for n in range(1, 7)}
    expected |= {"Tabella riassuntiva", "Tabella delle truppe", "TIRO", "Carte"}
    assert expected <= ids, sorted(expected - ids)
    assert R.validate(idx, R.load_decisions("lion"), R.scan_tests()) == []
    assert idx.lookup("LdN 7 B")[0].section.id == "7 B"
    assert idx.lookup("fog")[0].section.id == "15 1"
    if BOOK.exists():                       # the lettered paragraphs are the book's
        text = BOOK.read_text(encoding="utf-8")
        section, found = "", set()
        for line in text.splitlines():
            m = re.match(r"^(\d{1,2})\. [A-Z]", line)
            if m:
                section = m.group(1)
            m = re.match(r"^-? ?([A-G])\. ", line)
            if m and section:
                found.add(f"{section} {m.group(1)}")
        assert found == {f"{n} {c}" for n, cs in letters.items() for c in cs}
