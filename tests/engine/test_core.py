"""engine.core: hex geometry, the dice stream, the command parser, events."""
import pytest

from engine.core.commands import parse
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, DiceNeeded, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.hexgrid import HexGrid


def test_battle_cry_board_has_113_hexes_in_13_12_rows():
    g = HexGrid(13, 9, "pointy", "odd", short_shoved_rows=True)
    assert len(g) == 13 * 5 + 12 * 4
    assert "1301" in g and "1302" not in g and "1202" in g and "0000" not in g


def test_pointy_neighbours_and_distance():
    g = HexGrid(13, 9, "pointy", "odd", short_shoved_rows=True)
    assert g.neighbors("0505") == ["0605", "0506", "0406", "0405", "0404", "0504"]
    assert g.neighbors("0102") == ["0202", "0203", "0103", "0101", "0201"]
    assert [g.side_name(g.direction("0505", n)) for n in g.neighbors("0505")] == ["E", "SE", "SW", "W", "NW", "NE"]
    assert g.distance("0101", "1301") == 12 and g.distance("0505", "0503") == 2
    assert g.distance("0101", "0109") == 8


def test_flat_gmt_grid_ccrr_ids_and_neighbours():
    g = HexGrid(10, 8, "flat", "even")
    assert g.neighbors("0505") == ["0606", "0506", "0406", "0405", "0504", "0605"]
    assert [g.side_name(g.direction("0505", n)) for n in g.neighbors("0505")] == ["SE", "S", "SW", "NW", "N", "NE"]
    assert g.distance("0101", "0108") == 7


def test_line_steps_mark_lines_along_a_hexside():
    g = HexGrid(13, 9, "pointy", "odd", short_shoved_rows=True)
    assert g.line_steps("0307", "0507") == [("0407",)]
    # straight north: along the side 0406/0506, through the centre of 0505, along 0404/0504
    assert [set(s) for s in g.line_steps("0507", "0503")] == [{"0406", "0506"}, {"0505"}, {"0404", "0504"}]


def test_bearing_side_names_the_hexside_or_vertex():
    g = HexGrid(13, 9, "pointy", "odd", short_shoved_rows=True)
    assert g.bearing_side("0505", "0605") == 0.0
    assert g.bearing_side("0505", "0504") == 5.0
    assert g.bearing_side("0507", "0503") == 4.5      # due north: the vertex between NW and NE


def test_dice_stream_is_deterministic_and_supplied_first():
    a = [DiceStream(42, 0).roll(6, "x") for _ in range(1)]
    s1, s2 = DiceStream(42, 0), DiceStream(42, 0)
    assert [s1.roll(6, "x") for _ in range(50)] == [s2.roll(6, "x") for _ in range(50)]
    assert len(set(DiceStream(42, 0).roll(6, "x") for _ in range(1))) == 1 and a
    values = [DiceStream(7, i).roll(6, "x") for i in range(600)]
    assert set(values) == {1, 2, 3, 4, 5, 6} and all(60 < values.count(v) < 140 for v in range(1, 7))
    s = DiceStream(1, 0, supplied=[6, 2])
    assert [s.roll(6, "x"), s.roll(6, "x")] == [6, 2] and s.draws == 0
    with pytest.raises(Illegal, match="not a face of a d6"):
        DiceStream(1, 0, supplied=[7]).roll(6, "x")
    with pytest.raises(DiceNeeded):
        DiceStream(1, 0, strict=True).roll(6, "battle")
    deck = list(range(20))
    assert DiceStream(3, 0).shuffle(deck) == DiceStream(3, 0).shuffle(deck) != deck


def test_parse_commands():
    c = parse("Move UI3 0504 0505  # forward")
    assert c.verb == "move" and c.args == ("ui3", "0504", "0505") and c.dice == ()
    assert parse("battle ui1 0505 dice=1,5,6").dice == (1, 5, 6)
    assert parse("battle ui1 0505 dice=1,5,6").text == "battle ui1 0505 dice=1,5,6"
    for bad in ("", "   # nothing", "move 'ui3", "battle x dice=a,b"):
        with pytest.raises(CannotParse):
            parse(bad)


def test_event_round_trip_and_explain():
    e = Event("battle", "union", "BC §4.4", "x battles y", base=3,
              modifiers=[Modifier(-1, "target in woods", "BC §2.3")],
              dice=[DieRoll("battle die 1 of 2", "battlecry-d6", 6, "sabres", "hit")],
              table="BC §4.4.1", row="infantry, range 2", outcome={"hits": 1})
    assert Event.from_dict(e.to_dict()) == e
    text = e.explain()
    assert "-1  target in woods (BC §2.3)" in text and "= 2" in text and "[sabres] -> hit" in text


def test_importing_one_ruleset_first_does_not_hide_the_others():
    import engine.core.game as g
    from engine.tacw.ruleset import TACW
    saved = dict(g._RULESETS)
    try:
        g._RULESETS.clear()
        g.register(TACW)                      # as if only TACW had been imported so far
        assert set(g.rulesets()) >= {"battlecry", "tacw"} and g.get_ruleset("battlecry").id == "battlecry"
    finally:
        g._RULESETS.clear()
        g._RULESETS.update(saved)


def test_rulesets_are_found_as_entry_points_and_a_broken_one_is_left_out(monkeypatch, caplog):
    """engine/core names no ruleset: it registers what the `herald.rulesets` entry points give
    (pyproject.toml lists the built-in ones), and a club's ruleset that fails to import is left
    out with a warning while the others load."""
    import importlib.metadata as md
    import engine.core.game as g

    class Club:
        id, name, sides = "club", "A club's game", ("red", "blue")

    club = Club()
    real = md.entry_points(group=g.ENTRY_POINT_GROUP)
    assert {ep.name for ep in real} >= {"battlecry", "tacw"}

    class Broken:
        name, value = "broken", "no_such_module:RULESET"

        def load(self):
            raise ImportError("no module named no_such_module")

    class Good:
        name, value = "club", "club_package:RULESET"

        def load(self):
            return club

    monkeypatch.setattr(md, "entry_points", lambda group: [*real, Broken(), Good()])
    monkeypatch.setattr(g, "_FOUND", None)
    saved = dict(g._RULESETS)
    try:
        g._RULESETS.clear()
        found = g.rulesets()
        assert {"battlecry", "tacw", "club"} <= set(found) and found["club"] is club
        assert "broken" not in found and "ruleset entry point broken" in caplog.text
    finally:
        g._RULESETS.clear()
        g._RULESETS.update(saved)
        g._FOUND = None
