// Package store keeps every unit of work claimtrace does — parsed reports,
// fetched pages, resolved sources, matches, verdicts, votes, LLM responses
// and their accounting — so that a crash loses only work in flight and a
// rerun resumes.
//
// SQLite (pure Go, modernc.org/sqlite) is the default; PostgreSQL (through
// pgx's database/sql driver) serves teams and many workers sharing one
// store. The queries are written once in the SQL both understand; what
// differs (placeholders, column types, the write lock) is in dialect.go.
// Migrations are embedded, numbered and forward-only, with a twin for each
// backend, each applied in its own transaction. The database/sql drivers are
// registered by the caller (main, tests) with blank imports:
// modernc.org/sqlite and github.com/jackc/pgx/v5/stdlib.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/claimtrace/claimtrace"
)

// Store is a handle on the database.
type Store struct {
	db *sql.DB
	d  dialect
	// dsn is the SQLite path, or the PostgreSQL URL with its password hidden.
	dsn string
	// wmu serializes writes on SQLite. SQLite allows one writer at a time and
	// its busy handler sleeps in coarse steps, so contended writers would
	// idle; a Go mutex hands the lock over at once. PostgreSQL takes
	// concurrent writers, and other processes write beside this one anyway.
	wmu sync.Mutex
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// stmts holds SQLite's prepared statements by query: SQLite parses a
	// statement on every call otherwise (a tenth of the pipeline's CPU,
	// BenchmarkEvalSnapshot). pgx caches its own on PostgreSQL.
	stmts sync.Map // query → *sql.Stmt
}

// Open opens (creating if needed) the store named by dsn and applies pending
// migrations. A dsn is a SQLite file path, "sqlite:PATH", ":memory:", or a
// PostgreSQL URL (postgres://user:password@host:port/db?sslmode=…, any
// parameter pgx accepts, search_path included).
func Open(ctx context.Context, dsn string) (*Store, error) {
	d, target, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if d.name == postgresDialect.name {
		return openPostgres(ctx, target)
	}
	return openSQLite(ctx, target)
}

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
	}
	// WAL is set apart (walMode): it is a property of the file, and the
	// switch can fail when several processes open a new file at once.
	conn := "file:" + path + "?_pragma=busy_timeout(30000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	if path == ":memory:" {
		// One connection, or every connection would see its own empty database.
		conn = "file::memory:?_pragma=foreign_keys(1)&_txlock=immediate"
	}
	db, err := sql.Open(sqliteDialect.driver, conn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if path == ":memory:" {
		db.SetMaxOpenConns(1)
	} else {
		db.SetMaxOpenConns(8)
		if err := walMode(ctx, db); err != nil {
			db.Close()
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
	}
	return start(ctx, db, sqliteDialect, path)
}

// walMode switches the database file to write-ahead logging. The switch
// needs an exclusive lock and SQLite does not wait for it on the busy
// handler, so when several processes open a new file at once it can fail
// with SQLITE_BUSY: retry with backoff for a few seconds.
func walMode(ctx context.Context, db *sql.DB) error {
	delay := 2 * time.Millisecond
	for attempt := 1; ; attempt++ {
		var mode string
		err := db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("set WAL journal mode: the file stays in %q mode", mode)
		case !strings.Contains(err.Error(), "SQLITE_BUSY") || attempt == 12:
			return fmt.Errorf("set WAL journal mode: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// postgresPool is the connection pool size on PostgreSQL: enough for the
// evaluator's fan-out, small beside the server's max_connections (100 by
// default) when several workers share it.
const postgresPool = 16

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	safe := RedactDSN(dsn)
	if _, err := pgx.ParseConfig(dsn); err != nil {
		// Not %w: pgx's parse error keeps the raw DSN, password included.
		return nil, fmt.Errorf("open store %s: %s: %w", safe, RedactDSN(err.Error()), claimtrace.ErrInvalid)
	}
	db, err := sql.Open(postgresDialect.driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: is the PostgreSQL driver linked in (import _ \"github.com/jackc/pgx/v5/stdlib\")? %w", safe, err)
	}
	db.SetMaxOpenConns(postgresPool)
	db.SetMaxIdleConns(postgresPool)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", safe, err)
	}
	return start(ctx, db, postgresDialect, safe)
}

// start migrates a freshly opened database and returns the store on it.
func start(ctx context.Context, db *sql.DB, d dialect, name string) (*Store, error) {
	s := &Store{db: db, d: d, dsn: name, Now: func() time.Time { return time.Now().UTC() }}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", name, err)
	}
	return s, nil
}

// Path is the SQLite database file ("" for in-memory and PostgreSQL stores).
func (s *Store) Path() string {
	if s.d.name != sqliteDialect.name || s.dsn == ":memory:" {
		return ""
	}
	return s.dsn
}

// Backend names the database behind the store: "sqlite" or "postgres".
func (s *Store) Backend() string { return s.d.name }

// String describes the store for messages: the SQLite path, or the
// PostgreSQL URL with its password hidden.
func (s *Store) String() string { return s.dsn }

// Close releases the database.
func (s *Store) Close() error {
	s.stmts.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	return s.db.Close()
}

// runner is what a statement runs on: a prepared statement on SQLite, the
// pool on PostgreSQL.
type runner interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

// unprepared runs a query on the pool (database/sql's and pgx's own
// statement handling).
type unprepared struct {
	db    *sql.DB
	query string
}

func (u unprepared) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return u.db.ExecContext(ctx, u.query, args...)
}

