package prov

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// NodeKind says which of the three node sets a node belongs to.
type NodeKind uint8

// Node kinds.
const (
	KindSource NodeKind = iota + 1
	KindReasoning
	KindClaim
)

// String returns "source", "reasoning" or "claim".
func (k NodeKind) String() string {
	switch k {
	case KindSource:
		return "source"
	case KindReasoning:
		return "reasoning"
	case KindClaim:
		return "claim"
	}
	return "node"
}

// Index is a validated, read-only view of a Graph with integer node numbers
// and compressed adjacency (CSR), so that metrics and path queries run
// without string maps in their inner loops. Nodes are numbered sources
// first, then reasoning, then claims, in slice order. An Index must not
// outlive changes to its graph.
type Index struct {
	g          *Graph
	ns, nr, nc int
	ids        map[string]int32

	from, to []int32    // per edge
	rel      []Relation // per edge
	nu       []float64  // per edge; NaN when unknown or not a supports edge

	inStart  []int32 // len n+1: incoming edges of node v are inEdge[inStart[v]:inStart[v+1]]
	inEdge   []int32
	outStart []int32
	outEdge  []int32

	words    []int32 // per source: words in its excerpt
	resolved []bool  // per source

	// conflicts is K: the graph's conflicts as a set, a pair listed twice
	// (or reversed) about one entity counted once.
	conflicts []Conflict

	surfOnce sync.Once
	surf     []ConflictStatus // Surfacing, computed once
}

// NewIndex validates g and builds its index. A graph that breaks any rule
// gives a *ValidationError listing every violation.
func NewIndex(g *Graph) (*Index, error) {
	ns, nr, nc := len(g.Sources), len(g.Reasoning), len(g.Claims)
	n := ns + nr + nc
	if n >= math.MaxInt32 || len(g.Edges) >= math.MaxInt32 {
		return nil, fmt.Errorf("graph of %d nodes and %d edges: too large to index", n, len(g.Edges))
	}
	ix := &Index{g: g, ns: ns, nr: nr, nc: nc, ids: make(map[string]int32, n)}
	var vs violations
	addID := func(kind NodeKind, i int, id string) {
		if id == "" {
			vs.add(RuleID, fmt.Sprintf("%s %d", kind, i), "empty id")
			return
		}
		v := int32(ix.node(kind, i))
		if prev, dup := ix.ids[id]; dup {
			vs.add(RuleUniqueID, fmt.Sprintf("%s %q", kind, id), "id already used by %s %d", ix.Kind(prev), ix.local(prev))
			return
		}
		ix.ids[id] = v
	}
	ix.words = make([]int32, ns)
	ix.resolved = make([]bool, ns)
	for i, s := range g.Sources {
		addID(KindSource, i, s.ID)
		ix.words[i] = int32(countWords(s.Excerpt))
		ix.resolved[i] = s.Resolved
	}
	for i, r := range g.Reasoning {
		addID(KindReasoning, i, r.ID)
		if !validReasoningType(r.Type) {
			vs.add(RuleReasoningType, fmt.Sprintf("reasoning %q", r.ID), "type %q: want deduction, induction or synthesis", r.Type)
		}
	}
	for i, c := range g.Claims {
		addID(KindClaim, i, c.ID)
		if l := c.Location; l.Start < 0 || l.End < l.Start {
			vs.add(RuleSpan, fmt.Sprintf("claim %q", c.ID), "span [%d, %d) is not 0 ≤ start ≤ end", l.Start, l.End)
		}
	}

	m := len(g.Edges)
	ix.from = make([]int32, m)
	ix.to = make([]int32, m)
	ix.rel = make([]Relation, m)
	ix.nu = make([]float64, m)
	inDeg := make([]int32, n+1)
	outDeg := make([]int32, n+1)
	broken := false
	// Edges usually come grouped by claim: remember the last lookups.
	var lastFrom, lastTo string
	var lastU, lastV int32
	var lastOkU, lastOkV bool
	for i, e := range g.Edges {
		ix.rel[i] = e.Rel
		ix.nu[i] = math.NaN()
		if i == 0 || e.From != lastFrom {
			lastFrom = e.From
			lastU, lastOkU = ix.ids[e.From]
		}
		if i == 0 || e.To != lastTo {
			lastTo = e.To
			lastV, lastOkV = ix.ids[e.To]
		}
		u, okU := lastU, lastOkU
		v, okV := lastV, lastOkV
		if !okU || !okV {
			missing := e.From
			if okU {
				missing = e.To
			}
			vs.add(RuleEndpoint, edgeWhere(i, e), "no node %q", missing)
			broken = true
			continue
		}
		ix.from[i], ix.to[i] = u, v
		inDeg[v]++
		outDeg[u]++
		if e.Rel < Supports || e.Rel > Prerequisite {
			vs.add(RuleRelation, edgeWhere(i, e), "unknown relation %d", uint8(e.Rel))
		}
		if u == v {
			vs.add(RuleSelfLoop, edgeWhere(i, e), "edge from a node to itself")
		}
		if ix.Kind(v) == KindSource {
			vs.add(RuleSourceInbound, edgeWhere(i, e), "source %q has an incoming edge; sources have no incoming edges (AAR definition 5)", e.To)
		}
		if ix.Kind(u) == KindClaim {
			vs.add(RuleClaimOutbound, edgeWhere(i, e), "claim %q has an outgoing edge; claims have no outgoing edges (AAR definition 7)", e.From)
		}
		if e.Strength != nil {
			switch nu := *e.Strength; {
			case e.Rel != Supports:
				vs.add(RuleStrength, edgeWhere(i, e), "strength on a %s edge; only supports edges carry ν (AAR definition 8)", e.Rel)
			case math.IsNaN(nu) || nu < 0 || nu > 1:
				vs.add(RuleStrength, edgeWhere(i, e), "strength %v outside [0, 1]", nu)
			default:
				ix.nu[i] = nu
			}
		}
		if !validLabel(e.Label) {
			vs.add(RuleLabel, edgeWhere(i, e), "label %q: want supported, partial, unsupported, contradicted or unknown", e.Label)
		}
	}
	for i, c := range g.Conflicts {
		ix.checkConflict(&vs, i, c)
	}
	if broken {
		return nil, vs.err()
	}

	ix.inStart = prefixSums(inDeg)
	ix.outStart = prefixSums(outDeg)
	ix.inEdge = make([]int32, m)
	ix.outEdge = make([]int32, m)
	inFill := append([]int32(nil), ix.inStart[:n]...)
	outFill := append([]int32(nil), ix.outStart[:n]...)
	for i := range m {
		u, v := ix.from[i], ix.to[i]
		ix.inEdge[inFill[v]] = int32(i)
		inFill[v]++
		ix.outEdge[outFill[u]] = int32(i)
		outFill[u]++
	}
	ix.checkDuplicates(&vs)
	ix.conflicts = MergeConflicts(nil, g.Conflicts...)
	if len(vs.list) == 0 {
		// Cycles can only run through reasoning nodes when sources have no
		// inputs and claims no outputs; report them once those rules hold.
		ix.checkAcyclic(&vs)
	}
	if err := vs.err(); err != nil {
		return nil, err
	}
	return ix, nil
}

