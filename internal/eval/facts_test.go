package eval

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// TestFactChecking drives the non-cited stage with a scripted classifier
// and fact-checker: verdicts are counted, failures are undecided and
// retried only on request, stored decisions are not asked again, and an
// exhausted budget stops the run.
func TestFactChecking(t *testing.T) {
	opts, _ := demoRun(t)
	var classified, checked atomic.Int64
	fail := atomic.Bool{}
	fail.Store(true)
	opts.ClassifyCheckWorthy = func(ctx context.Context, claims []string) ([]bool, []string, error) {
		classified.Add(1)
		ok := make([]bool, len(claims))
		why := make([]string, len(claims))
		for i := range claims {
			ok[i], why[i] = true, "scripted"
		}
		return ok, why, nil
	}
	opts.FactCheck = func(ctx context.Context, in FactInput) (claimtrace.Fact, error) {
		checked.Add(1)
		switch {
		case strings.Contains(in.Claim, "frozen at training time") && fail.Load():
			return claimtrace.Fact{}, errors.New("provider down")
		case strings.Contains(in.Claim, "dominant architecture"):
			return claimtrace.Fact{Label: claimtrace.FactUndecided, Confidence: 0.5}, nil
		case in.Context == "" || in.Cutoff.IsZero():
			return claimtrace.Fact{}, errors.New("no context or cutoff given")
		}
		return claimtrace.Fact{Label: claimtrace.FactTrue, Confidence: 1, Votes: []claimtrace.Vote{{Checker: "x", Label: claimtrace.FactTrue}}}, nil
	}
	opts.FactCheckName = "scripted"
	run := func() *Result {
		t.Helper()
		ev, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		r, err := ReadResult(filepath.Join(opts.OutDir, "reports", "2312.10997.json"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run()
	nc := r.NonCited
	if nc.Claims != 3 || nc.CheckWorthy != 3 {
		t.Fatalf("non-cited = %+v, want 3 claims, all check-worthy", nc)
	}
	// The failed check is undecided, not false; the tie is undecided too.
	if nc.True != 1 || nc.False != 0 || nc.Undecided != 2 || nc.Accuracy == nil || *nc.Accuracy != 1 {
		t.Errorf("non-cited = %+v", nc)
	}
	first := checked.Load()
	run()
	if checked.Load() != first || classified.Load() != 1 {
		t.Errorf("a plain rerun asked again: %d checks (was %d), %d classifications", checked.Load(), first, classified.Load())
	}
	fail.Store(false)
	opts.RetryFailed = true
	r = run()
	if checked.Load() != first+1 {
		t.Errorf("--retry-failed made %d checks, want exactly the failed one", checked.Load()-first)
	}
	if r.NonCited.True != 2 || r.NonCited.Undecided != 1 {
		t.Errorf("after retry: %+v", r.NonCited)
	}

	// An exhausted budget stops the run with the budget error.
	opts2, _ := demoRun(t)
	opts2.CheckWorthy = func(string) (bool, string) { return true, "" }
	opts2.FactCheck = func(ctx context.Context, in FactInput) (claimtrace.Fact, error) {
		return claimtrace.Fact{}, claimtrace.ErrBudget
	}
	opts2.FactCheckName = "broke"
	ev, _ := New(opts2)
	if _, err := ev.Run(context.Background()); !errors.Is(err, claimtrace.ErrBudget) {
		t.Errorf("budget exhaustion: err = %v", err)
	}
}
