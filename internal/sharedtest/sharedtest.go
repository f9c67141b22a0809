// Package sharedtest locates the shared real-data folder (../shared/data
// beside the project) for tests and benchmarks, and skips cleanly when it is
// absent, as on a fresh clone without it.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the shared data directory, or "" when it cannot be found.
// CLAIMTRACE_SHARED_DATA overrides the default location, which is
// ../shared/data relative to the module root.
func Root() string {
	if d := os.Getenv("CLAIMTRACE_SHARED_DATA"); d != "" {
		if isDir(d) {
			return d
		}
		return ""
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if isDir(d) {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dir returns the path of sub inside the shared data directory, skipping the
// test or benchmark with a clear message when it is missing.
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	root := Root()
	if root == "" {
		tb.Skip("shared data not found: place it at ../shared/data beside the project or set CLAIMTRACE_SHARED_DATA (get it: go run ./cmd/claimtrace data pull --dir ../shared/data)")
	}
	p := filepath.Join(root, sub)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data %s not found: %v (get it: go run ./cmd/claimtrace data pull --dir %s)", sub, err, root)
	}
	return p
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
