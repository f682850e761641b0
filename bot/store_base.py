"""The store's leaves: its errors and the small helpers every table uses (bot/store.py,
bot/store_club.py). Imports nothing from bot/."""
from __future__ import annotations

import json
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
