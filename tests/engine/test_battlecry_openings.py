"""Scripted openings of Battle Cry scenarios 1, 4, 7 and 14 (First Bull Run, Shiloh, Antietam,
New Market), played through the command language with supplied dice, so that every outcome is
fixed. Each shows its scenario's special rule happening in play (BC §7 NOTES boxes):

- Shiloh: a Confederate unit on a shaded hex counts as a captured flag while it holds it; a lone
  General does not (official FAQ, supplements.md §2.3);
- Antietam: attacking a unit on the road fences is -2; the creek is crossed only at the bridge;
  a unit forced to retreat across it is eliminated;
- New Market: Confederate horse artillery moves 2, or moves 1 and fires, range 4 with 4-3-2-1
  dice (FAQ); the VMI cadets have 3 figures and fire 3-2-1 (FAQ).

Hands are set to the cards each script plays (the deck's order is the seed's business; where a
script needs a card drawn, it is moved to the top of the deck). Die faces: 1-2 infantry,
3 cavalry, 4 artillery, 5 flag, 6 crossed sabres (tables.DIE_FACES).
Board reminder: hex "CCRR", rows 01-09 from the north, even rows shoved half a hex east; in the
four files the Union's home edge is north, so its left is the board's east.
"""
from __future__ import annotations

import pytest

import engine.battlecry.ruleset  # noqa: F401  (registers the ruleset even if TACW's loaded first)
from engine.battlecry.rules import effective_flags
from engine.core.errors import Illegal
from engine.core.game import Game

from .bc_helpers import run

# Hand sizes from the digest's §7 table (rules/digests/battle-cry.md), not read from the files.
CARDS = {
    "first-bull-run": {"union": 4, "confederate": 5},
    "shiloh": {"union": 4, "confederate": 4},
    "antietam": {"union": 3, "confederate": 5},
    "new-market": {"union": 4, "confederate": 6},
}


def opening(sid, union, confederate, draws=(), seed=3):
    """A book scenario with the given hands; `draws` (in drawing order) go on top of the deck."""
    g = Game.new("battlecry", sid, seed)
    g.state.hands["union"] = list(union)
    g.state.hands["confederate"] = list(confederate)
    for card in draws:
        g.state.deck.remove(card)
    g.state.deck[:0] = list(draws)
    return g


def at(g, pid):
    p = g.state.pieces[pid]
    return p.hex, p.figures


def battles(events):
    return [e for e in events if e.kind == "battle"]


def turn_over(g, turn, active, played):
    """After an `end` (BC §3.2 step 6): the card played is discarded, its player has drawn back
    to the scenario's hand size, and the other side is to play a card, nothing pending."""
    st = g.state
    assert (st.turn, st.active, st.phase, st.pending) == (turn, active, "card", None)
    assert st.discard[-1] == played
    assert {s: len(h) for s, h in st.hands.items()} == CARDS[g.scenario.id]


def refused(g, side, line, match):
    """The command is refused with a reason matching `match` and the game is untouched."""
    before = g.state.state_hash()
    with pytest.raises(Illegal, match=match) as exc:
        g.apply(side, line)
    assert g.state.state_hash() == before
    return exc.value


# ---- #1 First Bull Run (no special rule) ----------------------------------------------------

