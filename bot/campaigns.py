"""Club campaigns (issue 5, "Campaigns"): a server's named series of games, the results recorded
when each game ends, and the standings per player and per side.

Tables (bot/migrations.py, migration 2): `campaigns`, `campaign_games`, `campaign_results` (one
row per side of a finished game). No Discord here; the cog is bot/cogs/campaign.py, the picture
renders/standings.py.

Scoring is the ruleset's (DESIGN: the bot never decides a rule): a ruleset offers
`campaign_score(scenario, state) -> {side: (outcome, score, detail)}` and `campaign_terms` (what
the score is called, its rule and section), looked up with getattr so a later ruleset joins by
adding them. Battle Cry scores Campaign Flags (BC §6, digest §5.3), TACW its victory level with
the VP difference as tie-break (engine/tacw/ruleset.py). A ruleset without them gets
`GENERIC_TERMS` (HERALD: win 2, draw 1, loss 0, from the state's `winner`).

Battle Cry's own campaign rule (battle-cry.it.txt p. 10-11, "Campagne", "Giocare una
Campagna", "Vincere una Campagna", "Bilanciare gli Scenari"; digest §5.3 and §6; engine:
engine/battlecry/campaign.py):
  * a campaign groups at least three battles (Herald shows how many remain, it does not refuse
    the standings before);
  * the winner of each battle gains Campaign Flags = the flags he captured - the flags his
    opponent captured; the loser gains none (HERALD: never below 0, e.g. after a resignation);
  * the campaign is won by the player holding the most Campaign Flags at its end: players are
    ranked on Campaign Flags, not on wins (HERALD tie-break: the flag difference);
  * balancing: in a lopsided scenario the players play it again with sides swapped, and the
    winner is whoever has the most Campaign Flags over both battles. Herald credits each result
    to the player who held the side IN THAT GAME (the return game of /game rematch has the seats
    swapped), so a player's line adds his flags as Union in one game and as Confederate in the
    other; the return game joins its first game's campaigns by itself (`adopt_return_games`).

When a result is recorded: `record_game`, on the service's `on_game_ended` (bot/hooks.py; this
module's `install`), emitted where a game's status becomes "over": a victory, a resignation (the engine ends the game with a
winner: BC §6 and TACW alike), or the last turn's victory determination (TACW). It is idempotent
(one set of rows per campaign and game), and the standings first record any finished game of
the campaign still missing its rows, so a game ended by another path (a referee's correction, a
crash before the hook) is never lost.

Abandoned games (HERALD decision): /game abandon is an administrative cancel, not a result: the
rules name no winner and it needs no consent of the opponent, so counting it as a loss would let
a game's creator hand defeats out. An abandoned game is never recorded, cannot be added, and the
standings list it as "abandoned, not counted". A player who wants to concede resigns instead,
which counts as a defeat.

Who may do what: anyone on the server may open a campaign and read its standings; a game is
added by the campaign's creator, a server administrator, or a player or creator of that game.

Refusals are `Refused` / `NotAllowed` (bot/errors.py) or the store's errors, with a text that
says why; nothing is stored then. Every query is a public method of bot/store.py.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import NotAllowed, Refused
from .names import label
from .options import REMATCH_OF
from .store import AlreadyExists, CampaignResultRow, CampaignRow, GameRow

if TYPE_CHECKING:
    from .service import GameService, LoadedGame
    from .store import Store

log = logging.getLogger(__name__)

OUTCOMES = ("win", "loss", "draw")
MAX_NAME = 60
MAX_CAMPAIGNS_PER_SERVER = 50
GENERIC_TERMS = {"score": "points", "tiebreak": "", "section": "Herald", "min_games": 1,
                 "rule": "HERALD: this ruleset has no campaign rules; a win scores 2, a draw 1, a loss 0"}
MIXED_TERMS = {"score": "score", "tiebreak": "difference", "section": "", "min_games": 1,
               "rule": "each game is scored by its own ruleset's campaign rule and the scores are added"}


Campaign = CampaignRow       # one row of `campaigns` (bot/store.py); `ruleset` None = any ruleset


class SideResult(CampaignResultRow):
    """One row of `campaign_results`: a side of a finished campaign game."""

    @property
    def players(self) -> list[int]:
        """Everyone who played the side (a shared side credits each of its players)."""
        found = [int(u) for u in self.detail.get("players") or [] if u]
        return found or ([self.user_id] if self.user_id else [])


@dataclass
class Line:
    """A standings line: one player or one side, over the campaign's recorded games."""
    key: Any
    label: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: int = 0
    tiebreak: int = 0

    def add(self, r: SideResult) -> None:
        self.played += 1
        self.wins += r.outcome == "win"
        self.draws += r.outcome == "draw"
        self.losses += r.outcome == "loss"
        self.score += r.score
        self.tiebreak += int(r.detail.get("tiebreak") or 0)

    def sort_key(self) -> tuple:
        return (-self.score, -self.tiebreak, -self.wins, self.losses, str(self.key))


