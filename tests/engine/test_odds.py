"""`/odds`, the exact what-if (engine/core/odds.py, engine/battlecry/odds.py, engine/tacw/odds.py).

Each what-if is checked two independent ways:
- against a plain exhaustive enumeration (`plain` below): every ORDERED sequence of die faces,
  one face at a time, through the ordinary engine path (`dice=` supplied to `apply`, as a club
  rolling physical dice would) with no face merged and no multiset, each sequence weighing
  1/sides^n. The what-if's fractions must be equal, exactly.
- against a large seeded sample of REAL adjudications (`engine.core.odds.sampled`: the seeded
  stream, thousands of seeds): every observed frequency within 4.5 standard deviations of the
  exact probability, and nothing observed that the what-if calls impossible.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from fractions import Fraction
from types import SimpleNamespace

import pytest

from engine.battlecry import odds as bc_odds
from engine.battlecry.ruleset import BATTLECRY
from engine.core.commands import parse
from engine.core import odds as odds_module
from engine.core.dice import WHAT_IF, DiceStream
from engine.core.errors import Illegal
from engine.core.game import run_command
from engine.core.odds import HiddenInformation, TooManyOutcomes, sampled, what_if
from engine.tacw import odds as tacw_odds
from engine.tacw.ruleset import TACW

from .bc_helpers import make_game, run
from .tacw_helpers import Position

R, P = "royalist", "parliament"


def plain(rs, sc, st, side, line, sides, summary, before=None) -> dict[str, Fraction]:
    """Every ordered die sequence, one face at a time, through `apply` with supplied dice: a die
    the prefix does not cover is drawn from the seeded stream (the state's `draws` moves), which
    tells that one more die is needed."""
    out: Counter = Counter()

    def go(prefix: list[int]) -> None:
        cmd = replace(parse(line), dice=tuple(prefix), exact_dice=False)
        new, events = rs.apply(sc, st, side, cmd)
        if new.draws > st.draws:
            for face in range(1, sides + 1):
                go(prefix + [face])
        else:
            out[summary(sc, before or st, new, events, side)] += Fraction(1, sides ** len(prefix))

    go([])
    assert sum(out.values()) == 1
    return dict(out)


def as_dict(odds) -> dict[str, Fraction]:
    return {o.label: o.probability for o in odds.outcomes}


def close_to_sample(odds, counts: Counter, n: int) -> None:
    exact = as_dict(odds)
    assert set(counts) <= set(exact), set(counts) - set(exact)      # nothing "impossible" happens
    for label, p in exact.items():
        sd = math.sqrt(float(p * (1 - p)) / n)
        assert abs(counts[label] / n - float(p)) <= 4.5 * sd + 1 / n, (label, p, counts[label])


# == Battle Cry ===================================================================================

def bc_example():
    """BC §4.8's game example: B (with General A attached) battles D (2 figures, a General, in
    Woods) at range 2 with 3 dice; C stands behind D, General E beside it."""
    units = [("b", "union", "infantry", "0207"), ("a", "union", "general", "0507"),
             ("d", "confederate", "infantry", "0205", {"figures": 2}), ("dg", "confederate", "general", "0205"),
             ("e", "confederate", "general", "0104"), ("c", "confederate", "infantry", "0204"),
             ("far", "confederate", "infantry", "1201")]
    g = make_game(units, hands={"union": ["probe-left", "attack-centre", "rally", "bombard"]},
                  terrain={"woods": ["0205"]})
    run(g, "union: play probe left", "union: order b a", "union: move a 0207")
    return g


def bc_duel(policy: str | None = None):
    """Infantry against infantry, adjacent: 4 dice, and a retreat with a choice of two hexes."""
    g = make_game([("b", "union", "infantry", "0207"), ("d", "confederate", "infantry", "0206"),
                   ("far", "confederate", "infantry", "1201")],
                  hands={"union": ["attack-centre", "probe-left"]})
    run(g, "union: play probe left", "union: order b")
    if policy:
        run(g, f"confederate: policy retreat {policy}")
    return g


def test_bc_4_8_example_odds_equal_the_plain_enumeration_and_show_the_dice_count():
    g = bc_example()
    before = g.state.state_hash()
    odds = what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0205", budget=None)
    assert g.state.state_hash() == before                    # nothing committed
    assert as_dict(odds) == plain(BATTLECRY, g.scenario, g.state, "union", "battle b 0205", 6, bc_odds.summary)
    # 3 dice at D (2 figures): D survives only with at most one hit; a miss is Cavalry or Artillery
    # (2 faces of 6: the Flag retreats, Sabres and Infantry hit), so no effect is (1/3)^3.
    assert odds.probability("no effect") == Fraction(1, 27)
    assert odds.probability("d (infantry) eliminated") == 1 - Fraction(2, 9) - Fraction(1, 27)
    # the breakdown is the adjudication's own: range row, Woods -1, the attached General +1
    text = odds.text()
    assert "infantry, range 2, 3 dice" in text
    assert "-1  target in woods (BC §2.3)" in text and "+1  General a attached (BC §4.7)" in text
    assert "= 3 dice" in text
    # 3 exchangeable dice of 5 kinds of face: 35 multisets, not 6^3 = 216 sequences
    assert odds.leaves == 35


def test_a_floor_never_cuts_amid_a_roll_of_exchangeable_dice():
    """Issue 13: `deepen` cuts each sequence of dice once its chance falls below a floor; BC's
    battle dice are one roll enumerated as multisets (BC §4.8: 35 for 3 dice), whose partial
    chances hold only when every sequence of the roll stops at the same die, so a floor is
    read only between rolls: a floor any single die would cross still gives the whole answer,
    its chances adding up to 1 (enumerate checks it), and a cut at the first die is the whole
    roll's."""
    g = bc_example()
    whole = what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0205", budget=None)
    run_ = odds_module._Runner(BATTLECRY, g.scenario, g.state, "union", parse("battle b 0205"),
                               odds_module.rules_for(BATTLECRY))
    floored = run_.enumerate(None, odds_module.MAX_LEAVES, 60, floor=0.5)
    assert as_dict(floored) == as_dict(whole) and floored.exact and floored.leaves == 35


