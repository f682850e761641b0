"""TACW movement: allowances and terrain (§7.1-§7.2), facing (§6.2), doubles (§6.2.1, §7.1.2,
§7.3.2), formation hits (§7.3), stacking (§8), incorporation (§8.4), order restrictions (§5.6
with errata [5.6.1] [5.6.3]), command (§5.4.3), the interrupts that stop a move in the exact hex
(reaction fire §9.7, reaction movement §7.4, interception §7.5), leaders (§5.1-§5.3).

The map is flat-topped: from 0505 the neighbours are SE 0605, S 0506, SW 0405, NW 0404, N 0504,
NE 0604; a unit facing vertex E has front hexes 0604 and 0605. Dice: `dice=N` gives the face N,
so the d10 reads N-1. The fire and close-combat rules are stood in for by fakes (they are
written elsewhere); the calls movement makes to them are what is tested here."""
from __future__ import annotations

import importlib
import sys
import types

import pytest

from engine.core.errors import Illegal
from engine.core.events import Event
from engine.tacw import rules
from engine.tacw.movement import move as movement
from engine.tacw.scenario.schema import map_grid

from .tacw_helpers import Position

GRID = map_grid(20, 15)
SIDES = ("SE", "S", "SW", "NW", "N", "NE")


def nb(h: str, d: str) -> str:
    return GRID.neighbor(h, SIDES.index(d))


def east(h: str, n: int) -> list[str]:
    """n hexes straight ahead for a unit facing E (alternately NE, SE)."""
    out = []
    for i in range(n):
        h = nb(h, "NE" if i % 2 == 0 else "SE")
        out.append(h)
    return out


class FakeFire:
    """Stands in for the fire rules' entry points: records the calls, interrupts where told."""

    def __init__(self):
        self.calls, self.pistols, self.reactions = [], [], []
        self.stop_at = None          # a hex: reaction fire there stops the mover
        self.pend_at = None          # a hex: reaction fire there asks the inactive player
        self.disorder_at = None      # a hex: reaction fire there disorders the mover

    def reaction_fire(self, sc, st, unit, trigger, stream, *, hexes=None, **kw):
        self.calls.append((unit.id, trigger, list(hexes or [])))
        if self.disorder_at and self.disorder_at in (hexes or []):
            unit.formation = "disordered"
            return [], False
        if self.stop_at and self.stop_at in (hexes or []):
            unit.formation = "broken"
            return [Event("fire", "x", "TACW §9.7", f"reaction fire breaks {unit.name}")], True
        if self.pend_at and self.pend_at in (hexes or []):
            self.pend_at = None
            st.pending = {"kind": "reaction_fire", "side": st.other(unit.side), "options": []}
            return [], True
        return [], False

    def react_one(self, sc, st, r, trig, hexes, trigger, stream, **kw):
        self.reactions.append((r.id, trig.id, trigger, kw.get("moving_cav")))
        return []

    def pistol_fire(self, sc, st, cav, target, stream, *, during_move=True):
        self.pistols.append((cav.id, target, during_move))
        cav.pistols -= 1
        return [Event("fire", cav.side, "TACW §9.2", f"{cav.name} fires a pistol at {target}")]


class FakeMelee:
    def __init__(self):
        self.calls = []

    def immediate_close_combat(self, sc, st, attacker, target_hex, stream):
        self.calls.append((attacker.id, target_hex))
        return [Event("close_combat", attacker.side, "TACW §7.5.3", "immediate close combat")]


def _module(name, monkeypatch):
    """The real engine.tacw.<name> when it is installed, else an empty stand-in."""
    try:
        return importlib.import_module(f"engine.tacw.{name}")
    except ImportError:
        mod = types.ModuleType(f"engine.tacw.{name}")
        monkeypatch.setitem(sys.modules, f"engine.tacw.{name}", mod)
        return mod


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    """Movement's calls into the fire and close-combat rules go to recording fakes, so these
    tests roll only the dice of movement itself (interception, hedgehog morale checks)."""
    fire, melee = FakeFire(), FakeMelee()
    fmod, mmod = _module("fire.small_arms", monkeypatch), _module("close_combat.melee", monkeypatch)
    for name in ("reaction_fire", "react_one", "pistol_fire"):
        monkeypatch.setattr(fmod, name, getattr(fire, name), raising=False)
    monkeypatch.setattr(mmod, "immediate_close_combat", melee.immediate_close_combat, raising=False)
    return fire, melee


FAR_FOE = ("p-far", "parliament", "p-a", "heavy", ["1905"], "W")


def pos(*units, orders=None, **kw):
    """A position with the Royalist wing r-a activated (default orders: r-a Charge, p-a Receive
    Charge)."""
    orders = {"r-a": "charge", "p-a": "receive_charge", **(orders or {})}
    p = Position(list(units), orders=orders, **kw)
    try:
        p.go("royalist", "activate r-a")
    except Illegal:                      # Parliament's wing goes first by precedence (§4.2)
        p.go("parliament", "activate p-a")
        p.go("parliament", "stop")
        p.go("royalist", "activate r-a")
    return p


def move_event(p):
    return next(e for e in p.events if e.kind == "move" and e.inputs["mode"] == "action")


# == §7.2 allowances, §7.1 terrain ===================================================================

def test_tacw_7_2_cavalry_moves_8_and_not_9():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"), FAR_FOE)
    path = east("0305", 9)
    with pytest.raises(Illegal, match=r"costs 1 MP but r-cav has 0 of its 8 MP left.*7\.2"):
        p.go("royalist", "move r-cav " + " ".join(path))
    p.go("royalist", "move r-cav " + " ".join(path[:8]))
    assert p.unit("r-cav").hexes == [path[7]]
    assert move_event(p).outcome["mp_spent"] == 8


