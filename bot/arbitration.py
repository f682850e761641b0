"""Service-side helpers of the arbitration commands (bot/cogs/arbitration.py): `/explain` reads
the channel's log and `/rules` the ruleset's rules index. No Discord in here; the rules and the
formatting live in the engine (engine/core/explain.py, engine/core/rulesdoc.py), the bot only
finds the game, picks the entry and packs the text into messages.

What is public: /explain shows every entry as all players and spectators may see it
(`engine.core.explain.entry_for_view` with the game's current state: a secret still kept is
shown as '(secret)'), whoever asks, so it is safe in the channel. Hidden information never
enters an event (a Battle Cry hand, a card drawn), and a TACW secret (the Second Newbury boat
bridge, D108) is redacted from the command lines and events until the game reveals it.
"""
from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from engine.core import rulesdoc
from engine.core.explain import Entry, entry_for_view, entry_label, format_entry
from engine.core.game import Ruleset

from .service import GameService, LoadedGame, Refused

log = logging.getLogger(__name__)

MESSAGE_LIMIT = 1990       # a Discord message holds 2000 characters
MAX_MESSAGES = 4           # beyond this, the whole text goes as a file
ENTRY_RE = re.compile(r"^\s*#?\s*(\d+)\b")


# == /explain =====================================================================================

def _undone(command: Any) -> bool:
    """Taken back (bot/undo.py marks it; the record of the undo itself is marked too, but is
    not a command taken back)."""
    if not getattr(command, "undone_at", None):
        return False
    try:
        from .undo import is_record
    except ImportError:
        return True
    return not is_record(command)


async def _all_commands(service: GameService, game_id: int) -> list:
    """Every command of the log, those taken back included: they stay visible (issue 5)."""
    try:
        return await service.store.commands(game_id, undone=True)
    except TypeError:               # a store without undo marks
        return await service.store.commands(game_id)


async def public_entries(service: GameService, channel_id: int) -> tuple[LoadedGame, list[Entry]]:
    """The channel's game (a finished one too) and its log as everyone may see it."""
    loaded = await service.load(channel_id, finished_ok=True)
    commands = await _all_commands(service, loaded.row.id)
    rs, sc, st = loaded.ruleset, loaded.scenario, loaded.state
    entries = [entry_for_view(Entry.from_record(c.seq, c.side, c.text, c.events, _undone(c)), rs, sc, st)
               for c in commands]
    return loaded, entries


def titles_for(ruleset: Ruleset):
    """`(citation, hint) -> section title` from the ruleset's rules index, or None."""
    try:
        index = rulesdoc.load_index(ruleset.id, ruleset)
    except rulesdoc.RulesIndexError:
        log.warning("the %s rules index is broken", ruleset.id, exc_info=True)
        return None
    if index is None:
        return None
    return lambda citation, hint="": index.title_of(f"{citation} {hint}".strip()) if hint and "§" in citation \
        else index.title_of(citation)


def pick_entry(entries: list[Entry], wanted: str | None) -> Entry:
    """The entry `wanted` names ('12', '#12', '#12 Union: ...'), or the last adjudication."""
    if not entries:
        raise Refused("nothing has happened in this game yet: there is no adjudication to explain")
    if wanted is None or not str(wanted).strip():
        for e in reversed(entries):
            if e.adjudications and not e.undone:
                return e
        raise Refused("no die has been rolled and no table consulted in this game yet; "
                      f"/explain entry:<number> explains any entry of /game log (1-{entries[-1].seq})")
    m = ENTRY_RE.match(str(wanted))
    if m is None:
        raise Refused(f"'{wanted}' is not a log entry: give its number, e.g. 12 (/game log shows them)")
    seq = int(m.group(1))
    for e in entries:
        if e.seq == seq:
            return e
    raise Refused(f"this game's log has no entry #{seq} (it runs from #{entries[0].seq} to #{entries[-1].seq})")


async def explain(service: GameService, channel_id: int, wanted: str | None) -> tuple[Entry, list[str]]:
    """The explanation of one entry as blocks of markdown (see `pack`)."""
    loaded, entries = await public_entries(service, channel_id)
    entry = pick_entry(entries, wanted)
    titles = await asyncio.to_thread(titles_for, loaded.ruleset)
    blocks = format_entry(entry, titles)
    blocks[0] += f" — game #{loaded.row.id}, {loaded.ruleset.name}"
    return entry, blocks


