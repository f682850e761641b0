"""The verbs of the activation's later steps, declared now so the command surface is complete
(verbs.py): `manoeuvre` (2c), `move` (2d), `limber`, `shoot` (2e), `respond` (2f), `close` (2g),
`melee` (2h). The completion's modules (movement/, combat/) register their own handlers for them,
loaded after sequence/ (rules.load_action_modules), which replace these; until then each verb is
refused with its reason."""
from __future__ import annotations

from engine.core.errors import Illegal

from engine.italianwars import rules

# every later verb is now real (movement/: manoeuvre, move, limber; combat/: shoot, respond, close,
# melee): nothing left to stand in for
LATER: dict[str, str] = {}


def not_yet(sc, st, side, cmd, stream):
    raise Illegal(f"`{cmd.verb}` is Herald's completion, not written yet: the step passes by itself",
                  LATER.get(cmd.verb, "IW Azioni"))


for _verb in LATER:
    if _verb not in rules.HANDLERS:
        rules.register(_verb, not_yet, f"{_verb}: {LATER[_verb]} (Herald's completion)")