def test_bc_4_6_retreat_choices_are_outcomes_and_match_the_plain_enumeration():
    g = bc_duel()
    odds = what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0206", budget=None)
    assert as_dict(odds) == plain(BATTLECRY, g.scenario, g.state, "union", "battle b 0206", 6, bc_odds.summary)
    assert odds.probability("no effect") == Fraction(1, 81)           # 4 misses
    assert odds.probability("d (infantry) eliminated") == Fraction(1, 16)   # 4 hits: 3 faces of 6 each
    # any Flag (1 face of 6) leaves d alive with a retreat, and it has two hexes to choose from
    assert odds.probability("then Confederate picks d") == 1 - Fraction(5, 6) ** 4
    # with "policy retreat auto" Herald picks the hexes: nobody is asked, the rest is the same
    auto = what_if(BATTLECRY, g.scenario, bc_duel("auto").state, "union", "battle b 0206", budget=None)
    assert auto.probability("picks") == 0
    assert auto.probability("no effect") == Fraction(1, 81) and auto.probability("eliminated") == Fraction(1, 16)


def test_bc_battle_odds_agree_with_2000_real_adjudications():
    g = bc_duel()
    odds = what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0206", budget=None)
    n = 2000
    counts = sampled(BATTLECRY, g.scenario, g.state, "union", "battle b 0206", range(n))
    close_to_sample(odds, counts, n)


def test_bc_2_4_rally_one_die_per_card_in_hand_only_the_units_own_symbol():
    g = make_game([("b", "union", "infantry", "0207"), ("d", "confederate", "infantry", "0203")],
                  hands={"union": ["rally", "probe-left", "attack-centre"]})
    g.state.pieces["b"].figures = 2                           # 2 of its 4 figures lost
    run(g, "union: play rally")
    odds = what_if(BATTLECRY, g.scenario, g.state, "union", "rally b", budget=None)
    assert as_dict(odds) == plain(BATTLECRY, g.scenario, g.state, "union", "rally b", 6, bc_odds.summary)
    # 3 dice (the two cards left + this one); Infantry is 2 faces of 6; at most 2 figures return
    assert odds.probability("regains 2") == 3 * Fraction(1, 3) ** 2 * Fraction(2, 3) + Fraction(1, 27)
    assert odds.probability("no effect") == Fraction(2, 3) ** 3


