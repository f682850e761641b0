"""This Accursed Civil War slash commands: one per verb of the TACW command language
(engine/tacw/rules.py VERBS and the verbs the action modules register). Each builds the line the
CLI reads and hands it to `run_action`: refusals come back ephemerally with the engine's reason
and TACW section, accepted actions as the board PNG with the narrative.

Verbs TACW shares with Battle Cry keep one slash command each, in bot/cogs/battlecry.py: /move
(`move <unit> <steps>`: its `to` option takes a TACW path such as `2105 face W 2205`, and its
boolean adds `alone`), /rally (`rally <unit>`), /policy (`policy <kind> <value>`, kinds by the
channel's ruleset) and /act. /game resign gives `resign`.

Autocomplete reads the channel's game. `TacwRuleset.completions` offers only wing, order, unit and
hex so far; the kinds below that it lacks are answered here (`tacw_completions`, registered in
`LOCAL_COMPLETERS`) from the loaded state and scenario, with the engine's own read-only checks
(fire arcs, close combat fronts, a dry run of each step of a path). Once the ruleset offers
them, drop the registration: the options keep the same kind names.
"""
from __future__ import annotations

import copy
import logging

import discord
from discord import app_commands
from discord.ext import commands

from engine.core.errors import HeraldError

from ..store import StoreError

from ..service import LoadedGame
from . import LOCAL_COMPLETERS, complete, run_action, words

log = logging.getLogger(__name__)
Choice = app_commands.Choice

D10 = "d10 faces in order, 1-10 (face 1 reads 0, 10 reads 9), e.g. 4,1 (TACW §2.2); else Herald rolls"
ORDERS = [Choice(name="Charge", value="charge"), Choice(name="Make Ready", value="make_ready"),
          Choice(name="Receive Charge", value="receive_charge"), Choice(name="Rally", value="rally")]
FIRE_MODES = [Choice(name="Skirmish (default)", value="skirmish"), Choice(name="Retreat fire", value="retreat"),
              Choice(name="Advance fire (Charge orders)", value="advance")]
RICOCHET = [Choice(name="Left", value="left"), Choice(name="Right", value="right")]
REFORMS = [Choice(name="Take Open Order", value="open"), Choice(name="Leave Open Order", value="normal"),
           Choice(name="Leave column", value="column-exit"), Choice(name="Leave hedgehog", value="hedgehog-exit"),
           Choice(name="Reload pistols", value="reload")]
LEADER_ACTIONS = [Choice(name="Move (8 MP)", value="move"), Choice(name="Rally a unit (Army Commander)", value="rally"),
                  Choice(name="Reform a unit (Army Commander)", value="reform")]


def _dice(dice: str | None) -> str | None:
    return f"dice={dice.replace(' ', '')}" if dice and dice.strip() else None


