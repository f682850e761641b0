"""Command cards: playing a card, ordering units, and the special actions of the tactic cards
(BC §2.4, §3.2, §4.1, §4.9)."""
from __future__ import annotations

from itertools import permutations

from engine.core.dice import DiceStream
from engine.core.errors import Ambiguous, Illegal
from engine.core.events import DieRoll, Event

from . import board, tables
from .scenario import Scenario
from .state import BattleCryState, Piece

# Cards that order everything of a kind as soon as they are played.
AUTO_ORDER_CARDS = {"all-out-offensive", "bombard", "hit-and-run", "leadership", "fire-and-hold",
                    "force-march"}
SECTION_CHOICE_CARDS = {"fire-and-hold", "force-march"}   # "in one section": chosen on play
SPECIAL_VERB = {"rally": "rally", "sharp-shooter": "snipe", "call-for-reinforcements": "reinforce",
                "construct-field-works": "fieldworks", "short-of-supplies": "supply"}


def card_type(card: str) -> tables.CardType:
    return tables.CARD_TYPES[card]


def resolve_card_name(words: tuple[str, ...], hand: list[str] | None = None) -> tuple[str, tuple[str, ...]]:
    """Read a card name from the start of `words`: 'probe-left', 'probe left', 'Fire and Hold'...
    With a hand, a short name ('probe') picks the one matching card held, and is ambiguous when
    several are. Returns (card id, remaining words)."""
    for n in range(min(len(words), 5), 0, -1):
        candidate = "-".join(words[:n]).replace("_", "-")
        if candidate in tables.CARD_TYPES:
            return candidate, words[n:]
        for cid, ct in tables.CARD_TYPES.items():
            if candidate == ct.name.lower().replace(" ", "-"):
                return cid, words[n:]
    if hand and words:
        first = words[0].replace("_", "-")
        matches = sorted({c for c in hand if c.startswith(first)})
        if len(matches) == 1:
            return matches[0], words[1:]
        if len(matches) > 1:
            raise Ambiguous(first, matches)
    held = f": your hand holds {', '.join(dict.fromkeys(hand))}" if hand else ""
    raise Illegal(f"'{' '.join(words)}' is not a Battle Cry command card{held}", "BC §2.4")


def units_in_section(scenario: Scenario, state: BattleCryState, side: str, section: str,
                     kinds: tuple[str, ...] = tables.PIECE_KINDS) -> list[Piece]:
    return [p for p in state.live(side) if p.kind in kinds
            and section in board.sections_of(scenario, side, p.hex)]


def counter_attack_copy(state: BattleCryState, side: str) -> tuple[str, str | None]:
    """BC §2.4 card 8: repeat the opponent's last order with left and right swapped.

    HERALD (digest §8 item 22): the copy is of the order the opponent's last card gave (so a
    Counter-Attack of a Counter-Attack copies the order it copied); a card's own after-effect
    (All-Out Offensive's reshuffle) stays with the physical card and is not copied; with no
    previous order the card cannot be played."""
    last = state.last_order.get(state.other(side))
    if not last:
        raise Illegal("Counter-Attack repeats your opponent's last order, and there is none yet",
                      "BC §2.4 card 8")
    card = last["card"]
    section = tables.mirror_section(last["section"]) if last.get("section") else None
    ct = card_type(card)
    if ct.kind == "section":
        base = card.rsplit("-", 1)[0]
        card = f"{base}-{tables.mirror_section(ct.section)}"
        section = tables.mirror_section(ct.section)
    return card, section


