package prov

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSurfacing(t *testing.T) {
	// Sources a and b disagree about "dose"; each case is a way a graph
	// does or does not say so.
	base := func() *Graph {
		return &Graph{
			Sources:   []Source{{ID: "a", Resolved: true}, {ID: "b", Resolved: true}, {ID: "z", Resolved: true}},
			Reasoning: []Reasoning{{ID: "r"}, {ID: "r2"}},
			Claims:    []Claim{{ID: "c", Statement: "The dose is 5 mg."}, {ID: "d", Statement: "Other."}},
			Conflicts: []Conflict{{A: "a", B: "b", Entity: "dose"}},
		}
	}
	tests := []struct {
		name  string
		edges []Edge
		stmt  string // replaces c's statement when set
		want  ConflictStatus
	}{
		{"nothing links them", nil, "", ConflictStatus{}},
		{"contradicts edge into a claim b supports",
			[]Edge{{From: "b", To: "c", Rel: Supports}, {From: "a", To: "c", Rel: Contradicts}}, "",
			ConflictStatus{Surfaced: true, Via: "contradicts edge a -> c"}},
		{"contradicts edge from b into a node a reaches through reasoning",
			[]Edge{{From: "a", To: "r", Rel: Supports}, {From: "r", To: "c", Rel: Supports}, {From: "b", To: "c", Rel: Contradicts}}, "",
			ConflictStatus{Surfaced: true, Via: "contradicts edge b -> c"}},
		{"contradicts edge from a step that used a, into a claim b supports",
			[]Edge{{From: "a", To: "r", Rel: Supports}, {From: "r", To: "c", Rel: Contradicts}, {From: "b", To: "c", Rel: Supports}}, "",
			ConflictStatus{Surfaced: true, Via: "contradicts edge r -> c"}},
		{"contradiction between a step using both and a claim is not theirs",
			[]Edge{{From: "a", To: "r", Rel: Supports}, {From: "b", To: "r", Rel: Supports}, {From: "r", To: "c", Rel: Contradicts}}, "",
			ConflictStatus{}},
		{"contradicts edge from a third source",
			[]Edge{{From: "a", To: "c", Rel: Supports}, {From: "b", To: "c", Rel: Supports}, {From: "z", To: "c", Rel: Contradicts}}, "",
			ConflictStatus{}},
		{"claim cites both and states the conflict",
			[]Edge{{From: "a", To: "c", Rel: Supports}, {From: "b", To: "c", Rel: Supports}}, "Study A reports 5 mg whereas study B reports 10 mg.",
			ConflictStatus{Surfaced: true, Via: `claim c cites both and states the conflict ("whereas")`}},
		{"claim cites both but smooths it over",
			[]Edge{{From: "a", To: "c", Rel: Supports}, {From: "b", To: "c", Rel: Supports}}, "The dose is 5-10 mg.",
			ConflictStatus{}},
		{"claim states a conflict but cites one side",
			[]Edge{{From: "a", To: "c", Rel: Supports}, {From: "b", To: "r", Rel: Supports}, {From: "r", To: "c", Rel: Supports}}, "However, doses vary.",
			ConflictStatus{}},
		{"reasoning step takes both and states the conflict",
			[]Edge{{From: "a", To: "r2", Rel: Supports}, {From: "b", To: "r2", Rel: Contradicts}, {From: "r2", To: "c", Rel: Supports}}, "",
			ConflictStatus{Surfaced: true, Via: "contradicts edge b -> r2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := base()
			g.Edges = tt.edges
			if tt.stmt != "" {
				g.Claims[0].Statement = tt.stmt
			}
			ix, err := NewIndex(g)
			if err != nil {
				t.Fatal(err)
			}
			got := ix.Surfacing()
			tt.want.Conflict = g.Conflicts[0]
			if diff := cmp.Diff([]ConflictStatus{tt.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReasoningStatesConflict(t *testing.T) {
	g := &Graph{
		Sources:   []Source{{ID: "a"}, {ID: "b"}},
		Reasoning: []Reasoning{{ID: "r", Inference: "The trials disagree on dose."}},
		Claims:    []Claim{{ID: "c"}},
		Edges:     []Edge{{From: "a", To: "r", Rel: Supports}, {From: "b", To: "r", Rel: Supports}, {From: "r", To: "c", Rel: Supports}},
		Conflicts: []Conflict{{A: "a", B: "b", Entity: "dose"}},
	}
	ix, err := NewIndex(g)
	if err != nil {
		t.Fatal(err)
	}
	got := ix.Surfacing()[0]
	if !got.Surfaced || got.Via != `reasoning r cites both and states the conflict ("disagree")` {
		t.Errorf("got %+v", got)
	}
}

func TestConflictCue(t *testing.T) {
	tests := []struct{ text, want string }{
		{"RAG helps; however, not for large models.", "however"},
		{"Smith finds gains, whereas Lee finds none.", "whereas"},
		{"The evidence is conflicting.", "conflicting"},
		{"Studies disagree on the effect size.", "disagree"},
		{"While Smith reports a gain, Lee reports none.", "while … reports"},
		{"While training, the model improved.", ""},
		{"Results are mixed evidence at best.", "mixed evidence"},
		{"In contrast, later work saw no gain.", "In contrast"},
		{"RAG improves accuracy by 14-18%.", ""},
		{"但是后续研究没有发现改进。", "但是"},
		{"Unlikely to matter.", ""},
	}
	for _, tt := range tests {
		if got := ConflictCue(tt.text); got != tt.want {
			t.Errorf("ConflictCue(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
