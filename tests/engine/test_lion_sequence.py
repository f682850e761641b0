"""Lion of the North: the card-driven turn [3], [13], command [4], rally [10], demoralisation
[11], camps [12 A], victory [14] and random events [15] (engine/lion/sequence, rules.py, checks.py).

A small battle of our own (MINI below) keeps the numbers easy to compute by hand: the Swedes
(player A, trained, south) have musketeers (1), a Pike & Shot (2) and regular cavalry (1) and
their commander-in-chief (2): 6 in all [11 B-C]; the Imperialists (player B, regular, north)
pikemen (1), a Tercio (3), a medium gun (1) and their commander-in-chief (2): 7.
"""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import Illegal
from engine.lion import checks, rules
from engine.lion.scenario import parse_scenario
from engine.lion.sequence import camps, cards, command, events, rally, victory
from engine.lion.setup import new_state
from engine.lion.state import CARDS

MINI = """
id = "mini"
title = "Mini test battle"
turn_limit = 12

[[armies]]
side = "swedish"
name = "Swedes"
nation = "swedish"
discipline = "trained"
player = "A"
home_edge = "south"

[[armies]]
side = "imperial"
name = "Imperialists"
nation = "imperial"
discipline = "regular"
player = "B"
home_edge = "north"

[[units]]
id = "sw-mus1"
side = "swedish"
name = "Blue musketeers"
type = "musketeers"
x = 80
y = 20
facing = 0

[[units]]
id = "sw-ps1"
side = "swedish"
name = "Yellow brigade"
type = "pike_and_shot"
x = 100
y = 20
facing = 0

[[units]]
id = "sw-cav1"
side = "swedish"
name = "Finnish horse"
type = "regular_cavalry"
x = 120
y = 20
facing = 0

[[units]]
id = "im-pk1"
side = "imperial"
name = "Pikes"
type = "pikemen"
x = 80
y = 100
facing = 180

[[units]]
id = "im-ter1"
side = "imperial"
name = "Old tercio"
type = "tercio"
x = 100
y = 100
facing = 180

[[units]]
id = "im-gun1"
side = "imperial"
name = "Medium battery"
type = "medium_guns"
x = 60
y = 100
facing = 180
deployed = true

[[generals]]
id = "sw-gen"
side = "swedish"
name = "Gustavus"
role = "cinc"
x = 90
y = 10
facing = 0

[[generals]]
id = "im-gen"
side = "imperial"
name = "Tilly"
role = "cinc"
x = 90
y = 110
facing = 180

[[camps]]
side = "swedish"
x = 20
y = 8
facing = 0

[[camps]]
side = "imperial"
x = 20
y = 112
facing = 180
"""

SW, IM = "swedish", "imperial"


@pytest.fixture(scope="module")
def sc():
    return parse_scenario(MINI, "mini")


@pytest.fixture
def st(sc):
    s = new_state(sc, 7)
    s.card, s.step = "move_a", "act"
    s.deck = [c for c in CARDS if c != "move_a"]
    s.drawn = ["move_a"]
    s.armies[SW].cpts = s.armies[SW].cpts_rolled = 5
    return s


def dice(*values) -> DiceStream:
    """A stream that must use exactly these die faces (tests' fixed dice)."""
    return DiceStream(7, 0, list(values), strict=True)


# -- the cards [3], [13] ---------------------------------------------------------------------------

def test_nine_cards_drawn_without_repeats_then_the_turn_ends(sc, st):
    """[3] the deck is drawn to the end, each card once; [13] nine cards; then the turn ends and
    the deck is shuffled again (HERALD D7)."""
    st.deck, st.drawn, st.card, st.step = list(CARDS), [], "", "draw"
    stream = DiceStream(11, 0)
    seen = []
    for _ in range(9):
        if st.deck:
            cards.draw_card(sc, st, stream, None)
            seen.append(st.card)
            st.step = "draw"
            st.pending = None
        if st.turn != 1:          # the end card may have ended the turn: stop there
            break
    if st.turn == 1:
        assert sorted(seen) == sorted(CARDS) and st.deck == []
        cards.end_turn(sc, st, stream, "all nine drawn")
    assert len(seen) == len(set(seen))
    assert st.turn == 2 and sorted(st.deck) == sorted(CARDS) and st.drawn == []


