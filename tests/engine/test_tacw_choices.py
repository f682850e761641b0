"""TACW: the owner's choices inside a resolution (HERALD D93; choices.py): retreat hexes after
fire (§10.4.1, §11.4.3), rout hexes (§12.4), the tied attacker who advances (§10.4.6), the
double's wheeling flank (§10.4.8) and the one-hexside turn of an advancing unit (§10.4.7).

With the "ask" policies the command stops before anything of it happens; each answer replays it
from the same state with the same dice; answering with Herald's first option gives exactly the
automatic game. Dice in a command are die FACES (1-10): the d10 reads face - 1.
"""
from __future__ import annotations

import pytest

from engine.core.dice import DiceStream
from engine.tacw.sequence import choices as choices
from engine.tacw.close_combat import retreat as retreat
from engine.tacw.ruleset import TACW

from . import test_tacw_fire as tf
from . import test_tacw_melee as tm
from .tacw_helpers import refused

R, P = "royalist", "parliament"


# == a retreat after fire (§10.4.1, §11.4.3) =======================================================

def salvo(policy: str | None):
    """r1's Salvo (dice 2,4): 1 hit, p1 reaches its threshold, fails its MC and flees 2 hexes."""
    p = tf.pos(tf.heavy("r1", R, ["0505"], "E"), tf.heavy("p1", P, ["0605"], "W", morale=4))
    tf.never(p)
    if policy:
        p.go(P, f"policy retreat {policy}")
    return p


def test_10_4_a_fire_retreat_stops_for_the_owner_and_replays_with_the_same_dice():
    auto = salvo(None)
    auto.go(R, "salvo r1 0605 dice=2,4")
    auto_path = [e for e in auto.events if e.kind == "retreat"][0].outcome["path"]
    assert auto_path == [["0605"], ["0606"], ["0607"]]

    p = salvo("ask")
    before = p.st.state_hash()
    events = p.go(R, "salvo r1 0605 dice=2,4")
    pend = p.st.pending
    assert [e.kind for e in events] == ["retreat_choice"]
    assert pend["kind"] == "retreat" and pend["side"] == P and pend["unit"] == "p1"
    assert pend["options"][0] == "0606" and len(pend["options"]) >= 2
    # nothing of the Salvo happened yet: no hit, no marker, no die drawn
    assert p.unit("p1").casualties == 0 and not p.unit("r1").salvo_used and p.st.draws == 0
    assert TACW.to_act(p.st) == P and TACW.default_answer(p.st) == "retreat 0606"
    decision = TACW.pending(p.st)
    assert decision.kind == "retreat" and [a.line for a in decision.answers] == \
        [f"retreat {o}" for o in pend["options"]]
    refused(p, R, f"retreat {pend['options'][0]}", "Parliament's to choose")
    refused(p, P, "retreat 0101", "one of")
    refused(p, P, "choose 0606", "no choice is waiting")
    refused(p, R, "fire r1 0605", "waiting for Parliament")
    chosen = pend["options"][-1]
    p.go(P, f"retreat {chosen} dice=2,4")
    while p.st.pending:                                  # the second hex of the flight
        assert p.st.pending["answers"] == [chosen]
        p.go(P, f"retreat {p.st.pending['options'][0]} dice=2,4")
    path = [e for e in p.events if e.kind == "retreat"][0].outcome["path"]
    assert path[1] == chosen.split("/") and path != auto_path
    assert p.unit("p1").casualties == 1 and p.unit("r1").salvo_used

    # Herald's own first option each time gives exactly the automatic game
    q = salvo("ask")
    q.go(R, "salvo r1 0605 dice=2,4")
    while q.st.pending:
        q.go(P, f"retreat {q.st.pending['options'][0]} dice=2,4")
    q.st.policies[P].pop("retreat")
    auto.st.policies[P].pop("retreat", None)
    assert q.st.state_hash() == auto.st.state_hash()
    assert before != q.st.state_hash()


