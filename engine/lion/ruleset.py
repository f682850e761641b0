"""The Lion of the North ruleset object the bot and the CLI talk to (issue 15): Herald's first
open-table ruleset (engine/core/table), with the card-driven turn [3], command points [4],
movement [5]-[6], shooting [7], melee [8]-[9], rally [10], demoralisation and victory [11], [14],
the special rules [12] and random events [15]; Breitenfeld 1631 and Lützen 1632.
"""
from __future__ import annotations

from engine.core.game import register
from engine.core.ruleset_base import PackageRuleset

from engine.lion import rules
from engine.lion.setup import OPTIONAL_RULES, new_state
from engine.lion.state import SIDES, LionState
from engine.lion.verbs import COMMANDS, POLICIES

MAX_STATUS = 1900          # a Discord message with room to spare


class LionRuleset(PackageRuleset):
    """Nothing in Lion is secret [3]: its public.py shows everyone everything."""
    package = "engine.lion"
    rules = rules
    state_class = LionState
    id = "lion"
    name = "Lion of the North"
    playable = True
    action_view = "crop"        # an action's board is cropped to it (renders/lion.py size="crop")
    sides = SIDES
    commands = COMMANDS
    policies = POLICIES

    def game_options(self, scenario) -> list[tuple[str, str]]:
        return list(OPTIONAL_RULES)

    # -- club campaigns (bot/campaigns.py) ----------------------------------------------------
    campaign_terms = {
        "score": "campaign points", "tiebreak": "weighted losses inflicted minus suffered",
        "section": "LdN [14]", "min_games": 1,
        "rule": "LdN [14], scored by Herald: a decisive victory (or the enemy's resignation) gives 4 "
                "and 0, a partial or Pyrrhic victory 3 and 1, a draw 2 each; the weighted losses "
                "inflicted minus those suffered [11 B-C] break ties"}
    # HERALD D57: the text has no campaign rules; [14 A] grades a victory by the winner's own
    # losses: the decisive one weighs more, as TACW's and JdG's do.

    def campaign_score(self, scenario, state: LionState) -> dict[str, tuple[str, int, dict]]:
        """Each side's (outcome, score, detail) in a finished battle (see `campaign_terms`)."""
        from engine.lion.checks import weighted_losses
        lost = {side: weighted_losses(scenario, state, side)["victory"] for side in SIDES}
        winner = state.winner if state.winner in SIDES else None
        result = state.result or ""
        decisive = "resigns" in result or "decisive victory" in result
        out = {}
        for side in SIDES:
            enemy = state.other(side)
            if winner is None:
                outcome, score = "draw", 2
            elif side == winner:
                outcome, score = "win", 4 if decisive else 3
            else:
                outcome, score = "loss", 0 if decisive else 1
            out[side] = (outcome, score, {"inflicted": lost[enemy], "suffered": lost[side],
                                          "tiebreak": lost[enemy] - lost[side], "result": result,
                                          "section": "LdN [14]"})
        return out

    def new_state(self, scenario, seed: int | str, options=None) -> LionState:
        st, _ = rules.start(scenario, new_state(scenario, seed, options))
        return st

    def to_act(self, state: LionState) -> str | None:
        """Who must act: the side a decision waits for, else the current card's owner (the other
        player during a move card's contact fire [7 D])."""
        if state.phase == "over":
            return None
        if state.pending:
            return state.pending["side"]
        owner = rules.card_owner(state)
        if state.step == "contact_fire" and owner:
            return state.other(owner)
        return owner or rules.side_of_letter(state, "A")

    def status(self, scenario, state: LionState, viewer: str | None = None) -> str:
        return status_text(scenario, state)



def weather_text(state: LionState) -> str:
    """[15] what is in force: visibility, rain and its turns, the sunset's turns left."""
    w = state.weather
    bits = []
    if w.get("visibility"):
        bits.append("limited visibility (short-range fire only, -1 Cpts)")
    if w.get("rain"):
        left = w.get("rain_turns", 0)
        bits.append(f"{w['rain']} rain ({'this turn' if left <= 1 else 'this turn and the next'})")
    if "sunset_turns" in w:
        last = state.turn + w["sunset_turns"] - 1
        bits.append(f"sunset: the battle ends after turn {last}")
    return ", ".join(bits) or "clear"


def status_text(sc, state: LionState) -> str:
    """The status line: turn, card, cards drawn, who acts with which command, Cpts left, the
    weather, each army's weighted losses against 40% and 60% [11], [14]."""
    from engine.lion.sequence.cards import turn_limit
    from engine.lion.sequence.victory import summary
    title = getattr(sc, "title", state.scenario_id)
    lines = [f"**{title}** · turn {state.turn}/{turn_limit(sc)} · card {len(state.drawn)} of 9"
             + (f": the {rules.card_name(state)}" if state.card else "")]
    if state.phase == "over":
        lines.append(f"The battle is over: {state.result}")
    elif state.pending:
        p = state.pending
        lines.append(f"Waiting for **{p['side'].title()}**: {p.get('prompt', p['kind'])} "
                     f"(`react {'|'.join(p.get('options', []))}`)")
    elif state.step == "act":
        owner = rules.card_owner(state)
        kind = rules.card_kind(state.card)
        doing = {"move": "moves (move, charge, about, general...)", "shoot": "shoots (shoot)",
                 "combat": "fights (fight)"}.get(kind, "acts")
        cpts = ""
        if kind == "move":
            army = state.armies[owner]
            cpts = f" · {army.cpts} of {army.cpts_rolled} Cpts left"
        lines.append(f"**{owner.title()}** {doing}; `next` ends the card{cpts}")
    elif state.step == "contact_fire":
        lines.append(f"{state.other(rules.card_owner(state)).title()}'s contact fire (LdN [7 D])")
    lines.append(f"Weather: {weather_text(state)}")
    for side in SIDES:
        army = state.armies.get(side)
        extra = ""
        if army is not None and army.surprise_march:
            extra += f" · surprise march: {army.surprise_march} unit(s)"
        lines.append(summary(sc, state, side) + extra)
    text = "\n".join(lines)
    return text if len(text) <= MAX_STATUS else text[:MAX_STATUS - 1] + "…"


LION = register(LionRuleset())
