"""Phase D bis, the reserve activation: optional rule 1 [II.1] L822-838 (game option
`reserve-activation`).

L824: a new phase, D bis, comes between phases D and E. L828: each player may activate one
formation of his choice, the player with the strategic initiative first; if nobody has the
initiative there is no reserve activation. L830: a formation may so act up to three times in a
turn (its two IAs and the reserve). The limits:
  - L832: at least one unit of the formation within the commander-in-chief's radius [2.5];
  - L834: only its units not adjacent to enemy units are activated (HERALD D65: those adjacent
    when the reserve activation begins);
  - L836: whatever its orders it acts Without Orders (half MP, engagement checks to assault and
    charge, no commander's initiative); its units cannot rally, and must check cohesion at the
    end of their movement, disordered on a failure (HERALD D65: every unit that moved, once its
    move is over; D94: a disordered unit failing is routed, the ladder of [10.1]);
  - L838: not a formation whose IA was not put in the cup this turn.

The reserve activation is an activation [1.D.3] like another (fire, movement, assaults and
charges, in that order, `next` to end each step; no rally step action); the other modules read
`Activation.reserve` through sequence/command.py (`with_orders`, `unit_with_orders`,
`in_activation`, `may_rally`).

    reserve <formation|none>          the verb (the chooser: `chooser(st)`)
    chooser(st) -> str | None         the side to choose its reserve now
    candidates(sc, st, side) -> list[(formation_id, why_not)]   "" when it may be chosen
    walk(sc, st) -> (events, wait)    the turn walk in phase D bis (turn.advance)
    after_moves(sc, st, stream)       the cohesion checks at the end of the reserve's moves
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.ids import unknown

from engine.jdg import geometry, rules, tables
from engine.jdg.sequence.command import chief, in_command_radius
from engine.jdg.setup import has_option
from engine.jdg.state import Activation, JdgState

OPTION = "reserve-activation"
SECTION = "JdG opt. [1]"


def enabled(st: JdgState) -> bool:
    return has_option(st, OPTION)


def chooser(st: JdgState) -> str | None:
    """L828: the side to choose its reserve formation now: the strategic initiative's holder
    first, then the other; None once both have chosen (or nobody has the initiative)."""
    if st.phase != "reserve" or st.activation is not None or not st.initiative:
        return None
    for side in (st.initiative, st.other(st.initiative)):
        if side not in st.reserve_done:
            return side
    return None


def _ia_in_cup_this_turn(st: JdgState, fid: str) -> bool:
    """L838: an IA of the formation was put in the cup this turn (drawn, set aside unused, taken
    out by "Zach", or picked with the strategic initiative: they are all set aside now)."""
    return any(st.markers[m].kind == "ia" and st.markers[m].formation == fid for m in st.set_aside)


def free_units(sc, st: JdgState, fid: str) -> list[str]:
    """L834: the formation's units on the map not adjacent to an enemy unit."""
    return [u.id for u in st.formation_units(fid) if u.hex and not geometry.adjacent_enemies(sc, st, u)]


def why_not(sc, st: JdgState, side: str, fid: str) -> str:
    """Why `side` may not activate `fid` in reserve now, or ""."""
    f = st.formations[fid]
    name = sc.formation(fid).name
    if f.side != side:
        return f"{fid} ({name}) is not your formation"
    if not st.formation_units(fid):
        return f"{name} has no unit on the map"
    if not _ia_in_cup_this_turn(st, fid):
        return f"no IA of {name} was put in the cup this turn (L838)"
    top = tables.RULE_NUMBERS["activations_max_with_reserve"][0]
    if f.activations >= top:
        return f"{name} has already been activated {f.activations} times this turn (at most {top}, L830)"
    if not in_command_radius(sc, st, fid):
        ch = chief(sc, st, side)
        return f"no unit of {name} is within {ch.name}'s command radius of {ch.command_radius} hexes (L832)"
    if not free_units(sc, st, fid):
        return f"every unit of {name} is adjacent to an enemy unit: none may be activated (L834)"
    return ""


def candidates(sc, st: JdgState, side: str) -> list[tuple[str, str]]:
    """Each formation of `side` with the reason it may not be the reserve ("" when it may)."""
    return [(f.id, why_not(sc, st, side, f.id)) for f in sc.formations_of(side)]