class TacwCog(commands.Cog, name="This Accursed Civil War"):
    """Orders for a TACW game: activate a wing, its units act, close combat, continue or stop
    (TACW §3.2 steps A-F)."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    # -- the sequence of play (§3.2, §4, §5.7) ------------------------------------------------
    @app_commands.command(name="activate",
                          description="Activate one of your wings, as precedence allows (TACW §3.2, §4.2)")
    @app_commands.guild_only()
    @app_commands.describe(wing="Your wing; ▶ marks those precedence lets you activate now (TACW §4.2)")
    @app_commands.autocomplete(wing=complete("activate"))
    async def activate(self, interaction: discord.Interaction, wing: str) -> None:
        await run_action(interaction, words("activate", wing))

    @app_commands.command(name="pass",
                          description="Pass instead of activating a wing (TACW §3.2; never on Charge, §5.6.1)")
    @app_commands.guild_only()
    async def pass_(self, interaction: discord.Interaction) -> None:
        await run_action(interaction, "pass")

    @app_commands.command(name="bypass",
                          description="Answer a bypass window: pre-empt with a wing, or none (TACW §4.4)")
    @app_commands.guild_only()
    @app_commands.describe(wing="Your wing that tries the bypass, or none", dice=D10)
    @app_commands.autocomplete(wing=complete("bypass"))
    async def bypass(self, interaction: discord.Interaction, wing: str, dice: str | None = None) -> None:
        await run_action(interaction, words("bypass", wing, _dice(dice)))

    @app_commands.command(name="orders",
                          description="Try to change the active wing's orders, before any unit acts (TACW §5.7)")
    @app_commands.guild_only()
    @app_commands.describe(order="The new orders (Order Change table, TACW §5.7)", dice=D10)
    @app_commands.choices(order=ORDERS)
    async def orders(self, interaction: discord.Interaction, order: str, dice: str | None = None) -> None:
        await run_action(interaction, words("change", order, _dice(dice)))

    @app_commands.command(name="close",
                          description="End the wing's unit actions and go to close combat (TACW §3.2 C-D)")
    @app_commands.guild_only()
    async def close(self, interaction: discord.Interaction) -> None:
        await run_action(interaction, "close")

    @app_commands.command(name="continue", description="Try to activate the wing again (continuation, TACW §4.3)")
    @app_commands.guild_only()
    @app_commands.describe(dice=D10)
    async def continue_(self, interaction: discord.Interaction, dice: str | None = None) -> None:
        await run_action(interaction, words("continue", _dice(dice)))

    @app_commands.command(name="stop", description="End the wing's activation (TACW §3.2 F)")
    @app_commands.guild_only()
    async def stop(self, interaction: discord.Interaction) -> None:
        await run_action(interaction, "stop")

    # -- the deployment phase of a battle set up by areas (engine/tacw/sequence/deployment.py) ------------
    @app_commands.command(name="deploy",
                          description="Deployment phase: place a unit or leader in its area, or say done (setup)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit or leader to place, or done when your deployment is complete",
                           hex="Its hex; a double unit: two adjacent hexes, e.g. 2905,2906",
                           facing="The vertex it faces: E SE SW W NW NE (TACW §6.1); default: as now")
    @app_commands.autocomplete(unit=complete("deploy_unit"), hex=complete("deploy_hex", context=("unit",)),
                               facing=complete("deploy_facing", context=("unit", "hex")))
    async def deploy(self, interaction: discord.Interaction, unit: str, hex: str | None = None,
                     facing: str | None = None) -> None:
        await run_action(interaction, words("deploy", unit, hex.replace(" ", "") if hex else None,
                                            f"facing {facing}" if facing and facing.strip() else None))

    @app_commands.command(name="assign",
                          description="Deployment phase: send a cavalry-pool brigade to one of its wings (setup)")
    @app_commands.guild_only()
    @app_commands.describe(brigade="Your cavalry-pool brigade (it goes to one wing as a whole)",
                           wing="The wing it joins")
    @app_commands.autocomplete(brigade=complete("brigade"), wing=complete("pool_wing", context=("brigade",)))
    async def assign(self, interaction: discord.Interaction, brigade: str, wing: str) -> None:
        await run_action(interaction, words("assign", brigade, wing))

    # -- unit actions (§6-§9, §12) --------------------------------------------------------------
    @app_commands.command(name="halt",
                          description="First Newbury: the Royalist declares a 4-turn Halt (special rule 1)")
    @app_commands.guild_only()
    async def halt(self, interaction: discord.Interaction) -> None:
        await run_action(interaction, "halt")

    @app_commands.command(name="enter",
                          description="A unit waiting off the map enters at its entry hex, and may move on")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit waiting to enter (Marston Moor's York contingent)",
                           path="Optional: the steps of its move from the entry hex, as for /move")
    @app_commands.autocomplete(unit=complete("enter_unit"))
    async def enter(self, interaction: discord.Interaction, unit: str, path: str | None = None) -> None:
        await run_action(interaction, words("enter", unit, path))

    @app_commands.command(name="boatbridge",
                          description="Second Newbury: record in secret where the boat bridge lies (only you see this)")
    @app_commands.guild_only()
    @app_commands.describe(hex="A Lambourn hex between Shaw and the east edge; leave empty to be reminded")
    @app_commands.autocomplete(hex=complete("boat_hex"))
    async def boatbridge(self, interaction: discord.Interaction, hex: str | None = None) -> None:
        """Special rule 5: the place is hidden from the other side, so the whole exchange is
        ephemeral; the public log only says that Manchester recorded it (HERALD D108)."""
        from ..views import refuse, send
        from . import service_of
        line = words("boatbridge", hex)
        try:
            result = await service_of(interaction).act(interaction.channel_id, interaction.user.id, line,
                                                       interaction.id)
        except (HeraldError, StoreError) as exc:
            await refuse(interaction, exc)
            return
        await send(interaction, f"🔒 Recorded in secret: the boat bridge lies at {hex.strip()}. It appears on "
                   "the map when one of your units first crosses on it (Second Newbury special rule 5).",
                   ephemeral=True, quiet=True)

    @app_commands.command(name="face", description="Turn a unit; a gun turns instead of firing (TACW §6.2, §6.2.3)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit of the active wing that has not acted",
                           vertex="The vertex to face: E SE SW W NW NE (TACW §6.1)")
    @app_commands.autocomplete(unit=complete("actor"), vertex=complete("vertex", context=("unit",)))
    async def face(self, interaction: discord.Interaction, unit: str, vertex: str) -> None:
        await run_action(interaction, words("face", unit, vertex))

    @app_commands.command(name="fire", description="Fire at an adjacent enemy, or a gun at range (TACW §9.3, §9.9)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit of the active wing that has not acted",
                           target="Enemy hex (a double unit may name two, one per half) (TACW §9.1)",
                           mode="Infantry: Skirmish, Retreat or Advance fire (TACW §9.3)",
                           via="Retreat fire: rear hex to step into; Advance/Skirmish: front hex or half (§9.3)",
                           ricochet="Guns: the side of a hexside the ricochet line follows (TACW §9.9.5)",
                           dice=D10)
    @app_commands.autocomplete(unit=complete("firer"), target=complete("fire_target", multi=True, context=("unit",)),
                               via=complete("hex"))
    @app_commands.choices(mode=FIRE_MODES, ricochet=RICOCHET)
    async def fire(self, interaction: discord.Interaction, unit: str, target: str, mode: str | None = None,
                   via: str | None = None, ricochet: str | None = None, dice: str | None = None) -> None:
        step = f"{'to' if mode == 'retreat' else 'from'} {via}" if via and via.strip() else None
        await run_action(interaction, words("fire", unit, target, mode, step,
                                            f"ricochet {ricochet}" if ricochet else None, _dice(dice)))

    @app_commands.command(name="salvo", description="Heavy infantry Salvo into front hexes, once a turn (TACW §9.4)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your heavy infantry of the active wing that has not acted",
                           target="Enemy hex in front (a double unit may name two) (TACW §9.4)", dice=D10)
    @app_commands.autocomplete(unit=complete("salvo_unit"),
                               target=complete("salvo_target", multi=True, context=("unit",)))
    async def salvo(self, interaction: discord.Interaction, unit: str, target: str, dice: str | None = None) -> None:
        await run_action(interaction, words("salvo", unit, target, _dice(dice)))

    @app_commands.command(name="reform",
                          description="Reform: formation, hedgehog, Open Order, column, pistols (TACW §12.2.3)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit of the active wing that has not acted",
                           how="What to reform; default: one formation level, then hedgehog, then pistols")
    @app_commands.autocomplete(unit=complete("reformer"))
    @app_commands.choices(how=REFORMS)
    async def reform(self, interaction: discord.Interaction, unit: str, how: str | None = None) -> None:
        await run_action(interaction, words("reform", unit, how))

    @app_commands.command(name="leader",
                          description="A leader moves 8 MP, or the Army Commander rallies/reforms (TACW §5.1.2)")
    @app_commands.guild_only()
    @app_commands.describe(leader="Your Army or Wing Commander (TACW §5)",
                           action="Move (TACW §5.1.2, §5.2.2), or the Army Commander's rally/reform (§12.3)",
                           target="Move: hexes one by one, e.g. 1812 1813; rally/reform: the unit",
                           how="Reform only: what to reform (TACW §12.2.3)", dice=D10)
    @app_commands.autocomplete(leader=complete("leader"),
                               target=complete("leader_target", multi=True, context=("leader", "action")))
    @app_commands.choices(action=LEADER_ACTIONS, how=REFORMS)
    async def leader(self, interaction: discord.Interaction, leader: str, action: str, target: str,
                     how: str | None = None, dice: str | None = None) -> None:
        await run_action(interaction, words("leader", leader, action, target,
                                            how if action == "reform" else None, _dice(dice)))

    # -- close combat (§10) ---------------------------------------------------------------------
    @app_commands.command(name="attack",
                          description="Designate a close combat, in the close combat step (TACW §10.1-10.2)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit of the active wing, or none to withdraw every designation",
                           target="The enemy hex, a front hex of the unit (TACW §10.1.2)")
    @app_commands.autocomplete(unit=complete("attacker"), target=complete("attack_target", context=("unit",)))
    async def attack(self, interaction: discord.Interaction, unit: str, target: str | None = None) -> None:
        await run_action(interaction, words("attack", unit, target))

    @app_commands.command(name="resolve", description="Resolve the designated close combats (TACW §10.2)")
    @app_commands.guild_only()
    @app_commands.describe(dice=D10)
    async def resolve(self, interaction: discord.Interaction, dice: str | None = None) -> None:
        await run_action(interaction, words("resolve", _dice(dice)))

    @app_commands.command(name="counter",
                          description="Designate a reaction attack on the active wing, or none (TACW §10.2 B)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit that attacks in reaction, or none to let the combats begin",
                           target="The enemy hex it attacks (TACW §10.2 B)", dice=D10)
    @app_commands.autocomplete(unit=complete("counter_unit"), target=complete("counter_target", context=("unit",)))
    async def counter(self, interaction: discord.Interaction, unit: str, target: str | None = None,
                      dice: str | None = None) -> None:
        await run_action(interaction, words("counter", unit, target, _dice(dice)))

    # -- the inactive player's answers (§7.4, §7.5, §9.7) --------------------------------------
    @app_commands.command(name="react", description="Answer Reaction Fire: which units fire, all, or none (TACW §9.7)")
    @app_commands.guild_only()
    @app_commands.describe(units="Your units that fire, space-separated, or all, or none (TACW §9.7)",
                           salvo="Heavy infantry fire a Salvo (TACW §9.4)", dice=D10)
    @app_commands.autocomplete(units=complete("reactor", multi=True))
    async def react(self, interaction: discord.Interaction, units: str, salvo: bool = False,
                    dice: str | None = None) -> None:
        await run_action(interaction, words("react", units, "salvo" if salvo else None, _dice(dice)))

    @app_commands.command(name="react_move",
                          description="Answer reaction movement: face, hedgehog, retreat, or none (TACW §7.4)")
    @app_commands.guild_only()
    @app_commands.describe(unit="Your unit that reacts, or none (TACW §7.4)",
                           reaction="e.g. face NW, wheel 1805, hedgehog, retreat 2005 2006 (TACW §7.4.2-7.4.4)",
                           dice=D10)
    @app_commands.autocomplete(unit=complete("react_unit"), reaction=complete("react_how", context=("unit",)))
    async def react_move(self, interaction: discord.Interaction, unit: str, reaction: str | None = None,
                         dice: str | None = None) -> None:
        await run_action(interaction, words("react_move", unit, reaction, _dice(dice)))

    @app_commands.command(name="intercept", description="Answer a cavalry interception decision (TACW §7.5)")
    @app_commands.guild_only()
    @app_commands.describe(cavalry="Your cavalry that tries; none: not at this hex; pass: not this move",
                           hex="Where the interceptor ends (optional) (TACW §7.5.2)",
                           nopistol="Do not fire a pistol (TACW §7.5.3)",
                           nocombat="Do not attack after intercepting (TACW §7.5.3)", dice=D10)
    @app_commands.autocomplete(cavalry=complete("interceptor"), hex=complete("hex"))
    async def intercept(self, interaction: discord.Interaction, cavalry: str, hex: str | None = None,
                        nopistol: bool = False, nocombat: bool = False, dice: str | None = None) -> None:
        await run_action(interaction, words("intercept", cavalry, hex, "nopistol" if nopistol else None,
                                            "nocombat" if nocombat else None, _dice(dice)))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(TacwCog(bot))


# == completions =================================================================================
# Each returns (name shown, value) pairs for the option's last word, or None to leave the kind to
# TacwRuleset.completions. Nothing here decides a rule: legality comes from the engine's own
# read-only checks, which raise HeraldError naming the rule.

def _vertex_names(sc) -> tuple[str, ...]:
    from engine.core import facing as F
    return F.VERTEX_NAMES[sc.grid.orientation]


def _unit_label(sc, u) -> str:
    names = _vertex_names(sc)
    state = [s for s in (u.formation if u.formation != "normal" else "", u.special_formation,
                         u.morale_state if u.morale_state != "normal" else "") if s]
    return (f"{u.name} ({u.kind}) {'&'.join(u.hexes)} facing {names[u.facing % 6]}"
            + (f", {', '.join(state)}" if state else ""))


def _own_unit(st, side, word):
    """The user's live unit named by `word` (id or hex), or None."""
    from engine.tacw.sequence.actions import find_unit
    if not word:
        return None
    try:
        u = find_unit(st, str(word).strip())
    except HeraldError:
        return None
    return u if u.side == side else None