def test_d93_a_single_legal_option_is_never_asked():
    p = salvo("ask")
    choices.begin(p.st, [])
    assert choices.choose(p.st, P, "retreat", ["0606"], "where p1 retreats", "TACW §10.4",
                          p.unit("p1")) == "0606"
    with pytest.raises(choices.NeedChoice):
        choices.choose(p.st, P, "retreat", ["0606", "0506"], "where p1 retreats", "TACW §10.4", p.unit("p1"))
    choices.end(p.st)                                           # outside a command: Herald's choice
    assert choices.choose(p.st, P, "retreat", ["0606", "0506"], "x", "TACW §10.4", p.unit("p1")) == "0606"


# == the rout move (§12.4) =========================================================================

def test_12_4_the_owner_may_choose_each_rout_hex_among_those_he_can_pay_for():
    p = tm.pos(tm.heavy("r1", R, ["0505"], "E"), close=False)
    p.unit("r1").morale_state = "broken"
    p.st.policies[R]["retreat"] = "ask"
    choices.begin(p.st, [])
    with pytest.raises(choices.NeedChoice) as need:
        tm.rout(p, "r1")
    assert need.value.kind == "retreat" and need.value.side == R and need.value.section == "TACW §12.4"
    first = need.value.options[0]
    assert len(need.value.options) >= 2 and p.unit("r1").hexes == ["0505"]
    # auto: Herald's cheapest hex first, never asked
    a = tm.pos(tm.heavy("r1", R, ["0505"], "E"), close=False)
    a.unit("r1").morale_state = "broken"
    choices.begin(a.st, [])
    ev = tm.rout(a, "r1")
    assert ev[0].outcome["path"][1] == first.split("/")


def test_12_4_rout_answers_replay_hex_by_hex():
    def routing():
        p = tm.pos(tm.heavy("r1", R, ["0505"], "E"), close=False)
        p.unit("r1").morale_state = "broken"
        p.st.policies[R]["retreat"] = "ask"
        return p
    answers: list[str] = []
    while True:
        p = routing()
        choices.begin(p.st, answers)
        try:
            ev = tm.rout(p, "r1")
            break
        except choices.NeedChoice as need:
            answers.append(need.options[-1])           # always the last option offered
            assert len(answers) < 10
    path = ev[0].outcome["path"]
    assert ["/".join(h) for h in path[1:len(answers) + 1]] == answers
    a = routing()
    a.st.policies[R]["retreat"] = "auto"
    choices.begin(a.st, [])
    assert tm.rout(a, "r1")[0].outcome["path"] != path


# == the advance after close combat (§10.4.6-§10.4.8) ============================================

def tie(policy: str | None):
    """r1 (0505 W) and r2 (0406 NW) assault p1 in 0405; dice 8 (a 7): DB2, the attacker must
    advance; r1 and r2 have the same morale."""
    p = tm.pos(tm.heavy("r1", R, ["0505"], "W"), tm.heavy("p1", P, ["0405"], "E"),
               tm.heavy("r2", R, ["0406"], "NW"))
    if policy:
        p.go(R, f"policy advance_choice {policy}")
    for line in ("attack r1 0405", "attack r2 0405"):
        p.go(R, line)
    return p


