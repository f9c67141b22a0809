package live

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/fetch"
	"github.com/claimtrace/claimtrace/internal/prov"
)

// Where a source's text comes from.
const (
	// ContentExcerpt: the agent recorded the excerpt it read.
	ContentExcerpt = "excerpt"
	// ContentFetched: the service fetched the page and kept its readable text.
	ContentFetched = "fetched"
	// ContentNone: no text, so the source is unresolved.
	ContentNone = "none"
)

// SourceInput records a source (AAR definition 5). It needs a URL, a DOI
// or a title. Claims are judged against Excerpt; without one, a URL (or
// the DOI's resolver link) is fetched when the service may fetch.
type SourceInput struct {
	ID      string `json:"id,omitempty" jsonschema:"node id, unique in the session; omit for a generated one (s1, s2, …)"`
	URL     string `json:"url,omitempty" jsonschema:"the source's http(s) URL"`
	DOI     string `json:"doi,omitempty" jsonschema:"the source's DOI (10.xxxx/…)"`
	Title   string `json:"title,omitempty" jsonschema:"the source's title"`
	Excerpt string `json:"excerpt,omitempty" jsonschema:"the passage(s) you read, verbatim; claims citing the source are checked against it. Omit only when the service may fetch the URL"`
	// RetrievedAt is when the agent read the source; it defaults to now.
	RetrievedAt time.Time `json:"retrieved_at,omitzero" jsonschema:"RFC 3339 time you read the source; default now"`
}

// FetchInfo is the outcome of fetching a source.
type FetchInfo struct {
	URL string `json:"url"`
	// Status is the HTTP status, 0 when no answer came.
	Status   int    `json:"status"`
	FinalURL string `json:"final_url,omitempty"`
	// Wall names what the page is instead of the content (bot_wall,
	// paywall, login, error_page, empty).
	Wall string `json:"wall,omitempty"`
	// Truncated is true when the text was cut at MaxText.
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
}

// SourceView describes a recorded source.
type SourceView struct {
	ID       string `json:"id"`
	URL      string `json:"url,omitempty"`
	DOI      string `json:"doi,omitempty"`
	Title    string `json:"title,omitempty"`
	Resolved bool   `json:"resolved"`
	// Content is ContentExcerpt, ContentFetched or ContentNone.
	Content string `json:"content"`
	// Words is the number of words of text claims are judged against.
	Words       int       `json:"words"`
	RetrievedAt time.Time `json:"retrieved_at,omitzero"`
	// Excerpt is the recorded excerpt (shown by Why, not echoed by AddSource).
	Excerpt string `json:"excerpt,omitempty"`
}

// SourceResult is what AddSource recorded.
type SourceResult struct {
	Session string     `json:"session"`
	Source  SourceView `json:"source"`
	Fetch   *FetchInfo `json:"fetch,omitempty"`
	// Conflicts are contradictions found between this source and earlier
	// ones. Surface each in the report (a contradicts edge, or a claim that
	// cites both and states the disagreement), or CTran counts it against
	// the report.
	Conflicts []prov.Conflict `json:"conflicts,omitempty"`
	// Note says what follows for claims citing the source, when it is
	// unresolved.
	Note string `json:"note,omitempty"`
}

// newSourceID stands for the new source in contradiction detection before
// its id is known; ids given by clients cannot contain spaces.
const newSourceID = "(new source)"

