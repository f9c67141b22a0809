package search_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/search"
	"github.com/claimtrace/claimtrace/internal/search/searchtest"
)

const testKey = "test-key-0123456789SECRET"

// sleeps records the delays a client waited, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

var searchKinds = []searchtest.Kind{searchtest.SerpAPI, searchtest.Brave, searchtest.Tavily, searchtest.SearXNG}

func newSearcher(t *testing.T, srv *searchtest.Server, sl *sleeps) search.Searcher {
	t.Helper()
	s, err := search.NewSearcher(string(srv.Kind), search.Options{BaseURL: srv.URL, APIKey: testKey, Timeout: 5 * time.Second, Sleep: sl.sleep})
	if err != nil {
		t.Fatalf("NewSearcher(%s): %v", srv.Kind, err)
	}
	return s
}

var sample = []search.Result{
	{Title: "Attention Is All You Need", URL: "https://arxiv.org/abs/1706.03762", Snippet: "The dominant sequence transduction models are based on recurrent & convolutional networks."},
	{Title: "BERT: Pre-training of Deep Bidirectional Transformers", URL: "https://aclanthology.org/N19-1423/", Snippet: "We introduce a new language representation model called BERT."},
	{Title: "Not a web page", URL: "ftp://example.org/file", Snippet: "dropped: not http(s)"},
	{Title: "Attention again", URL: "https://arxiv.org/abs/1706.03762", Snippet: "dropped: a repeated URL"},
	{Title: "Language Models are Few-Shot Learners", URL: "https://arxiv.org/abs/2005.14165", Snippet: "GPT-3, 175 billion parameters."},
}

func TestSearchDecodesEachProvidersShape(t *testing.T) {
	want := []search.Result{sample[0], sample[1], sample[4]}
	for _, kind := range searchKinds {
		t.Run(string(kind), func(t *testing.T) {
			srv := searchtest.NewServer(t, kind)
			srv.RequireKey(testKey)
			srv.Enqueue(searchtest.Results(sample...))
			got, err := newSearcher(t, srv, &sleeps{}).Search(t.Context(), "transformer language models", 10)
			if err != nil {
				t.Fatalf("Search: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Q != "transformer language models" {
				t.Fatalf("requests = %+v, want one for the query", reqs)
			}
			// The result count travels in each API's own parameter.
			r := reqs[0]
			var n string
			switch kind {
			case searchtest.SerpAPI:
				n = r.Query.Get("num")
				if r.Query.Get("engine") != "google" {
					t.Errorf("serpapi engine = %q", r.Query.Get("engine"))
				}
			case searchtest.Brave:
				n = r.Query.Get("count")
			case searchtest.Tavily:
				n = "10"
				if !strings.Contains(string(r.Body), `"max_results":10`) || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("tavily body %s, content type %q", r.Body, r.Header.Get("Content-Type"))
				}
			case searchtest.SearXNG:
				n = "10"
				if r.Query.Get("format") != "json" {
					t.Errorf("searxng format = %q", r.Query.Get("format"))
				}
			}
			if n != "10" {
				t.Errorf("result count parameter = %q, want 10", n)
			}
		})
	}
}

