"""2e Tiro (IW Azioni 2e, IW Fattori di tiro, IW Schermi di Schermagliatori, IW Copertura, IW Tempo
atmosferico, IW Visibilità; IW-H 5), and the response shot of 2f.

"Le compagnie armate con armi da tiro possono tirare a nemici entro la gittata e l'angolo di
tiro. Ogni test di morale risultante dal tiro viene effettuato ora." Once a turn (a response shot
counts), at a visible enemy in range (completion_shooting.range_band on the edge-to-edge distance, HERALD
D2) and arc (completion_shooting.ARC from the front edge: any part of the target inside, HERALD D90), never
at a company in melee; firearms and guns not in bad weather; limbered guns never. A skirmisher
screen shoots for its parent shock company (the screen's strip is where it measures from,
HERALD D16, D91) and is never a target itself. The shot is completion_shooting.resolve_shot: the Shooting
table, captain risk and the morale test, applied here (points and bases, disorder, rout, a
charger that fails no longer closes, IW Azioni 2g).

HERALD D92 (when a battle that did not activate shoots): "Le compagnie delle battaglie che non si
sono attivate possono comunque aprire il fuoco contro nemici in vista": a battle that fails its
activation goes on at once with step 2e (and 2h, its melees) before the hand passes
(sequence/activation.py); its companies shoot there like an activated battle's.
"""
from __future__ import annotations

from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event
from engine.core.table.geometry import Pose, forward, in_arc

from engine.italianwars import checks, completion, completion_shooting, rules, tables
from engine.italianwars.combat.common import Dice, apply_points, hesitate_to_withdraw, loss_text
from engine.italianwars.combat.morale import apply_morale, captain_lost, captain_risk_text
from engine.italianwars.profiles import profile_of
from engine.italianwars.state import IWState

SECTION = "IW Azioni 2e"
S_H5 = completion.hcite("5")
SCREEN_WEAPON = "arquebus"      # HERALD D91: a screen's weapon when the battle file does not say


def screened(c) -> bool:
    return c.screen and not c.screen_removed


def own_missile(sc, st: IWState, c) -> str:
    m = str(rules.attr(sc, st, c.id, "missile_weapon", "") or "").lower()
    return m if m in completion.MISSILES else ""


def shooter_of(sc, st: IWState, c):
    """(Profile, footprint pose, footprint, arc half-angle, what shoots) of the company's shot:
    its own missile weapon, else its skirmisher screen's (IW Schermi di Schermagliatori: a small
    company at Inexperienced, HERALD D91), else None."""
    arm, role = rules.arm_of(sc, st, c.id), rules.role_of(sc, st, c.id)
    if own_missile(sc, st, c):
        p = profile_of(sc, st, c)
        if p.shooting:
            half = completion_shooting.ARC["skirmishers" if role == "skirmishers" else arm]
            return p, checks.pose(c), checks.footprint(sc, st, c), half, rules.named(sc, c.id)
    if screened(c):
        weapon = str(rules.attr(sc, st, c.id, "screen_weapon", "") or SCREEN_WEAPON).lower()
        p = completion.screen_profile(profile_of(sc, st, c), weapon)
        dx, dy = forward(c.facing)
        depth = tables.SCREEN.depth
        pose = Pose.rounded(c.x + dx * depth, c.y + dy * depth, c.facing)
        return p, pose, tables.SCREEN, completion_shooting.ARC["screen"], f"the screen of {rules.named(sc, c.id)}"
    return None


