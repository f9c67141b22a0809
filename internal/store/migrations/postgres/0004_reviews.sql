-- Reviews: every version of every human review of a claim, appended and
-- never updated or deleted, so that the history shows who wrote what and
-- when, and no reviewer's write replaces another's. The current view of a
-- claim is each reviewer's latest version (the highest id). data is the
-- review as JSON (label, note, source URL, report hash).
--
-- The twin of migrations/sqlite/0004_reviews.sql: keys collate "C" and data
-- is BYTEA, as in 0001_init.sql.
CREATE TABLE reviews (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    task       TEXT COLLATE "C" NOT NULL,
    claim      TEXT COLLATE "C" NOT NULL,
    reviewer   TEXT COLLATE "C" NOT NULL,
    data       BYTEA NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX reviews_run ON reviews (run_id, task, claim);
