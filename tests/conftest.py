"""Session-wide settings for every test: terrain tiles kept on disk (renders/tile_store.py) go to
a folder of this run, not the user's cache."""
from __future__ import annotations

import os
import tempfile

os.environ.setdefault("HERALD_TILE_CACHE", tempfile.mkdtemp(prefix="herald-tiles-"))
