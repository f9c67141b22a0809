//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitChild waits at most d for cmd to exit; past that it sends SIGTERM,
// then SIGKILL, and reports that the command had to be killed.
func waitChild(t *testing.T, cmd *exec.Cmd, d time.Duration) (code int, killed bool) {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode(), false
	case <-time.After(d):
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		t.Logf("exited only on SIGTERM")
		return cmd.ProcessState.ExitCode(), true
	case <-time.After(3 * time.Second):
	}
	cmd.Process.Kill()
	<-done
	t.Errorf("ignored SIGTERM; killed")
	return -1, true
}

// TestEvalSkipsFIFO puts a named pipe among the reports (issue 14 item 7:
// eval hung forever on a FIFO in the reports folder and ignored SIGTERM).
// The run finishes, scores the other report and names the pipe as skipped.
func TestEvalSkipsFIFO(t *testing.T) {
	f := newCrashFixture(t, 2, 2, 0)
	fifo := filepath.Join(f.reports, "2101.00002.md")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A pipe that is no report of the dataset is ignored like any file.
	syscall.Mkfifo(filepath.Join(f.reports, "notes.fifo"), 0o644)
	out := filepath.Join(f.dir, "out")
	cmd := child(t, f.args(filepath.Join(f.dir, "s.db"), out)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code, killed := waitChild(t, cmd, 30*time.Second)
	if killed {
		t.Fatalf("eval did not finish with a FIFO among the reports (exit %d); stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "FAILED 2101.00002: "+fifo+" is a named pipe (FIFO), not a regular file; skipped") {
		t.Errorf("output does not name the skipped pipe:\n%s\n%s", stdout.String(), stderr.String())
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), `"reports_failed": 1`) || !strings.Contains(string(summary), `"reports": 1,`) {
		t.Errorf("summary: want one report scored and the pipe counted as failed:\n%.600s", summary)
	}
}

// TestEvalStopsOnSIGTERM sends SIGTERM to a running evaluation: it stops
// promptly, exits 130 and says finished work is kept.
func TestEvalStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	f := newCrashFixture(t, 3, 6, 200*time.Millisecond)
	cmd := child(t, f.args(filepath.Join(f.dir, "s.db"), filepath.Join(f.dir, "out"))...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for f.totalHits() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	code, killed := waitChild(t, cmd, 5*time.Second)
	if killed || code != 130 || !strings.Contains(stderr.String(), "finished work is stored") {
		t.Fatalf("after SIGTERM: exit %d, stderr %q", code, stderr.String())
	}
	t.Logf("stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
}

// TestBuildSelectPipeStops gives build select a named pipe: with no writer
// (the open waits) a cancelled context stops it at once; with a silent
// writer (the read waits) SIGTERM does. Both exit 130. Before, the open of
// a pipe ignored cancellation.
func TestBuildSelectPipeStops(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "snapshot.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, nil, 0o644)
	args := []string{"build", "select", "--config", cfg, "--snapshot", fifo, "--out", filepath.Join(dir, "out.jsonl")}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, strings.NewReader(""), io.Discard, io.Discard) }()
	select {
	case code := <-done:
		if code != 130 {
			t.Errorf("no writer, cancelled: exit %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // let the blocked open return
		}
		t.Fatal("no writer: still blocked 5s after cancellation")
	}

	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never writes
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := child(t, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child holds the pipe open, so the signal finds it
	// reading (and its signal handling set up).
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if holds(cmd.Process.Pid, fifo) {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	code, killed := waitChild(t, cmd, 5*time.Second)
	if killed || code != 130 {
		t.Errorf("silent writer: after SIGTERM: exit %d, stderr %q", code, stderr.String())
	}
}

// holds reports whether process pid has path open (Linux /proc; elsewhere
// it waits a second and says yes).
func holds(pid int, path string) bool {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		time.Sleep(time.Second)
		return true
	}
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}