def test_bc_card_draws_and_other_hidden_information_are_never_asked():
    g = bc_duel()
    before = g.state.state_hash()
    for line in ("end", "discard probe-left", "play attack-centre"):
        with pytest.raises(Illegal, match="cannot be asked"):
            what_if(BATTLECRY, g.scenario, g.state, "union", line)
    with pytest.raises(Exception, match="leave out dice="):
        what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0206 dice=1,1,1,1")
    assert g.state.state_hash() == before


def test_bc_the_rules_refuse_an_illegal_what_if_with_their_own_reason():
    g = bc_duel()
    with pytest.raises(Illegal, match="Union's turn"):
        what_if(BATTLECRY, g.scenario, g.state, "confederate", "battle d 0207")
    with pytest.raises(Illegal, match="BC §4.4.1"):
        what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 1201")


# == the core: hidden draws, bounds ==============================================================

class ShufflingRuleset:
    """A stand-in ruleset whose action draws hidden randomness (a shuffle) after one die."""
    id, name = "stub", "Stub"
    odds = SimpleNamespace(summary=lambda sc, before, after, events, side: str(after.deck))

    def apply(self, sc, state, side, cmd):
        def body(st, stream):
            stream.roll(6, "a visible die")
            st.deck = stream.shuffle(st.deck)
            return []
        return run_command(state, cmd, body)


def test_a_what_if_never_draws_hidden_randomness():
    from engine.core.state import GameState
    from dataclasses import dataclass, field

    @dataclass
    class St(GameState):
        seed: int = 1
        draws: int = 0
        deck: list = field(default_factory=lambda: ["a", "b", "c"])

    st = St()
    with pytest.raises(HiddenInformation, match="draw a card or shuffle"):
        what_if(ShufflingRuleset(), None, st, "x", "go")
    assert st.draws == 0 and st.deck == ["a", "b", "c"] and WHAT_IF.get() is None


def test_too_many_die_sequences_are_refused_with_a_clear_message():
    g = bc_duel()
    with pytest.raises(TooManyOutcomes, match="more than 10 die sequences"):
        what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0206", budget=None, max_leaves=10)


def test_bc_4_5_at_least_one_hit_with_n_dice_by_hand():
    """BC §4.5 and §5.2: against infantry a die hits on Infantry (2 faces) or Crossed Sabres (1
    face), so each die hits with 1/2 and at least one hit of N dice is 1 - (1/2)^N. b rolls 4
    dice adjacent (§4.4.1): 15/16. A Flag (1 face) retreats; Cavalry and Artillery (2 faces)
    miss, so nothing happens at all with (2/6)^4 = 1/81."""
    g = bc_duel("auto")
    odds = what_if(BATTLECRY, g.scenario, g.state, "union", "battle b 0206", budget=None)
    hit = sum((o.probability for o in odds.outcomes if "loses" in o.label or "eliminated" in o.label),
              Fraction(0))
    assert hit == 1 - Fraction(1, 2) ** 4 == Fraction(15, 16)
    assert odds.probability("loses 1 ") == 4 * Fraction(1, 2) ** 4          # exactly one hit
    assert odds.probability("no effect") == Fraction(2, 6) ** 4
    assert odds.dice == ["d6 battle die"] and odds.leaves == 70               # multisets of 4 of 5 faces


def test_an_empty_what_if_says_what_may_be_asked():
    g = bc_duel()
    with pytest.raises(Exception, match=r"say which action .*battle, rally, reinforce, snipe.*battle <unit>"):
        what_if(BATTLECRY, g.scenario, g.state, "union", "   ")


# == the core: the adjudication in progress, read at a horizon ===================================

@dataclass
class _Counter:
    """A stand-in state: `marks` counts the dice rolled so far on the working copy."""
    seed: int = 1
    draws: int = 0
    marks: int = 0

    def copy(self):
        return _Counter(self.seed, self.draws, self.marks)


class TwoDiceRuleset:
    """A stand-in ruleset: two d2 in a row, each marking the state, through run_command (or,
    with `own_stream`, through a stream of its own that carries no working state)."""
    id, name = "stub2", "Stub 2"
    odds = SimpleNamespace(summary=lambda sc, before, after, events, side: f"{after.marks} marks")

    def __init__(self, own_stream: bool = False):
        self.own_stream = own_stream

    def apply(self, sc, state, side, cmd):
        def body(st, stream):
            if self.own_stream:
                stream = DiceStream(st.seed, st.draws)
            for i in (1, 2):
                st.marks += stream.roll(2, f"die {i}")
            return []
        return run_command(state, cmd, body)


