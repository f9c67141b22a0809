package main

import (
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// TestCTranWithCount: CTran is printed with its counts wherever it is
// printed, so that one conflict is not read as a rate (issue 19).
func TestCTranWithCount(t *testing.T) {
	zero, half := 0.0, 0.5
	for _, tc := range []struct {
		v             *float64
		disclosed, of int
		want          string
	}{
		{nil, 0, 0, "—"},
		{&zero, 0, 1, "0.0% 0/1"},
		{&half, 3, 6, "50.0% 3/6"},
	} {
		if got := ctranCell(tc.v, tc.disclosed, tc.of); got != tc.want {
			t.Errorf("ctranCell(%v, %d, %d) = %q, want %q", tc.v, tc.disclosed, tc.of, got, tc.want)
		}
	}
	var b strings.Builder
	printGate(&b, &prov.Graph{ID: "r"}, true, []prov.GateCheck{{Metric: "CTran", Min: 0.5, Value: 1, Defined: true, Pass: true, Num: 2, Den: 2}})
	if !strings.Contains(b.String(), "ok    CTran 1.000 ≥ 0.50 (2/2 conflicts disclosed)") {
		t.Errorf("gate line without CTran's count:\n%s", b.String())
	}
}