// checkConflict checks conflict i: both ends distinct sources of the
// graph, an entity named.
func (ix *Index) checkConflict(vs *violations, i int, c Conflict) {
	where := fmt.Sprintf("conflict %d (%s ↔ %s)", i, c.A, c.B)
	a, okA := ix.ids[c.A]
	b, okB := ix.ids[c.B]
	switch {
	case !okA || !okB:
		vs.add(RuleConflict, where, "both ends must be sources of the graph")
	case ix.Kind(a) != KindSource || ix.Kind(b) != KindSource:
		vs.add(RuleConflict, where, "both ends must be sources, got %s and %s", ix.Kind(a), ix.Kind(b))
	case a == b:
		vs.add(RuleConflict, where, "a source cannot conflict with itself")
	case c.Entity == "":
		vs.add(RuleConflict, where, "no entity named")
	}
}

// AddConflicts adds conflicts to the index's graph, after those it has and
// without repeating one (MergeConflicts), and updates the index to match:
// what re-indexing the changed graph would give, without rebuilding the
// index of its nodes and edges. Conflicts that break a rule are refused
// (a *ValidationError) and nothing changes. Not safe while other
// goroutines read the index.
func (ix *Index) AddConflicts(cs ...Conflict) error {
	var vs violations
	for i, c := range cs {
		ix.checkConflict(&vs, len(ix.g.Conflicts)+i, c)
	}
	if err := vs.err(); err != nil {
		return err
	}
	ix.g.Conflicts = MergeConflicts(ix.g.Conflicts, cs...)
	ix.conflicts = MergeConflicts(nil, ix.g.Conflicts...)
	ix.surfOnce, ix.surf = sync.Once{}, nil
	return nil
}

