"""The command surface as data (engine/core/verbs.py): whole-line completion for `/act`, the line a
subcommand builds, and the policy completions every ruleset shares."""
from __future__ import annotations

from engine.core.game import Game
from engine.core.verbs import complete_line, line_for


def completer(game: Game, side: str):
    rs = game.ruleset
    return lambda kind, prefix, ctx, head="": rs.completions(game.scenario, game.state, side, kind, prefix, ctx, head)


def values(found):
    return [v for _, v in found]


def test_tacw_a_line_is_completed_verb_first_then_each_argument():
    g = Game.new("tacw", "edgehill", 5)
    side = g.to_act
    cs = g.ruleset.commands
    verbs = values(complete_line(cs, "", completer(g, side)))
    assert verbs[0] == "activate " and len(verbs) == 25          # every verb, the first 25 shown
    assert values(complete_line(cs, "ac", completer(g, side))) == ["activate "]
    wings = complete_line(cs, "activate ", completer(g, side))
    assert values(wings) == ["activate r-right", "activate r-centre", "activate r-left"]
    assert "may activate now" in wings[0][0] and wings[0][0].startswith("activate r-right — ▶")
    g.apply(side, "activate r-right")
    assert "move r-rupert" in values(complete_line(cs, "move ", completer(g, side)))
    steps = values(complete_line(cs, "move r-rupert 3007 ", completer(g, side)))
    assert "move r-rupert 3007 2907" in steps and "move r-rupert 3007 face E" in steps
    # a choice option, then the optional words: dice= for a verb that rolls
    assert values(complete_line(cs, "change ", completer(g, side))) == [
        "change charge", "change make_ready", "change receive_charge", "change rally"]
    assert values(complete_line(cs, "change make_ready ", completer(g, side))) == ["change make_ready dice="]
    # the policy kinds with the side's setting, then the kind's values, then `for`
    kinds = complete_line(cs, "policy ", completer(g, side))
    assert ("policy reaction — reaction: auto|salvo|never|ask (now auto)", "policy reaction") in kinds
    assert values(complete_line(cs, "policy reaction n", completer(g, side))) == ["policy reaction never"]
    assert values(complete_line(cs, "policy reaction never ", completer(g, side))) == ["policy reaction never for"]
    # a word that is no verb says so, and a required argument with no candidate is explained
    [(label, _)] = complete_line(cs, "teleport ", completer(g, side))
    assert "'teleport' is not a tacw command" in label
    [(label, value)] = complete_line(cs, "fire r-musketeers ", completer(g, side))
    assert label.startswith("fire r-musketeers <target>: Enemy hex") and value == "fire r-musketeers"


def test_the_answer_the_game_waits_for_comes_first():
    g = Game.new("tacw", "edgehill", 5)
    cs = g.ruleset.commands
    assert values(complete_line(cs, "", completer(g, "royalist"), first=["bypass"]))[0] == "bypass "


def test_battle_cry_a_line_is_completed_from_the_hand_and_the_pieces():
    g = Game.new("battlecry", "first-bull-run", 7)
    side = g.to_act
    cs = g.ruleset.commands
    cards = values(complete_line(cs, "play ", completer(g, side)))
    hand = list(dict.fromkeys(g.state.hands[side]))
    assert cards == [f"play {c}" for c in hand]
    card = "assault-centre"
    g.apply(side, f"play {card}")
    order = values(complete_line(cs, "order ", completer(g, side)))
    assert order and all(v.startswith("order ") for v in order)
    first = order[0].split()[1]
    more = values(complete_line(cs, f"order {first} ", completer(g, side)))
    assert more and f"order {first} {first}" not in more          # a list never repeats a unit
    assert "hand" in values(complete_line(cs, "ha", completer(g, side)))[0]


def test_line_for_leaves_out_empty_options_and_writes_flags_words_and_dice():
    g = Game.new("battlecry", "first-bull-run", 7)
    cs = g.ruleset.commands
    assert line_for(cs.verb("play"), {"card": "scout", "section": None}) == "play scout"
    assert line_for(cs.verb("move"), {"unit": "ui2", "to": " 0605 ", "alone": False}) == "move ui2 0605"
    assert line_for(cs.verb("end"), {}) == "end"
    assert line_for(cs.verb("reinforce"), {"dice": "6"}) == "reinforce dice=6"