@dataclass
class GameResult:
    """A recorded game: its row and its sides' results."""
    row: GameRow
    title: str
    sides: list[SideResult]


@dataclass
class Standings:
    campaign: Campaign
    terms: dict[str, Any]
    players: list[Line]
    sides: list[Line]
    games: list[GameResult]
    in_progress: list[int] = field(default_factory=list)
    abandoned: list[int] = field(default_factory=list)      # in the campaign, never counted
    names: dict[int, str] = field(default_factory=dict)     # user id -> name on the server (bot/names.py)


def install(service: GameService) -> None:
    """Join the service (bot/hooks.py): a finished game's result is recorded in its campaigns."""
    service.hooks.on_game_ended.subscribe(_game_ended)


async def _game_ended(service: GameService, game_id: int) -> None:
    try:
        await record_game(service, game_id)
    except Exception:       # the battle's end is committed; the standings record it later
        log.exception("game %s: campaign result not recorded (the standings retry)", game_id)


# --- terms and scores ----------------------------------------------------------------------------
def terms_of(service: GameService, ruleset_id: str | None) -> dict[str, Any]:
    """What a campaign's score is called and its rule: the ruleset's `campaign_terms`."""
    if ruleset_id is None:
        return dict(MIXED_TERMS)
    rs = service.ruleset_of(ruleset_id)
    return {**GENERIC_TERMS, **(getattr(rs, "campaign_terms", None) or {}), "name": rs.name}


def score_game(loaded: LoadedGame) -> dict[str, tuple[str, int, dict[str, Any]]]:
    """Each side's (outcome, score, detail) in a finished game, by the ruleset's rule
    (`campaign_score`), or GENERIC_TERMS' win 2 / draw 1 / loss 0 from the state's `winner`."""
    rs, state = loaded.ruleset, loaded.state
    fn = getattr(rs, "campaign_score", None)
    if fn is not None:
        scores = fn(loaded.scenario, state)
    else:
        winner = getattr(state, "winner", None)
        winner = winner if winner in rs.sides else None
        scores = {s: ("draw", 1, {}) if winner is None else ("win", 2, {}) if s == winner else ("loss", 0, {})
                  for s in rs.sides}
        for _, _, detail in scores.values():
            detail["result"] = str(getattr(state, "result", "") or "")
    for side, (outcome, score, _) in scores.items():
        if outcome not in OUTCOMES or not isinstance(score, int):
            raise ValueError(f"{rs.id}.campaign_score gave {side} ({outcome!r}, {score!r})")
    return scores


# --- reading -------------------------------------------------------------------------------------
async def campaigns_of_server(store: Store, guild_id: int | None) -> list[Campaign]:
    return await store.campaigns(guild_id)


async def campaigns_of_game(store: Store, game_id: int) -> list[Campaign]:
    return await store.campaigns_of_game(game_id)


async def find_campaign(store: Store, guild_id: int | None, name: str) -> Campaign:
    """The server's campaign of that name (case does not matter); Refused naming the others."""
    wanted = " ".join((name or "").split())
    found = await store.campaign_named(guild_id, wanted) if wanted else None
    if found is not None:
        return found
    names = [c.name for c in await store.campaigns(guild_id)]
    raise Refused(f"this server has no campaign '{wanted}'"
                  + (f" (campaigns: {', '.join(names)})" if names else "; create one with /campaign new"))


async def results(store: Store, campaign_id: int) -> list[SideResult]:
    return [SideResult(**asdict(r))
            for r in await store.campaign_results(campaign_id)]


async def game_ids(store: Store, campaign_id: int) -> list[int]:
    return await store.campaign_game_ids(campaign_id)