@pytest.mark.parametrize("kind,ma", [("heavy", 4), ("light", 6)])
def test_tacw_7_2_infantry_allowances(kind, ma):
    p = pos(("r-x", "royalist", "r-a", kind, ["0305"], "E"), FAR_FOE)
    path = east("0305", ma + 1)
    with pytest.raises(Illegal, match=f"of its {ma} MP left"):
        p.go("royalist", "move r-x " + " ".join(path))
    p.go("royalist", "move r-x " + " ".join(path[:ma]))
    assert p.unit("r-x").hexes == [path[ma - 1]]


def test_tacw_6_3_1_disordered_has_half_allowance():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"), FAR_FOE)
    p.st.units["r-cav"].formation = "disordered"
    path = east("0305", 5)
    with pytest.raises(Illegal, match="of its 4 MP left"):
        p.go("royalist", "move r-cav " + " ".join(path))
    p.go("royalist", "move r-cav " + " ".join(path[:4]))


def test_tacw_6_3_1_broken_and_hedgehog_do_not_move():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"),
            ("r-hi", "royalist", "r-a", "heavy", ["0308"], "E"), FAR_FOE)
    p.st.units["r-cav"].formation = "broken"
    p.st.units["r-hi"].special_formation = "hedgehog"
    with pytest.raises(Illegal, match="F-Broken: no movement"):
        p.go("royalist", "move r-cav 0404")
    with pytest.raises(Illegal, match="hedgehog: no movement"):
        p.go("royalist", "move r-hi 0407")


def test_tacw_7_1_1_terrain_costs_and_impassable():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE,
            terrain={"wood": ["0604"], "river": ["0605"]})
    with pytest.raises(Illegal, match="0605 is river: no unit may enter"):
        p.go("royalist", "move r-cav 0605")
    p.go("royalist", "move r-cav 0604 " + " ".join(east("0604", 4)))       # wood 4 + 4 clear
    ev = move_event(p)
    assert ev.outcome["mp_spent"] == 8
    assert ev.outcome["steps"][0]["mp"] == 4 and "wood" in ev.outcome["steps"][0]["terrain"][0]


def test_tacw_7_1_1_only_front_hexes():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE, orders={"r-a": "make_ready"})
    with pytest.raises(Illegal, match=r"0506 is not a front hex of r-cav \(facing E: 0605, 0604\).*7\.1\.1"):
        p.go("royalist", "move r-cav 0506")
    p.go("royalist", "move r-cav face SE 0506")
    assert p.unit("r-cav").hexes == ["0506"] and move_event(p).outcome["mp_spent"] == 2


# == §6.2 facing ====================================================================================

def test_tacw_6_2_1_facing_costs_cavalry_one_heavy_two_per_vertex():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-hi", "royalist", "r-a", "heavy", ["0507"], "E"), FAR_FOE, orders={"r-a": "make_ready"})
    p.go("royalist", "move r-cav face SW face E 0604")       # 2 vertices there and back: 4 MP + 1
    assert move_event(p).outcome["mp_spent"] == 5
    p.go("royalist", "move r-hi face SE " + nb("0507", "S"))  # heavy: 2 MP a vertex + 1
    assert move_event(p).outcome["mp_spent"] == 3
    assert p.unit("r-hi").facing == 1


def test_tacw_6_2_2_countermarch_and_step_back():
    p = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"),
            ("r-hi2", "royalist", "r-a", "heavy", ["0507"], "E"),
            ("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0112"], "E"), orders={"r-a": "make_ready"})
    p.go("royalist", "move r-hi about 0404 0304")            # 2 + 1 + 1 = 4, facing W
    assert p.unit("r-hi").facing == 3 and p.unit("r-hi").hexes == ["0304"]
    with pytest.raises(Illegal, match="0508 is not a rear hex of r-hi2"):
        p.go("royalist", "move r-hi2 back 0508")
    back1 = nb("0507", "SW")
    p.go("royalist", f"move r-hi2 back {back1} back {nb(back1, 'NW')}")   # 2 + 2, facing kept
    assert p.unit("r-hi2").facing == 0 and p.unit("r-hi2").hexes == [nb(back1, "NW")]
    assert move_event(p).outcome["mp_spent"] == 4
    with pytest.raises(Illegal, match=r"only infantry may step back.*6\.2\.2"):
        p.go("royalist", "move r-cav back " + nb("0305", "SW"))


def test_tacw_6_2_3_artillery_turns_instead_of_firing():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-gun", "royalist", "r-a", "artillery", ["0508"], "E"), FAR_FOE)
    with pytest.raises(Illegal, match="artillery never moves"):
        p.go("royalist", "move r-gun 0608")
    p.go("royalist", "face r-gun SE")
    assert p.unit("r-gun").facing == 1 and p.unit("r-gun").fired


# == double units (§6.2.1, §7.1.2, §7.3.2) ==========================================================

DOUBLE = ("r-dbl", "royalist", "r-a", "heavy", ["0505", "0506"], "E")


def test_tacw_7_1_double_advances_by_its_outer_front_hexes():
    p = pos(DOUBLE, FAR_FOE)
    with pytest.raises(Illegal, match="central front hex: a double unit advances by naming one of its "
                                      "outer front hexes"):
        p.go("royalist", "move r-dbl 0605")
    p.go("royalist", "move r-dbl 0604 0704")          # two steps NE: the halves move in step
    u = p.unit("r-dbl")
    assert u.hexes == ["0704", "0705"] and u.facing == 0
    assert move_event(p).outcome["mp_spent"] == 2


