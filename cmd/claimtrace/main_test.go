package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
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
