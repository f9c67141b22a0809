package prov

import "context"

// DetectConflicts runs the offline detector over the excerpts of g's
// sources and adds the conflicts it finds to g.Conflicts, after those
// already recorded and without repeating one (MergeConflicts): the graph
// then scores them in CTran. It is what audit and 'prov contradictions'
// do to a graph read from a file, which has only its excerpts; a report's
// conflicts are looked for by the eval pipeline in the full source texts.
func DetectConflicts(ctx context.Context, g *Graph) error {
	found, err := FindContradictions(ctx, g, nil, nil)
	if err != nil {
		return err
	}
	extra := make([]Conflict, len(found))
	for i, st := range found {
		extra[i] = st.Conflict
	}
	g.Conflicts = MergeConflicts(g.Conflicts, extra...)
	return nil
}
