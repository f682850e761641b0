"""Standing reaction policies (DESIGN: pending decisions; TACW §4.4, §7.4, §7.5, §9.7, §10.2-§10.4):
how a side answers the interrupts of the opponent's activation without being asked each time.

A policy is set for the whole side, for one of its wings, or for one of its units:

    policy <kind> <value>                       the side's policy
    policy <kind> <value> for <wing|unit>       only that wing (each of its units) or that unit
    policy <kind> clear for <wing|unit>         drop the wing's or unit's own policy
    policy <kind> clear                         back to the default for the side
    policy show [for <wing|unit>]               list them (for a scope: what applies there, and why)

They live in `st.policies[side]`: "<key>" for the side, "<key>@<wing or unit id>" for a scope.
`policy(st, side, key, unit=..., wing=...)` is the one lookup every rule uses: the unit's own
policy first, then its wing's, then the side's, then the default (POLICY_DEFAULTS).

The words and values of each kind are checked where the kind is handled: the `policy` verb is a
chain (rules.do_policy, reactions, fire, melee each take their kinds and pass the rest on).
`command` (called by rules.apply for every `policy` line) strips "for <scope>", checks the scope,
lets the chain set the side's key, then moves the new value under the scoped key and puts the
side's value back as it was: so each module validates its own values once, and the scope is
handled here only.
"""
from __future__ import annotations

from engine.core.commands import Command
from engine.core.errors import CannotParse, Illegal
from engine.core.events import Event

from engine.tacw.state import TacwState, Unit, Wing

# The standing policies that answer interrupts, with the default each starts at.
POLICY_DEFAULTS = {"bypass": "never", "reaction_fire": "auto", "reaction_move": "never",
                   "intercept": "never", "reaction_attack": "never",
                   "advance_after_combat": "hold", "close_combat_pistols": "spend",
                   "retreat": "auto", "advance_choice": "auto"}

# The words of the `policy` verb (and the state keys themselves) -> the state key.
KINDS = {"bypass": "bypass", "reaction": "reaction_fire", "reaction_fire": "reaction_fire",
         "reaction_move": "reaction_move", "intercept": "intercept",
         "counter": "reaction_attack", "reaction_attack": "reaction_attack",
         "advance": "advance_after_combat", "advance_after_combat": "advance_after_combat",
         "pistols": "close_combat_pistols", "close_combat_pistols": "close_combat_pistols",
         "retreat": "retreat", "advance_choice": "advance_choice"}

# The decisions a single unit cannot take: a bypass is a wing's activation (§4.4).
WING_ONLY = {"bypass": "a bypass is attempted by a whole wing (TACW §4.4): set it for a wing"}
# The decisions only cavalry takes (§7.5, §10.3.9).
CAVALRY_ONLY = {"intercept": "only cavalry intercepts (TACW §7.5)",
                "close_combat_pistols": "only cavalry has pistols (TACW §10.3.9)"}

SEP = "@"
SECTION = "DESIGN pending decisions"


def scoped_key(key: str, scope: str) -> str:
    return f"{key}{SEP}{scope}"


def split_key(k: str) -> tuple[str, str | None]:
    key, _, scope = k.partition(SEP)
    return key, (scope or None)


def _id(x) -> str | None:
    if x is None:
        return None
    return x if isinstance(x, str) else x.id


def explain(st: TacwState, side: str, key: str, default: str | None = None, *,
            unit: Unit | str | None = None, wing: Wing | str | None = None) -> tuple[str, str]:
    """(value, where it comes from: "unit" / "wing" / "side" / "default")."""
    mine = st.policies.get(side, {})
    uid = _id(unit)
    if uid is not None:
        k = scoped_key(key, uid)
        if k in mine:
            return mine[k], "unit"
        if wing is None:
            u = unit if isinstance(unit, Unit) else st.units.get(uid)
            wing = u.wing if u is not None else None
    wid = _id(wing)
    if wid is not None:
        k = scoped_key(key, wid)
        if k in mine:
            return mine[k], "wing"
    if key in mine:
        return mine[key], "side"
    return (POLICY_DEFAULTS.get(key, "") if default is None else default), "default"


def policy(st: TacwState, side: str, key: str, default: str | None = None, *,
           unit: Unit | str | None = None, wing: Wing | str | None = None) -> str:
    """The policy `key` of `side` that applies to `unit` (or to `wing`): the unit's own, else
    its wing's, else the side's, else `default` (POLICY_DEFAULTS when not given)."""
    return explain(st, side, key, default, unit=unit, wing=wing)[0]


def values_in_use(st: TacwState, side: str, key: str) -> set[str]:
    """Every value `key` takes anywhere on `side` (the side's or default, and every scope):
    a rule may skip its work when this is {"never"}."""
    mine = st.policies.get(side, {})
    out = {mine.get(key, POLICY_DEFAULTS.get(key, ""))}
    out |= {v for k, v in mine.items() if split_key(k)[0] == key and split_key(k)[1]}
    return out


def _label(st: TacwState, scope: str) -> str:
    piece = st.wings.get(scope) or st.units.get(scope)
    return f"{piece.name} ({scope})" if piece is not None and piece.name != scope else scope


def summary(st: TacwState, side: str) -> str:
    """The side's policies, then those of its wings and units."""
    mine = st.policies.get(side, {})
    text = ", ".join(f"{k.replace('_', ' ')}: {mine.get(k, v)}" + ("" if k in mine else " (default)")
                     for k, v in POLICY_DEFAULTS.items())
    scoped = []
    for k in sorted(mine):
        key, scope = split_key(k)
        if scope:
            scoped.append(f"{key.replace('_', ' ')} for {_label(st, scope)}: {mine[k]}")
    if scoped:
        text += "; for wings and units: " + ", ".join(scoped)
    return text


