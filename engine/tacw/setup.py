"""A new This Accursed Civil War game from a scenario: the opening TacwState.

The scenario (engine.tacw.scenario.schema) fixes the map and the order of battle; this builds what
changes during play: units at their setup hexes and facings, leaders placed (Victory
Determination, "Piazzamento dei comandanti": a leader without a fixed hex starts with a unit),
wings on their historical orders (or the orders given, for a "free orders" game), turn 1 at the
Initiative phase (§3.1), and the chosen optional rules recorded in `state.options`. A scenario
set up by areas (free setup) starts in the deployment phase instead (sequence/deployment.py).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.game import option_name
from engine.tacw.battles import special_data as special
from engine.tacw.scenario.schema import OptionalRule, Scenario, ScenarioError, load_scenario
from engine.tacw.state import ORDERS, Leader, TacwState, Unit, Wing, label_units


# Optional rules of the whole game, offered with every battle's own (`game_options`): a later
# game of the Musket & Pike series may be chosen, never the default.
SERIES_OPTIONS: tuple[OptionalRule, ...] = (
    OptionalRule("series-charge-nearest", "Later series Charge: closer to the closest unengaged enemy",
                 "The later Musket & Pike series card: a Charge unit must end at least 1 hex closer "
                 "to the closest enemy unit not already engaged (D42). This Accursed Civil War's "
                 "errata [5.6.1] say only \"closer to an enemy unit\", which is the default."),
)


def all_optional_rules(scenario: Scenario) -> list[OptionalRule]:
    """The battle's optional rules, then the game's own (SERIES_OPTIONS)."""
    own = {r.id for r in scenario.optional_rules}
    return list(scenario.optional_rules) + [r for r in SERIES_OPTIONS if r.id not in own]


def _chosen_rules(scenario: Scenario,
                  options: Mapping[str, Any] | Iterable[str] | None) -> list[OptionalRule]:
    """The scenario's optional rules switched on by `options`: a list of rule ids, or a mapping
    rule id -> truthy / falsy."""
    if options is None:
        return []
    if isinstance(options, Mapping):
        wanted = [k for k, v in options.items() if v]
    elif isinstance(options, str):
        wanted = [options]
    else:
        wanted = list(options)
    known = {r.id: r for r in all_optional_rules(scenario)}
    for rid in wanted:
        if rid not in known:
            raise ScenarioError(f"{scenario.id}: no optional rule '{option_name(rid)}' "
                                f"(known: {', '.join(map(option_name, known)) or 'none'})")
    return [r for r in all_optional_rules(scenario) if r.id in wanted]


def _wing_orders(scenario: Scenario, orders: Mapping[str, str] | None) -> dict[str, str]:
    """Each wing's starting order (§5.5): the historical one unless `orders` overrides it."""
    orders = dict(orders or {})
    known = {w.id for w in scenario.wings}
    for wid, order in orders.items():
        if wid not in known:
            raise ScenarioError(f"{scenario.id}: orders name no wing '{wid}' "
                                f"(wings: {', '.join(sorted(known))})")
        if order not in ORDERS:
            raise ScenarioError(f"{scenario.id}: order '{order}' for wing '{wid}' is not one of "
                                f"{', '.join(ORDERS)}")
    out: dict[str, str] = {}
    for w in scenario.wings:
        order = orders.get(w.id) or w.historical_order
        if not order:
            raise ScenarioError(f"{scenario.id}: wing '{w.id}' has no historical order; give "
                                "its starting order")
        out[w.id] = order
    return out


