"""The Battle Cry ruleset object that the bot and the CLI talk to (engine.core.game.Ruleset)."""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.game import register

from engine.core.errors import Illegal
from engine.core.pending import Answer, PendingDecision

from engine.core.verbs import policy_completions

from . import board, campaign, cards, combat, movement, rules, tables
from .scenario import MAX_SCENARIO_BYTES, Scenario, list_scenarios, load_scenario, parse_scenario
from .setup import new_state
from .verbs import COMMANDS, POLICIES
from .state import BattleCryState


class BattleCryRuleset:
    id = "battlecry"
    name = "Battle Cry"
    sides = tables.SIDES
    verbs = rules.VERBS
    commands = COMMANDS              # the command surface as data (engine/core/verbs.py)
    dice_faces = tables.DIE_FACE_WORDS   # `dice=flag,sabres`: the faces by name, as /dice reads them
    policies = POLICIES

    def scenarios(self) -> list[tuple[str, str]]:
        out = []
        for sid in list_scenarios():
            sc = load_scenario(sid)
            out.append((sid, f"{sc.number:02d} {sc.title}" if sc.number else sc.title))
        return sorted(out, key=lambda x: x[1])

    def load_scenario(self, scenario_id: str) -> Scenario:
        return load_scenario(scenario_id)

    def parse_scenario(self, text: str, source: str = "<upload>") -> Scenario:
        return parse_scenario(text, source)

    def new_state(self, scenario: Scenario, seed: int | str, options: dict | None = None) -> BattleCryState:
        """BC §3.1 set-up; `options` are the game options of campaign.py (BC §6 Balancing:
        which seat plays which side, and which game of a balancing pair)."""
        return new_state(scenario, seed, options)

    def balancing_options(self, seats: dict[str, int | str], leg: int) -> dict:
        """BC §6 Balancing: the game options of one game of a pair, `seats` = side -> player."""
        return campaign.validate_options({"seats": {s: str(u) for s, u in seats.items()}, "leg": leg})

    def balancing_result(self, scenario, first: BattleCryState, second: BattleCryState,
                         first_seats: dict[str, int | str], second_seats: dict[str, int | str]) -> dict:
        """BC §6 Balancing: the pair's Campaign Flags per player (campaign.pair_result)."""
        reports = []
        for st, seats, leg in ((first, first_seats, 1), (second, second_seats, 2)):
            flags = {s: rules.effective_flags(scenario, st, s) for s in tables.SIDES}
            reports.append(campaign.game_report(st.winner, flags, self.balancing_options(seats, leg)))
        return campaign.pair_result(reports)

    def swapped_options(self, options: dict) -> dict:
        """BC §6 Balancing: the options of the return game, sides swapped."""
        return campaign.swapped_options(options)

    # -- club campaigns (bot/campaigns.py) ----------------------------------------------------
    max_scenario_bytes = MAX_SCENARIO_BYTES          # the upload limit of a club's scenario file
    campaign_terms = {
        "score": "Campaign Flags", "tiebreak": "flag difference", "section": "BC §6",
        "min_games": 3,
        "rule": "BC §6 Campaign: the winner of each battle gains Campaign Flags = the flags he "
                "captured - the flags his opponent captured (digest §5.3); the campaign, at least "
                "3 battles, is won by the most Campaign Flags"}

    def campaign_score(self, scenario: Scenario, state: BattleCryState) -> dict[str, tuple[str, int, dict]]:
        """BC §6 Campaign (digest §5.3, §6): each side's (outcome, score, detail) in a finished
        battle; the score is the Campaign Flags it gains (campaign.campaign_flags: the winner's
        flags - the loser's, never below 0; the loser gains none). The flags are those that
        decided the battle (rules.end_report: Shiloh's held objectives count). The detail's
        `tiebreak` is the side's own flags minus the enemy's, which orders players level on
        Campaign Flags (HERALD: the book names no tie-break; a drawn campaign stays drawn).
        HERALD: the book's "if the supply of flags runs out, both players put back an equal
        number" is about the box's flag pieces; taking the same number from both totals never
        changes who has the most, so Herald keeps the full counts."""
        report = rules.end_report(scenario, state)
        winner, flags = report["winner"], report["flags"]
        out = {}
        for side in tables.SIDES:
            enemy = state.other(side)
            outcome = "draw" if winner is None else "win" if side == winner else "loss"
            score = report["campaign_flags"] if outcome == "win" else 0
            out[side] = (outcome, score, {"flags": flags[side], "flags_lost": flags[enemy],
                                          "tiebreak": flags[side] - flags[enemy],
                                          "result": state.result, "section": "BC §6"})
        return out

    def apply(self, scenario: Scenario, state: BattleCryState, side: str, command: Command):
        return rules.apply(scenario, state, side, command)

    def pending(self, state: BattleCryState) -> PendingDecision | None:
        """BC §4.6: the defender chooses each retreat hex when there is a choice."""
        p = state.pending
        if not p or not p.get("options"):
            return None
        notes = p.get("notes") or {}          # which hex leads to a blocked step (combat.retreat_outlook)
        answers = tuple(Answer(f"Retreat to {h}" + (f" ({notes[h].split(' (BC')[0]})" if h in notes else ""),
                               f"retreat {h}") for h in p["options"])
        ahead = "".join(f"; via {h} {notes[h]}" for h in p["options"] if h in notes)
        return PendingDecision("retreat", p["side"], f"retreat {p['piece']} ({p['remaining']} to go{ahead})",
                               answers, "BC §4.6")

    def default_answer(self, state: BattleCryState) -> str | None:
        """What Herald answers for a player who let a deadline pass: what `policy retreat auto`
        would choose (the first legal hex)."""
        p = self.pending(state)
        return p.answers[0].line if p is not None and p.answers else None

    def to_act(self, state: BattleCryState) -> str | None:
        if state.phase == "over":
            return None
        if state.pending:
            return state.pending["side"]
        return state.active

    def state_to_dict(self, state: BattleCryState) -> dict:
        return state.to_dict()

    def state_from_dict(self, d: dict) -> BattleCryState:
        return BattleCryState.from_dict(d)

    def side_label(self, side: str) -> str:
        return side.title()

    # -- words for people ------------------------------------------------------------------
    def hand_text(self, state: BattleCryState, side: str, scenario: Scenario | None = None) -> str:
        lines = [f"Your hand ({side.title()}):"]
        for c in state.hands.get(side, []):
            ct = tables.CARD_TYPES[c]
            why = cards.playable(scenario, state, side, c) if scenario is not None else None
            lines.append(f"- **{ct.name}** (`{c}`): {ct.text}" + (f" _(cannot be used now: {why})_" if why else ""))
        return "\n".join(lines)

    def query(self, scenario: Scenario, state: BattleCryState, side: str | None, command: Command) -> str:
        """A read-only verb, answered only to the asker: `hand` (BC §3.1, the cards are secret),
        `units` (every piece with its id, ids.py)."""
        if command.verb == "units":
            from engine.battlecry import ids
            return ids.units_text(scenario, state, side, tuple(command.args))
        if command.verb != "hand":
            raise Illegal(f"'{command.verb}' is not a question Battle Cry answers")
        if side is None:
            raise Illegal("you are not a player in this game, so you hold no cards", "BC §3.1")
        return self.hand_text(state, side, scenario)

    def status(self, scenario: Scenario, state: BattleCryState, viewer: str | None = None) -> str:
        cur = state.current
        flags = " · ".join(f"{s.title()} {rules.effective_flags(scenario, state, s)}/{scenario.flags_to_win} flags"
                           for s in tables.SIDES)
        lines = [f"**{scenario.title}** · turn {state.turn} · {flags}"]
        seats = state.options.get("seats")
        if seats:
            lines.append(f"Balancing pair, game {state.options.get('leg', 1)} of 2: "
                         + ", ".join(f"{s.title()} played by {seats[s]}" for s in tables.SIDES))
        if state.phase == "over":
            lines.append(f"Battle over: {state.result}")
            return "\n".join(lines)
        if state.pending:
            p = state.pending
            lines.append(f"Waiting for **{p['side'].title()}**: retreat {p['piece']} "
                         f"({p['remaining']} to go) to one of {', '.join(p.get('options', []))}")
        lines.append(f"**{state.active.title()}** to act; phase: {state.phase}")
        if cur.card:
            ct = tables.CARD_TYPES[cur.card]
            eff = tables.CARD_TYPES[cur.effective]
            lines.append(f"Card in play: {ct.name}" + (f" (as {eff.name})" if cur.card != cur.effective else "")
                         + (f", section {cur.section}" if cur.section and eff.kind != "section" else ""))
            limit = cards.order_limit(state) if cur.effective not in cards.SPECIAL_VERB else None
            if cur.ordered:
                lines.append(f"Ordered ({len(cur.ordered)}{'/' + str(limit) if limit else ''}): {', '.join(cur.ordered)}")
        lines.append("Cards in hand: " + ", ".join(f"{s.title()} {len(h)}" for s, h in state.hands.items())
                     + f" · deck {len(state.deck)}")
        return "\n".join(lines)

    # -- autocomplete -----------------------------------------------------------------------
    def completions(self, scenario: Scenario, state: BattleCryState, side: str | None, kind: str,
                    prefix: str, context: dict | None = None, head: str = "") -> list[tuple[str, str]]:
        """Choices for a slash option. kind: card, piece, ordered, battler, unit, anyunit, target,
        general, hex, destination, retreat, section, policy_kind, policy_value. `head` is what a
        multi-word option already holds (its words are not offered again). `context` holds the options already typed
        (e.g. {"unit": "ui3"}): targets are then ranked by range with their dice, destinations
        are the hexes that unit can legally reach."""
        prefix = prefix.lower().strip()
        context = context or {}
        out: list[tuple[str, str]] = []
        unit = state.pieces.get(str(context.get("unit", "")).lower())
        mine = (getattr(state, "policies", None) or {}).get(side, {}) if side else {}
        policy = policy_completions(self.policies, mine, kind, prefix, context)
        if policy is not None:
            return policy[:25]
        if kind == "supply":       # Short of Supplies may send back an enemy unit too
            if unit is None or not unit.alive or unit.is_general:
                return []
            return [(h, h) for h in cards.supply_destinations(scenario, state, unit) if prefix in h][:25]
        if unit is not None and (not unit.alive or unit.side != side):
            unit = None
        if kind == "target" and side and unit is not None and not unit.is_general:
            return self._ranked_targets(scenario, state, unit, prefix)
        if kind == "destination" and unit is not None:
            hexes = movement.reachable(scenario, state, unit)
            out = [(f"{h} {scenario.terrain.get(h, 'clear')}", h) for h in hexes]
            return [(n, v) for n, v in out if prefix in v][:25]
        if kind == "destination":
            kind = "hex"
        if kind == "card" and side:
            seen = set()
            for c in state.hands.get(side, []):
                if c not in seen:
                    seen.add(c)
                    out.append((tables.CARD_TYPES[c].name, c))
        elif kind in ("piece", "unit", "ordered", "battler") and side:
            for p in state.live(side):
                if kind in ("unit", "battler") and p.is_general:
                    continue
                if kind in ("ordered", "battler") and p.id not in state.current.ordered:
                    continue
                if kind == "battler" and p.id in state.current.no_battle:
                    continue
                out.append((f"{p.label} in {p.hex}", p.id))
        elif kind == "anyunit":
            for p in state.live():
                if not p.is_general:
                    out.append((f"{p.label} in {p.hex}", p.id))
        elif kind == "target" and side:
            for p in state.live(state.other(side)):
                if p.is_general and state.piece_at(p.hex) is not None:
                    continue
                out.append((f"{p.label} in {p.hex}", p.hex))
        elif kind == "general":
            for p in state.live():
                if p.is_general and (side is None or p.side != side):
                    out.append((f"{p.label} in {p.hex}", p.id))
        elif kind == "retreat" and state.pending:
            out = [(h, h) for h in state.pending.get("options", [])]
        elif kind == "units_filter":            # `units [filter]` (ids.py)
            out = [(f"{s.title()} pieces", s) for s in tables.SIDES] + [("Both sides", "all")] + [
                (f"Your {s} section", s) for s in ("left", "centre", "right")]
        elif kind == "section":
            out = [("left", "left"), ("centre", "centre"), ("right", "right")]
        elif kind == "hex":
            for h in scenario.grid:
                t = scenario.terrain.get(h, "clear")
                occupant = state.piece_at(h) or state.piece_at(h, general=True)
                label = f"{h} {t}" + (f" ({occupant.id})" if occupant else "")
                out.append((label, h))
        taken = set(head.lower().split())
        return [(n, v) for n, v in out if (prefix in n.lower() or prefix in v.lower()) and v not in taken][:25]

    def _ranked_targets(self, scenario: Scenario, state: BattleCryState, unit, prefix: str) -> list[tuple[str, str]]:
        """Enemy targets for `unit`, those it can battle first (with range and dice), nearest first."""
        rows = []
        for p in state.live(state.other(unit.side)):
            if p.is_general and state.piece_at(p.hex) is not None:
                continue
            rng = scenario.grid.distance(unit.hex, p.hex)
            try:
                count = combat.battle_dice(scenario, state, unit, p.hex,
                                           leadership=state.current.effective == "leadership")
                clear, _ = board.line_of_sight(scenario, state, unit, p.hex)
                note = f"range {rng}, {max(count.total, 0)} dice" if clear else f"range {rng}, no line of sight"
                ok = clear and count.total > 0
            except Illegal:
                note, ok = f"range {rng}, out of reach", False
            rows.append((not ok, rng, f"{p.label} in {p.hex}: {note}", p.hex))
        rows.sort()
        return [(n, v) for _, _, n, v in rows if prefix in n.lower() or prefix in v][:25]

    def sections_of(self, scenario: Scenario, side: str, hex_id: str) -> tuple[str, ...]:
        return board.sections_of(scenario, side, hex_id)


BATTLECRY = register(BattleCryRuleset())