def test_tacw_6_2_1_double_wheels_for_1_mp_plus_terrain():
    p = pos(DOUBLE, FAR_FOE, terrain={"wood": ["0605"]})
    with pytest.raises(Illegal, match="wheel names the PIVOT"):
        p.go("royalist", "move r-dbl wheel 0605")
    with pytest.raises(Illegal, match="changes facing by wheeling"):
        p.go("royalist", "move r-dbl face SE")
    p.go("royalist", "move r-dbl wheel 0506")         # 0505 swings into 0605 (wood 2) + 1
    u = p.unit("r-dbl")
    assert sorted(u.hexes) == ["0506", "0605"] and u.facing == 1      # turned one vertex, to SE
    ev = move_event(p)
    assert ev.outcome["mp_spent"] == 3
    assert u.formation == "disordered"                 # wood is "*" for heavy infantry (§7.3.2)
    assert p.st.activation.straight["r-dbl"] == 0


def test_tacw_6_2_2_double_countermarch():
    p = pos(DOUBLE, ("p-foe", "parliament", "p-a", "heavy", ["0105"], "E"), orders={"r-a": "make_ready"})
    p.go("royalist", "face r-dbl W")
    assert p.unit("r-dbl").facing == 3 and move_event(p).outcome["mp_spent"] == 2


def test_tacw_7_1_2_oblique_line_costs_the_double_twice():
    # the hedge line runs 0505|0604 and then 0605|0705: the north half crosses first, the south
    # half one step later
    hedges = [{"hex": "0505", "side": "NE", "type": "hedge"},
              {"hex": "0605", "side": "NE", "type": "hedge"}]
    p = pos(DOUBLE, FAR_FOE, hexsides=hedges)
    assert p.sc.crossing("0505", "0604") == "hedge" and p.sc.crossing("0605", "0705") == "hedge"
    p.go("royalist", "move r-dbl 0604 0704")
    ev = move_event(p)
    assert [s["mp"] for s in ev.outcome["steps"]] == [2, 2]   # +1 in each step: paid twice
    assert p.unit("r-dbl").formation == "broken"               # two hits, applied at the end
    # a single unit crossing the same line pays once
    q = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"), FAR_FOE, hexsides=hedges)
    q.go("royalist", "move r-hi 0604 0704")
    assert move_event(q).outcome["mp_spent"] == 3
    # HERALD: both halves crossing hedges in the SAME step pay (and are hit) once
    both = [{"hex": "0505", "side": "NE", "type": "hedge"}, {"hex": "0506", "side": "NE", "type": "hedge"}]
    r = pos(DOUBLE, FAR_FOE, hexsides=both)
    r.go("royalist", "move r-dbl 0604")
    assert move_event(r).outcome["mp_spent"] == 2 and r.unit("r-dbl").formation == "disordered"


# == §7.3 formation hits ============================================================================

def test_tacw_7_3_1_hits_apply_at_the_end_not_during():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE, terrain={"wood": ["0604"]})
    p.go("royalist", "move r-cav 0604 " + " ".join(east("0604", 4)))   # full 8 MP though hit
    assert p.unit("r-cav").formation == "disordered"
    assert any(e.kind == "formation" and e.section == "TACW §7.3.1" for e in p.events)


def test_tacw_7_3_1_stops_where_the_hits_would_break_it():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE,
            terrain={"marsh": ["0604", "0705"]})
    with pytest.raises(Illegal, match=r"must stop in 0705 \(its formation hits \(2\) would leave it "
                                      r"F-Broken.*7\.3\.1"):
        p.go("royalist", "move r-cav 0604 0705 0804")
    p.go("royalist", "move r-cav 0604 0705")
    assert p.unit("r-cav").formation == "broken"


def test_tacw_6_3_3_open_order_takes_no_movement_hits():
    p = pos(("r-li", "royalist", "r-a", "heavy", ["0505"], "E"), FAR_FOE, terrain={"wood": ["0604"]})
    p.st.units["r-li"].special_formation = "open"
    p.go("royalist", "move r-li 0604 0705")
    assert p.unit("r-li").formation == "normal"


# == §8 stacking =====================================================================================

def test_tacw_8_1_2_no_passing_through_friends_except_artillery():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-hi", "royalist", "r-a", "heavy", ["0604"], "E"),
            ("r-gun", "royalist", "r-a", "artillery", ["0605"], "E"), FAR_FOE)
    with pytest.raises(Illegal, match=r"0604 holds r-hi: units may not move through.*8\.1"):
        p.go("royalist", "move r-cav 0604 0705")
    p.go("royalist", "move r-cav 0605 0705")           # through the guns
    assert p.unit("r-cav").hexes == ["0705"] and p.unit("r-gun").hexes == ["0605"]


def test_tacw_8_3_ending_on_artillery_and_choosing_the_top():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-cav2", "royalist", "r-a", "cavalry", ["0508"], "E"),
            ("r-gun", "royalist", "r-a", "artillery", ["0605"], "E"),
            ("r-gun2", "royalist", "r-a", "artillery", ["0608"], "E"), FAR_FOE)
    p.go("royalist", "move r-cav 0605")
    assert not p.unit("r-gun").on_top                  # default: the unit that moved in
    p.go("royalist", "move r-cav2 0608 top r-gun2")
    assert p.unit("r-gun2").on_top
    assert p.unit("r-cav2").hexes == ["0608"]