def _actors(st, side) -> list:
    """Units of the user's active wing that have not used their action (TACW §3.2 C)."""
    act = st.activation
    if act is None or act.side != side:
        return []
    return [u for u in st.wing_units(act.wing) if u.id not in act.acted]


def _able(sc, st, side, action: str) -> list:
    """The active wing's units that may start `action` now: the engine's own begin_action
    (TACW §3.2 C one action per unit, §5.6 orders, §5.4.3 command) tried on a copy."""
    from engine.tacw.sequence.actions import begin_action
    out = []
    for u in _actors(st, side):
        trial = copy.copy(st)
        trial.activation = copy.deepcopy(st.activation)
        try:
            begin_action(sc, trial, side, u.id, "fire" if action == "face" and u.kind == "artillery"
                         else "move" if action == "face" else action)
        except HeraldError:
            continue
        out.append(u)
    return out


def _pending(st, side, kind):
    p = st.pending
    return p if p and p.get("kind") == kind and p.get("side") == side else None


def _wings_to_activate(sc, st, side) -> list[tuple[str, str]]:
    """The user's wings, those precedence allows now first, marked ▶ (TACW §4.2)."""
    from engine.tacw.sequence.activation import ORDER_NAMES, PRECEDENCE, eligible_wings, next_to_activate
    eligible = eligible_wings(st, side)
    who, tier = next_to_activate(st)
    now = st.phase == "activation" and st.activation is None and who == side and st.phasing == side
    first, rest = [], []
    for w in st.wings.values():
        if w.side != side:
            continue
        order = ORDER_NAMES.get(w.order, w.order)
        if w in eligible and now and PRECEDENCE[w.order] == tier:
            first.append((f"▶ {w.name} ({order}): may activate now", w.id))
        elif w.done:
            rest.append((f"{w.name} ({order}): done this turn", w.id))
        elif w not in eligible:
            rest.append((f"{w.name} ({order}): cannot activate this turn (TACW §5.3.2)", w.id))
        elif now:
            rest.append((f"{w.name} ({order}): not yet, higher orders first (TACW §4.2)", w.id))
        else:
            rest.append((f"{w.name} ({order}): not your turn to activate", w.id))
    return first + rest


