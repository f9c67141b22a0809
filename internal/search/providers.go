package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// SerpAPI searches Google through SerpAPI: GET /search.json?engine=google,
// results in organic_results[].{title, link, snippet}.
type SerpAPI struct{ o Options }

// NewSerpAPI returns a SerpAPI client; the key is required.
func NewSerpAPI(opts Options) (*SerpAPI, error) {
	if opts.APIKey == "" {
		return nil, missingKey(SerpAPIName, or(opts.KeyEnv, "SERPAPI_API_KEY"))
	}
	return &SerpAPI{opts.withDefaults(DefaultSerpAPIURL)}, nil
}

// Search returns Google's organic results for query.
func (s *SerpAPI) Search(ctx context.Context, query string, n int) ([]Result, error) {
	op, err := checkQuery(SerpAPIName, query)
	if err != nil {
		return nil, err
	}
	n = clampN(n)
	body, err := s.o.do(ctx, request{provider: SerpAPIName, op: op, build: func(ctx context.Context) (*http.Request, error) {
		q := url.Values{"engine": {"google"}, "q": {query}, "num": {strconv.Itoa(n)}, "api_key": {s.o.APIKey}}
		return newRequest(ctx, http.MethodGet, s.o.BaseURL+"/search.json?"+q.Encode(), nil)
	}})
	if err != nil {
		return nil, err
	}
	return decodeSerpAPI(op, body, n)
}

// decodeSerpAPI reads a SerpAPI Google answer. SerpAPI reports "no
// results" as a 200 with an error string; that is an empty result, not a
// failure.
func decodeSerpAPI(op string, body []byte, n int) ([]Result, error) {
	var v struct {
		Error          string `json:"error"`
		OrganicResults []struct {
			Title   string `json:"title"`
			Link    string `json:"link"`
			Snippet string `json:"snippet"`
		} `json:"organic_results"`
	}
	if err := decodeJSON(SerpAPIName, op, body, &v); err != nil {
		return nil, err
	}
	if v.Error != "" && len(v.OrganicResults) == 0 {
		if strings.Contains(strings.ToLower(v.Error), "hasn't returned any results") {
			return []Result{}, nil
		}
		return nil, &Error{Provider: SerpAPIName, Op: op, Kind: kindOf(http.StatusOK, "", v.Error), Status: http.StatusOK, msg: truncate(v.Error, 300)}
	}
	out := make([]Result, 0, len(v.OrganicResults))
	for _, r := range v.OrganicResults {
		out = appendResult(out, r.Title, r.Link, r.Snippet)
	}
	return limit(out, n), nil
}

// Brave searches with the Brave Search API: GET /web/search with the key in
// X-Subscription-Token, results in web.results[].{title, url, description}.
type Brave struct{ o Options }

// NewBrave returns a Brave Search client; the key is required.
func NewBrave(opts Options) (*Brave, error) {
	if opts.APIKey == "" {
		return nil, missingKey(BraveName, or(opts.KeyEnv, "BRAVE_API_KEY"))
	}
	return &Brave{opts.withDefaults(DefaultBraveURL)}, nil
}

// braveMaxQuery is the longest query Brave accepts (characters).
const braveMaxQuery = 400

// Search returns Brave's web results for query.
func (s *Brave) Search(ctx context.Context, query string, n int) ([]Result, error) {
	op, err := checkQuery(BraveName, query)
	if err != nil {
		return nil, err
	}
	if r := []rune(query); len(r) > braveMaxQuery {
		query = string(r[:braveMaxQuery])
	}
	n = clampN(n)
	body, err := s.o.do(ctx, request{provider: BraveName, op: op, build: func(ctx context.Context) (*http.Request, error) {
		q := url.Values{"q": {query}, "count": {strconv.Itoa(n)}}
		req, err := newRequest(ctx, http.MethodGet, s.o.BaseURL+"/web/search?"+q.Encode(), nil)
		if err == nil {
			req.Header.Set("X-Subscription-Token", s.o.APIKey)
		}
		return req, err
	}})
	if err != nil {
		return nil, err
	}
	return decodeBrave(op, body, n)
}

