package search_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimtrace/claimtrace/internal/search"
)

type mapCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *mapCache) Get(_ context.Context, k string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok, nil
}

func (c *mapCache) Put(_ context.Context, k string, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[k] = v
	return nil
}

type countingSearcher struct {
	calls int
	fail  bool
}

func (s *countingSearcher) Search(_ context.Context, q string, n int) ([]search.Result, error) {
	s.calls++
	if s.fail {
		return nil, errors.New("search failed")
	}
	if q == "nothing" {
		return nil, nil
	}
	return []search.Result{{Title: q, URL: "https://example.org/" + q}}[:min(n, 1)], nil
}

type countingReader struct{ calls int }

func (r *countingReader) Read(_ context.Context, u string) (string, string, error) {
	r.calls++
	return "T " + u, "text of " + u, nil
}

func TestCachedSearcher(t *testing.T) {
	ctx := t.Context()
	c := &mapCache{}
	s := &countingSearcher{}
	cs := search.NewCachedSearcher(s, c, "serpapi https://serpapi.com")

	first, hit, err := cs.SearchCached(ctx, "radar", 5)
	if err != nil || hit || s.calls != 1 {
		t.Fatalf("first search: hit %v, %d calls, %v", hit, s.calls, err)
	}
	again, hit, err := cs.SearchCached(ctx, "radar", 5)
	if err != nil || !hit || s.calls != 1 || !cmp.Equal(first, again) {
		t.Errorf("repeated search: hit %v, %d calls, %v, %+v vs %+v", hit, s.calls, err, again, first)
	}
	// Another n, another query or another endpoint is another question.
	cs.Search(ctx, "radar", 3)
	cs.Search(ctx, "lidar", 5)
	search.NewCachedSearcher(s, c, "searxng http://localhost:8888").Search(ctx, "radar", 5)
	if s.calls != 4 {
		t.Errorf("%d calls after three different questions, want 4", s.calls)
	}
	// An empty answer is an answer; it is kept.
	cs.Search(ctx, "nothing", 5)
	rs, hit, _ := cs.SearchCached(ctx, "nothing", 5)
	if !hit || rs == nil || len(rs) != 0 || s.calls != 5 {
		t.Errorf("empty answer: hit %v, %+v, %d calls", hit, rs, s.calls)
	}
	// A failure is not kept: the next call asks again.
	s.fail = true
	if _, err := cs.Search(ctx, "failing", 5); err == nil {
		t.Fatal("failure not returned")
	}
	s.fail = false
	if _, hit, err := cs.SearchCached(ctx, "failing", 5); err != nil || hit || s.calls != 7 {
		t.Errorf("after a failure: hit %v, %d calls, %v", hit, s.calls, err)
	}
	// Refresh asks again and replaces the answer.
	cs.Refresh = true
	if _, hit, _ := cs.SearchCached(ctx, "radar", 5); hit || s.calls != 8 {
		t.Errorf("refresh: hit %v, %d calls", hit, s.calls)
	}
	// A value that cannot be read is asked again, not returned.
	cs.Refresh = false
	for k := range c.m {
		c.m[k] = []byte("{not json")
	}
	if rs, hit, err := cs.SearchCached(ctx, "radar", 5); err != nil || hit || len(rs) != 1 || s.calls != 9 {
		t.Errorf("corrupt cache value: hit %v, %+v, %d calls, %v", hit, rs, s.calls, err)
	}
}

func TestCachedReader(t *testing.T) {
	ctx := t.Context()
	c := &mapCache{}
	r := &countingReader{}
	cr := search.NewCachedReader(r, c, "jina https://r.jina.ai")
	t1, x1, hit, err := cr.ReadCached(ctx, "https://example.org/a")
	if err != nil || hit || r.calls != 1 {
		t.Fatalf("first read: %v %v %d", err, hit, r.calls)
	}
	t2, x2, hit, err := cr.ReadCached(ctx, "https://example.org/a")
	if err != nil || !hit || r.calls != 1 || t1 != t2 || x1 != x2 {
		t.Errorf("repeated read: hit %v, %d calls, %q/%q", hit, r.calls, t2, x2)
	}
	// Search and read keys never collide, even for equal arguments.
	search.NewCachedSearcher(&countingSearcher{}, c, "jina https://r.jina.ai").Search(ctx, "https://example.org/a", 1)
	if len(c.m) != 2 {
		t.Errorf("%d cache entries, want 2", len(c.m))
	}
}
