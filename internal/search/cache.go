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

// CachedSearcher answers from a Cache before asking its Searcher, and
// stores every successful answer (an empty one included). Failures are
// never stored.
type CachedSearcher struct {
	// Refresh asks the searcher even when the cache has an answer (which
	// is then replaced): --no-cache.
	Refresh bool
	// flight makes concurrent askers of one question (the votes of one
	// fact-check) share one request.
	flight   singleflight.Group
	s        Searcher
	c        Cache
	endpoint string
}

// NewCachedSearcher wraps s; endpoint names the provider and its base URL.
func NewCachedSearcher(s Searcher, c Cache, endpoint string) *CachedSearcher {
	return &CachedSearcher{s: s, c: c, endpoint: endpoint}
}

// Search implements Searcher.
func (cs *CachedSearcher) Search(ctx context.Context, query string, n int) ([]Result, error) {
	rs, _, err := cs.SearchCached(ctx, query, n)
	return rs, err
}

// SearchCached is Search that also says whether the answer came from the
// cache.
func (cs *CachedSearcher) SearchCached(ctx context.Context, query string, n int) ([]Result, bool, error) {
	key := cacheKey("search", cs.endpoint, query, n)
	if cs.Refresh {
		// ask below
	} else if b, ok, err := cs.c.Get(ctx, key); err != nil {
		return nil, false, fmt.Errorf("search cache: %w", err)
	} else if ok {
		var rs []Result
		if err := json.Unmarshal(b, &rs); err == nil {
			return rs, true, nil
		}
		// A value this version cannot read is asked again and replaced.
	}
	v, err, shared := cs.flight.Do(key, func() (any, error) {
		rs, err := cs.s.Search(ctx, query, n)
		if err != nil {
			return nil, err
		}
		if rs == nil {
			rs = []Result{}
		}
		b, err := json.Marshal(rs)
		if err != nil {
			return nil, fmt.Errorf("search cache: %w", err)
		}
		if err := cs.c.Put(ctx, key, b); err != nil {
			return nil, fmt.Errorf("search cache: %w", err)
		}
		return rs, nil
	})
	if err != nil {
		return nil, false, err
	}
	rs := v.([]Result)
	if shared {
		rs = slices.Clone(rs)
	}
	return rs, shared, nil
}

// CachedReader does the same for a Reader. It is meant for the paid remote
// readers (Firecrawl, Jina); the builtin reader has the fetcher's page
// cache.
type CachedReader struct {
	// Refresh reads the page again even when the cache has it.
	Refresh  bool
	r        Reader
	c        Cache
	endpoint string
}

// NewCachedReader wraps r; endpoint names the reader and its base URL.
func NewCachedReader(r Reader, c Cache, endpoint string) *CachedReader {
	return &CachedReader{r: r, c: c, endpoint: endpoint}
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

// ReadCached is Read that also says whether the page came from the cache.
func (cr *CachedReader) ReadCached(ctx context.Context, url string) (title, text string, hit bool, err error) {
	key := cacheKey("read", cr.endpoint, url)
	if cr.Refresh {
		// read below
	} else if b, ok, err := cr.c.Get(ctx, key); err != nil {
		return "", "", false, fmt.Errorf("reader cache: %w", err)
	} else if ok {
		var p cachedPage
		if err := json.Unmarshal(b, &p); err == nil {
			return p.Title, p.Text, true, nil
		}
	}
	title, text, err = cr.r.Read(ctx, url)
	if err != nil {
		return "", "", false, err
	}
	b, err := json.Marshal(cachedPage{Title: title, Text: text})
	if err != nil {
		return "", "", false, fmt.Errorf("reader cache: %w", err)
	}
	if err := cr.c.Put(ctx, key, b); err != nil {
		return "", "", false, fmt.Errorf("reader cache: %w", err)
	}
	return title, text, false, nil
}