def test_tacw_8_2_2_cavalry_stops_on_entering_light_infantry():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-li", "royalist", "r-a", "light", ["0604"], "E"),
            ("r-li2", "royalist", "r-a", "light", ["0605"], "SE"), FAR_FOE)
    with pytest.raises(Illegal, match=r"must stop in 0604 \(it entered the hex of r-li.*8\.2\.2"):
        p.go("royalist", "move r-cav 0604 0705")
    with pytest.raises(Illegal, match="must face the same way to stack"):
        p.go("royalist", "move r-cav 0605")
    p.go("royalist", "move r-cav 0604")
    assert p.unit("r-cav").hexes == p.unit("r-li").hexes == ["0604"]


def test_tacw_8_2_1_a_stack_moves_together_with_6_mp():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"),
            ("r-li", "royalist", "r-a", "light", ["0305"], "E"), FAR_FOE)
    path = east("0305", 7)
    with pytest.raises(Illegal, match="of its 6 MP left"):
        p.go("royalist", "move r-cav " + " ".join(path))
    p.go("royalist", "move r-cav " + " ".join(path[:6]))
    assert p.unit("r-cav").hexes == p.unit("r-li").hexes == [path[5]]
    assert {"r-cav", "r-li"} <= set(p.st.activation.acted)
    q = pos(("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"),
            ("r-li", "royalist", "r-a", "light", ["0305"], "E"), FAR_FOE)
    q.go("royalist", "move r-cav " + " ".join(path[:8 - 1]) + " alone")
    assert q.unit("r-li").hexes == ["0305"] and "r-li" not in q.st.activation.acted


def test_tacw_8_4_incorporation():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-cav2", "royalist", "r-a", "cavalry", ["0604"], "E"),
            ("r-cav3", "royalist", "r-a", "cavalry", ["0508"], "E"),
            ("r-cav4", "royalist", "r-a", "cavalry", ["0607"], "E"), FAR_FOE)
    with pytest.raises(Illegal, match="0604 holds r-cav2"):
        p.go("royalist", "move r-cav 0604")
    with pytest.raises(Illegal, match=r"r-cav has no casualties.*8\.4"):
        p.go("royalist", "move r-cav 0604 incorporate")
    p.st.units["r-cav"].casualties = 3
    p.st.units["r-cav2"].casualties = 2                # 2 SP left to absorb
    p.go("royalist", "move r-cav 0604 incorporate")
    assert p.unit("r-cav").casualties == 1
    assert p.unit("r-cav2").status == "eliminated" and not p.unit("r-cav2").alive
    p.st.units["r-cav3"].casualties = 1
    with pytest.raises(Illegal, match="must stop in 0607"):
        p.go("royalist", "move r-cav3 0607 0707 incorporate")


# == §5.6 orders (errata [5.6.1] [5.6.3]) ===========================================================

def test_tacw_5_6_1_charge_must_end_closer():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0905"], "W"))
    with pytest.raises(Illegal, match=r"Charge orders: r-cav must end at least 1 hex closer.*5\.6\.1"):
        p.go("royalist", "move r-cav face W 0404")
    with pytest.raises(Illegal, match="1 hex closer"):
        p.go("royalist", "face r-cav SE")
    p.go("royalist", "move r-cav 0604")


def test_tacw_5_6_1_charge_closer_to_any_enemy_unit_even_an_engaged_one():
    """Errata [5.6.1]: "at least 1 hex closer to an enemy unit" (D42): p-near, 3 hexes off, is
    already engaged by r-friend, but the errata do not care: closing on it is a charge. The later
    series card ("the closest enemy unit not already engaged", here p-far) is the optional rule
    series-charge-nearest, and under it the same move is refused."""
    units = (("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
             ("r-friend", "royalist", "r-a", "heavy", ["0705"], "E"),
             ("p-near", "parliament", "p-a", "heavy", ["0805"], "W"),
             ("p-far", "parliament", "p-a", "heavy", ["0509"], "NW"))
    assert (GRID.distance("0505", "0805"), GRID.distance("0604", "0805")) == (3, 2)
    assert (GRID.distance("0505", "0509"), GRID.distance("0604", "0509")) == (4, 5)
    p = pos(*units)
    p.go("royalist", "move r-cav 0604")
    assert p.unit("r-cav").hexes == ["0604"]
    q = pos(*units)
    q.st.options[movement.SERIES_CHARGE_OPTION] = {"name": "later series Charge"}
    with pytest.raises(Illegal, match=r"closer to the nearest enemy unit not already engaged.*5\.6\.1"):
        q.go("royalist", "move r-cav 0604")


@pytest.mark.parametrize("battle", ["edgehill", "first-newbury", "naseby", "marston-moor", "second-newbury"])
def test_tacw_5_6_1_the_later_series_charge_is_an_option_of_every_battle_off_by_default(battle):
    from engine.core.game import game_options, get_ruleset
    from engine.tacw.setup import new_state
    ruleset = get_ruleset("tacw")
    sc = ruleset.load_scenario(battle)
    assert movement.SERIES_CHARGE_OPTION in [oid for oid, _ in game_options(ruleset, sc)]
    assert movement.SERIES_CHARGE_OPTION not in new_state(sc, 1).options
    assert movement.SERIES_CHARGE_OPTION in new_state(sc, 1, options=[movement.SERIES_CHARGE_OPTION]).options


def test_tacw_5_6_1_charge_adjacent_only_faces():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0604"], "W"))
    with pytest.raises(Illegal, match=r"already adjacent to the enemy may only change facing or wheel"):
        p.go("royalist", "move r-cav 0605")
    p.go("royalist", "face r-cav NE")


def test_tacw_5_6_2_make_ready_not_adjacent():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0805"], "W"), orders={"r-a": "make_ready"})
    assert GRID.adjacent("0705", "0805")
    with pytest.raises(Illegal, match=r"0705: Make Ready orders: it may not move adjacent.*5\.6\.2"):
        p.go("royalist", "move r-cav 0604 0705 0804")
    p.go("royalist", "move r-cav 0604")


def test_tacw_5_6_3_receive_charge_one_hex_not_adjacent():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-cav2", "royalist", "r-a", "cavalry", ["0508"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0705"], "W"),
            orders={"r-a": "receive_charge", "p-a": "rally"})
    with pytest.raises(Illegal, match=r"moves at most 1 hex.*errata"):
        p.go("royalist", "move r-cav2 0607 0707")
    with pytest.raises(Illegal, match="Receive Charge orders: it may not move adjacent"):
        p.go("royalist", "move r-cav 0604")
    p.go("royalist", "move r-cav2 face NE 0607")


