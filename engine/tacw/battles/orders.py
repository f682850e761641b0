"""The battles' special rules that players order (TACW, the scenarios' special rules; data in
each file's [special] block, read by `battles/special_data.py`):

    enter <unit> [<step> ...]
        a unit waiting off the map enters at its entry hex during an activation of its own
        wing, from its entry turn on (Marston Moor, York contingent options 2 and 3: "possono
        entrare da 1031"). Entering is the unit's action: with steps it goes on at once as a
        normal move from the entry hex (the steps of `move`), without them it stays there.
    leader <ac> move|rally|reform ...
        under a command rivalry (Marston Moor special rule 1) only the Army Commander the
        activation's d10 named may act, and he rallies or reforms only units of his colour;
        `leader ac ...` names him. The command then goes on to the usual leader verbs.

HERALD readings (DECISIONS.md D120, D123):
- the entry hex costs no MP (the column arrives by the road), but it must be empty (§8) and no
  enemy unit may stand next to it (the road is cut); the unit enters with the scenario's facing;
- a unit not entered on its turn may still enter on any later turn.
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.facing import vertex_index

from engine.tacw import rules
from engine.tacw.battles import special_data as special
from engine.tacw.sequence.actions import begin_action, find_unit
from engine.tacw.movement.leaders import overrun_leaders
from engine.tacw.state import TacwState

ENTRY_SECTION = "TACW Marston Moor, York contingent (HERALD D123)"
ENTER_USAGE = ("enter <unit> [<step> ...]: a unit waiting off the map enters at its entry hex "
               "during an activation of its wing, and may move on at once (Marston Moor, York "
               "contingent options 2-3)")


def waiting_units(sc, st: TacwState, side: str | None = None) -> dict[str, special.Reinforcement]:
    """The units still off the map, with the entry each may make."""
    chosen = {k for k in st.options if not k.startswith("_")}
    _, waiting = special.setup_plan(sc, chosen)
    return {uid: rf for uid, rf in waiting.items() if uid in st.units
            and st.units[uid].status == special.WAITING and (side is None or st.units[uid].side == side)}


def do_enter(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    if not cmd.args:
        raise CannotParse("usage: " + ENTER_USAGE)
    uid = cmd.args[0].lower()
    unit = st.units.get(uid)
    if unit is None or unit.side != side:
        raise Illegal(f"'{uid}' is not one of your units")
    entries = waiting_units(sc, st, side)
    if uid not in entries:
        raise Illegal(f"{unit.name} is not waiting to enter the map"
                      + (f" (waiting: {', '.join(sorted(entries))})" if entries else ""), ENTRY_SECTION)
    rf = entries[uid]
    if st.turn < rf.turn:
        raise Illegal(f"{unit.name} may enter from turn {rf.turn}", ENTRY_SECTION)
    act = st.activation
    if act is None or act.side != side or act.wing != unit.wing:
        raise Illegal(f"{unit.name} enters during an activation of its own wing "
                      f"({st.wings[unit.wing].name})", "TACW §3.2 C, §4.2.3")
    if st.pending:
        raise Illegal(f"waiting for {st.pending['side'].title()}: {st.pending['kind']}", "TACW §3.2")
    if act.step not in ("order_change", "actions"):
        raise Illegal("units act before close combat (step C)", "TACW §3.2")
    here = st.units_at(rf.hex)
    if here:
        raise Illegal(f"{rf.hex} holds {', '.join(u.name for u in here)}: {unit.name} enters only "
                      "into an empty entry hex", "TACW §8.1")
    foes = [u for u in st.units.values() if u.alive and u.side != side
            and any(sc.grid.distance(h, rf.hex) <= 1 for h in u.hexes)]
    if foes:
        raise Illegal(f"{foes[0].name} stands next to {rf.hex}: the road is cut", ENTRY_SECTION)
    unit.status, unit.hexes, unit.facing = "active", [rf.hex], vertex_index(sc.grid, rf.facing)
    events = [Event("enter", side, ENTRY_SECTION, f"{unit.name} enters the map at {rf.hex}, facing {rf.facing}",
                    outcome={"unit": uid, "hex": rf.hex})]
    events += overrun_leaders(st, unit, rf.hex)
    if len(cmd.args) > 1:                   # the entry is the first part of its move action
        move = Command("move", (uid, *cmd.args[1:]), cmd.dice, cmd.exact_dice)
        return events + rules.HANDLERS["move"](sc, st, side, move, stream)
    begin_action(sc, st, side, uid, "move")
    st.last_action = {"items": [{"kind": "move", "piece": uid, "path": [rf.hex]}]}
    return events


_previous_leader = rules.HANDLERS.get("leader")


def do_leader(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """Marston Moor special rule 1 in front of the usual leader verbs (movement, recovery)."""
    act = st.activation
    if cmd.args and act is not None and act.side == side:
        rivalry, active = special.activated_ac(sc, st, side)
        word = cmd.args[0].lower()
        if rivalry and word == "ac":
            if active is None:
                raise Illegal("the command rivalry roll activated no Army Commander for this "
                              "activation", special.RIVALRY_SECTION)
            cmd = Command(cmd.verb, (active.id, *cmd.args[1:]), cmd.dice, cmd.exact_dice)
            word = active.id
        ld = st.leaders.get(word)
        if rivalry and ld is not None and ld.side == side and ld.role == "ac":
            unit = None
            if len(cmd.args) >= 3 and cmd.args[1] in ("rally", "reform"):
                try:
                    unit = find_unit(st, cmd.args[2])
                except Illegal:
                    unit = None                  # the verb itself refuses a missing unit
            why = special.ac_action_refusal(sc, st, ld, unit)
            if why:
                raise Illegal(why, special.RIVALRY_SECTION)
    if _previous_leader is None:
        raise CannotParse("usage: " + rules.VERBS.get("leader", "leader <id> ..."))
    return _previous_leader(sc, st, side, cmd, stream)


rules.register("enter", do_enter, ENTER_USAGE)
rules.register("leader", do_leader, rules.VERBS.get("leader", ""))
