"""The Italian Wars: Herald's completion (engine/italianwars/completion*.py, SUPPLEMENT.md).

Run with -s to see the odds report (IW-H 16):
    .venv/bin/python -m pytest tests/engine/test_iw_completion.py -s
After changing a number in completion*.py, rewrite the supplement's generated blocks with
    .venv/bin/python -c "from engine.italianwars import completion_odds as C; \
C.SUPPLEMENT_PATH.write_text(C.render_supplement(C.SUPPLEMENT_PATH.read_text()))"
"""
from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from engine.italianwars import completion as C
from engine.italianwars import completion_melee as C_melee
from engine.italianwars import completion_movement as C_move
from engine.italianwars import completion_odds as C_odds
from engine.italianwars import completion_shooting as C_shoot
from engine.italianwars.completion import Profile
from engine.italianwars.completion_melee import Side
from engine.italianwars.completion_odds import melee_odds, shot_odds

ONE = Fraction(1)


def _scripted(faces):
    it = iter(faces)
    return lambda purpose, key=None: next(it)


def _p(level, **kw):
    base = dict(name=f"level {level}", morale="mercenaries", melee=level, weapon="polearm",
                armour="protected", bases=2)
    base.update(kw)
    return Profile(**base)


# == the report (IW-H 16) =======================================================================

def test_iw_h_16_odds_report_is_printed_and_is_the_supplements():
    """IW-H 16: the odds the completion gives for the text's matchups, printed, and exactly the
    table SUPPLEMENT.md shows (the Shooting and Melee tables too): the document cannot drift."""
    report = C_odds.odds_report()
    print("\n\nShooting table (IW-H 5.2)\n" + C_odds.table_markdown(C_shoot.SHOOTING_TABLE))
    print("\nMelee table (IW-H 6.2)\n" + C_odds.table_markdown(C_melee.MELEE_TABLE))
    print("\nOdds (IW-H 16)\n" + report + "\n")
    text = C.SUPPLEMENT_PATH.read_text(encoding="utf-8")
    assert C_odds.supplement_block("ODDS", text) == report
    assert C_odds.supplement_block("SHOOTING TABLE", text) == C_odds.table_markdown(C_shoot.SHOOTING_TABLE)
    assert C_odds.supplement_block("MELEE TABLE", text) == C_odds.table_markdown(C_melee.MELEE_TABLE)
    assert C_odds.render_supplement(text) == text


def test_iw_h_16_report_names_the_texts_matchups():
    """IW-H 16 (issue 16): gendarmes against pike (front, flank), pike against pike, Landsknechts
    against sword-and-buckler, arquebus against a screen, arquebus against crossbow at both
    ranges, stradiots against gendarmes, guns against a pike block, Italian foot, rabble."""
    labels = " ".join(r[0] for r in C_odds.melee_report() + C_odds.shooting_report())
    for needle in ("Gendarmes charge Swiss pike, front", "Gendarmes charge Swiss pike, flank",
                   "Landsknechts (sworn enemies)", "sword-and-buckler", "screened",
                   "arquebus v Italian crossbow, short", "arquebus v Italian crossbow, long",
                   "Stradiots charge gendarmes", "Gendarmes charge stradiots", "large pike block",
                   "Italian foot charge", "Rabble charge militia"):
        assert needle in labels, needle


def test_iw_h_supplement_rules_are_numbered_and_cited():
    """IW-H 1-16: the supplement's rules run 1..16 in order, each names the text it completes
    (but the odds), and every "IW-H n" the code cites exists."""
    secs = C_odds.supplement_sections()
    assert [s[0] for s in secs] == [f"IW-H {n}" for n in range(1, 17)]
    for sid, title, body in secs[:-1]:
        assert "*Completes:" in body, sid
    code = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (C, C_move, C_shoot, C_melee, C_odds))
    cited = {int(m) for m in re.findall(r'(?:hcite\(|mod\([^)]*?)"(\d+)\.\d+"', code)}
    cited |= {int(m) for m in re.findall(r"IW-H (\d+)", code)}
    assert cited and cited <= set(range(1, 17))


