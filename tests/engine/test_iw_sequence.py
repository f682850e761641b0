"""The Italian Wars sequence of play (engine/italianwars/sequence): before the battle (Tabelle 2-4,
the attacker, the deployment steps), battle activation (Tabella 6) with its alternation and once a
turn, the sacrificed sixes, cohesion, army break and the day's clock. Hand-made states: each
company's printed values in `st.options["specs"]` (rules.attr reads them first)."""
from __future__ import annotations

import pytest

from engine.core.commands import parse
from engine.core.errors import Illegal
from engine.italianwars import rules
from engine.italianwars.ruleset import ITALIANWARS as IW
from engine.italianwars.sequence import activation, cohesion, endturn, prebattle
from engine.italianwars.state import Army, Battle, Company, IWState


def make_state(companies=None, phase="actions", turn=2, attacker="french", clock=8, weather="good"):
    """Two battles a side, two companies each (mercenary shock infantry, captains Reliable), the
    French at y 5 facing north, the League at y 15 facing south. `companies` overrides specs:
    {company: {spec...}}; a "captain" key sets the captain."""
    st = IWState(scenario_id="test", seed=7)
    specs = {}
    for side, y, facing in (("french", 5.0, 0.0), ("league", 15.0, 180.0)):
        for i in range(2):
            bid = f"{side[0]}b{i}"
            st.battles[bid] = Battle(bid, side, commander=f"{bid}c0", cinc=(i == 0), order="attack")
            for j in range(2):
                cid = f"{bid}c{j}"
                st.companies[cid] = Company(cid, side, bid, x=10.0 + i * 6 + j, y=y, facing=facing, bases=2,
                                            captain="reliable")
                specs[cid] = {"morale": "mercenaries", "arm": "infantry", "role": "shock", "nation": "italian"}
        st.armies[side] = Army(side, ecu=4)
    for cid, spec in (companies or {}).items():
        spec = dict(spec)
        if "captain" in spec:
            st.companies[cid].captain = spec.pop("captain")
        specs[cid].update(spec)
    st.options["specs"] = specs
    st.secrets = {"french": {}, "league": {}}
    st.phase, st.step, st.turn, st.attacker, st.clock, st.weather, st.season = phase, "done", turn, attacker, clock, weather, "summer"
    if phase == "actions":
        activation.begin(None, st)
    return st


def go(st, side, line):
    return IW.apply(None, st, side, parse(line))


def passed(st, side):
    """`side` ends every step of its activation still waiting (2c, 2d...) with `pass`."""
    while st.activation.get("side") == side and not st.pending:
        st, _ = go(st, side, "pass")
    return st


# -- before the battle ---------------------------------------------------------------------------------

def prebattle_state():
    st = make_state(phase="prebattle", attacker="")
    st.step = "personalities"
    st.weather = st.season = ""
    for c in st.companies.values():
        c.captain = ""
    return st


def test_personalities_by_tabella_2_and_the_swiss_always_rash():
    """IW Tabella 2: Mercenaries 6 Unpredictable, 5 Reliable, 3-4 Cautious, 1-2 Timid; Militia
    and Rabble 6 Unpredictable, 4-5 Cautious, 1-3 Timid; other companies 6 Rash, 5
    Unpredictable, 3-4 Reliable, 2 Cautious, 1 Timid; the Swiss always Rash (no die)."""
    st = prebattle_state()
    specs = st.options["specs"]
    specs["fb0c0"]["morale"] = "mercenaries"       # d6 5 -> reliable
    specs["fb0c1"]["morale"] = "militia"           # d6 5 -> cautious
    specs["fb1c0"]["morale"] = "gentlemen"         # d6 6 -> rash
    specs["fb1c1"]["morale"] = "rabble"            # d6 3 -> timid
    specs["lb0c0"]["morale"] = "professionals"     # d6 2 -> cautious
    specs["lb0c1"].update(morale="mercenaries", nation="swiss")   # no die: rash
    specs["lb1c0"]["morale"] = "mercenaries"       # d6 6 -> unpredictable
    specs["lb1c1"]["morale"] = "professionals"     # d6 1 -> timid
    st, events = go(st, "french", "roll dice=5,5,6,3,2,6,1")
    got = {c.id: c.captain for c in st.companies.values()}
    assert got == {"fb0c0": "reliable", "fb0c1": "cautious", "fb1c0": "rash", "fb1c1": "timid",
                   "lb0c0": "cautious", "lb0c1": "rash", "lb1c0": "unpredictable", "lb1c1": "timid"}
    swiss = [e for e in events if e.kind == "personality" and e.outcome["company"] == "lb0c1"][0]
    assert not swiss.dice and "always Rash" in swiss.narrative
    assert st.step == "weather"


