// Package storetest hands tests fresh, isolated databases for the store: a
// SQLite file in a temporary directory always, and a PostgreSQL schema of
// their own when CLAIMTRACE_TEST_POSTGRES names a server. It returns DSNs
// rather than stores so that the store's own tests can use it too.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvPostgres names the environment variable holding the PostgreSQL URL the
// tests may use, e.g. postgres://claimtrace:claimtrace@localhost/claimtrace_test.
// The role needs CREATE on the database: each test gets a schema of its own.
const EnvPostgres = "CLAIMTRACE_TEST_POSTGRES"

// Backend is one database the conformance suite runs on.
type Backend struct {
	// Name is "sqlite" or "postgres", the subtest name.
	Name string
	// DSN returns the DSN of a fresh, empty database for the test, skipping
	// it when the backend is not available.
	DSN func(t testing.TB) string
}

// Backends lists the backends every store test runs on: SQLite always,
// PostgreSQL when EnvPostgres is set (skipped with a message otherwise).
func Backends() []Backend {
	return []Backend{{"sqlite", SQLiteDSN}, {"postgres", PostgresDSN}}
}

// Run runs fn as a subtest on every backend, each with a fresh database.
func Run(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b.DSN(t)) })
	}
}

// SQLiteDSN returns the path of a new SQLite file in the test's temporary
// directory.
func SQLiteDSN(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "store.db")
}

// PostgresDSN creates a schema for the test on the server named by
// EnvPostgres and returns that URL with search_path set to it; the schema is
// dropped when the test ends. Without EnvPostgres the test is skipped.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: set %s to a postgres:// URL (the .ci/run script does)", EnvPostgres)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", EnvPostgres)
	}
	schema := schemaName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := execAdmin(ctx, base, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("create test schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := execAdmin(ctx, base, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop test schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// execAdmin runs one statement on its own connection.
func execAdmin(ctx context.Context, dsn, stmt string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// schemaName makes a schema name from a test name: readable when a test
// leaves one behind, unique with a random suffix, within PostgreSQL's 63
// bytes.
func schemaName(test string) string {
	var suffix [4]byte
	rand.Read(suffix[:])
	name := unsafeChars.ReplaceAllString(strings.ToLower(test), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return fmt.Sprintf("t_%s_%s", name, hex.EncodeToString(suffix[:]))
}
