// Package scholartest serves fake arXiv, Crossref, OpenAlex and Semantic
// Scholar APIs from an in-memory set of records, speaking their real wire
// formats (arXiv Atom with the arxiv and opensearch namespaces, Crossref's
// {"status": "ok", "message": …} envelope, OpenAlex Work objects with ids,
// display_name, publication_date, authorships and cited_by_count, Graph API
// papers with externalIds and citationCount). It records every request
// and can inject faults: 429 with Retry-After, 5xx, throttling text, slow
// answers.
package scholartest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/scholar"
)

// APIs served by the fake.
const (
	ArXiv           = "arxiv"
	Crossref        = "crossref"
	OpenAlex        = "openalex"
	SemanticScholar = "semanticscholar"
)

// Citation counts served for a record without one set by SetCitedBy.
const (
	DefaultOpenAlexCitedBy        = 12
	DefaultCrossrefCitedBy        = 7
	DefaultSemanticScholarCitedBy = 15
)

// Request is one request the fake received.
type Request struct {
	API       string
	Path      string // decoded path after the API prefix ("/works/10.1145/…")
	Query     url.Values
	UserAgent string
	// APIKey is the x-api-key header (Semantic Scholar's key).
	APIKey string
	At     time.Time
}

// Fault is an injected answer. A Fault with Status 0 only delays the
// normal answer by Delay.
type Fault struct {
	Status     int
	RetryAfter string
	Body       string
	Delay      time.Duration
}

// Server is a running fake of the three APIs.
type Server struct {
	// URL is the server's base URL.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	records  []scholar.Record
	requests []Request
	faults   map[string][]Fault
	delay    map[string]time.Duration
	citedBy  map[string]int  // api + "\x00" + title → count
	hidden   map[string]bool // api + "\x00" + title → unknown to api
}

// NewServer starts a fake serving records; it is closed when t ends.
// A record is served by arXiv if it has an ArXivID, by Crossref if it has
// a DOI that is not an arXiv DataCite DOI, and always by OpenAlex.
func NewServer(t testing.TB, records ...scholar.Record) *Server {
	t.Helper()
	s := &Server{faults: make(map[string][]Fault), delay: make(map[string]time.Duration), citedBy: make(map[string]int), hidden: make(map[string]bool)}
	s.records = append(s.records, records...)
	mux := http.NewServeMux()
	mux.HandleFunc("/arxiv/api/query", s.wrap(ArXiv, s.arxiv))
	mux.HandleFunc("/crossref/works", s.wrap(Crossref, s.crossrefList))
	mux.HandleFunc("/crossref/works/", s.wrap(Crossref, s.crossrefWork))
	mux.HandleFunc("/openalex/works", s.wrap(OpenAlex, s.openAlexList))
	mux.HandleFunc("/openalex/works/", s.wrap(OpenAlex, s.openAlexWork))
	mux.HandleFunc("/semanticscholar/graph/v1/paper/search/match", s.wrap(SemanticScholar, s.s2Match))
	mux.HandleFunc("/semanticscholar/graph/v1/paper/", s.wrap(SemanticScholar, s.s2Paper))
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Add serves more records.
func (s *Server) Add(records ...scholar.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, records...)
}

// Options returns client options pointing at the fake, with no rate
// limits and millisecond backoff so tests run fast.
func (s *Server) Options() scholar.Options {
	return scholar.Options{
		ArXivURL:           s.URL + "/arxiv/api/query",
		CrossrefURL:        s.URL + "/crossref",
		OpenAlexURL:        s.URL + "/openalex",
		SemanticScholarURL: s.URL + "/semanticscholar/graph/v1",
		ArXivInterval:      -1,
		CrossrefRPS:        -1,
		OpenAlexRPS:        -1,
		SemanticScholarRPS: -1,
		Backoff:            time.Millisecond,
		MaxWait:            2 * time.Second,
	}
}

