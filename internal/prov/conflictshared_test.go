package prov

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// sharedConflictPrecision runs the detector over labelled claim–evidence
// pairs as two sources each and counts the pairs it finds a conflict in,
// and how many of those the labels call contradicted (or unsupported where
// a set does not separate the two).
func sharedConflictPrecision(tb testing.TB, files []string, split labels.Split) (found, right int) {
	tb.Helper()
	dir := sharedtest.Dir(tb, "labels")
	for _, f := range files {
		ps, err := labels.ReadFile(filepath.Join(dir, f))
		if err != nil {
			tb.Fatal(err)
		}
		ps = labels.Filter(ps, split)
		refutes := false
		for _, p := range ps {
			refutes = refutes || p.Label == claimtrace.Contradicted
		}
		for _, p := range ps {
			cs, err := (Offline{}).Detect(context.Background(), []SourceText{{ID: "claim", Text: p.Claim}, {ID: "evidence", Text: p.Evidence}})
			if err != nil {
				tb.Fatal(err)
			}
			if len(cs) == 0 {
				continue
			}
			found++
			ok := p.Label == claimtrace.Contradicted || !refutes && p.Label == claimtrace.Unsupported
			if ok {
				right++
			}
			if testing.Verbose() {
				tb.Logf("%v %s %s %q\n  %q\n  %q", ok, p.Label, cs[0].Kind, cs[0].Entity, cs[0].SnippetA, cs[0].SnippetB)
			}
		}
	}
	return found, right
}

// TestSharedConflictPrecision measures where the detector speaks on the
// shared label sets, a claim and its evidence taken as two sources, and
// holds it to the precision rule of the judge's contradicted.
func TestSharedConflictPrecision(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		split labels.Split
	}{
		{"citint train", []string{"citint/claims_train.jsonl"}, labels.SplitAll},
		{"citint dev", []string{"citint/claims_dev.jsonl"}, labels.SplitAll},
		{"attributionbench+wice", []string{"attributionbench/dev.jsonl", "wice/dev.jsonl"}, labels.SplitAll},
	} {
		found, right := sharedConflictPrecision(t, tc.files, tc.split)
		t.Logf("%s: conflicts found in %d pairs, right %d", tc.name, found, right)
		// Before this work the detector found conflicts in 6, 5 and 10
		// of these pairs, right in 0, 1 and 2: it now keeps quiet, and
		// where it speaks it must be right at least 60% of the time.
		if found > 0 && float64(right) < 0.6*float64(found) {
			t.Errorf("%s: %d conflicts found, %d right: below 0.6", tc.name, found, right)
		}
	}
}