func (u unprepared) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return u.db.QueryContext(ctx, u.query, args...)
}

func (u unprepared) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return u.db.QueryRowContext(ctx, u.query, args...)
}

// stmt returns what runs query: on SQLite the statement prepared once for
// the store's life, elsewhere (or if preparing fails, which the call will
// then report) the pool.
func (s *Store) stmt(ctx context.Context, query string) runner {
	if s.d.name != sqliteDialect.name {
		return unprepared{s.db, s.d.rebind(query)}
	}
	if v, ok := s.stmts.Load(query); ok {
		return v.(*sql.Stmt)
	}
	st, err := s.db.PrepareContext(ctx, s.d.rebind(query))
	if err != nil {
		return unprepared{s.db, s.d.rebind(query)}
	}
	if v, loaded := s.stmts.LoadOrStore(query, st); loaded {
		st.Close()
		return v.(*sql.Stmt)
	}
	return st
}

// exec runs one write statement, under the write lock on SQLite.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s.d.oneWriter {
		s.wmu.Lock()
		defer s.wmu.Unlock()
	}
	var res sql.Result
	err := retryBadConn(ctx, func() (err error) {
		res, err = s.stmt(ctx, query).ExecContext(ctx, args...)
		return err
	})
	return res, err
}

// query runs a read.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	var rows *sql.Rows
	err := retryBadConn(ctx, func() (err error) {
		rows, err = s.stmt(ctx, query).QueryContext(ctx, args...)
		return err
	})
	return rows, err
}

// queryRow runs a read of one row when its Scan is called.
func (s *Store) queryRow(ctx context.Context, query string, args ...any) row {
	return row{s: s, ctx: ctx, query: query, args: args}
}

// row is a read of one row, run by Scan (like *sql.Row, whose errors also
// wait for Scan) so that it can be retried on a broken connection.
type row struct {
	s     *Store
	ctx   context.Context
	query string
	args  []any
}

// Scan runs the read and copies the row's columns into dest; it returns
// sql.ErrNoRows when there is no row.
func (r row) Scan(dest ...any) error {
	return retryBadConn(r.ctx, func() error {
		return r.s.stmt(r.ctx, r.query).QueryRowContext(r.ctx, r.args...).Scan(dest...)
	})
}

// badConnRetries is how many more times a statement is tried after
// database/sql's own retries all met broken connections.
const badConnRetries = 5

// retryBadConn runs fn again while it fails with driver.ErrBadConn. A query
// cancelled in one goroutine makes pgx close its connection asynchronously,
// after database/sql may have pooled it again; several such connections can
// exhaust database/sql's three attempts, and a write finished by a run being
// interrupted would be lost. The drivers return ErrBadConn only when nothing
// was sent, so trying again cannot apply a statement twice.
func retryBadConn(ctx context.Context, fn func() error) error {
	err := fn()
	for i := 0; i < badConnRetries && errors.Is(err, driver.ErrBadConn) && ctx.Err() == nil; i++ {
		err = fn()
	}
	return err
}

// txn is a write transaction whose statements are written with "?".
type txn struct {
	tx *sql.Tx
	d  dialect
}

func (t txn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.d.rebind(query), args...)
}

func (t txn) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.d.rebind(query), args...)
}

// writeTx runs fn in a write transaction, under the write lock on SQLite;
// fn may run more than once, and must only write through its txn.
func (s *Store) writeTx(ctx context.Context, fn func(txn) error) error {
	if s.d.oneWriter {
		s.wmu.Lock()
		defer s.wmu.Unlock()
	}
	// A broken connection aborts the transaction before anything is
	// applied, so the whole of it may be tried again (retryBadConn).
	return retryBadConn(ctx, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := fn(txn{tx, s.d}); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// timeFormat is RFC 3339 in UTC with a fixed nine-digit fraction, so that
// stored times sort as text in the order they happened (RFC3339Nano drops
// trailing zeros, and "05Z" sorts after "05.5Z").
const timeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// stamp formats t for a time column.
func stamp(t time.Time) string { return t.UTC().Format(timeFormat) }

// parseStamp reads a time column, written by stamp or, in stores made
// before it, as RFC3339Nano.
func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

func (s *Store) now() string { return stamp(s.Now()) }