async def side_players(store: Store, game_id: int, seats: dict[str, int]) -> dict[str, list[int]]:
    """side -> its players: the seat holder first, then the other players of the side (the
    `members` table of issue 5's shared sides)."""
    out = {side: [uid] for side, uid in seats.items()}
    for m in sorted(await store.members(game_id), key=lambda m: m.user_id):
        if m.role == "player" and m.side:
            players = out.setdefault(m.side, [])
            if m.user_id not in players:
                players.append(m.user_id)
    return out


async def adopt_return_games(store: Store, campaign_id: int) -> list[int]:
    """BC §6 "Bilanciare gli Scenari": a balancing pair is won on the Campaign Flags of both
    games, so the return game of a campaign game (/game rematch, `REMATCH_OF` in its options)
    belongs to the same campaign. Adds those not yet in it; returns their ids."""
    ids = await store.campaign_game_ids(campaign_id)
    added = []
    for row in await store.games_with_option(REMATCH_OF, ids):
        if row.id not in ids and row.status != "abandoned":
            try:
                await store.add_campaign_game(campaign_id, row.id)
                added.append(row.id)
            except AlreadyExists:       # another task got there first
                pass
    return added


# --- writing -------------------------------------------------------------------------------------
def _clean_name(name: str) -> str:
    text = " ".join((name or "").split())
    if not text:
        raise Refused("a campaign needs a name")
    if len(text) > MAX_NAME:
        raise Refused(f"a campaign name is at most {MAX_NAME} characters")
    return text


async def create_campaign(service: GameService, guild_id: int | None, name: str, ruleset_id: str | None,
                          user_id: int) -> Campaign:
    """A new campaign of this server; `ruleset_id` None accepts games of every ruleset. Anyone
    on the server may open one (it only groups games; adding a game needs a stake in it)."""
    name = _clean_name(name)
    if ruleset_id:
        ruleset_id = service.ruleset_of(ruleset_id).id          # Refused for an unknown one
    return await service.store.create_campaign(guild_id, name, ruleset_id or None, user_id,
                                               limit=MAX_CAMPAIGNS_PER_SERVER)


async def add_game(service: GameService, guild_id: int | None, name: str, user_id: int, *,
                   game_id: int | None = None, channel_id: int | None = None,
                   is_admin: bool = False) -> tuple[Campaign, GameRow, list[SideResult]]:
    """Put a game (by id, else the channel's newest) into the campaign. By the campaign's
    creator, a server administrator, or a player or the creator of that game. A finished game
    is recorded at once; returns what was recorded (nothing for a game still being played).
    An abandoned game is refused: it has no result (see the module docstring)."""
    store = service.store
    campaign = await find_campaign(store, guild_id, name)
    if game_id is not None:
        row = await store.get_game(game_id)
        if row is None or row.guild_id != guild_id:
            raise Refused(f"this server has no game #{game_id}")
    else:
        row = await store.latest_game(channel_id) if channel_id is not None else None
        if row is None:
            raise Refused("there is no game in this channel: give the game's number (game:)")
    if row.status == "abandoned":
        raise Refused(f"game #{row.id} was abandoned: it has no result to count")
    if campaign.ruleset and row.ruleset != campaign.ruleset:
        raise Refused(f"campaign '{campaign.name}' is for {service.ruleset_of(campaign.ruleset).name} "
                      f"games; game #{row.id} is {service.ruleset_of(row.ruleset).name}")
    seats = await store.seats(row.id)
    players = {m.user_id for m in await store.members(row.id) if m.role == "player"}
    if not (is_admin or user_id in (campaign.created_by, row.created_by) or user_id in seats.values()
            or user_id in players):
        raise NotAllowed("only the campaign's creator, a server administrator, or a player or the "
                         "creator of the game may add it to a campaign")
    try:
        await store.add_campaign_game(campaign.id, row.id)
    except AlreadyExists:
        raise Refused(f"game #{row.id} is already in campaign '{campaign.name}'") from None
    recorded: list[SideResult] = []
    if row.status == "over":
        for _, rows in await record_game(service, row.id, only=campaign.id):
            recorded += rows
    return campaign, row, recorded


