"""Lion of the North speed: how long the rules work of one command takes (issue 15).

Times, on the two battles' opening positions (seed 3): `Game.new` (the cards are drawn until
someone must act, and every shoot or combat card asks whether it passes), a move, the shoot
card's check (`fire.shoot.can_shoot`, both sides), `fire.sight.legal_targets` of a heavy gun,
the completions of `shoot` (shooters, then one shooter's targets), a melee (`fight`, one unit
placed against an enemy's front) and the combat card's check, and the replay of the demo
scripts bot/demos/lion--*.txt when they exist.

Run: .venv/bin/python bench/lion_bench.py [--runs 5] [--profile]   (prints figures; asserts nothing)

Herald's bar: a command's rules work in tens of milliseconds (the bot answers within 3 s with the
picture; TACW's action is 8 ms p95). Figures are the best of the runs (wall ms); --profile adds
cProfile's top entries for Game.new and the shoot card's check.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import DEMO_DIR, read_script, split_side  # noqa: E402
from engine.core.game import Game  # noqa: E402
from engine.core.state import tree_copy  # noqa: E402
from engine.core.table.geometry import forward, rnd  # noqa: E402

from engine.lion import checks  # noqa: E402
from engine.lion.fire import shoot, sight  # noqa: E402
from engine.lion.melee import fight  # noqa: E402
from engine.lion.rules import side_of_letter  # noqa: E402
from engine.lion.sequence import cards  # noqa: E402

BATTLES = ("breitenfeld", "lutzen")
SEED = 3


def best_ms(fn, runs: int) -> tuple[float, object]:
    """The best wall time of `runs` calls of fn() in ms, and its last result."""
    best, out = 1e18, None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best * 1000.0, out


def on_card(g: Game, card: str):
    """A copy of the game's state with `card` in play, its owner acting."""
    st = tree_copy(g.state)
    st.card, st.step = card, "act"
    st.pending = None
    for u in st.units.values():
        u.shot = u.fought = u.moved = False
        u.shot_faces, u.shot_at = [], []
    return st


def first(st, side: str, pred):
    return next((u for u in sorted(st.units.values(), key=lambda u: u.id)
                 if u.alive and checks.controller(u) == side and pred(u)), None)