def playable(scenario: Scenario, state: BattleCryState, side: str, card: str) -> str | None:
    """None if the card can be used now, else why not (BC §3.2 step 1: a player who can use none
    of their cards discards one and draws)."""
    try:
        effective, section = counter_attack_copy(state, side) if card == "counter-attack" else (card, None)
    except Illegal as exc:
        return exc.reason
    ct = card_type(effective)
    mine = state.live(side)
    units = [p for p in mine if not p.is_general]
    if ct.kind == "section":
        return None if units_in_section(scenario, state, side, ct.section) else \
            f"you have no unit or General on your {ct.section}"
    if effective in SECTION_CHOICE_CARDS:
        kinds = ("infantry", "artillery") if effective == "fire-and-hold" else ("infantry",)
        return None if any(p.kind in kinds for p in units) else "you have no unit this card can order"
    needs = {
        "bombard": lambda: any(p.kind == "artillery" for p in units),
        "hit-and-run": lambda: any(p.kind == "cavalry" for p in units),
        "leadership": lambda: any(p.is_general for p in mine),
        "rally": lambda: any(p.figures < p.start_figures for p in units),
        "sharp-shooter": lambda: any(p.is_general for p in state.live(state.other(side))),
        "call-for-reinforcements": lambda: bool(lost_kinds(scenario, state, side)),
        "construct-field-works": lambda: bool(fieldworks_candidates(scenario, state, side)),
        "short-of-supplies": lambda: any(supply_destinations(scenario, state, p)
                                         for p in state.live() if not p.is_general),
        "coordinated-attack": lambda: bool(mine),
        "all-out-offensive": lambda: bool(mine),
    }
    ok = needs[effective]()
    return None if ok else f"{ct.name} has nothing to order now"


def play_card(scenario: Scenario, state: BattleCryState, side: str, words: tuple[str, ...]) -> list[Event]:
    """BC §3.2 step 1: play a command card from your hand."""
    if state.phase != "card":
        raise Illegal("you have already played a card this turn", "BC §3.2")
    hand = state.hands[side]
    card, rest = resolve_card_name(words, hand)
    taken = 1 if card in SECTION_CHOICE_CARDS else 0       # a section, for Fire and Hold, Force March
    if rest[taken:]:             # `play skirmish-right left`: a word the card has no use for
        from .verbs import COMMANDS
        from engine.core.verbs import refuse_words
        refuse_words(COMMANDS.verb("play"), rest[taken:])
    if card not in hand:
        raise Illegal(f"{card_type(card).name} is not in your hand (it holds {', '.join(dict.fromkeys(hand))})",
                      "BC §3.1")
    why = playable(scenario, state, side, card)
    if why:
        raise Illegal(f"{card_type(card).name} cannot be used: {why}", "BC §3.2")
    effective, section = counter_attack_copy(state, side) if card == "counter-attack" else (card, None)
    ct = card_type(effective)
    if ct.kind == "section":
        section = ct.section
    elif effective in SECTION_CHOICE_CARDS and card != "counter-attack":
        if not rest or rest[0] not in ("left", "centre", "center", "right"):
            raise Illegal(f"{ct.name} orders units in one section: say which (left, centre, right)",
                          "BC §2.4")
        section = "centre" if rest[0] == "center" else rest[0]
    hand.remove(card)
    cur = state.current
    cur.card, cur.effective, cur.section = card, effective, section
    state.phase = "orders"
    copied = f" (copying {ct.name}{' ' + section if section and ct.kind != 'section' else ''})" \
        if card == "counter-attack" else ""
    events = [Event("card", side, "BC §2.4", f"{side.title()} plays {card_type(card).name}{copied}",
                    inputs={"card": card, "effective": effective, "section": section})]
    if effective in AUTO_ORDER_CARDS:
        events += _auto_order(scenario, state, side)
    elif ct.kind == "section" and ct.orders is None:  # Assault: all in the section
        events += _auto_order(scenario, state, side)
    return events


