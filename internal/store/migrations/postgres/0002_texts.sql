-- Readable text extracted from a fetched page, keyed by the page body's
-- hash: extraction runs once per distinct page, whatever cites it. The text
-- is BYTEA (the twin's TEXT): extraction from PDFs can yield NUL bytes.
CREATE TABLE texts (
    sha256     TEXT COLLATE "C" PRIMARY KEY,
    title      TEXT NOT NULL DEFAULT '',
    text       BYTEA NOT NULL,
    created_at TEXT NOT NULL
);