// prefixSums turns per-node degrees (len n+1, last unused) into CSR starts.
func prefixSums(deg []int32) []int32 {
	start := make([]int32, len(deg))
	var sum int32
	for i := 0; i < len(deg)-1; i++ {
		start[i] = sum
		sum += deg[i]
	}
	start[len(deg)-1] = sum
	return start
}

// checkDuplicates reports parallel edges with the same relation: each would
// count twice among the citation pairs of PSnd.
func (ix *Index) checkDuplicates(vs *violations) {
	seen := make(map[[2]int32]struct{})
	for v := 0; v < ix.Len(); v++ {
		in := ix.inEdge[ix.inStart[v]:ix.inStart[v+1]]
		if len(in) < 2 {
			continue
		}
		clear(seen)
		for _, e := range in {
			k := [2]int32{ix.from[e], int32(ix.rel[e])}
			if _, dup := seen[k]; dup {
				vs.add(RuleDuplicateEdge, edgeWhere(int(e), ix.g.Edges[e]), "the same edge is listed twice")
				continue
			}
			seen[k] = struct{}{}
		}
	}
}

// checkAcyclic runs Kahn's algorithm, then peels the leftover nodes that
// only lead out of a cycle; what remains lies on a cycle.
func (ix *Index) checkAcyclic(vs *violations) {
	n := ix.Len()
	indeg := make([]int32, n)
	for v := range n {
		indeg[v] = ix.inStart[v+1] - ix.inStart[v]
	}
	queue := make([]int32, 0, n)
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, int32(v))
		}
	}
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		for _, e := range ix.outEdge[ix.outStart[u]:ix.outStart[u+1]] {
			w := ix.to[e]
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	if len(queue) == n {
		return
	}
	// Leftover nodes have indeg > 0. Peel those with no leftover successor.
	outdeg := make([]int32, n)
	var sinks []int32
	for v := range n {
		if indeg[v] == 0 {
			continue
		}
		for _, e := range ix.outEdge[ix.outStart[v]:ix.outStart[v+1]] {
			if indeg[ix.to[e]] > 0 {
				outdeg[v]++
			}
		}
		if outdeg[v] == 0 {
			sinks = append(sinks, int32(v))
		}
	}
	for len(sinks) > 0 {
		v := sinks[len(sinks)-1]
		sinks = sinks[:len(sinks)-1]
		indeg[v] = 0
		for _, e := range ix.inEdge[ix.inStart[v]:ix.inStart[v+1]] {
			u := ix.from[e]
			if indeg[u] > 0 {
				if outdeg[u]--; outdeg[u] == 0 {
					sinks = append(sinks, u)
				}
			}
		}
	}
	var ids []string
	count := 0
	for v := range n {
		if indeg[v] > 0 {
			count++
			if len(ids) < 5 {
				ids = append(ids, fmt.Sprintf("%q", ix.ID(int32(v))))
			}
		}
	}
	more := ""
	if count > len(ids) {
		more = fmt.Sprintf(" and %d more", count-len(ids))
	}
	vs.add(RuleAcyclic, "graph", "cycle through %s%s: a provenance path would include itself", strings.Join(ids, ", "), more)
}

// Graph returns the indexed graph.
func (ix *Index) Graph() *Graph { return ix.g }

// Len returns the number of nodes.
func (ix *Index) Len() int { return ix.ns + ix.nr + ix.nc }

// Lookup returns the node number of id.
func (ix *Index) Lookup(id string) (int32, bool) {
	v, ok := ix.ids[id]
	return v, ok
}

// Kind returns the kind of node v.
func (ix *Index) Kind(v int32) NodeKind {
	switch {
	case int(v) < ix.ns:
		return KindSource
	case int(v) < ix.ns+ix.nr:
		return KindReasoning
	}
	return KindClaim
}

// ID returns the id of node v.
func (ix *Index) ID(v int32) string {
	i := ix.local(v)
	switch ix.Kind(v) {
	case KindSource:
		return ix.g.Sources[i].ID
	case KindReasoning:
		return ix.g.Reasoning[i].ID
	}
	return ix.g.Claims[i].ID
}

// node returns the node number of the i-th node of a kind.
func (ix *Index) node(kind NodeKind, i int) int {
	switch kind {
	case KindSource:
		return i
	case KindReasoning:
		return ix.ns + i
	}
	return ix.ns + ix.nr + i
}

// local returns the position of node v in its kind's slice.
func (ix *Index) local(v int32) int {
	switch ix.Kind(v) {
	case KindSource:
		return int(v)
	case KindReasoning:
		return int(v) - ix.ns
	}
	return int(v) - ix.ns - ix.nr
}