def test_every_card_is_drawn_once_when_the_end_card_lets_the_turn_run(sc, st):
    """[3] "quando tutte le carte sono esaurite il turno termina": with the end card's d6 a 1 the
    nine are all drawn in turn 1 and the walk starts turn 2 with a full deck."""
    st.deck, st.drawn, st.card, st.step = list(CARDS), [], "", "draw"
    stream = DiceStream(3, 0)
    for _ in range(9):
        card = next(c for c in CARDS if c in st.deck)      # a fixed order: the end card last
        if card == "end":
            stream.supplied = [1]
        cards.draw_card(sc, st, stream, card)
        st.step = "draw"
    assert sorted(st.drawn) == sorted(CARDS) and st.deck == [] and st.turn == 1
    cards.advance(sc, st, stream)
    assert st.turn == 2 and len(st.drawn) == 1 and len(st.deck) == 8


@pytest.mark.parametrize("roll,result", [(1, "continue"), (4, "continue"), (6, "end_turn")])
def test_end_card_d6(sc, st, roll, result):
    """[13] the end card: 1-4 the turn goes on, 6 the turn ends and the deck is shuffled."""
    st.units["sw-mus1"].moved = True
    st.deck.remove("end")
    st.card = "end"
    evs = cards.end_card(sc, st, dice(roll))
    assert evs[0].outcome == {"roll": roll, "result": result}
    if result == "continue":
        assert st.turn == 1 and "end" not in st.deck and st.units["sw-mus1"].moved
    else:
        assert st.turn == 2 and sorted(st.deck) == sorted(CARDS) and st.drawn == []
        assert not st.units["sw-mus1"].moved          # per-turn marks cleared


def test_end_card_five_rolls_a_random_event(sc, st):
    """[13] 5 = the random events table [15]: a 5 there is light rain."""
    st.card = "end"
    evs = cards.end_card(sc, st, dice(5, 5))
    assert [e.kind for e in evs][:2] == ["end_card", "random_event"]
    assert st.weather["rain"] == "light" and st.turn == 1


def test_move_card_rolls_cpts_by_discipline(sc, st):
    """[4 A], [4 E] the move card's owner rolls d8 (trained), d6 (regular), d4 (irregular)."""
    st.deck = list(CARDS)
    st.drawn = []
    cards.draw_card(sc, st, dice(8), "move_a")
    assert st.armies[SW].cpts == 8 and st.step == "act"
    with pytest.raises(Illegal, match="d6"):
        cards.draw_card(sc, st, dice(7), "move_b")           # the Imperialists roll a d6
    st.armies[IM].discipline = "irregular"
    assert command.roll_cpts(sc, st, IM, dice(4)).outcome == {"cpts": 4}
    with pytest.raises(Illegal, match="d4"):
        command.roll_cpts(sc, st, IM, dice(5))


def test_next_goes_to_contact_fire_then_draws(sc, st):
    """[3] cards 7-8: after the mover's `next`, the other player's contact fire, then the next
    card (drawn by Herald, HERALD D42); Cpts not spent are lost."""
    new, evs = rules.apply(sc, st, SW, parse("next"))
    assert "5 Cpts not spent are lost" in evs[0].narrative
    assert new.armies[SW].cpts == 0
    assert len(new.drawn) >= 2 and new.drawn[0] == "move_a"


def test_a_refused_command_leaves_the_state_unchanged(sc, st):
    """DESIGN: a refusal changes nothing: the Imperial player may not end the Swedish card."""
    before = st.to_dict()
    with pytest.raises(Illegal, match="move card"):
        rules.apply(sc, st, IM, parse("next"))
    with pytest.raises(Illegal, match="no decision"):
        rules.apply(sc, st, SW, parse("react keep"))
    with pytest.raises(Illegal, match="not looting"):
        rules.apply(sc, st, SW, parse("leave sw-mus1"))
    assert st.to_dict() == before