def test_iw_h_herald_values_cover_the_tables():
    """IW-H 1: every number is Herald's and listed with its rule, for /rules."""
    vals = dict(C_odds.herald_values())
    assert vals["melee_table.5 = (1, 1, 2, 2, 3, 3)"] == "IW-H 6.2"
    assert vals["morale.rabble = 6+"] == "IW-H 7.1"
    assert any(k.startswith("move.foot = 4") for k in vals)


# == every distribution sums to 1 =================================================================

def test_iw_h_16_every_probability_table_sums_to_one():
    """IW-H 5, IW-H 6: every exact distribution (win/draw, outcomes, points, shot points) sums to 1."""
    sides = [
        (Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE)),
        (Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE, flanked=True)),
        (Side(C_odds.SWISS_PIKE, charging=True), Side(C_odds.LANDSKNECHTS)),
        (Side(C_odds.SPANISH_SWORD, charging=True), Side(C_odds.LANDSKNECHTS)),
        (Side(C_odds.RABBLE, charging=True), Side(C_odds.MILITIA_PIKE)),
    ]
    for a, b in sides:
        o = melee_odds(a, b)
        assert sum(o.win.values()) == ONE
        for k in ("a", "b"):
            assert sum(o.outcome[k].values()) == ONE
            assert sum(o.points[k].values()) == ONE
        # nobody destroyed in one round here; a drawn side whose captain fell tests (IW-H 7.1)
        for k in ("a", "b"):
            held = o.p(k, "drawn", "drawn, disordered")
            assert held <= o.win["draw"] <= held + o.p(k, "routed")
    for shooter, target, band in [(C_odds.SPANISH_ARQ, C_odds.SWISS_PIKE, "short"), (C_odds.FRENCH_GUNS, C_odds.LANDSKNECHTS, "long"),
                                  (C_odds.ITALIAN_XBOW, C_odds.ITALIAN_ARQ, "long"), (C_odds.STRADIOTS, C_odds.GENDARMES, "short")]:
        o = shot_odds(shooter, target, band)
        assert sum(o.points.values()) == ONE
        assert o.disorder + o.rout <= o.test <= ONE


def test_iw_h_5_2_and_6_2_tables_rise_with_column_and_die():
    """IW-H 5.2, 6.2: a better column or a better die never inflicts fewer points."""
    for table in (C_shoot.SHOOTING_TABLE, C_melee.MELEE_TABLE):
        assert sorted(table) == list(range(0, 11))
        for col, vals in table.items():
            assert list(vals) == sorted(vals)
            if col:
                assert all(x >= y for x, y in zip(vals, table[col - 1]))
                assert sum(vals) > sum(table[col - 1])


# == the ratings decide the fights =================================================================

@pytest.mark.parametrize("hi, lo", [(5, 4), (4, 2), (2, 1), (5, 2), (5, 1), (4, 1)])
def test_iw_h_6_higher_melee_level_wins_more_than_it_loses(hi, lo):
    """IW Fattori di mischia, IW-H 6: of two companies alike but for their level, the better wins
    more often than the worse, from either side of the table."""
    o = melee_odds(Side(_p(hi)), Side(_p(lo)))
    assert o.win["a"] > o.win["b"]
    r = melee_odds(Side(_p(lo)), Side(_p(hi)))
    assert r.win["b"] > r.win["a"]


def test_iw_h_6_wider_gaps_are_more_decisive():
    """IW Fattori di mischia (no level 3), IW-H 1: a 5 beats a 4 more often than a 4 beats a 5;
    a two-level gap (Valiant against Unreliable, 4 v 2) decides more than a one-level one (5 v 4);
    5 v 2 more than 5 v 4; equal levels are even."""
    w = lambda a, b: melee_odds(Side(_p(a)), Side(_p(b))).win
    assert w(5, 5)["a"] == w(5, 5)["b"]
    assert w(5, 4)["a"] > w(4, 5)["a"]
    assert w(4, 2)["a"] > w(5, 4)["a"]
    assert w(5, 2)["a"] > w(5, 4)["a"] > w(5, 5)["a"]
    assert w(5, 1)["a"] > w(5, 2)["a"]


