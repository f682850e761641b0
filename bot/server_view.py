"""The server view (issue 5, Club play): `/game list`, the server's games in one message.

Above both bot/club.py (who the game waits on) and bot/deadlines.py (the turn deadline of each
game), which it reads; neither imports it (DESIGN "Layers, one way").
"""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from . import club
from .deadlines import turn_wait

if TYPE_CHECKING:
    from .service import GameService

MAX_GAMES_LISTED = 25


async def game_list(service: GameService, guild_id: int | None, now: datetime | None = None,
                    limit: int = 1900) -> str:
    """/game list: the server's games in setup or play (newest first), each with its channel,
    battle, turn, who is to move and their turn deadline; then the latest finished games.
    Fits one Discord message: what does not fit is counted."""
    if guild_id is None:
        return "/game list shows a server's games: use it in a server channel."
    rows = await service.store.list_games(guild_id)
    finished = await service.store.finished_games(guild_id, 5)
    if not rows and not finished:
        return "No game on this server yet: start one with /game new in a channel."
    lines = [f"**{len(rows)} game(s) in setup or play on this server**" if rows
             else "No game in setup or play on this server: start one with /game new."]
    left = 0
    for row in rows[:MAX_GAMES_LISTED]:
        try:
            loaded = await service.load_row(row)
            title = getattr(loaded.scenario, "title", row.scenario_id)
            waiting = club.waiting_text(loaded, await club.player_names(service, loaded))
            line = (f"#{row.id} <#{row.channel_id}> · {loaded.ruleset.name}: {title} (turn "
                    f"{getattr(loaded.state, 'turn', '?')}) · {waiting}")
            wait = await turn_wait(service, loaded)
            if wait is not None:
                late = now is not None and now >= wait.expires
                line += f" · ⏰ {'overdue since' if late else 'due'} <t:{int(wait.expires.timestamp())}:R>"
        except Exception:           # one broken game must not hide the others
            line = f"#{row.id} <#{row.channel_id}> · {row.ruleset}: {row.scenario_id} · (cannot be read)"
        if sum(len(x) + 1 for x in lines) + len(line) > limit:
            left += 1
            continue
        lines.append(line)
    left += max(0, len(rows) - MAX_GAMES_LISTED)
    if left:
        lines.append(f"… and {left} more (newest first; each channel's /game status has the details)")
    if finished:
        done = ["**Recently finished**"]
        for row in finished:
            try:
                rs = service.ruleset_of(row.ruleset)
                name = f"{rs.name}: {getattr(service.scenario_of(row, rs), 'title', row.scenario_id)}"
            except Exception:
                name = f"{row.ruleset}: {row.scenario_id}"
            done.append(f"#{row.id} <#{row.channel_id}> · {name} · 🏁 {row.result or 'over'}")
        for line in done:
            if sum(len(x) + 1 for x in lines) + len(line) > limit:
                break
            lines.append(line)
    return "\n".join(lines)
