package store

import (
	"context"
	"path"
	"sort"
	"testing"

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
