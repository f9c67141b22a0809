// Package importer turns the citation output that model providers already
// return (OpenAI url_citation annotations, Gemini groundingMetadata,
// Anthropic citations, Perplexity [n] markers with search_results) into a
// report text, its claims and citations with exact byte spans, and a
// provenance graph.
//
// The graph records what the provider asserts, nothing more: every source
// is unresolved (nothing was fetched or verified here) and edges carry a
// strength only where the provider gives one (Gemini confidenceScores).
// Auditing the graph — fetching sources, judging support — is the eval
// pipeline's job. Claims are the spans the provider attributed; the rest of
// the text is not split into claims.
package importer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Result is a provider response as a report: its text, the claims and
// citations found in it (byte spans into Text), and the provenance graph.
type Result struct {
	Provider string              `json:"provider"`
	Model    string              `json:"model,omitempty"`
	Text     string              `json:"text"`
	Doc      claimtrace.Document `json:"document"`
	Graph    *prov.Graph         `json:"graph"`
}

// Providers lists the names Import accepts.
var Providers = []string{"openai", "gemini", "anthropic", "perplexity"}

// Import reads a response of the named provider.
func Import(provider string, data []byte) (*Result, error) {
	switch provider {
	case "openai":
		return OpenAI(data)
	case "gemini":
		return Gemini(data)
	case "anthropic":
		return Anthropic(data)
	case "perplexity":
		return Perplexity(data)
	}
	return nil, fmt.Errorf("provider %q: want one of %s: %w", provider, strings.Join(Providers, ", "), claimtrace.ErrInvalid)
}

// decode unmarshals a provider response, naming the provider on failure.
func decode(provider string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s response: %v: %w", provider, err, claimtrace.ErrInvalid)
	}
	return nil
}

// cite is one attribution found in a response: a claim span, a marker span
// (zero-length when the provider has no inline marker) and its target.
type cite struct {
	claimStart, claimEnd int
	markStart, markEnd   int
	marker               string
	kind                 claimtrace.CitationKind
	url, title           string
	key                  string // source identity when there is no URL
	excerpt              string // quoted source text, if the provider gives it
	strength             *float64
}

// assembler collects cites and builds the Result.
type assembler struct {
	provider, model string
	text            string
	at              time.Time
	cites           []cite
}

// sourceKey is the identity of a cite's target.
func (c cite) sourceKey() string {
	switch {
	case c.url != "":
		return "url:" + c.url
	case c.key != "":
		return c.key
	}
	return "marker:" + c.marker
}

func (a *assembler) result() (*Result, error) {
	slices.SortStableFunc(a.cites, func(x, y cite) int {
		if x.markStart != y.markStart {
			return x.markStart - y.markStart
		}
		return x.claimStart - y.claimStart
	})
	r := &Result{Provider: a.provider, Model: a.model, Text: a.text}
	r.Doc.Text = a.text
	g := &prov.Graph{Format: prov.FormatVersion, Agent: a.model, Sources: []prov.Source{}, Claims: []prov.Claim{}, Edges: []prov.Edge{}}

	// Claims in text order, one per distinct span.
	type span struct{ s, e int }
	var spans []span
	for _, c := range a.cites {
		if c.claimStart < 0 || c.claimEnd > len(a.text) || c.claimStart >= c.claimEnd {
			return nil, fmt.Errorf("%s: claim span [%d, %d) outside text of %d bytes: %w", a.provider, c.claimStart, c.claimEnd, len(a.text), claimtrace.ErrInvalid)
		}
		if c.markStart < 0 || c.markEnd > len(a.text) || c.markStart > c.markEnd {
			return nil, fmt.Errorf("%s: marker span [%d, %d) outside text of %d bytes: %w", a.provider, c.markStart, c.markEnd, len(a.text), claimtrace.ErrInvalid)
		}
		spans = append(spans, span{c.claimStart, c.claimEnd})
	}
	slices.SortFunc(spans, func(x, y span) int {
		if x.s != y.s {
			return x.s - y.s
		}
		return x.e - y.e
	})
	spans = slices.Compact(spans)
	claimOf := make(map[span]int, len(spans))
	for i, sp := range spans {
		id := "c" + strconv.Itoa(i+1)
		claimOf[sp] = i
		r.Doc.Claims = append(r.Doc.Claims, claimtrace.Claim{ID: id, Text: a.text[sp.s:sp.e], Start: sp.s, End: sp.e, Citations: []int{}})
		g.Claims = append(g.Claims, prov.Claim{ID: id, Statement: a.text[sp.s:sp.e], Location: prov.Location{Start: sp.s, End: sp.e}})
	}

	srcOf := make(map[string]int)
	edgeOf := make(map[[2]int]int)
	for _, c := range a.cites {
		ci := len(r.Doc.Citations)
		r.Doc.Citations = append(r.Doc.Citations, claimtrace.Citation{Marker: c.marker, Kind: c.kind, URL: c.url,
			Title: c.title, Start: c.markStart, End: c.markEnd})
		k := claimOf[span{c.claimStart, c.claimEnd}]
		r.Doc.Claims[k].Citations = append(r.Doc.Claims[k].Citations, ci)

		key := c.sourceKey()
		si, ok := srcOf[key]
		if !ok {
			si = len(g.Sources)
			srcOf[key] = si
			s := prov.Source{ID: "s" + strconv.Itoa(si+1), Key: key, URL: c.url, Title: c.title}
			if !a.at.IsZero() {
				s.RetrievedAt = a.at.UTC()
			}
			g.Sources = append(g.Sources, s)
		}
		s := &g.Sources[si]
		if s.Title == "" {
			s.Title = c.title
		}
		if c.excerpt != "" && !strings.Contains(s.Excerpt, c.excerpt) {
			if s.Excerpt != "" {
				s.Excerpt += " […] "
			}
			s.Excerpt += c.excerpt
		}
		pair := [2]int{si, k}
		ei, ok := edgeOf[pair]
		if !ok {
			ei = len(g.Edges)
			edgeOf[pair] = ei
			g.Edges = append(g.Edges, prov.Edge{From: s.ID, To: g.Claims[k].ID, Rel: prov.Supports})
		}
		e := &g.Edges[ei]
		if c.strength != nil && (e.Strength == nil || *c.strength > *e.Strength) {
			e.Strength = prov.Nu(*c.strength)
		}
		if c.excerpt != "" && e.Evidence == "" {
			e.Evidence = c.excerpt
		}
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", a.provider, err)
	}
	r.Graph = g
	return r, nil
}

