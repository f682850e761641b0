"""Players' names (issue 11): as each player shows on the server, kept by the store.

Standings, exports, the standings picture, /seat list, /game list and the status messages name
players without the member cache, which stays empty without the members intent (Herald does not
ask for it): the name comes from the interactions themselves. Every command a user gives (joining
a game, taking a seat, each later action, a button) hands the store `interaction.user.display_name`
(the server nickname, else the global name, else the user name); the store writes it only when
it is new or changed (`Store.remember_name`), so this costs a dict lookup per interaction.

A user Herald has never seen (a substitute before their first command) keeps their mention.
Nothing here decides a rule; nothing here imports a feature module (a leaf beside bot/store.py).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

log = logging.getLogger(__name__)

_MARKDOWN = re.compile(r"([\\*_~`|>])")
_MENTION = re.compile(r"([@<#])")


def plain(name: str) -> str:
    """A name as plain text in a Discord message: its markdown escaped and any mention it spells
    broken (a zero-width space after @, <, #), so it shows as typed and pings nobody."""
    text = _MARKDOWN.sub(r"\\\1", " ".join(str(name).split()))
    return _MENTION.sub("\\1\u200b", text)


def label(user_id: int | None, names: Mapping[int, str] | None = None) -> str:
    """How a message names a player: their stored name, else their mention."""
    if not user_id:
        return "(free seat)"
    name = (names or {}).get(user_id)
    return plain(name) if name else f"<@{user_id}>"


async def remember(store: Any, interaction: Any) -> None:
    """Keep the name of the user behind `interaction` (when it changed); never raises: it runs
    before every command, which must not fail for it."""
    user = getattr(interaction, "user", None)
    if store is None or user is None or getattr(store, "closed", False) or getattr(user, "bot", False):
        return
    try:
        await store.remember_name(interaction.guild_id, user.id, user.display_name)
    except Exception:
        log.warning("the name of user %s could not be kept", getattr(user, "id", "?"), exc_info=True)
