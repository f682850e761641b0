"""Marston Moor, 2 July 1644: the battle's special rules (book, "MARSTON MOOR": "Regole speciali"
1-2, the "Contingente York" options 1-4 and the "Riserva (sotto il comando del Principe Rupert)";
digest §7.3, §8, G4, R23; DECISIONS.md D120-D123). The file's `[special]` block carries the data
(read by `battles/special_data.py`), its [[special_rules]] the book's words.

    1. command rivalry   the three Allied Army Commanders: a d10 at each Allied activation says
                         which one acts (`rivalry_roll`); only he moves, rallies or reforms
                         (`ac_action_refusal`, the `leader` check below), he influences only
                         units of his colour (`leader_may_influence`, `influencing_ac`), and an
                         eliminated one is replaced by his own senior WC (`senior_wc_of`), who
                         then answers to his row of the table (`acting_for`) (D120)
    2. surprise          -1 to the Allies' continuation and bypass rolls on turn 1
                         (`roll_modifiers`, the file's `[[special.roll_modifiers]]`) (D121)
    the reserve          commanded by Rupert himself, the Army Commander (`[special] ac_wings`):
                         his value counts once (`influencing_ac`), and whoever takes the army
                         commands it too (`follow_army_commander`) (D122)
    York contingent      options 1-4 as optional rules, exactly one applies (setup choice,
                         `special_data.resolve_choice` / `setup_plan`); options 2 and 3: units
                         wait off the map and `enter` at 1031 (D123)

Commands:

    enter <unit> [<step> ...]
        a unit waiting off the map enters at its entry hex during an activation of its own
        wing, from its entry turn on (York contingent options 2 and 3: "possono entrare da
        1031"). Entering is the unit's action: with steps it goes on at once as a normal move
        from the entry hex (the steps of `move`), without them it stays there.
    leader <ac> move|rally|reform ...
        under the command rivalry only the Army Commander the activation's d10 named may act,
        and he rallies or reforms only units of his colour; `leader ac ...` names him. The
        command then goes on to the usual leader verbs (`movement/move.py`: move, §5.1.2,
        §5.2.2; `morale/recovery.py`: rally and reform, §12.3).

HERALD readings (DECISIONS.md D120, D123):
- the entry hex costs no MP (the column arrives by the road), but it must be empty (§8) and no
  enemy unit may stand next to it (the road is cut); the unit enters with the scenario's facing;
- a unit not entered on its turn may still enter on any later turn.

The sequence of play calls `follow_army_commander` and `rivalry_roll` after every command
(`sequence/activation.py`), `influencing_ac` and `roll_modifiers` for its rolls; leader movement
(`movement/leaders.py`), morale checks (`morale/checks.py`) and close combat
(`close_combat/melee.py`) ask `ac_action_refusal` and `leader_may_influence`; the end of turn
(`sequence/endturn.py`) asks `senior_wc_of`. Those callers import this module inside their
functions: importing it registers `enter` and the `leader` check (see `_register`).
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.facing import vertex_index

from engine.tacw import rules
from engine.tacw.battles.special_data import WAITING, Reinforcement, setup_plan, special_of
from engine.tacw.sequence.actions import begin_action, find_unit
from engine.tacw.movement.leaders import overrun_leaders
from engine.tacw.state import TacwState

RIVALRY_SECTION = "TACW Marston Moor special rule 1"
RIVALRY_KEY = "_rivalry"          # st.options scratch: the AC activated for the current activation
ENTRY_SECTION = "TACW Marston Moor, York contingent (HERALD D123)"
ENTER_USAGE = ("enter <unit> [<step> ...]: a unit waiting off the map enters at its entry hex "
               "during an activation of its wing, and may move on at once (Marston Moor, York "
               "contingent options 2-3)")


# == special rule 1: command rivalry ===============================================================

def _current_key(st) -> list | None:
    act = st.activation
    if act is None:
        return None
    return [st.turn, act.wing, st.wings[act.wing].activations]


def activated_ac(sc, st, side: str):
    """(True, the Army Commander the rivalry roll activated for the current activation of `side`,
    None for "none" or when he is not on the field) under a command rivalry; (False, None)
    otherwise."""
    r = special_of(sc).rivalry
    if r is None or r.side != side:
        return False, None
    rec = st.options.get(RIVALRY_KEY)
    act = st.activation
    if not rec or act is None or act.side != side or rec.get("key") != _current_key(st):
        return True, None
    ld = acting_for(sc, st, rec.get("leader") or "")
    return True, (ld if ld is not None and ld.status == "active" and ld.hex else None)


def acting_for(sc, st, ac_id: str):
    """The leader who answers to the rivalry table's row for Army Commander `ac_id`: the AC
    himself, or, once he is dead, his own senior WC who has taken his place (§5.3.5, D120)."""
    ld = st.leaders.get(ac_id) if ac_id else None
    if ld is not None and ld.status == "dead":
        sub = st.leaders.get(senior_wc_of(sc, ld))
        if sub is not None and sub.role == "ac" and sub.status == "active":
            return sub
    return ld


def colour_of(sc, piece_id: str) -> str:
    r = special_of(sc).rivalry
    return r.colours.get(piece_id, "") if r is not None else ""


def senior_wc_of(sc, ac) -> str:
    """§5.3.5 (R7): the Wing Commander who takes an eliminated Army Commander's place: under a
    command rivalry, that Army Commander's own senior WC (Marston Moor: Lumsden for Leven,
    Cromwell for Manchester, T. Fairfax for F. Fairfax); otherwise the side's."""
    r = special_of(sc).rivalry
    if r is not None and r.senior_wcs and ac.id in r.senior_wcs:
        return r.senior_wcs[ac.id]
    sides = getattr(sc, "sides", None)
    return sides[ac.side].senior_wc if sides else ""


