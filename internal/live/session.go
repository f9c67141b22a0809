package live

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/store"
)

// opKind names an operation of the log.
type opKind string

// Operations of a session's log.
const (
	opOpen      opKind = "open"
	opSource    opKind = "source"
	opReasoning opKind = "reasoning"
	opClaim     opKind = "claim"
	opEdge      opKind = "edge"
	opWithdraw  opKind = "withdraw"
	opClose     opKind = "close"
)

// op is one applied operation as the store keeps it: its outcome, with the
// verdicts already made and fetched text already read, so that replaying
// the log rebuilds the session without judging or fetching again.
type op struct {
	Seq       int          `json:"seq"`
	Kind      opKind       `json:"op"`
	At        time.Time    `json:"at"`
	Open      *openOp      `json:"open,omitempty"`
	Source    *sourceOp    `json:"source,omitempty"`
	Reasoning *reasoningOp `json:"reasoning,omitempty"`
	Claim     *claimOp     `json:"claim,omitempty"`
	Edge      *edgeOp      `json:"edge,omitempty"`
	// Withdraw is the id of the withdrawn claim.
	Withdraw string `json:"withdraw,omitempty"`
}

type openOp struct {
	Query string `json:"query,omitempty"`
	Agent string `json:"agent,omitempty"`
}

type sourceOp struct {
	Source prov.Source `json:"source"`
	// Content says where the source's text comes from: ContentExcerpt,
	// ContentFetched or ContentNone.
	Content string `json:"content"`
	// Text is the fetched readable text (the excerpt is in Source).
	Text      string          `json:"text,omitempty"`
	Fetch     *FetchInfo      `json:"fetch,omitempty"`
	Conflicts []prov.Conflict `json:"conflicts,omitempty"`
}

type reasoningOp struct {
	Reasoning prov.Reasoning `json:"reasoning"`
	Edges     []prov.Edge    `json:"edges,omitempty"`
}

type claimOp struct {
	Claim  prov.Claim `json:"claim"`
	Revise bool       `json:"revise,omitempty"`
	// Edges are the claim's supports edges, judged when from a source.
	Edges []prov.Edge `json:"edges"`
	// Verdicts are the judge's verdicts by source id.
	Verdicts map[string]claimtrace.Verdict `json:"verdicts,omitempty"`
}

type edgeOp struct {
	Edge    prov.Edge           `json:"edge"`
	Verdict *claimtrace.Verdict `json:"verdict,omitempty"`
}

// opKey is the unit key of operation seq: zero-padded so that the store's
// key order is the log's order.
func opKey(seq int) string { return fmt.Sprintf("%010d", seq) }

// session is the in-memory state of one session: its graph and what the
// graph does not hold (source texts, full verdicts). mu serializes
// operations; g is replaced, never modified in place, so a copy of the
// pointer taken under mu stays valid.
type session struct {
	mu sync.Mutex

	id               string
	query, agent     string
	created, updated time.Time
	closed           bool
	// evicted is set, under mu, when the session leaves memory: a caller
	// that locked it after that looks it up again (Service.locked).
	evicted bool
	// pins counts the callers about to lock the session (Service.acquire),
	// which keep it in memory; guarded by the service's mu.
	pins     int
	seq      int // sequence number of the next operation
	g        *prov.Graph
	sources  map[string]sourceState
	verdicts map[edgeKey]claimtrace.Verdict
	bytes    int64 // text recorded over the session's life (op.bytes)
	// detect indexes the sources' texts for the offline contradiction
	// detector (detectIndex); nil until a source needs it.
	detect *prov.OfflineIndex
	// nodes finds each node of g by id; into lists the positions in
	// g.Edges of the edges into each node (track keeps both).
	nodes map[string]nodeRef
	into  map[string][]int32
}

// sourceState is what the service knows of a source beyond the graph.
type sourceState struct {
	text    string // what claims are judged against: the excerpt or the fetched text
	content string
	fetch   *FetchInfo
	words   int // words of the excerpt, the AEff reading load
}

type edgeKey struct{ from, to string }

func newSession(id string) *session {
	return &session{
		id:       id,
		g:        &prov.Graph{ID: id, Sources: []prov.Source{}, Claims: []prov.Claim{}, Edges: []prov.Edge{}},
		sources:  make(map[string]sourceState),
		verdicts: make(map[edgeKey]claimtrace.Verdict),
		nodes:    make(map[string]nodeRef),
		into:     make(map[string][]int32),
	}
}

