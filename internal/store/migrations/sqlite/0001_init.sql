-- Runs: one row per evaluation (or other batch job). The id is derived from
-- the job's inputs and options, so rerunning the same command resumes it.
CREATE TABLE runs (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    params     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Units: every unit of work (a parsed report, a resolved source, a match, a
-- verdict, a vote) is written here as soon as it is done, with its status.
CREATE TABLE units (
    run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    status     TEXT NOT NULL,
    data       TEXT,
    error      TEXT,
    attempts   INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run_id, kind, key)
);
CREATE INDEX units_status ON units (run_id, kind, status);

-- Content-addressed bodies of fetched pages.
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);

-- The fetch cache: one row per URL as requested.
CREATE TABLE pages (
    url          TEXT PRIMARY KEY,
    final_url    TEXT NOT NULL DEFAULT '',
    status       INTEGER NOT NULL,
    content_type TEXT NOT NULL DEFAULT '',
    sha256       TEXT NOT NULL DEFAULT '',
    truncated    INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    fetched_at   TEXT NOT NULL
);

-- LLM response cache, keyed by a hash of the full request.
CREATE TABLE llm_cache (
    key        TEXT PRIMARY KEY,
    value      BLOB NOT NULL,
    created_at TEXT NOT NULL
);

-- LLM call accounting, one row per call or cache hit.
CREATE TABLE llm_calls (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id           TEXT NOT NULL DEFAULT '',
    key              TEXT NOT NULL DEFAULT '',
    stage            TEXT NOT NULL DEFAULT '',
    provider         TEXT NOT NULL DEFAULT '',
    model            TEXT NOT NULL DEFAULT '',
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    cached_tokens    INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms       INTEGER NOT NULL DEFAULT 0,
    cost_usd         REAL NOT NULL DEFAULT 0,
    cache_hit        INTEGER NOT NULL DEFAULT 0,
    attempts         INTEGER NOT NULL DEFAULT 0,
    error            TEXT NOT NULL DEFAULT '',
    at               TEXT NOT NULL
);
CREATE INDEX llm_calls_run ON llm_calls (run_id);
