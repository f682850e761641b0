"""Jours de Gloire's hidden information (HERALD D10, D11, D72): the secret orders of phase A [2.3]
stay hidden from the other side until the formation's first activation reveals them [2.4]; a
combined marker put in the cup "all'insaputa" of the opponent (Marengo D 2.1) stays unnamed until
drawn; the questions `units`, `formations`, `cup` answer privately, under Discord's 2,000
characters; the log shows `orders (secret)` for both secret verbs."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.core.public import public_command
from engine.jdg import ids, public
from engine.jdg.ruleset import JDG

SC = JDG.load_scenario("marengo")


def go(st, side, line):
    return JDG.apply(SC, st, side, parse(line))


def ordered():
    """Phase A done: French With Orders for Watrin, Austrians for Frimont; a tie (no pick)."""
    st = JDG.new_state(SC, 5)
    st, _ = go(st, "french", "orders watrin")
    st, _ = go(st, "austrian", "orders frimont dice=4,5")   # 3+2 = 4+1: a tie [3]
    assert st.phase == "activation" and st.initiative == ""
    return st


def draw_until(st, marker):
    st.cup = [marker] + [m for m in st.cup if m != marker][:3]
    st.drawer = st.markers[marker].side
    for _ in range(50):
        st2, events = go(st, st.drawer, "draw")
        if events[0].outcome["marker"] == marker:
            return st2, events
        st.draws += 1
    raise AssertionError(marker)


def test_orders_are_hidden_from_the_other_side_until_revealed():
    """[2.3] L133, [2.4] L139: the orders are face down until the formation's first IA is drawn."""
    st = ordered()
    fr, au, pub = (public.view(SC, st, v) for v in ("french", "austrian", None))
    assert fr.formations["watrin"].orders == "with" and fr.formations["gardanne"].orders == "without"
    assert au.formations["watrin"].orders == "" and au.formations["gardanne"].orders == ""
    assert au.formations["frimont"].orders == "with"
    assert pub.formations["watrin"].orders == "" and pub.formations["frimont"].orders == ""
    assert st.formations["watrin"].orders == "with"           # the view is a copy
    assert "orders secret" in ids.answer(SC, st, "austrian", "formations", ())
    assert "`watrin` Watrin (Lannes): initiative 6, With Orders (secret)" in ids.answer(SC, st, "french", "formations", ())
    st, events = draw_until(st, "watrin-1")
    assert any(e.kind == "orders_revealed" and e.outcome == {"formation": "watrin", "orders": "with"} for e in events)
    assert public.view(SC, st, "austrian").formations["watrin"].orders == "with"
    assert public.view(SC, st, None).formations["watrin"].orders == "with"
    assert public.view(SC, st, "austrian").formations["gardanne"].orders == ""


def test_the_log_withholds_the_secret_verbs():
    """HERALD D11, D72: `orders` and `combined` are both shown as `orders (secret)`; the events'
    secret keys are dropped."""
    st = JDG.new_state(SC, 5)
    st2, events = go(st, "french", "orders watrin")
    assert events[0].inputs["secret"] == {"with": ["watrin"]}
    shown = public_command(JDG, SC, st2, "french", "orders watrin", events)
    assert shown.text == "orders (secret)" and shown.withheld
    assert "watrin" not in repr([e.to_dict() for e in shown.events])
    st3, events = go(st2, "french", "combined grande-charge")
    shown = public_command(JDG, SC, st3, "french", "combined grande-charge", events)
    assert shown.text == "orders (secret)"
    assert "grande" not in repr([e.to_dict() for e in shown.events])
    assert public_command(JDG, SC, st3, "french", "draw", []).text == "draw"