def start_reserve(sc, st: JdgState, side: str, fid: str) -> list[Event]:
    """L830-836: the formation activated in phase D bis, Without Orders, its units not adjacent
    to an enemy only; the activation begins at the fire step (no commander's initiative)."""
    from engine.jdg.sequence.activation import reveal
    events = reveal(sc, st, fid, "activated in reserve, phase D bis")
    units = free_units(sc, st, fid)
    left = [u.id for u in st.formation_units(fid) if u.id not in units]
    st.activation = Activation(marker=f"reserve-{fid}", side=side, formations=[fid], step="fire",
                               with_orders=False, reserve=True,
                               reserve_units={u: st.units[u].hex for u in units})
    text = (f"{side.title()} activates {sc.formation(fid).name} in reserve (phase D bis): Without Orders, "
            "no rally, each unit that moves checks cohesion at the end of its move")
    if left:
        text += "; next to the enemy, not activated: " + ", ".join(f"{sc.unit(u).name} `{u}`" for u in left)
    events.insert(0, Event("reserve_activation", side, SECTION, text,
                           outcome={"formation": fid, "units": units, "not_activated": left}))
    return events


def do_reserve(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`reserve <formation|none>` [II.1] L828: the side to choose activates one formation in
    phase D bis, or none."""
    if not enabled(st):
        raise Illegal("this game is played without the reserve activation (optional rule 1: choose "
                      "`reserve-activation` when the game is created)", SECTION)
    if st.phase != "reserve":
        raise Illegal(f"the reserve is activated in phase D bis, after the last draw from the cup "
                      f"(now: phase {st.phase})", SECTION)
    rules.need_no_pending(st, side)
    if st.activation is not None:
        raise Illegal(f"{', '.join(st.activation.formations)} is still active in reserve: end it first (`next`)",
                      SECTION)
    who = chooser(st)
    if who != side:
        raise Illegal(f"{(who or 'nobody').title()} chooses a reserve formation now (the side with the "
                      "strategic initiative first, L828)", SECTION)
    if not cmd.args:
        raise CannotParse("usage: reserve <formation> (or none)")
    word = cmd.args[0].lower()
    if word == "none":
        st.reserve_done.append(side)
        return [Event("reserve_declined", side, SECTION, f"{side.title()} activates no reserve formation")]
    mine = [f.id for f in sc.formations_of(side)]
    if word not in st.formations:
        pairs = [(f.id, f.name) for f in sc.formations_of(side)]
        raise Illegal(unknown(word, "one of your formations (or none)", pairs, query="formations"), SECTION)
    reason = why_not(sc, st, side, word)
    if reason:
        raise Illegal(reason, SECTION if word in mine else "JdG [0.3]")
    st.reserve_done.append(side)
    return start_reserve(sc, st, side, word)


def walk(sc, st: JdgState) -> tuple[list[Event], bool]:
    """The turn walk in phase D bis: no reserve without a strategic initiative (L828); a side with
    no formation to choose passes by itself; (events, True) while a side is to choose or a reserve
    activation is under way; at the end, phase E."""
    events: list[Event] = []
    if st.activation is not None:
        return events, True
    if not st.initiative:
        events.append(Event("reserve_none", "both", SECTION, "Phase D bis: nobody has the strategic initiative, "
                            "so no reserve activation"))
    else:
        while (side := chooser(st)) is not None:
            if any(not why for _, why in candidates(sc, st, side)):
                if not st.reserve_done:
                    events.append(Event("phase", "both", f"JdG [1] D bis, {SECTION}",
                                        f"Turn {st.turn}, phase D bis: reserve activations, {side.title()} first"))
                return events, True
            st.reserve_done.append(side)
            events.append(Event("reserve_declined", side, SECTION,
                                f"{side.title()} has no formation that may be activated in reserve"))
    st.reserve_done = []
    st.phase = "rout"
    return events, False


def after_moves(sc, st: JdgState, stream: DiceStream) -> list[Event]:
    """L836 (HERALD D65, D94): each unit of a reserve activation that moved checks cohesion once
    its move is over (a command done, no decision owed); a failure disorders it ([10.1])."""
    act = st.activation
    if act is None or not act.reserve or st.pending:
        return []
    from engine.jdg.combat import results
    events: list[Event] = []
    for uid in list(act.moved):
        u = st.units.get(uid)
        if uid in act.reserve_checked or u is None:
            continue
        if u.hex == act.reserve_units.get(uid) and not act.mp_used.get(uid):
            continue                    # it did not move (a refused charge, a move that only turns)
        act.reserve_checked.append(uid)
        if not u.alive or u.condition == "routed":
            continue
        passed, evs = results.cohesion_check(sc, st, u, stream, "end-of-move cohesion check (reserve)",
                                             f"{SECTION}; HERALD D65")
        events += evs
        if not passed:
            events += results.disorder(sc, st, u, stream, SECTION, "failed its cohesion check at the end "
                                       "of its move in reserve (phase D bis)")
    return events


rules.register("reserve", do_reserve,
               "reserve <formation|none>: phase D bis, activate one formation in reserve (JdG opt. [1])")
