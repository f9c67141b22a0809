//go:build unix

package construct_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/dataset/construct"
	"github.com/claimtrace/claimtrace/internal/dataset/construct/arxivsnap"
)

// TestSelectPipe reads the snapshot from a named pipe, as from
// <(zcat snapshot.gz), and checks that cancelling stops the stage both
// while it waits for a writer and while the writer is silent (issue 14
// item 7: every blocking open honours cancellation).
func TestSelectPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "snapshot.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	b := newBuilder(dir, "http://127.0.0.1:1")
	opt := construct.SelectOptions{Snapshot: fifo, Filter: arxivsnap.DefaultSpec()}

	// A writer streams the snapshot: the stage reads it.
	src, err := os.ReadFile(testSnapshot(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(src)
		w.Close()
	}()
	rep, err := b.Select(context.Background(), opt)
	if err != nil || rep.Manifest.Counts["kept"] != 14 {
		t.Fatalf("select from a pipe: %v, %v", rep, err)
	}

	stopsOnCancel := func(name string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		done := make(chan error, 1)
		go func() { _, err := b.Select(ctx, opt); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: select = %v, want context.Canceled", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: select still blocked 5s after cancellation", name)
		}
	}
	os.Remove(filepath.Join(dir, "build", "select.manifest.json")) // rerun, not skip
	// No writer: the open waits.
	stopsOnCancel("no writer")
	// A writer that never writes: the read waits.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: opens without waiting for a reader
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stopsOnCancel("silent writer")
}
