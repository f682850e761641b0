"""Artillery movement [6]: the verbs `pivot`, `limber` and `deploy`, and the guns' part of `move`
and `about`.

- [6 A] Regimental guns move 8 cm and may shoot in the move they moved (the shooting module reads
  it). Light and medium guns move 8 cm but shoot only deployed (piazzati); they start limbered
  or deployed and change status only once: "una volta messe in batteria non possono più essere
  mosse e viceversa". `limber` / `deploy` change it: no Cpt, the gun's move for the turn
  (HERALD D72). Guns never move into contact with the enemy, nor into woods or marsh but along a
  road (move.py).
- [6 B] Heavy guns and mortars never move; organ guns neither (troop chart, HERALD D11).
- [6 C] Every gun may turn on the spot, up to 45 degrees in a move, or about-face, for a move's
  Cpt (1, or 2 with the general away, [4 C]; HERALD D73): a pivot about its centre, the gun's
  move for the turn. A limbered gun that moves turns by a pivot before it advances (HERALD D61).
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table import moves as tmoves
from engine.core.table.geometry import base_polygon, norm_angle, rnd

from engine.lion import rules, tables
from engine.lion.movement import common, contact
from engine.lion.sequence import command

SECTION = "LdN [6]"


def gun_of(u) -> str:
    """The gun's kind: organ / regimental / light / medium / heavy / mortar."""
    return common.troop_of(u).gun


def need_gun_move(sc, st, movers, steps) -> None:
    """[6 A] what a gun may do in a `move`: turn only by pivots (checked in move.prepare)."""
    for u in movers:
        if common.arm_of(u) != "artillery":
            continue
        if any(s.kind == "about" for s in steps) and len(steps) > 1:
            raise Illegal("a gun's about-face is its whole move", "LdN [6 C]")


def turn_gun(sc, st, side: str, u, steps, stream: DiceStream, verb: str = "pivot") -> list[Event]:
    """[6 C] "Tutte le artiglierie possono ruotare sul posto al massimo di 45° per mossa o fare
    dietro front al costo di 1 cpt": a pivot about the gun's centre or an about-face, any gun,
    deployed or not; the gun's move for the turn."""
    rules.need_card(st, side, ("move",))
    who = common.named(sc, u.id)
    if u.moved:
        raise Illegal(f"{who} has already moved this turn: one move per unit", "LdN [6 C], HERALD D8")
    if u.captured_by:
        raise Illegal(f"{who} is a captured gun: captured guns never move", "LdN [9 B]")
    if not steps or any(s.kind not in ("pivot", "about") for s in steps) or len(steps) != 1:
        raise Illegal("a gun turns on the spot with one pivot (at most 45 degrees) or one about-face",
                      "LdN [6 C]")
    s = steps[0]
    if s.kind == "pivot" and s.amount > tables.ARTILLERY_PIVOT_MAX + 1e-6:
        raise Illegal(f"the pivot is {common.fmt(s.amount)} degrees, at most 45 in a move", "LdN [6 C]")
    if s.kind == "pivot" and s.amount <= 0:
        raise Illegal("a pivot of 0 degrees turns nothing", "LdN [6 C]")
    for foe in contact.enemies_touching(st, u):
        raise Illegal(f"{who} is in contact with {common.named(sc, foe.id)}: it cannot turn", "LdN [8 A], [6 C]")
    w = tmoves.walk(common.pose_of(u), common.fp_of(u), [s])
    end = base_polygon(w.end, common.fp_of(u))
    for o in sorted(st.units.values(), key=lambda x: x.id):
        if o.alive and o.id != u.id and end.intersection(common.poly_of(o)).area > common.EPS_AREA:
            raise Illegal(f"{who} would turn onto {common.named(sc, o.id)}", "LdN [6 C]")
    if st.armies[side].cpts < 1:
        raise Illegal(f"no Cpts left on this card ({st.armies[side].cpts_rolled} rolled)", "LdN [4 A]")
    cost, reason = command.move_cost(sc, st, side, [u.id])
    pay = command.spend(st, side, cost, f"turning {who}", sc=sc, unit_ids=[u.id])
    pay.narrative += f" ({reason})"
    before = (rnd(u.x), rnd(u.y), norm_angle(u.facing))
    u.x, u.y, u.facing = w.end.x, w.end.y, w.end.facing
    u.moved = True
    if s.kind == "pivot":
        u.turned = rnd((u.turned or 0.0) + s.amount)
    what = f"pivots {common.fmt(s.amount)} degrees {s.direction}" if s.kind == "pivot" else "about-faces"
    st.last_action = {"kind": "move", "verb": verb, "side": side, "units": [u.id],
                      "paths": [[(before[0], before[1]), (u.x, u.y)]], "from": [list(before)],
                      "to": [[u.x, u.y, u.facing]], "distance": 0.0, "allowance": 0.0, "contact": None}
    return [pay, Event(verb, side, "LdN [6 C]", f"{who} {what} on the spot, now facing {common.fmt(u.facing)}",
                       inputs={"unit": u.id, "step": str(s)},
                       outcome={"to": [u.x, u.y, u.facing]})]


