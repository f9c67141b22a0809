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

// TestExtractNonCited drives the parity path of the non-cited stage (the
// paper's A.4.2 extraction): a statement restating a parser claim makes it
// check-worthy, a statement restating none is fact-checked as an extra
// statement, claims not extracted are not checked, the cited statements
// are handed to the extractor, the extraction is stored once a report, and
// a failed extraction fails the report instead of counting nothing.
func TestExtractNonCited(t *testing.T) {
	opts, _ := demoRun(t)
	var extractions, checked atomic.Int64
	var fail atomic.Bool
	var gotCited []CitedStatement
	opts.ExtractNonCited = func(_ context.Context, report string, cited []CitedStatement) ([]string, error) {
		extractions.Add(1)
		if fail.Load() {
			return nil, errors.New("model down")
		}
		if !strings.Contains(report, "frozen at training time") {
			return nil, errors.New("not the whole report")
		}
		gotCited = cited
		return []string{
			"Large language models store knowledge in their parameters, but that knowledge is frozen at training time and cannot be easily inspected or updated.",
			"GPT-4 was released by OpenAI in March 2023.",
		}, nil
	}
	opts.FactCheck = func(_ context.Context, in FactInput) (claimtrace.Fact, error) {
		checked.Add(1)
		if strings.Contains(in.Claim, "GPT-4") {
			return claimtrace.Fact{Label: claimtrace.FactTrue, Confidence: 1, Votes: []claimtrace.Vote{{Checker: "s", Label: claimtrace.FactTrue}}}, nil
		}
		return claimtrace.Fact{Label: claimtrace.FactFalse, Confidence: 1, Votes: []claimtrace.Vote{{Checker: "s", Label: claimtrace.FactFalse}}}, nil
	}
	opts.FactCheckName = "scripted"

	fail.Store(true)
	ev, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ev.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reports != 1 || sum.NonCited.ReportsFailed != 1 || sum.NonCited.StatementsPerReport != nil {
		t.Fatalf("a failed extraction: %d reports, non-cited %+v", sum.Reports, sum.NonCited)
	}
	r, err := ReadResult(filepath.Join(opts.OutDir, "reports", "2312.10997.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.NonCited.Error, "model down") || r.NonCited.CheckWorthy != 0 || !contains(r.FailedUnits, unitExtract+":2312.10997") {
		t.Fatalf("a failed extraction: non-cited %+v, failed units %v", r.NonCited, r.FailedUnits)
	}
	// Only --retry-failed asks again.
	fail.Store(false)
	ev, _ = New(opts)
	if _, err := ev.Run(t.Context()); err != nil || extractions.Load() != 1 {
		t.Fatalf("rerun without --retry-failed: %v, %d extractions", err, extractions.Load())
	}
	opts.RetryFailed = true
	ev, _ = New(opts)
	if _, err := ev.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	r, err = ReadResult(filepath.Join(opts.OutDir, "reports", "2312.10997.json"))
	if err != nil {
		t.Fatal(err)
	}
	nc := r.NonCited
	if nc.Claims != 3 || nc.Extracted != 2 || nc.CheckWorthy != 2 || nc.True != 1 || nc.False != 1 || nc.Accuracy == nil || *nc.Accuracy != 0.5 {
		t.Errorf("non-cited = %+v", nc)
	}
	if len(nc.Extra) != 1 || nc.Extra[0].Statement != "GPT-4 was released by OpenAI in March 2023." || nc.Extra[0].Fact == nil || nc.Extra[0].Fact.Label != claimtrace.FactTrue {
		t.Errorf("extra statements = %+v", nc.Extra)
	}
	for _, c := range r.Claims {
		if c.Cited {
			continue
		}
		placed := c.ID == "c1"
		if c.CheckWorthy == nil || *c.CheckWorthy != placed || !strings.Contains(c.Why, "A.4.2") || (c.Fact != nil) != placed {
			t.Errorf("claim %s: check-worthy %v, why %q, fact %+v", c.ID, c.CheckWorthy, c.Why, c.Fact)
		}
	}
	if len(gotCited) < 25 || gotCited[0].URL == "" {
		t.Errorf("the extractor was told %d cited statements: %+v", len(gotCited), gotCited)
	}

	// A rerun of a new report version is needed to ask again; the stored
	// extraction of this one is reused by a fresh evaluator.
	opts.OutDir, opts.RetryFailed = filepath.Join(t.TempDir(), "again"), false
	n, c := extractions.Load(), checked.Load()
	ev, _ = New(opts)
	if _, err := ev.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if extractions.Load() != n || checked.Load() != c {
		t.Errorf("rerun: %d extractions, %d fact-checks, want none", extractions.Load()-n, checked.Load()-c)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDicePlacesRewording: a model's statement places on the report's
// sentence when it rewords the verb or is Chinese, and not on an unrelated
// sentence.
func TestDicePlacesRewording(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		place bool
	}{
		{"Statins reduced the risk of stroke in older adults.", "Statin use reduces stroke risk in older adults.", true},
		{"中国中等收入群体约有4亿人。", "目前中国中等收入群体规模约为4亿人。", true},
		{"Statins reduced the risk of stroke in older adults.", "The survey covered 100 km of coastline.", false},
		{"中国中等收入群体约有4亿人。", "该研究覆盖了沿海一百公里。", false},
	} {
		d := dice(tc.a, tc.b)
		if (d >= placeThreshold) != tc.place {
			t.Errorf("dice(%q, %q) = %.2f, want placed = %v (threshold %.2f)", tc.a, tc.b, d, tc.place, placeThreshold)
		}
	}
}
