"""Jours de Gloire's sequence of play [1] A-F: orders [2.3], strategic initiative [3], the cup
[1.C], activations [1.D, 2.2, 2.4], rout [1.E], end of turn [1.F], the commander-in-chief leaving
(Marengo D 2.1), victory [13]. The movement and combat verbs are left out: `draw` and `next` walk
every activation."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.jdg.ruleset import JDG
from engine.jdg.sequence import command as chiefs
from engine.jdg.sequence.cup import due_markers
from engine.jdg.sequence.turn import is_night
from engine.jdg.state import ACTIVATION_STEPS

SC = JDG.load_scenario("marengo")


def new(seed: int = 3, options=None):
    return JDG.new_state(SC, seed, options)


def go(st, side, line):
    st2, events = JDG.apply(SC, st, side, parse(line))
    return st2, events


def kinds(events):
    return [e.kind for e in events]


def to_activation(st, french="orders watrin", austrian="orders hadik-kaim frimont oreilly", dice=""):
    """Phase A both sides; the strategic initiative (with `dice`) and its pick declined."""
    st, _ = go(st, "french", french)
    st, _ = go(st, "austrian", austrian + (f" dice={dice}" if dice else ""))
    if st.phase == "initiative":
        st, _ = go(st, st.initiative, "first none")
    return st


def walk_turn(st, log=None):
    """The whole turn with `draw` and `next` only; returns the state at the next turn (or over)."""
    turn = st.turn
    for _ in range(500):
        if st.phase == "over" or st.turn != turn:
            return st
        side = JDG.to_act(st)
        if st.phase == "orders":
            line = "orders"
        elif st.phase == "initiative":
            line = "first none"
        elif st.activation is None:
            line = "draw"
        else:
            line = "next"
        st, events = go(st, side, line)
        if log is not None:
            log.extend(events)
    raise AssertionError("the turn never ended")


def test_a_turn_walks_from_orders_to_the_end_of_turn():
    """[1] A-F: orders, initiative, the cup, every activation by `draw`/`next` in the strict order
    of the steps [1.D.3], rout [1.E], end of turn [1.F]; the turn marker advances."""
    st = new()
    assert (st.turn, st.phase, JDG.to_act(st)) == (1, "orders", "french")
    st = to_activation(st)
    assert st.phase == "activation"
    n_cup = len(st.cup)
    assert n_cup == len(due_markers(SC, st)) == 22
    log = []
    st = walk_turn(st, log)
    order, seen = list(ACTIVATION_STEPS), []
    for e in log:
        if e.kind == "activation":
            seen = []
        elif e.kind == "step":
            seen.append(order.index(e.outcome["step"]))
            assert seen == sorted(seen), "the steps come in the strict order of [1.D.3]"
    assert kinds(log).count("step") >= 3 * (n_cup - 1)
    assert kinds(log).count("draw") == n_cup - 1          # [2.2] L129: the last one never drawn
    assert kinds(log).count("last_marker") == 1
    assert any(e.section == "JdG [1] E" for e in log) and any(e.section == "JdG [1] F" for e in log)
    assert (st.turn, st.phase) == (2, "orders")
    assert SC.turns.time_of(st.turn) == "10:20"
    assert st.orders_done == [] and st.cup == [] and st.activation is None
    assert all(f.orders == "" and not f.revealed and f.activations == 0 for f in st.formations.values())
    assert all(not c.moved for c in st.commanders.values())


def test_the_last_marker_is_never_drawn():
    """[1.D] L103, [2.2] L129: when one marker is left the phase ends; it is set aside unused and
    its formation is not activated by it."""
    st = to_activation(new())
    st.cup = ["watrin-1", "gardanne-1"]
    st.drawer = "french"
    st, events = go(st, "french", "draw")
    drawn = events[0].outcome["marker"]
    left = ({"watrin-1", "gardanne-1"} - {drawn}).pop()
    assert st.activation is not None and st.cup == [left]
    for _ in range(6):
        if st.activation is None:
            break
        st, events = go(st, "french", "next")
    assert st.phase == "orders" and st.turn == 2        # walked through E and F by itself
    last = [e for e in events if e.kind == "last_marker"]
    assert last and last[0].outcome["marker"] == left


def test_drawing_is_refused_to_the_wrong_side_and_while_a_formation_is_active():
    """HERALD D79: the initiative side draws first, then the side whose activation has ended."""
    st = to_activation(new(), dice="1,10")              # French 0+2, Austrian 9+1: Austrian initiative
    assert st.initiative == "austrian" and st.drawer == "austrian"
    with pytest.raises(Illegal, match="Austrian draws"):
        go(st, "french", "draw")
    st, _ = go(st, "austrian", "draw")
    with pytest.raises(Illegal, match="still active"):
        go(st, st.activation.side, "draw")
    side = st.activation.side
    while st.activation is not None:
        st, _ = go(st, side, "next")
    assert st.drawer == side


def test_orders_beyond_the_potential_and_outside_the_radius_are_refused():
    """[2.3] L133-135: at most the chief's order potential (Bonaparte 4, Melas 3), and a unit within
    his command radius (Bonaparte 10 hexes from San Giuliano: Gardanne's nearest unit is far)."""
    st = new()
    with pytest.raises(Illegal, match="order potential is 4"):
        go(st, "french", "orders watrin gardanne chambarlhac kellermann champeaux")
    with pytest.raises(Illegal, match="command radius of 10 hexes"):
        go(st, "french", "orders gardanne")
    with pytest.raises(Illegal, match="not your formation"):
        go(st, "french", "orders ott")
    with pytest.raises(Illegal, match="no unit on the map"):
        go(st, "austrian", "orders elsnitz")
    with pytest.raises(Illegal, match="is not one of your formations"):
        go(st, "french", "orders wattrin")
    assert st.orders_done == [] and all(f.orders == "" for f in st.formations.values())
    st, events = go(st, "french", "orders watrin")
    assert st.formations["watrin"].orders == "with" and st.formations["gardanne"].orders == "without"
    assert "watrin" not in events[0].narrative              # the list stays secret
    with pytest.raises(Illegal, match="phase A"):
        go(to_activation(new()), "french", "orders watrin")


def test_the_strategic_initiative_tie_puts_every_marker_in_the_cup():
    """[3] L199: d10 + the chief's modifier; a tie gives nobody the initiative, every IA in the cup,
    and phase D starts with a draw (by the scenario's first side, HERALD D79)."""
    st, _ = go(new(), "french", "orders watrin")
    st, events = go(st, "austrian", "orders dice=4,5")   # French 3+2 = 5, Austrian 4+1 = 5
    ini = next(e for e in events if e.kind == "strategic_initiative")
    assert ini.outcome["totals"] == {"french": 5, "austrian": 5}
    assert st.initiative == "" and st.phase == "activation" and st.drawer == "french"
    assert len(st.cup) == 22 and JDG.to_act(st) == "french"


def test_the_winner_picks_the_first_marker():
    """[3]: the winner starts the turn with one of his IAs, kept out of the cup; the loser cannot."""
    st, _ = go(new(), "french", "orders watrin")
    st, _ = go(st, "austrian", "orders dice=9,1")         # French 8+2 = 10, Austrian 0+1 = 1
    assert st.initiative == "french" and st.phase == "initiative" and JDG.to_act(st) == "french"
    with pytest.raises(Illegal, match="French has the strategic initiative"):
        go(st, "austrian", "first none")
    with pytest.raises(Illegal, match="is not one of your markers"):
        go(st, "french", "first ott")
    st, events = go(st, "french", "first watrin")
    assert st.activation.marker == "watrin-1" and "watrin-1" not in st.cup and len(st.cup) == 21
    assert st.activation.with_orders and st.activation.step == "fire"
    assert any(e.kind == "orders_revealed" and e.outcome["orders"] == "with" for e in events)


def _activate(st, marker, keep=1):
    """`marker` drawn next: the draw is the seeded stream's, so the stream is moved on until it
    falls on `marker` (the cup keeps `keep` other chits)."""
    others = [m for m in st.cup if m != marker][:keep]
    st.cup = [marker] + others
    st.drawer = st.markers[marker].side
    for _ in range(50):
        st2, events = go(st, st.drawer, "draw")
        if events[0].outcome["marker"] == marker:
            return st2, events
        st.draws += 1
    raise AssertionError(f"{marker} never drawn")


def test_commander_initiative_with_the_chief_in_radius():
    """[2.4] L171-175: d10 minus Melas' modifier 1 (Hadik/Kaim has units within his radius) <= 4,
    Hadik/Kaim's initiative: a 5 passes (5-1 = 4), With Orders for this activation only."""
    st = to_activation(new(), austrian="orders frimont")
    st, events = _activate(st, "hadik-kaim-1")
    assert st.activation.step == "orders_check" and not st.activation.with_orders
    st, events = go(st, "austrian", "initiative dice=6")
    e = events[0]
    assert e.kind == "commander_initiative" and e.outcome == {"formation": "hadik-kaim", "passed": True, "total": 4}
    assert e.modifiers[0].value == -1 and e.dice[0].result == 5
    assert chiefs.with_orders(st, "hadik-kaim") and st.activation.step == "fire"
    with pytest.raises(Illegal, match="With Orders: no initiative"):
        go(st, "austrian", "initiative dice=1")
    while st.activation is not None:
        st, _ = go(st, "austrian", "next")
    assert not chiefs.with_orders(st, "hadik-kaim")       # for that activation only (D12)


def test_commander_initiative_failed_leaves_only_rally():
    """[2.4] L177: above the initiative the units may only rally (HERALD D13); out of the chief's
    radius no modifier: Gardanne (5), d10 6 fails."""
    st = to_activation(new())
    st, _ = _activate(st, "gardanne-1")
    st, events = go(st, "french", "initiative dice=7")
    e = events[0]
    assert not e.outcome["passed"] and e.outcome["total"] == 6 and e.modifiers == []
    assert st.activation.step == "rally" and st.activation.failed == ["gardanne"]
    assert not chiefs.may_act(st, st.units["f-44e"]) and chiefs.may_rally(st, st.units["f-44e"])
    st, _ = go(st, "french", "next")
    assert st.activation is None
    st2 = to_activation(new())
    st2, _ = _activate(st2, "watrin-1")
    with pytest.raises(Illegal, match="With Orders: no initiative"):
        go(st2, "french", "initiative dice=1")
    st3 = to_activation(new())
    st3, _ = _activate(st3, "gardanne-1")
    st3, _ = go(st3, "french", "next")                     # acting Without Orders: fire step
    with pytest.raises(Illegal, match="before any action"):
        go(st3, "french", "initiative dice=1")


def test_the_end_of_an_activation_resets_the_units_flags():
    """[1.D], [2.2]: what lasts one activation is cleared when it ends (fired, acted, charge,
    assault, pursuit re-charges)."""
    st = to_activation(new())
    st, _ = _activate(st, "watrin-1", keep=3)
    u = st.units["f-6e-leg"]
    u.fired, u.acted, u.charge, u.assault, u.recharges = True, True, True, "choc", 2
    st.commanders["bonaparte"].moved = True
    while st.activation is not None:
        st, _ = go(st, "french", "next")
    u = st.units["f-6e-leg"]
    assert (u.fired, u.acted, u.charge, u.assault, u.recharges) == (False, False, False, "", 0)
    assert st.commanders["bonaparte"].moved                 # once a turn: reset at the end of turn
    st = walk_turn(st)
    assert not st.commanders["bonaparte"].moved


def test_reinforcements_arrive_by_their_marker():
    """[5.2] L315-321: Monnier arrives on turn 4 with one IA in the cup; drawn, its units are ready
    to enter With Orders; not entered by the end of the activation, they wait."""
    st = new()
    st.turn = 4
    st = to_activation(st)
    assert [m for m in st.cup if m.startswith("monnier")] == ["monnier-1"]
    st, events = _activate(st, "monnier-1")
    assert {st.units[u].status for u in ("f-19e-leg", "f-70e", "f-72e")} == {"entering"}
    assert chiefs.with_orders(st, "monnier")
    while st.activation is not None:
        st, _ = go(st, "french", "next")
    assert st.units["f-19e-leg"].status == "waiting"
    assert st.turn == 5                                  # one chit was left: the turn is over
    assert [m for m in due_markers(SC, st) if m.startswith("monnier")] == ["monnier-1", "monnier-2"]


def test_melas_leaves_at_the_end_of_turn_5_and_zach_succeeds():
    """Marengo D 2.1: Melas leaves at the end of turn 5, Zach takes over (modifier 0, 2 orders); the
    "Zach" IA goes in the cup on turn 6 and, drawn, takes out the unused Hadik/Kaim, Frimont and
    Von Morzin IAs."""
    st = new()
    st.turn = 5
    st = walk_turn(st)
    assert st.turn == 6
    assert st.commanders["melas"].status == "left" and st.commanders["zach"].hex == "0210"
    ch = chiefs.chief(SC, st, "austrian")
    assert (ch.name, ch.modifier, ch.order_potential, ch.command_radius) == ("Zach", 0, 2, 8)
    assert not any(f.without_orders_for_good for f in st.formations.values())
    with pytest.raises(Illegal, match="Zach's order potential is 2"):
        go(st, "austrian", "orders hadik-kaim frimont oreilly")
    st = to_activation(st, austrian="orders hadik-kaim")
    assert "zach" in st.cup and "zach" in st.used_once
    st.cup = ["zach", "hadik-kaim-1", "frimont-2", "von-morzin-1", "watrin-1", "ott-1"]
    st.drawer = "austrian"
    for _ in range(50):
        st2, events = go(st, "austrian", "draw")
        if events[0].outcome["marker"] == "zach":
            break
        st.draws += 1                                    # another seed draw until Zach comes
    else:
        raise AssertionError("Zach never drawn")
    assert st2.activation is None
    assert sorted(st2.cup) == ["ott-1", "watrin-1"]
    z = next(e for e in events if e.kind == "zach")
    assert sorted(z.outcome["removed"]) == ["frimont-2", "hadik-kaim-1", "von-morzin-1"]


def test_a_lost_commander_leaves_his_army_without_orders():
    """[2.5] L195 (HERALD D19): once the chief is eliminated every formation of his army is Without
    Orders to the end; no orders can be given, and Herald records phase A for that side."""
    st = new()
    st.commanders["bonaparte"].status = "eliminated"
    st.commanders["bonaparte"].hex = None
    st, events = go(st, "austrian", "orders frimont")
    assert all(f.without_orders_for_good for f in st.formations.values() if f.side == "french")
    assert st.phase != "orders"                          # French orders recorded by Herald


def test_victory_on_points_at_the_end_of_the_last_turn():
    """[13] L816: at the end of the last turn the side with more VP wins (holders of the victory
    hexes, enemy units eliminated or routed, the enemy chief)."""
    st = new()
    st.turn = 10
    assert is_night(SC, st)
    st = walk_turn(st)
    assert st.phase == "over" and st.winner == "french"
    assert st.vp == {"french": 11, "austrian": 2}
    assert "French wins" in st.result
    with pytest.raises(Illegal, match="the battle is over"):
        go(st, "french", "draw")


def test_an_automatic_victory_ends_the_game_at_the_end_of_the_turn():
    """[13] L812: an Austrian unit not routed in San Giuliano Vecchio at the end of a turn."""
    st = new()
    st.units["a-bussy-ch"].hex = "2912"
    st = walk_turn(st)
    assert st.phase == "over" and st.winner == "austrian" and st.turn == 1
    assert "automatic victory" in st.result
    assert st.holders["2912"] == "austrian"


def test_rout_phase_is_walked():
    """[1.E] L107: phase E moves the routed units (combat/retreat.py; if not there yet, a TODO)."""
    st = new()
    st.units["f-28e"].condition = "routed"
    log = []
    st = walk_turn(st, log)
    start = next(i for i, e in enumerate(log) if e.section == "JdG [1] E")
    assert any("28e" in e.narrative or e.kind == "todo" for e in log[start + 1:])


def test_night_turns():
    """[12]: the scenario's night turns (Marengo 9 and 10) for every module to read."""
    st = new()
    assert not is_night(SC, st)
    st.turn = 9
    assert is_night(SC, st)


def test_combined_marker_is_secret_until_drawn_and_once_a_game():
    """[2.1] L123, Marengo D 2.1: the IAC chosen before the initiative roll goes in the cup unknown to
    the opponent; drawn, it activates all the French cavalry; once a game."""
    st, events = go(new(), "french", "combined grande-charge")
    assert "grande" not in events[0].narrative.lower()
    with pytest.raises(Illegal, match="already chosen"):
        go(st, "french", "combined grande-charge")
    st = to_activation(st, french="orders watrin")
    assert "grande-charge" in st.cup and len(st.cup) == 23
    st, events = _activate(st, "grande-charge")
    act = st.activation
    assert act.arm == "cavalry" and act.formations == ["kellermann", "champeaux", "rivaud"]
    assert not chiefs.in_activation(st, st.units["f-44e"])
    st, events = go(st, "french", "initiative dice=1,1,1")
    assert [e.base for e in events] == [6, 6, 6]          # the IAC's value (HERALD D72)
    assert chiefs.may_act(st, st.units["f-2e-cav"])
    st = walk_turn(st)
    with pytest.raises(Illegal, match="once a game"):
        go(st, "french", "combined grande-charge")


def test_demoralisation_optional():
    """Optional 11 L890-895 (HERALD D69): 2/3 of a formation's infantry and cavalry routed or
    eliminated: the others disordered, never good order again."""
    st = new(options=["demoralisation"])
    for uid in ("f-24e-leg", "f-96e"):
        st.units[uid].condition = "routed"
    st.units["f-43e"].condition = "disordered"
    log = []
    st = walk_turn(st, log)
    assert st.formations["chambarlhac"].demoralised
    assert any(e.kind == "demoralisation" for e in log)
    assert st.units["f-art-chambarlhac"].condition == "disordered" or not st.units["f-art-chambarlhac"].alive


def test_reinforcements_near_the_enemy_are_not_offered_a_forced_march():
    """[5.2] L325 (play-test): Hadik/Kaim's reinforcements enter by 0110/0111, within 5 hexes of
    Gardanne: their line says With Orders this turn, not at forced march (it said "forced march",
    and `move ... forced` was then refused)."""
    st = to_activation(new(), austrian="orders hadik-kaim")
    st, events = _activate(st, "hadik-kaim-1")
    line = next(e for e in events if e.kind == "reinforcements").narrative
    assert "not at forced march: the enemy is within 5 hexes" in line
    assert "(With Orders, forced march" not in line


def test_an_action_before_the_activations_names_what_the_phase_wants():
    """[1] A-B: before phase D no formation acts; `next` or a move is refused with what the
    phase is waiting for (the orders in A, the initiative's pick in B), not a `draw`."""
    import pytest
    from engine.core.commands import parse
    from engine.core.errors import Illegal
    from engine.jdg.ruleset import JDG
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, 1)
    with pytest.raises(Illegal, match=r"phase A: the orders come first"):
        JDG.apply(sc, st, "french", parse("next"))
    st, _ = JDG.apply(sc, st, "french", parse("orders watrin"))
    st, _ = JDG.apply(sc, st, "austrian", parse("orders ott"))
    assert st.phase == "initiative"
    with pytest.raises(Illegal, match=r"phase B: .*`first <marker>`"):
        JDG.apply(sc, st, st.initiative or "french", parse("move f-40e 1910"))


