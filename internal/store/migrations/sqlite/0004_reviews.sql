-- Reviews: every version of every human review of a claim, appended and
-- never updated or deleted, so that the history shows who wrote what and
-- when, and no reviewer's write replaces another's. The current view of a
-- claim is each reviewer's latest version (the highest id). data is the
-- review as JSON (label, note, source URL, report hash).
CREATE TABLE reviews (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    task       TEXT NOT NULL,
    claim      TEXT NOT NULL,
    reviewer   TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX reviews_run ON reviews (run_id, task, claim);
