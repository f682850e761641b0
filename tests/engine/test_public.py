"""engine/core/public.py: the one public view of a command, per ruleset (TACW's in
engine/tacw/hidden.py: the Second Newbury boat bridge, D108; Battle Cry: the common rule)."""
from __future__ import annotations

import ast
from pathlib import Path

from engine.core.commands import parse
from engine.core.events import Event
from engine.core.game import get_ruleset
from engine.core.public import SECRET, public_command, redact


def newbury():
    from engine.tacw import rules
    from engine.tacw.scenario.schema import load_scenario
    from engine.tacw.setup import new_state
    sc = load_scenario("second-newbury")
    st, _ = rules.start(sc, new_state(sc, 1))
    for side in ("royalist", "parliament"):
        st, _ = rules.apply(sc, st, side, parse("deploy done"))
    return rules, sc, st


def test_the_boat_bridge_is_withheld_until_revealed_and_only_the_owners_words_are_hidden():
    rules, sc, st = newbury()
    tacw = get_ruleset("tacw")
    st, ev = rules.apply(sc, st, "parliament", parse("boatbridge 3338"))
    record = public_command(tacw, sc, st, "parliament", "boatbridge 3338", [e.to_dict() for e in ev])
    assert record.text == f"boatbridge {SECRET}" and record.withheld
    assert record.narratives and all("3338" not in n for n in record.narratives)
    # the owner's line naming the hex (a move whose unwalked part ran over it) is withheld...
    move = public_command(tacw, sc, st, "parliament", "move p-thorpe 3340 3339 3338",
                          [Event("move", "parliament", "TACW 8", "p-thorpe halts at 3339 (3338 ahead)")])
    assert move.text == f"move {SECRET}" and move.narratives == (f"p-thorpe halts at 3339 ({SECRET} ahead)",)
    # ...but the other side's words stay as given: hiding a public 3338 would give the secret away
    other = public_command(tacw, sc, st, "royalist", "fire r-foot 3338",
                           [Event("fire", "royalist", "TACW 10", "r-foot fires at 3338")])
    assert other.text == "fire r-foot 3338" and other.narratives == ("r-foot fires at 3338",)
    # once a unit crosses on it, everything shows
    st, _ = rules.apply(sc, st, "parliament", parse("activate p-manchester"))
    st, ev = rules.apply(sc, st, "parliament", parse("move p-thorpe 3340 3339 3338 face ne 3437"))
    assert public_command(tacw, sc, st, "parliament", "boatbridge 3338", []).text == "boatbridge 3338"
    shown = public_command(tacw, sc, st, "parliament", "move p-thorpe 3340 3339 3338", ev)
    assert any("3338" in n for n in shown.narratives)


def test_a_ruleset_without_its_own_view_drops_the_hidden_keys():
    """Battle Cry (BC §3.1: hands and deck are secret) has no hidden module: the common rule."""
    bc = get_ruleset("battlecry")
    e = Event("end", "union", "BC §3.2", "Union ends turn 1", inputs={"hand": ["ambush"]},
              outcome={"drawn": "ambush", "deck": 40, "flags": 1})
    view = public_command(bc, None, None, "union", "end", [e.to_dict()])
    assert view.text == "end" and not view.withheld
    assert view.events[0].inputs == {} and view.events[0].outcome == {"flags": 1}
    assert e.outcome["drawn"] == "ambush"                                     # the original untouched
    assert redact("at 3338 and 13338", {"3338"}) == f"at {SECRET} and 13338"   # whole words only


def test_engine_public_imports_no_io_library():
    for path in (Path("engine/core/public.py"), Path("engine/tacw/hidden.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not names & {"discord", "sqlite3", "aiosqlite", "PIL"}, path
