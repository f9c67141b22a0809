package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/claimtrace/claimtrace"
)

// OpenExisting is Open for a store that must exist already, as the stores
// a reader opens (serve, runs, prov cited): a SQLite DSN naming no file is
// an error wrapping claimtrace.ErrNotFound, and neither a folder nor a file
// is made, so a mistyped path is not served as an empty store. A
// PostgreSQL DSN is opened as Open opens it: the server refuses a database
// that does not exist.
func OpenExisting(ctx context.Context, dsn string) (*Store, error) {
	d, target, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if d.name == sqliteDialect.name && target != ":memory:" {
		fi, err := os.Stat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("open store %s: no such file (a store is made by eval, audit or demo --out; check the path): %w", target, claimtrace.ErrNotFound)
		case err != nil:
			return nil, fmt.Errorf("open store %s: %w", target, err)
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("open store %s: not a regular file: %w", target, claimtrace.ErrInvalid)
		}
	}
	return Open(ctx, dsn)
}