def test_tacw_5_6_4_rally_may_not_end_closer():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0905"], "W"), orders={"r-a": "rally"})
    with pytest.raises(Illegal, match=r"Rally orders: r-cav may not end its move closer.*5\.6\.4"):
        p.go("royalist", "move r-cav 0604")
    p.go("royalist", "move r-cav 0604 face W 0504 0404")   # out and back: ends no closer


def test_tacw_5_6_4_rally_may_end_closer_to_no_enemy_unit_not_only_the_nearest():
    """§5.6.4 "non possono terminare il movimento più vicine ad unità nemiche" (D43): every enemy
    unit counts. 0504 stays 3 hexes from p-foe, the nearest, but comes 1 hex nearer p-north."""
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0805"], "W"),
            ("p-north", "parliament", "p-a", "heavy", ["0501"], "SE"), orders={"r-a": "rally"})
    assert [GRID.distance(h, "0805") for h in ("0505", "0504")] == [3, 3]
    assert [GRID.distance(h, "0501") for h in ("0505", "0504")] == [4, 3]
    with pytest.raises(Illegal, match=r"Rally orders: r-cav may not end its move closer to enemy "
                                      r"units \(p-north.*4 hexes at the start, 3 at the end.*5\.6\.4"):
        p.go("royalist", "move r-cav face NW 0504")
    p.go("royalist", "move r-cav face W 0404")               # 4 from both: no closer to either
    assert p.unit("r-cav").hexes == ["0404"]


def test_tacw_5_4_3_out_of_command():
    # r-wc stands with r-hq (the first royalist unit) at 0305; r-cav far away is out of command
    p = pos(("r-hq", "royalist", "r-a", "heavy", ["0305"], "E"),
            ("r-cav", "royalist", "r-a", "cavalry", ["0312"], "NE"),
            ("p-foe", "parliament", "p-a", "heavy", ["1909"], "W"), orders={"r-a": "make_ready"})
    from engine.tacw.geometry import in_command
    assert not in_command(p.sc, p.st, p.st.units["r-cav"])
    with pytest.raises(Illegal, match=r"out of command: it must move so as to come into command, "
                                      r"or closer to it \(7 hexes .* 8 at the end.*5\.4\.3"):
        p.go("royalist", "move r-cav face SE 0412")        # 0412 is farther from 0305 than 0312
    q = pos(("r-hq", "royalist", "r-a", "heavy", ["0305"], "E"),
            ("r-cav", "royalist", "r-a", "cavalry", ["0312"], "NE"),
            ("p-foe", "parliament", "p-a", "heavy", ["1909"], "W"), orders={"r-a": "make_ready"})
    q.go("royalist", "move r-cav 0311")                    # closer to command (digest R8): allowed
    assert q.st.units["r-cav"].hexes == ["0311"] and not in_command(q.sc, q.st, q.st.units["r-cav"])
    p.go("royalist", "move r-cav 0311 0310 0309 0308")
    assert in_command(p.sc, p.st, p.st.units["r-cav"])


def test_tacw_5_4_3_out_of_command_may_not_move_adjacent():
    p = pos(("r-hq", "royalist", "r-a", "heavy", ["0305"], "E"),
            ("r-cav", "royalist", "r-a", "cavalry", ["0312"], "NE"),
            ("p-foe", "parliament", "p-a", "heavy", ["0409"], "W"), orders={"r-a": "rally"})
    assert GRID.adjacent("0309", "0409")
    with pytest.raises(Illegal, match="out of command: it may not move adjacent to the enemy"):
        p.go("royalist", "move r-cav 0311 0310 0309 0308")


# == refusals leave the state untouched =============================================================

def test_refused_moves_leave_the_state_untouched():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE,
            terrain={"marsh": ["0604", "0705"]})
    before = p.st.state_hash()
    for line in ("move r-cav 0604 0705 0804", "move r-cav 0506", "move r-cav 0604 0705 0804 0905",
                 "move r-cav face W 0404", "move r-cav back 0404", "hedgehog r-cav"):
        with pytest.raises(Illegal):
            p.go("royalist", line)
        assert p.st.state_hash() == before


# == momentum bookkeeping ==========================================================================

def test_tacw_10_3_6_moved_and_straight_are_filled():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE)
    p.go("royalist", "move r-cav 0604 0705 face SE 0805 0906 1006")
    act = p.st.activation
    assert act.moved["r-cav"] == 5 and act.straight["r-cav"] == 3
    assert p.st.last_action["items"][0]["path"] == ["0505", "0604", "0705", "0805", "0906", "1006"]


