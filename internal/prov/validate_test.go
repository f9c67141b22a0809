package prov

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

// small returns a valid graph: s1 → r1 → c1, s2 → c1.
func small() *Graph {
	return &Graph{
		Sources:   []Source{{ID: "s1", Resolved: true}, {ID: "s2", Resolved: true}},
		Reasoning: []Reasoning{{ID: "r1", Type: Deduction}},
		Claims:    []Claim{{ID: "c1", Statement: "x"}},
		Edges: []Edge{
			{From: "s1", To: "r1", Rel: Supports, Strength: Nu(0.8)},
			{From: "r1", To: "c1", Rel: Supports},
			{From: "s2", To: "c1", Rel: Supports, Strength: Nu(0.6)},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(g *Graph)
		rules []string // broken rules, sorted
	}{
		{"valid", func(g *Graph) {}, nil},
		{"empty id", func(g *Graph) { g.Claims = append(g.Claims, Claim{Statement: "y"}) }, []string{RuleID}},
		{"duplicate id across kinds", func(g *Graph) { g.Claims = append(g.Claims, Claim{ID: "s1"}) }, []string{RuleUniqueID}},
		{"unknown endpoint", func(g *Graph) { g.Edges = append(g.Edges, Edge{From: "s9", To: "c1", Rel: Supports}) }, []string{RuleEndpoint}},
		{"zero relation", func(g *Graph) { g.Edges[1].Rel = 0 }, []string{RuleRelation}},
		{"edge into a source (def 5)", func(g *Graph) { g.Edges = append(g.Edges, Edge{From: "r1", To: "s2", Rel: Supports}) }, []string{RuleSourceInbound}},
		{"edge out of a claim (def 7)", func(g *Graph) {
			g.Claims = append(g.Claims, Claim{ID: "c2"})
			g.Edges = append(g.Edges, Edge{From: "c1", To: "c2", Rel: Refines})
		}, []string{RuleClaimOutbound}},
		{"self loop", func(g *Graph) { g.Edges = append(g.Edges, Edge{From: "r1", To: "r1", Rel: Refines}) }, []string{RuleSelfLoop}},
		{"duplicate edge", func(g *Graph) { g.Edges = append(g.Edges, Edge{From: "s2", To: "c1", Rel: Supports}) }, []string{RuleDuplicateEdge}},
		{"same ends, other relation", func(g *Graph) { g.Edges = append(g.Edges, Edge{From: "s2", To: "c1", Rel: Refines}) }, nil},
		{"strength on contradicts (def 8)", func(g *Graph) {
			g.Edges = append(g.Edges, Edge{From: "s2", To: "r1", Rel: Contradicts, Strength: Nu(0.3)})
		}, []string{RuleStrength}},
		{"strength above 1", func(g *Graph) { g.Edges[0].Strength = Nu(1.5) }, []string{RuleStrength}},
		{"strength NaN", func(g *Graph) { g.Edges[0].Strength = Nu(math.NaN()) }, []string{RuleStrength}},
		{"bad label", func(g *Graph) { g.Edges[0].Label = "true" }, []string{RuleLabel}},
		{"bad reasoning type (def 6)", func(g *Graph) { g.Reasoning[0].Type = "abduction" }, []string{RuleReasoningType}},
		{"cycle among reasoning", func(g *Graph) {
			g.Reasoning = append(g.Reasoning, Reasoning{ID: "r2"})
			g.Edges = append(g.Edges, Edge{From: "r1", To: "r2", Rel: Prerequisite}, Edge{From: "r2", To: "r1", Rel: Refines})
		}, []string{RuleAcyclic}},
		{"negative span", func(g *Graph) { g.Claims[0].Location = Location{Start: 5, End: 2} }, []string{RuleSpan}},
		{"conflict with a claim", func(g *Graph) { g.Conflicts = []Conflict{{A: "s1", B: "c1", Entity: "e"}} }, []string{RuleConflict}},
		{"conflict without entity", func(g *Graph) { g.Conflicts = []Conflict{{A: "s1", B: "s2"}} }, []string{RuleConflict}},
		{"conflict with itself", func(g *Graph) { g.Conflicts = []Conflict{{A: "s1", B: "s1", Entity: "e"}} }, []string{RuleConflict}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := small()
			tt.edit(g)
			err := g.Validate()
			var got []string
			var ve *ValidationError
			if errors.As(err, &ve) {
				for _, v := range ve.Violations {
					got = append(got, v.Rule)
				}
				slices.Sort(got)
				if !errors.Is(err, claimtrace.ErrInvalid) {
					t.Errorf("error does not match ErrInvalid")
				}
				if !strings.Contains(err.Error(), "[rule "+got[0]+"]") {
					t.Errorf("message %q does not name the rule", err)
				}
			} else if err != nil {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.rules, got); diff != "" {
				t.Errorf("broken rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidationErrorMessage(t *testing.T) {
	g := small()
	g.Edges = append(g.Edges, Edge{From: "c1", To: "s1", Rel: Supports})
	err := g.Validate()
	want := `invalid provenance graph: 2 violation(s): edge 3 (c1 -supports-> s1): source "s1" has an incoming edge; ` +
		`sources have no incoming edges (AAR definition 5) [rule source-no-incoming]; edge 3 (c1 -supports-> s1): ` +
		`claim "c1" has an outgoing edge; claims have no outgoing edges (AAR definition 7) [rule claim-no-outgoing]`
	if err == nil || err.Error() != want {
		t.Errorf("err =\n%v\nwant\n%s", err, want)
	}
}

func TestAcyclicNamesTheCycle(t *testing.T) {
	g := small()
	g.Reasoning = append(g.Reasoning, Reasoning{ID: "r2"}, Reasoning{ID: "r3"})
	g.Edges = append(g.Edges,
		Edge{From: "r1", To: "r2", Rel: Prerequisite},
		Edge{From: "r2", To: "r1", Rel: Refines},
		Edge{From: "r2", To: "r3", Rel: Supports}, // downstream of the cycle, not on it
	)
	err := g.Validate()
	want := `invalid provenance graph: 1 violation(s): graph: cycle through "r1", "r2": a provenance path would include itself [rule acyclic]`
	if err == nil || err.Error() != want {
		t.Errorf("err =\n%v\nwant\n%s", err, want)
	}
}
