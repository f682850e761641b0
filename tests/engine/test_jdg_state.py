"""Jours de Gloire state (issue 14): plain data that survives JSON and copies cleanly, as the
store, the keyframes and the in-place replays need (engine/core/state.py)."""
from __future__ import annotations

import json

from engine.jdg.state import Activation, Commander, Formation, JdgState, Marker, Unit


def _state() -> JdgState:
    st = JdgState("marengo", 7)
    st.units = {"f-1": Unit("f-1", "french", "victor", "infantry", "1210", 2),
                "a-1": Unit("a-1", "austrian", "ott", "artillery", "0110", 5)}
    st.formations = {"victor": Formation("victor", "french", orders="with"),
                     "ott": Formation("ott", "austrian")}
    st.commanders = {"bonaparte": Commander("bonaparte", "french", "1812")}
    st.markers = {"victor-1": Marker("victor-1", "french", formation="victor"),
                  "zach": Marker("zach", "austrian", kind="special")}
    st.cup = ["victor-1", "zach"]
    st.activation = Activation("victor-1", "french", ["victor"], moved=["f-1"])
    return st


def test_the_state_survives_json_and_copies_cleanly():
    st = _state()
    back = JdgState.from_dict(json.loads(json.dumps(st.to_dict())))
    assert back == st and back.state_hash() == st.state_hash()
    twin = st.copy()
    twin.units["f-1"].condition = "disordered"
    twin.activation.moved.append("x")
    twin.cup.pop()
    assert st.units["f-1"].condition == "good" and st.activation.moved == ["f-1"] and len(st.cup) == 2


def test_the_stack_and_the_ladder():
    """[5.1] a hex's units in the order of the stack; [10] disordered and routed are both
    'disordered' sides of the counter."""
    st = _state()
    st.units["f-2"] = Unit("f-2", "french", "victor", "infantry", "1210", 2, condition="routed")
    assert [u.id for u in st.units_at("1210")] == ["f-1", "f-2"]
    assert st.units["f-2"].disordered and not st.units["f-1"].disordered
    st.units["f-1"].status, st.units["f-1"].hex = "eliminated", None
    assert [u.id for u in st.units_at("1210")] == ["f-2"] and not st.units["f-1"].alive


def test_the_hex_index_is_the_stacks_after_every_command_of_the_demo():
    """[5.1]: `units_at` (read from an index kept between changes, issue 13) gives the live units
    of a hex top first, the order of `units`, after every command of the Marengo demo: moves,
    retreats, routs, eliminations and restacking included."""
    from pathlib import Path

    from bot.cli import read_script, split_side
    from engine.core.game import Game

    seed, lines = read_script(Path(__file__).parents[2] / "bot" / "demos" / "jdg--marengo.txt")
    g = Game.new("jdg", "marengo", seed)
    checked = 0
    for line in lines:
        side, text = split_side(line, g.ruleset.sides)
        g.apply(side, text)
        st = g.state
        hexes = {u.hex for u in st.units.values() if u.hex}
        for h in sorted(hexes):
            assert [u.id for u in st.units_at(h)] == [u.id for u in st.units.values() if u.hex == h and u.alive], h
            checked += 1
    assert checked > 5_000
