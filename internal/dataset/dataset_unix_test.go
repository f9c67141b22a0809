//go:build unix

package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
)

// TestDatasetFIFO checks that a named pipe as the tasks file or as a
// ground truth is refused at once instead of waited on (issue 14 item 7).
func TestDatasetFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, TasksFile), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Mkdir(filepath.Join(dir, GTDir), 0o755)
	within(t, func() error { _, err := LoadDataset(dir); return err })

	os.Remove(filepath.Join(dir, TasksFile))
	os.WriteFile(filepath.Join(dir, TasksFile), []byte(`{"arxiv_id":"2101.00001","title":"T","prompt":"P"}`+"\n"), 0o644)
	syscall.Mkfifo(filepath.Join(dir, GTDir, "2101.00001.jsonl"), 0o644)
	d, err := LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	within(t, func() error { _, err := d.GT("2101.00001"); return err })
}

// within runs read and wants ErrInvalid within five seconds.
func within(t *testing.T, read func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		if !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("reading a named pipe = %v, want ErrInvalid", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still blocked on a named pipe after 5s")
	}
}