def test_iw_h_5_higher_shooting_level_hits_harder():
    """IW Fattori di tiro, IW-H 5: 5 > 4 > 2 > 1 in mean points, the same target and range."""
    means = [shot_odds(replace(C_odds.ITALIAN_XBOW, shooting=lvl), C_odds.LANDSKNECHTS, "short").mean for lvl in (5, 4, 2, 1)]
    assert means == sorted(means, reverse=True) and len(set(means)) == 4


def test_iw_h_5_and_6_armour_protects():
    """IW Tipo di armatura, IW-H 5.3, 6.3: armoured loses fewer points than protected, protected
    fewer than unprotected, to a crossbow and in melee."""
    shots = [shot_odds(C_odds.ITALIAN_XBOW, _p(2, armour=a), "short").mean for a in C.ARMOURS]
    assert shots[0] < shots[1] < shots[2]
    melee = [melee_odds(Side(_p(4, weapon="pike")), Side(_p(4, armour=a))).mean_points["b"] for a in C.ARMOURS]
    assert melee[0] < melee[1] < melee[2]


def test_iw_h_5_3_firearms_pierce_armour():
    """IW-H 5.3: the arquebus counts armour one class lighter, guns ignore it: against armoured
    gendarmes the arquebus reads one column more than a crossbow of its level, range aside."""
    arq = C_shoot.shooting_column(C_odds.ITALIAN_ARQ, C_odds.GENDARMES, "long")[0]
    xbow = C_shoot.shooting_column(C_odds.ITALIAN_XBOW, C_odds.GENDARMES, "long")[0]
    assert (arq + 1) - xbow == 1          # arquebus long -1, crossbow long 0: piercing worth +1
    gun = C_shoot.shooting_column(C_odds.FRENCH_GUNS, C_odds.GENDARMES, "long")[0]
    assert gun == 5 - 1 + 0               # small gun company -1, light guns long 0, no armour


def test_iw_h_6_3_disorder_hurts_pikes_most():
    """IW Effetti del disordine: IW Disordine ("I picchieri sono particolarmente danneggiati"), IW-H 6.3: disorder costs a
    pike company more columns than a polearm company, and turns the Swiss' front fight round."""
    def drop(weapon, enemy):
        c = _p(4, weapon=weapon)
        return (C_melee.melee_column(Side(c), Side(enemy))[0]
                - C_melee.melee_column(Side(replace(c, disordered=True)), Side(enemy))[0])
    assert drop("pike", C_odds.GENDARMES) == 4 and drop("polearm", C_odds.GENDARMES) == 1
    assert drop("pike", C_odds.LANDSKNECHTS) == 3 > drop("polearm", C_odds.LANDSKNECHTS)
    good = melee_odds(Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE))
    bad = melee_odds(Side(C_odds.GENDARMES, charging=True), Side(replace(C_odds.SWISS_PIKE, disordered=True)))
    assert good.win["b"] > 0.5 and bad.win["a"] > 0.8


def test_iw_h_6_3_flank_attacks_are_worse():
    """IW Dichiarazioni di carica, IW Risposte obbligatorie, IW-H 6.3, 7: charged in the flank a
    company loses more, routs more and wins less than charged in front."""
    for att, dfn in [(C_odds.GENDARMES, C_odds.SWISS_PIKE), (C_odds.LANDSKNECHTS, C_odds.SWISS_PIKE), (_p(4), _p(4))]:
        front = melee_odds(Side(att, charging=True), Side(dfn))
        flank = melee_odds(Side(att, charging=True), Side(dfn, flanked=True))
        assert flank.win["a"] > front.win["a"]
        assert flank.p("b", "routed", "destroyed") > front.p("b", "routed", "destroyed")


