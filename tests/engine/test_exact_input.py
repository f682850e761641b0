"""Issue 12, forgiving and exact input: every word of a command is read, or refused by name;
the game is untouched by a refusal."""
from __future__ import annotations

import pytest

from engine.core.errors import Illegal
from engine.core.game import Game
from engine.core.verbs import Option, Verb, extra_words

from .bc_helpers import make_game


def refused(g: Game, side: str, line: str, *words: str) -> str:
    before = g.ruleset.state_to_dict(g.state)
    n = len(g.commands) if hasattr(g, "commands") else None
    with pytest.raises(Illegal) as exc:
        g.apply(side, line)
    text = str(exc.value)
    for w in words:
        assert w in text, text
    assert "(" in text and "§" in text, text          # the rule section is named
    assert g.ruleset.state_to_dict(g.state) == before
    if n is not None:
        assert len(g.commands) == n
    return text


def test_extra_words_by_declaration():
    v = Verb("battle", "b", "BC §4.4", (Option("unit", "u"), Option("target", "t")))
    assert extra_words(v, ["ui1", "ci2"]) == []
    assert extra_words(v, ["ui1", "ci2", "extra", "words"]) == ["extra", "words"]
    w = Verb("intercept", "i", "§", (Option("cav", "c"), Option("hex", "h", required=False),
                                     Option("nopistol", "n", flag="nopistol"),
                                     Option("scope", "s", required=False, word="for")))
    assert extra_words(w, ["c1", "nopistol", "1805"]) == []
    assert extra_words(w, ["c1", "1805", "for", "x"]) == []
    assert extra_words(w, ["c1", "1805", "nopistol", "nopistol"]) == ["nopistol"]
    # a verb with a free-form tail reads its own words
    m = Verb("move", "m", "§", (Option("unit", "u"), Option("steps", "s", multi=True)))
    assert extra_words(m, ["u", "a", "b", "c", "d"]) == []


def test_battlecry_refuses_trailing_words():
    g = Game.new("battlecry", "first-bull-run", 7)
    side = g.state.active
    refused(g, side, "end 0105 banana", "'0105 banana'", "usage: end")
    g.apply(side, "play assault-centre")
    refused(g, side, "battle ui1 0607 extra words", "'extra words'")
    refused(g, side, "retreat 0507 0508", "0508")


def test_battlecry_card_names_keep_their_words():
    g = make_game([("ui1", "union", "infantry", "0505"), ("ci1", "confederate", "infantry", "0503")],
                  hands={"union": ["skirmish-right", "fire-and-hold", "probe-left"]})
    refused(g, "union", "play skirmish-right left", "'left'", "BC §3.2")
    refused(g, "union", "play fire and hold centre please", "'please'")
    g.apply("union", "play fire and hold centre")          # a card's name of several words
    assert g.state.current.card == "fire-and-hold" and g.state.current.section == "centre"


def test_tacw_refuses_trailing_words():
    g = Game.new("tacw", "edgehill", 1)
    side = g.ruleset.to_act(g.state)
    wing = next(w for w, x in g.state.wings.items() if x.side == side)
    refused(g, side, f"activate {wing} x y z", "'x y z'", "usage: activate <wing>")
    refused(g, side, "pass now", "'now'")
    refused(g, side, "policy bypass never please", "'please'")
