"""TACW sequence of play: initiative (§4.1), precedence (§4.2, the book's own example),
continuation (§4.3), bypass (§4.4), order change (§5.7), passing, the end of the turn and of
the battle. Dice: `dice=N` words give 1-based faces, so the d10 reads N-1."""
import pytest

from engine.core.errors import Illegal
from engine.core.game import Game

from .tacw_helpers import Position

WINGS = [("a1", "royalist", "a1-wc", False), ("a2", "royalist", "a2-wc", False),
         ("a3", "royalist", "a3-wc", False), ("b1", "parliament", "b1-wc", False),
         ("b2", "parliament", "b2-wc", False), ("b3", "parliament", "b3-wc", False)]


def three_wings(orders, values=None, seed=1):
    values = values or {}
    units, leaders = [], []
    for i, (wid, side, wc, _) in enumerate(WINGS):
        col = 12 if side == "royalist" else 4
        units.append((f"u-{wid}", side, wid, "heavy", [f"{col:02d}{3 + 3 * (i % 3):02d}"],
                      "W" if side == "royalist" else "E"))
        leaders.append((wc, side, "wc", values.get(wc, 0), wid, f"u-{wid}"))
    leaders += [("r-ac", "royalist", "ac", 0, None, "u-a1"), ("p-ac", "parliament", "ac", 0, None, "u-b1")]
    return Position(units, wings=WINGS, leaders=leaders, orders=orders, seed=seed)


def test_tacw_4_2_2_book_example_precedence():
    """A: two Charge wings and one Rally; B: Charge, Make Ready, Rally. A has the initiative and
    the order is A-Charge, B-Charge, A-Charge, then B's Make Ready, then the Rally wings."""
    p = three_wings({"a1": "charge", "a2": "charge", "a3": "rally",
                     "b1": "charge", "b2": "make_ready", "b3": "rally"})
    assert p.st.initiative == "royalist"
    sequence = []
    for _ in range(6):
        side = p.st.phasing
        wing = None
        for w in ("a1", "a2", "a3", "b1", "b2", "b3"):
            try:
                p.go(side, f"activate {w}")
                wing = w
                break
            except Illegal:
                continue
        assert wing, f"{side} could activate nothing"
        sequence.append(p.st.wings[wing].order)
        sequence[-1] = f"{side[0]}-{sequence[-1]}"
        p.go(side, "stop")
    assert sequence[:4] == ["r-charge", "p-charge", "r-charge", "p-make_ready"]
    assert sorted(sequence[4:]) == ["p-rally", "r-rally"]
    assert p.st.turn == 2                      # all six activated: the turn ended


def test_tacw_4_2_lower_tier_refused_while_a_higher_waits():
    p = three_wings({"a1": "charge", "a2": "rally", "a3": "rally",
                     "b1": "rally", "b2": "rally", "b3": "rally"})
    with pytest.raises(Illegal, match="Charge activate first: a1"):
        p.go("royalist", "activate a2")
    with pytest.raises(Illegal, match="phasing"):
        p.go("parliament", "activate b1")


@pytest.mark.parametrize("orders,values,winner", [
    ({"a1": "charge", "b1": "charge", "b2": "charge"}, {}, "parliament"),           # more Charge
    ({"a1": "receive_charge", "a2": "receive_charge", "b1": "receive_charge"}, {}, "royalist"),
    ({"a1": "charge", "b1": "charge"}, {"b2-wc": -2}, "parliament"),               # better WC
])
def test_tacw_4_1_initiative(orders, values, winner):
    full = {w[0]: "make_ready" for w in WINGS}
    full.update(orders)
    p = three_wings(full, values)
    assert p.st.initiative == winner and p.st.phasing == winner


def test_tacw_4_1_initiative_tie_rolls_dice():
    full = {w[0]: "make_ready" for w in WINGS}
    p = three_wings(full)                     # no Charge, no Receive Charge, equal WCs
    ev = p.events[0]
    assert ev.kind == "initiative" and len(ev.dice) >= 2 and "higher die" in ev.narrative