def _front_hexes(sc, u) -> list[str]:
    from engine.tacw.geometry import unit_arcs
    return unit_arcs(sc, u)["front"]


def _fire_targets(sc, st, u, front_only: bool) -> list[tuple[str, str]]:
    """Enemy hexes `u` may fire at: adjacent front/flank (Salvo: front) hexes, checked with the
    engine's plan_shots (TACW §9.1); for a gun, hexes in range and front arc with a line of
    sight (TACW §9.9.2, §9.10)."""
    from engine.core import facing as F
    from engine.tacw.fire.small_arms import enemy_target, plan_shots
    out = []
    if u.kind == "artillery":
        from engine.tacw.fire.artillery import fire_line_of_sight, gun_reach
        hexes = sorted({h for e in st.units.values() if e.alive and e.side != u.side for h in e.hexes})
        for h in hexes:
            target = enemy_target(st, u, h)
            if target is None or gun_reach(sc, u, h) is not None:
                continue
            if not fire_line_of_sight(sc, st, u, u.hexes[0], h)[0]:
                continue
            d = min(sc.grid.distance(a, h) for a in u.hexes)
            out.append((f"{h} {target.name} ({target.kind}), {d} hexes", h))
        return out
    from engine.tacw.geometry import arc_to
    for h in F.adjacent_hexes(sc.grid, u.hexes):
        target = enemy_target(st, u, h)
        if target is None:
            continue
        try:
            plan_shots(sc, st, u, [h], front_only=front_only)
        except HeraldError:
            continue
        out.append((f"{h} {target.name} ({target.kind}), {arc_to(sc, u, h)} hex", h))
    return out


