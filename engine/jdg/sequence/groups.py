"""Tactical groups, optional rule 2.3 [II.2.3] L840-859 (game option `tactical-groups`).

L844: the groups are fixed in phase A [1.A] for the whole turn: a group is a chain of units of one
formation, each at most 2 hexes (tables.RULE_NUMBERS "tactical_group_distance") from another unit
of the chain; a unit more than 2 hexes from every other unit of its formation is a group alone.
L846-850: each group that is to be With Orders needs its own order, within the commander-in-chief's
order potential, and a unit within his command radius [2.5]; the others are Without Orders.
L852: "gruppi tattici" replaces "formazioni" in chapter 2 for orders, the commander's initiative
included: one roll per Without-Orders group. L855-859: a unit keeps its phase-A group's status for
the whole turn, if it leaves the group or joins another, at a second activation too. HERALD D66:
the markers are still drawn per formation (one IA activates all its groups); a group's status is
secret like a formation's (D11) and revealed with the formation's first activation; D93: how the
orders name the groups, and the groups' numbering.

How a player names groups (`orders`, HERALD D93): `<formation>` gives an order to every group of
the formation (one order each); `<formation>:<n>` to its n-th group (numbered from 1 in the
scenario's order of their first unit, as the `formations` question lists them); a unit id to the
group the unit is in.

What other modules call:
    enabled(st) -> bool
    chains(sc, st, formation_id) -> list[list[str]]      the groups the units form now
    formation_groups(sc, st, formation_id) -> list[list[str]]   phase A's if fixed, else now's
    do_orders(sc, st, side, cmd, stream)                 `orders` under the option (orders.py)
    do_initiative(sc, st, side, cmd, stream)             `initiative` under the option (activation.py)
    reveal_note(sc, st, formation_id) -> str             the groups' orders when revealed [2.4]
    group_lines(sc, st, asker, formation_id) -> list[str]  for the `formations` question (ids.py)
"""
from __future__ import annotations

from engine.core.dice import DiceStream
from engine.core.errors import CannotParse, Illegal
from engine.core.events import DieRoll, Event, Modifier
from engine.core.ids import unknown

from engine.jdg import rules, tables
from engine.jdg.checks import d10
from engine.jdg.sequence.command import chief, with_orders
from engine.jdg.setup import has_option
from engine.jdg.state import JdgState

OPTION = "tactical-groups"
SECTION = "JdG opt. [2.3]"


def enabled(st: JdgState) -> bool:
    return has_option(st, OPTION)


def _scenario_order(sc) -> dict[str, int]:
    return {u.id: i for i, u in enumerate(sc.units)}


def chains(sc, st: JdgState, formation_id: str) -> list[list[str]]:
    """L844: the formation's units on the map in chains, each unit at most 2 hexes from another
    of its chain; groups and their units in the scenario's order of units (HERALD D93)."""
    order = _scenario_order(sc)
    units = sorted((u for u in st.formation_units(formation_id) if u.hex),
                   key=lambda u: order.get(u.id, len(order)))
    reach = tables.RULE_NUMBERS["tactical_group_distance"][0]
    grid = sc.map.grid
    seen: set[str] = set()
    out: list[list[str]] = []
    for start in units:
        if start.id in seen:
            continue
        chain, i = [start], 0
        seen.add(start.id)
        while i < len(chain):
            here = chain[i]
            i += 1
            for other in units:
                if other.id not in seen and grid.distance(here.hex, other.hex) <= reach:
                    seen.add(other.id)
                    chain.append(other)
        out.append(sorted((u.id for u in chain), key=lambda uid: order.get(uid, len(order))))
    return out


def formation_groups(sc, st: JdgState, formation_id: str) -> list[list[str]]:
    """The groups fixed in phase A this turn, or (phase A, orders not given yet) those the units
    form now."""
    f = st.formations[formation_id]
    if f.groups:
        return [list(g["units"]) for g in f.groups]
    return chains(sc, st, formation_id) if st.phase == "orders" else []


