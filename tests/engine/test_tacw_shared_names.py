"""Issue 12 ("Every id discoverable"): units that share a name in a battle (Edgehill's two
Fielding, its six Commanded Shot...) are told apart in every narrative by their id, the word a
player types ("Fielding (p-fielding)"); a unit with a name of its own is named as before."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.core.game import Game
from engine.tacw import ids
from engine.tacw.ruleset import TACW
from engine.tacw.state import TacwState

DEMO = Path(__file__).resolve().parents[2] / "bot" / "demos" / "tacw--edgehill.txt"


def demo_lines():
    return [tuple(line.strip().split(": ", 1)) for line in DEMO.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def narratives(events):
    return [e.narrative for e in (events.events if hasattr(events, "events") else events)]


@pytest.mark.parametrize("sid", ["edgehill", "first-newbury", "marston-moor", "naseby", "second-newbury"])
def test_a_shared_name_is_called_with_its_id_a_unique_one_as_it_is(sid):
    st = Game.new("tacw", sid, 1).state
    count = Counter(u.name for u in st.units.values())
    for u in st.units.values():
        assert u.called == (u.name if count[u.name] == 1 else f"{u.name} ({u.id})")
    assert len({u.called for u in st.units.values()}) == len(st.units)      # no two alike


def test_the_label_is_no_part_of_the_saved_state_and_comes_back_on_loading():
    st = Game.new("tacw", "edgehill", 1).state
    d = st.to_dict()
    assert "called" not in d["units"]["p-fielding"] and "_called" not in d["units"]["p-fielding"]
    back = TacwState.from_dict(d)                    # an old saved state loads the same way
    assert back.units["p-fielding"].called == "Fielding (p-fielding)"
    assert back.units["r-fielding"].called == "Fielding (r-fielding)"
    assert back.units["r-gerard"].called == back.units["r-gerard"].name == "Gerard"
    assert back.state_hash() == st.state_hash()
    assert st.copy().units["p-fielding"].called == "Fielding (p-fielding)"


def test_edgehill_moves_and_fire_name_the_shared_unit_by_its_id_and_the_unique_one_plainly():
    g = Game.new("tacw", "edgehill", 3)
    said = {}
    for side, cmd in demo_lines():
        said[cmd] = " | ".join(narratives(g.apply(side, cmd)))
        if cmd == "move p-fielding 2019":
            break
    assert said["move r-fielding 3013 2912 2811 2711"].startswith("Fielding (r-fielding): 3013")
    assert said["move p-fielding 2019"].startswith("Fielding (p-fielding): ")
    assert said["move r-gerard 3008 2908 2807 2707"].startswith("Gerard: 3008")
    fire = said["fire r-culverins 1810"]
    assert "12 lb Culverins (3011) fires at C. Essex I (1810" in fire and "(r-culverins)" not in fire
    assert "4-8 lb Sakers (r-sakers)" in said["fire r-sakers 1815"]


def test_the_units_listing_and_completions_are_unchanged():
    g = Game.new("tacw", "edgehill", 3)
    u = g.state.units["p-fielding"]
    line = ids.unit_line(g.scenario, g.state, u)
    assert line.startswith("`p-fielding` Fielding (") and "(p-fielding)" not in line   # the id leads
    units = TACW.completions(g.scenario, g.state, "parliament", "unit", "fielding", {})
    assert units == [(f"Fielding {u.hexes[0]}", "p-fielding")]      # the value is the id already
