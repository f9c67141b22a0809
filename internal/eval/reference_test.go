package eval

import "testing"

func TestReferenceEstimate(t *testing.T) {
	a := &Result{Stats: Stats{Bytes: 16385, DistinctURLs: 3}, NonCited: &NonCitedStats{CheckWorthy: 2},
		Claims: []ClaimResult{{Citations: []string{"u1", "u2"}}, {Citations: []string{"u3"}}, {}}}
	b := &Result{Stats: Stats{Bytes: 100, DistinctURLs: 1}, Claims: []ClaimResult{{Citations: []string{"u1"}}}}
	got := ReferenceEstimate([]*Result{a, nil, b})
	// Blocks: ceil(16385/16384) = 2, plus 1; pairs 3 + 1; URLs 3 + 1; N 2.
	want := ReferenceCalls{Blocks: 3, Pairs: 4, URLs: 4, NonCited: 2, Calls: 2*3 + 2*4 + 4 + 6*2}
	if got != want {
		t.Errorf("ReferenceEstimate = %+v, want %+v", got, want)
	}
	if z := ReferenceEstimate(nil); z != (ReferenceCalls{}) {
		t.Errorf("ReferenceEstimate(nil) = %+v, want zero", z)
	}
}