def test_tacw_6_3_2_hedgehog_for_4_mp():
    p = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"),
            ("r-hi2", "royalist", "r-a", "heavy", ["0508"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0605"], "W"), orders={"r-a": "make_ready"})
    p.go("royalist", "hedgehog r-hi")
    assert p.unit("r-hi").special_formation == "hedgehog"
    with pytest.raises(Illegal, match="costs 4 MP but r-hi2 has 3"):
        p.go("royalist", "move r-hi2 0607 hedgehog")


# == interrupts: reaction fire (§9.7) ==============================================================

def test_tacw_9_7_reaction_fire_stops_the_move_in_that_hex(fakes):
    fire, _ = fakes
    fire.stop_at = "0705"
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE)
    p.go("royalist", "move r-cav 0604 0705 face SE 0805 0906")
    u = p.unit("r-cav")
    assert u.hexes == ["0705"]
    ev = move_event(p)
    assert ev.outcome["stopped"] == "it is F-Broken: no movement"
    assert ev.outcome["unwalked"] == ["face SE", "0805", "0906"]
    assert p.st.activation.moved["r-cav"] == 2 and p.st.last_action["items"][0]["path"][-1] == "0705"
    assert fire.calls == [("r-cav", "enter", ["0604"]), ("r-cav", "enter", ["0705"])]


def test_tacw_9_7_facing_changes_call_reaction_fire(fakes):
    fire, _ = fakes
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE)
    p.go("royalist", "move r-cav 0604 face SE 0705")
    assert fire.calls == [("r-cav", "enter", ["0604"]), ("r-cav", "face", ["0604"]),
                          ("r-cav", "enter", ["0705"])]


def test_tacw_9_7_a_pending_fire_decision_halts_and_resume_continues(fakes, monkeypatch):
    fire, _ = fakes
    fire.pend_at = "0705"

    def answer(sc, st, side, cmd, stream):      # what the fire rules' answer verb does
        st.pending = None
        return movement.resume_move(sc, st, stream)

    monkeypatch.setitem(rules.HANDLERS, "fakefire", answer)
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE)
    p.go("royalist", "move r-cav 0604 0705 0804 0905")
    assert p.unit("r-cav").hexes == ["0705"] and p.st.pending["kind"] == "reaction_fire"
    assert any(e.kind == "move_halt" for e in p.events)
    with pytest.raises(Illegal, match="waiting for Parliament"):
        p.go("royalist", "move r-cav 0804")
    p.go("parliament", "fakefire")
    assert p.unit("r-cav").hexes == ["0905"] and p.st.pending is None
    assert movement.suspended_move(p.st) is None
    assert p.st.activation.moved["r-cav"] == 4


def test_tacw_6_3_1_disordered_mid_move_by_fire_halves_what_is_left(fakes):
    fire, _ = fakes
    path = east("0305", 6)
    fire.disorder_at = path[3]                # after 4 MP: the allowance falls to 4
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0305"], "E"), FAR_FOE)
    p.go("royalist", "move r-cav " + " ".join(path))
    assert p.unit("r-cav").hexes == [path[3]]
    assert "allowance fell to 4 MP" in move_event(p).outcome["stopped"]


def test_tacw_9_2_pistol_during_the_move(fakes):
    fire, _ = fakes
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0805"], "W"))
    with pytest.raises(Illegal, match="no enemy unit in 0804"):
        p.go("royalist", "move r-cav 0604 0705 pistol 0804")
    with pytest.raises(Illegal, match="one pistol per move"):
        p.go("royalist", "move r-cav 0604 0705 pistol 0805 pistol 0805")
    p.go("royalist", "move r-cav 0604 0705 pistol 0805")
    assert fire.pistols == [("r-cav", "0805", True)]


# == interrupts: interception (§7.5) ================================================================

INTERCEPTOR = ("p-cav", "parliament", "p-a", "cavalry", ["1005"], "W")   # p-wc (-1) stacked


def test_tacw_7_5_interception_stops_the_mover_where_it_happened(fakes):
    _, melee = fakes
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), INTERCEPTOR)
    p.go("parliament", "policy intercept auto")
    assert GRID.distance("0604", "1005") == 4
    # 0604 is the first hex within 4: Receive Charge 0-3; d10 4 - 1 (WC) = 3 -> success
    p.go("royalist", "move r-cav 0604 0705 0804 dice=5")
    icpt = next(e for e in p.events if e.kind == "intercept")
    assert icpt.outcome["success"] and icpt.base == 4 and [m.value for m in icpt.modifiers] == [-1]
    assert p.unit("r-cav").hexes == ["0604"]
    cav = p.unit("p-cav")
    assert GRID.adjacent(cav.hexes[0], "0604")
    assert melee.calls == [("p-cav", "0604")]
    ev = move_event(p)
    assert ev.outcome["stopped"] == "intercepted by p-cav" and ev.outcome["unwalked"] == ["0705", "0804"]


