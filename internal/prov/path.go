package prov

import (
	"fmt"
	"slices"

	"github.com/claimtrace/claimtrace"
)

// Path is the provenance path π(c) of one claim laid out for a reader (AAR
// definition 9): the sources and reasoning steps with a directed path to
// the claim, the edges among them, and the claim's metrics.
type Path struct {
	Claim     Claim        `json:"claim"`
	Sources   []Source     `json:"sources"`
	Reasoning []Reasoning  `json:"reasoning"`
	Edges     []Edge       `json:"edges"`
	Metrics   ClaimMetrics `json:"metrics"`
	// Conflicts are the conflicts of K that touch a source of the path.
	Conflicts []ConflictStatus `json:"conflicts,omitempty"`
}

// Path returns π(c) for the claim with the given id, its metrics computed
// with threshold tau. Nodes and edges keep the graph's order.
func (ix *Index) Path(claimID string, tau float64) (*Path, error) {
	v, ok := ix.Lookup(claimID)
	if !ok {
		return nil, fmt.Errorf("claim %q: %w", claimID, claimtrace.ErrNotFound)
	}
	if ix.Kind(v) != KindClaim {
		return nil, fmt.Errorf("%q is a %s, not a claim: %w", claimID, ix.Kind(v), claimtrace.ErrInvalid)
	}
	w, err := ix.newWalker(tau)
	if err != nil {
		return nil, err
	}
	w.keep = true
	p := &Path{Claim: ix.g.Claims[ix.local(v)]}
	w.claim(ix.local(v), 1, &p.Metrics)

	nodes := append([]int32{v}, w.visited...)
	slices.Sort(nodes)
	var edges []int32
	inPath := make(map[int32]bool, len(nodes))
	for _, u := range nodes {
		inPath[u] = true
		edges = append(edges, ix.inEdge[ix.inStart[u]:ix.inStart[u+1]]...)
		switch ix.Kind(u) {
		case KindSource:
			p.Sources = append(p.Sources, ix.g.Sources[u])
		case KindReasoning:
			p.Reasoning = append(p.Reasoning, ix.g.Reasoning[ix.local(u)])
		}
	}
	slices.Sort(edges)
	for _, e := range edges {
		p.Edges = append(p.Edges, ix.g.Edges[e])
	}
	for _, st := range w.statuses {
		a, _ := ix.Lookup(st.A)
		b, _ := ix.Lookup(st.B)
		if inPath[a] || inPath[b] {
			p.Conflicts = append(p.Conflicts, st)
		}
	}
	return p, nil
}
