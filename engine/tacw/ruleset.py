"""The This Accursed Civil War ruleset object the bot and the CLI talk to."""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.game import register
from engine.core.pending import Answer, PendingDecision

from engine.core.verbs import policy_completions
from engine.tacw import completions as option_completions, rules
from engine.tacw.scenario.schema import MAX_SCENARIO_BYTES, list_scenarios, load_scenario, parse_scenario
from engine.tacw.sequence.activation import ORDER_NAMES, next_to_activate
from engine.tacw.setup import new_state
from engine.tacw.state import SIDES, TacwState
from engine.tacw.verbs import COMMANDS, POLICIES


DEPLOY_KINDS = ("deploy_unit", "deploy_hex", "deploy_facing", "brigade", "pool_wing")


class TacwRuleset:
    id = "tacw"
    name = "This Accursed Civil War"
    playable = True
    action_view = "crop"     # replies to actions show the area of the action (the map is wide)
    sides = SIDES
    verbs = rules.VERBS
    commands = COMMANDS              # the command surface as data (engine/core/verbs.py)
    policies = POLICIES

    def scenarios(self) -> list[tuple[str, str]]:
        return [(sid, load_scenario(sid).title) for sid in list_scenarios()]

    def load_scenario(self, scenario_id: str):
        return load_scenario(scenario_id)

    def parse_scenario(self, text: str, source: str = "<upload>"):
        return parse_scenario(text, source)

    def new_state(self, scenario, seed: int | str, options=None) -> TacwState:
        """Setup (historical orders, the chosen optional rules) and the first Initiative Phase
        (§3.1), or the deployment phase of a battle with a free setup."""
        st, _ = rules.start(scenario, new_state(scenario, seed, options=options))
        return st

    def offers(self, scenario, feature: str) -> bool:
        """Whether the battle has the feature a verb belongs to (engine/core/verbs.py `when`): a
        special rule of that kind (First Newbury's halt, Second Newbury's boat bridge), units
        waiting to enter (Marston Moor's York contingent, `reinforcements`), or a setup by areas
        (`free_setup`: the deployment phase's deploy and assign)."""
        if feature == "reinforcements":
            from engine.tacw.battles.special_data import special_of
            return bool(special_of(scenario).reinforcements)
        if feature == "free_setup":            # a deployment phase before turn 1
            return bool(scenario.free_setup)
        return any(getattr(r, "kind", "") == feature for r in getattr(scenario, "special_rules", ()) or ())

    def game_options(self, scenario) -> list[tuple[str, str]]:
        """The scenario's optional and alternative rules (digest §8): (id, what it does)."""
        from engine.tacw.setup import all_optional_rules
        return [(r.id, r.name) for r in all_optional_rules(scenario)]

    def apply(self, scenario, state: TacwState, side: str, command: Command):
        return rules.apply(scenario, state, side, command)

    # -- club campaigns (bot/campaigns.py) ----------------------------------------------------
    max_scenario_bytes = MAX_SCENARIO_BYTES          # the upload limit of a club's scenario file
    campaign_terms = {
        "score": "victory level points", "tiebreak": "VP difference",
        "section": "TACW Victory Determination", "min_games": 1,
        "rule": "TACW Victory Determination, scored by Herald: each battle gives its victory level "
                "on the five-step schedule (decisive victory 4, marginal victory 3, draw 2, "
                "marginal defeat 1, decisive defeat 0); the VP difference breaks ties"}
    # HERALD: TACW has no campaign rules. A club's campaign scores each battle by the victory
    # level its own schedule gives (scenario victory bands, after the VP count), one point per
    # step, so battles of different sizes weigh the same; a resignation concedes a decisive
    # victory (the resigning side leaves the field: no schedule is consulted).
    LEVEL_POINTS = {"decisive": 4, "marginal": 3}

    def campaign_score(self, scenario, state: TacwState) -> dict[str, tuple[str, int, dict]]:
        """Each side's (outcome, score, detail) in a finished battle (TACW Victory Determination;
        see `campaign_terms`). The detail carries both sides' VP as counted at the end and the
        side's VP difference, the `tiebreak`."""
        from engine.tacw.tables import VICTORY_LEVEL_NAMES
        from engine.tacw.victory import victory_points
        vp = {s: sum(v.values()) for s, v in victory_points(scenario, state).items()}
        resigned = "resigns" in (state.result or "")
        key = "" if resigned else scenario.victory_level(vp["parliament"] - vp["royalist"])
        winner = state.winner if state.winner in SIDES else None
        step = "decisive" if resigned else key.rsplit("_", 1)[-1] if winner else ""
        level = (f"{winner.title()} decisive victory (resignation)" if resigned and winner
                 else VICTORY_LEVEL_NAMES.get(key, key) or "Draw")
        out = {}
        for side in SIDES:
            enemy = state.other(side)
            if winner is None:
                outcome, score = "draw", 2
            elif side == winner:
                outcome, score = "win", self.LEVEL_POINTS.get(step, 3)
            else:
                outcome, score = "loss", 4 - self.LEVEL_POINTS.get(step, 3)
            out[side] = (outcome, score, {"vp": vp[side], "vp_lost": vp[enemy],
                                          "tiebreak": vp[side] - vp[enemy], "level": level,
                                          "result": state.result,
                                          "section": "TACW Victory Determination"})
        return out

    # the verb that answers each kind of pending decision, and the rule that asks
    ANSWER_VERBS = {"bypass": ("bypass", "TACW §4.4"), "reaction_fire": ("react", "TACW §9.7"),
                    "reaction_move": ("react_move", "TACW §7.4"),
                    "reaction_attack": ("counter", "TACW §10.2"),
                    "intercept": ("intercept", "TACW §7.5"),
                    "retreat": ("retreat", "TACW §10.4"),
                    "advance": ("choose", "TACW §10.4.6")}

    def pending(self, state: TacwState) -> PendingDecision | None:
        p = state.pending
        if not p or p["kind"] not in self.ANSWER_VERBS:   # e.g. close combat designations
            return None
        verb, section = self.ANSWER_VERBS[p["kind"]]
        section = p.get("section", section)
        answers = []
        for opt in p.get("options", []):
            if opt == "none":
                continue
            name = state.wings[opt].name if opt in state.wings else (     # a unit's name with its id:
                f"{state.units[opt].name} ({opt})" if opt in state.units   # six Commanded Shot, two Fieldings
                else p.get("labels", {}).get(opt, opt))
            answers.append(Answer(f"{verb.replace('_', ' ').title()}: {name}", f"{verb} {opt}"))
        if p["kind"] not in ("retreat", "advance"):   # an owner's choice has no "no" (sequence/choices.py)
            answers.append(Answer("No", f"{verb} none"))
        what = {"bypass": "attempt a bypass", "reaction_fire": "fire in reaction", "intercept": "intercept",
                "reaction_move": "react", "reaction_attack": "attack in reaction",
                "retreat": f"choose where {state.units[p['unit']].name} ({p['unit']}) retreats"
                if p.get("unit") in state.units
                else "choose a retreat hex",
                "advance": "choose an advance"}.get(p["kind"], p["kind"])
        if p["kind"] in ("retreat", "advance") and p.get("prompt"):
            what = f"choose {p['prompt']}"
        return PendingDecision(p["kind"], p["side"], f"{p['side'].title()} may {what}", tuple(answers), section)

    # What each interrupt's default policy does (bypass never, reaction fire auto, reaction
    # movement never, interception never, reaction attacks never): applied when a deadline passes.
    # Policies set for a wing or a unit (sequence/policies.py, D91) only decide who is in the decision
    # (the wings or units on "ask"); a lapsed decision gets this same answer for all of them.
    DEFAULT_ANSWERS = {"bypass": "bypass none", "reaction_fire": "react all",
                       "reaction_move": "react_move none", "intercept": "intercept pass",
                       "reaction_attack": "counter none"}

    def default_answer(self, state: TacwState) -> str | None:
        """The answer a player's default policy gives, for a decision left past its deadline."""
        p = state.pending
        if not p:
            return None
        if p["kind"] in ("retreat", "advance"):     # Herald's own choice is listed first
            return f"{self.ANSWER_VERBS[p['kind']][0]} {p['options'][0]}"
        return self.DEFAULT_ANSWERS.get(p["kind"])

    def to_act(self, state: TacwState) -> str | None:
        if state.phase == "over":
            return None
        if state.phase == "deployment":          # both deploy, in either order (sequence/deployment.py)
            from engine.tacw.sequence.deployment import deploying
            return next(iter(deploying(state)), None)
        if state.pending:
            return state.pending["side"]
        if state.activation is not None:
            return state.activation.side
        return state.phasing or None

    def state_to_dict(self, state: TacwState) -> dict:
        return state.to_dict()

    def state_from_dict(self, d: dict) -> TacwState:
        return TacwState.from_dict(d)

    def query(self, scenario, state: TacwState, side: str | None, command: Command) -> str:
        """A read-only verb, answered only to the asker (ids.py): `units`, `wings`, `leaders`."""
        from engine.tacw import ids
        return ids.answer(scenario, state, side, command.verb, tuple(command.args))

    def status(self, scenario, state: TacwState, viewer: str | None = None) -> str:
        from engine.tacw.battles.second_newbury import scenario_view    # Second Newbury: optional turn limits
        scenario = scenario_view(scenario, state, public=True)
        lines = [f"**{scenario.title}** · turn {state.turn}/{scenario.turns} · phase {state.phase}"]
        if state.phase == "over":
            lines.append(f"Battle over: {state.result}")
            return "\n".join(lines)
        for side in SIDES:
            wings = [w for w in state.wings.values() if w.side == side]
            lines.append(f"{side.title()}: " + ", ".join(
                f"`{w.id}` {w.name} ({ORDER_NAMES[w.order]}{', done' if w.done else ''})" for w in wings))
        if state.phase == "deployment":
            from engine.tacw.sequence.deployment import deploying, summary
            lines.append("Deployment phase: " + ", ".join(f"**{s.title()}**" for s in deploying(state))
                         + " still deploying (`deploy`, `assign`, `deploy done`)")
            for s in deploying(state):           # the area ids, and what is left to deploy
                if viewer is None or viewer == s:
                    lines += summary(scenario, state, s)
        if state.pending:
            p = state.pending
            decision = self.pending(state)
            if decision is not None:             # who, what, and the command that answers
                from engine.core.pending import answer_hint
                lines.append(f"Waiting for **{p['side'].title()}**: {decision.prompt} "
                             f"({decision.section}): `{answer_hint(decision.answers)}`")
            else:
                lines.append(f"Waiting for **{p['side'].title()}**: {p['kind'].replace('_', ' ')}")
        if state.activation:
            a = state.activation
            lines.append(f"Active: `{a.wing}` {state.wings[a.wing].name}, activation {a.number}, step {a.step}")
        elif state.phase == "activation":
            side, tier = next_to_activate(state)
            if side:
                lines.append(f"**{side.title()}** to activate a wing (or pass)")
        lines.append("Ids: `units`, `wings`, `leaders` (a unit is named by its id or its hex)")
        return "\n".join(lines)

    def completions(self, scenario, state: TacwState, side: str | None, kind: str, prefix: str,
                    context: dict | None = None, head: str = "") -> list[tuple[str, str]]:
        """Choices for an option of verbs.py (completions.py), for `side`; `head` is what a
        multi-word option already holds."""
        prefix = prefix.lower()
        mine = (state.policies or {}).get(side, {}) if side else {}
        policy = policy_completions(self.policies, mine, kind, prefix, context or {})
        if policy is not None:
            return policy[:25]
        found = option_completions.option_completions(scenario, state, side, kind, prefix, context or {}, head)
        if found is not None:
            return found
        out: list[tuple[str, str]] = []
        if kind in DEPLOY_KINDS:                 # the deployment phase (sequence/deployment.py)
            from engine.tacw.sequence.deployment import completions
            out = completions(scenario, state, side, kind, context or {})
        elif kind == "wing":
            out = [(f"{w.name} ({ORDER_NAMES[w.order]})", w.id) for w in state.wings.values()
                   if side is None or w.side == side]
        elif kind == "units_filter":             # `units [filter]` (ids.py)
            out = [(f"{s.title()} units", s) for s in SIDES] + [("Both sides", "all")] + [
                (f"{w.name} ({ORDER_NAMES[w.order]})", w.id) for w in state.wings.values()]
        elif kind == "order":
            out = [(name, key) for key, name in ORDER_NAMES.items()]
        elif kind in ("unit", "piece"):
            out = [(f"{u.name} {'&'.join(u.hexes)}", u.id) for u in state.units.values()
                   if u.alive and (side is None or u.side == side)]
        elif kind == "hex":
            out = [(h, h) for h in scenario.grid]
        return [(n, v) for n, v in out if prefix in n.lower() or prefix in v][:25]


TACW = register(TacwRuleset())
