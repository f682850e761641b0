"""The Jours de Gloire "Classique" ruleset object the bot and the CLI talk to (issue 14).

`playable` stays False until every part of the turn is in place: the ruleset is then left out of
what players are offered (engine/core/game.py `rulesets`), while the tests reach it by id.
"""
from __future__ import annotations

from engine.core.game import register
from engine.core.ruleset_base import PackageRuleset

from engine.jdg import rules
from engine.jdg.setup import OPTIONAL_RULES, new_state
from engine.jdg.state import SIDES, JdgState
from engine.jdg.verbs import COMMANDS, POLICIES


class JdgRuleset(PackageRuleset):
    """Its public.py withholds the secret orders."""
    package = "engine.jdg"
    rules = rules
    state_class = JdgState
    queries_module = "ids"
    completions_module = "completions"
    id = "jdg"
    name = 'Jours de Gloire "Classique"'
    playable = True
    action_view = "crop"
    sides = SIDES
    commands = COMMANDS
    policies = POLICIES
    # the d10 is read 0-9 as printed, "0" is zero ([0.4], HERALD D1; checks.d10): what a club
    # enters with physical dice (bot/physical_dice.py)
    d10_reads_zero = "JdG [0.4] (DECISIONS D1)"

    def game_options(self, scenario) -> list[tuple[str, str]]:
        return list(OPTIONAL_RULES)

    def offers(self, scenario, feature: str) -> bool:
        """A verb's `when` (engine/core/verbs.py): `combined_markers` when the battle has IACs."""
        if feature == "combined_markers":
            return any(m.kind == "iac" for m in scenario.markers)
        return False

    # -- club campaigns (bot/campaigns.py) ----------------------------------------------------
    campaign_terms = {
        "score": "victory points of the campaign", "tiebreak": "VP difference", "section": "JdG [13]",
        "min_games": 1,
        "rule": "JdG [13], scored by Herald: an automatic victory (or the enemy's resignation) gives "
                "4, a win on victory points 3, a draw 2, a defeat on points 1, an automatic defeat 0; "
                "the VP difference breaks ties"}
    # HERALD: the text has no campaign rules. [13] knows two victories, the automatic one that
    # stops the game at the end of a turn and the end-of-game victory on points: the first
    # weighs more, as TACW's decisive victory does (engine/tacw/ruleset.py).

    def campaign_score(self, scenario, state: JdgState) -> dict[str, tuple[str, int, dict]]:
        """Each side's (outcome, score, detail) in a finished battle (see `campaign_terms`)."""
        from engine.jdg.sequence.victory import victory_points
        vp, _ = victory_points(scenario, state)
        winner = state.winner if state.winner in SIDES else None
        result = state.result or ""
        decisive = "resigns" in result or "wins an automatic victory" in result
        out = {}
        for side in SIDES:
            enemy = state.other(side)
            if winner is None:
                outcome, score = "draw", 2
            elif side == winner:
                outcome, score = "win", 4 if decisive else 3
            else:
                outcome, score = "loss", 0 if decisive else 1
            out[side] = (outcome, score, {"vp": vp[side], "vp_lost": vp[enemy], "tiebreak": vp[side] - vp[enemy],
                                          "result": result, "section": "JdG [13]"})
        return out

    def new_state(self, scenario, seed: int | str, options=None) -> JdgState:
        st, _ = rules.start(scenario, new_state(scenario, seed, options))
        return st

    def to_act(self, state: JdgState) -> str | None:
        if state.phase == "over":
            return None
        from engine.jdg.sequence.turn import to_act
        return to_act(state)

    def status(self, scenario, state: JdgState, viewer: str | None = None) -> str:
        from engine.jdg import ids
        return ids.status(scenario, state, viewer)



JDG = register(JdgRuleset())
