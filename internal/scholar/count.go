package scholar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
)

// SourceSemanticScholar is the Source of a Count read from Semantic Scholar.
const SourceSemanticScholar = "semanticscholar"

// OpenAlexBatch is the most DOIs OpenAlexCounts puts in one request (the
// OR filter "doi:a|b|…" takes up to 50 values).
const OpenAlexBatch = 50

// Count is how often a work is cited, as one index counts it. Indexes
// disagree (each counts the citing works it knows), so a Count always
// names its Source.
type Count struct {
	// Source is SourceOpenAlex, SourceCrossref or SourceSemanticScholar.
	Source string `json:"source"`
	// ID is the index's own id of the work (OpenAlex W…, the DOI for
	// Crossref, the Semantic Scholar paperId).
	ID      string `json:"id,omitempty"`
	DOI     string `json:"doi,omitempty"`
	ArXivID string `json:"arxiv_id,omitempty"`
	Title   string `json:"title"`
	Year    int    `json:"year,omitempty"`
	// CitedBy is the number of citing works the index knows.
	CitedBy int `json:"cited_by"`
}

// openAlexCountSelect limits answers to the fields a Count needs.
const openAlexCountSelect = "id,doi,display_name,publication_year,cited_by_count"

// OpenAlexCounts looks DOIs up in OpenAlex, OpenAlexBatch to a request,
// and returns the counts found, keyed by the lowercased DOI as given
// (without resolver prefix). An arXiv paper is found by its DataCite DOI,
// 10.48550/arXiv.<id>. DOIs OpenAlex does not know are absent from the
// map. If some requests fail, the counts of the others are returned with
// an error joining the failures. A malformed DOI is an error wrapping
// claimtrace.ErrInvalid, and nothing is sent.
func (c *Client) OpenAlexCounts(ctx context.Context, dois []string) (map[string]Count, error) {
	var batchable, single []string
	seen := map[string]bool{}
	for _, doi := range dois {
		d, err := cleanDOI(doi)
		if err != nil {
			return nil, fmt.Errorf("openalex counts: %w", err)
		}
		d = strings.ToLower(d)
		if seen[d] {
			continue
		}
		seen[d] = true
		// "," separates filters and "|" values: such DOIs go one by one.
		if strings.ContainsAny(d, ",|") {
			single = append(single, d)
		} else {
			batchable = append(batchable, d)
		}
	}
	out := map[string]Count{}
	var errs []error
	for start := 0; start < len(batchable); start += OpenAlexBatch {
		batch := batchable[start:min(start+OpenAlexBatch, len(batchable))]
		v := url.Values{}
		v.Set("filter", "doi:"+strings.Join(batch, "|"))
		v.Set("per_page", strconv.Itoa(2*OpenAlexBatch))
		v.Set("select", openAlexCountSelect)
		body, u, err := c.openAlexQuery(ctx, "/works", v)
		if err != nil {
			if ctx.Err() != nil {
				return out, err
			}
			errs = append(errs, err)
			continue
		}
		counts, err := parseOpenAlexCounts(body)
		if err != nil {
			errs = append(errs, fmt.Errorf("openalex %s: %w", u, err))
			continue
		}
		want := map[string]bool{}
		for _, d := range batch {
			want[d] = true
		}
		for _, n := range counts {
			d := strings.ToLower(n.DOI)
			if !want[d] {
				continue
			}
			// Two works with one DOI (a merge OpenAlex has not made yet):
			// the better-cited one is the work.
			if have, ok := out[d]; !ok || n.CitedBy > have.CitedBy {
				out[d] = n
			}
		}
	}
	for _, d := range single {
		n, err := c.openAlexCountWork(ctx, "doi:"+escapeDOI(d))
		switch {
		case errors.Is(err, claimtrace.ErrNotFound):
		case err != nil:
			if ctx.Err() != nil {
				return out, err
			}
			errs = append(errs, err)
		default:
			out[d] = n
		}
	}
	return out, errors.Join(errs...)
}

// OpenAlexCountSearch searches OpenAlex work titles and returns the counts
// of the best Rows matches, in OpenAlex's order.
func (c *Client) OpenAlexCountSearch(ctx context.Context, title string) ([]Count, error) {
	ws, err := openAlexSearch[openAlexCounted](ctx, c, title, openAlexCountSelect)
	if err != nil {
		return nil, err
	}
	return openAlexCounts(ws), nil
}