def leader_may_influence(sc, leader, unit) -> bool:
    """Marston Moor special rule 1: an Army Commander influences only units of his own colour
    (HERALD D120: counter colour, Scots green, English red). True when no rivalry applies."""
    r = special_of(sc).rivalry
    if r is None or leader.side != r.side or leader.role != "ac":
        return True
    return r.colours.get(leader.id) == r.colours.get(unit.id)


def ac_action_refusal(sc, st, leader, unit=None) -> str | None:
    """Why this Army Commander may not act now (move, rally, reform) under a command rivalry:
    only the one the roll activated acts, and only on units of his colour."""
    rivalry, ac = activated_ac(sc, st, leader.side)
    if not rivalry or leader.role != "ac":
        return None
    if ac is None:
        return (f"no Army Commander was activated for this activation (command rivalry roll): "
                f"{leader.name} may not act")
    if ac.id != leader.id:
        return f"the command rivalry roll activated {ac.name}, not {leader.name}"
    if unit is not None and not leader_may_influence(sc, leader, unit):
        return (f"{leader.name} ({colour_of(sc, leader.id)}) influences only units of his colour; "
                f"{unit.called} is {colour_of(sc, unit.id)}")
    return None


def influencing_ac(sc, st, wing, ac):
    """The Army Commander who may lend his value to `wing`'s order change, continuation or
    bypass roll (§4.3.3, §4.4.4, §5.7.3), given the one the rules would use (`ac`):
    - a wing commanded by the AC himself (ac_wings: the reserve under Rupert, D122) counts his
      value once, as its commander;
    - under a command rivalry, only the activated AC, and only for a wing whose Wing Commander
      is of his colour (HERALD D120)."""
    sp = special_of(sc)
    rivalry, active = activated_ac(sc, st, wing.side)
    if not rivalry:
        if ac is not None and wing.commander == ac.id:
            return None          # he commands this wing: his value counts once, as its commander
        return ac
    act = st.activation
    if active is None or act is None or act.wing != wing.id or wing.commander == active.id:
        return None
    same = sp.rivalry.colours.get(active.id) == sp.rivalry.colours.get(wing.commander)
    return active if same else None


