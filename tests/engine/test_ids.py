"""Every id discoverable (issue 12): the questions `units`, `wings`, `leaders` (TACW) and `units`
(Battle Cry), the refusals of an unknown id that list the valid ones or the closest few, and the
line that says whom the game waits on and the command that answers."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.core.game import Game, get_ruleset
from engine.core.ids import closest, unknown
from engine.core.pending import Answer, PendingDecision, answer_hint, waiting_line
from engine.tacw import ids as tacw_ids

R, P = "royalist", "parliament"
LIMIT = 2000                     # Discord's message length


def ask(g: Game, side: str | None, line: str) -> str:
    before = g.state.state_hash()
    text = g.ruleset.query(g.scenario, g.state, side, parse(line))
    assert g.state.state_hash() == before              # a question changes nothing
    return text


def refused(g: Game, side: str, line: str, *words: str) -> str:
    before = g.state.state_hash()
    with pytest.raises(Illegal) as err:
        g.apply(side, line)
    text = str(err.value)
    assert all(w in text for w in words), (words, text)
    assert g.state.state_hash() == before
    return text


@pytest.fixture
def edgehill() -> Game:
    return Game.new("tacw", "edgehill", 1)


# == TACW: units, wings, leaders ==================================================================

def test_units_lists_your_side_by_wing_with_ids_hex_facing_and_orders(edgehill):
    text = ask(edgehill, R, "units")
    assert "**r-right** Royalist right wing (cavalry) · Charge orders · Prince Rupert (`rupert`)" in text
    assert "`r-rupert` Rupert (cavalry) 3107 faces W · SP 3 M8" in text
    assert "p-fielding" not in text and "`r-fielding`" in text          # only the asker's side
    assert len(text) < LIMIT


def test_units_shows_a_units_state(edgehill):
    u = edgehill.state.units["r-rupert"]
    u.morale_state, u.formation, u.casualties, u.pistols = "shaken", "disordered", 1, 1
    line = ask(edgehill, R, "units r-right").splitlines()
    [rupert] = [x for x in line if x.startswith("`r-rupert`")]
    assert rupert.endswith("Shaken, disordered, 1 hit, pistols 1/2")


def test_units_filters_by_wing_unit_hex_side_or_all(edgehill):
    wing = ask(edgehill, R, "units p-right")
    assert wing.splitlines()[0].startswith("**p-right** Parliament right wing (cavalry) · Receive Charge orders")
    assert "`p-fielding` Fielding" in wing and "r-" not in wing.replace("p-right", "")
    assert ask(edgehill, R, "units 3107").startswith("`r-rupert` Rupert (cavalry) 3107 faces W")
    assert "Leaders with it: `rupert` Prince Rupert" in ask(edgehill, R, "units r-rupert")
    assert "p-fielding 1920" in ask(edgehill, R, "units parliament")       # 26 units: ids and hexes by wing
    both = ask(edgehill, None, "units")                         # a spectator sees both sides
    assert "__Royalist__" in both and "__Parliament__" in both
    assert ask(edgehill, R, "units all") == both
    assert ask(edgehill, R, "units 2912").startswith("No unit stands in 2912")


def test_units_refuses_an_unknown_filter_with_the_closest():
    g = Game.new("tacw", "edgehill", 1)
    with pytest.raises(Illegal) as err:
        ask(g, R, "units rigth")
    assert "'rigth' is not a side, a wing, a unit or a hex" in str(err.value) and "r-right" in str(err.value)
    with pytest.raises(Illegal, match="is a leader"):
        ask(g, R, "units rupert")


@pytest.mark.parametrize("scenario", ["edgehill", "first-newbury", "marston-moor", "naseby", "second-newbury"])
def test_every_answer_fits_one_discord_message(scenario):
    g = Game.new("tacw", scenario, 1)
    lines = ["units", "units all", "wings", "leaders"] + [f"units {s}" for s in (R, P)] + [
        f"units {w}" for w in g.state.wings]
    for side in (R, P, None):
        for line in lines:
            text = ask(g, side, line)
            assert 0 < len(text) < LIMIT, (scenario, side, line, len(text))
    # a long list is summarised and says what shows more
    big = ask(g, R, "units")
    assert "r-" in big and "`units <wing>`" in big if scenario == "marston-moor" else True


def test_wings_show_orders_commander_and_who_may_activate(edgehill):
    text = ask(edgehill, R, "wings")
    assert ("`r-right` Royalist right wing (cavalry): Charge orders · WC Prince Rupert (`rupert`) at 3107 "
            "· 8 units · ▶ may activate now") in text
    assert "`p-left` Parliament left wing (cavalry): Receive Charge orders" in text
    assert text.count("not Parliament's turn to activate") == 3              # read by either side
    edgehill.apply(R, "activate r-right")
    assert "· **active now**" in ask(edgehill, R, "wings royalist")
    assert "p-left" not in ask(edgehill, R, "wings royalist")


def test_leaders_show_role_hex_status_and_the_regiments_of_the_same_name(edgehill):
    text = ask(edgehill, P, "leaders")
    assert "`charles` King Charles I: Army Commander, value 0 · at 3314" in text
    assert "`rupert` Prince Rupert: Wing Commander of r-right, value -2 · at 3107 · not the regiment `r-rupert`" in text
    # Edgehill has a Fielding regiment on each side, and Lord Fielding commands Parliament's right
    assert "`fielding` Lord Fielding: Wing Commander of p-right, value 0 · at 1920 · not the regiment " \
           "`r-fielding`, `p-fielding`" in text
    assert "charles" not in ask(edgehill, P, "leaders parliament")


def test_the_questions_are_declared_for_both_rulesets_and_answered():
    for rid, verbs in (("tacw", ("units", "wings", "leaders")), ("battlecry", ("hand", "units"))):
        declared = {v.name for v in get_ruleset(rid).commands.verbs if v.reply == "query"}
        assert declared == set(verbs)


# == Battle Cry: units ============================================================================

def test_battle_cry_units_with_ids_hexes_figures_sections_and_generals():
    g = Game.new("battlecry", "first-bull-run", 1)
    text = ask(g, "union", "units")
    assert "`ui1` Burnside's brigade (infantry) 0503 · 4/4 figures · right/centre · with General `ug1` McDowell" in text
    assert "`ug1` McDowell (General) 0503 · right/centre · with `ui1` Burnside's brigade" in text
    assert "ci1" not in text and len(text) < LIMIT
    left = ask(g, "union", "units left")
    assert "`ui5` Schenck's brigade" in left and "ui1" not in left
    assert "`ci1` Jackson's brigade" in ask(g, "union", "units confederate")
    assert ask(g, "union", "units 0503").count("\n") == 1
    g.apply("union", f"play {g.state.hands['union'][0]}")
    with pytest.raises(Illegal, match="closest: ui1 .Burnside's brigade, 0503."):
        ask(g, "union", "units burnsde")


# == refusals of an unknown id ====================================================================

def test_core_closest_and_the_whole_list_when_few():
    pairs = [("r-right", "Royalist right wing"), ("r-centre", "Royalist centre"), ("r-left", "Royalist left wing")]
    assert unknown("right", "one of your wings", pairs) == (
        "'right' is not one of your wings: r-right (Royalist right wing), r-centre (Royalist centre), "
        "r-left (Royalist left wing)")
    many = [(f"u{i}", f"Unit {i}") for i in range(20)] + [("r-rupert", "Rupert")]
    assert closest("ruper", many)[0] == ("r-rupert", "Rupert")
    assert "closest: r-rupert (Rupert) (21 in all; `units` lists them)" in unknown("ruper", "a unit", many,
                                                                                    query="units")


def test_activate_an_unknown_wing_lists_your_wings(edgehill):
    refused(edgehill, R, "activate right",
            "'right' is not one of your wings: r-right (Royalist right wing (cavalry)), r-centre (Royalist centre), "
            "r-left (Royalist left wing (cavalry))", "TACW §3.2")
    refused(edgehill, R, "activate p-left", "'p-left' is not one of your wings")


def test_an_unknown_unit_gets_the_closest_ids_a_hex_or_a_leaders_name_is_explained(edgehill):
    edgehill.apply(R, "activate r-right")
    refused(edgehill, R, "move r-rupertt 3008", "'r-rupertt' is not one of your units: closest: r-rupert (Rupert, 3107)",
            "`units` lists them")
    refused(edgehill, R, "move maurice 3008", "r-i-maurice (I/Maurice, 3108), r-ii-maurice (II/Maurice, 3306)")
    refused(edgehill, R, "move 2912 3008", "no unit stands in 2912")
    refused(edgehill, R, "move rupert 3008", "'rupert' is a leader (Prince Rupert, Royalist), not a unit",
            "the regiment is r-rupert (Rupert)")
    refused(edgehill, R, "fire wilmot 3008", "the regiment is r-wilmot (Wilmot)")
    assert tacw_ids.unknown_unit(edgehill.state, "zzz") .startswith("'zzz' is not a unit id or a hex with a unit")


def test_an_unknown_leader_lists_your_leaders(edgehill):
    edgehill.apply(R, "activate r-right")
    refused(edgehill, R, "leader rupertt move 3108",
            "'rupertt' is not one of your leaders: charles (King Charles I), rupert (Prince Rupert), "
            "astley (Sir Jacob Astley), wilmot (Lord Wilmot)")
    refused(edgehill, R, "leader r-rupert move 3108", "'r-rupert' is a unit (Rupert), not a leader; your leaders:")


def test_battle_cry_unknown_piece_and_card_list_the_valid_ones():
    g = Game.new("battlecry", "first-bull-run", 1)
    hand = g.state.hands["union"]
    refused(g, "union", "play banana", "'banana' is not a Battle Cry command card: your hand holds "
            + ", ".join(dict.fromkeys(hand)))
    other = next(c for c in g.state.hands["confederate"] if c not in hand)
    refused(g, "union", f"play {other}", "is not in your hand (it holds " + ", ".join(dict.fromkeys(hand)))
    g.apply("union", f"play {hand[0]}")
    refused(g, "union", "order ui33", "'ui33' is not a piece id", "closest: ui3 (Sherman's brigade, 0803)")
    refused(g, "union", "order bnside", "closest: ui1 (Burnside's brigade, 0503)")
    refused(g, "union", "order 0909", "there is no piece in 0909; `units` lists every piece")


# == the game waits on the other side ============================================================

def test_answer_hint_and_waiting_line():
    d = PendingDecision("bypass", P, "Parliament may attempt a bypass",
                        (Answer("Bypass: left", "bypass p-left"), Answer("No", "bypass none")), "TACW §4.4")
    assert answer_hint(d.answers) == "bypass p-left|none"
    assert waiting_line(d) == ("Waiting for Parliament: may attempt a bypass (TACW §4.4). "
                               "Answer: `bypass p-left|none`")
    many = tuple(Answer(h, f"retreat {h}") for h in ("0101", "0102", "0103"))
    assert answer_hint(many, limit=2) == "retreat 0101|0102|…"


def test_a_side_that_must_answer_is_told_the_answer_not_only_that_it_has_no_wing(edgehill):
    edgehill.apply(P, "policy bypass ask")
    edgehill.apply(R, "activate r-right")
    assert edgehill.to_act == P
    decision = edgehill.ruleset.pending(edgehill.state)
    assert answer_hint(decision.answers) == "bypass p-left|p-centre|p-right|none"
    refused(edgehill, P, "move p-fielding 2020", "you have no active wing; the game is waiting for Parliament: "
            "may attempt a bypass (TACW §4.4). Answer: `bypass p-left|p-centre|p-right|none`")
    refused(edgehill, R, "move r-rupert 3008", "waiting for Parliament: may attempt a bypass",
            "`bypass p-left|p-centre|p-right|none`")


def test_status_names_the_wing_ids_the_questions_and_the_answer_awaited(edgehill):
    text = edgehill.ruleset.status(edgehill.scenario, edgehill.state)
    assert "Royalist: `r-right` Royalist right wing (cavalry) (Charge), `r-centre` Royalist centre (Charge)" in text
    assert "Ids: `units`, `wings`, `leaders`" in text
    edgehill.apply(P, "policy bypass ask")
    edgehill.apply(R, "activate r-right")
    text = edgehill.ruleset.status(edgehill.scenario, edgehill.state)
    assert ("Waiting for **Parliament**: Parliament may attempt a bypass (TACW §4.4): "
            "`bypass p-left|p-centre|p-right|none`") in text
    assert "Active: `r-right` Royalist right wing (cavalry)" in text


def test_a_decisions_buttons_name_each_unit_with_its_id():
    """Six Commanded Shot at Edgehill: a button names the unit's id beside its name."""
    g = Game.new("tacw", "edgehill", 1)
    g.state.pending = {"kind": "reaction_fire", "side": P, "options": ["p-commanded-shot-1", "p-commanded-shot-2"]}
    labels = [a.label for a in g.ruleset.pending(g.state).answers]
    assert labels == ["React: Commanded Shot (p-commanded-shot-1)", "React: Commanded Shot (p-commanded-shot-2)", "No"]


def test_battle_cry_units_fits_one_discord_message_in_every_scenario():
    rs = get_ruleset("battlecry")
    for sid, _ in rs.scenarios():
        g = Game.new("battlecry", sid, 1)
        for side in ("union", "confederate", None):
            for line in ("units", "units all", "units left", "units union", "units confederate"):
                assert 0 < len(ask(g, side, line)) < LIMIT, (sid, side, line)


def test_a_word_of_one_or_two_letters_is_not_matched_inside_every_name():
    many = [(f"r-unit-{i}", f"Molyneux {i}") for i in range(12)]
    assert closest("x", many) == [] and closest("ux", many) == []
    assert closest("moly", many)[0] == ("r-unit-0", "Molyneux 0")
