"""Close combat (TACW §10): who may attack (§10.1), designation, reaction attacks and the close
combat step (§10.2 A-C), each combat run as stages (engine.core.dice.run_stages). The combat up
to its formation hits (the modifiers §10.3, the Close Combat table and its results §10.2 D-E,
§10.4.1-10.4.2, artillery §10.5, light infantry §10.6) is in close_combat/resolution.py; what
follows it (cavalry pursuit §10.7, advance after combat §10.4.6, leader loss §10.8) in
close_combat/aftermath.py; retreats in close_combat/retreat.py.

Commands (step "close_combat" of the active wing's activation, after `close`):
- `attack <unit> <hex>`: the active player designates an attack by a unit of the active wing
  (several units may attack the same hex, §10.1.4); `attack none` clears the designations.
- `resolve`: the designations are final. The inactive player may then designate reaction
  attacks (§10.2 B): by policy "reaction_attack" of each unit that could attack (its own, its
  wing's or its side's, sequence/policies.py), "never" (the default) or "ask" (a pending decision
  {"kind": "reaction_attack", ...} offering the attacks of the units on "ask", answered with
  `counter <unit> <hex>`, repeatable, and `counter none`). Reaction combats are resolved first,
  then the active player's (§10.2 C), each group in hex-id order (HERALD: "along the line");
  the activation then moves to step "continuation" (`continue` / `stop`).
The designations wait in `st.pending` ({"kind": "close_combat", "side": active player}); it has
no "options", so no buttons are offered for it.

HERALD readings, beyond DECISIONS.md D25-D32:
- Several attackers (§10.1.4, §10.3.1): each modifier that depends on the attacker is taken at
  its most favourable to the defender: the lowest matrix cell among the attackers' kinds;
  momentum only if every attacker has it (and then the smaller bonus); the worst attacker
  formation; the Salvo bonus only if every attacker just fired one; the lowest terrain value
  among the defender's hexes attacked and the hexsides crossed.
- "Has just fired a Salvo" (+1): the unit has its Salvo marker (`unit.salvo_used`), belongs to
  the active wing and used its action in this activation.
- Pistols (§10.3.9): cavalry spends a shot whenever it has one, unless its policy
  "close_combat_pistols" (the unit's, its wing's or its side's) is "keep".
- A morale-Broken unit does not attack (it is in flight, back to the enemy, §10.4.1); light
  infantry stacked with cavalry does not attack (it is ignored in close combat, §8.2.1) but
  shares the cavalry's morale result, formation hit and retreat (§8.2.1).
- The defender's "may advance" follows the defending unit's policy "advance_after_combat" (its
  own, its wing's or its side's): "hold" (the default) or "advance". The attacker's "must" is
  always carried out by the attacker with the highest current morale (ties: the first
  designated); an advancing unit keeps its facing
  (the optional one-hexside turn of §10.4.7 is offered by `policy advance_choice ask`, D93).
- The advance (retreat.advance_after_combat) and pursuit trigger Reaction Fire and then Reaction
  Movement (retreat.reaction_moves: compulsory hedgehog attempts, facing reactions), not from
  the units that retreated (§10.4.9, §10.7); inside close combat a Reaction Fire or Reaction
  Movement policy "ask" is read as "auto", so that the combats resolve in order without a
  decision in the middle.
- With several routed attackers, pursuing cavalry follows the first designated one.
- Naseby's Bard brigade (D28) is the unit marked `no_hedgehog`.
- A hex holding only enemy leaders may be attacked: they are removed at once (§5.3.1).
- Disabled or captured guns are markers: they cannot be attacked and block nothing.
"""
from __future__ import annotations

from engine.core.dice import DiceStream, run_stages
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.facing import central_front_hex

from engine.tacw import rules, tables

from engine.tacw.sequence.actions import find_unit
from engine.tacw.geometry import unit_arcs
from engine.tacw.morale.checks import remove_leader
from engine.tacw.sequence.policies import policy, values_in_use
from engine.tacw.close_combat.retreat import inert, live_units_at
from engine.tacw.close_combat.resolution import _fight
from engine.tacw.close_combat.aftermath import FIGHT_STEPS
from engine.tacw.state import TacwState, Unit


# == who defends, who may attack =================================================================

