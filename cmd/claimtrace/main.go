// Command claimtrace evaluates and audits research reports written by AI
// deep-research agents: ReportBench citation and statement metrics, and AAR
// provenance graphs with PCov, PSnd, CTran and AEff.
//
// main stays small: it sets up the signal context, builds the command tree
// and maps errors to exit codes. Each subcommand lives in its own file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels the work; once it has, signals take their
	// default action again, so a second one ends a process stuck in a call
	// that does not heed cancellation.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exitError carries a specific exit code (gate uses 1 for "failed" and 2 for
// "error"); every other error exits 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// run executes the command line and returns the process exit code. Tests
// call it directly with their own streams, and may adjust the app with
// opts (a lower input size limit).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, opts ...func(*app)) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	for _, o := range opts {
		o(a)
	}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	a.close()
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if errors.Is(err, errReported) {
		return code
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "claimtrace: interrupted; finished work is stored, rerun the same command to resume")
		return 130
	}
	fmt.Fprintln(stderr, "claimtrace:", a.redact(err.Error()))
	if cmd != nil && isUsageError(err) {
		fmt.Fprintf(stderr, "see '%s --help' for the flags, arguments and examples\n", cmd.CommandPath())
	}
	return code
}

// usageErrors are the beginnings of the errors cobra and pflag return for a
// command line they cannot take (as of cobra 1.x, pflag 1.x).
var usageErrors = []string{
	"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument",
	"invalid argument", "required flag(s)", "accepts ", "requires at least", "requires at most",
	"if any flags in the group", "bad flag syntax",
}

// isUsageError reports whether err is about the command line itself, so
// that the help of the command is worth pointing at.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range usageErrors {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// errReported marks an error whose details were already printed (a failed
// gate prints its own report); run only sets the exit code.
var errReported = errors.New("see above")
