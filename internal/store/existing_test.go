package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// TestOpenExisting: a store that does not exist is an error that names
// it, and nothing is made on disk; one that exists opens.
func TestOpenExisting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuch", "x.db")
	for _, dsn := range []string{missing, "sqlite:" + missing, "file:" + missing} {
		_, err := OpenExisting(ctx, dsn)
		if !errors.Is(err, claimtrace.ErrNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("OpenExisting(%q) = %v, want ErrNotFound naming the path", dsn, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nosuch")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a folder was made for a missing store: %v", err)
	}
	if _, err := OpenExisting(ctx, dir); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("OpenExisting(a folder) = %v, want ErrInvalid", err)
	}
	made := filepath.Join(dir, "made.db")
	s, err := Open(ctx, made)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenExisting(ctx, made)
	if err != nil {
		t.Fatalf("OpenExisting(an existing store) = %v", err)
	}
	s.Close()
}