def test_iw_h_6_3_size_matters():
    """IW Compagnie, IW Falange, IW-H 6.3: large beats small more often than medium beats medium;
    a phalanx counts one size larger than its enemy; mixed units fight as medium."""
    even = melee_odds(Side(_p(4)), Side(_p(4))).win["a"]
    big = melee_odds(Side(_p(4, bases=4)), Side(_p(4, bases=1))).win["a"]
    assert big > even
    col = lambda c, e: C_melee.melee_column(Side(c), Side(e))[0]
    assert col(_p(4, bases=4), _p(4, bases=1)) - col(_p(4, bases=1), _p(4, bases=4)) == 2
    assert col(_p(4, bases=4, phalanx=True), _p(4, bases=4)) == col(_p(4, bases=4), _p(4, bases=4)) + 1
    assert col(_p(4, bases=2, mixed=True), _p(4, bases=1)) == col(_p(4, bases=2), _p(4, bases=1))


def test_iw_h_6_3_hand_computed_columns():
    """IW-H 6.3 by hand: gendarmes charging Swiss pike from the front read 5 +1 (lances blunted by
    pikes) -2 (armoured front ranks) = 4; the Swiss 5 +1 (large v medium) +2 (pikes v horse) -2
    (armoured gendarmes) = 6. In the flank: gendarmes 5 +2 -1 (the Swiss' lighter armour) = 6,
    the Swiss 5 -2 (armoured) -2 (flanked) = 1."""
    g, s = Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE)
    assert C_melee.melee_column(g, s)[0] == 4 and C_melee.melee_column(s, g)[0] == 6
    sf = Side(C_odds.SWISS_PIKE, flanked=True)
    assert C_melee.melee_column(g, sf)[0] == 6 and C_melee.melee_column(sf, g)[0] == 1


def test_iw_h_6_lancers_who_did_not_charge_use_side_arms():
    """IW Tipi di armi (Armi da fianco), IW-H 6.3: lancers charging get +2; not charging, or in a
    later round, or rallied from rout, they fight with side arms (-1)."""
    col = lambda side: C_melee.melee_column(side, Side(_p(2, armour="unprotected")))[0]
    assert col(Side(C_odds.GENDARMES, charging=True)) == 5 + 2
    assert col(Side(C_odds.GENDARMES)) == 5 - 1
    assert col(Side(C_odds.GENDARMES, charging=True, first_round=False)) == 5 - 1
    assert col(Side(replace(C_odds.GENDARMES, side_arms_only=True), charging=True)) == 5 - 1 + 1


def test_iw_h_6_1_doppelsoldner_disorder_on_5_or_6():
    """IW Doppelsöldner, IW-H 6.1: before the first round, 5-6 disorders the enemy foot (here the
    Spanish roll 5, the Landsknechts' own roll 4 fails): the Landsknechts fight disordered."""
    sp, lk = Side(C_odds.SPANISH_SWORD, charging=True), Side(C_odds.LANDSKNECHTS)
    # dice: Spanish Doppelsöldner, Landsknecht Doppelsöldner, melee a, melee b, captain a, captain b, morale
    r = C_melee.resolve_melee(sp, lk, _scripted([5, 4, 4, 1, 1, 1, 3]))
    assert r.doppel == {"a": True, "b": False}
    # Landsknechts, disordered: 4 +1 (large v medium) -1 (protected Spanish) -2 (disordered pikes,
    # no hedge) = 2; the Spanish: 4 +1 (charged), the Landsknechts' lightest armour (protected:
    # disordered) bitten one class by polearms (unprotected, 0) = 5
    assert r.columns == {"a": 5, "b": 2}
    # d6 4 at column 5: 2 points; d6 1 at column 2: 0; the Spanish win by 2; the Landsknechts
    # test at 4+ -1 (margin) -1 (disordered): a 3 fails, and disordered they rout
    assert r.points == {"a": 0, "b": 2} and r.winner == "a" and not r.broken_through
    assert r.morale == "rout" and r.outcome == {"a": "won", "b": "routed"}


def test_iw_h_6_4_a_melee_round_by_hand():
    """IW-H 6.4 by hand: Swiss (6) roll 6 -> 4 points; gendarmes (4) roll 1 -> 0: the Swiss win by
    4, the gendarmes are broken through (disordered), test at 3+ -3 -1: a 4 totals 0, short by 3,
    but disordered: rout."""
    g, s = Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE)
    r = C_melee.resolve_melee(g, s, _scripted([1, 6, 1, 1, 4]))
    assert r.points == {"a": 4, "b": 0} and r.winner == "b" and r.broken_through
    assert r.morale == "rout" and r.outcome == {"a": "routed", "b": "won"}