// AddSource records a source in session id. Without an excerpt it fetches
// the URL (or https://doi.org/DOI) when the service has a Fetcher; a page
// that cannot be fetched or read is not an error: the source is recorded
// unresolved, with the fetch outcome, and claims resting on it are gated.
func (s *Service) AddSource(ctx context.Context, id string, in SourceInput) (*SourceResult, error) {
	if err := in.check(); err != nil {
		return nil, fmt.Errorf("add source: %w", err)
	}
	ss, err := s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	if in.ID != "" && ss.has(in.ID) {
		ss.mu.Unlock()
		return nil, duplicate("source", in.ID)
	}
	if err := s.limits.full(ss, opSource); err != nil {
		ss.mu.Unlock()
		return nil, err
	}
	// The built-in detector compares the new source with the earlier ones
	// through the session's index of their sentences (detectIndex); any
	// other reads them all.
	offline, indexed := s.detector.(prov.Offline)
	var others []prov.SourceText
	if s.detector != nil && !indexed {
		for _, src := range ss.g.Sources {
			if t := ss.sources[src.ID].text; t != "" {
				others = append(others, prov.SourceText{ID: src.ID, Text: detectText(t)})
			}
		}
	}
	ss.mu.Unlock()

	src := prov.Source{ID: in.ID, URL: in.URL, DOI: in.DOI, Title: in.Title, Excerpt: in.Excerpt, RetrievedAt: in.RetrievedAt.UTC()}
	so := &sourceOp{Content: ContentNone}
	switch {
	case in.Excerpt != "":
		so.Content = ContentExcerpt
	case s.fetcher != nil && (in.URL != "" || in.DOI != ""):
		if err := s.fetchSource(ctx, &src, so); err != nil {
			return nil, err
		}
	}
	if src.RetrievedAt.IsZero() {
		src.RetrievedAt = s.now()
	}
	src.Resolved = so.Content != ContentNone
	text := so.Text
	if so.Content == ContentExcerpt {
		text = src.Excerpt
	}
	if s.detector != nil && !indexed && text != "" && len(others) > 0 {
		found, err := s.detector.Detect(ctx, append(others, prov.SourceText{ID: newSourceID, Text: detectText(text)}))
		if err != nil {
			return nil, fmt.Errorf("add source: %w", err)
		}
		for _, c := range found {
			if c.A == newSourceID || c.B == newSourceID {
				so.Conflicts = append(so.Conflicts, c)
			}
		}
	}
	var analysed *prov.AnalysedText
	if indexed && text != "" {
		analysed = offline.Analyse(detectText(text)) // outside the session's lock
	}

	ss, err = s.writable(ctx, id)
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	soon := s.writes.expect() // stored next, unless refused
	defer soon.settle()
	if src.ID == "" {
		src.ID = ss.nextID("s")
	}
	var ix *prov.OfflineIndex
	if analysed != nil {
		// Under the lock, against every source recorded before this one,
		// those recorded since the request came included.
		if ix, err = ss.detectIndex(offline); err != nil {
			return nil, fmt.Errorf("add source: %w", err)
		}
		if so.Conflicts, err = ix.Conflicts(ctx, newSourceID, analysed); err != nil {
			return nil, fmt.Errorf("add source: %w", err)
		}
	}
	for i := range so.Conflicts {
		c := &so.Conflicts[i]
		if c.A == newSourceID {
			c.A = src.ID
		}
		if c.B == newSourceID {
			c.B = src.ID
		}
	}
	so.Source = src
	o := &op{Kind: opSource, At: s.now(), Source: so}
	g, err := ss.mutate(o)
	if err != nil {
		return nil, err
	}
	if err := s.validate(ss, o, g); err != nil {
		return nil, fmt.Errorf("add source %q: %w", src.ID, err)
	}
	if ix != nil {
		if err := ix.Add(src.ID, analysed); err != nil {
			return nil, fmt.Errorf("add source: %w", err)
		}
	}
	if err := s.commit(ctx, soon, ss, o, g); err != nil {
		ss.detect = nil // holds a source that is not recorded: built again when next needed
		return nil, err
	}
	res := &SourceResult{Session: id, Source: ss.sourceView(src, false), Fetch: so.Fetch, Conflicts: so.Conflicts}
	if !src.Resolved {
		res.Note = "unresolved: claims resting on this source will be gated, because " + ss.unresolvedWhy(src.ID)
	}
	return res, nil
}

// check validates a source before anything is fetched or stored.
func (in *SourceInput) check() error {
	if in.ID != "" {
		if err := checkID("source", in.ID); err != nil {
			return err
		}
	}
	in.URL = strings.TrimSpace(in.URL)
	in.DOI = normalizeDOI(in.DOI)
	in.Title = strings.TrimSpace(in.Title)
	if in.URL == "" && in.DOI == "" && in.Title == "" {
		return fmt.Errorf("a source needs a url, a doi or a title: %w", claimtrace.ErrInvalid)
	}
	if in.URL != "" {
		u, err := url.Parse(in.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q: want an absolute http or https URL: %w", in.URL, claimtrace.ErrInvalid)
		}
	}
	if in.DOI != "" && (!strings.HasPrefix(in.DOI, "10.") || !strings.Contains(in.DOI, "/")) {
		return fmt.Errorf("doi %q: want 10.<registrant>/<suffix>: %w", in.DOI, claimtrace.ErrInvalid)
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"url", in.URL, 8 << 10}, {"doi", in.DOI, 1 << 10}, {"title", in.Title, 4 << 10}, {"excerpt", in.Excerpt, MaxText}} {
		if err := checkText(f.name, f.v, f.max); err != nil {
			return err
		}
	}
	return nil
}