// SetCitedBy sets the citation count api serves for the record titled
// title (OpenAlex cited_by_count, Crossref is-referenced-by-count, Semantic
// Scholar citationCount). Without one, the Default…CitedBy counts are
// served.
func (s *Server) SetCitedBy(api, title string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.citedBy[api+"\x00"+title] = n
}

func (s *Server) citedByOf(api string, rec scholar.Record, def int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.citedBy[api+"\x00"+rec.Title]; ok {
		return n
	}
	return def
}

// Fail queues faults for the next requests to api, answered in order.
func (s *Server) Fail(api string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[api] = append(s.faults[api], faults...)
}

// SetDelay delays every answer of api by d.
func (s *Server) SetDelay(api string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay[api] = d
}

// Requests returns the requests received by api ("" for all), in order.
func (s *Server) Requests(api string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if api == "" || r.API == api {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) wrap(api string, h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	prefix := "/" + api
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, Request{
			API: api, Path: strings.TrimPrefix(r.URL.Path, prefix), Query: r.URL.Query(),
			UserAgent: r.UserAgent(), APIKey: r.Header.Get("X-Api-Key"), At: time.Now(),
		})
		var f Fault
		if q := s.faults[api]; len(q) > 0 {
			f, s.faults[api] = q[0], q[1:]
		}
		delay := s.delay[api] + f.Delay
		s.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if f.Status != 0 {
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			body := f.Body
			if body == "" {
				body = http.StatusText(f.Status)
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(f.Status)
			fmt.Fprint(w, body)
			return
		}
		h(w, r)
	}
}

// snapshot returns the records api knows.
func (s *Server) snapshot(api string) []scholar.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]scholar.Record, 0, len(s.records))
	for _, r := range s.records {
		if !s.hidden[api+"\x00"+r.Title] {
			out = append(out, r)
		}
	}
	return out
}

// Hide makes api unaware of the record titled title, as when one index
// has not (yet) indexed a work the others know.
func (s *Server) Hide(api, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hidden[api+"\x00"+title] = true
}

// ---- arXiv: Atom feeds ----

// arxiv answers id_list and search_query=ti:"…" queries with an Atom feed.
func (s *Server) arxiv(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var hits []scholar.Record
	recs := s.snapshot(ArXiv)
	switch {
	case q.Get("id_list") != "":
		for _, id := range strings.Split(q.Get("id_list"), ",") {
			n, ok := scholar.NormalizeArXivID(id)
			if !ok {
				writeAtomError(w, r, "incorrect_id_format_for_"+id, "incorrect id format for "+id)
				return
			}
			for _, rec := range recs {
				if rec.ArXivID == n {
					hits = append(hits, rec)
					break
				}
			}
		}
	case strings.HasPrefix(q.Get("search_query"), "ti:"):
		phrase := strings.Trim(strings.TrimPrefix(q.Get("search_query"), "ti:"), `"`)
		hits = append(hits, rank(recs, phrase, func(r scholar.Record) bool { return r.ArXivID != "" })...)
	default:
		writeAtomError(w, r, "search_query_or_id_list_required", "search_query or id_list is required")
		return
	}
	if n, err := strconv.Atoi(q.Get("max_results")); err == nil && n >= 0 && len(hits) > n {
		hits = hits[:n]
	}
	writeAtom(w, r, hits)
}

func writeAtomHead(b *strings.Builder, r *http.Request, total int) {
	self := "http://arxiv.org/api/query?" + r.URL.RawQuery
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<feed xmlns="http://www.w3.org/2005/Atom">` + "\n")
	fmt.Fprintf(b, `  <link href="%s" rel="self" type="application/atom+xml"/>`+"\n", esc(self))
	fmt.Fprintf(b, `  <title type="html">ArXiv Query: %s</title>`+"\n", esc(r.URL.RawQuery))
	fmt.Fprintf(b, "  <id>http://arxiv.org/api/%08x</id>\n", hash(r.URL.RawQuery))
	b.WriteString("  <updated>2025-06-02T00:00:00-04:00</updated>\n")
	fmt.Fprintf(b, `  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">%d</opensearch:totalResults>`+"\n", total)
	b.WriteString(`  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>` + "\n")
	fmt.Fprintf(b, `  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">%d</opensearch:itemsPerPage>`+"\n", total)
}

