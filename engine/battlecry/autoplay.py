"""A plain, deterministic Battle Cry player: it writes the command lines a simple general would
give. It is no rule of the game: Herald uses it to write the offline demo's script and to play
many whole games in the tests (every line it writes goes through the same engine as a player's).
"""
from __future__ import annotations

from engine.core.game import Game, demo_script, print_demo_script, try_command

from . import board, cards, tables
from .state import BattleCryState, Piece


def _enemy_distance(game: Game, piece: Piece) -> int:
    grid = game.scenario.grid
    enemies = [p for p in game.state.live(game.state.other(piece.side)) if not p.is_general]
    return min((grid.distance(piece.hex, e.hex) for e in enemies), default=99)


_try = try_command


def _card_score(game: Game, side: str, card: str) -> int:
    st, sc = game.state, game.scenario
    ct = tables.CARD_TYPES[card]
    if ct.kind == "section":
        n = len([p for p in cards.units_in_section(sc, st, side, ct.section) if not p.is_general])
        return min(n, ct.orders or n) * 10 + (5 if ct.orders is None else 0)
    return {"all-out-offensive": 60, "coordinated-attack": 25, "force-march": 22, "fire-and-hold": 21,
            "bombard": 18, "hit-and-run": 15, "leadership": 12}.get(card, 5)


def play_turn(game: Game, side: str) -> list[tuple[str, str]]:
    """Write and apply one whole turn (or one pending answer) for `side`."""
    out: list[tuple[str, str]] = []
    st = game.state
    if st.pending:
        _try(game, side, f"retreat {st.pending['options'][0]}", out)
        return out
    if st.phase != "card":          # resuming a turn after the opponent answered a retreat
        _move_and_battle(game, side, out)
        if game.state.phase != "over" and not game.state.pending:
            _try(game, side, "end", out)
        return out
    hand = list(dict.fromkeys(st.hands[side]))
    usable = [c for c in hand if cards.playable(game.scenario, st, side, c) is None]
    if not usable:
        _try(game, side, f"discard {hand[0]}", out)
        return out
    usable.sort(key=lambda c: -_card_score(game, side, c))
    for card in usable:
        words = [card]
        if card in cards.SECTION_CHOICE_CARDS:
            words.append(_best_section(game, side, card))
        if _try(game, side, "play " + " ".join(words), out):
            break
    _carry_out(game, side, out)
    if game.state.phase != "over" and not game.state.pending:
        _try(game, side, "end", out)
    return out


def _best_section(game: Game, side: str, card: str) -> str:
    kinds = ("infantry", "artillery") if card == "fire-and-hold" else ("infantry",)
    return max(("left", "centre", "right"),
               key=lambda s: len(cards.units_in_section(game.scenario, game.state, side, s, kinds)))


def _carry_out(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    st, sc = game.state, game.scenario
    card = st.current.effective
    if card == "rally":
        hurt = sorted((p for p in st.live(side) if not p.is_general and p.figures < p.start_figures),
                      key=lambda p: p.figures)
        if hurt:
            _try(game, side, f"rally {hurt[0].id}", out)
    elif card == "sharp-shooter":
        gens = [p for p in st.live(st.other(side)) if p.is_general]
        if gens:
            _try(game, side, f"snipe {gens[0].id}", out)
    elif card == "call-for-reinforcements":
        if _try(game, side, "reinforce", out) and game.state.current.reinforcement:
            kind = game.state.current.reinforcement
            kind = cards.lost_kinds(sc, game.state, side)[0] if kind == "any" else kind
            for h in sc.grid:
                if board.on_home_edge(sc, side, h) and _try(game, side, f"place {h} {kind}", out):
                    break
    elif card == "construct-field-works":
        cand = sorted(cards.fieldworks_candidates(sc, st, side), key=lambda p: _enemy_distance(game, p))
        if cand:
            _try(game, side, "fieldworks " + " ".join(p.id for p in cand[:2]), out)
    elif card == "short-of-supplies":
        for p in sorted(st.live(st.other(side)), key=lambda p: p.id):
            if p.is_general:
                continue
            dests = cards.supply_destinations(sc, st, p)
            if dests:
                _try(game, side, f"supply {p.id} {dests[0]}", out)
                break
    elif game.state.phase == "orders":
        limit = cards.order_limit(game.state) or 0
        candidates = sorted((p for p in st.live(side) if not p.is_general),
                            key=lambda p: (_enemy_distance(game, p), p.id))
        for p in candidates:
            if len(game.state.current.ordered) >= limit or game.state.phase != "orders":
                break
            _try(game, side, f"order {p.id}", out)
    _move_and_battle(game, side, out)


def _move_and_battle(game: Game, side: str, out: list[tuple[str, str]]) -> None:
    sc = game.scenario
    grid = sc.grid
    for pid in list(game.state.current.ordered):
        p = game.state.pieces[pid]
        if not p.alive or p.is_general or p.kind == "artillery":
            continue
        if _enemy_distance(game, p) <= (1 if p.kind == "cavalry" else 2):
            continue
        enemies = [e for e in game.state.live(game.state.other(side)) if not e.is_general]
        best = None
        for h in grid.within(p.hex, 3):
            d = min((grid.distance(h, e.hex) for e in enemies), default=99)
            if best is None or d < best[0]:
                if h != p.hex:
                    best = (d, h)
        if best:
            # step toward the target hex until a legal destination is found
            for h in sorted(grid.within(p.hex, 3), key=lambda h: (grid.distance(h, best[1]), h)):
                if h != p.hex and _try(game, side, f"move {p.id} {h}", out):
                    break
    for pid in list(game.state.current.ordered):
        if game.state.phase == "over" or game.state.pending:
            return
        p = game.state.pieces[pid]
        if not p.alive or p.is_general:
            continue
        targets = sorted((e for e in game.state.live(game.state.other(side))
                          if not (e.is_general and game.state.piece_at(e.hex) is not None)),
                         key=lambda e: (grid.distance(p.hex, e.hex), e.figures, e.id))
        for e in targets[:6]:
            if _try(game, side, f"battle {p.id} {e.hex}", out):
                break
        if game.state.pending:
            return


def play_game(game: Game, max_commands: int = 4000) -> list[tuple[str, str]]:
    """Play a whole game with both sides; returns every (side, line) accepted."""
    script: list[tuple[str, str]] = []
    while game.state.phase != "over" and len(script) < max_commands:
        side = game.to_act
        lines = play_turn(game, side)
        script += lines
        if not lines:   # nothing legal was found: end the turn to avoid a stall
            if not _try(game, side, "end", script):
                break
    return script


def state_summary(state: BattleCryState) -> str:
    return f"turn {state.turn}, flags {state.flags}, winner {state.winner}"


def write_script(scenario_id: str, seed: int) -> str:
    """The text of a demo script: `python -m engine.battlecry.autoplay first-bull-run 7`
    prints what `bot/demos/battlecry--first-bull-run.txt` holds (rewrite it when rules change)."""
    return demo_script("battlecry", scenario_id, seed, play_game, "engine.battlecry.autoplay", "players")


if __name__ == "__main__":
    import sys
    print_demo_script(write_script, sys.argv)
