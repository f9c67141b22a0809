package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"golang.org/x/sync/singleflight"
)

// Cache stores tool results by key. The run store's response cache
// implements it, so a resumed or repeated run asks a search API the same
// question once: the model, whose calls are cached too, then sees the same
// results and asks the same next question instead of paying for a new
// conversation. Get reports ok=false, not an error, for a missing key.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Put(ctx context.Context, key string, val []byte) error
}

// cacheVersion changes when the encoding of keys or values changes.
const cacheVersion = 1

// cacheKey hashes what determines a tool's answer. The endpoint is the
// provider's name and base URL (two SearXNG instances answer differently);
// keys are never part of it.
func cacheKey(tool, endpoint string, args ...any) string {
	b, _ := json.Marshal(struct {
		V        int    `json:"v"`
		Tool     string `json:"tool"`
		Endpoint string `json:"endpoint"`
		Args     []any  `json:"args"`
	}{cacheVersion, tool, endpoint, args})
	h := sha256.Sum256(b)
	return "search:" + hex.EncodeToString(h[:])
}

// cached answers a question from a Cache, or asks it once for all the
// concurrent askers (singleflight) and stores the answer; failures are never
// stored, and a value this version cannot read is asked again and replaced.
// hit reports an answer that did not come from this call's own request.
type cached[T any] struct {
	c      Cache
	flight singleflight.Group
}

func (k *cached[T]) get(ctx context.Context, key string, refresh bool, ask func() (T, error)) (v T, hit bool, err error) {
	if !refresh {
		b, ok, err := k.c.Get(ctx, key)
		if err != nil {
			return v, false, fmt.Errorf("tool cache: %w", err)
		}
		if ok && json.Unmarshal(b, &v) == nil {
			return v, true, nil
		}
	}
	x, err, shared := k.flight.Do(key, func() (any, error) {
		v, err := ask()
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("tool cache: %w", err)
		}
		if err := k.c.Put(ctx, key, b); err != nil {
			return nil, fmt.Errorf("tool cache: %w", err)
		}
		return v, nil
	})
	if err != nil {
		return v, false, err
	}
	return x.(T), shared, nil
}

// CachedSearcher answers from a Cache before asking its Searcher, and
// stores every successful answer (an empty one included). Concurrent
// askers of one question (the votes of one fact-check) share one request.
type CachedSearcher struct {
	// Refresh asks the searcher even when the cache has an answer (which
	// is then replaced): --no-cache.
	Refresh  bool
	cache    cached[[]Result]
	s        Searcher
	endpoint string
}

// NewCachedSearcher wraps s; endpoint names the provider and its base URL.
func NewCachedSearcher(s Searcher, c Cache, endpoint string) *CachedSearcher {
	return &CachedSearcher{s: s, cache: cached[[]Result]{c: c}, endpoint: endpoint}
}

// Search implements Searcher.
func (cs *CachedSearcher) Search(ctx context.Context, query string, n int) ([]Result, error) {
	rs, _, err := cs.SearchCached(ctx, query, n)
	return rs, err
}

// SearchCached is Search that also says whether the answer came from the
// cache (or from another asker's request).
func (cs *CachedSearcher) SearchCached(ctx context.Context, query string, n int) ([]Result, bool, error) {
	rs, hit, err := cs.cache.get(ctx, cacheKey("search", cs.endpoint, query, n), cs.Refresh, func() ([]Result, error) {
		rs, err := cs.s.Search(ctx, query, n)
		if rs == nil && err == nil {
			rs = []Result{}
		}
		return rs, err
	})
	return slices.Clone(rs), hit, err
}

// CachedReader does the same for a Reader. It is meant for the paid remote
// readers (Firecrawl, Jina); the builtin reader has the fetcher's page
// cache.
type CachedReader struct {
	// Refresh reads the page again even when the cache has it.
	Refresh  bool
	cache    cached[cachedPage]
	r        Reader
	endpoint string
}

// NewCachedReader wraps r; endpoint names the reader and its base URL.
func NewCachedReader(r Reader, c Cache, endpoint string) *CachedReader {
	return &CachedReader{r: r, cache: cached[cachedPage]{c: c}, endpoint: endpoint}
}

type cachedPage struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Read implements Reader.
func (cr *CachedReader) Read(ctx context.Context, url string) (string, string, error) {
	title, text, _, err := cr.ReadCached(ctx, url)
	return title, text, err
}

// ReadCached is Read that also says whether the page came from the cache
// (or from another reader's request).
func (cr *CachedReader) ReadCached(ctx context.Context, url string) (title, text string, hit bool, err error) {
	p, hit, err := cr.cache.get(ctx, cacheKey("read", cr.endpoint, url), cr.Refresh, func() (cachedPage, error) {
		title, text, err := cr.r.Read(ctx, url)
		return cachedPage{Title: title, Text: text}, err
	})
	return p.Title, p.Text, hit, err
}