def test_a_card_with_nothing_to_do_passes(sc, st, monkeypatch):
    """HERALD D43: a card whose module says its owner has nothing to do passes by itself."""
    monkeypatch.setitem(rules.CARD_CHECKS, "shoot", [lambda sc, st, side: False])
    st.card, st.step = "shoot_a", "act"
    evs = cards.advance(sc, st, DiceStream(5, 0))
    assert evs[0].kind == "card_passed" and st.card != "shoot_a"


# -- command [4], [11 A] -------------------------------------------------------------------------------

def put(obj, x, y, facing=None):
    obj.x, obj.y = x, y
    if facing is not None:
        obj.facing = facing


def test_move_cost_general_within_40_cm(sc, st):
    """[4 C] 1 Cpt with the general within 40 cm; 2 beyond (sw-mus1's front at y 20: the
    general's base 2 cm deep, front at y 62 is exactly 40 cm away)."""
    put(st.generals["sw-gen"], 80, 62)
    assert checks.base_distance(st.generals["sw-gen"], st.units["sw-mus1"]) == 40.0
    assert command.move_cost(sc, st, SW, ["sw-mus1"])[0] == 1
    put(st.generals["sw-gen"], 80, 62.5)
    cost, why = command.move_cost(sc, st, SW, ["sw-mus1"])
    assert cost == 2 and "40.5 cm" in why


def test_move_cost_general_dead_or_in_contact(sc, st):
    """[4 C] 2 Cpts when the general is dead or in contact with enemy bases."""
    g = st.generals["sw-gen"]
    put(st.units["im-pk1"], 90, 10, 180)          # its front edge on the general's front (y 10)
    assert checks.in_contact_with_enemy(st, g)
    assert command.move_cost(sc, st, SW, ["sw-mus1"]) == (2, "2 Cpts: the general (sw-gen) is in contact with the enemy (LdN [4 C])")
    g.status = "killed"
    assert command.move_cost(sc, st, SW, ["sw-mus1"])[0] == 2


def test_forced_march_costs_one_more_and_never_for_a_group(sc, st):
    """[4 D] 1 Cpt extra for one unit; "non sono permessi ... marce forzate per gruppi"."""
    assert command.move_cost(sc, st, SW, ["sw-mus1"], forced=True)[0] == 2
    with pytest.raises(Illegal, match="group"):
        command.move_cost(sc, st, SW, ["sw-mus1", "sw-ps1"], forced=True)


def test_demoralised_costs(sc, st):
    """[11 A] demoralised: 2, 3 when the general is away, 1 straight to its own edge."""
    st.armies[SW].demoralised = True
    assert command.move_cost(sc, st, SW, ["sw-mus1"])[0] == 2
    assert command.move_cost(sc, st, SW, ["sw-mus1"], toward_own_edge=True)[0] == 1
    put(st.generals["sw-gen"], 80, 70)
    assert command.move_cost(sc, st, SW, ["sw-mus1"])[0] == 3
    assert command.move_cost(sc, st, SW, ["sw-mus1"], forced=True)[0] == 4


def test_spend(sc, st):
    """[4 A] a move is paid from the Cpts rolled; too few left is refused."""
    ev = command.spend(st, SW, 2, "moving sw-mus1")
    assert st.armies[SW].cpts == 3 and ev.outcome == {"cost": 2, "left": 3}
    with pytest.raises(Illegal, match="costs 4 Cpts, 3 left"):
        command.spend(st, SW, 4, "moving sw-ps1")


def test_visibility_takes_one_off_the_cpts(sc, st):
    """[15] 1 "Sottrarre 1 a tutti i lanci di dado per il numero di Cpts", never below 0."""
    st.weather["visibility"] = True
    assert command.roll_cpts(sc, st, SW, dice(5)).outcome == {"cpts": 4}
    assert command.roll_cpts(sc, st, SW, dice(1)).outcome == {"cpts": 0}


