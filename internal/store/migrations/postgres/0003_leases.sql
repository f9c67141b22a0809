-- Leases: a worker claims a unit of work here before doing it, so that
-- workers sharing the store do not do the same unit (an LLM call, a fetch)
-- twice. A lease is held by owner until expires_at (a time, stored as every
-- time is), after which another worker may take it over; the row is deleted
-- when the owner releases it. No foreign key to runs: a lease is a
-- short-lived claim, and taking one must not depend on the run's row.
--
-- The twin of migrations/sqlite/0003_leases.sql. expires_at is compared
-- with the current time as text, so it collates "C" (bytewise, as SQLite
-- compares) like the keys, whatever the database's locale.
CREATE TABLE leases (
    run_id     TEXT COLLATE "C" NOT NULL,
    kind       TEXT COLLATE "C" NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    owner      TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (run_id, kind, key)
);
