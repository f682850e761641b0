"""What may fill each option of an `/iw` command (the completion kinds of verbs.py): battles,
companies, manoeuvre and movement words, charge and shooting targets, charge responses, the
answers of a pending decision. A target or a response is offered only when the engine would accept
it now: each candidate line is tried on a copy of the state (`rules.apply`, nothing recorded), so
the menus never offer what the rules refuse. Never raises: a completion never breaks typing.

What a side may not see is never offered: the enemy's hidden companies (ambushes, hidden
skirmishers: IW Visibilità) and unrevealed orders."""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.errors import HeraldError
from engine.core.pending import matching, pending_answers

from engine.italianwars import checks, rules
from engine.italianwars.state import IWState

MAX_TRIED = 14          # candidate lines tried on a copy, at most, for one menu


_match = matching


def _label(sc, st: IWState, c, extra: str = "") -> str:
    bits = [rules.named(sc, c.id), f"{c.bases} base{'s' if c.bases != 1 else ''}"]
    if c.disordered:
        bits.append("disordered")
    if c.status != "active":
        bits.append(c.status)
    if extra:
        bits.append(extra)
    return " · ".join(bits)


def _own(st: IWState, side: str | None) -> list:
    return [c for c in sorted(st.companies.values(), key=lambda c: c.id)
            if c.alive and (side is None or c.side == side)]


def _seen_enemies(st: IWState, side: str | None) -> list:
    return [c for c in sorted(st.companies.values(), key=lambda c: c.id)
            if c.alive and side is not None and c.side != side and not c.hidden and c.status != "waiting"]


def _accepted(sc, st: IWState, side: str | None, verb: str, args: tuple[str, ...]) -> bool:
    if side is None:
        return True
    try:
        rules.apply(sc, st, side, Command(verb, args))
    except HeraldError:
        return False
    except Exception:
        return False
    return True


def _acting(st: IWState, side: str | None) -> list:
    """The companies of the battle acting now (the charged side's companies in 2f)."""
    act = st.activation or {}
    return [c for c in _own(st, side) if c.battle == act.get("battle") and c.status == "active"]


def _battles(sc, st: IWState, side: str | None, kind: str, prefix: str) -> list[tuple[str, str]]:
    pool = sorted(st.battles.values(), key=lambda b: b.id)
    if kind != "any_battle":
        pool = [b for b in pool if side is None or b.side == side]
    if kind == "activatable":
        from engine.italianwars.sequence.activation import untried
        pool = untried(st, side) if side and st.phase == "actions" and not (st.activation or {}).get("battle") else []
    elif kind == "unplaced_battle" or kind == "mapped_battle":
        waiting = {c.battle for c in st.companies.values() if c.status == "waiting"}
        pool = [b for b in pool if b.id in waiting]
    return _match([(f"{rules.battle_name(sc, st, b.id)} · {b.side.title()}", b.id) for b in pool], prefix)


def _distance_label(sc, st: IWState, a, b) -> str:
    try:
        return f"{checks.distance_between(sc, st, a, b):.1f} UDM"
    except Exception:
        return ""


def _targets(sc, st: IWState, side, verb: str, context: dict, prefix: str) -> list[tuple[str, str]]:
    """The enemies `verb <company> <enemy>` would be accepted on now, nearest first."""
    c = st.companies.get(str(context.get("company", "")))
    foes = _seen_enemies(st, side)
    if c is None:
        return _match([(_label(sc, st, e), e.id) for e in foes], prefix)
    foes.sort(key=lambda e: (checks.distance_between(sc, st, c, e), e.id))
    out = []
    for e in foes[:MAX_TRIED]:
        if _accepted(sc, st, side, verb, (c.id, e.id)):
            out.append((_label(sc, st, e, _distance_label(sc, st, c, e)), e.id))
    if verb == "declare":
        for other in sorted(st.armies):
            camp = f"camp-{other}"
            if other != side and _accepted(sc, st, side, verb, (c.id, camp)):
                out.append((f"the {other.title()} camp", camp))
    return _match(out, prefix)


def _responses(sc, st: IWState, side, context: dict, prefix: str) -> list[tuple[str, str]]:
    cid = str(context.get("company", ""))
    words = {"fire": "shoot at the charger (if in arc and not yet shot)",
             "countercharge": "counter-charge (shock weapons; not foot charged by horse)",
             "face": "emergency facing towards a flank or rear charger",
             "stand": "stand and receive the charge"}
    return _match([(f"{w}: {what}", w) for w, what in words.items()
                   if not cid or _accepted(sc, st, side, "respond", (cid, w))], prefix)