def test_season_weather_and_the_hour():
    """IW Tabelle 3-4, IW Ora del giorno: season d6 3 spring; weather d6 5 + 3 = 8 good; 2d6 4+2
    = hour 6. Season 6 autumn + weather 4 = 10: cloudy."""
    st = prebattle_state()
    st.companies["fb0c0"].captain = "rash"
    for c in st.companies.values():
        c.captain = c.captain or "reliable"
    st, _ = rules.start(None, st)
    assert st.step == "weather"
    st, _ = go(st, "french", "roll dice=3,5,4,2")
    assert (st.season, st.weather, st.clock) == ("spring", "good", 6)
    assert st.attacker == "french"                  # one Rash captain to none
    st2 = prebattle_state()
    for c in st2.companies.values():
        c.captain = "reliable"
    st2, _ = rules.start(None, st2)
    st2, _ = go(st2, "league", "roll dice=6,4,3,3")
    assert (st2.season, st2.weather, st2.clock) == ("autumn", "cloudy", 6)


def test_bad_weather_postponed_only_when_both_agree():
    """IW Tempo cattivo: season 1 + weather 1 = 2: bad; one side fights: both fight; both wait: a
    d6 of hours (past 16, less 12: the next morning) and the weather again."""
    base = prebattle_state()
    for c in base.companies.values():
        c.captain = "reliable"
    base, _ = rules.start(None, base)
    st, _ = go(base, "french", "roll dice=1,1,6,6")        # bad weather, hour 12
    assert st.weather == "bad" and st.pending["kind"] == "postpone" and st.pending["side"] == "french"
    fought, _ = go(st, "french", "react fight")
    assert fought.pending is None and fought.clock == 12 and fought.weather == "bad"
    st, _ = go(st, "french", "react wait")
    assert st.pending["side"] == "league"
    st, events = go(st, "league", "react wait dice=6,3")   # 12 + 6 = 18 > 16: hour 6 next morning; 1 + 3 = 4 cloudy
    assert st.clock == 6 and st.weather == "cloudy"
    assert any(e.outcome.get("next_morning") for e in events)


def test_attacker_by_rash_captains_and_the_tie_rolled():
    """IW Prima della battaglia 4: more Rash captains attack; a tie: 1d6 each, the higher
    (equal dice rolled again)."""
    st = prebattle_state()
    for c in st.companies.values():
        c.captain = "reliable"
    st.companies["lb0c1"].captain = "rash"
    st.weather, st.season = "good", "summer"
    st, _ = rules.start(None, st)
    assert st.attacker == "league"
    st = prebattle_state()
    for c in st.companies.values():
        c.captain = "reliable"
    st.weather, st.season = "good", "summer"
    st, _ = rules.start(None, st)
    assert st.step == "attacker" and not st.attacker
    st, events = go(st, "league", "roll dice=4,4,2,5")
    assert st.attacker == "league"


def test_written_orders_needed_for_every_battle_before_keep():
    """IW Prima della battaglia 8: "Scrivere gli ordini per ciascuna battaglia"; Assault and
    Hesitate are never given (IW Ordini)."""
    st = make_state(phase="prebattle")
    st.step = "orders"
    for b in st.battles.values():
        b.order = ""
    with pytest.raises(Illegal, match="every battle needs an order"):
        go(st, "french", "keep")
    with pytest.raises(Illegal, match="never given"):
        go(st, "french", "order fb0 assault")
    with pytest.raises(Illegal, match="needs an objective"):
        go(st, "french", "order fb0 occupy")
    st, _ = go(st, "french", "order fb0 hold")
    st, _ = go(st, "french", "order fb1 occupy the-hill")
    st, _ = go(st, "french", "keep")
    assert st.battles["fb1"].objective == "the-hill" and "french" in st.done


# -- activation ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("morale,minimum", [("professionals", 2), ("gentlemen", 3), ("mercenaries", 4),
                                            ("militia", 5), ("rabble", 6)])
def test_activation_minimum_by_the_commanders_class(morale, minimum):
    """IW Tabella 6: Professionisti 2, Gentiluomini 3, Mercenari 4, Milizia 5, Feccia 6 (a
    Reliable commander: no modifier)."""
    st = make_state({"fb1c0": {"morale": morale}})
    if minimum > 1:
        failed, events = go(st, "french", f"activate fb1 dice={minimum - 1}")
        assert failed.battles["fb1"].failed and failed.active_side == "league"
        assert events[0].outcome["minimum"] == minimum
    ok, events = go(st, "french", f"activate fb1 dice={minimum}")
    assert events[0].outcome["activated"] and not ok.battles["fb1"].failed