def test_tacw_4_3_continuation_success_and_failure():
    p = three_wings({w[0]: "charge" if w[1] == "royalist" else "receive_charge" for w in WINGS},
                    {"a1-wc": -1})
    p.go("royalist", "activate a1")
    p.go("royalist", "continue dice=5")       # 4 - 1 = 3 <= 3 (Charge): success
    assert p.st.activation.number == 2 and p.st.wings["a1"].activations == 2
    p.go("royalist", "continue dice=5")       # 4 - 1 + 1 (second attempt) = 4 > 3: fails
    assert p.st.leaders["a1-wc"].finished and p.st.wings["a1"].done
    ev = [e for e in p.events if e.kind == "continuation"][0]
    assert sorted((m.value, m.reason) for m in ev.modifiers) == [
        (-1, "Wing Commander a1-wc"), (1, "second continuation attempt")]


def test_tacw_4_3_no_continuation_on_rally_or_after_two():
    p = three_wings({w[0]: "rally" for w in WINGS})
    p.go(p.st.phasing, f"activate {'a1' if p.st.phasing == 'royalist' else 'b1'}")
    with pytest.raises(Illegal, match="Rally orders may not continue"):
        p.go(p.st.activation.side, "continue")
    p = three_wings({w[0]: "charge" if w[1] == "royalist" else "receive_charge" for w in WINGS},
                    {"a1-wc": -2})
    p.go("royalist", "activate a1")
    p.go("royalist", "continue dice=1")
    p.go("royalist", "continue dice=1")
    with pytest.raises(Illegal, match="twice"):
        p.go("royalist", "continue")


def test_tacw_4_4_bypass_success_then_the_bypassed_wing_activates():
    p = three_wings({w[0]: "charge" for w in WINGS}, {"a1-wc": -2, "a2-wc": -2, "a3-wc": -2})
    assert p.st.initiative == "royalist"
    p.go("parliament", "policy bypass ask")
    p.go("royalist", "activate a1")
    assert p.st.pending["kind"] == "bypass" and p.st.pending["side"] == "parliament"
    with pytest.raises(Illegal):
        p.go("royalist", "stop")              # the bypass decision comes first
    p.go("parliament", "bypass b1 dice=4")    # 3 <= 4 (Charge): success
    assert p.st.activation.wing == "b1" and p.st.wings["a1"].bypassed
    p.go("parliament", "stop")
    assert p.st.activation.wing == "a1" and p.st.activation.step == "order_change"
    assert p.st.pending is None               # a bypassed wing is not bypassed again


def test_tacw_4_4_2_failed_bypass_no_continue_then_finished():
    p = three_wings({w[0]: "charge" for w in WINGS}, {"a1-wc": -2, "a2-wc": -2, "a3-wc": -2})
    p.go("parliament", "policy bypass ask")
    p.go("royalist", "activate a1")
    p.go("parliament", "bypass b1 dice=10")   # 9 > 4: fails
    assert p.st.leaders["b1-wc"].no_continue and p.st.activation.wing == "a1"
    p.go("royalist", "stop")
    assert p.st.phasing == "parliament"          # Charge tier: the players alternate
    p.go("parliament", "activate b2")
    p.go("parliament", "stop")
    p.go("royalist", "activate a2")
    assert p.st.pending["kind"] == "bypass" and "b1" in p.st.pending["options"]
    p.go("parliament", "bypass b1 dice=10")      # second failure: b1's commander Finishes
    assert p.st.leaders["b1-wc"].finished and p.st.wings["b1"].done


def test_tacw_4_4_3_bypassing_a_continuation_cancels_it():
    p = three_wings({w[0]: "charge" for w in WINGS}, {"a1-wc": -2, "a2-wc": -2, "a3-wc": -2})
    p.go("parliament", "policy bypass ask")
    p.go("royalist", "activate a1")
    p.go("parliament", "bypass none")
    p.go("royalist", "continue dice=1")
    assert p.st.pending and p.st.pending["continuation"]
    p.go("parliament", "bypass b2 dice=1")
    assert p.st.wings["a1"].done and p.st.leaders["a1-wc"].finished
    assert p.st.activation.wing == "b2" and p.st.activation.resume_wing is None


def test_tacw_5_7_order_change():
    p = three_wings({w[0]: "charge" if w[1] == "royalist" else "receive_charge" for w in WINGS})
    p.go("royalist", "activate a1")
    with pytest.raises(Illegal, match="already on Charge"):
        p.go("royalist", "change charge")
    p.go("royalist", "change make_ready dice=1")
    ev = [e for e in p.events if e.kind == "order_change"][0]
    assert ev.section == "TACW §5.7" and ev.table == "Order Change table"
    assert p.st.wings["a1"].order == ("make_ready" if ev.outcome["success"] else "charge")
    with pytest.raises(Illegal, match="once"):
        p.go("royalist", "change rally")


