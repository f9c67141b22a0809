package judge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/claimtrace/claimtrace/internal/judge/labels"
	"github.com/claimtrace/claimtrace/internal/sharedtest"
)

// TestSharedContradictedPrecision holds the shipped judge's contradicted
// verdicts to the precision its threshold was chosen for, on the parts of
// the shared labels the calibration never read: the test halves of
// AttributionBench and WiCE and Citation-Integrity's dev split. Right
// means gold contradicted, or unsupported where a set does not separate
// the two. The figures (docs/judges.md) are logged with their 95%
// interval; the floor on the count keeps the cues from being switched off
// to pass.
func TestSharedContradictedPrecision(t *testing.T) {
	pairs := sharedLabels(t, labels.SplitTest)
	citint, err := labels.ReadFile(filepath.Join(sharedtest.Dir(t, "labels"), "citint", "claims_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	pairs = append(pairs, citint...)
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	ev, _, err := Evaluate(context.Background(), j, pairs, EvalOptions{PartialIsSupported: j.Calibration().PartialIsSupported})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{labels.AttributionBench, labels.WiCE, "citint"} {
		if c := ev.BySource[name].Contradicted; c != nil {
			t.Logf("%-16s contradicted right %2d of %2d (%.2f, 95%% CI %.2f–%.2f)", name, c.Right, c.Said, c.Precision, c.CI[0], c.CI[1])
		}
	}
	c := ev.Contradicted
	if c == nil {
		t.Fatal("the judge said contradicted of no held-out pair")
	}
	t.Logf("held-out         contradicted right %2d of %2d (%.2f, 95%% CI %.2f–%.2f)", c.Right, c.Said, c.Precision, c.CI[0], c.CI[1])
	if c.Precision < DefaultMinContradictedPrecision || c.Said < 10 {
		t.Errorf("held-out contradicted right %d of %d (%.2f): want precision at least %.2f on at least 10 pairs", c.Right, c.Said, c.Precision, DefaultMinContradictedPrecision)
	}
}
