"""Custom scenarios a server uploads (issue 5, "Custom scenarios"): validate a file, preview it,
store it in `custom_scenarios` (bot/migrations.py, migration 2), and find it again for
/game new on that server.

Validation, in order, all before anything is stored (a rejected file stores nothing):
1. size: at most the ruleset's `max_scenario_bytes` (its scenario reader's own limit);
2. text: UTF-8 (the error names the line of the first bad byte);
3. schema: the ruleset's `parse_scenario`, the same validator the built-in battles pass (TOML
   syntax, fields, every unit on a hex of the map that it may stand on...); its message is kept
   and, where it names a field (``units[3].hex``), the line of that field is added;
4. set-up: the ruleset's first state is built from it (seed 1), as /game new would;
5. the id: lower-case letters, digits and hyphens, and not a built-in battle of the ruleset.
The preview is the ruleset's board render of that first state (renders/<ruleset>.render_board).

Games created from an upload keep the file's text in `games.scenario_text` (as every custom
game does), so removing or replacing the upload never changes a game already created.
Who may (HERALD decision): any member of the server may upload a new scenario (a club's
designers are rarely its admins; the file is validated, the preview is posted publicly with the
uploader's name, and a server keeps at most MAX_PER_SERVER uploads). Replacing or removing a
file is for its uploader or a server manager (the Manage Server or Administrator permission):
nobody overwrites a colleague's battle. Uploads are per server: /game new on another server
never sees them.

No Discord here: the cog is bot/cogs/scenarios.py. Every query is a public method of
bot/store.py.
"""
from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core.errors import HeraldError
from engine.core.game import Ruleset, new_state
from engine.core.scenario_files import key_line

from .errors import NotAllowed, Refused
from .store import CustomScenarioRow, UploadTaken
from renders import board_module

if TYPE_CHECKING:
    from .service import GameService
    from .store import Store

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 64 * 1024
MAX_PER_SERVER = 50
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")
PREVIEW_SEED = 1
CUSTOM_PREFIX = "custom:"          # an autocomplete value may say explicitly "the uploaded one"


def install(service: GameService) -> None:
    """Join the service (bot/hooks.py): /game new also finds the server's uploaded scenarios."""
    service.hooks.scenario_sources.append(custom_text)


class UploadRejected(Refused):
    """The file is not a valid scenario; the message says what is wrong and where."""


CustomScenario = CustomScenarioRow      # one row of `custom_scenarios` (bot/store.py)


@dataclass
class Checked:
    """A file that passed every check: its text, the parsed scenario and its first state."""
    ruleset: Ruleset
    text: str
    scenario: Any
    state: Any

    @property
    def scenario_id(self) -> str:
        return str(self.scenario.id)

    @property
    def title(self) -> str:
        return str(getattr(self.scenario, "title", "") or self.scenario_id)


# --- where in the file ---------------------------------------------------------------------------
_STEP = re.compile(r"([A-Za-z_][\w-]*)(?:\[(\d+)\])?(?:\s*\(([^)]*)\))?")


def locate(message: str, text: str) -> int | None:
    """The line a validator's message points at, or None. Messages name the place after the
    file and the scenario id ("file [id] units[3] (Foot).hexes: ..."); an element named by id
    ("wings (w1)") is found by its `id`."""
    m = re.search(r"\]\s+([^:]+?):", message) or re.search(r"^[^\[:]*?\s([\w\-.\[\]]+):", message)
    if not m:
        return None
    where = m.group(1)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        data = {}
    steps: list[str] = []
    node: Any = data
    for name, idx, ident in _STEP.findall(where):
        child = node.get(name) if isinstance(node, dict) else None
        if idx == "" and ident and isinstance(child, list):
            found = next((i for i, e in enumerate(child) if isinstance(e, dict) and str(e.get("id")) == ident), None)
            idx = "" if found is None else str(found)
        steps.append(f"{name}[{idx}]" if idx != "" else name)
        node = child[int(idx)] if idx != "" and isinstance(child, list) and int(idx) < len(child) else child
    return key_line(text, ".".join(steps)) if steps else None


# --- validation ----------------------------------------------------------------------------------
def max_bytes(rs: Ruleset) -> int:
    return int(getattr(rs, "max_scenario_bytes", DEFAULT_MAX_BYTES))


def builtin_ids(rs: Ruleset) -> set[str]:
    return {sid for sid, _ in rs.scenarios()}


def check_size(rs: Ruleset, size: int, filename: str) -> None:
    limit = max_bytes(rs)
    if size > limit:
        raise UploadRejected(f"{filename} is {size // 1024 + 1} KiB: a {rs.name} scenario file is at most "
                             f"{limit // 1024} KiB")
    if size == 0:
        raise UploadRejected(f"{filename} is empty")


