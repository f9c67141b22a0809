-- Readable text extracted from a fetched page, keyed by the page body's
-- hash: extraction runs once per distinct page, whatever cites it.
CREATE TABLE texts (
    sha256     TEXT PRIMARY KEY,
    title      TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
