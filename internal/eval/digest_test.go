package eval

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/demo"
	"github.com/claimtrace/claimtrace/internal/factcheck"
	"github.com/claimtrace/claimtrace/internal/judge"
)

// TestSummaryFromDigests: the summary a run writes, made from the digests
// of its reports' results, is the one the whole results give, with and
// without a review sample and reviews (the judge's error inside the
// figures reads every claim's verdicts and fact-checks).
func TestSummaryFromDigests(t *testing.T) {
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
		got, err := ev.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		full, err := ReadResult(filepath.Join(opts.OutDir, "reports", demo.TaskID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want := ev.summarize(ctx, []*Result{full}, []Failure{})
		want.Ignored = got.Ignored
		if diff := cmp.Diff(asJSON(t, want), asJSON(t, got)); diff != "" {
			t.Errorf("%s: summary from the whole results (-) and from digests (+):\n%s", when, diff)
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