def defender_in(st: TacwState, hex_id: str, side: str) -> Unit | None:
    """The enemy unit that defends a hex: artillery stacked with another unit is ignored
    (§10.5.2), so is light infantry stacked with cavalry (§8.2.1); artillery alone defends
    (and is captured, §10.5.1)."""
    foes = [u for u in live_units_at(st, hex_id) if u.side != side]
    if not foes:
        return None
    combat = sorted((u for u in foes if u.kind != "artillery"), key=lambda u: (u.kind != "cavalry", u.id))
    return combat[0] if combat else foes[0]


def check_attack(sc, st: TacwState, attacker: Unit, target_hex: str) -> Unit | None:
    """§10.1: may `attacker` assault `target_hex`? Returns the defending unit (None for a hex
    held by enemy leaders alone); raises Illegal naming the rule otherwise."""
    if not attacker.alive:
        raise Illegal(f"{attacker.called} is no longer on the field", "TACW §10.1")
    if attacker.kind == "artillery":
        raise Illegal("artillery never attacks in close combat", "TACW §10.5")
    if attacker.kind == "wagon":
        raise Illegal("wagons do not fight in close combat", "TACW §10.1 (digest G6)")
    if attacker.morale_state == "broken":
        raise Illegal(f"{attacker.called} is Broken and in flight", "TACW §10.4.1")
    if attacker.kind == "light" and any(u.kind == "cavalry" and u.side == attacker.side
                                        for u in st.units_at(attacker.hexes[0])):
        raise Illegal("light infantry stacked with cavalry is ignored in close combat", "TACW §8.2.1")
    if target_hex not in sc.grid:
        raise Illegal(f"{target_hex} is not a hex of this map")
    if target_hex not in unit_arcs(sc, attacker)["front"]:
        raise Illegal(f"{target_hex} is not one of {attacker.called}'s front hexes", "TACW §10.1.2")
    defender = defender_in(st, target_hex, attacker.side)
    leaders = [ld for ld in st.leaders_at(target_hex) if ld.side != attacker.side]
    if defender is None and not leaders:
        if any(inert(u) for u in st.units_at(target_hex)):
            raise Illegal(f"the guns in {target_hex} are already out of action", "TACW §9.9.9")
        raise Illegal(f"no enemy unit in {target_hex}", "TACW §10.1.2")
    if attacker.is_double:
        centre = central_front_hex(sc.grid, attacker.hexes, attacker.facing)
        held = defender.hexes if defender is not None else [target_hex]
        if centre not in held:
            raise Illegal(f"a double unit attacks only the unit in its central front hex ({centre})",
                          "TACW §10.1.3")
    if defender is not None and defender.kind == "wagon":
        raise Illegal("wagons have no close combat rules", "TACW (digest G6)")
    if tables.terrain_close_combat_modifier(sc.terrain_at(target_hex)) is None:
        raise Illegal(f"{target_hex} ({sc.terrain_at(target_hex)}) cannot be assaulted",
                      "TACW §10.3.1, Terrain table (D11)")
    return defender


# == one combat ==================================================================================

def fight(sc, st: TacwState, attackers: list[Unit], defender: Unit, stream: DiceStream) -> list[Event]:
    """Resolve one close combat (§10.2 D-E) of `attackers` against `defender`."""
    events, todo = _fight(sc, st, attackers, defender, stream)
    while todo:
        step, ctx = todo.pop(0)
        more, then = FIGHT_STEPS[step](sc, st, stream, ctx)
        events += more
        todo[:0] = then
    return events


def immediate_close_combat(sc, st: TacwState, attacker: Unit, defender_hex: str,
                           stream: DiceStream) -> list[Event]:
    """§7.5 (cavalry interception, step 4): one close combat resolved at once. When the
    combat is not allowed (the hex not in the attacker's front, a castle...), nothing happens
    but an event saying why: the move that called it goes on."""
    try:
        defender = check_attack(sc, st, attacker, defender_hex)
    except Illegal as exc:
        return [Event("close_combat", attacker.side, exc.section or "TACW §10.1",
                      f"{attacker.called} cannot assault {defender_hex}: {exc.reason}",
                      outcome={"unit": attacker.id, "hex": defender_hex, "refused": True})]
    if defender is None:
        return _assault_leaders(st, attacker, defender_hex)
    return fight(sc, st, [attacker], defender, stream)


