package prov

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGateCheck(t *testing.T) {
	one := 1.0
	orphans := &Metrics{Tau: 0.5, Claims: 5, PCov: Ratio{1, 5}, PSnd: Ratio{3, 4}, CTran: Ratio{1, 2},
		Conflicts: []ConflictStatus{
			{Conflict: Conflict{A: "s1", B: "s2", Entity: "accuracy"}, Surfaced: true},
			{Conflict: Conflict{A: "s3", B: "s4", Entity: "year"}},
		},
		PerClaim: []ClaimMetrics{
			{ID: "c1", Complete: true},
			{ID: "c2", Gap: GapNoSource},
			{ID: "c3", Gap: GapUnresolvedSource, GapNode: "s9"},
			{ID: "c4", Gap: GapReasoningNoInput, GapNode: "r1"},
			{ID: "c5", Gap: GapNoSource},
		}}
	tests := []struct {
		name     string
		gate     Gate
		m        *Metrics
		wantPass bool
		want     []GateCheck
	}{
		{"both met", Gate{MinPCov: 0.2, MinPSnd: 0.75}, orphans, true, []GateCheck{
			{Metric: "PCov", Min: 0.2, Value: 0.2, Defined: true, Pass: true, Num: 1, Den: 5},
			{Metric: "PSnd", Min: 0.75, Value: 0.75, Defined: true, Pass: true, Num: 3, Den: 4},
		}},
		{"pcov below, first three orphans named", Gate{MinPCov: 0.5, MinPSnd: 0.5}, orphans, false, []GateCheck{
			{Metric: "PCov", Min: 0.5, Value: 0.2, Defined: true,
				Reason: "4 of 5 claims lack complete provenance: c2 (no source), c3 (unresolved source s9), c4 (reasoning without input r1), …", Num: 1, Den: 5},
			{Metric: "PSnd", Min: 0.5, Value: 0.75, Defined: true, Pass: true, Num: 3, Den: 4},
		}},
		{"psnd below", Gate{MinPCov: 0, MinPSnd: 0.9}, orphans, false, []GateCheck{
			{Metric: "PCov", Value: 0.2, Defined: true, Pass: true, Num: 1, Den: 5},
			{Metric: "PSnd", Min: 0.9, Value: 0.75, Defined: true, Reason: "1 of 4 citation pairs have ν ≤ 0.50 or no strength", Num: 3, Den: 4},
		}},
		{"ctran checked when set", Gate{MinCTran: &one}, orphans, false, []GateCheck{
			{Metric: "PCov", Value: 0.2, Defined: true, Pass: true, Num: 1, Den: 5},
			{Metric: "PSnd", Value: 0.75, Defined: true, Pass: true, Num: 3, Den: 4},
			{Metric: "CTran", Min: 1, Value: 0.5, Defined: true, Reason: `1 of 2 conflicts between sources are hidden: s3 ↔ s4 about "year"`, Num: 1, Den: 2},
		}},
		{"undefined pcov and psnd fail, undefined ctran passes", Gate{MinCTran: &one}, &Metrics{Tau: 0.5}, false, []GateCheck{
			{Metric: "PCov", Reason: "the report has no claims"},
			{Metric: "PSnd", Reason: "no claim cites a source"},
			{Metric: "CTran", Min: 1, Pass: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pass, got := tt.gate.Check(tt.m)
			if pass != tt.wantPass {
				t.Errorf("pass = %v, want %v", pass, tt.wantPass)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