def _attack_targets(sc, st, u) -> list[tuple[str, str]]:
    from engine.tacw.close_combat.melee import check_attack
    out = []
    for h in _front_hexes(sc, u):
        try:
            d = check_attack(sc, st, u, h)
        except HeraldError:
            continue
        out.append((f"{h} {d.name} ({d.kind})" if d is not None else f"{h} enemy leaders", h))
    return out


def _path_choices(sc, st, unit, head: str) -> list[tuple[str, str]]:
    """The next steps of `unit`'s path after `head`, each tried on a dry run with the engine's
    own step checks (TACW §6.2, §7.1): front hexes, facings, about, wheels, steps back, a
    pistol, a hedgehog, with the MP spent so far. A head the engine refuses is shown as such."""
    from engine.tacw.movement import move as mv
    words_ = head.split()
    wanted = None                           # the head ends with a keyword that needs its argument
    if words_ and words_[-1].lower() in ("face", "wheel", "back", "pistol"):
        wanted = words_.pop().lower()
    sim = st.copy()
    su = sim.units[unit.id]
    partner = None if "alone" in (w.lower() for w in words_) else mv.partner_of(sim, su)
    ctx = mv.new_ctx(sc, sim, su, partner, "action")
    mv.set_restrictions(sc, sim, ctx, su)
    try:
        steps, opts = mv.parse_steps(sc, words_)
        for step in steps:
            mv.apply_step(sc, sim, ctx, step)
    except HeraldError as exc:
        return [(f"⚠ {exc}", wanted or "")]
    u = sim.units[unit.id]
    grid = sc.grid
    from engine.core import facing as F
    arcs = F.arcs(grid, u.hexes, u.facing)
    fronts = mv._outer(grid, u, "front") if u.is_double else arcs["front"]
    rears = mv._outer(grid, u, "rear") if u.is_double else arcs["rear"]
    cands = [["hex", h] for h in fronts] + [["face", v] for v in range(6) if v != u.facing]
    cands.append(["about", None])
    if u.is_double:
        cands += [["wheel", h] for h in u.hexes]
    cands += [["back", h] for h in rears]
    if u.kind == "cavalry":
        cands += [["pistol", h] for h in F.adjacent_hexes(grid, u.hexes)
                  if any(e.side != u.side for e in sim.units_at(h))]
    if u.kind == "heavy":
        cands.append(["hedgehog", None])
    if wanted:
        cands = [c for c in cands if c[0] == wanted]
    out = []
    for step in cands:
        sim2, ctx2 = sim.copy(), copy.deepcopy(ctx)
        try:
            mv.apply_step(sc, sim2, ctx2, step)
        except HeraldError:
            continue
        label = mv.step_label(sc, step)
        try:
            mv.final_checks(sc, st, sim2, ctx2, opts)
            end = ", may end here"
        except HeraldError:
            end = ""
        name = f"{label}: {ctx2['spent']} of {ctx2['ma']} MP{end}"
        out.append((name, label.split(" ", 1)[1] if wanted else label))
    return out