func decodeBrave(op string, body []byte, n int) ([]Result, error) {
	var v struct {
		Web *struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := decodeJSON(BraveName, op, body, &v); err != nil {
		return nil, err
	}
	out := []Result{}
	if v.Web == nil {
		// Brave omits "web" when nothing matched; anything else that is not
		// a search answer is malformed.
		var probe struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(body, &probe) != nil || probe.Type != "search" {
			return nil, &Error{Provider: BraveName, Op: op, Kind: ErrMalformed, msg: "answer has no web results and is not a search answer"}
		}
		return out, nil
	}
	for _, r := range v.Web.Results {
		out = appendResult(out, r.Title, r.URL, r.Description)
	}
	return limit(out, n), nil
}

// Tavily searches with the Tavily API: POST /search with a bearer key,
// results in results[].{title, url, content}.
type Tavily struct{ o Options }

// NewTavily returns a Tavily client; the key is required.
func NewTavily(opts Options) (*Tavily, error) {
	if opts.APIKey == "" {
		return nil, missingKey(TavilyName, or(opts.KeyEnv, "TAVILY_API_KEY"))
	}
	return &Tavily{opts.withDefaults(DefaultTavilyURL)}, nil
}

// Search returns Tavily's results for query (basic depth, no generated
// answer).
func (s *Tavily) Search(ctx context.Context, query string, n int) ([]Result, error) {
	op, err := checkQuery(TavilyName, query)
	if err != nil {
		return nil, err
	}
	n = clampN(n)
	payload, err := json.Marshal(map[string]any{"query": query, "max_results": n, "search_depth": "basic", "include_answer": false})
	if err != nil {
		return nil, fmt.Errorf("tavily %s: %w", op, err)
	}
	body, err := s.o.do(ctx, request{provider: TavilyName, op: op, build: func(ctx context.Context) (*http.Request, error) {
		req, err := newRequest(ctx, http.MethodPost, s.o.BaseURL+"/search", payload)
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+s.o.APIKey)
		}
		return req, err
	}})
	if err != nil {
		return nil, err
	}
	return decodeContentResults(TavilyName, op, body, n)
}

// SearXNG searches a SearXNG instance: GET /search?format=json, results in
// results[].{title, url, content}. The instance must allow the json format
// (search.formats in its settings.yml).
type SearXNG struct{ o Options }

// NewSearXNG returns a client of the instance at opts.BaseURL (required);
// a key, if given, is sent as a bearer token for instances behind a proxy.
func NewSearXNG(opts Options) (*SearXNG, error) {
	if opts.BaseURL == "" {
		return nil, fmt.Errorf("searxng: no instance URL: set the base URL of your SearXNG instance: %w", claimtrace.ErrInvalid)
	}
	return &SearXNG{opts.withDefaults("")}, nil
}

// Search returns the instance's results for query.
func (s *SearXNG) Search(ctx context.Context, query string, n int) ([]Result, error) {
	op, err := checkQuery(SearXNGName, query)
	if err != nil {
		return nil, err
	}
	n = clampN(n)
	body, err := s.o.do(ctx, request{provider: SearXNGName, op: op, build: func(ctx context.Context) (*http.Request, error) {
		q := url.Values{"q": {query}, "format": {"json"}, "pageno": {"1"}}
		req, err := newRequest(ctx, http.MethodGet, s.o.BaseURL+"/search?"+q.Encode(), nil)
		if err == nil && s.o.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+s.o.APIKey)
		}
		return req, err
	}})
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusForbidden {
		e.msg = "the instance refuses format=json; add json to search.formats in its settings.yml"
	}
	if err != nil {
		return nil, err
	}
	return decodeContentResults(SearXNGName, op, body, n)
}

// decodeContentResults reads results[].{title, url, content}, the shape
// Tavily and SearXNG share.
func decodeContentResults(provider, op string, body []byte, n int) ([]Result, error) {
	var v struct {
		Results *[]struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := decodeJSON(provider, op, body, &v); err != nil {
		return nil, err
	}
	if v.Results == nil {
		return nil, &Error{Provider: provider, Op: op, Kind: ErrMalformed, msg: "answer has no results list"}
	}
	out := make([]Result, 0, len(*v.Results))
	for _, r := range *v.Results {
		out = appendResult(out, r.Title, r.URL, r.Content)
	}
	return limit(out, n), nil
}

// checkQuery validates a query and returns the operation name used in
// errors.
func checkQuery(provider, query string) (string, error) {
	op := fmt.Sprintf("search %q", truncate(strings.TrimSpace(query), 80))
	if strings.TrimSpace(query) == "" {
		return op, &Error{Provider: provider, Op: "search", Kind: ErrBadRequest, msg: "empty query"}
	}
	return op, nil
}

// appendResult adds a cleaned result unless it has no http(s) URL or
// repeats one already listed.
func appendResult(out []Result, title, link, snippet string) []Result {
	link = strings.TrimSpace(link)
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return out
	}
	for _, r := range out {
		if r.URL == link {
			return out
		}
	}
	return append(out, Result{Title: clean(title), URL: link, Snippet: clean(snippet)})
}

var tagRE = lazyregexp.New(`<[^>]{0,200}>`)

// clean turns a provider's title or snippet (Brave marks matches with
// <strong>, SearXNG passes entities through) into plain one-line text.
func clean(s string) string {
	if strings.ContainsAny(s, "<&") {
		s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	}
	return strings.Join(strings.Fields(s), " ")
}

func limit(rs []Result, n int) []Result {
	if len(rs) > n {
		return rs[:n]
	}
	return rs
}

func newRequest(ctx context.Context, method, u string, body []byte) (*http.Request, error) {
	var r *bytes.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	var req *http.Request
	var err error
	if r != nil {
		req, err = http.NewRequestWithContext(ctx, method, u, r)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, u, nil)
	}
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "claimtrace/0.1 (+https://github.com/claimtrace/claimtrace)")
	return req, nil
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
