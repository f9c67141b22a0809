package live

import (
	"math"
	"slices"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// An operation costs what it adds, not what the session holds: nodes are
// found through a map, an operation that only adds a node with edges into
// it is validated by what it adds, and a claim is assessed on the part of
// the graph its provenance path lies in. Indexing the whole graph on every
// operation made one cost as much as the session (0.1–0.3 ms at a few
// hundred nodes, more later); it is still done where an operation can
// break a rule far from what it adds (an edge between existing nodes can
// close a cycle; revising and withdrawing delete edges) and to word the
// errors of an operation refused.

// nodeRef is where a node is: its kind and its place in the graph's list
// of that kind.
type nodeRef struct {
	kind prov.NodeKind
	at   int
}

// track updates the session's node map and in-edge lists for o, which
// turned before into g. ss.mu is held.
func (ss *session) track(o *op, before, g *prov.Graph) {
	appended := false
	switch o.Kind {
	case opSource:
		ss.nodes[o.Source.Source.ID] = nodeRef{prov.KindSource, len(g.Sources) - 1}
	case opReasoning:
		ss.nodes[o.Reasoning.Reasoning.ID] = nodeRef{prov.KindReasoning, len(g.Reasoning) - 1}
		appended = true
	case opClaim:
		if o.Claim.Revise {
			ss.reindexEdges(g) // its supports edges left the middle of the list
			return
		}
		ss.nodes[o.Claim.Claim.ID] = nodeRef{prov.KindClaim, len(g.Claims) - 1}
		appended = true
	case opEdge:
		appended = true
	case opWithdraw:
		delete(ss.nodes, o.Withdraw)
		for i, c := range g.Claims {
			ss.nodes[c.ID] = nodeRef{prov.KindClaim, i}
		}
		ss.reindexEdges(g)
	}
	if appended {
		for i := len(before.Edges); i < len(g.Edges); i++ {
			to := g.Edges[i].To
			ss.into[to] = append(ss.into[to], int32(i))
		}
	}
}

// reindexEdges lists the edges into each node of g afresh.
func (ss *session) reindexEdges(g *prov.Graph) {
	clear(ss.into)
	for i, e := range g.Edges {
		ss.into[e.To] = append(ss.into[e.To], int32(i))
	}
}

// validate checks g, the graph after o, against the AAR rules: by what o
// adds when that settles it (quickValid), else by indexing the whole
// graph, which also words the errors. ss.mu is held.
func (s *Service) validate(ss *session, o *op, g *prov.Graph) error {
	if !s.alwaysIndex && ss.quickValid(o) {
		return nil
	}
	_, err := index(g)
	return err
}

// quickValid reports whether o surely keeps the session's graph valid,
// judging only what it adds: a source with a fresh id and conflicts
// between sources; a reasoning step or a new claim with a fresh id (and a
// valid type or span) and supports edges into it from distinct sources or
// reasoning steps of the graph, with valid strengths and labels. The rest
// of the graph was valid, and a node with no edges out of it closes no
// cycle, so every rule of prov.NewIndex then holds. False means "cannot
// tell", never "invalid": the whole graph is indexed then. Its checks
// are those rules or stricter. ss.mu is held.
func (ss *session) quickValid(o *op) bool {
	fresh := func(id string) bool {
		_, taken := ss.nodes[id]
		return id != "" && !taken
	}
	switch o.Kind {
	case opSource:
		src := o.Source.Source
		if !fresh(src.ID) {
			return false
		}
		for _, c := range o.Source.Conflicts {
			if c.Entity == "" || c.A == c.B {
				return false
			}
			for _, end := range [2]string{c.A, c.B} {
				if r, ok := ss.nodes[end]; end != src.ID && (!ok || r.kind != prov.KindSource) {
					return false
				}
			}
		}
		return true
	case opReasoning:
		r := o.Reasoning.Reasoning
		switch r.Type {
		case "", prov.Deduction, prov.Induction, prov.Synthesis:
		default:
			return false
		}
		return fresh(r.ID) && ss.quickEdgesInto(r.ID, o.Reasoning.Edges)
	case opClaim:
		c := o.Claim.Claim
		return !o.Claim.Revise && fresh(c.ID) && c.Location.Start >= 0 && c.Location.End >= c.Location.Start &&
			ss.quickEdgesInto(c.ID, o.Claim.Edges)
	}
	return false
}

// quickEdgesInto reports whether edges are supports edges into the new
// node to, each from a different source or reasoning step of the graph,
// with a strength in [0, 1] (or none) and a known label.
func (ss *session) quickEdgesInto(to string, edges []prov.Edge) bool {
	from := make(map[string]bool, len(edges))
	for _, e := range edges {
		if e.To != to || e.Rel != prov.Supports || from[e.From] {
			return false
		}
		from[e.From] = true
		if r, ok := ss.nodes[e.From]; !ok || r.kind == prov.KindClaim {
			return false
		}
		if nu := e.Strength; nu != nil && (math.IsNaN(*nu) || *nu < 0 || *nu > 1) {
			return false
		}
		switch e.Label {
		case "", claimtrace.Supported, claimtrace.Partial, claimtrace.Unsupported, claimtrace.Contradicted, claimtrace.Unknown:
		default:
			return false
		}
	}
	return true
}

// pathIndex indexes the part of the session's graph the provenance path
// of claim id lies in: the claim, the sources and reasoning steps with a
// path to it and the edges into them, each in the graph's order, without
// the excerpts (as index) and without conflicts. The claim's π(c), its
// metrics and so its gate and figures are those of the whole graph; its
// share of surfaced conflicts (per-claim CTran) and the conflicts of the
// path are not, and are not read from it. ss.mu is held.
func (s *Service) pathIndex(ss *session, id string) (*prov.Index, error) {
	g := ss.g
	if s.alwaysIndex {
		return index(g)
	}
	seen := map[string]bool{id: true}
	stack := []string{id}
	var edges, sources, reasoning []int
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, i := range ss.into[v] {
			edges = append(edges, int(i))
			if u := g.Edges[i].From; !seen[u] {
				seen[u] = true
				stack = append(stack, u)
			}
		}
		switch r := ss.nodes[v]; r.kind {
		case prov.KindSource:
			sources = append(sources, r.at)
		case prov.KindReasoning:
			reasoning = append(reasoning, r.at)
		}
	}
	slices.Sort(edges)
	slices.Sort(sources)
	slices.Sort(reasoning)
	h := *g
	h.Sources = make([]prov.Source, len(sources))
	for k, i := range sources {
		s := g.Sources[i]
		s.Excerpt = ""
		h.Sources[k] = s
	}
	h.Reasoning = make([]prov.Reasoning, len(reasoning))
	for k, i := range reasoning {
		h.Reasoning[k] = g.Reasoning[i]
	}
	h.Claims = []prov.Claim{g.Claims[ss.nodes[id].at]}
	h.Edges = make([]prov.Edge, len(edges))
	for k, i := range edges {
		h.Edges[k] = g.Edges[i]
	}
	h.Conflicts = nil
	return prov.NewIndex(&h)
}
