//go:build unix

package main

import (
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
