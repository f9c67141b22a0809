-- Review samples: the units of a run drawn at random for human review, in
-- the order to review them (claimtrace review sample). One sample a run; a
-- larger one drawn with the same seed starts with the smaller, so it
-- replaces it. seed and frame (the number of units drawn from) say how to
-- draw it again; data is the units as JSON.
--
-- The twin of migrations/sqlite/0005_review_samples.sql: keys collate "C"
-- and data is BYTEA, as in 0001_init.sql.
CREATE TABLE review_samples (
    run_id     TEXT COLLATE "C" PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    seed       BIGINT NOT NULL,
    frame      BIGINT NOT NULL,
    data       BYTEA NOT NULL,
    created_at TEXT NOT NULL
);