def _auto_order(scenario: Scenario, state: BattleCryState, side: str) -> list[Event]:
    cur = state.current
    card = cur.effective
    mine = state.live(side)
    if card == "all-out-offensive":
        chosen = mine
    elif card == "bombard":
        chosen = [p for p in mine if p.kind == "artillery"]
    elif card == "hit-and-run":
        chosen = [p for p in mine if p.kind == "cavalry"]
    elif card == "leadership":
        gens = [p for p in mine if p.is_general]
        chosen = gens + [u for g in gens if (u := state.unit_under(g)) is not None]
    elif card == "fire-and-hold":
        chosen = units_in_section(scenario, state, side, cur.section, ("infantry", "artillery"))
        cur.no_move += [p.id for p in chosen]
    elif card == "force-march":
        # HERALD (digest §8 item 21): the card reads "Date ordini ad un'unità di fanteria che si
        # trovano in una sezione ... Ogni fanteria può muovere di 2 esagoni e combattere". The
        # singular "un'unità" disagrees with the plural verb "si trovano" and with "Ogni fanteria"
        # ("each infantry"), which only makes sense of several units. Herald reads it as: every
        # infantry unit in the chosen section is ordered (two verbs of three say so), and each
        # may move 2 hexes and battle; no other kind of unit is ordered.
        chosen = units_in_section(scenario, state, side, cur.section, ("infantry",))
    else:  # Assault: all units and Generals in the section
        chosen = units_in_section(scenario, state, side, cur.section)
    cur.ordered = [p.id for p in chosen]
    state.phase = "actions"
    return [Event("order", side, "BC §4.1", f"{card_type(card).name} orders "
                  + (", ".join(p.id for p in chosen) if chosen else "nobody"),
                  inputs={"ordered": cur.ordered})]


def order_limit(state: BattleCryState) -> int | None:
    card = state.current.effective
    if card == "coordinated-attack":
        return 3
    return card_type(card).orders


def order_pieces(scenario: Scenario, state: BattleCryState, side: str, ids: list[Piece]) -> list[Event]:
    """BC §4.1: give orders under the card in play; each order is one unit or one General, a unit
    with its attached General is one order, no piece gets two orders."""
    cur = state.current
    if state.phase == "card":
        raise Illegal("play a command card first", "BC §3.2")
    card = cur.effective
    ct = card_type(card)
    limit = order_limit(state)
    if state.phase != "orders" or cur.battle_started or cur.moves:
        if not cur.battle_started and not cur.moves and limit is not None and len(cur.ordered) >= limit:
            raise Illegal(f"{ct.name} gives {limit} order{'s' if limit > 1 else ''} and all of them "
                          f"are given ({', '.join(cur.ordered)})", "BC §2.4")
        if not cur.battle_started and not cur.moves:     # a card that orders by itself (Assault, Bombard...)
            raise Illegal(f"{ct.name} has given its orders itself ({', '.join(cur.ordered) or 'none'}): "
                          "move or battle with them, then end", "BC §2.4")
        raise Illegal("orders are given before any unit moves or battles", "BC §3.2")
    if card in SPECIAL_VERB:
        raise Illegal(f"{ct.name} is carried out with `{SPECIAL_VERB[card]}`, not with orders", "BC §2.4")
    for p in ids:
        if p.side != side or not p.alive:
            raise Illegal(f"{p.id} is not one of your pieces on the board", "BC §4.1")
        if p.id in cur.ordered:
            raise Illegal(f"{p.id} already has an order (one order per unit)", "BC §4.1")
        if ct.kind == "section" and ct.section not in board.sections_of(scenario, side, p.hex):
            raise Illegal(f"{p.id} in {p.hex} is not on your {ct.section} "
                          f"(it is on your {' / '.join(board.sections_of(scenario, side, p.hex))})",
                          "BC §4.1")
    new = cur.ordered + [p.id for p in ids]
    if limit is not None and len(new) > limit:
        raise Illegal(f"{ct.name} gives {limit} order{'s' if limit > 1 else ''}; that would be {len(new)}",
                      "BC §2.4")
    if card == "coordinated-attack":
        sections = [board.sections_of(scenario, side, state.pieces[i].hex) for i in new]
        if not any(all(sec in secs for sec, secs in zip(perm, sections))
                   for perm in permutations(("left", "centre", "right"), len(new))):
            raise Illegal("Coordinated Attack orders one unit or General in each section; these "
                          "cannot be one per section", "BC §2.4 card 7")
    cur.ordered = new
    if limit is not None and len(new) == limit:
        state.phase = "actions"
    return [Event("order", side, "BC §4.1", f"{side.title()} orders {', '.join(p.label for p in ids)} "
                  f"({len(new)}/{limit if limit is not None else 'all'})", inputs={"ordered": [p.id for p in ids]})]


