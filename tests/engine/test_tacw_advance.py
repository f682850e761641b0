"""TACW: the advance after close combat and the pursuit trigger Reaction Movement (§10.4.9,
§10.7, §7.4), except from the units that retreated; and the owner's retreat hex choice
(§10.4, policy "retreat"). Dice in a command are die FACES (1-10): the d10 reads face - 1.
Map (flat-top, CCRR): 0506 facing E has rear hexes 0406 / 0405, so a unit advancing from 0505
into 0405 enters its rear.
"""
from __future__ import annotations

from engine.tacw.close_combat import retreat as retreat

from .test_tacw_melee import BASE, P, R, assault, cav, heavy, keep_pistols, pos


def test_10_4_9_cavalry_advancing_into_a_rear_hex_forces_a_hedgehog_attempt():
    p = pos(cav("r1", R, ["0505"], "W"), heavy("p1", P, ["0405"], "E"), heavy("p2", P, ["0506"], "E"))
    keep_pistols(p)
    events = assault(p, "attack r1 0405", dice="8,1,3")      # DB2; pursuit 0+1: break contact; MC 2
    assert p.unit("r1").hexes == ["0405"] and p.unit("p1").hexes == ["0204"]
    (mc,) = [e for e in events if e.kind == "morale_check"]
    assert mc.outcome["unit"] == "p2" and mc.section == "TACW §11.2"
    hh = [e for e in events if e.kind == "reaction_move"]
    assert hh[-1].outcome == {"unit": "p2", "reaction": "hedgehog", "formed": True}
    assert p.unit("p2").special_formation == "hedgehog" and p.st.pending is None


def test_10_4_9_the_advance_draws_a_facing_reaction_by_policy():
    for pol, turned in (("never", False), ("auto", True), ("ask", True)):
        p = pos(*BASE, heavy("p2", P, ["0506"], "E"))
        p.st.policies[P]["reaction_move"] = pol              # "ask" is read as "auto" in combat
        facing = p.unit("p2").facing
        events = assault(p, "attack r1 0405", dice="8")      # 7: DB2, r1 must advance
        assert p.unit("r1").hexes == ["0405"]
        faced = [e for e in events if e.kind == "reaction_move" and e.outcome.get("unit") == "p2"]
        assert bool(faced) is turned and (p.unit("p2").facing != facing) is turned
        assert p.st.pending is None and p.st.policies[P]["reaction_move"] == pol


def test_10_4_9_the_units_that_retreated_do_not_react():
    from engine.core.dice import DiceStream
    p = pos(*BASE, heavy("p2", P, ["0506"], "E"))
    p.st.policies[P]["reaction_move"] = "auto"
    r1 = p.unit("r1")
    r1.hexes = ["0405"]
    p.unit("p1").hexes = ["0204"]
    stream = DiceStream(p.st.seed, p.st.draws)
    assert retreat.reaction_moves(p.sc, p.st, r1, ["0405"], stream, exclude=["p2"], before=["0505"]) == []
    events = retreat.reaction_moves(p.sc, p.st, r1, ["0405"], stream, exclude=["p1"], before=["0505"])
    assert [e.outcome["unit"] for e in events] == ["p2"]
