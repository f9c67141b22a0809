package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/eval"
)

// sourceFlags show and bound the fetching of a run's cited sources (eval,
// audit, gate).
type sourceFlags struct {
	// progress prints a line per source on stderr even when it is not a
	// terminal (on a terminal it is the default).
	progress bool
	// timeout bounds the run's whole wait for sources; unset, the
	// configured fetch.run_timeout_seconds.
	timeout time.Duration
	changed func(string) bool
}

func (f *sourceFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.progress, "source-progress", false, "print a line per cited source on stderr as it is fetched, even when stderr is not a terminal (eval: instead of the bar of reports)")
	fs.DurationVar(&f.timeout, "fetch-timeout", 0, "bound on the whole wait for cited sources (e.g. 5m; default: config fetch.run_timeout_seconds, 10m; 0: none); sources left are not fetched, not dead")
	f.changed = fs.Changed
}

// fetchTimeout is the run's bound on waiting for sources: the flag when
// given, else the configuration's.
func (a *app) fetchTimeout(f sourceFlags) (time.Duration, error) {
	if f.changed != nil && f.changed("fetch-timeout") {
		if f.timeout < 0 {
			return 0, &exitError{2, fmt.Errorf("--fetch-timeout %v: want a duration of 0 or more", f.timeout)}
		}
		return f.timeout, nil
	}
	return time.Duration(a.cfg.Fetch.RunTimeoutSecs) * time.Second, nil
}

// sourceProgress returns what prints a line per resolved source on stderr
// ("[3/27] http 403 https://…"), when stderr is a terminal, or --progress
// or --source-progress asks; nil otherwise.
func (a *app) sourceProgress(f sourceFlags) func(eval.SourceEvent) {
	if !f.progress && !a.progressFlag && !a.stderrIsTerminal() {
		return nil
	}
	w := a.stderr
	return func(e eval.SourceEvent) {
		status := e.Status
		if status == "" {
			status = string(e.Kind)
		}
		took := ""
		if e.Elapsed >= 100*time.Millisecond {
			took = fmt.Sprintf(" (%.1fs)", e.Elapsed.Seconds())
		}
		fmt.Fprintf(w, "%s [%d/%d] %-10s %s%s\n", e.Task, e.Done, e.Total, shorten(status, 40), e.Target, took)
	}
}

// errNotFetched is a report some of whose sources could not be fetched:
// nothing can be said of them, so a gate cannot pass or fail on them.
var errNotFetched = errors.New("cannot audit")

// notFetchedError says how many of a report's sources could not be fetched
// and why (no network, or the run's fetch time limit), and what to do.
func notFetchedError(res *eval.Result) error {
	if res == nil || len(res.NotFetched) == 0 {
		return nil
	}
	why := "no network;"
	for _, s := range res.Sources {
		if s.Work.Kind == claimtrace.WorkNotFetched && s.Work.Status != "not fetched: no network" {
			why = "the fetch time limit ran out; raise --fetch-timeout, or"
			break
		}
	}
	return fmt.Errorf("%w: %d of %d sources could not be fetched: %s use --offline --snapshot DIR (a snapshot made where the network works: claimtrace snapshot)",
		errNotFetched, len(res.NotFetched), len(res.Sources), why)
}

// printNotFetched warns that a report's figures leave out sources the run
// could not fetch.
func printNotFetched(w io.Writer, res *eval.Result) {
	if err := notFetchedError(res); err != nil {
		fmt.Fprintf(w, "warning: %v; they have no verdict (unknown, never unsupported) and a rerun fetches them\n", err)
	}
}