# --- tactic card actions ------------------------------------------------------------------------
def _expect(state: BattleCryState, card: str) -> None:
    if state.current.effective != card or state.phase != "orders":
        raise Illegal(f"this needs {card_type(card).name} in play, before anything else is done",
                      "BC §2.4")
    if card in state.current.done:
        raise Illegal(f"{card_type(card).name} has already been carried out", "BC §2.4")


def rally(scenario: Scenario, state: BattleCryState, side: str, unit: Piece, stream: DiceStream) -> list[Event]:
    """BC §2.4 card 14: one die per card in hand, this one included; each die showing the unit's
    type returns one figure, up to its starting strength. It may battle but not move.
    HERALD (digest §8 item 25): only the unit's own symbol counts, as the text says."""
    _expect(state, "rally")
    if unit.side != side or unit.is_general or not unit.alive:
        raise Illegal(f"{unit.id} is not one of your units", "BC §2.4 card 14")
    if unit.figures >= unit.start_figures:
        raise Illegal(f"{unit.id} has suffered no losses", "BC §2.4 card 14")
    n = len(state.hands[side]) + 1
    rolls, back = [], 0
    for i in range(n):
        v = stream.roll(6, f"rally die {i + 1} of {n}")
        face = tables.DIE_FACES[v]
        good = face == unit.kind and unit.figures + back < unit.start_figures
        back += good
        rolls.append(DieRoll(f"rally die {i + 1} of {n}", "battlecry-d6", v, face,
                             "figure returns" if good else ("match, unit full" if face == unit.kind else "no")))
    before = unit.figures
    unit.figures += back
    cur = state.current
    cur.ordered = [unit.id]
    cur.no_move.append(unit.id)
    cur.done.append("rally")
    state.phase = "actions"
    state.last_action = {"items": [{"kind": "rally", "piece": unit.id, "hex": unit.hex}]}
    faces = " ".join(tables.FACE_SYMBOLS[r.face] for r in rolls)
    return [Event("rally", side, "BC §2.4 card 14",
                  f"Rally {unit.id}: {n} dice {faces} -> {back} figure{'s' if back != 1 else ''} back "
                  f"({before}->{unit.figures}); it may battle but not move",
                  base=n, dice=rolls, table="one die per card in hand", row=f"{n} cards",
                  outcome={"figures": unit.figures})]


def snipe(scenario: Scenario, state: BattleCryState, side: str, general: Piece, stream: DiceStream) -> list[Event]:
    """BC §2.4 card 15: any enemy General, wherever it is; one die, Crossed Sabres eliminate it
    (a flag for the card's player, BC §4.7). HERALD: 'a General' read as an enemy General."""
    from .combat import eliminate
    _expect(state, "sharp-shooter")
    if not general.is_general or general.side == side or not general.alive:
        raise Illegal(f"{general.id} is not an enemy General on the board", "BC §2.4 card 15")
    v = stream.roll(6, "sharp shooter die")
    face = tables.DIE_FACES[v]
    hit = face == "sabres"
    state.current.done.append("sharp-shooter")
    state.phase = "actions"
    state.last_action = {"items": [{"kind": "battle", "piece": None, "from": None, "to": general.hex,
                                    "hits": int(hit), "retreats": 0}]}
    text = f"Sharp Shooter at General {general.id} ({general.name or general.hex}): {tables.FACE_SYMBOLS[face]} "
    text += eliminate(state, general, side) if hit else "- missed"
    return [Event("sharp-shooter", side, "BC §2.4 card 15", text, base=1,
                  dice=[DieRoll("sharp shooter die", "battlecry-d6", v, face, "kills" if hit else "miss")],
                  outcome={"eliminated": general.id if hit else None})]


def lost_kinds(scenario: Scenario, state: BattleCryState, side: str) -> list[str]:
    """Unit types of which fewer are on the board than at the start of the scenario.

    HERALD (digest §8 item 23): 'only units present at the start of the scenario may be used as
    reinforcements' is read as: an eliminated unit of yours returns (full strength). The flag it
    gave the enemy stays captured."""
    out = []
    for kind in tables.UNIT_KINDS:
        start = sum(1 for u in scenario.units if u.side == side and u.kind == kind)
        now = sum(1 for p in state.live(side) if p.kind == kind)
        if now < start:
            out.append(kind)
    return out


