package report

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
)

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.md")
	if err := os.WriteFile(p, []byte(strings.Repeat("a", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 100); err != nil || len(b) != 100 {
		t.Errorf("ReadFile at the limit = %d bytes, %v", len(b), err)
	}
	_, err := ReadFile(p, 99)
	if !errors.Is(err, claimtrace.ErrTooLarge) {
		t.Fatalf("ReadFile one byte over the limit = %v, want ErrTooLarge", err)
	}
	for _, m := range []string{p, "100 bytes", "99-byte limit", "check that this is the right file"} {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not mention %q", err, m)
		}
	}
	if _, err := LoadMax(p, 99); !errors.Is(err, claimtrace.ErrTooLarge) {
		t.Errorf("LoadMax one byte over the limit = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.md"), 99); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.md") {
		t.Errorf("ReadFile(missing) = %v, want ErrNotExist naming the file", err)
	}
	if _, err := ReadFile(dir, 99); !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), "a folder") {
		t.Errorf("ReadFile(folder) = %v, want ErrInvalid saying it is a folder", err)
	}
}

// TestReadFileSparse checks that a file far over the limit is refused from
// its size: nothing near its size is allocated (issue 14 item 8: audit
// used 554 MB of memory to refuse a 500 MB report).
func TestReadFileSparse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = ReadFile(p, 1<<20)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, claimtrace.ErrTooLarge) || !strings.Contains(err.Error(), "1073741824 bytes") {
		t.Errorf("ReadFile(1 GiB) = %v, want ErrTooLarge with the size", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("refusing a 1 GiB file allocated %d bytes", got)
	}
}
