// Package scholar looks works up in the arXiv, Crossref and OpenAlex APIs.
//
// It is the API rung of the metadata ladder: identifiers found in a URL or
// a page are confirmed and completed here (title, authors, date, venue),
// and title-only references are searched. It also reads how often works
// are cited (OpenAlex cited_by_count, Crossref is-referenced-by-count,
// Semantic Scholar citationCount), for analyses by reference importance.
// The APIs are user-configured, trusted endpoints, so a plain http.Client
// is used; every API has its own rate limit (arXiv asks for one request
// every three seconds), and 429 and 5xx answers are retried with backoff,
// honouring Retry-After.
package scholar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/backoff"
)

// Sources of a Record.
const (
	SourceArXiv    = "arxiv"
	SourceCrossref = "crossref"
	SourceOpenAlex = "openalex"
)

// Record is a work as one API describes it.
type Record struct {
	// Source is SourceArXiv, SourceCrossref or SourceOpenAlex.
	Source string `json:"source"`
	// ArXivID is version-less ("1706.03762", "hep-th/9901001").
	ArXivID string `json:"arxiv_id,omitempty"`
	// DOI is as the API spells it, without a resolver prefix.
	DOI string `json:"doi,omitempty"`
	// PMID and PMCID are the PubMed and PubMed Central ids OpenAlex holds
	// ("31452104", "PMC6614286"); PII the Elsevier item id Crossref lists
	// among a work's alternative ids ("S0967066112001050").
	PMID      string    `json:"pmid,omitempty"`
	PMCID     string    `json:"pmcid,omitempty"`
	PII       string    `json:"pii,omitempty"`
	Title     string    `json:"title"`
	Authors   []string  `json:"authors,omitempty"`
	Published time.Time `json:"published,omitzero"`
	// Venue is the journal or proceedings (arXiv: the journal reference).
	Venue string `json:"venue,omitempty"`
	URL   string `json:"url,omitempty"`
	// Type is the API's work type ("preprint", "journal-article", "article", …).
	Type string `json:"type,omitempty"`
}

// Default endpoints and limits.
const (
	DefaultArXivURL      = "https://export.arxiv.org/api/query"
	DefaultCrossrefURL   = "https://api.crossref.org"
	DefaultOpenAlexURL   = "https://api.openalex.org"
	DefaultArXivInterval = 3 * time.Second
	DefaultCrossrefRPS   = 5
	DefaultOpenAlexRPS   = 10
	DefaultRetries       = 3
	DefaultBackoff       = time.Second
	DefaultMaxWait       = time.Minute
	DefaultArXivBatch    = 50
	DefaultRows          = 5
	// maxBody caps an API response.
	maxBody = 32 << 20
)

// The Semantic Scholar Graph API's endpoint and its rate for one caller.
const (
	DefaultSemanticScholarURL = "https://api.semanticscholar.org/graph/v1"
	DefaultSemanticScholarRPS = 1
)

// Options configures a Client. Zero fields take the defaults above.
type Options struct {
	// ArXivURL is the arXiv query endpoint (…/api/query).
	ArXivURL string
	// CrossrefURL is the Crossref REST base (…/works is appended).
	CrossrefURL string
	// OpenAlexURL is the OpenAlex base (…/works is appended).
	OpenAlexURL string
	// HTTPClient makes the requests; nil means a client with a 30 s timeout.
	HTTPClient *http.Client
	// UserAgent is sent with every request; Mailto is appended to it.
	UserAgent string
	// Mailto identifies the caller to Crossref's polite pool and OpenAlex.
	Mailto string
	// OpenAlexKey is sent as OpenAlex's api_key parameter.
	OpenAlexKey string
	// SemanticScholarURL is the Semantic Scholar Graph API base
	// (…/graph/v1; /paper/… is appended).
	SemanticScholarURL string
	// SemanticScholarKey is sent as the x-api-key header; without one the
	// API serves a small shared pool.
	SemanticScholarKey string
	// ArXivInterval is the pause between arXiv requests (negative: none).
	ArXivInterval time.Duration
	// CrossrefRPS, OpenAlexRPS and SemanticScholarRPS limit requests per
	// second (negative: none).
	CrossrefRPS, OpenAlexRPS, SemanticScholarRPS float64
	// Retries is the number of extra attempts after 429, 5xx or a network
	// error (negative: none).
	Retries int
	// Backoff is the base of the jittered exponential backoff; MaxWait caps
	// one wait, Retry-After included.
	Backoff, MaxWait time.Duration
	// ArXivBatch is the number of ids per arXiv id_list request.
	ArXivBatch int
	// Rows is the number of search results asked of each API.
	Rows int
	// Now returns the current time (Retry-After dates).
	Now func() time.Time
}

