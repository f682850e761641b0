"""A board is the same picture on every run (DESIGN principle 1 reaches the drawings: a replay,
a GIF or a test must not depend on Python's hash seed, which orders sets)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import hashlib
from engine.core.game import Game
from renders import board_module
for rid, sid in (("tacw", "first-newbury"), ("tacw", "second-newbury"), ("tacw", "edgehill"),
                 ("battlecry", "first-bull-run")):
    g = Game.new(rid, sid, 1)
    draw = board_module(rid).render_board
    print(sid, hashlib.sha1(draw(g.scenario, g.state, viewer=None, size="full")).hexdigest())
"""


def boards(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout


def test_the_same_board_whatever_the_hash_seed():
    first = boards("1")
    assert first.count("\n") == 4
    assert boards("2") == first          # First Newbury's deployment areas once came out in set order
