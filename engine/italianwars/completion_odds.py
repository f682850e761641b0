"""The Italian Wars, Herald's completion: the exact odds and the supplement's text (SUPPLEMENT.md
IW-H 16).

Every d6 of a shot (IW-H 5) or a round of melee (IW-H 6) enumerated with fractions.Fraction
(`enumerate_outcomes`, `shot_odds`, `melee_odds`); the odds report of the text's matchups
(IW-H 16.1, 16.2); the generated blocks of SUPPLEMENT.md (the Shooting and Melee tables, IW-H 5.2
and 6.2, and the odds), its rules for /rules and every number of the completion with its rule
(`herald_values`). See completion.py for how the completion is read and cited.

Pure: standard library and engine.core.events only; no randomness; reads SUPPLEMENT.md only when
asked (`supplement_block`, `supplement_sections` without a text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Iterable

from engine.italianwars.completion import (FACES, MORALE_TARGET, RALLY_TARGET, REORGANISE_TURNS,
                                           SUPPLEMENT_PATH, Profile, Roll, hcite, screen_profile)
from engine.italianwars.completion_melee import MELEE_TABLE, Side, melee_column, resolve_melee
from engine.italianwars.completion_movement import (FACING_COST, MARCH_FACTOR, MOVE, PHALANX_COST,
                                                    ROAD_BONUS, TERRAIN_FACTOR)
from engine.italianwars.completion_shooting import (RANGE_SHIFT, RANGES, SHOOTING_TABLE,
                                                    resolve_shot, shooting_column)


# == exact odds: every d6 enumerated ===================================================================

class _Need(Exception):
    def __init__(self, branches: list[tuple[int, Fraction]]):
        self.branches = branches


def enumerate_outcomes(procedure: Callable[[Roll], object]) -> list[tuple[Fraction, object]]:
    """Run `procedure(roll)` over every sequence of d6 faces, exactly. Faces that the caller's
    `key` maps alike are run once with their summed weight (a representative face)."""
    out: list[tuple[Fraction, object]] = []
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        it = iter(prefix)

        def roll(purpose, key=None, _it=it):
            try:
                return next(_it)
            except StopIteration:
                groups: dict[object, list[int]] = {}
                for f in FACES:
                    groups.setdefault(key(f) if key else f, []).append(f)
                raise _Need([(fs[-1], Fraction(len(fs), 6)) for fs in groups.values()])
        try:
            result = procedure(roll)
        except _Need as need:
            for face, w in reversed(need.branches):
                stack.append((prefix + (face,), weight * w))
            continue
        out.append((weight, result))
    return out


@dataclass
class ShotOdds:
    points: dict[int, Fraction]       # P(target loses n points)
    mean: Fraction
    test: Fraction                    # P(a morale test)
    disorder: Fraction                # P(disordered by the test)
    rout: Fraction
    captain: Fraction                 # P(its captain killed)
    destroyed: Fraction


def shot_odds(shooter: Profile, target: Profile, band: str, *, weather: str = "good",
              frontal: bool = True) -> ShotOdds:
    """IW-H 5: the exact distribution of one shot (points, morale test, captain)."""
    outs = enumerate_outcomes(lambda r: resolve_shot(shooter, target, band, r, weather=weather, frontal=frontal))
    pts: dict[int, Fraction] = {}
    test = dis = rout = cap = dead = Fraction(0)
    for w, r in outs:
        pts[r.points] = pts.get(r.points, Fraction(0)) + w
        test += w if r.morale else 0
        dis += w if r.morale == "disorder" else 0
        rout += w if r.morale == "rout" else 0
        cap += w if r.captain else 0
        dead += w if r.destroyed else 0
    mean = sum((p * w for p, w in pts.items()), Fraction(0))
    return ShotOdds(dict(sorted(pts.items())), mean, test, dis, rout, cap, dead)


@dataclass
class MeleeOdds:
    win: dict[str, Fraction]          # "a", "b", "draw"
    outcome: dict[str, dict[str, Fraction]]   # per side: P(each outcome)
    points: dict[str, dict[int, Fraction]]    # per side: P(loses n points)
    mean_points: dict[str, Fraction]
    broken_through: Fraction
    captain: dict[str, Fraction]      # P(the captain killed or captured)
    columns: dict[str, int]           # the columns read without Doppelsöldner or flank test

    def p(self, side: str, *outcomes: str) -> Fraction:
        return sum((self.outcome[side].get(o, Fraction(0)) for o in outcomes), Fraction(0))


def melee_odds(a: Side, b: Side) -> MeleeOdds:
    """IW-H 6: the exact distribution of one round of melee between `a` and `b`."""
    outs = enumerate_outcomes(lambda r: resolve_melee(a, b, r))
    win = {"a": Fraction(0), "b": Fraction(0), "draw": Fraction(0)}
    outcome: dict[str, dict[str, Fraction]] = {"a": {}, "b": {}}
    points: dict[str, dict[int, Fraction]] = {"a": {}, "b": {}}
    bt = Fraction(0)
    cap = {"a": Fraction(0), "b": Fraction(0)}
    for w, r in outs:
        win[r.winner or "draw"] += w
        bt += w if r.broken_through else 0
        for k in ("a", "b"):
            o = r.outcome.get(k, "held")
            outcome[k][o] = outcome[k].get(o, Fraction(0)) + w
            n = r.points.get(k, 0)
            points[k][n] = points[k].get(n, Fraction(0)) + w
            cap[k] += w if r.captains.get(k) else 0
    mean = {k: sum((n * w for n, w in points[k].items()), Fraction(0)) for k in ("a", "b")}
    cols = {"a": melee_column(a, b)[0], "b": melee_column(b, a)[0]}
    return MeleeOdds(win, outcome, {k: dict(sorted(v.items())) for k, v in points.items()}, mean, bt, cap, cols)


# == the odds report (IW-H 16) =========================================================================

def _foot(name, morale, melee, weapon, armour, bases=4, **kw):
    return Profile(name=name, morale=morale, kind="infantry", role="shock", bases=bases, armour=armour,
                   melee=melee, weapon=weapon, **kw)


SWISS_PIKE = _foot("Swiss pike", "professionals", 5, "pike", "armoured", armour_light="protected", nation="swiss",
                   doppelsoldner=True)
LANDSKNECHTS = _foot("Landsknechts", "mercenaries", 4, "pike", "armoured", armour_light="protected", nation="landsknecht",
                     doppelsoldner=True)
SPANISH_SWORD = _foot("Spanish sword-and-buckler", "mercenaries", 4, "polearm", "protected", bases=2,
                      doppelsoldner=True)
ITALIAN_FOOT = _foot("Italian foot", "militia", 2, "pike", "protected", bases=2)
MILITIA_PIKE = _foot("militia pike", "militia", 2, "pike", "protected", bases=2)
RABBLE = _foot("French rabble foot", "rabble", 1, "polearm", "unprotected", bases=2)
GENDARMES = Profile(name="French gendarmes", morale="gentlemen", kind="cavalry", bases=2, armour="armoured",
                    melee=5, weapon="lance")
STRADIOTS = Profile(name="Stradiots", morale="professionals", kind="cavalry", bases=2, armour="unprotected",
                    melee=2, weapon="side_arms", shooting=2, missile="javelin")
SPANISH_ARQ = Profile(name="Spanish arquebusiers", morale="professionals", kind="infantry", role="shooting",
                      bases=2, armour="unprotected", melee=1, shooting=5, missile="arquebus")
ITALIAN_XBOW = Profile(name="Italian crossbows", morale="militia", kind="infantry", role="shooting", bases=2,
                       armour="protected", melee=1, shooting=4, missile="crossbow")
ITALIAN_ARQ = replace(ITALIAN_XBOW, name="Italian arquebusiers", missile="arquebus")
FRENCH_GUNS = Profile(name="French guns", morale="professionals", kind="artillery", role="shooting", bases=1,
                      armour="unprotected", melee=1, shooting=5, missile="light_gun")


def _pct(p: Fraction) -> str:
    return f"{round(float(p) * 100)}%"


def _melee_row(label: str, a: Side, b: Side) -> tuple[str, ...]:
    o = melee_odds(a, b)
    return (label, f"{o.columns['a']} v {o.columns['b']}", _pct(o.win["a"]), _pct(o.win["draw"]),
            _pct(o.win["b"]), _pct(o.p("b", "routed", "destroyed")), _pct(o.p("a", "routed", "destroyed")),
            f"{float(o.mean_points['b']):.1f} / {float(o.mean_points['a']):.1f}")


def melee_report() -> list[tuple[str, ...]]:
    """IW-H 16.1: the text's melee matchups, one round (a charges b unless said)."""
    ch = dict(charging=True)
    ita_pike_att = replace(ITALIAN_FOOT, name="Italian foot")
    rows = [
        _melee_row("Gendarmes charge Swiss pike, front", Side(GENDARMES, **ch), Side(SWISS_PIKE)),
        _melee_row("Gendarmes charge Swiss pike, flank", Side(GENDARMES, **ch), Side(SWISS_PIKE, flanked=True)),
        _melee_row("Gendarmes charge disordered Swiss pike, front", Side(GENDARMES, **ch),
                   Side(replace(SWISS_PIKE, disordered=True))),
        _melee_row("Swiss pike charge Landsknechts (sworn enemies)", Side(SWISS_PIKE, **ch), Side(LANDSKNECHTS)),
        _melee_row("Landsknechts charge Swiss pike (sworn enemies)", Side(LANDSKNECHTS, **ch), Side(SWISS_PIKE)),
        _melee_row("Spanish sword-and-buckler charge Landsknechts", Side(SPANISH_SWORD, **ch), Side(LANDSKNECHTS)),
        _melee_row("Landsknechts charge Spanish sword-and-buckler", Side(LANDSKNECHTS, **ch), Side(SPANISH_SWORD)),
        _melee_row("Gendarmes charge stradiots", Side(GENDARMES, **ch), Side(STRADIOTS)),
        _melee_row("Stradiots charge gendarmes", Side(STRADIOTS, **ch), Side(GENDARMES)),
        _melee_row("Gendarmes charge Italian foot", Side(GENDARMES, **ch), Side(ITALIAN_FOOT)),
        _melee_row("Gendarmes charge militia pike, 2nd round (no lances)", Side(GENDARMES, first_round=False),
                   Side(MILITIA_PIKE, first_round=False)),
        _melee_row("Italian foot charge Landsknechts", Side(ita_pike_att, **ch), Side(LANDSKNECHTS)),
        _melee_row("Italian foot charge Spanish sword-and-buckler", Side(ita_pike_att, **ch), Side(SPANISH_SWORD)),
        _melee_row("Italian foot charge militia pike", Side(ita_pike_att, **ch), Side(MILITIA_PIKE)),
        _melee_row("Italian foot charge rabble", Side(ita_pike_att, **ch), Side(RABBLE)),
        _melee_row("Rabble charge militia pike", Side(RABBLE, **ch), Side(MILITIA_PIKE)),
        _melee_row("Militia pike charge rabble", Side(MILITIA_PIKE, **ch), Side(RABBLE)),
    ]
    return rows


