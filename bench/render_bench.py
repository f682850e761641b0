"""Battle Cry render benchmark: render + PNG encode time, PNG size, and encoder variants.

    .venv/bin/python bench/render_bench.py [--runs N] [--out DIR]

Uses the first scenario file in engine/battlecry/scenarios/ (load_scenario + new_state) when
there is one, otherwise the inline demo scenario of renders/demo.py (parse_scenario). Prints:
  - cold render (terrain layer and sprite caches empty) and the median of N warm renders,
    split into drawing and encoding;
  - PNG size in KiB and its ratio to a blank image of the same size encoded the same way;
  - the encode options compared (RGB zlib levels, palette quantisation).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image, __version__ as PIL_VERSION  # noqa: E402

from engine.battlecry.setup import new_state  # noqa: E402
from renders import battlecry as bc  # noqa: E402
from renders import battlecry_art as art  # noqa: E402
from renders.common import encode_png  # noqa: E402


def pick_scenario():
    from engine.battlecry.scenario import SCENARIO_DIR, load_scenario
    files = sorted(SCENARIO_DIR.glob("*.toml"))
    if files:
        return load_scenario(files[0].stem), f"scenario file {files[0].name}"
    from renders.demo import demo_scenario
    return demo_scenario(), "inline demo scenario (renders/demo.py)"


def busy_state(scenario):
    """A setup state plus a last action touching real pieces, so the overlay is drawn too."""
    state = new_state(scenario, seed=1)
    units = [p for p in state.pieces.values() if p.kind != "general" and p.hex]
    if units:
        p = units[0]
        grid = scenario.grid
        free = [n for n in grid.neighbors(p.hex)
                if not any(q.hex == n for q in state.pieces.values())]
        if free:
            start = p.hex
            p.hex = free[0]
            state.last_action = {"items": [{"kind": "move", "piece": p.id, "path": [start, p.hex]}]}
        enemy = [q for q in units if q.side != p.side]
        if enemy:
            state.last_action.setdefault("items", []).append(
                {"kind": "battle", "piece": p.id, "from": p.hex, "to": enemy[0].hex,
                 "hits": 1, "retreats": 1})
    return state


def clear_caches() -> None:
    bc._terrain_layer.cache_clear()
    art.terrain_tile.cache_clear()
    art.counter_sprite.cache_clear()
    art.general_sprite.cache_clear()


def timed(fn, runs: int) -> tuple[float, object]:
    ts, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1000, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--out", default="/tmp/herald_renders")
    args = ap.parse_args()
    scenario, where = pick_scenario()
    state = busy_state(scenario)
    print(f"Pillow {PIL_VERSION}, Python {sys.version.split()[0]}; {where}: {scenario.title}")

    colds = []
    for _ in range(3):
        clear_caches()
        t = time.perf_counter()
        bc.render_board(scenario, state)
        colds.append((time.perf_counter() - t) * 1000)
    print(f"cold render+encode (caches cleared): median {statistics.median(colds):6.1f} ms "
          f"(runs {', '.join(f'{c:.0f}' for c in colds)})")

    draw_ms, image = timed(lambda: bc.render_board_image(scenario, state), args.runs)
    enc_ms, png = timed(lambda: encode_png(image), args.runs)
    total_ms, png = timed(lambda: bc.render_board(scenario, state), args.runs)
    crop_ms, crop_png = timed(lambda: bc.render_board(scenario, state, size="crop"), args.runs)
    blank = encode_png(Image.new("RGB", image.size, (255, 255, 255)))
    print(f"warm, median of {args.runs}: draw {draw_ms:6.1f} ms + encode {enc_ms:6.1f} ms; "
          f"render_board {total_ms:6.1f} ms; crop {crop_ms:6.1f} ms")
    print(f"image {image.width}x{image.height}; PNG {len(png) / 1024:7.1f} KiB; blank same size "
          f"{len(blank) / 1024:5.1f} KiB; ratio {len(png) / len(blank):6.1f}x; "
          f"crop PNG {len(crop_png) / 1024:6.1f} KiB")

    print("encode variants of the same image (median ms, KiB):")
    variants = [
        ("RGB zlib 1", lambda: encode_png(image, palette=None, compress_level=1)),
        ("RGB zlib 6", lambda: encode_png(image, palette=None, compress_level=6)),
        ("P256 octree zlib 1", lambda: encode_png(image, palette=256, compress_level=1)),
        ("P256 octree zlib 6", lambda: encode_png(image, palette=256, compress_level=6)),
        ("P128 octree zlib 6", lambda: encode_png(image, palette=128, compress_level=6)),
    ]
    for name, fn in variants:
        ms, data = timed(fn, max(5, args.runs // 2))
        print(f"  {name:20s} {ms:7.1f} ms {len(data) / 1024:8.1f} KiB")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_board.png").write_bytes(png)
    (out / "bench_board_crop.png").write_bytes(crop_png)
    print(f"wrote {out / 'bench_board.png'} and {out / 'bench_board_crop.png'}")


if __name__ == "__main__":
    main()
