package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.json")
	if err := atomicfile.Write(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("read %q, %v", b, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
}

// TestWriteConcurrent: writers of one path never collide on a temporary
// file (the old helper's fixed PATH.tmp did) and the file holds one
// writer's whole content.
func TestWriteConcurrent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			data := fmt.Appendf(nil, "%02d%s", i, make([]byte, 64<<10))
			if err := atomicfile.Write(p, data, 0o644); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if b, _ := os.ReadFile(p); len(b) != 2+64<<10 {
		t.Errorf("file of %d bytes", len(b))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".2401.00001.json.tmp-1234567": true,
		".summary.json.tmp-9":          true,
		"2401.00001.json.tmp-12":       false, // not hidden: not ours
		".x.tmp-":                      false,
		".x.tmp-12a":                   false,
		".tmp-12":                      false,
		"..tmp-12":                     false,
		".notes.txt":                   false,
		".a.tmp-1.tmp-2":               true,
	} {
		if got := atomicfile.IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRemoveStale removes the temporary files older than the cut-off and
// nothing else: not newer ones (a write in flight), not the targets, not
// folders or files of other names.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	old, cut := time.Now().Add(-time.Hour), time.Now()
	write := func(name string, at time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, at, at)
	}
	write(".a.json.tmp-1", old)
	write(".b.json.tmp-22", old)
	write(".c.json.tmp-3", cut.Add(time.Hour))
	write("a.json", old)
	write(".keep", old)
	os.Mkdir(filepath.Join(dir, ".d.json.tmp-4"), 0o755)
	n, err := atomicfile.RemoveStale(dir, cut)
	if err != nil || n != 2 {
		t.Fatalf("RemoveStale = %d, %v; want 2 removed", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if got, want := fmt.Sprint(left), "[.c.json.tmp-3 .d.json.tmp-4 .keep a.json]"; got != want {
		t.Errorf("left %s, want %s", got, want)
	}
	if _, err := atomicfile.RemoveStale(filepath.Join(dir, "missing"), cut); err == nil {
		t.Error("RemoveStale of a missing folder: no error")
	}
}
