"""Terrain tiles kept on disk (issue 13): a render worker that starts cold draws every tile of the
crops it is asked for, 5-20 ms each, 20-30 tiles for a crop in a new part of the map -- the
slowest boards of the first minutes after a start, drawn once per worker. Tiles written here are
shared by the workers and by the next start: reading one back costs about 0.5 ms.

A tile's name holds the scenario key (its id and a digest of everything its terrain draws), the
zoom and the tile's place, and the version of the drawing: a digest of the drawing modules'
source and of Pillow's version, so a changed renderer never reads an old tile. A write goes to a
temporary file renamed into place (another worker reading sees the whole tile or none); a folder
that cannot be written or a damaged file only costs drawing the tile again.

HERALD_TILE_CACHE: the folder (default `$XDG_CACHE_HOME/herald/tiles`, else
`~/.cache/herald/tiles`); `off` keeps tiles in memory only.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import tempfile
from functools import lru_cache
from pathlib import Path

import PIL

_HEAD = struct.Struct("<II")        # width, height; then the zlib-packed RGB bytes


@lru_cache(maxsize=1)
def folder() -> Path | None:
    """The tile folder, or None when tiles stay in memory (HERALD_TILE_CACHE=off)."""
    chosen = os.environ.get("HERALD_TILE_CACHE", "").strip()
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "herald" / "tiles"


@lru_cache(maxsize=8)
def drawing_version(*modules: str) -> str:
    """A digest of the source of `modules` (files beside this one) and of Pillow's version."""
    h = hashlib.sha1(PIL.__version__.encode())
    here = Path(__file__).parent
    for name in modules:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()[:12]


def _path(name: str) -> Path | None:
    base = folder()
    return None if base is None else base / f"{name}.tile"


def read(name: str) -> tuple[tuple[int, int], bytes] | None:
    """((width, height), packed bytes) of tile `name`, or None when it is not on disk."""
    path = _path(name)
    if path is None:
        return None
    try:
        data = path.read_bytes()
        w, h = _HEAD.unpack_from(data)
        return (w, h), data[_HEAD.size:]
    except (OSError, struct.error):
        return None


def exists(name: str) -> bool:
    """Whether tile `name` is on disk (False when tiles stay in memory)."""
    path = _path(name)
    return path is not None and path.exists()


def write(name: str, size: tuple[int, int], packed: bytes) -> None:
    """Keep tile `name` on disk (best effort: a failure only means drawing it again later)."""
    path = _path(name)
    if path is None:
        return
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(_HEAD.pack(*size) + packed)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