def test_run_command_hands_its_working_copy_to_the_stream():
    seen = []
    state = _Counter()
    new, _ = run_command(state, parse("go"), lambda st, stream: seen.append((st, stream.working)) or [])
    (st, working), = seen
    assert working is st is new and st is not state


def test_a_horizon_reads_the_working_copy_the_stream_carries_without_frame_inspection():
    full = what_if(TwoDiceRuleset(), None, _Counter(), "x", "go", budget=None)
    assert as_dict(full) == {"2 marks": Fraction(1, 4), "3 marks": Fraction(1, 2), "4 marks": Fraction(1, 4)}
    cut = what_if(TwoDiceRuleset(), None, _Counter(), "x", "go", horizon=1)
    # the position when die 2 would be rolled: the working copy after die 1 (1 or 2 marks)
    assert as_dict(cut) == {"1 marks; then: die 2": Fraction(1, 2), "2 marks; then: die 2": Fraction(1, 2)}
    # a die drawn from a stream made outside run_command has no adjudication to read: refused
    with pytest.raises(TooManyOutcomes, match="cannot be read halfway"):
        what_if(TwoDiceRuleset(own_stream=True), None, _Counter(), "x", "go", horizon=1)
    from engine.core import odds_walk
    for module in (odds_module, odds_walk):
        assert "_getframe" not in Path(module.__file__).read_text(encoding="utf-8")


def test_a_tree_over_the_budget_is_cut_at_a_horizon_even_when_the_estimate_says_it_fits():
    """Issue 13: the quick exact enumeration ran out of its budget, yet the probes (which rarely
    meet a long pursuit) estimated that the whole tree fits: Herald used to enumerate it all
    then, and gave up after TIME_LIMIT (Marengo's `react recall`, 23 s). Now a horizon is cut
    anyway (`cut_short`, when not even the first floor of chance fits: see below), one die short
    of the deepest probe, and the odds still add up to one."""
    rs = TwoDiceRuleset()
    run_ = odds_module._Runner(rs, None, _Counter(), "x", parse("go"), odds_module.rules_for(rs))
    odds = run_.cut_short(odds_module.MAX_LEAVES, odds_module.TIME_LIMIT)
    assert odds.horizon == 1
    assert as_dict(odds) == {"1 marks; then: die 2": Fraction(1, 2), "2 marks; then: die 2": Fraction(1, 2)}


def test_over_the_budget_the_first_answer_follows_the_dice_down_to_a_floor_of_chance():
    """Issue 13: when the whole tree does not fit the quick budget, the first answer follows each
    sequence of dice until it is rarer than a floor (1 in 100, then a quarter of that, while
    `fallback` lasts), merging what the whole try worked out: a tree of likely sequences
    then comes whole, exact (an action whose first floor does not fit falls back on a horizon,
    `cut_short`, above)."""
    odds = what_if(TwoDiceRuleset(), None, _Counter(), "x", "go", budget=0)
    assert odds.exact and as_dict(odds) == {"2 marks": Fraction(1, 4), "3 marks": Fraction(1, 2),
                                            "4 marks": Fraction(1, 4)}


# == TACW =========================================================================================

RHQ = ("rhq", R, "r-a", "light", ["0503"], "E")
PHQ = ("phq", P, "p-a", "light", ["1812"], "W")


def heavy(uid, side, hexes, facing, **extra):
    return (uid, side, "r-a" if side == R else "p-a", "heavy", hexes, facing, extra)


def fire_position(reaction: str = "auto", leader_on_target: bool = False):
    """r1 faces p1 across one hexside; the leaders stand on headquarters units far away unless
    `leader_on_target` (then Parliament's Wing Commander stands with p1: Leader Loss rolls)."""
    units = [RHQ, PHQ, heavy("r1", R, ["0505"], "E"), heavy("p1", P, ["0605"], "W")]
    leaders = [("r-ac", R, "ac", 0, None, "rhq"), ("r-wc", R, "wc", -1, "r-a", "rhq"),
               ("p-ac", P, "ac", 0, None, "phq"), ("p-wc", P, "wc", -1, "p-a", "p1" if leader_on_target else "phq")]
    p = Position(units, leaders=leaders)
    p.go(R, "activate r-a")
    p.go(P, f"policy reaction {reaction}")
    return p