def test_10_4_6_on_a_tie_the_owner_chooses_who_advances_and_10_4_7_its_turn():
    auto = tie(None)
    auto.go(R, "resolve dice=8")
    assert auto.unit("r1").hexes == ["0405"] and auto.unit("r2").hexes == ["0406"]   # first designated

    p = tie("ask")
    p.go(R, "resolve dice=8")
    pend = p.st.pending
    assert pend["kind"] == "advance" and pend["options"] == ["r1", "r2"] and pend["section"] == "TACW §10.4.6"
    assert p.unit("p1").hexes == ["0405"]                       # nothing happened yet
    decision = TACW.pending(p.st)
    assert [a.line for a in decision.answers] == ["choose r1", "choose r2"]
    refused(p, R, "choose p1", "one of")
    refused(p, R, "retreat 0405", "no retreat choice is waiting")
    p.go(R, "choose r2 dice=8")
    pend = p.st.pending                                          # §10.4.7: the optional turn
    assert pend["kind"] == "advance" and pend["section"] == "TACW §10.4.7"
    assert pend["options"][0] == "keep" and len(pend["options"]) == 3 and pend["answers"] == ["r2"]
    facing = p.unit("r2").facing
    turn = pend["options"][1]
    p.go(R, f"choose {turn} dice=8")
    assert p.st.pending is None
    assert p.unit("r2").hexes == ["0405"] and p.unit("r1").hexes == ["0505"]
    assert p.unit("r2").facing != facing and p.unit("r2").facing in ((facing + 1) % 6, (facing - 1) % 6)
    assert [e for e in p.events if e.kind == "advance"][0].outcome["unit"] == "r2"

    q = tie("ask")                                               # first options = the automatic game
    q.go(R, "resolve dice=8")
    while q.st.pending:
        q.go(R, f"choose {q.st.pending['options'][0]} dice=8")
    q.st.policies[R].pop("advance_choice")
    assert q.st.state_hash() == auto.st.state_hash()


def test_10_4_8_the_owner_chooses_which_flank_of_a_double_wheels_and_it_may_not_turn():
    def double(policy):
        p = tm.pos(tm.heavy("r1", R, ["0505", "0506"], "W", strength=18), tm.heavy("p1", P, ["0405"], "E"))
        if policy:
            p.st.policies[R]["advance_choice"] = policy
        p.go(R, "attack r1 0405")
        return p
    auto = double(None)
    auto.go(R, "resolve dice=8")
    assert sorted(auto.unit("r1").hexes) == ["0405", "0505"]
    p = double("ask")
    p.go(R, "resolve dice=8")
    assert p.st.pending["options"] == ["0505/0405", "0405/0506"] and p.st.pending["section"] == "TACW §10.4.8"
    p.go(R, "choose 0405/0506 dice=8")
    assert p.st.pending is None                                # no turn offered to a double
    assert sorted(p.unit("r1").hexes) == ["0405", "0506"]


def test_d93_the_same_commands_and_answers_give_the_same_game():
    """The commands (answers included) are the truth: replaying them gives the same game."""
    p = tie("ask")
    p.go(R, "resolve dice=8")
    p.go(R, "choose r2 dice=8")
    p.go(R, "choose keep dice=8")
    q = tie("ask")
    for line in ("resolve dice=8", "choose r2 dice=8", "choose keep dice=8"):
        q.go(R, line)
    assert p.st.state_hash() == q.st.state_hash() and q.unit("r2").hexes == ["0405"]


def test_d93_one_answer_may_give_the_next_hexes_in_order_and_a_misfit_is_asked_again():
    one = salvo("ask")                                        # hex by hex
    one.go(R, "salvo r1 0605 dice=2,4")
    first = one.st.pending["options"][-1]
    one.go(P, f"retreat {first} dice=2,4")
    second = one.st.pending["options"][-1]
    one.go(P, f"retreat {second} dice=2,4")
    assert one.st.pending is None
    both = salvo("ask")                                       # the whole flight at once
    both.go(R, "salvo r1 0605 dice=2,4")
    both.go(P, f"retreat {first} {second} dice=2,4")
    assert both.st.pending is None and both.st.state_hash() == one.st.state_hash()
    misfit = salvo("ask")                                     # a second hex that does not fit
    misfit.go(R, "salvo r1 0605 dice=2,4")
    misfit.go(P, f"retreat {first} 0101 dice=2,4")
    assert misfit.st.pending["answers"] == [first] and misfit.st.pending["options"][-1] == second