def test_first_bull_run_opening_matthews_hill_to_henry_hill():
    g = opening("first-bull-run", ["attack-right", "probe-centre", "skirmish-left", "rally"],
                ["attack-centre", "probe-centre", "skirmish-right", "rally", "force-march"])
    assert g.state.active == "union"
    assert [g.state.pieces[p].name for p in ("ui1", "ug1", "ci3", "ci1", "cg1")] == \
        ["Burnside's brigade", "McDowell", "Bee's brigade", "Jackson's brigade", "Jackson"]
    # Union 1: the flank march comes down off Matthews Hill; Palmer's troopers ride at Stuart.
    run(g, "union: play attack-right", "union: order ui1 ui7 uc1", "union: move ui1 0504",
        "union: move ui7 0404", "union: move uc1 0206")
    assert at(g, "ug1") == ("0504", 1)                                   # McDowell goes along
    ev = run(g, "union: battle uc1 0207 dice=3,6,2", "union: battle ui1 0507 dice=1,5,2")
    cav, bee = battles(ev)
    assert (cav.base, cav.row) == (3, "cavalry, range 1")
    assert (bee.base, [m.value for m in bee.modifiers]) == (2, [1])     # range 3, McDowell +1
    # Bee's only retreat hex is 0408 (Bartow holds 0508); Beauregard goes with him (BC §4.6 rule 5)
    assert at(g, "ci3") == ("0408", 2) and at(g, "cg2") == ("0408", 1)
    refused(g, "union", "battle ui7 0408", "line of sight crosses 0406")  # the pines
    run(g, "union: end")
    assert at(g, "cc1") == ("0207", 1) and at(g, "uc1") == ("0206", 3)
    turn_over(g, 2, "confederate", "attack-right")
    # Confederate 2: Bartow and Hampton hit back; Jackson forms on Henry House Hill, unseen.
    run(g, "confederate: play attack-centre", "confederate: order ci4 ci1 ci2",
        "confederate: move ci4 0507", "confederate: move ci1 0606", "confederate: move ci2 0806")
    refused(g, "confederate", "battle ci1 0404", "line of sight crosses 0605")  # the Stone House
    run(g, "confederate: battle ci4 0504 dice=1,5")
    assert at(g, "ui1") == ("0503", 3) and at(g, "ug1") == ("0503", 1)  # 0603 holds the guns
    run(g, "confederate: battle ci2 0803 dice=1,6", "confederate: end")
    assert at(g, "ui3") == ("0803", 2) and at(g, "cg1") == ("0606", 1)
    turn_over(g, 3, "union", "attack-centre")
    # Union 3: Ricketts' and Griffin's guns and Porter's brigade go for the hill.
    ev = run(g, "union: play probe-centre", "union: order ua1 ui2", "union: move ui2 0704",
             "union: battle ua1 0507 dice=4,6", "union: battle ui2 0606 dice=1,1", "union: end")
    guns, porter = battles(ev)
    assert guns.row == "artillery on a Hill, range 4" and guns.base == 2
    assert [(m.value, m.reason) for m in porter.modifiers] == [(-1, "target in hill")]
    assert at(g, "ci4") == ("0507", 3) and at(g, "ci1") == ("0606", 2)
    turn_over(g, 4, "confederate", "probe-centre")
    # Confederate 4: "There stands Jackson like a stone wall": Porter's brigade is destroyed.
    ev = run(g, "confederate: play probe-centre", "confederate: order ci1 ci4",
             "confederate: move ci4 0506", "confederate: battle ci1 0704 dice=1,2,6,2")
    assert battles(ev)[0].outcome == {"hits": 4, "flags": 0, "figures_lost": 4, "eliminated": "ui2"}
    assert at(g, "ui2") == (None, 0) and g.state.flags == {"union": 0, "confederate": 1}
    run(g, "confederate: battle ci4 0503 dice=5")                       # range 3 - hill: 1 die
    assert g.state.pending["side"] == "union" and g.state.pending["options"] == ["0402", "0502"]
    run(g, "union: retreat 0402", "confederate: end")
    assert at(g, "ui1") == ("0402", 3) and at(g, "ug1") == ("0402", 1)
    turn_over(g, 5, "union", "probe-centre")
    assert g.state.captured == {"union": [], "confederate": ["ui2"]}


# ---- #4 Shiloh: the shaded hexes at Pittsburg Landing ----------------------------------------

