package prov

import (
	"context"
	"fmt"
)

// DetectConflicts runs the offline detector over the excerpts of g's
// sources and adds the conflicts it finds to g.Conflicts, after those
// already recorded and without repeating one (MergeConflicts): the graph
// then scores them in CTran. It is what audit and 'prov contradictions'
// do to a graph read from a file, which has only its excerpts; a report's
// conflicts are looked for by the eval pipeline in the full source texts.
//
// It keeps what FindContradictions keeps (conflicts between two different
// sources of g) without indexing the graph to tell which are surfaced:
// the metrics computed next do that once.
func DetectConflicts(ctx context.Context, g *Graph) error {
	extra, err := DetectedConflicts(ctx, g)
	if err != nil {
		return err
	}
	g.Conflicts = MergeConflicts(g.Conflicts, extra...)
	return nil
}

// DetectedConflicts returns the conflicts the offline detector finds in
// the excerpts of g's sources, between two different sources of g (what
// DetectConflicts adds to g; Index.AddConflicts adds them to an index).
func DetectedConflicts(ctx context.Context, g *Graph) ([]Conflict, error) {
	var texts []SourceText
	known := make(map[string]bool, len(g.Sources))
	for _, s := range g.Sources {
		known[s.ID] = true
		if s.Excerpt != "" {
			texts = append(texts, SourceText{ID: s.ID, Text: s.Excerpt})
		}
	}
	found, err := Offline{}.Detect(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("detect contradictions: %w", err)
	}
	var extra []Conflict
	for _, c := range found {
		if known[c.A] && known[c.B] && c.A != c.B {
			extra = append(extra, c)
		}
	}
	return extra, nil
}