func writeAtom(w http.ResponseWriter, r *http.Request, recs []scholar.Record) {
	var b strings.Builder
	writeAtomHead(&b, r, len(recs))
	for _, rec := range recs {
		abs := "http://arxiv.org/abs/" + rec.ArXivID + "v1"
		published := rec.Published
		if published.IsZero() {
			published = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		b.WriteString("  <entry>\n")
		fmt.Fprintf(&b, "    <id>%s</id>\n", abs)
		fmt.Fprintf(&b, "    <updated>%s</updated>\n", published.Format(time.RFC3339))
		fmt.Fprintf(&b, "    <published>%s</published>\n", published.Format(time.RFC3339))
		fmt.Fprintf(&b, "    <title>%s</title>\n", esc(wrap(rec.Title)))
		fmt.Fprintf(&b, "    <summary>  %s\n</summary>\n", esc(wrap("We study "+strings.ToLower(rec.Title)+" and report results on standard benchmarks.")))
		for _, a := range rec.Authors {
			fmt.Fprintf(&b, "    <author>\n      <name>%s</name>\n    </author>\n", esc(a))
		}
		if rec.DOI != "" && !strings.HasPrefix(strings.ToLower(rec.DOI), "10.48550/") {
			fmt.Fprintf(&b, `    <arxiv:doi xmlns:arxiv="http://arxiv.org/schemas/atom">%s</arxiv:doi>`+"\n", esc(rec.DOI))
			fmt.Fprintf(&b, `    <link title="doi" href="http://dx.doi.org/%s" rel="related"/>`+"\n", esc(rec.DOI))
		}
		b.WriteString(`    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">12 pages, 4 figures</arxiv:comment>` + "\n")
		if rec.Venue != "" {
			fmt.Fprintf(&b, `    <arxiv:journal_ref xmlns:arxiv="http://arxiv.org/schemas/atom">%s</arxiv:journal_ref>`+"\n", esc(rec.Venue))
		}
		fmt.Fprintf(&b, `    <link href="%s" rel="alternate" type="text/html"/>`+"\n", abs)
		fmt.Fprintf(&b, `    <link title="pdf" href="http://arxiv.org/pdf/%sv1" rel="related" type="application/pdf"/>`+"\n", rec.ArXivID)
		b.WriteString(`    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>` + "\n")
		b.WriteString(`    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>` + "\n")
		b.WriteString("  </entry>\n")
	}
	b.WriteString("</feed>\n")
	w.Header().Set("Content-Type", "application/atom+xml; charset=UTF-8")
	fmt.Fprint(w, b.String())
}

// writeAtomError answers as arXiv does for a malformed query: HTTP 200
// and a feed holding one entry titled "Error".
func writeAtomError(w http.ResponseWriter, r *http.Request, code, msg string) {
	var b strings.Builder
	writeAtomHead(&b, r, 1)
	b.WriteString("  <entry>\n")
	fmt.Fprintf(&b, "    <id>http://arxiv.org/api/errors#%s</id>\n", esc(code))
	b.WriteString("    <title>Error</title>\n")
	fmt.Fprintf(&b, "    <summary>%s</summary>\n", esc(msg))
	b.WriteString("    <updated>2025-06-02T00:00:00-04:00</updated>\n")
	fmt.Fprintf(&b, `    <link href="http://arxiv.org/api/errors#%s" rel="alternate" type="text/html"/>`+"\n", esc(code))
	b.WriteString("    <author>\n      <name>arXiv api core</name>\n    </author>\n")
	b.WriteString("  </entry>\n</feed>\n")
	w.Header().Set("Content-Type", "application/atom+xml; charset=UTF-8")
	fmt.Fprint(w, b.String())
}

// wrap hard-wraps long text the way the arXiv API does ("\n  ").
func wrap(s string) string {
	words := strings.Fields(s)
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 {
			if line+len(w) > 70 {
				b.WriteString("\n  ")
				line = 0
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(w)
		line += len(w) + 1
	}
	return b.String()
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// ---- Crossref: {"status": "ok", "message-type": …, "message": …} ----

func (s *Server) crossrefWork(w http.ResponseWriter, r *http.Request) {
	doi := strings.TrimPrefix(r.URL.Path, "/crossref/works/")
	for _, rec := range s.snapshot(Crossref) {
		if crossrefServes(rec) && strings.EqualFold(rec.DOI, doi) {
			writeJSON(w, map[string]any{
				"status": "ok", "message-type": "work", "message-version": "1.0.0",
				"message": crossrefMessage(rec, 0, s.citedByOf(Crossref, rec, DefaultCrossrefCitedBy)),
			})
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, "Resource not found.")
}

func (s *Server) crossrefList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("query.bibliographic")
	rows := 20
	if n, err := strconv.Atoi(r.URL.Query().Get("rows")); err == nil && n >= 0 {
		rows = n
	}
	var hits []scholar.Record
	if alt, ok := strings.CutPrefix(r.URL.Query().Get("filter"), "alternative-id:"); ok {
		// filter=alternative-id:X: the works listing X among their
		// alternative ids (publishers' item ids, Elsevier's PIIs).
		for _, rec := range s.snapshot(Crossref) {
			if crossrefServes(rec) && rec.PII != "" && strings.EqualFold(rec.PII, alt) {
				hits = append(hits, rec)
			}
		}
	} else {
		hits = rank(s.snapshot(Crossref), q, crossrefServes)
	}
	total := len(hits)
	if len(hits) > rows {
		hits = hits[:rows]
	}
	items := make([]any, 0, len(hits))
	for i, rec := range hits {
		items = append(items, crossrefMessage(rec, 80-float64(i)*7.5, s.citedByOf(Crossref, rec, DefaultCrossrefCitedBy)))
	}
	writeJSON(w, map[string]any{
		"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
		"message": map[string]any{
			"facets": map[string]any{}, "total-results": total, "items": items, "items-per-page": rows,
			"query": map[string]any{"start-index": 0, "search-terms": q},
		},
	})
}

func crossrefServes(r scholar.Record) bool {
	return r.DOI != "" && !strings.HasPrefix(strings.ToLower(r.DOI), "10.48550/")
}

func crossrefMessage(rec scholar.Record, score float64, citedBy int) map[string]any {
	authors := make([]any, 0, len(rec.Authors))
	for i, a := range rec.Authors {
		given, family := splitName(a)
		seq := "additional"
		if i == 0 {
			seq = "first"
		}
		authors = append(authors, map[string]any{"given": given, "family": family, "sequence": seq, "affiliation": []any{}})
	}
	typ := rec.Type
	if typ == "" {
		typ = "journal-article"
	}
	prefix, _, _ := strings.Cut(rec.DOI, "/")
	m := map[string]any{
		"indexed":                map[string]any{"date-parts": [][]int{{2025, 6, 1}}, "date-time": "2025-06-01T04:12:10Z", "timestamp": 1748751130000},
		"reference-count":        42,
		"publisher":              "Example Publisher",
		"content-domain":         map[string]any{"domain": []any{}, "crossmark-restriction": false},
		"short-container-title":  []any{},
		"DOI":                    rec.DOI,
		"type":                   typ,
		"created":                map[string]any{"date-parts": [][]int{{2021, 1, 1}}, "date-time": "2021-01-01T00:00:00Z", "timestamp": 1609459200000},
		"source":                 "Crossref",
		"is-referenced-by-count": citedBy,
		"title":                  []string{rec.Title},
		"prefix":                 prefix,
		"member":                 "320",
		"container-title":        nonEmpty(rec.Venue),
		"author":                 authors,
		"URL":                    "https://doi.org/" + rec.DOI,
		"relation":               map[string]any{},
		"subject":                []any{},
	}
	if rec.PII != "" {
		m["alternative-id"] = []string{rec.PII}
	}
	if !rec.Published.IsZero() {
		parts := map[string]any{"date-parts": [][]int{{rec.Published.Year(), int(rec.Published.Month()), rec.Published.Day()}}}
		m["issued"] = parts
		m["published"] = parts
	} else {
		m["issued"] = map[string]any{"date-parts": [][]any{{nil}}}
	}
	if score > 0 {
		m["score"] = score
	}
	return m
}

func nonEmpty(s string) []string {
	if s == "" {
		return []string{}
	}
	return []string{s}
}

func splitName(n string) (given, family string) {
	i := strings.LastIndex(n, " ")
	if i < 0 {
		return "", n
	}
	return n[:i], n[i+1:]
}

// ---- OpenAlex: Work objects ----

func (s *Server) openAlexWork(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/openalex/works/")
	var doi, pmid, pmcid string
	switch low := strings.ToLower(id); {
	case strings.HasPrefix(low, "doi:"):
		doi = id[4:]
	case strings.HasPrefix(id, "https://doi.org/"):
		doi = strings.TrimPrefix(id, "https://doi.org/")
	case strings.HasPrefix(low, "pmid:"):
		pmid = id[5:]
	case strings.HasPrefix(low, "pmcid:"):
		pmcid = id[6:]
	}
	for _, rec := range s.snapshot(OpenAlex) {
		if pmid != "" && rec.PMID == pmid || pmcid != "" && strings.EqualFold(rec.PMCID, pmcid) {
			writeJSON(w, openAlexWork(rec, s.citedByOf(OpenAlex, rec, DefaultOpenAlexCitedBy)))
			return
		}
		if doi != "" && strings.EqualFold(openAlexDOI(rec), doi) {
			writeJSON(w, openAlexWork(rec, s.citedByOf(OpenAlex, rec, DefaultOpenAlexCitedBy)))
			return
		}
		if strings.EqualFold(openAlexID(rec), id) {
			writeJSON(w, openAlexWork(rec, s.citedByOf(OpenAlex, rec, DefaultOpenAlexCitedBy)))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":"404 Not Found","message":"The requested URL %s was not found on the server."}`, esc(r.URL.Path))
}

func (s *Server) openAlexList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var hits []scholar.Record
	all := func(scholar.Record) bool { return true }
	switch {
	case strings.HasPrefix(q.Get("filter"), "title.search:"):
		hits = rank(s.snapshot(OpenAlex), strings.TrimPrefix(q.Get("filter"), "title.search:"), all)
	case strings.HasPrefix(q.Get("filter"), "doi:"):
		// filter=doi:A|B|…: the works with one of the DOIs, as OpenAlex
		// answers an OR filter (at most 50 values).
		values := strings.Split(strings.TrimPrefix(q.Get("filter"), "doi:"), "|")
		if len(values) > 50 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"Invalid query parameters error.","message":"Maximum number of values exceeded for doi. Decrease values to 50 or below, or consider using a paging cursor."}`)
			return
		}
		want := map[string]bool{}
		for _, v := range values {
			want[strings.ToLower(strings.TrimPrefix(v, "https://doi.org/"))] = true
		}
		for _, rec := range s.snapshot(OpenAlex) {
			if d := openAlexDOI(rec); d != "" && want[d] {
				hits = append(hits, rec)
			}
		}
	case q.Get("search") != "":
		hits = rank(s.snapshot(OpenAlex), q.Get("search"), all)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"Invalid query parameters error.","message":"filter or search is required in this fake"}`)
		return
	}
	perPage := 25
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		perPage = n
	}
	total := len(hits)
	if len(hits) > perPage {
		hits = hits[:perPage]
	}
	results := make([]any, 0, len(hits))
	for _, rec := range hits {
		results = append(results, openAlexWork(rec, s.citedByOf(OpenAlex, rec, DefaultOpenAlexCitedBy)))
	}
	writeJSON(w, map[string]any{
		"meta":     map[string]any{"count": total, "db_response_time_ms": 14, "page": 1, "per_page": perPage, "groups_count": nil},
		"results":  results,
		"group_by": []any{},
	})
}

// openAlexDOI is the DOI OpenAlex holds for a record: its own, or the
// arXiv DataCite DOI, lowercased as OpenAlex stores them.
func openAlexDOI(rec scholar.Record) string {
	switch {
	case rec.DOI != "":
		return strings.ToLower(rec.DOI)
	case rec.ArXivID != "":
		return "10.48550/arxiv." + strings.ToLower(rec.ArXivID)
	}
	return ""
}

func openAlexID(rec scholar.Record) string {
	return fmt.Sprintf("W%d", 4000000000+uint64(hash(rec.Title)%100000000))
}

func openAlexWork(rec scholar.Record, citedBy int) map[string]any {
	id := "https://openalex.org/" + openAlexID(rec)
	doi := openAlexDOI(rec)
	doiURL := any(nil)
	ids := map[string]any{"openalex": id}
	if doi != "" {
		doiURL = "https://doi.org/" + doi
		ids["doi"] = doiURL
	}
	if rec.PMID != "" {
		ids["pmid"] = "https://pubmed.ncbi.nlm.nih.gov/" + rec.PMID
	}
	if rec.PMCID != "" {
		// OpenAlex writes PMC ids as PMC article URLs without the prefix.
		ids["pmcid"] = "https://www.ncbi.nlm.nih.gov/pmc/articles/" + strings.TrimPrefix(rec.PMCID, "PMC")
	}
	authorships := make([]any, 0, len(rec.Authors))
	for i, a := range rec.Authors {
		pos := "middle"
		switch {
		case i == 0:
			pos = "first"
		case i == len(rec.Authors)-1:
			pos = "last"
		}
		authorships = append(authorships, map[string]any{
			"author_position": pos,
			"author":          map[string]any{"id": fmt.Sprintf("https://openalex.org/A%d", 5000000000+uint64(hash(a)%100000000)), "display_name": a, "orcid": nil},
			"institutions":    []any{}, "countries": []any{}, "is_corresponding": i == 0,
			"raw_author_name": a, "raw_affiliation_strings": []any{}, "affiliations": []any{},
		})
	}
	venue := rec.Venue
	landing := "https://doi.org/" + doi
	var locations []any
	if rec.ArXivID != "" {
		arxivLoc := map[string]any{
			"is_oa": true, "landing_page_url": "https://arxiv.org/abs/" + rec.ArXivID,
			"pdf_url": "https://arxiv.org/pdf/" + rec.ArXivID, "version": "submittedVersion",
			"source": map[string]any{"id": "https://openalex.org/S4306400194", "display_name": "arXiv (Cornell University)", "type": "repository"},
		}
		locations = append(locations, arxivLoc)
		if venue == "" {
			venue = "arXiv (Cornell University)"
			landing = "https://arxiv.org/abs/" + rec.ArXivID
		}
	}
	primary := map[string]any{
		"is_oa": rec.ArXivID != "", "landing_page_url": landing, "pdf_url": nil, "version": "publishedVersion",
		"source": map[string]any{"id": "https://openalex.org/S137773608", "display_name": venue, "type": "journal"},
	}
	locations = append([]any{primary}, locations...)
	typ := rec.Type
	if typ == "" {
		typ = "article"
		if rec.DOI == "" && rec.ArXivID != "" {
			typ = "preprint"
		}
	}
	w := map[string]any{
		"id": id, "doi": doiURL, "title": rec.Title, "display_name": rec.Title,
		"ids": ids, "language": "en", "primary_location": primary, "type": typ,
		"authorships": authorships, "locations": locations, "locations_count": len(locations),
		"cited_by_count": citedBy, "is_retracted": false, "is_paratext": false,
	}
	if !rec.Published.IsZero() {
		w["publication_year"] = rec.Published.Year()
		w["publication_date"] = rec.Published.Format(time.DateOnly)
	}
	return w
}

// ---- Semantic Scholar Graph API: papers ----

// s2Paper answers GET /graph/v1/paper/{id}: DOI:…, ARXIV:… or a paperId.
func (s *Server) s2Paper(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/semanticscholar/graph/v1/paper/")
	kind, value, typed := strings.Cut(id, ":")
	for _, rec := range s.snapshot(SemanticScholar) {
		var hit bool
		switch {
		case typed && strings.EqualFold(kind, "DOI"):
			hit = rec.DOI != "" && strings.EqualFold(rec.DOI, value) || strings.EqualFold(openAlexDOI(rec), value)
		case typed && strings.EqualFold(kind, "ARXIV"):
			n, _ := scholar.NormalizeArXivID(value)
			hit = rec.ArXivID != "" && rec.ArXivID == n
		case !typed:
			hit = s2ID(rec) == id
		}
		if hit {
			writeJSON(w, s.s2Object(rec, r))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":"Paper with id %s not found"}`, id)
}

// s2Match answers GET /graph/v1/paper/search/match?query=…: the single
// closest title, or 404 "Title match not found".
func (s *Server) s2Match(w http.ResponseWriter, r *http.Request) {
	hits := rank(s.snapshot(SemanticScholar), r.URL.Query().Get("query"), func(scholar.Record) bool { return true })
	if len(hits) == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"Title match not found"}`)
		return
	}
	p := s.s2Object(hits[0], r)
	p["matchScore"] = 182.7
	writeJSON(w, map[string]any{"data": []any{p}})
}

// s2Object renders a record with the requested fields (paperId always).
func (s *Server) s2Object(rec scholar.Record, r *http.Request) map[string]any {
	p := map[string]any{"paperId": s2ID(rec)}
	for _, f := range strings.Split(r.URL.Query().Get("fields"), ",") {
		switch strings.TrimSpace(f) {
		case "title":
			p["title"] = rec.Title
		case "year":
			if rec.Published.IsZero() {
				p["year"] = nil
			} else {
				p["year"] = rec.Published.Year()
			}
		case "externalIds":
			ids := map[string]any{"CorpusId": int(hash(rec.Title) % 10000000)}
			if rec.DOI != "" {
				ids["DOI"] = rec.DOI
			}
			if rec.ArXivID != "" {
				ids["ArXiv"] = rec.ArXivID
			}
			p["externalIds"] = ids
		case "citationCount":
			p["citationCount"] = s.citedByOf(SemanticScholar, rec, DefaultSemanticScholarCitedBy)
		}
	}
	return p
}

// s2ID is a record's 40-hex-digit paperId.
func s2ID(rec scholar.Record) string {
	return fmt.Sprintf("%08x%032x", hash(rec.Title), hash("s2"+rec.Title))
}

// ---- shared ----

// rank returns the records whose titles share words with phrase, best first.
func rank(recs []scholar.Record, phrase string, serves func(scholar.Record) bool) []scholar.Record {
	want := words(phrase)
	if len(want) == 0 {
		return nil
	}
	type scored struct {
		rec   scholar.Record
		score float64
	}
	var hits []scored
	for _, r := range recs {
		if !serves(r) {
			continue
		}
		have := words(r.Title)
		common := 0
		for w := range want {
			if have[w] {
				common++
			}
		}
		if common == 0 {
			continue
		}
		score := float64(common) / float64(max(len(want), len(have)))
		if score >= 0.3 {
			hits = append(hits, scored{r, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]scholar.Record, len(hits))
	for i, h := range hits {
		out[i] = h.rec
	}
	return out
}

func words(s string) map[string]bool {
	out := make(map[string]bool)
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f)
	}) {
		out[f] = true
	}
	return out
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
