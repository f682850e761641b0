"""The Italian Wars ruleset object the bot and the CLI talk to (issue 16): Herald's second
open-table ruleset (engine/core/table), measured in UDM (HERALD D1): the text's command layer
(captains' personalities, written orders and their interpretation, Ecu, activation of battles,
charge declarations, cohesion, army break) and Herald's completion of the rest (SUPPLEMENT.md).

Offered to players: the text's command layer and Herald's completion (SUPPLEMENT.md) make the whole turn.
"""
from __future__ import annotations

from engine.core.game import register
from engine.core.ruleset_base import PackageRuleset

from engine.italianwars import rules
from engine.italianwars.state import SIDES, IWState
from engine.italianwars.verbs import COMMANDS, POLICIES

MAX_STATUS = 1900          # a Discord message with room to spare


class ItalianWarsRuleset(PackageRuleset):
    """Its public.py withholds the secret orders, bribes and the deployment map until revealed."""
    package = "engine.italianwars"
    rules = rules
    state_class = IWState
    id = "italianwars"
    name = "Italian Wars"
    playable = True
    action_view = "crop"
    sides = SIDES
    commands = COMMANDS
    policies = POLICIES

    def game_options(self, scenario) -> list[tuple[str, str]]:
        from engine.italianwars import setup
        return list(getattr(setup, "OPTIONAL_RULES", ()))

    # -- club campaigns (bot/campaigns.py) ----------------------------------------------------
    campaign_terms = {
        "score": "campaign points", "tiebreak": "command points lost by the enemy minus your own",
        "section": "IW Punto di rottura dell'esercito", "min_games": 1,
        "rule": "IW Punto di rottura dell'esercito, scored by Herald (HERALD D62): breaking the enemy "
                "army (or his resignation) gives 4 and 0; a battle ended by nightfall gives 3 and 1 to "
                "the side that lost the smaller share of its strength, 2 each when equal; command "
                "points lost by the enemy minus your own break ties"}

    def campaign_score(self, scenario, state: IWState) -> dict[str, tuple[str, int, dict]]:
        """Each side's (outcome, score, detail) in a finished battle (see `campaign_terms`)."""
        from engine.italianwars.sequence.endturn import army_losses
        lost = {s: army_losses(scenario, state, s) for s in SIDES}
        winner = state.winner if state.winner in SIDES else None
        result = state.result or ""
        decisive = "resigns" in result or "broken" in result
        out = {}
        for side in SIDES:
            enemy = state.other(side)
            if winner is None:
                outcome, score = "draw", 2
            elif side == winner:
                outcome, score = "win", 4 if decisive else 3
            else:
                outcome, score = "loss", 0 if decisive else 1
            out[side] = (outcome, score, {"inflicted": lost[enemy]["lost"], "suffered": lost[side]["lost"],
                                          "tiebreak": lost[enemy]["lost"] - lost[side]["lost"], "result": result,
                                          "section": "IW Punto di rottura dell'esercito"})
        return out

    def new_state(self, scenario, seed: int | str, options=None) -> IWState:
        from engine.italianwars.setup import new_state
        st, _ = rules.start(scenario, new_state(scenario, seed, options) if options else new_state(scenario, seed))
        return st

    def to_act(self, state: IWState) -> str | None:
        """Who must act: the side a decision waits for; in a simultaneous step (written orders,
        bribes, the command phase, the deployment map) the first side not yet done; in the
        actions the active side; before the battle the side whose turn it is to place."""
        from engine.italianwars.sequence.walk import to_act
        return to_act(state)

    def status(self, scenario, state: IWState, viewer: str | None = None) -> str:
        return status_text(scenario, state, viewer)

    def option_completions(self, scenario, state: IWState, side: str | None, kind: str, prefix: str,
                           context: dict, head: str) -> list[tuple[str, str]]:
        try:
            return super().option_completions(scenario, state, side, kind, prefix, context, head)
        except Exception:           # noqa: BLE001 - a completion never breaks typing (nor a missing module)
            return []

def status_text(sc, state: IWState, viewer: str | None = None) -> str:
    """The status line: turn and hour, weather, the phase and who acts, each army's command
    points lost against half its strength; the viewer's own Ecu and sixes owed (private)."""
    from engine.italianwars.sequence.endturn import army_losses, light_of
    from engine.italianwars.sequence.walk import to_act
    title = getattr(sc, "title", state.scenario_id)
    head = f"**{title}** · turn {state.turn} · hour {state.clock} ({light_of(state.clock)})"
    if state.weather:
        head += f" · {state.weather} weather"
    if state.season:
        head += f" · {state.season}"
    lines = [head]
    if state.phase == "over":
        lines.append(f"The battle is over: {state.result}")
    elif state.pending:
        p = state.pending
        lines.append(f"Waiting for **{p['side'].title()}**: {p.get('prompt', p['kind'])} "
                     f"(`react {'|'.join(p.get('options', []))}`)")
    else:
        who = to_act(state)
        where = rules.describe_place(state.phase, state.step)
        if state.phase == "actions" and state.activation.get("battle"):
            b = state.activation["battle"]
            where += f", {rules.battle_name(sc, state, b)} at step {state.activation.get('step')}"
        lines.append(f"{where.capitalize()}" + (f": **{who.title()}** to act" if who else ""))
    if state.attacker:
        lines.append(f"Attacker: {state.attacker.title()}")
    for side in SIDES:
        if side not in state.armies:
            continue
        lost = army_losses(sc, state, side)
        army = state.armies[side]
        bit = f"{side.title()}: {lost['lost']} of {lost['strength']} command points lost (breaks above {lost['strength'] / 2:g})"
        if army.broken:
            bit += " · BROKEN"
        if viewer == side:
            bit += f" · your Ecu {army.ecu} · sixes owed {army.sixes_owed}"
        lines.append(bit)
    text = "\n".join(lines)
    return text if len(text) <= MAX_STATUS else text[:MAX_STATUS - 1] + "…"


ITALIANWARS = register(ItalianWarsRuleset())