def _assault_leaders(st: TacwState, attacker: Unit, hex_id: str) -> list[Event]:
    events: list[Event] = []
    for ld in st.leaders_at(hex_id):
        if ld.side != attacker.side:
            events += remove_leader(st, ld, f"assaulted alone in {hex_id} by {attacker.called}", "TACW §5.3.1")
    return events


# == designation and the close combat step (§10.1-10.2) ==========================================

def designations(st: TacwState) -> list[dict]:
    """The active player's close combat designations waiting in `st.pending` (§10.2 A)."""
    p = st.pending
    return [dict(a, attackers=list(a["attackers"])) for a in p["attacks"]] \
        if p and p.get("kind") == "close_combat" else []


def _designate(sc, st: TacwState, side: str, unit_word: str, hex_word: str, combats: list[dict],
               taken: set[str]) -> tuple[Unit, Unit | None]:
    unit = find_unit(st, unit_word, side)
    if unit.side != side:
        raise Illegal(f"{unit.called} is not yours", "TACW §10.1.2")
    if unit.id in taken:
        raise Illegal(f"{unit.called} already attacks this activation: one hex per unit", "TACW §10.1.4")
    defender = check_attack(sc, st, unit, hex_word)
    key = defender.id if defender is not None else f"leaders@{hex_word}"
    for c in combats:
        if c["defender"] == key:
            c["attackers"].append(unit.id)
            break
    else:
        combats.append({"defender": key, "hex": hex_word, "side": side, "attackers": [unit.id]})
    return unit, defender


def do_attack(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("only the active wing's units attack now; answer reaction attacks with `counter`",
                      "TACW §10.1.2")
    if st.pending and st.pending.get("kind") != "close_combat":
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step != "close_combat":
        raise Illegal("close combat comes after all other actions: use `close` first", "TACW §10.1.1")
    if cmd.args[:1] == ("none",):
        st.pending = None
        return [Event("designate", side, "TACW §10.2 A", "All close combat designations are withdrawn")]
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + rules.VERBS["attack"])
    combats = designations(st)
    taken = {i for c in combats for i in c["attackers"]}
    unit, defender = _designate(sc, st, side, cmd.args[0], cmd.args[1], combats, taken)
    if unit.wing != act.wing:
        raise Illegal(f"{unit.called} is not in the active wing", "TACW §10.1.2")
    st.pending = {"kind": "close_combat", "side": side, "wing": act.wing, "attacks": combats}
    what = defender.name if defender is not None else "the leaders"
    return [Event("designate", side, "TACW §10.2 A", f"{unit.called} will assault {what} in {cmd.args[1]}",
                  outcome={"unit": unit.id, "hex": cmd.args[1]})]


def reaction_options(sc, st: TacwState, attacks: list[dict], counters: list[dict],
                     asked: bool = False) -> list[str]:
    """§10.1.2, §10.2 B: "<unit> <hex>" for every reaction attack the inactive player may
    still designate: his units not designated as defenders, against units of the active wing
    (`asked`: only those of units whose policy asks, read before their options)."""
    act = st.activation
    defenders = {c["defender"] for c in attacks}
    taken = {i for c in counters for i in c["attackers"]}
    out = []
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if not u.alive or u.side == act.side or u.id in defenders or u.id in taken:
            continue
        if asked and policy(st, u.side, "reaction_attack", unit=u.id) != "ask":
            continue
        for h in sorted(unit_arcs(sc, u)["front"]):
            try:
                d = check_attack(sc, st, u, h)
            except Illegal:
                continue
            if d is not None and d.wing == act.wing and d.side == act.side:
                out.append(f"{u.id} {h}")
    return out


def asked_reaction_options(sc, st: TacwState, attacks: list[dict], counters: list[dict]) -> list[str]:
    """The reaction attacks offered to the inactive player: those of the units whose own
    "reaction_attack" policy (the unit's, its wing's or the side's, sequence/policies.py) is "ask"."""
    inactive = st.other(st.activation.side)
    if "ask" not in values_in_use(st, inactive, "reaction_attack"):
        return []               # no unit's policy asks (the default, "never"): none is offered
    return reaction_options(sc, st, attacks, counters, asked=True)


