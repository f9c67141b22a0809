package judge

import (
	"math"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/judge/labels"
)

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{7, 11, 0.3538, 0.8483}, // the calibration's contradicted figure
		{10, 10, 0.7225, 1},
		{0, 10, 0, 0.2775},
		{40, 87, 0.3590, 0.5640}, // the held-out figure
		{0, 0, 0, 1},
	} {
		lo, hi := Wilson(tc.k, tc.n)
		if math.Abs(lo-tc.lo) > 5e-4 || math.Abs(hi-tc.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	// The interval of k of n mirrors that of n-k of n.
	for n := 1; n < 40; n++ {
		for k := 0; k <= n; k++ {
			lo, hi := Wilson(k, n)
			lo2, hi2 := Wilson(n-k, n)
			if p := float64(k) / float64(n); lo > p || hi < p || math.Abs(lo-(1-hi2)) > 1e-9 || math.Abs(hi-(1-lo2)) > 1e-9 {
				t.Fatalf("Wilson(%d, %d) = [%v, %v], mirror [%v, %v]", k, n, lo, hi, lo2, hi2)
			}
		}
	}
}

// TestContradictedScores counts the contradicted verdicts as given: right
// where gold is contradicted, or unsupported on a set that does not
// separate the two; wrong otherwise, whatever Collapse makes of them.
func TestContradictedScores(t *testing.T) {
	out := []Outcome{
		{Pair: labels.Pair{Dataset: "refut", Label: claimtrace.Contradicted}, Verdict: claimtrace.Verdict{Label: claimtrace.Contradicted}},
		{Pair: labels.Pair{Dataset: "refut", Label: claimtrace.Unsupported}, Verdict: claimtrace.Verdict{Label: claimtrace.Contradicted}},
		{Pair: labels.Pair{Dataset: "refut", Label: claimtrace.Supported}, Verdict: claimtrace.Verdict{Label: claimtrace.Supported}},
		{Pair: labels.Pair{Dataset: "binary", Label: claimtrace.Unsupported}, Verdict: claimtrace.Verdict{Label: claimtrace.Contradicted}},
		{Pair: labels.Pair{Dataset: "binary", Label: claimtrace.Supported}, Verdict: claimtrace.Verdict{Label: claimtrace.Contradicted}},
	}
	for i := range out {
		out[i].Predicted = out[i].Verdict.Label
	}
	ev := Summarize(out)
	if c := ev.Contradicted; c == nil || c.Said != 4 || c.Right != 2 || c.Precision != 0.5 || !(c.CI[0] < 0.5 && c.CI[1] > 0.5) {
		t.Errorf("overall %+v, want 2 right of 4", c)
	}
	if c := ev.BySource["refut"].Contradicted; c == nil || c.Said != 2 || c.Right != 1 {
		t.Errorf("refut %+v, want 1 of 2 (unsupported is wrong where the set has refutations)", c)
	}
	if c := ev.BySource["binary"].Contradicted; c == nil || c.Said != 2 || c.Right != 1 {
		t.Errorf("binary %+v, want 1 of 2", c)
	}
	if none := Summarize(out[2:3]); none.Contradicted != nil {
		t.Errorf("no contradicted verdict: %+v", none.Contradicted)
	}
}