def test_tacw_3_2_passing():
    p = three_wings({w[0]: "make_ready" if w[1] == "royalist" else "charge" for w in WINGS})
    assert p.st.phasing == "parliament"
    with pytest.raises(Illegal, match="Charge orders may not pass"):
        p.go("parliament", "pass")
    p = three_wings({w[0]: "make_ready" for w in WINGS})
    first = p.st.phasing
    p.go(first, "pass")
    assert p.st.phasing != first and p.st.turn == 1
    p.go(p.st.phasing, "pass")
    assert p.st.turn == 2                     # two passes in a row end the Activation Phase


def test_edgehill_played_with_stops_reaches_the_end_and_victory_levels():
    g = Game.new("tacw", "edgehill", 5)
    assert g.state.phase == "activation" and g.state.initiative == "royalist"
    guard = 0
    while g.state.phase != "over" and guard < 400:
        side = g.to_act
        if g.state.activation is None:
            wings = [w.id for w in g.state.wings.values() if w.side == side]
            for w in wings:
                try:
                    g.apply(side, f"activate {w}")
                    break
                except Illegal:
                    continue
            else:
                g.apply(side, "pass")
        else:
            g.apply(side, "stop")
        guard += 1
    assert g.state.phase == "over" and g.state.turn == 9
    assert "Parliament marginal victory" in g.state.result      # 0 VP each: difference 0
    replay = Game.new("tacw", "edgehill", 5)
    for rec in g.history:
        replay.apply(rec.side, rec.text)
    assert replay.state.state_hash() == g.state.state_hash()


def test_policies_are_shown_on_request_and_give_the_deadline_answer():
    g = Game.new("tacw", "edgehill", 5)
    g.apply("parliament", "policy reaction never")
    g.apply("parliament", "policy bypass ask")
    text = g.apply("parliament", "policy show")[0].narrative
    assert "reaction fire: never," in text and "bypass: ask," in text and "intercept: never (default)" in text
    assert g.ruleset.default_answer(g.state) is None          # nothing pending
    g.apply("royalist", "activate r-centre")
    assert g.state.pending["kind"] == "bypass"
    assert g.ruleset.default_answer(g.state) == "bypass none"
    g.apply("parliament", g.ruleset.default_answer(g.state))
    assert g.state.pending is None and g.state.activation.wing == "r-centre"


def test_tacw_5_3_5_dead_army_commander_replaced_by_the_senior_wing_commander():
    from engine.core.dice import DiceStream
    from engine.tacw.sequence.endturn import marker_removal
    g = Game.new("tacw", "edgehill", 5)
    st = g.state.copy()
    king = st.leaders["charles"]
    king.status, king.removed_turn, king.hex = "removed", st.turn, None
    # supply the Leader Replacement roll: face 6 = a roll of 5: "eliminated"
    events = marker_removal(g.scenario, st, DiceStream(st.seed, st.draws, [6]))
    texts = " ".join(e.narrative for e in events)
    assert st.leaders["charles"].status == "dead"
    rupert = st.leaders["rupert"]
    assert rupert.role == "ac" and rupert.wing is None and "takes command of the army" in texts
    new_wc = st.leaders[st.wings["r-right"].commander]
    assert new_wc.generic and new_wc.role == "wc" and new_wc.hex == rupert.hex
    assert st.army_commander("royalist") is rupert


def test_tacw_5_1_2_army_commander_influence_is_his_one_action():
    p = three_wings({w[0]: "charge" if w[1] == "royalist" else "receive_charge" for w in WINGS})
    ac = p.st.leaders["r-ac"]
    ac.value = -1
    p.go("royalist", "activate a1")
    p.go("royalist", "continue dice=5")            # 4 - 1 (AC) = 3 <= 3: success, AC spent
    ev = [e for e in p.events if e.kind == "continuation"][0]
    assert any("Army Commander" in m.reason for m in ev.modifiers) and p.st.activation.ac_acted is False
    # a new activation (the continuation) gives the AC a new action; spend it, then no influence
    p.st.activation.ac_acted = True
    p.go("royalist", "continue dice=4")
    ev = [e for e in p.events if e.kind == "continuation"][0]
    assert not any("Army Commander" in m.reason for m in ev.modifiers)
