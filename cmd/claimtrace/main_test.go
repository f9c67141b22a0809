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
	"github.com/claimtrace/claimtrace/internal/eval"
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

// TestPrintSummaryModelCalls: the eval summary says what the models cost,
// says nothing of them when none was used, and says when the totals could
// not be read rather than printing zeros.
func TestPrintSummaryModelCalls(t *testing.T) {
	for _, tt := range []struct {
		llm  eval.LLMSection
		want string
	}{
		{eval.LLMSection{}, ""},
		{eval.LLMSection{Calls: 12, CacheHits: 3, Failed: 1, InputTokens: 4000, OutputTokens: 500, CostUSD: 0.0125},
			"model calls: 12 sent, 3 from the cache, 1 failed; 4000 input and 500 output tokens; $0.0125"},
		{eval.LLMSection{Error: "llm totals: database is locked"}, "model calls: unknown (llm totals: database is locked)"},
	} {
		var b bytes.Buffer
		printSummary(&b, &eval.Summary{LLM: tt.llm}, "")
		got := b.String()
		if tt.want == "" && strings.Contains(got, "model calls") || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("LLM %+v: summary\n%s\nwant %q", tt.llm, got, tt.want)
		}
	}
}