// Client queries the APIs. It is safe for concurrent use.
type Client struct {
	opts                         Options
	http                         *http.Client
	arxiv, crossref, openalx, s2 *rate.Limiter
}

// New returns a Client with opts, filling in defaults.
func New(opts Options) *Client {
	if opts.ArXivURL == "" {
		opts.ArXivURL = DefaultArXivURL
	}
	if opts.CrossrefURL == "" {
		opts.CrossrefURL = DefaultCrossrefURL
	}
	if opts.OpenAlexURL == "" {
		opts.OpenAlexURL = DefaultOpenAlexURL
	}
	if opts.SemanticScholarURL == "" {
		opts.SemanticScholarURL = DefaultSemanticScholarURL
	}
	opts.CrossrefURL = strings.TrimRight(opts.CrossrefURL, "/")
	opts.OpenAlexURL = strings.TrimRight(opts.OpenAlexURL, "/")
	opts.SemanticScholarURL = strings.TrimRight(opts.SemanticScholarURL, "/")
	if opts.UserAgent == "" {
		opts.UserAgent = "claimtrace/0.1 (+https://github.com/claimtrace/claimtrace)"
	}
	if opts.Mailto != "" && !strings.Contains(opts.UserAgent, "mailto:") {
		opts.UserAgent += " (mailto:" + opts.Mailto + ")"
	}
	if opts.ArXivInterval == 0 {
		opts.ArXivInterval = DefaultArXivInterval
	}
	if opts.CrossrefRPS == 0 {
		opts.CrossrefRPS = DefaultCrossrefRPS
	}
	if opts.OpenAlexRPS == 0 {
		opts.OpenAlexRPS = DefaultOpenAlexRPS
	}
	if opts.SemanticScholarRPS == 0 {
		opts.SemanticScholarRPS = DefaultSemanticScholarRPS
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.ArXivBatch <= 0 {
		opts.ArXivBatch = DefaultArXivBatch
	}
	if opts.Rows <= 0 {
		opts.Rows = DefaultRows
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	arxivLimit := rate.Inf
	if opts.ArXivInterval > 0 {
		arxivLimit = rate.Every(opts.ArXivInterval)
	}
	return &Client{
		opts:     opts,
		http:     hc,
		arxiv:    rate.NewLimiter(arxivLimit, 1),
		crossref: rate.NewLimiter(limitOf(opts.CrossrefRPS), 1),
		openalx:  rate.NewLimiter(limitOf(opts.OpenAlexRPS), 1),
		s2:       rate.NewLimiter(limitOf(opts.SemanticScholarRPS), 1),
	}
}

func limitOf(rps float64) rate.Limit {
	if rps < 0 {
		return rate.Inf
	}
	return rate.Limit(rps)
}

// get fetches u with the API's rate limit and retries. It returns the body
// of a 2xx answer; 404 is claimtrace.ErrNotFound, other 4xx are
// claimtrace.ErrInvalid, and 429/5xx/network errors after the retries are
// claimtrace.ErrUnreachable.
func (c *Client) get(ctx context.Context, api string, lim *rate.Limiter, u string) ([]byte, error) {
	return c.getWith(ctx, api, lim, u, nil)
}

// getWith is get sending extra request headers (an API key). Its errors
// never carry a key that the URL holds (OpenAlex takes it as a parameter).
func (c *Client) getWith(ctx context.Context, api string, lim *rate.Limiter, u string, hdr http.Header) ([]byte, error) {
	body, err := c.getWithKey(ctx, api, lim, u, hdr)
	if err != nil && c.opts.OpenAlexKey != "" {
		err = &scrubbed{msg: strings.ReplaceAll(err.Error(), c.opts.OpenAlexKey, "[REDACTED]"), err: err}
	}
	return body, err
}

// scrubbed is an error whose message had a secret removed; errors.Is and
// errors.As still see the original chain.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

func (c *Client) getWithKey(ctx context.Context, api string, lim *rate.Limiter, u string, hdr http.Header) ([]byte, error) {
	var lastErr error
	for attempt := 0; ; attempt++ {
		if err := lim.Wait(ctx); err != nil {
			return nil, fmt.Errorf("%s %s: %w", api, u, err)
		}
		body, status, wait, err := c.once(ctx, u, hdr)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %s: %w", api, u, ctx.Err())
		}
		switch {
		case err != nil:
			lastErr = err
		case status >= 200 && status < 300:
			return body, nil
		case status == http.StatusNotFound:
			return nil, fmt.Errorf("%s %s: http 404: %w", api, u, claimtrace.ErrNotFound)
		case status == http.StatusTooManyRequests || status >= 500:
			lastErr = fmt.Errorf("http %d: %s", status, snippet(body))
		default:
			return nil, fmt.Errorf("%s %s: http %d: %s: %w", api, u, status, snippet(body), claimtrace.ErrInvalid)
		}
		if attempt >= c.opts.Retries {
			return nil, fmt.Errorf("%s %s: %w after %d attempts: %w", api, u, claimtrace.ErrUnreachable, attempt+1, lastErr)
		}
		if err := backoff.Sleep(ctx, backoff.Delay(c.opts.Backoff, c.opts.MaxWait, attempt, wait)); err != nil {
			return nil, fmt.Errorf("%s %s: %w", api, u, err)
		}
	}
}

func (c *Client) once(ctx context.Context, u string, hdr http.Header) (body []byte, status int, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w", claimtrace.ErrInvalid, err)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, 0, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, 0, 0, err
	}
	if len(body) > maxBody {
		return nil, 0, 0, fmt.Errorf("response over %d bytes: %w", maxBody, claimtrace.ErrTooLarge)
	}
	return body, resp.StatusCode, backoff.RetryAfter(resp.Header.Get("Retry-After"), c.opts.Now()), nil
}