# -- rally [10] ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("discipline,fail,ok", [("trained", 4, 5), ("regular", 5, 6), ("irregular", 6, 7)])
def test_rally_thresholds(sc, st, discipline, fail, ok):
    """[10 A] 1d8: 5-8 trained, 6-8 regular, 7-8 irregular."""
    st.armies[SW].discipline = discipline
    u = st.units["sw-mus1"]
    u.hits = 1
    assert not rally.rally_unit(sc, st, u, dice(fail), SW).outcome["rallied"] and u.hits == 1
    assert rally.rally_unit(sc, st, u, dice(ok), SW).outcome["rallied"] and u.hits == 0


def test_rally_modifiers(sc, st):
    """[10 A] +1d3 general attached (a d6 halved, HERALD D9), -1 enemy within 10 cm; [11 A] -1
    demoralised; elite +1."""
    u = st.units["sw-mus1"]
    u.hits = 1
    st.generals["sw-gen"].attached_to = "sw-mus1"
    ev = rally.rally_unit(sc, st, u, dice(2, 5), SW)          # 2 + d3 (d6 5 -> 3) = 5
    assert ev.outcome["total"] == 5 and ev.outcome["rallied"]
    st.generals["sw-gen"].attached_to = ""
    u.hits = 1
    put(st.units["im-pk1"], 80, 30, 180)                      # 10 cm from sw-mus1's front
    st.armies[SW].demoralised = True
    u.quality = "elite"
    ev = rally.rally_unit(sc, st, u, dice(5), SW)
    assert [m.value for m in ev.modifiers] == [-1, -1, 1] and ev.outcome["total"] == 4
    assert not ev.outcome["rallied"]


def test_rally_under_medium_guns_at_short_range(sc, st):
    """[10 A] -1 "sotto tiro di artiglieria media o pesante a distanza breve" (HERALD D52): the
    deployed medium gun 12 cm away, the unit in its arc."""
    u = st.units["sw-mus1"]
    put(u, 60, 88)
    u.hits = 1
    ev = rally.rally_unit(sc, st, u, dice(5), SW)
    assert ev.modifiers[0].value == -1 and "im-gun1" in ev.modifiers[0].reason and not ev.outcome["rallied"]
    st.units["im-gun1"].deployed = False                      # limbered: it cannot fire
    u.hits = 1
    assert rally.rally_unit(sc, st, u, dice(5), SW).outcome["rallied"]


def test_tercio_recovers_one_level_and_contact_forbids(sc, st):
    """[12 F] "Un Tercio recupera, al massimo, un fattore di disordine per volta"; [10 A] units in
    contact do not try."""
    t = st.units["im-ter1"]
    t.hits = 3
    rally.rally_unit(sc, st, t, dice(8), IM)
    assert t.hits == 2
    put(st.units["sw-cav1"], 100, 100, 0)      # its front on the Tercio's front
    assert rally.rally_card(sc, st, IM, dice())[0].narrative.startswith("Imperial has no disordered unit")


# -- hits, demoralisation [11], victory [14] ---------------------------------------------------------

def test_hits_destroy_at_two_three_four(sc, st):
    """[9 A] the second hit destroys; [12 E] P&S the third; [12 F] a Tercio the fourth."""
    for uid, need in (("sw-mus1", 2), ("sw-ps1", 3), ("im-ter1", 4)):
        u = st.units[uid]
        for _ in range(need - 1):
            assert checks.hit(sc, st, u, "test").kind == "hit"
        assert checks.hit(sc, st, u, "test").kind == "destroyed" and u.status == "destroyed"


def test_demoralisation_at_40_percent_rounded_up(sc, st):
    """[11 A] 40% rounded up of the weighted total [11 B-C]: Swedes 6 -> 3 (2.4 up)."""
    assert checks.weighted_losses(sc, st, SW)["demoralised_at"] == 3
    st.units["sw-ps1"].status = "destroyed"                    # P&S counts 2
    assert victory.check(sc, st) == [] and not st.armies[SW].demoralised
    st.units["sw-mus1"].status = "destroyed"
    evs = victory.check(sc, st)
    assert evs[0].kind == "demoralised" and st.armies[SW].demoralised
    st.units["sw-mus1"].status = "active"                      # back: still demoralised [11 B]
    victory.check(sc, st)
    assert st.armies[SW].demoralised


