package live

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
	"github.com/claimtrace/claimtrace/internal/prov/provjson"
)

// Graph returns a copy of session id's provenance graph.
func (s *Service) Graph(ctx context.Context, id string) (*prov.Graph, error) {
	g, _, err := s.snapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	return g.Clone(), nil
}

// snapshot returns the session's current graph (never modified afterwards:
// operations replace it) and the session.
func (s *Service) snapshot(ctx context.Context, id string) (*prov.Graph, *session, error) {
	ss, err := s.locked(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	defer ss.mu.Unlock()
	return ss.g, ss, nil
}

// MetricsResult are the AAR metrics of a session's graph as it stands, in
// the shape every output writes them (prov.Figures: ratios null when
// undefined, the counts behind them, the conflicts K and whether the graph
// surfaces each), with the claims the gate holds back.
type MetricsResult struct {
	Session string `json:"session"`
	prov.Figures
	// Gated lists the claims the gate holds back, with the reasons.
	Gated    []GatedClaim   `json:"gated"`
	PerClaim []ClaimFigures `json:"per_claim,omitempty"`
}

// Counts are the numerators and denominators behind the ratios.
type Counts = prov.Counts

// GatedClaim is a claim the gate holds back.
type GatedClaim struct {
	ID        string   `json:"id"`
	Statement string   `json:"statement"`
	Reasons   []Reason `json:"reasons"`
}

// Metrics computes PCov, PSnd, CTran and the AEff proxy of session id with
// the service's τ, and lists the gated claims.
func (s *Service) Metrics(ctx context.Context, id string) (*MetricsResult, error) {
	ss, err := s.locked(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	ix, err := prov.NewIndex(ss.g)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	m, err := ix.Metrics(s.tau)
	if err != nil {
		return nil, err
	}
	out := &MetricsResult{
		Session:  id,
		Figures:  m.Figures(),
		Gated:    []GatedClaim{},
		PerClaim: make([]ClaimFigures, len(m.PerClaim)),
	}
	for i, c := range m.PerClaim {
		out.PerClaim[i] = claimFigures(c)
		if !gatedBy(c) {
			continue
		}
		a, err := ss.assess(ix, c.ID, s.tau)
		if err != nil {
			return nil, err
		}
		out.Gated = append(out.Gated, GatedClaim{ID: c.ID, Statement: ss.g.Claims[i].Statement, Reasons: a.gate.Reasons})
	}
	return out, nil
}

// Why is a claim's provenance path π(c) laid out for a reader, with the
// verdicts on its direct sources and the gate's decision.
type Why struct {
	Session string     `json:"session"`
	Claim   prov.Claim `json:"claim"`
	Gate
	Verdicts  []Verdict             `json:"verdicts"`
	Figures   ClaimFigures          `json:"figures"`
	Sources   []SourceView          `json:"sources"`
	Reasoning []prov.Reasoning      `json:"reasoning"`
	Edges     []EdgeView            `json:"edges"`
	Conflicts []prov.ConflictStatus `json:"conflicts,omitempty"`
}

// Why explains claim claimID of session id: the sources and reasoning
// steps with a path to it, the edges among them, the verdicts and the gate.
func (s *Service) Why(ctx context.Context, id, claimID string) (*Why, error) {
	if err := checkID("claim", claimID); err != nil {
		return nil, fmt.Errorf("why: %w", err)
	}
	ss, err := s.locked(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	if kind, ok := ss.kindOf(claimID); !ok || kind != prov.KindClaim {
		return nil, fmt.Errorf("why: no claim %q in session %s: %w", claimID, id, claimtrace.ErrNotFound)
	}
	ix, err := index(ss.g)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	a, err := ss.assess(ix, claimID, s.tau)
	if err != nil {
		return nil, err
	}
	p := a.path
	w := &Why{Session: id, Claim: p.Claim, Gate: a.gate, Verdicts: orEmpty(a.verdicts), Figures: ss.figures(p),
		Sources: []SourceView{}, Reasoning: orEmpty(p.Reasoning), Edges: []EdgeView{}, Conflicts: p.Conflicts}
	for _, src := range p.Sources {
		w.Sources = append(w.Sources, ss.sourceView(src, true))
	}
	for _, e := range p.Edges {
		w.Edges = append(w.Edges, edgeView(e))
	}
	return w, nil
}

// PROV formats.
const (
	FormatPROVJSON   = "prov-json"
	FormatPROVJSONLD = "prov-jsonld"
)

// PROV exports session id as W3C PROV-JSON (FormatPROVJSON, the default
// for "") or PROV-JSONLD.
func (s *Service) PROV(ctx context.Context, id, format string) ([]byte, error) {
	encode, err := provEncoder(format)
	if err != nil {
		return nil, err
	}
	g, _, err := s.snapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := encode(&buf, g); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return buf.Bytes(), nil
}

// provEncoder returns the streaming encoder of a PROV format.
func provEncoder(format string) (func(io.Writer, *prov.Graph) error, error) {
	switch format {
	case "", FormatPROVJSON:
		return provjson.Encode, nil
	case FormatPROVJSONLD:
		return provjson.EncodeLD, nil
	}
	return nil, fmt.Errorf("format %q: want %s or %s: %w", format, FormatPROVJSON, FormatPROVJSONLD, claimtrace.ErrInvalid)
}
