-- The PostgreSQL twin of migrations/sqlite/0001_init.sql: same tables, same
-- columns, same meaning. Differences, all for the shared queries to behave
-- alike on both backends:
--   * identifiers and keys are COLLATE "C", so ORDER BY sorts bytes as
--     SQLite does, whatever the database's locale;
--   * times are TEXT (RFC 3339, UTC, fixed width), as in SQLite, so that they
--     sort as text and the store reads them the same way;
--   * columns of arbitrary bytes (page bodies, unit data, LLM responses) are
--     BYTEA: TEXT refuses NUL and invalid UTF-8;
--   * flags are BOOLEAN; INTEGER PRIMARY KEY AUTOINCREMENT is an identity.

-- Runs: one row per evaluation (or other batch job). The id is derived from
-- the job's inputs and options, so rerunning the same command resumes it.
CREATE TABLE runs (
    id         TEXT COLLATE "C" PRIMARY KEY,
    kind       TEXT NOT NULL,
    params     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Units: every unit of work (a parsed report, a resolved source, a match, a
-- verdict, a vote) is written here as soon as it is done, with its status.
-- Writers in several processes upsert on the primary key.
CREATE TABLE units (
    run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind       TEXT COLLATE "C" NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    status     TEXT COLLATE "C" NOT NULL,
    data       BYTEA,
    error      TEXT,
    attempts   BIGINT NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, kind, key)
);
CREATE INDEX units_status ON units (run_id, kind, status);

-- Content-addressed bodies of fetched pages.
CREATE TABLE blobs (
    sha256 TEXT COLLATE "C" PRIMARY KEY,
    size   BIGINT NOT NULL,
    data   BYTEA NOT NULL
);

-- The fetch cache: one row per URL as requested.
CREATE TABLE pages (
    url          TEXT COLLATE "C" PRIMARY KEY,
    final_url    TEXT NOT NULL DEFAULT '',
    status       BIGINT NOT NULL,
    content_type TEXT NOT NULL DEFAULT '',
    sha256       TEXT COLLATE "C" NOT NULL DEFAULT '',
    truncated    BOOLEAN NOT NULL DEFAULT FALSE,
    error        TEXT NOT NULL DEFAULT '',
    fetched_at   TEXT NOT NULL
);

-- LLM response cache, keyed by a hash of the full request.
CREATE TABLE llm_cache (
    key        TEXT COLLATE "C" PRIMARY KEY,
    value      BYTEA NOT NULL,
    created_at TEXT NOT NULL
);

-- LLM call accounting, one row per call or cache hit.
CREATE TABLE llm_calls (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id           TEXT COLLATE "C" NOT NULL DEFAULT '',
    key              TEXT NOT NULL DEFAULT '',
    stage            TEXT NOT NULL DEFAULT '',
    provider         TEXT NOT NULL DEFAULT '',
    model            TEXT NOT NULL DEFAULT '',
    input_tokens     BIGINT NOT NULL DEFAULT 0,
    output_tokens    BIGINT NOT NULL DEFAULT 0,
    cached_tokens    BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens BIGINT NOT NULL DEFAULT 0,
    latency_ms       BIGINT NOT NULL DEFAULT 0,
    cost_usd         DOUBLE PRECISION NOT NULL DEFAULT 0,
    cache_hit        BOOLEAN NOT NULL DEFAULT FALSE,
    attempts         BIGINT NOT NULL DEFAULT 0,
    error            TEXT NOT NULL DEFAULT '',
    at               TEXT NOT NULL
);
CREATE INDEX llm_calls_run ON llm_calls (run_id);