def do_pivot(sc, st, side: str, cmd: Command, stream: DiceStream) -> list[Event]:
    """`pivot <gun> <degrees> <left|right>` [6 C]."""
    rules.need_card(st, side, ("move",))
    if len(cmd.args) != 3:
        raise CannotParse("usage: pivot <gun> <degrees> <left|right>")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    if common.arm_of(u) != "artillery":
        raise Illegal(f"{common.named(sc, u.id)} is not a gun: units wheel about a front corner "
                      "(`move <unit> wheel 30 left`)", "LdN [5 A], [6 C], HERALD D4")
    try:
        steps = tmoves.parse_steps(["pivot", cmd.args[1], cmd.args[2]])
    except ValueError as e:
        raise CannotParse(f"{e}; usage: pivot <gun> <degrees> <left|right>") from None
    return turn_gun(sc, st, side, u, steps, stream)


def _status(sc, st, side: str, cmd: Command, deploy: bool) -> list[Event]:
    """[6 A] a light or medium gun changes status once: limbered to deployed or back; no Cpt
    (the text names none), and it is the gun's move for the turn (HERALD D72)."""
    rules.need_card(st, side, ("move",))
    verb = "deploy" if deploy else "limber"
    if len(cmd.args) != 1:
        raise CannotParse(f"usage: {verb} <gun>")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    who = common.named(sc, u.id)
    if common.arm_of(u) != "artillery" or gun_of(u) not in ("light", "medium"):
        raise Illegal(f"{who} is not a light or medium gun: only they limber and deploy", "LdN [6 A]")
    if u.captured_by:
        raise Illegal(f"{who} is a captured gun: captured guns never move", "LdN [9 B]")
    if u.deployed == deploy:
        raise Illegal(f"{who} is already {'deployed' if deploy else 'limbered'}", "LdN [6 A]")
    if u.status_changed:
        raise Illegal(f"{who} has changed its status once already: never again", "LdN [6 A]")
    if u.moved:
        raise Illegal(f"{who} has moved this turn: it changes status instead of moving", "LdN [6 A], HERALD D72")
    u.deployed = deploy
    u.status_changed = True
    u.moved = True
    st.last_action = {"kind": "status", "verb": verb, "side": side, "units": [u.id], "paths": [],
                      "from": [[u.x, u.y, u.facing]], "to": [[u.x, u.y, u.facing]], "distance": 0.0,
                      "allowance": 0.0, "contact": None}
    text = ("is deployed: it may shoot but never move again" if deploy
            else "limbers: it may move but never shoot again")
    return [Event(verb, side, "LdN [6 A]", f"{who} {text} (a status changes once)",
                  outcome={"unit": u.id, "deployed": deploy})]


def do_limber(sc, st, side, cmd, stream):
    return _status(sc, st, side, cmd, False)


def do_deploy(sc, st, side, cmd, stream):
    return _status(sc, st, side, cmd, True)


rules.register("pivot", do_pivot, "pivot <gun> <degrees> <left|right>: turn a gun on the spot, at most 45 "
                                  "(LdN [6 C])")
rules.register("limber", do_limber, "limber <gun>: a deployed light or medium gun limbers, once (LdN [6 A])")
rules.register("deploy", do_deploy, "deploy <gun>: a limbered light or medium gun deploys, once (LdN [6 A])")
