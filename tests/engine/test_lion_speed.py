"""The fast paths of Lion's geometry give the answers of the exact ones (bench/lion_bench.py has
the times).

The rules' searches ([7 A] who may shoot at whom, [9 C] exposed generals, [8 A] who may attack
whom, [12 A] who holds a camp) skip the bases that a cheap lower bound of the distance puts out of
range or out of contact, keep the bases' shapes once built, look for blockers of a line of sight
only near it, and judge most sight lines by arithmetic before asking shapely. Each shortcut must
change no answer: here they are compared with the plain computation (every base measured,
every blocker, shapely's relate for every segment) on the two battles' opening positions and on
a few hundred positions shuffled at random from them (bases moved next to others, turned, some
placed in contact, some destroyed).
"""
from __future__ import annotations

import random

import pytest

from engine.core.errors import Illegal
from engine.core.game import Game
from engine.core.state import tree_copy
from engine.core.table import geometry
from engine.core.table.geometry import (CONTACT_TOL, Footprint, Pose, base_polygon, clear_line,
                                        clear_line_exact, distance, distance_floor, forward,
                                        front_distance, front_distance_floor, rnd)
from engine.lion import checks
from engine.lion.fire import shoot, sight
from engine.lion.melee import fight
from engine.lion.rules import side_of_letter

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

BATTLES = ("breitenfeld", "lutzen")
FOOTPRINTS = [Footprint(4, 2), Footprint(4, 3), Footprint(3, 3.5), Footprint(8, 2), Footprint(8, 4),
              Footprint(2, 2), Footprint(9, 6)]
_GAMES: dict[str, Game] = {}


def game(battle: str) -> Game:
    if battle not in _GAMES:
        _GAMES[battle] = Game.new("lion", battle, 3)
    return _GAMES[battle]


def shuffled(battle: str, seed: int):
    """A copy of the battle's opening state with bases moved at random (the seed's)."""
    g = game(battle)
    st = tree_copy(g.state)
    if seed < 0:
        return st
    rng = random.Random(seed)
    units = sorted(st.units.values(), key=lambda u: u.id)
    objs = units + sorted(st.generals.values(), key=lambda x: x.id)
    for o in objs:
        if rng.random() < 0.5:
            near = rng.choice(objs)
            o.x = rnd(min(179, max(1, near.x + rng.uniform(-12, 12))))
            o.y = rnd(min(119, max(1, near.y + rng.uniform(-12, 12))))
            o.facing = rng.choice([0.0, 90.0, 180.0, 270.0, 45.0, rnd(rng.uniform(0, 359.99))])
        if rng.random() < 0.3:                  # flush against another's front, facing it
            other = rng.choice(units)
            fx, fy = forward(other.facing)
            gap = rng.choice([0.0, 0.0, 0.03, 1.0])
            o.x, o.y, o.facing = rnd(other.x + fx * gap), rnd(other.y + fy * gap), (other.facing + 180) % 360
    for u in units:
        if rng.random() < 0.05:
            u.status = "destroyed"
        if u.type in ("light_guns", "medium_guns"):
            u.deployed = rng.random() < 0.7
    return st


# -- the exact computations --------------------------------------------------------------------------

def exact_targets(sc, st, shooter, monkeypatch) -> list[tuple[str, str]]:
    """legal_targets by the plain computation: every foe measured by check_target, every unit a
    blocker (no sight box) and shapely's relate for every sight line."""
    if sight.shooter_problem(sc, st, shooter):
        return []
    side = sight.owner(shooter)
    foes = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.alive and sight.owner(u) != side]
    foes += [g for g in sorted(st.generals.values(), key=lambda g: g.id) if g.alive and g.side != side]
    out = []
    with monkeypatch.context() as m:
        m.setattr(sight, "clear_line", clear_line_exact)
        m.setattr(sight, "sight_box", lambda *a, **k: None)
        m.setattr(sight, "general_exposed", exact_exposed)
        for face in sight.faces_of(shooter):
            if face in shooter.shot_faces or (not sight.is_tercio(shooter) and shooter.shot):
                continue
            for foe in foes:
                if sight.is_tercio(shooter) and len(shooter.shot_at) == len(shooter.shot_faces) \
                        and foe.id in shooter.shot_at:
                    continue
                try:
                    sight.check_target(sc, st, shooter, foe, face, explain=False)
                except Illegal:
                    continue
                out.append((foe.id, face))
    return out


