"""Battle Cry turn rules and the command dispatcher (BC §3.2 sequence of play, §6 victory).

`apply(scenario, state, side, command)` is the whole engine entry point: it copies the state,
checks who may act, runs the verb, checks victory, and returns the new state and its events.
Any refusal raises a HeraldError and the original state is untouched.
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.game import run_command
from engine.core.verbs import refuse_extra_words, refuse_words

from . import campaign, cards, combat, movement, tables
from .verbs import COMMANDS
from .scenario import Scenario
from .state import BattleCryState, Piece, TurnState

VERBS = {
    "play": "play <card> [section]: play a command card (BC §3.2 step 1)",
    "order": "order <unit|General> ...: give orders under the card in play (BC §4.1)",
    "move": "move <unit> <hex> [<hex> ...] [alone]: move along a path or to a hex (BC §4.2)",
    "battle": "battle <unit> <target hex or piece>: battle an enemy (BC §4.4)",
    "retreat": "retreat <hex>: choose the next retreat hex when asked (BC §4.6)",
    "rally": "rally <unit>: carry out Rally (BC §2.4 card 14)",
    "snipe": "snipe <General>: carry out Sharp Shooter (BC §2.4 card 15)",
    "reinforce": "reinforce: roll for Call for Reinforcements (BC §2.4 card 5)",
    "place": "place <hex> [infantry|cavalry|artillery]: place the reinforcement",
    "fieldworks": "fieldworks <unit> [<unit>]: Construct Field-Works (BC §2.4 card 6)",
    "supply": "supply <unit> <hex>: Short of Supplies (BC §2.4 card 16)",
    "discard": "discard <card>: when no card can be used, discard one and draw (BC §3.2)",
    "end": "end: end the turn, discard the card and draw (BC §3.2 step 6)",
    "policy": "policy retreat auto|ask: answer your retreats automatically or be asked",
    "resign": "resign: concede the battle",
}


def find_piece(state: BattleCryState, word: str, side: str | None = None,
               general: bool | None = None) -> Piece:
    """A piece by id ('ui3') or by hex ('0504': the unit there, or the General if alone)."""
    word = word.lower()
    if word in state.pieces:
        p = state.pieces[word]
        if not p.alive:
            raise Illegal(f"{word} has been eliminated", "BC §4.5")
        return p
    if len(word) == 4 and word.isdigit():
        unit, gen = state.piece_at(word), state.piece_at(word, general=True)
        if general is True:
            p = gen
        elif general is False:
            p = unit
        else:
            p = unit or gen
        if p is None:
            raise Illegal(f"there is no {'General' if general else 'piece'} in {word}; "
                          "`units` lists every piece with its hex")
        if side is not None and p.side != side and unit is not None and gen is not None:
            p = gen if gen.side == side else unit
        return p
    from engine.core.ids import unknown
    pairs = [(p.id, f"{p.name or p.kind}, {p.hex}") for p in state.live(side)]
    raise Illegal(unknown(word, "a piece id (like ui3, cg1) or a hex (like 0504)", pairs, query="units"))


def own_piece(state: BattleCryState, word: str, side: str, general: bool | None = None) -> Piece:
    p = find_piece(state, word, side, general)
    if p.side != side:
        raise Illegal(f"{p.id} is not yours", "BC §4.1")
    return p


def _need_active(state: BattleCryState, side: str) -> None:
    if state.phase == "over":
        raise Illegal(f"the battle is over: {state.result}", "BC §6")
    if state.pending:
        who = state.pending["side"]
        notes = state.pending.get("notes") or {}
        raise Illegal(f"waiting for {who.title()} to choose a retreat hex for {state.pending['piece']} "
                      f"({', '.join(h + (f': {notes[h]}' if h in notes else '') for h in state.pending.get('options', []))})",
                      "BC §4.6")
    if side != state.active:
        raise Illegal(f"it is {state.active.title()}'s turn", "BC §3.2")


def _args(cmd: Command, n: int, usage: str) -> tuple[str, ...]:
    if len(cmd.args) < n:
        raise CannotParse(f"usage: {usage}")
    return cmd.args


# --- verbs ----------------------------------------------------------------------------------
def do_move(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    args = list(_args(cmd, 2, VERBS["move"]))
    alone = False
    if args[-1] in ("alone", "leave", "without-general"):
        alone = True
        args.pop()
    piece = own_piece(st, args[0], side)
    cur = st.current
    if st.phase == "card":
        raise Illegal("play a command card first", "BC §3.2")
    if st.phase == "orders" and cur.effective in cards.SPECIAL_VERB and \
            cur.effective not in cur.done:
        raise Illegal(f"carry out {cards.card_type(cur.effective).name} first", "BC §2.4")
    _check_can_move(sc, st, piece)
    hexes = args[1:]
    path = hexes if len(hexes) > 1 else movement.find_path(sc, st, piece, hexes[0])
    movement.check_path(sc, st, piece, path)
    st.phase = "actions"
    return movement.move_piece(sc, st, piece, path, take_general=not alone)


def _check_can_move(sc: Scenario, st: BattleCryState, piece: Piece) -> None:
    """BC §3.2 step 2 and §4.2: only ordered pieces move, once, before any battle (cards aside).

    HERALD (digest §8 item 9): the movement table's footnote says Generals "may move and battle
    without specific orders", while §4.1 and the §4.8 example spend an order on a General. A
    General therefore needs an order to move by itself; it moves with its ordered unit, and it
    always adds its die to its unit's battles, ordered or not."""
    cur = st.current
    card = cur.effective
    if piece.id not in cur.ordered:
        under = st.unit_under(piece) if piece.is_general else None
        hint = (f"; it moves with {under.id} when that unit moves" if under is not None and under.id in cur.ordered
                else "")
        raise Illegal(f"{piece.id} has no order this turn{hint}", "BC §3.2 step 2")
    if piece.id in cur.no_move:
        raise Illegal(f"{piece.id} may not move this turn ({cards.card_type(card).name})", "BC §2.4")
    moves = cur.moves.get(piece.id, 0)
    battles = cur.battles.get(piece.id, 0)
    if card == "hit-and-run" and piece.kind == "cavalry":
        if moves >= 2 or (moves == 1 and battles == 0):
            raise Illegal(f"{piece.id} moves, battles, then moves again (Hit and Run)", "BC §2.4 card 11")
        return
    if card == "bombard" and piece.kind == "artillery":
        if battles:
            raise Illegal(f"{piece.id} battles twice or moves twice, not both (Bombard)", "BC §2.4 card 4")
        if moves >= 2:
            raise Illegal(f"{piece.id} has made both Bombard moves", "BC §2.4 card 4")
        return
    if moves:
        raise Illegal(f"{piece.id} has already moved this turn (each unit moves once)", "BC §4.2")
    if cur.battle_started:
        raise Illegal("all movement ends before any battle", "BC §4.2")