def _leader_path(sc, st, side, ld, head: str) -> list[tuple[str, str]]:
    """Hexes next to where the leader's path so far ends; each checked with the engine's own
    leader move on a copy when it can be (TACW §5.1.2, §5.2.2)."""
    from engine.tacw.movement import move as mv
    path = [w for w in head.split() if w in sc.grid]
    pos = path[-1] if path else ld.hex
    out, checked = [], []
    for h in sc.grid.neighbors(pos):
        if any(u.side != side for u in st.units_at(h)):
            continue
        try:
            events = mv.move_leader(sc, st.copy(), side, ld.id, path + [h])
            mp = events[-1].outcome.get("mp_spent")
            checked.append((f"{h} {sc.terrain_at(h)}: {mp} of 8 MP", h))
        except HeraldError:
            out.append((f"{h} {sc.terrain_at(h)}", h))
    return checked or out


def _leader_units(sc, st, side, ld, action: str) -> list[tuple[str, str]]:
    """Your units stacked with or next to the Army Commander, for his rally/reform (TACW §12.3)."""
    from engine.tacw.morale.recovery import rally_check, reform_plan
    out = []
    for u in st.units.values():
        if not u.alive or u.side != side or ld.hex is None:
            continue
        if not any(h == ld.hex or sc.grid.adjacent(h, ld.hex) for h in u.hexes):
            continue
        try:
            rally_check(u) if action == "rally" else reform_plan(u, None)
        except HeraldError:
            continue
        out.append((_unit_label(sc, u), u.id))
    return out