def test_general_weights(sc, st):
    """[11 B] the commander-in-chief counts 2: his death and the P&S's make 4 of 6."""
    st.generals["sw-gen"].status = "killed"
    st.units["sw-ps1"].status = "destroyed"
    assert checks.weighted_losses(sc, st, SW)["demoralisation"] == 4


@pytest.mark.parametrize("own_lost,level", [((), "decisive"), (("sw-ps1",), "partial"),
                                            (("sw-ps1", "sw-mus1"), "pyrrhic")])
def test_victory_levels(sc, st, own_lost, level):
    """[14 A] 60% of the enemy (Imperialists 7 -> 5, 4.2 up): decisive under 30% of one's own
    losses, partial 30-40%, Pyrrhic above 40% (Swedes: 0/6, 2/6 = 33%, 3/6 = 50%)."""
    for uid in own_lost:
        st.units[uid].status = "destroyed"
    st.units["im-ter1"].status = "destroyed"
    st.units["im-gun1"].status = "destroyed"
    victory.check(sc, st)
    assert st.phase != "over"                                   # 4 of 7: not yet
    st.units["im-pk1"].status = "destroyed"
    evs = victory.check(sc, st)
    assert st.phase == "over" and st.winner == SW
    assert evs[-1].outcome["level"] == level and level in st.result


def test_sunset_end_draw_or_partial(sc, st):
    """[14 B] the sunset without a 60% victory: a draw, unless only one army is demoralised."""
    st.weather["sunset_turns"] = 1
    cards.end_turn(sc, st, DiceStream(1, 0), "test")
    assert st.phase == "over" and st.winner is None and st.result.startswith("A draw")
    st2 = new_state(sc, 7)
    st2.armies[IM].demoralised = True
    victory.end_by_time(sc, st2, "the sun has set")
    assert st2.winner == SW and "partial victory" in st2.result


def test_turn_limit_ends_the_battle(sc, st):
    """HERALD D25: after the scenario's last turn the battle ends as at sunset [14 B]."""
    st.turn = 12
    cards.end_turn(sc, st, DiceStream(1, 0), "test")
    assert st.phase == "over" and st.turn == 12


# -- random events [15] --------------------------------------------------------------------------------

def test_visibility_event_and_its_test(sc, st):
    """[15] 1: limited until a start-of-turn d6 of 4-6."""
    events.random_event(sc, st, dice(), roll=1)
    assert st.weather["visibility"]
    events.visibility_test(sc, st, dice(3))
    assert st.weather.get("visibility")
    events.visibility_test(sc, st, dice(4))
    assert "visibility" not in st.weather


def test_first_sunset_asked_and_ignored_when_both_agree(sc, st):
    """[15] 2 the first sunset may be ignored if both players agree (HERALD D47): A is asked
    first, then B."""
    st.card, st.step = "end", "draw"
    events.random_event(sc, st, dice(3, 4), roll=2)
    assert st.pending["kind"] == "sunset" and st.pending["side"] == SW and "7 turns" in st.pending["prompt"]
    st.deck = list(CARDS)
    new, _ = rules.apply(sc, st, SW, parse("react ignore"))
    assert new.pending["side"] == IM
    new, evs = rules.apply(sc, new, IM, parse("react ignore"))
    assert new.weather["sunset_ignored"] and "sunset_turns" not in new.weather
    assert any("ignored" in e.narrative for e in evs)


def test_sunset_kept_then_counts_down(sc, st):
    """[15] 2: 2d6 turns, the current one counting as the first (HERALD D45); a second sunset
    event later is never ignored (D46)."""
    st.policies = {SW: {"sunset": "keep"}}
    events.random_event(sc, st, dice(1, 1), roll=2)
    assert st.weather["sunset_turns"] == 2 and st.pending is None
    cards.end_turn(sc, st, DiceStream(1, 0), "test")
    assert st.phase != "over" and st.turn == 2
    cards.end_turn(sc, st, DiceStream(1, 0), "test")
    assert st.phase == "over"


def test_a_later_sunset_is_not_asked(sc, st):
    """[15] 2 only the first sunset may be ignored."""
    st.weather["sunset_seen"] = True
    events.random_event(sc, st, dice(6, 5), roll=2)
    assert st.weather["sunset_turns"] == 11 and st.pending is None