def _shot_row(label: str, shooter: Profile, target: Profile, band: str, **kw) -> tuple[str, ...]:
    col = shooting_column(shooter, target, band, **kw)[0]
    o = shot_odds(shooter, target, band, **kw)
    return (label, str(col), f"{float(o.mean):.2f}", _pct(1 - o.points.get(0, Fraction(0))),
            _pct(o.test), _pct(o.disorder), _pct(o.rout), _pct(o.captain))


def shooting_report() -> list[tuple[str, ...]]:
    """IW-H 16.2: the text's shooting matchups, one shot."""
    screened = replace(SWISS_PIKE, screen=True)
    lk_screened = replace(LANDSKNECHTS, screen=True)
    return [
        _shot_row("Spanish arquebusiers v Swiss pike, short", SPANISH_ARQ, SWISS_PIKE, "short"),
        _shot_row("  the same, pike screened", SPANISH_ARQ, screened, "short"),
        _shot_row("Spanish arquebusiers v Swiss pike, long", SPANISH_ARQ, SWISS_PIKE, "long"),
        _shot_row("  the same, pike screened", SPANISH_ARQ, screened, "long"),
        _shot_row("Spanish arquebusiers v Landsknecht pike, short", SPANISH_ARQ, LANDSKNECHTS, "short"),
        _shot_row("  the same, pike screened", SPANISH_ARQ, lk_screened, "short"),
        _shot_row("Spanish arquebusiers v militia pike, short", SPANISH_ARQ, MILITIA_PIKE, "short"),
        _shot_row("Italian arquebus v Italian crossbow, short", ITALIAN_ARQ, ITALIAN_XBOW, "short"),
        _shot_row("Italian crossbow v Italian arquebus, short", ITALIAN_XBOW, ITALIAN_ARQ, "short"),
        _shot_row("Italian arquebus v Italian crossbow, long", ITALIAN_ARQ, ITALIAN_XBOW, "long"),
        _shot_row("Italian crossbow v Italian arquebus, long", ITALIAN_XBOW, ITALIAN_ARQ, "long"),
        _shot_row("French guns (light) v large pike block, short", FRENCH_GUNS, SWISS_PIKE, "short"),
        _shot_row("French guns (light) v large pike block, long", FRENCH_GUNS, SWISS_PIKE, "long"),
        _shot_row("French guns (heavy) v large pike block, long", replace(FRENCH_GUNS, missile="heavy_gun"),
                  SWISS_PIKE, "long"),
        _shot_row("Other guns (light, Inexperienced) v large pike, long", replace(FRENCH_GUNS, shooting=2),
                  LANDSKNECHTS, "long"),
        _shot_row("Stradiots' javelins v gendarmes", STRADIOTS, GENDARMES, "short"),
        _shot_row("Swiss screen (small, Inexperienced) v arquebusiers, short",
                  screen_profile(SWISS_PIKE), SPANISH_ARQ, "short"),
    ]