def decode(data: bytes, filename: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise UploadRejected(f"{filename}, line {line}: not UTF-8 text (save the file as UTF-8)") from None


def validate(rs: Ruleset, data: bytes, filename: str) -> Checked:
    """Every check of the module docstring; UploadRejected says what is wrong and where."""
    check_size(rs, len(data), filename)
    text = decode(data, filename)
    try:
        sc = rs.parse_scenario(text, source=filename)
    except ValueError as exc:                   # each ruleset's ScenarioError
        msg = str(exc)
        line = locate(msg, text) if "line " not in msg else None
        raise UploadRejected(f"{msg}" + (f" (line {line})" if line else "")) from None
    except Exception as exc:                    # a validator's own bug must not reach the user
        log.exception("%s: the %s scenario reader failed", filename, rs.id)
        raise UploadRejected(f"{filename}: this file could not be read as a {rs.name} scenario "
                             f"({type(exc).__name__}); check it against a bundled scenario") from None
    sid = str(getattr(sc, "id", "") or "")
    id_line = key_line(text, "id", exact=True)
    at = f" (line {id_line})" if id_line else ""
    if not ID_RE.match(sid):
        raise UploadRejected(f"{filename}: id = {sid!r}: a scenario id is 1-48 lower-case letters, digits "
                             f"and hyphens, starting with a letter or digit{at}")
    if sid in builtin_ids(rs):
        raise UploadRejected(f"{filename}: id '{sid}' is a built-in {rs.name} battle; give your file its own id{at}")
    try:
        state = new_state(rs, sc, PREVIEW_SEED)
    except (ValueError, HeraldError, KeyError) as exc:
        raise UploadRejected(f"{filename}: the battle cannot be set up: {exc}") from None
    except Exception as exc:
        log.exception("%s: the %s set-up failed", filename, rs.id)
        raise UploadRejected(f"{filename}: the battle cannot be set up ({type(exc).__name__})") from None
    return Checked(rs, text, sc, state)


def preview(checked: Checked) -> bytes | None:
    """The board PNG of the scenario's first state, or None if the ruleset has no renderer or it
    failed (the file is valid either way). Blocking: call through asyncio.to_thread."""
    try:
        module = board_module(checked.ruleset.id)
        return module.render_board(checked.scenario, checked.state, viewer=None, size="full")
    except Exception:
        log.exception("preview failed for an uploaded %s scenario", checked.ruleset.id)
        return None


def summary(checked: Checked) -> str:
    """One line: units per side, and the provenance note if the file has one."""
    sc = checked.scenario
    units = getattr(sc, "units", None)
    counts: dict[str, int] = {}
    if isinstance(units, dict):
        units = list(units.values())
    for u in units or []:
        if getattr(u, "kind", "") != "general":
            counts[u.side] = counts.get(u.side, 0) + 1
    parts = [f"{side.title()} {counts.get(side, 0)} units" for side in checked.ruleset.sides]
    return ", ".join(parts)


# --- the store (bot/store.py) -------------------------------------------------------------------
async def get(store: Store, guild_id: int, ruleset_id: str, scenario_id: str) -> CustomScenario | None:
    return await store.custom_scenario(guild_id, ruleset_id, scenario_id)


async def listing(store: Store, guild_id: int, ruleset_id: str | None = None) -> list[CustomScenario]:
    return await store.custom_scenarios(guild_id, ruleset_id)


async def save(store: Store, guild_id: int, checked: Checked, user_id: int, is_manager: bool) -> bool:
    """Store a checked upload; True if it replaced the server's earlier file of the same id
    (allowed to its uploader or a server manager: module docstring, "Who may")."""
    row = CustomScenario(guild_id, checked.ruleset.id, checked.scenario_id, checked.title, checked.text,
                         user_id, None)
    try:
        return await store.save_custom_scenario(row, may_replace_others=is_manager, limit=MAX_PER_SERVER)
    except UploadTaken as exc:
        raise NotAllowed(f"this server already has a {checked.ruleset.name} scenario '{checked.scenario_id}', "
                         f"uploaded by <@{exc.holder}>: only they or a server manager may replace it "
                         "(or give your file another id)") from None


async def remove(store: Store, guild_id: int, ruleset_id: str, scenario_id: str, user_id: int,
                 is_manager: bool) -> CustomScenario:
    """Delete an upload: by its uploader or a server manager. Games already created from it
    keep their copy of the text."""
    sid = (scenario_id or "").strip().removeprefix(CUSTOM_PREFIX)
    found = await get(store, guild_id, ruleset_id, sid)
    if found is None:
        raise Refused(f"this server has no uploaded {ruleset_id} scenario '{sid}' (/scenario list)")
    if found.uploaded_by != user_id and not is_manager:
        raise NotAllowed(f"only <@{found.uploaded_by}>, who uploaded it, or a server manager "
                         "(Manage Server) may remove it")
    await store.delete_custom_scenario(guild_id, ruleset_id, sid)
    return found


async def custom_text(store: Store, guild_id: int | None, rs: Ruleset, scenario_id: str) -> str | None:
    """The text /game new plays for `scenario_id` on this server: the server's upload of that id
    ("custom:<id>" asks for the upload explicitly), or None for a built-in battle. A built-in id
    always means the built-in battle (uploads may not take one, see `validate`)."""
    if guild_id is None or not scenario_id:
        return None
    explicit = scenario_id.startswith(CUSTOM_PREFIX)
    sid = scenario_id.removeprefix(CUSTOM_PREFIX)
    found = await get(store, guild_id, rs.id, sid)
    if found is None:
        if explicit:
            raise Refused(f"this server has no uploaded {rs.name} scenario '{sid}' (/scenario list)")
        return None
    if not explicit and sid in builtin_ids(rs):
        return None
    return found.text


async def choices(store: Store, guild_id: int | None, ruleset_id: str) -> list[tuple[str, str]]:
    """(value, title) of the server's uploads of a ruleset, for the /game new autocomplete."""
    if guild_id is None:
        return []
    return [(f"{CUSTOM_PREFIX}{c.scenario_id}", c.title) for c in await listing(store, guild_id, ruleset_id)]