MANOEUVRES = (("wheel 45 left", "wheel 45 left"), ("wheel 45 right", "wheel 45 right"),
              ("wheel 90 left", "wheel 90 left"), ("wheel 90 right", "wheel 90 right"),
              ("turn left (face the left flank)", "turn left"), ("turn right (face the right flank)", "turn right"),
              ("about (face the rear)", "about"), ("igel (pikes: a hedgehog, the whole move)", "igel"),
              ("phalanx <companies> (shock companies side by side)", "phalanx"),
              ("break (leave the igel or phalanx)", "break"))


def _movement(sc, st: IWState, side, context: dict, prefix: str) -> list[tuple[str, str]]:
    c = st.companies.get(str(context.get("company", "")))
    if c is None:
        return _match([("advance <UDM>", "advance 2"), ("back <UDM>", "back 1")], prefix)
    try:
        from engine.italianwars.movement.api import allowance
        most = allowance(sc, st, c)
    except Exception:
        most = 4.0
    out = []
    for d in sorted({round(most, 1), round(most / 2, 1), 1.0}, reverse=True):
        if d > 0:
            out.append((f"advance {d:g} UDM", f"advance {d:g}"))
    out += [(f"wheel 45 left, then advance {max(0.0, round(most - 0.79, 1)):g}",
             f"wheel 45 left advance {max(0.0, round(most - 0.79, 1)):g}"),
            (f"wheel 45 right, then advance {max(0.0, round(most - 0.79, 1)):g}",
             f"wheel 45 right advance {max(0.0, round(most - 0.79, 1)):g}"),
            ("back 1 UDM", "back 1")]
    return _match(out, prefix)


def _reaction(st: IWState, side, prefix: str) -> list[tuple[str, str]]:
    return pending_answers(st.pending, side, prefix)


def option_completions(sc, st: IWState, side: str | None, kind: str, prefix: str, context: dict,
                       head: str = "") -> list[tuple[str, str]]:
    try:
        return _complete(sc, st, side, kind, prefix or "", context or {}, head or "")
    except Exception:              # a completion never breaks typing
        return []


def _complete(sc, st: IWState, side, kind, prefix, context, head):
    if kind in ("own_battle", "order_battle", "mapped_battle", "unplaced_battle", "activatable", "any_battle",
                "battle"):
        return _battles(sc, st, side, kind, prefix)
    if kind in ("own_company", "company"):
        return _match([(_label(sc, st, c), c.id) for c in _own(st, side)], prefix)
    if kind in ("charger", "manoeuvrer", "mover"):
        pool = [c for c in _acting(st, side) if not (kind == "mover" and c.moved)]
        return _match([(_label(sc, st, c), c.id) for c in pool], prefix)
    if kind == "gun":
        return _match([(_label(sc, st, c, "limbered" if c.limbered else "unlimbered"), c.id)
                       for c in _own(st, side) if rules.arm_of(sc, st, c.id) == "artillery"], prefix)
    if kind == "shooter":
        return _match([(_label(sc, st, c), c.id) for c in _own(st, side)
                       if not c.shot and (rules.role_of(sc, st, c.id) in ("shooting", "skirmishers") or c.screen)],
                      prefix)
    if kind == "shoot_target":
        return _targets(sc, st, side, "shoot", context, prefix)
    if kind == "charge_target":
        return _targets(sc, st, side, "declare", context, prefix)
    if kind == "charged":
        charged = {c.charge.get("target") for c in st.companies.values() if c.charge and c.side != side}
        return _match([(_label(sc, st, c), c.id) for c in _own(st, side) if c.id in charged], prefix)
    if kind == "response":
        return _responses(sc, st, side, context, prefix)
    if kind == "fighter":
        return _match([(_label(sc, st, c, "in melee with " + ", ".join(c.melee_with)), c.id)
                       for c in _own(st, side) if c.melee_with], prefix)
    if kind == "manoeuvre":
        return _match(list(MANOEUVRES), prefix)
    if kind == "movement":
        return _movement(sc, st, side, context, prefix)
    if kind == "reaction":
        return _reaction(st, side, prefix)
    if kind == "facing":
        return _match([("north (0)", "0"), ("east (90)", "90"), ("south (180)", "180"), ("west (270)", "270")],
                      prefix)
    if kind == "ecu":
        ecu = st.armies[side].ecu if side in st.armies else 0
        return _match([(f"{n} Ecu", str(n)) for n in range(0, ecu + 1)], prefix)
    if kind == "objective":
        feats = [(f"{getattr(f, 'name', '') or f.id} ({f.kind})", f.id) for f in checks.features(sc)]
        return _match(feats + [(_label(sc, st, e), e.id) for e in _seen_enemies(st, side)], prefix)
    return []