def _in_radius(sc, st: JdgState, side: str, unit_ids: list[str]) -> bool:
    """[2.5] L187 (HERALD D18): a unit of the group within the chief's radius, counted in hexes."""
    ch = chief(sc, st, side)
    if ch.hex is None or ch.command_radius <= 0:
        return False
    return any(st.units[u].hex and sc.map.grid.distance(ch.hex, st.units[u].hex) <= ch.command_radius
               for u in unit_ids)


def _names(sc, unit_ids: list[str]) -> str:
    return ", ".join(f"`{u}`" for u in unit_ids)


def name_groups(sc, st: JdgState, side: str, words: list[str]) -> list[tuple[str, int]]:
    """The groups `words` name (HERALD D93): a formation (all its groups), `<formation>:<n>`, or a
    unit id (its group). Returns (formation, n) pairs in the order named; Illegal otherwise."""
    mine = [f.id for f in sc.formations_of(side)]
    pairs = [(f.id, f.name) for f in sc.formations_of(side)]
    out: list[tuple[str, int]] = []
    for word in words:
        fid, _, num = word.partition(":")
        unit = st.units.get(word)
        if unit is not None and not num:
            if unit.side != side:
                raise Illegal(f"{word} is not your unit", SECTION)
            fid = unit.formation
        elif fid not in st.formations:
            raise Illegal(unknown(word, "one of your formations, <formation>:<group> or a unit id", pairs,
                                  query="formations"), SECTION)
        if fid not in mine:
            raise Illegal(f"{fid} ({sc.formation(fid).name}) is not your formation", SECTION)
        groups = formation_groups(sc, st, fid)
        if st.formations[fid].without_orders_for_good:
            raise Illegal(f"{fid} is Without Orders until the end of the battle: its army lost its "
                          "commander-in-chief", "JdG [2.5]")
        if not groups:
            raise Illegal(f"{fid} ({sc.formation(fid).name}) has no unit on the map: reinforcements "
                          "enter With Orders without an order ([5.2])", "JdG [2.3], [5.2]")
        if unit is not None and not num:
            if not unit.alive:
                raise Illegal(f"{word} is not on the map: it is in no tactical group", SECTION)
            named = [next(n for n, g in enumerate(groups, 1) if word in g)]
        elif num:
            if not num.isdigit() or not 1 <= int(num) <= len(groups):
                raise Illegal(f"{fid} has {len(groups)} tactical group(s) this turn: {fid}:1"
                              + (f" to {fid}:{len(groups)}" if len(groups) > 1 else "")
                              + " (ask `formations` for their units)", SECTION)
            named = [int(num)]
        else:
            named = list(range(1, len(groups) + 1))
        for n in named:
            if (fid, n) in out:
                raise Illegal(f"the group {fid}:{n} ({_names(sc, groups[n - 1])}) is named twice", SECTION)
            out.append((fid, n))
    return out


def check_groups(sc, st: JdgState, side: str, chosen: list[tuple[str, int]]) -> None:
    """L846-850: at most the chief's order potential, each group with a unit in his radius."""
    ch = chief(sc, st, side)
    if len(chosen) > ch.order_potential:
        listed = ", ".join(f"{f}:{n}" for f, n in chosen)
        raise Illegal(f"{ch.name}'s order potential is {ch.order_potential}: {len(chosen)} tactical groups "
                      f"named ({listed}); each group needs its own order, the others are Without Orders",
                      SECTION)
    for fid, n in chosen:
        units = formation_groups(sc, st, fid)[n - 1]
        if not _in_radius(sc, st, side, units):
            raise Illegal(f"no unit of the tactical group {fid}:{n} ({_names(sc, units)}) is within "
                          f"{ch.name}'s command radius of {ch.command_radius} hexes"
                          + (f" of {ch.hex}" if ch.hex else ""), f"{SECTION}, [2.5]")