def test_tacw_9_fire_with_reaction_fire_and_morale_equals_the_plain_enumeration():
    p = fire_position("auto")
    before = p.st.state_hash()
    odds = what_if(TACW, p.sc, p.st, R, "fire r1 0605", budget=None)
    assert p.st.state_hash() == before
    assert as_dict(odds) == plain(TACW, p.sc, p.st, R, "fire r1 0605", 10, tacw_odds.summary)
    assert "Musket Fire table" in odds.text() and "d10 fire, p1 at r1" in odds.text()   # the reaction


def test_tacw_9_11_leader_loss_faces_merged_and_still_exact():
    p = fire_position("never", leader_on_target=True)
    odds = what_if(TACW, p.sc, p.st, R, "fire r1 0605", budget=None)
    assert as_dict(odds) == plain(TACW, p.sc, p.st, R, "fire r1 0605", 10, tacw_odds.summary)
    struck = odds.probability("struck down")
    assert 0 < struck < Fraction(2, 10)               # a 9 on a d10, only when the fire had an effect


def test_tacw_fire_odds_agree_with_2000_real_adjudications():
    p = fire_position("auto")
    odds = what_if(TACW, p.sc, p.st, R, "fire r1 0605", budget=None)
    n = 2000
    close_to_sample(odds, sampled(TACW, p.sc, p.st, R, "fire r1 0605", range(n)), n)


def test_tacw_close_combat_odds_agree_with_2000_real_attacks_and_resolutions():
    from .test_tacw_melee import BASE, pos
    p = pos(*BASE)
    odds = what_if(TACW, p.sc, p.st, R, "attack r1 0405", budget=None)
    n = 2000
    counts = sampled(TACW, p.sc, p.st, R, "attack r1 0405", range(n))     # attack, then resolve
    close_to_sample(odds, counts, n)
    assert len(counts) >= 3                   # several results of the Close Combat table were seen


def test_tacw_5_7_order_change_is_one_d10_against_the_table():
    from .test_tacw_sequence import three_wings
    p = three_wings({"a1": "charge", "a2": "charge", "a3": "charge", "b1": "receive_charge",
                     "b2": "receive_charge", "b3": "receive_charge"})
    p.go(R, "activate a1")
    odds = what_if(TACW, p.sc, p.st, R, "change make_ready", budget=None)
    assert as_dict(odds) == plain(TACW, p.sc, p.st, R, "change make_ready", 10, tacw_odds.summary)
    # one d10 read against a threshold: its faces tried by halves, fewer than ten adjudications
    assert odds.leaves < 10 and all(o.probability.denominator in (1, 2, 5, 10) for o in odds.outcomes)
    assert set(as_dict(odds)) <= {"a1 now on Make Ready", "no effect"}
    assert "[TACW §5.7] Order Change table" in odds.text()


def test_tacw_10_attack_is_resolved_and_equals_the_plain_enumeration_of_resolve():
    from .test_tacw_melee import BASE, pos
    p = pos(*BASE)
    odds = what_if(TACW, p.sc, p.st, R, "attack r1 0405", budget=None)
    assert odds.steps == ["attack r1 0405", "resolve"]
    designated = p.st
    p.go(R, "attack r1 0405")                 # the designation rolls nothing
    expected = plain(TACW, p.sc, p.st, R, "resolve", 10, tacw_odds.summary, before=designated)
    assert as_dict(odds) == expected
    assert "[TACW §10.2] Close Combat table" in odds.text()


def test_tacw_10_2_b_the_other_sides_reaction_attacks_are_assumed_not_made_and_said_so():
    from .test_tacw_melee import reaction_position
    p = reaction_position()
    p.st.policies[P]["reaction_attack"] = "ask"              # Parliament would be asked (p2 0505)
    odds = what_if(TACW, p.sc, p.st, R, "attack r1 0405", budget=None)
    assert odds.steps == ["attack r1 0405", "resolve", "parliament: counter none"]
    assert "assumes Parliament makes no reaction attack when asked" in odds.text()
    designated = p.st
    p.go(R, "attack r1 0405")
    p.go(R, "resolve")                                       # the window opens, no die yet
    assert as_dict(odds) == plain(TACW, p.sc, p.st, P, "counter none", 10, tacw_odds.summary,
                                  before=designated)


