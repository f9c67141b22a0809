package fetch

import (
	"context"
	"sync"
)

// Cache stores fetched pages by the URL they were requested as. The store
// implements it (a content-hash cache); MemoryCache is an in-memory one.
// Only final answers are cached (any status but 429 and 5xx); failures are
// not, so they are retried on the next run.
type Cache interface {
	GetPage(ctx context.Context, url string) (*Page, bool, error)
	PutPage(ctx context.Context, p *Page) error
}

// MemoryCache is a Cache held in memory, for tests and one-shot runs.
// It is safe for concurrent use.
type MemoryCache struct {
	mu    sync.Mutex
	pages map[string]*Page
}

// NewMemoryCache returns an empty MemoryCache.
func NewMemoryCache() *MemoryCache {
	return &MemoryCache{pages: make(map[string]*Page)}
}

// GetPage returns a copy of the page cached for url.
func (m *MemoryCache) GetPage(_ context.Context, url string) (*Page, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pages[url]
	if !ok {
		return nil, false, nil
	}
	cp := *p
	return &cp, true, nil
}

// PutPage stores a copy of p under p.URL.
func (m *MemoryCache) PutPage(_ context.Context, p *Page) error {
	cp := *p
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages[p.URL] = &cp
	return nil
}

// Len returns the number of cached pages.
func (m *MemoryCache) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pages)
}
