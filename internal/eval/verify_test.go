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

// scriptedJudge answers from a function and counts calls.
type scriptedJudge struct {
	calls atomic.Int64
	fn    func(source string, claims []string) ([]claimtrace.Verdict, error)
}

func (j *scriptedJudge) JudgeSource(ctx context.Context, source string, claims []string) ([]claimtrace.Verdict, error) {
	j.calls.Add(1)
	return j.fn(source, claims)
}

// TestVerifyRules checks the rules the pipeline enforces on any judge:
// evidence must be a verbatim passage of the source, a verdict without
// evidence cannot support, a judge error makes the pairs unknown (never
// unsupported) and a failed unit that --retry-failed redoes, and sources
// without readable text are never sent to the judge.
func TestVerifyRules(t *testing.T) {
	opts, _ := demoRun(t)
	broken := atomic.Bool{}
	broken.Store(true)
	j := &scriptedJudge{fn: func(source string, claims []string) ([]claimtrace.Verdict, error) {
		if strings.Contains(source, "Fusion-in-Decoder") && broken.Load() {
			return nil, errors.New("judge timed out")
		}
		out := make([]claimtrace.Verdict, len(claims))
		for i, c := range claims {
			switch {
			case strings.Contains(c, "ColBERT"):
				out[i] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 0.9, Evidence: "a quote the page never says"}
			case strings.Contains(c, "REPLUG"):
				out[i] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 0.9}
			default:
				first := strings.SplitN(source, ".", 2)[0]
				out[i] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 0.8, Evidence: first}
			}
		}
		return out, nil
	}}
	opts.Judge, opts.JudgeName = j, "scripted"
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
	label := func(r *Result, needle string) claimtrace.Verdict {
		for _, c := range r.Claims {
			if strings.Contains(c.Text, needle) && len(c.Verdicts) > 0 {
				return c.Verdicts[0]
			}
		}
		t.Fatalf("no judged claim containing %q", needle)
		return claimtrace.Verdict{}
	}
	if v := label(r, "ColBERT"); v.Label != claimtrace.Unknown || !strings.Contains(v.Reason, "not found in the source") {
		t.Errorf("fabricated evidence: %+v", v)
	}
	if v := label(r, "REPLUG"); v.Label != claimtrace.Unknown {
		t.Errorf("support without evidence: %+v", v)
	}
	if v := label(r, "Fusion-in-Decoder"); v.Label != claimtrace.Unknown || !strings.Contains(v.Reason, "judge failed") {
		t.Errorf("judge error: %+v", v)
	}
	if v := label(r, "reciprocal rank fusion"); v.Label != claimtrace.Unknown || !strings.Contains(v.Reason, "not readable") {
		t.Errorf("dead source: %+v", v)
	}
	if len(r.FailedUnits) != 1 {
		t.Errorf("failed units = %v, want the one judge error", r.FailedUnits)
	}
	if r.Cited == nil || r.Cited.Unknown < 4 || r.Cited.MatchRate == nil || *r.Cited.MatchRate != 1 {
		t.Errorf("cited stats = %+v: unknowns must stay out of the match rate", r.Cited)
	}
	calls := j.calls.Load()
	run()
	if j.calls.Load() != calls {
		t.Errorf("a plain rerun judged again (%d calls)", j.calls.Load()-calls)
	}
	broken.Store(false)
	opts.RetryFailed = true
	r = run()
	if j.calls.Load() != calls+1 {
		t.Errorf("--retry-failed made %d judge calls, want 1", j.calls.Load()-calls)
	}
	if v := label(r, "Fusion-in-Decoder"); v.Label != claimtrace.Supported || len(r.FailedUnits) != 0 {
		t.Errorf("after retry: %+v, failed %v", v, r.FailedUnits)
	}
}
