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


# == a bad prefix, dice by face name =============================================================

def test_a_prefix_that_names_no_side_is_named():
    from engine.core.commands import split_side
    from engine.core.errors import CannotParse
    sides = ("union", "confederate")
    assert split_side("union: end", sides) == ("union", "end")
    assert split_side("end", sides) == (None, "end")
    assert split_side("move ui1 0404 # a note: here", sides) == (None, "move ui1 0404 # a note: here")
    for line in ("union: napoleon: end", "napoleon: end"):
        with pytest.raises(CannotParse) as exc:
            split_side(line, sides)
        assert "'napoleon:' is not a side of this battle" in str(exc.value)
        assert "union, confederate" in str(exc.value)


def test_script_dice_take_face_names_and_store_numbers():
    from engine.core.commands import parse
    from engine.core.errors import CannotParse
    from engine.battlecry.tables import DIE_FACE_WORDS
    assert parse("battle ui1 0607 dice=flag,sabres,i", DIE_FACE_WORDS).dice == (5, 6, 1)
    assert parse("battle ui1 0607 dice=Flag,4", DIE_FACE_WORDS).text == "battle ui1 0607 dice=5,4"
    with pytest.raises(CannotParse) as exc:
        parse("battle ui1 0607 dice=flag")                  # a ruleset with no face names
    assert "numbers" in str(exc.value)
    with pytest.raises(CannotParse) as exc:
        parse("battle ui1 0607 dice=banner", DIE_FACE_WORDS)
    assert "'banner'" in str(exc.value) and "sabres" in str(exc.value)
    # through a game: the stored command carries the numbers
    g = Game.new("battlecry", "first-bull-run", 7)
    g.apply("union", "play assault-centre")
    g.apply("union", "move ui1 0404")
    g.apply("union", "battle ui1 0607 dice=flag,sabres")
    assert g.history[-1].text.endswith("dice=5,6")


# == a move out of reach: too far, or barred, and by what (BC §4.2) ==============================

def test_a_move_too_far_says_how_far_it_may_go():
    g = Game.new("battlecry", "first-bull-run", 7)
    g.apply("union", "play assault-centre")
    text = refused(g, "union", "move ui1 1309", "1309 is too far", "11 hexes from ui1", "at most 1 hex")
    assert "bar the way" not in text


def test_a_move_within_reach_but_barred_names_what_bars_it():
    probe = make_game([("uc1", "union", "cavalry", "0605"), ("ci1", "confederate", "infantry", "0101")])
    grid = probe.scenario.grid
    dest = next(h for h in sorted(grid) if grid.distance("0605", h) == 2)
    between = sorted(h for h in grid.neighbors("0605") if grid.distance(h, dest) <= 1)
    woods, blockers = between[0], between[1:]
    # every other way of 2 or 3 hexes is closed by a ring of friendly infantry around the start
    ring = [h for h in grid.neighbors("0605") if h not in between]
    units = [("uc1", "union", "cavalry", "0605"), ("ci1", "confederate", "infantry", "0101")]
    units += [(f"ui{i}", "union", "infantry", h) for i, h in enumerate(blockers + ring, 1)]
    g = make_game(units, terrain={"woods": [woods]}, hands={"union": ["assault-centre"] * 4})
    g.apply("union", "play assault-centre")
    assert "uc1" in g.state.current.ordered
    text = refused(g, "union", f"move uc1 {dest}", f"uc1 cannot reach {dest} (2 hexes away; cavalry moves up to 3 hexes)",
                   f"{woods} is Woods, where a move ends", "BC §4.2")
    for h in blockers:
        assert f"{h} holds ui" in text


# == retreat choices that lead to a blocked step (BC §4.6 rule 7) ================================

def test_offered_retreat_hexes_say_which_leads_to_a_blocked_step():
    units = [("ui1", "union", "infantry", "0505"), ("ci1", "confederate", "infantry", "0504"),
             ("ui2", "union", "infantry", "0607"), ("ui3", "union", "infantry", "0507")]
    g = make_game(units, first="confederate", hands={"confederate": ["assault-centre"] * 4})
    g.apply("confederate", "play assault-centre")
    g.apply("confederate", "battle ci1 0505 dice=flag,flag,cavalry,cavalry")     # 4 dice: 2 flags, no hit
    p = g.state.pending
    assert p and sorted(p["options"]) == ["0406", "0506"]
    decision = g.ruleset.pending(g.state)
    labels = {a.line: a.label for a in decision.answers}
    assert labels["retreat 0506"] == "Retreat to 0506 (then blocked: loses 1 figure)"   # 0607, 0507 are taken
    assert labels["retreat 0406"] == "Retreat to 0406"                                  # 0407 is free
    assert "via 0506 then blocked: loses 1 figure (BC §4.6 rule 7)" in decision.prompt
    refused(g, "confederate", "end", "0506: then blocked: loses 1 figure")
    g.apply("union", "retreat 0506")
    assert g.state.pieces["ui1"].figures == 3 and g.state.pieces["ui1"].hex == "0506"


def test_fire_names_every_word_it_has_no_room_for():
    """TACW §9.3, §9.9: `fire <unit> <hex> [mode] [from|to <hex>]`, a gun `fire <gun> <hex>
    [ricochet left|right]`: a stray word is named, not only the usage given."""
    import pytest
    from engine.core.errors import HeraldError
    from engine.core.game import Game
    g = Game.new("tacw", "edgehill", 3)
    g.apply("royalist", "activate r-right")
    with pytest.raises(HeraldError, match="'banana' is not a hex or a fire mode"):
        g.apply("royalist", "fire r-musketeers 2004 skirmish banana")
    g = Game.new("tacw", "edgehill", 3)
    g.apply("royalist", "activate r-centre")
    for line, extra in (("fire r-culverins 1810 banana", "'banana'"), ("fire r-culverins 1810 1811", "'1811'"),
                        ("fire r-culverins 1810 from 3011", "'from 3011'")):
        with pytest.raises(HeraldError, match=f"{extra}: a gun fires at one hex"):
            g.apply("royalist", line)
    assert len(g.history) == 1


def test_an_order_after_a_card_that_orders_by_itself_says_so():
    """BC §2.4: Assault Centre orders every unit and General of the centre by itself; an `order`
    then is refused saying which pieces the card ordered, not that a unit has moved."""
    import pytest
    from engine.core.errors import HeraldError
    from engine.core.game import Game
    g = Game.new("battlecry", "first-bull-run", 7)
    g.apply("union", "play assault-centre")
    with pytest.raises(HeraldError) as err:
        g.apply("union", "order ui2 ui3")
    assert "Assault Centre has given its orders itself (ui1, ug1, ua1, ui2, ui3, ui4)" in str(err.value)
    assert "moves or battles" not in str(err.value) and len(g.history) == 1