def test_a_side_without_combined_markers_is_told_so_in_any_phase():
    """Marengo D 2.1: the combined markers ("Grande charge", "Marmont") are French; an Austrian
    `combined` is refused for that, in phase A or later, before anything else is checked."""
    import pytest
    from engine.core.commands import parse
    from engine.core.errors import Illegal
    from engine.jdg.ruleset import JDG
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, 1)
    with pytest.raises(Illegal, match=r"Austrian has no combined marker in this battle"):
        JDG.apply(sc, st, "austrian", parse("combined marmont"))
    st, _ = JDG.apply(sc, st, "french", parse("orders watrin"))
    st, _ = JDG.apply(sc, st, "austrian", parse("orders ott"))
    assert st.phase == "initiative"
    with pytest.raises(Illegal, match=r"Austrian has no combined marker in this battle"):
        JDG.apply(sc, st, "austrian", parse("combined marmont"))


def test_artillery_starts_on_top_and_a_formation_without_guns_starts_at_movement():
    """[5.1] L285: artillery is always on top of its stack, from the setup on; [1.D], [2.4]: an
    activation whose formation has no artillery able to fire skips the empty fire step (nobody
    has a choice there) and starts at movement."""
    from engine.core.commands import parse
    from engine.jdg.ruleset import JDG
    from engine.jdg.state import Activation
    sc = JDG.load_scenario("marengo")
    st = JDG.new_state(sc, 1)
    for h in ("0510", "0810", "0310", "0314", "2010", "0210"):
        stack = st.units_at(h)
        assert stack[0].arm == "artillery" and all(u.arm != "artillery" for u in stack[1:]), h
    # Kellermann's heavy cavalry has no guns: its activation begins with movement
    st.phase, st.cup = "activation", ["kellermann-1", "kellermann-2"]   # the last is never drawn
    st.formations["kellermann"].orders = "with"
    st.drawer = "french"
    assert not [u for u in st.units.values() if u.formation == "kellermann" and u.arm == "artillery"]
    st2, _ = JDG.apply(sc, st, "french", parse("draw"))
    assert st2.activation.formations == ["kellermann"] and st2.activation.step == "movement"
    # Watrin has its battery: its activation opens with the fire step
    st.cup = ["watrin-1", "watrin-2"]
    st.formations["watrin"].orders = "with"
    st2, _ = JDG.apply(sc, st, "french", parse("draw"))
    assert st2.activation.formations == ["watrin"] and st2.activation.step == "fire"