// markerClaim returns the span of the claim a citation marker at
// [ms, me) attaches to: the sentence or clause right before it, back to the
// previous sentence end, line break, or floor (the end of an earlier marker
// of another claim). A marker with nothing before it on its line takes the
// sentence after it.
func markerClaim(text string, ms, me, floor int) (int, int) {
	end := ms
	// Skip back over spaces and the "(" that wraps OpenAI markers.
	for end > floor && (text[end-1] == ' ' || text[end-1] == '\t' || text[end-1] == '(') {
		end--
	}
	start := sentenceStart(text, end, floor)
	start, end = trimSpan(text, start, end)
	if start < end {
		return start, end
	}
	// Nothing before the marker: take what follows, to the sentence end.
	start = me
	end = start
	for end < len(text) && text[end] != '\n' {
		if isTerminator(text[end]) && (end+1 == len(text) || text[end+1] == ' ' || text[end+1] == '\n') {
			end++
			break
		}
		end++
	}
	return trimSpan(text, start, end)
}

// sentenceStart scans back from end to the start of its sentence, not
// before floor. The final punctuation just before end does not count.
func sentenceStart(text string, end, floor int) int {
	i := end - 1
	for i > floor && isTerminator(text[i]) {
		i--
	}
	for ; i > floor; i-- {
		c := text[i-1]
		if c == '\n' {
			return i
		}
		if isTerminator(c) && (text[i] == ' ' || text[i] == '\t') && !abbreviationBefore(text, i-1) {
			return i
		}
		if i-3 >= floor {
			switch text[i-3 : i] {
			case "。", "！", "？":
				return i
			}
		}
	}
	return floor
}

func isTerminator(c byte) bool { return c == '.' || c == '!' || c == '?' }

// abbreviationBefore reports whether the period at text[p] ends a common
// abbreviation or an initial ("et al.", "e.g.", "Fig.", "J.").
func abbreviationBefore(text string, p int) bool {
	if text[p] != '.' {
		return false
	}
	j := p
	for j > 0 && text[j-1] != ' ' && text[j-1] != '\n' && text[j-1] != '(' {
		j--
	}
	w := strings.ToLower(text[j:p])
	switch w {
	case "al", "e.g", "i.e", "fig", "figs", "vs", "cf", "eq", "no", "ref", "sec", "approx", "dr", "prof", "st":
		return true
	}
	return len(w) == 1 && w[0] >= 'a' && w[0] <= 'z'
}

// trimSpan trims white space and Markdown list or quote marks from a span.
func trimSpan(text string, s, e int) (int, int) {
	for {
		for s < e && strings.ContainsRune(" \t\r\n", rune(text[s])) {
			s++
		}
		switch {
		case s < e && (text[s] == '#' || text[s] == '>'):
			s++
			continue
		case s+1 < e && (text[s] == '-' || text[s] == '*' || text[s] == '+') && text[s+1] == ' ':
			s += 2
			continue
		}
		break
	}
	for e > s && strings.ContainsRune(" \t\r\n", rune(text[e-1])) {
		e--
	}
	return s, e
}

// onlyGlue reports whether s holds nothing but spaces and bracket or list
// punctuation, so that two markers separated by it cite one claim.
func onlyGlue(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(" \t()[],;", rune(s[i])) {
			return false
		}
	}
	return true
}

// attach sets the claim span of marker cites (sorted by marker start): a
// marker right after another one, with only glue between, shares its claim.
func attach(text string, cites []cite) {
	slices.SortStableFunc(cites, func(x, y cite) int { return x.markStart - y.markStart })
	floor, prevEnd := 0, -1
	var prev *cite
	for i := range cites {
		c := &cites[i]
		if prev != nil && c.markStart >= prevEnd && onlyGlue(text[prevEnd:c.markStart]) {
			c.claimStart, c.claimEnd = prev.claimStart, prev.claimEnd
		} else if prev != nil && c.markStart == prev.markStart {
			c.claimStart, c.claimEnd = prev.claimStart, prev.claimEnd
		} else {
			c.claimStart, c.claimEnd = markerClaim(text, c.markStart, c.markEnd, min(floor, c.markStart))
		}
		floor = max(floor, c.markEnd)
		prevEnd = max(prevEnd, c.markEnd)
		prev = c
	}
}