def test_tacw_7_5_3_mover_fires_then_the_interceptor_then_close_combat(fakes):
    fire, melee = fakes
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), INTERCEPTOR)
    p.go("parliament", "policy intercept auto")
    p.go("royalist", "move r-cav 0604 0705 dice=1")
    # the intercepted unit reaction-fires at the interceptor, which moved more than one hex
    # (§9.7.2), then the interceptor's pistol (no reaction to it), then the close combat
    assert fire.reactions == [("r-cav", "p-cav", "enter", True)]
    assert fire.pistols == [("p-cav", "0604", False)]
    assert melee.calls == [("p-cav", "0604")]
    kinds = [e.kind for e in p.events]
    assert kinds.index("intercept") < kinds.index("fire") < kinds.index("close_combat")
    q = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), INTERCEPTOR)
    q.st.policies["royalist"] = {"reaction_fire": "never"}
    q.go("parliament", "policy intercept auto")
    fire.reactions.clear()
    q.go("royalist", "move r-cav 0604 dice=1")
    assert fire.reactions == []


def test_tacw_7_5_failed_interception_once_per_activation(fakes):
    _, melee = fakes
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("r-cav2", "royalist", "r-a", "cavalry", ["0507"], "E"), INTERCEPTOR)
    p.go("parliament", "policy intercept auto")
    p.go("royalist", "move r-cav 0604 0705 dice=6")       # 5 - 1 = 4 > 3: fails, stays
    assert p.unit("r-cav").hexes == ["0705"] and p.unit("p-cav").hexes == ["1005"]
    p.go("royalist", "move r-cav2 0606 0706")              # no die: p-cav already tried
    assert not any(e.kind == "intercept" for e in p.events) and not melee.calls


def test_tacw_7_5_ask_policy_pending_and_answer(fakes):
    _, melee = fakes
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), INTERCEPTOR)
    p.go("parliament", "policy intercept ask")
    p.go("royalist", "move r-cav 0604 0705 0804")
    assert p.st.pending["kind"] == "intercept" and p.st.pending["options"] == ["p-cav"]
    assert p.unit("r-cav").hexes == ["0604"]
    p.go("parliament", "intercept none")                    # not here: asked again at 0705
    assert p.st.pending["kind"] == "intercept" and p.unit("r-cav").hexes == ["0705"]
    p.go("parliament", "intercept p-cav nopistol dice=1")
    assert p.unit("r-cav").hexes == ["0705"] and melee.calls == [("p-cav", "0705")]
    assert p.st.pending is None and movement.suspended_move(p.st) is None


def test_tacw_7_5_pass_declines_for_the_whole_move_and_the_halted_state_is_data(fakes):
    from engine.tacw.state import TacwState
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), INTERCEPTOR)
    p.go("parliament", "policy intercept ask")
    p.go("royalist", "move r-cav 0604 0705 0804")
    again = TacwState.from_dict(p.st.to_dict())                 # a halted move is plain data
    assert again.state_hash() == p.st.state_hash()
    p.go("parliament", "intercept pass")
    assert p.unit("r-cav").hexes == ["0804"] and p.st.pending is None
    assert "r-cav" not in str(p.st.options)                    # no halted move left behind


def test_tacw_7_5_1_out_of_arc_or_rally_orders_do_not_intercept():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-cav", "parliament", "p-a", "cavalry", ["1005"], "E"))   # facing away
    p.go("parliament", "policy intercept auto")
    p.go("royalist", "move r-cav 0604 0705")
    assert not any(e.kind == "intercept" for e in p.events)
    q = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), INTERCEPTOR,
            orders={"r-a": "charge", "p-a": "rally"})
    q.go("parliament", "policy intercept auto")
    q.go("royalist", "move r-cav 0604 0705")
    assert not any(e.kind == "intercept" for e in q.events)


# == interrupts: reaction movement (§7.4) ===========================================================

def test_tacw_7_4_2_facing_reaction_auto():
    # royalist heavy infantry (MA 4) enters the flank hex of parliament light infantry (MA 6)
    p = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"),
            ("p-li", "parliament", "p-a", "light", ["0705"], "NE"))
    p.go("parliament", "policy reaction_move auto")
    assert "0604" in movement.F.arcs(GRID, ["0705"], 5)["flank"]
    p.go("royalist", "move r-hi 0604")
    li = p.unit("p-li")
    assert "0604" in movement.F.arcs(GRID, li.hexes, li.facing)["front"]
    assert any(e.kind == "reaction_move" and e.section == "TACW §7.4.2" for e in p.events)


def test_tacw_7_4_1_ask_halts_the_move_then_it_resumes():
    p = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"),
            ("p-li", "parliament", "p-a", "light", ["0705"], "NE"))
    p.go("parliament", "policy reaction_move ask")
    p.go("royalist", "move r-hi 0604 0704")
    pend = p.st.pending
    assert pend["kind"] == "reaction_move" and pend["choices"] == {"p-li": ["face", "retreat"]}
    assert p.unit("r-hi").hexes == ["0604"]
    with pytest.raises(Illegal, match="up to two vertices|one or two vertices"):
        p.go("parliament", "react_move p-li face SW")
    p.go("parliament", "react_move p-li face NW")
    assert p.unit("p-li").facing == 4
    assert p.unit("r-hi").hexes == ["0704"] and p.st.pending is None


def test_tacw_7_4_2_a_double_reacts_by_wheeling():
    start = nb("0904", "NW")
    p = pos(("r-hi", "royalist", "r-a", "heavy", [start], "SE"),
            ("p-dbl", "parliament", "p-a", "heavy", ["0905", "0906"], "W"))
    assert "0904" in movement.F.arcs(GRID, ["0905", "0906"], 3)["flank"]
    p.go("parliament", "policy reaction_move ask")
    p.go("royalist", "move r-hi 0904")
    assert p.st.pending["choices"] == {"p-dbl": ["face", "retreat"]}
    with pytest.raises(Illegal, match="double unit reacts by wheeling"):
        p.go("parliament", "react_move p-dbl face NW")
    p.go("parliament", "react_move p-dbl wheel 0906")          # 0905 swings into 0805
    d = p.unit("p-dbl")
    assert sorted(d.hexes) == ["0805", "0906"]
    assert movement.F.turn_cost_vertices(3, d.facing) == 1
    assert p.st.pending is None and p.unit("r-hi").hexes == ["0904"]