def rivalry_roll(sc, st, stream) -> list[Event]:
    """Each time a wing of the rivalry's side activates (a continuation is a new activation,
    HERALD D120), one d10 on the scenario's table says which Army Commander acts."""
    r = special_of(sc).rivalry
    act = st.activation
    if r is None or act is None or act.side != r.side or st.pending or act.step != "order_change":
        return []
    key = _current_key(st)
    rec = st.options.get(RIVALRY_KEY)
    if rec and rec.get("key") == key:
        return []
    roll = stream.roll(10, "command rivalry", r.side) - 1
    row = r.row(roll)
    ld = acting_for(sc, st, row.army_commander)
    st.options[RIVALRY_KEY] = {"key": key, "leader": row.army_commander}
    wing = st.wings[act.wing]
    if ld is None:
        who = "no Army Commander acts in this activation"
    else:
        colour = r.colours.get(ld.id, "")
        instead = (f" in {st.leaders[row.army_commander].name}'s place"
                   if ld.id != row.army_commander else "")
        who = f"{ld.name} is the Army Commander who acts{instead} (he influences only {colour} units)"
        if ld.status != "active" or not ld.hex:
            who = f"{ld.name} would act, but he is not on the field: no Army Commander acts"
    return [Event("command_rivalry", act.side, RIVALRY_SECTION,
                  f"{wing.name} activates; command rivalry d10 {roll} ({row.label}): {who}",
                  dice=[DieRoll("command rivalry", "d10", roll)],
                  table="Marston Moor command rivalry", row=row.label,
                  outcome={"army_commander": row.army_commander, "roll": roll})]


def leader_order(sc, st: TacwState, side: str, cmd) -> Command:
    """Special rule 1 in front of the usual leader verbs: `leader ac ...` names the Army
    Commander the roll activated, and an AC the roll did not activate (or one rallying or
    reforming a unit not of his colour) is refused. Returns the command to carry out."""
    act = st.activation
    if cmd.args and act is not None and act.side == side:
        rivalry, active = activated_ac(sc, st, side)
        word = cmd.args[0].lower()
        if rivalry and word == "ac":
            if active is None:
                raise Illegal("the command rivalry roll activated no Army Commander for this "
                              "activation", RIVALRY_SECTION)
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
            why = ac_action_refusal(sc, st, ld, unit)
            if why:
                raise Illegal(why, RIVALRY_SECTION)
    return cmd


# == special rule 2: surprise ======================================================================

def roll_modifiers(sc, st, side: str, roll: str) -> list[Modifier]:
    """Scenario modifiers to a continuation, bypass or order change roll (Marston Moor special
    rule 2: the Allies' surprise, -1 on turn 1; low rolls succeed, so it helps them, D8)."""
    return [Modifier(m.value, m.reason, "TACW scenario special rule")
            for m in special_of(sc).roll_modifiers
            if m.side == side and st.turn in m.turns and roll in m.rolls]


# == the reserve under Prince Rupert (digest G4, HERALD D122) =====================================

def follow_army_commander(sc, st) -> list[Event]:
    """A wing commanded by the Army Commander (ac_wings) follows whoever commands the army: if
    the AC is gone and another leader has taken the army (§5.3.5), he commands the wing too."""
    out: list[Event] = []
    for wid in special_of(sc).ac_wings:
        wing = st.wings.get(wid)
        if wing is None:
            continue
        cur = st.leaders.get(wing.commander)
        if cur is not None and cur.status == "active":
            continue
        ac = st.army_commander(wing.side)
        if ac is not None and ac.id != wing.commander:
            wing.commander = ac.id
            out.append(Event("leader_replacement", wing.side, "TACW §5.3.5 (HERALD D122)",
                             f"{ac.name}, now commanding the army, commands {wing.name} too"))
    return out


# == the York contingent: `enter` (options 2 and 3, HERALD D123) ==================================

def waiting_units(sc, st: TacwState, side: str | None = None) -> dict[str, Reinforcement]:
    """The units still off the map, with the entry each may make."""
    chosen = {k for k in st.options if not k.startswith("_")}
    _, waiting = setup_plan(sc, chosen)
    return {uid: rf for uid, rf in waiting.items() if uid in st.units
            and st.units[uid].status == WAITING and (side is None or st.units[uid].side == side)}