def reinforce(scenario: Scenario, state: BattleCryState, side: str, stream: DiceStream) -> list[Event]:
    """BC §2.4 card 5: roll one die; its unit type arrives; Flag = any type; Sabres = none."""
    _expect(state, "call-for-reinforcements")
    if state.current.reinforcement:
        raise Illegal("the reinforcement die has been rolled; now place the unit (place <hex> [type])", "BC §2.4 card 5")
    v = stream.roll(6, "reinforcement die")
    face = tables.DIE_FACES[v]
    lost = lost_kinds(scenario, state, side)
    if face == "sabres":
        kind, effect = None, "no reinforcement"
    elif face == "flag":
        kind, effect = ("any" if lost else None), ("any type" if lost else "no unit of yours has been lost")
    else:
        kind = face if face in lost else None
        effect = f"a {face} unit" if kind else f"{face}, but no {face} unit of yours has been lost"
    state.current.reinforcement = kind
    if kind is None:
        state.current.done.append("call-for-reinforcements")
        state.phase = "actions"
    return [Event("reinforce", side, "BC §2.4 card 5",
                  f"Call for Reinforcements: {tables.FACE_SYMBOLS[face]} -> {effect}",
                  dice=[DieRoll("reinforcement die", "battlecry-d6", v, face, effect)],
                  outcome={"kind": kind})]


def place_reinforcement(scenario: Scenario, state: BattleCryState, side: str, hex_id: str,
                        kind: str | None) -> list[Event]:
    """Place the reinforcement on a lone friendly General or any empty hex of your own edge."""
    _expect(state, "call-for-reinforcements")
    rolled = state.current.reinforcement
    if not rolled:
        raise Illegal("roll for the reinforcement first (reinforce)", "BC §2.4 card 5")
    if rolled == "any":
        if kind not in lost_kinds(scenario, state, side):
            raise Illegal(f"the Flag lets you choose a type: one of {', '.join(lost_kinds(scenario, state, side))}",
                          "BC §2.4 card 5")
    else:
        if kind not in (None, rolled):
            raise Illegal(f"the die gave {rolled}, not {kind}", "BC §2.4 card 5")
        kind = rolled
    if hex_id not in scenario.grid:
        raise Illegal(f"{hex_id} is not a hex of the board", "BC §1")
    g = state.piece_at(hex_id, general=True)
    unit_there = state.piece_at(hex_id)
    ok_general = g is not None and g.side == side and unit_there is None
    ok_edge = board.on_home_edge(scenario, side, hex_id) and unit_there is None and g is None \
        and scenario.terrain.get(hex_id) != "rough"
    if not (ok_general or ok_edge):
        raise Illegal(f"{hex_id} is neither a lone General of yours nor an empty hex on your own edge",
                      "BC §2.4 card 5")
    n = sum(1 for p in state.pieces.values() if p.side == side and p.kind == kind) + 1
    pid = f"{side[0]}{kind[0]}{n}"
    while pid in state.pieces:
        n += 1
        pid = f"{side[0]}{kind[0]}{n}"
    from .state import Piece as _Piece
    full = tables.FULL_FIGURES[kind]
    state.pieces[pid] = _Piece(pid, side, kind, hex_id, full, full, "reinforcement")
    cur = state.current
    cur.ordered = [pid]
    cur.no_move.append(pid)
    cur.done.append("call-for-reinforcements")
    state.phase = "actions"
    state.last_action = {"items": [{"kind": "move", "piece": pid, "path": [hex_id]}]}
    return [Event("reinforce", side, "BC §2.4 card 5",
                  f"A {kind} reinforcement ({pid}) arrives in {hex_id}; it may battle but not move this turn",
                  outcome={"piece": pid, "hex": hex_id})]


def fieldworks_candidates(scenario: Scenario, state: BattleCryState, side: str) -> list[Piece]:
    if len(state.field_works) >= tables.FIELD_WORKS_SUPPLY:
        return []
    return [p for p in state.live(side) if p.kind in ("infantry", "artillery")
            and scenario.terrain.get(p.hex) != "river" and p.hex not in state.field_works]


