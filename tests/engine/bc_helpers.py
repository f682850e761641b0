"""Build small Battle Cry positions for rules tests."""
from __future__ import annotations

from engine.battlecry.scenario import parse_scenario
from engine.core.game import Game


def scenario_text(units, terrain=None, fences=None, special=None, first="union",
                  union_edge="south", cards=4):
    conf_edge = "north" if union_edge == "south" else "south"
    lines = ['id = "t"', f'first_player = "{first}"',
             "[sides.union]", f"cards = {cards}", f'home_edge = "{union_edge}"',
             "[sides.confederate]", f"cards = {cards}", f'home_edge = "{conf_edge}"']
    if terrain:
        lines.append("[terrain]")
        for name, hexes in terrain.items():
            lines.append(f"{name} = [{', '.join(repr(h).replace(chr(39), chr(34)) for h in hexes)}]")
    for hx, front in (fences or {}).items():
        lines += ["[[fences]]", f'hex = "{hx}"', "front = [" + ", ".join(f'"{s}"' for s in front) + "]"]
    for u in units:
        uid, side, kind, hx, *rest = u
        lines += ["[[units]]", f'id = "{uid}"', f'side = "{side}"', f'kind = "{kind}"', f'hex = "{hx}"']
        if rest:
            for k, v in rest[0].items():
                lines.append(f"{k} = {v!r}".replace("'", '"'))
    if special:
        lines.append("[special]")
        for k, v in special.items():
            if isinstance(v, bool):
                lines.append(f"{k} = {'true' if v else 'false'}")
            else:
                lines.append(f"{k} = {v!r}".replace("'", '"'))
    return "\n".join(lines) + "\n"


def make_game(units, hands=None, seed=1, **kw) -> Game:
    sc = parse_scenario(scenario_text(units, **kw))
    g = Game.new("battlecry", "t", seed, scenario=sc)
    if hands:
        for side, cards in hands.items():
            g.state.hands[side] = list(cards)
    return g


def run(g: Game, *lines):
    """Apply 'side: command' lines; returns all events."""
    events = []
    for line in lines:
        side, _, text = line.partition(":")
        events += g.apply(side.strip(), text.strip())
    return events
