"""The club features' tables of the game store: members (more players of a side, referees),
players' names, campaigns and a server's uploaded scenarios (migrations 2 and 3). `Store`
(bot/store.py) has them as a base class; the plumbing (`_transaction`, `_rows`, `_one`, and the
hooks where SQLite and PostgreSQL differ) and the games' own tables are there."""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from .store_base import (AlreadyExists, GameNotFound, LimitReached, SeatTaken, StoreError, UploadTaken, _dumps,
                         _now)

_CAMPAIGN_COLUMNS = "id, guild_id, name, ruleset, created_by, created_at, options"
_UPLOAD_COLUMNS = "guild_id, ruleset, scenario_id, title, text, uploaded_by, uploaded_at"


@dataclass(frozen=True)
class MemberRow:
    """One row of ``members`` (migration 2): a player beyond a side's first (``side``, and a
    ``wing`` or None for all of it) or a referee (no side). bot/club.py."""

    game_id: int
    user_id: int
    role: str
    side: str | None
    wing: str | None


@dataclass(frozen=True)
class CampaignRow:
    """One row of ``campaigns`` (migration 2; bot/campaigns.py): ``ruleset`` None = any ruleset;
    ``options`` is the decoded JSON object."""

    id: int
    guild_id: int | None
    name: str
    ruleset: str | None
    created_by: int | None
    created_at: str | None
    options: dict[str, Any]

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> CampaignRow:
        return cls(**{**dict(row), "options": json.loads(row["options"] or "{}")})


@dataclass(frozen=True)
class CampaignResultRow:
    """One row of ``campaign_results``: a side of a finished campaign game; ``detail`` decoded."""

    game_id: int
    side: str
    user_id: int | None
    outcome: str
    score: int
    detail: dict[str, Any]


@dataclass(frozen=True)
class CustomScenarioRow:
    """One row of ``custom_scenarios`` (migration 2; bot/uploads.py): a server's uploaded file."""

    guild_id: int
    ruleset: str
    scenario_id: str
    title: str
    text: str
    uploaded_by: int | None
    uploaded_at: str | None


