package live

import (
	"fmt"

	"github.com/claimtrace/claimtrace/internal/prov"
)

// Limits bound what one session may hold, so that one agent (or one leaked
// token) cannot grow a session until reading it exhausts the server's
// memory. A write that would pass a limit is refused with a *LimitError
// (HTTP 422) and changes nothing. Zero fields take DefaultLimits.
type Limits struct {
	// Sources caps a session's sources.
	Sources int
	// Claims caps a session's claims, and its reasoning steps apart.
	Claims int
	// Edges caps a session's edges.
	Edges int
	// Bytes caps the text recorded over a session's life: excerpts,
	// fetched text, titles and URLs, statements and inferences, revisions
	// included (the stored log keeps them all).
	Bytes int64

	// Sessions caps the open (not closed) sessions of the store, in all;
	// SessionsPerOwner caps those opened by one owner (one token). Closing
	// a session frees its place.
	Sessions         int
	SessionsPerOwner int
	// MemoryBytes is the memory the sessions in memory may take, as
	// estimated from their text and size: past it, sessions not in use
	// leave memory, least recently used first, and are replayed from the
	// store when used again. One session larger than it still loads.
	MemoryBytes int64
}

// DefaultLimits are generous for one report (a deep-research report cites
// tens to a few hundred sources) and keep a session's graph within tens of
// megabytes.
func DefaultLimits() Limits {
	return Limits{Sources: 1000, Claims: 5000, Edges: 50000, Bytes: 32 << 20, Sessions: 1000, SessionsPerOwner: 100, MemoryBytes: 256 << 20}
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.Sources <= 0 {
		l.Sources = d.Sources
	}
	if l.Claims <= 0 {
		l.Claims = d.Claims
	}
	if l.Edges <= 0 {
		l.Edges = d.Edges
	}
	if l.Bytes <= 0 {
		l.Bytes = d.Bytes
	}
	if l.Sessions <= 0 {
		l.Sessions = d.Sessions
	}
	if l.SessionsPerOwner <= 0 {
		l.SessionsPerOwner = d.SessionsPerOwner
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	return l
}

// Names of the limits, as the configuration spells them ([live] table).
const (
	LimitSources = "max_sources"
	LimitClaims  = "max_claims"
	LimitEdges   = "max_edges"
	LimitBytes   = "max_session_bytes"

	LimitOpenSessions         = "max_open_sessions"
	LimitOpenSessionsPerToken = "max_open_sessions_per_token"
	LimitMemory               = "max_memory_bytes"
)

// LimitError is a write refused because the session would pass a limit.
type LimitError struct {
	Session string
	// Limit names the limit (LimitSources, …) and Max is its value.
	Limit string
	Max   int64
	what  string
}

func (e *LimitError) Error() string {
	advice := "start another session"
	if e.Limit == LimitOpenSessions || e.Limit == LimitOpenSessionsPerToken {
		advice = "close sessions whose report is final"
	}
	return fmt.Sprintf("session %q: %s: the limit %s is %d; %s, or have the server's operator raise %s under [live] in claimtrace's config",
		e.Session, e.what, e.Limit, e.Max, advice, e.Limit)
}

// check refuses o when it grows the session past a limit; g is the graph
// after o. ss.mu is held.
func (l Limits) check(ss *session, o *op, g *prov.Graph) error {
	for _, c := range []struct {
		limit         string
		before, after int
		max           int
		what          string
	}{
		{LimitSources, len(ss.g.Sources), len(g.Sources), l.Sources, "sources"},
		{LimitClaims, len(ss.g.Claims), len(g.Claims), l.Claims, "claims"},
		{LimitClaims, len(ss.g.Reasoning), len(g.Reasoning), l.Claims, "reasoning steps"},
		{LimitEdges, len(ss.g.Edges), len(g.Edges), l.Edges, "edges"},
	} {
		if c.after > c.before && c.after > c.max {
			return &LimitError{Session: ss.id, Limit: c.limit, Max: int64(c.max), what: fmt.Sprintf("%d %s would pass the most a session may hold", c.after, c.what)}
		}
	}
	if n := o.bytes(); n > 0 && ss.bytes+n > l.Bytes {
		return &LimitError{Session: ss.id, Limit: LimitBytes, Max: l.Bytes, what: fmt.Sprintf("%d more bytes of text on the %d recorded would pass the most a session may hold", n, ss.bytes)}
	}
	return nil
}

// full refuses early, before anything is fetched or judged, a source or
// claim the session has no room for. ss.mu is held.
func (l Limits) full(ss *session, kind opKind) error {
	switch {
	case kind == opSource && len(ss.g.Sources) >= l.Sources:
		return &LimitError{Session: ss.id, Limit: LimitSources, Max: int64(l.Sources), what: "the session holds the most sources it may"}
	case kind == opClaim && len(ss.g.Claims) >= l.Claims:
		return &LimitError{Session: ss.id, Limit: LimitClaims, Max: int64(l.Claims), what: "the session holds the most claims it may"}
	}
	if ss.bytes >= l.Bytes {
		return &LimitError{Session: ss.id, Limit: LimitBytes, Max: l.Bytes, what: "the session holds the most text it may"}
	}
	return nil
}

// bytes is the text o records.
func (o *op) bytes() int64 {
	switch o.Kind {
	case opSource:
		s := o.Source.Source
		return int64(len(s.Excerpt) + len(o.Source.Text) + len(s.Title) + len(s.URL) + len(s.DOI))
	case opClaim:
		return int64(len(o.Claim.Claim.Statement) + len(o.Claim.Claim.Location.Section))
	case opReasoning:
		return int64(len(o.Reasoning.Reasoning.Inference) + len(o.Reasoning.Reasoning.Model))
	case opOpen:
		return int64(len(o.Open.Query) + len(o.Open.Agent))
	}
	return 0
}