def do_enter(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    if not cmd.args:
        raise CannotParse("usage: " + ENTER_USAGE)
    uid = cmd.args[0].lower()
    unit = st.units.get(uid)
    if unit is None or unit.side != side:
        from engine.core.ids import unknown
        waiting = waiting_units(sc, st, side)
        raise Illegal(unknown(uid, "one of your units waiting to enter",
                              [(w, st.units[w].name) for w in sorted(waiting)]), ENTRY_SECTION)
    entries = waiting_units(sc, st, side)
    if uid not in entries:
        raise Illegal(f"{unit.called} is not waiting to enter the map"
                      + (f" (waiting: {', '.join(sorted(entries))})" if entries else ""), ENTRY_SECTION)
    rf = entries[uid]
    if st.turn < rf.turn:
        raise Illegal(f"{unit.called} may enter from turn {rf.turn}", ENTRY_SECTION)
    act = st.activation
    if act is None or act.side != side or act.wing != unit.wing:
        raise Illegal(f"{unit.called} enters during an activation of its own wing "
                      f"({st.wings[unit.wing].name})", "TACW §3.2 C, §4.2.3")
    if st.pending:
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step not in ("order_change", "actions"):
        raise Illegal("units act before close combat (step C)", "TACW §3.2")
    here = st.units_at(rf.hex)
    if here:
        raise Illegal(f"{rf.hex} holds {', '.join(u.called for u in here)}: {unit.called} enters only "
                      "into an empty entry hex", "TACW §8.1")
    foes = [u for u in st.units.values() if u.alive and u.side != side
            and any(sc.grid.distance(h, rf.hex) <= 1 for h in u.hexes)]
    if foes:
        raise Illegal(f"{foes[0].called} stands next to {rf.hex}: the road is cut", ENTRY_SECTION)
    unit.status, unit.hexes, unit.facing = "active", [rf.hex], vertex_index(sc.grid, rf.facing)
    events = [Event("enter", side, ENTRY_SECTION, f"{unit.called} enters the map at {rf.hex}, facing {rf.facing}",
                    outcome={"unit": uid, "hex": rf.hex})]
    events += overrun_leaders(st, unit, rf.hex)
    if len(cmd.args) > 1:                   # the entry is the first part of its move action
        move = Command("move", (uid, *cmd.args[1:]), cmd.dice, cmd.exact_dice)
        return events + rules.HANDLERS["move"](sc, st, side, move, stream)
    begin_action(sc, st, side, uid, "move")
    st.last_action = {"items": [{"kind": "move", "piece": uid, "path": [rf.hex]}]}
    return events


# == registration ==================================================================================

_usual_leader = None              # the leader verbs this check stands in front of


def do_leader(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """Special rule 1 in front of the usual leader verbs (movement, recovery)."""
    cmd = leader_order(sc, st, side, cmd)
    if _usual_leader is None:
        raise CannotParse("usage: " + rules.VERBS.get("leader", "leader <id> ..."))
    return _usual_leader(sc, st, side, cmd, stream)


def _register() -> None:
    """`enter`, and the rivalry's check in front of the `leader` verb. The usual leader verbs are
    registered first (leader movement by `movement/move.py`, the Army Commander's rally and
    reform by `morale/recovery.py`, each keeping the one before), so that the check wraps them
    whichever module imported this one first."""
    global _usual_leader
    from engine.tacw.movement import move as _move          # noqa: F401  (registers `leader ... move`)
    from engine.tacw.morale import recovery as _recovery    # noqa: F401  (registers `leader ... rally|reform`)
    if rules.HANDLERS.get("leader") is not do_leader:
        _usual_leader = rules.HANDLERS.get("leader")
    rules.register("enter", do_enter, ENTER_USAGE)
    rules.register("leader", do_leader, rules.VERBS.get("leader", ""))


_register()
