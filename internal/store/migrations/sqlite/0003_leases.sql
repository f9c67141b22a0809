-- Leases: a worker claims a unit of work here before doing it, so that
-- workers sharing the store do not do the same unit (an LLM call, a fetch)
-- twice. A lease is held by owner until expires_at (a time, stored as every
-- time is), after which another worker may take it over; the row is deleted
-- when the owner releases it. No foreign key to runs: a lease is a
-- short-lived claim, and taking one must not depend on the run's row.
CREATE TABLE leases (
    run_id     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    owner      TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (run_id, kind, key)
);
