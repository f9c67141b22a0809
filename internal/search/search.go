// Package search gives a research agent its two tools: web search through a
// search API (SerpAPI's Google results, Brave Search, Tavily, a SearXNG
// instance) and page reading (our SSRF-safe fetcher, Firecrawl, Jina
// Reader).
//
// Every client takes its base URL and key from Options (nothing here reads
// the environment), retries rate limits (429, honouring Retry-After) and
// transient failures (5xx, network) with jittered backoff, and fails with an
// *Error naming the provider, the HTTP status and the provider's own
// explanation, never the key. Auth and quota failures wrap ErrAuth and
// ErrQuota so a caller can stop a whole run instead of failing every task
// the same way.
package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/backoff"
)

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// Searcher runs a web search and returns at most n results, best first.
type Searcher interface {
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// Reader returns the title and main text of a web page.
type Reader interface {
	Read(ctx context.Context, url string) (title, text string, err error)
}

// Search providers (Searcher implementations) and readers, by the names
// the command line uses.
const (
	SerpAPIName   = "serpapi"
	BraveName     = "brave"
	TavilyName    = "tavily"
	SearXNGName   = "searxng"
	BuiltinName   = "builtin"
	FirecrawlName = "firecrawl"
	JinaName      = "jina"
)

// Default base URLs of the public APIs. SearXNG has none: it is an instance
// the user runs.
const (
	DefaultSerpAPIURL   = "https://serpapi.com"
	DefaultBraveURL     = "https://api.search.brave.com/res/v1"
	DefaultTavilyURL    = "https://api.tavily.com"
	DefaultFirecrawlURL = "https://api.firecrawl.dev"
	DefaultJinaURL      = "https://r.jina.ai"
)

// MaxResults caps n in Search (the most Brave and Tavily return at once).
const MaxResults = 20

// Defaults applied to zero Options fields.
const (
	DefaultTimeout = 60 * time.Second
	DefaultRetries = 3
	DefaultBackoff = time.Second
	DefaultMaxWait = 30 * time.Second
)

// Options configure one client.
type Options struct {
	// BaseURL overrides the provider's public API (a self-hosted Firecrawl,
	// a proxy, a test server). SearXNG requires it.
	BaseURL string
	// APIKey authenticates; KeyEnv names the environment variable it came
	// from, for messages only ("set BRAVE_API_KEY").
	APIKey string
	KeyEnv string
	// HTTPClient sends the requests (default: a client with Timeout).
	HTTPClient *http.Client
	// Timeout bounds one attempt (default DefaultTimeout).
	Timeout time.Duration
	// Retries is the number of extra attempts after a 429, a 5xx or a
	// network failure (default DefaultRetries; negative means none).
	Retries int
	// Backoff is the first delay of the jittered exponential backoff
	// (default DefaultBackoff); MaxWait caps one wait, a provider's
	// Retry-After included (default DefaultMaxWait).
	Backoff time.Duration
	MaxWait time.Duration
	// Sleep waits between attempts (default: a timer honouring ctx). Tests
	// replace it to observe delays without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o Options) withDefaults(base string) Options {
	if o.BaseURL == "" {
		o.BaseURL = base
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: o.Timeout}
	}
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Sleep == nil {
		o.Sleep = backoff.Sleep
	}
	return o
}

// Error kinds, matched with errors.Is on an *Error. ErrAuth, ErrQuota,
// ErrRateLimit and ErrBadRequest are the root package's, the ones the model
// clients (internal/llm) return too.
var (
	// ErrAuth: the key is missing, invalid or not entitled (401, 403,
	// Brave's SUBSCRIPTION_TOKEN_INVALID).
	ErrAuth = claimtrace.ErrAuth
	// ErrQuota: the plan's quota or credit is used up (402, Tavily 432/433,
	// Brave QUOTA_LIMITED). Retrying cannot help.
	ErrQuota = claimtrace.ErrQuota
	// ErrRateLimit: still rate limited after the retries.
	ErrRateLimit = claimtrace.ErrRateLimit
	// ErrBadRequest: the provider rejected the request (another 4xx).
	ErrBadRequest = claimtrace.ErrBadRequest
	// ErrMalformed: the answer is not the JSON the provider documents.
	ErrMalformed = errors.New("malformed response")
)

// Error is a failed search or read. Its message never contains the key.
type Error struct {
	// Provider is the client's name (SerpAPIName, BraveName, …).
	Provider string
	// Op is what was attempted: a query or a URL.
	Op string
	// Kind is one of the Err* kinds above, or claimtrace.ErrUnreachable
	// (network failures and 5xx after the retries, pages that are gone),
	// claimtrace.ErrBlocked (a URL the fetch policy refuses) or
	// claimtrace.ErrInvalid (a URL that is not http(s)).
	Kind error
	// Status is the HTTP status (0 when no answer arrived).
	Status int
	// Code is the provider's error code, when it gives one.
	Code string
	// Attempts counts the attempts made.
	Attempts int

	msg string
	err error
}

// Error describes the failure: provider, operation, kind, status, code, the
// provider's explanation and the attempts.
func (e *Error) Error() string {
	return backoff.Describe(e.Provider+" "+e.Op, e.Kind, e.Status, e.Code, e.msg, e.Attempts)
}

// Is matches the error's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying network or decoding error, if any.
func (e *Error) Unwrap() error { return e.err }

// Fatal reports whether err means every further call will fail the same
// way (bad key, exhausted quota), so a run should stop rather than go on
// failing task after task.
func Fatal(err error) bool {
	return errors.Is(err, ErrAuth) || errors.Is(err, ErrQuota)
}

// NewSearcher returns the named search client (SerpAPIName, BraveName,
// TavilyName or SearXNGName).
func NewSearcher(name string, opts Options) (Searcher, error) {
	var (
		s   Searcher
		err error
	)
	switch strings.ToLower(name) {
	case SerpAPIName:
		s, err = NewSerpAPI(opts)
	case BraveName:
		s, err = NewBrave(opts)
	case TavilyName:
		s, err = NewTavily(opts)
	case SearXNGName:
		s, err = NewSearXNG(opts)
	default:
		err = fmt.Errorf("search provider %q: want serpapi, brave, tavily or searxng: %w", name, claimtrace.ErrInvalid)
	}
	if err != nil {
		return nil, err // not s: a typed nil pointer in an interface is not nil
	}
	return s, nil
}

// missingKey is the error of a client built without the key it needs.
func missingKey(provider, env string) error {
	return &Error{Provider: provider, Op: "setup", Kind: ErrAuth, msg: "no API key: set " + env}
}

// clampN keeps a requested result count within 1..MaxResults.
func clampN(n int) int {
	return max(1, min(n, MaxResults))
}