// normalizeDOI strips a resolver or "doi:" prefix.
func normalizeDOI(s string) string {
	s = strings.TrimSpace(s)
	l := strings.ToLower(s)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
		if strings.HasPrefix(l, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	return s
}

// fetchSource fetches the source's URL (or DOI link) and keeps its readable
// text in so. Only cancellation and infrastructure failures (the page cache)
// are errors; an unreachable, blocked, dead or unreadable page is recorded.
func (s *Service) fetchSource(ctx context.Context, src *prov.Source, so *sourceOp) error {
	target := src.URL
	if target == "" {
		target = "https://doi.org/" + src.DOI
	}
	info := &FetchInfo{URL: target}
	so.Fetch = info
	page, err := s.fetcher.Fetch(ctx, target)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("add source: fetch %s: %w", target, ctx.Err())
		}
		if !errors.Is(err, claimtrace.ErrUnreachable) && !errors.Is(err, claimtrace.ErrBlocked) {
			return fmt.Errorf("add source: %w", err)
		}
		info.Error = err.Error()
		if page != nil {
			info.Status = page.Status
		}
		return nil
	}
	info.Status, info.FinalURL = page.Status, page.FinalURL
	if info.FinalURL == target {
		info.FinalURL = ""
	}
	if page.Status < 200 || page.Status > 299 {
		return nil
	}
	c, err := fetch.Extract(page)
	if err != nil {
		info.Error = err.Error()
		return nil
	}
	if !page.FetchedAt.IsZero() && src.RetrievedAt.IsZero() {
		src.RetrievedAt = page.FetchedAt.UTC()
	}
	if src.Title == "" {
		src.Title = c.Title
	}
	if src.DOI == "" {
		src.DOI = c.Meta.DOI
	}
	if c.Wall != "" {
		info.Wall = c.Wall
		return nil
	}
	text := strings.TrimSpace(c.Text)
	if text == "" {
		info.Wall = fetch.WallEmpty
		return nil
	}
	if len(text) > MaxText {
		text = cutUTF8(text, MaxText)
		info.Truncated = true
	}
	so.Content, so.Text = ContentFetched, text
	return nil
}

// maxDetectText bounds the text of one source handed to the contradiction
// detector, which compares every sentence with every other source's.
const maxDetectText = 16 << 10

func detectText(t string) string { return cutUTF8(t, maxDetectText) }

// detectIndex returns the session's index of its sources' texts for the
// offline detector o, building it from the sources recorded so far when
// the session has none yet (new, or replayed from the store): the texts
// a source's conflicts are looked for in, as the detector would read them
// all (every source with text, in the order recorded). ss.mu is held.
func (ss *session) detectIndex(o prov.Offline) (*prov.OfflineIndex, error) {
	if ss.detect == nil {
		ix := o.NewIndex()
		for _, src := range ss.g.Sources {
			if t := ss.sources[src.ID].text; t != "" {
				if err := ix.Add(src.ID, o.Analyse(detectText(t))); err != nil {
					return nil, err
				}
			}
		}
		ss.detect = ix
	}
	return ss.detect, nil
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// sourceView describes the source with src's id; ss.mu is held.
func (ss *session) sourceView(src prov.Source, excerpt bool) SourceView {
	if full, ok := ss.source(src.ID); ok {
		src = full // src may come from an index without excerpts
	}
	st := ss.sources[src.ID]
	words := st.words // the excerpt's, counted once
	if st.content != ContentExcerpt {
		words = prov.CountWords(st.text)
	}
	v := SourceView{ID: src.ID, URL: src.URL, DOI: src.DOI, Title: src.Title, Resolved: src.Resolved,
		Content: st.content, Words: words, RetrievedAt: src.RetrievedAt}
	if v.Content == "" {
		v.Content = ContentNone
	}
	if excerpt {
		v.Excerpt = src.Excerpt
	}
	return v
}