def test_shiloh_opening_chalmers_reaches_the_landing():
    g = opening("shiloh", ["probe-right", "attack-centre", "probe-left", "skirmish-left"],
                ["coordinated-attack", "force-march", "force-march", "probe-right"],
                draws=["force-march"])                                   # the Union's first draw
    sc = g.scenario
    assert sc.special["objective_hexes"] == ["1001", "1101", "1201", "1102"]
    assert g.state.pieces["ci8"].name == "Chalmers' brigade" and g.state.pieces["cg2"].name == "A.S. Johnston"

    def counted():
        return {s: effective_flags(sc, g.state, s) for s in ("union", "confederate")}

    # Union 1 (the Italian text has the Union first): Sherman's right fires at the woods line.
    run(g, "union: play probe-right", "union: order ua1 ui3", "union: move ui3 0404",
        "union: battle ua1 0307 dice=4,1", "union: battle ui3 0407 dice=1,5", "union: end")
    assert at(g, "ci1") == ("0307", 3) and at(g, "ci2") == ("0308", 3)   # Wood's only way back
    turn_over(g, 2, "confederate", "probe-right")
    assert g.state.hands["union"][-1] == "force-march"
    # Confederate 2: A.S. Johnston rides over to lead Chalmers on the Confederate right.
    ev = run(g, "confederate: play coordinated-attack", "confederate: order ci1 cg2 ci8",
             "confederate: move ci8 0806", "confederate: move cg2 0806", "confederate: move ci1 0306",
             "confederate: battle ci1 0304 dice=1", "confederate: battle ci8 0803 dice=1,1",
             "confederate: end")
    church, orchard = battles(ev)
    assert [m.value for m in church.modifiers] == [-2]                  # Shiloh meeting house
    assert [m.value for m in orchard.modifiers] == [-1, 1]              # peach orchard, Johnston
    assert at(g, "cg2") == ("0806", 1) and at(g, "ui1") == ("0304", 3) and at(g, "ui7") == ("0803", 2)
    turn_over(g, 3, "union", "coordinated-attack")
    # Union 3: Hurlbut, Prentiss and W.H.L. Wallace (with Grant) from the Hornet's Nest line.
    run(g, "union: play attack-centre", "union: order ui7 ui5 ui6", "union: battle ui7 0806 dice=1,3",
        "union: battle ui5 0707 dice=2,6", "union: battle ui6 0806 dice=4,3,4", "union: end")
    assert at(g, "ci8") == ("0806", 3) and at(g, "ci6") == ("0707", 2)
    turn_over(g, 4, "confederate", "attack-centre")
    # Confederate 4: Force March: Chalmers and Johnston two hexes on, Hurlbut destroyed.
    run(g, "confederate: play force-march centre", "confederate: move ci8 0904")
    assert at(g, "cg2") == ("0904", 1)
    run(g, "confederate: battle ci8 0803 dice=1,6,4", "confederate: end")
    assert at(g, "ui7") == (None, 0) and g.state.flags == {"union": 0, "confederate": 1}
    turn_over(g, 5, "union", "force-march")
    # Union 5: Stuart's brigade fires; Webster's siege guns cannot see past it.
    run(g, "union: play probe-left", "union: order ui8 ua3", "union: battle ui8 0904 dice=3,4,4,1")
    refused(g, "union", "battle ua3 0904", "line of sight crosses 1003")
    run(g, "union: end")
    assert at(g, "ci8") == ("0904", 2)
    turn_over(g, 6, "confederate", "probe-left")
    # Confederate 6: on past Stuart to the bluff; the siege guns take a hit.
    run(g, "confederate: play force-march right", "confederate: move ci8 0903 0902",
        "confederate: battle ci8 1002 dice=4,1,1,2,3", "confederate: end")
    assert at(g, "ci8") == ("0902", 2) and at(g, "ua3") == ("1002", 1)
    assert counted() == {"union": 0, "confederate": 1}                  # 0902 is not shaded
    turn_over(g, 7, "union", "force-march")
    # Union 7: the guns fire point-blank.
    run(g, "union: play skirmish-left", "union: order ua3", "union: battle ua3 0902 dice=1,3,4,4,4",
        "union: end")
    assert at(g, "ci8") == ("0902", 1)
    turn_over(g, 8, "confederate", "skirmish-left")
    # Confederate 8: Chalmers takes Pittsburg Landing and overruns Webster's guns. Holding a
    # shaded hex counts as one more flag (BC §7 scenario 4).
    run(g, "confederate: play probe-right", "confederate: order ci8 ci9", "confederate: move ci8 1001",
        "confederate: move ci9 1007", "confederate: battle ci8 1002 dice=4,5,1,3,1", "confederate: end")
    assert at(g, "ua3") == (None, 0) and at(g, "ci8") == ("1001", 1) and at(g, "cg2") == ("1001", 1)
    assert g.state.flags == {"union": 0, "confederate": 2}
    assert counted() == {"union": 0, "confederate": 3}
    assert "Confederate 3/6 flags" in g.ruleset.status(sc, g.state)
    turn_over(g, 9, "union", "probe-right")
    # Union 9: Stuart's brigade force-marches to the bluff and destroys Chalmers. Johnston stays,
    # alone, on the landing: a lone General holds nothing (FAQ), so the extra flag is gone.
    ev = run(g, "union: play force-march left", "union: move ui8 1002",
             "union: battle ui8 1001 dice=1,3,4,4", "union: end")
    assert battles(ev)[0].outcome["eliminated"] == "ci8"
    assert at(g, "ci8") == (None, 0) and at(g, "cg2") == ("1001", 1)
    assert g.state.piece_at("1001") is None
    assert g.state.flags == {"union": 1, "confederate": 2}
    assert counted() == {"union": 1, "confederate": 2}
    assert "Confederate 2/6 flags" in g.ruleset.status(sc, g.state)
    turn_over(g, 10, "confederate", "force-march")


