package store

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/store/storetest"
)

// TestMigrationsAreTwins checks that both backends have the same numbered
// migrations under the same names.
func TestMigrationsAreTwins(t *testing.T) {
	names := func(dir string) []string {
		ms, err := migrationsOf(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i, m := range ms {
			if m.version != i+1 {
				t.Errorf("%s: migration %d is numbered %d: numbers must run 1, 2, 3 …", dir, i+1, m.version)
			}
			out = append(out, path.Base(m.file))
		}
		return out
	}
	sq, pg := names(sqliteDialect.migrations), names(postgresDialect.migrations)
	if len(sq) == 0 {
		t.Fatal("no SQLite migrations embedded")
	}
	if diff := cmp.Diff(sq, pg); diff != "" {
		t.Errorf("migrations (-sqlite +postgres):\n%s", diff)
	}
}

// column is one column of a migrated schema.
type column struct{ Table, Name string }

// columns lists the tables and columns of s's schema.
func columns(t *testing.T, s *Store) []column {
	t.Helper()
	q := `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
	if s.Backend() == "postgres" {
		q = `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`
	}
	rows, err := s.db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.Table, &c.Name); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Table != out[j].Table {
			return out[i].Table < out[j].Table
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// TestSchemasAreTwins migrates both backends and compares their tables and
// columns, so that a migration added to one and forgotten in the other, or
// written differently, fails here.
func TestSchemasAreTwins(t *testing.T) {
	sq := openDSN(t, storetest.SQLiteDSN(t))
	pg := openDSN(t, storetest.PostgresDSN(t))
	want := columns(t, sq)
	if len(want) < 30 {
		t.Fatalf("SQLite schema has %d columns: %v", len(want), want)
	}
	if diff := cmp.Diff(want, columns(t, pg)); diff != "" {
		t.Errorf("schema (-sqlite +postgres):\n%s", diff)
	}
}

// TestPostgresKeysCollateBytewise checks the PostgreSQL schema itself: every
// text column of a primary key sorts by bytes, whatever the server's locale
// (on a C.UTF-8 server TestOrderIsBytewise alone would not notice).
func TestPostgresKeysCollateBytewise(t *testing.T) {
	s := openDSN(t, storetest.PostgresDSN(t))
	rows, err := s.db.QueryContext(context.Background(), `SELECT c.table_name, c.column_name, COALESCE(c.collation_name, '')
		FROM information_schema.key_column_usage k
		JOIN information_schema.table_constraints tc ON tc.constraint_name = k.constraint_name AND tc.table_schema = k.table_schema
		JOIN information_schema.columns c ON c.table_schema = k.table_schema AND c.table_name = k.table_name AND c.column_name = k.column_name
		WHERE tc.constraint_type = 'PRIMARY KEY' AND c.data_type = 'text' AND k.table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var table, col, coll string
		if err := rows.Scan(&table, &col, &coll); err != nil {
			t.Fatal(err)
		}
		n++
		if coll != "C" {
			t.Errorf("%s.%s collates %q, want \"C\"", table, col, coll)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Errorf("found %d text key columns, want at least 8", n)
	}
}

// openAtVersion creates the database at dsn as a claimtrace whose newest
// migration was number version left it, and returns a store on it that Open
// has not upgraded, for writing data in that schema.
func openAtVersion(t *testing.T, dsn string, version int) *Store {
	t.Helper()
	ctx := context.Background()
	d, target, err := parseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn := target
	if d.name == sqliteDialect.name {
		conn = "file:" + target + "?_pragma=foreign_keys(1)&_txlock=immediate"
	}
	db, err := sql.Open(d.driver, conn)
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{db: db, d: d, dsn: RedactDSN(target), Now: func() time.Time { return time.Now().UTC() }}
	t.Cleanup(func() { s.Close() })
	// The first statement of Store.migrate.
	err = s.migrationTx(ctx, func(tx txn) error {
		_, err := tx.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrationsOf(d.migrations)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:version] {
		if err := s.migrationTx(ctx, func(tx txn) error { return s.apply(ctx, tx, m) }); err != nil {
			t.Fatalf("migration %s: %v", path.Base(m.file), err)
		}
	}
	return s
}

// TestOpenUpgrades opens stores made by earlier versions, one per earlier
// migration, with work stored in them: Open applies the missing migrations,
// the schema ends up as a new store's, and the stored work survives.
func TestOpenUpgrades(t *testing.T) {
	ms, err := migrationsOf(sqliteDialect.migrations)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			want := columns(t, openDSN(t, b.DSN(t)))
			for version := 1; version < len(ms); version++ {
				t.Run(fmt.Sprintf("from%d", version), func(t *testing.T) {
					ctx := context.Background()
					dsn := b.DSN(t)
					old := openAtVersion(t, dsn, version)
					if err := old.EnsureRun(ctx, "r", "eval", "{}"); err != nil {
						t.Fatal(err)
					}
					if err := old.PutUnit(ctx, Unit{Run: "r", Kind: "work", Key: "k", Status: StatusDone, Data: []byte(`{"x":1}`)}); err != nil {
						t.Fatal(err)
					}
					if got := count(t, old, `SELECT COUNT(*) FROM schema_migrations`); got != version {
						t.Fatalf("%d migrations recorded in the old store, want %d", got, version)
					}
					old.Close()

					s := openDSN(t, dsn)
					if got := count(t, s, `SELECT COUNT(*) FROM schema_migrations`); got != len(ms) {
						t.Errorf("%d migrations recorded after the upgrade, want %d", got, len(ms))
					}
					if diff := cmp.Diff(want, columns(t, s)); diff != "" {
						t.Errorf("upgraded schema (-new store +upgraded):\n%s", diff)
					}
					u, ok, err := s.GetUnit(ctx, "r", "work", "k")
					if err != nil || !ok || string(u.Data) != `{"x":1}` {
						t.Errorf("GetUnit after the upgrade = %+v %v %v", u, ok, err)
					}
					if ok, err := s.TryLease(ctx, "r", "work", "k2", "a", time.Minute); err != nil || !ok {
						t.Errorf("TryLease after the upgrade = %v %v", ok, err)
					}
				})
			}
		})
	}
}
