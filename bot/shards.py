"""Shards: which Discord servers this process serves (issue 17, "Several processes at once").

Discord splits a bot's servers (guilds) among *shards*, one gateway connection each: guild `g`
belongs to shard `(g >> 22) % total` (Discord's formula, `shard_of`). Direct messages belong to
shard 0. A bot on many servers runs several processes, each connecting a range of the shards,
all sharing one database (PostgreSQL, `HERALD_DATABASE_URL`).

`HERALD_SHARDS` says what this process runs:

    (unset or empty)  one process, one connection: the plain `commands.Bot` (fine below
                      Discord's 2,500 servers per connection)
    auto              one process running every shard, discord.py asks Discord how many
    0-3/8             shards 0, 1, 2 and 3 of 8 in all (another process runs 4-7/8)
    5/8               shard 5 of 8 only

Discord delivers a guild's interactions (slash commands, buttons) over its shard's connection,
so a channel's commands always reach the process owning that guild's shard. The work that no
interaction starts (resuming the games at start-up, decision deadlines, turn reminders and
referee notices) picks its games with `owned_games(service)`, which keeps only the games whose
guild this process owns: every game is handled by exactly one process. Nothing here imports
Discord.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ENV = "HERALD_SHARDS"
FORMS = "FIRST-LAST/TOTAL (e.g. 0-3/8), N/TOTAL (e.g. 5/8) or auto"
MAX_TOTAL = 100_000             # a sanity bound: Discord's largest bots run a few thousand shards
_FORM = re.compile(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?/\s*([0-9]+)\s*")


class ShardsError(ValueError):
    """A HERALD_SHARDS value Herald cannot use; the message says why and what is expected."""


def shard_of(guild_id: int | None, total: int) -> int:
    """The shard of `guild_id` among `total` shards: `(guild_id >> 22) % total`, Discord's
    formula (its "Sharding" documentation). A direct message (no guild) is shard 0."""
    if total < 1:
        raise ValueError(f"a bot has at least one shard, not {total}")
    if guild_id is None:
        return 0
    return (int(guild_id) >> 22) % total


@dataclass(frozen=True)
class Shards:
    """The shards one process runs: `ids` of `total` (both None for `auto`: every shard, as
    many as Discord recommends)."""
    ids: tuple[int, ...] | None
    total: int | None

    def owns(self, guild_id: int | None) -> bool:
        """Does this process run the shard of `guild_id` (None: a direct message, shard 0)?"""
        if self.ids is None or self.total is None:
            return True                       # auto: every shard is here
        return shard_of(guild_id, self.total) in self.ids

    def client_options(self) -> dict[str, Any]:
        """The keyword arguments of `commands.AutoShardedBot` for these shards."""
        if self.ids is None:
            return {}                         # discord.py fetches the recommended count
        return {"shard_ids": list(self.ids), "shard_count": self.total}

    def describe(self) -> str:
        if self.ids is None:
            return "every shard (as many as Discord recommends)"
        if len(self.ids) == 1:
            return f"shard {self.ids[0]} of {self.total}"
        return f"shards {self.ids[0]}-{self.ids[-1]} of {self.total}"


def parse(text: str | None) -> Shards | None:
    """A HERALD_SHARDS value: None when unset or blank (one plain connection), else the
    process's `Shards`. Raises `ShardsError`, naming the value and the accepted forms."""
    if text is None or not text.strip():
        return None
    if text.strip().lower() == "auto":
        return Shards(None, None)

    def bad(why: str) -> ShardsError:
        return ShardsError(f"{ENV}={text.strip()!r}: {why}; expected {FORMS}")

    m = _FORM.fullmatch(text)
    if m is None:
        raise bad("not a shard range")
    first, last, total = int(m[1]), int(m[2] if m[2] is not None else m[1]), int(m[3])
    if total < 1:
        raise bad("the total number of shards is at least 1")
    if total > MAX_TOTAL:
        raise bad(f"{total} shards is more than any bot needs (at most {MAX_TOTAL:,})")
    if last < first:
        raise bad(f"the range runs backwards ({first} to {last})")
    if last >= total:
        raise bad(f"there is no shard {last} among {total} (they are numbered 0 to {total - 1})")
    return Shards(tuple(range(first, last + 1)), total)


def from_env(environ: Mapping[str, str] | None = None) -> Shards | None:
    """`parse` of HERALD_SHARDS in `environ` (default: the process's environment)."""
    return parse((os.environ if environ is None else environ).get(ENV))


def owns(shards: Shards | None, guild_id: int | None) -> bool:
    """Does a process running `shards` (None: one plain connection, every guild) own `guild_id`?"""
    return shards is None or shards.owns(guild_id)


def owned(shards: Shards | None, rows: Iterable[Any]) -> list[Any]:
    """The game rows (anything with a `guild_id`) whose guild a process running `shards` owns."""
    return [row for row in rows if owns(shards, row.guild_id)]


async def owned_games(service: Any) -> list[Any]:
    """The resumable (active) games this process handles: the store's `resumable_games`, kept
    to the guilds of the service's shards (`service.shards`, set by the sharded client; None:
    all). The loops not tied to an interaction pick their games here."""
    return owned(getattr(service, "shards", None), await service.store.resumable_games())
