package prov

import (
	"errors"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

func TestPath(t *testing.T) {
	g := readGraph(t, "testdata/figure4-transparent.json")
	ix, err := NewIndex(g)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ix.Path("c3", DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range p.Sources {
		ids = append(ids, s.ID)
	}
	for _, r := range p.Reasoning {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"s2", "s4", "r3"}, ids); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	var edges []string
	for _, e := range p.Edges {
		edges = append(edges, e.From+"-"+e.Rel.String()+"->"+e.To)
	}
	want := []string{"s2-supports->r3", "s4-contradicts->r3", "r3-supports->c3", "s2-supports->c3", "s4-supports->c3"}
	if diff := cmp.Diff(want, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	if !p.Metrics.Complete || p.Metrics.Nodes != 3 || p.Metrics.PSnd != (Ratio{2, 2}) {
		t.Errorf("metrics %+v", p.Metrics)
	}
	if len(p.Conflicts) != 1 || p.Conflicts[0].Entity != "model sizes" || !p.Conflicts[0].Surfaced {
		t.Errorf("conflicts %+v, want the surfaced model-size conflict", p.Conflicts)
	}

	if _, err := ix.Path("c9", DefaultTau); !errors.Is(err, claimtrace.ErrNotFound) {
		t.Errorf("unknown claim: err = %v, want ErrNotFound", err)
	}
	if _, err := ix.Path("s1", DefaultTau); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("a source: err = %v, want ErrInvalid", err)
	}
}

func TestMostCited(t *testing.T) {
	g1 := &Graph{ID: "r1",
		Sources: []Source{{ID: "s1", Key: "doi:10.1/a", Title: "A"}, {ID: "s2", URL: "https://b.org"}, {ID: "s3"}},
		Claims:  []Claim{{ID: "c1"}, {ID: "c2"}},
		Edges: []Edge{
			{From: "s1", To: "c1", Rel: Supports}, {From: "s1", To: "c1", Rel: Contradicts}, {From: "s1", To: "c2", Rel: Supports},
			{From: "s2", To: "c2", Rel: Supports}, {From: "s3", To: "c1", Rel: Supports},
		}}
	g2 := &Graph{ID: "r2",
		Sources: []Source{{ID: "x", URL: "https://b.org"}, {ID: "y", DOI: "10.1/c"}},
		Claims:  []Claim{{ID: "c1"}},
		Edges:   []Edge{{From: "x", To: "c1", Rel: Supports}, {From: "y", To: "c1", Rel: Supports}},
	}
	got := MostCited([]*Graph{g1, g2}, 2)
	want := []SourceUse{
		{Identity: "url:https://b.org", URL: "https://b.org", Reports: 2, Claims: 2},
		{Identity: "doi:10.1/a", Title: "A", Reports: 1, Claims: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := len(MostCited([]*Graph{g1, g2}, 0)); n != 3 {
		t.Errorf("all: %d sources, want 3 (the one without identity is left out)", n)
	}
}

func TestDependentClaims(t *testing.T) {
	retracted := &Graph{ID: "r1",
		Sources:   []Source{{ID: "s1", DOI: "10.5555/Retracted.1"}, {ID: "s2", URL: "https://ok.org"}},
		Reasoning: []Reasoning{{ID: "r"}},
		Claims:    []Claim{{ID: "direct"}, {ID: "via-reasoning"}, {ID: "clean"}},
		Edges: []Edge{
			{From: "s1", To: "direct", Rel: Supports},
			{From: "s1", To: "r", Rel: Supports}, {From: "r", To: "via-reasoning", Rel: Supports},
			{From: "s2", To: "clean", Rel: Supports},
		}}
	other := &Graph{ID: "r2",
		Sources: []Source{{ID: "a", URL: "https://doi.org/10.5555/retracted.1"}},
		Claims:  []Claim{{ID: "c"}},
		Edges:   []Edge{{From: "a", To: "c", Rel: Supports}},
	}
	for _, id := range []string{"10.5555/RETRACTED.1", "doi:10.5555/retracted.1", "https://doi.org/10.5555/retracted.1"} {
		got, err := DependentClaims([]*Graph{retracted, other}, MatchIdentity(id))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range got {
			ids = append(ids, d.Graph+"/"+d.Claim.ID+"/"+map[bool]string{true: "direct", false: "indirect"}[d.Direct])
		}
		want := []string{"r1/direct/direct", "r1/via-reasoning/indirect", "r2/c/direct"}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("%s (-want +got):\n%s", id, diff)
		}
	}
	bad := &Graph{ID: "bad", Claims: []Claim{{ID: "c"}, {ID: "c"}}}
	if _, err := DependentClaims([]*Graph{bad}, MatchIdentity("x")); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("invalid graph: err = %v, want ErrInvalid", err)
	}
}
