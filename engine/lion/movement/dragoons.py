"""Dragoons mount and dismount [12 C]: the verbs `mount` and `dismount`.

[12 C] "Per far ciò le basette non devono essere a contatto con nemici e non possono muovere nel
turno. Al termine della fase di movimento la basetta di cavalleria viene rimpiazzata da una di
Dragoni smontati ... Per 'rimontare' fare il processo inverso. 'Montare' e 'smontare' non
richiede Cpts." Play by post has no end of the movement phase to wait for: the order is given on
the owner's move card, takes effect at once, costs nothing and marks the unit moved, so it moves
no more this turn (HERALD D74). The base keeps its front edge where it is: a dismounted base is
4 x 2, a mounted one 4 x 3 (HERALD D2); mounting is refused when the deeper base would lie on
another.
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.lion import rules
from engine.lion.movement import common, contact


def _change(sc, st, side: str, cmd: Command, mount: bool) -> list[Event]:
    rules.need_card(st, side, ("move",))
    verb = "mount" if mount else "dismount"
    if len(cmd.args) != 1:
        raise CannotParse(f"usage: {verb} <dragoons>")
    u = rules.unit_of(sc, st, side, cmd.args[0])
    who = common.named(sc, u.id)
    if u.type != "dragoons":
        raise Illegal(f"{who} is not a unit of dragoons: only dragoons mount and dismount", "LdN [12 C]")
    if u.mounted == mount:
        raise Illegal(f"{who} is already {'mounted' if mount else 'dismounted'}", "LdN [12 C]")
    if u.moved:
        raise Illegal(f"{who} has moved this turn: dragoons mount or dismount only in a turn they do "
                      "not move", "LdN [12 C]")
    foes = contact.enemies_touching(st, u)
    if foes:
        raise Illegal(f"{who} is in contact with {common.named(sc, foes[0].id)}: dragoons mount or "
                      "dismount only out of contact", "LdN [12 C]")
    u.mounted = mount
    if mount:
        body = common.poly_of(u)
        for o in sorted(st.units.values(), key=lambda x: x.id):
            if o.alive and o.id != u.id and body.intersection(common.poly_of(o)).area > common.EPS_AREA:
                raise Illegal(f"{who} cannot mount: the horses' base would lie on {common.named(sc, o.id)}",
                              "LdN [12 C], HERALD D74")
    u.moved = True
    st.last_action = {"kind": "status", "verb": verb, "side": side, "units": [u.id], "paths": [],
                      "from": [[u.x, u.y, u.facing]], "to": [[u.x, u.y, u.facing]], "distance": 0.0,
                      "allowance": 0.0, "contact": None}
    text = ("mount: they move 20 cm and fight d6 again" if mount
            else "dismount: they move 15 cm, shoot d8 to 15 cm, fight d4 (d6 in cover)")
    return [Event(verb, side, "LdN [12 C]", f"{who} {text} (no Cpt; they do not move this turn)",
                  outcome={"unit": u.id, "mounted": mount})]


def do_mount(sc, st, side, cmd, stream: DiceStream):
    return _change(sc, st, side, cmd, True)


def do_dismount(sc, st, side, cmd, stream: DiceStream):
    return _change(sc, st, side, cmd, False)


rules.register("mount", do_mount, "mount <dragoons>: dismounted dragoons mount, no Cpt (LdN [12 C])")
rules.register("dismount", do_dismount, "dismount <dragoons>: dragoons dismount, no Cpt (LdN [12 C])")
