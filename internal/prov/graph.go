package prov

import (
	"fmt"
	"time"

	"github.com/claimtrace/claimtrace"
)

// FormatVersion is the value of the "format" key the encoder writes into a
// native graph document; the decoder accepts documents without it.
const FormatVersion = "aar-graph/1"

// DefaultTau is the entailment threshold τ of provenance soundness: a
// citation pair counts as sound when its strength ν is strictly above it.
const DefaultTau = 0.5

// Graph is the semantic provenance graph G_q = (V, E) of one report (AAR
// §4.3): sources S_q, reasoning steps R_q and claims C_q joined by typed
// edges, plus the contradictions between sources that an auditor found (the
// set K of contradiction transparency).
//
// Node ids are unique across the three node kinds. The order of the slices
// carries no meaning beyond presentation (claims usually in document order).
type Graph struct {
	// Format is FormatVersion in documents written by this package.
	Format string `json:"format,omitempty"`
	// ID names the report the graph belongs to (a task id, a file name).
	ID string `json:"id,omitempty"`
	// Query is the research question q the report answers.
	Query string `json:"query,omitempty"`
	// Agent names the system that wrote the report (a model or product).
	Agent string `json:"agent,omitempty"`

	Sources   []Source    `json:"sources"`
	Reasoning []Reasoning `json:"reasoning,omitempty"`
	Claims    []Claim     `json:"claims"`
	Edges     []Edge      `json:"edges"`
	// Conflicts are pairs of sources that contradict each other about one
	// entity, as found by an auditor (offline detector, LLM, or a person).
	// Whether the graph surfaces each of them is computed, never stored.
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// Source is external evidence retrieved for the query (AAR definition 5):
// (id, DOI/URL, excerpt, timestamp). Sources have no incoming edges.
type Source struct {
	ID string `json:"id"`
	// Key is the cross-report identity of the work (claimtrace.Work.Key:
	// "arxiv:…", "doi:…", "url:…", "title:…"), used to find the same source
	// in many reports.
	Key   string `json:"key,omitempty"`
	URL   string `json:"url,omitempty"`
	DOI   string `json:"doi,omitempty"`
	Title string `json:"title,omitempty"`
	// Excerpt is the quoted passage a reader checks the claims against.
	Excerpt string `json:"excerpt,omitempty"`
	// RetrievedAt is when the source was fetched (UTC); zero when unknown.
	RetrievedAt time.Time `json:"retrieved_at,omitzero"`
	// Resolved is true when the source has fetched content or a verified
	// identifier. Provenance through an unresolved source is not complete.
	Resolved bool `json:"resolved"`
}

// Identity returns the cross-report identity of the source: its Key, else
// its DOI, else its URL, else "" (a source known only by its graph-local id
// has no identity outside its graph).
func (s Source) Identity() string {
	switch {
	case s.Key != "":
		return s.Key
	case s.DOI != "":
		return "doi:" + s.DOI
	case s.URL != "":
		return "url:" + s.URL
	}
	return ""
}

// ReasoningType is the kind of inference a reasoning node performs.
type ReasoningType string

// Reasoning types of AAR definition 6. The empty type means "not recorded"
// (graphs imported from foreign PROV documents); any other value is invalid.
const (
	Deduction ReasoningType = "deduction"
	Induction ReasoningType = "induction"
	Synthesis ReasoningType = "synthesis"
)

// Reasoning is an intermediate inference step (AAR definition 6):
// (id, inference, type, model).
type Reasoning struct {
	ID        string        `json:"id"`
	Inference string        `json:"inference,omitempty"`
	Type      ReasoningType `json:"type,omitempty"`
	// Model identifies the LLM that made the inference.
	Model string `json:"model,omitempty"`
}

// Claim is a factual assertion of the report (AAR definition 7):
// (id, statement, location). Claims have no outgoing edges.
type Claim struct {
	ID        string   `json:"id"`
	Statement string   `json:"statement"`
	Location  Location `json:"location,omitzero"`
}

// Location is where a claim sits in the report: a byte span of the report
// text as UTF-8 (End 0 means no span recorded) and an optional
// human-readable place such as "section 2, paragraph 3".
type Location struct {
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Section string `json:"section,omitempty"`
}

// Relation is the type of an edge (AAR definition 8).
type Relation uint8

// Edge relations. The zero value is not a relation, so a forgotten field is
// caught by validation.
const (
	Supports Relation = iota + 1
	Contradicts
	Refines
	Prerequisite
)

var relationNames = [...]string{Supports: "supports", Contradicts: "contradicts", Refines: "refines", Prerequisite: "prerequisite"}

// String returns the relation's name as written in the JSON format.
func (r Relation) String() string {
	if r >= Supports && r <= Prerequisite {
		return relationNames[r]
	}
	return fmt.Sprintf("relation(%d)", uint8(r))
}

// ParseRelation returns the relation named s.
func ParseRelation(s string) (Relation, error) {
	for r := Supports; r <= Prerequisite; r++ {
		if relationNames[r] == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("relation %q: want supports, contradicts, refines or prerequisite: %w", s, claimtrace.ErrInvalid)
}

// MarshalText writes the relation's name.
func (r Relation) MarshalText() ([]byte, error) {
	if r < Supports || r > Prerequisite {
		return nil, fmt.Errorf("marshal %v: %w", r, claimtrace.ErrInvalid)
	}
	return []byte(relationNames[r]), nil
}

// UnmarshalText reads a relation's name.
func (r *Relation) UnmarshalText(b []byte) error {
	v, err := ParseRelation(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Edge is a typed edge (u, v, rel, ν) from From to To. Strength is ν, the
// entailment strength in [0, 1], and exists only on supports edges; nil
// means unknown, which never counts as sound.
type Edge struct {
	From     string           `json:"from"`
	To       string           `json:"to"`
	Rel      Relation         `json:"rel"`
	Strength *float64         `json:"strength,omitempty"`
	Label    claimtrace.Label `json:"label,omitempty"`
	// Evidence is the passage of the source the judge relied on.
	Evidence string `json:"evidence,omitempty"`
}

// Nu returns a pointer to v, for writing edge strengths in literals.
func Nu(v float64) *float64 { return &v }

// ConflictKind says what kind of disagreement a conflict is.
type ConflictKind string

// Conflict kinds found by the offline detector; other detectors may use
// their own names (an LLM detector reports "entailment").
const (
	ConflictNumber   ConflictKind = "number"   // different quantities for the same thing
	ConflictPolarity ConflictKind = "polarity" // one source asserts what the other negates
)

// Conflict is one element (s_i, s_j, e) of K: two sources making
// contradictory statements about entity e.
type Conflict struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Entity string `json:"entity"`
	// SnippetA and SnippetB are the conflicting sentences of A and B.
	SnippetA string       `json:"snippet_a,omitempty"`
	SnippetB string       `json:"snippet_b,omitempty"`
	Kind     ConflictKind `json:"kind,omitempty"`
	// Detector names what found the conflict ("offline", a model, "agent").
	Detector string `json:"detector,omitempty"`
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	c := *g
	c.Sources = append([]Source(nil), g.Sources...)
	c.Reasoning = append([]Reasoning(nil), g.Reasoning...)
	c.Claims = append([]Claim(nil), g.Claims...)
	c.Edges = make([]Edge, len(g.Edges))
	for i, e := range g.Edges {
		if e.Strength != nil {
			e.Strength = Nu(*e.Strength)
		}
		c.Edges[i] = e
	}
	c.Conflicts = append([]Conflict(nil), g.Conflicts...)
	return &c
}