func (c *Client) openAlexCountWork(ctx context.Context, id string) (Count, error) {
	w, u, err := openAlexOne[openAlexCounted](ctx, c, id, openAlexCountSelect)
	if err != nil {
		return Count{}, err
	}
	if w.ID == "" || w.CitedByCount == nil {
		return Count{}, fmt.Errorf("openalex %s: answer is not a work with cited_by_count: %w", u, claimtrace.ErrInvalid)
	}
	return w.count(), nil
}

// openAlexCounted is the part of an OpenAlex Work a Count needs.
type openAlexCounted struct {
	ID              string `json:"id"`
	DOI             string `json:"doi"`
	Title           string `json:"title"`
	DisplayName     string `json:"display_name"`
	PublicationYear int    `json:"publication_year"`
	CitedByCount    *int   `json:"cited_by_count"`
}

func (w openAlexCounted) count() Count {
	n := Count{Source: SourceOpenAlex, ID: strings.TrimPrefix(w.ID, "https://openalex.org/"), Title: collapse(w.DisplayName)}
	if n.Title == "" {
		n.Title = collapse(w.Title)
	}
	if w.DOI != "" {
		if d, err := cleanDOI(w.DOI); err == nil {
			n.DOI = d
		}
	}
	n.ArXivID = arXivFromDOI(n.DOI)
	if w.PublicationYear >= 1000 && w.PublicationYear <= 3000 {
		n.Year = w.PublicationYear
	}
	if w.CitedByCount != nil && *w.CitedByCount > 0 {
		n.CitedBy = *w.CitedByCount
	}
	return n
}

// parseOpenAlexCounts reads a list answer; works without a title or a
// cited_by_count are left out.
func parseOpenAlexCounts(body []byte) ([]Count, error) {
	ws, err := decodeOpenAlexList[openAlexCounted](body)
	if err != nil {
		return nil, err
	}
	return openAlexCounts(ws), nil
}

func openAlexCounts(ws []openAlexCounted) []Count {
	var out []Count
	for _, w := range ws {
		if w.CitedByCount == nil {
			continue
		}
		if n := w.count(); n.Title != "" {
			out = append(out, n)
		}
	}
	return out
}

// crossrefCountSelect adds the citation count to the search fields.
const crossrefCountSelect = crossrefSelect + ",is-referenced-by-count"

// crossrefCounted is the part of a Crossref work a Count needs.
type crossrefCounted struct {
	crossrefWork
	IsReferencedBy *int `json:"is-referenced-by-count"`
}

func (w crossrefCounted) count() Count {
	r := w.record()
	n := Count{Source: SourceCrossref, ID: r.DOI, DOI: r.DOI, ArXivID: r.ArXivID, Title: r.Title}
	if !r.Published.IsZero() {
		n.Year = r.Published.Year()
	}
	if w.IsReferencedBy != nil && *w.IsReferencedBy > 0 {
		n.CitedBy = *w.IsReferencedBy
	}
	return n
}

// CrossrefCount returns the is-referenced-by-count of doi; an unknown
// DOI is an error wrapping claimtrace.ErrNotFound.
func (c *Client) CrossrefCount(ctx context.Context, doi string) (Count, error) {
	w, u, err := crossrefOne[crossrefCounted](ctx, c, doi)
	if err != nil {
		return Count{}, err
	}
	if w.IsReferencedBy == nil {
		return Count{}, fmt.Errorf("crossref %s: no is-referenced-by-count: %w", u, claimtrace.ErrInvalid)
	}
	return w.count(), nil
}

// CrossrefCountSearch runs a bibliographic query and returns the counts of
// the best Rows records, in Crossref's order.
func (c *Client) CrossrefCountSearch(ctx context.Context, query string) ([]Count, error) {
	ws, err := crossrefSearch[crossrefCounted](ctx, c, query, crossrefCountSelect)
	if err != nil {
		return nil, err
	}
	return crossrefCounts(ws), nil
}

// parseCrossrefCounts reads a work-list answer; items without a title or a
// count are left out.
func parseCrossrefCounts(body []byte) ([]Count, error) {
	ws, err := decodeCrossrefList[crossrefCounted](body)
	if err != nil {
		return nil, err
	}
	return crossrefCounts(ws), nil
}

