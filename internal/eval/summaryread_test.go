package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/judge"
)

// TestSummaryFromReportFiles: the summary a run writes, made from its
// reports' files read back one at a time, is the one the results give in
// memory, with and without a review sample and reviews (the judge's error
// inside the figures reads every claim's verdicts and fact-checks).
func TestSummaryFromReportFiles(t *testing.T) {
	ctx := context.Background()
	opts, _ := demoRun(t)
	var err error
	if opts.Judge, err = judge.NewDefaultOffline(); err != nil {
		t.Fatal(err)
	}
	opts.JudgeName = "offline"
	opts.CheckWorthy = factcheck.CheckWorthy
	opts.FactCheck = func(ctx context.Context, in FactInput) (claimtrace.Fact, error) {
		label := claimtrace.FactTrue
		if strings.Contains(in.Claim, "a") && len(in.Claim)%3 == 0 {
			label = claimtrace.FactFalse
		}
		return claimtrace.Fact{Label: label, Confidence: 0.9, Votes: []claimtrace.Vote{{Checker: "scripted", Label: label}}}, nil
	}
	opts.FactCheckName = "scripted"
	opts.Now = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	var reviews []HumanReview
	opts.HumanReviews = func(context.Context, string) ([]HumanReview, error) { return reviews, nil }
	compare := func(when string) {
		t.Helper()
		ev, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		// The results as the pipeline makes them (or takes them from the
		// store), in memory, then the run writing and reading them back.
		files, fails, _, err := ev.listReports()
		if err != nil {
			t.Fatal(err)
		}
		if err := opts.Store.EnsureRun(ctx, ev.RunID(), "eval", "{}"); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"reports", "graphs"} {
			if err := os.MkdirAll(filepath.Join(opts.OutDir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var mem []*Result
		for _, f := range files {
			r, err := ev.report(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			mem = append(mem, r)
		}
		want := ev.summarize(ctx, slices.Values(mem), fails)
		got, err := ev.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want.Ignored = got.Ignored
		if diff := cmp.Diff(asJSON(t, want), asJSON(t, got)); diff != "" {
			t.Errorf("%s: summary from the results in memory (-) and read back (+):\n%s", when, diff)
		}
		if got.Cited.Pairs == 0 || got.NonCited.Decided == 0 {
			t.Fatalf("%s: %d pairs, %d facts decided: the run should judge and check some", when, got.Cited.Pairs, got.NonCited.Decided)
		}
	}
	compare("no sample")

	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	full, err := ReadResult(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	frame := ReviewFrame([]*Result{full})
	units := DrawReviewSample(frame, len(frame)/2, 5)
	if err := WriteReviewSample(ctx, opts.Store, ev.RunID(), StoredSample{Seed: 5, Frame: len(frame), Units: units}); err != nil {
		t.Fatal(err)
	}
	for i, u := range units {
		label := []string{"supported", "unsupported", "partial"}[i%3]
		if u.Kind == ReviewFact {
			label = []string{"true", "false"}[i%2]
		}
		reviews = append(reviews, HumanReview{Task: u.Task, Claim: u.Claim, URL: u.URL, Label: label})
	}
	compare("a sample, half of it reviewed")
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSummaryReportFileSpoiled: a report file that is no longer the
// result the run wrote when the summary reads it back (another process
// wrote over it) fails the run's summary, naming the file, instead of
// being counted as something else.
func TestSummaryReportFileSpoiled(t *testing.T) {
	opts, _ := demoRun(t)
	path := filepath.Join(opts.OutDir, "reports", demo.TaskID+".json")
	opts.Progress = func(Progress) {
		if err := os.WriteFile(path, []byte(`{"task_id": "2312.10997", "claims": [tru`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ev.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Run with a spoiled report file: err = %v, want one naming %s", err, path)
	}
}
