// Package searchtest runs in-process fakes of the search and reader APIs
// claimtrace's agent uses, each speaking its provider's real wire format:
// SerpAPI (GET /search.json, organic_results), Brave Search (GET
// /web/search, X-Subscription-Token, web.results with <strong> marks),
// Tavily (POST /search, bearer key, results), SearXNG (GET
// /search?format=json), Firecrawl (POST /v1/scrape, data.markdown) and Jina
// Reader (GET /<url>, JSON or text). Every request is recorded; replies
// are scripted or computed; faults come in each provider's real error shape
// (429 with Retry-After, 5xx, HTML from a proxy, bad key, exhausted quota,
// dropped connections, non-JSON bodies).
package searchtest

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimtrace/claimtrace/internal/search"
)

// Kind is the API a Server speaks.
type Kind string

// The APIs.
const (
	SerpAPI   Kind = search.SerpAPIName
	Brave     Kind = search.BraveName
	Tavily    Kind = search.TavilyName
	SearXNG   Kind = search.SearXNGName
	Firecrawl Kind = search.FirecrawlName
	Jina      Kind = search.JinaName
)

// Fault is an injected failure.
type Fault int

// Faults, rendered in each provider's error shape.
const (
	NoFault        Fault = iota
	RateLimit            // 429 (with Retry-After when Reply.RetryAfter is set)
	ServerError          // 500 with a JSON error
	BadGateway           // 502 with an HTML body, as from a proxy
	Unauthorized         // the provider's bad-key answer (Brave: 422 SUBSCRIPTION_TOKEN_INVALID; SearXNG: 403, json format disabled)
	Quota                // the provider's out-of-quota answer (SerpAPI 429 "run out of searches", Brave 429 QUOTA_LIMITED, Tavily 432, Firecrawl 402)
	Malformed            // 200 with an HTML body
	NoResults            // the provider's "nothing found" answer
	DropConnection       // the connection closes without an answer
)

// Page is a page a reader fake serves.
type Page struct {
	Title string
	Text  string
	// Status is the target page's HTTP status (default 200).
	Status int
}

// Reply is a scripted answer or fault.
type Reply struct {
	Results []search.Result
	Page    *Page
	Fault   Fault
	// RetryAfter goes with RateLimit: the Retry-After header.
	RetryAfter time.Duration
	// Delay is how long the server waits before answering.
	Delay time.Duration
}

// Results is a search answer.
func Results(rs ...search.Result) Reply { return Reply{Results: rs} }

// Fail is a fault.
func Fail(f Fault) Reply { return Reply{Fault: f} }

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	// Q is the search query, or the URL a reader was asked for.
	Q string
	// Key is the key the request carried (api_key, X-Subscription-Token or
	// bearer token).
	Key string
}

// Server is a fake API. Replies come from the script (Enqueue) first, then
// from the handler (Handle), then the default: three results derived from
// the query for search APIs, the page set with SetPage for readers.
type Server struct {
	// URL is the base URL to configure the client with.
	URL  string
	Kind Kind

	srv *httptest.Server

	mu      sync.Mutex
	script  []Reply
	handler func(q string) Reply
	pages   map[string]Page
	key     string
	reqs    []Request
}