def build_fieldworks(scenario: Scenario, state: BattleCryState, side: str, units: list[Piece]) -> list[Event]:
    """BC §2.4 card 6: two infantry or artillery place Field-works on their own (non-River) hexes;
    they may not move or battle. HERALD: at most the 6 markers of the box on the board."""
    _expect(state, "construct-field-works")
    if not 1 <= len(units) <= 2 or len({u.id for u in units}) != len(units):
        raise Illegal("Construct Field-Works orders two different infantry or artillery units", "BC §2.4 card 6")
    ok = {p.id for p in fieldworks_candidates(scenario, state, side)}
    for u in units:
        if u.id not in ok:
            why = ("Field-works cannot be placed on a River" if scenario.terrain.get(u.hex) == "river"
                   else "it already has Field-works" if u.hex in state.field_works
                   else "all Field-works markers are on the board" if len(state.field_works) >= tables.FIELD_WORKS_SUPPLY
                   else "only your infantry or artillery can build them")
            raise Illegal(f"{u.id}: {why}", "BC §2.3 / §2.4 card 6")
    if len(state.field_works) + len(units) > tables.FIELD_WORKS_SUPPLY:
        raise Illegal("not enough Field-works markers left", "BC §2.4 card 6 (HERALD: 6 markers)")
    cur = state.current
    for u in units:
        state.field_works[u.hex] = [side, []]
        cur.ordered.append(u.id)
        cur.no_move.append(u.id)
        cur.no_battle.append(u.id)
    cur.done.append("construct-field-works")
    state.phase = "actions"
    state.last_action = {"items": [{"kind": "fieldworks", "hex": u.hex} for u in units]}
    return [Event("fieldworks", side, "BC §2.4 card 6",
                  "Field-works built in " + ", ".join(f"{u.hex} ({u.id})" for u in units)
                  + "; these units neither move nor battle this turn",
                  outcome={"hexes": [u.hex for u in units]})]


def supply_destinations(scenario: Scenario, state: BattleCryState, unit: Piece) -> list[str]:
    """BC §2.4 card 16: empty hexes nearer the unit's own edge, in its current section.
    HERALD (digest §8 item 24): 'toward its own edge' = any empty hex in a row strictly nearer
    its own edge, within its section(s), that a unit may stand in (not Rough)."""
    here = board.rows_from_home(scenario, unit.side, unit.hex)
    secs = set(board.compass_sections(scenario, unit.hex))
    out = []
    for h in scenario.grid:
        if board.rows_from_home(scenario, unit.side, h) >= here:
            continue
        if not secs & set(board.compass_sections(scenario, h)):
            continue
        if state.piece_at(h) or scenario.terrain.get(h) == "rough":
            continue
        g = state.piece_at(h, general=True)
        if g is not None and (g.side != unit.side or state.attached_general(unit)):
            continue
        out.append(h)
    return out


def short_of_supplies(scenario: Scenario, state: BattleCryState, side: str, unit: Piece, dest: str) -> list[Event]:
    """BC §2.4 card 16: the unit (with its General) goes back toward its own edge and may not
    battle this turn. The card's player picks the unit and the hex."""
    _expect(state, "short-of-supplies")
    if unit.is_general or not unit.alive:
        raise Illegal(f"{unit.id} is not a unit on the board", "BC §2.4 card 16")
    options = supply_destinations(scenario, state, unit)
    if dest not in options:
        raise Illegal(f"{dest} is not an empty hex toward {unit.id}'s own edge in its section"
                      + (f"; choose from {', '.join(options[:12])}" if options else ""), "BC §2.4 card 16")
    g = state.attached_general(unit)
    start = unit.hex
    unit.hex = dest
    if g is not None:
        g.hex = dest
    cur = state.current
    cur.no_battle.append(unit.id)
    cur.done.append("short-of-supplies")
    state.phase = "actions"
    state.last_action = {"items": [{"kind": "retreat", "piece": unit.id, "path": [start, dest]}]}
    return [Event("supply", side, "BC §2.4 card 16",
                  f"Short of Supplies: {unit.label} falls back {start} -> {dest}"
                  + (f" with General {g.id}" if g else "") + "; it may not battle this turn",
                  outcome={"piece": unit.id, "hex": dest})]