def test_iw_h_6_draw_keeps_the_melee_going():
    """IW-H 6.4: equal points is a draw: nobody tests, both stay."""
    r = C_melee.resolve_melee(Side(_p(4)), Side(_p(4)), _scripted([3, 2, 1, 1]))
    assert r.points == {"a": 1, "b": 1} and r.winner == "" and r.morale == ""
    assert r.outcome == {"a": "drawn", "b": "drawn"}


# == the text's matchups read as the period did ===================================================

def test_iw_h_16_swiss_pike_beat_gendarmes_in_front_and_break_in_the_flank():
    """IW-H 16: Swiss pike usually beat unsupported gendarmes frontally, but are vulnerable in
    the flank."""
    front = melee_odds(Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE))
    assert front.win["b"] > 0.55 and front.win["a"] < 0.2
    flank = melee_odds(Side(C_odds.GENDARMES, charging=True), Side(C_odds.SWISS_PIKE, flanked=True))
    assert flank.win["a"] > 0.9 and flank.p("b", "routed", "destroyed") > 0.4


def test_iw_h_16_gendarmes_crush_militia_unreliable_foot_and_stradiots():
    """IW-H 16: gendarmes crush militia and unreliable foot, and light horse."""
    for foe in (C_odds.ITALIAN_FOOT, C_odds.STRADIOTS, C_odds.RABBLE):
        o = melee_odds(Side(C_odds.GENDARMES, charging=True), Side(foe))
        assert o.win["a"] > 0.75 and o.win["b"] < 0.1
    assert melee_odds(Side(C_odds.STRADIOTS, charging=True), Side(C_odds.GENDARMES)).win["a"] < 0.05


def test_iw_h_16_shot_beats_pike_and_a_screen_blunts_it():
    """IW-H 16: Swiss pike are vulnerable to arquebus and artillery fire; a skirmisher screen
    blunts the arquebus somewhat (less, not nothing)."""
    bare = shot_odds(C_odds.SPANISH_ARQ, C_odds.SWISS_PIKE, "short")
    screened = shot_odds(C_odds.SPANISH_ARQ, replace(C_odds.SWISS_PIKE, screen=True), "short")
    assert bare.disorder + bare.rout > 0.2
    assert 0 < screened.mean < bare.mean and screened.disorder < bare.disorder
    assert screened.mean >= Fraction(3, 4) * bare.mean
    guns = shot_odds(C_odds.FRENCH_GUNS, C_odds.SWISS_PIKE, "long")
    assert guns.mean >= 2 and guns.disorder > 0.15


def test_iw_h_16_arquebus_outshoots_crossbow_close_not_far():
    """IW-H 5.1, 5.3: at short range the arquebus hits harder than the crossbow; at long range
    they are even, and the crossbow reaches 5 UDM where the arquebus cannot."""
    a_s, x_s = shot_odds(C_odds.ITALIAN_ARQ, C_odds.ITALIAN_XBOW, "short"), shot_odds(C_odds.ITALIAN_XBOW, C_odds.ITALIAN_ARQ, "short")
    a_l, x_l = shot_odds(C_odds.ITALIAN_ARQ, C_odds.ITALIAN_XBOW, "long"), shot_odds(C_odds.ITALIAN_XBOW, C_odds.ITALIAN_ARQ, "long")
    assert a_s.mean > x_s.mean and a_l.mean == x_l.mean
    assert C_shoot.range_band("crossbow", 5) == "long" and C_shoot.range_band("arquebus", 5) is None


def test_iw_h_16_rabble_rarely_hold():
    """IW-H 7, 16: a rabble company rarely holds anything: charged by militia it wins under one
    time in ten and routs over a third of the time."""
    o = melee_odds(Side(C_odds.MILITIA_PIKE, charging=True), Side(C_odds.RABBLE))
    assert o.win["b"] < 0.1 and o.p("b", "routed", "destroyed") > 0.33


# == morale, captains, movement ====================================================================