func TestSearchLimitsResults(t *testing.T) {
	for _, kind := range searchKinds {
		t.Run(string(kind), func(t *testing.T) {
			srv := searchtest.NewServer(t, kind)
			got, err := newSearcher(t, srv, &sleeps{}).Search(t.Context(), "graph neural networks", 2)
			if err != nil {
				t.Fatal(err)
			}
			want := searchtest.DefaultResults("graph neural networks")[:2]
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSearchNoResultsIsEmptyNotError(t *testing.T) {
	for _, kind := range searchKinds {
		t.Run(string(kind), func(t *testing.T) {
			srv := searchtest.NewServer(t, kind)
			srv.Enqueue(searchtest.Fail(searchtest.NoResults))
			got, err := newSearcher(t, srv, &sleeps{}).Search(t.Context(), "zzqv nothing matches", 5)
			if err != nil || got == nil || len(got) != 0 {
				t.Errorf("Search = %v, %v; want an empty, non-nil result", got, err)
			}
		})
	}
}

func TestSearchRetriesTransientFailures(t *testing.T) {
	for _, kind := range searchKinds {
		t.Run(string(kind), func(t *testing.T) {
			srv := searchtest.NewServer(t, kind)
			srv.Enqueue(
				searchtest.Reply{Fault: searchtest.RateLimit, RetryAfter: 7 * time.Second},
				searchtest.Fail(searchtest.ServerError),
				searchtest.Fail(searchtest.BadGateway),
				searchtest.Results(sample[0]),
			)
			sl := &sleeps{}
			got, err := newSearcher(t, srv, sl).Search(t.Context(), "q", 3)
			if err != nil {
				t.Fatalf("Search after 3 transient failures: %v", err)
			}
			if len(got) != 1 || got[0].URL != sample[0].URL {
				t.Errorf("results = %+v", got)
			}
			if n := len(srv.Requests()); n != 4 {
				t.Errorf("%d requests, want 4", n)
			}
			d := sl.all()
			if len(d) != 3 || d[0] != 7*time.Second {
				t.Errorf("waits = %v, want 3 with the first the 7s Retry-After", d)
			}
		})
	}
}

func TestSearchDroppedConnectionIsRetried(t *testing.T) {
	srv := searchtest.NewServer(t, searchtest.Tavily)
	srv.Enqueue(searchtest.Fail(searchtest.DropConnection))
	got, err := newSearcher(t, srv, &sleeps{}).Search(t.Context(), "retry me", 3)
	if err != nil || len(got) != 3 {
		t.Fatalf("Search = %d results, %v", len(got), err)
	}
}

func TestSearchErrors(t *testing.T) {
	tests := []struct {
		fault   searchtest.Fault
		kind    error
		retried bool
	}{
		{searchtest.Unauthorized, search.ErrAuth, false},
		{searchtest.Quota, search.ErrQuota, false},
		{searchtest.RateLimit, search.ErrRateLimit, true},
		{searchtest.ServerError, claimtrace.ErrUnreachable, true},
		{searchtest.Malformed, search.ErrMalformed, false},
	}
	for _, kind := range searchKinds {
		for _, tt := range tests {
			if kind == searchtest.SearXNG && tt.fault == searchtest.Quota {
				continue // an instance has no quota
			}
			t.Run(string(kind)+"/"+tt.kind.Error(), func(t *testing.T) {
				srv := searchtest.NewServer(t, kind)
				srv.Handle(func(string) searchtest.Reply { return searchtest.Fail(tt.fault) })
				_, err := newSearcher(t, srv, &sleeps{}).Search(t.Context(), "any query", 3)
				if !errors.Is(err, tt.kind) {
					t.Fatalf("error %v is not %v", err, tt.kind)
				}
				msg := err.Error()
				if !strings.Contains(msg, string(kind)) || !strings.Contains(msg, `"any query"`) || strings.Contains(msg, testKey) {
					t.Errorf("error %q should name the provider and query, never the key", msg)
				}
				wantReqs := 1
				if tt.retried {
					wantReqs = 1 + search.DefaultRetries
				}
				if n := len(srv.Requests()); n != wantReqs {
					t.Errorf("%d requests, want %d", n, wantReqs)
				}
				if got := search.Fatal(err); got != (tt.kind == search.ErrAuth || tt.kind == search.ErrQuota) {
					t.Errorf("Fatal = %v", got)
				}
			})
		}
	}
}

func TestSearchWrongKeyExplained(t *testing.T) {
	srv := searchtest.NewServer(t, searchtest.SearXNG)
	srv.Enqueue(searchtest.Fail(searchtest.Unauthorized))
	_, err := newSearcher(t, srv, &sleeps{}).Search(t.Context(), "q", 3)
	if err == nil || !strings.Contains(err.Error(), "format=json") {
		t.Errorf("searxng 403 error = %v, want the json-format explanation", err)
	}

	brave := searchtest.NewServer(t, searchtest.Brave)
	brave.RequireKey("the-right-key")
	_, err = newSearcher(t, brave, &sleeps{}).Search(t.Context(), "q", 3)
	var e *search.Error
	if !errors.As(err, &e) || e.Status != 422 || e.Code != "SUBSCRIPTION_TOKEN_INVALID" || !errors.Is(err, search.ErrAuth) {
		t.Errorf("brave wrong key = %#v, want 422 SUBSCRIPTION_TOKEN_INVALID as ErrAuth", err)
	}
}

func TestSearchKeyNeverInNetworkErrors(t *testing.T) {
	// Nothing listens at a closed listener's address. Go's *url.Error would
	// print the request URL, which carries SerpAPI's api_key.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s, err := search.NewSerpAPI(search.Options{BaseURL: "http://" + addr, APIKey: testKey, Retries: -1, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Search(t.Context(), "q", 3)
	if err == nil || strings.Contains(err.Error(), testKey) || !errors.Is(err, claimtrace.ErrUnreachable) {
		t.Errorf("network error = %v: want ErrUnreachable without the key", err)
	}
}

func TestMissingKeyNamesTheVariable(t *testing.T) {
	for _, tt := range []struct{ name, env string }{{"serpapi", "SERPAPI_API_KEY"}, {"brave", "BRAVE_API_KEY"}, {"tavily", "TAVILY_API_KEY"}} {
		_, err := search.NewSearcher(tt.name, search.Options{})
		if !errors.Is(err, search.ErrAuth) || !strings.Contains(err.Error(), tt.env) {
			t.Errorf("%s without key: %v, want ErrAuth naming %s", tt.name, err, tt.env)
		}
	}
	if _, err := search.NewSearcher("searxng", search.Options{}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("searxng without URL: %v", err)
	}
	if _, err := search.NewSearcher("bing", search.Options{APIKey: "k"}); !errors.Is(err, claimtrace.ErrInvalid) {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := search.NewReader("firecrawl", search.Options{}); !errors.Is(err, search.ErrAuth) || !strings.Contains(err.Error(), "FIRECRAWL_API_KEY") {
		t.Errorf("firecrawl without key: %v", err)
	}
	if _, err := search.NewReader("firecrawl", search.Options{BaseURL: "http://firecrawl.internal:3002"}); err != nil {
		t.Errorf("self-hosted firecrawl without key: %v", err)
	}
}

func TestSearchHonoursCancellation(t *testing.T) {
	srv := searchtest.NewServer(t, searchtest.Brave)
	srv.Enqueue(searchtest.Reply{Results: sample, Delay: 5 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newSearcher(t, srv, &sleeps{}).Search(ctx, "slow", 3)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("Search = %v after %v, want the context's error at once", err, time.Since(start))
	}
}