// mutate returns the graph after o without changing the session. An
// operation that adds nodes and edges shares the session graph's lists,
// appending past their ends: a graph taken earlier reads only up to its
// own lengths, and what a graph never committed wrote there is written
// over by the next. Revising and withdrawing change the lists in place, so
// they copy the graph first.
func (ss *session) mutate(o *op) (*prov.Graph, error) {
	switch o.Kind {
	case opOpen:
		g := ss.g.Clone()
		g.Query, g.Agent = o.Open.Query, o.Open.Agent
		return g, nil
	case opClose:
		return ss.g, nil
	case opSource:
		g := *ss.g
		g.Sources = append(g.Sources, o.Source.Source)
		if len(o.Source.Conflicts) > 0 {
			g.Conflicts = prov.MergeConflicts(g.Conflicts, o.Source.Conflicts...)
		}
		return &g, nil
	case opReasoning:
		g := *ss.g
		g.Reasoning = append(g.Reasoning, o.Reasoning.Reasoning)
		g.Edges = append(g.Edges, o.Reasoning.Edges...)
		return &g, nil
	case opClaim:
		c := o.Claim.Claim
		if !o.Claim.Revise {
			g := *ss.g
			g.Claims = append(g.Claims, c)
			g.Edges = append(g.Edges, o.Claim.Edges...)
			return &g, nil
		}
		g := ss.g.Clone()
		i := slices.IndexFunc(g.Claims, func(x prov.Claim) bool { return x.ID == c.ID })
		if i < 0 {
			return nil, fmt.Errorf("revise claim %q: %w", c.ID, claimtrace.ErrNotFound)
		}
		g.Claims[i] = c
		g.Edges = slices.DeleteFunc(g.Edges, func(e prov.Edge) bool { return e.To == c.ID && e.Rel == prov.Supports })
		g.Edges = append(g.Edges, o.Claim.Edges...)
		return g, nil
	case opEdge:
		g := *ss.g
		g.Edges = append(g.Edges, o.Edge.Edge)
		return &g, nil
	case opWithdraw:
		g := ss.g.Clone()
		i := slices.IndexFunc(g.Claims, func(x prov.Claim) bool { return x.ID == o.Withdraw })
		if i < 0 {
			return nil, fmt.Errorf("withdraw claim %q: %w", o.Withdraw, claimtrace.ErrNotFound)
		}
		g.Claims = slices.Delete(g.Claims, i, i+1)
		g.Edges = slices.DeleteFunc(g.Edges, func(e prov.Edge) bool { return e.To == o.Withdraw })
		return g, nil
	}
	return nil, fmt.Errorf("operation %q: %w", o.Kind, claimtrace.ErrInvalid)
}

// apply makes g, the graph after o, the session's graph and records what
// the graph does not hold.
func (ss *session) apply(o *op, g *prov.Graph) {
	switch o.Kind {
	case opOpen:
		ss.query, ss.agent, ss.created = o.Open.Query, o.Open.Agent, o.At
	case opClose:
		ss.closed = true
	case opSource:
		so := o.Source
		text := so.Text
		if so.Content == ContentExcerpt {
			text = so.Source.Excerpt
		}
		ss.sources[so.Source.ID] = sourceState{text: text, content: so.Content, fetch: so.Fetch, words: prov.CountWords(so.Source.Excerpt)}
	case opClaim:
		id := o.Claim.Claim.ID
		if o.Claim.Revise {
			ss.dropVerdicts(id)
		}
		for src, v := range o.Claim.Verdicts {
			ss.verdicts[edgeKey{src, id}] = v
		}
	case opEdge:
		if o.Edge.Verdict != nil {
			ss.verdicts[edgeKey{o.Edge.Edge.From, o.Edge.Edge.To}] = *o.Edge.Verdict
		}
	case opWithdraw:
		ss.dropVerdicts(o.Withdraw)
	}
	ss.track(o, ss.g, g)
	ss.g = g
	ss.bytes += o.bytes()
	ss.seq = o.Seq + 1
	ss.updated = o.At
}

func (ss *session) dropVerdicts(claimID string) {
	for k := range ss.verdicts {
		if k.to == claimID {
			delete(ss.verdicts, k)
		}
	}
}

// replay rebuilds a session from its stored log.
func replay(id string, units []store.Unit) (*session, error) {
	ss := newSession(id)
	for _, u := range units {
		var o op
		if err := json.Unmarshal(u.Data, &o); err != nil {
			return nil, fmt.Errorf("session %s: stored operation %s: %v: %w", id, u.Key, err, claimtrace.ErrInvalid)
		}
		if o.Seq != ss.seq || opKey(o.Seq) != u.Key {
			return nil, fmt.Errorf("session %s: stored operation %s has sequence number %d, want %d: %w", id, u.Key, o.Seq, ss.seq, claimtrace.ErrInvalid)
		}
		if err := o.check(); err != nil {
			return nil, fmt.Errorf("session %s: stored operation %d: %w", id, o.Seq, err)
		}
		if ss.closed {
			return nil, fmt.Errorf("session %s: stored operation %d (%s) follows the close: %w", id, o.Seq, o.Kind, claimtrace.ErrInvalid)
		}
		if err := ss.checkStored(&o); err != nil {
			return nil, fmt.Errorf("session %s: stored operation %d: %w", id, o.Seq, err)
		}
		g, err := ss.mutate(&o)
		if err != nil {
			return nil, fmt.Errorf("session %s: stored operation %d: %w", id, o.Seq, err)
		}
		if o.Kind != opOpen && o.Kind != opClose && !ss.quickValid(&o) {
			if _, err := index(g); err != nil {
				return nil, fmt.Errorf("session %s: stored operation %d: %w", id, o.Seq, err)
			}
		}
		ss.apply(&o, g)
	}
	if ss.created.IsZero() {
		return nil, fmt.Errorf("session %s: stored log does not start with an open operation: %w", id, claimtrace.ErrInvalid)
	}
	return ss, nil
}