def test_iw_h_7_morale_targets_are_table_6():
    """IW-H 7.1 (HERALD D32): the morale targets are the text's Table 6 ladder."""
    from engine.italianwars import tables
    assert C.MORALE_TARGET == dict(tables.ACTIVATION_MINIMUM)


@pytest.mark.parametrize("morale, mod, die, disordered, result", [
    ("professionals", 0, 2, False, "pass"), ("professionals", 0, 1, False, "disorder"),
    ("professionals", -3, 1, False, "rout"),            # total -2: short by 4
    ("rabble", 0, 6, False, "pass"), ("rabble", -2, 6, False, "pass"),   # a 6 always passes
    ("rabble", 0, 2, False, "rout"), ("rabble", 0, 3, False, "disorder"),
    ("mercenaries", 0, 3, True, "rout"),                # already disordered
    ("gentlemen", 3, 1, False, "disorder"),            # a 1 always fails
])
def test_iw_h_7_2_morale_outcome(morale, mod, die, disordered, result):
    """IW Disordine ("falliscono un test di morale"), IW-H 7.2."""
    assert C.morale_outcome(morale, mod, die, disordered) == result


def test_iw_h_8_captain_risk_odds():
    """IW 2i, IW-H 8: a shot that costs 2+ points risks the captain: 1/6 x 1/2 = 1/12 killed."""
    target = replace(C_odds.LANDSKNECHTS, points_lost=0)
    shooter = replace(C_odds.SPANISH_ARQ, shooting=10)            # column 10+: always 2+ points
    assert shot_odds(shooter, target, "short").captain == Fraction(1, 12)
    assert C.captain_fate("shot", 6) == "killed" and C.captain_fate("melee", 6) == "captured"
    assert C.captain_fate("melee", 3) == ""


def test_iw_h_5_bad_weather_silences_firearms():
    """IW Tempo atmosferico ("Nessun arma da fuoco ... può sparare", "ridotti"), IW-H 5.3."""
    with pytest.raises(ValueError):
        C_shoot.shooting_column(C_odds.SPANISH_ARQ, C_odds.SWISS_PIKE, "short", weather="bad")
    good = C_shoot.shooting_column(C_odds.ITALIAN_XBOW, C_odds.SWISS_PIKE, "short")[0]
    assert C_shoot.shooting_column(C_odds.ITALIAN_XBOW, C_odds.SWISS_PIKE, "short", weather="bad")[0] == good - 1


def test_iw_h_mixed_armour_rule():
    """IW Tipo di armatura: the best armour only in good order from the front, else the lightest."""
    s = C_odds.SWISS_PIKE
    assert s.armour_class(True) == "armoured" and s.armour_class(False) == "protected"
    assert replace(s, disordered=True).armour_class(True) == "protected"


@pytest.mark.parametrize("cls, kw, udm", [
    ("foot", {}, 4), ("foot", {"terrain": "broken"}, 2), ("foot", {"terrain": "broken", "weather": "bad"}, 1),
    ("skirmisher", {"terrain": "broken"}, 6), ("horse_armoured", {"order": "march"}, 12),
    ("foot", {"order": "withdraw"}, 2), ("heavy_gun", {"terrain": "closed"}, 0),
    ("heavy_gun", {"terrain": "closed", "road": True}, 4), ("foot", {"routing": True}, 6),
])
def test_iw_h_2_move_allowance(cls, kw, udm):
    """IW-H 2 (and the text's halvings: IW Tempo atmosferico, IW Indietreggiare)."""
    assert C_move.move_allowance(cls, **kw) == udm


def test_iw_h_3_emergency_facing_matches_the_texts_example():
    """IW Risposte facoltative, the example: foot in the open may face a flank attacker only if
    its possible move is at least 2 UDM (IW-H 3.2: a facing change costs 1 UDM for foot)."""
    assert C_move.can_face_emergency("infantry", 2) and not C_move.can_face_emergency("infantry", Fraction(3, 2))
    assert C_move.can_face_emergency("infantry", C_move.move_allowance("foot", terrain="broken"))
    assert not C_move.can_face_emergency("infantry", C_move.move_allowance("foot", terrain="broken", weather="bad"))
    assert C_move.wheel_cost(90) == 1.57