// NewServer starts a fake of kind, closed when the test ends.
func NewServer(tb testing.TB, kind Kind) *Server {
	s := &Server{Kind: kind, pages: map[string]Page{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// Enqueue appends scripted replies, served in order, one per request.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// Handle sets the function answering requests once the script is empty; q
// is the query or the URL asked for.
func (s *Server) Handle(h func(q string) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// SetPage makes a reader fake serve p for rawURL.
func (s *Server) SetPage(rawURL string, p Page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[rawURL] = p
}

// RequireKey makes requests without this key fail with the provider's
// bad-key answer.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// DefaultResults are the results a search fake returns for q when nothing
// is scripted: three pages on example.org derived from the query.
func DefaultResults(q string) []search.Result {
	slug := strings.Join(strings.Fields(strings.ToLower(q)), "-")
	if len(slug) > 40 {
		slug = slug[:40]
	}
	slug = url.PathEscape(slug)
	var out []search.Result
	for i := 1; i <= 3; i++ {
		out = append(out, search.Result{
			Title:   fmt.Sprintf("Result %d for %s", i, q),
			URL:     fmt.Sprintf("https://example.org/%s/%d", slug, i),
			Snippet: fmt.Sprintf("Snippet %d about %s & related work.", i, q),
		})
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
	ok := s.parse(r, &req)

	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	var reply Reply
	switch {
	case !ok:
		s.mu.Unlock()
		s.badRequest(w, req)
		return
	case s.key != "" && req.Key != s.key:
		reply = Reply{Fault: Unauthorized}
	case len(s.script) > 0:
		reply = s.script[0]
		s.script = s.script[1:]
	case s.handler != nil:
		h := s.handler
		s.mu.Unlock()
		reply = h(req.Q)
		s.mu.Lock()
	case s.isReader():
		if p, found := s.pages[req.Q]; found {
			reply = Reply{Page: &p}
		}
	default:
		reply = Reply{Results: DefaultResults(req.Q)}
	}
	s.mu.Unlock()

	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	switch reply.Fault {
	case NoFault:
	case DropConnection:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case Malformed:
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body><h1>Welcome to nginx!</h1></body></html>")
		return
	case BadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>")
		return
	default:
		if reply.Fault != NoResults {
			s.writeFault(w, req, reply)
			return
		}
	}
	if s.isReader() {
		s.writePage(w, r, req, reply)
		return
	}
	results := reply.Results
	if reply.Fault == NoResults {
		results = nil
	}
	s.writeResults(w, req, results, reply.Fault == NoResults)
}

func (s *Server) isReader() bool { return s.Kind == Firecrawl || s.Kind == Jina }

// parse fills Q and Key and reports whether the request has the shape the
// real API requires.
func (s *Server) parse(r *http.Request, req *Request) bool {
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch s.Kind {
	case SerpAPI:
		req.Q, req.Key = req.Query.Get("q"), req.Query.Get("api_key")
		return r.Method == http.MethodGet && (r.URL.Path == "/search.json" || r.URL.Path == "/search") && req.Q != ""
	case Brave:
		req.Q, req.Key = req.Query.Get("q"), r.Header.Get("X-Subscription-Token")
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/web/search") && req.Q != "" && req.Key != ""
	case Tavily:
		var b struct {
			Query      string `json:"query"`
			MaxResults *int   `json:"max_results"`
		}
		err := json.Unmarshal(req.Body, &b)
		req.Q, req.Key = b.Query, bearer
		return r.Method == http.MethodPost && r.URL.Path == "/search" && err == nil && b.Query != ""
	case SearXNG:
		req.Q, req.Key = req.Query.Get("q"), bearer
		return r.Method == http.MethodGet && r.URL.Path == "/search" && req.Q != ""
	case Firecrawl:
		var b struct {
			URL     string   `json:"url"`
			Formats []string `json:"formats"`
		}
		err := json.Unmarshal(req.Body, &b)
		req.Q, req.Key = b.URL, bearer
		return r.Method == http.MethodPost && r.URL.Path == "/v1/scrape" && err == nil && b.URL != ""
	case Jina:
		// GET /https://example.org/page?x=1: the target is the rest of the
		// request line.
		target := strings.TrimPrefix(r.URL.Path, "/")
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		req.Q, req.Key = target, bearer
		return r.Method == http.MethodGet && strings.HasPrefix(target, "http")
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// badRequest answers a request the real API would reject as malformed.
func (s *Server) badRequest(w http.ResponseWriter, req Request) {
	switch s.Kind {
	case Brave:
		// A missing X-Subscription-Token is a validation error too.
		writeJSON(w, 422, braveError(422, "VALIDATION", "Unable to validate request parameter(s)", "validation"))
	case SerpAPI:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "Missing query `q` parameter."})
	case Tavily:
		writeJSON(w, http.StatusBadRequest, map[string]any{"detail": map[string]any{"error": "Invalid request: query is required."}})
	case Firecrawl:
		writeJSON(w, http.StatusBadRequest, map[string]any{"success": false, "error": "Bad Request", "details": []any{map[string]any{"path": []string{"url"}, "message": "Required"}}})
	default:
		http.Error(w, "Bad Request", http.StatusBadRequest)
	}
}

func braveError(status int, code, detail, component string) map[string]any {
	return map[string]any{"type": "ErrorResponse", "error": map[string]any{
		"id": "5d832250-9396-4f6e-b84a-2a1fe524cd7d", "status": status, "code": code, "detail": detail,
		"meta": map[string]any{"component": component},
	}, "time": 1767225600}
}

func (s *Server) writeFault(w http.ResponseWriter, req Request, r Reply) {
	if r.Fault == RateLimit && r.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(r.RetryAfter.Round(time.Second)/time.Second))))
	}
	if r.Fault == ServerError {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "Internal server error"})
		return
	}
	switch s.Kind {
	case SerpAPI:
		switch r.Fault {
		case RateLimit:
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "Your searches for the past hour have exceeded your hourly throughput limit. Please wait or upgrade your plan."})
		case Quota:
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "Your account has run out of searches."})
		default:
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"})
		}
	case Brave:
		switch r.Fault {
		case RateLimit:
			writeJSON(w, http.StatusTooManyRequests, braveError(429, "RATE_LIMITED", "Request rate limit exceeded for plan.", "rate_limiter"))
		case Quota:
			writeJSON(w, http.StatusTooManyRequests, braveError(429, "QUOTA_LIMITED", "Request quota limit exceeded for plan.", "rate_limiter"))
		default:
			writeJSON(w, 422, braveError(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", "authentication"))
		}
	case Tavily:
		switch r.Fault {
		case RateLimit:
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"detail": map[string]any{"error": "Your request has been blocked due to excessive requests. Please reduce the rate of requests."}})
		case Quota:
			writeJSON(w, 432, map[string]any{"detail": map[string]any{"error": "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com"}})
		default:
			writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": map[string]any{"error": "Unauthorized: missing or invalid API key."}})
		}
	case SearXNG:
		switch r.Fault {
		case RateLimit:
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>")
		}
	case Firecrawl:
		switch r.Fault {
		case RateLimit:
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"success": false, "error": "Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after 60s."})
		case Quota:
			writeJSON(w, http.StatusPaymentRequired, map[string]any{"success": false, "error": "Insufficient credits to perform this request. For more credits, you can upgrade your plan at https://firecrawl.dev/pricing."})
		default:
			writeJSON(w, http.StatusUnauthorized, map[string]any{"success": false, "error": "Unauthorized: Invalid token"})
		}
	case Jina:
		switch r.Fault {
		case RateLimit, Quota:
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"data": nil, "code": 429, "name": "RateLimitTriggeredError", "status": 42903,
				"message": "Per IP rate limit exceeded", "readableMessage": "RateLimitTriggeredError: Per IP rate limit exceeded"})
		default:
			writeJSON(w, http.StatusUnauthorized, map[string]any{"data": nil, "code": 401, "name": "AuthenticationFailedError", "status": 40103,
				"message": "Invalid API key, please get a new one from https://jina.ai", "readableMessage": "AuthenticationFailedError: Invalid API key"})
		}
	}
}

