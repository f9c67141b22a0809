//go:build unix

package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
)

// TestReadFileSpecial checks that named pipes and devices are refused at
// once, directly or through a link (issue 14 item 7: eval hung forever
// opening a FIFO in the reports folder), and that a link to a regular file
// is read.
func TestReadFileSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "2101.00001.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(fifo, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real.md")
	os.WriteFile(real, []byte("text"), 0o644)
	if err := os.Symlink(real, filepath.Join(dir, "good.md")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{fifo: "named pipe", filepath.Join(dir, "link.md"): "named pipe"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "device"
	}
	for p, what := range cases {
		for name, read := range map[string]func(string) error{
			"ReadFile": func(p string) error { _, err := ReadFile(p, 1<<20); return err },
			"Load":     func(p string) error { _, err := Load(p); return err },
		} {
			done := make(chan error, 1)
			go func() { done <- read(p) }()
			select {
			case err := <-done:
				if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), p) {
					t.Errorf("%s(%s) = %v, want ErrInvalid naming the file as a %s", name, p, err, what)
				}
			case <-time.After(5 * time.Second):
				// Unblock the reader so the test can end.
				if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatalf("%s(%s) still blocked after 5s", name, p)
			}
		}
	}
	var nr *NotRegularError
	if err := Regular(fifo); !errors.As(err, &nr) || nr.Kind != "a named pipe (FIFO)" || !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("Regular(fifo) = %v, want a NotRegularError for a named pipe", err)
	}
	if err := Regular(filepath.Join(dir, "good.md")); err != nil {
		t.Errorf("Regular(link to a file) = %v", err)
	}
	if b, err := ReadFile(filepath.Join(dir, "good.md"), 100); err != nil || string(b) != "text" {
		t.Errorf("ReadFile(link to a file) = %q, %v", b, err)
	}
}