async def record_game(service: GameService, game_id: int,
                      only: int | None = None) -> list[tuple[Campaign, list[SideResult]]]:
    """Record a finished game's result in each campaign holding it that has no rows for it yet:
    one `campaign_results` row per side, with the players who held it in THIS game (a return
    game swaps them: BC §6 Balancing). A return game whose first game is in a campaign joins
    that campaign here (`adopt_return_games`). Returns what was recorded; [] for a game that is
    not over (an abandoned game never counts) or belongs to no campaign. Idempotent."""
    store = service.store
    row = await store.get_game(game_id)
    if row is None or row.status != "over":
        return []
    first = row.options.get(REMATCH_OF)
    if first is not None and only is None:
        for c in await store.campaigns_of_game(int(first)):
            await adopt_return_games(store, c.id)
    campaigns = [c for c in await store.campaigns_of_game(game_id) if only is None or c.id == only]
    if not campaigns:
        return []
    loaded = await service.load_row(row)
    scores = score_game(loaded)
    players = await side_players(store, row.id, loaded.seats)
    out = []
    for campaign in campaigns:
        rows = []
        for side in loaded.ruleset.sides:
            outcome, score, detail = scores[side]
            rows.append(SideResult(row.id, side, loaded.seats.get(side), outcome, score,
                                   {**detail, "players": players.get(side, [])}))
        if await store.record_campaign_results(campaign.id, row.id, rows):
            out.append((campaign, rows))
            log.info("campaign %s (%s): game %s recorded", campaign.id, campaign.name, game_id)
    return out


# --- standings -----------------------------------------------------------------------------------
async def standings(service: GameService, campaign: Campaign) -> Standings:
    """The campaign's table per player and per side, after recording any finished game still
    missing its rows."""
    store = service.store
    await adopt_return_games(store, campaign.id)
    ids = await game_ids(store, campaign.id)
    recorded = {r.game_id for r in await results(store, campaign.id)}
    in_progress, abandoned = [], []
    for gid in ids:
        row = await store.get_game(gid)
        if row is None or gid in recorded:
            continue
        if row.status == "over":
            try:
                await record_game(service, gid, only=campaign.id)
            except Exception:          # one broken game must not hide the table
                log.exception("campaign %s: game %s could not be recorded", campaign.id, gid)
        elif row.status in ("setup", "active"):
            in_progress.append(gid)
        elif row.status == "abandoned":
            abandoned.append(gid)
    players: dict[int, Line] = {}
    sides: dict[str, Line] = {}
    by_game: dict[int, list[SideResult]] = {}
    recorded_rows = await results(store, campaign.id)
    names = await store.display_names(campaign.guild_id, [u for r in recorded_rows for u in r.players])
    for r in recorded_rows:
        by_game.setdefault(r.game_id, []).append(r)
        for uid in r.players:
            players.setdefault(uid, Line(uid, label(uid, names))).add(r)
        sides.setdefault(r.side, Line(r.side, r.side.title())).add(r)
    games = []
    for gid, rows in sorted(by_game.items()):
        row = await store.get_game(gid)
        if row is not None:
            order = list(getattr(_ruleset_or_none(service, row.ruleset), "sides", ()))
            rows.sort(key=lambda r: order.index(r.side) if r.side in order else len(order))
            games.append(GameResult(row, _title(service, row), rows))
    return Standings(campaign, terms_of(service, campaign.ruleset),
                     sorted(players.values(), key=Line.sort_key), sorted(sides.values(), key=Line.sort_key),
                     games, in_progress, abandoned, names)


def _ruleset_or_none(service: GameService, ruleset_id: str):
    try:
        return service.ruleset_of(ruleset_id)
    except Exception:
        return None


def _title(service: GameService, row: GameRow) -> str:
    try:
        return str(getattr(service.scenario_of(row), "title", row.scenario_id))
    except Exception:
        return row.scenario_id


def _signed(n: int) -> str:
    return f"{n:+d}"


def ranks(lines: list[Line]) -> list[int]:
    """Standard competition ranking of sorted lines: equal score and tie-break share a place
    (1, 1, 3); wins do not separate them (BC §6: the most Campaign Flags wins the campaign)."""
    out: list[int] = []
    for i, ln in enumerate(lines):
        prev = lines[i - 1] if i else None
        same = prev is not None and (prev.score, prev.tiebreak) == (ln.score, ln.tiebreak)
        out.append(out[-1] if same else i + 1)
    return out


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _line_text(n: int, line: Line, terms: dict[str, Any]) -> str:
    tie = f" ({terms['tiebreak']} {_signed(line.tiebreak)})" if terms.get("tiebreak") else ""
    return (f"{n}. {line.label} · {line.played} played: {line.wins} W {line.draws} D {line.losses} L"
            f" · **{line.score}** {terms['score']}{tie}")


