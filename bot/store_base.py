"""The store's leaves: its errors and the small helpers every table uses (bot/store.py,
bot/store_club.py). Imports nothing from bot/."""
from __future__ import annotations

import json
import zlib
from datetime import datetime, timezone
from typing import Any


class StoreError(Exception):
    """Base class for every error the store raises on purpose."""


class ChannelBusy(StoreError):
    """The channel already has a game in setup or active status."""


class GameNotFound(StoreError):
    """No game with that id."""


class SeatTaken(StoreError):
    """The side is held by someone else, or the user already holds another side."""


class DuplicateInteraction(StoreError):
    """This interaction id was already applied; the retried write was dropped."""


class SeqConflict(StoreError):
    """The command's seq is not last_seq + 1: the writer worked from a stale state."""


class AlreadyExists(StoreError):
    """A campaign of that name, or a game already in that campaign."""


class LimitReached(StoreError):
    """A server already keeps the most campaigns or uploaded scenarios allowed."""


class UploadTaken(StoreError):
    """The server's upload of that id belongs to another member; ``holder`` is their id."""

    def __init__(self, message: str, holder: int | None) -> None:
        super().__init__(message)
        self.holder = holder


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- snapshots (issue 13) ------------------------------------------------------------------------
# A snapshot is a cache of the state after a command (the log is the truth, DESIGN principle 2).
# The service stores one every SNAPSHOT_EVERY commands (a keyframe); loading a game reads the
# newest keyframe and replays the few commands after it. Stored as zlib-compressed JSON (about an
# eighth of the text); rows written before migration 4 hold JSON text and still read.
SNAPSHOT_EVERY = 8
# ... and sooner when the commands since the last keyframe took this long to apply (issue 13):
# loading replays them, and a TACW move through the enemy's Reaction Fire checks costs 20-50 ms
# (a Marston Moor loaded from a keyframe 7 commands back took up to 65 ms; the target is 20 ms).
# 8 ms rather than 12: loads of the load bench's late TACW games max 16-18 ms instead of 18-19,
# for snapshots 2.05 x the log's size instead of 1.83 (bench/load_bench.py, 2026-11-28)
KEYFRAME_COST_MS = 8.0


def is_keyframe(seq: int, cost_ms: float = 0.0) -> bool:
    """Whether the state after command `seq` is kept as a snapshot: every SNAPSHOT_EVERY
    commands, and when `cost_ms` (the time the commands since the last keyframe took to apply,
    this one included) reaches KEYFRAME_COST_MS."""
    return seq % SNAPSHOT_EVERY == 0 or cost_ms >= KEYFRAME_COST_MS


def encode_state(state: dict[str, Any]) -> bytes:
    """A state dict as a snapshot blob. Pure CPU: the service calls it off the event loop."""
    return zlib.compress(_dumps(state).encode("utf-8"), 6)


def decode_state(raw: bytes | str | memoryview) -> dict[str, Any]:
    """A snapshot blob (or a pre-migration-4 JSON text) as the state dict."""
    if isinstance(raw, str):
        return json.loads(raw)
    return json.loads(zlib.decompress(bytes(raw)))
