"""The resolution of every declared assault and charge, and the answers it waits for (JdG
Classique [8.5], with [8.2]-[8.3], [8.7]-[8.8], [9.2]-[9.5]).

Commands (the combat step of the activation, [1.D], [2.4]):
- `resolve`: resolves every declared assault (combat/assault.py) and charge (declared as cavalry
  moves, combat/charge.py), one after another in the order declared, each through the text's
  sequence (HERALD D53): refusal by cavalry [8.8] (combat/refusal.py); the engagement check of
  Without-Orders infantry [8.2]; for charges the square attempt and the recall [9.3] and the
  counter-charge [9.4]; the defending artillery's reaction fire [8.3]; the roll on the Assault &
  Charge table [8.5], [8.6] and the results [8.5], [8.9], [10] (combat/assault_table.py); the
  advance [8.7] or, for cavalry, the pursuit [9.5]; the breakthrough (10 or more) or the
  counter-assault (below 0) [8.7] (combat/advance.py); and, once every pursuit of a charge is
  over, the disorder of every cavalry unit that charged [9.2], [9.5] L670.
- `breakthrough <unit|none>`: the attacker's answer after a 10 or more [8.7] (also `react`).

Decisions owed by the other side stop the resolution in `st.pending` and resume with `react`:
"refuse_assault" [8.8], "square" [9.3], "counter_charge" [9.4], "counter_assault" [8.7]; the
attacker's own: "recall" [9.3], "breakthrough" [8.7], "pursuit" (the voluntary stop, [9.5]).
What remains to resolve lives in `st.combat` (combat/assault.py `combat_state`), so a decision
answered later picks the resolution up where it stopped.

Functions for other modules:
  resolve_all(sc, st, stream) -> [Event]           resolve them (e.g. when the step is closed)

HERALD readings (DECISIONS.md): D15 (infantry checks engagement at resolution), D16 (declared
assaults are binding), D39 (a unit attacks every enemy in its front unless a friend does), D40
(combined assault: one check, best engagement of the top units), D44 (reaction fire), D48
(advance), D49 (breakthrough, no chains), D50 (counter-assault), D51 (refusal), D53 (order of
reactions), D54-D57 (charges), D75 (the other player is asked). Ties the text leaves to the
attacker (who advances or pursues among equals) are settled by Herald in unit-id order (HERALD
D90).
"""
from __future__ import annotations

from engine.core.dice import DiceStream, run_stages
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.jdg import checks, geometry, rules
from engine.jdg.combat import results
from engine.jdg.combat.assault import (SECTION, _attackers, _cancel, combat_state, could_enter, declared,
                                       enemies_in)
from engine.jdg.combat.assault_table import _apply_effect, _stage_effects, _stage_roll
from engine.jdg.combat.results import engagement, name_of
from engine.jdg.state import JdgState

STAGES = ("start", "refuse", "check", "square", "recall", "counter_charge", "reaction_fire", "roll",
          "effects", "advance", "follow", "end")


# == resolving [8.5] ===============================================================================

