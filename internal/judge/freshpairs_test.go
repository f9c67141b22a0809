package judge

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace"
)

// readFreshPairs reads testdata/freshpairs: 200 claim–evidence pairs (80
// contradicted, 80 supported, 40 unsupported) written by a third author
// who had seen neither the judge nor the earlier suites, copied into the
// project only after the judge and its calibration were frozen
// (docs/judges.md, "The protocol"). They were scored once, and the floors
// below come from that run; the judge was not changed after it.
func readFreshPairs(tb testing.TB) []independentPair {
	tb.Helper()
	return readPairsFile(tb, filepath.Join("testdata", "freshpairs", "judge_pairs.jsonl"))
}

// freshFloors hold the judge a little under what it measured on the
// fresh set in its one run (contradicted said 44 times, right 39:
// precision 0.89, 95% CI 0.76–0.95, recall 39 of 80; supported pairs
// labelled supported 40 of 80): contradicted right on at least precision
// of the pairs it is said of and said right of at least contradicted
// pairs; at least supported of the supported pairs labelled supported.
var freshFloors = struct {
	contradicted, supported int
	precision               float64
}{contradicted: 36, supported: 37, precision: 0.85}

// TestFreshPairs measures the shipped offline judge on the fresh
// held-out pairs: the precision and recall of contradicted, and how the
// pairs of each gold label were labelled, each rate with its 95% Wilson
// interval; and holds the judge to the floors.
func TestFreshPairs(t *testing.T) {
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	pairs := readFreshPairs(t)
	s := scoreIndependentPairs(t, j, pairs)
	t.Logf("fresh, %d pairs:\n%s", len(pairs), s.table())
	said, right := s.predicted[claimtrace.Contradicted], s.right[claimtrace.Contradicted]
	plo, phi := Wilson(right, said)
	rlo, rhi := Wilson(right, s.gold[claimtrace.Contradicted])
	t.Logf("contradicted: said %d, right %d: precision %.2f (95%% CI %.2f–%.2f); recall %d/%d = %.2f (95%% CI %.2f–%.2f)",
		said, right, ratio(right, said), plo, phi, right, s.gold[claimtrace.Contradicted], ratio(right, s.gold[claimtrace.Contradicted]), rlo, rhi)
	for _, gold := range []claimtrace.Label{claimtrace.Supported, claimtrace.Contradicted, claimtrace.Unsupported} {
		n := s.gold[gold]
		line := ""
		for _, got := range []claimtrace.Label{claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted} {
			k := s.labelled(gold, got)
			lo, hi := Wilson(k, n)
			line += "  " + string(got) + " " + itoa(k) + "/" + itoa(n) + " " + pct(ratio(k, n)) + " (" + pct(lo) + "–" + pct(hi) + ")"
		}
		t.Logf("gold %-12s%s", gold, line)
	}
	if len(pairs) != 200 || s.gold[claimtrace.Contradicted] != 80 {
		t.Errorf("fresh set: %d pairs, %d contradicted; want 200 and 80", len(pairs), s.gold[claimtrace.Contradicted])
	}
	fl := freshFloors
	if right < fl.contradicted || ratio(right, said) < fl.precision || s.right[claimtrace.Supported] < fl.supported {
		t.Errorf("fresh: contradicted right %d of %d (floor %d, precision floor %.2f), supported %d (floor %d)",
			right, said, fl.contradicted, fl.precision, s.right[claimtrace.Supported], fl.supported)
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

func pct(x float64) string { return fmt.Sprintf("%.2f", x) }