def exact_exposed(st, g) -> tuple[bool, float]:
    near = min((checks.base_distance(g, u) for u in st.units.values()
                if u.alive and checks.controller(u) == g.side), default=float("inf"))
    return near > 10.0, near


def exact_attackers(sc, st, side, enemy) -> list[str]:
    return [u.id for u in sorted(st.units.values(), key=lambda u: u.id)
            if u.alive and sight.owner(u) == side and not fight.fight_problem(sc, st, side, u, enemy)]


def exact_fight_targets(sc, st, side) -> list[str]:
    foes = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.alive and sight.owner(u) != side]
    foes += [g for g in sorted(st.generals.values(), key=lambda g: g.id) if g.alive and g.side != side]
    return [e.id for e in foes if not fight.target_problem(sc, st, side, e) and exact_attackers(sc, st, side, e)]


def check_melee_and_contact(sc, st) -> None:
    a, b = side_of_letter(st, "A"), side_of_letter(st, "B")
    everyone = sorted(st.units.values(), key=lambda u: u.id) + sorted(st.generals.values(), key=lambda g: g.id)
    for side in (a, b):
        assert fight.fight_targets(sc, st, side) == exact_fight_targets(sc, st, side)
        for e in everyone:
            assert [u.id for u in fight.attackers_of(sc, st, side, e)] == exact_attackers(sc, st, side, e)
    for g in st.generals.values():
        assert sight.general_exposed(st, g) == exact_exposed(st, g)
    for u in st.units.values():
        exact = any(v.alive and checks.controller(v) != checks.controller(u) and v is not u
                    and checks.base_distance(u, v) <= CONTACT_TOL for v in st.units.values())
        assert checks.in_contact_with_enemy(st, u) == exact


# -- the tests -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("battle", BATTLES)
def test_opening_positions_targets_card_checks_and_melees_as_the_exact_search(battle, monkeypatch):
    """[7 A], [9 C], [8 A]: on the opening position every unit's legal targets, both shoot cards'
    checks, the combat targets and attackers, the exposed generals and the contacts are the
    plain computation's."""
    g = game(battle)
    sc, st = g.scenario, shuffled(battle, -1)
    st.card, st.step = "shoot_a", "act"
    found = {}
    for u in sorted(st.units.values(), key=lambda u: u.id):
        if u.alive:
            found[u.id] = exact_targets(sc, st, u, monkeypatch)
            assert sight.legal_targets(sc, st, u) == found[u.id], u.id
    for side in (side_of_letter(st, "A"), side_of_letter(st, "B")):
        mine = [u for u in st.units.values() if u.alive and checks.controller(u) == side]
        assert shoot.can_shoot(sc, st, side) == any(found[u.id] for u in mine)
    check_melee_and_contact(sc, st)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(battle=hs.sampled_from(BATTLES), seed=hs.integers(0, 10**6), pick=hs.integers(0, 10**6))
def test_shuffled_positions_legal_targets_as_the_exact_search(battle, seed, pick):
    """[7 A], [9 C], [12 F]: on positions shuffled at random, a unit's legal targets (range,
    arc, sight through troops and terrain, exposed generals, each Tercio face) are those of the
    plain computation."""
    mp = pytest.MonkeyPatch()
    try:
        g = game(battle)
        sc, st = g.scenario, shuffled(battle, seed)
        live = [u for u in sorted(st.units.values(), key=lambda u: u.id) if u.alive]
        rng = random.Random(pick)
        for u in rng.sample(live, 2):
            assert sight.legal_targets(sc, st, u) == exact_targets(sc, st, u, mp), (battle, seed, u.id)
    finally:
        mp.undo()


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(battle=hs.sampled_from(BATTLES), seed=hs.integers(0, 10**6))
def test_shuffled_positions_melees_generals_and_contacts_as_the_exact_search(battle, seed):
    """[8 A], [9 C], [7 D]: on positions shuffled at random, who may attack whom, the combat
    card's targets, the exposed generals and who touches an enemy are the plain computation's."""
    g = game(battle)
    check_melee_and_contact(g.scenario, shuffled(battle, seed))


