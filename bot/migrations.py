"""Schema migrations for the Herald game store.

``MIGRATIONS[i]`` is schema version ``i + 1``. On open, :class:`bot.store.Store` applies every
migration whose index is >= ``PRAGMA user_version``, each in its own transaction together with
the ``user_version`` bump, so a migration either lands whole or not at all. ``PG_MIGRATIONS[i]``
is the same version in PostgreSQL's dialect (bot/store_pg.py, which keeps the version in a table).

Rules: never edit a migration that has shipped; append a new one, to both lists. A migration is
an SQL script (several statements separated by ``;``) and must not contain BEGIN/COMMIT itself.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: games, seats, the command log and its snapshot cache.
    """
    CREATE TABLE games (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER,
        channel_id    INTEGER NOT NULL,
        ruleset       TEXT    NOT NULL,
        scenario_id   TEXT    NOT NULL,
        scenario_text TEXT,                       -- uploaded/custom scenario file; NULL = built-in
        seed          TEXT    NOT NULL,
        status        TEXT    NOT NULL
                      CHECK (status IN ('setup', 'active', 'over', 'abandoned')),
        created_by    INTEGER,
        created_at    TEXT,
        options       TEXT    NOT NULL DEFAULT '{}',  -- JSON object
        result        TEXT
    );

    -- A channel hosts at most one live (setup/active) game at a time.
    CREATE UNIQUE INDEX games_one_live_per_channel
        ON games(channel_id) WHERE status IN ('setup', 'active');
    CREATE INDEX games_by_guild ON games(guild_id, status);

    CREATE TABLE seats (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        side    TEXT    NOT NULL,
        user_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, side),
        UNIQUE (game_id, user_id)
    );

    -- The event log is the truth: one row per accepted command, in order.
    CREATE TABLE commands (
        game_id        INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq            INTEGER NOT NULL,
        user_id        INTEGER,
        side           TEXT,
        text           TEXT    NOT NULL,
        dice           TEXT,                      -- JSON list of dice drawn
        events         TEXT,                      -- JSON list of event records
        interaction_id TEXT UNIQUE,               -- Discord interaction id; NULL for CLI/tests
        created_at     TEXT,
        PRIMARY KEY (game_id, seq)
    );

    -- Snapshots are a cache: the state after command `seq`.
    CREATE TABLE snapshots (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq     INTEGER NOT NULL,
        state   TEXT    NOT NULL,                 -- JSON object
        PRIMARY KEY (game_id, seq)
    );
    """,
    # 2: club play and arbitration (issue 5): undo with consent, several players per side and
    # referees, campaigns, scenarios uploaded by a server.
    """
    -- An undone command stays in the log, marked; replays skip it.
    ALTER TABLE commands ADD COLUMN undone_at TEXT;
    ALTER TABLE commands ADD COLUMN undone_by INTEGER;

    -- Everyone with a role in a game beyond the one seat per side: more players of a side (a wing
    -- each in TACW) and referees. The seats table keeps each side's first player.
    CREATE TABLE members (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        role    TEXT    NOT NULL CHECK (role IN ('player', 'referee')),
        side    TEXT,                             -- NULL for a referee
        wing    TEXT,                             -- TACW: the wing this player commands; NULL = any
        PRIMARY KEY (game_id, user_id, role)
    );

    CREATE TABLE campaigns (
        id         INTEGER PRIMARY KEY,
        guild_id   INTEGER,
        name       TEXT    NOT NULL,
        ruleset    TEXT,                          -- NULL = games of any ruleset
        created_by INTEGER,
        created_at TEXT,
        options    TEXT    NOT NULL DEFAULT '{}', -- JSON object
        UNIQUE (guild_id, name)
    );
    CREATE TABLE campaign_games (
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        PRIMARY KEY (campaign_id, game_id)
    );
    -- Filled automatically when a campaign game ends: one row per side.
    CREATE TABLE campaign_results (
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        side        TEXT    NOT NULL,
        user_id     INTEGER,
        outcome     TEXT    NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
        score       INTEGER NOT NULL DEFAULT 0,   -- e.g. Battle Cry Campaign Flags, TACW VP
        detail      TEXT    NOT NULL DEFAULT '{}',-- JSON object
        recorded_at TEXT,
        PRIMARY KEY (campaign_id, game_id, side)
    );

    -- Scenario files a server uploaded, validated before they are stored.
    CREATE TABLE custom_scenarios (
        guild_id    INTEGER NOT NULL,
        ruleset     TEXT    NOT NULL,
        scenario_id TEXT    NOT NULL,
        title       TEXT,
        text        TEXT    NOT NULL,
        uploaded_by INTEGER,
        uploaded_at TEXT,
        PRIMARY KEY (guild_id, ruleset, scenario_id)
    );
    """,
    # 3: players' names as they show on their server (issue 11): standings, exports and images
    # name players without the member cache (empty without the members intent). Written when a
    # player uses a command (joining a game, taking a seat, every later action) if it changed.
    """
    CREATE TABLE user_names (
        guild_id     INTEGER NOT NULL,            -- 0 outside a server
        user_id      INTEGER NOT NULL,
        display_name TEXT    NOT NULL,
        updated_at   TEXT,
        PRIMARY KEY (guild_id, user_id)
    );
    """,
    # 4: snapshots as keyframes (issue 13): a game kept a full state after every command, 45
    # times the size of its log. From now on the service keeps one every SNAPSHOT_EVERY (8)
    # commands (bot/store_base.py), compressed; here the older ones are thinned the same way,
    # keeping each game's newest. Loading replays the few commands after the newest keyframe.
    """
    DELETE FROM snapshots
     WHERE seq % 8 != 0
       AND seq < (SELECT MAX(s2.seq) FROM snapshots AS s2 WHERE s2.game_id = snapshots.game_id);
    """,
    # 5: claims (issue 17): each firing of a deadline or a reminder is claimed here before it is
    # acted on (INSERT ... ON CONFLICT DO NOTHING), so when several processes run the same loops
    # exactly one of them fires it (bot/deadlines.py, Store.claim). `claimed_at` lets a claim
    # taken by a process that died before acting be taken again after a lease.
    """
    CREATE TABLE claims (
        game_id    INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        kind       TEXT    NOT NULL,              -- "decision", "reminder", "overdue"
        claim_key  TEXT    NOT NULL,              -- which firing: the wait or the decision's seq
        owner      TEXT,                          -- who took it (a process's name), for the logs
        claimed_at TEXT    NOT NULL,
        PRIMARY KEY (game_id, kind, claim_key)
    );
    """,
]


# The same schema versions in PostgreSQL's dialect (bot/store_pg.py): ``PG_MIGRATIONS[i]`` is
# version ``i + 1`` as ``MIGRATIONS[i]`` is, so a database of either kind at version v has the
# same tables, columns and constraints. The differences are the dialect's only: Discord ids are
# 64-bit (BIGINT), ids are identity columns (BY DEFAULT, so `herald db copy` keeps a game's id),
# a snapshot is BYTEA, and the text columns the store sorts on compare byte-wise (COLLATE "C"),
# as SQLite's do, whatever locale the server was initialised with. The version is kept in the
# one-row table herald_schema (PostgreSQL has no user_version); bot/store_pg.py creates it.
PG_MIGRATIONS: list[str] = [
    # 1
    """
    CREATE TABLE games (
        id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        guild_id      BIGINT,
        channel_id    BIGINT  NOT NULL,
        ruleset       TEXT    COLLATE "C" NOT NULL,
        scenario_id   TEXT    COLLATE "C" NOT NULL,
        scenario_text TEXT,
        seed          TEXT    NOT NULL,
        status        TEXT    NOT NULL
                      CHECK (status IN ('setup', 'active', 'over', 'abandoned')),
        created_by    BIGINT,
        created_at    TEXT,
        options       TEXT    NOT NULL DEFAULT '{}',
        result        TEXT
    );
    CREATE UNIQUE INDEX games_one_live_per_channel
        ON games(channel_id) WHERE status IN ('setup', 'active');
    CREATE INDEX games_by_guild ON games(guild_id, status);

    CREATE TABLE seats (
        game_id BIGINT  NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        side    TEXT    COLLATE "C" NOT NULL,
        user_id BIGINT  NOT NULL,
        PRIMARY KEY (game_id, side),
        UNIQUE (game_id, user_id)
    );

    CREATE TABLE commands (
        game_id        BIGINT  NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq            BIGINT  NOT NULL,
        user_id        BIGINT,
        side           TEXT    COLLATE "C",
        text           TEXT    NOT NULL,
        dice           TEXT,
        events         TEXT,
        interaction_id TEXT UNIQUE,
        created_at     TEXT,
        PRIMARY KEY (game_id, seq)
    );

    CREATE TABLE snapshots (
        game_id BIGINT  NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq     BIGINT  NOT NULL,
        state   BYTEA   NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    """,
    # 2
    """
    ALTER TABLE commands ADD COLUMN undone_at TEXT;
    ALTER TABLE commands ADD COLUMN undone_by BIGINT;

    CREATE TABLE members (
        game_id BIGINT  NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        user_id BIGINT  NOT NULL,
        role    TEXT    COLLATE "C" NOT NULL CHECK (role IN ('player', 'referee')),
        side    TEXT    COLLATE "C",
        wing    TEXT    COLLATE "C",
        PRIMARY KEY (game_id, user_id, role)
    );

    CREATE TABLE campaigns (
        id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        guild_id   BIGINT,
        name       TEXT    COLLATE "C" NOT NULL,
        ruleset    TEXT    COLLATE "C",
        created_by BIGINT,
        created_at TEXT,
        options    TEXT    NOT NULL DEFAULT '{}',
        UNIQUE (guild_id, name)
    );
    CREATE TABLE campaign_games (
        campaign_id BIGINT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        PRIMARY KEY (campaign_id, game_id)
    );
    CREATE TABLE campaign_results (
        campaign_id BIGINT  NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        game_id     BIGINT  NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        side        TEXT    COLLATE "C" NOT NULL,
        user_id     BIGINT,
        outcome     TEXT    NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
        score       BIGINT  NOT NULL DEFAULT 0,
        detail      TEXT    NOT NULL DEFAULT '{}',
        recorded_at TEXT,
        PRIMARY KEY (campaign_id, game_id, side)
    );

    CREATE TABLE custom_scenarios (
        guild_id    BIGINT  NOT NULL,
        ruleset     TEXT    COLLATE "C" NOT NULL,
        scenario_id TEXT    COLLATE "C" NOT NULL,
        title       TEXT    COLLATE "C",
        text        TEXT    NOT NULL,
        uploaded_by BIGINT,
        uploaded_at TEXT,
        PRIMARY KEY (guild_id, ruleset, scenario_id)
    );
    """,
    # 3
    """
    CREATE TABLE user_names (
        guild_id     BIGINT  NOT NULL,
        user_id      BIGINT  NOT NULL,
        display_name TEXT    NOT NULL,
        updated_at   TEXT,
        PRIMARY KEY (guild_id, user_id)
    );
    """,
    # 4: keyframes, as MIGRATIONS[3]
    """
    DELETE FROM snapshots
     WHERE seq % 8 != 0
       AND seq < (SELECT MAX(s2.seq) FROM snapshots AS s2 WHERE s2.game_id = snapshots.game_id);
    """,
    # 5: claims, as MIGRATIONS[4]
    """
    CREATE TABLE claims (
        game_id    BIGINT  NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        kind       TEXT    COLLATE "C" NOT NULL,
        claim_key  TEXT    COLLATE "C" NOT NULL,
        owner      TEXT,
        claimed_at TEXT    COLLATE "C" NOT NULL,
        PRIMARY KEY (game_id, kind, claim_key)
    );
    """,
]
assert len(PG_MIGRATIONS) == len(MIGRATIONS), "every schema version in both dialects"
