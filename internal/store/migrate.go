package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations
var migrations embed.FS

// migrationLock is the PostgreSQL advisory lock key ("claimtrc" in ASCII)
// taken by every migration transaction, so that workers opening one
// database at once apply each migration once, one after the other.
const migrationLock = 0x636c61696d747263

// migration is one numbered file of a backend's migrations.
type migration struct {
	version int
	file    string
}

// migrationsOf lists the migrations under dir in version order.
func migrationsOf(dir string) ([]migration, error) {
	files, err := fs.Glob(migrations, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, f := range files {
		base := path.Base(f)
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number", base)
		}
		out = append(out, migration{n, f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a number", out[i-1].file, out[i].file)
		}
	}
	return out, nil
}

func (s *Store) migrate(ctx context.Context) error {
	err := s.migrationTx(ctx, func(t txn) error {
		_, err := t.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	ms, err := migrationsOf(s.d.migrations)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := s.migrationTx(ctx, func(t txn) error { return s.apply(ctx, t, m) }); err != nil {
			return fmt.Errorf("migration %s: %w", path.Base(m.file), err)
		}
	}
	return nil
}

// migrationTx runs fn in a transaction holding the migration lock: on
// SQLite the write lock (BEGIN IMMEDIATE), on PostgreSQL an advisory lock
// released at commit.
func (s *Store) migrationTx(ctx context.Context, fn func(txn) error) error {
	return s.writeTx(ctx, func(t txn) error {
		if s.d.name == postgresDialect.name {
			if _, err := t.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrationLock)); err != nil {
				return fmt.Errorf("take migration lock: %w", err)
			}
		}
		return fn(t)
	})
}

// apply runs migration m unless it is recorded as done.
func (s *Store) apply(ctx context.Context, t txn, m migration) error {
	body, err := migrations.ReadFile(m.file)
	if err != nil {
		return err
	}
	var done int
	if err := t.queryRow(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	// Verbatim, not rebound: a migration is a script with no parameters.
	if _, err := t.tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, m.version, s.now())
	return err
}