def shot_refusal(sc, st: IWState, c, t, response: bool = False) -> tuple[str, dict]:
    """Why `c` may not shoot at `t` now ("" and the shot's facts when it may): IW-H 5.1, IW
    Tempo atmosferico, IW Artiglieria, IW Visibilità, the orders (IW Assalto: shooting troops
    only at short range; IW Esitare: only when charged; IW-H 14 Retreat: only in response)."""
    from engine.italianwars.sequence.command import sees
    name = rules.named(sc, c.id)
    if c.status != "active" or c.evaded:
        return f"{name} is {c.status if c.status != 'active' else 'an evader this turn'}: it cannot shoot", {}
    if c.shot:
        return f"{name} has already shot this turn: once a turn ({completion.hcite('5.1')})", {}
    got = shooter_of(sc, st, c)
    if got is None:
        return f"{name} has no missile weapon nor skirmisher screen (IW Tipi di armi)", {}
    p, pose, fp, half, who = got
    if c.melee_with:
        return f"{name} is in melee: it fights, it does not shoot", {}
    if c.limbered or c.limbering:
        return f"{name}'s guns are {'limbered' if c.limbered else 'limbering'}: they cannot shoot (IW-H 11.1)", {}
    if st.weather == "bad" and p.missile in completion.FIREARMS:
        return f"no {p.missile.replace('_', ' ')} shoots in bad weather (IW Tempo atmosferico)", {}
    order = st.battles[c.battle].order if c.battle in st.battles else ""
    if not response and order == "hesitate":
        return "Hesitate: the battle neither moves nor shoots unless charged (IW Esitare)", {}
    if not response and order == "retreat":
        return f"Retreat: it shoots only in response to a charge ({completion.hcite('14')})", {}
    if t.side == c.side or not t.alive or t.status == "waiting":
        return f"{rules.named(sc, t.id)} is not an enemy company on the table", {}
    if t.melee_with:
        return f"{rules.named(sc, t.id)} is in melee: nobody shoots into a melee ({completion.hcite('5.1')})", {}
    if not sees(sc, st, c, t):
        return f"{name} does not see {rules.named(sc, t.id)} (IW Visibilità)", {}
    tpose, tfp = checks.pose(t), checks.footprint(sc, st, t)
    if half < 90 and not in_arc(pose, fp, tpose, tfp, None, half):
        return (f"{rules.named(sc, t.id)} is out of {who}'s arc ({half:g} degrees either side of straight ahead "
                f"from its front edge, {completion.hcite('5.1')})"), {}
    from engine.core.table.geometry import distance
    d = round(distance(pose, fp, tpose, tfp), 2)
    band = completion_shooting.range_band(p.missile, d)
    short, long_ = completion_shooting.RANGES[p.missile]
    if band is None:
        return (f"{rules.named(sc, t.id)} is {d:g} UDM away, beyond the {p.missile.replace('_', ' ')}'s long range "
                f"of {long_:g} ({completion.hcite('5.1')})"), {}
    if not response and order == "assault" and rules.role_of(sc, st, c.id) != "skirmishers" and band != "short":
        return (f"Assault: shooting troops shoot only at short range ({short:g} UDM; {d:g} now) "
                "(IW Assalto)"), {}
    return "", {"band": band, "distance": d, "profile": p, "who": who}


def targets(sc, st: IWState, c, response: bool = False) -> list[str]:
    """The enemy companies `c` may shoot at now."""
    return [t.id for t in sorted(st.companies.values(), key=lambda x: x.id)
            if t.side != c.side and t.alive and not t.hidden and not shot_refusal(sc, st, c, t, response)[0]]