MELEE_HEAD = ("Melee (a v b), one round", "columns", "a wins", "drawn", "b wins", "b routs", "a routs",
              "points lost b / a")
SHOT_HEAD = ("Shot", "column", "mean points", "any loss", "test", "disordered", "routed", "captain killed")


def markdown_table(head: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def odds_report() -> str:
    """IW-H 16: the odds table printed by the test and written in SUPPLEMENT.md (between the
    ODDS markers), so the document cannot drift from the data."""
    return (markdown_table(MELEE_HEAD, melee_report()) + "\n\n"
            + markdown_table(SHOT_HEAD, shooting_report()))


def table_markdown(table: dict[int, tuple[int, ...]]) -> str:
    """IW-H 5.2 / 6.2 as the supplement prints them."""
    head = ("column",) + tuple(f"d6 {f}" for f in FACES) + ("mean",)
    rows = [(str(c),) + tuple(str(v) for v in vals) + (f"{sum(vals) / 6:.2f}",) for c, vals in table.items()]
    return markdown_table(head, rows)


# the generated blocks of SUPPLEMENT.md, between <!-- BEGIN NAME --> and <!-- END NAME -->
SUPPLEMENT_BLOCKS: dict[str, Callable[[], str]] = {
    "SHOOTING TABLE": lambda: table_markdown(SHOOTING_TABLE),
    "MELEE TABLE": lambda: table_markdown(MELEE_TABLE),
    "ODDS": odds_report,
}


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- BEGIN {name} (generated from the data: do not edit by hand) -->", f"<!-- END {name} -->"


def supplement_block(name: str, text: str | None = None) -> str:
    """A generated block as SUPPLEMENT.md has it."""
    text = SUPPLEMENT_PATH.read_text(encoding="utf-8") if text is None else text
    begin, end = _markers(name)
    i, j = text.index(begin) + len(begin), text.index(end)
    return text[i:j].strip()


def render_supplement(text: str) -> str:
    """The supplement's text with every generated block rewritten from the data (pure: the
    caller writes it; see tests/engine/test_iw_completion.py)."""
    for name, make in SUPPLEMENT_BLOCKS.items():
        begin, end = _markers(name)
        i, j = text.index(begin) + len(begin), text.index(end)
        text = text[:i] + "\n" + make() + "\n" + text[j:]
    return text


# == the supplement, for /rules ===============================================================================

_RULE_RE = re.compile(r"^## (IW-H \d+)\s*[—-]\s*(.+)$", re.MULTILINE)


def supplement_sections(text: str | None = None) -> list[tuple[str, str, str]]:
    """(id "IW-H 5", title, body) of every rule of SUPPLEMENT.md, in order (for /rules)."""
    text = SUPPLEMENT_PATH.read_text(encoding="utf-8") if text is None else text
    marks = list(_RULE_RE.finditer(text))
    out = []
    for n, m in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        out.append((m.group(1), m.group(2).strip(), text[m.end():end].strip()))
    return out


def herald_values() -> list[tuple[str, str]]:
    """(name = value, rule) of every number of the completion, for /rules and the tests."""
    out: list[tuple[str, str]] = []
    out += [(f"move.{k} = {v} UDM", hcite("2.1")) for k, v in MOVE.items()]
    out += [(f"march x{MARCH_FACTOR}", hcite("2.2")), (f"road +{ROAD_BONUS} UDM", hcite("2.2"))]
    out += [(f"terrain.{k} x{v}", hcite("2.3")) for k, v in TERRAIN_FACTOR.items()]
    out += [(f"facing.{k} = {v} UDM", hcite("3.2")) for k, v in FACING_COST.items()]
    out += [(f"phalanx = {PHALANX_COST} UDM", hcite("3.4"))]
    out += [(f"range.{k} = {v[0]}/{v[1]} UDM", hcite("5.1")) for k, v in RANGES.items()]
    out += [(f"range_shift.{k} = {v[0]:+d}/{v[1]:+d}", hcite("5.3")) for k, v in RANGE_SHIFT.items()]
    out += [(f"shooting_table.{c} = {v}", hcite("5.2")) for c, v in SHOOTING_TABLE.items()]
    out += [(f"melee_table.{c} = {v}", hcite("6.2")) for c, v in MELEE_TABLE.items()]
    out += [(f"morale.{k} = {v}+", hcite("7.1")) for k, v in MORALE_TARGET.items()]
    out += [(f"reorganise.{k} = {v} turns", hcite("10.1")) for k, v in REORGANISE_TURNS.items()]
    out += [(f"rally.{k} = {v}+", hcite("10.2")) for k, v in RALLY_TARGET.items()]
    return out
