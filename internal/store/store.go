// Package store keeps every unit of work claimtrace does — parsed reports,
// fetched pages, resolved sources, matches, verdicts, votes, LLM responses
// and their accounting — so that a crash loses only work in flight and a
// rerun resumes.
//
// SQLite (pure Go, modernc.org/sqlite) is the default; the SQL is kept
// portable for the PostgreSQL twin. Migrations are embedded, numbered and
// forward-only, each applied in its own transaction. The database/sql driver
// is registered by the caller (main, tests) with a blank import.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed migrations
var migrations embed.FS

// Store is a handle on the database.
type Store struct {
	db  *sql.DB
	dsn string
	// wmu serializes writes. SQLite allows one writer at a time and its busy
	// handler sleeps in coarse steps, so contended writers would idle; a Go
	// mutex hands the lock over at once.
	wmu sync.Mutex
	// Now returns the current time; tests replace it.
	Now func() time.Time
}

// Open opens (creating if needed) the store named by dsn and applies pending
// migrations. A dsn is a file path, "sqlite:PATH", or ":memory:".
func Open(ctx context.Context, dsn string) (*Store, error) {
	path, err := sqlitePath(dsn)
	if err != nil {
		return nil, err
	}
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
	}
	conn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(30000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	if path == ":memory:" {
		// One connection, or every connection would see its own empty database.
		conn = "file::memory:?_pragma=foreign_keys(1)&_txlock=immediate"
	}
	db, err := sql.Open("sqlite", conn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if path == ":memory:" {
		db.SetMaxOpenConns(1)
	} else {
		db.SetMaxOpenConns(8)
	}
	s := &Store{db: db, dsn: path, Now: func() time.Time { return time.Now().UTC() }}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

func sqlitePath(dsn string) (string, error) {
	switch {
	case dsn == "":
		return "", errors.New("store: empty DSN")
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return "", fmt.Errorf("store %q: PostgreSQL is not supported yet; use a SQLite path", redactDSN(dsn))
	case strings.HasPrefix(dsn, "sqlite:"):
		return strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//"), nil
	case strings.HasPrefix(dsn, "file:"):
		return strings.TrimPrefix(dsn, "file:"), nil
	}
	return dsn, nil
}

// redactDSN hides a password in a connection URL.
func redactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return dsn
	}
	userinfo := dsn[scheme+3 : at]
	if i := strings.Index(userinfo, ":"); i >= 0 {
		return dsn[:scheme+3] + userinfo[:i] + ":xxxxx" + dsn[at:]
	}
	return dsn
}

// Path is the database file ("" for in-memory stores).
func (s *Store) Path() string {
	if s.dsn == ":memory:" {
		return ""
	}
	return s.dsn
}

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// exec runs one write statement under the write lock.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.db.ExecContext(ctx, query, args...)
}

// writeTx runs fn in a write transaction under the write lock.
func (s *Store) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *Store) now() string { return s.Now().UTC().Format(time.RFC3339Nano) }

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	files, err := fs.Glob(migrations, "migrations/sqlite/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		base := filepath.Base(f)
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: bad number", base)
		}
		if err := s.apply(ctx, n, f); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, version int, file string) error {
	body, err := migrations.ReadFile(file)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, version).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, s.now()); err != nil {
		return err
	}
	return tx.Commit()
}