def test_activation_modifiers_rash_timid_and_last_turn():
    """IW Tabella 6: Rash +1, Timid -1, activated the previous turn -1, off the table +1 (HERALD
    D10): a Mercenary battle (4) with a Rash commander activates on a 3; with a Timid commander
    who activated last turn a 5 is not enough (5 - 2 = 3)."""
    st = make_state({"fb1c0": {"captain": "rash"}})
    ok, events = go(st, "french", "activate fb1 dice=3")
    assert events[0].outcome["activated"] and events[0].outcome["total"] == 4
    st = make_state({"fb1c0": {"captain": "timid"}})
    st.battles["fb1"].activated_last = True
    bad, events = go(st, "french", "activate fb1 dice=5")
    assert not events[0].outcome["activated"] and events[0].outcome["total"] == 3
    st = make_state()
    st.battles["fb1"].off_table = True
    ok, events = go(st, "french", "activate fb1 dice=3")
    assert events[0].outcome["activated"]


def test_the_cinc_battle_activates_without_a_die():
    """IW Attivazione delle Battaglie: "La Battaglia del Comandante non deve mai testare per
    l'attivazione"."""
    st = make_state({"fb0c0": {"morale": "rabble"}})
    after, events = go(st, "french", "activate fb0")
    assert after.draws == st.draws and events[0].outcome == {"battle": "fb0", "activated": True, "tested": False}


def test_attacker_first_then_alternately_once_a_turn():
    """IW Il Giocatore Attivo: the attacker activates first, then one battle each; a battle once a
    turn; a failed battle passes the hand."""
    st = make_state()
    with pytest.raises(Illegal, match="French's turn"):
        go(st, "league", "activate lb1 dice=6")
    st, _ = go(st, "french", "activate fb1 dice=1")        # fails: the hand passes
    assert st.active_side == "league"
    with pytest.raises(Illegal, match="League's turn"):
        go(st, "french", "activate fb0")
    st, _ = go(st, "league", "activate lb1 dice=6")
    st = passed(st, "league")                              # its steps (2c, 2d...) each end with `pass`
    assert st.active_side == "french"
    with pytest.raises(Illegal, match="once a turn"):
        go(st, "french", "activate fb1 dice=6")
    st, _ = go(st, "french", "activate fb0")
    st = passed(st, "french")
    st, events = go(st, "league", "activate lb0")
    while st.activation.get("side") == "league":
        st, more = go(st, "league", "pass")
        events += more
    assert any(e.kind == "new_turn" for e in events) and st.turn == 3 and st.phase == "command"


def test_a_sacrificed_six_is_rolled_again():
    """IW Emanazione di nuovi ordini, HERALD D50: a side owing a six rerolls its next 6; each
    reroll pays one six; a reroll that is 6 again pays another while sixes are owed."""
    st = make_state()
    st.armies["french"].sixes_owed = 1
    after, events = go(st, "french", "activate fb1 dice=6,3")
    assert after.armies["french"].sixes_owed == 0 and events[0].outcome["total"] == 3
    assert not events[0].outcome["activated"] and events[0].outcome["sacrificed"] == 1
    st.armies["french"].sixes_owed = 2
    after, events = go(st, "french", "activate fb1 dice=6,6,6")
    assert after.armies["french"].sixes_owed == 0 and events[0].outcome["total"] == 6
    st.armies["french"].sixes_owed = 1
    after, events = go(st, "french", "activate fb1 dice=5")
    assert after.armies["french"].sixes_owed == 1            # a 5 pays nothing


# -- cohesion -----------------------------------------------------------------------------------------------

def test_command_radius_cavalry_5_infantry_3_skirmishers_2():
    """IW Coesione delle Battaglie, edge to edge (HERALD D2): infantry 3 UDM from the
    commander's company, cavalry 5, skirmishers 2 from any company of their battle, artillery
    free."""
    st = make_state({"fb1c1": {"arm": "infantry"}})
    c, cmd = st.companies["fb1c1"], st.companies["fb1c0"]
    c.x = cmd.x + 1 + 3.0                  # 3 UDM gap between the 1-UDM-wide rectangles
    assert cohesion.in_radius(None, st, c)
    c.x += 0.01
    assert not cohesion.in_radius(None, st, c) and cohesion.out_of_radius(None, st, "fb1") == ["fb1c1"]
    st.options["specs"]["fb1c1"]["arm"] = "cavalry"
    assert cohesion.in_radius(None, st, c)
    c.x = cmd.x + 1 + 5.01
    assert not cohesion.in_radius(None, st, c)
    st.options["specs"]["fb1c1"]["arm"] = "artillery"
    assert cohesion.in_radius(None, st, c)
    st.options["specs"]["fb1c1"].update(arm="infantry", role="skirmishers")
    c.x = cmd.x + 1 + 2.0
    assert cohesion.in_radius(None, st, c)
    c.x += 0.01
    assert not cohesion.in_radius(None, st, c)