// writeResults renders a search answer in the provider's shape.
func (s *Server) writeResults(w http.ResponseWriter, req Request, rs []search.Result, none bool) {
	q := req.Q
	switch s.Kind {
	case SerpAPI:
		var organic []any
		for i, r := range rs {
			u, _ := url.Parse(r.URL)
			host := ""
			if u != nil {
				host = u.Host
			}
			organic = append(organic, map[string]any{
				"position": i + 1, "title": r.Title, "link": r.URL,
				"redirect_link":  "https://www.google.com/url?sa=t&source=web&rct=j&url=" + url.QueryEscape(r.URL),
				"displayed_link": "https://" + host + " › …", "favicon": "https://serpapi.com/searches/favicon.png",
				"snippet": r.Snippet, "snippet_highlighted_words": []string{firstWord(r.Snippet)}, "source": host,
			})
		}
		v := map[string]any{
			"search_metadata": map[string]any{"id": "6777a1b2c3d4e5f6a7b8c9d0", "status": "Success",
				"json_endpoint": "https://serpapi.com/searches/0a1b2c3d4e5f6a7b/6777a1b2c3d4e5f6a7b8c9d0.json",
				"created_at":    "2026-01-01 00:00:00 UTC", "processed_at": "2026-01-01 00:00:00 UTC",
				"google_url": "https://www.google.com/search?q=" + url.QueryEscape(q), "total_time_taken": 1.21},
			"search_parameters": map[string]any{"engine": "google", "q": q, "google_domain": "google.com", "num": req.Query.Get("num"), "device": "desktop"},
		}
		if none {
			v["search_information"] = map[string]any{"organic_results_state": "Fully empty", "query_displayed": q}
			v["error"] = "Google hasn't returned any results for this query."
		} else {
			v["search_information"] = map[string]any{"organic_results_state": "Results for exact spelling", "query_displayed": q, "total_results": 1234000, "time_taken_displayed": 0.31}
			v["organic_results"] = organic
			v["pagination"] = map[string]any{"current": 1, "next": "https://www.google.com/search?q=" + url.QueryEscape(q) + "&start=10"}
		}
		writeJSON(w, http.StatusOK, v)
	case Brave:
		v := map[string]any{"type": "search", "query": map[string]any{"original": q, "show_strict_warning": false, "is_navigational": false,
			"is_news_breaking": false, "spellcheck_off": true, "country": "us", "bad_results": false, "should_fallback": false,
			"postal_code": "", "city": "", "header_country": "", "more_results_available": !none, "state": ""}}
		if !none {
			var results []any
			for _, r := range rs {
				u, _ := url.Parse(r.URL)
				meta := map[string]any{}
				if u != nil {
					meta = map[string]any{"scheme": u.Scheme, "netloc": u.Host, "hostname": u.Hostname(), "favicon": "https://imgs.search.brave.com/favicon.png", "path": "› " + strings.Trim(u.Path, "/")}
				}
				results = append(results, map[string]any{
					"title": html.EscapeString(r.Title), "url": r.URL, "is_source_local": false, "is_source_both": false,
					"description": markFirstWord(html.EscapeString(r.Snippet)), "page_age": "2023-05-01T00:00:00",
					"profile":  map[string]any{"name": meta["hostname"], "url": r.URL, "long_name": meta["hostname"], "img": "https://imgs.search.brave.com/profile.png"},
					"language": "en", "family_friendly": true, "type": "search_result", "subtype": "generic", "is_live": false,
					"meta_url": meta, "age": "May 1, 2023",
				})
			}
			v["mixed"] = map[string]any{"type": "mixed", "main": []any{map[string]any{"type": "web", "index": 0, "all": true}}, "top": []any{}, "side": []any{}}
			v["web"] = map[string]any{"type": "search", "results": results, "family_friendly": true}
		}
		writeJSON(w, http.StatusOK, v)
	case Tavily:
		results := []any{}
		for i, r := range rs {
			results = append(results, map[string]any{"title": r.Title, "url": r.URL, "content": r.Snippet, "score": 0.98 - 0.1*float64(i), "raw_content": nil})
		}
		writeJSON(w, http.StatusOK, map[string]any{"query": q, "follow_up_questions": nil, "answer": nil, "images": []any{},
			"results": results, "response_time": 1.07, "request_id": "123e4567-e89b-12d3-a456-426614174111"})
	case SearXNG:
		if req.Query.Get("format") != "json" {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!DOCTYPE html><html><body>results page</body></html>")
			return
		}
		results := []any{}
		for i, r := range rs {
			u, _ := url.Parse(r.URL)
			parsed := []string{"", "", "", "", "", ""}
			if u != nil {
				parsed = []string{u.Scheme, u.Host, u.Path, "", u.RawQuery, ""}
			}
			results = append(results, map[string]any{"url": r.URL, "title": r.Title, "content": html.EscapeString(r.Snippet),
				"engine": "google", "parsed_url": parsed, "template": "default.html", "engines": []string{"google", "duckduckgo"},
				"positions": []int{i + 1, i + 2}, "publishedDate": nil, "thumbnail": "", "score": 4.0 / float64(i+1), "category": "general"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"query": q, "number_of_results": 0, "results": results, "answers": []any{},
			"corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{}, "unresponsive_engines": []any{}})
	}
}

// writePage renders a reader answer.
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	p := reply.Page
	switch s.Kind {
	case Firecrawl:
		if p == nil {
			p = &Page{Status: http.StatusNotFound, Title: "404 Not Found"}
		}
		status := p.Status
		if status == 0 {
			status = http.StatusOK
		}
		meta := map[string]any{"title": p.Title, "language": "en", "sourceURL": req.Q, "url": req.Q, "statusCode": status, "scrapeId": "0c5e3b3a-1d2b-4c5d-9e8f-7a6b5c4d3e2f", "proxyUsed": "basic"}
		if status >= 400 {
			meta["error"] = http.StatusText(status)
		}
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": map[string]any{"markdown": p.Text, "metadata": meta}})
	case Jina:
		if p == nil {
			writeJSON(w, 422, map[string]any{"data": nil, "code": 422, "name": "AssertionFailureError", "status": 42206,
				"message": "Failed to goto " + req.Q + ": Error: net::ERR_NAME_NOT_RESOLVED", "readableMessage": "AssertionFailureError: Failed to goto " + req.Q})
			return
		}
		if strings.Contains(r.Header.Get("Accept"), "application/json") {
			data := map[string]any{"title": p.Title, "description": "", "url": req.Q, "content": p.Text, "usage": map[string]any{"tokens": len(p.Text) / 4}}
			if p.Status >= 400 {
				data["warning"] = fmt.Sprintf("Target URL returned error %d: %s", p.Status, http.StatusText(p.Status))
			}
			writeJSON(w, http.StatusOK, map[string]any{"code": 200, "status": 20000, "data": data})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "Title: %s\n\nURL Source: %s\n\nMarkdown Content:\n%s", p.Title, req.Q, p.Text)
	}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// markFirstWord wraps the first word in <strong>, as Brave marks matches.
func markFirstWord(s string) string {
	w := firstWord(s)
	if w == "" {
		return s
	}
	return strings.Replace(s, w, "<strong>"+w+"</strong>", 1)
}
