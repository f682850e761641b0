"""Build small TACW positions for rules tests: a few units on a clear map, one wing a side
unless told otherwise, each side with an Army and a Wing Commander."""
from __future__ import annotations

import json

from engine.tacw.scenario.schema import parse_scenario
from engine.tacw.setup import new_state
from engine.tacw import rules
from engine.core.commands import parse


def _val(v):
    return json.dumps(v)


def scenario_text(units, *, wings=None, leaders=None, terrain=None, hexsides=None, cols=20, rows=15,
                  turns=3, orders=None) -> str:
    """units: (id, side, wing, kind, hexes, facing, extra dict) tuples."""
    wings = wings or [("r-a", "royalist", "r-wc", False), ("p-a", "parliament", "p-wc", False)]
    first = {}
    for uid, side, wing, *_ in units:
        first.setdefault(side, uid)
    leaders = leaders or [
        ("r-ac", "royalist", "ac", 0, None, first.get("royalist")),
        ("r-wc", "royalist", "wc", -1, "r-a", first.get("royalist")),
        ("p-ac", "parliament", "ac", 0, None, first.get("parliament")),
        ("p-wc", "parliament", "wc", -1, "p-a", first.get("parliament")),
    ]
    lines = ['id = "t"', 'title = "Test"', f"turns = {turns}", "", "[map]", f"cols = {cols}",
             f"rows = {rows}", 'orientation = "flat"', 'shove = "odd"']
    if terrain:
        lines.append("[map.terrain]")
        lines += [f"{k} = {_val(v)}" for k, v in terrain.items()]
    lines += ["[map.edges]", 'royalist = "east"', 'parliament = "west"']
    for hx in hexsides or []:
        lines += ["[[map.hexsides]]"] + [f"{k} = {_val(v)}" for k, v in hx.items()]
    for side in ("royalist", "parliament"):
        ac = next(ld[0] for ld in leaders if ld[1] == side and ld[2] == "ac")
        wc = next(ld[0] for ld in leaders if ld[1] == side and ld[2] == "wc")
        lines += [f"[sides.{side}]", f'name = "{side.title()}"', f'army_commander = "{ac}"',
                  f'senior_wc = "{wc}"']
    for lid, side, role, value, wing, with_unit in leaders:
        lines += ["[[leaders]]", f'id = "{lid}"', f'side = "{side}"', f'name = "{lid}"', f'role = "{role}"',
                  f"value = {value}", f'with_unit = "{with_unit}"'] + ([f'wing = "{wing}"'] if wing else [])
    for wid, side, commander, cavalry in wings:
        lines += ["[[wings]]", f'id = "{wid}"', f'side = "{side}"', f'name = "{wid}"',
                  f'commander = "{commander}"'] + ([] if cavalry is None else [f"cavalry = {'true' if cavalry else 'false'}"])
    for uid, side, wing, kind, hexes, facing, *extra in units:
        d = {"id": uid, "side": side, "wing": wing, "kind": kind, "name": uid, "hexes": hexes,
             "facing": facing, "strength": 0 if kind == "artillery" else 4, "morale": 7}
        if kind == "artillery":
            d.update(gun_class="saker", ricochet_range=4, max_range=14)
        if kind == "light":
            d.update(light_kind="commanded_shot")
        if extra:
            d.update(extra[0])
        lines += ["[[units]]"] + [f"{k} = {_val(v)}" for k, v in d.items()]
    orders = orders or {w[0]: ("charge" if w[1] == "royalist" else "receive_charge") for w in wings}
    lines += ["[orders]", "historical = {" + ", ".join(f'"{k}" = "{v}"' for k, v in orders.items()) + "}"]
    lines += ["[victory]", "bands = [", '  { level = "parliament_decisive", min = 11 },',
              '  { level = "draw", min = -10, max = 10 },', '  { level = "royalist_decisive", max = -11 },', "]"]
    lines += ["[provenance]", 'from_book = []', 'herald_completion = ["a test position"]', 'note = "test"']
    return "\n".join(lines) + "\n"


class Position:
    """A scenario + state pair with `go(side, line)` applying commands through the engine."""

    def __init__(self, units, seed=1, **kw):
        self.sc = parse_scenario(scenario_text(units, **kw), "test")
        self.st, self.events = rules.start(self.sc, new_state(self.sc, seed))

    def go(self, side, line):
        self.st, events = rules.apply(self.sc, self.st, side, parse(line))
        self.events = events
        return events

    def unit(self, uid):
        return self.st.units[uid]


def refused(p: Position, side: str, line: str, words: str) -> None:
    """The command is refused with a reason naming `words`, and the state is untouched."""
    import pytest
    from engine.core.errors import Illegal
    before = p.st.state_hash()
    with pytest.raises(Illegal) as exc:
        p.go(side, line)
    assert words in str(exc.value)
    assert p.st.state_hash() == before
