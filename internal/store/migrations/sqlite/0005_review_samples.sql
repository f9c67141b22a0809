-- Review samples: the units of a run drawn at random for human review, in
-- the order to review them (claimtrace review sample). One sample a run; a
-- larger one drawn with the same seed starts with the smaller, so it
-- replaces it. seed and frame (the number of units drawn from) say how to
-- draw it again; data is the units as JSON.
CREATE TABLE review_samples (
    run_id     TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    seed       INTEGER NOT NULL,
    frame      INTEGER NOT NULL,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