def _game_text(g: GameResult, terms: dict[str, Any], names: dict[int, str] | None = None) -> str:
    parts = []
    for r in g.sides:
        who = " ".join(label(u, names) for u in r.players) or "(no player)"
        parts.append(f"{r.side.title()} {who} {r.outcome} {r.score}")
    level = next((r.detail.get("level") for r in g.sides if r.detail.get("level")), None)
    return f"#{g.row.id} {g.title}: " + " · ".join(parts) + (f" ({level})" if level else "")


def standings_text(st: Standings, max_games: int = 10, max_players: int = 15) -> str:
    """The standings as a Discord message (mentions are shown, nobody is pinged)."""
    c, terms = st.campaign, st.terms
    kind = terms.get("name") or c.ruleset or "any ruleset"
    head = [f"**Campaign '{c.name}'** · {kind} · {len(st.games)} battle(s) recorded"
            + (f", {len(st.in_progress)} in progress ({', '.join(f'#{i}' for i in st.in_progress)})"
               if st.in_progress else "")
            + (f"; abandoned, not counted: {', '.join(f'#{i}' for i in st.abandoned)}" if st.abandoned else ""),
            f"_Scoring: {terms['rule']}._"]
    if not st.games:
        return "\n".join(head + ["No battle of this campaign has ended yet."])
    players = [_line_text(n, ln, terms) for n, ln in zip(ranks(st.players), st.players)]
    if len(players) > max_players:
        players = players[:max_players] + [f"… {len(players) - max_players} more (see the picture)"]
    lines = head + ["**Players**"] + players
    lines += ["**Sides**"] + [_line_text(n, ln, terms) for n, ln in zip(ranks(st.sides), st.sides)]
    lines.append(leader_text(st))
    lines.append("**Battles**")
    shown = st.games[-max_games:]
    if len(st.games) > len(shown):
        lines.append(f"… {len(st.games) - len(shown)} earlier battle(s)")
    lines += [_game_text(g, terms, st.names) for g in shown]
    return "\n".join(lines)


def leader_text(st: Standings) -> str:
    """Who leads (or a tie), and, below the ruleset's campaign length, how many battles remain
    to play (BC §6: a campaign is at least 3 battles)."""
    terms = st.terms
    top = st.players[:2]
    if not top:
        return "No player has a result yet."
    if len(top) == 2 and (top[0].score, top[0].tiebreak) == (top[1].score, top[1].tiebreak):
        text = f"Level at the top on {top[0].score} {terms['score']}."
    else:
        text = f"{top[0].label} leads with {top[0].score} {terms['score']}."
    need = int(terms.get("min_games") or 1)
    if len(st.games) < need:
        text += (f" A campaign is at least {need} battles ({terms.get('section') or 'rule'}):"
                 f" {len(st.games)} played so far.")
    return text


def standings_table(st: Standings, names: dict[int, str] | None = None) -> dict[str, Any]:
    """The standings as plain rows for renders/standings.py: title, subtitle, sections of
    (heading, columns, rows). Players are named as the store knows them on the server
    (`st.names`, bot/names.py); `names` fills in the others (else 'player …1234')."""
    names = {**(names or {}), **st.names}
    terms = st.terms
    cols = ["#", "", "Played", "W", "D", "L", _upper(terms["score"])]
    if terms.get("tiebreak"):
        cols.append(_upper(terms["tiebreak"]))

    def rows(lines: list[Line], label) -> list[list[str]]:
        out = []
        for i, ln in zip(ranks(lines), lines):
            r = [str(i), label(ln), str(ln.played), str(ln.wins), str(ln.draws), str(ln.losses), str(ln.score)]
            if terms.get("tiebreak"):
                r.append(_signed(ln.tiebreak))
            out.append(r)
        return out

    def player(ln: Line) -> str:
        return names.get(ln.key) or f"player …{str(ln.key)[-4:]}"

    return {"title": f"Campaign: {st.campaign.name}",
            "subtitle": f"{len(st.games)} battle(s) recorded · scoring: {terms['score']}"
                        + (f" ({terms['section']})" if terms.get("section") else ""),
            "sections": [("Players", ["#", "Player", *cols[2:]], rows(st.players, player)),
                         ("Sides", ["#", "Side", *cols[2:]], rows(st.sides, lambda ln: ln.label))]}
