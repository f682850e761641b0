"""§10.4: the owner chooses where his unit retreats (`policy retreat ask`): the close-combat
resolution stops to ask, and the answer replays it from the start with the same dice."""
from engine.core.errors import Illegal

from engine.tacw.ruleset import TACW

from .tacw_helpers import Position
import pytest


def fight(policy):
    # Royalist cavalry (Charge) attacks Parliament infantry in its front hex.
    p = Position([("r1", "royalist", "r-a", "cavalry", ["0705"], "W", {"strength": 4, "morale": 8}),
                  ("p1", "parliament", "p-a", "light", ["0605"], "E", {"strength": 3, "morale": 4})],
                 seed=3)
    if policy:
        p.go("parliament", f"policy retreat {policy}")
    p.go("royalist", "activate r-a")
    p.go("royalist", "close")
    p.go("royalist", "attack r1 0605")
    return p


def test_auto_policy_lets_herald_choose():
    p = fight(None)
    p.go("royalist", "resolve dice=1")
    assert p.st.pending is None and any(e.kind == "retreat" for e in p.events)


def test_ask_stops_then_the_answer_replays_the_same_dice():
    # the attacker's close combat roll is supplied (a 0: the defender breaks and flees 2 hexes);
    # when the resolution stops to ask, the supplied result comes again with the answer
    auto = fight(None)
    auto.go("royalist", "resolve dice=1")
    auto_hexes = auto.st.units["p1"].hexes
    assert auto_hexes != ["0605"]
    p = fight("ask")
    p.go("royalist", "resolve dice=1")
    pend = p.st.pending
    assert pend["kind"] == "retreat" and pend["side"] == "parliament" and len(pend["options"]) >= 2
    assert p.st.units["p1"].hexes == ["0605"]                  # nothing happened yet
    assert p.sc and p.st.activation.step == "close_combat"
    with pytest.raises(Illegal, match="Parliament's to choose"):
        p.go("royalist", f"retreat {pend['options'][0]}")
    with pytest.raises(Illegal, match="one of"):
        p.go("parliament", "retreat 0101")
    choice = pend["options"][-1]
    p.go("parliament", f"retreat {choice} dice=1")
    asked = 1
    while p.st.pending:                                      # each hex of the flight is asked
        assert p.st.pending["answers"] == [choice] and p.st.pending["kind"] == "retreat"
        p.go("parliament", f"retreat {p.st.pending['options'][-1]} dice=1")
        asked += 1
    assert asked == 2 and p.st.activation.step == "continuation"
    path = [e for e in p.events if e.kind == "retreat"][0].outcome["path"]
    assert "/".join(path[1]) == choice and p.st.units["p1"].hexes != auto_hexes
    # answering with Herald's own first option gives exactly the automatic game
    q = fight("ask")
    q.go("royalist", "resolve dice=1")
    options = q.st.pending["options"]
    while q.st.pending:
        q.go("parliament", f"retreat {q.st.pending['options'][0]} dice=1")
    assert q.st.units["p1"].hexes == auto_hexes and q.st.state_hash() != p.st.state_hash()
    from engine.tacw.ruleset import TACW
    r = fight("ask")
    r.go("royalist", "resolve dice=1")
    assert TACW.default_answer(r.st) == f"retreat {options[0]}"


def test_a_log_with_a_choice_replays_to_the_same_state_in_place():
    """Issue 13: a stored log is replayed changing one state in place (replay_in_place); the
    command that stops to ask cannot leave a half-changed state, so the replay starts again the
    ordinary way (a copy a command) and ends where the live game did."""
    from engine.core import game as core
    from engine.core.commands import parse as parse_line
    p = fight("ask")
    start = p.st
    lines = [("royalist", "resolve dice=1")]
    p.go(*lines[0])
    while p.st.pending:
        line = ("parliament", f"retreat {p.st.pending['options'][-1]} dice=1")
        p.go(*line)
        lines.append(line)
    assert len(lines) >= 2
    calls = {"in place": 0}
    original = core.run_command

    def counting(state, cmd, body):
        calls["in place"] += core.in_place()
        return original(state, cmd, body)

    import engine.tacw.rules as tacw_rules
    tacw_rules.run_command, saved = counting, tacw_rules.run_command
    try:
        end, events = core.replay_in_place(TACW, p.sc, start, [(s, parse_line(t)) for s, t in lines])
    finally:
        tacw_rules.run_command = saved
    assert calls["in place"] >= 1                       # it tried in place, then started again
    assert end.to_dict() == p.st.to_dict() and len(events) == len(lines)
    assert start.units["p1"].hexes == ["0605"]          # the state it started from is untouched