def do_battle(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    args = _args(cmd, 2, VERBS["battle"])
    attacker = own_piece(st, args[0], side, general=False)
    cur = st.current
    if st.phase == "card":
        raise Illegal("play a command card first", "BC §3.2")
    if attacker.is_general:
        raise Illegal("a General never battles alone; it adds dice to its unit", "BC §4.7")
    if attacker.id not in cur.ordered:
        raise Illegal(f"{attacker.id} has no order this turn", "BC §3.2 step 2")
    card = cur.effective
    allowed = 2 if (card == "bombard" and attacker.kind == "artillery") else 1
    if card == "bombard" and attacker.kind == "artillery" and cur.moves.get(attacker.id):
        raise Illegal(f"{attacker.id} battles twice or moves twice, not both (Bombard)", "BC §2.4 card 4")
    if attacker.id in cur.no_battle:
        raise Illegal(f"{attacker.id} may not battle this turn (it entered terrain or took an order that "
                      "forbids it)", "BC §2.3 / §2.4")
    if cur.battles.get(attacker.id, 0) >= allowed:
        raise Illegal(f"{attacker.id} has already battled this turn", "BC §4.4")
    target_word = args[1]
    if target_word in st.pieces:
        target = find_piece(st, target_word)
        target_hex = target.hex
    else:
        target_hex = target_word
        if target_hex not in sc.grid:
            raise Illegal(f"{target_hex} is not a hex of the board", "BC §1")
    st.phase = "actions"
    return combat.resolve_battle(sc, st, attacker, target_hex, stream,
                                 leadership=(card == "leadership"))


def do_retreat(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    args = _args(cmd, 1, VERBS["retreat"])
    if not st.pending or st.pending["kind"] != "retreat":
        raise Illegal("no retreat is waiting for a choice", "BC §4.6")
    if st.pending["side"] != side:
        raise Illegal(f"the retreat is {st.pending['side'].title()}'s to choose", "BC §4.6")
    return combat.continue_retreat(sc, st, choice=args[0])


def do_end(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    if st.phase == "card":
        raise Illegal("play a command card first (or discard one if none can be used)", "BC §3.2")
    # A player may end without carrying out every order; the card is spent all the same.
    return _finish_turn(sc, st, side, stream, discard_note="")


def _draw(st: BattleCryState, side: str, stream: DiceStream) -> list[Event]:
    """BC §3.2 step 6: draw a card. HERALD (digest §8 item 30): when the deck runs out, the
    discard pile is shuffled to form a new deck, as a club table would do."""
    events = []
    if not st.deck:
        st.deck = stream.shuffle(st.discard)
        st.discard = []
        events.append(Event("reshuffle", side, "BC §3.2 (HERALD: empty deck)",
                            "The deck is empty: the discards are shuffled into a new deck"))
    if st.deck:
        st.hands[side].append(st.deck.pop(0))
    return events


def _finish_turn(sc: Scenario, st: BattleCryState, side: str, stream: DiceStream, discard_note: str) -> list[Event]:
    cur = st.current
    events: list[Event] = []
    if cur.card == "all-out-offensive":
        # BC §2.4 card 1: reshuffle this card with the deck and all discards, then draw.
        st.deck = stream.shuffle(st.deck + st.discard + [cur.card])
        st.discard = []
        events.append(Event("reshuffle", side, "BC §2.4 card 1",
                            "All-Out Offensive is shuffled back with the deck and all discards"))
    elif cur.card:
        st.discard.append(cur.card)
    events += _draw(st, side, stream)
    if cur.effective:
        st.last_order[side] = {"card": cur.effective, "section": cur.section}
    played = cards.card_type(cur.card).name if cur.card else discard_note
    events.append(Event("end", side, "BC §3.2 step 6",
                        f"{side.title()} ends turn {st.turn} ({played}); {st.other(side).title()} to play"))
    st.current = TurnState()
    st.turn += 1
    st.active = st.other(side)
    st.phase = "card"
    return events


def do_discard(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    if st.phase != "card":
        raise Illegal("you may discard only instead of playing a card", "BC §3.2 step 1")
    card, rest = cards.resolve_card_name(_args(cmd, 1, VERBS["discard"]))
    refuse_words(COMMANDS.verb("discard"), rest)
    if card not in st.hands[side]:
        raise Illegal(f"{cards.card_type(card).name} is not in your hand", "BC §3.1")
    usable = [c for c in st.hands[side] if cards.playable(sc, st, side, c) is None]
    if usable:
        raise Illegal(f"you can use {cards.card_type(usable[0]).name}; a card may be discarded only "
                      "when none can be used", "BC §3.2 step 1")
    st.hands[side].remove(card)
    st.discard.append(card)
    events = [Event("discard", side, "BC §3.2 step 1",
                    f"{side.title()} can use no card, discards {cards.card_type(card).name} and draws")]
    return events + _finish_turn(sc, st, side, stream, discard_note="discarded")


def do_policy(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    args = _args(cmd, 2, VERBS["policy"])
    if args[0] != "retreat" or args[1] not in ("auto", "ask"):
        raise CannotParse("usage: " + VERBS["policy"])
    st.policies.setdefault(side, {})["retreat"] = args[1]
    events = [Event("policy", side, "DESIGN pending decisions",
                    f"{side.title()} will {'have retreats chosen automatically' if args[1] == 'auto' else 'be asked for each retreat choice'}")]
    if st.pending and st.pending["side"] == side and args[1] == "auto":
        events += combat.continue_retreat(sc, st)
    return events


def do_resign(sc: Scenario, st: BattleCryState, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    if st.phase == "over":
        raise Illegal(f"the battle is over: {st.result}", "BC §6")
    st.winner = st.other(side)
    st.conceded = True
    st.result = f"{side.title()} resigns; {st.winner.title()} wins"
    st.phase = "over"
    st.pending = None
    report = end_report(sc, st)
    st.result += campaign_text(report)
    return [Event("resign", side, "BC §6", st.result, outcome={"campaign": report})]


def do_play(sc, st, side, cmd, stream):
    return cards.play_card(sc, st, side, _args(cmd, 1, VERBS["play"]))


def do_order(sc, st, side, cmd, stream):
    args = _args(cmd, 1, VERBS["order"])
    return cards.order_pieces(sc, st, side, [own_piece(st, a, side) for a in args])


def do_rally(sc, st, side, cmd, stream):
    return cards.rally(sc, st, side, own_piece(st, _args(cmd, 1, VERBS["rally"])[0], side, general=False), stream)


def do_snipe(sc, st, side, cmd, stream):
    return cards.snipe(sc, st, side, find_piece(st, _args(cmd, 1, VERBS["snipe"])[0], general=True), stream)


def do_reinforce(sc, st, side, cmd, stream):
    return cards.reinforce(sc, st, side, stream)


def do_place(sc, st, side, cmd, stream):
    args = _args(cmd, 1, VERBS["place"])
    return cards.place_reinforcement(sc, st, side, args[0], args[1] if len(args) > 1 else None)


def do_fieldworks(sc, st, side, cmd, stream):
    args = _args(cmd, 1, VERBS["fieldworks"])
    return cards.build_fieldworks(sc, st, side, [own_piece(st, a, side, general=False) for a in args])


def do_supply(sc, st, side, cmd, stream):
    args = _args(cmd, 2, VERBS["supply"])
    return cards.short_of_supplies(sc, st, side, find_piece(st, args[0], general=False), args[1])


HANDLERS = {
    "play": do_play, "order": do_order, "move": do_move, "battle": do_battle, "retreat": do_retreat,
    "rally": do_rally, "snipe": do_snipe, "reinforce": do_reinforce, "place": do_place,
    "fieldworks": do_fieldworks, "supply": do_supply, "discard": do_discard, "end": do_end,
    "policy": do_policy, "resign": do_resign,
}
ANY_TIME = {"policy", "resign", "retreat"}


def effective_flags(sc: Scenario, st: BattleCryState, side: str) -> int:
    """BC §6: captured flags, plus (Shiloh) each of the side's units on an objective hex.
    FAQ: only a unit, not a lone General, counts."""
    n = st.flags[side]
    if sc.special.get("objective_side") == side:
        objectives = set(sc.special.get("objective_hexes", []))
        n += sum(1 for p in st.live(side) if not p.is_general and p.hex in objectives)
    return n


def check_victory(sc: Scenario, st: BattleCryState) -> list[Event]:
    """BC §6: the first to capture the scenario's flags (6) wins. HERALD: a side with no unit
    left on the board has lost, whatever the count."""
    if st.phase == "over":
        return []
    order = [st.active, st.other(st.active)]
    for side in order:
        if effective_flags(sc, st, side) >= sc.flags_to_win:
            st.winner = side
            st.result = (f"{side.title()} wins with {effective_flags(sc, st, side)} flags "
                         f"(needed {sc.flags_to_win})")
            break
        if not any(not p.is_general for p in st.live(st.other(side))):
            st.winner = side
            st.result = f"{side.title()} wins: no {st.other(side).title()} unit is left on the field"
            break
    if st.winner:
        st.phase = "over"
        st.pending = None
        report = end_report(sc, st)
        st.result += campaign_text(report)
        return [Event("victory", st.winner, "BC §6", st.result,
                      outcome={"flags": report["flags"], "campaign": report})]
    return []


def end_report(sc: Scenario, st: BattleCryState) -> dict:
    """BC §6 Campaign (digest §5.3): the end of a game reports the Campaign Flags its winner
    gains (winner's flags - loser's flags), and with the `seats` option the winning seat.
    The flags counted are those that decide the battle (effective_flags: Shiloh's held
    objectives count as captured flags, BC §7 scenario 4).

    HERALD (the book has no resignation): a player who resigns concedes the battle as if his
    opponent had taken the scenario's victory flags, so the winner is credited with at least
    `flags_to_win` flags. Otherwise resigning when behind would cut the winner's Campaign Flags
    to the margin of the moment, and a losing player could deny his opponent the campaign."""
    flags = {s: effective_flags(sc, st, s) for s in tables.SIDES}
    if st.conceded and st.winner in flags:
        flags[st.winner] = max(flags[st.winner], sc.flags_to_win)
    report = campaign.game_report(st.winner, flags, st.options)
    if st.conceded:
        report["conceded"] = True
    return report


def campaign_text(report: dict) -> str:
    if report["winner"] is None:
        return ""
    w = report["winner"]
    lose = "confederate" if w == "union" else "union"
    who = f" ({report['winner_seat']})" if report.get("winner_seat") else ""
    return (f"; {w.title()}{who} gains {report['campaign_flags']} Campaign Flag"
            f"{'' if report['campaign_flags'] == 1 else 's'} ({report['flags'][w]} - "
            f"{report['flags'][lose]}, BC §6 Campaign"
            + (f"; a resignation concedes the battle's {report['flags'][w]} flags" if report.get("conceded") else "")
            + ")")


def apply(sc: Scenario, state: BattleCryState, side: str, cmd: Command) -> tuple[BattleCryState, list[Event]]:
    """Apply one command for one side. Pure: the given state is never modified."""
    if side not in tables.SIDES:
        raise Illegal(f"'{side}' is not a side of this battle (union, confederate)")
    handler = HANDLERS.get(cmd.verb)
    if handler is None:
        raise CannotParse(f"unknown command '{cmd.verb}'; Battle Cry commands: {', '.join(HANDLERS)}")
    refuse_extra_words(COMMANDS, cmd.verb, cmd.args)     # `end 0105 banana`: every word is read
    if cmd.verb not in ANY_TIME:
        _need_active(state, side)
    elif state.phase == "over" and cmd.verb != "policy":
        raise Illegal(f"the battle is over: {state.result}", "BC §6")

    def body(st: BattleCryState, stream: DiceStream) -> list[Event]:
        return handler(sc, st, side, cmd, stream) + check_victory(sc, st)

    return run_command(state, cmd, body)