func crossrefCounts(ws []crossrefCounted) []Count {
	var out []Count
	for _, w := range ws {
		if w.IsReferencedBy == nil {
			continue
		}
		if n := w.count(); n.Title != "" {
			out = append(out, n)
		}
	}
	return out
}

// semanticScholarFields are the paper fields a Count needs.
const semanticScholarFields = "title,year,externalIds,citationCount"

// SemanticScholarCount returns the Semantic Scholar count of a paper. id
// is a Graph API paper id: "DOI:10.…", "ARXIV:1706.03762", "CorpusId:…" or
// a paperId. An unknown paper is an error wrapping claimtrace.ErrNotFound.
func (c *Client) SemanticScholarCount(ctx context.Context, id string) (Count, error) {
	id = strings.TrimSpace(id)
	if id == "" || strings.ContainsAny(id, " \t\n?#") {
		return Count{}, fmt.Errorf("semanticscholar: paper id %q: %w", id, claimtrace.ErrInvalid)
	}
	v := url.Values{}
	v.Set("fields", semanticScholarFields)
	u := c.opts.SemanticScholarURL + "/paper/" + escapeDOI(id) + "?" + v.Encode()
	body, err := c.getWith(ctx, "semanticscholar", c.s2, u, c.s2Header())
	if err != nil {
		return Count{}, err
	}
	var p semanticScholarPaper
	if err := json.Unmarshal(body, &p); err != nil {
		return Count{}, fmt.Errorf("semanticscholar %s: %w: %w", u, claimtrace.ErrInvalid, err)
	}
	return p.count(u)
}

// SemanticScholarMatch returns the count of the paper whose title best
// matches title (the Graph API's /paper/search/match). Semantic Scholar
// always proposes its closest title; callers check that it is the same
// paper. No match at all is an error wrapping claimtrace.ErrNotFound.
func (c *Client) SemanticScholarMatch(ctx context.Context, title string) (Count, error) {
	terms := searchTerms(title)
	if terms == "" {
		return Count{}, fmt.Errorf("semanticscholar match %q: no words: %w", title, claimtrace.ErrInvalid)
	}
	v := url.Values{}
	v.Set("query", terms)
	v.Set("fields", semanticScholarFields)
	u := c.opts.SemanticScholarURL + "/paper/search/match?" + v.Encode()
	body, err := c.getWith(ctx, "semanticscholar", c.s2, u, c.s2Header())
	if err != nil {
		return Count{}, err
	}
	var env struct {
		Data []semanticScholarPaper `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return Count{}, fmt.Errorf("semanticscholar %s: %w: %w", u, claimtrace.ErrInvalid, err)
	}
	if len(env.Data) == 0 {
		return Count{}, fmt.Errorf("semanticscholar %s: no match: %w", u, claimtrace.ErrNotFound)
	}
	return env.Data[0].count(u)
}

func (c *Client) s2Header() http.Header {
	if c.opts.SemanticScholarKey == "" {
		return nil
	}
	return http.Header{"X-Api-Key": {c.opts.SemanticScholarKey}}
}

// semanticScholarPaper is the part of a Graph API paper a Count needs.
type semanticScholarPaper struct {
	PaperID     string `json:"paperId"`
	Title       string `json:"title"`
	Year        *int   `json:"year"`
	ExternalIDs struct {
		DOI   string `json:"DOI"`
		ArXiv string `json:"ArXiv"`
	} `json:"externalIds"`
	CitationCount *int `json:"citationCount"`
}

func (p semanticScholarPaper) count(u string) (Count, error) {
	if p.PaperID == "" {
		return Count{}, fmt.Errorf("semanticscholar %s: answer is not a paper: %w", u, claimtrace.ErrInvalid)
	}
	if p.CitationCount == nil {
		return Count{}, fmt.Errorf("semanticscholar %s: paper %s has no citationCount: %w", u, p.PaperID, claimtrace.ErrNotFound)
	}
	n := Count{Source: SourceSemanticScholar, ID: p.PaperID, Title: collapse(p.Title), CitedBy: max(0, *p.CitationCount)}
	if d, err := cleanDOI(p.ExternalIDs.DOI); err == nil {
		n.DOI = d
	}
	if id, ok := NormalizeArXivID(p.ExternalIDs.ArXiv); ok {
		n.ArXivID = id
	}
	if p.Year != nil && *p.Year >= 1000 && *p.Year <= 3000 {
		n.Year = *p.Year
	}
	return n, nil
}
