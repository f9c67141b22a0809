package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/demo"
)

// TestMain lets tests run the CLI as a child process: the test binary itself
// acts as claimtrace when CLAIMTRACE_TEST_MAIN is set, so end-to-end tests
// (kill -9, exit codes) need no separate build.
func TestMain(m *testing.M) {
	if os.Getenv("CLAIMTRACE_TEST_MAIN") == "1" {
		main() // the real entry point: signal handling and exit codes included
	}
	os.Exit(m.Run())
}

// cli runs the command in-process and returns its output and exit code.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// child starts the CLI as a separate process.
func child(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CLAIMTRACE_TEST_MAIN=1")
	return cmd
}

// demoMaterialize writes the bundled example into dir.
func demoMaterialize(dir string) error { return demo.Materialize(dir) }

// TestUsageErrorsPointAtHelp: a command line the tool cannot take points at
// the failing command's help; an error from the work itself does not.
func TestUsageErrorsPointAtHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		help string // "" when no pointer is wanted
	}{
		{[]string{"eval"}, "see 'claimtrace eval --help'"},
		{[]string{"prov", "why"}, "see 'claimtrace prov why --help'"},
		{[]string{"audit", "--bogus", "x"}, "see 'claimtrace audit --help'"},
		{[]string{"frobnicate"}, "see 'claimtrace --help'"},
		{[]string{"parse", filepath.Join(t.TempDir(), "missing.md")}, ""},
	} {
		_, stderr, code := runCLI(t, tt.args...)
		if code == 0 {
			t.Errorf("%v: exit 0", tt.args)
		}
		if tt.help == "" && strings.Contains(stderr, "--help") || tt.help != "" && !strings.Contains(stderr, tt.help) {
			t.Errorf("%v: stderr %q, want the pointer %q", tt.args, stderr, tt.help)
		}
	}
}
