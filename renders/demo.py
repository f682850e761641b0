"""A made-up Battle Cry scenario showing every terrain and piece kind, for the render bench,
the render tests and eyeballing: `python -m renders.demo [outdir]` writes sample PNGs.

It is not a scenario from the book; it exists so the renderer can be exercised without
depending on the real scenario files.
"""
from __future__ import annotations

import sys
from pathlib import Path

DEMO_SCENARIO_TOML = """
id = "render-demo"
number = 0
title = "Render Demo: Millbrook Crossroads"
first_player = "union"
flags_to_win = 6

[sides.union]
commander = "Meade"
cards = 5
home_edge = "south"

[sides.confederate]
commander = "Lee"
cards = 4
home_edge = "north"

[terrain]
woods = ["0201", "0302", "0303", "1107", "1207", "1108"]
orchard = ["0905", "1005"]
hill = ["0604", "0704", "0705", "0106"]
field = ["0407", "0507"]
building = ["0605", "1203"]
rough = ["1301"]
river = ["0109", "0208", "0309", "0409", "0508"]
bridge = ["0308"]
devils_den = ["1006"]

[[fences]]
hex = "0806"
front = ["NE", "NW"]

[[fences]]
hex = "0906"
front = ["NW", "W"]

[[field_works]]
hex = "0403"
owner = "confederate"

[special]
objective_hexes = ["0605", "0704"]
road_hexes = ["0701", "0702", "0703", "0704", "0705", "0706", "0707", "0708", "0709", "0605", "0505"]

[[units]]
side = "confederate"
kind = "infantry"
hex = "0403"

[[units]]
side = "confederate"
kind = "infantry"
hex = "0604"
figures = 3

[[units]]
side = "confederate"
kind = "infantry"
hex = "0704"

[[units]]
side = "confederate"
kind = "infantry"
hex = "0903"
special = "vmi"

[[units]]
side = "confederate"
kind = "cavalry"
hex = "1102"

[[units]]
side = "confederate"
kind = "artillery"
hex = "0702"

[[units]]
side = "confederate"
kind = "artillery"
hex = "0202"
special = "horse_artillery"

[[units]]
side = "confederate"
kind = "general"
hex = "0704"

[[units]]
side = "confederate"
kind = "general"
hex = "0801"

[[units]]
side = "union"
kind = "infantry"
hex = "0806"

[[units]]
side = "union"
kind = "infantry"
hex = "0906"
figures = 2

[[units]]
side = "union"
kind = "infantry"
hex = "0507"

[[units]]
side = "union"
kind = "infantry"
hex = "1107"

[[units]]
side = "union"
kind = "cavalry"
hex = "0207"
figures = 1

[[units]]
side = "union"
kind = "artillery"
hex = "0708"

[[units]]
side = "union"
kind = "general"
hex = "0806"

[[units]]
side = "union"
kind = "general"
hex = "1009"
"""


def demo_scenario():
    from engine.battlecry.scenario import parse_scenario
    return parse_scenario(DEMO_SCENARIO_TOML, source="renders/demo.py")


def demo_states(scenario=None):
    """(name, state) pairs: setup, after a move, after a battle with a retreat pending, game over."""
    from engine.battlecry.setup import new_state
    scenario = scenario or demo_scenario()
    s0 = new_state(scenario, seed=7)
    out = [("setup", s0)]

    s1 = s0.copy()
    s1.phase, s1.current.card = "actions", "attack-centre"
    s1.current.ordered = ["ui1", "ug1", "ui3"]
    s1.pieces["ui3"].hex = "0606"
    s1.last_action = {"items": [{"kind": "move", "piece": "ui3", "path": ["0507", "0606"]}]}
    out.append(("move", s1))

    s2 = s1.copy()
    s2.pieces["ci2"].figures = 1
    s2.pieces["ci1"].hex = None
    s2.field_works["0806"] = ["union", []]
    s2.flags["union"] = 2
    s2.last_action = {"items": [
        {"kind": "battle", "piece": "ui1", "from": "0806", "to": "0704", "hits": 2, "retreats": 1},
        {"kind": "battle", "piece": "ua1", "from": "0708", "to": "0604", "hits": 2, "retreats": 0},
        {"kind": "eliminated", "hex": "0403"},
    ]}
    s2.pending = {"kind": "retreat", "side": "confederate", "piece": "ci3", "remaining": 1,
                  "attacker": "union", "path": ["0704"], "options": ["0703", "0803"]}
    out.append(("battle", s2))

    s3 = s2.copy()
    s3.pending = None
    s3.pieces["ci3"].hex = "0803"
    s3.pieces["cg1"].hex = "0803"
    s3.last_action = {"items": [{"kind": "retreat", "piece": "ci3", "path": ["0704", "0803"]}]}
    s3.flags = {"union": 6, "confederate": 3}
    s3.winner, s3.result, s3.phase = "union", "6 flags to 3", "over"
    out.append(("over", s3))
    return out


def main(argv: list[str]) -> None:
    from .battlecry import render_board
    outdir = Path(argv[0] if argv else "/tmp/herald_renders")
    outdir.mkdir(parents=True, exist_ok=True)
    scenario = demo_scenario()
    for name, state in demo_states(scenario):
        (outdir / f"battlecry_{name}.png").write_bytes(render_board(scenario, state))
        (outdir / f"battlecry_{name}_crop.png").write_bytes(render_board(scenario, state, size="crop"))
    (outdir / "battlecry_viewer.png").write_bytes(
        render_board(scenario, demo_states(scenario)[1][1], viewer="union"))
    print(f"wrote {outdir}")


if __name__ == "__main__":
    main(sys.argv[1:])