// checkStored reports what the AAR rules do not catch in a stored
// operation: a claim's edges that are not its supports, verdicts on no
// judged edge (a verdict is on a supports edge from a source into a claim),
// a source whose resolved flag disagrees with its text.
func (ss *session) checkStored(o *op) error {
	judgedEdge := func(e prov.Edge) bool {
		_, fromSource := ss.sources[e.From]
		return fromSource && e.Rel == prov.Supports
	}
	switch {
	case o.Kind == opSource:
		so := o.Source
		hasText := (so.Content == ContentExcerpt && so.Source.Excerpt != "") || (so.Content == ContentFetched && so.Text != "")
		if so.Source.Resolved != hasText || (so.Content != ContentExcerpt && so.Content != ContentFetched && so.Content != ContentNone) {
			return fmt.Errorf("source %q: resolved %v with content %q: %w", so.Source.ID, so.Source.Resolved, so.Content, claimtrace.ErrInvalid)
		}
	case o.Kind == opClaim:
		for _, e := range o.Claim.Edges {
			if e.To != o.Claim.Claim.ID || e.Rel != prov.Supports {
				return fmt.Errorf("claim %q carries edge %s -%s-> %s: %w", o.Claim.Claim.ID, e.From, e.Rel, e.To, claimtrace.ErrInvalid)
			}
		}
		for src := range o.Claim.Verdicts {
			if !slices.ContainsFunc(o.Claim.Edges, func(e prov.Edge) bool { return e.From == src && e.To == o.Claim.Claim.ID && judgedEdge(e) }) {
				return fmt.Errorf("verdict from %q on no supports edge from that source: %w", src, claimtrace.ErrInvalid)
			}
		}
	case o.Kind == opEdge && o.Edge.Verdict != nil:
		kind, _ := ss.kindOf(o.Edge.Edge.To)
		if !judgedEdge(o.Edge.Edge) || kind != prov.KindClaim {
			return fmt.Errorf("verdict on an edge that is not a supports edge from a source into a claim: %w", claimtrace.ErrInvalid)
		}
	}
	return nil
}

// check reports a stored operation whose payload does not match its kind.
func (o *op) check() error {
	ok := false
	switch o.Kind {
	case opOpen:
		ok = o.Open != nil && o.Seq == 0
	case opClose:
		ok = true
	case opSource:
		ok = o.Source != nil
	case opReasoning:
		ok = o.Reasoning != nil
	case opClaim:
		ok = o.Claim != nil
	case opEdge:
		ok = o.Edge != nil
	case opWithdraw:
		ok = o.Withdraw != ""
	}
	if !ok || (o.Kind != opOpen && o.Seq == 0) {
		return fmt.Errorf("malformed %q operation: %w", o.Kind, claimtrace.ErrInvalid)
	}
	return nil
}

// info describes the session; ss.mu is held.
func (ss *session) info(tau float64) *SessionInfo {
	g := ss.g
	info := &SessionInfo{
		ID: ss.id, Query: ss.query, Agent: ss.agent, Created: ss.created, Updated: ss.updated, Closed: ss.closed, Tau: tau,
		Sources: len(g.Sources), Reasoning: len(g.Reasoning), Claims: len(g.Claims), Edges: len(g.Edges),
	}
	ix, err := index(g)
	if err != nil {
		return info // the session's graph is always valid
	}
	if m, err := ix.Metrics(tau); err == nil {
		for _, c := range m.PerClaim {
			if gatedBy(c) {
				info.Gated++
			}
		}
	}
	return info
}

// gatedBy applies the gate to a claim's metrics: incomplete provenance, or
// no direct source support with ν > τ (none at all included).
func gatedBy(c prov.ClaimMetrics) bool { return !c.Complete || c.PSnd.Num == 0 }

// index validates g against the AAR rules and indexes it, without the
// sources' excerpts: the rules do not read them, and counting the words of
// every excerpt on every operation would make one operation cost as much as
// all the text of the session. Paths of this index have no excerpts and
// count no words; ss.words has them.
func index(g *prov.Graph) (*prov.Index, error) {
	h := *g
	h.Sources = make([]prov.Source, len(g.Sources))
	for i, s := range g.Sources {
		s.Excerpt = ""
		h.Sources[i] = s
	}
	return prov.NewIndex(&h)
}

// figures are the measures of the claim of path p (from index), with the
// reading load of its sources; ss.mu is held.
func (ss *session) figures(p *prov.Path) ClaimFigures {
	f := claimFigures(p.Metrics)
	f.Words = 0
	for _, s := range p.Sources {
		f.Words += ss.sources[s.ID].words
	}
	return f
}
