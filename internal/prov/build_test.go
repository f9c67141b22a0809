package prov

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/google/go-cmp/cmp"
)

// buildInput is a small report as the pipeline sees it: four claims, five
// citation occurrences of four targets (two of them the same paper by two
// URLs, one dead link, one dangling marker).
func buildInput() Input {
	text := "Drug A lowers LDL by 30% [1]. It is safe [2][3]. Trials were small. Costs fell [9]."
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	doc := claimtrace.Document{
		Text: text,
		Claims: []claimtrace.Claim{
			{ID: "c1", Text: "Drug A lowers LDL by 30%.", Start: 0, End: 29, Citations: []int{0}},
			{ID: "c2", Text: "It is safe.", Start: 30, End: 48, Citations: []int{1, 2}},
			{ID: "", Text: "Trials were small.", Start: 49, End: 67},
			{ID: "c4", Text: "Costs fell.", Start: 68, End: 84, Citations: []int{3, 4}},
		},
		Citations: []claimtrace.Citation{
			{Marker: "[1]", Kind: claimtrace.KindNumbered, URL: "https://arxiv.org/abs/2101.00001", Start: 25, End: 28},
			{Marker: "[2]", Kind: claimtrace.KindNumbered, URL: "https://dead.example/x", Start: 41, End: 44},
			{Marker: "[3]", Kind: claimtrace.KindNumbered, URL: "https://arxiv.org/pdf/2101.00001v2", Start: 44, End: 47},
			{Marker: "[9]", Kind: claimtrace.KindNumbered, Start: 79, End: 82},
			{Marker: "[1]", Kind: claimtrace.KindNumbered, URL: "https://arxiv.org/abs/2101.00001", Start: 82, End: 82},
		},
	}
	paper := claimtrace.Work{Key: "arxiv:2101.00001", Kind: claimtrace.WorkPaper, URL: "https://arxiv.org/abs/2101.00001",
		ArXivID: "2101.00001", Title: "Drug A in adults", Resolved: true}
	return Input{
		ID: "task-1", Query: "Is drug A worth it?", Agent: "agent-x", Doc: doc,
		Sources: map[int]ResolvedSource{
			0: {Work: paper, Excerpt: "LDL fell by 30% on drug A.", RetrievedAt: at},
			1: {Work: claimtrace.Work{Key: "url:https://dead.example/x", Kind: claimtrace.WorkUnknown, Status: "http 404"}},
			2: {Work: paper},
			4: {Work: paper},
		},
		Verdicts: map[Pair]claimtrace.Verdict{
			{0, "arxiv:2101.00001"}:           {Label: claimtrace.Supported, Strength: 0.91, Evidence: "LDL fell by 30%"},
			{1, "arxiv:2101.00001"}:           {Label: claimtrace.Partial, Strength: 0.55},
			{1, "url:https://dead.example/x"}: {Label: claimtrace.Unknown, Strength: 0.7, Reason: "unreachable"},
		},
	}
}

func TestBuild(t *testing.T) {
	g, err := Build(buildInput())
	if err != nil {
		t.Fatal(err)
	}
	want := &Graph{
		Format: FormatVersion, ID: "task-1", Query: "Is drug A worth it?", Agent: "agent-x",
		Sources: []Source{
			{ID: "s1", Key: "arxiv:2101.00001", URL: "https://arxiv.org/abs/2101.00001", Title: "Drug A in adults",
				Excerpt: "LDL fell by 30% on drug A.", RetrievedAt: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Resolved: true},
			{ID: "s2", Key: "url:https://dead.example/x", URL: "https://dead.example/x"},
			{ID: "s3", Key: "marker:[9]"},
		},
		Claims: []Claim{
			{ID: "c1", Statement: "Drug A lowers LDL by 30%.", Location: Location{0, 29, ""}},
			{ID: "c2", Statement: "It is safe.", Location: Location{30, 48, ""}},
			{ID: "c3", Statement: "Trials were small.", Location: Location{49, 67, ""}},
			{ID: "c4", Statement: "Costs fell.", Location: Location{68, 84, ""}},
		},
		Edges: []Edge{
			{From: "s1", To: "c1", Rel: Supports, Strength: Nu(0.91), Label: claimtrace.Supported, Evidence: "LDL fell by 30%"},
			{From: "s2", To: "c2", Rel: Supports, Label: claimtrace.Unknown},
			{From: "s1", To: "c2", Rel: Supports, Strength: Nu(0.55), Label: claimtrace.Partial},
			{From: "s3", To: "c4", Rel: Supports},
			{From: "s1", To: "c4", Rel: Supports},
		},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("Build (-want +got):\n%s", diff)
	}

	m, err := Compute(g, DefaultTau)
	if err != nil {
		t.Fatal(err)
	}
	// c1 complete; c2 cites a dead link; c3 cites nothing; c4 a dangling marker.
	if got, want := m.PCov, (Ratio{1, 4}); got != want {
		t.Errorf("PCov = %v, want %v", got, want)
	}
	// Five pairs; sound: c1←s1 (0.91) and c2←s1 (0.55). Unknown never counts.
	if got, want := m.PSnd, (Ratio{2, 5}); got != want {
		t.Errorf("PSnd = %v, want %v", got, want)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(in *Input)
		want string
	}{
		{"citation out of range", func(in *Input) { in.Doc.Claims[0].Citations = []int{7} }, `claim "c1" cites citation 7 of 5`},
		{"verdict on an uncited pair", func(in *Input) {
			in.Verdicts[Pair{2, "arxiv:2101.00001"}] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 1}
		}, "verdict on claim 2 and arxiv:2101.00001 (and 0 more): the claim does not cite that source"},
		{"strength out of range", func(in *Input) {
			in.Verdicts[Pair{0, "arxiv:2101.00001"}] = claimtrace.Verdict{Label: claimtrace.Supported, Strength: 91}
		}, "strength 91 outside [0, 1]"},
		{"duplicate claim ids", func(in *Input) { in.Doc.Claims[1].ID = "c1" }, "rule unique-id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := buildInput()
			tt.edit(&in)
			_, err := Build(in)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, claimtrace.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}
