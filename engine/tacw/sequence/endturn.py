"""End of the turn: rout movement (§3.3, §12.4), marker removal and leader replacement
(§3.4, §5.3.3), the next turn's initiative, and the end of the battle (Victory Determination)."""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.events import DieRoll, Event

from engine.tacw.state import TacwState


def end_of_activation_phase(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    events = [Event("phase", st.phasing or "both", "TACW §3.2",
                    f"Turn {st.turn}: the Activation Phase ends")]
    st.activation = None
    st.phase = "rout"
    events += rout_phase(sc, st, stream)
    events += marker_removal(sc, st, stream)
    return events + next_turn(sc, st, stream)


def rout_phase(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """§3.3 / §12.4: every unit in morale Broken (artillery excepted) makes a rout move."""
    events: list[Event] = []
    routing = [u for u in sorted(st.units.values(), key=lambda u: u.id)
               if u.alive and u.morale_state == "broken" and u.kind != "artillery"]
    if not routing:
        return events
    from engine.tacw.close_combat.retreat import rout_move
    for u in routing:
        if u.alive:
            events += rout_move(sc, st, u, stream)
    return events


def marker_removal(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    """§3.4: A. Salvo markers off; fired artillery and Finished leaders flip back.
    B. A Leader Replacement roll for every leader removed this turn (§5.3.3)."""
    from engine.tacw import tables
    st.phase = "markers"
    for u in st.units.values():
        u.salvo_used = False
        u.fired = False
    for w in st.wings.values():
        w.done = False
        w.bypassed = False
        w.activations = 0
    events: list[Event] = []
    for ld in list(st.leaders.values()):
        ld.finished = False
        ld.no_continue = False
        if ld.status == "away" and ld.removed_turn is not None and ld.removed_turn < st.turn:
            events += _return_leader(sc, st, ld)
            continue
        if ld.status == "removed" and ld.removed_turn == st.turn:
            roll = stream.roll(10, f"leader replacement, {ld.name}", ld.side) - 1
            outcome = tables.leader_replacement(roll)
            events.append(Event("leader_replacement", ld.side, "TACW §5.3.3",
                                f"Leader Replacement for {ld.name}: {roll} -> {outcome}",
                                dice=[DieRoll("leader replacement", "d10", roll)], table="Leader Replacement table",
                                outcome={"result": outcome}))
            events += _apply_replacement(sc, st, ld, outcome)
    return events


def _apply_replacement(sc, st: TacwState, ld, outcome: str) -> list[Event]:
    """HERALD: 'returns' puts the leader back with any unit of his wing (the AC with any unit of
    his army); otherwise a WC is replaced by the scenario's named replacement or a generic
    leader of value 0 (§5.3.3; the generic value is not in the text)."""
    units = [u for u in st.units.values() if u.alive and u.side == ld.side
             and (ld.role == "ac" or u.wing == ld.wing)]
    if not units:
        ld.status = "dead"
        return []
    spot = sorted(units, key=lambda u: u.id)[0].hexes[0]
    if outcome == "returns":
        ld.status, ld.hex, ld.removed_turn = "active", spot, None
        return [Event("leader_replacement", ld.side, "TACW §5.3.3", f"{ld.name} returns at {spot}")]
    # "returns_next_turn": the replacement commands for a turn, then the original comes back
    # at the next Marker Removal phase; "eliminated": the replacement stays (VP for the leader).
    ld.status = "away" if outcome == "returns_next_turn" else "dead"
    if ld.role == "ac":
        if ld.replacement:                   # the battle names him (First Newbury: Lord Forth)
            return _named_army_commander(sc, st, ld, spot)
        return _promote_senior_wc(sc, st, ld) if ld.status == "dead" else []
    if ld.role != "wc":
        return []
    name, value, later = _named_replacement(sc, ld)
    if name:
        _new_wing_commander(st, f"{ld.id}-r", ld.side, name, value, spot, ld.wing, generic=False,
                            later=later)
    else:
        name = f"generic leader ({ld.name}'s wing)"
        _new_wing_commander(st, f"{ld.id}-r", ld.side, name, _generic_value(sc, ld.side), spot, ld.wing)
    return [Event("leader_replacement", ld.side, "TACW §5.3.3", f"{name} takes command of the wing at {spot}")]


def _named_replacement(sc, ld) -> tuple[str, int, list]:
    """The battle's named replacement of `ld`: (name, value, the rest of the book's chain). A
    replacement who falls is replaced by the next name of the chain (Marston Moor: Tillier,
    Newcastle, then Eythin; Lumsden, Crawford, Baillie, then Hamilton; D119), and after the last
    by a generic leader."""
    if not ld.replacement:
        return "", 0, []
    setup = next((x for x in getattr(sc, "leaders", []) if x.id == ld.id), None)
    value = ld.replacement_value
    if value is None:
        value = getattr(setup, "replacement_value", 0) or 0
    later = ld.later or [list(x) for x in getattr(setup, "later_replacements", ())]
    return ld.replacement, value, later


def _named_army_commander(sc, st: TacwState, ac, spot: str) -> list[Event]:
    """§5.3.5: the senior WC replaces a fallen Army Commander "a meno che che non sia indicato
    diversamente nelle regole della battaglia": a battle that names the AC's replacement (First
    Newbury: "Re Carlo I (rimpiazzo: Lord Forth)") puts him in command of the army, with any unit
    of the army (§5.3.4), and the senior WC keeps his wing (D37). On "returns next turn" he
    commands for that turn and stands down when the original comes back (`_return_leader`)."""
    from engine.tacw.state import Leader
    name, value, later = _named_replacement(sc, ac)
    new_id = f"{ac.id}-r"
    while new_id in st.leaders:
        new_id += "r"
    nxt = later[0] if later else None
    st.leaders[new_id] = Leader(new_id, ac.side, name, "ac", value, spot,
                                replacement=nxt[0] if nxt else "",
                                replacement_value=nxt[1] if nxt else None, later=[list(x) for x in later[1:]])
    when = " for a turn" if ac.status == "away" else ""
    return [Event("leader_replacement", ac.side, "TACW §5.3.5",
                  f"{name}, {ac.name}'s named replacement, takes command of the army{when} at {spot}")]


def _generic_value(sc, side: str) -> int:
    """§5.3.3: the generic leader's value is not in the text; the scenario gives it (0)."""
    side_setup = sc.sides.get(side) if hasattr(sc, "sides") else None
    return getattr(side_setup, "generic_leader_value", 0) or 0


def _new_wing_commander(st: TacwState, base_id: str, side: str, name: str, value: int, hex_id: str | None,
                        wing: str, generic: bool = True, later: list | None = None) -> None:
    """Put a replacement Wing Commander in command of `wing` (an unused id from `base_id`);
    `later`: the rest of the book's chain of named replacements, the first of which replaces him."""
    from engine.tacw.state import Leader
    new_id = base_id
    while new_id in st.leaders:
        new_id += base_id[-1]
    nxt = later[0] if later else None
    st.leaders[new_id] = Leader(new_id, side, name, "wc", value, hex_id, wing=wing, generic=generic,
                                replacement=nxt[0] if nxt else "",
                                replacement_value=nxt[1] if nxt else None,
                                later=[list(x) for x in (later or [])[1:]])
    st.wings[wing].commander = new_id


def _promote_senior_wc(sc, st: TacwState, ac) -> list[Event]:
    """§5.3.5 reads "if the WC is eliminated the most senior WC replaces him; place a generic
    leader to replace the WC". HERALD (digest §9 R7): the first "WC" is the Army Commander's slip:
    an eliminated Army Commander is replaced by the scenario's senior Wing Commander, whose wing
    gets a generic leader. While an Army Commander is only away for a turn ("returns next
    turn"), the army has none."""
    from engine.tacw.battles.marston_moor import senior_wc_of   # each AC his own senior WC
    senior_id = senior_wc_of(sc, ac)
    senior = st.leaders.get(senior_id)
    if senior is None or senior.status != "active" or senior.role != "wc":
        return [Event("leader_replacement", ac.side, "TACW §5.3.5",
                      f"{ac.name} is dead and no senior Wing Commander can take the army")]
    wing = senior.wing
    senior.role, senior.wing = "ac", None
    # his named replacement was his wing's (Edgehill: Rupert's is Maurice), not the army's
    senior.replacement, senior.replacement_value, senior.later = "", None, []
    events = [Event("leader_replacement", ac.side, "TACW §5.3.5",
                    f"{senior.name}, the senior Wing Commander, takes command of the army")]
    if wing:
        _new_wing_commander(st, f"{senior.id}-g", ac.side, f"generic leader ({senior.name}'s wing)",
                            _generic_value(sc, ac.side), senior.hex, wing)
        events.append(Event("leader_replacement", ac.side, "TACW §5.3.5",
                            f"A generic leader takes {st.wings[wing].name}"))
    return events


def _return_leader(sc, st: TacwState, ld) -> list[Event]:
    """The original leader of a 'returns next turn' result takes his wing (or army) back."""
    stand_in = st.leaders.get(st.wings[ld.wing].commander) if ld.wing else None
    if ld.role == "ac":                      # a named replacement who stood in for the AC (§5.3.5)
        stand_in = next((x for x in st.leaders.values() if x.role == "ac" and x.side == ld.side
                         and x.status == "active" and x.id.startswith(f"{ld.id}-r")), None)
    stand_in = stand_in if stand_in is not None and stand_in.id != ld.id else None
    spot = stand_in.hex if stand_in is not None and stand_in.hex else None
    if spot is None:
        mates = [u for u in st.units.values() if u.alive and u.side == ld.side
                 and (ld.role == "ac" or u.wing == ld.wing)]
        if not mates:
            ld.status = "dead"
            return []
        spot = sorted(mates, key=lambda u: u.id)[0].hexes[0]
    if stand_in is not None:                 # stood down, not killed: no VP (victory.py)
        stand_in.status, stand_in.hex = "stood_down", None
    ld.status, ld.hex, ld.removed_turn = "active", spot, None
    if ld.wing:
        st.wings[ld.wing].commander = ld.id
    return [Event("leader_replacement", ld.side, "TACW §5.3.3", f"{ld.name} returns to command at {spot}")]


def next_turn(sc, st: TacwState, stream: DiceStream) -> list[Event]:
    from engine.tacw import victory
    if st.turn >= sc.turns:
        return victory.end_of_battle(sc, st)
    st.turn += 1
    st.phase = "initiative"
    from engine.tacw.sequence.activation import advance
    return advance(sc, st, stream)