def new_state(scenario: Scenario | str, seed: int | str,
              options: Mapping[str, Any] | Iterable[str] | None = None,
              orders: Mapping[str, str] | None = None) -> TacwState:
    """The opening state of a game of `scenario` with dice `seed`.

    `options`: optional rules to play with (rule ids, or {id: bool}); each chosen rule is
    recorded as state.options[id] = {"name", and its effects: "side", "kind", "pistols",
    "fire_modifier"}. A rule with `pistols` starts the units it names with that many shots.
    `orders`: {wing id: order} overriding the historical orders (free-orders games).
    """
    if isinstance(scenario, str):
        scenario = load_scenario(scenario)
    rules = _chosen_rules(scenario, options)
    # Battle special rules (battles/special_data.py): exactly one option of a setup choice (Marston
    # Moor's York contingent, the first by default); units left out, or waiting off the map to
    # enter (D123); units in play only with their optional rule (Naseby's optional guns, D117).
    chosen, _ = special.resolve_choice(scenario, [r.id for r in rules])
    rules = [r for r in all_optional_rules(scenario) if r.id in chosen]
    absent, waiting = special.setup_plan(scenario, set(chosen))
    wing_orders = _wing_orders(scenario, orders)

    state = TacwState(scenario_id=scenario.id, seed=seed, turn=1, phase="initiative")
    for u in scenario.units:
        if u.id in absent:
            continue
        pistols, max_pistols = u.pistols, 2          # §9.8.1: two shots
        for r in rules:
            if r.pistols is not None and r.applies_to(u.side, u.kind):
                max_pistols = min(max_pistols, r.pistols)
        pistols = min(pistols, max_pistols)
        state.units[u.id] = Unit(
            id=u.id, side=u.side, wing=u.wing, kind=u.kind, name=u.name, strength=u.strength,
            morale=u.morale, hexes=list(u.hexes), facing=u.facing, light_kind=u.light_kind,
            gun_class=u.gun_class, ricochet_range=u.ricochet_range, max_range=u.max_range,
            pistols=pistols, max_pistols=max_pistols, no_hedgehog=u.no_hedgehog, salvo_allowed=u.salvo_allowed,
        )
        if u.id in waiting:                          # off the map until it enters
            state.units[u.id].status, state.units[u.id].hexes = special.WAITING, []
    for ld in scenario.leaders:
        state.leaders[ld.id] = Leader(
            id=ld.id, side=ld.side, name=ld.name, role=ld.role, value=ld.value,
            hex=scenario.leader_hex(ld), wing=ld.wing, special=ld.special,
            replacement=ld.replacement, replacement_value=ld.replacement_value,
            later=[list(x) for x in ld.later_replacements],
        )
    for w in scenario.wings:
        state.wings[w.id] = Wing(
            id=w.id, side=w.side, name=w.name, commander=w.commander, order=wing_orders[w.id],
            cavalry=w.cavalry, historical_order=w.historical_order,
        )
    for r in rules:
        effects: dict[str, Any] = {"name": r.name}
        if r.side:
            effects["side"] = r.side
        if r.kind:
            effects["kind"] = r.kind
        if r.pistols is not None:
            effects["pistols"] = r.pistols
        if r.fire_modifier:
            effects["fire_modifier"] = r.fire_modifier
        state.options[r.id] = effects
    if scenario.free_setup:                 # setup by areas: the deployment phase comes first
        from engine.tacw.sequence.deployment import begin
        begin(scenario, state)
    from engine.tacw.battles.second_newbury import setup_state      # Second Newbury: detached forces, attack axes,
    setup_state(scenario, state)                # victory hexes' first holder, the boat bridge
    label_units(state)                          # issue 12: a shared name is told apart by its id
    return state


def option_modifiers(state: TacwState, unit: Unit, effect: str) -> list[tuple[int, str]]:
    """The chosen optional rules' `effect` (e.g. "fire_modifier") for this unit, as
    (value, reason) pairs ready for an event's modifier list."""
    out: list[tuple[int, str]] = []
    for rid, eff in state.options.items():
        if not isinstance(eff, dict) or not eff.get(effect):
            continue
        if eff.get("side", unit.side) != unit.side or eff.get("kind", unit.kind) != unit.kind:
            continue
        out.append((int(eff[effect]), f"optional rule: {eff.get('name', rid)}"))
    return out