def test_a_secret_combined_marker_is_unnamed_until_drawn():
    """Marengo D 2.1 L937: the IAC goes in the cup unknown to the opponent; `cup` gives counts and
    names it only to its owner; drawn, it is shown to all."""
    st = JDG.new_state(SC, 5)
    st, _ = go(st, "french", "combined marmont")
    st, _ = go(st, "french", "orders watrin")
    st, _ = go(st, "austrian", "orders frimont dice=4,5")
    assert "marmont" in st.cup
    au = public.view(SC, st, "austrian")
    assert "marmont" not in au.cup and "marmont" not in au.used_once and len(au.cup) == len(st.cup) - 1
    assert "marmont" in public.view(SC, st, "french").cup
    mine, theirs = ids.answer(SC, st, "french", "cup", ()), ids.answer(SC, st, "austrian", "cup", ())
    assert '"Marmont"' in mine and "Marmont" not in theirs and "marmont" not in theirs
    assert "In the cup: 22 marker(s)" in theirs and "In the cup: 23 marker(s)" in mine
    st, events = draw_until(st, "marmont")
    assert st.activation.arm == "artillery"
    assert "marmont" in public.view(SC, st, "austrian").set_aside


def test_the_undo_view_hides_the_draws():
    """bot/undo.py compares the part of the state hidden from the asker: a draw from the cup moves
    the seeded stream, hidden, so a draw is never taken back."""
    from bot.undo import hidden_from
    st = ordered()
    assert "seed" not in st.public_view("french") and "draws" not in st.public_view("french")
    st2, _ = go(st, st.drawer, "draw")
    assert hidden_from(st, st.drawer) != hidden_from(st2, st.drawer)


def test_questions_fit_discord_and_refuse_as_actions():
    """ids: `units`, `formations`, `cup` answered only to the asker (ruleset.query), each under
    2,000 characters; `apply` of a question is refused with a pointer, the game untouched."""
    st = ordered()
    for line in ("units", "units all", "units austrian", "formations", "cup"):
        text = JDG.query(SC, st, "french", parse(line))
        assert 0 < len(text) < 2000, line
    assert "`f-44e` 44e Ligne (inf) 9-7-5 0510 W" in JDG.query(SC, st, "french", parse("units"))   # [0.3] values
    with pytest.raises(Illegal, match="is not a side"):
        JDG.query(SC, st, "french", parse("units prussian"))
    with pytest.raises(Illegal, match="answered only to you"):
        go(st, "french", "units")


def test_status_names_the_turn_the_time_and_who_acts():
    """The status line: turn and time of day, the phase, who is to act and with which command."""
    st = JDG.new_state(SC, 5)
    text = JDG.status(SC, st, "french")
    assert "turn 1/10 · 09:00" in text and "`orders" in text
    st = ordered()
    text = JDG.status(SC, st, None)
    assert "**French** to draw a marker (`draw`)" in text
    st, _ = draw_until(st, "gardanne-1")
    text = JDG.status(SC, st, "french")
    assert "orders check step" in text and "`initiative`" in text
    st.turn = 9
    assert "(night [12])" in JDG.status(SC, st, None)


def test_units_keep_their_values_when_the_reinforcements_are_many():
    """[0.3] (play-test): the Austrians' `units` fell back to ids and hexes (too long for one
    message with all their reinforcements); the reinforcements now go on one line a formation and
    the units on the map keep strength-cohesion-MP, hex and facing."""
    st = JDG.new_state(SC, 5)
    text = ids.answer(SC, st, "austrian", "units", ())
    assert len(text) <= ids.MAX_REPLY
    assert "`a-ir52` IR 52 Erzh. Anton (inf) 8-6-4 0210 E" in text
    assert "reinforcements: `a-ir63` (inf), `a-ir23` (inf)" in text


def test_the_draw_does_not_count_a_secret_combined_marker():
    """Marengo D 2.1 L937, HERALD D72 (play-test): the public line of a draw said "(21 left)" while
    the opponent's `cup` showed 21 markers before it: the secret IAC was counted there."""
    st = JDG.new_state(SC, 5)
    st, _ = go(st, "french", "combined marmont")
    st, _ = go(st, "french", "orders watrin")
    st, _ = go(st, "austrian", "orders frimont dice=4,5")
    before = ids.answer(SC, st, "austrian", "cup", ())
    n = len([m for m in st.cup if m != "marmont"])
    assert f"In the cup: {n} marker(s)" in before
    st.cup = [m for m in st.cup if m != "marmont"][:3] + ["marmont"]
    st.drawer = "french"
    st, events = go(st, "french", "draw")
    drawn = events[0].outcome["marker"]
    left = len(st.cup) - (0 if drawn == "marmont" else 1)
    assert f"({left} left)" in events[0].narrative and events[0].outcome["left"] == left
