"""The Italian Wars text's general sections, each against its own words: the scales, the special
formations, hill crests, and the sequence of play walked through a real turn of Fornovo (the
phases in the text's order, the command phase from turn 2, the actions battle by battle)."""
from __future__ import annotations

import math

from shapely.geometry import Point

from engine.core.game import Game
from engine.italianwars import autoplay, completion, completion_shooting, tables
from engine.italianwars.armies import army_lists
from engine.italianwars.profiles import profile_of
from engine.italianwars.state import PHASES
from tests.engine.test_iw_sequence import make_state


def test_the_scales_of_figures_ground_and_time():
    """IW Scala delle figure (L22-23: a base 100-500 men), IW Scala del terreno (L24-25: the UDM is
    a base's width; the 1.8 x 1.2 m table is 45 x 30 UDM), IW Scala temporale (L26-27: a turn is
    about an hour: the day's clock moves one hour a turn)."""
    assert tables.BASE_MEN == (100, 500)
    assert tables.BASE_WIDTH == 1.0
    assert (tables.TABLE_WIDTH, tables.TABLE_HEIGHT) == (180 / 4, 120 / 4)
    assert tables.TURN_HOURS == 1
    st = make_state(phase="actions", turn=2, clock=9)
    from engine.italianwars.sequence import endturn
    from engine.core.dice import DiceStream
    endturn.end_of_turn(None, st, DiceStream(st.seed, st.draws))
    assert (st.turn, st.clock) == (3, 10)


def test_the_special_formations_and_the_legion():
    """IW Formazioni speciali (L66-72): the igel, the phalanx (never Militia or Rabble), the
    colunella and the legion; IW Legione (L72): Machiavelli's legion is medium, swords and pikes,
    may have a screen, Unreliable; a mixed company shoots as small and fights as medium (IW
    Colunella L71)."""
    assert set(tables.FORMATIONS) == {"igel", "phalanx", "colunella", "legion"}
    assert tables.PHALANX_EXCLUDED == ("militia", "rabble")
    legion = next(t for lst in army_lists().values() for t in lst.types if t.id == "florentine_legion")
    assert legion.composition == "legion" and legion.screen and legion.melee_factor == "unreliable"
    assert tables.COMPOSITION_BASES["legion"] == 2 and tables.melee_level("unreliable") == 2
    st = make_state(companies={"fb0c0": {"composition": "colunella", "bases": 2, "melee_factor": "valiant",
                                         "shooting_factor": "accurate", "missile_weapon": "arquebus"}})
    st.companies["fb0c0"].bases = 4
    p = profile_of(None, st, st.companies["fb0c0"])
    assert p.mixed and p.shooting_size() == "small" and p.melee_size() == "medium"


def test_a_hill_crest_runs_through_its_centre_along_its_long_side():
    """IW Creste di colline (L208-209): "una cresta che corre attraverso il loro centro e parallele
    al loro lato più lungo": Fornovo's foothills (7 UDM along the south edge, about 4 deep) have a
    crest through the hill's centre, nearer east-west than north-south."""
    g = Game.new("italianwars", "fornovo", 1)
    hill = next(f for f in g.scenario.features if f.kind == "hill")
    crest = hill.crest_line
    (x0, y0), (x1, y1) = crest.coords[0], crest.coords[-1]
    assert abs(x1 - x0) > abs(y1 - y0)
    assert crest.distance(Point(hill.geometry.centroid.coords[0])) < 0.05
    assert hill.geometry.buffer(1e-6).contains(crest)
    assert math.hypot(x1 - x0, y1 - y0) > 5


def test_the_sequence_of_play_through_a_turn_of_fornovo():
    """IW Sequenza di gioco (L241): before the battle, then the turns; IW Sequenza di mossa (L275-291):
    1 command (IW Sequenza di mossa 1, IW Fase di comando: not on turn 1, the orders written before
    the battle stand), 2 actions battle by battle, the attacker first (IW Sequenza di mossa 2, IW
    Azioni), 3 rout, 4 pursuit, 5 reorganisation, 6 end of turn; then turn 2 begins with its command
    phase."""
    g = Game.new("italianwars", "fornovo", 3)
    seen: list[tuple[int, str]] = []
    while g.state.turn < 3 and g.state.phase != "over":
        before = (g.state.turn, g.state.phase)
        if not seen or seen[-1] != before:
            seen.append(before)
        lines = autoplay.play_step(g)
        assert lines, (g.state.phase, g.state.activation, g.to_act)
        now = (g.state.turn, g.state.phase)
        if now != before and (not seen or seen[-1] != now):
            seen.append(now)
    phases = [p for t, p in seen]
    assert phases[0] == "prebattle"
    turn1 = [p for t, p in seen if t == 1 and p != "prebattle"]
    assert turn1[0] == "actions" and "command" not in turn1
    turn2 = [p for t, p in seen if t == 2]
    assert turn2[0] == "command" and turn2[1] == "actions"
    order = [p for p in PHASES if p in turn2]
    assert turn2 == order[:len(turn2)]
    # the actions of turn 1: the League (the attacker) activated first, alternately after
    acts = [(r.side, r.text) for r in g.history if r.text.startswith("activate")]
    assert acts[0][0] == "league" and acts[1][0] == "french"


def test_the_supplement_is_the_completion_the_game_plays():
    """IW Herald completion (HERALD D6): what the text leaves out is Herald's, in SUPPLEMENT.md,
    whose tables are the completion's data (the Shooting table's column 5 reads 0 1 1 2 2 3)."""
    text = completion.SUPPLEMENT_PATH.read_text(encoding="utf-8")
    assert "Herald completion" in text
    assert "| 5 | 0 | 1 | 1 | 2 | 2 | 3 | 1.50 |" in text
    assert completion_shooting.SHOOTING_TABLE[5] == (0, 1, 1, 2, 2, 3)


def test_the_companies_list_fits_a_message():
    """IW Compagnie: `companies` for both armies of Ravenna (46 companies) answers in one Discord
    message, each company by id, battle, bases and place (the short form once the long one would
    overflow); `companies mine` keeps the long form while it fits."""
    from engine.core.commands import parse
    g = Game.new("italianwars", "ravenna", 4)
    both = g.ruleset.query(g.scenario, g.state, "french", parse("companies"))
    assert len(both) <= 2000 and "`alfonso` ferrara 2b (37,5) 0°" in both and "`papal_shot` pescara" in both
    mine = g.ruleset.query(g.scenario, g.state, "french", parse("companies mine"))
    assert len(mine) <= 2000 and "Alfonso d'Este" in mine and "`sp_pike`" not in mine