# ---- #7 Antietam: the Sunken Road, the creek and Burnside's bridge ----------------------------

def test_antietam_opening_bloody_lane_and_burnsides_bridge():
    g = opening("antietam", ["attack-centre", "probe-left", "skirmish-left"],
                ["probe-centre", "attack-right", "skirmish-centre", "rally", "probe-left"])
    sc = g.scenario
    assert sc.special["road_hexes"] == ["0606", "0706", "0806"]
    assert [h for h, t in sc.terrain.items() if t == "bridge"] == ["1105"]
    # Union 1: Richardson and French against D.H. Hill in the Sunken Road; Sedgwick cannot wade
    # the creek.
    run(g, "union: play attack-centre", "union: order ui8 ui7 ui6", "union: move ui8 0805",
        "union: move ui7 0604")
    err = refused(g, "union", "move ui6 0602", "0602 is the creek, crossable only at the bridge")
    assert "Antietam" in str(err)
    ev = run(g, "union: move ui6 0603", "union: battle ui8 0706 dice=1,6",
             "union: battle ui7 0706 dice=3", "union: end")
    richardson, french = battles(ev)
    road = [(-2, "target on the road fences", "BC §7 (Antietam)")]
    for b, base in ((richardson, 4), (french, 3)):                      # from the front (NE, NW)
        assert b.base == base and [(m.value, m.reason, m.section) for m in b.modifiers] == road
    assert len(richardson.dice) == 2 and len(french.dice) == 1
    assert at(g, "ci5") == ("0706", 2) and at(g, "cg2") == ("0706", 1)
    assert at(g, "ui6") == ("0603", 4) and at(g, "ug2") == ("0603", 1)
    turn_over(g, 2, "confederate", "attack-centre")
    # Confederate 2: Rodes's volley with two flags: Richardson falls back to 0704, and the second
    # retreat would cross the creek (0703, 0803): the division is eliminated.
    ev = run(g, "confederate: play probe-centre", "confederate: order ci5 ci6",
             "confederate: battle ci5 0805 dice=1,5,5,3,4")
    assert battles(ev)[0].outcome == {"hits": 1, "flags": 2, "figures_lost": 1}
    creek = [e for e in ev if e.kind == "retreat"]
    assert [e.section for e in creek] == ["BC §4.6", "BC §7 (Antietam: no retreat across the creek)"]
    assert "retreats 0805 -> 0704" in creek[0].narrative
    assert creek[1].outcome == {"eliminated": "ui8", "general": None}
    assert at(g, "ui8") == (None, 0) and g.state.flags == {"union": 0, "confederate": 1}
    run(g, "confederate: battle ci6 0604 dice=1,2", "confederate: end")
    assert at(g, "ui7") == ("0604", 2)
    turn_over(g, 3, "union", "probe-centre")
    # Union 3: Burnside's IX Corps: the ford is refused, the bridge is taken.
    run(g, "union: play probe-left", "union: order ui9 ui10")
    refused(g, "union", "move ui9 1205", "1205 is the creek, crossable only at the bridge")
    run(g, "union: move ui9 1105", "union: move ui10 1204")
    assert at(g, "ui9") == ("1105", 4) and at(g, "ug3") == ("1105", 1)
    ev = run(g, "union: battle ui9 1106 dice=1,6,3,4", "union: battle ui10 1106 dice=1,3", "union: end")
    assert [[m.value for m in b.modifiers] for b in battles(ev)] == [[-1, 1], [-1]]   # hill, Burnside
    assert at(g, "ci8") == ("1106", 1)
    turn_over(g, 4, "confederate", "probe-left")
    # Confederate 4: Toombs drives Sturgis off the bridge: a retreat over the bridge is no
    # crossing of the creek, and the Union chooses its hex; Longstreet's men fire across.
    run(g, "confederate: play attack-right", "confederate: order ci8 ci7 ci9",
        "confederate: move ci7 1006", "confederate: move ci9 1207",
        "confederate: battle ci8 1105 dice=1,5,3,4")
    assert g.state.pending["side"] == "union" and g.state.pending["options"] == ["1004", "1104"]
    run(g, "union: retreat 1104")
    assert at(g, "ui9") == ("1104", 3) and at(g, "ug3") == ("1104", 1)
    ev = run(g, "confederate: battle ci7 1104 dice=1,2,3,4", "confederate: end")
    assert [m.value for m in battles(ev)[0].modifiers] == [1]           # Longstreet; no creek malus
    assert at(g, "ui9") == ("1104", 1)
    assert g.state.flags == {"union": 0, "confederate": 1}
    turn_over(g, 5, "union", "attack-right")