def do_resolve(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    act = st.activation
    if act is None or act.side != side:
        raise Illegal("the active player resolves close combat", "TACW §10.2")
    if st.pending and st.pending.get("kind") != "close_combat":
        from engine.tacw.ids import waiting_note
        raise Illegal(waiting_note(st), "TACW §3.2")
    if act.step != "close_combat":
        raise Illegal("close combat comes after all other actions: use `close` first", "TACW §10.1.1")
    attacks = designations(st)
    st.pending = None
    return close_combat_step(sc, st, stream, attacks)


def close_combat_step(sc, st: TacwState, stream: DiceStream, attacks: list[dict]) -> list[Event]:
    """§10.2 B-C: offer reaction attacks (by policy), then resolve everything."""
    inactive = st.other(st.activation.side)
    options = asked_reaction_options(sc, st, attacks, [])
    if options:
        st.pending = {"kind": "reaction_attack", "side": inactive, "verb": "counter",
                      "options": options + ["none"], "attacks": attacks, "counters": []}
        return [Event("reaction_window", inactive, "TACW §10.2 B",
                      f"{inactive.title()} may designate reaction attacks: {', '.join(options)}",
                      outcome={"options": options})]
    return resolve_all(sc, st, stream, attacks, [])


def do_counter(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    pend = st.pending
    if not pend or pend.get("kind") != "reaction_attack" or pend["side"] != side:
        raise Illegal("no reaction attack decision is waiting for you", "TACW §10.2 B")
    attacks = [dict(a, attackers=list(a["attackers"])) for a in pend["attacks"]]
    counters = [dict(c, attackers=list(c["attackers"])) for c in pend["counters"]]
    if cmd.args[:1] in (("none",), ("no",)):
        return resolve_all(sc, st, stream, attacks, counters)
    if len(cmd.args) != 2:
        raise CannotParse("usage: " + rules.VERBS["counter"])
    unit = find_unit(st, cmd.args[0], side)
    taken = {i for c in counters for i in c["attackers"]}
    if f"{unit.id} {cmd.args[1]}" not in asked_reaction_options(sc, st, attacks, counters):
        if f"{unit.id} {cmd.args[1]}" in reaction_options(sc, st, attacks, counters):
            raise Illegal(f"{unit.called}'s standing policy is never to attack in reaction "
                          f"(policy counter ask for {unit.id} to offer it)", "TACW §10.2 B")
        if unit.side != side:
            raise Illegal(f"{unit.called} is not yours", "TACW §10.1.2")
        if any(c["defender"] == unit.id for c in attacks):
            raise Illegal(f"{unit.called} is designated as a defender and may not attack", "TACW §10.2 B")
        if unit.id in taken:
            raise Illegal(f"{unit.called} already attacks", "TACW §10.1.4")
        check_attack(sc, st, unit, cmd.args[1])          # raises with the rule if illegal
        raise Illegal("reaction attacks target units of the active wing", "TACW §10.1.2")
    taken = {i for c in counters for i in c["attackers"]}
    unit, defender = _designate(sc, st, side, cmd.args[0], cmd.args[1], counters, taken)
    ev = Event("designate", side, "TACW §10.2 B",
               f"{unit.called} will make a reaction attack on {defender.called} in {cmd.args[1]}",
               outcome={"unit": unit.id, "hex": cmd.args[1]})
    left = asked_reaction_options(sc, st, attacks, counters)
    if not left:
        return [ev] + resolve_all(sc, st, stream, attacks, counters)
    st.pending = dict(pend, options=left + ["none"], counters=counters)
    return [ev]


def _hex_order(c: dict) -> tuple:
    return (c["hex"], c["defender"])


def resolve_all(sc, st: TacwState, stream: DiceStream, attacks: list[dict], counters: list[dict]) -> list[Event]:
    """§10.2 C: the inactive player's reaction combats first, then the active player's, each
    along the line (HERALD: in hex-id order); then the activation moves to its continuation.
    An owner's choice inside it (a retreat hex, §10.4; an advance, §10.4.6-§10.4.8) stops the
    whole command and replays it on the answer (sequence/choices.py, HERALD D93)."""
    return _resolve_all(sc, st, stream, attacks, counters)


def _resolve_all(sc, st: TacwState, stream: DiceStream, attacks: list[dict], counters: list[dict]) -> list[Event]:
    st.pending = None
    st.last_action = {"items": []}

    def combat(c: dict) -> tuple[list[Event], list]:
        # where this combat's record begins: engine scratch (`_memo_`: never copied nor saved),
        # read by `/odds` only (engine/tacw/odds.py `state_key`: the earlier combats' records
        # are left out of its merge key)
        record = len(st.last_action["items"])
        st._memo_combat_record = (st.last_action["items"], record)
        events, todo = _resolve_designated(sc, st, c, stream)
        for _, ctx in todo:
            ctx["record"] = record
        return events, todo

    def part(f):
        def step(ctx: dict) -> tuple[list[Event], list]:
            # the mark again: a what-if resuming here works on a copy, which has no scratch
            st._memo_combat_record = (st.last_action["items"], ctx["record"])
            return f(sc, st, stream, ctx)
        return step

    steps = {"combat": combat}
    steps.update({name: part(f) for name, f in FIGHT_STEPS.items()})
    # each combat, and each part of it after its formation hits, reads the state alone (units
    # and leaders looked up by id): a what-if resumes there from the state the earlier ones
    # left for the same dice (engine/core/dice.py run_stages)
    events: list[Event] = run_stages(stream, "close combats", steps, [
        ("combat", c) for c in sorted(counters, key=_hex_order) + sorted(attacks, key=_hex_order)])
    st.activation.step = "continuation"
    wing = st.wings[st.activation.wing]
    events.append(Event("step", st.activation.side, "TACW §3.2 E",
                        f"{wing.name}: close combat over; `continue` or `stop`"))
    return events


def _resolve_designated(sc, st: TacwState, c: dict, stream: DiceStream) -> tuple[list[Event], list]:
    """One designated combat (§10.2 C), up to its formation hits; and the stages that follow."""
    hex_id = c["hex"]
    if c["defender"].startswith("leaders@"):
        att = [st.units[i] for i in c["attackers"] if st.units[i].alive]
        return (_assault_leaders(st, att[0], hex_id) if att else []), []
    defender = st.units[c["defender"]]
    fit: list[Unit] = []
    dropped: list[str] = []
    for uid in c["attackers"]:
        u = st.units[uid]
        try:
            ok = defender.alive and check_attack(sc, st, u, hex_id) is defender
        except Illegal:
            ok = False
        (fit.append(u) if ok else dropped.append(u.called))
    events = []
    if dropped:
        events.append(Event("close_combat", c["side"], "TACW §10.1",
                            f"{', '.join(dropped)} can no longer assault {hex_id}: attack cancelled"))
    if not fit:
        return events, []
    more, todo = _fight(sc, st, fit, defender, stream)
    return events + more, todo


POLICIES = {"counter": ("reaction_attack", ("never", "ask")),
            "advance": ("advance_after_combat", ("hold", "advance")),
            "pistols": ("close_combat_pistols", ("spend", "keep"))}
_policy_before = rules.HANDLERS["policy"]


def do_policy(sc, st: TacwState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`policy counter never|ask` (reaction attacks, §10.2 B), `policy advance hold|advance`
    (the defender's optional advance, §10.4.6), `policy pistols spend|keep` (§10.3.9); other
    policies go to the verb registered before."""
    if not cmd.args or cmd.args[0] not in POLICIES:
        return _policy_before(sc, st, side, cmd, stream)
    key, values = POLICIES[cmd.args[0]]
    if len(cmd.args) < 2 or cmd.args[1] not in values:
        raise CannotParse(f"usage: policy {cmd.args[0]} {'|'.join(values)}")
    st.policies.setdefault(side, {})[key] = cmd.args[1]
    return [Event("policy", side, "DESIGN pending decisions", f"{side.title()}'s {key} policy: {cmd.args[1]}")]


rules.register("policy", do_policy, rules.VERBS["policy"] + "; policy counter never|ask, policy advance "
               "hold|advance, policy pistols spend|keep (TACW §10)")
rules.register("attack", do_attack, "attack <unit> <hex> | attack none: designate a close combat "
               "(active wing, close combat step; several units may attack one hex) (TACW §10.1-10.2)")
rules.register("resolve", do_resolve, "resolve: resolve the close combats (reaction attacks first), "
               "then continue or stop (TACW §10.2)")
rules.register("counter", do_counter, "counter <unit> <hex> | counter none: designate a reaction "
               "attack on a unit of the active wing (TACW §10.2 B)")