async def explain_choices(service: GameService, channel_id: int, prefix: str) -> list[tuple[str, str]]:
    """Autocomplete: the recent adjudications, newest first (never raises)."""
    try:
        _, entries = await public_entries(service, channel_id)
    except Exception:
        log.debug("no explain choices for %s", channel_id, exc_info=True)
        return []
    cur = (prefix or "").strip().lstrip("#").lower()
    out = []
    for e in reversed(entries):
        if not e.adjudications:
            continue
        label = entry_label(e)
        if cur and not (str(e.seq).startswith(cur) if cur.isdigit() else cur in label.lower()):
            continue
        out.append((label, str(e.seq)))
        if len(out) == 25:
            break
    return out


# == /rules =======================================================================================

async def ruleset_for(service: GameService, channel_id: int, ruleset_id: str | None) -> Ruleset:
    """The ruleset named, else the channel's game's (a finished one too)."""
    if ruleset_id and ruleset_id.strip():
        return service.ruleset_of(ruleset_id.strip().lower())
    row = await service.store.active_game(channel_id) or await service.store.latest_game(channel_id)
    if row is None:
        ids = ", ".join(service.ruleset_ids())
        raise Refused(f"this channel has no game: say which rules to search with the ruleset option ({ids})")
    return service.ruleset_of(row.ruleset)


def rules_text(ruleset: Ruleset, query: str) -> str:
    """The /rules answer (blocking: it may read the index and the tests)."""
    if not query or not query.strip():
        raise Refused("give a section number (4.6, §4.6) or words (retreat, horse artillery)")
    try:
        return rulesdoc.answer(ruleset.id, query, ruleset=ruleset)
    except rulesdoc.RulesIndexError as exc:
        log.error("rules index of %s: %s", ruleset.id, exc)
        raise Refused(f"the {ruleset.name} rules index cannot be read: {exc}") from None
    except LookupError as exc:
        raise Refused(str(exc.args[0] if exc.args else exc)) from None


def rules_choices(ruleset: Ruleset, prefix: str) -> list[tuple[str, str]]:
    """Autocomplete: sections by number prefix, else by words (never raises)."""
    try:
        index = rulesdoc.load_index(ruleset.id, ruleset)
    except Exception:
        return []
    if index is None:
        return []
    out = []
    for s in index.complete(prefix or "", 25):
        name = f"§{s.id} {s.title}" if rulesdoc.NUMBER_RE.match(s.id) else s.title
        out.append((name, s.id))
    return out


# == packing text into messages ===================================================================

def _split_block(block: str, limit: int) -> list[str]:
    """A block too long for one message, cut at line ends (a code block stays fenced)."""
    fenced = block.startswith("```") and block.endswith("```")
    body = block[3:-3].strip("\n") if fenced else block
    room = limit - (8 if fenced else 0)
    parts, cur = [], ""
    for line in body.split("\n"):
        while len(line) > room:                    # one enormous line: hard cut
            if cur:
                parts.append(cur)
                cur = ""
            parts.append(line[:room])
            line = line[room:]
        if cur and len(cur) + 1 + len(line) > room:
            parts.append(cur)
            cur = line
        else:
            cur = f"{cur}\n{line}" if cur else line
    if cur:
        parts.append(cur)
    return [f"```\n{p}\n```" if fenced else p for p in parts]


def pack(blocks: list[str], limit: int | None = None) -> list[str]:
    """Blocks -> message texts of at most `limit` characters, blocks kept whole where they fit."""
    limit = limit or MESSAGE_LIMIT
    pieces: list[str] = []
    for b in blocks:
        pieces += [b] if len(b) <= limit else _split_block(b, limit)
    messages, cur = [], ""
    for p in pieces:
        if cur and len(cur) + 1 + len(p) > limit:
            messages.append(cur)
            cur = p
        else:
            cur = f"{cur}\n{p}" if cur else p
    if cur:
        messages.append(cur)
    return messages


def plain(blocks: list[str]) -> str:
    """The blocks as a plain text file (no markdown fences)."""
    return "\n".join(b[3:-3].strip("\n") if b.startswith("```") and b.endswith("```") else b.replace("**", "")
                     for b in blocks) + "\n"
