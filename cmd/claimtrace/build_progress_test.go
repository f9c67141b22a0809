package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// progressSnapshot writes a snapshot of two surveys for the build tests.
func progressSnapshot(t *testing.T, dir string) string {
	t.Helper()
	lines := []string{
		`{"id":"2101.00001","title":"A Survey of Widget Learning","comments":"Accepted at Widget Journal","license":"http://creativecommons.org/licenses/by/4.0/","abstract":"In this survey we review two decades of widget learning research.","categories":"cs.LG","versions":[{"version":"v1","created":"Mon, 4 Jan 2021 10:00:00 GMT"}]}`,
		`{"id":"2102.00002","title":"Gadget Networks: A Review","comments":"Published in Gadget Letters","license":"http://creativecommons.org/licenses/by/4.0/","abstract":"We review gadget networks and propose a taxonomy.","categories":"cs.NI","versions":[{"version":"v1","created":"Tue, 2 Feb 2021 10:00:00 GMT"}]}`,
	}
	path := filepath.Join(dir, "snap.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBuildProgressPiped checks that the build stages draw no progress bar
// when stderr is not a terminal: stderr stays empty and stdout holds one
// summary line a stage.
func TestBuildProgressPiped(t *testing.T) {
	dir := t.TempDir()
	snap, work := progressSnapshot(t, dir), filepath.Join(dir, "bench")
	for _, args := range [][]string{
		{"build", "select", "--snapshot", snap, "--dir", work},
		{"build", "classify", "--dir", work},
	} {
		out, errOut, code := cli(t, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", args[1], code, errOut)
		}
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], args[1]+" ") {
			t.Errorf("%s: stdout %q, want one summary line", args[1], out)
		}
	}
	out, errOut, code := cli(t, "build", "select", "--snapshot", snap)
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.HasPrefix(errOut, "select: 2 records, kept 2") {
		t.Errorf("standalone select: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestBuildProgressTerminal runs the CLI under script(1), which gives it
// a terminal: each stage draws a bar labelled with its name, cleared
// before the stage's summary line.
func TestBuildProgressTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if runtime.GOOS != "linux" || err != nil {
		t.Skip("needs script(1) from util-linux to run under a terminal")
	}
	dir := t.TempDir()
	snap, work := progressSnapshot(t, dir), filepath.Join(dir, "bench")
	for _, args := range [][]string{
		{"build", "select", "--snapshot", snap, "--dir", work},
		{"build", "classify", "--dir", work},
	} {
		quoted := []string{shellQuote(os.Args[0])}
		for _, a := range args {
			quoted = append(quoted, shellQuote(a))
		}
		cmd := exec.Command(script, "-qec", strings.Join(quoted, " "), "/dev/null")
		cmd.Env = append(os.Environ(), "CLAIMTRACE_TEST_MAIN=1")
		data, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s under a terminal: %v\n%s", args[1], err, data)
		}
		out := string(data)
		bar := strings.Index(out, "\r"+args[1]+"   0% |")
		summary := strings.LastIndex(out, args[1]+" ")
		if bar < 0 || summary < bar {
			t.Errorf("%s: want a bar, then the summary line; got %q", args[1], out)
		}
	}
}

// shellQuote quotes s for sh -c.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