def test_surprise_march(sc, st):
    """[15] 3 a die each, ties rolled again; the winner's 1d4 units triple their speed this turn
    or the next."""
    events.random_event(sc, st, dice(4, 4, 2, 5, 3), roll=3)
    assert st.armies[IM].surprise_march == 3 and st.armies[IM].surprise_turns == 2
    assert st.armies[SW].surprise_march == 0
    events.end_of_turn(sc, st)
    assert st.armies[IM].surprise_march == 3
    events.end_of_turn(sc, st)
    assert st.armies[IM].surprise_march == 0


def test_reinforcements(sc, st):
    """[15] 4 the winner's 1d4 bases destroyed by the enemy come back within 10 cm of his edge,
    not guns; still lost for victory, no longer for demoralisation [12 B] (HERALD D48: a P&S is
    two bases)."""
    st.units["sw-ps1"].status = "destroyed"
    st.units["sw-mus1"].status = "destroyed"
    events.random_event(sc, st, dice(6, 1, 2), roll=4)
    ps = st.units["sw-ps1"]
    assert ps.alive and ps.y == 10.0 and ps.facing == 0.0 and ps.hits == 0
    assert st.units["sw-mus1"].status == "destroyed"            # 2 bases, both used
    assert st.returned == ["sw-ps1"]
    lo = checks.weighted_losses(sc, st, SW)
    assert lo["demoralisation"] == 1 and lo["victory"] == 3


def test_reinforcements_chosen_by_the_player(sc, st):
    """[15] 4 with `policy reinforcements ask`: which unit and where."""
    st.units["sw-mus1"].status = "destroyed"
    st.policies = {SW: {"reinforcements": "ask"}}
    events.random_event(sc, st, dice(6, 1, 1), roll=4)
    assert st.pending["kind"] == "reinforcements"
    st.deck = list(CARDS)
    new, _ = rules.apply(sc, st, SW, parse("react bring sw-mus1 150"))
    u = new.units["sw-mus1"]
    assert u.alive and (u.x, u.y) == (150.0, 10.0)


@pytest.mark.parametrize("roll,rain", [(5, "light"), (6, "heavy")])
def test_rain(sc, st, roll, rain):
    """[15] 5-6 for the next two moves: this turn and the next (HERALD D23)."""
    events.random_event(sc, st, dice(), roll=roll)
    assert st.weather["rain"] == rain
    events.end_of_turn(sc, st)
    assert st.weather["rain"] == rain
    events.end_of_turn(sc, st)
    assert "rain" not in st.weather


# -- camps [12 A] ----------------------------------------------------------------------------------------

def test_camp_capture_looting_leave_and_recapture(sc, st):
    """[12 A] an enemy base in an ungarrisoned camp captures it (2 units for a trained army), its
    looters are disordered until a d6 of 4-6; the owner's unit takes it back: no longer a loss for
    demoralisation, still one for victory."""
    pk = st.units["im-pk1"]
    put(pk, 20, 8, 180)                        # its front on the Swedish camp's front edge (y 8)
    evs = camps.update(sc, st)
    camp = st.camps[SW]
    assert camp.captured_by == IM and pk.looting and evs[0].kind == "camp_captured"
    assert checks.weighted_losses(sc, st, SW)["demoralisation"] == 2
    st.card = "move_b"
    st.armies[IM].cpts = 3
    ev = camps.do_leave(sc, st, IM, parse("leave im-pk1"), dice(3))[0]
    assert not ev.outcome["left"] and pk.looting and pk.moved
    pk.moved = False
    camps.do_leave(sc, st, IM, parse("leave im-pk1"), dice(4))
    assert not pk.looting and camp.looters == []
    put(pk, 60, 60)                            # it marches off
    put(st.units["sw-mus1"], 20, 10)           # a Swedish unit against its camp's front
    camps.update(sc, st)
    assert camp.captured_by == "" and camp.recaptured
    lo = checks.weighted_losses(sc, st, SW)
    assert lo["demoralisation"] == 0 and lo["victory"] == 2
