"""The Italian Wars ruleset object the bot and the CLI talk to (issue 16): Herald's second
open-table ruleset (engine/core/table), measured in UDM (HERALD D1): the text's command layer
(captains' personalities, written orders and their interpretation, Ecu, activation of battles,
charge declarations, cohesion, army break) and Herald's completion of the rest (SUPPLEMENT.md).

Not yet offered to players (`playable = False`) until every part of the turn is in.
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.game import register
from engine.core.pending import PendingDecision, decision_of, default_answer_of
from engine.core.verbs import policy_completions

from engine.italianwars import rules
from engine.italianwars.state import SIDES, IWState
from engine.italianwars.verbs import COMMANDS, POLICIES

MAX_STATUS = 1900          # a Discord message with room to spare


class ItalianWarsRuleset:
    id = "italianwars"
    name = "Italian Wars"
    playable = False
    action_view = "crop"
    sides = SIDES
    commands = COMMANDS
    policies = POLICIES

    @property
    def max_scenario_bytes(self) -> int:
        from engine.italianwars import scenario
        return getattr(scenario, "MAX_SCENARIO_BYTES", 200_000)

    @property
    def verbs(self) -> dict[str, str]:
        rules.load_action_modules()
        return dict(rules.USAGE)

    def scenarios(self) -> list[tuple[str, str]]:
        from engine.italianwars.scenario import list_scenarios, load_scenario
        return [(sid, load_scenario(sid).title) for sid in list_scenarios()]

    def load_scenario(self, scenario_id: str):
        from engine.italianwars.scenario import load_scenario
        return load_scenario(scenario_id)

    def parse_scenario(self, text: str, source: str = "<upload>"):
        from engine.italianwars.scenario import parse_scenario
        return parse_scenario(text, source)

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

    def apply(self, scenario, state: IWState, side: str, command: Command):
        return rules.apply(scenario, state, side, command)

    def pending(self, state: IWState) -> PendingDecision | None:
        return decision_of(state.pending)

    def default_answer(self, state: IWState) -> str | None:
        return default_answer_of(state.pending)

    def to_act(self, state: IWState) -> str | None:
        """Who must act: the side a decision waits for; in a simultaneous step (written orders,
        bribes, the command phase, the deployment map) the first side not yet done; in the
        actions the active side; before the battle the side whose turn it is to place."""
        from engine.italianwars.sequence.walk import to_act
        return to_act(state)

    def state_to_dict(self, state: IWState) -> dict:
        return state.to_dict()

    def state_from_dict(self, d: dict) -> IWState:
        return IWState.from_dict(d)

    def query(self, scenario, state: IWState, side: str | None, command: Command) -> str:
        from engine.italianwars.sequence import queries
        return queries.answer(scenario, state, side, command.verb, tuple(command.args))

    def public_command(self, scenario, state: IWState, side: str | None, text: str, events):
        """One log entry as everyone sees it (engine/core/public.py): secret orders, bribes and the
        deployment map withheld until revealed."""
        from engine.italianwars import public
        return public.public_command(scenario, state, side, text, events)

    def public_state(self, scenario, state: IWState, viewer: str | None = None) -> IWState:
        from engine.italianwars import public
        return public.view(scenario, state, viewer)

    def status(self, scenario, state: IWState, viewer: str | None = None) -> str:
        return status_text(scenario, state, viewer)

    def completions(self, scenario, state: IWState, side: str | None, kind: str, prefix: str,
                    context: dict | None = None, head: str = "") -> list[tuple[str, str]]:
        prefix = (prefix or "").lower()
        mine = (state.policies or {}).get(side, {}) if side else {}
        found = policy_completions(self.policies, mine, kind, prefix, context or {})
        if found is not None:
            return found[:25]
        try:
            from engine.italianwars.sequence import completions
        except ModuleNotFoundError:
            return []
        try:
            return completions.option_completions(scenario, state, side, kind, prefix, context or {}, head)[:25]
        except Exception:           # a completion never breaks typing
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