def test_tacw_4_1_the_next_turns_initiative_is_beyond_the_question():
    from .test_tacw_sequence import WINGS, three_wings
    p = three_wings({w[0]: "make_ready" for w in WINGS})      # a tie: the initiative is rolled
    p.go(p.st.phasing, "pass")
    _, events = TACW.apply(p.sc, p.st, p.st.phasing, parse("pass"))
    assert [d.purpose for e in events for d in e.dice] == ["initiative, Royalist", "initiative, Parliament"]
    odds = what_if(TACW, p.sc, p.st, p.st.phasing, "pass")
    assert as_dict(odds) == {"turn 1 ends": 1} and odds.leaves == 1 and odds.horizon is None
    assert "the initiative roll that follows is beyond the question" in odds.text()


def test_tacw_a_horizon_keeps_exact_odds_of_the_first_dice_and_names_what_follows():
    p = fire_position("auto")
    full = what_if(TACW, p.sc, p.st, R, "fire r1 0605", budget=None)
    cut = what_if(TACW, p.sc, p.st, R, "fire r1 0605", horizon=1)
    assert cut.horizon == 1 and "the first 1 die is enumerated" in cut.text()
    assert sum(o.probability for o in cut.outcomes) == 1
    assert all((10 * o.probability).denominator == 1 for o in cut.outcomes)     # one d10
    # after the firer's roll, the target either checks morale or fires back, always
    assert all("then: " in o.label for o in cut.outcomes)
    # the chance that p1 loses exactly one SP from that roll, read both ways
    one_hit = cut.probability("p1: -1 SP; then")
    assert one_hit == sum(o.probability for o in full.outcomes if o.label.startswith("p1: -1 SP"))


def test_tacw_second_newbury_no_what_if_while_a_secret_boat_bridge_move_is_halfway():
    from engine.tacw.battles import second_newbury as newbury_rules
    from engine.tacw.movement.move import SUSPENDED
    from .test_tacw_second_newbury import BOAT, SC, go, opened
    st = opened()
    st, _ = go(st, P, f"boatbridge {BOAT}")
    assert tacw_odds.refusal(SC, st, R, parse("fire r-x 1234")) is None        # nothing halfway
    st.options[SUSPENDED] = {"ctx": {"side": P}}       # Parliament's move waits on an interrupt
    with pytest.raises(HiddenInformation, match="secret boat bridge"):
        what_if(TACW, SC, st, R, "react none")
    assert tacw_odds.refusal(SC, st, P, parse("move p-thorpe 3339")) is None  # its owner knows
    newbury_rules.data(st)["boat"]["revealed"] = True
    assert tacw_odds.refusal(SC, st, R, parse("react none")) is None


# == merged positions: exact, and as fast as issue 13 asks =======================================

_DEMO: dict[int, object] = {}


def edgehill_before(index: int):
    """The Edgehill demo game (bot/demos) just before its line `index` (0-based, comments left
    out), with the side and the line; replayed once for all the indices asked."""
    from bot.cli import DEMO_DIR, read_script, split_side
    from engine.core.game import Game
    if index not in _DEMO:
        seed, lines = read_script(DEMO_DIR / "tacw--edgehill.txt")
        g = Game.new("tacw", "edgehill", seed)
        for n, line in enumerate(lines[:max(index, *_DEMO, 0) + 1]):
            side, text = split_side(line, g.ruleset.sides)
            _DEMO.setdefault(n, (g.scenario, g.state, side, text))
            g.apply(side, text)
    return _DEMO[index]


def test_tacw_10_7_a_cavalry_charges_resolve_is_exact_whole_and_merged():
    """Edgehill demo: Ashton and Digby (Wilmot's horse) assault Fielding; the resolve rolls the
    close combat, each winner's Cavalry Pursuit (§10.7) and a morale check: 1,162 die sequences,
    which /odds used to cut at a horizon. Merged positions give the same fractions, whole."""
    sc, st, side, line = edgehill_before(108)
    assert line == "resolve"
    odds = what_if(TACW, sc, st, side, line)                     # the default budget
    assert odds.horizon is None and sum(o.probability for o in odds.outcomes) == 1
    assert any(d.startswith("d10 cavalry pursuit") for d in odds.dice)
    plain_odds = what_if(TACW, sc, st, side, line, budget=None, merge=False)
    assert plain_odds.leaves == 1162 and odds.leaves < plain_odds.leaves / 5
    assert as_dict(odds) == as_dict(plain_odds)