def record_groups(sc, st: JdgState, side: str, chosen: list[tuple[str, int]]) -> None:
    """L844-848: every formation of `side` gets its groups fixed for the turn, each With Orders if
    named; the formation is With Orders (`Formation.orders`) when all its groups are."""
    for f in sc.formations_of(side):
        fs = st.formations[f.id]
        groups = chains(sc, st, f.id)
        fs.groups = [{"units": g, "orders": "with" if (f.id, n) in chosen else "without"}
                     for n, g in enumerate(groups, 1)]
        fs.orders = "with" if fs.groups and all(g["orders"] == "with" for g in fs.groups) else "without"
        fs.revealed = False
    if side not in st.orders_done:
        st.orders_done.append(side)


def do_orders(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`orders [formation | formation:n | unit ...]` [1.A], optional 2.3 L846: the tactical groups
    of `side` With Orders this turn (one order each); every other group is Without. Secret as the
    formations' orders (HERALD D11, D66)."""
    if st.phase != "orders":
        raise Illegal(f"The orders are given in phase A, at the start of the turn (now: phase {st.phase})",
                      SECTION)
    words = [w.lower() for w in cmd.args if w not in ("none", "-")]
    if len(words) != len(cmd.args) and words:
        raise CannotParse("orders: name formations, groups (<formation>:<n>) or units, or none for no orders")
    chosen = name_groups(sc, st, side, words)
    check_groups(sc, st, side, chosen)
    again = side in st.orders_done
    record_groups(sc, st, side, chosen)
    ch = chief(sc, st, side)
    keys = [f"{f}:{n}" for f, n in chosen]
    return [Event("orders", side, "JdG [1] A, opt. [2.3]",
                  f"{side.title()} {'gives its orders again' if again else 'has given its orders'} for turn "
                  f"{st.turn} (secret until each formation's first activation)",
                  inputs={"secret": {"with": sorted({f for f, _ in chosen}), "groups": keys}},
                  outcome={"secret": {f.id: st.formations[f.id].orders for f in sc.formations_of(side)},
                           "hidden": {f"{f.id}:{n}": g["orders"] for f in sc.formations_of(side)
                                      for n, g in enumerate(st.formations[f.id].groups, 1)},
                           "potential": ch.order_potential})]


def reveal_note(sc, st: JdgState, formation_id: str) -> str:
    """[2.4] L139 (HERALD D66): when the formation's orders are revealed, each of its groups'."""
    if not enabled(st):
        return ""
    groups = st.formations[formation_id].groups
    if len(groups) < 2:
        return ""
    return "; ".join(
        f"{formation_id}:{n} {'With' if g['orders'] == 'with' else 'Without'} Orders ({_names(sc, g['units'])})"
        for n, g in enumerate(groups, 1))


def _group_units_here(st: JdgState, fid: str, units: list[str]) -> list[str]:
    """The group's units that this activation activates (alive; of the IAC's arm)."""
    act = st.activation
    return [u for u in units if st.units[u].alive and (not act.arm or st.units[u].arm == act.arm)]


def do_initiative(sc, st: JdgState, side: str, cmd, stream: DiceStream) -> list[Event]:
    """`initiative` [2.4] L171-177 with optional 2.3 L852: one roll per Without-Orders tactical
    group of the activation: d10, minus the chief's modifier when a unit of the group is within
    his radius, at most the initiative on the marker: the group is With Orders for this activation;
    above it, its units may only rally (HERALD D13, D66)."""
    from engine.jdg.sequence.activation import STEP_NAMES, initiative_value
    rules.need_active(st, side)
    act = st.activation
    if act.reserve:
        raise Illegal("a formation activated in reserve (phase D bis) acts Without Orders: no commander's "
                      "initiative", "JdG opt. [1]; HERALD D65")
    todo = []
    for fid in act.formations:
        f = st.formations[fid]
        if with_orders(st, fid) or fid in act.failed or f.without_orders_for_good:
            continue
        for n, g in enumerate(f.groups, 1):
            key = f"{fid}:{n}"
            if g["orders"] != "with" and key not in act.groups_won + act.groups_failed \
                    and _group_units_here(st, fid, g["units"]):
                todo.append((fid, n, g))
    if not todo:
        raise Illegal("no Without-Orders tactical group of the active formation is left to try its "
                      "commander's initiative", SECTION)
    if act.step != "orders_check":
        raise Illegal(f"the commander's initiative is tried when the marker is drawn, before any action "
                      f"(the {STEP_NAMES[act.step]} step has begun)", "JdG [1] D.2, [2.4]")
    events = []
    ch = chief(sc, st, side)
    section = "JdG [2.4], opt. [2.3]"
    for fid, n, g in todo:
        key = f"{fid}:{n}"
        value = initiative_value(sc, st, fid)
        radius = _in_radius(sc, st, side, g["units"])
        purpose = f"commander's initiative, {sc.formation(fid).name} group {n}"
        die = d10(stream, purpose)
        passed = tables.commander_initiative(die, value, ch.modifier, radius)
        mods = [Modifier(-ch.modifier, f"{ch.name} within {ch.command_radius} hexes of a unit of the group",
                         section)] if radius and ch.modifier else []
        total = die + sum(x.value for x in mods)
        (act.groups_won if passed else act.groups_failed).append(key)
        note = "" if radius else f" (no unit of the group within {ch.name}'s radius: no modifier)"
        events.append(Event(
            "commander_initiative", side, section,
            f"{sc.formation(fid).name}, tactical group {key} ({_names(sc, g['units'])}): commander's initiative "
            f"d10 {die}{''.join(f' {x.value:+d}' for x in mods)} = {total} against {value}{note}: "
            + ("With Orders for this activation" if passed else "failed: its units may only rally"),
            base=value, modifiers=mods, dice=[DieRoll(purpose, "d10", die, effect="passed" if passed else "failed")],
            table="d10 - commander-in-chief's modifier <= initiative",
            row=tables.CHECK_SECTIONS["commander_initiative"],
            outcome={"formation": fid, "group": key, "passed": passed, "total": total}))
    for fid in act.formations:
        f = st.formations[fid]
        keys = [(f"{fid}:{n}", g) for n, g in enumerate(f.groups, 1) if _group_units_here(st, fid, g["units"])]
        if keys and all(g["orders"] == "with" or k in act.groups_won for k, g in keys):
            f.initiative_success = True
        elif keys and all(k in act.groups_failed for k, _ in keys):
            act.failed.append(fid)
    act.with_orders = all(with_orders(st, fid) for fid in act.formations)
    from engine.jdg.sequence.activation import fire_or_movement
    act.step = "rally" if all(fid in act.failed for fid in act.formations) else fire_or_movement(st)
    return events


def group_lines(sc, st: JdgState, asker: str | None, formation_id: str) -> list[str]:
    """The `formations` question (ids.py): the formation's tactical groups with their units, and
    (the asker's own, or once revealed) each group's orders; nothing for a formation in one group
    (its line says it)."""
    if not enabled(st):
        return []
    f = st.formations[formation_id]
    fixed = bool(f.groups)
    groups = formation_groups(sc, st, formation_id)
    if len(groups) < 2:
        return []
    lines = []
    for n, units in enumerate(groups, 1):
        word = ""
        if fixed:
            g = f.groups[n - 1]
            if f.side == asker or f.revealed:
                word = " · " + ("With Orders" if g["orders"] == "with" else "Without Orders")
                act = st.activation
                key = f"{formation_id}:{n}"
                if act is not None and key in act.groups_won:
                    word += " (initiative: With Orders now)"
                elif act is not None and key in act.groups_failed:
                    word += " (initiative failed: rally only)"
            else:
                word = " · orders secret"
        lines.append(f"  group `{formation_id}:{n}`: {_names(sc, units)}{word}")
    return lines