def resolve_scope(st: TacwState, side: str, word: str, key: str, *, setting: bool) -> tuple[str, str]:
    """The wing or unit a scoped policy is for: (id, "wing"|"unit"). Only the side's own wings
    and units; a unit must be on the field to be given a policy (its old one may be cleared)."""
    word = word.lower()
    if word in st.wings:
        w = st.wings[word]
        if w.side != side:
            raise Illegal(f"{w.name} is not one of your wings: you set policies only for your own "
                          "wings and units", SECTION)
        return w.id, "wing"
    u = st.units.get(word)
    if u is None:
        here = [x for x in st.units_at(word)] if len(word) == 4 and word.isdigit() else []
        if not here:
            from engine.core.ids import unknown
            pairs = [(w.id, w.name) for w in st.wings.values() if w.side == side] + [
                (x.id, x.name) for x in st.units.values() if x.side == side and x.alive]
            raise Illegal(unknown(word, "one of your wings or units (policy ... for <wing|unit>)", pairs,
                                  query="wings"), SECTION)
        mine = [x for x in here if x.side == side]
        u = sorted(mine or here, key=lambda x: (x.kind != "cavalry", x.id))[0]
    if u.side != side:
        raise Illegal(f"{u.called} is not yours: you set policies only for your own wings and units",
                      SECTION)
    if setting:
        if key in WING_ONLY:
            raise Illegal(WING_ONLY[key], SECTION)
        if key in CAVALRY_ONLY and u.kind != "cavalry":
            raise Illegal(f"{u.called} is not cavalry: {CAVALRY_ONLY[key]}", SECTION)
        if not u.alive:
            raise Illegal(f"{u.called} is no longer on the field", SECTION)
    return u.id, "unit"


def _show_for(st: TacwState, side: str, scope: str, what: str) -> list[Event]:
    unit = scope if what == "unit" else None
    wing = scope if what == "wing" else None
    parts = []
    for key in POLICY_DEFAULTS:
        if what == "unit" and key in WING_ONLY:
            v, src = explain(st, side, key, wing=st.units[scope].wing)
        else:
            v, src = explain(st, side, key, unit=unit, wing=wing)
        parts.append(f"{key.replace('_', ' ')}: {v}" + ("" if src == what else f" ({src})"))
    return [Event("policy", side, SECTION,
                  f"{side.title()}'s standing policies for {_label(st, scope)}: " + ", ".join(parts))]


def command(sc, st: TacwState, side: str, cmd: Command, chain, stream) -> list[Event]:
    """The `policy` verb: the scope words ("for <wing|unit>", "clear") are handled here, the
    kinds and values by `chain` (the registered `policy` handlers)."""
    if cmd.args and cmd.args[0].replace("-", "_") in KINDS and cmd.args[0] not in KINDS:
        cmd = Command(cmd.verb, (cmd.args[0].replace("-", "_"),) + cmd.args[1:], cmd.dice, cmd.exact_dice)
    args = list(cmd.args)                  # `reaction-move` is `reaction_move`: one kind, two spellings
    if "for" not in args:
        if len(args) == 2 and args[1] == "clear":
            key = KINDS.get(args[0])
            if key is None:
                raise CannotParse(f"unknown policy '{args[0]}': {', '.join(sorted(set(KINDS)))}")
            st.policies.setdefault(side, {}).pop(key, None)
            return [Event("policy", side, SECTION, f"{side.title()}'s {key.replace('_', ' ')} policy "
                          f"is back to the default ({POLICY_DEFAULTS[key]})")]
        return chain(sc, st, side, cmd, stream)
    i = args.index("for")
    if len(args) != i + 2:
        raise CannotParse("usage: policy <kind> <value>|clear for <wing|unit>; policy show for <wing|unit>")
    base, word = args[:i], args[i + 1]
    if base == ["show"]:
        scope, what = resolve_scope(st, side, word, "", setting=False)
        return _show_for(st, side, scope, what)
    if len(base) != 2:
        raise CannotParse("usage: policy <kind> <value>|clear for <wing|unit>")
    kind, value = base
    key = KINDS.get(kind)
    if key is None:
        raise CannotParse(f"unknown policy '{kind}': {', '.join(sorted(set(KINDS)))}")
    scope, what = resolve_scope(st, side, word, key, setting=value != "clear")
    mine = st.policies.setdefault(side, {})
    sk = scoped_key(key, scope)
    name = key.replace("_", " ")
    if value == "clear":
        if sk not in mine:
            raise Illegal(f"{_label(st, scope)} has no {name} policy of its own to clear", SECTION)
        del mine[sk]
        now, src = explain(st, side, key, unit=scope if what == "unit" else None,
                           wing=scope if what == "wing" else None)
        return [Event("policy", side, SECTION, f"{side.title()}: {_label(st, scope)} no longer has its "
                      f"own {name} policy; it follows the {'side' if src == 'default' else src}'s ({now})")]
    had, old = key in mine, mine.get(key)
    chain(sc, st, side, Command(cmd.verb, (kind, value), cmd.dice, cmd.exact_dice), stream)
    mine = st.policies.setdefault(side, {})
    new = mine.get(key)
    if had:
        mine[key] = old
    else:
        mine.pop(key, None)
    if new is None:                     # the chain accepted the words without setting the key
        raise CannotParse(f"usage: policy {kind} <value> for <wing|unit>")
    mine[sk] = new
    return [Event("policy", side, SECTION,
                  f"{side.title()}'s {name} policy for {_label(st, scope)}: {new} "
                  f"(the side's: {mine.get(key, POLICY_DEFAULTS[key])})",
                  outcome={"key": key, "scope": scope, "value": new})]