coords = hs.floats(0, 40, allow_nan=False).map(rnd)
grid = hs.integers(0, 20).map(lambda k: float(2 * k))
poses = hs.one_of(hs.builds(Pose, coords, coords, hs.floats(0, 359.99).map(rnd)),
                  hs.builds(Pose, grid, grid, hs.sampled_from([0.0, 90.0, 180.0, 270.0])))
footprints = hs.sampled_from(FOOTPRINTS)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(a=poses, fa=footprints, b=poses, fb=footprints, face=hs.sampled_from(geometry.FACES),
       blockers=hs.lists(hs.tuples(poses, footprints), min_size=0, max_size=10))
def test_clear_line_fast_path_is_the_exact_relate(a, fa, b, fb, face, blockers):
    """HERALD D81 (LdN [7 A]): the sight line's arithmetic fast path answers as shapely's relate
    on the union of the blockers, bases placed anywhere or on a grid (edges flush, corners
    meeting)."""
    polys = [base_polygon(p, f) for p, f in blockers]
    assert clear_line(a, fa, b, fb, polys, face) == clear_line_exact(a, fa, b, fb, polys, face)


def test_clear_line_fast_path_with_terrain_blockers():
    """HERALD D81 (LdN [7 A]): a wood (not a base: judged by shapely) with bases around it."""
    from shapely.geometry import Polygon
    wood = Polygon([(10, 10), (20, 8), (24, 16), (14, 22), (8, 18)])
    a, b = Pose(0.0, 0.0, 45.0), Pose(30.0, 30.0, 225.0)
    fp = Footprint(4, 2)
    assert clear_line(a, fp, b, fp, [wood], "front") == clear_line_exact(a, fp, b, fp, [wood], "front") is False
    side = Pose(0.0, 30.0, 90.0)
    assert clear_line(side, fp, b, fp, [wood], "front") == clear_line_exact(side, fp, b, fp, [wood], "front") is True
    rng = random.Random(11)
    for _ in range(200):
        p = Pose(rnd(rng.uniform(0, 30)), rnd(rng.uniform(0, 30)), rnd(rng.uniform(0, 359)))
        q = Pose(rnd(rng.uniform(0, 30)), rnd(rng.uniform(0, 30)), rnd(rng.uniform(0, 359)))
        extra = [wood] + [base_polygon(Pose(rnd(rng.uniform(0, 30)), rnd(rng.uniform(0, 30)), 0.0), fp)
                          for _ in range(rng.randrange(4))]
        assert clear_line(p, fp, q, fp, extra) == clear_line_exact(p, fp, q, fp, extra)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(a=poses, fa=footprints, b=poses, fb=footprints, face=hs.sampled_from(geometry.FACES))
def test_distance_floors_never_exceed_the_distances(a, fa, b, fb, face):
    """HERALD D3 (LdN [7 A], [8 A]): the cheap lower bounds that let a search skip a base are
    never above the measured distances, so a base they put beyond a limit is beyond it."""
    assert distance_floor(a, fa, b, fb) <= distance(a, fa, b, fb) + 0.005
    assert front_distance_floor(a, fa, b, fb, face) <= front_distance(a, fa, b, fb, face) + 0.005


def test_a_base_moved_is_measured_anew():
    """HERALD D3: the shapes kept for a base's numbers follow it when it moves (the state's
    discs too): a unit moved next to a general hides him [9 C]."""
    g = game("breitenfeld")
    st = tree_copy(g.state)
    gen = sorted(st.generals.values(), key=lambda x: x.id)[0]
    before = sight.general_exposed(st, gen)
    u = next(u for u in sorted(st.units.values(), key=lambda u: u.id)
             if u.alive and checks.controller(u) == gen.side)
    u.x, u.y, u.facing = rnd(gen.x + 30), gen.y, gen.facing
    far = sight.general_exposed(st, gen)
    assert far == exact_exposed(st, gen) and before == exact_exposed(g.state, gen)
    u.x, u.y = rnd(gen.x + 4), gen.y
    near = sight.general_exposed(st, gen)
    assert near == exact_exposed(st, gen) and near[1] < 10 and not near[0]
