package live

import (
	"fmt"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Codes of the reasons a claim is gated, and of the warnings beside them.
const (
	// ReasonNoSource: no source has a path to the claim.
	ReasonNoSource = "no_source"
	// ReasonUnresolvedSource: a source on the claim's path has no text
	// (no excerpt, and fetching was disabled or failed).
	ReasonUnresolvedSource = "unresolved_source"
	// ReasonReasoningNoInput: a reasoning step on the claim's path has no
	// input.
	ReasonReasoningNoInput = "reasoning_no_input"
	// ReasonNoDirectSupport: no supports edge runs from a source straight
	// into the claim, so nothing verified it.
	ReasonNoDirectSupport = "no_direct_support"
	// ReasonUnsupported: every direct source support has ν ≤ τ.
	ReasonUnsupported = "unsupported"

	// WarnContradicted: a source the claim cites was judged to contradict it.
	WarnContradicted = "contradicted"
	// WarnUnknown: a source could not be judged (no text, or too little).
	WarnUnknown = "unknown"
	// WarnWeak: a direct support has ν ≤ τ while another one is sound.
	WarnWeak = "weak_support"
)

// Gate is the decision on one claim. A gated claim is recorded, but the
// agent should not write it as it stands: Reasons say why and what to do.
type Gate struct {
	Gated    bool     `json:"gated"`
	Reasons  []Reason `json:"reasons,omitempty"`
	Warnings []Reason `json:"warnings,omitempty"`
}

// Reason is one reason for a gate decision, or a warning.
type Reason struct {
	// Code is one of the Reason* or Warn* constants.
	Code string `json:"code"`
	// Node is the node the reason is about, when there is one.
	Node   string `json:"node,omitempty"`
	Detail string `json:"detail"`
}

// Verdict is the judge's verdict on one supports edge from a source straight
// into a claim.
type Verdict struct {
	Source string           `json:"source"`
	URL    string           `json:"url,omitempty"`
	Label  claimtrace.Label `json:"label"`
	// Strength is ν, null when the source could not be judged.
	Strength *float64 `json:"strength"`
	// Sound is ν > τ.
	Sound bool `json:"sound"`
	// Evidence is the passage of the source the judge relied on, verbatim.
	Evidence string `json:"evidence,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Judge    string `json:"judge,omitempty"`
}

// ClaimFigures are the AAR measures of one claim.
type ClaimFigures struct {
	ID string `json:"id"`
	// Complete: π(c) holds a source, every source in it is resolved and
	// every reasoning step in it has an input.
	Complete bool `json:"complete"`
	// Gap says why not ("no source", "unresolved source", "reasoning
	// without input") and GapNode names the first offending node.
	Gap     string `json:"gap,omitempty"`
	GapNode string `json:"gap_node,omitempty"`
	// Sources and Reasoning are |S_c| and |R_c|; Nodes, their sum, is the
	// AEff proxy; Words is the reading load of the excerpts of S_c.
	Sources   int `json:"sources"`
	Reasoning int `json:"reasoning"`
	Nodes     int `json:"nodes"`
	Words     int `json:"words"`
	// CitationPairs counts the direct source supports, SoundPairs those
	// with ν > τ.
	CitationPairs int `json:"citation_pairs"`
	SoundPairs    int `json:"sound_pairs"`
}

func claimFigures(m prov.ClaimMetrics) ClaimFigures {
	f := ClaimFigures{
		ID: m.ID, Complete: m.Complete, GapNode: m.GapNode, Sources: m.Sources, Reasoning: m.Reasoning,
		Nodes: m.Nodes, Words: m.Words, CitationPairs: m.PSnd.Den, SoundPairs: m.PSnd.Num,
	}
	if !m.Complete {
		f.Gap = m.Gap.String()
	}
	return f
}

// assessment is everything the service says about one claim.
type assessment struct {
	path     *prov.Path
	gate     Gate
	verdicts []Verdict
}

// assess gates the claim with id in the graph indexed by ix; ss.mu is held
// (or ss is a private copy).
func (ss *session) assess(ix *prov.Index, id string, tau float64) (*assessment, error) {
	p, err := ix.Path(id, tau)
	if err != nil {
		return nil, err
	}
	a := &assessment{path: p}
	g := &a.gate
	isSource := make(map[string]bool, len(p.Sources))
	for _, s := range p.Sources {
		isSource[s.ID] = true
	}
	hasInput := make(map[string]bool)
	for _, e := range p.Edges {
		hasInput[e.To] = true
	}
	if len(p.Sources) == 0 {
		g.add(ReasonNoSource, "", "no source has a path to the claim: name the sources it rests on in supports")
	}
	for _, s := range p.Sources {
		if !s.Resolved {
			g.add(ReasonUnresolvedSource, s.ID, fmt.Sprintf("source %q has no text to check the claim against: %s", s.ID, ss.unresolvedWhy(s.ID)))
		}
	}
	for _, r := range p.Reasoning {
		if !hasInput[r.ID] {
			g.add(ReasonReasoningNoInput, r.ID, fmt.Sprintf("reasoning step %q has no input: add a supports edge from the sources or steps it uses", r.ID))
		}
	}
	type weakEdge struct{ node, text string }
	var weak []weakEdge
	sound := 0
	for _, e := range p.Edges {
		if e.To != id || e.Rel != prov.Supports || !isSource[e.From] {
			continue
		}
		v := ss.verdict(e, tau)
		a.verdicts = append(a.verdicts, v)
		switch {
		case v.Sound:
			sound++
		case v.Label == claimtrace.Unknown:
			weak = append(weak, weakEdge{v.Source, fmt.Sprintf("%s: not judged (%s)", v.Source, v.Reason)})
		default:
			weak = append(weak, weakEdge{v.Source, fmt.Sprintf("%s: %s, ν %.2f ≤ τ %.2f", v.Source, v.Label, deref(v.Strength), tau)})
		}
		if v.Label == claimtrace.Contradicted {
			g.warn(WarnContradicted, v.Source, fmt.Sprintf("source %q contradicts the claim: %q", v.Source, v.Evidence))
		}
		if v.Label == claimtrace.Unknown {
			g.warn(WarnUnknown, v.Source, fmt.Sprintf("source %q could not be judged: %s", v.Source, v.Reason))
		}
	}
	switch {
	case len(a.verdicts) == 0:
		g.add(ReasonNoDirectSupport, "", "no source supports the claim directly, so nothing verified it: list in supports the sources it rests on, even when a reasoning step explains the inference")
	case sound == 0:
		texts := make([]string, len(weak))
		for i, w := range weak {
			texts[i] = w.text
		}
		g.add(ReasonUnsupported, "", fmt.Sprintf("no cited source supports the claim with ν > τ (%s): revise the statement to what the sources say, or cite a source that says it", strings.Join(texts, "; ")))
	default:
		for _, w := range weak {
			g.warn(WarnWeak, w.node, "weak or unjudged support beside a sound one: "+w.text)
		}
	}
	g.Gated = len(g.Reasons) > 0
	return a, nil
}

func (g *Gate) add(code, node, detail string) {
	g.Reasons = append(g.Reasons, Reason{Code: code, Node: node, Detail: detail})
}

func (g *Gate) warn(code, node, detail string) {
	g.Warnings = append(g.Warnings, Reason{Code: code, Node: node, Detail: detail})
}

// verdict describes the judged edge e (a supports edge from a source into a
// claim).
func (ss *session) verdict(e prov.Edge, tau float64) Verdict {
	v := Verdict{Source: e.From, Label: e.Label, Strength: e.Strength, Evidence: e.Evidence}
	if v.Label == "" {
		v.Label = claimtrace.Unknown
	}
	if full, ok := ss.verdicts[edgeKey{e.From, e.To}]; ok {
		v.URL, v.Reason, v.Judge = full.URL, full.Reason, full.Judge
	}
	v.Sound = e.Strength != nil && *e.Strength > tau
	return v
}

// unresolvedWhy says why a source has no text.
func (ss *session) unresolvedWhy(id string) string {
	st := ss.sources[id]
	f := st.fetch
	switch {
	case f == nil:
		return "it was recorded without an excerpt and fetching is disabled (claimtrace mcp --allow-fetch) or it has no URL or DOI; add it again as a new source with the excerpt you read, and cite that"
	case f.Error != "":
		return "fetching it failed (" + f.Error + "); add it again as a new source with the excerpt you read, and cite that"
	case f.Wall != "":
		return "the fetched page is a " + strings.ReplaceAll(f.Wall, "_", " ") + ", not the cited content; add it again as a new source with the excerpt you read, and cite that"
	case f.Status < 200 || f.Status > 299:
		return fmt.Sprintf("fetching it answered HTTP %d; add it again as a new source with the excerpt you read, and cite that", f.Status)
	}
	return "its fetched page has no readable text; add it again as a new source with the excerpt you read, and cite that"
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
