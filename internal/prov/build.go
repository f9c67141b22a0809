package prov

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
)

// ResolvedSource is what the pipeline learned about the target of one
// citation: the work it identifies, and optionally the quoted excerpt and
// when the content was retrieved.
type ResolvedSource struct {
	Work        claimtrace.Work
	Excerpt     string
	RetrievedAt time.Time
}

// Pair names one (claim, source) pair: the claim's index in
// Document.Claims and the source's key (Work.Key, or CitationKey for a
// citation that resolved to no work).
type Pair struct {
	Claim int
	Work  string
}

// Input is what Build turns into a graph: a parsed report, what each
// citation resolved to, and the verdicts on (claim, source) pairs.
type Input struct {
	ID, Query, Agent string
	Doc              claimtrace.Document
	// Sources maps a citation's index in Doc.Citations to its resolved
	// source. A citation missing here becomes an unresolved source.
	Sources map[int]ResolvedSource
	// Verdicts holds the judgement of each judged (claim, source) pair.
	Verdicts map[Pair]claimtrace.Verdict
}

// CitationKey returns the identity the builder gives a citation that did not
// resolve to a work: its URL, DOI, arXiv id or title, else its marker.
func CitationKey(c claimtrace.Citation) string {
	switch {
	case c.URL != "":
		return "url:" + c.URL
	case c.DOI != "":
		return "doi:" + strings.ToLower(c.DOI)
	case c.ArXivID != "":
		return "arxiv:" + c.ArXivID
	case c.Title != "":
		return "title:" + strings.ToLower(c.Title)
	}
	return "marker:" + c.Marker
}

// Build makes the provenance graph of a report from the pipeline's records.
// It is a pure function of its input:
//
//   - every distinct cited work becomes a source s1, s2, … in order of first
//     citation; citations that resolved to no work (dead links, dangling
//     markers) become unresolved sources, so claims citing them are not
//     complete;
//   - every claim becomes a claim node (its id, or c<n> when empty) spanning
//     its bytes of the report;
//   - every (claim, cited source) pair becomes one supports edge carrying the
//     verdict's label, evidence and strength ν; a pair without a verdict, or
//     with the label unknown, has no strength, which never counts as sound.
//
// Reports carry no reasoning nodes; agents that record them submit their own
// graph in the native format.
func Build(in Input) (*Graph, error) {
	g := &Graph{Format: FormatVersion, ID: in.ID, Query: in.Query, Agent: in.Agent,
		Sources: []Source{}, Claims: make([]Claim, 0, len(in.Doc.Claims)), Edges: []Edge{}}
	keyOf := make([]string, len(in.Doc.Citations))
	srcOf := make(map[string]int) // key → index in g.Sources
	for i, c := range in.Doc.Citations {
		rs, ok := in.Sources[i]
		key := rs.Work.Key
		if !ok || key == "" {
			key = CitationKey(c)
		}
		keyOf[i] = key
		if k, dup := srcOf[key]; dup {
			if g.Sources[k].Excerpt == "" && rs.Excerpt != "" {
				g.Sources[k].Excerpt = rs.Excerpt
			}
			if g.Sources[k].RetrievedAt.IsZero() && !rs.RetrievedAt.IsZero() {
				g.Sources[k].RetrievedAt = rs.RetrievedAt.UTC()
			}
			continue
		}
		s := Source{ID: "s" + strconv.Itoa(len(g.Sources)+1), Key: key,
			URL: c.URL, DOI: c.DOI, Title: c.Title, Excerpt: rs.Excerpt}
		if ok {
			w := rs.Work
			s.Resolved = w.Resolved && w.Key != ""
			if w.URL != "" {
				s.URL = w.URL
			}
			if w.DOI != "" {
				s.DOI = w.DOI
			}
			if w.Title != "" {
				s.Title = w.Title
			}
			if !rs.RetrievedAt.IsZero() {
				s.RetrievedAt = rs.RetrievedAt.UTC()
			}
		}
		srcOf[key] = len(g.Sources)
		g.Sources = append(g.Sources, s)
	}

	used := make(map[Pair]bool, len(in.Verdicts))
	for ci, c := range in.Doc.Claims {
		id := c.ID
		if id == "" {
			id = "c" + strconv.Itoa(ci+1)
		}
		g.Claims = append(g.Claims, Claim{ID: id, Statement: c.Text, Location: Location{Start: c.Start, End: c.End}})
		linked := make(map[string]bool, len(c.Citations))
		for _, k := range c.Citations {
			if k < 0 || k >= len(in.Doc.Citations) {
				return nil, fmt.Errorf("claim %q cites citation %d of %d: %w", id, k, len(in.Doc.Citations), claimtrace.ErrInvalid)
			}
			key := keyOf[k]
			if linked[key] {
				continue
			}
			linked[key] = true
			e := Edge{From: g.Sources[srcOf[key]].ID, To: id, Rel: Supports}
			p := Pair{Claim: ci, Work: key}
			if v, ok := in.Verdicts[p]; ok {
				used[p] = true
				e.Label, e.Evidence = v.Label, v.Evidence
				if v.Label != claimtrace.Unknown && v.Label != "" {
					if math.IsNaN(v.Strength) || v.Strength < 0 || v.Strength > 1 {
						return nil, fmt.Errorf("verdict on claim %q and %s: strength %v outside [0, 1]: %w", id, key, v.Strength, claimtrace.ErrInvalid)
					}
					e.Strength = Nu(v.Strength)
				}
			}
			g.Edges = append(g.Edges, e)
		}
	}
	var stray []Pair
	for p := range in.Verdicts {
		if !used[p] {
			stray = append(stray, p)
		}
	}
	if len(stray) > 0 {
		p := slices.MinFunc(stray, func(a, b Pair) int {
			return cmp.Or(cmp.Compare(a.Claim, b.Claim), strings.Compare(a.Work, b.Work))
		})
		return nil, fmt.Errorf("verdict on claim %d and %s (and %d more): the claim does not cite that source: %w", p.Claim, p.Work, len(stray)-1, claimtrace.ErrInvalid)
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}