class ClubTables:
    """The members, names, campaigns and custom scenarios tables (a base class of `Store`)."""

    # -- members: more players of a side, referees (bot/club.py) -------------------------------

    async def members(self, game_id: int) -> list[MemberRow]:
        """The game's members beyond the seats, referees first, then by side, wing and user."""
        rows = await self._rows(
            "SELECT game_id, user_id, role, side, wing FROM members WHERE game_id = ?"
            " ORDER BY role DESC, side NULLS FIRST, wing NULLS FIRST, user_id", (game_id,))
        return [MemberRow(**dict(r)) for r in rows]

    async def _member_conflict(self, db: aiosqlite.Connection, game_id: int, user_id: int) -> str | None:
        side = await self._one("SELECT side FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id), db)
        if side is not None:
            return f"already commands side {side!r} in this game"
        role = await self._one("SELECT role FROM members WHERE game_id = ? AND user_id = ?", (game_id, user_id), db)
        return f"is already a {role} in this game" if role is not None else None

    async def add_member(self, game_id: int, user_id: int, role: str, side: str | None = None,
                         wing: str | None = None) -> None:
        """Add a player (``side``, optional ``wing``) or a referee. Raises :class:`SeatTaken` if
        the user already has a seat or a role in the game, or another player holds the wing."""
        async with self._transaction() as db:
            await self._lock_game(db, game_id)
            if await self._one("SELECT 1 FROM games WHERE id = ?", (game_id,), db) is None:
                raise GameNotFound(f"no game {game_id}")
            conflict = await self._member_conflict(db, game_id, user_id)
            if conflict:
                raise SeatTaken(f"<@{user_id}> {conflict}")
            if wing is not None:
                holder = await self._one("SELECT user_id FROM members WHERE game_id = ? AND role = 'player'"
                                         " AND side = ? AND wing = ?", (game_id, side, wing), db)
                if holder is not None:
                    raise SeatTaken(f"wing {wing!r} already has its player (<@{holder}>)")
            await db.execute("INSERT INTO members (game_id, user_id, role, side, wing) VALUES (?, ?, ?, ?, ?)",
                             (game_id, user_id, role, side, wing))

    async def remove_member(self, game_id: int, user_id: int, role: str) -> MemberRow | None:
        """Drop the user's ``role`` in the game; returns what was dropped, or None."""
        async with self._transaction() as db:
            rows = await self._rows("SELECT game_id, user_id, role, side, wing FROM members WHERE game_id = ?"
                                    " AND user_id = ? AND role = ?", (game_id, user_id, role), db)
            await db.execute("DELETE FROM members WHERE game_id = ? AND user_id = ? AND role = ?",
                             (game_id, user_id, role))
            return MemberRow(**dict(rows[0])) if rows else None

    async def substitute(self, game_id: int, old_user: int, new_user: int) -> list[str]:
        """Give ``old_user``'s seat and player memberships to ``new_user``, in one transaction;
        returns the sides (``side`` or ``side/wing``) handed over. Raises :class:`SeatTaken`
        if the newcomer already has a seat or a role in the game."""
        async with self._transaction() as db:
            await self._lock_game(db, game_id)
            conflict = await self._member_conflict(db, game_id, new_user)
            if conflict:
                raise SeatTaken(f"<@{new_user}> {conflict}")
            moved = [r["side"] for r in await self._rows(
                "SELECT side FROM seats WHERE game_id = ? AND user_id = ?", (game_id, old_user), db)]
            moved += [f"{r['side']}/{r['wing']}" if r["wing"] else r["side"] for r in await self._rows(
                "SELECT side, wing FROM members WHERE game_id = ? AND user_id = ? AND role = 'player'",
                (game_id, old_user), db)]
            await db.execute("UPDATE seats SET user_id = ? WHERE game_id = ? AND user_id = ?",
                             (new_user, game_id, old_user))
            await db.execute("UPDATE members SET user_id = ? WHERE game_id = ? AND user_id = ? AND role = 'player'",
                             (new_user, game_id, old_user))
            return moved

    # -- names (migration 3) ---------------------------------------------------------------------

    async def remember_name(self, guild_id: int | None, user_id: int, name: str) -> bool:
        """Keep the name the user shows on the server (0: outside one); True when it was
        written. Cheap when nothing changed: the name last written is kept in memory, so only a
        new or changed name (or the first after a start) touches the database."""
        key = (int(guild_id or 0), int(user_id))
        name = " ".join(str(name or "").split())[:100]
        if not name or self._names.get(key) == name:
            return False
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO user_names (guild_id, user_id, display_name, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (guild_id, user_id) DO UPDATE SET display_name = excluded.display_name,"
                " updated_at = excluded.updated_at WHERE user_names.display_name != excluded.display_name",
                (*key, name, _now()))
        self._names[key] = name
        return True

    async def display_names(self, guild_id: int | None, user_ids: Sequence[int]) -> dict[int, str]:
        """user id -> the name last seen on the server, for those the store knows."""
        ids = sorted({int(u) for u in user_ids if u})
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = await self._rows(f"SELECT user_id, display_name FROM user_names WHERE guild_id = ?"
                                f" AND user_id IN ({marks})", (int(guild_id or 0), *ids))
        return {r["user_id"]: r["display_name"] for r in rows}

    # -- campaigns (bot/campaigns.py) ------------------------------------------------------------

    async def campaigns(self, guild_id: int | None) -> list[CampaignRow]:
        """The server's campaigns, by name (case does not matter)."""
        rows = await self._rows(f"SELECT {_CAMPAIGN_COLUMNS} FROM campaigns WHERE guild_id IS ?"
                                f" ORDER BY {self._nocase('name')}, name", (guild_id,))
        return [CampaignRow.from_row(r) for r in rows]

    async def campaign_named(self, guild_id: int | None, name: str) -> CampaignRow | None:
        """The server's campaign of that name (case does not matter), or None."""
        rows = await self._rows(f"SELECT {_CAMPAIGN_COLUMNS} FROM campaigns WHERE guild_id IS ?"
                                f" AND {self._nocase('name')} = {self._nocase('?')} ORDER BY id", (guild_id, name))
        return CampaignRow.from_row(rows[0]) if rows else None

    async def campaigns_of_game(self, game_id: int) -> list[CampaignRow]:
        """Every campaign holding the game, oldest first."""
        cols = ", ".join("c." + c for c in _CAMPAIGN_COLUMNS.split(", "))
        rows = await self._rows(f"SELECT {cols} FROM campaigns c JOIN campaign_games g ON g.campaign_id = c.id"
                                " WHERE g.game_id = ? ORDER BY c.id", (game_id,))
        return [CampaignRow.from_row(r) for r in rows]

    async def create_campaign(self, guild_id: int | None, name: str, ruleset: str | None,
                              created_by: int | None, *, limit: int) -> CampaignRow:
        """A new campaign, in one transaction. Raises :class:`AlreadyExists` if the server has
        one of that name (case does not matter) and :class:`LimitReached` past ``limit``."""
        async with self._transaction() as db:
            await self._lock_name(db, f"campaigns of {guild_id}")
            if await self._one(f"SELECT 1 FROM campaigns WHERE guild_id IS ? AND {self._nocase('name')}"
                               f" = {self._nocase('?')}", (guild_id, name), db):
                raise AlreadyExists(f"this server already has a campaign named '{name}'")
            if await self._one("SELECT COUNT(*) FROM campaigns WHERE guild_id IS ?", (guild_id,), db) >= limit:
                raise LimitReached(f"a server keeps at most {limit} campaigns")
            new_id = await self._insert_id(db, "INSERT INTO campaigns (guild_id, name, ruleset, created_by,"
                                           " created_at) VALUES (?, ?, ?, ?, ?)",
                                           (guild_id, name, ruleset, created_by, _now()))
            rows = await self._rows(f"SELECT {_CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ?", (new_id,), db)
            return CampaignRow.from_row(rows[0])

    async def add_campaign_game(self, campaign_id: int, game_id: int) -> None:
        """Put a game into a campaign. Raises :class:`AlreadyExists` if it is there already."""
        try:
            async with self._transaction() as db:
                if await self._one("SELECT 1 FROM campaign_games WHERE campaign_id = ? AND game_id = ?",
                                   (campaign_id, game_id), db):
                    raise AlreadyExists(f"game #{game_id} is already in this campaign")
                await db.execute("INSERT INTO campaign_games (campaign_id, game_id) VALUES (?, ?)",
                                 (campaign_id, game_id))
        except self._IntegrityError as exc:
            raise StoreError(f"cannot add game #{game_id} to the campaign: {exc}") from exc

    async def campaign_game_ids(self, campaign_id: int) -> list[int]:
        """The ids of the campaign's games, in order."""
        rows = await self._rows("SELECT game_id FROM campaign_games WHERE campaign_id = ? ORDER BY game_id",
                                (campaign_id,))
        return [r["game_id"] for r in rows]

    async def campaign_results(self, campaign_id: int) -> list[CampaignResultRow]:
        """The recorded sides of the campaign's finished games, by game then side."""
        rows = await self._rows("SELECT game_id, side, user_id, outcome, score, detail FROM campaign_results"
                                " WHERE campaign_id = ? ORDER BY game_id, side", (campaign_id,))
        return [CampaignResultRow(**{**dict(r), "detail": json.loads(r["detail"] or "{}")}) for r in rows]

    async def record_campaign_results(self, campaign_id: int, game_id: int,
                                      results: Sequence[CampaignResultRow]) -> bool:
        """Store a finished game's rows (one per side) in a campaign, all or nothing; False (and
        nothing written) if the game already has rows there: recording is idempotent."""
        try:
            async with self._transaction() as db:
                if await self._one("SELECT 1 FROM campaign_results WHERE campaign_id = ? AND game_id = ?",
                                   (campaign_id, game_id), db):
                    return False
                for r in results:
                    await db.execute(
                        "INSERT INTO campaign_results (campaign_id, game_id, side, user_id, outcome, score,"
                        " detail, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (campaign_id, game_id, r.side, r.user_id, r.outcome, r.score, _dumps(r.detail), _now()))
                return True
        except self._IntegrityError as exc:
            raise StoreError(f"game #{game_id}: cannot record its campaign result: {exc}") from exc

    # -- custom scenarios (bot/uploads.py) -------------------------------------------------------

    async def custom_scenario(self, guild_id: int, ruleset: str, scenario_id: str) -> CustomScenarioRow | None:
        """The server's uploaded scenario of that ruleset and id, or None."""
        rows = await self._rows(f"SELECT {_UPLOAD_COLUMNS} FROM custom_scenarios WHERE guild_id = ?"
                                " AND ruleset = ? AND scenario_id = ?", (guild_id, ruleset, scenario_id))
        return CustomScenarioRow(**dict(rows[0])) if rows else None

    async def custom_scenarios(self, guild_id: int, ruleset: str | None = None) -> list[CustomScenarioRow]:
        """The server's uploads (of one ruleset when given), by ruleset then title."""
        where, params = ("", (guild_id,)) if ruleset is None else (" AND ruleset = ?", (guild_id, ruleset))
        rows = await self._rows(f"SELECT {_UPLOAD_COLUMNS} FROM custom_scenarios WHERE guild_id = ?{where}"
                                f" ORDER BY ruleset, {self._nocase('title')} NULLS FIRST, scenario_id", params)
        return [CustomScenarioRow(**dict(r)) for r in rows]

    async def save_custom_scenario(self, row: CustomScenarioRow, *, may_replace_others: bool,
                                   limit: int) -> bool:
        """Store an upload, in one transaction; True if it replaced the server's file of the same
        ruleset and id. Raises :class:`UploadTaken` if that file is another member's and
        ``may_replace_others`` is false, :class:`LimitReached` when a new file would pass
        ``limit`` uploads on the server; nothing is written then."""
        async with self._transaction() as db:
            await self._lock_name(db, f"uploads of {row.guild_id}")
            holder = await self._rows("SELECT uploaded_by FROM custom_scenarios WHERE guild_id = ? AND ruleset = ?"
                                      " AND scenario_id = ?", (row.guild_id, row.ruleset, row.scenario_id), db)
            if holder and holder[0]["uploaded_by"] != row.uploaded_by and not may_replace_others:
                raise UploadTaken(f"scenario '{row.scenario_id}' belongs to another member",
                                  holder[0]["uploaded_by"])
            if not holder and await self._one("SELECT COUNT(*) FROM custom_scenarios WHERE guild_id = ?",
                                              (row.guild_id,), db) >= limit:
                raise LimitReached(f"this server already keeps {limit} uploaded scenarios: "
                                   "/scenario remove one first")
            await db.execute(f"INSERT INTO custom_scenarios ({_UPLOAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                             " ON CONFLICT (guild_id, ruleset, scenario_id) DO UPDATE SET title = excluded.title,"
                             " text = excluded.text, uploaded_by = excluded.uploaded_by,"
                             " uploaded_at = excluded.uploaded_at",
                             (row.guild_id, row.ruleset, row.scenario_id, row.title, row.text,
                              row.uploaded_by, row.uploaded_at or _now()))
            return bool(holder)

    async def delete_custom_scenario(self, guild_id: int, ruleset: str, scenario_id: str) -> bool:
        """Delete an upload; False if there was none."""
        async with self._transaction() as db:
            cursor = await db.execute("DELETE FROM custom_scenarios WHERE guild_id = ? AND ruleset = ?"
                                      " AND scenario_id = ?", (guild_id, ruleset, scenario_id))
            return cursor.rowcount > 0
