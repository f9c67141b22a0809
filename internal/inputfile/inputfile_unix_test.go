//go:build unix

package inputfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// TestOpenRefusesSpecialFiles: a named pipe with no writer, a link to one,
// a device and a folder are refused at once by every way of opening, with
// an error naming the file and what it is; a regular file and a link to
// one open.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "index.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Symlink(fifo, filepath.Join(dir, "link.jsonl"))
	os.WriteFile(filepath.Join(dir, "real.jsonl"), []byte("{}\n"), 0o644)
	os.Symlink(filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "good.jsonl"))
	bad := map[string]string{fifo: "named pipe", filepath.Join(dir, "link.jsonl"): "named pipe", dir: "folder"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		bad["/dev/zero"] = "device"
	}
	for p, what := range bad {
		for name, open := range map[string]func(string) error{
			"Open":     func(p string) error { _, _, err := Open(p); return err },
			"ReadFile": func(p string) error { _, err := ReadFile(p, 1<<20); return err },
			"Regular":  Regular,
		} {
			err := open(p)
			if !errors.Is(err, claimtrace.ErrInvalid) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s(%s) = %v; want ErrInvalid naming the file and saying it is a %s", name, p, err, what)
			}
		}
	}
	for _, p := range []string{"real.jsonl", "good.jsonl"} {
		f, fi, err := Open(filepath.Join(dir, p))
		if err != nil || fi.Size() != 3 {
			t.Errorf("Open(%s) = %v, %v", p, fi, err)
			continue
		}
		f.Close()
	}
	if _, _, err := OpenInRoot(dir, "index.jsonl"); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("OpenInRoot(pipe) = %v, want ErrInvalid", err)
	}
	if _, _, err := OpenInRoot(dir, "../x"); err == nil {
		t.Error("OpenInRoot(../x): no error")
	}
	if f, _, err := OpenInRoot(dir, "real.jsonl"); err != nil {
		t.Errorf("OpenInRoot(real) = %v", err)
	} else {
		f.Close()
	}
}

// TestReaderStopsOnCancel: reads after the context ends fail with its
// error, and one read never takes more than a small slice.
func TestReaderStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader(strings.Repeat("x", 3<<20)))
	buf := make([]byte, 4<<20)
	n, err := r.Read(buf)
	if err != nil || n != 1<<20 {
		t.Fatalf("first read = %d, %v; want 1 MiB", n, err)
	}
	cancel()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel = %v, want context.Canceled", err)
	}
	if _, err := ReadFileContext(ctx, "/nonexistent", 10); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFileContext with an ended context = %v", err)
	}
}