def do_resolve(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`resolve`: every declared assault and charge, in turn [8.4], [8.5]."""
    rules.need_active(st, side)
    rules.enter_step(st, "combat", sc=sc)
    if not declared(st):
        raise Illegal("no assault or charge has been declared: `assault <units> on <hex>`, or a cavalry "
                      "`move <unit> <hexes> charge <hex>`", "JdG [8.2], [9.1]")
    return resolve_all(sc, st, stream)


def resolve_all(sc, st: JdgState, stream: DiceStream, staged: bool = True) -> list[Event]:
    """Resolve what is declared, until done or until a player owes a decision (st.pending).
    Every stage may be entered again after a decision: it keeps what it has done in the
    combat's record. A fall back whose owner is asked for the hex (combat/retreat.py) carries
    the continuation "jdg_combat" back here.

    The resolution runs as stages (engine.core.dice.run_stages, issue 13): each step of the
    loop below (a stage of the current combat, or one of its queued results) reads only the
    working state, where the combats' record keeps all that is left to do, so a what-if resumes
    at the step it has reached for the same dice instead of replaying the combats before it.
    Not `staged` for a caller that holds parts of the state across the call (a resumed step
    restores the working state's contents, not its parts)."""
    combat_state(st)["begun"] = True
    if staged and stream.working is st and not _TICKING[0]:
        _TICKING[0] += 1
        try:
            events = run_stages(stream, "jdg_combat", {"step": lambda n: _resolve_step(sc, st, stream, n)},
                                [("step", 0)])
        finally:
            _TICKING[0] -= 1
    else:
        events, n = [], 0
        while True:
            more, then = _resolve_step(sc, st, stream, n)
            events += more
            if not then:
                break
            n = then[0][1]
    c = combat_state(st)
    if st.pending and st.pending.get("kind") == "retreat" and "continue" not in st.pending:
        st.pending["continue"] = {"kind": "jdg_combat"}
    if not st.pending and not c["queue"] and c["current"] is None and not c.get("closing"):
        for u in st.units.values():
            u.assault = ""
    return events


_TICKING = [0]            # > 0 while resolve_all runs its stages (they are never nested)


def _resolve_step(sc, st: JdgState, stream: DiceStream, guard: int) -> tuple[list[Event], list]:
    """One step of `resolve_all`: (its events, the next step or none). `guard` counts the steps
    but the queued results (the loop's own count)."""
    if st.pending:
        return [], []
    if guard + 1 > 1000:
        raise AssertionError("the combat resolution does not end")
    c = combat_state(st)
    nxt = [("step", guard + 1)]
    if c.get("closing"):
        return _close_groups(sc, st, stream), nxt
    cur = c["current"]
    if cur is None:
        if not c["queue"]:
            return [], []
        cur = c["current"] = c["queue"].pop(0)
    stage = cur["stage"]
    if stage == "done":
        c["current"] = None
        return _finish(sc, st, cur, stream), nxt
    if stage == "effects" and cur.get("effects"):      # one queued result a step
        events = _apply_effect(sc, st, cur, cur["effects"].pop(0), stream)
        return events, ([] if st.pending else [("step", guard)])
    events = STAGE_FUNCS[stage](sc, st, cur, stream)
    if st.pending:
        return events, []
    if cur["stage"] == stage:           # the stage did its work: the next one
        i = STAGES.index(stage) + 1
        cur["stage"] = STAGES[i] if i < len(STAGES) else "done"
    return events, nxt


def _continue(sc, st: JdgState, data: dict, stream: DiceStream) -> list[Event]:
    """combat/retreat.py's continuation once a fall back the owner was asked about is over."""
    return resolve_all(sc, st, stream)


def _stage_start(sc, st, cur, stream) -> list[Event]:
    """The attackers still able to attack ([8.1] Exc. 1) and the obligation to attack every enemy
    in the front ([8.1] L473, HERALD D39), for declared infantry assaults."""
    c = combat_state(st)
    side = cur["side"]
    alive = [u for u in _attackers(st, cur) if u.condition == "good" and not u.square]
    cur["attackers"] = [u.id for u in alive]
    if not alive:
        _cancel(cur, "no attacker is able to attack")
        return [Event("assault_cancelled", side, "JdG [8.1]",
                      f"combat {cur['id']} on {', '.join(cur['targets'])}: no attacker is left in good order")]
    events = []
    if cur["origin"] in ("declared", "breakthrough"):
        others = set()
        for d in c["queue"]:
            others.update(d["targets"])
        for u in alive:
            if u.arm != "infantry":
                continue
            front = geometry.normal_front(sc, u) if geometry.six_fronts(sc, u) else geometry.frontal_hexes(sc, u)
            for h in sorted(front):
                foes = enemies_in(st, [h], side)
                if not foes or h in cur["targets"] or h in others:
                    continue
                if cur["origin"] == "declared" and all(f.id in c["assaulted"] for f in foes):
                    continue
                if not could_enter(sc, u, h):
                    continue
                cur["targets"].append(h)
                events.append(Event("assault_extended", side, "JdG [8.1]",
                                    f"{name_of(sc, u)} must also attack {h} ({', '.join(name_of(sc, f) for f in foes)}): "
                                    "an assaulting unit attacks every enemy in its frontal hexes that no friend "
                                    "attacks (HERALD D39)", outcome={"combat": cur["id"], "added": h}))
    cur["targets"] = [h for h in cur["targets"] if enemies_in(st, [h], side)]
    if not cur["targets"]:
        _cancel(cur, "no enemy left")
        return events + [Event("assault_cancelled", side, "JdG [8.1]",
                               f"combat {cur['id']}: no enemy is left in the hex attacked")]
    if cur["origin"] != "pursuit":
        for u in enemies_in(st, cur["targets"], side):
            if u.id not in c["assaulted"]:
                c["assaulted"].append(u.id)
    cur["defenders_at_start"] = {h: [u.id for u in enemies_in(st, [h], side)] for h in cur["targets"]}
    return events


# -- refusal [8.8]: combat/refusal.py ------------------------------------------------------------

def _stage_refuse(sc, st, cur, stream):
    from engine.jdg.combat import refusal
    return refusal.stage_refuse(sc, st, cur, stream)


# -- engagement check [8.2], [8.4] ------------------------------------------------------------------

def _stage_check(sc, st, cur, stream) -> list[Event]:
    """[8.2] L481-485, [8.4] L500: Without Orders, one engagement check at resolution (HERALD D15)
    for the combined assault, with the best engagement value among the top units of the attacking
    stacks (HERALD D40); a failure stops every Without-Orders unit of it; With-Orders units attack
    alone. Breakthroughs, counter-assaults and pursuits need none ([8.7] L561, [9.5] L668);
    cavalry checked before its charge move ([9.1] L599)."""
    if cur["origin"] != "declared":
        return []
    att = _attackers(st, cur)
    need = [u for u in att if u.arm == "infantry" and u.assault == "choc_test"]
    if not need:
        return []
    tops = []
    for h in sorted({u.hex for u in need}):
        stack = [u for u in st.units_at(h) if u.id in cur["attackers"] and u.arm != "artillery"]
        top = stack[0] if stack else None
        if top is not None and top in need:
            tops.append(top)
    if not tops:
        tops = need
    best = max(tops, key=lambda u: (engagement(sc, u), u.id))
    passed, ev = checks.check(stream, cur["side"], engagement(sc, best),
                              f"engagement check of {name_of(sc, best)} (Choc/Test)", "JdG [8.2], [8.4]",
                              roller=cur["side"], kind="engagement_check")
    ev.inputs = {"unit": best.id, "for": [u.id for u in need], "combat": cur["id"]}
    events = [ev]
    if not passed:
        cur["attackers"] = [a for a in cur["attackers"] if st.units[a] not in need]
        cur["check_failed"] = True
        for u in need:
            u.acted = True
        if not cur["attackers"]:
            _cancel(cur, "the engagement check failed")
            events.append(Event("assault_cancelled", cur["side"], "JdG [8.2]",
                                f"{', '.join(name_of(sc, u) for u in need)} do not assault "
                                f"{', '.join(cur['targets'])}: the engagement check failed"))
        else:
            events.append(Event("assault_reduced", cur["side"], "JdG [8.2], [8.4]",
                                f"{', '.join(name_of(sc, u) for u in need)} stay back (engagement failed); "
                                f"the units With Orders attack alone (HERALD D40)"))
    return events


# -- charge reactions (combat/charge.py) -------------------------------------------------------------

def _stage_square(sc, st, cur, stream):
    from engine.jdg.combat import charge
    return charge.stage_square(sc, st, cur, stream)


def _stage_recall(sc, st, cur, stream):
    from engine.jdg.combat import charge
    return charge.stage_recall(sc, st, cur, stream)


def _stage_counter_charge(sc, st, cur, stream):
    from engine.jdg.combat import charge
    return charge.stage_counter_charge(sc, st, cur, stream)


# -- reaction fire [8.3] ----------------------------------------------------------------------------

def _stage_reaction_fire(sc, st, cur, stream) -> list[Event]:
    """[8.3]: the defending artillery fires at one attacker in its frontal hexes, after any
    engagement check and before resolution (HERALD D44), by the defender's policy
    "reaction_fire" (fire/reaction.py); a unit it disorders does not attack (L493)."""
    from engine.jdg.fire.reaction import reaction_fire as fire, reaction_fire_options as options
    events: list[Event] = []
    for h in list(cur["targets"]):
        key = f"fire:{h}"
        if key in cur["answers"]:
            continue
        cur["answers"][key] = "done"
        att = _attackers(st, cur)
        if not att or not options(sc, st, h, att):
            continue
        events += fire(sc, st, h, att, stream, then="combat_continue", then_side=cur["side"])
        if st.pending:
            return events
    stopped = [u for u in _attackers(st, cur) if u.condition != "good"]
    gone = [a for a in cur["attackers"] if not st.units[a].alive]
    if stopped or gone:
        cur["attackers"] = [u.id for u in _attackers(st, cur) if u.condition == "good"]
        if stopped:
            events.append(Event("assault_reduced", cur["side"], "JdG [8.3]",
                                f"{', '.join(name_of(sc, u) for u in stopped)} disordered by reaction fire: "
                                "no longer attacks"))
        if not cur["attackers"]:
            _cancel(cur, "every attacker was stopped by reaction fire")
    return events


# -- advance, breakthrough, counter-assault and pursuit [8.7], [9.5]: combat/advance.py -------------

def _stage_advance(sc, st, cur, stream):
    from engine.jdg.combat import advance
    return advance.stage_advance(sc, st, cur, stream)


def _stage_follow(sc, st, cur, stream):
    from engine.jdg.combat import advance
    return advance.stage_follow(sc, st, cur, stream)


def _stage_end(sc, st, cur, stream) -> list[Event]:
    return []


def _finish(sc, st: JdgState, cur: dict, stream) -> list[Event]:
    """A combat is over. Once no combat of its charge remains (pursuits included), every cavalry
    unit that took part is disordered, besides any result ([9.2] L619, [9.5] L670, HERALD D55);
    not one whose charge was refused or recalled, which never reached the table (HERALD D51, D54)."""
    c = combat_state(st)
    g = cur.get("group")
    if not g or g not in c["groups"]:
        return []
    if any(d.get("group") == g for d in c["queue"]):
        return []
    c.setdefault("closing", []).append(g)
    return []


def _close_groups(sc, st: JdgState, stream) -> list[Event]:
    c = combat_state(st)
    events: list[Event] = []
    while c.get("closing") and not st.pending:
        g = c["closing"][0]
        members = c["groups"].get(g, [])
        if not members:
            c["closing"].pop(0)
            c["groups"].pop(g, None)
            continue
        uid = members.pop(0)
        u = st.units[uid]
        u.charge = False
        if u.alive and uid in c.get("charged", []):
            events += results.disorder(sc, st, u, stream, "JdG [9.2], [9.5]",
                                          "the end of its charge, after every pursuit (HERALD D55)")
    return events


STAGE_FUNCS = {
    "start": _stage_start, "refuse": _stage_refuse, "check": _stage_check, "square": _stage_square,
    "recall": _stage_recall, "counter_charge": _stage_counter_charge, "reaction_fire": _stage_reaction_fire,
    "roll": _stage_roll, "effects": _stage_effects, "advance": _stage_advance, "follow": _stage_follow, "end": _stage_end,
}


# == the answers [8.7], [8.8], [8.3] ================================================================

def _current_for(st: JdgState) -> dict:
    c = combat_state(st)
    cur = c["current"]
    if cur is None or st.pending is None or st.pending.get("combat") != cur["id"]:
        raise Illegal("no combat is waiting for this answer", "JdG [8]")
    return cur


def resume_simple(sc, st, side, answer, more, stream) -> list[Event]:
    """An answer that is one of the offered options (breakthrough, counter-assault, reaction
    fire, square, recall, counter-charge, pursuit)."""
    cur = _current_for(st)
    if more:
        raise Illegal(f"`react {answer}` takes nothing more", st.pending.get("section", SECTION))
    cur["answers"][st.pending["key"]] = answer
    st.pending = None
    return resolve_all(sc, st, stream)


def do_breakthrough(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`breakthrough <unit|none>` [8.7]: the attacker's answer after a 10 or more."""
    p = st.pending
    if not p or p.get("kind") != "breakthrough" or p["side"] != side:
        raise Illegal("no breakthrough is offered: it follows an assault result of 10 or more", "JdG [8.7]")
    if len(cmd.args) != 1:
        raise CannotParse("usage: breakthrough <unit|none>")
    answer = cmd.args[0].lower()
    if answer not in p["options"]:
        raise Illegal(f"answer one of: {', '.join(p['options'])}", "JdG [8.7]")
    return resume_simple(sc, st, side, answer, [], stream)


rules.register("resolve", do_resolve, "resolve: resolve the declared assaults and charges (JdG [8.5], [9.2])")
rules.register("breakthrough", do_breakthrough, "breakthrough <unit|none>: after a 10 or more (JdG [8.7])")
from engine.jdg.combat import refusal as _refusal  # noqa: E402,F401  (registers "refuse_assault")
for _kind in ("breakthrough", "counter_assault", "square", "recall", "counter_charge", "pursuit"):
    rules.register_reaction(_kind, resume_simple)
rules.register_reaction("combat_continue", lambda sc, st, side, answer, more, stream: resolve_all(sc, st, stream))
from engine.jdg.combat import retreat as _retreat  # noqa: E402
_retreat.register_continuation("jdg_combat", _continue)

from engine.jdg.combat import charge  # noqa: E402,F401  (registers `charge`)


def _resolve_first(sc, st: JdgState) -> str:
    """[8.5], HERALD D16: declared assaults and charges are binding; the step does not end before
    they are resolved."""
    if declared(st):
        return "the declared assaults and charges are binding: `resolve` them first (or `next`)"
    return ""


def _combat_step_end(sc, st: JdgState, side: str, stream) -> list[Event]:
    """`next` at the assault and charge step resolves what is declared (HERALD D16). Not in
    resumable stages: `next` (sequence/activation.py) holds the activation across this hook."""
    return resolve_all(sc, st, stream, staged=False) if declared(st) else []


rules.register_step_guard("combat", _resolve_first)
from engine.jdg.sequence import activation as _activation  # noqa: E402
_activation.on_step_end("combat", _combat_step_end)