# ---- #14 New Market: horse artillery and the VMI cadets ---------------------------------------

def test_new_market_opening_the_field_of_lost_shoes():
    g = opening("new-market", ["attack-centre", "probe-centre", "skirmish-left", "probe-right"],
                ["attack-centre", "force-march", "skirmish-left", "rally", "probe-left", "probe-centre"])
    vmi = g.state.pieces["ci3"]
    assert (vmi.name, vmi.special, vmi.figures, vmi.start_figures) == ("VMI Cadets", "vmi", 3, 3)
    assert {g.state.pieces[p].special for p in ("ca1", "ca2", "ca3")} == {"horse_artillery"}
    assert g.state.active == "confederate"
    # Confederate 1: from Shirley's Hill the horse guns reach 4 hexes, not an artillery-on-Hill 6;
    # the cadets reach 3, not 4.
    run(g, "confederate: play attack-centre", "confederate: order ca1 ca2 ci3")
    refused(g, "confederate", "battle ca2 0702", r"ca2 \(horse artillery\) reaches 4 hexes; 0702 is 5 away")
    refused(g, "confederate", "battle ci3 0603", r"ci3 \(VMI cadets\) reaches 3 hexes")
    # Chapman's battery gallops two hexes and may not fire; McLaughlin's moves one and fires.
    ev = run(g, "confederate: move ca2 0706 0705", "confederate: move ca1 0606",
             "confederate: move ci3 0607")
    assert "horse artillery that moves 2 may not fire" in ev[0].narrative
    assert "may not battle" not in ev[1].narrative
    refused(g, "confederate", "battle ca2 0603", "may not battle this turn")
    refused(g, "confederate", "battle ci3 0603", r"VMI cadets\) reaches 3 hexes; 0603 is 4 away")
    ev = run(g, "confederate: battle ca1 0603 dice=1,4", "confederate: end")
    assert (battles(ev)[0].row, battles(ev)[0].base) == ("horse artillery, range 3", 2)   # not 3
    assert at(g, "ca1") == ("0606", 2) and at(g, "ca2") == ("0705", 2) and at(g, "ui3") == ("0603", 3)
    turn_over(g, 2, "union", "attack-centre")
    # Union 2: Sigel's centre answers; Chapman's battery is destroyed.
    ev = run(g, "union: play attack-centre", "union: order ui3 ui5 ui4", "union: move ui3 0504",
             "union: move ui5 0804", "union: move ui4 0703", "union: battle ui3 0606 dice=4,5,1,3")
    assert at(g, "ca1") == ("0707", 1)                                  # 0607: the cadets
    run(g, "union: battle ui5 0705 dice=4,2,3", "union: battle ui4 0705 dice=2,4,1", "union: end")
    assert at(g, "ca2") == (None, 0) and g.state.flags == {"union": 1, "confederate": 0}
    assert at(g, "ug1") == ("0504", 1)
    turn_over(g, 3, "confederate", "attack-centre")
    # Confederate 3: the cadets force-march into the Field of Lost Shoes and charge: 3 dice
    # adjacent (ordinary infantry 4), -1 for the Bushong orchard.
    ev = run(g, "confederate: play force-march centre", "confederate: move ci3 0506 0505",
             "confederate: move ci4 0406 0405", "confederate: battle ci3 0504 dice=1,5")
    charge = battles(ev)[0]
    assert (charge.row, charge.base, [m.value for m in charge.modifiers]) == ("VMI cadets, range 1", 3, [-1])
    assert at(g, "ui3") == ("0603", 2) and at(g, "ug1") == ("0603", 1)
    ev = run(g, "confederate: battle ci4 0303 dice=1,1,3,4", "confederate: end")
    assert battles(ev)[0].base == 3                                     # ordinary infantry, range 2
    assert at(g, "ui2") == ("0303", 2)
    turn_over(g, 4, "union", "force-march")
    # Union 4: Snow's battery cuts the cadets down to one figure; Breckinridge falls back.
    run(g, "union: play probe-right", "union: order ua2 ui2", "union: battle ua2 0505 dice=1,2,4",
        "union: battle ui2 0405 dice=1,5")
    assert g.state.pending["options"] == ["0406", "0306"]
    run(g, "confederate: retreat 0406", "union: end")
    assert at(g, "ci3") == ("0505", 1)
    assert at(g, "ci4") == ("0406", 3) and at(g, "cg1") == ("0406", 1)
    turn_over(g, 5, "confederate", "probe-right")
    # Confederate 5: Rally: six dice (the hand), four infantry faces, but the cadets return to
    # their 3 figures only; they may battle but not move, at range 2 with 2 dice.
    ev = run(g, "confederate: play rally", "confederate: rally 0505 dice=1,1,1,2,3,4")
    assert ev[-1].base == 6 and ev[-1].outcome == {"figures": 3}
    assert at(g, "ci3") == ("0505", 3)
    refused(g, "confederate", "move ci3 0504", "may not move this turn")
    ev = run(g, "confederate: battle ci3 0503 dice=6", "confederate: end")
    assert (battles(ev)[0].row, battles(ev)[0].base) == ("VMI cadets, range 2", 2)
    assert at(g, "ua2") == ("0503", 1)
    assert g.state.flags == {"union": 1, "confederate": 0}
    turn_over(g, 6, "union", "rally")