// snippet returns the start of a body for error messages.
func snippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		b = b[:200]
	}
	return strings.ToValidUTF8(string(b), "?")
}

// polite adds the polite-pool parameters (mailto, OpenAlex api_key) to v.
func (c *Client) polite(v url.Values, openAlex bool) url.Values {
	if c.opts.Mailto != "" {
		v.Set("mailto", c.opts.Mailto)
	}
	if openAlex && c.opts.OpenAlexKey != "" {
		v.Set("api_key", c.opts.OpenAlexKey)
	}
	return v
}

// SearchTitle searches OpenAlex, Crossref and arXiv for a title, in
// parallel, and returns their records in that order (each API's own
// ranking). If some APIs fail, the others' records are returned together
// with an error joining the failures, so a caller can use partial results
// and still count the failure.
func (c *Client) SearchTitle(ctx context.Context, title string) ([]Record, error) {
	if strings.TrimSpace(title) == "" {
		return nil, fmt.Errorf("search title: empty title: %w", claimtrace.ErrInvalid)
	}
	type result struct {
		recs []Record
		err  error
	}
	searches := []func(context.Context, string) ([]Record, error){c.OpenAlexSearch, c.CrossrefSearch, c.ArXivSearch}
	results := make([]result, len(searches))
	var wg sync.WaitGroup
	for i, search := range searches {
		wg.Go(func() {
			recs, err := search(ctx, title)
			results[i] = result{recs, err}
		})
	}
	wg.Wait()
	var recs []Record
	var errs []error
	for _, r := range results {
		recs = append(recs, r.recs...)
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	return recs, errors.Join(errs...)
}

// searchTerms reduces a title to words, which every API's query syntax
// accepts: quotes, commas, colons, pipes and brackets are operators in
// some of them.
func searchTerms(title string) string {
	var b strings.Builder
	for _, r := range title {
		switch {
		case r == '"' || r == ',' || r == ':' || r == '|' || r == '(' || r == ')' || r == '[' || r == ']' ||
			r == '{' || r == '}' || r == '!' || r == '\\' || r == '^' || r == '~' || r == '*' || r == '?' || r == '+':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