def test_tacw_10_7_a_cavalry_charge_agrees_with_real_adjudications():
    sc, st, side, line = edgehill_before(108)
    odds = what_if(TACW, sc, st, side, line)
    n = 600
    close_to_sample(odds, sampled(TACW, sc, st, side, line, range(n)), n)


@pytest.mark.parametrize("index", [82, 102, 158])
def test_merging_equal_positions_changes_no_fraction(index):
    """A fire drawing Reaction Fire (82), a move through the enemy's Reaction Fire and morale
    checks (102), a close combat with its retreats (158): merged and plain enumerations agree
    to the last fraction."""
    sc, st, side, line = edgehill_before(index)
    merged = what_if(TACW, sc, st, side, line, budget=None)
    plain_odds = what_if(TACW, sc, st, side, line, budget=None, merge=False)
    assert as_dict(merged) == as_dict(plain_odds) and merged.leaves <= plain_odds.leaves


def test_the_merge_key_leaves_out_caches_but_not_the_record_of_the_readings():
    """The key leaves out the engine's `_memo_` caches but keeps `last_action`: the record of each
    die's reading, which a double unit's two fire rolls (added up, §9.6.2) leave nowhere else."""
    sc, cached, side, line = edgehill_before(108)
    # a copy: the cached state may carry the origin an earlier what-if left on it (`_memo_origin`,
    # engine/tacw/state.py), against which the keys inside that what-if are written
    st = cached.copy()
    a, b = st.copy(), st.copy()
    a._memo_where = {"2019": ["p-fielding"]}                     # an engine cache (engine/core/state.py)
    assert tacw_odds.state_key(a) == tacw_odds.state_key(st)
    b.last_action = {"items": [{"kind": "fire", "text": "1 hit"}]}
    assert tacw_odds.state_key(b) != tacw_odds.state_key(st)
    c = st.copy()
    c.units[next(iter(c.units))].casualties += 1
    assert tacw_odds.state_key(c) != tacw_odds.state_key(st)


def test_tacw_9_6_2_a_double_units_two_rolls_are_not_merged_halfway():
    """Edgehill demo: Gerard (a double unit) moves under Reaction Fire rolled once per half; the
    hits of both rolls are applied together, so the position between them is not the same
    after a hit and after a miss. Merged, the odds still equal the plain enumeration."""
    sc, st, side, line = edgehill_before(154)
    assert line.startswith("move r-gerard")
    merged = what_if(TACW, sc, st, side, line, budget=None)
    plain_odds = what_if(TACW, sc, st, side, line, budget=None, merge=False)
    assert as_dict(merged) == as_dict(plain_odds) and merged.leaves < plain_odds.leaves


@dataclass
class _Marks:
    """A stand-in state that merges: `marks` counts the dice; `odd` holds what cannot be pickled
    when `unkeyable` (a what-if then merges nothing, and is as exact)."""
    seed: int = 1
    draws: int = 0
    marks: int = 0
    odd: object = None

    def copy(self):
        return _Marks(self.seed, self.draws, self.marks, self.odd)


class MergingRuleset(TwoDiceRuleset):
    """Three d4 in a row, each adding 1 for a 3 or a 4 (a threshold): the positions merge."""
    id, name = "stub3", "Stub 3"
    odds = SimpleNamespace(summary=lambda sc, before, after, events, side: f"{after.marks} marks",
                           state_key=odds_module.pickled, ordered=lambda sides, purpose: True)

    def apply(self, sc, state, side, cmd):
        def body(st, stream):
            for i in (1, 2, 3):
                st.marks += stream.roll(4, f"die {i}") >= 3
            return []
        return run_command(state, cmd, body)


def test_merged_positions_and_faces_by_halves_are_exact_and_fewer():
    full = what_if(MergingRuleset(), None, _Marks(), "x", "go", budget=None)
    binomial = {f"{k} marks": Fraction(math.comb(3, k), 8) for k in range(4)}
    assert as_dict(full) == binomial
    plain_odds = what_if(MergingRuleset(), None, _Marks(), "x", "go", budget=None, merge=False)
    assert as_dict(plain_odds) == binomial and plain_odds.leaves == 64 and full.leaves < 20
    unkeyable = what_if(MergingRuleset(), None, _Marks(odd=lambda: None), "x", "go", budget=None)
    assert as_dict(unkeyable) == binomial and unkeyable.leaves == 64


