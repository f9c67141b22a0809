package prov

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

func TestClaimMetrics(t *testing.T) {
	g := &Graph{
		Sources: []Source{
			{ID: "s1", Resolved: true, Excerpt: "one two three"},
			{ID: "s2", Resolved: false, Excerpt: "four five"},
			{ID: "s3", Resolved: true, Excerpt: "六七"}, // two CJK words
			{ID: "s4", Resolved: true},
		},
		Reasoning: []Reasoning{
			{ID: "r1", Type: Synthesis},
			{ID: "r2", Type: Deduction}, // no input
			{ID: "r3", Type: Induction},
		},
		Claims: []Claim{
			{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}, {ID: "f"},
		},
		Edges: []Edge{
			// a: s1 directly (ν exactly τ: not sound) and through r1 ← s3.
			{From: "s1", To: "a", Rel: Supports, Strength: Nu(0.5)},
			{From: "s3", To: "r1", Rel: Supports, Strength: Nu(0.9)},
			{From: "r1", To: "a", Rel: Supports, Strength: Nu(0.9)},
			// b: an unresolved source, ν above τ.
			{From: "s2", To: "b", Rel: Supports, Strength: Nu(0.51)},
			// c: a reasoning step without input.
			{From: "r2", To: "c", Rel: Supports},
			// d: only a contradicts edge: a source in π(d), but no citation pair.
			{From: "s4", To: "d", Rel: Contradicts},
			// e: a chain r3 ← r1 ← s3 and a direct edge with unknown ν.
			{From: "r1", To: "r3", Rel: Prerequisite},
			{From: "r3", To: "e", Rel: Refines},
			{From: "s1", To: "e", Rel: Supports},
			// f: nothing.
		},
		Conflicts: []Conflict{{A: "s1", B: "s3", Entity: "x"}, {A: "s3", B: "s4", Entity: "y"}},
	}
	m, err := Compute(g, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	want := []ClaimMetrics{
		{ID: "a", Complete: true, Sources: 2, Reasoning: 1, Nodes: 3, Words: 5, PSnd: Ratio{0, 1}, CTran: Ratio{0, 2}},
		{ID: "b", Gap: GapUnresolvedSource, GapNode: "s2", Sources: 1, Nodes: 1, Words: 2, PSnd: Ratio{1, 1}},
		{ID: "c", Gap: GapNoSource, Reasoning: 1, Nodes: 1},
		{ID: "d", Complete: true, Sources: 1, Nodes: 1, CTran: Ratio{0, 1}},
		{ID: "e", Complete: true, Sources: 2, Reasoning: 2, Nodes: 4, Words: 5, PSnd: Ratio{0, 1}, Unverifiable: 1, CTran: Ratio{0, 2}},
		{ID: "f", Gap: GapNoSource},
	}
	if diff := cmp.Diff(want, m.PerClaim); diff != "" {
		t.Errorf("per claim (-want +got):\n%s", diff)
	}
	if got, want := m.PCov, (Ratio{3, 6}); got != want {
		t.Errorf("PCov = %v, want %v", got, want)
	}
	if got, want := m.PSnd, (Ratio{1, 3}); got != want {
		t.Errorf("PSnd = %v, want %v", got, want)
	}
	// e's direct pair has no ν: unsound, and reported as unverifiable.
	if f := m.Figures(); m.UnverifiablePairs != 1 || f.Counts.UnverifiablePairs != 1 || f.PSndUnverifiable == nil || *f.PSndUnverifiable != 1.0/3 {
		t.Errorf("unverifiable pairs %d (figures %+v), want 1 of 3", m.UnverifiablePairs, f)
	}
	if got, want := m.AEffProxy, (Mean{10, 6}); got != want {
		t.Errorf("AEffProxy = %v, want %v", got, want)
	}
	if got, want := m.AEffWords, (Mean{12, 6}); got != want {
		t.Errorf("AEffWords = %v, want %v", got, want)
	}
	if got, want := m.CTran, (Ratio{0, 2}); got != want {
		t.Errorf("CTran = %v, want %v", got, want)
	}
	if diff := cmp.Diff([]ClaimMetrics{want[1], want[2], want[5]}, m.Orphans()); diff != "" {
		t.Errorf("Orphans (-want +got):\n%s", diff)
	}
}

func TestGapBeforeSource(t *testing.T) {
	// A reasoning step without input found before any unresolved source.
	g := &Graph{
		Sources:   []Source{{ID: "s1"}},
		Reasoning: []Reasoning{{ID: "r1"}},
		Claims:    []Claim{{ID: "c"}},
		Edges:     []Edge{{From: "s1", To: "c", Rel: Supports}, {From: "r1", To: "c", Rel: Supports}},
	}
	m, err := Compute(g, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.PerClaim[0]; got.Complete || got.Gap == GapNone || got.Gap == GapNoSource {
		t.Errorf("claim metrics %+v: want an unresolved-source or reasoning gap", got)
	}
}

func TestTau(t *testing.T) {
	g := small() // pairs: c1 ← s2 with ν 0.6
	for _, tt := range []struct {
		tau  float64
		want Ratio
	}{{0, Ratio{1, 1}}, {0.59, Ratio{1, 1}}, {0.6, Ratio{0, 1}}, {0.99, Ratio{0, 1}}} {
		m, err := Compute(g, tt.tau)
		if err != nil {
			t.Fatal(err)
		}
		if m.PSnd != tt.want {
			t.Errorf("tau %v: PSnd = %v, want %v", tt.tau, m.PSnd, tt.want)
		}
	}
	for _, bad := range []float64{-0.1, 1, 2} {
		if _, err := Compute(g, bad); !errors.Is(err, claimtrace.ErrInvalid) {
			t.Errorf("tau %v: err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestMetricsJSON(t *testing.T) {
	m, err := Compute(&Graph{}, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tau":0.5,"claims":0,"pcov":null,"psnd":null,"ctran":null,"aeff_proxy":null,"aeff_words":null,"psnd_unverifiable":null,` +
		`"counts":{"complete_claims":0,"citation_pairs":0,"sound_pairs":0,"conflicts":0,"surfaced_conflicts":0,"unverifiable_pairs":0},"conflicts":[],"per_claim":[]}`
	if string(b) != want {
		t.Errorf("JSON of empty metrics:\n got %s\nwant %s", b, want)
	}
}

// TestCTranSetOfConflicts: K is a set of unordered source pairs about an
// entity. A hand-built graph listing a conflict twice, once reversed, has
// one conflict there, whether or not a detector later merges its own
// findings in (audit --detect=false used to give 3/4 here).
func TestCTranSetOfConflicts(t *testing.T) {
	g := &Graph{
		Sources: []Source{{ID: "s1", Resolved: true}, {ID: "s2", Resolved: true}, {ID: "s3", Resolved: true}, {ID: "s4", Resolved: true}},
		Claims:  []Claim{{ID: "a"}, {ID: "b"}},
		Edges: []Edge{
			{From: "s1", To: "a", Rel: Supports},
			{From: "s2", To: "a", Rel: Contradicts}, // surfaces s1 ↔ s2
			{From: "s3", To: "b", Rel: Supports},
			{From: "s4", To: "b", Rel: Supports},
		},
		Conflicts: []Conflict{
			{A: "s1", B: "s2", Entity: "accuracy"},
			{A: "s2", B: "s1", Entity: "Accuracy "}, // the same conflict, reversed
			{A: "s1", B: "s3", Entity: "accuracy"},  // hidden
		},
	}
	m, err := Compute(g, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if m.CTran != (Ratio{1, 2}) || len(m.Conflicts) != 2 {
		t.Errorf("CTran = %d/%d over %d conflicts, want 1/2 over 2", m.CTran.Num, m.CTran.Den, len(m.Conflicts))
	}
	merged := g.Clone()
	merged.Conflicts = MergeConflicts(nil, g.Conflicts...)
	m2, err := Compute(merged, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	if m2.CTran != m.CTran {
		t.Errorf("CTran after merging = %v, before = %v: the detector flag must not change it", m2.CTran, m.CTran)
	}
	if p := m.PerClaim[0].CTran; p != (Ratio{1, 2}) {
		t.Errorf("claim a: CTran %d/%d, want 1/2 (s1↔s2 surfaced, s1↔s3 hidden)", p.Num, p.Den)
	}
}