# -- army break and the clock -----------------------------------------------------------------------------

def test_army_breaks_at_more_than_half_not_at_half():
    """IW Punto di rottura dell'esercito, IW Tabella 1: four Mercenary companies (2 each) and the
    camp (3): strength 11; lost 4 + camp 3 = 7 > 5.5 breaks; a strength of 12 with 6 lost does
    not (exactly half)."""
    st = make_state()
    loss = endturn.army_losses(None, st, "french")
    assert loss == {"strength": 11, "lost": 0, "broken": False}
    st.companies["fb1c0"].status = "routing"
    st.battles["fb0"].order = "retreat"                     # its 2 companies are lost too
    st.armies["french"].camp_lost = True
    assert endturn.army_losses(None, st, "french") == {"strength": 11, "lost": 9, "broken": True}
    events = endturn.check_break(None, st)
    assert st.phase == "over" and st.winner == "league"
    assert all(b.order == "retreat" for b in st.battles.values() if b.side == "french")
    st = make_state({"fb0c0": {"morale": "professionals"}, "fb0c1": {"morale": "militia"}})
    # strength 3 + 1 + 2 + 2 + 3 = 11 ... make it 12: a Gentlemen company instead of a Mercenary one
    st.options["specs"]["fb1c1"]["morale"] = "professionals"
    assert endturn.army_losses(None, st, "french")["strength"] == 12
    st.companies["fb0c0"].status = "destroyed"              # 3
    st.companies["fb1c1"].status = "off"                    # 3: 6 of 12, exactly half
    assert endturn.army_losses(None, st, "french") == {"strength": 12, "lost": 6, "broken": False}
    endturn.check_break(None, st)
    assert st.phase != "over"


def test_the_clock_dusk_and_night():
    """IW Notte e giorno: dawn 2-3, dusk from 16, dark at 18: the battle ends at the end of clock
    turn 18 (HERALD D46); the army that lost the smaller share holds the field."""
    assert [endturn.light_of(h) for h in (2, 3, 4, 15, 16, 17, 18)] == \
        ["dawn", "dawn", "day", "day", "dusk", "dusk", "night"]
    st = make_state(clock=17)
    st.phase = "end"
    endturn.end_of_turn(None, st, None)
    assert st.clock == 18 and st.turn == 3 and st.phase == "command"
    st.companies["lb1c1"].status = "routing"        # the League lost 2 of 11
    st.phase = "end"
    endturn.end_of_turn(None, st, None)
    assert st.phase == "over" and st.winner == "french" and "night has fallen" in st.result


def test_visibility_by_weather_and_light():
    """IW Visibilità, IW Tempo atmosferico: a clear day sees the whole field; cloudy 15; bad 8 by
    day and 1 at dawn; good weather at night 3 (full moon)."""
    st = make_state()
    assert endturn.visibility(st) is None
    st.weather = "cloudy"
    assert endturn.visibility(st) == 15.0
    st.weather, st.clock = "bad", 2
    assert endturn.visibility(st) == 1.0
    st.weather, st.clock = "good", 19
    assert endturn.visibility(st) == 3.0


def test_deployment_within_6_udm_and_placing_alternately():
    """IW Prima della battaglia 5 and IW Prima della battaglia 7: the map within 6 UDM of the own edge; the battles placed
    one at a time, the defender first."""
    st = make_state(phase="prebattle", attacker="french")
    st.step = "deployment"
    for c in st.companies.values():
        c.status = "waiting"
    with pytest.raises(Illegal, match="within 6 UDM"):
        go(st, "french", "deploy fb0 10,6.5")             # the front edge 6.5 UDM from the south edge
    st, _ = go(st, "french", "deploy fb0 10,5")
    st, _ = go(st, "french", "deploy fb1 20,5")
    st, _ = go(st, "french", "keep")
    st, _ = go(st, "league", "deploy lb0 10,25")
    st, _ = go(st, "league", "deploy lb1 20,25")
    st, _ = go(st, "league", "keep")
    assert st.step == "defences"
    st, _ = go(st, "league", "camp 30,29")
    st, _ = go(st, "french", "camp 30,1")
    assert st.step == "placement" and IW.to_act(st) == "league"
    with pytest.raises(Illegal, match="League's turn"):
        go(st, "french", "place fb0")
    st, _ = go(st, "league", "place lb0")
    assert st.active_side == "french" and st.companies["lb0c0"].status == "active"
    assert (st.companies["lb0c0"].x, st.companies["lb0c1"].x) == (10.5, 9.5)   # facing south: right is west
    st, _ = go(st, "french", "place fb1")
    st, _ = go(st, "league", "place lb1")
    st, _ = go(st, "french", "place fb0")
    assert st.step == "bribery"             # every battle already has an order: step 8 passes by itself