def bench_battle(battle: str, runs: int) -> list[tuple[str, float, str]]:
    rows: list[tuple[str, float, str]] = []
    ms, g = best_ms(lambda: Game.new("lion", battle, SEED), max(1, runs // 2))
    rows.append((f"Game.new {battle}", ms, f"card {g.state.card}, {g.to_act} to act"))
    sc, rs = g.scenario, g.ruleset
    a, b = side_of_letter(g.state, "A"), side_of_letter(g.state, "B")

    # a move: the first cavalry of player A advances 5 cm on his move card
    st = on_card(g, "move_a")
    st.armies[a].cpts = 6
    mover = first(st, a, lambda u: sight.troop(u).arm == "cavalry")
    line = f"move {mover.id} advance 5"

    def do_move():
        return rs.apply(sc, st, a, g_parse(line))
    try:
        ms, _ = best_ms(do_move, runs)
        rows.append((f"move ({line})", ms, "rules.apply on a copy, card walk included"))
    except Exception as e:                              # noqa: BLE001 (a bench reports, never stops)
        rows.append((f"move ({line})", float("nan"), f"refused: {e}"))

    # the shoot card's check, both sides
    st = on_card(g, "shoot_a")
    ms, got = best_ms(lambda: (shoot.can_shoot(sc, st, a), shoot.can_shoot(sc, st, b)), runs)
    rows.append(("shoot card check (can_shoot A and B)", ms, f"{got}"))
    st.card = "shoot_b"
    ms, got = best_ms(lambda: cards.card_passes(sc, st), runs)
    rows.append(("cards.card_passes (shoot B)", ms, f"passes={got}"))

    # legal_targets of a heavy gun (or the first gun)
    gun = None
    for side in (a, b):
        gun = gun or first(st, side, lambda u: sight.troop(u).gun == "heavy")
    gun = gun or first(st, a, lambda u: sight.troop(u).arm == "artillery")
    if gun is not None:
        ms, got = best_ms(lambda: sight.legal_targets(sc, st, gun), runs)
        rows.append((f"legal_targets {gun.id} ({gun.type})", ms, f"{len(got)} targets"))

    # the completions of shoot: the shooters, then the first shooter's targets
    side = a
    st = on_card(g, "shoot_a")
    ms, got = best_ms(lambda: rs.completions(sc, st, side, "shooter", "", {}), runs)
    rows.append(("completions shooter", ms, f"{len(got)} shooters"))
    unit = got[0][1] if got else (gun.id if gun else "")
    ms, got = best_ms(lambda: rs.completions(sc, st, side, "shoot_target", "", {"unit": unit}), runs)
    rows.append((f"completions shoot_target ({unit})", ms, f"{len(got)} targets"))

    # the combat card's check and a melee: A's first foot unit placed against B's first foot unit
    st = on_card(g, "combat_a")
    ms, got = best_ms(lambda: (fight.can_fight(sc, st, a), fight.can_fight(sc, st, b)), runs)
    rows.append(("combat card check (can_fight A and B)", ms, f"{got}"))
    foot = lambda u: sight.troop(u).arm == "infantry" and u.type in ("musketeers", "pike_and_shot",  # noqa: E731
                                                                     "late_pike_and_shot", "pikemen")
    enemy, att = first(st, b, foot), first(st, a, foot)
    if enemy is not None and att is not None:
        fx, fy = forward(enemy.facing)
        att.x, att.y = rnd(enemy.x + fx * 0.0), rnd(enemy.y + fy * 0.0)
        att.facing = (enemy.facing + 180.0) % 360.0
        for u in st.units.values():                   # clear the way: nobody else touches either
            if u is not att and u is not enemy and u.alive and (
                    checks.base_distance(u, att) <= 0.05 or checks.base_distance(u, enemy) <= 0.05):
                u.status = "off"
        line = f"fight {enemy.id} {att.id}"
        try:
            ms, _ = best_ms(lambda: rs.apply(sc, st, a, g_parse(line)), runs)
            rows.append((f"melee ({line})", ms, "rules.apply on a copy, card walk included"))
        except Exception as e:                          # noqa: BLE001
            rows.append((f"melee ({line})", float("nan"), f"refused: {e}"))
    return rows


def g_parse(line: str):
    from engine.core.commands import parse
    from engine.core.game import dice_faces, get_ruleset
    return parse(line, dice_faces(get_ruleset("lion")))


def bench_demos() -> list[tuple[str, float, str]]:
    rows = []
    for path in sorted(Path(DEMO_DIR).glob("lion--*.txt")):
        _, scenario_id = path.stem.split("--", 1)
        seed, lines = read_script(path)
        t = time.perf_counter()
        g = Game.new("lion", scenario_id, seed)
        g.replay([split_side(line, g.ruleset.sides) for line in lines])
        ms = (time.perf_counter() - t) * 1000.0
        rows.append((f"replay {path.name}", ms, f"{len(lines)} commands, {ms / max(1, len(lines)):.1f} ms each"))
    if not rows:
        rows.append(("replay bot/demos/lion--*.txt", float("nan"), "no Lion demo yet"))
    return rows


def profile(top: int) -> None:
    g = Game.new("lion", "breitenfeld", SEED)
    st = on_card(g, "shoot_a")
    a, b = side_of_letter(st, "A"), side_of_letter(st, "B")
    for title, fn in (("Game.new breitenfeld", lambda: Game.new("lion", "breitenfeld", SEED)),
                      ("can_shoot A and B", lambda: (shoot.can_shoot(g.scenario, st, a),
                                                     shoot.can_shoot(g.scenario, st, b)))):
        pr = cProfile.Profile()
        pr.enable()
        fn()
        pr.disable()
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("cumulative").print_stats(top)
        print(f"\n== cProfile: {title} (cumulative, top {top}) ==")
        print("\n".join(line for line in out.getvalue().splitlines()[4:] if line.strip()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    Game.new("lion", "breitenfeld", SEED)            # imports and scenario files warmed
    rows = []
    for battle in BATTLES:
        rows += bench_battle(battle, args.runs)
    rows += bench_demos()
    width = max(len(r[0]) for r in rows)
    print(f"Lion of the North, seed {SEED}, best of {args.runs} (wall ms)")
    for name, ms, note in rows:
        print(f"  {name:<{width}}  {ms:9.1f} ms   {note}")
    if args.profile:
        profile(args.top)


if __name__ == "__main__":
    main()
