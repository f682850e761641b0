"""Issue 12 ("a turn played from a phone"): TACW's fire, Salvo and close combat target completions
show what each target would get, read from Herald's own exact what-if (engine/core/odds.py),
nothing committed; a what-if refused, failing or over its time budget leaves the plain label."""
from __future__ import annotations

import json
import re
import time

import pytest

from engine.core.errors import HeraldError
from engine.core.game import Game
from engine.core.odds import HiddenInformation, TooManyOutcomes
from engine.tacw import completions as C
from engine.tacw.ruleset import TACW

PCT = re.compile(r" (<?\d+(?:\.\d+)?)%")


def edgehill():
    g = Game.new("tacw", "edgehill", 3)
    g.apply("royalist", "activate r-centre")
    return g


def gun_targets(g, unit="r-culverins"):
    return TACW.completions(g.scenario, g.state, "royalist", "fire_target", "", {"unit": unit})


def plain_targets(g, unit="r-culverins"):
    return C._fire_targets(g.scenario, g.state, g.state.units[unit], False)


def test_a_guns_targets_show_the_exact_odds_of_each_shot():
    g = edgehill()
    t0 = time.perf_counter()
    targets = gun_targets(g)
    took = time.perf_counter() - t0
    print(f"\nr-culverins fire_target completions: {len(targets)} targets in {took * 1000:.0f} ms")
    assert took < 5                       # the whole list answers quickly (ODDS_TOTAL bounds it)
    labels = dict((v, n) for n, v in targets)
    plain = dict((v, n) for n, v in plain_targets(g)[:25])
    assert list(labels) == list(plain)    # the same candidates, the value the bare hex
    assert all(re.fullmatch(r"\d{4}", v) for v in labels)
    assert all(len(n) <= 100 for n in labels.values())
    assert all(labels[v].startswith(plain[v]) for v in labels)
    assert labels["1810"].startswith("1810 C. Essex I (heavy), 12 hexes · ")
    assert "%" in labels["1810"]
    with_odds = [n for n in labels.values() if "%" in n]
    assert len(with_odds) >= len(labels) - 2      # a slow what-if (the counter-battery) may be left plain
    for label in with_odds:
        if label.endswith("…"):              # rarer outcomes left out: less than 100%
            continue
        total = sum(float(p.lstrip("<")) for p in PCT.findall(label))
        assert 99 <= total <= 101, label         # each shown to a tenth: adds up to 100% or so
    # the odds are the what-if's own
    from engine.core.odds import what_if
    odds = what_if(TACW, g.scenario, g.state, "royalist", "fire r-culverins 1810")
    for o in odds.outcomes:
        assert f"{C._short_pct(o.probability)}" in labels["1810"]


def test_completions_change_nothing():
    g = edgehill()
    before = json.dumps(TACW.state_to_dict(g.state), sort_keys=True, default=str)
    gun_targets(g)
    gun_targets(g, "r-sakers")
    after = json.dumps(TACW.state_to_dict(g.state), sort_keys=True, default=str)
    assert before == after


@pytest.mark.parametrize("exc", [HiddenInformation("secret"), TooManyOutcomes("too many"),
                                 HeraldError("refused"), RuntimeError("a bug")])
def test_a_what_if_that_raises_leaves_the_plain_label(monkeypatch, exc):
    g = edgehill()

    def boom(*a, **k):
        raise exc
    monkeypatch.setattr("engine.core.odds.what_if", boom)
    assert gun_targets(g) == plain_targets(g)[:25]


def test_over_the_time_budget_the_labels_stay_plain(monkeypatch):
    g = edgehill()
    monkeypatch.setattr(C, "ODDS_TOTAL", 0.0)
    assert gun_targets(g) == plain_targets(g)[:25]


def test_a_prefix_filters_before_any_what_if(monkeypatch):
    g = edgehill()
    asked = []
    from engine.core import odds
    real = odds.what_if

    def spy(*a, **k):
        asked.append(a[4])
        return real(*a, **k)
    monkeypatch.setattr("engine.core.odds.what_if", spy)
    targets = TACW.completions(g.scenario, g.state, "royalist", "fire_target", "1810", {"unit": "r-culverins"})
    assert [v for _, v in targets] == ["1810"] and asked == ["fire r-culverins 1810"]


def test_close_combat_targets_show_the_odds_of_the_attack_and_attackers_do_not_ask():
    from .test_tacw_melee import BASE, pos
    p = pos(*BASE)
    before = json.dumps(TACW.state_to_dict(p.st), sort_keys=True, default=str)
    [(label, value)] = TACW.completions(p.sc, p.st, "royalist", "attack_target", "", {"unit": "r1"})
    assert value == "0405" and label.startswith("0405 p1 (heavy) · ") and "%" in label and len(label) <= 100
    assert json.dumps(TACW.state_to_dict(p.st), sort_keys=True, default=str) == before
    labels = [n for n, _ in TACW.completions(p.sc, p.st, "royalist", "attacker", "", {})]
    assert not any("%" in n for n in labels)


def test_fit_keeps_a_label_within_discords_limit():
    label = "1804 Ramsey (cavalry), 13 hexes"
    spread = [("no effect", "70%"), ("Commanded Shot (p-commanded-shot-1): F-Disordered; Ramsey: F-Disordered", "27%"),
              ("Commanded Shot (p-commanded-shot-1): F-Disordered; leader Sir James Ramsey struck down", "3%")]
    out = C._fit(label, spread)
    assert len(out) <= 100 and out.startswith(label + " · no effect 70% · ") and "27%" in out
    assert len(C._fit("x" * 95, spread)) <= 100


def test_a_search_for_a_legal_line_asks_for_values_only(monkeypatch):
    """engine/core/verbs.py WEIGH_CANDIDATES: a caller that only searches for a line the rules
    accept (the menus, bot/menus.py) gets the plain labels and no what-if is run."""
    import engine.core.odds as odds
    from engine.core.verbs import WEIGH_CANDIDATES
    g = edgehill()
    calls = []
    real = odds.what_if
    monkeypatch.setattr(odds, "what_if", lambda *a, **k: calls.append(a) or real(*a, **k))
    token = WEIGH_CANDIDATES.set(False)
    try:
        assert gun_targets(g) == plain_targets(g)[:25]
    finally:
        WEIGH_CANDIDATES.reset(token)
    assert calls == []
    assert PCT.search(gun_targets(g)[0][0]) and calls                 # weighed again once shown


def test_the_public_menus_weigh_no_target():
    """The menus posted after an action list the verbs; finding a legal line through `fire`
    runs no what-if (the targets' odds are for the step that shows them)."""
    import engine.core.odds as odds
    from bot.menus import Menus
    g = edgehill()
    real, calls = odds.what_if, []
    odds.what_if = lambda *a, **k: calls.append(a) or real(*a, **k)
    try:
        lines = [c.line for c in Menus(TACW, g.scenario, g.state, "royalist").step("").choices]
        assert "fire" in lines and calls == []
        shown = Menus(TACW, g.scenario, g.state, "royalist").step("fire r-culverins").choices
        assert calls and any(PCT.search(c.label) for c in shown)
    finally:
        odds.what_if = real