def test_tacw_10_2_c_a_later_combat_forgets_the_record_of_the_earlier_ones():
    """In the close combat step the combats are resolved one after the other, each reading only
    the state: the record of the combats finished before the one being resolved (marked by
    `_resolve_all` where it begins) is left out of the merge key, not the record of its own."""
    sc, st, side, line = edgehill_before(108)
    assert st.activation.step == "close_combat"
    cc = lambda to, text: {"kind": "close_combat", "from": "2120", "to": to, "text": text}  # noqa: E731

    def resolving(earlier: list, own: list):
        s = st.copy()
        s.last_action = {"items": earlier + own}
        s._memo_combat_record = (s.last_action["items"], len(earlier))    # as _resolve_all marks it
        return s

    a = resolving([cc("2019", "AR"), {"kind": "retreat", "path": ["2120", "2221"]}], [cc("2121", "DR")])
    b = resolving([cc("2019", "EX")], [cc("2121", "DR")])
    c = resolving([cc("2019", "EX")], [cc("2121", "D2R")])
    assert tacw_odds.state_key(a) == tacw_odds.state_key(b) != tacw_odds.state_key(c)
    # the next combat's first die, before it records anything: merged too
    assert tacw_odds.state_key(resolving([cc("2019", "AR")], [])) == tacw_odds.state_key(resolving([cc("2019", "EX")], []))
    # a mark left from another record (a copy, an older command) is not trusted: all kept
    stale = resolving([cc("2019", "AR")], [cc("2121", "DR")])
    stale.last_action = {"items": list(stale.last_action["items"])}
    assert tacw_odds.state_key(stale) != tacw_odds.state_key(b)
    a.activation.step = "actions"                         # outside the close combat step: all kept
    b.activation.step = "actions"
    assert tacw_odds.state_key(a) != tacw_odds.state_key(b)


@pytest.mark.parametrize("index", [170, 280])
def test_tacw_10_2_c_edgehill_multi_combat_steps_merged_equal_the_plain_enumeration(index, monkeypatch):
    """Edgehill's close combat steps of two designated combats (issue 13): the merged answer
    (equal positions, faces by halves, the earlier combats' records left out of the key) equals
    the plain enumeration of every die sequence (170: 5,060 sequences), or, where that is too
    long for a test (280), the enumeration that merges only wholly equal states (records kept)."""
    sc, st, side, line = edgehill_before(index)
    assert line == "resolve" and len(st.pending["attacks"]) == 2
    merged = what_if(TACW, sc, st, side, line, budget=None)
    if index == 170:
        reference = what_if(TACW, sc, st, side, line, budget=None, merge=False)
    else:
        monkeypatch.setattr(tacw_odds, "state_key", odds_module.pickled)
        reference = what_if(TACW, sc, st, side, line, budget=None)
    assert merged.leaves < reference.leaves
    assert as_dict(merged) == as_dict(reference)


def test_a_whole_tree_reports_the_share_of_the_chances_worked_out(monkeypatch):
    """The exact follow-up of /odds shows its progress (issue 13): `progress` is told, as the
    enumeration goes, the share of the chances whose outcomes are known -- never going back,
    between 0 and 1 -- and the answer is the same as without it."""
    from bot.cli import DEMO_DIR, read_script, split_side
    from engine.core import odds as odds_module
    from engine.core.game import Game
    monkeypatch.setattr(odds_module, "PROGRESS_EVERY", 0.0)          # a report after every leaf
    seed, lines = read_script(DEMO_DIR / "tacw--edgehill.txt")
    g = Game.new("tacw", "edgehill", seed)
    at = next(i for i, x in enumerate(lines) if " attack " in x)
    for x in lines[:at]:
        g.apply(*split_side(x, g.ruleset.sides))
    side, line = split_side(lines[at], g.ruleset.sides)
    told: list[float] = []
    odds = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None, progress=told.append)
    plain = what_if(g.ruleset, g.scenario, g.state, side, line, budget=None)
    assert len(told) >= 3 and told == sorted(told) and 0 <= told[0] and told[-1] <= 1
    assert told[-1] > told[0]
    assert [(o.label, o.probability) for o in odds.outcomes] == [(o.label, o.probability) for o in plain.outcomes]