def test_tacw_7_4_4_retreat_reaction():
    p = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"),
            ("p-li", "parliament", "p-a", "light", ["0805"], "W"))
    p.go("parliament", "policy reaction_move ask")
    p.go("royalist", "move r-hi 0604 0705")
    assert p.st.pending["choices"] == {"p-li": ["retreat"]}          # 0604 is 2 hexes from 0805
    with pytest.raises(Illegal, match="must end farther"):
        p.go("parliament", "react_move p-li retreat face NW 0804")
    p.go("parliament", "react_move p-li retreat about 0905 1005")
    assert p.unit("p-li").hexes == ["1005"]
    assert p.unit("r-hi").hexes == ["0705"]                          # the move went on


def test_tacw_7_4_4_no_retreat_reaction_on_charge():
    p = pos(("r-hi", "royalist", "r-a", "heavy", ["0505"], "E"),
            ("p-li", "parliament", "p-a", "light", ["0805"], "W"))
    p.st.wings["p-a"].order = "charge"
    p.go("parliament", "policy reaction_move ask")
    p.go("royalist", "move r-hi 0604 0705")
    assert p.st.pending is None and p.unit("r-hi").hexes == ["0705"]


def test_tacw_7_4_3_hedgehog_compulsory_when_cavalry_enters_the_rear():
    # parliament heavy infantry at 0905 faces W: its rear hexes are 1005 and 1004 (p-wc, -1, with it)
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["1107"], "NE"),
            ("p-hi", "parliament", "p-a", "heavy", ["0905"], "W"))
    assert "1005" in movement.F.arcs(GRID, ["0905"], 3)["rear"]
    p.go("royalist", "move r-cav 1106 face NW 1005 dice=8")          # 7 - 1 = 6 <= 7: formed
    assert p.unit("p-hi").special_formation == "hedgehog"
    q = pos(("r-cav", "royalist", "r-a", "cavalry", ["1107"], "NE"),
            ("p-hi", "parliament", "p-a", "heavy", ["0905"], "W"))
    q.go("royalist", "move r-cav 1106 face NW 1005 dice=10")         # 9 - 1 = 8 > 7: Shaken
    assert q.unit("p-hi").special_formation == "" and q.unit("p-hi").morale_state == "shaken"


def test_tacw_7_4_3_optional_hedgehog_by_answer():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-hi", "parliament", "p-a", "heavy", ["0805"], "W"))
    p.go("parliament", "policy reaction_move ask")
    p.go("royalist", "move r-cav 0604 0705")
    assert p.st.pending["choices"] == {"p-hi": ["hedgehog"]}
    p.go("parliament", "react_move p-hi hedgehog dice=1")
    assert p.unit("p-hi").special_formation == "hedgehog" and p.unit("r-cav").hexes == ["0705"]


# == leaders (§5.1-§5.3) ============================================================================

def test_tacw_5_2_2_wing_commander_moves_8_mp():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE, terrain={"wood": ["0605"]})
    with pytest.raises(Illegal, match="is not next to"):
        p.go("royalist", "leader r-wc move 0705")
    with pytest.raises(Illegal, match="costs 1 MP but r-wc has 0 of 8"):
        p.go("royalist", "leader r-wc move 0605 0705 0805 0905 1005 " + nb("1005", "NE"))
    p.go("royalist", "leader r-wc move 0605 0705 0805 0905 1005")    # wood 4 (cavalry costs) + 4
    assert p.st.leaders["r-wc"].hex == "1005"
    with pytest.raises(Illegal, match="already moved"):
        p.go("royalist", "leader r-wc move 0805")
    with pytest.raises(Illegal, match="not one of your leaders"):
        p.go("royalist", "leader p-wc move 1904")


def test_tacw_5_1_2_army_commander_one_action_and_no_enemy_hexes():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0705"], "W"))
    with pytest.raises(Illegal, match="holds an enemy unit"):
        p.go("royalist", "leader r-ac move 0605 0705")
    p.go("royalist", "leader r-ac move 0506")
    with pytest.raises(Illegal, match="one action"):
        p.go("royalist", "leader r-ac move 0505")


def test_tacw_5_3_1_lone_leader_overrun():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"), FAR_FOE)
    p.st.leaders["p-ac"].hex = "0705"
    p.go("royalist", "move r-cav 0604 0705 0804")
    assert p.st.leaders["p-ac"].status == "removed" and p.st.leaders["p-ac"].hex is None
    assert any(e.kind == "leader_removed" and e.section == "TACW §5.3.1" for e in p.events)


# == §7.6 (for the fire rules) =====================================================================

def test_tacw_7_6_slide_aside_keeps_facing_and_orders():
    p = pos(("r-cav", "royalist", "r-a", "cavalry", ["0505"], "E"),
            ("p-foe", "parliament", "p-a", "heavy", ["0507"], "NE"), orders={"r-a": "make_ready"})
    cav = p.st.units["r-cav"]
    # flank hexes of 0505 facing E: 0506 (adjacent to the enemy at 0507) and 0504
    assert movement.artillery_avoidance_hexes(p.sc, p.st, cav) == ["0504"]
