//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInputsRefused gives a named pipe, with no writer, wherever a
// command takes a file (issue 23 item 6: judge eval --labels, judge
// calibrate --labels, --calibration, --config and a snapshot's index.jsonl
// blocked forever). Each command fails at once, naming the pipe.
func TestFIFOInputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pairs.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"claim":"The bridge opened in 1932.","evidence":"The bridge was opened to traffic in March 1932.","label":"supported"}`+"\n"), 0o644)
	snap := filepath.Join(dir, "snap")
	os.MkdirAll(filepath.Join(snap, "pages"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(snap, "index.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newCrashFixture(t, 1, 1, 0)
	for name, args := range map[string][]string{
		"judge eval --labels":      {"judge", "eval", "--labels", fifo},
		"judge eval --whole":       {"judge", "eval", "--whole", fifo},
		"judge calibrate --labels": {"judge", "calibrate", "--labels", fifo},
		"judge eval --calibration": {"judge", "eval", "--labels", good, "--calibration", fifo},
		"--config":                 {"--config", fifo, "config", "--show"},
		"eval --snapshot":          {"eval", "--dataset", f.dataset, "--reports", f.reports, "--out", filepath.Join(dir, "out"), "--store", filepath.Join(dir, "s.db"), "--snapshot", snap, "--offline"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := child(t, args...)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			code, killed := waitChild(t, cmd, 10*time.Second)
			if killed {
				t.Fatalf("blocked on the pipe (%v); output %q", time.Since(start), out.String())
			}
			if code == 0 || !strings.Contains(out.String(), "named pipe (FIFO), not a regular file") {
				t.Errorf("exit %d; want a failure naming the pipe, got:\n%s", code, out.String())
			}
		})
	}
}

// TestJudgeEvalStopsOnSIGTERM sends one SIGTERM to judge eval while it
// judges a large label set (issue 23 item 6: it ran on for 10 minutes): it
// stops within a second, exit 130.
func TestJudgeEvalStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	var b strings.Builder
	page := strings.Repeat("The committee met in the spring and reviewed the budget for the harbour works, which rose by a tenth over the year. ", 150)
	for i := range 3000 {
		fmt.Fprintf(&b, `{"claim":"The harbour budget rose by %d percent in year %d.","evidence":%q,"label":"unsupported"}`+"\n", i%40, 1900+i, fmt.Sprint(i)+" "+page)
	}
	labels := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(labels, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Once while it reads the labels, once while it judges them. The
	// signal must find the command at work, not the process still
	// starting nor already done (a loaded machine, -race, a fast one):
	// the first when it has the labels open, the second once it has read
	// them all, a little later.
	for _, tc := range []struct {
		name  string
		whole bool
		after time.Duration
	}{{"reading", false, 0}, {"judging", true, 200 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := child(t, "judge", "eval", "--labels", labels)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitInput(t, cmd.Process.Pid, labels, tc.whole)
			time.Sleep(tc.after)
			cmd.Process.Signal(syscall.SIGTERM)
			start := time.Now()
			code, killed := waitChild(t, cmd, time.Second)
			if killed {
				t.Fatalf("judge eval did not stop within a second of SIGTERM; output %q", out.String())
			}
			t.Logf("stopped %v after SIGTERM, exit %d", time.Since(start), code)
			if code != 130 {
				t.Errorf("exit %d after SIGTERM, want 130 (interrupted); output:\n%s", code, out.String())
			}
		})
	}
}

// TestEvalHostileBatchStopsOnSIGTERM runs eval over a batch of reports
// that are legal but costly (thousands of cited claims, each citing its own
// URL) and one past the citations limit, then sends one SIGTERM (issue 23
// item 4: a batch of 12 hostile reports did not stop within 5 s). It stops
// within a second, exit 130; the rerun finishes with the over-limit report
// failed alone, naming the limit.
func TestEvalHostileBatchStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	f := newCrashFixture(t, 5, 1, 0)
	for i := 1; i <= 4; i++ {
		var b strings.Builder
		b.WriteString("# Report\n\n")
		for k := 1; k <= 2500; k++ {
			fmt.Fprintf(&b, "Dredging cost %d thousand in district %d [%d].\n\n", k, i, k)
		}
		b.WriteString("## References\n\n")
		for k := 1; k <= 2500; k++ {
			fmt.Fprintf(&b, "[%d] https://example.org/harbour/%d/%d - Harbour note %d\n", k, i, k, k)
		}
		os.WriteFile(filepath.Join(f.reports, fmt.Sprintf("2101.%05d.md", i)), []byte(b.String()), 0o644)
	}
	over := "# Report\n\n" + strings.Repeat(strings.Repeat("Costs rose [1]. ", 50)+"\n", 1200) + "\n[1] https://example.org/a - A\n"
	os.WriteFile(filepath.Join(f.reports, "2101.00005.md"), []byte(over), 0o644)
	os.WriteFile(f.config, []byte("[fetch]\nper_host_rps = -1\n[eval]\nmax_citations = 50000\n"), 0o644)
	args := []string{"eval", "--config", f.config, "--dataset", f.dataset, "--reports", f.reports, "--out", filepath.Join(f.dir, "out"),
		"--store", filepath.Join(f.dir, "s.db"), "--offline", "--concurrency", "2"}
	cmd := child(t, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := waitInput(t, cmd.Process.Pid, filepath.Join(f.dir, "s.db"), false)
	time.Sleep(max(1500*time.Millisecond-waited, 200*time.Millisecond))
	cmd.Process.Signal(syscall.SIGTERM)
	start := time.Now()
	code, killed := waitChild(t, cmd, time.Second)
	if killed {
		t.Fatalf("eval did not stop within a second of SIGTERM; output %q", out.String())
	}
	t.Logf("stopped %v after SIGTERM, exit %d", time.Since(start), code)
	if code != 130 {
		t.Fatalf("exit %d after SIGTERM, want 130; output:\n%s", code, out.String())
	}
	b, err := child(t, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), "FAILED 2101.00005: parse: more than 50000 citations, over the limit max_citations = 50000") {
		t.Errorf("the over-limit report is not failed naming the limit:\n%s", b)
	}
}

// waitInput waits until process pid has read as many bytes as the file
// path holds (/proc/PID/io) or, unless whole, has it open (/proc/PID/fd), so that a signal sent next finds the command at work
// rather than the process still starting, however loaded the machine; it
// returns how long it waited. Where /proc is missing it waits two seconds.
func waitInput(t *testing.T, pid int, path string, whole bool) time.Duration {
	t.Helper()
	start := time.Now()
	want, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	if _, err := os.Stat(fds); err != nil {
		time.Sleep(2 * time.Second)
		return time.Since(start)
	}
	var size int64
	if fi, err := os.Stat(want); err == nil {
		size = fi.Size()
	}
	for deadline := start.Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		// Read whole: also what a file opened, read and closed between
		// two looks shows.
		if io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid)); err == nil && size > 0 {
			var rchar int64
			for _, line := range strings.Split(string(io), "\n") {
				fmt.Sscanf(line, "rchar: %d", &rchar)
			}
			if rchar >= size {
				return time.Since(start)
			}
		}
		if whole {
			continue
		}
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if got, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && got == want {
				return time.Since(start)
			}
		}
	}
	t.Fatalf("process %d never opened (or read) %s", pid, want)
	return 0
}