def tacw_completions(loaded: LoadedGame, side: str | None, kind: str, prefix: str, context: dict,
                     head: str) -> list[tuple[str, str]] | None:
    """The completion kinds TACW's options need beyond TacwRuleset.completions (see the module
    docstring); None for a kind the ruleset answers itself (wing, order, unit lists, hex)."""
    sc, st = loaded.scenario, loaded.state
    prefix = (prefix or "").lower().strip()
    ctx = {k: str(v).lower().strip() for k, v in (context or {}).items() if v}
    out: list[tuple[str, str]]
    if side is None:
        return []
    if kind == "activate":
        out = _wings_to_activate(sc, st, side)
    elif kind == "bypass":
        p = _pending(st, side, "bypass")
        out = [(f"{st.wings[w].name}", w) for w in p["options"] if w in st.wings] if p else []
        out.append(("No bypass", "none"))
    elif kind in ("piece", "actor", "firer", "salvo_unit"):   # /move's unit option is "piece"
        action = {"piece": "move", "actor": "face", "firer": "fire", "salvo_unit": "fire"}[kind]
        units = _able(sc, st, side, action)
        if kind in ("firer", "salvo_unit"):   # cavalry fires its pistols in a move (TACW §9.2)
            from engine.tacw.fire.small_arms import cannot_fire
            shots = ("heavy",) if kind == "salvo_unit" else ("heavy", "light", "artillery")
            units = [u for u in units if u.kind in shots and cannot_fire(st, u) is None]
        out = [(_unit_label(sc, u), u.id) for u in units]
    elif kind == "unit":                      # /rally: Shaken or Broken units (TACW §12.2.4)
        from engine.tacw.morale.recovery import rally_check
        out = []
        for u in _able(sc, st, side, "rally"):
            try:
                rally_check(u)
            except HeraldError:
                continue
            out.append((_unit_label(sc, u), u.id))
    elif kind == "reformer":
        from engine.tacw.morale.recovery import reform_plan
        needs, others = [], []
        for u in _able(sc, st, side, "reform"):
            if u.kind in ("artillery", "wagon"):
                continue
            try:
                _, what, _ = reform_plan(u, None)
                needs.append((f"{_unit_label(sc, u)}: {what}", u.id))
            except HeraldError:
                others.append((_unit_label(sc, u), u.id))
        out = needs + others
    elif kind == "destination":               # /move's path (TACW §7)
        u = _own_unit(st, side, ctx.get("unit"))
        if u is None:
            return []
        out = _path_choices(sc, st, u, head)
        if out and out[0][0].startswith("⚠"):
            return out
    elif kind == "vertex":
        names = _vertex_names(sc)
        u = _own_unit(st, side, ctx.get("unit"))
        gun = " instead of firing (TACW §6.2.3)" if u is not None and u.kind == "artillery" else ""
        out = [(f"{n}{gun}", n) for i, n in enumerate(names) if u is None or i != u.facing]
    elif kind in ("fire_target", "salvo_target"):
        u = _own_unit(st, side, ctx.get("unit"))
        if u is None:
            return []
        taken = set(head.split())
        out = [(n, v) for n, v in _fire_targets(sc, st, u, kind == "salvo_target") if v not in taken]
    elif kind == "attacker":
        act = st.activation
        out = []
        if act is not None and act.side == side:
            out = [(_unit_label(sc, u), u.id) for u in st.wing_units(act.wing) if _attack_targets(sc, st, u)]
        out.append(("none: withdraw every designation", "none"))
    elif kind == "attack_target":
        u = _own_unit(st, side, ctx.get("unit"))
        out = _attack_targets(sc, st, u) if u is not None else []
    elif kind in ("counter_unit", "counter_target"):
        p = _pending(st, side, "reaction_attack")
        pairs = [o.split() for o in (p or {}).get("options", []) if len(o.split()) == 2]
        if kind == "counter_unit":
            ids = list(dict.fromkeys(uid for uid, _ in pairs))
            out = [(_unit_label(sc, st.units[i]), i) for i in ids if i in st.units]
            out.append(("none: no (more) reaction attacks", "none"))
        else:
            u = _own_unit(st, side, ctx.get("unit"))
            out = [(f"{h} {st.units_at(h)[0].name}" if st.units_at(h) else h, h)
                   for uid, h in pairs if u is not None and uid == u.id]
    elif kind == "reactor":
        p = _pending(st, side, "reaction_fire")
        taken = set(head.split())
        out = [(_unit_label(sc, st.units[i]), i) for i in (p or {}).get("options", [])
               if i in st.units and i not in taken]
        if p and not head:
            out += [("all: every unit offered fires", "all"), ("none: no Reaction Fire", "none")]
    elif kind == "react_unit":
        p = _pending(st, side, "reaction_move")
        choices = (p or {}).get("choices", {})
        out = [(f"{_unit_label(sc, st.units[i])}: {', '.join(k)}", i) for i, k in choices.items() if i in st.units]
        out.append(("none: no (more) reaction movement", "none"))
    elif kind == "react_how":
        p = _pending(st, side, "reaction_move")
        u = _own_unit(st, side, ctx.get("unit"))
        kinds = (p or {}).get("choices", {}).get(u.id, []) if u is not None else []
        out = []
        if "face" in kinds:
            if u.is_double:
                out += [(f"wheel {h} (pivot)", f"wheel {h}") for h in u.hexes]
            else:
                out += [(f"face {n}", f"face {n}") for i, n in enumerate(_vertex_names(sc)) if i != u.facing]
        if "hedgehog" in kinds:
            out.append(("hedgehog (a morale check, TACW §7.4.3)", "hedgehog"))
        if "retreat" in kinds:
            out.append(("retreat <steps...> (TACW §7.4.4): type the path after it", "retreat"))
    elif kind == "interceptor":
        p = _pending(st, side, "intercept")
        out = [(_unit_label(sc, st.units[i]), i) for i in (p or {}).get("options", []) if i in st.units]
        if p:
            out += [("none: not at this hex", "none"), ("pass: not during the rest of this move", "pass")]
    elif kind == "leader":
        out = [(f"{ld.name} ({'Army' if ld.role == 'ac' else 'Wing'} Commander) {ld.hex}", ld.id)
               for ld in st.leaders.values() if ld.side == side and ld.status == "active" and ld.hex]
    elif kind == "enter_unit":                # /enter: units waiting off the map (D123)
        from engine.tacw.battles.orders import waiting_units
        out = [(f"{st.units[uid].name}: enters at {rf.hex} from turn {rf.turn}", uid)
               for uid, rf in sorted(waiting_units(sc, st, side).items())]
    elif kind == "boat_hex":                  # /boatbridge: the Lambourn hexes (D108)
        from engine.tacw.battles.second_newbury import params
        p = params(sc, "boat_bridge") or {}
        out = [(h, h) for h in p.get("hexes", [])] if p.get("side") == side else []
    elif kind == "leader_target":
        ld = st.leaders.get(ctx.get("leader", ""))
        if ld is None or ld.side != side or ld.hex is None:
            return []
        action = ctx.get("action", "move")
        if action == "move":
            out = _leader_path(sc, st, side, ld, head)
        elif head:                           # rally/reform name one unit
            return []
        else:
            out = _leader_units(sc, st, side, ld, action)
    else:
        return None
    return [(n, v) for n, v in out if not prefix or prefix in n.lower() or prefix in v.lower()][:25]


LOCAL_COMPLETERS["tacw"] = tacw_completions