def fire(sc, st: IWState, c, t, stream, response: bool = False) -> list[Event]:
    """One shot of `c` at `t` (already checked): completion_shooting.resolve_shot and its results."""
    _, facts = shot_refusal(sc, st, c, t, response)
    from engine.italianwars.sequence.charges import relative_face
    shooter = facts["profile"]
    target = profile_of(sc, st, t)
    frontal = relative_face(sc, st, c, t) == "front"
    dice = Dice(st, stream, None, owner=lambda purpose, key: c.side if purpose == "shooting" else t.side)
    res = completion_shooting.resolve_shot(shooter, target, facts["band"], dice, weather=st.weather or "good", frontal=frontal)
    c.shot = True
    dice.mark("shooting", f"{res.points} point{'s' if res.points != 1 else ''}")
    col = completion.clamp(res.column)
    out = apply_points(sc, st, t, res.points)
    tname = rules.named(sc, t.id)
    text = (f"{facts['who']} shoots at {tname} ({shooter.missile.replace('_', ' ')}, {facts['band']} range, "
            f"{facts['distance']:g} UDM): entry {shooter.shooting}"
            + "".join(f" {m.value:+d}" for m in res.modifiers) + f" = column {res.column}"
            + (f" (read {col})" if col != res.column else "")
            + f"; d6 {res.die}: {tname} {loss_text(sc, t, res.points, out)}")
    parts = []
    risk = captain_risk_text(dice, "captain risk", "captain fate", "shot")
    if risk:
        parts.append(risk)
    if res.morale:
        target_n = completion.MORALE_TARGET[target.morale]
        m_die = dice.faces.get("morale")
        parts.append(f"morale ({target.morale}, needs {target_n}): d6 {m_die}"
                     + "".join(f" {m.value:+d}" for m in res.morale_modifiers)
                     + f" = {m_die + sum(m.value for m in res.morale_modifiers)}: {({'pass': 'passes', 'disorder': 'disordered', 'rout': 'routs'})[res.morale]}")
        dice.mark("morale", res.morale)
    if parts:
        text += "; " + "; ".join(parts)
    section = SECTION if not response else "IW Azioni 2f"
    outcome = {"shooter": c.id, "target": t.id, "band": facts["band"], "distance": facts["distance"],
               "column": res.column, "die": res.die, "points": res.points, "bases": out["bases"],
               "destroyed": out["destroyed"], "captain": res.captain, "morale": res.morale, "response": response}
    events = [Event("shot", c.side, section, text, base=shooter.shooting, modifiers=res.modifiers, dice=dice.dice,
                    table=f"{completion.hcite('5.2')} Shooting table", row=f"column {col}, d6 {res.die}", outcome=outcome)]
    st.last_action = {"kind": "shot", "shooter": c.id, "target": t.id, "points": res.points, "morale": res.morale,
                      "response": response}
    if out["destroyed"]:
        from engine.italianwars.combat.morale import pass_command
        return events + pass_command(sc, st, t)
    if res.captain:
        events += captain_lost(sc, st, t, res.captain, "shot")
    if res.morale in ("disorder", "rout"):
        apply_morale(st, t, res.morale)
        if t.charge and t.charge.get("turn") == st.turn and not t.charge.get("failed"):
            t.charge = {**t.charge, "failed": "disordered" if res.morale == "disorder" else "routed"}
            events.append(Event("charge_fails", t.side, "IW Azioni 2g",
                                f"{tname} failed its morale test from shooting: it will not close its charge",
                                outcome={"company": t.id, "failed": t.charge["failed"]}))
    events += hesitate_to_withdraw(sc, st, t, "shot at")
    return events


def acting_battle_company(sc, st: IWState, side: str, word: str, step: str, section: str):
    """One of `side`'s companies of the battle acting now, in activation step `step`."""
    from engine.italianwars.sequence.activation import acting_side
    rules.need_not_over(st)
    act = st.activation or {}
    if st.phase != "actions" or act.get("step") != step:
        where = (f"step {act.get('step')} of {rules.battle_name(sc, st, act['battle'])}" if act.get("battle")
                 else rules.describe_place(st.phase))
        raise Illegal(f"this is done in step {step} of an activation: now {where}", section)
    if acting_side(st) != side:
        raise Illegal(f"it is {acting_side(st).title()}'s step {step}", section)
    return rules.company_of(sc, st, side, word)


def do_shoot(sc, st: IWState, side: str, cmd, stream) -> list[Event]:
    """`shoot <company> <target>` in step 2e of its battle's activation (also a battle that failed
    its test: HERALD D92)."""
    if len(cmd.args) != 2:
        raise CannotParse("usage: shoot <company> <target>")
    c = acting_battle_company(sc, st, side, cmd.args[0], "shoot", SECTION)
    if c.battle != st.activation["battle"]:
        raise Illegal(f"{rules.named(sc, c.id)} is not in the acting battle "
                      f"({rules.battle_name(sc, st, st.activation['battle'])})", SECTION)
    t = rules.enemy_company(sc, st, side, cmd.args[1])
    why, _ = shot_refusal(sc, st, c, t)
    if why:
        others = targets(sc, st, c)
        raise Illegal(why + (f"; it may shoot at: {', '.join(others)}" if others else ""), S_H5)
    return fire(sc, st, c, t, stream)


def has_shots(sc, st: IWState, side: str) -> bool:
    """Step 2e's check: a company of the acting battle may shoot at something."""
    act = st.activation or {}
    bid = act.get("battle")
    if not bid or act.get("side") != side:
        return False
    for c in sorted(st.companies.values(), key=lambda x: x.id):
        if (c.battle == bid and c.status == "active" and not c.shot and not c.evaded and not c.melee_with
                and shooter_of(sc, st, c) is not None and targets(sc, st, c)):
            return True
    return False


rules.register("shoot", do_shoot, "shoot <company> <target>: shoot at an enemy in range, arc and sight (2e)")
rules.register_step("shoot", check=has_shots)
